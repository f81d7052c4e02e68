//! The namespace backend's lowering: a validated spec turned into a
//! [`Plan`] that `python/fairlab/emu/` applies with `ip` and `tc` on a
//! Linux host (a network namespace per host and per switch, a veth pair
//! per link, an `htb` (or `tbf`) shaper and a FIFO per output port,
//! routes carrying each sender's TCP settings), and the agents to run.
//!
//! It imports no simulator type: only the spec's. What a kernel cannot
//! honour is refused by field path in one line, or lowered to the nearest
//! real setting with a warning that says so (docs/scenario.md, "Backend
//! support"). What the kernel offers is given as a [`Machine`] (HZ,
//! congestion-control modules, qdiscs), measured by the Python side.

use crate::spec::{
    name_list, BufferLimit, CcKind, Discipline, PathsName, ProfileName, Resolution, Resolved,
    Scenario, ScenarioError, SelectionName, ShaperSpec, TcpSettings, TcpSpec, TopologySpec,
    WorkloadSpec, TCP_IP_HEADER,
};
use crate::units::{BitsPerSec, Time};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};

mod pcap;
mod radon;
pub use pcap::PlanPcap;
pub use radon::{PlanRadon, RADON_PORT};

/// What the kernel that will run the plan offers.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Machine {
    /// CONFIG_HZ: the jiffy clock of TCP's timers.
    pub hz: u32,
    /// `net.ipv4.tcp_available_congestion_control` (and modules that load).
    pub congestion_controls: Vec<String>,
    /// Qdiscs the kernel has (`htb`, `tbf`, `bfifo`, `pfifo`, `red`, `sfq`, `netem`...).
    pub qdiscs: Vec<String>,
}

impl Machine {
    /// A machine as the Python side measures it, in JSON.
    pub fn from_json(text: &str) -> Result<Machine, ScenarioError> {
        serde_json::from_str(text)
            .map_err(|e| err("machine", format!("{e}; expected {{\"hz\": 250, \"congestion_controls\": [...], \"qdiscs\": [...]}}")))
    }
}

impl Plan {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a plan serializes")
    }
}

/// The TCP options Linux puts on every segment with timestamps on
/// (RFC 7323 TSopt, 10 bytes padded to 12): the payload of a segment is
/// `advmss - 12` then (tcp_output.c, `tcp_current_mss`).
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;

/// The largest MTU the plan sets (a veth's maximum, 64 KiB less its
/// Ethernet header).
pub const MAX_MTU: u32 = 65535 - 14;

/// What a veth frame carries beyond the IP packet: the Ethernet header
/// (no FCS, preamble or gap), which the kernel's shapers count.
pub const ETHERNET_HEADER_BYTES: u64 = 14;

/// The most transmit queues of a host's veth: htb classes 1:2.. and the
/// classifier's `classid` arithmetic stay far below htb's limits.
pub const MAX_VETH_QUEUES: u32 = 64;

/// A one-way link delay the backend leaves out with a warning: the
/// namespaces' own forwarding takes tens of microseconds per hop. Above
/// it the delay would change what TCP does, and without `sch_netem` it
/// is refused.
pub const MAX_UNEMULATED_DELAY: Time = Time::from_ms(1);

/// Ports' shapers' bucket when the scenario gives none: two full-size
/// frames, or 200 µs at the rate if more (htb's token bucket is refilled
/// by hrtimers; a bucket of one or two packets keeps the port's output a
/// packet-by-packet line rate, q_htb.c `htb_do_events`).
pub const LINK_BURST_MIN: u64 = 2 * 1514;
pub const LINK_BURST_TIME_US: u64 = 200;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Plan {
    pub name: String,
    pub nodes: Vec<PlanNode>,
    pub links: Vec<PlanLink>,
    pub ports: Vec<PlanPort>,
    pub routes: Vec<PlanRoute>,
    pub sysctls: Vec<PlanSysctl>,
    pub flows: Vec<PlanFlow>,
    pub workloads: Vec<PlanWorkload>,
    /// Interface MTU on every link: the largest segment with headers and
    /// the timestamp option.
    pub mtu: u32,
    pub duration_s: Option<f64>,
    pub seed: u64,
    pub profile: String,
    pub throughput_bin_s: Option<f64>,
    pub queue_sample_s: Option<f64>,
    pub trace: bool,
    pub trace_flows: Option<Vec<u32>>,
    /// The port `[metrics] drop_trace` names, and its switch's inputs.
    pub drop_trace: Option<PlanDropTrace>,
    /// The captures `[metrics] pcap` names.
    pub pcap: Vec<PlanPcap>,
    pub warnings: Vec<String>,
}

