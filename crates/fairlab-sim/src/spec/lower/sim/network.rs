//! The network of a lowering: the topology's nodes, links and queues in the
//! builder's order (node ids and queue streams follow it), the hosts'
//! addresses, and each switch's way of choosing among equal routes.

use super::common::{Cx, RNG_ECMP};
use super::queues::Queues;
use crate::engine::Rng;
use crate::net::topology::{self, LinkSpec};
use crate::net::{Network, NodeId, Selection};
use crate::packet::{Addr, Salt};
use crate::spec::{PathsName, Scenario, ScenarioError, SelectionName, TopologySpec};

/// The topology's network, its ports' queues from `queues`.
pub(super) fn build(sc: &Scenario, queues: &Queues) -> Result<Network, ScenarioError> {
    let switch_q = || queues.default_switch();
    Ok(match &sc.topology {
        TopologySpec::Star(t) => {
            let access = LinkSpec {
                rate: t.rate,
                delay: t.delay,
            };
            let hosts = t.hosts.names("h");
            topology::star(&hosts, access, &switch_q, &|| queues.host(t.rate)).0
        }
        TopologySpec::Dumbbell(t) => {
            let access = LinkSpec {
                rate: t.rate,
                delay: t.delay,
            };
            let left = t.left.names("l");
            let right = t.right.names("r");
            let bottleneck = LinkSpec {
                rate: t.bottleneck_rate,
                delay: t.bottleneck_delay,
            };
            topology::dumbbell(&left, &right, access, bottleneck, &switch_q, &|| {
                queues.host(t.rate)
            })
        }
        t => graph(sc, t, queues)?,
    })
}

/// A topology described as a graph (every kind but star and dumbbell).
fn graph(sc: &Scenario, t: &TopologySpec, queues: &Queues) -> Result<Network, ScenarioError> {
    let g = t.graph().ok_or_else(|| {
        ScenarioError::new(
            "topology",
            "cannot be built as a graph of hosts and switches",
        )
    })?;
    let h = g.hosts.len() as NodeId;
    let switches: Vec<(String, u8)> = g
        .switches
        .iter()
        .cloned()
        .zip(g.tiers.iter().copied())
        .collect();
    let links: Vec<(NodeId, NodeId, LinkSpec)> = g
        .links
        .iter()
        .map(|l| {
            let spec = LinkSpec {
                rate: l.rate,
                delay: l.delay,
            };
            (l.a, l.b, spec)
        })
        .collect();
    let ecn = sc.queue.ecn_threshold;
    // A link end's queue: its host's NIC, or its switch port's discipline
    // with the end's own buffer or `[queue]`'s.
    let mut queue = |i: usize, end_b: bool| {
        let l = &g.links[i];
        let (node, own) = if end_b {
            (l.b, l.buffer_b)
        } else {
            (l.a, l.buffer_a)
        };
        if node < h {
            queues.host(l.rate)
        } else {
            let limit = own.unwrap_or(sc.queue.limit);
            queues.switch(sc.queue.discipline, limit, ecn, l.rate)
        }
    };
    let equal = sc.routing.paths == PathsName::EqualLength;
    let mut net = topology::graph(&g.hosts, &switches, &links, &mut queue, equal);
    for (i, a) in g.addrs.iter().enumerate() {
        if let Some(a) = a {
            net.set_addr(i as NodeId, *a);
        }
    }
    Ok(net)
}

/// `[host.addresses]`: hosts given an address of their own.
pub(super) fn addresses(sc: &Scenario, net: &mut Network, cx: &Cx) -> Result<(), ScenarioError> {
    for (name, text) in &sc.host.addresses {
        let path = format!("host.addresses.{name}");
        let h = cx.node(&path, name)?;
        let a = Addr::parse(text)
            .ok_or_else(|| ScenarioError::new(&path, format!("{text:?} is not an IPv4 address")))?;
        net.set_addr(h, a);
    }
    Ok(())
}

/// Each switch's choice among equal routes (`[routing]`), salts and
/// streams keyed by node id.
pub(super) fn routing(sc: &Scenario, net: &mut Network, seed: u64) {
    let t = &sc.topology;
    // One salt for every switch under "ecmp_unsalted" (a stream of its
    // own, so the per-switch salts stay what they were).
    let shared_salt = Salt::from_u64(Rng::stream(seed, &[RNG_ECMP, u64::MAX]).next_u64());
    let graph = t.graph();
    let hosts = graph.map_or(0, |g| g.hosts.len());
    for u in 0..net.nodes.len() as NodeId {
        if net.is_host(u) {
            continue;
        }
        let sel = match sc.routing.of(&net.nodes[u as usize].name) {
            SelectionName::Ecmp => Selection::FlowHash(Salt::from_u64(
                Rng::stream(seed, &[RNG_ECMP, u as u64]).next_u64(),
            )),
            SelectionName::EcmpUnsalted => Selection::FlowHash(shared_salt),
            SelectionName::First => Selection::First,
            SelectionName::AddressBits => Selection::DstAddr {
                offset: graph.map_or(0, |g| g.offsets[u as usize - hosts]),
            },
            SelectionName::DestinationId => {
                // A fat tree's switches of tier t choose by the (t - 1)th
                // base-k/2 digit of the host index; elsewhere the index itself.
                let tier = graph.map_or(0, |g| g.tiers[u as usize - hosts]) as u32;
                let divisor = match t {
                    TopologySpec::FatTree(f) if tier >= 1 => {
                        (f.k / 2).max(1).saturating_pow(tier - 1).max(1)
                    }
                    _ => 1,
                };
                Selection::DstIndex { divisor }
            }
            SelectionName::Spray => Selection::Spray,
        };
        net.set_selection(u, sel);
    }
}
