use super::*;

/// FAST'08 (Phanishayee et al.): one client reading 256 KB SRUs from 4
/// servers over 1 Gb/s links, a 32-packet switch buffer, ns-2's NewReno
/// agents with bugFix_ false, the application's warm-up exchange.
const FAST08: &str = r#"
name = "fast08"
seed = 3
[topology]
kind = "star"
hosts = ["client", "s1", "s2", "s3", "s4"]
rate = "1Gbps"
delay = "25us"
[queue]
limit = "32pkt"
[tcp]
profile = "ns2"
cc = "newreno"
recover_check = false
[[workload]]
kind = "incast"
client = "client"
sru = "256000B"
rounds = 40
warmup = true
"#;

const DUMBBELL: &str = r#"
duration = "2s"
[topology]
kind = "dumbbell"
left = 2
right = 2
rate = "1Gbps"
delay = "10us"
bottleneck_rate = "100Mbps"
bottleneck_delay = "1ms"
[queue]
limit = "64KiB"
[tcp]
profile = "ns2"
[[workload]]
kind = "bulk"
src = "l0"
dst = "r0"
[[workload]]
kind = "bulk"
src = "l1"
dst = "r1"
size = "1MB"
start = "10ms"
[workload.tcp]
sack = true
delayed_ack = true
"#;

fn lowered(text: &str) -> Plan {
    lower_toml(text).unwrap_or_else(|e| panic!("{e}"))
}

fn refusal(text: &str) -> String {
    match lower_toml(text) {
        Ok(p) => panic!("lowered, expected a refusal: {text}\n{p:?}"),
        Err(e) => e.to_string(),
    }
}

fn link<'a>(p: &'a Plan, a: &str, b: &str) -> &'a PlanLink {
    p.links
        .iter()
        .find(|l| l.a == a && l.b == b)
        .unwrap_or_else(|| panic!("no link {a}-{b}"))
}

#[test]
fn the_fast08_incast_lowers_to_its_nodes_queues_agent_and_application() {
    let p = lowered(FAST08);
    assert_eq!((p.name.as_str(), p.seed, p.duration_s), ("fast08", 3, None));
    let kinds: Vec<(&str, &str)> = p
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.kind.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("client", "host"),
            ("s1", "host"),
            ("s2", "host"),
            ("s3", "host"),
            ("s4", "host"),
            ("sw", "switch")
        ]
    );
    assert_eq!(p.links.len(), 5);
    let l = link(&p, "client", "sw");
    assert_eq!((l.rate_bps, l.delay_s), (1_000_000_000, 25e-6));
    // The switch's port toward the client: the scenario's 32 packets.
    assert_eq!(l.queue_ba, droptail(BufferLimit::Packets(32)));
    assert_eq!(l.queue_ba.limit_bytes, None);
    // Every host's NIC: 1000 packets (host.nic_queue's default).
    for h in ["client", "s1", "s4"] {
        let q = &link(&p, h, "sw").queue_ab;
        assert_eq!((q.kind.as_str(), q.limit_pkts), ("droptail", Some(1000)));
    }
    assert_eq!(p.tcp.len(), 1);
    let a = &p.tcp[0];
    assert_eq!((a.agent.as_str(), a.sink.as_str()), ("Newreno", "TCPSink"));
    let v = |k: &str| a.vars.get(k).unwrap_or_else(|| panic!("no {k}")).clone();
    assert_eq!(v("packetSize_"), json!(1000));
    assert_eq!(v("window_"), json!(20));
    assert_eq!(v("windowInit_"), json!(2));
    assert_eq!(v("minrto_"), json!(0.2));
    assert_eq!(v("maxrto_"), json!(60.0));
    assert_eq!(v("rtxcur_init_"), json!(3.0));
    assert_eq!(v("tcpTick_"), json!(0.01));
    assert_eq!(v("bugFix_"), json!(0));
    assert_eq!(v("singledup_"), json!(1));
    assert_eq!(v("numdupacks_"), json!(3));
    assert_eq!(v("max_ssthresh_"), json!(0));
    assert_eq!(v("partial_ack_"), json!(0));
    assert!(a.sink_vars.is_empty());
    assert_eq!(
        p.workloads,
        [PlanWorkload::Incast {
            client: "client".into(),
            servers: ["s1", "s2", "s3", "s4"].map(String::from).to_vec(),
            sru_bytes: vec![256_000; 4],
            request_bytes: 100,
            rounds: 40,
            warmup: true,
            request_order: "index",
            start_s: 0.0,
            tcp: 0,
        }]
    );
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn the_plan_json_has_the_fields_python_reads() {
    let v: Value = serde_json::from_str(&lowered(FAST08).to_json()).unwrap();
    assert_eq!(v["tcp"][0]["agent"], "Newreno");
    assert_eq!(v["tcp"][0]["vars"]["packetSize_"], 1000);
    assert_eq!(v["links"][0]["queue_ab"]["kind"], "droptail");
    assert_eq!(v["links"][0]["queue_ba"]["limit_pkts"], 32);
    assert!(v["links"][0]["queue_ba"]["limit_bytes"].is_null());
    // A DropTail queue has no vars key.
    assert!(v["links"][0]["queue_ba"].get("vars").is_none());
    assert_eq!(v["workloads"][0]["kind"], "incast");
    assert_eq!(v["workloads"][0]["sru_bytes"][3], 256000);
    assert_eq!(v["workloads"][0]["tcp"], 0);
    assert!(v["duration_s"].is_null());
    assert!(v["throughput_bin_s"].is_null());
    assert_eq!(v["warnings"], json!([]));
    assert_eq!(v["nodes"][5], json!({"name": "sw", "kind": "switch"}));
}

