//! Criterion benchmarks of whole runs. Throughput is reported in packet-hops
//! (one packet crossing one link), the unit BENCHMARKS.md compares.
//!
//! cargo bench -p fairlab-sim --features bench

#[path = "../../fairlab-py/src/alloc.rs"]
mod alloc;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use fairlab_sim::units::Time;
use fairlab_sim::Scenario;
use std::time::Duration;

fn incast(n: usize, min_rto: &str, res: &str) -> Scenario {
    let mut hosts = vec!["\"client\"".to_string()];
    hosts.extend((1..=n).map(|i| format!("\"s{i}\"")));
    Scenario::from_toml_str(&format!(
        r#"
[topology]
kind = "star"
hosts = [{}]
rate = "1Gbps"
delay = "25us"
[queue]
limit = "64KiB"
[tcp]
min_rto = "{min_rto}"
resolution = "{res}"
[[workload]]
kind = "incast"
client = "client"
block = "1MiB"
rounds = 20
"#,
        hosts.join(",")
    ))
    .unwrap()
}

/// The 24-run sweep of the foundation issue: 1 MiB blocks, 20 rounds,
/// 8 server counts from 1 to 64, three RTO settings.
pub fn incast_sweep() -> Vec<Scenario> {
    let mut v = Vec::new();
    for (rto, res) in [("200ms", "jiffy"), ("5ms", "jiffy"), ("200us", "1us")] {
        for n in [1, 2, 4, 8, 16, 32, 48, 64] {
            v.push(incast(n, rto, res));
        }
    }
    v
}

pub fn dumbbell(flows: usize, duration: &str) -> Scenario {
    let mut text = format!(
        r#"
duration = "{duration}"
[topology]
kind = "dumbbell"
left = {flows}
right = {flows}
rate = "10Gbps"
delay = "10us"
bottleneck_rate = "1Gbps"
bottleneck_delay = "30us"
[queue]
limit = "100pkt"
"#
    );
    for i in 0..flows {
        text.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"l{i}\"\ndst = \"r{i}\"\nstart = \"{}us\"\n",
            i * 10
        ));
    }
    Scenario::from_toml_str(&text).unwrap()
}

/// The HCF paper's long-flow baseline (docs/hcf.md), shortened to
/// `duration`: 400 NewReno flows and 5 % Poisson UDP through a 100 Mb/s
/// port of 20 packets, run by `discipline` ("droptail" or "hcf").
pub fn hcf_baseline(discipline: &str, duration: &str) -> Scenario {
    let flows = 400;
    let mut text = format!(
        r#"
duration = "{duration}"
[topology]
kind = "dumbbell"
left = {n}
right = {n}
rate = "10Gbps"
delay = "5us"
bottleneck_rate = "100Mbps"
bottleneck_delay = "40us"
[queue]
discipline = "{discipline}"
limit = "20pkt"
[tcp]
resolution = "jiffy"
hz = 100
rtt_timestamps = true
[[workload]]
kind = "udp"
src = "l{flows}"
dst = "r{flows}"
rate = "5Mbps"
arrivals = "poisson"
"#,
        n = flows + 1
    );
    for i in 0..flows {
        text.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"l{i}\"\ndst = \"r{i}\"\nstart = \"{}ms\"\n",
            (i * 7919) % flows * 2000 / flows
        ));
    }
    Scenario::from_toml_str(&text).unwrap()
}

/// The incast of the speed issue: 32 servers, 1 MiB blocks, 1 ms min RTO
/// on a 1 µs clock (`examples/speed.rs incast` runs it for 4000 rounds).
pub fn incast_1ms(rounds: u32) -> Scenario {
    let mut hosts = vec!["\"client\"".to_string()];
    hosts.extend((1..=32).map(|i| format!("\"s{i}\"")));
    Scenario::from_toml_str(&format!(
        r#"
[topology]
kind = "star"
hosts = [{}]
rate = "1Gbps"
delay = "25us"
[queue]
limit = "64KiB"
[tcp]
min_rto = "1ms"
resolution = "1us"
[[workload]]
kind = "incast"
client = "client"
block = "1MiB"
rounds = {rounds}
"#,
        hosts.join(",")
    ))
    .unwrap()
}

