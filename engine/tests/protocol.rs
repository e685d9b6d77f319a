//! JSON-RPC over stdio as the protocol asks: the lifecycle, invalid Request objects, ids
//! echoed exactly, lone surrogate escapes, the size of an answer to a huge argument, and a
//! server that keeps answering while index_project rebuilds.

use crate::common::{compile_into, compiler, workspace};

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

struct Session {
    child: Child,
    stdin: ChildStdin,
    /// The server's lines, read on a thread so that a line that never comes fails the test
    /// instead of hanging it.
    lines: Receiver<String>,
}

/// How long a test waits for a line it expects before failing: only a guard against a server
/// that never answers, far above any answer's time.
const NO_ANSWER: Duration = Duration::from_secs(120);

impl Session {
    fn start(index: &Path, env: &[(&str, &Path)]) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kivgraph"));
        cmd.arg("serve").arg("--index").arg(index);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Session {
            child,
            stdin,
            lines,
        }
    }

    /// Writes one line as is.
    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line the server writes, as written.
    fn line(&mut self) -> String {
        match self.lines.recv_timeout(NO_ANSWER) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("the server did not answer"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout"),
        }
    }

    fn read(&mut self) -> Value {
        let line = self.line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn initialize(&mut self) {
        self.send(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}"#);
        assert!(self.read()["result"]["protocolVersion"].is_string());
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn compile_shapes(index: &Path) {
    let shapes = workspace().join("fixtures/go/shapes");
    compile_into(index, [format!("shapes={}", shapes.display())]);
}

#[test]
fn before_initialize_only_initialize_and_ping_are_served() {
    let dir = tempfile::tempdir().unwrap();
    compile_shapes(dir.path());
    let mut s = Session::start(dir.path(), &[]);
    s.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let early = s.read();
    assert_eq!(early["id"], 1);
    assert_eq!(early["error"]["code"], -32002, "{early}");
    s.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"graph_status","arguments":{}}}"#);
    assert_eq!(s.read()["error"]["code"], -32002);
    s.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(s.line(), r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
    s.initialize();
    s.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"graph_status","arguments":{}}}"#);
    let status = s.read();
    assert_eq!(status["id"], 4);
    assert!(
        status["result"]["content"][0]["text"].is_string(),
        "{status}"
    );
}

#[test]
fn invalid_request_objects_are_answered_with_id_null() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(dir.path(), &[]);
    s.initialize();
    for line in [
        "{}",
        r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":[1,2],"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":false,"method":"tools/list"}"#,
    ] {
        s.send(line);
        let answer = s.read();
        assert_eq!(answer["id"], Value::Null, "{line}: {answer}");
        assert_eq!(answer["error"]["code"], -32600, "{line}: {answer}");
    }
    // The server is still serving, under the ids it is given.
    s.send(r#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    assert_eq!(s.line(), r#"{"jsonrpc":"2.0","id":"after","result":{}}"#);
}

#[test]
fn numeric_ids_come_back_exactly_as_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(dir.path(), &[]);
    for id in [
        "18446744073709551616",
        "123456789012345678901234567890",
        "-9223372036854775809",
        "9007199254740993",
        "1.50",
    ] {
        s.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        assert_eq!(
            s.line(),
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
        );
    }
}

