//! Drives `kivgraph serve` over stdio with real JSON-RPC, against generations compiled from the
//! Go fixtures by the real `kivgraph-compile` binary.

use crate::common::{compile_go_fixtures, compiler, workspace};

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(index: &Path) -> Session {
        Session::start_with(index, &[])
    }

    /// `kivgraph serve ARGS… --index INDEX`, running the compiler of this build.
    fn start_with(index: &Path, args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
            .arg("serve")
            .args(args)
            .env("KIVGRAPH_COMPILE", compiler())
            .arg("--index")
            .arg(index)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    fn send(&mut self, v: Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    /// Sends a request; returns (notifications received first, response).
    fn request(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut notes = Vec::new();
        loop {
            let m = self.read();
            if m.get("id") == Some(&json!(id)) {
                return (notes, m);
            }
            notes.push(m);
        }
    }

    /// Calls a tool; returns (is_error, text).
    fn call(&mut self, tool: &str, args: Value) -> (bool, String) {
        let (_, r) = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &r["result"];
        assert!(
            result.get("structuredContent").is_none(),
            "answers travel once, as text"
        );
        let content = result["content"].as_array().unwrap();
        assert_eq!(content.len(), 1);
        (
            result["isError"].as_bool().unwrap_or(false),
            content[0]["text"].as_str().unwrap().to_string(),
        )
    }

    fn call_json(&mut self, tool: &str, args: Value) -> Value {
        let (err, text) = self.call(tool, args);
        assert!(!err, "{tool} failed: {text}");
        serde_json::from_str(&text).unwrap()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Replaces what differs between machines and runs: absolute fixture roots and ages.
fn normalize(text: &str) -> String {
    let root = workspace().join("fixtures/go").canonicalize().unwrap();
    let mut v: Value = serde_json::from_str(text).unwrap();
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k.ends_with("_commit") && x.is_string() {
                        *x = json!("<git>");
                    } else if k.ends_with("age_ms") && x.is_number() {
                        *x = json!(0);
                    } else if k == "snapshot_built_at" && x.is_string() {
                        *x = json!("<time>");
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
    // Whether the checkout has uncommitted changes depends on when the test runs.
    if let Some(rows) = v.pointer_mut("/results").and_then(Value::as_array_mut) {
        for r in rows {
            if let Some(m) = r.as_object_mut() {
                // A clone may be on a branch or a detached HEAD.
                for k in ["indexed_dirty", "indexed_branch", "current_branch"] {
                    m.shift_remove(k);
                }
            }
        }
    }
    serde_json::to_string_pretty(&v)
        .unwrap()
        .replace(root.to_str().unwrap(), "<fixtures>")
}

fn initialize(s: &mut Session) -> Value {
    let (_, init) = s.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}));
    s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    init
}

#[test]
fn serves_the_published_generation_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let mut s = Session::start(dir.path());

    let init = initialize(&mut s);
    let r = &init["result"];
    assert_eq!(r["protocolVersion"], "2025-06-18");
    assert_eq!(r["serverInfo"]["name"], "kivgraph");
    assert_eq!(
        r["instructions"].as_str().unwrap(),
        kivgraph::tools::INSTRUCTIONS
    );
    assert_eq!(r["instructions"].as_str().unwrap().split("\n\n").count(), 4);

    let (_, list) = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "find_references",
            "get_blast_radius",
            "trace_dependencies",
            "find_cross_repo_consumers",
            "find_symbol",
            "find_by_intent",
            "get_symbol",
            "get_file_outline",
            "get_source",
            "list_repositories",
            "graph_status",
            "index_project"
        ]
    );
    let meta = |name: &str, key: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .and_then(|t| t.pointer(&format!("/_meta/{key}")).cloned())
    };
    assert_eq!(
        meta("find_symbol", "anthropic~1alwaysLoad"),
        Some(json!(true))
    );
    assert_eq!(
        meta("get_blast_radius", "anthropic~1maxResultSizeChars"),
        Some(json!(120000))
    );
    assert_eq!(meta("graph_status", "anthropic~1alwaysLoad"), None);
    for t in tools {
        assert!(t.get("outputSchema").is_none());
        assert!(
            !t["description"]
                .as_str()
                .unwrap()
                .chars()
                .any(|c| c.is_ascii_digit())
        );
        let read_only = t["annotations"]["readOnlyHint"].as_bool().unwrap();
        assert_eq!(read_only, t["name"] != "index_project", "{}", t["name"]);
    }

    let compact = s.call_json("find_symbol", json!({"name": "Area"}));
    insta::assert_snapshot!("find_symbol_compact", normalize(&compact.to_string()));
    assert!(compact.get("snapshot_age_ms").is_none() && compact.get("truncated").is_none());
    let full = s.call_json("find_symbol", json!({"name": "Area", "view": "full"}));
    insta::assert_snapshot!("find_symbol_full", normalize(&full.to_string()));
    assert_eq!(full["truncated"], false);
    assert_eq!(
        full["results"].as_array().unwrap().len(),
        compact["returned"].as_u64().unwrap() as usize
    );
    // Rows span two repositories: `at` carries the repository and kinds group.
    let across = s.call_json("find_symbol", json!({"name": "String"}));
    insta::assert_snapshot!(
        "find_symbol_across_repositories",
        normalize(&across.to_string())
    );

    let (err, text) = s.call(
        "get_symbol",
        json!({"repository": "shapes", "qualified_name": "NoSuchThing"}),
    );
    assert!(err);
    assert_eq!(
        text,
        "SYMBOL_NOT_FOUND: qualified name \"NoSuchThing\" was not found under shapes; call it without repository and path to search the whole graph"
    );
    let got = s.call_json(
        "get_symbol",
        json!({"repository": "shapes", "path": "geo", "qualified_name": "Circle.Area"}),
    );
    insta::assert_snapshot!("get_symbol", normalize(&got.to_string()));
    let (err, text) = s.call(
        "get_symbol",
        json!({"qualified_name": "Circle.Area", "stable_key": "X"}),
    );
    assert!(
        err && text
            .starts_with("INVALID_ARGUMENT: pass either stable_key or qualified_name, not both"),
        "{text}"
    );

    // get_source answers in prose, in the same single text block.
    let (err, text) = s.call(
        "get_source",
        json!({"symbols": [{"repository": "shapes", "qualified_name": "Circle.Area"}]}),
    );
    assert!(!err, "{text}");
    let geo = std::fs::read_to_string(workspace().join("fixtures/go/shapes/geo/geo.go")).unwrap();
    let body: Vec<&str> = geo.lines().skip(59).take(3).collect();
    assert_eq!(
        text,
        format!(
            "snapshot 1  1 bodies  context 0\n@ shapes geo/geo.go:60-62 method Circle.Area\n{}\n",
            body.join("\n")
        )
    );

    let repos = s.call_json("list_repositories", json!({}));
    insta::assert_snapshot!("list_repositories", normalize(&repos.to_string()));
    let status = s.call_json("graph_status", json!({}));
    assert_eq!(status["snapshot_id"], 1);
    assert_eq!(status["results"]["status"], "ready");
    assert_eq!(status["results"]["repositories"], 2);

    // A second generation published while serving is picked up without a restart.
    compile_go_fixtures(dir.path());
    let status = s.call_json("graph_status", json!({}));
    assert_eq!(status["snapshot_id"], 2);
    assert_eq!(
        s.call_json("find_symbol", json!({"name": "Area"}))["snapshot_id"],
        2
    );

    // A corrupted newer generation is refused and the previous one keeps serving.
    let gens = dir.path().join("generations");
    std::fs::create_dir(gens.join("000003")).unwrap();
    for f in std::fs::read_dir(gens.join("000002")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), gens.join("000003").join(f.file_name())).unwrap();
    }
    let manifest = std::fs::read_to_string(gens.join("000003/manifest.json"))
        .unwrap()
        .replace("\"generation_id\": 2", "\"generation_id\": 3");
    std::fs::write(gens.join("000003/manifest.json"), manifest).unwrap();
    std::fs::write(gens.join("000003/graph.blob"), b"KVGRAPH\0garbage").unwrap();
    std::fs::write(dir.path().join("CURRENT"), "000003\n").unwrap();
    assert_eq!(s.call_json("graph_status", json!({}))["snapshot_id"], 2);

    // Malformed input gets coded errors, and the server keeps answering.
    s.send(json!("not an object"));
    let bad = s.read();
    assert!(bad.get("error").is_some(), "{bad}");
    let (_, ping) = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
}