/// `flows` long-lived flows over 16 host pairs of a dumbbell (10 Gb/s
/// everywhere, 1000-packet buffers), opening over the first 10 ms; the same
/// as `examples/speed.rs flows`.
pub fn many_flows(flows: usize, duration_ms: u64) -> Scenario {
    let pairs = 16;
    let mut text = format!(
        r#"
duration = "{duration_ms}ms"
[topology]
kind = "dumbbell"
left = {pairs}
right = {pairs}
rate = "10Gbps"
delay = "10us"
bottleneck_rate = "10Gbps"
bottleneck_delay = "30us"
[queue]
limit = "1000pkt"
"#
    );
    for i in 0..flows {
        let h = i % pairs;
        text.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"l{h}\"\ndst = \"r{h}\"\nstart = \"{}ns\"\n",
            i as u64 * 10_000_000 / flows as u64
        ));
    }
    Scenario::from_toml_str(&text).unwrap()
}

fn hops(scs: &[Scenario]) -> u64 {
    scs.iter()
        .map(|s| fairlab_sim::run(s, None).unwrap().int("packet_hops") as u64)
        .sum()
}

fn bench(c: &mut Criterion) {
    alloc::use_huge_pages();
    let sweep = incast_sweep();
    let mut g = c.benchmark_group("incast_sweep_24_runs");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(hops(&sweep)));
    g.bench_function("sequential", |b| {
        b.iter(|| {
            for s in &sweep {
                criterion::black_box(fairlab_sim::run(s, None).unwrap());
            }
        })
    });
    g.finish();

    let sc = vec![incast_1ms(400)];
    let mut g = c.benchmark_group("incast_32_servers_1ms_rto_400_rounds");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(hops(&sc)));
    g.bench_function("run", |b| {
        b.iter(|| criterion::black_box(fairlab_sim::run(&sc[0], None).unwrap()))
    });
    g.finish();

    // Per-event cost against the number of live connections: each sample
    // simulates 50 ms after a 100 ms warm-up (set up outside the timing).
    let warm = Time::from_ms(100);
    let end = Time::from_ms(150);
    let mut g = c.benchmark_group("flows_50ms_after_warmup");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for flows in [10, 1000, 10_000, 100_000] {
        let sc = many_flows(flows, 150);
        let setup = || {
            let mut sim = fairlab_sim::scenario::build(&sc, None).unwrap();
            sim.stop_at = Some(warm);
            sim.run();
            sim.stop_at = Some(end);
            sim
        };
        let mut probe = setup();
        let e0 = probe.events.events_processed();
        probe.run();
        g.throughput(Throughput::Elements(probe.events.events_processed() - e0));
        drop(probe);
        g.bench_function(BenchmarkId::new("events", flows), |b| {
            b.iter_batched(
                setup,
                |mut sim| {
                    sim.run();
                    sim
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();

    let db = vec![dumbbell(64, "200ms")];
    let mut g = c.benchmark_group("dumbbell_64_flows_200ms");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(hops(&db)));
    g.bench_function("run", |b| {
        b.iter(|| criterion::black_box(fairlab_sim::run(&db[0], None).unwrap()))
    });
    g.finish();

    // Simulated seconds after the 2 s start-up, where the 3-minute runs
    // spend their time.
    for disc in ["droptail", "hcf"] {
        let sc = vec![hcf_baseline(disc, "10s")];
        let mut g = c.benchmark_group("hcf_baseline_400_flows_10s");
        g.sample_size(10).measurement_time(Duration::from_secs(15));
        g.throughput(Throughput::Elements(hops(&sc)));
        g.bench_function(disc, |b| {
            b.iter(|| criterion::black_box(fairlab_sim::run(&sc[0], None).unwrap()))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
