//! The host's sending stack: per transmit queue a qdisc feeding a ring,
//! the NIC's arbitration, how a socket picks its queue, the era profiles.

use fairlab_sim::{RunResult, Scenario};

/// One server `srv` sending `flows` long flows, one to each client behind
/// a switch, every link 1 Gb/s: the server's NIC is the bottleneck.
fn server(flows: usize, host: &str, tcp: &str, duration: &str) -> Scenario {
    let mut hosts = vec!["\"srv\"".to_string()];
    hosts.extend((0..flows).map(|i| format!("\"c{i}\"")));
    let mut text = format!(
        "duration = \"{duration}\"\n[topology]\nkind = \"star\"\nhosts = [{}]\nrate = \"1Gbps\"\ndelay = \"25us\"\n[queue]\nlimit = \"4MiB\"\n[host]\n{host}\n[tcp]\n{tcp}\n",
        hosts.join(", ")
    );
    for i in 0..flows {
        text.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"srv\"\ndst = \"c{i}\"\n"
        ));
    }
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn run(sc: &Scenario, seed: u64) -> RunResult {
    fairlab_sim::run(sc, Some(seed)).unwrap()
}

/// Per flow: (transmit queue, goodput).
fn per_flow(r: &RunResult) -> Vec<(i64, f64)> {
    let f = r.table("flows");
    f.i64s("tx_queue")
        .iter()
        .zip(f.f64s("goodput_bps"))
        .map(|(&q, &g)| (q, g))
        .collect()
}

fn max_over_min(g: &[(i64, f64)]) -> f64 {
    let hi = g.iter().map(|x| x.1).fold(0.0, f64::max);
    let lo = g.iter().map(|x| x.1).fold(f64::MAX, f64::min);
    hi / lo
}

const LINUX_CUBIC: &str = "profile = \"linux\"";

