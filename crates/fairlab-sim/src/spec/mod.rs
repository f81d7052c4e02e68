//! The scenario spec: what network, what workload, how long, which seed.
//! Written in terms of the network (hosts, links, ports, flows), never of
//! a backend's internals, so that the simulator and (later) the namespace
//! emulator can both run it.
//!
//! One file per concern: [`topology`], [`queues`] (one file per discipline),
//! [`hosts`], [`tcp`], [`workloads`] (one struct per kind), [`metrics`],
//! [`limits`]. Each part checks its own values; [`Scenario::resolve`] checks
//! how they fit together and what the run will cost. [`lower`] turns a
//! valid spec into a backend's configuration: `lower/sim.rs` is the only
//! place that knows the simulator's types.
//!
//! Read from TOML or JSON (the Python dict); every problem becomes one
//! [`ScenarioError`] naming the field path, the value and what is allowed.

mod error;
pub mod graph;
pub mod hosts;
pub mod limits;
pub mod lower;
pub mod metrics;
pub(crate) mod names;
pub mod queues;
pub mod routing;
pub mod switches;
mod tagged;
pub mod tcp;
pub mod topology;
mod units_serde;
pub mod workloads;

pub use error::ScenarioError;
pub use hosts::{
    ArbitrationName, FqSpec, HostProfile, HostSpec, HostStack, NicQdisc, NicRoot, TxqSelect,
};
pub use limits::{Estimate, LimitsSpec, MAX_TIME};
pub use lower::sim::build;
pub use metrics::MetricsSpec;
pub use queues::{
    Buffer, Discipline, DrrSpec, HcfPeriod, HcfSpec, HtbSpec, PortSpec, PriorityClass,
    PrioritySpec, QueueSpec, RedSpec, SfqSpec, ShaperSpec, TbfSpec,
};
pub use routing::{PathsName, RoutingSpec, SelectionName};
pub use switches::SwitchSpec;
pub use tcp::{
    CcName, Clock, ProfileName, Resolution, RtoDelay, SmallQueues, TcpSettings, TcpSpec,
};
pub use topology::{
    DumbbellSpec, ExplicitSpec, FatTreeSpec, HostList, LeafSpineSpec, LinkEntry, OutcastSpec,
    ParkingLotSpec, StarSpec, TopologySpec, MAX_HOSTS,
};
pub use workloads::{
    Arrivals, BulkSpec, IncastSpec, NfsReadSpec, RequestOrder, ServerList, ShortSpec, Transport,
    UdpSpec, WorkloadSpec, DEFAULT_REQUEST, DEFAULT_ROUNDS,
};

use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// Headers on every TCP segment (IPv4 + TCP, no options): a packet on the
/// wire is MSS + 40 bytes.
pub const TCP_IP_HEADER: u32 = 40;

/// Seed 1 when none is given: runs are reproducible by default.
fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Stop simulated time here; without it the run ends when every workload is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Time>,
    pub topology: TopologySpec,
    #[serde(default)]
    pub queue: QueueSpec,
    #[serde(default, rename = "port", skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortSpec>,
    #[serde(default)]
    pub host: HostSpec,
    #[serde(default, skip_serializing_if = "RoutingSpec::is_default")]
    pub routing: RoutingSpec,
    #[serde(default, skip_serializing_if = "SwitchSpec::is_default")]
    pub switch: SwitchSpec,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default, rename = "workload")]
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub metrics: MetricsSpec,
    #[serde(default, skip_serializing_if = "LimitsSpec::is_default")]
    pub limits: LimitsSpec,
}

/// What checking a scenario worked out, for the estimates and the lowerings.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// Host names in creation order.
    pub hosts: Vec<String>,
    /// Their positions, by name.
    pub host_index: topology::HostIndex,
    /// The `[tcp]` settings.
    pub tcp: TcpSettings,
    /// The workloads' distinct TCP settings: `[tcp]`'s, then each
    /// `[workload.tcp]` over them (consecutive equal ones once).
    tcp_settings: Vec<TcpSettings>,
    /// Per workload, its settings' place in `tcp_settings` (`NO_TCP`: UDP):
    /// 4 bytes per workload where a copy of the settings takes 136.
    workload_tcp: Vec<u32>,
    pub estimate: Estimate,
}

