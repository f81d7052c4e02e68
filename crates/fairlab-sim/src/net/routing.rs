//! Static shortest-path routing by breadth-first search from each host.
//!
//! Ties between equal-length next hops go to the port attached first, so the
//! routes depend only on the order the topology was built in. Hosts never
//! forward traffic that is not theirs.

use super::{Network, NodeKind, PortId, NO_ROUTE};
use std::collections::VecDeque;

pub(super) fn shortest_paths(net: &Network) -> Vec<PortId> {
    let n = net.nodes.len();
    let h = net.hosts.len();
    let mut routes = vec![NO_ROUTE; n * h];
    let mut dist = vec![u32::MAX; n];
    let mut frontier = VecDeque::new();
    for (hi, &dst) in net.hosts.iter().enumerate() {
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst as usize] = 0;
        frontier.clear();
        frontier.push_back(dst);
        while let Some(u) = frontier.pop_front() {
            if u != dst && net.nodes[u as usize].kind == NodeKind::Host {
                continue;
            }
            for &p in &net.nodes[u as usize].ports {
                let v = net.ports[p as usize].peer;
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u as usize] + 1;
                    frontier.push_back(v);
                }
            }
        }
        for u in 0..n {
            if u as u32 == dst || dist[u] == u32::MAX {
                continue;
            }
            let best = net.nodes[u].ports.iter().copied().find(|&p| {
                let v = net.ports[p as usize].peer as usize;
                dist[v] != u32::MAX
                    && dist[v] + 1 == dist[u]
                    && (v as u32 == dst || net.nodes[v].kind == NodeKind::Switch)
            });
            if let Some(p) = best {
                routes[u * h + hi] = p;
            }
        }
    }
    routes
}
