//! Every integration test of this crate in one binary: one link instead of one per file,
//! which keeps the build's disk and link time small. Each module is one former test file.

mod common;

mod accuracy_fixtures;
mod accuracy_py;
mod accuracy_py_fixtures;
mod accuracy_rs_fixtures;
mod accuracy_ts;
mod accuracy_ts_fixtures;
