//! The one flow hash: SipHash-2-4 of the 5-tuple under a per-run key,
//! computed once per flow direction, then salted by each consumer.
//!
//! Why SipHash: it is what Linux's flow dissector uses for `skb->hash`
//! (`flow_hash_from_keys`, keyed by a boot-time random `hashrnd`), the hash
//! a host's NIC transmit-queue choice (`skb_tx_hash`) starts from; keyed by
//! the run seed it gives every run its own, reproducible flow placement. It
//! is computed once per flow, so its cost is off the per-packet path.
//!
//! Each consumer (ECMP at a switch, SFQ and each of its perturbations, DRR,
//! HCF in each period, a NIC's queue choice) mixes its own [`Salt`] into the
//! flow's hash with a 32-bit finalizer, so that two consumers' choices are
//! uncorrelated unless the scenario asks for it: a flow that shares an ECMP
//! path with another does not, for that reason, share an SFQ bucket.
//! Indices come from [`reciprocal_scale`], Linux's multiply-shift reduction.

use super::FiveTuple;

/// SipHash-2-4 (Aumasson and Bernstein, 2012) of `msg` under key `(k0, k1)`.
pub fn siphash24(k0: u64, k1: u64, msg: &[u8]) -> u64 {
    let mut v0 = k0 ^ 0x736f_6d65_7073_6575;
    let mut v1 = k1 ^ 0x646f_7261_6e64_6f6d;
    let mut v2 = k0 ^ 0x6c79_6765_6e65_7261;
    let mut v3 = k1 ^ 0x7465_6462_7974_6573;
    #[inline(always)]
    fn round(v0: &mut u64, v1: &mut u64, v2: &mut u64, v3: &mut u64) {
        *v0 = v0.wrapping_add(*v1);
        *v1 = v1.rotate_left(13) ^ *v0;
        *v0 = v0.rotate_left(32);
        *v2 = v2.wrapping_add(*v3);
        *v3 = v3.rotate_left(16) ^ *v2;
        *v0 = v0.wrapping_add(*v3);
        *v3 = v3.rotate_left(21) ^ *v0;
        *v2 = v2.wrapping_add(*v1);
        *v1 = v1.rotate_left(17) ^ *v2;
        *v2 = v2.rotate_left(32);
    }
    let chunks = msg.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        let m = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        v3 ^= m;
        round(&mut v0, &mut v1, &mut v2, &mut v3);
        round(&mut v0, &mut v1, &mut v2, &mut v3);
        v0 ^= m;
    }
    let mut last = (msg.len() as u64 & 0xff) << 56;
    for (i, &b) in tail.iter().enumerate() {
        last |= (b as u64) << (8 * i);
    }
    v3 ^= last;
    round(&mut v0, &mut v1, &mut v2, &mut v3);
    round(&mut v0, &mut v1, &mut v2, &mut v3);
    v0 ^= last;
    v2 ^= 0xff;
    for _ in 0..4 {
        round(&mut v0, &mut v1, &mut v2, &mut v3);
    }
    v0 ^ v1 ^ v2 ^ v3
}

/// The run's flow hasher: one key per run, from the run seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowHasher {
    k0: u64,
    k1: u64,
}

impl FlowHasher {
    pub fn new(k0: u64, k1: u64) -> FlowHasher {
        FlowHasher { k0, k1 }
    }
    /// The flow's hash: the 5-tuple's SipHash folded to 32 bits (the width
    /// of `skb->hash`).
    pub fn hash(&self, t: &FiveTuple) -> u32 {
        let h = siphash24(self.k0, self.k1, &t.to_bytes());
        (h ^ (h >> 32)) as u32
    }
}

/// A consumer's salt: what makes its use of a flow hash its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Salt(pub u32);

impl Salt {
    /// A salt from 64 random bits (a consumer's seeded stream).
    pub fn from_u64(x: u64) -> Salt {
        Salt((x ^ (x >> 32)) as u32)
    }
    /// Another salt derived from this one (HCF's kappa hash functions, one
    /// switch's ECMP among others sharing a seed).
    pub fn derive(self, i: u32) -> Salt {
        Salt(fmix32(self.0 ^ fmix32(i.wrapping_add(0x9E37_79B9))))
    }
}

/// MurmurHash3's 32-bit finalizer: every input bit affects every output bit.
#[inline]
pub fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The flow hash as one consumer sees it.
#[inline]
pub fn salted(hash: u32, salt: Salt) -> u32 {
    fmix32(hash ^ salt.0)
}

/// Linux's `reciprocal_scale`: maps a 32-bit hash onto `[0, n)` with a
/// multiply and a shift instead of a division.
#[inline]
pub fn reciprocal_scale(h: u32, n: u32) -> u32 {
    ((h as u64 * n as u64) >> 32) as u32
}

/// A consumer's index in `[0, n)` for a flow hash.
#[inline]
pub fn pick(hash: u32, salt: Salt, n: u32) -> u32 {
    reciprocal_scale(salted(hash, salt), n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Addr, Protocol};

    #[test]
    fn siphash_matches_the_reference_vectors() {
        // Appendix A of the SipHash paper: key 00..0f, message 00..0e.
        let k0 = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]);
        let k1 = u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15]);
        let msg: Vec<u8> = (0u8..15).collect();
        assert_eq!(siphash24(k0, k1, &msg), 0xa129_ca61_49be_45e5);
        // vectors.h of the reference implementation: empty and 8-byte messages.
        assert_eq!(siphash24(k0, k1, &[]), 0x726f_db47_dd0e_0e31);
        let m8: Vec<u8> = (0u8..8).collect();
        assert_eq!(siphash24(k0, k1, &m8), 0x93f5_f579_9a93_2462);
    }

    fn tuple(sport: u16) -> FiveTuple {
        FiveTuple {
            src: Addr::new(10, 0, 0, 1),
            dst: Addr::new(10, 0, 0, 2),
            sport,
            dport: 5001,
            proto: Protocol::Tcp,
        }
    }

    #[test]
    fn the_flow_hash_depends_on_the_key_and_on_every_tuple_field() {
        let h = FlowHasher::new(1, 2);
        let t = tuple(40000);
        assert_ne!(h.hash(&t), FlowHasher::new(1, 3).hash(&t));
        assert_ne!(h.hash(&t), h.hash(&tuple(40001)));
        assert_ne!(h.hash(&t), h.hash(&t.reversed()));
        let udp = FiveTuple {
            proto: Protocol::Udp,
            ..t
        };
        assert_ne!(h.hash(&t), h.hash(&udp));
    }

    #[test]
    fn two_consumers_salts_give_uncorrelated_choices() {
        // 4096 flows into 4 queues by two consumers: if the choices were
        // correlated, far more than a quarter would agree.
        let h = FlowHasher::new(7, 9);
        let (a, b) = (Salt(0x1234_5678), Salt(0x9abc_def0));
        let agree = (0..4096u16)
            .map(|p| h.hash(&tuple(32768 + p)))
            .filter(|&x| pick(x, a, 4) == pick(x, b, 4))
            .count();
        assert!((900..1150).contains(&agree), "{agree} of 4096 agree");
    }

    #[test]
    fn reciprocal_scale_spreads_hashes_evenly_over_n() {
        let h = FlowHasher::new(3, 4);
        let mut counts = [0u32; 3];
        for p in 0..30000u16 {
            counts[pick(h.hash(&tuple(p)), Salt(1), 3) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9600..10400).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(reciprocal_scale(u32::MAX, 5), 4);
        assert_eq!(reciprocal_scale(0, 5), 0);
    }
}
