//! The ns-2 backend's lowering: a validated spec turned into a [`Plan`]
//! that `python/fairlab/ns2/` writes out as an ns-2 2.35 Tcl script: a
//! node per host and per switch, a `duplex-link` per link with each
//! direction's output queue (DropTail or RED), ns-2's one-way TCP agents
//! (`Agent/TCP/Reno`, `Newreno`, `Sack1` and their `TCPSink`s) with their
//! instance variables, and the workloads' applications.
//!
//! It imports no simulator type: only the spec's. What ns-2 cannot run is
//! refused by field path in one line (the field, its value, what is
//! allowed); what it runs approximately is lowered with a warning that
//! says so (docs/scenario.md, "Backend support").

use crate::spec::{
    ArbitrationName, Arrivals, BufferLimit, CcKind, Clock, Discipline, NicQdisc, NicRoot,
    PathsName, ProfileName, Resolved, RtoDelay, Scenario, ScenarioError, SelectionName,
    TcpSettings, TopologySpec, TxqSelect, WorkloadSpec, TCP_IP_HEADER,
};
use crate::units::{BitsPerSec, Time};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// An ns-2 plan. `python/fairlab/ns2/` reads exactly this (its JSON).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Plan {
    pub name: String,
    pub seed: u64,
    pub duration_s: Option<f64>,
    /// Fields lowered approximately, each "field: what it became".
    pub warnings: Vec<String>,
    /// Agent specs, indexed by the workloads' `tcp`.
    pub tcp: Vec<PlanAgent>,
    /// Hosts in the topology's order, then switches.
    pub nodes: Vec<PlanNode>,
    pub links: Vec<PlanLink>,
    pub workloads: Vec<PlanWorkload>,
    pub throughput_bin_s: Option<f64>,
}

impl Plan {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a plan serializes")
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanNode {
    pub name: String,
    /// "host" or "switch".
    pub kind: String,
}

/// A `duplex-link`: both directions' rate and delay, and each end's
/// output queue.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanLink {
    pub a: String,
    pub b: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// The output queue of `a` toward `b`.
    pub queue_ab: PlanQueue,
    /// The output queue of `b` toward `a`.
    pub queue_ba: PlanQueue,
}

/// An output queue: "droptail" or "red", its limit in packets or in bytes
/// (one of the two), and for RED the queue's ns-2 variables.
///
/// The limit is the scenario's: at most that many packets (or bytes)
/// waiting, the one on the wire not counted. ns-2's `DropTail::enque`
/// drops when `length + 1 >= qlim_` (or, in bytes, `byteLength + size >=
/// qlim_ * mean_pktsize_`), so the script's `queue-limit` is the writer's
/// to choose from it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanQueue {
    pub kind: String,
    pub limit_pkts: Option<u64>,
    pub limit_bytes: Option<u64>,
    /// RED: `thresh_`, `maxthresh_`, `q_weight_`, `linterm_`, `gentle_`,
    /// `setbit_`, `queue-in-bytes_`, `mean_pktsize_`, `wait_`, `bytes_`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, Value>,
}

/// One kind of TCP connection: the sender's agent, the receiver's sink and
/// their instance variables.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlanAgent {
    /// "Reno", "Newreno" or "Sack1" (`Agent/TCP/<agent>`).
    pub agent: String,
    /// "TCPSink", "TCPSink/Sack1", "TCPSink/DelAck" or
    /// "TCPSink/Sack1/DelAck" (`Agent/<sink>`).
    pub sink: String,
    /// `Agent/TCP` variables: numbers (integers where ns-2's are).
    pub vars: BTreeMap<String, Value>,
    /// The sink's: `interval_` of a DelAck sink.
    pub sink_vars: BTreeMap<String, Value>,
}

