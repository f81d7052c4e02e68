//! Workload glue: the actions applications ask for (connect, write, wake
//! up), and the bookkeeping after each step (an incast round's timeouts,
//! whether the run can end).

use super::{Event, Simulation};
use crate::workload::AppAction;

impl Simulation {
    /// Bookkeeping after a workload step: per-round timeouts, and whether
    /// the run can end.
    pub(super) fn after_workload_step(&mut self, w: u32) {
        let wi = w as usize;
        let conns = &self.conns;
        self.workloads[wi].after_step(&|c| conns[c as usize].timeouts());
        let wl = &self.workloads[wi];
        if wl.bounded() && wl.finished() && !self.counted[wi] {
            self.counted[wi] = true;
            self.bounded_left -= 1;
        }
    }

    pub(super) fn apply_actions(&mut self) {
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
                    self.flush_outbox(conn, 0);
                    self.sync_timer(conn, 0);
                }
                AppAction::Write {
                    conn,
                    passive,
                    bytes,
                } => {
                    let side = usize::from(passive);
                    self.conns[conn as usize].sock[side].write(now, bytes, &mut self.outbox);
                    self.flush_outbox(conn, side);
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
}
