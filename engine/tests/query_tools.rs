//! find_references, get_blast_radius, trace_dependencies and get_file_outline on the Go
//! fixtures: shapes of answers (snapshots), argument errors, verdicts, guidance and paging.

use crate::common;
use crate::common::{compile_go_fixtures, workspace};

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use kivgraph::{Store, tools};
use kivgraph_format::{Generation, IndexDir};
use serde_json::{Value, json};

/// One generation shared by the tests of this file.
fn generation() -> Arc<Generation> {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        compile_go_fixtures(&dir);
        dir
    });
    Store::open(IndexDir::new(dir)).snapshot().unwrap()
}

fn ok(tool: &str, args: Value) -> Value {
    let text = tools::call(tool, &args, Some(generation()))
        .unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn err(tool: &str, args: Value) -> String {
    tools::call(tool, &args, Some(generation()))
        .expect_err(&format!("{tool} {args} should fail"))
        .to_string()
}

fn normalize(v: &Value) -> String {
    let root = workspace().join("fixtures/go").canonicalize().unwrap();
    serde_json::to_string_pretty(v)
        .unwrap()
        .replace(root.to_str().unwrap(), "<fixtures>")
}

/// Follows `next_cursor` to the end and returns every page's results.
fn all_pages(tool: &str, args: Value, limit: u64) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut a = args.clone();
    a["limit"] = json!(limit);
    loop {
        let v = ok(tool, a.clone());
        pages.push(v.clone());
        match v.get("next_cursor").and_then(Value::as_str) {
            Some(c) => a["cursor"] = json!(c),
            None => return pages,
        }
    }
}

#[test]
fn find_references_shapes() {
    let compact = ok("find_references", json!({"name": "NewCircle"}));
    insta::assert_snapshot!("find_references_compact", normalize(&compact));
    assert_eq!(compact["results"]["qn"], "NewCircle");
    let full = ok(
        "find_references",
        json!({"name": "NewCircle", "view": "full"}),
    );
    let rows = full["results"]["references"].as_array().unwrap();
    assert_eq!(rows.len() as u64, compact["total"].as_u64().unwrap());
    for r in rows {
        for k in [
            "name",
            "qualified_name",
            "kind",
            "repository",
            "file_path",
            "start_line",
            "end_line",
            "language",
            "edge_kind",
            "confidence",
            "provenance",
        ] {
            assert!(r.get(k).is_some(), "{k} missing from {r}");
        }
    }
    // A full row of a caller of NewCircle: main in cmd/shapes, through an import.
    assert!(rows.iter().any(|r| r["qualified_name"] == "main"
        && r["edge_kind"] == "CALLS_DIRECT"
        && r["provenance"] == "GO_IMPORT_SELECTOR"));
    let files = ok(
        "find_references",
        json!({"name": "NewCircle", "view": "files"}),
    );
    let counted: u64 = files["results"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, compact["total"].as_u64().unwrap());
    assert!(
        files["results"]["files"][0]["file"]
            .as_str()
            .unwrap()
            .starts_with("shapes/")
    );
}

