//! Routing by next-hop sets: every switch (and every multi-homed host)
//! holds, per destination host, the set of its output ports that lie on a
//! shortest path, and one selection step per node picks a port of the set
//! from the packet.
//!
//! Distances come from one breadth-first search per switch over the
//! switch-only graph, so the cost of building grows with switches x
//! (switches + hosts), and the state kept with switches x hosts, never
//! with every node x every host. A set of one port (every route of a star
//! or a dumbbell) is stored in the FIB entry itself; larger sets are kept
//! once each and shared. Within a set, ports keep the order their links
//! were attached, so [`Selection::First`] gives the static routes of a
//! builder that breaks ties by construction order. Hosts never forward
//! traffic that is not theirs.
//!
//! Equal-length routing (the outcast study's remedy) is the one departure
//! from shortest paths: where the builder gave switches tiers (1 next to the
//! hosts, up to the top tier: a fat tree's cores, a leaf-spine's spines), a
//! packet that enters a switch below the top from below (from a host or a
//! lower tier) climbs: its next-hop set is the switch's ports to the tier
//! above, whatever its destination. At the top, and on the way down, it
//! follows the shortest path. Every flow then crosses the top tier, so
//! flows to one receiver enter its edge switch over the ports from above,
//! not some over a host port and the rest over the uplinks.

use super::{Node, NodeId, PortId, NO_ROUTE};
use crate::packet::{flow_hash, Addr, Packet, Salt};

mod build;
pub(super) use build::compute;

/// How a node picks one port of a next-hop set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The first port (in link-attachment order): one fixed path per
    /// destination, as static routes give.
    First,
    /// The destination address's last octet plus this switch's offset,
    /// modulo the set's size: the suffix table of Al-Fares et al.'s
    /// two-level lookup (host ID `i` leaves switch `z` of a pod by upward
    /// port `(i - 2 + z) mod (k/2)`, so the offset is `z - 2`; other
    /// topologies use offset 0). It spreads destinations, not flows.
    DstAddr { offset: i32 },
    /// The destination's host index (hosts in creation order) divided by
    /// this switch's divisor, modulo the set's size: the same choice for
    /// every flow to one host at every switch of a tier, one digit of the
    /// index per tier (the TCP outcast reproduction's static routing: in a
    /// fat tree, the divisor (k/2)^(tier - 1) makes an edge switch choose
    /// by the index's lowest base-k/2 digit and an aggregation switch by
    /// the next, so all flows to one host share its path from the top).
    DstIndex { divisor: u32 },
    /// Per-flow ECMP: the flow hash under this node's salt, so that a flow
    /// keeps one path and two switches' choices are independent.
    FlowHash(Salt),
    /// Per-packet spraying: round robin over the set (one counter per node).
    Spray,
}

/// A FIB entry or a node's route: a port itself when tagged, else the id
/// of a shared next-hop set.
const TAG: u32 = 1 << 31;
const NONE: u32 = u32::MAX;
/// In a switch's FIB, untagged: the group's hosts hang off this switch, and
/// their entries start at this offset (the low bits) in the FIB's `local`.
const LOCAL: u32 = 1 << 30;
/// Switch tables are indexed by group once tables by host would take
/// more than this altogether: a quarter of the last-level cache of the
/// machines measured (32 MiB). Below it the tables by host stay cached and
/// save the group lookup (a k = 16 fat tree's are 1.3 MB; see
/// BENCHMARKS.md, "Third pass").
pub const GROUP_FIBS_FROM_BYTES: u64 = 8 << 20;

