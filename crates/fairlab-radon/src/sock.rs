//! Sockets, each created in its stream's or listener's namespace, with the
//! one-line errors a user can act on.

use crate::error::{from_io, Error, Result};
use crate::netns;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// "10.0.0.1:5201 in netns fl12ab-h0" (or without the namespace).
pub fn place(netns: Option<&str>, addr: &str, port: u16) -> String {
    match netns {
        Some(ns) => format!("{addr}:{port} in netns {ns}"),
        None => format!("{addr}:{port}"),
    }
}

/// Parses an address field.
pub fn ip(field: &str, addr: &str) -> Result<IpAddr> {
    addr.parse().map_err(|_| {
        Error::Config(format!(
            "{field} = {addr:?}: an IPv4 or IPv6 address, e.g. 10.0.0.1"
        ))
    })
}

fn in_use(kind: &str, at: &str, port: u16) -> Error {
    Error::AddrInUse(format!(
        "{kind} port {port} is in use at {at}: another fairlab radon recv (or iperf3) listens there; stop it or pick another --port"
    ))
}

/// The receiver's TCP control listener and same-numbered UDP socket.
pub fn listen(netns: Option<&str>, addr: &str, port: u16) -> Result<(TcpListener, UdpSocket)> {
    let at = place(netns, addr, port);
    let sa = SocketAddr::new(ip("listen.addr", addr)?, port);
    netns::within(netns, || {
        let tcp = TcpListener::bind(sa).map_err(|e| match e.raw_os_error() {
            Some(libc::EADDRINUSE) => in_use("TCP", &at, port),
            Some(libc::EADDRNOTAVAIL) => Error::Config(format!(
                "listen.addr = {addr:?}: no interface has this address ({at})"
            )),
            _ => from_io(&format!("listening on {at}"), &e),
        })?;
        let udp = UdpSocket::bind(sa).map_err(|e| match e.raw_os_error() {
            Some(libc::EADDRINUSE) => in_use("UDP", &at, port),
            _ => from_io(&format!("binding UDP {at}"), &e),
        })?;
        tcp.set_nonblocking(true)
            .map_err(|e| from_io("listener", &e))?;
        grow_rcvbuf(&udp, 8 << 20);
        Ok((tcp, udp))
    })
}

/// Raises a socket's receive buffer (forcing past rmem_max where
/// privileged), so a burst of datagrams waits for the reader instead of
/// being dropped by the socket.
pub fn grow_rcvbuf(s: &impl AsRawFd, bytes: i32) {
    for opt in [libc::SO_RCVBUFFORCE, libc::SO_RCVBUF] {
        // SAFETY: an int option on a socket we own.
        let rc = unsafe {
            libc::setsockopt(
                s.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                (&bytes as *const i32).cast(),
                std::mem::size_of::<i32>() as libc::socklen_t,
            )
        };
        if rc == 0 {
            return;
        }
    }
}

/// The sender's control connection to a receiver, retried while nothing
/// listens until `patience` passes.
pub fn connect(netns: Option<&str>, dst: &str, port: u16, patience: Duration) -> Result<TcpStream> {
    let at = place(netns, dst, port);
    let sa = SocketAddr::new(ip("dst_addr", dst)?, port);
    let start = std::time::Instant::now();
    loop {
        let left = patience.saturating_sub(start.elapsed());
        let tried = netns::within(netns, || {
            Ok(TcpStream::connect_timeout(
                &sa,
                left.max(Duration::from_millis(200)),
            ))
        })?;
        let e = match tried {
            Ok(s) => return Ok(s),
            Err(e) => e,
        };
        let refused = e.raw_os_error() == Some(libc::ECONNREFUSED);
        if refused && start.elapsed() < patience {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let why = match e.raw_os_error() {
            Some(libc::ECONNREFUSED) => "nothing listens there".to_string(),
            Some(libc::ENETUNREACH) | Some(libc::EHOSTUNREACH) => "no route to it".to_string(),
            _ if e.kind() == std::io::ErrorKind::TimedOut => {
                format!("no answer within {:.1} s", patience.as_secs_f64())
            }
            _ => e.to_string(),
        };
        return Err(Error::Unreachable(format!(
            "cannot reach the receiver at {at}: {why}; start `fairlab radon recv --port {port}` there"
        )));
    }
}

/// A stream's UDP socket: bound to `src` (or any), connected to the receiver.
pub fn udp_to(netns: Option<&str>, src: Option<&str>, dst: &str, port: u16) -> Result<UdpSocket> {
    let dst_ip = ip("dst_addr", dst)?;
    let bind_ip = match src {
        Some(a) => ip("src_addr", a)?,
        None if dst_ip.is_ipv6() => IpAddr::from([0u16; 8]),
        None => IpAddr::from([0u8; 4]),
    };
    netns::within(netns, || {
        let s = UdpSocket::bind(SocketAddr::new(bind_ip, 0)).map_err(|e| {
            from_io(
                &format!("binding UDP to {}", place(netns, &bind_ip.to_string(), 0)),
                &e,
            )
        })?;
        s.connect(SocketAddr::new(dst_ip, port))
            .map_err(|e| from_io(&format!("UDP to {}", place(netns, dst, port)), &e))?;
        grow_rcvbuf(&s, 1 << 20);
        Ok(s)
    })
}

/// Sends `bytes` to a raw socket address (a datagram's source).
pub fn send_to(fd: i32, bytes: &[u8], to: &libc::sockaddr_storage, len: libc::socklen_t) -> bool {
    // SAFETY: `to` holds `len` valid bytes of address the kernel wrote.
    let n = unsafe {
        libc::sendto(
            fd,
            bytes.as_ptr().cast(),
            bytes.len(),
            libc::MSG_DONTWAIT,
            (to as *const libc::sockaddr_storage).cast(),
            len,
        )
    };
    n == bytes.len() as isize
}

/// Sends on a connected socket; false when the kernel refused (a full
/// buffer or an ICMP error from an earlier datagram).
pub fn send(fd: i32, bytes: &[u8]) -> bool {
    // SAFETY: a valid buffer on a socket we own.
    let n = unsafe { libc::send(fd, bytes.as_ptr().cast(), bytes.len(), 0) };
    n == bytes.len() as isize
}

/// Reads a datagram without blocking (None: nothing queued, or an ICMP
/// error surfaced, which is not a datagram).
pub fn recv_now(fd: i32, buf: &mut [u8]) -> Option<usize> {
    // SAFETY: a valid buffer on a socket we own.
    let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) };
    (n >= 0).then_some(n as usize)
}
