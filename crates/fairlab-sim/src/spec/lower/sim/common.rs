//! What every part of the simulator's lowering shares: the build context
//! ([`Cx`]), the random streams' component keys, and the small mappings of
//! spec settings onto the simulator's configurations. The parts import this
//! file, never the build above them.

use crate::net::{NodeId, Shaper};
use crate::queue::{Arbitration, BufferLimit, DropTail, HcfConfig, Queue};
use crate::spec::{
    ArbitrationName, HcfSpec, HostStack, Resolved, Scenario, ScenarioError, ShaperSpec, TcpSettings,
};
use crate::transport::tcp::{Pacing, TcpConfig};
use crate::workload::Workload;
use std::collections::HashMap;

/// The simulator's TCP configuration of resolved settings.
pub fn tcp_config(s: &TcpSettings) -> TcpConfig {
    TcpConfig {
        mss: s.mss,
        initial_window: s.initial_window,
        receive_window: s.receive_window,
        min_rto: s.min_rto,
        max_rto: s.max_rto,
        initial_rto: s.initial_rto,
        clock: s.clock.into(),
        granularity: s.granularity,
        delayed_ack: s.delayed_ack,
        delayed_ack_timeout: s.delayed_ack_timeout,
        dupack_threshold: s.dupack_threshold,
        slow_start_after_idle: s.slow_start_after_idle,
        cwnd_validation: s.cwnd_validation,
        cc: s.cc,
        sack: s.sack,
        ecn: s.ecn,
        randomize_rto: s.randomize_rto,
        rto_delay: s.rto_delay,
        limited_transmit: s.limited_transmit,
        recover_check: s.recover_check,
        slow_start: s.slow_start,
        rtt_timestamps: s.rtt_timestamps,
        max_retransmits: s.max_retransmits,
        backoff_restarts_srtt: s.backoff_restarts_srtt,
        max_backoff: s.max_backoff,
        halve_window: s.halve_window,
        ns2_recovery: s.ns2_recovery,
        idle_restart: s.idle_restart,
        ns2_limited_transmit: s.ns2_limited_transmit,
        ns2_rto: s.ns2_rto,
        ns2_sack1: s.ns2_sack1,
        pacing: Pacing {
            enabled: s.pacing.enabled,
            ss_ratio: s.pacing.ss_ratio,
            ca_ratio: s.pacing.ca_ratio,
            initial_burst: s.pacing.initial_burst,
        },
        small_queues: s.small_queues,
    }
}

/// HCF's configuration for a port of `limit` (validated: each half holds
/// a packet).
pub(super) fn hcf_config(h: &HcfSpec, limit: BufferLimit) -> HcfConfig {
    let (hp, lp) = limit.split(h.hp_share);
    HcfConfig {
        hp_limit: hp,
        lp_limit: lp,
        bins: h.bins,
        c0: h.c0,
        period: h.period,
        hashes: h.hashes,
        byte_credits: h.byte_credits,
        swap: h.swap,
    }
}

/// The simulator's shaper of a validated spec.
pub(super) fn shaper(s: &ShaperSpec) -> Shaper {
    match s {
        ShaperSpec::Tbf(t) => Shaper::tbf(t.rate, t.burst),
        ShaperSpec::Htb(h) => Shaper::htb(h.rate, h.burst(), h.cburst()),
    }
}

/// What a port's queue is, as a scenario says it (for the lowering's
/// refusals).
pub(super) fn what_queue(q: &Queue) -> &'static str {
    match q {
        Queue::DropTail(_) => "discipline \"droptail\"",
        Queue::Hcf(_) => "discipline \"hcf\"",
        Queue::Red(_) => "discipline \"red\"",
        Queue::Sfq(_) => "discipline \"sfq\"",
        Queue::Drr(_) => "discipline \"drr\"",
        Queue::Priority(_) => "discipline \"priority\"",
        Queue::Nic(_) => "a multi-queue NIC (host.nic_queues above 1)",
    }
}

pub(super) fn droptail(limit: BufferLimit, ecn: Option<BufferLimit>) -> Queue {
    match ecn {
        Some(k) => Queue::DropTail(DropTail::with_ecn(limit, k)),
        None => Queue::DropTail(DropTail::new(limit)),
    }
}

/// Component keys of the RNG streams (see `engine::rng`).
pub(super) const RNG_WORKLOAD: u64 = 1;
pub(super) const RNG_HOST: u64 = 2;
pub(super) const RNG_TCP: u64 = 3;
pub(super) const RNG_QUEUE: u64 = 4;
pub(super) const RNG_UDP: u64 = 5;
pub(super) const RNG_NIC: u64 = 6;
pub(super) const RNG_ECMP: u64 = 7;
pub(super) const RNG_SWITCH: u64 = 8;
pub(super) const RNG_NIC_QDISC: u64 = 9;
pub(super) const RNG_TXHASH: u64 = 10;
pub(super) const RNG_NIC_ROOT: u64 = 11;
/// Radon: each stream's dispatch draws, and each host's clocks.
pub(super) const RNG_RADON: u64 = 12;
pub(super) const RNG_RADON_CLOCK: u64 = 13;

pub(super) fn arbitration(s: &HostStack) -> Arbitration {
    match s.arbitration {
        ArbitrationName::Packet => Arbitration::Packet,
        ArbitrationName::Batch => Arbitration::Batch(s.batch),
        ArbitrationName::Weighted => Arbitration::Weighted(s.weights.clone()),
        ArbitrationName::Posted => Arbitration::Posted,
    }
}

/// What every part of a build reads: the scenario, what resolving it
/// found, the run's seed, and the network's node ids by name.
pub(super) struct Cx<'a> {
    pub sc: &'a Scenario,
    pub resolved: &'a Resolved,
    pub seed: u64,
    /// Node ids by name, once: a lookup per endpoint by scanning every
    /// node is quadratic in a topology of many hosts.
    pub ids: HashMap<String, NodeId>,
}

impl Cx<'_> {
    /// The node named `name`, which field `path` names.
    pub(super) fn node(&self, path: &str, name: &str) -> Result<NodeId, ScenarioError> {
        self.ids.get(name).copied().ok_or_else(|| {
            ScenarioError::new(path, format!("{name:?} is not a node of the topology"))
        })
    }

    /// Workload `wi`'s maximum segment size (its TCP settings', else [tcp]'s).
    pub(super) fn mss(&self, wi: usize) -> u32 {
        let r = self.resolved;
        r.workload_tcp(wi).unwrap_or(&r.tcp).mss
    }
}

/// One flow a workload's application opens: the opener (a client, a
/// sender) and the listener, and which side sends the bulk of the data
/// (1: the listener, an incast server answering).
pub(super) struct Flow {
    pub opener: NodeId,
    pub listener: NodeId,
    pub data_side: usize,
}

/// A workload kind's lowering: its flows, in the order its application
/// numbers them, and the application given their endpoints (in that order).
pub(super) struct Lowered<'a> {
    pub flows: Vec<Flow>,
    pub app: Box<dyn FnOnce(Vec<u32>) -> Workload + 'a>,
}
