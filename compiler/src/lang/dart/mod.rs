//! Dart: every library (a file and its parts) resolved through `import`/`export` directives,
//! `package:` URIs mapped through `pubspec.yaml` names of registered repositories, and Dart's
//! lexical scopes, members and written types (SPEC section 15).
//!
//! Phase 1 ([`extract`]) runs per file in parallel and binds locals by lexical scope. Phase 2
//! ([`resolve`]) builds libraries from their parts, resolves URIs, export and import
//! namespaces, and members through supertypes and extensions.

mod extract;
mod project;
mod resolve;
mod syntax;

use kivgraph_format::FileStatus;
use rayon::prelude::*;

use crate::discover::SourceText;
use crate::facts::{FactSet, FileId, RepoId};
use crate::lang::ConfigFile;

/// Unresolved reasons Dart emits (SPEC section 15.3).
pub const DART_SDK_NOT_INDEXED: &str = "DART_SDK_NOT_INDEXED";
pub const PACKAGE_PROVIDER_NOT_FOUND: &str = "PACKAGE_PROVIDER_NOT_FOUND";
pub const URI_NOT_RESOLVED: &str = "URI_NOT_RESOLVED";
pub const NAME_NOT_RESOLVED: &str = "NAME_NOT_RESOLVED";
pub const RECEIVER_TYPE_UNKNOWN: &str = "RECEIVER_TYPE_UNKNOWN";

/// At most this many same-named members become `CANDIDATE` edges for one unknown receiver.
const MAX_CANDIDATES: usize = 8;

/// One Dart file handed over by discovery.
pub struct DartInput {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub text: SourceText,
}

/// Compiles the Dart files of all repositories into `facts`.
pub fn compile(facts: &mut FactSet, inputs: Vec<DartInput>, configs: &[ConfigFile]) {
    let dart_configs: Vec<ConfigFile> = configs
        .iter()
        .filter(|c| {
            let name = c.path.rsplit('/').next().unwrap_or(&c.path);
            name == "pubspec.yaml" || c.path.ends_with(".dart_tool/package_config.json")
        })
        .cloned()
        .collect();
    if inputs.is_empty() {
        return;
    }
    let packages = project::read(facts, &dart_configs);
    let pool = crate::lang::walk_pool();
    let parsed: Vec<(DartInput, syntax::DartFile)> = pool.install(|| {
        inputs
            .into_par_iter()
            .map(|input| {
                let f = extract::extract(input.text.as_str());
                (input, f)
            })
            .collect()
    });
    let mut units = Vec::with_capacity(parsed.len());
    for (input, f) in parsed {
        if f.has_error {
            facts.files[input.file].status = FileStatus::Partial;
        }
        units.push(resolve::Unit::new(input.repo, input.file, input.path, f));
    }
    units.sort_by_key(|u| u.file);
    resolve::Resolver::new(facts, units, packages).run();
}
