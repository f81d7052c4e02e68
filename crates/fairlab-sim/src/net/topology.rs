//! Topology builders: the shapes of the source documents' experiments.

use super::{Network, NodeId, NodeKind};
use crate::queue::Queue;
use crate::units::{BitsPerSec, Time};

/// A link's parameters.
#[derive(Clone, Copy, Debug)]
pub struct LinkSpec {
    pub rate: BitsPerSec,
    pub delay: Time,
}

/// One switch `sw` with every host attached by its own link.
/// Returns the network and the switch id.
pub fn star(
    host_names: &[String],
    link: LinkSpec,
    switch_queue: &dyn Fn() -> Queue,
    host_queue: &dyn Fn() -> Queue,
) -> (Network, NodeId) {
    let mut net = Network::new();
    let hosts: Vec<NodeId> = host_names
        .iter()
        .map(|n| net.add_node(n, NodeKind::Host))
        .collect();
    let sw = net.add_node("sw", NodeKind::Switch);
    for h in hosts {
        net.connect(h, sw, link.rate, link.delay, host_queue(), switch_queue());
    }
    net.compute_routes();
    (net, sw)
}

/// Left hosts on switch `swL`, right hosts on `swR`, the two switches joined
/// by the bottleneck link.
pub fn dumbbell(
    left: &[String],
    right: &[String],
    access: LinkSpec,
    bottleneck: LinkSpec,
    switch_queue: &dyn Fn() -> Queue,
    host_queue: &dyn Fn() -> Queue,
) -> Network {
    let mut net = Network::new();
    let l: Vec<NodeId> = left
        .iter()
        .map(|n| net.add_node(n, NodeKind::Host))
        .collect();
    let r: Vec<NodeId> = right
        .iter()
        .map(|n| net.add_node(n, NodeKind::Host))
        .collect();
    let swl = net.add_node("swL", NodeKind::Switch);
    let swr = net.add_node("swR", NodeKind::Switch);
    net.connect(
        swl,
        swr,
        bottleneck.rate,
        bottleneck.delay,
        switch_queue(),
        switch_queue(),
    );
    for h in l {
        net.connect(
            h,
            swl,
            access.rate,
            access.delay,
            host_queue(),
            switch_queue(),
        );
    }
    for h in r {
        net.connect(
            h,
            swr,
            access.rate,
            access.delay,
            host_queue(),
            switch_queue(),
        );
    }
    net.compute_routes();
    net
}

/// Any network: `hosts` (nodes 0..), then `switches` with their tiers
/// (0: none; see [`Network::set_tier`]), then `links` between node numbers
/// in order. `queue(i, end_b)` makes the output queue at link `i`'s `a`
/// end (`false`) or `b` end (`true`). With `equal_length`, routes follow
/// equal-length routing over the tiers.
pub fn graph(
    hosts: &[String],
    switches: &[(String, u8)],
    links: &[(NodeId, NodeId, LinkSpec)],
    queue: &mut dyn FnMut(usize, bool) -> Queue,
    equal_length: bool,
) -> Network {
    let mut net = Network::new();
    for h in hosts {
        net.add_node(h, NodeKind::Host);
    }
    for (name, tier) in switches {
        let s = net.add_node(name, NodeKind::Switch);
        if *tier > 0 {
            net.set_tier(s, *tier);
        }
    }
    for (i, &(a, b, l)) in links.iter().enumerate() {
        let qa = queue(i, false);
        let qb = queue(i, true);
        net.connect(a, b, l.rate, l.delay, qa, qb);
    }
    net.set_equal_length(equal_length);
    net.compute_routes();
    net
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{BufferLimit, DropTail};

    fn q() -> Queue {
        Queue::DropTail(DropTail::new(BufferLimit::Packets(10)))
    }

    #[test]
    fn dumbbell_routes_cross_the_bottleneck() {
        let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
        let link = LinkSpec {
            rate: BitsPerSec(1_000_000_000),
            delay: Time::from_us(10),
        };
        let net = dumbbell(&names("l", 2), &names("r", 2), link, link, &q, &q);
        let l0 = net.node_by_name("l0").unwrap();
        let r1 = net.node_by_name("r1").unwrap();
        let swl = net.node_by_name("swL").unwrap();
        let swr = net.node_by_name("swR").unwrap();
        assert_eq!(net.ports[net.next_hops(l0, r1)[0] as usize].peer, swl);
        assert_eq!(net.ports[net.next_hops(swl, r1)[0] as usize].peer, swr);
        assert_eq!(net.ports[net.next_hops(swr, r1)[0] as usize].peer, r1);
        // Host l1 never forwards for others: l0 -> l1 goes via swL.
        let l1 = net.node_by_name("l1").unwrap();
        assert_eq!(net.ports[net.next_hops(swl, l1)[0] as usize].peer, l1);
    }
}
