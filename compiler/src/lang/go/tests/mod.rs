//! In-memory resolver tests for Go: each a small annotated fixture for one rule of SPEC section
//! 10 (packages and import paths, scopes, imports, written receiver types, the name-only
//! fallback and its bound, every unresolved reason, cross-repository binding, structural edges).

mod edges;
mod members;
mod packages;
mod scopes;

use crate::testing::{self, Compiled};

/// [`testing::check`], and the provenance an annotation may name after its confidence (a fourth
/// word, which `check` does not read): the edge must have exactly that kind, target, confidence
/// and provenance.
#[track_caller]
fn check(fixture: &str) -> Compiled {
    let c = testing::check(fixture);
    for (repo, path, text) in &c.files {
        for (i, line) in text.lines().enumerate() {
            let Some(at) = line.find("//want") else {
                continue;
            };
            for piece in line[at..].split(" ; ") {
                let Some(rest) = piece.trim().strip_prefix("//want:") else {
                    continue;
                };
                let words: Vec<&str> = rest.split_whitespace().collect();
                if words.len() == 4 {
                    let want = words.join(" ");
                    let edges = c.edges_at(repo, path, i as u32 + 1);
                    assert!(
                        edges.contains(&want),
                        "{repo}/{path}:{}: no edge {want}; edges on this line: {edges:?}",
                        i + 1
                    );
                }
            }
        }
    }
    c
}

/// [`check`] with the fixture's repository `m` holding the module `example.com/m` at its root.
#[track_caller]
fn check_m(fixture: &str) -> Compiled {
    check(&format!("\n//- m/go.mod\nmodule example.com/m{fixture}"))
}

/// The unresolved records of the fixture as `REASON package symbol detail`.
fn unresolved(c: &Compiled) -> Vec<String> {
    c.facts
        .unresolved
        .iter()
        .map(|u| {
            format!(
                "{} {} {} {}",
                u.reason,
                u.requested_package,
                u.requested_symbol.as_deref().unwrap_or("-"),
                u.detail.as_deref().unwrap_or("-")
            )
        })
        .collect()
}
