//! One TCP endpoint: both halves of a full-duplex connection.
//!
//! The socket is a pure state machine. The simulator hands it segments and
//! timer wake-ups and collects the segments it emits in a reusable outbox; it
//! reads `next_deadline()` afterwards to (re)schedule the single wake-up the
//! socket needs. This keeps it testable on its own: the tests drive a socket
//! through scripted losses without a network.
//!
//! Loss recovery is one of three, chosen from the configuration: SACK
//! (RFC 6675) when `sack` is on, else Reno (RFC 5681 (3.2)) for the `reno`
//! algorithm, else NewReno (RFC 6582).

use super::cc::{AckEvent, Cc, CcKind, CongestionControl, Window};
use super::config::{RtoDelay, TcpConfig};
use super::reassembly::Reassembly;
use super::rto::RtoEstimator;
use super::sack::Scoreboard;
use crate::engine::Rng;
use crate::packet::{flags, NodeId, Packet, MAX_SACK_BLOCKS, NO_TS};
use crate::units::{OptTime, Time};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    /// Gave up after `max_retransmits` consecutive timeouts.
    Aborted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recovery {
    Reno,
    NewReno,
    Sack,
}

/// Per-endpoint counters (of what this endpoint sent). The payload bytes
/// it received are [`TcpSocket::bytes_received`], read from its receive
/// sequence rather than counted beside it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Segments carrying payload.
    pub data_segments_sent: u64,
    /// Data segments sent again (fast retransmit, recovery, or after a timeout).
    pub retransmits: u64,
    /// Loss recoveries entered on duplicate ACKs or SACK information.
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Data timeouts by cause (FAST'08, Table 3): the first unacknowledged
    /// segment had been retransmitted before (a lost retransmission) ...
    pub timeouts_retransmission: u64,
    /// ... else the hole is among the block's last `dupack_threshold`
    /// segments, so too few segments could follow it (the last packets of
    /// a block lost) ...
    pub timeouts_tail: u64,
    /// ... else too much of the window was lost for duplicate ACKs to
    /// announce it (a whole window lost).
    pub timeouts_window: u64,
    /// Window reductions on ECN-Echo.
    pub ecn_reductions: u64,
    /// Longest time spent with data outstanding and no ACK arriving.
    pub longest_silence: Time,
    /// Segments the host's own transmit queue refused (never on the wire).
    pub local_drops: u64,
}

/// What a segment (or timer) did that the application must hear about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegmentOutcome {
    /// In-order payload bytes delivered by this segment.
    pub delivered: u64,
    /// The connection became established with this segment.
    pub established: bool,
}

/// One point of a connection's trace: its state after a change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRow {
    pub t: Time,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub srtt: Option<Time>,
    pub rto: Time,
    pub in_recovery: bool,
    /// DCTCP's alpha (NaN for other algorithms).
    pub alpha: f64,
}

/// The segment timed for the RFC 6298 estimator (Karn: one at a time), in
/// 16 bytes instead of `Option<(u64, Time)>`'s 24: `end` 0 is none, since
/// every timed segment ends at 1 or above (the SYN occupies sequence 0).
#[derive(Clone, Copy, Debug)]
struct RttTiming {
    /// One past its last sequence number.
    end: u64,
    sent: Time,
}

impl RttTiming {
    const NONE: RttTiming = RttTiming {
        end: 0,
        sent: Time::ZERO,
    };
    #[inline]
    fn get(self) -> Option<(u64, Time)> {
        (self.end != 0).then_some((self.end, self.sent))
    }
}

/// What only some sockets use, kept out of line (8 bytes for a null box
/// instead of 56 inline on every socket).
#[derive(Clone, Debug, Default)]
struct Extras {
    /// Drawn from only with `randomize_rto` or an RTO delay, and present
    /// exactly then (`TcpConfig::uses_rng`).
    rng: Option<Rng>,
    /// State changes, recorded only when tracing is on.
    trace: Option<Vec<TraceRow>>,
    /// With pacing on (`TcpConfig::pacing`): the earliest departure of the
    /// next data segment (Linux's `tcp_wstamp_ns`) ...
    pace_next: Time,
    /// ... and the pacing timer, armed when a segment waits for it
    /// (Linux's `pacing_timer`, an hrtimer: exact, not on the jiffy clock).
    pace_deadline: OptTime,
    /// The SRTT the pacing rate divides by: exact samples smoothed with
    /// alpha = 1/8 (Linux's `srtt_us`, microsecond samples since 3.15,
    /// whatever the timer clock; the RTO estimator's SRTT here is on the
    /// profile's clock, a whole 1 or 4 ms tick for a 100 us path).
    pace_srtt: OptTime,
    /// With TCP Small Queues (`TcpConfig::small_queues`): bytes of this
    /// socket's packets below TCP, emitted and not yet freed by a transmit
    /// completion or a drop (Linux's `sk_wmem_alloc`) ...
    tsq_bytes: u64,
    /// ... and whether it stopped sending new data for them
    /// (`TSQ_THROTTLED`).
    tsq_throttled: bool,
}

/// ns-2's `TCPSink/Sack1` state (see `TcpSocket::sink_stack`): the
/// `SackStack` and the blocks of the next ACK.
#[derive(Clone, Debug, Default)]
struct SinkSack {
    stack: Vec<(u64, u64)>,
    blocks: Vec<(u64, u64)>,
}

#[derive(Clone, Debug)]
pub struct TcpSocket {
    /// Shared by every socket built from the same settings (a workload's):
    /// 8 bytes here instead of 88.
    cfg: Arc<TcpConfig>,
    conn: u32,
    local: NodeId,
    remote: NodeId,
    passive: bool,
    /// The hash of the 5-tuple this endpoint sends with (computed once,
    /// carried by every segment as Linux carries `skb->hash`). The tuple
    /// itself is the connection's ([`crate::sim::Conn::tuple`]): kept once
    /// there, not twice here.
    flow_hash: u32,
    state: TcpState,
    recovery_kind: Recovery,

    // Send half (sequence numbers: SYN = 0, data from 1).
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// One past the last byte the application has written.
    app_end: u64,
    /// The congestion window and slow-start threshold, bytes (with the
    /// configuration's segment size, the [`Window`] the congestion
    /// controller sees: the size is not kept per socket).
    cwnd: u64,
    ssthresh: u64,
    /// The peer's receive window, as segments carry it (32 bits, the
    /// width of `Packet::wnd`).
    peer_wnd: u32,
    cc: Cc,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint: one past the highest
    /// byte sent when recovery (or a timeout) began.
    recover: u64,
    first_partial_ack: bool,
    /// With `ns2_recovery`: the part of cwnd that is fast recovery's
    /// inflation (ns-2's `dupwnd_`), bytes; cwnd less this is ns-2's `cwnd_`.
    dupwnd: u64,
    /// RFC 6675 HighRxt: one past the highest byte retransmitted in recovery.
    /// With `ns2_sack1`, ScoreBoardRQ's `h_seqno_` (tcp/scoreboard-rq.h):
    /// where the search for the next hole to retransmit starts.
    high_rxt: u64,
    /// With `ns2_sack1`, tcp-sack1.cc's `pipe_`, packets (in recovery: set
    /// on entry, one less per ACK, one more per packet sent).
    sack1_pipe: i64,
    /// With `ns2_sack1`, tcp-sack1.cc's `next_pkt_`: the next packet a
    /// partial ACK sends (kept across recoveries, as there).
    sack1_next_pkt: u64,
    /// With `ns2_sack1`, tcp-sack1.cc's `timeout_`: a timeout happened and
    /// no new data has been acknowledged since (duplicate ACKs ignored).
    sack1_timeout: bool,
    /// With `ns2_sack1`: this ACK sends nothing (tcp-sack1.cc recv() calls
    /// send_much() only with `dupacks_ == 0` outside recovery, and only
    /// for a valid ACK in it); cleared by the next `try_send`.
    sack1_hold: bool,
    scoreboard: Scoreboard,
    /// The segment being timed for the RFC 6298 estimator.
    rtt_timing: RttTiming,
    rto: RtoEstimator,
    rto_deadline: OptTime,
    consecutive_timeouts: u32,
    /// One past the highest byte ever retransmitted (timeout causes).
    rtx_mark: u64,
    min_rtt: OptTime,
    last_data_sent: Time,
    silence_since: OptTime,
    /// RFC 3168 (6.1.2): no second reduction before this byte is acked.
    ecn_recover: u64,
    send_cwr: bool,

    // Receive half.
    rcv_nxt: u64,
    /// Out-of-order data, and the most recent arrival (reported first,
    /// RFC 2018 (4)).
    ooo: Reassembly,
    unacked_segments: u32,
    delack_deadline: OptTime,
    /// With `ns2_sack1`, ns-2's `TCPSink/Sack1` (tcp/tcp-sink.cc
    /// `Sacker`): the stack of the blocks last reported (`SackStack` of
    /// `maxSackBlocks_` entries, most recent first) ...
    sink_stack: Option<Box<SinkSack>>,
    /// RFC 7323 TS.Recent: timestamp to echo.
    ts_recent: Time,
    /// RFC 3168 receiver: ECE latched until CWR.
    ece_latched: bool,
    /// RFC 8257 (3.2) receiver: CE state of the last data segment.
    ce_state: bool,

    pub stats: TcpStats,
    /// The RTO's random stream and the trace, which only some runs use.
    extras: Option<Box<Extras>>,
}

