//! The agent's errors: each is ONE line that names what failed and what to
//! do about it (the CLI and the Python binding print it as is).

use std::fmt;

/// What went wrong, by kind (tests and callers match on it), with its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A configuration field out of range: the line names field and value.
    Config(String),
    /// A port already bound (EADDRINUSE).
    AddrInUse(String),
    /// Nothing listening, or no answer in time.
    Unreachable(String),
    /// A privilege or kernel feature missing (setns, hardware stamps).
    Capability(String),
    /// The peer speaks another protocol version.
    Version(String),
    /// A message or datagram that does not decode.
    Malformed(String),
    /// The peer refused (its one line).
    Refused(String),
    /// The run passed its deadline.
    Deadline(String),
    /// Stopped by Ctrl-C (or the caller's cancel).
    Interrupted,
    /// Any other system call failure.
    Io(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(s)
            | Error::AddrInUse(s)
            | Error::Unreachable(s)
            | Error::Capability(s)
            | Error::Version(s)
            | Error::Malformed(s)
            | Error::Refused(s)
            | Error::Deadline(s)
            | Error::Io(s) => f.write_str(&one_line(s)),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {}

/// Keeps a message on one line (a peer's refusal may carry anything).
pub fn one_line(s: &str) -> String {
    let line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(400)
        .collect();
    line.trim().to_string()
}

/// The last OS error as text, e.g. "Address already in use (os error 98)".
pub fn os_error() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// An OS error during `what`, classified by errno.
pub fn from_io(what: &str, e: &std::io::Error) -> Error {
    match e.raw_os_error() {
        Some(libc::EADDRINUSE) => Error::AddrInUse(format!("{what}: address already in use")),
        Some(libc::EPERM) | Some(libc::EACCES) => {
            Error::Capability(format!("{what}: not permitted ({e}); run as root"))
        }
        _ => Error::Io(format!("{what}: {e}")),
    }
}

/// Shorthand for results.
pub type Result<T> = std::result::Result<T, Error>;
