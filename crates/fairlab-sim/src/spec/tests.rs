//! Every kind of bad input gives one error naming the field path, the value
//! and what is allowed.

use super::*;
use crate::units::Bytes;
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

const NFS: &str = r#"
duration = "1s"
[topology]
kind = "star"
hosts = 4
rate = "1Gbps"
delay = "25us"
[[workload]]
kind = "nfs_read"
server = "h0"
clients = ["h1", "h2"]
file_size = "1MiB"
"#;

/// NFS_READ with `from` replaced by `to`: refused at `path` (one line,
/// naming the value where there is one).
fn nfs_rejected(from: &str, to: &str, path: &str, says: &str) {
    assert!(NFS.contains(from), "{from}");
    let e = rejected_at(&NFS.replace(from, to), path);
    assert!(e.message.contains(says), "{e}");
}

#[test]
fn an_nfs_read_parses_with_its_defaults_and_round_trips() {
    let sc = Scenario::from_toml_str(NFS).unwrap();
    let WorkloadSpec::NfsRead(w) = &sc.workloads[0] else {
        panic!("an nfs_read")
    };
    assert_eq!(w.io_size(), Bytes(64 << 10));
    assert_eq!(w.outstanding(), 15);
    assert_eq!(w.request(), Bytes(200));
    assert_eq!(w.reply_header(), Bytes(108));
    assert_eq!(w.disk_rate, None);
    let hosts = sc.host_names();
    assert_eq!(w.clients(&hosts), ["h1", "h2"]);
    assert_eq!(Scenario::from_json_str(&sc.to_json()).unwrap(), sc);
    // "all" (the default) is every host but the server; `client` names one.
    let all = Scenario::from_toml_str(&NFS.replace("clients = [\"h1\", \"h2\"]\n", "")).unwrap();
    let WorkloadSpec::NfsRead(w) = &all.workloads[0] else {
        panic!()
    };
    assert_eq!(w.clients(&hosts), ["h1", "h2", "h3"]);
    let one =
        Scenario::from_toml_str(&NFS.replace("clients = [\"h1\", \"h2\"]", "client = \"h3\""))
            .unwrap();
    let WorkloadSpec::NfsRead(w) = &one.workloads[0] else {
        panic!()
    };
    assert_eq!(w.clients(&hosts), ["h3"]);
}

#[test]
fn nfs_read_fields_are_refused_with_their_path_value_and_what_is_allowed() {
    let clients = "clients = [\"h1\", \"h2\"]";
    nfs_rejected(
        "server = \"h0\"",
        "server = \"nfs\"",
        "workload[0].server",
        "\"nfs\" is not a host",
    );
    nfs_rejected("server = \"h0\"\n", "", "workload[0].server", "missing");
    nfs_rejected(
        "file_size = \"1MiB\"\n",
        "",
        "workload[0].file_size",
        "missing",
    );
    nfs_rejected(
        clients,
        "clients = [\"h1\", \"h0\"]",
        "workload[0].clients[1]",
        "\"h0\" is the server",
    );
    nfs_rejected(
        clients,
        "clients = [\"h1\", \"h1\"]",
        "workload[0].clients[1]",
        "listed twice",
    );
    nfs_rejected(
        clients,
        "clients = [\"h1\", \"x\"]",
        "workload[0].clients[1]",
        "\"x\" is not a host",
    );
    nfs_rejected(clients, "clients = []", "workload[0].clients", "no clients");
    nfs_rejected(
        clients,
        "clients = \"some\"",
        "workload[0].clients",
        "\"all\" or a list",
    );
    nfs_rejected(
        clients,
        "client = \"h0\"",
        "workload[0].client",
        "\"h0\" is the server",
    );
    nfs_rejected(
        clients,
        "client = \"h9\"",
        "workload[0].client",
        "\"h9\" is not a host",
    );
    nfs_rejected(
        clients,
        "client = \"h1\"\nclients = \"all\"",
        "workload[0].clients",
        "both client and clients",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"0B\"",
        "workload[0].file_size",
        "\"0B\" is not allowed",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\nio_size = \"0B\"",
        "workload[0].io_size",
        "positive",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\nrequest = \"0B\"",
        "workload[0].request",
        "positive",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\nrequest = \"2MiB\"",
        "workload[0].request",
        "at most \"1MiB\"",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\nreply_header = \"2MiB\"",
        "workload[0].reply_header",
        "\"2MiB\"",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\noutstanding = 0",
        "workload[0].outstanding",
        "0 is out of range; expected 1 to 65536",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\noutstanding = 65537",
        "workload[0].outstanding",
        "65537",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\ndisk_rate = \"0bps\"",
        "workload[0].disk_rate",
        "positive",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\ndisk_rate = \"9Tbps\"",
        "workload[0].disk_rate",
        "too fast",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\nstart = \"2000000s\"",
        "workload[0].start",
        "too long",
    );
    nfs_rejected(
        "\"1MiB\"",
        "\"1MiB\"\nsru = \"1MiB\"",
        "workload[0].sru",
        "nfs_read",
    );
    // A file whose replies (data and a header each) pass 1 EiB.
    nfs_rejected(
        "\"1MiB\"",
        "1000000000000000000\nio_size = \"1B\"",
        "workload[0].file_size",
        "1 EiB",
    );
    // Its fields are not another kind's.
    let e = err_toml(&GOOD.replace("rounds = 2", "rounds = 2\nio_size = \"64KiB\""));
    assert_eq!(e.path, "workload[0].io_size");
}

