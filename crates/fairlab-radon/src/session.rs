//! The I/O-free drivers of one stream: [`SendSession`] around the core's
//! [`Sender`], [`RecvSession`] around its [`Receiver`]. The socket loops
//! call only these, with times already read; all arithmetic is the core's
//! signed picoseconds (the sender's on CLOCK_MONOTONIC from the run's t0,
//! the stamps on CLOCK_REALTIME ns × 1000). Their stop rules are the
//! simulator's `RadonFlow`'s, so both drivers decide alike (the decision
//! test, tests/decisions.rs).

use crate::stamp::StampSource;
use crate::wire::DataHeader;
use fairlab_radon_core::trace::Event;
use fairlab_radon_core::{DecodeError, Feedback, Receiver, ReceiverConfig, Sender, SenderConfig};

/// A datagram the sender must send now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    pub frame: u64,
    /// The sender's wait when it sent, ns (carried in the header).
    pub wait_ns: i64,
}

/// One sent datagram's pacing: intended against actual, run ps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacingRow {
    pub frame: u64,
    pub intended_ps: i64,
    pub sent_ps: i64,
}

/// The sending end of one stream.
#[derive(Clone, Debug)]
pub struct SendSession {
    pub id: u32,
    sender: Sender,
    /// No poll at or after this instant (the stream's stop).
    stop_ps: i64,
    /// Datagrams in all.
    limit: u64,
    sent: u64,
    /// When the next poll is due (None: the stream is over).
    due_ps: Option<i64>,
    pub pacing: Vec<PacingRow>,
    pub wait_sum_ns: i128,
    pub feedback_received: u64,
    pub feedback_malformed: u64,
    pub trace: Option<Vec<Event>>,
}

impl SendSession {
    /// A stream whose first poll is at `start_ps`, stopping at `stop_ps` or
    /// after `limit` datagrams.
    pub fn new(id: u32, cfg: SenderConfig, start_ps: i64, stop_ps: i64, limit: u64) -> Self {
        let due = (start_ps < stop_ps && limit > 0).then_some(start_ps);
        SendSession {
            id,
            sender: Sender::new(cfg, start_ps),
            stop_ps,
            limit,
            sent: 0,
            due_ps: due,
            pacing: Vec::new(),
            wait_sum_ns: 0,
            feedback_received: 0,
            feedback_malformed: 0,
            trace: None,
        }
    }

    /// Records a decision trace from now on.
    pub fn with_trace(mut self) -> Self {
        self.trace = Some(Vec::new());
        self
    }

    /// When the next poll is due; None once the stream is over.
    pub fn due_ps(&self) -> Option<i64> {
        self.due_ps
    }

    /// The poll at `now_ps` (at or after [`SendSession::due_ps`]) with the
    /// driver's uniform draw: the datagrams to send now, in order. The
    /// caller stamps each as it sends it ([`SendSession::sent_at`]).
    pub fn poll(&mut self, now_ps: i64, u01: f64, out: &mut Vec<Send>) {
        out.clear();
        let Some(intended_ps) = self.due_ps.take() else {
            return;
        };
        if self.sent >= self.limit || now_ps >= self.stop_ps {
            return;
        }
        let d = self.sender.poll(now_ps, u01);
        if let Some(t) = self.trace.as_mut() {
            t.push(Event::Poll { at_ps: now_ps, u01 });
            t.push(Event::Dispatch {
                packets: d.packets,
                next_ps: d.next_ps,
            });
        }
        let wait_ns = self.sender.wait_ps() / 1000;
        for _ in 0..d.packets {
            if self.sent >= self.limit {
                break;
            }
            out.push(Send {
                frame: self.sent,
                wait_ns,
            });
            self.pacing.push(PacingRow {
                frame: self.sent,
                intended_ps,
                sent_ps: now_ps,
            });
            self.wait_sum_ns += i128::from(wait_ns);
            self.sent += 1;
        }
        if self.sent < self.limit {
            let next = d.next_ps.max(now_ps + 1);
            if next < self.stop_ps {
                self.due_ps = Some(next);
            }
        }
    }

