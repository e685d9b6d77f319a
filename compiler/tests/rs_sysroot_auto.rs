//! `--rust-sysroot auto` (the default) finds the standard library's sources the way a user's
//! toolchain has them: `rustc --print sysroot`, then `lib/rustlib/src/rust/library`, named
//! `rust:<release>` from `rustc --version`. A stand-in `rustc` (through `RUSTC`) points at a
//! sysroot holding a copy of the fixture stand-in library; without `rust-src` there, every use
//! of `std` is a `SYSROOT_SOURCE_MISSING` record that says why.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::shared::copy_dir;
use kivgraph_format::{Generation, IndexDir};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/rust")
}

/// A stand-in `rustc` that answers `--print sysroot` with `sysroot` and `--version` as 1.95.0.
fn fake_rustc(dir: &Path, sysroot: &Path) -> PathBuf {
    let script = dir.join("rustc");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --print ]; then echo '{}'; else echo 'rustc 1.95.0 (59807616e 2026-04-14)'; fi\n",
            sysroot.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn compile(rustc: &Path, out: &Path) -> Generation {
    let status = Command::new(env!("CARGO_BIN_EXE_kivgraph-compile"))
        .env("RUSTC", rustc)
        .arg("--out")
        .arg(out)
        .arg(format!("stduse={}", fixtures().join("stduse").display()))
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    Generation::open_current(&IndexDir::new(out))
        .unwrap()
        .unwrap()
}

#[test]
fn auto_finds_rust_src_in_the_toolchain() {
    let dir = tempfile::tempdir().unwrap();
    let sysroot = dir.path().join("toolchain");
    copy_dir(
        &fixtures().join("sysroot/library"),
        &sysroot.join("lib/rustlib/src/rust/library"),
    );
    let rustc = fake_rustc(dir.path(), &sysroot);
    let generation = compile(&rustc, &dir.path().join("index"));
    let g = generation.graph();
    let names: Vec<(&str, bool)> = g
        .repositories
        .iter()
        .map(|r| (g.strings.get(r.name.to_native()), r.derived))
        .collect();
    assert!(names.contains(&("rust:1.95.0", true)), "{names:?}");
    assert!(names.contains(&("stduse", false)), "{names:?}");
    let missing = g
        .unresolved
        .iter()
        .filter(|u| g.strings.get(u.reason.to_native()) == "SYSROOT_SOURCE_MISSING")
        .count();
    assert_eq!(missing, 0, "the standard library was found");
}

#[test]
fn auto_without_rust_src_records_why() {
    let dir = tempfile::tempdir().unwrap();
    let sysroot = dir.path().join("toolchain");
    std::fs::create_dir_all(sysroot.join("lib/rustlib")).unwrap();
    let rustc = fake_rustc(dir.path(), &sysroot);
    let generation = compile(&rustc, &dir.path().join("index"));
    let g = generation.graph();
    assert_eq!(g.repositories.len(), 1, "no derived repository");
    let details: Vec<&str> = g
        .unresolved
        .iter()
        .filter(|u| g.strings.get(u.reason.to_native()) == "SYSROOT_SOURCE_MISSING")
        .map(|u| g.strings.opt(u.detail.to_native()).unwrap_or(""))
        .collect();
    assert!(!details.is_empty(), "uses of std are recorded");
    assert!(
        details.iter().all(|d| d.contains("rust-src")),
        "each record says why: {details:?}"
    );
}
