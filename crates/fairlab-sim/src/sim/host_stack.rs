//! The host's sending stack above each NIC ([`crate::queue::Nic`]): which
//! transmit queue a socket's packet takes (Linux's `netdev_pick_tx`), each
//! flow's packets counted below TCP until their transmission completes
//! (Linux's `sk_wmem_alloc`, read by `ooo_okay` and by TCP Small Queues),
//! completions reported to the sockets, a new hash on a retransmission
//! timeout (`sk_rethink_txhash`), and explicit load balancing (a new socket
//! on the queue with the fewest sockets, idle ones moved periodically).
//!
//! Present only when the scenario asks for something beyond the plain
//! model (a ring, BQL, an arbitration other than per-packet round robin, a
//! queue choice other than "hash", a qdisc other than drop-tail, or TCP
//! Small Queues): a run without any of these keeps its per-packet path.

use super::drops::{HOST_INPUT, INPUT_BITS};
use super::{Event, Simulation};
use crate::engine::Rng;
use crate::net::PortId;
use crate::packet::Packet;
use crate::queue::{Nic, Queue};
use crate::units::Time;

pub use crate::vocab::TxqSelect;

/// No queue cached yet.
const NO_QUEUE: u16 = u16::MAX;

/// One flow direction's state at the host it leaves from.
#[derive(Clone, Copy, Debug)]
struct FlowTx {
    /// Its cached transmit queue (`sk_tx_queue_mapping`), or [`NO_QUEUE`].
    txq: u16,
    /// Times its queue changed.
    moves: u32,
    /// The NIC port it leaves by (valid once `txq` is set).
    port: PortId,
    /// Its transmit hash: the flow hash, until a timeout redraws it.
    hash: u32,
    /// Bytes of it in its host's qdisc and ring, the one on the wire
    /// included (freed at its transmission's completion).
    bytes: u64,
}

/// The sending stacks of every host.
#[derive(Clone, Debug)]
pub struct HostStack {
    select: TxqSelect,
    /// Every this often, idle sockets move to the least-loaded queue
    /// (`LeastLoaded` only; zero: never).
    rebalance: Time,
    /// Per flow key (2 x endpoint + side).
    flows: Vec<FlowTx>,
    /// Per port: open sockets placed on each of its queues, and the flows
    /// they are (`LeastLoaded`; a flow leaves when it has ended).
    sockets: Vec<Vec<u32>>,
    open: Vec<Vec<u32>>,
    /// The ports that have placed a socket, in that order.
    placed: Vec<PortId>,
    /// Per node: the stream new transmit hashes come from (`Rethink`;
    /// Linux's `net_tx_rndhash`, a random per call).
    rng: Vec<Rng>,
    /// Some socket runs TCP Small Queues: completions are reported to
    /// sockets.
    tsq: bool,
}

impl HostStack {
    /// The queue `flow`'s next packet takes at NIC `nic` on port `port`
    /// (Linux's `netdev_pick_tx`), remembered as its cached queue.
    fn pick(&mut self, flow: usize, port: PortId, nic: &Nic) -> usize {
        let f = &mut self.flows[flow];
        let q = match self.select {
            TxqSelect::Hash => nic.queue_of(f.hash),
            // `__netdev_pick_tx`: the cached queue, unless there is none or
            // the packet is `ooo_okay` (no other packet of the socket in
            // the qdisc or ring: `sk_wmem_alloc == 0` in
            // `tcp_transmit_skb`), when it is picked again by hash.
            TxqSelect::Cached | TxqSelect::Rethink => {
                if f.txq == NO_QUEUE || f.bytes == 0 {
                    nic.queue_of(f.hash)
                } else {
                    f.txq as usize
                }
            }
            TxqSelect::LeastLoaded => {
                if f.txq == NO_QUEUE {
                    let s = &mut self.sockets[port as usize];
                    if s.is_empty() {
                        s.resize(nic.len(), 0);
                        self.placed.push(port);
                    }
                    let q = least(s);
                    s[q] += 1;
                    self.open[port as usize].push(flow as u32);
                    q
                } else {
                    f.txq as usize
                }
            }
        };
        if f.txq != NO_QUEUE && f.txq as usize != q {
            f.moves += 1;
        }
        f.txq = q as u16;
        f.port = port;
        q
    }
}

/// The queue with the fewest sockets (the first of equals).
fn least(s: &[u32]) -> usize {
    let mut best = 0;
    for (i, &n) in s.iter().enumerate() {
        if n < s[best] {
            best = i;
        }
    }
    best
}

