//! `[topology]`: the hosts, switches and links. One struct per kind, chosen
//! by `kind` before the other fields are read, so a field of another kind
//! is refused by name and a missing one is named.

use super::check::{check_rate, check_time};
use super::error::ScenarioError;
use super::graph::{self, Graph, GraphLink};
use super::limits::{approx, mul_div};
use super::tagged::{self, Value};
use crate::packet::Addr;
use crate::units::{BitsPerSec, Bytes, Time, PS_PER_SEC};
use crate::vocab::BufferLimit;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The most hosts a topology may have by default. Routing keeps one
/// 4-byte entry per (switch, host), not per (node, host), and a host costs
/// about 1 KB (its node, two ports and queues, its names): a million hosts
/// is about 1 GB, below the default memory limit that is checked as well
/// (`[limits] max_hosts` raises this bound).
pub const MAX_HOSTS: u64 = 1_000_000;

/// Each host's position in creation order, by name: lookups in O(1), so
/// that checks stay linear in a topology of a million hosts.
pub type HostIndex = std::collections::HashMap<String, usize>;

/// `hosts` indexed by name.
pub fn index(hosts: &[String]) -> HostIndex {
    hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.clone(), i))
        .collect()
}

/// Hosts given as a count (named with a prefix) or as a list of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostList {
    Count(u32),
    Names(Vec<String>),
}

impl HostList {
    pub fn names(&self, prefix: &str) -> Vec<String> {
        match self {
            HostList::Count(n) => (0..*n).map(|i| format!("{prefix}{i}")).collect(),
            HostList::Names(v) => v.clone(),
        }
    }
    pub fn len(&self) -> usize {
        match self {
            HostList::Count(n) => *n as usize,
            HostList::Names(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Serialize for HostList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HostList::Count(n) => s.serialize_u32(*n),
            HostList::Names(v) => v.serialize(s),
        }
    }
}

/// A count above this is refused while parsing, before the names are made
/// (u32 flow and node ids; the limit check names the real bound).
const HOST_COUNT_PARSE_MAX: u64 = 1 << 24;

impl<'de> Deserialize<'de> for HostList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HostList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of hosts (1 or more) or a list of host names")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<HostList, E> {
                if v == 0 || v > HOST_COUNT_PARSE_MAX {
                    return Err(E::invalid_value(de::Unexpected::Unsigned(v), &self));
                }
                Ok(HostList::Count(v as u32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<HostList, E> {
                if v <= 0 {
                    return Err(E::invalid_value(de::Unexpected::Signed(v), &self));
                }
                self.visit_u64(v as u64)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<HostList, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<String>()? {
                    v.push(s);
                }
                Ok(HostList::Names(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// One switch `sw` and its hosts, every link alike.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    /// The hosts, named h0.. when given as a count.
    pub hosts: HostList,
    /// Rate of every link.
    pub rate: BitsPerSec,
    /// One-way propagation delay of every link.
    pub delay: Time,
}

/// Left hosts - swL ==bottleneck== swR - right hosts.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Hosts on the left switch, named l0.. when given as a count.
    pub left: HostList,
    /// Hosts on the right switch, named r0.. when given as a count.
    pub right: HostList,
    /// Rate of the access links.
    pub rate: BitsPerSec,
    /// One-way propagation delay of the access links.
    pub delay: Time,
    pub bottleneck_rate: BitsPerSec,
    pub bottleneck_delay: Time,
}

/// A topology's graph, built from its fields the first time it is asked
/// for (the fields are not changed after a scenario is read). Equal and
/// serialized as nothing: it is derived.
#[derive(Default)]
pub struct GraphCache(OnceLock<Arc<Graph>>);

impl Clone for GraphCache {
    fn clone(&self) -> Self {
        let c = OnceLock::new();
        if let Some(g) = self.0.get() {
            let _ = c.set(Arc::clone(g));
        }
        GraphCache(c)
    }
}
impl PartialEq for GraphCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl fmt::Debug for GraphCache {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("GraphCache")
    }
}

/// One link of an explicit topology.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkEntry {
    /// The two nodes it joins (hosts or switches).
    pub a: String,
    pub b: String,
    pub rate: BitsPerSec,
    /// One-way propagation delay.
    pub delay: Time,
    /// Both directions' output buffer at a switch end (default `[queue]
    /// limit`); a host end's is `[host] nic_queue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferLimit>,
    /// The buffer of `a`'s output port toward `b` (a switch's), over `buffer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_a: Option<BufferLimit>,
    /// The buffer of `b`'s output port toward `a`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_b: Option<BufferLimit>,
}

/// Any network: the hosts, the switches and every link.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExplicitSpec {
    pub hosts: Vec<String>,
    pub switches: Vec<String>,
    pub links: Vec<LinkEntry>,
    #[serde(skip)]
    pub cache: GraphCache,
}

/// The outcast study's two switches: `recv` and `a0..` on `s0`, `b0..`
/// on `s1`, whose uplink enters `s0`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutcastSpec {
    /// Senders behind `s1` (`b0..`).
    pub senders: u32,
    /// Senders on the receiver's switch `s0` (`a0..`); default 1.
    #[serde(default = "one")]
    pub local: u32,
    pub rate: BitsPerSec,
    pub delay: Time,
    /// Every switch port's buffer; default `[queue] limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferLimit>,
    #[serde(skip)]
    pub cache: GraphCache,
}

