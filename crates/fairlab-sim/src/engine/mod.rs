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
        let start = r as usize & !63;
        let end = r as usize + bytes.max(1);
        let mut line = start;
        while line < end {
            // SAFETY: a prefetch never faults and reads nothing visible;
            // the address is only a hint.
            unsafe {
                core::arch::x86_64::_mm_prefetch(line as *const i8, core::arch::x86_64::_MM_HINT_T0)
            };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (r, bytes);
}

/// [`prefetch_bytes`] of the whole of `*r`.
#[inline(always)]
pub fn prefetch<T>(r: *const T) {
    prefetch_bytes(r, std::mem::size_of::<T>());
}
