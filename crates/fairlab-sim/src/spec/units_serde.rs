//! Serde for the typed units: each is written as a string people write
//! ("1Gbps", "25us", "64KiB", "20pkt"); sizes also accept a bare integer
//! (bytes). Errors name the value and what is allowed; the field path is
//! added by the caller.

use crate::units::{BitsPerSec, Bytes, Time};
use crate::vocab::BufferLimit;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

macro_rules! string_unit {
    ($ty:ty, $expecting:expr, $parse:expr, $int:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        ($parse)(v).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        match ($int)(v) {
                            Some(x) => Ok(x),
                            None => Err(E::invalid_type(de::Unexpected::Unsigned(v), &self)),
                        }
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        if v >= 0 {
                            self.visit_u64(v as u64)
                        } else {
                            Err(E::invalid_value(de::Unexpected::Signed(v), &self))
                        }
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

/// The number and unit of `s` if the number is a valid non-negative
/// decimal, for telling "too large" from "not a value".
fn number_and_unit(s: &str) -> Option<(f64, &str)> {
    let t = s.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let num: String = t[..end].chars().filter(|&c| c != '_').collect();
    let v: f64 = num.parse().ok()?;
    Some((v, t[end..].trim()))
}

/// `parse`, but a value too large for its unit's integer says so.
fn parse_or_too_large<T>(
    s: &str,
    parse: fn(&str) -> Result<T, String>,
    scale: fn(&str) -> Option<f64>,
    largest: &str,
) -> Result<T, String> {
    parse(s).map_err(|e| match number_and_unit(s) {
        Some((v, unit)) if scale(unit).is_some_and(|k| v * k >= u64::MAX as f64) => {
            format!("{s:?} is too large; expected at most {largest}")
        }
        _ => e,
    })
}

fn time_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" | "μs" => 1e6,
        "ms" => 1e9,
        "s" | "sec" => 1e12,
        "min" => 60e12,
        _ => return None,
    })
}

fn size_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "B" | "byte" | "bytes" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" | "K" | "k" => 1024.0,
        "MiB" | "M" => 1048576.0,
        "GiB" | "G" => 1073741824.0,
        _ => return None,
    })
}

fn rate_scale(unit: &str) -> Option<f64> {
    let u = unit
        .strip_suffix("bps")
        .or_else(|| unit.strip_suffix("bit/s"))
        .or_else(|| unit.strip_suffix("b/s"))?;
    Some(match u {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => return None,
    })
}

fn parse_time(s: &str) -> Result<Time, String> {
    parse_or_too_large(
        s,
        Time::parse,
        time_scale,
        "\"1000000s\" (Time counts picoseconds)",
    )
}
fn parse_size(s: &str) -> Result<Bytes, String> {
    parse_or_too_large(s, Bytes::parse, size_scale, "\"16EiB\" (2^64 - 1 bytes)")
}
fn parse_rate(s: &str) -> Result<BitsPerSec, String> {
    parse_or_too_large(s, BitsPerSec::parse, rate_scale, "2^64 - 1 bits per second")
}
fn parse_buffer(s: &str) -> Result<BufferLimit, String> {
    BufferLimit::parse(s).map_err(|e| match number_and_unit(s) {
        Some((v, "pkt" | "pkts" | "packets" | "packet" | "p")) if v > u32::MAX as f64 => {
            format!("{s:?} is too large; expected at most 4294967295 packets")
        }
        _ => parse_size(s)
            .err()
            .filter(|m| m.contains("too large"))
            .unwrap_or(e),
    })
}

string_unit!(
    Time,
    "a duration string such as \"25us\", \"200ms\" or \"1s\"",
    parse_time,
    |v: u64| if v == 0 { Some(Time::ZERO) } else { None }
);
string_unit!(
    BitsPerSec,
    "a rate string such as \"1Gbps\" or \"100Mbps\"",
    parse_rate,
    |_v: u64| None
);
string_unit!(
    Bytes,
    "a size such as \"1500B\", \"64KiB\" or a whole number of bytes",
    parse_size,
    |v: u64| Some(Bytes(v))
);
string_unit!(
    BufferLimit,
    "a buffer limit such as \"64KiB\" (bytes) or \"20pkt\" (packets)",
    parse_buffer,
    |v: u64| Some(BufferLimit::Bytes(Bytes(v)))
);
