//! Memory and time at scale, measured on the real path (a JSON scenario, as
//! the Python binding passes it, validated, built, run, results collected).
//!
//! ```text
//! cargo run --release -p fairlab-sim --example scale            # every figure (about 30 s)
//! cargo run --release -p fairlab-sim --example scale -- dumbbell FLOWS PAIRS MS
//! cargo run --release -p fairlab-sim --example scale -- star HOSTS FLOWS MS
//! ```
//!
//! Every figure: 100,000 against 1,000 long-lived bulk flows on one
//! dumbbell (1 and 100 host pairs) over 2 s of simulated time, by then
//! most flows have delivered data and been through loss episodes (at
//! 100 ms nine in ten would still be opening, and the run would measure
//! little beyond the build); then the 100,000-host star with 1,000 flows,
//! built and run for 10 ms.
//!
//! Each measurement runs in a child process of its own, since peak RSS
//! (VmHWM) is per process. Per-flow memory is the difference of two peaks
//! (100,000 flows against 1,000 on the same topology) over the difference
//! in flows, so the runtime, the topology and the fixed buffers cancel out.
//!
//! Peaks are taken at two points: after the run (scenario spec + simulation)
//! and after collecting the result tables (their columns hold a row per
//! flow, with strings). The child also resets the peak once the scenario is
//! parsed (`/proc/self/clear_refs`, value 5) so that the simulation's own
//! share can be told from the spec's.

#[path = "../../fairlab-py/src/alloc.rs"]
mod alloc;

use fairlab_sim::{metrics, spec, Scenario};
use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

