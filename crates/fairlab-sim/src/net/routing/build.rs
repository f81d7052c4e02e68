//! Building the routes: the switch graph's hop counts and the hosts'
//! groups once ([`Fabric`]), then each node's table from them, then the
//! climbing sets of equal-length routing. Every next-hop set is kept once
//! ([`Sets`]), numbered in the order first met, so a build is a function
//! of the network alone.

use super::{resolve_local, Fib, Routes, Selection, GROUP_FIBS_FROM_BYTES, LOCAL, NONE, TAG};
use crate::net::{Network, NodeId, NodeKind, PortId};
use std::collections::{HashMap, VecDeque};

/// What every node's routes are worked out from: the switches numbered
/// among themselves, the hop counts between them over switch-to-switch
/// links, and the destination hosts in groups.
struct Fabric<'a> {
    net: &'a Network,
    /// The switches, in node order; `sw_no` numbers them (`u32::MAX`: not a
    /// switch).
    switches: Vec<NodeId>,
    sw_no: Vec<u32>,
    /// Hop counts between switches `a` and `b` at `a * switches + b`
    /// (`u32::MAX`: unreachable).
    d: Vec<u32>,
    /// Per group: the switches (by number) its hosts hang off. Hosts
    /// hanging off the same switches share a group: away from those
    /// switches their routes are the same, so they are worked out once per
    /// group (a fat tree's 27,648 hosts are 1,152 groups).
    groups: Vec<Vec<u32>>,
    /// Per host index: its group.
    group: Vec<u32>,
    /// Per group: its hosts, in host order.
    members: Vec<Vec<u32>>,
    /// Per host index: its group and its place among the group's hosts.
    place: Vec<(u32, u32)>,
}

impl<'a> Fabric<'a> {
    fn new(net: &'a Network) -> Self {
        let n = net.nodes.len();
        let switches: Vec<NodeId> = (0..n as NodeId)
            .filter(|&u| net.nodes[u as usize].kind == NodeKind::Switch)
            .collect();
        let mut sw_no = vec![u32::MAX; n];
        for (i, &u) in switches.iter().enumerate() {
            sw_no[u as usize] = i as u32;
        }
        let mut f = Fabric {
            net,
            switches,
            sw_no,
            d: Vec::new(),
            groups: Vec::new(),
            group: Vec::new(),
            members: Vec::new(),
            place: Vec::new(),
        };
        f.d = f.hop_counts();
        f.group_hosts();
        f
    }

    #[inline]
    fn peer(&self, p: PortId) -> NodeId {
        self.net.ports[p as usize].peer
    }

    #[inline]
    fn is_switch(&self, v: NodeId) -> bool {
        self.sw_no[v as usize] != u32::MAX
    }

    /// The switches (by number) node `u`'s ports lead to, in port order.
    fn switch_peers(&self, u: NodeId) -> impl Iterator<Item = u32> + '_ {
        self.net.nodes[u as usize]
            .ports
            .iter()
            .map(|&p| self.peer(p))
            .filter(|&v| self.is_switch(v))
            .map(|v| self.sw_no[v as usize])
    }

    /// Hop counts between switches: one breadth-first search per switch
    /// over switch-to-switch links.
    fn hop_counts(&self) -> Vec<u32> {
        let s = self.switches.len();
        // Each switch's switch neighbours, by number, gathered once: the
        // searches would otherwise read a whole port record per link (at
        // k = 48, 2,880 searches of 138,240 links each).
        let mut adj_start: Vec<u32> = Vec::with_capacity(s + 1);
        let mut adj: Vec<u32> = Vec::new();
        for &u in &self.switches {
            adj_start.push(adj.len() as u32);
            adj.extend(self.switch_peers(u));
        }
        adj_start.push(adj.len() as u32);

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
        d
    }

    /// Fills `groups`, `group`, `members` and `place`.
    fn group_hosts(&mut self) {
        let mut group_of_set: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let group: Vec<u32> = self
            .net
            .hosts
            .iter()
            .map(|&x| {
                let mut a: Vec<u32> = self.switch_peers(x).collect();
                a.sort_unstable();
                a.dedup();
                *group_of_set.entry(a.clone()).or_insert_with(|| {
                    groups.push(a);
                    (groups.len() - 1) as u32
                })
            })
            .collect();
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); groups.len()];
        self.place = group
            .iter()
            .enumerate()
            .map(|(hi, &g)| {
                let m = &mut members[g as usize];
                m.push(hi as u32);
                (g, m.len() as u32 - 1)
            })
            .collect();
        self.groups = groups;
        self.group = group;
        self.members = members;
    }

    /// Hops from switch number `u` to a host of group `g` (`u32::MAX`:
    /// unreachable).
    #[inline]
    fn dist(&self, u: usize, g: usize) -> u32 {
        let s = self.switches.len();
        self.groups[g]
            .iter()
            .map(|&a| self.d[u * s + a as usize])
            .min()
            .map_or(u32::MAX, |x| x.saturating_add(1))
    }
}

