//! The simulation: a network, the TCP connections on its hosts, the
//! workloads driving them, and the event loop that moves packets.
//!
//! A packet's path, as the code follows it: a socket emits it into the
//! outbox → [`Simulation::inject`] puts it in the host's NIC queue →
//! [`Simulation::start_tx`] serializes it onto the link and schedules its
//! arrival one serialization plus one propagation delay later → at a switch,
//! [`Simulation::forward`] routes it into an output queue (or drops it) → at
//! the destination host, [`Simulation::deliver`] hands it to the socket.

use crate::engine::{EventQueue, Rng};
use crate::net::{Network, NodeKind, Packet, PortId};
use crate::queue::QueueDiscipline;
use crate::transport::tcp::TcpSocket;
use crate::units::{Serializer, Time};
use crate::workload::{AppAction, ConnApp, Workload};

/// What can happen.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The port finished serializing a packet: the wire is free.
    TxDone(PortId),
    /// Packet `pkt` (in the packet slab) reaches the far end of `port`'s link.
    Arrive { port: PortId, pkt: u32 },
    /// A wake-up for one side of a connection (0 active, 1 passive).
    Timer { conn: u32, side: u8 },
    /// A workload starts.
    Start { workload: u32 },
    /// A workload's own timer.
    WakeUp { workload: u32, token: u32 },
    /// Time to sample queue occupancies.
    Sample,
    /// A host hands a packet (in the slab) to its NIC after its processing jitter.
    HostTx(u32),
    /// A UDP source sends its next datagram.
    UdpSend { workload: u32 },
}

// Heap entries are a 16-byte key and the event: keep events at 12 bytes.
const _: () = assert!(std::mem::size_of::<Event>() == 12);

/// A TCP connection: both endpoints and the workload it serves.
#[derive(Clone, Debug)]
pub struct Conn {
    /// `[active opener, passive listener]`.
    pub sock: [TcpSocket; 2],
    timer_at: [Option<Time>; 2],
    pub app: ConnApp,
    /// Which side sends the bulk of the data (1 = passive: incast servers).
    pub data_side: usize,
    pub opened: Option<Time>,
}

impl Conn {
    pub fn new(active: TcpSocket, passive: TcpSocket, app: ConnApp, data_side: usize) -> Conn {
        Conn {
            sock: [active, passive],
            timer_at: [None, None],
            app,
            data_side,
            opened: None,
        }
    }
    pub fn sender(&self) -> &TcpSocket {
        &self.sock[self.data_side]
    }
    pub fn receiver(&self) -> &TcpSocket {
        &self.sock[1 - self.data_side]
    }
    pub fn timeouts(&self) -> u64 {
        self.sock[0].stats.timeouts + self.sock[1].stats.timeouts
    }
}

/// Packets between two places (on a wire, in a host's jitter delay), so
/// that events carry a 4-byte handle instead of the packet: the event heap
/// moves 32-byte entries whatever a packet grows to.
#[derive(Clone, Debug, Default)]
pub struct PacketSlab {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketSlab {
    #[inline]
    pub fn put(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                i
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        }
    }
    #[inline]
    pub fn take(&mut self, id: u32) -> Packet {
        self.free.push(id);
        self.slots[id as usize]
    }
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }
}

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
#[derive(Clone, Copy, Debug)]
struct Tx {
    done_at: Time,
    done_seq: u64,
    state: TxState,
    /// The port's rate, divided out once (see `units::Serializer`).
    ser: Serializer,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum TxState {
    #[default]
    Idle,
    Scheduled,
    Deferred,
}

/// Whole-run packet counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets handed to a host NIC by a socket.
    pub packets_sent: u64,
    pub data_packets_sent: u64,
    /// Link traversals started (one per packet per hop).
    pub packet_hops: u64,
    pub packets_delivered: u64,
    pub data_packets_delivered: u64,
    pub drops: u64,
    pub data_drops: u64,
}

/// Optional time series, off unless the scenario asks.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub throughput_bin: Option<Time>,
    /// Per connection: payload bytes delivered to the data receiver per bin.
    pub flow_bins: Vec<Vec<u64>>,
    pub queue_sample: Option<Time>,
    /// (time, port, bytes, packets)
    pub queue_samples: Vec<(Time, PortId, u64, u64)>,
}

