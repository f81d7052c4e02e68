//! Scenario fuzzer: feeds generated and mutated scenarios (gen.rs) to the
//! parser and, when one is accepted, runs it under a time and a memory
//! bound. Every case ends one of three ways:
//!
//! * rejected: one line naming a field path (or, for text that is not TOML
//!   or JSON at all, the syntax error);
//! * ran: to completion within the bounds;
//! * FAILURE: a panic, a message that is not one line or names no field,
//!   a run past `--timeout`, memory past `--mem-mib`, a run that handled
//!   ten times the packets, rows or memory its limits estimated, more
//!   packet-hops or events than the estimate's stated bound
//!   (`spec::limits::BOUND_FACTOR`), or a normalized scenario that does not
//!   read back as itself.
//!
//! Usage (CI runs the first; as many cases as you like with the second):
//!
//!     cargo run --release --example fuzz_scenarios -- --cases 10000 --seed 1
//!     cargo run --release --example fuzz_scenarios -- --cases 100000 --seed 7
//!     cargo run --release --example fuzz_scenarios -- --print 1234 --seed 7
//!     cargo run --release --example fuzz_scenarios -- --file my.toml
//!
//! The parent process runs the cases in a child process (itself with
//! `--child`). The child counts every allocation (a global allocator that
//! refuses to pass the memory bound) and a watchdog thread ends it when a
//! case runs past the time bound; the parent then reports that case, prints
//! it, and starts a new child at the next case, so one run counts every
//! failure. Accepted cases run under the fuzzer's own small `[limits]`
//! (`BUDGET`, or the case's own limits where lower), so that every case is
//! quick if the limits' estimates hold.

mod gen;

use fairlab_sim::spec::{LimitsSpec, Scenario, ScenarioError};
use fairlab_sim::units::Bytes;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufRead, BufReader, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counts live heap bytes and refuses an allocation past `CAP`.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);
static LIMITS_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

const OOM_NOTE: &[u8] = b"\nfuzz: memory bound exceeded\n";

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        if now > CAP.load(Ordering::Relaxed) {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
            // The default handler then aborts; this note says why.
            let _ = std::io::stderr().write_all(OOM_NOTE);
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let grow = new - l.size();
            let now = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
            if now > CAP.load(Ordering::Relaxed) {
                LIVE.fetch_sub(grow, Ordering::Relaxed);
                let _ = std::io::stderr().write_all(OOM_NOTE);
                return std::ptr::null_mut();
            }
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
        }
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The limits accepted cases run under: a run within them takes well under
/// a second in a release build (about a million packets per second). With
/// `--limits-off` (to see what the limits prevent) every limit is the
/// largest value.
fn budget() -> LimitsSpec {
    if LIMITS_OFF.load(Ordering::Relaxed) {
        return LimitsSpec {
            max_packets: u64::MAX,
            max_series_rows: u64::MAX,
            max_memory: Bytes(u64::MAX),
            max_hosts: u64::MAX,
            max_flows: u64::MAX,
            max_packet_hops: u64::MAX,
            max_events: u64::MAX,
            max_route_work: u64::MAX,
        };
    }
    LimitsSpec {
        max_packets: 200_000,
        max_series_rows: 500_000,
        max_memory: Bytes(256 << 20),
        max_hosts: 1000,
        max_flows: 10_000,
        max_packet_hops: 2_000_000,
        max_events: 8_000_000,
        max_route_work: 100_000_000,
    }
}

/// How far past its estimate (plus a little slack for fixed costs) a run
/// may go before the estimate counts as wrong: retransmissions, which the
/// estimates leave out, stay within this.
const MISS: f64 = 10.0;

fn tighter(a: &LimitsSpec, b: &LimitsSpec) -> LimitsSpec {
    LimitsSpec {
        max_packets: a.max_packets.min(b.max_packets),
        max_series_rows: a.max_series_rows.min(b.max_series_rows),
        max_memory: a.max_memory.min(b.max_memory),
        max_hosts: a.max_hosts.min(b.max_hosts),
        max_flows: a.max_flows.min(b.max_flows),
        max_packet_hops: a.max_packet_hops.min(b.max_packet_hops),
        max_events: a.max_events.min(b.max_events),
        max_route_work: a.max_route_work.min(b.max_route_work),
    }
}

struct Args {
    cases: u64,
    seed: u64,
    from: u64,
    timeout: u64,
    mem_mib: u64,
    child: bool,
    limits_off: bool,
    print: Option<u64>,
    file: Option<String>,
    show: usize,
}

