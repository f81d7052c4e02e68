//! The packet path through ports: a packet enters an output queue (or is
//! dropped, in the network or, at a host, locally), is serialized onto the
//! wire when the transmitter is free, and reaches the far end one
//! serialization plus one propagation delay later; a switch forwards it by
//! its routes. Also the queue-occupancy samples.

use super::drops::{Dropped, TraceRow, HOST_INPUT, INPUT_BITS, INPUT_MASK};
use super::{ArrivalAt, Event, Simulation};
use crate::engine::EventQueue;
use crate::net::{NodeId, NodeKind, PortId, Shaper};
use crate::packet::Packet;
use crate::queue::{Queue, QueueDiscipline};
use crate::units::{Bytes, Serializer, Time};

/// A port's transmitter. A port is busy from the moment a packet starts
/// serializing until its TxDone event, at (`done_at`, `done_seq`) in the
/// event order. That event is only scheduled when something waits for the
/// wire (`Scheduled`): when the queue is empty as serialization starts, the
/// sequence number is reserved but no event enters the heap (`Deferred`);
/// the port then reads busy to every event ordered before (`done_at`,
/// `done_seq`) and free to every event after, as if the TxDone had popped
/// in between and found nothing to send. An arrival into a `Deferred` busy
/// port schedules the TxDone at its reserved place. Most packets leave a
/// port with an empty queue behind them (every hop of an ACK, most hops of
/// data outside the bottleneck), so this saves a heap push and pop for
/// each.
///
/// A port with a shaper whose gate holds its next packet is `Scheduled`
/// too, with a GateOpen at the time the gate opens (see `gate_closed`); the
/// wire is free meanwhile, but nothing may start on it.
///
/// One aligned line: a transmitter a large topology finds out of cache
/// costs one miss, not two.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(super) struct Tx {
    pub(super) done_at: Time,
    pub(super) done_seq: u64,
    pub(super) state: TxState,
    /// The port's rate, divided out once (see `units::Serializer`).
    pub(super) ser: Serializer,
    /// Link-layer bytes each packet takes on this wire beyond its IP
    /// packet (`[link] framing`; 0 by default).
    pub(super) framing: u64,
    /// Whether the port has a shaper (`Network::shaper`), read here where
    /// `transmit` looks anyway.
    pub(super) shaped: bool,
    /// Whether the port keeps a reordering table (`Port::last_departed`
    /// not empty; `Simulation::index_flows`): a departure reads it here,
    /// not from the port's fourth line.
    pub(super) reorders: bool,
    /// What the packets it sends meet at the far end, for their arrival
    /// events (in what was padding: the record stays 64 bytes).
    pub(super) at: ArrivalAt,
}

const _: () = assert!(std::mem::size_of::<Tx>() == 64);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum TxState {
    #[default]
    Idle,
    Scheduled,
    Deferred,
}

impl Simulation {
    /// A `Deferred` port whose TxDone lies before `upto` in the event order
    /// becomes idle. That TxDone would have found the queue empty and
    /// called `dequeue` for nothing; some disciplines keep time or tidy up
    /// there (HCF's fixed periods, SFQ and DRR dropping emptied buckets from
    /// their round), so the call is made now, with the time it would have
    /// had. Nothing touched the queue in between: an arrival settles first.
    #[inline(always)]
    pub(super) fn settle_tx(&mut self, p: PortId, upto: (Time, u64)) {
        let tx = &mut self.tx[p as usize];
        if tx.state == TxState::Deferred && (tx.done_at, tx.done_seq) < upto {
            tx.state = TxState::Idle;
            let none = self.net.ports[p as usize].queue.dequeue(tx.done_at);
            debug_assert!(none.is_none(), "deferred port with a queued packet");
        }
    }

    /// Starts serializing the next queued packet if the wire is free.
    /// Inlined: most calls (an arrival into a busy port) end at the state
    /// check, without the frame of `transmit`.
    #[inline(always)]
    pub(super) fn start_tx(&mut self, p: PortId) {
        let tx = &mut self.tx[p as usize];
        match tx.state {
            TxState::Idle => self.transmit(p),
            TxState::Scheduled => {}
            TxState::Deferred => {
                // `enqueue` settled the port, so it is still busy, and a
                // packet has just entered its empty queue: the TxDone is
                // needed after all, at the place it would have had.
                debug_assert!(self.events.cursor() < (tx.done_at, tx.done_seq));
                tx.state = TxState::Scheduled;
                self.events
                    .schedule_with_seq(tx.done_at, tx.done_seq, Event::TxDone(p));
            }
        }
    }

