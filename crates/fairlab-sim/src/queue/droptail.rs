//! Drop-tail FIFO: an arriving packet that does not fit is dropped. The
//! commodity shallow-buffered switch port of every incast study.

use super::{BufferLimit, QueueDiscipline};
use crate::net::Packet;
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct DropTail {
    limit: BufferLimit,
    fifo: VecDeque<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: BufferLimit) -> DropTail {
        let cap = match limit {
            BufferLimit::Packets(n) => (n as usize).min(4096),
            BufferLimit::Bytes(b) => ((b.get() / 1500) as usize + 1).min(4096),
        };
        DropTail {
            limit,
            fifo: VecDeque::with_capacity(cap),
            bytes: 0,
        }
    }
    pub fn limit(&self) -> BufferLimit {
        self.limit
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn enqueue(&mut self, pkt: Packet, _now: Time) -> Result<(), Packet> {
        let size = pkt.size();
        if !self.limit.admits(self.bytes, self.fifo.len(), size) {
            return Err(pkt);
        }
        self.bytes += size.get();
        self.fifo.push_back(pkt);
        Ok(())
    }
    #[inline]
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let p = self.fifo.pop_front()?;
        self.bytes -= p.size().get();
        Some(p)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn packets(&self) -> usize {
        self.fifo.len()
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.fifo.iter().for_each(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    fn pkt(payload: u32) -> Packet {
        Packet {
            seq: 0,
            ack: 0,
            conn: 0,
            src: 0,
            dst: 1,
            payload,
            wnd: 0,
            flags: 0,
            from_passive: false,
        }
    }

    #[test]
    fn byte_limit_drops_the_packet_that_would_overflow() {
        // 3000 bytes hold two 1500-byte packets exactly; the third is dropped.
        let mut q = DropTail::new(BufferLimit::Bytes(Bytes(3000)));
        assert!(q.enqueue(pkt(1460), Time::ZERO).is_ok());
        assert!(q.enqueue(pkt(1460), Time::ZERO).is_ok());
        assert!(q.enqueue(pkt(1460), Time::ZERO).is_err());
        // A small ACK still fits? No: 3000 are used.
        assert!(q.enqueue(pkt(0), Time::ZERO).is_err());
        q.dequeue(Time::ZERO).unwrap();
        assert!(q.enqueue(pkt(0), Time::ZERO).is_ok());
        assert_eq!(q.bytes(), 1540);
    }

    #[test]
    fn packet_limit_counts_packets_whatever_their_size() {
        let mut q = DropTail::new(BufferLimit::Packets(2));
        assert!(q.enqueue(pkt(0), Time::ZERO).is_ok());
        assert!(q.enqueue(pkt(1460), Time::ZERO).is_ok());
        assert!(q.enqueue(pkt(0), Time::ZERO).is_err());
        assert_eq!(q.packets(), 2);
    }

    #[test]
    fn limit_strings_parse_as_bytes_or_packets() {
        assert_eq!(
            BufferLimit::parse("64KiB").unwrap(),
            BufferLimit::Bytes(Bytes(65536))
        );
        assert_eq!(
            BufferLimit::parse("20pkt").unwrap(),
            BufferLimit::Packets(20)
        );
        assert_eq!(
            BufferLimit::parse("20 packets").unwrap(),
            BufferLimit::Packets(20)
        );
        assert!(BufferLimit::parse("-3pkt").is_err());
    }
}
