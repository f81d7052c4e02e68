//! Sender and receiver closed around a toy bottleneck: a 1 Gb/s FIFO with no
//! buffer limit, shared with a constant 300 Mb/s cross stream. Zero
//! propagation delay, exact timestamps, feedback delivered instantly. The
//! non-adaptive stream (765 Mb/s of payload, 771 Mb/s on the wire)
//! overloads the port and its queue grows all run; the adaptive one must
//! hold it near empty.

use fairlab_radon_core::{
    Mode, RateResponse, Receiver, ReceiverConfig, Reservation, Sender, SenderConfig,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const MS: i64 = 1_000_000_000;
/// 8258 wire bytes at 1 Gb/s.
const SERVICE_PS: i64 = 66_064_000;
/// 300 Mb/s of 8258-byte frames: one every 220.2133 µs.
const CROSS_GAP_PS: i64 = 220_213_333;
const RUN_PS: i64 = 200 * MS;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A datagram of ours leaves the port: (frame, send time).
    Deliver(u64, i64),
    Cross,
    Poll,
}

struct Outcome {
    /// Queue (packets waiting or in service) found by each of our datagrams.
    queue_pkts: Vec<i64>,
    final_wait_ps: i64,
    sent: u64,
}

fn run(mode: Mode) -> Outcome {
    let res = Reservation::from_rate(765e6, 1e9, 10 * MS);
    let wait_min_ps = RateResponse::reservation_wait_ps(8192.0, &res, 1e9);
    let cfg = SenderConfig {
        reservation: res,
        packet_service_ps: SERVICE_PS,
        wait_ps: wait_min_ps,
        mode,
    };
    let mut sender = Sender::new(cfg, 0);
    let mut receiver = Receiver::new(ReceiverConfig::new(SERVICE_PS));
    let mut events = BinaryHeap::from([Reverse((0, Event::Poll)), Reverse((0, Event::Cross))]);
    let (mut busy_until_ps, mut frame) = (0i64, 0u64);
    let mut queue_pkts = Vec::new();
    while let Some(Reverse((now, event))) = events.pop() {
        if now > RUN_PS {
            break;
        }
        match event {
            Event::Poll => {
                let d = sender.poll(now, 0.5);
                for _ in 0..d.packets {
                    queue_pkts.push(((busy_until_ps - now).max(0) + SERVICE_PS - 1) / SERVICE_PS);
                    busy_until_ps = busy_until_ps.max(now) + SERVICE_PS;
                    events.push(Reverse((busy_until_ps, Event::Deliver(frame, now))));
                    frame += 1;
                }
                events.push(Reverse((d.next_ps, Event::Poll)));
            }
            Event::Cross => {
                busy_until_ps = busy_until_ps.max(now) + SERVICE_PS;
                events.push(Reverse((now + CROSS_GAP_PS, Event::Cross)));
            }
            Event::Deliver(f, sent) => {
                if let (_, Some(fb)) = receiver.on_datagram(f, sent, now) {
                    sender.on_feedback(now, &fb);
                }
            }
        }
    }
    Outcome {
        queue_pkts,
        final_wait_ps: sender.wait_ps(),
        sent: sender.sent(),
    }
}

#[test]
fn adaptive_rate_holds_the_queue_that_the_fixed_wait_overflows() {
    let fixed = run(Mode::NonAdaptive);
    let res = Reservation::from_rate(765e6, 1e9, 10 * MS);
    let adaptive = run(Mode::Rate(RateResponse::for_reservation(8192.0, &res, 1e9)));
    let last = |o: &Outcome| *o.queue_pkts.last().unwrap();
    let max_second_half = |o: &Outcome| {
        let half = o.queue_pkts.len() / 2;
        *o.queue_pkts[half..].iter().max().unwrap()
    };
    // Fixed wait: 771 + 300 Mb/s on a 1 Gb/s port grows the queue by about
    // 71 Mb/s = 1.07 packets per ms: over 200 ms, about 215 packets.
    assert!(last(&fixed) > 200, "fixed wait ends with {}", last(&fixed));
    // Adaptive: the queue stays within a few packets and the wait rises
    // above the reservation's pace.
    println!(
        "fixed: final queue {} pkts, sent {}; adaptive: max queue in 2nd half {} pkts, mean {:.2}, sent {}, final wait {} ps",
        last(&fixed),
        fixed.sent,
        max_second_half(&adaptive),
        adaptive.queue_pkts.iter().sum::<i64>() as f64 / adaptive.queue_pkts.len() as f64,
        adaptive.sent,
        adaptive.final_wait_ps
    );
    assert!(
        max_second_half(&adaptive) <= 10,
        "{}",
        max_second_half(&adaptive)
    );
    // It gives way: its wire rate settles at the 700 Mb/s the cross stream
    // leaves (measured 2125 datagrams of 66 064 bits in 200 ms: 702 Mb/s),
    // where the fixed wait sends 771 Mb/s regardless.
    let wire_mbps = |o: &Outcome| o.sent as f64 * 8258.0 * 8.0 / 0.2 / 1e6;
    assert!(wire_mbps(&fixed) > 765.0, "{}", wire_mbps(&fixed));
    assert!(
        (680.0..=710.0).contains(&wire_mbps(&adaptive)),
        "{}",
        wire_mbps(&adaptive)
    );
    assert!(adaptive.final_wait_ps >= fixed.final_wait_ps);
}
