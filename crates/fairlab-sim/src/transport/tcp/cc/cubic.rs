//! CUBIC, RFC 9438: after a congestion event the window follows a cubic
//! function of the time since congestion avoidance resumed, concave up to the
//! old maximum W_max and convex beyond it, independent of the RTT; a
//! Reno-friendly estimate W_est is a floor. Linux's default.
//!
//! Internally windows are real numbers of segments (the RFC's units); the
//! socket's `cwnd` is whole bytes, so the fraction of a byte that each ACK's
//! increase leaves over is carried to the next ACK instead of being lost.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::{OptTime, Time};

/// RFC 9438 (4.1.1): C = 0.4 (segments / second^3).
pub const C: f64 = 0.4;
/// RFC 9438 (4.1.1), (4.6): multiplicative decrease factor beta_cubic = 0.7.
pub const BETA: f64 = 0.7;
/// RFC 9438 (4.3): alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic), the
/// additive increase per RTT of W_est that matches Reno's average window.
pub const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);
/// The RTT assumed before any sample (the simulator's data-center scale).
const DEFAULT_RTT_S: f64 = 100e-6;

#[derive(Clone, Debug)]
pub struct Cubic {
    // (The segment size is the window's, `Window::mss`: not kept twice.)
    /// W_max (segments): the window just before the last reduction, lowered
    /// by fast convergence; 0 before the first congestion event.
    w_max: f64,
    /// cwnd_prior (segments): the window at the last congestion event, for
    /// the alpha_cubic switch of RFC 9438 (4.3); 0 before any.
    cwnd_prior: f64,
    /// K (seconds), RFC 9438 (4.2) eq. 2.
    k: f64,
    /// t_epoch: when the current congestion-avoidance stage began.
    epoch_start: OptTime,
    /// W_est (segments), RFC 9438 (4.3).
    w_est: f64,
    /// The last congestion event was a timeout: RFC 9438 (4.8) restarts the
    /// curve with K = 0 at the next congestion-avoidance stage.
    after_timeout: bool,
    /// Fraction of a byte of cwnd carried between ACKs, valid while the
    /// socket leaves cwnd at `written` (the value this algorithm last set).
    frac: f64,
    written: u64,
}

impl Default for Cubic {
    fn default() -> Cubic {
        Cubic::new()
    }
}

impl Cubic {
    pub fn new() -> Cubic {
        Cubic {
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start: OptTime::NONE,
            w_est: 0.0,
            after_timeout: false,
            frac: 0.0,
            written: 0,
        }
    }

