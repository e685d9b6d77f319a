//! A generation holds no path of the machine that compiled it: the same sources compiled from two
//! checkouts at different paths give byte-identical tables and blobs (and manifests but for the
//! time of the compile), and the checkouts are recorded beside the index instead.

use std::path::{Path, PathBuf};

use crate::shared::{REPOS, copy_dir, generation_files as tables, manifest_without_time};
use kivgraph_compile::{CacheOptions, CompileOptions, RepoSpec, RustSysroot, compile};
use kivgraph_format::IndexDir;
use kivgraph_format::checkouts::Checkouts;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// Copies the fixtures under `checkout` and compiles them into `out`.
fn compile_at(checkout: &Path, out: &Path) -> kivgraph_compile::Summary {
    let mut repos = Vec::new();
    for r in REPOS {
        let to = checkout.join(r);
        copy_dir(&fixtures().join(r), &to);
        repos.push(RepoSpec::parse(&format!("{}={}", r.replace('/', "-"), to.display())).unwrap());
    }
    let library = checkout.join("sysroot");
    copy_dir(&fixtures().join("rust/sysroot/library"), &library);
    repos.push(RepoSpec::parse_derived(&format!("rust:1.0.0={}", library.display())).unwrap());
    compile(&CompileOptions {
        out: out.into(),
        repos,
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: CacheOptions::off(),
    })
    .unwrap()
}

#[test]
fn two_checkouts_of_the_same_sources_give_the_same_generation() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let deeper = b.path().join("somewhere/else/entirely");
    let (out_a, out_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sa = compile_at(a.path(), out_a.path());
    let sb = compile_at(&deeper, out_b.path());
    assert!(sa.rows.symbols > 0 && sa.rows.unresolved > 0);
    assert_eq!(tables(&sa.generation_dir), tables(&sb.generation_dir));
    assert_eq!(
        manifest_without_time(&sa.generation_dir),
        manifest_without_time(&sb.generation_dir)
    );

    // No byte of the generation names either checkout.
    for (dir, checkout) in [
        (&sa.generation_dir, a.path()),
        (&sb.generation_dir, &deeper),
    ] {
        let needle = checkout.to_string_lossy().into_owned();
        for entry in std::fs::read_dir(dir).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{dir} holds the checkout path"
            );
        }
    }

    // The checkouts are recorded beside the index, for a server on this machine.
    let recorded = Checkouts::read(&IndexDir::new(out_b.path()));
    let shop = deeper.join("ts/shop").canonicalize().unwrap();
    assert_eq!(
        recorded.repositories.get("ts-shop").map(String::as_str),
        Some(shop.to_str().unwrap())
    );
    assert_eq!(recorded.repositories.len(), REPOS.len() + 1);
}