/// `flows` flows from `srv` (1 Gb/s) to `c0` over a 100 Mb/s bottleneck
/// whose switch port holds `buffer`: losses and timeouts there.
fn into_one(flows: usize, host: &str, tcp: &str, buffer: &str) -> Scenario {
    let mut text = format!(
        "duration = \"2s\"\n[topology]\nkind = \"dumbbell\"\nleft = [\"srv\"]\nright = [\"c0\"]\nrate = \"1Gbps\"\ndelay = \"25us\"\nbottleneck_rate = \"100Mbps\"\nbottleneck_delay = \"25us\"\n[queue]\nlimit = \"{buffer}\"\n[host]\n{host}\n[tcp]\n{tcp}\n"
    );
    for _ in 0..flows {
        text.push_str("[[workload]]\nkind = \"bulk\"\nsrc = \"srv\"\ndst = \"c0\"\n");
    }
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Flows per queue among `flows`.
fn occupancy(flows: &[(i64, f64)]) -> std::collections::BTreeMap<i64, usize> {
    let mut m = std::collections::BTreeMap::new();
    for (q, _) in flows {
        *m.entry(*q).or_insert(0) += 1;
    }
    m
}

#[test]
fn a_flow_alone_in_its_queue_gets_twice_one_sharing_a_queue_with_hash() {
    // Five CUBIC flows from one server through an 8-queue NIC served one
    // packet per turn: every non-empty queue gets an equal share of the
    // wire, split among its flows. Each flow's goodput times its queue's
    // flows is the same within a few percent, whatever the placement.
    let mut shared = 0;
    for seed in 1..=6 {
        let r = run(&server(5, "nic_queues = 8", LINUX_CUBIC, "2s"), seed);
        let flows = per_flow(&r);
        let occ = occupancy(&flows);
        let per_queue: Vec<f64> = flows.iter().map(|(q, g)| g * occ[q] as f64).collect();
        let mean = per_queue.iter().sum::<f64>() / per_queue.len() as f64;
        for (i, x) in per_queue.iter().enumerate() {
            assert!(
                (x / mean - 1.0).abs() < 0.03,
                "seed {seed}: flow {i} {flows:?}"
            );
        }
        if occ.values().any(|&c| c > 1) {
            shared += 1;
            // The ratio threshold is the queue occupancy ratio: 2 here.
            let most = *occ.values().max().unwrap() as f64;
            assert!(
                (max_over_min(&flows) / most - 1.0).abs() < 0.03,
                "{flows:?}"
            );
        }
    }
    assert!(shared >= 2, "some seeds put two flows in one queue");
}

#[test]
fn least_loaded_spreads_five_flows_over_eight_queues_evenly() {
    for seed in 1..=4 {
        let host = "nic_queues = 8\ntxq_select = \"least_loaded\"";
        let r = run(&server(5, host, LINUX_CUBIC, "2s"), seed);
        let flows = per_flow(&r);
        assert_eq!(occupancy(&flows).len(), 5, "one queue each: {flows:?}");
        assert!(max_over_min(&flows) < 1.2, "seed {seed}: {flows:?}");
    }
    // Six queues too.
    let host = "nic_queues = 6\ntxq_select = \"least_loaded\"";
    let r = run(&server(5, host, LINUX_CUBIC, "2s"), 1);
    assert!(max_over_min(&per_flow(&r)) < 1.2);
}

#[test]
fn cached_queues_are_the_hash_queues_for_backlogged_flows() {
    // The hash never changes without a timeout, so the cached queue is the
    // one every packet would hash to: same placement, same shares.
    for seed in 1..=3 {
        let hash = per_flow(&run(&server(5, "nic_queues = 8", LINUX_CUBIC, "2s"), seed));
        let host = "nic_queues = 8\ntxq_select = \"cached\"";
        let r = run(&server(5, host, LINUX_CUBIC, "2s"), seed);
        let cached = per_flow(&r);
        for ((qa, ga), (qb, gb)) in hash.iter().zip(&cached) {
            assert_eq!(qa, qb);
            assert!((ga / gb - 1.0).abs() < 0.01, "{hash:?} {cached:?}");
        }
        assert!(r
            .table("flows")
            .i64s("tx_queue_moves")
            .iter()
            .all(|&m| m == 0));
    }
}

#[test]
fn the_mapping_is_per_run_same_seed_same_queues_other_seeds_others() {
    let sc = server(5, "nic_queues = 8\nprofile = \"linux-2.6.32\"", "", "20ms");
    let queues = |seed| run(&sc, seed).table("flows").i64s("tx_queue").to_vec();
    assert_eq!(queues(3), queues(3));
    assert!((4..10).any(|s| queues(s) != queues(3)));
}

#[test]
fn a_single_queue_host_reports_no_transmit_queue() {
    let r = run(&server(2, "", LINUX_CUBIC, "10ms"), 1);
    assert_eq!(r.table("flows").i64s("tx_queue"), &[-1, -1]);
    assert_eq!(r.table("nic_queues").rows(), 0);
}

#[test]
fn rethink_moves_a_socket_only_after_a_timeout_cached_never() {
    // Five NewReno flows over a 100 Mb/s bottleneck with a 4-packet
    // buffer: timeouts. Each gives the socket a new random hash, so it
    // moves in three cases of four (of 4 queues); cached sockets stay.
    let mut moved = 0;
    for seed in 1..=3 {
        let host = "nic_queues = 4\ntxq_select = \"rethink\"";
        let r = run(&into_one(5, host, "initial_window = 10", "4pkt"), seed);
        let f = r.table("flows");
        for (m, t) in f.i64s("tx_queue_moves").iter().zip(f.i64s("timeouts")) {
            assert!(m <= t, "a move follows a timeout: {m} moves, {t} timeouts");
            moved += m;
        }
        let host = "nic_queues = 4\ntxq_select = \"cached\"";
        let r = run(&into_one(5, host, "initial_window = 10", "4pkt"), seed);
        let f = r.table("flows");
        assert!(f.i64s("timeouts").iter().sum::<i64>() > 0);
        assert!(f.i64s("tx_queue_moves").iter().all(|&m| m == 0));
    }
    assert!(moved > 10, "{moved} moves");
}

/// Four flows from `srv` over a 500 Mb/s bottleneck (so the server's queues
/// drain between bursts), the third of 1 MiB only, on 3 queues.
fn one_ends(host: &str, late_start: &str) -> Scenario {
    let mut text = format!(
        "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nleft = [\"srv\"]\nright = [\"c0\", \"c1\", \"c2\", \"c3\"]\nrate = \"1Gbps\"\ndelay = \"25us\"\nbottleneck_rate = \"500Mbps\"\nbottleneck_delay = \"25us\"\n[queue]\nlimit = \"256KiB\"\n[host]\nnic_queues = 3\n{host}\n[tcp]\nprofile = \"linux\"\n"
    );
    for (i, extra) in ["", "", "size = \"1MiB\"\n", late_start].iter().enumerate() {
        text.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"srv\"\ndst = \"c{i}\"\n{extra}"
        ));
    }
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn least_loaded_counts_open_sockets_a_new_one_takes_an_ended_flows_queue() {
    // Flows 0..2 take queues 0..2; flow 2 ends; flow 3, opening later,
    // finds queue 2 empty.
    let host = "txq_select = \"least_loaded\"";
    let r = run(&one_ends(host, "start = \"500ms\"\n"), 1);
    assert_eq!(r.table("flows").i64s("tx_queue"), &[0, 1, 2, 2]);
    // Opening together, the fourth shares queue 0.
    let r = run(&one_ends(host, ""), 1);
    assert_eq!(r.table("flows").i64s("tx_queue"), &[0, 1, 2, 0]);
}

