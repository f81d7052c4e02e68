//! TCP parameters and named host profiles.

use super::cc::CcKind;
use crate::units::{Bytes, Time};

/// The host's timer clock.
///
/// Two kinds. *Jiffies* (`aligned`): Linux before high-resolution TCP timers
/// kept TCP time in ticks: an RTT sample is a difference of tick counters (at
/// least one tick) and a timer armed for `d` fires on a tick boundary, so
/// timers armed in the same tick fire together. *A granularity* (not
/// aligned), as ns-2's `tcpTick_` or a microsecond stack: RTT samples are
/// rounded to whole ticks (at least one), RTOs are whole ticks, but a timer
/// fires exactly one RTO after it was armed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerClock {
    pub tick: Time,
    pub aligned: bool,
}

impl TimerClock {
    pub fn jiffies(hz: u32) -> TimerClock {
        TimerClock {
            tick: Time(crate::units::PS_PER_SEC / hz as u64),
            aligned: true,
        }
    }

    /// A clock of granularity `tick` whose timers are not tick-aligned.
    pub fn granular(tick: Time) -> TimerClock {
        TimerClock {
            tick,
            aligned: false,
        }
    }

    #[inline]
    pub fn ticks(&self, t: Time) -> u64 {
        t.0 / self.tick.0
    }

    /// The instant a timer armed at `now` for `dur` fires: `dur` rounded up to
    /// whole ticks, counted from the tick `now` falls in (as `jiffies + n`)
    /// on an aligned clock, from `now` itself otherwise.
    #[inline]
    pub fn deadline(&self, now: Time, dur: Time) -> Time {
        let t = self.tick.0;
        if self.aligned {
            Time((now.0 / t + dur.0.div_ceil(t)) * t)
        } else {
            Time(now.0 + dur.0.div_ceil(t) * t)
        }
    }

    /// An RTT sample between two instants as the clock sees it: a whole
    /// number of ticks, at least one (a difference of tick counters when
    /// aligned; the elapsed time rounded to the nearest tick otherwise, as
    /// ns-2's `rtt_update`).
    #[inline]
    pub fn measure(&self, sent: Time, now: Time) -> Time {
        let n = if self.aligned {
            self.ticks(now) - self.ticks(sent)
        } else {
            let t = self.tick.0;
            (now.0 - sent.0 + t / 2) / t
        };
        Time(n.max(1) * self.tick.0)
    }

    /// `d` rounded up to whole ticks.
    #[inline]
    pub fn round_up(&self, d: Time) -> Time {
        Time(d.0.div_ceil(self.tick.0) * self.tick.0)
    }
}

impl From<crate::vocab::Clock> for TimerClock {
    /// Jiffies are tick-aligned; a granularity is not.
    fn from(c: crate::vocab::Clock) -> TimerClock {
        match c {
            crate::vocab::Clock::Jiffies { hz } => TimerClock::jiffies(hz),
            crate::vocab::Clock::Granular { tick } => TimerClock::granular(tick),
        }
    }
}

