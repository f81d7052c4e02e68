//! Short TCP flows (Section V-D of the HCF study): `count` flows of `size`
//! bytes each from one host to another, each opened at its own instant
//! drawn uniformly in [start, start + spread). Each flow is a connection of
//! its own (its own port pair), so switches hash them apart.

use super::AppAction;
use crate::engine::Rng;
use crate::units::Time;

#[derive(Clone, Debug)]
pub struct ShortFlows {
    pub id: u32,
    /// Start of the interval the flows open in.
    pub start: Time,
    /// Connection of flow i.
    pub conns: Vec<u32>,
    /// When flow i opens, from `start`.
    pub offsets: Vec<Time>,
    /// Bytes each flow sends.
    pub size: u64,
    pub delivered: Vec<u64>,
    /// When flow i's last byte arrived.
    pub end: Vec<Option<Time>>,
    /// Flows complete or aborted.
    pub done: usize,
    pub finished: bool,
    /// Some flow aborted after too many timeouts.
    pub aborted: bool,
}

impl ShortFlows {
    /// `conns` holds one connection per flow; the opening instants are drawn
    /// from `rng`, one per flow in flow order.
    pub fn new(
        id: u32,
        start: Time,
        spread: Time,
        conns: Vec<u32>,
        size: u64,
        rng: &mut Rng,
    ) -> ShortFlows {
        let n = conns.len();
        let offsets = (0..n)
            .map(|_| {
                if spread.0 == 0 {
                    Time::ZERO
                } else {
                    Time(rng.below_inclusive(spread.0 - 1))
                }
            })
            .collect();
        ShortFlows {
            id,
            start,
            conns,
            offsets,
            size,
            delivered: vec![0; n],
            end: vec![None; n],
            done: 0,
            finished: n == 0,
            aborted: false,
        }
    }

    /// At the interval's start: one wake-up per flow at its opening instant.
    pub fn start(&mut self, _now: Time, acts: &mut Vec<AppAction>) {
        for (i, &d) in self.offsets.iter().enumerate() {
            acts.push(AppAction::WakeUp {
                workload: self.id,
                delay: d,
                token: i as u32,
            });
        }
    }

    pub fn on_wakeup(&mut self, flow: u32, _now: Time, acts: &mut Vec<AppAction>) {
        acts.push(AppAction::Connect {
            conn: self.conns[flow as usize],
        });
    }

    pub fn on_established(&mut self, flow: u32, passive: bool, acts: &mut Vec<AppAction>) {
        if !passive {
            acts.push(AppAction::Write {
                conn: self.conns[flow as usize],
                passive: false,
                bytes: self.size,
            });
        }
    }

    pub fn on_delivered(&mut self, flow: u32, passive: bool, bytes: u64, now: Time) {
        if !passive {
            return;
        }
        let i = flow as usize;
        self.delivered[i] += bytes;
        if self.delivered[i] == self.size && self.end[i].is_none() {
            self.end[i] = Some(now);
            self.flow_done();
        }
    }

    /// Flow `flow` gave up: it ends without completing; the others go on.
    pub fn on_aborted(&mut self, flow: u32) {
        if self.end[flow as usize].is_none() {
            self.aborted = true;
            self.flow_done();
        }
    }

    fn flow_done(&mut self) {
        self.done += 1;
        if self.done == self.conns.len() {
            self.finished = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_open_spread_over_the_interval_and_finish_one_by_one() {
        let mut rng = Rng::new(7);
        let spread = Time::from_secs(10);
        let mut w = ShortFlows::new(3, Time::from_secs(1), spread, vec![4, 5, 6], 1000, &mut rng);
        assert!(w.offsets.iter().all(|&o| o < spread));
        assert!(
            w.offsets[0] != w.offsets[1],
            "each flow draws its own instant"
        );
        let mut acts = Vec::new();
        w.start(Time::from_secs(1), &mut acts);
        assert_eq!(acts.len(), 3);
        acts.clear();
        w.on_wakeup(1, Time::ZERO, &mut acts);
        assert_eq!(acts, vec![AppAction::Connect { conn: 5 }]);
        w.on_delivered(0, true, 1000, Time::from_secs(2));
        w.on_aborted(1);
        assert!(!w.finished);
        w.on_delivered(2, true, 400, Time::from_secs(3));
        w.on_delivered(2, true, 600, Time::from_secs(4));
        assert!(w.finished && w.aborted);
        assert_eq!(
            w.end,
            vec![Some(Time::from_secs(2)), None, Some(Time::from_secs(4))]
        );
    }
}