#[test]
fn rebalancing_moves_an_idle_socket_to_the_queue_an_ended_flow_left() {
    let host = "txq_select = \"least_loaded\"\nrebalance = \"10ms\"";
    let r = run(&one_ends(host, ""), 1);
    let f = r.table("flows");
    let q = f.i64s("tx_queue");
    assert_eq!(f.i64s("tx_queue_moves").iter().sum::<i64>(), 1, "{q:?}");
    let mut long: Vec<i64> = [q[0], q[1], q[3]].to_vec();
    long.sort();
    assert_eq!(long, [0, 1, 2], "the three long flows on three queues");
}

#[test]
fn small_queues_hold_each_socket_to_128_kib_below_tcp() {
    // Linux 3.12: TSQ keeps each socket's packets in qdisc and ring under
    // 128 KiB (88 packets of 1500 bytes at most: the check comes before
    // each), where 2.6.32's sockets fill a 1000-packet qdisc.
    let r = run(
        &server(5, "nic_queues = 8\nprofile = \"linux-3.12\"", "", "1s"),
        2,
    );
    let t = r.table("nic_queues");
    for (i, &flows) in t.i64s("flows").iter().enumerate() {
        if flows == 0 {
            continue;
        }
        // The server's queues (each client's has only its ACKs).
        let held = t.i64s("max_pkts")[i] + t.i64s("ring_max_pkts")[i];
        assert!(held <= 89 * 2, "queue {i}: {held} packets");
    }
    assert_eq!(r.int("local_drops"), 0);
    let old = run(
        &server(5, "nic_queues = 8\nprofile = \"linux-2.6.32\"", "", "1s"),
        2,
    );
    let most = old
        .table("nic_queues")
        .i64s("max_pkts")
        .iter()
        .copied()
        .max();
    assert_eq!(most, Some(1000), "2.6.32 fills txqueuelen");
}

#[test]
fn bql_keeps_the_rings_short_and_the_backlog_in_the_qdisc() {
    let bql = "nic_queues = 8\nring = 255\nbql = true";
    let r = run(&server(5, bql, LINUX_CUBIC, "1s"), 2);
    let t = r.table("nic_queues");
    let ring_max = t.i64s("ring_max_pkts").iter().copied().max().unwrap();
    assert!(ring_max <= 4, "BQL: {ring_max} descriptors at most");
    assert!(t.i64s("max_pkts").iter().copied().max().unwrap() > 20);
    assert!(t.i64s("bql_limit_bytes").iter().all(|&b| b >= 0));
    let r = run(
        &server(5, "nic_queues = 8\nring = 255", LINUX_CUBIC, "1s"),
        2,
    );
    let t = r.table("nic_queues");
    assert!(t.i64s("ring_max_pkts").iter().copied().max().unwrap() > 40);
    assert!(t.i64s("bql_limit_bytes").iter().all(|&b| b == -1));
}

