//! Typed units, so that a rate times a time is a size and never silently a
//! number of something else.
//!
//! * [`Time`] is an instant or a duration in integer picoseconds. At 100 Gb/s
//!   one bit lasts 10 ps, so every serialization time of a whole number of
//!   bytes at the rates we use is exact.
//! * [`Bytes`] is a size in bytes.
//! * [`BitsPerSec`] is a link rate.
//!
//! Each type parses the strings people write (`"25us"`, `"64KiB"`, `"1Gbps"`)
//! and prints back a string that parses to the same value.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// Simulated time in integer picoseconds (u64 covers 213 days).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * PS_PER_SEC)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    pub fn saturating_add(self, other: Time) -> Time {
        Time(self.0.saturating_add(other.0))
    }
    /// Multiplies a duration by an integer factor, saturating.
    pub fn times(self, k: u64) -> Time {
        Time(self.0.saturating_mul(k))
    }

    /// Parses `"25us"`, `"1.5ms"`, `"200 ms"`, `"1s"`, `"500ns"`, `"10ps"`, `"0"`.
    pub fn parse(s: &str) -> Result<Time, String> {
        let (num, unit) = split_number(s).ok_or_else(|| time_expect(s))?;
        let scale: u64 = match unit {
            "ps" => 1,
            "ns" => 1_000,
            "us" | "µs" | "μs" => 1_000_000,
            "ms" => 1_000_000_000,
            "s" | "sec" => PS_PER_SEC,
            "min" => 60 * PS_PER_SEC,
            "" if num.value == 0.0 => 1,
            _ => return Err(time_expect(s)),
        };
        let ps = num.scaled(scale).ok_or_else(|| time_expect(s))?;
        Ok(Time(ps))
    }
}

fn time_expect(s: &str) -> String {
    format!("{s:?} is not a valid duration; expected a non-negative time such as \"25us\", \"200ms\" or \"1s\"")
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

/// An instant that may be absent, in 8 bytes where `Option<Time>` takes 16:
/// [`Time::MAX`] (213 days, past the end of any run) stands for none.
/// Every TCP endpoint keeps several (its timer deadlines, its minimum RTT),
/// so at 100,000 connections the halving is worth a type.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OptTime(Time);

impl OptTime {
    pub const NONE: OptTime = OptTime(Time::MAX);

    #[inline]
    pub fn some(t: Time) -> OptTime {
        debug_assert!(t != Time::MAX, "Time::MAX is the none sentinel");
        OptTime(t)
    }
    #[inline]
    pub fn get(self) -> Option<Time> {
        (self.0 != Time::MAX).then_some(self.0)
    }
    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != Time::MAX
    }
    #[inline]
    pub fn is_none(self) -> bool {
        self.0 == Time::MAX
    }
    /// The instant, or `Time::MAX` when none: "never" in comparisons with deadlines.
    #[inline]
    pub fn or_max(self) -> Time {
        self.0
    }
    /// Whether an instant is set and at or before `t`.
    #[inline]
    pub fn reached(self, t: Time) -> bool {
        self.0 <= t && self.is_some()
    }
    /// The earlier of two; none is later than every instant.
    #[inline]
    pub fn min(self, o: OptTime) -> OptTime {
        OptTime(self.0.min(o.0))
    }
}

impl Default for OptTime {
    fn default() -> Self {
        OptTime::NONE
    }
}

impl From<Option<Time>> for OptTime {
    #[inline]
    fn from(t: Option<Time>) -> OptTime {
        t.map_or(OptTime::NONE, OptTime::some)
    }
}

impl fmt::Debug for OptTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl fmt::Display for Time {
    /// The largest unit that represents the value exactly.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps == 0 {
            return write!(f, "0s");
        }
        for (scale, unit) in [
            (PS_PER_SEC, "s"),
            (1_000_000_000, "ms"),
            (1_000_000, "us"),
            (1_000, "ns"),
        ] {
            if ps.is_multiple_of(scale) {
                return write!(f, "{}{}", ps / scale, unit);
            }
        }
        write!(f, "{ps}ps")
    }
}

/// A size in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    pub const fn new(b: u64) -> Bytes {
        Bytes(b)
    }
    pub const fn get(self) -> u64 {
        self.0
    }
    pub const fn bits(self) -> u64 {
        self.0 * 8
    }

    /// Parses `"1500B"`, `"64KiB"`, `"1MiB"`, `"256KB"` (decimal), `"1 MB"`, `"1500"`.
    pub fn parse(s: &str) -> Result<Bytes, String> {
        let (num, unit) = split_number(s).ok_or_else(|| size_expect(s))?;
        let scale: u64 = match unit {
            "" | "B" | "byte" | "bytes" => 1,
            "KB" | "kB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            "KiB" | "K" | "k" => 1 << 10,
            "MiB" | "M" => 1 << 20,
            "GiB" | "G" => 1 << 30,
            _ => return Err(size_expect(s)),
        };
        let v = num.scaled(scale).ok_or_else(|| size_expect(s))?;
        Ok(Bytes(v))
    }
}

