//! NFS-like reads: clients reading a file from one server as READ RPCs over
//! one connection each; per-client rows in the reads table and the
//! server-to-client throughput in the flow series.

use fairlab_sim::metrics::{digest_of, RunResult};
use fairlab_sim::Scenario;

/// A star of `hosts` at 1 Gb/s, `delay` per link, the server h0, and one
/// nfs_read workload with `fields`; `extra` is more of `[tcp]`, or a
/// `duration = ...;` line before it.
fn star(hosts: u32, delay: &str, fields: &str, extra: &str) -> Scenario {
    let (top, tcp) = extra.split_once(';').unwrap_or(("", extra));
    Scenario::from_toml_str(&format!(
        r#"
{top}
[topology]
kind = "star"
hosts = {hosts}
rate = "1Gbps"
delay = "{delay}"
[tcp]
profile = "linux"
{tcp}
[[workload]]
kind = "nfs_read"
server = "h0"
{fields}
"#
    ))
    .unwrap()
}

fn run(sc: &Scenario) -> RunResult {
    fairlab_sim::run(sc, None).unwrap()
}

/// Payload share of a full segment (MSS 1460 in 1500-byte packets) times
/// the file's share of the reply stream (108-byte RPC header per read).
fn ideal_bps(rate: f64, io: f64) -> f64 {
    rate * 1460.0 / 1500.0 * io / (io + 108.0)
}

#[test]
fn a_single_reader_on_an_idle_gigabit_link_reads_at_the_link_rate_less_headers() {
    let sc = star(
        2,
        "25us",
        r#"client = "h1"
file_size = "64MiB""#,
        "",
    );
    let r = run(&sc);
    let reads = r.table("reads");
    assert_eq!(reads.rows(), 1);
    assert_eq!(reads.strs("outcome"), ["complete"]);
    let got = reads.f64s("goodput_bps")[0];
    let want = ideal_bps(1e9, 65536.0);
    assert!(
        (got - want).abs() / want < 0.02,
        "{:.1} Mb/s against {:.1}",
        got / 1e6,
        want / 1e6
    );
}

#[test]
fn one_read_in_flight_is_bound_by_request_and_response_not_the_link() {
    // RTT 400 us without queueing; a 64 KiB reply is 45 segments, 540 us
    // on the wire: a read takes about one RTT plus its reply's
    // serialization, whatever the window.
    let one = star(
        2,
        "100us",
        r#"client = "h1"
file_size = "8MiB"
outstanding = 1"#,
        "",
    );
    let many = star(
        2,
        "100us",
        r#"client = "h1"
file_size = "8MiB""#,
        "",
    );
    let g1 = run(&one).table("reads").f64s("goodput_bps")[0];
    let gn = run(&many).table("reads").f64s("goodput_bps")[0];
    let reply = (65536.0 + 108.0) * 1500.0 / 1460.0 * 8.0 / 1e9;
    let per_read = 400e-6 + reply;
    let want = 65536.0 * 8.0 / per_read;
    assert!(
        (g1 - want).abs() / want < 0.1,
        "one in flight: {:.1} Mb/s against {:.1} (io per RTT + reply)",
        g1 / 1e6,
        want / 1e6
    );
    assert!(
        gn > 1.5 * g1,
        "a window of reads fills the link: {gn} vs {g1}"
    );
}

/// Per-client goodput of 5 clients reading from h0 for 2 s, the server's
/// single NIC queue shared; `tcp`: more of `[tcp]`.
fn five_readers(tcp: &str) -> Vec<f64> {
    let sc = star(
        6,
        "25us",
        r#"clients = "all"
file_size = "1GiB""#,
        &format!("duration = \"2s\";{tcp}"),
    );
    let r = run(&sc);
    let reads = r.table("reads");
    assert_eq!(reads.strs("client"), ["h1", "h2", "h3", "h4", "h5"]);
    assert!(reads.strs("server").iter().all(|s| s == "h0"));
    let g = reads.f64s("goodput_bps").to_vec();
    let total: f64 = g.iter().sum();
    assert!(
        total > 0.97 * ideal_bps(1e9, 65536.0),
        "together they fill the server's link: {total}"
    );
    g
}

fn max_over_min(g: &[f64]) -> f64 {
    let (lo, hi) = g
        .iter()
        .fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
    hi / lo
}

fn jain(g: &[f64]) -> f64 {
    let s: f64 = g.iter().sum();
    let q: f64 = g.iter().map(|x| x * x).sum();
    s * s / (g.len() as f64 * q)
}

