//! The receiving host's algorithm: timestamps in, feedback out. It runs all
//! three queue models on every datagram (so tables and figures can compare
//! them, as the seed's Figures 5.2–5.9 do) and lets one of them drive the
//! feedback.
//!
//! Readings taken:
//! - Frames are numbered from 0; a first arrival with frame f counts frames
//!   0..f as lost.
//! - Loss is counted by gaps in frame numbers. A late frame (below the highest
//!   seen) un-counts one loss. A frame seen twice within the last
//!   [`DUPLICATE_WINDOW_FRAMES`] frames is a duplicate and ignored entirely;
//!   a late frame older than that window cannot be told from a duplicate and
//!   is taken as late.
//! - Models see datagrams in arrival order, late ones included.
//! - `congested` = the driving model's latest depth ≥ `congested_depth_pkts`
//!   (the seed's prototype steered by the modeled depth); the trend is
//!   reported but does not decide congestion. Before the driving model's
//!   first estimate the feedback says depth 0, trend Unknown, not congested.

pub use crate::feedback::{DecodeError, Feedback};
use crate::model::pathload::DEFAULT_TRAIN_PKTS;
use crate::model::{Basic, Estimate, Median5, ModelKind, Pathload, PctDivisor, Trend};
use crate::rfd::rfd_ps;

/// Frames of history kept to tell duplicates from late frames.
pub const DUPLICATE_WINDOW_FRAMES: u64 = 1024;
const WINDOW_WORDS: usize = (DUPLICATE_WINDOW_FRAMES / 64) as usize;

/// Default datagrams per feedback.
pub const DEFAULT_FEEDBACK_EVERY: u32 = 5;
/// Default congestion threshold in packets.
pub const DEFAULT_CONGESTED_DEPTH_PKTS: f64 = 1.0;

/// How the receiver models the queue and when it reports.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReceiverConfig {
    /// L/C, the unit of depth.
    pub service_ps: i64,
    /// The model that drives feedback.
    pub model: ModelKind,
    /// Datagrams received per feedback (0 is taken as 1).
    pub feedback_every: u32,
    /// Depth at or above which the feedback says congested.
    pub congested_depth_pkts: f64,
    /// What the Pathload model's PCT divides by.
    pub pct_divisor: PctDivisor,
    /// Run all three models (for series and figures that compare them);
    /// false runs only the one that drives feedback, which alone decides
    /// what the receiver says: the feedback is the same either way.
    pub all_models: bool,
}

impl ReceiverConfig {
    /// Defaults: Median5 drives, feedback every 5 datagrams, congested at 1
    /// packet.
    pub fn new(service_ps: i64) -> ReceiverConfig {
        ReceiverConfig {
            service_ps,
            model: ModelKind::Median5,
            feedback_every: DEFAULT_FEEDBACK_EVERY,
            congested_depth_pkts: DEFAULT_CONGESTED_DEPTH_PKTS,
            pct_divisor: PctDivisor::default(),
            all_models: true,
        }
    }
}

/// What the models made of one datagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    /// The datagram's frame number.
    pub frame: u64,
    /// RFD against the datagram received before it (None for the first, and
    /// for a duplicate).
    pub rfd_ps: Option<i64>,
    /// A fresh basic estimate, when this datagram completed one.
    pub basic: Option<Estimate>,
    /// A fresh Pathload estimate, when this datagram completed a train.
    pub pathload: Option<Estimate>,
    /// A fresh median-of-five estimate, when this datagram completed a group.
    pub median5: Option<Estimate>,
}

/// The receiver of one stream.
#[derive(Clone, Debug)]
pub struct Receiver {
    cfg: ReceiverConfig,
    basic: Basic,
    pathload: Pathload,
    median5: Median5,
    prev: Option<(i64, i64)>,
    highest: Option<u64>,
    seen: [u64; WINDOW_WORDS],
    received: u64,
    lost: u64,
    since_feedback: u32,
}

impl Receiver {
    /// A receiver with no datagram yet.
    pub fn new(cfg: ReceiverConfig) -> Receiver {
        Receiver {
            cfg,
            basic: Basic::new(cfg.service_ps),
            pathload: Pathload::with(cfg.service_ps, DEFAULT_TRAIN_PKTS, cfg.pct_divisor),
            median5: Median5::new(cfg.service_ps),
            prev: None,
            highest: None,
            seen: [0; WINDOW_WORDS],
            received: 0,
            lost: 0,
            since_feedback: 0,
        }
    }

