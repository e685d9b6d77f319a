//! Python: every file a module named by its path under the repository's module roots, imports
//! resolved within the repository and across repositories by top-level package, and every
//! reference bound through Python's scopes, imports and written types.
//!
//! Phase 1 ([`extract`]) runs per file in parallel and binds names by scope. Phase 2
//! ([`resolve`]) resolves imports, module attributes (re-exports and `*` imports included)
//! and members through the classes' base classes. The project model ([`project`]) is what
//! `pyproject.toml` and `setup.cfg` say: module roots and project names.

mod extract;
mod project;
mod resolve;
#[cfg(test)]
mod tests;

use kivgraph_format::Language;

use crate::facts::FactSet;
use crate::pipeline::{FileMeta, FrontEnd, Project, SourceInput};

/// The Python front end.
pub(crate) struct Python;

impl FrontEnd for Python {
    const NAME: &'static str = "Python";
    const LANGUAGES: &'static [Language] = &[Language::Python];
    type Parsed = extract::PyFile;

    fn extract(input: &SourceInput) -> extract::PyFile {
        extract::extract(input.text.as_str())
    }

    fn partial(f: &extract::PyFile) -> bool {
        f.has_error
    }

    fn grammar(_: &SourceInput) -> Option<tree_sitter::Language> {
        Some(tree_sitter_python::LANGUAGE.into())
    }

    fn resolve(facts: &mut FactSet, files: Vec<(FileMeta, extract::PyFile)>, project: &Project) {
        let modules = files
            .into_iter()
            .map(|(m, f)| resolve::Module::new(m.repo, m.file, m.path, f))
            .collect();
        let layouts = project::layouts(project.configs);
        resolve::run(facts, modules, layouts);
    }
}