#[test]
fn a_lone_surrogate_escape_keeps_the_request_and_its_id() {
    let dir = tempfile::tempdir().unwrap();
    compile_shapes(dir.path());
    let mut s = Session::start(dir.path(), &[]);
    s.initialize();
    s.send(r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#);
    assert_eq!(s.line(), r#"{"jsonrpc":"2.0","id":"\ud800","result":{}}"#);
    // In an argument it reads as U+FFFD: the call is answered, under its id.
    s.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find_references","arguments":{"name":"Area\udc00"}}}"#);
    let answer = s.read();
    assert_eq!(answer["id"], 7, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Area\u{fffd}"), "{text}");
}

#[test]
fn a_huge_identifier_is_refused_in_a_short_answer() {
    let dir = tempfile::tempdir().unwrap();
    compile_shapes(dir.path());
    let mut s = Session::start(dir.path(), &[]);
    s.initialize();
    let huge = "A".repeat(4 << 20);
    for (n, args) in [
        json!({"name": huge, "mode": "substring"}),
        json!({"qualified_name": huge}),
        json!({"name": "Area", "path_prefix": huge}),
        json!({"symbols": [{"qualified_name": huge}]}),
    ]
    .into_iter()
    .enumerate()
    {
        let tool = ["find_symbol", "get_symbol", "find_symbol", "get_source"][n];
        s.send(
            &json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": tool, "arguments": args}})
            .to_string(),
        );
        let line = s.line();
        assert!(line.len() < 1024, "{tool}: {} bytes", line.len());
        let answer: Value = serde_json::from_str(&line).unwrap();
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(answer["result"]["isError"], true, "{text}");
        assert!(
            text.starts_with("INVALID_ARGUMENT: ") && text.contains("at most 4096 bytes"),
            "{text}"
        );
    }
    // A string at the bound is still a question.
    let at_bound = "A".repeat(4096);
    s.send(
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "find_symbol", "arguments": {"name": at_bound}}})
        .to_string(),
    );
    let answer = s.read();
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("at most 4096 bytes"), "{}", &text[..200]);
}

/// A stand-in for the compiler that waits for `KG_GATE` to exist (at most 30 s), then runs
/// the real one with the same arguments.
fn gated_compiler(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("gated-compile");
    std::fs::write(
        &script,
        "#!/bin/sh\ni=0\nwhile [ ! -e \"$KG_GATE\" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\nexec \"$KG_REAL\" \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[test]
fn the_server_keeps_answering_while_index_project_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let script = gated_compiler(tools.path());
    let gate = tools.path().join("gate");
    let real = compiler();
    let mut s = Session::start(
        dir.path(),
        &[
            ("KIVGRAPH_COMPILE", &script),
            ("KG_GATE", &gate),
            ("KG_REAL", &real),
        ],
    );
    s.initialize();
    let shapes = workspace().join("fixtures/go/shapes");
    s.send(
        &json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "index_project",
            "arguments": {"name": "shapes", "path": shapes, "languages": ["go"], "confirmed": true}}})
        .to_string(),
    );
    // The compiler waits for the gate: these are answered while it does.
    s.send(r#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#);
    assert_eq!(s.line(), r#"{"jsonrpc":"2.0","id":11,"result":{}}"#);
    s.send(r#"{"jsonrpc":"2.0","id":12,"method":"tools/list"}"#);
    let list = s.read();
    assert_eq!(list["id"], 12);
    assert_eq!(list["result"]["tools"][0]["name"], "index_project");
    // A second index_project meanwhile is told one is running.
    s.send(
        &json!({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "index_project",
            "arguments": {"name": "shapes", "path": shapes, "languages": ["go"], "confirmed": true}}})
        .to_string(),
    );
    let second = s.read();
    assert_eq!(second["id"], 13);
    assert!(
        second["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("INDEXING_FAILED: an index is already running"),
        "{second}"
    );
    std::fs::write(&gate, "").unwrap();
    let answer = s.read();
    assert_eq!(answer["id"], 10, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    let result: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{text}"));
    assert_eq!(result["generation_id"], 1);
    assert_eq!(
        s.read(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
}

#[test]
fn a_rebuild_still_running_when_stdin_closes_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("serve")
        .arg("--index")
        .arg(dir.path())
        .env("KIVGRAPH_COMPILE", compiler())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let shapes = workspace().join("fixtures/go/shapes");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {"name": "index_project",
            "arguments": {"name": "shapes", "path": shapes, "languages": ["go"], "confirmed": true}}})
    )
    .unwrap();
    // stdin closes at once: the answer still comes, then the server exits.
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[1]["id"], 20, "{lines:?}");
    let text = lines[1]["result"]["content"][0]["text"].as_str().unwrap();
    let result: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{text}"));
    assert_eq!(result["generation_id"], 1);
    assert_eq!(lines[2]["method"], "notifications/tools/list_changed");
}
