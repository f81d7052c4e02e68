//! Every packet in the network, from the moment a host emits it until it is
//! delivered or dropped: events and queues carry its 4-byte handle.

use crate::packet::Packet;

/// Every packet in the network (in a host's jitter delay, in a queue, on a
/// wire), so that events and queues carry a 4-byte handle instead of the
/// packet: a packet is written once when a host emits it and read in
/// place at each hop, and the event heap and the queues move small entries
/// whatever a packet grows to.
#[derive(Clone, Debug, Default)]
pub struct PacketSlab {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

/// A packet in 96 bytes aligned to 32: what a switch hop reads of it (its
/// first 28 bytes, see [`Packet`]) lies in one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Slot(Packet);

const _: () = assert!(std::mem::size_of::<Slot>() == 96);

impl PacketSlab {
    #[inline]
    pub fn put(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Slot(p);
                i
            }
            None => {
                self.slots.push(Slot(p));
                (self.slots.len() - 1) as u32
            }
        }
    }
    #[inline]
    pub fn take(&mut self, id: u32) -> Packet {
        self.free.push(id);
        self.slots[id as usize].0
    }
    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize].0
    }
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.slots[id as usize].0
    }
    /// The slot of packet `id`, for a prefetch hint (it may be free).
    #[inline(always)]
    pub fn slot_ptr(&self, id: u32) -> *const Packet {
        self.slots.as_ptr().wrapping_add(id as usize) as *const Packet
    }
}
