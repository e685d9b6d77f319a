//! No answer carries a path of the machine that compiled the graph: the fixtures are copied to a
//! checkout under a unique directory, compiled, packed, pulled into an index elsewhere, and the
//! checkout removed; then every query tool answers questions that reach every kind of row,
//! completeness block and error, and no answer names that directory.

mod common;
use common::{compile_into, compiler, workspace};

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use kivgraph_format::{Generation, IndexDir};
use serde_json::{Value, json};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn no_answer_of_any_tool_names_the_compiling_machines_paths() {
    let machine = tempfile::tempdir().unwrap();
    let checkout = machine.path().join("checkout-7f3a9c");
    let fixtures = workspace().join("fixtures/go");
    for (name, dir) in [
        ("shapes", "shapes"),
        ("inventory", "inventory"),
        ("app", "pair/app"),
        ("mathlib", "pair/mathlib"),
    ] {
        copy_dir(&fixtures.join(dir), &checkout.join(name));
    }
    let index = machine.path().join("index");
    compile_into(
        &index,
        ["shapes", "inventory", "app", "mathlib"]
            .map(|n| format!("{n}={}", checkout.join(n).display())),
    );
    let file = machine.path().join("graph.kgpack");
    let o = Command::new(compiler())
        .arg("pack")
        .arg(&index)
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");

    let elsewhere = tempfile::tempdir().unwrap();
    let pulled = elsewhere.path().join("index");
    let o = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(&pulled)
        .arg("pull")
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let needle = checkout.to_string_lossy().into_owned();
    let machine_dir = machine.path().to_string_lossy().into_owned();
    drop(machine);

    let g = Arc::new(
        Generation::open_current(&IndexDir::new(&pulled))
            .unwrap()
            .unwrap(),
    );
    let subjects = [
        json!({"repository": "shapes", "qualified_name": "NewCircle"}),
        json!({"repository": "mathlib", "qualified_name": "Add"}),
        json!({"repository": "shapes", "qualified_name": "main"}),
        json!({"repository": "mathlib", "qualified_name": "Vec.Len"}),
    ];
    let mut calls: Vec<(&str, Value)> = vec![
        ("graph_status", json!({})),
        ("list_repositories", json!({})),
        ("find_symbol", json!({"name": "DefaultCircle"})),
        (
            "find_symbol",
            json!({"name": "Circle", "mode": "substring", "view": "full"}),
        ),
        ("find_by_intent", json!({"intent": "area of a circle"})),
        (
            "get_file_outline",
            json!({"repository": "shapes", "path": "."}),
        ),
        (
            "get_file_outline",
            json!({"repository": "shapes", "path": "winonly", "view": "full"}),
        ),
        ("get_source", json!({"symbols": [subjects[0].clone()]})),
    ];
    for s in &subjects {
        for view in ["compact", "full"] {
            let with = |extra: Value| {
                let mut a = s.clone();
                a["view"] = json!(view);
                a["response_format"] = json!("detailed");
                for (k, v) in extra.as_object().unwrap() {
                    a[k] = v.clone();
                }
                a
            };
            calls.push(("get_symbol", s.clone()));
            calls.push(("find_references", with(json!({}))));
            calls.push(("find_references", with(json!({"direction": "outgoing"}))));
            calls.push(("get_blast_radius", with(json!({}))));
            calls.push(("trace_dependencies", with(json!({}))));
            calls.push(("find_cross_repo_consumers", with(json!({}))));
        }
    }
    let mut answered = 0;
    for (tool, args) in &calls {
        // An error is an answer too: its message must not name the machine either.
        let text = match kivgraph::tools::call(tool, args, Some(g.clone())) {
            Ok(t) => {
                answered += 1;
                t
            }
            Err(e) => e.to_string(),
        };
        assert!(
            !text.contains(&needle) && !text.contains(&machine_dir),
            "{tool} {args} names the compiling machine: {text}"
        );
    }
    // Every call answers (get_source too: it says the sources are not on this machine).
    assert_eq!(answered, calls.len());
}
