//! Invariants of the engine's build: it never links a parser or a Parquet/Arrow reader, and it
//! never depends on or imports the compiler crate. The engine reads the archive the compiler
//! publishes; parsing and writing tables are the compiler's business.
//!
//! Each check is a function over text, so the tests below can also feed it an offending line and
//! see it fail.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether a crate may not appear among the engine's normal dependencies.
fn forbidden_crate(name: &str) -> bool {
    name.starts_with("tree-sitter")
        || name.starts_with("tree_sitter")
        || name == "parquet"
        || name.starts_with("arrow")
}

/// The lines of `cargo tree --prefix none` output that name a forbidden crate.
fn forbidden_tree_lines(tree: &str) -> Vec<String> {
    tree.lines()
        .filter(|line| line.split_whitespace().next().is_some_and(forbidden_crate))
        .map(str::to_string)
        .collect()
}

/// Whether a text mentions the compiler crate, by package name or by crate name.
fn names_compiler(text: &str) -> bool {
    text.contains("kivgraph-compile") || text.contains("kivgraph_compile")
}

/// The lines of a Cargo manifest that depend on the compiler crate: inside a dependency table,
/// a key or a `package = ` naming it.
fn compiler_dependency_lines(manifest: &str) -> Vec<String> {
    let mut in_dependencies = false;
    let mut out = Vec::new();
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_dependencies = t.contains("dependencies");
            if in_dependencies && names_compiler(t) {
                // [dependencies.kivgraph-compile]
                out.push(line.to_string());
            }
            continue;
        }
        if in_dependencies && !t.starts_with('#') && names_compiler(t) {
            out.push(line.to_string());
        }
    }
    out
}

/// The lines of a Rust source that import or name the compiler crate in code (comments aside:
/// the engine's docs say that it runs the `kivgraph-compile` binary).
fn compiler_import_lines(source: &str) -> Vec<String> {
    source
        .lines()
        .filter(|line| {
            let code = line.split("//").next().unwrap_or("");
            code.contains("kivgraph_compile")
        })
        .map(str::to_string)
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_parser_or_parquet_among_normal_dependencies() {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "-p", "kivgraph", "-e", "normal", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8(output.stdout).unwrap();
    assert!(
        tree.lines().any(|l| l.starts_with("kivgraph ")),
        "cargo tree did not list the engine:\n{tree}"
    );
    let offending = forbidden_tree_lines(&tree);
    assert!(
        offending.is_empty(),
        "the engine links crates it must not (parsers, Parquet, Arrow):\n{}",
        offending.join("\n")
    );
}

#[test]
fn the_tree_check_catches_forbidden_crates() {
    let tree = "kivgraph v0.1.0 (/x/engine)\nserde v1.0.0\ntree-sitter v0.25.0\nparquet v56.0.0\narrow-array v56.0.0\nparquet-format v1.0.0\nsha2 v0.10.9\n";
    assert_eq!(
        forbidden_tree_lines(tree),
        [
            "tree-sitter v0.25.0",
            "parquet v56.0.0",
            "arrow-array v56.0.0"
        ]
    );
    assert!(forbidden_tree_lines("kivgraph v0.1.0\nroaring v0.11.0\n").is_empty());
}

#[test]
fn the_engine_neither_depends_on_nor_imports_the_compiler() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut offending: Vec<String> = compiler_dependency_lines(&manifest)
        .into_iter()
        .map(|l| format!("Cargo.toml: {l}"))
        .collect();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 10, "found only {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in compiler_import_lines(&text) {
            offending.push(format!("{}: {line}", file.display()));
        }
    }
    assert!(
        offending.is_empty(),
        "the engine must not depend on the compiler crate:\n{}",
        offending.join("\n")
    );
}

#[test]
fn the_compiler_checks_catch_a_dependency_and_an_import() {
    let manifest = "[package]\nname = \"kivgraph\"\ndescription = \"runs kivgraph-compile\"\n\n[dependencies]\nserde.workspace = true\nkivgraph-compile = { path = \"../compiler\" }\n";
    assert_eq!(
        compiler_dependency_lines(manifest),
        ["kivgraph-compile = { path = \"../compiler\" }"]
    );
    assert_eq!(
        compiler_dependency_lines("[dev-dependencies.kivgraph-compile]\npath = \"../compiler\"\n"),
        ["[dev-dependencies.kivgraph-compile]"]
    );
    assert!(
        compiler_dependency_lines("[package]\ndescription = \"kivgraph-compile\"\n").is_empty()
    );
    let source =
        "//! Runs kivgraph_compile as a child.\nuse kivgraph_compile::extract;\nfn f() {}\n";
    assert_eq!(
        compiler_import_lines(source),
        ["use kivgraph_compile::extract;"]
    );
}
