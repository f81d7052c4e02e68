//! The basic model, TCP Santa Cruz's (seed §4.3): the RFDs of consecutive
//! received datagrams summed over an interval, divided by the mean service
//! time of a packet at the bottleneck, N = ΣRFD / (L/C).
//!
//! Depth reading. Santa Cruz itself accumulates the per-interval change into
//! a running depth (n ← n + Δn). The seed's formula is the per-interval sum
//! alone, and its figures say the basic model "stays close to zero" while the
//! queue fills and drains, which is what the per-interval sum does (it is the
//! queue's growth during the interval, zero on a standing queue). The default
//! reading is therefore [`BasicReading::Interval`]: depth = the number of
//! packets the queue grew by during the interval (negative when it drained).
//! [`BasicReading::Cumulative`] is Santa Cruz's running sum, floored at zero
//! (a queue has no negative depth), which assumes the queue was empty when the
//! stream's first datagram arrived.
//!
//! Trend: Santa Cruz has no trend test, so this model's trend is always
//! [`Trend::Unknown`].
//!
//! The interval is `interval_pkts` RFDs (default 5, the seed's feedback group
//! of five); each received datagram after the first contributes the RFD
//! against the datagram received before it, so consecutive intervals tile the
//! stream with no pair left out.

use super::{delay_to_pkts, Estimate, Trend};
use crate::rfd::rfd_ps;

/// How the per-interval sums become a depth (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BasicReading {
    /// Depth = ΣRFD over the last interval / (L/C) (default, the seed's
    /// formula).
    #[default]
    Interval,
    /// Santa Cruz's running depth: the per-interval values summed since the
    /// first datagram, floored at 0.
    Cumulative,
}

/// Default RFDs per interval.
pub const DEFAULT_INTERVAL_PKTS: u32 = 5;

/// TCP Santa Cruz's queue model.
#[derive(Clone, Debug)]
pub struct Basic {
    service_ps: i64,
    interval_pkts: u32,
    reading: BasicReading,
    prev: Option<(i64, i64)>,
    sum_rfd_ps: i64,
    count: u32,
    cumulative_pkts: f64,
    last: Option<Estimate>,
}

impl Basic {
    /// The default model: interval of 5 RFDs, [`BasicReading::Interval`].
    pub fn new(service_ps: i64) -> Basic {
        Basic::with(service_ps, DEFAULT_INTERVAL_PKTS, BasicReading::Interval)
    }

    /// A model with an explicit interval (at least 1 RFD) and reading.
    pub fn with(service_ps: i64, interval_pkts: u32, reading: BasicReading) -> Basic {
        Basic {
            service_ps,
            interval_pkts: interval_pkts.max(1),
            reading,
            prev: None,
            sum_rfd_ps: 0,
            count: 0,
            cumulative_pkts: 0.0,
            last: None,
        }
    }

    /// One datagram (arrival order). Returns an estimate each time an
    /// interval of `interval_pkts` RFDs completes.
    pub fn observe(&mut self, sent_ps: i64, recv_ps: i64) -> Option<Estimate> {
        let prev = self.prev.replace((sent_ps, recv_ps));
        let (sent_i, recv_i) = prev?;
        self.sum_rfd_ps += rfd_ps(sent_i, recv_i, sent_ps, recv_ps);
        self.count += 1;
        if self.count < self.interval_pkts {
            return None;
        }
        let interval_pkts = delay_to_pkts(self.sum_rfd_ps as f64, self.service_ps);
        self.sum_rfd_ps = 0;
        self.count = 0;
        let depth_pkts = match self.reading {
            BasicReading::Interval => interval_pkts,
            BasicReading::Cumulative => {
                self.cumulative_pkts = (self.cumulative_pkts + interval_pkts).max(0.0);
                self.cumulative_pkts
            }
        };
        let estimate = Estimate {
            depth_pkts,
            trend: Trend::Unknown,
        };
        self.last = Some(estimate);
        Some(estimate)
    }

    /// The latest estimate.
    pub fn last(&self) -> Option<Estimate> {
        self.last
    }
}
