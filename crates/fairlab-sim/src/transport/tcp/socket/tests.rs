//! Scripted tests of one TCP endpoint: each drives a socket through a
//! sequence of segments and losses and checks what it emits, against values
//! computed by hand from RFC 5681, RFC 6582 and RFC 6298.

use super::*;
use crate::transport::tcp::config::{Profile, TimerClock};

const MSS: u64 = 1460;

fn cfg() -> TcpConfig {
    TcpConfig {
        initial_window: 10,
        clock: TimerClock {
            tick: Time::from_us(1),
        },
        granularity: Time::from_us(1),
        min_rto: Time::from_ms(200),
        ..Profile::Rfc.config()
    }
}

/// A segment from the peer (node 1) to the socket under test (node 0).
fn from_peer(seq: u64, ack: u64, payload: u32, fl: u8) -> Packet {
    Packet {
        seq,
        ack,
        conn: 0,
        src: 1,
        dst: 0,
        payload,
        wnd: 6 << 20,
        flags: fl,
        from_passive: true,
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
    let sent_at = Time::from_us(100);
    let mut deadline = s.next_deadline().unwrap();
    assert_eq!(deadline, sent_at + Time::from_ms(200));
    let mut expect_gap = Time::from_ms(400);
    for k in 1..=4 {
        out.clear();
        s.on_timer(deadline, &mut out);
        assert_eq!(s.stats.timeouts, k);
        assert_eq!(data_seqs(&out), vec![seg(0)]);
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
        from_passive: false,
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
        from_passive: false,
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
