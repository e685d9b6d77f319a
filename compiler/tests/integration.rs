//! Every integration test of this crate in one binary: one link instead of one per file,
//! which keeps the build's disk and link time small. Each module is one former test file.

mod common;
mod shared;

mod bad_input;
mod cli_repositories;
mod compat;
mod dart_bad_input;
mod dart_fixtures;
mod dart_scopes;
mod derived_unit;
mod discovery_records;
mod disk_cache;
mod extraction_cache;
mod generation;
mod go_fixtures;
mod portable;
mod publish;
mod py_fixtures;
mod rs_bad_input;
mod rs_fixtures;
mod rs_sysroot_auto;
mod terms;
mod ts_fixtures;
mod units;
mod up_to_date;
mod watch;
