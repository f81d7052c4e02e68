//! The Pathload model (seed §3.2, §4.3; Jain and Dovrolis): trains of K
//! datagrams (default 100), split into groups of ⌊√K⌋, the median relative
//! one-way delay of each group, and two trend tests on the Γ medians:
//!
//! - PCT = #{x_i < x_{i+1}} / divisor, the fraction of rising pairs;
//! - PDT = (x_Γ − x_1) / Σ|x_i − x_{i−1}|, net rise over total movement.
//!
//! Thresholds, as the issue fixes them (1.1× and 0.9× Pathload's 0.55 and
//! 0.4): increasing when PCT > 0.605 or PDT > 0.44; no trend when PCT < 0.495
//! and PDT < 0.36 (both below); ambiguous otherwise; with fewer than 5 groups
//! the train is discarded ([`Trend::Unknown`]).
//!
//! Readings taken:
//! - Divisor of PCT: [`PctDivisor::PairsGammaMinusOne`] by default (see there).
//! - Γ = ⌊K / ⌊√K⌋⌋ groups; the K mod ⌊√K⌋ datagrams at the end of a train
//!   that fill no group are left out. For K = 100: 10 groups of 10.
//! - The median of an even-sized group is the mean of its two middle values.
//! - A train counts received datagrams; a loss neither ends nor voids it.
//! - Depth: the last group median's relative delay above the lowest group
//!   median seen on the stream so far (its baseline: the least-queued delay,
//!   in which the clocks' constant offset cancels), over L/C. Clock skew
//!   between the hosts drifts this baseline; the model does not correct it.

use super::{delay_to_pkts, Estimate, Trend};

/// Default train length K.
pub const DEFAULT_TRAIN_PKTS: usize = 100;
/// PCT above this: increasing (1.1 × 0.55).
pub const PCT_INCREASING: f64 = 0.605;
/// PDT above this: increasing (1.1 × 0.4).
pub const PDT_INCREASING: f64 = 0.44;
/// PCT below this (and PDT below [`PDT_NO_TREND`]): no trend (0.9 × 0.55).
pub const PCT_NO_TREND: f64 = 0.495;
/// PDT below this (and PCT below [`PCT_NO_TREND`]): no trend (0.9 × 0.4).
pub const PDT_NO_TREND: f64 = 0.36;
/// Fewer group medians than this: the train is discarded.
pub const MIN_GROUPS: usize = 5;

/// What PCT's count of rising pairs is divided by.
///
/// Γ medians make Γ − 1 pairs, so the paper's fraction divides by Γ − 1 and a
/// strictly rising sequence scores 1. Pathload 1.3.2's `pathload_rcv_func.c`
/// divides by Γ, which biases PCT low (an i.i.d. sequence scores
/// 0.5·(Γ − 1)/Γ = 0.45 for Γ = 10, not 0.5) and so reads "no trend" more
/// easily. The default is the paper's, `PairsGammaMinusOne`, because the
/// thresholds 1.1 × and 0.9 × 0.55 are placed around the 0.5 an untrending
/// sequence scores under that definition; `Gamma` matches the released code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PctDivisor {
    /// Γ − 1, the number of pairs (the paper's definition; default).
    #[default]
    PairsGammaMinusOne,
    /// Γ (pathload 1.3.2's code).
    Gamma,
}

/// The two statistics and the verdict on a sequence of group medians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathloadTrend {
    /// Pairwise comparison test statistic.
    pub pct: f64,
    /// Pairwise difference test statistic.
    pub pdt: f64,
    /// The verdict.
    pub trend: Trend,
}

/// PCT, PDT and the trend of `medians` (in time order). With fewer than two
/// medians both statistics are 0; with fewer than [`MIN_GROUPS`] the trend is
/// [`Trend::Unknown`]. A sequence that never moves has PDT 0.
pub fn pathload_trend(medians: &[f64], pct_divisor: PctDivisor) -> PathloadTrend {
    let gamma = medians.len();
    let (pct, pdt) = if gamma < 2 {
        (0.0, 0.0)
    } else {
        (pct(medians, pct_divisor), pdt(medians))
    };
    let trend = if gamma < MIN_GROUPS {
        Trend::Unknown
    } else if pct > PCT_INCREASING || pdt > PDT_INCREASING {
        Trend::Increasing
    } else if pct < PCT_NO_TREND && pdt < PDT_NO_TREND {
        Trend::NoTrend
    } else {
        Trend::Ambiguous
    };
    PathloadTrend { pct, pdt, trend }
}

