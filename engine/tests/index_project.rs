//! index_project's arguments reach the compiler as written and only as consented: names that
//! look like options stay names, the registered languages are the ones compiled, the root and
//! virtual filesystems are refused, and one directory is one project.

use crate::common::{compiler, workspace};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// Runs `kivgraph query TOOL ARGS` on `index` with `compile` as the compiler; returns
/// (success, stdout).
fn query(index: &Path, compile: &Path, tool: &str, args: &Value) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(index)
        .args(["query", tool, &args.to_string()])
        .env("KIVGRAPH_COMPILE", compile)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout)
            .unwrap()
            .trim_end()
            .to_string(),
    )
}

/// A stand-in for the compiler that records its arguments, one a line, in `args.txt` beside
/// it, then runs the real one.
fn recording_compiler(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("recording-compile");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nexec '{}' \"$@\"\n",
            dir.join("args.txt").display(),
            compiler().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn recorded(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("args.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn names_that_look_like_options_stay_names() {
    let tools = tempfile::tempdir().unwrap();
    let compile = recording_compiler(tools.path());
    let index = tempfile::tempdir().unwrap();
    let shapes = workspace().join("fixtures/go/shapes");
    let (ok, text) = query(
        index.path(),
        &compile,
        "index_project",
        &json!({"name": "-V", "path": shapes, "languages": ["go"], "confirmed": true}),
    );
    assert!(ok, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["projects"], json!(["-V"]));
    assert_eq!(answer["generation_id"], 1);
    let args = recorded(tools.path());
    let shapes = shapes.canonicalize().unwrap();
    assert_eq!(
        args[args.len() - 2..],
        ["--".to_string(), format!("-V={}", shapes.display())],
        "{args:?}"
    );
    let repos: Value =
        serde_json::from_str(&query(index.path(), &compile, "list_repositories", &json!({})).1)
            .unwrap();
    assert_eq!(repos["results"][0]["name"], "-V", "{repos}");

    // A name that would carry an option's value is refused before anything runs.
    for name in ["--derived=rust:9.9", "a=b", "rust:1.0", "x\ny"] {
        let (ok, text) = query(
            index.path(),
            &compile,
            "index_project",
            &json!({"name": name, "path": shapes, "languages": ["go"], "confirmed": true}),
        );
        assert!(
            !ok && text.starts_with("INVALID_ARGUMENT: "),
            "{name}: {text}"
        );
    }
    assert_eq!(
        serde_json::from_str::<Value>(&query(index.path(), &compile, "graph_status", &json!({})).1)
            .unwrap()["snapshot_id"],
        1
    );
}

#[test]
fn only_the_registered_languages_are_compiled() {
    let tools = tempfile::tempdir().unwrap();
    let compile = recording_compiler(tools.path());
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    std::fs::write(p.join("go.mod"), "module example.com/m\n").unwrap();
    std::fs::write(p.join("m.go"), "package m\n\nfunc GoOnly() {}\n").unwrap();
    std::fs::write(p.join("m.py"), "def py_only():\n    pass\n").unwrap();
    let index = tempfile::tempdir().unwrap();
    let (ok, text) = query(
        index.path(),
        &compile,
        "index_project",
        &json!({"name": "mixed", "path": p, "languages": ["py"], "confirmed": true}),
    );
    assert!(ok, "{text}");
    assert!(
        recorded(tools.path()).contains(&"--languages=mixed=python".to_string()),
        "{:?}",
        recorded(tools.path())
    );
    let found = |name: &str| {
        let (ok, text) = query(
            index.path(),
            &compile,
            "find_symbol",
            &json!({"name": name}),
        );
        assert!(ok, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()["total"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(found("py_only"), 1);
    assert_eq!(found("GoOnly"), 0, "Go was not consented to");
}

#[test]
fn the_root_and_virtual_filesystems_are_refused() {
    let tools = tempfile::tempdir().unwrap();
    let compile = recording_compiler(tools.path());
    let index = tempfile::tempdir().unwrap();
    for (path, why) in [
        ("/", "is the filesystem root"),
        ("/proc", "virtual filesystem"),
        ("/proc/1", "virtual filesystem"),
        ("/sys/kernel", "virtual filesystem"),
        ("/sys", "virtual filesystem"),
        ("/dev", "virtual filesystem"),
    ] {
        if !Path::new(path).is_dir() {
            continue;
        }
        let (ok, text) = query(
            index.path(),
            &compile,
            "index_project",
            &json!({"name": "x", "path": path, "languages": ["go"], "confirmed": true}),
        );
        assert!(
            !ok && text.starts_with("INVALID_ARGUMENT: ") && text.contains(why),
            "{path}: {text}"
        );
    }
    assert!(
        !tools.path().join("args.txt").exists(),
        "the compiler never ran"
    );
}

#[test]
fn one_directory_is_one_project() {
    let tools = tempfile::tempdir().unwrap();
    let compile = recording_compiler(tools.path());
    let index = tempfile::tempdir().unwrap();
    let shapes = workspace().join("fixtures/go/shapes");
    let register = |name: &str, path: &Path| {
        query(
            index.path(),
            &compile,
            "index_project",
            &json!({"name": name, "path": path, "languages": ["go"], "confirmed": true}),
        )
    };
    assert!(register("shapes", &shapes).0);
    // The same directory under another name, also spelled otherwise.
    for path in [shapes.clone(), shapes.join("geo/..")] {
        let (ok, text) = register("other", &path);
        assert!(
            !ok && text.starts_with("INVALID_ARGUMENT: ")
                && text.contains("is already registered as \"shapes\""),
            "{text}"
        );
    }
    // The same name and directory again is a rebuild.
    let (ok, text) = register("shapes", &shapes);
    assert!(ok, "{text}");
    // Within one batch.
    let (ok, text) = query(
        index.path(),
        &compile,
        "index_project",
        &json!({"projects": [
            {"name": "a", "path": workspace().join("fixtures/go/inventory"), "languages": ["go"]},
            {"name": "b", "path": workspace().join("fixtures/go/inventory"), "languages": ["go"]}
        ], "confirmed": true}),
    );
    assert!(
        !ok && text.contains("is already registered as \"a\""),
        "{text}"
    );
    let registry: Value =
        serde_json::from_str(&std::fs::read_to_string(index.path().join("projects.json")).unwrap())
            .unwrap();
    assert_eq!(registry.as_array().unwrap().len(), 1, "{registry}");
}