/// The next-hop sets met so far, each kept once in `Routes::sets`, and a
/// scratch list of candidate ports.
#[derive(Default)]
struct Sets {
    ids: HashMap<Vec<PortId>, u32>,
    candidates: Vec<PortId>,
}

impl Sets {
    /// The route to the ports in `candidates`: none, a tagged port, or
    /// the id of their set (added to `out` when new).
    fn intern(&mut self, out: &mut Routes) -> u32 {
        let c = &self.candidates;
        match c.len() {
            0 => NONE,
            1 => TAG | c[0],
            _ => *self.ids.entry(c.clone()).or_insert_with(|| {
                assert!(out.sets.len() < LOCAL as usize, "too many next-hop sets");
                out.sets.push((out.pool.len() as u32, c.len() as u32));
                out.pool.extend_from_slice(c);
                (out.sets.len() - 1) as u32
            }),
        }
    }

    /// [`Sets::intern`] of the ports `ports` yields.
    fn intern_of(&mut self, out: &mut Routes, ports: impl Iterator<Item = PortId>) -> u32 {
        self.candidates.clear();
        self.candidates.extend(ports);
        self.intern(out)
    }
}

/// Builds every node's routes (keeping the selections, tiers and mode
/// already chosen).
pub(in crate::net) fn compute(net: &Network, prev: Routes) -> Routes {
    let n = net.nodes.len();
    let h = net.hosts.len();
    let mut chosen = prev.chosen;
    chosen.resize(n, None);
    let mut tiers = prev.tiers;
    tiers.resize(n, 0);
    let fabric = Fabric::new(net);

    // Tables by group where tables by host would outgrow the caches; by
    // host otherwise (one lookup fewer per hop).
    let by_group = prev
        .group_fibs
        .unwrap_or(4 * h as u64 * fabric.switches.len() as u64 > GROUP_FIBS_FROM_BYTES);
    let mut out = Routes {
        route_of: vec![NONE; n],
        group_fibs: prev.group_fibs,
        chosen: Vec::new(),
        ..Routes::default()
    };
    let mut sets = Sets::default();
    for u in 0..n as NodeId {
        let node = &net.nodes[u as usize];
        let selection = chosen[u as usize].unwrap_or(Selection::First);
        let fib = match node.kind {
            NodeKind::Host if node.ports.len() <= 1 => {
                out.route_of[u as usize] = node.ports.first().map_or(NONE, |&p| TAG | p);
                continue;
            }
            NodeKind::Host => host_fib(&fabric, u, selection, &mut sets, &mut out),
            NodeKind::Switch => switch_fib(&fabric, u, by_group, selection, &mut sets, &mut out),
        };
        out.route_of[u as usize] = out.fibs.len() as u32;
        out.fibs.push(fib);
    }
    if prev.equal_length {
        climbing_sets(&fabric, &tiers, &mut sets, &mut out);
    }
    if by_group {
        out.place = fabric.place;
    }
    out.tiers = tiers;
    out.equal_length = prev.equal_length;
    out.chosen = chosen;
    out
}