/// (VmRSS, VmHWM) in bytes.
fn rss() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> u64 {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Resets VmHWM to the current RSS (Linux >= 4.0); false if not allowed.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Linux hosts (CUBIC, SACK) on 100 Gb/s access links, a 40 Gb/s
/// bottleneck with 1000-packet switch buffers; flow `i` goes from `l(i mod
/// pairs)` to `r(i mod pairs)` and opens at `i / flows` of the first half of
/// the run (all at once, most SYNs would die in the first buffer).
fn dumbbell_json(flows: usize, pairs: usize, ms: u64) -> String {
    let mut s = String::with_capacity(flows * 80 + 1024);
    write!(
        s,
        r#"{{"name":"scale-dumbbell","seed":1,"duration":"{ms}ms",
"topology":{{"kind":"dumbbell","left":{pairs},"right":{pairs},"rate":"100Gbps","delay":"10us",
"bottleneck_rate":"40Gbps","bottleneck_delay":"20us"}},
"queue":{{"limit":"1000pkt"}},"tcp":{{"profile":"linux"}},"workload":["#
    )
    .unwrap();
    for i in 0..flows {
        let p = i % pairs;
        if i > 0 {
            s.push(',');
        }
        // Openings spread evenly over the first half of the run.
        let start = ms * 500 * i as u64 / flows as u64;
        write!(
            s,
            r#"{{"kind":"bulk","src":"l{p}","dst":"r{p}","start":"{start}us"}}"#
        )
        .unwrap();
    }
    s.push_str("]}");
    s
}

/// `flows` bulk flows between distinct hosts spread over the star.
fn star_json(hosts: usize, flows: usize, ms: u64) -> String {
    let mut s = String::with_capacity(flows * 80 + 1024);
    write!(
        s,
        r#"{{"name":"scale-star","seed":1,"duration":"{ms}ms",
"topology":{{"kind":"star","hosts":{hosts},"rate":"1Gbps","delay":"10us"}},
"tcp":{{"profile":"rfc"}},"workload":["#
    )
    .unwrap();
    let stride = (hosts / (2 * flows)).max(1);
    for i in 0..flows {
        let a = (2 * i * stride) % hosts;
        let b = (a + stride) % hosts;
        if i > 0 {
            s.push(',');
        }
        write!(s, r#"{{"kind":"bulk","src":"h{a}","dst":"h{b}"}}"#).unwrap();
    }
    s.push_str("]}");
    s
}

/// One measurement in this process; prints `key=value` pairs on one line.
fn child(json: String) {
    let (rss0, _) = rss();
    let t0 = Instant::now();
    let sc = Scenario::from_json_str(&json).expect("valid scenario");
    drop(json);
    let parse_s = t0.elapsed().as_secs_f64();
    let (rss_spec, hwm_parse) = rss();
    let reset = reset_peak();

    let t1 = Instant::now();
    let mut sim = spec::build(&sc, None).expect("builds");
    let build_s = t1.elapsed().as_secs_f64();
    let (_, hwm_build) = rss();
    let route_bytes = sim.net.route_state_bytes();

    let t2 = Instant::now();
    sim.run();
    let run_s = t2.elapsed().as_secs_f64();
    let (_, hwm_run) = rss();
    let events = sim.events.events_processed();

    let t3 = Instant::now();
    let res = metrics::collect(&sim);
    let collect_s = t3.elapsed().as_secs_f64();
    let (_, hwm_collect) = rss();
    let bytes = res.table("flows").i64s("bytes_delivered");
    let delivered = bytes.iter().sum::<i64>();
    let active = bytes.iter().filter(|&&b| b > 0).count();
    // Whole-process peak: before the reset, the parse peak counts too.
    let peak = |h: u64| if reset { h.max(hwm_parse) } else { h };
    println!(
        "rss0={rss0} rss_spec={rss_spec} reset={reset} hwm_build={} hwm_run={} \
         hwm_collect={} sim_build={} sim_run={} parse_s={parse_s:.3} build_s={build_s:.3} \
         run_s={run_s:.3} collect_s={collect_s:.3} events={events} route_bytes={route_bytes} \
         endpoints={} delivered={delivered} active={active}",
        peak(hwm_build),
        peak(hwm_run),
        peak(hwm_collect),
        hwm_build.saturating_sub(rss_spec),
        hwm_run.saturating_sub(rss_spec),
        sim.endpoints.len(),
    );
}

fn measure(args: &[String]) -> Vec<(String, f64)> {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe).args(args).output().expect("child runs");
    assert!(
        out.status.success(),
        "child {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.split_whitespace()
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            let v = match v {
                "true" => 1.0,
                "false" => 0.0,
                v => v.parse().ok()?,
            };
            Some((k.to_string(), v))
        })
        .collect()
}

fn get(m: &[(String, f64)], k: &str) -> f64 {
    m.iter().find(|e| e.0 == k).map_or(f64::NAN, |e| e.1)
}

fn per_flow(small: &[(String, f64)], big: &[(String, f64)], k: &str, df: f64) -> f64 {
    (get(big, k) - get(small, k)) / df
}

fn dumbbell_report(pairs: usize, ms: u64) {
    let (lo, hi) = (1_000usize, 100_000usize);
    let a = measure(&[
        "dumbbell".into(),
        lo.to_string(),
        pairs.to_string(),
        ms.to_string(),
    ]);
    let b = measure(&[
        "dumbbell".into(),
        hi.to_string(),
        pairs.to_string(),
        ms.to_string(),
    ]);
    let df = (hi - lo) as f64;
    println!(
        "dumbbell, {pairs} host pair(s), {ms} ms: {lo} flows peak {:.1} MiB, {hi} flows peak {:.1} MiB \
         (build {:.2} s, run {:.2} s, {} events, {:.0} % of flows delivered data)",
        get(&a, "hwm_run") / 1048576.0,
        get(&b, "hwm_run") / 1048576.0,
        get(&b, "build_s"),
        get(&b, "run_s"),
        get(&b, "events"),
        100.0 * get(&b, "active") / hi as f64,
    );
    println!(
        "  bytes per flow: simulation {:.0} (built {:.0}); with the scenario spec {:.0} \
         (spec {:.0}); with the result tables {:.0}",
        per_flow(&a, &b, "sim_run", df),
        per_flow(&a, &b, "sim_build", df),
        per_flow(&a, &b, "hwm_run", df),
        per_flow(&a, &b, "rss_spec", df),
        per_flow(&a, &b, "hwm_collect", df),
    );
}

fn star_report(hosts: usize, flows: usize, ms: u64) {
    let m = measure(&[
        "star".into(),
        hosts.to_string(),
        flows.to_string(),
        ms.to_string(),
    ]);
    let total = get(&m, "parse_s") + get(&m, "build_s") + get(&m, "run_s") + get(&m, "collect_s");
    println!(
        "star, {hosts} hosts, {flows} flows, {ms} ms: parse {:.2} s, build {:.2} s, run {:.2} s, \
         collect {:.2} s (total {total:.2} s); peak RSS {:.1} MiB; route state {:.1} MiB",
        get(&m, "parse_s"),
        get(&m, "build_s"),
        get(&m, "run_s"),
        get(&m, "collect_s"),
        get(&m, "hwm_collect") / 1048576.0,
        get(&m, "route_bytes") / 1048576.0,
    );
}

fn main() {
    alloc::use_huge_pages();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> usize { args[i].parse().expect("a number") };
    match args.first().map(String::as_str) {
        Some("dumbbell") => child(dumbbell_json(num(1), num(2), num(3) as u64)),
        Some("star") => child(star_json(num(1), num(2), num(3) as u64)),
        Some(other) => panic!("unknown mode {other:?}; expected dumbbell or star"),
        None => {
            dumbbell_report(1, 2000);
            dumbbell_report(100, 2000);
            star_report(100_000, 1_000, 10);
        }
    }
}