#[test]
fn an_nfs_reads_estimates_count_each_read_and_its_request() {
    // Without a duration: 2 clients x 16 READs x (45 + 1) segments.
    let sc = Scenario::from_toml_str(&NFS.replace("duration = \"1s\"\n", "")).unwrap();
    let r = sc.resolve().unwrap();
    assert_eq!(r.estimate.packets(), 2 * 16 * 46 + 2 * 4);
    assert_eq!(r.estimate.flows, 2);
    // Small READs over a long file are packets of their own: the duration
    // caps them by replies of that size, not full segments.
    let small = NFS.replace("\"1MiB\"", "\"10GiB\"\nio_size = \"100B\"");
    let r = Scenario::from_toml_str(&small).unwrap().resolve().unwrap();
    let replies = 1e9 / 8.0 / (100.0 + 108.0 + 40.0);
    let got = r.estimate.packets() as f64;
    assert!(
        (got - 2.0 * replies).abs() / (2.0 * replies) < 0.01,
        "{got}"
    );
    // A slow disk lengthens the run the series are sized for.
    let slow = NFS
        .replace("duration = \"1s\"\n", "")
        .replace("\"1MiB\"", "\"1MiB\"\ndisk_rate = \"8Mbps\"");
    let r = Scenario::from_toml_str(&slow).unwrap().resolve().unwrap();
    assert!(
        r.estimate.horizon >= Time::from_secs(2),
        "{}",
        r.estimate.horizon
    );
}

// ---------------------------------------------------------------------------
// Regressions: each input below once panicked, hung, exhausted memory or was
// accepted with a value the simulator cannot use.

/// A star of two hosts and one bulk flow, with `extra` appended (TOML).
fn bulk_with(extra: &str) -> String {
    format!(
        r#"
duration = "10ms"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "25us"
[[workload]]
kind = "bulk"
src = "h0"
dst = "h1"
{extra}"#
    )
}

fn rejected_at(text: &str, path: &str) -> ScenarioError {
    let e = err_toml(text);
    assert_eq!(e.path, path, "{e}");
    assert!(!e.to_string().contains('\n'), "one line: {e:?}");
    e
}

#[test]
fn a_zero_drr_quantum_is_refused_instead_of_never_returning() {
    let e = rejected_at(
        &bulk_with("[queue]\ndiscipline = \"drr\"\n[queue.drr]\nquantum = \"0B\""),
        "queue.drr.quantum",
    );
    assert!(
        e.message.contains("0B") && e.message.contains("1500B"),
        "{e}"
    );
}

#[test]
fn zero_or_too_many_buckets_are_refused_instead_of_panicking() {
    for (table, n) in [("sfq", 0), ("drr", 0), ("sfq", 65537)] {
        let e = rejected_at(
            &bulk_with(&format!("[queue.{table}]\nbuckets = {n}")),
            &format!("queue.{table}.buckets"),
        );
        assert!(e.message.contains("65536"), "{e}");
    }
}

#[test]
fn a_sfq_perturbation_shorter_than_a_millisecond_is_refused() {
    let e = rejected_at(
        &bulk_with("[queue.sfq]\nperturb = \"1ns\""),
        "queue.sfq.perturb",
    );
    assert!(e.message.contains("1ms"), "{e}");
    assert!(Scenario::from_toml_str(&bulk_with("[queue.sfq]\nperturb = \"0s\"")).is_ok());
}

#[test]
fn priority_class_names_and_shares_outside_zero_to_one_are_refused() {
    let e = rejected_at(
        &bulk_with("[queue.priority]\nhigh = \"udpp\""),
        "queue.priority.high",
    );
    assert!(
        e.message.contains("udpp") && e.message.contains("control, udp"),
        "{e}"
    );
    for share in ["2.0", "0.0", "1.0", "-0.5", "nan", "inf"] {
        rejected_at(
            &bulk_with(&format!("[queue.priority]\nhigh_share = {share}")),
            "queue.priority.high_share",
        );
    }
}

#[test]
fn red_thresholds_must_rise_and_its_probabilities_be_probabilities() {
    let e = rejected_at(
        &bulk_with("[queue.red]\nmin_th = 20.0\nmax_th = 10.0"),
        "queue.red.max_th",
    );
    assert!(e.message.contains("min_th"), "{e}");
    rejected_at(&bulk_with("[queue.red]\nmin_th = 15.0"), "queue.red.max_th");
    rejected_at(&bulk_with("[queue.red]\nmax_p = 1.5"), "queue.red.max_p");
    rejected_at(&bulk_with("[queue.red]\nw_q = 0.0"), "queue.red.w_q");
}

