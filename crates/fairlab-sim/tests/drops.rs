//! Drops by input port on the outcast topology: the port_inputs,
//! drop_runs, flow_drop_runs and drop_trace tables agree with each other
//! and with the ports table.

use fairlab_sim::metrics::{RunResult, Table};
use fairlab_sim::Scenario;
use std::collections::BTreeMap;

/// One sender on s0 (a0) against `b` on s1, all to recv, through s0's
/// 16 KB port toward recv; TCP with a 2 ms minimum RTO, 1 Gb/s.
fn outcast(b: usize, duration: &str, metrics: &str) -> Scenario {
    let mut s = format!(
        r#"
duration = "{duration}"
[topology]
kind = "outcast"
senders = {b}
rate = "1Gbps"
delay = "10us"
buffer = "16KiB"
[tcp]
min_rto = "2ms"
[metrics]
{metrics}
[[workload]]
kind = "bulk"
src = "a0"
dst = "recv"
"#
    );
    for i in 0..b {
        s.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"b{i}\"\ndst = \"recv\"\n"
        ));
    }
    Scenario::from_toml_str(&s).unwrap_or_else(|e| panic!("{e}"))
}

fn rows<'a>(t: &'a Table, col: &str) -> &'a [String] {
    t.strs(col)
}

/// (node, peer) -> i64 column summed over the rows where `keep` holds.
fn by_port(t: &Table, col: &str, keep: impl Fn(usize) -> bool) -> BTreeMap<(String, String), i64> {
    let mut m = BTreeMap::new();
    let (n, p, v) = (rows(t, "node"), rows(t, "peer"), t.i64s(col));
    for i in 0..t.rows() {
        if keep(i) {
            *m.entry((n[i].clone(), p[i].clone())).or_insert(0) += v[i];
        }
    }
    m
}

fn run(sc: &Scenario) -> RunResult {
    fairlab_sim::run(sc, None).unwrap()
}

