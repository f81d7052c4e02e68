//! Radon streams on the namespace backend: every udp workload with
//! `transport = "radon"` becomes a stream of the socket agent
//! (`crates/fairlab-radon`, docs/radon.md "On real sockets"), which drives
//! the same `fairlab-radon-core` algorithm as the simulator. The stream's
//! reservation, pacing and models come from the simulator's own lowering
//! ([`crate::spec::lower::radon::plan`] and `configs`), with the
//! capacity C taken from the plan's ports along the stream's route (the
//! slowest shaper on it), so both backends run the same configuration.
//!
//! Admission control runs here, before any namespace exists, over the
//! plan's output ports in start order (as the simulator's lowering does
//! over its ports): a refused stream is named in the plan and never sent.
//!
//! What a namespace cannot honour is said in a warning: the capture point
//! (`stamp`) is the kernel's socket stamp whatever the scenario asks (a
//! veth has no hardware clock; the agent reports the source it got), the
//! namespaces share one clock (`skew_ppm`), and the agent draws its own
//! window dispatch offsets.

use crate::spec::lower::radon::{bottleneck_bps, configs, plan as stream_plan};
use crate::spec::radon::{RadonResponse, StampPoint};
use crate::spec::workloads::{Transport, UdpSpec, WorkloadSpec};
use crate::spec::{Scenario, ScenarioError};
use crate::units::Time;
use fairlab_radon_core as core;
use serde::Serialize;

/// The UDP port (and TCP control port) of every host's Radon receiver.
pub const RADON_PORT: u32 = 19000;

/// A Radon stream of the plan: what the socket agent runs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanRadon {
    pub workload: u32,
    pub flow_id: u32,
    pub src: String,
    pub dst: String,
    pub src_addr: String,
    pub dst_addr: String,
    pub port: u32,
    pub start_s: f64,
    /// The datagram's UDP payload (the IP packet less 28 bytes).
    pub payload_bytes: u64,
    pub packets: Option<u64>,
    pub stop_s: Option<f64>,
    /// The slowest port on its path, b/s, and a datagram's bytes on it.
    pub capacity_bps: f64,
    pub wire_bytes: u64,
    pub utilization: f64,
    pub period_s: f64,
    /// The output ports on its path, `node:peer`.
    pub path: Vec<String>,
    /// Why admission refused it (the port and the sums), if it did.
    pub refused_at: Option<String>,
    pub sender: core::SenderConfig,
    pub receiver: core::ReceiverConfig,
}

/// The output ports from a host to a host (at its address), by index.
pub(super) type PathOf<'a> = &'a dyn Fn(&str, &str, &str) -> Option<Vec<usize>>;

/// What the lowering needs of the namespace plan (it imports none of the
/// plan's types: the plan holds its streams).
pub(super) struct PlanView<'a> {
    /// Every udp workload of the plan: (its slot among the plan's
    /// workloads, its workload index, its flow id, source and destination
    /// addresses).
    pub udp: Vec<(usize, usize, u32, String, String)>,
    pub path: PathOf<'a>,
    /// Each port's rate (its shaper's) and name (`node:peer`).
    pub port_rate_bps: Vec<u64>,
    pub port_name: Vec<String>,
}

