//! Packets between two places (on a wire, in a host's jitter delay), so
//! that events carry a 4-byte handle instead of the packet.

use crate::packet::Packet;

/// Packets between two places (on a wire, in a host's jitter delay), so
/// that events carry a 4-byte handle instead of the packet: the event heap
/// moves 32-byte entries whatever a packet grows to.
#[derive(Clone, Debug, Default)]
pub struct PacketSlab {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketSlab {
    #[inline]
    pub fn put(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                i
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        }
    }
    #[inline]
    pub fn take(&mut self, id: u32) -> Packet {
        self.free.push(id);
        self.slots[id as usize]
    }
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }
}
