//! `[host]`: what every host's network stack does below TCP: its transmit
//! queues (a qdisc per NIC queue, each feeding a descriptor ring), the
//! NIC's arbitration between them, how a socket picks its queue, and the
//! kernel era that sets all of these at once (`profile`).

use super::check::check_time;
use super::check::limit_fits;
use super::error::ScenarioError;
use super::queues::{Discipline, ShaperSpec};
use super::tcp::ProfileName;
use crate::packet::Addr;
use crate::units::{Bytes, Time};
use crate::vocab::named_enum;
use crate::vocab::BufferLimit;
pub use crate::vocab::TxqSelect;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

named_enum! {
    /// A host's kernel: its sending stack and its TCP defaults together
    /// (docs/scenario.md, "Host profiles").
    pub enum HostProfile ("host profile") {
        /// CentOS 6.4's 2.6.32-358.el6, the hash-cast study's server.
        Linux2632 = "linux-2.6.32",
        /// Vanilla Linux 3.12.0, the study's newer kernel.
        Linux312 = "linux-3.12",
    }
}

named_enum! {
    /// What each NIC transmit queue runs (`[queue.sfq]` and the other
    /// discipline tables give their parameters, as at switches).
    pub enum NicQdisc ("NIC queue discipline") {
        /// Linux's default: three FIFO bands by TOS, one of them used by
        /// every flow here, of `txqueuelen` packets: a drop-tail FIFO.
        PfifoFast = "pfifo_fast",
        Droptail = "droptail",
        Red = "red",
        Sfq = "sfq",
        Drr = "drr",
        Hcf = "hcf",
        Priority = "priority",
    }
}

impl NicQdisc {
    /// The discipline it runs.
    pub fn discipline(&self) -> Discipline {
        match self {
            NicQdisc::PfifoFast | NicQdisc::Droptail => Discipline::Droptail,
            NicQdisc::Red => Discipline::Red,
            NicQdisc::Sfq => Discipline::Sfq,
            NicQdisc::Drr => Discipline::Drr,
            NicQdisc::Hcf => Discipline::Hcf,
            NicQdisc::Priority => Discipline::Priority,
        }
    }
}

named_enum! {
    /// The device's root qdisc: `mq` with a child per transmit queue
    /// (`nic_qdisc`), or one qdisc above every queue's ring (`tc qdisc
    /// replace dev eth0 root fq`), which picks among all the host's flows
    /// but stalls every queue while its next packet's ring is stopped.
    pub enum NicRoot ("NIC root qdisc") {
        /// Linux's default on a multi-queue device (`mq`, 2.6.32 on): a
        /// `nic_qdisc` per transmit queue.
        Mq = "mq",
        /// SFQ (`[queue.sfq]`'s buckets and perturbation) of `nic_queue`.
        Sfq = "sfq",
        /// Linux's `fq` (3.12): flow round robin by quantum (`[host.fq]`).
        Fq = "fq",
    }
}

/// `[host.fq]`: Linux's `fq` as the root qdisc, `fq_init`'s defaults.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FqSpec {
    /// Packets the qdisc holds (`limit`, 10000).
    pub limit: u32,
    /// Packets one flow holds (`flow_limit`, 100).
    pub flow_limit: u32,
    /// Credit per round (`quantum`). Default: two packets of the
    /// scenario's MTU (`2 * psched_mtu(dev)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// A new flow's first credit (`initial_quantum`). Default: ten packets
    /// of the MTU (`10 * psched_mtu(dev)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_quantum: Option<Bytes>,
    /// A flow idle longer gets at least a quantum back (`flow_refill_delay`, 40 ms).
    pub refill_delay: Time,
}

impl Default for FqSpec {
    fn default() -> Self {
        FqSpec {
            limit: 10_000,
            flow_limit: 100,
            quantum: None,
            initial_quantum: None,
            refill_delay: Time::from_ms(40),
        }
    }
}

/// The most packets `[host.fq]` may hold: 100 times Linux's default, and
/// the bound on a root's per-packet state.
pub const MAX_FQ_LIMIT: u32 = 1_000_000;
/// The largest quantum `fq_change` accepts (`1 << 20` bytes).
pub const MAX_FQ_QUANTUM: u64 = 1 << 20;
/// The largest initial quantum (`iq_range`: `INT_MAX` bytes).
pub const MAX_FQ_INITIAL_QUANTUM: u64 = i32::MAX as u64;

