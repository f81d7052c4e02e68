//! Barrier-synchronized striped reads (the incast workload of Phanishayee et
//! al., FAST'08, and of the fine-grained RTO work).
//!
//! One client holds a persistent connection to each of N servers. A round:
//! the client sends every server a small request at the same instant; each
//! server answers with its share of the block (its SRU); the round ends when
//! the last byte of the last reply has arrived (the barrier), and the next
//! round starts at once.

use super::AppAction;
use crate::engine::Rng;
use crate::net::NodeId;
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundRecord {
    pub round: u32,
    pub start: Time,
    pub end: Time,
    pub bytes: u64,
    /// Index of the server whose reply completed last.
    pub slowest: u32,
    /// Retransmission timeouts on the workload's connections during the round.
    pub timeouts: u64,
}

#[derive(Clone, Debug)]
pub struct Incast {
    pub id: u32,
    pub start: Time,
    pub client: NodeId,
    pub servers: Vec<NodeId>,
    /// Connection of each server.
    pub conns: Vec<u32>,
    /// Reply size of each server.
    pub sru: Vec<u64>,
    pub request: u64,
    pub rounds: u32,
    pub jitter: Time,
    rng: Rng,
    established: usize,
    round_start: Time,
    /// Reply bytes received from each server this round.
    received: Vec<u64>,
    /// Request bytes received by each server, all rounds.
    requested: Vec<u64>,
    /// Requests each server has answered.
    answered: Vec<u32>,
    done: usize,
    pub records: Vec<RoundRecord>,
    pub finished: bool,
    /// A connection aborted after too many timeouts.
    pub aborted: bool,
    /// Timeouts counted before the current round (kept by the simulator).
    pub timeouts_mark: u64,
    /// Records whose timeouts the simulator has filled in.
    pub records_accounted: usize,
}

impl Incast {
    /// Charges the timeouts of the workload's connections since the last
    /// completed round to the round just completed (once per round).
    pub fn account_timeouts(&mut self, timeouts: &dyn Fn(u32) -> u64) {
        if self.records_accounted < self.records.len() {
            let total: u64 = self.conns.iter().map(|&c| timeouts(c)).sum();
            let last = self.records.len() - 1;
            self.records[last].timeouts = total - self.timeouts_mark;
            self.timeouts_mark = total;
            self.records_accounted = self.records.len();
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        start: Time,
        client: NodeId,
        servers: Vec<NodeId>,
        conns: Vec<u32>,
        sru: Vec<u64>,
        request: u64,
        rounds: u32,
        jitter: Time,
        rng: Rng,
    ) -> Incast {
        let n = servers.len();
        Incast {
            id,
            start,
            client,
            servers,
            conns,
            sru,
            request,
            rounds,
            jitter,
            rng,
            established: 0,
            round_start: Time::ZERO,
            received: vec![0; n],
            requested: vec![0; n],
            answered: vec![0; n],
            done: 0,
            records: Vec::new(),
            finished: false,
            aborted: false,
            timeouts_mark: 0,
            records_accounted: 0,
        }
    }

    /// Splits a block over `n` servers: the first `block % n` get one byte more.
    pub fn split_block(block: u64, n: usize) -> Vec<u64> {
        let n64 = n as u64;
        (0..n64)
            .map(|i| block / n64 + u64::from(i < block % n64))
            .collect()
    }

    pub fn start(&mut self, _now: Time, acts: &mut Vec<AppAction>) {
        for &c in &self.conns {
            acts.push(AppAction::Connect { conn: c });
        }
    }

    pub fn on_established(&mut self, _i: u32, passive: bool, now: Time, acts: &mut Vec<AppAction>) {
        if passive {
            return;
        }
        self.established += 1;
        if self.established == self.conns.len() {
            self.begin_round(now, acts);
        }
    }

    fn begin_round(&mut self, now: Time, acts: &mut Vec<AppAction>) {
        self.round_start = now;
        self.done = 0;
        self.received.iter_mut().for_each(|r| *r = 0);
        for &c in &self.conns {
            acts.push(AppAction::Write {
                conn: c,
                passive: false,
                bytes: self.request,
            });
        }
    }

    pub fn on_delivered(
        &mut self,
        i: u32,
        passive: bool,
        bytes: u64,
        now: Time,
        acts: &mut Vec<AppAction>,
    ) {
        let i = i as usize;
        if passive {
            // At a server: answer each complete request.
            self.requested[i] += bytes;
            while self.requested[i] >= (self.answered[i] as u64 + 1) * self.request {
                self.answered[i] += 1;
                if self.jitter > Time::ZERO {
                    let delay = Time(self.rng.below_inclusive(self.jitter.0));
                    acts.push(AppAction::WakeUp {
                        workload: self.id,
                        delay,
                        token: i as u32,
                    });
                } else {
                    self.respond(i, acts);
                }
            }
            return;
        }
        // At the client: count reply bytes toward the barrier.
        self.received[i] += bytes;
        if self.received[i] == self.sru[i] {
            self.done += 1;
            if self.done == self.conns.len() {
                self.records.push(RoundRecord {
                    round: self.records.len() as u32,
                    start: self.round_start,
                    end: now,
                    bytes: self.sru.iter().sum(),
                    slowest: i as u32,
                    timeouts: 0,
                });
                if self.records.len() as u32 == self.rounds {
                    self.finished = true;
                } else {
                    self.begin_round(now, acts);
                }
            }
        }
    }

    fn respond(&mut self, i: usize, acts: &mut Vec<AppAction>) {
        acts.push(AppAction::Write {
            conn: self.conns[i],
            passive: true,
            bytes: self.sru[i],
        });
    }

    pub fn on_wakeup(&mut self, token: u32, _now: Time, acts: &mut Vec<AppAction>) {
        self.respond(token as usize, acts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_split_sums_to_block() {
        let v = Incast::split_block(1 << 20, 47);
        assert_eq!(v.iter().sum::<u64>(), 1 << 20);
        assert!(v.iter().max().unwrap() - v.iter().min().unwrap() <= 1);
    }
}