    /// A datagram arrives. Returns what the models saw and, every
    /// `feedback_every` datagrams, the feedback to send.
    pub fn on_datagram(
        &mut self,
        frame: u64,
        sent_ps: i64,
        recv_ps: i64,
    ) -> (Observation, Option<Feedback>) {
        let mut obs = Observation {
            frame,
            rfd_ps: None,
            basic: None,
            pathload: None,
            median5: None,
        };
        if !self.count_frame(frame) {
            return (obs, None);
        }
        if let Some((sent_i, recv_i)) = self.prev.replace((sent_ps, recv_ps)) {
            obs.rfd_ps = Some(rfd_ps(sent_i, recv_i, sent_ps, recv_ps));
        }
        let (all, driver) = (self.cfg.all_models, self.cfg.model);
        if all || driver == ModelKind::Basic {
            obs.basic = self.basic.observe(sent_ps, recv_ps);
        }
        if all || driver == ModelKind::Pathload {
            obs.pathload = self.pathload.observe(sent_ps, recv_ps);
        }
        if all || driver == ModelKind::Median5 {
            obs.median5 = self.median5.observe(sent_ps, recv_ps);
        }
        self.since_feedback += 1;
        if self.since_feedback < self.cfg.feedback_every.max(1) {
            return (obs, None);
        }
        self.since_feedback = 0;
        (obs, Some(self.feedback()))
    }

    /// Updates received/lost for `frame`; false for a duplicate.
    fn count_frame(&mut self, frame: u64) -> bool {
        let Some(highest) = self.highest else {
            self.highest = Some(frame);
            self.lost = frame;
            self.received = 1;
            self.set_seen(frame);
            return true;
        };
        if frame > highest {
            self.clear_seen(highest + 1, frame);
            self.lost += frame - highest - 1;
            self.highest = Some(frame);
        } else {
            let in_window = highest - frame < DUPLICATE_WINDOW_FRAMES;
            if in_window && self.is_seen(frame) {
                return false;
            }
            self.lost = self.lost.saturating_sub(1);
        }
        self.set_seen(frame);
        self.received += 1;
        true
    }

    fn bit(frame: u64) -> (usize, u64) {
        let slot = frame % DUPLICATE_WINDOW_FRAMES;
        ((slot / 64) as usize, 1u64 << (slot % 64))
    }

    fn is_seen(&self, frame: u64) -> bool {
        let (word, mask) = Self::bit(frame);
        self.seen[word] & mask != 0
    }

    fn set_seen(&mut self, frame: u64) {
        let (word, mask) = Self::bit(frame);
        self.seen[word] |= mask;
    }

    /// Forgets frames `from..=to` (their slots are reused by the new range).
    fn clear_seen(&mut self, from: u64, to: u64) {
        if to - from >= DUPLICATE_WINDOW_FRAMES {
            self.seen = [0; WINDOW_WORDS];
            return;
        }
        for frame in from..=to {
            let (word, mask) = Self::bit(frame);
            self.seen[word] &= !mask;
        }
    }

    /// The feedback as of now, from the driving model's latest estimate.
    pub fn feedback(&self) -> Feedback {
        let estimate = self.driving_estimate();
        let depth_pkts = estimate.map_or(0.0, |e| e.depth_pkts);
        Feedback {
            frame: self.highest.unwrap_or(0),
            depth_milli_pkts: (depth_pkts * 1000.0).round() as i64,
            trend: estimate.map_or(Trend::Unknown, |e| e.trend),
            congested: estimate.is_some_and(|e| e.depth_pkts >= self.cfg.congested_depth_pkts),
            received: self.received,
            lost: self.lost,
        }
    }

    fn driving_estimate(&self) -> Option<Estimate> {
        match self.cfg.model {
            ModelKind::Basic => self.basic.last(),
            ModelKind::Pathload => self.pathload.last(),
            ModelKind::Median5 => self.median5.last(),
        }
    }

    /// The latest estimate of each model: (basic, pathload, median5).
    pub fn estimates(&self) -> (Option<Estimate>, Option<Estimate>, Option<Estimate>) {
        (self.basic.last(), self.pathload.last(), self.median5.last())
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &ReceiverConfig {
        &self.cfg
    }

    /// Datagrams received (duplicates not counted).
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Datagrams lost, by gaps in frame numbers.
    pub fn lost(&self) -> u64 {
        self.lost
    }
}

#[cfg(test)]
mod driving_only_tests {
    use super::*;

    /// Running only the driving model changes no feedback: the others
    /// never enter it.
    #[test]
    fn the_feedback_is_the_same_with_one_model_or_three() {
        for model in [ModelKind::Basic, ModelKind::Pathload, ModelKind::Median5] {
            let cfg = ReceiverConfig {
                model,
                ..ReceiverConfig::new(66_000_000)
            };
            let mut all = Receiver::new(cfg);
            let mut one = Receiver::new(ReceiverConfig {
                all_models: false,
                ..cfg
            });
            let mut queue_ps = 0i64;
            for frame in 0..2_000u64 {
                let sent = frame as i64 * 60_000_000;
                // A queue that grows, then drains, with a loss now and then.
                queue_ps = (queue_ps + if frame < 1_000 { 6_000_000 } else { -9_000_000 }).max(0);
                if frame % 97 == 13 {
                    continue;
                }
                let recv = sent + 5_000_000 + queue_ps;
                let (oa, fa) = all.on_datagram(frame, sent, recv);
                let (oo, fo) = one.on_datagram(frame, sent, recv);
                assert_eq!(fa, fo, "{model:?} frame {frame}");
                assert_eq!(oa.rfd_ps, oo.rfd_ps);
            }
        }
    }
}