#[test]
fn nan_and_infinity_are_refused_by_name_in_toml_and_json() {
    let e = rejected_at(&bulk_with("[queue.red]\nw_q = nan"), "queue.red.w_q");
    assert!(e.message.starts_with("NaN is not allowed"), "{e}");
    let e = rejected_at(
        &bulk_with("[queue.hcf]\nhp_share = -inf"),
        "queue.hcf.hp_share",
    );
    assert!(e.message.contains("infinity"), "{e}");
    let json = r#"{"duration": "10ms", "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "25us"},
        "queue": {"priority": {"high_share": NaN}}, "workload": [{"kind": "bulk", "src": "h0", "dst": "h1"}]}"#;
    let e = Scenario::from_json_str(json).unwrap_err();
    assert_eq!(e.path, "queue.priority.high_share");
    assert!(e.message.starts_with("NaN is not allowed"), "{e}");
    let e = Scenario::from_json_str(&json.replace("NaN", "-Infinity")).unwrap_err();
    assert!(e.message.starts_with("-Infinity is not allowed"), "{e}");
}

#[test]
fn enum_errors_list_the_allowed_values() {
    for (field, value, path, allowed) in [
        (
            "kind = \"star\"",
            "kind = \"ring\"",
            "topology.kind",
            "\"star\", \"dumbbell\"",
        ),
        (
            "kind = \"bulk\"",
            "kind = \"flood\"",
            "workload[0].kind",
            "\"incast\", \"bulk\", \"short\", \"udp\"",
        ),
    ] {
        let e = rejected_at(&bulk_with("").replace(field, value), path);
        assert!(e.message.contains(allowed), "{e}");
    }
    for (extra, path, allowed) in [
        (
            "[queue]\ndiscipline = \"fifo\"",
            "queue.discipline",
            "droptail, hcf, red, sfq, drr, priority",
        ),
        (
            "[tcp]\ncc = \"hybla\"",
            "tcp.cc",
            "reno, newreno, cubic, bic, bic_paper, vegas, dctcp",
        ),
        (
            "[tcp]\nprofile = \"bsd\"",
            "tcp.profile",
            "rfc, linux, datacenter",
        ),
    ] {
        let e = rejected_at(&bulk_with(extra), path);
        assert!(e.message.contains(allowed), "{e}");
    }
    // A kind that is not a string at all (JSON NaN: Python's json.dumps).
    let e = Scenario::from_json_str(r#"{"topology": {"kind": NaN}}"#).unwrap_err();
    assert_eq!(e.path, "topology.kind");
    assert!(e.message.contains("NaN"), "{e}");
}

#[test]
fn errors_inside_a_workload_keep_their_exact_path() {
    let text = bulk_with("[workload.tcp]\ncc = \"hybla\"");
    let e = rejected_at(&text, "workload[0].tcp.cc");
    assert!(e.message.contains("(line"), "TOML errors keep a line: {e}");
    let e = rejected_at(&bulk_with("[workload.tcp]\nccc = 1"), "workload[0].tcp.ccc");
    assert!(e.message.contains("not a field"), "{e}");
    let e = rejected_at(
        &bulk_with("").replace("src = \"h0\"\n", ""),
        "workload[0].src",
    );
    assert!(e.message.starts_with("missing"), "{e}");
}

#[test]
fn series_that_would_exhaust_memory_are_refused_up_front() {
    let e = rejected_at(
        &bulk_with("[metrics]\nthroughput_bin = \"1ps\"").replace("\"10ms\"", "\"10s\""),
        "metrics.throughput_bin",
    );
    assert!(e.message.contains("max_series_rows"), "{e}");
    let e = rejected_at(
        &bulk_with("[metrics]\nqueue_sample = \"1ns\"").replace("\"10ms\"", "\"10s\""),
        "metrics.queue_sample",
    );
    assert!(e.message.contains("rows"), "{e}");
    // The user may raise the limit explicitly.
    let text =
        bulk_with("[metrics]\nqueue_sample = \"1ns\"\n[limits]\nmax_series_rows = 100000000000")
            .replace("\"10ms\"", "\"10s\"");
    let e = rejected_at(&text, "metrics.queue_sample");
    assert!(e.message.contains("memory"), "rows are memory too: {e}");
    let text = text.replace("[limits]", "[limits]\nmax_memory = \"100000GiB\"");
    // Every sample is an event too.
    let e = rejected_at(&text, "metrics.queue_sample");
    assert!(e.message.contains("max_events"), "{e}");
    let text = text.replace("[limits]", "[limits]\nmax_events = 100000000000000");
    assert!(Scenario::from_toml_str(&text).is_ok());
}

#[test]
fn a_queue_sampler_without_a_duration_is_sized_by_the_runs_estimated_length() {
    // A 1000 s link delay makes a small transfer last hours: sampling it
    // every 100 us would take hundreds of millions of rows.
    let text = GOOD.replace("\"25us\"", "\"1000s\"")
        + "[metrics]\nqueue_sample = \"100us\"\n[tcp]\nmax_rto = \"5000s\"\nmax_retransmits = 15\n";
    rejected_at(&text, "metrics.queue_sample");
}

#[test]
fn workloads_that_would_run_for_ever_are_refused_up_front() {
    let e = rejected_at(
        &GOOD.replace("rounds = 2", "rounds = 4000000000"),
        "workload[0]",
    );
    assert!(e.message.contains("max_packets"), "{e}");
    let e = rejected_at(
        &GOOD.replace("sru = \"256KiB\"", "block = \"1000GiB\""),
        "workload[0]",
    );
    assert!(e.message.contains("rounds"), "{e}");
    let short = SHORT.replace("count = 10", "count = 1000000");
    let e = rejected_at(&short, "workload");
    assert!(e.message.contains("max_flows"), "{e}");
    let short = SHORT.replace("packets = 10", "packets = 1000000000");
    rejected_at(&short, "workload[0]");
    // A flow without a size sends for the whole duration.
    let e = rejected_at(
        &bulk_with("").replace("\"10ms\"", "\"1000000s\""),
        "duration",
    );
    assert!(e.message.contains("packets"), "{e}");
    let udp = bulk_with("[[workload]]\nkind = \"udp\"\nsrc = \"h1\"\ndst = \"h0\"\nrate = \"1Tbps\"\npacket_size = \"28B\"")
        .replace("\"10ms\"", "\"10s\"");
    rejected_at(&udp, "workload[1].rate");
}

#[test]
fn a_fixed_hcf_period_far_shorter_than_the_run_is_refused() {
    let text = bulk_with("[queue]\ndiscipline = \"hcf\"\n[queue.hcf]\nperiod = \"1ps\"")
        .replace("\"10ms\"", "\"1s\"");
    let e = rejected_at(&text, "queue.hcf.period");
    assert!(e.message.contains("periods"), "{e}");
}

#[test]
fn times_past_the_largest_are_refused_so_no_sum_wraps() {
    // Time is u64 picoseconds: a start at 18,446,744 s plus any timer wrapped
    // and aborted the flow.
    let e = rejected_at(
        &GOOD.replace("rounds = 2", "rounds = 2\nstart = \"18446744s\""),
        "workload[0].start",
    );
    assert!(e.message.contains("1000000s"), "{e}");
    let e = rejected_at(
        &GOOD.replace("rounds = 2", "rounds = 2\nstart = \"20000000s\""),
        "workload[0].start",
    );
    assert!(e.message.contains("too large"), "{e}");
    let short = SHORT.replace(
        "spread = \"1s\"",
        "spread = \"999999s\"\nstart = \"999999s\"",
    );
    rejected_at(&short, "workload[0].spread");
    rejected_at(&GOOD.replace("\"25us\"", "\"1000001s\""), "topology.delay");
    rejected_at(
        &bulk_with("[host]\nsend_jitter = \"1000001s\""),
        "host.send_jitter",
    );
    rejected_at(
        &bulk_with("[switch]\nforwarding_jitter = \"1000001s\""),
        "switch.forwarding_jitter",
    );
    rejected_at(&bulk_with("[switch]\njitter = \"1us\""), "switch.jitter");
}

#[test]
fn timers_that_fire_at_once_or_never_give_up_are_refused() {
    rejected_at(
        &bulk_with("[tcp]\nmin_rto = \"0s\"\nmax_rto = \"0s\""),
        "tcp.max_rto",
    );
    let e = rejected_at(
        &bulk_with("[tcp]\nmax_retransmits = 256"),
        "tcp.max_retransmits",
    );
    assert!(e.message.contains("255"), "{e}");
    let e = rejected_at(
        &bulk_with("[tcp]\nmax_rto = \"100000s\"\nmax_retransmits = 15"),
        "tcp.max_rto",
    );
    assert!(e.message.contains("gives up"), "{e}");
    rejected_at(
        &bulk_with("[tcp]\nreceive_window = \"2GiB\""),
        "tcp.receive_window",
    );
}

#[test]
fn a_port_too_small_for_its_hcf_split_is_refused_not_a_panic_in_build() {
    // The port's own discipline and limit: the HP/LP split of 1 packet
    // leaves LP empty (build used to panic on it).
    let text = GOOD.replace(
        "[[workload]]",
        "[[port]]\nnode = \"sw\"\npeer = \"client\"\ndiscipline = \"hcf\"\nlimit = \"1pkt\"\n[[workload]]",
    );
    let e = rejected_at(&text, "port[0].limit");
    assert!(e.message.contains("hp_share"), "{e}");
}

#[test]
fn a_port_overridden_twice_is_refused() {
    let port = "[[port]]\nnode = \"sw\"\npeer = \"s1\"\nlimit = \"20pkt\"\n";
    let text = GOOD.replace("[[workload]]", &format!("{port}{port}[[workload]]"));
    let e = rejected_at(&text, "port[1]");
    assert!(e.message.contains("port[0]"), "{e}");
}

#[test]
fn trace_flows_name_existing_flows_and_need_trace_on() {
    rejected_at(
        &bulk_with("[metrics]\ntrace_flows = [0]"),
        "metrics.trace_flows",
    );
    let e = rejected_at(
        &bulk_with("[metrics]\ntrace = true\ntrace_flows = [0, 7]"),
        "metrics.trace_flows[1]",
    );
    assert!(e.message.contains("0 to 0"), "{e}");
}

#[test]
fn the_simulator_refuses_a_handshake_setting_per_workload() {
    let sc = Scenario::from_toml_str(&bulk_with("[workload.tcp]\nhandshake = false")).unwrap();
    let e = crate::spec::build(&sc, None)
        .err()
        .expect("refused by the lowering");
    assert_eq!(e.path, "workload[0].tcp.handshake");
}

#[test]
fn every_message_is_one_line_even_a_toml_syntax_error() {
    let e = Scenario::from_toml_str("[topology]\nhosts = [\"a\", \"b\"").unwrap_err();
    assert!(!e.to_string().contains('\n'), "{e:?}");
    assert!(!e.message.is_empty());
}

#[test]
fn the_normalized_scenario_reads_back_as_itself() {
    for text in [
        GOOD.to_string(),
        SHORT.to_string(),
        bulk_with("[limits]\nmax_packets = 7000"),
    ] {
        let sc = Scenario::from_toml_str(&text).unwrap();
        assert_eq!(Scenario::from_json_str(&sc.to_json()).unwrap(), sc);
    }
}

/// The repository's root, for the shipped files.
fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_reference_scenario_in_the_docs_validates_as_written() {
    let doc = std::fs::read_to_string(root().join("docs/scenario.md")).unwrap();
    // The reference is the largest ```toml block.
    let block = doc
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("\n```").next())
        .max_by_key(|b| b.len())
        .expect("a toml block");
    let sc = Scenario::from_toml_str(block).unwrap_or_else(|e| panic!("{e}"));
    let kinds: std::collections::BTreeSet<&str> = sc.workloads.iter().map(|w| w.kind()).collect();
    assert_eq!(kinds.len(), 5, "every workload kind is shown: {kinds:?}");
    let transports: std::collections::BTreeSet<&str> =
        sc.workloads.iter().map(|w| w.transport().name()).collect();
    assert_eq!(
        transports.len(),
        3,
        "every transport is shown: {transports:?}"
    );
    crate::spec::build(&sc, None).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn every_shipped_scenario_fits_the_default_limits_with_room() {
    let mut n = 0;
    for dir in ["examples", "tests/golden/scenarios", "tests/python/data"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let sc = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            let est = sc.resolve().unwrap().estimate;
            let l = LimitsSpec::default();
            assert!(est.packets() * 10 <= l.max_packets, "{p:?}: {est:?}");
            assert!(est.series_rows() * 5 <= l.max_series_rows, "{p:?}: {est:?}");
            assert!(est.memory() * 10 <= l.max_memory.get(), "{p:?}: {est:?}");
            assert!(est.packet_hops() * 5 <= l.max_packet_hops, "{p:?}: {est:?}");
            assert!(est.events() * 5 <= l.max_events, "{p:?}: {est:?}");
            assert!(sc.topology.route_work() * 10 <= l.max_route_work, "{p:?}");
            n += 1;
        }
    }
    assert!(n >= 8, "found {n} scenarios");
}