fn pct(medians: &[f64], divisor: PctDivisor) -> f64 {
    let rising = medians.windows(2).filter(|w| w[0] < w[1]).count();
    let denominator = match divisor {
        PctDivisor::PairsGammaMinusOne => medians.len() - 1,
        PctDivisor::Gamma => medians.len(),
    };
    rising as f64 / denominator as f64
}

fn pdt(medians: &[f64]) -> f64 {
    let travel: f64 = medians.windows(2).map(|w| (w[1] - w[0]).abs()).sum();
    if travel == 0.0 {
        return 0.0;
    }
    (medians[medians.len() - 1] - medians[0]) / travel
}

/// Median of a slice (sorted in place); the mean of the two middle values
/// when the length is even. `values` must not be empty.
pub(crate) fn median_in_place(values: &mut [i64]) -> f64 {
    values.sort_unstable();
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2] as f64
    } else {
        (values[n / 2 - 1] as f64 + values[n / 2] as f64) / 2.0
    }
}

/// Pathload's trend analysis applied to consecutive trains of a stream.
#[derive(Clone, Debug)]
pub struct Pathload {
    service_ps: i64,
    train_pkts: usize,
    pct_divisor: PctDivisor,
    /// Relative one-way delays of the train so far (R − S minus the stream's
    /// first R − S, so values stay small).
    train: Vec<i64>,
    medians: Vec<f64>,
    reference_owd_ps: Option<i64>,
    baseline_ps: Option<f64>,
    last_trend: Option<PathloadTrend>,
    last: Option<Estimate>,
}

impl Pathload {
    /// K = 100, [`PctDivisor::PairsGammaMinusOne`].
    pub fn new(service_ps: i64) -> Pathload {
        Pathload::with(service_ps, DEFAULT_TRAIN_PKTS, PctDivisor::default())
    }

    /// A model with an explicit train length (at least 1) and PCT divisor.
    pub fn with(service_ps: i64, train_pkts: usize, pct_divisor: PctDivisor) -> Pathload {
        let train_pkts = train_pkts.max(1);
        let group = group_len(train_pkts);
        Pathload {
            service_ps,
            train_pkts,
            pct_divisor,
            train: Vec::with_capacity(train_pkts),
            medians: Vec::with_capacity(train_pkts / group),
            reference_owd_ps: None,
            baseline_ps: None,
            last_trend: None,
            last: None,
        }
    }

    /// One datagram (arrival order). Returns an estimate when a train of K
    /// completes and has at least [`MIN_GROUPS`] groups; a shorter train is
    /// discarded (no estimate, and [`Pathload::last_trend`] says Unknown).
    pub fn observe(&mut self, sent_ps: i64, recv_ps: i64) -> Option<Estimate> {
        let owd_ps = recv_ps - sent_ps;
        let reference_ps = *self.reference_owd_ps.get_or_insert(owd_ps);
        self.train.push(owd_ps - reference_ps);
        if self.train.len() < self.train_pkts {
            return None;
        }
        let result = self.analyse_train();
        self.train.clear();
        result
    }

    fn analyse_train(&mut self) -> Option<Estimate> {
        let group = group_len(self.train_pkts);
        self.medians.clear();
        for chunk in self.train.chunks_exact_mut(group) {
            self.medians.push(median_in_place(chunk));
        }
        let verdict = pathload_trend(&self.medians, self.pct_divisor);
        self.last_trend = Some(verdict);
        if verdict.trend == Trend::Unknown {
            return None;
        }
        let lowest = self.medians.iter().copied().fold(f64::INFINITY, f64::min);
        let baseline_ps = self.baseline_ps.map_or(lowest, |b| b.min(lowest));
        self.baseline_ps = Some(baseline_ps);
        let newest_ps = self.medians[self.medians.len() - 1];
        let estimate = Estimate {
            depth_pkts: delay_to_pkts(newest_ps - baseline_ps, self.service_ps),
            trend: verdict.trend,
        };
        self.last = Some(estimate);
        Some(estimate)
    }

    /// The statistics of the latest completed train (also of a discarded one).
    pub fn last_trend(&self) -> Option<PathloadTrend> {
        self.last_trend
    }

    /// The latest estimate.
    pub fn last(&self) -> Option<Estimate> {
        self.last
    }
}

/// ⌊√K⌋, computed exactly in integers.
fn group_len(train_pkts: usize) -> usize {
    let mut root = (train_pkts as f64).sqrt() as usize;
    while root * root > train_pkts {
        root -= 1;
    }
    while (root + 1) * (root + 1) <= train_pkts {
        root += 1;
    }
    root.max(1)
}