impl FqSpec {
    /// Quantum and initial quantum for packets of `packet` bytes.
    pub fn quanta(&self, packet: Bytes) -> (Bytes, Bytes) {
        (
            self.quantum.unwrap_or(Bytes(2 * packet.get())),
            self.initial_quantum.unwrap_or(Bytes(10 * packet.get())),
        )
    }

    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if !(1..=MAX_FQ_LIMIT).contains(&self.limit) {
            return Err(ScenarioError::new(
                format!("{path}.limit"),
                format!(
                    "{} is not allowed; expected 1 to {MAX_FQ_LIMIT} packets (Linux's default 10000)",
                    self.limit
                ),
            ));
        }
        if !(1..=self.limit).contains(&self.flow_limit) {
            return Err(ScenarioError::new(
                format!("{path}.flow_limit"),
                format!(
                    "{} is not allowed; expected 1 to limit ({}) packets (Linux's default 100)",
                    self.flow_limit, self.limit
                ),
            ));
        }
        if let Some(q) = self.quantum {
            if !(1..=MAX_FQ_QUANTUM).contains(&q.get()) {
                return Err(ScenarioError::new(
                    format!("{path}.quantum"),
                    format!("\"{q}\" is not allowed; expected 1 byte to \"1MiB\" (sch_fq's range)"),
                ));
            }
        }
        if let Some(q) = self.initial_quantum {
            if q.get() > MAX_FQ_INITIAL_QUANTUM {
                return Err(ScenarioError::new(
                    format!("{path}.initial_quantum"),
                    format!("\"{q}\" is not allowed; expected 0 to {MAX_FQ_INITIAL_QUANTUM} bytes (sch_fq's range)"),
                ));
            }
        }
        check_time(&format!("{path}.refill_delay"), self.refill_delay)
    }
}

named_enum! {
    /// How the NIC shares its wire between its transmit rings
    /// (docs/model.md, "The host's sending stack").
    pub enum ArbitrationName ("NIC arbitration") {
        /// Round robin, one packet per turn.
        Packet = "packet",
        /// Round robin, up to `nic_batch` descriptors per turn.
        Batch = "batch",
        /// Round robin, up to queue i's `nic_weights[i]` packets per turn.
        Weighted = "weighted",
        /// Across rings in the order the driver posted the descriptors
        /// (one DMA engine following the doorbells; needs a ring).
        Posted = "posted",
    }
}

/// A host's sending stack, resolved: `[host]`'s fields over its profile's.
#[derive(Clone, Debug, PartialEq)]
pub struct HostStack {
    pub nic_queue: BufferLimit,
    pub nic_queues: u32,
    pub root: NicRoot,
    pub qdisc: NicQdisc,
    /// Descriptors per transmit ring (0: no ring).
    pub ring: u32,
    pub arbitration: ArbitrationName,
    pub batch: u32,
    /// One per transmit queue (all 1 unless weighted).
    pub weights: Vec<u32>,
    pub bql: bool,
    pub txq_select: TxqSelect,
    /// Every this often, idle sockets move to the least-loaded queue
    /// (zero: never).
    pub rebalance: Time,
}

impl HostStack {
    /// The model before rings and queue selection: a drop-tail FIFO per
    /// transmit queue feeding the wire, packets by hash, one per turn. A
    /// port of such a host keeps its per-packet path exactly.
    pub fn is_plain(&self) -> bool {
        self.root == NicRoot::Mq
            && self.qdisc.discipline() == Discipline::Droptail
            && self.ring == 0
            && self.arbitration == ArbitrationName::Packet
            && !self.bql
            && self.txq_select == TxqSelect::Hash
    }
}

