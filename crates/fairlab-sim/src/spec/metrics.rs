//! `[metrics]`: which time series and traces a run records (all off by
//! default, so runs stay fast and small).

use super::check::check_time;
use super::error::ScenarioError;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct MetricsSpec {
    /// Per-flow delivered bytes in bins of this width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_bin: Option<Time>,
    /// Occupancy of every switch port sampled at this period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_sample: Option<Time>,
    /// Record cwnd, ssthresh, SRTT and RTO of each data sender at every
    /// change (it costs memory on long runs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trace: bool,
    /// Only these flow ids (default: every flow, when `trace` is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_flows: Option<Vec<u32>>,
    /// Trace every arrival at this switch output port, `"node:peer"`
    /// (time, input port, flow, admitted or dropped, queue at arrival):
    /// the `drop_trace` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_trace: Option<String>,
    /// At most this many rows of the drop trace (default
    /// [`DEFAULT_DROP_TRACE_MAX_ROWS`]); the summary's
    /// `drop_trace_rows_left_out` counts the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_trace_max_rows: Option<u64>,
    /// Radon streams: one row per received datagram (its stamps, relative
    /// forward delay, true one-way delay and each queue model's estimate),
    /// the `radon_series` table.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub radon_series: bool,
    /// Packet captures (libpcap files, headers only), one per point: an
    /// output port `"node:peer"` (what leaves it, as tcpdump on that
    /// interface) or a host `"h3"` (its interface, both directions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<Vec<String>>,
    /// At most this many packets per capture (default
    /// [`DEFAULT_PCAP_MAX_PACKETS`]); the summary's
    /// `pcap_packets_left_out` counts the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap_max_packets: Option<u64>,
    /// At most this many bytes per capture file (default
    /// [`DEFAULT_PCAP_MAX_BYTES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap_max_bytes: Option<Bytes>,
}

/// A million rows: about 40 MB while the run lasts, a few seconds of a
/// saturated 10 Gb/s port, a minute of a 1 Gb/s one.
pub const DEFAULT_DROP_TRACE_MAX_ROWS: u64 = 1_000_000;

/// A million packets per capture: some 80 MB of headers, a second of a
/// saturated 10 Gb/s port.
pub const DEFAULT_PCAP_MAX_PACKETS: u64 = 1_000_000;
/// 128 MiB per capture file.
pub const DEFAULT_PCAP_MAX_BYTES: u64 = 128 << 20;
/// The smallest byte cap: the file header and one packet's headers.
pub const MIN_PCAP_MAX_BYTES: u64 = 24 + 16 + 94;

impl MetricsSpec {
    pub fn validate(&self) -> Result<(), ScenarioError> {
        for (f, v) in [
            ("metrics.throughput_bin", self.throughput_bin),
            ("metrics.queue_sample", self.queue_sample),
        ] {
            if let Some(t) = v {
                if t == Time::ZERO {
                    return Err(ScenarioError::new(
                        f,
                        "\"0s\" is not allowed; expected a positive period such as \"1ms\"",
                    ));
                }
                check_time(f, t)?;
            }
        }
        if self.drop_trace_max_rows.is_some() && self.drop_trace.is_none() {
            return Err(ScenarioError::new(
                "metrics.drop_trace_max_rows",
                "given without drop_trace; expected drop_trace = \"switch:neighbour\" with it",
            ));
        }
        self.validate_pcap()
    }

