//! The study's topologies and routing: builders' shapes and names, the
//! tie-breaks of each selection, equal-length routing, the paths table,
//! and ECMP's spread over a fat tree's cores (salted per switch) against
//! the same hash at every tier.

use fairlab_sim::metrics::Column;
use fairlab_sim::net::{Network, NodeId};
use fairlab_sim::packet::Packet;
use fairlab_sim::queue::BufferLimit;
use fairlab_sim::scenario::build;
use fairlab_sim::sim::Simulation;
use fairlab_sim::units::Bytes;
use fairlab_sim::Scenario;

fn toml(s: &str) -> Scenario {
    Scenario::from_toml_str(s).unwrap_or_else(|e| panic!("{e}"))
}

fn node(net: &Network, n: &str) -> NodeId {
    net.node_by_name(n).unwrap_or_else(|| panic!("no node {n}"))
}

/// Node names on the path of a packet from `a` to `b` with flow hash `hash`.
fn path(net: &Network, a: &str, b: &str, hash: u32) -> Vec<String> {
    let src = node(net, a);
    let pkt = Packet {
        dst: node(net, b),
        hash,
        ..Packet::blank()
    };
    let mut out = vec![a.to_string()];
    for p in net.path(src, &pkt) {
        out.push(net.nodes[net.ports[p as usize].peer as usize].name.clone());
    }
    out
}

fn fat_tree(k: u32, routing: &str, workloads: &str) -> String {
    format!(
        r#"
duration = "1ms"
[topology]
kind = "fat_tree"
k = {k}
rate = "1Gbps"
delay = "1us"
buffer = "16KiB"
[routing]
{routing}
{workloads}
"#
    )
}

const ONE_BULK: &str = r#"
[[workload]]
kind = "bulk"
src = "h0_0_0"
dst = "h1_0_0"
"#;

#[test]
fn a_k4_fat_tree_has_16_hosts_20_switches_and_48_links_with_al_fares_addresses() {
    let sc = toml(&fat_tree(4, "", ONE_BULK));
    let sim = build(&sc, None).unwrap();
    let net = &sim.net;
    assert_eq!(net.hosts.len(), 16);
    assert_eq!(net.nodes.len() - net.hosts.len(), 20);
    assert_eq!(net.ports.len(), 2 * 48);
    assert_eq!(net.addr(node(net, "h0_0_0")).to_string(), "10.0.0.2");
    assert_eq!(net.addr(node(net, "h3_1_1")).to_string(), "10.3.1.3");
    for s in ["edge0_0", "edge3_1", "agg2_1", "core0_0", "core1_1"] {
        node(net, s);
    }
    // The buffer of every switch port is the topology's.
    let e = node(net, "edge0_0");
    let p = net.port_toward(e, node(net, "agg0_1")).unwrap();
    assert_eq!(
        net.ports[p as usize].queue.limit_label(),
        BufferLimit::Bytes(Bytes(16 * 1024)).to_string()
    );
}

#[test]
fn address_bits_follow_al_fares_two_level_tables() {
    // Edge switch z of a pod sends host ID i up port (i - 2 + z) mod k/2;
    // aggregation switch z (k/2 .. k-1) likewise, to the cores.
    let sc = toml(&fat_tree(4, "selection = \"address_bits\"", ONE_BULK));
    let sim = build(&sc, None).unwrap();
    let net = &sim.net;
    // h1_0_0 is 10.1.0.2: edge0_0 (z = 0) -> agg0_0; agg0_0 (z = 2) -> core0_0.
    assert_eq!(
        path(net, "h0_0_0", "h1_0_0", 0),
        ["h0_0_0", "edge0_0", "agg0_0", "core0_0", "agg1_0", "edge1_0", "h1_0_0"]
    );
    // h1_0_1 is 10.1.0.3: edge0_0 -> agg0_1; agg0_1 (z = 3) -> (3-2+3) mod 2 = 0: core1_0.
    assert_eq!(
        path(net, "h0_0_0", "h1_0_1", 0),
        ["h0_0_0", "edge0_0", "agg0_1", "core1_0", "agg1_1", "edge1_0", "h1_0_1"]
    );
    // From edge0_1 (z = 1) to ID 2: (2-2+1) mod 2 = 1: agg0_1; there
    // (z = 3), (2-2+3) mod 2 = 1: core1_1.
    assert_eq!(
        path(net, "h0_1_0", "h1_0_0", 0),
        ["h0_1_0", "edge0_1", "agg0_1", "core1_1", "agg1_1", "edge1_0", "h1_0_0"]
    );
    // The flow hash plays no part.
    assert_eq!(
        path(net, "h0_0_0", "h1_0_1", 12345),
        path(net, "h0_0_0", "h1_0_1", 0)
    );
    // Within a pod: up to an aggregation switch and down.
    assert_eq!(
        path(net, "h0_0_0", "h0_1_1", 0),
        ["h0_0_0", "edge0_0", "agg0_1", "edge0_1", "h0_1_1"]
    );
}

