//! A calendar of pending events (Brown's calendar queue, with a heap for
//! the few beyond its window): what the packet events become when many
//! are pending (a large topology: one arrival and one transmission's end
//! per busy link).
//!
//! Time is cut into buckets of 2^`shift` picoseconds. The buckets of a
//! window of `mask + 1` of them after the current one each hold their
//! entries unsorted; entries past the window wait in a heap. The current
//! bucket and every earlier one are the caller's drain array, sorted
//! (`Near` in `queue.rs`): when it runs dry, [`Calendar::load_next`] sorts
//! the next occupied bucket into it. So a push is an append and a pop is a
//! step through a short sorted array, whatever the number pending, where a
//! heap walks log(n) levels, each a likely cache miss. The order stays
//! exactly (time, seq): buckets partition time, and each is sorted by the
//! full key before its first entry pops.
//!
//! A bucket's entries are kept in a chain of blocks of [`BLOCK`] entries
//! from one pool, and a block emptied by `load_next` is the next one a
//! bucket takes (a stack of free blocks). So an event is written into a
//! line the loop has just read, not into an array of its bucket's own,
//! last touched a whole window earlier: with an array per bucket, a put
//! wrote a line out of cache and a bucket that outgrew its array copied it
//! into a larger one (issue 23, seventh pass: at k = 16, 330,000 such
//! copies in 1 ms, 6 % of the run's cache misses).
//!
//! The width adapts: it is chosen from the spread of the pending entries
//! when the calendar is laid out, and laid out again (at most once per
//! twice as many pops as entries, so O(1) amortized) when a bucket of
//! entries at different instants comes out too full, or too much waits
//! beyond the window.

use super::queue::{Entry, Heap};

/// A bucket loaded with more entries than this says the width is too wide.
const CROWDED: usize = 48;
/// Entries per bucket aimed at when laying out.
const PER_BUCKET: u64 = 2;
/// Entries per block of the pool: two lines of 32-byte entries.
const BLOCK: usize = 4;
/// Bounds of the window, in buckets (powers of two).
const MIN_BUCKETS: u64 = 64;
const MAX_BUCKETS: u64 = 1 << 16;
/// No block.
const NONE: u32 = u32::MAX;

/// [`BLOCK`] entries, aligned so that a block spans whole lines.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Block<E>([Entry<E>; BLOCK]);

/// A bucket's chain of blocks: entries `0..len`, [`BLOCK`] to a block,
/// from block `head` to block `tail` (the others linked by `next`).
#[derive(Clone, Copy, Debug)]
struct Slot {
    head: u32,
    tail: u32,
    len: u32,
}

const EMPTY_SLOT: Slot = Slot {
    head: NONE,
    tail: NONE,
    len: 0,
};

pub(super) struct Calendar<E> {
    /// Bucket width: 2^shift picoseconds.
    shift: u32,
    /// Buckets in the window, minus one.
    mask: u64,
    /// Absolute number of the current bucket: entries of it and of every
    /// earlier bucket are in the caller's drain array.
    cur: u64,
    slots: Vec<Slot>,
    /// The pool of blocks, and per block the next in its chain (in use)
    /// or on the free stack.
    blocks: Vec<Block<E>>,
    next: Vec<u32>,
    /// The top of the stack of free blocks (`NONE`: empty).
    free: u32,
    /// One bit per slot, set while it holds entries.
    occupied: Vec<u64>,
    /// Entries whose bucket lies beyond the window.
    far: Heap<E>,
    /// Entries in the slots and in `far`.
    held: usize,
    /// Pops (bucket entries drained) since the last layout.
    drained: usize,
    /// Entries put beyond the window since the last layout.
    far_puts: usize,
}

impl<E: Copy> Calendar<E> {
    pub(super) fn new() -> Self {
        Calendar {
            shift: 0,
            mask: 0,
            cur: 0,
            slots: Vec::new(),
            blocks: Vec::new(),
            next: Vec::new(),
            free: NONE,
            occupied: Vec::new(),
            far: Heap::with_capacity(0),
            held: 0,
            drained: 0,
            far_puts: 0,
        }
    }

    /// Entries held beyond the drain array.
    #[inline]
    pub(super) fn held(&self) -> usize {
        self.held
    }

    #[inline]
    fn bucket(&self, e: &Entry<E>) -> u64 {
        e.time().0 >> self.shift
    }

    /// Whether `e` belongs in the drain array (its bucket is the current
    /// one or earlier).
    #[inline]
    pub(super) fn is_due(&self, e: &Entry<E>) -> bool {
        self.bucket(e) <= self.cur
    }

    /// Holds `e`, whose bucket lies after the current one.
    #[inline(always)]
    pub(super) fn put(&mut self, e: Entry<E>) {
        let b = self.bucket(&e);
        debug_assert!(b > self.cur);
        if b - self.cur > self.mask {
            return self.put_far(e);
        }
        self.held += 1;
        let s = (b & self.mask) as usize;
        let mut slot = self.slots[s];
        let k = slot.len as usize % BLOCK;
        if k == 0 {
            // The chain's last block is full (or there is none).
            let fresh = self.take_block(e);
            if slot.len == 0 {
                slot.head = fresh;
                self.occupied[s / 64] |= 1 << (s % 64);
            } else {
                self.next[slot.tail as usize] = fresh;
            }
            slot.tail = fresh;
        }
        slot.len += 1;
        self.slots[s] = slot;
        self.blocks[slot.tail as usize].0[k] = e;
    }

