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
        let endpoints = &self.endpoints;
        // Retransmission timeouts are TCP's (other transports count none).
        self.workloads[wi]
            .after_step(&|c| endpoints[c as usize].as_tcp().map_or(0, |c| c.timeouts()));
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
                AppAction::Connect { conn } => {
                    let ep = &mut self.endpoints[conn as usize];
                    let step = ep.open(now, self.handshake, &mut self.out);
                    let app = ep.app();
                    self.finish_step(conn, step);
                    if step.reports() {
                        self.report(conn, app, step, now);
                    }
                }
                AppAction::Write {
                    conn,
                    passive,
                    bytes,
                } => {
                    let side = usize::from(passive);
                    let ep = &mut self.endpoints[conn as usize];
                    let step = ep.write(now, side, bytes, &mut self.out);
                    let app = ep.app();
                    self.finish_step(conn, step);
                    if step.reports() {
                        self.report(conn, app, step, now);
                    }
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
