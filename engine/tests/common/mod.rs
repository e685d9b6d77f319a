//! Helpers shared by the engine's integration tests: where the workspace is, and the compiler
//! binary. The engine does not link the compiler, so the binary is built on demand.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `kivgraph-compile` binary: `$KIVGRAPH_COMPILE` when set (as the server looks it up),
/// else the one beside the `kivgraph` binary under test, built if missing (once, even when
/// tests run in parallel).
pub fn compiler() -> PathBuf {
    if let Some(p) = std::env::var_os("KIVGRAPH_COMPILE") {
        return PathBuf::from(p);
    }
    static BUILT: Mutex<()> = Mutex::new(());
    let _once = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let path = PathBuf::from(env!("CARGO_BIN_EXE_kivgraph")).with_file_name("kivgraph-compile");
    if !path.is_file() {
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "build",
                "-p",
                "kivgraph-compile",
                "--bin",
                "kivgraph-compile",
            ])
            .current_dir(workspace())
            .status()
            .unwrap();
        assert!(status.success(), "building kivgraph-compile failed");
    }
    path
}

/// Runs `kivgraph-compile --full --out INDEX ARGS...` (a new generation each time, even of the
/// same sources) and fails the test, with the compiler's stderr, when it does not succeed.
#[allow(dead_code)]
pub fn compile_into<S: AsRef<std::ffi::OsStr>>(index: &Path, args: impl IntoIterator<Item = S>) {
    let out = Command::new(compiler())
        .arg("--full")
        .arg("--out")
        .arg(index)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The files of generation directory `dir` but its manifest (which records when it was made), by
/// name, with their bytes: what two compiles or installs of the same graph must agree on.
#[allow(dead_code)]
pub fn generation_dir_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
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

/// Compiles the Go fixtures `shapes` and `inventory` into the index directory `index`.
#[allow(dead_code)]
pub fn compile_go_fixtures(index: &Path) {
    let fixtures = workspace().join("fixtures/go");
    compile_into(
        index,
        [
            format!("shapes={}", fixtures.join("shapes").display()),
            format!("inventory={}", fixtures.join("inventory").display()),
        ],
    );
}

#[allow(dead_code)]
pub mod serve;