/// A workload's applications; `tcp` indexes [`Plan::tcp`].
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlanWorkload {
    Incast {
        client: String,
        servers: Vec<String>,
        /// Bytes each server returns per round.
        sru_bytes: Vec<u64>,
        request_bytes: u64,
        rounds: u32,
        warmup: bool,
        /// "index" or "random" (a new permutation every round, drawn by
        /// the harness from the run's seed).
        request_order: &'static str,
        start_s: f64,
        tcp: usize,
    },
    Bulk {
        src: String,
        dst: String,
        /// None: sends until the run ends.
        bytes: Option<u64>,
        start_s: f64,
        tcp: usize,
    },
    Short {
        src: String,
        dst: String,
        count: u32,
        /// Bytes per flow (`packets` x MSS when given in packets).
        bytes: u64,
        /// Full segments per flow when the scenario gives `packets`.
        packets: Option<u32>,
        /// Flows open at instants drawn uniformly in [start, start + spread).
        spread_s: f64,
        start_s: f64,
        tcp: usize,
    },
    Udp {
        src: String,
        dst: String,
        rate_bps: u64,
        /// Datagram size on the wire.
        packet_bytes: u64,
        /// "cbr" (the scenario's "periodic") or "poisson".
        arrivals: String,
        start_s: f64,
        /// None: until the run ends.
        stop_s: Option<f64>,
    },
}

fn err(path: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, msg)
}

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

/// Lowers `sc`. Refusals name the field; warnings say what was lowered to
/// what.
pub fn lower(sc: &Scenario) -> Result<Plan, ScenarioError> {
    let resolved = sc.resolve()?;
    let mut warnings = Vec::new();
    check_host_and_switch(sc, &mut warnings)?;
    check_metrics(sc)?;
    let hosts = resolved.hosts.clone();
    let mut nodes: Vec<PlanNode> = hosts
        .iter()
        .map(|h| PlanNode {
            name: h.clone(),
            kind: "host".into(),
        })
        .collect();
    for s in sc.switch_names() {
        nodes.push(PlanNode {
            name: s.to_string(),
            kind: "switch".into(),
        });
    }
    let is_host: HashSet<&str> = hosts.iter().map(|h| h.as_str()).collect();
    let directed = sc.topology.links(&hosts);
    check_single_links(sc, &directed)?;
    check_routing(sc, &directed, &is_host, &mut warnings)?;
    let mss = largest_mss(sc, &resolved);
    let mut links = Vec::new();
    for pair in directed.chunks(2) {
        let l = &pair[0];
        let end = |node: &str, peer: &str, w: &mut Vec<String>| {
            port_queue(sc, node, peer, is_host.contains(node), l.rate, mss, w)
        };
        let queue_ab = end(&l.from, &l.to, &mut warnings)?;
        let queue_ba = end(&l.to, &l.from, &mut warnings)?;
        links.push(PlanLink {
            a: l.from.clone(),
            b: l.to.clone(),
            rate_bps: l.rate.get(),
            delay_s: secs(l.delay),
            queue_ab,
            queue_ba,
        });
    }
    let mut tcp: Vec<PlanAgent> = Vec::new();
    let workloads = workloads(sc, &resolved, &mut tcp, &mut warnings)?;
    Ok(Plan {
        name: sc.name.clone().unwrap_or_default(),
        seed: sc.seed,
        duration_s: sc.duration.map(secs),
        warnings,
        tcp,
        nodes,
        links,
        workloads,
        throughput_bin_s: sc.metrics.throughput_bin.map(secs),
    })
}

/// The largest segment any connection sends: RED's `mean_pktsize_` is a
/// full packet of it, as the simulator's RED times a full packet.
fn largest_mss(sc: &Scenario, resolved: &Resolved) -> u32 {
    (0..sc.workloads.len())
        .filter_map(|i| resolved.workload_tcp(i))
        .map(|t| t.mss)
        .fold(resolved.tcp.mss, u32::max)
}

