//! Scripted tests of one TCP endpoint: each drives a socket through a
//! sequence of segments and losses and checks what it emits, against values
//! computed by hand from RFC 5681, RFC 6582 and RFC 6298.

use super::*;
use crate::transport::tcp::config::{profile, TimerClock};
use crate::units::Bytes;

const MSS: u64 = 1460;

fn cfg() -> TcpConfig {
    TcpConfig {
        initial_window: 10,
        clock: TimerClock::granular(Time::from_us(1)),
        granularity: Time::from_us(1),
        min_rto: Time::from_ms(200),
        ..profile("rfc")
    }
}

/// A segment from the peer (node 1) to the socket under test (node 0).
fn from_peer(seq: u64, ack: u64, payload: u32, fl: u8) -> Packet {
    Packet {
        seq,
        ack,
        dst: 0,
        payload,
        wnd: 64 << 10,
        flags: fl,
        flow: 1,
        ..Packet::blank()
    }
}

fn ack(n: u64) -> Packet {
    from_peer(1, n, 0, flags::ACK)
}

/// An established active socket with `segments` full segments written, at
/// time `t`, with an RTT sample of 100 us from the handshake.
fn established(cfg: TcpConfig, segments: u64, out: &mut Vec<Packet>) -> TcpSocket {
    let mut s = TcpSocket::new(cfg, 0, 0, 1, false);
    s.connect(Time::ZERO, out);
    assert!(out[0].has(flags::SYN));
    out.clear();
    let o = s.on_segment(
        Time::from_us(100),
        &from_peer(0, 1, 0, flags::SYN | flags::ACK),
        out,
    );
    assert!(o.established);
    out.clear();
    s.write(Time::from_us(100), segments * MSS, out);
    s
}

fn data_seqs(out: &[Packet]) -> Vec<u64> {
    out.iter()
        .filter(|p| p.payload > 0)
        .map(|p| p.seq)
        .collect()
}

fn seg(i: u64) -> u64 {
    1 + i * MSS
}

#[test]
fn handshake_samples_rtt_and_initial_window_goes_out() {
    let mut out = Vec::new();
    let s = established(cfg(), 20, &mut out);
    assert_eq!(s.state(), TcpState::Established);
    assert_eq!(s.srtt(), Some(Time::from_us(100)));
    assert_eq!(data_seqs(&out), (0..10).map(seg).collect::<Vec<_>>());
}

#[test]
fn fast_retransmit_after_triple_duplicate_ack() {
    let mut out = Vec::new();
    let mut s = established(cfg(), 10, &mut out);
    out.clear();
    let t = Time::from_us(200);
    // Segment 0 is lost; segments 1.. each produce a duplicate ACK of 1.
    s.on_segment(t, &ack(1), &mut out);
    s.on_segment(t, &ack(1), &mut out);
    assert!(
        data_seqs(&out).is_empty(),
        "no retransmission before the third duplicate"
    );
    s.on_segment(t, &ack(1), &mut out);
    assert_eq!(data_seqs(&out), vec![seg(0)]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert!(s.in_recovery());
    // ssthresh = FlightSize/2 = 5 segments; cwnd = ssthresh + 3 SMSS.
    assert_eq!(s.ssthresh(), 5 * MSS);
    assert_eq!(s.cwnd(), 8 * MSS);
}

#[test]
fn each_further_duplicate_ack_inflates_cwnd_by_one_segment() {
    let mut out = Vec::new();
    let mut s = established(cfg(), 20, &mut out);
    out.clear();
    let t = Time::from_us(200);
    for _ in 0..3 {
        s.on_segment(t, &ack(1), &mut out);
    }
    out.clear();
    // cwnd = 8 segments < 10 outstanding: four more duplicates reach 12, two new segments.
    for _ in 0..4 {
        s.on_segment(t, &ack(1), &mut out);
    }
    assert_eq!(s.cwnd(), 12 * MSS);
    assert_eq!(data_seqs(&out), vec![seg(10), seg(11)]);
}

#[test]
fn newreno_partial_ack_retransmits_next_hole_and_stays_in_recovery() {
    let mut out = Vec::new();
    let mut s = established(cfg(), 10, &mut out);
    out.clear();
    let t = Time::from_us(200);
    // Segments 0 and 3 are lost.
    for _ in 0..3 {
        s.on_segment(t, &ack(seg(0)), &mut out);
    }
    assert_eq!(data_seqs(&out), vec![seg(0)]);
    out.clear();
    // The retransmission of 0 fills the first hole: the ACK covers 0..2 only.
    s.on_segment(Time::from_us(300), &ack(seg(3)), &mut out);
    assert_eq!(
        data_seqs(&out),
        vec![seg(3)],
        "partial ACK retransmits the next hole at once"
    );
    assert!(s.in_recovery());
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.stats.timeouts, 0);
    // Deflate by 3 segments acked, add back one: 8 - 3 + 1 = 6.
    assert_eq!(s.cwnd(), 6 * MSS);
    out.clear();
    // Full ACK: recovery ends with cwnd = min(ssthresh, max(flight, SMSS) + SMSS).
    s.on_segment(Time::from_us(400), &ack(seg(10)), &mut out);
    assert!(!s.in_recovery());
    // Nothing left in flight: min(5 SMSS, max(0, SMSS) + SMSS) = 2 SMSS.
    assert_eq!(s.cwnd(), 2 * MSS);
}

