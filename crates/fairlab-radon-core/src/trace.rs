//! A decision trace: what a driver fed the algorithm and what the algorithm
//! decided, so that two drivers (the simulator's event loop and the socket
//! agent) can be fed the same inputs and checked for the same decisions
//! (issue 22, item 1). Inputs: a datagram at the receiver (frame, send and
//! receive stamps), a feedback's arrival at the sender, a poll of the
//! sender (its instant and its uniform draw). Decisions: the feedback the
//! receiver emitted after a datagram (its 40 bytes), what a poll dispatched,
//! and the sender's wait after each feedback.

/// One event of a stream's trace, in the order the driver saw them.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case", tag = "ev"))]
pub enum Event {
    /// In, at the receiver.
    Datagram {
        frame: u64,
        sent_ps: i64,
        recv_ps: i64,
    },
    /// Out, at the receiver: the feedback emitted after the datagram before.
    Feedback { bytes: Vec<u8> },
    /// In, at the sender: a feedback arrived.
    Arrival { at_ps: i64, bytes: Vec<u8> },
    /// Out, at the sender: its wait after that feedback.
    Wait { wait_ps: i64 },
    /// In, at the sender: a poll.
    Poll { at_ps: i64, u01: f64 },
    /// Out, at the sender: what that poll dispatched.
    Dispatch { packets: u32, next_ps: i64 },
}

impl Event {
    /// An input event (the rest are decisions).
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Event::Datagram { .. } | Event::Arrival { .. } | Event::Poll { .. }
        )
    }
}

/// One stream's trace: its configuration, then its receiver's and its
/// sender's events (two sequences: the two ends run on two hosts).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StreamTrace {
    pub flow_id: u32,
    pub sender: crate::SenderConfig,
    pub receiver: crate::ReceiverConfig,
    /// The sender's first poll instant (its `start_ps`).
    pub start_ps: i64,
    pub receiver_events: Vec<Event>,
    pub sender_events: Vec<Event>,
}

/// Where a replay's decision differs from the recorded one.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Mismatch {
    pub flow_id: u32,
    /// "receiver" or "sender".
    pub side: String,
    /// Index of the recorded event (the decision) in its sequence.
    pub index: usize,
    pub recorded: Option<Event>,
    pub replayed: Option<Event>,
}

/// Compares a replay's decisions with the recorded ones, in order: each
/// side's decision sequence must match exactly (inputs are what was fed).
pub fn compare(flow_id: u32, side: &str, recorded: &[Event], replayed: &[Event]) -> Vec<Mismatch> {
    let decisions = |evs: &[Event]| -> Vec<(usize, Event)> {
        evs.iter()
            .enumerate()
            .filter(|(_, e)| !e.is_input())
            .map(|(i, e)| (i, e.clone()))
            .collect()
    };
    let (rec, rep) = (decisions(recorded), decisions(replayed));
    let mut out = Vec::new();
    for k in 0..rec.len().max(rep.len()) {
        let (a, b) = (rec.get(k), rep.get(k));
        if a.map(|x| &x.1) != b.map(|x| &x.1) {
            out.push(Mismatch {
                flow_id,
                side: side.to_string(),
                index: a.or(b).map_or(0, |x| x.0),
                recorded: a.map(|x| x.1.clone()),
                replayed: b.map(|x| x.1.clone()),
            });
        }
    }
    out
}
