//! In-memory resolver tests of Python (SPEC section 12): one small annotated fixture per rule,
//! compiled by [`crate::testing::check`]. A target's package is its dotted module name
//! (`pkg.mod:C.m`); a module symbol's qualified name is that name too (`pkg.mod:pkg.mod`).

mod alternatives;
mod imports;
mod kinds;
mod name_only;
mod receivers;
mod scopes;
mod tasks;

use crate::testing::Compiled;

/// The detail of the first unresolved record of `reason`.
#[track_caller]
pub(super) fn detail_of<'c>(c: &'c Compiled, reason: &str) -> &'c str {
    let u = c.facts.unresolved.iter().find(|u| u.reason == reason);
    u.and_then(|u| u.detail.as_deref())
        .unwrap_or_else(|| panic!("no {reason} record with a detail: {:?}", c.facts.unresolved))
}

/// Asserts that nothing (edge or unresolved record) occurs at `repo/path:line`.
#[track_caller]
pub(super) fn quiet(c: &Compiled, repo: &str, path: &str, line: u32) {
    assert_eq!(c.edges_at(repo, path, line), Vec::<String>::new());
    assert_eq!(c.unresolved_at(repo, path, line), Vec::<String>::new());
}