/// A multi-homed host's table, by destination host: its ports on a
/// shortest path.
fn host_fib(f: &Fabric, u: NodeId, selection: Selection, sets: &mut Sets, out: &mut Routes) -> Fib {
    let ports = &f.net.nodes[u as usize].ports;
    let mut entries = vec![NONE; f.net.hosts.len()];
    for (hi, &dst) in f.net.hosts.iter().enumerate() {
        let g = f.group[hi] as usize;
        let cost = |p: PortId| {
            let v = f.peer(p);
            if v == dst {
                1
            } else if f.is_switch(v) {
                f.dist(f.sw_no[v as usize] as usize, g).saturating_add(1)
            } else {
                u32::MAX
            }
        };
        let best = ports.iter().map(|&p| cost(p)).min().unwrap_or(u32::MAX);
        if dst == u || best == u32::MAX {
            continue;
        }
        entries[hi] = sets.intern_of(out, ports.iter().copied().filter(|&p| cost(p) == best));
    }
    Fib {
        entries,
        local: Vec::new(),
        by_group: false,
        selection,
        spray: 0,
    }
}

/// A switch's table: per group, toward a group not attached here, the
/// uplinks one hop closer to it; a group hanging off this switch gets a
/// run of `local` entries, one per host, each this switch's ports to the
/// host, found from the host's side (port p's reverse is p ^ 1). By host
/// rather than by group unless `by_group`.
fn switch_fib(
    f: &Fabric,
    u: NodeId,
    by_group: bool,
    selection: Selection,
    sets: &mut Sets,
    out: &mut Routes,
) -> Fib {
    let su = f.sw_no[u as usize] as usize;
    // Ports to switches, with the switch's number.
    let uplinks: Vec<(PortId, usize)> = f.net.nodes[u as usize]
        .ports
        .iter()
        .filter(|&&p| f.is_switch(f.peer(p)))
        .map(|&p| (p, f.sw_no[f.peer(p) as usize] as usize))
        .collect();
    let mut entries = vec![NONE; f.groups.len()];
    let mut local = Vec::new();
    for (g, e) in entries.iter_mut().enumerate() {
        let du = f.dist(su, g);
        if du == u32::MAX {
            continue;
        }
        if du != 1 {
            let closer = uplinks.iter().filter(|&&(_, v)| f.dist(v, g) == du - 1);
            *e = sets.intern_of(out, closer.map(|&(p, _)| p));
            continue;
        }
        assert!(local.len() < LOCAL as usize, "FIB too large");
        *e = LOCAL | local.len() as u32;
        for &hi in &f.members[g] {
            let host = &f.net.nodes[f.net.hosts[hi as usize] as usize];
            sets.candidates.clear();
            sets.candidates.extend(
                host.ports
                    .iter()
                    .filter(|&&p| f.peer(p) == u)
                    .map(|&p| p ^ 1),
            );
            sets.candidates.sort_unstable();
            local.push(sets.intern(out));
        }
    }
    if !by_group {
        entries = f
            .place
            .iter()
            .map(|&(g, slot)| resolve_local(entries[g as usize], &local, slot))
            .collect();
        local = Vec::new();
    }
    Fib {
        entries,
        local,
        by_group,
        selection,
        spray: 0,
    }
}

/// Equal-length routing's climbing sets: each switch's ports to the tier
/// above; a packet climbs where it enters a switch below the top from a
/// lower tier.
fn climbing_sets(f: &Fabric, tiers: &[u8], sets: &mut Sets, out: &mut Routes) {
    let top = f
        .switches
        .iter()
        .map(|&u| tiers[u as usize])
        .max()
        .unwrap_or(0);
    out.climb = vec![NONE; f.net.nodes.len()];
    for &u in &f.switches {
        let t = tiers[u as usize];
        if t == 0 || t >= top {
            continue;
        }
        let ports = f.net.nodes[u as usize].ports.iter().copied();
        out.climb[u as usize] =
            sets.intern_of(out, ports.filter(|&p| tiers[f.peer(p) as usize] > t));
    }
    out.climbs_in = f
        .net
        .ports
        .iter()
        .map(|p| {
            let (from, to) = (tiers[p.node as usize], tiers[p.peer as usize]);
            f.is_switch(p.peer) && from < to && out.climb[p.peer as usize] != NONE
        })
        .collect();
}
