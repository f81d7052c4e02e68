//! TCP Vegas (Brakmo and Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995): keep between
//! alpha and beta packets queued at the bottleneck by comparing, once per
//! round trip, the expected rate cwnd / BaseRTT with the actual one cwnd / RTT.
//! The per-RTT bookkeeping follows Linux's tcp_vegas.c: a round ends when
//! snd_una passes the snd_nxt recorded at its start, and the decision uses
//! the smallest RTT sample of the round.

use super::{AckEvent, CongestionControl, NewReno, Window};
use crate::units::{OptTime, Time};

/// Paper, congestion avoidance mechanism: increase when fewer than alpha
/// packets are queued...
pub const ALPHA: f64 = 2.0;
/// ...decrease when more than beta are.
pub const BETA: f64 = 4.0;
/// Paper, modified slow-start mechanism: leave slow start when more than
/// gamma are queued.
pub const GAMMA: f64 = 1.0;
/// Linux tcp_vegas.c: a round with fewer RTT samples than this cannot tell
/// queueing from noise and is run as Reno.
pub const MIN_SAMPLES: u32 = 3;

#[derive(Clone, Debug)]
pub struct Vegas {
    mss: u64,
    /// BaseRTT: the minimum RTT ever seen, the propagation delay estimate.
    base_rtt: OptTime,
    /// The smallest RTT sample of the current round.
    rtt_min: OptTime,
    /// RTT samples in the current round.
    samples: u32,
    /// The current round ends when snd_una passes this; None: no round yet
    /// (start, or after a loss), the next ACK opens one.
    round_end: Option<u64>,
    /// Paper, modified slow start: the window grows only in every other
    /// round; this round is a growing one.
    ss_grow: bool,
}

impl Vegas {
    pub fn new(mss: u64) -> Vegas {
        Vegas {
            mss,
            base_rtt: OptTime::NONE,
            rtt_min: OptTime::NONE,
            samples: 0,
            round_end: None,
            ss_grow: true,
        }
    }

    /// Packets queued at the bottleneck (paper, congestion avoidance): Diff =
    /// (Expected - Actual) * BaseRTT = cwnd * (RTT - BaseRTT) / RTT.
    pub fn diff(cwnd_segments: f64, base: Time, rtt: Time) -> f64 {
        cwnd_segments * rtt.0.saturating_sub(base.0) as f64 / rtt.0.max(1) as f64
    }

    /// BaseRTT, once any sample has been seen.
    pub fn base_rtt(&self) -> Option<Time> {
        self.base_rtt.get()
    }

    fn start_round(&mut self, snd_nxt: u64) {
        self.round_end = Some(snd_nxt);
        self.rtt_min = OptTime::NONE;
        self.samples = 0;
    }

    /// Slow-start growth on an ACK inside a round: RFC 5681 (3.1), in the
    /// growing rounds only.
    fn slow_start(&self, w: &mut Window, ack: &AckEvent) {
        if self.ss_grow {
            w.cwnd += ack.acked.min(self.mss);
        }
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        // BaseRTT: the smallest RTT of the connection (the socket's min_rtt
        // or this sample).
        for r in [ack.min_rtt, ack.rtt].into_iter().flatten() {
            self.base_rtt = self.base_rtt.min(OptTime::some(r));
        }
        let Some(base) = self.base_rtt.get() else {
            // No delay information at all: Reno.
            NewReno.on_ack(w, ack);
            return;
        };
        let Some(end) = self.round_end else {
            // The first round (or the first after a loss) opens here.
            self.start_round(ack.snd_nxt);
            self.ss_grow = true;
            if let Some(r) = ack.rtt {
                self.rtt_min = OptTime::some(r);
                self.samples = 1;
            }
            if w.in_slow_start() {
                self.slow_start(w, ack);
            }
            return;
        };
        // The sample of the ACK that closes a round belongs to that round.
        if let Some(r) = ack.rtt {
            self.rtt_min = self.rtt_min.min(OptTime::some(r));
            self.samples += 1;
        }
        if ack.snd_una <= end {
            // Inside a round only slow start moves the window (Linux).
            if w.in_slow_start() {
                self.slow_start(w, ack);
            }
            return;
        }
        // The round has ended: decide once, from its smallest RTT.
        let (rtt, n) = (self.rtt_min.get(), self.samples);
        self.start_round(ack.snd_nxt);
        let rtt = match rtt {
            Some(r) if n >= MIN_SAMPLES => r,
            _ => {
                // Too few samples (Linux): this round is Reno's, one segment
                // per RTT in congestion avoidance, slow start as usual.
                // (Linux's code calls Reno's per-ACK step once for the whole
                // round, 1/cwnd of a segment; here Reno's rate.)
                self.ss_grow = true;
                if w.in_slow_start() {
                    self.slow_start(w, ack);
                } else {
                    w.cwnd += self.mss;
                }
                return;
            }
        };
        let mss = self.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let diff = Vegas::diff(cwnd, base, rtt);
        if w.in_slow_start() {
            if diff > GAMMA {
                // Paper, modified slow start: more than gamma queued, leave
                // slow start for the linear mode (ssthresh = cwnd). As Linux,
                // first trim the window to the one that empties the queue,
                // plus one segment: cwnd * BaseRTT / RTT + 1.
                let target = cwnd * base.0 as f64 / rtt.0.max(1) as f64;
                let c = cwnd.min(target + 1.0).max(2.0);
                w.cwnd = (c * mss) as u64;
                w.ssthresh = w.cwnd;
            } else {
                // Paper, modified slow start: exponential growth only every
                // other RTT; the rounds in between keep the window fixed for a
                // clean measure.
                self.ss_grow = !self.ss_grow;
                self.slow_start(w, ack);
            }
            return;
        }
        // Paper, congestion avoidance mechanism: one segment per RTT toward
        // alpha..beta packets queued.
        if diff < ALPHA {
            w.cwnd += self.mss;
        } else if diff > BETA {
            w.cwnd = w.cwnd.saturating_sub(self.mss).max(2 * self.mss);
            // Linux: ssthresh follows, so the window stays out of slow start.
            w.ssthresh = w.ssthresh.min(w.cwnd);
        }
    }

