//! Drops by input port (see [`crate::sim::drops`] for the definitions):
//!
//! * `port_inputs`: one row per switch output port and input port that
//!   reached it: arrivals, drops, and the port runs that hit the input;
//! * `drop_runs`: per switch output port, the histogram of run lengths,
//!   for the whole port (input `*`) and per input port hit;
//! * `flow_drop_runs`: per flow direction and port, the histogram of the
//!   flow's own runs;
//! * `drop_trace`: every arrival at the one port `[metrics] drop_trace`
//!   names, admitted or dropped (empty unless asked).
//!
//! None of these is in the summary's digest (see [`super::NOT_DIGESTED`]):
//! they were added after digests were first recorded, and a run's digest
//! stays what it was. They are counted from the same packets as the ports
//! table, which is digested.

use super::{secs, Collector, Column, Summary, Table, Value};
use crate::net::{NodeId, NodeKind, PortId};
use crate::sim::Simulation;

/// The node names of an input: per (switch, input index), the neighbour
/// that input port comes from.
fn input_names(sim: &Simulation) -> impl Fn(NodeId, u32) -> String + '_ {
    let net = &sim.net;
    let mut by: std::collections::HashMap<(NodeId, u32), PortId> = Default::default();
    for (q, p) in net.ports.iter().enumerate() {
        by.insert((p.peer, sim.drops.in_index[q]), q as PortId);
    }
    move |node, index| {
        by.get(&(node, index)).map_or_else(
            || "?".to_string(),
            |&q| net.nodes[net.ports[q as usize].node as usize].name.clone(),
        )
    }
}

/// Switch output ports, in port order.
fn switch_ports(sim: &Simulation) -> impl Iterator<Item = (usize, &crate::net::Port)> {
    sim.net
        .ports
        .iter()
        .enumerate()
        .filter(|(_, p)| sim.net.nodes[p.node as usize].kind == NodeKind::Switch)
}

fn name(sim: &Simulation, n: NodeId) -> String {
    sim.net.nodes[n as usize].name.clone()
}

pub struct PortInputs;

impl Collector for PortInputs {
    fn name(&self) -> &'static str {
        "port_inputs"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let input_name = input_names(sim);
        let (mut node, mut peer, mut input) = (vec![], vec![], vec![]);
        let mut ints: [Vec<i64>; 9] = Default::default();
        for (i, p) in switch_ports(sim) {
            let mut inputs: Vec<_> = sim.drops.ports[i].inputs.iter().collect();
            inputs.sort_by_key(|s| s.index());
            for s in inputs {
                node.push(name(sim, p.node));
                peer.push(name(sim, p.peer));
                input.push(input_name(p.node, s.index()));
                let longest = s.hit().iter().rposition(|&n| n > 0).unwrap_or(0);
                let longest_own = s.own().iter().rposition(|&n| n > 0).unwrap_or(0);
                let values = [
                    s.arrival_pkts,
                    s.arrival_bytes,
                    s.drop_pkts,
                    s.drop_bytes,
                    s.hit().iter().sum(),
                    s.alone().iter().sum(),
                    longest as u64,
                    s.own().iter().sum(),
                    longest_own as u64,
                ];
                for (c, v) in ints.iter_mut().zip(values) {
                    c.push(v as i64);
                }
            }
        }
        let mut t = Table::new();
        t.push("node", Column::Str(node))
            .push("peer", Column::Str(peer))
            .push("input", Column::Str(input));
        let names = [
            "arrival_pkts",
            "arrival_bytes",
            "drop_pkts",
            "drop_bytes",
            "runs",
            "runs_alone",
            "longest_run",
            "input_runs",
            "longest_input_run",
        ];
        for (n, c) in names.iter().zip(ints) {
            t.push(n, Column::I64(c));
        }
        Some(t)
    }
}

pub struct DropRuns;