/// `[host]` and `[switch]` fields ns-2's nodes and agents cannot honour:
/// a node's only queue is its link's, and an agent sends at once.
fn check_host_and_switch(sc: &Scenario, warnings: &mut Vec<String>) -> Result<(), ScenarioError> {
    let h = &sc.host;
    if sc.link.framing() > crate::units::Bytes(0) {
        return Err(err(
            "link.framing",
            format!("\"{}\" is not supported by the ns-2 backend yet (its links serialize the packet's own size); expected \"0B\" or none", sc.link.framing()),
        ));
    }
    if h.send_jitter > Time::ZERO {
        return Err(err(
            "host.send_jitter",
            format!("\"{}\" is not supported by the ns-2 backend (ns-2's agents hand each packet to their node's link at once: they have no send jitter); expected \"0s\"", h.send_jitter),
        ));
    }
    if sc.switch.forwarding_jitter > Time::ZERO {
        return Err(err(
            "switch.forwarding_jitter",
            format!("\"{}\" is not supported by the ns-2 backend (an ns-2 node forwards in no time); expected \"0s\"", sc.switch.forwarding_jitter),
        ));
    }
    if h.nic_queues != 1 {
        return Err(err(
            "host.nic_queues",
            format!("{} is not supported by the ns-2 backend (a node has one queue per link); expected 1", h.nic_queues),
        ));
    }
    if h.shaper.is_some() {
        return Err(err(
            "host.shaper",
            "not supported by the ns-2 backend (a link sends at its rate; ns-2 has no token-bucket queue here); expected no shaper",
        ));
    }
    let stack: [(&str, bool); 11] = [
        ("host.profile", h.profile.is_some()),
        (
            "host.nic_qdisc",
            !matches!(
                h.nic_qdisc,
                None | Some(NicQdisc::PfifoFast | NicQdisc::Droptail)
            ),
        ),
        (
            "host.nic_root",
            h.nic_root.is_some_and(|r| r != NicRoot::Mq),
        ),
        ("host.fq", h.fq.is_some()),
        ("host.ring", h.ring.is_some_and(|r| r > 0)),
        (
            "host.nic_arbitration",
            h.nic_arbitration
                .is_some_and(|a| a != ArbitrationName::Packet),
        ),
        ("host.nic_batch", h.nic_batch.is_some()),
        ("host.nic_weights", h.nic_weights.is_some()),
        ("host.bql", h.bql == Some(true)),
        (
            "host.txq_select",
            h.txq_select.is_some_and(|t| t != TxqSelect::Hash),
        ),
        ("host.rebalance", h.rebalance.is_some()),
    ];
    if let Some((f, _)) = stack.iter().find(|(_, set)| *set) {
        return Err(err(
            *f,
            "not supported by the ns-2 backend (an ns-2 node has no sending stack: its link's DropTail queue of host.nic_queue is all); expected the field left out",
        ));
    }
    if !h.addresses.is_empty() {
        warnings.push(
            "host.addresses: not lowered (ns-2 numbers its nodes; no route or workload here depends on an address)".into(),
        );
    }
    Ok(())
}

/// `[metrics]`: the plan records per-flow throughput only.
fn check_metrics(sc: &Scenario) -> Result<(), ScenarioError> {
    let m = &sc.metrics;
    let refused = [
        ("metrics.queue_sample", m.queue_sample.is_some()),
        ("metrics.trace", m.trace),
        ("metrics.drop_trace", m.drop_trace.is_some()),
        ("metrics.pcap", m.pcap.is_some()),
    ];
    if let Some((f, _)) = refused.iter().find(|(_, set)| *set) {
        return Err(err(
            *f,
            "not supported by the ns-2 backend yet (its plan records per-flow throughput only: metrics.throughput_bin); expected the field left out",
        ));
    }
    Ok(())
}

/// A `duplex-link` joins two nodes once: an explicit topology's second
/// link between one pair is refused.
fn check_single_links(
    sc: &Scenario,
    directed: &[crate::spec::topology::Link],
) -> Result<(), ScenarioError> {
    let mut seen = HashSet::new();
    for (i, pair) in directed.chunks(2).enumerate() {
        let l = &pair[0];
        let key = if l.from < l.to {
            (l.from.as_str(), l.to.as_str())
        } else {
            (l.to.as_str(), l.from.as_str())
        };
        if !seen.insert(key) {
            let field = match sc.topology {
                TopologySpec::Explicit(_) => format!("topology.links[{i}]"),
                _ => "topology".to_string(),
            };
            return Err(err(
                field,
                format!("a second link between {:?} and {:?} is not supported by the ns-2 backend (one duplex-link per pair of nodes); expected one link", l.from, l.to),
            ));
        }
    }
    Ok(())
}

