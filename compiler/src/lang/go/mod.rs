//! Go: modules from `go.mod`, packages by directory, build constraints, and resolution of every
//! reference through scopes, imports and written receiver types.
//!
//! - [`project`]: the modules `go.mod` files declare, import paths, build constraints;
//! - [`extract`] (phase 1, per file in parallel): declarations and references, locals resolved
//!   on the spot;
//! - [`resolve`] (phase 2, over the corpus): packages, symbols, scopes and member tables, then
//!   every reference phase 1 left open bound.

mod extract;
mod project;
mod resolve;
#[cfg(test)]
mod tests;

use kivgraph_format::Language;

use crate::facts::FactSet;
use crate::pipeline::{FileMeta, FrontEnd, Project, SourceInput};
use extract::GoFile;
use project::Modules;
pub(crate) use project::header;

/// The Go front end.
pub(crate) struct Go;

impl FrontEnd for Go {
    const NAME: &'static str = "Go";
    const LANGUAGES: &'static [Language] = &[Language::Go];
    type Parsed = GoFile;

    /// Build constraints: an excluded file is recorded but never parsed, and a directory whose
    /// every file is excluded is a `PACKAGE_NOT_BUILDABLE` scope.
    fn admit(facts: &mut FactSet, inputs: Vec<SourceInput>, project: &Project) -> Vec<SourceInput> {
        project::admit(facts, inputs, &Modules::read(project.configs), project)
    }

    fn extract(input: &SourceInput) -> GoFile {
        let src = input.text.as_str();
        crate::lang::extract_with(src, tree_sitter_go::LANGUAGE.into(), |root| {
            extract::extract(root, src.as_bytes())
        })
    }

    fn partial(go: &GoFile) -> bool {
        go.has_errors || go.too_deep
    }

    fn grammar(_: &SourceInput) -> Option<tree_sitter::Language> {
        Some(tree_sitter_go::LANGUAGE.into())
    }

    fn resolve(facts: &mut FactSet, parsed: Vec<(FileMeta, GoFile)>, project: &Project) {
        resolve::resolve(facts, parsed, &Modules::read(project.configs));
    }
}