#[test]
fn without_a_generation_only_index_project_is_registered() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(dir.path());
    let init = initialize(&mut s);
    assert_eq!(
        init["result"]["instructions"].as_str().unwrap(),
        kivgraph::tools::STALE_INSTRUCTIONS
    );
    let (_, list) = s.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["index_project"]);
    let (_, r) = s.request(
        "tools/call",
        json!({"name": "find_symbol", "arguments": {"name": "Area"}}),
    );
    assert!(
        r.get("error").is_some(),
        "an unregistered tool is a protocol error: {r}"
    );
    let (err, text) = s.call("index_project", json!({"name": "shapes", "path": workspace().join("fixtures/go/shapes"), "languages": ["go"]}));
    assert!(err && text.starts_with("PERMISSION_REQUIRED: "), "{text}");

    // Publishing changes the tool set: the next call announces it.
    compile_go_fixtures(dir.path());
    let _ = s.request(
        "tools/call",
        json!({"name": "graph_status", "arguments": {}}),
    );
    assert_eq!(
        s.read(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    let (_, list) = s.request("tools/list", json!({}));
    assert_eq!(
        list["result"]["tools"].as_array().unwrap().len(),
        kivgraph::tools::QUERY_TOOLS.len() + 1
    );
}

#[test]
fn query_prints_what_a_client_receives() {
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let cli = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .args(["query", "find_symbol", r#"{"name":"NewCircle"}"#, "--index"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(cli.status.success());
    let mut s = Session::start(dir.path());
    initialize(&mut s);
    let (_, text) = s.call("find_symbol", json!({"name": "NewCircle"}));
    assert_eq!(String::from_utf8(cli.stdout).unwrap().trim_end(), text);
}

#[test]
fn index_project_asks_through_elicitation_and_reports_progress() {
    let dir = tempfile::tempdir().unwrap();
    let _ = compiler(); // the server runs it as a child process
    let mut s = Session::start(dir.path());
    let (_, init) = s.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(
        init["result"]["instructions"].as_str().unwrap(),
        kivgraph::tools::STALE_INSTRUCTIONS
    );
    let shapes = workspace().join("fixtures/go/shapes");
    let call = json!({"name": "index_project", "arguments": {"name": "shapes", "path": shapes, "languages": ["go"]}, "_meta": {"progressToken": "p1"}});

    // Declined: PERMISSION_DENIED, nothing published.
    s.send(json!({"jsonrpc": "2.0", "id": 100, "method": "tools/call", "params": call}));
    let ask = s.read();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert!(
        ask["params"]["message"]
            .as_str()
            .unwrap()
            .contains("\"shapes\"")
    );
    assert_eq!(
        ask["params"]["requestedSchema"]["required"],
        json!(["confirmed"])
    );
    s.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}));
    let denied = s.read();
    assert_eq!(denied["id"], 100);
    assert!(
        denied["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("PERMISSION_DENIED: project indexing was not approved")
    );
    assert!(!dir.path().join("CURRENT").exists());

    // Accepted: a ping sent while the question is open is answered at once; progress comes
    // before the answer, and the changed tool set is announced after it.
    s.send(json!({"jsonrpc": "2.0", "id": 101, "method": "tools/call", "params": call}));
    let ask = s.read();
    assert_eq!(ask["method"], "elicitation/create");
    s.send(json!({"jsonrpc": "2.0", "id": 102, "method": "ping"}));
    assert_eq!(s.read(), json!({"jsonrpc": "2.0", "id": 102, "result": {}}));
    s.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirmed": true}}}));
    let mut progress = Vec::new();
    let answer = loop {
        let m = s.read();
        if m["method"] == "notifications/progress" {
            assert_eq!(m["params"]["progressToken"], "p1");
            progress.push(m["params"]["progress"].as_u64().unwrap());
        } else {
            break m;
        }
    };
    assert_eq!(answer["id"], 101, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    let result: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{text}"));
    assert_eq!(result["generation_id"], 1);
    assert_eq!(progress, vec![1, 2, 3]);
    assert_eq!(
        s.read(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    assert_eq!(s.call_json("graph_status", json!({}))["snapshot_id"], 1);
    let registry: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("projects.json")).unwrap())
            .unwrap();
    assert_eq!(registry[0]["name"], "shapes");

    // A failed rebuild keeps the registry and the served generation.
    let bad = tempfile::tempdir().unwrap();
    std::fs::write(bad.path().join("x.go"), "package x\n").unwrap();
    let lock = kivgraph_format::IndexDir::new(dir.path()).lock().unwrap(); // another compiler holds the index
    s.send(json!({"jsonrpc": "2.0", "id": 103, "method": "tools/call",
        "params": {"name": "index_project", "arguments": {"name": "other", "path": bad.path(), "languages": ["go"]}}}));
    let ask = s.read();
    s.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirmed": true}}}));
    let failed = s.read();
    let text = failed["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("INDEXING_FAILED: ") && text.contains("busy"),
        "{text}"
    );
    drop(lock);
    let registry_after: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("projects.json")).unwrap())
            .unwrap();
    assert_eq!(registry_after, registry);
    assert_eq!(s.call_json("graph_status", json!({}))["snapshot_id"], 1);
}

