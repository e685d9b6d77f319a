//! The Rust standard library as the derived repository `rust:<release>`: the fixture crate
//! `stduse` compiled with the stand-in standard library `fixtures/rust/sysroot/library` as
//! `rust:1.95.0`. Its uses of `std` bind into the derived repository, whose rows the tools
//! withhold unless `include_derived` (or `repo`) asks for them, and which list_repositories
//! marks as derived, without a commit.

use crate::common::{compile_into, workspace};

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

fn store() -> &'static Store {
    static STORE: std::sync::OnceLock<Store> = std::sync::OnceLock::new();
    STORE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let rust = workspace().join("fixtures/rust");
        compile_into(
            &dir,
            [
                format!("stduse={}", rust.join("stduse").display()),
                "--derived".into(),
                format!("rust:1.95.0={}", rust.join("sysroot/library").display()),
            ],
        );
        Store::open(IndexDir::new(dir))
    })
}

fn call(tool: &str, args: Value) -> Value {
    serde_json::from_str(&tools::call(tool, &args, store().snapshot()).unwrap()).unwrap()
}

#[test]
fn the_standard_library_is_a_derived_repository() {
    let repos = call("list_repositories", json!({}));
    let row = repos["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "rust:1.95.0")
        .unwrap_or_else(|| panic!("no rust:1.95.0 in {repos}"))
        .clone();
    assert_eq!(row["derived"], true, "{row}");
    assert!(row.get("commit").is_none_or(Value::is_null), "{row}");

    // find_symbol withholds the derived rows unless asked.
    let hidden = call("find_symbol", json!({"name": "HashMap", "view": "full"}));
    let shown = call(
        "find_symbol",
        json!({"name": "HashMap", "view": "full", "include_derived": true}),
    );
    let repos_of = |v: &Value| -> Vec<String> {
        v["results"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| r["repository"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        !repos_of(&hidden).iter().any(|r| r.starts_with("rust:")),
        "{hidden}"
    );
    assert!(
        repos_of(&shown).iter().any(|r| r == "rust:1.95.0"),
        "{shown}"
    );

    // The crate's uses of std reach the derived repository only when asked.
    let deps = |extra: Value| -> String {
        let mut a = json!({"repository": "stduse", "path": "src/lib.rs", "qualified_name": "places", "depth": 1, "view": "full"});
        for (k, v) in extra.as_object().unwrap() {
            a[k] = v.clone();
        }
        call("trace_dependencies", a).to_string()
    };
    let without = deps(json!({}));
    let with = deps(json!({"include_derived": true}));
    assert!(!without.contains("rust:1.95.0"), "{without}");
    assert!(
        with.contains("rust:1.95.0") && with.contains("HashMap::len"),
        "{with}"
    );

    // graph_status breaks the derived repository out.
    let status = call("graph_status", json!({}));
    let derived = &status["results"]["derived"];
    assert_eq!(derived["repositories"], json!(["rust:1.95.0"]), "{status}");
    assert!(
        derived["edges_inbound"].as_u64().unwrap() > 0,
        "stduse's uses of std are inbound edges: {status}"
    );
}
