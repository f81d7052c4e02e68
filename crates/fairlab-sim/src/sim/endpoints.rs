//! Endpoint glue, the same for every transport: a step's wake-ups
//! scheduled and its outbox flushed into the host's NIC, local drops
//! reported back to the endpoint, packets delivered to the endpoint their
//! flow names, and what a step means passed on to its workload.

use super::{Event, Simulation};
use crate::packet::Packet;
use crate::transport::{ConnApp, Step};
use crate::units::Time;

impl Simulation {
    /// A packet a host's transmit queue refused after its send jitter: its
    /// endpoint hears of it.
    pub(super) fn refused_by_nic(&mut self, pkt: &Packet) {
        let e = pkt.endpoint();
        let now = self.now();
        let ep = &mut self.endpoints[e as usize];
        ep.on_local_drop(now, pkt);
        ep.after_send(now, pkt.side(), &mut self.out);
        self.schedule_wakeups(e);
    }

    /// Sends what endpoint `e` emitted in a step: first its wake-ups, then
    /// its packets (the refused ones handed back), then the wake-ups that
    /// depend on them.
    #[inline]
    pub(super) fn finish_step(&mut self, e: u32, step: Step) {
        if !self.out.wake.is_empty() {
            self.schedule_wakeups(e);
        }
        self.flush_outbox(e);
        if step.sync {
            let now = self.now();
            self.endpoints[e as usize].after_send(now, step.side as usize, &mut self.out);
            if !self.out.wake.is_empty() {
                self.schedule_wakeups(e);
            }
        }
    }

    #[inline]
    fn schedule_wakeups(&mut self, e: u32) {
        for (at, token) in self.out.wake.drain(..) {
            self.events
                .schedule_timer(at, Event::Timer { endpoint: e, token });
        }
    }

    /// Sends the packets endpoint `e` put in the outbox.
    fn flush_outbox(&mut self, e: u32) {
        let host = self.out.host;
        let mut out = std::mem::take(&mut self.out.packets);
        let mut refused = std::mem::take(&mut self.refused);
        for pkt in out.drain(..) {
            if let Err(p) = self.inject(host, pkt) {
                refused.push(p);
            }
        }
        self.out.packets = out;
        if !refused.is_empty() {
            // Last first: a refused tail of new data becomes unsent again.
            let now = self.now();
            for p in refused.iter().rev() {
                self.endpoints[e as usize].on_local_drop(now, p);
            }
            refused.clear();
        }
        self.refused = refused;
    }

    /// Tells the workload what a step of endpoint `e` means to it (actions
    /// it asks for wait in `self.actions`).
    #[inline(always)]
    pub(super) fn report(&mut self, e: u32, app: ConnApp, step: Step, now: Time) {
        if step.opened != 0 {
            self.report_opened(app, step.opened, now);
        }
        if step.delivered > 0 {
            self.report_delivered(e, app, step, now);
        }
        if step.aborted {
            self.workloads[app.workload as usize].on_aborted(app.index);
        }
    }

    #[cold]
    #[inline(never)]
    fn report_opened(&mut self, app: ConnApp, opened: u8, now: Time) {
        let w = &mut self.workloads[app.workload as usize];
        for side in [1u8, 0] {
            if opened & (1 << side) != 0 {
                w.on_established(app.index, side == 1, now, &mut self.actions);
            }
        }
    }

    #[inline(always)]
    fn report_delivered(&mut self, e: u32, app: ConnApp, step: Step, now: Time) {
        if step.data {
            if let Some(bin) = self.series.throughput_bin {
                let b = (now.0 / bin.0) as usize;
                let bins = &mut self.series.flow_bins[e as usize];
                if bins.len() <= b {
                    bins.resize(b + 1, 0);
                }
                bins[b] += step.delivered;
            }
        }
        self.workloads[app.workload as usize].on_delivered(
            app.index,
            step.side == 1,
            step.delivered,
            now,
            &mut self.actions,
        );
    }

    /// A wake-up endpoint `e` asked for with `token` is due.
    pub(super) fn on_timer(&mut self, e: u32, token: u32) {
        let now = self.now();
        let step = if self.rethinks() {
            self.timer_rethinking(e, token, now)
        } else {
            self.endpoints[e as usize].on_timer(now, token, &mut self.out)
        };
        self.finish_step(e, step);
        if step.reports() {
            let app = self.endpoints[e as usize].app();
            self.report(e, app, step, now);
            if !self.actions.is_empty() {
                self.apply_actions();
            }
            self.after_workload_step(app.workload);
        }
    }

    /// The endpoint's wake-up where a retransmission timeout gives the
    /// socket a new transmit hash (`sk_rethink_txhash`, in
    /// `tcp_write_timeout`, before the retransmission goes out).
    #[cold]
    #[inline(never)]
    fn timer_rethinking(&mut self, e: u32, token: u32, now: Time) -> Step {
        // A TCP side's timeouts (other transports have none).
        let timeouts = |ep: &crate::transport::Endpoint, side: usize| {
            ep.as_tcp().map_or(0, |c| c.sock[side].stats.timeouts)
        };
        let ep = &mut self.endpoints[e as usize];
        let side = token as usize & 1;
        let before = timeouts(ep, side);
        let step = ep.on_timer(now, token, &mut self.out);
        if timeouts(&self.endpoints[e as usize], side) > before {
            self.rethink(2 * e as usize + side);
        }
        step
    }

    /// A packet reaches its destination host: the endpoint its flow names
    /// takes it.
    pub(super) fn deliver(&mut self, pkt: Packet) {
        self.counters.packets_delivered += 1;
        if pkt.is_data() {
            self.counters.data_packets_delivered += 1;
        }
        let now = self.now();
        let e = pkt.endpoint();
        let ep = &mut self.endpoints[e as usize];
        let step = ep.on_packet(now, &pkt, &mut self.out);
        let app = ep.app();
        self.finish_step(e, step);
        self.report(e, app, step, now);
        if !self.actions.is_empty() {
            self.apply_actions();
        }
        self.after_workload_step(app.workload);
    }
}
