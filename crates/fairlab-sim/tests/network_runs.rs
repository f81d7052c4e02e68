//! Whole-network runs: exact timing, determinism, conservation of packets,
//! and a snapshot of a small incast run's result tables.

use fairlab_sim::metrics::{Column, Table};
use fairlab_sim::scenario::build;
use fairlab_sim::Scenario;

fn incast(servers: usize, min_rto: &str, resolution: &str, extra: &str) -> Scenario {
    let mut hosts = vec!["\"client\"".to_string()];
    hosts.extend((1..=servers).map(|i| format!("\"s{i}\"")));
    Scenario::from_toml_str(&format!(
        r#"
{extra}
[topology]
kind = "star"
hosts = [{}]
rate = "1Gbps"
delay = "25us"
[queue]
limit = "64KiB"
[tcp]
min_rto = "{min_rto}"
resolution = "{resolution}"
[[workload]]
kind = "incast"
client = "client"
sru = "256KiB"
rounds = 5
"#,
        hosts.join(",")
    ))
    .unwrap()
}

#[test]
fn one_segment_flow_completes_at_the_exact_serialization_and_propagation_time() {
    let sc = Scenario::from_toml_str(
        r#"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "25us"
[[workload]]
kind = "bulk"
src = "h0"
dst = "h1"
size = "1460B"
"#,
    )
    .unwrap();
    let r = fairlab_sim::run(&sc, None).unwrap();
    let end = r.table("flows").f64s("end_s")[0];
    // SYN and SYN-ACK (40 B: 320 ns per hop) cross two 25 us hops each:
    // 101.28 us. The client's ACK (320 ns) goes first, then the 1500-byte
    // segment (12 us per hop): 101.28 + 0.32 + 2 * (12 + 25) = 175.6 us.
    assert!((end - 175.6e-6).abs() < 1e-12, "end = {end}");
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let sc = incast(8, "200us", "1us", "[host]\nsend_jitter = \"2us\"");
    let a = fairlab_sim::run(&sc, Some(7)).unwrap();
    let b = fairlab_sim::run(&sc, Some(7)).unwrap();
    assert_eq!(a.digest(), b.digest());
    assert_eq!(a.tables, b.tables);
    let c = fairlab_sim::run(&sc, Some(8)).unwrap();
    assert_ne!(a.digest(), c.digest(), "the seed drives the host jitter");
}

#[test]
fn every_data_packet_is_delivered_dropped_or_in_flight() {
    for (servers, stop) in [(4, "3ms"), (16, "7ms"), (32, "50ms")] {
        let sc = incast(servers, "200us", "1us", &format!("duration = \"{stop}\""));
        let mut sim = build(&sc, None).unwrap();
        sim.run();
        let c = sim.counters;
        let in_flight = sim.data_packets_in_flight();
        assert!(
            c.data_drops > 0 || servers < 16,
            "expected drops with {servers} servers"
        );
        assert!(in_flight > 0, "the run was cut mid-transfer");
        assert_eq!(
            c.data_packets_sent,
            c.data_packets_delivered + c.data_drops + in_flight,
            "{servers} servers"
        );
    }
}

#[test]
fn port_counters_balance() {
    let sc = incast(16, "200ms", "jiffy", "");
    let r = fairlab_sim::run(&sc, None).unwrap();
    let p = r.table("ports");
    let (enq, deq, drop) = (p.i64s("enq_pkts"), p.i64s("deq_pkts"), p.i64s("drop_pkts"));
    for i in 0..p.rows() {
        // The run ends when the last reply arrives: queues are empty.
        assert_eq!(enq[i], deq[i]);
    }
    let max_bytes = p.i64s("max_bytes");
    assert!(max_bytes.iter().all(|&b| b <= 65536));
    assert!(drop.iter().sum::<i64>() > 0);
}

#[test]
fn microsecond_rto_avoids_the_collapse_that_200ms_suffers() {
    let slow = fairlab_sim::run(&incast(16, "200ms", "jiffy", ""), None).unwrap();
    let fast = fairlab_sim::run(&incast(16, "200us", "1us", ""), None).unwrap();
    let g_slow = slow.float("incast_goodput_bps");
    let g_fast = fast.float("incast_goodput_bps");
    assert!(g_slow < 300e6, "200 ms RTO at 16 servers: {g_slow}");
    assert!(g_fast > 600e6, "200 us RTO at 16 servers: {g_fast}");
}

fn render(t: &Table) -> String {
    let mut s = String::new();
    let names: Vec<&str> = t.columns.iter().map(|c| c.0.as_str()).collect();
    s.push_str(&names.join(","));
    s.push('\n');
    for r in 0..t.rows() {
        let row: Vec<String> = t
            .columns
            .iter()
            .map(|(_, c)| match c {
                Column::I64(v) => v[r].to_string(),
                Column::F64(v) => format!("{:.9}", v[r]),
                Column::Str(v) => v[r].clone(),
            })
            .collect();
        s.push_str(&row.join(","));
        s.push('\n');
    }
    s
}

/// The rounds and flows of a small incast run, pinned. A change to TCP, the
/// queues or the workload that moves any number shows up here; re-bless with
/// `FAIRLAB_BLESS=1 cargo test` after checking the difference is intended.
#[test]
fn incast_snapshot_four_servers() {
    let r = fairlab_sim::run(&incast(4, "200ms", "jiffy", ""), None).unwrap();
    let got = format!(
        "{}\n{}",
        render(r.table("rounds")),
        render(r.table("flows"))
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/incast_4.csv");
    if std::env::var("FAIRLAB_BLESS").is_ok() || !std::path::Path::new(path).exists() {
        std::fs::write(path, &got).unwrap();
    }
    let want = std::fs::read_to_string(path).unwrap();
    assert_eq!(got, want, "snapshot differs; see {path}");
}
