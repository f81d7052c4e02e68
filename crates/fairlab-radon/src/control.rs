//! The control protocol, over one TCP connection per receiver (iperf3's
//! shape): the sender says hello with its protocol version and its
//! streams; the receiver answers ok or a one-line refusal; data and
//! feedback then flow over UDP; at the end the sender says done and the
//! receiver returns its per-datagram records. Messages are JSON, one per
//! line, at most [`MAX_LINE_BYTES`]; the records follow their summary as
//! fixed 33-byte binary rows, as many as the summary says and never more
//! than the hello announced.

use crate::error::{Error, Result};
use crate::session::Record;
use crate::stamp::StampSource;
use fairlab_radon_core::ReceiverConfig;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read, Write};

/// The protocol's name in every hello.
pub const PROTO: &str = "fairlab-radon";
/// The protocol version this build speaks.
pub const PROTOCOL_VERSION: u32 = 1;
/// The longest control line accepted: a summary carries the receiver's
/// decision trace when one is asked for (about 100 bytes an event).
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// One record on the wire.
pub const RECORD_BYTES: usize = 33;

/// A stream as the sender announces it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamHello {
    pub id: u32,
    pub payload_bytes: usize,
    /// The most datagrams the sender will send on it (it stops there).
    pub max_packets: u64,
    pub receiver: ReceiverConfig,
    /// Record the receiver's decision trace.
    #[serde(default)]
    pub trace: bool,
    /// The sender's CLOCK_REALTIME at the session's start, ns: stamps go
    /// to the core as ps after it (absolute ns × 1000 would overflow i64).
    #[serde(default)]
    pub epoch_ns: i64,
}

/// A stream's outcome at the receiver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamSummary {
    pub id: u32,
    pub records: u64,
    pub received: u64,
    pub lost: u64,
    pub feedback_sent: u64,
    pub over_cap: u64,
    /// The receiver's trace (JSON of core::trace::Event), when asked.
    #[serde(default)]
    pub trace: Option<Vec<fairlab_radon_core::trace::Event>>,
}

/// Every control message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case")]
pub enum Msg {
    Hello {
        proto: String,
        version: u32,
        streams: Vec<StreamHello>,
    },
    Ok,
    Refuse {
        reason: String,
    },
    Done,
    Summary {
        streams: Vec<StreamSummary>,
        malformed: u64,
    },
}

/// Writes one message as a line.
pub fn send(w: &mut impl Write, msg: &Msg) -> Result<()> {
    let mut line = serde_json::to_vec(msg).map_err(|e| Error::Io(format!("encoding {e}")))?;
    line.push(b'\n');
    w.write_all(&line)
        .and_then(|_| w.flush())
        .map_err(|e| io_err("sending a control message", &e))
}

fn io_err(what: &str, e: &std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            Error::Deadline(format!("{what}: the peer did not answer in time"))
        }
        _ => Error::Io(format!("{what}: {e}")),
    }
}

/// Reads one message line (bounded).
pub fn recv(r: &mut impl BufRead) -> Result<Msg> {
    let mut line = Vec::new();
    let n = r
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(|e| io_err("reading a control message", &e))?;
    if n == 0 {
        return Err(Error::Malformed(
            "the peer closed the control connection".into(),
        ));
    }
    if line.last() != Some(&b'\n') {
        return Err(Error::Malformed(format!(
            "control message longer than {MAX_LINE_BYTES} bytes"
        )));
    }
    decode(&line)
}

/// One message from its line, telling another version from garbage.
pub fn decode(line: &[u8]) -> Result<Msg> {
    let value: serde_json::Value = serde_json::from_slice(line).map_err(|_| {
        Error::Malformed(format!(
            "control message is not JSON: {:?}",
            String::from_utf8_lossy(&line[..line.len().min(60)])
        ))
    })?;
    if value.get("msg").and_then(|m| m.as_str()) == Some("hello") {
        check_version(&value)?;
    }
    serde_json::from_value(value).map_err(|e| Error::Malformed(format!("control message: {e}")))
}

fn check_version(hello: &serde_json::Value) -> Result<()> {
    let proto = hello.get("proto").and_then(|p| p.as_str()).unwrap_or("");
    if proto != PROTO {
        return Err(Error::Malformed(format!(
            "peer speaks {proto:?}, not {PROTO}: is another program on this port?"
        )));
    }
    match hello.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(PROTOCOL_VERSION) => Ok(()),
        Some(v) => Err(Error::Version(version_line(v))),
        None => Err(Error::Malformed("hello without a version".into())),
    }
}

