//! BIC as Linux runs it: net/ipv4/tcp_bic.c (Stephen Hemminger's port of
//! the authors' code) with the window arithmetic of net/ipv4/tcp_cong.c, as
//! in the 2.6.32 to 3.12 kernels that the TCP outcast study's hosts ran.
//! `cc = "bic"`; the INFOCOM 2004 paper's rules are `bic_paper.rs`.
//!
//! Linux does not decide an increase per RTT. It keeps cwnd in whole
//! segments and adds one segment per `cnt` ACKs (tcp_cong_avoid_ai with the
//! socket's counter snd_cwnd_cnt; in these kernels on the ACK after the
//! counter reaches cnt); bictcp_update sets `cnt` on each ACK from the
//! distance to the window of the last loss (last_max_cwnd, W_max), so that
//! per RTT the window moves nominally (a little less, by that extra ACK and
//! integer truncation)
//! * (W_max - cwnd)/4 below W_max (BICTCP_B = 4), at most 16 (max_increment)
//!   and, within 7 segments of W_max, 0.2 segment (smooth_part);
//! * 0.2 segment within 4 segments above W_max, then (cwnd - W_max)/3, and
//!   16 from 48 segments above on;
//! * 1 segment at or below low_window = 14 (Reno), and at most 5 % of the
//!   window while W_max is 0 (before the first loss and after a timeout).
//!
//! Above low_window `cnt` is divided by the measured ACK ratio (segments per
//! ACK, a moving average in 16ths sampled only in TCP_CA_Open), because the
//! counter counts ACKs: with delayed ACKs (two segments per ACK) the figures
//! above hold; with an ACK per segment the ratio's integer average stops at
//! 31/16 and BIC grows about 1.9 times as fast.
//!
//! A loss sets W_max = cwnd (or 0.9 cwnd below the previous W_max: fast
//! convergence) and ssthresh = 819/1024 cwnd (cwnd/2 at or below low_window,
//! at least 2). A timeout does the same if no reduction was made inside the
//! window (tcp_enter_loss keeps ssthresh otherwise) and then resets BIC
//! (bictcp_state on TCP_CA_Loss): W_max = 0, ACK ratio 2. Slow start, while
//! cwnd <= ssthresh, adds one segment per ACK (tcp_abc off, the default).
//!
//! Units: Linux counts segments. Here cwnd in segments is `cwnd / mss`
//! (whole segments, as Linux's snd_cwnd); each increase adds one `mss` to
//! the byte window, ssthresh is returned in whole segments, and the ACK
//! counter is an exact integer. Each `on_ack` is one ACK, counted once as
//! Linux counts it whatever it covers (a partial-segment ACK included); for
//! the ACK ratio an ACK's segments are its bytes over mss rounded up (a short
//! segment is one packet, as Linux counts its skbs).
//!
//! Kernel versions (read from the 2.6.1x file in torvalds/linux's history
//! and from 2.6.24, 2.6.32, 3.4, 3.18/4.9 and current trees).
//! tcp_bic.c's rules above are the same in all of them. The first versions
//! (2.6.1x) set initial_ssthresh = 100, so slow start ended at 100
//! segments; by 2.6.24 it is 0, ssthresh stays TCP_INFINITE_SSTHRESH and
//! slow start runs to the first loss, as modelled. Up to 2.6.24 the 20-ACK
//! cap tested loss_cwnd = 0 and bictcp_reset cleared loss_cwnd; 2.6.32 and
//! 3.x test last_max_cwnd = 0 and keep loss_cwnd for undo: both are 0
//! exactly before the first loss and after a timeout. tcp_cong.c: up to 3.18
//! tcp_cong_avoid_ai counts ACKs and adds a segment when the counter has
//! reached cnt, on the next ACK (every cnt + 1 ACKs), as modelled; slow
//! start adds one segment per ACK up to 3.12 (3.13-3.18: one per segment
//! acked, up to ssthresh + 1). By 4.9 tcp_cong_avoid_ai counts segments
//! (every cnt segments acked) and slow start (then while cwnd < ssthresh)
//! hands what exceeds ssthresh to congestion avoidance, while tcp_bic.c
//! still divides cnt by the ACK ratio: on a delayed-ACK path a 4.x BIC grows
//! about twice as fast as a 3.x one. Today's file drops loss_cwnd and undoes
//! with tcp_reno_undo_cwnd.
//!
//! Not modelled: undo (2.6.32-3.x bictcp_undo_cwnd, max(cwnd, loss_cwnd);
//! today tcp_reno_undo_cwnd): fairlab detects no spurious retransmission
//! (no DSACK, F-RTO or Eifel), so no reduction is undone, and loss_cwnd,
//! which only undo reads, is not kept. epoch_start (recorded, never read).
//! snd_cwnd_clamp.

