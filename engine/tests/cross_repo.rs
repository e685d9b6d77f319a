//! find_cross_repo_consumers on the fixture pair: `app` consumes `mathlib`'s package `vec`.

use crate::common::{compile_into, workspace};

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

#[test]
fn consumers_across_repositories() {
    let dir = tempfile::tempdir().unwrap();
    let pair = workspace().join("fixtures/go/pair");
    compile_into(
        dir.path(),
        [
            format!("mathlib={}", pair.join("mathlib").display()),
            format!("app={}", pair.join("app").display()),
        ],
    );
    let store = Store::open(IndexDir::new(dir.path()));
    let call = |args: Value| -> Value {
        serde_json::from_str(
            &tools::call("find_cross_repo_consumers", &args, store.snapshot()).unwrap(),
        )
        .unwrap()
    };

    let add = call(json!({"repository": "mathlib", "qualified_name": "Add"}));
    let root = pair.canonicalize().unwrap();
    insta::assert_snapshot!(
        "cross_repo_add_compact",
        serde_json::to_string_pretty(&add)
            .unwrap()
            .replace(root.to_str().unwrap(), "<pair>")
    );
    assert_eq!(
        add["coverage"],
        json!({"exact": 1, "package_level": 2}),
        "package dependencies are never folded into exact"
    );
    let full = call(json!({"repository": "mathlib", "qualified_name": "Add", "view": "full"}));
    let consumers = full["results"]["consumers"].as_array().unwrap();
    let exact = consumers
        .iter()
        .find(|c| c["category"] == "exact_symbol")
        .unwrap();
    assert_eq!(
        (
            exact["repository"].as_str(),
            exact["qualified_name"].as_str()
        ),
        (Some("app"), Some("main"))
    );
    assert_eq!(exact["confidence"], "EXACT_PACKAGE_MAPPED");
    let package = consumers
        .iter()
        .find(|c| c["category"] == "package")
        .unwrap();
    assert!(
        package.get("file_path").is_none(),
        "a package dependency has no file"
    );
    assert_eq!(
        package["package_name"],
        json!(["example.com/app/cmd/app", "example.com/app/stats"])
    );

    // Uses inside the provider's own repository are not consumers.
    let local = call(json!({"repository": "mathlib", "qualified_name": "local"}));
    assert!(!local.to_string().contains("\"mathlib\",\"pkg\""));
    // Nobody outside app uses app's stats.Count.
    let none = call(json!({"repository": "app", "qualified_name": "Count"}));
    assert_eq!(none["total"], 0);
    assert_eq!(
        none["guidance"],
        "no repository in the published graph consumes this symbol. Check graph_status if a consumer is registered but was not indexed, and find_references for uses inside its own repository"
    );
    let empty_full = call(json!({"repository": "app", "qualified_name": "Count", "view": "full"}));
    assert_eq!(empty_full["results"]["consumers"], Value::Null);
    let filtered =
        call(json!({"repository": "mathlib", "qualified_name": "Add", "repo": "mathlib"}));
    assert_eq!(filtered["total"], 0);
    let e = tools::call(
        "find_cross_repo_consumers",
        &json!({"repository": "mathlib", "qualified_name": "Add", "view": "files"}),
        store.snapshot(),
    )
    .unwrap_err();
    assert_eq!(e.code, "INVALID_ARGUMENT");
    let e = tools::call(
        "find_cross_repo_consumers",
        &json!({"repository": "mathlib", "qualified_name": "Add", "include_derived": true}),
        store.snapshot(),
    )
    .unwrap_err();
    assert_eq!(
        e.code, "INVALID_ARGUMENT",
        "find_cross_repo_consumers takes no include_derived"
    );
}
