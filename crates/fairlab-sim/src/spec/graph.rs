//! The topology as a graph: hosts, switches and links, each link with its
//! own rate, delay and per-direction buffer. The builders of the study's
//! shapes (`outcast`, `parking_lot`, `fat_tree`, `leaf_spine`) and the
//! `explicit` list all become one [`Graph`], which the checks, the
//! estimates and the lowerings read; `star` and `dumbbell` keep their own
//! code (and results) and are not graphs.
//!
//! Node names, one scheme for every builder (docs/scenario.md, "Node
//! names"): a switch is its role and its indices joined by `_`, a host is
//! `h` and the indices of the switch it hangs off, then its own:
//!
//! | kind | switches | hosts |
//! | --- | --- | --- |
//! | `outcast` | `s0` (receiver's), `s1` | `recv`, `a0..` on `s0`; `b0..` on `s1` |
//! | `parking_lot` | `s0`..`s{n-1}` in a chain | `h{switch}_{i}` |
//! | `fat_tree` | `edge{pod}_{i}`, `agg{pod}_{i}`, `core{j}_{i}` | `h{pod}_{edge}_{i}` |
//! | `leaf_spine` | `leaf{i}`, `spine{i}` | `h{leaf}_{i}` |

use super::error::ScenarioError;
use crate::packet::Addr;
use crate::units::{BitsPerSec, Bytes, Time};
use crate::vocab::BufferLimit;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One full-duplex link: `a` and `b` are node numbers (hosts first, then
/// switches), each end's output buffer `None` where the default applies
/// (`[queue] limit` at a switch, `[host] nic_queue` at a host).
#[derive(Clone, Debug, PartialEq)]
pub struct GraphLink {
    pub a: u32,
    pub b: u32,
    pub rate: BitsPerSec,
    pub delay: Time,
    pub buffer_a: Option<BufferLimit>,
    pub buffer_b: Option<BufferLimit>,
}

/// Hosts, switches, links; node `i` is host `i` below `hosts.len()`, else
/// switch `i - hosts.len()`.
#[derive(Debug, Default)]
pub struct Graph {
    pub hosts: Vec<String>,
    pub switches: Vec<String>,
    /// Per switch: its tier (1 next to the hosts, then up); 0 for every
    /// switch of a topology without tiers.
    pub tiers: Vec<u8>,
    /// Per switch: the offset `address_bits` adds to a destination's host
    /// ID (a fat tree's `z - 2`, Al-Fares et al.'s suffix table); else 0.
    pub offsets: Vec<i32>,
    /// Per host: its address in the builder's plan (a fat tree's
    /// 10.pod.switch.id); `None`: the sequential plan (10.0.0.1, ...).
    pub addrs: Vec<Option<Addr>>,
    pub links: Vec<GraphLink>,
    /// Node number by name.
    pub index: HashMap<String, u32>,
    /// Per node: (peer, link number), in link order.
    pub adj: Vec<Vec<(u32, u32)>>,
    /// Per switch: hop counts and times to every switch, worked out when
    /// first asked (see [`Graph::between`]).
    rows: Mutex<Searches>,
}

/// The searches [`Graph::between`] keeps, and how often each switch was
/// an end of a pair that found none kept.
#[derive(Debug, Default)]
struct Searches {
    kept: HashMap<u32, Arc<Vec<Reach>>>,
    missed: HashMap<u32, u32>,
}

/// The most memory [`Graph::between`] keeps in searches: beyond it each
/// search is made, used and dropped (time, not memory, grows).
pub const ROWS_KEPT_BYTES: usize = 64 << 20;

/// How a switch reaches another: hops, and along the slowest of the
/// shortest paths the sum of delays and of picoseconds per byte.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reach {
    pub hops: u32,
    pub delay: Time,
    pub ps_per_byte: f64,
}

impl Reach {
    fn time(&self, size: Bytes) -> Time {
        self.delay
            .saturating_add(Time((self.ps_per_byte * size.get() as f64) as u64))
    }
}

fn ps_per_byte(r: BitsPerSec) -> f64 {
    8e12 / r.get().max(1) as f64
}

