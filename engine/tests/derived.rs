//! A repository derived from a toolchain (`rust:<release>`) is withheld from the four tools that
//! could list its rows unless `include_derived` or `repo` asks for it, is marked in
//! list_repositories and broken out in graph_status. Here the provider of the fixture pair is
//! compiled as the derived repository `rust:mathlib`.

use std::path::{Path, PathBuf};
use std::process::Command;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn compiler() -> PathBuf {
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
        assert!(status.success());
    }
    path
}

#[test]
fn derived_rows_are_withheld_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let pair = workspace().join("fixtures/go/pair");
    let out = Command::new(compiler())
        .arg("--out")
        .arg(dir.path())
        .arg(format!("app={}", pair.join("app").display()))
        .arg("--derived")
        .arg(format!("rust:mathlib={}", pair.join("mathlib").display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The reserved prefix is refused for a registered repository.
    let refused = Command::new(compiler())
        .arg("--out")
        .arg(dir.path())
        .arg(format!("rust:x={}", pair.join("app").display()))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("reserved"));

    let store = Store::open(IndexDir::new(dir.path()));
    let call = |tool: &str, args: Value| -> Value {
        serde_json::from_str(&tools::call(tool, &args, store.snapshot()).unwrap()).unwrap()
    };

    // find_symbol: withheld by default, returned with include_derived or when `repo` names it.
    assert_eq!(call("find_symbol", json!({"name": "Add"}))["total"], 0);
    assert_eq!(
        call(
            "find_symbol",
            json!({"name": "Add", "include_derived": true})
        )["total"],
        1
    );
    assert_eq!(
        call(
            "find_symbol",
            json!({"name": "Add", "repo": "rust:mathlib"})
        )["total"],
        1
    );

    // find_references outgoing from app's main: the derived targets are withheld.
    let main = json!({"repository": "app", "qualified_name": "main", "direction": "outgoing", "view": "full"});
    let rows = |v: &Value| {
        v["results"]["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["repository"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let default = call("find_references", main.clone());
    assert!(
        !rows(&default).contains(&"rust:mathlib".to_string()),
        "{default}"
    );
    let mut with = main.clone();
    with["include_derived"] = json!(true);
    let all = call("find_references", with);
    assert!(rows(&all).contains(&"rust:mathlib".to_string()), "{all}");
    // The edges stay published with their confidence: only the page changed.
    assert!(
        all["results"]["references"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["confidence"] == "EXACT_PACKAGE_MAPPED")
    );

    // trace_dependencies: same rule, and `repo` naming the derived provider returns its rows.
    let trace = |extra: Value| {
        let mut a =
            json!({"repository": "app", "qualified_name": "main", "depth": 1, "view": "full"});
        for (k, v) in extra.as_object().unwrap() {
            a[k] = v.clone();
        }
        call("trace_dependencies", a)
    };
    let nodes = |v: &Value| {
        v["results"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["repository"] == "rust:mathlib")
            .count()
    };
    assert_eq!(nodes(&trace(json!({}))), 0);
    assert!(nodes(&trace(json!({"include_derived": true}))) > 0);
    assert!(nodes(&trace(json!({"repo": "rust:mathlib"}))) > 0);

    // get_blast_radius has no `repo`: include_derived is the only way.
    let blast = |extra: bool| {
        call(
            "get_blast_radius",
            json!({"repository": "rust:mathlib", "qualified_name": "Vec", "include_derived": extra, "view": "full"}),
        )
    };
    let in_derived = |v: &Value| {
        v["results"]["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["repository"] == "rust:mathlib")
            .count()
    };
    assert_eq!(in_derived(&blast(false)), 0);
    assert!(in_derived(&blast(true)) > 0);
    assert!(
        blast(false)["results"]["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["repository"] == "app")
    );

    // list_repositories marks the row; graph_status breaks the provider out.
    let repos = call("list_repositories", json!({}));
    let row = repos["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "rust:mathlib")
        .unwrap()
        .clone();
    assert_eq!(row["derived"], true);
    assert!(
        row.get("indexed_commit").is_none()
            && row.get("indexed_branch").is_none()
            && row.get("indexed_dirty").is_none()
    );
    assert_eq!(row["moved"], false);
    assert_eq!(
        row["moved_detail"],
        "derived from the toolchain, not a registered repository: it has no commit to compare"
    );
    let status = call("graph_status", json!({}));
    let d = &status["results"]["derived"];
    assert_eq!(d["repositories"], json!(["rust:mathlib"]));
    assert!(
        d["symbols"].as_u64().unwrap() > 0 && d["edges_inbound"].as_u64().unwrap() > 0,
        "{d}"
    );
    assert!(d["edges_within"].as_u64().unwrap() > 0, "{d}");
}
