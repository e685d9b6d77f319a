//! The MCP answers on Rust: the fixture pair `acme-corelib` (corelib) and its consumer
//! `acme-app` (app, a workspace with the member `extras`), compiled together without the
//! standard library. The rendered answers are snapshots; the assertions pin what the snapshots
//! must show (cross-repository confidence, module paths as packages, the standard library's
//! absence recorded rather than ignored).

use crate::pair::Pair;
use serde_json::{Value, json};

#[test]
fn rust_answers() {
    let pair = Pair::compile(
        "rust/pair",
        &[("corelib", "corelib"), ("app", "app")],
        &["--rust-sysroot", "off"],
    );
    let call = |tool: &str, args: Value| pair.answer(tool, args);

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

/// get_file_outline lists a module declared inline (`mod x { … }`, nested too) as a declaration
/// of its file, with the lines of its block; the module a file is (its symbol spans the whole
/// file) is not a declaration in it.
#[test]
fn rust_outline_lists_inline_modules() {
    let geo = Pair::compile("rust", &[("geo", "geo")], &["--rust-sysroot", "off"]);
    let modules = |path: &str| -> Vec<String> {
        let v: Value = serde_json::from_str(&geo.answer(
            "get_file_outline",
            json!({"repository": "geo", "path": path, "kind": "module", "view": "full"}),
        ))
        .unwrap();
        let mut rows: Vec<String> = v["results"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["symbols"].as_array().unwrap().clone())
            .map(|s| {
                format!(
                    "{}@{}-{}",
                    s["qualified_name"].as_str().unwrap(),
                    s["start_line"],
                    s["end_line"]
                )
            })
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(
        modules("crates/geo-core/src/dispatch.rs"),
        [
            "geo_core::dispatch::anonymous@102-110",
            "geo_core::dispatch::outer::inner@68-72",
            "geo_core::dispatch::outer@63-73",
        ]
    );
    // lib.rs is the crate root `geo_core`: only its inline modules are listed.
    assert_eq!(
        modules("crates/geo-core/src/lib.rs"),
        [
            "geo_core::layout::grid@35-48",
            "geo_core::layout@32-53",
            "geo_core::tests@56-78",
        ]
    );
    // Without a kind, the modules are listed among the other declarations.
    let all = geo.answer(
        "get_file_outline",
        json!({"repository": "geo", "path": "crates/geo-core/src/lib.rs"}),
    );
    assert!(all.contains("\"module\""), "{all}");
}
