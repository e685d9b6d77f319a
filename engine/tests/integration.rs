//! Every integration test of this crate in one binary: one link instead of one per file,
//! which keeps the build's disk and link time small. Each module is one former test file.

mod common;
mod pair;

mod answers;
mod checklist;
mod ci_recipe;
mod compat;
mod completeness;
mod cross_repo;
mod damaged_index;
mod dart_answers;
mod derived;
mod file_symbols;
mod find_by_intent;
mod fuzz_arguments;
mod get_source;
mod index_project;
mod invariants;
mod mcp_client;
mod mcp_http;
mod mcp_stdio;
mod no_machine_paths;
mod pack_pull;
mod protocol;
mod py_answers;
mod query_tools;
mod rs_answers;
mod rs_sysroot;
mod ts_answers;
