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

use kivgraph_format::FileStatus;
use rayon::prelude::*;

use crate::discover::SourceText;
use crate::facts::{FactSet, FileId, RepoId};
use crate::lang::ConfigFile;

/// One Rust file handed over by discovery.
pub struct RsInput {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub text: SourceText,
}

/// Compiles the Rust files of all repositories into `facts`. `sysroot_missing` says why the
/// standard library is not in the graph when no derived repository provides it; it becomes the
/// detail of the `SYSROOT_SOURCE_MISSING` records.
pub fn compile(
    facts: &mut FactSet,
    inputs: Vec<RsInput>,
    configs: &[ConfigFile],
    sysroot_missing: &str,
) {
    if inputs.is_empty() {
        return;
    }
    let pool = crate::lang::walk_pool();
    let mut parsed: Vec<resolve::Parsed> = pool.install(|| {
        inputs
            .into_par_iter()
            .map(|i| {
                let rs = extract::extract(i.text.as_str());
                resolve::Parsed {
                    repo: i.repo,
                    file: i.file,
                    path: i.path,
                    rs,
                }
            })
            .collect()
    });
    parsed.sort_by_key(|p| p.file);
    for p in &parsed {
        if p.rs.has_error {
            facts.files[p.file].status = FileStatus::Partial;
        }
    }
    let files: HashSet<(RepoId, String)> =
        parsed.iter().map(|p| (p.repo, p.path.clone())).collect();
    let crates = project::crates(facts, configs, &files);
    // Phase 2 recurses through `use` chains (bounded); give it a big stack too.
    pool.install(|| resolve::Resolver::new(facts, parsed, crates, sysroot_missing).run());
}
