//! Out-of-order data held by a receiver, as disjoint sorted byte ranges.

#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// Disjoint, sorted, non-adjacent half-open ranges `[start, end)`.
    ranges: Vec<(u64, u64)>,
}

impl Reassembly {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The held ranges, lowest first.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Holds `[start, end)`, merging with neighbours.
    pub fn insert(&mut self, start: u64, end: u64) {
        let i = self.ranges.partition_point(|r| r.1 < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            s = s.min(self.ranges[j].0);
            e = e.max(self.ranges[j].1);
            j += 1;
        }
        self.ranges.splice(i..j, std::iter::once((s, e)));
    }

    /// Given that everything below `rcv_nxt` has arrived, removes the ranges
    /// it now reaches and returns the new `rcv_nxt`.
    pub fn advance(&mut self, rcv_nxt: u64) -> u64 {
        let mut next = rcv_nxt;
        let mut k = 0;
        while k < self.ranges.len() && self.ranges[k].0 <= next {
            next = next.max(self.ranges[k].1);
            k += 1;
        }
        self.ranges.drain(..k);
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
        assert_eq!(r.ranges, vec![(20, 50)]);
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
            for w in r.ranges.windows(2) {
                prop_assert!(w[0].1 < w[1].0);
            }
            for (b, h) in have.iter().enumerate() {
                let inside = r.ranges.iter().any(|&(s, e)| (b as u64) >= s && (b as u64) < e);
                prop_assert_eq!(inside, *h);
            }
        }
    }
}
