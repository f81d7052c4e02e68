//! The sending host's algorithm as a small state machine. The driver (the
//! simulator's event loop, or issue 22's socket loop) calls [`Sender::poll`]
//! at the time the last [`Dispatch`] named, sends what it says, and hands
//! every decoded feedback to [`Sender::on_feedback`]. The driver owns the
//! clock and the random numbers; the sender owns none.
//!
//! Modes and readings taken:
//! - [`Mode::NonAdaptive`]: UDPmon's fixed wait; one datagram, then the next
//!   `wait_ps` after it. Feedback changes nothing. The budget is charged for
//!   the record but not enforced (the seed's baseline runs had no budget).
//! - [`Mode::Rate`]: the same pacing, with the wait steered by
//!   [`RateResponse`] on each feedback, %budget taken from the stream's RAD
//!   bookkeeping at the feedback's arrival. A new wait applies from the next
//!   send on (the pending send time was already given to the driver). The
//!   budget is not enforced: a spent budget shows as %budget = 0, which
//!   drives the wait toward wait_max.
//! - [`Mode::Window`]: a window of ⌊w⌋ datagrams (at least one) sent back to
//!   back once per slot of w_max·`wait_ps` (the time w_max datagrams take at
//!   the configured pace, so a full window is the reservation's rate and a
//!   smaller one proportionally less), never more than the budget left pays
//!   for: with the budget spent the sender waits for the next job's release.
//!   Each slot is delayed by the random dispatch offset N_obs·pktS·rand, with
//!   N_obs the depth of the latest feedback and rand the driver's `u01`. The
//!   window starts at w_max.
//! - A feedback older than one already taken (a lower highest-frame) is
//!   ignored: feedback can be reordered on the reverse path.

use crate::feedback::Feedback;
use crate::rad::{Rad, Reservation};
use crate::response::{RateResponse, WindowResponse};

/// How the sender paces.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Mode {
    /// Fixed wait (the tables' baseline).
    NonAdaptive,
    /// Rate-based Percent-Budget.
    Rate(RateResponse),
    /// Window-based Percent-Budget or Less-Laxity-More.
    Window(WindowResponse),
}

/// A sender's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SenderConfig {
    /// The stream's reservation.
    pub reservation: Reservation,
    /// pktS, the worst-case service time of one datagram: wire bytes / C.
    pub packet_service_ps: i64,
    /// Initial wait between datagrams (the non-adaptive wait).
    pub wait_ps: i64,
    /// How it paces.
    pub mode: Mode,
}

/// What to do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Send this many datagrams now, back to back.
    pub packets: u32,
    /// Poll again at this time.
    pub next_ps: i64,
}

/// The sender of one stream.
#[derive(Clone, Debug)]
pub struct Sender {
    cfg: SenderConfig,
    rad: Rad,
    wait_ps: i64,
    window: f64,
    next_send_ps: i64,
    sent: u64,
    last_feedback_frame: Option<u64>,
    depth_pkts: f64,
}

impl Sender {
    /// A sender whose first datagram (or window) is due at `start_ps`, when
    /// its first job is released.
    pub fn new(cfg: SenderConfig, start_ps: i64) -> Sender {
        let window = match cfg.mode {
            Mode::Window(w) => w.w_max,
            _ => 1.0,
        };
        Sender {
            cfg,
            rad: Rad::new(cfg.reservation, cfg.packet_service_ps, start_ps),
            wait_ps: cfg.wait_ps,
            window,
            next_send_ps: start_ps,
            sent: 0,
            last_feedback_frame: None,
            depth_pkts: 0.0,
        }
    }

    /// What to send at `now_ps`, and when to come back. `u01` is a uniform
    /// draw in [0, 1) from the driver, used by the window mode's dispatch
    /// offset.
    pub fn poll(&mut self, now_ps: i64, u01: f64) -> Dispatch {
        self.rad.advance(now_ps);
        if now_ps < self.next_send_ps {
            return self.idle();
        }
        let packets = match self.cfg.mode {
            Mode::NonAdaptive | Mode::Rate(_) => {
                self.next_send_ps = now_ps + self.wait_ps.max(1);
                1
            }
            Mode::Window(w) => self.poll_window(now_ps, u01, w),
        };
        self.record_sent(packets);
        Dispatch {
            packets,
            next_ps: self.next_send_ps,
        }
    }

    fn idle(&self) -> Dispatch {
        Dispatch {
            packets: 0,
            next_ps: self.next_send_ps,
        }
    }

    /// One window slot: the burst to send now, and the next slot's time.
    fn poll_window(&mut self, now_ps: i64, u01: f64, w: WindowResponse) -> u32 {
        let affordable = self.rad.budget_left_packets();
        if affordable == 0 {
            self.next_send_ps = self.rad.deadline_ps();
            return 0;
        }
        let wanted = (self.window.floor().max(1.0)) as u64;
        let burst = wanted.min(affordable).min(u64::from(u32::MAX)) as u32;
        let slot_ps = ((w.w_max * self.wait_ps as f64).round() as i64).max(1);
        let offset_ps =
            WindowResponse::dispatch_offset_ps(self.depth_pkts, self.cfg.packet_service_ps, u01);
        self.next_send_ps = now_ps + slot_ps + offset_ps;
        burst
    }

    fn record_sent(&mut self, packets: u32) {
        let service_ps = i64::from(packets).saturating_mul(self.cfg.packet_service_ps);
        self.rad.charge(service_ps);
        self.sent += u64::from(packets);
    }

    /// A feedback arrived at `now_ps`.
    pub fn on_feedback(&mut self, now_ps: i64, fb: &Feedback) {
        if self.last_feedback_frame.is_some_and(|f| fb.frame < f) {
            return;
        }
        self.last_feedback_frame = Some(fb.frame);
        self.depth_pkts = fb.depth_pkts();
        self.rad.advance(now_ps);
        match self.cfg.mode {
            Mode::NonAdaptive => {}
            Mode::Rate(r) => {
                let pct_budget = self.rad.pct_budget(now_ps, r.budget);
                self.wait_ps = r.next_wait_ps(self.wait_ps, pct_budget, fb.congested);
            }
            Mode::Window(w) => {
                self.window = w.next_window(self.window, &self.rad, now_ps, fb.congested);
            }
        }
    }

    /// The current wait between datagrams.
    pub fn wait_ps(&self) -> i64 {
        self.wait_ps
    }

    /// The current window in datagrams (1 outside window mode).
    pub fn window(&self) -> f64 {
        self.window
    }

    /// Datagrams dispatched so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// When the sender next has something to send.
    pub fn next_poll_ps(&self) -> i64 {
        self.next_send_ps
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }

    /// The stream's RAD bookkeeping.
    pub fn rad(&self) -> &Rad {
        &self.rad
    }
}
