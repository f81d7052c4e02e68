//! FQ, Linux's Fair Queue packet scheduler (`net/sched/sch_fq.c`, Eric
//! Dumazet, Linux 3.12): a queue per flow, flows served by deficit round
//! robin, flows that just became active (`new_flows`) before the others
//! (`old_flows`).
//!
//! * **Flows.** `fq_classify` keys flows by socket (`skb->sk`); here a
//!   flow is its 5-tuple hash (one per socket direction, see
//!   [`crate::packet::flow_hash`]). A flow keeps its state while idle, as
//!   Linux keeps it in its rb-trees, until `fq_gc` would have freed it
//!   (detached for more than `FQ_GC_AGE`, 3 s): it then starts again as a
//!   new flow.
//! * **Admission** (`fq_enqueue`): a packet is dropped when the qdisc holds
//!   `limit` packets, or its flow `flow_limit` (`flow_plimit`). A flow that
//!   was detached (had no packet) joins the back of `new_flows`; if it has
//!   been detached longer than `flow_refill_delay`, its credit is raised to
//!   at least one quantum. A flow seen for the first time starts with
//!   `initial_quantum` of credit.
//! * **Service** (`fq_dequeue`): the head of `new_flows`, else of
//!   `old_flows`. A flow with no credit left gets a quantum and goes to the
//!   back of `old_flows`; one with a packet sends it and pays its size; an
//!   empty one leaves: from `new_flows` to the back of `old_flows` (a pass
//!   through the old flows, against starvation), from `old_flows` detached.
//!
//! Not modelled: pacing (`rate_enable`, `sk_pacing_rate`, the throttled
//! flows' rb-tree; fairlab's TCP paces at the sender with `[tcp] pacing`),
//! the priority bands and the internal queue for `TC_PRIO_CONTROL`
//! packets, ECN marking past `ce_threshold`, the time horizon.

use super::{Held, QueueDiscipline};
use crate::packet::Packet;
use crate::units::Time;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// `FQ_GC_AGE`: a flow detached for longer is freed by `fq_gc`.
const GC_AGE: Time = Time::from_secs(3);

/// FQ's parameters (`fq_init`'s defaults in the spec, `[host.fq]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FqConfig {
    /// Packets the qdisc holds at most (`limit`, 10000).
    pub limit_pkts: u32,
    /// Packets one flow holds at most (`flow_limit`, 100).
    pub flow_limit_pkts: u32,
    /// Credit a flow gets per round (`quantum`, 2 MTU).
    pub quantum_bytes: u32,
    /// Credit of a flow seen for the first time (`initial_quantum`, 10 MTU).
    pub initial_quantum_bytes: u32,
    /// A flow detached longer than this gets at least a quantum back when
    /// it returns (`flow_refill_delay`, 40 ms).
    pub refill_delay: Time,
}

/// One flow's queue and round-robin state (`struct fq_flow`).
#[derive(Clone, Debug)]
struct Flow {
    q: VecDeque<Held>,
    /// Bytes it may send before its next quantum (may go negative: a
    /// packet is sent while the credit is positive and paid after).
    credit_bytes: i64,
    /// On neither list (`fq_flow_is_detached`).
    detached: bool,
    /// When it was last detached (`f->age`).
    age: Time,
}

