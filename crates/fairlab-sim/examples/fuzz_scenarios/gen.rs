//! Scenario cases for the fuzzer: whole scenarios generated field by field
//! (valid-looking structure, every kind of topology, discipline, shaper and
//! workload, with an extreme or invalid value now and then), and mutations
//! of the shipped scenarios (values flipped to zero, negative, huge, NaN,
//! the wrong type or a wrong name; tables dropped or duplicated; keys
//! added). Case `i` of seed `s` is the same on every machine.

use fairlab_sim::engine::Rng;
use std::path::Path;
use toml::{Table, Value};

/// How a case is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub text: String,
    pub format: Format,
    /// Where it came from: "generated" or the mutated file's name.
    pub origin: String,
}

/// The scenarios mutations start from.
pub struct Corpus {
    pub files: Vec<(String, Table)>,
}

impl Corpus {
    /// Every shipped and test scenario under the repository root.
    pub fn load(root: &Path) -> Corpus {
        let mut files = Vec::new();
        for dir in ["examples", "tests/golden/scenarios", "tests/python/data"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            let mut paths: Vec<_> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            paths.sort();
            for p in paths {
                let text = std::fs::read_to_string(&p).expect("readable");
                let table: Table = toml::from_str(&text).expect("shipped scenarios parse as TOML");
                let name = p.strip_prefix(root).unwrap_or(&p).display().to_string();
                files.push((name, table));
            }
        }
        Corpus { files }
    }
}

/// A NaN or infinity in JSON text (which has neither): written as this
/// string, then replaced by the bare token Python's json.dumps would write.
const NAN_MARK: &str = "__fuzz_nan__";
const INF_MARK: &str = "__fuzz_inf__";

struct G {
    rng: Rng,
}

impl G {
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            self.rng.below_inclusive(n as u64 - 1) as usize
        }
    }
    fn chance(&mut self, p: f64) -> bool {
        self.rng.next_f64() < p
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
    fn s(&mut self, xs: &[&str]) -> Value {
        Value::String(self.pick(xs).to_string())
    }

    /// Usually a sensible value from `good`, sometimes a bad or extreme one.
    fn choose(&mut self, good: &[&str], bad: &[&str]) -> Value {
        if self.chance(0.04) {
            if self.chance(0.3) {
                self.anything()
            } else {
                self.s(bad)
            }
        } else {
            self.s(good)
        }
    }
    /// Like `choose`, and sometimes a valid but very large value from `big`
    /// (what the limits are for).
    fn sized(&mut self, good: &[&str], bad: &[&str], big: &[&str]) -> Value {
        if self.chance(0.05) {
            self.s(big)
        } else {
            self.choose(good, bad)
        }
    }
    fn count(&mut self, good: &[i64]) -> Value {
        if self.chance(0.05) {
            Value::Integer(self.pick(BIG_COUNTS))
        } else {
            self.int(good)
        }
    }
    fn int(&mut self, good: &[i64]) -> Value {
        if self.chance(0.04) {
            if self.chance(0.3) {
                self.anything()
            } else {
                Value::Integer(self.pick(BAD_INTS))
            }
        } else {
            Value::Integer(self.pick(good))
        }
    }
    fn float(&mut self, good: &[f64]) -> Value {
        if self.chance(0.05) {
            if self.chance(0.3) {
                self.anything()
            } else {
                Value::Float(self.pick(BAD_FLOATS))
            }
        } else {
            Value::Float(self.pick(good))
        }
    }
    fn boolean(&mut self) -> Value {
        if self.chance(0.05) {
            self.anything()
        } else {
            Value::Boolean(self.chance(0.5))
        }
    }

    /// A value of any type and size.
    fn anything(&mut self) -> Value {
        match self.below(9) {
            0 => Value::Integer(self.pick(BAD_INTS)),
            1 => Value::Float(self.pick(BAD_FLOATS)),
            2 => Value::Boolean(self.chance(0.5)),
            3 => Value::String(String::new()),
            4 => self.s(TIMES_BAD),
            5 => self.s(SIZES_BAD),
            6 => self.s(RATES_BAD),
            7 => Value::Array(vec![Value::Integer(1), Value::String("x".into())]),
            _ => {
                let mut t = Table::new();
                t.insert("x".into(), Value::Integer(1));
                Value::Table(t)
            }
        }
    }
}

const TIMES_OK: &[&str] = &["0s", "1us", "5us", "25us", "100us", "1ms", "10ms", "50ms"];
const TIMES_BAD: &[&str] = &[
    "1ps",
    "1ns",
    "0",
    "-1ms",
    "1e3s",
    "abc",
    "",
    "0.5ps",
    "1000000s",
    "1000001s",
    "18446744s",
    "99999999999s",
    "3min",
    "20000000s",
];
const TIMES_BIG: &[&str] = &["10s", "100s", "1000s", "100000s", "1000000s"];
const PERIODS_SMALL: &[&str] = &["1ps", "1ns", "10ns", "1us"];
const SIZES_BIG: &[&str] = &["100MiB", "1GiB", "100GiB", "1000GiB"];
const RATES_BIG: &[&str] = &["1Tbps", "100Gbps", "400Gbps"];
const BIG_COUNTS: &[i64] = &[10_000, 100_000, 1_000_000, 1 << 30, 4294967295];
const DURATIONS_OK: &[&str] = &["10ms", "20ms", "50ms", "100ms", "200ms"];
const RATES_OK: &[&str] = &["1Gbps", "10Gbps", "100Mbps", "40Gbps"];
const RATES_BAD: &[&str] = &[
    "1bps",
    "9600bps",
    "1kbps",
    "1Tbps",
    "100Tbps",
    "0bps",
    "-1Gbps",
    "fast",
    "1G",
    "18446744073709551615bps",
    "2.5Gbps",
];
const SIZES_BAD: &[&str] = &[
    "0B",
    "1B",
    "39B",
    "1TiB",
    "1GiB",
    "18446744073709551615B",
    "-1B",
    "1.5B",
    "abc",
    "",
    "99999999999999999999B",
];
const BUFFERS_OK: &[&str] = &["64KiB", "32KiB", "20pkt", "100pkt", "1000pkt", "16KiB"];
const BUFFERS_BAD: &[&str] = &[
    "0pkt",
    "1pkt",
    "1B",
    "4294967295pkt",
    "4294967296pkt",
    "1GiB",
    "1TiB",
    "0B",
    "-1pkt",
];
const BAD_INTS: &[i64] = &[
    0,
    -1,
    1,
    255,
    256,
    65536,
    65537,
    1 << 20,
    4294967295,
    4294967296,
    i64::MAX,
    i64::MIN,
];
const BAD_FLOATS: &[f64] = &[
    0.0,
    -1.0,
    1.0,
    2.0,
    1e-300,
    1e300,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];
