//! What a run measured, as columnar tables: flows, incast rounds, NFS
//! reads, ports
//! (switch and NIC), NIC transmit queues, and (when asked) per-flow
//! throughput, queue and congestion-state time series.
//!
//! Each table is owned by one [`Collector`], in its own file; a collector
//! may also add values to the run summary, or only that. Adding a table (a
//! workload's, a discipline's) or a transport's rows and totals (TCP's
//! flows table and totals, UDP's datagram totals) is adding a collector to
//! [`COLLECTORS`], not editing a function that knows every workload,
//! transport and discipline.

mod drops;
mod nic;
mod paths;
mod ports;
mod radon;
mod radon_bounds;
mod reads;
mod rounds;
mod series;
mod table;
mod tcp_flows;
mod trace;
mod udp_totals;

pub use table::{Column, Fnv64, Table};

use crate::sim::Simulation;
use crate::units::Time;

/// A scalar of the run summary.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
}

/// The run summary, in the order values were added.
pub type Summary = Vec<(String, Value)>;

#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub summary: Summary,
    pub tables: Vec<(String, Table)>,
    /// The packet captures (`[metrics] pcap`), one libpcap file per point.
    pub pcap: Vec<crate::sim::capture::PcapFile>,
}

impl RunResult {
    pub fn table(&self, name: &str) -> &Table {
        &self.tables.iter().find(|t| t.0 == name).expect("table").1
    }
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.summary.iter().find(|v| v.0 == name).map(|v| &v.1)
    }
    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(Value::Float(f)) => *f,
            Some(Value::Int(i)) => *i as f64,
            _ => f64::NAN,
        }
    }
    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(Value::Int(i)) => *i,
            _ => panic!("no int {name}"),
        }
    }
    pub fn digest(&self) -> String {
        match self.get("digest") {
            Some(Value::Str(s)) => s.clone(),
            _ => String::new(),
        }
    }
}

/// Builds one table of a finished simulation, and the summary values that
/// go with it.
pub trait Collector: Sync {
    /// The table's name (or the collector's, if it has no table).
    fn name(&self) -> &'static str;
    /// The table (one row per flow, port, sample...), if it has one: a
    /// transport's collector may add only to the summary.
    fn table(&self, sim: &Simulation) -> Option<Table>;
    /// Values this collector adds to the run summary.
    fn summary(&self, _sim: &Simulation, _out: &mut Summary) {}
}

/// Every table of a run, in the order they are reported.
pub const COLLECTORS: &[&dyn Collector] = &[
    // One per transport: TCP's table is the flows table.
    &tcp_flows::TcpFlows,
    &udp_totals::UdpTotals,
    &rounds::Rounds,
    &ports::Ports,
    &series::FlowSeries,
    &series::QueueSeries,
    &trace::Trace,
    &nic::NicQueues,
    &paths::Paths,
    &drops::PortInputs,
    &drops::DropRuns,
    &drops::FlowDropRuns,
    &drops::DropTrace,
    &reads::Reads,
    // Radon's: none of them has rows in a run without Radon streams.
    &radon::RadonStreams,
    &radon::RadonSeries,
    &radon_bounds::PortBounds,
];

pub(crate) fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

/// Tables the digest leaves out, all added after digests were first
/// recorded, so that every run's digest stays what it was: `paths`
/// describes the network as routed, not what the run did; the drop tables
/// break down by input port the drops the (digested) ports table counts.
pub const NOT_DIGESTED: &[&str] = &[
    "paths",
    "port_inputs",
    "drop_runs",
    "flow_drop_runs",
    "drop_trace",
];

/// Tables the digest covers only when they have rows: added after digests
/// were first recorded, by a workload no earlier run had (the reads table
/// of NFS reads), so that every earlier run keeps its digest and a run
/// with rows has them digested.
pub const DIGESTED_WHEN_NONEMPTY: &[&str] = &["reads"];

/// Columns the digest leaves out, by (table, column), for the same reason:
/// the ports table's shaper columns (added with shapers) describe a port's
/// shaper and how often it held a packet, and every run without a shaper
/// keeps the digest it had; the nic_queues table's root qdisc columns
/// (added with root qdiscs) likewise.
pub const NOT_DIGESTED_COLUMNS: &[(&str, &str)] = &[
    ("ports", "shaper"),
    ("ports", "shaper_waits"),
    ("nic_queues", "requeues"),
    ("nic_queues", "root_stall_s"),
    ("nic_queues", "root_stalled"),
];

/// The digest of a run's tables: every table and column but the ones
/// [`NOT_DIGESTED`] and [`NOT_DIGESTED_COLUMNS`] name (and the tables of
/// [`DIGESTED_WHEN_NONEMPTY`] without rows), names and values bit for bit
/// (FNV-1a).
pub fn digest_of(tables: &[(String, Table)]) -> String {
    let mut h = Fnv64::default();
    for (n, t) in tables.iter().filter(|(n, t)| {
        !NOT_DIGESTED.contains(&n.as_str())
            && (t.rows() > 0 || !DIGESTED_WHEN_NONEMPTY.contains(&n.as_str()))
    }) {
        h.write(n.as_bytes());
        t.hash_columns_into(&mut h, |c| !NOT_DIGESTED_COLUMNS.contains(&(n.as_str(), c)));
    }
    format!("{:016x}", h.finish())
}

/// Gathers the tables and summary of a finished simulation.
pub fn collect(sim: &Simulation) -> RunResult {
    let c = &sim.counters;
    let mut summary: Summary = vec![
        ("seed".into(), Value::Int(sim.seed as i64)),
        ("profile".into(), Value::Str(sim.profile.to_string())),
        ("sim_end_s".into(), Value::Float(secs(sim.end_time()))),
        (
            "events".into(),
            Value::Int(sim.events.events_processed() as i64),
        ),
        ("packets_sent".into(), Value::Int(c.packets_sent as i64)),
        (
            "data_packets_sent".into(),
            Value::Int(c.data_packets_sent as i64),
        ),
        ("packet_hops".into(), Value::Int(c.packet_hops as i64)),
        ("drops".into(), Value::Int(c.drops as i64)),
        ("local_drops".into(), Value::Int(c.local_drops as i64)),
    ];
    let mut tables = Vec::with_capacity(COLLECTORS.len());
    for col in COLLECTORS {
        if let Some(t) = col.table(sim) {
            tables.push((col.name().to_string(), t));
        }
        col.summary(sim, &mut summary);
    }
    let pcap = sim.pcap_files();
    if !pcap.is_empty() {
        let total = |f: fn(&crate::sim::capture::PcapFile) -> u64| pcap.iter().map(f).sum::<u64>();
        summary.push((
            "pcap_packets".into(),
            Value::Int(total(|f| f.packets) as i64),
        ));
        summary.push((
            "pcap_packets_left_out".into(),
            Value::Int(total(|f| f.left_out) as i64),
        ));
    }
    summary.push(("digest".into(), Value::Str(digest_of(&tables))));
    RunResult {
        summary,
        tables,
        pcap,
    }
}