use super::{AckEvent, CongestionControl, Window};
use crate::units::Time;

/// tcp_bic.c BICTCP_BETA_SCALE: `BETA` is in 1024ths.
pub const BETA_SCALE: u64 = 1024;
/// tcp_bic.c beta = 819: ssthresh = 819/1024 cwnd (about 0.8) above low_window.
pub const BETA: u64 = 819;
/// tcp_bic.c BICTCP_B = 4: the binary search moves 1/4 of the distance to
/// W_max per RTT ("go to point (max+min)/N").
pub const B: u64 = 4;
/// tcp_bic.c fast_convergence = 1.
pub const FAST_CONVERGENCE: bool = true;
/// tcp_bic.c max_increment = 16: the largest increase per RTT, segments.
pub const MAX_INCREMENT: u64 = 16;
/// tcp_bic.c low_window = 14: at or below it BIC is Reno (segments).
pub const LOW_WINDOW: u64 = 14;
/// tcp_bic.c smooth_part = 20: near W_max cnt = cwnd * 20 / B, one segment
/// per 5 windows acknowledged (0.2 segment per RTT).
pub const SMOOTH_PART: u64 = 20;
/// tcp_bic.c bictcp_update: cnt at most 20 (a 5 % increase per RTT) while
/// last_max_cwnd is 0.
pub const CNT_CAP_WITHOUT_W_MAX: u64 = 20;
/// tcp_bic.c ACK_RATIO_SHIFT = 4: delayed_ack is the ACK ratio in 16ths.
pub const ACK_RATIO_SHIFT: u32 = 4;
/// tcp_bic.c bictcp_update: with cwnd unchanged, cnt is recomputed only
/// after HZ/32 jiffies (1/32 s; the rounding to jiffies is not modelled).
pub const UPDATE_INTERVAL: Time = Time::from_us(31_250);

/// tcp_bic.c bictcp_reset: the ACK ratio starts at 2 (`2 << ACK_RATIO_SHIFT`).
const INITIAL_DELAYED_ACK: u64 = 2 << ACK_RATIO_SHIFT;

#[derive(Clone, Debug)]
pub struct Bic {
    /// ca->cnt: ACKs per one-segment increase in congestion avoidance.
    cnt: u64,
    /// ca->last_max_cwnd (segments): W_max, lowered by fast convergence; 0
    /// before the first loss and after a timeout.
    last_max_cwnd: u64,
    /// ca->last_cwnd and ca->last_time: the cwnd `cnt` was computed at, and
    /// when.
    last_cwnd: u64,
    last_time: Time,
    /// ca->delayed_ack: segments per ACK in 16ths, a moving average.
    delayed_ack: u64,
    /// tp->snd_cwnd_cnt: ACKs counted toward the next increase (slow start
    /// uses it too). The socket's in Linux, here the algorithm's.
    cwnd_cnt: u64,
}

impl Default for Bic {
    fn default() -> Bic {
        Bic::new()
    }
}

