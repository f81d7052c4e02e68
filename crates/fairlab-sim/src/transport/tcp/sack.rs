//! The SACK sender's scoreboard, RFC 6675 (Section 2 definitions and
//! Section 4 routines), over byte ranges above snd_una.

use std::ops::Deref;

/// Byte ranges held only during a loss episode (never by a sender without
/// SACK or one that loses nothing), behind a box allocated when the first
/// range arrives and freed when the last is forgotten: 8 bytes inline
/// instead of a `Vec`'s 24, nothing behind them between episodes, and a
/// cumulative ACK outside an episode (every ACK of a loss-free stretch)
/// reads nothing behind the box.
#[derive(Clone, Debug, Default)]
struct LazyRanges(
    /// Never an empty `Vec`: `None` when no range is held. (A boxed `Vec`:
    /// 8 bytes inline on every socket where the `Vec` takes 24.)
    #[allow(clippy::box_collection)]
    Option<Box<Vec<(u64, u64)>>>,
);

impl LazyRanges {
    /// Changes the ranges with `f` (allocating them if none are held),
    /// freeing them if `f` leaves none.
    #[inline]
    fn update<R>(&mut self, f: impl FnOnce(&mut Vec<(u64, u64)>) -> R) -> R {
        let v = self.0.get_or_insert_with(Box::default);
        let r = f(v);
        if v.is_empty() {
            self.0 = None;
        }
        r
    }
}

impl Deref for LazyRanges {
    type Target = [(u64, u64)];
    #[inline]
    fn deref(&self) -> &[(u64, u64)] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

/// Byte ranges `[start, end)` the receiver has SACKed: sorted, disjoint.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    ranges: LazyRanges,
}

impl Scoreboard {
    pub fn clear(&mut self) {
        self.ranges.0 = None;
    }

    /// Records a SACK block.
    pub fn add(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let i = self.ranges.partition_point(|r| r.1 < start);
        let (mut s, mut e) = (start, end);
        let mut j = i;
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            s = s.min(self.ranges[j].0);
            e = e.max(self.ranges[j].1);
            j += 1;
        }
        self.ranges.update(|v| {
            v.splice(i..j, std::iter::once((s, e)));
        });
    }

    /// Forgets everything below the cumulative ACK.
    #[inline]
    pub fn advance(&mut self, snd_una: u64) {
        // Called on every new ACK: outside a loss episode nothing is held.
        if self.ranges.0.is_none() {
            return;
        }
        self.ranges.update(|v| {
            let k = v.partition_point(|r| r.1 <= snd_una);
            v.drain(..k);
            if let Some(first) = v.first_mut() {
                first.0 = first.0.max(snd_una);
            }
        });
    }

    /// Whether byte `seq` has been SACKed.
    #[cfg(test)]
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        i < self.ranges.len() && self.ranges[i].0 <= seq
    }

    /// Bytes SACKed in all.
    pub fn total(&self) -> u64 {
        self.ranges.iter().map(|r| r.1 - r.0).sum()
    }

    /// Bytes SACKed strictly above `seq`.
    pub fn sacked_above(&self, seq: u64) -> u64 {
        self.ranges
            .iter()
            .rev()
            .take_while(|r| r.1 > seq + 1)
            .map(|r| r.1 - r.0.max(seq + 1))
            .sum()
    }

    /// RFC 6675 (4) IsLost: enough SACKed data above `seq` that it must
    /// have been lost: DupThresh discontiguous SACKed segments, or more than
    /// (DupThresh - 1) * SMSS bytes SACKed above it.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, mss: u64) -> bool {
        let mut bytes = 0;
        let mut segments = 0u64;
        for r in self.ranges.iter().rev() {
            if r.1 <= seq + 1 {
                break;
            }
            let len = r.1 - r.0.max(seq + 1);
            bytes += len;
            segments += len.div_ceil(mss);
        }
        segments >= dupthresh as u64 || bytes > (dupthresh as u64 - 1) * mss
    }

    /// The highest sequence `b` such that every un-SACKed byte below `b` is
    /// lost (IsLost holds at b - 1): the lost region is `[snd_una, b)` minus
    /// SACKed ranges. Found by scanning SACK range starts from the top.
    pub fn lost_boundary(&self, snd_una: u64, dupthresh: u32, mss: u64) -> u64 {
        // IsLost(seq) is monotone: true for every seq below some point.
        // Candidates are the starts of SACKed ranges (just below them the
        // amount SACKed above is largest for that gap).
        for r in self.ranges.iter().rev() {
            if r.0 > snd_una && self.is_lost(r.0 - 1, dupthresh, mss) {
                return r.0;
            }
        }
        snd_una
    }

    /// The first un-SACKed byte at or after `seq`, and where that hole ends
    /// (the next SACKed byte, or `limit`).
    pub fn next_hole(&self, seq: u64, limit: u64) -> Option<(u64, u64)> {
        let mut s = seq;
        for r in self.ranges.iter() {
            if r.1 <= s {
                continue;
            }
            if r.0 <= s {
                s = r.1;
                continue;
            }
            return (s < limit).then_some((s, r.0.min(limit)));
        }
        (s < limit).then_some((s, limit))
    }

    /// SACK ranges overlapping `[lo, hi)` (for pipe estimation).
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    #[test]
    fn is_lost_needs_three_segments_or_more_than_two_mss_above() {
        let mut sb = Scoreboard::default();
        sb.add(200, 300);
        sb.add(400, 500);
        assert!(
            !sb.is_lost(100, 3, MSS),
            "two SACKed segments above are not enough"
        );
        sb.add(600, 700);
        assert!(sb.is_lost(100, 3, MSS));
        assert!(!sb.is_lost(650, 3, MSS));
    }

    #[test]
    fn lost_boundary_and_holes() {
        let mut sb = Scoreboard::default();
        for s in [200, 400, 600, 800] {
            sb.add(s, s + 100);
        }
        // Holes: [100,200) [300,400) [500,600) [700,800). IsLost(599): SACKed
        // above 599 = 600-700 and 800-900 = 2 segments, 200 bytes: not lost.
        // IsLost(399): 3 segments above: lost. Boundary = 400.
        assert_eq!(sb.lost_boundary(100, 3, MSS), 400);
        assert_eq!(sb.next_hole(100, 1000), Some((100, 200)));
        assert_eq!(sb.next_hole(200, 1000), Some((300, 400)));
        assert_eq!(sb.next_hole(850, 1000), Some((900, 1000)));
        sb.advance(250);
        assert!(!sb.is_sacked(240));
        assert!(sb.is_sacked(250) && sb.is_sacked(299));
    }
}
