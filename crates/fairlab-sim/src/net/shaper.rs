//! A port's shaper: a non-work-conserving token-bucket gate between the
//! port's queue and its wire, as Linux's `tc` puts one on an interface
//! (Mininet's links are veth pairs shaped this way). Two flavours, each
//! following its kernel source:
//!
//! * [`Shaper::tbf`], `net/sched/sch_tbf.c`: a packet leaves only when the
//!   bucket holds its whole transmission time at `rate`; otherwise it stays
//!   at the head of the queue (`tbf_dequeue` peeks its child bfifo, so the
//!   packet still counts against the child's limit) and the qdisc watchdog
//!   fires when the tokens will cover it.
//! * [`Shaper::htb`], `net/sched/sch_htb.c` with one class under the root,
//!   as Mininet's `TCIntf.bwCmds` sets it up (`htb rate R burst 15k`, ceil
//!   = rate): the class may send while both its buckets (`tokens` at rate,
//!   `ctokens` at ceil) are non-negative (`htb_class_mode` with
//!   `htb_hysteresis` off, its default), sends the packet, and only then is
//!   charged for it (`htb_charge_class`, `htb_accnt_tokens`,
//!   `htb_accnt_ctokens`), so the buckets may go negative; a class that
//!   cannot send waits for the time both reach zero (the wait queue of
//!   `htb_add_to_wait_tree`, then the watchdog of `htb_dequeue`).
//!
//! Tokens are kept as time, as Linux keeps them (there in nanoseconds, here
//! in integer picoseconds, the simulator's clock): a bucket of depth
//! `burst` at `rate` holds at most `burst`'s transmission time at `rate`,
//! and a packet of `L` bytes costs `L`'s transmission time (Linux's
//! `psched_l2t_ns`, here [`Serializer::time`], exact and rounded up). No
//! floating point: the per-packet arithmetic is integer additions and one
//! [`Serializer`] product per bucket.
//!
//! The port asks [`Shaper::check`] before it dequeues, and calls
//! [`Shaper::charge`] with the packet it dequeued; when the gate is closed
//! `check` says when it will open, and the port sleeps until then (a
//! wake-up event; `sim/ports.rs`). Why here and not in `queue/`: a shaper
//! holds no packets and chooses none; it only says *when* the port's next
//! packet may leave, whatever discipline chose it.

use crate::units::{BitsPerSec, Bytes, Serializer, Time, PS_PER_SEC};
use std::fmt;

/// HTB's `mbuffer` (`htb_change_class`: one minute): elapsed time counts
/// for at most this much, and a bucket goes no lower than `1 - mbuffer`.
const MBUFFER: i64 = 60 * PS_PER_SEC as i64;

/// One token bucket: a rate (to price packets) and a depth, in
/// picoseconds of transmission time at that rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bucket {
    rate: BitsPerSec,
    /// The rate's packet pricing (Linux's `psched_l2t_ns`).
    l2t: Serializer,
    /// Depth: `burst` bytes at `rate` (Linux's `buffer`).
    depth: i64,
    /// Tokens held (may be negative for HTB).
    tokens: i64,
}

impl Bucket {
    /// A full bucket of `burst` bytes at `rate` (both TBF and HTB start
    /// full: `tbf_change`, `htb_change_class`).
    fn full(rate: BitsPerSec, burst: Bytes) -> Bucket {
        let depth = depth(rate, burst);
        Bucket {
            rate,
            l2t: rate.serializer(),
            depth,
            tokens: depth,
        }
    }
    /// The price of a packet of `size`, in picoseconds.
    #[inline]
    fn price(&self, size: Bytes) -> i64 {
        self.l2t.time(size).0 as i64
    }
}

/// `burst` bytes of tokens at `rate`, in picoseconds (saturating; a valid
/// scenario keeps it at most `spec::limits::MAX_TIME`).
pub fn depth(rate: BitsPerSec, burst: Bytes) -> i64 {
    let ps = (burst.get() as u128 * 8 * PS_PER_SEC as u128).div_ceil(rate.get().max(1) as u128);
    ps.min(i64::MAX as u128 / 4) as i64
}

/// A token-bucket gate on a port (see the module comment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shaper {
    kind: Kind,
    /// When the tokens were last brought up to date (Linux's `t_c`).
    t_c: Time,
    /// Times the gate held a packet that the wire could have taken (each
    /// time the port had to sleep until the gate opened).
    pub waits: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Tbf(Bucket),
    /// One class: its rate bucket (`tokens`, `buffer`) and its ceil bucket
    /// (`ctokens`, `cbuffer`).
    Htb {
        rate: Bucket,
        ceil: Bucket,
    },
}