    /// Holds `e`, whose bucket lies beyond the window, in the far heap.
    #[inline(never)]
    fn put_far(&mut self, e: Entry<E>) {
        self.held += 1;
        self.far_puts += 1;
        self.far.push(e);
    }

    /// A block for a bucket's chain: the free block last emptied (most
    /// likely still cached), or a new one (filled with `e`, as nothing
    /// reads a block's unused entries).
    #[inline]
    fn take_block(&mut self, e: Entry<E>) -> u32 {
        if self.free != NONE {
            let b = self.free;
            self.free = self.next[b as usize];
            return b;
        }
        self.new_block(e)
    }

    #[cold]
    #[inline(never)]
    fn new_block(&mut self, e: Entry<E>) -> u32 {
        let b = self.blocks.len();
        assert!(b < NONE as usize, "calendar: too many pending events");
        self.blocks.push(Block([e; BLOCK]));
        self.next.push(NONE);
        b as u32
    }

    /// Appends slot `s`'s entries to `out`, empties it and frees its blocks
    /// (the first freed is the last taken again).
    #[inline]
    fn empty_slot_into(&mut self, s: usize, out: &mut Vec<Entry<E>>) {
        let Slot { head, len, .. } = std::mem::replace(&mut self.slots[s], EMPTY_SLOT);
        let mut b = head;
        let mut left = len as usize;
        // Room once, then each block's entries copied in a loop: a copy
        // per block through `extend_from_slice` was a call to memcpy for
        // at most 128 bytes.
        out.reserve(left);
        while left > 0 {
            let n = left.min(BLOCK);
            out.extend(self.blocks[b as usize].0[..n].iter().copied());
            left -= n;
            let following = self.next[b as usize];
            self.next[b as usize] = self.free;
            self.free = b;
            b = following;
        }
    }