#[test]
fn five_readers_share_a_single_queue_server_nic_about_equally() {
    // Windows of 64 KiB (the profile's, unscaled): 5 x 45 packets never
    // fill the NIC's 1000-packet queue; each client gets a fifth.
    let g = five_readers("");
    eprintln!("64KiB {:.4} {:.5} {g:?}", max_over_min(&g), jain(&g));
    assert!(max_over_min(&g) < 1.02, "{g:?}");
    // Windows of 4 MiB: CUBIC fills the queue and backs off on the NIC's
    // refusals, flow by flow; over 2 s the shares still nearly agree.
    let g = five_readers(r#"receive_window = "4MiB""#);
    eprintln!("4MiB {:.4} {:.5} {g:?}", max_over_min(&g), jain(&g));
    assert!(max_over_min(&g) < 1.25 && jain(&g) > 0.99, "{g:?}");
}

#[test]
fn a_read_ends_at_exactly_the_files_last_byte() {
    // 3 whole READs and a short one of 1234 bytes.
    let sc = star(
        3,
        "25us",
        r#"clients = ["h2", "h1"]
file_size = 197842
io_size = "64KiB"
outstanding = 2
[workload.tcp]
profile = "rfc""#,
        "",
    );
    let r = run(&sc);
    let reads = r.table("reads");
    assert_eq!(reads.i64s("bytes_read"), [197_842, 197_842]);
    assert_eq!(reads.i64s("file_bytes"), [197_842, 197_842]);
    assert_eq!(reads.i64s("requests_sent"), [4, 4]);
    assert_eq!(reads.i64s("requests_done"), [4, 4]);
    assert!(reads.strs("outcome").iter().all(|o| o == "complete"));
    // The connection carried the file and a header per reply, no more,
    // server to client.
    let flows = r.table("flows");
    assert_eq!(flows.strs("kind"), ["nfs_read", "nfs_read"]);
    assert_eq!(flows.strs("src"), ["h0", "h0"]);
    assert_eq!(flows.strs("dst"), ["h2", "h1"]);
    assert_eq!(flows.i64s("bytes_delivered"), [197_842 + 4 * 108; 2]);
    // The file's end is the flow's and the run's.
    let ends = reads.f64s("end_s");
    assert_eq!(ends, flows.f64s("end_s"));
    let last = ends.iter().copied().fold(0.0, f64::max);
    assert_eq!(r.float("sim_end_s"), last);
}

#[test]
fn the_throughput_series_bins_the_replies_server_to_client() {
    let sc = star(
        2,
        "25us",
        r#"client = "h1"
file_size = "4MiB"
[metrics]
throughput_bin = "1ms""#,
        "",
    );
    let r = run(&sc);
    let series = r.table("flow_series");
    let bytes: i64 = series.i64s("bytes").iter().sum();
    // Replies (file and headers), not the requests going the other way.
    assert_eq!(bytes, (4 << 20) + 64 * 108);
    assert!(series.i64s("flow_id").iter().all(|&f| f == 0));
}

#[test]
fn a_disk_slower_than_the_link_paces_the_replies() {
    let sc = star(
        2,
        "25us",
        r#"client = "h1"
file_size = "16MiB"
disk_rate = "200Mbps""#,
        "",
    );
    let g = run(&sc).table("reads").f64s("goodput_bps")[0];
    // The disk reads 64 KiB in 2.6 ms; the link would carry it in 0.55 ms.
    assert!((g - 200e6).abs() / 200e6 < 0.03, "{:.1} Mb/s", g / 1e6);
}

#[test]
fn the_same_seed_reads_the_same_bytes_at_the_same_instants() {
    let sc = star(
        4,
        "25us",
        r#"file_size = "2MiB"
[metrics]
throughput_bin = "1ms""#,
        r#"receive_window = "1MiB""#,
    );
    let a = run(&sc);
    let b = run(&sc);
    assert_eq!(a.digest(), b.digest());
    assert_eq!(a.table("reads"), b.table("reads"));
    // The reads table is in the digest once it has rows.
    let without: Vec<_> = a
        .tables
        .iter()
        .filter(|(n, _)| n != "reads")
        .cloned()
        .collect();
    assert_ne!(digest_of(&without), a.digest());
}

#[test]
fn a_run_without_nfs_reads_keeps_the_digest_it_had_before_the_reads_table() {
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
size = "1MiB"
"#,
    )
    .unwrap();
    let r = run(&sc);
    assert_eq!(r.table("reads").rows(), 0);
    let without: Vec<_> = r
        .tables
        .iter()
        .filter(|(n, _)| n != "reads")
        .cloned()
        .collect();
    assert_eq!(digest_of(&without), r.digest());
}