const NAMES_BAD: &[&str] = &["", "sw", "swL", "nobody", "h99", "client"];

/// One of the graph topologies (outcast, parking lot, fat tree,
/// leaf-spine, an explicit list), small; fills `topo` but for `rate` and
/// `delay` (an explicit list has its own per link). Returns the host and
/// switch names.
fn graph_topology(g: &mut G, topo: &mut Table) -> (Vec<String>, Vec<String>) {
    let buffer = |g: &mut G, t: &mut Table| {
        if g.chance(0.4) {
            t.insert("buffer".into(), g.choose(BUFFERS_OK, BUFFERS_BAD));
        }
    };
    match g.below(5) {
        0 => {
            topo.insert("kind".into(), Value::String("outcast".into()));
            let (n, local) = (1 + g.below(4), g.below(3));
            topo.insert("senders".into(), g.count(&[n as i64]));
            if g.chance(0.5) {
                topo.insert("local".into(), g.int(&[local as i64]));
            } else {
                // The default: one.
                return outcast_names(1, n, g, topo, buffer);
            }
            outcast_names(local, n, g, topo, buffer)
        }
        1 => {
            topo.insert("kind".into(), Value::String("parking_lot".into()));
            let (s, h) = (2 + g.below(3), 1 + g.below(2));
            topo.insert("switches".into(), g.count(&[s as i64]));
            topo.insert("hosts".into(), g.int(&[h as i64]));
            if g.chance(0.4) {
                topo.insert("trunk_rate".into(), g.choose(RATES_OK, RATES_BAD));
            }
            if g.chance(0.4) {
                topo.insert("trunk_delay".into(), g.choose(TIMES_OK, TIMES_BAD));
            }
            buffer(g, topo);
            let hosts = (0..s)
                .flat_map(|i| (0..h).map(move |j| format!("h{i}_{j}")))
                .collect();
            (hosts, (0..s).map(|i| format!("s{i}")).collect())
        }
        2 => {
            topo.insert("kind".into(), Value::String("fat_tree".into()));
            let k = g.pick(&[2usize, 4]);
            topo.insert("k".into(), g.int(&[k as i64, 3, 0, 256, 254]));
            buffer(g, topo);
            let half = k / 2;
            let mut hosts = Vec::new();
            let mut sw = Vec::new();
            for p in 0..k {
                for e in 0..half {
                    for i in 0..half {
                        hosts.push(format!("h{p}_{e}_{i}"));
                    }
                    sw.push(format!("edge{p}_{e}"));
                    sw.push(format!("agg{p}_{e}"));
                }
            }
            sw.push("core0_0".into());
            (hosts, sw)
        }
        3 => {
            topo.insert("kind".into(), Value::String("leaf_spine".into()));
            let (l, s, h) = (1 + g.below(3), 1 + g.below(3), 1 + g.below(3));
            topo.insert("leaves".into(), g.count(&[l as i64]));
            topo.insert("spines".into(), g.int(&[s as i64]));
            topo.insert("hosts".into(), g.int(&[h as i64]));
            if g.chance(0.5) {
                topo.insert("oversubscription".into(), g.float(&[1.0, 3.0, 0.5, 1e-12]));
            }
            buffer(g, topo);
            let hosts = (0..l)
                .flat_map(|i| (0..h).map(move |j| format!("h{i}_{j}")))
                .collect();
            let mut sw: Vec<String> = (0..l).map(|i| format!("leaf{i}")).collect();
            sw.extend((0..s).map(|i| format!("spine{i}")));
            (hosts, sw)
        }
        _ => {
            // Hosts x0.. on a chain of switches t0..; sometimes a broken link.
            topo.insert("kind".into(), Value::String("explicit".into()));
            let (n, s) = (2 + g.below(4), 1 + g.below(3));
            let hosts: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
            let sw: Vec<String> = (0..s).map(|i| format!("t{i}")).collect();
            let names =
                |v: &[String]| Value::Array(v.iter().map(|x| Value::String(x.clone())).collect());
            topo.insert("hosts".into(), names(&hosts));
            topo.insert("switches".into(), names(&sw));
            let mut links = Vec::new();
            let link = |g: &mut G, a: &str, b: &str| {
                let mut l = Table::new();
                l.insert("a".into(), g.choose(&[a], NAMES_BAD));
                l.insert("b".into(), g.choose(&[b], NAMES_BAD));
                l.insert("rate".into(), g.sized(RATES_OK, RATES_BAD, RATES_BIG));
                l.insert("delay".into(), g.sized(TIMES_OK, TIMES_BAD, TIMES_BIG));
                for (f, end) in [("buffer", "t"), ("buffer_a", a), ("buffer_b", b)] {
                    // Mostly at a switch end (a host's is refused).
                    let p = if end.starts_with('t') { 0.2 } else { 0.02 };
                    if g.chance(p) {
                        l.insert(f.into(), g.choose(BUFFERS_OK, BUFFERS_BAD));
                    }
                }
                Value::Table(l)
            };
            for (i, h) in hosts.iter().enumerate() {
                let t = sw[i % s].clone();
                links.push(link(g, h, &t));
            }
            for w in sw.windows(2) {
                links.push(link(g, &w[0], &w[1]));
            }
            if g.chance(0.1) {
                let (a, b) = (g.pick(&hosts), g.pick(&hosts));
                links.push(link(g, &a, &b));
            }
            if g.chance(0.1) && !links.is_empty() {
                links.pop();
            }
            topo.insert("links".into(), Value::Array(links));
            (hosts, sw)
        }
    }
}