/// A node's forwarding table.
///
/// A switch's is indexed by destination *group* (the hosts hanging off the
/// same switches, see [`compute`]): away from a group's switches, every host
/// of the group is reached over the same next hops, so a fat tree's switch
/// keeps 1,152 entries at k = 48 rather than 27,648, and the whole table
/// (13 MB rather than 318 MB) stays in the last-level cache. Only the
/// groups hanging off the switch itself have an entry per host, in `local`.
/// A multi-homed host's table is indexed by destination host.
#[derive(Clone, Debug)]
struct Fib {
    /// Per destination group (a switch) or host (a host): a tagged port, a
    /// set id, [`LOCAL`] plus an offset in `local`, or [`NONE`].
    entries: Vec<u32>,
    /// Per host of the groups attached here, by group then slot: a tagged
    /// port or a set id.
    local: Vec<u32>,
    by_group: bool,
    selection: Selection,
    spray: u32,
}

/// A group's entry `e` as seen by the group's host `slot`: its own entry
/// in `local` where the group hangs off this switch, else `e` itself.
#[inline(always)]
fn resolve_local(e: u32, local: &[u32], slot: u32) -> u32 {
    if e & (TAG | LOCAL) == LOCAL {
        local[((e & !LOCAL) + slot) as usize]
    } else {
        e
    }
}

impl Fib {
    /// The entry toward host index `dst_host`; `place` gives each host's
    /// group and slot in it.
    #[inline(always)]
    fn entry(&self, dst_host: u32, place: &[(u32, u32)]) -> u32 {
        if !self.by_group {
            return self.entries[dst_host as usize];
        }
        let (group, slot) = place[dst_host as usize];
        resolve_local(self.entries[group as usize], &self.local, slot)
    }

