//! The simulation: a network, the endpoints on its hosts, the workloads
//! driving them, and the event loop that moves packets. One job per file:
//!
//! * this file: the event loop (events in (time, sequence) order, progress,
//!   stopping) and the dispatch of each event to its job;
//! * [`ports`]: the packet path through output ports (enqueue or drop, the
//!   transmitter, forwarding at switches, queue samples);
//! * [`endpoints`]: the glue between transports and the rest, the same for
//!   every kind of [`Endpoint`] (a step's wake-ups and outbox into the NIC,
//!   local drops, delivery to the endpoint a packet's flow names, what a
//!   step means passed on to its workload);
//! * [`host_stack`]: the hosts' sending stacks above their NICs (which
//!   transmit queue a packet takes, each flow's packets below TCP,
//!   completions reported to sockets), when a scenario asks for one;
//! * [`apps`]: workloads' actions and their bookkeeping after each step;
//! * [`flows`]: naming flows (5-tuples, flow hashes, reordering tables);
//! * [`slab`]: packets between places, behind 4-byte handles.
//!
//! A packet's path, as the code follows it: an endpoint emits it into the
//! outbox → `inject` puts it in the host's NIC queue (or hands it back:
//! a local drop the endpoint hears of) → `start_tx` serializes it onto the
//! link and schedules its arrival one serialization plus one propagation
//! delay later → at a switch, `forward` routes it into an output queue (or
//! drops it) → at the destination host, `deliver` hands it to its endpoint.

use crate::engine::{EventQueue, Rng};
use crate::net::{Network, NodeId, NodeKind, PortId};
use crate::packet::Packet;
use crate::transport::{Endpoint, Outbox};
use crate::units::{Bytes, Time};
use crate::workload::{AppAction, Workload};
use std::ops::ControlFlow;

mod apps;
pub mod capture;
pub mod drops;
mod endpoints;
mod flows;
mod host_stack;
mod ports;
mod prefetch;
mod slab;
mod watch;

pub use crate::transport::Conn;
pub use host_stack::{HostStack, TxqSelect};
use ports::{Tx, TxState};
pub use slab::PacketSlab;
pub use watch::PortWatch;

/// The port every workload's server side listens on (iperf's default).
pub const LISTEN_PORT: u16 = 5001;
/// RNG stream keys of the flow naming (distinct from the spec's 1..=5).
const RNG_FLOW_HASH: u64 = 0x46_4c_4f_57;
const RNG_PORTS: u64 = 0x50_4f_52_54;

/// What can happen.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The port finished serializing a packet: the wire is free.
    TxDone(PortId),
    /// A shaped port's gate opens for its next packet (`ports::gate_closed`):
    /// the wire was free meanwhile, and no transmission completes here (a
    /// NIC that reports completions must not hear of one).
    GateOpen(PortId),
    /// Packet `pkt` (in the packet slab) reaches the far end of `port`'s
    /// link, where it meets `at` (carried here from the port's transmitter,
    /// so that the arrival reads no table of its own).
    Arrive {
        port: PortId,
        pkt: u32,
        at: ArrivalAt,
    },
    /// A wake-up endpoint `endpoint` asked for; what `token` means is its own.
    Timer { endpoint: u32, token: u32 },
    /// A workload starts.
    Start { workload: u32 },
    /// A workload's own timer.
    WakeUp { workload: u32, token: u32 },
    /// Time to sample queue occupancies.
    Sample,
    /// Host `host` hands a packet (in the slab) to its NIC after its processing jitter.
    HostTx { host: NodeId, pkt: u32 },
    /// A switch hands a packet come in over port `from` to its output
    /// queue after its forwarding jitter.
    Forward { from: PortId, pkt: u32 },
    /// Time to move idle sockets to the least-loaded transmit queues.
    Rebalance,
}

// Queue entries are a 16-byte key and the event, aligned to 16 bytes: an
// event of up to 16 bytes costs no more room than one of 12 (32 either
// way); keep it there.
const _: () = assert!(std::mem::size_of::<Event>() <= 16);

/// Whole-run packet counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets handed to a host NIC by an endpoint.
    pub packets_sent: u64,
    pub data_packets_sent: u64,
    /// Link traversals started (one per packet per hop).
    pub packet_hops: u64,
    pub packets_delivered: u64,
    pub data_packets_delivered: u64,
    /// Drops in the network (switch ports).
    pub drops: u64,
    pub data_drops: u64,
    /// Packets a host's own transmit queue refused (the sender is told).
    pub local_drops: u64,
}