fn outcast_names(
    local: usize,
    n: usize,
    g: &mut G,
    topo: &mut Table,
    buffer: impl Fn(&mut G, &mut Table),
) -> (Vec<String>, Vec<String>) {
    buffer(g, topo);
    let mut hosts = vec!["recv".to_string()];
    hosts.extend((0..local).map(|i| format!("a{i}")));
    hosts.extend((0..n).map(|i| format!("b{i}")));
    (hosts, vec!["s0".into(), "s1".into()])
}

/// A whole scenario, field by field.
fn generate(g: &mut G) -> Table {
    let mut sc = Table::new();
    if g.chance(0.5) {
        sc.insert("seed".into(), g.int(&[1, 2, 3, 42]));
    }
    if g.chance(0.85) {
        sc.insert(
            "duration".into(),
            g.sized(DURATIONS_OK, TIMES_BAD, TIMES_BIG),
        );
    }
    let (topo, hosts, switches) = topology_table(g);
    sc.insert("topology".into(), Value::Table(topo));
    if g.chance(0.8) {
        sc.insert("queue".into(), Value::Table(queue_table(g)));
    }
    let sw: &[String] = &switches;
    if g.chance(0.3) {
        sc.insert("port".into(), port_tables(g, sw, &hosts));
    }
    if g.chance(0.3) {
        sc.insert("host".into(), Value::Table(host_table(g, &hosts)));
    }
    if g.chance(0.15) {
        let mut w = Table::new();
        w.insert(
            "forwarding_jitter".into(),
            g.sized(&["0us", "1us", "12us"], TIMES_BAD, TIMES_BIG),
        );
        sc.insert("switch".into(), Value::Table(w));
    }
    if g.chance(0.6) {
        sc.insert("tcp".into(), Value::Table(tcp_table(g)));
    }
    if g.chance(0.2) {
        sc.insert("routing".into(), Value::Table(routing_table(g, sw)));
    }
    // Workloads.
    let mut wls = Vec::new();
    for _ in 0..1 + g.below(3) {
        wls.push(Value::Table(workload(g, &hosts)));
    }
    if !g.chance(0.02) {
        sc.insert("workload".into(), Value::Array(wls));
    }
    if g.chance(0.4) {
        sc.insert("metrics".into(), Value::Table(metrics_table(g)));
    }
    if g.chance(0.1) {
        let mut l = Table::new();
        l.insert(
            "framing".into(),
            g.choose(&["38B", "0B"], &["2KiB", "-1B", "38"]),
        );
        sc.insert("link".into(), Value::Table(l));
    }
    if g.chance(0.05) {
        let mut l = Table::new();
        l.insert("max_packets".into(), g.int(&[1000, 100_000]));
        l.insert("max_series_rows".into(), g.int(&[10, 1_000_000]));
        l.insert("max_memory".into(), g.choose(&["1GiB", "64MiB"], SIZES_BAD));
        sc.insert("limits".into(), Value::Table(thin(g, l)));
    }
    if g.chance(0.03) {
        sc.insert(
            g.pick(&["extra", "workloads", "Topology"]).into(),
            g.anything(),
        );
    }
    sc
}

/// The topology: a star, a graph or a dumbbell, now and then damaged;
/// with its hosts' and switches' names.
fn topology_table(g: &mut G) -> (Table, Vec<String>, Vec<String>) {
    let mut topo = Table::new();
    let star = g.chance(0.45);
    let graph = !star && g.chance(0.45);
    let hosts: Vec<String>;
    let switches: Vec<String>;
    if star {
        switches = vec!["sw".into()];
        topo.insert("kind".into(), Value::String("star".into()));
        let n = 2 + g.below(6);
        if g.chance(0.5) {
            hosts = (0..n).map(|i| format!("h{i}")).collect();
            topo.insert("hosts".into(), g.count(&[n as i64]));
        } else {
            hosts = (0..n)
                .map(|i| {
                    if i == 0 {
                        "client".into()
                    } else {
                        format!("s{i}")
                    }
                })
                .collect();
            topo.insert(
                "hosts".into(),
                Value::Array(hosts.iter().map(|h| Value::String(h.clone())).collect()),
            );
        }
    } else if graph {
        (hosts, switches) = graph_topology(g, &mut topo);
    } else {
        switches = vec!["swL".into(), "swR".into()];
        topo.insert("kind".into(), Value::String("dumbbell".into()));
        let (l, r) = (1 + g.below(4), 1 + g.below(4));
        topo.insert("left".into(), g.count(&[l as i64]));
        topo.insert("right".into(), g.int(&[r as i64]));
        let mut h: Vec<String> = (0..l).map(|i| format!("l{i}")).collect();
        h.extend((0..r).map(|i| format!("r{i}")));
        hosts = h;
        topo.insert(
            "bottleneck_rate".into(),
            g.sized(RATES_OK, RATES_BAD, RATES_BIG),
        );
        topo.insert("bottleneck_delay".into(), g.choose(TIMES_OK, TIMES_BAD));
    }
    if !topo.contains_key("links") {
        topo.insert("rate".into(), g.sized(RATES_OK, RATES_BAD, RATES_BIG));
        topo.insert("delay".into(), g.sized(TIMES_OK, TIMES_BAD, TIMES_BIG));
    }
    if g.chance(0.03) {
        topo.remove(if g.chance(0.5) { "rate" } else { "kind" });
    }
    if g.chance(0.03) {
        topo.insert("kind".into(), g.s(&["ring", "Star", "", "fat-tree"]));
    }
    (topo, hosts, switches)
}