/// The refusal for a peer of another version.
pub fn version_line(peer: u64) -> String {
    format!(
        "peer speaks {PROTO} protocol {peer}, this is {PROTOCOL_VERSION}; install the same fairlab on both hosts"
    )
}

/// The hello for `streams`.
pub fn hello(streams: Vec<StreamHello>) -> Msg {
    Msg::Hello {
        proto: PROTO.into(),
        version: PROTOCOL_VERSION,
        streams,
    }
}

/// Writes `records` as binary rows.
pub fn send_records(w: &mut impl Write, records: &[Record]) -> Result<()> {
    let mut buf = Vec::with_capacity(RECORD_BYTES * 4096);
    for chunk in records.chunks(4096) {
        buf.clear();
        for r in chunk {
            buf.extend_from_slice(&r.frame.to_be_bytes());
            buf.extend_from_slice(&r.sent_ns.to_be_bytes());
            buf.extend_from_slice(&r.recv_ns.to_be_bytes());
            buf.extend_from_slice(&r.wait_ns.to_be_bytes());
            buf.push(r.source.code());
        }
        w.write_all(&buf)
            .map_err(|e| io_err("sending records", &e))?;
    }
    w.flush().map_err(|e| io_err("sending records", &e))
}

/// Reads `count` binary rows.
pub fn recv_records(r: &mut impl Read, count: u64) -> Result<Vec<Record>> {
    let mut out = Vec::with_capacity(count.min(1 << 20) as usize);
    let mut row = [0u8; RECORD_BYTES];
    for _ in 0..count {
        r.read_exact(&mut row)
            .map_err(|e| io_err("reading records", &e))?;
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&row[at..at + 8]);
            w
        };
        let source = StampSource::from_code(row[32])
            .ok_or_else(|| Error::Malformed(format!("record with stamp source {}", row[32])))?;
        out.push(Record {
            frame: u64::from_be_bytes(word(0)),
            sent_ns: i64::from_be_bytes(word(8)),
            recv_ns: i64::from_be_bytes(word(16)),
            wait_ns: i64::from_be_bytes(word(24)),
            source,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream() -> StreamHello {
        StreamHello {
            id: 2,
            payload_bytes: 1472,
            max_packets: 10,
            receiver: ReceiverConfig::new(12_000_000),
            trace: false,
            epoch_ns: 1_700_000_000_000_000_000,
        }
    }

    #[test]
    fn messages_round_trip_as_lines() {
        let mut buf = Vec::new();
        send(&mut buf, &hello(vec![stream()])).unwrap();
        send(&mut buf, &Msg::Done).unwrap();
        let mut r = std::io::BufReader::new(&buf[..]);
        assert_eq!(recv(&mut r).unwrap(), hello(vec![stream()]));
        assert_eq!(recv(&mut r).unwrap(), Msg::Done);
        assert!(matches!(recv(&mut r), Err(Error::Malformed(_))));
    }

    #[test]
    fn another_version_is_refused_with_the_install_hint() {
        let line = br#"{"msg":"hello","proto":"fairlab-radon","version":2,"streams":[]}"#;
        let e = decode(line).unwrap_err();
        assert_eq!(
            e.to_string(),
            "peer speaks fairlab-radon protocol 2, this is 1; install the same fairlab on both hosts"
        );
        assert!(matches!(e, Error::Version(_)));
    }

    #[test]
    fn garbage_and_other_programs_are_malformed() {
        assert!(matches!(
            decode(b"GET / HTTP/1.1\r\n"),
            Err(Error::Malformed(_))
        ));
        let other = br#"{"msg":"hello","proto":"iperf3","version":1,"streams":[]}"#;
        assert!(decode(other).unwrap_err().to_string().contains("iperf3"));
        assert!(matches!(
            decode(br#"{"msg":"teleport"}"#),
            Err(Error::Malformed(_))
        ));
        let long = vec![b'x'; MAX_LINE_BYTES + 10];
        // (64 MiB: the bound holds for a peer that never ends its line.)
        let e = recv(&mut std::io::BufReader::new(&long[..])).unwrap_err();
        assert!(e.to_string().contains("longer than"), "{e}");
    }

    #[test]
    fn records_round_trip_and_a_short_stream_is_an_error() {
        let recs = vec![Record {
            frame: 9,
            sent_ns: 1,
            recv_ns: 2,
            wait_ns: 3,
            source: StampSource::Kernel,
        }];
        let mut buf = Vec::new();
        send_records(&mut buf, &recs).unwrap();
        assert_eq!(buf.len(), RECORD_BYTES);
        assert_eq!(recv_records(&mut &buf[..], 1).unwrap(), recs);
        assert!(recv_records(&mut &buf[..], 2).is_err());
    }
}
