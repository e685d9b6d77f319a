//! A compile when nothing changed answers with the published generation and publishes nothing;
//! any change of a source, a configuration file, a repository's restriction or the record of the
//! last compile compiles again, and what it publishes holds the same tables and blobs as a
//! compile from nothing.

use std::path::Path;

use crate::shared::generation_files as tables;
use kivgraph_compile::{
    CompileOptions, LAST_COMPILE, RepoSpec, RustSysroot, Summary, compile, compile_changed,
};
use kivgraph_format::{IndexDir, Language};

fn options(out: &Path, repo: &Path) -> CompileOptions {
    CompileOptions {
        out: out.into(),
        repos: vec![RepoSpec::parse(&format!("m={}", repo.display())).unwrap()],
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    }
}

/// A repository with a Go, a Python and a TypeScript file.
fn mixed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("go.mod"), "module example.com/m\n").unwrap();
    std::fs::write(
        p.join("m.go"),
        "package m\n\nfunc Go() {}\n\nfunc Use() { Go() }\n",
    )
    .unwrap();
    std::fs::write(p.join("m.py"), "def py():\n    pass\n\npy()\n").unwrap();
    std::fs::write(p.join("m.ts"), "export function ts() {}\nts();\n").unwrap();
    dir
}

fn changed(opts: &CompileOptions) -> Summary {
    compile_changed(opts).unwrap()
}

#[test]
fn nothing_changed_answers_with_the_published_generation() {
    let repo = mixed();
    let out = tempfile::tempdir().unwrap();
    let opts = options(out.path(), repo.path());
    let first = changed(&opts);
    assert!(!first.up_to_date);
    let again = changed(&opts);
    assert!(again.up_to_date);
    assert_eq!(again.generation_id, first.generation_id);
    assert_eq!(again.rows, first.rows);
    assert_eq!(
        IndexDir::new(out.path()).current().unwrap(),
        Some(first.generation_id)
    );
    // `compile` (the CLI's --full) always publishes.
    let full = compile(&opts).unwrap();
    assert!(!full.up_to_date);
    assert_eq!(full.generation_id, first.generation_id + 1);
    assert!(changed(&opts).up_to_date);
}

#[test]
fn an_edit_an_addition_or_a_restriction_compiles_again_like_a_cold_compile() {
    let repo = mixed();
    let out = tempfile::tempdir().unwrap();
    let opts = options(out.path(), repo.path());
    changed(&opts);
    // An edited source.
    std::fs::write(
        repo.path().join("m.py"),
        "def py():\n    return 1\n\npy()\n",
    )
    .unwrap();
    let edited = changed(&opts);
    assert!(!edited.up_to_date);
    // A new file.
    std::fs::write(
        repo.path().join("n.ts"),
        "import { ts } from './m';\nts();\n",
    )
    .unwrap();
    let added = changed(&opts);
    assert!(!added.up_to_date && added.generation_id == edited.generation_id + 1);
    // A file removed.
    std::fs::remove_file(repo.path().join("m.go")).unwrap();
    let removed = changed(&opts);
    assert!(!removed.up_to_date);
    // The same repository restricted to one language.
    let mut restricted = opts.clone();
    restricted.repos[0].languages = Some(vec![Language::Python]);
    assert!(!changed(&restricted).up_to_date);
    assert!(changed(&restricted).up_to_date);
    // Back to every language: compiled again, and equal to a compile from nothing.
    let last = changed(&opts);
    assert!(!last.up_to_date);
    let cold_out = tempfile::tempdir().unwrap();
    let cold = compile(&options(cold_out.path(), repo.path())).unwrap();
    assert_eq!(
        tables(Path::new(&last.generation_dir)),
        tables(Path::new(&cold.generation_dir))
    );
}

#[test]
fn a_damaged_or_foreign_record_of_the_last_compile_compiles_again() {
    let repo = mixed();
    let out = tempfile::tempdir().unwrap();
    let opts = options(out.path(), repo.path());
    let first = changed(&opts);
    let record = out.path().join(LAST_COMPILE);
    let good = std::fs::read(&record).unwrap();
    // Truncated.
    std::fs::write(&record, &good[..good.len() / 2]).unwrap();
    let s = changed(&opts);
    assert!(!s.up_to_date && s.generation_id == first.generation_id + 1);
    assert!(changed(&opts).up_to_date);
    // Naming a generation that is not the published one.
    let text = String::from_utf8(std::fs::read(&record).unwrap()).unwrap();
    let current = s.generation_id;
    let foreign = text.replacen(
        &format!("\"generation_id\":{current}"),
        &format!("\"generation_id\":{}", current + 40),
        1,
    );
    assert_ne!(foreign, text);
    std::fs::write(&record, foreign).unwrap();
    assert!(!changed(&opts).up_to_date);
    // Missing.
    std::fs::remove_file(&record).unwrap();
    assert!(!changed(&opts).up_to_date);
    assert!(changed(&opts).up_to_date);
}