impl Collector for DropRuns {
    fn name(&self) -> &'static str {
        "drop_runs"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let input_name = input_names(sim);
        let (mut node, mut peer, mut input) = (vec![], vec![], vec![]);
        let (mut len, mut runs, mut alone, mut drops) = (vec![], vec![], vec![], vec![]);
        let mut own_runs = vec![];
        let at = |h: &[u64], l: usize| h.get(l).copied().unwrap_or(0) as i64;
        for (i, p) in switch_ports(sim) {
            let t = &sim.drops.ports[i];
            let mut inputs: Vec<_> = t.inputs.iter().collect();
            inputs.sort_by_key(|s| s.index());
            // The whole port: its runs; and every input's own runs.
            let whole: Vec<u64> = t
                .runs
                .iter()
                .enumerate()
                .map(|(l, n)| l as u64 * n)
                .collect();
            let longest_own = inputs.iter().map(|s| s.own().len()).max().unwrap_or(0);
            let mut all_own = vec![0u64; longest_own];
            for s in &inputs {
                for (l, n) in s.own().iter().enumerate() {
                    all_own[l] += n;
                }
            }
            let mut rows = |who: String, hit: &[u64], only: &[u64], d: &[u64], own: &[u64]| {
                for l in 1..hit.len().max(own.len()) {
                    if at(hit, l) == 0 && at(own, l) == 0 {
                        continue;
                    }
                    node.push(name(sim, p.node));
                    peer.push(name(sim, p.peer));
                    input.push(who.clone());
                    len.push(l as i64);
                    runs.push(at(hit, l));
                    alone.push(at(only, l));
                    drops.push(at(d, l));
                    own_runs.push(at(own, l));
                }
            };
            rows("*".to_string(), &t.runs, &t.runs_alone, &whole, &all_own);
            for s in inputs {
                rows(
                    input_name(p.node, s.index()),
                    s.hit(),
                    s.alone(),
                    s.hit_drops(),
                    s.own(),
                );
            }
        }
        let mut t = Table::new();
        t.push("node", Column::Str(node))
            .push("peer", Column::Str(peer))
            .push("input", Column::Str(input))
            .push("run_length", Column::I64(len))
            .push("runs", Column::I64(runs))
            .push("runs_alone", Column::I64(alone))
            .push("drops", Column::I64(drops))
            .push("input_runs", Column::I64(own_runs));
        Some(t)
    }
}

pub struct FlowDropRuns;

impl Collector for FlowDropRuns {
    fn name(&self) -> &'static str {
        "flow_drop_runs"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let (mut flow, mut data, mut src, mut dst) = (vec![], vec![], vec![], vec![]);
        let (mut node, mut peer, mut len, mut runs) = (vec![], vec![], vec![], vec![]);
        for (&(f, p, l), &n) in &sim.drops.flow_runs {
            let (e, side) = ((f >> 1) as usize, (f & 1) as usize);
            let Some(ep) = sim.endpoints.get(e) else {
                continue;
            };
            let hosts = ep.hosts();
            let (s, d) = if side == 0 { hosts } else { (hosts.1, hosts.0) };
            let port = &sim.net.ports[p as usize];
            flow.push(e as i64);
            data.push(i64::from(s == ep.path_probe().0));
            src.push(name(sim, s));
            dst.push(name(sim, d));
            node.push(name(sim, port.node));
            peer.push(name(sim, port.peer));
            len.push(l as i64);
            runs.push(n as i64);
        }
        let mut t = Table::new();
        t.push("flow_id", Column::I64(flow))
            .push("data", Column::I64(data))
            .push("src", Column::Str(src))
            .push("dst", Column::Str(dst))
            .push("node", Column::Str(node))
            .push("peer", Column::Str(peer))
            .push("run_length", Column::I64(len))
            .push("runs", Column::I64(runs));
        Some(t)
    }
}

pub struct DropTrace;

impl Collector for DropTrace {
    fn name(&self) -> &'static str {
        "drop_trace"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let input_name = input_names(sim);
        let rows = &sim.drops.trace;
        let n = rows.len();
        let (mut t, mut input, mut flow, mut data) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (mut src, mut dst, mut seq, mut payload) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (mut admitted, mut qp, mut qb) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let node = sim
            .net
            .ports
            .get(sim.drops.trace_port as usize)
            .map_or(0, |p| p.node);
        for r in rows {
            let (e, side) = ((r.flow >> 1) as usize, (r.flow & 1) as usize);
            let ep = &sim.endpoints[e];
            let hosts = ep.hosts();
            let s = if side == 0 { hosts.0 } else { hosts.1 };
            t.push(secs(r.t));
            input.push(input_name(node, r.input));
            flow.push(e as i64);
            data.push(i64::from(s == ep.path_probe().0));
            src.push(name(sim, s));
            dst.push(name(sim, r.dst));
            seq.push(r.seq as i64);
            payload.push(i64::from(r.payload));
            admitted.push(i64::from(r.admitted));
            qp.push(i64::from(r.queue_pkts));
            qb.push(r.queue_bytes as i64);
        }
        let mut table = Table::new();
        table
            .push("t_s", Column::F64(t))
            .push("input", Column::Str(input))
            .push("flow_id", Column::I64(flow))
            .push("data", Column::I64(data))
            .push("src", Column::Str(src))
            .push("dst", Column::Str(dst))
            .push("seq", Column::I64(seq))
            .push("payload_bytes", Column::I64(payload))
            .push("admitted", Column::I64(admitted))
            .push("queue_pkts", Column::I64(qp))
            .push("queue_bytes", Column::I64(qb));
        Some(table)
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        // Only when a trace was asked for: other runs' summaries stay as
        // they were.
        if sim.drops.trace_port != PortId::MAX {
            out.push((
                "drop_trace_rows_left_out".into(),
                Value::Int(sim.drops.trace_dropped_rows as i64),
            ));
        }
    }
}
