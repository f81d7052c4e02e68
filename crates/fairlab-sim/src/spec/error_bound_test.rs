//! Error lines stay short whatever the input echoes: long values, long
//! lists and integers outside the JSON and TOML ranges.

use super::*;

const GOOD: &str = r#"
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
sru = "64KiB"
rounds = 2
"#;

#[test]
fn a_megabyte_host_name_is_echoed_as_its_head_tail_and_length() {
    let name = format!("h{}z", "x".repeat(1 << 20));
    let e = Scenario::from_toml_str(
        &GOOD.replace("client = \"client\"", &format!("client = \"{name}\"")),
    )
    .unwrap_err()
    .to_string();
    assert!(e.len() < 400, "{} characters: {:.400}", e.len(), e);
    assert!(
        e.contains(&format!("({} characters)", name.len() + 2)),
        "{e}"
    );
    assert!(e.contains("\"hxxx") && e.contains("xxz\""), "{e}");
    assert!(e.contains("workload[0].client"), "{e}");
}

#[test]
fn short_values_and_messages_are_left_alone() {
    let e = ScenarioError::new(
        "topology.rate",
        "\"fast\" is not a rate; expected \"1Gbps\"",
    );
    assert_eq!(
        e.to_string(),
        "topology.rate: \"fast\" is not a rate; expected \"1Gbps\""
    );
    let words = "an error with many short words ".repeat(5);
    assert_eq!(ScenarioError::new("x", words.clone()).message, words);
}

#[test]
fn a_long_path_and_an_unquoted_word_are_bounded() {
    let key = "k".repeat(5000);
    let e = ScenarioError::new(
        format!("routing.switches.{key}"),
        format!("{key} is unknown"),
    );
    assert!(e.path.len() < 100 && e.message.len() < 100, "{e}");
    assert!(e.message.contains("(5000 characters) is unknown"), "{e}");
    // A name in a list counts alone, without its comma.
    let e = ScenarioError::new("x", format!("expected one of {key}, s1, s2"));
    assert!(e.message.ends_with("(5000 characters), s1, s2"), "{e}");
}

#[test]
fn a_list_of_names_over_eight_gives_the_first_few_and_the_count() {
    let few: Vec<String> = (0..8).map(|i| format!("n{i}")).collect();
    assert_eq!(name_list(&few), few.join(", "));
    let many: Vec<String> = (0..100_000).map(|i| format!("n{i}")).collect();
    assert_eq!(
        name_list(&many),
        "n0, n1, n2, n3, n4, n5, … (100000 in all)"
    );
}

#[test]
fn a_json_integer_of_2_to_the_64_is_said_to_be_above_the_range() {
    let js = Scenario::from_toml_str(GOOD).unwrap().to_json();
    for (big, says) in [
        ("18446744073709551616", "an integer above 2^64-1"),
        ("-9223372036854775809", "an integer below -2^63"),
    ] {
        let bad = js.replacen("\"rounds\":2", &format!("\"rounds\":{big}"), 1);
        assert_ne!(bad, js);
        let e = Scenario::from_json_str(&bad).unwrap_err().to_string();
        assert!(e.contains(says) && !e.contains("floating point"), "{e}");
        assert!(e.contains("rounds"), "{e}");
    }
    // A fraction is still a fraction.
    let bad = js.replacen("\"rounds\":2", "\"rounds\":2.5", 1);
    let e = Scenario::from_json_str(&bad).unwrap_err().to_string();
    assert!(e.contains("floating point `2.5`"), "{e}");
}

#[test]
fn a_toml_integer_outside_i64_names_its_key() {
    let bad = GOOD.replace("rounds = 2", "rounds = 99999999999999999999");
    let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
    assert!(e.contains(TOML_INTEGER_RANGE), "{e}");
    assert!(e.contains("workload.rounds"), "{e}");
    assert_eq!(
        toml_key_at("a = 1\n[tcp]\nmss = 9", 18).as_deref(),
        Some("tcp.mss")
    );
    assert_eq!(toml_key_at("x = { y = 9", 10).as_deref(), Some("y"));
    assert_eq!(toml_key_at("[a]\n9", 4), None);
}
