//! The allocator of the examples and benches: the Python extension's
//! (crates/fairlab-py/src/alloc.rs, which says why), so that their
//! figures are what a user of the extension gets. Each binary includes
//! this file and calls `use_huge_pages()` first thing in `main`.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Asks mimalloc for transparent huge pages in the memory it maps from now on.
#[allow(dead_code)]
pub fn use_huge_pages() {
    // SAFETY: sets an option of the allocator; any thread, any time.
    unsafe {
        libmimalloc_sys::mi_option_set_enabled(libmimalloc_sys::mi_option_large_os_pages, true)
    };
}
