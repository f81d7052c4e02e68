//! TCP glue: connections (both sockets and the workload they serve), their
//! outboxes flushed into the host's NIC, local drops reported back to the
//! sender, one pending wake-up per socket, and segments delivered to the
//! receiving socket and to its application.

use super::{Event, Simulation};
use crate::packet::Packet;
use crate::transport::tcp::TcpSocket;
use crate::units::Time;
use crate::workload::{ConnApp, Workload};

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

impl Simulation {
    /// A packet a host's transmit queue refused after its send jitter: its
    /// TCP sender hears of it (UDP datagrams are just counted).
    pub(super) fn refused_by_nic(&mut self, pkt: &Packet) {
        if pkt.has(crate::packet::flags::UDP) {
            return;
        }
        let (c, side) = (pkt.endpoint(), pkt.side());
        let now = self.now();
        self.conns[c as usize].sock[side].on_local_drop(now, pkt);
        self.sync_timer(c, side);
    }

    /// Sends what side `side` of connection `c` emitted.
    pub(super) fn flush_outbox(&mut self, c: u32, side: usize) {
        let host = self.conns[c as usize].sock[side].endpoints().0;
        let mut out = std::mem::take(&mut self.outbox);
        let mut refused = std::mem::take(&mut self.refused);
        for pkt in out.drain(..) {
            if let Err(p) = self.inject(host, pkt) {
                refused.push(p);
            }
        }
        self.outbox = out;
        if !refused.is_empty() {
            // Last first: a refused tail of new data becomes unsent again.
            let now = self.now();
            for p in refused.iter().rev() {
                self.conns[c as usize].sock[side].on_local_drop(now, p);
            }
            refused.clear();
        }
        self.refused = refused;
    }

    /// Keeps exactly one useful wake-up pending per socket (see `engine::queue`).
    #[inline]
    pub(super) fn sync_timer(&mut self, c: u32, side: usize) {
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

    pub(super) fn on_timer(&mut self, c: u32, side: usize) {
        let now = self.now();
        let conn = &mut self.conns[c as usize];
        if conn.timer_at[side] != Some(now) {
            return; // superseded by an earlier wake-up that already ran
        }
        conn.timer_at[side] = None;
        conn.sock[side].on_timer(now, &mut self.outbox);
        let aborted = conn.sock[side].aborted();
        let app = conn.app;
        self.flush_outbox(c, side);
        self.sync_timer(c, side);
        if aborted {
            self.workloads[app.workload as usize].on_aborted(app.index);
            self.after_workload_step(app.workload);
        }
    }

    /// A packet reaches its destination host.
    pub(super) fn deliver(&mut self, pkt: Packet) {
        self.counters.packets_delivered += 1;
        if pkt.is_data() {
            self.counters.data_packets_delivered += 1;
        }
        if pkt.has(crate::packet::flags::UDP) {
            let w = self.udp_of_flow[pkt.endpoint() as usize - self.conns.len()];
            if let Workload::Udp(u) = &mut self.workloads[w as usize] {
                u.delivered += 1;
            }
            return;
        }
        let now = self.now();
        let c = pkt.endpoint();
        let side = 1 - pkt.side();
        let conn = &mut self.conns[c as usize];
        let outcome = conn.sock[side].on_segment(now, &pkt, &mut self.outbox);
        let app = conn.app;
        let is_data_receiver = side != conn.data_side;
        self.flush_outbox(c, side);
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
}
