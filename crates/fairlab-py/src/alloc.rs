//! The extension's allocator: mimalloc, asked to back its memory with
//! transparent huge pages (2 MiB) where the kernel allows them
//! (`/sys/kernel/mm/transparent_hugepage/enabled` "always" or "madvise").
//!
//! Why: a large network's hops each touch their own port, queue, tally,
//! FIB row and packet, scattered over tens of MiB to GiB; with 4 KiB pages
//! nearly every one also misses the TLB, and under a hypervisor a TLB miss
//! walks two page tables. On a k = 16 fat tree glibc's allocator with
//! 4 KiB pages cost about a third more CPU per hop (BENCHMARKS.md, "Scale").
//! Only Rust's allocations use it; Python's objects keep Python's.
//!
//! The examples and benches of `fairlab-sim` include this same file (by
//! `#[path]`), so that their figures are what a user of the extension gets.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`,
/// `mimalloc.h` of the v2 sources vendored by libmimalloc-sys 0.1.49,
/// which exports no name for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Asks mimalloc for huge pages in the memory it maps from now on, and to
/// keep what it frees rather than give it back: called first thing (at
/// import; at the start of an example's `main` or a bench), before a
/// simulation allocates.
///
/// Why never purge: a purge gives freed ranges back to the kernel with
/// `madvise`, which splits the huge page around each range into 4 KiB
/// pages. A large run frees and reallocates all the time (the event
/// calendar's crowded slots grow and are replaced), so a quarter of a k = 48 fat tree's
/// 0.5 GiB ended up on small pages again (`AnonHugePages` in
/// `/proc/PID/smaps_rollup`: 75 %, and 99 % without purging), each a TLB
/// miss and a two-level page walk under a hypervisor. Freed memory is
/// still reused by the allocator; a process's resident size stays at its
/// peak instead of shrinking between runs (BENCHMARKS.md, "Fourth pass").
pub fn use_huge_pages() {
    // SAFETY: sets options of the allocator; any thread, any time.
    unsafe {
        libmimalloc_sys::mi_option_set_enabled(libmimalloc_sys::mi_option_large_os_pages, true);
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1);
    };
}