#[test]
fn batch_and_weighted_arbitration_change_the_shares_as_documented() {
    // Batch: every backlogged ring sends a batch per turn: the same shares
    // as one packet per turn.
    let seed = (1..20)
        .find(|&s| {
            let f = per_flow(&run(&server(5, "nic_queues = 8", LINUX_CUBIC, "10ms"), s));
            occupancy(&f).values().filter(|&&c| c == 2).count() == 1 && occupancy(&f).len() == 4
        })
        .expect("a seed with one queue of two");
    let base = per_flow(&run(&server(5, "nic_queues = 8", LINUX_CUBIC, "2s"), seed));
    let batch = "nic_queues = 8\nring = 64\nnic_arbitration = \"batch\"\nnic_batch = 4";
    let b = per_flow(&run(&server(5, batch, LINUX_CUBIC, "2s"), seed));
    assert!(
        (max_over_min(&b) / max_over_min(&base) - 1.0).abs() < 0.05,
        "{base:?} {b:?}"
    );
    // Weighted: the shared queue weighted 2, the others 1: equal shares.
    let shared = *occupancy(&base).iter().find(|(_, &c)| c == 2).unwrap().0;
    let weights: Vec<String> = (0..8)
        .map(|q| if q == shared { "2" } else { "1" }.to_string())
        .collect();
    let weighted = format!(
        "nic_queues = 8\nnic_arbitration = \"weighted\"\nnic_weights = [{}]",
        weights.join(", ")
    );
    let w = per_flow(&run(&server(5, &weighted, LINUX_CUBIC, "2s"), seed));
    assert!(max_over_min(&w) < 1.05, "{w:?}");
}

#[test]
fn every_byte_below_tcp_is_freed_once_the_flows_end() {
    // Sized flows under TSQ through rings and BQL: when they are done,
    // every packet a socket emitted has been completed or refused.
    let mut text = String::from(
        "[topology]\nkind = \"star\"\nhosts = [\"srv\", \"a\", \"b\"]\nrate = \"1Gbps\"\ndelay = \"25us\"\n[host]\nnic_queues = 2\nprofile = \"linux-3.12\"\nnic_queue = \"20pkt\"\n",
    );
    for d in ["a", "b", "a"] {
        text.push_str(&format!(
            "[[workload]]\nkind = \"bulk\"\nsrc = \"srv\"\ndst = \"{d}\"\nsize = \"3MiB\"\n"
        ));
    }
    let sc = Scenario::from_toml_str(&text).unwrap();
    let mut sim = fairlab_sim::spec::build(&sc, None).unwrap();
    sim.run();
    for e in &sim.endpoints {
        let fairlab_sim::transport::Endpoint::Tcp(c) = e else {
            unreachable!()
        };
        for s in &c.sock {
            assert_eq!(s.bytes_below_tcp(), 0);
        }
    }
    let r = fairlab_sim::metrics::collect(&sim);
    assert!(r
        .table("flows")
        .strs("outcome")
        .iter()
        .all(|o| o == "complete"));
}

#[test]
fn a_shaped_nic_with_rings_completes_each_packet_once_at_the_shapers_rate() {
    // An HTB shaper on the server's NIC (Mininet's host link) over rings,
    // BQL and TSQ: a gate that opens must not count as a transmission's
    // completion (the NIC has nothing on the wire then: a GateOpen event).
    let text = "duration = \"1s\"\n[topology]\nkind = \"star\"\nhosts = [\"srv\", \"a\", \"b\"]\nrate = \"1Gbps\"\ndelay = \"25us\"\n[host]\nnic_queues = 2\nprofile = \"linux-3.12\"\nshaper = { kind = \"htb\", rate = \"100Mbps\" }\n[[workload]]\nkind = \"bulk\"\nsrc = \"srv\"\ndst = \"a\"\n[[workload]]\nkind = \"bulk\"\nsrc = \"srv\"\ndst = \"b\"\n";
    let sc = Scenario::from_toml_str(text).unwrap();
    let mut sim = fairlab_sim::spec::build(&sc, Some(1)).unwrap();
    sim.run();
    let r = fairlab_sim::metrics::collect(&sim);
    let total: f64 = r.table("flows").f64s("goodput_bps").iter().sum();
    // 100 Mb/s on the wire, 1448 of 1500 bytes of each packet goodput.
    assert!(total > 90e6 && total < 100e6, "{total}");
    for e in &sim.endpoints {
        let fairlab_sim::transport::Endpoint::Tcp(c) = e else {
            unreachable!()
        };
        for s in &c.sock {
            // At most TSQ's limit (128 KiB) plus one segment below TCP.
            assert!(
                s.bytes_below_tcp() <= 131_072 + 1500,
                "{}",
                s.bytes_below_tcp()
            );
        }
    }
}

const OLD: &str = "nic_queues = 8\nprofile = \"linux-2.6.32\"";

/// Seeds of `server(5, ..)` on 8 queues whose flows share a queue (the
/// placement is the seed's, whatever the stack).
fn shared_seeds() -> Vec<u64> {
    (1..=10)
        .filter(|&s| {
            let f = per_flow(&run(&server(5, OLD, "", "10ms"), s));
            occupancy(&f).values().any(|&c| c > 1)
        })
        .collect()
}

