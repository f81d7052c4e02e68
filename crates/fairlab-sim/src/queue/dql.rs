//! Byte Queue Limits: a dynamic byte limit on a NIC's descriptor ring, so
//! that the backlog waits in the qdisc above it (where a discipline can act
//! on it) rather than in the ring (where only the NIC's FIFO order holds).
//!
//! Linux's `lib/dynamic_queue_limits.c` (Tom Herbert, 3.3) with the fixes
//! of 3.5 (`AFTER_EQ` for "all of the previous interval completed",
//! overflow-aware `POSDIFF`), as Linux 3.12 ran it. The driver calls
//! [`Dql::queued`] as it posts a packet (`netdev_tx_sent_queue`) and stops
//! the queue when [`Dql::avail`] goes negative; it calls [`Dql::completed`]
//! at each transmit completion (`netdev_tx_completed_queue`) and wakes the
//! queue when `avail` is back at or above zero. The limit starts at zero,
//! grows by what was sent and completed in an interval whenever the ring
//! ran dry while over its limit (starved), and shrinks by the smallest
//! slack seen over `slack_hold_time` (one second: `dql_init(dql, HZ)`)
//! while the ring stayed busy.
//!
//! Counts are `unsigned int` in Linux and wrap; they are `u32` here with
//! the same wrapping arithmetic. Time is the simulator's, not jiffies (a
//! hold of one second either way).

use crate::units::Time;

/// `DQL_MAX_OBJECT`: the most bytes one call may queue or complete.
const MAX_OBJECT: u32 = u32::MAX / 16;
/// `DQL_MAX_LIMIT`.
const MAX_LIMIT: u32 = (u32::MAX / 2) - MAX_OBJECT;

/// `POSDIFF(A, B)`: A - B if positive (as a signed difference), else 0.
#[inline]
fn posdiff(a: u32, b: u32) -> u32 {
    if (a.wrapping_sub(b) as i32) > 0 {
        a.wrapping_sub(b)
    } else {
        0
    }
}

