//! `[host]`: what every host's network stack does below TCP.

use super::queues::{limit_fits, Buffer, ShaperSpec};
use super::ScenarioError;
use crate::packet::Addr;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// 1000 packets: Linux's default txqueuelen.
    #[serde(default = "HostSpec::default_nic_queue")]
    pub nic_queue: Buffer,
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
}

/// The most transmit queues a NIC may have (Linux's mq allows more, but
/// NICs of the studies' era had at most 64; 256 bounds the per-host state).
pub const MAX_NIC_QUEUES: u32 = 256;

impl HostSpec {
    fn default_nic_queue() -> Buffer {
        Buffer::Packets(1000)
    }
    fn default_send_jitter() -> Time {
        Time::ZERO
    }
    fn default_nic_queues() -> u32 {
        1
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
        limit_fits("host.nic_queue", &self.nic_queue, packet)
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
        }
    }
}
