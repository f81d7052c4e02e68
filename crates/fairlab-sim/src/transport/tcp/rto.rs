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
    /// With `ns2_rto`, ns-2's integer state (tcp/tcp.h): `t_srtt_` in
    /// eighths of a tick (0: no estimate), `t_rttvar_` in quarters, and
    /// `t_rtxcur_` (here `base`, the initial RTO until the first sample).
    t_srtt: i64,
    t_rttvar: i64,
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
            // rtt_init(): t_srtt_ = int(srtt_init_ / tcp_tick_) << 3 with
            // srtt_init_ 0; t_rttvar_ is overwritten by the first sample.
            t_srtt: 0,
            t_rttvar: 0,
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
    /// Ends the backoff without a sample (ns-2's `t_backoff_ = 1`).
    pub fn end_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Takes an RTT sample `r` (already quantized by the clock). Inlined
    /// into the ACK path whichever codegen unit it lands in (out of line it
    /// cost 0.2 % more instructions on the incast benchmark, callgrind).
    #[inline]
    pub fn sample(&mut self, r: Time, cfg: &TcpConfig) {
        if cfg.ns2_rto {
            self.ns2_sample(r, cfg);
            return;
        }
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

    /// ns-2's rtt_update() (tcp/tcp.cc) on a sample of `r` (whole ticks):
    ///
    /// ```text
    /// if (t_srtt_ != 0) {
    ///     short delta = t_rtt_ - (t_srtt_ >> 3);   t_srtt_ += delta (>= 1)
    ///     |delta|;  delta -= t_rttvar_ >> 2;       t_rttvar_ += delta (>= 1)
    /// } else { t_srtt_ = t_rtt_ << 3; t_rttvar_ = t_rtt_ << 1; }
    /// t_rtxcur_ = (((t_rttvar_ << 3) + t_srtt_) >> 3) * tcp_tick_
    /// ```
    ///
    /// (`rttvar_exp_` 2, `T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2; `delta` is a
    /// C `short`, wrapped to 16 bits as there). newack() has set
    /// `t_backoff_ = 1` before.
    #[cold]
    fn ns2_sample(&mut self, r: Time, cfg: &TcpConfig) {
        let tick = cfg.clock.tick.0;
        let m = (r.0 / tick).max(1) as i64;
        if self.restart {
            // rtt_backoff(): `t_srtt_ = 0` past a backoff of 8.
            self.t_srtt = 0;
            self.restart = false;
        }
        if self.t_srtt != 0 {
            let mut delta = (m - (self.t_srtt >> 3)) as i16;
            self.t_srtt += delta as i64;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.wrapping_abs();
            delta = (delta as i64 - (self.t_rttvar >> 2)) as i16;
            self.t_rttvar += delta as i64;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = m << 3;
            self.t_rttvar = m << 1;
        }
        let rtxcur = (((self.t_rttvar << 3) + self.t_srtt) >> 3).max(0) as u64;
        self.base = Time(rtxcur * tick);
        self.srtt = OptTime::some(Time((self.t_srtt as u64 * tick) / 8));
        self.rttvar = Time((self.t_rttvar as u64 * tick) / 4);
        self.backoff = 0;
    }

    /// ns-2's rtt_timeout() (tcp/tcp.cc, `rfc2988_` on, `use_rtt_` 0):
    /// `t_rtxcur_` raised to `minrto_` before the backoff multiplies it,
    /// capped at `maxrto_`, and at least `2 * tcp_tick_`.
    fn ns2_timeout(&self, cfg: &TcpConfig) -> Time {
        let k = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        let t = self.base.max(cfg.min_rto).times(k).min(cfg.max_rto);
        t.max(Time(2 * cfg.clock.tick.0))
    }

    /// The RTO in force.
    pub fn current(&self, cfg: &TcpConfig) -> Time {
        if cfg.ns2_rto {
            return self.ns2_timeout(cfg);
        }
        let k = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.base.times(k).min(cfg.max_rto)
    }

    /// RFC 6298 (5.5): double the RTO after a timeout, up to max_rto (and
    /// up to a factor of max_backoff when that is set).
    pub fn back_off(&mut self, cfg: &TcpConfig) {
        if cfg.ns2_rto {
            // ns-2.35's rtt_backoff() (tcp/tcp.cc): `if (t_backoff_ < 64 ||
            // (rfc2988_ && rtt_timeout() < maxrto_)) t_backoff_ <<= 1;`
            // (ns-2.30's `if (t_backoff_ < 64)` with max_backoff = 64),
            // then `if (t_backoff_ > 8)` clobber t_srtt_.
            let factor = 1u64 << self.backoff.min(62);
            let double = if cfg.max_backoff != 0 {
                factor < cfg.max_backoff as u64
            } else {
                factor < 64 || self.ns2_timeout(cfg) < cfg.max_rto
            };
            if double && self.backoff < 62 {
                self.backoff += 1;
            }
            if cfg.backoff_restarts_srtt && self.backoff > 3 {
                self.restart = true;
            }
            return;
        }
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
    use crate::transport::tcp::config::{profile, TimerClock};

    fn cfg_us(min_rto: Time) -> TcpConfig {
        TcpConfig {
            min_rto,
            clock: TimerClock::granular(Time::from_us(1)),
            granularity: Time::from_us(1),
            ..profile("rfc")
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
            ..profile("ns2")
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

    fn ns2_tick(tick: Time, ns2_rto: bool) -> TcpConfig {
        TcpConfig {
            min_rto: Time::ZERO,
            clock: TimerClock::granular(tick),
            granularity: tick,
            ns2_rto,
            ..profile("ns2")
        }
    }

    /// rtt_update(): t_srtt_ and t_rttvar_ are integers of 1/8 and 1/4
    /// tick. Samples of one tick leave t_rttvar_ at 2 (|0| - (2 >> 2) = 0
    /// is added each time), so t_rtxcur_ = (2 << 3) + 8 >> 3 = 3 ticks for
    /// ever; RFC 6298's RTTVAR decays and its RTO falls to SRTT + G.
    #[test]
    fn ns2_integer_rttvar_keeps_a_floor_of_quarter_ticks() {
        for ns2_rto in [true, false] {
            let cfg = ns2_tick(Time::from_ms(10), ns2_rto);
            let mut e = RtoEstimator::new(&cfg);
            assert_eq!(e.current(&cfg), Time::from_secs(3));
            for _ in 0..20 {
                e.sample(Time::from_ms(10), &cfg);
            }
            let want = if ns2_rto { 30 } else { 20 };
            assert_eq!(e.current(&cfg), Time::from_ms(want), "ns2_rto {ns2_rto}");
        }
        // One sample of 3 ticks then one of 5: t_srtt_ 24 -> 26, t_rttvar_
        // 6 -> 7, t_rtxcur_ = (56 + 26) >> 3 = 10 ticks.
        let cfg = ns2_tick(Time::from_ms(10), true);
        let mut e = RtoEstimator::new(&cfg);
        e.sample(Time::from_ms(30), &cfg);
        assert_eq!(e.current(&cfg), Time::from_ms(90));
        e.sample(Time::from_ms(50), &cfg);
        assert_eq!(e.current(&cfg), Time::from_ms(100));
        assert_eq!(e.srtt(), Some(Time(Time::from_ms(10).0 * 26 / 8)));
    }

    /// rtt_timeout(): never below 2 * tcp_tick_, even under maxrto_.
    #[test]
    fn ns2_timeout_is_at_least_two_ticks() {
        for ns2_rto in [true, false] {
            let cfg = TcpConfig {
                max_rto: Time::from_us(1),
                ..ns2_tick(Time::from_us(1), ns2_rto)
            };
            let mut e = RtoEstimator::new(&cfg);
            e.sample(Time::from_us(1), &cfg);
            let want = if ns2_rto { 2 } else { 1 };
            assert_eq!(e.current(&cfg), Time::from_us(want));
        }
    }

    /// ns-2.35's rtt_backoff() doubles t_backoff_ while it is below 64
    /// even once the timeout is at maxrto_, so a fourth timeout in a row
    /// passes 8 and clobbers t_srtt_; doubling that stops at max_rto
    /// never gets there.
    #[test]
    fn ns2_backoff_counts_past_max_rto_up_to_64() {
        for ns2_rto in [true, false] {
            let cfg = TcpConfig {
                min_rto: Time::from_ms(200),
                max_rto: Time::from_secs(1),
                ..ns2_tick(Time::from_ms(10), ns2_rto)
            };
            let mut e = RtoEstimator::new(&cfg);
            for _ in 0..10 {
                e.sample(Time::from_ms(10), &cfg);
            }
            (0..5).for_each(|_| e.back_off(&cfg));
            assert_eq!(e.current(&cfg), Time::from_secs(1));
            e.sample(Time::from_ms(100), &cfg);
            // Restarted: SRTT = the sample; else smoothed from 10 ms.
            let fresh = e.srtt() == Some(Time::from_ms(100));
            assert_eq!(fresh, ns2_rto, "ns2_rto {ns2_rto}");
        }
    }
}
