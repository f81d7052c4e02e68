//! The sender agent: every stream in ONE loop, earliest due send first, so
//! one spinning thread paces them all (six busy-waiting processes on two
//! cores would ruin each other's pacing). Control: one TCP connection per
//! receiver (streams grouped by namespace, address and port).

use crate::clock::{self, monotonic_ns, realtime_ns};
use crate::config::{Pacing, SendConfig};
use crate::control::{self, Msg, StreamHello, StreamSummary};
use crate::error::{Error, Result};
use crate::pacing::{self, Chosen};
use crate::session::{Record, Send, SendSession};
use crate::sock;
use crate::wire::DataHeader;
use std::collections::BTreeMap;
use std::io::BufReader;
use std::net::{TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// Below this much time to the next send the loop only spins: reading
/// feedback then could make the send late.
const SPIN_ONLY_NS: i64 = 20_000;
/// Hybrid pacing sleeps until this long before a send, then spins.
const HYBRID_MARGIN_NS: i64 = 80_000;
/// The cancel check runs this often.
const CANCEL_EVERY_NS: i64 = 50_000_000;

/// What one receiver returned.
pub struct Collected {
    pub summaries: Vec<StreamSummary>,
    pub records: BTreeMap<u32, Vec<Record>>,
    pub malformed: u64,
}

/// Everything a run produced, for the tables.
pub struct Run {
    pub sessions: Vec<SendSession>,
    pub collected: Vec<Collected>,
    pub chosen: Chosen,
    /// The receivers' stamp epoch (CLOCK_REALTIME ns; see StreamHello).
    pub epoch_ns: i64,
    /// t0 on both clocks, ns.
    pub t0_mono_ns: i64,
    pub t0_real_ns: i64,
    /// The sending thread's CPU time over the paced part, ns.
    pub cpu_ns: i64,
    /// Datagrams the sending host's own stack refused (`send` failed: its
    /// qdisc was full), per stream, in the configuration's order.
    pub local_drops: Vec<u64>,
    pub cpu_pinned: Option<usize>,
    pub rt_priority: Option<i32>,
}

struct Receiver {
    key: (Option<String>, String, u16),
    ctl: BufReader<TcpStream>,
}

/// A small generator for the window mode's dispatch offsets (splitmix64,
/// seeded by the stream id): the draws are recorded in the trace.
struct Draws(u64);
impl Draws {
    fn next_u01(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Runs the sender.
pub fn run(cfg: &SendConfig, cancelled: &mut dyn FnMut() -> bool) -> Result<Run> {
    cfg.check()?;
    let deadline_ns = monotonic_ns() + (cfg.deadline_s * 1e9) as i64;
    let epoch_ns = realtime_ns();
    let mut receivers = connect_all(cfg, epoch_ns)?;
    let sockets = cfg
        .streams
        .iter()
        .map(|s| {
            sock::udp_to(
                s.netns.as_deref(),
                s.src_addr.as_deref(),
                &s.dst_addr,
                s.port,
            )
        })
        .collect::<Result<Vec<UdpSocket>>>()?;
    let qdiscs: Vec<(String, String)> = cfg
        .streams
        .iter()
        .filter_map(|s| pacing::egress_qdisc(s.netns.as_deref(), &s.dst_addr))
        .collect();
    let chosen = pacing::choose(cfg.pacing, pacing::cores(), &qdiscs);
    let _pin = cfg.cpu.map(clock::Pin::to).transpose()?;
    let _rt = cfg.rt_priority.map(clock::RealTime::set).transpose()?;
    let old_slack = (chosen.mode == Pacing::Hybrid).then(|| clock::set_timer_slack_ns(1));
    let t0_mono_ns = monotonic_ns();
    let t0_real_ns = realtime_ns();
    let mut sessions = make_sessions(cfg);
    let cpu0 = clock::thread_cpu_ns();
    let paced = pace(
        cfg,
        &mut sessions,
        &sockets,
        chosen.mode,
        t0_mono_ns,
        deadline_ns,
        cancelled,
    );
    let cpu_ns = clock::thread_cpu_ns() - cpu0;
    if let Some(slack) = old_slack {
        clock::set_timer_slack_ns(slack);
    }
    let local_drops = paced?;
    let end = monotonic_ns() + (cfg.drain_s * 1e9) as i64;
    while monotonic_ns() < end {
        drain_feedback(&mut sessions, &sockets, t0_mono_ns);
        if cancelled() {
            return Err(Error::Interrupted);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let caps: BTreeMap<u32, u64> = cfg
        .streams
        .iter()
        .map(|s| (s.id, s.max_packets(cfg.duration_s)))
        .collect();
    let mut collected = Vec::new();
    for r in receivers.iter_mut() {
        collected.push(collect(r, &caps, deadline_ns)?);
    }
    Ok(Run {
        sessions,
        collected,
        chosen,
        epoch_ns,
        t0_mono_ns,
        t0_real_ns,
        cpu_ns,
        local_drops,
        cpu_pinned: cfg.cpu,
        rt_priority: cfg.rt_priority,
    })
}

fn make_sessions(cfg: &SendConfig) -> Vec<SendSession> {
    cfg.streams
        .iter()
        .map(|s| {
            let start_ps = (s.start_s * 1e12).round() as i64;
            let stop_ps = (s.stop_at_s(cfg.duration_s) * 1e12).round() as i64;
            let limit = s.max_packets(cfg.duration_s);
            let session = SendSession::new(s.id, s.sender, start_ps, stop_ps, limit);
            if cfg.trace {
                session.with_trace()
            } else {
                session
            }
        })
        .collect()
}

/// One control session per receiver (its address and port): hello, then
/// ok or its refusal. A receiver listens once, serving one session at a
/// time, so the streams of every namespace that send to it share one
/// session, opened from the first one's namespace (any of an emulated
/// network's hosts reaches the receiver).
fn connect_all(cfg: &SendConfig, epoch_ns: i64) -> Result<Vec<Receiver>> {
    let mut groups: BTreeMap<(String, u16), (Option<String>, Vec<StreamHello>)> = BTreeMap::new();
    for s in &cfg.streams {
        let key = (s.dst_addr.clone(), s.port);
        let group = groups
            .entry(key)
            .or_insert_with(|| (s.netns.clone(), Vec::new()));
        group.1.push(StreamHello {
            id: s.id,
            payload_bytes: s.payload_bytes,
            max_packets: s.max_packets(cfg.duration_s),
            receiver: s.receiver,
            trace: cfg.trace,
            epoch_ns,
        });
    }
    let patience = Duration::from_secs_f64(cfg.connect_s);
    let mut out = Vec::new();
    for ((dst, port), (netns, streams)) in groups {
        let key = (netns, dst, port);
        let (ns, dst, port) = (key.0.as_deref(), key.1.as_str(), key.2);
        let stream = sock::connect(ns, dst, port, patience)?;
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
        let _ = stream.set_nodelay(true);
        let mut ctl = BufReader::new(stream);
        control::send(ctl.get_mut(), &control::hello(streams))?;
        match control::recv(&mut ctl)? {
            Msg::Ok => {}
            Msg::Refuse { reason } => {
                return Err(Error::Refused(format!(
                    "the receiver at {} refused: {reason}",
                    sock::place(ns, dst, port)
                )))
            }
            other => {
                return Err(Error::Malformed(format!(
                    "the receiver at {} answered {other:?} to hello",
                    sock::place(ns, dst, port)
                )))
            }
        }
        out.push(Receiver { key, ctl });
    }
    Ok(out)
}

/// The paced loop; returns, per stream, the datagrams the kernel refused
/// to send.
fn pace(
    cfg: &SendConfig,
    sessions: &mut [SendSession],
    sockets: &[UdpSocket],
    mode: Pacing,
    t0_ns: i64,
    deadline_ns: i64,
    cancelled: &mut dyn FnMut() -> bool,
) -> Result<Vec<u64>> {
    let mut draws: Vec<Draws> = cfg
        .streams
        .iter()
        .map(|s| Draws(0x5EED ^ u64::from(s.id)))
        .collect();
    let mut payloads: Vec<Vec<u8>> = cfg
        .streams
        .iter()
        .map(|s| vec![0u8; s.payload_bytes])
        .collect();
    let mut sends: Vec<Send> = Vec::new();
    let mut next_cancel = t0_ns + CANCEL_EVERY_NS;
    let mut refused = vec![0u64; sessions.len()];
    loop {
        let Some((i, due_ps)) = sessions
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.due_ps().map(|d| (i, d)))
            .min_by_key(|&(i, d)| (d, i))
        else {
            return Ok(refused);
        };
        // ps → ns, rounded up: never early.
        let target_ns = t0_ns + (due_ps + 999).div_euclid(1000);
        // Checked here, not only while waiting: at fine spacings the loop
        // never waits long enough to.
        let now = monotonic_ns();
        if now >= next_cancel {
            next_cancel = now + CANCEL_EVERY_NS;
            if cancelled() {
                return Err(Error::Interrupted);
            }
            if now > deadline_ns {
                return Err(Error::Deadline(format!(
                    "sender deadline_s = {} passed while sending",
                    cfg.deadline_s
                )));
            }
        }
        loop {
            let now = monotonic_ns();
            let left = target_ns - now;
            if left <= SPIN_ONLY_NS {
                break;
            }
            drain_feedback(sessions, sockets, t0_ns);
            if mode == Pacing::Hybrid && left > HYBRID_MARGIN_NS + SPIN_ONLY_NS {
                clock::sleep_until((target_ns - HYBRID_MARGIN_NS).min(now + 1_000_000));
            }
        }
        let now_ns = clock::spin_until(target_ns);
        sessions[i].poll((now_ns - t0_ns) * 1000, draws[i].next_u01(), &mut sends);
        let fd = sockets[i].as_raw_fd();
        for s in &sends {
            let sent_mono = monotonic_ns();
            let h = DataHeader {
                stream: cfg.streams[i].id,
                frame: s.frame,
                sent_ns: realtime_ns(),
                wait_ns: s.wait_ns,
            };
            h.encode(&mut payloads[i]);
            if !sock::send(fd, &payloads[i]) {
                refused[i] += 1;
            }
            sessions[i].sent_at(s.frame, (sent_mono - t0_ns) * 1000);
        }
    }
}

/// Hands every queued feedback to its stream.
fn drain_feedback(sessions: &mut [SendSession], sockets: &[UdpSocket], t0_ns: i64) {
    let mut buf = [0u8; 256];
    for (s, sock) in sessions.iter_mut().zip(sockets) {
        while let Some(n) = sock::recv_now(sock.as_raw_fd(), &mut buf) {
            let now_ps = (monotonic_ns() - t0_ns) * 1000;
            let _ = s.on_feedback(now_ps, &buf[..n]);
        }
    }
}

/// Done → the receiver's summary and records.
fn collect(r: &mut Receiver, caps: &BTreeMap<u32, u64>, deadline_ns: i64) -> Result<Collected> {
    let at = sock::place(r.key.0.as_deref(), &r.key.1, r.key.2);
    let left = Duration::from_nanos((deadline_ns - monotonic_ns()).max(1_000_000) as u64);
    let _ = r.ctl.get_ref().set_read_timeout(Some(left));
    control::send(r.ctl.get_mut(), &Msg::Done)?;
    let (summaries, malformed) = match control::recv(&mut r.ctl)? {
        Msg::Summary { streams, malformed } => (streams, malformed),
        other => {
            return Err(Error::Malformed(format!(
                "the receiver at {at} answered {other:?} to done"
            )))
        }
    };
    let mut records = BTreeMap::new();
    for s in &summaries {
        let cap = caps.get(&s.id).copied().unwrap_or(0);
        if s.records > cap {
            return Err(Error::Malformed(format!(
                "the receiver at {at} returns {} records for stream {}, which may send {cap}",
                s.records, s.id
            )));
        }
        records.insert(s.id, control::recv_records(&mut r.ctl, s.records)?);
    }
    Ok(Collected {
        summaries,
        records,
        malformed,
    })
}
