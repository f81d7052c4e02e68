//! TCP Vegas (Brakmo and Peterson, IEEE JSAC 13(8), 1995): keep a few
//! packets, between alpha and beta, queued at the bottleneck by comparing the
//! expected rate (cwnd / BaseRTT) with the actual one (cwnd / RTT) once per
//! round trip. The per-RTT structure follows Linux's tcp_vegas.c.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::Time;

/// Paper, Section 3.2: grow when fewer than alpha packets are queued...
pub const ALPHA: f64 = 2.0;
/// ...shrink when more than beta are.
pub const BETA: f64 = 4.0;
/// Paper, Section 3.3: leave slow start when more than gamma are queued.
pub const GAMMA: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Vegas {
    mss: u64,
    /// Minimum RTT ever seen: the propagation delay estimate.
    base_rtt: Option<Time>,
    /// Minimum RTT seen during the current round trip.
    rtt_min: Option<Time>,
    /// RTT samples in the current round trip.
    samples: u32,
    /// The round trip ends when snd_una passes this.
    round_end: u64,
}

impl Vegas {
    pub fn new(mss: u64) -> Vegas {
        Vegas {
            mss,
            base_rtt: None,
            rtt_min: None,
            samples: 0,
            round_end: 0,
        }
    }

    /// Packets queued at the bottleneck: (Expected - Actual) * BaseRTT
    /// = cwnd * (RTT - BaseRTT) / RTT (paper, Section 3.2).
    pub fn diff(cwnd_segments: f64, base: Time, rtt: Time) -> f64 {
        cwnd_segments * (rtt.0 - base.0.min(rtt.0)) as f64 / rtt.0 as f64
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        // BaseRTT: the smallest RTT of the connection, the handshake's
        // included (as Linux's Vegas sees the SYN's sample).
        if let Some(m) = ack.min_rtt {
            self.base_rtt = Some(self.base_rtt.map_or(m, |b| b.min(m)));
        }
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        if ack.snd_una <= self.round_end {
            // Within a round trip: only slow start moves the window.
            if w.in_slow_start() {
                w.cwnd += ack.acked.min(self.mss);
            }
            return;
        }
        // A round trip has ended: decide once, from its smallest RTT.
        self.round_end = ack.snd_nxt;
        let (base, rtt, n) = (self.base_rtt, self.rtt_min, self.samples);
        self.rtt_min = None;
        self.samples = 0;
        let (Some(base), Some(rtt)) = (base, rtt) else {
            // No delay information (yet): behave as Reno.
            NewReno.on_ack(w, ack);
            return;
        };
        if n < 3 {
            // Linux: too few samples to tell queueing from noise.
            NewReno.on_ack(w, ack);
            return;
        }
        let mss = self.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let diff = Vegas::diff(cwnd, base, rtt);
        if w.in_slow_start() {
            if diff > GAMMA {
                // Section 3.3: leave slow start, down to the rate that keeps
                // the queue empty (plus one).
                let target = cwnd * base.0 as f64 / rtt.0 as f64;
                let c = cwnd.min(target + 1.0).max(2.0);
                w.cwnd = (c * mss) as u64;
                w.ssthresh = w.cwnd;
            } else {
                w.cwnd += ack.acked.min(self.mss);
            }
            return;
        }
        // Section 3.2: one segment per round trip toward alpha..beta queued.
        if diff < ALPHA {
            w.cwnd += self.mss;
        } else if diff > BETA {
            w.cwnd = w.cwnd.saturating_sub(self.mss).max(2 * self.mss);
            w.ssthresh = w.ssthresh.min(w.cwnd);
        }
    }

    /// Losses are answered as Reno does (the paper keeps Reno's recovery).
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64 {
        NewReno.ssthresh_after_loss(w, flight, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::testing;

    const MSS: u64 = 1000;

    #[test]
    fn diff_counts_the_packets_queued() {
        let b = Time::from_us(100);
        assert!((Vegas::diff(10.0, b, Time::from_us(150)) - 10.0 / 3.0).abs() < 1e-9);
        assert!((Vegas::diff(10.0, b, Time::from_us(200)) - 5.0).abs() < 1e-9);
        assert!((Vegas::diff(10.0, b, Time::from_us(110)) - 10.0 / 11.0).abs() < 1e-9);
    }

    /// One round trip of ACKs at a fixed RTT. Its first ACK (which closes
    /// the previous round) carries no sample, so each round's decision sees
    /// exactly that round's three samples.
    fn round(v: &mut Vegas, w: &mut Window, round: u64, rtt: Time) {
        let base = round * 100 * MSS;
        for i in 1..=4 {
            let mut a = testing::ack(Time::ZERO, MSS, 0, rtt, base + i, base + 100 * MSS);
            if i == 1 {
                a.rtt = None;
            }
            v.on_ack(w, &a);
        }
    }

    #[test]
    fn holds_between_alpha_and_beta_grows_below_shrinks_above() {
        let mut v = Vegas::new(MSS);
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 5 * MSS,
            mss: MSS,
        };
        // Round 1 establishes BaseRTT = 100 us; each later round's first
        // ACK applies the decision of the round before it.
        round(&mut v, &mut w, 1, Time::from_us(100));
        w.cwnd = 10 * MSS;
        round(&mut v, &mut w, 2, Time::from_us(150)); // round 1: diff 0 < alpha
        assert_eq!(w.cwnd, 11 * MSS);
        w.cwnd = 10 * MSS;
        round(&mut v, &mut w, 3, Time::from_us(200)); // round 2: diff 3.3, hold
        assert_eq!(w.cwnd, 10 * MSS);
        round(&mut v, &mut w, 4, Time::from_us(110)); // round 3: diff 5 > beta
        assert_eq!(w.cwnd, 9 * MSS);
        w.cwnd = 10 * MSS;
        round(&mut v, &mut w, 5, Time::from_us(110)); // round 4: diff 0.9 < alpha
        assert_eq!(w.cwnd, 11 * MSS);
    }

    #[test]
    fn a_flow_alone_settles_with_alpha_to_beta_packets_queued() {
        // Closed-form bottleneck: 10 packets fit in the pipe (BDP), the rest
        // queue and add one transmission time each to the RTT.
        let bdp = 10.0;
        let base = Time::from_us(100);
        let mut v = Vegas::new(MSS);
        let mut w = Window {
            cwnd: 2 * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        };
        for r in 1..200u64 {
            let cwnd = w.cwnd as f64 / MSS as f64;
            let queued = (cwnd - bdp).max(0.0);
            let rtt = Time((base.0 as f64 * (1.0 + queued / bdp)) as u64);
            round(&mut v, &mut w, r, rtt);
        }
        let queued = w.cwnd as f64 / MSS as f64 - bdp;
        assert!(
            (ALPHA - 1.0..=BETA + 1.0).contains(&queued),
            "queued {queued}"
        );
    }
}