    /// Puts the next queued packet of idle port `p` on the wire.
    #[inline(never)]
    fn transmit(&mut self, p: PortId) {
        debug_assert_eq!(self.tx[p as usize].shaped, self.net.shaper(p).is_some());
        if self.tx[p as usize].shaped {
            return self.transmit_shaped(p);
        }
        self.put_on_wire::<false>(p);
    }

    /// [`Simulation::transmit`] through a shaper: nothing while its gate is
    /// closed; the packet that passes pays its tokens.
    #[inline(never)]
    fn transmit_shaped(&mut self, p: PortId) {
        let now = self.events.now();
        let (port, shaper) = self.net.port_and_shaper_mut(p);
        let shaper = shaper.expect("a shaped port has a shaper");
        let tx = &mut self.tx[p as usize];
        if gate_closed(shaper, &port.queue, tx, &mut self.events, p, now) {
            return;
        }
        self.put_on_wire::<true>(p);
    }

    /// Dequeues the next packet of idle port `p` and serializes it; on a
    /// `SHAPED` port, its shaper takes the packet's tokens.
    #[inline(always)]
    fn put_on_wire<const SHAPED: bool>(&mut self, p: PortId) {
        let now = self.events.now();
        let tx = &mut self.tx[p as usize];
        let (port, shaper) = if SHAPED {
            self.net.port_and_shaper_mut(p)
        } else {
            (&mut self.net.ports[p as usize], None)
        };
        let (held_pkts, held_bytes) = (port.queue.packets() as u64, port.queue.bytes());
        let Some(held) = port.queue.dequeue(now) else {
            return;
        };
        let id = held.id;
        port.stats.integrate(now, held_pkts, held_bytes);
        if tx.reorders {
            // A packet that arrived before the last one of its flow to leave
            // has been overtaken: it leaves out of order.
            let pkt = self.packets.get(id);
            let k = pkt.flow_key();
            if pkt.stamp < port.last_departed[k] {
                port.stats.reordered += 1;
            } else {
                port.last_departed[k] = pkt.stamp;
            }
        }
        let size = held.size();
        if let Some(s) = shaper {
            s.charge(size, now);
        }
        port.stats.deq_pkts += 1;
        port.stats.deq_bytes += size.get();
        // On the wire the packet takes its link-layer framing too.
        let wire = Bytes(size.get() + tx.framing);
        let ser = tx.ser.time(wire);
        debug_assert_eq!(ser, port.rate.serialization(wire), "port rate changed");
        let arrive = now + ser + port.delay;
        self.counters.packet_hops += 1;
        tx.done_at = now + ser;
        tx.done_seq = self.events.reserve_seq();
        if port.queue.packets() > 0 || port.queue.completes() {
            // Something waits for the wire, or the NIC reports the
            // completion (`sim::host_stack`).
            tx.state = TxState::Scheduled;
            self.events
                .schedule_with_seq(tx.done_at, tx.done_seq, Event::TxDone(p));
        } else {
            tx.state = TxState::Deferred;
        }
        self.events.schedule(
            arrive,
            Event::Arrive {
                port: p,
                pkt: id,
                at: tx.at,
            },
        );
        if self.watch.is_some() {
            self.watch_transmitting(p, id, wire, now + ser);
        }
    }

    /// The port watch (runs with Radon streams) sees packet `id` join port
    /// `p`'s queue, which now holds `bytes` in `pkts` packets. Out of line:
    /// the enqueue path of every other run stays as it was.
    #[cold]
    #[inline(never)]
    fn watch_enqueued(&mut self, p: PortId, id: u32, now: Time, bytes: u64, pkts: u64) {
        let tx = &self.tx[p as usize];
        let busy = tx.state != TxState::Idle && tx.done_at > now;
        let queued = bytes + pkts * tx.framing;
        if let Some(w) = self.watch.as_deref_mut() {
            w.enqueued(p as usize, id, now, queued, busy);
        }
    }

    /// The port watch (and the packet captures) see packet `id` of `wire`
    /// bytes start on port `p`'s wire, its last bit leaving at `done`.
    #[cold]
    #[inline(never)]
    fn watch_transmitting(&mut self, p: PortId, id: u32, wire: Bytes, done: Time) {
        if let Some(w) = self.watch.as_deref_mut() {
            w.transmitting(p as usize, id, wire.get(), done);
            if let Some(c) = w.capture.as_deref_mut() {
                let port = &self.net.ports[p as usize];
                let (pkt, now) = (self.packets.get(id), self.events.now());
                c.transmitting(p, (port.node, port.peer), pkt, now, done + port.delay);
            }
        }
    }

