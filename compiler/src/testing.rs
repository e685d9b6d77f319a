//! In-memory resolver tests, in the manner of rust-analyzer's fixture tests: a test writes a few
//! files inline, with the annotations of [`crate::annotations`], and checks the edges and
//! unresolved records the front ends produce, without encoding or publishing a generation.
//!
//! A fixture is one string; a line `//- REPO/PATH` starts the file `PATH` of repository `REPO`
//! (repositories in order of first appearance; a name starting with `rust:` is a derived
//! repository, as the toolchain's standard library is):
//!
//! ```text
//! //- shapes/go.mod
//! module example.com/shapes
//! //- shapes/geo/geo.go
//! package geo
//! func Area() int { return 0 }
//! func Twice() int { return Area() * 2 } //want: CALLS_DIRECT example.com/shapes/geo:Area
//! ```
//!
//! [`check`] compiles it and fails, listing every claim that does not hold, unless all do.

use std::path::PathBuf;

use kivgraph_format::Language;

use crate::annotations::{Want, comment_marker, parse_annotations};
use crate::facts::{FileId, Finished, Unresolved};
use crate::{RepoSpec, RustSysroot, gather_and_resolve};

/// A compiled fixture: the canonical facts and the files they came from.
pub(crate) struct Compiled {
    pub facts: Finished,
    /// `(repository, path, text)` of every file of the fixture.
    pub files: Vec<(String, String, String)>,
    _dir: tempfile::TempDir,
}

/// Splits a fixture into `(repository, path, text)`.
fn split(fixture: &str) -> Vec<(String, String, String)> {
    let mut files: Vec<(String, String, String)> = Vec::new();
    for line in fixture.lines() {
        if let Some(header) = line.strip_prefix("//- ") {
            let header = header.trim();
            // `rust:1.95.0/std/src/lib.rs`: the repository name holds no slash.
            let (repo, path) = header
                .split_once('/')
                .unwrap_or_else(|| panic!("fixture header {header:?} is not REPO/PATH"));
            files.push((repo.to_string(), path.to_string(), String::new()));
        } else if let Some(f) = files.last_mut() {
            f.2.push_str(line);
            f.2.push('\n');
        } else if !line.trim().is_empty() {
            panic!("fixture text before the first //- header: {line:?}");
        }
    }
    files
}

/// Writes the fixture's files under a temporary directory and runs every front end over them.
pub(crate) fn compile(fixture: &str) -> Compiled {
    let files = split(fixture);
    let dir = tempfile::tempdir().unwrap();
    let mut specs: Vec<RepoSpec> = Vec::new();
    for (repo, path, text) in &files {
        let n = match specs.iter().position(|s| &s.name == repo) {
            Some(n) => n,
            None => {
                specs.push(RepoSpec {
                    name: repo.clone(),
                    root: dir.path().join(specs.len().to_string()),
                    derived: repo.starts_with("rust:"),
                    languages: None,
                });
                specs.len() - 1
            }
        };
        let file: PathBuf = specs[n].root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
    }
    for s in &mut specs {
        std::fs::create_dir_all(&s.root).unwrap();
        s.root = std::fs::canonicalize(&s.root).unwrap();
    }
    let (facts, _) = gather_and_resolve(
        &specs,
        RustSysroot::Off,
        &crate::progress::Progress::new(false),
    );
    let facts = facts.finish().expect("the fixture's facts are consistent");
    Compiled {
        facts,
        files,
        _dir: dir,
    }
}

impl Compiled {
    fn file_id(&self, repo: &str, path: &str) -> Option<FileId> {
        self.facts
            .files
            .iter()
            .position(|f| self.facts.repos[f.repo].name == repo && f.path == path)
            .map(FileId)
    }

    /// The first and last line of the one symbol named `qualified_name`.
    #[track_caller]
    pub fn lines_of(&self, qualified_name: &str) -> (u32, u32) {
        let found: Vec<_> = self
            .facts
            .symbols
            .iter()
            .filter(|s| s.qualified_name == qualified_name)
            .collect();
        assert_eq!(found.len(), 1, "symbols named {qualified_name}: {found:?}");
        (found[0].span.start_line, found[0].span.end_line)
    }

    /// The edges whose occurrence is `repo/path:line`, as `KIND package:qualified_name
    /// CONFIDENCE PROVENANCE`.
    pub fn edges_at(&self, repo: &str, path: &str, line: u32) -> Vec<String> {
        let Some(file) = self.file_id(repo, path) else {
            return Vec::new();
        };
        let f = &self.facts;
        f.edges
            .iter()
            .filter(|e| e.file == Some(file) && e.line == line)
            .map(|e| {
                let t = &f.symbols[e.target];
                format!(
                    "{} {}:{} {} {}",
                    e.kind.as_str(),
                    f.packages[t.package].name,
                    t.qualified_name,
                    e.confidence.as_str(),
                    e.provenance.as_str()
                )
            })
            .collect()
    }

    /// The unresolved records whose occurrence is `repo/path:line`, as `REASON package`.
    pub fn unresolved_at(&self, repo: &str, path: &str, line: u32) -> Vec<String> {
        let Some(file) = self.file_id(repo, path) else {
            return Vec::new();
        };
        self.facts
            .unresolved
            .iter()
            .filter(|u| u.file == Some(file) && u.line == line)
            .map(|u| format!("{} {}", u.reason, u.requested_package))
            .collect()
    }

