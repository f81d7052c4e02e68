//! The receiver's feedback to the sender and its fixed, versioned byte
//! encoding. A real receiver (issue 22) refuses a peer that speaks another
//! version: [`Feedback::decode`] returns a [`DecodeError`], never panics.
//!
//! Layout, version 1, big-endian, [`Feedback::WIRE_BYTES`] = 40 bytes:
//!
//! | bytes  | field                                   |
//! |--------|-----------------------------------------|
//! | 0..4   | magic `b"RDFB"`                         |
//! | 4      | version, 1                              |
//! | 5      | trend code ([`Trend::code`])            |
//! | 6      | flags: bit 0 congested, others zero     |
//! | 7      | reserved, zero                          |
//! | 8..16  | frame (u64): highest frame seen         |
//! | 16..24 | depth in milli-packets (i64)            |
//! | 24..32 | datagrams received (u64)                |
//! | 32..40 | datagrams lost (u64)                    |

use crate::model::Trend;

/// The first four bytes of every feedback datagram.
pub const MAGIC: [u8; 4] = *b"RDFB";
/// The encoding version this crate writes and reads.
pub const VERSION: u8 = 1;
const FLAG_CONGESTED: u8 = 0x01;

/// What the receiver tells the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// Highest frame number seen.
    pub frame: u64,
    /// The driving model's depth, in thousandths of a packet (rounded).
    pub depth_milli_pkts: i64,
    /// The driving model's trend.
    pub trend: Trend,
    /// The receiver's verdict: the sender should respond to congestion.
    pub congested: bool,
    /// Datagrams received so far.
    pub received: u64,
    /// Datagrams lost so far (gaps in frame numbers).
    pub lost: u64,
}

/// Why bytes are not a feedback this version understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer than [`Feedback::WIRE_BYTES`] bytes.
    TooShort {
        /// Bytes given.
        len: usize,
    },
    /// Not a Radon feedback datagram.
    BadMagic,
    /// A version this crate does not speak.
    UnsupportedVersion(u8),
    /// A trend code version 1 does not define.
    BadTrend(u8),
    /// Flag bits or the reserved byte set that version 1 leaves zero.
    BadFlags(u8),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::TooShort { len } => {
                write!(
                    f,
                    "feedback of {len} bytes, {} needed",
                    Feedback::WIRE_BYTES
                )
            }
            DecodeError::BadMagic => write!(f, "not a Radon feedback datagram (bad magic)"),
            DecodeError::UnsupportedVersion(v) => {
                write!(f, "feedback version {v}, this peer speaks {VERSION}")
            }
            DecodeError::BadTrend(c) => write!(f, "unknown trend code {c}"),
            DecodeError::BadFlags(b) => write!(f, "reserved flag bits set: {b:#04x}"),
        }
    }
}

impl std::error::Error for DecodeError {}

impl Feedback {
    /// Size of the encoding.
    pub const WIRE_BYTES: usize = 40;

    /// Writes the encoding into the start of `buf` and returns
    /// [`Feedback::WIRE_BYTES`]; returns 0 and writes nothing when `buf` is
    /// shorter.
    pub fn encode(&self, buf: &mut [u8]) -> usize {
        let Some(out) = buf.get_mut(..Self::WIRE_BYTES) else {
            return 0;
        };
        out.copy_from_slice(&self.to_bytes());
        Self::WIRE_BYTES
    }

    /// The encoding as an array.
    pub fn to_bytes(&self) -> [u8; Feedback::WIRE_BYTES] {
        let mut out = [0u8; Self::WIRE_BYTES];
        out[0..4].copy_from_slice(&MAGIC);
        out[4] = VERSION;
        out[5] = self.trend.code();
        out[6] = if self.congested { FLAG_CONGESTED } else { 0 };
        out[8..16].copy_from_slice(&self.frame.to_be_bytes());
        out[16..24].copy_from_slice(&self.depth_milli_pkts.to_be_bytes());
        out[24..32].copy_from_slice(&self.received.to_be_bytes());
        out[32..40].copy_from_slice(&self.lost.to_be_bytes());
        out
    }

    /// Reads a feedback from the start of `buf` (trailing bytes are ignored).
    pub fn decode(buf: &[u8]) -> Result<Feedback, DecodeError> {
        let Some(b) = buf.get(..Self::WIRE_BYTES) else {
            return Err(DecodeError::TooShort { len: buf.len() });
        };
        if b[0..4] != MAGIC {
            return Err(DecodeError::BadMagic);
        }
        if b[4] != VERSION {
            return Err(DecodeError::UnsupportedVersion(b[4]));
        }
        let trend = Trend::from_code(b[5]).ok_or(DecodeError::BadTrend(b[5]))?;
        if b[6] & !FLAG_CONGESTED != 0 || b[7] != 0 {
            return Err(DecodeError::BadFlags(b[6] | b[7]));
        }
        Ok(Feedback {
            frame: read_u64(b, 8),
            depth_milli_pkts: read_u64(b, 16) as i64,
            trend,
            congested: b[6] & FLAG_CONGESTED != 0,
            received: read_u64(b, 24),
            lost: read_u64(b, 32),
        })
    }

    /// The depth in packets.
    pub fn depth_pkts(&self) -> f64 {
        self.depth_milli_pkts as f64 / 1000.0
    }
}

fn read_u64(b: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(word)
}
