//! The data datagram's header, fixed and versioned, big-endian, then zero
//! padding to the stream's payload size. Decode errors are values: a
//! datagram from another program or another version is counted and
//! dropped, never trusted.
//!
//! | bytes  | field                                             |
//! |--------|---------------------------------------------------|
//! | 0..4   | magic `b"RDDT"`                                   |
//! | 4      | version, [`VERSION`]                              |
//! | 5..8   | reserved, zero                                    |
//! | 8..12  | stream id (u32)                                   |
//! | 12..20 | frame number (u64), from 0                        |
//! | 20..28 | send stamp, CLOCK_REALTIME ns (i64)               |
//! | 28..36 | the sender's wait when it sent, ns (i64)          |

/// The first four bytes of every data datagram.
pub const MAGIC: [u8; 4] = *b"RDDT";
/// The header version this crate writes and reads.
pub const VERSION: u8 = 1;
/// Header size: the smallest payload a stream may have.
pub const HEADER_BYTES: usize = 36;

/// What a data datagram says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataHeader {
    pub stream: u32,
    pub frame: u64,
    pub sent_ns: i64,
    pub wait_ns: i64,
}

/// Why bytes are not a data datagram of this version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    TooShort { len: usize },
    BadMagic,
    OtherVersion(u8),
    Reserved,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::TooShort { len } => {
                write!(f, "data datagram of {len} bytes, {HEADER_BYTES} needed")
            }
            WireError::BadMagic => f.write_str("not a Radon data datagram (bad magic)"),
            WireError::OtherVersion(v) => {
                write!(
                    f,
                    "data datagram of version {v}, this receiver reads {VERSION}"
                )
            }
            WireError::Reserved => f.write_str("data datagram with reserved bytes set"),
        }
    }
}

impl DataHeader {
    /// Writes the header into the start of `buf` (the rest is left as is:
    /// the sender zeroes its buffer once). False when `buf` is too short.
    pub fn encode(&self, buf: &mut [u8]) -> bool {
        let Some(out) = buf.get_mut(..HEADER_BYTES) else {
            return false;
        };
        out[0..4].copy_from_slice(&MAGIC);
        out[4] = VERSION;
        out[5..8].fill(0);
        out[8..12].copy_from_slice(&self.stream.to_be_bytes());
        out[12..20].copy_from_slice(&self.frame.to_be_bytes());
        out[20..28].copy_from_slice(&self.sent_ns.to_be_bytes());
        out[28..36].copy_from_slice(&self.wait_ns.to_be_bytes());
        true
    }

    /// Reads a header from the start of `buf` (padding ignored).
    pub fn decode(buf: &[u8]) -> Result<DataHeader, WireError> {
        let Some(b) = buf.get(..HEADER_BYTES) else {
            return Err(WireError::TooShort { len: buf.len() });
        };
        if b[0..4] != MAGIC {
            return Err(WireError::BadMagic);
        }
        if b[4] != VERSION {
            return Err(WireError::OtherVersion(b[4]));
        }
        if b[5..8] != [0, 0, 0] {
            return Err(WireError::Reserved);
        }
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[at..at + 8]);
            w
        };
        Ok(DataHeader {
            stream: u32::from_be_bytes([b[8], b[9], b[10], b[11]]),
            frame: u64::from_be_bytes(word(12)),
            sent_ns: i64::from_be_bytes(word(20)),
            wait_ns: i64::from_be_bytes(word(28)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DataHeader {
        DataHeader {
            stream: 7,
            frame: 123_456_789_012,
            sent_ns: -5,
            wait_ns: 120_000,
        }
    }

    #[test]
    fn a_header_round_trips_through_a_padded_payload() {
        let mut buf = [0xAAu8; 1472];
        assert!(sample().encode(&mut buf));
        assert_eq!(DataHeader::decode(&buf), Ok(sample()));
        assert_eq!(DataHeader::decode(&buf[..HEADER_BYTES]), Ok(sample()));
    }

    #[test]
    fn malformed_datagrams_are_values_not_panics() {
        let mut buf = [0u8; 64];
        assert!(!sample().encode(&mut buf[..10]));
        sample().encode(&mut buf);
        assert_eq!(
            DataHeader::decode(&buf[..35]),
            Err(WireError::TooShort { len: 35 })
        );
        let mut other = buf;
        other[4] = 2;
        assert_eq!(DataHeader::decode(&other), Err(WireError::OtherVersion(2)));
        assert!(WireError::OtherVersion(2).to_string().contains("version 2"));
        let mut bad = buf;
        bad[0] = b'X';
        assert_eq!(DataHeader::decode(&bad), Err(WireError::BadMagic));
        let mut reserved = buf;
        reserved[6] = 1;
        assert_eq!(DataHeader::decode(&reserved), Err(WireError::Reserved));
        // Feedback bytes sent to a data port are not data.
        assert_eq!(
            DataHeader::decode(b"RDFB\x01\0\0\0"),
            Err(WireError::TooShort { len: 8 })
        );
    }
}