    /// Losses are answered as Reno does, as Linux's Vegas (which hands the
    /// window to Reno during recovery); the paper's own retransmission
    /// mechanism is not modelled. RFC 5681 eq. (4): ssthresh =
    /// max(FlightSize / 2, 2 SMSS).
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64 {
        // The next ACK after recovery opens a fresh round (Linux
        // tcp_vegas_enable); BaseRTT is kept.
        self.round_end = None;
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
        // 10 x 50 / 150 = 3.33, 10 x 100 / 200 = 5, 10 x 10 / 110 = 0.91.
        assert!((Vegas::diff(10.0, b, Time::from_us(150)) - 10.0 / 3.0).abs() < 1e-9);
        assert!((Vegas::diff(10.0, b, Time::from_us(200)) - 5.0).abs() < 1e-9);
        assert!((Vegas::diff(10.0, b, Time::from_us(110)) - 10.0 / 11.0).abs() < 1e-9);
        assert_eq!(Vegas::diff(10.0, b, b), 0.0);
    }

    /// Drives whole rounds of one-segment ACKs; each round's ACKs carry one
    /// RTT, and the first ACK of the next round applies the decision.
    struct Flow {
        v: Vegas,
        w: Window,
        una: u64,
    }

    impl Flow {
        fn new(cwnd: u64, ssthresh: u64) -> Flow {
            Flow {
                v: Vegas::new(MSS),
                w: Window {
                    cwnd: cwnd * MSS,
                    ssthresh: ssthresh * MSS,
                    mss: MSS,
                },
                una: 0,
            }
        }

        /// One round trip: as many ACKs as the window holds segments at the
        /// round's start, every one with an RTT sample `rtt`.
        fn round(&mut self, rtt: Time) {
            let n = self.w.cwnd / MSS;
            let nxt = self.una + n * MSS;
            for _ in 0..n {
                self.una += MSS;
                let a = testing::ack(Time::ZERO, MSS, 0, rtt, self.una, nxt);
                self.v.on_ack(&mut self.w, &a);
            }
        }

        fn segs(&self) -> f64 {
            self.w.cwnd as f64 / MSS as f64
        }
    }

    /// A flow in congestion avoidance at 10 segments with BaseRTT = 100 us,
    /// one round of samples at `rtt`, and the ACK that ends that round.
    fn ca_decision(rtt_us: u64) -> f64 {
        let mut f = Flow::new(10, 5);
        f.round(Time::from_us(100)); // opens the first round: BaseRTT
        f.round(Time::from_us(rtt_us)); // its first ACK ends the first round
        f.w.cwnd = 10 * MSS; // (whatever the first round decided)
        f.una += MSS;
        let a = AckEvent {
            rtt: None,
            ..testing::ack(
                Time::ZERO,
                MSS,
                0,
                Time::from_us(100),
                f.una,
                f.una + 10 * MSS,
            )
        };
        f.v.on_ack(&mut f.w, &a);
        f.segs()
    }

    #[test]
    fn holds_between_alpha_and_beta() {
        // RTT 150 us: diff = 3.33, 2 <= diff <= 4.
        assert_eq!(ca_decision(150), 10.0);
    }