    /// Puts packet `id`, come in on input `input` (its index among the
    /// ports entering the node; [`HOST_INPUT`] for a host's own packets,
    /// which are not counted by input) into an output
    /// queue, counting it or its drop; gives the dropped packet back (out of
    /// the store), which may be one the queue held before.
    #[inline]
    pub(super) fn enqueue(&mut self, p: PortId, id: u32, input: u32) -> Result<(), Packet> {
        let now = self.events.now();
        self.settle_tx(p, self.events.cursor());
        let pkt = self.packets.get_mut(id);
        let port = &mut self.net.ports[p as usize];
        port.stats.arrivals += 1;
        // The arrival count above the input index: stamps still order
        // arrivals, and a pushed-out packet tells where it came from.
        debug_assert!(port.stats.arrivals < 1 << (64 - INPUT_BITS));
        pkt.stamp = (port.stats.arrivals << INPUT_BITS) | u64::from(input);
        let size = pkt.size().get();
        let data = pkt.is_data();
        let flow = pkt.flow;
        let timeout_rtx = pkt.timeout_rtx;
        if timeout_rtx {
            // Rare, and kept with the port's cold counts: added to as 0 or 1,
            // it wrote their line on every arrival.
            port.stats.timeout_rtx_pkts += 1;
        }
        let (held_pkts, held_bytes) = (port.queue.packets() as u64, port.queue.bytes());
        match port.queue.enqueue(pkt, id, now) {
            Ok(()) => {
                port.stats.integrate(now, held_pkts, held_bytes);
                port.stats.enq_pkts += 1;
                port.stats.enq_bytes += size;
                let b = port.queue.bytes();
                let n = port.queue.packets() as u64;
                if b > port.stats.max_bytes {
                    port.stats.max_bytes = b;
                }
                if n > port.stats.max_pkts {
                    port.stats.max_pkts = n;
                }
                if self.watch.is_some() {
                    self.watch_enqueued(p, id, now, b, n);
                }
                if input != HOST_INPUT {
                    self.drops.admitted(p, input, flow, size);
                }
                self.start_tx(p);
                Ok(())
            }
            Err(dropped) => {
                port.stats.drop_pkts += 1;
                port.stats.drop_bytes += size;
                port.stats.timeout_rtx_drops += timeout_rtx as u64;
                if self.net.nodes[port.node as usize].kind == NodeKind::Host {
                    self.counters.local_drops += 1;
                } else {
                    self.counters.drops += 1;
                    if data {
                        self.counters.data_drops += 1;
                    }
                }
                let dropped = self.packets.take(dropped);
                if input != HOST_INPUT {
                    let d = Dropped {
                        input: (dropped.stamp & INPUT_MASK) as u32,
                        flow: dropped.flow,
                        bytes: dropped.size().get(),
                    };
                    self.drops.dropped(p, input, flow, size, d);
                }
                Err(dropped)
            }
        }
    }

    /// A switch routes arriving packet `id`, come in over port `from`, to
    /// its output port, and counts the arrival by input port (see
    /// [`super::drops`]).
    #[inline]
    pub(super) fn forward(&mut self, node: u32, id: u32, from: PortId) {
        let pkt = self.packets.get(id);
        let out = self.net.route_in(node, pkt, from);
        self.forward_to(out, id, from);
    }

    /// [`Simulation::forward`] once routed: to output port `out`.
    #[inline]
    pub(super) fn forward_to(&mut self, out: PortId, id: u32, from: PortId) {
        debug_assert_ne!(out, crate::net::NO_ROUTE);
        let input = self.drops.in_index[from as usize];
        if out == self.drops.trace_port {
            return self.forward_traced(out, id, input);
        }
        let _ = self.enqueue(out, id, input);
    }

    /// `forward` into the traced port: also a row per arrival, and one per
    /// packet it pushes out.
    #[inline(never)]
    fn forward_traced(&mut self, out: PortId, id: u32, input: u32) {
        let now = self.events.now();
        let q = &self.net.ports[out as usize].queue;
        let (queue_pkts, queue_bytes) = (q.packets() as u32, q.bytes());
        let pkt = *self.packets.get(id);
        let r = self.enqueue(out, id, input);
        let stamp = self.net.ports[out as usize].stats.arrivals << INPUT_BITS | u64::from(input);
        let row = |p: &Packet, admitted: bool| TraceRow {
            t: now,
            input: (p.stamp & INPUT_MASK) as u32,
            flow: p.flow,
            dst: p.dst,
            seq: p.seq,
            payload: p.payload,
            admitted,
            queue_pkts,
            queue_bytes,
        };
        let own_drop = matches!(&r, Err(d) if d.stamp == stamp);
        let mut arriving = pkt;
        arriving.stamp = stamp;
        self.drops.record(row(&arriving, !own_drop));
        if let Err(d) = r {
            if !own_drop {
                // Pushed out: a row of its own.
                self.drops.record(row(&d, false));
            }
        }
    }