/// The most descriptors per ring: ixgbe's `IXGBE_MAX_TXD` (4096), the
/// largest of the studied era's drivers.
pub const MAX_RING: u32 = 4096;
/// The most packets one queue may send per arbitration turn.
pub const MAX_NIC_BATCH: u32 = 4096;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// 1000 packets: Linux's default txqueuelen.
    #[serde(default = "HostSpec::default_nic_queue")]
    pub nic_queue: BufferLimit,
    /// Each packet a host sends reaches its NIC after U(0, send_jitter) of
    /// processing time (order kept). Real hosts have microseconds of such
    /// variation; without any, a deterministic simulator locks flows into
    /// drop-tail phase patterns (Floyd and Jacobson, 1992). Zero by default:
    /// the published simulations had none.
    #[serde(default = "HostSpec::default_send_jitter")]
    pub send_jitter: Time,
    /// Transmit queues per NIC, each holding `nic_queue` with its own
    /// drop-tail (Linux's `mq` with a child qdisc per hardware queue); a
    /// flow's queue is its 5-tuple hash's pick, and the NIC serves its
    /// queues round robin (hash-cast). One by default: the single-queue
    /// NICs of the incast and HCF studies.
    #[serde(default = "HostSpec::default_nic_queues")]
    pub nic_queues: u32,
    /// A token-bucket shaper on every host NIC, between its transmit queue
    /// and the wire (Mininet's TCLink puts `htb` on hosts' interfaces
    /// too). None by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperSpec>,
    /// Host addresses the scenario sets (host name -> dotted quad); the
    /// others get 10.0.0.1, 10.0.0.2, ... in host order.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub addresses: BTreeMap<String, String>,
    /// The kernel: defaults for the fields below and for `[tcp] profile`.
    /// None: the generic host, whose stack is the model before rings
    /// (every field below at its plain value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<HostProfile>,
    /// Each transmit queue's qdisc, holding `nic_queue`. Default
    /// "pfifo_fast": Linux's default qdisc in every kernel of the study
    /// (`mq` gives each hardware queue one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_qdisc: Option<NicQdisc>,
    /// The device's root qdisc: "mq" (default: Linux's on a multi-queue
    /// NIC, a `nic_qdisc` per transmit queue), "sfq" or "fq": one qdisc
    /// above every queue's ring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_root: Option<NicRoot>,
    /// `fq`'s parameters, with `nic_root = "fq"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fq: Option<FqSpec>,
    /// Descriptors in each transmit ring, between the qdisc and the wire.
    /// Default 0 (no ring: the qdisc feeds the wire, the model every
    /// earlier scenario ran); the profiles give 255, bnx2's default
    /// (`tx_ring_size = MAX_TX_DESC_CNT`, one 4 KiB page of 16-byte
    /// descriptors less one), the Broadcom 1 GbE driver of the study.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ring: Option<u32>,
    /// "packet" (default: what every multi-queue NIC model did so far, and
    /// the simplest fair arbiter), "batch" or "weighted".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_arbitration: Option<ArbitrationName>,
    /// Descriptors per turn with "batch". Default 4: a NIC fetches 16-byte
    /// descriptors (bnx2's `struct tx_bd`) a 64-byte cache line at a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_batch: Option<u32>,
    /// Packets per turn of each transmit queue with "weighted", one weight
    /// per queue (no default: equal weights are "packet").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_weights: Option<Vec<u32>>,
    /// Byte Queue Limits on each ring (Linux 3.3 on; off by default and in
    /// 2.6.32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bql: Option<bool>,
    /// "hash" (default: 2.6.32, and the model so far), "cached", "rethink"
    /// or "least_loaded".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txq_select: Option<TxqSelect>,
    /// With "least_loaded": every this often, an open socket with nothing
    /// in its host's qdisc or ring moves to the queue with the fewest open
    /// sockets, if that evens them. Default "0s": never (a new socket's
    /// choice only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebalance: Option<Time>,
}

/// The most transmit queues a NIC may have (Linux's mq allows more, but
/// NICs of the studies' era had at most 64; 256 bounds the per-host state).
pub const MAX_NIC_QUEUES: u32 = 256;

impl HostSpec {
    fn default_nic_queue() -> BufferLimit {
        BufferLimit::Packets(1000)
    }
    fn default_send_jitter() -> Time {
        Time::ZERO
    }
    fn default_nic_queues() -> u32 {
        1
    }

    /// The `[tcp]` profile of this host's kernel, if it names one.
    pub fn tcp_profile(&self) -> Option<ProfileName> {
        self.profile.map(|p| match p {
            HostProfile::Linux2632 => ProfileName::Linux2632,
            HostProfile::Linux312 => ProfileName::Linux312,
        })
    }

