//! In-memory resolver tests of Dart: each a small annotated fixture (`crate::testing::check`)
//! covering one rule of SPEC section 15, by concern: libraries, URIs, imports, exports and parts
//! ([`libraries`]); names, classes, constructors and structural edges ([`scopes`]); receivers,
//! extensions and the name-only fallback ([`receivers`]).

use crate::testing::{Compiled, check};

mod libraries;
mod receivers;
mod scopes;

/// A `pubspec.yaml` naming the package `shop`, at the root of repository `shop`: its `lib/`
/// files are the libraries `package:shop/…`.
const PUBSPEC: &str = "//- shop/pubspec.yaml\nname: shop\n";

/// Compiles `files` behind the `shop` pubspec and checks their annotations.
#[track_caller]
fn shop(files: &str) -> Compiled {
    check(&format!("{PUBSPEC}{files}"))
}

/// The line of `repo/path` that holds `needle` (the first).
#[track_caller]
fn line_of(c: &Compiled, repo: &str, path: &str, needle: &str) -> u32 {
    let (_, _, text) = c
        .files
        .iter()
        .find(|(r, p, _)| r == repo && p == path)
        .unwrap_or_else(|| panic!("no file {repo}/{path}"));
    let i = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line of {repo}/{path} holds {needle:?}"));
    i as u32 + 1
}

/// The edges on the line of `repo/path` that holds `needle`, as `KIND package:qn CONFIDENCE
/// PROVENANCE`.
#[track_caller]
fn edges_on(c: &Compiled, repo: &str, path: &str, needle: &str) -> Vec<String> {
    c.edges_at(repo, path, line_of(c, repo, path, needle))
}

/// The unresolved records on the line of `repo/path` that holds `needle`, as `REASON package`.
#[track_caller]
fn unresolved_on(c: &Compiled, repo: &str, path: &str, needle: &str) -> Vec<String> {
    c.unresolved_at(repo, path, line_of(c, repo, path, needle))
}

/// The requested symbol and the detail of the first unresolved record.
#[track_caller]
fn first_record(c: &Compiled) -> (Option<&str>, Option<&str>) {
    let u = c.facts.unresolved.first().expect("an unresolved record");
    (u.requested_symbol.as_deref(), u.detail.as_deref())
}