#[test]
fn find_references_selectors_and_errors() {
    let e = err("find_references", json!({"name": "Area"}));
    assert!(e.starts_with("AMBIGUOUS_SYMBOL: name \"Area\" declares 3 symbols; repeat with the repository and path of the one you mean: "), "{e}");
    assert!(e.contains("shapes:geo/geo.go:60"), "{e}");
    let e = err(
        "find_references",
        json!({"name": "Area", "qualified_name": "Circle.Area"}),
    );
    assert_eq!(
        e,
        "INVALID_ARGUMENT: name identifies a declaration on its own; pass stable_key or qualified_name instead, not both"
    );
    let e = err(
        "find_references",
        json!({"qualified_name": "Circle.Area", "path": "geo", "repo": "shapes"}),
    );
    assert_eq!(
        e,
        "INVALID_ARGUMENT: path is repository-relative, so it requires repository; repo only filters which repositories the answer may come from"
    );
    let e = err(
        "find_references",
        json!({"name": "NewCircle", "edge_kinds": ["*", "CALLS_DIRECT"]}),
    );
    assert_eq!(
        e,
        "INVALID_ARGUMENT: edge_kinds must be \"*\" alone or a list of canonical kinds"
    );
    let e = err(
        "find_references",
        json!({"name": "NewCircle", "edge_kinds": ["METHOD_OF"]}),
    );
    assert_eq!(
        e,
        "INVALID_ARGUMENT: edge kind \"METHOD_OF\" is unsupported for symbol references"
    );
    let e = err(
        "find_references",
        json!({"name": "NewCircle", "edge_kinds": [""]}),
    );
    assert_eq!(
        e,
        "INVALID_ARGUMENT: edge_kinds must contain non-empty canonical values"
    );
    assert!(
        err(
            "find_references",
            json!({"name": "NewCircle", "confidence": "SURE"})
        )
        .starts_with("INVALID_ARGUMENT: confidence \"SURE\"")
    );
    assert!(
        err(
            "find_references",
            json!({"name": "NewCircle", "direction": "up"})
        )
        .starts_with("INVALID_ARGUMENT: direction \"up\"")
    );
    assert!(
        err(
            "find_references",
            json!({"name": "NewCircle", "view": "tree"})
        )
        .starts_with("INVALID_ARGUMENT: view \"tree\"")
    );
    assert!(
        err(
            "find_references",
            json!({"name": "NewCircle", "limit": 501})
        )
        .starts_with("INVALID_ARGUMENT: limit must be between 1 and 500")
    );
    assert!(
        err("find_references", json!({"name": " NewCircle"})).contains("surrounding whitespace")
    );
    assert!(
        err(
            "find_references",
            json!({"name": "NewCircle", "repo": "nowhere"})
        )
        .starts_with("REPOSITORY_NOT_FOUND")
    );

    // Filters: only CALLS_DIRECT edges, only one confidence.
    let calls = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Circle.Area", "edge_kinds": ["CALLS_DIRECT"], "confidence": "CANDIDATE", "view": "full"}),
    );
    for r in calls["results"]["references"].as_array().unwrap() {
        assert_eq!(
            (r["edge_kind"].as_str(), r["confidence"].as_str()),
            (Some("CALLS_DIRECT"), Some("CANDIDATE"))
        );
    }
    assert!(
        calls["results"]
            .get("edge_kinds_default_excluded")
            .is_none()
    );
}

#[test]
fn find_references_verdicts_and_guidance() {
    // inventory has no unreadable scope: an unused symbol is a COMPLETE absence.
    let unused = ok(
        "find_references",
        json!({"repository": "inventory", "qualified_name": "Store.Len"}),
    );
    let total = unused["total"].as_u64().unwrap();
    if total == 0 {
        assert_eq!(unused["completeness"]["verdict"], "COMPLETE");
        assert!(
            unused["guidance"]
                .as_str()
                .unwrap()
                .contains("absence rather than a miss")
        );
    }
    // shapes has an unbuildable package that imports geo: an exported geo symbol is a
    // LOWER_BOUND with another sentence; an unexported one can be used only inside geo, so that
    // package cannot hold a use of it.
    let unexported = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "epsilon", "direction": "incoming"}),
    );
    assert_eq!(unexported["completeness"]["verdict"], "COMPLETE");
    let e = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Point.String", "direction": "incoming"}),
    );
    assert_eq!(e["completeness"]["verdict"], "LOWER_BOUND");
    assert_eq!(e["total"], 0);
    {
        assert!(
            e["guidance"]
                .as_str()
                .unwrap()
                .contains("completeness.blind_spots")
        );
    }
    let out = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Point", "direction": "outgoing"}),
    );
    assert_eq!(out["total"], 0);
    assert_eq!(
        out["guidance"],
        "this symbol reaches nothing in the published graph. Ask the other direction with direction=incoming"
    );
    let nonempty = ok("find_references", json!({"name": "NewCircle"}));
    assert!(nonempty.get("guidance").is_none());
}