#[test]
fn the_packet_estimate_of_an_incast_counts_every_rounds_segments() {
    // 2 servers x 256 KiB in 1460-byte segments (180 each), their 100-byte
    // requests (1 each) and one partial segment each, per round: 2 rounds;
    // and 4 packets to open each of the 2 connections.
    let sc = Scenario::from_toml_str(GOOD).unwrap();
    let est = sc.resolve().unwrap().estimate;
    let per_server = (256u64 << 10).div_ceil(1460);
    assert_eq!(est.packets(), 2 * (2 * per_server + 2 + 2) + 2 * 4);
}

#[test]
fn a_connections_bytes_must_fit_its_counters() {
    // With a duration the run stops early, so the packet limit does not
    // catch these; the simulator's byte counters used to wrap.
    let e = rejected_at(
        &bulk_with("").replace(
            "dst = \"h1\"",
            "dst = \"h1\"\nsize = \"18446744073709551615B\"",
        ),
        "workload[0].size",
    );
    assert!(e.message.contains("1 EiB"), "{e}");
    rejected_at(
        &GOOD.replace(
            "rounds = 2",
            "rounds = 3\nrequest = \"18446744073709551615B\"",
        ),
        "workload[0].request",
    );
    rejected_at(
        &GOOD
            .replace(
                "rounds = 2",
                "rounds = 4000000000\n[limits]\nmax_packets = 1000000000000000000",
            )
            .replace("256KiB", "1GiB"),
        "workload[0].sru",
    );
}

