//! A Radon stream as an endpoint (docs/radon.md): a sender of datagrams
//! paced by an inter-packet wait under a reservation, each carrying its
//! frame number and its send timestamp; a receiver that timestamps each
//! arrival, runs the queue-depth models and returns feedback over the
//! network, every `feedback_every` datagrams, as datagrams of its own
//! (side 1 of the flow: they share the reverse path's links and queues).
//!
//! The algorithm is `fairlab-radon-core`'s, unchanged: this file only
//! drives its [`Sender`] and [`Receiver`] from the simulator's events and
//! reads the hosts' clocks through [`StampNoise`] (where the timestamps are
//! taken, and what noise that adds). One wake-up (token 0): the sender's
//! next poll.
//!
//! What the packets carry. Data (side 0): `seq` the frame number, `ts` the
//! send stamp as the sender's clock read it, `wnd` the sender's wait in
//! nanoseconds when it sent (for the tables), `ack` the true send instant
//! (no host reads it: the tables' true one-way delay). Feedback (side 1):
//! `seq` its own number; the feedback itself waits in this endpoint until
//! that datagram arrives, and is lost with it.

use super::radon_stamp::StampNoise;
use super::{ConnApp, Outbox, Step};
use crate::engine::Rng;
use crate::packet::{flags, FiveTuple, FlowHasher, NodeId, Packet, UDP_IP_HEADER};
use crate::units::{Bytes, Time};
use fairlab_radon_core::trace::{Event, StreamTrace};
use fairlab_radon_core::{Dispatch, Estimate, Feedback, Observation, Receiver, Sender};
use std::collections::VecDeque;

/// Feedback datagrams that may be in flight at once: older ones still
/// unheard of are taken as lost (the reverse path is one FIFO route, so a
/// later one arriving first means the earlier was dropped).
const MAX_PENDING_FEEDBACK: usize = 4096;

/// One received datagram, for the `radon_series` table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesRow {
    pub frame: u64,
    /// Send and receive stamps as the hosts read them.
    pub sent: Time,
    pub recv: Time,
    /// True one-way delay (from the hand-off to the NIC to the arrival).
    pub true_owd: Time,
    pub rfd_ps: Option<i64>,
    pub basic: Option<Estimate>,
    pub pathload: Option<Estimate>,
    pub median5: Option<Estimate>,
    /// The sender's wait when it sent the datagram.
    pub wait_ns: u32,
}

/// What the stream did, for the `streams` table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RadonStats {
    pub sent: u64,
    pub local_drops: u64,
    pub received: u64,
    pub feedback_sent: u64,
    pub feedback_received: u64,
    /// True instants of the first and last send and arrival.
    pub first_send: Option<Time>,
    pub last_send: Time,
    pub first_recv: Option<Time>,
    pub last_recv: Time,
    /// Sum of the waits the datagrams were sent with, ns (their mean).
    pub wait_sum_ns: u128,
}

/// A stream's reservation as its path made it (the lowering's plan), for
/// the tables and the network-calculus check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reserved {
    /// The slowest port on its path, b/s.
    pub capacity_bps: f64,
    /// A data datagram's bytes on the wire.
    pub wire_bytes: u64,
    /// Its share of the wire's time.
    pub utilization: f64,
    pub period: Time,
    /// Its shortest wait: it never sends two datagrams closer.
    pub wait_min: Time,
    /// It sends windows (a burst of up to its budget per period) rather
    /// than one datagram per wait.
    pub windows: bool,
    /// Datagrams per feedback datagram.
    pub feedback_every: u32,
}

/// Both ends of the algorithm, and the decision log when one is asked for
/// (kept here, behind the box, so a RadonFlow is no larger with it).
#[derive(Clone, Debug)]
struct Core {
    sender: Sender,
    receiver: Receiver,
    log: Option<Box<DecisionLog>>,
}

/// The decision trace of one stream (issue 22's decision test): what the
/// driver fed the core and what the core decided, on each end.
#[derive(Clone, Debug, Default)]
struct DecisionLog {
    start_ps: i64,
    receiver: Vec<Event>,
    sender: Vec<Event>,
}

