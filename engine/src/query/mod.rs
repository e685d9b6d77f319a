//! The query layer: plain Rust results straight off the mmapped generation. Nothing here knows
//! JSON; the tools layer renders these structs. Every read of the archive a tool needs goes
//! through a function of this layer (`source` reads declaration bodies on its own).
//!
//! The items live in modules by concern and are re-exported here, so callers name them
//! `query::find_symbol`, `query::SymbolRow` and so on; find_by_intent's retrieval keeps its own
//! namespace, `query::intent`.

mod arguments;
mod consumers;
mod counts;
mod find_symbol;
pub mod intent;
mod outline;
mod references;
mod repositories;
mod resolve;
mod symbols;
mod unresolved;
mod walk;

pub use crate::error::{ErrorCode, ToolError};
pub use arguments::{check_padding, clean_path};
pub use consumers::{Consumer, cross_repo_consumers};
pub use counts::{Counts, DerivedCounts, counts, derived_counts};
pub use find_symbol::{FindSymbol, Mode, find_symbol};
pub use outline::{declarations_under, files_under};
pub use references::{Direction, RefFilter, RefRow, references};
pub use repositories::{RepositoryRow, repositories};
pub use resolve::{Selector, resolve_name, resolve_selector};
pub use symbols::{
    SymbolRow, any_derived, canonical_identity, derived_repositories, is_derived, package_name,
    repository_index, repository_name, repository_root, require_repository, symbol_row,
};
pub use unresolved::{
    Failure, blind_spots_naming, failure, failure_package, failures_made_by, invisible_scopes,
    scope_directory, scopes_declaring, scopes_using, scopes_using_symbol, unresolved_named,
    unresolved_range,
};
pub use walk::{Reached, Walk, WalkSpec, walk};
