//! `[metrics] pcap`: the capture points, resolved to ports and hosts.

use crate::sim::capture::CapturePoint;
use crate::sim::Simulation;
use crate::spec::metrics::{DEFAULT_PCAP_MAX_BYTES, DEFAULT_PCAP_MAX_PACKETS};
use crate::spec::{Scenario, ScenarioError};

/// Installs the captures (the spec checked the names; a port the network
/// lacks is refused all the same). Call once the flows are named.
pub fn install(sc: &Scenario, sim: &mut Simulation) -> Result<(), ScenarioError> {
    let m = &sc.metrics;
    let Some(names) = &m.pcap else {
        return Ok(());
    };
    let net = &sim.net;
    let node = |s: &str| net.nodes.iter().position(|n| n.name == s);
    let mut points = Vec::with_capacity(names.len());
    for (i, text) in names.iter().enumerate() {
        let at = match text.split_once(':') {
            Some((a, b)) => node(a).zip(node(b)).and_then(|(a, b)| {
                let p = net
                    .ports
                    .iter()
                    .position(|p| p.node as usize == a && p.peer as usize == b)?;
                Some(CapturePoint::Port(p as u32))
            }),
            None => node(text).map(|h| CapturePoint::Host(h as u32)),
        };
        let at = at.ok_or_else(|| {
            ScenarioError::new(
                format!("metrics.pcap[{i}]"),
                format!("{text:?} names no port or host; expected \"node:peer\" of linked nodes or a host"),
            )
        })?;
        points.push((text.clone(), at));
    }
    let max_packets = m.pcap_max_packets.unwrap_or(DEFAULT_PCAP_MAX_PACKETS);
    let max_bytes = m.pcap_max_bytes.map_or(DEFAULT_PCAP_MAX_BYTES, |b| b.get());
    sim.capture(points, max_packets, max_bytes);
    Ok(())
}
