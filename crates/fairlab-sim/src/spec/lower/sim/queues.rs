//! The ports' queues: a switch port's discipline, each with a random
//! stream of its own numbered in the order ports are made (HCF's hashes,
//! RED's drops, SFQ's and DRR's salts); a host NIC's drop-tail queue,
//! multi-queue NIC or sending stack, each NIC's streams numbered in build
//! order.

use super::common::{
    arbitration, droptail, hcf_config, RNG_NIC, RNG_NIC_QDISC, RNG_NIC_ROOT, RNG_QUEUE,
};
use crate::engine::Rng;
use crate::packet::Salt;
use crate::queue::{
    BufferLimit, Drr, Fq, FqConfig, Hcf, Nic, Priority, Queue, Red, RedConfig, RootQdisc, Sfq,
};
use crate::spec::{Discipline, HostStack, NicRoot, Scenario};
use crate::units::{BitsPerSec, Bytes};
use std::cell::Cell;

/// Makes the queues of one build, numbering their random streams.
pub(super) struct Queues<'a> {
    sc: &'a Scenario,
    seed: u64,
    /// A full data packet (RED's packet time, HCF's and FQ's quanta).
    packet: Bytes,
    /// The hosts' sending stack, and whether NICs model it (else the plain
    /// NIC model: one drop-tail queue per transmit queue).
    pub stack: HostStack,
    pub with_stack: bool,
    /// Switch queues made so far (the next one's stream number).
    switches: Cell<u64>,
    /// NICs made so far.
    nics: Cell<u64>,
}

impl<'a> Queues<'a> {
    pub fn new(
        sc: &'a Scenario,
        seed: u64,
        packet: Bytes,
        stack: HostStack,
        with_stack: bool,
    ) -> Queues<'a> {
        Queues {
            sc,
            seed,
            packet,
            stack,
            with_stack,
            switches: Cell::new(0),
            nics: Cell::new(0),
        }
    }

    /// A discipline of `limit` at a port of `rate` (RED's packet time),
    /// drawing from `rng`.
    fn discipline(
        &self,
        disc: Discipline,
        limit: BufferLimit,
        ecn: Option<BufferLimit>,
        rate: BitsPerSec,
        rng: Rng,
    ) -> Queue {
        let q = &self.sc.queue;
        match disc {
            Discipline::Droptail => droptail(limit, ecn),
            Discipline::Hcf => {
                let cfg = hcf_config(&q.hcf, limit);
                Queue::Hcf(Box::new(Hcf::new(cfg, rng)))
            }
            Discipline::Red => {
                let r = &q.red;
                let cfg = RedConfig {
                    limit,
                    min_th: r.min_th,
                    max_th: r.max_th,
                    max_p: r.max_p,
                    w_q: r.w_q,
                    gentle: r.gentle,
                    ecn: r.ecn,
                    packet_time: rate.serialization(self.packet),
                };
                Queue::Red(Box::new(Red::new(cfg, rng)))
            }
            Discipline::Sfq => {
                Queue::Sfq(Box::new(Sfq::new(q.sfq.buckets, limit, q.sfq.perturb, rng)))
            }
            Discipline::Drr => {
                let mut rng = rng;
                let salt = Salt::from_u64(rng.next_u64());
                Queue::Drr(Box::new(Drr::new(
                    q.drr.buckets,
                    limit,
                    q.drr.quantum.get(),
                    salt,
                )))
            }
            Discipline::Priority => {
                let p = &q.priority;
                let (hi, lo) = limit.split(p.high_share);
                Queue::Priority(Box::new(Priority::new(p.high, hi, lo)))
            }
        }
    }

    /// A switch port's queue, with the next switch queue's stream. `rate`:
    /// the port's own link rate (a star's or dumbbell's is
    /// `TopologySpec::red_rate`).
    pub fn switch(
        &self,
        disc: Discipline,
        limit: BufferLimit,
        ecn: Option<BufferLimit>,
        rate: BitsPerSec,
    ) -> Queue {
        let n = self.switches.get();
        self.switches.set(n + 1);
        let rng = Rng::stream(self.seed, &[RNG_QUEUE, n]);
        self.discipline(disc, limit, ecn, rate, rng)
    }

    /// A switch port's queue as `[queue]` says, at a star's or dumbbell's
    /// port.
    pub fn default_switch(&self) -> Queue {
        let q = &self.sc.queue;
        let ecn = q.ecn_threshold;
        self.switch(q.discipline, q.limit, ecn, self.sc.topology.red_rate())
    }

    /// A host's NIC, on a link of `rate`: one drop-tail queue, or a
    /// multi-queue NIC whose flow hash salt comes from its own stream; with
    /// a sending stack (`[host]` beyond the plain model, or TCP Small
    /// Queues) a qdisc per queue feeding rings, each qdisc with a stream of
    /// its own, and every transmission's completion reported.
    pub fn host(&self, rate: BitsPerSec) -> Queue {
        let n = self.nics.get();
        self.nics.set(n + 1);
        let (host, seed) = (&self.sc.host, self.seed);
        let k = host.nic_queues;
        let salt = || Salt::from_u64(Rng::stream(seed, &[RNG_NIC, n]).next_u64());
        let nic_limit = host.nic_queue;
        if !self.with_stack {
            return match k {
                1 => droptail(nic_limit, None),
                k => Queue::Nic(Box::new(Nic::new(
                    (0..k).map(|_| droptail(nic_limit, None)).collect(),
                    salt(),
                ))),
            };
        }
        let stack = &self.stack;
        if stack.root != NicRoot::Mq {
            // One qdisc above every ring (`tc qdisc replace dev eth0 root`).
            return Queue::Nic(Box::new(
                Nic::with_root(k as usize, self.root_qdisc(n), salt())
                    .with_rings(stack.ring, stack.bql)
                    .with_arbitration(&arbitration(stack))
                    .tracked(),
            ));
        }
        let qdiscs = (0..k as u64)
            .map(|i| {
                let rng = Rng::stream(seed, &[RNG_NIC_QDISC, n, i]);
                let disc = stack.qdisc.discipline();
                self.discipline(disc, stack.nic_queue, None, rate, rng)
            })
            .collect();
        Queue::Nic(Box::new(
            Nic::new(qdiscs, salt())
                .with_rings(stack.ring, stack.bql)
                .with_arbitration(&arbitration(stack))
                .tracked(),
        ))
    }

    /// NIC `n`'s root qdisc (fq, or sfq with a stream of its own).
    fn root_qdisc(&self, n: u64) -> RootQdisc {
        let host = &self.sc.host;
        match self.stack.root {
            NicRoot::Fq => {
                let fq = host.fq.clone().unwrap_or_default();
                let (quantum, initial) = fq.quanta(self.packet);
                RootQdisc::Fq(Box::new(Fq::new(FqConfig {
                    limit_pkts: fq.limit,
                    flow_limit_pkts: fq.flow_limit,
                    quantum_bytes: quantum.get() as u32,
                    initial_quantum_bytes: initial.get() as u32,
                    refill_delay: fq.refill_delay,
                })))
            }
            _ => RootQdisc::Sfq(Box::new(Sfq::new(
                self.sc.queue.sfq.buckets,
                self.stack.nic_queue,
                self.sc.queue.sfq.perturb,
                Rng::stream(self.seed, &[RNG_NIC_ROOT, n]),
            ))),
        }
    }
}
