//! The receiver agent: one thread, every listener (each in its own
//! namespace, if asked) polled together. A listener serves one sender's
//! session at a time: hello (checked: version, record bound), then data on
//! its UDP port, stamped by the kernel, feedback back to each datagram's
//! source as the core decides, then done → summary and records.

use crate::config::RecvConfig;
use crate::control::{self, Msg, StreamHello, StreamSummary};
use crate::error::{Error, Result};
use crate::session::RecvSession;
use crate::sock;
use crate::stamp;
use crate::wire::DataHeader;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::BufReader;
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

/// One finished session, as the receiver reports it.
#[derive(Clone, Debug, Serialize)]
pub struct SessionReport {
    pub listener: String,
    pub peer: String,
    pub streams: usize,
    pub received: u64,
    pub lost: u64,
    pub feedback_sent: u64,
    pub malformed: u64,
    /// The one-line summary printed for it.
    pub line: String,
}

/// What `run` returns.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RecvOutcome {
    pub sessions: Vec<SessionReport>,
}

struct Active {
    ctl: BufReader<TcpStream>,
    peer: String,
    streams: BTreeMap<u32, RecvSession>,
    malformed: u64,
}

struct Listener {
    at: String,
    tcp: TcpListener,
    udp: UdpSocket,
    served: u32,
    active: Option<Active>,
}

/// How long a control exchange may take before the peer is given up.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs the receiver until every listener has served `sessions` sessions
/// (0: until the deadline), the deadline, or `cancelled()`. `report` gets
/// each session's line as it ends.
pub fn run(
    cfg: &RecvConfig,
    cancelled: &mut dyn FnMut() -> bool,
    report: &mut dyn FnMut(&str),
) -> Result<RecvOutcome> {
    cfg.check()?;
    let mut listeners = Vec::new();
    for l in &cfg.listen {
        let (tcp, udp) = sock::listen(l.netns.as_deref(), &l.addr, l.port)?;
        stamp::enable(udp.as_raw_fd())?;
        listeners.push(Listener {
            at: sock::place(l.netns.as_deref(), &l.addr, l.port),
            tcp,
            udp,
            served: 0,
            active: None,
        });
    }
    let deadline = Instant::now() + Duration::from_secs_f64(cfg.deadline_s);
    let mut out = RecvOutcome::default();
    let mut buf = vec![0u8; 65_536];
    loop {
        if cfg.sessions > 0 && listeners.iter().all(|l| l.served >= cfg.sessions) {
            return Ok(out);
        }
        if cancelled() {
            return Err(Error::Interrupted);
        }
        if Instant::now() >= deadline {
            if cfg.sessions == 0 {
                return Ok(out);
            }
            let served: u32 = listeners.iter().map(|l| l.served).sum();
            return Err(Error::Deadline(format!(
                "receiver deadline_s = {} passed after {served} of {} sessions",
                cfg.deadline_s,
                cfg.sessions as usize * listeners.len()
            )));
        }
        wait_readable(&listeners, 50);
        for l in listeners.iter_mut() {
            drain_udp(l, &mut buf)?;
            accept(l, cfg)?;
            if let Some(r) = serve_control(l, &mut buf)? {
                report(&r.line);
                out.sessions.push(r);
            }
        }
    }
}

/// Blocks up to `ms` until any socket has something.
fn wait_readable(listeners: &[Listener], ms: i32) {
    let mut fds = Vec::with_capacity(listeners.len() * 3);
    for l in listeners {
        fds.push(l.tcp.as_raw_fd());
        fds.push(l.udp.as_raw_fd());
        if let Some(a) = &l.active {
            fds.push(a.ctl.get_ref().as_raw_fd());
        }
    }
    let mut polls: Vec<libc::pollfd> = fds
        .into_iter()
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: a valid array of pollfds; EINTR just returns early.
    unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, ms) };
}

/// Reads every queued datagram: data of the active session is stamped and
/// answered; anything else is counted as malformed (or dropped, with no
/// session to count it).
fn drain_udp(l: &mut Listener, buf: &mut [u8]) -> Result<()> {
    let fd = l.udp.as_raw_fd();
    while let Some(got) = stamp::recv(fd, buf)? {
        let Some(active) = l.active.as_mut() else {
            continue;
        };
        let Ok(h) = DataHeader::decode(&buf[..got.len]) else {
            active.malformed += 1;
            continue;
        };
        let Some(s) = active.streams.get_mut(&h.stream) else {
            active.malformed += 1;
            continue;
        };
        if let Some(fb) = s.on_datagram(&h, got.recv_ns, got.source) {
            // A feedback the kernel will not take now is lost, as on a
            // congested reverse path; the core expects no delivery.
            sock::send_to(fd, &fb.to_bytes(), &got.from, got.from_len);
        }
    }
    Ok(())
}