impl GraphLink {
    /// Time for a packet of `size` to cross it.
    pub fn time(&self, size: Bytes) -> Time {
        self.delay.saturating_add(self.rate.serialization(size))
    }
}

impl Graph {
    pub fn new() -> Graph {
        Graph::default()
    }

    pub fn add_host(&mut self, name: String, addr: Option<Addr>) -> u32 {
        debug_assert!(self.switches.is_empty(), "hosts first");
        let i = self.hosts.len() as u32;
        self.index.insert(name.clone(), i);
        self.hosts.push(name);
        self.addrs.push(addr);
        i
    }

    pub fn add_switch(&mut self, name: String, tier: u8, offset: i32) -> u32 {
        let i = (self.hosts.len() + self.switches.len()) as u32;
        self.index.insert(name.clone(), i);
        self.switches.push(name);
        self.tiers.push(tier);
        self.offsets.push(offset);
        i
    }

    pub fn link(
        &mut self,
        a: u32,
        b: u32,
        rate: BitsPerSec,
        delay: Time,
        buffer: Option<BufferLimit>,
    ) {
        self.links.push(GraphLink {
            a,
            b,
            rate,
            delay,
            buffer_a: buffer.filter(|_| !self.is_host(a)),
            buffer_b: buffer.filter(|_| !self.is_host(b)),
        });
    }

    /// Fills the adjacency lists (after the last link).
    pub fn finish(&mut self) {
        let n = self.hosts.len() + self.switches.len();
        let mut adj = vec![Vec::new(); n];
        for (i, l) in self.links.iter().enumerate() {
            adj[l.a as usize].push((l.b, i as u32));
            adj[l.b as usize].push((l.a, i as u32));
        }
        self.adj = adj;
    }

    pub fn nodes(&self) -> usize {
        self.hosts.len() + self.switches.len()
    }

    pub fn is_host(&self, n: u32) -> bool {
        (n as usize) < self.hosts.len()
    }

    pub fn name(&self, n: u32) -> &str {
        let h = self.hosts.len();
        if (n as usize) < h {
            &self.hosts[n as usize]
        } else {
            &self.switches[n as usize - h]
        }
    }

    /// Whether the topology gives its switches tiers (equal-length routing).
    pub fn has_tiers(&self) -> bool {
        self.tiers.iter().any(|&t| t > 0)
    }

    /// The link of a (single-homed) host.
    pub fn host_link(&self, host: u32) -> Option<&GraphLink> {
        self.adj
            .get(host as usize)
            .and_then(|a| a.first())
            .map(|&(_, l)| &self.links[l as usize])
    }

    /// The switch host `host` hangs off.
    pub fn switch_of(&self, host: u32) -> Option<u32> {
        self.adj
            .get(host as usize)
            .and_then(|a| a.first())
            .map(|&(p, _)| p)
    }

    pub fn linked(&self, a: &str, b: &str) -> bool {
        match (self.index.get(a), self.index.get(b)) {
            (Some(&x), Some(&y)) => self.adj[x as usize].iter().any(|&(p, _)| p == y),
            _ => false,
        }
    }

    /// Output ports at switches (link ends at a switch).
    pub fn switch_ports(&self) -> u64 {
        self.links
            .iter()
            .map(|l| u64::from(!self.is_host(l.a)) + u64::from(!self.is_host(l.b)))
            .sum()
    }

    /// Searches kept by [`Graph::between`].
    pub fn rows_kept(&self) -> usize {
        self.rows
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .kept
            .len()
    }