/// `[queue]`: a discipline, its limit, and some disciplines' own tables.
fn queue_table(g: &mut G) -> Table {
    let mut q = Table::new();
    let disc = g.choose(
        &["droptail", "hcf", "red", "sfq", "drr", "priority"],
        &["fifo", "HCF", "", "codel"],
    );
    q.insert("discipline".into(), disc);
    q.insert(
        "limit".into(),
        g.sized(
            BUFFERS_OK,
            BUFFERS_BAD,
            &["1GiB", "1000000pkt", "4294967295pkt"],
        ),
    );
    if g.chance(0.2) {
        q.insert(
            "ecn_threshold".into(),
            g.choose(&["16KiB", "10pkt"], BUFFERS_BAD),
        );
    }
    if g.chance(0.5) {
        let mut t = Table::new();
        t.insert("bins".into(), g.count(&[1, 4, 20, 64]));
        t.insert("c0".into(), g.int(&[1, 2, 3]));
        t.insert(
            "period".into(),
            g.sized(&["dynamic", "1ms", "10ms"], TIMES_BAD, PERIODS_SMALL),
        );
        t.insert("hashes".into(), g.int(&[1, 2, 3]));
        t.insert("hp_share".into(), g.float(&[0.25, 0.5, 0.75]));
        t.insert("byte_credits".into(), g.boolean());
        t.insert("swap".into(), g.boolean());
        q.insert("hcf".into(), Value::Table(thin(g, t)));
    }
    if g.chance(0.4) {
        let mut t = Table::new();
        t.insert("min_th".into(), g.float(&[1.0, 5.0, 10.0]));
        t.insert("max_th".into(), g.float(&[15.0, 30.0]));
        t.insert("max_p".into(), g.float(&[0.02, 0.1, 0.5]));
        t.insert("w_q".into(), g.float(&[0.002, 0.01]));
        t.insert("gentle".into(), g.boolean());
        t.insert("ecn".into(), g.boolean());
        q.insert("red".into(), Value::Table(thin(g, t)));
    }
    if g.chance(0.4) {
        let mut t = Table::new();
        t.insert("buckets".into(), g.int(&[1, 16, 128, 1024]));
        t.insert(
            "perturb".into(),
            g.sized(&["0s", "1ms", "10s"], TIMES_BAD, PERIODS_SMALL),
        );
        q.insert("sfq".into(), Value::Table(thin(g, t)));
    }
    if g.chance(0.4) {
        let mut t = Table::new();
        t.insert("buckets".into(), g.int(&[1, 16, 128, 1024]));
        t.insert(
            "quantum".into(),
            g.choose(&["1500B", "3000B", "9000B"], SIZES_BAD),
        );
        q.insert("drr".into(), Value::Table(thin(g, t)));
    }
    if g.chance(0.2) {
        let fifo = q.get("discipline").and_then(|d| d.as_str()) == Some("droptail");
        q.insert("shaper".into(), shaper(g, fifo));
    }
    if g.chance(0.4) {
        let mut t = Table::new();
        t.insert(
            "high".into(),
            g.choose(&["control", "udp"], &["udpp", "tcp", ""]),
        );
        t.insert("high_share".into(), g.float(&[0.1, 0.5, 0.9]));
        q.insert("priority".into(), Value::Table(thin(g, t)));
    }
    q
}

/// `[[port]]`: one or two ports between a switch and a host, each with
/// its own queue settings.
fn port_tables(g: &mut G, sw: &[String], hosts: &[String]) -> Value {
    let mut ports = Vec::new();
    for _ in 0..1 + g.below(2) {
        let mut p = Table::new();
        let (node, peer) = if g.chance(0.5) {
            (g.pick(sw), g.pick(hosts))
        } else {
            (g.pick(hosts), g.pick(sw))
        };
        p.insert("node".into(), g.choose(&[node.as_str()], NAMES_BAD));
        p.insert("peer".into(), g.choose(&[peer.as_str()], NAMES_BAD));
        if g.chance(0.5) {
            p.insert(
                "discipline".into(),
                g.choose(
                    &["droptail", "hcf", "red", "sfq", "drr", "priority"],
                    &["x"],
                ),
            );
        }
        if g.chance(0.6) {
            p.insert("limit".into(), g.choose(BUFFERS_OK, BUFFERS_BAD));
        }
        if g.chance(0.2) {
            p.insert("ecn_threshold".into(), g.choose(&["8KiB"], BUFFERS_BAD));
        }
        if g.chance(0.2) {
            let fifo = p.get("discipline").and_then(|d| d.as_str()) == Some("droptail");
            p.insert("shaper".into(), shaper(g, fifo));
        }
        ports.push(Value::Table(p));
    }
    Value::Array(ports)
}

/// `[host]`: the NIC's queues, send jitter, sending stack, shaper and
/// addresses.
fn host_table(g: &mut G, hosts: &[String]) -> Table {
    let mut h = Table::new();
    h.insert(
        "nic_queue".into(),
        g.choose(&["1000pkt", "100pkt", "1MiB"], BUFFERS_BAD),
    );
    h.insert(
        "send_jitter".into(),
        g.sized(&["0us", "1us", "2us"], TIMES_BAD, TIMES_BIG),
    );
    let queues = g.pick(&[1i64, 2, 4, 8]);
    h.insert(
        "nic_queues".into(),
        if g.chance(0.05) {
            g.count(&[1, 2, 4, 8])
        } else {
            Value::Integer(queues)
        },
    );
    if g.chance(0.5) {
        nic_stack(g, &mut h, queues);
    }
    if g.chance(0.3) {
        let fifo = h.get("nic_queues").and_then(|n| n.as_integer()) == Some(1);
        h.insert("shaper".into(), shaper(g, fifo));
    }
    if g.chance(0.3) {
        let mut a = Table::new();
        let h0 = g.pick(hosts);
        let key = g.choose(&[h0.as_str()], NAMES_BAD);
        a.insert(
            key.as_str().unwrap_or("x").into(),
            g.choose(
                &["10.0.0.1", "10.1.0.2", "192.168.0.7"],
                &["10.0.0", "300.1.1.1", "", "::1"],
            ),
        );
        h.insert("addresses".into(), Value::Table(a));
    }
    thin(g, h)
}