    /// Slot `s`'s entries, in the order they were put.
    fn slot_iter(&self, s: usize) -> impl Iterator<Item = &Entry<E>> + '_ {
        let Slot { head, len, .. } = self.slots[s];
        let mut b = head;
        (0..len as usize).map(move |i| {
            if i > 0 && i % BLOCK == 0 {
                b = self.next[b as usize];
            }
            &self.blocks[b as usize].0[i % BLOCK]
        })
    }

    /// Moves the entries of the next occupied bucket into `drain` (empty),
    /// sorted, and makes it the current bucket. Returns false when nothing
    /// is held. Lays the calendar out again first when it has drifted from
    /// its load (see the module comment).
    pub(super) fn load_next(&mut self, drain: &mut Vec<Entry<E>>) -> bool {
        debug_assert!(drain.is_empty());
        if self.held == 0 {
            return false;
        }
        if self.drained > 2 * self.held
            && (self.far.v.len() > self.held / 2 || self.far_puts > self.drained / 8)
        {
            // Much waits beyond the window, or much passes through the far
            // heap on its way in (a window a little shorter than the time
            // between a packet's hops: a quarter of a k = 16 fat tree's
            // arrivals went that way, each a heap push and pop): the window
            // is too short for the load.
            self.relayout(drain);
            if !drain.is_empty() {
                return true;
            }
        }
        loop {
            if let Some(b) = self.next_occupied() {
                self.cur = b;
                let s = (b & self.mask) as usize;
                // Copied into the drain array, which keeps its allocation:
                // a crowded bucket (a phase-locked fabric's instant) grows
                // it once, not the pool (whose blocks are all alike).
                self.empty_slot_into(s, drain);
                self.occupied[s / 64] &= !(1 << (s % 64));
                self.held -= drain.len();
                self.drained += drain.len();
                // Keys are unique: an unstable sort is exact.
                drain.sort_unstable_by_key(|e| e.key);
                self.pull_far();
                // Too wide: lay out again with the crowded bucket in. Not
                // when its entries are all due at one instant (a symmetric
                // fabric's links move in lockstep): no width splits those.
                let spread = drain
                    .first()
                    .zip(drain.last())
                    .map(|(a, b)| a.time() != b.time());
                if drain.len() > CROWDED && self.drained > 2 * self.held && spread == Some(true) {
                    self.relayout(drain);
                }
                return true;
            }
            // Nothing in the window: move it to the first far entry.
            let first = self.far.first_key();
            debug_assert!(first != u128::MAX, "held entries are somewhere");
            self.cur = ((first >> 64) as u64 >> self.shift) - 1;
            self.pull_far();
        }
    }

    /// The event of the `k`th entry put in the next occupied bucket (in the
    /// order they were put, not yet sorted), for the prefetcher to look
    /// past the bucket being drained.
    #[inline(never)]
    pub(super) fn peek_next(&self, k: usize) -> Option<&E> {
        if self.held == 0 {
            return None;
        }
        let b = self.next_occupied()?;
        self.slot_iter((b & self.mask) as usize)
            .nth(k)
            .map(|e| e.event())
    }

    /// The first occupied bucket after the current one, within the window.
    #[inline]
    fn next_occupied(&self) -> Option<u64> {
        let n = self.mask + 1;
        let start = (self.cur + 1) & self.mask;
        let words = self.occupied.len() as u64;
        // Scan the bitmap from `start`, wrapping once around the window.
        let mut w = start / 64;
        let mut bits = self.occupied[w as usize] & (!0u64 << (start % 64));
        for _ in 0..=words {
            if bits != 0 {
                let s = w * 64 + bits.trailing_zeros() as u64;
                // Slot `s` holds bucket cur + 1 + (s - start) mod n.
                let ahead = (s + n - start) & self.mask;
                return Some(self.cur + 1 + ahead);
            }
            w = (w + 1) % words;
            bits = self.occupied[w as usize];
        }
        None
    }

    /// Moves the far entries that the window now covers into their slots.
    #[inline]
    fn pull_far(&mut self) {
        while let Some(first) = self.far.v.first() {
            let b = (first.key >> 64) as u64 >> self.shift;
            if b - self.cur > self.mask {
                break;
            }
            let e = self.far.pop().expect("non-empty");
            self.held -= 1;
            self.put(e);
        }
    }

    /// Lays the calendar out for `entries` (moved out of it), choosing the
    /// width from their spread: entries of the first bucket go to `drain`
    /// (sorted), the rest to slots and the far heap.
    pub(super) fn layout(&mut self, entries: &mut Vec<Entry<E>>, drain: &mut Vec<Entry<E>>) {
        debug_assert!(drain.is_empty());
        self.held = 0;
        self.drained = 0;
        self.far_puts = 0;
        if entries.is_empty() {
            return;
        }
        let n = entries.len();
        // The spread of the earliest three quarters, so that a few
        // entries far ahead (a timer, a workload's start) do not widen
        // every bucket.
        let q = (n * 3 / 4).max(1) - 1;
        let first = entries.iter().map(|e| e.time().0).min().expect("some");
        let last = entries.iter().map(|e| e.time().0).max().expect("some");
        let (_, quartile, _) = entries.select_nth_unstable_by_key(q, |e| e.key);
        let spread = quartile.time().0 - first;
        let gap = (spread / (q as u64 + 1)).max(1);
        self.shift = gap.saturating_mul(PER_BUCKET).ilog2().min(48);
        // Wider buckets rather than a window too short for the spread
        // (a k = 48 fat tree: 10^5 pending over a few microseconds),
        // which would send most entries through the far heap. The spread
        // of all but the latest 1/64, so that a few entries far ahead do
        // not widen every bucket (a guard: the crowded buckets measured at
        // k = 48 were one instant's events, which no width splits; see
        // `Near::insert_in_bucket`).
        let p = (n - n / 64).max(1) - 1;
        let (_, tail, _) = entries.select_nth_unstable_by_key(p, |e| e.key);
        let span = tail.time().0 - first;
        if span >> self.shift >= MAX_BUCKETS {
            self.shift = (span / MAX_BUCKETS).ilog2() + 1;
        }
        // The window covers every entry when it can: what lies beyond
        // waits in the heap, at a heap's cost.
        let buckets = ((last - first) >> self.shift)
            .saturating_add(2)
            .min(MAX_BUCKETS)
            .next_power_of_two()
            .max(MIN_BUCKETS);
        self.mask = buckets - 1;
        // The slots are empty (`take_all`, or new): only their number changes.
        if self.slots.len() != buckets as usize {
            self.slots.resize(buckets as usize, EMPTY_SLOT);
            self.occupied.clear();
            self.occupied.resize((buckets as usize).div_ceil(64), 0);
        }
        debug_assert!(self.far.v.is_empty());
        self.cur = first >> self.shift;
        for e in entries.drain(..) {
            if self.is_due(&e) {
                drain.push(e);
            } else {
                self.put(e);
            }
        }
        drain.sort_unstable_by_key(|e| e.key);
    }

    /// Lays out again everything held and in `drain`.
    fn relayout(&mut self, drain: &mut Vec<Entry<E>>) {
        let mut all = std::mem::take(drain);
        self.take_all(&mut all);
        self.layout(&mut all, drain);
        if drain.capacity() < all.capacity() {
            // Keep the larger allocation for the drain array.
            std::mem::swap(drain, &mut all);
            drain.append(&mut all);
        }
    }

    /// Appends every held entry to `out` (unsorted) and empties the calendar.
    pub(super) fn take_all(&mut self, out: &mut Vec<Entry<E>>) {
        for s in 0..self.slots.len() {
            if self.slots[s].len > 0 {
                self.empty_slot_into(s, out);
            }
        }
        self.occupied.iter_mut().for_each(|w| *w = 0);
        out.append(&mut self.far.v);
        self.held = 0;
    }

    /// The held entries, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry<E>> {
        (0..self.slots.len())
            .flat_map(move |s| self.slot_iter(s))
            .chain(self.far.v.iter())
    }
}
