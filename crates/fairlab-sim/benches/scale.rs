//! Criterion benchmarks of the simulator as topologies grow (issue 23):
//! fat trees k = 4, 8 and 16 with a permutation of long flows (host i to
//! host i + k^2/4, every flow through a core switch), a 16 x 8 leaf-spine
//! with the same pattern, and the 32-server incast. Throughput is in
//! packet-hops; each group prints its events per packet-hop once. Peak
//! memory and bytes per flow need a process per workload: `fairlab bench
//! --scale` measures them, k = 48 included.
//!
//! cargo bench -p fairlab-sim --features bench --bench scale
//! FAIRLAB_BENCH_K48=1 cargo bench ... (adds k = 48 for 1 ms: minutes a sample)

#[path = "../../fairlab-py/src/alloc.rs"]
mod alloc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fairlab_sim::Scenario;
use std::time::Duration;

/// A JSON scenario of `flows` bulk flows, source `names[i]` to
/// `names[(i + step) % n]`, on `topology`, for `duration`.
fn permutation(topology: &str, names: &[String], step: usize, duration: &str) -> Scenario {
    let n = names.len();
    let flows: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"kind": "bulk", "src": "{}", "dst": "{}"}}"#,
                names[i],
                names[(i + step) % n]
            )
        })
        .collect();
    Scenario::from_json_str(&format!(
        r#"{{"duration": "{duration}", "topology": {topology},
 "routing": {{"selection": "ecmp"}}, "tcp": {{"profile": "datacenter"}},
 "limits": {{"max_packet_hops": 1000000000000, "max_events": 1000000000000,
             "max_packets": 100000000000, "max_memory": "64GiB"}},
 "workload": [{}]}}"#,
        flows.join(",")
    ))
    .unwrap_or_else(|e| panic!("{e}"))
}

pub fn fat_tree(k: usize, duration: &str) -> Scenario {
    let half = k / 2;
    let n = k * k * k / 4;
    let names: Vec<String> = (0..n)
        .map(|i| format!("h{}_{}_{}", i / (half * half), (i / half) % half, i % half))
        .collect();
    let topo = format!(r#"{{"kind": "fat_tree", "k": {k}, "rate": "10Gbps", "delay": "1us"}}"#);
    permutation(&topo, &names, k * k / 4, duration)
}

pub fn leaf_spine(leaves: usize, spines: usize, per_leaf: usize, duration: &str) -> Scenario {
    let names: Vec<String> = (0..leaves * per_leaf)
        .map(|i| format!("h{}_{}", i / per_leaf, i % per_leaf))
        .collect();
    let topo = format!(
        r#"{{"kind": "leaf_spine", "leaves": {leaves}, "spines": {spines}, "hosts": {per_leaf}, "rate": "10Gbps", "delay": "1us"}}"#
    );
    permutation(&topo, &names, per_leaf, duration)
}

/// The incast of BENCHMARKS.md: 32 servers, 1 MiB blocks, 1 ms min RTO.
pub fn incast(rounds: u32) -> Scenario {
    let mut hosts = vec!["\"client\"".to_string()];
    hosts.extend((1..=32).map(|i| format!("\"s{i}\"")));
    Scenario::from_toml_str(&format!(
        "[topology]\nkind = \"star\"\nhosts = [{}]\nrate = \"1Gbps\"\ndelay = \"25us\"\n\
         [queue]\nlimit = \"64KiB\"\n[tcp]\nmin_rto = \"1ms\"\nresolution = \"1us\"\n\
         [[workload]]\nkind = \"incast\"\nclient = \"client\"\nblock = \"1MiB\"\nrounds = {rounds}\n",
        hosts.join(",")
    ))
    .unwrap()
}

fn bench(c: &mut Criterion) {
    alloc::use_huge_pages();
    let mut cases = vec![
        ("fat_tree_k4_permutation_10ms", fat_tree(4, "10ms")),
        ("fat_tree_k8_permutation_2ms", fat_tree(8, "2ms")),
        ("fat_tree_k16_permutation_1ms", fat_tree(16, "1ms")),
        (
            "leaf_spine_16x8_permutation_2ms",
            leaf_spine(16, 8, 16, "2ms"),
        ),
        ("incast_32_servers_400_rounds", incast(400)),
    ];
    if std::env::var_os("FAIRLAB_BENCH_K48").is_some() {
        cases.push(("fat_tree_k48_permutation_1ms", fat_tree(48, "1ms")));
    }
    for (name, sc) in cases {
        let r = fairlab_sim::run(&sc, None).unwrap();
        let (hops, events) = (r.int("packet_hops"), r.int("events"));
        eprintln!(
            "{name}: {hops} packet-hops, {:.3} events per hop",
            events as f64 / hops as f64
        );
        let mut g = c.benchmark_group(name);
        g.sample_size(10).measurement_time(Duration::from_secs(10));
        g.throughput(Throughput::Elements(hops as u64));
        g.bench_function("run", |b| {
            b.iter(|| criterion::black_box(fairlab_sim::run(&sc, None).unwrap()))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
