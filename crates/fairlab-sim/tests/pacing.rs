//! TCP pacing in a network: synchronized senders overflowing a small
//! drop-tail buffer lose less when each spreads its window over the round
//! trip (docs/tcp-family.md, "Pacing").

use fairlab_sim::Scenario;

/// What the bottleneck and the senders lost.
#[derive(Debug)]
struct Losses {
    /// Packets the switch dropped (all at the port toward the client).
    drops: i64,
    timeouts: i64,
    /// Timeouts because too much of one window was lost for duplicate
    /// ACKs to announce it: the senders' trace of runs of consecutive
    /// drops (no counter of runs at a port exists).
    whole_window_timeouts: i64,
}

/// Ten servers answer each of 20 barrier-synchronized requests with 64 KiB
/// at once, on the datacenter profile (1 ms min RTO, µs timers, CUBIC,
/// SACK), through a switch port of 1 Gb/s with a 16-packet drop-tail
/// buffer; `pacing` is the `[tcp]` pacing lines.
fn incast(pacing: &str) -> Losses {
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 11
rate = "1Gbps"
delay = "25us"
[queue]
limit = "16pkt"
[tcp]
profile = "datacenter"
{pacing}
[[workload]]
kind = "incast"
client = "h0"
servers = "all"
sru = "64KiB"
rounds = 20
"#
    );
    let r = fairlab_sim::run(&Scenario::from_toml_str(&text).unwrap(), None).unwrap();
    let f = r.table("flows");
    assert!(f.strs("outcome").iter().all(|o| o == "complete"));
    let sum = |c: &str| f.i64s(c).iter().sum::<i64>();
    Losses {
        drops: r.int("drops"),
        timeouts: sum("timeouts"),
        whole_window_timeouts: sum("timeouts_window"),
    }
}

#[test]
fn pacing_cuts_drops_and_whole_window_losses_of_synchronized_senders() {
    let off = incast("");
    let on = incast("pacing = true");
    // Measured: off 1459 drops, 348 timeouts (286 of a whole window); on
    // 1110, 219 (130). Fewer, not none: the first 10 segments of each
    // connection go unpaced, and ten paced windows at 120 % of cwnd / SRTT
    // still overflow 16 packets.
    assert!(5 * on.drops < 4 * off.drops, "off {off:?}, on {on:?}");
    assert!(4 * on.timeouts < 3 * off.timeouts, "off {off:?}, on {on:?}");
    assert!(
        2 * on.whole_window_timeouts < off.whole_window_timeouts,
        "off {off:?}, on {on:?}"
    );
    assert!(on.drops > 0);
}

#[test]
fn pacing_runs_are_deterministic() {
    let a = incast("pacing = true\npacing_ca_ratio = 150");
    let b = incast("pacing = true\npacing_ca_ratio = 150");
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}