fn args() -> Args {
    let mut a = Args {
        cases: 1000,
        seed: 1,
        from: 0,
        timeout: 10,
        mem_mib: 2048,
        child: false,
        limits_off: false,
        print: None,
        file: None,
        show: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut num = |name: &str| -> u64 {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} takes a whole number"))
        };
        match k.as_str() {
            "--cases" => a.cases = num("--cases"),
            "--seed" => a.seed = num("--seed"),
            "--from" => a.from = num("--from"),
            "--timeout" => a.timeout = num("--timeout"),
            "--mem-mib" => a.mem_mib = num("--mem-mib"),
            "--print" => a.print = Some(num("--print")),
            "--show" => a.show = num("--show") as usize,
            "--file" => a.file = it.next(),
            "--child" => a.child = true,
            "--limits-off" => a.limits_off = true,
            other => {
                eprintln!("unknown argument {other}; see the comment at the top of fuzz_scenarios/main.rs");
                std::process::exit(2);
            }
        }
    }
    a
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What one case did, as one line: class, then detail.
fn run_case(c: &gen::Case) -> (String, String) {
    let parsed = panic::catch_unwind(|| match c.format {
        gen::Format::Toml => Scenario::from_toml_str(&c.text),
        gen::Format::Json => Scenario::from_json_str(&c.text),
    });
    let sc = match parsed {
        Err(p) => return ("FAILURE-panic".into(), format!("parse: {}", panic_text(&p))),
        Ok(Err(e)) => return rejected(c, &e),
        Ok(Ok(sc)) => sc,
    };
    // The normalized scenario reads back as itself.
    match Scenario::from_json_str(&sc.to_json()) {
        Ok(back) if back == sc => {}
        Ok(_) => return ("FAILURE-roundtrip".into(), "differs after to_json".into()),
        Err(e) => return ("FAILURE-roundtrip".into(), e.to_string()),
    }
    let mut sc = sc;
    sc.limits = if LIMITS_OFF.load(Ordering::Relaxed) {
        budget()
    } else {
        tighter(&sc.limits, &budget())
    };
    let est = match sc.resolve() {
        Ok(r) => r.estimate,
        Err(e) => {
            let (class, detail) = rejected(c, &e);
            return (class.replace("rejected", "over-budget"), detail);
        }
    };
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let started = Instant::now();
    let run = panic::catch_unwind(AssertUnwindSafe(|| fairlab_sim::run(&sc, None)));
    let secs = started.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base) as u64;
    match run {
        Err(p) => ("FAILURE-panic".into(), format!("run: {}", panic_text(&p))),
        // The simulator's lowering refuses what it cannot honour: the same
        // rules as a parse error apply to its message.
        Ok(Err(e)) => {
            let (class, detail) = rejected(c, &e);
            (class.replace("rejected", "refused-by-lowering"), detail)
        }
        Ok(Ok(res)) => {
            let rows: usize = ["flow_series", "queue_series", "trace"]
                .iter()
                .map(|t| res.table(t).rows())
                .sum();
            let segs: i64 = match res.table("flows").column("segments_sent") {
                Some(fairlab_sim::metrics::Column::I64(v)) => v.iter().sum(),
                _ => 0,
            };
            let udp = match res.get("udp_sent") {
                Some(fairlab_sim::metrics::Value::Int(n)) => *n,
                _ => 0,
            };
            let count = |k: &str| match res.get(k) {
                Some(fairlab_sim::metrics::Value::Int(n)) => *n,
                _ => 0,
            };
            let (hops, events) = (count("packet_hops"), count("events"));
            let detail = format!(
                "secs={secs:.3} packets={} est_packets={} rows={rows} est_rows={} peak={peak} est_mem={} hops={hops} est_hops={} events={events} est_events={}",
                segs + udp,
                est.packets(),
                est.series_rows(),
                est.memory(),
                est.packet_hops(),
                est.events()
            );
            // A run far beyond its estimate is an estimate that lets a
            // scenario within the default limits run for ever or blow up.
            let over = |used: f64, est: u64, slack: f64| used / (est as f64 + slack) > MISS;
            // Packet-hops and events have a stated bound (`spec::limits`,
            // BOUND_FACTOR): a run past it is a failure of the estimate.
            let class = if over((segs + udp) as f64, est.packets(), 1000.0)
                || over(rows as f64, est.series_rows(), 1000.0)
                || over(peak as f64, est.memory(), (4 << 20) as f64)
                || hops as u64 > est.packet_hops_bound()
                || events as u64 > est.events_bound()
            {
                "FAILURE-estimate"
            } else {
                "ran"
            };
            (class.into(), detail)
        }
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "?".into())
        .replace('\n', " | ")
}