#[test]
fn buffers_must_hold_the_largest_segment_of_any_workload() {
    // A workload's own MSS of 9000 bytes: a priority port of 16 KiB gives
    // its low class 8 KiB, which no data packet fits (every segment dropped,
    // every connection stalled until it gave up).
    let text = bulk_with(
        "[workload.tcp]\nmss = \"9000B\"\n[queue]\ndiscipline = \"priority\"\nlimit = \"16KiB\"",
    );
    let e = rejected_at(&text, "queue.limit");
    assert!(e.message.contains("9040"), "{e}");
    rejected_at(
        &bulk_with("[workload.tcp]\nmss = \"9000B\"\n[queue]\nlimit = \"8KiB\""),
        "queue.limit",
    );
}

#[test]
fn links_faster_than_a_byte_per_picosecond_are_refused() {
    // u64::MAX bits per second once overflowed the capacity estimate (a
    // panic in a debug build) and, through RED's idle decay, stalled a run.
    for rate in ["18446744073709551615bps", "9Tbps"] {
        let e = rejected_at(
            &bulk_with("").replace("\"1Gbps\"", &format!("{rate:?}")),
            "topology.rate",
        );
        assert!(e.message.contains("8Tbps"), "{e}");
    }
    assert!(Scenario::from_toml_str(&bulk_with("").replace("\"1Gbps\"", "\"8Tbps\"")).is_ok());
    let udp = "[[workload]]\nkind = \"udp\"\nsrc = \"h1\"\ndst = \"h0\"\nrate = \"100Tbps\"";
    rejected_at(&bulk_with(udp), "workload[1].rate");
}

