//! The simulator's lowering: a validated spec turned into a ready-to-run
//! [`Simulation`]. The only place that knows the simulator's types (queues,
//! TCP configuration, network, workloads); it maps the spec's plain data
//! onto them and refuses, by field path, what the simulator cannot honour.

mod bulk;
mod endpoints;
mod incast;
mod network;
mod nfs_read;
mod ports;
mod queues;
mod short;
mod udp;

use crate::net::{NodeId, Shaper};
use crate::queue::{Arbitration, BufferLimit, DropTail, HcfConfig, Period, Queue};
use crate::sim::{Series, Simulation, TxqSelect as SimTxqSelect};
use crate::spec::{
    ArbitrationName, Buffer, CcName, Clock, HcfPeriod, HcfSpec, HostStack, Resolved, RtoDelay,
    Scenario, ScenarioError, ShaperSpec, TcpSettings, TxqSelect, TCP_IP_HEADER,
};
use crate::transport::tcp::cc::CcKind;
use crate::transport::tcp::{Pacing, RtoDelay as SimRtoDelay, TcpConfig, TimerClock};
use crate::units::{Bytes, Time};
use queues::Queues;
use std::collections::HashMap;

fn buffer(b: Buffer) -> BufferLimit {
    match b {
        Buffer::Bytes(n) => BufferLimit::Bytes(n),
        Buffer::Packets(n) => BufferLimit::Packets(n),
    }
}

fn cc(c: CcName) -> CcKind {
    match c {
        CcName::Reno => CcKind::Reno,
        CcName::NewReno => CcKind::NewReno,
        CcName::Cubic => CcKind::Cubic,
        CcName::Bic => CcKind::Bic,
        CcName::BicPaper => CcKind::BicPaper,
        CcName::Vegas => CcKind::Vegas,
        CcName::Dctcp => CcKind::Dctcp,
    }
}

fn clock(c: Clock) -> TimerClock {
    match c {
        Clock::Jiffies { hz } => TimerClock::jiffies(hz),
        Clock::Granular { tick } => TimerClock::granular(tick),
    }
}

