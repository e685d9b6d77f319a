//! The binary's repository arguments: `--languages` restricts what is compiled, names and paths
//! after `--` are never options, and the summary names what discovery skipped and the files
//! compiled in part.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kivgraph-compile");

/// Runs the compiler on `args`, writing into `out`.
fn compile(out: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg(format!("--out={}", out.display()))
        .arg("--rust-sysroot=off")
        .args(args)
        .output()
        .unwrap()
}

fn summary(o: &Output) -> Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A repository with a Go, a Python and a TypeScript file.
fn mixed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("go.mod"), "module example.com/m\n").unwrap();
    std::fs::write(p.join("m.go"), "package m\n\nfunc Go() {}\n").unwrap();
    std::fs::write(p.join("m.py"), "def py():\n    pass\n").unwrap();
    std::fs::write(p.join("m.ts"), "export function ts() {}\n").unwrap();
    dir
}

/// Languages of the summary's first repository, with the file count of each.
fn languages(s: &Value) -> Vec<(String, u64)> {
    s["repositories"][0]["files"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(l, statuses)| {
            let n = statuses
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum();
            (l.clone(), n)
        })
        .collect()
}

#[test]
fn languages_restricts_what_is_compiled() {
    let repo = mixed();
    let out = tempfile::tempdir().unwrap();
    let spec = format!("m={}", repo.path().display());
    let s = summary(&compile(
        out.path(),
        &["--json", "--languages=m=python,typescript", "--", &spec],
    ));
    assert_eq!(
        languages(&s),
        [("python".to_string(), 1), ("typescript".to_string(), 1)]
    );
    let messages: Vec<&str> = s["diagnostic_sample"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        messages
            .contains(&"files of languages this repository is not compiled in were left out: 1 go"),
        "{messages:?}"
    );
    // Without it every language is compiled.
    let s = summary(&compile(out.path(), &["--json", "--", &spec]));
    assert_eq!(languages(&s).len(), 3, "{s}");
}

#[test]
fn languages_names_a_given_repository_and_known_languages() {
    let repo = mixed();
    let out = tempfile::tempdir().unwrap();
    let spec = format!("m={}", repo.path().display());
    for (arg, why) in [
        ("--languages=other=go", "no repository \"other\" is given"),
        ("--languages=m=cobol", "\"cobol\" is not a language"),
        ("--languages=m", "expected NAME=LANG[,LANG]"),
    ] {
        let o = compile(out.path(), &["--json", arg, "--", &spec]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && stderr.contains(why),
            "{arg}: {stderr}"
        );
    }
    let o = compile(
        out.path(),
        &[
            "--json",
            "--languages=m=go",
            "--languages=m=python",
            "--",
            &spec,
        ],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("restricted twice"));
    assert!(
        !out.path().join("CURRENT").exists(),
        "nothing was published"
    );
}

#[test]
fn names_after_the_separator_are_never_options() {
    let repo = mixed();
    let out = tempfile::tempdir().unwrap();
    for name in ["-V", "--json", "--derived"] {
        let spec = format!("{name}={}", repo.path().display());
        let s = summary(&compile(out.path(), &["--json", "--", &spec]));
        assert_eq!(s["repositories"][0]["name"], name, "{s}");
    }
}

#[cfg(unix)]
#[test]
fn the_summary_names_skipped_entries_and_counts_partial_files() {
    let repo = mixed();
    let p = repo.path();
    std::fs::write(p.join("broken.py"), "def ok():\n    return 1\n\nclass (:\n").unwrap();
    std::os::unix::fs::symlink(p.join("m.py"), p.join("alias.py")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let spec = format!("m={}", p.display());
    let s = summary(&compile(out.path(), &["--json", "--", &spec]));
    assert_eq!(s["repositories"][0]["files"]["python"]["partial"], 1, "{s}");
    let sample = s["diagnostic_sample"].as_array().unwrap();
    assert!(
        sample.iter().any(|d| d["path"] == "alias.py"
            && d["message"] == "not a regular file (symbolic link, not followed); skipped"),
        "{sample:?}"
    );
    // `--full`: the same inputs would otherwise be answered as up to date.
    let o = compile(out.path(), &["--full", "--", &spec]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(
            "  1 files partial (syntax errors or depth bounds: declarations read in part)\n"
        ),
        "{text}"
    );
    assert!(text.contains("alias.py: not a regular file"), "{text}");
}

/// Off a terminal the compile shows no progress: stderr holds no drawing and no phase, stdout
/// only the summary.
#[test]
fn a_compile_off_a_terminal_draws_no_progress() {
    let repo = mixed();
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(BIN)
        .arg(format!("--out={}", out.path().display()))
        .arg("--rust-sysroot=off")
        .arg(format!("m={}", repo.path().display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains('\r') && !err.contains('\u{1b}') && !err.contains("parsing"),
        "stderr: {err:?}"
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("generation 000001 published"), "{text}");
}