    /// The sending stack: each field as given, else the profile's, else
    /// the generic host's (the model before rings).
    pub fn stack(&self) -> HostStack {
        // 2.6.32: pfifo_fast per queue, no BQL (lib/dynamic_queue_limits.c
        // came with 3.3), every packet hashed (`dev_pick_tx` calls
        // `skb_tx_hash`). 3.12: BQL in bnx2 and tg3 (3.3), the queue cached
        // on the socket and re-picked when `ooo_okay` (`__netdev_pick_tx`).
        // Both: bnx2's 255-descriptor rings, one packet per turn.
        let (ring, bql, select) = match self.profile {
            None => (0, false, TxqSelect::Hash),
            Some(HostProfile::Linux2632) => (255, false, TxqSelect::Hash),
            Some(HostProfile::Linux312) => (255, true, TxqSelect::Cached),
        };
        let n = self.nic_queues as usize;
        let arbitration = self.nic_arbitration.unwrap_or(ArbitrationName::Packet);
        let ring = self.ring.unwrap_or(ring);
        // A profile's BQL limits its rings: none without them.
        let bql = bql && ring > 0;
        HostStack {
            nic_queue: self.nic_queue,
            nic_queues: self.nic_queues,
            root: self.nic_root.unwrap_or(NicRoot::Mq),
            qdisc: self.nic_qdisc.unwrap_or(NicQdisc::PfifoFast),
            ring,
            arbitration,
            batch: self.nic_batch.unwrap_or(4),
            weights: match (&self.nic_weights, arbitration) {
                (Some(w), ArbitrationName::Weighted) => w.clone(),
                _ => vec![1; n],
            },
            bql: self.bql.unwrap_or(bql),
            txq_select: self.txq_select.unwrap_or(select),
            rebalance: self.rebalance.unwrap_or(Time::ZERO),
        }
    }

    pub fn validate(&self, packet: Bytes) -> Result<(), ScenarioError> {
        if !(1..=MAX_NIC_QUEUES).contains(&self.nic_queues) {
            return Err(ScenarioError::new(
                "host.nic_queues",
                format!(
                    "{} is not allowed; expected 1 to {MAX_NIC_QUEUES} transmit queues",
                    self.nic_queues
                ),
            ));
        }
        limit_fits("host.nic_queue", &self.nic_queue, packet)?;
        let s = self.stack();
        if s.root != NicRoot::Mq {
            if let Some(q) = self.nic_qdisc {
                return Err(ScenarioError::new(
                    "host.nic_qdisc",
                    format!("\"{q}\" given while nic_root is \"{}\"; expected nic_qdisc only with nic_root = \"mq\" (a child qdisc per transmit queue)", s.root),
                ));
            }
        }
        if let Some(fq) = &self.fq {
            if s.root != NicRoot::Fq {
                return Err(ScenarioError::new(
                    "host.fq",
                    format!(
                        "given while nic_root is \"{}\"; expected nic_root = \"fq\" with it",
                        s.root
                    ),
                ));
            }
            fq.validate("host.fq")?;
        }
        if let Some(r) = self.ring {
            if r > MAX_RING {
                return Err(ScenarioError::new(
                    "host.ring",
                    format!("{r} is not allowed; expected 0 (no ring) to {MAX_RING} descriptors (bnx2 uses 255)"),
                ));
            }
        }
        if self.bql == Some(true) && s.ring == 0 {
            return Err(ScenarioError::new(
                "host.bql",
                "true is not allowed without a ring; expected ring > 0 (BQL limits the bytes in a descriptor ring)",
            ));
        }
        if s.arbitration == ArbitrationName::Posted && s.ring == 0 {
            return Err(ScenarioError::new(
                "host.nic_arbitration",
                "\"posted\" is not allowed without a ring; expected ring > 0 (the order is that of descriptors posted to the rings)",
            ));
        }
        if let Some(b) = self.nic_batch {
            if s.arbitration != ArbitrationName::Batch {
                return Err(ScenarioError::new(
                    "host.nic_batch",
                    format!("given while nic_arbitration is \"{}\"; expected nic_arbitration = \"batch\" with it", s.arbitration),
                ));
            }
            if !(1..=MAX_NIC_BATCH).contains(&b) {
                return Err(ScenarioError::new(
                    "host.nic_batch",
                    format!(
                        "{b} is not allowed; expected 1 to {MAX_NIC_BATCH} descriptors per turn"
                    ),
                ));
            }
        }
        match (&self.nic_weights, s.arbitration) {
            (Some(_), a) if a != ArbitrationName::Weighted => {
                return Err(ScenarioError::new(
                    "host.nic_weights",
                    format!("given while nic_arbitration is \"{a}\"; expected nic_arbitration = \"weighted\" with it"),
                ));
            }
            (None, ArbitrationName::Weighted) => {
                return Err(ScenarioError::new(
                    "host.nic_weights",
                    format!("missing; nic_arbitration = \"weighted\" needs one weight per transmit queue ({} of them)", self.nic_queues),
                ));
            }
            (Some(w), _) => {
                if w.len() != self.nic_queues as usize {
                    return Err(ScenarioError::new(
                        "host.nic_weights",
                        format!("{} weights for {} transmit queues; expected one per queue (nic_queues)", w.len(), self.nic_queues),
                    ));
                }
                if let Some((i, &x)) = w
                    .iter()
                    .enumerate()
                    .find(|(_, &x)| !(1..=MAX_NIC_BATCH).contains(&x))
                {
                    return Err(ScenarioError::new(
                        format!("host.nic_weights[{i}]"),
                        format!(
                            "{x} is not allowed; expected 1 to {MAX_NIC_BATCH} packets per turn"
                        ),
                    ));
                }
            }
            _ => {}
        }
        if let Some(t) = self.rebalance {
            check_time("host.rebalance", t)?;
            if t > Time::ZERO && s.txq_select != TxqSelect::LeastLoaded {
                return Err(ScenarioError::new(
                    "host.rebalance",
                    format!("given while txq_select is \"{}\"; expected txq_select = \"least_loaded\" with it", s.txq_select),
                ));
            }
        }
        Ok(())
    }

