//! Python: every file a module named by its path under the repository's module roots, imports
//! resolved within the repository and across repositories by top-level package, and every
//! reference bound through Python's scopes, imports and written types.
//!
//! Phase 1 ([`extract`]) runs per file in parallel and binds names by scope. Phase 2
//! ([`resolve`]) resolves imports, module attributes (re-exports and `*` imports included)
//! and members through the classes' base classes.

mod extract;
mod project;
mod resolve;

use kivgraph_format::FileStatus;
use rayon::prelude::*;

use crate::discover::SourceText;
use crate::facts::{FactSet, FileId, RepoId};
use crate::lang::ConfigFile;

/// Unresolved reasons Python emits (SPEC section 12.3).
pub const IMPORT_NOT_RESOLVED: &str = "IMPORT_NOT_RESOLVED";
pub const STDLIB_NOT_INDEXED: &str = "STDLIB_NOT_INDEXED";
pub const NAME_NOT_RESOLVED: &str = "NAME_NOT_RESOLVED";
pub const RECEIVER_TYPE_UNKNOWN: &str = "RECEIVER_TYPE_UNKNOWN";

/// At most this many same-named members become `CANDIDATE` edges for one unknown receiver.
const MAX_CANDIDATES: usize = 8;

/// One Python file handed over by discovery.
pub struct PyInput {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub text: SourceText,
}

/// Compiles the Python files of all repositories into `facts`.
pub fn compile(facts: &mut FactSet, inputs: Vec<PyInput>, configs: &[ConfigFile]) {
    if inputs.is_empty() {
        return;
    }
    let pool = crate::lang::walk_pool();
    let parsed: Vec<(PyInput, extract::PyFile)> = pool.install(|| {
        inputs
            .into_par_iter()
            .map(|input| {
                let f = extract::extract(input.text.as_str());
                (input, f)
            })
            .collect()
    });
    let mut modules = Vec::with_capacity(parsed.len());
    for (input, f) in parsed {
        if f.has_error {
            facts.files[input.file].status = FileStatus::Partial;
        }
        modules.push(resolve::Module::new(input.repo, input.file, input.path, f));
    }
    modules.sort_by_key(|m| m.file);
    let layouts = project::layouts(configs);
    resolve::Resolver::new(facts, modules, layouts).run();
}
