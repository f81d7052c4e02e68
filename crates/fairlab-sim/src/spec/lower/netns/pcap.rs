//! `[metrics] pcap` in the namespaces: each point's interfaces, where a
//! packet socket in that node's namespace captures (emu/pcap.py). A port
//! is its interface's outgoing packets, as tcpdump there sees them after
//! the qdisc; a host is its interfaces both ways.

use crate::spec::metrics::{DEFAULT_PCAP_MAX_BYTES, DEFAULT_PCAP_MAX_PACKETS};
use crate::spec::Scenario;
use serde::Serialize;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanPcap {
    /// The point as the scenario names it (`"node:peer"` or a host).
    pub name: String,
    /// The node whose namespace holds the interfaces.
    pub node: String,
    /// The interfaces, as (link, end).
    pub ifaces: Vec<(u32, String)>,
    /// Outgoing packets only (a port), or both directions (a host).
    pub outgoing_only: bool,
    pub max_packets: u64,
    pub max_bytes: u64,
}

/// A port as the plan has it: (node, peer, link, end).
pub type PortEnds<'a> = (&'a str, &'a str, u32, &'a str);

/// The capture plan of each point (names checked by the spec), from the
/// plan's ports.
pub fn plan(sc: &Scenario, ports: &[PortEnds]) -> Vec<PlanPcap> {
    let m = &sc.metrics;
    let max_packets = m.pcap_max_packets.unwrap_or(DEFAULT_PCAP_MAX_PACKETS);
    let max_bytes = m.pcap_max_bytes.map_or(DEFAULT_PCAP_MAX_BYTES, |b| b.get());
    let Some(points) = &m.pcap else {
        return Vec::new();
    };
    points
        .iter()
        .map(|name| {
            let (node, outgoing_only, ifaces) = match name.split_once(':') {
                Some((node, peer)) => (
                    node,
                    true,
                    ports
                        .iter()
                        .filter(|p| p.0 == node && p.1 == peer)
                        .map(|p| (p.2, p.3.to_string()))
                        .collect(),
                ),
                None => (
                    name.as_str(),
                    false,
                    ports
                        .iter()
                        .filter(|p| p.0 == name)
                        .map(|p| (p.2, p.3.to_string()))
                        .collect(),
                ),
            };
            PlanPcap {
                name: name.clone(),
                node: node.to_string(),
                ifaces,
                outgoing_only,
                max_packets,
                max_bytes,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::spec::lower::netns::{lower_toml, Machine};

    #[test]
    fn a_port_is_its_interface_outgoing_and_a_host_its_interface_both_ways() {
        let text = r#"
[topology]
kind = "star"
hosts = ["client", "s1"]
rate = "100Mbps"
delay = "25us"
[[workload]]
kind = "incast"
client = "client"
sru = "32KiB"
rounds = 1
[metrics]
pcap = ["sw:client", "s1"]
pcap_max_packets = 10
"#;
        let machine = Machine {
            hz: 250,
            congestion_controls: vec!["reno".into(), "cubic".into()],
            qdiscs: ["htb", "tbf", "bfifo", "pfifo"].map(String::from).to_vec(),
        };
        let plan = lower_toml(text, &machine).unwrap();
        let port = |node: &str, peer: &str| {
            let p = plan.ports.iter().find(|p| p.node == node && p.peer == peer);
            p.map(|p| (p.link, p.end.clone())).unwrap()
        };
        let [a, b] = &plan.pcap[..] else {
            panic!("{:?}", plan.pcap)
        };
        assert_eq!((a.node.as_str(), a.outgoing_only), ("sw", true));
        assert_eq!(a.ifaces, vec![port("sw", "client")]);
        assert_eq!((b.node.as_str(), b.outgoing_only), ("s1", false));
        assert_eq!(b.ifaces, vec![port("s1", "sw")]);
        assert_eq!((a.max_packets, b.max_bytes), (10, 128 << 20));
    }
}