#[test]
fn first_takes_the_first_attached_link_at_every_tie() {
    let sc = toml(&fat_tree(4, "selection = \"first\"", ONE_BULK));
    let sim = build(&sc, None).unwrap();
    for (a, b) in [("h0_0_0", "h3_1_1"), ("h2_1_0", "h1_0_1")] {
        let p = path(&sim.net, a, b, 99);
        assert_eq!(p[2].as_str(), &format!("agg{}_0", &a[1..2]));
        assert_eq!(p[3], "core0_0");
    }
}

#[test]
fn equal_length_routing_sends_every_flow_through_the_core() {
    let sc = toml(&fat_tree(
        4,
        "selection = \"address_bits\"\npaths = \"equal_length\"",
        ONE_BULK,
    ));
    let sim = build(&sc, None).unwrap();
    let net = &sim.net;
    // The 2-hop neighbour now takes six hops, like the flows from other pods.
    let local = path(net, "h0_0_1", "h0_0_0", 0);
    assert_eq!(local.len(), 7, "{local:?}");
    assert!(local[3].starts_with("core"), "{local:?}");
    let remote = path(net, "h3_1_1", "h0_0_0", 0);
    assert_eq!(remote.len(), 7, "{remote:?}");
    // Every flow to h0_0_0 enters edge0_0 from an aggregation switch.
    for src in ["h0_0_1", "h0_1_0", "h1_0_0", "h2_1_1", "h3_0_1"] {
        let p = path(net, src, "h0_0_0", 7);
        assert!(p[p.len() - 3].starts_with("agg0_"), "{p:?}");
        assert_eq!(p[p.len() - 2], "edge0_0");
    }
    // Shortest paths otherwise: the neighbour is two hops away.
    let sc = toml(&fat_tree(4, "selection = \"address_bits\"", ONE_BULK));
    let sim = build(&sc, None).unwrap();
    assert_eq!(
        path(&sim.net, "h0_0_1", "h0_0_0", 0),
        ["h0_0_1", "edge0_0", "h0_0_0"]
    );
}

#[test]
fn equal_length_routing_needs_tiers() {
    let e = Scenario::from_toml_str(
        r#"
[topology]
kind = "outcast"
senders = 2
rate = "1Gbps"
delay = "1us"
[routing]
paths = "equal_length"
[[workload]]
kind = "bulk"
src = "a0"
dst = "recv"
size = "1MiB"
"#,
    )
    .unwrap_err();
    assert_eq!(e.path, "routing.paths");
}