/// ns-2 routes statically, one shortest path per destination: where a
/// switch has several next hops toward a host, only `"first"` is lowered
/// (with a warning: ns-2 breaks the tie its own way).
fn check_routing(
    sc: &Scenario,
    directed: &[crate::spec::topology::Link],
    is_host: &HashSet<&str>,
    warnings: &mut Vec<String>,
) -> Result<(), ScenarioError> {
    if sc.routing.paths == PathsName::EqualLength {
        return Err(err(
            "routing.paths",
            "\"equal_length\" is not supported by the ns-2 backend (its static routing takes shortest paths); expected \"shortest\"",
        ));
    }
    let tied = tied_switches(directed, is_host);
    let mut tied: Vec<&str> = tied.into_iter().collect();
    tied.sort_unstable();
    for s in &tied {
        let sel = sc.routing.of(s);
        if sel != SelectionName::First {
            let path = if sc.routing.switches.contains_key(*s) {
                format!("routing.switches.{s}")
            } else {
                "routing.selection".to_string()
            };
            return Err(err(
                path,
                format!("{:?} is not supported by the ns-2 backend on this topology (switch {s:?} has several shortest paths to a host, and ns-2's static routing takes one); expected \"first\"", sel.name()),
            ));
        }
    }
    if !tied.is_empty() {
        warnings.push(format!(
            "routing.selection: \"first\" as ns-2's static routes (one shortest path per destination, ties broken by ns-2's route computation, not by link order) at {} switch(es) with ties",
            tied.len()
        ));
    }
    Ok(())
}

/// Switches with more than one next hop on shortest paths toward some
/// host (hosts do not forward). One breadth-first search per host's
/// switch (a single-homed host's next hops are its switch's plus one).
fn tied_switches<'a>(
    directed: &'a [crate::spec::topology::Link],
    is_host: &HashSet<&str>,
) -> HashSet<&'a str> {
    let mut adj: HashMap<&str, Vec<&str>> = HashMap::new();
    for l in directed {
        adj.entry(l.from.as_str()).or_default().push(l.to.as_str());
    }
    let mut sources: Vec<&str> = Vec::new();
    let mut seen = HashSet::new();
    for (&n, peers) in &adj {
        if !is_host.contains(n) {
            continue;
        }
        let src = if peers.len() == 1 { peers[0] } else { n };
        if seen.insert(src) {
            sources.push(src);
        }
    }
    sources.sort_unstable();
    let mut tied = HashSet::new();
    for src in sources {
        let mut dist: HashMap<&str, u32> = HashMap::from([(src, 0)]);
        let mut q = VecDeque::from([src]);
        while let Some(u) = q.pop_front() {
            if u != src && is_host.contains(u) {
                continue;
            }
            for &v in &adj[u] {
                if !dist.contains_key(v) {
                    dist.insert(v, dist[u] + 1);
                    q.push_back(v);
                }
            }
        }
        for (&s, &d) in &dist {
            if is_host.contains(s) || s == src {
                continue;
            }
            let hops = adj[s]
                .iter()
                .filter(|&&v| dist.get(v) == Some(&(d - 1)) && (v == src || !is_host.contains(v)))
                .count();
            if hops > 1 {
                tied.insert(s);
            }
        }
    }
    tied
}

/// A graph topology's own buffer for the port of `node` toward `peer`.
fn link_buffer(sc: &Scenario, node: &str, peer: &str) -> Option<(BufferLimit, String)> {
    let g = sc.topology.graph()?;
    let (x, y) = (*g.index.get(node)?, *g.index.get(peer)?);
    let &(_, li) = g.adj[x as usize].iter().find(|e| e.0 == y)?;
    let l = &g.links[li as usize];
    let b = if l.a == x { l.buffer_a } else { l.buffer_b }?;
    let field = match sc.topology {
        TopologySpec::Explicit(_) => format!("topology.links[{li}].buffer"),
        _ => "topology.buffer".to_string(),
    };
    Some((b, field))
}

