//! A long-lived (bulk) TCP flow: the source opens a connection at `start` and
//! writes `size` bytes at once, or an unbounded stream.

use super::AppAction;
use crate::units::{OptTime, Time};

/// Bytes an unbounded flow writes: more than any run can send (2^62 B).
pub const UNBOUNDED: u64 = 1 << 62;

#[derive(Clone, Debug)]
pub struct Bulk {
    pub conn: u32,
    pub start: Time,
    pub size: Option<u64>,
    pub delivered: u64,
    /// When the last byte arrived at the receiver.
    pub end: OptTime,
    pub finished: bool,
    /// A connection aborted after too many timeouts.
    pub aborted: bool,
}

impl Bulk {
    pub fn new(conn: u32, start: Time, size: Option<u64>) -> Bulk {
        Bulk {
            conn,
            start,
            size,
            delivered: 0,
            end: OptTime::NONE,
            // An unbounded flow never finishes: the run's duration ends it.
            finished: false,
            aborted: false,
        }
    }

    pub fn start(&mut self, _now: Time, acts: &mut Vec<AppAction>) {
        acts.push(AppAction::Connect { conn: self.conn });
    }

    pub fn on_established(&mut self, passive: bool, _now: Time, acts: &mut Vec<AppAction>) {
        if !passive {
            acts.push(AppAction::Write {
                conn: self.conn,
                passive: false,
                bytes: self.size.unwrap_or(UNBOUNDED),
            });
        }
    }

    pub fn on_delivered(&mut self, passive: bool, bytes: u64, now: Time) {
        if !passive {
            return;
        }
        self.delivered += bytes;
        if Some(self.delivered) == self.size {
            self.end = OptTime::some(now);
            self.finished = true;
        }
    }

    /// Whether this flow keeps the run going (sized flows do until done).
    pub fn bounded(&self) -> bool {
        self.size.is_some()
    }
}
