//! The extraction cache of a long-lived compiler (`--watch`): after edits, additions, removals
//! and a rename, a compile that reuses the unchanged files' extractions publishes the same tables
//! and blobs as a compile from nothing. Its own process: the cache is per process.

use std::path::{Path, PathBuf};

use crate::shared::{copy_dir, generation_files as tables};
use kivgraph_compile::{CompileOptions, RepoSpec, RustSysroot, cache, compile, compile_changed};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn options(out: &Path, repos: &[(&str, &Path)]) -> CompileOptions {
    CompileOptions {
        out: out.into(),
        repos: repos
            .iter()
            .map(|(n, p)| RepoSpec::parse(&format!("{n}={}", p.display())).unwrap())
            .collect(),
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    }
}

#[test]
fn reused_extractions_publish_what_a_cold_compile_publishes() {
    let src = tempfile::tempdir().unwrap();
    let langs = [
        ("ts", "ts/shop"),
        ("py", "python/shop"),
        ("go", "go/shapes"),
        ("rs", "rust/pair/corelib"),
        ("dart", "dart/shop"),
    ];
    let mut repos = Vec::new();
    for (name, dir) in langs {
        let to = src.path().join(name);
        copy_dir(&fixtures().join(dir), &to);
        repos.push((name, to));
    }
    let repos: Vec<(&str, &Path)> = repos.iter().map(|(n, p)| (*n, p.as_path())).collect();
    let warm_out = tempfile::tempdir().unwrap();
    let warm = options(warm_out.path(), &repos);
    cache::enable();
    compile_changed(&warm).unwrap();
    let before = cache::hits();

    // Edits in every language, a new file and a removed one.
    let ts = src.path().join("ts/src/cart.ts");
    let text = std::fs::read_to_string(&ts).unwrap();
    std::fs::write(&ts, format!("{text}\nexport const EXTRA = 1;\n")).unwrap();
    std::fs::write(
        src.path().join("py/src/shop/extra.py"),
        "from shop.pricing import *\n\ndef extra():\n    return 1\n",
    )
    .unwrap();
    let go_files: Vec<PathBuf> = walk(&src.path().join("go"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "go"))
        .collect();
    let t = std::fs::read_to_string(&go_files[0]).unwrap();
    std::fs::write(&go_files[0], format!("{t}\nfunc extraGo() {{}}\n")).unwrap();
    let rs = src.path().join("rs/src/lib.rs");
    let t = std::fs::read_to_string(&rs).unwrap();
    std::fs::write(&rs, format!("{t}\npub fn extra_rs() {{}}\n")).unwrap();
    let dart_lib: Vec<PathBuf> = walk(&src.path().join("dart"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "dart"))
        .collect();
    std::fs::remove_file(&dart_lib[0]).unwrap();
    // A renamed file: the same content under another path.
    let py_files: Vec<PathBuf> = walk(&src.path().join("py"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "py") && !p.ends_with("extra.py"))
        .collect();
    let renamed = py_files[0].with_file_name("renamed_module.py");
    std::fs::rename(&py_files[0], &renamed).unwrap();

    let after = compile_changed(&warm).unwrap();
    assert!(!after.up_to_date);
    assert!(
        cache::hits() > before,
        "the unchanged files were parsed again"
    );

    cache::disable();
    let cold_out = tempfile::tempdir().unwrap();
    let cold = compile(&options(cold_out.path(), &repos)).unwrap();
    assert_eq!(tables(&after.generation_dir), tables(&cold.generation_dir));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}
