//! BIC (Xu, Harfoush, Rhee, "Binary Increase Congestion Control for Fast,
//! Long Distance Networks", INFOCOM 2004): after a loss, search for the
//! available window by binary search between the window after the cut and
//! the window at the loss (W_max), with steps capped at S_max (additive
//! increase) and at least S_min; above W_max, probe for a new maximum with
//! steps that grow as in slow start (max probing). Below `low_window` BIC is
//! Reno. The rules are the paper's; parameter values are those of Linux's
//! tcp_bic.c (whose per-ACK search differs, see `increment_per_rtt`; Linux's
//! BIC is `bic.rs`). `cc = "bic_paper"`.
//!
//! The increase is decided once per RTT, as in the paper: a round starts on
//! the first congestion-avoidance ACK and ends when snd_una passes the snd_nxt
//! of its start; its increment is spread over the bytes acknowledged in it
//! (per-RTT increment / cwnd per segment), with fractions of a byte carried
//! from ACK to ACK.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::Time;

/// Multiplicative decrease to beta W (paper: beta = 0.8; Linux
/// BICTCP_BETA_SCALE: 819/1024).
pub const BETA: f64 = 819.0 / 1024.0;
/// Below this window (segments) BIC behaves as Reno (paper and Linux:
/// low_window = 14).
pub const LOW_WINDOW: f64 = 14.0;
/// S_max: the largest increase per RTT, segments (Linux max_increment = 16).
pub const S_MAX: f64 = 16.0;
/// S_min: the smallest increase per RTT in the binary search (paper: 0.01).
pub const S_MIN: f64 = 0.01;

#[derive(Clone, Debug)]
pub struct BicPaper {
    mss: u64,
    /// The window at the last loss (segments), lowered by fast convergence;
    /// 0 before any loss.
    w_max: f64,
    /// The current round ends when snd_una passes this; None: no round
    /// (slow start, or a loss since).
    round_end: Option<u64>,
    /// The round's increase per byte acknowledged, in bytes.
    inc_per_byte: f64,
    /// Fraction of a byte of cwnd carried between ACKs, valid while the
    /// socket leaves cwnd at `written`.
    frac: f64,
    written: u64,
}

impl BicPaper {
    pub fn new(mss: u64) -> BicPaper {
        BicPaper {
            mss,
            w_max: 0.0,
            round_end: None,
            inc_per_byte: 0.0,
            frac: 0.0,
            written: 0,
        }
    }

    /// W_max in segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Segments to add over the next RTT at window `cwnd` (segments).
    pub fn increment_per_rtt(&self, cwnd: f64) -> f64 {
        if cwnd < LOW_WINDOW {
            // Paper (low_window), Linux: Reno's one segment per RTT.
            return 1.0;
        }
        if cwnd < self.w_max {
            // Paper, binary search increase: the target is the midpoint
            // (W_max + cwnd) / 2; a step larger than S_max is replaced by S_max
            // (additive increase), one smaller than S_min by S_min. (Linux
            // moves (W_max - cwnd) / 4 per RTT, at least 0.2 segment.)
            ((self.w_max - cwnd) / 2.0).clamp(S_MIN, S_MAX)
        } else {
            // Paper, max probing, symmetric to the binary search: slow
            // start-like steps 1, 2, 4, ... above W_max (the distance above
            // W_max, plus one, doubles each RTT), then S_max per RTT. Before
            // any loss (W_max = 0) that is S_max per RTT. (Linux: 0.2 per RTT
            // within 4 segments of W_max, then (cwnd - W_max) / 3, up to 16.)
            (cwnd - self.w_max + 1.0).min(S_MAX)
        }
    }

    fn exact_cwnd(&self, w: &Window) -> f64 {
        if w.cwnd == self.written {
            w.cwnd as f64 + self.frac
        } else {
            w.cwnd as f64
        }
    }
}

