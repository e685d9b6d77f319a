//! The MCP answers on Python: the fixture pair `acme-corelib` (corelib) and its consumer app,
//! compiled together. The rendered answers are snapshots; the assertions pin what the snapshots
//! must show (cross-repository confidence, the dotted module as package).

mod common;
use common::{compiler, workspace};

use std::process::Command;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

fn compile_pair(out: &std::path::Path) {
    let pair = workspace().join("fixtures/python/pair");
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
fn python_answers() {
    let dir = tempfile::tempdir().unwrap();
    compile_pair(dir.path());
    let store = Store::open(IndexDir::new(dir.path()));
    let root = workspace()
        .join("fixtures/python/pair")
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
        json!({"repository": "corelib", "qualified_name": "Money"}),
    );
    let v: Value = serde_json::from_str(&consumers).unwrap();
    assert_eq!(v["results"]["confidence"], "EXACT_PACKAGE_MAPPED", "{v}");
    assert!(
        v["coverage"]["package_level"].as_u64().unwrap() >= 1,
        "the module dependency is recorded: {v}"
    );
    insta::assert_snapshot!("py_cross_repo_money", consumers);

    let outline = call(
        "get_file_outline",
        json!({"repository": "corelib", "path": "src/acme_corelib/money.py"}),
    );
    assert!(outline.contains("Money"), "{outline}");
    insta::assert_snapshot!("py_outline_money", outline);

    let found = call("find_symbol", json!({"name": "Ledger", "view": "full"}));
    let v: Value = serde_json::from_str(&found).unwrap();
    assert_eq!(v["results"][0]["language"], "python", "{v}");
    insta::assert_snapshot!("py_find_ledger", found);
}