/// A switch port whose arrivals are captured at the switch's input
/// interfaces and its departures at the port's own, then joined: an
/// arrival toward the port that never leaves by it was dropped there.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanDropTrace {
    pub node: String,
    pub peer: String,
    /// The port's interface: link and end.
    pub link: u32,
    pub end: String,
    /// The switch's other interfaces, where arrivals are captured.
    pub inputs: Vec<DropTraceInput>,
    pub max_rows: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DropTraceInput {
    /// The neighbour the packets come from.
    pub peer: String,
    pub link: u32,
    pub end: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanNode {
    pub name: String,
    /// "host" or "switch".
    pub kind: String,
    /// A host's address (dotted quad), "" for a switch.
    pub addr: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanLink {
    pub a: String,
    pub b: String,
    /// The link's /30: `a` is .1, `b` is .2.
    pub a_addr: String,
    pub b_addr: String,
    pub rate_bps: u64,
    pub delay_s: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanQueue {
    /// "bfifo", "pfifo", "red" or "sfq".
    pub kind: String,
    /// In bytes (bfifo, red) or packets (pfifo, sfq).
    pub limit: u64,
    /// The limit as the scenario wrote it ("64KiB", "100pkt").
    pub limit_text: String,
    /// red: thresholds in bytes, probability, ecn; sfq: divisor, perturb (s).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanShaper {
    /// "htb" or "tbf".
    pub kind: String,
    pub rate_bps: u64,
    pub burst_bytes: u64,
    /// htb's ceil bucket (= burst for tbf).
    pub cburst_bytes: u64,
    /// What it emulates: "link" (the link's rate) or the field that set it.
    pub source: String,
    /// Bytes counted per packet beyond the frame the kernel sees (the
    /// IP packet and its 14-byte Ethernet header): `[link] framing` less
    /// those 14 (tc-htb(8), tc-tbf(8) `overhead`).
    #[serde(skip_serializing_if = "is_zero")]
    pub overhead_bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// An output port: the interface of `node` on `link` toward `peer`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanPort {
    pub node: String,
    pub peer: String,
    pub node_kind: String,
    pub link: u32,
    /// "a" or "b": which end of the link.
    pub end: String,
    pub shaper: PlanShaper,
    pub queue: PlanQueue,
    /// txqueuelen (a host's NIC queue in packets; 1000 at a switch).
    pub txqueuelen: u32,
    /// Transmit queues of the interface (`host.nic_queues` at a host, 1 at
    /// a switch). Above 1: a multi-queue veth whose queue the kernel picks
    /// for each socket (net/core/dev.c, `netdev_pick_tx`), and under the
    /// port's shaper one htb class per queue, each with `queue` as its
    /// FIFO, chosen by the packet's queue mapping and served in turn.
    pub queues: u32,
}

/// TCP settings a route carries (ip-route(8): `congctl`, `rto_min`,
/// `initcwnd`, `initrwnd`, `advmss`, `window`, `quickack`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq, Hash)]
pub struct RouteTcp {
    pub congctl: String,
    /// Rounded up to whole milliseconds (the route metric's unit).
    pub rto_min_ms: u64,
    pub initcwnd: u32,
    pub advmss: u32,
    /// The largest receive window advertised (RTAX_WINDOW clamps
    /// `window_clamp` in `tcp_select_initial_window`).
    pub window: u64,
    /// 1: acknowledge every segment at once (RTAX_QUICKACK).
    pub quickack: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanRoute {
    pub node: String,
    /// Destination host address, as a /32.
    pub dst: String,
    /// Next hops: the neighbours' link addresses (several: a multipath route).
    pub via: Vec<String>,
    /// The link of each next hop (its interface on `node`).
    pub links: Vec<u32>,
    /// Source address of a host's own packets.
    pub src: String,
    pub tcp: Option<RouteTcp>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanSysctl {
    pub node: String,
    pub key: String,
    pub value: String,
}

/// A flow, numbered as the simulator's flows table numbers them (TCP
/// connections in workload order, then UDP flows).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanFlow {
    pub flow_id: u32,
    pub workload: u32,
    pub kind: String,
    /// The data sender and receiver.
    pub src: String,
    pub dst: String,
    pub src_addr: String,
    pub dst_addr: String,
    /// The listener's port (on the side that accepts).
    pub port: u32,
    /// Which side opens the connection: "src" or "dst".
    pub opener: String,
    pub cc: String,
    pub sack: bool,
    pub mss: u32,
}

/// A workload's agents' parameters.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlanWorkload {
    Incast {
        workload: u32,
        start_s: f64,
        client: String,
        servers: Vec<String>,
        flow_ids: Vec<u32>,
        sru_bytes: Vec<u64>,
        request_bytes: u64,
        rounds: u32,
        response_jitter_s: f64,
        warmup: bool,
    },
    Bulk {
        workload: u32,
        start_s: f64,
        flow_id: u32,
        src: String,
        dst: String,
        size_bytes: Option<u64>,
    },
    Short {
        workload: u32,
        start_s: f64,
        spread_s: f64,
        flow_ids: Vec<u32>,
        src: String,
        dst: String,
        size_bytes: u64,
    },
    NfsRead {
        workload: u32,
        start_s: f64,
        server: String,
        clients: Vec<String>,
        flow_ids: Vec<u32>,
        file_bytes: u64,
        io_bytes: u64,
        outstanding: u32,
        request_bytes: u64,
        reply_header_bytes: u64,
    },
    Udp {
        workload: u32,
        start_s: f64,
        flow_id: u32,
        src: String,
        dst: String,
        rate_bps: u64,
        packet_bytes: u64,
        arrivals: String,
        /// Datagrams to send in all, and the instant to stop sending.
        #[serde(skip_serializing_if = "Option::is_none")]
        packets: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_s: Option<f64>,
    },
    /// A Radon stream: run by the socket agent, not the Python agents.
    Radon(PlanRadon),
}

/// The first listener port: flow `i` listens on `BASE_PORT + i` (the
/// simulator's listeners are all on 5001; here each flow has its own, so
/// that a flow's 5-tuple names it).
pub const BASE_PORT: u32 = 20000;

fn err(path: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, msg)
}

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

/// The link `i`'s /30 in 172.16.0.0/12: end `a` is .1, `b` .2.
fn link_addrs(i: u32) -> (String, String) {
    let base: u32 = (172 << 24) | (16 << 16);
    let net = base + 4 * i;
    let quad = |x: u32| {
        format!(
            "{}.{}.{}.{}",
            x >> 24,
            (x >> 16) & 255,
            (x >> 8) & 255,
            x & 255
        )
    };
    (quad(net + 1), quad(net + 2))
}

/// The most links: 172.16.0.0/12 holds 2^18 /30s.
const MAX_LINKS: usize = 1 << 18;

/// Lowers `sc` for `machine`. Refusals name the field; warnings say what
/// was lowered to what.
pub fn lower(sc: &Scenario, machine: &Machine) -> Result<Plan, ScenarioError> {
    let resolved = sc.resolve()?;
    let mut warnings: Vec<String> = Vec::new();
    check_qdiscs(machine)?;
    check_host_and_switch(sc, &mut warnings)?;
    let hosts = resolved.hosts.clone();

    // Nodes and links.
    let nodes = plan_nodes(sc, &hosts);
    let addr_of: HashMap<&str, &str> = nodes
        .iter()
        .filter(|n| n.kind == "host")
        .map(|n| (n.name.as_str(), n.addr.as_str()))
        .collect();
    let is_host = |n: &str| addr_of.contains_key(n);
    let links = plan_links(sc, &hosts)?;
    check_delays(sc, &links, machine, &mut warnings)?;
    let adj = adjacency(&links, &hosts)?;
    let mtu = check_tcp_and_size_mtu(sc, &resolved, machine, &mut warnings)?;

    // Ports: every link end.
    let mut ports = Vec::new();
    for (i, l) in links.iter().enumerate() {
        for (end, node, peer) in [("a", &l.a, &l.b), ("b", &l.b, &l.a)] {
            ports.push(port(
                sc,
                machine,
                i as u32,
                end,
                node,
                peer,
                l,
                is_host(node),
            )?);
        }
    }

    // Flows and workloads.
    let mut book = FlowBook {
        machine,
        addr_of: &addr_of,
        flows: Vec::new(),
        pair_tcp: HashMap::new(),
    };
    let workloads = workloads(sc, &resolved, &hosts, mtu, &mut book)?;
    let (flows, pair_tcp) = (book.flows, book.pair_tcp);

    let routes = routes(sc, &nodes, &links, &adj, &addr_of, &pair_tcp, &mut warnings)?;
    let sysctls = sysctls(sc, &resolved.tcp, &nodes, machine, &mut warnings)?;

    let m = &sc.metrics;
    let drop_trace = drop_trace_plan(sc, &ports, &mut warnings);
    let ends: Vec<pcap::PortEnds> = ports
        .iter()
        .map(|p| (p.node.as_str(), p.peer.as_str(), p.link, p.end.as_str()))
        .collect();
    let pcap = pcap::plan(sc, &ends);
    if m.trace {
        warnings.push(
            "metrics.trace: sampled from TCP_INFO every 1 ms at most, not at every change".into(),
        );
    }
    let mut plan = Plan {
        name: sc.name.clone().unwrap_or_default(),
        nodes,
        links,
        ports,
        routes,
        sysctls,
        flows,
        workloads,
        mtu,
        duration_s: sc.duration.map(secs),
        seed: sc.seed,
        profile: sc.tcp.profile().name().to_string(),
        throughput_bin_s: m.throughput_bin.map(secs),
        queue_sample_s: m.queue_sample.map(secs),
        trace: m.trace,
        trace_flows: m.trace_flows.clone(),
        drop_trace,
        pcap,
        warnings,
    };
    lower_radon(sc, &mut plan)?;
    Ok(plan)
}

/// Refuses a kernel without the qdiscs every plan uses.
fn check_qdiscs(machine: &Machine) -> Result<(), ScenarioError> {
    for q in ["htb", "bfifo", "pfifo"] {
        if !machine.qdiscs.iter().any(|x| x == q) {
            return Err(err(
                "",
                format!("this kernel has no sch_{q} qdisc; the namespace backend needs htb, bfifo and pfifo"),
            ));
        }
    }
    Ok(())
}

/// The topology's links, each numbered into its own /30.
fn plan_links(sc: &Scenario, hosts: &[String]) -> Result<Vec<PlanLink>, ScenarioError> {
    let directed = sc.topology.links(hosts);
    if directed.len() / 2 > MAX_LINKS {
        return Err(err(
            "topology",
            format!(
                "{} links; the namespace backend numbers at most {MAX_LINKS}",
                directed.len() / 2
            ),
        ));
    }
    let mut links: Vec<PlanLink> = Vec::new();
    for (i, pair) in directed.chunks(2).enumerate() {
        let l = &pair[0];
        let (a_addr, b_addr) = link_addrs(i as u32);
        links.push(PlanLink {
            a: l.from.clone(),
            b: l.to.clone(),
            a_addr,
            b_addr,
            rate_bps: l.rate.get(),
            delay_s: secs(l.delay),
        });
    }
    Ok(links)
}

/// Per host or switch: its links, as (link number, peer).
type Adjacency<'a> = HashMap<&'a str, Vec<(u32, &'a str)>>;

/// Each host and switch's links, for routes and ports; refused unless
/// every host has exactly one.
fn adjacency<'a>(links: &'a [PlanLink], hosts: &[String]) -> Result<Adjacency<'a>, ScenarioError> {
    let mut adj: Adjacency = HashMap::new();
    for (i, l) in links.iter().enumerate() {
        adj.entry(&l.a).or_default().push((i as u32, &l.b));
        adj.entry(&l.b).or_default().push((i as u32, &l.a));
    }
    for h in hosts {
        let n = adj.get(h.as_str()).map_or(0, |v| v.len());
        if n != 1 {
            return Err(err(
                "topology",
                format!("host {h:?} has {n} links; the namespace backend gives each host one interface (expected one link per host)"),
            ));
        }
    }
    Ok(adj)
}

/// Checks the TCP settings (the scenario's and each workload's) against
/// this kernel, and returns the links' MTU: the largest TCP segment's
/// frame, or a udp workload's larger datagram, at least 1,500 bytes.
fn check_tcp_and_size_mtu(
    sc: &Scenario,
    resolved: &Resolved,
    machine: &Machine,
    warnings: &mut Vec<String>,
) -> Result<u32, ScenarioError> {
    let tcp_spec_of = |i: usize| -> (String, TcpSpec) {
        match sc.workloads[i].tcp() {
            Some(t) => (format!("workload[{i}].tcp"), sc.tcp.overlaid(t)),
            None => ("tcp".to_string(), sc.tcp.clone()),
        }
    };
    // What `[tcp]` lowers to matters only to TCP workloads: without one its
    // refusals still hold (the field is wrong for this kernel) but its
    // warnings would say nothing about the run.
    let any_tcp = (0..sc.workloads.len()).any(|i| resolved.workload_tcp(i).is_some());
    let mut tcp_warnings = Vec::new();
    check_tcp_spec("tcp", &sc.tcp, &resolved.tcp, machine, &mut tcp_warnings)?;
    if any_tcp {
        warnings.append(&mut tcp_warnings);
    }
    let mut largest_mss = resolved.tcp.mss;
    for i in 0..sc.workloads.len() {
        if let Some(t) = resolved.workload_tcp(i) {
            if sc.workloads[i].tcp().is_some() {
                let (path, spec) = tcp_spec_of(i);
                check_tcp_spec(&path, &spec, t, machine, warnings)?;
            }
            largest_mss = largest_mss.max(t.mss);
        }
    }
    // Every datagram is one frame, as in the simulator: a udp workload's
    // larger packets raise the links' MTU (jumbo frames; a veth takes up
    // to 64 KiB) rather than being fragmented.
    let largest_udp = sc
        .workloads
        .iter()
        .filter_map(|w| match w {
            WorkloadSpec::Udp(u) => Some(u.size().get().min(u64::from(MAX_MTU)) as u32),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    Ok((largest_mss + TCP_IP_HEADER + TIMESTAMP_OPTION_BYTES)
        .max(largest_udp)
        .max(1500))
}

/// The plan's Radon streams in place of their udp placeholders
/// (`netns/radon.rs`), from what the plan routes and shapes.
fn lower_radon(sc: &Scenario, plan: &mut Plan) -> Result<(), ScenarioError> {
    let udp = plan
        .workloads
        .iter()
        .enumerate()
        .filter_map(|(slot, w)| match w {
            PlanWorkload::Udp {
                workload, flow_id, ..
            } => {
                let f = &plan.flows[*flow_id as usize];
                let (src, dst) = (f.src_addr.clone(), f.dst_addr.clone());
                Some((slot, *workload as usize, *flow_id, src, dst))
            }
            _ => None,
        })
        .collect();
    let (links, routes) = (&plan.links, &plan.routes);
    let path =
        |src: &str, dst: &str, dst_addr: &str| route_ports(links, routes, src, dst, dst_addr);
    let view = radon::PlanView {
        udp,
        path: &path,
        port_rate_bps: plan.ports.iter().map(|p| p.shaper.rate_bps).collect(),
        port_name: plan
            .ports
            .iter()
            .map(|p| format!("{}:{}", p.node, p.peer))
            .collect(),
    };
    let mut warnings = Vec::new();
    let lowered = radon::lower(sc, &view, &mut warnings)?;
    plan.warnings.append(&mut warnings);
    for (slot, r) in lowered {
        plan.workloads[slot] = PlanWorkload::Radon(r);
    }
    Ok(())
}

/// The output ports (indices in the plan's ports: every link end, `a` then
/// `b`, in link order) from host `src` to host `dst` at `dst_addr`: the
/// host's own, then at each switch its route's first next hop (with
/// equal-cost paths of equal rates the capacity is the same).
fn route_ports(
    links: &[PlanLink],
    routes: &[PlanRoute],
    src: &str,
    dst: &str,
    dst_addr: &str,
) -> Option<Vec<usize>> {
    let want = format!("{dst_addr}/32");
    let mut node = src.to_string();
    let mut out = Vec::new();
    while node != dst {
        let r = routes.iter().find(|r| r.node == node && r.dst == want)?;
        let &link = r.links.first()?;
        let l = &links[link as usize];
        out.push(2 * link as usize + usize::from(l.a != node));
        node = if l.a == node {
            l.b.clone()
        } else {
            l.a.clone()
        };
        if out.len() > links.len() {
            return None;
        }
    }
    Some(out)
}

/// Every host (with its address) and switch.
fn plan_nodes(sc: &Scenario, hosts: &[String]) -> Vec<PlanNode> {
    let mut nodes: Vec<PlanNode> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| PlanNode {
            name: h.clone(),
            kind: "host".into(),
            addr: sc
                .host
                .addresses
                .get(h)
                .cloned()
                .unwrap_or_else(|| sc.topology.planned_addr(i).to_string()),
        })
        .collect();
    for s in sc.switch_names() {
        nodes.push(PlanNode {
            name: s.to_string(),
            kind: "switch".into(),
            addr: String::new(),
        });
    }
    nodes
}

/// Names every connection and UDP flow (TCP connections in workload order,
/// then UDP flows, as the simulator numbers them), and the agents' work.
fn workloads(
    sc: &Scenario,
    resolved: &Resolved,
    hosts: &[String],
    mtu: u32,
    book: &mut FlowBook,
) -> Result<Vec<PlanWorkload>, ScenarioError> {
    let mut workloads = Vec::new();
    for (wi, w) in sc.workloads.iter().enumerate() {
        let start_s = secs(w.start());
        let t = resolved.workload_tcp(wi);
        match w {
            WorkloadSpec::Incast(x) => {
                let t = t.expect("TCP");
                if x.request_order == Some(crate::spec::RequestOrder::Random) {
                    return Err(err(
                        format!("workload[{wi}].request_order"),
                        "\"random\" is not supported by the namespace backend (its client sends in server order); expected \"index\"",
                    ));
                }
                let servers = x.servers(hosts);
                let mut ids = Vec::new();
                for s in &servers {
                    ids.push(book.add(wi, "incast", s, &x.client, "dst", t)?);
                }
                let n = servers.len();
                let sru = match (x.sru, x.block) {
                    (Some(s), _) => vec![s.get(); n],
                    (None, Some(b)) => {
                        let n64 = n as u64;
                        (0..n64)
                            .map(|i| b.get() / n64 + u64::from(i < b.get() % n64))
                            .collect()
                    }
                    _ => unreachable!("validated"),
                };
                workloads.push(PlanWorkload::Incast {
                    workload: wi as u32,
                    start_s,
                    client: x.client.clone(),
                    servers,
                    flow_ids: ids,
                    sru_bytes: sru,
                    request_bytes: x.request().get(),
                    rounds: x.rounds(),
                    response_jitter_s: secs(x.response_jitter.unwrap_or(Time::ZERO)),
                    warmup: x.warmup.unwrap_or(false),
                });
            }
            WorkloadSpec::Bulk(x) => {
                let t = t.expect("TCP");
                let id = book.add(wi, "bulk", &x.src, &x.dst, "src", t)?;
                workloads.push(PlanWorkload::Bulk {
                    workload: wi as u32,
                    start_s,
                    flow_id: id,
                    src: x.src.clone(),
                    dst: x.dst.clone(),
                    size_bytes: x.size.map(|s| s.get()),
                });
            }
            WorkloadSpec::Short(x) => {
                let t = t.expect("TCP");
                let mut ids = Vec::new();
                for _ in 0..x.count {
                    ids.push(book.add(wi, "short", &x.src, &x.dst, "src", t)?);
                }
                workloads.push(PlanWorkload::Short {
                    workload: wi as u32,
                    start_s,
                    spread_s: secs(x.spread.unwrap_or(Time::ZERO)),
                    flow_ids: ids,
                    src: x.src.clone(),
                    dst: x.dst.clone(),
                    size_bytes: x.flow_bytes(t.mss),
                });
            }
            WorkloadSpec::NfsRead(x) => {
                let t = t.expect("TCP");
                if x.disk_rate.is_some() {
                    return Err(err(
                        format!("workload[{wi}].disk_rate"),
                        "not supported by the namespace backend (the agents serve from memory); expected no disk_rate",
                    ));
                }
                let clients = x.clients(hosts);
                let mut ids = Vec::new();
                for c in &clients {
                    ids.push(book.add(wi, "nfs_read", &x.server, c, "dst", t)?);
                }
                workloads.push(PlanWorkload::NfsRead {
                    workload: wi as u32,
                    start_s,
                    server: x.server.clone(),
                    clients,
                    flow_ids: ids,
                    file_bytes: x.file_size.get(),
                    io_bytes: x.io_size().get(),
                    outstanding: x.outstanding(),
                    request_bytes: x.request().get(),
                    reply_header_bytes: x.reply_header().get(),
                });
            }
            WorkloadSpec::Udp(_) => workloads.push(PlanWorkload::Udp {
                workload: wi as u32,
                start_s,
                flow_id: u32::MAX,
                src: String::new(),
                dst: String::new(),
                rate_bps: 0,
                packet_bytes: 0,
                arrivals: String::new(),
                packets: None,
                stop_s: None,
            }),
        }
    }
    udp_flows(sc, mtu, book, &mut workloads)?;
    Ok(workloads)
}

/// The UDP flows, numbered after the connections as the simulator numbers
/// them, in their workloads' places.
fn udp_flows(
    sc: &Scenario,
    mtu: u32,
    book: &mut FlowBook,
    workloads: &mut [PlanWorkload],
) -> Result<(), ScenarioError> {
    for (wi, w) in sc.workloads.iter().enumerate() {
        let WorkloadSpec::Udp(u) = w else { continue };
        let radon = w.transport() == crate::spec::workloads::Transport::Radon;
        let id = book.flows.len() as u32;
        book.flows.push(PlanFlow {
            flow_id: id,
            workload: wi as u32,
            kind: if radon { "radon" } else { "udp" }.into(),
            src: u.src.clone(),
            dst: u.dst.clone(),
            src_addr: book.addr_of[u.src.as_str()].into(),
            dst_addr: book.addr_of[u.dst.as_str()].into(),
            port: if radon { RADON_PORT } else { BASE_PORT + id },
            opener: "src".into(),
            cc: String::new(),
            sack: false,
            mss: 0,
        });
        let packet = u
            .packet_size
            .unwrap_or(crate::spec::workloads::DEFAULT_UDP_PACKET)
            .get();
        // IPv4 + UDP headers: 28 bytes of the packet.
        if packet < 29 || packet > mtu as u64 {
            return Err(err(
                format!("workload[{wi}].packet_size"),
                format!("\"{packet}B\" does not fit one datagram on the emulated links; expected 29 B to the MTU, {mtu} B"),
            ));
        }
        workloads[wi] = PlanWorkload::Udp {
            workload: wi as u32,
            start_s: secs(u.start.unwrap_or(Time::ZERO)),
            flow_id: id,
            src: u.src.clone(),
            dst: u.dst.clone(),
            rate_bps: u.rate.map_or(0, |r| r.get()),
            packet_bytes: packet,
            arrivals: u
                .arrivals
                .unwrap_or(crate::spec::workloads::Arrivals::Poisson)
                .name()
                .to_string(),
            packets: u.packets,
            stop_s: u.stop.map(secs),
        };
    }
    Ok(())
}

/// The flows of a plan as they are named, and each host pair's TCP
/// settings (one per route).
struct FlowBook<'a> {
    machine: &'a Machine,
    addr_of: &'a HashMap<&'a str, &'a str>,
    flows: Vec<PlanFlow>,
    pair_tcp: HashMap<(String, String), (usize, RouteTcp)>,
}

impl FlowBook<'_> {
    /// A TCP connection of workload `wi` from `src` to `dst`, opened by
    /// `opener` ("src" or "dst"); refused when its host pair already has
    /// other TCP settings from another workload.
    fn add(
        &mut self,
        wi: usize,
        kind: &str,
        src: &str,
        dst: &str,
        opener: &str,
        t: &TcpSettings,
    ) -> Result<u32, ScenarioError> {
        let id = self.flows.len() as u32;
        let rt = route_tcp(t, self.machine);
        for (a, b) in [(src, dst), (dst, src)] {
            let key = (a.to_string(), b.to_string());
            if let Some((other, prev)) = self.pair_tcp.get(&key) {
                if *prev != rt && *other != wi {
                    return Err(err(
                        format!("workload[{wi}].tcp"),
                        format!("TCP settings differ from workload[{other}]'s between {a:?} and {b:?}; the namespace backend sets TCP per route (one setting per host pair), expected the same settings for both"),
                    ));
                }
            }
            self.pair_tcp.insert(key, (wi, rt.clone()));
        }
        self.flows.push(PlanFlow {
            flow_id: id,
            workload: wi as u32,
            kind: kind.into(),
            src: src.into(),
            dst: dst.into(),
            src_addr: self.addr_of[src].into(),
            dst_addr: self.addr_of[dst].into(),
            port: BASE_PORT + id,
            opener: opener.into(),
            cc: rt.congctl.clone(),
            sack: t.sack,
            mss: t.mss,
        });
        Ok(id)
    }
}