#[test]
fn a_root_fq_above_the_rings_evens_flows_that_mq_leaves_hash_cast() {
    // Five backlogged CUBIC flows, 2.6.32 (255-descriptor rings, no BQL):
    // under mq the flows sharing a queue get less; one fq above all rings
    // serves the flows, not the queues, and evens them, although it is
    // stalled on a full ring nearly all the time.
    let seeds = shared_seeds();
    assert!(seeds.len() >= 3, "{seeds:?}");
    for &seed in &seeds[..3] {
        let mq = per_flow(&run(&server(5, OLD, "", "2s"), seed));
        assert!(max_over_min(&mq) > 1.9, "seed {seed}: {mq:?}");
        let host = format!("{OLD}\nnic_root = \"fq\"");
        let fq = per_flow(&run(&server(5, &host, "", "2s"), seed));
        assert!(max_over_min(&fq) < 1.02, "seed {seed}: {fq:?}");
        let total = |f: &[(i64, f64)]| f.iter().map(|x| x.1).sum::<f64>();
        assert!(
            (total(&fq) / total(&mq) - 1.0).abs() < 0.01,
            "the wire stays busy"
        );
    }
}

#[test]
fn an_sfq_child_per_queue_evens_flows_within_a_queue_not_across() {
    // mq with sfq children: the flows sharing a queue split its turns
    // evenly, but that queue still gets one turn, as a queue of one flow:
    // RT is the largest occupancy over the smallest (2 here).
    for seed in shared_seeds().into_iter().take(3) {
        let host = format!("{OLD}\nnic_qdisc = \"sfq\"");
        let f = per_flow(&run(&server(5, &host, "", "2s"), seed));
        let occ = occupancy(&f);
        let ratio = *occ.values().max().unwrap() as f64 / *occ.values().min().unwrap() as f64;
        assert!(
            (max_over_min(&f) / ratio - 1.0).abs() < 0.05,
            "seed {seed}: {f:?}"
        );
        // A root sfq evens them.
        let host = format!("{OLD}\nnic_root = \"sfq\"");
        let f = per_flow(&run(&server(5, &host, "", "2s"), seed));
        assert!(max_over_min(&f) < 1.05, "seed {seed}: {f:?}");
    }
}

#[test]
fn a_root_qdisc_requeues_a_packet_for_a_stopped_ring_and_stalls_head_of_line() {
    let seed = shared_seeds()[0];
    let server_rows = |r: &RunResult| {
        let t = r.table("nic_queues");
        let srv: Vec<usize> = (0..t.rows())
            .filter(|&i| t.strs("node")[i] == "srv")
            .collect();
        let requeues: i64 = srv.iter().map(|&i| t.i64s("requeues")[i]).sum();
        let stall: f64 = srv.iter().map(|&i| t.f64s("root_stall_s")[i]).sum();
        (requeues, stall)
    };
    // 2.6.32's full rings and 3.12's BQL-stopped ones alike: the root
    // holds a requeued packet most of the run (the wire never idles: the
    // ring it waits on has packets).
    for profile in ["linux-2.6.32", "linux-3.12"] {
        let host = format!("nic_queues = 8\nprofile = \"{profile}\"\nnic_root = \"fq\"");
        let r = run(&server(5, &host, "", "1s"), seed);
        let (requeues, stall) = server_rows(&r);
        assert!(requeues > 10_000, "{profile}: {requeues}");
        assert!(stall > 0.9, "{profile}: stalled {stall} s of 1 s");
    }
    // mq never requeues: each child waits for its own ring only.
    let r = run(&server(5, OLD, "", "1s"), seed);
    assert_eq!(server_rows(&r), (0, 0.0));
    // Without rings the root feeds the wire: nothing to stall on.
    let host = "nic_queues = 8\nnic_root = \"fq\"";
    let r = run(&server(5, host, LINUX_CUBIC, "1s"), seed);
    assert_eq!(server_rows(&r), (0, 0.0));
    assert!(max_over_min(&per_flow(&r)) < 1.02);
}

