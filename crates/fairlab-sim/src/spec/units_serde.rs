//! Serde for the typed units: each is written as a string people write
//! ("1Gbps", "25us", "64KiB", "20pkt"); sizes also accept a bare integer
//! (bytes). Errors name the value and what is allowed; the field path is
//! added by the caller.

use super::queues::Buffer;
use crate::units::{BitsPerSec, Bytes, Time};
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

string_unit!(
    Time,
    "a duration string such as \"25us\", \"200ms\" or \"1s\"",
    Time::parse,
    |v: u64| if v == 0 { Some(Time::ZERO) } else { None }
);
string_unit!(
    BitsPerSec,
    "a rate string such as \"1Gbps\" or \"100Mbps\"",
    BitsPerSec::parse,
    |_v: u64| None
);
string_unit!(
    Bytes,
    "a size such as \"1500B\", \"64KiB\" or a whole number of bytes",
    Bytes::parse,
    |v: u64| Some(Bytes(v))
);
string_unit!(
    Buffer,
    "a buffer limit such as \"64KiB\" (bytes) or \"20pkt\" (packets)",
    Buffer::parse,
    |v: u64| Some(Buffer::Bytes(Bytes(v)))
);