/// A workload without TCP settings (UDP), in `Resolved::workload_tcp`.
const NO_TCP: u32 = u32::MAX;

impl Resolved {
    /// Workload `i`'s TCP settings (`[tcp]` under its own
    /// `[workload.tcp]`); `None` for UDP.
    #[inline]
    pub fn workload_tcp(&self, i: usize) -> Option<&TcpSettings> {
        match self.workload_tcp[i] {
            NO_TCP => None,
            k => Some(&self.tcp_settings[k as usize]),
        }
    }
}

/// Strips serde_json's " at line L column C" suffix: the field path says where.
fn strip_location(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn path_string(p: &serde_path_to_error::Path) -> String {
    let s = p.to_string();
    if s == "." {
        String::new()
    } else {
        s
    }
}

/// The error of a parse that failed at `path` with serde's `msg`: a tagged
/// table's inner path joined on, and serde's generic phrasing of a missing
/// field made a message about that field.
fn parse_error(path: String, msg: &str, suffix: &str) -> ScenarioError {
    let (path, msg) = match tagged::split_nested(msg) {
        Some((inner, m)) => (tagged::join(&path, inner), m.to_string()),
        None => (path, msg.to_string()),
    };
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        // serde: "unknown field `x`, expected one of `a`, `b`" (or "there
        // are no fields"): said as the tagged tables say it.
        let (field, allowed) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = allowed
            .trim_start_matches(", ")
            .trim_start_matches("expected one of ")
            .trim_start_matches("expected ")
            .replace('`', "");
        let path = if path.ends_with(field) {
            path
        } else {
            tagged::join(&path, field)
        };
        let whose = match path.rsplit_once('.') {
            Some((table, _)) => format!("[{table}]"),
            None => "a scenario".to_string(),
        };
        return ScenarioError::new(
            path,
            format!("not a field of {whose}; expected one of {allowed}{suffix}"),
        );
    }
    if let Some(field) = msg
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        let table = if path.is_empty() {
            "a scenario"
        } else {
            "this table"
        };
        return ScenarioError::new(
            tagged::join(&path, field),
            format!("missing; {table} needs it{suffix}"),
        );
    }
    ScenarioError::new(path, format!("{}{suffix}", plain_types(&msg)))
}