/// The simulator's TCP configuration of resolved settings.
pub fn tcp_config(s: &TcpSettings) -> TcpConfig {
    TcpConfig {
        mss: s.mss,
        initial_window: s.initial_window,
        receive_window: s.receive_window,
        min_rto: s.min_rto,
        max_rto: s.max_rto,
        initial_rto: s.initial_rto,
        clock: clock(s.clock),
        granularity: s.granularity,
        delayed_ack: s.delayed_ack,
        delayed_ack_timeout: s.delayed_ack_timeout,
        dupack_threshold: s.dupack_threshold,
        slow_start_after_idle: s.slow_start_after_idle,
        cwnd_validation: s.cwnd_validation,
        cc: cc(s.cc),
        sack: s.sack,
        ecn: s.ecn,
        randomize_rto: s.randomize_rto,
        rto_delay: match s.rto_delay {
            RtoDelay::Off => SimRtoDelay::Off,
            RtoDelay::Upto(t) => SimRtoDelay::Upto(t),
            RtoDelay::Adaptive => SimRtoDelay::Adaptive,
        },
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
fn hcf_config(h: &HcfSpec, limit: Buffer, packet: Bytes) -> HcfConfig {
    let (hp, lp) = limit.split(h.hp_share, packet).expect("validated");
    HcfConfig {
        hp_limit: buffer(hp),
        lp_limit: buffer(lp),
        bins: h.bins,
        c0: h.c0,
        period: match h.period {
            HcfPeriod::Dynamic => Period::Dynamic,
            HcfPeriod::Fixed(t) => Period::Fixed(t),
        },
        hashes: h.hashes,
        byte_credits: h.byte_credits,
        swap: h.swap,
    }
}

/// Refuses what a valid spec may say but the simulator cannot do.
fn check_supported(sc: &Scenario) -> Result<(), ScenarioError> {
    for (i, w) in sc.workloads.iter().enumerate() {
        if w.tcp().is_some_and(|t| t.handshake.is_some()) {
            // One switch for the whole run (Simulation::handshake).
            return Err(ScenarioError::new(
                format!("workload[{i}].tcp.handshake"),
                "not supported per workload by the simulator; expected handshake in [tcp], for every connection",
            ));
        }
    }
    Ok(())
}

/// The simulator's shaper of a validated spec.
fn shaper(s: &ShaperSpec) -> Shaper {
    match s {
        ShaperSpec::Tbf(t) => Shaper::tbf(t.rate, t.burst),
        ShaperSpec::Htb(h) => Shaper::htb(h.rate, h.burst(), h.cburst()),
    }
}

/// What a port's queue is, as a scenario says it (for the lowering's
/// refusals).
fn what_queue(q: &Queue) -> &'static str {
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

fn droptail(limit: BufferLimit, ecn: Option<BufferLimit>) -> Queue {
    match ecn {
        Some(k) => Queue::DropTail(DropTail::with_ecn(limit, k)),
        None => Queue::DropTail(DropTail::new(limit)),
    }
}

/// Splits a limit into two shares.
fn split(limit: BufferLimit, share: f64) -> (BufferLimit, BufferLimit) {
    match limit {
        BufferLimit::Packets(n) => {
            let h = ((n as f64) * share).round().max(1.0) as u32;
            (
                BufferLimit::Packets(h),
                BufferLimit::Packets(n.saturating_sub(h).max(1)),
            )
        }
        BufferLimit::Bytes(b) => {
            let h = ((b.get() as f64) * share).round() as u64;
            (
                BufferLimit::Bytes(crate::units::Bytes(h)),
                BufferLimit::Bytes(crate::units::Bytes(b.get() - h)),
            )
        }
    }
}

/// Component keys of the RNG streams (see `engine::rng`).
const RNG_WORKLOAD: u64 = 1;
const RNG_HOST: u64 = 2;
const RNG_TCP: u64 = 3;
const RNG_QUEUE: u64 = 4;
const RNG_UDP: u64 = 5;
const RNG_NIC: u64 = 6;
const RNG_ECMP: u64 = 7;
const RNG_SWITCH: u64 = 8;
const RNG_NIC_QDISC: u64 = 9;
const RNG_TXHASH: u64 = 10;
const RNG_NIC_ROOT: u64 = 11;

fn arbitration(s: &HostStack) -> Arbitration {
    match s.arbitration {
        ArbitrationName::Packet => Arbitration::Packet,
        ArbitrationName::Batch => Arbitration::Batch(s.batch),
        ArbitrationName::Weighted => Arbitration::Weighted(s.weights.clone()),
        ArbitrationName::Posted => Arbitration::Posted,
    }
}

fn txq_select(t: TxqSelect) -> SimTxqSelect {
    match t {
        TxqSelect::Hash => SimTxqSelect::Hash,
        TxqSelect::Cached => SimTxqSelect::Cached,
        TxqSelect::Rethink => SimTxqSelect::Rethink,
        TxqSelect::LeastLoaded => SimTxqSelect::LeastLoaded,
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
    ids: HashMap<String, NodeId>,
}

impl Cx<'_> {
    /// The node named `name`, which field `path` names.
    fn node(&self, path: &str, name: &str) -> Result<NodeId, ScenarioError> {
        self.ids.get(name).copied().ok_or_else(|| {
            ScenarioError::new(path, format!("{name:?} is not a node of the topology"))
        })
    }

    /// Workload `wi`'s maximum segment size (its TCP settings', else [tcp]'s).
    fn mss(&self, wi: usize) -> u32 {
        let r = self.resolved;
        r.workload_tcp(wi).unwrap_or(&r.tcp).mss
    }
}

/// Builds the simulation of `sc` with `seed` (the scenario's own seed when `None`).
pub fn build(sc: &Scenario, seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    let resolved = sc.resolve()?;
    check_supported(sc)?;
    let seed = seed.unwrap_or(sc.seed);
    let packet = Bytes((resolved.tcp.mss + TCP_IP_HEADER) as u64);
    let stack = sc.host.stack();
    // TCP Small Queues needs every transmission's completion reported.
    let tsq = resolved.tcp.small_queues.is_some()
        || (0..sc.workloads.len()).any(|i| {
            resolved
                .workload_tcp(i)
                .is_some_and(|t| t.small_queues.is_some())
        });
    let with_stack = !stack.is_plain() || tsq;
    let queues = Queues::new(sc, seed, packet, stack, with_stack);
    let mut net = network::build(sc, &queues)?;
    let ids = (0..net.nodes.len())
        .map(|i| (net.nodes[i].name.clone(), i as NodeId))
        .collect();
    let cx = Cx {
        sc,
        resolved: &resolved,
        seed,
        ids,
    };
    network::addresses(sc, &mut net, &cx)?;
    network::routing(sc, &mut net, seed);
    ports::apply(sc, &mut net, &queues, &cx)?;
    let (endpoints, workloads) = endpoints::lower(&cx)?;
    let series = Series {
        throughput_bin: sc.metrics.throughput_bin,
        queue_sample: sc.metrics.queue_sample,
        ..Series::default()
    };
    let profile = sc.tcp_profile().name();
    let mut sim = Simulation::new(
        net,
        endpoints,
        workloads,
        sc.duration,
        seed,
        profile,
        series,
    );
    if sc.host.send_jitter > Time::ZERO {
        sim.set_host_jitter(sc.host.send_jitter, seed, RNG_HOST);
    }
    if sc.switch.forwarding_jitter > Time::ZERO {
        sim.set_forwarding_jitter(sc.switch.forwarding_jitter, seed, RNG_SWITCH);
    }
    drop_trace(sc, &mut sim)?;
    sim.index_flows();
    if with_stack {
        let stack = &queues.stack;
        sim.set_host_stack(
            txq_select(stack.txq_select),
            stack.rebalance,
            tsq,
            seed,
            RNG_TXHASH,
        );
    }
    sim.handshake = resolved.tcp.handshake;
    Ok(sim)
}

/// `[metrics] drop_trace = "node:peer"`: the port whose drops are traced.
fn drop_trace(sc: &Scenario, sim: &mut Simulation) -> Result<(), ScenarioError> {
    let m = &sc.metrics;
    let Some(text) = m.drop_trace.as_deref() else {
        return Ok(());
    };
    let Some((a, b)) = text.split_once(':') else {
        return Ok(());
    };
    let net = &sim.net;
    let named = |n: u32, s: &str| net.nodes[n as usize].name == s;
    let port = net
        .ports
        .iter()
        .position(|p| named(p.node, a) && named(p.peer, b))
        .ok_or_else(|| {
            ScenarioError::new(
                "metrics.drop_trace",
                format!("{text:?} names no port; expected \"node:peer\" of linked nodes"),
            )
        })?;
    let max = m
        .drop_trace_max_rows
        .unwrap_or(crate::spec::metrics::DEFAULT_DROP_TRACE_MAX_ROWS);
    sim.drops
        .trace_port(port as u32, usize::try_from(max).unwrap_or(usize::MAX));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ProfileName;
    use crate::transport::tcp::Profile;

    #[test]
    fn each_spec_profile_lowers_to_the_simulators_profile_of_that_name() {
        for p in ProfileName::ALL {
            let sim = Profile::parse(p.name()).expect("the simulator knows the profile");
            assert_eq!(tcp_config(&p.settings()), sim.config(), "{p}");
        }
        assert_eq!(Profile::ALL.len(), ProfileName::ALL.len());
    }

    #[test]
    fn every_congestion_control_name_lowers_to_the_same_name() {
        for c in CcName::ALL {
            assert_eq!(cc(*c).name(), c.name());
        }
        assert_eq!(CcKind::ALL.len(), CcName::ALL.len());
    }

    #[test]
    fn the_specs_header_size_is_the_simulators() {
        assert_eq!(TCP_IP_HEADER, crate::packet::TCP_IP_HEADER);
    }

    /// Bulk from a to b and UDP from b to a (listed first) on a star;
    /// `extra` goes into both workloads.
    fn two_transports(bulk_extra: &str, udp_extra: &str) -> String {
        format!(
            r#"
seed = 5
duration = "20ms"
[topology]
kind = "star"
hosts = ["a", "b"]
rate = "1Gbps"
delay = "10us"
[[workload]]
kind = "udp"
src = "b"
dst = "a"
rate = "100Mbps"
{udp_extra}
[[workload]]
kind = "bulk"
src = "a"
dst = "b"
{bulk_extra}
"#
        )
    }

    #[test]
    fn a_transport_a_workload_cannot_run_on_is_refused_by_field_path() {
        let text = two_transports("transport = \"udp\"", "");
        let e = Scenario::from_toml_str(&text)
            .and_then(|sc| build(&sc, None).map(|_| ()))
            .expect_err("bulk over udp is refused");
        assert_eq!(e.path, "workload[1].transport");
        assert!(e.message.contains("\"udp\"") && e.message.contains("expected \"tcp\""));
        let text = two_transports("", "transport = \"tcp\"");
        let e = Scenario::from_toml_str(&text).expect_err("udp over tcp is refused");
        assert_eq!(e.path, "workload[0].transport");
        assert!(e.message.contains("expected \"udp\""), "{e}");
        let text = two_transports("transport = \"quic\"", "");
        let e = Scenario::from_toml_str(&text).expect_err("an unknown transport is refused");
        assert!(e.to_string().contains("transport"), "{e}");
    }

    #[test]
    fn each_kinds_own_transport_named_runs_as_its_default() {
        let run = |text: &str| {
            let sc = Scenario::from_toml_str(text).unwrap();
            let r = crate::run(&sc, None).unwrap();
            (r.digest(), r.int("udp_delivered"), r.table("flows").rows())
        };
        let plain = run(&two_transports("", ""));
        let named = run(&two_transports(
            "transport = \"tcp\"",
            "transport = \"udp\"",
        ));
        assert_eq!(plain, named);
        assert!(plain.1 > 0 && plain.2 == 1, "{plain:?}");
    }

    #[test]
    fn connections_come_first_among_the_endpoints_whatever_the_workload_order() {
        let sc = Scenario::from_toml_str(&two_transports("", "")).unwrap();
        let sim = build(&sc, None).unwrap();
        assert_eq!(sim.endpoints.len(), 2);
        let c = sim.endpoints[0]
            .as_tcp()
            .expect("the bulk flow's connection");
        assert_eq!(c.app.workload, 1);
        let u = sim.endpoints[1].as_udp().expect("the udp flow");
        assert_eq!((u.id, u.app.workload), (1, 0));
    }

    #[test]
    fn a_connection_fits_the_memory_the_limits_count_for_it() {
        // As the simulation holds it: an endpoint.
        let conn = std::mem::size_of::<crate::transport::Endpoint>() as u64;
        assert!(conn <= crate::spec::limits::CONN_BYTES / 2, "{conn} bytes");
    }

    #[test]
    fn a_shaper_fits_the_memory_the_limits_count_for_it() {
        // Boxed, with room for the allocator's own bookkeeping.
        let shaper = std::mem::size_of::<Shaper>() as u64;
        assert!(
            shaper + 16 <= crate::spec::limits::SHAPER_BYTES,
            "{shaper} bytes"
        );
        // A port without one pays a pointer (once any port has one).
        assert_eq!(std::mem::size_of::<Option<Box<Shaper>>>(), 8);
    }
}
