//! `[link]`: what every wire carries besides the IP packet.

use super::error::ScenarioError;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// Ethernet's bytes per packet beyond the IP packet: header 14, frame
/// check sequence 4, preamble and start delimiter 8, inter-frame gap 12.
pub const ETHERNET_FRAMING: Bytes = Bytes(38);

/// Largest framing accepted: far beyond any link layer's.
pub const MAX_FRAMING: Bytes = Bytes(1024);

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Bytes each packet takes on every wire beyond its IP packet: they
    /// count in its serialization, not in queues' byte limits. Default 0
    /// (a link's payload ceiling is rate × MSS / (MSS + 40)); "38B" is
    /// Ethernet's ([`ETHERNET_FRAMING`]), under which an 8,192-byte UDP
    /// payload is 8,258 bytes on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<Bytes>,
}

impl LinkSpec {
    pub fn is_default(&self) -> bool {
        *self == LinkSpec::default()
    }

    pub fn framing(&self) -> Bytes {
        self.framing.unwrap_or(Bytes(0))
    }

    pub fn validate(&self) -> Result<(), ScenarioError> {
        match self.framing {
            Some(f) if f > MAX_FRAMING => Err(ScenarioError::new(
                "link.framing",
                format!("\"{f}\" is too large; expected at most \"{MAX_FRAMING}\" (Ethernet's is \"38B\")"),
            )),
            _ => Ok(()),
        }
    }
}