/// The sending stack of `[host]`, mostly consistent (batch with its
/// batch, weights one per queue, BQL with a ring, rebalance with
/// least_loaded), sometimes not.
fn nic_stack(g: &mut G, h: &mut Table, queues: i64) {
    h.insert(
        "profile".into(),
        g.choose(&["linux-2.6.32", "linux-3.12"], &["linux-4.0", "linux", ""]),
    );
    // A root qdisc above the rings: mq's children (nic_qdisc) only
    // under mq, [host.fq] only under fq, mostly.
    let root = g.pick(&["mq", "mq", "sfq", "fq"]);
    h.insert(
        "nic_root".into(),
        g.choose(&[root], &["pfifo_fast", "fq_codel", ""]),
    );
    if root == "mq" || g.chance(0.02) {
        h.insert(
            "nic_qdisc".into(),
            g.choose(
                &[
                    "pfifo_fast",
                    "droptail",
                    "sfq",
                    "drr",
                    "red",
                    "hcf",
                    "priority",
                ],
                &["fq", "mq", ""],
            ),
        );
    }
    if (root == "fq" && g.chance(0.5)) || g.chance(0.02) {
        let mut fq = Table::new();
        fq.insert("limit".into(), g.count(&[100, 10_000]));
        fq.insert("flow_limit".into(), g.int(&[1, 10, 100]));
        if g.chance(0.5) {
            fq.insert(
                "quantum".into(),
                g.choose(&["1B", "3000B", "64KiB"], &["0B", "2MiB", "lots"]),
            );
        }
        if g.chance(0.3) {
            fq.insert(
                "initial_quantum".into(),
                g.choose(&["0B", "15000B", "1MiB"], &["3GiB", "x"]),
            );
        }
        fq.insert(
            "refill_delay".into(),
            g.choose(&["0s", "40ms", "1s"], TIMES_BAD),
        );
        h.insert("fq".into(), Value::Table(fq));
    }
    // BQL and posted order need a ring: mostly given one.
    let arb = g.pick(&["packet", "batch", "weighted", "posted"]);
    let bql = g.boolean();
    let needs_ring = arb == "posted" || bql == Value::Boolean(true);
    let ring = if needs_ring && g.chance(0.9) {
        g.count(&[16, 255, 4096])
    } else {
        g.count(&[0, 16, 255, 4096])
    };
    h.insert("ring".into(), ring);
    h.insert("bql".into(), bql);
    h.insert("nic_arbitration".into(), g.choose(&[arb], &["fair", ""]));
    if arb == "batch" || g.chance(0.05) {
        h.insert("nic_batch".into(), g.count(&[1, 4, 64]));
    }
    if arb == "weighted" || g.chance(0.05) {
        let n = if g.chance(0.9) { queues } else { queues + 1 };
        let w: Vec<Value> = (0..n).map(|_| g.int(&[1, 2, 3, 100])).collect();
        h.insert("nic_weights".into(), Value::Array(w));
    }
    let sel = g.pick(&["hash", "cached", "rethink", "least_loaded"]);
    h.insert(
        "txq_select".into(),
        g.choose(&[sel], &["random", "least-loaded", ""]),
    );
    if sel == "least_loaded" || g.chance(0.05) {
        h.insert(
            "rebalance".into(),
            g.sized(&["0s", "1ms", "100ms"], TIMES_BAD, &["1ps", "1ns"]),
        );
    }
}

/// `[routing]`: a selection, per-switch ones, and the paths.
fn routing_table(g: &mut G, sw: &[String]) -> Table {
    let mut r = Table::new();
    let names = [
        "ecmp",
        "first",
        "address_bits",
        "destination_id",
        "spray",
        "ecmp_unsalted",
    ];
    r.insert(
        "selection".into(),
        g.choose(&names, &["random", "ECMP", ""]),
    );
    if g.chance(0.4) {
        let mut per = Table::new();
        let sw_name = g.pick(sw);
        let key = g.choose(&[sw_name.as_str()], NAMES_BAD);
        per.insert(
            key.as_str().unwrap_or("x").into(),
            g.choose(&names, &["hash"]),
        );
        r.insert("switches".into(), Value::Table(per));
    }
    if g.chance(0.3) {
        r.insert(
            "paths".into(),
            g.choose(&["shortest", "equal_length"], &["equal", ""]),
        );
    }
    thin(g, r)
}

/// `[metrics]`: bins, samples and traces.
fn metrics_table(g: &mut G) -> Table {
    let mut m = Table::new();
    if g.chance(0.6) {
        m.insert(
            "throughput_bin".into(),
            g.sized(&["1ms", "10ms", "100us"], TIMES_BAD, PERIODS_SMALL),
        );
    }
    if g.chance(0.6) {
        m.insert(
            "queue_sample".into(),
            g.sized(&["100us", "1ms", "50us"], TIMES_BAD, PERIODS_SMALL),
        );
    }
    if g.chance(0.4) {
        m.insert("trace".into(), g.boolean());
        if g.chance(0.5) {
            m.insert(
                "trace_flows".into(),
                Value::Array(vec![g.int(&[0, 1]), g.int(&[2, 3])]),
            );
        }
    }
    if g.chance(0.2) {
        m.insert("radon_series".into(), g.boolean());
    }
    m
}

/// A port shaper (`tbf` or `htb`), now and then with a bad kind, rate or
/// bucket, or a field of the other kind. `tbf` mostly where the queue is
/// a drop-tail one (`fifo`): elsewhere the lowering refuses it, and a few
/// such cases are enough to try that.
fn shaper(g: &mut G, fifo: bool) -> Value {
    let mut t = Table::new();
    let kinds: &[&str] = if fifo || g.chance(0.1) {
        &["tbf", "htb"]
    } else {
        &["htb"]
    };
    let kind = g.choose(kinds, &["TBF", "hfsc", "", "netem"]);
    let tbf = kind.as_str() == Some("tbf");
    t.insert("kind".into(), kind);
    t.insert(
        "rate".into(),
        g.sized(
            &["100Mbps", "10Mbps", "1Gbps", "1Mbps"],
            RATES_BAD,
            RATES_BIG,
        ),
    );
    let buckets = &["2621B", "3000B", "15KiB", "64KiB", "1600B", "10KiB"];
    if tbf || g.chance(0.5) {
        t.insert("burst".into(), g.choose(buckets, SIZES_BAD));
    }
    if !tbf && g.chance(0.5) || g.chance(0.03) {
        t.insert("cburst".into(), g.choose(buckets, SIZES_BAD));
    }
    if g.chance(0.1) {
        t.remove(if g.chance(0.5) { "rate" } else { "kind" });
    }
    Value::Table(t)
}

/// Drops some of a table's fields (they have defaults).
fn thin(g: &mut G, mut t: Table) -> Table {
    let keys: Vec<String> = t.keys().cloned().collect();
    for k in keys {
        if g.chance(0.4) {
            t.remove(&k);
        }
    }
    t
}

