//! The speed workloads of BENCHMARKS.md, timed in CPU time of this thread
//! (so that other processes on a shared machine cost us less noise than
//! wall time would), median over repeats. Also a small target for
//! `valgrind --tool=callgrind` instruction counts.
//!
//! cargo run --release --example speed -- incast [rounds] [repeats]
//!     32 servers, 1 MiB blocks, min RTO 1 ms on a 1 µs clock (default 4000 rounds)
//! cargo run --release --example speed -- incast-paced [rounds] [repeats]
//!     the same with TCP pacing on (`[tcp] pacing = true`)
//! cargo run --release --example speed -- flows <flows> [repeats] [warmup] [measure]
//!     <flows> long-lived flows on a 16-pair dumbbell; reports the cost of an
//!     event over [warmup, warmup + measure] of simulated time (defaults 0.2 s, 0.2 s)
//!
//! cargo run --release --example speed -- radon [seconds] [repeats]
//!     one Radon stream on 1 GbE, 8 KiB datagrams at 765 Mb/s, adaptive, socket
//!     timestamps, feedback every five (default 2 s)
//! cargo run --release --example speed -- radon-nic [seconds] [repeats]
//!     the same stream with NIC timestamps (no stamp noise drawn)
//! cargo run --release --example speed -- bulk [seconds] [repeats]
//!     one TCP bulk flow on the same 1 GbE star (default 2 s): the per-hop
//!     cost Radon's is compared with
//!
//! Every line ends with the run's result digest, so that a change that should
//! leave results alone can be checked at a glance.

#[path = "../../fairlab-py/src/alloc.rs"]
mod alloc;

use fairlab_sim::Scenario;
use std::time::Duration;

