//! The standard library (a derived repository) is resolved once: its references are resolved
//! over its own files, kept in the extraction cache, and placed again by later compiles, which
//! publish what a compile from nothing publishes. Its references never see a registered crate.
//! Runs on the stand-in standard library of `fixtures/rust/sysroot`.

use std::path::{Path, PathBuf};

use crate::shared::{copy_dir, generation_files as tables};
use kivgraph_compile::{
    CacheDir, CacheOptions, CompileOptions, RepoSpec, RustSysroot, Summary, compile,
};

const SYSROOT: &str = "rust:1.0.0";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn compile_with(
    out: &Path,
    repos: &[(&str, &Path)],
    library: &Path,
    cache: CacheOptions,
) -> Summary {
    let mut specs: Vec<RepoSpec> = repos
        .iter()
        .map(|(n, p)| RepoSpec::parse(&format!("{n}={}", p.display())).unwrap())
        .collect();
    specs.push(RepoSpec::parse_derived(&format!("{SYSROOT}={}", library.display())).unwrap());
    compile(&CompileOptions {
        out: out.into(),
        repos: specs,
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache,
    })
    .unwrap()
}

fn at(dir: &Path) -> CacheOptions {
    CacheOptions {
        dir: CacheDir::At(dir.into()),
        ..CacheOptions::default()
    }
}

#[test]
fn the_standard_library_is_resolved_once_and_reused() {
    let src = tempfile::tempdir().unwrap();
    let crate_dir = src.path().join("stduse");
    copy_dir(&fixtures().join("rust/stduse"), &crate_dir);
    let library = fixtures().join("rust/sysroot/library");
    let repos = [("stduse", crate_dir.as_path())];
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();

    let first = compile_with(out.path(), &repos, &library, at(cache.path()));
    let s = first.cache.unwrap();
    // One entry per file, one for the standard library's references and one for the
    // generation's name and term indexes.
    let rs_files = walk_rs(&crate_dir) + walk_rs(&library);
    assert_eq!(
        (s.hits, s.misses, s.written),
        (0, rs_files + 2, rs_files + 2),
        "{s:?}"
    );

    let lib = crate_dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        format!("{text}\npub fn added() -> String {{ String::new() }}\n"),
    )
    .unwrap();
    let second = compile_with(out.path(), &repos, &library, at(cache.path()));
    let s = second.cache.clone().unwrap();
    // Only the edited file missed, and the name and term indexes (a function was added): the
    // standard library's references were placed, not resolved.
    assert_eq!((s.hits, s.misses, s.rejected), (rs_files, 2, 0), "{s:?}");

    let cold_out = tempfile::tempdir().unwrap();
    let cold = compile_with(cold_out.path(), &repos, &library, CacheOptions::off());
    assert_eq!(tables(&second.generation_dir), tables(&cold.generation_dir));
}

fn walk_rs(dir: &Path) -> u64 {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            n += walk_rs(&e.path());
        } else if e.path().extension().is_some_and(|x| x == "rs") {
            n += 1;
        }
    }
    n
}

/// The edges that occur in the derived repository's files, as (source, target's repository,
/// target), by qualified name.
fn derived_edges(out: &Path) -> Vec<(String, String, String)> {
    let g = kivgraph_format::Generation::open_current(&kivgraph_format::IndexDir::new(out))
        .unwrap()
        .unwrap();
    let graph = g.graph();
    let repo_name = |s: u32| {
        let sym = &graph.symbols[s as usize];
        let r = &graph.repositories[sym.repository.to_native() as usize];
        graph.strings.get(r.name.to_native()).to_string()
    };
    let qn = |s: u32| {
        graph
            .strings
            .get(graph.symbols[s as usize].qualified_name.to_native())
            .to_string()
    };
    let file_repo = |f: u32| {
        let r = &graph.repositories[graph.files[f as usize].repository.to_native() as usize];
        graph.strings.get(r.name.to_native()).to_string()
    };
    let mut out = Vec::new();
    for s in 0..graph.symbols.len() as u32 {
        for e in graph.forward.row(s) {
            let f = e.file.to_native();
            if f == kivgraph_format::NONE || file_repo(f) != SYSROOT {
                continue;
            }
            let t = e.other.to_native();
            out.push((qn(s), repo_name(t), qn(t)));
        }
    }
    out
}

#[test]
fn the_standard_library_does_not_see_the_registered_crates() {
    // A library whose `String::describe()` has one answer in the library itself, and a crate
    // that implements a trait of its own with the same method for the library's `String`.
    let src = tempfile::tempdir().unwrap();
    let library = src.path().join("library");
    copy_dir(&fixtures().join("rust/sysroot/library"), &library);
    let string = library.join("alloc/src/string.rs");
    let text = std::fs::read_to_string(&string).unwrap();
    std::fs::write(
        &string,
        format!(
            "{text}\npub trait Describe {{\n    fn describe() -> usize;\n}}\n\n\
             impl Describe for String {{\n    fn describe() -> usize {{\n        1\n    }}\n}}\n\n\
             pub fn describe_string() -> usize {{\n    String::describe()\n}}\n"
        ),
    )
    .unwrap();
    let user = src.path().join("mine");
    std::fs::create_dir_all(user.join("src")).unwrap();
    std::fs::write(
        user.join("Cargo.toml"),
        "[package]\nname = \"mine\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        user.join("src/lib.rs"),
        "pub trait Mine {\n    fn describe() -> usize;\n}\n\n\
         impl Mine for String {\n    fn describe() -> usize {\n        2\n    }\n}\n",
    )
    .unwrap();

    let out = tempfile::tempdir().unwrap();
    compile_with(
        out.path(),
        &[("mine", user.as_path())],
        &library,
        CacheOptions::off(),
    );
    let edges = derived_edges(out.path());
    let from_describe: Vec<&(String, String, String)> = edges
        .iter()
        .filter(|(s, _, _)| s == "describe_string")
        .collect();
    assert!(
        from_describe
            .iter()
            .any(|(_, r, t)| r == SYSROOT && t.ends_with("describe")),
        "{from_describe:?}"
    );
    assert!(
        edges.iter().all(|(_, r, _)| r == SYSROOT),
        "an edge of the standard library points into a registered crate: {:?}",
        edges
            .iter()
            .filter(|(_, r, _)| r != SYSROOT)
            .collect::<Vec<_>>()
    );
}