fn tcp_table(g: &mut G) -> Table {
    let mut t = Table::new();
    t.insert(
        "profile".into(),
        g.choose(
            &["rfc", "linux", "datacenter", "linux-2.6.32", "linux-3.12"],
            &["bsd", "linux-4.0", ""],
        ),
    );
    t.insert(
        "cc".into(),
        g.choose(
            &["reno", "newreno", "cubic", "bic", "vegas", "dctcp"],
            &["hybla", "Cubic", ""],
        ),
    );
    t.insert(
        "mss".into(),
        g.choose(&["1460B", "536B", "9000B"], SIZES_BAD),
    );
    t.insert("initial_window".into(), g.count(&[1, 3, 10]));
    t.insert(
        "receive_window".into(),
        g.sized(&["64KiB", "1MiB", "16MiB"], SIZES_BAD, SIZES_BIG),
    );
    t.insert(
        "min_rto".into(),
        g.sized(
            &["200ms", "1ms", "200us", "0s"],
            TIMES_BAD,
            &["1ps", "1ns", "1000s"],
        ),
    );
    t.insert(
        "max_rto".into(),
        g.sized(&["60s", "1s", "120s"], TIMES_BAD, TIMES_BIG),
    );
    t.insert(
        "initial_rto".into(),
        g.sized(&["1s", "3s", "10ms"], TIMES_BAD, &["1ps", "1ns", "1000s"]),
    );
    t.insert(
        "resolution".into(),
        g.choose(
            &["jiffy", "1us", "1ms"],
            &["jiffie", "0s", "1ps", "1000000s"],
        ),
    );
    t.insert("hz".into(), g.int(&[100, 250, 1000]));
    t.insert(
        "clock_granularity".into(),
        g.choose(&["1ms", "1us", "0s"], TIMES_BAD),
    );
    t.insert("delayed_ack".into(), g.boolean());
    t.insert(
        "delayed_ack_timeout".into(),
        g.sized(&["40ms", "1ms"], TIMES_BAD, &["1ps", "1000s"]),
    );
    t.insert("dupack_threshold".into(), g.int(&[1, 3, 5]));
    t.insert("slow_start_after_idle".into(), g.boolean());
    t.insert("cwnd_validation".into(), g.boolean());
    t.insert("sack".into(), g.boolean());
    t.insert("ecn".into(), g.boolean());
    t.insert("randomize_rto".into(), g.boolean());
    t.insert("rtt_timestamps".into(), g.boolean());
    t.insert("max_retransmits".into(), g.count(&[3, 15, 100]));
    t.insert("handshake".into(), g.boolean());
    t.insert("pacing".into(), g.boolean());
    t.insert("pacing_ss_ratio".into(), g.int(&[1, 200, 1000]));
    t.insert("pacing_ca_ratio".into(), g.int(&[1, 120, 1000]));
    t.insert("pacing_initial_burst".into(), g.int(&[0, 10, 1000]));
    t.insert(
        "small_queues".into(),
        g.sized(
            &["off", "128KiB", "1500B", "1B"],
            &["on", "0B", "-1B", ""],
            &["1GiB", "2GiB"],
        ),
    );
    // Mostly a few overrides, as people write them.
    let keys: Vec<String> = t.keys().cloned().collect();
    for k in keys {
        if g.chance(0.8) {
            t.remove(&k);
        }
    }
    t
}

fn workload(g: &mut G, hosts: &[String]) -> Table {
    let mut w = Table::new();
    let kind = g.choose(
        &["incast", "bulk", "short", "udp", "nfs_read"],
        &["Incast", "", "flood", "nfs"],
    );
    let k = kind.as_str().unwrap_or("").to_string();
    w.insert("kind".into(), kind);
    if g.chance(0.4) {
        w.insert(
            "start".into(),
            g.sized(&["0s", "1ms", "5ms"], TIMES_BAD, TIMES_BIG),
        );
    }
    match k.as_str() {
        "incast" => incast_fields(g, &mut w, hosts),
        "bulk" => {
            pair_fields(g, &mut w, hosts);
            if g.chance(0.6) {
                w.insert(
                    "size".into(),
                    g.sized(&["64KiB", "1MiB", "100KiB"], SIZES_BAD, SIZES_BIG),
                );
            }
        }
        "nfs_read" => nfs_fields(g, &mut w, hosts),
        "short" => {
            pair_fields(g, &mut w, hosts);
            w.insert("count".into(), g.count(&[1, 5, 20]));
            if g.chance(0.7) {
                w.insert("packets".into(), g.count(&[1, 10]));
            } else {
                w.insert("size".into(), g.choose(&["14600B", "1KiB"], SIZES_BAD));
            }
            w.insert(
                "spread".into(),
                g.sized(&["0s", "10ms", "1ms"], TIMES_BAD, TIMES_BIG),
            );
        }
        _ => {
            pair_fields(g, &mut w, hosts);
            w.insert(
                "rate".into(),
                g.sized(&["5Mbps", "100Mbps", "1Mbps"], RATES_BAD, RATES_BIG),
            );
            if g.chance(0.5) {
                w.insert(
                    "arrivals".into(),
                    g.choose(&["poisson", "periodic"], &["bursty", ""]),
                );
            }
            if g.chance(0.4) {
                w.insert(
                    "packet_size".into(),
                    g.choose(&["1500B", "64B", "9000B"], SIZES_BAD),
                );
            }
            if g.chance(0.2) {
                w.insert("packets".into(), Value::Integer(g.pick(&[1, 100, 0, -3])));
            }
            if g.chance(0.2) {
                w.insert(
                    "stop".into(),
                    g.sized(&["5ms", "1ms"], TIMES_BAD, TIMES_BIG),
                );
            }
            if g.chance(0.3) {
                radon_fields(g, &mut w);
            }
        }
    }
    if k != "udp" && g.chance(0.15) {
        w.insert("tcp".into(), Value::Table(tcp_table(g)));
    }
    if g.chance(0.04) {
        // A field of another kind.
        let f = g.pick(&[
            "src", "client", "count", "rate", "rounds", "spread", "sru", "io_size",
        ]);
        w.insert(f.into(), Value::Integer(3));
    }
    w
}

