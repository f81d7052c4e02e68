//! Hosts: addresses and ports on every flow, and a full transmit queue that
//! the sending socket hears of at once instead of a silent network loss.

use fairlab_sim::Scenario;

fn star_bulk(nic_queue: &str, iw: u32) -> Scenario {
    Scenario::from_toml_str(&format!(
        r#"
[topology]
kind = "star"
hosts = 3
rate = "1Gbps"
delay = "25us"
[host]
nic_queue = "{nic_queue}"
[tcp]
initial_window = {iw}
min_rto = "200ms"
[[workload]]
kind = "bulk"
src = "h0"
dst = "h1"
size = "1MiB"
[[workload]]
kind = "bulk"
src = "h2"
dst = "h1"
size = "64KiB"
start = "1ms"
"#
    ))
    .unwrap()
}

#[test]
fn a_full_host_queue_is_a_local_drop_the_sender_recovers_from_without_a_timeout() {
    // An initial window of 20 segments into a 4-packet NIC queue: one
    // segment goes on the wire, four wait, fifteen are refused at once.
    let r = fairlab_sim::run(&star_bulk("4pkt", 20), None).unwrap();
    let f = r.table("flows");
    let local = f.i64s("local_drops");
    assert!(local[0] >= 15, "refused at the NIC: {local:?}");
    // Not a network loss: no switch dropped anything, no timeout fired,
    // and every byte arrived.
    assert_eq!(r.int("drops"), 0);
    assert_eq!(r.int("local_drops"), local.iter().sum::<i64>());
    assert_eq!(f.i64s("timeouts"), &[0, 0]);
    assert_eq!(f.i64s("bytes_delivered"), &[1 << 20, 64 << 10]);
    assert!(f.strs("outcome").iter().all(|o| o == "complete"));
    // The refused segments were never on the wire: sending them later is
    // not a retransmission (a silent loss would have needed dozens).
    assert_eq!(f.i64s("retransmits"), &[0, 0]);
}

#[test]
fn with_room_in_the_host_queue_nothing_is_refused() {
    let r = fairlab_sim::run(&star_bulk("1000pkt", 20), None).unwrap();
    assert_eq!(r.int("local_drops"), 0);
    assert_eq!(r.table("flows").i64s("local_drops"), &[0, 0]);
}

#[test]
fn every_flow_has_its_hosts_addresses_and_an_ephemeral_source_port() {
    let r = fairlab_sim::run(&star_bulk("1000pkt", 3), None).unwrap();
    let f = r.table("flows");
    assert_eq!(f.strs("src_addr"), &["10.0.0.1", "10.0.0.3"]);
    assert_eq!(f.strs("dst_addr"), &["10.0.0.2", "10.0.0.2"]);
    assert_eq!(f.i64s("dport"), &[5001, 5001]);
    for &p in f.i64s("sport") {
        assert!((32768..=60999).contains(&p), "Linux's ephemeral range: {p}");
    }
    // Ephemeral ports come from each host's own seeded stream.
    let other = fairlab_sim::run(&star_bulk("1000pkt", 3), Some(2)).unwrap();
    assert_ne!(other.table("flows").i64s("sport"), f.i64s("sport"));
}
