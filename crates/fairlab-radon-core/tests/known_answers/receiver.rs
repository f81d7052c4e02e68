use fairlab_radon_core::{Feedback, ModelKind, Receiver, ReceiverConfig, Trend};

const SVC_PS: i64 = 1_000;
const GAP_PS: i64 = 100_000;

/// Datagram `frame` sent at frame·GAP with a one-way delay of `depth_pkts`
/// packets of L/C.
fn arrive(rx: &mut Receiver, frame: u64, depth_pkts: i64) -> Option<Feedback> {
    let sent = frame as i64 * GAP_PS;
    rx.on_datagram(frame, sent, sent + depth_pkts * SVC_PS).1
}

#[test]
fn feedback_every_five_from_the_driving_model() {
    // A queue growing one packet per datagram. Median5 drives: after five,
    // its first median is its own baseline (depth 0, not congested); after
    // ten, medians 2 and 7: depth 5 ≥ 1, congested, trend still Unknown.
    let mut rx = Receiver::new(ReceiverConfig::new(SVC_PS));
    let mut feedbacks = Vec::new();
    for frame in 0..10 {
        feedbacks.extend(arrive(&mut rx, frame, frame as i64));
    }
    assert_eq!(
        feedbacks,
        vec![
            Feedback {
                frame: 4,
                depth_milli_pkts: 0,
                trend: Trend::Unknown,
                congested: false,
                received: 5,
                lost: 0
            },
            Feedback {
                frame: 9,
                depth_milli_pkts: 5000,
                trend: Trend::Unknown,
                congested: true,
                received: 10,
                lost: 0
            }
        ]
    );
}

#[test]
fn basic_can_drive_and_all_three_models_run() {
    let cfg = ReceiverConfig {
        model: ModelKind::Basic,
        feedback_every: 3,
        congested_depth_pkts: 4.5,
        ..ReceiverConfig::new(SVC_PS)
    };
    let mut rx = Receiver::new(cfg);
    let mut last = None;
    for frame in 0..6 {
        last = arrive(&mut rx, frame, frame as i64).or(last);
    }
    // Basic's first interval (RFDs 1..5, one packet each) completes at frame
    // 5: 5 packets ≥ 4.5.
    let fb = last.expect("feedback at frames 2 and 5");
    assert_eq!(
        (fb.frame, fb.depth_milli_pkts, fb.congested),
        (5, 5000, true)
    );
    let (basic, pathload, median5) = rx.estimates();
    assert_eq!(basic.map(|e| e.depth_pkts), Some(5.0));
    assert_eq!(pathload, None); // a train needs 100
    assert_eq!(median5.map(|e| e.depth_pkts), Some(0.0));
}

#[test]
fn observation_carries_rfd_and_fresh_estimates() {
    let mut rx = Receiver::new(ReceiverConfig::new(SVC_PS));
    let (first, _) = rx.on_datagram(0, 0, 500);
    assert_eq!((first.frame, first.rfd_ps), (0, None));
    let (second, _) = rx.on_datagram(1, GAP_PS, GAP_PS + 800);
    assert_eq!(second.rfd_ps, Some(300));
    assert_eq!(
        (second.basic, second.pathload, second.median5),
        (None, None, None)
    );
}

#[test]
fn losses_by_gaps_late_frames_and_duplicates() {
    let mut rx = Receiver::new(ReceiverConfig::new(SVC_PS));
    // The first frame seen is 3: frames 0, 1, 2 are counted lost.
    arrive(&mut rx, 3, 0);
    assert_eq!((rx.received(), rx.lost()), (1, 3));
    arrive(&mut rx, 4, 0);
    arrive(&mut rx, 7, 0); // 5 and 6 lost
    assert_eq!((rx.received(), rx.lost()), (3, 5));
    arrive(&mut rx, 5, 0); // late: un-counts one loss
    assert_eq!((rx.received(), rx.lost()), (4, 4));
    let (dup, fb) = rx.on_datagram(5, 5 * GAP_PS, 5 * GAP_PS);
    assert_eq!((dup.rfd_ps, fb), (None, None));
    assert_eq!((rx.received(), rx.lost()), (4, 4));
    // A jump of more than the duplicate window forgets every older slot.
    arrive(&mut rx, 5000, 0);
    assert_eq!(rx.lost(), 4 + (5000 - 8));
    arrive(&mut rx, 4990, 0); // late, inside the window
    assert_eq!((rx.received(), rx.lost()), (6, 4 + 4992 - 1));
    arrive(&mut rx, 4990, 0);
    assert_eq!(rx.received(), 6, "duplicate within the window");
    // Frame 7 again, 4993 frames behind: older than the window, it cannot be
    // told from a late frame and is taken as one (the documented reading).
    arrive(&mut rx, 7, 0);
    assert_eq!((rx.received(), rx.lost()), (7, 4 + 4992 - 2));
}

#[test]
fn no_estimate_yet_means_not_congested() {
    let cfg = ReceiverConfig {
        feedback_every: 1,
        ..ReceiverConfig::new(SVC_PS)
    };
    let mut rx = Receiver::new(cfg);
    let fb = arrive(&mut rx, 0, 50).expect("every datagram");
    assert_eq!(
        (fb.depth_milli_pkts, fb.trend, fb.congested),
        (0, Trend::Unknown, false)
    );
}
