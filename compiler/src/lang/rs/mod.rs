//! Rust: crates from `Cargo.toml`, the module tree, `use` paths, items and impls, resolved
//! within a crate, across the crates of registered repositories, and into the standard library
//! when the derived repository `rust:<release>` provides it (SPEC section 14).
//!
//! Phase 1 ([`extract`]) runs per file in parallel: items, `use` trees, and references with
//! locals and generic parameters bound by the file's own scopes. Phase 2 ([`resolve`]) builds
//! the crates' module trees, resolves paths through modules, `use`s and globs, impls and
//! written receiver types.

mod extract;
mod project;
mod resolve;
#[cfg(test)]
mod tests;
mod unit;

use crate::hash::HashSet;
use std::cell::Cell;

use kivgraph_format::Language;

use crate::facts::{Diagnostic, FactSet, RepoId};
use crate::pipeline::{FileMeta, FrontEnd, Project, SourceInput};

/// The Rust front end.
pub(crate) struct Rust;

impl FrontEnd for Rust {
    const NAME: &'static str = "Rust";
    const LANGUAGES: &'static [Language] = &[Language::Rust];
    type Parsed = extract::RsFile;

    /// Each file is compiled with the features its package (the nearest `Cargo.toml` with a
    /// `[package]` at or above it) enables by default.
    fn admit(_: &mut FactSet, mut inputs: Vec<SourceInput>, project: &Project) -> Vec<SourceInput> {
        let packages = project::default_features(project.configs);
        for input in &mut inputs {
            let mut dir = project::parent(&input.meta.path).to_string();
            loop {
                if let Some(f) = packages.get(&(input.meta.repo, dir.clone())) {
                    input.features = Some(f.clone());
                    break;
                }
                if dir.is_empty() {
                    break;
                }
                dir = project::parent(&dir).to_string();
            }
        }
        inputs
    }

    fn extract(input: &SourceInput) -> extract::RsFile {
        extract::extract(input.text.as_str(), input.features.as_deref())
    }

    fn partial(f: &extract::RsFile) -> bool {
        f.has_error
    }

    fn grammar(_: &SourceInput) -> Option<tree_sitter::Language> {
        Some(tree_sitter_rust::LANGUAGE.into())
    }

    /// `sysroot_missing` says why the standard library is not in the graph when no derived
    /// repository provides it; it becomes the detail of the `SYSROOT_SOURCE_MISSING` records.
    fn resolve(facts: &mut FactSet, files: Vec<(FileMeta, extract::RsFile)>, project: &Project) {
        let parsed: Vec<resolve::Parsed> = files
            .into_iter()
            .map(|(m, rs)| resolve::Parsed {
                repo: m.repo,
                file: m.file,
                path: m.path,
                rs,
            })
            .collect();
        let paths: HashSet<(RepoId, String)> =
            parsed.iter().map(|p| (p.repo, p.path.clone())).collect();
        let crates = project::crates(facts, project.configs, &paths);
        if !parsed.iter().any(|p| facts.repos[p.repo].derived) {
            resolve::Resolver::new(facts, parsed, crates, project.sysroot_missing)
                .run(None::<fn(&resolve::Resolver<'_>) -> unit::DerivedRefs>);
            return;
        }
        // The derived repositories' references kept by an earlier compile are read and decoded
        // by a thread of their own while the module trees are built, which does not need them.
        let derived_crates: Vec<project::CrateDef> = crates
            .iter()
            .filter(|c| facts.repos[c.repo].derived)
            .cloned()
            .collect();
        let digest = unit::unit_digest(
            facts,
            &parsed
                .iter()
                .filter(|p| facts.repos[p.repo].derived)
                .map(|p| (p.repo, p.file, p.path.as_str(), &p.rs))
                .collect::<Vec<_>>(),
            &derived_crates,
            project.sysroot_missing,
        );
        // What a resolution of the derived files alone starts from, should nothing be kept.
        let before = FactSet {
            repos: facts.repos.clone(),
            files: facts.files.clone(),
            ..FactSet::default()
        };
        let why = std::thread::scope(|scope| {
            let kept = project
                .cache
                .map(|c| scope.spawn(move || c.get::<unit::DerivedRefs>(digest)));
            resolve::Resolver::new(facts, parsed, crates, project.sysroot_missing).run(Some(
                |r: &resolve::Resolver<'_>| {
                    kept.and_then(|k| k.join().ok().flatten())
                        .unwrap_or_else(|| {
                            derived_alone(
                                before,
                                r.derived_files(),
                                derived_crates,
                                project,
                                digest,
                            )
                        })
                },
            ))
        });
        if let Some(why) = why {
            for r in facts.repos.iter().filter(|r| r.derived) {
                facts.diagnostics.push(Diagnostic {
                    repository: r.name.clone(),
                    path: ".".into(),
                    message: format!(
                        "its references were resolved beside the registered crates, not on \
                         their own ({why}); please report this"
                    ),
                });
            }
        }
    }
}

/// The facts of the derived repositories' references, resolved over their files alone (they
/// see no registered crate) from `alone` (the repositories and files as they were before
/// resolution), and kept in the cache under `digest` for the next compile.
fn derived_alone(
    mut alone: FactSet,
    files: Vec<resolve::Parsed>,
    crates: Vec<project::CrateDef>,
    project: &Project,
    digest: u128,
) -> unit::DerivedRefs {
    let at =
        resolve::Resolver::new(&mut alone, files, crates, project.sysroot_missing).run_counting();
    let refs = unit::DerivedRefs::capture(&alone, at);
    if let Some(c) = project.cache {
        c.put(digest, &refs);
    }
    refs
}

/// How deep a recursive walk is: one counter, entered and left around each nested step, in
/// place of a depth argument threaded through every function. Each walk compares it with its
/// own limit.
#[derive(Debug, Default)]
pub(crate) struct Depth(Cell<usize>);

impl Depth {
    /// A counter that starts at `depth`.
    pub(crate) fn at(depth: usize) -> Self {
        Depth(Cell::new(depth))
    }

    pub(crate) fn get(&self) -> usize {
        self.0.get()
    }

    pub(crate) fn enter(&self) {
        self.0.set(self.0.get() + 1);
    }

    pub(crate) fn leave(&self) {
        self.0.set(self.0.get() - 1);
    }

    /// Runs `f` one level deeper.
    pub(crate) fn nested<R>(&self, f: impl FnOnce() -> R) -> R {
        self.enter();
        let r = f();
        self.leave();
        r
    }

    /// Runs `f` as a walk of its own, from depth 0, and comes back to the depth it had.
    pub(crate) fn fresh<R>(&self, f: impl FnOnce() -> R) -> R {
        let saved = self.0.replace(0);
        let r = f();
        self.0.set(saved);
        r
    }
}
