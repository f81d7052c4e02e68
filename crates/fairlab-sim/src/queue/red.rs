//! RED, Random Early Detection (Floyd and Jacobson, IEEE/ACM ToN 1993): drop
//! (or, for ECN-capable packets, mark) arriving packets with a probability
//! that grows with the EWMA of the queue length between two thresholds.

use super::{BufferLimit, Held, QueueDiscipline};
use crate::engine::Rng;
use crate::packet::{flags, Packet};
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Hard limit of the queue.
    pub limit: BufferLimit,
    /// Thresholds on the average queue, in packets.
    pub min_th: f64,
    pub max_th: f64,
    /// Drop probability at max_th.
    pub max_p: f64,
    /// EWMA weight w_q (paper: 0.002).
    pub w_q: f64,
    /// Gentle RED: from max_th to 2 max_th the probability rises to 1
    /// instead of jumping to 1 (Floyd, 2000).
    pub gentle: bool,
    /// Mark ECN-capable packets instead of dropping them (RFC 3168 (5)).
    pub ecn: bool,
    /// Transmission time of a typical packet, for the idle-time decay of the
    /// average (paper, Section 4: m = idle time / s).
    pub packet_time: Time,
}

#[derive(Clone, Debug)]
pub struct Red {
    cfg: RedConfig,
    fifo: VecDeque<Held>,
    bytes: u64,
    avg: f64,
    /// Packets since the last drop/mark while avg was between the thresholds.
    count: i64,
    idle_since: Option<Time>,
    rng: Rng,
    marks: u64,
    early_drops: u64,
}

impl Red {
    pub fn new(cfg: RedConfig, rng: Rng) -> Red {
        Red {
            cfg,
            fifo: VecDeque::new(),
            bytes: 0,
            avg: 0.0,
            count: -1,
            idle_since: Some(Time::ZERO),
            rng,
            marks: 0,
            early_drops: 0,
        }
    }
    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }
    pub fn marks(&self) -> u64 {
        self.marks
    }
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The paper's Figure 2: base probability p_b from the average.
    fn p_b(&self) -> f64 {
        let c = &self.cfg;
        if self.avg < c.min_th {
            0.0
        } else if self.avg < c.max_th {
            c.max_p * (self.avg - c.min_th) / (c.max_th - c.min_th)
        } else if c.gentle && self.avg < 2.0 * c.max_th {
            c.max_p + (1.0 - c.max_p) * (self.avg - c.max_th) / c.max_th
        } else {
            1.0
        }
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        let c = self.cfg;
        // Section 4: update the average; after an idle period, decay it as
        // if m small packets had been sent.
        let q = self.fifo.len() as f64;
        if let Some(since) = self.idle_since.take() {
            // Clamped, not cast: at terabit rates an idle second is more
            // than i32::MAX packet times, and a wrapped (negative) m
            // inflated the average instead of emptying it.
            let m =
                (now.saturating_sub(since).0 / c.packet_time.0.max(1)).min(i32::MAX as u64) as i32;
            self.avg *= (1.0 - c.w_q).powi(m);
        } else {
            self.avg = (1.0 - c.w_q) * self.avg + c.w_q * q;
        }
        let p_b = self.p_b();
        let early = if p_b <= 0.0 {
            self.count = -1;
            false
        } else if p_b >= 1.0 {
            self.count = 0;
            true
        } else {
            // Section 4: p_a = p_b / (1 - count * p_b) spaces the drops out.
            self.count += 1;
            let p_a = p_b / (1.0 - (self.count as f64 * p_b).min(0.999_999));
            if self.rng.next_f64() < p_a {
                self.count = 0;
                true
            } else {
                false
            }
        };
        if early {
            if c.ecn && pkt.has(flags::ECT) && p_b < 1.0 {
                pkt.flags |= flags::CE;
                self.marks += 1;
            } else {
                self.early_drops += 1;
                return Err(id);
            }
        }
        if !c.limit.admits(self.bytes, self.fifo.len(), pkt.size()) {
            return Err(id);
        }
        self.bytes += pkt.size().get();
        self.fifo.push_back(Held::of(pkt, id));
        Ok(())
    }

    fn dequeue(&mut self, now: Time) -> Option<Held> {
        let p = self.fifo.pop_front()?;
        self.bytes -= p.size().get();
        if self.fifo.is_empty() {
            self.idle_since = Some(now);
        }
        Some(p)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn packets(&self) -> usize {
        self.fifo.len()
    }
    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        self.fifo.iter().for_each(|h| f(h.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ByValue;

    fn cfg(gentle: bool, ecn: bool) -> RedConfig {
        RedConfig {
            limit: BufferLimit::Packets(100),
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle,
            ecn,
            packet_time: Time::from_us(12),
        }
    }

    #[test]
    fn a_long_idle_period_empties_the_average_at_any_rate() {
        // 1 ps per packet (a u64::MAX bps link) and 3 ms idle: 3e9 packet
        // times, which wrapped to a negative i32 and blew the average up
        // (every later arrival dropped, the connection timed out for good).
        let mut r = Red::new(
            RedConfig {
                packet_time: Time(1),
                ..cfg(true, false)
            },
            Rng::new(1),
        );
        r.avg = 10.0;
        let p = Packet {
            payload: 1460,
            ..Packet::blank()
        };
        r.enqueue_pkt(p, Time::from_ms(3)).unwrap();
        assert!(r.average() < 1e-9, "avg {}", r.average());
    }

    #[test]
    fn probability_grows_linearly_between_thresholds_and_gently_beyond() {
        let mut r = Red::new(cfg(true, false), Rng::new(1));
        for (avg, want) in [
            (4.0, 0.0),
            (10.0, 0.05),
            (15.0, 0.1),
            (22.5, 0.55),
            (30.0, 1.0),
        ] {
            r.avg = avg;
            assert!((r.p_b() - want).abs() < 1e-12, "avg {avg}");
        }
        let mut hard = Red::new(cfg(false, false), Rng::new(1));
        hard.avg = 16.0;
        assert_eq!(hard.p_b(), 1.0);
    }

    #[test]
    fn ewma_follows_a_standing_queue_and_ecn_marks_instead_of_dropping() {
        let mut r = Red::new(cfg(false, true), Rng::new(7));
        let p = Packet {
            payload: 1460,
            flags: flags::ECT,
            ..Packet::blank()
        };
        let mut t = Time::ZERO;
        // Keep 10 packets queued (between the thresholds): arrivals and
        // departures alternate.
        for _ in 0..10 {
            r.enqueue_pkt(p, t).unwrap();
        }
        for _ in 0..5000 {
            t += Time::from_us(12);
            r.enqueue_pkt(p, t).unwrap();
            r.dequeue_pkt(t);
        }
        assert!((r.average() - 10.0).abs() < 0.5, "avg {}", r.average());
        // With p_a = p_b / (1 - count p_b) the gap between marks is uniform
        // on [1, 1/p_b]: one mark per 1/(2 p_b) = 10 arrivals once the average
        // has climbed past min_th (about 500 of these 5000 arrivals).
        assert!((300..=600).contains(&r.marks()), "marks {}", r.marks());
        assert_eq!(
            r.early_drops, 0,
            "ECT packets are marked, not dropped, below max_th"
        );
    }
}