/// serde's names of types said as the scenario documentation says them.
fn plain_types(msg: &str) -> String {
    let mut m = msg.to_string();
    for (rust, plain) in [
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        (
            "expected u64",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        ("expected f64", "expected a number"),
        ("invalid type: sequence", "invalid type: a list"),
        ("invalid type: map", "invalid type: a table"),
        ("expected a sequence", "expected a list"),
    ] {
        m = m.replace(rust, plain);
    }
    // "expected struct TcpSpec": a Rust type name means a table here.
    if let Some(i) = m.find("expected struct ") {
        let rest = &m[i + "expected struct ".len()..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        m = format!("{}expected a table{}", &m[..i], &rest[end..]);
    }
    m
}

/// JSON has no NaN or infinity: Python's `json.dumps` writes them anyway,
/// and serde_json says only "expected value". Names them instead.
fn json_special_number(text: &str, line: usize, column: usize) -> Option<&'static str> {
    let l = text.lines().nth(line.checked_sub(1)?)?;
    let at = column.saturating_sub(1);
    // serde_json stops at the token or, after a minus sign, just past it.
    for start in [at.saturating_sub(1), at] {
        let rest = l.get(start..)?;
        for (token, name) in [
            ("NaN", "NaN"),
            ("-Infinity", "-Infinity"),
            ("Infinity", "Infinity"),
        ] {
            if rest.starts_with(token) {
                return Some(name);
            }
        }
    }
    None
}

impl Scenario {
    /// Parses and validates a TOML scenario.
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = path_string(e.path());
            let inner = e.into_inner();
            let line = inner.span().map(|span| {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                format!(" (line {line})")
            });
            parse_error(path, inner.message(), line.as_deref().unwrap_or(""))
        })?;
        sc.validate()?;
        Ok(sc)
    }

    /// Parses and validates a JSON scenario (what Python dicts become).
    pub fn from_json_str(text: &str) -> Result<Scenario, ScenarioError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let sc: Scenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = path_string(e.path());
            let inner = e.into_inner();
            if let Some(n) = json_special_number(text, inner.line(), inner.column()) {
                return ScenarioError::new(
                    path,
                    format!("{n} is not allowed; expected a finite number"),
                );
            }
            // A syntax error has no field to name: say where it is instead.
            let at = match inner.classify() {
                serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                    format!(" (line {}, column {})", inner.line(), inner.column())
                }
                _ => String::new(),
            };
            parse_error(path, &strip_location(&inner.to_string()), &at)
        })?;
        sc.validate()?;
        Ok(sc)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a validated scenario serializes")
    }

    /// Host names in creation order.
    pub fn host_names(&self) -> Vec<String> {
        self.topology.host_names()
    }

    /// Switch names of the topology.
    pub fn switch_names(&self) -> Vec<&str> {
        self.topology.switch_names()
    }

    /// Checks everything serde cannot: which names exist, that buffers hold
    /// a packet, that times add up, that the run ends and fits the limits.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.resolve().map(|_| ())
    }

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
    fn nic_shaper(&self, host: &str) -> Option<(String, crate::units::BitsPerSec)> {
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
    fn switch_shaper(&self) -> Option<(String, crate::units::BitsPerSec)> {
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
            limits::check_time("duration", d)?;
        }
        let hosts = self
            .topology
            .validate(self.limits.max_hosts, self.limits.max_memory.get())?;
        let switches = self.topology.switch_names();
        let switch_set: std::collections::HashSet<&str> = switches.iter().copied().collect();
        let host_index = topology::index(&hosts);
        let is_node = |n: &str| host_index.contains_key(n) || switch_set.contains(n);

        self.queue.validate()?;
        self.queue.check_port(
            self.queue.discipline,
            self.queue.limit,
            packet,
            "queue.limit",
        )?;
        if let Some(k) = &self.queue.ecn_threshold {
            queues::limit_fits("queue.ecn_threshold", k, packet)?;
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
            .check_addresses(&hosts, |i| self.topology.planned_addr(i))?;
        self.routing
            .validate(&switch_set, &switches, &self.topology)?;
        limits::check_time("host.send_jitter", self.host.send_jitter)?;
        limits::check_time("switch.forwarding_jitter", self.switch.forwarding_jitter)?;
        {
            let nodes: Vec<&str> = hosts
                .iter()
                .map(|h| h.as_str())
                .chain(switches.iter().copied())
                .collect();
            self.metrics.check_drop_trace(&switches, &nodes, |a, b| {
                self.topology.linked(&host_index, a, b)
            })?;
        }
        for (i, p) in self.ports.iter().enumerate() {
            let at = |f: &str| format!("port[{i}].{f}");
            for (f, n) in [("node", &p.node), ("peer", &p.peer)] {
                if !is_node(n) {
                    return Err(workloads::unknown_node(&at(f), n, &hosts, &switches));
                }
            }
            if !self.topology.linked(&host_index, &p.node, &p.peer) {
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
                queues::limit_fits(&at("ecn_threshold"), k, packet)?;
            }
        }

        // Shapers' own fields, before the round trips that count them.
        for (path, s) in self.shapers() {
            s.validate(&path)?;
        }

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
                hosts: &hosts,
                index: &host_index,
                tcp: settings(i).unwrap_or(&tcp),
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
                self.check_round_trip(&path, w, t, &hosts, &host_index)?;
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
        self.metrics.validate()?;
        let conns: u64 = self
            .workloads
            .iter()
            .map(|w| match w {
                WorkloadSpec::Incast(w) => w.server_count(&hosts) as u64,
                WorkloadSpec::Bulk(_) => 1,
                WorkloadSpec::Short(s) => s.count as u64,
                WorkloadSpec::NfsRead(w) => w.client_count(&hosts) as u64,
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

        let mut r = Resolved {
            hosts,
            host_index,
            tcp,
            tcp_settings,
            workload_tcp,
            estimate: Estimate::default(),
        };
        r.estimate = Estimate::of(self, &r);
        self.limits.check(&r.estimate)?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests;