/// `AFTER_EQ(A, B)`: A at or after B.
#[inline]
fn after_eq(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

/// One ring's dynamic queue limit (`struct dql`).
#[derive(Clone, Debug)]
pub struct Dql {
    // Fields changed by `queued`.
    /// Bytes queued so far (`num_queued`).
    num_queued: u32,
    /// `limit + num_completed`: `avail` is this minus `num_queued`.
    adj_limit: u32,
    /// Bytes of the last `queued` call.
    last_obj_cnt: u32,
    // Fields changed by `completed`.
    limit: u32,
    num_completed: u32,
    prev_ovlimit: u32,
    prev_num_queued: u32,
    prev_last_obj_cnt: u32,
    lowest_slack: u32,
    slack_start_time: Time,
    // Configuration (Linux's sysfs `limit_min`, `limit_max`, `hold_time`).
    min_limit: u32,
    max_limit: u32,
    slack_hold_time: Time,
}

impl Default for Dql {
    fn default() -> Self {
        Dql::new()
    }
}

impl Dql {
    /// `dql_init(dql, HZ)`: limits 0 to `DQL_MAX_LIMIT`, a one-second hold,
    /// then `dql_reset`: limit 0.
    pub fn new() -> Dql {
        Dql {
            num_queued: 0,
            adj_limit: 0,
            last_obj_cnt: 0,
            limit: 0,
            num_completed: 0,
            prev_ovlimit: 0,
            prev_num_queued: 0,
            prev_last_obj_cnt: 0,
            lowest_slack: u32::MAX,
            slack_start_time: Time::ZERO,
            min_limit: 0,
            max_limit: MAX_LIMIT,
            slack_hold_time: Time::from_secs(1),
        }
    }

    /// The current limit, bytes.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Bytes queued and not yet completed.
    pub fn in_flight(&self) -> u32 {
        self.num_queued.wrapping_sub(self.num_completed)
    }

    /// `dql_queued`: `count` bytes posted to the ring.
    #[inline]
    pub fn queued(&mut self, count: u32) {
        debug_assert!(count <= MAX_OBJECT);
        self.last_obj_cnt = count;
        self.num_queued = self.num_queued.wrapping_add(count);
    }

    /// `dql_avail`: bytes the ring may still take; the queue is stopped
    /// while this is negative.
    #[inline]
    pub fn avail(&self) -> i64 {
        self.adj_limit.wrapping_sub(self.num_queued) as i32 as i64
    }

    /// `dql_completed`: `count` bytes finished transmission at `now`;
    /// recalculates the limit.
    pub fn completed(&mut self, count: u32, now: Time) {
        let num_queued = self.num_queued;
        debug_assert!(count <= num_queued.wrapping_sub(self.num_completed));
        let completed = self.num_completed.wrapping_add(count);
        let mut limit = self.limit;
        let mut ovlimit = posdiff(num_queued.wrapping_sub(self.num_completed), limit);
        let inprogress = num_queued.wrapping_sub(completed);
        let prev_inprogress = self.prev_num_queued.wrapping_sub(self.num_completed);
        let all_prev_completed = after_eq(completed, self.prev_num_queued);

        if (ovlimit != 0 && inprogress == 0) || (self.prev_ovlimit != 0 && all_prev_completed) {
            // Starved: over the limit in the last interval and now empty,
            // or over it in the previous interval with everything of that
            // interval completed. Grow by what was both sent and completed
            // in the last interval, plus the previous over-limit.
            limit = limit
                .wrapping_add(posdiff(completed, self.prev_num_queued))
                .wrapping_add(self.prev_ovlimit);
            self.slack_start_time = now;
            self.lowest_slack = u32::MAX;
        } else if inprogress != 0 && prev_inprogress != 0 && !all_prev_completed {
            // Busy the whole interval: the slack is what was queued beyond
            // what prevents starvation; shrink by its smallest value over
            // the hold time (hysteresis).
            let slack = posdiff(
                limit.wrapping_add(self.prev_ovlimit),
                2u32.wrapping_mul(completed.wrapping_sub(self.num_completed)),
            );
            let slack_last_objs = if self.prev_ovlimit != 0 {
                posdiff(self.prev_last_obj_cnt, self.prev_ovlimit)
            } else {
                0
            };
            let slack = slack.max(slack_last_objs);
            if slack < self.lowest_slack {
                self.lowest_slack = slack;
            }
            if now > self.slack_start_time + self.slack_hold_time {
                limit = posdiff(limit, self.lowest_slack);
                self.slack_start_time = now;
                self.lowest_slack = u32::MAX;
            }
        }
        limit = limit.clamp(self.min_limit, self.max_limit);
        if limit != self.limit {
            self.limit = limit;
            ovlimit = 0;
        }
        self.adj_limit = limit.wrapping_add(completed);
        self.prev_ovlimit = ovlimit;
        self.prev_last_obj_cnt = self.last_obj_cnt;
        self.num_completed = completed;
        self.prev_num_queued = num_queued;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKT: u32 = 1500;

    #[test]
    fn an_empty_ring_takes_one_packet_then_stops_at_limit_zero() {
        let mut d = Dql::new();
        assert_eq!(d.avail(), 0, "limit 0: room for the first packet");
        d.queued(PKT);
        assert!(d.avail() < 0, "stopped after one packet");
    }

    #[test]
    fn a_ring_that_runs_dry_over_its_limit_grows_by_what_completed() {
        // One packet queued at limit 0 and completed: the ring was over its
        // limit and is now empty (starved), so the limit grows by the
        // packet: room for two after the completion.
        let mut d = Dql::new();
        d.queued(PKT);
        d.completed(PKT, Time::from_us(12));
        assert_eq!(d.limit(), PKT);
        assert_eq!(d.avail(), PKT as i64);
        d.queued(PKT);
        assert_eq!(d.avail(), 0);
        d.queued(PKT);
        assert!(d.avail() < 0);
        assert_eq!(d.in_flight(), 2 * PKT);
    }

    /// Drives a ring served at one packet per `gap` for `dur`, refilled
    /// whenever the limit allows; returns the limit at the end.
    fn steady(gap_us: u64, dur_ms: u64) -> (u32, u32) {
        let mut d = Dql::new();
        let mut now = Time::ZERO;
        let mut most = 0;
        let end = Time::from_ms(dur_ms);
        while now < end {
            while d.avail() >= 0 {
                d.queued(PKT);
            }
            now += Time::from_us(gap_us);
            d.completed(PKT, now);
            most = most.max(d.limit());
        }
        (d.limit(), most)
    }

    #[test]
    fn with_completions_one_packet_at_a_time_the_limit_settles_at_two_packets() {
        // A completion per packet (no interrupt coalescing): one packet on
        // the wire and one ready behind it keep the ring busy, and the
        // limit never grows past them.
        let (end, most) = steady(12, 3000);
        assert_eq!((end, most), (2 * PKT, 2 * PKT));
    }

    #[test]
    fn counts_wrap_as_linuxs_unsigned_ints_do() {
        let mut d = Dql::new();
        d.num_queued = u32::MAX - 100;
        d.num_completed = u32::MAX - 100;
        d.adj_limit = u32::MAX - 100;
        d.prev_num_queued = u32::MAX - 100;
        d.queued(PKT);
        d.completed(PKT, Time::from_us(1));
        assert_eq!(d.in_flight(), 0);
        assert_eq!(d.limit(), PKT, "starved: grows across the wrap");
    }
}
