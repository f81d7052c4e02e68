//! One TCP endpoint: both halves of a full-duplex connection.
//!
//! The socket is a pure state machine. The simulator hands it segments and
//! timer wake-ups and collects the segments it emits in a reusable outbox; it
//! reads `next_deadline()` afterwards to (re)schedule the single wake-up the
//! socket needs. This keeps it testable on its own: the tests below drive a
//! socket through scripted losses without a network.

use super::cc::{Cc, CongestionControl, Window};
use super::config::TcpConfig;
use super::reassembly::Reassembly;
use super::rto::RtoEstimator;
use crate::net::{flags, NodeId, Packet};
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
}

/// Per-endpoint counters (of what this endpoint sent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Every segment emitted, pure ACKs included.
    pub segments_sent: u64,
    /// Segments carrying payload.
    pub data_segments_sent: u64,
    /// Data segments sent again (fast retransmit, partial ACK, or after a timeout).
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Payload bytes delivered in order to this endpoint's application.
    pub bytes_received: u64,
    /// Longest time spent with data outstanding and no ACK arriving.
    pub longest_silence: Time,
}

/// What a segment did that the application must hear about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegmentOutcome {
    /// In-order payload bytes delivered by this segment.
    pub delivered: u64,
    /// The connection became established with this segment.
    pub established: bool,
}

#[derive(Clone, Debug)]
pub struct TcpSocket {
    cfg: TcpConfig,
    conn: u32,
    local: NodeId,
    remote: NodeId,
    passive: bool,
    state: TcpState,

    // Send half (sequence numbers: SYN = 0, data from 1).
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// One past the last byte the application has written.
    app_end: u64,
    w: Window,
    peer_wnd: u64,
    cc: Cc,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582: one past the highest byte sent when recovery (or a timeout) began.
    recover: u64,
    first_partial_ack: bool,
    /// The segment being timed for an RTT sample: (end sequence, send time).
    rtt_timing: Option<(u64, Time)>,
    rto: RtoEstimator,
    rto_deadline: Option<Time>,
    last_data_sent: Time,
    silence_since: Option<Time>,

    // Receive half.
    rcv_nxt: u64,
    ooo: Reassembly,
    unacked_segments: u32,
    delack_deadline: Option<Time>,

    pub stats: TcpStats,
}

impl TcpSocket {
    pub fn new(cfg: TcpConfig, conn: u32, local: NodeId, remote: NodeId, passive: bool) -> Self {
        let mss = cfg.mss as u64;
        TcpSocket {
            cfg,
            conn,
            local,
            remote,
            passive,
            state: if passive {
                TcpState::Listen
            } else {
                TcpState::Closed
            },
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 1,
            w: Window {
                cwnd: cfg.initial_window as u64 * mss,
                // RFC 5681 (3.1): initial ssthresh arbitrarily high.
                ssthresh: u64::MAX,
                mss,
            },
            peer_wnd: cfg.receive_window.get(),
            cc: Cc::new(cfg.cc),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            first_partial_ack: true,
            rtt_timing: None,
            rto: RtoEstimator::new(&cfg),
            rto_deadline: None,
            last_data_sent: Time::ZERO,
            silence_since: None,
            rcv_nxt: 0,
            ooo: Reassembly::default(),
            unacked_segments: 0,
            delack_deadline: None,
            stats: TcpStats::default(),
        }
    }

