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

/// Asks mimalloc for huge pages in the memory it maps from now on: called
/// first thing (at import; at the start of an example's `main` or a
/// bench), before a simulation allocates.
pub fn use_huge_pages() {
    // SAFETY: sets an option of the allocator; any thread, any time.
    unsafe {
        libmimalloc_sys::mi_option_set_enabled(libmimalloc_sys::mi_option_large_os_pages, true)
    };
}