#[test]
fn fq_holds_each_flow_to_its_flow_limit() {
    // 2.6.32 has no TSQ: each socket fills what the qdisc lets it, here
    // fq's 100 packets a flow (Linux's flow_limit), never txqueuelen.
    let seed = shared_seeds()[0];
    let host = format!("{OLD}\nnic_root = \"fq\"\nfq = {{ flow_limit = 20 }}");
    let r = run(&server(5, &host, "", "1s"), seed);
    let t = r.table("nic_queues");
    for i in 0..t.rows() {
        if t.strs("node")[i] == "srv" {
            let flows = t.i64s("flows")[i];
            assert!(t.i64s("max_pkts")[i] <= 20 * flows, "queue {i}");
        }
    }
    assert!(r.int("local_drops") > 0);
}

#[test]
fn bad_host_stack_fields_are_named_with_what_is_allowed() {
    let err = |extra: &str| {
        let text = format!(
            "{extra}\n[topology]\nkind = \"star\"\nhosts = 2\nrate = \"1Gbps\"\ndelay = \"1us\"\n[[workload]]\nkind = \"bulk\"\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"1MiB\"\n"
        );
        let e = Scenario::from_toml_str(&text).unwrap_err().to_string();
        assert!(!e.contains('\n'), "one line: {e}");
        e
    };
    for (extra, start) in [
        (
            "[host]\nring = 5000",
            "host.ring: 5000 is not allowed; expected 0 (no ring) to 4096",
        ),
        (
            "[host]\nbql = true",
            "host.bql: true is not allowed without a ring",
        ),
        (
            "[host]\nnic_batch = 4",
            "host.nic_batch: given while nic_arbitration is \"packet\"",
        ),
        (
            "[host]\nnic_arbitration = \"batch\"\nnic_batch = 0",
            "host.nic_batch: 0 is not allowed",
        ),
        (
            "[host]\nnic_queues = 2\nnic_arbitration = \"weighted\"",
            "host.nic_weights: missing",
        ),
        (
            "[host]\nnic_queues = 2\nnic_arbitration = \"weighted\"\nnic_weights = [1, 2, 3]",
            "host.nic_weights: 3 weights for 2 transmit queues",
        ),
        (
            "[host]\nnic_queues = 2\nnic_arbitration = \"weighted\"\nnic_weights = [1, 0]",
            "host.nic_weights[1]: 0 is not allowed",
        ),
        (
            "[host]\nnic_queues = 2\nnic_arbitration = \"posted\"",
            "host.nic_arbitration: \"posted\" is not allowed without a ring",
        ),
        (
            "[host]\nnic_weights = [1]",
            "host.nic_weights: given while nic_arbitration is \"packet\"",
        ),
        (
            "[host]\nrebalance = \"100ms\"",
            "host.rebalance: given while txq_select is \"hash\"",
        ),
        (
            "[host]\ntxq_select = \"least_loaded\"\nrebalance = \"2000000s\"",
            "host.rebalance: \"2000000s\" is too long",
        ),
        (
            "[host]\nnic_queue = \"1pkt\"\nnic_qdisc = \"hcf\"",
            "host.nic_queue: ",
        ),
        (
            "[tcp]\nsmall_queues = \"0B\"",
            "tcp.small_queues: \"0B\" is out of range",
        ),
        (
            "[host]\nnic_root = \"fq\"\nnic_qdisc = \"sfq\"",
            "host.nic_qdisc: \"sfq\" given while nic_root is \"fq\"; expected nic_qdisc only with nic_root = \"mq\"",
        ),
        (
            "[host]\nnic_root = \"sfq\"\n[host.fq]\nlimit = 10",
            "host.fq: given while nic_root is \"sfq\"; expected nic_root = \"fq\"",
        ),
        (
            "[host]\nnic_root = \"fq\"\n[host.fq]\nlimit = 0",
            "host.fq.limit: 0 is not allowed; expected 1 to 1000000 packets",
        ),
        (
            "[host]\nnic_root = \"fq\"\n[host.fq]\nlimit = 50\nflow_limit = 100",
            "host.fq.flow_limit: 100 is not allowed; expected 1 to limit (50) packets",
        ),
        (
            "[host]\nnic_root = \"fq\"\n[host.fq]\nquantum = \"0B\"",
            "host.fq.quantum: \"0B\" is not allowed; expected 1 byte to \"1MiB\"",
        ),
        (
            "[host]\nnic_root = \"fq\"\n[host.fq]\nquantum = \"2MiB\"",
            "host.fq.quantum: \"2MiB\" is not allowed",
        ),
        (
            "[host]\nnic_root = \"fq\"\n[host.fq]\ninitial_quantum = \"4GiB\"",
            "host.fq.initial_quantum: \"4GiB\" is not allowed; expected 0 to 2147483647 bytes",
        ),
        (
            "[host]\nnic_root = \"fq\"\n[host.fq]\nrefill_delay = \"2000000s\"",
            "host.fq.refill_delay: \"2000000s\" is too long",
        ),
    ] {
        let e = err(extra);
        assert!(e.starts_with(start), "{extra:?}: {e}");
    }
    for (extra, path, names) in [
        (
            "[host]\ntxq_select = \"random\"",
            "host.txq_select",
            "hash, cached, rethink, least_loaded",
        ),
        (
            "[host]\nprofile = \"linux-4.0\"",
            "host.profile",
            "linux-2.6.32, linux-3.12",
        ),
        (
            "[host]\nnic_qdisc = \"fq\"",
            "host.nic_qdisc",
            "pfifo_fast, droptail, red, sfq, drr, hcf, priority",
        ),
        (
            "[host]\nnic_root = \"fq_codel\"",
            "host.nic_root",
            "mq, sfq, fq",
        ),
        (
            "[host.fq]\nlimit = \"lots\"",
            "host.fq.limit",
            "expected a whole number",
        ),
        (
            "[host]\nnic_arbitration = \"fair\"",
            "host.nic_arbitration",
            "packet, batch, weighted, posted",
        ),
        (
            "[tcp]\nsmall_queues = \"lots\"",
            "tcp.small_queues",
            "\"off\" or a size",
        ),
    ] {
        let e = err(extra);
        assert!(e.starts_with(path) && e.contains(names), "{extra:?}: {e}");
    }
}