/// Every knob of a TCP endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TcpConfig {
    /// Maximum segment size (payload bytes per segment).
    pub mss: u32,
    /// Initial congestion window in segments.
    pub initial_window: u32,
    /// Receive window advertised (the application reads at once).
    pub receive_window: Bytes,
    /// RFC 6298 (2.4) lower bound on the RTO.
    pub min_rto: Time,
    /// RFC 6298 (2.5) upper bound on the RTO.
    pub max_rto: Time,
    /// RFC 6298 (2.1) RTO before the first RTT sample.
    pub initial_rto: Time,
    /// Timer and RTT-measurement resolution.
    pub clock: TimerClock,
    /// Clock granularity G of RFC 6298 (2.2).
    pub granularity: Time,
    /// RFC 1122 (4.2.3.2) / RFC 5681 (4.2) delayed ACKs.
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Time,
    /// RFC 5681 (3.2) duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// RFC 5681 (4.1): restart from the initial window after an idle RTO.
    pub slow_start_after_idle: bool,
    /// RFC 7661 (4.1): grow cwnd only while the window limits sending.
    pub cwnd_validation: bool,
    pub cc: CcKind,
    /// RFC 2018 SACK option and RFC 6675 loss recovery.
    pub sack: bool,
    /// RFC 3168 ECN: data packets are ECN-capable and CE marks are echoed.
    pub ecn: bool,
    /// Each timeout fires at RTO * (1 + U(0, 0.5)) (Vasudevan et al.,
    /// SIGCOMM 2009), to desynchronize retransmissions at large fan-in.
    pub randomize_rto: bool,
    /// A random delay added to each timeout (Vasudevan et al., SIGCOMM
    /// 2009, Section 5.3): U(0, bound) for a fixed bound, or U(0, SRTT x
    /// 2^backoff) when adaptive (docs/model.md).
    pub rto_delay: RtoDelay,
    /// RFC 3042 limited transmit: a new segment on each of the first
    /// dupack_threshold - 1 duplicate ACKs (ns-2's `singledup_`; Reno and
    /// NewReno recovery).
    pub limited_transmit: bool,
    /// RFC 6582 (3.2) step 2: no fast retransmit for duplicate ACKs that do
    /// not cover `recover` (losses of a window a timeout or recovery already
    /// handled). ns-2's `bugFix_`; off, go-back-N after a timeout may enter
    /// fast retransmit again.
    pub recover_check: bool,
    /// RFC 5681 (3.1) slow start. Off: ssthresh stays at one segment, so
    /// cwnd only grows by congestion avoidance (ns-2's `max_ssthresh_ = 1`).
    pub slow_start: bool,
    /// RFC 7323 (4.1) RTTM: every ACK that advances the left window edge
    /// gives an RTO sample from its echoed timestamp. Retransmissions are
    /// then timed too (RFC 7323 (4.2) makes the echo unambiguous), so the
    /// first ACK after a timeout ends the backoff (RFC 6298 (5.7)), as in
    /// Linux (`tcp_ack_update_rtt`). Off: Karn's algorithm on one timed
    /// segment per window, and the backoff lasts until new data is acked.
    pub rtt_timestamps: bool,
    /// Consecutive timeouts after which the connection aborts (Linux's
    /// tcp_retries2 = 15).
    pub max_retransmits: u32,
    /// Once the RTO multiplier passes 8 (the fourth consecutive timeout),
    /// the next RTT sample restarts the estimator as a first measurement
    /// (SRTT = R, RTTVAR = R/2) instead of smoothing into the old SRTT:
    /// ns-2's rtt_backoff() (tcp.cc: `if (t_backoff_ > 8) { ...; t_srtt_ =
    /// 0; }`, then rtt_update()'s `t_srtt_ == 0` branch), after 4.4BSD's
    /// tcp_timer.c. RFC 6298 keeps SRTT.
    pub backoff_restarts_srtt: bool,
    /// The largest factor timeouts multiply the RTO by, a power of two; 0:
    /// doubling stops only at max_rto (RFC 6298 (5.5), and ns-2 from 2.31,
    /// whose rtt_backoff() doubles while `t_backoff_ < 64 || rfc2988_`).
    /// ns-2.30's rtt_backoff() stops at 64 (`if (t_backoff_ < 64)`).
    pub max_backoff: u32,
    /// ns-2's window reduction (tcp/tcp.cc `TcpAgent::slowdown()` with
    /// `CLOSE_SSTHRESH_HALF`, `precision_reduce_` on, `decrease_num_` 0.5),
    /// for Reno and NewReno: a fast retransmit or a timeout sets ssthresh =
    /// max(2, floor(min(cwnd, rwnd) / 2)) segments, half the window in
    /// force (`windowd()`, without fast recovery's inflation) rather than
    /// RFC 5681's max(FlightSize / 2, 2 SMSS); a fast retransmit sets cwnd
    /// to that half unrounded (`CLOSE_CWND_HALF`, at least one segment),
    /// SACK recovery included. After a timeout cwnd is one segment, so a
    /// second timeout in a row gives ssthresh 2 (where FlightSize, still
    /// the old window after go-back-N, gives half of it again).
    pub halve_window: bool,
    /// ns-2's Reno and NewReno fast recovery (tcp/tcp-reno.cc and
    /// tcp/tcp-newreno.cc `recv()` and `dupack_action()`, `exitFastRetrans_`
    /// true, `partial_window_deflation_` 1, `newreno_changes_` 0,
    /// `exit_recovery_fix_` 0): fast retransmit restarts the timer and stops
    /// timing a segment (`reset_rtx_timer(1,0)`); the inflation (`dupwnd_`)
    /// is kept apart from cwnd, a partial ACK deflates it first; leaving
    /// recovery drops the inflation and the ACK then opens cwnd as any new
    /// ACK does (`recv_newack_helper()`), instead of RFC 6582's
    /// min(ssthresh, FlightSize + SMSS) or RFC 5681's cwnd = ssthresh;
    /// Reno too checks `recover` when `recover_check` is on (`bugFix_`).
    /// (NewReno's `send_much(0, 0, 2)` in recovery is not modelled: there
    /// an ACK opens at most one segment of room.)
    pub ns2_recovery: bool,
    /// ns-2's restart after idle (tcp/tcp.cc `newack()` → `newtimer()`, which
    /// re-arms the retransmission timer on every new ACK, even one that
    /// acknowledges everything, since `t_seqno_ > seqno` always holds there
    /// with `timerfix_` on; and `timeout()` with `slow_start_restart_` and
    /// `restart_bugfix_` on): the timer runs on while nothing is
    /// outstanding, and when it fires cwnd becomes one segment (ssthresh
    /// kept, no backoff, not counted as a timeout; ns-2 re-arms it, but
    /// further expiries while idle change nothing, so here it stops);
    /// sending new data with nothing outstanding restarts it (`output()`'s
    /// `force_set_rtx_timer`).
    pub idle_restart: bool,
    /// ns-2's limited transmit (tcp/tcp.cc `send_one()`, called by
    /// tcp-newreno.cc `recv()` on each of the first `numdupacks_ - 1`
    /// duplicate ACKs with `singledup_` on): it sends the segment at
    /// `t_seqno_`, which after a timeout's go-back-N (`reset_rtx_timer(0,1)`:
    /// `t_seqno_ = highest_ack_ + 1`) is a retransmission below `maxseq_`,
    /// where RFC 3042 sends only new data. With this, limited transmit sends
    /// the segment at `snd_nxt` even when `snd_nxt < snd_max`.
    pub ns2_limited_transmit: bool,
    /// ns-2's RTO arithmetic (tcp/tcp.cc `rtt_update()`, `rtt_timeout()`,
    /// `rtt_backoff()` with `timestamps_` off, `rfc2988_` on): RTT samples
    /// count the clock's tick boundaries crossed (`t_rtt_`, at least one),
    /// SRTT and RTTVAR are integers of 1/8 and 1/4 tick, the RTO is
    /// floor(SRTT + 4 RTTVAR) ticks (no clock-granularity term), raised to
    /// min_rto, times the backoff, capped at max_rto, and at least two
    /// ticks; the backoff doubles while below 64 or the RTO below max_rto;
    /// timers fire exactly one RTO after arming (`set_rtx_timer()`).
    /// (tcp-newreno.cc `partialnewack()` ends the backoff without a sample
    /// when a partial ACK covers the timed segment; with `ns2_recovery`
    /// that never happens, as in ns-2: fast retransmit stops timing, and a
    /// segment timed after it lies above `recover`.)
    pub ns2_rto: bool,
    /// ns-2's SACK sender, `Agent/TCP/Sack1` (tcp/tcp-sack1.cc, with the
    /// `ScoreBoardRQ` scoreboard of tcp/scoreboard-rq.cc and
    /// `partial_ack_` true), in place of RFC 6675, when `sack` is on:
    /// a duplicate ACK counts only if its SACK blocks report new data, and
    /// none counts after a timeout until new data is acked (`timeout_`);
    /// on the third, `pipe_` = packets outstanding - 3, cwnd and ssthresh
    /// halved (`slowdown()`), the first hole retransmitted; in recovery
    /// every ACK takes one from `pipe_` and each packet sent adds one, and
    /// while `pipe_` < cwnd the sender retransmits each hole below the
    /// highest SACKed packet once (no RFC 6675 IsLost) or sends new data;
    /// a partial ACK sends two more packets (`partial_ack_action()`); the
    /// ACK of `recover_` ends recovery without opening cwnd; a new ACK
    /// outside recovery, the end of recovery and a timeout forget the
    /// SACK information.
    pub ns2_sack1: bool,
    /// Linux's TCP pacing (docs/tcp-family.md, "Pacing"); off in every
    /// profile.
    pub pacing: Pacing,
    /// TCP Small Queues (Linux 3.6 on, `tcp_small_queue_check` /
    /// `tcp_limit_output_bytes`): no new data while the socket's packets
    /// below TCP (its host's qdisc and ring, and on their way there) hold
    /// this many bytes or more; a transmit completion of one of them lets
    /// it send again (`tcp_wfree`, then `tcp_tsq_handler`). None: off.
    /// Linux counts `skb->truesize` (about 2.3 KB for a 1500-byte packet);
    /// this counts wire bytes.
    pub small_queues: Option<Bytes>,
}

