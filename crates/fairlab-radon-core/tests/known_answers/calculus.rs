use crate::assert_close;
use fairlab_radon_core::{
    backlog_bound_bytes, delay_bound_ps, output_arrival, port_bounds, PortBound, RateLatency,
    TokenBucket,
};

/// A 1 Gb/s port whose latency is one 8258-byte frame: 66.064 µs.
fn port() -> RateLatency {
    RateLatency::for_port(1e9, 8258.0)
}

fn paced(rate_bps: f64) -> TokenBucket {
    TokenBucket::paced(8258.0, rate_bps)
}

#[test]
fn curves() {
    assert_eq!(
        port(),
        RateLatency {
            rate_bps: 1e9,
            latency_ps: 66_064_000
        }
    );
    assert_eq!(
        paced(5e8),
        TokenBucket {
            burst_bytes: 8258.0,
            rate_bps: 5e8
        }
    );
    // e = 5 ms at u = 0.5 of 1 Gb/s: b = 2·5 ms·1 Gb/s = 1.25 MB, r = 500 Mb/s.
    let b = TokenBucket::budgeted(5_000_000_000, 0.5, 1e9);
    assert_close(b.burst_bytes, 1_250_000.0, 1e-6);
    assert_eq!(b.rate_bps, 5e8);
}

#[test]
fn one_port_bounds_by_hand() {
    // Σb = 16 516 B, Σr = 750 Mb/s = 93.75 MB/s, T = 66.064 µs:
    // backlog 16 516 + 93.75e6 · 66.064e-6 = 16 516 + 6 193.5 = 22 709.5 B;
    // delay 66.064 µs + 16 516·8 / 1e9 s = 66.064 + 132.128 = 198.192 µs.
    let arrivals = [paced(5e8), paced(2.5e8)];
    assert_close(
        backlog_bound_bytes(&arrivals, port()).unwrap(),
        22_709.5,
        1e-6,
    );
    assert_eq!(delay_bound_ps(&arrivals, port()), Some(198_192_000));
    // Nothing arriving: no backlog, the latency alone.
    assert_eq!(backlog_bound_bytes(&[], port()), Some(0.0));
    assert_eq!(delay_bound_ps(&[], port()), Some(66_064_000));
}

#[test]
fn stability_edge() {
    // Σr = R is stable: backlog 2·8258 + 125 MB/s · 66.064 µs = 24 774 B.
    let full = [paced(5e8), paced(5e8)];
    assert_close(backlog_bound_bytes(&full, port()).unwrap(), 24_774.0, 1e-6);
    let over = [paced(4e8), paced(4e8), paced(4e8)];
    assert_eq!(backlog_bound_bytes(&over, port()), None);
    assert_eq!(delay_bound_ps(&over, port()), None);
    let dead = RateLatency {
        rate_bps: 0.0,
        latency_ps: 0,
    };
    assert_eq!(delay_bound_ps(&[paced(1.0)], dead), None);
}

#[test]
fn output_arrival_by_hand() {
    // b + r·D: 8258 + 62.5 MB/s · 198.192 µs = 8258 + 12 387 = 20 645 B.
    let out = output_arrival(paced(5e8), 198_192_000);
    assert_close(out.burst_bytes, 20_645.0, 1e-6);
    assert_eq!(out.rate_bps, 5e8);
}

#[test]
fn two_hop_feed_forward() {
    // A (500 Mb/s) crosses ports 0 then 2; B (250 Mb/s) ports 1 then 2; port
    // 3 is idle.
    // Port 0: 8258 + 62.5e6·66.064e-6 = 12 387 B; delay 2·66.064 = 132.128 µs.
    // Port 1: 8258 + 31.25e6·66.064e-6 = 10 322.5 B; delay 132.128 µs.
    // At port 2: A = 8258 + 62.5e6·132.128e-6 = 16 516, B = 8258 + 4129 =
    // 12 387; Σb = 28 903; backlog 28 903 + 6 193.5 = 35 096.5 B; delay
    // 66.064 + 28 903·8/1e9 s = 66.064 + 231.224 = 297.288 µs.
    let streams = vec![(paced(5e8), vec![0, 2]), (paced(2.5e8), vec![1, 2])];
    let got = port_bounds(&streams, &[port(); 4]);
    let expect = [
        (12_387.0, 132_128_000),
        (10_322.5, 132_128_000),
        (35_096.5, 297_288_000),
    ];
    for (p, (backlog, delay)) in expect.iter().enumerate() {
        match got[p] {
            PortBound::Bounded {
                backlog_bytes,
                delay_ps,
            } => {
                assert_close(backlog_bytes, *backlog, 1e-6);
                assert_eq!(delay_ps, *delay, "port {p}");
            }
            other => panic!("port {p}: {other:?}"),
        }
    }
    assert_eq!(got[3], PortBound::Unused);
}

#[test]
fn unstable_upstream_and_cycles() {
    // Three 400 Mb/s streams meet at port 1 (Σr 1.2 Gb/s): unstable. One of
    // them goes on to port 2, whose own Σr is fine: upstream-unstable.
    let streams = vec![
        (paced(4e8), vec![0, 1, 2]),
        (paced(4e8), vec![1]),
        (paced(4e8), vec![1]),
    ];
    let got = port_bounds(&streams, &[port(); 3]);
    assert!(matches!(got[0], PortBound::Bounded { .. }));
    assert_eq!(
        got[1],
        PortBound::Unstable {
            sum_rate_bps: 1.2e9
        }
    );
    assert_eq!(got[2], PortBound::UpstreamUnstable { port: 1 });
    // X: 0 → 1, Y: 1 → 0 make a cycle; Z: 1 → 2 is behind it; W on 3 alone.
    let streams = vec![
        (paced(1e8), vec![0, 1]),
        (paced(1e8), vec![1, 0]),
        (paced(1e8), vec![1, 2]),
        (paced(1e8), vec![3]),
    ];
    let got = port_bounds(&streams, &[port(); 4]);
    assert_eq!(&got[..3], &[PortBound::Cyclic; 3]);
    assert!(matches!(got[3], PortBound::Bounded { .. }));
}
