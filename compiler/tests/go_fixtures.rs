//! Resolution fixtures: the annotated Go modules under `fixtures/go/` are compiled through the
//! public API, and every annotation is checked against the published generation.
//!
//! Annotation syntax (see `fixtures/go/README.md`), at the end of the line holding the reference:
//! `//want: EDGE_KIND package:qualified_name [CONFIDENCE]`, `//want-none: NAME`,
//! `//want-unresolved: REASON PACKAGE`; several on one line are separated by ` ; `.
//!
//! Known gaps stay in the tree: each is listed in `KNOWN_GAPS` with the reason, and the test fails
//! if a listed gap starts passing (so the list cannot go stale) or a new failure appears.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kivgraph_compile::{CompileOptions, RepoSpec, compile};
use kivgraph_format::{Confidence, EdgeKind, Generation, NONE};

/// Annotations this version is known to get wrong, as `file:line: annotation` with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[
    (
        "constructs/cmd/constructs/main.go:55: //want: REFERENCES example.com/constructs/model:Task.Owner",
        "a generic method's result []T is not instantiated with the written type argument \
         (tasks is *coll.List[*model.Task]); the range element is typed by name only (CANDIDATE)",
    ),
    (
        "constructs/cmd/constructs/main.go:56: //want: REFERENCES example.com/constructs/model:Task.Title",
        "same as line 55: t ranges over coll.List[*model.Task].Items(), whose []T is not instantiated",
    ),
    (
        "constructs/cmd/constructs/main.go:56: //want: REFERENCES example.com/constructs/model:Worker.Name",
        "same as line 55: t.Owner.Name hangs off the untyped range element t",
    ),
    (
        "constructs/sched/queue.go:62: //want: CALLS_DIRECT example.com/constructs/model:Priority.String",
        "the key of a range over a map gets no type (the value does): p in \
         `for p, ts := range q.byPrio` (map[m.Priority][]*m.Task) binds p.String() by name (CANDIDATE)",
    ),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/go")
}

struct Facts {
    generation: Generation,
}

impl Facts {
    fn repo_of(&self, name: &str) -> u32 {
        let g = self.generation.graph();
        g.repositories
            .iter()
            .position(|r| g.strings.get(r.name.to_native()) == name)
            .unwrap() as u32
    }

    fn file_id(&self, repo: &str, path: &str) -> Option<u32> {
        let g = self.generation.graph();
        let r = self.repo_of(repo);
        g.files
            .iter()
            .position(|f| {
                f.repository.to_native() == r && g.strings.get(f.path.to_native()) == path
            })
            .map(|i| i as u32)
    }
}

#[derive(Debug)]
enum Want {
    Edge {
        kind: String,
        package: String,
        qn: String,
        confidence: String,
    },
    None {
        name: String,
    },
    Unresolved {
        reason: String,
        package: String,
    },
}

fn parse_annotations(text: &str) -> Vec<(u32, String, Want)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(pos) = line.find("//want") else {
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
            let words: Vec<&str> = rest.split_whitespace().collect();
            let want = match tag {
                "//want" => {
                    let (package, qn) = words[1]
                        .rsplit_once(':')
                        .expect("TARGET is package:qualified_name");
                    Want::Edge {
                        kind: words[0].to_string(),
                        package: package.to_string(),
                        qn: qn.to_string(),
                        confidence: words
                            .get(2)
                            .unwrap_or(&"EXACT_DECLARATION_MAPPED")
                            .to_string(),
                    }
                }
                "//want-none" => Want::None {
                    name: words[0].to_string(),
                },
                "//want-unresolved" => Want::Unresolved {
                    reason: words[0].to_string(),
                    package: words[1].to_string(),
                },
                other => panic!("unknown annotation {other:?} in {piece:?}"),
            };
            out.push((line_no, piece.to_string(), want));
        }
    }
    out
}

