//! A thousand or more cases of the scenario fuzzer (examples/fuzz_scenarios) in
//! the test build: no panic, every refusal one line naming a field, every
//! accepted case runs to the end under small limits, within its estimate's
//! stated bound on packet-hops and events. The full fuzzer, with
//! its time and memory bounds, is `cargo run --release --example
//! fuzz_scenarios` (docs/scenario.md).

#[path = "../examples/fuzz_scenarios/gen.rs"]
mod gen;

use fairlab_sim::spec::{LimitsSpec, Scenario};
use fairlab_sim::units::Bytes;
use std::panic::{self, AssertUnwindSafe};

/// Small enough that a debug build runs an accepted case in well under a second.
fn small() -> LimitsSpec {
    LimitsSpec {
        max_packets: 5_000,
        max_series_rows: 50_000,
        max_memory: Bytes(64 << 20),
        max_hosts: 200,
        max_flows: 500,
        max_packet_hops: 50_000,
        max_events: 200_000,
        max_route_work: 10_000_000,
    }
}

#[test]
fn fuzzed_scenarios_are_refused_in_one_line_or_run_to_the_end() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = gen::Corpus::load(&root);
    assert!(corpus.files.len() >= 8, "the shipped scenarios are found");
    let (mut refused, mut ran) = (0, 0);
    // At least 1000 cases, and on until 80 have run: most generated cases
    // are refused (by design), and how many of the first thousand are
    // accepted moves whenever the generator learns a field.
    for i in 0..4000 {
        if i >= 1000 && ran >= 80 {
            break;
        }
        let c = gen::case(20240601, i, &corpus);
        let parsed = panic::catch_unwind(|| match c.format {
            gen::Format::Toml => Scenario::from_toml_str(&c.text),
            gen::Format::Json => Scenario::from_json_str(&c.text),
        });
        let mut sc = match parsed {
            Err(_) => panic!(
                "case {i} ({}) panicked while parsing:\n{}",
                c.origin, c.text
            ),
            Ok(Err(e)) => {
                let msg = e.to_string();
                assert!(!msg.contains('\n'), "case {i}: {msg:?}");
                assert!(
                    !e.path.is_empty() || msg.contains("line"),
                    "case {i} names no field: {msg}\n{}",
                    c.text
                );
                refused += 1;
                continue;
            }
            Ok(Ok(sc)) => sc,
        };
        assert_eq!(
            Scenario::from_json_str(&sc.to_json()).as_ref(),
            Ok(&sc),
            "case {i} reads back"
        );
        sc.limits = small();
        let Ok(resolved) = sc.resolve() else {
            refused += 1;
            continue;
        };
        let est = resolved.estimate;
        let run = panic::catch_unwind(AssertUnwindSafe(|| fairlab_sim::run(&sc, None)));
        match run {
            Err(_) => panic!("case {i} panicked while running:\n{}", c.text),
            Ok(Err(e)) => assert!(!e.path.is_empty(), "case {i}: {e}"),
            Ok(Ok(res)) => {
                // The estimate's stated bound (spec::limits::BOUND_FACTOR)
                // holds for every accepted case.
                let (hops, events) = (res.int("packet_hops"), res.int("events"));
                assert!(
                    hops as u64 <= est.packet_hops_bound(),
                    "case {i}: {hops} packet-hops, bound {} (estimate {}):\n{}",
                    est.packet_hops_bound(),
                    est.packet_hops(),
                    c.text
                );
                assert!(
                    events as u64 <= est.events_bound(),
                    "case {i}: {events} events, bound {} (estimate {}):\n{}",
                    est.events_bound(),
                    est.events(),
                    c.text
                );
                ran += 1;
            }
        }
    }
    assert!(refused > 300 && ran >= 80, "refused {refused}, ran {ran}");
}
