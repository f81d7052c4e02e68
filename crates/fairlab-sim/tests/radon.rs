//! Radon streams end to end in the simulator (docs/radon.md).

use fairlab_sim::metrics::{Column, RunResult, Table};
use fairlab_sim::Scenario;

/// The seed's testbed: seven hosts on one 1 GbE switch, 8 KiB payloads
/// (8,220-byte IP packets), Ethernet framing.
fn testbed(buffer: &str, extra: &str) -> String {
    format!(
        r#"
duration = "2.2s"
[topology]
kind = "star"
hosts = 7
rate = "1Gbps"
delay = "1us"
[queue]
discipline = "droptail"
limit = "{buffer}"
[link]
framing = "38B"
{extra}
"#
    )
}

fn stream(src: &str, rate: &str, packets: u64, start: &str, radon: &str) -> String {
    format!(
        r#"
[[workload]]
kind = "udp"
transport = "radon"
src = "{src}"
dst = "h0"
rate = "{rate}"
packet_size = "8220B"
arrivals = "periodic"
packets = {packets}
start = "{start}"
{radon}
"#
    )
}

fn run(text: &str) -> RunResult {
    let sc = Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    fairlab_sim::run(&sc, None).unwrap()
}

fn f64s<'a>(t: &'a Table, c: &str) -> &'a [f64] {
    match t.column(c) {
        Some(Column::F64(v)) => v,
        other => panic!("{c}: {other:?}"),
    }
}
fn i64s<'a>(t: &'a Table, c: &str) -> &'a [i64] {
    match t.column(c) {
        Some(Column::I64(v)) => v,
        other => panic!("{c}: {other:?}"),
    }
}

fn strs<'a>(t: &'a Table, c: &str) -> &'a [String] {
    match t.column(c) {
        Some(Column::Str(v)) => v,
        other => panic!("{c}: {other:?}"),
    }
}

/// The seed's six unfair streams (Table 5.5), all from t = 0.
fn unfair(radon: &str, framing: &str) -> String {
    let mut text =
        testbed("256KiB", radon).replace("framing = \"38B\"", &format!("framing = \"{framing}\""));
    let rates = [
        "500Mbps",
        "250Mbps",
        "125Mbps",
        "62.5Mbps",
        "31.25Mbps",
        "31.25Mbps",
    ];
    for (i, rate) in rates.iter().enumerate() {
        text += &stream(&format!("h{}", i + 1), rate, 400, "0s", "");
    }
    text
}

#[test]
fn a_stream_is_paced_at_its_wait_and_alone_loses_nothing() {
    let text = testbed("256KiB", "") + &stream("h1", "765Mbps", 2000, "1ms", "");
    let r = run(&text);
    let s = r.table("streams");
    assert_eq!(i64s(s, "num_sent"), [2000]);
    assert_eq!(i64s(s, "num_lost"), [0]);
    // Payload bits over the rate: the seed's UDPmon wait.
    let wait_us = 8192.0 * 8.0 / 765e6 * 1e6;
    assert!(
        (f64s(s, "mean_wait_us")[0] - wait_us).abs() < 1e-3,
        "{:?}",
        f64s(s, "mean_wait_us")
    );
    assert!((f64s(s, "send_rate_mbps")[0] - 765.0).abs() < 0.01);
    // On the wire each 8,192-byte payload takes 8,258 bytes.
    let ratio = f64s(s, "recv_wire_rate_mbps")[0] / f64s(s, "recv_rate_mbps")[0];
    assert!((ratio - 8258.0 / 8192.0).abs() < 1e-9, "{ratio}");
    assert!((f64s(s, "start_s")[0] - 0.001).abs() < 1e-12);
    assert_eq!(r.int("bound_violations"), 0);
}

#[test]
fn admission_counts_every_byte_on_the_wire_and_a_refused_stream_never_sends() {
    // Payloads sum to 1 Gb/s; with headers and framing, 1.008 of the
    // server's port: the last stream to ask is refused there.
    let r = run(&unfair("", "38B"));
    let s = r.table("streams");
    assert_eq!(i64s(s, "admitted"), [1, 1, 1, 1, 1, 0]);
    assert!(
        strs(s, "refused_at")[5].starts_with("sw:h0 "),
        "{:?}",
        strs(s, "refused_at")
    );
    assert_eq!(i64s(s, "num_sent")[5], 0);
    assert_eq!(r.int("radon_refused"), 1);
    // A reserve refuses more; admission off refuses none.
    let r = run(&unfair("[radon]\nreserve = 0.1", "38B"));
    assert_eq!(i64s(r.table("streams"), "admitted"), [1, 1, 1, 0, 0, 0]);
    let r = run(&unfair("[radon]\nadmission = false", "38B"));
    assert_eq!(i64s(r.table("streams"), "admitted"), [1; 6]);
    assert_eq!(r.int("radon_refused"), 0);
}

#[test]
fn feedback_returns_on_the_reverse_path_one_per_five_datagrams() {
    let text = testbed("256KiB", "") + &stream("h1", "400Mbps", 1000, "0s", "");
    let r = run(&text);
    let s = r.table("streams");
    assert_eq!(i64s(s, "feedback_sent"), [200]);
    assert_eq!(i64s(s, "feedback_received"), [200]);
    // Feedback crosses the server's uplink and the client's downlink.
    let b = r.table("port_bounds");
    let ports = strs(b, "port");
    for p in ["h0:sw", "sw:h1", "h1:sw", "sw:h0"] {
        assert!(ports.iter().any(|x| x == p), "{ports:?}");
    }
}

