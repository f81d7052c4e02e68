//! A long-lived (bulk) TCP flow: the source opens a connection at `start` and
//! writes `size` bytes at once, or an unbounded stream.

use super::AppAction;
use crate::units::{OptTime, Time};

/// Bytes an unbounded flow writes: more than any run can send (2^62 B;
/// a sized flow carries at most `spec::workloads::MAX_STREAM_BYTES`, 2^60).
pub const UNBOUNDED: u64 = 1 << 62;

#[derive(Clone, Debug)]
pub struct Bulk {
    pub conn: u32,
    pub start: Time,
    /// Bytes to send, [`UNBOUNDED`] for a stream that the run's end stops
    /// (8 bytes where `Option<u64>` takes 16, on every bulk flow).
    size: u64,
    pub delivered: u64,
    /// When the last byte arrived at the receiver.
    pub end: OptTime,
    pub finished: bool,
    /// A connection aborted after too many timeouts.
    pub aborted: bool,
}

impl Bulk {
    pub fn new(conn: u32, start: Time, size: Option<u64>) -> Bulk {
        debug_assert!(size.is_none_or(|s| s < UNBOUNDED));
        Bulk {
            conn,
            start,
            size: size.unwrap_or(UNBOUNDED),
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
                bytes: self.size,
            });
        }
    }

    pub fn on_delivered(&mut self, passive: bool, bytes: u64, now: Time) {
        if !passive {
            return;
        }
        self.delivered += bytes;
        if self.delivered == self.size && self.bounded() {
            self.end = OptTime::some(now);
            self.finished = true;
        }
    }

    /// Whether this flow keeps the run going (sized flows do until done).
    pub fn bounded(&self) -> bool {
        self.size != UNBOUNDED
    }

    /// Bytes to send, `None` for an unbounded stream.
    pub fn size(&self) -> Option<u64> {
        self.bounded().then_some(self.size)
    }
}
