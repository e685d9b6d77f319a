//! The MCP answers on Dart: the fixture pair `acme_core` (corelib) and its consumer `acme_app`
//! (app), compiled together. The rendered answers are snapshots; the assertions pin what the
//! snapshots must show (cross-repository confidence, libraries named by their `package:` URI,
//! an external package recorded as unresolved).

mod common;
use common::{compiler, workspace};

use std::process::Command;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

fn compile_pair(out: &std::path::Path) {
    let pair = workspace().join("fixtures/dart/pair");
    let status = Command::new(compiler())
        .arg("--out")
        .arg(out)
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
fn dart_answers() {
    let dir = tempfile::tempdir().unwrap();
    compile_pair(dir.path());
    let store = Store::open(IndexDir::new(dir.path()));
    let root = workspace()
        .join("fixtures/dart/pair")
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
        json!({"repository": "corelib", "path": "lib/src/ledger.dart", "qualified_name": "Ledger"}),
    );
    let v: Value = serde_json::from_str(&consumers).unwrap();
    assert!(
        consumers.contains("EXACT_PACKAGE_MAPPED") && consumers.contains("\"Invoice\""),
        "app's import is package-mapped and its subclass is a consumer: {v}"
    );
    insta::assert_snapshot!("dart_cross_repo_ledger", consumers);

    let refs = call(
        "find_references",
        json!({"repository": "corelib", "path": "lib/src/ledger.dart", "qualified_name": "Ledger.post"}),
    );
    assert!(refs.contains("invoice.dart"), "app's call is found: {refs}");
    insta::assert_snapshot!("dart_references_ledger_post", refs);

    let outline = call(
        "get_file_outline",
        json!({"repository": "corelib", "path": "lib/src/money.dart"}),
    );
    assert!(outline.contains("Money.add"), "{outline}");
    insta::assert_snapshot!("dart_outline_money", outline);

    let found = call("find_symbol", json!({"name": "Money", "view": "full"}));
    let v: Value = serde_json::from_str(&found).unwrap();
    assert_eq!(v["results"][0]["language"], "dart", "{v}");
    insta::assert_snapshot!("dart_find_money", found);

    let status = call("graph_status", json!({}));
    assert!(
        status.contains("PACKAGE_PROVIDER_NOT_FOUND"),
        "the external package http is counted: {status}"
    );
}
