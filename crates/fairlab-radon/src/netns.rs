//! Creating a socket inside a named network namespace: setns(2) on this
//! thread into `/run/netns/NAME`, create the socket, setns back. A socket
//! stays in the namespace it was created in, so one process serves a whole
//! emulated network from one thread.

use crate::error::{Error, Result};
use std::fs::File;
use std::os::fd::AsRawFd;

/// While alive, this thread is in another network namespace; dropping it
/// returns to the one it came from.
pub struct Entered {
    home: File,
    name: String,
}

/// Enters `/run/netns/NAME` on this thread (None: stay where we are).
pub fn enter(name: Option<&str>) -> Result<Option<Entered>> {
    let Some(name) = name else {
        return Ok(None);
    };
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        return Err(Error::Config(format!(
            "netns = {name:?}: a namespace name as `ip netns` lists it (no '/')"
        )));
    }
    let path = format!("/run/netns/{name}");
    let target = File::open(&path).map_err(|e| {
        Error::Config(format!(
            "netns = {name:?}: {path} cannot be opened ({e}); `ip netns list` shows the namespaces"
        ))
    })?;
    let home = File::open("/proc/thread-self/ns/net")
        .map_err(|e| Error::Io(format!("/proc/thread-self/ns/net: {e}")))?;
    switch(&target, name)?;
    Ok(Some(Entered {
        home,
        name: name.to_string(),
    }))
}

fn switch(ns: &File, name: &str) -> Result<()> {
    // SAFETY: a valid namespace fd; setns affects only this thread.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EPERM) => Error::Capability(format!(
                "entering network namespace {name} needs CAP_SYS_ADMIN: run as root, or leave netns out to use this namespace"
            )),
            _ => Error::Io(format!("setns into {name}: {e}")),
        });
    }
    Ok(())
}

impl Drop for Entered {
    fn drop(&mut self) {
        // Going home cannot fail for a thread that left it (it holds the
        // privilege it used); if it did, the thread would create its next
        // socket in the wrong namespace, so say so loudly.
        if let Err(e) = switch(&self.home, "the original namespace") {
            eprintln!("fairlab-radon: leaving {}: {e}", self.name);
        }
    }
}

/// Runs `f` inside `netns` (or here).
pub fn within<T>(netns: Option<&str>, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let _guard = enter(netns)?;
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_namespace_is_one_line_naming_it() {
        let e = enter(Some("fairlab-radon-no-such-ns")).err().unwrap();
        assert!(
            e.to_string()
                .starts_with("netns = \"fairlab-radon-no-such-ns\""),
            "{e}"
        );
        assert!(matches!(enter(Some("../x")), Err(Error::Config(_))));
        assert!(enter(None).unwrap().is_none());
    }
}