    /// The first unresolved record that `which` picks; panics when there is none.
    #[track_caller]
    pub fn unresolved_where(&self, which: impl Fn(&Unresolved) -> bool) -> &Unresolved {
        self.facts
            .unresolved
            .iter()
            .find(|u| which(u))
            .expect("no unresolved record is the one looked for")
    }

    /// Checks one claim made at `repo/path:line`.
    fn holds(&self, repo: &str, path: &str, line: u32, want: &Want) -> Result<(), String> {
        if self.file_id(repo, path).is_none() {
            return Err("the file is not in the fact set".into());
        }
        match want {
            Want::Edge {
                kind,
                package,
                qn,
                confidence,
                provenance,
            } => {
                let edges = self.edges_at(repo, path, line);
                let want = format!("{kind} {package}:{qn} {confidence} ");
                let holds = |e: &String| match provenance {
                    Some(p) => *e == format!("{want}{p}"),
                    None => e.starts_with(&want),
                };
                if edges.iter().any(holds) {
                    Ok(())
                } else {
                    Err(format!("edges on this line: {edges:?}"))
                }
            }
            Want::None { name } => {
                let f = &self.facts;
                let file = self.file_id(repo, path);
                match f.edges.iter().find(|e| {
                    let t = &f.symbols[e.target];
                    // `NAME`, or `PACKAGE:QN` for one declaration among several of that name.
                    let hit = match name.rsplit_once(':') {
                        Some((package, qn)) => {
                            f.packages[t.package].name == package && t.qualified_name == qn
                        }
                        None => t.name == *name,
                    };
                    e.file == file && e.line == line && hit
                }) {
                    Some(e) => Err(format!(
                        "an edge targets {}",
                        f.symbols[e.target].qualified_name
                    )),
                    None => Ok(()),
                }
            }
            Want::Unresolved { reason, package } => {
                let seen = self.unresolved_at(repo, path, line);
                if seen.contains(&format!("{reason} {package}")) {
                    Ok(())
                } else {
                    Err(format!("unresolved on this line: {seen:?}"))
                }
            }
        }
    }

    /// The language of the file at `repo/path`, when it is a source file.
    pub fn language(&self, repo: &str, path: &str) -> Option<Language> {
        self.file_id(repo, path)
            .and_then(|f| self.facts.files[f].language)
    }
}

/// The text of a fixture file holding `n` declarations, `decl(0)` to `decl(n - 1)`, between
/// `head` and `tail`: the many same-named members of the name-only bound's tests.
pub(crate) fn repeated(head: &str, n: usize, decl: impl Fn(usize) -> String, tail: &str) -> String {
    let mut s = head.to_string();
    for i in 0..n {
        s.push_str(&decl(i));
    }
    s.push_str(tail);
    s
}

/// Compiles `fixture` and panics, listing every failure, unless each of its annotations holds.
/// A fixture without annotations is an error: the test would check nothing.
#[track_caller]
pub(crate) fn check(fixture: &str) -> Compiled {
    let compiled = compile(fixture);
    let mut total = 0;
    let mut failures = Vec::new();
    for (repo, path, text) in &compiled.files {
        let marker = comment_marker(std::path::Path::new(path));
        for (line, raw, want) in parse_annotations(text, marker) {
            total += 1;
            if let Err(why) = compiled.holds(repo, path, line, &want) {
                failures.push(format!("{repo}/{path}:{line}: {raw}\n    {why}"));
            }
        }
    }
    assert!(total > 0, "the fixture has no annotations");
    assert!(
        failures.is_empty(),
        "{} of {total} annotations fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    compiled
}

#[cfg(test)]
mod tests {
    use super::*;

    const GO: &str = r#"
//- shapes/go.mod
module example.com/shapes
//- shapes/geo/geo.go
package geo

func Area() int { return 0 }

func Twice() int { return Area() * 2 } //want: CALLS_DIRECT example.com/shapes/geo:Area
"#;

    #[test]
    fn a_claim_that_holds_passes() {
        let c = check(GO);
        assert_eq!(c.language("shapes", "geo/geo.go"), Some(Language::Go));
    }

    #[test]
    #[should_panic(expected = "1 of 1 annotations fail")]
    fn a_claim_that_does_not_hold_fails() {
        check(&GO.replace("geo:Area", "geo:Perimeter"));
    }

    #[test]
    fn a_written_provenance_is_checked() {
        check(&GO.replace("geo:Area", "geo:Area EXACT_DECLARATION_MAPPED GO_SCOPE"));
    }

    #[test]
    #[should_panic(expected = "1 of 1 annotations fail")]
    fn a_wrong_provenance_fails() {
        check(&GO.replace("geo:Area", "geo:Area EXACT_DECLARATION_MAPPED GO_NAME_ONLY"));
    }

    #[test]
    #[should_panic(expected = "has no annotations")]
    fn a_fixture_without_claims_fails() {
        check(&GO.replace("//want: CALLS_DIRECT example.com/shapes/geo:Area", ""));
    }

    #[test]
    fn headers_split_repositories_and_files() {
        let files = split("//- a/x.go\none\n//- b/dir/y.py\ntwo\nthree\n");
        assert_eq!(
            files,
            vec![
                ("a".into(), "x.go".into(), "one\n".into()),
                ("b".into(), "dir/y.py".into(), "two\nthree\n".into()),
            ]
        );
    }
}
