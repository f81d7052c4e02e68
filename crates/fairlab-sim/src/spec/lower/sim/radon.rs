//! Radon streams, once the network is routed and every flow named (a
//! stream's path depends on its flow hash): the path gives the stream its
//! capacity C (the slowest port on it), hence its reservation's utilization
//! on the wire, its packet service time and its waits; admission control
//! then runs per output port along each path, in start order, and the
//! algorithm of `fairlab-radon-core` is installed in every stream.
//!
//! Readings (docs/radon.md, "Readings of the seed"): `rate` is the UDP
//! payload rate (the seed's "send rate"), so the wait is payload bits over
//! the rate (131 µs for 500 Mb/s of 8 KiB); utilization and the service
//! time count every byte on the wire (the IP packet plus `[link]
//! framing`); the ledger of a port holds every admitted stream whose path
//! crosses it, the receivers sharing what they admit (the seed places
//! admission at the receiver without saying how receivers of one port
//! agree).

use crate::net::PortId;
use crate::packet::UDP_IP_HEADER;
use crate::sim::Simulation;
use crate::spec::radon::{
    BudgetReading, PctDivisor, RadonModel, RadonResponse, RadonSettings, WaitMin, WaitReading,
    DEFAULT_PERIOD,
};
use crate::spec::workloads::{UdpSpec, WorkloadSpec};
use crate::spec::{Scenario, ScenarioError};
use crate::transport::Reserved;
use crate::units::{Time, PS_PER_SEC};
use fairlab_radon_core as core;

/// What a stream's reservation and pacing come to on its path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The slowest port on the path, b/s.
    pub capacity_bps: f64,
    /// A datagram's bytes on the wire.
    pub wire_bytes: u64,
    /// The reservation's share of the wire's time.
    pub utilization: f64,
    pub period: Time,
    /// pktS: a datagram's service time at C.
    pub service_ps: i64,
    /// The non-adaptive wait: payload bits over the rate.
    pub wait_ps: i64,
    pub wait_min_ps: i64,
    pub wait_max_ps: i64,
}

/// The stream `u` on a path of capacity `capacity_bps`, under `s`.
pub fn plan(u: &UdpSpec, s: &RadonSettings, capacity_bps: f64, framing: u64) -> Plan {
    let size = u.size().get();
    let payload = size.saturating_sub(u64::from(UDP_IP_HEADER)).max(1) as f64;
    let wire_bytes = size + framing;
    let wire = wire_bytes as f64;
    let utilization = match (u.rate, u.utilization) {
        (Some(r), _) => r.get() as f64 * wire / payload / capacity_bps,
        (None, u) => u.unwrap_or(1.0),
    };
    let service_ps = (wire * 8.0 * PS_PER_SEC as f64 / capacity_bps).round() as i64;
    let wait_ps = (service_ps as f64 / utilization).round().max(1.0) as i64;
    let period = u.period.unwrap_or(DEFAULT_PERIOD);
    let wait_min_ps = match s.wait_min {
        WaitMin::Reservation => wait_ps,
        WaitMin::LineRate => service_ps.max(1),
    };
    let wait_max_ps = s.wait_max.unwrap_or(period).0.min(i64::MAX as u64) as i64;
    Plan {
        capacity_bps,
        wire_bytes,
        utilization,
        period,
        service_ps,
        wait_ps,
        wait_min_ps,
        wait_max_ps: wait_max_ps.max(wait_min_ps),
    }
}

/// The sender's and receiver's configurations of a stream of plan `p`
/// under `s`: what every backend's driver of `fairlab-radon-core` runs
/// (the simulator here, the socket agent in the namespace lowering).
/// `all_models`: run the three queue models (the series compares them),
/// else only the one that drives feedback.
pub fn configs(
    p: &Plan,
    s: &RadonSettings,
    all_models: bool,
) -> (core::SenderConfig, core::ReceiverConfig) {
    let period_ps = p.period.0.min(i64::MAX as u64) as i64;
    let reservation = core::Reservation {
        utilization: p.utilization.min(1.0),
        period_ps,
    };
    let budget = match s.budget_reading {
        BudgetReading::Remaining => core::BudgetReading::Remaining,
        BudgetReading::Full => core::BudgetReading::Full,
    };
    let mode = match (s.adaptive, s.response) {
        (false, _) => core::Mode::NonAdaptive,
        (true, RadonResponse::PercentBudget) => core::Mode::Rate(core::RateResponse {
            wait_min_ps: p.wait_min_ps,
            wait_max_ps: p.wait_max_ps,
            wait: match s.wait_reading {
                WaitReading::Halfway => core::WaitReading::Halfway,
                WaitReading::SeedLiteral => core::WaitReading::SeedLiteral,
            },
            budget,
        }),
        (true, r) => {
            let m = core::Rad::new(reservation, p.service_ps, 0).budget_packets();
            core::Mode::Window(core::WindowResponse {
                rule: if r == RadonResponse::LessLaxityMore {
                    core::WindowRule::LessLaxityMore
                } else {
                    core::WindowRule::PercentBudget
                },
                w_max: (m as f64).max(1.0),
                w_min: 1.0,
            })
        }
    };
    let sender = core::SenderConfig {
        reservation,
        packet_service_ps: p.service_ps,
        wait_ps: p.wait_ps,
        mode,
    };
    let receiver = core::ReceiverConfig {
        service_ps: p.service_ps,
        model: match s.model {
            RadonModel::Median5 => core::ModelKind::Median5,
            RadonModel::Basic => core::ModelKind::Basic,
            RadonModel::Pathload => core::ModelKind::Pathload,
        },
        feedback_every: s.feedback_every,
        congested_depth_pkts: s.congested_depth_pkts,
        pct_divisor: match s.pct_divisor {
            PctDivisor::Pairs => core::PctDivisor::PairsGammaMinusOne,
            PctDivisor::Groups => core::PctDivisor::Gamma,
        },
        all_models,
    };
    (sender, receiver)
}

