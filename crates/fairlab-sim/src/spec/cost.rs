//! What a part of a scenario costs, said by the part itself: each workload
//! kind implements [`Estimated`] beside its validation (`workloads.rs`),
//! each discipline [`PortCost`] beside its own (`queues/*.rs`), and
//! `estimate.rs` adds the parts up with the topology's and the metrics'
//! terms. Adding a kind adds its impl; no shared match grows.

use super::limits::Term;
use super::tcp::TcpSettings;
use super::topology::{HostIndex, TopologySpec};
use crate::units::Time;

/// What a workload's estimate reads of the scenario around it.
pub struct EstimateCtx<'a> {
    /// Its field path, `workload[i]`.
    pub path: String,
    pub hosts: &'a [String],
    pub index: &'a HostIndex,
    pub topology: &'a TopologySpec,
    /// Whether routes climb to the top tier (`[routing] paths =
    /// "equal_length"`), making them longer than the shortest.
    pub climb: bool,
    /// Its TCP settings (`None`: UDP).
    pub tcp: Option<&'a TcpSettings>,
    pub duration: Option<Time>,
    pub send_jitter: Time,
    /// `[switch] forwarding_jitter`: what each switch may hold a packet.
    pub forwarding_jitter: Time,
    /// The slowest link's or shaper's rate, bits/s.
    pub slowest: u64,
    /// The host links' rate, bits/s.
    pub access: u64,
}

impl EstimateCtx<'_> {
    /// Links a packet from `a` to `b` crosses.
    pub fn hops(&self, a: &str, b: &str) -> u64 {
        self.topology.hops(self.index, a, b, self.climb)
    }

    /// The most links a packet of any of `pairs` crosses.
    pub fn most_hops<'p>(&self, pairs: impl IntoIterator<Item = (&'p str, &'p str)>) -> u64 {
        pairs
            .into_iter()
            .map(|(a, b)| self.hops(a, b))
            .max()
            .unwrap_or(0)
    }
}

/// How a workload's packets are counted against the links' capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// TCP transfers whose senders and receivers are counted together:
    /// with a duration, all of them send no faster than their links allow.
    Shared,
    /// Capped by the workload itself (an NFS read by its server's link).
    Own,
    /// Datagrams at their own rate (UDP): no ACKs.
    Datagrams,
}

/// A workload's own cost.
#[derive(Clone, Debug)]
pub struct WorkloadCost {
    /// TCP connections it opens.
    pub connections: u64,
    /// UDP flows.
    pub udp_flows: u64,
    /// Its data senders and receivers: for the links' capacity when its
    /// packets are [`Pace::Shared`], and the first for a segment's round
    /// trip (`estimate::sent_again`).
    pub pairs: Vec<(String, String)>,
    /// When it is done, without a duration (`None`: it has no end of its
    /// own, as UDP).
    pub end: Option<Time>,
    /// The data packets it sends.
    pub packets: Option<Term>,
    pub pace: Pace,
    /// The most links one of its packets crosses.
    pub hops: u64,
}

/// A workload kind's estimate of itself.
pub trait Estimated {
    fn estimate(&self, cx: &EstimateCtx) -> WorkloadCost;
}

/// What a discipline's estimate reads of the scenario around it.
pub struct PortCtx {
    /// Switch ports that run the discipline.
    pub ports: u64,
    /// How long the run lasts.
    pub horizon: Time,
    /// Data packets the workloads send, and the most a switch queue holds.
    pub packets: u64,
    pub queued: u64,
}

/// A discipline's estimate of itself.
pub trait PortCost {
    /// Work that grows with time rather than packets (timers, periodic
    /// rehashing), counted as packets and as events.
    fn periodic_work(&self, _cx: &PortCtx) -> Option<Term> {
        None
    }
    /// Memory of its state at one port, and the field that sets it.
    fn port_bytes(&self) -> (u64, &'static str) {
        (0, "queue")
    }
}

/// A TCP workload's transfers, for when they end without a duration.
pub struct Transfers<'a> {
    /// A representative sender and receiver (the first of each).
    pub src: &'a str,
    pub dst: &'a str,
    /// When its last connection opens.
    pub last_open: Time,
    /// Bytes one flow carries per round, and all flows altogether.
    pub per_flow: u64,
    pub bytes: u64,
    pub rounds: u64,
    /// Round trips before the transfers (an incast's warm-up) and for
    /// requests kept outstanding (an NFS read's windows).
    pub extra_rtts: u64,
    /// A server's think time per round (an incast's response jitter).
    pub think: Time,
    /// A floor on the transfer time (an NFS server's disk).
    pub at_least: Time,
}

impl Transfers<'_> {
    /// An estimate of when the transfers end: their last opening, then
    /// the round trips they need (the handshake, and per transfer the
    /// request, slow start from the initial window and one per receive
    /// window of data, each delayed by the send jitter), all their bytes
    /// at the slowest link's rate, their timeouts (one initial RTO for a
    /// lost SYN, one minimum RTO per round) and the think time of every
    /// round. An estimate, not a bound: a run that times out more lasts
    /// longer.
    pub fn end(&self, cx: &EstimateCtx, tcp: &TcpSettings) -> Time {
        use super::limits::{mul_div, segments, HEADERS};
        use crate::units::{Bytes, PS_PER_SEC};
        let wire = |payload: u64| -> u64 {
            payload.saturating_add(segments(payload, tcp.mss).saturating_mul(HEADERS))
        };
        let packet = Bytes(tcp.mss as u64 + HEADERS);
        let topo = cx.topology;
        let rtt = topo
            .one_way(cx.index, self.src, self.dst, packet)
            .saturating_add(topo.one_way(cx.index, self.dst, self.src, Bytes(HEADERS)))
            .saturating_add(cx.send_jitter.times(2))
            // Every switch on the way, both ways, may hold the packet for up
            // to the forwarding jitter (a jitter of seconds makes a run of
            // hours: its series rows must be counted for it).
            .saturating_add(
                cx.forwarding_jitter
                    .times(2 * cx.hops(self.src, self.dst).saturating_sub(1)),
            );
        let first_window = tcp.initial_window as u64 * tcp.mss as u64;
        let mut slow_start = 0u64;
        while slow_start < 64 && first_window.saturating_mul(1 << slow_start) < self.per_flow {
            slow_start += 1;
        }
        let per_transfer = 1 + slow_start + self.per_flow / tcp.receive_window.get().max(1);
        let rtts = 1u64
            .saturating_add(self.rounds.saturating_mul(per_transfer))
            .saturating_add(self.extra_rtts);
        let transfer = Time(mul_div(
            wire(self.bytes).saturating_mul(self.rounds),
            8 * PS_PER_SEC,
            cx.slowest,
        ))
        .max(self.at_least);
        self.last_open
            .saturating_add(rtt.times(rtts))
            .saturating_add(transfer)
            .saturating_add(tcp.initial_rto)
            .saturating_add(tcp.min_rto.max(tcp.granularity).times(self.rounds))
            .saturating_add(self.think.times(self.rounds))
    }
}
