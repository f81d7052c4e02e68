//! Workloads: the applications on the hosts. Each reacts to connection
//! events (established, bytes delivered, its own timers) by asking the
//! simulator for actions; none touches a socket directly, so a workload's
//! logic reads as the application protocol it models.

mod bulk;
mod incast;
mod nfs_read;
mod short;
mod udp;

pub use bulk::Bulk;
pub use incast::{Incast, RoundRecord};
pub use nfs_read::{ClientRead, NfsRead, ReadParams};
pub use short::ShortFlows;
pub use udp::Udp;

pub use crate::transport::ConnApp;
use crate::units::Time;

/// What a workload asks the simulator to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppAction {
    /// Open endpoint `conn` (a connection's active side sends a SYN, a UDP
    /// flow starts sending).
    Connect { conn: u32 },
    /// The application on one side of endpoint `conn` writes `bytes`.
    Write {
        conn: u32,
        passive: bool,
        bytes: u64,
    },
    /// Call the workload's `on_wakeup(token)` after `delay`.
    WakeUp {
        workload: u32,
        delay: Time,
        token: u32,
    },
}

/// A run may hold a workload per flow (100,000 bulk flows), so the enum is
/// as small as a bulk flow: the larger kinds, a few per run, are boxed (a
/// UDP workload, which only opens its flow, is smaller than a bulk flow).
#[derive(Clone, Debug)]
pub enum Workload {
    Incast(Box<Incast>),
    Bulk(Bulk),
    Short(Box<ShortFlows>),
    Udp(Udp),
    NfsRead(Box<NfsRead>),
}

impl Workload {
    pub fn start_time(&self) -> Time {
        match self {
            Workload::Incast(w) => w.start,
            Workload::Bulk(w) => w.start,
            Workload::Short(w) => w.start,
            Workload::Udp(w) => w.start,
            Workload::NfsRead(w) => w.start,
        }
    }
    pub fn finished(&self) -> bool {
        match self {
            Workload::Incast(w) => w.finished,
            Workload::Bulk(w) => w.finished,
            Workload::Short(w) => w.finished,
            Workload::NfsRead(w) => w.finished,
            // Background traffic never holds the run open.
            Workload::Udp(_) => false,
        }
    }
    /// The workload's own bookkeeping after a step of its connections
    /// (an incast round's timeouts); `timeouts(conn)` reads a connection's
    /// retransmission timeouts so far.
    pub fn after_step(&mut self, timeouts: &dyn Fn(u32) -> u64) {
        if let Workload::Incast(w) = self {
            w.account_timeouts(timeouts);
        }
    }

    /// The kind's name, as the scenario spells it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Workload::Incast(_) => "incast",
            Workload::Bulk(_) => "bulk",
            Workload::Short(_) => "short",
            Workload::Udp(_) => "udp",
            Workload::NfsRead(_) => "nfs_read",
        }
    }
    /// When connection `index` of this workload completed its work, if it did
    /// (an incast connection: when the last round ended).
    pub fn flow_end(&self, index: u32) -> Option<Time> {
        match self {
            Workload::Incast(w) if w.finished => w.records.last().map(|r| r.end),
            Workload::Incast(_) | Workload::Udp(_) => None,
            Workload::Bulk(w) => w.end.get(),
            Workload::Short(w) => w.end[index as usize],
            Workload::NfsRead(w) => w.reads[index as usize].end.get(),
        }
    }
    /// Fraction done, for progress reports (0 when unknown).
    pub fn progress(&self) -> f64 {
        match self {
            Workload::Incast(w) => w.records.len() as f64 / w.rounds.max(1) as f64,
            Workload::Bulk(w) => match w.size() {
                Some(s) => w.delivered as f64 / s.max(1) as f64,
                None => 0.0,
            },
            Workload::Short(w) => w.done as f64 / w.conns.len().max(1) as f64,
            Workload::NfsRead(w) => w.progress(),
            Workload::Udp(_) => 0.0,
        }
    }
    /// Whether the run waits for this workload (sized work does).
    pub fn bounded(&self) -> bool {
        match self {
            Workload::Incast(_) | Workload::Short(_) | Workload::NfsRead(_) => true,
            Workload::Bulk(b) => b.bounded(),
            Workload::Udp(_) => false,
        }
    }
    pub fn start(&mut self, now: Time, acts: &mut Vec<AppAction>) {
        match self {
            Workload::Incast(w) => w.start(now, acts),
            Workload::Bulk(w) => w.start(now, acts),
            Workload::Short(w) => w.start(now, acts),
            Workload::Udp(w) => w.start(acts),
            Workload::NfsRead(w) => w.start(now, acts),
        }
    }
    pub fn on_established(
        &mut self,
        index: u32,
        passive: bool,
        now: Time,
        acts: &mut Vec<AppAction>,
    ) {
        match self {
            Workload::Incast(w) => w.on_established(index, passive, now, acts),
            Workload::Bulk(w) => w.on_established(passive, now, acts),
            Workload::Short(w) => w.on_established(index, passive, acts),
            Workload::NfsRead(w) => w.on_established(index, passive, acts),
            Workload::Udp(_) => {}
        }
    }
    pub fn on_delivered(
        &mut self,
        index: u32,
        passive: bool,
        bytes: u64,
        now: Time,
        acts: &mut Vec<AppAction>,
    ) {
        match self {
            Workload::Incast(w) => w.on_delivered(index, passive, bytes, now, acts),
            Workload::Bulk(w) => w.on_delivered(passive, bytes, now),
            Workload::Short(w) => w.on_delivered(index, passive, bytes, now),
            Workload::NfsRead(w) => w.on_delivered(index, passive, bytes, now, acts),
            Workload::Udp(_) => {}
        }
    }
    /// A connection of this workload gave up: the workload cannot finish,
    /// so it stops (and no longer holds the run open).
    /// (A short workload loses only that flow, an NFS read that client.)
    pub fn on_aborted(&mut self, index: u32) {
        match self {
            Workload::Short(w) => w.on_aborted(index),
            Workload::NfsRead(w) => w.on_aborted(index),
            Workload::Incast(w) => {
                w.aborted = true;
                w.finished = true;
            }
            Workload::Bulk(w) => {
                w.aborted = true;
                w.finished = true;
            }
            Workload::Udp(_) => {}
        }
    }
    pub fn aborted(&self) -> bool {
        match self {
            Workload::Incast(w) => w.aborted,
            Workload::Bulk(w) => w.aborted,
            Workload::Short(w) => w.aborted,
            Workload::NfsRead(w) => w.aborted,
            Workload::Udp(_) => false,
        }
    }
    pub fn on_wakeup(&mut self, token: u32, now: Time, acts: &mut Vec<AppAction>) {
        match self {
            Workload::Incast(w) => w.on_wakeup(token, now, acts),
            Workload::Short(w) => w.on_wakeup(token, now, acts),
            Workload::NfsRead(w) => w.on_wakeup(token, now, acts),
            _ => {}
        }
    }
}

/// Helpers of the workloads' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::AppAction;

    /// The writes among `acts`: (connection, passive side, bytes).
    pub fn writes(acts: &[AppAction]) -> Vec<(u32, bool, u64)> {
        acts.iter()
            .filter_map(|a| match *a {
                AppAction::Write {
                    conn,
                    passive,
                    bytes,
                } => Some((conn, passive, bytes)),
                _ => None,
            })
            .collect()
    }
}