/// `serve --watch` compiles the registered projects, then publishes after an edit; the server
/// answers from each new generation without a restart.
#[test]
fn serve_watch_publishes_after_an_edit_and_answers_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let index = dir.path().join("index");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&index).unwrap();
    std::fs::write(repo.join("a.py"), "def first():\n    pass\n").unwrap();
    std::fs::write(
        index.join("projects.json"),
        json!([{"name": "r", "path": repo, "languages": ["python"]}]).to_string(),
    )
    .unwrap();
    let mut s = Session::start_with(&index, &["--watch"]);
    initialize(&mut s);
    // Before the first publish there is no generation to answer from.
    let status = |s: &mut Session| -> Value {
        let (_, r) = s.request(
            "tools/call",
            json!({"name": "graph_status", "arguments": {}}),
        );
        r["result"]["content"][0]["text"]
            .as_str()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null)
    };
    // Waits (a bounded number of polls) for the snapshot `want`.
    let wait_for = |s: &mut Session, want: u64| -> Value {
        for _ in 0..300 {
            let st = status(s);
            if st["snapshot_id"] == json!(want) {
                return st;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("snapshot {want} was never served: {}", status(s));
    };
    let first = wait_for(&mut s, 1);
    assert_eq!(first["results"]["symbols"], 2, "{first}");
    std::fs::write(repo.join("b.py"), "def second():\n    first()\n").unwrap();
    let second = wait_for(&mut s, 2);
    assert_eq!(second["results"]["files"], 2, "{second}");
    let (is_error, text) = s.call("find_symbol", json!({"name": "second"}));
    assert!(!is_error && text.contains("b.py"), "{text}");
}

#[test]
fn serve_watch_without_a_registered_project_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .args(["serve", "--watch", "--index"])
        .arg(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("serve --watch") && err.contains("no project is registered"),
        "{err}"
    );
}