impl Simulation {
    /// Gives every host the sending stack: queue choice `select`, idle
    /// sockets rebalanced every `rebalance` (`LeastLoaded`; zero: never),
    /// completions reported to sockets if `tsq`; new transmit hashes from
    /// per-host streams of `seed` under component `key`. Call after
    /// [`Simulation::index_flows`] (the flows' hashes start from theirs).
    pub fn set_host_stack(
        &mut self,
        select: TxqSelect,
        rebalance: Time,
        tsq: bool,
        seed: u64,
        key: u64,
    ) {
        let flows = (0..2 * self.endpoints.len())
            .map(|k| FlowTx {
                txq: NO_QUEUE,
                moves: 0,
                port: 0,
                hash: self.endpoints[k / 2].flow_hash(k % 2),
                bytes: 0,
            })
            .collect();
        let nodes = self.net.nodes.len() as u64;
        self.host_stack = Some(Box::new(HostStack {
            select,
            rebalance,
            flows,
            sockets: vec![Vec::new(); self.net.ports.len()],
            open: vec![Vec::new(); self.net.ports.len()],
            placed: Vec::new(),
            rng: if select == TxqSelect::Rethink {
                (0..nodes).map(|n| Rng::stream(seed, &[key, n])).collect()
            } else {
                Vec::new()
            },
            tsq,
        }));
        if select == TxqSelect::LeastLoaded && rebalance > Time::ZERO {
            self.events.schedule(rebalance, Event::Rebalance);
        }
    }

    /// Hands packet `id`, sent by its host, to NIC port `out` through the
    /// host stack: its queue chosen, its bytes counted below TCP. Gives
    /// the packet back if the qdisc refused it; a packet the qdisc pushed
    /// out to take it is lost unheard (its socket only frees its bytes),
    /// and the sender of the admitted one reduces its window (NET_XMIT_CN).
    pub(super) fn send_through_stack(&mut self, out: PortId, id: u32) -> Result<(), Packet> {
        let p = self.packets.get(id);
        let (flow, size) = (p.flow as usize, p.size().get());
        let hs = self.host_stack.as_deref_mut().expect("a host stack");
        if hs.select == TxqSelect::LeastLoaded && hs.flows[flow].txq == NO_QUEUE {
            // A new socket: the sockets of ended flows leave first.
            self.close_ended(out);
        }
        let hs = self.host_stack.as_deref_mut().expect("a host stack");
        if let Queue::Nic(nic) = &mut self.net.ports[out as usize].queue {
            let q = hs.pick(flow, out, nic);
            nic.steer(q);
        }
        let r = self.enqueue(out, id, HOST_INPUT);
        let hs = self.host_stack.as_deref_mut().expect("a host stack");
        match r {
            Ok(()) => {
                hs.flows[flow].bytes += size;
                Ok(())
            }
            Err(d) => {
                let stamp =
                    self.net.ports[out as usize].stats.arrivals << INPUT_BITS | HOST_INPUT as u64;
                if d.stamp == stamp {
                    return Err(d);
                }
                // Pushed out: the arrival is queued, `d` is freed.
                hs.flows[flow].bytes += size;
                let v = &mut hs.flows[d.flow_key()];
                v.bytes -= d.size().get();
                let now = self.now();
                // Only TCP hears what its host's stack does with its packets.
                if let Some(c) = self.endpoints[d.endpoint() as usize].as_tcp_mut() {
                    c.sock[d.side()].on_tx_freed(d.size().get());
                }
                if let Some(c) = self.endpoints[flow >> 1].as_tcp_mut() {
                    c.sock[flow & 1].on_local_congestion(now);
                }
                Ok(())
            }
        }
    }

    /// Port `p`, a NIC whose transmissions complete explicitly, finished
    /// one: the NIC frees its descriptor and moves on to the next packet;
    /// then the flow's bytes below TCP are freed and its socket told
    /// (`tcp_wfree`: TCP Small Queues may send more).
    pub(super) fn tx_completed(&mut self, p: PortId) {
        let now = self.now();
        let Queue::Nic(nic) = &mut self.net.ports[p as usize].queue else {
            unreachable!("completions at NIC ports only");
        };
        let done = nic.complete(now);
        self.start_tx(p);
        let (Some(h), Some(hs)) = (done, self.host_stack.as_deref_mut()) else {
            return;
        };
        // Still in the store: its arrival at the far end comes after this
        // (scheduled after the completion's reserved place).
        let flow = self.packets.get(h.id).flow as usize;
        let size = h.size as u64;
        hs.flows[flow].bytes -= size;
        if hs.tsq {
            let e = (flow >> 1) as u32;
            let Some(c) = self.endpoints[e as usize].as_tcp_mut() else {
                return;
            };
            let step = c.on_tx_done(now, flow & 1, size, &mut self.out);
            if step.sync {
                self.finish_step(e, step);
            }
        }
    }

