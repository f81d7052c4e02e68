//! BIC (Xu, Harfoush, Rhee, "Binary Increase Congestion Control for Fast,
//! Long Distance Networks", INFOCOM 2004): after a loss, search for the
//! available window by binary search between the window after the cut and
//! the window at the loss (W_max), with steps capped at S_max; above W_max,
//! probe for a new maximum with growing steps. Parameters and the per-ACK
//! form follow Linux's tcp_bic.c, which the outcast study ran.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::Time;

/// Linux BICTCP_BETA_SCALE: multiplicative decrease to 819/1024 (about 0.8).
pub const BETA: f64 = 819.0 / 1024.0;
/// Below this window (segments) BIC behaves as Reno (paper: low_window).
pub const LOW_WINDOW: f64 = 14.0;
/// S_max: the largest increase per RTT, segments (Linux max_increment).
pub const S_MAX: f64 = 16.0;
/// S_min: the smallest increase per RTT near W_max (paper: S_min = 0.01).
pub const S_MIN: f64 = 0.01;
/// Linux BICTCP_B: the search moves to (W_max - cwnd) / B per RTT (B = 4;
/// the paper's midpoint is B = 2, Linux smooths it).
pub const B: f64 = 4.0;

#[derive(Clone, Debug)]
pub struct Bic {
    mss: u64,
    /// The window at the last loss (segments); 0 before any.
    w_max: f64,
}

impl Bic {
    pub fn new(mss: u64) -> Bic {
        Bic { mss, w_max: 0.0 }
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Segments to add over the next RTT at window `cwnd` (segments).
    pub fn increment_per_rtt(&self, cwnd: f64) -> f64 {
        if cwnd < LOW_WINDOW || self.w_max == 0.0 {
            // Reno region: one segment per RTT.
            return 1.0;
        }
        if cwnd < self.w_max {
            // Binary search toward W_max, at most S_max, at least S_min.
            ((self.w_max - cwnd) / B).clamp(S_MIN, S_MAX)
        } else {
            // Max probing: slow near the old maximum, then faster, up to S_max
            // (Linux: cwnd (B - 1) / (cwnd - W_max) ACKs per segment).
            let over = cwnd - self.w_max;
            if over < B {
                S_MIN.max(B / 20.0)
            } else {
                (over / (B - 1.0)).min(S_MAX)
            }
        }
    }
}

impl CongestionControl for Bic {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        if w.in_slow_start() {
            NewReno.on_ack(w, ack);
            return;
        }
        let mss = self.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        // Spread the per-RTT increment over the cwnd ACKs of one RTT.
        let inc = self.increment_per_rtt(cwnd) * (ack.acked as f64 / mss) / cwnd;
        w.cwnd = ((cwnd + inc) * mss) as u64;
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _now: Time) -> u64 {
        let mss = self.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        // Fast convergence (paper, Section III-B): below the previous
        // maximum, remember a lower one to yield to newer flows.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        let target = if cwnd < LOW_WINDOW {
            cwnd / 2.0
        } else {
            cwnd * BETA
        };
        ((target * mss) as u64).max(2 * self.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn loss_at(b: &mut Bic, segs: u64) -> f64 {
        let w = Window {
            cwnd: segs * MSS,
            ssthresh: 1,
            mss: MSS,
        };
        b.ssthresh_after_loss(&w, segs * MSS, Time::ZERO) as f64 / MSS as f64
    }

    #[test]
    fn below_low_window_it_halves_like_reno() {
        let mut b = Bic::new(MSS);
        assert_eq!(loss_at(&mut b, 10), 5.0);
        assert_eq!(b.increment_per_rtt(8.0), 1.0);
    }

    #[test]
    fn binary_search_steps_shrink_toward_w_max_and_cap_at_s_max() {
        let mut b = Bic::new(MSS);
        let after = loss_at(&mut b, 100);
        assert!((after - 100.0 * BETA).abs() < 0.01);
        // From 79.98: (100 - 79.98) / 4 = 5.0 per RTT, then smaller steps.
        let mut cwnd = after;
        let mut steps = vec![];
        for _ in 0..5 {
            let s = b.increment_per_rtt(cwnd);
            steps.push(s);
            cwnd += s;
        }
        assert!((steps[0] - (100.0 - after) / 4.0).abs() < 1e-9);
        assert!(steps.windows(2).all(|p| p[1] < p[0]), "{steps:?}");
        assert!(cwnd < 100.0);
        // Far below W_max the step is capped at S_max.
        let mut big = Bic::new(MSS);
        loss_at(&mut big, 1000);
        assert_eq!(big.increment_per_rtt(500.0), S_MAX);
    }

    #[test]
    fn max_probing_accelerates_above_w_max() {
        let mut b = Bic::new(MSS);
        loss_at(&mut b, 100);
        let near = b.increment_per_rtt(101.0);
        let mid = b.increment_per_rtt(120.0);
        let far = b.increment_per_rtt(200.0);
        assert!(
            near < mid && mid <= far && far == S_MAX,
            "{near} {mid} {far}"
        );
    }

    #[test]
    fn fast_convergence_remembers_a_lower_maximum() {
        let mut b = Bic::new(MSS);
        loss_at(&mut b, 100);
        loss_at(&mut b, 90);
        assert!((b.w_max() - 90.0 * (1.0 + BETA) / 2.0).abs() < 1e-9);
    }
}