/// A permutation of the k = 8 fat tree's 128 hosts in which every flow
/// leaves its pod (host i sends to host i + 16 mod 128): each crosses one
/// core switch. Returns flows per core switch, over `seeds` runs.
fn core_loads(routing: &str, seeds: u64) -> Vec<u64> {
    let mut w = String::new();
    let name = |i: u32| format!("h{}_{}_{}", i / 16, (i / 4) % 4, i % 4);
    for i in 0..128 {
        w.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"{}\"\ndst = \"{}\"\n",
            name(i),
            name((i + 16) % 128)
        ));
    }
    let sc = toml(&fat_tree(8, routing, &w));
    let mut loads = vec![0u64; 16];
    for seed in 0..seeds {
        let sim: Simulation = build(&sc, Some(seed)).unwrap();
        let net = &sim.net;
        for e in &sim.endpoints {
            let (a, b, hash, _, _) = e.path_probe();
            let pkt = Packet {
                dst: b,
                hash,
                ..Packet::blank()
            };
            let cores: Vec<&str> = net
                .path(a, &pkt)
                .iter()
                .map(|&p| net.nodes[net.ports[p as usize].peer as usize].name.as_str())
                .filter(|n| n.starts_with("core"))
                .collect();
            assert_eq!(cores.len(), 1);
            let (j, i) = cores[0][4..].split_once('_').unwrap();
            loads[j.parse::<usize>().unwrap() * 4 + i.parse::<usize>().unwrap()] += 1;
        }
    }
    loads
}

#[test]
fn salted_ecmp_spreads_a_permutation_over_every_core_of_a_k8_fat_tree() {
    // 100 seeds x 128 flows: 800 flows per core if uniform.
    let loads = core_loads("selection = \"ecmp\"", 100);
    let mean = loads.iter().sum::<u64>() as f64 / 16.0;
    let worst = loads
        .iter()
        .map(|&l| (l as f64 - mean).abs() / mean)
        .fold(0.0, f64::max);
    // Chi-square against uniform, 15 degrees of freedom: 37.7 is p = 0.001.
    let chi2: f64 = loads
        .iter()
        .map(|&l| (l as f64 - mean).powi(2) / mean)
        .sum();
    eprintln!("ecmp core loads {loads:?}: worst {worst:.3}, chi2 {chi2:.1}");
    assert!(worst < 0.10, "{loads:?}");
    assert!(chi2 < 37.7, "{loads:?} chi2 {chi2}");
    // One run alone uses every core but a few.
    let one = core_loads("selection = \"ecmp\"", 1);
    assert!(one.iter().filter(|&&l| l > 0).count() >= 14, "{one:?}");
}

#[test]
fn the_same_hash_at_every_tier_concentrates_flows_on_a_few_cores() {
    // Edge and aggregation switches pick the same index of k/2 ports: only
    // the k/2 cores (j, j) ever carry a flow.
    let loads = core_loads("selection = \"ecmp_unsalted\"", 10);
    let used: Vec<usize> = (0..16).filter(|&c| loads[c] > 0).collect();
    eprintln!("ecmp_unsalted core loads {loads:?}");
    assert_eq!(used, [0, 5, 10, 15], "{loads:?}");
}

#[test]
fn the_outcast_topology_and_its_paths_table() {
    let sc = toml(
        r#"
duration = "20ms"
[topology]
kind = "outcast"
senders = 3
rate = "1Gbps"
delay = "10us"
buffer = "16KiB"
[[workload]]
kind = "bulk"
src = "a0"
dst = "recv"
[[workload]]
kind = "bulk"
src = "b0"
dst = "recv"
[[workload]]
kind = "bulk"
src = "b2"
dst = "recv"
"#,
    );
    let res = fairlab_sim::run(&sc, None).unwrap();
    let t = res.table("paths");
    let Column::Str(p) = t.column("path").unwrap() else {
        panic!()
    };
    assert_eq!(p, &["a0>s0>recv", "b0>s1>s0>recv", "b2>s1>s0>recv"]);
    let Column::Str(r) = t.column("reverse_path").unwrap() else {
        panic!()
    };
    assert_eq!(r[1], "recv>s0>s1>b0");
    let Column::I64(h) = t.column("hops").unwrap() else {
        panic!()
    };
    assert_eq!(h, &[2, 3, 3]);
    let Column::F64(rtt) = t.column("base_rtt_s").unwrap() else {
        panic!()
    };
    // Two links each way: 4 x 10 us, 1500 B at 1 Gb/s twice (24 us), 40 B twice (0.64 us).
    assert!((rtt[0] - 64.64e-6).abs() < 1e-12, "{}", rtt[0]);
    assert!((rtt[1] - 96.96e-6).abs() < 1e-12, "{}", rtt[1]);
    // Every flow delivered data.
    let Column::I64(b) = res
        .table("flows")
        .column("bytes_delivered")
        .unwrap()
        .clone()
    else {
        panic!()
    };
    assert!(b.iter().all(|&x| x > 0), "{b:?}");
}

