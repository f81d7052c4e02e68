//! The libpcap file format (what tcpdump writes and Wireshark reads), with
//! nanosecond timestamps: a 24-byte file header, then per packet a 16-byte
//! record header (seconds, nanoseconds, bytes kept, bytes on the wire) and
//! the bytes kept. Little-endian, as written on the machines it runs on;
//! readers tell the byte order from the magic number.

use crate::units::Time;

/// The magic number of nanosecond-resolution libpcap files.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Bytes a reader may expect at most per packet (tcpdump's default).
pub const SNAPLEN: u32 = 262_144;
pub const FILE_HEADER: usize = 24;
pub const RECORD_HEADER: usize = 16;

/// A libpcap file being written in memory.
#[derive(Clone, Debug)]
pub struct PcapBuf {
    bytes: Vec<u8>,
    packets: u64,
}

impl Default for PcapBuf {
    fn default() -> PcapBuf {
        PcapBuf::new()
    }
}

impl PcapBuf {
    pub fn new() -> PcapBuf {
        let mut bytes = Vec::with_capacity(FILE_HEADER);
        for word in [MAGIC_NS, 2 | (4 << 16), 0, 0, SNAPLEN, LINKTYPE_ETHERNET] {
            // The version is two 16-bit halves: major 2, minor 4.
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        PcapBuf { bytes, packets: 0 }
    }

    /// Appends a packet seen at `t` whose frame was `orig_len` bytes, of
    /// which `kept` were captured.
    pub fn record(&mut self, t: Time, kept: &[u8], orig_len: u32) {
        let ns = t.0 / 1000;
        let (secs, nanos) = (ns / 1_000_000_000, ns % 1_000_000_000);
        // Seconds wrap after 136 years of simulated time.
        for word in [secs as u32, nanos as u32, kept.len() as u32, orig_len] {
            self.bytes.extend_from_slice(&word.to_le_bytes());
        }
        self.bytes.extend_from_slice(kept);
        self.packets += 1;
    }

    /// The file so far.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// The records of a file written by [`PcapBuf`]: (time in ns, the record
/// with its header).
fn records(file: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut at = FILE_HEADER.min(file.len());
    std::iter::from_fn(move || {
        let h = file.get(at..at + RECORD_HEADER)?;
        let word = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap());
        let ns = u64::from(word(0)) * 1_000_000_000 + u64::from(word(4));
        let end = at + RECORD_HEADER + word(8) as usize;
        let rec = &file[at..end];
        at = end;
        Some((ns, rec))
    })
}

/// The times (ns) of a file's records.
pub fn records_ns(file: &[u8]) -> impl Iterator<Item = u64> + '_ {
    records(file).map(|(ns, _)| ns)
}

/// Two files written by [`PcapBuf`], each in time order, as one in time
/// order (ties: `a`'s first), keeping only packets seen before `before`;
/// gives it and how many packets it holds.
pub fn merge(a: &[u8], b: &[u8], before: Time) -> (Vec<u8>, u64) {
    let limit_ns = before.0.div_ceil(1000);
    let mut out = PcapBuf::new().into_bytes();
    let mut n = 0u64;
    // Both are in time order: past the limit, nothing later is kept.
    let keep = |r: &(u64, &[u8])| r.0 < limit_ns;
    let mut ra = records(a).take_while(keep).peekable();
    let mut rb = records(b).take_while(keep).peekable();
    loop {
        let take_a = match (ra.peek(), rb.peek()) {
            (Some(x), Some(y)) => x.0 <= y.0,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let (_, rec) = if take_a { ra.next() } else { rb.next() }.expect("peeked");
        out.extend_from_slice(rec);
        n += 1;
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_libpcaps_with_nanoseconds_and_ethernet() {
        let mut f = PcapBuf::new();
        f.record(Time::from_ns(1_500_000_123), &[1, 2, 3], 60);
        let b = f.bytes();
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&b[4..8], &[2, 0, 4, 0]);
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 1);
        let rec = &b[24..];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1);
        assert_eq!(
            u32::from_le_bytes(rec[4..8].try_into().unwrap()),
            500_000_123
        );
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 60);
        assert_eq!(&rec[16..], &[1, 2, 3]);
    }

    #[test]
    fn merging_interleaves_by_time_and_cuts_at_the_limit() {
        let (mut a, mut b) = (PcapBuf::new(), PcapBuf::new());
        for t in [1, 4, 9] {
            a.record(Time::from_ns(t), &[t as u8], 100);
        }
        for t in [2, 4, 5, 12] {
            b.record(Time::from_ns(t), &[t as u8 + 100], 100);
        }
        let (m, n) = merge(a.bytes(), b.bytes(), Time::from_ns(9));
        assert_eq!(n, 5);
        let order: Vec<u8> = records(&m).map(|(_, r)| r[RECORD_HEADER]).collect();
        assert_eq!(order, vec![1, 102, 4, 104, 105]);
    }
}
