//! The MCP answers on Rust: the fixture pair `acme-corelib` (corelib) and its consumer
//! `acme-app` (app, a workspace with the member `extras`), compiled together without the
//! standard library. The rendered answers are snapshots; the assertions pin what the snapshots
//! must show (cross-repository confidence, module paths as packages, the standard library's
//! absence recorded rather than ignored).

mod common;
use common::{compiler, workspace};

use std::process::Command;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

fn compile_pair(out: &std::path::Path) {
    let pair = workspace().join("fixtures/rust/pair");
    let status = Command::new(compiler())
        .arg("--out")
        .arg(out)
        .args(["--rust-sysroot", "off"])
        .arg(format!("corelib={}", pair.join("corelib").display()))
        .arg(format!("app={}", pair.join("app").display()))
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
fn rust_answers() {
    let dir = tempfile::tempdir().unwrap();
    compile_pair(dir.path());
    let store = Store::open(IndexDir::new(dir.path()));
    let root = workspace()
        .join("fixtures/rust/pair")
        .canonicalize()
        .unwrap();
    // The answer text, with the checkout's path and the clock-dependent field taken out.
    let call = |tool: &str, args: Value| -> String {
        let text = tools::call(tool, &args, store.snapshot())
            .unwrap()
            .replace(root.to_str().unwrap(), "<pair>");
        let mut v: Value = serde_json::from_str(&text).unwrap();
        if let Some(m) = v.as_object_mut() {
            m.shift_remove("snapshot_age_ms");
        }
        serde_json::to_string(&v).unwrap()
    };

    let consumers = call(
        "find_cross_repo_consumers",
        json!({"repository": "corelib", "path": "src/ledger/mod.rs", "qualified_name": "Ledger"}),
    );
    let v: Value = serde_json::from_str(&consumers).unwrap();
    assert!(
        consumers.contains("EXACT_PACKAGE_MAPPED"),
        "uses from app are package-mapped: {v}"
    );
    assert!(
        v["coverage"]["package_level"].as_u64().unwrap() >= 1,
        "the module dependency is recorded: {v}"
    );
    insta::assert_snapshot!("rs_cross_repo_ledger", consumers);

    let refs = call(
        "find_references",
        json!({"repository": "corelib", "path": "src/ledger/mod.rs", "qualified_name": "Ledger::new"}),
    );
    assert!(refs.contains("invoice.rs"), "app's call is found: {refs}");
    insta::assert_snapshot!("rs_references_ledger_new", refs);

    let outline = call(
        "get_file_outline",
        json!({"repository": "corelib", "path": "src/money.rs"}),
    );
    assert!(outline.contains("Money::add"), "{outline}");
    insta::assert_snapshot!("rs_outline_money", outline);

    let found = call("find_symbol", json!({"name": "Money", "view": "full"}));
    let v: Value = serde_json::from_str(&found).unwrap();
    assert_eq!(v["results"][0]["language"], "rust", "{v}");
    insta::assert_snapshot!("rs_find_money", found);

    let status = call("graph_status", json!({}));
    assert!(
        status.contains("SYSROOT_SOURCE_MISSING"),
        "the standard library's absence is counted: {status}"
    );
}
