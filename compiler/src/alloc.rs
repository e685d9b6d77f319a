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
/// peak: under `--watch` that is the peak of one compile, which the next reuses. Transparent huge
/// pages are not asked for: a cold compile of the Rust pair with the standard library spent 2 s
/// of system time zeroing them (3,100 faults of 2 MiB for a 0.9 GiB peak) against 0.45 s
/// without them.
///
/// # Safety
///
/// Call it before any tree-sitter object exists and while no other thread uses tree-sitter:
/// first thing in `main`. Objects made before the call would be freed by the wrong allocator.
pub unsafe fn init() {
    use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_option_set, mi_realloc};
    // SAFETY: an option of the allocator, read when memory is freed; -1 means never purge.
    unsafe { mi_option_set(PURGE_DELAY, -1) };
    // The allocator reserved its first arena before `main` (asking for huge pages then): the
    // kernel is told to give this process none, which holds for memory already reserved. The
    // setting is inherited by the programs the compiler starts (`git`), to no effect on them
    // but their own memory.
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes one integer and changes only this process's flags.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
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
    fn the_option_set_is_the_one_named() {
        use libmimalloc_sys::mi_option_get;
        // The defaults in options.c (the header's comments give older ones): purge_delay 1000,
        // between deprecated_eager_commit_delay (1) and use_numa_nodes (0). After an upgrade
        // that renumbered the options this number would name another and this test would fail.
        // The environment sets options too: then there is nothing to learn from their values.
        if std::env::vars().any(|(k, _)| k.starts_with("MIMALLOC_")) {
            return;
        }
        // SAFETY: reading options; this test process never sets them.
        let got = unsafe {
            [
                mi_option_get(super::PURGE_DELAY - 1),
                mi_option_get(super::PURGE_DELAY),
                mi_option_get(super::PURGE_DELAY + 1),
            ]
        };
        assert_eq!(got, [1, 1000, 0]);
    }
}
