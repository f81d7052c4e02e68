//! Fat-tree speed: a permutation of long flows (host i sends to host
//! i + k^2/4, in the next pod: every flow crosses a core switch) under
//! per-switch salted ECMP, measured on the real path (a JSON scenario as
//! the Python binding passes it, validated, built, run, tables collected).
//!
//! ```text
//! cargo run --release -p fairlab-sim --example fat_tree              # k = 8 for 100 ms, k = 16 for 10 ms
//! cargo run --release -p fairlab-sim --example fat_tree -- K MS [SELECTION] [PROFILE] [PREFETCH]
//! ```
//!
//! PREFETCH: `auto` (the simulator's choice by the network's size), `off`,
//! `shallow` or `deep` (`sim::prefetch`), to measure what the hints save.

#[path = "../../fairlab-py/src/alloc.rs"]
mod alloc;

use fairlab_sim::{metrics, spec, Scenario};
use std::time::Instant;

/// A benchmark of large runs on purpose: k = 8 for 100 ms is estimated
/// at 1.3e8 packet-hops, above the default `[limits]`, which it raises
/// (memory too: at k = 48 the estimate counts every port's buffer as
/// full, about 6 GiB, where the run holds a fraction of that).
fn scenario(k: u32, ms: u64, selection: &str, profile: &str) -> String {
    let half = k / 2;
    let name = |i: u32| format!("h{}_{}_{}", i / (half * half), (i / half) % half, i % half);
    let n = k * k * k / 4;
    let step = k * k / 4;
    let workloads: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"kind": "bulk", "src": "{}", "dst": "{}"}}"#,
                name(i),
                name((i + step) % n)
            )
        })
        .collect();
    format!(
        r#"{{"duration": "{ms}ms",
 "topology": {{"kind": "fat_tree", "k": {k}, "rate": "10Gbps", "delay": "1us"}},
 "routing": {{"selection": "{selection}"}},
 "tcp": {{"profile": "{profile}"}},
 "limits": {{"max_packet_hops": 10000000000, "max_events": 20000000000, "max_packets": 100000000000, "max_memory": "64GiB"}},
 "workload": [{}]}}"#,
        workloads.join(",\n")
    )
}

fn measure(k: u32, ms: u64, selection: &str, profile: &str, prefetch: &str) {
    let json = scenario(k, ms, selection, profile);
    let t0 = Instant::now();
    let sc = Scenario::from_json_str(&json).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = spec::build(&sc, None).unwrap();
    match prefetch {
        "auto" => {}
        "off" => sim.set_prefetch(false),
        "shallow" | "deep" => {
            sim.set_prefetch(true);
            sim.set_prefetch_deep(prefetch == "deep");
        }
        other => panic!("PREFETCH: auto, off, shallow or deep, not {other:?}"),
    }
    let built = t0.elapsed().as_secs_f64();
    sim.run_with_progress(&mut |_| {});
    let ran = t0.elapsed().as_secs_f64();
    let res = metrics::collect(&sim);
    let all = t0.elapsed().as_secs_f64();
    let hops = res.int("packet_hops") as f64;
    let delivered: f64 = match res.table("flows").column("bytes_delivered") {
        Some(metrics::Column::I64(v)) => v.iter().map(|&b| b as f64).sum(),
        _ => 0.0,
    };
    let flows = k * k * k / 4;
    println!(
        "k = {k:>2} ({flows} hosts, {} switches), {flows} flows, {ms} ms, {selection}, {profile}: \
         build {built:.2} s, run {:.2} s, tables {:.2} s, total {all:.2} s wall; \
         {:.2e} packet-hops, {:.2} M packet-hops/s (run), {:.2} M/s (total); \
         mean goodput {:.2} Gb/s per flow; digest {}",
        5 * k * k / 4,
        ran - built,
        all - ran,
        hops,
        hops / (ran - built) / 1e6,
        hops / all / 1e6,
        delivered * 8.0 / (ms as f64 / 1e3) / flows as f64 / 1e9,
        res.digest(),
    );
}

fn main() {
    alloc::use_huge_pages();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() >= 2 {
        let k = args[0].parse().expect("K");
        let ms = args[1].parse().expect("MS");
        let sel = args.get(2).map_or("ecmp", |s| s.as_str());
        let profile = args.get(3).map_or("datacenter", |s| s.as_str());
        let prefetch = args.get(4).map_or("auto", |s| s.as_str());
        measure(k, ms, sel, profile, prefetch);
        return;
    }
    measure(8, 100, "ecmp", "datacenter", "auto");
    measure(16, 10, "ecmp", "datacenter", "auto");
}