    #[test]
    fn shrinks_above_beta() {
        // RTT 200 us: diff = 5 > 4.
        assert_eq!(ca_decision(200), 9.0);
    }

    #[test]
    fn grows_below_alpha() {
        // RTT 110 us: diff = 0.91 < 2.
        assert_eq!(ca_decision(110), 11.0);
    }

    #[test]
    fn the_smallest_sample_of_the_round_decides() {
        let mut f = Flow::new(10, 5);
        f.round(Time::from_us(100));
        // Nine samples at 200 us (diff 5) and one at 150 us (diff 3.33): hold.
        let nxt = f.una + 10 * MSS;
        for i in 0..10 {
            f.una += MSS;
            let rtt = Time::from_us(if i == 4 { 150 } else { 200 });
            let a = testing::ack(Time::ZERO, MSS, 0, rtt, f.una, nxt);
            f.v.on_ack(&mut f.w, &a);
        }
        f.w.cwnd = 10 * MSS;
        f.una += MSS;
        let a = testing::ack(Time::ZERO, MSS, 0, Time::from_us(200), f.una, f.una);
        f.v.on_ack(&mut f.w, &a);
        assert_eq!(f.segs(), 10.0);
    }

    #[test]
    fn without_rtt_samples_it_is_reno() {
        let mut v = Vegas::new(MSS);
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 5 * MSS,
            mss: MSS,
        };
        let a = AckEvent {
            rtt: None,
            min_rtt: None,
            ..testing::ack(Time::ZERO, MSS, 0, Time::ZERO, MSS, 10 * MSS)
        };
        v.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 10 * MSS + MSS * MSS / (10 * MSS));
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_exits_above_gamma() {
        let base = Time::from_us(100);
        let mut f = Flow::new(2, 1000);
        // No queue: the first round grows (doubles), the next holds, ...
        let mut seen = vec![f.segs()];
        for _ in 0..6 {
            f.round(base);
            seen.push(f.segs());
        }
        assert_eq!(seen, [2.0, 4.0, 4.0, 8.0, 8.0, 16.0, 16.0], "{seen:?}");
        assert!(f.w.in_slow_start());
        // A growing round with samples at 150 us; at its end, with 32
        // segments, diff = 32 x 50 / 150 = 10.7 > gamma. Exit, the window
        // trimmed to 32 x 100 / 150 + 1 = 22.3 segments.
        f.round(Time::from_us(150));
        assert_eq!(f.segs(), 32.0);
        f.una += MSS;
        let a = AckEvent {
            rtt: None,
            ..testing::ack(Time::ZERO, MSS, 0, base, f.una, f.una)
        };
        f.v.on_ack(&mut f.w, &a);
        assert!((f.segs() - (32.0 * 100.0 / 150.0 + 1.0)).abs() < 1e-3);
        assert!(!f.w.in_slow_start());
    }

    #[test]
    fn loss_halves_flight_as_reno_and_restarts_the_round() {
        let mut f = Flow::new(10, 5);
        f.round(Time::from_us(100));
        let w = f.w;
        assert_eq!(f.v.ssthresh_after_loss(&w, 10 * MSS, Time::ZERO), 5 * MSS);
        assert_eq!(f.v.ssthresh_after_loss(&w, MSS, Time::ZERO), 2 * MSS);
        assert_eq!(f.v.round_end, None);
        assert_eq!(f.v.base_rtt(), Some(Time::from_us(100)));
    }

    #[test]
    fn a_flow_alone_settles_with_alpha_to_beta_packets_queued() {
        // Closed-form bottleneck: `bdp` packets fill the pipe at BaseRTT; each
        // of the q = cwnd - bdp packets beyond waits in the queue, adding one
        // transmission time (BaseRTT / bdp) to the RTT: RTT = BaseRTT (1 +
        // q / bdp). Then diff = cwnd (RTT - BaseRTT) / RTT = (bdp + q) q /
        // (bdp + q) = q: Vegas measures the queue exactly, and after slow
        // start steers it into [alpha, beta] and holds it there.
        for bdp in [10.0, 37.0, 100.0] {
            let base = Time::from_us(100);
            let mut f = Flow::new(2, 1_000_000);
            let mut queued = vec![];
            for _ in 0..300 {
                let q = (f.segs() - bdp).max(0.0);
                let rtt = Time((base.0 as f64 * (1.0 + q / bdp)) as u64);
                f.round(rtt);
                queued.push(q);
            }
            let tail = &queued[200..];
            assert!(
                tail.iter().all(|q| (ALPHA..=BETA).contains(q)),
                "bdp {bdp}: queue {:?}",
                &tail[..10]
            );
        }
    }
}
