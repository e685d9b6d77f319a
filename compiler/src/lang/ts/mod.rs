//! TypeScript and JavaScript: every file a module, projects from `package.json` and
//! `tsconfig.json`/`jsconfig.json`, module resolution as TypeScript does it, and binding of
//! every reference through lexical scopes, imports, re-export chains and written types.
//!
//! Phase 1 ([`extract`]) runs per file in parallel and binds names lexically. Phase 2
//! ([`resolve`]) resolves module specifiers, computes what each module exports (a fixed point
//! over re-export chains, with cycles cut) and binds imports and members. The project model
//! ([`project`]: `package.json`, `tsconfig.json`, module specifiers) depends on neither phase.

mod extract;
mod project;
mod resolve;

use kivgraph_format::Language;

use crate::facts::FactSet;
use crate::pipeline::{FileMeta, FrontEnd, Project, SourceInput};

/// The TypeScript and JavaScript front end.
pub(crate) struct TypeScript;

impl FrontEnd for TypeScript {
    const NAME: &'static str = "TypeScript/JavaScript";
    const LANGUAGES: &'static [Language] = &[Language::TypeScript, Language::JavaScript];
    type Parsed = extract::TsFile;

    fn extract(input: &SourceInput) -> extract::TsFile {
        let path = &input.meta.path;
        let tsx = path.ends_with(".tsx") || path.ends_with(".jsx");
        extract::extract(input.text.as_str(), tsx)
    }

    fn partial(f: &extract::TsFile) -> bool {
        f.has_error
    }

    fn grammar(input: &SourceInput) -> Option<tree_sitter::Language> {
        let path = &input.meta.path;
        Some(if path.ends_with(".tsx") || path.ends_with(".jsx") {
            tree_sitter_typescript::LANGUAGE_TSX.into()
        } else {
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
        })
    }

    fn resolve(facts: &mut FactSet, files: Vec<(FileMeta, extract::TsFile)>, project: &Project) {
        let modules: Vec<resolve::Module> = files
            .into_iter()
            .map(|(m, f)| resolve::Module::new(m.repo, m.file, m.path, m.language, f))
            .collect();
        let ts_project = project::Project::new(
            facts,
            modules.iter().map(|m| (m.repo, m.path.as_str())),
            project.configs,
        );
        resolve::run(facts, modules, ts_project);
    }
}

#[cfg(test)]
mod tests;