    /// RFC 9438 (4.2) eq. 1: W_cubic(t) = C (t - K)^3 + W_max, in segments,
    /// t in seconds since the epoch began.
    pub fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }

    /// RFC 9438 (4.2) eq. 2: K = cbrt((W_max - cwnd_epoch) / C). Right after a
    /// reduction to beta_cubic W_max this is cbrt(W_max (1 - beta_cubic) / C).
    pub fn k_for(w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / C).cbrt()
    }

    /// W_max in segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    /// K in seconds.
    pub fn k(&self) -> f64 {
        self.k
    }
    /// W_est in segments.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// RFC 9438 (4.3): alpha_cubic until W_est reaches cwnd_prior, then 1
    /// ("the sender SHOULD set alpha_cubic to 1"), Reno's own rate.
    pub fn alpha(&self) -> f64 {
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA_CUBIC
        }
    }

    /// A congestion event (loss, ECN-Echo or timeout): the new ssthresh.
    fn on_congestion(&mut self, w: &Window) -> u64 {
        let mss = w.mss as f64;
        let cwnd = self.exact_cwnd(w) / mss;
        // RFC 9438 (4.7) fast convergence: a flow whose maximum shrinks
        // releases bandwidth sooner by remembering a lower one.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        // RFC 9438 (4.2): the next congestion-avoidance stage is a new epoch.
        self.epoch_start = OptTime::NONE;
        self.frac = 0.0;
        // RFC 9438 (4.6): ssthresh = beta_cubic times the window, at least 2
        // segments. The window is cwnd, as in Linux (the RFC's pseudo-code
        // has flight_size and lets implementations use cwnd).
        ((cwnd * BETA * mss).round() as u64).max(2 * w.mss)
    }

    /// cwnd in bytes with the carried fraction, if the socket has not
    /// changed cwnd since this algorithm last wrote it.
    fn exact_cwnd(&self, w: &Window) -> f64 {
        if w.cwnd == self.written {
            w.cwnd as f64 + self.frac
        } else {
            w.cwnd as f64
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        if w.in_slow_start() {
            // RFC 9438 (4.10): standard slow start, RFC 5681 (3.1) cwnd +=
            // min(N, SMSS) (no HyStart++); the epoch begins when congestion
            // avoidance does.
            self.epoch_start = OptTime::NONE;
            NewReno.on_ack(w, ack);
            return;
        }
        let mss = w.mss as f64;
        let cwnd = self.exact_cwnd(w) / mss;
        let start = match self.epoch_start.get() {
            Some(s) => s,
            None => {
                // RFC 9438 (4.2): a new epoch; cwnd_epoch = cwnd.
                if self.after_timeout || self.w_max <= cwnd {
                    // RFC 9438 (4.8): the first stage after a timeout has
                    // K = 0 and W_max = cwnd at its beginning; likewise when
                    // no congestion event left a maximum above cwnd (the
                    // first stage after slow start, as Linux does).
                    self.w_max = cwnd;
                    self.k = 0.0;
                } else {
                    self.k = Cubic::k_for(self.w_max, cwnd);
                }
                self.after_timeout = false;
                // RFC 9438 (4.3), (4.8): W_est = cwnd_epoch.
                self.w_est = cwnd;
                self.epoch_start = OptTime::some(ack.now);
                ack.now
            }
        };
        let t = ack.now.saturating_sub(start).as_secs_f64();
        // RTT in W_cubic(t + RTT): the connection's minimum RTT (Linux's
        // delay_min), else this ACK's sample.
        let rtt = ack
            .min_rtt
            .or(ack.rtt)
            .map_or(DEFAULT_RTT_S, |r| r.as_secs_f64());
        let segs_acked = ack.acked as f64 / mss;
        // RFC 9438 (4.3): W_est += alpha_cubic * segments_acked / cwnd.
        self.w_est += self.alpha() * segs_acked / cwnd;
        let new = if self.w_cubic(t) < self.w_est {
            // RFC 9438 (4.3): the Reno-friendly region, cwnd = W_est.
            self.w_est
        } else {
            // RFC 9438 (4.4), (4.5): concave and convex regions. target =
            // W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd]; cwnd grows by
            // (target - cwnd) / cwnd per segment acknowledged, never past target.
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            (cwnd + (target - cwnd) / cwnd * segs_acked).min(target)
        };
        // The window never shrinks on an ACK.
        if new > cwnd {
            let bytes = new * mss;
            w.cwnd = bytes.floor() as u64;
            self.frac = bytes - bytes.floor();
            self.written = w.cwnd;
        }
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _now: Time) -> u64 {
        self.after_timeout = false;
        self.on_congestion(w)
    }

    /// RFC 9438 (4.8): ssthresh as for a loss (4.6); the socket then sets
    /// cwnd to one segment and slow start follows; the next congestion
    /// avoidance stage starts the curve at its own window with K = 0.
    fn ssthresh_after_timeout(
        &mut self,
        w: &Window,
        _flight: u64,
        _now: Time,
        _fresh: bool,
    ) -> u64 {
        let s = self.on_congestion(w);
        self.after_timeout = true;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::testing;

    const MSS: u64 = 1000;

    fn window(segs: u64) -> Window {
        Window {
            cwnd: segs * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        }
    }

    /// A loss at `segs`, then cwnd = ssthresh (the socket's recovery exit).
    fn loss(c: &mut Cubic, w: &mut Window, segs: u64) {
        w.cwnd = segs * MSS;
        w.ssthresh = c.ssthresh_after_loss(w, segs * MSS, Time::ZERO);
        w.cwnd = w.ssthresh;
    }

    fn seg(w: &Window) -> f64 {
        w.cwnd as f64 / MSS as f64
    }

    #[test]
    fn loss_at_100_segments_sets_ssthresh_70_and_k_4_217_s() {
        let mut c = Cubic::new();
        let mut w = window(100);
        loss(&mut c, &mut w, 100);
        // RFC 9438 (4.6): ssthresh = 0.7 * 100.
        assert_eq!(w.ssthresh, 70 * MSS);
        assert_eq!(c.w_max(), 100.0);
        // The first congestion-avoidance ACK starts the epoch at cwnd = 70:
        // K = cbrt((100 - 70) / 0.4) = cbrt(100 * 0.3 / 0.4) = 4.2172 s.
        c.on_ack(
            &mut w,
            &testing::ack(Time::ZERO, MSS, 0, Time::from_ms(100), 0, 0),
        );
        let k = (100.0f64 * 0.3 / 0.4).cbrt();
        assert!((c.k() - k).abs() < 1e-12);
        assert!((c.k() - 4.2172).abs() < 1e-4);
        // W(K) = W_max; W(2) = 0.4 (2 - 4.2172)^3 + 100 = 95.640; W(0) = 70.
        assert!((c.w_cubic(k) - 100.0).abs() < 1e-9);
        assert!((c.w_cubic(2.0) - (0.4 * (2.0 - k).powi(3) + 100.0)).abs() < 1e-9);
        assert!((c.w_cubic(2.0) - 95.640).abs() < 1e-3);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
    }

    #[test]
    fn ssthresh_is_at_least_two_segments() {
        let mut c = Cubic::new();
        assert_eq!(
            c.ssthresh_after_loss(&window(2), 2 * MSS, Time::ZERO),
            2 * MSS
        );
    }

    #[test]
    fn concave_region_adds_target_minus_cwnd_over_cwnd_per_ack() {
        let mut c = Cubic::new();
        let mut w = window(100);
        loss(&mut c, &mut w, 100);
        let rtt = Time::from_ms(100);
        // Epoch starts at t = 0 (cwnd 70; W_cubic(0) = 70 < W_est: the
        // Reno-friendly step 70 + alpha_cubic / 70).
        c.on_ack(&mut w, &testing::ack(Time::ZERO, MSS, 0, rtt, 0, 0));
        let c0 = 70.0 + ALPHA_CUBIC / 70.0;
        assert!((seg(&w) - c0).abs() < 1e-3, "{}", seg(&w));
        // At t = 2 s: W_cubic(2) = 95.64 > W_est, target = W_cubic(2.1).
        c.on_ack(&mut w, &testing::ack(Time::from_secs(2), MSS, 0, rtt, 0, 0));
        let k = (30.0f64 / 0.4).cbrt();
        let target = 0.4 * (2.1 - k).powi(3) + 100.0;
        assert!((target - 96.204).abs() < 1e-3);
        let want = c0 + (target - c0) / c0;
        assert!((seg(&w) - want).abs() < 1e-3, "{} vs {want}", seg(&w));
        // The target is capped at 1.5 cwnd: far beyond K the step is 0.5.
        let before = seg(&w);
        c.on_ack(
            &mut w,
            &testing::ack(Time::from_secs(60), MSS, 0, rtt, 0, 0),
        );
        assert!((seg(&w) - (before + 0.5)).abs() < 1e-3);
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_previous_maximum() {
        let mut c = Cubic::new();
        let mut w = window(100);
        loss(&mut c, &mut w, 100);
        // RFC 9438 (4.7): a loss at 80 < 100 remembers 80 (1 + 0.7) / 2 = 68.
        loss(&mut c, &mut w, 80);
        assert!((c.w_max() - 68.0).abs() < 1e-9);
        assert_eq!(w.ssthresh, 56 * MSS);
        // K = cbrt((68 - 56) / 0.4) = cbrt(30): the plateau comes sooner and lower.
        c.on_ack(
            &mut w,
            &testing::ack(Time::ZERO, MSS, 0, Time::from_ms(1), 0, 0),
        );
        assert!((c.k() - 30.0f64.cbrt()).abs() < 1e-9);
        // Above the last maximum, W_max = cwnd.
        loss(&mut c, &mut w, 90);
        assert_eq!(c.w_max(), 90.0);
    }

    #[test]
    fn window_follows_the_cubic_curve_between_losses() {
        // W_max = 100, cwnd = 70 after the loss, RTT 1 s: concave growth that
        // reaches W_max about K = 4.2 s after the loss, then convex growth.
        let mut c = Cubic::new();
        let mut w = window(100);
        loss(&mut c, &mut w, 100);
        let rtt = Time::from_ms(1000);
        let mut t = Time::ZERO;
        let mut at = vec![];
        for _ in 0..7 {
            at.push(seg(&w));
            // One RTT of ACKs spread evenly over the RTT. Each aims at
            // W_cubic(now + RTT) and closes 1/cwnd of the gap: the window
            // lags its target by about one RTT, so it tracks W_cubic(now).
            let n = w.cwnd / MSS;
            for i in 0..n {
                let now = t + Time(rtt.0 / n * i);
                c.on_ack(&mut w, &testing::ack(now, MSS, 0, rtt, 0, 0));
            }
            t += rtt;
        }
        at.push(seg(&w));
        let k = (30.0f64 / 0.4).cbrt();
        // W_cubic(1..=7 s) = 86.68, 95.64, 99.28, 100.00, 100.19, 102.27, 108.62.
        // The window is within a few segments of it (it lags on the curve's
        // bend: 83.2, 92.3, 97.0, 98.9, 100.3, 103.5, 110.9).
        for (s, got) in at.iter().enumerate().skip(1) {
            let want = 0.4 * (s as f64 - k).powi(3) + 100.0;
            assert!((got - want).abs() < 4.0, "t = {s}: {got} vs {want}");
        }
        // Concave, then convex: growth slows toward W_max, then speeds up.
        let d: Vec<f64> = at.windows(2).map(|p| p[1] - p[0]).collect();
        assert!(d[1] > d[2] && d[2] > d[3] && d[3] > d[4], "{d:?}");
        assert!(d[4] < d[5] && d[5] < d[6], "{d:?}");
        assert!((at[5] - 100.0).abs() < 1.0, "plateau near K: {}", at[5]);
    }

    #[test]
    fn reno_friendly_region_dominates_at_small_rtt_and_window() {
        // W_max = 10, cwnd 7 after the loss, K = cbrt(7.5) = 1.96 s: over a few
        // ms at 100 us RTT the cubic curve stays at ~7 while W_est grows by
        // alpha_cubic / cwnd per ACK, then by 1 / cwnd once W_est >= cwnd_prior
        // = 10. cwnd = W_est throughout.
        let mut c = Cubic::new();
        let mut w = window(10);
        loss(&mut c, &mut w, 10);
        assert_eq!(w.cwnd, 7 * MSS);
        let rtt = Time::from_us(100);
        let mut t = Time::ZERO;
        let mut west = 7.0f64;
        for _ in 0..20 {
            for _ in 0..w.cwnd / MSS {
                let alpha = if west >= 10.0 { 1.0 } else { ALPHA_CUBIC };
                west += alpha / west;
                c.on_ack(&mut w, &testing::ack(t, MSS, 0, rtt, 0, 0));
                assert!(c.w_cubic(t.as_secs_f64()) < c.w_est());
                assert!((seg(&w) - west).abs() < 2e-3, "{} vs {west}", seg(&w));
            }
            t += rtt;
        }
        // ~5.7 RTTs at 0.529 per RTT to reach 10, then ~1 per RTT: about
        // 10 + 14 = 24 segments, far above W_cubic(2 ms) = 7.
        assert!((seg(&w) - 24.0).abs() < 1.0, "{}", seg(&w));
        assert!(c.w_cubic(t.as_secs_f64()) < 7.01);
    }

    #[test]
    fn alpha_cubic_switches_to_one_at_the_prior_window() {
        let mut c = Cubic::new();
        let mut w = window(10);
        loss(&mut c, &mut w, 10);
        c.on_ack(
            &mut w,
            &testing::ack(Time::ZERO, MSS, 0, Time::from_us(100), 0, 0),
        );
        assert!((c.alpha() - 0.529_411_764_705_882_4).abs() < 1e-12);
        assert!((ALPHA_CUBIC - 9.0 / 17.0).abs() < 1e-15);
        c.w_est = 10.0;
        assert_eq!(c.alpha(), 1.0);
    }

    #[test]
    fn timeout_restarts_the_curve_at_the_window_where_avoidance_begins() {
        let mut c = Cubic::new();
        let mut w = window(100);
        w.ssthresh = c.ssthresh_after_timeout(&w, 100 * MSS, Time::ZERO, true);
        assert_eq!(w.ssthresh, 70 * MSS);
        w.cwnd = MSS;
        let rtt = Time::from_ms(1);
        // Slow start back to ssthresh: one MSS per ACK.
        while w.in_slow_start() {
            let before = w.cwnd;
            c.on_ack(&mut w, &testing::ack(Time::ZERO, MSS, 0, rtt, 0, 0));
            assert_eq!(w.cwnd, before + MSS);
        }
        // RFC 9438 (4.8): K = 0, W_max = W_est = cwnd at the stage's start
        // (W_est then grows by alpha_cubic / cwnd: below cwnd_prior = 100).
        let cwnd = seg(&w);
        c.on_ack(&mut w, &testing::ack(Time::from_ms(5), MSS, 0, rtt, 0, 0));
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), cwnd);
        assert!((c.w_est() - (cwnd + ALPHA_CUBIC / cwnd)).abs() < 1e-9);
    }

    #[test]
    fn sub_byte_increases_accumulate() {
        // At 1400 segments each ACK adds alpha_cubic / 1400 of a segment,
        // 0.38 byte: the fractions add up instead of being truncated away.
        let mut c = Cubic::new();
        let mut w = window(2000);
        loss(&mut c, &mut w, 2000);
        assert_eq!(w.cwnd, 1400 * MSS);
        let rtt = Time::from_us(100);
        let mut west = 1400.0f64;
        for _ in 0..10_000 {
            west += ALPHA_CUBIC / west;
            c.on_ack(&mut w, &testing::ack(Time::ZERO, MSS, 0, rtt, 0, 0));
        }
        // About 10_000 x 0.378 bytes: 3776 bytes.
        assert!((west - 1403.776).abs() < 1e-3, "{west}");
        assert_eq!(w.cwnd, (west * MSS as f64).floor() as u64);
    }
}
