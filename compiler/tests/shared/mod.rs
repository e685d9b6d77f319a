//! File helpers shared by the compiler's integration tests that build repositories in temporary
//! directories.

use std::path::Path;

/// Copies the directory tree `from` to `to`.
#[allow(dead_code)]
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// A generation's files but its manifest (which records when it was made), by name, with their
/// bytes: what two compiles of the same sources must agree on.
#[allow(dead_code)]
pub fn generation_files(dir: impl AsRef<Path>) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "manifest.json")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every fixture repository of every language but the stand-in standard library, as paths
/// under `fixtures/`.
#[allow(dead_code)]
pub const REPOS: &[&str] = &[
    "go/constructs",
    "go/inventory",
    "go/orphan",
    "go/pair/app",
    "go/pair/mathlib",
    "go/shapes",
    "ts/legacy",
    "ts/pair/corelib",
    "ts/pair/webapp",
    "ts/shop",
    "ts/ui",
    "python/pair/app",
    "python/pair/corelib",
    "python/shop",
    "rust/geo",
    "rust/pair/app",
    "rust/pair/corelib",
    "rust/stduse",
    "dart/pair/app",
    "dart/pair/corelib",
    "dart/shop",
];

/// A generation's manifest without the time it was written: what two compiles (or a compile
/// and a link) of the same sources must agree on.
#[allow(dead_code)]
pub fn manifest_without_time(dir: impl AsRef<Path>) -> serde_json::Value {
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.as_ref().join("manifest.json")).unwrap())
            .unwrap();
    let o = m.as_object_mut().unwrap();
    o.remove("created_at");
    o.remove("created_at_ms");
    m
}
