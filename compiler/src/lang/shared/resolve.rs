//! Phase 2 alike in Python, TypeScript and Dart: the symbols of declarations, the modules a
//! module's imports reach, and the name-only candidates for a member of an unknown receiver.

use std::collections::{BTreeSet, HashMap};

/// The symbol of declaration `$d` (a phase 1 `Decl` with `name`, `qn`, `kind`, `signature` and
/// `span`) declared at [`crate::lang::Home`] `$home`, exported as `$exported` says.
macro_rules! decl_symbol {
    ($home:expr, $d:expr, $exported:expr) => {
        $home.symbol(
            $d.name.clone(),
            $d.qn.clone(),
            $d.kind,
            $exported,
            $d.signature.clone(),
            $d.span,
        )
    };
}
pub(crate) use decl_symbol;

/// The other modules than `m` among `targets` (what module `m`'s imports resolve to), each
/// once, in order.
pub(crate) fn other_modules(m: usize, targets: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let set: BTreeSet<usize> = targets.into_iter().filter(|&t| t != m).collect();
    set.into_iter().collect()
}

/// What a member `name` of an unknown receiver in module `m` may be, by name only: the members
/// of that name `member_index` lists for module `m`, then for each module it imports
/// (`imported`), as (module, declaration).
pub(crate) fn name_only_candidates(
    member_index: &[HashMap<String, Vec<usize>>],
    imported: &[Vec<usize>],
    m: usize,
    name: &str,
) -> Vec<(usize, usize)> {
    let mut cands: Vec<(usize, usize)> = Vec::new();
    for sm in std::iter::once(m).chain(imported[m].iter().copied()) {
        if let Some(v) = member_index[sm].get(name) {
            cands.extend(v.iter().map(|&d| (sm, d)));
        }
    }
    cands
}
