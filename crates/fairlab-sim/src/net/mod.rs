//! The network: nodes (hosts and switches), output ports with their queues,
//! full-duplex point-to-point links, host addresses, and routing by sets of
//! equal-cost next hops with a selection step per node.
//!
//! A packet's path through `net`: at its source host, [`Network::route`]
//! picks one of the host's ports (a single-homed host has one); at each
//! switch, the switch's FIB maps the packet's destination host to a
//! next-hop set and the switch's [`Selection`] picks one port of the set
//! from the packet (its destination address or its flow hash).

mod port;
mod routing;
pub mod shaper;
pub mod topology;

pub use crate::packet::NodeId;
pub use port::{Port, PortStats, PORT_PACKET_BYTES};
pub use routing::{Selection, GROUP_FIBS_FROM_BYTES};
pub use shaper::Shaper;

use crate::packet::{Addr, Packet};
use crate::queue::Queue;
use crate::units::{BitsPerSec, Time};

/// Index of an output port in the network.
pub type PortId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Output ports, in the order links were attached.
    pub ports: Vec<PortId>,
}

/// Nodes, ports, addresses and routes. Built once by a topology builder,
/// then only the ports' queues and counters (and spraying counters) change
/// during a run.
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Host node ids in creation order; a host's position here is its host index.
    pub hosts: Vec<NodeId>,
    host_index: Vec<u32>,
    /// Per host index: its address.
    addrs: Vec<Addr>,
    routes: routing::Routes,
    /// Per port, its shaper; empty while no port has one. Beside the ports
    /// rather than in them: a field in [`Port`] grows every port and costs
    /// the per-packet path of every run (half a percent of an incast's
    /// instructions, measured), and most runs shape nothing.
    shapers: Vec<Option<Box<Shaper>>>,
}

pub const NO_ROUTE: PortId = PortId::MAX;

impl Network {
    pub fn new() -> Network {
        Network::default()
    }