impl CongestionControl for BicPaper {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        if w.in_slow_start() {
            // RFC 5681 (3.1) slow start, as Linux's BIC.
            self.round_end = None;
            NewReno.on_ack(w, ack);
            return;
        }
        let mss = self.mss as f64;
        let cwnd = self.exact_cwnd(w);
        if self.round_end.is_none_or(|end| ack.snd_una > end) {
            // A new round: its increase, spread over one window of bytes.
            self.round_end = Some(ack.snd_nxt);
            self.inc_per_byte = self.increment_per_rtt(cwnd / mss) * mss / cwnd;
        }
        let bytes = cwnd + self.inc_per_byte * ack.acked as f64;
        w.cwnd = bytes.floor() as u64;
        self.frac = bytes - bytes.floor();
        self.written = w.cwnd;
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _now: Time) -> u64 {
        let mss = self.mss as f64;
        let cwnd = self.exact_cwnd(w) / mss;
        // Paper, fast convergence, and Linux: a loss below the previous
        // maximum remembers the lower (1 + beta) / 2 of the window, so that a
        // flow losing ground yields to newer flows.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.round_end = None;
        self.frac = 0.0;
        // Paper, Linux bictcp_recalc_ssthresh: Reno's halving below
        // low_window, beta W above; at least 2 segments (RFC 5681 eq. (4)).
        let target = if cwnd < LOW_WINDOW {
            cwnd / 2.0
        } else {
            cwnd * BETA
        };
        ((target * mss).round() as u64).max(2 * self.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::testing;

    const MSS: u64 = 1000;

    /// A loss at `segs` and the recovery that leaves cwnd = ssthresh.
    fn loss_at(b: &mut BicPaper, w: &mut Window, segs: f64) {
        w.cwnd = (segs * MSS as f64) as u64;
        w.ssthresh = b.ssthresh_after_loss(w, w.cwnd, Time::ZERO);
        w.cwnd = w.ssthresh;
    }

    fn window() -> Window {
        Window {
            cwnd: 0,
            ssthresh: 0,
            mss: MSS,
        }
    }

    /// One RTT of full-sized ACKs covering one window of bytes (`seq` is
    /// snd_una, advanced); returns the window afterwards, in segments.
    fn round(b: &mut BicPaper, w: &mut Window, seq: &mut u64) -> f64 {
        let flight = w.cwnd;
        let nxt = *seq + flight;
        let mut left = flight;
        while left > 0 {
            let n = left.min(MSS);
            *seq += n;
            left -= n;
            let a = AckEvent {
                acked: n,
                ..testing::ack(Time::ZERO, MSS, flight, Time::from_us(100), *seq, nxt)
            };
            b.on_ack(w, &a);
        }
        w.cwnd as f64 / MSS as f64
    }

    #[test]
    fn below_low_window_it_halves_like_reno_and_adds_one_per_rtt() {
        let mut b = BicPaper::new(MSS);
        let mut w = window();
        loss_at(&mut b, &mut w, 10.0);
        assert_eq!(w.cwnd, 5 * MSS);
        let mut seq = 0;
        assert!((round(&mut b, &mut w, &mut seq) - 6.0).abs() < 2e-3);
        assert!((round(&mut b, &mut w, &mut seq) - 7.0).abs() < 2e-3);
    }

    #[test]
    fn binary_search_moves_halfway_to_w_max_each_rtt() {
        let mut b = BicPaper::new(MSS);
        let mut w = window();
        loss_at(&mut b, &mut w, 100.0);
        // ssthresh = 100 * 819 / 1024 = 79.98 segments.
        assert_eq!(w.cwnd, 79_980);
        assert_eq!(b.w_max(), 100.0);
        // Each RTT the window moves to the midpoint of itself and 100:
        // 79.98 -> 89.99 -> 94.995 -> 97.4975 -> 98.74875 -> ...
        let mut seq = 0;
        let mut want = 79.98f64;
        for _ in 0..8 {
            want += (100.0 - want) / 2.0;
            let got = round(&mut b, &mut w, &mut seq);
            assert!((got - want).abs() < 2e-3, "{got} vs {want}");
        }
        assert!(w.cwnd < 100 * MSS);
    }

    #[test]
    fn far_below_w_max_the_step_is_s_max() {
        let mut b = BicPaper::new(MSS);
        let mut w = window();
        loss_at(&mut b, &mut w, 500.0);
        // 399.9 segments; halfway to 500 would be +50: additive increase of
        // S_max = 16 per RTT until the midpoint step drops below 16 (within
        // 32 segments of W_max).
        let mut seq = 0;
        let mut want = 500.0 * BETA;
        for _ in 0..4 {
            want += 16.0;
            let got = round(&mut b, &mut w, &mut seq);
            assert!((got - want).abs() < 2e-3, "{got} vs {want}");
        }
        assert_eq!(b.increment_per_rtt(468.0), 16.0);
        assert_eq!(b.increment_per_rtt(470.0), 15.0);
    }

    #[test]
    fn near_w_max_the_step_is_s_min() {
        let mut b = BicPaper::new(MSS);
        let mut w = window();
        loss_at(&mut b, &mut w, 100.0);
        assert_eq!(b.increment_per_rtt(99.99), S_MIN);
        assert_eq!(b.increment_per_rtt(99.98), S_MIN);
        assert!((b.increment_per_rtt(99.9) - 0.05).abs() < 1e-9);
    }

    #[test]
    fn max_probing_above_w_max_grows_1_2_4_8_then_s_max() {
        let mut b = BicPaper::new(MSS);
        let mut w = window();
        loss_at(&mut b, &mut w, 100.0);
        w.cwnd = 100 * MSS; // the search has reached W_max
        let mut seq = 0;
        let mut prev = 100.0;
        for step in [1.0, 2.0, 4.0, 8.0, 16.0, 16.0, 16.0] {
            let got = round(&mut b, &mut w, &mut seq);
            assert!((got - prev - step).abs() < 2e-3, "{got} - {prev} != {step}");
            prev = got;
        }
    }

    #[test]
    fn fast_convergence_remembers_a_lower_maximum() {
        let mut b = BicPaper::new(MSS);
        let mut w = window();
        loss_at(&mut b, &mut w, 100.0);
        loss_at(&mut b, &mut w, 90.0);
        assert!((b.w_max() - 90.0 * (1.0 + BETA) / 2.0).abs() < 1e-9);
        // A loss above the remembered maximum: W_max = cwnd.
        loss_at(&mut b, &mut w, 95.0);
        assert_eq!(b.w_max(), 95.0);
    }

    #[test]
    fn a_loss_restarts_the_round_from_the_reduced_window() {
        let mut b = BicPaper::new(MSS);
        let mut w = window();
        loss_at(&mut b, &mut w, 100.0);
        let mut seq = 0;
        round(&mut b, &mut w, &mut seq);
        // A loss at 89.99 (below W_max: W_max = 89.99 * 0.9 = 80.99) cuts to
        // 71.97; the next round searches toward 80.99, not toward 100.
        let at = w.cwnd as f64 / MSS as f64;
        loss_at(&mut b, &mut w, at);
        let start = w.cwnd as f64 / MSS as f64;
        let wmax = at * (1.0 + BETA) / 2.0;
        let got = round(&mut b, &mut w, &mut seq);
        assert!((got - (start + (wmax - start) / 2.0)).abs() < 2e-3);
    }
}