/// The flows' hashes are already mixed (`flow_hash::fmix32`): the map
/// uses them as they are.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("flow keys are u32")
    }
    fn write_u32(&mut self, k: u32) {
        // Spread over 64 bits: hashbrown reads its control byte from the top.
        self.0 = (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[derive(Clone, Debug)]
pub struct Fq {
    cfg: FqConfig,
    flows: Vec<Flow>,
    /// Flow hash -> index in `flows` (`fq_root`'s rb-trees).
    index: HashMap<u32, u32, BuildHasherDefault<Identity>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    pkts: usize,
    bytes: u64,
    /// Drops because a flow held `flow_limit` packets (`flows_plimit`).
    pub flow_limit_drops: u64,
}

impl Fq {
    pub fn new(cfg: FqConfig) -> Fq {
        assert!(cfg.quantum_bytes > 0, "sch_fq refuses a zero quantum");
        Fq {
            cfg,
            flows: Vec::new(),
            index: HashMap::default(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            pkts: 0,
            bytes: 0,
            flow_limit_drops: 0,
        }
    }

    pub fn config(&self) -> &FqConfig {
        &self.cfg
    }

    /// Flows known (`flows` in `tc -s qdisc show`).
    pub fn flows(&self) -> usize {
        self.flows.len()
    }

    /// `fq_classify`: the flow of hash `h`, created on its first packet
    /// (detached, with the initial quantum).
    fn classify(&mut self, h: u32, now: Time) -> usize {
        let cfg = self.cfg;
        let flows = &mut self.flows;
        let i = *self.index.entry(h).or_insert_with(|| {
            flows.push(Flow {
                q: VecDeque::new(),
                credit_bytes: cfg.initial_quantum_bytes as i64,
                detached: true,
                age: now,
            });
            (flows.len() - 1) as u32
        }) as usize;
        let f = &mut self.flows[i];
        if f.detached && now > f.age + GC_AGE {
            // `fq_gc` would have freed it: a new `fq_flow` for it now.
            f.credit_bytes = cfg.initial_quantum_bytes as i64;
            f.age = now;
        }
        i
    }
}

impl QueueDiscipline for Fq {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        if self.pkts >= self.cfg.limit_pkts as usize {
            return Err(id);
        }
        let held = Held::of(pkt, id);
        let i = self.classify(held.hash, now);
        let (quantum, refill) = (self.cfg.quantum_bytes as i64, self.cfg.refill_delay);
        let f = &mut self.flows[i];
        if f.q.len() >= self.cfg.flow_limit_pkts as usize {
            self.flow_limit_drops += 1;
            return Err(id);
        }
        if f.detached {
            f.detached = false;
            self.new_flows.push_back(i as u32);
            if now > f.age + refill {
                f.credit_bytes = f.credit_bytes.max(quantum);
            }
        }
        f.q.push_back(held);
        self.pkts += 1;
        self.bytes += held.size as u64;
        Ok(())
    }

    fn dequeue(&mut self, now: Time) -> Option<Held> {
        if self.pkts == 0 {
            return None;
        }
        loop {
            let from_new = !self.new_flows.is_empty();
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            let i = *list.front()? as usize;
            let f = &mut self.flows[i];
            if f.credit_bytes <= 0 {
                f.credit_bytes += self.cfg.quantum_bytes as i64;
                list.pop_front();
                self.old_flows.push_back(i as u32);
                continue;
            }
            if let Some(p) = f.q.pop_front() {
                f.credit_bytes -= p.size as i64;
                self.pkts -= 1;
                self.bytes -= p.size as u64;
                return Some(p);
            }
            list.pop_front();
            if from_new {
                // Force a pass through old_flows to prevent starvation.
                self.old_flows.push_back(i as u32);
            } else {
                f.detached = true;
                f.age = now;
            }
        }
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> usize {
        self.pkts
    }

    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        self.flows.iter().flat_map(|x| &x.q).for_each(|h| f(h.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ByValue;

    fn cfg() -> FqConfig {
        FqConfig {
            limit_pkts: 10_000,
            flow_limit_pkts: 100,
            quantum_bytes: 3000,
            initial_quantum_bytes: 15_000,
            refill_delay: Time::from_ms(40),
        }
    }

    fn pkt(flow: u32) -> Packet {
        Packet {
            flow,
            hash: crate::packet::flow_hash::fmix32(flow + 1),
            payload: 1460,
            ..Packet::blank()
        }
    }

    fn order(q: &mut Fq, n: usize) -> Vec<u32> {
        (0..n)
            .map(|_| q.dequeue_pkt(Time::ZERO).unwrap().flow)
            .collect()
    }

    #[test]
    fn a_new_flow_sends_its_initial_quantum_then_flows_alternate_by_quantum() {
        // 1500-byte packets: the initial quantum (15000) is ten packets,
        // a quantum (3000) two.
        let mut q = Fq::new(cfg());
        for _ in 0..30 {
            q.enqueue_pkt(pkt(1), Time::ZERO).unwrap();
            q.enqueue_pkt(pkt(2), Time::ZERO).unwrap();
        }
        let o = order(&mut q, 28);
        assert_eq!(&o[..10], &[1; 10]);
        assert_eq!(&o[10..20], &[2; 10]);
        assert_eq!(&o[20..], &[1, 1, 2, 2, 1, 1, 2, 2]);
    }

    #[test]
    fn a_returning_flow_goes_first_but_only_with_its_credit() {
        let mut q = Fq::new(cfg());
        for _ in 0..40 {
            q.enqueue_pkt(pkt(1), Time::ZERO).unwrap();
        }
        order(&mut q, 12);
        // Flow 2 arrives: a new flow, served before the old one, for its
        // initial quantum.
        for _ in 0..20 {
            q.enqueue_pkt(pkt(2), Time::ZERO).unwrap();
        }
        // Then both are old flows, each round a quantum: flow 2's comes
        // first (flow 1 is given its quantum and sent to the back).
        let o = order(&mut q, 16);
        assert_eq!(&o[..10], &[2; 10], "{o:?}");
        assert_eq!(&o[10..], &[2, 2, 1, 1, 2, 2]);
    }

    #[test]
    fn a_flow_is_limited_to_flow_limit_packets_and_the_qdisc_to_limit() {
        let mut q = Fq::new(FqConfig {
            limit_pkts: 150,
            ..cfg()
        });
        for _ in 0..100 {
            q.enqueue_pkt(pkt(1), Time::ZERO).unwrap();
        }
        assert!(q.enqueue_pkt(pkt(1), Time::ZERO).is_err());
        assert_eq!(q.flow_limit_drops, 1);
        for _ in 0..50 {
            q.enqueue_pkt(pkt(2), Time::ZERO).unwrap();
        }
        assert!(q.enqueue_pkt(pkt(3), Time::ZERO).is_err(), "limit");
        assert_eq!((q.packets(), q.bytes()), (150, 150 * 1500));
        assert_eq!(q.flows(), 2);
    }

    #[test]
    fn an_emptied_new_flow_passes_through_old_flows_and_detaches_there() {
        let mut q = Fq::new(cfg());
        q.enqueue_pkt(pkt(1), Time::ZERO).unwrap();
        assert_eq!(q.dequeue_pkt(Time::ZERO).unwrap().flow, 1);
        assert!(q.dequeue_pkt(Time::ZERO).is_none());
        // Flow 2 with eleven packets: flow 1, empty at the head of
        // new_flows, moves to old_flows; flow 2 sends its initial quantum
        // and follows it there; flow 1, empty at the head of old_flows,
        // detaches.
        for _ in 0..11 {
            q.enqueue_pkt(pkt(2), Time::ZERO).unwrap();
        }
        assert_eq!(order(&mut q, 1), [2]);
        assert_eq!(q.old_flows, [0]);
        assert_eq!(order(&mut q, 10), [2; 10]);
        assert!(q.new_flows.is_empty() && q.old_flows == [1]);
        assert!(q.flows[0].detached);
        // Back after the refill delay: at least a quantum of credit.
        q.flows[0].credit_bytes = -500;
        let t = Time::from_ms(50);
        q.enqueue_pkt(pkt(1), t).unwrap();
        assert_eq!(q.flows[0].credit_bytes, 3000);
        assert_eq!(q.new_flows.len(), 1);
    }

    #[test]
    fn a_flow_idle_past_fq_gc_age_starts_again_with_the_initial_quantum() {
        let mut q = Fq::new(cfg());
        let detach = |q: &mut Fq, t: Time| {
            // One packet of flow 1, then flow 2 takes the lists past it
            // (as in the test above): flow 1 detaches at `t`.
            q.enqueue_pkt(pkt(1), t).unwrap();
            q.dequeue_pkt(t).unwrap();
            for _ in 0..11 {
                q.enqueue_pkt(pkt(2), t).unwrap();
            }
            while q.dequeue_pkt(t).is_some() {}
        };
        detach(&mut q, Time::ZERO);
        let f1 = q.index[&pkt(1).hash] as usize;
        assert!(q.flows[f1].detached);
        q.flows[f1].credit_bytes = -1000;
        // Back within 3 s: the refill delay's quantum only.
        q.enqueue_pkt(pkt(1), Time::from_secs(2)).unwrap();
        assert_eq!(q.flows[f1].credit_bytes, 3000);
        while q.dequeue_pkt(Time::from_secs(2)).is_some() {}
        detach(&mut q, Time::from_secs(2));
        assert!(q.flows[f1].detached);
        q.flows[f1].credit_bytes = -1000;
        // Back after more than 3 s: freed by fq_gc, a new flow.
        q.enqueue_pkt(pkt(1), Time::from_secs(6)).unwrap();
        assert_eq!(q.flows[f1].credit_bytes, 15_000);
    }

    #[test]
    fn every_packet_leaves_in_its_flows_order() {
        let mut q = Fq::new(cfg());
        let mut seq = [0u64; 5];
        let mut last = [None::<u64>; 5];
        for round in 0..200u64 {
            let f = (round * 7 % 5) as u32;
            let mut p = pkt(f);
            p.seq = seq[f as usize];
            seq[f as usize] += 1;
            q.enqueue_pkt(p, Time::from_us(round)).unwrap();
            if round % 3 == 0 {
                let p = q.dequeue_pkt(Time::from_us(round)).unwrap();
                let f = p.flow as usize;
                assert!(last[f].is_none_or(|l| p.seq > l));
                last[f] = Some(p.seq);
            }
        }
        while let Some(p) = q.dequeue_pkt(Time::from_ms(1)) {
            let f = p.flow as usize;
            assert!(last[f].is_none_or(|l| p.seq > l));
            last[f] = Some(p.seq);
        }
        assert_eq!(last, seq.map(|n| Some(n - 1)));
        assert_eq!(q.bytes(), 0);
    }
}
