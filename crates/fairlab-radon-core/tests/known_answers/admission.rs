use crate::assert_close;
use fairlab_radon_core::admission::ETHERNET_UDP_IPV4_OVERHEAD_BYTES;
use fairlab_radon_core::{admit, wire_bytes, Refusal, StreamAsk};

/// Hosts h1..h6 send to h0 through one switch: stream i crosses its own
/// uplink port i − 1 and the shared port 6 toward h0.
fn to_h0(payload_rates_bps: &[f64], wire_per_payload: f64) -> Vec<StreamAsk> {
    payload_rates_bps
        .iter()
        .enumerate()
        .map(|(i, rate)| StreamAsk {
            ports: vec![i, 6],
            utilization: rate * wire_per_payload / 1e9,
        })
        .collect()
}

const UNFAIR_BPS: [f64; 6] = [500e6, 250e6, 125e6, 62.5e6, 31.25e6, 31.25e6];

#[test]
fn ethernet_wire_bytes() {
    assert_eq!(ETHERNET_UDP_IPV4_OVERHEAD_BYTES, 66);
    assert_eq!(wire_bytes(8192, ETHERNET_UDP_IPV4_OVERHEAD_BYTES), 8258);
    assert_eq!(wire_bytes(u32::MAX, 66), u32::MAX);
}

#[test]
fn table_5_5_with_headers_refuses_the_sixth_stream() {
    // Wire utilizations: payload × 8258/8192. The first five sum to
    // 968.75 Mb/s × 8258/8192 = 976.55 Mb/s; the sixth asks 31.50 more:
    // 1.0081 > 1, refused at the shared port.
    let asks = to_h0(&UNFAIR_BPS, 8258.0 / 8192.0);
    let got = admit(&asks, 7, 0.0);
    assert!(got[..5].iter().all(Result::is_ok), "{got:?}");
    let refusal: Refusal = got[5].expect_err("sixth refused");
    assert_eq!(refusal.port, 6);
    assert_close(refusal.admitted_u, 0.968_75 * 8258.0 / 8192.0, 1e-12);
    assert_close(refusal.asked_u, 0.031_25 * 8258.0 / 8192.0, 1e-12);
    assert_eq!(refusal.limit_u, 1.0);
}

#[test]
fn table_5_5_counting_payload_only_admits_all_six() {
    // Payloads sum to exactly 1 Gb/s: admitted (the seed's over-subscription
    // is invisible without headers).
    let got = admit(&to_h0(&UNFAIR_BPS, 1.0), 7, 0.0);
    assert!(got.iter().all(Result::is_ok), "{got:?}");
}

#[test]
fn order_decides_who_is_refused_and_refused_streams_reserve_nothing() {
    // Smallest first: 31.25, 31.25, 62.5, 125, 250 fit (500 Mb/s payload,
    // 0.504 on the wire), then 500 asks 0.504 more: refused.
    let mut reversed = UNFAIR_BPS;
    reversed.reverse();
    let got = admit(&to_h0(&reversed, 8258.0 / 8192.0), 7, 0.0);
    assert!(got[..5].iter().all(Result::is_ok));
    assert_eq!(got[5].map_err(|r| r.port), Err(6));
    // A refused stream leaves room: 0.7 refused after 0.5, then 0.4 fits.
    let asks = [0.5, 0.7, 0.4].map(|u| StreamAsk {
        ports: vec![0],
        utilization: u,
    });
    let got = admit(&asks, 1, 0.0);
    assert_eq!(
        got.iter().map(Result::is_ok).collect::<Vec<_>>(),
        [true, false, true]
    );
}

#[test]
fn reserve_and_first_full_port_on_the_path() {
    // Six fair streams of 163 Mb/s payload (0.16431 on the wire) with 20 %
    // reserved: four fit (0.657), the fifth would make 0.822 > 0.8.
    let asks = to_h0(&[163e6; 6], 8258.0 / 8192.0);
    let got = admit(&asks, 7, 0.2);
    assert_eq!(
        got.iter().map(Result::is_ok).collect::<Vec<_>>(),
        [true, true, true, true, false, false]
    );
    assert_close(got[4].unwrap_err().limit_u, 0.8, 1e-15);
    // Refused at the first port of its path that is full, in path order.
    let asks = vec![
        StreamAsk {
            ports: vec![1],
            utilization: 0.9,
        },
        StreamAsk {
            ports: vec![0],
            utilization: 0.9,
        },
        StreamAsk {
            ports: vec![1, 0],
            utilization: 0.2,
        },
    ];
    assert_eq!(admit(&asks, 2, 0.0)[2].map_err(|r| r.port), Err(1));
}

#[test]
fn exact_fill_is_admitted_and_nan_is_refused() {
    let sixth = StreamAsk {
        ports: vec![0],
        utilization: 1.0 / 6.0,
    };
    let got = admit(&vec![sixth; 6], 1, 0.0);
    assert!(got.iter().all(Result::is_ok));
    let nan = StreamAsk {
        ports: vec![0],
        utilization: f64::NAN,
    };
    assert!(admit(&[nan], 1, 0.0)[0].is_err());
}
