//! `[host]`: what every host's network stack does below TCP.

use super::queues::{limit_fits, Buffer};
use super::ScenarioError;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

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
}

impl HostSpec {
    fn default_nic_queue() -> Buffer {
        Buffer::Packets(1000)
    }
    fn default_send_jitter() -> Time {
        Time::ZERO
    }

    pub fn validate(&self, packet: Bytes) -> Result<(), ScenarioError> {
        limit_fits("host.nic_queue", &self.nic_queue, packet)
    }
}

impl Default for HostSpec {
    fn default() -> Self {
        HostSpec {
            nic_queue: HostSpec::default_nic_queue(),
            send_jitter: HostSpec::default_send_jitter(),
        }
    }
}
