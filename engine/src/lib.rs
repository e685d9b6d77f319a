#![doc = include_str!("../README.md")]

pub mod checkouts;
pub mod cursor;
pub mod error;
pub mod http;
pub mod index;
pub mod lease;
pub mod mcp;
pub mod pull;
pub mod query;
pub mod source;
pub mod store;
pub mod tools;

pub use error::{ErrorCode, ToolError};
pub use store::Store;
