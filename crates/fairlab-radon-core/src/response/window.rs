//! Window-based responses (seed §4.4): Percent-Budget and Less-Laxity-More,
//! each steering the window toward a target w_op, and the random dispatch
//! offset against incast.
//!
//! Readings taken:
//! - w_change = −|w − w_op|/2 is read, as for the rate response, as a move
//!   half the way toward w_op (the literal change is never positive).
//! - Not congested: "transmitted as fast as possible up to the amount allowed
//!   by the budget", so w_op = w_max and the same halfway move applies.
//! - Bounds: "bound by the minimum window size and the remaining budget":
//!   the result is clamped to [w_min, w_max] and then cut to the whole packets
//!   e′ still pays for; the budget wins over w_min (a reservation is never
//!   overrun).
//! - Less-Laxity-More measures l in packet service times, l/pktS; a negative
//!   laxity is taken as 0 (the most urgent), which keeps w_max/(l + 1)
//!   defined.
//! - The dispatch offset N_obs/pktS·rand has units of packets²/second as
//!   printed; it is read as N_obs·pktS·rand (N_obs in packets), a random
//!   fraction of the time the modeled queue takes to drain.

use crate::rad::Rad;

/// Which window target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum WindowRule {
    /// w_op = (1 − %laxity)·w_max (default).
    #[default]
    PercentBudget,
    /// w_op = min(m, max(w_max/(l + 1), 2)), l in packet service times.
    LessLaxityMore,
}

/// The window response's parameters (windows in packets).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WindowResponse {
    /// Which target.
    pub rule: WindowRule,
    /// Largest window.
    pub w_max: f64,
    /// Smallest window (the remaining budget may still cut below it).
    pub w_min: f64,
}

/// Less-Laxity-More's floor on w_op.
pub const LLM_FLOOR_PKTS: f64 = 2.0;

impl WindowResponse {
    /// The target window w_op at `now_ps` (call `rad.advance(now_ps)` first).
    pub fn operating_window(&self, rad: &Rad, now_ps: i64, congested: bool) -> f64 {
        if !congested {
            return self.w_max;
        }
        match self.rule {
            WindowRule::PercentBudget => (1.0 - rad.pct_laxity(now_ps)) * self.w_max,
            WindowRule::LessLaxityMore => {
                let laxity_pkts =
                    (rad.laxity_ps(now_ps) as f64 / rad.packet_service_ps() as f64).max(0.0);
                let m = rad.budget_packets() as f64;
                (self.w_max / (laxity_pkts + 1.0))
                    .max(LLM_FLOOR_PKTS)
                    .min(m)
            }
        }
    }

    /// The new window: half the way from `w` toward w_op, clamped to
    /// [w_min, w_max], then to the packets the budget left pays for.
    pub fn next_window(&self, w: f64, rad: &Rad, now_ps: i64, congested: bool) -> f64 {
        let w_op = self.operating_window(rad, now_ps, congested);
        let moved = w + (w_op - w) / 2.0;
        let bounded = moved.max(self.w_min).min(self.w_max);
        bounded.min(rad.budget_left_packets() as f64)
    }

    /// Random dispatch offset N_obs·pktS·rand (reading of the seed's
    /// N_obs/pktS·rand: N_obs in packets). A negative depth counts as 0.
    pub fn dispatch_offset_ps(depth_pkts: f64, packet_service_ps: i64, u01: f64) -> i64 {
        (depth_pkts.max(0.0) * packet_service_ps as f64 * u01).round() as i64
    }
}
