//! Incast goodput against the number of servers for three RTO settings:
//! the simulation behind Figure 1 of "Solving TCP Incast in Cluster Storage
//! Systems" (Vasudevan et al.). Usage:
//!
//! cargo run --release --example incast_sweep -- [sru|block] [buffer] [rounds] [send_jitter] [seeds]
//!
//! With a send jitter (e.g. "1us") each cell is the mean over `seeds` seeds.

use fairlab_sim::Scenario;

fn scenario(
    n: usize,
    sizing: &str,
    buffer: &str,
    rounds: u32,
    min_rto: &str,
    res: &str,
    jitter: &str,
) -> String {
    let mut hosts = vec!["\"client\"".to_string()];
    hosts.extend((1..=n).map(|i| format!("\"s{i}\"")));
    format!(
        r#"
[topology]
kind = "star"
hosts = [{hosts}]
rate = "1Gbps"
delay = "25us"
[queue]
limit = "{buffer}"
[host]
send_jitter = "{jitter}"
[tcp]
min_rto = "{min_rto}"
resolution = "{res}"
[[workload]]
kind = "incast"
client = "client"
{sizing}
rounds = {rounds}
"#,
        hosts = hosts.join(",")
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sizing = args.get(1).map(String::as_str).unwrap_or("sru");
    let buffer = args.get(2).cloned().unwrap_or("64KiB".into());
    let rounds: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20);
    let jitter = args.get(4).cloned().unwrap_or("0us".into());
    let seeds: u64 = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(1);
    let sizing = if sizing == "block" {
        "block = \"1MiB\""
    } else {
        "sru = \"256KiB\""
    };
    let settings = [("200ms", "jiffy"), ("5ms", "jiffy"), ("200us", "1us")];
    print!("servers");
    for (r, res) in settings {
        print!("\t{r}@{res}");
    }
    println!();
    for n in [1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 47, 56, 64] {
        print!("{n}");
        for (r, res) in settings {
            let text = scenario(n, sizing, &buffer, rounds, r, res, &jitter);
            let sc = Scenario::from_toml_str(&text).unwrap();
            let (mut g, mut to) = (0.0, 0);
            for seed in 1..=seeds {
                let res = fairlab_sim::run(&sc, Some(seed)).unwrap();
                g += res.float("incast_goodput_bps") / 1e6;
                to += res.int("total_timeouts");
            }
            print!("\t{:.0} ({} to)", g / seeds as f64, to / seeds as i64);
        }
        println!();
    }
}
