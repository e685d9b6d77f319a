//! `kivgraph-compile --watch`: compiles, then publishes again after an edit, answers "up to
//! date" when a file is touched without changing, and does not follow its own index directory.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kivgraph-compile");

struct Watching {
    child: Child,
    lines: Receiver<String>,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Watching {
    /// The next summary line, or a failure after a generous wait (a stuck watcher).
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("no compile was reported");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }
}

#[test]
fn an_edit_publishes_and_a_touch_does_not() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("a.py"), "def f():\n    pass\n").unwrap();
    // The index inside the repository: its own writes must not make compiles.
    let out = repo.path().join(".kivgraph");
    let mut child = Command::new(BIN)
        .arg("--watch")
        .arg("--json")
        .arg("--rust-sysroot=off")
        .arg(format!("--out={}", out.display()))
        .arg(format!("r={}", repo.path().display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let w = Watching { child, lines: rx };
    let first = w.next();
    assert_eq!(first["generation_id"], 1);
    assert_eq!(first["up_to_date"], false);

    std::fs::write(repo.path().join("b.py"), "def g():\n    return 1\n").unwrap();
    let second = w.next();
    assert_eq!(second["generation_id"], 2, "{second}");
    assert_eq!(second["up_to_date"], false);
    assert_eq!(second["source_files"], 2);

    // Rewritten with the same bytes: nothing to publish.
    std::fs::write(repo.path().join("b.py"), "def g():\n    return 1\n").unwrap();
    let third = w.next();
    assert_eq!(third["generation_id"], 2, "{third}");
    assert_eq!(third["up_to_date"], true);
    // No further compile follows from the index directory's own writes.
    assert!(w.lines.recv_timeout(Duration::from_secs(2)).is_err());
}