#[test]
fn the_drop_tables_agree_with_the_ports_table_and_each_other() {
    let res = run(&outcast(
        6,
        "2s",
        "drop_trace = \"s0:recv\"\nthroughput_bin = \"500ms\"",
    ));
    let ports = res.table("ports");
    let inputs = res.table("port_inputs");
    let runs = res.table("drop_runs");
    // Per switch port: drops over inputs = the port's drops; arrivals over
    // inputs = its admissions and drops.
    let (pn, pp) = (rows(ports, "node"), rows(ports, "peer"));
    let kind = rows(ports, "node_kind");
    let in_drops = by_port(inputs, "drop_pkts", |_| true);
    let in_bytes = by_port(inputs, "drop_bytes", |_| true);
    let in_arr = by_port(inputs, "arrival_pkts", |_| true);
    let mut total_drops = 0;
    for i in 0..ports.rows() {
        if kind[i] != "switch" {
            continue;
        }
        let k = (pn[i].clone(), pp[i].clone());
        let drops = ports.i64s("drop_pkts")[i];
        total_drops += drops;
        assert_eq!(in_drops.get(&k).copied().unwrap_or(0), drops, "{k:?}");
        assert_eq!(
            in_bytes.get(&k).copied().unwrap_or(0),
            ports.i64s("drop_bytes")[i]
        );
        assert_eq!(
            in_arr.get(&k).copied().unwrap_or(0),
            ports.i64s("enq_pkts")[i] + drops,
            "{k:?}"
        );
    }
    assert_eq!(total_drops, res.int("drops"));
    assert!(total_drops > 100, "the 16 KB port drops: {total_drops}");
    // Whole-port rows: sum of length x runs = drops; per input rows: its
    // drops in runs = its drops.
    let input = rows(runs, "input");
    let (len, n, d) = (
        runs.i64s("run_length"),
        runs.i64s("runs"),
        runs.i64s("drops"),
    );
    let mut whole = BTreeMap::new();
    for i in 0..runs.rows() {
        if input[i] == "*" {
            assert_eq!(d[i], len[i] * n[i]);
            *whole
                .entry((runs.strs("node")[i].clone(), runs.strs("peer")[i].clone()))
                .or_insert(0) += len[i] * n[i];
        }
    }
    assert_eq!(whole, in_drops.into_iter().filter(|x| x.1 > 0).collect());
    let hit = by_port(runs, "drops", |i| input[i] != "*");
    let mut per_input: BTreeMap<(String, String, String), i64> = BTreeMap::new();
    for i in 0..runs.rows() {
        if input[i] != "*" {
            *per_input
                .entry((
                    runs.strs("node")[i].clone(),
                    runs.strs("peer")[i].clone(),
                    input[i].clone(),
                ))
                .or_insert(0) += d[i];
        }
    }
    for i in 0..inputs.rows() {
        let k = (
            rows(inputs, "node")[i].clone(),
            rows(inputs, "peer")[i].clone(),
            rows(inputs, "input")[i].clone(),
        );
        assert_eq!(
            per_input.get(&k).copied().unwrap_or(0),
            inputs.i64s("drop_pkts")[i],
            "{k:?}"
        );
    }
    assert!(!hit.is_empty());
    // The inputs of s0's port toward recv are a0 and s1.
    let at_recv: Vec<&String> = (0..inputs.rows())
        .filter(|&i| rows(inputs, "node")[i] == "s0" && rows(inputs, "peer")[i] == "recv")
        .map(|i| &rows(inputs, "input")[i])
        .collect();
    assert_eq!(at_recv, ["a0", "s1"]);

    // The trace: one row per arrival at s0 -> recv; its drops, grouped
    // into runs by consecutive rows, give the whole-port histogram.
    let tr = res.table("drop_trace");
    let adm = tr.i64s("admitted");
    let arrivals: i64 = (0..ports.rows())
        .filter(|&i| pn[i] == "s0" && pp[i] == "recv")
        .map(|i| ports.i64s("enq_pkts")[i] + ports.i64s("drop_pkts")[i])
        .sum();
    assert_eq!(tr.rows() as i64, arrivals);
    assert_eq!(res.int("drop_trace_rows_left_out"), 0);
    let mut hist: BTreeMap<i64, i64> = BTreeMap::new();
    let mut open = 0;
    for &a in adm.iter().chain([1].iter()) {
        if a == 0 {
            open += 1;
        } else if open > 0 {
            *hist.entry(open).or_insert(0) += 1;
            open = 0;
        }
    }
    let mut want = BTreeMap::new();
    for i in 0..runs.rows() {
        if input[i] == "*"
            && runs.strs("node")[i] == "s0"
            && runs.strs("peer")[i] == "recv"
            && n[i] > 0
        {
            want.insert(len[i], n[i]);
        }
    }
    assert_eq!(hist, want);
    // Per input, the trace's drops are the table's.
    let tin = rows(tr, "input");
    for who in ["a0", "s1"] {
        let drops = (0..tr.rows())
            .filter(|&i| tin[i] == who && adm[i] == 0)
            .count() as i64;
        let k = (0..inputs.rows())
            .find(|&i| {
                rows(inputs, "node")[i] == "s0"
                    && rows(inputs, "peer")[i] == "recv"
                    && rows(inputs, "input")[i] == who
            })
            .unwrap();
        assert_eq!(drops, inputs.i64s("drop_pkts")[k], "{who}");
    }
    // Each input's own runs, from the trace (its consecutive drops with
    // none of its packets admitted between), are the table's; over its
    // rows, length x input_runs sums to its drops.
    let own_runs = runs.i64s("input_runs");
    for who in ["a0", "s1"] {
        let mut hist: BTreeMap<i64, i64> = BTreeMap::new();
        let mut open = 0;
        for i in (0..tr.rows()).filter(|&i| tin[i] == who) {
            if adm[i] == 0 {
                open += 1;
            } else if open > 0 {
                *hist.entry(open).or_insert(0) += 1;
                open = 0;
            }
        }
        if open > 0 {
            *hist.entry(open).or_insert(0) += 1;
        }
        let mut want = BTreeMap::new();
        for i in 0..runs.rows() {
            if input[i] == who && runs.strs("node")[i] == "s0" && own_runs[i] > 0 {
                want.insert(len[i], own_runs[i]);
            }
        }
        assert_eq!(hist, want, "{who}");
    }
    let mut own_total: BTreeMap<(String, String, String), i64> = BTreeMap::new();
    for i in 0..runs.rows() {
        if input[i] != "*" {
            *own_total
                .entry((
                    runs.strs("node")[i].clone(),
                    runs.strs("peer")[i].clone(),
                    input[i].clone(),
                ))
                .or_insert(0) += len[i] * own_runs[i];
        }
    }
    assert_eq!(
        own_total,
        per_input.into_iter().filter(|x| x.1 > 0).collect()
    );
    // The trace is in time order; queue at arrival within the buffer.
    let t = tr.f64s("t_s");
    assert!(t.windows(2).all(|w| w[0] <= w[1]));
    assert!(tr.i64s("queue_bytes").iter().all(|&q| q <= 16 * 1024));

    // Flow runs at s0 -> recv: length x runs over a flow = its drops there
    // (in the trace, by flow and direction). s1's uplink drops too.
    let fr = res.table("flow_drop_runs");
    let mut own: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    for i in 0..fr.rows() {
        if fr.strs("node")[i] != "s0" {
            assert_eq!(
                (&fr.strs("node")[i][..], &fr.strs("peer")[i][..]),
                ("s1", "s0")
            );
            continue;
        }
        assert_eq!(fr.strs("peer")[i], "recv");
        *own.entry((fr.i64s("flow_id")[i], fr.i64s("data")[i]))
            .or_insert(0) += fr.i64s("run_length")[i] * fr.i64s("runs")[i];
    }
    let mut traced: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    for (i, &a) in adm.iter().enumerate() {
        if a == 0 {
            *traced
                .entry((tr.i64s("flow_id")[i], tr.i64s("data")[i]))
                .or_insert(0) += 1;
        }
    }
    assert_eq!(own, traced);
    // Asking for the trace changes nothing else.
    let plain = run(&outcast(6, "2s", "throughput_bin = \"500ms\""));
    assert_eq!(plain.digest(), res.digest());
    assert_eq!(plain.table("drop_runs"), res.table("drop_runs"));
    assert_eq!(plain.table("drop_trace").rows(), 0);
}

#[test]
fn the_trace_stops_at_its_cap_and_says_so() {
    let res = run(&outcast(
        2,
        "50ms",
        "drop_trace = \"s0:recv\"\ndrop_trace_max_rows = 100",
    ));
    assert_eq!(res.table("drop_trace").rows(), 100);
    assert!(res.int("drop_trace_rows_left_out") > 0);
}

#[test]
fn a_bad_port_names_the_field_and_the_ports() {
    for (bad, hint) in [
        ("s0-recv", "s0:recv"),
        ("s0:b0", "s0:recv"),
        ("recv:s0", "s1:s0"),
        ("zz:recv", "s0:a0"),
    ] {
        let e = Scenario::from_toml_str(&format!(
            r#"
duration = "1ms"
[topology]
kind = "outcast"
senders = 2
rate = "1Gbps"
delay = "10us"
[metrics]
drop_trace = "{bad}"
[[workload]]
kind = "bulk"
src = "a0"
dst = "recv"
"#
        ))
        .unwrap_err();
        assert_eq!(e.path, "metrics.drop_trace", "{bad}");
        assert!(e.message.contains(hint), "{bad}: {}", e.message);
        assert!(!e.message.contains('\n'));
    }
}
