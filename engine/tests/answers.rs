//! The exact text of every tool's answer on the fixture graph, in each view it supports: these
//! snapshots make any change of spelling visible in review.

use crate::common::{compile_go_fixtures, workspace};

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

/// Replaces what differs between machines and runs: absolute roots, ages, times, commits.
fn normalize(text: &str) -> String {
    let root = workspace().join("fixtures/go").canonicalize().unwrap();
    let Ok(mut v) = serde_json::from_str::<Value>(text) else {
        return text.replace(root.to_str().unwrap(), "<fixtures>");
    };
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| {
                    !matches!(
                        k.as_str(),
                        "indexed_dirty" | "indexed_branch" | "current_branch"
                    )
                });
                for (k, x) in m.iter_mut() {
                    if k.ends_with("age_ms") && x.is_number() {
                        *x = json!(0);
                    } else if (k == "snapshot_built_at" || k.ends_with("_commit")) && x.is_string()
                    {
                        *x = json!("<varies>");
                    } else {
                        walk(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut v);
    serde_json::to_string_pretty(&v)
        .unwrap()
        .replace(root.to_str().unwrap(), "<fixtures>")
}

#[test]
fn every_tool_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let store = Store::open(IndexDir::new(dir.path()));
    let cases: &[(&str, &str, Value)] = &[
        (
            "find_references_grouped",
            "find_references",
            json!({"name": "NewCircle"}),
        ),
        (
            "find_references_full",
            "find_references",
            json!({"name": "NewCircle", "view": "full"}),
        ),
        (
            "find_references_files",
            "find_references",
            json!({"name": "NewCircle", "view": "files"}),
        ),
        (
            "find_references_truncated",
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Point", "limit": 3}),
        ),
        (
            "find_references_empty_complete",
            "find_references",
            json!({"repository": "inventory", "qualified_name": "Store.Len"}),
        ),
        (
            "find_references_empty_lower_bound",
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Unit"}),
        ),
        (
            "get_blast_radius_full",
            "get_blast_radius",
            json!({"repository": "inventory", "qualified_name": "Item", "view": "full"}),
        ),
        (
            "trace_dependencies_full",
            "trace_dependencies",
            json!({"repository": "inventory", "qualified_name": "main", "depth": 1, "view": "full"}),
        ),
        (
            "find_symbol_grouped",
            "find_symbol",
            json!({"name": "S", "mode": "prefix"}),
        ),
        (
            "find_symbol_truncated",
            "find_symbol",
            json!({"name": "S", "mode": "prefix", "limit": 2}),
        ),
        (
            "get_file_outline_full",
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo/measure.go", "view": "full"}),
        ),
        (
            "get_file_outline_files",
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo", "view": "files"}),
        ),
        (
            "get_file_outline_detailed",
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo/measure.go", "response_format": "detailed"}),
        ),
        (
            "get_symbol_detailed",
            "get_symbol",
            json!({"repository": "inventory", "qualified_name": "Store", "response_format": "detailed"}),
        ),
        ("graph_status", "graph_status", json!({})),
        (
            "get_source_context",
            "get_source",
            json!({"symbols": [{"repository": "inventory", "qualified_name": "Store.Len"}], "context_lines": 2}),
        ),
    ];
    for (name, tool, args) in cases {
        let text = match tools::call(tool, args, store.snapshot()) {
            Ok(t) => t,
            Err(e) => panic!("{tool} {args}: {e}"),
        };
        insta::assert_snapshot!(*name, normalize(&text));
    }
}