pub struct Simulation {
    pub net: Network,
    pub conns: Vec<Conn>,
    pub workloads: Vec<Workload>,
    pub events: EventQueue<Event>,
    pub packets: PacketSlab,
    /// Per port, its transmitter.
    tx: Vec<Tx>,
    pub counters: Counters,
    pub series: Series,
    /// Stop at this time even if workloads are not done.
    pub stop_at: Option<Time>,
    pub seed: u64,
    pub profile: &'static str,
    outbox: Vec<Packet>,
    actions: Vec<AppAction>,
    end: Time,
    bounded_left: usize,
    counted: Vec<bool>,
    /// Host send jitter: per-host RNG streams and the last release time.
    jitter: Time,
    host_rng: Vec<Rng>,
    host_release: Vec<Time>,
    /// Workload of each UDP flow, by flow id - 2 x connections.
    udp_of_flow: Vec<u32>,
    /// Connections open with a three-way handshake (else established at once).
    pub handshake: bool,
}

impl Simulation {
    pub fn new(
        net: Network,
        conns: Vec<Conn>,
        workloads: Vec<Workload>,
        stop_at: Option<Time>,
        seed: u64,
        profile: &'static str,
        series: Series,
    ) -> Simulation {
        let mut events = EventQueue::new();
        for (i, w) in workloads.iter().enumerate() {
            events.schedule(w.start_time(), Event::Start { workload: i as u32 });
        }
        if series.queue_sample.is_some() {
            events.schedule(Time::ZERO, Event::Sample);
        }
        let bounded_left = workloads.iter().filter(|w| w.bounded()).count();
        let workloads_len = workloads.len();
        let mut series = series;
        if series.throughput_bin.is_some() {
            series.flow_bins = vec![Vec::new(); conns.len()];
        }
        Simulation {
            tx: net
                .ports
                .iter()
                .map(|p| Tx {
                    done_at: Time::ZERO,
                    done_seq: 0,
                    state: TxState::Idle,
                    ser: p.rate.serializer(),
                })
                .collect(),
            net,
            conns,
            workloads,
            events,
            packets: PacketSlab::default(),
            counters: Counters::default(),
            series,
            stop_at,
            seed,
            profile,
            outbox: Vec::with_capacity(64),
            actions: Vec::with_capacity(64),
            end: Time::ZERO,
            bounded_left,
            counted: vec![false; workloads_len],
            jitter: Time::ZERO,
            host_rng: Vec::new(),
            host_release: Vec::new(),
            udp_of_flow: Vec::new(),
            handshake: true,
        }
    }

    /// Each packet a host emits reaches its NIC after a uniform random delay
    /// in [0, `jitter`], in order (see `HostSpec::send_jitter`). One RNG
    /// stream per host, derived from `seed`.
    pub fn set_host_jitter(&mut self, jitter: Time, seed: u64, key: u64) {
        self.jitter = jitter;
        let n = self.net.nodes.len();
        self.host_rng = (0..n as u64)
            .map(|i| Rng::stream(seed, &[key, i]))
            .collect();
        self.host_release = vec![Time::ZERO; n];
    }

    /// Registers the UDP flows (their ids follow the TCP flow keys) and
    /// turns on reordering checks at switch ports.
    pub fn index_flows(&mut self) {
        let base = 2 * self.conns.len();
        let mut udp = Vec::new();
        for (i, w) in self.workloads.iter().enumerate() {
            if let Workload::Udp(u) = w {
                debug_assert_eq!(u.flow as usize, base + udp.len());
                udp.push(i as u32);
            }
        }
        let keys = base + udp.len();
        self.udp_of_flow = udp;
        for p in &mut self.net.ports {
            if self.net.nodes[p.node as usize].kind == NodeKind::Switch {
                p.last_departed = vec![0; keys];
            }
        }
    }

    /// Simulated time at which the run ended.
    pub fn end_time(&self) -> Time {
        self.end
    }

    pub fn now(&self) -> Time {
        self.events.now()
    }

    /// Runs to completion.
    pub fn run(&mut self) {
        self.run_with_progress(&mut |_| {});
    }

