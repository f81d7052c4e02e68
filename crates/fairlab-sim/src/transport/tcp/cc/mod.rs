//! Congestion control: one algorithm per file behind [`CongestionControl`],
//! wrapped in the [`Cc`] enum so the ACK path has no trait objects.
//!
//! The socket owns `cwnd` and `ssthresh` and the loss-recovery state machine
//! (RFC 5681 / RFC 6582); an algorithm decides how the window grows on ACKs
//! and how far it falls on a loss.

mod newreno;

pub use newreno::NewReno;

use crate::units::Time;

/// Which algorithm a connection runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    NewReno,
}

impl CcKind {
    pub fn name(&self) -> &'static str {
        match self {
            CcKind::NewReno => "newreno",
        }
    }
    pub fn parse(s: &str) -> Option<CcKind> {
        match s {
            "newreno" => Some(CcKind::NewReno),
            _ => None,
        }
    }
}

/// The window state an algorithm acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

pub trait CongestionControl {
    /// New data acknowledged outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, bytes_acked: u64, now: Time, rtt: Option<Time>);
    /// The new ssthresh when a loss is detected with `flight` bytes outstanding.
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64;
}

#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(NewReno),
}

impl Cc {
    pub fn new(kind: CcKind) -> Cc {
        match kind {
            CcKind::NewReno => Cc::NewReno(NewReno),
        }
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, bytes_acked: u64, now: Time, rtt: Option<Time>) {
        match self {
            Cc::NewReno(c) => c.on_ack(w, bytes_acked, now, rtt),
        }
    }
    #[inline]
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, now: Time) -> u64 {
        match self {
            Cc::NewReno(c) => c.ssthresh_after_loss(w, flight, now),
        }
    }
}
