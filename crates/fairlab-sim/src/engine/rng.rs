//! Seeded random streams.
//!
//! Each component draws from its own stream, derived from the run seed and a
//! stable component key, so adding a component (or drawing more numbers in
//! one) never perturbs the numbers another component sees. The generator is
//! xoshiro256++ seeded through SplitMix64, both public-domain algorithms by
//! Blackman and Vigna; implemented here so that results do not depend on the
//! version of an external crate.

/// One step of SplitMix64: a good 64-bit mixer for seeding.
fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of the stream for component `key` in a run seeded with `seed`.
pub fn stream_seed(seed: u64, key: &[u64]) -> u64 {
    let mut s = seed ^ 0x6A09_E667_F3BC_C908;
    let mut h = splitmix64(&mut s);
    for &k in key {
        let mut x = h ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h = splitmix64(&mut x);
    }
    h
}

/// A xoshiro256++ generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let s = [
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
        ];
        Rng { s }
    }

    /// The stream of component `key` within run `seed`.
    pub fn stream(seed: u64, key: &[u64]) -> Rng {
        Rng::new(stream_seed(seed, key))
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n], inclusive (Lemire's nearly-divisionless method
    /// is unnecessary here: a 128-bit multiply has negligible bias for n << 2^64).
    pub fn below_inclusive(&mut self, n: u64) -> u64 {
        if n == u64::MAX {
            return self.next_u64();
        }
        ((self.next_u64() as u128 * (n as u128 + 1)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a1: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(Rng::stream(7, &[1, 2]), |r, _| Some(r.next_u64()))
            .collect();
        let a2: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(Rng::stream(7, &[1, 2]), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(Rng::stream(7, &[1, 3]), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
    }

    #[test]
    fn uniform_draws_stay_in_range() {
        let mut r = Rng::new(3);
        for _ in 0..10_000 {
            assert!(r.below_inclusive(10) <= 10);
            let f = r.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
    }
}