#[test]
fn an_adaptive_stream_backs_off_when_the_queue_grows_and_a_fixed_one_does_not() {
    // Two streams over-subscribing the server's port by 10 %.
    let two = |adaptive: bool| {
        testbed(
            "1MiB",
            &format!("[radon]\nadaptive = {adaptive}\nadmission = false"),
        ) + &stream("h1", "600Mbps", 3000, "0s", "")
            + &stream("h2", "500Mbps", 3000, "0s", "")
    };
    let fixed = run(&two(false));
    let adaptive = run(&two(true));
    let w = |r: &RunResult| f64s(r.table("streams"), "mean_wait_us").to_vec();
    let (wf, wa) = (w(&fixed), w(&adaptive));
    assert!(
        wa[0] > wf[0] * 1.01 && wa[1] > wf[1] * 1.01,
        "{wf:?} {wa:?}"
    );
    // The smaller reservation has more laxity: it backs off more.
    assert!(wa[1] / wf[1] > wa[0] / wf[0], "{wf:?} {wa:?}");
}

#[test]
fn same_seed_same_tables_other_seed_other_stamps() {
    let text = testbed(
        "256KiB",
        "[radon]\nstamp = \"application\"\nskew_ppm = 20\n[metrics]\nradon_series = true",
    ) + &stream("h1", "500Mbps", 500, "0s", "")
        + &stream("h2", "400Mbps", 500, "0s", "");
    let sc = Scenario::from_toml_str(&text).unwrap();
    let a = fairlab_sim::run(&sc, Some(3)).unwrap();
    let b = fairlab_sim::run(&sc, Some(3)).unwrap();
    let c = fairlab_sim::run(&sc, Some(4)).unwrap();
    assert_eq!(a.digest(), b.digest());
    assert_ne!(a.digest(), c.digest());
    assert_eq!(a.table("radon_series").rows(), 1000);
}

#[test]
fn the_series_shows_each_model_beside_the_true_queue() {
    let text = testbed("1MiB", "[radon]\nadaptive = false\nadmission = false\nstamp = \"nic\"\n[metrics]\nradon_series = true")
        + &stream("h1", "600Mbps", 2000, "0s", "")
        + &stream("h2", "500Mbps", 2000, "0s", "");
    let r = run(&text);
    let t = r.table("radon_series");
    let q = f64s(t, "true_queue_pkts");
    let m = f64s(t, "median5_pkts");
    // 10 % over the port's rate: the queue grows by about one datagram per
    // ten, until the 1 MiB buffer (127 datagrams) is full; the
    // median-of-five model, on NIC
    // stamps, follows it within a few packets.
    // The first stream's last datagram, sent while both still send.
    let flows = i64s(t, "flow_id");
    let last = flows.iter().rposition(|&f| f == flows[0]).unwrap();
    assert!(q[last] > 100.0, "true queue {}", q[last]);
    assert!(
        (m[last] - q[last]).abs() < 5.0,
        "median5 {} true {}",
        m[last],
        q[last]
    );
}

#[test]
fn bad_radon_input_is_refused_in_one_line_naming_the_field() {
    let base = testbed("256KiB", "");
    let cases = [
        (
            stream("h1", "500Mbps", 10, "0s", "radon = { reserve = 0.1 }"),
            "workload[0].radon.reserve",
        ),
        (
            stream("h1", "500Mbps", 10, "0s", "radon = { feedback_every = 0 }"),
            "workload[0].radon.feedback_every",
        ),
        (
            stream("h1", "500Mbps", 10, "0s", "period = \"0s\""),
            "workload[0].period",
        ),
        (
            stream("h1", "500Mbps", 10, "0s", "arrivals = \"poisson\"")
                .replace("arrivals = \"periodic\"\n", ""),
            "workload[0].arrivals",
        ),
        (stream("h1", "500Mbps", 0, "0s", ""), "workload[0].packets"),
        (
            stream("h1", "500Mbps", 10, "0s", "")
                .replace("packet_size = \"8220B\"", "packet_size = \"40B\""),
            "workload[0].packet_size",
        ),
        (
            stream("h1", "500Mbps", 10, "0s", "")
                .replace("rate = \"500Mbps\"", "utilization = 1.5"),
            "workload[0].utilization",
        ),
        // A Radon field on a plain UDP flow.
        (
            stream("h1", "500Mbps", 10, "0s", "period = \"10ms\"")
                .replace("transport = \"radon\"\n", ""),
            "workload[0].period",
        ),
    ];
    for (w, field) in cases {
        let text = format!("{base}{w}");
        let e = Scenario::from_toml_str(&text)
            .and_then(|sc| sc.resolve().map(|_| ()))
            .expect_err(&format!("{field}\n{text}"));
        assert!(e.to_string().starts_with(field), "{field}: {e}");
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
    // A stray [radon] key is refused by name.
    let e = Scenario::from_toml_str(&format!("{base}[radon]\nadaptiv = true\n")).unwrap_err();
    assert!(e.to_string().contains("adaptiv"), "{e}");
}