#[test]
fn paging_gives_the_rows_of_one_unlimited_call() {
    for (tool, args, rows_at) in [
        (
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Point", "view": "full"}),
            "/results/references",
        ),
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Point", "view": "full"}),
            "/results/symbols",
        ),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "main", "view": "full"}),
            "/results/nodes",
        ),
        (
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo", "view": "full", "include_members": true}),
            "/results/files",
        ),
        (
            "find_symbol",
            json!({"name": "S", "mode": "prefix", "view": "full"}),
            "/results",
        ),
    ] {
        let whole = ok(tool, {
            let mut a = args.clone();
            a["limit"] = json!(500);
            a
        });
        let pages = all_pages(tool, args.clone(), 2);
        assert!(pages.len() > 1, "{tool}: expected several pages");
        let mut paged = Vec::new();
        for p in &pages {
            assert_eq!(p["total"], whole["total"], "{tool}");
            paged.extend(p.pointer(rows_at).unwrap().as_array().unwrap().clone());
        }
        let whole_rows = whole.pointer(rows_at).unwrap().as_array().unwrap();
        if tool == "get_file_outline" {
            // Rows are grouped by file within each page; compare the (file, symbol) rows.
            let syms = |files: &[Value]| {
                let mut v: Vec<String> = files
                    .iter()
                    .flat_map(|f| {
                        f["symbols"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(move |s| format!("{}|{s}", f["path"]))
                    })
                    .collect();
                v.sort();
                v
            };
            assert_eq!(syms(&paged), syms(whole_rows), "{tool}");
        } else {
            assert_eq!(&paged, whole_rows, "{tool}");
        }
    }
}

#[test]
fn cursors_are_bound_to_their_query_and_snapshot() {
    let first = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Point", "limit": 2}),
    );
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    // view and limit are not part of the identity: the next page can come in another view.
    let next = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Point", "limit": 3, "view": "full", "cursor": cursor}),
    );
    assert_eq!(next["returned"], 3);
    let e = err(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Point", "direction": "outgoing", "cursor": cursor}),
    );
    assert_eq!(e, "CURSOR_INVALID: cursor does not match the active query");
    let e = err(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Point", "cursor": format!("{cursor}A")}),
    );
    assert!(e.starts_with("CURSOR_INVALID"), "{e}");

    // A newer generation expires every cursor.
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let store = Store::open(IndexDir::new(dir.path()));
    let call = |args: Value| tools::call("find_references", &args, store.snapshot());
    let page1: Value = serde_json::from_str(
        &call(json!({"repository": "shapes", "qualified_name": "Point", "limit": 2})).unwrap(),
    )
    .unwrap();
    compile_go_fixtures(dir.path());
    let e = call(json!({"repository": "shapes", "qualified_name": "Point", "limit": 2, "cursor": page1["next_cursor"]})).unwrap_err();
    assert_eq!(e.code, "CURSOR_SNAPSHOT_EXPIRED");
}

