//! `[queue]` (the default discipline of every switch output port) and
//! `[[port]]` (overrides for one port). Each discipline's parameters are
//! their own struct in their own file, and check themselves (ns-3's
//! `CheckConfig` habit): [`QueueSpec::validate`] calls each.

mod drr;
mod hcf;
mod priority;
mod red;
mod sfq;
mod shaper;

pub use drr::DrrSpec;
pub use hcf::{HcfSpec, Period};
pub use priority::{Class, PrioritySpec};
pub use red::RedSpec;
pub use sfq::SfqSpec;
pub use shaper::{HtbSpec, ShaperSpec, TbfSpec, MININET_HTB_BURST, TC_HTB_MTU, TC_HZ};

use super::check::limit_fits;
use super::cost::PortCost;
use crate::spec::error::ScenarioError;
use crate::units::Bytes;
use crate::vocab::named_enum;
use crate::vocab::BufferLimit;
use serde::{Deserialize, Serialize};

named_enum! {
    /// What a switch output port runs.
    pub enum Discipline ("queue discipline") {
        Droptail = "droptail",
        /// Hashed Credits Fair (Shpiner and Keslassy); parameters in [queue.hcf].
        Hcf = "hcf",
        /// Random Early Detection (Floyd and Jacobson); [queue.red].
        Red = "red",
        /// Stochastic Fairness Queueing (McKenney); [queue.sfq].
        Sfq = "sfq",
        /// Deficit Round Robin (Shreedhar and Varghese); [queue.drr].
        Drr = "drr",
        /// Strict priority pair; [queue.priority].
        Priority = "priority",
    }
}

impl Default for Discipline {
    /// Drop-tail: what commodity switches run, and the incast studies' queue.
    fn default() -> Self {
        Discipline::Droptail
    }
}

/// Default queue of every switch output port.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub discipline: Discipline,
    /// 64 KiB: the per-port buffer of the shallow commodity switches of the
    /// incast studies.
    #[serde(default = "QueueSpec::default_limit")]
    pub limit: BufferLimit,
    /// ECN marking threshold K (RFC 8257 (3.1)): ECN-capable packets that
    /// find the queue above K are marked CE. Off by default: the drop-tail
    /// switches of the incast studies did not mark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<BufferLimit>,
    /// A token-bucket shaper between each switch port's queue and its
    /// wire (Linux's `tbf` or `htb` on the interface). None by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperSpec>,
    /// HCF parameters (used when discipline = "hcf").
    #[serde(default)]
    pub hcf: HcfSpec,
    #[serde(default)]
    pub red: RedSpec,
    #[serde(default)]
    pub sfq: SfqSpec,
    #[serde(default)]
    pub drr: DrrSpec,
    #[serde(default)]
    pub priority: PrioritySpec,
}

impl QueueSpec {
    fn default_limit() -> BufferLimit {
        BufferLimit::Bytes(Bytes(64 << 10))
    }

    /// Every discipline checks its own parameters, used or not: a bad value
    /// is bad whichever port later runs it.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.hcf.validate("queue.hcf")?;
        self.red.validate("queue.red")?;
        self.sfq.validate("queue.sfq")?;
        self.drr.validate("queue.drr")?;
        self.priority.validate("queue.priority")?;
        Ok(())
    }

    /// Checks what a port running `disc` with `limit` needs of it
    /// (`path` names the field that set the limit, `why` the discipline's
    /// source).
    pub fn check_port(
        &self,
        disc: Discipline,
        limit: BufferLimit,
        packet: Bytes,
        path: &str,
    ) -> Result<(), ScenarioError> {
        limit_fits(path, &limit, packet)?;
        match disc {
            Discipline::Hcf => self.hcf.check_limit(limit, packet, path),
            Discipline::Priority => self.priority.check_limit(limit, packet, path),
            Discipline::Drr => self.drr.check_quantum("queue.drr", packet),
            _ => Ok(()),
        }
    }
}

impl QueueSpec {
    /// The parameters of `disc`, as they estimate their cost.
    pub fn port_cost(&self, disc: Discipline) -> &dyn PortCost {
        match disc {
            Discipline::Droptail => &NO_STATE,
            Discipline::Hcf => &self.hcf,
            Discipline::Red => &self.red,
            Discipline::Sfq => &self.sfq,
            Discipline::Drr => &self.drr,
            Discipline::Priority => &self.priority,
        }
    }
}

/// Drop-tail: no state beyond its packets.
struct NoState;
const NO_STATE: NoState = NoState;
impl PortCost for NoState {}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            discipline: Discipline::Droptail,
            limit: QueueSpec::default_limit(),
            ecn_threshold: None,
            shaper: None,
            hcf: HcfSpec::default(),
            red: RedSpec::default(),
            sfq: SfqSpec::default(),
            drr: DrrSpec::default(),
            priority: PrioritySpec::default(),
        }
    }
}

/// Override for the output port of `node` toward `peer`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    pub node: String,
    pub peer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discipline: Option<Discipline>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<BufferLimit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<BufferLimit>,
    /// This port's shaper, in place of `[queue]`'s (a switch port) or
    /// `[host]`'s (a host NIC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperSpec>,
}
