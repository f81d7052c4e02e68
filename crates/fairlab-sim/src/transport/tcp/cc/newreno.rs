//! Reno/NewReno window growth, RFC 5681. (The NewReno part, partial-ACK
//! handling in fast recovery, RFC 6582, lives in the socket's recovery code.)

use super::{AckEvent, CongestionControl, Window};
use crate::units::Time;

#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        let bytes_acked = ack.acked;
        if w.cwnd < w.ssthresh {
            // RFC 5681 (3.1) eq. (2): slow start, cwnd += min(N, SMSS).
            w.cwnd += bytes_acked.min(w.mss);
        } else {
            // RFC 5681 (3.1) eq. (3): congestion avoidance, SMSS*SMSS/cwnd per ACK,
            // at least one byte.
            w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
        }
    }

    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, _now: Time) -> u64 {
        // RFC 5681 (3.1) eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS).
        (flight / 2).max(2 * w.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acked(n: u64) -> AckEvent {
        AckEvent {
            acked: n,
            ..crate::transport::tcp::cc::testing::ack(Time::ZERO, 1460, 0, Time::ZERO, 0, 0)
        }
    }

    #[test]
    fn slow_start_grows_one_mss_per_ack_then_linear() {
        let mut w = Window {
            cwnd: 2920,
            ssthresh: 5840,
            mss: 1460,
        };
        let mut c = NewReno;
        c.on_ack(&mut w, &acked(1460));
        assert_eq!(w.cwnd, 4380);
        // ABC limit: a stretch ACK of 3 segments still adds one SMSS.
        c.on_ack(&mut w, &acked(4380));
        assert_eq!(w.cwnd, 5840);
        c.on_ack(&mut w, &acked(1460));
        assert_eq!(w.cwnd, 5840 + 1460 * 1460 / 5840);
    }

    #[test]
    fn loss_halves_flight_but_not_below_two_segments() {
        let w = Window {
            cwnd: 14600,
            ssthresh: u64::MAX,
            mss: 1460,
        };
        assert_eq!(NewReno.ssthresh_after_loss(&w, 14600, Time::ZERO), 7300);
        assert_eq!(NewReno.ssthresh_after_loss(&w, 1460, Time::ZERO), 2920);
    }
}
