//! The engine answers from the committed generation of every supported format version.

use std::path::Path;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::json;

#[test]
fn engine_answers_from_compat_generation_v1() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format-spec/compat/v1");
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
