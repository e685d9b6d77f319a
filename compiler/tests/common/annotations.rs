//! Annotation checking shared by the fixture tests of every language: the claims of
//! [`kivgraph_compile::annotations`] checked against a published generation, which is all these
//! checks see.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use kivgraph_compile::annotations::{Want, comment_marker, parse_annotations};

use kivgraph_compile::{CompileOptions, RepoSpec, RustSysroot, compile};
use kivgraph_format::{Confidence, EdgeKind, Generation, Provenance};

/// A published generation under test.
pub struct Facts {
    pub generation: Generation,
}

impl Facts {
    /// Compiles `repos` (`(name, root)`) into `out` through the public API and opens the
    /// published generation.
    pub fn compile(out: &Path, repos: &[(&str, PathBuf)]) -> Facts {
        let specs = repos
            .iter()
            .map(|(name, root)| RepoSpec::parse(&format!("{name}={}", root.display())).unwrap())
            .collect();
        compile(&CompileOptions {
            out: out.into(),
            repos: specs,
            fault: None,
            progress: false,
            rust_sysroot: RustSysroot::Off,
            keep: kivgraph_format::layout::DEFAULT_KEEP,
            cache: Default::default(),
        })
        .unwrap();
        Facts {
            generation: Generation::open_current(&kivgraph_format::IndexDir::new(out))
                .unwrap()
                .unwrap(),
        }
    }

    pub fn repo_of(&self, name: &str) -> u32 {
        let g = self.generation.graph();
        g.repositories
            .iter()
            .position(|r| g.strings.get(r.name.to_native()) == name)
            .unwrap_or_else(|| panic!("repository {name} is not in the generation")) as u32
    }

    pub fn file_id(&self, repo: &str, path: &str) -> Option<u32> {
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

/// Checks one claim against the edges and unresolved records whose occurrence is `path:line` in
/// repository `repo`. With `targets`, an edge's target symbol must also belong to one of those
/// repositories (TypeScript package names are file paths, which repeat across repositories).
pub fn check(
    f: &Facts,
    repo: &str,
    path: &str,
    line: u32,
    want: &Want,
    targets: Option<&[u32]>,
) -> Result<(), String> {
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
            provenance,
        } => {
            let mut seen = Vec::new();
            for (_, e) in edges_here() {
                let t = &g.symbols[e.other.to_native() as usize];
                let t_pkg = g
                    .strings
                    .get(g.packages[t.package.to_native() as usize].name.to_native());
                let t_qn = g.strings.get(t.qualified_name.to_native());
                let t_repo = t.repository.to_native();
                let k = EdgeKind::from_code(e.kind).map_or("?", |k| k.as_str());
                let c = Confidence::from_code(e.confidence).map_or("?", |c| c.as_str());
                let p = Provenance::from_code(e.provenance.to_native()).map_or("?", |p| p.as_str());
                let repo_ok = targets.is_none_or(|rs| rs.contains(&t_repo));
                let provenance_ok = provenance.as_ref().is_none_or(|want| want == p);
                if k == kind
                    && t_pkg == package
                    && t_qn == qn
                    && c == confidence
                    && provenance_ok
                    && repo_ok
                {
                    return Ok(());
                }
                let t_repo_name = g
                    .strings
                    .get(g.repositories[t_repo as usize].name.to_native());
                seen.push(match targets {
                    Some(_) => format!("{k} {t_repo_name}/{t_pkg}:{t_qn} {c}"),
                    None => format!("{k} {t_pkg}:{t_qn} {c}"),
                });
            }
            Err(format!("edges on this line: {seen:?}"))
        }
        Want::None { name } => {
            // `NAME`, or `PACKAGE:QN` for one declaration among several of that name.
            let target = name.rsplit_once(':');
            for (_, e) in edges_here() {
                let t = &g.symbols[e.other.to_native() as usize];
                let hit = match target {
                    Some((package, qn)) => {
                        let t_pkg = g
                            .strings
                            .get(g.packages[t.package.to_native() as usize].name.to_native());
                        t_pkg == package && g.strings.get(t.qualified_name.to_native()) == qn
                    }
                    None => g.strings.get(t.name.to_native()) == name,
                };
                if hit {
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

/// The files under `root` whose names end in one of `suffixes` (`".go"`), sorted; `node_modules`
/// directories are not walked.
pub fn source_files(root: &Path, suffixes: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if name != "node_modules" {
                    stack.push(p);
                }
            } else if suffixes.iter().any(|s| name.ends_with(s)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// One fixture repository whose annotations are checked.
pub struct FixtureRepo<'a> {
    /// The repository name given to the compiler.
    pub name: &'a str,
    pub root: PathBuf,
    /// The repositories an edge's target may belong to, or `None` for any.
    pub targets: Option<Vec<u32>>,
}

/// Checks every annotation of every source file of `repos` and fails unless exactly the listed
/// gaps (`file:line: annotation`, with the reason) fail. `min_total` guards against a parser that
/// finds nothing.
pub fn assert_annotations_hold(
    facts: &Facts,
    repos: &[FixtureRepo<'_>],
    suffixes: &[&str],
    known_gaps: &[(&str, &str)],
    min_total: usize,
) {
    let mut failures = BTreeSet::new();
    let mut total = 0;
    for repo in repos {
        for file in source_files(&repo.root, suffixes) {
            let rel = file
                .strip_prefix(&repo.root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, raw, want) in parse_annotations(&text, comment_marker(&file)) {
                total += 1;
                if let Err(why) =
                    check(facts, repo.name, &rel, line, &want, repo.targets.as_deref())
                {
                    failures.insert((format!("{}/{rel}:{line}: {raw}", repo.name), why));
                }
            }
        }
    }
    assert!(total > min_total, "only {total} annotations found");
    let gaps: BTreeSet<&str> = known_gaps.iter().map(|g| g.0).collect();
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

/// The fixture repositories `(name, directory under root, group)`, each of whose targets may be
/// in any repository of its own group.
#[allow(dead_code)] // the TypeScript, Python and Dart fixture tests group their repositories
pub fn grouped_repos<'a>(
    facts: &Facts,
    root: &Path,
    repos: &[(&'a str, &str, &str)],
) -> Vec<FixtureRepo<'a>> {
    repos
        .iter()
        .map(|&(name, dir, group)| FixtureRepo {
            name,
            root: root.join(dir),
            targets: Some(
                repos
                    .iter()
                    .filter(|(_, _, g)| *g == group)
                    .map(|(n, _, _)| facts.repo_of(n))
                    .collect(),
            ),
        })
        .collect()
}
