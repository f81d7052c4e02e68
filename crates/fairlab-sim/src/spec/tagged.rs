//! Tables with a `kind` tag (the topology, each workload): the tag is read
//! first and picks the one struct of that kind, which then reads the other
//! fields with its own `deny_unknown_fields`.
//!
//! Why not serde's `#[serde(tag = "kind")]`: it buffers the table in serde's
//! private content type and deserializes the variant from there, so errors
//! inside it lose their field path (`workload[0]` instead of
//! `workload[0].sru`). Here the table is buffered in [`Value`], the variant
//! is read from it under its own path tracker, and the inner path travels
//! back to [`super::Scenario`]'s parse entry points inside the error text
//! ([`nested`], decoded by [`split_nested`]).

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;

/// A self-describing value, as TOML or JSON gave it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String),
    Seq(Vec<Value>),
    Map(Vec<(String, Value)>),
}

impl Value {
    /// How a message names the value: the value itself when it is short.
    pub fn describe(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::I64(i) => i.to_string(),
            Value::U64(u) => u.to_string(),
            Value::F64(f) if f.is_nan() => "NaN".into(),
            Value::F64(f) => f.to_string(),
            Value::Str(s) => format!("{s:?}"),
            Value::Seq(_) => "a list".into(),
            Value::Map(_) => "a table".into(),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
                Ok(Value::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
                Ok(Value::I64(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
                Ok(Value::U64(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
                Ok(Value::F64(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Value, E> {
                Ok(Value::Str(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Value, E> {
                Ok(Value::Str(v))
            }
            fn visit_unit<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_none<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
                Value::deserialize(d)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Value::Seq(v))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = a.next_entry::<String, Value>()? {
                    v.push((k, x));
                }
                Ok(Value::Map(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// Errors of reading a struct from a buffered [`Value`], kept structured so
/// that a missing or unknown field becomes a message about that field.
#[derive(Debug)]
pub enum Error {
    Custom(String),
    Missing(&'static str),
    Unknown(String, &'static [&'static str]),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Custom(m) => f.write_str(m),
            Error::Missing(x) => write!(f, "missing field `{x}`"),
            Error::Unknown(x, _) => write!(f, "unknown field `{x}`"),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::Custom(msg.to_string())
    }
    fn missing_field(field: &'static str) -> Self {
        Error::Missing(field)
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Error::Unknown(field.to_string(), expected)
    }
}

impl<'de> IntoDeserializer<'de, Error> for Value {
    type Deserializer = Value;
    fn into_deserializer(self) -> Value {
        self
    }
}

impl<'de> Deserializer<'de> for Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(b),
            Value::I64(i) => v.visit_i64(i),
            Value::U64(u) => v.visit_u64(u),
            Value::F64(f) => v.visit_f64(f),
            Value::Str(s) => v.visit_string(s),
            Value::Seq(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter());
                let out = v.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(out)
            }
            Value::Map(entries) => {
                let mut map = MapDeserializer::new(entries.into_iter());
                let out = v.visit_map(&mut map)?;
                map.end()?;
                Ok(out)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => v.visit_none(),
            other => v.visit_some(other),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        match self {
            Value::Str(s) => v.visit_enum(s.into_deserializer()),
            other => other.deserialize_any(v),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// Marks an error raised inside a tagged table: `path` is the field path
/// below the table, `msg` the message. [`split_nested`] takes it apart.
const NESTED: char = '\u{1}';

pub fn nested(path: &str, msg: &str) -> String {
    format!("{NESTED}{path}{NESTED}{msg}")
}

/// The inner path and message of a [`nested`] error text, if it is one.
pub fn split_nested(msg: &str) -> Option<(&str, &str)> {
    msg.strip_prefix(NESTED)?.split_once(NESTED)
}

/// Joins a field path and a field below it.
pub fn join(path: &str, field: &str) -> String {
    match (path.is_empty(), field.starts_with('[')) {
        (true, _) => field.to_string(),
        (false, true) => format!("{path}{field}"),
        (false, false) => format!("{path}.{field}"),
    }
}

/// Reads a table whose `kind` (one of `kinds`) chooses how the rest is read:
/// `read(kind_index, rest)` reads the other fields from `rest` (see
/// [`read_as`]). `what` names the table in messages ("workload").
pub fn deserialize_tagged<'de, D, T>(
    d: D,
    what: &str,
    kinds: &[&str],
    read: impl FnOnce(usize, Value) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let v = Value::deserialize(d)?;
    let Value::Map(mut entries) = v else {
        return Err(de::Error::custom(format!(
            "{} is not a table; expected a {what} table with a kind",
            v.describe()
        )));
    };
    let expected = kinds
        .iter()
        .map(|k| format!("{k:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(at) = entries.iter().position(|(k, _)| k == "kind") else {
        return Err(de::Error::custom(nested(
            "kind",
            &format!("missing; a {what} needs a kind, one of {expected}"),
        )));
    };
    let (_, kind) = entries.remove(at);
    let index = match &kind {
        Value::Str(s) => kinds.iter().position(|k| k == s),
        _ => None,
    };
    let Some(index) = index else {
        return Err(de::Error::custom(nested(
            "kind",
            &format!(
                "{} is not a {what} kind; expected one of {expected}",
                kind.describe()
            ),
        )));
    };
    read(index, Value::Map(entries)).map_err(de::Error::custom)
}

/// "a" or "an" before `word` (as the kinds are said: "a udp workload").
pub fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o']) {
        "an"
    } else {
        "a"
    }
}

/// Reads `T` from a buffered table of a `kind` `what`, every error as a
/// [`nested`] text naming the field below the table.
pub fn read_as<T: DeserializeOwned>(v: Value, kind: &str, what: &str) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        match e.into_inner() {
            Error::Missing(f) => nested(
                &join(&path, f),
                &format!("missing; {} {kind} {what} needs it", article(kind)),
            ),
            Error::Unknown(f, allowed) => {
                let field_path = if path.ends_with(f.as_str()) {
                    path.clone()
                } else {
                    join(&path, &f)
                };
                let whose = if path.is_empty() || path == f {
                    format!("{} {kind} {what}", article(kind))
                } else {
                    format!("{path} in {} {kind} {what}", article(kind))
                };
                nested(
                    &field_path,
                    &format!(
                        "not a field of {whose}; expected one of {}",
                        allowed.join(", ")
                    ),
                )
            }
            Error::Custom(m) => nested(&path, &m),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_errors_round_trip_their_path() {
        let t = nested("tcp.cc", "bad");
        assert_eq!(split_nested(&t), Some(("tcp.cc", "bad")));
        assert_eq!(split_nested("plain"), None);
    }

    #[test]
    fn join_puts_indices_right_after_the_path() {
        assert_eq!(join("servers", "[1]"), "servers[1]");
        assert_eq!(join("", "sru"), "sru");
        assert_eq!(join("tcp", "cc"), "tcp.cc");
    }
}
