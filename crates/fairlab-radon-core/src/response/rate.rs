//! Rate-based Percent-Budget, the response of the seed's chapter-5 prototype:
//! the inter-packet wait is steered toward w_op = wait_min / %budget when the
//! receiver reports congestion, and toward wait_min when it does not.
//!
//! Readings taken (the seed leaves all three open; each has a switch so the
//! others can run as labelled sensitivity series):
//! - The move: the seed writes wait_new = min(wait_max, max(wait_min,
//!   w_change)) with w_change = −|w − w_op|/2, a change that is never
//!   positive, so the literal rule always yields wait_min. The evident intent,
//!   and the default ([`WaitReading::Halfway`]), is to move the wait half the
//!   way toward w_op and clamp the result; [`WaitReading::SeedLiteral`] is the
//!   rule as written.
//! - wait_min: undefined in the seed; the tables imply the reservation's own
//!   pace L/(u·C) (131 µs for 500 Mb/s with 8 KiB, Table 5.5), which
//!   [`RateResponse::reservation_wait_ps`] computes
//!   ([`WaitMinReading::ReservationPace`], default). The alternative,
//!   [`WaitMinReading::LineRate`], lets a stream speed up to the line rate
//!   (wait_min = pktS, one wire frame's transmission time) when nothing is
//!   congested.
//! - %budget: e′/(d − t), the budget still left ([`BudgetReading::Remaining`],
//!   default), or e/(d − t) ([`BudgetReading::Full`]).
//! - wait_max: not given by the seed; [`RateResponse::for_reservation`] takes
//!   one period (a stream is never slowed below one packet per period, so it
//!   keeps producing RFD samples); a driver may set any other.
//! - %budget = 0 (budget spent) makes w_op infinite: the wait moves toward
//!   wait_max.

use crate::rad::{BudgetReading, Reservation};

/// How the new wait follows from w_op (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum WaitReading {
    /// Move half the way toward w_op, then clamp (default).
    #[default]
    Halfway,
    /// wait_new = clamp(w_change) with w_change = −|w − w_op|/2 ≤ 0, i.e.
    /// always wait_min: the seed's formula as written.
    SeedLiteral,
}

/// What wait_min is (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaitMinReading {
    /// L/(u·C): the reservation's own pace (default; the seed's tables).
    #[default]
    ReservationPace,
    /// pktS = wire bytes / C: the line rate.
    LineRate,
}

/// The rate response's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RateResponse {
    /// Shortest wait (fastest pace).
    pub wait_min_ps: i64,
    /// Longest wait.
    pub wait_max_ps: i64,
    /// How the wait moves.
    pub wait: WaitReading,
    /// Which %budget the sender computes for [`RateResponse::next_wait_ps`].
    pub budget: BudgetReading,
}

impl RateResponse {
    /// The wait that paces `packet_bytes` at the reservation's rate u·C:
    /// L·8/(u·C), rounded to the nearest picosecond. 8192 B at u = 0.5 of
    /// 1 Gb/s: 131.072 µs.
    pub fn reservation_wait_ps(packet_bytes: f64, res: &Reservation, capacity_bps: f64) -> i64 {
        let rate_bps = res.utilization * capacity_bps;
        (packet_bytes * 8.0 * 1e12 / rate_bps).round() as i64
    }

    /// The default readings with wait_min = the reservation's pace and
    /// wait_max = one period (at least wait_min).
    pub fn for_reservation(packet_bytes: f64, res: &Reservation, capacity_bps: f64) -> Self {
        let wait_min_ps = Self::reservation_wait_ps(packet_bytes, res, capacity_bps);
        Self::with_wait_min(wait_min_ps, res)
    }

    /// wait_min by `reading` for datagrams of `payload_bytes` that occupy
    /// `wire_bytes` on a link of `capacity_bps`.
    pub fn wait_min_for(
        reading: WaitMinReading,
        payload_bytes: f64,
        wire_bytes: f64,
        res: &Reservation,
        capacity_bps: f64,
    ) -> i64 {
        match reading {
            WaitMinReading::ReservationPace => {
                Self::reservation_wait_ps(payload_bytes, res, capacity_bps)
            }
            WaitMinReading::LineRate => (wire_bytes * 8.0 * 1e12 / capacity_bps).round() as i64,
        }
    }

    /// Default move and %budget readings, the given wait_min, and wait_max =
    /// one period (at least wait_min).
    pub fn with_wait_min(wait_min_ps: i64, res: &Reservation) -> Self {
        RateResponse {
            wait_min_ps,
            wait_max_ps: res.period_ps.max(wait_min_ps),
            wait: WaitReading::default(),
            budget: BudgetReading::default(),
        }
    }

    /// w_op: wait_min / %budget when congested (wait_max when %budget ≤ 0),
    /// wait_min otherwise.
    pub fn operating_wait_ps(&self, pct_budget: f64, congested: bool) -> f64 {
        if !congested {
            return self.wait_min_ps as f64;
        }
        if pct_budget > 0.0 {
            self.wait_min_ps as f64 / pct_budget
        } else {
            self.wait_max_ps as f64
        }
    }

    /// Congested: w_op = wait_min / %budget; not congested: w_op = wait_min.
    /// Returns the new wait, clamped to [wait_min, wait_max].
    pub fn next_wait_ps(&self, wait_ps: i64, pct_budget: f64, congested: bool) -> i64 {
        let w_op = self.operating_wait_ps(pct_budget, congested);
        let w = wait_ps as f64;
        let unclamped = match self.wait {
            WaitReading::Halfway => w + (w_op - w) / 2.0,
            WaitReading::SeedLiteral => -(w - w_op).abs() / 2.0,
        };
        let low = self.wait_min_ps as f64;
        let high = (self.wait_max_ps as f64).max(low);
        unclamped.clamp(low, high).round() as i64
    }
}
