//! DCTCP, RFC 8257: switches mark CE on packets that find their queue above
//! a threshold K; the receiver echoes the marks (ECE) exactly; the sender
//! estimates alpha, the fraction of its bytes marked per window, smoothed with
//! gain g, and cuts its window by alpha / 2 (at most once per window) instead
//! of halving on every congestion signal. Growth and loss recovery are
//! standard TCP's.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::Time;

/// RFC 8257 (4.2): the estimation gain g = 1/16.
pub const G: f64 = 1.0 / 16.0;

#[derive(Clone, Debug)]
pub struct Dctcp {
    mss: u64,
    /// DCTCP.Alpha, the estimated fraction of marked bytes, RFC 8257 (3.3).
    alpha: f64,
    /// DCTCP.BytesAcked in the current observation window.
    acked: u64,
    /// DCTCP.BytesMarked: of those, acknowledged by ACKs with ECE.
    marked: u64,
    /// DCTCP.WindowEnd: the observation window ends with the first ACK
    /// beyond it.
    window_end: u64,
    /// No second reduction until snd_una passes this (once per window of
    /// data, RFC 3168 (6.1.2)).
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
            // RFC 8257 (3.3): WindowEnd starts at SND.UNA (0 here: sequence
            // numbers start at 0 with the SYN), so the first ACK of data
            // closes a first window of its own bytes, as in Linux.
            window_end: 0,
            cwr_end: 0,
        }
    }

    /// DCTCP.Alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The window after a reduction: cwnd (1 - alpha / 2), at least 2 SMSS.
    fn reduced(&self, cwnd: u64) -> u64 {
        // RFC 8257 (3.3): cwnd = cwnd * (1 - DCTCP.Alpha / 2). The floor of
        // two segments is RFC 5681's for ssthresh (eq. (4)), which is set to
        // this window, and Linux's (dctcp_ssthresh: max(.., 2U)).
        ((cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64).max(2 * self.mss)
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        // RFC 8257 (3.3) steps 1-3: count the bytes acknowledged (SACK
        // ignored) and, if the ACK carries ECE, the bytes marked.
        self.acked += ack.acked;
        if ack.ece {
            self.marked += ack.acked;
        }
        // Step 4: the observation window (about one RTT) ends with the first
        // ACK beyond WindowEnd.
        if ack.snd_una > self.window_end {
            // Steps 5-6: M = BytesMarked / BytesAcked,
            // alpha = (1 - g) alpha + g M.
            let m = if self.acked > 0 {
                self.marked as f64 / self.acked as f64
            } else {
                0.0
            };
            self.alpha = (1.0 - G) * self.alpha + G * m;
            // Steps 7-8: WindowEnd = SND.NXT; reset the counters.
            self.window_end = ack.snd_nxt;
            self.acked = 0;
            self.marked = 0;
        }
        // RFC 8257 (3.3): on ECE, cwnd = cwnd (1 - alpha / 2) instead of
        // RFC 3168's halving, and as in RFC 3168 (6.1.2) at most once per
        // window of data; ssthresh follows the window (RFC 3168 (6.1.2)),
        // which also ends slow start. The reducing ACK does not grow cwnd.
        if ack.ece && ack.snd_una > self.cwr_end {
            w.cwnd = self.reduced(w.cwnd);
            w.ssthresh = w.cwnd;
            self.cwr_end = ack.snd_nxt;
            return;
        }
        // Otherwise standard growth, RFC 5681 (3.1) (RFC 8257 (3.3) changes
        // only the reaction to marks).
        NewReno.on_ack(w, ack);
    }

    /// RFC 8257 (3.5): "A DCTCP sender SHOULD react to loss episodes in the
    /// same way as conventional TCP": RFC 5681 eq. (4).
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64 {
        NewReno.ssthresh_after_loss(w, flight, now)
    }

    /// DCTCP handles ECN-Echo in `on_ack`; the socket must not halve on it.
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

    fn window(cwnd: u64, ssthresh: u64) -> Window {
        Window {
            cwnd: cwnd * MSS,
            ssthresh: ssthresh * MSS,
            mss: MSS,
        }
    }

    #[test]
    fn a_quarter_marked_window_moves_alpha_from_one_to_15_16_plus_025_16() {
        let mut d = Dctcp::new(MSS);
        assert_eq!(d.alpha(), 1.0);
        let mut w = window(100, 50);
        // An observation window opened when snd_nxt was 7 segments ahead:
        // 8 ACKs of one segment close it (the 8th passes WindowEnd), 2 of them
        // with ECE: M = 2000 / 8000 = 0.25.
        d.window_end = 7 * MSS;
        for i in 1..=8u64 {
            d.on_ack(&mut w, &ack(i * MSS, 20 * MSS, i == 3 || i == 6));
            if i < 8 {
                assert_eq!(d.alpha(), 1.0, "alpha moves only at the window's end");
            }
        }
        assert_eq!(d.alpha(), 15.0 / 16.0 + 0.25 / 16.0);
        assert_eq!(d.alpha(), 0.953125);
        assert_eq!(d.window_end, 20 * MSS);
        assert_eq!((d.acked, d.marked), (0, 0));
    }

    #[test]
    fn unmarked_windows_decay_alpha_by_fifteen_sixteenths() {
        let mut d = Dctcp::new(MSS);
        let mut w = window(10, 5);
        // One window per ACK (each passes the previous one's WindowEnd).
        for k in 1..=4u64 {
            d.on_ack(&mut w, &ack(k * 10_000, k * 10_000 + 5_000, false));
            assert!((d.alpha() - (15.0f64 / 16.0).powi(k as i32)).abs() < 1e-12);
        }
    }

    #[test]
    fn fully_marked_windows_keep_alpha_at_one() {
        let mut d = Dctcp::new(MSS);
        let mut w = window(10, 5);
        for k in 1..=4u64 {
            d.on_ack(&mut w, &ack(k * 10_000, k * 10_000 + 5_000, true));
            assert_eq!(d.alpha(), 1.0);
        }
    }

    #[test]
    fn window_is_cut_by_alpha_over_two_once_per_window() {
        let mut d = Dctcp::new(MSS);
        d.alpha = 0.5;
        d.window_end = u64::MAX; // keep alpha fixed for this test
        let mut w = window(40, 100);
        d.on_ack(&mut w, &ack(1_000, 50_000, true));
        assert_eq!(w.cwnd, 30 * MSS, "40 x (1 - 0.5 / 2)");
        assert_eq!(w.ssthresh, 30 * MSS);
        // A second ECE in the same window does not cut again; the window grows
        // as in congestion avoidance (RFC 5681: SMSS^2 / cwnd).
        d.on_ack(&mut w, &ack(2_000, 50_000, true));
        assert_eq!(w.cwnd, 30 * MSS + MSS * MSS / (30 * MSS));
        d.on_ack(&mut w, &ack(50_000, 60_000, true));
        assert_eq!(w.cwnd, 30 * MSS + 2 * (MSS * MSS / (30 * MSS)));
        // Past the window (snd_una > 50_000), a new mark cuts again.
        let before = w.cwnd;
        d.on_ack(&mut w, &ack(50_001, 90_000, true));
        assert_eq!(w.cwnd, (before as f64 * 0.75) as u64);
    }

    #[test]
    fn first_mark_in_slow_start_halves_with_alpha_one_and_ends_slow_start() {
        let mut d = Dctcp::new(MSS);
        let mut w = window(10, 1000);
        d.on_ack(&mut w, &ack(MSS, 10 * MSS, false));
        assert_eq!(w.cwnd, 11 * MSS, "slow start: one MSS per ACK");
        // Alpha is 15/16 after the first (one-ACK, unmarked) window.
        d.on_ack(&mut w, &ack(2 * MSS, 12 * MSS, false));
        assert_eq!(w.cwnd, 12 * MSS);
        // A stretch ACK of 9 segments with ECE ends the second window:
        // M = 9000 / 10_000.
        let stretch = AckEvent {
            acked: 9 * MSS,
            ..ack(11 * MSS, 21 * MSS, true)
        };
        d.on_ack(&mut w, &stretch);
        let a = d.alpha();
        assert!((a - ((15.0 / 16.0) * (15.0 / 16.0) + 1.0 / 16.0 * 9.0 / 10.0)).abs() < 1e-12);
        assert_eq!(w.cwnd, (12_000.0 * (1.0 - a / 2.0)) as u64);
        assert_eq!(w.ssthresh, w.cwnd);
        assert!(!w.in_slow_start());
    }

    #[test]
    fn reduction_keeps_two_segments() {
        let mut d = Dctcp::new(MSS);
        let mut w = window(3, 100);
        d.on_ack(&mut w, &ack(MSS, 3 * MSS, true));
        assert_eq!(w.cwnd, 2 * MSS);
        assert_eq!(w.ssthresh, 2 * MSS);
    }

    #[test]
    fn loss_halves_flight_as_standard_tcp_and_ecn_is_handled_here() {
        let mut d = Dctcp::new(MSS);
        let w = window(20, 100);
        assert_eq!(d.ssthresh_after_loss(&w, 20 * MSS, Time::ZERO), 10 * MSS);
        assert_eq!(
            d.ssthresh_after_timeout(&w, 3 * MSS, Time::ZERO, true),
            2 * MSS
        );
        assert!(d.handles_ecn());
    }
}