impl Shaper {
    /// Linux's `tbf rate R burst B`: a bucket of `burst` bytes at `rate`.
    /// A packet larger than `burst` can never pass (Linux drops it at
    /// enqueue): the spec refuses such a burst.
    pub fn tbf(rate: BitsPerSec, burst: Bytes) -> Shaper {
        Shaper {
            kind: Kind::Tbf(Bucket::full(rate, burst)),
            t_c: Time::ZERO,
            waits: 0,
        }
    }

    /// Linux's `htb` with one class `rate R burst B cburst C` (ceil = rate,
    /// tc's default when no ceil is given).
    pub fn htb(rate: BitsPerSec, burst: Bytes, cburst: Bytes) -> Shaper {
        Shaper {
            kind: Kind::Htb {
                rate: Bucket::full(rate, burst),
                ceil: Bucket::full(rate, cburst),
            },
            t_c: Time::ZERO,
            waits: 0,
        }
    }

    /// Whether [`Shaper::check`] needs the size of the packet it gates
    /// (TBF prices the head before sending it; HTB after).
    #[inline]
    pub fn needs_head(&self) -> bool {
        matches!(self.kind, Kind::Tbf(_))
    }

    /// The shaping rate.
    pub fn rate(&self) -> BitsPerSec {
        match &self.kind {
            Kind::Tbf(b) => b.rate,
            Kind::Htb { rate, .. } => rate.rate,
        }
    }

    /// Whether the port's next packet may leave at `now`: `Ok`, or the
    /// time (after `now`) at which it may. `head()` gives that packet's
    /// size; only TBF calls it.
    #[inline]
    pub fn check(&self, now: Time, head: impl FnOnce() -> Bytes) -> Result<(), Time> {
        let elapsed = now.0 - self.t_c.0;
        match &self.kind {
            Kind::Tbf(b) => {
                // tbf_dequeue: toks = min(now - t_c, buffer) + tokens,
                // capped at buffer, less the head's price.
                let toks = tbf_tokens(b, elapsed) - b.price(head());
                if toks >= 0 {
                    Ok(())
                } else {
                    // The watchdog: now + (-toks).
                    Err(Time(now.0 + (-toks) as u64))
                }
            }
            Kind::Htb { rate, ceil } => {
                // htb_class_mode (no hysteresis), at diff = now - t_c
                // (at most mbuffer): CAN_SEND when ctokens + diff >= 0 and
                // tokens + diff >= 0. A class with tokens < 0 has nothing
                // to borrow from (no parent), so it waits as one that
                // cannot send.
                let diff = (elapsed as i64).min(MBUFFER);
                let t = rate.tokens + diff;
                let c = ceil.tokens + diff;
                if t >= 0 && c >= 0 {
                    Ok(())
                } else {
                    // The class becomes able to send when both are zero:
                    // htb_add_to_wait_tree's pq_key, mode by mode.
                    Err(Time(now.0 + (-t).max(-c) as u64))
                }
            }
        }
    }

    /// A packet of `size` left at `now` (after [`Shaper::check`] let it):
    /// takes its tokens.
    #[inline]
    pub fn charge(&mut self, size: Bytes, now: Time) {
        let elapsed = now.0 - self.t_c.0;
        match &mut self.kind {
            Kind::Tbf(b) => {
                let toks = tbf_tokens(b, elapsed) - b.price(size);
                debug_assert!(toks >= 0, "tbf charged for a packet it held");
                b.tokens = toks;
            }
            Kind::Htb { rate, ceil } => {
                // htb_charge_class on a leaf at its own level:
                // htb_accnt_tokens and htb_accnt_ctokens with the same diff.
                let diff = (elapsed as i64).min(MBUFFER);
                htb_account(rate, diff, size);
                htb_account(ceil, diff, size);
            }
        }
        self.t_c = now;
    }

    /// How the ports table shows it: `tbf(100Mbps,2621B)`,
    /// `htb(100Mbps,15KiB,1600B)` (rate, burst, cburst).
    pub fn label(&self) -> String {
        self.to_string()
    }
}