    /// Checks `addresses` against the topology's host names: each names a
    /// host, parses, and no two hosts share one (with the builders' plan).
    /// `planned(i)`: host `i`'s address from the topology's plan.
    pub fn check_addresses(
        &self,
        hosts: &[String],
        planned: impl Fn(usize) -> Addr,
    ) -> Result<(), ScenarioError> {
        if self.addresses.is_empty() {
            return Ok(());
        }
        let mut taken: BTreeMap<Addr, &str> = BTreeMap::new();
        for (i, h) in hosts.iter().enumerate() {
            let a = match self.addresses.get(h) {
                Some(text) => Addr::parse(text).ok_or_else(|| {
                    ScenarioError::new(
                        format!("host.addresses.{h}"),
                        format!("{text:?} is not an address; expected a dotted quad such as \"10.1.0.2\""),
                    )
                })?,
                None => planned(i),
            };
            if let Some(other) = taken.insert(a, h) {
                return Err(ScenarioError::new(
                    format!("host.addresses.{h}"),
                    format!("{a} is also {other:?}'s address; expected one address per host"),
                ));
            }
        }
        let known: std::collections::HashSet<&str> = hosts.iter().map(|h| h.as_str()).collect();
        if let Some(name) = self.addresses.keys().find(|n| !known.contains(n.as_str())) {
            return Err(ScenarioError::new(
                format!("host.addresses.{name}"),
                format!("{name:?} is not a host of this topology; expected a host name"),
            ));
        }
        Ok(())
    }
}

impl Default for HostSpec {
    fn default() -> Self {
        HostSpec {
            nic_queue: HostSpec::default_nic_queue(),
            send_jitter: HostSpec::default_send_jitter(),
            nic_queues: HostSpec::default_nic_queues(),
            shaper: None,
            addresses: BTreeMap::new(),
            profile: None,
            nic_qdisc: None,
            nic_root: None,
            fq: None,
            ring: None,
            nic_arbitration: None,
            nic_batch: None,
            nic_weights: None,
            bql: None,
            txq_select: None,
            rebalance: None,
        }
    }
}
