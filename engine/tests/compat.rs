//! The engine answers from the committed generation of every supported format version, and
//! refuses one of an older version with a coded error that says what to do.

use std::path::Path;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::json;

#[test]
fn engine_answers_from_compat_generation_v2() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format-spec/compat/v2");
    let store = Store::open(IndexDir::new(dir));
    let text = tools::call(
        "find_symbol",
        &json!({"name": "Add", "view": "full"}),
        store.snapshot(),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["snapshot_id"], 1);
    let rows = v["results"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| r["qualified_name"] == "Store.Add"
            && r["repository"] == "inventory"
            && r["kind"] == "method"),
        "{text}"
    );
}

/// Version 1 framed the blob without block sums: it is refused, naming both versions and the
/// remedy, never read as if it were version 2.
#[test]
fn a_generation_of_format_version_1_is_refused_with_the_remedy() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format-spec/compat/v1");
    let store = Store::open(IndexDir::new(dir));
    let e = tools::call_store("find_symbol", &json!({"name": "Add"}), &store).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("INDEX_NOT_READY: generation 000001 cannot be served"),
        "{text}"
    );
    assert!(
        text.contains("generation format version 1, this build reads version 2")
            && text.contains("recompile"),
        "{text}"
    );
}