    /// How switch `from` reaches switch `to` over switch-to-switch links
    /// (`None`: it does not). Links are full duplex with one rate and delay,
    /// so the answer is the same both ways: a breadth-first search from
    /// either end serves. Searches are kept per switch and reused from
    /// either end; a new one starts from the end that has gone without a
    /// kept search more often (`to` at a tie), so that the one end many
    /// pairs share is searched once, whichever side it is on: an incast's
    /// client (the pairs' `to`), an NFS server (their `from`: a search per
    /// pair from `to` took 7 s to refuse a 10,000-leaf fabric's read).
    /// No more are kept than [`ROWS_KEPT_BYTES`] allows (a 10,000-switch
    /// parking lot with 10,000 servers would otherwise keep 2.4 GB of
    /// searches while validating).
    pub fn between(&self, from: u32, to: u32) -> Option<Reach> {
        let h = self.hosts.len() as u32;
        let (row, at) = {
            let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(r) = rows.kept.get(&from) {
                (Arc::clone(r), to)
            } else if let Some(r) = rows.kept.get(&to) {
                (Arc::clone(r), from)
            } else {
                let mut count = |x: u32| {
                    let n = rows.missed.entry(x).or_insert(0);
                    *n += 1;
                    *n
                };
                let (f, t) = (count(from), count(to));
                let (origin, at) = if f > t { (from, to) } else { (to, from) };
                let r = Arc::new(self.search(origin));
                let row_bytes = std::mem::size_of::<Reach>() * self.switches.len();
                if (rows.kept.len() + 1) * row_bytes <= ROWS_KEPT_BYTES {
                    rows.kept.insert(origin, Arc::clone(&r));
                }
                (r, at)
            }
        };
        row.get((at - h) as usize)
            .copied()
            .filter(|r| r.hops != u32::MAX)
    }

    fn search(&self, from: u32) -> Vec<Reach> {
        let h = self.hosts.len() as u32;
        let unreached = Reach {
            hops: u32::MAX,
            ..Reach::default()
        };
        let mut row = vec![unreached; self.switches.len()];
        let full = Bytes(1500);
        row[(from - h) as usize] = Reach::default();
        let mut frontier = std::collections::VecDeque::from([from]);
        while let Some(x) = frontier.pop_front() {
            let rx = row[(x - h) as usize];
            for &(y, l) in &self.adj[x as usize] {
                if y < h {
                    continue;
                }
                let link = &self.links[l as usize];
                let via = Reach {
                    hops: rx.hops + 1,
                    delay: rx.delay.saturating_add(link.delay),
                    ps_per_byte: rx.ps_per_byte + ps_per_byte(link.rate),
                };
                let ry = &mut row[(y - h) as usize];
                if ry.hops == u32::MAX {
                    *ry = via;
                    frontier.push_back(y);
                } else if ry.hops == via.hops && via.time(full) > ry.time(full) {
                    *ry = via;
                }
            }
        }
        row
    }

    /// Time for a packet of `size` from host `a` to host `b` along the
    /// slowest of the shortest paths (`None`: no path).
    pub fn one_way(&self, a: &str, b: &str, size: Bytes) -> Option<Time> {
        let (&x, &y) = (self.index.get(a)?, self.index.get(b)?);
        let (la, lb) = (self.host_link(x)?, self.host_link(y)?);
        let (sa, sb) = (self.switch_of(x)?, self.switch_of(y)?);
        let ends = la.time(size).saturating_add(lb.time(size));
        if sa == sb {
            return Some(ends);
        }
        Some(ends.saturating_add(self.between(sa, sb)?.time(size)))
    }

    /// Links from host `a` to host `b` along a shortest path (`None`: no
    /// path); with `climb`, at least up to the top tier and down.
    pub fn hops(&self, a: &str, b: &str, climb: bool) -> Option<u64> {
        let (&x, &y) = (self.index.get(a)?, self.index.get(b)?);
        let (sa, sb) = (self.switch_of(x)?, self.switch_of(y)?);
        let between = if sa == sb {
            0
        } else {
            self.between(sa, sb)?.hops as u64
        };
        let top = self.tiers.iter().copied().max().unwrap_or(0) as u64;
        let up_and_down = if climb { 2 * top.saturating_sub(1) } else { 0 };
        Some(2 + between.max(up_and_down))
    }