/// The output queue of `node` toward `peer`, as the simulator builds it
/// (lower/sim.rs), so that both backends run the same buffers: a host's
/// NIC queue; at a switch `[queue]`'s discipline and limit, the link's own
/// buffer over that limit; a `[[port]]`'s limit and discipline over both
/// (at a host too, as the simulator does).
fn port_queue(
    sc: &Scenario,
    node: &str,
    peer: &str,
    host: bool,
    rate: BitsPerSec,
    mss: u32,
    warnings: &mut Vec<String>,
) -> Result<PlanQueue, ScenarioError> {
    let over = sc
        .ports
        .iter()
        .enumerate()
        .find(|(_, p)| p.node == node && p.peer == peer);
    if let Some((i, p)) = over {
        if p.shaper.is_some() {
            return Err(err(
                format!("port[{i}].shaper"),
                "not supported by the ns-2 backend (a link sends at its rate; ns-2 has no token-bucket queue here); expected no shaper",
            ));
        }
    }
    let over = over
        .filter(|(_, p)| p.limit.is_some() || p.discipline.is_some() || p.ecn_threshold.is_some());
    if host && over.is_none() {
        return Ok(droptail(sc.host.nic_queue));
    }
    if !host && sc.queue.shaper.is_some() {
        return Err(err(
            "queue.shaper",
            "not supported by the ns-2 backend (a link sends at its rate; ns-2 has no token-bucket queue here); expected no shaper",
        ));
    }
    let ecn = match over.and_then(|(i, p)| p.ecn_threshold.map(|_| i)) {
        Some(i) => Some(format!("port[{i}].ecn_threshold")),
        None => sc
            .queue
            .ecn_threshold
            .map(|_| "queue.ecn_threshold".to_string()),
    };
    if let Some(f) = ecn {
        return Err(err(
            f,
            "not supported by the ns-2 backend (ns-2's DropTail does not mark; marking is RED's setbit_); expected no ecn_threshold",
        ));
    }
    let (limit, limit_field) = match over.and_then(|(i, p)| p.limit.map(|l| (i, l))) {
        Some((i, l)) => (l, format!("port[{i}].limit")),
        None => link_buffer(sc, node, peer).unwrap_or((sc.queue.limit, "queue.limit".into())),
    };
    let (disc, disc_field) = match over.and_then(|(i, p)| p.discipline.map(|d| (i, d))) {
        Some((i, d)) => (d, format!("port[{i}].discipline")),
        None => (sc.queue.discipline, "queue.discipline".to_string()),
    };
    match disc {
        Discipline::Droptail => Ok(droptail(limit)),
        Discipline::Red => Ok(red(sc, node, limit, &limit_field, rate, mss, warnings)),
        other => Err(err(
            disc_field,
            format!("discipline {:?} is not supported by the ns-2 backend (ns-2 2.35 has no {} queue with the simulator's rules); expected \"droptail\" or \"red\"", other.name(), other.name()),
        )),
    }
}

fn droptail(limit: BufferLimit) -> PlanQueue {
    let (limit_pkts, limit_bytes) = match limit {
        BufferLimit::Packets(n) => (Some(n as u64), None),
        BufferLimit::Bytes(b) => (None, Some(b.get())),
    };
    PlanQueue {
        kind: "droptail".into(),
        limit_pkts,
        limit_bytes,
        vars: BTreeMap::new(),
    }
}

/// RED (Floyd and Jacobson) as ns-2's `Queue/RED`: the simulator's RED
/// averages the queue in packets and spaces drops by p_b / (1 - count
/// p_b) (`wait_ 0`), in packet mode (`bytes_ 0`); its idle decay counts
/// full packets at the link rate (ns-2's `ptc_` from `mean_pktsize_`).
fn red(
    sc: &Scenario,
    node: &str,
    limit: BufferLimit,
    limit_field: &str,
    rate: BitsPerSec,
    mss: u32,
    warnings: &mut Vec<String>,
) -> PlanQueue {
    let r = &sc.queue.red;
    let mut q = droptail(limit);
    q.kind = "red".into();
    let in_bytes = matches!(limit, BufferLimit::Bytes(_));
    let b = |x: bool| json!(u8::from(x));
    q.vars = BTreeMap::from([
        ("thresh_".to_string(), json!(r.min_th)),
        ("maxthresh_".to_string(), json!(r.max_th)),
        ("q_weight_".to_string(), json!(r.w_q)),
        ("linterm_".to_string(), json!(1.0 / r.max_p)),
        ("gentle_".to_string(), b(r.gentle)),
        ("setbit_".to_string(), b(r.ecn)),
        ("queue-in-bytes_".to_string(), b(in_bytes)),
        ("mean_pktsize_".to_string(), json!(mss + TCP_IP_HEADER)),
        ("wait_".to_string(), json!(0)),
        ("bytes_".to_string(), json!(0)),
    ]);
    let mut warn = |w: String| {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    };
    if in_bytes {
        warn(format!(
            "{limit_field}: RED with a limit in bytes as ns-2's queue-in-bytes_: the average is kept in bytes, thresholds at min_th and max_th x mean_pktsize_ ({} B), where the simulator counts packets",
            mss + TCP_IP_HEADER
        ));
    }
    // A star's and a dumbbell's RED ports all time their idle decay at
    // `red_rate` in the simulator; ns-2 uses each link's own.
    let sim_rate = match sc.topology {
        TopologySpec::Star(_) | TopologySpec::Dumbbell(_) => sc.topology.red_rate(),
        _ => rate,
    };
    if sim_rate != rate {
        warn(format!(
            "queue.red: the idle-time decay at {node:?}'s ports counts packets at the port's link rate ({rate}) in ns-2, at the bottleneck's ({sim_rate}) in the simulator"
        ));
    }
    q
}