    /// Makes a poll due at `at_ps` whatever the session decided (a replay
    /// feeds the recorded poll instants).
    pub fn force_due(&mut self, at_ps: i64) {
        self.due_ps = Some(at_ps);
    }

    /// The instant datagram `frame` actually left (the pacing row's).
    pub fn sent_at(&mut self, frame: u64, sent_ps: i64) {
        if let Some(row) = self.pacing.iter_mut().rev().find(|r| r.frame == frame) {
            row.sent_ps = sent_ps;
        }
    }

    /// A feedback datagram arrived at `now_ps`.
    pub fn on_feedback(&mut self, now_ps: i64, bytes: &[u8]) -> Result<(), DecodeError> {
        let fb = match Feedback::decode(bytes) {
            Ok(fb) => fb,
            Err(e) => {
                self.feedback_malformed += 1;
                return Err(e);
            }
        };
        self.feedback_received += 1;
        self.sender.on_feedback(now_ps, &fb);
        if let Some(t) = self.trace.as_mut() {
            t.push(Event::Arrival {
                at_ps: now_ps,
                bytes: fb.to_bytes().to_vec(),
            });
            t.push(Event::Wait {
                wait_ps: self.sender.wait_ps(),
            });
        }
        Ok(())
    }

    pub fn sent(&self) -> u64 {
        self.sent
    }
    pub fn sender(&self) -> &Sender {
        &self.sender
    }
}

/// One received datagram as the receiver recorded it (what it returns to
/// the sender at the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub frame: u64,
    pub sent_ns: i64,
    pub recv_ns: i64,
    pub wait_ns: i64,
    pub source: StampSource,
}

/// The receiving end of one stream.
#[derive(Clone, Debug)]
pub struct RecvSession {
    pub id: u32,
    receiver: Receiver,
    /// Records kept at most (the sender's announced bound).
    cap: usize,
    pub records: Vec<Record>,
    /// Datagrams beyond the cap (a sender that broke its bound).
    pub over_cap: u64,
    pub feedback_sent: u64,
    pub trace: Option<Vec<Event>>,
    /// CLOCK_REALTIME ns that the core's ps count from.
    epoch_ns: i64,
}

impl RecvSession {
    /// A stream's receiver; its stamps reach the core as ps after
    /// `epoch_ns` (the sender's, from the hello).
    pub fn new(id: u32, cfg: ReceiverConfig, cap: usize, epoch_ns: i64) -> Self {
        RecvSession {
            id,
            epoch_ns,
            receiver: Receiver::new(cfg),
            cap,
            records: Vec::with_capacity(cap.min(1 << 16)),
            over_cap: 0,
            feedback_sent: 0,
            trace: None,
        }
    }

    pub fn with_trace(mut self) -> Self {
        self.trace = Some(Vec::new());
        self
    }

    /// A data datagram stamped `recv_ns` by `source`: the feedback to
    /// return to its source, when the core says one is due.
    pub fn on_datagram(
        &mut self,
        h: &DataHeader,
        recv_ns: i64,
        source: StampSource,
    ) -> Option<Feedback> {
        if self.records.len() >= self.cap {
            self.over_cap += 1;
            return None;
        }
        self.records.push(Record {
            frame: h.frame,
            sent_ns: h.sent_ns,
            recv_ns,
            wait_ns: h.wait_ns,
            source,
        });
        let (sent_ps, recv_ps) = (
            stamp_ps(h.sent_ns, self.epoch_ns),
            stamp_ps(recv_ns, self.epoch_ns),
        );
        self.on_stamps(h.frame, sent_ps, recv_ps)
    }

    /// The core's step on one datagram's stamps (ps), traced.
    pub fn on_stamps(&mut self, frame: u64, sent_ps: i64, recv_ps: i64) -> Option<Feedback> {
        let (_, fb) = self.receiver.on_datagram(frame, sent_ps, recv_ps);
        if let Some(t) = self.trace.as_mut() {
            t.push(Event::Datagram {
                frame,
                sent_ps,
                recv_ps,
            });
            if let Some(fb) = fb {
                t.push(Event::Feedback {
                    bytes: fb.to_bytes().to_vec(),
                });
            }
        }
        self.feedback_sent += u64::from(fb.is_some());
        fb
    }

