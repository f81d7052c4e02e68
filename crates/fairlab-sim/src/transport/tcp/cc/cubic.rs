//! CUBIC, RFC 9438: after a loss the window follows a cubic function of the
//! time since the loss, concave up to the old maximum W_max and convex beyond
//! it, independent of the RTT; with a Reno-friendly floor. Linux's default.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::Time;

/// RFC 9438 (5): C = 0.4.
pub const C: f64 = 0.4;
/// RFC 9438 (4.6): multiplicative decrease factor 0.7.
pub const BETA: f64 = 0.7;
/// RFC 9438 (4.3): alpha_cubic = 3 (1 - beta) / (1 + beta), Reno-friendly.
pub const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);
/// RTT assumed before any sample (the simulator's data-center scale).
const DEFAULT_RTT_S: f64 = 100e-6;

#[derive(Clone, Debug)]
pub struct Cubic {
    mss: u64,
    /// W_max in segments (0 before the first congestion event).
    w_max: f64,
    /// K in seconds, RFC 9438 (4.2).
    k: f64,
    epoch_start: Option<Time>,
    /// W_est in segments, RFC 9438 (4.3).
    w_est: f64,
}

impl Cubic {
    pub fn new(mss: u64) -> Cubic {
        Cubic {
            mss,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
        }
    }

    /// RFC 9438 (4.2) eq. 1: W_cubic(t) = C (t - K)^3 + W_max, in segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }

    /// RFC 9438 (4.2) eq. 2: K = cbrt((W_max - cwnd_epoch) / C).
    pub fn k_for(w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / C).cbrt()
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    pub fn k(&self) -> f64 {
        self.k
    }

    fn on_congestion(&mut self, w: &Window) -> u64 {
        let cwnd = w.cwnd as f64 / self.mss as f64;
        // RFC 9438 (4.7) fast convergence: a flow whose maximum shrinks
        // releases bandwidth sooner.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.epoch_start = None;
        // RFC 9438 (4.6): ssthresh = cwnd * beta_cubic, at least 2 segments.
        ((cwnd * BETA * self.mss as f64) as u64).max(2 * self.mss)
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        if w.in_slow_start() {
            NewReno.on_ack(w, ack);
            return;
        }
        let mss = self.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let start = *self.epoch_start.get_or_insert_with(|| {
            // RFC 9438 (4.2): a new congestion-avoidance epoch.
            if self.w_max < cwnd {
                self.w_max = cwnd;
            }
            self.k = Cubic::k_for(self.w_max, cwnd);
            self.w_est = cwnd;
            ack.now
        });
        let t = (ack.now - start).as_secs_f64();
        let rtt = ack
            .min_rtt
            .or(ack.rtt)
            .map_or(DEFAULT_RTT_S, |r| r.as_secs_f64());
        let segs_acked = ack.acked as f64 / mss;
        // RFC 9438 (4.3): the Reno-friendly estimate grows alpha_cubic
        // segments per window of ACKs.
        self.w_est += ALPHA_CUBIC * segs_acked / cwnd;
        let new = if self.w_cubic(t) < self.w_est {
            // Reno-friendly region.
            self.w_est
        } else {
            // RFC 9438 (4.4)/(4.5): aim at W_cubic(t + RTT), clamped to
            // [cwnd, 1.5 cwnd], approached by (target - cwnd) / cwnd per segment.
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * segs_acked
        };
        let bytes = (new * mss) as u64;
        if bytes > w.cwnd {
            w.cwnd = bytes;
        }
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _now: Time) -> u64 {
        self.on_congestion(w)
    }

