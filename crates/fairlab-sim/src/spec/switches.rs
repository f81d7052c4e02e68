//! `[switch]`: what every switch does between an input port and an output
//! queue.

use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// Each packet a switch forwards reaches its output queue after U(0,
    /// forwarding_jitter) of processing time, in order per input port.
    /// Zero by default: a hardware switch's pipeline takes a fixed time,
    /// and the published simulations had none. With none, ports of equal
    /// rate keep a fixed phase for as long as they stay busy, and at a
    /// full drop-tail queue the input whose packets land just after each
    /// departure takes every freed slot (a lock-in of the drop pattern,
    /// Floyd and Jacobson 1992); the testbeds of the outcast study forwarded
    /// in software on servers, whose per-packet time varies by microseconds.
    #[serde(default)]
    pub forwarding_jitter: Time,
}

impl SwitchSpec {
    pub fn is_default(&self) -> bool {
        *self == SwitchSpec::default()
    }
}