#[test]
fn a_dumbbell_with_two_bulk_flows_lowers_with_two_agents_and_a_byte_buffer() {
    let p = lowered(DUMBBELL);
    assert_eq!(p.duration_s, Some(2.0));
    assert_eq!(p.nodes.len(), 6);
    let b = link(&p, "swL", "swR");
    assert_eq!((b.rate_bps, b.delay_s), (100_000_000, 0.001));
    assert_eq!(b.queue_ab.limit_bytes, Some(65536));
    assert_eq!(b.queue_ab.limit_pkts, None);
    assert_eq!(p.tcp.len(), 2);
    assert_eq!(
        (p.tcp[1].agent.as_str(), p.tcp[1].sink.as_str()),
        ("Sack1", "TCPSink/Sack1/DelAck")
    );
    assert_eq!(p.tcp[1].sink_vars["interval_"], json!(0.04));
    // ns2's cc is newreno: Sack1 handles partial ACKs NewReno's way.
    assert_eq!(p.tcp[1].vars["partial_ack_"], json!(1));
    match (&p.workloads[0], &p.workloads[1]) {
        (
            PlanWorkload::Bulk {
                bytes: None,
                tcp: 0,
                ..
            },
            PlanWorkload::Bulk {
                bytes: Some(1_000_000),
                start_s,
                tcp: 1,
                ..
            },
        ) => assert_eq!(*start_s, 0.01),
        w => panic!("{w:?}"),
    }
    assert!(
        p.warnings
            .iter()
            .any(|w| w.starts_with("workload[1].tcp.sack: true as Agent/TCP/Sack1")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn red_lowers_to_ns2s_variables_and_a_byte_limit_warns() {
    let p = lowered(&FAST08.replace(
        "[queue]\nlimit = \"32pkt\"",
        "[queue]\nlimit = \"32pkt\"\ndiscipline = \"red\"\n[queue.red]\nmin_th = 4.0\nmax_th = 12.0\nmax_p = 0.2\necn = true",
    ));
    let q = &link(&p, "client", "sw").queue_ba;
    assert_eq!((q.kind.as_str(), q.limit_pkts), ("red", Some(32)));
    assert_eq!(q.vars["thresh_"], json!(4.0));
    assert_eq!(q.vars["maxthresh_"], json!(12.0));
    assert_eq!(q.vars["linterm_"], json!(5.0));
    assert_eq!(q.vars["q_weight_"], json!(0.002));
    assert_eq!(q.vars["setbit_"], json!(1));
    assert_eq!(q.vars["gentle_"], json!(1));
    assert_eq!(q.vars["queue-in-bytes_"], json!(0));
    assert_eq!(q.vars["mean_pktsize_"], json!(1040));
    // Hosts keep their DropTail NIC queues.
    assert_eq!(link(&p, "client", "sw").queue_ab.kind, "droptail");
    let p = lowered(&FAST08.replace(
        "limit = \"32pkt\"",
        "limit = \"32KiB\"\ndiscipline = \"red\"",
    ));
    let q = &link(&p, "s1", "sw").queue_ba;
    assert_eq!(q.vars["queue-in-bytes_"], json!(1));
    assert_eq!(q.limit_bytes, Some(32768));
    assert!(
        p.warnings
            .iter()
            .any(|w| w.starts_with("queue.limit: RED with a limit in bytes")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn a_ports_own_limit_and_a_links_buffer_set_that_direction_only() {
    let p = lowered(&FAST08.replace(
        "[tcp]",
        "[[port]]\nnode = \"sw\"\npeer = \"client\"\nlimit = \"8pkt\"\n[tcp]",
    ));
    assert_eq!(link(&p, "client", "sw").queue_ba.limit_pkts, Some(8));
    assert_eq!(link(&p, "s1", "sw").queue_ba.limit_pkts, Some(32));
    let explicit = r#"
[topology]
kind = "explicit"
hosts = ["a", "b"]
switches = ["x", "y"]
links = [
  { a = "a", b = "x", rate = "1Gbps", delay = "1us" },
  { a = "x", b = "y", rate = "1Gbps", delay = "1us", buffer_a = "5pkt" },
  { a = "y", b = "b", rate = "1Gbps", delay = "1us" },
]
[tcp]
profile = "ns2"
[[workload]]
kind = "short"
src = "a"
dst = "b"
count = 3
packets = 4
spread = "1ms"
"#;
    let p = lowered(explicit);
    let l = link(&p, "x", "y");
    assert_eq!(l.queue_ab.limit_pkts, Some(5));
    // The other end keeps [queue] limit's 64 KiB.
    assert_eq!(l.queue_ba.limit_bytes, Some(65536));
    assert_eq!(
        p.workloads[0],
        PlanWorkload::Short {
            src: "a".into(),
            dst: "b".into(),
            count: 3,
            bytes: 4000,
            packets: Some(4),
            spread_s: 0.001,
            start_s: 0.0,
            tcp: 0,
        }
    );
}

#[test]
fn udp_lowers_as_cbr_or_poisson_without_an_agent() {
    let p = lowered(&DUMBBELL.replace(
        "[[workload]]\nkind = \"bulk\"\nsrc = \"l0\"",
        "[[workload]]\nkind = \"udp\"\nsrc = \"l0\"\ndst = \"r0\"\nrate = \"10Mbps\"\narrivals = \"periodic\"\npacket_size = \"1000B\"\n[[workload]]\nkind = \"bulk\"\nsrc = \"l0\"",
    ));
    assert_eq!(
        p.workloads[0],
        PlanWorkload::Udp {
            src: "l0".into(),
            dst: "r0".into(),
            rate_bps: 10_000_000,
            packet_bytes: 1000,
            arrivals: "cbr".into(),
            start_s: 0.0,
            stop_s: None,
        }
    );
    // The TCP workloads' agents only.
    assert_eq!(p.tcp.len(), 2);
}

#[test]
fn a_fat_trees_ecmp_is_refused_and_first_is_lowered_with_a_warning() {
    let ft = r#"
[topology]
kind = "fat_tree"
k = 4
rate = "1Gbps"
delay = "1us"
[tcp]
profile = "ns2"
[[workload]]
kind = "bulk"
src = "h0_0_0"
dst = "h3_1_1"
size = "100KB"
"#;
    let e = refusal(ft);
    assert!(
        e.starts_with("routing.selection: \"ecmp\" is not supported by the ns-2 backend"),
        "{e}"
    );
    let p = lowered(&ft.replace("[tcp]", "[routing]\nselection = \"first\"\n[tcp]"));
    assert_eq!(p.nodes.len(), 16 + 20);
    assert_eq!(p.links.len(), 48);
    assert!(
        p.warnings
            .iter()
            .any(|w| w.starts_with("routing.selection: \"first\" as ns-2's static routes")),
        "{:?}",
        p.warnings
    );
    // A star has one path per pair: its default "ecmp" is no choice.
    assert!(lowered(FAST08).warnings.is_empty());
}

#[test]
fn what_ns2_cannot_run_is_refused_by_field_path() {
    let q = "[queue]\nlimit = \"32pkt\"";
    let t = "recover_check = false";
    let cases = [
        (q, "[queue]\nlimit = \"32pkt\"\ndiscipline = \"sfq\"", "queue.discipline: discipline \"sfq\" is not supported by the ns-2 backend"),
        (q, "[queue]\nlimit = \"32pkt\"\ndiscipline = \"hcf\"", "queue.discipline: discipline \"hcf\""),
        (q, "[queue]\nlimit = \"32pkt\"\necn_threshold = \"10pkt\"", "queue.ecn_threshold: not supported by the ns-2 backend"),
        (q, "[queue]\nlimit = \"32pkt\"\nshaper = { kind = \"htb\", rate = \"500Mbps\" }", "queue.shaper: not supported"),
        (q, "[host]\nsend_jitter = \"1us\"\n[queue]\nlimit = \"32pkt\"", "host.send_jitter: \"1us\" is not supported by the ns-2 backend (ns-2's agents hand each packet to their node's link at once: they have no send jitter)"),
        (q, "[host]\nnic_queues = 4\n[queue]\nlimit = \"32pkt\"", "host.nic_queues: 4 is not supported"),
        (q, "[host]\nring = 16\n[queue]\nlimit = \"32pkt\"", "host.ring: not supported"),
        (q, "[switch]\nforwarding_jitter = \"1us\"\n[queue]\nlimit = \"32pkt\"", "switch.forwarding_jitter: \"1us\" is not supported"),
        (q, "[metrics]\ntrace = true\n[queue]\nlimit = \"32pkt\"", "metrics.trace: not supported by the ns-2 backend yet"),
        (q, "[metrics]\ndrop_trace = \"sw:client\"\n[queue]\nlimit = \"32pkt\"", "metrics.drop_trace: not supported"),
        (q, "[metrics]\npcap = [\"sw:client\"]\n[queue]\nlimit = \"32pkt\"", "metrics.pcap: not supported"),
        ("profile = \"ns2\"", "profile = \"linux\"", "tcp.profile: \"linux\" is not supported by the ns-2 backend (it runs ns-2's one-way TCP agents, whose defaults are the \"ns2\" profile); expected tcp.profile = \"ns2\""),
        ("cc = \"newreno\"", "cc = \"cubic\"", "tcp.cc: \"cubic\" is not supported by the ns-2 backend"),
        (t, "recover_check = false\nhandshake = true", "tcp.handshake: true is not supported by the ns-2 backend (one-way agents start established"),
        (t, "recover_check = false\npacing = true", "tcp.pacing: true is not supported"),
        (t, "recover_check = false\nrandomize_rto = true", "tcp.randomize_rto: true is not supported"),
        (t, "recover_check = false\nrto_random_delay = \"5us\"", "tcp.rto_random_delay: a delay is not supported"),
        (t, "recover_check = false\necn = true", "tcp.ecn: true is not supported"),
        (t, "recover_check = false\nrtt_timestamps = true", "tcp.rtt_timestamps: true is not supported"),
        (t, "recover_check = false\nmax_backoff = 64", "tcp.max_backoff: a limit is not supported"),
        (t, "recover_check = false\ncwnd_validation = true", "tcp.cwnd_validation: true is not supported"),
        (t, "recover_check = false\nmax_retransmits = 15", "tcp.max_retransmits: a limit is not supported by the ns-2 backend (an agent never gives up); expected 255"),
        (t, "recover_check = false\nclock_granularity = \"1ms\"", "tcp.clock_granularity: \"1ms\" is not supported"),
        ("warmup = true", "warmup = true\nresponse_jitter = \"1ms\"", "workload[0].response_jitter: \"1ms\" is not supported"),
        ("warmup = true", "warmup = true\n[workload.tcp]\nslow_start_after_idle = true", "workload[0].tcp.slow_start_after_idle: true is not supported"),
        ("warmup = true", "warmup = true\n[workload.tcp]\nprofile = \"rfc\"", "workload[0].tcp.profile: \"rfc\" is not supported"),
    ];
    for (from, to, want) in cases {
        assert!(FAST08.contains(from), "{from}");
        let e = refusal(&FAST08.replace(from, to));
        assert!(e.starts_with(want), "{to}:\n  got  {e}\n  want {want}");
        assert!(!e.contains('\n'), "{e}");
    }
    // No profile at all: the default "rfc", named at tcp.profile.
    let e = refusal(&FAST08.replace("profile = \"ns2\"\n", ""));
    assert!(
        e.starts_with("tcp.profile: \"rfc\" is not supported"),
        "{e}"
    );
    let nfs = FAST08.replace(
        "kind = \"incast\"\nclient = \"client\"\nsru = \"256000B\"\nrounds = 40\nwarmup = true",
        "kind = \"nfs_read\"\nserver = \"s1\"\nclient = \"client\"\nfile_size = \"1MB\"",
    );
    let e = refusal(&nfs);
    assert!(
        e.starts_with("workload[0].kind: \"nfs_read\" is not supported by the ns-2 backend"),
        "{e}"
    );
}

#[test]
fn a_jiffy_clock_and_a_window_of_part_segments_are_lowered_with_warnings() {
    let p = lowered(&FAST08.replace(
        "recover_check = false",
        "recover_check = false\nhz = 1000\nreceive_window = \"20500B\"\nslow_start = false\ndelayed_ack = true",
    ));
    let a = &p.tcp[0];
    assert_eq!(a.vars["tcpTick_"], json!(0.001));
    assert_eq!(a.vars["window_"], json!(20));
    assert_eq!(a.vars["max_ssthresh_"], json!(1));
    assert_eq!(a.sink, "TCPSink/DelAck");
    for w in [
        "tcp.hz: a 1000 Hz jiffy clock",
        "tcp.receive_window: \"20500B\" as window_ 20",
    ] {
        assert!(
            p.warnings.iter().any(|x| x.starts_with(w)),
            "{w}: {:?}",
            p.warnings
        );
    }
    // A finer tick: ns-2's tcpTick_.
    let p = lowered(&FAST08.replace(
        "recover_check = false",
        "recover_check = false\nresolution = \"1us\"",
    ));
    assert_eq!(p.tcp[0].vars["tcpTick_"], json!(1e-6));
}

#[test]
fn workloads_with_equal_settings_share_one_agent() {
    let two = format!(
        "{FAST08}\n[[workload]]\nkind = \"bulk\"\nsrc = \"s1\"\ndst = \"s2\"\nsize = \"1MB\"\n[[workload]]\nkind = \"bulk\"\nsrc = \"s2\"\ndst = \"s3\"\nsize = \"1MB\"\n[workload.tcp]\ninitial_window = 4\n"
    );
    let p = lowered(&two);
    assert_eq!(p.tcp.len(), 2);
    let tcps: Vec<usize> = p
        .workloads
        .iter()
        .map(|w| match w {
            PlanWorkload::Incast { tcp, .. } | PlanWorkload::Bulk { tcp, .. } => *tcp,
            w => panic!("{w:?}"),
        })
        .collect();
    assert_eq!(tcps, [0, 0, 1]);
    assert_eq!(p.tcp[1].vars["windowInit_"], json!(4));
}

/// The incast's request order reaches the plan: the harness shuffles each
/// round's requests with "random", as the authors' client does.
#[test]
fn the_request_order_reaches_the_plan() {
    let text = FAST08.replace("warmup = true", "warmup = true\nrequest_order = \"random\"");
    match &lowered(&text).workloads[0] {
        PlanWorkload::Incast { request_order, .. } => assert_eq!(*request_order, "random"),
        w => panic!("{w:?}"),
    }
}
