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

use std::collections::HashSet;

use kivgraph_format::Language;

use crate::facts::{FactSet, RepoId};
use crate::pipeline::{FileMeta, FrontEnd, Project, SourceInput};

/// The Rust front end.
pub(crate) struct Rust;

impl FrontEnd for Rust {
    const NAME: &'static str = "Rust";
    const LANGUAGES: &'static [Language] = &[Language::Rust];
    type Parsed = extract::RsFile;

    fn extract(input: &SourceInput) -> extract::RsFile {
        extract::extract(input.text.as_str())
    }

    fn partial(f: &extract::RsFile) -> bool {
        f.has_error
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
        resolve::Resolver::new(facts, parsed, crates, project.sysroot_missing).run();
    }
}
