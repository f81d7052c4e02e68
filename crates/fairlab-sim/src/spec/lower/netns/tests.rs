use super::*;

fn machine() -> Machine {
    Machine {
        hz: 250,
        congestion_controls: vec!["reno".into(), "cubic".into(), "bbr".into()],
        qdiscs: ["htb", "tbf", "bfifo", "pfifo"].map(String::from).to_vec(),
    }
}

const INCAST: &str = r#"
[topology]
kind = "star"
hosts = ["client", "s1", "s2", "s3"]
rate = "100Mbps"
delay = "25us"
[queue]
limit = "32KiB"
[tcp]
min_rto = "200ms"
[[workload]]
kind = "incast"
client = "client"
sru = "64KiB"
rounds = 5
"#;

fn lowered(text: &str) -> Plan {
    lower_toml(text, &machine()).unwrap_or_else(|e| panic!("{e}"))
}

fn refusal(text: &str) -> String {
    match lower_toml(text, &machine()) {
        Ok(_) => panic!("lowered, expected a refusal: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_star_incast_has_a_namespace_per_node_a_veth_per_host_and_a_flow_per_server() {
    let p = lowered(INCAST);
    assert_eq!(p.nodes.len(), 5);
    assert_eq!(p.nodes[4].kind, "switch");
    assert_eq!(p.nodes[0].addr, "10.0.0.1");
    assert_eq!(p.links.len(), 4);
    assert_eq!(p.links[0].a_addr, "172.16.0.1");
    assert_eq!(p.links[1].b_addr, "172.16.0.6");
    assert_eq!(p.ports.len(), 8);
    assert_eq!(p.flows.len(), 3);
    // Servers send, the client opens.
    assert_eq!(
        (p.flows[0].src.as_str(), p.flows[0].dst.as_str()),
        ("s1", "client")
    );
    assert_eq!(p.flows[0].opener, "dst");
    assert_eq!(p.flows[2].port, BASE_PORT + 2);
    match &p.workloads[0] {
        PlanWorkload::Incast {
            sru_bytes, rounds, ..
        } => {
            assert_eq!(sru_bytes, &vec![65536; 3]);
            assert_eq!(*rounds, 5);
        }
        w => panic!("{w:?}"),
    }
}

#[test]
fn the_switch_port_toward_the_client_is_shaped_to_the_link_with_the_scenarios_byte_fifo() {
    let p = lowered(INCAST);
    let port = p
        .ports
        .iter()
        .find(|q| q.node == "sw" && q.peer == "client")
        .unwrap();
    assert_eq!(port.queue.kind, "bfifo");
    assert_eq!(port.queue.limit, 32 * 1024);
    assert_eq!(port.shaper.kind, "htb");
    assert_eq!(port.shaper.rate_bps, 100_000_000);
    assert_eq!(port.shaper.source, "link");
    // 200 us at 100 Mb/s is 2500 B, below two frames.
    assert_eq!(port.shaper.burst_bytes, LINK_BURST_MIN);
    // The host's NIC: shaped too (line-rate arrivals), its 1000-packet queue.
    let nic = p.ports.iter().find(|q| q.node == "s1").unwrap();
    assert_eq!((nic.queue.kind.as_str(), nic.queue.limit), ("pfifo", 1000));
    assert_eq!(nic.shaper.rate_bps, 100_000_000);
}

#[test]
fn routes_carry_each_pairs_tcp_settings_and_switches_route_every_host() {
    let p = lowered(INCAST);
    let r = p
        .routes
        .iter()
        .find(|r| r.node == "s1" && r.dst == "10.0.0.1/32")
        .unwrap();
    let t = r.tcp.as_ref().unwrap();
    assert_eq!(t.rto_min_ms, 200);
    // rfc: newreno, no delayed ACKs, 64 KiB window, IW 3, no timestamps.
    assert_eq!(t.congctl, "reno");
    assert!(t.quickack);
    assert_eq!(t.window, 65536);
    assert_eq!(t.initcwnd, 3);
    assert_eq!(t.advmss, 1460);
    assert_eq!(r.via, vec!["172.16.0.6".to_string()]);
    // Servers do not talk to each other: no settings on that route.
    let r = p
        .routes
        .iter()
        .find(|r| r.node == "s1" && r.dst == "10.0.0.3/32")
        .unwrap();
    assert!(r.tcp.is_none());
    let sw: Vec<_> = p.routes.iter().filter(|r| r.node == "sw").collect();
    assert_eq!(sw.len(), 4);
    assert_eq!(sw[0].via, vec!["172.16.0.1".to_string()]);
}

#[test]
fn a_sub_jiffy_min_rto_and_a_fine_clock_are_lowered_with_warnings() {
    let p = lowered(&INCAST.replace(
        "min_rto = \"200ms\"",
        "min_rto = \"200us\"\nresolution = \"1us\"",
    ));
    let t = p.routes.iter().find_map(|r| r.tcp.clone()).unwrap();
    // One jiffy at 250 Hz.
    assert_eq!(t.rto_min_ms, 4);
    assert!(
        p.warnings
            .iter()
            .any(|w| w.starts_with("tcp.min_rto: \"200us\" rounded up to 4 ms")),
        "{:?}",
        p.warnings
    );
    assert!(
        p.warnings.iter().any(|w| w.starts_with("tcp.resolution:")),
        "{:?}",
        p.warnings
    );
    assert!(p
        .warnings
        .iter()
        .any(|w| w.starts_with("topology.delay: \"25us\" not added")));
    let p = lowered(&INCAST.replace("[queue]", "[host]\nsend_jitter = \"1us\"\n[queue]"));
    assert!(p
        .warnings
        .iter()
        .any(|w| w.starts_with("host.send_jitter: \"1us\" not added")));
}

#[test]
fn what_a_kernel_cannot_do_is_refused_by_field_path() {
    let cases = [
        (
            "[queue]\nlimit = \"32KiB\"",
            "[queue]\nlimit = \"32KiB\"\ndiscipline = \"hcf\"",
            "queue.discipline: discipline \"hcf\" is not supported",
        ),
        (
            "min_rto = \"200ms\"",
            "min_rto = \"200ms\"\nhandshake = false",
            "tcp.handshake: false is not supported",
        ),
        (
            "min_rto = \"200ms\"",
            "min_rto = \"200ms\"\nresolution = \"jiffy\"\nhz = 1000",
            "tcp.hz: 1000 is not this kernel's clock",
        ),
        (
            "min_rto = \"200ms\"",
            "min_rto = \"200ms\"\nprofile = \"ns2\"",
            "tcp.profile: \"ns2\" is not supported",
        ),
        (
            "min_rto = \"200ms\"",
            "min_rto = \"200ms\"\ncc = \"vegas\"",
            "tcp.cc: \"vegas\" needs the kernel's tcp_vegas module",
        ),
        (
            "delay = \"25us\"",
            "delay = \"5ms\"",
            "topology.delay: \"5000us\" is not supported",
        ),
        (
            "[queue]\nlimit = \"32KiB\"",
            "[queue]\nlimit = \"32KiB\"\ndiscipline = \"red\"",
            "queue.discipline: discipline \"red\" needs the kernel's sch_red",
        ),
        (
            "[queue]\nlimit = \"32KiB\"",
            "[queue]\nlimit = \"32KiB\"\necn_threshold = \"10KiB\"",
            "queue.ecn_threshold: not supported",
        ),
        (
            "[queue]",
            "[host]\nprofile = \"linux-3.12\"\n[queue]",
            "host.profile: \"linux-3.12\" is not supported",
        ),
        (
            "[queue]",
            "[host]\nring = 255\n[queue]",
            "host.ring: not supported",
        ),
        (
            "[queue]",
            "[host]\nnic_queues = 4\nnic_root = \"fq\"\n[queue]",
            "host.nic_root: \"fq\" is not supported",
        ),
        (
            "[queue]",
            "[host]\ntxq_select = \"cached\"\n[queue]",
            "host.txq_select: \"cached\" is not supported",
        ),
        (
            "min_rto = \"200ms\"",
            "min_rto = \"200ms\"\nprofile = \"linux-2.6.32\"",
            "tcp.profile: \"linux-2.6.32\" is not supported",
        ),
    ];
    for (from, to, want) in cases {
        let text = INCAST.replace(from, to);
        assert_ne!(text, INCAST, "{from}");
        let e = refusal(&text);
        assert!(e.starts_with(want), "{e}\nexpected {want}");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn red_and_sfq_lower_where_the_kernel_has_them() {
    let mut m = machine();
    m.qdiscs.push("red".into());
    let p = lower_toml(
        &INCAST.replace(
            "limit = \"32KiB\"",
            "limit = \"32KiB\"\ndiscipline = \"red\"",
        ),
        &m,
    )
    .unwrap();
    let port = p.ports.iter().find(|q| q.node == "sw").unwrap();
    assert_eq!(port.queue.kind, "red");
    assert_eq!(port.queue.params["min_bytes"], 5.0 * 1500.0);
}

#[test]
fn a_dumbbell_routes_across_the_bottleneck_and_an_ecmp_leaf_spine_has_multipath_routes() {
    let p = lowered(
        r#"
duration = "1s"
[topology]
kind = "dumbbell"
left = 2
right = 1
rate = "100Mbps"
delay = "10us"
bottleneck_rate = "50Mbps"
bottleneck_delay = "10us"
[[workload]]
kind = "bulk"
src = "l0"
dst = "r0"
"#,
    );
    let bottleneck = p
        .ports
        .iter()
        .find(|q| q.node == "swL" && q.peer == "swR")
        .unwrap();
    assert_eq!(bottleneck.shaper.rate_bps, 50_000_000);
    let r = p
        .routes
        .iter()
        .find(|r| r.node == "swL" && r.dst == "10.0.0.3/32")
        .unwrap();
    assert_eq!(r.links, vec![bottleneck.link]);
    assert_eq!(p.flows[0].opener, "src");
    let p = lowered(
        r#"
duration = "1s"
[topology]
kind = "leaf_spine"
leaves = 2
spines = 2
hosts = 1
rate = "100Mbps"
delay = "10us"
[[workload]]
kind = "bulk"
src = "h0_0"
dst = "h1_0"
"#,
    );
    let r = p
        .routes
        .iter()
        .find(|r| r.node == "leaf0" && r.dst == format!("{}/32", p.nodes[1].addr))
        .unwrap();
    assert_eq!(r.via.len(), 2, "{r:?}");
    assert!(p
        .sysctls
        .iter()
        .any(|s| s.node == "leaf0" && s.key == "net.ipv4.fib_multipath_hash_policy"));
}

#[test]
fn two_workloads_with_different_route_settings_between_one_pair_are_refused() {
    let text = r#"
duration = "1s"
[topology]
kind = "star"
hosts = 2
rate = "100Mbps"
delay = "10us"
[[workload]]
kind = "bulk"
src = "h0"
dst = "h1"
[[workload]]
kind = "bulk"
src = "h0"
dst = "h1"
[workload.tcp]
min_rto = "10ms"
"#;
    let e = refusal(text);
    assert!(
        e.starts_with("workload[1].tcp: TCP settings differ from workload[0]'s"),
        "{e}"
    );
}

#[test]
fn the_plan_serializes_to_json() {
    let p = lowered(INCAST);
    let j = serde_json::to_value(&p).unwrap();
    assert_eq!(j["workloads"][0]["kind"], "incast");
    assert_eq!(j["ports"][0]["queue"]["kind"], "pfifo");
}

#[test]
fn tcp_small_queues_is_the_tsq_sysctl_and_pfifo_fast_a_fifo_with_a_warning() {
    let p = lowered(&INCAST.replace(
        "min_rto = \"200ms\"",
        "min_rto = \"200ms\"\nsmall_queues = \"128KiB\"\n[host]\nnic_qdisc = \"pfifo_fast\"",
    ));
    assert!(p
        .sysctls
        .iter()
        .any(|s| s.key == "net.ipv4.tcp_limit_output_bytes" && s.value == "131072"));
    assert!(p
        .warnings
        .iter()
        .any(|w| w.starts_with("host.nic_qdisc: \"pfifo_fast\" as pfifo")));
}

#[test]
fn a_multi_queue_nic_is_a_host_port_with_one_queue_per_transmit_queue() {
    let p = lowered(&INCAST.replace("[queue]", "[host]\nnic_queues = 8\n[queue]"));
    let nic = p.ports.iter().find(|q| q.node == "s1").unwrap();
    assert_eq!(nic.queues, 8);
    let sw = p.ports.iter().find(|q| q.node == "sw").unwrap();
    assert_eq!(sw.queues, 1);
    let e = refusal(&INCAST.replace("[queue]", "[host]\nnic_queues = 100\n[queue]"));
    assert!(
        e.starts_with("host.nic_queues: 100 is not supported"),
        "{e}"
    );
}

#[test]
fn a_drop_trace_captures_the_switchs_other_interfaces_and_the_ports_own() {
    let p = lowered(&INCAST.replace(
        "rounds = 5",
        "rounds = 5\n[metrics]\ndrop_trace = \"sw:client\"",
    ));
    let d = p.drop_trace.as_ref().unwrap();
    assert_eq!(
        (d.node.as_str(), d.peer.as_str(), d.link, d.end.as_str()),
        ("sw", "client", 0, "b")
    );
    let peers: Vec<&str> = d.inputs.iter().map(|i| i.peer.as_str()).collect();
    assert_eq!(peers, ["s1", "s2", "s3"]);
    // The switch's end of the link to s1 (link 1: s1 is end a).
    assert_eq!((d.inputs[0].link, d.inputs[0].end.as_str()), (1, "b"));
}

/// Two Radon streams into h0 through a switch whose port to h0 is shaped
/// below the links: the shaper is the streams' capacity.
const RADON: &str = r#"
seed = 1
duration = "2s"
[topology]
kind = "star"
hosts = ["h0", "h1", "h2"]
rate = "100Mbps"
delay = "1us"
[[port]]
node = "sw"
peer = "h0"
shaper = { kind = "htb", rate = "80Mbps" }
[link]
framing = "38B"
[radon]
admission = true
[[workload]]
kind = "udp"
transport = "radon"
src = "h1"
dst = "h0"
rate = "50Mbps"
packet_size = "1500B"
packets = 1000
[[workload]]
kind = "udp"
transport = "radon"
src = "h2"
dst = "h0"
start = "10ms"
rate = "40Mbps"
packet_size = "1500B"
stop = "1s"
"#;

fn radon_streams(p: &Plan) -> Vec<&PlanRadon> {
    p.workloads
        .iter()
        .filter_map(|w| match w {
            PlanWorkload::Radon(r) => Some(r),
            _ => None,
        })
        .collect()
}

#[test]
fn a_radon_stream_runs_the_simulators_configuration_at_its_paths_slowest_shaper() {
    let p = lowered(RADON);
    let r = radon_streams(&p);
    assert_eq!(r.len(), 2);
    let a = r[0];
    assert_eq!(a.capacity_bps, 80e6);
    assert_eq!(a.path, ["h1:sw", "sw:h0"]);
    assert_eq!(
        (a.port, a.payload_bytes, a.wire_bytes),
        (RADON_PORT, 1472, 1538)
    );
    assert_eq!((a.packets, r[1].stop_s), (Some(1000), Some(1.0)));
    assert_eq!(p.flows[0].kind, "radon");
    // The simulator's lowering gives the same configuration on that path.
    let sc = crate::spec::Scenario::from_toml_str(RADON).unwrap();
    let crate::spec::WorkloadSpec::Udp(u) = &sc.workloads[0] else {
        panic!("a udp workload")
    };
    let s = sc.radon.overridden_by(u.radon.as_ref()).settings();
    let plan = crate::spec::lower::radon::plan(u, &s, 80e6, 38);
    let (sender, receiver) = crate::spec::lower::radon::configs(&plan, &s, false);
    assert_eq!((a.sender, a.receiver), (sender, receiver));
    // 50 Mb/s of 1,472-byte payloads on 80 Mb/s counting 1,538 wire bytes.
    assert!((a.utilization - 50.0 * 1538.0 / 1472.0 / 80.0).abs() < 1e-12);
}

#[test]
fn admission_refuses_the_stream_that_overfills_a_port_in_start_order() {
    let p = lowered(RADON);
    let r = radon_streams(&p);
    assert_eq!(r[0].refused_at, None);
    let why = r[1].refused_at.as_deref().expect("refused");
    assert!(
        why.starts_with("sw:h0 (admitted 0.6530 + asked 0.5224 > 1.0000)"),
        "{why}"
    );
    // Without admission both run.
    let p = lowered(&RADON.replace("admission = true", "admission = false"));
    assert!(radon_streams(&p).iter().all(|r| r.refused_at.is_none()));
}

#[test]
fn framing_is_the_shapers_overhead_beyond_the_ethernet_header() {
    let p = lowered(RADON);
    assert!(p.ports.iter().all(|q| q.shaper.overhead_bytes == 24));
    let e = refusal(&RADON.replace("\"38B\"", "\"10B\""));
    assert!(
        e.starts_with("link.framing: \"10B\" is less than the Ethernet header"),
        "{e}"
    );
    let p = lowered(&RADON.replace("framing = \"38B\"", ""));
    assert!(p.ports.iter().all(|q| q.shaper.overhead_bytes == 0));
}

#[test]
fn a_plain_udp_streams_end_is_lowered() {
    let text = RADON.replace("transport = \"radon\"\n", "");
    let p = lowered(&text);
    match &p.workloads[0] {
        PlanWorkload::Udp {
            packets, stop_s, ..
        } => assert_eq!((*packets, *stop_s), (Some(1000), None)),
        w => panic!("{w:?}"),
    }
}
