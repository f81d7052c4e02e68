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

#[test]
fn explore() {
    for adaptive in [false, true] {
        let mut text = testbed(
            "128KiB",
            &format!("[radon]\nadaptive = {adaptive}\nadmission = false\n"),
        );
        for (i, (rate, wait)) in [
            ("500Mbps", 0),
            ("250Mbps", 0),
            ("125Mbps", 0),
            ("62.5Mbps", 0),
            ("31.25Mbps", 0),
            ("31.25Mbps", 0),
        ]
        .iter()
        .enumerate()
        {
            let _ = wait;
            let n = (2.0 * rate.trim_end_matches("Mbps").parse::<f64>().unwrap() * 1e6
                / (8192.0 * 8.0)) as u64;
            text += &stream(&format!("h{}", i + 1), rate, n, "0s", "");
        }
        let r = run(&text);
        let s = r.table("streams");
        println!("adaptive={adaptive} {:?}", r.summary);
        for c in [
            "send_rate_mbps",
            "pct_lost",
            "recv_rate_mbps",
            "mean_wait_us",
            "final_wait_us",
        ] {
            println!("{c}: {:?}", f64s(s, c));
        }
        println!("recv {:?}", i64s(s, "num_recv"));
        let b = r.table("port_bounds");
        println!("{b:?}");
    }
}