/// A chain of switches `s0 - s1 - ...`, hosts `h{switch}_{i}` on each.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    /// Switches in the chain (2 or more).
    pub switches: u32,
    /// Hosts on each switch; default 1.
    #[serde(default = "one")]
    pub hosts: u32,
    /// Host links.
    pub rate: BitsPerSec,
    pub delay: Time,
    /// Links between switches; default `rate` and `delay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trunk_rate: Option<BitsPerSec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trunk_delay: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferLimit>,
    #[serde(skip)]
    pub cache: GraphCache,
}

/// A k-ary fat tree (Al-Fares et al., SIGCOMM 2008), every link alike.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Ports per switch (even): k^3/4 hosts, 5k^2/4 switches.
    pub k: u32,
    pub rate: BitsPerSec,
    pub delay: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferLimit>,
    #[serde(skip)]
    pub cache: GraphCache,
}

/// Leaf switches under spine switches, every leaf linked to every spine.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    pub leaves: u32,
    pub spines: u32,
    /// Hosts per leaf.
    pub hosts: u32,
    /// Host links.
    pub rate: BitsPerSec,
    pub delay: Time,
    /// Hosts' bandwidth into a leaf over the leaf's uplink bandwidth:
    /// every uplink runs at hosts x rate / (spines x oversubscription);
    /// default 1 (non-blocking).
    #[serde(default = "one_f64")]
    pub oversubscription: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferLimit>,
    #[serde(skip)]
    pub cache: GraphCache,
}

fn one() -> u32 {
    1
}
fn one_f64() -> f64 {
    1.0
}

impl LeafSpineSpec {
    /// The leaf-spine links' rate (`None`: below 1 b/s or not finite).
    pub fn uplink_rate(&self) -> Option<BitsPerSec> {
        let r = self.hosts as f64 * self.rate.get() as f64
            / (self.spines.max(1) as f64 * self.oversubscription);
        (r.is_finite() && (1.0..=1e18).contains(&r)).then(|| BitsPerSec(r.round() as u64))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TopologySpec {
    Star(StarSpec),
    Dumbbell(DumbbellSpec),
    Explicit(ExplicitSpec),
    Outcast(OutcastSpec),
    ParkingLot(ParkingLotSpec),
    FatTree(FatTreeSpec),
    LeafSpine(LeafSpineSpec),
}

const KINDS: [&str; 7] = [
    "star",
    "dumbbell",
    "explicit",
    "outcast",
    "parking_lot",
    "fat_tree",
    "leaf_spine",
];

impl<'de> Deserialize<'de> for TopologySpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize_tagged(d, "topology", &KINDS, |k, rest: Value| {
            let what = "topology";
            Ok(match k {
                0 => TopologySpec::Star(tagged::read_as(rest, KINDS[k], what)?),
                1 => TopologySpec::Dumbbell(tagged::read_as(rest, KINDS[k], what)?),
                2 => TopologySpec::Explicit(tagged::read_as(rest, KINDS[k], what)?),
                3 => TopologySpec::Outcast(tagged::read_as(rest, KINDS[k], what)?),
                4 => TopologySpec::ParkingLot(tagged::read_as(rest, KINDS[k], what)?),
                5 => TopologySpec::FatTree(tagged::read_as(rest, KINDS[k], what)?),
                _ => TopologySpec::LeafSpine(tagged::read_as(rest, KINDS[k], what)?),
            })
        })
    }
}

#[derive(Serialize)]
struct Tagged<'a, T> {
    kind: &'static str,
    #[serde(flatten)]
    spec: &'a T,
}

impl Serialize for TopologySpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let kind = self.kind();
        match self {
            TopologySpec::Star(t) => Tagged { kind, spec: t }.serialize(s),
            TopologySpec::Dumbbell(t) => Tagged { kind, spec: t }.serialize(s),
            TopologySpec::Explicit(t) => Tagged { kind, spec: t }.serialize(s),
            TopologySpec::Outcast(t) => Tagged { kind, spec: t }.serialize(s),
            TopologySpec::ParkingLot(t) => Tagged { kind, spec: t }.serialize(s),
            TopologySpec::FatTree(t) => Tagged { kind, spec: t }.serialize(s),
            TopologySpec::LeafSpine(t) => Tagged { kind, spec: t }.serialize(s),
        }
    }
}