/// Optional time series, off unless the scenario asks.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub throughput_bin: Option<Time>,
    /// Per endpoint: payload bytes delivered to the data receiver per bin.
    pub flow_bins: Vec<Vec<u64>>,
    pub queue_sample: Option<Time>,
    /// (time, port, bytes, packets)
    pub queue_samples: Vec<(Time, PortId, u64, u64)>,
}

pub struct Simulation {
    pub net: Network,
    /// TCP connections, UDP flows...: packets name theirs by index.
    pub endpoints: Vec<Endpoint>,
    pub workloads: Vec<Workload>,
    pub events: EventQueue<Event>,
    pub packets: PacketSlab,
    /// Per port, its transmitter.
    tx: Vec<Tx>,
    pub counters: Counters,
    pub series: Series,
    /// Arrivals and drops by input port, drop runs, the drop trace.
    pub drops: drops::DropTally,
    /// Stop at this time even if workloads are not done.
    pub stop_at: Option<Time>,
    pub seed: u64,
    pub profile: &'static str,
    out: Outbox,
    /// Packets of the outbox being flushed that the host's queue refused.
    refused: Vec<Packet>,
    actions: Vec<AppAction>,
    end: Time,
    bounded_left: usize,
    counted: Vec<bool>,
    /// Host send jitter: per-host RNG streams and the last release time.
    jitter: Time,
    host_rng: Vec<Rng>,
    host_release: Vec<Time>,
    /// Switch forwarding jitter: per input port, an RNG stream and the
    /// last release time.
    fwd_jitter: Time,
    fwd_rng: Vec<Rng>,
    fwd_release: Vec<Time>,
    /// Per port, the largest backlog and delay, when asked
    /// ([`Simulation::watch_ports`]).
    pub watch: Option<Box<PortWatch>>,
    /// The hosts' sending stacks, when the scenario asks for more than the
    /// plain NIC model (see [`host_stack`]).
    pub host_stack: Option<Box<HostStack>>,
    /// Connections open with a three-way handshake (else established at once).
    pub handshake: bool,
    /// Workloads in start order (time, then index), and how many of them
    /// have had their start scheduled.
    start_order: Vec<u32>,
    started: usize,
    /// Whether the loop prefetches for the next events (large networks;
    /// see [`prefetch`]).
    prefetch: bool,
    /// The prefetcher's guess: (packet, the output port it will take).
    ahead: (u32, PortId),
    /// What the prefetcher last hinted.
    hinted: prefetch::Hinted,
}

/// What a packet meets at the far end of a port, resolved once per port so
/// that an arrival reads neither the port nor its peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    /// The host it is delivered to.
    Host,
    /// The switch that forwards it at once.
    Switch(NodeId),
    /// A switch that forwards it after its forwarding jitter.
    Delayed,
    /// A switch that forwards it at once, to this output port: the
    /// prefetcher routed it ahead of time (`prefetch`), where routing is
    /// stateless. Never a transmitter's.
    Routed(PortId),
}

/// An [`Arrival`] in 4 bytes, as a port's transmitter keeps it and its
/// arrival events carry it: a switch's node (below [`ArrivalAt::ROUTED`]),
/// an output port above it, or one of two marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrivalAt(u32);

impl ArrivalAt {
    const HOST: u32 = u32::MAX;
    const DELAYED: u32 = u32::MAX - 1;
    const ROUTED: u32 = 1 << 31;
    /// Output ports at or above this cannot be carried routed.
    const ROUTED_PORTS: u32 = Self::DELAYED - Self::ROUTED;

    fn pack(a: Arrival) -> ArrivalAt {
        ArrivalAt(match a {
            Arrival::Host => Self::HOST,
            Arrival::Delayed => Self::DELAYED,
            Arrival::Switch(node) => {
                assert!(node < Self::ROUTED, "node {node}: too many nodes");
                node
            }
            Arrival::Routed(out) => {
                debug_assert!(out < Self::ROUTED_PORTS);
                Self::ROUTED | out
            }
        })
    }

    #[inline(always)]
    fn unpack(self) -> Arrival {
        match self.0 {
            Self::HOST => Arrival::Host,
            Self::DELAYED => Arrival::Delayed,
            x if x >= Self::ROUTED => Arrival::Routed(x & !Self::ROUTED),
            node => Arrival::Switch(node),
        }
    }
}