fn size_expect(s: &str) -> String {
    format!("{s:?} is not a valid size; expected a whole number of bytes such as \"1500B\", \"64KiB\" or \"1MiB\"")
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b != 0 {
            for (scale, unit) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
                if b.is_multiple_of(scale) {
                    return write!(f, "{}{}", b / scale, unit);
                }
            }
        }
        write!(f, "{b}B")
    }
}

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitsPerSec(pub u64);

impl BitsPerSec {
    pub const fn new(bps: u64) -> BitsPerSec {
        BitsPerSec(bps)
    }
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Time the wire is occupied by `size` at this rate, rounded up to a
    /// whole picosecond (exact for every rate that divides 8·10^12 bits).
    pub fn serialization(self, size: Bytes) -> Time {
        let num = size.bits() as u128 * PS_PER_SEC as u128;
        let r = self.0 as u128;
        Time(num.div_ceil(r) as u64)
    }

    /// [`Self::serialization`] with its division done once, for the
    /// per-packet path.
    pub fn serializer(self) -> Serializer {
        Serializer::new(self)
    }

    /// Bytes this rate carries in `t` (rounded down).
    pub fn bytes_in(self, t: Time) -> Bytes {
        Bytes((self.0 as u128 * t.0 as u128 / (8 * PS_PER_SEC as u128)) as u64)
    }

    /// Parses `"1Gbps"`, `"100Mbps"`, `"10 Gbit/s"`, `"2.5Gbps"`, `"9600bps"`.
    pub fn parse(s: &str) -> Result<BitsPerSec, String> {
        let (num, unit) = split_number(s).ok_or_else(|| rate_expect(s))?;
        let unit = unit
            .strip_suffix("bps")
            .or_else(|| unit.strip_suffix("bit/s"))
            .or_else(|| unit.strip_suffix("b/s"))
            .ok_or_else(|| rate_expect(s))?;
        let scale: u64 = match unit {
            "" => 1,
            "k" | "K" => 1_000,
            "M" => 1_000_000,
            "G" => 1_000_000_000,
            "T" => 1_000_000_000_000,
            _ => return Err(rate_expect(s)),
        };
        let v = num.scaled(scale).ok_or_else(|| rate_expect(s))?;
        if v == 0 {
            return Err(rate_expect(s));
        }
        Ok(BitsPerSec(v))
    }
}

/// [`BitsPerSec::serialization`] without a 128-bit division per call.
///
/// With N = 8·10^12 (bit-picoseconds per byte-second), `q = N / rate` and
/// `rem = N % rate`, a size of `s` bytes takes
/// `ceil(s·N / rate) = s·q + ceil(s·rem / rate)`. Every rate that divides N
/// (1, 2.5, 10, 100 Gb/s, 100 Mb/s...) has `rem = 0`: one multiplication.
/// Otherwise `ceil(s·rem / rate)` is estimated with the precomputed fraction
/// `frac = floor(rem·2^64 / rate)`, which undershoots by less than
/// `s / 2^64 < 1`, and corrected exactly: at most two increments.
///
/// Equal to `serialization` for every size below 2^61 bytes (where
/// `Bytes::bits` would overflow); tested exhaustively for packet sizes at
/// the shipped rates and on random rates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Serializer {
    per_byte: u64,
    rem: u64,
    frac: u64,
    rate: u64,
}

impl Serializer {
    pub fn new(rate: BitsPerSec) -> Serializer {
        const N: u64 = 8 * PS_PER_SEC;
        let r = rate.0;
        if r == 0 {
            // No quotient to precompute: `time` divides by zero as
            // `serialization` does.
            return Serializer {
                per_byte: 0,
                rem: 1,
                frac: 0,
                rate: 0,
            };
        }
        let rem = N % r;
        Serializer {
            per_byte: N / r,
            rem,
            frac: (((rem as u128) << 64) / r as u128) as u64,
            rate: r,
        }
    }

    /// Time the wire is occupied by `size`: `BitsPerSec::serialization`.
    #[inline]
    pub fn time(&self, size: Bytes) -> Time {
        let whole = size.0 as u128 * self.per_byte as u128;
        if self.rem == 0 {
            return Time(whole as u64);
        }
        Time((whole + self.ceil_rem(size.0)) as u64)
    }

    /// `ceil(s·rem / rate)`.
    #[inline(never)]
    fn ceil_rem(&self, s: u64) -> u128 {
        if self.rate == 0 {
            return BitsPerSec(0).serialization(Bytes(s)).0 as u128;
        }
        let t = s as u128 * self.rem as u128;
        let r = self.rate as u128;
        let mut c = (s as u128 * self.frac as u128) >> 64;
        while c * r < t {
            c += 1;
        }
        c
    }
}

fn rate_expect(s: &str) -> String {
    format!("{s:?} is not a valid rate; expected a positive rate such as \"1Gbps\", \"100Mbps\" or \"10 Gbit/s\"")
}

impl fmt::Display for BitsPerSec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (scale, unit) in [
            (1_000_000_000_000u64, "Tbps"),
            (1_000_000_000, "Gbps"),
            (1_000_000, "Mbps"),
            (1_000, "kbps"),
        ] {
            if b.is_multiple_of(scale) {
                return write!(f, "{}{}", b / scale, unit);
            }
        }
        write!(f, "{b}bps")
    }
}