#[test]
fn a_huge_initial_window_is_refused() {
    // 100,000 segments into a NIC queue: every ACK resent the locally
    // dropped rest, and a 2 s run never finished.
    let e = rejected_at(
        &bulk_with("[tcp]\ninitial_window = 100000"),
        "tcp.initial_window",
    );
    assert!(e.message.contains("1 to 100"), "{e}");
    rejected_at(
        &bulk_with("[tcp]\ninitial_window = 101"),
        "tcp.initial_window",
    );
    assert!(Scenario::from_toml_str(&bulk_with("[tcp]\ninitial_window = 100")).is_ok());
}

#[test]
fn opening_many_connections_counts_as_work_whatever_the_duration() {
    // 65,536 one-packet flows over 10 ms: the link allows a few hundred
    // data packets, but every connection still opens (a run made 75 times
    // its estimate before connection setup was counted).
    let text = r#"
duration = "10ms"
[topology]
kind = "star"
hosts = 2
rate = "1Gbps"
delay = "25us"
[[workload]]
kind = "short"
src = "h0"
dst = "h1"
count = 65536
packets = 1
spread = "10ms"
"#;
    let sc = Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"));
    assert!(sc.resolve().unwrap().estimate.packets() >= 4 * 65536);
}

#[test]
fn packets_held_by_send_jitter_count_as_memory() {
    // A second of jitter holds every packet a host sends in that second.
    let udp = "[[workload]]\nkind = \"udp\"\nsrc = \"h1\"\ndst = \"h0\"\nrate = \"1Gbps\"";
    let long = |extra: &str| bulk_with(extra).replace("\"10ms\"", "\"10s\"");
    let calm = Scenario::from_toml_str(&long(udp)).unwrap();
    let held =
        Scenario::from_toml_str(&long(&format!("[host]\nsend_jitter = \"1s\"\n{udp}"))).unwrap();
    let m = |sc: &Scenario| sc.resolve().unwrap().estimate.memory();
    assert!(
        m(&held) > m(&calm) + 100_000 * 128,
        "{} vs {}",
        m(&held),
        m(&calm)
    );
}

#[test]
fn a_json_syntax_error_says_where() {
    let e = Scenario::from_json_str("{\"topology\": {\"kind\": \"star\"").unwrap_err();
    assert!(e.message.contains("line 1, column"), "{e}");
}

#[test]
fn a_round_trip_longer_than_the_largest_rto_is_refused() {
    // 1000 s links: every timer expired before an ACK came back, and the
    // connections retransmitted 33 times what they had to send.
    let e = rejected_at(&GOOD.replace("\"25us\"", "\"1000s\""), "topology.delay");
    assert!(
        e.message.contains("max_rto") && e.message.contains("4000"),
        "{e}"
    );
    let ok = GOOD.replace("\"25us\"", "\"1000s\"")
        + "[tcp]\nmax_rto = \"4001s\"\nmax_retransmits = 15\n";
    assert!(Scenario::from_toml_str(&ok).is_ok());
}

#[test]
fn an_incasts_response_jitter_lengthens_the_run_the_series_are_sized_for() {
    // Servers thinking up to 10^6 s: the queue sampler ran that long and
    // exhausted memory.
    let text = GOOD.replace("rounds = 2", "rounds = 2\nresponse_jitter = \"1000000s\"")
        + "[metrics]\nqueue_sample = \"50us\"\n";
    rejected_at(&text, "metrics.queue_sample");
}