/// The capture plan of `[metrics] drop_trace`: the port's own interface
/// for departures, the switch's other interfaces for arrivals.
fn drop_trace_plan(
    sc: &Scenario,
    ports: &[PlanPort],
    warnings: &mut Vec<String>,
) -> Option<PlanDropTrace> {
    let m = &sc.metrics;
    match m.drop_trace.as_deref().and_then(|t| t.split_once(':')) {
        Some((node, peer)) => {
            let out = ports
                .iter()
                .find(|p| p.node == node && p.peer == peer)
                .expect("validated: a switch port");
            let inputs = ports
                .iter()
                .filter(|p| p.peer == node && p.node != peer)
                .map(|p| DropTraceInput {
                    peer: p.node.clone(),
                    link: p.link,
                    // The switch's own end of that link.
                    end: if p.end == "a" { "b" } else { "a" }.into(),
                })
                .collect();
            warnings.push(format!(
                "metrics.drop_trace: captured at {node:?}'s interfaces and joined (arrivals in from each neighbour, departures out toward {peer:?}); queue_pkts and queue_bytes are -1"
            ));
            Some(PlanDropTrace {
                node: node.into(),
                peer: peer.into(),
                link: out.link,
                end: out.end.clone(),
                inputs,
                max_rows: m
                    .drop_trace_max_rows
                    .unwrap_or(crate::spec::metrics::DEFAULT_DROP_TRACE_MAX_ROWS),
            })
        }
        None => None,
    }
}