    /// Whether a retransmission timeout redraws the socket's hash.
    #[inline]
    pub(super) fn rethinks(&self) -> bool {
        self.host_stack
            .as_deref()
            .is_some_and(|h| h.select == TxqSelect::Rethink)
    }

    /// `sk_rethink_txhash`: flow `flow`'s socket timed out; it draws a new
    /// random transmit hash (never zero: `net_tx_rndhash`), which its next
    /// packet picks a queue by once none of its packets is below TCP.
    pub(super) fn rethink(&mut self, flow: usize) {
        let (a, b) = self.endpoints[flow >> 1].hosts();
        let host = if flow & 1 == 0 { a } else { b };
        let hs = self.host_stack.as_deref_mut().expect("a host stack");
        let h = (hs.rng[host as usize].next_u64() >> 32) as u32;
        hs.flows[flow].hash = h.max(1);
    }

    /// The sockets at NIC port `port` whose flow has ended (the workload
    /// says so: a sized transfer delivered, a short flow done) close: they
    /// leave their queue's count.
    fn close_ended(&mut self, port: PortId) {
        let hs = self.host_stack.as_deref_mut().expect("a host stack");
        let (endpoints, workloads) = (&self.endpoints, &self.workloads);
        let ended = |f: u32| {
            let app = endpoints[(f >> 1) as usize].app();
            workloads[app.workload as usize]
                .flow_end(app.index)
                .is_some()
        };
        let (open, sockets, flows) = (
            &mut hs.open[port as usize],
            &mut hs.sockets[port as usize],
            &hs.flows,
        );
        open.retain(|&f| {
            let gone = ended(f);
            if gone {
                sockets[flows[f as usize].txq as usize] -= 1;
            }
            !gone
        });
    }

    /// Explicit load balancing, every `rebalance`: at each NIC, each open
    /// socket with nothing below TCP (none of its packets in the qdisc or
    /// ring, so moving cannot reorder them) moves to the queue with the
    /// fewest open sockets, if that has at least two fewer than its own
    /// (so the move evens them).
    pub(super) fn rebalance(&mut self) {
        let ports = self.host_stack.as_deref().map_or(0, |h| h.placed.len());
        for i in 0..ports {
            let port = self.host_stack.as_deref().expect("a host stack").placed[i];
            self.close_ended(port);
            let hs = self.host_stack.as_deref_mut().expect("a host stack");
            let (open, s) = (&hs.open[port as usize], &mut hs.sockets[port as usize]);
            for &f in open {
                let f = &mut hs.flows[f as usize];
                if f.bytes > 0 {
                    continue;
                }
                let q = least(s);
                if s[f.txq as usize] > s[q] + 1 {
                    s[f.txq as usize] -= 1;
                    s[q] += 1;
                    f.txq = q as u16;
                    f.moves += 1;
                }
            }
        }
        let hs = self.host_stack.as_deref_mut().expect("a host stack");
        let period = hs.rebalance;
        if !self.events.is_empty() {
            let now = self.now();
            self.events.schedule(now + period, Event::Rebalance);
        }
    }

    /// Flow `flow`'s transmit queue at its host and how often it moved:
    /// (NIC port, queue, moves); `None` where its host's NIC has a single
    /// queue.
    pub fn tx_queue_of(&self, flow: u32) -> Option<(PortId, usize, u32)> {
        let f = flow as usize;
        if let Some(t) = self.host_stack.as_deref().map(|h| h.flows[f]) {
            if t.txq != NO_QUEUE {
                let Queue::Nic(nic) = &self.net.ports[t.port as usize].queue else {
                    return None;
                };
                return (nic.len() > 1).then_some((t.port, t.txq as usize, t.moves));
            }
        }
        // Never sent through a stack that remembers: its hash's pick.
        let ep = &self.endpoints[f >> 1];
        let (a, b) = ep.hosts();
        let host = if f & 1 == 0 { a } else { b };
        let &port = self.net.nodes[host as usize].ports.first()?;
        match &self.net.ports[port as usize].queue {
            Queue::Nic(nic) if nic.len() > 1 => Some((port, nic.queue_of(ep.flow_hash(f & 1)), 0)),
            _ => None,
        }
    }
}