    /// Checks the graph: every host on exactly one link, to a switch; no
    /// link from a node to itself or twice between two nodes; every node
    /// reachable from every other. `field` names the links in errors.
    pub fn check(&self, field: &str) -> Result<(), ScenarioError> {
        let mut seen = std::collections::HashSet::new();
        for (i, l) in self.links.iter().enumerate() {
            let at = format!("{field}[{i}]");
            let (a, b) = (self.name(l.a), self.name(l.b));
            if l.a == l.b {
                return Err(ScenarioError::new(
                    at,
                    format!("links {a:?} to itself; expected two different nodes"),
                ));
            }
            if self.is_host(l.a) && self.is_host(l.b) {
                return Err(ScenarioError::new(
                    at,
                    format!("links host {a:?} to host {b:?}; expected a switch at one end at least (hosts never forward)"),
                ));
            }
            if !seen.insert((l.a.min(l.b), l.a.max(l.b))) {
                return Err(ScenarioError::new(
                    at,
                    format!("links {a:?} and {b:?} again; expected one link between two nodes"),
                ));
            }
        }
        for (i, h) in self.hosts.iter().enumerate() {
            let n = self.adj[i].len();
            if n != 1 {
                return Err(ScenarioError::new(
                    field,
                    format!(
                        "host {h:?} has {n} links; expected exactly one (hosts are single-homed)"
                    ),
                ));
            }
        }
        // Connected: a breadth-first search from node 0 reaches every node.
        let n = self.nodes();
        let mut reached = vec![false; n];
        let mut stack = vec![0u32];
        if n > 0 {
            reached[0] = true;
        }
        while let Some(x) = stack.pop() {
            for &(y, _) in &self.adj[x as usize] {
                if !reached[y as usize] {
                    reached[y as usize] = true;
                    stack.push(y);
                }
            }
        }
        if let Some(i) = reached.iter().position(|r| !r) {
            return Err(ScenarioError::new(
                field,
                format!(
                    "{:?} cannot be reached from {:?}; expected a connected network",
                    self.name(i as u32),
                    self.name(0)
                ),
            ));
        }
        Ok(())
    }
}

/// A fat tree's hosts, switches and links (k even): `k` pods of `k/2`
/// edge and `k/2` aggregation switches, `(k/2)^2` core switches, `k/2`
/// hosts per edge switch; Al-Fares et al.'s addresses (host `i` of edge
/// switch `e` in pod `p` is 10.p.e.(i+2)).
pub fn fat_tree(k: u32, rate: BitsPerSec, delay: Time, buffer: Option<BufferLimit>) -> Graph {
    let half = k / 2;
    let mut g = Graph::new();
    for p in 0..k {
        for e in 0..half {
            for i in 0..half {
                let addr = Addr::new(10, p as u8, e as u8, (i + 2) as u8);
                g.add_host(format!("h{p}_{e}_{i}"), Some(addr));
            }
        }
    }
    let mut edge = Vec::new();
    let mut agg = Vec::new();
    for p in 0..k {
        // Al-Fares numbers a pod's switches z = 0..k-1, edge first; the
        // suffix table sends host ID i up port (i - 2 + z) mod (k/2).
        for e in 0..half {
            edge.push(g.add_switch(format!("edge{p}_{e}"), 1, e as i32 - 2));
        }
        for a in 0..half {
            agg.push(g.add_switch(format!("agg{p}_{a}"), 2, (half + a) as i32 - 2));
        }
    }
    let mut core = Vec::new();
    for j in 0..half {
        for i in 0..half {
            core.push(g.add_switch(format!("core{j}_{i}"), 3, 0));
        }
    }
    let (k, half) = (k as usize, half as usize);
    for p in 0..k {
        for e in 0..half {
            for i in 0..half {
                let h = ((p * half + e) * half + i) as u32;
                g.link(h, edge[p * half + e], rate, delay, buffer);
            }
        }
    }
    for p in 0..k {
        for e in 0..half {
            for a in 0..half {
                g.link(edge[p * half + e], agg[p * half + a], rate, delay, buffer);
            }
        }
    }
    // Aggregation switch j of every pod reaches core switches (j, 0..k/2).
    for p in 0..k {
        for j in 0..half {
            for i in 0..half {
                g.link(agg[p * half + j], core[j * half + i], rate, delay, buffer);
            }
        }
    }
    g.finish();
    g
}