#[test]
fn every_cc_name_parses_and_lowers_to_the_simulators_algorithm_of_that_name() {
    for &c in tcp::CcKind::ALL {
        let sc = Scenario::from_toml_str(&bulk_with(&format!("[tcp]\ncc = \"{c}\""))).unwrap();
        let r = sc.resolve().unwrap();
        assert_eq!(r.tcp.cc, c);
        assert_eq!(lower::sim::tcp_config(&r.tcp).cc.name(), c.name());
    }
    assert_eq!(tcp::CcKind::parse("bic_paper"), Some(tcp::CcKind::BicPaper));
}

#[test]
fn pacing_is_off_by_default_and_overridable_per_workload() {
    let sc = Scenario::from_toml_str(&bulk_with(
        "[tcp]\npacing_ss_ratio = 300\n[workload.tcp]\npacing = true\npacing_ca_ratio = 150\npacing_initial_burst = 0",
    ))
    .unwrap();
    let r = sc.resolve().unwrap();
    assert_eq!(
        r.tcp.pacing,
        tcp::Pacing {
            ss_ratio: 300,
            ..tcp::Pacing::OFF
        }
    );
    assert_eq!(
        r.workload_tcp(0).unwrap().pacing,
        tcp::Pacing {
            enabled: true,
            ss_ratio: 300,
            ca_ratio: 150,
            initial_burst: 0,
        }
    );
    for p in tcp::ProfileName::ALL {
        assert!(!p.settings().pacing.enabled, "{p:?}");
    }
}

#[test]
fn pacing_ratios_and_burst_out_of_range_are_rejected_with_their_path() {
    for (extra, path) in [
        ("[tcp]\npacing_ss_ratio = 0", "tcp.pacing_ss_ratio"),
        ("[tcp]\npacing_ca_ratio = 1001", "tcp.pacing_ca_ratio"),
        (
            "[tcp]\npacing_initial_burst = 1001",
            "tcp.pacing_initial_burst",
        ),
        (
            "[workload.tcp]\npacing_ca_ratio = 0",
            "workload[0].tcp.pacing_ca_ratio",
        ),
    ] {
        let e = rejected_at(&bulk_with(extra), path);
        assert!(e.message.contains("out of range"), "{e}");
    }
}

#[test]
fn shapers_parse_in_queue_port_and_host_and_round_trip() {
    let text = bulk_with(
        r#"[queue]
shaper = { kind = "tbf", rate = "100Mbps", burst = "2621B" }
[[port]]
node = "sw"
peer = "h0"
shaper = { kind = "htb", rate = "100Mbps", burst = "15KiB", cburst = "1600B" }
[host]
shaper = { kind = "htb", rate = "1Gbps" }"#,
    );
    let sc = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let Some(ShaperSpec::Tbf(t)) = &sc.queue.shaper else {
        panic!("{:?}", sc.queue.shaper)
    };
    assert_eq!((t.rate.get(), t.burst.get()), (100_000_000, 2621));
    let Some(ShaperSpec::Htb(h)) = &sc.host.shaper else {
        panic!()
    };
    // Mininet's burst 15k and tc's cburst of mtu + rate / hz.
    assert_eq!((h.burst(), h.cburst()), (Bytes(15 * 1024), Bytes(1600)));
    assert_eq!(sc.ports[0].shaper.as_ref().map(|s| s.kind()), Some("htb"));
    assert_eq!(Scenario::from_json_str(&sc.to_json()).unwrap(), sc);
    // tc's default cburst grows by a byte per 8 Gb/s of rate.
    let fast = HtbSpec {
        rate: crate::units::BitsPerSec(40_000_000_000),
        burst: None,
        cburst: None,
    };
    assert_eq!(fast.cburst(), Bytes(1605));
}

