//! No answer carries a path of the machine that compiled the graph: the fixtures are copied to a
//! checkout under a unique directory, compiled, packed, pulled into an index elsewhere, and the
//! checkout removed; then every query tool answers questions that reach every kind of row,
//! completeness block and error, and no answer names that directory.

use crate::common::{compile_into, compiler, workspace};
#[path = "../../compiler/tests/shared/mod.rs"]
mod shared;
use shared::copy_dir;

use std::process::Command;
use std::sync::Arc;

use kivgraph_format::{Generation, IndexDir};
use serde_json::{Value, json};

/// A graph compiled on a "machine": `repos` (name, directory under `fixtures/`) are copied to the
/// same directories of a checkout under a unique directory, compiled (with `extra` arguments), packed, pulled into an
/// index elsewhere, and the machine's directory removed. Returns the pulled index's directory,
/// its generation, and the two strings no answer may contain.
fn compiled_elsewhere(
    repos: &[(&str, &str)],
    extra: &[&str],
) -> (tempfile::TempDir, Arc<Generation>, [String; 2]) {
    let machine = tempfile::tempdir().unwrap();
    let checkout = machine.path().join("checkout-7f3a9c");
    let fixtures = workspace().join("fixtures");
    for (_, dir) in repos {
        copy_dir(&fixtures.join(dir), &checkout.join(dir));
    }
    let index = machine.path().join("index");
    compile_into(
        &index,
        extra.iter().map(|e| e.to_string()).chain(
            repos
                .iter()
                .map(|(n, d)| format!("{n}={}", checkout.join(d).display())),
        ),
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
    let needles = [
        checkout.to_string_lossy().into_owned(),
        machine.path().to_string_lossy().into_owned(),
    ];
    drop(machine);
    let g = Arc::new(
        Generation::open_current(&IndexDir::new(&pulled))
            .unwrap()
            .unwrap(),
    );
    (elsewhere, g, needles)
}

/// Asks every call and fails on an answer (or error) naming the machine; returns how many
/// answered without an error.
fn ask_all(g: &Arc<Generation>, needles: &[String; 2], calls: &[(&str, Value)]) -> usize {
    let mut answered = 0;
    for (tool, args) in calls {
        // An error is an answer too: its message must not name the machine either.
        let text = match kivgraph::tools::call(tool, args, Some(g.clone())) {
            Ok(t) => {
                answered += 1;
                t
            }
            Err(e) => e.to_string(),
        };
        for n in needles {
            assert!(
                !text.contains(n.as_str()),
                "{tool} {args} names the compiling machine: {text}"
            );
        }
    }
    answered
}

#[test]
fn no_answer_of_any_tool_names_the_compiling_machines_paths() {
    let (_elsewhere, g, needles) = compiled_elsewhere(
        &[
            ("shapes", "go/shapes"),
            ("inventory", "go/inventory"),
            ("app", "go/pair/app"),
            ("mathlib", "go/pair/mathlib"),
        ],
        &[],
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
    // Every call answers (get_source too: it says the sources are not on this machine).
    assert_eq!(ask_all(&g, &needles, &calls), calls.len());
}

/// Every fixture repository of the five languages, compiled on one machine and served on
/// another: every symbol asked about with every symbol tool (both directions, every view), every
/// file outlined, every declared name looked up. No answer and no error names the machine.
#[test]
fn no_answer_about_any_fixture_symbol_names_the_compiling_machine() {
    let repos: Vec<(String, &str)> = shared::REPOS
        .iter()
        .map(|dir| (dir.replace('/', "-"), *dir))
        .collect();
    let repos: Vec<(&str, &str)> = repos.iter().map(|(n, d)| (n.as_str(), *d)).collect();
    let (_elsewhere, g, needles) = compiled_elsewhere(&repos, &["--rust-sysroot", "off"]);
    let b = g.graph();
    let st = &b.strings;
    let mut calls: Vec<(&str, Value)> = vec![
        ("graph_status", json!({})),
        ("list_repositories", json!({})),
    ];
    let mut names = std::collections::BTreeSet::new();
    for s in b.symbols.iter() {
        if b.repositories[s.repository.to_native() as usize].derived {
            continue;
        }
        let key = st.get(s.key.to_native());
        names.insert(st.get(s.name.to_native()));
        calls.push(("get_symbol", json!({"stable_key": key})));
        calls.push(("get_source", json!({"symbols": [{"stable_key": key}]})));
        for view in ["compact", "full"] {
            let a = json!({"stable_key": key, "view": view, "response_format": "detailed"});
            calls.push(("find_references", a.clone()));
            let mut out = a.clone();
            out["direction"] = json!("outgoing");
            calls.push(("find_references", out));
            calls.push(("find_cross_repo_consumers", a.clone()));
            let mut deep = a.clone();
            deep["depth"] = json!(2);
            calls.push(("get_blast_radius", deep.clone()));
            calls.push(("trace_dependencies", deep));
        }
    }
    for f in b.files.iter() {
        let repo = st.get(
            b.repositories[f.repository.to_native() as usize]
                .name
                .to_native(),
        );
        let path = st.get(f.path.to_native());
        for view in ["compact", "full"] {
            calls.push((
                "get_file_outline",
                json!({"repository": repo, "path": path, "view": view}),
            ));
        }
    }
    for name in names {
        calls.push(("find_symbol", json!({"name": name, "view": "full"})));
        calls.push(("find_references", json!({"name": name})));
        calls.push(("find_by_intent", json!({"intent": name})));
    }
    let answered = ask_all(&g, &needles, &calls);
    // Errors are allowed (a name declared twice is ambiguous), but most calls answer.
    assert!(
        answered * 10 >= calls.len() * 9,
        "{answered} of {} calls answered",
        calls.len()
    );
}
