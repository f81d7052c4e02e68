//! The two agents end to end on loopback (no namespace needed): a 0.3 s
//! stream at 20 Mb/s, and the error cases. About 1 s.

use fairlab_radon::{recv_json, send_json, Error};
use serde_json::Value;
use std::net::TcpListener;

fn free_port() -> u16 {
    // A port that is free for both TCP and UDP now (race-tolerant enough
    // for a test: nothing else binds ports this high on purpose).
    for _ in 0..50 {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        if std::net::UdpSocket::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port");
}

fn sender_config(port: u16, duration_s: f64, extra: &str) -> String {
    // 1472-byte payloads at 20 Mb/s: 588.8 µs apart; service at 1 Gb/s.
    format!(
        r#"{{"streams":[{{"id":4,"dst_addr":"127.0.0.1","port":{port},"payload_bytes":1472,
        "sender":{{"reservation":{{"utilization":0.02,"period_ps":10000000000}},
                  "packet_service_ps":12000000,"wait_ps":588800000,"mode":"non_adaptive"}},
        "receiver":{{"service_ps":12000000,"model":"median5","feedback_every":5,
                    "congested_depth_pkts":1.0,"pct_divisor":"pairs_gamma_minus_one","all_models":true}}}}],
        "duration_s":{duration_s},"drain_s":0.05,"deadline_s":10{extra}}}"#
    )
}

fn col<'a>(v: &'a Value, table: &str, name: &str) -> &'a Vec<Value> {
    v[table][name].as_array().unwrap()
}

#[test]
fn a_stream_over_loopback_is_accounted_for_frame_by_frame() {
    let port = free_port();
    let rcfg = format!(r#"{{"listen":[{{"addr":"127.0.0.1","port":{port}}}],"deadline_s":10}}"#);
    let rx = std::thread::spawn(move || recv_json(&rcfg, &mut || false, &mut |_| {}));
    let out = send_json(&sender_config(port, 0.3, r#","trace":true"#), &mut || false).unwrap();
    let rx = rx.join().unwrap().unwrap();
    let v: Value = serde_json::from_str(&out).unwrap();
    let sent = col(&v, "streams", "num_sent")[0].as_i64().unwrap();
    let recv = col(&v, "streams", "num_recv")[0].as_i64().unwrap();
    let lost = col(&v, "streams", "num_lost")[0].as_i64().unwrap();
    // 0.3 s at 588.8 µs: at most 510 frames (0, 588.8 µs, … below 0.3 s);
    // each wait runs from the actual send (UDPmon's method), so a sender
    // descheduled on a busy machine sends fewer, never more.
    // (On a machine loaded by other jobs the spinning sender gets a share
    // of a core: this bound only asks that it ran.)
    assert!((20..=510).contains(&sent), "{sent}");
    assert_eq!(recv + lost, sent);
    assert_eq!(lost, 0, "loopback loses nothing at 20 Mb/s");
    // One feedback per 5 datagrams, every one back over loopback.
    let fb = col(&v, "streams", "feedback_received")[0].as_i64().unwrap();
    assert_eq!(fb, recv / 5);
    assert_eq!(col(&v, "streams", "feedback_sent")[0].as_i64(), Some(fb));
    assert_eq!(col(&v, "streams", "stamp_source")[0], "kernel");
    assert_eq!(col(&v, "radon_series", "frame").len() as i64, sent);
    assert_eq!(col(&v, "pacing", "late_us").len() as i64, sent);
    let rate = col(&v, "streams", "send_rate_mbps")[0].as_f64().unwrap();
    assert!(rate <= 20.0 * 1.0001 && rate > 0.0, "{rate}");
    // Real stamps: one-way delays of microseconds, RFDs that differ.
    let owd: Vec<f64> = col(&v, "radon_series", "owd_us")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        owd.iter().all(|&d| d > 0.0 && d < 50_000.0),
        "{:?}",
        &owd[..5]
    );
    let rfd = col(&v, "radon_series", "rfd_us");
    assert!(
        rfd.iter()
            .filter(|x| x.as_f64().is_some_and(|r| r != 0.0))
            .count()
            > 10
    );
    let late = col(&v, "pacing", "late_us");
    assert!(
        late.iter().all(|x| x.as_f64().unwrap() >= 0.0),
        "never early"
    );
    let rx: Value = serde_json::from_str(&rx).unwrap();
    assert_eq!(rx["sessions"][0]["received"].as_i64(), Some(sent));
    assert!(v["machine"]["txtime"]
        .as_str()
        .unwrap()
        .contains("SO_TXTIME"));
    let trace = &v["trace"][0];
    assert!(trace["receiver_events"].as_array().unwrap().len() as i64 > sent);
    assert!(trace["sender_events"].as_array().unwrap().len() as i64 >= 2 * sent);
}

#[test]
fn nothing_listening_is_one_line_naming_the_address() {
    let port = free_port();
    let cfg = sender_config(port, 0.1, r#","connect_s":0.2"#);
    let e = send_json(&cfg, &mut || false).unwrap_err();
    assert!(matches!(e, Error::Unreachable(_)));
    assert_eq!(
        e.to_string(),
        format!("cannot reach the receiver at 127.0.0.1:{port}: nothing listens there; start `fairlab radon recv --port {port}` there")
    );
}

#[test]
fn a_port_in_use_is_one_line() {
    let port = free_port();
    let _held = TcpListener::bind(("127.0.0.1", port)).unwrap();
    let rcfg = format!(r#"{{"listen":[{{"addr":"127.0.0.1","port":{port}}}],"deadline_s":1}}"#);
    let e = recv_json(&rcfg, &mut || false, &mut |_| {}).unwrap_err();
    assert!(matches!(e, Error::AddrInUse(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("TCP port {port} is in use at 127.0.0.1:{port}")),
        "{e}"
    );
}

#[test]
fn a_receiver_refuses_streams_above_its_record_cap_up_front() {
    let port = free_port();
    let rcfg = format!(
        r#"{{"listen":[{{"addr":"127.0.0.1","port":{port}}}],"deadline_s":1,"max_records":100}}"#
    );
    let rx = std::thread::spawn(move || recv_json(&rcfg, &mut || false, &mut |_| {}));
    let e = send_json(&sender_config(port, 0.3, ""), &mut || false).unwrap_err();
    assert!(matches!(e, Error::Refused(_)), "{e}");
    assert!(e.to_string().contains("max_records = 100"), "{e}");
    // The refused session does not count: the receiver runs to its deadline.
    let _ = rx.join();
}

#[test]
fn cancelling_stops_a_receiver_at_once() {
    let port = free_port();
    let rcfg = format!(r#"{{"listen":[{{"addr":"127.0.0.1","port":{port}}}],"deadline_s":60}}"#);
    let t = std::time::Instant::now();
    let mut calls = 0;
    let e = recv_json(
        &rcfg,
        &mut || {
            calls += 1;
            calls > 3
        },
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(e, Error::Interrupted);
    assert!(t.elapsed().as_secs_f64() < 0.5);
}