/// A refusal is good if it is one line and names a field, or (for text
/// that is not a TOML or JSON document) says where the syntax broke.
fn rejected(c: &gen::Case, e: &ScenarioError) -> (String, String) {
    let msg = e.to_string();
    if msg.contains('\n') || msg.contains('\u{1}') {
        return ("FAILURE-message".into(), format!("{msg:?}"));
    }
    if e.path.is_empty() {
        let syntax = match c.format {
            gen::Format::Toml => toml::from_str::<toml::Table>(&c.text).is_err(),
            gen::Format::Json => serde_json::from_str::<serde_json::Value>(&c.text).is_err(),
        };
        if !syntax {
            return ("FAILURE-no-path".into(), msg);
        }
        return ("rejected-syntax".into(), msg);
    }
    ("rejected".into(), msg)
}

fn child(a: &Args) {
    CAP.store((a.mem_mib as usize) << 20, Ordering::Relaxed);
    panic::set_hook(Box::new(|_| {}));
    let corpus = gen::Corpus::load(&repo_root());
    static CURRENT_START_MS: AtomicU64 = AtomicU64::new(u64::MAX);
    let t0 = Instant::now();
    let timeout_ms = a.timeout * 1000;
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(50));
        let start = CURRENT_START_MS.load(Ordering::Relaxed);
        let now = t0.elapsed().as_millis() as u64;
        if start != u64::MAX && now.saturating_sub(start) > timeout_ms {
            eprintln!("\nfuzz: time bound exceeded");
            std::process::exit(3);
        }
    });
    let out = std::io::stdout();
    for i in a.from..a.cases {
        let c = gen::case(a.seed, i, &corpus);
        {
            let mut o = out.lock();
            let _ = writeln!(o, "S {i}");
            let _ = o.flush();
        }
        let case_started = Instant::now();
        CURRENT_START_MS.store(t0.elapsed().as_millis() as u64, Ordering::Relaxed);
        let (class, detail) = run_case(&c);
        CURRENT_START_MS.store(u64::MAX, Ordering::Relaxed);
        // The whole case's time (a refusal's checks and estimates too),
        // which the time bound applies to.
        let case_secs = case_started.elapsed().as_secs_f64();
        let mut o = out.lock();
        let _ = writeln!(
            o,
            "R {i} {class} {} case_secs={case_secs:.3}",
            detail.replace('\n', " ")
        );
        let _ = o.flush();
    }
}

#[derive(Default)]
struct Tally {
    counts: std::collections::BTreeMap<String, u64>,
    failures: Vec<(u64, String, String)>,
    /// Largest ratios of what a run used to what the limits estimated.
    worst: [(f64, u64); 5],
    slowest: (f64, u64),
    /// The slowest case of any class (refusals included): its time, case
    /// and class.
    slowest_case: (f64, u64, String),
    shown: usize,
}