/// Lowers the Radon streams of `sc` in place of their udp placeholders in
/// `plan.workloads` (whose flows are already named), warning what the
/// namespaces do differently.
pub(super) fn lower(
    sc: &Scenario,
    view: &PlanView,
    warnings: &mut Vec<String>,
) -> Result<Vec<(usize, PlanRadon)>, ScenarioError> {
    let framing = sc.link.framing().get();
    let mut streams: Vec<(Time, usize, usize)> = Vec::new();
    for (k, &(_, wi, ..)) in view.udp.iter().enumerate() {
        if sc.workloads[wi].transport() == Transport::Radon {
            streams.push((sc.workloads[wi].start(), wi, k));
        }
    }
    streams.sort();
    let mut asks = Vec::new();
    let mut lowered = Vec::new();
    for &(start, wi, k) in &streams {
        let WorkloadSpec::Udp(u) = &sc.workloads[wi] else {
            continue;
        };
        let s = sc.radon.overridden_by(u.radon.as_ref()).settings();
        warn_settings(wi, u, &s, warnings);
        let (slot, _, flow_id, src_addr, dst_addr) = &view.udp[k];
        let (slot, flow_id) = (*slot, *flow_id);
        let ports = (view.path)(&u.src, &u.dst, dst_addr).ok_or_else(
            || {
                ScenarioError::new(
                    format!("workload[{wi}].dst"),
                    format!("{:?} cannot be reached from {:?} on the plan's routes; expected hosts linked through switches", u.dst, u.src),
                )
            },
        )?;
        let capacity = bottleneck_bps(wi, ports.iter().map(|&p| view.port_rate_bps[p]))?;
        let p = stream_plan(u, &s, capacity as f64, framing);
        let (sender, receiver) = configs(&p, &s, sc.metrics.radon_series);
        if s.admission {
            asks.push((lowered.len(), ports.clone(), p.utilization));
        }
        lowered.push((
            slot,
            PlanRadon {
                workload: wi as u32,
                flow_id,
                src: u.src.clone(),
                dst: u.dst.clone(),
                src_addr: src_addr.clone(),
                dst_addr: dst_addr.clone(),
                port: RADON_PORT,
                start_s: start.as_secs_f64(),
                payload_bytes: u.size().get() - 28,
                packets: u.packets,
                stop_s: u.stop.map(Time::as_secs_f64),
                capacity_bps: p.capacity_bps,
                wire_bytes: p.wire_bytes,
                utilization: p.utilization,
                period_s: p.period.as_secs_f64(),
                path: ports.iter().map(|&i| view.port_name[i].clone()).collect(),
                refused_at: None,
                sender,
                receiver,
            },
        ));
    }
    admit(sc, &view.port_name, &asks, &mut lowered);
    Ok(lowered)
}

/// Admission control over the streams that ask for it, in start order,
/// as the simulator's lowering runs it.
fn admit(
    sc: &Scenario,
    port_name: &[String],
    asks: &[(usize, Vec<usize>, f64)],
    lowered: &mut [(usize, PlanRadon)],
) {
    let wanted: Vec<core::StreamAsk> = asks
        .iter()
        .map(|(_, path, u)| core::StreamAsk {
            ports: path.clone(),
            utilization: *u,
        })
        .collect();
    let verdicts = core::admit(&wanted, port_name.len(), sc.radon.settings().reserve);
    for ((k, _, _), v) in asks.iter().zip(verdicts) {
        if let Err(r) = v {
            lowered[*k].1.refused_at = Some(format!(
                "{} (admitted {:.4} + asked {:.4} > {:.4})",
                port_name[r.port], r.admitted_u, r.asked_u, r.limit_u
            ));
        }
    }
}

/// What the namespaces run differently from what the scenario says.
fn warn_settings(
    wi: usize,
    u: &UdpSpec,
    s: &crate::spec::radon::RadonSettings,
    warnings: &mut Vec<String>,
) {
    let at = if u.radon.is_some() {
        format!("workload[{wi}].radon")
    } else {
        "radon".to_string()
    };
    if s.stamp != StampPoint::Socket {
        warnings.push(format!(
            "{at}.stamp: {:?} taken as the kernel's receive stamp (SO_TIMESTAMPNS; hardware stamps where the NIC has them): the agent reports the source it got",
            s.stamp.name()
        ));
    }
    if s.skew_ppm > 0.0 {
        warnings.push(format!(
            "{at}.skew_ppm: {} not added: the namespaces share one clock",
            s.skew_ppm
        ));
    }
    if s.adaptive && s.response != RadonResponse::PercentBudget && !s.dispatch_offset {
        warnings.push(format!(
            "{at}.dispatch_offset: false not honoured: the agent draws its own window offsets"
        ));
    }
}
