//! `[radon]` and `[workload.radon]`: how Radon streams (udp workloads on
//! `transport = "radon"`) detect congestion and respond to it, resolved
//! field by field (the workload's table over the scenario's) into
//! [`RadonSettings`], plain data each backend maps to its own Radon
//! (docs/radon.md). Every default below is a reading of the seed (Radon
//! proposal, chapters 4 and 5) where it leaves the value open; the
//! alternatives are the other names of each enum.

use super::check::{check_number, check_time};
use super::error::ScenarioError;
use crate::units::Time;
use crate::vocab::named_enum;
use serde::{Deserialize, Serialize};

named_enum! {
    /// How a Radon sender responds to congestion.
    pub enum RadonResponse ("radon response") {
        /// Rate-based Percent-Budget on the inter-packet wait (the
        /// prototype of the seed's chapter 5; the default).
        PercentBudget = "percent_budget",
        /// Window-based Percent-Budget: windows of w_op = %budget · w_max
        /// packets each period, with the random dispatch offset.
        PercentBudgetWindow = "percent_budget_window",
        /// Window-based Less-Laxity-More: w_op = min(m, max(w_max/(l+1), 2)).
        LessLaxityMore = "less_laxity_more",
    }
}

named_enum! {
    /// The queue-depth model whose estimate drives the feedback (all three
    /// run at every receiver for the tables).
    pub enum RadonModel ("queue model") {
        /// The median of every five delays with a continuous trend test:
        /// the one the seed's adaptive runs used (the default).
        Median5 = "median5",
        /// TCP Santa Cruz's: summed relative forward delay over an
        /// interval, over the bottleneck's service time.
        Basic = "basic",
        /// Pathload's trend tests on trains of 100.
        Pathload = "pathload",
    }
}

named_enum! {
    /// Where the hosts take their send and receive timestamps.
    pub enum StampPoint ("timestamp capture point") {
        /// The kernel's socket timestamp (SO_TIMESTAMPNS): the default, and
        /// the seed's better measurements.
        Socket = "socket",
        /// The NIC's hardware clock.
        Nic = "nic",
        /// The application's own clock read after recvfrom (the seed's TSC
        /// in user space).
        Application = "application",
    }
}

named_enum! {
    /// How the rate response moves the wait (the seed's clamp is written
    /// on the change, which is never positive).
    pub enum WaitReading ("wait reading") {
        /// Halfway toward the target, clamped to [wait_min, wait_max].
        Halfway = "halfway",
        /// The seed's text as written: the clamped change, i.e. always
        /// wait_min (the response never slows the stream).
        SeedLiteral = "seed_literal",
    }
}

named_enum! {
    /// Which budget %budget divides (the seed writes both).
    pub enum BudgetReading ("budget reading") {
        /// e′, the budget still left in the period (1 − %laxity).
        Remaining = "remaining",
        /// e, the whole budget (the seed's e_i / (d − t)).
        Full = "full",
    }
}

named_enum! {
    /// What wait_min is (the seed does not define it).
    pub enum WaitMin ("wait_min") {
        /// The reservation's own rate: L / (u·C), 131 µs for 500 Mb/s of
        /// 8 KiB datagrams on 1 GbE.
        Reservation = "reservation",
        /// The line rate: L / C.
        LineRate = "line_rate",
    }
}

named_enum! {
    /// What Pathload's pairwise comparison test divides by.
    pub enum PctDivisor ("PCT divisor") {
        /// Γ − 1, the number of pairs (Jain and Dovrolis' definition).
        Pairs = "pairs",
        /// Γ, as pathload 1.3.2's pathload_rcv_func.c does.
        Groups = "groups",
    }
}

/// `[radon]` as written: every field optional, a workload's table over the
/// scenario's.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RadonSpec {
    /// Respond to congestion (default true); false keeps the initial wait
    /// (the seed's non-adaptive baseline) but still measures and reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<RadonResponse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<RadonModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<StampPoint>,
    /// Per-host clock rate error, drawn uniformly within ± this many ppm
    /// (default 0: the seed synchronized clocks before each run; rate
    /// error is the one part RFD does not cancel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew_ppm: Option<f64>,
    /// Admission control per output port along each stream's path
    /// (default true); false runs the seed's over-subscribed sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<bool>,
    /// Utilization each port keeps out of admission, in [0, 1) (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve: Option<f64>,
    /// Datagrams per feedback datagram the receiver returns (default 5:
    /// one per median-of-five group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_every: Option<u32>,
    /// A modelled depth at or above this many packets counts as congestion
    /// (default 1), as does an increasing trend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congested_depth: Option<f64>,
    /// Longest wait the response may reach (default: the period: a stream
    /// sends at least one datagram per period of its reservation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_max: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_min: Option<WaitMin>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_reading: Option<WaitReading>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_reading: Option<BudgetReading>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_divisor: Option<PctDivisor>,
    /// Apply the random dispatch offset to each window (window responses;
    /// default true: the seed proposes it against incast).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispatch_offset: Option<bool>,
}