/// Takes a new control connection: a hello we accept starts a session.
fn accept(l: &mut Listener, cfg: &RecvConfig) -> Result<()> {
    let (stream, peer) = match l.tcp.accept() {
        Ok(x) => x,
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(()),
        Err(_) => return Ok(()),
    };
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(CONTROL_TIMEOUT));
    let _ = stream.set_write_timeout(Some(CONTROL_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let mut ctl = BufReader::new(stream);
    let refusal = if l.active.is_some() {
        Some(format!(
            "the receiver at {} is busy with another sender's session; try again when it ends",
            l.at
        ))
    } else {
        match control::recv(&mut ctl) {
            Ok(Msg::Hello { streams, .. }) => match check_hello(&streams, cfg) {
                Ok(()) => {
                    l.active = Some(start(ctl, peer.to_string(), &streams));
                    return Ok(());
                }
                Err(why) => Some(why),
            },
            Ok(other) => Some(format!("expected a hello, got {other:?}")),
            Err(e) => Some(e.to_string()),
        }
    };
    if let Some(reason) = refusal {
        let _ = control::send(ctl.get_mut(), &Msg::Refuse { reason });
    }
    Ok(())
}

fn check_hello(streams: &[StreamHello], cfg: &RecvConfig) -> std::result::Result<(), String> {
    let total: u64 = streams.iter().map(|s| s.max_packets).sum();
    if total > cfg.max_records {
        return Err(format!(
            "the streams may send {total} datagrams, above this receiver's max_records = {}; shorten the run or raise max_records",
            cfg.max_records
        ));
    }
    let mut ids = std::collections::BTreeSet::new();
    for s in streams {
        if !ids.insert(s.id) {
            return Err(format!("stream id {} twice in one hello", s.id));
        }
    }
    Ok(())
}

fn start(mut ctl: BufReader<TcpStream>, peer: String, streams: &[StreamHello]) -> Active {
    let sessions = streams
        .iter()
        .map(|s| {
            let r = RecvSession::new(s.id, s.receiver, s.max_packets as usize, s.epoch_ns);
            (s.id, if s.trace { r.with_trace() } else { r })
        })
        .collect();
    let _ = control::send(ctl.get_mut(), &Msg::Ok);
    Active {
        ctl,
        peer,
        streams: sessions,
        malformed: 0,
    }
}

/// Serves the active session's control line if one arrived: done → the
/// summary and records; a closed connection ends the session unreported.
fn serve_control(l: &mut Listener, buf: &mut [u8]) -> Result<Option<SessionReport>> {
    let Some(active) = l.active.as_mut() else {
        return Ok(None);
    };
    let fd = active.ctl.get_ref().as_raw_fd();
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no wait.
    if unsafe { libc::poll(&mut pfd, 1, 0) } <= 0 {
        return Ok(None);
    }
    let msg = control::recv(&mut active.ctl);
    // The last datagrams may still be queued behind the done.
    drain_udp(l, buf)?;
    let active = l.active.take().expect("checked above");
    l.served += 1;
    match msg {
        Ok(Msg::Done) => Ok(Some(finish(active, &l.at))),
        Ok(other) => Ok(Some(aborted(
            active,
            &l.at,
            &format!("sent {other:?}, not done"),
        ))),
        Err(e) => Ok(Some(aborted(active, &l.at, &e.to_string()))),
    }
}

/// A session whose sender went away (Ctrl-C, a crash) or broke protocol:
/// reported, its records dropped.
fn aborted(a: Active, at: &str, why: &str) -> SessionReport {
    let received: u64 = a.streams.values().map(|s| s.receiver().received()).sum();
    let lost: u64 = a.streams.values().map(|s| s.receiver().lost()).sum();
    let fb: u64 = a.streams.values().map(|s| s.feedback_sent).sum();
    SessionReport {
        listener: at.to_string(),
        line: format!(
            "radon recv {at}: session from {} ended without done ({why}) after {received} datagrams; records dropped",
            a.peer
        ),
        peer: a.peer,
        streams: a.streams.len(),
        received,
        lost,
        feedback_sent: fb,
        malformed: a.malformed,
    }
}

fn finish(mut a: Active, at: &str) -> SessionReport {
    let summaries: Vec<StreamSummary> = a
        .streams
        .values_mut()
        .map(|s| StreamSummary {
            id: s.id,
            records: s.records.len() as u64,
            received: s.receiver().received(),
            lost: s.receiver().lost(),
            feedback_sent: s.feedback_sent,
            over_cap: s.over_cap,
            trace: s.trace.take(),
        })
        .collect();
    let (mut received, mut lost, mut fb) = (0, 0, 0);
    for s in &summaries {
        received += s.received;
        lost += s.lost;
        fb += s.feedback_sent;
    }
    let summary = Msg::Summary {
        streams: summaries,
        malformed: a.malformed,
    };
    let sent = control::send(a.ctl.get_mut(), &summary).and_then(|_| {
        a.streams
            .values()
            .try_for_each(|s| control::send_records(a.ctl.get_mut(), &s.records))
    });
    let line = format!(
        "radon recv {at}: session from {}: {} streams, {received} datagrams received, {lost} lost, {fb} feedback sent, {} malformed{}",
        a.peer,
        a.streams.len(),
        a.malformed,
        match &sent {
            Ok(()) => String::new(),
            Err(e) => format!("; records not delivered: {e}"),
        }
    );
    SessionReport {
        listener: at.to_string(),
        peer: a.peer,
        streams: a.streams.len(),
        received,
        lost,
        feedback_sent: fb,
        malformed: a.malformed,
        line,
    }
}
