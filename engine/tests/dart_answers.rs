//! The MCP answers on Dart: the fixture pair `acme_core` (corelib) and its consumer `acme_app`
//! (app), compiled together. The rendered answers are snapshots; the assertions pin what the
//! snapshots must show (cross-repository confidence, libraries named by their `package:` URI,
//! an external package recorded as unresolved).

use crate::pair::Pair;
use serde_json::{Value, json};

#[test]
fn dart_answers() {
    let pair = Pair::compile("dart/pair", &[("corelib", "corelib"), ("app", "app")], &[]);
    let call = |tool: &str, args: Value| pair.answer(tool, args);

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
