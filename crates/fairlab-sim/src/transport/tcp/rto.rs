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
    /// The next sample restarts the estimator (`backoff_restarts_srtt`).
    restart: bool,
}

impl RtoEstimator {
    /// RFC 6298 (2.1): before any sample the RTO is the initial RTO.
    pub fn new(cfg: &TcpConfig) -> RtoEstimator {
        RtoEstimator {
            srtt: OptTime::NONE,
            rttvar: Time::ZERO,
            base: cfg.initial_rto,
            backoff: 0,
            restart: false,
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

    /// Takes an RTT sample `r` (already quantized by the clock). Inlined
    /// into the ACK path whichever codegen unit it lands in (out of line it
    /// cost 0.2 % more instructions on the incast benchmark, callgrind).
    #[inline]
    pub fn sample(&mut self, r: Time, cfg: &TcpConfig) {
        let srtt = if self.restart { None } else { self.srtt.get() };
        self.restart = false;
        match srtt {
            // RFC 6298 (2.2): first measurement (or the first after a long
            // backoff, with backoff_restarts_srtt).
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

    /// RFC 6298 (5.5): double the RTO after a timeout, up to max_rto (and
    /// up to a factor of max_backoff when that is set).
    pub fn back_off(&mut self, cfg: &TcpConfig) {
        let below_cap = cfg.max_backoff == 0
            || 1u64
                .checked_shl(self.backoff + 1)
                .is_some_and(|k| k <= cfg.max_backoff as u64);
        if self.current(cfg) < cfg.max_rto && below_cap {
            self.backoff += 1;
        }
        // ns-2's rtt_backoff() (tcp.cc), after 4.4BSD's tcp_timer.c: "If
        // backed off this far [t_backoff_ > 8], clobber the srtt value" —
        // t_srtt_ = 0, so rtt_update() takes its next sample as a first
        // measurement. The RTO in force is unchanged until then (ns-2 keeps
        // t_rtxcur_). Checked on every timeout, as ns-2 does, so also once
        // max_backoff or max_rto stopped the doubling.
        if cfg.backoff_restarts_srtt && self.backoff >= 4 {
            self.restart = true;
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

    /// ns-2's rtt_backoff(): once t_backoff_ passes 8 (the fourth timeout
    /// in a row) t_srtt_ = 0, and rtt_update() takes the next sample as a
    /// first measurement; three timeouts keep the smoothed estimate.
    #[test]
    fn ns2_restarts_the_estimator_after_the_fourth_backoff() {
        let ns2 = TcpConfig {
            min_rto: Time::ZERO,
            clock: TimerClock::granular(Time::from_us(1)),
            granularity: Time::from_us(1),
            ..Profile::Ns2.config()
        };
        assert!(ns2.backoff_restarts_srtt);
        let rfc = TcpConfig {
            backoff_restarts_srtt: false,
            ..ns2
        };
        let run = |cfg: &TcpConfig, timeouts: u32| {
            let mut e = RtoEstimator::new(cfg);
            for _ in 0..20 {
                e.sample(Time::from_us(40), cfg);
            }
            for _ in 0..timeouts {
                e.back_off(cfg);
            }
            let before = e.current(cfg);
            e.sample(Time::from_us(100), cfg);
            (before, e.srtt(), e.rttvar())
        };
        // Four timeouts: 2^4 = 16 > 8. The RTO in force is the backed-off
        // one until the sample; the sample then starts afresh.
        let (before, srtt, rttvar) = run(&ns2, 4);
        assert!(before >= Time::from_us(16 * 40));
        assert_eq!(srtt, Some(Time::from_us(100)));
        assert_eq!(rttvar, Time::from_us(50));
        // Three (2^3 = 8, not above 8) smooth into the old SRTT.
        let (_, srtt, _) = run(&ns2, 3);
        assert!(srtt < Some(Time::from_us(50)), "{srtt:?}");
        // Without the rule (RFC 6298) four timeouts smooth as well.
        let (_, srtt, _) = run(&rfc, 4);
        assert!(srtt < Some(Time::from_us(50)), "{srtt:?}");
        // The next sample after a restart smooths again.
        let mut e = RtoEstimator::new(&ns2);
        e.sample(Time::from_us(40), &ns2);
        (0..5).for_each(|_| e.back_off(&ns2));
        e.sample(Time::from_us(100), &ns2);
        e.sample(Time::from_us(20), &ns2);
        assert_eq!(e.srtt(), Some(Time::from_us(90)));
    }

    /// ns-2.30's rtt_backoff() doubles only while t_backoff_ < 64.
    #[test]
    fn max_backoff_caps_the_multiplier() {
        let cfg = TcpConfig {
            max_backoff: 64,
            ..cfg_us(Time::from_us(1))
        };
        let mut e = RtoEstimator::new(&cfg);
        e.sample(Time::from_us(20), &cfg);
        let base = e.current(&cfg);
        for _ in 0..10 {
            e.back_off(&cfg);
        }
        assert_eq!(e.backoff(), 6);
        assert_eq!(e.current(&cfg), base.times(64));
        // Without the cap the RTO keeps doubling.
        let free = cfg_us(Time::from_us(1));
        let mut e = RtoEstimator::new(&free);
        e.sample(Time::from_us(20), &free);
        (0..10).for_each(|_| e.back_off(&free));
        assert_eq!(e.current(&free), base.times(1024));
    }
}
