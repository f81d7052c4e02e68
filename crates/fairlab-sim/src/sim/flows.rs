//! Naming flows: every endpoint's 5-tuple and hashes, and per-flow
//! reordering tables where a port's discipline can reorder.

use super::{Simulation, LISTEN_PORT, RNG_FLOW_HASH, RNG_PORTS};
use crate::engine::Rng;
use crate::net::{Network, NodeId, NodeKind};
use crate::packet::{Addr, FiveTuple, FlowHasher, EPHEMERAL_PORTS};

impl Simulation {
    /// Names every flow (5-tuple and flow hash, see
    /// [`Simulation::name_flows`]) and turns on reordering checks at switch
    /// ports whose discipline can reorder (a FIFO cannot: it needs no
    /// per-flow table), one entry per direction of each endpoint.
    pub fn index_flows(&mut self) {
        let keys = 2 * self.endpoints.len();
        self.name_flows();
        for (p, tx) in self.net.ports.iter_mut().zip(&mut self.tx) {
            if self.net.nodes[p.node as usize].kind == NodeKind::Switch && p.queue.can_reorder() {
                p.last_departed = vec![0; keys].into_boxed_slice();
                tx.reorders = true;
            }
        }
    }

    /// Gives every endpoint (connection, UDP flow...) its 5-tuple and every
    /// direction its flow hash, in endpoint order. The opening side takes the next ephemeral port of its
    /// host (Linux's range, from a start drawn from the host's own seeded
    /// stream, then consecutive); the listening side is on [`LISTEN_PORT`].
    /// The hash key is the run's, so each seed places flows anew.
    pub(super) fn name_flows(&mut self) {
        let hasher = {
            let mut r = Rng::stream(self.seed, &[RNG_FLOW_HASH]);
            FlowHasher::new(r.next_u64(), r.next_u64())
        };
        let span = (*EPHEMERAL_PORTS.end() - *EPHEMERAL_PORTS.start()) as u64 + 1;
        let mut next_port: Vec<Option<u16>> = vec![None; self.net.hosts.len()];
        let seed = self.seed;
        let mut ephemeral = |net: &Network, host: NodeId| -> u16 {
            let hi = net.host_index(host).expect("a host") as usize;
            let p = *next_port[hi].get_or_insert_with(|| {
                let off = Rng::stream(seed, &[RNG_PORTS, hi as u64]).below_inclusive(span - 1);
                *EPHEMERAL_PORTS.start() + off as u16
            });
            next_port[hi] = Some(if p == *EPHEMERAL_PORTS.end() {
                *EPHEMERAL_PORTS.start()
            } else {
                p + 1
            });
            p
        };
        let addr = |net: &Network, n: NodeId| -> Addr { net.addr(n) };
        for ep in &mut self.endpoints {
            let (a, b) = ep.hosts();
            let t = FiveTuple {
                src: addr(&self.net, a),
                dst: addr(&self.net, b),
                sport: ephemeral(&self.net, a),
                dport: LISTEN_PORT,
                proto: ep.protocol(),
            };
            ep.set_flow(t, &hasher);
        }
    }
}
