//! Properties over random inputs: the network-calculus bounds are monotone,
//! admitted sets never overfill a port and are always bounded, the window
//! sender never overruns its budget, the receiver's counts add up, clock
//! offsets cancel in every model, and feedback decoding never panics.

use fairlab_radon_core::admission::ADMISSION_EPSILON;
use fairlab_radon_core::{
    admit, port_bounds, Feedback, Mode, Model, ModelKind, PortBound, RateLatency, RateResponse,
    Receiver, ReceiverConfig, Reservation, Sender, SenderConfig, StreamAsk, TokenBucket, Trend,
    WaitReading, WindowResponse, WindowRule,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

const PORTS: usize = 6;
const CAPACITY_BPS: f64 = 1e9;

/// A path through the ports in increasing index order, so every stream set
/// is feed-forward.
fn path() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::btree_set(0..PORTS, 1..4)
        .prop_map(|s: BTreeSet<usize>| s.into_iter().collect())
}

fn stream() -> impl Strategy<Value = (TokenBucket, Vec<usize>)> {
    (64.0f64..20_000.0, 1e6f64..3e8, path()).prop_map(|(b, r, p)| {
        (
            TokenBucket {
                burst_bytes: b,
                rate_bps: r,
            },
            p,
        )
    })
}

fn servers() -> Vec<RateLatency> {
    vec![RateLatency::for_port(CAPACITY_BPS, 9_000.0); PORTS]
}