/// `[host]` and `[switch]` fields a namespace cannot honour.
fn check_host_and_switch(sc: &Scenario, warnings: &mut Vec<String>) -> Result<(), ScenarioError> {
    // Jitter stands for the variation real machines have by themselves
    // (docs/scenario.md): the namespaces have theirs, so the field is
    // left out with a warning rather than added on top (netem would also
    // reorder).
    if sc.host.send_jitter > Time::ZERO {
        warnings.push(format!(
            "host.send_jitter: \"{}\" not added: a real host's sending varies by itself",
            sc.host.send_jitter
        ));
    }
    if sc.switch.forwarding_jitter > Time::ZERO {
        warnings.push(format!(
            "switch.forwarding_jitter: \"{}\" not added: a namespace switch's forwarding time varies by itself",
            sc.switch.forwarding_jitter
        ));
    }
    let framing = sc.link.framing().get();
    if framing > 0 && framing < ETHERNET_HEADER_BYTES {
        return Err(err(
            "link.framing",
            format!("\"{}\" is less than the Ethernet header every veth frame carries; expected \"0B\" or at least {ETHERNET_HEADER_BYTES} B (Ethernet's 38)", sc.link.framing()),
        ));
    }
    check_host_stack(sc, warnings)?;
    if sc.host.nic_queues > MAX_VETH_QUEUES {
        return Err(err(
            "host.nic_queues",
            format!(
                "{} is not supported by the namespace backend; expected 1 to {MAX_VETH_QUEUES} (a multi-queue veth with an htb class per queue)",
                sc.host.nic_queues
            ),
        ));
    }
    if sc.routing.paths == PathsName::EqualLength {
        return Err(err(
            "routing.paths",
            "\"equal_length\" is not supported by the namespace backend (it needs routes by input port); expected \"shortest\"",
        ));
    }
    let mut selections: Vec<(String, SelectionName)> =
        vec![("routing.selection".into(), sc.routing.selection)];
    for (s, sel) in &sc.routing.switches {
        selections.push((format!("routing.switches.{s}"), *sel));
    }
    for (path, sel) in selections {
        match sel {
            SelectionName::Ecmp | SelectionName::First => {}
            SelectionName::EcmpUnsalted => warnings.push(format!(
                "{path}: \"ecmp_unsalted\" as Linux multipath routes with one fib_multipath_hash_seed on every switch"
            )),
            other => {
                return Err(err(
                    path,
                    format!("{:?} is not supported by the namespace backend (Linux routes hash or take one next hop); expected \"ecmp\", \"ecmp_unsalted\" or \"first\"", other.name()),
                ))
            }
        }
    }
    Ok(())
}

