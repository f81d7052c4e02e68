//! `[topology]`: the hosts, switches and links. One struct per kind, chosen
//! by `kind` before the other fields are read, so a field of another kind
//! is refused by name and a missing one is named.

use super::limits::{check_rate, check_time};
use super::tagged::{self, Value};
use super::ScenarioError;
use crate::units::{BitsPerSec, Bytes, Time};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

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

#[derive(Clone, Debug, PartialEq)]
pub enum TopologySpec {
    Star(StarSpec),
    Dumbbell(DumbbellSpec),
}

const KINDS: [&str; 2] = ["star", "dumbbell"];

impl<'de> Deserialize<'de> for TopologySpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize_tagged(d, "topology", &KINDS, |k, rest: Value| {
            Ok(match k {
                0 => TopologySpec::Star(tagged::read_as(rest, KINDS[k], "topology")?),
                _ => TopologySpec::Dumbbell(tagged::read_as(rest, KINDS[k], "topology")?),
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

impl TopologySpec {
    pub fn kind(&self) -> &'static str {
        match self {
            TopologySpec::Star(_) => KINDS[0],
            TopologySpec::Dumbbell(_) => KINDS[1],
        }
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
        }
    }

    /// Hosts before their names are made (for limits).
    pub fn host_count(&self) -> u64 {
        match self {
            TopologySpec::Star(t) => t.hosts.len() as u64,
            TopologySpec::Dumbbell(t) => t.left.len() as u64 + t.right.len() as u64,
        }
    }

    pub fn switch_names(&self) -> &'static [&'static str] {
        match self {
            TopologySpec::Star(_) => &["sw"],
            TopologySpec::Dumbbell(_) => &["swL", "swR"],
        }
    }

    /// The rate of the host links.
    pub fn access_rate(&self) -> BitsPerSec {
        match self {
            TopologySpec::Star(t) => t.rate,
            TopologySpec::Dumbbell(t) => t.rate,
        }
    }

    /// The rate RED's idle-time decay counts packets at: the bottleneck's
    /// on a dumbbell, every link's on a star.
    pub fn red_rate(&self) -> BitsPerSec {
        match self {
            TopologySpec::Star(t) => t.rate,
            TopologySpec::Dumbbell(t) => t.bottleneck_rate,
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
        }
        out
    }

    /// The switch a host (by name, looked up in `index`) hangs off.
    pub fn switch_of(&self, index: &HostIndex, host: &str) -> &'static str {
        match self {
            TopologySpec::Star(_) => "sw",
            TopologySpec::Dumbbell(t) => match index.get(host) {
                Some(&i) if i < t.left.len() => "swL",
                _ => "swR",
            },
        }
    }

    /// Time for a packet of `size` from host `a` to host `b`: each link's
    /// delay and the packet's serialization on it.
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
        }
    }

    /// Which field makes the round trip between hosts `a` and `b` long: the
    /// one of `rate`, `delay`, `bottleneck_rate`, `bottleneck_delay` that
    /// contributes the most to it (packets of `size` one way, headers back).
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
        }
    }

    /// Checks what the types cannot: enough hosts, unique names. Returns
    /// the host names.
    pub fn validate(&self, max_hosts: u64) -> Result<Vec<String>, ScenarioError> {
        let count = self.host_count();
        if count > max_hosts {
            return Err(ScenarioError::new(
                "topology",
                format!("{count} hosts; expected at most {max_hosts} ([limits] max_hosts raises the bound)"),
            ));
        }
        let delays: &[(&str, Time)] = match self {
            TopologySpec::Star(t) => &[("delay", t.delay)],
            TopologySpec::Dumbbell(t) => {
                &[("delay", t.delay), ("bottleneck_delay", t.bottleneck_delay)]
            }
        };
        for (f, d) in delays {
            check_time(&format!("topology.{f}"), *d)?;
        }
        let rates: &[(&str, BitsPerSec)] = match self {
            TopologySpec::Star(t) => &[("rate", t.rate)],
            TopologySpec::Dumbbell(t) => {
                &[("rate", t.rate), ("bottleneck_rate", t.bottleneck_rate)]
            }
        };
        for (f, r) in rates {
            check_rate(&format!("topology.{f}"), *r)?;
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
        }
        let hosts = self.host_names();
        let switches = self.switch_names();
        // Names made from counts (h0.., l0.., r0..) are distinct and not
        // switch names; only a list can repeat one, or name a switch.
        let counted = |l: &HostList| matches!(l, HostList::Count(_));
        let all_counted = match self {
            TopologySpec::Star(t) => counted(&t.hosts),
            TopologySpec::Dumbbell(t) => counted(&t.left) && counted(&t.right),
        };
        if all_counted {
            return Ok(hosts);
        }
        let mut seen = std::collections::HashSet::new();
        for (i, h) in hosts.iter().enumerate() {
            if h.is_empty() || switches.contains(&h.as_str()) || !seen.insert(h.as_str()) {
                let field = match self {
                    TopologySpec::Star(_) => format!("topology.hosts[{i}]"),
                    TopologySpec::Dumbbell(t) if i < t.left.len() => {
                        format!("topology.left[{i}]")
                    }
                    TopologySpec::Dumbbell(t) => format!("topology.right[{}]", i - t.left.len()),
                };
                return Err(ScenarioError::new(
                    field,
                    format!("{h:?} is empty, repeated or a switch name; expected unique host names other than {switches:?}"),
                ));
            }
        }
        Ok(hosts)
    }
}
