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

use super::{Network, Node, NodeId, NodeKind, PortId, NO_ROUTE};
use crate::packet::{flow_hash, Addr, Packet, Salt};
use std::collections::{HashMap, VecDeque};

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

/// Builds every node's routes (keeping the selections, tiers and mode
/// already chosen).
pub(super) fn compute(net: &Network, prev: Routes) -> Routes {
    let n = net.nodes.len();
    let h = net.hosts.len();
    let mut chosen = prev.chosen;
    chosen.resize(n, None);
    let mut tiers = prev.tiers;
    tiers.resize(n, 0);

    // Switches, numbered among themselves.
    let switches: Vec<NodeId> = (0..n as NodeId)
        .filter(|&u| net.nodes[u as usize].kind == NodeKind::Switch)
        .collect();
    let mut sw_no = vec![u32::MAX; n];
    for (i, &u) in switches.iter().enumerate() {
        sw_no[u as usize] = i as u32;
    }
    let s = switches.len();
    let peer = |p: PortId| net.ports[p as usize].peer;
    let is_switch = |v: NodeId| sw_no[v as usize] != u32::MAX;

    // Each switch's switch neighbours, by number, gathered once: the
    // searches below would otherwise read a whole port record per link
    // (at k = 48, 2,880 searches of 138,240 links each).
    let mut adj_start: Vec<u32> = Vec::with_capacity(s + 1);
    let mut adj: Vec<u32> = Vec::new();
    for &u in &switches {
        adj_start.push(adj.len() as u32);
        adj.extend(
            net.nodes[u as usize]
                .ports
                .iter()
                .map(|&p| peer(p))
                .filter(|&v| is_switch(v))
                .map(|v| sw_no[v as usize]),
        );
    }
    adj_start.push(adj.len() as u32);

    // Hop counts between switches over switch-to-switch links.
    let mut d = vec![u32::MAX; s * s];
    let mut frontier = VecDeque::new();
    for a in 0..s {
        let row = &mut d[a * s..(a + 1) * s];
        row[a] = 0;
        frontier.clear();
        frontier.push_back(a);
        while let Some(x) = frontier.pop_front() {
            let next = row[x] + 1;
            for &y in &adj[adj_start[x] as usize..adj_start[x + 1] as usize] {
                if row[y as usize] == u32::MAX {
                    row[y as usize] = next;
                    frontier.push_back(y as usize);
                }
            }
        }
    }

    // Per destination host: the switches it hangs off. Hosts hanging off
    // the same switches share a group: away from those switches their
    // routes are the same, so they are worked out once per group (a fat
    // tree's 27,648 hosts are 1,152 groups).
    let mut group_of_set: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let group: Vec<u32> = net
        .hosts
        .iter()
        .map(|&x| {
            let mut a: Vec<u32> = net.nodes[x as usize]
                .ports
                .iter()
                .map(|&p| peer(p))
                .filter(|&v| is_switch(v))
                .map(|v| sw_no[v as usize])
                .collect();
            a.sort_unstable();
            a.dedup();
            *group_of_set.entry(a.clone()).or_insert_with(|| {
                groups.push(a);
                (groups.len() - 1) as u32
            })
        })
        .collect();
    drop(group_of_set);
    // Each group's hosts in host order, and each host's place among them.
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); groups.len()];
    let place: Vec<(u32, u32)> = group
        .iter()
        .enumerate()
        .map(|(hi, &g)| {
            let m = &mut members[g as usize];
            m.push(hi as u32);
            (g, m.len() as u32 - 1)
        })
        .collect();
    // Hops from switch number `u` to a host of group `g` (u32::MAX: unreachable).
    let dist = |u: usize, g: usize| -> u32 {
        groups[g]
            .iter()
            .map(|&a| d[u * s + a as usize])
            .min()
            .map_or(u32::MAX, |x| x.saturating_add(1))
    };

    // Tables by group where tables by host would outgrow the caches; by
    // host otherwise (one lookup fewer per hop).
    let by_group = prev
        .group_fibs
        .unwrap_or(4 * h as u64 * s as u64 > GROUP_FIBS_FROM_BYTES);
    let mut out = Routes {
        route_of: vec![NONE; n],
        group_fibs: prev.group_fibs,
        chosen: Vec::new(),
        ..Routes::default()
    };
    let mut set_ids: HashMap<Vec<PortId>, u32> = HashMap::new();
    let mut candidates: Vec<PortId> = Vec::new();
    let mut intern = |out: &mut Routes, c: &[PortId]| -> u32 {
        match c.len() {
            0 => NONE,
            1 => TAG | c[0],
            _ => *set_ids.entry(c.to_vec()).or_insert_with(|| {
                assert!(out.sets.len() < LOCAL as usize, "too many next-hop sets");
                out.sets.push((out.pool.len() as u32, c.len() as u32));
                out.pool.extend_from_slice(c);
                (out.sets.len() - 1) as u32
            }),
        }
    };

    for u in 0..n as NodeId {
        let node = &net.nodes[u as usize];
        let ports = &node.ports;
        match node.kind {
            NodeKind::Host if ports.len() <= 1 => {
                out.route_of[u as usize] = ports.first().map_or(NONE, |&p| TAG | p);
            }
            NodeKind::Host => {
                // A multi-homed host: its ports on a shortest path.
                let mut entries = vec![NONE; h];
                for (hi, &dst) in net.hosts.iter().enumerate() {
                    let g = group[hi] as usize;
                    let cost = |p: PortId| {
                        let v = peer(p);
                        if v == dst {
                            1
                        } else if is_switch(v) {
                            dist(sw_no[v as usize] as usize, g).saturating_add(1)
                        } else {
                            u32::MAX
                        }
                    };
                    let best = ports.iter().map(|&p| cost(p)).min().unwrap_or(u32::MAX);
                    if dst == u || best == u32::MAX {
                        continue;
                    }
                    candidates.clear();
                    candidates.extend(ports.iter().copied().filter(|&p| cost(p) == best));
                    entries[hi] = intern(&mut out, &candidates);
                }
                out.route_of[u as usize] = out.fibs.len() as u32;
                out.fibs.push(Fib {
                    entries,
                    local: Vec::new(),
                    by_group: false,
                    selection: chosen[u as usize].unwrap_or(Selection::First),
                    spray: 0,
                });
            }
            NodeKind::Switch => {
                let su = sw_no[u as usize] as usize;
                // Ports to switches, with the switch's number.
                let uplinks: Vec<(PortId, usize)> = ports
                    .iter()
                    .filter(|&&p| is_switch(peer(p)))
                    .map(|&p| (p, sw_no[peer(p) as usize] as usize))
                    .collect();
                // Per group: toward a group not attached here, the uplinks
                // one hop closer to it; a group hanging off this switch
                // gets a run of `local` entries, one per host, each this
                // switch's ports to the host, found from the host's side
                // (port p's reverse is p ^ 1).
                let mut entries = vec![NONE; groups.len()];
                let mut local = Vec::new();
                for (g, e) in entries.iter_mut().enumerate() {
                    let du = dist(su, g);
                    if du == u32::MAX {
                        continue;
                    }
                    if du != 1 {
                        candidates.clear();
                        candidates.extend(
                            uplinks
                                .iter()
                                .filter(|&&(_, v)| dist(v, g) == du - 1)
                                .map(|&(p, _)| p),
                        );
                        *e = intern(&mut out, &candidates);
                        continue;
                    }
                    assert!(local.len() < LOCAL as usize, "FIB too large");
                    *e = LOCAL | local.len() as u32;
                    for &hi in &members[g] {
                        candidates.clear();
                        candidates.extend(
                            net.nodes[net.hosts[hi as usize] as usize]
                                .ports
                                .iter()
                                .filter(|&&p| peer(p) == u)
                                .map(|&p| p ^ 1),
                        );
                        candidates.sort_unstable();
                        local.push(intern(&mut out, &candidates));
                    }
                }
                if !by_group {
                    entries = place
                        .iter()
                        .map(|&(g, slot)| resolve_local(entries[g as usize], &local, slot))
                        .collect();
                    local = Vec::new();
                }
                out.route_of[u as usize] = out.fibs.len() as u32;
                out.fibs.push(Fib {
                    entries,
                    local,
                    by_group,
                    selection: chosen[u as usize].unwrap_or(Selection::First),
                    spray: 0,
                });
            }
        }
    }
    if by_group {
        out.place = place;
    }
    if prev.equal_length {
        // Climbing sets: each switch's ports to the tier above; a packet
        // climbs where it enters a switch below the top from a lower tier.
        let top = switches
            .iter()
            .map(|&u| tiers[u as usize])
            .max()
            .unwrap_or(0);
        out.climb = vec![NONE; n];
        for &u in &switches {
            let t = tiers[u as usize];
            if t == 0 || t >= top {
                continue;
            }
            candidates.clear();
            candidates.extend(
                net.nodes[u as usize]
                    .ports
                    .iter()
                    .copied()
                    .filter(|&p| tiers[peer(p) as usize] > t),
            );
            out.climb[u as usize] = intern(&mut out, &candidates);
        }
        out.climbs_in = net
            .ports
            .iter()
            .map(|p| {
                let (from, to) = (tiers[p.node as usize], tiers[p.peer as usize]);
                is_switch(p.peer) && from < to && out.climb[p.peer as usize] != NONE
            })
            .collect();
    }
    out.tiers = tiers;
    out.equal_length = prev.equal_length;
    out.chosen = chosen;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{BufferLimit, DropTail, Queue};
    use crate::units::{BitsPerSec, Time};

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