impl TcpSocket {
    pub fn new(
        cfg: impl Into<Arc<TcpConfig>>,
        conn: u32,
        local: NodeId,
        remote: NodeId,
        passive: bool,
    ) -> Self {
        let cfg: Arc<TcpConfig> = cfg.into();
        let mss = cfg.mss as u64;
        let recovery_kind = if cfg.sack {
            Recovery::Sack
        } else if cfg.cc == CcKind::Reno {
            Recovery::Reno
        } else {
            Recovery::NewReno
        };
        TcpSocket {
            conn,
            local,
            remote,
            passive,
            flow_hash: 0,
            state: if passive {
                TcpState::Listen
            } else {
                TcpState::Closed
            },
            recovery_kind,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 1,
            cwnd: cfg.initial_window as u64 * mss,
            // RFC 5681 (3.1): initial ssthresh arbitrarily high (one
            // segment without slow start).
            ssthresh: if cfg.slow_start { u64::MAX } else { mss },
            // What a peer with these settings advertises (see `packet`).
            peer_wnd: cfg.receive_window.get().min(u32::MAX as u64) as u32,
            cc: Cc::new(cfg.cc, mss),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            first_partial_ack: true,
            dupwnd: 0,
            high_rxt: 0,
            sack1_pipe: 0,
            sack1_next_pkt: 0,
            sack1_timeout: false,
            sack1_hold: false,
            scoreboard: Scoreboard::default(),
            rtt_timing: RttTiming::NONE,
            rto: RtoEstimator::new(&cfg),
            rto_deadline: OptTime::NONE,
            consecutive_timeouts: 0,
            rtx_mark: 0,
            min_rtt: OptTime::NONE,
            last_data_sent: Time::ZERO,
            silence_since: OptTime::NONE,
            ecn_recover: 0,
            send_cwr: false,
            rcv_nxt: 0,
            ooo: Reassembly::default(),
            unacked_segments: 0,
            delack_deadline: OptTime::NONE,
            sink_stack: None,
            ts_recent: NO_TS,
            ece_latched: false,
            ce_state: false,
            stats: TcpStats::default(),
            extras: cfg.uses_extras().then(|| {
                Box::new(Extras {
                    rng: cfg
                        .uses_rng()
                        .then(|| Rng::new(conn as u64 * 2 + passive as u64)),
                    ..Extras::default()
                })
            }),
            // Last: the fields above read it.
            cfg,
        }
    }

    /// Gives the socket its own random stream (kept only if the
    /// configuration draws from it, `TcpConfig::uses_rng`).
    pub fn set_rng(&mut self, rng: Rng) {
        if self.cfg.uses_rng() {
            self.extras.get_or_insert_with(Box::default).rng = Some(rng);
        }
    }

    /// Names the flow this endpoint sends: the hash of its 5-tuple under
    /// the run's [`crate::packet::FlowHasher`].
    pub fn set_flow_hash(&mut self, hash: u32) {
        self.flow_hash = hash;
    }
    /// The flow hash its packets carry.
    pub fn flow_hash(&self) -> u32 {
        self.flow_hash
    }

    /// Turns on the state trace.
    pub fn enable_trace(&mut self) {
        self.extras.get_or_insert_with(Box::default).trace = Some(Vec::new());
    }

    /// The state trace, when it is on.
    pub fn trace(&self) -> Option<&[TraceRow]> {
        self.extras.as_deref()?.trace.as_deref()
    }

    /// (local, remote) nodes.
    pub fn endpoints(&self) -> (NodeId, NodeId) {
        (self.local, self.remote)
    }
    pub fn state(&self) -> TcpState {
        self.state
    }
    pub fn aborted(&self) -> bool {
        self.state == TcpState::Aborted
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }
    /// The segment size (the configuration's).
    #[inline]
    fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    /// Whether losses halve the window as ns-2's `slowdown()` does
    /// (`halve_window`; ns-2's agents are Reno and NewReno).
    #[inline]
    fn halves_window(&self) -> bool {
        self.cfg.halve_window && matches!(self.cfg.cc, CcKind::Reno | CcKind::NewReno)
    }