/// The sender and receiver of a stream of plan `p` under `s`, its first
/// datagram due at `start`.
pub fn ends(
    p: &Plan,
    s: &RadonSettings,
    start: Time,
    all_models: bool,
) -> (core::Sender, core::Receiver) {
    let (sender, receiver) = configs(p, s, all_models);
    (
        core::Sender::new(sender, start.0.min(i64::MAX as u64) as i64),
        core::Receiver::new(receiver),
    )
}

/// A stream's forward path (output ports).
fn forward_path(sim: &Simulation, e: usize) -> Vec<PortId> {
    let (a, b, hash, _, _) = sim.endpoints[e].path_probe();
    sim.net.path_to(a, b, hash)
}

/// Installs every Radon stream of `sim`, admitting them per port in start
/// order (ties in endpoint order); a refused stream is told which port.
pub(super) fn install(sc: &Scenario, sim: &mut Simulation) -> Result<(), ScenarioError> {
    let mut streams: Vec<(Time, usize)> = Vec::new();
    for (e, ep) in sim.endpoints.iter().enumerate() {
        if ep.as_radon().is_some() {
            let wi = ep.app().workload as usize;
            streams.push((sc.workloads[wi].start(), e));
        }
    }
    if streams.is_empty() {
        return Ok(());
    }
    streams.sort();
    let framing = sc.link.framing().get();
    let mut asks = Vec::new();
    for &(start, e) in &streams {
        let wi = sim.endpoints[e].app().workload as usize;
        let WorkloadSpec::Udp(u) = &sc.workloads[wi] else {
            continue;
        };
        let s = sc.radon.overridden_by(u.radon.as_ref()).settings();
        let path = forward_path(sim, e);
        let capacity = path
            .iter()
            .map(|&p| sim.net.serving_rate(p).get())
            .min()
            .unwrap_or(0);
        if capacity == 0 {
            return Err(ScenarioError::new(
                format!("workload[{wi}].dst"),
                "has no path of positive rate from the source; expected linked hosts",
            ));
        }
        let p = plan(u, &s, capacity as f64, framing);
        let (sender, receiver) = ends(&p, &s, start, sc.metrics.radon_series);
        let reserved = Reserved {
            capacity_bps: p.capacity_bps,
            wire_bytes: p.wire_bytes,
            utilization: p.utilization,
            period: p.period,
            wait_min: Time(p.wait_min_ps.min(p.wait_ps).max(1) as u64),
            windows: s.adaptive && s.response != RadonResponse::PercentBudget,
            feedback_every: s.feedback_every,
        };
        let r = sim.endpoints[e].as_radon_mut().expect("a Radon stream");
        r.install(sender, receiver, reserved);
        if sc.metrics.radon_series {
            r.series = Some(Vec::new());
        }
        if s.admission {
            asks.push((e, path, p.utilization));
        }
    }
    admit(sc, sim, &asks);
    sim.watch_ports();
    Ok(())
}

/// Admission control over the streams that ask for it, in order.
fn admit(sc: &Scenario, sim: &mut Simulation, asks: &[(usize, Vec<PortId>, f64)]) {
    let reserve = sc.radon.settings().reserve;
    let wanted: Vec<core::StreamAsk> = asks
        .iter()
        .map(|(_, path, u)| core::StreamAsk {
            ports: path.iter().map(|&p| p as usize).collect(),
            utilization: *u,
        })
        .collect();
    let verdicts = core::admit(&wanted, sim.net.ports.len(), reserve);
    for ((e, _, _), v) in asks.iter().zip(verdicts) {
        if let Err(refusal) = v {
            let port = &sim.net.ports[refusal.port];
            let name = format!(
                "{}:{}",
                sim.net.nodes[port.node as usize].name, sim.net.nodes[port.peer as usize].name
            );
            let r = sim.endpoints[*e].as_radon_mut().expect("a Radon stream");
            r.refused = Some(format!(
                "{name} (admitted {:.4} + asked {:.4} > {:.4})",
                refusal.admitted_u, refusal.asked_u, refusal.limit_u
            ));
        }
    }
}
