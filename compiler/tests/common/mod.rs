//! Helpers shared by the compiler's integration tests.

pub mod annotations;