/// tcp_bic.c bictcp_update, without its rate limit: ACKs per one-segment
/// increase at `cwnd` segments with W_max = `last_max_cwnd` and the ACK
/// ratio `delayed_ack` (16ths).
pub fn cnt_for(cwnd: u64, last_max_cwnd: u64, delayed_ack: u64) -> u64 {
    // "start off normal": Reno, one segment per window of ACKs; returns
    // before the cap and the ACK-ratio scaling.
    if cwnd <= LOW_WINDOW {
        return cwnd;
    }
    let w_max = last_max_cwnd;
    let mut cnt = if cwnd < w_max {
        // Binary increase: a quarter of the distance per RTT.
        let dist = (w_max - cwnd) / B;
        if dist > MAX_INCREMENT {
            // "linear increase": max_increment per RTT.
            cwnd / MAX_INCREMENT
        } else if dist <= 1 {
            // "binary search increase", within 2B - 1 of W_max: smooth_part.
            cwnd * SMOOTH_PART / B
        } else {
            cwnd / dist
        }
    } else if cwnd < w_max + B {
        // "slow start AMD linear increase": just above W_max, smooth_part.
        cwnd * SMOOTH_PART / B
    } else if cwnd < w_max + MAX_INCREMENT * (B - 1) {
        // (cwnd - W_max)/(B - 1) per RTT, up to W_max + 48.
        cwnd * (B - 1) / (cwnd - w_max)
    } else {
        // "linear increase".
        cwnd / MAX_INCREMENT
    };
    // "if in slow start or link utilization is very low": no W_max (no loss
    // yet, or a timeout since), at least 5 % per RTT.
    if w_max == 0 && cnt > CNT_CAP_WITHOUT_W_MAX {
        cnt = CNT_CAP_WITHOUT_W_MAX;
    }
    // Scaled by the ACK ratio, since the counter counts ACKs; at least 1.
    ((cnt << ACK_RATIO_SHIFT) / delayed_ack.max(1)).max(1)
}

impl Bic {
    pub fn new() -> Bic {
        let mut b = Bic {
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: Time::ZERO,
            delayed_ack: 0,
            cwnd_cnt: 0,
        };
        // tcp_bic.c bictcp_init. (initial_ssthresh = 0 in 2.6.32-3.x: the
        // socket's ssthresh stays "infinite".)
        b.reset();
        b
    }