/// `[host]`'s sending-stack fields (docs/scenario.md, "Host profiles"):
/// an old kernel's profile is refused (the namespaces run this machine's
/// kernel), a veth has no descriptor ring, BQL or NIC arbiter; the qdisc
/// of a NIC queue is lowered.
fn check_host_stack(sc: &Scenario, warnings: &mut Vec<String>) -> Result<(), ScenarioError> {
    let h = &sc.host;
    if let Some(p) = h.profile {
        return Err(err(
            "host.profile",
            format!("{:?} is not supported by the namespace backend (the namespaces run this machine's kernel, not {}); expected no profile", p.name(), p.name()),
        ));
    }
    if h.ring.is_some_and(|r| r > 0) {
        return Err(err(
            "host.ring",
            "not supported by the namespace backend (a veth has no descriptor ring: the qdisc feeds the peer directly); expected 0 or none",
        ));
    }
    if h.bql == Some(true) {
        return Err(err(
            "host.bql",
            "true is not supported by the namespace backend (a veth has no ring for BQL to limit); expected false or none",
        ));
    }
    if h.nic_arbitration
        .is_some_and(|a| a != crate::spec::ArbitrationName::Packet)
        || h.nic_batch.is_some()
        || h.nic_weights.is_some()
    {
        return Err(err(
            "host.nic_arbitration",
            "not supported by the namespace backend (a veth has no NIC arbiter); expected \"packet\" or none",
        ));
    }
    if let Some(t) = h.txq_select {
        return Err(err(
            "host.txq_select",
            format!("{:?} is not supported by the namespace backend (the kernel picks a socket's transmit queue itself: cached on the socket, re-hashed after a timeout, net/core/dev.c netdev_pick_tx); expected none", t.name()),
        ));
    }
    if h.rebalance.is_some() {
        return Err(err(
            "host.rebalance",
            "not supported by the namespace backend (the kernel has no such rebalancing); expected none",
        ));
    }
    if let Some(r) = h.nic_root.filter(|r| *r != crate::spec::NicRoot::Mq) {
        return Err(err(
            "host.nic_root",
            format!("{:?} is not supported by the namespace backend yet (one qdisc above a veth's queues, under its shaper); expected \"mq\" or none", r.name()),
        ));
    }
    match h.nic_qdisc {
        None | Some(crate::spec::NicQdisc::Droptail) => {}
        Some(crate::spec::NicQdisc::PfifoFast) => warnings.push(
            "host.nic_qdisc: \"pfifo_fast\" as pfifo (every flow here uses one of its three bands: one FIFO)".into(),
        ),
        Some(q) => {
            return Err(err(
                "host.nic_qdisc",
                format!("{:?} is not supported by the namespace backend yet; expected \"pfifo_fast\" or \"droptail\"", q.name()),
            ))
        }
    }
    Ok(())
}

/// Links' delays: left to the machine below [`MAX_UNEMULATED_DELAY`] (no
/// netem here), refused above it.
fn check_delays(
    sc: &Scenario,
    links: &[PlanLink],
    machine: &Machine,
    warnings: &mut Vec<String>,
) -> Result<(), ScenarioError> {
    let netem = machine.qdiscs.iter().any(|q| q == "netem");
    let max = links.iter().map(|l| l.delay_s).fold(0.0, f64::max);
    if max == 0.0 {
        return Ok(());
    }
    let field = match &sc.topology {
        TopologySpec::Explicit(e) => {
            let i = e
                .links
                .iter()
                .position(|l| l.delay.as_secs_f64() == max)
                .unwrap_or(0);
            format!("topology.links[{i}].delay")
        }
        TopologySpec::Dumbbell(d) if d.bottleneck_delay.as_secs_f64() == max => {
            "topology.bottleneck_delay".into()
        }
        TopologySpec::ParkingLot(p) if p.trunk_delay.is_some_and(|t| t.as_secs_f64() == max) => {
            "topology.trunk_delay".into()
        }
        _ => "topology.delay".into(),
    };
    let text = format!("{}us", (max * 1e6).round());
    if max > MAX_UNEMULATED_DELAY.as_secs_f64() {
        let why = if netem {
            "delays above 1 ms are not emulated yet"
        } else {
            "this kernel has no sch_netem to add it"
        };
        return Err(err(
            field,
            format!("\"{text}\" is not supported by the namespace backend ({why}); expected at most 1ms, which is left to the machine's own forwarding"),
        ));
    }
    warnings.push(format!(
        "{field}: \"{text}\" not added: the links' delay is the namespaces' own forwarding time (the machine probe's RTT measures it)"
    ));
    Ok(())
}

