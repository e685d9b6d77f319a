//! The annotation syntax of the resolution fixtures, shared by the fixture tests (which check a
//! published generation) and the front ends' in-memory unit tests.
//!
//! Annotations are comments at the end of the line holding the reference (or alone on the line
//! above it): `//want: EDGE_KIND package:qualified_name [CONFIDENCE [PROVENANCE]]` (the confidence
//! defaults to `EXACT_DECLARATION_MAPPED`; a provenance, when written, is checked too), `//want-none: NAME` (or `PACKAGE:QN`), `//want-unresolved: REASON PACKAGE`; several
//! on one line are separated by ` ; `. In Python files (`.py`, `.pyi`), where `//` is floor
//! division, the comment marker is `#` instead (see [`comment_marker`]).

use std::path::Path;

/// One claim of an annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    Edge {
        kind: String,
        package: String,
        qn: String,
        confidence: String,
        /// Checked when written (a fourth word); any provenance otherwise.
        provenance: Option<String>,
    },
    None {
        name: String,
    },
    Unresolved {
        reason: String,
        package: String,
    },
}

/// The comment marker that starts an annotation in the file at `path`: `#` in Python sources
/// (`.py`, `.pyi`), `//` in the sources of every other language.
pub fn comment_marker(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("py" | "pyi") => "#",
        _ => "//",
    }
}

/// The annotations of a source text whose comments start with `marker` (`//` or `#`), as
/// `(line, annotation text, claim)`.
pub fn parse_annotations(text: &str, marker: &str) -> Vec<(u32, String, Want)> {
    let mut out = Vec::new();
    let start = format!("{marker}want");
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(pos) = line.find(&start) else {
            continue;
        };
        // An annotation alone on its line applies to the next line.
        let line_no = if line[..pos].trim().is_empty() {
            i as u32 + 2
        } else {
            i as u32 + 1
        };
        for piece in line[pos..].split(" ; ") {
            let piece = piece.trim();
            let (tag, rest) = piece.split_once(':').unwrap_or((piece, ""));
            let words = split_words(rest);
            let want = match tag.strip_prefix(marker) {
                Some("want") => {
                    let (package, qn) =
                        split_target(&words[1]).expect("TARGET is package:qualified_name");
                    assert!(
                        words.len() <= 4,
                        "an edge annotation is KIND TARGET [CONFIDENCE [PROVENANCE]]: {piece:?}"
                    );
                    Want::Edge {
                        kind: words[0].to_string(),
                        package: package.to_string(),
                        qn: qn.to_string(),
                        confidence: words
                            .get(2)
                            .map_or("EXACT_DECLARATION_MAPPED", String::as_str)
                            .to_string(),
                        provenance: words.get(3).cloned(),
                    }
                }
                Some("want-none") => Want::None {
                    name: words[0].to_string(),
                },
                Some("want-unresolved") => Want::Unresolved {
                    reason: words[0].to_string(),
                    package: words[1].to_string(),
                },
                _ => panic!("unknown annotation {tag:?} in {piece:?}"),
            };
            out.push((line_no, piece.to_string(), want));
        }
    }
    out
}

/// The words of an annotation: split at whitespace, except inside double quotes, which let a
/// target hold spaces (`"geo:<Circle as Shape>::area"`, `"geo:impl Shape for Circle"`).
fn split_words(rest: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in rest.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Splits `package:qualified_name` at the last `:` that is not half of a `::`, so that Rust
/// paths (`geo::shapes:Circle::area`, `bin:geo::cli:Cli::run`) and Dart URIs
/// (`package:shop/cart.dart:Cart.total`) split where the package name ends.
pub fn split_target(t: &str) -> Option<(&str, &str)> {
    let b = t.as_bytes();
    (0..b.len()).rev().find_map(|i| {
        let single =
            b[i] == b':' && (i == 0 || b[i - 1] != b':') && b.get(i + 1).is_none_or(|&n| n != b':');
        single.then(|| (&t[..i], &t[i + 1..]))
    })
}