    /// tcp_bic.c bictcp_reset, from bictcp_init and on TCP_CA_Loss.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = Time::ZERO;
        self.delayed_ack = INITIAL_DELAYED_ACK;
    }

    /// W_max (last_max_cwnd), segments.
    pub fn last_max_cwnd(&self) -> u64 {
        self.last_max_cwnd
    }
    /// ACKs per one-segment increase, as last computed.
    pub fn cnt(&self) -> u64 {
        self.cnt
    }
    /// The ACK ratio in 16ths.
    pub fn delayed_ack(&self) -> u64 {
        self.delayed_ack
    }

    /// tcp_bic.c bictcp_update: `cnt` for `cwnd` segments, recomputed only
    /// when cwnd has changed or HZ/32 has passed.
    fn update(&mut self, cwnd: u64, now: Time) {
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= UPDATE_INTERVAL {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        self.cnt = cnt_for(cwnd, self.last_max_cwnd, self.delayed_ack);
    }

    /// tcp_bic.c bictcp_recalc_ssthresh, in segments.
    fn recalc_ssthresh(&mut self, cwnd: u64) -> u64 {
        // W_max and fast convergence: a loss below the last maximum
        // remembers (1 + beta)/2 of the window (1843/2048, about 0.9).
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && FAST_CONVERGENCE {
            cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        if cwnd <= LOW_WINDOW {
            (cwnd >> 1).max(2)
        } else {
            (cwnd * BETA / BETA_SCALE).max(2)
        }
    }
}

impl CongestionControl for Bic {
    /// tcp_bic.c bictcp_acked: in TCP_CA_Open, the ACK ratio moves 1/16 of
    /// the way to this ACK's segment count (integer arithmetic, as Linux).
    fn on_packets_acked(&mut self, w: &Window, ack: &AckEvent) {
        if !ack.ca_open || ack.acked == 0 {
            return;
        }
        let pkts = ack.acked.div_ceil(w.mss);
        self.delayed_ack = self.delayed_ack - (self.delayed_ack >> ACK_RATIO_SHIFT) + pkts;
    }

    /// tcp_bic.c bictcp_cong_avoid (the socket has checked
    /// tcp_is_cwnd_limited).
    fn on_ack(&mut self, w: &mut Window, ack: &AckEvent) {
        let mss = w.mss;
        let cwnd = (w.cwnd / mss).max(1);
        if cwnd <= w.ssthresh / mss {
            // Slow start while snd_cwnd <= snd_ssthresh (2.6.32-3.x;
            // `<` from 4.x). tcp_slow_start (2.6.32-3.12, ABC and
            // max_ssthresh off): snd_cwnd_cnt += snd_cwnd and each whole
            // snd_cwnd of it is a segment, i.e. one segment per ACK. (2.6.32
            // compares with the growing cwnd, 3.x with the one at entry: the
            // same unless the carried count reaches cwnd.)
            self.cwnd_cnt += cwnd;
            let delta = self.cwnd_cnt / cwnd;
            self.cwnd_cnt -= delta * cwnd;
            w.cwnd += delta * mss;
            return;
        }
        self.update(cwnd, ack.now);
        // tcp_cong_avoid_ai (2.6.32-3.18): per ACK, one segment once the
        // counter has reached cnt, then the counter restarts.
        if self.cwnd_cnt >= self.cnt {
            w.cwnd += mss;
            self.cwnd_cnt = 0;
        } else {
            self.cwnd_cnt += 1;
        }
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _now: Time) -> u64 {
        // tcp_fastretrans_alert on entering recovery, tcp_enter_cwr:
        // snd_cwnd_cnt = 0, then the algorithm's ssthresh.
        self.cwnd_cnt = 0;
        self.recalc_ssthresh(w.cwnd / w.mss) * w.mss
    }

    /// tcp_input.c tcp_enter_loss: ssthresh from bictcp_recalc_ssthresh if
    /// no reduction was made inside this window, else kept; snd_cwnd_cnt =
    /// 0; then tcp_set_ca_state(TCP_CA_Loss), on which bictcp_state resets
    /// BIC (W_max = 0, ACK ratio 2).
    fn ssthresh_after_timeout(&mut self, w: &Window, _flight: u64, _now: Time, fresh: bool) -> u64 {
        let ssthresh = if fresh {
            self.recalc_ssthresh(w.cwnd / w.mss) * w.mss
        } else {
            w.ssthresh
        };
        self.cwnd_cnt = 0;
        self.reset();
        ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::testing;

    const MSS: u64 = 1000;
    /// The ratio of a receiver that ACKs every second segment, in 16ths.
    const DELACK: u64 = 32;

    fn window(cwnd: u64, ssthresh: u64) -> Window {
        Window {
            cwnd: cwnd * MSS,
            ssthresh: ssthresh * MSS,
            mss: MSS,
        }
    }

    fn segs(w: &Window) -> u64 {
        w.cwnd / MSS
    }

    /// One ACK of `n` segments at `now`, in TCP_CA_Open unless `open` is
    /// false: bictcp_acked, then bictcp_cong_avoid.
    fn ack_open(b: &mut Bic, w: &mut Window, n: u64, now: Time, open: bool) {
        let a = AckEvent {
            acked: n * MSS,
            ca_open: open,
            ..testing::ack(now, MSS, w.cwnd, Time::from_us(100), 0, 0)
        };
        b.on_packets_acked(w, &a);
        b.on_ack(w, &a);
    }

    fn ack(b: &mut Bic, w: &mut Window, n: u64, now: Time) {
        ack_open(b, w, n, now, true);
    }

    /// One RTT: a window of ACKs of `per_ack` segments each (the window at
    /// the round's start), 1 ms after `t`, which it advances. Returns the
    /// segments added.
    fn rtt(b: &mut Bic, w: &mut Window, per_ack: u64, t: &mut Time) -> u64 {
        *t += Time::from_ms(1);
        let before = segs(w);
        for _ in 0..before / per_ack {
            ack(b, w, per_ack, *t);
        }
        segs(w) - before
    }

    /// A fast retransmit at `cwnd` segments and a recovery that ends with
    /// cwnd = ssthresh.
    fn loss_at(b: &mut Bic, w: &mut Window, cwnd: u64) {
        w.cwnd = cwnd * MSS;
        w.ssthresh = b.ssthresh_after_loss(w, w.cwnd, Time::ZERO);
        w.cwnd = w.ssthresh;
    }

    #[test]
    fn cnt_follows_the_distance_to_w_max_in_every_branch() {
        // (cwnd, W_max, ACKs per segment before and after the ACK ratio 2).
        for (cwnd, w_max, raw) in [
            // At or below low_window: Reno, cnt = cwnd, not scaled.
            (10, 0, 10),
            (14, 100, 14),
            // Below W_max, dist = (W_max - cwnd)/4 > 16: cwnd/16.
            (400, 500, 25),
            // 1 < dist <= 16: cwnd/dist.
            (80, 100, 80 / 5),
            (92, 100, 92 / 2),
            // dist <= 1 (within 7 segments): cwnd * 20/4.
            (96, 100, 96 * 5),
            (99, 100, 99 * 5),
            // At W_max and within 4 above: cwnd * 20/4.
            (100, 100, 500),
            (103, 100, 515),
            // Up to W_max + 48: cwnd * 3/(cwnd - W_max).
            (104, 100, 104 * 3 / 4),
            (130, 100, 130 * 3 / 30),
            (147, 100, 147 * 3 / 47),
            // Beyond: cwnd/16.
            (148, 100, 148 / 16),
            (1000, 100, 1000 / 16),
        ] {
            let want = if cwnd <= LOW_WINDOW {
                raw
            } else {
                (raw / 2).max(1)
            };
            assert_eq!(
                cnt_for(cwnd, w_max, DELACK),
                want,
                "cwnd {cwnd}, W_max {w_max}"
            );
        }
    }

    #[test]
    fn without_w_max_cnt_is_capped_at_20_acks_per_segment() {
        // W_max = 0 (no loss yet, or a timeout since): cwnd is "above W_max":
        // 3 below 48 segments, then cwnd/16, but never more than 20.
        assert_eq!(cnt_for(30, 0, 16), 3);
        assert_eq!(cnt_for(300, 0, 16), 300 / 16);
        assert_eq!(cnt_for(1000, 0, 16), 20);
        assert_eq!(cnt_for(1000, 100, 16), 1000 / 16);
        // Scaled after the cap, at least 1.
        assert_eq!(cnt_for(1000, 0, DELACK), 10);
        assert_eq!(cnt_for(30, 0, DELACK), 1);
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack_up_to_and_at_ssthresh() {
        let mut b = Bic::new();
        let mut w = window(10, 12);
        // A two-segment ACK adds one segment, as a one-segment ACK does.
        ack(&mut b, &mut w, 2, Time::ZERO);
        assert_eq!(segs(&w), 11);
        ack(&mut b, &mut w, 1, Time::ZERO);
        assert_eq!(segs(&w), 12);
        // cwnd = ssthresh is still slow start in these kernels.
        ack(&mut b, &mut w, 1, Time::ZERO);
        assert_eq!(segs(&w), 13);
        // Then congestion avoidance: Reno's cnt = cwnd.
        ack(&mut b, &mut w, 1, Time::ZERO);
        assert_eq!(segs(&w), 13);
        assert_eq!(b.cnt(), 13);
    }

    #[test]
    fn at_or_below_low_window_a_segment_takes_cwnd_plus_one_acks() {
        let mut b = Bic::new();
        let mut w = window(12, 11);
        let mut n = 0;
        while segs(&w) == 12 {
            ack(&mut b, &mut w, 2, Time::ZERO);
            n += 1;
        }
        // cnt = 12 whatever the ACK ratio; Linux's counter adds the segment
        // on the ACK after it reaches cnt.
        assert_eq!(b.cnt(), 12);
        assert_eq!(n, 13);
    }

    #[test]
    fn far_below_w_max_the_window_grows_16_segments_per_rtt_at_most() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 500);
        // ssthresh = 500 * 819/1024 = 399 (399.9, truncated).
        assert_eq!(segs(&w), 399);
        assert_eq!(b.last_max_cwnd(), 500);
        let mut t = Time::ZERO;
        // The first ACK finds cwnd = ssthresh: slow start, to 400. Then
        // cnt = 400/16 / 2 = 12 ACKs of 2 segments: a segment every 13 ACKs
        // (the counter must exceed cnt), 15 in the rest of the round's 199
        // ACKs. As cwnd/16 grows, so does cnt: 15, then 14 per RTT, where the
        // paper's and Linux's nominal step is 16.
        assert_eq!(rtt(&mut b, &mut w, 2, &mut t), 1 + 15);
        assert_eq!(rtt(&mut b, &mut w, 2, &mut t), 15);
        assert_eq!(rtt(&mut b, &mut w, 2, &mut t), 14);
        assert_eq!(segs(&w), 444);
        // Within 68 segments of W_max the step is a quarter of the distance:
        // cnt = 444/((500 - 444)/4) / 2.
        assert_eq!(b.cnt(), 444 / 14 / 2);
    }

    #[test]
    fn below_w_max_the_window_closes_a_quarter_of_the_gap_per_rtt_then_creeps() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 100);
        assert_eq!(segs(&w), 79);
        let mut t = Time::ZERO;
        let mut at = vec![segs(&w)];
        for _ in 0..12 {
            rtt(&mut b, &mut w, 2, &mut t);
            at.push(segs(&w));
        }
        // Gaps of 21, 17, 14, 11, 9 segments close by 4, 3, 3, 2, 2 (a
        // quarter, less the counter's extra ACK and the truncations); within
        // 7 of W_max (dist <= 1) the window creeps at 0.2 segment per RTT:
        // 93 for five RTTs, then 94.
        assert_eq!(
            at,
            [79, 83, 86, 89, 91, 93, 93, 93, 93, 93, 94, 94, 94],
            "{at:?}"
        );
    }

    #[test]
    fn near_w_max_a_segment_takes_five_windows_of_acks() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 100);
        // At 97 and at 101: cnt = cwnd * 20/4 / 2, one segment per 5 RTTs of
        // ACKs of 2 segments (0.2 segment per RTT).
        for cwnd in [97, 101] {
            w.cwnd = cwnd * MSS;
            let mut n = 0;
            while segs(&w) == cwnd {
                ack(&mut b, &mut w, 2, Time::ZERO);
                n += 1;
            }
            assert_eq!(b.cnt(), cwnd * 5 / 2);
            assert_eq!(n, cwnd * 5 / 2 + 1);
            assert_eq!(2 * n / cwnd, 5);
        }
    }

    #[test]
    fn above_w_max_probing_speeds_up_to_16_segments_per_rtt() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 100);
        w.cwnd = 120 * MSS;
        let mut t = Time::ZERO;
        // At 120: cnt = 120 * 3/20 / 2 = 9, falling as cwnd rises: 6 in 60
        // ACKs (about (cwnd - W_max)/3).
        assert_eq!(rtt(&mut b, &mut w, 2, &mut t), 6);
        w.cwnd = 200 * MSS;
        // From W_max + 48: cnt = 200/16 / 2 = 6, a segment per 7 ACKs: 15 in
        // 100 ACKs (cnt stays 6 to 223).
        assert_eq!(rtt(&mut b, &mut w, 2, &mut t), 15);
    }

    #[test]
    fn before_any_loss_growth_is_at_most_5_percent_per_rtt() {
        // Congestion avoidance with W_max = 0 (an ssthresh set by hand, as
        // after a timeout): cnt = min(1000/16, 20) = 20, / 2: a segment every
        // 11 ACKs, 45 per RTT of 500 ACKs; with a W_max it would be 15.
        let mut b = Bic::new();
        let mut w = window(1000, 500);
        let mut t = Time::ZERO;
        assert_eq!(rtt(&mut b, &mut w, 2, &mut t), 45);
        assert_eq!(b.last_max_cwnd(), 0);
        assert_eq!(b.cnt(), 10);
    }

    #[test]
    fn an_ack_per_segment_holds_the_ack_ratio_at_31_16ths_and_growth_nearly_doubles() {
        let mut b = Bic::new();
        let mut w = window(1000, 0);
        assert_eq!(b.delayed_ack(), 32);
        // ratio += segments - ratio/16 (integers): 32 + 1 - 2 = 31, then
        // 31 + 1 - 1 = 31 for ever.
        for _ in 0..100 {
            ack(&mut b, &mut w, 1, Time::ZERO);
            assert_eq!(b.delayed_ack(), 31);
        }
        // Two segments per ACK: 31 + 2 - 1 = 32, then 32 + 2 - 2 = 32.
        for _ in 0..100 {
            ack(&mut b, &mut w, 2, Time::ZERO);
            assert_eq!(b.delayed_ack(), 32);
        }
        // A stretch ACK of 10 segments moves it by 1/16 of the difference.
        ack(&mut b, &mut w, 10, Time::ZERO);
        assert_eq!(b.delayed_ack(), 32 - 2 + 10);
        // Far below W_max (W_max 500, from 399): with an ACK per segment
        // cnt = 25 * 16/31 = 12 ACKs of one segment, a segment per 13
        // segments acked instead of 26: 30 and 26 segments in the first two
        // RTTs against 16 and 15 with two segments per ACK.
        for (per_ack, want) in [(1, [30, 26]), (2, [16, 15])] {
            let mut b = Bic::new();
            let mut w = window(0, 0);
            loss_at(&mut b, &mut w, 500);
            let mut t = Time::ZERO;
            let got = [0, 1].map(|_| rtt(&mut b, &mut w, per_ack, &mut t));
            assert_eq!(got, want, "{per_ack} segments per ACK");
            assert_eq!(b.delayed_ack(), 30 + per_ack);
        }
    }

    #[test]
    fn the_ack_ratio_is_sampled_only_in_ca_open() {
        let mut b = Bic::new();
        let mut w = window(100, 0);
        for _ in 0..20 {
            ack_open(&mut b, &mut w, 10, Time::ZERO, false);
        }
        assert_eq!(b.delayed_ack(), 32);
        ack_open(&mut b, &mut w, 10, Time::ZERO, true);
        assert_eq!(b.delayed_ack(), 40);
    }

    #[test]
    fn cnt_is_recomputed_when_cwnd_changes_or_after_a_32nd_of_a_second() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 500);
        w.cwnd = 400 * MSS;
        let t0 = Time::from_secs(1);
        ack(&mut b, &mut w, 2, t0);
        assert_eq!(b.cnt(), 12);
        // A stretch ACK of 20 segments raises the ratio to 50/16.
        ack(&mut b, &mut w, 20, t0);
        assert_eq!(b.delayed_ack(), 32 - 2 + 20);
        // Same cwnd within 1/32 s: cnt is not recomputed. (These ACKs come
        // outside TCP_CA_Open, so that the ratio stays.)
        ack_open(&mut b, &mut w, 2, t0 + Time::from_ms(31), false);
        assert_eq!(segs(&w), 400);
        assert_eq!(b.cnt(), 12);
        // Later, it is: 25 * 16/50.
        ack_open(&mut b, &mut w, 2, t0 + Time::from_ms(32), false);
        assert_eq!(segs(&w), 400);
        assert_eq!(b.cnt(), 25 * 16 / 50);
    }

    #[test]
    fn ssthresh_is_819_1024_of_cwnd_above_low_window_and_half_at_or_below() {
        let mut b = Bic::new();
        for (cwnd, want) in [(100, 79), (15, 11), (14, 7), (5, 2), (3, 2), (1, 2)] {
            let w = window(cwnd, 1000);
            assert_eq!(
                b.ssthresh_after_loss(&w, 0, Time::ZERO),
                want * MSS,
                "{cwnd}"
            );
        }
    }

    #[test]
    fn fast_convergence_remembers_0_9_of_a_window_below_w_max() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 100);
        assert_eq!(b.last_max_cwnd(), 100);
        // 90 * 1843/2048 = 80.99: 80.
        loss_at(&mut b, &mut w, 90);
        assert_eq!(b.last_max_cwnd(), 80);
        // A loss above the remembered maximum: W_max = cwnd.
        loss_at(&mut b, &mut w, 95);
        assert_eq!(b.last_max_cwnd(), 95);
    }

    #[test]
    fn a_loss_restarts_the_ack_counter() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 100);
        w.cwnd = 120 * MSS;
        for _ in 0..5 {
            ack(&mut b, &mut w, 2, Time::ZERO);
        }
        assert_eq!(b.cwnd_cnt, 5);
        loss_at(&mut b, &mut w, 120);
        assert_eq!(b.cwnd_cnt, 0);
    }

    #[test]
    fn a_timeout_forgets_w_max_and_the_ack_ratio() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 500);
        ack(&mut b, &mut w, 1, Time::ZERO);
        ack(&mut b, &mut w, 1, Time::ZERO);
        assert_eq!(b.delayed_ack(), 31);
        w.cwnd = 450 * MSS;
        let ss = b.ssthresh_after_timeout(&w, w.cwnd, Time::ZERO, true);
        // ssthresh from bictcp_recalc_ssthresh, then bictcp_reset.
        assert_eq!(ss, 450 * 819 / 1024 * MSS);
        assert_eq!(b.last_max_cwnd(), 0);
        assert_eq!(b.delayed_ack(), 32);
        assert_eq!((b.cnt(), b.cwnd_cnt), (0, 0));
        // Back above ssthresh, growth is capped as before any loss: cnt =
        // min(360/16, 20) / 2 = 10; with the W_max of 404 that fast
        // convergence had left (450 * 0.9) it would be 360/11 / 2 = 16.
        w.ssthresh = ss;
        w.cwnd = ss + MSS;
        ack(&mut b, &mut w, 2, Time::ZERO);
        assert_eq!(b.cnt(), 10);
    }

    #[test]
    fn a_timeout_inside_a_reduced_window_keeps_ssthresh() {
        let mut b = Bic::new();
        let mut w = window(0, 0);
        loss_at(&mut b, &mut w, 100);
        // A timeout during recovery, or a second one with nothing acked in
        // between: tcp_enter_loss keeps ssthresh, but BIC is reset.
        w.cwnd = MSS;
        assert_eq!(b.ssthresh_after_timeout(&w, 0, Time::ZERO, false), 79 * MSS);
        assert_eq!(b.last_max_cwnd(), 0);
    }
}
