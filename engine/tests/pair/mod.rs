//! A fixture pair (a library and the application that uses it) compiled into a temporary index
//! and opened as the server opens it, for the answer snapshots of each language
//! (`ts_answers.rs`, `py_answers.rs`, `rs_answers.rs`, `dart_answers.rs`).

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::Value;

use crate::common::{compile_into, workspace};

pub struct Pair {
    /// Keeps the index alive as long as the store.
    _dir: tempfile::TempDir,
    store: Store,
    /// The canonical path of `fixtures/<pair>`, replaced by `<pair>` in answers.
    root: String,
}

impl Pair {
    /// Compiles the repositories `(name, directory under fixtures/<pair>)` with the compiler
    /// arguments `extra`, and opens the published generation.
    pub fn compile(pair: &str, repos: &[(&str, &str)], extra: &[&str]) -> Pair {
        let dir = tempfile::tempdir().unwrap();
        let base = workspace().join("fixtures").join(pair);
        let repos = repos
            .iter()
            .map(|(name, sub)| format!("{name}={}", base.join(sub).display()));
        compile_into(dir.path(), extra.iter().map(|e| e.to_string()).chain(repos));
        let store = Store::open(IndexDir::new(dir.path()));
        let root = base.canonicalize().unwrap().to_str().unwrap().to_string();
        Pair {
            _dir: dir,
            store,
            root,
        }
    }

    /// The answer text of `tool`, with the checkout's path and the clock-dependent field taken
    /// out, so that it can be snapshotted.
    pub fn answer(&self, tool: &str, args: Value) -> String {
        let text = tools::call(tool, &args, self.store.snapshot())
            .unwrap()
            .replace(&self.root, "<pair>");
        let mut v: Value = serde_json::from_str(&text).unwrap();
        if let Some(m) = v.as_object_mut() {
            m.shift_remove("snapshot_age_ms");
        }
        serde_json::to_string(&v).unwrap()
    }
}
