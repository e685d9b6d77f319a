//! The MCP answers on Python: the fixture pair `acme-corelib` (corelib) and its consumer app,
//! compiled together. The rendered answers are snapshots; the assertions pin what the snapshots
//! must show (cross-repository confidence, the dotted module as package).

use crate::pair::Pair;
use serde_json::{Value, json};

#[test]
fn python_answers() {
    let pair = Pair::compile(
        "python/pair",
        &[("corelib", "corelib"), ("app", "app")],
        &[],
    );
    let call = |tool: &str, args: Value| pair.answer(tool, args);

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
