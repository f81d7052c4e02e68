//! The median-of-five model the seed proposes (§4.3): the continuous, passive
//! variant of Pathload. Every five received datagrams give one median of
//! their relative delays; a sliding window of the most recent medians is
//! tested for a trend with Pathload's PCT and PDT after each new median.
//!
//! Readings taken:
//! - The relative delay of a datagram is its RFD against the stream's first
//!   received datagram, ΣRFD from the start = (R_k − R_0) − (S_k − S_0); the
//!   sum telescopes, so it is kept as that difference.
//! - Groups of five are consecutive and disjoint (one median per five
//!   datagrams, not a running median per datagram), as "the median of every
//!   five delay measurements" reads.
//! - Window: the last [`WINDOW_MEDIANS`] = 10 medians (50 datagrams), the
//!   same number of points Pathload tests per 100-packet train (Γ = 10), so
//!   the same thresholds apply to the same sample size; with fewer than 5
//!   medians in the window the trend is Unknown, as Pathload discards fewer
//!   than 5 groups. PCT divides by Γ − 1 (see [`PctDivisor`]).
//! - Depth: the newest median above a running baseline, the lowest median
//!   seen on the stream so far (the least-queued delay, where the clock
//!   offset cancels), over L/C. It is never negative. Clock skew or a
//!   receive-side backlog that grows all run raises it steadily, which is the
//!   "ever-increasing" median-filter curve of the seed's Figure 5.2.

use super::pathload::{pathload_trend, PctDivisor};
use super::{delay_to_pkts, Estimate};

/// Datagrams per median.
pub const GROUP_PKTS: usize = 5;
/// Medians in the sliding trend window.
pub const WINDOW_MEDIANS: usize = 10;

/// The median of five values by a selection network (six compare-exchanges
/// and a last comparison), the per-group cost of this model.
fn median_of_five(v: [i64; 5]) -> i64 {
    let [mut a, mut b, mut c, mut d, e] = v;
    // Order the pairs (a, b) and (c, d), then drop the least of their
    // minima: it is below three others, so it cannot be the median.
    if a > b {
        std::mem::swap(&mut a, &mut b);
    }
    if c > d {
        std::mem::swap(&mut c, &mut d);
    }
    if a > c {
        std::mem::swap(&mut a, &mut c);
        std::mem::swap(&mut b, &mut d);
    }
    // Now a <= c <= d and a <= b: drop a; pair e with b.
    let (mut b, mut e) = (b, e);
    if b > e {
        std::mem::swap(&mut b, &mut e);
    }
    // Among b <= e and c <= d, drop the least of b and c; the median is
    // the lesser of the other minimum and the maximum beside it.
    if b > c {
        std::mem::swap(&mut b, &mut c);
        std::mem::swap(&mut e, &mut d);
    }
    // b is the least of four: the median is min(c, e).
    c.min(e)
}

/// The median-of-five queue model. Fixed-size rings only: no allocation.
#[derive(Clone, Debug)]
pub struct Median5 {
    service_ps: i64,
    reference: Option<(i64, i64)>,
    group: [i64; GROUP_PKTS],
    group_len: usize,
    window: [f64; WINDOW_MEDIANS],
    window_len: usize,
    window_next: usize,
    baseline_ps: Option<f64>,
    last: Option<Estimate>,
}

impl Median5 {
    /// A model whose depth is in packets of `service_ps` (L/C).
    pub fn new(service_ps: i64) -> Median5 {
        Median5 {
            service_ps,
            reference: None,
            group: [0; GROUP_PKTS],
            group_len: 0,
            window: [0.0; WINDOW_MEDIANS],
            window_len: 0,
            window_next: 0,
            baseline_ps: None,
            last: None,
        }
    }

    /// One datagram (arrival order). Returns an estimate every fifth call.
    pub fn observe(&mut self, sent_ps: i64, recv_ps: i64) -> Option<Estimate> {
        let (sent_0, recv_0) = *self.reference.get_or_insert((sent_ps, recv_ps));
        self.group[self.group_len] = crate::rfd::rfd_ps(sent_0, recv_0, sent_ps, recv_ps);
        self.group_len += 1;
        if self.group_len < GROUP_PKTS {
            return None;
        }
        self.group_len = 0;
        let median_ps = median_of_five(self.group) as f64;
        self.push_median(median_ps);
        let baseline_ps = self.baseline_ps.map_or(median_ps, |b| b.min(median_ps));
        self.baseline_ps = Some(baseline_ps);
        let mut ordered = [0.0; WINDOW_MEDIANS];
        let medians = self.window_in_order(&mut ordered);
        let estimate = Estimate {
            depth_pkts: delay_to_pkts(median_ps - baseline_ps, self.service_ps),
            trend: pathload_trend(medians, PctDivisor::PairsGammaMinusOne).trend,
        };
        self.last = Some(estimate);
        Some(estimate)
    }

    fn push_median(&mut self, median_ps: f64) {
        self.window[self.window_next] = median_ps;
        self.window_next = (self.window_next + 1) % WINDOW_MEDIANS;
        self.window_len = (self.window_len + 1).min(WINDOW_MEDIANS);
    }

    /// The window's medians oldest first, copied into `out`.
    fn window_in_order<'a>(&self, out: &'a mut [f64; WINDOW_MEDIANS]) -> &'a [f64] {
        let oldest = (self.window_next + WINDOW_MEDIANS - self.window_len) % WINDOW_MEDIANS;
        for (k, slot) in out.iter_mut().take(self.window_len).enumerate() {
            *slot = self.window[(oldest + k) % WINDOW_MEDIANS];
        }
        &out[..self.window_len]
    }

    /// The latest estimate.
    pub fn last(&self) -> Option<Estimate> {
        self.last
    }
}

#[cfg(test)]
mod median_tests {
    use super::median_of_five;

    /// The network agrees with sorting on every order of five values, ties
    /// included.
    #[test]
    fn the_selection_network_is_the_sorted_middle() {
        let mut checked = 0;
        for code in 0..5u32.pow(5) {
            let mut v = [0i64; 5];
            let mut c = code;
            for x in &mut v {
                *x = (c % 5) as i64 - 2;
                c /= 5;
            }
            let mut s = v;
            s.sort_unstable();
            assert_eq!(median_of_five(v), s[2], "{v:?}");
            checked += 1;
        }
        assert_eq!(checked, 3125);
    }
}
