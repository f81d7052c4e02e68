//! [`Scenario::resolve`]: everything serde cannot check — which names
//! exist, that buffers hold a packet, that times add up, that the run ends
//! — and what the run will cost ([`estimate`]) against `[limits]`.
//! Apart from `mod.rs` so that the scenario's types import none of the
//! checks (which read them): `spec/`'s imports form no circle.

use super::check::{check_time, limit_fits, MAX_TIME};
use super::error::ScenarioError;
use super::estimate;
use super::limits::Estimate;
use super::queues::ShaperSpec;
use super::tcp::{ProfileName, TcpSettings};
use super::topology;
use super::workloads::{self, WorkloadSpec};
use super::{Resolved, Scenario, NO_TCP, TCP_IP_HEADER};
use crate::units::{Bytes, Time};

impl Scenario {
    /// A connection whose round trip is longer than its largest RTO times
    /// out before any ACK can return, every time (33 times its estimated
    /// packets with 1000 s links and the default 60 s max_rto).
    fn check_round_trip(
        &self,
        path: &str,
        w: &WorkloadSpec,
        t: &TcpSettings,
        hosts: &[String],
        index: &topology::HostIndex,
    ) -> Result<(), ScenarioError> {
        let pairs: Vec<(String, String)> = match w {
            WorkloadSpec::Incast(w) => w
                .servers(hosts)
                .into_iter()
                .map(|s| (s, w.client.clone()))
                .collect(),
            WorkloadSpec::Bulk(b) => vec![(b.src.clone(), b.dst.clone())],
            WorkloadSpec::Short(s) => vec![(s.src.clone(), s.dst.clone())],
            WorkloadSpec::NfsRead(w) => w
                .clients(hosts)
                .into_iter()
                .map(|c| (w.server.clone(), c))
                .collect(),
            WorkloadSpec::Udp(_) => return Ok(()),
        };
        let packet = Bytes((t.mss + TCP_IP_HEADER) as u64);
        let header = Bytes(TCP_IP_HEADER as u64);
        for (a, b) in pairs {
            let links = self
                .topology
                .one_way(index, &a, &b, packet)
                .saturating_add(self.topology.one_way(index, &b, &a, header));
            // Once their buckets are drained (a full bucket lets a burst
            // through at once), shapers hold each packet for its time at
            // their rate: at the sending host's NIC, and at one switch
            // port or more.
            let mut shaped = Time::ZERO;
            let mut slowest = (Time::ZERO, String::new());
            for (from, size) in [(&a, packet), (&b, header)] {
                for (field, rate) in [self.nic_shaper(from), self.switch_shaper()]
                    .into_iter()
                    .flatten()
                {
                    let held = rate.serialization(size);
                    shaped = shaped.saturating_add(held);
                    if held > slowest.0 {
                        slowest = (held, format!("{field}.rate"));
                    }
                }
            }
            let rtt = links.saturating_add(shaped);
            if rtt >= t.max_rto {
                let field = if shaped > links {
                    slowest.1
                } else {
                    let f = self.topology.slowest_part(index, &a, &b, packet);
                    format!("topology.{f}")
                };
                return Err(ScenarioError::new(
                    field,
                    format!(
                        "{path} has a round trip of \"{rtt}\" from {a:?} to {b:?}, not below its max_rto \"{}\": every retransmission timer would expire before an ACK came back; expected shorter links, faster shapers or a longer max_rto",
                        t.max_rto
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The shaper on `host`'s NIC, if any: its field and rate (a
    /// `[[port]]` of the host's in place of `[host]`'s).
    pub(super) fn nic_shaper(&self, host: &str) -> Option<(String, crate::units::BitsPerSec)> {
        let own = self.ports.iter().enumerate().find_map(|(i, p)| {
            (p.node == host)
                .then_some(p.shaper.as_ref())
                .flatten()
                .map(|s| (format!("port[{i}].shaper"), s.rate()))
        });
        own.or_else(|| {
            self.host
                .shaper
                .as_ref()
                .map(|s| ("host.shaper".to_string(), s.rate()))
        })
    }

    /// The fastest shaper a switch port may have, if every switch port
    /// has one (`[queue]`'s, or a `[[port]]`'s in its place).
    pub(super) fn switch_shaper(&self) -> Option<(String, crate::units::BitsPerSec)> {
        let default = self.queue.shaper.as_ref()?;
        let mut fastest = ("queue.shaper".to_string(), default.rate());
        let switches = self.switch_names();
        for (i, p) in self.ports.iter().enumerate() {
            if let Some(s) = &p.shaper {
                if switches.contains(&p.node.as_str()) && s.rate() > fastest.1 {
                    fastest = (format!("port[{i}].shaper"), s.rate());
                }
            }
        }
        Some(fastest)
    }

    /// Every shaper the scenario sets, with its field path.
    fn shapers(&self) -> impl Iterator<Item = (String, &ShaperSpec)> {
        [
            ("queue.shaper".to_string(), &self.queue.shaper),
            ("host.shaper".to_string(), &self.host.shaper),
        ]
        .into_iter()
        .chain(
            self.ports
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("port[{i}].shaper"), &p.shaper)),
        )
        .filter_map(|(path, s)| Some((path, s.as_ref()?)))
    }

    /// The slowest shaper of the scenario's, if any.
    pub fn slowest_shaper(&self) -> Option<crate::units::BitsPerSec> {
        self.shapers().map(|(_, s)| s.rate()).min()
    }

    /// The `[tcp]` profile in force: `[tcp] profile`, else the host
    /// profile's, else "rfc".
    pub fn tcp_profile(&self) -> ProfileName {
        self.tcp
            .profile
            .or(self.host.tcp_profile())
            .unwrap_or(ProfileName::Rfc)
    }

    /// Validates, and returns what validation worked out.
    pub fn resolve(&self) -> Result<Resolved, ScenarioError> {
        let (tcp, tcp_settings, workload_tcp) = self.resolve_tcp()?;
        let settings = |i: usize| match workload_tcp[i] {
            NO_TCP => None,
            k => Some(&tcp_settings[k as usize]),
        };
        // Every buffer must hold the largest segment any connection sends.
        let largest_mss = (0..workload_tcp.len())
            .filter_map(settings)
            .map(|t| t.mss)
            .fold(tcp.mss, u32::max);
        let packet = Bytes((largest_mss + TCP_IP_HEADER) as u64);
        if let Some(d) = self.duration {
            if d == Time::ZERO {
                return Err(ScenarioError::new(
                    "duration",
                    "\"0s\" is not allowed; expected a positive duration",
                ));
            }
            check_time("duration", d)?;
        }
        let hosts = self.topology.validate(
            self.limits.max_hosts,
            self.limits.max_memory.get(),
            self.limits.max_route_work,
        )?;
        let host_index = topology::index(&hosts);
        let found = Found {
            hosts: &hosts,
            switches: self.topology.switch_names(),
            index: &host_index,
            packet,
        };
        self.check_network(&found)?;
        self.check_ports(&found)?;
        // Shapers' own fields, before the round trips that count them.
        for (path, s) in self.shapers() {
            s.validate(&path)?;
        }
        self.check_workloads(&found, &tcp, settings)?;
        self.radon.validate("radon")?;
        self.link.validate()?;
        self.metrics.validate()?;
        self.check_flows(&hosts)?;
        let mut r = Resolved {
            hosts,
            host_index,
            tcp,
            tcp_settings,
            workload_tcp,
            estimate: Estimate::default(),
        };
        r.estimate = estimate::of(self, &r);
        self.limits.check(&r.estimate)?;
        Ok(r)
    }

    /// `[tcp]` resolved, the workloads' distinct settings (`[tcp]`'s first)
    /// and each workload's place among them (see [`Resolved`]).
    fn resolve_tcp(&self) -> Result<(TcpSettings, Vec<TcpSettings>, Vec<u32>), ScenarioError> {
        let default_profile = self.host.tcp_profile().unwrap_or(ProfileName::Rfc);
        let tcp = self.tcp.resolve_from("tcp", default_profile)?;
        let mut tcp_settings = vec![tcp];
        let mut workload_tcp = Vec::with_capacity(self.workloads.len());
        for (i, w) in self.workloads.iter().enumerate() {
            workload_tcp.push(match (w, w.tcp()) {
                (WorkloadSpec::Udp(_), _) => NO_TCP,
                (_, Some(t)) => {
                    let s = self
                        .tcp
                        .overlaid(t)
                        .resolve_from(&format!("workload[{i}].tcp"), default_profile)?;
                    if s == tcp {
                        0
                    } else {
                        if tcp_settings.last() != Some(&s) {
                            tcp_settings.push(s);
                        }
                        (tcp_settings.len() - 1) as u32
                    }
                }
                (_, None) => 0,
            });
        }
        Ok((tcp, tcp_settings, workload_tcp))
    }

    /// `[queue]`, the topology's buffers, `[host]`, `[routing]`, the
    /// jitters and the drop trace's port.
    fn check_network(&self, f: &Found) -> Result<(), ScenarioError> {
        let (hosts, switches, host_index, packet) = (f.hosts, &f.switches, f.index, f.packet);
        self.queue.validate()?;
        self.queue.check_port(
            self.queue.discipline,
            self.queue.limit,
            packet,
            "queue.limit",
        )?;
        if let Some(k) = &self.queue.ecn_threshold {
            limit_fits("queue.ecn_threshold", k, packet)?;
        }
        for (path, b) in self.topology.buffers() {
            self.queue
                .check_port(self.queue.discipline, b, packet, &path)?;
        }
        self.host.validate(packet)?;
        let stack = self.host.stack();
        if !stack.is_plain() {
            // The NIC's qdisc holds `nic_queue` under the discipline tables'
            // parameters, as a switch port would.
            self.queue.check_port(
                stack.qdisc.discipline(),
                stack.nic_queue,
                packet,
                "host.nic_queue",
            )?;
        }
        self.host
            .check_addresses(hosts, |i| self.topology.planned_addr(i))?;
        let switch_set: std::collections::HashSet<&str> = switches.iter().copied().collect();
        self.routing
            .validate(&switch_set, switches, &self.topology)?;
        check_time("host.send_jitter", self.host.send_jitter)?;
        check_time("switch.forwarding_jitter", self.switch.forwarding_jitter)?;
        {
            let nodes: Vec<&str> = hosts
                .iter()
                .map(|h| h.as_str())
                .chain(switches.iter().copied())
                .collect();
            self.metrics.check_drop_trace(switches, &nodes, |a, b| {
                self.topology.linked(host_index, a, b)
            })?;
            let host_names: Vec<&str> = hosts.iter().map(|h| h.as_str()).collect();
            self.metrics.check_pcap(&host_names, &nodes, |a, b| {
                self.topology.linked(host_index, a, b)
            })?;
        }
        Ok(())
    }

    /// Each `[[port]]`: its ends, linked, once, and what its queue needs.
    fn check_ports(&self, f: &Found) -> Result<(), ScenarioError> {
        let (hosts, switches, host_index, packet) = (f.hosts, &f.switches, f.index, f.packet);
        let is_node = |n: &str| host_index.contains_key(n) || switches.contains(&n);
        for (i, p) in self.ports.iter().enumerate() {
            let at = |f: &str| format!("port[{i}].{f}");
            for (f, n) in [("node", &p.node), ("peer", &p.peer)] {
                if !is_node(n) {
                    return Err(workloads::unknown_node(&at(f), n, hosts, switches));
                }
            }
            if !self.topology.linked(host_index, &p.node, &p.peer) {
                return Err(ScenarioError::new(
                    at("peer"),
                    format!(
                        "{:?} is not linked to {:?}; expected a neighbour of that node",
                        p.peer, p.node
                    ),
                ));
            }
            if let Some(j) = self.ports[..i]
                .iter()
                .position(|o| o.node == p.node && o.peer == p.peer)
            {
                return Err(ScenarioError::new(
                    format!("port[{i}]"),
                    format!(
                        "the port of {:?} toward {:?} again (port[{j}]); expected one override per port",
                        p.node, p.peer
                    ),
                ));
            }
            let disc = p.discipline.unwrap_or(self.queue.discipline);
            let limit = p.limit.unwrap_or(self.queue.limit);
            let path = if p.limit.is_some() {
                at("limit")
            } else {
                at("discipline")
            };
            self.queue.check_port(disc, limit, packet, &path)?;
            if let Some(k) = &p.ecn_threshold {
                limit_fits(&at("ecn_threshold"), k, packet)?;
            }
        }

        Ok(())
    }

    /// Each workload's own values, its start, its round trips; the
    /// shapers' buckets against the largest packet; a duration where a
    /// workload needs one.
    fn check_workloads<'s>(
        &self,
        f: &Found,
        tcp: &TcpSettings,
        settings: impl Fn(usize) -> Option<&'s TcpSettings>,
    ) -> Result<(), ScenarioError> {
        let (hosts, host_index, packet) = (f.hosts, f.index, f.packet);
        if self.workloads.is_empty() {
            return Err(ScenarioError::new(
                "workload",
                "no workload given; expected at least one [[workload]] (kind = \"incast\", \"bulk\", \"short\", \"udp\" or \"nfs_read\")",
            ));
        }
        let mut unbounded = false;
        for (i, w) in self.workloads.iter().enumerate() {
            let path = format!("workload[{i}]");
            let cx = workloads::Context {
                path: path.clone(),
                hosts,
                index: host_index,
                tcp: settings(i).unwrap_or(tcp),
            };
            w.validate(&cx)?;
            match w.last_open() {
                Some(t) if t <= MAX_TIME => {}
                _ => {
                    return Err(ScenarioError::new(
                        format!("{path}.{}", if w.kind() == "short" { "spread" } else { "start" }),
                        format!("start + spread is past \"{MAX_TIME}\"; expected the flows to open within about 11.6 days of simulated time"),
                    ))
                }
            }
            unbounded |= w.unbounded();
            if let Some(t) = settings(i) {
                self.check_round_trip(&path, w, t, hosts, host_index)?;
            }
        }
        // A TBF bucket must hold the largest packet, once the packets the
        // workloads send are known valid.
        let largest = self
            .workloads
            .iter()
            .filter_map(|w| match w {
                WorkloadSpec::Udp(u) => {
                    Some(u.packet_size.unwrap_or(workloads::DEFAULT_UDP_PACKET))
                }
                _ => None,
            })
            .fold(packet, Bytes::max);
        for (path, s) in self.shapers() {
            s.check_packet(&path, largest)?;
        }
        if unbounded && self.duration.is_none() {
            return Err(ScenarioError::new(
                "duration",
                "missing; a bulk workload without a size (or a udp workload) runs until the run ends, so the scenario needs a duration such as \"1s\"",
            ));
        }
        Ok(())
    }

    /// Flows within `max_flows` (the estimates walk every one), and the
    /// traced flows among them.
    fn check_flows(&self, hosts: &[String]) -> Result<(), ScenarioError> {
        let conns: u64 = self
            .workloads
            .iter()
            .map(|w| match w {
                WorkloadSpec::Incast(w) => w.server_count(hosts) as u64,
                WorkloadSpec::Bulk(_) => 1,
                WorkloadSpec::Short(s) => s.count as u64,
                WorkloadSpec::NfsRead(w) => w.client_count(hosts) as u64,
                WorkloadSpec::Udp(_) => 0,
            })
            .sum();
        // Flows first: the estimates below walk every one.
        let udp = self.workloads.iter().filter(|w| w.kind() == "udp").count() as u64;
        if conns.saturating_add(udp) > self.limits.max_flows {
            return Err(ScenarioError::new(
                "workload",
                format!(
                    "{} TCP connections and UDP flows; expected at most {} (raise [limits] max_flows to run more)",
                    conns.saturating_add(udp),
                    self.limits.max_flows
                ),
            ));
        }
        if let Some(ids) = &self.metrics.trace_flows {
            if !self.metrics.trace {
                return Err(ScenarioError::new(
                    "metrics.trace_flows",
                    "given while trace is off; expected trace = true with it",
                ));
            }
            if let Some((j, id)) = ids.iter().enumerate().find(|(_, id)| **id as u64 >= conns) {
                return Err(ScenarioError::new(
                    format!("metrics.trace_flows[{j}]"),
                    format!("{id} is not a TCP flow; expected an id from 0 to {} (connections in workload order)", conns.saturating_sub(1)),
                ));
            }
        }

        Ok(())
    }
}

/// What the checks share once the topology is known.
struct Found<'a> {
    hosts: &'a [String],
    switches: Vec<&'a str>,
    index: &'a topology::HostIndex,
    /// The largest packet a connection sends.
    packet: Bytes,
}