/// The path of TCP field `f` of workload `i`: its own `[workload.tcp]`
/// where that table sets it, else `[tcp]`'s.
fn tcp_path(sc: &Scenario, i: usize, f: &str) -> String {
    let own = sc.workloads[i]
        .tcp()
        .and_then(|t| serde_json::to_value(t).ok())
        .is_some_and(|v| v.get(f).is_some());
    if own {
        format!("workload[{i}].tcp.{f}")
    } else {
        format!("tcp.{f}")
    }
}

/// Workload `i`'s TCP settings as an ns-2 agent and sink, or a refusal of
/// the first setting ns-2's one-way agents have no counterpart for.
fn agent(
    sc: &Scenario,
    i: usize,
    t: &TcpSettings,
    warnings: &mut Vec<String>,
) -> Result<PlanAgent, ScenarioError> {
    let at = |f: &str| tcp_path(sc, i, f);
    let spec = match sc.workloads[i].tcp() {
        Some(w) => sc.tcp.overlaid(w),
        None => sc.tcp.clone(),
    };
    let profile = spec
        .profile
        .or(sc.host.tcp_profile())
        .unwrap_or(ProfileName::Rfc);
    if profile != ProfileName::Ns2 {
        return Err(err(
            at("profile"),
            format!("{:?} is not supported by the ns-2 backend (it runs ns-2's one-way TCP agents, whose defaults are the \"ns2\" profile); expected tcp.profile = \"ns2\"", profile.name()),
        ));
    }
    check_agent_settings(&at, t)?;
    let mut warn = |f: &str, m: String| {
        let w = format!("{}: {m}", at(f));
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    };
    let base = match t.cc {
        CcKind::Reno => "Reno",
        CcKind::NewReno => "Newreno",
        other => {
            return Err(err(
                at("cc"),
                format!("{:?} is not supported by the ns-2 backend (its one-way agents lowered here are Reno, Newreno and Sack1); expected \"reno\" or \"newreno\"", other.name()),
            ))
        }
    };
    let agent = if t.sack {
        warn("sack", "true as Agent/TCP/Sack1 (the simulator's ns2 host follows its rules, docs/model.md, but agrees with it less closely than with Reno and NewReno, docs/ns2.md)".into());
        "Sack1"
    } else {
        base
    };
    let tick = match t.clock {
        Clock::Granular { tick } => tick,
        Clock::Jiffies { hz } => {
            warn(
                if spec.hz.is_some() { "hz" } else { "resolution" },
                format!("a {hz} Hz jiffy clock as tcpTick_ {}: ns-2's timers fire at exact times, not on tick boundaries", t.clock.tick()),
            );
            t.clock.tick()
        }
    };
    let mss = t.mss as u64;
    let window = t.receive_window.get() / mss;
    if !t.receive_window.get().is_multiple_of(mss) {
        warn(
            "receive_window",
            format!(
                "\"{}\" as window_ {window} (whole segments of {mss} B)",
                t.receive_window
            ),
        );
    }
    let flag = |x: bool| json!(u8::from(x));
    let vars = BTreeMap::from([
        ("packetSize_".to_string(), json!(t.mss)),
        ("window_".to_string(), json!(window)),
        ("windowInit_".to_string(), json!(t.initial_window)),
        ("minrto_".to_string(), json!(secs(t.min_rto))),
        ("maxrto_".to_string(), json!(secs(t.max_rto))),
        ("rtxcur_init_".to_string(), json!(secs(t.initial_rto))),
        ("tcpTick_".to_string(), json!(secs(tick))),
        ("bugFix_".to_string(), flag(t.recover_check)),
        ("singledup_".to_string(), flag(t.limited_transmit)),
        ("numdupacks_".to_string(), json!(t.dupack_threshold)),
        ("max_ssthresh_".to_string(), json!(u8::from(!t.slow_start))),
        // Sack1's NewReno-style handling of a partial ACK (a new segment
        // sent for each, the timer restarted once): asked by cc newreno.
        (
            "partial_ack_".to_string(),
            flag(t.sack && t.cc == CcKind::NewReno),
        ),
    ]);
    let mut sink = String::from("TCPSink");
    if t.sack {
        sink.push_str("/Sack1");
    }
    let mut sink_vars = BTreeMap::new();
    if t.delayed_ack {
        sink.push_str("/DelAck");
        sink_vars.insert("interval_".to_string(), json!(secs(t.delayed_ack_timeout)));
    }
    Ok(PlanAgent {
        agent: agent.into(),
        sink,
        vars,
        sink_vars,
    })
}

