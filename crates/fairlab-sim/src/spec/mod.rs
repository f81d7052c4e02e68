//! The scenario spec: what network, what workload, how long, which seed.
//! Written in terms of the network (hosts, links, ports, flows), never of
//! a backend's internals, so that the simulator and (later) the namespace
//! emulator can both run it.
//!
//! One file per concern: [`topology`], [`queues`] (one file per discipline),
//! [`hosts`], [`tcp`], [`workloads`] (one struct per kind), [`metrics`],
//! [`limits`]. Each part checks its own values (with the field checkers of
//! [`check`], the bottom of `spec/`) and estimates its own cost
//! ([`cost`]); [`Scenario::resolve`] (`resolve.rs`) checks how they fit
//! together and `estimate.rs` adds up what the run will cost. [`lower`]
//! turns a valid spec into a backend's configuration: `lower/sim.rs` is
//! the only place that knows the simulator's types. The vocabulary both
//! share (buffer limits, the named enums) is [`crate::vocab`]'s, defined
//! once. The files import one another without a circle
//! (`imports_test.rs` reads them and checks).
//!
//! Read from TOML or JSON (the Python dict); every problem becomes one
//! [`ScenarioError`] naming the field path, the value and what is allowed.

pub mod check;
pub mod cost;
mod error;
mod estimate;
pub mod graph;
pub mod hosts;
pub mod limits;
pub mod link;
pub mod lower;
pub mod metrics;
pub mod queues;
pub mod radon;
mod resolve;
pub mod routing;
pub mod switches;
mod tagged;
pub mod tcp;
pub mod topology;
mod units_serde;
pub mod workloads;

pub use crate::vocab::BufferLimit;
pub use check::MAX_TIME;
pub use error::{name_list, ScenarioError};
pub use hosts::{
    ArbitrationName, FqSpec, HostProfile, HostSpec, HostStack, NicQdisc, NicRoot, TxqSelect,
};
pub use limits::{Estimate, LimitsSpec};
pub use link::LinkSpec;
pub use lower::sim::build;
pub use metrics::MetricsSpec;
pub use queues::{
    Class, Discipline, DrrSpec, HcfSpec, HtbSpec, Period, PortSpec, PrioritySpec, QueueSpec,
    RedSpec, SfqSpec, ShaperSpec, TbfSpec,
};
pub use radon::{RadonSettings, RadonSpec};
pub use routing::{PathsName, RoutingSpec, SelectionName};
pub use switches::SwitchSpec;
pub use tcp::{
    CcKind, Clock, ProfileName, Resolution, RtoDelay, SmallQueues, TcpSettings, TcpSpec,
};
pub use topology::{
    DumbbellSpec, ExplicitSpec, FatTreeSpec, HostList, LeafSpineSpec, LinkEntry, OutcastSpec,
    ParkingLotSpec, StarSpec, TopologySpec, MAX_HOSTS,
};
pub use workloads::{
    Arrivals, BulkSpec, IncastSpec, NfsReadSpec, RequestOrder, ServerList, ShortSpec, Transport,
    UdpSpec, WorkloadSpec, DEFAULT_REQUEST, DEFAULT_ROUNDS,
};

use crate::units::Time;
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
    /// What every wire carries besides the IP packet.
    #[serde(default, skip_serializing_if = "LinkSpec::is_default")]
    pub link: LinkSpec,
    /// Radon streams' settings (udp workloads on `transport = "radon"`).
    #[serde(default, skip_serializing_if = "RadonSpec::is_default")]
    pub radon: RadonSpec,
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
    if let Some(said) = out_of_range_integer(&m) {
        m = said;
    }
    m = m.replace("number too large to fit in target type", TOML_INTEGER_RANGE);
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

/// What TOML's "number too large to fit in target type" means.
pub const TOML_INTEGER_RANGE: &str = "an integer outside the signed 64-bit range";

/// serde_json reads an integer beyond u64 and i64 as a float, so 2^64
/// arrives as "invalid type: floating point `1.8446744073709552e+19`":
/// said as the integer range it is outside of.
fn out_of_range_integer(msg: &str) -> Option<String> {
    const FLOAT: &str = "floating point `";
    let i = msg.find(FLOAT)?;
    let rest = &msg[i + FLOAT.len()..];
    let end = rest.find('`')?;
    let v: f64 = rest[..end].parse().ok()?;
    let said = if v.fract() != 0.0 {
        return None;
    } else if v >= 18_446_744_073_709_551_616.0 {
        "an integer above 2^64-1"
    } else if v <= -9_223_372_036_854_775_808.0 {
        "an integer below -2^63"
    } else {
        return None;
    };
    Some(format!("{}{said}{}", &msg[..i], &rest[end + 1..]))
}

/// The key a TOML value at byte `offset` of `text` is written under, as
/// `table.key` (the last `[table]` header above it, then the key before
/// the `=` on its line), for errors the TOML parser gives without a path.
pub fn toml_key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let before = text.get(..offset)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    let eq = line.rfind('=')?;
    let key_start = line[..eq].rfind(['{', ',']).map_or(0, |i| i + 1);
    let key = line[key_start..eq].trim();
    if key.is_empty() {
        return None;
    }
    let table = before[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[')
            .then(|| l.trim_matches(|c| c == '[' || c == ']').trim())
    });
    Some(match table {
        Some(t) if !t.is_empty() && !key_start_in_inline(line, key_start) => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

/// Whether a key starting at `at` sits inside an inline table, whose own
/// key the line's table header does not prefix.
fn key_start_in_inline(line: &str, at: usize) -> bool {
    at > 0 && line[..at].contains('{')
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
            let mut path = path_string(e.path());
            let inner = e.into_inner();
            if path.is_empty() && inner.message().contains("number too large") {
                // The parser's own error has no path: the key is in the text.
                if let Some(key) = inner.span().and_then(|sp| toml_key_at(text, sp.start)) {
                    path = key;
                }
            }
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
}

#[cfg(test)]
mod error_bound_test;
#[cfg(test)]
mod estimate_test;
#[cfg(test)]
mod imports_test;
#[cfg(test)]
mod tcp_auto_test;
#[cfg(test)]
mod tests;