#[test]
fn the_paths_table_leaves_the_digest_as_it_was() {
    // The digest covers every table but paths (and the drop tables by
    // input port, also added later): it is the hash of the others (but
    // for the ports table's shaper columns, also added later, and the
    // reads table, which this run leaves empty).
    let sc = toml(&fat_tree(4, "", ONE_BULK));
    let res = fairlab_sim::run(&sc, None).unwrap();
    let mut h = fairlab_sim::metrics::Fnv64::default();
    let empty_later = |n: &str, t: &fairlab_sim::metrics::Table| {
        t.rows() == 0 && fairlab_sim::metrics::DIGESTED_WHEN_NONEMPTY.contains(&n)
    };
    for (n, t) in &res.tables {
        if !fairlab_sim::metrics::NOT_DIGESTED.contains(&n.as_str()) && !empty_later(n, t) {
            h.write(n.as_bytes());
            let later = fairlab_sim::metrics::NOT_DIGESTED_COLUMNS;
            t.hash_columns_into(&mut h, |c| !later.contains(&(n.as_str(), c)));
        }
    }
    assert_eq!(res.digest(), format!("{:016x}", h.finish()));
}

#[test]
fn spraying_runs_and_reports_the_first_port_of_each_tie() {
    let sc = toml(&fat_tree(4, "selection = \"spray\"", ONE_BULK));
    let res = fairlab_sim::run(&sc, None).unwrap();
    let Column::Str(p) = res.table("paths").column("path").unwrap().clone() else {
        panic!()
    };
    assert_eq!(p[0], "h0_0_0>edge0_0>agg0_0>core0_0>agg1_0>edge1_0>h1_0_0");
    let Column::I64(b) = res
        .table("flows")
        .column("bytes_delivered")
        .unwrap()
        .clone()
    else {
        panic!()
    };
    assert!(b[0] > 0);
}

#[test]
fn an_explicit_topology_takes_per_link_rates_delays_and_buffers() {
    let sc = toml(
        r#"
duration = "5ms"
[topology]
kind = "explicit"
hosts = ["x", "y", "z"]
switches = ["s", "t"]
[[topology.links]]
a = "x"
b = "s"
rate = "1Gbps"
delay = "5us"
[[topology.links]]
a = "s"
b = "t"
rate = "100Mbps"
delay = "50us"
buffer = "20pkt"
buffer_b = "8KiB"
[[topology.links]]
a = "y"
b = "t"
rate = "1Gbps"
delay = "5us"
[[topology.links]]
a = "z"
b = "t"
rate = "10Gbps"
delay = "1us"
buffer = "100KiB"
[[workload]]
kind = "bulk"
src = "x"
dst = "y"
"#,
    );
    let sim = build(&sc, None).unwrap();
    let net = &sim.net;
    let (s, t, z) = (node(net, "s"), node(net, "t"), node(net, "z"));
    let st = net.port_toward(s, t).unwrap() as usize;
    let ts = net.port_toward(t, s).unwrap() as usize;
    assert_eq!(
        net.ports[st].queue.limit_label(),
        BufferLimit::Packets(20).to_string()
    );
    assert_eq!(
        net.ports[ts].queue.limit_label(),
        BufferLimit::Bytes(Bytes(8 * 1024)).to_string()
    );
    assert_eq!(net.ports[st].rate.get(), 100_000_000);
    let tz = net.port_toward(t, z).unwrap() as usize;
    assert_eq!(
        net.ports[tz].queue.limit_label(),
        BufferLimit::Bytes(Bytes(100 * 1024)).to_string()
    );
    let res = fairlab_sim::run(&sc, None).unwrap();
    let Column::Str(p) = res.table("paths").column("path").unwrap().clone() else {
        panic!()
    };
    assert_eq!(p, ["x>s>t>y"]);
}