    /// Packet `id`, come in over port `from`, reaches the switch's output
    /// queue after its forwarding jitter, in order per input port.
    #[inline(never)]
    pub(super) fn delay_forward(&mut self, from: PortId, id: u32) {
        let f = from as usize;
        let now = self.events.now();
        let d = Time(self.fwd_rng[f].below_inclusive(self.fwd_jitter.0));
        let at = (now + d).max(self.fwd_release[f]);
        self.fwd_release[f] = at;
        self.events.schedule(at, Event::Forward { from, pkt: id });
    }

    /// An endpoint on host `host` emits a packet; gives it back if the host's
    /// transmit queue refused it at once.
    #[inline]
    pub(super) fn inject(&mut self, host: NodeId, pkt: Packet) -> Result<(), Packet> {
        self.counters.packets_sent += 1;
        if pkt.is_data() {
            self.counters.data_packets_sent += 1;
        }
        if self.jitter > Time::ZERO {
            let h = host as usize;
            let now = self.events.now();
            let d = Time(self.host_rng[h].below_inclusive(self.jitter.0));
            let at = (now + d).max(self.host_release[h]);
            self.host_release[h] = at;
            let id = self.packets.put(pkt);
            self.events.schedule(at, Event::HostTx { host, pkt: id });
            return Ok(());
        }
        let out = self.net.route(host, &pkt);
        let id = self.packets.put(pkt);
        if self.host_stack.is_some() {
            return self.send_through_stack(out, id);
        }
        self.enqueue(out, id, HOST_INPUT)
    }

    pub(super) fn sample_queues(&mut self) {
        let now = self.now();
        for (i, p) in self.net.ports.iter().enumerate() {
            if self.net.nodes[p.node as usize].kind == NodeKind::Switch {
                self.series.queue_samples.push((
                    now,
                    i as PortId,
                    p.queue.bytes(),
                    p.queue.packets() as u64,
                ));
            }
        }
        if let Some(period) = self.series.queue_sample {
            // Stop sampling once nothing else is pending, or the run would never end.
            if !self.events.is_empty() {
                self.events.schedule(now + period, Event::Sample);
            }
        }
    }

    /// Data packets still in queues or on wires (for conservation checks).
    pub fn data_packets_in_flight(&self) -> u64 {
        let mut n = 0u64;
        for p in &self.net.ports {
            p.queue
                .for_each(&mut |id| n += u64::from(self.packets.get(id).is_data()));
        }
        for e in self.events.pending() {
            match e {
                Event::Arrive { pkt, .. }
                | Event::HostTx { pkt, .. }
                | Event::Forward { pkt, .. } => n += u64::from(self.packets.get(*pkt).is_data()),
                _ => {}
            }
        }
        n
    }
}

/// Whether `shaper` holds the next packet of idle port `p` (its queue
/// `queue`, its transmitter `tx`) at `now`: then the port sleeps until the
/// gate opens, in the `Scheduled` state with a GateOpen at that time (which
/// makes the port idle and calls `transmit` again, as the qdisc watchdog
/// reschedules the interface in Linux). Arrivals meanwhile leave it asleep
/// (`start_tx`); nothing polls. An empty queue is not held: `transmit` then
/// asks the queue for nothing, as on a port without a shaper, so that a
/// `Deferred` TxDone settled by `settle_tx` does what this one would have.
#[inline(never)]
fn gate_closed(
    shaper: &mut Shaper,
    queue: &Queue,
    tx: &mut Tx,
    events: &mut EventQueue<Event>,
    p: PortId,
    now: Time,
) -> bool {
    if queue.packets() == 0 {
        return false;
    }
    let head = || {
        queue
            .head_size()
            .expect("a TBF port runs drop-tail (checked by the lowering)")
    };
    match shaper.check(now, head) {
        Ok(()) => false,
        Err(open) => {
            debug_assert!(open > now, "a closed gate opens later");
            shaper.waits += 1;
            tx.state = TxState::Scheduled;
            events.schedule(open, Event::GateOpen(p));
            true
        }
    }
}