fn field(detail: &str, key: &str) -> f64 {
    detail
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

impl Tally {
    fn add(&mut self, i: u64, class: &str, detail: &str, show: usize) {
        *self.counts.entry(class.to_string()).or_default() += 1;
        let case_secs = field(detail, "case_secs");
        if case_secs > self.slowest_case.0 {
            self.slowest_case = (case_secs, i, class.into());
        }
        if class.starts_with("FAILURE") {
            self.failures.push((i, class.into(), detail.into()));
        }
        if class == "ran" || class == "FAILURE-estimate" {
            // Slack for the small fixed costs the estimates leave out.
            for (k, (used, est, slack)) in [
                ("packets", "est_packets", 1000.0),
                ("rows", "est_rows", 1000.0),
                ("peak", "est_mem", 4.0 * 1048576.0),
                ("hops", "est_hops", 1000.0),
                ("events", "est_events", 5000.0),
            ]
            .iter()
            .enumerate()
            {
                let r = field(detail, used) / (field(detail, est) + slack);
                if r > self.worst[k].0 {
                    self.worst[k] = (r, i);
                }
            }
            let s = field(detail, "secs");
            if s > self.slowest.0 {
                self.slowest = (s, i);
            }
        } else if self.shown < show {
            self.shown += 1;
            eprintln!("  case {i} {class}: {detail}");
        }
    }
}

fn parent(a: &Args) -> i32 {
    let exe = std::env::current_exe().expect("own path");
    let corpus = gen::Corpus::load(&repo_root());
    let mut tally = Tally::default();
    let mut next = a.from;
    let started = Instant::now();
    while next < a.cases {
        let mut child = Command::new(&exe)
            .args([
                "--child",
                "--seed",
                &a.seed.to_string(),
                "--from",
                &next.to_string(),
                "--cases",
                &a.cases.to_string(),
                "--timeout",
                &a.timeout.to_string(),
                "--mem-mib",
                &a.mem_mib.to_string(),
            ])
            .args(a.limits_off.then_some("--limits-off"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("child starts");
        let stdout = child.stdout.take().expect("piped");
        let mut current = None;
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("child output");
            let mut parts = line.splitn(4, ' ');
            match (parts.next(), parts.next()) {
                (Some("S"), Some(i)) => current = i.parse::<u64>().ok(),
                (Some("R"), Some(i)) => {
                    let i: u64 = i.parse().expect("case number");
                    let class = parts.next().unwrap_or("?");
                    let detail = parts.next().unwrap_or("");
                    tally.add(i, class, detail, a.show);
                    current = None;
                    next = i + 1;
                    if (i + 1).is_multiple_of(5000) {
                        eprintln!(
                            "  {} cases, {:.0} s, {} failures",
                            i + 1 - a.from,
                            started.elapsed().as_secs_f64(),
                            tally.failures.len()
                        );
                    }
                }
                _ => {}
            }
        }
        let status = child.wait().expect("child ends");
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        if let Some(i) = current {
            let class = if err.contains("memory bound") {
                "FAILURE-memory"
            } else if err.contains("time bound") {
                "FAILURE-timeout"
            } else {
                "FAILURE-crash"
            };
            let detail = format!("{status}: {}", err.trim().replace('\n', " | "));
            tally.add(i, class, &detail, a.show);
            next = i + 1;
        } else if !status.success() {
            eprintln!("fuzz: child failed outside a case ({status}): {err}");
            return 2;
        }
    }
    let total = a.cases - a.from;
    println!(
        "fuzz_scenarios: seed {} cases {}..{} ({total}) in {:.0} s",
        a.seed,
        a.from,
        a.cases,
        started.elapsed().as_secs_f64()
    );
    for (class, n) in &tally.counts {
        println!("  {class:<18} {n}");
    }
    let names = ["packets", "series rows", "memory", "packet-hops", "events"];
    for (k, (r, i)) in tally.worst.iter().enumerate() {
        println!(
            "  largest {} used / estimated (+slack): {r:.2} (case {i})",
            names[k]
        );
    }
    println!(
        "  slowest accepted case: {:.2} s (case {})",
        tally.slowest.0, tally.slowest.1
    );
    println!(
        "  slowest case of any class: {:.2} s (case {}, {}; the time bound: {} s)",
        tally.slowest_case.0, tally.slowest_case.1, tally.slowest_case.2, a.timeout
    );
    for (i, class, detail) in &tally.failures {
        let c = gen::case(a.seed, *i, &corpus);
        println!(
            "\n{class} case {i} (from {}, {:?}): {detail}\n--- reproduce: cargo run --release --example fuzz_scenarios -- --seed {} --print {i}\n{}",
            c.origin, c.format, a.seed, c.text
        );
    }
    println!("failures: {}", tally.failures.len());
    i32::from(!tally.failures.is_empty())
}

fn main() {
    let a = args();
    LIMITS_OFF.store(a.limits_off, Ordering::Relaxed);
    if let Some(path) = &a.file {
        // One scenario file through the same checks and bounds (no child).
        let text = std::fs::read_to_string(path).expect("readable file");
        let format = if path.ends_with(".json") {
            gen::Format::Json
        } else {
            gen::Format::Toml
        };
        let c = gen::Case {
            text,
            format,
            origin: path.clone(),
        };
        let started = Instant::now();
        let (class, detail) = run_case(&c);
        println!(
            "{class} {detail} ({:.2} s in all)",
            started.elapsed().as_secs_f64()
        );
        return;
    }
    if let Some(i) = a.print {
        let corpus = gen::Corpus::load(&repo_root());
        let c = gen::case(a.seed, i, &corpus);
        println!(
            "# case {i} of seed {} ({}, {:?})",
            a.seed, c.origin, c.format
        );
        println!("{}", c.text);
        let (class, detail) = run_case(&c);
        println!("# {class} {detail}");
        return;
    }
    if a.child {
        child(&a);
        return;
    }
    std::process::exit(parent(&a));
}
