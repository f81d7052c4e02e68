//! Pending events ordered by (time, insertion sequence), (time, seq) packed
//! in one `u128`: packet events in short sorted arrays (calendars of
//! buckets when many, `calendar.rs`), one for events scheduled now and one
//! for those inserted at a reserved place, and timers in a 4-ary heap of
//! their own; `pop` takes the earliest of the three.
//!
//! The sequence number makes the order of simultaneous events the order in
//! which they were scheduled, so a run never depends on heap internals. The
//! queue has no cancel operation: components that re-arm timers keep their own
//! deadline and ignore stale wake-ups (see `transport::tcp`), which costs one
//! pop per stale timer instead of htsim's linear-scan cancel.

use super::calendar::Calendar;
use crate::units::Time;

/// Children per node. A 4-ary heap is half as deep as a binary one and a
/// node's four children sit side by side in memory: a pop walks half the
/// levels for three comparisons per level instead of one. On the incast of
/// BENCHMARKS.md it ran 2 % fewer instructions per packet-hop than a 2-ary
/// heap, 7 % fewer than an 8-ary one or `std::collections::BinaryHeap`, and
/// 8 % fewer than a radix heap.
const ARITY: usize = 4;

/// (time, seq) packed so that one integer comparison orders two events.
#[inline]
fn key(time: Time, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

#[derive(Clone, Copy)]
pub(super) struct Entry<E> {
    pub(super) key: u128,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    pub(super) fn time(&self) -> Time {
        Time((self.key >> 64) as u64)
    }

    #[inline]
    pub(super) fn event(&self) -> &E {
        &self.event
    }
}

/// An implicit 4-ary min-heap on `key`: the children of `i` are
/// `ARITY * i + 1 ..= ARITY * i + ARITY`.
pub(super) struct Heap<E> {
    pub(super) v: Vec<Entry<E>>,
}

impl<E: Copy> Heap<E> {
    pub(super) fn with_capacity(n: usize) -> Self {
        Heap {
            v: Vec::with_capacity(n),
        }
    }

    #[inline]
    pub(super) fn first_key(&self) -> u128 {
        // No real key is u128::MAX: sequence numbers never get there.
        self.v.first().map_or(u128::MAX, |e| e.key)
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<Entry<E>> {
        let top = *self.v.first()?;
        let last = self.v.pop().expect("non-empty");
        if !self.v.is_empty() {
            self.sift_down_from_root(last);
        }
        Some(top)
    }

    #[inline]
    pub(super) fn push(&mut self, e: Entry<E>) {
        let mut i = self.v.len();
        self.v.push(e);
        let h = self.v.as_mut_ptr();
        // SAFETY: every index used is below `i`, and `i` starts at the last
        // index of the heap and only decreases (parents precede children).
        unsafe {
            // Sift up through a hole: each level moves one parent down.
            while i > 0 {
                let parent = (i - 1) / ARITY;
                if (*h.add(parent)).key <= e.key {
                    break;
                }
                *h.add(i) = *h.add(parent);
                i = parent;
            }
            *h.add(i) = e;
        }
    }

    /// Puts `e` (the former last entry) where the popped root was. The hole
    /// first goes down to a leaf along the smallest children, then `e` sifts
    /// up from there: `e` came from the bottom and usually belongs near it,
    /// so this costs fewer comparisons than stopping on the way down.
    #[inline]
    fn sift_down_from_root(&mut self, e: Entry<E>) {
        let n = self.v.len();
        let h = self.v.as_mut_ptr();
        let key = |i: usize| unsafe { (*h.add(i)).key };
        let mut hole = 0;
        // SAFETY: children are read only below `n` (checked before each
        // read), and the hole is always a valid index.
        unsafe {
            loop {
                let c = ARITY * hole + 1;
                let m = if c + ARITY <= n {
                    let a = if key(c + 1) < key(c) { c + 1 } else { c };
                    let b = if key(c + 3) < key(c + 2) {
                        c + 3
                    } else {
                        c + 2
                    };
                    if key(b) < key(a) {
                        b
                    } else {
                        a
                    }
                } else if c < n {
                    let mut m = c;
                    for j in c + 1..n {
                        if key(j) < key(m) {
                            m = j;
                        }
                    }
                    m
                } else {
                    break;
                };
                *h.add(hole) = *h.add(m);
                hole = m;
            }
            while hole > 0 {
                let parent = (hole - 1) / ARITY;
                if key(parent) <= e.key {
                    break;
                }
                *h.add(hole) = *h.add(parent);
                hole = parent;
            }
            *h.add(hole) = e;
        }
    }
}

/// The packet events. While few (a handful per busy link on a small
/// topology), nearly all scheduled after most of those pending, they are
/// kept sorted, earliest first from `head`: a pop is a step of `head`, a
/// push a short walk back from the end and a shift of the entries it
/// passed. Past `TO_CALENDAR` entries (a large topology, thousands of busy
/// links) they go into a calendar (`calendar.rs`) whose current bucket is
/// the same sorted array, and below `TO_SORTED` back into the array alone.
/// Either way `v[head..]` starts with the earliest entry, and is empty only
/// when nothing is pending.
struct Near<E> {
    /// The pending entries due first (sorted: all of them; calendar: the
    /// current bucket's and any earlier), in key order from `head`.
    v: Vec<Entry<E>>,
    head: usize,
    /// The later entries, in calendar mode.
    cal: Calendar<E>,
    sorted: bool,
    /// An empty array kept for the next switch to the calendar.
    spare: Vec<Entry<E>>,
}

/// Sizes at which `Near` switches representation; apart, so that a size
/// hovering around one does not switch back and forth.
const TO_CALENDAR: usize = 64;
const TO_SORTED: usize = 16;
/// Entries a sorted-mode insert walks back over before it searches.
const WALK_BACK: usize = 4;
/// Entries from which an insert near the front of an array with no room
/// there makes some (see [`Near::make_front_room`]).
const CROWDED_FRONT: usize = 64;

impl<E: Copy> Near<E> {
    fn new() -> Self {
        Near {
            v: Vec::with_capacity(4 * TO_CALENDAR),
            head: 0,
            cal: Calendar::new(),
            sorted: true,
            spare: Vec::with_capacity(4 * TO_CALENDAR),
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.v.len() - self.head + self.cal.held()
    }

    #[inline]
    fn first_key(&self) -> u128 {
        self.v.get(self.head).map_or(u128::MAX, |e| e.key)
    }

    /// The common case inline: sorted, room at the end, and `e` the
    /// latest; the entry is then written from registers, not read back
    /// from a copy on the stack.
    #[inline(always)]
    fn push(&mut self, e: Entry<E>) {
        if !self.sorted {
            self.push_calendar(e);
        } else if self.v.len() < self.v.capacity()
            && self.v.len() - self.head < TO_CALENDAR
            && self.v.last().is_none_or(|l| l.key < e.key)
        {
            self.v.push(e);
        } else {
            self.push_slow(e);
        }
    }

    /// Calendar mode: most entries go to a later bucket, with the
    /// calendar's `put` inlined here. A frame of its own, apart from the
    /// sorted array's rarer paths: as one function with them, saving and
    /// restoring their registers cost more than the put itself (k = 16: 18
    /// of about 80 instructions a push).
    #[inline(never)]
    fn push_calendar(&mut self, e: Entry<E>) {
        if self.cal.is_due(&e) {
            self.insert_in_bucket(e);
        } else {
            self.cal.put(e);
            if self.head == self.v.len() {
                self.first_of_calendar();
            }
        }
    }

    /// Calendar mode: an entry was put while nothing was pending, so it is
    /// the earliest: its bucket becomes the drain array.
    #[cold]
    #[inline(never)]
    fn first_of_calendar(&mut self) {
        self.v.clear();
        self.head = 0;
        self.cal.load_next(&mut self.v);
    }

    /// Sorted mode, when the entry does not go at the end (or the array
    /// must grow, or switch to a calendar).
    #[inline(never)]
    fn push_slow(&mut self, e: Entry<E>) {
        debug_assert!(self.sorted);
        if self.v.len() - self.head >= TO_CALENDAR {
            self.v.drain(..self.head);
            self.head = 0;
            self.v.push(e);
            let mut all = std::mem::replace(&mut self.v, std::mem::take(&mut self.spare));
            self.cal.layout(&mut all, &mut self.v);
            self.spare = all;
            self.sorted = false;
            return;
        }
        self.insert_sorted(e);
    }

    /// Inserts `e` into the sorted array (sorted mode: at most
    /// `TO_CALENDAR` pending). Most of an incast's late entries go among
    /// the last few ([`WALK_BACK`]: found by a walk back from the end);
    /// a small fabric's transmission ends, scheduled late at their
    /// reserved places, go near the front (a k = 4 fat tree: five entries
    /// in front, 25 behind, on average), found by a binary search and
    /// put in by moving the entries in front one place into the popped
    /// front, the shorter side, where the walk and the shift went through
    /// all those behind.
    fn insert_sorted(&mut self, e: Entry<E>) {
        if self.head >= TO_CALENDAR {
            // Reclaim the popped front now and then: a copy of at most
            // `TO_CALENDAR` entries every `TO_CALENDAR` pops.
            self.v.drain(..self.head);
            self.head = 0;
        }
        let n = self.v.len();
        // Never met when fewer than `WALK_BACK` are pending.
        let stop = n.wrapping_sub(WALK_BACK);
        let mut i = n;
        while i > self.head && self.v[i - 1].key > e.key {
            if i == stop {
                return self.insert_deep(e, i);
            }
            i -= 1;
        }
        self.v.insert(i, e);
    }

    /// [`Near::insert_sorted`] past its walk: `e` orders before `v[stop - 1]`.
    #[inline(never)]
    fn insert_deep(&mut self, e: Entry<E>, stop: usize) {
        self.insert_searched(e, stop);
    }

    /// Puts `e` among `v[head..end]` (`e` orders before every entry from
    /// `end` on), found by a binary search, moving the shorter side: the
    /// entries after it, or those before it one place into the popped
    /// front.
    #[inline(always)]
    fn insert_searched(&mut self, e: Entry<E>, end: usize) {
        let n = self.v.len();
        let mut i = self.head + self.v[self.head..end].partition_point(|x| x.key < e.key);
        if i - self.head < n - i {
            if self.head == 0 && n >= CROWDED_FRONT {
                i += self.make_front_room(e);
            }
            if self.head > 0 {
                self.v.copy_within(self.head..i, self.head - 1);
                self.head -= 1;
                self.v[i - 1] = e;
                return;
            }
        }
        self.v.insert(i, e);
    }

    /// Moves the array's entries back by half their number, to make room
    /// in front; returns that room. A bucket just loaded has none, and a
    /// crowded one (a k = 48 fat tree's instant: thousands of
    /// transmissions' ends) took each late entry near its front by moving
    /// everything behind it: 3 % of that run's time in `memmove`. One move
    /// of the whole array now serves the next half-array of such entries.
    #[cold]
    #[inline(never)]
    fn make_front_room(&mut self, e: Entry<E>) -> usize {
        let n = self.v.len();
        let room = n / 2;
        // `e` only fills what the move overwrites.
        self.v.resize(n + room, e);
        self.v.copy_within(0..n, room);
        self.head = room;
        room
    }

    /// Inserts `e` into the current bucket (calendar mode), moving the
    /// shorter side: the entries after it, or those before it into the
    /// popped front (the array is cleared when it runs dry, so the front
    /// is reclaimed only when the array would grow).
    ///
    /// A phase-locked network (a fat tree's equal links, every flow
    /// started at once) puts a thousand events at one instant. A
    /// transmission's end scheduled late at its reserved place (see
    /// `sim::Simulation::start_tx`) goes in near the front of them: a walk
    /// back from the end crossed hundreds.
    #[inline(never)]
    fn insert_in_bucket(&mut self, e: Entry<E>) {
        if self.head >= TO_CALENDAR && self.v.len() == self.v.capacity() {
            self.v.drain(..self.head);
            self.head = 0;
        }
        self.insert_searched(e, self.v.len());
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry<E>> {
        let e = *self.v.get(self.head)?;
        self.head += 1;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
            if !self.sorted {
                self.next_bucket();
            }
        }
        Some(e)
    }

    /// Calendar mode, the drain array empty: loads the next bucket, or
    /// goes back to the sorted array when few are left.
    #[inline(never)]
    fn next_bucket(&mut self) {
        if self.cal.held() < TO_SORTED {
            self.cal.take_all(&mut self.v);
            // Keys are unique: an unstable sort is exact.
            self.v.sort_unstable_by_key(|e| e.key);
            self.sorted = true;
            return;
        }
        self.cal.load_next(&mut self.v);
    }

    fn iter(&self) -> impl Iterator<Item = &Entry<E>> {
        self.v[self.head..].iter().chain(self.cal.iter())
    }
}

/// Pending events of type `E`.
pub struct EventQueue<E> {
    /// Events about packets: a few per link, popped soon after they are
    /// scheduled.
    main: Near<E>,
    /// Events scheduled at a reserved place ([`EventQueue::schedule_with_seq`]:
    /// the ends of transmissions), due sooner than most packet events: kept
    /// apart, both arrays take most new events at their ends.
    reserved: Near<E>,
    /// Events scheduled with [`EventQueue::schedule_timer`]: one or more
    /// per connection, most of them far ahead. Kept apart so that the main
    /// heap stays small and shallow however many connections wait;
    /// `pop` takes the earlier of the two roots, so the order is exactly
    /// that of one heap.
    timers: Heap<E>,
    next_seq: u64,
    now: Time,
    /// Sequence number of the event last popped: with `now`, its place in the order.
    now_seq: u64,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            main: Near::new(),
            reserved: Near::new(),
            timers: Heap::with_capacity(1024),
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
        self.main.len() + self.reserved.len() + self.timers.v.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn next_key(&mut self, at: Time) -> u128 {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        key(at, seq)
    }

    /// Schedules `event` at absolute time `at`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        let key = self.next_key(at);
        self.main.push(Entry { key, event });
    }

    /// Schedules `event` at `at` as [`Self::schedule`] does, in the same
    /// order, for events of which many may be pending at once (one timer
    /// per connection): they do not deepen the heap of packet events.
    #[inline]
    pub fn schedule_timer(&mut self, at: Time, event: E) {
        let key = self.next_key(at);
        self.timers.push(Entry { key, event });
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
        self.reserved.push(Entry {
            key: key(at, seq),
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
        let k = self
            .main
            .first_key()
            .min(self.reserved.first_key())
            .min(self.timers.first_key());
        (k != u128::MAX).then_some(Time((k >> 64) as u64))
    }

    /// Removes the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }

    /// Removes the earliest event if it is due at or before `stop`.
    #[inline]
    pub fn pop_until(&mut self, stop: Time) -> Option<(Time, E)> {
        let (m, r, t) = (
            self.main.first_key(),
            self.reserved.first_key(),
            self.timers.first_key(),
        );
        if m.min(r).min(t) >= key(stop, u64::MAX) {
            // Nothing, or nothing due by `stop` (no real sequence number
            // is u64::MAX, so the bound is exclusive of nothing real).
            return None;
        }
        let top = if m < r.min(t) {
            self.main.pop()
        } else if r < t {
            self.reserved.pop()
        } else {
            self.timers.pop()
        }?;
        self.now = top.time();
        self.now_seq = top.key as u64;
        self.popped += 1;
        Some((self.now, top.event))
    }

    /// The packet event `ahead` places after the next one in the array of
    /// those due soonest, if it is there (a hint for prefetching: timers,
    /// reserved events and the calendar's later buckets are not looked at,
    /// so it need not be the event that pops that many places later).
    #[inline(always)]
    pub fn peek_packet_event(&self, ahead: usize) -> Option<&E> {
        self.main.v.get(self.main.head + ahead).map(|e| &e.event)
    }

    /// As [`Self::peek_packet_event`], but past the end of the calendar's
    /// bucket being drained it looks into the next bucket, in the order its
    /// entries were put (a phase-locked fabric's bucket is one instant, put
    /// in sequence order, unless a layout of the calendar moved them): a
    /// prefetcher looking a few events ahead from the end of a bucket of
    /// thirty saw nothing there, and the first packets of every bucket
    /// went unhinted. A guess, for hints only.
    #[inline(always)]
    pub fn peek_packet_event_across(&self, ahead: usize) -> Option<&E> {
        let i = self.main.head + ahead;
        match self.main.v.get(i) {
            Some(e) => Some(&e.event),
            None if !self.main.sorted => self.main.cal.peek_next(i - self.main.v.len()),
            None => None,
        }
    }

    /// As [`Self::peek_packet_event`], to change in place what the event
    /// carries (not its place in the order).
    #[inline(always)]
    pub fn peek_packet_event_mut(&mut self, ahead: usize) -> Option<&mut E> {
        self.main
            .v
            .get_mut(self.main.head + ahead)
            .map(|e| &mut e.event)
    }

    /// As [`Self::peek_packet_event`], among events scheduled at a reserved place.
    #[inline(always)]
    pub fn peek_reserved_event(&self, ahead: usize) -> Option<&E> {
        self.reserved
            .v
            .get(self.reserved.head + ahead)
            .map(|e| &e.event)
    }

    /// Iterates the pending events in no particular order (for end-of-run accounting).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.main
            .iter()
            .chain(self.reserved.iter())
            .chain(&self.timers.v)
            .map(|e| &e.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    trait IntoTuple {
        fn into_tuple(self) -> (u64, u64);
    }
    impl IntoTuple for (Time, u64) {
        fn into_tuple(self) -> (u64, u64) {
            (self.0 .0, self.1)
        }
    }
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

    #[test]
    fn an_entry_far_from_the_end_goes_in_by_the_shorter_side() {
        // Sorted mode (fewer than TO_CALENDAR pending): 30 events, three
        // popped, then entries past the walk back: near the front (the
        // entries before it move into the popped front), near the middle
        // (those after it shift), and one within the walk.
        let mut q = EventQueue::new();
        for t in 0..30u64 {
            q.schedule(Time(10 * t), t);
        }
        for want in 0..3u64 {
            assert_eq!(q.pop(), Some((Time(10 * want), want)));
        }
        for (t, e) in [(45, 100), (30, 101), (205, 102), (275, 103), (5000, 104)] {
            q.schedule(Time(t), e);
        }
        // Equal times pop in the order scheduled: 30 (event 3) before 101.
        let mut want: Vec<(u64, u64)> = (3..30).map(|t| (10 * t, t)).collect();
        want.extend([(45, 100), (30, 101), (205, 102), (275, 103), (5000, 104)]);
        want.sort_by_key(|&(t, e)| (t, e));
        let got: Vec<(u64, u64)> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| (t.0, e))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn late_entries_near_the_front_of_a_crowded_instant_keep_their_order() {
        // A k = 48 fat tree's instant: thousands of transmissions' ends at
        // one time in the reserved array's bucket; then entries at reserved
        // places among them, most nearer the front than the back (moved in
        // through room made in front: `Near::make_front_room`).
        use std::collections::BTreeSet;
        let mut q = EventQueue::new();
        let t = Time(1_000_000);
        let mut late = Vec::new();
        let mut model = BTreeSet::new();
        for j in 0..2400u64 {
            let s = q.reserve_seq();
            if j % 8 == 3 {
                late.push(s);
            } else {
                q.schedule_with_seq(t, s, s);
                model.insert(s);
            }
        }
        let first = model.pop_first().unwrap();
        assert_eq!(q.pop(), Some((t, first)));
        for &s in late.iter().filter(|&&s| s > first) {
            q.schedule_with_seq(t, s, s);
            model.insert(s);
            // Now and then a pop between the inserts.
            if s % 5 == 0 {
                let want = model.pop_first().unwrap();
                assert_eq!(q.pop(), Some((t, want)));
            }
        }
        let got: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(got, model.into_iter().collect::<Vec<_>>());
    }

    /// Enough pending events to switch `Near` to a heap and back, in
    /// scrambled order, pop in (time, seq) order.
    #[test]
    fn many_packet_events_switch_representation_and_stay_ordered() {
        let mut q = EventQueue::new();
        let mut want = Vec::new();
        let mut x = 7u64;
        for round in 0..5 {
            for i in 0..(40 * round + 10) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let t = q.now().0 + (x >> 54);
                q.schedule(Time(t), (round, i));
                want.push((t, (round, i)));
            }
            // Pop about half, checking each against the sorted model.
            want.sort();
            for _ in 0..want.len() / 2 {
                let w = want.remove(0);
                assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(w));
            }
        }
        want.sort();
        for w in want {
            assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(w));
        }
        assert!(q.pop().is_none());
    }

    /// Instants of thirty events each, as a phase-locked fabric's: past
    /// the end of the instant being drained, the look ahead across
    /// buckets sees the next instant's events, where the plain one sees
    /// nothing.
    #[test]
    fn a_look_ahead_crosses_into_the_next_bucket() {
        let mut q = EventQueue::new();
        let mut order = Vec::new();
        for instant in 1..=40u64 {
            for i in 0..30u64 {
                q.schedule(Time(instant * 1_000_000), instant * 100 + i);
                order.push(instant * 100 + i);
            }
        }
        let (mut popped, mut crossed) = (0, 0);
        while let Some((_, e)) = q.pop() {
            assert_eq!(e, order[popped]);
            popped += 1;
            // Within the bucket being drained, what pops 1 to 6 places
            // later; past its end, one of the next instant's events (its
            // bucket's order is the order of its puts, which a layout of
            // the calendar does not keep).
            for k in 0..6 {
                let Some(&a) = q.peek_packet_event_across(k) else {
                    continue;
                };
                if q.peek_packet_event(k).is_some() {
                    assert_eq!(Some(&a), order.get(popped + k), "after {e}, {k} ahead");
                } else {
                    let next = &order[popped..order.len().min(popped + 36)];
                    assert!(next.contains(&a), "after {e}, {k} ahead: {a}");
                }
            }
            if q.peek_packet_event(5).is_none() && q.peek_packet_event_across(5).is_some() {
                crossed += 1;
            }
        }
        assert_eq!(popped, order.len());
        // Every bucket's end but the last was looked across.
        assert!(crossed >= 39, "{crossed}");
    }

    /// Thousands pending at once, spread as a large topology's packet
    /// events are (most within a few microseconds, some far ahead, some
    /// simultaneous), pushed and popped in turn through the calendar and
    /// back: always the order of a sorted set of (time, seq).
    #[test]
    fn a_calendar_of_many_events_pops_in_exact_order() {
        use std::collections::BTreeSet;
        let mut q = EventQueue::new();
        let mut model = BTreeSet::new();
        let mut x = 11u64;
        let mut seq = 0u64;
        let mut rand = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for phase in 0..6u64 {
            // Load up to a few thousand, then drain to below the switch back.
            let target = [3000, 200, 5000, 70, 1500, 0][phase as usize];
            while model.len() < target {
                let now = q.now().0;
                let r = rand();
                let dt = match r % 16 {
                    0 => 0,                             // now
                    1 => 1_000_000_000 + r % 1_000_000, // far ahead
                    2 => 2_200_000,                     // all at one time
                    _ => 1_000_000 + r % 1_300_000,     // a link's delay
                };
                if r % 3 == 0 {
                    let s = q.reserve_seq();
                    q.schedule_with_seq(Time(now + dt), s, s);
                    model.insert((now + dt, s));
                } else {
                    q.schedule(Time(now + dt), seq);
                    model.insert((now + dt, seq));
                }
                seq += 1;
                if r % 5 == 0 {
                    let want = model.pop_first();
                    assert_eq!(q.pop().map(|(t, e)| (t.0, e)), want);
                }
            }
            // What is pending, in no order, is what the model holds (the
            // calendar's buckets walked through their chains of blocks).
            let mut pending: Vec<u64> = q.pending().copied().collect();
            pending.sort_unstable();
            let mut held: Vec<u64> = model.iter().map(|&(_, s)| s).collect();
            held.sort_unstable();
            assert_eq!(pending, held);
            let keep = [2500, 20, 4000, 10, 30, 0][phase as usize];
            while model.len() > keep {
                let want = model.pop_first();
                assert_eq!(q.pop().map(|(t, e)| (t.0, e)), want);
            }
            assert_eq!(q.len(), model.len());
        }
        assert!(q.pop().is_none());
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

        /// Interleaved schedules (some as timers, some at reserved places)
        /// and pops give exactly the order of a sorted set of (time, seq).
        #[test]
        fn matches_a_sorted_set(ops in proptest::collection::vec((0u8..4, 0u64..40), 0..400)) {
            use std::collections::BTreeSet;
            let mut q = EventQueue::new();
            let mut model = BTreeSet::new();
            let mut reserved: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0u64;
            for (op, dt) in ops {
                let now = q.now().0;
                match op {
                    0 | 1 => {
                        if op == 0 {
                            q.schedule(Time(now + dt), seq);
                        } else {
                            q.schedule_timer(Time(now + dt), seq);
                        }
                        model.insert((now + dt, seq));
                        seq += 1;
                    }
                    2 => {
                        let s = q.reserve_seq();
                        prop_assert_eq!(s, seq);
                        reserved.push((now + dt, s));
                        seq += 1;
                    }
                    _ => {
                        // Insert a reservation still ahead of the cursor, else pop.
                        if let Some(k) = reserved.iter().position(|&r| r > (now, q.cursor().1)) {
                            let (t, s) = reserved.swap_remove(k);
                            q.schedule_with_seq(Time(t), s, s);
                            model.insert((t, s));
                        } else {
                            let got = q.pop();
                            let want = model.pop_first();
                            prop_assert_eq!(got.map(|(t, e)| (t.0, e)), want);
                        }
                        reserved.retain(|&r| r > q.cursor().into_tuple());
                    }
                }
            }
            while let Some(want) = model.pop_first() {
                prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(want));
            }
            prop_assert!(q.pop().is_none());
        }
    }
}