/// A host's name, now and then a bad one.
fn any_host(g: &mut G, hosts: &[String]) -> Value {
    let h = g.pick(hosts);
    g.choose(&[h.as_str()], NAMES_BAD)
}

/// A source and another host as destination (mostly).
fn pair_fields(g: &mut G, w: &mut Table, hosts: &[String]) {
    let i = g.below(hosts.len());
    let j = (i + 1 + g.below(hosts.len() - 1)) % hosts.len();
    w.insert("src".into(), g.choose(&[hosts[i].as_str()], NAMES_BAD));
    w.insert("dst".into(), g.choose(&[hosts[j].as_str()], NAMES_BAD));
}

/// An incast's fields: the client, its servers, the block and rounds.
fn incast_fields(g: &mut G, w: &mut Table, hosts: &[String]) {
    let client = hosts[0].clone();
    w.insert("client".into(), g.choose(&[client.as_str()], NAMES_BAD));
    if g.chance(0.3) {
        let n = 1 + g.below(hosts.len().saturating_sub(1).max(1));
        let mut servers: Vec<Value> = hosts[1..=n.min(hosts.len() - 1)]
            .iter()
            .map(|h| Value::String(h.clone()))
            .collect();
        if g.chance(0.1) {
            servers.push(any_host(g, hosts));
        }
        w.insert("servers".into(), Value::Array(servers));
    } else if g.chance(0.3) {
        w.insert("servers".into(), g.choose(&["all"], &["none", "*"]));
    }
    if g.chance(0.8) {
        w.insert(
            "sru".into(),
            g.sized(&["32KiB", "64KiB", "256KiB"], SIZES_BAD, SIZES_BIG),
        );
    } else {
        w.insert(
            "block".into(),
            g.sized(&["256KiB", "1MiB"], SIZES_BAD, SIZES_BIG),
        );
    }
    w.insert("rounds".into(), g.count(&[1, 2, 3]));
    if g.chance(0.3) {
        w.insert("request".into(), g.choose(&["100B", "2KiB"], SIZES_BAD));
    }
    if g.chance(0.2) {
        w.insert(
            "response_jitter".into(),
            g.sized(&["0us", "10us"], TIMES_BAD, TIMES_BIG),
        );
    }
}

/// An NFS read's fields: one server; its clients as one name, a list
/// (sometimes with the server or a stranger in it), "all" or left out;
/// the file and its reads.
fn nfs_fields(g: &mut G, w: &mut Table, hosts: &[String]) {
    let i = g.below(hosts.len());
    w.insert("server".into(), g.choose(&[hosts[i].as_str()], NAMES_BAD));
    let others: Vec<&String> = hosts.iter().filter(|h| **h != hosts[i]).collect();
    match g.below(4) {
        0 if !others.is_empty() => {
            let c = g.pick(&others).clone();
            w.insert("client".into(), g.choose(&[c.as_str()], NAMES_BAD));
        }
        1 => {
            let n = 1 + g.below(others.len().max(1));
            let mut list: Vec<Value> = others
                .iter()
                .take(n)
                .map(|h| Value::String((*h).clone()))
                .collect();
            if g.chance(0.1) {
                list.push(any_host(g, hosts));
            }
            w.insert("clients".into(), Value::Array(list));
        }
        2 => {
            w.insert("clients".into(), g.choose(&["all"], &["none", "*"]));
        }
        _ => {}
    }
    w.insert(
        "file_size".into(),
        g.sized(&["1MiB", "256KiB", "100000B"], SIZES_BAD, SIZES_BIG),
    );
    if g.chance(0.6) {
        w.insert(
            "io_size".into(),
            g.sized(&["64KiB", "32KiB", "1MiB", "1000B"], SIZES_BAD, SIZES_BIG),
        );
    }
    if g.chance(0.5) {
        w.insert("outstanding".into(), g.count(&[1, 2, 15, 64]));
    }
    if g.chance(0.2) {
        w.insert(
            "request".into(),
            g.choose(&["200B", "100B", "2KiB"], SIZES_BAD),
        );
    }
    if g.chance(0.2) {
        w.insert(
            "reply_header".into(),
            g.choose(&["108B", "0B", "1KiB"], SIZES_BAD),
        );
    }
    if g.chance(0.3) {
        w.insert(
            "disk_rate".into(),
            g.sized(&["2Gbps", "200Mbps", "10Mbps"], RATES_BAD, RATES_BIG),
        );
    }
}

/// A udp workload made a Radon stream (docs/radon.md): the transport, a
/// reservation, and its own `radon` table, each now and then wrong.
fn radon_fields(g: &mut G, w: &mut Table) {
    w.insert(
        "transport".into(),
        g.choose(&["radon"], &["Radon", "tcp", ""]),
    );
    if g.chance(0.3) {
        w.remove("rate");
        w.insert(
            "utilization".into(),
            Value::Float(g.pick(&[0.1, 0.5, 1.0, 0.0, -1.0, 1.5, f64::NAN])),
        );
    }
    if g.chance(0.4) {
        w.insert(
            "period".into(),
            g.sized(&["10ms", "1ms", "200us"], TIMES_BAD, TIMES_BIG),
        );
    }
    if g.chance(0.5) {
        let mut r = Table::new();
        r.insert("adaptive".into(), Value::Boolean(g.chance(0.5)));
        r.insert(
            "response".into(),
            g.choose(
                &[
                    "percent_budget",
                    "percent_budget_window",
                    "less_laxity_more",
                ],
                &["percent", ""],
            ),
        );
        r.insert(
            "model".into(),
            g.choose(&["median5", "basic", "pathload"], &["median"]),
        );
        r.insert(
            "stamp".into(),
            g.choose(&["socket", "nic", "application"], &["tsc"]),
        );
        if g.chance(0.3) {
            r.insert(
                "feedback_every".into(),
                Value::Integer(g.pick(&[1, 5, 0, 100_000])),
            );
        }
        if g.chance(0.3) {
            r.insert(
                "reserve".into(),
                Value::Float(g.pick(&[0.0, 0.2, 1.0, -0.5])),
            );
        }
        if g.chance(0.2) {
            r.insert(
                "wait_max".into(),
                g.sized(&["10ms", "1ms"], TIMES_BAD, TIMES_BIG),
            );
        }
        w.insert("radon".into(), Value::Table(r));
    }
}

