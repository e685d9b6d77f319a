//! A repository derived from a toolchain (`rust:<release>`) is withheld from the four tools that
//! could list its rows unless `include_derived` or `repo` asks for it, is marked in
//! list_repositories and broken out in graph_status. Here the provider of the fixture pair is
//! compiled as the derived repository `rust:mathlib`.

use crate::common::{compile_into, compiler, workspace};

use std::process::Command;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

/// One generation for the tests of this file: `app` registered, `mathlib` derived.
fn store() -> &'static Store {
    static STORE: std::sync::OnceLock<Store> = std::sync::OnceLock::new();
    STORE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let pair = workspace().join("fixtures/go/pair");
        compile_into(
            &dir,
            [
                format!("app={}", pair.join("app").display()),
                "--derived".into(),
                format!("rust:mathlib={}", pair.join("mathlib").display()),
            ],
        );
        Store::open(IndexDir::new(dir))
    })
}

fn call(tool: &str, args: Value) -> Value {
    serde_json::from_str(&tools::call(tool, &args, store().snapshot()).unwrap()).unwrap()
}

fn derived_row() -> Value {
    let repos = call("list_repositories", json!({}));
    repos["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "rust:mathlib")
        .unwrap()
        .clone()
}

fn trace(extra: Value) -> usize {
    let mut a = json!({"repository": "app", "qualified_name": "main", "depth": 1, "view": "full"});
    for (k, v) in extra.as_object().unwrap() {
        a[k] = v.clone();
    }
    let v = call("trace_dependencies", a);
    v["results"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["repository"] == "rust:mathlib")
        .count()
}

fn blast(include_derived: bool) -> Value {
    call(
        "get_blast_radius",
        json!({"repository": "rust:mathlib", "qualified_name": "Vec", "include_derived": include_derived, "view": "full"}),
    )
}

fn outgoing_repos(include_derived: bool) -> Vec<String> {
    let v = call(
        "find_references",
        json!({"repository": "app", "qualified_name": "main", "direction": "outgoing", "view": "full", "include_derived": include_derived}),
    );
    v["results"]["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["repository"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn item_129_a_toolchain_repository_enters_as_a_derived_repository() {
    let row = derived_row();
    assert_eq!(row["derived"], true);
    assert!(row["name"].as_str().unwrap().starts_with("rust:"));
    // The reserved prefix is refused for a registered repository.
    let pair = workspace().join("fixtures/go/pair");
    let dir = tempfile::tempdir().unwrap();
    let refused = Command::new(compiler())
        .arg("--out")
        .arg(dir.path())
        .arg(format!("rust:x={}", pair.join("app").display()))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("reserved"));
}

#[test]
fn item_131_the_derived_repository_has_no_commit_branch_or_dirty_flag() {
    let row = derived_row();
    for k in [
        "indexed_commit",
        "indexed_branch",
        "indexed_dirty",
        "current_commit",
        "current_branch",
    ] {
        assert!(row.get(k).is_none(), "{k}: {row}");
    }
    assert_eq!(row["moved"], false);
    assert_eq!(
        row["moved_detail"],
        "derived from the toolchain, not a registered repository: it has no commit to compare"
    );
}

#[test]
fn item_132_derived_rows_are_withheld_by_default() {
    assert_eq!(call("find_symbol", json!({"name": "Add"}))["total"], 0);
    assert!(!outgoing_repos(false).contains(&"rust:mathlib".to_string()));
    assert_eq!(trace(json!({})), 0);
    let b = blast(false);
    let rows = b["results"]["symbols"].as_array().unwrap();
    assert!(rows.iter().all(|n| n["repository"] != "rust:mathlib"));
    assert!(
        rows.iter().any(|n| n["repository"] == "app"),
        "registered rows stay: {b}"
    );
}

#[test]
fn item_133_include_derived_returns_them() {
    assert_eq!(
        call(
            "find_symbol",
            json!({"name": "Add", "include_derived": true})
        )["total"],
        1
    );
    assert!(outgoing_repos(true).contains(&"rust:mathlib".to_string()));
    assert!(trace(json!({"include_derived": true})) > 0);
    let b = blast(true);
    assert!(
        b["results"]["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["repository"] == "rust:mathlib")
    );
}

#[test]
fn item_134_naming_the_derived_provider_in_repo_returns_them() {
    assert_eq!(
        call(
            "find_symbol",
            json!({"name": "Add", "repo": "rust:mathlib"})
        )["total"],
        1
    );
    assert!(trace(json!({"repo": "rust:mathlib"})) > 0);
    let v = call(
        "find_references",
        json!({"repository": "app", "qualified_name": "main", "direction": "outgoing", "repo": "rust:mathlib"}),
    );
    assert!(v["total"].as_u64().unwrap() > 0);
    // get_blast_radius has no `repo`: include_derived is the only way there.
    let e = tools::call(
        "get_blast_radius",
        &json!({"repository": "rust:mathlib", "qualified_name": "Vec", "repo": "rust:mathlib"}),
        store().snapshot(),
    )
    .unwrap_err();
    assert_eq!(e.code, "INVALID_ARGUMENT");
}

#[test]
fn item_135_withholding_changes_the_page_only() {
    let with = call(
        "find_references",
        json!({"repository": "app", "qualified_name": "main", "direction": "outgoing", "view": "full", "include_derived": true}),
    );
    // The edges stay published with their confidence.
    assert!(with["results"]["references"].as_array().unwrap().iter().any(|r| r["repository"] == "rust:mathlib" && r["confidence"] == "EXACT_PACKAGE_MAPPED"));
    let status = call("graph_status", json!({}));
    assert!(
        status["results"]["derived"]["edges_inbound"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn item_136_graph_status_breaks_the_derived_provider_out() {
    let status = call("graph_status", json!({}));
    let d = &status["results"]["derived"];
    assert_eq!(d["repositories"], json!(["rust:mathlib"]));
    for k in [
        "packages",
        "files",
        "symbols",
        "edges_within",
        "edges_inbound",
    ] {
        assert!(d[k].as_u64().unwrap() > 0, "{k}: {d}");
    }
    assert!(d.get("unresolved").is_some());
}

#[test]
fn item_137_list_repositories_marks_the_derived_row() {
    let repos = call("list_repositories", json!({}));
    for r in repos["results"].as_array().unwrap() {
        assert_eq!(
            r.get("derived").is_some(),
            r["name"] == "rust:mathlib",
            "{r}"
        );
    }
}
