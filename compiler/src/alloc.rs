//! The allocator of the programs that compile: mimalloc, for Rust's allocations and for
//! tree-sitter's.
//!
//! A compile allocates and frees many small values on two threads (extractions, resolver maps,
//! table columns); with glibc's allocator a fifth of an edit's compile of the Go standard library
//! went to `malloc`, `free` and their consolidation across threads.
//!
//! A binary declares the global allocator itself (`#[global_allocator] static A: Allocator =
//! Allocator;`) and calls [`route_parsers`] first thing in `main`.

pub use mimalloc::MiMalloc as Allocator;

/// Sends tree-sitter's C allocations (parsers, trees, cursors) to mimalloc as well.
///
/// # Safety
///
/// Call it before any tree-sitter object exists and while no other thread uses tree-sitter:
/// first thing in `main`. Objects made before the call would be freed by the wrong allocator.
pub unsafe fn route_parsers() {
    use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_realloc};
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