#[test]
fn shaper_fields_are_refused_with_their_path() {
    let q = |shaper: &str| bulk_with(&format!("[queue]\nshaper = {shaper}"));
    for (shaper, path, says) in [
        (
            r#"{ kind = "tbff", rate = "1Gbps" }"#,
            "queue.shaper.kind",
            "tbf",
        ),
        (r#"{ rate = "1Gbps" }"#, "queue.shaper.kind", "missing"),
        (r#""tbf""#, "queue.shaper", "table"),
        (
            r#"{ kind = "tbf", burst = "3000B" }"#,
            "queue.shaper.rate",
            "missing",
        ),
        (
            r#"{ kind = "tbf", rate = "1Gbps" }"#,
            "queue.shaper.burst",
            "missing",
        ),
        (
            r#"{ kind = "tbf", rate = "1Gbps", burst = "3000B", cburst = "3000B" }"#,
            "queue.shaper.cburst",
            "not a field of a tbf shaper",
        ),
        (
            r#"{ kind = "htb", rate = "0Mbps" }"#,
            "queue.shaper.rate",
            "positive",
        ),
        (
            r#"{ kind = "htb", rate = "9Tbps" }"#,
            "queue.shaper.rate",
            "8Tbps",
        ),
        (
            r#"{ kind = "htb", rate = "1Gbps", burst = "0B" }"#,
            "queue.shaper.burst",
            "positive",
        ),
        (
            r#"{ kind = "htb", rate = "1Gbps", cburst = "0B" }"#,
            "queue.shaper.cburst",
            "positive",
        ),
        (
            r#"{ kind = "htb", rate = "1Gbps", burst = -5 }"#,
            "queue.shaper.burst",
            "-5",
        ),
        (
            r#"{ kind = "tbf", rate = "1Gbps", burst = "1000B" }"#,
            "queue.shaper.burst",
            "smaller than one packet; expected at least 1500B",
        ),
        (
            r#"{ kind = "tbf", rate = "1bps", burst = "1GiB" }"#,
            "queue.shaper.burst",
            "to fill at \"1bps\"",
        ),
        (
            r#"{ kind = "tbf", rate = "1kbps", burst = "1GiB" }"#,
            "queue.shaper.burst",
            "to fill at \"1kbps\"",
        ),
        (
            r#"{ kind = "htb", rate = "1bps", cburst = "18446744073709551615B" }"#,
            "queue.shaper.cburst",
            "more than 200 days",
        ),
    ] {
        let e = rejected_at(&q(shaper), path);
        assert!(e.message.contains(says), "{shaper}: {e}");
    }
    // The same checks in [[port]] and [host], each with its own path.
    let port = bulk_with(
        "[[port]]\nnode = \"sw\"\npeer = \"h1\"\nshaper = { kind = \"tbf\", rate = \"1Gbps\", burst = \"1KiB\" }",
    );
    rejected_at(&port, "port[0].shaper.burst");
    let host = bulk_with("[host]\nshaper = { kind = \"htb\", rate = \"1Gbps\", cburst = \"0B\" }");
    rejected_at(&host, "host.shaper.cburst");
}

#[test]
fn a_tbf_burst_must_hold_the_largest_packet_of_any_workload() {
    // A UDP workload's 9000-byte packets could never pass a 3000-byte
    // bucket (Linux's tbf drops them all at enqueue).
    let udp = "[[workload]]\nkind = \"udp\"\nsrc = \"h1\"\ndst = \"h0\"\nrate = \"1Mbps\"\npacket_size = \"9000B\"";
    let text = bulk_with(&format!(
        "{udp}\n[queue]\nshaper = {{ kind = \"tbf\", rate = \"1Gbps\", burst = \"3000B\" }}"
    ));
    let e = rejected_at(&text, "queue.shaper.burst");
    assert!(e.message.contains("9000B"), "{e}");
    // HTB sends any packet on non-negative tokens: a small burst is fine.
    let text = bulk_with(&format!(
        "{udp}\n[queue]\nshaper = {{ kind = \"htb\", rate = \"1Gbps\", burst = \"1000B\", cburst = \"1000B\" }}"
    ));
    assert!(Scenario::from_toml_str(&text).is_ok());
}

#[test]
fn a_shaper_too_slow_for_any_ack_to_return_in_time_is_refused() {
    // 1 kb/s: a 1500-byte packet takes 12 s at the sender's NIC, beyond a
    // max_rto of 10 s.
    let slow = "[tcp]\nmax_rto = \"10s\"\n[host]\nshaper = { kind = \"htb\", rate = \"1kbps\" }";
    let e = rejected_at(&bulk_with(slow), "host.shaper.rate");
    assert!(e.message.contains("max_rto"), "{e}");
    let slow = "[tcp]\nmax_rto = \"10s\"\n[queue]\nshaper = { kind = \"tbf\", rate = \"1kbps\", burst = \"1500B\" }";
    rejected_at(&bulk_with(slow), "queue.shaper.rate");
    // A [[port]] of the sender's in place of [host]'s is the one that counts.
    let fast = "[tcp]\nmax_rto = \"10s\"\n[host]\nshaper = { kind = \"htb\", rate = \"1kbps\" }\n[[port]]\nnode = \"h0\"\npeer = \"sw\"\nshaper = { kind = \"htb\", rate = \"1Gbps\" }\n[[port]]\nnode = \"h1\"\npeer = \"sw\"\nshaper = { kind = \"htb\", rate = \"1Gbps\" }";
    assert!(Scenario::from_toml_str(&bulk_with(fast)).is_ok());
}

#[test]
fn a_shaper_slower_than_every_link_sets_how_long_a_sized_run_is_estimated_to_last() {
    let sized = bulk_with("").replace("dst = \"h1\"", "dst = \"h1\"\nsize = \"1MiB\"");
    let sized = sized.replace("duration = \"10ms\"\n", "");
    let plain = Scenario::from_toml_str(&sized).unwrap().resolve().unwrap();
    let shaped = format!(
        "{sized}\n[queue]\nshaper = {{ kind = \"tbf\", rate = \"10Mbps\", burst = \"3000B\" }}"
    );
    let shaped = Scenario::from_toml_str(&shaped).unwrap().resolve().unwrap();
    // 1 MiB at 10 Mb/s: about 0.86 s, against under 10 ms at 1 Gb/s.
    let longer = shaped.estimate.horizon - plain.estimate.horizon;
    assert!(
        longer > Time::from_ms(840) && longer < Time::from_ms(880),
        "{longer}"
    );
}