/// TBF's tokens `elapsed` after `t_c`: the bucket filled by the elapsed
/// time, at most to its depth (`tbf_dequeue`'s two caps).
#[inline]
fn tbf_tokens(b: &Bucket, elapsed: u64) -> i64 {
    let fill = elapsed.min(b.depth as u64) as i64;
    (b.tokens + fill).min(b.depth)
}

/// `htb_accnt_tokens` / `htb_accnt_ctokens`: add the elapsed time, cap at
/// the depth, take the packet's price, and go no lower than `1 - mbuffer`.
#[inline]
fn htb_account(b: &mut Bucket, diff: i64, size: Bytes) {
    let mut toks = (b.tokens + diff).min(b.depth) - b.price(size);
    if toks <= -MBUFFER {
        toks = 1 - MBUFFER;
    }
    b.tokens = toks;
}

/// A depth back in bytes at its rate (rounded to the nearest byte: the
/// depth was rounded up to a picosecond).
fn bytes_of(b: &Bucket) -> Bytes {
    let bits = b.depth as u128 * b.rate.get() as u128;
    Bytes(((bits + 4 * PS_PER_SEC as u128) / (8 * PS_PER_SEC as u128)) as u64)
}

impl fmt::Display for Shaper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Tbf(b) => write!(f, "tbf({},{})", b.rate, bytes_of(b)),
            Kind::Htb { rate, ceil } => write!(
                f,
                "htb({},{},{})",
                rate.rate,
                bytes_of(rate),
                bytes_of(ceil)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: BitsPerSec = BitsPerSec(100_000_000);
    /// 80 ns per byte at 100 Mb/s.
    const BYTE: u64 = 80_000;
    const MTU: Bytes = Bytes(1500);

    fn at(ps: u64) -> Time {
        Time(ps)
    }

    /// Sends as many `size` packets as the gate lets through at `now`.
    fn drain(s: &mut Shaper, size: Bytes, now: Time) -> u32 {
        let mut n = 0;
        while s.check(now, || size).is_ok() {
            s.charge(size, now);
            n += 1;
            assert!(n < 1_000_000);
        }
        n
    }

    #[test]
    fn tbf_holds_a_packet_until_the_bucket_covers_it() {
        // burst 2500 B: one 1500-byte packet passes, 1000 B of tokens
        // are left, and the next waits for the 500 B more: 40 µs.
        let mut s = Shaper::tbf(R, Bytes(2500));
        assert_eq!(s.check(at(0), || MTU), Ok(()));
        s.charge(MTU, at(0));
        let open = s.check(at(0), || MTU).unwrap_err();
        assert_eq!(open, at(500 * BYTE));
        // Not a picosecond earlier, and exactly then.
        assert_eq!(s.check(at(open.0 - 1), || MTU), Err(open));
        assert_eq!(s.check(open, || MTU), Ok(()));
        s.charge(MTU, open);
        // The bucket is empty now: the next waits a whole packet time.
        assert_eq!(s.check(open, || MTU), Err(at(open.0 + 1500 * BYTE)));
    }

    #[test]
    fn tbf_prices_the_head_packet_so_a_small_one_may_pass_where_a_large_one_waits() {
        let mut s = Shaper::tbf(R, Bytes(2000));
        s.charge(MTU, at(0));
        // 500 B of tokens: a 40-byte ACK passes, a 1500-byte packet waits.
        assert_eq!(s.check(at(0), || Bytes(40)), Ok(()));
        assert!(s.check(at(0), || MTU).is_err());
    }

    #[test]
    fn tbf_bucket_fills_to_burst_and_no_further() {
        // After any idle time only `burst` bytes pass at once.
        let mut s = Shaper::tbf(R, Bytes(16 * 1024));
        assert_eq!(drain(&mut s, MTU, at(0)), 10); // 15,000 of 16,384 B
        let later = Time::from_secs(100);
        assert_eq!(drain(&mut s, MTU, later), 10);
        // Tokens of the idle time are not lost below the depth: 1,384 B
        // were left, so after 116 B of time one more packet passes.
        let mut s = Shaper::tbf(R, Bytes(16 * 1024));
        drain(&mut s, MTU, at(0));
        assert_eq!(s.check(at(0), || MTU), Err(at(116 * BYTE)));
    }

    #[test]
    fn tbf_paces_a_backlog_at_its_rate() {
        let mut s = Shaper::tbf(R, Bytes(3000));
        let mut now = at(0);
        let mut sent = 0u64;
        while sent < 10_000 {
            match s.check(now, || MTU) {
                Ok(()) => {
                    s.charge(MTU, now);
                    sent += 1;
                }
                Err(t) => now = t,
            }
        }
        // 10,000 packets: two at once (the burst), then one per packet
        // time.
        assert_eq!(now, at(9_998 * 1500 * BYTE));
    }

    #[test]
    fn htb_sends_on_nonnegative_tokens_and_charges_after() {
        // cburst 1600 B: a full-size packet leaves with 1600 B of ctokens,
        // and so does the next with 100 B left (HTB does not need the
        // whole packet's tokens); the third waits until the ceil bucket,
        // at -1400 B, is back at zero.
        let mut s = Shaper::htb(R, Bytes(15 * 1024), Bytes(1600));
        assert!(!s.needs_head());
        assert_eq!(s.check(at(0), || unreachable!()), Ok(()));
        s.charge(MTU, at(0));
        assert_eq!(s.check(at(0), || unreachable!()), Ok(()));
        s.charge(MTU, at(0));
        assert_eq!(s.check(at(0), || unreachable!()), Err(at(1400 * BYTE)));
        assert_eq!(s.check(at(1400 * BYTE), || unreachable!()), Ok(()));
    }

    #[test]
    fn htb_waits_for_the_later_of_its_rate_and_ceil_buckets() {
        // A rate bucket shallower than the ceil bucket is the one that
        // holds the class back.
        let mut s = Shaper::htb(R, Bytes(1000), Bytes(4000));
        s.charge(MTU, at(0)); // tokens 1000 - 1500 = -500 B, ctokens 2500 B
        assert_eq!(s.check(at(0), || MTU), Err(at(500 * BYTE)));
        let mut s = Shaper::htb(R, Bytes(4000), Bytes(1000));
        s.charge(MTU, at(0));
        assert_eq!(s.check(at(0), || MTU), Err(at(500 * BYTE)));
    }

    #[test]
    fn htb_back_to_back_release_is_at_most_cburst_and_one_packet() {
        for cburst in [1u64, 1499, 1500, 1600, 3000, 10_000] {
            let mut s = Shaper::htb(R, Bytes(15 * 1024), Bytes(cburst));
            let n = drain(&mut s, MTU, at(0)) as u64;
            assert!(n * 1500 <= cburst + 1500, "cburst {cburst}: {n} packets");
            assert!(n * 1500 > cburst, "cburst {cburst}: {n} packets");
        }
    }

    #[test]
    fn htb_paces_a_backlog_at_its_rate() {
        let mut s = Shaper::htb(R, Bytes(15 * 1024), Bytes(1600));
        let mut now = at(0);
        let mut sent = 0u64;
        while sent < 10_000 {
            match s.check(now, || MTU) {
                Ok(()) => {
                    s.charge(MTU, now);
                    sent += 1;
                }
                Err(t) => now = t,
            }
        }
        // Two at once (1600 B of ctokens), then one per packet time: the
        // 10,000th leaves 9,998 packet times after the first, less the
        // 100 B the ceil bucket had left.
        assert_eq!(now, at((9_998 * 1500 - 100) * BYTE));
    }

    #[test]
    fn htb_tokens_go_no_lower_than_one_minute_of_debt() {
        // A 64 KiB packet at 1 kb/s costs 524 s: HTB's mbuffer bounds the
        // debt at 60 s, so the class waits a minute, not nine.
        let slow = BitsPerSec(1_000);
        let mut s = Shaper::htb(slow, Bytes(1500), Bytes(1500));
        s.charge(Bytes(65_535), at(0));
        let open = s.check(at(0), || MTU).unwrap_err();
        assert_eq!(open, at(MBUFFER as u64 - 1));
    }

    #[test]
    fn labels_give_rate_burst_and_cburst() {
        assert_eq!(Shaper::tbf(R, Bytes(2621)).label(), "tbf(100Mbps,2621B)");
        assert_eq!(
            Shaper::htb(R, Bytes(15 * 1024), Bytes(1600)).label(),
            "htb(100Mbps,15KiB,1600B)"
        );
        // A rate that does not divide the clock: the depth rounds back.
        let odd = BitsPerSec(999_999_937);
        assert_eq!(
            Shaper::tbf(odd, Bytes(2621)).label(),
            "tbf(999999937bps,2621B)"
        );
    }
}