/// Every (path, value) leaf and table of `t`, for mutation.
fn paths(v: &Value, prefix: &mut Vec<Key>, out: &mut Vec<Vec<Key>>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                prefix.push(Key::Name(k.clone()));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(Key::Index(i));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Key {
    Name(String),
    Index(usize),
}

fn get_mut<'a>(v: &'a mut Value, path: &[Key]) -> Option<&'a mut Value> {
    let mut cur = v;
    for k in path {
        cur = match (k, cur) {
            (Key::Name(n), Value::Table(t)) => t.get_mut(n)?,
            (Key::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// A value like `v` but wrong or extreme.
fn mutate_value(g: &mut G, v: &Value) -> Value {
    if g.chance(0.2) {
        return g.anything();
    }
    match v {
        Value::String(s) => {
            if g.chance(0.25) {
                // A wrong name: a letter changed, the case changed, or empty.
                let mut s = s.clone();
                match g.below(3) {
                    0 => s.push('x'),
                    1 => s = s.to_uppercase(),
                    _ => s.clear(),
                }
                return Value::String(s);
            }
            let t = s.trim();
            let pool: &[&str] = if t.ends_with("bps") {
                RATES_BAD
            } else if t.ends_with("pkt") {
                BUFFERS_BAD
            } else if t.ends_with('B') {
                SIZES_BAD
            } else if t.ends_with('s') {
                TIMES_BAD
            } else {
                NAMES_BAD
            };
            g.s(pool)
        }
        Value::Integer(_) => Value::Integer(g.pick(BAD_INTS)),
        Value::Float(_) => Value::Float(g.pick(BAD_FLOATS)),
        Value::Boolean(b) => {
            if g.chance(0.5) {
                Value::Boolean(!b)
            } else {
                Value::String(b.to_string())
            }
        }
        Value::Array(a) => {
            let mut a = a.clone();
            if !a.is_empty() && g.chance(0.5) {
                let x = a[g.below(a.len())].clone();
                a.push(x);
            } else {
                a.clear();
            }
            Value::Array(a)
        }
        Value::Table(_) => g.anything(),
        Value::Datetime(_) => g.anything(),
    }
}

fn mutate(g: &mut G, sc: &mut Table) {
    let mut root = Value::Table(std::mem::take(sc));
    for _ in 0..1 + g.below(3) {
        let mut all = Vec::new();
        paths(&root, &mut Vec::new(), &mut all);
        if all.is_empty() {
            break;
        }
        let path = all[g.below(all.len())].clone();
        let (parent_path, last) = path.split_at(path.len() - 1);
        match g.below(10) {
            // Drop the field or table.
            0 => {
                if let Some(parent) = get_mut(&mut root, parent_path) {
                    match (parent, &last[0]) {
                        (Value::Table(t), Key::Name(n)) => {
                            t.remove(n);
                        }
                        (Value::Array(a), Key::Index(i)) if *i < a.len() => {
                            a.remove(*i);
                        }
                        _ => {}
                    }
                }
            }
            // Duplicate an element of an array (a workload, a port).
            1 => {
                if let Some(Value::Array(a)) = get_mut(&mut root, parent_path) {
                    if let Key::Index(i) = last[0] {
                        let x = a[i].clone();
                        a.push(x);
                    }
                }
            }
            // Add an unknown key beside it.
            2 => {
                if let Some(Value::Table(t)) = get_mut(&mut root, parent_path) {
                    t.insert(
                        g.pick(&["extra", "Rate", "kind2"]).into(),
                        Value::Integer(1),
                    );
                }
            }
            // Scale a count up (huge workloads).
            3 => {
                if let Some(v) = get_mut(&mut root, &path) {
                    if let Value::Integer(n) = v {
                        *n = n.saturating_mul(g.pick(&[1000, 1_000_000, 1 << 32]));
                    } else {
                        *v = mutate_value(g, v);
                    }
                }
            }
            _ => {
                if let Some(v) = get_mut(&mut root, &path) {
                    *v = mutate_value(g, v);
                }
            }
        }
    }
    if let Value::Table(t) = root {
        *sc = t;
    }
}

/// Replaces NaN and infinite floats by marker strings (JSON has neither).
fn mark_specials(v: &mut Value) {
    match v {
        Value::Float(f) if f.is_nan() => *v = Value::String(NAN_MARK.into()),
        Value::Float(f) if f.is_infinite() => *v = Value::String(INF_MARK.into()),
        Value::Table(t) => t.iter_mut().for_each(|(_, x)| mark_specials(x)),
        Value::Array(a) => a.iter_mut().for_each(mark_specials),
        _ => {}
    }
}

/// Case `index` of `seed`.
pub fn case(seed: u64, index: u64, corpus: &Corpus) -> Case {
    let mut g = G {
        rng: Rng::stream(seed, &[index]),
    };
    let (origin, mut table) = if corpus.files.is_empty() || g.chance(0.6) {
        ("generated".to_string(), generate(&mut g))
    } else {
        let (name, t) = corpus.files[g.below(corpus.files.len())].clone();
        (name, t)
    };
    if origin != "generated" || g.chance(0.15) {
        mutate(&mut g, &mut table);
    }
    let format = if g.chance(0.25) {
        Format::Json
    } else {
        Format::Toml
    };
    let mut text = match format {
        Format::Toml => toml::to_string(&table).unwrap_or_default(),
        Format::Json => {
            let mut v = Value::Table(table);
            mark_specials(&mut v);
            serde_json::to_string(&v)
                .expect("a TOML value is JSON")
                .replace(&format!("\"{NAN_MARK}\""), "NaN")
                .replace(&format!("\"{INF_MARK}\""), "Infinity")
        }
    };
    // Now and then, text that is not a scenario at all.
    if g.chance(0.02) && !text.is_empty() {
        let cut = g.below(text.len());
        let cut = (0..=cut)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        text.truncate(cut);
    }
    Case {
        text,
        format,
        origin,
    }
}