#[test]
fn the_era_profiles_set_the_stack_and_the_tcp_of_their_kernel() {
    use fairlab_sim::spec::{ArbitrationName, CcKind, Clock, NicQdisc, TxqSelect};
    let sc = |host: &str, tcp: &str| {
        Scenario::from_toml_str(&format!(
            "[topology]\nkind = \"star\"\nhosts = 2\nrate = \"1Gbps\"\ndelay = \"1us\"\n[host]\n{host}\n[tcp]\n{tcp}\n[[workload]]\nkind = \"bulk\"\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"1MiB\"\n"
        ))
        .unwrap()
    };
    let old = sc("profile = \"linux-2.6.32\"", "");
    let s = old.host.stack();
    assert_eq!((s.qdisc, s.ring, s.bql), (NicQdisc::PfifoFast, 255, false));
    assert_eq!(
        s.root,
        fairlab_sim::spec::NicRoot::Mq,
        "no profile changes the root"
    );
    assert_eq!(
        (s.txq_select, s.arbitration),
        (TxqSelect::Hash, ArbitrationName::Packet)
    );
    let t = old.resolve().unwrap().tcp;
    assert_eq!(
        (t.cc, t.sack, t.clock),
        (CcKind::Cubic, true, Clock::Jiffies { hz: 1000 })
    );
    assert_eq!(t.small_queues, None);
    assert_eq!(old.tcp_profile().name(), "linux-2.6.32");
    let new = sc("profile = \"linux-3.12\"", "");
    let s = new.host.stack();
    assert_eq!(
        (s.ring, s.bql, s.txq_select),
        (255, true, TxqSelect::Cached)
    );
    let t = new.resolve().unwrap().tcp;
    assert_eq!(t.small_queues.map(|b| b.get()), Some(131_072));
    assert_eq!((t.cc, t.initial_window), (CcKind::Cubic, 10));
    // A field of its own wins over the profile's; so does [tcp]'s profile.
    let mixed = sc(
        "profile = \"linux-3.12\"\nbql = false\ntxq_select = \"hash\"",
        "profile = \"linux-2.6.32\"\ncc = \"vegas\"",
    );
    let s = mixed.host.stack();
    assert_eq!((s.ring, s.bql, s.txq_select), (255, false, TxqSelect::Hash));
    let t = mixed.resolve().unwrap().tcp;
    assert_eq!((t.cc, t.small_queues), (CcKind::Vegas, None));
    // The profile's name is the run's.
    let r = run(&sc("profile = \"linux-3.12\"", ""), 1);
    assert_eq!(
        r.get("profile"),
        Some(&fairlab_sim::metrics::Value::Str("linux-3.12".into()))
    );
}