fn check(f: &Facts, repo: &str, path: &str, line: u32, want: &Want) -> Result<(), String> {
    let g = f.generation.graph();
    let Some(file) = f.file_id(repo, path) else {
        return Err("file is not in the graph".into());
    };
    let edges_here = || {
        (0..g.symbols.len() as u32).flat_map(move |s| {
            g.forward
                .row(s)
                .iter()
                .filter(move |e| e.file.to_native() == file && e.line.to_native() == line)
                .map(move |e| (s, e))
        })
    };
    match want {
        Want::Edge {
            kind,
            package,
            qn,
            confidence,
        } => {
            let mut seen = Vec::new();
            for (_, e) in edges_here() {
                let t = &g.symbols[e.other.to_native() as usize];
                let t_pkg = g
                    .strings
                    .get(g.packages[t.package.to_native() as usize].name.to_native());
                let t_qn = g.strings.get(t.qualified_name.to_native());
                let k = EdgeKind::from_code(e.kind).map_or("?", |k| k.as_str());
                let c = Confidence::from_code(e.confidence).map_or("?", |c| c.as_str());
                if k == kind && t_pkg == package && t_qn == qn && c == confidence {
                    return Ok(());
                }
                seen.push(format!("{k} {t_pkg}:{t_qn} {c}"));
            }
            Err(format!("edges on this line: {seen:?}"))
        }
        Want::None { name } => {
            for (_, e) in edges_here() {
                let t = &g.symbols[e.other.to_native() as usize];
                if g.strings.get(t.name.to_native()) == name {
                    return Err(format!(
                        "an edge targets {}",
                        g.strings.get(t.qualified_name.to_native())
                    ));
                }
            }
            Ok(())
        }
        Want::Unresolved { reason, package } => {
            let mut seen = Vec::new();
            for u in g
                .unresolved
                .iter()
                .filter(|u| u.file.to_native() == file && u.line.to_native() == line)
            {
                let (r, p) = (
                    g.strings.get(u.reason.to_native()),
                    g.strings.get(u.requested_package.to_native()),
                );
                if r == reason && p == package {
                    return Ok(());
                }
                seen.push(format!("{r} {p}"));
            }
            Err(format!("unresolved on this line: {seen:?}"))
        }
    }
}

fn go_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "go") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn go_fixture_annotations_hold() {
    let out = tempfile::tempdir().unwrap();
    let repos = [
        ("shapes", "shapes"),
        ("inventory", "inventory"),
        ("mathlib", "pair/mathlib"),
        ("app", "pair/app"),
        ("constructs", "constructs"),
        ("orphan", "orphan"),
    ];
    let specs = repos
        .iter()
        .map(|(name, dir)| {
            RepoSpec::parse(&format!("{name}={}", fixtures().join(dir).display())).unwrap()
        })
        .collect();
    compile(&CompileOptions {
        out: out.path().into(),
        repos: specs,
        fault: None,
        progress: false,
    })
    .unwrap();
    let facts = Facts {
        generation: Generation::open_current(&kivgraph_format::IndexDir::new(out.path()))
            .unwrap()
            .unwrap(),
    };

    let mut failures = BTreeSet::new();
    let mut total = 0;
    for (repo, dir) in repos {
        let root = fixtures().join(dir);
        for file in go_files(&root) {
            let rel = file
                .strip_prefix(&root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, raw, want) in parse_annotations(&text) {
                total += 1;
                if let Err(why) = check(&facts, repo, &rel, line, &want) {
                    failures.insert((format!("{repo}/{rel}:{line}: {raw}"), why));
                }
            }
        }
    }
    assert!(total > 100, "only {total} annotations found");
    let gaps: BTreeSet<&str> = KNOWN_GAPS.iter().map(|g| g.0).collect();
    let unexpected: Vec<_> = failures
        .iter()
        .filter(|(k, _)| !gaps.contains(k.as_str()))
        .collect();
    let healed: Vec<_> = gaps
        .iter()
        .filter(|g| !failures.iter().any(|(k, _)| k == *g))
        .collect();
    let report: Vec<String> = unexpected
        .iter()
        .map(|(k, why)| format!("{k}\n    {why}"))
        .collect();
    assert!(
        unexpected.is_empty() && healed.is_empty(),
        "{} of {total} annotations fail:\n{}\nknown gaps now passing: {healed:?}",
        unexpected.len(),
        report.join("\n")
    );
}

/// Every exact edge must come from a rule allowed to claim exactness, and no edge may leave the
/// excluded package or file.
#[test]
fn excluded_files_contribute_nothing() {
    let out = tempfile::tempdir().unwrap();
    let spec = RepoSpec::parse(fixtures().join("shapes").to_str().unwrap()).unwrap();
    compile(&CompileOptions {
        out: out.path().into(),
        repos: vec![spec],
        fault: None,
        progress: false,
    })
    .unwrap();
    let generation = Generation::open_current(&kivgraph_format::IndexDir::new(out.path()))
        .unwrap()
        .unwrap();
    let g = generation.graph();
    for s in g.symbols.iter() {
        let path = g
            .strings
            .get(g.files[s.file.to_native() as usize].path.to_native());
        assert!(
            !path.starts_with("winonly/") && path != "geo/area_windows.go",
            "symbol from excluded file {path}"
        );
    }
    assert!(g.unresolved.iter().any(|u| u.file.to_native() == NONE
        && g.strings.get(u.reason.to_native()) == "PACKAGE_NOT_BUILDABLE"));
}