    pub fn receiver(&self) -> &Receiver {
        &self.receiver
    }
}

/// A CLOCK_REALTIME stamp as the core's picoseconds after `epoch_ns`
/// (saturating: 106 days either side of the epoch fit).
pub fn stamp_ps(ns: i64, epoch_ns: i64) -> i64 {
    ns.saturating_sub(epoch_ns).saturating_mul(1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairlab_radon_core::{Mode, Reservation};

    fn cfg(wait_ps: i64) -> SenderConfig {
        SenderConfig {
            reservation: Reservation {
                utilization: 0.1,
                period_ps: 10_000_000_000,
            },
            packet_service_ps: 12_000_000,
            wait_ps,
            mode: Mode::NonAdaptive,
        }
    }

    #[test]
    fn a_paced_session_stops_at_its_count_and_records_lateness() {
        let mut s = SendSession::new(3, cfg(100_000_000), 0, i64::MAX, 3);
        let mut out = Vec::new();
        let mut frames = Vec::new();
        while let Some(due) = s.due_ps() {
            s.poll(due + 2_000_000, 0.0, &mut out);
            frames.extend(out.iter().map(|x| x.frame));
        }
        assert_eq!(frames, vec![0, 1, 2]);
        // Each send is 2 µs late, and the next is due a wait after it.
        assert_eq!(s.pacing[1].intended_ps, 102_000_000);
        assert_eq!(s.pacing[1].sent_ps - s.pacing[1].intended_ps, 2_000_000);
    }

    #[test]
    fn a_session_stops_before_its_stop_instant() {
        let mut s = SendSession::new(0, cfg(100_000_000), 0, 250_000_000, u64::MAX);
        let mut out = Vec::new();
        let mut n = 0;
        while let Some(due) = s.due_ps() {
            s.poll(due, 0.0, &mut out);
            n += out.len();
        }
        assert_eq!(n, 3); // at 0, 100 and 200 µs; 300 µs is past the stop
        assert!(SendSession::new(0, cfg(1), 5, 5, 10).due_ps().is_none());
    }

    #[test]
    fn a_receiver_session_answers_every_feedback_every_and_keeps_its_cap() {
        let mut r = RecvSession::new(1, ReceiverConfig::new(12_000_000), 12, 0);
        let mut fbs = 0;
        for frame in 0..15u64 {
            let h = DataHeader {
                stream: 1,
                frame,
                sent_ns: frame as i64 * 100_000,
                wait_ns: 100_000,
            };
            fbs += r
                .on_datagram(&h, h.sent_ns + 30_000, StampSource::Kernel)
                .is_some() as u32;
        }
        assert_eq!((fbs, r.records.len(), r.over_cap), (2, 12, 3));
        assert_eq!(r.feedback_sent, 2);
    }

    #[test]
    fn todays_stamps_reach_the_core_unsaturated() {
        // CLOCK_REALTIME ns × 1000 is beyond i64: the epoch keeps RFD exact.
        let epoch = 1_790_000_000_000_000_000i64;
        let mut r = RecvSession::new(0, ReceiverConfig::new(12_000_000), 10, epoch).with_trace();
        for frame in 0..2u64 {
            let sent = epoch + 5_000 + frame as i64 * 100_000;
            let h = DataHeader {
                stream: 0,
                frame,
                sent_ns: sent,
                wait_ns: 100_000,
            };
            r.on_datagram(&h, sent + 30_000 + frame as i64 * 7, StampSource::Kernel);
        }
        let t = r.trace.unwrap();
        assert_eq!(
            t[1],
            Event::Datagram {
                frame: 1,
                sent_ps: 105_000_000,
                recv_ps: 135_007_000
            }
        );
        assert_eq!(stamp_ps(i64::MAX, -1), i64::MAX);
    }

    #[test]
    fn malformed_feedback_is_counted_and_changes_nothing() {
        let mut s = SendSession::new(0, cfg(100_000_000), 0, i64::MAX, 10);
        assert!(s.on_feedback(5, b"RDFB\x02").is_err());
        assert_eq!((s.feedback_malformed, s.feedback_received), (1, 0));
    }
}
