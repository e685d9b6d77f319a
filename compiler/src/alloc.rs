//! The allocator of the programs that compile: mimalloc, for Rust's allocations and for
//! tree-sitter's.
//!
//! A compile allocates and frees many small values on two threads (extractions, resolver maps,
//! table columns); with glibc's allocator a fifth of an edit's compile of the Go standard library
//! went to `malloc`, `free` and their consolidation across threads.
//!
//! A binary declares the global allocator itself (`#[global_allocator] static A: Allocator =
//! Allocator;`) and calls [`init`] first thing in `main`.

pub use mimalloc::MiMalloc as Allocator;

/// `mi_option_purge_delay` in `mimalloc.h` (the bindings name no constant for it); a test
/// checks that the option found under this number has its default, 1000 ms (`options.c`).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Sets the allocator up for a compile: freed memory is kept for reuse instead of being handed
/// back to the system after a second (a cold compile of the TypeScript corpus spent a quarter of its
/// CPU in the kernel zeroing pages handed back and taken again), and tree-sitter's C allocations
/// (parsers, trees, cursors) go to mimalloc as well. A process's resident memory stays at its
/// peak: under `--watch` that is the peak of one compile, which the next reuses.
///
/// # Safety
///
/// Call it before any tree-sitter object exists and while no other thread uses tree-sitter:
/// first thing in `main`. Objects made before the call would be freed by the wrong allocator.
pub unsafe fn init() {
    use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_option_set, mi_realloc};
    // SAFETY: an option of the allocator, read when memory is freed; -1 means never purge.
    unsafe { mi_option_set(PURGE_DELAY, -1) };
    // SAFETY: the four functions are one allocator family, return memory aligned as `malloc`'s,
    // and the caller promises no tree-sitter object exists yet.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: mi_malloc,
            calloc: mi_calloc,
            realloc: mi_realloc,
            free: mi_free,
        }));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_option_is_the_one_mimalloc_documents() {
        // options.c: `{ 1000, MI_OPTION_UNINIT, MI_OPTION_LEGACY(purge_delay,reset_delay) }`.
        // The options around it default to 1, 0 or 100: after an upgrade that renumbered them,
        // this number would name another option and this test would fail.
        // SAFETY: reading an option; this test process never sets it.
        let v = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        assert_eq!(v, 1000);
    }
}