    /// Whether SACK recovery is ns-2's Sack1 (`ns2_sack1`).
    #[inline]
    fn sack1(&self) -> bool {
        self.cfg.ns2_sack1 && self.recovery_kind == Recovery::Sack
    }

    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF|...)` (tcp/tcp.cc, with
    /// `precision_reduce_` on and `decrease_num_` 0.5): `halfwin =
    /// windowd() / 2`, `windowd()` being min(cwnd_, wnd_) (tcp-reno.cc adds
    /// `dupwnd_`, zero when slowdown() runs: fast retransmit starts outside
    /// recovery and RenoTcpAgent::timeout() clears it first); `ssthresh_ =
    /// (int) halfwin`, at least 2. Returns (ssthresh, halfwin) in bytes.
    fn ns2_halves(&self) -> (u64, u64) {
        let mss = self.mss();
        let win = self
            .cwnd
            .saturating_sub(self.dupwnd)
            .min(self.peer_wnd as u64);
        let half = win / 2;
        ((half / mss).max(2) * mss, half)
    }

    /// An RTT sample between two instants on the timer's clock. With
    /// `ns2_rto`, ns-2's `rtt_update()` without timestamps (tcp/tcp.cc:
    /// `t_rtt_ = int((tao + tickoff) / tcp_tick_)`, `tickoff` the send
    /// time's offset into its tick): the tick boundaries crossed, at least
    /// one. (ns-2 shifts its tick boundaries by a random `boot_time_`;
    /// here they fall on multiples of the tick.)
    #[inline]
    fn rtt_sample(&self, sent: Time, now: Time) -> Time {
        if self.cfg.ns2_rto {
            let c = &self.cfg.clock;
            Time((c.ticks(now) - c.ticks(sent)).max(1) * c.tick.0)
        } else {
            self.cfg.clock.measure(sent, now)
        }
    }

    /// The window as the congestion controller sees it.
    #[inline]
    fn window(&self) -> Window {
        Window {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            mss: self.mss(),
        }
    }

    /// Payload bytes delivered in order to this endpoint's application:
    /// the receive sequence past the SYN (which occupies sequence 0).
    pub fn bytes_received(&self) -> u64 {
        self.rcv_nxt.saturating_sub(1)
    }
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt.get()
    }
    pub fn rto(&self) -> Time {
        self.rto.current(&self.cfg)
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn dctcp_alpha(&self) -> f64 {
        self.cc.dctcp_alpha()
    }
    /// Bytes written by the application and not yet acknowledged.
    pub fn unacked_bytes(&self) -> u64 {
        self.app_end - self.snd_una.max(1)
    }
    /// Payload bytes the peer has acknowledged.
    pub fn bytes_acked(&self) -> u64 {
        self.snd_una.saturating_sub(1)
    }
    /// Longest silence including one still in progress at `now`.
    pub fn longest_silence_at(&self, now: Time) -> Time {
        let open = self
            .silence_since
            .get()
            .map_or(Time::ZERO, |s| now.saturating_sub(s));
        self.stats.longest_silence.max(open)
    }

    /// The earliest instant this socket needs a wake-up.
    #[inline]
    pub fn next_deadline(&self) -> Option<Time> {
        let d = self.rto_deadline.min(self.delack_deadline);
        // (Inline: without the extras box, as almost always, one test.)
        match self.extras.as_deref() {
            None => d.get(),
            Some(x) => d.min(x.pace_deadline).get(),
        }
    }

    /// Active open: send a SYN.
    pub fn connect(&mut self, now: Time, out: &mut Vec<Packet>) {
        debug_assert_eq!(self.state, TcpState::Closed);
        self.state = TcpState::SynSent;
        self.send_syn(now, out);
        self.trace_point(now);
    }

    /// Opens without a handshake, as the one-way TCP agents of ns-2 do: both
    /// sides start established with sequence 0 consumed, and no RTT sample.
    pub fn open_established(&mut self, now: Time) {
        debug_assert!(matches!(self.state, TcpState::Closed | TcpState::Listen));
        self.state = TcpState::Established;
        self.snd_una = 1;
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.rcv_nxt = 1;
        self.trace_point(now);
    }

    /// The application writes `bytes` more to send.
    pub fn write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.app_end += bytes;
        self.try_send(now, out);
        self.trace_point(now);
    }

    #[inline]
    fn trace_point(&mut self, now: Time) {
        // (Inline: without the extras box, as almost always, one test.)
        if self.extras.is_some() {
            self.trace_row(now);
        }
    }

    #[cold]
    fn trace_row(&mut self, now: Time) {
        if let Some(tr) = self.extras.as_deref_mut().and_then(|x| x.trace.as_mut()) {
            let row = TraceRow {
                t: now,
                cwnd: self.cwnd,
                ssthresh: self.ssthresh,
                srtt: self.rto.srtt(),
                rto: self.rto.current(&self.cfg),
                in_recovery: self.in_recovery,
                alpha: self.cc.dctcp_alpha(),
            };
            let changed = tr.last().is_none_or(|l| {
                l.cwnd != row.cwnd
                    || l.ssthresh != row.ssthresh
                    || l.srtt != row.srtt
                    || l.rto != row.rto
                    || l.in_recovery != row.in_recovery
                    || (l.alpha.to_bits() != row.alpha.to_bits())
            });
            if changed {
                tr.push(row);
            }
        }
    }

    /// A segment carrying our receive state: ACK number, echoed timestamp,
    /// ECN echo and SACK blocks.
    fn packet(&self, seq: u64, payload: u32, fl: u8) -> Packet {
        let mut p = Packet {
            seq,
            ack: self.rcv_nxt,
            ts: Time::ZERO,
            ts_echo: self.ts_recent,
            flow: 2 * self.conn + self.passive as u32,
            dst: self.remote,
            hash: self.flow_hash,
            payload,
            wnd: self.cfg.receive_window.get().min(u32::MAX as u64) as u32,
            flags: fl,
            header: crate::packet::TCP_IP_HEADER as u8,
            timeout_rtx: false,
            sack_len: 0,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            stamp: 0,
        };
        if self.cfg.ecn && fl & flags::ACK != 0 {
            let echo = if self.cfg.cc == CcKind::Dctcp {
                self.ce_state
            } else {
                self.ece_latched
            };
            if echo {
                p.flags |= flags::ECE;
            }
        }
        if self.cfg.sack && !self.ooo.is_empty() {
            self.fill_sack(&mut p);
        }
        p
    }

    /// RFC 2018 (4): the block holding the most recent arrival first, then
    /// the others from the highest down, up to three.
    fn fill_sack(&self, p: &mut Packet) {
        let base = self.rcv_nxt;
        if let Some(k) = self.sink_stack.as_deref() {
            let mut n = 0;
            for &(l, r) in k.blocks.iter().filter(|b| b.0 >= base) {
                p.sack[n] = ((l - base) as u32, (r - base) as u32);
                n += 1;
            }
            p.sack_len = n as u8;
            return;
        }
        let mut n = 0usize;
        let first = self.ooo.last_arrival().and_then(|s| {
            self.ooo
                .ranges()
                .iter()
                .find(|r| r.0 <= s && s < r.1)
                .copied()
        });
        if let Some(r) = first {
            p.sack[0] = ((r.0 - base) as u32, (r.1 - base) as u32);
            n = 1;
        }
        for r in self.ooo.ranges().iter().rev() {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if Some(*r) == first {
                continue;
            }
            p.sack[n] = ((r.0 - base) as u32, (r.1 - base) as u32);
            n += 1;
        }
        p.sack_len = n as u8;
    }

    fn emit(&mut self, p: Packet, out: &mut Vec<Packet>) {
        if p.has(flags::ACK) {
            // Every segment we send acknowledges all we have received.
            self.unacked_segments = 0;
            self.delack_deadline = OptTime::NONE;
        }
        // (Without the extras box, as almost always, one test: TCP Small
        // Queues keep their count there.)
        if self.extras.is_some() && self.cfg.small_queues.is_some() {
            self.below_tcp(p.size().get() as i64);
        }
        out.push(p);
    }

    /// TCP Small Queues: `delta` more bytes of this socket below TCP.
    #[cold]
    fn below_tcp(&mut self, delta: i64) {
        if let Some(x) = self.extras.as_deref_mut() {
            x.tsq_bytes = x.tsq_bytes.saturating_add_signed(delta);
        }
    }

    /// TCP Small Queues (`tcp_small_queue_check` of `tcp_write_xmit`, as
    /// Linux 3.12 has it: `sk_wmem_alloc >= tcp_limit_output_bytes`): no
    /// new data while the socket's bytes below TCP reach the limit; the
    /// socket is marked throttled, and a transmit completion resumes it.
    #[inline]
    fn small_queue_full(&mut self) -> bool {
        if self.extras.is_none() {
            return false;
        }
        match self.cfg.small_queues {
            None => false,
            Some(limit) => self.tsq_check(limit.get()),
        }
    }

    #[cold]
    fn tsq_check(&mut self, limit: u64) -> bool {
        let Some(x) = self.extras.as_deref_mut() else {
            return false;
        };
        let full = x.tsq_bytes >= limit;
        x.tsq_throttled |= full;
        full
    }

    /// Bytes of this socket below TCP now (TCP Small Queues; 0 when off).
    pub fn bytes_below_tcp(&self) -> u64 {
        self.extras.as_deref().map_or(0, |x| x.tsq_bytes)
    }

    /// One of this socket's packets, of `size` bytes on the wire, finished
    /// transmission at its host's NIC (the skb freed: `tcp_wfree`). With
    /// TCP Small Queues a throttled socket sends again (`tcp_tsq_handler`
    /// calls `tcp_write_xmit`). Returns whether it tried.
    pub fn on_tx_done(&mut self, now: Time, size: u64, out: &mut Vec<Packet>) -> bool {
        let Some(limit) = self.cfg.small_queues else {
            return false;
        };
        self.below_tcp(-(size as i64));
        let Some(x) = self.extras.as_deref_mut() else {
            return false;
        };
        if !x.tsq_throttled || x.tsq_bytes >= limit.get() {
            return false;
        }
        x.tsq_throttled = false;
        self.try_send(now, out);
        self.trace_point(now);
        true
    }

    /// One of this socket's packets was dropped at its host after it was
    /// queued (a qdisc pushed it out for another packet): it is freed, and
    /// lost as if in the network. Nothing is sent now.
    pub fn on_tx_freed(&mut self, size: u64) {
        if self.cfg.small_queues.is_some() {
            self.below_tcp(-(size as i64));
        }
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        let fl = if self.passive {
            flags::SYN | flags::ACK
        } else {
            flags::SYN
        };
        let retransmission = self.snd_max > 0;
        self.rtt_timing = if retransmission {
            RttTiming::NONE
        } else {
            RttTiming { end: 1, sent: now }
        };
        self.snd_nxt = 1;
        self.snd_max = 1;
        let mut p = self.packet(0, 0, fl);
        p.ts = now;
        self.emit(p, out);
        self.arm_rto(now);
    }

    fn send_ack(&mut self, out: &mut Vec<Packet>) {
        let p = self.packet(self.snd_nxt, 0, flags::ACK);
        self.emit(p, out);
    }

    /// RFC 6298 (5.1)/(5.6): (re)starts the retransmission timer.
    #[inline]
    fn arm_rto(&mut self, now: Time) {
        let mut d = self.rto.current(&self.cfg);
        if self.extras.is_some() {
            d = self.randomized(d);
        }
        self.rto_deadline = OptTime::some(self.timer_deadline(now, d));
    }

    /// When a retransmission timer armed at `now` for `d` fires.
    #[inline]
    fn timer_deadline(&self, now: Time, d: Time) -> Time {
        if self.cfg.ns2_rto {
            // ns-2's set_rtx_timer(): `rtx_timer_.resched(rtt_timeout())`,
            // exactly (rtt_timeout() is whole ticks but for min_rto).
            now + d
        } else {
            self.cfg.clock.deadline(now, d)
        }
    }

    /// `d` with the random parts the configuration asks for (a randomized
    /// RTO, an RTO delay) when it draws from a stream (present exactly then).
    #[cold]
    fn randomized(&mut self, mut d: Time) -> Time {
        let Some(rng) = self.extras.as_deref_mut().and_then(|x| x.rng.as_mut()) else {
            return d;
        };
        if self.cfg.randomize_rto {
            d += Time(rng.below_inclusive(d.0 / 2));
        }
        match self.cfg.rto_delay {
            RtoDelay::Off => {}
            RtoDelay::Upto(b) => d += Time(rng.below_inclusive(b.0)),
            RtoDelay::Adaptive => {
                let srtt = self.rto.srtt().unwrap_or(d);
                let k = 1u64.checked_shl(self.rto.backoff()).unwrap_or(u64::MAX);
                d += Time(rng.below_inclusive(srtt.0.saturating_mul(k)));
            }
        }
        d
    }

    fn send_data(&mut self, now: Time, seq: u64, len: u64, out: &mut Vec<Packet>) {
        let retransmission = seq < self.snd_max;
        self.stats.data_segments_sent += 1;
        if retransmission {
            self.stats.retransmits += 1;
            self.rtx_mark = self.rtx_mark.max(seq + len);
            // Karn: never time a segment that was retransmitted.
            if matches!(self.rtt_timing.get(), Some((end, _)) if end > seq) {
                self.rtt_timing = RttTiming::NONE;
            }
        } else if self.rtt_timing.get().is_none() {
            self.rtt_timing = RttTiming {
                end: seq + len,
                sent: now,
            };
        }
        if self.snd_una == self.snd_max {
            self.silence_since = OptTime::some(now);
        }
        // RFC 6298 (5.1): start the timer if it is not running. With
        // `idle_restart` it runs while idle too; ns-2's output() restarts it
        // for a segment sent with nothing outstanding (tcp/tcp.cc: `if
        // (highest_ack_ == maxseq_) force_set_rtx_timer = 1`).
        if self.rto_deadline.is_none() || (self.cfg.idle_restart && self.snd_una == self.snd_max) {
            self.arm_rto(now);
        }
        self.last_data_sent = now;
        let mut fl = flags::ACK;
        if self.cfg.ecn {
            fl |= flags::ECT;
            if self.send_cwr && !retransmission {
                fl |= flags::CWR;
                self.send_cwr = false;
            }
        }
        let mut p = self.packet(seq, len as u32, fl);
        p.ts = now;
        if self.cfg.pacing.enabled {
            self.pace_after_send(now, p.size().get());
        }
        self.emit(p, out);
    }

    /// The pacing rate's spacing after a data segment of `wire` bytes left
    /// at `now` (Linux's `tcp_update_skb_after_send`, with the rate of
    /// `tcp_update_pacing_rate`):
    ///
    /// rate = ratio% x max(cwnd, flight) / SRTT (`Extras::pace_srtt`),
    /// the ratio `tcp_pacing_ss_ratio` while cwnd < ssthresh / 2, else
    /// `tcp_pacing_ca_ratio`; the next segment leaves no earlier than
    /// max(previous departure time, now) + wire / rate. No spacing before
    /// an RTT sample (Linux's `sk_pacing_rate` is ~0, unlimited, until
    /// `tcp_update_pacing_rate` first runs with an SRTT) nor within the
    /// connection's first `initial_burst` data segments
    /// (`data_segs_out >= 10`). Linux's "OS jitter" credit (up to half a
    /// gap taken off when the send came late) is left out: the
    /// simulator's timers are never late.
    #[cold]
    fn pace_after_send(&mut self, now: Time, wire: u64) {
        let pacing = self.cfg.pacing;
        let Some(srtt) = self.extras.as_deref().and_then(|x| x.pace_srtt.get()) else {
            return;
        };
        if self.stats.data_segments_sent < pacing.initial_burst as u64 {
            return;
        }
        let ratio = if self.cwnd < self.ssthresh / 2 {
            pacing.ss_ratio
        } else {
            pacing.ca_ratio
        };
        let w = self.cwnd.max(self.snd_max - self.snd_una).max(1);
        // wire / (ratio/100 x w / srtt), in picoseconds (u128: 64 KB x
        // 60 s x 100 exceeds u64).
        let gap = wire as u128 * srtt.0 as u128 * 100 / (ratio as u128 * w as u128);
        let gap = Time(gap.min(u64::MAX as u128) as u64);
        if let Some(x) = self.extras.as_deref_mut() {
            x.pace_next = x.pace_next.max(now).saturating_add(gap);
        }
    }

    /// An exact RTT sample for the pacing rate's SRTT: RFC 6298 (2.2) for
    /// the first, then (2.3)'s alpha = 1/8 (Linux's `tcp_rtt_estimator`).
    #[cold]
    fn pace_rtt_sample(&mut self, r: Time) {
        if let Some(x) = self.extras.as_deref_mut() {
            x.pace_srtt = OptTime::some(match x.pace_srtt.get() {
                None => r,
                Some(s) => Time((7 * s.0 + r.0) / 8),
            });
        }
    }

    /// Whether pacing holds the next data segment back at `now`; if so the
    /// pacing timer is armed for its departure (Linux's `tcp_pacing_check`
    /// in `tcp_write_xmit` and `tcp_xmit_retransmit_queue`).
    #[inline]
    fn paced(&mut self, now: Time) -> bool {
        if !self.cfg.pacing.enabled {
            return false;
        }
        match self.extras.as_deref_mut() {
            Some(x) if x.pace_next > now => {
                x.pace_deadline = OptTime::some(x.pace_next);
                true
            }
            _ => false,
        }
    }

    /// Sends new data as the windows allow (outside SACK recovery).
    fn try_send(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.sack1_hold {
            self.sack1_hold = false;
            return;
        }
        if self.state != TcpState::Established {
            return;
        }
        if self.in_recovery && self.sack1() {
            // Retransmissions too, once all new data is out.
            self.sack1_send_much(now, out);
            return;
        }
        if self.snd_nxt >= self.app_end {
            return;
        }
        if self.in_recovery && self.recovery_kind == Recovery::Sack {
            self.sack_transmit(now, out);
            return;
        }
        // RFC 5681 (4.1): after an idle period longer than the RTO, restart
        // from the initial window.
        if self.cfg.slow_start_after_idle
            && self.snd_una == self.snd_max
            && self.stats.data_segments_sent > 0
            && now.saturating_sub(self.last_data_sent) > self.rto.current(&self.cfg)
        {
            let iw = self.cfg.initial_window as u64 * self.mss();
            self.cwnd = self.cwnd.min(iw);
        }
        let mss = self.mss();
        loop {
            let remaining = self.app_end - self.snd_nxt;
            if remaining == 0 {
                break;
            }
            let len = remaining.min(mss);
            let wnd = self.cwnd.min(self.peer_wnd as u64);
            if self.snd_nxt + len > self.snd_una + wnd || self.paced(now) || self.small_queue_full()
            {
                break;
            }
            // After a timeout, skip what the receiver has SACKed (RFC 6675
            // keeps the scoreboard; see on_rto).
            self.send_data(now, self.snd_nxt, len, out);
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
    }

    /// Retransmits the first unacknowledged segment.
    fn retransmit_first(&mut self, now: Time, out: &mut Vec<Packet>) {
        let len = (self.snd_max - self.snd_una).min(self.mss());
        if len > 0 {
            self.send_data(now, self.snd_una, len, out);
        }
    }

    /// Handles an arriving segment.
    pub fn on_segment(&mut self, now: Time, seg: &Packet, out: &mut Vec<Packet>) -> SegmentOutcome {
        let o = self.segment_arrives(now, seg, out);
        self.trace_point(now);
        o
    }

    fn segment_arrives(
        &mut self,
        now: Time,
        seg: &Packet,
        out: &mut Vec<Packet>,
    ) -> SegmentOutcome {
        let mut outcome = SegmentOutcome::default();
        match self.state {
            TcpState::Closed | TcpState::Aborted => return outcome,
            TcpState::Listen => {
                if seg.has(flags::SYN) {
                    self.rcv_nxt = seg.seq + 1;
                    self.ts_recent = seg.ts;
                    self.peer_wnd = seg.wnd;
                    self.state = TcpState::SynReceived;
                    self.send_syn(now, out);
                }
                return outcome;
            }
            TcpState::SynSent => {
                if seg.has(flags::SYN) && seg.has(flags::ACK) && seg.ack == 1 {
                    self.rcv_nxt = seg.seq + 1;
                    self.ts_recent = seg.ts;
                    self.handshake_acked(now, seg);
                    outcome.established = true;
                    self.send_ack(out);
                    self.try_send(now, out);
                }
                return outcome;
            }
            TcpState::SynReceived => {
                if seg.has(flags::SYN) {
                    // Our SYN-ACK was lost and the peer retransmitted its SYN.
                    self.send_syn(now, out);
                    return outcome;
                }
                if !(seg.has(flags::ACK) && seg.ack >= 1) {
                    return outcome;
                }
                self.handshake_acked(now, seg);
                outcome.established = true;
                // Fall through: the ACK may carry data.
            }
            TcpState::Established => {
                if seg.has(flags::SYN) {
                    // A retransmitted SYN-ACK: our handshake ACK was lost.
                    self.send_ack(out);
                    return outcome;
                }
            }
        }

        if seg.has(flags::ACK) {
            self.process_ack(now, seg, out);
        }
        let mut ack_now = false;
        if seg.payload > 0 {
            let (delivered, immediate) = self.receive(seg, out);
            outcome.delivered = delivered;
            ack_now = immediate;
        }
        self.try_send(now, out);
        if ack_now {
            self.send_ack(out);
        } else if self.unacked_segments > 0 && self.delack_deadline.is_none() {
            self.delack_deadline =
                OptTime::some(self.cfg.clock.deadline(now, self.cfg.delayed_ack_timeout));
        }
        outcome
    }

    fn handshake_acked(&mut self, now: Time, seg: &Packet) {
        self.state = TcpState::Established;
        self.snd_una = 1;
        self.snd_nxt = self.snd_nxt.max(1);
        self.peer_wnd = seg.wnd;
        if let Some((_, sent)) = self.rtt_timing.get() {
            self.rtt_timing = RttTiming::NONE;
            let r = self.rtt_sample(sent, now);
            self.rto.sample(r, &self.cfg);
            self.min_rtt = OptTime::some(now - sent);
            if self.cfg.pacing.enabled {
                self.pace_rtt_sample(now - sent);
            }
        }
        self.rto_deadline = OptTime::NONE;
        self.consecutive_timeouts = 0;
    }

    /// ns-2's `Sacker::append_ack()` (tcp/tcp-sink.cc, `maxSackBlocks_`
    /// 3, no D-SACK) for the segment `[start, end)` just received: the
    /// block holding it if it lies above the cumulative ACK, then the
    /// blocks last reported (the stack), skipping those it covers (a
    /// segment at or below the cumulative ACK covers everything below it)
    /// and stopping at one past the highest byte seen; the new block goes
    /// on top of the stack, the oldest falling off a full stack. Nothing,
    /// and the stack emptied, once the cumulative ACK is at the highest
    /// byte seen.
    fn sink_sack1(&mut self, start: u64) {
        let maxseen = self.ooo.ranges().last().map_or(self.rcv_nxt, |r| r.1);
        let size = MAX_SACK_BLOCKS;
        let rcv_nxt = self.rcv_nxt;
        let recent = if start >= rcv_nxt {
            self.ooo
                .ranges()
                .iter()
                .find(|r| r.0 <= start && start < r.1)
                .copied()
        } else {
            None
        };
        let k = self.sink_stack.get_or_insert_with(Box::default);
        k.blocks.clear();
        if rcv_nxt >= maxseen {
            k.stack.clear();
            return;
        }
        // `recent_sack_left/right`: [0, cumulative ACK) for a segment at
        // or below it.
        let (rl, rr) = recent.unwrap_or((0, rcv_nxt));
        if let Some(b) = recent {
            k.blocks.push(b);
        }
        let mut i = 0;
        while k.blocks.len() < size && i < k.stack.len() {
            let (l, r) = k.stack[i];
            if r > maxseen {
                break;
            }
            if rl <= l && rr >= r {
                k.stack.remove(i);
                continue;
            }
            k.blocks.push((l, r));
            i += 1;
        }
        if let Some(b) = recent {
            k.stack.truncate(size - 1);
            k.stack.insert(0, b);
        }
    }

    /// Receive half: returns (bytes delivered in order, ACK immediately).
    fn receive(&mut self, seg: &Packet, out: &mut Vec<Packet>) -> (u64, bool) {
        let r = self.receive_segment(seg, out);
        if self.cfg.sack && self.cfg.ns2_sack1 {
            self.sink_sack1(seg.seq);
        }
        r
    }

    fn receive_segment(&mut self, seg: &Packet, out: &mut Vec<Packet>) -> (u64, bool) {
        let mut immediate = false;
        if self.cfg.ecn {
            let ce = seg.has(flags::CE);
            if self.cfg.cc == CcKind::Dctcp {
                // RFC 8257 (3.2): when the CE state flips with an ACK
                // pending, first ACK what came before with the old state.
                if ce != self.ce_state && self.unacked_segments > 0 {
                    self.send_ack(out);
                }
                self.ce_state = ce;
            } else {
                // RFC 3168 (6.1.3): echo CE until the sender says CWR.
                if seg.has(flags::CWR) {
                    self.ece_latched = false;
                }
                if ce {
                    self.ece_latched = true;
                    immediate = true;
                }
            }
        }
        let start = seg.seq;
        let end = seg.seq + seg.payload as u64;
        if end <= self.rcv_nxt {
            // Old duplicate: re-ACK at once so the sender learns where we are.
            return (0, true);
        }
        if start > self.rcv_nxt {
            // RFC 5681 (4.2): an out-of-order segment is ACKed at once
            // (this is the duplicate ACK that drives fast retransmit).
            self.ooo.insert(start, end);
            return (0, true);
        }
        let before = self.rcv_nxt;
        let had_gap = !self.ooo.is_empty();
        // RFC 7323 (4.3): echo the timestamp of the segment that advanced
        // the window (for a repaired hole: the retransmission's).
        self.ts_recent = seg.ts;
        self.rcv_nxt = self.ooo.advance(end);
        let delivered = self.rcv_nxt - before;
        if had_gap || !self.cfg.delayed_ack || immediate {
            // RFC 5681 (4.2): ACK at once a segment that fills (part of) a gap.
            return (delivered, true);
        }
        // RFC 5681 (4.2) / RFC 1122 (4.2.3.2): ACK at least every second
        // full-sized segment, otherwise within the delayed-ACK timeout.
        self.unacked_segments += 1;
        (delivered, self.unacked_segments >= 2)
    }

    /// Send half: an acknowledgment arrived.
    fn process_ack(&mut self, now: Time, seg: &Packet, out: &mut Vec<Packet>) {
        let ack = seg.ack;
        if ack > self.snd_max {
            return; // Acknowledges data never sent: ignore (RFC 793).
        }
        // Linux's congestion state as this ACK finds it, before its SACK
        // blocks and ECN-Echo are taken in.
        let ca_open = self.ca_open();
        let window_changed = seg.wnd != self.peer_wnd;
        self.peer_wnd = seg.wnd;
        let ece = seg.has(flags::ECE);
        // ScoreBoardRQ::UpdateScoreBoard()'s `changed_`: whether this ACK's
        // blocks SACK anything new (CheckUpdate()).
        let sacked_before = if self.cfg.ns2_sack1 {
            self.scoreboard.total()
        } else {
            0
        };
        if self.cfg.sack {
            for (s, e) in seg.sack_blocks() {
                if s >= ack.max(self.snd_una) && e <= self.snd_max {
                    self.scoreboard.add(s, e);
                }
            }
        }
        // RFC 3168 (6.1.2): reduce once per window of data on ECN-Echo,
        // unless a loss recovery already did; the ACK that carried ECE does
        // not then grow the window.
        let mut ecn_reduced = false;
        if ece && !self.cc.handles_ecn() && !self.in_recovery && ack > self.ecn_recover {
            ecn_reduced = true;
            let flight = self.snd_max - self.snd_una;
            self.ssthresh = self.cc.ssthresh_after_loss(&self.window(), flight, now);
            self.cwnd = self.ssthresh.max(self.mss());
            self.ecn_recover = self.snd_max;
            self.send_cwr = true;
            self.stats.ecn_reductions += 1;
        }

        if self.in_recovery && self.sack1() {
            self.sack1_recovery_ack(now, seg, ece, ecn_reduced, ca_open, out);
            return;
        }
        if ack > self.snd_una {
            self.new_ack(now, seg, ece, ecn_reduced, ca_open, out);
            return;
        }

        // RFC 5681 (2): a duplicate ACK carries no data, no SYN/FIN, acks
        // snd_una while data is outstanding, and leaves the window unchanged.
        let duplicate = ack == self.snd_una
            && seg.payload == 0
            && !seg.has(flags::SYN | flags::FIN)
            && self.snd_max > self.snd_una
            && !window_changed;
        if !duplicate {
            return;
        }
        self.note_ack_arrival(now, ack);
        if self.sack1() {
            let changed = self.scoreboard.total() != sacked_before;
            self.sack1_dupack(now, changed, out);
            return;
        }
        self.dupacks += 1;
        match self.recovery_kind {
            Recovery::Sack => self.sack_on_dupack(now, out),
            Recovery::NewReno | Recovery::Reno => self.dupack_recovery(now, ack, out),
        }
    }

    /// Linux's TCP_CA_Open (see [`AckEvent::ca_open`]): not in fast
    /// recovery, snd_una past the recovery point of the last recovery,
    /// timeout and ECN (or local-congestion) reduction, and no duplicate ACK
    /// or SACKed data since the last ACK of new data.
    fn ca_open(&self) -> bool {
        !self.in_recovery
            && self.snd_una >= self.recover.max(self.ecn_recover)
            && self.dupacks == 0
            && self.scoreboard.ranges().is_empty()
    }

    /// An ACK of new data: the RTT sample, the send state moved up, the
    /// congestion controller told, recovery left or continued, cwnd grown,
    /// the timer re-armed.
    fn new_ack(
        &mut self,
        now: Time,
        seg: &Packet,
        ece: bool,
        ecn_reduced: bool,
        ca_open: bool,
        out: &mut Vec<Packet>,
    ) {
        let ack = seg.ack;
        let flight_before = self.snd_max - self.snd_una;
        self.note_ack_arrival(now, ack);
        let acked = ack - self.snd_una;
        let rtt = self.sample_rtt(now, seg);
        self.snd_una = ack;
        self.consecutive_timeouts = 0;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        self.scoreboard.advance(ack);
        if self.high_rxt < ack {
            self.high_rxt = ack;
        }
        let ev = AckEvent {
            now,
            acked,
            flight: flight_before,
            rtt,
            min_rtt: self.min_rtt.get(),
            ece,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            ca_open,
        };
        self.cc.on_packets_acked(&self.window(), &ev);
        // Whether this ACK opens cwnd (outside recovery; with ns2_recovery
        // also the ACK that ends it).
        let mut open = !self.in_recovery;
        if self.sack1() {
            // Not the ACK that ends recovery: "newack() without opencwnd()".
            self.sack1_new_ack(ack);
        } else if self.in_recovery && self.cfg.ns2_recovery && self.recovery_kind != Recovery::Sack
        {
            open = self.ns2_recovery_new_ack(now, ack, acked, out);
        } else if self.in_recovery {
            self.recovery_new_ack(now, ack, acked, out);
        }
        if open && !ecn_reduced {
            self.open_cwnd(ece, flight_before, &ev);
        }
        self.dupacks = 0;
        // RFC 6298 (5.2)/(5.3): stop the timer when all is acked, else
        // restart it (during NewReno recovery only the first partial ACK
        // restarts it, above).
        if self.snd_una == self.snd_max {
            // ns-2's newtimer() (tcp/tcp.cc) re-arms even now: with
            // timerfix_ on, `t_seqno_ > tcph->seqno()` always holds there.
            if self.cfg.idle_restart {
                self.arm_rto(now);
            } else {
                self.rto_deadline = OptTime::NONE;
            }
        } else if !(self.in_recovery && self.recovery_kind == Recovery::NewReno) {
            self.arm_rto(now);
        }
        if self.in_recovery && self.recovery_kind == Recovery::Sack {
            self.sack_transmit(now, out);
        }
    }

    /// The RTT samples an ACK of new data gives: the RTO estimator's, and
    /// the congestion controller's exact one (returned), from the echoed
    /// timestamp.
    #[inline]
    fn sample_rtt(&mut self, now: Time, seg: &Packet) -> Option<Time> {
        let ack = seg.ack;
        // RFC 6298 estimator on the timer's clock: with RFC 7323 (4.1) RTTM
        // every ACK of new data is a sample, from its echoed timestamp;
        // otherwise only the timed segment (Karn: none if it was
        // retransmitted).
        if self.cfg.rtt_timestamps && seg.ts_echo != NO_TS && seg.ts_echo <= now {
            let r = self.cfg.clock.measure(seg.ts_echo, now);
            self.rto.sample(r, &self.cfg);
            self.rtt_timing = RttTiming::NONE;
        } else if let Some((end, sent)) = self.rtt_timing.get() {
            if ack >= end {
                let r = self.rtt_sample(sent, now);
                self.rto.sample(r, &self.cfg);
                self.rtt_timing = RttTiming::NONE;
            }
        }
        let rtt = (seg.ts_echo != NO_TS && seg.ts_echo <= now).then(|| now - seg.ts_echo);
        if let Some(r) = rtt {
            self.min_rtt = self.min_rtt.min(OptTime::some(r));
            if self.cfg.pacing.enabled {
                self.pace_rtt_sample(r);
            }
        }
        rtt
    }

    /// ns-2's tcp-sack1.cc on an ACK of new data.
    #[inline]
    fn sack1_new_ack(&mut self, ack: u64) {
        if self.in_recovery {
            // tcp-sack1.cc recv(), in fast recovery, `seqno >= recover_`:
            // recovery over, `recover_ = 0`, newack() without
            // opencwnd(): cwnd_ stays the halved window.
            self.in_recovery = false;
            self.recover = 0;
        } else {
            // tcp-sack1.cc recv(), a new ACK outside recovery:
            // `firstpartial_ = 0`, recv_newack_helper() (newack(),
            // opencwnd()).
            self.first_partial_ack = true;
        }
        // Either way `timeout_ = FALSE` and ClearScoreBoard() (the SACK
        // blocks of this ACK too; `h_seqno_ = -1`).
        self.sack1_timeout = false;
        self.scoreboard.clear();
        self.high_rxt = ack;
    }

    /// ns-2's Reno and NewReno (`ns2_recovery`) on an ACK of new data in
    /// fast recovery; returns whether it opens cwnd (the ACK that ends
    /// recovery does).
    fn ns2_recovery_new_ack(
        &mut self,
        now: Time,
        ack: u64,
        acked: u64,
        out: &mut Vec<Packet>,
    ) -> bool {
        if self.recovery_kind == Recovery::Reno || ack >= self.recover {
            // tcp-reno.cc recv(): any new ACK ends Reno's recovery;
            // tcp-newreno.cc recv(): one at or past `recover_`. Both
            // drop the inflation (`dupwnd_ = 0`, exit_recovery_fix_ 0
            // leaves cwnd_ as it is) and open cwnd_ in
            // recv_newack_helper() → opencwnd().
            self.cwnd = self.cwnd.saturating_sub(self.dupwnd).max(self.mss());
            self.dupwnd = 0;
            self.in_recovery = false;
            return true;
        }
        // tcp-newreno.cc partialnewack_helper(): newtimer() on the
        // first partial ACK only (newreno_changes1_ 1); then
        // partialnewack()'s deflation (partial_window_deflation_
        // 1), the inflation first: `if (dupwnd_ > deflate) dupwnd_
        // -= (deflate - 1); else { cwnd_ -= (deflate - dupwnd_);
        // dupwnd_ = 1; }`, cwnd_ at least 1; then output() of the
        // next hole.
        if self.first_partial_ack {
            self.first_partial_ack = false;
            self.arm_rto(now);
        }
        let mss = self.mss();
        let mut base = self.cwnd.saturating_sub(self.dupwnd);
        if self.dupwnd > acked {
            self.dupwnd -= acked.saturating_sub(mss);
        } else {
            base = base.saturating_sub(acked - self.dupwnd);
            self.dupwnd = mss;
        }
        self.cwnd = base.max(mss) + self.dupwnd;
        self.retransmit_first(now, out);
        false
    }

    /// The RFCs' recoveries on an ACK of new data in fast recovery.
    fn recovery_new_ack(&mut self, now: Time, ack: u64, acked: u64, out: &mut Vec<Packet>) {
        match self.recovery_kind {
            Recovery::Reno => {
                // RFC 5681 (3.2) step 6: the first ACK of new data ends
                // recovery, whatever else is still missing.
                self.cwnd = self.ssthresh.max(self.mss());
                self.in_recovery = false;
            }
            Recovery::NewReno if ack >= self.recover => {
                // RFC 6582 (3.2) step 3: full acknowledgment ends recovery;
                // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
                let flight = self.snd_max - self.snd_una;
                self.cwnd = self.ssthresh.min(flight.max(self.mss()) + self.mss());
                self.in_recovery = false;
            }
            Recovery::NewReno => {
                // RFC 6582 (3.2) step 5: partial acknowledgment. Retransmit
                // the first unacknowledged segment, deflate cwnd by the
                // amount acked, add back one SMSS if at least one was acked.
                self.retransmit_first(now, out);
                self.cwnd = self.cwnd.saturating_sub(acked);
                if acked >= self.mss() {
                    self.cwnd += self.mss();
                }
                self.cwnd = self.cwnd.max(self.mss());
                // Reset the timer on the first partial ACK only ("impatient").
                if self.first_partial_ack {
                    self.first_partial_ack = false;
                    self.arm_rto(now);
                }
            }
            Recovery::Sack if ack >= self.recover => {
                // RFC 6675 (5): recovery ends when RecoveryPoint is
                // acknowledged; RFC 5681 (3.2) step 6: cwnd = ssthresh.
                self.cwnd = self.ssthresh.max(self.mss());
                self.in_recovery = false;
            }
            Recovery::Sack => {}
        }
    }

    /// Grows cwnd on an ACK of new data that may open it (RFC 3168
    /// (6.1.2): not the ACK that carried ECE and reduced it).
    #[inline]
    fn open_cwnd(&mut self, ece: bool, flight_before: u64, ev: &AckEvent) {
        let grow = !self.cfg.cwnd_validation || self.cwnd_limited(flight_before);
        // DCTCP must see every ECE, even when the window may not grow.
        if grow || (ece && self.cc.handles_ecn()) {
            let cwnd = self.cwnd;
            if !self.cfg.slow_start && self.cwnd < self.ssthresh {
                // Without slow start (ns-2's max_ssthresh_ = 1, RFC
                // 3742 limited slow start): half a segment per RTT.
                let m = self.mss();
                self.cwnd += (m * m / (2 * self.cwnd.max(m))).max(1);
            } else {
                let mut w = self.window();
                self.cc.on_ack(&mut w, ev);
                (self.cwnd, self.ssthresh) = (w.cwnd, w.ssthresh);
            }
            if !grow {
                self.cwnd = self.cwnd.min(cwnd);
            }
        }
    }

    /// Reno and NewReno on a duplicate ACK.
    fn dupack_recovery(&mut self, now: Time, ack: u64, out: &mut Vec<Packet>) {
        let mss = self.mss();
        if self.in_recovery {
            // RFC 5681 (3.2) step 4: inflate by one SMSS per further
            // duplicate ACK, and send if the window allows (ns-2's `++dupwnd_`).
            self.cwnd += mss;
            if self.cfg.ns2_recovery {
                self.dupwnd += mss;
            }
            self.try_send(now, out);
        } else if self.dupacks < self.cfg.dupack_threshold {
            self.limited_transmit(now, out);
        } else if self.dupacks == self.cfg.dupack_threshold {
            // RFC 6582 (3.2) step 2: NewReno enters fast retransmit only if
            // this ACK covers more than `recover` (not for losses of a window
            // a timeout already handled). Reno has no such guard, nor has
            // NewReno with recover_check off (ns-2's bugFix_ false).
            // ns-2's Reno checks it too (tcp-reno.cc dupack_action():
            // `recovered || !bug_fix_ ...`).
            let unguarded = self.recovery_kind == Recovery::Reno && !self.cfg.ns2_recovery;
            if unguarded || !self.cfg.recover_check || ack > self.recover {
                // RFC 5681 (3.2) step 2 (ssthresh), and the cwnd recovery
                // starts from before the inflation: ssthresh, or ns-2's
                // `CLOSE_CWND_HALF` halfwin (at least one segment).
                let base = if self.halves_window() {
                    let (ssthresh, half) = self.ns2_halves();
                    self.ssthresh = ssthresh;
                    half.max(mss)
                } else {
                    let flight = self.snd_max - self.snd_una;
                    self.ssthresh = self.cc.ssthresh_after_loss(&self.window(), flight, now);
                    self.ssthresh
                };
                self.recover = self.snd_max;
                self.in_recovery = true;
                self.first_partial_ack = true;
                self.stats.fast_retransmits += 1;
                if self.cfg.ns2_recovery {
                    // dupack_action()'s reset_rtx_timer(1,0) (tcp/tcp.cc):
                    // set_rtx_timer() and `rtt_active_ = 0`.
                    self.rtt_timing = RttTiming::NONE;
                    self.arm_rto(now);
                    self.dupwnd = self.cfg.dupack_threshold as u64 * mss;
                }
                self.retransmit_first(now, out);
                // RFC 5681 (3.2) step 3: cwnd = ssthresh + 3*SMSS (ns-2:
                // `dupwnd_ = numdupacks_` on top of cwnd_).
                self.cwnd = base + self.cfg.dupack_threshold as u64 * mss;
            }
        }
    }

    /// RFC 3042 limited transmit: one new segment per duplicate ACK, flight
    /// at most cwnd + 2 SMSS (ns-2's send_one()).
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mss = self.mss();
        if self.cfg.limited_transmit && self.snd_nxt < self.app_end {
            let len = (self.app_end - self.snd_nxt).min(mss);
            let allowed = (self.peer_wnd as u64).min(self.cwnd + self.dupacks as u64 * mss);
            // ns-2's send_one() (tcp/tcp.cc) sends the segment at
            // t_seqno_, below maxseq_ after a timeout's go-back-N.
            if (self.snd_nxt == self.snd_max || self.cfg.ns2_limited_transmit)
                && self.snd_nxt + len <= self.snd_una + allowed
                && !self.small_queue_full()
            {
                self.send_data(now, self.snd_nxt, len, out);
                self.snd_nxt += len;
                self.snd_max = self.snd_max.max(self.snd_nxt);
            }
        }
    }

    /// ns-2's Sack1 (tcp-sack1.cc recv(), outside fast recovery): a
    /// duplicate ACK; `changed` is whether its SACK blocks reported new data.
    fn sack1_dupack(&mut self, now: Time, changed: bool, out: &mut Vec<Packet>) {
        // `else if (timeout_ == FALSE)`: after a timeout, duplicate ACKs
        // count for nothing until new data is acknowledged; and `if
        // (scb_->CheckUpdate())`: only one whose blocks SACK new data.
        if !self.sack1_timeout && changed {
            self.dupacks += 1;
            let thresh = self.cfg.dupack_threshold;
            if self.dupacks == thresh {
                self.sack1_dupack_action(now, out);
            } else if self.dupacks < thresh {
                // `singledup_`: send_one().
                self.limited_transmit(now, out);
            }
        }
        // Then send_much() only `if (dupacks_ == 0)`.
        if self.dupacks > 0 {
            self.sack1_hold = true;
        }
    }

    /// tcp-sack1.cc dupack_action() (`sack_action`), with `oldCode_` and
    /// `LimTransmitFix_` false and `numdupacks(cwnd_)` = numdupacks_
    /// (`numdupacksFrac_` -1).
    fn sack1_dupack_action(&mut self, now: Time, out: &mut Vec<Packet>) {
        // `recovered = (highest_ack_ > recover_)`; with bug_fix_ (here
        // recover_check) nothing unless recovered.
        if self.cfg.recover_check && self.snd_una <= self.recover {
            return;
        }
        let mss = self.mss();
        // `recover_ = maxseq_`; `pipe_ = maxseq_ - highest_ack_ -
        // numdupacks(cwnd_)`: the packets outstanding less the three the
        // duplicates say have left.
        self.recover = self.snd_max;
        let outstanding = (self.snd_max - self.snd_una).div_ceil(mss) as i64;
        self.sack1_pipe = outstanding - self.cfg.dupack_threshold as i64;
        // reset_rtx_timer(1,0): set_rtx_timer(), `rtt_active_ = 0`.
        self.rtt_timing = RttTiming::NONE;
        self.arm_rto(now);
        self.in_recovery = true;
        // scb_->MarkRetran(highest_ack_+1).
        if self.snd_una >= self.high_rxt {
            self.high_rxt = self.snd_una + mss;
        }
        // slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF).
        if self.halves_window() {
            let (ssthresh, half) = self.ns2_halves();
            self.ssthresh = ssthresh;
            self.cwnd = half.max(mss);
        } else {
            let flight = self.snd_max - self.snd_una;
            self.ssthresh = self.cc.ssthresh_after_loss(&self.window(), flight, now);
            self.cwnd = self.ssthresh.max(mss);
        }
        self.stats.fast_retransmits += 1;
        // output(last_ack_ + 1): not counted in pipe_; and recv() sends
        // nothing more on this ACK (`dupacks_ != 0`).
        let len = (self.snd_max - self.snd_una).min(mss);
        self.send_data(now, self.snd_una, len, out);
        self.sack1_hold = true;
    }

    /// tcp-sack1.cc recv() in fast recovery (`fastrecov_`): any ACK.
    fn sack1_recovery_ack(
        &mut self,
        now: Time,
        seg: &Packet,
        ece: bool,
        ecn_reduced: bool,
        ca_open: bool,
        out: &mut Vec<Packet>,
    ) {
        let ack = seg.ack;
        // `--pipe_`: every ACK in recovery.
        self.sack1_pipe -= 1;
        if ack >= self.recover {
            // `seqno >= recover_`: recovery over (see new_ack).
            self.new_ack(now, seg, ece, ecn_reduced, ca_open, out);
            return;
        }
        if ack > self.snd_una {
            // `seqno > highest_ack_`: a partial ACK. highest_ack_ moves (no
            // newack(): no RTT sample, cwnd_ unchanged); UpdateScoreBoard()
            // forgets what it covers.
            self.note_ack_arrival(now, ack);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.consecutive_timeouts = 0;
            self.scoreboard.advance(ack);
            self.high_rxt = self.high_rxt.max(ack);
            // `partial_ack_` true: partial_ack_action(), `++pipe_`, and on
            // the first partial ACK newtimer() and `t_backoff_ = 1`.
            self.sack1_partial_ack_action(now, out);
            self.sack1_pipe += 1;
            if self.first_partial_ack {
                self.first_partial_ack = false;
                self.arm_rto(now);
                self.rto.end_backoff();
            }
        } else if ack == self.snd_una {
            self.note_ack_arrival(now, ack);
        } else {
            // Below last_ack_: not `valid_ack`, no send_much().
            self.sack1_hold = true;
        }
        // Then send_much() (from segment_arrives' try_send).
    }

    /// tcp-sack1.cc partial_ack_action(): two packets from `next_pkt_`,
    /// each the next un-SACKed one (ScoreBoardRQ::GetNextUnacked()).
    fn sack1_partial_ack_action(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mss = self.mss();
        if self.sack1_next_pkt < self.snd_una {
            self.sack1_next_pkt = self.snd_una;
        }
        for _ in 0..2 {
            let mut next = self.sack1_next_pkt;
            if let Some((s, _)) = self.scoreboard.next_hole(next, u64::MAX) {
                next = next.max(s);
            }
            // `if (t_seqno_ < next_pkt_) t_seqno_ = next_pkt_`.
            if self.snd_nxt < next {
                self.snd_nxt = next;
            }
            // output(next_pkt_) (here never past the data written: ns-2's
            // output() does not look).
            if next < self.app_end {
                let len = (self.app_end - next).min(mss);
                self.send_data(now, next, len, out);
                self.snd_max = self.snd_max.max(next + len);
            }
            // scb_->MarkRetran(next_pkt_).
            if next >= self.high_rxt {
                self.high_rxt = next + mss;
            }
            self.sack1_next_pkt = next + mss;
        }
    }

    /// tcp-sack1.cc send_much() in fast recovery: while `pipe_ < cwnd_`,
    /// the next hole to retransmit (ScoreBoardRQ::GetNextRetran()), else
    /// new data, each within the receiver's window of `highest_ack_`.
    fn sack1_send_much(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mss = self.mss();
        let wnd = self.peer_wnd as u64;
        // `pipe_ < int(cwnd_)` and `(last_ack_ + 1) < curseq_`.
        while self.sack1_pipe < (self.cwnd / mss) as i64 && self.snd_una < self.app_end {
            // GetNextRetran(): from `h_seqno_` (at least `sack_min`), the
            // first un-SACKed packet with a SACKed one above it: every hole
            // below the highest SACK, each once.
            let from = self.high_rxt.max(self.snd_una);
            let hole = self
                .scoreboard
                .next_hole(from, self.snd_max)
                .filter(|&(s, _)| self.scoreboard.sacked_above(s) > 0);
            match hole {
                Some((s, e)) => {
                    // `recover_ > 0 && xmit_seqno <= highest_ack_ + wnd_`.
                    if !(self.recover > 0 && s + mss <= self.snd_una + wnd) {
                        break;
                    }
                    let len = (e - s).min(mss);
                    // MarkRetran(xmit_seqno).
                    if s >= self.high_rxt {
                        self.high_rxt = s + len;
                    }
                    self.send_data(now, s, len, out);
                    if self.snd_nxt <= s {
                        self.snd_nxt = s + len;
                        self.snd_max = self.snd_max.max(self.snd_nxt);
                    }
                }
                None => {
                    // `t_seqno_ <= highest_ack_ + wnd_ && t_seqno_ < curseq_`.
                    if self.snd_nxt >= self.app_end {
                        break;
                    }
                    let len = (self.app_end - self.snd_nxt).min(mss);
                    if self.snd_nxt + len > self.snd_una + wnd {
                        break;
                    }
                    self.send_data(now, self.snd_nxt, len, out);
                    self.snd_nxt += len;
                    self.snd_max = self.snd_max.max(self.snd_nxt);
                }
            }
            // `pipe_++`.
            self.sack1_pipe += 1;
        }
    }

    /// RFC 6675 (5): a duplicate ACK with SACK.
    fn sack_on_dupack(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.in_recovery {
            self.sack_transmit(now, out);
            return;
        }
        let mss = self.mss();
        let thresh = self.cfg.dupack_threshold;
        let lost = self.dupacks >= thresh || self.scoreboard.is_lost(self.snd_una, thresh, mss);
        // As in NewReno, no new recovery for losses of a window that a
        // previous recovery or timeout already handled.
        if !lost || (self.cfg.recover_check && self.snd_una <= self.recover) {
            return;
        }
        // (4.1) RecoveryPoint = HighData; (4.2) ssthresh = cwnd = reduced
        // (with halve_window: tcp-sack1.cc's slowdown(CLOSE_SSTHRESH_HALF|
        // CLOSE_CWND_HALF), see ns2_halves).
        let flight = self.snd_max - self.snd_una;
        self.recover = self.snd_max;
        if self.halves_window() {
            let (ssthresh, half) = self.ns2_halves();
            self.ssthresh = ssthresh;
            self.cwnd = half.max(mss);
        } else {
            self.ssthresh = self.cc.ssthresh_after_loss(&self.window(), flight, now);
            self.cwnd = self.ssthresh.max(mss);
        }
        self.in_recovery = true;
        self.stats.fast_retransmits += 1;
        // (4.3) Retransmit the first segment presumed dropped, regardless of cwnd.
        let end = self
            .scoreboard
            .next_hole(self.snd_una, self.snd_max)
            .map_or(self.snd_una + mss, |(_, e)| e);
        let len = (end - self.snd_una).min(mss).max(1);
        self.send_data(now, self.snd_una, len, out);
        self.high_rxt = self.snd_una + len;
        // (4.4) Then send what the pipe allows.
        self.sack_transmit(now, out);
    }

    /// RFC 6675 (3) SetPipe, in bytes: un-SACKed bytes not presumed lost,
    /// plus those retransmitted.
    fn pipe(&self) -> u64 {
        let una = self.snd_una;
        let max = self.snd_max;
        let mss = self.mss();
        let lb = self
            .scoreboard
            .lost_boundary(una, self.cfg.dupack_threshold, mss)
            .min(max);
        let sacked_in = |lo: u64, hi: u64| -> u64 {
            self.scoreboard
                .ranges()
                .iter()
                .map(|&(s, e)| e.min(hi).saturating_sub(s.max(lo)))
                .sum()
        };
        let unsacked = (max - una) - sacked_in(una, max);
        let lost = (lb - una) - sacked_in(una, lb);
        let rxt_hi = self.high_rxt.clamp(una, max);
        let retransmitted = (rxt_hi - una) - sacked_in(una, rxt_hi);
        unsacked - lost + retransmitted
    }

    /// RFC 6675 (4) NextSeg, repeated while cwnd - pipe >= 1 SMSS.
    fn sack_transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mss = self.mss();
        let thresh = self.cfg.dupack_threshold;
        loop {
            if self.cwnd < self.pipe() + mss || self.paced(now) {
                break;
            }
            let from = self.high_rxt.max(self.snd_una);
            // Rule 1: the first lost, un-SACKed, not yet retransmitted byte.
            let lb = self.scoreboard.lost_boundary(self.snd_una, thresh, mss);
            if let Some((s, e)) = self.scoreboard.next_hole(from, lb.min(self.snd_max)) {
                let len = (e - s).min(mss);
                self.send_data(now, s, len, out);
                self.high_rxt = s + len;
                continue;
            }
            // Rule 2: new data, if the receiver's window (and TCP Small
            // Queues) allow.
            if self.snd_nxt < self.app_end && !self.small_queue_full() {
                let len = (self.app_end - self.snd_nxt).min(mss);
                if self.snd_nxt + len <= self.snd_una + self.peer_wnd as u64 {
                    self.send_data(now, self.snd_nxt, len, out);
                    self.snd_nxt += len;
                    self.snd_max = self.snd_max.max(self.snd_nxt);
                    continue;
                }
            }
            // Rule 3: an un-SACKed byte above HighRxt not yet presumed lost.
            if let Some((s, e)) = self.scoreboard.next_hole(from, self.snd_max) {
                if self.scoreboard.sacked_above(s) > 0 {
                    let len = (e - s).min(mss);
                    self.send_data(now, s, len, out);
                    self.high_rxt = s + len;
                    continue;
                }
            }
            break;
        }
    }

    /// Whether the window, not the application, limited the data in flight
    /// (Linux's `tcp_is_cwnd_limited`: in slow start, flight at least half of
    /// cwnd; otherwise flight within one segment of cwnd). RFC 7661 (4.1):
    /// a window the sender does not use must not keep growing.
    fn cwnd_limited(&self, flight: u64) -> bool {
        if self.cwnd < self.ssthresh {
            2 * flight >= self.cwnd
        } else {
            flight + self.mss() >= self.cwnd
        }
    }

    /// Bookkeeping of the longest silence: time with data outstanding and no ACK.
    fn note_ack_arrival(&mut self, now: Time, ack: u64) {
        if let Some(since) = self.silence_since.get() {
            let gap = now.saturating_sub(since);
            if gap > self.stats.longest_silence {
                self.stats.longest_silence = gap;
            }
        }
        self.silence_since = if ack < self.snd_max {
            OptTime::some(now)
        } else {
            OptTime::NONE
        };
    }

    /// The host's transmit queue refused `seg`: Linux's qdisc returned
    /// NET_XMIT_DROP to `tcp_transmit_skb`. Linux takes it as local
    /// congestion: `tcp_enter_cwr` reduces the window once per window of
    /// data (as on ECN-Echo, RFC 3168 (6.1.2)), and the segment, never
    /// sent, stays in the write queue for the next ACK (or the timer) to
    /// send. Here the window is reduced the same way and the send point
    /// moves back to the refused segment; the simulator reports the
    /// refused segments of one burst last first, so a refused tail of new
    /// data is simply unsent again. A refused retransmission during
    /// NewReno recovery waits for the next partial ACK or the timer.
    pub fn on_local_drop(&mut self, now: Time, seg: &Packet) {
        self.stats.local_drops += 1;
        if self.cfg.small_queues.is_some() {
            self.below_tcp(-(seg.size().get() as i64));
        }
        if !seg.is_data() || self.state != TcpState::Established || seg.seq < self.snd_una {
            // A refused SYN or pure ACK: the handshake timer or the next
            // segment sends again.
            return;
        }
        self.enter_cwr(now);
        let end = seg.seq + seg.payload as u64;
        if end == self.snd_max && !seg.timeout_rtx {
            self.snd_max = seg.seq;
            if matches!(self.rtt_timing.get(), Some((e, _)) if e > seg.seq) {
                self.rtt_timing = RttTiming::NONE;
            }
        }
        self.snd_nxt = self.snd_nxt.min(seg.seq);
        if self.recovery_kind == Recovery::Sack {
            self.high_rxt = self.high_rxt.min(seg.seq);
        }
        if self.snd_max == self.snd_una {
            // Nothing left on the wire, so no ACK will come to send again:
            // Linux's zero-window probe timer (`tcp_check_probe_timer`,
            // one RTO) retries; here the retransmission timer does, as a
            // probe that neither backs off nor collapses the window.
            self.silence_since = OptTime::NONE;
            if self.rto_deadline.is_none() {
                self.arm_rto(now);
            }
        }
        self.trace_point(now);
    }

    /// Linux's `tcp_enter_cwr` on local congestion: the window reduced once
    /// per window of data, as on ECN-Echo (RFC 3168 (6.1.2)).
    fn enter_cwr(&mut self, now: Time) {
        if !self.in_recovery && self.snd_una > self.ecn_recover {
            let flight = self.snd_max - self.snd_una;
            self.ssthresh = self.cc.ssthresh_after_loss(&self.window(), flight, now);
            self.cwnd = self.ssthresh.max(self.mss());
            self.ecn_recover = self.snd_max;
            self.send_cwr = self.cfg.ecn;
        }
    }

    /// The host's qdisc took a segment of this socket but dropped another
    /// packet it held to make room (SFQ's drop from its longest queue):
    /// Linux's NET_XMIT_CN, on which `tcp_transmit_skb` also calls
    /// `tcp_enter_cwr`. Nothing is sent again: this segment is queued.
    pub fn on_local_congestion(&mut self, now: Time) {
        if self.state == TcpState::Established {
            self.enter_cwr(now);
            self.trace_point(now);
        }
    }

    /// A wake-up at `now`: fire whichever timers are due.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.delack_deadline.reached(now) {
            self.delack_deadline = OptTime::NONE;
            if self.unacked_segments > 0 {
                self.send_ack(out);
            }
        }
        if self.rto_deadline.reached(now) {
            self.rto_deadline = OptTime::NONE;
            self.on_rto(now, out);
        }
        if self.extras.is_some() {
            self.on_pacing_timer(now, out);
        }
        self.trace_point(now);
    }

    /// The pacing timer: send what it held back (Linux's `tcp_pace_kick`,
    /// then `tcp_tsq_handler`: the retransmit queue, then new data).
    #[cold]
    fn on_pacing_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(x) = self.extras.as_deref_mut() else {
            return;
        };
        if !x.pace_deadline.reached(now) {
            return;
        }
        x.pace_deadline = OptTime::NONE;
        if self.in_recovery && self.recovery_kind == Recovery::Sack && !self.cfg.ns2_sack1 {
            self.sack_transmit(now, out);
        } else {
            self.try_send(now, out);
        }
    }

    /// Gives up: the connection is dead (counted as aborted by the simulator).
    fn abort(&mut self) {
        self.state = TcpState::Aborted;
        self.rto_deadline = OptTime::NONE;
        self.delack_deadline = OptTime::NONE;
        self.silence_since = OptTime::NONE;
        if let Some(x) = self.extras.as_deref_mut() {
            x.pace_deadline = OptTime::NONE;
        }
    }

    /// RFC 6298 (5.4)-(5.6) and RFC 5681 (3.1) on a retransmission timeout.
    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.state == TcpState::Established
            && self.snd_max == self.snd_una
            && self.snd_nxt < self.app_end
        {
            // The probe after a local drop (see on_local_drop): not a timeout.
            self.try_send(now, out);
            return;
        }
        if self.cfg.idle_restart
            && self.state == TcpState::Established
            && self.snd_max == self.snd_una
        {
            // ns-2's timeout() with nothing outstanding (tcp/tcp.cc, with
            // slow_start_restart_ and restart_bugfix_ on):
            // slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA) (cwnd_ = 1,
            // ssthresh_ kept, at least 2), `recover_ = maxseq_`, then
            // reset_rtx_timer(0,0): re-armed without backoff, no RTT timing.
            // RenoTcpAgent::timeout() clears dupacks_ and dupwnd_ first.
            // The timer is not re-armed here: while idle each further
            // expiry would find this same state (no ACK can come without
            // new data, and sending new data restarts the timer, see
            // send_data), so it would change nothing but cost an event
            // every RTO (every few microseconds with a microsecond tick).
            let mss = self.mss();
            self.cwnd = mss;
            self.ssthresh = self.ssthresh.max(2 * mss);
            self.recover = self.snd_max;
            self.dupacks = 0;
            self.dupwnd = 0;
            self.rtt_timing = RttTiming::NONE;
            if self.sack1() {
                // Sack1TcpAgent::timeout() runs first whatever is
                // outstanding: `timeout_ = TRUE`, ClearScoreBoard().
                self.sack1_timeout = true;
                self.in_recovery = false;
                self.scoreboard.clear();
                self.high_rxt = self.snd_una;
            }
            return;
        }
        self.consecutive_timeouts += 1;
        if self.consecutive_timeouts > self.cfg.max_retransmits {
            self.stats.timeouts += 1;
            self.abort();
            return;
        }
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                self.stats.timeouts += 1;
                self.rto.back_off(&self.cfg);
                self.send_syn(now, out);
                return;
            }
            TcpState::Established if self.snd_max > self.snd_una => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        if self.snd_una < self.rtx_mark {
            self.stats.timeouts_retransmission += 1;
        } else if self.snd_max == self.app_end
            && self.app_end - self.snd_una <= self.cfg.dupack_threshold as u64 * self.mss()
        {
            self.stats.timeouts_tail += 1;
        } else {
            self.stats.timeouts_window += 1;
        }
        let flight = self.snd_max - self.snd_una;
        // Linux's tcp_enter_loss reduces ssthresh only if no reduction was
        // made inside this window: the connection was open (or in
        // TCP_CA_Disorder), or, after an earlier timeout, data has been
        // acknowledged since (icsk_retransmits is 0; `consecutive_timeouts`
        // counts this one). The algorithm decides whether to use this.
        let fresh = !self.in_recovery
            && self.snd_una >= self.ecn_recover
            && (self.snd_una >= self.recover || self.consecutive_timeouts == 1);
        // RFC 5681 (3.1) eq. (4), then the loss window of one segment. With
        // halve_window, ns-2's timeout(): slowdown(CLOSE_SSTHRESH_HALF|
        // CLOSE_CWND_RESTART), half of min(cwnd_, wnd_) (ns2_halves; cwnd_
        // without the inflation, which RenoTcpAgent::timeout() clears) and
        // cwnd_ = wnd_restart_ = 1.
        self.ssthresh = if self.halves_window() {
            self.ns2_halves().0
        } else {
            self.cc
                .ssthresh_after_timeout(&self.window(), flight, now, fresh)
        };
        self.dupwnd = 0;
        self.cwnd = self.mss();
        // RFC 6582 (3.2) step 1 after a timeout: remember the highest byte sent.
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.dupacks = 0;
        // RFC 2018 (8): after a timeout the receiver may have reneged, so
        // SACK information no longer decides what to retransmit.
        self.scoreboard.clear();
        self.high_rxt = self.snd_una;
        // Sack1TcpAgent::timeout() (tcp-sack1.cc): `fastrecov_ = FALSE`,
        // `timeout_ = TRUE` (duplicate ACKs ignored until new data is
        // acked), `recover_ = maxseq_`, ClearScoreBoard(); then
        // TcpAgent::timeout() goes back to `highest_ack_ + 1` with cwnd_ 1
        // and send_much() finds no hole to retransmit: go-back-N, SACKed
        // data included.
        self.sack1_timeout = self.sack1();
        // RFC 6298 (5.5): back off; Karn: no sample from what is retransmitted.
        self.rto.back_off(&self.cfg);
        self.rtt_timing = RttTiming::NONE;
        // Go back: resend from the first unacknowledged byte as cwnd allows.
        // The timeout's retransmission is not paced: Linux's
        // `tcp_retransmit_timer` calls `tcp_retransmit_skb` without
        // `tcp_pacing_check`.
        self.snd_nxt = self.snd_una;
        if self.cfg.pacing.enabled {
            if let Some(x) = self.extras.as_deref_mut() {
                x.pace_next = x.pace_next.min(now);
                x.pace_deadline = OptTime::NONE;
            }
        }
        let first = out.len();
        self.try_send(now, out);
        for p in &mut out[first..] {
            p.timeout_rtx = p.is_data();
        }
        // RFC 6298 (5.6): the timer restarts with the backed-off RTO.
        self.arm_rto(now);
    }
}

#[cfg(test)]
mod tests;
