//! Receive timestamps. The receiver asks for SO_TIMESTAMPING with both
//! software (the kernel's, taken as the packet enters the stack) and raw
//! hardware stamps; hardware ones arrive only where the NIC stamps and its
//! hardware stamping is already on (fairlab does not switch a NIC's global
//! SIOCSHWTSTAMP setting: that is ptp4l's or the operator's). Each datagram
//! records which source gave its stamp; where the kernel gives none, the
//! application's CLOCK_REALTIME read after recvmsg is the fallback. Probed
//! per packet, never assumed.

use crate::clock::realtime_ns;
use crate::error::{from_io, os_error, Result};
use std::os::fd::RawFd;

/// Where a receive stamp came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StampSource {
    Hardware,
    Kernel,
    Application,
}

impl StampSource {
    pub fn name(self) -> &'static str {
        match self {
            StampSource::Hardware => "hardware",
            StampSource::Kernel => "kernel",
            StampSource::Application => "application",
        }
    }
    pub fn code(self) -> u8 {
        self as u8
    }
    pub fn from_code(c: u8) -> Option<StampSource> {
        [
            StampSource::Hardware,
            StampSource::Kernel,
            StampSource::Application,
        ]
        .get(usize::from(c))
        .copied()
    }
}

/// Asks the kernel for software and raw hardware receive stamps on `fd`.
pub fn enable(fd: RawFd) -> Result<()> {
    let flags: libc::c_int = (libc::SOF_TIMESTAMPING_RX_SOFTWARE
        | libc::SOF_TIMESTAMPING_SOFTWARE
        | libc::SOF_TIMESTAMPING_RX_HARDWARE
        | libc::SOF_TIMESTAMPING_RAW_HARDWARE) as libc::c_int;
    // SAFETY: an int option on a socket we own.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPING,
            (&flags as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(from_io("SO_TIMESTAMPING", &os_error()));
    }
    Ok(())
}

/// One received datagram: its length, source, stamp and the stamp's source.
pub struct Received {
    pub len: usize,
    pub from: libc::sockaddr_storage,
    pub from_len: libc::socklen_t,
    pub recv_ns: i64,
    pub source: StampSource,
}

/// recvmsg without blocking: Ok(None) when nothing is queued.
pub fn recv(fd: RawFd, buf: &mut [u8]) -> Result<Option<Received>> {
    // Room for SCM_TIMESTAMPING's three timespecs and a spare header.
    let mut control = [0u64; 32];
    // SAFETY: zeroed plain-data structs; the iovec and control buffer
    // outlive the call; CMSG_* walk only the length the kernel wrote.
    unsafe {
        let mut from: libc::sockaddr_storage = std::mem::zeroed();
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_name = (&mut from as *mut libc::sockaddr_storage).cast();
        msg.msg_namelen = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        let n = libc::recvmsg(fd, &mut msg, libc::MSG_DONTWAIT);
        if n < 0 {
            let e = os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
                // A feedback's ICMP port-unreachable (sender gone) surfaces
                // here on the next read: not the receiver's error.
                Some(libc::ECONNREFUSED) => Ok(None),
                _ => Err(from_io("recvmsg", &e)),
            };
        }
        let (recv_ns, source) = stamp_of(&msg).unwrap_or((realtime_ns(), StampSource::Application));
        Ok(Some(Received {
            len: n as usize,
            from,
            from_len: msg.msg_namelen,
            recv_ns,
            source,
        }))
    }
}

/// The best stamp in a message's control data: raw hardware, else software.
unsafe fn stamp_of(msg: &libc::msghdr) -> Option<(i64, StampSource)> {
    let mut cmsg = libc::CMSG_FIRSTHDR(msg);
    while !cmsg.is_null() {
        let c = &*cmsg;
        if c.cmsg_level == libc::SOL_SOCKET && c.cmsg_type == libc::SCM_TIMESTAMPING {
            let data = libc::CMSG_DATA(cmsg).cast::<libc::timespec>();
            let ts: [libc::timespec; 3] = std::ptr::read_unaligned(data.cast());
            let ns = crate::clock::timespec_ns;
            if ns(&ts[2]) != 0 {
                return Some((ns(&ts[2]), StampSource::Hardware));
            }
            if ns(&ts[0]) != 0 {
                return Some((ns(&ts[0]), StampSource::Kernel));
            }
        }
        cmsg = libc::CMSG_NXTHDR(msg, cmsg);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_codes_round_trip() {
        for s in [
            StampSource::Hardware,
            StampSource::Kernel,
            StampSource::Application,
        ] {
            assert_eq!(StampSource::from_code(s.code()), Some(s));
        }
        assert_eq!(StampSource::from_code(3), None);
    }
}
