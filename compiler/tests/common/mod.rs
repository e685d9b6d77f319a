//! Helpers shared by the compiler's integration tests.

pub mod annotations;
// Only the Python, Rust and Dart fixture tests check their edges through it.
#[allow(dead_code)]
pub mod rules;
