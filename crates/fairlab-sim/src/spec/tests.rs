//! Every kind of bad input gives one error naming the field path, the value
//! and what is allowed.

use super::*;
use proptest::prelude::*;

const GOOD: &str = r#"
seed = 3
[topology]
kind = "star"
hosts = ["client", "s1", "s2"]
rate = "1Gbps"
delay = "25us"
[queue]
limit = "64KiB"
[[workload]]
kind = "incast"
client = "client"
sru = "256KiB"
rounds = 2
"#;

fn err_toml(text: &str) -> ScenarioError {
    Scenario::from_toml_str(text).expect_err("should be rejected")
}

#[test]
fn good_scenario_parses_from_toml_and_round_trips_through_json() {
    let sc = Scenario::from_toml_str(GOOD).unwrap();
    assert_eq!(sc.seed, 3);
    let back = Scenario::from_json_str(&sc.to_json()).unwrap();
    assert_eq!(sc, back);
}

#[test]
fn unknown_key_names_its_path() {
    let e = err_toml(&GOOD.replace("rate = ", "rat = "));
    assert!(e.to_string().contains("topology"), "{e}");
    assert!(e.to_string().contains("rat"), "{e}");
}

#[test]
fn wrong_type_names_field_and_expectation() {
    let e = err_toml(&GOOD.replace("rate = \"1Gbps\"", "rate = 5"));
    assert_eq!(e.path, "topology.rate");
    assert!(e.message.contains("rate"), "{e}");
}

#[test]
fn negative_and_zero_rates_are_rejected() {
    for bad in ["-1Gbps", "0Gbps", "0bps"] {
        let e = err_toml(&GOOD.replace("\"1Gbps\"", &format!("\"{bad}\"")));
        assert_eq!(e.path, "topology.rate");
        assert!(e.message.contains(bad), "{e}");
        assert!(e.message.contains("positive"), "{e}");
    }
}

#[test]
fn buffer_smaller_than_one_packet_is_rejected() {
    let e = err_toml(&GOOD.replace("\"64KiB\"", "\"100B\""));
    assert_eq!(e.path, "queue.limit");
    assert!(
        e.message.contains("100B") && e.message.contains("1500B"),
        "{e}"
    );
    let e = err_toml(&GOOD.replace("\"64KiB\"", "\"0pkt\""));
    assert_eq!(e.path, "queue.limit");
}

#[test]
fn missing_host_names_the_workload_field() {
    let e = err_toml(&GOOD.replace("client = \"client\"", "client = \"nobody\""));
    assert_eq!(e.path, "workload[0].client");
    assert!(
        e.message.contains("nobody") && e.message.contains("client"),
        "{e}"
    );
}

#[test]
fn json_errors_carry_paths_too() {
    let e = Scenario::from_json_str(
        r#"{"topology": {"kind": "star", "hosts": 3, "rate": "-1Gbps", "delay": "25us"}, "workload": []}"#,
    )
    .unwrap_err();
    assert_eq!(e.path, "topology.rate");
    assert!(!e.to_string().contains("line"), "{e}");
}

#[test]
fn bulk_without_size_needs_a_duration() {
    let text = r#"
[topology]
kind = "dumbbell"
left = 1
right = 1
rate = "10Gbps"
delay = "10us"
bottleneck_rate = "1Gbps"
bottleneck_delay = "50us"
[[workload]]
kind = "bulk"
src = "l0"
dst = "r0"
"#;
    assert_eq!(err_toml(text).path, "duration");
    assert!(Scenario::from_toml_str(&format!("duration = \"1s\"\n{text}")).is_ok());
}

#[test]
fn fields_of_another_kind_are_refused() {
    let e = err_toml(&GOOD.replace("rounds = 2", "rounds = 2\nsrc = \"s1\""));
    assert_eq!(e.path, "workload[0].src");
}

proptest! {
    #[test]
    fn any_rate_string_either_parses_or_names_the_field(s in "[-0-9.]{0,4}[kMGT]?(bps|b)?") {
        let text = GOOD.replace("\"1Gbps\"", &format!("{s:?}"));
        match Scenario::from_toml_str(&text) {
            Ok(sc) => prop_assert!(sc.topology.access_rate().get() > 0),
            Err(e) => prop_assert_eq!(e.path.as_str(), "topology.rate"),
        }
    }
}

const SHORT: &str = r#"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "25us"
[[workload]]
kind = "short"
src = "h0"
dst = "h1"
count = 10
packets = 10
spread = "1s"
"#;

#[test]
fn short_workload_needs_a_count_and_exactly_one_size() {
    assert!(Scenario::from_toml_str(SHORT).is_ok());
    let e = err_toml(&SHORT.replace("count = 10\n", ""));
    assert_eq!(e.path, "workload[0].count");
    assert!(e.message.contains("missing"), "{e}");
    let e = err_toml(&SHORT.replace("count = 10", "count = 0"));
    assert_eq!(e.path, "workload[0].count");
    let e = err_toml(&SHORT.replace("packets = 10", "packets = 10\nsize = \"10KiB\""));
    assert_eq!(e.path, "workload[0].packets");
    assert!(e.message.contains("both"), "{e}");
    let e = err_toml(&SHORT.replace("packets = 10\n", ""));
    assert_eq!(e.path, "workload[0].packets");
    let e = err_toml(&SHORT.replace("spread = \"1s\"", "spread = \"1s\"\nrounds = 3"));
    assert_eq!(e.path, "workload[0].rounds");
    assert!(e.message.contains("short"), "{e}");
}

#[test]
fn short_workload_fields_are_not_fields_of_other_kinds() {
    let e = err_toml(&GOOD.replace("rounds = 2", "rounds = 2\ncount = 3"));
    assert_eq!(e.path, "workload[0].count");
    assert!(e.message.contains("incast"), "{e}");
}