/// What the kernel calls a congestion control, or a refusal.
fn congctl(
    path: &str,
    cc: CcKind,
    machine: &Machine,
) -> Result<(String, Option<String>), ScenarioError> {
    let (name, note) = match cc {
        CcKind::Reno => (
            "reno",
            Some("\"reno\" as Linux reno, which recovers as NewReno (RFC 6582), not as classic Reno".to_string()),
        ),
        CcKind::NewReno => ("reno", None),
        CcKind::Cubic => ("cubic", None),
        CcKind::Bic => ("bic", None),
        CcKind::Vegas => ("vegas", None),
        CcKind::Dctcp => ("dctcp", None),
        CcKind::BicPaper => {
            return Err(err(
                format!("{path}.cc"),
                "\"bic_paper\" is not supported by the namespace backend (no kernel module runs the paper's rules); expected one of the kernel's: ".to_string()
                    + &name_list(&machine.congestion_controls),
            ))
        }
    };
    if !machine.congestion_controls.iter().any(|c| c == name) {
        return Err(err(
            format!("{path}.cc"),
            format!(
                "{:?} needs the kernel's tcp_{name} module, which this machine does not offer; expected one of {}",
                cc.name(),
                name_list(&machine.congestion_controls)
            ),
        ));
    }
    Ok((name.to_string(), note))
}

/// One jiffy of `machine`, in picoseconds.
fn jiffy(machine: &Machine) -> Time {
    Time(1_000_000_000_000 / machine.hz.max(1) as u64)
}

/// A `[tcp]` table's (or `[workload.tcp]`'s, over it) settings the kernel
/// cannot honour: refused, or a warning.
fn check_tcp_spec(
    path: &str,
    spec: &TcpSpec,
    t: &TcpSettings,
    machine: &Machine,
    warnings: &mut Vec<String>,
) -> Result<(), ScenarioError> {
    let at = |f: &str| format!("{path}.{f}");
    let mut warn = |f: &str, m: String| {
        let w = format!("{}: {m}", at(f));
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    };
    match spec.profile() {
        ProfileName::Ns2 => {
            return Err(err(
                at("profile"),
                "\"ns2\" is not supported by the namespace backend (ns-2's one-way agents have no kernel counterpart); expected \"rfc\", \"linux\" or \"datacenter\"",
            ))
        }
        p @ (ProfileName::Linux2632 | ProfileName::Linux312) => {
            return Err(err(
                at("profile"),
                format!("{:?} is not supported by the namespace backend (the namespaces run this machine's kernel's TCP, not {}); expected \"rfc\", \"linux\" or \"datacenter\"", p.name(), p.name()),
            ))
        }
        _ => {}
    }
    if !t.handshake {
        return Err(err(
            at("handshake"),
            "false is not supported by the namespace backend (kernel connections shake hands); expected true",
        ));
    }
    // The clock: an explicit hz other than the kernel's is refused; a
    // profile's or a fine-grained clock is the kernel's jiffies, warned.
    if let Some(hz) = spec.hz {
        if hz != machine.hz {
            return Err(err(
                at("hz"),
                format!("{hz} is not this kernel's clock; the namespace backend runs TCP's timers on CONFIG_HZ = {}, expected hz = {} or no hz", machine.hz, machine.hz),
            ));
        }
    }
    let j = jiffy(machine);
    match (spec.resolution, t.clock) {
        // "auto" that chose a granularity is warned as that granularity written
        // out, so a builder passing "auto" gets the plan it got before.
        (Some(Resolution::Granular(g)), _)
        | (Some(Resolution::Auto), crate::spec::Clock::Granular { tick: g }) => warn(
            "resolution",
            format!("\"{g}\" lowered to the kernel's jiffies ({} Hz, {}): Linux TCP's retransmission timer counts jiffies", machine.hz, j),
        ),
        (_, crate::spec::Clock::Jiffies { hz }) if hz != machine.hz => warn(
            "hz",
            format!("the profile's {hz} Hz lowered to this kernel's {} Hz ({} jiffies)", machine.hz, j),
        ),
        (_, crate::spec::Clock::Granular { tick }) => warn(
            "resolution",
            format!("the profile's \"{tick}\" clock lowered to the kernel's jiffies ({} Hz, {})", machine.hz, j),
        ),
        _ => {}
    }
    let (_, note) = congctl(path, t.cc, machine)?;
    if let Some(n) = note {
        warn("cc", n);
    }
    if t.min_rto < j || !t.min_rto.0.is_multiple_of(1_000_000_000) {
        let ms = rto_min_ms(t.min_rto, machine);
        warn(
            "min_rto",
            format!("\"{}\" rounded up to {ms} ms (the route metric counts milliseconds, the timer jiffies of {})", t.min_rto, j),
        );
    }
    if t.pacing.enabled {
        return Err(err(
            at("pacing"),
            "true is not supported by the namespace backend (the kernel paces a reno or cubic flow only under sch_fq or SO_MAX_PACING_RATE); expected false",
        ));
    }
    if t.randomize_rto {
        return Err(err(
            at("randomize_rto"),
            "true is not supported by the namespace backend (the kernel's timer has no random component); expected false",
        ));
    }
    if t.rto_delay != crate::spec::RtoDelay::Off {
        return Err(err(
            at("rto_random_delay"),
            "not supported by the namespace backend (no kernel knob); expected \"off\"",
        ));
    }
    if !t.slow_start {
        return Err(err(
            at("slow_start"),
            "false is not supported by the namespace backend (kernel congestion controls always slow-start); expected true",
        ));
    }
    // Kernel constants: warned when the scenario asks otherwise.
    let linux = ProfileName::Linux.settings();
    if t.initial_rto != linux.initial_rto {
        warn(
            "initial_rto",
            format!(
                "\"{}\" is the kernel's TCP_TIMEOUT_INIT, 1 s",
                t.initial_rto
            ),
        );
    }
    if t.delayed_ack && t.delayed_ack_timeout != linux.delayed_ack_timeout {
        warn(
            "delayed_ack_timeout",
            format!("\"{}\" is the kernel's own (TCP_DELACK_MIN 40 ms, adapted to the RTT; tcp_input.c)", t.delayed_ack_timeout),
        );
    }
    if !t.cwnd_validation {
        warn(
            "cwnd_validation",
            "false: the kernel always validates cwnd (tcp_is_cwnd_limited)".into(),
        );
    }
    if !t.limited_transmit {
        warn(
            "limited_transmit",
            "false: the kernel always uses limited transmit (RFC 3042)".into(),
        );
    }
    if t.max_backoff != 0 || t.backoff_restarts_srtt {
        warn(
            "max_backoff",
            "the kernel doubles the RTO to max_rto and keeps SRTT".into(),
        );
    }
    if !(1_000..=120_000).contains(&(t.max_rto.0 / 1_000_000_000)) {
        warn(
            "max_rto",
            format!(
                "\"{}\" clamped to net.ipv4.tcp_rto_max_ms's 1 s to 120 s",
                t.max_rto
            ),
        );
    }
    Ok(())
}

/// `min_rto` as the route's `rto_min`: whole milliseconds, at least one jiffy.
fn rto_min_ms(min_rto: Time, machine: &Machine) -> u64 {
    let j = jiffy(machine);
    let t = min_rto.max(j);
    t.0.div_ceil(1_000_000_000)
}