    /// Where [`Fib::entry`] first reads.
    #[inline(always)]
    fn entry_ptr(&self, dst_host: u32, place: &[(u32, u32)]) -> Option<*const u32> {
        let i = if self.by_group {
            place.get(dst_host as usize)?.0
        } else {
            dst_host
        };
        Some(self.entries.as_ptr().wrapping_add(i as usize))
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct Routes {
    /// Per node: a tagged port (a single-homed host's only port), the index
    /// of its FIB, or [`NONE`].
    route_of: Vec<u32>,
    fibs: Vec<Fib>,
    /// Per destination host index: its group and its slot among the
    /// group's hosts (in host order).
    place: Vec<(u32, u32)>,
    /// Per node: its climbing set under equal-length routing (a tagged
    /// port, a set id, or [`NONE`]); empty when routing is by shortest paths.
    climb: Vec<u32>,
    /// Per port: whether a packet it delivers climbs at the far end (it
    /// comes from a lower tier into a switch below the top); empty when
    /// routing is by shortest paths.
    climbs_in: Vec<bool>,
    /// Per node: its tier (hosts 0; switches from 1 up), where set.
    tiers: Vec<u8>,
    /// Equal-length routing on.
    equal_length: bool,
    /// Switch tables by group (true) or by host (false), where forced;
    /// else by size (see [`GROUP_FIBS_FROM_BYTES`]).
    group_fibs: Option<bool>,
    /// Next-hop sets of two or more ports: (start, len) in `pool`.
    sets: Vec<(u32, u32)>,
    pool: Vec<PortId>,
    /// Per node: its selection step, where set before computing.
    chosen: Vec<Option<Selection>>,
}

impl Routes {
    pub(super) fn set_selection(&mut self, nodes: usize, node: NodeId, s: Selection) {
        if self.chosen.len() < nodes {
            self.chosen.resize(nodes, None);
        }
        self.chosen[node as usize] = Some(s);
        if let Some(&r) = self.route_of.get(node as usize) {
            if r & TAG == 0 {
                self.fibs[r as usize].selection = s;
            }
        }
    }

    pub(super) fn set_tier(&mut self, nodes: usize, node: NodeId, tier: u8) {
        if self.tiers.len() < nodes {
            self.tiers.resize(nodes, 0);
        }
        self.tiers[node as usize] = tier;
    }

    pub(super) fn set_equal_length(&mut self, on: bool) {
        self.equal_length = on;
    }

    pub(super) fn set_group_fibs(&mut self, on: Option<bool>) {
        self.group_fibs = on;
    }

    /// Whether every node's choice is a function of the packet and the
    /// tables alone (no spraying): then [`Routes::peek`] gives the port
    /// [`Routes::select`] will.
    pub(super) fn stateless(&self) -> bool {
        self.fibs
            .iter()
            .all(|f| !matches!(f.selection, Selection::Spray))
    }

    /// Whether a packet that arrived over port `from` climbs at its node.
    #[inline]
    pub(super) fn climbs(&self, from: PortId) -> bool {
        self.climbs_in.get(from as usize).copied().unwrap_or(false)
    }

    #[inline]
    fn decode(e: u32) -> Option<PortId> {
        debug_assert!(e & TAG != 0);
        (e != NONE).then_some(e & !TAG)
    }

    /// The port `node` sends `pkt` on, toward host index `dst_host`.
    /// When `climb`, the node's climbing set stands for its FIB entry.
    #[inline]
    pub(super) fn select(
        &mut self,
        node: NodeId,
        dst_host: u32,
        pkt: &Packet,
        climb: bool,
        dst_addr: impl FnOnce() -> Addr,
    ) -> PortId {
        let r = self.route_of[node as usize];
        if r & TAG != 0 {
            return Self::decode(r).unwrap_or(NO_ROUTE);
        }
        let fib = &mut self.fibs[r as usize];
        let e = if climb {
            self.climb[node as usize]
        } else {
            fib.entry(dst_host, &self.place)
        };
        if e & TAG != 0 {
            return Self::decode(e).unwrap_or(NO_ROUTE);
        }
        let (start, len) = self.sets[e as usize];
        let i = match fib.selection {
            Selection::Spray => {
                fib.spray = fib.spray.wrapping_add(1);
                fib.spray % len
            }
            s => Self::pick(s, len, dst_host, pkt, dst_addr),
        };
        self.pool[(start + i) as usize]
    }

    /// The index a stateless selection picks in a set of `len` (spraying:
    /// the first port).
    #[inline]
    fn pick(
        s: Selection,
        len: u32,
        dst_host: u32,
        pkt: &Packet,
        dst_addr: impl FnOnce() -> Addr,
    ) -> u32 {
        match s {
            Selection::DstIndex { divisor } => (dst_host / divisor) % len,
            Selection::First | Selection::Spray => 0,
            Selection::DstAddr { offset } => {
                let id = (dst_addr().to_u32() & 0xff) as i64;
                (id + offset as i64).rem_euclid(len as i64) as u32
            }
            Selection::FlowHash(salt) => flow_hash::pick(pkt.hash, salt, len),
        }
    }

    /// As [`Routes::select`], without changing any state: a sprayed packet
    /// takes the first port of its set.
    pub(super) fn peek(
        &self,
        node: NodeId,
        dst_host: u32,
        pkt: &Packet,
        climb: bool,
        dst_addr: impl FnOnce() -> Addr,
    ) -> PortId {
        let r = self.route_of[node as usize];
        if r & TAG != 0 {
            return Self::decode(r).unwrap_or(NO_ROUTE);
        }
        let fib = &self.fibs[r as usize];
        let e = if climb {
            self.climb[node as usize]
        } else {
            fib.entry(dst_host, &self.place)
        };
        if e & TAG != 0 {
            return Self::decode(e).unwrap_or(NO_ROUTE);
        }
        let (start, len) = self.sets[e as usize];
        self.pool[(start + Self::pick(fib.selection, len, dst_host, pkt, dst_addr)) as usize]
    }

    /// Hints what [`Routes::entry_ptr`] reads before the entry itself:
    /// `node`'s FIB record, `dst_host`'s group and slot, `node`'s climbing
    /// entry. Two events before the entry's own hint, so that computing
    /// its address waits for none of them.
    #[inline(always)]
    pub(super) fn prefetch_tables(&self, node: NodeId, dst_host: u32) {
        use crate::engine::prefetch;
        if let Some(&r) = self.route_of.get(node as usize) {
            if let Some(fib) = self.fibs.get(r as usize) {
                prefetch(fib);
            }
        }
        if let Some(p) = self.place.get(dst_host as usize) {
            prefetch(p);
        }
        if let Some(c) = self.climb.get(node as usize) {
            prefetch(c);
        }
    }

    /// Hints the first reads of routing at `node` for a packet come in
    /// over `from`: `node`'s FIB index and whether `from` climbs.
    #[inline(always)]
    pub(super) fn prefetch_keys(&self, node: NodeId, from: PortId) {
        use crate::engine::prefetch;
        if let Some(r) = self.route_of.get(node as usize) {
            prefetch(r);
        }
        if let Some(c) = self.climbs_in.get(from as usize) {
            prefetch(c);
        }
    }

    /// Hints the next-hop set that `node`'s entry for `dst_host` names
    /// (read from the entry, hinted before): the set's bounds and its
    /// first ports.
    #[inline(always)]
    pub(super) fn prefetch_set(&self, node: NodeId, dst_host: u32, climb: bool) {
        use crate::engine::prefetch;
        let Some(&r) = self.route_of.get(node as usize) else {
            return;
        };
        if r & TAG != 0 {
            return;
        }
        let Some(fib) = self.fibs.get(r as usize) else {
            return;
        };
        let e = if climb {
            self.climb.get(node as usize).copied().unwrap_or(TAG)
        } else {
            fib.entry(dst_host, &self.place)
        };
        if e & TAG != 0 {
            return;
        }
        if let Some(&(start, _)) = self.sets.get(e as usize) {
            prefetch(&self.sets[e as usize]);
            if let Some(p) = self.pool.get(start as usize) {
                prefetch(p);
            }
        }
    }

    /// Where [`Routes::select`] will read `node`'s FIB entry for
    /// `dst_host`, for a prefetch hint (None: a node's own route).
    #[inline(always)]
    pub(super) fn entry_ptr(&self, node: NodeId, dst_host: u32, climb: bool) -> Option<*const u32> {
        let r = *self.route_of.get(node as usize)?;
        if r & TAG != 0 {
            return None;
        }
        let fib = self.fibs.get(r as usize)?;
        Some(if climb {
            self.climb.as_ptr().wrapping_add(node as usize)
        } else {
            fib.entry_ptr(dst_host, &self.place)?
        })
    }

    pub(super) fn set_of<'a>(&'a self, node: NodeId, dst_host: u32, n: &'a Node) -> &'a [PortId] {
        let r = self.route_of[node as usize];
        let e = if r & TAG != 0 {
            r
        } else {
            self.fibs[r as usize].entry(dst_host, &self.place)
        };
        if e == NONE {
            return &[];
        }
        if e & TAG != 0 {
            let p = e & !TAG;
            let i = n.ports.iter().position(|&q| q == p).expect("own port");
            return &n.ports[i..=i];
        }
        let (start, len) = self.sets[e as usize];
        &self.pool[start as usize..(start + len) as usize]
    }

    pub(super) fn state_bytes(&self) -> usize {
        4 * (self.route_of.len() + self.pool.len() + self.climb.len())
            + self.climbs_in.len()
            + 8 * (self.sets.len() + self.place.len())
            + self
                .fibs
                .iter()
                .map(|f| 4 * (f.entries.len() + f.local.len()))
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Network, NodeKind};
    use crate::queue::{BufferLimit, DropTail, Queue};
    use crate::units::{BitsPerSec, Time};
    use std::collections::VecDeque;

    fn q() -> Queue {
        Queue::DropTail(DropTail::new(BufferLimit::Packets(10)))
    }

    /// Two hosts joined by two parallel two-switch paths:
    /// a - s0 - {s1, s2} - s3 - b.
    fn diamond() -> (Network, [NodeId; 6]) {
        let mut net = Network::new();
        let a = net.add_node("a", NodeKind::Host);
        let b = net.add_node("b", NodeKind::Host);
        let s: Vec<NodeId> = (0..4)
            .map(|i| net.add_node(&format!("s{i}"), NodeKind::Switch))
            .collect();
        let (r, t) = (BitsPerSec(1_000_000_000), Time::from_us(1));
        for (x, y) in [
            (a, s[0]),
            (s[0], s[1]),
            (s[0], s[2]),
            (s[1], s[3]),
            (s[2], s[3]),
            (s[3], b),
        ] {
            net.connect(x, y, r, t, q(), q());
        }
        (net, [a, b, s[0], s[1], s[2], s[3]])
    }

    fn pkt(dst: NodeId, hash: u32) -> Packet {
        Packet {
            dst,
            hash,
            ..Packet::blank()
        }
    }

    #[test]
    fn equal_cost_paths_form_one_set_in_attachment_order() {
        let (mut net, [a, b, s0, s1, s2, _]) = diamond();
        net.compute_routes();
        let set = net.next_hops(s0, b).to_vec();
        let peers: Vec<NodeId> = set.iter().map(|&p| net.ports[p as usize].peer).collect();
        assert_eq!(peers, vec![s1, s2]);
        // Toward a, only the port back: one entry, no set.
        assert_eq!(net.next_hops(s0, a).len(), 1);
        // First keeps the static route of the first attached link.
        assert_eq!(net.route(s0, &pkt(b, 0)), set[0]);
    }

    #[test]
    fn per_flow_ecmp_keeps_a_flow_on_one_path_and_spreads_flows() {
        let (mut net, [_, b, s0, ..]) = diamond();
        net.set_selection(s0, Selection::FlowHash(Salt(42)));
        net.compute_routes();
        let set = net.next_hops(s0, b).to_vec();
        let mut used = [0u32; 2];
        for flow in 0..1000u32 {
            let hash = flow_hash::fmix32(flow);
            let first = net.route(s0, &pkt(b, hash));
            for _ in 0..3 {
                assert_eq!(net.route(s0, &pkt(b, hash)), first, "one path per flow");
            }
            used[set.iter().position(|&p| p == first).unwrap()] += 1;
        }
        assert!(used.iter().all(|&u| (400..600).contains(&u)), "{used:?}");
    }

    #[test]
    fn spraying_alternates_packets_of_one_flow_over_the_set() {
        let (mut net, [_, b, s0, ..]) = diamond();
        net.set_selection(s0, Selection::Spray);
        net.compute_routes();
        let picks: Vec<PortId> = (0..4).map(|_| net.route(s0, &pkt(b, 7))).collect();
        assert_ne!(picks[0], picks[1]);
        assert_eq!(picks[0], picks[2]);
        assert_eq!(picks[1], picks[3]);
    }

    #[test]
    fn destination_address_bits_pick_the_port() {
        let (mut net, [a, b, s0, ..]) = diamond();
        net.set_selection(s0, Selection::DstAddr { offset: 0 });
        net.set_addr(b, Addr::new(10, 0, 0, 7));
        net.compute_routes();
        let set = net.next_hops(s0, b).to_vec();
        assert_eq!(net.route(s0, &pkt(b, 1)), set[1], "7 mod 2 = 1");
        net.set_addr(b, Addr::new(10, 0, 0, 8));
        assert_eq!(net.route(s0, &pkt(b, 1)), set[0], "8 mod 2 = 0");
        let _ = a;
    }

    #[test]
    fn hosts_never_forward_and_a_star_keeps_one_entry_per_destination() {
        let mut net = Network::new();
        let hosts: Vec<NodeId> = (0..50)
            .map(|i| net.add_node(&format!("h{i}"), NodeKind::Host))
            .collect();
        let sw = net.add_node("sw", NodeKind::Switch);
        for &x in &hosts {
            net.connect(x, sw, BitsPerSec(1_000_000_000), Time::from_us(1), q(), q());
        }
        net.compute_routes();
        for &x in &hosts {
            assert_eq!(net.ports[net.next_hops(sw, x)[0] as usize].peer, x);
            // A host's only route is its only port, whatever the destination.
            assert_eq!(
                net.route(x, &pkt(hosts[0], 0)),
                net.nodes[x as usize].ports[0]
            );
        }
        // 50 FIB entries at the switch and one route per node; no sets.
        assert_eq!(net.route_state_bytes(), 4 * 51 + 4 * 50);
        // By group: one entry for the one group (every host hangs off the
        // switch) and 50 local ones, and each host's place in its group.
        net.set_group_fibs(Some(true));
        net.compute_routes();
        assert_eq!(net.route_state_bytes(), 4 * 51 + 4 * (1 + 50) + 8 * 50);
        for &x in &hosts {
            assert_eq!(net.ports[net.next_hops(sw, x)[0] as usize].peer, x);
        }
    }

    /// Every switch's next-hop set toward every host, against a
    /// breadth-first search over the whole graph (hosts do not forward),
    /// on a two-tier leaf-spine with a dual-homed host, a host with two
    /// links to one leaf and a host that is out of reach.
    #[test]
    fn group_indexed_tables_give_every_shortest_next_hop() {
        for by_group in [true, false] {
            every_shortest_next_hop(by_group);
        }
    }

    fn every_shortest_next_hop(by_group: bool) {
        let mut net = Network::new();
        net.set_group_fibs(Some(by_group));
        let (r, t) = (BitsPerSec(1_000_000_000), Time::from_us(1));
        let leaves: Vec<NodeId> = (0..3)
            .map(|i| net.add_node(&format!("l{i}"), NodeKind::Switch))
            .collect();
        let spines: Vec<NodeId> = (0..2)
            .map(|i| net.add_node(&format!("s{i}"), NodeKind::Switch))
            .collect();
        for &l in &leaves {
            for &s in &spines {
                net.connect(l, s, r, t, q(), q());
            }
        }
        let mut hosts = Vec::new();
        for (i, &l) in leaves.iter().enumerate() {
            for j in 0..3 {
                let h = net.add_node(&format!("h{i}{j}"), NodeKind::Host);
                net.connect(h, l, r, t, q(), q());
                hosts.push(h);
            }
        }
        let dual = net.add_node("dual", NodeKind::Host);
        net.connect(dual, leaves[0], r, t, q(), q());
        net.connect(dual, leaves[2], r, t, q(), q());
        let twice = net.add_node("twice", NodeKind::Host);
        net.connect(twice, leaves[1], r, t, q(), q());
        net.connect(twice, leaves[1], r, t, q(), q());
        let behind = net.add_node("behind", NodeKind::Host);
        net.connect(behind, dual, r, t, q(), q());
        hosts.extend([dual, twice, behind]);
        net.compute_routes();

        let n = net.nodes.len();
        for &dst in &hosts {
            // Hops to `dst` from every node, over links into switches or
            // into `dst` itself.
            let mut d = vec![u32::MAX; n];
            d[dst as usize] = 0;
            let mut frontier = VecDeque::from([dst]);
            while let Some(x) = frontier.pop_front() {
                if x != dst && net.nodes[x as usize].kind == NodeKind::Host {
                    continue;
                }
                for &p in &net.nodes[x as usize].ports {
                    let v = net.ports[p as usize].peer;
                    if d[v as usize] == u32::MAX {
                        d[v as usize] = d[x as usize] + 1;
                        frontier.push_back(v);
                    }
                }
            }
            for &u in leaves.iter().chain(&spines) {
                let mut want: Vec<PortId> = net.nodes[u as usize]
                    .ports
                    .iter()
                    .copied()
                    .filter(|&p| {
                        let v = net.ports[p as usize].peer;
                        (v == dst || net.nodes[v as usize].kind == NodeKind::Switch)
                            && d[u as usize] != u32::MAX
                            && d[v as usize] == d[u as usize] - 1
                    })
                    .collect();
                let mut got = net.next_hops(u, dst).to_vec();
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "at {u} toward {dst}, by group: {by_group}");
            }
        }
        // `behind` hangs off a host only: no switch reaches it.
        assert!(net.next_hops(leaves[0], behind).is_empty());
        assert_eq!(net.next_hops(leaves[1], twice).len(), 2);
    }
}
