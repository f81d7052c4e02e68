//! Barrier-synchronized striped reads (the incast workload of Phanishayee et
//! al., FAST'08, and of the fine-grained RTO work).
//!
//! One client holds a persistent connection to each of N servers. A round:
//! the client sends every server a small request at the same instant; each
//! server answers with its share of the block (its SRU); the round ends when
//! the last byte of the last reply has arrived (the barrier), and the next
//! round starts at once.
//!
//! With a warm-up, the client first exchanges one request-sized message with
//! each server in turn, as the ns-2 application of the published simulations
//! does before its first request (github.com/amarp/incast,
//! IncastTcpAppClient::process_init and IncastTcpAppServerStub::send_init:
//! a 100-byte message to one server, its 100-byte answer, then the next
//! server). Every connection thus has an RTT sample from an idle network
//! before the first block, instead of its initial RTO (ns-2's 3 s).

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
    /// Whether the setup exchange runs before the first round.
    pub warmup: bool,
    /// Whether each round's requests go out in a new random order (else
    /// in server order).
    pub random_order: bool,
    /// This round's request order (server indices).
    order: Vec<usize>,
    /// The server the setup exchange is waiting on, while it runs.
    warming: Option<usize>,
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
            warmup: false,
            random_order: false,
            order: (0..n).collect(),
            warming: None,
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

    /// Runs the setup exchange (see the module) before the first round.
    pub fn with_warmup(mut self, warmup: bool) -> Incast {
        self.warmup = warmup;
        self
    }

    /// Sends each round's requests in a new random order (Fisher-Yates
    /// from the workload's own stream, drawn only when this is on, so that
    /// runs without it draw the same numbers as before).
    pub fn with_random_order(mut self, random: bool) -> Incast {
        self.random_order = random;
        self
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
            if self.warmup && !self.conns.is_empty() {
                self.warm(0, acts);
            } else {
                self.begin_round(now, acts);
            }
        }
    }

    /// The setup exchange: ask server `i` alone.
    fn warm(&mut self, i: usize, acts: &mut Vec<AppAction>) {
        self.warming = Some(i);
        acts.push(AppAction::Write {
            conn: self.conns[i],
            passive: false,
            bytes: self.request,
        });
    }

    fn begin_round(&mut self, now: Time, acts: &mut Vec<AppAction>) {
        self.round_start = now;
        self.done = 0;
        self.received.iter_mut().for_each(|r| *r = 0);
        if self.random_order {
            for i in (1..self.order.len()).rev() {
                let j = self.rng.below_inclusive(i as u64) as usize;
                self.order.swap(i, j);
            }
        }
        for &i in &self.order {
            acts.push(AppAction::Write {
                conn: self.conns[i],
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
        if let Some(w) = self.warming {
            // The setup exchange: the answer is `request` bytes; then the
            // next server, and after the last the first round.
            if self.received[i] == self.request {
                self.received[i] = 0;
                if w + 1 < self.conns.len() {
                    self.warm(w + 1, acts);
                } else {
                    self.warming = None;
                    self.begin_round(now, acts);
                }
            }
            return;
        }
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
        // With a warm-up a server's first request is the setup message, and
        // its answer is as small (one request at a time per server: the
        // client asks again only after the whole answer arrived).
        let bytes = if self.warmup && self.answered[i] == 1 {
            self.request
        } else {
            self.sru[i]
        };
        acts.push(AppAction::Write {
            conn: self.conns[i],
            passive: true,
            bytes,
        });
    }

    pub fn on_wakeup(&mut self, token: u32, _now: Time, acts: &mut Vec<AppAction>) {
        self.respond(token as usize, acts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::testing::writes;

    /// With a random order every round sends one request to each server,
    /// and the orders differ between rounds and between seeds.
    #[test]
    fn random_order_permutes_requests_per_round() {
        let order = |seed: u64| {
            let mut w = Incast::new(
                0,
                Time::ZERO,
                0,
                (1..=8).collect(),
                (10..18).collect(),
                vec![1000; 8],
                100,
                3,
                Time::ZERO,
                Rng::stream(seed, &[0]),
            )
            .with_random_order(true);
            let mut rounds = Vec::new();
            for _ in 0..3 {
                let mut acts = Vec::new();
                w.begin_round(Time::ZERO, &mut acts);
                let conns: Vec<u32> = writes(&acts).iter().map(|x| x.0).collect();
                let mut sorted = conns.clone();
                sorted.sort();
                assert_eq!(sorted, (10..18).collect::<Vec<u32>>());
                rounds.push(conns);
            }
            rounds
        };
        let a = order(1);
        assert!(a[0] != a[1] || a[1] != a[2]);
        assert_ne!(a, order(2));
        assert_eq!(a, order(1));
    }

    #[test]
    fn block_split_sums_to_block() {
        let v = Incast::split_block(1 << 20, 47);
        assert_eq!(v.iter().sum::<u64>(), 1 << 20);
        assert!(v.iter().max().unwrap() - v.iter().min().unwrap() <= 1);
    }

    /// The warm-up asks one server at a time for a request-sized answer,
    /// then starts the first round with every request at once.
    #[test]
    fn warmup_exchanges_with_one_server_at_a_time_before_round_one() {
        let t = Time::from_us;
        let mut w = Incast::new(
            0,
            Time::ZERO,
            0,
            vec![1, 2],
            vec![10, 11],
            vec![5000, 5000],
            100,
            1,
            Time::ZERO,
            Rng::stream(1, &[0]),
        )
        .with_warmup(true);
        let mut acts = Vec::new();
        w.on_established(0, false, t(1), &mut acts);
        assert!(acts.is_empty());
        w.on_established(1, false, t(1), &mut acts);
        assert_eq!(writes(&acts), [(10, false, 100)]);
        // Server 0 answers the setup message with as many bytes.
        acts.clear();
        w.on_delivered(0, true, 100, t(2), &mut acts);
        assert_eq!(writes(&acts), [(10, true, 100)]);
        acts.clear();
        w.on_delivered(0, false, 100, t(3), &mut acts);
        assert_eq!(writes(&acts), [(11, false, 100)]);
        acts.clear();
        w.on_delivered(1, true, 100, t(4), &mut acts);
        assert_eq!(writes(&acts), [(11, true, 100)]);
        // The last answer starts round one: both requests at once.
        acts.clear();
        w.on_delivered(1, false, 100, t(5), &mut acts);
        assert_eq!(writes(&acts), [(10, false, 100), (11, false, 100)]);
        // Now the servers answer with their SRU.
        acts.clear();
        w.on_delivered(0, true, 100, t(6), &mut acts);
        assert_eq!(writes(&acts), [(10, true, 5000)]);
        acts.clear();
        w.on_delivered(0, false, 5000, t(7), &mut acts);
        w.on_delivered(1, true, 100, t(7), &mut acts);
        w.on_delivered(1, false, 5000, t(8), &mut acts);
        assert!(w.finished);
        assert_eq!(w.records.len(), 1);
        assert_eq!(w.records[0].start, t(5));
        assert_eq!(w.records[0].bytes, 10000);
    }
}