    /// RFC 9438 (4.8): a timeout is a congestion event as above; the epoch
    /// restarts after slow start.
    fn ssthresh_after_timeout(&mut self, w: &Window, _flight: u64, _now: Time) -> u64 {
        self.on_congestion(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::testing;

    const MSS: u64 = 1000;

    #[test]
    fn loss_at_100_segments_sets_ssthresh_70_and_k_4_217_s() {
        let mut c = Cubic::new(MSS);
        let w = Window {
            cwnd: 100 * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        };
        assert_eq!(c.ssthresh_after_loss(&w, 100 * MSS, Time::ZERO), 70 * MSS);
        assert_eq!(c.w_max(), 100.0);
        let k = Cubic::k_for(100.0, 70.0);
        assert!((k - (100.0f64 * 0.3 / 0.4).cbrt()).abs() < 1e-12);
        assert!((k - 4.2172).abs() < 1e-3);
        c.k = k;
        assert!((c.w_cubic(k) - 100.0).abs() < 1e-9, "W(K) = W_max");
        let w2 = 0.4 * (2.0 - k).powi(3) + 100.0;
        assert!((c.w_cubic(2.0) - w2).abs() < 1e-9);
        assert!(
            (c.w_cubic(0.0) - 70.0).abs() < 1e-9,
            "W(0) = cwnd after the cut"
        );
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_previous_maximum() {
        let mut c = Cubic::new(MSS);
        let at = |n: u64| Window {
            cwnd: n * MSS,
            ssthresh: 1,
            mss: MSS,
        };
        c.ssthresh_after_loss(&at(100), 0, Time::ZERO);
        c.ssthresh_after_loss(&at(80), 0, Time::ZERO);
        assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9);
        c.ssthresh_after_loss(&at(90), 0, Time::ZERO);
        assert_eq!(c.w_max(), 90.0, "above the last maximum: W_max = cwnd");
    }

    #[test]
    fn window_follows_the_cubic_curve_between_losses() {
        // W_max = 100, cwnd = 70 after the loss, RTT 1 s: concave growth that
        // reaches W_max about K = 4.2 s after the loss, then convex growth.
        let mut c = Cubic::new(MSS);
        let mut w = Window {
            cwnd: 100 * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        };
        w.ssthresh = c.ssthresh_after_loss(&w, 100 * MSS, Time::ZERO);
        w.cwnd = w.ssthresh;
        let rtt = Time::from_ms(1000);
        let mut t = Time::ZERO;
        let mut at_k = 0.0;
        for _ in 0..7 {
            // One RTT of ACKs.
            let n = w.cwnd / MSS;
            for _ in 0..n {
                c.on_ack(&mut w, &testing::ack(t, MSS, 0, rtt, 0, 0));
            }
            t += rtt;
            if t == Time::from_secs(4) {
                at_k = w.cwnd as f64 / MSS as f64;
            }
        }
        // At t = 4 s the target W(5 s) is about 100.3: close to W_max.
        assert!((at_k - 100.0).abs() < 3.0, "cwnd near K: {at_k}");
        // Beyond K the curve turns convex: growth accelerates.
        assert!(w.cwnd as f64 / MSS as f64 > 103.0);
    }

    #[test]
    fn reno_friendly_region_dominates_at_small_rtt_and_window() {
        // A tiny W_max and a 100 us RTT: the cubic curve is nearly flat over
        // a few ms, Reno's growth (alpha_cubic per RTT) is faster.
        let mut c = Cubic::new(MSS);
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        };
        w.ssthresh = c.ssthresh_after_loss(&w, 10 * MSS, Time::ZERO);
        w.cwnd = w.ssthresh;
        let rtt = Time::from_us(100);
        let mut t = Time::ZERO;
        for _ in 0..20 {
            let n = w.cwnd / MSS;
            for _ in 0..n {
                c.on_ack(&mut w, &testing::ack(t, MSS, 0, rtt, 0, 0));
            }
            t += rtt;
        }
        // W_est after 20 RTTs: 7 + 20 * 0.529 = 17.6; W_cubic(2 ms) ~ 7.
        let seg = w.cwnd as f64 / MSS as f64;
        assert!((seg - (7.0 + 20.0 * ALPHA_CUBIC)).abs() < 1.0, "{seg}");
    }
}