#[test]
fn traversals() {
    let blast = ok(
        "get_blast_radius",
        json!({"repository": "shapes", "qualified_name": "Point"}),
    );
    insta::assert_snapshot!("get_blast_radius_compact", normalize(&blast));
    let r = &blast["results"];
    let affected = r["affected"].as_u64().unwrap();
    let sum = |v: &Value| {
        v.as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(sum(&r["by_depth"]), affected);
    assert_eq!(sum(&r["by_repository"]), affected);
    assert_eq!(
        r["by_package"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["count"].as_u64().unwrap())
            .sum::<u64>(),
        affected
    );
    assert!(sum(&r["by_kind"]) >= affected);
    assert_eq!(
        r["kinds_default_excluded"],
        json!(["field", "var", "variable"])
    );

    let all = ok(
        "get_blast_radius",
        json!({"repository": "shapes", "qualified_name": "Point", "kinds": ["*"], "view": "full"}),
    );
    assert_eq!(all["results"]["kinds"], json!(["*"]));
    assert!(all["total"].as_u64().unwrap() >= affected);
    let capped = ok(
        "get_blast_radius",
        json!({"repository": "shapes", "qualified_name": "Point", "max_nodes": 3, "view": "full"}),
    );
    assert_eq!(capped["results"]["traversal_truncated"], true);
    assert!(capped["results"]["symbols"].as_array().unwrap().len() <= 2);

    let trace = ok(
        "trace_dependencies",
        json!({"repository": "shapes", "qualified_name": "main", "depth": 1}),
    );
    insta::assert_snapshot!("trace_dependencies_compact", normalize(&trace));
    let full = ok(
        "trace_dependencies",
        json!({"repository": "shapes", "qualified_name": "main", "depth": 2, "view": "full"}),
    );
    for n in full["results"]["nodes"].as_array().unwrap() {
        for k in [
            "name",
            "qualified_name",
            "kind",
            "depth",
            "repository",
            "language",
            "file_path",
            "start_line",
            "end_line",
            "reached_from",
            "via_kind",
            "via_confidence",
            "via_provenance",
        ] {
            assert!(n.get(k).is_some(), "{k} missing from {n}");
        }
        assert!(n["depth"].as_u64().unwrap() <= 2);
    }

    assert_eq!(
        err(
            "get_blast_radius",
            json!({"qualified_name": "Point", "repository": "shapes", "depth": 6})
        ),
        "INVALID_ARGUMENT: depth must be between 1 and 5"
    );
    assert_eq!(
        err(
            "trace_dependencies",
            json!({"qualified_name": "main", "repository": "shapes", "max_nodes": 0})
        ),
        "INVALID_ARGUMENT: max_nodes must be between 1 and 25000"
    );
    assert!(
        err(
            "get_blast_radius",
            json!({"qualified_name": "Point", "repository": "shapes", "kinds": ["thing"]})
        )
        .starts_with("INVALID_ARGUMENT: kind \"thing\"")
    );
    assert!(
        err(
            "get_blast_radius",
            json!({"qualified_name": "Point", "repository": "shapes", "view": "files"})
        )
        .starts_with("INVALID_ARGUMENT: view \"files\" is unsupported for this tool")
    );
    assert!(
        err(
            "get_blast_radius",
            json!({"qualified_name": "Point", "repository": "shapes", "repo": "shapes"})
        )
        .starts_with("INVALID_ARGUMENT")
    );
    let nothing = ok(
        "trace_dependencies",
        json!({"repository": "shapes", "qualified_name": "Pi"}),
    );
    assert_eq!(nothing["total"], 0);
    assert_eq!(
        nothing["guidance"],
        "the traversal reached nothing within its bounds; raise depth, or call find_references for the direct relations only"
    );
}

#[test]
fn file_outline() {
    let compact = ok(
        "get_file_outline",
        json!({"repository": "inventory", "path": "store/"}),
    );
    insta::assert_snapshot!("get_file_outline_compact", normalize(&compact));
    assert!(
        compact.get("coverage").is_none(),
        "get_file_outline publishes no counter"
    );
    assert_eq!(compact["completeness"]["verdict"], "COMPLETE");
    let detailed = ok(
        "get_file_outline",
        json!({"repository": "inventory", "path": "store", "response_format": "detailed"}),
    );
    assert!(
        detailed.to_string().contains("func (s *Store) Add("),
        "signatures come with detailed"
    );
    assert!(!compact.to_string().contains("func (s *Store) Add("));
    let members = ok(
        "get_file_outline",
        json!({"repository": "inventory", "path": "store", "include_members": true, "view": "full"}),
    );
    assert_eq!(members["total"], compact["total"]);
    assert!(members["returned"].as_u64() > compact["returned"].as_u64());
    let files = ok(
        "get_file_outline",
        json!({"repository": "inventory", "path": "store", "view": "files"}),
    );
    assert_eq!(
        files["results"]["files"][0]["declarations"],
        compact["returned"]
    );

    assert_eq!(
        err(
            "get_file_outline",
            json!({"repository": "inventory", "path": "nowhere"})
        ),
        "SYMBOL_NOT_FOUND: no indexed file at or under \"nowhere\" in inventory"
    );
    assert_eq!(
        err(
            "get_file_outline",
            json!({"repository": "inventory", "path": "/etc"})
        ),
        "INVALID_ARGUMENT: path must be repository-relative, not absolute"
    );
    assert_eq!(
        err(
            "get_file_outline",
            json!({"repository": "inventory", "path": "store/../.."})
        ),
        "INVALID_ARGUMENT: path must not contain a .. segment"
    );
    assert!(
        err(
            "get_file_outline",
            json!({"repository": "elsewhere", "path": "store"})
        )
        .starts_with("REPOSITORY_NOT_FOUND")
    );
    assert!(
        err("get_file_outline", json!({"repository": "inventory"}))
            .starts_with("INVALID_ARGUMENT: path is required")
    );
}

/// `kivgraph query … | head`: a reader that closes the pipe before the answer is written ends
/// the command quietly (exit 0, nothing on stderr), not with a panic.
#[test]
fn a_closed_stdout_ends_query_quietly() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(dir.path())
        .args([
            "query",
            "get_file_outline",
            r#"{"repository":"shapes","path":"."}"#,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?} {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A name declared hundreds of times: the AMBIGUOUS_SYMBOL message lists candidates as
/// `repository:path:line` while they fit the error budget, then counts the rest, and every
/// candidate is either listed or counted.
#[test]
fn an_ambiguous_name_with_hundreds_of_declarations_lists_what_fits_and_counts_the_rest() {
    let src = tempfile::tempdir().unwrap();
    std::fs::write(
        src.path().join("go.mod"),
        "module example.com/many\n\ngo 1.21\n",
    )
    .unwrap();
    for i in 0..800 {
        let dir = src.path().join(format!("pkg{i:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("run.go"),
            format!("package pkg{i:03}\n\nfunc Run() {{}}\n"),
        )
        .unwrap();
    }
    let index = tempfile::tempdir().unwrap();
    common::compile_into(index.path(), [format!("many={}", src.path().display())]);
    let g = Store::open(IndexDir::new(index.path())).snapshot().unwrap();
    let e = tools::call("find_references", &json!({"name": "Run"}), Some(g)).unwrap_err();
    assert_eq!(e.code, "AMBIGUOUS_SYMBOL", "{e}");
    let m = &e.message;
    assert!(m.len() <= tools::MAX_ERROR_BYTES, "{}", m.len());
    assert!(m.starts_with("name \"Run\" declares 800 symbols; repeat with the repository and path of the one you mean: many:pkg"), "{m}");
    let (list, rest) = m.rsplit_once(", … and ").unwrap_or_else(|| panic!("{m}"));
    let more: usize = rest
        .strip_suffix(" more; narrow with repository or path")
        .unwrap_or_else(|| panic!("{rest}"))
        .parse()
        .unwrap();
    let listed = list.matches("many:pkg").count();
    assert!(listed > 100 && more > 100, "{listed} {more}");
    assert_eq!(listed + more, 800);
}

/// For every symbol of the Go fixtures, a blast-radius walk's kinds per reached symbol are the
/// definition's: the distinct followed kinds of its edges, either direction, with any visited
/// symbol (the root included), read here from both of its rows.
#[test]
fn the_kinds_each_reached_symbol_has_with_the_walk_are_the_definitions() {
    use kivgraph::query::{self, Direction, WalkSpec};
    use kivgraph_format::EdgeKind;
    let g = generation();
    let b = g.graph();
    let kinds: Vec<EdgeKind> = EdgeKind::ALL
        .iter()
        .copied()
        .filter(|k| k.is_reference())
        .collect();
    let mut checked = 0;
    for root in 0..b.symbols.len() as u32 {
        for depth in [1, 3] {
            let spec = WalkSpec {
                direction: Direction::Incoming,
                depth,
                max_nodes: 5000,
                kinds: kinds.clone(),
                confidence: None,
                blast: true,
            };
            let walk = query::walk(&g, root, &spec);
            assert_eq!(walk.kinds_touching.len(), walk.nodes.len());
            let mut visited: std::collections::HashSet<u32> =
                walk.nodes.iter().map(|n| n.id).collect();
            visited.insert(root);
            for e in b.reverse.row(root) {
                if e.kind == EdgeKind::MethodOf.code() {
                    visited.insert(e.other.to_native());
                }
            }
            for (n, got) in walk.nodes.iter().zip(&walk.kinds_touching) {
                let mut want: Vec<EdgeKind> = b
                    .forward
                    .row(n.id)
                    .iter()
                    .chain(b.reverse.row(n.id))
                    .filter(|e| visited.contains(&e.other.to_native()))
                    .filter_map(|e| EdgeKind::from_code(e.kind))
                    .filter(|k| kinds.contains(k))
                    .collect();
                want.sort();
                want.dedup();
                assert_eq!(got, &want, "root {root} depth {depth} node {}", n.id);
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "{checked}");
}
