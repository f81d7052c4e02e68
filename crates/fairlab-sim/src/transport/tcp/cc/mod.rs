//! Congestion control: one algorithm per file behind [`CongestionControl`],
//! wrapped in the [`Cc`] enum so the ACK path has no trait objects.
//!
//! The socket owns `cwnd` and `ssthresh` and the loss-recovery state machine
//! (Reno / NewReno per RFC 5681 and RFC 6582, or SACK per RFC 6675); an
//! algorithm decides how the window grows on ACKs and how far it falls on a
//! loss, a timeout or an ECN echo.

mod bic;
mod bic_paper;
mod cubic;
mod dctcp;
mod newreno;
mod vegas;

pub use bic::Bic;
pub use bic_paper::BicPaper;
pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use newreno::NewReno;
pub use vegas::Vegas;

use crate::units::Time;

pub use crate::vocab::CcKind;

/// The window state an algorithm acts on (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

impl Window {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What one acknowledgment of new data tells the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckEvent {
    pub now: Time,
    /// Bytes newly acknowledged by the cumulative ACK.
    pub acked: u64,
    /// Bytes that were in flight when the ACK arrived.
    pub flight: u64,
    /// Exact RTT measured on this ACK (echoed send time; not quantized by
    /// the timer clock), when the ACK acknowledges a segment sent once.
    pub rtt: Option<Time>,
    /// Smallest exact RTT seen on the connection.
    pub min_rtt: Option<Time>,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// snd_una after this ACK, and snd_nxt: for per-window bookkeeping.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The connection was in Linux's TCP_CA_Open state when the ACK
    /// arrived: no fast recovery under way, snd_una at or past the recovery
    /// point of the last recovery, timeout (TCP_CA_Loss) and ECN or
    /// local-congestion reduction (TCP_CA_CWR), and no duplicate ACK or
    /// SACKed data since the last ACK of new data (TCP_CA_Disorder). Linux's
    /// `pkts_acked` hooks sample only then (tcp_bic.c `bictcp_acked`).
    pub ca_open: bool,
}

pub trait CongestionControl {
    /// New data acknowledged outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent);

    /// Every ACK of new data, in any state (fast recovery and after a
    /// timeout too), before the socket runs its recovery and calls `on_ack`:
    /// Linux's `pkts_acked` (called from `tcp_clean_rtx_queue`, before
    /// `cong_avoid`). By default nothing.
    fn on_packets_acked(&mut self, _w: &Window, _ack: &AckEvent) {}

    /// The new ssthresh when duplicate ACKs (or SACK) reveal a loss with
    /// `flight` bytes outstanding. The socket then enters fast recovery.
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64;

    /// The new ssthresh after a retransmission timeout (the socket then sets
    /// cwnd to one segment). By default, as for a loss.
    ///
    /// `fresh`: no reduction has been made inside the current window yet:
    /// the connection was open (no fast recovery, no earlier timeout or ECN
    /// reduction whose recovery point snd_una has not reached), or data has
    /// been acknowledged since the last timeout. Linux's `tcp_enter_loss`
    /// asks the algorithm for ssthresh only then and otherwise keeps it
    /// (tcp_input.c); the default ignores it.
    fn ssthresh_after_timeout(&mut self, w: &Window, flight: u64, now: Time, _fresh: bool) -> u64 {
        self.ssthresh_after_loss(w, flight, now)
    }

    /// Whether the algorithm reacts to ECN-Echo itself in `on_ack` (DCTCP).
    /// Otherwise the socket treats ECE as a loss once per window, RFC 3168 (6.1.2).
    fn handles_ecn(&self) -> bool {
        false
    }
}

/// The algorithm of one connection, dispatched without trait objects.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(NewReno),
    Cubic(Cubic),
    Bic(Bic),
    BicPaper(BicPaper),
    Vegas(Vegas),
    Dctcp(Dctcp),
}

impl Cc {
    /// Reno and NewReno grow the window alike; they differ in loss recovery,
    /// which the socket runs.
    pub fn new(kind: CcKind, mss: u64) -> Cc {
        match kind {
            CcKind::Reno | CcKind::NewReno => Cc::NewReno(NewReno),
            CcKind::Cubic => Cc::Cubic(Cubic::new()),
            CcKind::Bic => Cc::Bic(Bic::new()),
            CcKind::BicPaper => Cc::BicPaper(BicPaper::new(mss)),
            CcKind::Vegas => Cc::Vegas(Vegas::new(mss)),
            CcKind::Dctcp => Cc::Dctcp(Dctcp::new(mss)),
        }
    }

    /// DCTCP's alpha, for traces (NaN for others).
    pub fn dctcp_alpha(&self) -> f64 {
        match self {
            Cc::Dctcp(d) => d.alpha(),
            _ => f64::NAN,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::NewReno($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Bic($c) => $e,
            Cc::BicPaper($c) => $e,
            Cc::Vegas($c) => $e,
            Cc::Dctcp($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        dispatch!(self, c => c.on_ack(w, ack))
    }
    #[inline]
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64 {
        dispatch!(self, c => c.ssthresh_after_loss(w, flight, now))
    }
    #[inline]
    fn on_packets_acked(&mut self, w: &Window, ack: &AckEvent) {
        dispatch!(self, c => c.on_packets_acked(w, ack))
    }
    #[inline]
    fn ssthresh_after_timeout(&mut self, w: &Window, flight: u64, now: Time, fresh: bool) -> u64 {
        dispatch!(self, c => c.ssthresh_after_timeout(w, flight, now, fresh))
    }
    #[inline]
    fn handles_ecn(&self) -> bool {
        dispatch!(self, c => c.handles_ecn())
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// An ACK of one full segment at `now` with an exact RTT sample.
    pub fn ack(
        now: Time,
        mss: u64,
        flight: u64,
        rtt: Time,
        snd_una: u64,
        snd_nxt: u64,
    ) -> AckEvent {
        AckEvent {
            now,
            acked: mss,
            flight,
            rtt: Some(rtt),
            min_rtt: Some(rtt),
            ece: false,
            snd_una,
            snd_nxt,
            ca_open: true,
        }
    }
}