/// `leaves` leaf switches under `spines` spine switches, every leaf linked
/// to every spine at `uplink`; `hosts` hosts per leaf at `rate`.
pub fn leaf_spine(
    leaves: u32,
    spines: u32,
    hosts: u32,
    rate: BitsPerSec,
    uplink: BitsPerSec,
    delay: Time,
    buffer: Option<BufferLimit>,
) -> Graph {
    let mut g = Graph::new();
    for l in 0..leaves {
        for i in 0..hosts {
            g.add_host(format!("h{l}_{i}"), None);
        }
    }
    let leaf: Vec<u32> = (0..leaves)
        .map(|l| g.add_switch(format!("leaf{l}"), 1, 0))
        .collect();
    let spine: Vec<u32> = (0..spines)
        .map(|s| g.add_switch(format!("spine{s}"), 2, 0))
        .collect();
    for l in 0..leaves {
        for i in 0..hosts {
            g.link(l * hosts + i, leaf[l as usize], rate, delay, buffer);
        }
    }
    for &l in &leaf {
        for &s in &spine {
            g.link(l, s, uplink, delay, buffer);
        }
    }
    g.finish();
    g
}

/// The outcast study's two switches: `recv` and the local senders `a0..`
/// on `s0`; the senders `b0..` on `s1`, whose uplink enters `s0`. Links
/// are attached in the order of the reproduction's Mininet ports (`s0`:
/// `recv`, the local senders, then `s1`).
pub fn outcast(
    local: u32,
    senders: u32,
    rate: BitsPerSec,
    delay: Time,
    buffer: Option<BufferLimit>,
) -> Graph {
    let mut g = Graph::new();
    let recv = g.add_host("recv".into(), None);
    let a: Vec<u32> = (0..local)
        .map(|i| g.add_host(format!("a{i}"), None))
        .collect();
    let b: Vec<u32> = (0..senders)
        .map(|i| g.add_host(format!("b{i}"), None))
        .collect();
    let s0 = g.add_switch("s0".into(), 0, 0);
    let s1 = g.add_switch("s1".into(), 0, 0);
    g.link(s0, recv, rate, delay, buffer);
    for &x in &a {
        g.link(s0, x, rate, delay, buffer);
    }
    g.link(s0, s1, rate, delay, buffer);
    for &x in &b {
        g.link(s1, x, rate, delay, buffer);
    }
    g.finish();
    g
}

