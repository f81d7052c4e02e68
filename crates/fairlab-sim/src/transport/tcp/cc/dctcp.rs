//! DCTCP, RFC 8257: the sender estimates the fraction of its data that met
//! a congested switch (CE marks echoed as ECE) and cuts its window in
//! proportion, instead of halving on every congestion signal.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::Time;

/// RFC 8257 (4.2): the estimation gain g = 1/16.
pub const G: f64 = 1.0 / 16.0;

#[derive(Clone, Debug)]
pub struct Dctcp {
    mss: u64,
    /// Estimated fraction of marked bytes, RFC 8257 (3.3).
    alpha: f64,
    /// Bytes acknowledged in the current observation window (DCTCP.BytesAcked).
    acked: u64,
    /// Of those, acknowledged by ACKs with ECE (DCTCP.BytesMarked).
    marked: u64,
    /// The window ends when snd_una passes this (DCTCP.WindowEnd).
    window_end: u64,
    /// No second reduction before snd_una passes this (once per window).
    cwr_end: u64,
}

impl Dctcp {
    pub fn new(mss: u64) -> Dctcp {
        Dctcp {
            mss,
            // RFC 8257 (3.3): "DCTCP.Alpha is initialized to 1".
            alpha: 1.0,
            acked: 0,
            marked: 0,
            window_end: 0,
            cwr_end: 0,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        // RFC 8257 (3.3) steps 3-4: count acknowledged and marked bytes.
        self.acked += ack.acked;
        if ack.ece {
            self.marked += ack.acked;
        }
        // Steps 5-9: at the end of an observation window (about one RTT),
        // alpha = (1 - g) * alpha + g * M / T, and a new window starts.
        if ack.snd_una > self.window_end {
            let f = if self.acked > 0 {
                self.marked as f64 / self.acked as f64
            } else {
                0.0
            };
            self.alpha = (1.0 - G) * self.alpha + G * f;
            self.acked = 0;
            self.marked = 0;
            self.window_end = ack.snd_nxt;
        }
        // Steps 10-11 and (3.4): on ECE, at most once per window,
        // cwnd = cwnd * (1 - alpha / 2), and ssthresh follows.
        if ack.ece && ack.snd_una > self.cwr_end {
            let cut = (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
            // Keep at least two segments, the floor of RFC 5681's ssthresh.
            w.cwnd = cut.max(2 * self.mss);
            w.ssthresh = w.cwnd;
            self.cwr_end = ack.snd_nxt;
            return;
        }
        // Otherwise grow as standard TCP (RFC 8257 (3.3): DCTCP only changes
        // the response to marks).
        NewReno.on_ack(w, ack);
    }

    /// RFC 8257 (3.5): a loss is answered as by standard TCP.
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64 {
        NewReno.ssthresh_after_loss(w, flight, now)
    }

    fn handles_ecn(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::testing;

    const MSS: u64 = 1000;

    fn ack(una: u64, nxt: u64, ece: bool) -> AckEvent {
        AckEvent {
            ece,
            ..testing::ack(Time::ZERO, MSS, 0, Time::from_us(100), una, nxt)
        }
    }

    #[test]
    fn alpha_follows_the_marked_fraction_with_gain_one_sixteenth() {
        let mut d = Dctcp::new(MSS);
        let mut w = Window {
            cwnd: 100 * MSS,
            ssthresh: 50 * MSS,
            mss: MSS,
        };
        // Window 0 ends at once (nothing acked before): alpha decays from 1.
        d.on_ack(&mut w, &ack(1, 10_001, false));
        assert!((d.alpha() - 15.0 / 16.0).abs() < 1e-12);
        let a0 = d.alpha();
        // A window of 8 ACKs, 2 of them marked: F = 0.25.
        for i in 0..8u64 {
            d.on_ack(&mut w, &ack(1 + (i + 1) * MSS, 10_001, i == 3 || i == 5));
        }
        // The next ACK passes window_end = 10_001 and closes the window.
        d.on_ack(&mut w, &ack(10_002, 20_001, false));
        let f = 2.0 / 9.0;
        assert!(
            (d.alpha() - ((1.0 - G) * a0 + G * f)).abs() < 1e-12,
            "{}",
            d.alpha()
        );
    }

    #[test]
    fn unmarked_windows_decay_alpha_by_fifteen_sixteenths() {
        let mut d = Dctcp::new(MSS);
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 5 * MSS,
            mss: MSS,
        };
        for k in 1..=4u64 {
            d.on_ack(&mut w, &ack(k * 10_000, k * 10_000 + 5_000, false));
            assert!((d.alpha() - (15.0f64 / 16.0).powi(k as i32)).abs() < 1e-12);
        }
    }

    #[test]
    fn window_is_cut_by_alpha_over_two_once_per_window() {
        let mut d = Dctcp::new(MSS);
        d.alpha = 0.5;
        d.window_end = u64::MAX; // keep alpha fixed for this test
        let mut w = Window {
            cwnd: 40 * MSS,
            ssthresh: 100 * MSS,
            mss: MSS,
        };
        d.on_ack(&mut w, &ack(1_000, 50_000, true));
        assert_eq!(w.cwnd, 30 * MSS, "40 x (1 - 0.5 / 2)");
        assert_eq!(w.ssthresh, 30 * MSS);
        // A second ECE in the same window does not cut again (it grows as
        // congestion avoidance instead).
        d.on_ack(&mut w, &ack(2_000, 50_000, true));
        assert!(w.cwnd >= 30 * MSS);
        // After the window, a new mark cuts again.
        d.on_ack(&mut w, &ack(50_001, 90_000, true));
        assert!(w.cwnd < 30 * MSS);
    }
}
