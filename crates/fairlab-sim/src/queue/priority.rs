//! A strict-priority pair: packets of the high class always leave first;
//! each class has its own limit.

use super::{BufferLimit, Held, QueueDiscipline};
use crate::packet::{flags, Packet};
use crate::units::Time;
use std::collections::VecDeque;

pub use crate::vocab::Class;

#[derive(Clone, Debug)]
pub struct Priority {
    class: Class,
    limits: [BufferLimit; 2],
    fifo: [VecDeque<Held>; 2],
    bytes: [u64; 2],
}

impl Priority {
    pub fn new(class: Class, high: BufferLimit, low: BufferLimit) -> Priority {
        Priority {
            class,
            limits: [high, low],
            fifo: [VecDeque::new(), VecDeque::new()],
            bytes: [0, 0],
        }
    }
    fn is_high(&self, p: &Packet) -> bool {
        match self.class {
            Class::Udp => p.has(flags::UDP),
            Class::Control => !p.has(flags::UDP) && p.payload == 0,
        }
    }
}

impl QueueDiscipline for Priority {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, _now: Time) -> Result<(), u32> {
        let c = usize::from(!self.is_high(pkt));
        if !self.limits[c].admits(self.bytes[c], self.fifo[c].len(), pkt.size()) {
            return Err(id);
        }
        self.bytes[c] += pkt.size().get();
        self.fifo[c].push_back(Held::of(pkt, id));
        Ok(())
    }
    fn dequeue(&mut self, _now: Time) -> Option<Held> {
        for c in 0..2 {
            if let Some(p) = self.fifo[c].pop_front() {
                self.bytes[c] -= p.size().get();
                return Some(p);
            }
        }
        None
    }
    fn bytes(&self) -> u64 {
        self.bytes[0] + self.bytes[1]
    }
    fn packets(&self) -> usize {
        self.fifo[0].len() + self.fifo[1].len()
    }
    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        self.fifo[0]
            .iter()
            .chain(self.fifo[1].iter())
            .for_each(|h| f(h.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ByValue;

    #[test]
    fn high_class_always_leaves_first() {
        let mut q = Priority::new(Class::Udp, BufferLimit::Packets(5), BufferLimit::Packets(5));
        let tcp = Packet {
            payload: 1460,
            ..Packet::blank()
        };
        let udp = Packet {
            payload: 1500 - crate::packet::UDP_IP_HEADER,
            header: crate::packet::UDP_IP_HEADER as u8,
            flags: flags::UDP,
            ..Packet::blank()
        };
        q.enqueue_pkt(tcp, Time::ZERO).unwrap();
        q.enqueue_pkt(udp, Time::ZERO).unwrap();
        assert!(q.dequeue_pkt(Time::ZERO).unwrap().has(flags::UDP));
        assert!(!q.dequeue_pkt(Time::ZERO).unwrap().has(flags::UDP));
    }
}