/// Settings ns-2's one-way agents have no counterpart for: each refused
/// when it differs from the ns2 profile's value.
fn check_agent_settings(at: &dyn Fn(&str) -> String, t: &TcpSettings) -> Result<(), ScenarioError> {
    let ns2 = ProfileName::Ns2.settings();
    // (field, differs, value, why, expected)
    let refused = [
        (
            "handshake",
            t.handshake != ns2.handshake,
            "true",
            "one-way agents start established, with no SYN exchange",
            "false",
        ),
        (
            "pacing",
            t.pacing.enabled,
            "true",
            "its agents send as the window allows",
            "false",
        ),
        (
            "randomize_rto",
            t.randomize_rto,
            "true",
            "its retransmission timer has no random factor",
            "false",
        ),
        (
            "rto_random_delay",
            t.rto_delay != RtoDelay::Off,
            "a delay",
            "its retransmission timer has no random delay",
            "\"off\"",
        ),
        (
            "ecn",
            t.ecn,
            "true",
            "the plan's agents run without ECN-capable transport",
            "false",
        ),
        (
            "rtt_timestamps",
            t.rtt_timestamps,
            "true",
            "the plan's agents time one segment per window",
            "false",
        ),
        (
            "max_backoff",
            t.max_backoff != ns2.max_backoff,
            "a limit",
            "ns-2.35 doubles the RTO up to maxrto_",
            "0",
        ),
        (
            "backoff_restarts_srtt",
            t.backoff_restarts_srtt != ns2.backoff_restarts_srtt,
            "false",
            "rtt_backoff() restarts the estimator after a long backoff",
            "true",
        ),
        (
            "cwnd_validation",
            t.cwnd_validation != ns2.cwnd_validation,
            "true",
            "its agents grow cwnd on every ACK",
            "false",
        ),
        (
            "slow_start_after_idle",
            t.slow_start_after_idle != ns2.slow_start_after_idle,
            "true",
            "an idle agent keeps its cwnd",
            "false",
        ),
        (
            "max_retransmits",
            t.max_retransmits != ns2.max_retransmits,
            "a limit",
            "an agent never gives up",
            "255",
        ),
        (
            "small_queues",
            t.small_queues.is_some(),
            "a limit",
            "ns-2 has no TCP Small Queues",
            "\"off\"",
        ),
    ];
    if let Some((f, _, v, why, expected)) = refused.iter().find(|r| r.1) {
        return Err(err(
            at(f),
            format!("{v} is not supported by the ns-2 backend ({why}); expected {expected}, the ns2 profile's"),
        ));
    }
    if t.granularity != t.clock.tick() {
        return Err(err(
            at("clock_granularity"),
            format!("\"{}\" is not supported by the ns-2 backend (its RTO's granularity is tcpTick_, \"{}\"); expected the field left out", t.granularity, t.clock.tick()),
        ));
    }
    Ok(())
}