/// CPU time consumed by this thread (Linux), else wall time since first call.
fn cpu_time() -> Duration {
    if let Ok(s) = std::fs::read_to_string("/proc/thread-self/schedstat") {
        if let Some(ns) = s.split_whitespace().next().and_then(|v| v.parse().ok()) {
            return Duration::from_nanos(ns);
        }
    }
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The incast of the speed issue: 32 servers, 1 MiB blocks, 1 ms min RTO, µs timers.
pub fn incast(rounds: u32) -> Scenario {
    incast_with(rounds, "")
}

/// [`incast`] with more `[tcp]` lines.
pub fn incast_with(rounds: u32, tcp: &str) -> Scenario {
    let n = 32;
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
min_rto = "1ms"
resolution = "1us"
{tcp}
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
/// everywhere, 1000-packet drop-tail buffers), opening over the first 10 ms.
pub fn many_flows(flows: usize, duration: Duration) -> Scenario {
    let pairs = 16;
    let mut text = format!(
        r#"
duration = "{}us"
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
"#,
        duration.as_micros()
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

/// One flow on a 1 GbE star for `secs`: a Radon stream (`radon`) or a TCP
/// bulk flow.
pub fn one_flow(what: &str, secs: f64) -> Scenario {
    let radon =
        "kind = \"udp\"\ntransport = \"radon\"\nrate = \"765Mbps\"\npacket_size = \"8220B\"";
    let flow = match what {
        "radon" => radon.to_string(),
        // The same stream with hardware (NIC) timestamps: no stamp noise to draw.
        "radon-nic" => format!("{radon}\nradon = {{ stamp = \"nic\" }}"),
        _ => "kind = \"bulk\"".to_string(),
    };
    Scenario::from_toml_str(&format!(
        r#"
duration = "{}us"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "5us"
[queue]
limit = "256KiB"
[link]
framing = "38B"
[[workload]]
{flow}
src = "h1"
dst = "h0"
"#,
        (secs * 1e6) as u64
    ))
    .unwrap()
}

fn main() {
    alloc::use_huge_pages();
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("incast");
    let arg = |i: usize, d: f64| -> f64 { args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d) };
    match what {
        "incast" | "incast-paced" | "incast-pcap" => {
            let rounds = arg(2, 4000.0) as u32;
            let reps = arg(3, 1.0) as usize;
            // incast-pcap: the client's packets captured, both ways (the
            // capture's cost per packet, BENCHMARKS.md).
            let extra = match what {
                "incast-paced" => "pacing = true",
                "incast-pcap" => "[metrics]\npcap = [\"client\"]",
                _ => "",
            };
            let sc = incast_with(rounds, extra);
            let (mut secs, mut walls) = (Vec::new(), Vec::new());
            let mut last = None;
            for _ in 0..reps {
                let (t0, w0) = (cpu_time(), std::time::Instant::now());
                let r = fairlab_sim::run(&sc, None).unwrap();
                secs.push((cpu_time() - t0).as_secs_f64());
                walls.push(w0.elapsed().as_secs_f64());
                last = Some(r);
            }
            let r = last.unwrap();
            if let Some(n) = r.get("pcap_packets") {
                println!("captured: {n:?} packets");
            }
            let hops = r.int("packet_hops") as f64;
            let events = r.int("events") as f64;
            let s = median(secs.clone());
            let w = median(walls.clone());
            println!(
                "{what} 32 servers, {rounds} rounds: {hops} packet-hops, {events} events ({:.3} per hop); \
                 CPU s median {s:.3} of {secs:.3?}; {:.2} M packet-hops/CPU-s; {:.1} ns/event; \
                 wall s median {w:.3} of {walls:.3?}, {:.2} M packet-hops/s; digest {}",
                events / hops,
                hops / s / 1e6,
                s / events * 1e9,
                hops / w / 1e6,
                r.digest()
            );
        }
        "flows" => {
            let flows = arg(2, 1000.0) as usize;
            let reps = arg(3, 1.0) as usize;
            let warm = Duration::from_secs_f64(arg(4, 0.2));
            let measure = Duration::from_secs_f64(arg(5, 0.2));
            let sc = many_flows(flows, warm + measure);
            let mut per_event = Vec::new();
            let mut line = String::new();
            for _ in 0..reps {
                let mut sim = fairlab_sim::scenario::build(&sc, None).unwrap();
                sim.stop_at = Some(fairlab_sim::units::Time(warm.as_nanos() as u64 * 1000));
                sim.run();
                let (e0, h0) = (sim.events.events_processed(), sim.counters.packet_hops);
                let t0 = cpu_time();
                sim.stop_at = Some(fairlab_sim::units::Time(
                    (warm + measure).as_nanos() as u64 * 1000,
                ));
                sim.run();
                let dt = (cpu_time() - t0).as_secs_f64();
                let (e, h) = (
                    sim.events.events_processed() - e0,
                    sim.counters.packet_hops - h0,
                );
                per_event.push(dt / e as f64 * 1e9);
                let r = fairlab_sim::metrics::collect(&sim);
                line = format!(
                    "{flows} flows: {e} events, {h} packet-hops ({:.2} events per hop), heap {} at end; digest {}",
                    e as f64 / h as f64,
                    sim.events.len(),
                    r.digest()
                );
            }
            println!(
                "{line}; ns/event median {:.1} of {per_event:.1?}",
                median(per_event.clone())
            );
        }
        "radon" | "radon-nic" | "bulk" => {
            let secs = arg(2, 2.0);
            let reps = arg(3, 1.0) as usize;
            let sc = one_flow(what, secs);
            let mut cpu = Vec::new();
            let mut last = None;
            for _ in 0..reps {
                let t0 = cpu_time();
                let r = fairlab_sim::run(&sc, None).unwrap();
                cpu.push((cpu_time() - t0).as_secs_f64());
                last = Some(r);
            }
            let r = last.unwrap();
            if let Some(n) = r.get("pcap_packets") {
                println!("captured: {n:?} packets");
            }
            let hops = r.int("packet_hops") as f64;
            let events = r.int("events") as f64;
            let s = median(cpu.clone());
            println!(
                "{what} one flow, 1 GbE, {secs} s: {hops} packet-hops, {events} events ({:.3} per hop); \
                 CPU s median {s:.4} of {cpu:.4?}; {:.1} ns per packet-hop; digest {}",
                events / hops,
                s / hops * 1e9,
                r.digest()
            );
        }
        _ => eprintln!("usage: speed incast|incast-paced|incast-pcap [rounds] [repeats] | speed flows <n> [repeats] [warmup_s] [measure_s]"),
    }
}