    /// Adds a node; a host gets the next address of the builders' plan
    /// ([`Addr::nth_host`]) until [`Network::set_addr`] says otherwise.
    pub fn add_node(&mut self, name: &str, kind: NodeKind) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            name: name.to_string(),
            kind,
            ports: Vec::new(),
        });
        if kind == NodeKind::Host {
            let i = self.hosts.len() as u32;
            self.host_index.push(i);
            self.hosts.push(id);
            self.addrs.push(Addr::nth_host(i).unwrap_or_default());
        } else {
            self.host_index.push(u32::MAX);
        }
        id
    }

    /// Connects `a` and `b` with a full-duplex link: one output port at each
    /// end. The two ports are `p` and `p ^ 1`.
    pub fn connect(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate: BitsPerSec,
        delay: Time,
        queue_a: Queue,
        queue_b: Queue,
    ) -> (PortId, PortId) {
        let pa = self.ports.len() as PortId;
        self.ports.push(Port::new(a, b, rate, delay, queue_a));
        let pb = self.ports.len() as PortId;
        self.ports.push(Port::new(b, a, rate, delay, queue_b));
        self.nodes[a as usize].ports.push(pa);
        self.nodes[b as usize].ports.push(pb);
        (pa, pb)
    }

    /// Puts `shaper` between port `p`'s queue and its wire (or takes it
    /// away). Before the [`crate::sim::Simulation`] is built: it reads
    /// which ports have one once.
    pub fn set_shaper(&mut self, p: PortId, shaper: Option<Shaper>) {
        if self.shapers.len() < self.ports.len() {
            self.shapers.resize_with(self.ports.len(), || None);
        }
        self.shapers[p as usize] = shaper.map(Box::new);
    }

    /// Port `p`'s shaper, if it has one.
    #[inline]
    pub fn shaper(&self, p: PortId) -> Option<&Shaper> {
        self.shapers.get(p as usize)?.as_deref()
    }

    /// The rate port `p` serves at in the long run: its link's, or its
    /// shaper's where that is slower (a token bucket's burst only lets
    /// packets through sooner).
    pub fn serving_rate(&self, p: PortId) -> BitsPerSec {
        let link = self.ports[p as usize].rate;
        self.shaper(p).map_or(link, |s| link.min(s.rate()))
    }

    /// Port `p` and its shaper, if it has one.
    #[inline]
    pub fn port_and_shaper_mut(&mut self, p: PortId) -> (&mut Port, Option<&mut Shaper>) {
        let shaper = match self.shapers.get_mut(p as usize) {
            Some(s) => s.as_deref_mut(),
            None => None,
        };
        (&mut self.ports[p as usize], shaper)
    }

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| i as NodeId)
    }

    pub fn is_host(&self, n: NodeId) -> bool {
        self.nodes[n as usize].kind == NodeKind::Host
    }

    /// The host index of host node `n` (its position in [`Network::hosts`]).
    #[inline]
    pub fn host_index(&self, n: NodeId) -> Option<u32> {
        let i = self.host_index[n as usize];
        (i != u32::MAX).then_some(i)
    }

    /// The address of host node `n`.
    pub fn addr(&self, n: NodeId) -> Addr {
        self.addrs[self.host_index[n as usize] as usize]
    }

    /// Gives host node `n` its own address (the scenario's, not the plan's).
    pub fn set_addr(&mut self, n: NodeId, a: Addr) {
        let i = self.host_index[n as usize] as usize;
        self.addrs[i] = a;
    }

    /// The output port of `node` toward `peer`, if they are linked.
    pub fn port_toward(&self, node: NodeId, peer: NodeId) -> Option<PortId> {
        self.nodes[node as usize]
            .ports
            .iter()
            .copied()
            .find(|&p| self.ports[p as usize].peer == peer)
    }

    /// Sets how `node` picks among equal-cost next hops (before
    /// [`Network::compute_routes`]); switches default to [`Selection::FlowHash`]
    /// under a salt of their own, hosts to [`Selection::First`].
    pub fn set_selection(&mut self, node: NodeId, s: Selection) {
        self.routes.set_selection(self.nodes.len(), node, s);
    }

    /// Computes every route (call after the last `connect`).
    pub fn compute_routes(&mut self) {
        let prev = std::mem::take(&mut self.routes);
        self.routes = routing::compute(self, prev);
    }

    /// The output port at `node` for `pkt` ([`NO_ROUTE`] when its
    /// destination is unreachable from `node`), for a packet that starts
    /// there (a host's own).
    #[inline]
    pub fn route(&mut self, node: NodeId, pkt: &Packet) -> PortId {
        let dst_host = self.host_index[pkt.dst as usize];
        let addrs = &self.addrs;
        self.routes
            .select(node, dst_host, pkt, false, || addrs[dst_host as usize])
    }

    /// As [`Network::route`], for a packet that arrived over port `from`
    /// (equal-length routing looks at where it came from).
    #[inline]
    pub fn route_in(&mut self, node: NodeId, pkt: &Packet, from: PortId) -> PortId {
        let dst_host = self.host_index[pkt.dst as usize];
        let climb = self.routes.climbs(from);
        let addrs = &self.addrs;
        self.routes
            .select(node, dst_host, pkt, climb, || addrs[dst_host as usize])
    }

    /// The port [`Network::route_in`] would pick, without changing any
    /// state (a sprayed packet: the first of its set). For prefetching.
    #[inline]
    pub fn peek_route_in(&self, node: NodeId, pkt: &Packet, from: PortId) -> PortId {
        let dst_host = self.host_index[pkt.dst as usize];
        let climb = self.routes.climbs(from);
        let addrs = &self.addrs;
        self.routes
            .peek(node, dst_host, pkt, climb, || addrs[dst_host as usize])
    }

    /// Whether [`Network::peek_route_in`] always gives the port
    /// [`Network::route_in`] will (no node sprays).
    pub fn routes_stateless(&self) -> bool {
        self.routes.stateless()
    }

    /// The first of three routing hints for a packet that will arrive at
    /// `node` over `from` (see `sim::prefetch`): the destination's host
    /// index, `node`'s FIB index, whether `from` climbs. Reads only the
    /// packet.
    #[inline(always)]
    pub fn prefetch_route_keys(&self, node: NodeId, pkt: &Packet, from: PortId) {
        if let Some(h) = self.host_index.get(pkt.dst as usize) {
            crate::engine::prefetch(h);
        }
        self.routes.prefetch_keys(node, from);
    }

    /// The second: the FIB record, the destination's group and slot.
    /// Reads what the first hinted.
    #[inline(always)]
    pub fn prefetch_route_tables(&self, node: NodeId, pkt: &Packet) {
        if let Some(&dst_host) = self.host_index.get(pkt.dst as usize) {
            self.routes.prefetch_tables(node, dst_host);
        }
    }

    /// The fourth: the next-hop set the entry names. Reads the entry.
    #[inline(always)]
    pub fn prefetch_route_set(&self, node: NodeId, pkt: &Packet, from: PortId) {
        if let Some(&dst_host) = self.host_index.get(pkt.dst as usize) {
            self.routes
                .prefetch_set(node, dst_host, self.routes.climbs(from));
        }
    }

    /// The third: the FIB entry [`Network::route_in`] will read for `pkt`.
    #[inline(always)]
    pub fn prefetch_route_in(&self, node: NodeId, pkt: &Packet, from: PortId) {
        let Some(&dst_host) = self.host_index.get(pkt.dst as usize) else {
            return;
        };
        if let Some(e) = self
            .routes
            .entry_ptr(node, dst_host, self.routes.climbs(from))
        {
            crate::engine::prefetch_bytes(e, 4);
        }
    }

    /// Gives `node` its tier (hosts 0, switches next to hosts 1, and up),
    /// before [`Network::compute_routes`]; equal-length routing needs them.
    pub fn set_tier(&mut self, node: NodeId, tier: u8) {
        self.routes.set_tier(self.nodes.len(), node, tier);
    }

    /// Switch tables indexed by destination group (`Some(true)`) or by
    /// destination host (`Some(false)`), before
    /// [`Network::compute_routes`]; `None` (the default) chooses by size.
    /// The routes are the same either way.
    pub fn set_group_fibs(&mut self, on: Option<bool>) {
        self.routes.set_group_fibs(on);
    }

    /// Equal-length routing (see `routing.rs`), before
    /// [`Network::compute_routes`].
    pub fn set_equal_length(&mut self, on: bool) {
        self.routes.set_equal_length(on);
    }

    /// The ports a packet of flow hash `hash` crosses from host `src` to
    /// host `dst` ([`Network::path`] of such a packet).
    pub fn path_to(&self, src: NodeId, dst: NodeId, hash: u32) -> Vec<PortId> {
        let probe = Packet {
            dst,
            hash,
            ..Packet::blank()
        };
        self.path(src, &probe)
    }

    /// The ports a packet like `pkt` crosses from host `src` to its
    /// destination, without changing any state: a sprayed packet is shown
    /// on the first port of each tie. Empty if it cannot get there.
    pub fn path(&self, src: NodeId, pkt: &Packet) -> Vec<PortId> {
        let dst_host = self.host_index[pkt.dst as usize];
        let addr = self.addrs[dst_host as usize];
        let mut out = Vec::new();
        let mut node = src;
        let mut climb = false;
        while node != pkt.dst && out.len() <= self.nodes.len() {
            if node != src && self.is_host(node) {
                return Vec::new();
            }
            let p = self.routes.peek(node, dst_host, pkt, climb, || addr);
            if p == NO_ROUTE {
                return Vec::new();
            }
            out.push(p);
            climb = self.routes.climbs(p);
            node = self.ports[p as usize].peer;
        }
        if node == pkt.dst {
            out
        } else {
            Vec::new()
        }
    }

    /// The next-hop set at `node` toward host node `dst`, in the order the
    /// links were attached (empty: unreachable).
    pub fn next_hops(&self, node: NodeId, dst: NodeId) -> &[PortId] {
        self.routes.set_of(
            node,
            self.host_index[dst as usize],
            &self.nodes[node as usize],
        )
    }

    /// Bytes of routing state (FIB entries and next-hop sets).
    pub fn route_state_bytes(&self) -> usize {
        self.routes.state_bytes()
    }
}