/// A non-negative decimal number as written, kept exact: `mantissa / 10^frac_digits`.
struct Decimal {
    mantissa: u128,
    frac_digits: u32,
    value: f64,
}

impl Decimal {
    /// `self * scale` if it is a whole number that fits in u64.
    fn scaled(&self, scale: u64) -> Option<u64> {
        let p = 10u128.checked_pow(self.frac_digits)?;
        let num = self.mantissa.checked_mul(scale as u128)?;
        if num % p != 0 {
            return None;
        }
        u64::try_from(num / p).ok()
    }
}

/// Splits `"2.5 Gbps"` into (2.5, "Gbps"). Rejects signs, exponents and empty numbers.
fn split_number(s: &str) -> Option<(Decimal, &str)> {
    let t = s.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    let num: String = num.chars().filter(|&c| c != '_').collect();
    if num.is_empty() || num.matches('.').count() > 1 || num == "." {
        return None;
    }
    let (int_part, frac_part) = num.split_once('.').unwrap_or((&num, ""));
    let digits = format!("{int_part}{frac_part}");
    let mantissa: u128 = digits.parse().ok()?;
    let value: f64 = num.parse().ok()?;
    Some((
        Decimal {
            mantissa,
            frac_digits: frac_part.len() as u32,
            value,
        },
        unit.trim(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1500_byte_packet_occupies_1gbps_wire_for_12us() {
        let t = BitsPerSec::parse("1Gbps")
            .unwrap()
            .serialization(Bytes(1500));
        assert_eq!(t, Time::from_us(12));
    }

    #[test]
    fn serialization_at_100gbps_is_exact_in_picoseconds() {
        let t = BitsPerSec::parse("100Gbps")
            .unwrap()
            .serialization(Bytes(1500));
        assert_eq!(t, Time::from_ps(120_000));
    }

    /// Rates of the shipped scenarios, examples and docs, and awkward ones
    /// that do not divide 8·10^12.
    const RATES: [u64; 26] = [
        1_000_000_000,
        10_000_000_000,
        100_000_000,
        5_000_000,
        9600,
        2_500_000_000,
        200_000_000,
        9,
        100_000_000_000,
        40_000_000_000,
        25_000_000_000,
        400_000_000_000,
        3_000_000_000,
        7_000_000,
        1,
        3,
        999_999_937,
        7_999_999_999_999,
        8_000_000_000_000,
        8_000_000_000_001,
        16_000_000_000_000,
        (1 << 63) + 1,
        u64::MAX - 1,
        u64::MAX,
        1_000_000_007,
        123_456_789_012,
    ];

    #[test]
    fn serializer_equals_serialization_for_every_packet_size() {
        for r in RATES {
            let rate = BitsPerSec(r);
            let ser = rate.serializer();
            for size in 0..=65_535u64 {
                assert_eq!(
                    ser.time(Bytes(size)),
                    rate.serialization(Bytes(size)),
                    "{r} bps, {size} B"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn serializer_equals_serialization(
            r in 1u64..=u64::MAX,
            small in 0u64..=1 << 20,
            big in 0u64..1 << 61,
        ) {
            let rate = BitsPerSec(r);
            let ser = rate.serializer();
            for size in [small, big] {
                proptest::prop_assert_eq!(ser.time(Bytes(size)), rate.serialization(Bytes(size)));
            }
        }
    }

    #[test]
    fn parses_people_units() {
        assert_eq!(Time::parse("25us").unwrap(), Time::from_us(25));
        assert_eq!(Time::parse("25µs").unwrap(), Time::from_us(25));
        assert_eq!(Time::parse("1.5ms").unwrap(), Time::from_us(1500));
        assert_eq!(Time::parse("0").unwrap(), Time::ZERO);
        assert_eq!(Bytes::parse("64KiB").unwrap(), Bytes(65536));
        assert_eq!(Bytes::parse("256KB").unwrap(), Bytes(256_000));
        assert_eq!(BitsPerSec::parse("2.5Gbps").unwrap().get(), 2_500_000_000);
        assert_eq!(
            BitsPerSec::parse("10 Gbit/s").unwrap().get(),
            10_000_000_000
        );
    }

    #[test]
    fn rejects_negative_zero_and_unitless_rates() {
        for bad in ["-1Gbps", "0Gbps", "1G", "fast", "", "1e9bps"] {
            assert!(BitsPerSec::parse(bad).is_err(), "{bad}");
        }
        assert!(Time::parse("-5ms").is_err());
        assert!(Time::parse("5").is_err());
        assert!(Bytes::parse("1.5B").is_err());
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "25us", "200ms", "1s", "7ps", "0s", "1500B", "64KiB", "1Gbps", "9600bps",
        ] {
            let back = if let Ok(t) = Time::parse(s) {
                t.to_string()
            } else if let Ok(b) = Bytes::parse(s) {
                b.to_string()
            } else {
                BitsPerSec::parse(s).unwrap().to_string()
            };
            assert_eq!(back, s);
        }
    }
}
