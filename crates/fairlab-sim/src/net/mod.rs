//! The network: nodes (hosts and switches), output ports with their queues,
//! full-duplex point-to-point links, and static shortest-path routes.

mod packet;
mod port;
mod routing;
pub mod topology;

pub use packet::{flags, NodeId, Packet, PortId, MAX_SACK_BLOCKS, NO_TS, TCP_IP_HEADER};
pub use port::{Port, PortStats};

use crate::queue::Queue;
use crate::units::{BitsPerSec, Time};

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

/// Nodes, ports and routes. Built once by a topology builder, then only the
/// ports' queues and counters change during a run.
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Host node ids in creation order; a host's position here is its host index.
    pub hosts: Vec<NodeId>,
    host_index: Vec<u32>,
    /// `routes[node * hosts.len() + host_index]`: the output port toward that host.
    routes: Vec<PortId>,
}

pub const NO_ROUTE: PortId = PortId::MAX;

impl Network {
    pub fn new() -> Network {
        Network::default()
    }

    pub fn add_node(&mut self, name: &str, kind: NodeKind) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            name: name.to_string(),
            kind,
            ports: Vec::new(),
        });
        if kind == NodeKind::Host {
            self.host_index.push(self.hosts.len() as u32);
            self.hosts.push(id);
        } else {
            self.host_index.push(u32::MAX);
        }
        id
    }

    /// Connects `a` and `b` with a full-duplex link: one output port at each end.
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

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| i as NodeId)
    }

    pub fn is_host(&self, n: NodeId) -> bool {
        self.nodes[n as usize].kind == NodeKind::Host
    }

    /// The output port of `node` toward `peer`, if they are linked.
    pub fn port_toward(&self, node: NodeId, peer: NodeId) -> Option<PortId> {
        self.nodes[node as usize]
            .ports
            .iter()
            .copied()
            .find(|&p| self.ports[p as usize].peer == peer)
    }

    /// Computes every route (call after the last `connect`).
    pub fn compute_routes(&mut self) {
        self.routes = routing::shortest_paths(self);
    }

    /// The output port at `node` for a packet to host node `dst`.
    #[inline]
    pub fn route(&self, node: NodeId, dst: NodeId) -> PortId {
        let h = self.host_index[dst as usize] as usize;
        self.routes[node as usize * self.hosts.len() + h]
    }
}
