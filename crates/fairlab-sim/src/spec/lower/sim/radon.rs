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
use crate::sim::Simulation;
use crate::spec::lower::radon::{bottleneck_bps, configs, plan, Plan};
use crate::spec::radon::{RadonResponse, RadonSettings};
use crate::spec::workloads::WorkloadSpec;
use crate::spec::{Scenario, ScenarioError};
use crate::transport::Reserved;
use crate::units::Time;
use fairlab_radon_core as core;

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
        let capacity = bottleneck_bps(wi, path.iter().map(|&p| sim.net.serving_rate(p).get()))?;
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
