//! FAST'08 Fig. 10 on the ns2 host profile with SACK (the scenario the
//! ns-2 backend lowers to Agent/TCP/Sack1): mean goodput (payload x 1.04,
//! Mb/s with headers) and timeouts per round over seeds 1-5. Usage:
//!
//! cargo run --release --example ns2_sack_fig10 -- [servers...]

use fairlab_sim::Scenario;

fn scenario(n: usize) -> String {
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
discipline = "droptail"
limit = "63pkt"
[tcp]
profile = "ns2"
cc = "newreno"
sack = true
min_rto = "200ms"
recover_check = false
[[workload]]
kind = "incast"
client = "client"
servers = "all"
request = "1000B"
rounds = 40
sru = "256000B"
warmup = true
request_order = "random"
"#,
        hosts = hosts.join(",")
    )
}

fn main() {
    let mut ns: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if ns.is_empty() {
        ns = vec![8, 16, 64, 128];
    }
    println!("servers\tMb/s\ttimeouts/round\t(lost rtx, tail, window)");
    for n in ns {
        let sc = Scenario::from_toml_str(&scenario(n)).unwrap();
        let (mut g, mut to) = (0.0, 0.0);
        let mut causes = [0.0; 3];
        let seeds = 5;
        for seed in 1..=seeds {
            let res = fairlab_sim::run(&sc, Some(seed)).unwrap();
            g += res.float("incast_goodput_bps") * 1.04 / 1e6;
            to += res.int("total_timeouts") as f64 / 40.0;
            eprintln!(
                "{n} servers seed {seed}: {} drops, {} timeouts",
                res.int("drops"),
                res.int("total_timeouts")
            );
            for (c, k) in causes.iter_mut().zip([
                "timeouts_retransmission",
                "timeouts_tail",
                "timeouts_window",
            ]) {
                *c += res.int(k) as f64 / 40.0 / seeds as f64;
            }
        }
        println!(
            "{n}\t{:.0}\t{:.2}\t({:.2}, {:.2}, {:.2})",
            g / seeds as f64,
            to / seeds as f64,
            causes[0],
            causes[1],
            causes[2]
        );
    }
}
