//! Retransmission timeout estimation, RFC 6298.

use super::config::TcpConfig;
use crate::units::{OptTime, Time};

#[derive(Clone, Copy, Debug)]
pub struct RtoEstimator {
    srtt: OptTime,
    rttvar: Time,
    /// RTO from the estimator, clamped, before backoff.
    base: Time,
    /// Consecutive timeouts: the RTO in force is `base * 2^backoff` (RFC 6298 (5.5)).
    backoff: u32,
}

impl RtoEstimator {
    /// RFC 6298 (2.1): before any sample the RTO is the initial RTO.
    pub fn new(cfg: &TcpConfig) -> RtoEstimator {
        RtoEstimator {
            srtt: OptTime::NONE,
            rttvar: Time::ZERO,
            base: cfg.initial_rto,
            backoff: 0,
        }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt.get()
    }
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Takes an RTT sample `r` (already quantized by the clock).
    pub fn sample(&mut self, r: Time, cfg: &TcpConfig) {
        match self.srtt.get() {
            // RFC 6298 (2.2): first measurement.
            None => {
                self.srtt = OptTime::some(r);
                self.rttvar = Time(r.0 / 2);
            }
            // RFC 6298 (2.3): alpha = 1/8, beta = 1/4.
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
                self.srtt = OptTime::some(Time((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.get().unwrap_or(r);
        // RFC 6298 (2.2)/(2.3): RTO = SRTT + max(G, K*RTTVAR), K = 4.
        let rto = srtt + Time(cfg.granularity.0.max(4 * self.rttvar.0));
        // RFC 6298 (2.4)/(2.5): clamp to [min_rto, max_rto]; the timer counts whole ticks.
        self.base = cfg.clock.round_up(rto.max(cfg.min_rto).min(cfg.max_rto));
        // A fresh sample after a timeout re-derives the RTO (RFC 6298 (5.7) note, Karn).
        self.backoff = 0;
    }

    /// The RTO in force.
    pub fn current(&self, cfg: &TcpConfig) -> Time {
        let k = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.base.times(k).min(cfg.max_rto)
    }

    /// RFC 6298 (5.5): double the RTO after a timeout, up to max_rto.
    pub fn back_off(&mut self, cfg: &TcpConfig) {
        if self.current(cfg) < cfg.max_rto {
            self.backoff += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::config::{Profile, TimerClock};

    fn cfg_us(min_rto: Time) -> TcpConfig {
        TcpConfig {
            min_rto,
            clock: TimerClock::granular(Time::from_us(1)),
            granularity: Time::from_us(1),
            ..Profile::Rfc.config()
        }
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let cfg = cfg_us(Time::from_us(1));
        let mut e = RtoEstimator::new(&cfg);
        assert_eq!(e.current(&cfg), Time::from_secs(1));
        e.sample(Time::from_us(100), &cfg);
        assert_eq!(e.srtt(), Some(Time::from_us(100)));
        assert_eq!(e.rttvar(), Time::from_us(50));
        // 100 + 4*50 = 300 us
        assert_eq!(e.current(&cfg), Time::from_us(300));
    }

    #[test]
    fn min_rto_is_respected() {
        let cfg = cfg_us(Time::from_ms(200));
        let mut e = RtoEstimator::new(&cfg);
        e.sample(Time::from_us(100), &cfg);
        assert_eq!(e.current(&cfg), Time::from_ms(200));
    }

    #[test]
    fn rto_backoff_doubles_up_to_max_rto() {
        let cfg = cfg_us(Time::from_ms(200));
        let mut e = RtoEstimator::new(&cfg);
        e.sample(Time::from_us(100), &cfg);
        let mut expect = Time::from_ms(200);
        for _ in 0..12 {
            assert_eq!(e.current(&cfg), expect.min(cfg.max_rto));
            e.back_off(&cfg);
            expect = expect.times(2);
        }
        assert_eq!(e.current(&cfg), cfg.max_rto);
        // A new sample clears the backoff.
        e.sample(Time::from_us(100), &cfg);
        assert_eq!(e.current(&cfg), Time::from_ms(200));
    }
}