    /// (local, remote) nodes.
    pub fn endpoints(&self) -> (NodeId, NodeId) {
        (self.local, self.remote)
    }
    pub fn state(&self) -> TcpState {
        self.state
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub fn cwnd(&self) -> u64 {
        self.w.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
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
            .map_or(Time::ZERO, |s| now.saturating_sub(s));
        self.stats.longest_silence.max(open)
    }

    /// The earliest instant this socket needs a wake-up.
    #[inline]
    pub fn next_deadline(&self) -> Option<Time> {
        match (self.rto_deadline, self.delack_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Active open: send a SYN.
    pub fn connect(&mut self, now: Time, out: &mut Vec<Packet>) {
        debug_assert_eq!(self.state, TcpState::Closed);
        self.state = TcpState::SynSent;
        self.send_syn(now, out);
    }

    /// The application writes `bytes` more to send.
    pub fn write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.app_end += bytes;
        self.try_send(now, out);
    }

    fn packet(&self, seq: u64, payload: u32, fl: u8) -> Packet {
        Packet {
            seq,
            ack: self.rcv_nxt,
            conn: self.conn,
            src: self.local,
            dst: self.remote,
            payload,
            wnd: self.cfg.receive_window.get().min(u32::MAX as u64) as u32,
            flags: fl,
            from_passive: self.passive,
        }
    }

    fn emit(&mut self, p: Packet, out: &mut Vec<Packet>) {
        self.stats.segments_sent += 1;
        if p.has(flags::ACK) {
            // Every segment we send acknowledges all we have received.
            self.unacked_segments = 0;
            self.delack_deadline = None;
        }
        out.push(p);
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        let fl = if self.passive {
            flags::SYN | flags::ACK
        } else {
            flags::SYN
        };
        let retransmission = self.snd_max > 0;
        if !retransmission {
            self.rtt_timing = Some((1, now));
        } else {
            self.rtt_timing = None;
        }
        self.snd_nxt = 1;
        self.snd_max = 1;
        let p = self.packet(0, 0, fl);
        self.emit(p, out);
        self.arm_rto(now);
    }

    fn send_ack(&mut self, out: &mut Vec<Packet>) {
        let p = self.packet(self.snd_nxt, 0, flags::ACK);
        self.emit(p, out);
    }

    #[inline]
    fn arm_rto(&mut self, now: Time) {
        self.rto_deadline = Some(self.cfg.clock.deadline(now, self.rto.current(&self.cfg)));
    }

    fn send_data(&mut self, now: Time, seq: u64, len: u64, out: &mut Vec<Packet>) {
        let retransmission = seq < self.snd_max;
        self.stats.data_segments_sent += 1;
        if retransmission {
            self.stats.retransmits += 1;
            // Karn: never time a segment that was retransmitted.
            if matches!(self.rtt_timing, Some((end, _)) if end > seq) {
                self.rtt_timing = None;
            }
        } else if self.rtt_timing.is_none() {
            self.rtt_timing = Some((seq + len, now));
        }
        if self.snd_una == self.snd_max {
            self.silence_since = Some(now);
        }
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
        self.last_data_sent = now;
        let p = self.packet(seq, len as u32, flags::ACK);
        self.emit(p, out);
    }

    /// Sends what the windows allow.
    fn try_send(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.state != TcpState::Established || self.snd_nxt >= self.app_end {
            return;
        }
        // RFC 5681 (4.1): after an idle period longer than the RTO, restart
        // from the initial window.
        if self.cfg.slow_start_after_idle
            && self.snd_una == self.snd_max
            && self.stats.data_segments_sent > 0
            && now.saturating_sub(self.last_data_sent) > self.rto.current(&self.cfg)
        {
            let iw = self.cfg.initial_window as u64 * self.w.mss;
            self.w.cwnd = self.w.cwnd.min(iw);
        }
        let mss = self.w.mss;
        loop {
            let remaining = self.app_end - self.snd_nxt;
            if remaining == 0 {
                break;
            }
            let len = remaining.min(mss);
            let wnd = self.w.cwnd.min(self.peer_wnd);
            if self.snd_nxt + len > self.snd_una + wnd {
                break;
            }
            self.send_data(now, self.snd_nxt, len, out);
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
    }

    /// Retransmits the first unacknowledged segment.
    fn retransmit_first(&mut self, now: Time, out: &mut Vec<Packet>) {
        let len = (self.snd_max - self.snd_una).min(self.w.mss);
        if len > 0 {
            self.send_data(now, self.snd_una, len, out);
        }
    }

    /// Handles an arriving segment.
    pub fn on_segment(&mut self, now: Time, seg: &Packet, out: &mut Vec<Packet>) -> SegmentOutcome {
        let mut outcome = SegmentOutcome::default();
        match self.state {
            TcpState::Closed => return outcome,
            TcpState::Listen => {
                if seg.has(flags::SYN) {
                    self.rcv_nxt = seg.seq + 1;
                    self.peer_wnd = seg.wnd as u64;
                    self.state = TcpState::SynReceived;
                    self.send_syn(now, out);
                }
                return outcome;
            }
            TcpState::SynSent => {
                if seg.has(flags::SYN) && seg.has(flags::ACK) && seg.ack == 1 {
                    self.rcv_nxt = seg.seq + 1;
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
            let (delivered, immediate) = self.receive(seg);
            outcome.delivered = delivered;
            ack_now = immediate;
        }
        self.try_send(now, out);
        if ack_now {
            self.send_ack(out);
        } else if self.unacked_segments > 0 && self.delack_deadline.is_none() {
            self.delack_deadline = Some(self.cfg.clock.deadline(now, self.cfg.delayed_ack_timeout));
        }
        outcome
    }

    fn handshake_acked(&mut self, now: Time, seg: &Packet) {
        self.state = TcpState::Established;
        self.snd_una = 1;
        self.snd_nxt = self.snd_nxt.max(1);
        self.peer_wnd = seg.wnd as u64;
        if let Some((_, sent)) = self.rtt_timing.take() {
            let r = self.cfg.clock.measure(sent, now);
            self.rto.sample(r, &self.cfg);
        }
        self.rto_deadline = None;
    }

    /// Receive half: returns (bytes delivered in order, ACK immediately).
    fn receive(&mut self, seg: &Packet) -> (u64, bool) {
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
        self.rcv_nxt = self.ooo.advance(end);
        let delivered = self.rcv_nxt - before;
        self.stats.bytes_received += delivered;
        if had_gap || !self.cfg.delayed_ack {
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
        let window_changed = seg.wnd as u64 != self.peer_wnd;
        self.peer_wnd = seg.wnd as u64;

        if ack > self.snd_una {
            let flight_before = self.snd_max - self.snd_una;
            self.note_ack_arrival(now, ack);
            let acked = ack - self.snd_una;
            // RTT sample from the timed segment (Karn: none if retransmitted).
            let mut rtt = None;
            if let Some((end, sent)) = self.rtt_timing {
                if ack >= end {
                    let r = self.cfg.clock.measure(sent, now);
                    self.rto.sample(r, &self.cfg);
                    self.rtt_timing = None;
                    rtt = Some(r);
                }
            }
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            if self.in_recovery {
                if ack >= self.recover {
                    // RFC 6582 (3.2) step 3: full acknowledgment ends recovery;
                    // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
                    let flight = self.snd_max - self.snd_una;
                    self.w.cwnd = self.w.ssthresh.min(flight.max(self.w.mss) + self.w.mss);
                    self.in_recovery = false;
                } else {
                    // RFC 6582 (3.2) step 5: partial acknowledgment. Retransmit
                    // the first unacknowledged segment, deflate cwnd by the
                    // amount acked, add back one SMSS if at least one was acked.
                    self.retransmit_first(now, out);
                    self.w.cwnd = self.w.cwnd.saturating_sub(acked);
                    if acked >= self.w.mss {
                        self.w.cwnd += self.w.mss;
                    }
                    self.w.cwnd = self.w.cwnd.max(self.w.mss);
                    // Reset the timer on the first partial ACK only ("impatient").
                    if self.first_partial_ack {
                        self.first_partial_ack = false;
                        self.arm_rto(now);
                    }
                }
            } else if !self.cfg.cwnd_validation || self.cwnd_limited(flight_before) {
                self.cc.on_ack(&mut self.w, acked, now, rtt);
            }
            self.dupacks = 0;
            // RFC 6298 (5.2)/(5.3): stop the timer when all is acked, else
            // restart it (during recovery only the first partial ACK restarts
            // it, above).
            if self.snd_una == self.snd_max {
                self.rto_deadline = None;
            } else if !self.in_recovery {
                self.arm_rto(now);
            }
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
        self.dupacks += 1;
        let mss = self.w.mss;
        if self.in_recovery {
            // RFC 6582 (3.2) step 4 / RFC 5681 (3.2) step 4: inflate by one SMSS
            // per further duplicate ACK, and send if the window allows.
            self.w.cwnd += mss;
            self.try_send(now, out);
        } else if self.dupacks == self.cfg.dupack_threshold {
            // RFC 6582 (3.2) step 2: enter fast retransmit only if this ACK
            // covers more than `recover` (so not for losses of a window that a
            // timeout already handled).
            if ack > self.recover {
                let flight = self.snd_max - self.snd_una;
                self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, now);
                self.recover = self.snd_max;
                self.in_recovery = true;
                self.first_partial_ack = true;
                self.stats.fast_retransmits += 1;
                self.retransmit_first(now, out);
                // RFC 5681 (3.2) step 3: cwnd = ssthresh + 3*SMSS.
                self.w.cwnd = self.w.ssthresh + self.cfg.dupack_threshold as u64 * mss;
            }
        }
    }

    /// Whether the window, not the application, limited the data in flight
    /// (Linux's `tcp_is_cwnd_limited`: in slow start, flight at least half of
    /// cwnd; otherwise flight within one segment of cwnd). RFC 7661 (4.1):
    /// a window the sender does not use must not keep growing.
    fn cwnd_limited(&self, flight: u64) -> bool {
        if self.w.cwnd < self.w.ssthresh {
            2 * flight >= self.w.cwnd
        } else {
            flight + self.w.mss >= self.w.cwnd
        }
    }

    /// Bookkeeping of the longest silence: time with data outstanding and no ACK.
    fn note_ack_arrival(&mut self, now: Time, ack: u64) {
        if let Some(since) = self.silence_since {
            let gap = now.saturating_sub(since);
            if gap > self.stats.longest_silence {
                self.stats.longest_silence = gap;
            }
        }
        self.silence_since = if ack < self.snd_max { Some(now) } else { None };
    }

    /// A wake-up at `now`: fire whichever timers are due.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if matches!(self.delack_deadline, Some(d) if d <= now) {
            self.delack_deadline = None;
            if self.unacked_segments > 0 {
                self.send_ack(out);
            }
        }
        if matches!(self.rto_deadline, Some(d) if d <= now) {
            self.rto_deadline = None;
            self.on_rto(now, out);
        }
    }

    /// RFC 6298 (5.4)-(5.6) and RFC 5681 (3.1) on a retransmission timeout.
    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
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
        let flight = self.snd_max - self.snd_una;
        // RFC 5681 (3.1) eq. (4), then the loss window of one segment.
        self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, now);
        self.w.cwnd = self.w.mss;
        // RFC 6582 (3.2) step 1 after a timeout: remember the highest byte sent.
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.dupacks = 0;
        // RFC 6298 (5.5): back off; Karn: no sample from what is retransmitted.
        self.rto.back_off(&self.cfg);
        self.rtt_timing = None;
        // Go back: resend from the first unacknowledged byte as cwnd allows.
        self.snd_nxt = self.snd_una;
        self.try_send(now, out);
        // RFC 6298 (5.6): the timer restarts with the backed-off RTO.
        self.arm_rto(now);
    }
}

#[cfg(test)]
mod tests;