/// `after` is at least `before` wherever both are bounded, and a port that
/// had no bound still has none.
fn assert_not_smaller(before: &[PortBound], after: &[PortBound]) -> Result<(), TestCaseError> {
    for (p, (b, a)) in before.iter().zip(after).enumerate() {
        match (b, a) {
            (
                PortBound::Bounded {
                    backlog_bytes: b0,
                    delay_ps: d0,
                },
                PortBound::Bounded {
                    backlog_bytes: b1,
                    delay_ps: d1,
                },
            ) => {
                prop_assert!(b1 >= b0, "port {p}: backlog {b1} < {b0}");
                prop_assert!(d1 >= d0, "port {p}: delay {d1} < {d0}");
            }
            (PortBound::Unstable { .. } | PortBound::UpstreamUnstable { .. }, after) => {
                prop_assert!(!matches!(after, PortBound::Bounded { .. }), "port {p}");
            }
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn bounds_grow_with_one_more_stream(
        streams in prop::collection::vec(stream(), 1..8),
        extra in stream(),
    ) {
        let before = port_bounds(&streams, &servers());
        let mut more = streams.clone();
        more.push(extra);
        assert_not_smaller(&before, &port_bounds(&more, &servers()))?;
    }

    #[test]
    fn bounds_grow_with_a_larger_burst(
        streams in prop::collection::vec(stream(), 1..8),
        which in any::<prop::sample::Index>(),
        extra_bytes in 1.0f64..50_000.0,
    ) {
        let before = port_bounds(&streams, &servers());
        let mut larger = streams.clone();
        larger[which.index(streams.len())].0.burst_bytes += extra_bytes;
        assert_not_smaller(&before, &port_bounds(&larger, &servers()))?;
    }

    #[test]
    fn bounds_cover_the_source_bursts(streams in prop::collection::vec(stream(), 1..8)) {
        let bounds = port_bounds(&streams, &servers());
        for (p, bound) in bounds.iter().enumerate() {
            let crossing: Vec<&TokenBucket> =
                streams.iter().filter(|(_, path)| path.contains(&p)).map(|(a, _)| a).collect();
            match bound {
                PortBound::Unused => prop_assert!(crossing.is_empty()),
                PortBound::Bounded { backlog_bytes, delay_ps } => {
                    let sum_b: f64 = crossing.iter().map(|a| a.burst_bytes).sum();
                    prop_assert!(*backlog_bytes >= sum_b);
                    prop_assert!(*delay_ps >= servers()[p].latency_ps);
                }
                PortBound::Unstable { sum_rate_bps } => {
                    prop_assert!(*sum_rate_bps > CAPACITY_BPS);
                }
                PortBound::UpstreamUnstable { port } => prop_assert!(*port < p),
                PortBound::Cyclic => prop_assert!(false, "feed-forward paths made a cycle"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Over random stream sets: the admitted streams never put Σu above
    /// 1 − reserve on any port, every refusal is justified, and the admitted
    /// set, paced at u·C, has a finite bound on every port it uses.
    #[test]
    fn admitted_sets_fit_and_are_bounded(
        asks in prop::collection::vec((path(), 0.001f64..0.7), 1..12),
        reserve in 0.0f64..0.3,
    ) {
        let asks: Vec<StreamAsk> = asks
            .into_iter()
            .map(|(ports, utilization)| StreamAsk { ports, utilization })
            .collect();
        let verdicts = admit(&asks, PORTS, reserve);
        let mut sum_u = [0.0f64; PORTS];
        for (ask, verdict) in asks.iter().zip(&verdicts) {
            let fits = ask.ports.iter().all(|&p| sum_u[p] + ask.utilization <= 1.0 - reserve + ADMISSION_EPSILON);
            prop_assert_eq!(fits, verdict.is_ok());
            if fits {
                for &p in &ask.ports {
                    sum_u[p] += ask.utilization;
                }
            }
        }
        prop_assert!(sum_u.iter().all(|&u| u <= 1.0 - reserve + ADMISSION_EPSILON));
        let admitted: Vec<(TokenBucket, Vec<usize>)> = asks
            .iter()
            .zip(&verdicts)
            .filter(|(_, v)| v.is_ok())
            .map(|(a, _)| (TokenBucket::paced(8_258.0, a.utilization * CAPACITY_BPS), a.ports.clone()))
            .collect();
        for (p, bound) in port_bounds(&admitted, &servers()).iter().enumerate() {
            let used = sum_u[p] > 0.0;
            prop_assert_eq!(matches!(bound, PortBound::Bounded { .. }), used, "port {}: {:?}", p, bound);
        }
    }
}

/// One random step of a window sender's driver.
#[derive(Clone, Debug)]
struct Step {
    u01: f64,
    feedback: Option<(i64, bool)>,
}

fn step() -> impl Strategy<Value = Step> {
    (0.0f64..1.0, prop::option::of((0i64..20_000, any::<bool>())))
        .prop_map(|(u01, feedback)| Step { u01, feedback })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// In window mode no job ever sends more than m = e/pktS packets.
    #[test]
    fn window_sender_never_overruns_its_budget(
        u in 0.05f64..1.0,
        w_max in 1.0f64..64.0,
        wait_ps in 50i64..1_000,
        llm in any::<bool>(),
        steps in prop::collection::vec(step(), 1..200),
    ) {
        let cfg = SenderConfig {
            reservation: Reservation { utilization: u, period_ps: 10_000 },
            packet_service_ps: 100,
            wait_ps,
            mode: Mode::Window(WindowResponse {
                rule: if llm { WindowRule::LessLaxityMore } else { WindowRule::PercentBudget },
                w_max,
                w_min: 1.0,
            }),
        };
        let mut sender = Sender::new(cfg, 0);
        let m = sender.rad().budget_packets();
        let (mut now, mut job, mut in_job, mut frame) = (0i64, 0i64, 0u64, 0u64);
        for s in steps {
            let d = sender.poll(now, s.u01);
            if now / 10_000 != job {
                job = now / 10_000;
                in_job = 0;
            }
            in_job += u64::from(d.packets);
            prop_assert!(in_job <= m, "job {job}: {in_job} > m = {m}");
            prop_assert!(d.next_ps > now);
            frame += u64::from(d.packets);
            if let Some((depth, congested)) = s.feedback {
                let fb = Feedback { frame, depth_milli_pkts: depth, trend: Trend::Unknown, congested, received: frame, lost: 0 };
                sender.on_feedback(now + 1, &fb);
            }
            now = d.next_ps;
        }
    }

    /// The rate response stays within [wait_min, wait_max] for any input.
    #[test]
    fn rate_wait_stays_clamped(
        wait_ps in 0i64..20_000_000_000,
        pct in -0.5f64..1.5,
        congested in any::<bool>(),
        literal in any::<bool>(),
    ) {
        let r = RateResponse {
            wait_min_ps: 131_072_000,
            wait_max_ps: 10_000_000_000,
            wait: if literal { WaitReading::SeedLiteral } else { WaitReading::Halfway },
            budget: Default::default(),
        };
        let w = r.next_wait_ps(wait_ps, pct, congested);
        prop_assert!((r.wait_min_ps..=r.wait_max_ps).contains(&w));
    }

    /// Frames delivered once each, in any order within the duplicate window,
    /// some dropped: received counts the deliveries and lost the rest up to
    /// the highest frame.
    #[test]
    fn receiver_counts_add_up(
        kept in prop::collection::vec(any::<bool>(), 1..400),
        swaps in prop::collection::vec((0usize..400, 1usize..50), 0..100),
    ) {
        let mut frames: Vec<u64> = kept.iter().enumerate().filter(|(_, k)| **k).map(|(f, _)| f as u64).collect();
        prop_assume!(!frames.is_empty());
        for (at, dist) in swaps {
            let a = at % frames.len();
            let b = (a + dist).min(frames.len() - 1);
            frames.swap(a, b);
        }
        let mut rx = Receiver::new(ReceiverConfig::new(1_000));
        for &f in &frames {
            rx.on_datagram(f, f as i64 * 100_000, f as i64 * 100_000 + 5_000);
        }
        let highest = *frames.iter().max().unwrap();
        prop_assert_eq!(rx.received(), frames.len() as u64);
        prop_assert_eq!(rx.lost(), highest + 1 - frames.len() as u64);
        // Delivering them all again changes nothing: duplicates.
        for &f in &frames {
            rx.on_datagram(f, 0, 0);
        }
        prop_assert_eq!(rx.received(), frames.len() as u64);
    }

    /// A constant offset between the hosts' clocks changes no model's output.
    #[test]
    fn clock_offset_cancels_in_every_model(
        owd_ps in prop::collection::vec(0i64..1_000_000, 1..250),
        offset_ps in -1_000_000_000i64..1_000_000_000,
    ) {
        for kind in [ModelKind::Basic, ModelKind::Pathload, ModelKind::Median5] {
            let mut plain = Model::new(kind, 66_064);
            let mut shifted = Model::new(kind, 66_064);
            for (k, owd) in owd_ps.iter().enumerate() {
                let sent = k as i64 * 84_000_000;
                let a = plain.observe(sent, sent + owd);
                let b = shifted.observe(sent, sent + owd + offset_ps);
                prop_assert_eq!(a, b, "{:?} at datagram {}", kind, k);
            }
        }
    }

    /// Arbitrary bytes decode to a value or an error, never a panic; a
    /// decoded feedback encodes back to the same bytes.
    #[test]
    fn decode_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(fb) = Feedback::decode(&bytes) {
            prop_assert_eq!(&fb.to_bytes()[..], &bytes[..Feedback::WIRE_BYTES]);
        }
    }

    #[test]
    fn encode_decode_round_trip(
        frame in any::<u64>(), depth in any::<i64>(), code in 0u8..4,
        congested in any::<bool>(), received in any::<u64>(), lost in any::<u64>(),
    ) {
        let fb = Feedback {
            frame, depth_milli_pkts: depth, trend: Trend::from_code(code).unwrap(),
            congested, received, lost,
        };
        prop_assert_eq!(Feedback::decode(&fb.to_bytes()), Ok(fb));
    }
}