/// A Radon stream's settings with every default filled in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadonSettings {
    pub adaptive: bool,
    pub response: RadonResponse,
    pub model: RadonModel,
    pub stamp: StampPoint,
    pub skew_ppm: f64,
    pub admission: bool,
    pub reserve: f64,
    pub feedback_every: u32,
    pub congested_depth_pkts: f64,
    /// `None`: the stream's period.
    pub wait_max: Option<Time>,
    pub wait_min: WaitMin,
    pub wait_reading: WaitReading,
    pub budget_reading: BudgetReading,
    pub pct_divisor: PctDivisor,
    pub dispatch_offset: bool,
}

/// Largest `feedback_every`: a stream still hears of congestion within a
/// few hundred datagrams.
pub const MAX_FEEDBACK_EVERY: u32 = 1000;

impl RadonSpec {
    pub fn is_default(&self) -> bool {
        *self == RadonSpec::default()
    }

    /// `over`'s fields where given, else this table's.
    pub fn overridden_by(&self, over: Option<&RadonSpec>) -> RadonSpec {
        let Some(o) = over else {
            return self.clone();
        };
        RadonSpec {
            adaptive: o.adaptive.or(self.adaptive),
            response: o.response.or(self.response),
            model: o.model.or(self.model),
            stamp: o.stamp.or(self.stamp),
            skew_ppm: o.skew_ppm.or(self.skew_ppm),
            admission: o.admission.or(self.admission),
            reserve: o.reserve.or(self.reserve),
            feedback_every: o.feedback_every.or(self.feedback_every),
            congested_depth: o.congested_depth.or(self.congested_depth),
            wait_max: o.wait_max.or(self.wait_max),
            wait_min: o.wait_min.or(self.wait_min),
            wait_reading: o.wait_reading.or(self.wait_reading),
            budget_reading: o.budget_reading.or(self.budget_reading),
            pct_divisor: o.pct_divisor.or(self.pct_divisor),
            dispatch_offset: o.dispatch_offset.or(self.dispatch_offset),
        }
    }

    /// Checks the values (`path` is "radon" or "workload[i].radon").
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let at = |f: &str| format!("{path}.{f}");
        if let Some(v) = self.skew_ppm {
            check_number(
                &at("skew_ppm"),
                v,
                |v| (0.0..=1000.0).contains(&v),
                "0 to 1000 (ppm)",
            )?;
        }
        if let Some(v) = self.reserve {
            check_number(
                &at("reserve"),
                v,
                |v| (0.0..1.0).contains(&v),
                "a fraction in [0, 1)",
            )?;
        }
        if let Some(v) = self.congested_depth {
            check_number(
                &at("congested_depth"),
                v,
                |v| (0.0..=1e6).contains(&v),
                "0 to 1e6 packets",
            )?;
        }
        if let Some(n) = self.feedback_every {
            if n == 0 || n > MAX_FEEDBACK_EVERY {
                return Err(ScenarioError::new(
                    at("feedback_every"),
                    format!("{n} is not allowed; expected 1 to {MAX_FEEDBACK_EVERY} datagrams"),
                ));
            }
        }
        if let Some(t) = self.wait_max {
            check_time(&at("wait_max"), t)?;
            if t == Time::ZERO {
                return Err(ScenarioError::new(
                    at("wait_max"),
                    "\"0s\" is not allowed; expected a positive duration",
                ));
            }
        }
        Ok(())
    }

    /// Every default filled in.
    pub fn settings(&self) -> RadonSettings {
        RadonSettings {
            adaptive: self.adaptive.unwrap_or(true),
            response: self.response.unwrap_or(RadonResponse::PercentBudget),
            model: self.model.unwrap_or(RadonModel::Median5),
            stamp: self.stamp.unwrap_or(StampPoint::Socket),
            skew_ppm: self.skew_ppm.unwrap_or(0.0),
            admission: self.admission.unwrap_or(true),
            reserve: self.reserve.unwrap_or(0.0),
            feedback_every: self.feedback_every.unwrap_or(5),
            congested_depth_pkts: self.congested_depth.unwrap_or(1.0),
            wait_max: self.wait_max,
            wait_min: self.wait_min.unwrap_or(WaitMin::Reservation),
            wait_reading: self.wait_reading.unwrap_or(WaitReading::Halfway),
            budget_reading: self.budget_reading.unwrap_or(BudgetReading::Remaining),
            pct_divisor: self.pct_divisor.unwrap_or(PctDivisor::Pairs),
            dispatch_offset: self.dispatch_offset.unwrap_or(true),
        }
    }
}

/// The default RAD period of a stream's reservation: the seed gives none.
/// 10 ms holds 76 datagrams of 8 KiB at 500 Mb/s, enough that a window's
/// budget is more than a couple of packets, and is short against the
/// seed's two-second runs.
pub const DEFAULT_PERIOD: Time = Time::from_ms(10);