fn route_tcp(t: &TcpSettings, machine: &Machine) -> RouteTcp {
    let opt = if t.rtt_timestamps {
        TIMESTAMP_OPTION_BYTES
    } else {
        0
    };
    RouteTcp {
        congctl: congctl("tcp", t.cc, machine)
            .map(|c| c.0)
            .unwrap_or_default(),
        rto_min_ms: rto_min_ms(t.min_rto, machine),
        initcwnd: t.initial_window,
        advmss: t.mss + opt,
        window: t.receive_window.get(),
        quickack: !t.delayed_ack,
    }
}

/// A port's queue as a qdisc.
fn queue(
    sc: &Scenario,
    machine: &Machine,
    disc: Discipline,
    limit: BufferLimit,
    field: &str,
    rate: BitsPerSec,
) -> Result<PlanQueue, ScenarioError> {
    let has = |q: &str| machine.qdiscs.iter().any(|x| x == q);
    let (kind, n) = match limit {
        BufferLimit::Bytes(b) => ("bfifo", b.get()),
        BufferLimit::Packets(p) => ("pfifo", p as u64),
    };
    let mut params = BTreeMap::new();
    let kind = match disc {
        Discipline::Droptail => kind,
        Discipline::Red | Discipline::Sfq => {
            let q = if disc == Discipline::Red {
                "red"
            } else {
                "sfq"
            };
            if !has(q) {
                return Err(err(
                    field,
                    format!("discipline \"{q}\" needs the kernel's sch_{q}, which this machine does not have; expected \"droptail\""),
                ));
            }
            let avpkt = 1000.0;
            if disc == Discipline::Red {
                let r = &sc.queue.red;
                // tc-red(8): thresholds and limit in bytes; avpkt sizes them.
                params.insert("min_bytes".into(), r.min_th * 1500.0);
                params.insert("max_bytes".into(), r.max_th * 1500.0);
                params.insert("probability".into(), r.max_p);
                params.insert("avpkt".into(), avpkt);
                params.insert("ecn".into(), f64::from(u8::from(r.ecn)));
                params.insert("bandwidth_bps".into(), rate.get() as f64);
                q
            } else {
                let s = &sc.queue.sfq;
                params.insert("divisor".into(), s.buckets as f64);
                // tc-sfq(8): perturb in whole seconds.
                params.insert("perturb_s".into(), s.perturb.as_secs_f64().round());
                q
            }
        }
        other => {
            let why = match other {
                Discipline::Hcf => "HCF is not in Linux",
                Discipline::Drr => "Linux's drr classifies by filters, not by a flow hash",
                _ => "Linux's prio puts packets in its bands by filters, not by kind",
            };
            return Err(err(
                field,
                format!("discipline {:?} is not supported by the namespace backend ({why}); expected \"droptail\", \"red\" or \"sfq\"", other.name()),
            ));
        }
    };
    let limit_n = match (kind, limit) {
        ("red", BufferLimit::Packets(p)) => p as u64 * 1500,
        ("sfq", BufferLimit::Bytes(b)) => (b.get() / 1500).max(1),
        _ => n,
    };
    Ok(PlanQueue {
        kind: kind.into(),
        limit: limit_n,
        limit_text: limit.to_string(),
        params,
    })
}

#[allow(clippy::too_many_arguments)]
fn port(
    sc: &Scenario,
    machine: &Machine,
    link: u32,
    end: &str,
    node: &str,
    peer: &str,
    l: &PlanLink,
    host: bool,
) -> Result<PlanPort, ScenarioError> {
    let over = sc
        .ports
        .iter()
        .enumerate()
        .find(|(_, p)| p.node == node && p.peer == peer);
    let rate = BitsPerSec(l.rate_bps);
    let (disc, limit, field) = if host {
        (
            Discipline::Droptail,
            sc.host.nic_queue,
            "host.nic_queue".to_string(),
        )
    } else {
        let link_buffer = link_buffer(sc, node, peer);
        let (limit, lf) = match over.and_then(|(i, p)| p.limit.map(|x| (i, x))) {
            Some((i, x)) => (x, format!("port[{i}].limit")),
            None => match link_buffer {
                Some(b) => (b, "topology".to_string()),
                None => (sc.queue.limit, "queue.limit".to_string()),
            },
        };
        let (disc, df) = match over.and_then(|(i, p)| p.discipline.map(|d| (i, d))) {
            Some((i, d)) => (d, format!("port[{i}].discipline")),
            None => (sc.queue.discipline, "queue.discipline".to_string()),
        };
        let ecn =
            over.and_then(|(i, p)| p.ecn_threshold.map(|_| format!("port[{i}].ecn_threshold")));
        let ecn = ecn.or(sc
            .queue
            .ecn_threshold
            .map(|_| "queue.ecn_threshold".to_string()));
        if let Some(f) = ecn {
            return Err(err(
                f,
                "not supported by the namespace backend (Linux's fifos do not mark; marking above K needs red or fq_codel's ce_threshold); expected no ecn_threshold",
            ));
        }
        let f = if disc != Discipline::Droptail { df } else { lf };
        (disc, limit, f)
    };
    let q = queue(sc, machine, disc, limit, &field, rate)?;
    let (shaper_spec, source) = match over.and_then(|(i, p)| p.shaper.as_ref().map(|s| (i, s))) {
        Some((i, s)) => (Some(s), format!("port[{i}].shaper")),
        None if host => (sc.host.shaper.as_ref(), "host.shaper".to_string()),
        None => (sc.queue.shaper.as_ref(), "queue.shaper".to_string()),
    };
    let link_burst = LINK_BURST_MIN.max(l.rate_bps / 8 * LINK_BURST_TIME_US / 1_000_000);
    let overhead = sc
        .link
        .framing()
        .get()
        .saturating_sub(ETHERNET_HEADER_BYTES);
    let shaper = match shaper_spec {
        // The scenario's shaper where it is slower than the link (the
        // simulator puts it between the queue and the wire): it sets the
        // port's rate.
        Some(s) if s.rate() <= rate => match s {
            ShaperSpec::Htb(h) => PlanShaper {
                kind: "htb".into(),
                rate_bps: h.rate.get(),
                burst_bytes: h.burst().get(),
                cburst_bytes: h.cburst().get(),
                source,
                overhead_bytes: overhead,
            },
            ShaperSpec::Tbf(t) => {
                if !machine.qdiscs.iter().any(|q| q == "tbf") {
                    return Err(err(
                        source,
                        "kind \"tbf\" needs the kernel's sch_tbf; expected kind = \"htb\"",
                    ));
                }
                PlanShaper {
                    kind: "tbf".into(),
                    rate_bps: t.rate.get(),
                    burst_bytes: t.burst.get(),
                    cburst_bytes: t.burst.get(),
                    source,
                    overhead_bytes: overhead,
                }
            }
        },
        _ => PlanShaper {
            kind: "htb".into(),
            rate_bps: l.rate_bps,
            burst_bytes: link_burst,
            cburst_bytes: link_burst,
            source: "link".into(),
            overhead_bytes: overhead,
        },
    };
    let txqueuelen = match (host, sc.host.nic_queue) {
        (true, BufferLimit::Packets(p)) => p,
        (true, BufferLimit::Bytes(b)) => (b.get() / 1500).max(1) as u32,
        _ => 1000,
    };
    Ok(PlanPort {
        node: node.into(),
        peer: peer.into(),
        node_kind: if host { "host" } else { "switch" }.into(),
        link,
        end: end.into(),
        shaper,
        queue: q,
        txqueuelen,
        queues: if host { sc.host.nic_queues } else { 1 },
    })
}

/// A graph topology's own buffer for the port of `node` toward `peer`.
fn link_buffer(sc: &Scenario, node: &str, peer: &str) -> Option<BufferLimit> {
    let g = sc.topology.graph()?;
    let (x, y) = (*g.index.get(node)?, *g.index.get(peer)?);
    let &(_, l) = g.adj[x as usize].iter().find(|e| e.0 == y)?;
    let l = &g.links[l as usize];
    if l.a == x {
        l.buffer_a
    } else {
        l.buffer_b
    }
}

