//! The paths table: one row per flow (endpoint), the path its packets take
//! through the network and its round trip without queueing.
//!
//! Paths are worked out from the routes after the run, never by watching
//! packets, so that asking for them changes nothing (the table is not in
//! the summary's digest either: it describes the network as routed, and
//! every run's digest stays what it was before the table existed). A flow
//! keeps one path under `first`, `address_bits` and ECMP (its flow hash
//! under each switch's salt); a sprayed flow's packets take every tied
//! port in turn, and the table shows the first port of each tie.

use super::{secs, Collector, Column, Table};
use crate::net::{Network, NodeId, PortId};
use crate::packet::TCP_IP_HEADER;
use crate::sim::Simulation;
use crate::units::{Bytes, Time};

pub struct Paths;

/// Node names along `ports` from `src`, joined by `>`.
fn hops(net: &Network, src: NodeId, ports: &[PortId]) -> String {
    let mut s = net.nodes[src as usize].name.clone();
    for &p in ports {
        s.push('>');
        s.push_str(&net.nodes[net.ports[p as usize].peer as usize].name);
    }
    s
}

/// Propagation and serialization of a packet of `size` along `ports`.
fn time(net: &Network, ports: &[PortId], size: Bytes) -> Time {
    ports.iter().fold(Time::ZERO, |t, &p| {
        let port = &net.ports[p as usize];
        t.saturating_add(port.delay)
            .saturating_add(port.rate.serialization(size))
    })
}

impl Collector for Paths {
    fn name(&self) -> &'static str {
        "paths"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let net = &sim.net;
        let n = sim.endpoints.len();
        let (mut flow_id, mut hop_count) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut src, mut dst) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut path, mut back) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut one_way, mut rtt) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, e) in sim.endpoints.iter().enumerate() {
            let (a, b, fwd_hash, rev_hash, size) = e.path_probe();
            let fwd = net.path_to(a, b, fwd_hash);
            let rev = rev_hash.map(|h| net.path_to(b, a, h));
            flow_id.push(i as i64);
            src.push(net.nodes[a as usize].name.clone());
            dst.push(net.nodes[b as usize].name.clone());
            path.push(hops(net, a, &fwd));
            hop_count.push(fwd.len() as i64);
            let framing = sim.framing();
            let there = time(net, &fwd, Bytes(size.get() + framing.get()));
            one_way.push(secs(there));
            match rev {
                Some(rev) => {
                    back.push(hops(net, b, &rev));
                    let ack = Bytes(TCP_IP_HEADER as u64 + framing.get());
                    rtt.push(secs(there.saturating_add(time(net, &rev, ack))));
                }
                None => {
                    back.push(String::new());
                    rtt.push(f64::NAN);
                }
            }
        }
        let mut t = Table::new();
        t.push("flow_id", Column::I64(flow_id))
            .push("src", Column::Str(src))
            .push("dst", Column::Str(dst))
            .push("path", Column::Str(path))
            .push("hops", Column::I64(hop_count))
            .push("reverse_path", Column::Str(back))
            .push("one_way_s", Column::F64(one_way))
            .push("base_rtt_s", Column::F64(rtt));
        Some(t)
    }
}