/// A chain of `switches` switches `s0 - s1 - ...` joined by trunk links,
/// `hosts` hosts on each.
pub fn parking_lot(
    switches: u32,
    hosts: u32,
    access: (BitsPerSec, Time),
    trunk: (BitsPerSec, Time),
    buffer: Option<BufferLimit>,
) -> Graph {
    let mut g = Graph::new();
    for s in 0..switches {
        for i in 0..hosts {
            g.add_host(format!("h{s}_{i}"), None);
        }
    }
    let sw: Vec<u32> = (0..switches)
        .map(|s| g.add_switch(format!("s{s}"), 0, 0))
        .collect();
    for s in 0..switches {
        for i in 0..hosts {
            g.link(s * hosts + i, sw[s as usize], access.0, access.1, buffer);
        }
    }
    for w in sw.windows(2) {
        g.link(w[0], w[1], trunk.0, trunk.1, buffer);
    }
    g.finish();
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_k4_fat_tree_has_16_hosts_20_switches_and_48_links() {
        let g = fat_tree(4, BitsPerSec(1_000_000_000), Time::from_us(1), None);
        assert_eq!(g.hosts.len(), 16);
        assert_eq!(g.switches.len(), 20);
        // 16 host links, 16 edge-aggregation, 16 aggregation-core.
        assert_eq!(g.links.len(), 48);
        assert_eq!(g.switch_ports(), 16 + 32 + 32);
        g.check("topology").unwrap();
        assert_eq!(g.addrs[0], Some(Addr::new(10, 0, 0, 2)));
        assert_eq!(g.addrs[15], Some(Addr::new(10, 3, 1, 3)));
        assert_eq!(g.hosts[15], "h3_1_1");
        assert!(g.linked("agg2_1", "core1_0"));
        assert!(!g.linked("agg2_1", "core0_0"));
        // h0_0_0 to h3_1_1: up to a core and down, six links.
        let t = g.one_way("h0_0_0", "h3_1_1", Bytes(1500)).unwrap();
        assert_eq!(t, (Time::from_us(1) + Time::from_us(12)).times(6));
        let t = g.one_way("h0_0_0", "h0_0_1", Bytes(1500)).unwrap();
        assert_eq!(t, (Time::from_us(1) + Time::from_us(12)).times(2));
    }

    #[test]
    fn fat_trees_grow_as_k_cubed() {
        for k in [2u64, 8, 16] {
            let g = fat_tree(k as u32, BitsPerSec(1_000_000_000), Time::from_us(1), None);
            assert_eq!(g.hosts.len() as u64, k * k * k / 4);
            assert_eq!(g.switches.len() as u64, 5 * k * k / 4);
            assert_eq!(g.links.len() as u64, 3 * k * k * k / 4);
        }
    }

    #[test]
    fn the_outcast_topology_puts_the_receiver_and_the_lone_sender_on_s0() {
        let g = outcast(1, 6, BitsPerSec(1_000_000_000), Time::from_us(1), None);
        assert_eq!(g.hosts, ["recv", "a0", "b0", "b1", "b2", "b3", "b4", "b5"]);
        assert!(g.linked("s0", "recv") && g.linked("a0", "s0") && g.linked("s0", "s1"));
        assert!(g.linked("b5", "s1") && !g.linked("b5", "s0"));
        g.check("topology").unwrap();
    }

    #[test]
    fn a_disconnected_or_multi_homed_graph_is_refused() {
        let r = BitsPerSec(1_000_000_000);
        let mut g = Graph::new();
        let a = g.add_host("a".into(), None);
        let b = g.add_host("b".into(), None);
        let s = g.add_switch("s".into(), 0, 0);
        let t = g.add_switch("t".into(), 0, 0);
        g.link(a, s, r, Time::ZERO, None);
        g.link(b, t, r, Time::ZERO, None);
        g.finish();
        let e = g.check("topology.links").unwrap_err();
        assert!(e.to_string().contains("cannot be reached"), "{e}");
    }

    /// 2,000 switches in a line, one host each: 1 Gb/s and 1 us to the
    /// hosts, 100 Mb/s and 3 us between switches.
    fn long_parking_lot() -> Graph {
        parking_lot(
            2000,
            1,
            (BitsPerSec(1_000_000_000), Time::from_us(1)),
            (BitsPerSec(100_000_000), Time::from_us(3)),
            None,
        )
    }

    #[test]
    fn an_incast_over_a_long_parking_lot_keeps_one_search_and_times_are_symmetric() {
        // Fuzz seed 1, case 1894: 10,000 servers, each on its own switch,
        // answering one client kept a search per server switch (2.4 GB at
        // 10,000 switches) while the scenario was validated.
        let g = long_parking_lot();
        let size = Bytes(1500);
        for s in 1..2000 {
            let (a, b) = (format!("h{s}_0"), "h0_0".to_string());
            let there = g.one_way(&a, &b, size).unwrap();
            assert_eq!(there, g.one_way(&b, &a, size).unwrap());
        }
        assert_eq!(g.rows_kept(), 1, "the client's search serves every server");
        let far = g.one_way("h1999_0", "h0_0", Bytes(0)).unwrap();
        assert_eq!(far, Time::from_us(2 + 1999 * 3));
    }

    #[test]
    fn one_server_read_by_many_clients_is_searched_from_once() {
        // Fuzz seed 42, case 17218: an NFS server read by 19,999 clients,
        // each pair (server, client): a search from each client's switch
        // took 7 s to refuse the scenario, past the fuzzer's time bound
        // on a loaded machine.
        let g = long_parking_lot();
        for s in 1..2000 {
            let far = g.one_way("h0_0", &format!("h{s}_0"), Bytes(0)).unwrap();
            assert_eq!(far, Time::from_us(2 + s * 3));
        }
        assert_eq!(
            g.rows_kept(),
            2,
            "the first client's search, then the server's for the rest"
        );
    }
}