impl Simulation {
    pub fn new(
        net: Network,
        endpoints: Vec<Endpoint>,
        workloads: Vec<Workload>,
        stop_at: Option<Time>,
        seed: u64,
        profile: &'static str,
        series: Series,
    ) -> Simulation {
        let mut events = EventQueue::new();
        // Workload `i` starts at (its start time, sequence number `i`), as
        // if every start were scheduled now; but only the next start is
        // pending at a time (see `Simulation::next_start`): a run of
        // 100,000 flows does not hold 100,000 events from the outset.
        for i in 0..workloads.len() {
            let seq = events.reserve_seq();
            debug_assert_eq!(seq, i as u64);
        }
        let mut start_order: Vec<u32> = (0..workloads.len() as u32).collect();
        start_order.sort_by_key(|&i| (workloads[i as usize].start_time(), i));
        if series.queue_sample.is_some() {
            events.schedule(Time::ZERO, Event::Sample);
        }
        let bounded_left = workloads.iter().filter(|w| w.bounded()).count();
        let workloads_len = workloads.len();
        let mut series = series;
        if series.throughput_bin.is_some() {
            series.flow_bins = vec![Vec::new(); endpoints.len()];
        }
        let drops = drops::DropTally::new(&net.ports, net.nodes.len(), 2 * endpoints.len());
        let prefetch = net.ports.len() >= prefetch::PREFETCH_PORTS;
        let hinted = prefetch::Hinted::new(
            net.ports.len() >= prefetch::DEEP_PORTS,
            Self::may_route_ahead(&net),
        );
        let mut sim = Simulation {
            drops,
            tx: net
                .ports
                .iter()
                .enumerate()
                .map(|(i, p)| Tx {
                    done_at: Time::ZERO,
                    done_seq: 0,
                    state: TxState::Idle,
                    ser: p.rate.serializer(),
                    framing: 0,
                    shaped: net.shaper(i as PortId).is_some(),
                    reorders: !p.last_departed.is_empty(),
                    at: ArrivalAt::pack(match net.nodes[p.peer as usize].kind {
                        NodeKind::Switch => Arrival::Switch(p.peer),
                        NodeKind::Host => Arrival::Host,
                    }),
                })
                .collect(),
            net,
            endpoints,
            workloads,
            events,
            packets: PacketSlab::default(),
            counters: Counters::default(),
            series,
            stop_at,
            seed,
            profile,
            out: Outbox::with_capacity(64),
            refused: Vec::new(),
            actions: Vec::with_capacity(64),
            end: Time::ZERO,
            bounded_left,
            counted: vec![false; workloads_len],
            jitter: Time::ZERO,
            host_rng: Vec::new(),
            host_release: Vec::new(),
            fwd_jitter: Time::ZERO,
            fwd_rng: Vec::new(),
            fwd_release: Vec::new(),
            watch: None,
            host_stack: None,
            handshake: true,
            start_order,
            started: 0,
            prefetch,
            ahead: (u32::MAX, 0),
            hinted,
        };
        sim.next_start();
        sim
    }

    /// Schedules the next workload start in (time, workload) order, at the
    /// sequence number reserved for it: one start pending at a time, each
    /// popping exactly where it would have, had all been scheduled at once.
    fn next_start(&mut self) {
        if let Some(&w) = self.start_order.get(self.started) {
            self.started += 1;
            let at = self.workloads[w as usize].start_time();
            self.events
                .schedule_with_seq(at, w as u64, Event::Start { workload: w });
        }
    }

    /// Every wire carries `framing` bytes of link layer with each packet
    /// (`[link] framing`): serialization counts them, queues do not.
    pub fn set_framing(&mut self, framing: Bytes) {
        for tx in &mut self.tx {
            tx.framing = framing.get();
        }
    }

    /// Keeps, per port, the largest backlog and delay (in wire bytes and
    /// time), for checks against their bounds.
    pub fn watch_ports(&mut self) {
        let n = self.net.ports.len();
        // A capture may have made the watch already.
        self.watch
            .get_or_insert_with(|| Box::new(PortWatch::new(n)))
            .bounds = true;
    }