#[test]
fn a_leaf_spine_runs_its_uplinks_at_the_oversubscribed_rate() {
    let sc = toml(
        r#"
duration = "1ms"
[topology]
kind = "leaf_spine"
leaves = 4
spines = 2
hosts = 8
rate = "10Gbps"
delay = "1us"
oversubscription = 4
[[workload]]
kind = "bulk"
src = "h0_0"
dst = "h3_7"
"#,
    );
    let sim = build(&sc, None).unwrap();
    let net = &sim.net;
    let up = net
        .port_toward(node(net, "leaf0"), node(net, "spine1"))
        .unwrap();
    // 8 hosts x 10 Gb/s over 2 uplinks, 4:1: 10 Gb/s each.
    assert_eq!(net.ports[up as usize].rate.get(), 10_000_000_000);
    assert_eq!(net.hosts.len(), 32);
    assert_eq!(path(net, "h0_0", "h3_7", 1).len(), 5);
}

#[test]
fn a_parking_lot_chains_its_switches() {
    let sc = toml(
        r#"
duration = "1ms"
[topology]
kind = "parking_lot"
switches = 4
hosts = 2
rate = "1Gbps"
delay = "1us"
trunk_rate = "500Mbps"
[[workload]]
kind = "bulk"
src = "h0_0"
dst = "h3_1"
"#,
    );
    let sim = build(&sc, None).unwrap();
    assert_eq!(
        path(&sim.net, "h0_0", "h3_1", 0),
        ["h0_0", "s0", "s1", "s2", "s3", "h3_1"]
    );
}

#[test]
fn a_k48_fat_tree_fits_the_default_limits_and_builds() {
    let sc = toml(&fat_tree(48, "", ONE_BULK));
    let r = sc.resolve().unwrap();
    assert_eq!(r.hosts.len(), 27_648);
    let mem = r.estimate.memory();
    eprintln!("k = 48: estimated {} MiB", mem >> 20);
    assert!(mem < 4 << 30);
    if cfg!(debug_assertions) {
        return; // building takes seconds unoptimized
    }
    let sim = build(&sc, None).unwrap();
    assert_eq!(sim.net.nodes.len(), 27_648 + 2_880);
    // FIB state: 4 bytes per (switch, edge switch: the 1,152 groups of
    // hosts hanging off one switch), plus one local entry per host at its
    // edge switch and each host's place (8 bytes); within the estimate.
    let fib = sim.net.route_state_bytes() as u64;
    assert!(fib >= 4 * 2_880 * 1_152 + 12 * 27_648, "{fib}");
    assert!(fib < 16 << 20 && fib < mem, "{fib}");
}

/// The event loop's prefetching (on for networks of 256 ports or more) is
/// a hint: a k = 8 permutation (768 ports) gives the same tables with it
/// off, under hashed ECMP and under spraying (whose routing has state,
/// which the prefetcher only peeks at).
#[test]
fn prefetching_leaves_a_large_run_as_it_was() {
    let name = |i: u32| format!("h{}_{}_{}", i / 16, (i / 4) % 4, i % 4);
    let mut w = String::new();
    for i in 0..128 {
        w.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"{}\"\ndst = \"{}\"\n",
            name(i),
            name((i + 16) % 128)
        ));
    }
    for routing in ["selection = \"ecmp\"", "selection = \"spray\""] {
        let sc = toml(&fat_tree(8, routing, &w));
        // Off, in shallow stages (this network's own), in deep ones (those
        // of networks of 32,768 ports and more).
        let digests: Vec<String> = [(false, false), (true, false), (true, true)]
            .iter()
            .map(|&(on, deep)| {
                let mut sim: Simulation = build(&sc, Some(3)).unwrap();
                sim.set_prefetch(on);
                sim.set_prefetch_deep(deep);
                sim.run();
                assert!(sim.counters.packet_hops > 10_000, "{routing}: a busy run");
                fairlab_sim::metrics::collect(&sim).digest()
            })
            .collect();
        assert_eq!(digests[0], digests[1], "{routing}: shallow");
        assert_eq!(digests[0], digests[2], "{routing}: deep");
    }
}
