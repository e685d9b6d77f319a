//! In-memory resolver tests of TypeScript and JavaScript: each compiles a small annotated
//! fixture (`crate::testing::check`) and covers one rule of SPEC section 11. A target's package
//! is its repository-relative file path (`src/a.ts:Order.total`).

mod members;
mod modules;
mod names;
mod structure;
mod tasks;

use crate::testing::{Compiled, check};

/// The edges at `repo/path:line` that carry `provenance`, as `KIND package:qualified_name
/// CONFIDENCE`.
fn with_provenance(
    c: &Compiled,
    (repo, path, line): (&str, &str, u32),
    provenance: &str,
) -> Vec<String> {
    c.edges_at(repo, path, line)
        .into_iter()
        .filter_map(|e| {
            e.strip_suffix(&format!(" {provenance}"))
                .map(str::to_string)
        })
        .collect()
}

/// The kinds of the targets of the edges at `repo/path:line` whose target is named `name`
/// (to tell apart merged declarations, which share a qualified name).
fn target_kinds(
    c: &Compiled,
    (repo, path, line): (&str, &str, u32),
    name: &str,
) -> Vec<&'static str> {
    let f = &c.facts;
    f.edges
        .iter()
        .filter(|e| {
            e.line == line
                && e.file.is_some_and(|file| {
                    f.files[file].path == path && f.repos[f.files[file].repo].name == repo
                })
                && f.symbols[e.target].qualified_name == name
        })
        .map(|e| f.symbols[e.target].kind.as_str())
        .collect()
}

/// The details of the fixture's unresolved records, in order.
fn details(c: &Compiled) -> Vec<&str> {
    c.facts
        .unresolved
        .iter()
        .map(|u| u.detail.as_deref().unwrap_or_default())
        .collect()
}
