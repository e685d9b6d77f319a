#![doc = include_str!("../README.md")]

pub mod checkouts;
pub mod cursor;
pub mod error;
pub mod http;
pub mod index;
pub mod json;
pub mod lease;
pub mod mcp;
pub mod pull;
pub mod query;
pub mod source;
pub mod store;
pub mod tools;

pub use error::{ErrorCode, ToolError};
pub use store::Store;

/// The server's allocator: mimalloc. An answer is built from many short-lived values (rows,
/// paths, JSON); with glibc's allocator a third of a 250 KB find_references answer went to
/// `malloc`, `free` and their consolidation. A binary that serves declares it
/// (`#[global_allocator] static A: kivgraph::Allocator = kivgraph::Allocator;`).
pub use mimalloc::MiMalloc as Allocator;
