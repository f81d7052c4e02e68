//! A min-heap of events keyed on (time, insertion sequence).
//!
//! The sequence number makes the order of simultaneous events the order in
//! which they were scheduled, so a run never depends on heap internals. The
//! queue has no cancel operation: components that re-arm timers keep their own
//! deadline and ignore stale wake-ups (see `transport::tcp`), which costs one
//! pop per stale timer instead of htsim's linear-scan cancel.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// Pending events of type `E`.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    /// Sequence number of the event last popped: with `now`, its place in the order.
    now_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: Time::ZERO,
            now_seq: 0,
            popped: 0,
        }
    }

    /// The time of the event last popped.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// (time, sequence number) of the event last popped: every event popped
    /// later orders after it.
    #[inline]
    pub fn cursor(&self) -> (Time, u64) {
        (self.now, self.now_seq)
    }

    /// Events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at absolute time `at`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            time: at,
            seq,
            event,
        });
    }

    /// Takes the sequence number the next `schedule` would use, without
    /// scheduling anything: an event that may or may not be needed later
    /// (see `sim::Simulation::start_tx`) keeps its place in the order, and
    /// [`Self::schedule_with_seq`] inserts it there if it is needed.
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedules `event` at (`at`, `seq`), `seq` from [`Self::reserve_seq`].
    /// It pops exactly where it would have had it been scheduled when `seq`
    /// was reserved, provided (`at`, `seq`) still lies after the event last
    /// popped.
    #[inline]
    pub fn schedule_with_seq(&mut self, at: Time, seq: u64, event: E) {
        debug_assert!(seq < self.next_seq, "sequence number not reserved");
        debug_assert!(
            (at, seq) > (self.now, self.now_seq) || self.popped == 0,
            "event scheduled before the current one"
        );
        self.heap.push(Entry {
            time: at,
            seq,
            event,
        });
    }

    /// Schedules `event` `delay` after now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event)
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Removes the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.now = e.time;
        self.now_seq = e.seq;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Iterates the pending events in no particular order (for end-of-run accounting).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.heap.iter().map(|e| &e.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn simultaneous_events_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 'a');
        q.schedule(Time(3), 'b');
        q.schedule(Time(5), 'c');
        q.schedule(Time(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    #[test]
    fn a_reserved_sequence_number_keeps_its_place() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 'a');
        let s = q.reserve_seq();
        q.schedule(Time(5), 'c');
        q.schedule(Time(1), 'x');
        assert_eq!(q.pop(), Some((Time(1), 'x')));
        assert_eq!(q.cursor().0, Time(1));
        q.schedule_with_seq(Time(5), s, 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c']);
    }

    proptest! {
        #[test]
        fn pops_are_sorted_by_time_then_sequence(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(Time(*t), i);
            }
            let mut last: Option<(Time, usize)> = None;
            while let Some((t, i)) = q.pop() {
                if let Some((lt, li)) = last {
                    prop_assert!(t > lt || (t == lt && i > li));
                }
                last = Some((t, i));
            }
        }
    }
}