/// Routes: each host reaches every other host through its one link (its
/// settings for the peers it talks to); each switch reaches each host by
/// its shortest paths (all of them under ECMP, the first otherwise).
#[allow(clippy::too_many_arguments)]
fn routes(
    sc: &Scenario,
    nodes: &[PlanNode],
    links: &[PlanLink],
    adj: &Adjacency,
    addr_of: &HashMap<&str, &str>,
    pair_tcp: &HashMap<(String, String), (usize, RouteTcp)>,
    _warnings: &mut [String],
) -> Result<Vec<PlanRoute>, ScenarioError> {
    let far_addr = |link: u32, from: &str| -> String {
        let l = &links[link as usize];
        if l.a == from {
            l.b_addr.clone()
        } else {
            l.a_addr.clone()
        }
    };
    let mut out = Vec::new();
    let hosts: Vec<&PlanNode> = nodes.iter().filter(|n| n.kind == "host").collect();
    for h in &hosts {
        let (link, _) = adj[h.name.as_str()][0];
        for d in &hosts {
            if d.name == h.name {
                continue;
            }
            out.push(PlanRoute {
                node: h.name.clone(),
                dst: format!("{}/32", d.addr),
                via: vec![far_addr(link, &h.name)],
                links: vec![link],
                src: h.addr.clone(),
                tcp: pair_tcp
                    .get(&(h.name.clone(), d.name.clone()))
                    .map(|(_, t)| t.clone()),
            });
        }
    }
    // Breadth-first from each host: every switch's distance to it.
    for d in &hosts {
        let mut dist: HashMap<&str, u32> = HashMap::new();
        let mut q = VecDeque::new();
        dist.insert(d.name.as_str(), 0);
        q.push_back(d.name.as_str());
        while let Some(u) = q.pop_front() {
            // Hosts do not forward.
            if u != d.name && addr_of.contains_key(u) {
                continue;
            }
            let du = dist[u];
            for &(_, v) in adj.get(u).map(|v| v.as_slice()).unwrap_or(&[]) {
                if !dist.contains_key(v) {
                    dist.insert(v, du + 1);
                    q.push_back(v);
                }
            }
        }
        for s in nodes.iter().filter(|n| n.kind == "switch") {
            let Some(&ds) = dist.get(s.name.as_str()) else {
                continue;
            };
            let mut hops: Vec<u32> = adj[s.name.as_str()]
                .iter()
                .filter(|(_, v)| {
                    dist.get(v).is_some_and(|&dv| dv + 1 == ds)
                        && (*v == d.name || !addr_of.contains_key(v))
                })
                .map(|&(l, _)| l)
                .collect();
            if sc.routing.of(&s.name) == SelectionName::First {
                hops.truncate(1);
            }
            out.push(PlanRoute {
                node: s.name.clone(),
                dst: format!("{}/32", d.addr),
                via: hops.iter().map(|&l| far_addr(l, &s.name)).collect(),
                links: hops,
                src: String::new(),
                tcp: None,
            });
        }
    }
    Ok(out)
}

/// Per-namespace sysctls (ip-sysctl.rst): switches forward and hash
/// multipath routes by L4; hosts get the TCP settings no route carries.
fn sysctls(
    sc: &Scenario,
    tcp: &TcpSettings,
    nodes: &[PlanNode],
    _machine: &Machine,
    _warnings: &mut [String],
) -> Result<Vec<PlanSysctl>, ScenarioError> {
    // Settings every TCP workload shares live in [tcp]; a [workload.tcp]
    // that differs in a sysctl's setting is refused (one namespace, one
    // value).
    for (i, w) in sc.workloads.iter().enumerate() {
        let Some(wt) = w.tcp() else { continue };
        let t = sc.tcp.overlaid(wt).resolve(&format!("workload[{i}].tcp"))?;
        for (f, same) in [
            ("sack", t.sack == tcp.sack),
            ("ecn", t.ecn == tcp.ecn),
            ("rtt_timestamps", t.rtt_timestamps == tcp.rtt_timestamps),
            (
                "slow_start_after_idle",
                t.slow_start_after_idle == tcp.slow_start_after_idle,
            ),
            ("max_retransmits", t.max_retransmits == tcp.max_retransmits),
            ("max_rto", t.max_rto == tcp.max_rto),
            ("small_queues", t.small_queues == tcp.small_queues),
            (
                "dupack_threshold",
                t.dupack_threshold == tcp.dupack_threshold,
            ),
        ] {
            if !same {
                return Err(err(
                    format!("workload[{i}].tcp.{f}"),
                    format!("differs from [tcp]'s; the namespace backend sets {f} per namespace (a sysctl), expected it in [tcp] for every workload"),
                ));
            }
        }
    }
    let b = |x: bool| if x { "1" } else { "0" }.to_string();
    let mut out = Vec::new();
    let seed = sc.seed;
    for n in nodes {
        let mut set = |k: &str, v: String| {
            out.push(PlanSysctl {
                node: n.name.clone(),
                key: k.into(),
                value: v,
            })
        };
        if n.kind == "switch" {
            set("net.ipv4.ip_forward", "1".into());
            set("net.ipv4.conf.all.rp_filter", "0".into());
            set("net.ipv4.conf.default.rp_filter", "0".into());
            // 1: L4 (5-tuple) hash of multipath routes.
            set("net.ipv4.fib_multipath_hash_policy", "1".into());
            if sc.routing.of(&n.name) == SelectionName::EcmpUnsalted {
                set(
                    "net.ipv4.fib_multipath_hash_seed",
                    (seed % (1 << 31)).max(1).to_string(),
                );
            }
        } else {
            set("net.ipv4.tcp_sack", b(tcp.sack));
            set("net.ipv4.tcp_dsack", b(tcp.sack));
            // 1: request ECN on outgoing connections (ip-sysctl.rst).
            set("net.ipv4.tcp_ecn", if tcp.ecn { "1" } else { "0" }.into());
            set("net.ipv4.tcp_timestamps", b(tcp.rtt_timestamps));
            set(
                "net.ipv4.tcp_slow_start_after_idle",
                b(tcp.slow_start_after_idle),
            );
            set("net.ipv4.tcp_retries2", tcp.max_retransmits.to_string());
            // The initial reordering degree is the kernel's dupack threshold.
            set("net.ipv4.tcp_reordering", tcp.dupack_threshold.to_string());
            let max_ms = (tcp.max_rto.0 / 1_000_000_000).clamp(1_000, 120_000);
            set("net.ipv4.tcp_rto_max_ms", max_ms.to_string());
            // TCP Small Queues (tcp_output.c, tcp_small_queue_check): the
            // bytes a socket may have below TCP; the kernel has no "off".
            match tcp.small_queues {
                Some(b) => set("net.ipv4.tcp_limit_output_bytes", b.get().to_string()),
                None => set(
                    "net.ipv4.tcp_limit_output_bytes",
                    (i32::MAX as u64).to_string(),
                ),
            }
            // No saved metrics between a run's connections (tcp_metrics.c).
            set("net.ipv4.tcp_no_metrics_save", "1".into());
        }
    }
    Ok(out)
}

/// Lowers a TOML scenario.
pub fn lower_toml(text: &str, machine: &Machine) -> Result<Plan, ScenarioError> {
    lower(&Scenario::from_toml_str(text)?, machine)
}

/// Lowers a JSON scenario.
pub fn lower_json(text: &str, machine: &Machine) -> Result<Plan, ScenarioError> {
    lower(&Scenario::from_json_str(text)?, machine)
}

#[cfg(test)]
mod tests;