    /// Runs to completion, calling `progress(fraction)` now and then.
    pub fn run_with_progress(&mut self, progress: &mut dyn FnMut(f64)) {
        let stop = self.stop_at.unwrap_or(Time::MAX);
        let mut countdown: u32 = 1 << 16;
        // The place in the event order up to which events have run when the
        // loop ends.
        let horizon = loop {
            let Some((_, ev)) = self.events.pop_until(stop) else {
                break match self.events.peek_time() {
                    None => (Time::MAX, u64::MAX),
                    Some(_) => (stop, u64::MAX),
                };
            };
            self.dispatch(ev);
            // Sized workloads all done and no time limit: stop here.
            if self.bounded_left == 0 && self.stop_at.is_none() {
                break self.events.cursor();
            }
            countdown -= 1;
            if countdown == 0 {
                countdown = 1 << 16;
                progress(self.fraction_done());
            }
        };
        for p in 0..self.tx.len() {
            self.settle_tx(p as PortId, horizon);
        }
        self.end = self.stop_at.unwrap_or(self.events.now());
        progress(1.0);
    }

    fn fraction_done(&self) -> f64 {
        if let Some(s) = self.stop_at {
            return self.events.now().as_secs_f64() / s.as_secs_f64().max(1e-12);
        }
        let n = self.workloads.len().max(1) as f64;
        self.workloads.iter().map(|w| w.progress()).sum::<f64>() / n
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(p) => {
                debug_assert_eq!(self.tx[p as usize].state, TxState::Scheduled);
                self.tx[p as usize].state = TxState::Idle;
                self.start_tx(p);
            }
            Event::Arrive { port, pkt } => {
                let pkt = self.packets.take(pkt);
                let node = self.net.ports[port as usize].peer;
                if self.net.nodes[node as usize].kind == NodeKind::Switch {
                    self.forward(node, pkt);
                } else {
                    self.deliver(pkt);
                }
            }
            Event::Timer { conn, side } => self.on_timer(conn, side as usize),
            Event::Start { workload }
                if matches!(self.workloads[workload as usize], Workload::Udp(_)) =>
            {
                self.udp_send(workload);
            }
            Event::UdpSend { workload } => self.udp_send(workload),
            Event::Start { workload } => {
                let now = self.now();
                self.workloads[workload as usize].start(now, &mut self.actions);
                self.apply_actions();
            }
            Event::WakeUp { workload, token } => {
                let now = self.now();
                self.workloads[workload as usize].on_wakeup(token, now, &mut self.actions);
                self.apply_actions();
            }
            Event::Sample => self.sample_queues(),
            Event::HostTx(id) => {
                let pkt = self.packets.take(id);
                let out = self.net.route(pkt.src, pkt.dst);
                self.enqueue(out, pkt);
            }
        }
    }

    fn udp_send(&mut self, w: u32) {
        let Workload::Udp(u) = &mut self.workloads[w as usize] else {
            return;
        };
        let (pkt, gap) = u.emit();
        let now = self.events.now();
        self.events
            .schedule(now + gap, Event::UdpSend { workload: w });
        self.inject(pkt);
    }

    /// A `Deferred` port whose TxDone lies before `upto` in the event order
    /// becomes idle. That TxDone would have found the queue empty and
    /// called `dequeue` for nothing; some disciplines keep time or tidy up
    /// there (HCF's fixed periods, SFQ and DRR dropping emptied buckets from
    /// their round), so the call is made now, with the time it would have
    /// had. Nothing touched the queue in between: an arrival settles first.
    #[inline]
    fn settle_tx(&mut self, p: PortId, upto: (Time, u64)) {
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
    fn start_tx(&mut self, p: PortId) {
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
        let now = self.events.now();
        let tx = &mut self.tx[p as usize];
        let port = &mut self.net.ports[p as usize];
        let (held_pkts, held_bytes) = (port.queue.packets() as u64, port.queue.bytes());
        let Some(pkt) = port.queue.dequeue(now) else {
            return;
        };
        // Into the wire's slab at once, read from there: no second copy of
        // the packet lives on the stack.
        let id = self.packets.put(pkt);
        let pkt = self.packets.get(id);
        port.stats.integrate(now, held_pkts, held_bytes);
        if !port.last_departed.is_empty() {
            // A packet that arrived before the last one of its flow to leave
            // has been overtaken: it leaves out of order.
            let k = pkt.flow_key();
            if pkt.stamp < port.last_departed[k] {
                port.stats.reordered += 1;
            } else {
                port.last_departed[k] = pkt.stamp;
            }
        }
        let size = pkt.size();
        port.stats.deq_pkts += 1;
        port.stats.deq_bytes += size.get();
        let ser = tx.ser.time(size);
        debug_assert_eq!(ser, port.rate.serialization(size), "port rate changed");
        let arrive = now + ser + port.delay;
        self.counters.packet_hops += 1;
        tx.done_at = now + ser;
        tx.done_seq = self.events.reserve_seq();
        if port.queue.packets() > 0 {
            tx.state = TxState::Scheduled;
            self.events
                .schedule_with_seq(tx.done_at, tx.done_seq, Event::TxDone(p));
        } else {
            tx.state = TxState::Deferred;
        }
        self.events
            .schedule(arrive, Event::Arrive { port: p, pkt: id });
    }

    /// Puts a packet into an output queue, counting it or its drop.
    #[inline]
    fn enqueue(&mut self, p: PortId, mut pkt: Packet) {
        let now = self.events.now();
        self.settle_tx(p, self.events.cursor());
        let port = &mut self.net.ports[p as usize];
        port.arrivals += 1;
        pkt.stamp = port.arrivals;
        let size = pkt.size().get();
        let data = pkt.is_data();
        let timeout_rtx = pkt.timeout_rtx;
        port.stats.timeout_rtx_pkts += timeout_rtx as u64;
        let (held_pkts, held_bytes) = (port.queue.packets() as u64, port.queue.bytes());
        match port.queue.enqueue(pkt, now) {
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
                self.start_tx(p);
            }
            Err(_) => {
                port.stats.drop_pkts += 1;
                port.stats.drop_bytes += size;
                port.stats.timeout_rtx_drops += timeout_rtx as u64;
                self.counters.drops += 1;
                if data {
                    self.counters.data_drops += 1;
                }
            }
        }
    }

    /// A switch routes an arriving packet to its output port.
    #[inline]
    fn forward(&mut self, node: u32, pkt: Packet) {
        let out = self.net.route(node, pkt.dst);
        debug_assert_ne!(out, crate::net::NO_ROUTE);
        self.enqueue(out, pkt);
    }

    /// A host's socket emits a packet.
    #[inline]
    fn inject(&mut self, pkt: Packet) {
        self.counters.packets_sent += 1;
        if pkt.is_data() {
            self.counters.data_packets_sent += 1;
        }
        if self.jitter > Time::ZERO {
            let h = pkt.src as usize;
            let now = self.events.now();
            let d = Time(self.host_rng[h].below_inclusive(self.jitter.0));
            let at = (now + d).max(self.host_release[h]);
            self.host_release[h] = at;
            let id = self.packets.put(pkt);
            self.events.schedule(at, Event::HostTx(id));
            return;
        }
        let out = self.net.route(pkt.src, pkt.dst);
        self.enqueue(out, pkt);
    }

    fn flush_outbox(&mut self) {
        let mut out = std::mem::take(&mut self.outbox);
        for pkt in out.drain(..) {
            self.inject(pkt);
        }
        self.outbox = out;
    }

    /// Keeps exactly one useful wake-up pending per socket (see `engine::queue`).
    #[inline]
    fn sync_timer(&mut self, c: u32, side: usize) {
        let conn = &mut self.conns[c as usize];
        if let Some(d) = conn.sock[side].next_deadline() {
            match conn.timer_at[side] {
                Some(t) if t <= d => {}
                _ => {
                    let d = d.max(self.events.now());
                    conn.timer_at[side] = Some(d);
                    self.events.schedule_timer(
                        d,
                        Event::Timer {
                            conn: c,
                            side: side as u8,
                        },
                    );
                }
            }
        }
    }

    fn on_timer(&mut self, c: u32, side: usize) {
        let now = self.now();
        let conn = &mut self.conns[c as usize];
        if conn.timer_at[side] != Some(now) {
            return; // superseded by an earlier wake-up that already ran
        }
        conn.timer_at[side] = None;
        conn.sock[side].on_timer(now, &mut self.outbox);
        let aborted = conn.sock[side].aborted();
        let app = conn.app;
        self.flush_outbox();
        self.sync_timer(c, side);
        if aborted {
            self.workloads[app.workload as usize].on_aborted(app.index);
            self.after_workload_step(app.workload);
        }
    }

    /// A packet reaches its destination host.
    fn deliver(&mut self, pkt: Packet) {
        self.counters.packets_delivered += 1;
        if pkt.is_data() {
            self.counters.data_packets_delivered += 1;
        }
        if pkt.has(crate::net::flags::UDP) {
            let w = self.udp_of_flow[pkt.conn as usize - 2 * self.conns.len()];
            if let Workload::Udp(u) = &mut self.workloads[w as usize] {
                u.delivered += 1;
            }
            return;
        }
        let now = self.now();
        let c = pkt.conn;
        let side = if pkt.from_passive { 0 } else { 1 };
        let conn = &mut self.conns[c as usize];
        let outcome = conn.sock[side].on_segment(now, &pkt, &mut self.outbox);
        let app = conn.app;
        let is_data_receiver = side != conn.data_side;
        self.flush_outbox();
        self.sync_timer(c, side);
        let passive = side == 1;
        if outcome.established {
            self.workloads[app.workload as usize].on_established(
                app.index,
                passive,
                now,
                &mut self.actions,
            );
        }
        if outcome.delivered > 0 {
            if is_data_receiver {
                if let Some(bin) = self.series.throughput_bin {
                    let b = (now.0 / bin.0) as usize;
                    let bins = &mut self.series.flow_bins[c as usize];
                    if bins.len() <= b {
                        bins.resize(b + 1, 0);
                    }
                    bins[b] += outcome.delivered;
                }
            }
            self.workloads[app.workload as usize].on_delivered(
                app.index,
                passive,
                outcome.delivered,
                now,
                &mut self.actions,
            );
        }
        if !self.actions.is_empty() {
            self.apply_actions();
        }
        self.after_workload_step(app.workload);
    }

    /// Bookkeeping after a workload step: per-round timeouts, and whether
    /// the run can end.
    fn after_workload_step(&mut self, w: u32) {
        let wi = w as usize;
        if let Workload::Incast(inc) = &mut self.workloads[wi] {
            if inc.records_accounted < inc.records.len() {
                let total: u64 = inc
                    .conns
                    .iter()
                    .map(|&c| self.conns[c as usize].timeouts())
                    .sum();
                let last = inc.records.len() - 1;
                inc.records[last].timeouts = total - inc.timeouts_mark;
                inc.timeouts_mark = total;
                inc.records_accounted = inc.records.len();
            }
        }
        let wl = &self.workloads[wi];
        if wl.bounded() && wl.finished() && !self.counted[wi] {
            self.counted[wi] = true;
            self.bounded_left -= 1;
        }
    }

    fn apply_actions(&mut self) {
        let now = self.now();
        while let Some(a) = self.actions.pop() {
            match a {
                AppAction::Connect { conn } if !self.handshake => {
                    let cn = &mut self.conns[conn as usize];
                    cn.opened = Some(now);
                    cn.sock[0].open_established(now);
                    cn.sock[1].open_established(now);
                    let app = cn.app;
                    let wl = &mut self.workloads[app.workload as usize];
                    wl.on_established(app.index, true, now, &mut self.actions);
                    wl.on_established(app.index, false, now, &mut self.actions);
                }
                AppAction::Connect { conn } => {
                    let cn = &mut self.conns[conn as usize];
                    cn.opened = Some(now);
                    cn.sock[0].connect(now, &mut self.outbox);
                    self.flush_outbox();
                    self.sync_timer(conn, 0);
                }
                AppAction::Write {
                    conn,
                    passive,
                    bytes,
                } => {
                    let side = usize::from(passive);
                    self.conns[conn as usize].sock[side].write(now, bytes, &mut self.outbox);
                    self.flush_outbox();
                    self.sync_timer(conn, side);
                }
                AppAction::WakeUp {
                    workload,
                    delay,
                    token,
                } => {
                    self.events
                        .schedule(now + delay, Event::WakeUp { workload, token });
                }
            }
        }
    }

    fn sample_queues(&mut self) {
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
            p.queue.for_each(&mut |pkt| n += u64::from(pkt.is_data()));
        }
        for e in self.events.pending() {
            match e {
                Event::Arrive { pkt, .. } | Event::HostTx(pkt) => {
                    n += u64::from(self.packets.get(*pkt).is_data())
                }
                _ => {}
            }
        }
        n
    }
}
