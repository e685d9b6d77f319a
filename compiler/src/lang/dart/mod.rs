//! Dart: every library (a file and its parts) resolved through `import`/`export` directives,
//! `package:` URIs mapped through `pubspec.yaml` names of registered repositories, and Dart's
//! lexical scopes, members and written types (SPEC section 15).
//!
//! Phase 1 ([`extract`]) runs per file in parallel and binds locals by lexical scope. Phase 2
//! ([`resolve`]) builds libraries from their parts, resolves URIs, export and import
//! namespaces, and members through supertypes and extensions.
//!
//! Layout: [`project`] reads pubspecs and package configs; [`extract`] (with the types it hands
//! over in `extract::syntax`) is phase 1; [`resolve`] is phase 2, its emission through
//! `crate::emit`; `tests` are the in-memory resolver tests.

mod extract;
mod project;
mod resolve;
#[cfg(test)]
mod tests;

use kivgraph_format::Language;

use crate::facts::FactSet;
use crate::lang::ConfigFile;
use crate::pipeline::{FileMeta, FrontEnd, Project, SourceInput};
use extract::syntax::DartFile;

/// The Dart front end.
pub(crate) struct Dart;

impl FrontEnd for Dart {
    const NAME: &'static str = "Dart";
    const LANGUAGES: &'static [Language] = &[Language::Dart];
    type Parsed = DartFile;

    fn extract(input: &SourceInput) -> DartFile {
        extract::extract(input.text.as_str())
    }

    fn partial(f: &DartFile) -> bool {
        f.has_error
    }

    fn grammar(_: &SourceInput) -> Option<tree_sitter::Language> {
        Some(tree_sitter_dart::LANGUAGE.into())
    }

    fn resolve(facts: &mut FactSet, files: Vec<(FileMeta, DartFile)>, project: &Project) {
        let dart_configs: Vec<ConfigFile> = project
            .configs
            .iter()
            .filter(|c| {
                let name = c.path.rsplit('/').next().unwrap_or(&c.path);
                name == "pubspec.yaml" || c.path.ends_with(".dart_tool/package_config.json")
            })
            .cloned()
            .collect();
        let packages = project::read(facts, &dart_configs);
        let units = files
            .into_iter()
            .map(|(m, f)| resolve::Unit::new(m.repo, m.file, m.path, f))
            .collect();
        resolve::Resolver::new(facts, units, packages).run();
    }
}