impl TcpConfig {
    /// Whether an endpoint draws random numbers (a randomized RTO or a
    /// random delay added to each timeout): only then it needs a stream.
    pub fn uses_rng(&self) -> bool {
        self.randomize_rto || self.rto_delay != RtoDelay::Off
    }

    /// Whether an endpoint keeps state out of line (its random stream, its
    /// pacing clock, its bytes below TCP) from the start.
    pub fn uses_extras(&self) -> bool {
        self.uses_rng() || self.pacing.enabled || self.small_queues.is_some()
    }
}

/// TCP pacing as Linux does it (docs/tcp-family.md, "Pacing"): each data
/// segment leaves no earlier than the previous one's departure plus its
/// size over the pacing rate, `ratio` percent of max(cwnd, flight) / SRTT
/// (`tcp_update_pacing_rate`, net/ipv4/tcp_input.c).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pacing {
    pub enabled: bool,
    /// Percent of cwnd / SRTT while cwnd < ssthresh / 2 (slow start far
    /// from its end): `net.ipv4.tcp_pacing_ss_ratio`, 200.
    pub ss_ratio: u32,
    /// Percent of cwnd / SRTT otherwise: `net.ipv4.tcp_pacing_ca_ratio`, 120.
    pub ca_ratio: u32,
    /// Data segments a connection sends before the first spacing:
    /// `tcp_update_skb_after_send` paces only once `data_segs_out >= 10`
    /// ("Original sch_fq does not pace first 10 MSS", sch_fq's
    /// `initial_quantum` of 10 MTU).
    pub initial_burst: u32,
}

impl Pacing {
    /// Linux's defaults, off (no kernel of the studied era paced: fq and
    /// TCP pacing came with Linux 3.12 in 2013, and fq was not the default
    /// qdisc).
    pub const OFF: Pacing = Pacing {
        enabled: false,
        ss_ratio: 200,
        ca_ratio: 120,
        initial_burst: 10,
    };
}

pub use crate::vocab::RtoDelay;

/// A named profile's configuration, for the simulator's own tests. The
/// one table of profiles is the spec's (`spec/tcp.rs`, `ProfileName`); a
/// test takes a profile as a scenario would, through the lowering.
#[cfg(test)]
pub(crate) fn profile(name: &str) -> TcpConfig {
    let p = crate::spec::ProfileName::parse(name).expect("a profile name");
    crate::spec::lower::sim::tcp_config(&p.settings())
}