/// A link of the topology, one direction: the output port of `from` toward `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub from: String,
    pub to: String,
    pub rate: BitsPerSec,
    pub delay: Time,
}

/// Values of fields, each with its path.
type Fields<T> = Vec<(String, T)>;

impl TopologySpec {
    pub fn kind(&self) -> &'static str {
        match self {
            TopologySpec::Star(_) => KINDS[0],
            TopologySpec::Dumbbell(_) => KINDS[1],
            TopologySpec::Explicit(_) => KINDS[2],
            TopologySpec::Outcast(_) => KINDS[3],
            TopologySpec::ParkingLot(_) => KINDS[4],
            TopologySpec::FatTree(_) => KINDS[5],
            TopologySpec::LeafSpine(_) => KINDS[6],
        }
    }

    fn cache(&self) -> Option<&GraphCache> {
        match self {
            TopologySpec::Star(_) | TopologySpec::Dumbbell(_) => None,
            TopologySpec::Explicit(t) => Some(&t.cache),
            TopologySpec::Outcast(t) => Some(&t.cache),
            TopologySpec::ParkingLot(t) => Some(&t.cache),
            TopologySpec::FatTree(t) => Some(&t.cache),
            TopologySpec::LeafSpine(t) => Some(&t.cache),
        }
    }

    /// The graph of a topology that is one (every kind but `star` and
    /// `dumbbell`), built once; `None` for those two, and for an explicit
    /// topology whose links name unknown nodes (refused by
    /// [`TopologySpec::validate`]).
    pub fn graph(&self) -> Option<&Graph> {
        let cache = self.cache()?;
        if let Some(g) = cache.0.get() {
            return Some(g);
        }
        let g = self.build_graph().ok()?;
        Some(cache.0.get_or_init(|| Arc::new(g)))
    }

    fn build_graph(&self) -> Result<Graph, ScenarioError> {
        Ok(match self {
            TopologySpec::Star(_) | TopologySpec::Dumbbell(_) => Graph::new(),
            TopologySpec::Explicit(t) => {
                let mut g = Graph::new();
                for h in &t.hosts {
                    g.add_host(h.clone(), None);
                }
                for sw in &t.switches {
                    g.add_switch(sw.clone(), 0, 0);
                }
                for (i, l) in t.links.iter().enumerate() {
                    let end = |f: &str, n: &str| {
                        g.index.get(n).copied().ok_or_else(|| {
                            ScenarioError::new(
                                format!("topology.links[{i}].{f}"),
                                format!("{n:?} is not a host or switch of this topology; expected a name from hosts or switches"),
                            )
                        })
                    };
                    let (a, b) = (end("a", &l.a)?, end("b", &l.b)?);
                    for (f, x) in [("buffer_a", a), ("buffer_b", b)] {
                        let given = if f == "buffer_a" {
                            l.buffer_a
                        } else {
                            l.buffer_b
                        };
                        if given.is_some() && g.is_host(x) {
                            return Err(ScenarioError::new(
                                format!("topology.links[{i}].{f}"),
                                format!("{:?} is a host; expected a switch end (a host's transmit queue is [host] nic_queue)", g.name(x)),
                            ));
                        }
                    }
                    let sw_buffer = |x: u32, own: Option<BufferLimit>| {
                        if g.is_host(x) {
                            None
                        } else {
                            own.or(l.buffer)
                        }
                    };
                    let link = GraphLink {
                        a,
                        b,
                        rate: l.rate,
                        delay: l.delay,
                        buffer_a: sw_buffer(a, l.buffer_a),
                        buffer_b: sw_buffer(b, l.buffer_b),
                    };
                    g.links.push(link);
                }
                g.finish();
                g
            }
            TopologySpec::Outcast(t) => {
                graph::outcast(t.local, t.senders, t.rate, t.delay, t.buffer)
            }
            TopologySpec::ParkingLot(t) => graph::parking_lot(
                t.switches,
                t.hosts,
                (t.rate, t.delay),
                (
                    t.trunk_rate.unwrap_or(t.rate),
                    t.trunk_delay.unwrap_or(t.delay),
                ),
                t.buffer,
            ),
            TopologySpec::FatTree(t) => graph::fat_tree(t.k, t.rate, t.delay, t.buffer),
            TopologySpec::LeafSpine(t) => graph::leaf_spine(
                t.leaves,
                t.spines,
                t.hosts,
                t.rate,
                t.uplink_rate().unwrap_or(t.rate),
                t.delay,
                t.buffer,
            ),
        })
    }

    /// Host names in creation order.
    pub fn host_names(&self) -> Vec<String> {
        match self {
            TopologySpec::Star(t) => t.hosts.names("h"),
            TopologySpec::Dumbbell(t) => {
                let mut v = t.left.names("l");
                v.extend(t.right.names("r"));
                v
            }
            _ => self.graph().map(|g| g.hosts.clone()).unwrap_or_default(),
        }
    }

    /// Host `i`'s address when `[host.addresses]` does not give one: the
    /// builder's plan (a fat tree's 10.pod.switch.id), else 10.0.0.1, ...
    /// in host order.
    pub fn planned_addr(&self, i: usize) -> Addr {
        self.graph()
            .and_then(|g| g.addrs.get(i).copied().flatten())
            .or_else(|| Addr::nth_host(i as u32))
            .unwrap_or_default()
    }

    /// Hosts and switches before any name is made (for limits).
    pub fn sizes(&self) -> (u64, u64) {
        let u = |x: u32| x as u64;
        match self {
            TopologySpec::Star(t) => (t.hosts.len() as u64, 1),
            TopologySpec::Dumbbell(t) => (t.left.len() as u64 + t.right.len() as u64, 2),
            TopologySpec::Explicit(t) => (t.hosts.len() as u64, t.switches.len() as u64),
            TopologySpec::Outcast(t) => (1 + u(t.local) + u(t.senders), 2),
            TopologySpec::ParkingLot(t) => (u(t.switches) * u(t.hosts), u(t.switches)),
            TopologySpec::FatTree(t) => (u(t.k).pow(3) / 4, 5 * u(t.k).pow(2) / 4),
            TopologySpec::LeafSpine(t) => (u(t.leaves) * u(t.hosts), u(t.leaves) + u(t.spines)),
        }
    }

    /// Hosts before their names are made (for limits).
    pub fn host_count(&self) -> u64 {
        self.sizes().0
    }

    pub fn switch_names(&self) -> Vec<&str> {
        match self {
            TopologySpec::Star(_) => vec!["sw"],
            TopologySpec::Dumbbell(_) => vec!["swL", "swR"],
            _ => self
                .graph()
                .map(|g| g.switches.iter().map(|s| s.as_str()).collect())
                .unwrap_or_default(),
        }
    }

    /// The rate of the host links (a graph's fastest: an upper bound for
    /// the estimates).
    pub fn access_rate(&self) -> BitsPerSec {
        match self {
            TopologySpec::Star(t) => t.rate,
            TopologySpec::Dumbbell(t) => t.rate,
            _ => self.graph().map_or(BitsPerSec(1), |g| {
                (0..g.hosts.len() as u32)
                    .filter_map(|h| g.host_link(h))
                    .map(|l| l.rate)
                    .max()
                    .unwrap_or(BitsPerSec(1))
            }),
        }
    }

    /// The slowest link's rate.
    pub fn slowest_rate(&self) -> BitsPerSec {
        match self {
            TopologySpec::Star(t) => t.rate,
            TopologySpec::Dumbbell(t) => t.rate.min(t.bottleneck_rate),
            _ => self.graph().map_or(BitsPerSec(1), |g| {
                g.links
                    .iter()
                    .map(|l| l.rate)
                    .min()
                    .unwrap_or(BitsPerSec(1))
            }),
        }
    }

    /// The rate RED's idle-time decay counts packets at: the bottleneck's
    /// on a dumbbell, every link's on a star (a graph's ports use their
    /// own link's rate).
    pub fn red_rate(&self) -> BitsPerSec {
        match self {
            TopologySpec::Star(t) => t.rate,
            TopologySpec::Dumbbell(t) => t.bottleneck_rate,
            _ => self.slowest_rate(),
        }
    }

    /// Output ports at switches.
    pub fn switch_ports(&self, hosts: u64) -> u64 {
        match self {
            TopologySpec::Star(_) => hosts,
            TopologySpec::Dumbbell(_) => hosts + 2,
            _ => self.graph().map_or(0, |g| g.switch_ports()),
        }
    }

    /// Every link, both directions.
    pub fn links(&self, hosts: &[String]) -> Vec<Link> {
        let mut out = Vec::new();
        let mut both = |a: &str, b: &str, rate, delay| {
            for (from, to) in [(a, b), (b, a)] {
                out.push(Link {
                    from: from.to_string(),
                    to: to.to_string(),
                    rate,
                    delay,
                });
            }
        };
        match self {
            TopologySpec::Star(t) => {
                for h in hosts {
                    both(h, "sw", t.rate, t.delay);
                }
            }
            TopologySpec::Dumbbell(t) => {
                let left = t.left.len();
                for (i, h) in hosts.iter().enumerate() {
                    let sw = if i < left { "swL" } else { "swR" };
                    both(h, sw, t.rate, t.delay);
                }
                both("swL", "swR", t.bottleneck_rate, t.bottleneck_delay);
            }
            _ => {
                if let Some(g) = self.graph() {
                    for l in &g.links {
                        both(g.name(l.a), g.name(l.b), l.rate, l.delay);
                    }
                }
            }
        }
        out
    }

    /// The switch a host (by name, looked up in `index`) hangs off.
    pub fn switch_of(&self, index: &HostIndex, host: &str) -> &str {
        match self {
            TopologySpec::Star(_) => "sw",
            TopologySpec::Dumbbell(t) => match index.get(host) {
                Some(&i) if i < t.left.len() => "swL",
                _ => "swR",
            },
            _ => self
                .graph()
                .and_then(|g| {
                    let h = *index.get(host)? as u32;
                    Some(g.name(g.switch_of(h)?))
                })
                .unwrap_or(""),
        }
    }

    /// Time for a packet of `size` from host `a` to host `b`: each link's
    /// delay and the packet's serialization on it (on a graph, along the
    /// slowest of the shortest paths).
    pub fn one_way(&self, index: &HostIndex, a: &str, b: &str, size: Bytes) -> Time {
        let hop = |rate: BitsPerSec, delay: Time| delay.saturating_add(rate.serialization(size));
        match self {
            TopologySpec::Star(t) => hop(t.rate, t.delay).times(2),
            TopologySpec::Dumbbell(t) => {
                let access = hop(t.rate, t.delay).times(2);
                if self.switch_of(index, a) == self.switch_of(index, b) {
                    access
                } else {
                    access.saturating_add(hop(t.bottleneck_rate, t.bottleneck_delay))
                }
            }
            _ => self
                .graph()
                .and_then(|g| g.one_way(a, b, size))
                .unwrap_or(Time::ZERO),
        }
    }

    /// Packets of `size` bytes the links hold in flight, both ways: each
    /// link's rate times its delay (or `delay` in its place: a forwarding
    /// jitter is an extra stretch of wire on every link).
    pub fn in_flight(&self, hosts: u64, delay: Option<Time>, size: u64) -> u64 {
        let wire = |rate: BitsPerSec, d: Time, links: u64| {
            let d = delay.unwrap_or(d);
            mul_div(rate.get(), d.0, 8 * PS_PER_SEC * size).saturating_mul(2 * links)
        };
        match self {
            TopologySpec::Star(t) => wire(t.rate, t.delay, hosts),
            TopologySpec::Dumbbell(t) => wire(t.rate, t.delay, hosts).saturating_add(wire(
                t.bottleneck_rate,
                t.bottleneck_delay,
                1,
            )),
            _ => self.graph().map_or(0, |g| {
                g.links
                    .iter()
                    .fold(0u64, |a, l| a.saturating_add(wire(l.rate, l.delay, 1)))
            }),
        }
    }

    /// Links a packet from host `a` to host `b` crosses (on a graph along a
    /// shortest path; with `climb`, up to the top tier and down): what a
    /// packet costs the simulator, hop by hop.
    pub fn hops(&self, index: &HostIndex, a: &str, b: &str, climb: bool) -> u64 {
        match self {
            TopologySpec::Star(_) => 2,
            TopologySpec::Dumbbell(_) => {
                2 + u64::from(self.switch_of(index, a) != self.switch_of(index, b))
            }
            _ => self.graph().and_then(|g| g.hops(a, b, climb)).unwrap_or(2),
        }
    }

    /// The rate, bits/s, at which flows between `pairs` (sender, receiver)
    /// can send at most altogether through the topology's core, where it
    /// has one narrower than the hosts' links (a dumbbell's bottleneck,
    /// each direction crossed, plus the senders that stay on one side);
    /// `None` where the hosts' own links are the bound.
    pub fn core_capacity(
        &self,
        index: &HostIndex,
        pairs: &[(String, String)],
        access: u64,
    ) -> Option<u64> {
        let TopologySpec::Dumbbell(t) = self else {
            return None;
        };
        let mut crossed = std::collections::BTreeSet::new();
        let mut same_side = std::collections::BTreeSet::new();
        for (src, dst) in pairs {
            let (a, b) = (self.switch_of(index, src), self.switch_of(index, dst));
            if a == b {
                same_side.insert(src.as_str());
            } else {
                crossed.insert(a);
            }
        }
        Some(
            (crossed.len() as u64)
                .saturating_mul(t.bottleneck_rate.get())
                .saturating_add((same_side.len() as u64).saturating_mul(access)),
        )
    }

    /// Which field makes the round trip between hosts `a` and `b` long: the
    /// one of `rate`, `delay`, `bottleneck_rate`, `bottleneck_delay` that
    /// contributes the most to it (packets of `size` one way, headers back).
    /// On a graph, `delay` or `rate` by what dominates (an explicit
    /// topology's: `links`).
    pub fn slowest_part(&self, index: &HostIndex, a: &str, b: &str, size: Bytes) -> &'static str {
        let ser = |r: BitsPerSec| {
            r.serialization(size)
                .saturating_add(r.serialization(Bytes(40)))
        };
        let (rate, delay, bottleneck) = match self {
            TopologySpec::Star(t) => (t.rate, t.delay, None),
            TopologySpec::Dumbbell(t) => (
                t.rate,
                t.delay,
                (self.switch_of(index, a) != self.switch_of(index, b))
                    .then_some((t.bottleneck_rate, t.bottleneck_delay)),
            ),
            TopologySpec::Explicit(_) => return "links",
            _ => {
                // Delays alone (a zero-size packet) against the whole trip.
                let d = self.one_way(index, a, b, Bytes(0));
                let all = self.one_way(index, a, b, size);
                return if d.times(2) >= all { "delay" } else { "rate" };
            }
        };
        let mut parts = vec![("rate", ser(rate).times(2)), ("delay", delay.times(4))];
        if let Some((r, d)) = bottleneck {
            parts.push(("bottleneck_rate", ser(r)));
            parts.push(("bottleneck_delay", d.times(2)));
        }
        parts.iter().max_by_key(|p| p.1).map_or("delay", |p| p.0)
    }

    /// Whether `a` and `b` are the two ends of a link.
    pub fn linked(&self, index: &HostIndex, a: &str, b: &str) -> bool {
        let up = |h: &str, sw: &str| index.contains_key(h) && self.switch_of(index, h) == sw;
        match self {
            TopologySpec::Star(_) => up(a, b) || up(b, a),
            TopologySpec::Dumbbell(_) => {
                (a == "swL" && b == "swR") || (a == "swR" && b == "swL") || up(a, b) || up(b, a)
            }
            _ => self.graph().is_some_and(|g| g.linked(a, b)),
        }
    }

    /// Every rate and delay field of a graph topology, with its path.
    fn graph_fields(&self) -> (Fields<Time>, Fields<BitsPerSec>) {
        let (mut d, mut r) = (Vec::new(), Vec::new());
        let f = |n: &str| format!("topology.{n}");
        match self {
            TopologySpec::Star(_) | TopologySpec::Dumbbell(_) => {}
            TopologySpec::Explicit(t) => {
                for (i, l) in t.links.iter().enumerate() {
                    d.push((f(&format!("links[{i}].delay")), l.delay));
                    r.push((f(&format!("links[{i}].rate")), l.rate));
                }
            }
            TopologySpec::Outcast(t) => {
                d.push((f("delay"), t.delay));
                r.push((f("rate"), t.rate));
            }
            TopologySpec::ParkingLot(t) => {
                d.push((f("delay"), t.delay));
                r.push((f("rate"), t.rate));
                if let Some(x) = t.trunk_delay {
                    d.push((f("trunk_delay"), x));
                }
                if let Some(x) = t.trunk_rate {
                    r.push((f("trunk_rate"), x));
                }
            }
            TopologySpec::FatTree(t) => {
                d.push((f("delay"), t.delay));
                r.push((f("rate"), t.rate));
            }
            TopologySpec::LeafSpine(t) => {
                d.push((f("delay"), t.delay));
                r.push((f("rate"), t.rate));
            }
        }
        (d, r)
    }

    /// Every switch buffer a graph topology names, with its path.
    pub fn buffers(&self) -> Vec<(String, BufferLimit)> {
        let mut out = Vec::new();
        let mut one = |p: String, b: &Option<BufferLimit>| {
            if let Some(b) = b {
                out.push((p, *b));
            }
        };
        match self {
            TopologySpec::Star(_) | TopologySpec::Dumbbell(_) => {}
            TopologySpec::Explicit(t) => {
                for (i, l) in t.links.iter().enumerate() {
                    for (f, b) in [
                        ("buffer", &l.buffer),
                        ("buffer_a", &l.buffer_a),
                        ("buffer_b", &l.buffer_b),
                    ] {
                        one(format!("topology.links[{i}].{f}"), b);
                    }
                }
            }
            TopologySpec::Outcast(t) => one("topology.buffer".into(), &t.buffer),
            TopologySpec::ParkingLot(t) => one("topology.buffer".into(), &t.buffer),
            TopologySpec::FatTree(t) => one("topology.buffer".into(), &t.buffer),
            TopologySpec::LeafSpine(t) => one("topology.buffer".into(), &t.buffer),
        }
        out
    }

    /// Checks a builder's counts before anything is built.
    fn check_counts(&self) -> Result<(), ScenarioError> {
        let at_least = |f: &str, v: u32, min: u32| {
            if v < min {
                Err(ScenarioError::new(
                    format!("topology.{f}"),
                    format!("{v}; expected at least {min}"),
                ))
            } else {
                Ok(())
            }
        };
        match self {
            TopologySpec::Outcast(t) => at_least("senders", t.senders, 1)?,
            TopologySpec::ParkingLot(t) => {
                at_least("switches", t.switches, 2)?;
                at_least("hosts", t.hosts, 1)?;
            }
            TopologySpec::FatTree(t) if t.k < 2 || t.k > 254 || t.k % 2 == 1 => {
                return Err(ScenarioError::new(
                    "topology.k",
                    format!("{}; expected an even number from 2 to 254 (k = 4: 16 hosts and 20 switches; Al-Fares addresses 10.pod.switch.id need a pod in one octet)", t.k),
                ));
            }
            TopologySpec::LeafSpine(t) => {
                at_least("leaves", t.leaves, 1)?;
                at_least("spines", t.spines, 1)?;
                at_least("hosts", t.hosts, 1)?;
                let o = t.oversubscription;
                if !(o.is_finite() && o > 0.0) {
                    return Err(ScenarioError::new(
                        "topology.oversubscription",
                        format!("{o}; expected a positive number (1: non-blocking, 3: hosts can send three times what the uplinks carry)"),
                    ));
                }
                let up = t.uplink_rate();
                if up.is_none_or(|r| r > super::check::MAX_RATE) {
                    return Err(ScenarioError::new(
                        "topology.oversubscription",
                        format!("{o} makes the uplinks run at {} b/s (hosts x rate / (spines x oversubscription)); expected 1 b/s to 8 Tb/s", t.hosts as f64 * t.rate.get() as f64 / (t.spines as f64 * o)),
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Links between two switches, and the groups of hosts routes are
    /// worked out for (the switches with hosts), from the counts alone.
    fn switch_links_and_groups(&self) -> (u64, u64) {
        let u = |x: u32| x as u64;
        match self {
            TopologySpec::Star(_) => (0, 1),
            TopologySpec::Dumbbell(_) | TopologySpec::Outcast(_) => (1, 2),
            TopologySpec::Explicit(t) => {
                let switches: std::collections::HashSet<&str> =
                    t.switches.iter().map(String::as_str).collect();
                let between = t
                    .links
                    .iter()
                    .filter(|l| switches.contains(l.a.as_str()) && switches.contains(l.b.as_str()))
                    .count() as u64;
                (between, t.switches.len() as u64)
            }
            TopologySpec::ParkingLot(t) => (u(t.switches).saturating_sub(1), u(t.switches)),
            TopologySpec::FatTree(t) => (u(t.k).pow(3) / 2, u(t.k).pow(2) / 2),
            TopologySpec::LeafSpine(t) => (u(t.leaves) * u(t.spines), u(t.leaves)),
        }
    }

    /// Steps of working out the routes (net/routing.rs): a breadth-first
    /// search per switch over the switches and their links, per switch
    /// and group of hosts its ports toward the others, and a table entry
    /// per (switch, host).
    pub fn route_work(&self) -> u64 {
        let (hosts, switches) = self.sizes();
        let (links, groups) = self.switch_links_and_groups();
        let ends = links.saturating_mul(2);
        switches
            .saturating_mul(switches.saturating_add(ends))
            .saturating_add(ends.saturating_mul(groups))
            .saturating_add(switches.saturating_mul(hosts))
    }

    /// Checks what the types cannot: enough hosts, unique names, a network
    /// small enough to build (`max_memory` bounds a graph's routing state
    /// and `max_route_work` the work of computing it, before it is built).
    /// Returns the host names.
    pub fn validate(
        &self,
        max_hosts: u64,
        max_memory: u64,
        max_route_work: u64,
    ) -> Result<Vec<String>, ScenarioError> {
        self.check_counts()?;
        let (count, switches) = self.sizes();
        if count > max_hosts {
            return Err(ScenarioError::new(
                "topology",
                format!("{count} hosts; expected at most {max_hosts} ([limits] max_hosts raises the bound)"),
            ));
        }
        if switches > max_hosts {
            return Err(ScenarioError::new(
                "topology",
                format!("{switches} switches; expected at most {max_hosts} ([limits] max_hosts raises the bound)"),
            ));
        }
        // Routing: 4 bytes per (switch, host), and while it is computed 4
        // per (switch, switch).
        let routing = 4u64
            .saturating_mul(switches)
            .saturating_mul(count.saturating_add(switches));
        if routing > max_memory {
            return Err(ScenarioError::new(
                "topology",
                format!("{count} hosts and {switches} switches need about {} MiB of routing state (4 bytes per switch x (hosts + switches)); expected at most the memory limit, {} MiB ([limits] max_memory raises it)", routing >> 20, max_memory >> 20),
            ));
        }
        let work = self.route_work();
        if work > max_route_work {
            return Err(ScenarioError::new(
                "topology",
                format!("{count} hosts and {switches} switches: working out their routes would take about {} steps (switches x (switches + 2 x links between switches), 2 x those links x groups of hosts, switches x hosts); expected at most {} (a smaller network, or raise [limits] max_route_work)", approx(work), approx(max_route_work)),
            ));
        }
        let delays: Vec<(String, Time)> = match self {
            TopologySpec::Star(t) => vec![("topology.delay".into(), t.delay)],
            TopologySpec::Dumbbell(t) => vec![
                ("topology.delay".into(), t.delay),
                ("topology.bottleneck_delay".into(), t.bottleneck_delay),
            ],
            _ => self.graph_fields().0,
        };
        for (f, d) in &delays {
            check_time(f, *d)?;
        }
        let rates: Vec<(String, BitsPerSec)> = match self {
            TopologySpec::Star(t) => vec![("topology.rate".into(), t.rate)],
            TopologySpec::Dumbbell(t) => vec![
                ("topology.rate".into(), t.rate),
                ("topology.bottleneck_rate".into(), t.bottleneck_rate),
            ],
            _ => self.graph_fields().1,
        };
        for (f, r) in &rates {
            check_rate(f, *r)?;
        }
        match self {
            TopologySpec::Star(t) => {
                if t.hosts.len() < 2 {
                    return Err(ScenarioError::new(
                        "topology.hosts",
                        format!(
                            "{} host{}; expected at least 2",
                            t.hosts.len(),
                            if t.hosts.len() == 1 { "" } else { "s" }
                        ),
                    ));
                }
            }
            TopologySpec::Dumbbell(t) => {
                for (f, h) in [("left", &t.left), ("right", &t.right)] {
                    if h.is_empty() {
                        return Err(ScenarioError::new(
                            format!("topology.{f}"),
                            "empty; expected at least one host",
                        ));
                    }
                }
            }
            _ => return self.validate_graph(),
        }
        let hosts = self.host_names();
        let switches = self.switch_names();
        // Names made from counts (h0.., l0.., r0..) are distinct and not
        // switch names; only a list can repeat one, or name a switch.
        let counted = |l: &HostList| matches!(l, HostList::Count(_));
        let all_counted = match self {
            TopologySpec::Star(t) => counted(&t.hosts),
            TopologySpec::Dumbbell(t) => counted(&t.left) && counted(&t.right),
            _ => true,
        };
        if all_counted {
            return Ok(hosts);
        }
        let mut seen = std::collections::HashSet::new();
        for (i, h) in hosts.iter().enumerate() {
            if h.is_empty() || switches.contains(&h.as_str()) || !seen.insert(h.as_str()) {
                let field = match self {
                    TopologySpec::Dumbbell(t) if i < t.left.len() => {
                        format!("topology.left[{i}]")
                    }
                    TopologySpec::Dumbbell(t) => format!("topology.right[{}]", i - t.left.len()),
                    _ => format!("topology.hosts[{i}]"),
                };
                return Err(ScenarioError::new(
                    field,
                    format!("{h:?} is empty, repeated or a switch name; expected unique host names other than {switches:?}"),
                ));
            }
        }
        Ok(hosts)
    }

    /// A graph topology's own checks: an explicit one's names, every
    /// link's ends, a connected network of single-homed hosts.
    fn validate_graph(&self) -> Result<Vec<String>, ScenarioError> {
        if let TopologySpec::Explicit(t) = self {
            if t.hosts.len() < 2 {
                return Err(ScenarioError::new(
                    "topology.hosts",
                    format!("{} hosts; expected at least 2", t.hosts.len()),
                ));
            }
            if t.switches.is_empty() {
                return Err(ScenarioError::new(
                    "topology.switches",
                    "empty; expected at least one switch (hosts never forward)",
                ));
            }
            let mut seen = std::collections::HashSet::new();
            let names = t
                .hosts
                .iter()
                .map(|h| ("hosts", h))
                .chain(t.switches.iter().map(|s| ("switches", s)));
            let mut counts = [0usize; 2];
            for (f, n) in names {
                let i = &mut counts[usize::from(f == "switches")];
                if n.is_empty() || !seen.insert(n.as_str()) {
                    return Err(ScenarioError::new(
                        format!("topology.{f}[{i}]"),
                        format!("{n:?} is empty or repeated; expected a name no other host or switch has"),
                    ));
                }
                *i += 1;
            }
            // Unknown link ends, buffers at a host end.
            self.build_graph()?;
        }
        let g = self.graph().ok_or_else(|| {
            ScenarioError::new("topology", "cannot be built; expected a valid topology")
        })?;
        let field = match self {
            TopologySpec::Explicit(_) => "topology.links",
            _ => "topology",
        };
        g.check(field)?;
        Ok(g.hosts.clone())
    }
}