/// The workloads' applications, and the agent specs they use (each
/// distinct spec once).
fn workloads(
    sc: &Scenario,
    resolved: &Resolved,
    tcp: &mut Vec<PlanAgent>,
    warnings: &mut Vec<String>,
) -> Result<Vec<PlanWorkload>, ScenarioError> {
    let mut out = Vec::new();
    for (wi, w) in sc.workloads.iter().enumerate() {
        if let WorkloadSpec::Udp(u) = w {
            super::udp_supported(wi, w, u, "ns-2")?;
        }
        let start_s = secs(w.start());
        let mut agent_of = |t: Option<&TcpSettings>| -> Result<usize, ScenarioError> {
            let a = agent(sc, wi, t.expect("a TCP workload"), warnings)?;
            Ok(match tcp.iter().position(|x| *x == a) {
                Some(k) => k,
                None => {
                    tcp.push(a);
                    tcp.len() - 1
                }
            })
        };
        let t = resolved.workload_tcp(wi);
        out.push(match w {
            WorkloadSpec::Incast(x) => {
                if x.response_jitter.is_some_and(|j| j > Time::ZERO) {
                    return Err(err(
                        format!("workload[{wi}].response_jitter"),
                        format!("\"{}\" is not supported by the ns-2 backend (the incast application answers at once); expected \"0s\"", x.response_jitter.unwrap_or(Time::ZERO)),
                    ));
                }
                let servers = x.servers(&resolved.hosts);
                let n = servers.len() as u64;
                let sru = match (x.sru, x.block) {
                    (Some(s), _) => vec![s.get(); servers.len()],
                    // A block split evenly, the first servers one byte more.
                    (None, Some(b)) => (0..n)
                        .map(|i| b.get() / n + u64::from(i < b.get() % n))
                        .collect(),
                    _ => unreachable!("validated: sru or block"),
                };
                PlanWorkload::Incast {
                    client: x.client.clone(),
                    servers,
                    sru_bytes: sru,
                    request_bytes: x.request().get(),
                    rounds: x.rounds(),
                    warmup: x.warmup.unwrap_or(false),
                    request_order: match x.request_order {
                        Some(crate::spec::RequestOrder::Random) => "random",
                        _ => "index",
                    },
                    start_s,
                    tcp: agent_of(t)?,
                }
            }
            WorkloadSpec::Bulk(x) => PlanWorkload::Bulk {
                src: x.src.clone(),
                dst: x.dst.clone(),
                bytes: x.size.map(|s| s.get()),
                start_s,
                tcp: agent_of(t)?,
            },
            WorkloadSpec::Short(x) => PlanWorkload::Short {
                src: x.src.clone(),
                dst: x.dst.clone(),
                count: x.count,
                bytes: x.flow_bytes(t.expect("a TCP workload").mss),
                packets: x.size.is_none().then_some(x.packets).flatten(),
                spread_s: secs(x.spread.unwrap_or(Time::ZERO)),
                start_s,
                tcp: agent_of(t)?,
            },
            WorkloadSpec::Udp(u) => PlanWorkload::Udp {
                rate_bps: u.rate.map_or(0, |r| r.get()),
                src: u.src.clone(),
                dst: u.dst.clone(),
                packet_bytes: u
                    .packet_size
                    .unwrap_or(crate::spec::workloads::DEFAULT_UDP_PACKET)
                    .get(),
                arrivals: match u.arrivals.unwrap_or(Arrivals::Poisson) {
                    Arrivals::Periodic => "cbr",
                    Arrivals::Poisson => "poisson",
                }
                .into(),
                start_s,
                stop_s: None,
            },
            WorkloadSpec::NfsRead(_) => {
                return Err(err(
                    format!("workload[{wi}].kind"),
                    "\"nfs_read\" is not supported by the ns-2 backend (no ns-2 application runs NFS reads); expected \"incast\", \"bulk\", \"short\" or \"udp\"",
                ))
            }
        });
    }
    Ok(out)
}

/// Lowers a TOML scenario.
pub fn lower_toml(text: &str) -> Result<Plan, ScenarioError> {
    lower(&Scenario::from_toml_str(text)?)
}

/// Lowers a JSON scenario.
pub fn lower_json(text: &str) -> Result<Plan, ScenarioError> {
    lower(&Scenario::from_json_str(text)?)
}

#[cfg(test)]
mod tests;