    /// Link-layer bytes each packet takes on a wire beyond its IP packet.
    pub fn framing(&self) -> Bytes {
        Bytes(self.tx.first().map_or(0, |t| t.framing))
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

    /// Each packet a switch forwards reaches its output queue after a
    /// uniform random delay in [0, `jitter`], in order per input port (see
    /// `SwitchSpec::forwarding_jitter`). One RNG stream per port, derived
    /// from `seed`.
    pub fn set_forwarding_jitter(&mut self, jitter: Time, seed: u64, key: u64) {
        self.fwd_jitter = jitter;
        for tx in &mut self.tx {
            if matches!(tx.at.unpack(), Arrival::Switch(_)) {
                tx.at = ArrivalAt::pack(Arrival::Delayed);
            }
        }
        let n = self.net.ports.len();
        self.fwd_rng = (0..n as u64)
            .map(|i| Rng::stream(seed, &[key, i]))
            .collect();
        self.fwd_release = vec![Time::ZERO; n];
    }

    /// Whether the event loop prefetches for the next events: on by
    /// default on networks of 256 ports or more (see [`prefetch`]). A hint
    /// only; results are the same either way (tests and benchmarks turn it
    /// off to show so, and to measure it).
    pub fn set_prefetch(&mut self, on: bool) {
        self.prefetch = on;
    }

    /// Whether the prefetcher looks further ahead, a stage for each
    /// dependent read of routing: on by default on networks of 32,768
    /// ports or more (see [`prefetch`]). A hint only, like the prefetcher.
    pub fn set_prefetch_deep(&mut self, deep: bool) {
        self.hinted = prefetch::Hinted::new(deep, Self::may_route_ahead(&self.net));
    }

    /// Whether the prefetcher may route a switch arrival ahead of time and
    /// the arrival take that route ([`Arrival::Routed`]): where no node
    /// sprays, a route is a function of the input port and the packet's
    /// destination and hash, which do not change in flight, so routing a
    /// little earlier routes the same.
    fn may_route_ahead(net: &Network) -> bool {
        net.routes_stateless() && net.ports.len() < ArrivalAt::ROUTED_PORTS as usize
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
        let _ = self.run_until_stopped(&mut |f| {
            progress(f);
            ControlFlow::Continue(())
        });
    }

    /// As [`Simulation::run_with_progress`], but `progress` may stop the run
    /// (every 65536 events it is called): then this returns `Break` at once,
    /// and the simulation is left part-way, not finished.
    pub fn run_until_stopped(
        &mut self,
        progress: &mut dyn FnMut(f64) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
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
            if self.prefetch {
                self.prefetch_ahead();
            }
            self.dispatch(ev);
            // Sized workloads all done and no time limit: stop here.
            if self.bounded_left == 0 && self.stop_at.is_none() {
                break self.events.cursor();
            }
            countdown -= 1;
            if countdown == 0 {
                countdown = 1 << 16;
                progress(self.fraction_done())?;
            }
        };
        for p in 0..self.tx.len() {
            self.settle_tx(p as PortId, horizon);
        }
        self.drops.close_all();
        self.end = self.stop_at.unwrap_or(self.events.now());
        let _ = progress(1.0); // finished: too late to stop
        ControlFlow::Continue(())
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
                if self.net.ports[p as usize].queue.completes() {
                    return self.tx_completed(p);
                }
                self.start_tx(p);
            }
            Event::GateOpen(p) => {
                debug_assert_eq!(self.tx[p as usize].state, TxState::Scheduled);
                self.tx[p as usize].state = TxState::Idle;
                self.start_tx(p);
            }
            Event::Arrive { port, pkt, at } => {
                // `at.unpack()` spelled out as integer comparisons: matching
                // the unpacked enum here cost the incast 3.5 M instructions.
                if at.0 < ArrivalAt::ROUTED {
                    self.forward(at.0, pkt, port);
                } else if at.0 == ArrivalAt::HOST {
                    let pkt = self.packets.take(pkt);
                    self.deliver(pkt);
                } else if at.0 == ArrivalAt::DELAYED {
                    self.delay_forward(port, pkt);
                } else {
                    let out = at.0 & !ArrivalAt::ROUTED;
                    debug_assert_eq!(
                        out,
                        self.net.peek_route_in(
                            self.net.ports[port as usize].peer,
                            self.packets.get(pkt),
                            port
                        ),
                        "routed ahead differently"
                    );
                    self.forward_to(out, pkt, port);
                }
            }
            Event::Timer { endpoint, token } => self.on_timer(endpoint, token),
            Event::Start { workload } => {
                self.next_start();
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
            Event::Forward { from, pkt } => {
                let node = self.net.ports[from as usize].peer;
                self.forward(node, pkt, from);
            }
            Event::HostTx { host, pkt } => {
                let out = self.net.route(host, self.packets.get(pkt));
                let r = if self.host_stack.is_some() {
                    self.send_through_stack(out, pkt)
                } else {
                    self.enqueue(out, pkt, drops::HOST_INPUT)
                };
                if let Err(pkt) = r {
                    self.refused_by_nic(&pkt);
                }
            }
            Event::Rebalance => self.rebalance(),
        }
    }
}
