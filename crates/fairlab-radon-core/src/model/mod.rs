//! Queue-depth models: each turns the receiver's view of a stream (send and
//! receive timestamps in arrival order) into an estimate of the bottleneck
//! queue's depth in packets and its trend. One module per model; [`Model`]
//! holds any of them without dynamic dispatch.

pub mod basic;
pub mod median5;
pub mod pathload;

pub use basic::{Basic, BasicReading};
pub use median5::Median5;
pub use pathload::{pathload_trend, Pathload, PathloadTrend, PctDivisor};

/// Direction of the queue as a trend test sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trend {
    /// The delays rise: the queue is filling.
    Increasing,
    /// The delays show no rise.
    NoTrend,
    /// Between the two thresholds.
    Ambiguous,
    /// Not enough data for the test (e.g. fewer than 5 groups), or a model
    /// that has no trend test.
    Unknown,
}

impl Trend {
    /// The one-byte wire code of the feedback encoding.
    pub fn code(self) -> u8 {
        match self {
            Trend::Increasing => 1,
            Trend::NoTrend => 2,
            Trend::Ambiguous => 3,
            Trend::Unknown => 0,
        }
    }

    /// Inverse of [`Trend::code`]; `None` for a code no version defines.
    pub fn from_code(code: u8) -> Option<Trend> {
        match code {
            0 => Some(Trend::Unknown),
            1 => Some(Trend::Increasing),
            2 => Some(Trend::NoTrend),
            3 => Some(Trend::Ambiguous),
            _ => None,
        }
    }

    /// Lower-case name for tables: "increasing", "no_trend", "ambiguous",
    /// "unknown".
    pub fn name(self) -> &'static str {
        match self {
            Trend::Increasing => "increasing",
            Trend::NoTrend => "no_trend",
            Trend::Ambiguous => "ambiguous",
            Trend::Unknown => "unknown",
        }
    }
}

/// One model's reading of the queue. What `depth_pkts` means is documented
/// per model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Queue depth in packets of the model's service time.
    pub depth_pkts: f64,
    /// The model's trend.
    pub trend: Trend,
}

/// Which model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ModelKind {
    /// TCP Santa Cruz's ΣRFD / (L/C) over an interval.
    Basic,
    /// Pathload's trains, group medians, PCT and PDT.
    Pathload,
    /// The seed's continuous median of five with a sliding trend (default:
    /// the model the seed's adaptive runs steered by).
    #[default]
    Median5,
}

/// Any one model (an enum, so the per-datagram path has no dynamic dispatch).
#[derive(Clone, Debug)]
pub enum Model {
    /// See [`Basic`].
    Basic(Basic),
    /// See [`Pathload`].
    Pathload(Pathload),
    /// See [`Median5`].
    Median5(Median5),
}

impl Model {
    /// A model with its default parameters; `service_ps` is L/C, the mean
    /// service time of one packet at the bottleneck, the unit of depth.
    pub fn new(kind: ModelKind, service_ps: i64) -> Model {
        match kind {
            ModelKind::Basic => Model::Basic(Basic::new(service_ps)),
            ModelKind::Pathload => Model::Pathload(Pathload::new(service_ps)),
            ModelKind::Median5 => Model::Median5(Median5::new(service_ps)),
        }
    }

    /// Which model this is.
    pub fn kind(&self) -> ModelKind {
        match self {
            Model::Basic(_) => ModelKind::Basic,
            Model::Pathload(_) => ModelKind::Pathload,
            Model::Median5(_) => ModelKind::Median5,
        }
    }

    /// One datagram's send and receive timestamps (receiver's view, in
    /// arrival order; gaps in frame numbers are losses and need no call).
    /// Returns a fresh estimate when the model completes one (an interval, a
    /// train, a group of five).
    pub fn observe(&mut self, sent_ps: i64, recv_ps: i64) -> Option<Estimate> {
        match self {
            Model::Basic(m) => m.observe(sent_ps, recv_ps),
            Model::Pathload(m) => m.observe(sent_ps, recv_ps),
            Model::Median5(m) => m.observe(sent_ps, recv_ps),
        }
    }

    /// The latest estimate, if any.
    pub fn last(&self) -> Option<Estimate> {
        match self {
            Model::Basic(m) => m.last(),
            Model::Pathload(m) => m.last(),
            Model::Median5(m) => m.last(),
        }
    }
}

/// Converts a delay to packets of `service_ps` (≥ 1 ps).
pub(crate) fn delay_to_pkts(delay_ps: f64, service_ps: i64) -> f64 {
    delay_ps / service_ps.max(1) as f64
}
