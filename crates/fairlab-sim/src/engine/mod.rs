//! The discrete-event engine: integer picosecond time, an event queue ordered
//! by (time, insertion sequence), and seeded RNG streams, one per component.

mod calendar;
mod queue;
mod rng;

pub use queue::EventQueue;
pub use rng::{stream_seed, Rng};

/// Asks the CPU to bring the cache lines of `*r` (its first `bytes`) into
/// the first-level cache. A hint only: it changes no state and no result,
/// and costs one instruction per line. The event loop calls it for the
/// memory the next events will touch, so that on a large network their
/// misses overlap with the work of the current one instead of stalling it
/// one after the other (see `sim::prefetch`).
#[inline(always)]
pub fn prefetch_bytes<T>(r: *const T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        // One hint every 64 bytes from the start, and one at the last byte:
        // that reaches every line the bytes span, however they are aligned,
        // in a count fixed by `bytes` alone, so that for a type's size the
        // loop unrolls into bare prefetches (a line hinted twice costs
        // nothing more).
        let hint = |a: *const u8| {
            // SAFETY: a prefetch never faults and reads nothing visible;
            // the address is only a hint.
            unsafe {
                core::arch::x86_64::_mm_prefetch(a as *const i8, core::arch::x86_64::_MM_HINT_T0)
            }
        };
        let (r, n) = (r as *const u8, bytes.max(1));
        let mut off = 0;
        while off < n {
            hint(r.wrapping_add(off));
            off += 64;
        }
        hint(r.wrapping_add(n - 1));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (r, bytes);
}

/// [`prefetch_bytes`] of the whole of `*r`.
#[inline(always)]
pub fn prefetch<T>(r: *const T) {
    prefetch_bytes(r, std::mem::size_of::<T>());
}