    fn validate_pcap(&self) -> Result<(), ScenarioError> {
        for (f, given) in [
            ("metrics.pcap_max_packets", self.pcap_max_packets.is_some()),
            ("metrics.pcap_max_bytes", self.pcap_max_bytes.is_some()),
        ] {
            if given && self.pcap.is_none() {
                return Err(ScenarioError::new(
                    f,
                    "given without pcap; expected pcap = [\"node:peer\", \"host\"] with it",
                ));
            }
        }
        if self.pcap_max_packets == Some(0) {
            return Err(ScenarioError::new(
                "metrics.pcap_max_packets",
                "0 is not allowed; expected a positive number of packets",
            ));
        }
        if let Some(b) = self.pcap_max_bytes {
            if b.get() < MIN_PCAP_MAX_BYTES {
                return Err(ScenarioError::new(
                    "metrics.pcap_max_bytes",
                    format!(
                        "{} bytes is too small; expected at least \"{MIN_PCAP_MAX_BYTES}B\" (the file header and one packet's)",
                        b.get()
                    ),
                ));
            }
        }
        let Some(points) = &self.pcap else {
            return Ok(());
        };
        if points.is_empty() {
            return Err(ScenarioError::new(
                "metrics.pcap",
                "[] captures nothing; expected ports \"node:peer\" or hosts, or no pcap",
            ));
        }
        for (i, p) in points.iter().enumerate() {
            if points[..i].contains(p) {
                return Err(ScenarioError::new(
                    format!("metrics.pcap[{i}]"),
                    format!("{p:?} is listed twice; expected each point once"),
                ));
            }
        }
        Ok(())
    }

    /// Each capture point, checked against the topology: a host of
    /// `hosts`, or a port `"node:peer"` of `nodes` where `linked(node,
    /// peer)`.
    pub fn check_pcap(
        &self,
        hosts: &[&str],
        nodes: &[&str],
        linked: impl Fn(&str, &str) -> bool,
    ) -> Result<(), ScenarioError> {
        let Some(points) = &self.pcap else {
            return Ok(());
        };
        for (i, spec) in points.iter().enumerate() {
            let ok = match spec.split_once(':') {
                Some((a, b)) => nodes.contains(&a) && linked(a, b),
                None => hosts.contains(&spec.as_str()),
            };
            if ok {
                continue;
            }
            // The allowed points: the named node's ports, or the hosts
            // and the first ports.
            let mut allowed: Vec<String> = Vec::new();
            let named = spec
                .split_once(':')
                .map(|(a, _)| a)
                .filter(|a| nodes.contains(a));
            if named.is_none() {
                allowed.extend(hosts.iter().take(4).map(|h| h.to_string()));
            }
            'all: for a in named.map_or(nodes.to_vec(), |a| vec![a]) {
                for b in nodes {
                    if linked(a, b) {
                        if allowed.len() >= 8 {
                            allowed.push("...".to_string());
                            break 'all;
                        }
                        allowed.push(format!("{a}:{b}"));
                    }
                }
            }
            return Err(ScenarioError::new(
                format!("metrics.pcap[{i}]"),
                format!(
                    "{spec:?} is neither a host nor an output port; expected a host or \"node:peer\", one of {}",
                    allowed.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// The traced port as (switch, neighbour), checked against the
    /// topology: `linked(a, b)` says whether `a` has a port toward `b`.
    pub fn check_drop_trace(
        &self,
        switches: &[&str],
        nodes: &[&str],
        linked: impl Fn(&str, &str) -> bool,
    ) -> Result<(), ScenarioError> {
        let Some(spec) = &self.drop_trace else {
            return Ok(());
        };
        let parts = spec.split_once(':');
        let ok = parts.is_some_and(|(a, b)| switches.contains(&a) && linked(a, b));
        if ok {
            return Ok(());
        }
        // The allowed ports: those of the named switch, or of every switch.
        let from: Vec<&str> = match parts {
            Some((a, _)) if switches.contains(&a) => vec![a],
            _ => switches.to_vec(),
        };
        let mut allowed = Vec::new();
        'all: for s in &from {
            for n in nodes {
                if linked(s, n) {
                    if allowed.len() == 8 {
                        allowed.push("...".to_string());
                        break 'all;
                    }
                    allowed.push(format!("{s}:{n}"));
                }
            }
        }
        Err(ScenarioError::new(
            "metrics.drop_trace",
            format!(
                "{spec:?} is not a switch output port; expected \"switch:neighbour\", one of {}",
                allowed.join(", ")
            ),
        ))
    }
}