#[derive(Clone, Debug)]
pub struct RadonFlow {
    pub app: ConnApp,
    /// Its index among the simulation's endpoints: its datagrams carry
    /// flow `2 * id` (data) and `2 * id + 1` (feedback).
    pub id: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// IP packet size of each data datagram.
    pub size: Bytes,
    /// Datagrams to send in all (`u64::MAX`: no count); none at or after `stop`.
    pub limit: u64,
    pub stop: Time,
    /// The algorithm, installed once the stream's path is known (its
    /// capacity sets the reservation's utilization and the service time).
    core: Option<Box<Core>>,
    send_clock: StampNoise,
    recv_clock: StampNoise,
    rng: Rng,
    /// Why admission refused it (the port), if it did: it never sends.
    pub refused: Option<String>,
    /// Its reservation on its path, once installed.
    pub reserved: Option<Reserved>,
    pub stats: RadonStats,
    pending: VecDeque<(u64, Feedback)>,
    next_feedback: u64,
    /// The received datagrams, when the series is asked for.
    pub series: Option<Vec<SeriesRow>>,
    pub tuple: Option<FiveTuple>,
    hash: [u32; 2],
}

impl RadonFlow {
    /// A stream from `src` to `dst` of `size` datagrams; its clocks and its
    /// draws are the lowering's (per host and capture point).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        app: ConnApp,
        id: u32,
        (src, dst): (NodeId, NodeId),
        size: Bytes,
        (send_clock, recv_clock): (StampNoise, StampNoise),
        rng: Rng,
        (limit, stop): (Option<u64>, Option<Time>),
    ) -> RadonFlow {
        debug_assert!(size.get() >= u64::from(UDP_IP_HEADER) + 16);
        RadonFlow {
            app,
            id,
            src,
            dst,
            size,
            limit: limit.unwrap_or(u64::MAX),
            stop: stop.unwrap_or(Time::MAX),
            core: None,
            send_clock,
            recv_clock,
            rng,
            refused: None,
            reserved: None,
            stats: RadonStats::default(),
            pending: VecDeque::new(),
            next_feedback: 0,
            series: None,
            tuple: None,
            hash: [0; 2],
        }
    }

    /// Installs the algorithm's two ends (before the run).
    pub fn install(&mut self, sender: Sender, receiver: Receiver, reserved: Reserved) {
        self.core = Some(Box::new(Core {
            sender,
            receiver,
            log: None,
        }));
        self.reserved = Some(reserved);
    }
    pub fn sender(&self) -> Option<&Sender> {
        self.core.as_ref().map(|c| &c.sender)
    }
    pub fn receiver(&self) -> Option<&Receiver> {
        self.core.as_ref().map(|c| &c.receiver)
    }

    /// Names the flow: its 5-tuple (the sender's) and each direction's hash.
    pub fn set_flow(&mut self, tuple: FiveTuple, hasher: &FlowHasher) {
        self.hash = [hasher.hash(&tuple), hasher.hash(&tuple.reversed())];
        self.tuple = Some(tuple);
    }

    pub fn flow_hash(&self, side: usize) -> u32 {
        self.hash[side & 1]
    }

    /// The application starts the stream: its first poll at once (a
    /// refused stream never starts).
    pub(super) fn open(&mut self, now: Time, out: &mut Outbox) -> Step {
        if self.refused.is_some() || self.core.is_none() {
            return Step::NONE;
        }
        self.on_timer(now, out)
    }

    /// The sender's poll: the datagrams it sends now, and its next poll.
    #[cold]
    #[inline(never)]
    pub(super) fn on_timer(&mut self, now: Time, out: &mut Outbox) -> Step {
        if self.stats.sent >= self.limit || now >= self.stop {
            return Step::NONE;
        }
        let Some(core) = self.core.as_mut() else {
            return Step::NONE;
        };
        // Only windows draw a dispatch offset: a paced sender takes no draw.
        let windows = self.reserved.is_some_and(|r| r.windows);
        let u01 = if windows { self.rng.next_f64() } else { 0.0 };
        let d = Self::step_poll(core, ps(now), u01);
        out.host = self.src;
        for _ in 0..d.packets {
            if self.stats.sent >= self.limit {
                break;
            }
            out.packets.push(self.data(now));
        }
        if self.stats.sent < self.limit {
            let next = Time(d.next_ps.max(ps(now) + 1) as u64);
            if next < self.stop {
                out.wake.push((next, 0));
            }
        }
        Step::NONE
    }

    /// The next data datagram, sent now.
    fn data(&mut self, now: Time) -> Packet {
        let frame = self.stats.sent;
        let wait_ps = self.core.as_ref().map_or(0, |c| c.sender.wait_ps());
        let wait_ns = (wait_ps / 1000).clamp(0, i64::from(u32::MAX)) as u32;
        let s = &mut self.stats;
        s.sent += 1;
        s.first_send.get_or_insert(now);
        s.last_send = now;
        s.wait_sum_ns += u128::from(wait_ns);
        Packet {
            flow: 2 * self.id,
            dst: self.dst,
            hash: self.hash[0],
            seq: frame,
            ack: now.0,
            ts: self.send_clock.stamp_send(now),
            wnd: wait_ns,
            header: UDP_IP_HEADER as u8,
            payload: self.size.get() as u32 - UDP_IP_HEADER,
            flags: flags::UDP,
            ..Packet::blank()
        }
    }

    /// A datagram of this stream arrives: data at the receiver, feedback
    /// at the sender. Out of line: the event loop's TCP path keeps the
    /// inlining it had without Radon.
    #[cold]
    #[inline(never)]
    pub(super) fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) -> Step {
        if pkt.side() == 1 {
            self.on_feedback(now, pkt.seq);
            return Step::NONE;
        }
        let Some(core) = self.core.as_mut() else {
            return Step::NONE;
        };
        let recv = self.recv_clock.stamp(now);
        let (obs, fb) = Self::step_datagram(core, pkt.seq, ps(pkt.ts), ps(recv));
        let s = &mut self.stats;
        s.received += 1;
        s.first_recv.get_or_insert(now);
        s.last_recv = now;
        if let Some(rows) = self.series.as_mut() {
            rows.push(SeriesRow {
                frame: pkt.seq,
                sent: pkt.ts,
                recv,
                true_owd: now.saturating_sub(Time(pkt.ack)),
                rfd_ps: obs.rfd_ps,
                basic: obs.basic,
                pathload: obs.pathload,
                median5: obs.median5,
                wait_ns: pkt.wnd,
            });
        }
        if let Some(fb) = fb {
            self.send_feedback(fb, out);
        }
        Step {
            side: 1,
            delivered: u64::from(pkt.payload),
            data: true,
            ..Step::NONE
        }
    }

    /// The receiver returns `fb` to the sender, as a datagram.
    fn send_feedback(&mut self, fb: Feedback, out: &mut Outbox) {
        let seq = self.next_feedback;
        self.next_feedback += 1;
        if self.pending.len() == MAX_PENDING_FEEDBACK {
            self.pending.pop_front();
        }
        self.pending.push_back((seq, fb));
        self.stats.feedback_sent += 1;
        out.host = self.dst;
        out.packets.push(Packet {
            flow: 2 * self.id + 1,
            dst: self.src,
            hash: self.hash[1],
            seq,
            header: UDP_IP_HEADER as u8,
            payload: Feedback::WIRE_BYTES as u32,
            flags: flags::UDP,
            ..Packet::blank()
        });
    }

    /// Feedback datagram `seq` reaches the sender; any before it that have
    /// not were lost.
    fn on_feedback(&mut self, now: Time, seq: u64) {
        while let Some(&(k, fb)) = self.pending.front() {
            if k > seq {
                return;
            }
            self.pending.pop_front();
            if k == seq {
                self.stats.feedback_received += 1;
                if let Some(c) = self.core.as_mut() {
                    Self::step_feedback(c, ps(now), &fb);
                }
                return;
            }
        }
    }

    /// A datagram its own host's queue refused.
    #[cold]
    #[inline(never)]
    pub(super) fn on_local_drop(&mut self, pkt: &Packet) {
        if pkt.side() == 0 {
            self.stats.local_drops += 1;
        }
    }

    /// The sender's poll, logged when a decision log is on.
    fn step_poll(core: &mut Core, now_ps: i64, u01: f64) -> Dispatch {
        let d = core.sender.poll(now_ps, u01);
        if let Some(log) = core.log.as_mut() {
            log.sender.push(Event::Poll { at_ps: now_ps, u01 });
            log.sender.push(Event::Dispatch {
                packets: d.packets,
                next_ps: d.next_ps,
            });
        }
        d
    }

    /// The receiver's step on one datagram's stamps, logged.
    fn step_datagram(
        core: &mut Core,
        frame: u64,
        sent_ps: i64,
        recv_ps: i64,
    ) -> (Observation, Option<Feedback>) {
        let (obs, fb) = core.receiver.on_datagram(frame, sent_ps, recv_ps);
        if let Some(log) = core.log.as_mut() {
            log.receiver.push(Event::Datagram {
                frame,
                sent_ps,
                recv_ps,
            });
            if let Some(fb) = fb {
                log.receiver.push(Event::Feedback {
                    bytes: fb.to_bytes().to_vec(),
                });
            }
        }
        (obs, fb)
    }

    /// A feedback reaches the sender's core, logged.
    fn step_feedback(core: &mut Core, now_ps: i64, fb: &Feedback) {
        core.sender.on_feedback(now_ps, fb);
        if let Some(log) = core.log.as_mut() {
            log.sender.push(Event::Arrival {
                at_ps: now_ps,
                bytes: fb.to_bytes().to_vec(),
            });
            log.sender.push(Event::Wait {
                wait_ps: core.sender.wait_ps(),
            });
        }
    }

    /// Starts logging the stream's decisions (after `install`; off by
    /// default, and then nothing is logged). `start_ps` is the stream's
    /// start, for the trace.
    pub fn record_decisions(&mut self, start_ps: i64) {
        if let Some(core) = self.core.as_mut() {
            core.log = Some(Box::new(DecisionLog {
                start_ps,
                ..DecisionLog::default()
            }));
        }
    }

    /// The stream's decision trace, if it was logging; `flow_id` names it.
    pub fn decision_trace(&self, flow_id: u32) -> Option<StreamTrace> {
        let core = self.core.as_ref()?;
        let log = core.log.as_ref()?;
        Some(StreamTrace {
            flow_id,
            sender: *core.sender.config(),
            receiver: *core.receiver.config(),
            start_ps: log.start_ps,
            receiver_events: log.receiver.clone(),
            sender_events: log.sender.clone(),
        })
    }

    /// Replays a recorded trace's inputs through this driver's steps, off
    /// the event loop: a fresh stream of the trace's configuration is fed
    /// its datagrams, feedback arrivals and polls, and its own decisions
    /// come back as a trace (compare with `trace::compare`).
    pub fn replay(t: &StreamTrace) -> StreamTrace {
        let mut core = Core {
            sender: Sender::new(t.sender, t.start_ps),
            receiver: Receiver::new(t.receiver),
            log: Some(Box::new(DecisionLog {
                start_ps: t.start_ps,
                ..DecisionLog::default()
            })),
        };
        for ev in &t.receiver_events {
            if let Event::Datagram {
                frame,
                sent_ps,
                recv_ps,
            } = *ev
            {
                Self::step_datagram(&mut core, frame, sent_ps, recv_ps);
            }
        }
        for ev in &t.sender_events {
            match ev {
                Event::Poll { at_ps, u01 } => {
                    Self::step_poll(&mut core, *at_ps, *u01);
                }
                Event::Arrival { at_ps, bytes } => {
                    if let Ok(fb) = Feedback::decode(bytes) {
                        Self::step_feedback(&mut core, *at_ps, &fb);
                    }
                }
                _ => {}
            }
        }
        let log = core.log.take().unwrap_or_default();
        StreamTrace {
            receiver_events: log.receiver,
            sender_events: log.sender,
            ..t.clone()
        }
    }

    /// What its paths depend on: hosts, both hashes, a data datagram's size.
    pub fn path_probe(&self) -> (NodeId, NodeId, u32, Option<u32>, Bytes) {
        (
            self.src,
            self.dst,
            self.hash[0],
            Some(self.hash[1]),
            self.size,
        )
    }
}

/// A simulator instant as the core's signed picoseconds.
#[inline]
fn ps(t: Time) -> i64 {
    t.0.min(i64::MAX as u64) as i64
}
