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

use super::{err, secs, Plan, PlanLink, PlanPort, PlanRoute};
use crate::spec::lower::radon::{configs, plan as stream_plan};
use crate::spec::radon::{RadonResponse, StampPoint};
use crate::spec::workloads::{Transport, UdpSpec, WorkloadSpec};
use crate::spec::{Scenario, ScenarioError};
use crate::units::Time;
use fairlab_radon_core as core;
use serde::Serialize;
use std::collections::HashMap;

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

/// The index of `node`'s port on `link` in the plan's ports (every link
/// end, `a` then `b`, in link order).
fn port_index(links: &[PlanLink], link: u32, node: &str) -> usize {
    2 * link as usize + usize::from(links[link as usize].a != node)
}

/// The output ports from `src` to `dst_addr`: the host's own, then at
/// each switch its route's next hop (the first of a multipath route's:
/// with equal-cost paths of equal rates the capacity is the same).
fn path(
    links: &[PlanLink],
    routes: &[PlanRoute],
    src: &str,
    dst: &str,
    dst_addr: &str,
) -> Option<Vec<usize>> {
    let route_of: HashMap<(&str, &str), &PlanRoute> = routes
        .iter()
        .map(|r| ((r.node.as_str(), r.dst.as_str()), r))
        .collect();
    let want = format!("{dst_addr}/32");
    let mut node = src.to_string();
    let mut out = Vec::new();
    while node != dst {
        let r = route_of.get(&(node.as_str(), want.as_str()))?;
        let &link = r.links.first()?;
        out.push(port_index(links, link, &node));
        let l = &links[link as usize];
        node = if l.a == node {
            l.b.clone()
        } else {
            l.a.clone()
        };
        if out.len() > links.len() {
            return None;
        }
    }
    Some(out)
}

/// Lowers the Radon streams of `sc` in place of their udp placeholders in
/// `plan.workloads` (whose flows are already named), warning what the
/// namespaces do differently.
pub(super) fn lower(sc: &Scenario, plan: &mut Plan) -> Result<(), ScenarioError> {
    let framing = sc.link.framing().get();
    let mut streams: Vec<(Time, usize, usize)> = Vec::new();
    for (slot, w) in plan.workloads.iter().enumerate() {
        let super::PlanWorkload::Udp { workload, .. } = w else {
            continue;
        };
        let wi = *workload as usize;
        if sc.workloads[wi].transport() == Transport::Radon {
            streams.push((sc.workloads[wi].start(), wi, slot));
        }
    }
    streams.sort();
    let mut asks = Vec::new();
    let mut lowered = Vec::new();
    for &(start, wi, slot) in &streams {
        let WorkloadSpec::Udp(u) = &sc.workloads[wi] else {
            continue;
        };
        let s = sc.radon.overridden_by(u.radon.as_ref()).settings();
        warn_settings(wi, u, &s, &mut plan.warnings);
        let super::PlanWorkload::Udp { flow_id, .. } = plan.workloads[slot] else {
            continue;
        };
        let f = &plan.flows[flow_id as usize];
        let ports = path(&plan.links, &plan.routes, &u.src, &u.dst, &f.dst_addr).ok_or_else(
            || {
                err(
                    format!("workload[{wi}].dst"),
                    format!("{:?} cannot be reached from {:?} on the plan's routes; expected hosts linked through switches", u.dst, u.src),
                )
            },
        )?;
        let capacity = ports
            .iter()
            .map(|&p| plan.ports[p].shaper.rate_bps)
            .min()
            .unwrap_or(0);
        if capacity == 0 {
            return Err(err(
                format!("workload[{wi}].dst"),
                "has no path of positive rate from the source; expected linked hosts",
            ));
        }
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
                src_addr: f.src_addr.clone(),
                dst_addr: f.dst_addr.clone(),
                port: RADON_PORT,
                start_s: secs(start),
                payload_bytes: u.size().get() - 28,
                packets: u.packets,
                stop_s: u.stop.map(secs),
                capacity_bps: p.capacity_bps,
                wire_bytes: p.wire_bytes,
                utilization: p.utilization,
                period_s: secs(p.period),
                path: ports.iter().map(|&i| port_name(&plan.ports[i])).collect(),
                refused_at: None,
                sender,
                receiver,
            },
        ));
    }
    admit(sc, &plan.ports, &asks, &mut lowered);
    for (slot, r) in lowered {
        plan.workloads[slot] = super::PlanWorkload::Radon(r);
    }
    Ok(())
}

fn port_name(p: &PlanPort) -> String {
    format!("{}:{}", p.node, p.peer)
}

/// Admission control over the streams that ask for it, in start order,
/// as the simulator's lowering runs it.
fn admit(
    sc: &Scenario,
    ports: &[PlanPort],
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
    let verdicts = core::admit(&wanted, ports.len(), sc.radon.settings().reserve);
    for ((k, _, _), v) in asks.iter().zip(verdicts) {
        if let Err(r) = v {
            lowered[*k].1.refused_at = Some(format!(
                "{} (admitted {:.4} + asked {:.4} > {:.4})",
                port_name(&ports[r.port]),
                r.admitted_u,
                r.asked_u,
                r.limit_u
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
