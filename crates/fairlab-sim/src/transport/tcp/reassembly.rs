//! Out-of-order data held by a receiver, as disjoint sorted byte ranges.

/// Out-of-order data, held only while a hole is open (never by a bulk
/// sender's receive half or a loss-free receiver): the ranges and the most
/// recent arrival sit behind a box allocated by the first out-of-order
/// arrival and freed when the last hole fills, 8 bytes inline instead of a
/// `Vec`'s 24 and the most recent arrival's 8, nothing behind them between
/// loss episodes; an in-order segment with no hole open reads nothing
/// behind the box.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// `None` when no range is held (never an empty `Held`).
    held: Option<Box<Held>>,
}

#[derive(Clone, Debug, Default)]
struct Held {
    /// Disjoint, sorted, non-adjacent half-open ranges `[start, end)`.
    ranges: Vec<(u64, u64)>,
    /// First byte of the most recent out-of-order arrival.
    last: u64,
}

impl Reassembly {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.held.is_none()
    }

    /// The held ranges, lowest first.
    #[inline]
    pub fn ranges(&self) -> &[(u64, u64)] {
        self.held.as_deref().map_or(&[], |h| h.ranges.as_slice())
    }

    /// The first byte of the most recent arrival (RFC 2018 (4): its block
    /// is reported first), while any data is held.
    pub fn last_arrival(&self) -> Option<u64> {
        self.held.as_deref().map(|h| h.last)
    }

    /// Holds `[start, end)`, merging with neighbours, as the most recent arrival.
    pub fn insert(&mut self, start: u64, end: u64) {
        let h = self.held.get_or_insert_with(Box::default);
        h.last = start;
        let ranges = &mut h.ranges;
        let i = ranges.partition_point(|r| r.1 < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < ranges.len() && ranges[j].0 <= e {
            s = s.min(ranges[j].0);
            e = e.max(ranges[j].1);
            j += 1;
        }
        ranges.splice(i..j, std::iter::once((s, e)));
    }

    /// Given that everything below `rcv_nxt` has arrived, removes the ranges
    /// it now reaches and returns the new `rcv_nxt`.
    #[inline]
    pub fn advance(&mut self, rcv_nxt: u64) -> u64 {
        // Called for every in-order segment: with no hole open, nothing
        // is held.
        if self.held.is_none() {
            return rcv_nxt;
        }
        self.merge(rcv_nxt)
    }

    fn merge(&mut self, rcv_nxt: u64) -> u64 {
        let h = self.held.as_deref_mut().expect("a range is held");
        let mut next = rcv_nxt;
        let mut k = 0;
        while k < h.ranges.len() && h.ranges[k].0 <= next {
            next = next.max(h.ranges[k].1);
            k += 1;
        }
        h.ranges.drain(..k);
        if h.ranges.is_empty() {
            self.held = None;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn filling_a_hole_releases_the_buffered_data() {
        let mut r = Reassembly::default();
        r.insert(20, 30);
        r.insert(40, 50);
        r.insert(30, 40);
        assert_eq!(r.ranges(), &[(20, 50)]);
        assert_eq!(r.advance(10), 10);
        assert_eq!(r.advance(20), 50);
        assert!(r.is_empty());
    }

    proptest! {
        #[test]
        fn ranges_stay_disjoint_and_cover_exactly_what_was_inserted(
            segs in proptest::collection::vec((0u64..100, 1u64..10), 0..40)
        ) {
            let mut r = Reassembly::default();
            let mut have = [false; 110];
            for (s, l) in segs {
                r.insert(s, s + l);
                for b in s..s + l { have[b as usize] = true; }
            }
            for w in r.ranges().windows(2) {
                prop_assert!(w[0].1 < w[1].0);
            }
            for (b, h) in have.iter().enumerate() {
                let inside = r.ranges().iter().any(|&(s, e)| (b as u64) >= s && (b as u64) < e);
                prop_assert_eq!(inside, *h);
            }
        }
    }
}
