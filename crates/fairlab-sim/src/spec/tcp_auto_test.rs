//! `resolution = "auto"` resolves to exactly the settings the Python
//! builders wrote out before the rule moved here (`scenarios.incast` and
//! `fairlab incast --resolution auto`), over a grid of min RTO x hz x profile.

use super::tcp::{auto_clock, ProfileName, Resolution, TcpSpec, FINE_RESOLUTION};
use super::*;

/// The `[tcp]` table `scenarios.incast` built for "auto" before the rule
/// moved to Rust (python/fairlab/scenarios.py, transcribed): ns2 keeps its
/// 10 ms tick (no resolution, no hz) for a min RTO of at least 10 ms and
/// takes 1 µs below it; every other profile gets "jiffy" at `hz` when the
/// min RTO is at least 10^12 // hz picoseconds, else "1us" at `hz`.
fn python_rule(profile: ProfileName, min_rto: Time, hz: u32) -> TcpSpec {
    let mut t = TcpSpec {
        profile: Some(profile),
        min_rto: Some(min_rto),
        ..TcpSpec::default()
    };
    if profile == ProfileName::Ns2 {
        if min_rto < Time::from_ms(10) {
            t.resolution = Some(Resolution::Granular(Time::from_us(1)));
        }
    } else {
        let tick_ps = 1_000_000_000_000 / hz as u64;
        t.resolution = Some(if min_rto.0 >= tick_ps {
            Resolution::Jiffy
        } else {
            Resolution::Granular(Time::from_us(1))
        });
        t.hz = Some(hz);
    }
    t
}

/// What the builders now pass through: "auto", with hz except for ns2.
fn auto_spec(profile: ProfileName, min_rto: Time, hz: u32) -> TcpSpec {
    TcpSpec {
        profile: Some(profile),
        min_rto: Some(min_rto),
        resolution: Some(Resolution::Auto),
        hz: (profile != ProfileName::Ns2).then_some(hz),
        ..TcpSpec::default()
    }
}

const PROFILES: [ProfileName; 6] = [
    ProfileName::Rfc,
    ProfileName::Linux,
    ProfileName::Datacenter,
    ProfileName::Ns2,
    ProfileName::Linux2632,
    ProfileName::Linux312,
];

#[test]
fn auto_resolves_to_the_python_rules_settings_over_a_grid() {
    let rtos_us = [
        1, 10, 200, 999, 1000, 1001, 3999, 4000, 5000, 9999, 10_000, 200_000,
    ];
    let mut fine = 0;
    for profile in PROFILES {
        for hz in [100, 250, 300, 1000, 1024] {
            for us in rtos_us {
                let rto = Time::from_us(us);
                let want = python_rule(profile, rto, hz).resolve("tcp").unwrap();
                let got = auto_spec(profile, rto, hz).resolve("tcp").unwrap();
                assert_eq!(got, want, "{profile:?} min_rto {rto} hz {hz}");
                fine += usize::from(got.clock.tick() == FINE_RESOLUTION);
            }
        }
    }
    // The grid reaches both sides of the rule.
    assert!(fine > 0 && fine < PROFILES.len() * 5 * rtos_us.len());
}

#[test]
fn auto_keeps_the_base_clock_from_one_tick_up() {
    let jiffy = Clock::Jiffies { hz: 250 };
    assert_eq!(auto_clock(Time::from_ms(4), jiffy), jiffy);
    assert_eq!(
        auto_clock(Time(Time::from_ms(4).0 - 1), jiffy),
        Clock::Granular {
            tick: FINE_RESOLUTION
        }
    );
}

const AUTO: &str = r#"
[topology]
kind = "star"
hosts = ["client", "s1", "s2"]
rate = "1Gbps"
delay = "25us"
[queue]
limit = "64KiB"
[tcp]
min_rto = "200us"
resolution = "auto"
[[workload]]
kind = "incast"
client = "client"
sru = "64KiB"
rounds = 2
"#;

#[test]
fn auto_in_a_scenario_file_resolves_per_workload_min_rto() {
    let sc = Scenario::from_toml_str(AUTO).unwrap();
    let r = sc.resolve().unwrap();
    assert_eq!(r.tcp.clock.tick(), FINE_RESOLUTION);
    // A workload's own min_rto above the tick brings the jiffy clock back.
    let over = AUTO.replace("rounds = 2", "rounds = 2\ntcp = { min_rto = \"200ms\" }");
    let sc = Scenario::from_toml_str(&over).unwrap();
    let r = sc.resolve().unwrap();
    assert_eq!(r.tcp.clock.tick(), FINE_RESOLUTION);
    let w = r.workload_tcp(0).unwrap();
    assert_eq!(w.clock, Clock::Jiffies { hz: 1000 });
    // And it round-trips as written.
    let back = Scenario::from_json_str(&sc.to_json()).unwrap();
    assert_eq!(back.tcp.resolution, Some(Resolution::Auto));
}

#[test]
fn auto_lowers_to_the_plans_of_the_resolution_it_chose() {
    let machine = lower::netns::Machine::from_json(
        r#"{"hz": 250, "congestion_controls": ["reno", "cubic"], "qdiscs": ["htb", "tbf", "pfifo", "bfifo"]}"#,
    )
    .unwrap();
    for (rto, chosen) in [("200us", "\"1us\""), ("200ms", "\"jiffy\"")] {
        let auto = AUTO
            .replace("\"200us\"", &format!("\"{rto}\""))
            .replace("resolution = \"auto\"", "resolution = \"auto\"\nhz = 250");
        let explicit = auto.replace("\"auto\"", chosen);
        let netns = |t: &str| lower::netns::lower_toml(t, &machine).unwrap();
        assert_eq!(netns(&auto), netns(&explicit), "{rto}");
    }
    // ns2: below its 10 ms tick "1us", else the profile's tick (no resolution).
    for (rto, chosen) in [("5ms", "resolution = \"1us\""), ("200ms", "")] {
        let auto = AUTO
            .replace("\"200us\"", &format!("\"{rto}\""))
            .replace("[tcp]", "[tcp]\nprofile = \"ns2\"");
        let explicit = auto.replace("resolution = \"auto\"", chosen);
        let ns2 = |t: &str| lower::ns2::lower_toml(t).unwrap();
        assert_eq!(ns2(&auto), ns2(&explicit), "{rto}");
    }
}
