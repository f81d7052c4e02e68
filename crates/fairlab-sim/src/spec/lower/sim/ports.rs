//! Per-port settings over the topology's: shapers (`[queue]`'s on switch
//! ports, `[host]`'s on NICs, then `[[port]]`'s in their place), and a
//! `[[port]]`'s own discipline, limit or ECN threshold; then the refusal of
//! a shaper the port's queue cannot serve.

use super::common::{shaper, what_queue, Cx};
use super::queues::Queues;
use crate::net::{Network, NodeId, PortId};
use crate::queue::Queue;
use crate::spec::{BufferLimit, PortSpec, Scenario, ScenarioError, TopologySpec};

/// Applies `[queue]`'s, `[host]`'s and `[[port]]`'s per-port settings.
pub(super) fn apply(
    sc: &Scenario,
    net: &mut Network,
    queues: &Queues,
    cx: &Cx,
) -> Result<(), ScenarioError> {
    let shaped_by = shapers(sc, net, cx)?;
    for (i, p) in sc.ports.iter().enumerate() {
        if p.limit.is_none() && p.ecn_threshold.is_none() && p.discipline.is_none() {
            continue;
        }
        let port = port_of(net, cx, i, p)?;
        let limit = p.limit.or(link_buffer(sc, p)).unwrap_or(sc.queue.limit);
        let k = p.ecn_threshold.or(sc.queue.ecn_threshold);
        let disc = p.discipline.unwrap_or(sc.queue.discipline);
        let rate = match &sc.topology {
            t @ (TopologySpec::Star(_) | TopologySpec::Dumbbell(_)) => t.red_rate(),
            _ => net.ports[port as usize].rate,
        };
        net.ports[port as usize].queue = queues.switch(disc, limit, k, rate);
    }
    check_tbf(net, &shaped_by)
}

/// `[[port]]` `i`'s port.
fn port_of(net: &Network, cx: &Cx, i: usize, p: &PortSpec) -> Result<PortId, ScenarioError> {
    let a: NodeId = cx.node(&format!("port[{i}].node"), &p.node)?;
    let b: NodeId = cx.node(&format!("port[{i}].peer"), &p.peer)?;
    net.port_toward(a, b).ok_or_else(|| {
        ScenarioError::new(
            format!("port[{i}].peer"),
            format!(
                "{:?} is not linked to {:?}; expected a neighbour",
                p.peer, p.node
            ),
        )
    })
}

/// Sets every shaper; per port, the field its shaper came from (for the
/// refusal in [`check_tbf`]).
fn shapers(
    sc: &Scenario,
    net: &mut Network,
    cx: &Cx,
) -> Result<Vec<Option<String>>, ScenarioError> {
    let mut shaped_by: Vec<Option<String>> = vec![None; net.ports.len()];
    for (i, by) in shaped_by.iter_mut().enumerate() {
        let (field, spec) = if net.is_host(net.ports[i].node) {
            ("host.shaper", &sc.host.shaper)
        } else {
            ("queue.shaper", &sc.queue.shaper)
        };
        if let Some(s) = spec {
            net.set_shaper(i as PortId, Some(shaper(s)));
            *by = Some(field.to_string());
        }
    }
    for (i, p) in sc.ports.iter().enumerate() {
        if let Some(s) = &p.shaper {
            let port = port_of(net, cx, i, p)?;
            net.set_shaper(port, Some(shaper(s)));
            shaped_by[port as usize] = Some(format!("port[{i}].shaper"));
        }
    }
    Ok(shaped_by)
}

/// Without its own limit, a port keeps its link's buffer (a graph
/// topology's link may give one per end).
fn link_buffer(sc: &Scenario, p: &PortSpec) -> Option<BufferLimit> {
    let g = sc.topology.graph()?;
    let (x, y) = (*g.index.get(&p.node)?, *g.index.get(&p.peer)?);
    let &(_, l) = g.adj[x as usize].iter().find(|e| e.0 == y)?;
    let l = &g.links[l as usize];
    if l.a == x {
        l.buffer_a
    } else {
        l.buffer_b
    }
}

/// TBF prices the packet it would send next before sending it, which the
/// simulator can tell without dequeuing only of a drop-tail queue (Linux's
/// tbf peeks any child qdisc).
fn check_tbf(net: &Network, shaped_by: &[Option<String>]) -> Result<(), ScenarioError> {
    for (i, port) in net.ports.iter().enumerate() {
        let tbf = net.shaper(i as PortId).is_some_and(|s| s.needs_head());
        let Some(field) = shaped_by[i].as_ref().filter(|_| tbf) else {
            continue;
        };
        if !matches!(port.queue, Queue::DropTail(_)) {
            return Err(ScenarioError::new(
                field,
                format!(
                    "tbf on the port of {:?} toward {:?}, which runs {}, is not supported by the simulator: tbf needs the size of the next packet before it leaves, known only of a drop-tail queue; expected discipline = \"droptail\" there, or kind = \"htb\" (which charges after sending)",
                    net.nodes[port.node as usize].name,
                    net.nodes[port.peer as usize].name,
                    what_queue(&port.queue)
                ),
            ));
        }
    }
    Ok(())
}
