//! Network calculus against the simulator: over random sets of admitted
//! Radon streams (random topology, sizes, rates, starts, modes, capture
//! points, buffers), no port's simulated backlog or delay exceeds its
//! bound. `RADON_BOUND_CASES` sets how many sets (300 by default, so the
//! test suite stays short; BENCHMARKS.md records a run of 10,000).

use fairlab_sim::engine::Rng;
use fairlab_sim::metrics::{Column, Table};
use fairlab_sim::Scenario;

fn pick<'a>(rng: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.below_inclusive(xs.len() as u64 - 1) as usize]
}

/// Case `k`'s scenario: 1 to 6 streams on a star or across a dumbbell's
/// bottleneck (three hops: feed-forward bounds), each asking for a random
/// share of its path; admission keeps the admitted ones within capacity.
fn case(k: u64) -> String {
    let mut rng = Rng::stream(2026, &[k]);
    let dumbbell = rng.next_f64() < 0.5;
    let framing = pick(&mut rng, &["0B", "38B"]);
    let buffer = pick(&mut rng, &["16KiB", "64KiB", "256KiB", "1MiB"]);
    let mode = pick(
        &mut rng,
        &[
            "adaptive = false",
            "response = \"percent_budget\"",
            "response = \"percent_budget_window\"",
            "response = \"less_laxity_more\"",
        ],
    );
    let stamp = pick(&mut rng, &["nic", "socket", "application"]);
    let topo = if dumbbell {
        "kind = \"dumbbell\"\nleft = 6\nright = 2\nrate = \"1Gbps\"\ndelay = \"2us\"\nbottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"5us\"".to_string()
    } else {
        "kind = \"star\"\nhosts = 7\nrate = \"1Gbps\"\ndelay = \"1us\"".to_string()
    };
    let mut text = format!(
        "duration = \"6ms\"\n[topology]\n{topo}\n[queue]\ndiscipline = \"droptail\"\nlimit = \"{buffer}\"\n[link]\nframing = \"{framing}\"\n[radon]\n{mode}\nstamp = \"{stamp}\"\n"
    );
    let n = 1 + rng.below_inclusive(5);
    for i in 0..n {
        let (src, dst) = if dumbbell {
            (format!("l{i}"), format!("r{}", rng.below_inclusive(1)))
        } else {
            (format!("h{}", i + 1), "h0".to_string())
        };
        let size = 100 + rng.below_inclusive(8_900);
        let share = 0.02 + 0.6 * rng.next_f64();
        let period_us = 200 + rng.below_inclusive(4_800);
        let start_us = rng.below_inclusive(1_000);
        text += &format!(
            "[[workload]]\nkind = \"udp\"\ntransport = \"radon\"\nsrc = \"{src}\"\ndst = \"{dst}\"\nutilization = {share}\nperiod = \"{period_us}us\"\npacket_size = \"{size}B\"\nstart = \"{start_us}us\"\n"
        );
    }
    text
}

fn strs<'a>(t: &'a Table, c: &str) -> &'a [String] {
    match t.column(c) {
        Some(Column::Str(v)) => v,
        other => panic!("{c}: {other:?}"),
    }
}

fn f64s<'a>(t: &'a Table, c: &str) -> &'a [f64] {
    match t.column(c) {
        Some(Column::F64(v)) => v,
        other => panic!("{c}: {other:?}"),
    }
}

#[test]
fn no_simulated_backlog_or_delay_exceeds_its_bound() {
    let cases: u64 = std::env::var("RADON_BOUND_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let (mut checked, mut contended) = (0u64, 0u64);
    for k in 0..cases {
        let text = case(k);
        let sc = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("case {k}: {e}\n{text}"));
        let r = fairlab_sim::run(&sc, None).unwrap_or_else(|e| panic!("case {k}: {e}\n{text}"));
        assert_eq!(
            r.int("bound_violations"),
            0,
            "case {k}:\n{text}\n{:?}",
            r.table("port_bounds")
        );
        let b = r.table("port_bounds");
        for (i, status) in strs(b, "status").iter().enumerate() {
            // Admitted sets are stable: every port they cross is bounded.
            assert_eq!(
                status,
                "ok",
                "case {k}, port {}:\n{text}",
                strs(b, "port")[i]
            );
            checked += 1;
            // A port that held more than one packet at once was contended.
            let (max, bound) = (
                f64s(b, "max_backlog_bytes")[i],
                f64s(b, "backlog_bound_bytes")[i],
            );
            assert!(max <= bound * (1.0 + 1e-9));
            contended += (max > 9_000.0) as u64;
        }
    }
    // The check is not vacuous: ports were bounded, and some contended.
    assert!(checked > cases, "{checked} ports over {cases} cases");
    assert!(
        contended * 20 > cases,
        "only {contended} contended ports over {cases} cases"
    );
    eprintln!("{cases} stream sets, {checked} ports checked, {contended} contended");
}
