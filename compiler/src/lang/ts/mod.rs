//! TypeScript and JavaScript: every file a module, projects from `package.json` and
//! `tsconfig.json`/`jsconfig.json`, module resolution as TypeScript does it, and binding of
//! every reference through lexical scopes, imports, re-export chains and written types.
//!
//! Phase 1 ([`extract`]) runs per file in parallel and binds names lexically. Phase 2
//! ([`resolve`]) resolves module specifiers, computes what each module exports (a fixed point
//! over re-export chains, with cycles cut) and binds imports and members.

mod extract;
mod project;
mod resolve;

use kivgraph_format::{FileStatus, Language};
use rayon::prelude::*;

use crate::discover::SourceText;
use crate::facts::{FactSet, FileId, RepoId};

use crate::lang::ConfigFile;

/// Unresolved reasons TypeScript/JavaScript emits (SPEC section 11.3).
pub const PACKAGE_PROVIDER_NOT_FOUND: &str = "PACKAGE_PROVIDER_NOT_FOUND";
pub const AMBIGUOUS_PACKAGE_PROVIDER: &str = "AMBIGUOUS_PACKAGE_PROVIDER";
pub const MODULE_NOT_RESOLVED: &str = "MODULE_NOT_RESOLVED";
pub const EXPORT_NOT_FOUND: &str = "EXPORT_NOT_FOUND";
pub const DECLARATION_NOT_FOUND: &str = "DECLARATION_NOT_FOUND";
pub const RECEIVER_TYPE_UNKNOWN: &str = "RECEIVER_TYPE_UNKNOWN";

/// At most this many same-named members become `CANDIDATE` edges for one unknown receiver.
const MAX_CANDIDATES: usize = 8;

/// One TypeScript or JavaScript file handed over by discovery.
pub struct TsInput {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub language: Language,
    pub text: SourceText,
}

/// Compiles the TypeScript and JavaScript files of all repositories into `facts`.
pub fn compile(facts: &mut FactSet, inputs: Vec<TsInput>, configs: &[ConfigFile]) {
    if inputs.is_empty() {
        return;
    }
    let pool = crate::lang::walk_pool();
    let parsed: Vec<(TsInput, extract::TsFile)> = pool.install(|| {
        inputs
            .into_par_iter()
            .map(|input| {
                let tsx = input.path.ends_with(".tsx") || input.path.ends_with(".jsx");
                let f = extract::extract(input.text.as_str(), tsx);
                (input, f)
            })
            .collect()
    });
    let mut modules = Vec::with_capacity(parsed.len());
    for (input, f) in parsed {
        if f.has_error {
            facts.files[input.file].status = FileStatus::Partial;
        }
        modules.push(resolve::Module::new(
            input.repo,
            input.file,
            input.path,
            input.language,
            f,
        ));
    }
    modules.sort_by_key(|m| m.file);
    let project = project::Project::new(facts, &modules, configs);
    resolve::Resolver::new(facts, modules, project).run();
}
