//! The MCP answers on TypeScript: the fixture pair `@acme/corelib` (corelib) and its consumer
//! webapp, compiled together. The rendered answers are snapshots; the assertions pin what the
//! snapshots must show (cross-repository confidence, the module as package).

use crate::pair::Pair;
use serde_json::{Value, json};

#[test]
fn typescript_answers() {
    let pair = Pair::compile(
        "ts/pair",
        &[("corelib", "corelib"), ("webapp", "webapp")],
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
    insta::assert_snapshot!("ts_cross_repo_money", consumers);

    let refs = call(
        "find_references",
        json!({"repository": "corelib", "path": "src/money.ts", "qualified_name": "Money.plus", "view": "full"}),
    );
    let v: Value = serde_json::from_str(&refs).unwrap();
    assert!(v["total"].as_u64().unwrap() >= 1, "{v}");
    insta::assert_snapshot!("ts_references_money_plus", refs);

    let outline = call(
        "get_file_outline",
        json!({"repository": "corelib", "path": "src/money.ts"}),
    );
    assert!(outline.contains("Money.plus"), "{outline}");
    insta::assert_snapshot!("ts_outline_money", outline);

    let symbol = call(
        "get_symbol",
        json!({"repository": "webapp", "path": "packages/app/src/invoice.ts", "qualified_name": "Invoice"}),
    );
    insta::assert_snapshot!("ts_symbol_invoice", symbol);

    let found = call("find_symbol", json!({"name": "Ledger", "view": "full"}));
    let v: Value = serde_json::from_str(&found).unwrap();
    assert_eq!(v["results"][0]["language"], "typescript", "{v}");
    assert_eq!(v["results"][0]["file_path"], "src/ledger.ts", "{v}");
}
