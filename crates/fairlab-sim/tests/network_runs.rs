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
fn forwarding_jitter_is_seeded_keeps_order_and_conserves_packets() {
    let sc = incast(
        16,
        "200us",
        "1us",
        "duration = \"20ms\"\n[switch]\nforwarding_jitter = \"12us\"",
    );
    let a = fairlab_sim::run(&sc, Some(7)).unwrap();
    let b = fairlab_sim::run(&sc, Some(7)).unwrap();
    assert_eq!(a.digest(), b.digest());
    let c = fairlab_sim::run(&sc, Some(8)).unwrap();
    assert_ne!(
        a.digest(),
        c.digest(),
        "the seed drives the switch's jitter"
    );
    let plain = incast(16, "200us", "1us", "duration = \"20ms\"");
    let p = fairlab_sim::run(&plain, Some(7)).unwrap();
    assert_ne!(a.digest(), p.digest(), "the jitter changes the run");
    // Delayed in order per input port: no flow's packets overtake each other.
    let reordered: i64 = a.table("ports").i64s("reordered_pkts").iter().sum();
    assert_eq!(reordered, 0);
    let mut sim = build(&sc, Some(7)).unwrap();
    sim.run();
    let k = sim.counters;
    assert!(k.data_drops > 0, "16 servers overflow the port");
    assert_eq!(
        k.data_packets_sent,
        k.data_packets_delivered + k.data_drops + sim.data_packets_in_flight(),
        "packets held in a switch's jitter are in flight"
    );
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

/// Sixteen servers, 200 ms RTO: the port toward the client overflows. Every
/// packet is counted once where it enters a queue and once where it leaves or
/// is dropped, and the counters of ports, flows and summary agree.
#[test]
fn port_counters_balance() {
    let sc = incast(16, "200ms", "jiffy", "");
    let r = fairlab_sim::run(&sc, None).unwrap();
    let p = r.table("ports");
    let (node, peer) = (p.strs("node"), p.strs("peer"));
    let kind = p.strs("node_kind");
    let (enq, deq, drop) = (p.i64s("enq_pkts"), p.i64s("deq_pkts"), p.i64s("drop_pkts"));
    let drop_bytes = p.i64s("drop_bytes");
    let (max_bytes, rtx_pkts) = (p.i64s("max_bytes"), p.i64s("timeout_rtx_pkts"));
    for i in 0..p.rows() {
        // The run ends when the last reply arrives: queues are empty.
        assert_eq!(enq[i], deq[i], "{} -> {}", node[i], peer[i]);
    }
    // Every packet a socket sends enters its host's NIC queue (or is dropped
    // there).
    let hosts = (0..p.rows()).filter(|&i| kind[i] == "host");
    let into_nics: i64 = hosts.map(|i| enq[i] + drop[i]).sum();
    assert_eq!(into_nics, r.int("packets_sent"));
    // Only the switch port toward the client overflows, only full 1500-byte
    // data segments are dropped there, and only when it is within one
    // segment of its 64 KiB limit.
    let b = (0..p.rows())
        .find(|&i| node[i] == "sw" && peer[i] == "client")
        .unwrap();
    assert!(drop[b] > 0);
    assert_eq!(drop.iter().sum::<i64>(), drop[b]);
    assert_eq!(drop[b], r.int("drops"));
    assert_eq!(drop_bytes[b], 1500 * drop[b]);
    assert!(max_bytes[b] > 65536 - 1500 && max_bytes[b] <= 65536);
    assert!(max_bytes.iter().all(|&m| m <= 65536));
    // Flows: each server sends 5 rounds of ceil(256 KiB / 1460 B) = 180 new
    // segments, plus its retransmissions; every dropped segment was resent.
    let f = r.table("flows");
    let (segs, rtx) = (f.i64s("segments_sent"), f.i64s("retransmits"));
    let timeouts = f.i64s("timeouts");
    assert!(f.strs("outcome").iter().all(|o| o == "complete"));
    for k in 0..f.rows() {
        assert_eq!(segs[k] - rtx[k], 5 * 180, "flow {k}");
    }
    assert!(rtx.iter().sum::<i64>() >= drop[b]);
    // A timeout resends one segment, marked as such in its server's NIC; all
    // of them pass the bottleneck.
    let src = f.strs("src");
    for k in 0..f.rows() {
        let nic = (0..p.rows()).find(|&i| node[i] == src[k]).unwrap();
        assert_eq!(rtx_pkts[nic], timeouts[k], "{}", src[k]);
    }
    let total_timeouts = r.int("total_timeouts");
    assert!(total_timeouts > 0);
    assert_eq!(timeouts.iter().sum::<i64>(), total_timeouts);
    assert_eq!(rtx_pkts[b], total_timeouts);
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
/// queues or the workload that moves any number shows up here. The snapshot
/// is `tests/snapshots/network_runs__incast_4.snap`; a missing or different
/// one fails the test (insta writes the new rendering to a `.snap.new` file
/// beside it, or nothing under `CI=true`). Re-bless with
/// `INSTA_UPDATE=always cargo test -p fairlab-sim --test network_runs` (or
/// `cargo insta review`) after checking the difference is intended.
#[test]
fn incast_snapshot_four_servers() {
    let r = fairlab_sim::run(&incast(4, "200ms", "jiffy", ""), None).unwrap();
    let got = format!(
        "{}\n{}",
        render(r.table("rounds")),
        render(r.table("flows"))
    );
    insta::assert_snapshot!("incast_4", got);
}

#[test]
fn time_series_are_recorded_only_when_asked_and_add_up() {
    let base = incast(4, "200ms", "jiffy", "");
    let r = fairlab_sim::run(&base, None).unwrap();
    assert_eq!(r.table("flow_series").rows(), 0);
    assert_eq!(r.table("queue_series").rows(), 0);
    let sc = incast(
        4,
        "200ms",
        "jiffy",
        "[metrics]\nthroughput_bin = \"1ms\"\nqueue_sample = \"100us\"",
    );
    let r = fairlab_sim::run(&sc, None).unwrap();
    // Each flow's bins add up to the bytes it delivered.
    let fs = r.table("flow_series");
    let flows = r.table("flows");
    let delivered = flows.i64s("bytes_delivered");
    let (ids, bytes) = (fs.i64s("flow_id"), fs.i64s("bytes"));
    for (k, &d) in delivered.iter().enumerate() {
        let binned: i64 = (0..fs.rows())
            .filter(|&j| ids[j] == k as i64)
            .map(|j| bytes[j])
            .sum();
        assert_eq!(binned, d, "flow {k}");
    }
    // Every switch port (five: toward the client and each server) is sampled
    // at 0, 100 us, ... up to the end of the run.
    let qs = r.table("queue_series");
    let samples = (r.float("sim_end_s") / 100e-6).floor() as usize + 1;
    assert_eq!(qs.rows(), 5 * samples);
    // A sample never exceeds the maximum the port recorded, and holds
    // packets of 40 to 1500 bytes.
    let p = r.table("ports");
    let (pn, pp) = (p.strs("node"), p.strs("peer"));
    let (qn, qp) = (qs.strs("node"), qs.strs("peer"));
    let (qb, qk) = (qs.i64s("bytes"), qs.i64s("pkts"));
    for j in 0..qs.rows() {
        let i = (0..p.rows())
            .find(|&i| pn[i] == qn[j] && pp[i] == qp[j])
            .unwrap();
        assert!(qb[j] <= p.i64s("max_bytes")[i] && qk[j] <= p.i64s("max_pkts")[i]);
        assert!(40 * qk[j] <= qb[j] && qb[j] <= 1500 * qk[j]);
    }
    // Four servers answering at once queue at the port toward the client.
    let at_client = (0..qs.rows()).filter(|&j| qn[j] == "sw" && qp[j] == "client");
    assert!(at_client.map(|j| qk[j]).max().unwrap() >= 10);
}

/// A two-segment flow with an initial window of one segment: the receiver
/// holds the ACK of the lone first segment until its delayed-ACK timer fires,
/// and only that ACK lets the second segment go. The flow's end time shows
/// the timer.
#[test]
fn linux_profile_delays_acks_with_a_40ms_timer() {
    let text = |delayed_ack: &str| {
        format!(
            r#"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "25us"
[tcp]
profile = "linux"
initial_window = 1
{delayed_ack}
[[workload]]
kind = "bulk"
src = "h0"
dst = "h1"
size = "2920B"
"#
        )
    };
    let end = |delayed_ack: &str| {
        let sc = Scenario::from_toml_str(&text(delayed_ack)).unwrap();
        let r = fairlab_sim::run(&sc, None).unwrap();
        assert_eq!(
            r.get("profile"),
            Some(&fairlab_sim::metrics::Value::Str("linux".into()))
        );
        assert_eq!(r.table("flows").i64s("bytes_delivered")[0], 2920);
        r.table("flows").f64s("end_s")[0]
    };
    // Segment 1 reaches h1 at 175.6 us (see the one-segment flow above). On
    // the profile's 4 ms jiffy clock a 40 ms timer armed in tick 0 fires at
    // the start of tick 10: 40 ms. The 40-byte ACK crosses two hops in
    // 2 x (0.32 + 25) us = 50.64 us, and segment 2 follows in 2 x (12 + 25) us
    // = 74 us: 40 ms + 124.64 us.
    let delayed = end("");
    assert!(
        (delayed - (40e-3 + 124.64e-6)).abs() < 1e-12,
        "end = {delayed}"
    );
    // Without delayed ACKs the ACK leaves at 175.6 us: 175.6 + 124.64 us.
    let at_once = end("delayed_ack = false");
    assert!((at_once - 300.24e-6).abs() < 1e-12, "end = {at_once}");
}

/// Delayed ACKs acknowledge every second segment: the client of an incast
/// (the receiver) sends under two thirds of the pure ACKs it sends without.
#[test]
fn linux_profile_acks_every_second_segment() {
    let sc = incast(1, "200ms", "jiffy", "");
    let mut sc_linux = sc.clone();
    sc_linux.tcp.profile = Some(fairlab_sim::spec::ProfileName::Linux);
    let rfc = fairlab_sim::run(&sc, None).unwrap();
    let linux = fairlab_sim::run(&sc_linux, None).unwrap();
    assert_eq!(
        rfc.get("profile"),
        Some(&fairlab_sim::metrics::Value::Str("rfc".into()))
    );
    assert_eq!(
        linux.get("profile"),
        Some(&fairlab_sim::metrics::Value::Str("linux".into()))
    );
    let p_rfc = rfc.table("ports");
    let p_linux = linux.table("ports");
    let client_tx = |t: &Table| {
        let nodes = match t.column("node") {
            Some(Column::Str(v)) => v.clone(),
            _ => unreachable!(),
        };
        let i = nodes.iter().position(|n| n == "client").unwrap();
        t.i64s("enq_pkts")[i]
    };
    assert!(client_tx(p_linux) * 3 < client_tx(p_rfc) * 2);
}

#[test]
fn dumbbell_bulk_flows_share_the_bottleneck() {
    let sc = Scenario::from_toml_str(
        r#"
duration = "500ms"
[topology]
kind = "dumbbell"
left = 4
right = 4
rate = "10Gbps"
delay = "10us"
bottleneck_rate = "1Gbps"
bottleneck_delay = "30us"
[queue]
limit = "100pkt"
[[workload]]
kind = "bulk"
src = "l0"
dst = "r0"
[[workload]]
kind = "bulk"
src = "l1"
dst = "r1"
[[workload]]
kind = "bulk"
src = "l2"
dst = "r2"
[[workload]]
kind = "bulk"
src = "l3"
dst = "r3"
"#,
    )
    .unwrap();
    let r = fairlab_sim::run(&sc, None).unwrap();
    let g = r.table("flows").f64s("goodput_bps").to_vec();
    let total: f64 = g.iter().sum();
    // Payload rate of a 1 Gb/s link with 1500-byte packets is 973 Mb/s.
    assert!(total > 0.9e9 && total < 0.974e9, "total {total}");
    let jain = total * total / (g.len() as f64 * g.iter().map(|x| x * x).sum::<f64>());
    assert!(jain > 0.9, "jain {jain}");
    assert_eq!(r.float("sim_end_s"), 0.5);
}

#[test]
fn without_a_handshake_a_flow_finishes_one_round_trip_earlier() {
    let text = |hs: bool| {
        format!(
            r#"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "25us"
[tcp]
handshake = {hs}
[[workload]]
kind = "bulk"
src = "h0"
dst = "h1"
size = "1460B"
"#
        )
    };
    let end = |hs: bool| {
        let r = fairlab_sim::run(&Scenario::from_toml_str(&text(hs)).unwrap(), None).unwrap();
        r.table("flows").f64s("end_s")[0]
    };
    // With the handshake: 175.6 us (see above). Without: the 1500-byte
    // segment leaves at once: 2 x (12 + 25) us = 74 us.
    assert!((end(true) - 175.6e-6).abs() < 1e-12);
    assert!((end(false) - 74e-6).abs() < 1e-12, "{}", end(false));
}

#[test]
fn short_flows_open_spread_over_their_interval_and_all_complete() {
    let sc = Scenario::from_toml_str(
        r#"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "25us"
[[workload]]
kind = "short"
src = "h0"
dst = "h1"
count = 20
packets = 10
start = "1ms"
spread = "100ms"
"#,
    )
    .unwrap();
    let r = fairlab_sim::run(&sc, None).unwrap();
    let f = r.table("flows");
    assert_eq!(f.rows(), 20);
    let starts = f.f64s("start_s");
    assert!(starts.iter().all(|&s| (1e-3..101e-3).contains(&s)));
    let distinct: std::collections::BTreeSet<u64> = starts.iter().map(|s| s.to_bits()).collect();
    assert!(distinct.len() > 15, "each flow opens at its own instant");
    assert!(f.i64s("bytes_delivered").iter().all(|&b| b == 10 * 1460));
    assert!(f.strs("outcome").iter().all(|o| o == "complete"));
    assert!(f.strs("kind").iter().all(|k| k == "short"));
    // Alone on the path a flow of 10 segments takes 424.88 us: the handshake
    // (101.28 us, see the one-segment flow above) and slow start from 3
    // segments, +1 per ACK, with segments 12 us apart on each 1 Gb/s hop:
    // segments 1-3 leave h0 at 101.6 us and arrive 175.6, 187.6, 199.6 us;
    // their ACKs (50.64 us back) release 4-9 at 226.24, 238.24, 250.24 us,
    // which arrive from 300.24 us, 12 us apart; the ACK of segment 4 (at h0
    // at 350.88 us) releases segment 10, which arrives at 424.88 us. A flow
    // that overlaps another only takes longer.
    let ends = f.f64s("end_s");
    let alone = 424.88e-6;
    let mut alone_flows = 0;
    for (i, (&e, &s)) in ends.iter().zip(starts).enumerate() {
        let fct = e - s;
        assert!(fct > alone - 1e-12, "flow {i}: {fct}");
        let overlaps = (0..ends.len()).any(|j| j != i && starts[j] < e && s < ends[j]);
        if !overlaps {
            assert!((fct - alone).abs() < 1e-12, "flow {i}: {fct}");
            alone_flows += 1;
        }
    }
    assert!(alone_flows >= 15, "{alone_flows} flows ran alone");
}

/// The ns-2 incast application's setup exchange (`warmup`): before the
/// first block every server answers one small message on an idle network,
/// so its first timeout is a few RTTs, not ns-2's 3 s initial RTO. Without
/// it, 64 servers at 10 Gb/s lose part of their first windows into a
/// 32-packet port and wait out that initial RTO in round 1.
#[test]
fn an_ns2_incasts_warmup_seeds_the_rto_before_the_first_round() {
    let run = |warmup: bool| {
        let mut hosts = vec!["\"client\"".to_string()];
        hosts.extend((1..=64).map(|i| format!("\"s{i}\"")));
        let sc = Scenario::from_toml_str(&format!(
            r#"
[topology]
kind = "star"
hosts = [{}]
rate = "10Gbps"
delay = "5us"
[queue]
limit = "32pkt"
[tcp]
profile = "ns2"
min_rto = "0s"
resolution = "1us"
[[workload]]
kind = "incast"
client = "client"
block = "1MB"
rounds = 1
warmup = {warmup}
"#,
            hosts.join(",")
        ))
        .unwrap();
        let r = fairlab_sim::run(&sc, None).unwrap();
        let rounds = r.table("rounds");
        (rounds.f64s("start_s")[0], rounds.f64s("duration_s")[0])
    };
    let (start, dur) = run(true);
    // 64 exchanges of about one RTT (20 us) each come first ...
    assert!(
        start > 64.0 * 20e-6 && start < 64.0 * 40e-6,
        "start {start}"
    );
    // ... and the round ends within milliseconds.
    assert!(dur < 0.01, "round {dur} s with the warm-up");
    let (start, dur) = run(false);
    assert_eq!(start, 0.0);
    assert!(dur > 3.0, "round {dur} s without the warm-up");
}