#[test]
fn duplicate_ack_definition_excludes_segments_with_data() {
    let mut out = Vec::new();
    let mut s = established(cfg(), 10, &mut out);
    out.clear();
    let t = Time::from_us(200);
    for i in 0..5 {
        // The peer sends data that acks nothing new: not duplicate ACKs.
        s.on_segment(t, &from_peer(1 + i * 100, 1, 100, flags::ACK), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 0);
}

#[test]
fn rto_backoff_doubles_each_consecutive_timeout() {
    let mut out = Vec::new();
    let mut s = established(cfg(), 1, &mut out);
    assert!(!out[0].timeout_rtx, "a first transmission");
    let sent_at = Time::from_us(100);
    let mut deadline = s.next_deadline().unwrap();
    assert_eq!(deadline, sent_at + Time::from_ms(200));
    let mut expect_gap = Time::from_ms(400);
    for k in 1..=4 {
        out.clear();
        s.on_timer(deadline, &mut out);
        assert_eq!(s.stats.timeouts, k);
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        assert!(out[0].timeout_rtx, "marked as sent by the timeout");
        let next = s.next_deadline().unwrap();
        assert_eq!(next - deadline, expect_gap);
        deadline = next;
        expect_gap = expect_gap.times(2);
    }
    assert_eq!(s.cwnd(), MSS, "loss window after a timeout");
}

#[test]
fn min_rto_is_respected_on_a_fine_grained_clock() {
    for (min_rto, want) in [
        (Time::from_us(200), Time::from_us(300)), // SRTT + 4*RTTVAR = 100 + 200
        (Time::from_ms(5), Time::from_ms(5)),
    ] {
        let c = TcpConfig { min_rto, ..cfg() };
        let mut out = Vec::new();
        let s = established(c, 1, &mut out);
        assert_eq!(s.next_deadline().unwrap() - Time::from_us(100), want);
    }
}

#[test]
fn jiffy_clock_quantizes_rtt_samples_and_timer_expiry() {
    // HZ = 100: 10 ms ticks.
    let c = TcpConfig {
        clock: TimerClock::jiffies(100),
        granularity: Time::from_ms(10),
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = TcpSocket::new(c, 0, 0, 1, false);
    s.connect(Time::from_ms(3), &mut out);
    // Initial RTO 1 s from tick 0: fires at exactly 1 s, not 1.003 s.
    assert_eq!(s.next_deadline(), Some(Time::from_secs(1)));
    // A 100 us RTT measures as one whole tick.
    s.on_segment(
        Time::from_us(3100),
        &from_peer(0, 1, 0, flags::SYN | flags::ACK),
        &mut out,
    );
    assert_eq!(s.srtt(), Some(Time::from_ms(10)));
    out.clear();
    s.write(Time::from_ms(13), MSS, &mut out);
    // RTO = max(200 ms, 10 + max(10, 4*5)) = 200 ms; armed in tick 1: fires at 210 ms.
    assert_eq!(s.next_deadline(), Some(Time::from_ms(210)));
}

#[test]
fn delayed_ack_every_second_segment_or_after_timeout() {
    let c = TcpConfig {
        delayed_ack: true,
        delayed_ack_timeout: Time::from_ms(40),
        ..cfg()
    };
    let mut out = Vec::new();
    let mut r = TcpSocket::new(c, 0, 0, 1, true);
    let syn = Packet {
        flow: 0,
        ..from_peer(0, 0, 0, flags::SYN)
    };
    r.on_segment(Time::ZERO, &syn, &mut out);
    r.on_segment(
        Time::from_us(100),
        &from_peer(1, 1, 0, flags::ACK),
        &mut out,
    );
    assert_eq!(r.state(), TcpState::Established);
    out.clear();
    let t = Time::from_us(200);
    r.on_segment(t, &from_peer(1, 1, MSS as u32, flags::ACK), &mut out);
    assert!(out.is_empty(), "first segment's ACK is delayed");
    r.on_segment(t, &from_peer(seg(1), 1, MSS as u32, flags::ACK), &mut out);
    assert_eq!(out.len(), 1, "second full segment is ACKed at once");
    assert_eq!(out[0].ack, seg(2));
    out.clear();
    r.on_segment(t, &from_peer(seg(2), 1, MSS as u32, flags::ACK), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.next_deadline(), Some(t + Time::from_ms(40)));
    r.on_timer(t + Time::from_ms(40), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg(3));
}

#[test]
fn out_of_order_segment_is_acked_at_once_and_hole_fill_delivers_all() {
    let c = TcpConfig {
        delayed_ack: true,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut r = TcpSocket::new(c, 0, 0, 1, true);
    let syn = Packet {
        flow: 0,
        ..from_peer(0, 0, 0, flags::SYN)
    };
    r.on_segment(Time::ZERO, &syn, &mut out);
    r.on_segment(
        Time::from_us(100),
        &from_peer(1, 1, 0, flags::ACK),
        &mut out,
    );
    out.clear();
    let t = Time::from_us(200);
    let o = r.on_segment(t, &from_peer(seg(1), 1, MSS as u32, flags::ACK), &mut out);
    assert_eq!(o.delivered, 0);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, 1, "duplicate ACK for the hole");
    out.clear();
    let o = r.on_segment(t, &from_peer(1, 1, MSS as u32, flags::ACK), &mut out);
    assert_eq!(o.delivered, 2 * MSS);
    assert_eq!(out[0].ack, seg(2));
}

#[test]
fn dupacks_after_a_timeout_do_not_start_a_second_recovery() {
    // RFC 6582 (3.2) step 2: after a timeout, duplicates of data sent before
    // it must not trigger fast retransmit.
    let mut out = Vec::new();
    let mut s = established(cfg(), 10, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    out.clear();
    for _ in 0..3 {
        s.on_segment(d + Time::from_us(50), &ack(1), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 0);
}

fn ack_sack(n: u64, blocks: &[(u64, u64)]) -> Packet {
    let mut p = ack(n);
    for (i, &(s, e)) in blocks.iter().enumerate() {
        p.sack[i] = ((s - n) as u32, (e - n) as u32);
    }
    p.sack_len = blocks.len() as u8;
    p
}

#[test]
fn reno_leaves_recovery_on_a_partial_ack() {
    let c = TcpConfig {
        cc: crate::transport::tcp::cc::CcKind::Reno,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = established(c, 10, &mut out);
    out.clear();
    let t = Time::from_us(200);
    // Segments 0 and 3 lost, as in the NewReno test.
    for _ in 0..3 {
        s.on_segment(t, &ack(seg(0)), &mut out);
    }
    assert!(s.in_recovery());
    out.clear();
    s.on_segment(Time::from_us(300), &ack(seg(3)), &mut out);
    // RFC 5681 (3.2) step 6: out of recovery with cwnd = ssthresh, and no
    // retransmission of segment 3: it needs three new duplicates or a timeout.
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5 * MSS);
    assert!(!data_seqs(&out).contains(&seg(3)));
}

#[test]
fn sack_recovery_repairs_several_holes_in_one_round_trip() {
    let c = TcpConfig {
        sack: true,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = established(c, 10, &mut out);
    out.clear();
    let t = Time::from_us(200);
    // Segments 0, 2 and 4 lost; 1, 3, 5.. arrive and are SACKed.
    s.on_segment(t, &ack_sack(seg(0), &[(seg(1), seg(2))]), &mut out);
    s.on_segment(
        t,
        &ack_sack(seg(0), &[(seg(3), seg(4)), (seg(1), seg(2))]),
        &mut out,
    );
    assert!(!s.in_recovery());
    s.on_segment(
        t,
        &ack_sack(
            seg(0),
            &[(seg(5), seg(6)), (seg(3), seg(4)), (seg(1), seg(2))],
        ),
        &mut out,
    );
    assert!(
        s.in_recovery(),
        "three SACKed segments above the hole: IsLost"
    );
    assert_eq!(s.ssthresh(), 5 * MSS);
    // 0 is retransmitted at once; 2 is presumed lost too (3 segments SACKed
    // above it) and goes out as soon as the pipe allows.
    for i in 6..10 {
        s.on_segment(
            t,
            &ack_sack(
                seg(0),
                &[(seg(5), seg(i + 1)), (seg(3), seg(4)), (seg(1), seg(2))],
            ),
            &mut out,
        );
    }
    let rtx = data_seqs(&out);
    assert!(rtx.contains(&seg(0)) && rtx.contains(&seg(2)), "{rtx:?}");
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn ecn_echo_halves_cwnd_once_per_window_and_sets_cwr() {
    let c = TcpConfig { ecn: true, ..cfg() };
    let mut out = Vec::new();
    let mut s = established(c, 20, &mut out);
    assert!(out.iter().all(|p| p.has(flags::ECT)));
    out.clear();
    let mut e = ack(seg(1));
    e.flags |= flags::ECE;
    s.on_segment(Time::from_us(200), &e, &mut out);
    // ssthresh = FlightSize / 2 = 5 segments; cwnd = ssthresh.
    assert_eq!(s.cwnd(), 5 * MSS);
    assert_eq!(s.stats.ecn_reductions, 1);
    let mut e2 = ack(seg(2));
    e2.flags |= flags::ECE;
    s.on_segment(Time::from_us(210), &e2, &mut out);
    assert_eq!(s.stats.ecn_reductions, 1, "at most once per window");
    // Once the flight falls below cwnd, new data goes out.
    s.on_segment(Time::from_us(220), &ack(seg(6)), &mut out);
    let cwr: Vec<bool> = out
        .iter()
        .filter(|p| p.payload > 0)
        .map(|p| p.has(flags::CWR))
        .collect();
    assert_eq!(cwr.first(), Some(&true), "the next new segment carries CWR");
}

#[test]
fn randomized_rto_stays_within_one_and_a_half_rto() {
    let c = TcpConfig {
        randomize_rto: true,
        ..cfg()
    };
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..20 {
        let mut out = Vec::new();
        let mut s = TcpSocket::new(c, 0, 0, 1, false);
        s.set_rng(crate::engine::Rng::new(seed));
        s.connect(Time::ZERO, &mut out);
        s.on_segment(
            Time::from_us(100),
            &from_peer(0, 1, 0, flags::SYN | flags::ACK),
            &mut out,
        );
        s.write(Time::from_us(100), MSS, &mut out);
        let wait = s.next_deadline().unwrap() - Time::from_us(100);
        assert!(
            wait >= Time::from_ms(200) && wait <= Time::from_ms(300),
            "{wait:?}"
        );
        seen.insert(wait);
    }
    assert!(seen.len() > 10, "the draws differ");
}

#[test]
fn connection_aborts_after_max_retransmits_consecutive_timeouts() {
    let c = TcpConfig {
        max_retransmits: 3,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = established(c, 1, &mut out);
    for _ in 0..4 {
        let d = s.next_deadline().unwrap();
        s.on_timer(d, &mut out);
    }
    assert!(s.aborted());
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn receiver_echoes_timestamp_and_reports_sack_blocks_most_recent_first() {
    let c = TcpConfig {
        sack: true,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut r = TcpSocket::new(c, 0, 0, 1, true);
    let syn = Packet {
        flow: 0,
        ..from_peer(0, 0, 0, flags::SYN)
    };
    r.on_segment(Time::ZERO, &syn, &mut out);
    r.on_segment(
        Time::from_us(100),
        &from_peer(1, 1, 0, flags::ACK),
        &mut out,
    );
    out.clear();
    let data = |i: u64, ts: u64| Packet {
        ts: Time::from_us(ts),
        ..from_peer(seg(i), 1, MSS as u32, flags::ACK)
    };
    r.on_segment(Time::from_us(200), &data(0, 150), &mut out);
    assert_eq!(out.last().unwrap().ts_echo, Time::from_us(150));
    r.on_segment(Time::from_us(210), &data(2, 160), &mut out);
    r.on_segment(Time::from_us(220), &data(5, 170), &mut out);
    let last = out.last().unwrap();
    let blocks: Vec<(u64, u64)> = last.sack_blocks().collect();
    assert_eq!(blocks, vec![(seg(5), seg(6)), (seg(2), seg(3))]);
    // Out-of-order arrivals do not move the echoed timestamp.
    assert_eq!(last.ts_echo, Time::from_us(150));
}

#[test]
fn granular_clock_rounds_samples_but_fires_timers_unaligned() {
    // ns-2 style 10 ms granularity: a 14 ms RTT counts as 10 ms, 16 ms as
    // 20 ms; a 200 ms RTO armed at 13 ms fires at 213 ms, not on a tick.
    let c = TcpConfig {
        clock: TimerClock::granular(Time::from_ms(10)),
        granularity: Time::from_ms(10),
        ..cfg()
    };
    for (rtt_ms, want_ms) in [(14, 10), (16, 20), (1, 10)] {
        let mut out = Vec::new();
        let mut s = TcpSocket::new(c, 0, 0, 1, false);
        s.connect(Time::from_ms(3), &mut out);
        s.on_segment(
            Time::from_ms(3 + rtt_ms),
            &from_peer(0, 1, 0, flags::SYN | flags::ACK),
            &mut out,
        );
        assert_eq!(s.srtt(), Some(Time::from_ms(want_ms)), "rtt {rtt_ms} ms");
    }
    let mut out = Vec::new();
    let mut s = TcpSocket::new(c, 0, 0, 1, false);
    s.connect(Time::ZERO, &mut out);
    s.on_segment(
        Time::from_ms(1),
        &from_peer(0, 1, 0, flags::SYN | flags::ACK),
        &mut out,
    );
    s.write(Time::from_ms(13), MSS, &mut out);
    assert_eq!(s.next_deadline(), Some(Time::from_ms(213)));
}

/// One timeout on a four-segment write, then the ACK of the retransmission
/// (echoing its timestamp): returns the RTO in force after that ACK.
fn rto_after_acked_retransmission(rtt_timestamps: bool) -> Time {
    let c = TcpConfig {
        rtt_timestamps,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = established(c, 4, &mut out);
    let deadline = s.next_deadline().unwrap();
    out.clear();
    s.on_timer(deadline, &mut out);
    assert_eq!(data_seqs(&out), vec![seg(0)]);
    assert_eq!(s.rto(), Time::from_ms(400), "backed off once");
    let mut a = ack(seg(1));
    a.ts_echo = out[0].ts;
    out.clear();
    s.on_segment(deadline + Time::from_us(100), &a, &mut out);
    s.rto()
}

#[test]
fn karn_keeps_the_backoff_until_new_data_is_acked() {
    // RFC 6298 (5.7) with Karn's rule: the retransmission is not timed, so
    // its ACK leaves the doubled RTO in force.
    assert_eq!(rto_after_acked_retransmission(false), Time::from_ms(400));
}

#[test]
fn timestamps_end_the_backoff_at_the_first_ack_after_a_timeout() {
    // RFC 7323 (4.1) RTTM: the echoed timestamp times the retransmission;
    // the sample re-derives the RTO (min_rto 200 ms) and clears the backoff.
    assert_eq!(rto_after_acked_retransmission(true), Time::from_ms(200));
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
    // RFC 3042 (2): on the first and second duplicate ACK send one new
    // segment each, flight at most cwnd + 2 SMSS, cwnd unchanged.
    let c = TcpConfig {
        limited_transmit: true,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = established(c, 20, &mut out);
    out.clear();
    let t = Time::from_us(200);
    s.on_segment(t, &ack(1), &mut out);
    assert_eq!(data_seqs(&out), vec![seg(10)]);
    s.on_segment(t, &ack(1), &mut out);
    assert_eq!(data_seqs(&out), vec![seg(10), seg(11)]);
    assert_eq!(s.cwnd(), 10 * MSS, "limited transmit leaves cwnd alone");
    out.clear();
    s.on_segment(t, &ack(1), &mut out);
    assert_eq!(
        data_seqs(&out),
        vec![seg(0)],
        "the third is fast retransmit"
    );
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn without_recover_check_dupacks_after_a_timeout_start_fast_retransmit() {
    // ns-2's bugFix_ false: the RFC 6582 (3.2) step 2 guard is off, so the
    // duplicates of data sent before a timeout start a recovery (compare
    // dupacks_after_a_timeout_do_not_start_a_second_recovery).
    let c = TcpConfig {
        recover_check: false,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = established(c, 10, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    out.clear();
    for _ in 0..3 {
        s.on_segment(d + Time::from_us(50), &ack(1), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // Segment 0 again, then go-back-N goes on in the recovery's window.
    assert_eq!(data_seqs(&out)[0], seg(0));
}

#[test]
fn without_slow_start_cwnd_below_ssthresh_grows_half_a_segment_per_ack_of_a_window_of_one() {
    // ns-2's max_ssthresh_ = 1 (FAST'08 Fig. 12): below ssthresh cwnd grows
    // by SMSS^2 / (2 cwnd) per ACK, half a segment per round trip, not one
    // segment per ACK.
    for (slow_start, growth) in [(true, MSS), (false, MSS / 2)] {
        let c = TcpConfig {
            slow_start,
            ..cfg()
        };
        let mut out = Vec::new();
        let mut s = established(c, 10, &mut out);
        let d = s.next_deadline().unwrap();
        s.on_timer(d, &mut out);
        assert_eq!(s.cwnd(), MSS);
        assert!(s.ssthresh() > 2 * MSS);
        s.on_segment(d + Time::from_us(100), &ack(seg(1)), &mut out);
        assert_eq!(s.cwnd(), MSS + growth, "slow_start = {slow_start}");
    }
}

/// The first RTO wait of a socket with `c` (after a handshake sample of
/// 100 us) and the next one after a timeout, for seed `seed`.
fn rto_waits(c: TcpConfig, seed: u64) -> (Time, Time) {
    let mut out = Vec::new();
    let mut s = TcpSocket::new(c, 0, 0, 1, false);
    s.set_rng(crate::engine::Rng::new(seed));
    s.connect(Time::ZERO, &mut out);
    s.on_segment(
        Time::from_us(100),
        &from_peer(0, 1, 0, flags::SYN | flags::ACK),
        &mut out,
    );
    s.write(Time::from_us(100), MSS, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    (d - Time::from_us(100), s.next_deadline().unwrap() - d)
}

#[test]
fn rto_delay_adds_a_uniform_delay_up_to_its_bound_or_srtt_times_the_backoff() {
    // SIGCOMM'09 Section 5's randomized timeouts: RTO + U(0, bound), or
    // adaptively RTO + U(0, SRTT x 2^backoff). RTO = 100 + 4 x 50 = 300 us.
    let base = TcpConfig {
        min_rto: Time::from_us(200),
        ..cfg()
    };
    let (rto, rto2) = rto_waits(base, 1);
    assert_eq!((rto, rto2), (Time::from_us(300), Time::from_us(600)));
    for (delay, bound1, bound2) in [
        (RtoDelay::Upto(Time::from_us(5)), 5, 5),
        (RtoDelay::Adaptive, 100, 200),
    ] {
        let c = TcpConfig {
            rto_delay: delay,
            ..base
        };
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let (w1, w2) = rto_waits(c, seed);
            assert!(w1 >= rto && w1 <= rto + Time::from_us(bound1), "{w1:?}");
            assert!(w2 >= rto2 && w2 <= rto2 + Time::from_us(bound2), "{w2:?}");
            seen.insert(w1);
        }
        assert!(seen.len() > 3, "{delay:?}: the draws differ");
    }
}

#[test]
fn timeouts_are_classified_as_tail_whole_window_or_lost_retransmission() {
    // FAST'08 Table 3's causes. Two segments, both lost: the block's tail
    // (no three later segments could raise duplicate ACKs).
    let mut out = Vec::new();
    let mut s = established(cfg(), 2, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    assert_eq!(
        (s.stats.timeouts_tail, s.stats.timeouts_window),
        (1, 0),
        "tail"
    );
    // Ten segments in flight, none acknowledged: a whole window lost; then
    // the retransmission sent by that timeout is lost too.
    out.clear();
    let mut s = established(cfg(), 10, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    assert_eq!((s.stats.timeouts_window, s.stats.timeouts_tail), (1, 0));
    let d2 = s.next_deadline().unwrap();
    s.on_timer(d2, &mut out);
    assert_eq!(s.stats.timeouts_retransmission, 1);
    assert_eq!(s.stats.timeouts, 2);
}

#[test]
fn an_idle_sender_restarts_from_the_initial_window_unless_told_otherwise() {
    // RFC 5681 (4.1): after an idle period longer than the RTO, cwnd is at
    // most the initial window. ns-2 restarts its own way (one segment when
    // the retransmission timer, still running, fires while idle; see
    // ns2_an_idle_sender_restarts_from_one_segment_when_its_timer_fires):
    // the ns2 profile turns this off.
    for restart in [true, false] {
        let c = TcpConfig {
            initial_window: 2,
            slow_start_after_idle: restart,
            ..cfg()
        };
        let mut out = Vec::new();
        let mut s = established(c, 2, &mut out);
        s.on_segment(Time::from_us(200), &ack(seg(1)), &mut out);
        s.on_segment(Time::from_us(200), &ack(seg(2)), &mut out);
        let cwnd = s.cwnd();
        assert_eq!(cwnd, 4 * MSS, "slow start: two ACKs, two segments more");
        out.clear();
        // One second idle, far longer than the 200 ms RTO.
        s.write(Time::from_secs(1), 10 * MSS, &mut out);
        let sent = data_seqs(&out).len() as u64;
        if restart {
            assert_eq!((s.cwnd(), sent), (2 * MSS, 2));
        } else {
            assert_eq!((s.cwnd(), sent), (cwnd, 4));
        }
    }
}

/// `cfg()` with Linux's pacing on: 200 % in slow start, 120 % after,
/// `initial_burst` segments unpaced.
fn paced(initial_burst: u32) -> TcpConfig {
    TcpConfig {
        pacing: crate::transport::tcp::Pacing {
            enabled: true,
            initial_burst,
            ..crate::transport::tcp::Pacing::OFF
        },
        ..cfg()
    }
}

/// Drives the pacing timer: fires the socket at each deadline up to `until`
/// (the RTO's lies far beyond), returning (departure, seq) of each data
/// segment, the ones already in `out` first at `t0`.
fn paced_departures(s: &mut TcpSocket, t0: Time, out: &mut Vec<Packet>) -> Vec<(Time, u64)> {
    let mut sent: Vec<(Time, u64)> = data_seqs(out).into_iter().map(|q| (t0, q)).collect();
    out.clear();
    while let Some(d) = s.next_deadline() {
        if d >= Time::from_ms(100) {
            break;
        }
        // One picosecond early, the timer holds the segment back.
        s.on_timer(d - Time(1), out);
        assert!(out.is_empty(), "sent before its departure time");
        s.on_timer(d, out);
        sent.extend(data_seqs(out).into_iter().map(|q| (d, q)));
        out.clear();
    }
    sent
}

#[test]
fn pacing_spaces_segments_at_twice_cwnd_over_srtt_in_slow_start() {
    // Linux's tcp_update_pacing_rate: cwnd 10 x 1460 B = 14,600 B < ssthresh/2
    // (ssthresh arbitrarily high), so rate = 200 % x 14,600 B / SRTT 100 us
    // = 292 B/us; each 1500-byte packet (1460 + 40) is followed by
    // 1500 / 292 us = 5.136986... us = 5,136,986 ps (floored).
    let mut out = Vec::new();
    let mut s = established(paced(0), 20, &mut out);
    let t0 = Time::from_us(100);
    let gap = Time(5_136_986);
    let sent = paced_departures(&mut s, t0, &mut out);
    assert_eq!(
        sent,
        (0..10)
            .map(|i| (t0 + gap.times(i), seg(i)))
            .collect::<Vec<_>>()
    );
    // The window of 10 spreads over 9 gaps: 46.2 us, about 1/2 of the SRTT
    // (x 1500/1460 for the headers).
    assert_eq!(sent[9].0 - sent[0].0, Time(46_232_874));
}

#[test]
fn pacing_spaces_segments_at_1_2_cwnd_over_srtt_in_congestion_avoidance() {
    // Without slow start ssthresh is one segment, so cwnd (14,600 B) >=
    // ssthresh/2: rate = 120 % x 14,600 B / 100 us = 175.2 B/us; a
    // 1500-byte packet takes 1500 / 175.2 us = 8.561643... us.
    let mut out = Vec::new();
    let c = TcpConfig {
        slow_start: false,
        ..paced(0)
    };
    let mut s = established(c, 20, &mut out);
    let t0 = Time::from_us(100);
    let gap = Time(8_561_643);
    let sent = paced_departures(&mut s, t0, &mut out);
    assert_eq!(
        sent,
        (0..10)
            .map(|i| (t0 + gap.times(i), seg(i)))
            .collect::<Vec<_>>()
    );
    // A window takes 9 gaps of 1/12 of an SRTT (x 1500/1460).
    assert_eq!(sent[9].0 - sent[0].0, Time(77_054_787));
}

#[test]
fn pacing_leaves_the_first_ten_segments_unpaced_then_spaces_the_rest() {
    // Linux's tcp_update_skb_after_send paces once data_segs_out >= 10: the
    // 10th segment is the first followed by a gap. Initial window 20:
    // rate = 200 % x 29,200 B / 100 us, gap 1500 / 584 us = 2,568,493 ps.
    let mut out = Vec::new();
    let c = TcpConfig {
        initial_window: 20,
        ..paced(10)
    };
    let mut s = established(c, 40, &mut out);
    let t0 = Time::from_us(100);
    let gap = Time(2_568_493);
    let sent = paced_departures(&mut s, t0, &mut out);
    let mut want: Vec<_> = (0..10).map(|i| (t0, seg(i))).collect();
    want.extend((10..20).map(|i| (t0 + gap.times(i - 9), seg(i))));
    assert_eq!(sent, want);
}

#[test]
fn pacing_waits_for_the_first_rtt_sample() {
    // Linux's sk_pacing_rate is unlimited (~0UL) until tcp_update_pacing_rate
    // runs with an SRTT: without a handshake the initial window goes out
    // at once, even with no unpaced burst allowed.
    let mut out = Vec::new();
    let mut s = TcpSocket::new(paced(0), 0, 0, 1, false);
    s.open_established(Time::ZERO);
    s.write(Time::ZERO, 20 * MSS, &mut out);
    assert_eq!(data_seqs(&out), (0..10).map(seg).collect::<Vec<_>>());
    assert_eq!(s.next_deadline(), Some(Time::from_ms(1000)));
}

#[test]
fn without_pacing_the_window_leaves_at_once_and_only_the_rto_is_armed() {
    let mut out = Vec::new();
    let s = established(cfg(), 20, &mut out);
    assert_eq!(data_seqs(&out), (0..10).map(seg).collect::<Vec<_>>());
    // RFC 6298 (2.2): RTO = 100 us + 4 x 50 us, clamped to min_rto 200 ms.
    assert_eq!(
        s.next_deadline(),
        Some(Time::from_us(100) + Time::from_ms(200))
    );
}

#[test]
fn pacing_holds_ack_clocked_segments_to_the_pacing_clock() {
    // Every segment goes through the gate, the ACK-clocked ones too: the
    // first ACK (at 200 us, one segment acked) opens cwnd to 11 segments,
    // but the next segment still waits for the pacing timer.
    let mut out = Vec::new();
    let mut s = established(paced(0), 30, &mut out);
    let t0 = Time::from_us(100);
    let sent = paced_departures(&mut s, t0, &mut out);
    assert_eq!(sent.len(), 10);
    let last = sent[9].0;
    s.on_segment(Time::from_us(200), &ack(seg(1)), &mut out);
    // The pacing clock (last departure + gap, 151.4 us) is in the past: one
    // segment at once; the next (cwnd 11 allows two) waits for the gap at
    // the new rate, 200 % x 16,060 B / SRTT 100 us = 321.2 B/us: 1500 /
    // 321.2 us = 4,669,987 ps.
    assert!(last + Time(5_136_986) < Time::from_us(200));
    assert_eq!(data_seqs(&out), vec![seg(10)]);
    out.clear();
    let d = Time::from_us(200) + Time(4_669_987);
    assert_eq!(s.next_deadline(), Some(d));
    s.on_timer(d, &mut out);
    assert_eq!(data_seqs(&out), vec![seg(11)]);
}

#[test]
fn pacing_divides_by_the_exact_rtt_even_on_a_jiffy_clock() {
    // HZ = 250: the RTO estimator reads the 100 us handshake as one 4 ms
    // tick, but the pacing rate, as Linux's microsecond srtt_us, uses the
    // 100 us: the same 5,136,986 ps gap as on a microsecond clock.
    let mut out = Vec::new();
    let c = TcpConfig {
        clock: TimerClock::jiffies(250),
        granularity: Time::from_ms(4),
        ..paced(0)
    };
    let mut s = established(c, 20, &mut out);
    assert_eq!(s.srtt(), Some(Time::from_ms(4)));
    assert_eq!(data_seqs(&out), vec![seg(0)]);
    out.clear();
    let d = Time::from_us(100) + Time(5_136_986);
    assert_eq!(s.next_deadline(), Some(d));
    s.on_timer(d, &mut out);
    assert_eq!(data_seqs(&out), vec![seg(1)]);
}

#[test]
fn linux_ca_open_ends_with_a_duplicate_ack_or_a_timeout_until_snd_una_passes_recover() {
    let mut out = Vec::new();
    let mut s = established(cfg(), 40, &mut out);
    let t = Time::from_us(200);
    assert!(s.ca_open());
    s.on_segment(t, &ack(seg(1)), &mut out);
    assert!(s.ca_open());
    // A duplicate: TCP_CA_Disorder until the next ACK of new data.
    s.on_segment(t, &ack(seg(1)), &mut out);
    assert!(!s.ca_open());
    s.on_segment(t, &ack(seg(2)), &mut out);
    assert!(s.ca_open());
    // A timeout: TCP_CA_Loss until everything sent before it is acked.
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    let recover = s.snd_max;
    assert!(!s.ca_open());
    s.on_segment(d + Time::from_us(100), &ack(seg(3)), &mut out);
    assert!(!s.ca_open());
    s.on_segment(d + Time::from_us(200), &ack(recover), &mut out);
    assert!(s.ca_open());
}

fn bic() -> TcpConfig {
    TcpConfig {
        cc: crate::transport::tcp::cc::CcKind::Bic,
        ..cfg()
    }
}

#[test]
fn linux_bic_keeps_ssthresh_over_repeated_timeouts_until_data_is_acked() {
    // tcp_enter_loss: a timeout with nothing acked since the last one keeps
    // ssthresh; once data is acked the next one reduces it again.
    let mut out = Vec::new();
    let mut s = established(bic(), 40, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    // 10 segments: at or below low_window, half.
    assert_eq!(s.ssthresh(), 5 * MSS);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    assert_eq!(s.stats.timeouts, 2);
    assert_eq!(s.ssthresh(), 5 * MSS, "not max(1/2, 2) segments");
    // An ACK of new data (slow start: cwnd 2), then a timeout: 2 segments.
    s.on_segment(d + Time::from_us(100), &ack(seg(1)), &mut out);
    assert_eq!(s.cwnd(), 2 * MSS);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    assert_eq!(s.ssthresh(), 2 * MSS);
}

#[test]
fn linux_bic_keeps_the_fast_retransmits_ssthresh_on_a_timeout_in_recovery() {
    let mut out = Vec::new();
    let mut s = established(bic(), 20, &mut out);
    let t = Time::from_us(200);
    for _ in 0..3 {
        s.on_segment(t, &ack(1), &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 5 * MSS);
    assert_eq!(s.cwnd(), 8 * MSS);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    // Not 8/2 = 4 segments: the reduction was made inside this window.
    assert_eq!(s.ssthresh(), 5 * MSS);
    assert_eq!(s.cwnd(), MSS);
}

/// A socket under TCP Small Queues of `limit` bytes, with a large window.
fn tsq(limit: u64) -> TcpConfig {
    TcpConfig {
        small_queues: Some(Bytes(limit)),
        initial_window: 100,
        receive_window: Bytes(1 << 20),
        ..cfg()
    }
}

const WIRE: u64 = MSS + 40;

/// As [`established`], with a peer advertising 1 MiB.
fn established_wide(cfg: TcpConfig, segments: u64, out: &mut Vec<Packet>) -> TcpSocket {
    let mut s = TcpSocket::new(cfg, 0, 0, 1, false);
    s.connect(Time::ZERO, out);
    let mut synack = from_peer(0, 1, 0, flags::SYN | flags::ACK);
    synack.wnd = 1 << 20;
    s.on_segment(Time::from_us(100), &synack, out);
    out.clear();
    s.write(Time::from_us(100), segments * MSS, out);
    s
}

#[test]
fn small_queues_stop_new_data_at_the_limit_below_tcp() {
    // 128 KiB: the SYN and the handshake's ACK (40 bytes each) and 88
    // segments of 1500 reach 132,080 bytes >= 131,072 (3.12's check is
    // `>=`, before each segment), so the 89th waits although cwnd allows 100.
    let mut out = Vec::new();
    let s = established_wide(tsq(131_072), 200, &mut out);
    assert_eq!(data_seqs(&out).len(), 88);
    assert_eq!(s.bytes_below_tcp(), 80 + 88 * WIRE);
}

#[test]
fn a_transmit_completion_below_the_limit_lets_a_throttled_socket_send_again() {
    let mut out = Vec::new();
    let mut s = established_wide(tsq(10 * WIRE), 200, &mut out);
    assert_eq!(data_seqs(&out).len(), 10);
    // The SYN and ACK complete: 10 segments still below TCP, at the limit.
    assert!(!s.on_tx_done(Time::from_us(100), 40, &mut out));
    assert!(!s.on_tx_done(Time::from_us(100), 40, &mut out));
    out.clear();
    // One segment completes: 9 below TCP, under the limit: one more goes.
    assert!(s.on_tx_done(Time::from_us(112), WIRE, &mut out));
    assert_eq!(data_seqs(&out), vec![seg(10)]);
    assert_eq!(s.bytes_below_tcp(), 10 * WIRE);
    // Without TSQ a completion does nothing.
    out.clear();
    let mut plain = established(cfg(), 20, &mut out);
    out.clear();
    assert!(!plain.on_tx_done(Time::from_us(112), WIRE, &mut out));
    assert!(out.is_empty());
}

#[test]
fn a_refused_or_pushed_out_segment_frees_its_bytes_below_tcp() {
    let mut out = Vec::new();
    let mut s = established_wide(tsq(1 << 20), 5, &mut out);
    let below = s.bytes_below_tcp();
    let last = *out.last().unwrap();
    s.on_local_drop(Time::from_us(100), &last);
    assert_eq!(s.bytes_below_tcp(), below - WIRE);
    s.on_tx_freed(WIRE);
    assert_eq!(s.bytes_below_tcp(), below - 2 * WIRE);
}

#[test]
fn local_congestion_reduces_the_window_once_without_resending() {
    // NET_XMIT_CN: the qdisc took the segment but dropped another.
    let mut out = Vec::new();
    let mut s = established(cfg(), 10, &mut out);
    out.clear();
    let cwnd = s.cwnd();
    s.on_local_congestion(Time::from_us(150));
    assert!(s.cwnd() < cwnd, "CWR: {} -> {}", cwnd, s.cwnd());
    let reduced = s.cwnd();
    s.on_local_congestion(Time::from_us(151));
    assert_eq!(s.cwnd(), reduced, "once per window");
    assert!(out.is_empty(), "nothing sent again");
    assert_eq!(s.snd_nxt(), seg(10));
}

/// The `ns2` profile on this module's segments (1460 bytes, an initial
/// window of 10, a microsecond clock, 200 ms min RTO).
fn ns2() -> TcpConfig {
    TcpConfig {
        mss: MSS as u32,
        receive_window: Bytes(64 << 10),
        ..cfg()
    }
    .with_ns2_rules()
}

impl TcpConfig {
    /// This configuration with the ns2 profile's ns-2 rules and defaults
    /// that differ from `rfc` (limited transmit, no restart after idle).
    fn with_ns2_rules(self) -> TcpConfig {
        let n = profile("ns2");
        TcpConfig {
            halve_window: n.halve_window,
            ns2_recovery: n.ns2_recovery,
            idle_restart: n.idle_restart,
            ns2_limited_transmit: n.ns2_limited_transmit,
            ns2_rto: n.ns2_rto,
            ns2_sack1: n.ns2_sack1,
            backoff_restarts_srtt: n.backoff_restarts_srtt,
            limited_transmit: n.limited_transmit,
            slow_start_after_idle: n.slow_start_after_idle,
            ..self
        }
    }
}

#[test]
fn ns2_limited_transmit_after_a_timeout_sends_the_go_back_n_segment() {
    // tcp.cc send_one() on the first duplicate ACK sends t_seqno_, which a
    // timeout set back to highest_ack_ + 1: a retransmission below maxseq_.
    // RFC 3042 sends new data only (snd_nxt == snd_max), so nothing here.
    for ns2_lt in [true, false] {
        let c = TcpConfig {
            ns2_limited_transmit: ns2_lt,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 30, &mut out);
        assert_eq!(data_seqs(&out).len(), 10);
        let d = s.next_deadline().unwrap();
        s.on_timer(d, &mut out);
        out.clear();
        // A spurious timeout: the originals of segments 0-2 are acknowledged,
        // cwnd 2 resends 3 and 4 (go-back-N).
        let t = d + Time::from_us(10);
        s.on_segment(t, &ack(seg(3)), &mut out);
        assert_eq!(data_seqs(&out), vec![seg(3), seg(4)]);
        out.clear();
        // The receiver's duplicate ACK for the resent segment 0.
        s.on_segment(t, &ack(seg(3)), &mut out);
        let want = if ns2_lt { vec![seg(5)] } else { vec![] };
        assert_eq!(data_seqs(&out), want, "ns2_limited_transmit {ns2_lt}");
        assert_eq!(s.stats.timeouts, 1);
    }
}

#[test]
fn ns2_a_second_timeout_in_a_row_halves_the_one_segment_window_to_ssthresh_two() {
    // tcp.cc timeout(): slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)
    // halves min(cwnd_, window_); after the first timeout cwnd_ is 1, so
    // the second gives ssthresh_ 2. RFC 5681's FlightSize is still the ten
    // segments of before the timeout (go-back-N resent only the first).
    for halve in [true, false] {
        let c = TcpConfig {
            halve_window: halve,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 30, &mut out);
        assert_eq!(data_seqs(&out).len(), 10);
        let d = s.next_deadline().unwrap();
        s.on_timer(d, &mut out);
        assert_eq!(s.ssthresh(), 5 * MSS, "first timeout, halve {halve}");
        assert_eq!(s.cwnd(), MSS);
        let d = s.next_deadline().unwrap();
        s.on_timer(d, &mut out);
        assert_eq!(s.stats.timeouts, 2);
        let want = if halve { 2 * MSS } else { 5 * MSS };
        assert_eq!(s.ssthresh(), want, "second timeout, halve {halve}");
    }
}

#[test]
fn ns2_fast_retransmit_halves_cwnd_not_the_flight_limited_transmit_grew() {
    // 10 segments out, 0 lost: two limited-transmit segments on the first
    // two duplicates make the flight 12. ns-2's dupack_action():
    // slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) halves cwnd_ (10):
    // ssthresh_ 5, cwnd_ 5 and dupwnd_ 3. RFC 5681: FlightSize 12 / 2 = 6,
    // cwnd 6 + 3.
    for halve in [true, false] {
        let c = TcpConfig {
            halve_window: halve,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 30, &mut out);
        out.clear();
        for _ in 0..3 {
            s.on_segment(Time::from_us(300), &ack(seg(0)), &mut out);
        }
        assert_eq!(data_seqs(&out), vec![seg(10), seg(11), seg(0)]);
        let (ssthresh, cwnd) = if halve { (5, 8) } else { (6, 9) };
        assert_eq!((s.ssthresh(), s.cwnd()), (ssthresh * MSS, cwnd * MSS));
    }
}

#[test]
fn ns2_the_halved_window_is_at_most_the_receivers() {
    // min(cwnd_, wnd_): a cwnd grown past the advertised window is halved
    // from the window.
    let c = TcpConfig {
        initial_window: 30,
        ..ns2()
    };
    let mut out = Vec::new();
    let mut s = established(c, 40, &mut out);
    // The peer advertises 8 segments from now on; 30 were sent.
    let mut a = ack(seg(0));
    a.wnd = 8 * MSS as u32;
    s.on_segment(Time::from_us(300), &a, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    assert_eq!(s.ssthresh(), 4 * MSS);
}

#[test]
fn ns2_fast_retransmit_restarts_the_timer_and_stops_timing() {
    // reset_rtx_timer(1,0) in dupack_action(): set_rtx_timer() and
    // rtt_active_ = 0. RFC 6298 (5.1) leaves a running timer alone.
    for ns2_recovery in [true, false] {
        let c = TcpConfig {
            ns2_recovery,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 30, &mut out);
        let armed = s.next_deadline().unwrap();
        let t = Time::from_ms(50);
        for _ in 0..3 {
            s.on_segment(t, &ack(seg(0)), &mut out);
        }
        assert!(s.in_recovery());
        let d = s.next_deadline().unwrap();
        if ns2_recovery {
            assert_eq!(d, t + Time::from_ms(200));
            assert!(s.rtt_timing.get().is_none());
        } else {
            assert_eq!(d, armed);
        }
    }
}

#[test]
fn ns2_leaving_recovery_keeps_the_deflated_cwnd_and_opens_it() {
    // tcp-newreno.cc recv(): an ACK at or past recover_ sets dupwnd_ = 0
    // (exit_recovery_fix_ 0 leaves cwnd_) and recv_newack_helper() opens
    // cwnd_: 5 segments in congestion avoidance (ssthresh_ 5) + 1/5. RFC
    // 6582: min(ssthresh, max(FlightSize, SMSS) + SMSS) = 2 segments with
    // nothing left in flight.
    for ns2_recovery in [true, false] {
        let c = TcpConfig {
            ns2_recovery,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 12, &mut out);
        for _ in 0..5 {
            s.on_segment(Time::from_us(300), &ack(seg(0)), &mut out);
        }
        assert_eq!(s.cwnd(), 10 * MSS);
        s.on_segment(Time::from_us(400), &ack(seg(12)), &mut out);
        assert!(!s.in_recovery());
        let want = if ns2_recovery {
            5 * MSS + MSS * MSS / (5 * MSS)
        } else {
            2 * MSS
        };
        assert_eq!(s.cwnd(), want, "ns2_recovery {ns2_recovery}");
    }
}

#[test]
fn ns2_a_partial_ack_deflates_the_inflation_first_then_cwnd() {
    // partialnewack(): 6 segments acked with dupwnd_ 3: cwnd_ -= 6 - 3 (5
    // to 2), dupwnd_ = 1: the window, 3, is RFC 6582's 8 - 6 + 1. The full
    // ACK then leaves cwnd_ 2, below ssthresh_ 5: slow start adds one.
    let mut out = Vec::new();
    let mut s = established(ns2(), 12, &mut out);
    for _ in 0..3 {
        s.on_segment(Time::from_us(300), &ack(seg(0)), &mut out);
    }
    out.clear();
    s.on_segment(Time::from_us(400), &ack(seg(6)), &mut out);
    assert!(s.in_recovery());
    assert_eq!(data_seqs(&out), vec![seg(6)]);
    assert_eq!(s.cwnd(), 3 * MSS);
    s.on_segment(Time::from_us(500), &ack(seg(12)), &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 3 * MSS);
}

#[test]
fn ns2_reno_checks_recover_with_bugfix_and_reenters_without() {
    // tcp-reno.cc dupack_action(): `if (recovered || (!bug_fix_ && !ecn_)
    // ...) goto reno_action;` With bugFix_ (recover_check) duplicates of
    // data sent before a timeout start no fast retransmit; without, every
    // new run of three duplicate ACKs does.
    for recover_check in [true, false] {
        let c = TcpConfig {
            cc: CcKind::Reno,
            recover_check,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 30, &mut out);
        let d = s.next_deadline().unwrap();
        s.on_timer(d, &mut out);
        let t = d + Time::from_us(50);
        for _ in 0..3 {
            s.on_segment(t, &ack(1), &mut out);
        }
        let first = if recover_check { 0 } else { 1 };
        assert_eq!(
            s.stats.fast_retransmits, first,
            "recover_check {recover_check}"
        );
        // A new ACK, then a new run of three duplicates of it.
        s.on_segment(t, &ack(seg(2)), &mut out);
        for _ in 0..3 {
            s.on_segment(t, &ack(seg(2)), &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, first + 1 - recover_check as u64);
    }
    // The rfc profile's Reno has no such check.
    let c = TcpConfig {
        cc: CcKind::Reno,
        ..cfg()
    };
    let mut out = Vec::new();
    let mut s = established(c, 30, &mut out);
    let d = s.next_deadline().unwrap();
    s.on_timer(d, &mut out);
    for _ in 0..3 {
        s.on_segment(d + Time::from_us(50), &ack(1), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn ns2_an_idle_sender_restarts_from_one_segment_when_its_timer_fires() {
    // newack() -> newtimer() re-arms the timer even when all is acked; the
    // timeout with nothing outstanding (slow_start_restart_,
    // restart_bugfix_) sets cwnd_ = 1, keeps ssthresh_, does not back off,
    // and re-arms.
    for idle_restart in [true, false] {
        let c = TcpConfig {
            idle_restart,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 10, &mut out);
        let t = Time::from_us(300);
        s.on_segment(t, &ack(seg(10)), &mut out);
        assert_eq!(s.cwnd(), 11 * MSS);
        if !idle_restart {
            assert_eq!(s.next_deadline(), None);
            continue;
        }
        let d = s.next_deadline().unwrap();
        assert_eq!(d, t + Time::from_ms(200));
        out.clear();
        s.on_timer(d, &mut out);
        assert!(out.is_empty());
        assert_eq!((s.cwnd(), s.ssthresh()), (MSS, u64::MAX));
        assert_eq!(s.stats.timeouts, 0);
        // (ns-2 re-arms it; further expiries while idle change nothing.)
        assert_eq!(s.next_deadline(), None);
        // New data after the restart: one segment, with the timer restarted.
        let w = d + Time::from_ms(10);
        s.write(w, 5 * MSS, &mut out);
        assert_eq!(data_seqs(&out), vec![seg(10)]);
        assert_eq!(s.next_deadline(), Some(w + Time::from_ms(200)));
    }
}

#[test]
fn ns2_rtt_samples_count_tick_boundaries() {
    // rtt_update() without timestamps: t_rtt_ = int((tao + tickoff) /
    // tcp_tick_), the tick boundaries crossed. Sent at 1 ms, answered at
    // 16 ms on a 10 ms tick: one boundary (10 ms), so 1 tick, where
    // rounding 15 ms gives 2.
    for ns2_rto in [true, false] {
        let c = TcpConfig {
            ns2_rto,
            clock: TimerClock::granular(Time::from_ms(10)),
            granularity: Time::from_ms(10),
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = TcpSocket::new(c, 0, 0, 1, false);
        s.connect(Time::from_ms(1), &mut out);
        s.on_segment(
            Time::from_ms(16),
            &from_peer(0, 1, 0, flags::SYN | flags::ACK),
            &mut out,
        );
        let want = if ns2_rto { 10 } else { 20 };
        assert_eq!(s.srtt(), Some(Time::from_ms(want)));
    }
}

#[test]
fn ns2_sack_recovery_halves_cwnd_not_an_application_limited_flight() {
    // tcp-sack1.cc: slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) halves
    // cwnd_ (10) however little is in flight (6 segments here): ssthresh_
    // and cwnd_ 5. RFC 6675 (4.2) halves the FlightSize: 3.
    for halve in [true, false] {
        let c = TcpConfig {
            sack: true,
            halve_window: halve,
            ..ns2()
        };
        let mut out = Vec::new();
        let mut s = established(c, 6, &mut out);
        assert_eq!(s.cwnd(), 10 * MSS);
        let t = Time::from_us(200);
        for i in 1..4 {
            s.on_segment(t, &ack_sack(seg(0), &[(seg(1), seg(i + 1))]), &mut out);
        }
        assert!(s.in_recovery());
        let want = if halve { 5 * MSS } else { 3 * MSS };
        assert_eq!((s.ssthresh(), s.cwnd()), (want, want), "halve {halve}");
    }
}

/// The ns2 rules with SACK, ns-2's Sack1 sender on or off.
fn sack1(on: bool) -> TcpConfig {
    TcpConfig {
        sack: true,
        ns2_sack1: on,
        recover_check: false,
        ..ns2()
    }
}

#[test]
fn ns2_sack1_counts_a_duplicate_only_when_its_sack_blocks_report_new_data() {
    // tcp-sack1.cc recv(): `if (scb_->CheckUpdate()) ++dupacks_`. Three
    // duplicates repeating one block are one duplicate to Sack1; RFC 6675
    // counts three and retransmits.
    for on in [true, false] {
        let mut out = Vec::new();
        let mut s = established(sack1(on), 10, &mut out);
        out.clear();
        let t = Time::from_us(200);
        for _ in 0..3 {
            s.on_segment(t, &ack_sack(seg(0), &[(seg(1), seg(2))]), &mut out);
        }
        assert_eq!(s.in_recovery(), !on, "ns2_sack1 {on}");
    }
}

#[test]
fn ns2_sack1_retransmits_every_hole_below_the_highest_sack() {
    // Segments 0 and 8 of 10 lost; limited transmit sends 10 and 11.
    // tcp-sack1.cc dupack_action(): on the third duplicate, pipe_ = 12 -
    // 3, cwnd_ 5, 0 retransmitted; each
    // further ACK takes one from pipe_; once SACKed data lies above 8,
    // send_much()'s GetNextRetran() returns it (scoreboard-rq.cc), though
    // RFC 6675's IsLost(8) wants three segments SACKed above it (two are).
    for on in [true, false] {
        let mut out = Vec::new();
        let mut s = established(sack1(on), 30, &mut out);
        out.clear();
        let t = Time::from_us(200);
        for i in 2..8 {
            s.on_segment(t, &ack_sack(seg(0), &[(seg(1), seg(i))]), &mut out);
        }
        assert!(s.in_recovery());
        if on {
            assert_eq!(data_seqs(&out), [seg(10), seg(11), seg(0)]);
        }
        out.clear();
        // 9, then 10 (the first limited-transmit segment) arrive: pipe_
        // (9 after the third duplicate) falls below cwnd_.
        for i in 10..12 {
            s.on_segment(
                t,
                &ack_sack(seg(0), &[(seg(9), seg(i)), (seg(1), seg(8))]),
                &mut out,
            );
        }
        assert_eq!(
            data_seqs(&out).contains(&seg(8)),
            on,
            "ns2_sack1 {on}: {:?}",
            data_seqs(&out)
        );
    }
}

#[test]
fn ns2_sack1_ignores_duplicates_after_a_timeout_until_new_data_is_acked() {
    // Sack1TcpAgent::timeout(): `timeout_ = TRUE`; recv() takes no
    // duplicate ACK into account until a new ACK clears it. RFC 6675 (with
    // recover_check off, ns-2's bugFix_ false) enters recovery on them.
    for on in [true, false] {
        let mut out = Vec::new();
        let mut s = established(sack1(on), 10, &mut out);
        let d = s.next_deadline().unwrap();
        s.on_timer(d, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        out.clear();
        let t = d + Time::from_us(100);
        for i in 2..6 {
            s.on_segment(t, &ack_sack(seg(0), &[(seg(1), seg(i))]), &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, u64::from(!on), "ns2_sack1 {on}");
    }
}

#[test]
fn ns2_sack1_a_partial_ack_sends_two_and_the_end_of_recovery_keeps_cwnd() {
    // Segments 0 and 5 of 10 lost, 30 written. tcp-sack1.cc: the ACK of 5
    // (a partial ACK) sends partial_ack_action()'s two packets, 5 and the
    // next un-SACKed one; the ACK of recover_ ends recovery with cwnd_
    // still 5 (newack() without opencwnd()). RFC 6675 sets cwnd =
    // ssthresh too, but retransmits 5 only once three segments above it
    // are SACKed.
    for on in [true, false] {
        let mut out = Vec::new();
        let mut s = established(sack1(on), 30, &mut out);
        out.clear();
        let t = Time::from_us(200);
        for i in 2..5 {
            s.on_segment(t, &ack_sack(seg(0), &[(seg(1), seg(i))]), &mut out);
        }
        assert!(s.in_recovery());
        out.clear();
        s.on_segment(t, &ack(seg(5)), &mut out);
        let sent = data_seqs(&out);
        assert_eq!(sent.contains(&seg(5)), on, "ns2_sack1 {on}: {sent:?}");
        if on {
            assert_eq!(sent[..2], [seg(5), seg(6)]);
        }
    }
}

#[test]
fn ns2_sack1_sink_reports_the_blocks_it_reported_last_not_the_highest() {
    // tcp-sink.cc Sacker::append_ack(), maxSackBlocks_ 3: after the block
    // of the segment just received come the entries of the SackStack (the
    // blocks reported last, three at most), not RFC 2018's highest. 0 lost;
    // 1, 4, 7, 10, 2, then 5 arrive: the stack holds [1,3) [10] [7], so the
    // ACK of 5 carries [4,6) [1,3) [10]; RFC 2018: [4,6) [10] [7].
    for on in [true, false] {
        let mut out = Vec::new();
        let mut r = TcpSocket::new(sack1(on), 0, 0, 1, true);
        r.open_established(Time::ZERO);
        let data = |i: u64| from_peer(1 + i * MSS, 1, MSS as u32, flags::ACK);
        for i in [2, 5, 8, 11, 3, 6] {
            r.on_segment(Time::from_us(100), &data(i - 1), &mut out);
        }
        let blocks: Vec<(u64, u64)> = out.last().unwrap().sack_blocks().collect();
        let b = |l: u64, h: u64| (seg(l), seg(h));
        let want = if on {
            vec![b(4, 6), b(1, 3), b(10, 11)]
        } else {
            vec![b(4, 6), b(10, 11), b(7, 8)]
        };
        assert_eq!(blocks, want, "ns2_sack1 {on}");
    }
}
