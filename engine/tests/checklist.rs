//! Acceptance tests of the MCP surface: one test per item of the seed checklist (section 9 of the
//! tool-surface reference, items 1 to 147), named `item_NNN_<subject>`.
//!
//! The seeds describe the surface on their own corpus (repository `kivgraph`, `MergeAll`, snapshot
//! 30). Here every item is asked of generations that the real `kivgraph-compile` binary builds from
//! the Go fixtures: `shapes` and `inventory` together, the provider/consumer pair `mathlib`/`app`
//! (extended with a few more consumers), and private copies that a test may edit, break or commit.
//! Tools are called in process through `kivgraph::tools::call`, or over stdio with `kivgraph serve`
//! when the item is about the protocol.
//!
//! Where the seed words a behaviour after the seed system's own analyses and this implementation
//! deliberately says something else, the test asserts this implementation's behaviour and a comment
//! says why (the `instructions` paragraph on resolution, the find_references description and its
//! COMPLETE guidance, 26-character stable keys, the absence of a JSON envelope around get_source).
//
// Not applicable: item 124 — the provenance values it names (GO_AST_CALL, GO_TYPES_USE,
//   TYPESCRIPT_CHECKER, TYPESCRIPT_PROJECT_REFERENCE) name the seed system's analyses (go/types,
//   the TypeScript checker); this implementation names its own rules (GO_SCOPE, GO_IMPORT_SELECTOR,
//   …) and never claims an analysis it does not run.
// Elsewhere: items 129 and 131–137 (the derived `rust:` repository) are tested in `derived.rs`,
//   on a generation whose provider is compiled with `kivgraph-compile --derived`; item 144
//   (find_by_intent takes keywords and answers which files to open) in `find_by_intent.rs`.
// Not applicable: item 146 — a documentation fact about the seed's token-cost benchmark.
// Not applicable: item 147 — a documentation fact about the seed's codebase-memory comparison.
//
// Adapted rather than dropped: items 39, 53, 86, 110 and 122 quote the seed's corpus and numbers;
// their tests ask the same question of the fixtures and assert the same shape. Item 122's
// EXACT_TYPECHECKED / GO_AST_CALL values come from a type checker this implementation does not
// run, so the row there carries this implementation's own confidence and provenance.

use crate::common::{compiler, workspace};

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use kivgraph::query::{self, Selector};
use kivgraph::{Store, ToolError, tools};
use kivgraph_format::{Generation, GraphBlob, IndexDir};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

// ---------------------------------------------------------------------------------------------
// Fixtures and generations
// ---------------------------------------------------------------------------------------------

fn fixture(rel: &str) -> PathBuf {
    workspace().join("fixtures/go").join(rel)
}

/// Compiles `repos` (name, directory) into the index directory `index` and publishes one
/// generation (`--full`: even when nothing changed).
fn compile(index: &Path, repos: &[(&str, &Path)]) {
    let out = Command::new(compiler())
        .arg("--full")
        .arg("--out")
        .arg(index)
        .args(repos.iter().map(|(n, p)| format!("{n}={}", p.display())))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn served(index: &Path) -> Arc<Generation> {
    Store::open(IndexDir::new(index)).snapshot().unwrap()
}

/// The index of `shapes` and `inventory`, compiled once and shared read-only by the tests.
fn graph_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        compile(
            &dir,
            &[
                ("shapes", &fixture("shapes")),
                ("inventory", &fixture("inventory")),
            ],
        );
        dir
    })
}

fn graph() -> Arc<Generation> {
    served(graph_dir())
}

/// The consumer package added to the pair's `app`: four exact callers of `vec.Add`, a call that only
/// a guess binds (`v.Len()` on a receiver whose type only generic inference states) and a call that
/// nothing binds (`v.Add()`: no visible type declares a member `Add`).
const MORE_GO: &str = "package more

import \"example.com/mathlib/vec\"

func One() vec.Vec   { return vec.Add(vec.Vec{}, vec.Vec{}) }
func Two() vec.Vec   { return vec.Add(vec.Vec{}, vec.Vec{}) }
func Three() vec.Vec { return vec.Add(vec.Vec{}, vec.Vec{}) }
func Four() vec.Vec  { return vec.Add(vec.Vec{}, vec.Vec{}) }

func first[T any](xs []T) T { return xs[0] }

func Guess() float64 {
	v := first([]vec.Vec{{X: 1}})
	return v.Len()
}

func Lost() {
	v := first([]vec.Vec{})
	v.Add()
}
";

/// The pair `mathlib` (provider) and `app` (consumer, with `more/more.go` added), compiled once.
fn pair_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        copy_dir(&fixture("pair"), &dir.join("src"));
        std::fs::create_dir_all(dir.join("src/app/more")).unwrap();
        std::fs::write(dir.join("src/app/more/more.go"), MORE_GO).unwrap();
        compile(
            &dir.join("index"),
            &[
                ("mathlib", &dir.join("src/mathlib")),
                ("app", &dir.join("src/app")),
            ],
        );
        dir
    })
}

fn pair() -> Arc<Generation> {
    served(&pair_dir().join("index"))
}

fn call_in(g: &Arc<Generation>, tool: &str, args: &Value) -> Result<String, ToolError> {
    tools::call(tool, args, Some(g.clone()))
}

fn json_in(g: &Arc<Generation>, tool: &str, args: Value) -> Value {
    let text = call_in(g, tool, &args).unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} {args}: not JSON ({e}): {text}"))
}

fn err_in(g: &Arc<Generation>, tool: &str, args: Value) -> ToolError {
    match call_in(g, tool, &args) {
        Ok(text) => panic!("{tool} {args} should fail, answered {text}"),
        Err(e) => e,
    }
}

/// A tool's JSON answer on the shared `shapes` + `inventory` graph.
fn ok(tool: &str, args: Value) -> Value {
    json_in(&graph(), tool, args)
}

/// A tool's error on the shared graph.
fn err(tool: &str, args: Value) -> ToolError {
    err_in(&graph(), tool, args)
}

fn ok_pair(tool: &str, args: Value) -> Value {
    json_in(&pair(), tool, args)
}

/// get_source's prose on the shared graph.
fn source(args: Value) -> String {
    call_in(&graph(), "get_source", &args).unwrap_or_else(|e| panic!("get_source {args}: {e}"))
}

fn qn(repository: &str, qualified_name: &str) -> Value {
    json!({"repository": repository, "qualified_name": qualified_name})
}

/// A symbol as the generation records it.
fn symbol(g: &Generation, repository: &str, qualified_name: &str) -> query::SymbolRow {
    let sel = Selector {
        repository: Some(repository.into()),
        qualified_name: Some(qualified_name.into()),
        ..Default::default()
    };
    query::symbol_row(g, query::resolve_selector(g, &sel).unwrap())
}

/// Lines `first..=last` of `text`, joined by `\n` and followed by `\n`: how get_source serves them.
fn lines_of(text: &str, first: u32, last: u32) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = lines[first as usize - 1..last as usize].join("\n");
    out.push('\n');
    out
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap()
}

/// The rows of a get_source answer: the lines that open a body (`@`) or stand for one (`!`).
fn source_rows(text: &str) -> Vec<&str> {
    text.lines()
        .skip(1)
        .filter(|l| l.starts_with("@ ") || l.starts_with("! "))
        .collect()
}

/// A private workspace: copies of fixture repositories that a test may edit, an index directory
/// beside them, and the generations compiled from them.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Copies `fixtures/go/<from>` as repository directory `name`.
    fn with(self, name: &str, from: &str) -> Scratch {
        copy_dir(&fixture(from), &self.repo(name));
        self
    }

    fn repo(&self, name: &str) -> PathBuf {
        self.dir.path().join("src").join(name)
    }

    fn index(&self) -> PathBuf {
        self.dir.path().join("index")
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.dir.path().join("src").join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join("src").join(rel)).unwrap()
    }

    fn edit(&self, rel: &str, f: impl FnOnce(&str) -> String) {
        let text = f(&self.read(rel));
        self.write(rel, &text);
    }

    /// Compiles the named repositories into this workspace's index and publishes a generation.
    fn compile(&self, names: &[&str]) -> &Scratch {
        let dirs: Vec<(&str, PathBuf)> = names.iter().map(|n| (*n, self.repo(n))).collect();
        let repos: Vec<(&str, &Path)> = dirs.iter().map(|(n, p)| (*n, p.as_path())).collect();
        compile(&self.index(), &repos);
        self
    }

    fn generation(&self) -> Arc<Generation> {
        served(&self.index())
    }

    fn call(&self, tool: &str, args: Value) -> Result<String, ToolError> {
        call_in(&self.generation(), tool, &args)
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        json_in(&self.generation(), tool, args)
    }

    fn source(&self, args: Value) -> String {
        self.call("get_source", args.clone())
            .unwrap_or_else(|e| panic!("get_source {args}: {e}"))
    }
}

/// Rewrites the graph blob of the generation `CURRENT` names in `index`. A generation may come
/// from an untrusted artifact, so a few rules are about generations no compiler writes: this
/// builds one.
fn forge(index: &Path, edit: impl FnOnce(&mut GraphBlob)) {
    let g = Generation::open_current(&IndexDir::new(index))
        .unwrap()
        .unwrap();
    let mut blob: GraphBlob = g.deserialize().unwrap();
    edit(&mut blob);
    let bytes = kivgraph_format::blob::encode(&blob).unwrap();
    let path = g.dir.join("graph.blob");
    drop(g);
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, bytes).unwrap();
}

fn blob_string(blob: &GraphBlob, id: u32) -> &str {
    let ends = &blob.strings.ends;
    let start = if id == 0 {
        0
    } else {
        ends[id as usize - 1] as usize
    };
    std::str::from_utf8(&blob.strings.bytes[start..ends[id as usize] as usize]).unwrap()
}

/// Index of the symbol with this qualified name (the generations used here hold one).
fn blob_symbol(blob: &GraphBlob, qualified_name: &str) -> usize {
    blob.symbols
        .iter()
        .position(|s| blob_string(blob, s.qualified_name) == qualified_name)
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Reading compact pages
// ---------------------------------------------------------------------------------------------

/// One label row of a compact page, with everything that states it.
#[derive(Debug, Clone)]
struct LabelEntry {
    repo: String,
    file: String,
    label: String,
    /// Columns the page header and the row's group state, by name.
    stated: Map<String, Value>,
    /// The elements after the label.
    tail: Vec<Value>,
}

/// Header and group values as a tail would spell them (get_file_outline states exportedness as a
/// boolean above the rows and as a word in a tail).
fn stated_value(column: &str, v: &Value) -> Value {
    match (column, v) {
        ("exported", Value::Bool(b)) => json!(if *b { "exported" } else { "unexported" }),
        _ => v.clone(),
    }
}

/// The label rows of a compact page of a file-grouping tool, flat or grouped.
fn label_entries(results: &Value, columns: &[&str]) -> Vec<LabelEntry> {
    let header_repo = results
        .get("repository")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut header = Map::new();
    for c in columns {
        if let Some(v) = results.get(*c) {
            header.insert((*c).into(), stated_value(c, v));
        }
    }
    let mut out = Vec::new();
    let mut walk = |files: &Value, stated: &Map<String, Value>| {
        for f in files.as_array().unwrap() {
            let repo = f
                .get("repo")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| header_repo.clone())
                .unwrap_or_else(|| panic!("no repository for {f}"));
            let file = f["file"].as_str().unwrap().to_string();
            for e in f["at"].as_array().unwrap() {
                let (label, tail) = match e {
                    Value::String(s) => (s.clone(), Vec::new()),
                    Value::Array(a) => (a[0].as_str().unwrap().to_string(), a[1..].to_vec()),
                    other => panic!("a label is a string or an array: {other}"),
                };
                out.push(LabelEntry {
                    repo: repo.clone(),
                    file: file.clone(),
                    label,
                    stated: stated.clone(),
                    tail,
                });
            }
        }
    };
    match results.get("groups") {
        Some(groups) => {
            for g in groups.as_array().unwrap() {
                let mut stated = header.clone();
                for (k, v) in g.as_object().unwrap() {
                    if columns.contains(&k.as_str()) {
                        stated.insert(k.clone(), stated_value(k, v));
                    }
                }
                walk(&g["files"], &stated);
            }
        }
        None => walk(&results["files"], &header),
    }
    out
}

/// `qualified_name@start` or `qualified_name@start-end`, split back into its parts.
fn split_label(label: &str) -> (String, u64, u64) {
    let (name, range) = label.rsplit_once('@').unwrap();
    let (start, end) = match range.split_once('-') {
        Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
        None => (range.parse().unwrap(), range.parse().unwrap()),
    };
    (name.to_string(), start, end)
}

fn make_label(qualified_name: &str, start: u64, end: u64) -> String {
    if end > start {
        format!("{qualified_name}@{start}-{end}")
    } else {
        format!("{qualified_name}@{start}")
    }
}

/// A row as the full view spells it, reduced to what its compact label row must carry.
#[derive(Debug, Clone)]
struct Expected {
    repo: String,
    file: String,
    label: String,
    /// The tool's tail columns in their fixed order; `Null` is an empty value.
    cols: Vec<(&'static str, Value)>,
}

const REFERENCE_COLUMNS: &[&str] = &["edge_kind", "kind", "confidence", "provenance"];
const WALK_COLUMNS: &[&str] = &[
    "name",
    "kind",
    "hop_depth",
    "reached_from",
    "via_kind",
    "via_confidence",
    "via_provenance",
    "stable_key",
];
const OUTLINE_COLUMNS: &[&str] = &["name", "kind", "exported"];

fn label_of(row: &Value) -> String {
    make_label(
        row["qualified_name"].as_str().unwrap(),
        row["start_line"].as_u64().unwrap(),
        row["end_line"].as_u64().unwrap(),
    )
}

/// Whether a compact row can leave `name` out: the qualified name ends with it after `.`.
fn name_readable(qualified_name: &str, name: &str) -> bool {
    qualified_name == name || qualified_name.ends_with(&format!(".{name}"))
}

fn expected_references(full: &Value) -> Vec<Expected> {
    full["results"]["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Expected {
            repo: r["repository"].as_str().unwrap().into(),
            file: r["file_path"].as_str().unwrap().into(),
            label: label_of(r),
            cols: REFERENCE_COLUMNS
                .iter()
                .map(|c| (*c, r[*c].clone()))
                .collect(),
        })
        .collect()
}

fn expected_walk(full: &Value, rows: &str) -> Vec<Expected> {
    full["results"][rows]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["name"].as_str().unwrap();
            let readable = name_readable(r["qualified_name"].as_str().unwrap(), name);
            Expected {
                repo: r["repository"].as_str().unwrap().into(),
                file: r["file_path"].as_str().unwrap().into(),
                label: label_of(r),
                cols: vec![
                    ("name", if readable { Value::Null } else { json!(name) }),
                    ("kind", r["kind"].clone()),
                    ("hop_depth", r["depth"].clone()),
                    ("reached_from", r["reached_from"].clone()),
                    ("via_kind", r["via_kind"].clone()),
                    ("via_confidence", r["via_confidence"].clone()),
                    ("via_provenance", r["via_provenance"].clone()),
                    (
                        "stable_key",
                        r.get("stable_key").cloned().unwrap_or(Value::Null),
                    ),
                ],
            }
        })
        .collect()
}

fn expected_outline(full: &Value) -> Vec<Expected> {
    let repo = full["results"]["repository"].as_str().unwrap();
    let mut out = Vec::new();
    for f in full["results"]["files"].as_array().unwrap() {
        for s in f["symbols"].as_array().unwrap() {
            let name = s["name"].as_str().unwrap();
            let qualified = s
                .get("qualified_name")
                .and_then(Value::as_str)
                .unwrap_or(name);
            out.push(Expected {
                repo: repo.into(),
                file: f["path"].as_str().unwrap().into(),
                label: make_label(
                    qualified,
                    s["start_line"].as_u64().unwrap(),
                    s["end_line"].as_u64().unwrap(),
                ),
                cols: vec![
                    (
                        "name",
                        if name_readable(qualified, name) {
                            Value::Null
                        } else {
                            json!(name)
                        },
                    ),
                    ("kind", s["kind"].clone()),
                    (
                        "exported",
                        json!(if s["exported"] == true {
                            "exported"
                        } else {
                            "unexported"
                        }),
                    ),
                ],
            });
        }
    }
    out
}

fn is_empty_value(v: &Value) -> bool {
    v.is_null() || v.as_str() == Some("")
}

/// Numbers travel as strings in a tail.
fn tail_value(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.to_string()),
        other => other.clone(),
    }
}

/// The tail a row must carry: its columns in the fixed order, minus the stated and empty ones.
fn expected_tail(e: &Expected, stated: &Map<String, Value>) -> Vec<Value> {
    e.cols
        .iter()
        .filter(|(c, v)| !stated.contains_key(*c) && !is_empty_value(v))
        .map(|(_, v)| tail_value(v))
        .collect()
}

/// Checks a compact page against the full view of the same page: every full row appears exactly
/// once as a label row whose header, group and tail state exactly its columns.
fn assert_compact_spells_full(compact: &Value, expected: &[Expected], columns: &[&str]) {
    let entries = label_entries(&compact["results"], columns);
    assert_eq!(
        entries.len(),
        expected.len(),
        "one label per row: {compact}"
    );
    let mut used = vec![false; expected.len()];
    for e in &entries {
        let found = expected.iter().enumerate().position(|(i, x)| {
            !used[i]
                && x.repo == e.repo
                && x.file == e.file
                && x.label == e.label
                && x.cols.iter().all(|(c, v)| {
                    e.stated
                        .get(*c)
                        .is_none_or(|s| s == &tail_value(v) || s == v)
                })
                && expected_tail(x, &e.stated) == e.tail
        });
        match found {
            Some(i) => used[i] = true,
            None => panic!(
                "compact row {e:?} matches no full row; full rows: {expected:#?}\ncompact: {compact}"
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// MCP over stdio
// ---------------------------------------------------------------------------------------------

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(index: &Path) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
            .arg("serve")
            .arg("--index")
            .arg(index)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
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

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.read();
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let init = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "checklist", "version": "0"}}),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    fn tools(&mut self) -> Vec<Value> {
        self.request("tools/list", json!({}))["result"]["tools"]
            .as_array()
            .unwrap()
            .clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The twelve tools the seeds register, in the seed's order.
const TWELVE: &[&str] = &[
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
    "index_project",
];

/// The query tools whose answer is an envelope with a `view`.
const VIEW_TOOLS: &[&str] = &[
    "find_references",
    "get_blast_radius",
    "trace_dependencies",
    "find_cross_repo_consumers",
    "find_symbol",
    "get_file_outline",
];

/// A question for each view tool on the shared graph, with rows to show.
fn view_question(tool: &str) -> Value {
    match tool {
        "find_references" => json!({"name": "NewCircle"}),
        "get_blast_radius" => json!({"repository": "shapes", "qualified_name": "Point"}),
        "trace_dependencies" => json!({"repository": "shapes", "qualified_name": "main"}),
        "find_cross_repo_consumers" => {
            json!({"repository": "inventory", "qualified_name": "Store.Len"})
        }
        "find_symbol" => json!({"name": "S", "mode": "prefix"}),
        "get_file_outline" => json!({"repository": "shapes", "path": "geo"}),
        other => panic!("{other} takes no view"),
    }
}

fn with(args: &Value, extra: Value) -> Value {
    let mut a = args.clone();
    for (k, v) in extra.as_object().unwrap() {
        a[k] = v.clone();
    }
    a
}

fn tool_def(name: &str) -> &'static tools::ToolDef {
    tools::QUERY_TOOLS
        .iter()
        .chain(std::iter::once(&kivgraph::index::INDEX_PROJECT))
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn invalid(e: &ToolError) {
    assert_eq!(e.code, "INVALID_ARGUMENT", "{e}");
}

// ---------------------------------------------------------------------------------------------
// 9.A get_source
// ---------------------------------------------------------------------------------------------

#[test]
fn item_001_get_source_exists_with_its_description() {
    let t = tool_def("get_source");
    assert_eq!(
        t.description,
        "The code of several symbols in one call. Prefer it to reading each range: no line numbers, one call across files and repositories."
    );
    assert!(t.read_only);
}

#[test]
fn item_002_get_source_symbols_is_a_required_array() {
    let schema = (tool_def("get_source").schema)();
    assert_eq!(schema["properties"]["symbols"]["type"], "array");
    assert!(
        schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("symbols"))
    );
    let e = err("get_source", json!({}));
    invalid(&e);
    assert_eq!(e.message, "symbols is required");
    invalid(&err(
        "get_source",
        json!({"symbols": {"qualified_name": "Pi"}}),
    ));
}

#[test]
fn item_003_get_source_rejects_empty_symbols() {
    let e = err("get_source", json!({"symbols": []}));
    invalid(&e);
}

#[test]
fn item_004_get_source_accepts_twenty_symbols_and_refuses_twenty_one() {
    let g = graph();
    let keys: Vec<Value> = g
        .graph()
        .symbols
        .iter()
        .take(21)
        .map(|s| json!({"stable_key": g.graph().strings.get(s.key.to_native())}))
        .collect();
    let text = source(json!({"symbols": keys[..20]}));
    assert_eq!(source_rows(&text).len(), 20);
    invalid(&err("get_source", json!({"symbols": keys})));
    let mut more = keys.clone();
    more.extend(keys.clone());
    invalid(&err("get_source", json!({"symbols": more})));
}

#[test]
fn item_005_get_source_entries_take_four_optional_strings() {
    let schema = (tool_def("get_source").schema)();
    let items = &schema["properties"]["symbols"]["items"];
    let props = items["properties"].as_object().unwrap();
    let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["path", "qualified_name", "repository", "stable_key"]
    );
    for p in props.values() {
        assert_eq!(p["type"], "string");
    }
    assert!(
        items.get("required").is_none(),
        "each field is optional on its own"
    );
    // Each is accepted in a call: a key alone, a name alone, a name narrowed by both.
    let pi = symbol(&graph(), "shapes", "Pi");
    let by_key = source(json!({"symbols": [{"stable_key": pi.stable_key}]}));
    let by_name = source(json!({"symbols": [{"qualified_name": "Pi"}]}));
    let narrowed = source(
        json!({"symbols": [{"repository": "shapes", "path": "geo/geo.go", "qualified_name": "Pi"}]}),
    );
    assert_eq!(by_key, by_name);
    assert_eq!(by_key, narrowed);
}

#[test]
fn item_006_get_source_entry_needs_a_key_or_a_name() {
    invalid(&err("get_source", json!({"symbols": [{}]})));
    invalid(&err(
        "get_source",
        json!({"symbols": [{"repository": "shapes", "path": "geo"}]}),
    ));
}

#[test]
fn item_007_get_source_entry_refuses_key_and_name_together() {
    let pi = symbol(&graph(), "shapes", "Pi");
    invalid(&err(
        "get_source",
        json!({"symbols": [{"stable_key": pi.stable_key, "qualified_name": "Pi"}]}),
    ));
}

#[test]
fn item_008_get_source_entry_refuses_key_with_repository_or_path() {
    let pi = symbol(&graph(), "shapes", "Pi");
    invalid(&err(
        "get_source",
        json!({"symbols": [{"stable_key": pi.stable_key, "repository": "shapes"}]}),
    ));
    invalid(&err(
        "get_source",
        json!({"symbols": [{"stable_key": pi.stable_key, "path": "geo/geo.go"}]}),
    ));
}

#[test]
fn item_009_get_source_repository_narrows_by_name() {
    // `main` is declared in both repositories.
    let e = err(
        "get_source",
        json!({"symbols": [{"qualified_name": "main"}]}),
    );
    assert_eq!(e.code, "AMBIGUOUS_SYMBOL", "{e}");
    for (repo, file) in [
        ("shapes", "cmd/shapes/main.go"),
        ("inventory", "cmd/inventory/main.go"),
    ] {
        let text = source(json!({"symbols": [qn(repo, "main")]}));
        let rows = source_rows(&text);
        assert_eq!(rows.len(), 1);
        assert!(rows[0].starts_with(&format!("@ {repo} {file}:")), "{text}");
    }
}

#[test]
fn item_010_get_source_path_narrows_by_prefix() {
    let s = Scratch::new().with("shapes", "shapes");
    s.write("shapes/geo/inits.go", "package geo\n\nfunc init() {}\n");
    s.write(
        "shapes/render/inits.go",
        "package render\n\nfunc init() {}\n",
    );
    s.compile(&["shapes"]);
    let at = |path: &str| {
        let text = s.source(
            json!({"symbols": [{"repository": "shapes", "path": path, "qualified_name": "init"}]}),
        );
        source_rows(&text)[0].to_string()
    };
    // A prefix, not a directory: `ren` and `geo/in` narrow as well as the full paths.
    assert_eq!(at("ren"), "@ shapes render/inits.go:3-3 func init");
    assert_eq!(
        at("render/inits.go"),
        "@ shapes render/inits.go:3-3 func init"
    );
    assert_eq!(at("geo/in"), "@ shapes geo/inits.go:3-3 func init");
    let e = s
        .call(
            "get_source",
            json!({"symbols": [{"repository": "shapes", "path": "cmd", "qualified_name": "init"}]}),
        )
        .unwrap_err();
    assert_eq!(e.code, "SYMBOL_NOT_FOUND");
}

#[test]
fn item_011_get_source_path_requires_repository() {
    let e = err(
        "get_source",
        json!({"symbols": [{"path": "geo", "qualified_name": "Pi"}]}),
    );
    invalid(&e);
    assert!(e.message.contains("requires repository"), "{e}");
}

#[test]
fn item_012_get_source_refuses_an_absolute_path() {
    let e = err(
        "get_source",
        json!({"symbols": [{"repository": "shapes", "path": "/geo", "qualified_name": "Pi"}]}),
    );
    invalid(&e);
    assert!(
        e.message
            .ends_with("path must be repository-relative, not absolute")
    );
}

#[test]
fn item_013_get_source_refuses_a_dotdot_segment() {
    for path in ["..", "geo/..", "geo/../geo", "../shapes/geo"] {
        let e = err(
            "get_source",
            json!({"symbols": [{"repository": "shapes", "path": path, "qualified_name": "Pi"}]}),
        );
        invalid(&e);
        assert!(
            e.message.ends_with("path must not contain a .. segment"),
            "{path}: {e}"
        );
    }
}

#[test]
fn item_014_get_source_context_lines_is_an_integer_defaulting_to_zero() {
    let schema = (tool_def("get_source").schema)();
    assert_eq!(schema["properties"]["context_lines"]["type"], "integer");
    assert_eq!(schema["properties"]["context_lines"]["default"], 0);
    let absent = source(json!({"symbols": [qn("shapes", "Pi")]}));
    assert_eq!(
        absent,
        source(json!({"symbols": [qn("shapes", "Pi")], "context_lines": 0}))
    );
    assert_eq!(first_line(&absent), "snapshot 1  1 bodies  context 0");
    invalid(&err(
        "get_source",
        json!({"symbols": [qn("shapes", "Pi")], "context_lines": "2"}),
    ));
    invalid(&err(
        "get_source",
        json!({"symbols": [qn("shapes", "Pi")], "context_lines": 1.5}),
    ));
}

#[test]
fn item_015_get_source_context_lines_range() {
    for bad in [-1, 101, 1000] {
        invalid(&err(
            "get_source",
            json!({"symbols": [qn("shapes", "Pi")], "context_lines": bad}),
        ));
    }
    for fine in [0, 100] {
        let text = source(json!({"symbols": [qn("shapes", "Pi")], "context_lines": fine}));
        assert_eq!(
            first_line(&text),
            format!("snapshot 1  1 bodies  context {fine}")
        );
    }
}

#[test]
fn item_016_get_source_context_is_clamped_to_the_file() {
    let file = std::fs::read_to_string(fixture("shapes/geo/geo.go")).unwrap();
    let last = file.lines().count();
    // Pi is on line 10 of a 98-line file: ten lines before it reach line 1, not line 0.
    let text = source(json!({"symbols": [qn("shapes", "Pi")], "context_lines": 12}));
    assert_eq!(
        text,
        format!(
            "snapshot 1  1 bodies  context 12\n@ shapes geo/geo.go:1-22 const Pi\n{}",
            lines_of(&file, 1, 22)
        )
    );
    // The file's last declaration: the window stops at its last line.
    let text = source(json!({"symbols": [qn("shapes", "Rect.String")], "context_lines": 100}));
    assert_eq!(
        text,
        format!(
            "snapshot 1  1 bodies  context 100\n@ shapes geo/geo.go:1-{last} method Rect.String\n{file}"
        )
    );
}

#[test]
fn item_017_get_source_response_format() {
    let args = json!({"symbols": [qn("shapes", "Pi")]});
    let default = source(args.clone());
    assert_eq!(
        default,
        source(with(&args, json!({"response_format": "concise"})))
    );
    assert_ne!(
        default,
        source(with(&args, json!({"response_format": "detailed"})))
    );
    for bad in ["verbose", "full", "", "Detailed"] {
        invalid(&err(
            "get_source",
            with(&args, json!({"response_format": bad})),
        ));
    }
}

#[test]
fn item_018_get_source_detailed_appends_the_stable_key() {
    let g = graph();
    let (pi, area) = (
        symbol(&g, "shapes", "Pi"),
        symbol(&g, "shapes", "Circle.Area"),
    );
    let text = source(
        json!({"symbols": [qn("shapes", "Pi"), qn("shapes", "Circle.Area")], "response_format": "detailed"}),
    );
    assert_eq!(
        source_rows(&text),
        [
            format!("@ shapes geo/geo.go:10-10 const Pi {}", pi.stable_key),
            format!(
                "@ shapes geo/geo.go:60-62 method Circle.Area {}",
                area.stable_key
            ),
        ]
    );
}

#[test]
fn item_019_get_source_answers_prose() {
    let text = source(json!({"symbols": [qn("shapes", "Circle.Area")]}));
    assert!(serde_json::from_str::<Value>(&text).is_err(), "{text}");
    assert!(text.starts_with("snapshot "));
    // Every other tool answers JSON.
    let json = call_in(&graph(), "find_symbol", &json!({"name": "Pi"})).unwrap();
    assert!(serde_json::from_str::<Value>(&json).is_ok());
}

#[test]
fn item_020_get_source_first_line() {
    let text = source(
        json!({"symbols": [qn("shapes", "Pi"), qn("shapes", "NewCircle")], "context_lines": 3}),
    );
    assert_eq!(first_line(&text), "snapshot 1  2 bodies  context 3");
    let g = graph();
    let text = source(json!({"symbols": [qn("inventory", "New")]}));
    assert_eq!(
        first_line(&text),
        format!("snapshot {}  1 bodies  context 0", g.id)
    );
}

#[test]
fn item_021_get_source_body_header() {
    let text = source(
        json!({"symbols": [qn("shapes", "Circle.Area"), qn("inventory", "Store.Len"), qn("shapes", "Pi")]}),
    );
    assert_eq!(
        source_rows(&text),
        [
            "@ shapes geo/geo.go:60-62 method Circle.Area",
            "@ inventory store/store.go:91-93 method Store.Len",
            "@ shapes geo/geo.go:10-10 const Pi",
        ]
    );
}

#[test]
fn item_022_get_source_bytes_are_unescaped_and_unnumbered() {
    let file = std::fs::read_to_string(fixture("shapes/geo/geo.go")).unwrap();
    let text = source(json!({"symbols": [qn("shapes", "Rect.String")]}));
    let body = lines_of(&file, 96, 98);
    assert_eq!(
        text,
        format!(
            "snapshot 1  1 bodies  context 0\n@ shapes geo/geo.go:96-98 method Rect.String\n{body}"
        )
    );
    // Quotes, percent signs and tabs travel as themselves.
    assert!(text.contains("\treturn fmt.Sprintf(\"rect at %v, %gx%g %s\""));
    assert!(!text.contains("\\\"") && !text.contains("\\t"));
}

#[test]
fn item_023_get_source_row_without_bytes_starts_with_bang() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    s.edit("shapes/geo/geo.go", |t| {
        t.replace("func NewCircle(", "func MakeCircle(")
            .replace("// NewCircle returns", "// MakeCircle returns")
    });
    let text = s.source(
        json!({"symbols": [qn("shapes", "Pi"), qn("shapes", "NewCircle"), qn("shapes", "Row")]}),
    );
    let rows = source_rows(&text);
    assert_eq!(rows.len(), 3);
    assert!(
        rows[0].starts_with("@ shapes geo/geo.go:10-10 const Pi"),
        "{text}"
    );
    assert_eq!(
        rows[1],
        "! shapes geo/geo.go NewCircle \u{2014} the file changed and no declaration of \"NewCircle\" remains in it"
    );
    assert!(rows[2].starts_with("@ shapes render/layout.go:"), "{text}");
    // The rows around it still carry their code.
    assert!(text.contains("const Pi = math.Pi"));
    assert!(text.contains("func Row("));
}

#[test]
fn item_024_get_source_reads_a_shared_file_once() {
    let g = graph();
    let names = ["Pi", "NewCircle", "Circle.Area", "Rect.String", "Dist"];
    let ids: Vec<u32> = names
        .iter()
        .map(|n| {
            let sel = Selector {
                repository: Some("shapes".into()),
                qualified_name: Some((*n).into()),
                ..Default::default()
            };
            query::resolve_selector(&g, &sel).unwrap()
        })
        .collect();
    // Four symbols of geo/geo.go and one of geo/measure.go: two files read.
    let answer = kivgraph::source::source(&g, &ids, 0);
    assert_eq!(answer.bodies(), 5);
    assert_eq!(answer.files_read, 2);
}

#[test]
fn item_025_get_source_fresh_file_serves_the_recorded_range() {
    let g = graph();
    let file = std::fs::read_to_string(fixture("shapes/geo/geo.go")).unwrap();
    for name in ["NewCircle", "Circle.Area", "Point"] {
        let s = symbol(&g, "shapes", name);
        let text = source(json!({"symbols": [qn("shapes", name)]}));
        assert_eq!(
            text,
            format!(
                "snapshot 1  1 bodies  context 0\n@ shapes geo/geo.go:{}-{} {} {name}\n{}",
                s.start_line,
                s.end_line,
                s.kind,
                lines_of(&file, s.start_line, s.end_line)
            )
        );
        assert!(!text.contains("re-anchored"));
    }
}

#[test]
fn item_026_get_source_changed_file_is_reanchored_and_says_so() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    let g = s.generation();
    let (area, dist, row) = (
        symbol(&g, "shapes", "Circle.Area"),
        symbol(&g, "shapes", "Dist"),
        symbol(&g, "shapes", "Row"),
    );
    s.edit("shapes/geo/geo.go", |t| {
        t.replacen("package geo\n", "package geo\n\n// Two lines\n", 1)
    });
    s.edit("shapes/geo/measure.go", |t| format!("{t}\n// appended\n"));
    s.edit("shapes/render/layout.go", |t| {
        t.replacen(
            "// Row lays shapes out left to right and returns their bounding rectangle,\n",
            "",
            1,
        )
    });
    let text = s.source(json!({"symbols": [qn("shapes", "Circle.Area"), qn("shapes", "Dist"), qn("shapes", "Row")]}));
    assert_eq!(
        source_rows(&text),
        [
            format!(
                "@ shapes geo/geo.go:{}-{} method Circle.Area [file changed, re-anchored +2]",
                area.start_line + 2,
                area.end_line + 2
            ),
            format!(
                "@ shapes geo/measure.go:{}-{} func Dist [file changed, re-anchored +0]",
                dist.start_line, dist.end_line
            ),
            format!(
                "@ shapes render/layout.go:{}-{} func Row [file changed, re-anchored -1]",
                row.start_line - 1,
                row.end_line - 1
            ),
        ]
    );
    let now = s.read("shapes/geo/geo.go");
    assert!(text.contains(&lines_of(&now, area.start_line + 2, area.end_line + 2)));
}

#[test]
fn item_027_get_source_reanchoring_changes_no_graph_fact() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    let questions = [
        (
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Circle.Area", "view": "full"}),
        ),
        (
            "get_symbol",
            json!({"repository": "shapes", "qualified_name": "Circle.Area"}),
        ),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "Circle.Area", "view": "full"}),
        ),
        ("find_symbol", json!({"name": "Area", "view": "full"})),
    ];
    let answer = |tool: &str, args: &Value| {
        let mut v = s.ok(tool, args.clone());
        v.as_object_mut().unwrap().remove("snapshot_age_ms");
        v
    };
    let before: Vec<Value> = questions.iter().map(|(t, a)| answer(t, a)).collect();
    s.edit("shapes/geo/geo.go", |t| {
        t.replacen("package geo\n", "package geo\n\n// moved\n", 1)
    });
    let text = s.source(json!({"symbols": [qn("shapes", "Circle.Area")]}));
    assert!(text.contains("[file changed, re-anchored +2]"), "{text}");
    let after: Vec<Value> = questions.iter().map(|(t, a)| answer(t, a)).collect();
    assert_eq!(before, after);
    assert_eq!(s.generation().id, 1, "nothing was published");
}

#[test]
fn item_028_get_source_vanished_declaration_is_a_bang_row() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    s.edit("shapes/geo/measure.go", |t| t.replace("Dist", "Distance"));
    let text = s.source(json!({"symbols": [qn("shapes", "Dist")]}));
    assert_eq!(
        text,
        "snapshot 1  0 bodies  context 0\n! shapes geo/measure.go Dist \u{2014} the file changed and no declaration of \"Dist\" remains in it\n"
    );
}

#[test]
fn item_029_get_source_tie_is_a_bang_row() {
    let s = Scratch::new().with("shapes", "shapes");
    s.write(
        "shapes/geo/twin.go",
        "package geo\n\n// Twin.\nfunc Twin() {}\n",
    );
    s.compile(&["shapes"]);
    // Line 4 now declares nothing; lines 3 and 5 both name Twin, one line away each.
    s.write(
        "shapes/geo/twin.go",
        "package geo\n\nfunc Twin() {}\n\nfunc Twin() {}\n",
    );
    let text = s.source(json!({"symbols": [qn("shapes", "Twin"), qn("shapes", "Pi")]}));
    assert_eq!(
        source_rows(&text),
        [
            "! shapes geo/twin.go Twin \u{2014} the file changed and \"Twin\" now appears 2 times equally far from its recorded position",
            "@ shapes geo/geo.go:10-10 const Pi",
        ]
    );
    assert_eq!(first_line(&text), "snapshot 1  1 bodies  context 0");
}

#[test]
fn item_030_get_source_shorter_span_is_a_bang_row() {
    let s = Scratch::new().with("shapes", "shapes");
    s.write(
        "shapes/geo/tail.go",
        "package geo\n\nfunc Tail() {\n\t_ = 1\n}\n",
    );
    s.compile(&["shapes"]);
    s.write("shapes/geo/tail.go", "package geo\n\n\nfunc Tail() {}\n");
    let text = s.source(json!({"symbols": [qn("shapes", "Tail")]}));
    assert_eq!(
        source_rows(&text),
        [
            "! shapes geo/tail.go Tail \u{2014} the file changed and \"Tail\" no longer spans 3 lines"
        ]
    );
}

#[test]
fn item_031_get_source_symbol_without_a_range_is_a_bang_row() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    forge(&s.index(), |blob| {
        let i = blob_symbol(blob, "NewCircle");
        blob.symbols[i].start_line = 0;
        blob.symbols[i].end_line = 0;
    });
    let text = s.source(json!({"symbols": [qn("shapes", "NewCircle"), qn("shapes", "Pi")]}));
    assert_eq!(
        source_rows(&text),
        [
            "! shapes geo/geo.go NewCircle \u{2014} the generation records no line range for this symbol",
            "@ shapes geo/geo.go:10-10 const Pi",
        ]
    );
}

/// A generation whose file `render/layout.go` is recorded as `path`, with a real file planted
/// where that path would lead outside the repository.
fn escaping_generation(path: &str) -> Scratch {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    let outside = s.repo("shapes").join(path);
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::write(&outside, "package render\n\nfunc Row() { /* outside */ }\n").unwrap();
    let path = path.to_string();
    forge(&s.index(), move |blob| {
        blob.strings.bytes.extend_from_slice(path.as_bytes());
        blob.strings.ends.push(blob.strings.bytes.len() as u32);
        let id = blob.strings.ends.len() as u32 - 1;
        let f = blob
            .files
            .iter()
            .position(|f| blob_string(blob, f.path) == "render/layout.go")
            .unwrap();
        blob.files[f].path = id;
    });
    s
}

#[test]
fn item_032_get_source_reads_nothing_outside_a_repository() {
    // The generation (an untrusted artifact) sends Row's file outside the repository, where a
    // file by that name exists: its bytes are never served.
    let s = escaping_generation("../../outside/layout.go");
    let text = s.source(json!({"symbols": [qn("shapes", "Row"), qn("shapes", "Pi")]}));
    assert!(!text.contains("outside */"), "{text}");
    assert_eq!(first_line(&text), "snapshot 1  1 bodies  context 0");
    // The repository's own files are read, only to deliver bytes.
    assert!(text.contains("@ shapes geo/geo.go:10-10 const Pi\nconst Pi = math.Pi"));
    // The reader refuses to leave the root whatever the recorded path.
    let root = s.repo("shapes");
    for bad in ["../outside/layout.go", "/etc/passwd", "geo/../../x"] {
        assert!(
            matches!(
                kivgraph::source::read_in_repository(&root, bad),
                Err(kivgraph::source::Unavailable::Escapes { .. })
            ),
            "{bad}"
        );
    }
}

#[test]
fn item_033_get_source_escaping_path_is_a_bang_row() {
    let s = escaping_generation("../x/layout.go");
    let text = s.source(json!({"symbols": [qn("shapes", "Row"), qn("shapes", "Pi")]}));
    assert_eq!(
        source_rows(&text),
        [
            "! shapes ../x/layout.go Row \u{2014} path \"../x/layout.go\" escapes its repository",
            "@ shapes geo/geo.go:10-10 const Pi",
        ]
    );
}

#[cfg(unix)]
#[test]
fn item_034_get_source_symlink_component_is_a_bang_row() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    let root = s.repo("shapes");
    std::fs::rename(root.join("render"), root.join("render-real")).unwrap();
    std::os::unix::fs::symlink("render-real", root.join("render")).unwrap();
    let outside = s.dir.path().join("measure.go");
    std::fs::rename(root.join("geo/measure.go"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("geo/measure.go")).unwrap();
    let text = s.source(
        json!({"symbols": [qn("shapes", "Row"), qn("shapes", "Dist"), qn("shapes", "Pi")]}),
    );
    assert_eq!(
        source_rows(&text),
        [
            "! shapes render/layout.go Row \u{2014} path \"render/layout.go\" contains symlink component \"render\"",
            "! shapes geo/measure.go Dist \u{2014} path \"geo/measure.go\" contains symlink component \"geo/measure.go\"",
            "@ shapes geo/geo.go:10-10 const Pi",
        ]
    );
    assert!(!text.contains("func Row(") && !text.contains("func Dist("));
}

#[test]
fn item_035_get_source_has_no_limit_and_no_cursor() {
    let schema = (tool_def("get_source").schema)();
    let props = schema["properties"].as_object().unwrap();
    assert!(!props.contains_key("limit") && !props.contains_key("cursor"));
    for extra in [json!({"limit": 5}), json!({"cursor": "AgE"})] {
        invalid(&err(
            "get_source",
            with(&json!({"symbols": [qn("shapes", "Pi")]}), extra),
        ));
    }
}

/// The seed also sets "the envelope's `truncated`"; get_source answers prose and has no JSON
/// envelope (no structured content either), so its header line is the only place that can say
/// it stopped, and it does.
#[test]
fn item_036_get_source_byte_ceiling_trims_and_says_so() {
    let s = Scratch::new().with("shapes", "shapes");
    let mut big = String::from("package geo\n");
    for n in 1..=6 {
        big.push_str(&format!("\nfunc Big{n}() string {{\n\treturn \"\" +\n"));
        for _ in 0..1200 {
            big.push_str(&format!("\t\t\"{}\" +\n", "y".repeat(60)));
        }
        big.push_str("\t\t\"\"\n}\n");
    }
    s.write("shapes/geo/big.go", &big);
    s.compile(&["shapes"]);
    let mut symbols: Vec<Value> = (1..=6).map(|n| qn("shapes", &format!("Big{n}"))).collect();
    symbols.push(qn("shapes", "Pi"));
    let text = s.source(json!({ "symbols": symbols }));
    // Each body is about 80 KB: three fit under 262144 bytes, the fourth does not.
    assert_eq!(
        first_line(&text),
        "snapshot 1  3 bodies  context 0  trimmed 4 at the 262144 byte ceiling"
    );
    let served: usize = text.len() - first_line(&text).len() - 1;
    let bodies_only: usize = served
        - source_rows(&text)
            .iter()
            .map(|r| r.len() + 1)
            .sum::<usize>();
    assert!(bodies_only <= 262_144);
    assert_eq!(source_rows(&text).len(), 3);
    // Under the ceiling nothing says trimmed.
    let text = s.source(json!({"symbols": [qn("shapes", "Big1"), qn("shapes", "Pi")]}));
    assert_eq!(first_line(&text), "snapshot 1  2 bodies  context 0");
}

#[test]
fn item_037_get_source_never_emits_guidance() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    s.edit("shapes/geo/measure.go", |t| t.replace("Dist", "Distance"));
    // A complete answer, an answer with a refused row, and an answer with context.
    for args in [
        json!({"symbols": [qn("shapes", "Pi")]}),
        json!({"symbols": [qn("shapes", "Dist"), qn("shapes", "Pi")]}),
        json!({"symbols": [qn("shapes", "Row")], "context_lines": 100}),
    ] {
        let text = s.source(args);
        assert!(!text.contains("guidance"), "{text}");
        assert!(!text.contains("narrow with"), "{text}");
        for line in text.lines().skip(1) {
            assert!(!line.starts_with('{'), "no JSON block: {line}");
        }
    }
}

#[test]
fn item_038_get_source_bodies_counts_only_served_rows() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    s.edit("shapes/geo/measure.go", |t| t.replace("Dist", "Distance"));
    let text = s.source(
        json!({"symbols": [qn("shapes", "Pi"), qn("shapes", "Dist"), qn("shapes", "Circle.Area")]}),
    );
    assert_eq!(source_rows(&text).len(), 3, "three rows returned");
    assert_eq!(first_line(&text), "snapshot 1  2 bodies  context 0");
}

/// The seed's example, on this graph: a file that changed without moving the declaration.
#[test]
fn item_039_get_source_example_moved_but_unshifted() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    s.edit("shapes/geo/geo.go", |t| {
        format!("{t}\n// A comment after every declaration.\n")
    });
    let text = s.source(json!({
        "symbols": [{"repository": "shapes", "path": "geo/geo.go", "qualified_name": "NewCircle"}],
        "context_lines": 0
    }));
    let file = s.read("shapes/geo/geo.go");
    assert_eq!(
        text,
        format!(
            "snapshot 1  1 bodies  context 0\n@ shapes geo/geo.go:55-57 func NewCircle [file changed, re-anchored +0]\n{}",
            lines_of(&file, 55, 57)
        )
    );
    assert_eq!(
        text.lines().count(),
        2 + 3,
        "the function's three lines follow the header"
    );
}

// ---------------------------------------------------------------------------------------------
// 9.B Server surface
// ---------------------------------------------------------------------------------------------

#[test]
fn item_040_serve_speaks_mcp_over_stdio() {
    let mut s = Session::start(graph_dir());
    let init = s.initialize();
    assert_eq!(init["jsonrpc"], "2.0");
    let r = &init["result"];
    assert_eq!(r["protocolVersion"], "2025-06-18");
    assert_eq!(r["serverInfo"]["name"], "kivgraph");
    assert_eq!(r["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(r["capabilities"]["tools"]["listChanged"], true);
    let answer = s.request(
        "tools/call",
        json!({"name": "find_symbol", "arguments": {"name": "NewCircle"}}),
    );
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap()["total"], 1);
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
}

/// find_by_intent is being built concurrently (item 144): the test accepts the eleven other tools
/// with or without it, in the seed's order, and nothing else.
#[test]
fn item_041_published_generation_registers_the_twelve_tools() {
    let mut s = Session::start(graph_dir());
    s.initialize();
    let names: Vec<String> = s
        .tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<&str> = TWELVE
        .iter()
        .copied()
        .filter(|t| *t != "find_by_intent" || names.iter().any(|n| n == t))
        .collect();
    assert_eq!(names, expected);
}

#[test]
fn item_042_without_a_generation_only_index_project() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(dir.path());
    s.initialize();
    let names: Vec<String> = s
        .tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["index_project"]);
    let r = s.request(
        "tools/call",
        json!({"name": "get_symbol", "arguments": {"qualified_name": "Pi"}}),
    );
    assert!(r.get("error").is_some(), "{r}");
}

/// The seed's four paragraphs, literally.
const SEED_INSTRUCTIONS: [&str; 4] = [
    "Kivgraph answers \"what breaks if I change this\" from a published code graph over Go, TypeScript, Rust, Python and Dart. Before grepping or reading files to find callers, references or impact, call find_references or get_blast_radius; to read the code they name, call get_source. Check confidence and completeness: Python fallback facts can be CANDIDATE and external Dart packages can be UNRESOLVED.",
    "Its edges are resolved by go/types, the TypeScript checker and rust-analyzer, not by matching names, so a reference list is complete for those languages and an empty one means nobody calls it. Grep cannot tell you that.",
    "Rows are addressable: every one carries a repository, a repository-relative path, a qualified name and a line range, and every tool accepts that triple instead of a stable key.",
    "Where it loses: a rare name in a single small repository is cheaper to grep, and one small file is cheaper to read than to outline. It wins on common names, on transitive impact, on cross-repository consumers and on proving an absence.",
];

/// Paragraphs one, three and four are the seed's, byte for byte. The second one deliberately
/// differs: the seed says the edges come from go/types, the TypeScript checker and rust-analyzer,
/// which this implementation does not run, so it states its own resolution instead.
#[test]
fn item_043_instructions_are_the_seed_text() {
    let mut s = Session::start(graph_dir());
    let init = s.initialize();
    let text = init["result"]["instructions"].as_str().unwrap();
    assert_eq!(text, tools::INSTRUCTIONS);
    let paragraphs: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(paragraphs.len(), 4, "four paragraphs, one blank line apart");
    assert!(!text.contains("\n\n\n") && !text.ends_with('\n'));
    for i in [0, 2, 3] {
        assert_eq!(paragraphs[i], SEED_INSTRUCTIONS[i], "paragraph {}", i + 1);
    }
    let second = paragraphs[1];
    assert!(second.starts_with("Its edges are resolved by "));
    assert!(second.contains("not by matching names"));
    assert!(second.ends_with("an empty one means nobody calls it. Grep cannot tell you that."));
    for claim in [
        "go/types",
        "TypeScript checker",
        "rust-analyzer",
        "type-checked",
    ] {
        assert!(!second.contains(claim), "claims {claim}");
    }
    // Nothing in it comes from the graph: another generation gives the same text.
    let other = Scratch::new().with("inventory", "inventory");
    other.compile(&["inventory"]);
    let mut s2 = Session::start(&other.index());
    assert_eq!(
        s2.initialize()["result"]["instructions"],
        init["result"]["instructions"]
    );
}

#[test]
fn item_044_only_index_project_is_not_read_only() {
    let mut s = Session::start(graph_dir());
    s.initialize();
    for t in s.tools() {
        let a = &t["annotations"];
        if t["name"] == "index_project" {
            assert_eq!(a["readOnlyHint"], false);
            assert_eq!(a["destructiveHint"], true);
            assert_eq!(a["openWorldHint"], true);
            assert_eq!(a["title"], "Index project");
        } else {
            assert_eq!(a["readOnlyHint"], true, "{}", t["name"]);
        }
    }
}

#[test]
fn item_045_no_output_schema_and_one_text_block() {
    let mut s = Session::start(graph_dir());
    s.initialize();
    for t in s.tools() {
        assert!(t.get("outputSchema").is_none(), "{}", t["name"]);
    }
    for (tool, args) in [
        ("find_symbol", json!({"name": "NewCircle"})),
        ("get_source", json!({"symbols": [qn("shapes", "Pi")]})),
        ("graph_status", json!({})),
        ("get_symbol", json!({"qualified_name": "NoSuchThing"})),
    ] {
        let r = s.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = r["result"].as_object().unwrap();
        assert!(!result.contains_key("structuredContent"), "{tool}: {r}");
        let content = result["content"].as_array().unwrap();
        assert_eq!(content.len(), 1, "{tool}");
        assert_eq!(content[0]["type"], "text");
    }
}

/// The one-line descriptions of the original, except find_references: the seed's sentence says
/// "Type-checked", which this implementation is not, so its description states its own resolution
/// while keeping the same routing advice.
#[test]
fn item_046_descriptions_carry_the_routing_advice() {
    let originals = [
        (
            "get_blast_radius",
            "What a change to this symbol reaches, by repository, package, depth and relation kind. Grep does not follow a chain.",
        ),
        (
            "trace_dependencies",
            "What this symbol reaches outward, bounded by depth. Grep does not follow a chain.",
        ),
        (
            "find_cross_repo_consumers",
            "Consumers of a symbol in other repositories, exact uses kept apart from package-level dependencies. A language server stops at its workspace.",
        ),
        (
            "find_symbol",
            "Where a symbol is declared, by name, qualified name, prefix or substring. Narrow with kind, repo and path_prefix. A unique name in one repository is cheaper to grep.",
        ),
        (
            "get_symbol",
            "One symbol's package, signature, visibility and line range, by stable key or by repository, path and qualified name.",
        ),
        (
            "get_file_outline",
            "Declarations under a path, grouped by file, with kind, signature and range. Use it for a package; one small file is cheaper to read.",
        ),
        (
            "get_source",
            "The code of several symbols in one call. Prefer it to reading each range: no line numbers, one call across files and repositories.",
        ),
        (
            "list_repositories",
            "The repositories the published graph covers, with the commit each was indexed at.",
        ),
        (
            "graph_status",
            "The published generation: counts, provenance, and whether a repository moved since it was indexed. Call it when an answer looks stale.",
        ),
        (
            "index_project",
            "Registers projects and rebuilds the graph once, after explicit user approval. Pass every project in one call: a rebuild costs the whole corpus. It never writes inside the source projects.",
        ),
    ];
    let mut s = Session::start(graph_dir());
    s.initialize();
    let listed = s.tools();
    let description = |name: &str| {
        listed
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not listed"))["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (name, text) in originals {
        assert_eq!(description(name), text, "{name}");
    }
    let refs = description("find_references");
    for advice in [
        "Who calls or references a symbol.",
        "not name-matched: grep cannot separate homonyms",
        "an empty answer",
        "means nobody calls it",
        "A rare name in one repository is cheaper to grep.",
        "A bare name suffices: an ambiguous one returns its candidates, so no lookup call first.",
        "`view: \"files\"` answers which files without a line each.",
    ] {
        assert!(refs.contains(advice), "{advice:?} missing from {refs:?}");
    }
    assert!(!refs.contains("Type-checked"));
    for t in &listed {
        let d = t["description"].as_str().unwrap();
        assert!(
            !d.contains('\n') && !d.chars().any(|c| c.is_ascii_digit()),
            "{d}"
        );
        // The routing advice is in the description, not only in the schema.
        assert!(!d.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// 9.C Addressing a symbol
// ---------------------------------------------------------------------------------------------

/// The tools that take a symbol selector.
const SELECTOR_TOOLS: &[&str] = &[
    "find_references",
    "get_blast_radius",
    "trace_dependencies",
    "find_cross_repo_consumers",
    "get_symbol",
    "get_source",
];

/// Calls a selector tool with one selector (get_source wraps it in `symbols`).
fn call_selector(tool: &str, selector: Value) -> Result<String, ToolError> {
    let args = if tool == "get_source" {
        json!({ "symbols": [selector] })
    } else {
        selector
    };
    call_in(&graph(), tool, &args)
}

#[test]
fn item_047_every_symbol_tool_takes_a_key_or_the_triple() {
    let area = symbol(&graph(), "shapes", "Circle.Area");
    let triple =
        json!({"repository": "shapes", "path": "geo/geo.go", "qualified_name": "Circle.Area"});
    let key = json!({"stable_key": area.stable_key});
    for tool in SELECTOR_TOOLS {
        let by_key = call_selector(tool, key.clone()).unwrap_or_else(|e| panic!("{tool}: {e}"));
        let by_triple =
            call_selector(tool, triple.clone()).unwrap_or_else(|e| panic!("{tool}: {e}"));
        let strip = |t: String| {
            serde_json::from_str::<Value>(&t).map_or(t.clone(), |mut v| {
                if let Some(m) = v.as_object_mut() {
                    m.remove("snapshot_age_ms");
                }
                v.to_string()
            })
        };
        assert_eq!(strip(by_key), strip(by_triple), "{tool}");
    }
}

#[test]
fn item_048_key_and_qualified_name_together_are_refused() {
    let area = symbol(&graph(), "shapes", "Circle.Area");
    for tool in SELECTOR_TOOLS {
        let e = call_selector(
            tool,
            json!({"stable_key": area.stable_key, "qualified_name": "Circle.Area"}),
        )
        .unwrap_err();
        invalid(&e);
        assert!(
            e.message
                .ends_with("pass either stable_key or qualified_name, not both"),
            "{tool}: {e}"
        );
    }
}

#[test]
fn item_049_key_with_repository_or_path_is_refused() {
    let area = symbol(&graph(), "shapes", "Circle.Area");
    for tool in SELECTOR_TOOLS {
        for extra in [
            json!({"repository": "shapes"}),
            json!({"path": "geo/geo.go"}),
        ] {
            let e = call_selector(tool, with(&json!({"stable_key": area.stable_key}), extra))
                .unwrap_err();
            invalid(&e);
            assert!(
                e.message.ends_with(
                    "repository and path narrow a qualified_name; a stable_key already names one symbol"
                ),
                "{tool}: {e}"
            );
        }
    }
}

#[test]
fn item_050_path_without_repository_is_refused() {
    for tool in SELECTOR_TOOLS {
        let e = call_selector(
            tool,
            json!({"path": "geo/geo.go", "qualified_name": "Circle.Area"}),
        )
        .unwrap_err();
        invalid(&e);
        assert!(
            e.message
                .contains("path is repository-relative, so it requires repository"),
            "{tool}: {e}"
        );
    }
}

/// The seed's keys are 52 characters of base32 over a 256-bit digest; this implementation's are
/// 26 characters over xxh3-128 (half the tokens), still opaque base32 without padding.
#[test]
fn item_051_stable_keys_are_opaque_base32_left_out_of_compact_views() {
    let g = graph();
    let all: Vec<String> = g
        .graph()
        .symbols
        .iter()
        .map(|s| g.graph().strings.get(s.key.to_native()).to_string())
        .collect();
    for k in &all {
        assert_eq!(k.len(), 26, "{k}");
        assert!(
            k.bytes()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)),
            "{k}"
        );
    }
    for tool in VIEW_TOOLS {
        let text = call_in(&g, tool, &view_question(tool)).unwrap();
        for k in &all {
            assert!(
                !text.contains(k.as_str()),
                "{tool} compact carries the key {k}: {text}"
            );
        }
    }
    let text = call_in(
        &pair(),
        "find_cross_repo_consumers",
        &json!({"repository": "mathlib", "qualified_name": "Add"}),
    )
    .unwrap();
    assert!(
        !text.contains("stable_key") && !text.contains("_key\""),
        "{text}"
    );
}

/// Assembles (repository, path, qualified name, start line) from every compact row of a page and
/// checks that the triple addresses the very symbol the row is about.
fn assert_rows_address_themselves(g: &Arc<Generation>, tool: &str, args: Value) {
    let v = json_in(g, tool, args.clone());
    let r = &v["results"];
    let mut triples: Vec<(String, String, String, u64)> = Vec::new();
    match tool {
        "find_symbol" => {
            let repo = r.get("repository").and_then(Value::as_str);
            let header_name = r.get("name").and_then(Value::as_str);
            let rows: Vec<Value> = match r.get("groups") {
                Some(gs) => gs
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|g| g["symbols"].as_array().unwrap().clone())
                    .collect(),
                None => r["symbols"].as_array().unwrap().clone(),
            };
            for row in rows {
                let at = row["at"].as_str().unwrap();
                let (repo, rest) = match repo {
                    Some(rp) => (rp.to_string(), at.to_string()),
                    None => {
                        let (a, b) = at.split_once(':').unwrap();
                        (a.to_string(), b.to_string())
                    }
                };
                let (path, line) = rest.rsplit_once(':').unwrap();
                let qualified = row
                    .get("qn")
                    .or_else(|| row.get("name"))
                    .and_then(Value::as_str)
                    .or(header_name)
                    .unwrap();
                triples.push((repo, path.into(), qualified.into(), line.parse().unwrap()));
            }
        }
        "find_cross_repo_consumers" => {
            let rows: Vec<Value> = match r.get("groups") {
                Some(gs) => gs
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|g| g["consumers"].as_array().unwrap().clone())
                    .collect(),
                None => r["consumers"].as_array().unwrap().clone(),
            };
            for row in rows {
                if let (Some(at), Some(q)) = (row.get("at"), row.get("qualified_name")) {
                    let (path, line) = at.as_str().unwrap().rsplit_once(':').unwrap();
                    triples.push((
                        row["repo"].as_str().unwrap().into(),
                        path.into(),
                        q.as_str().unwrap().into(),
                        line.parse().unwrap(),
                    ));
                }
            }
        }
        _ => {
            let columns: &[&str] = match tool {
                "find_references" => REFERENCE_COLUMNS,
                "get_file_outline" => OUTLINE_COLUMNS,
                _ => WALK_COLUMNS,
            };
            for e in label_entries(r, columns) {
                let (q, start, _) = split_label(&e.label);
                triples.push((e.repo, e.file, q, start));
            }
        }
    }
    // A consumer that is a package dependency or an unresolved request names no declaration
    // (item 78); every symbol consumer does.
    let rows = if tool == "find_cross_repo_consumers" {
        let c = &v["coverage"];
        c["exact"].as_u64().unwrap_or(0) + c["candidate"].as_u64().unwrap_or(0)
    } else {
        v["returned"].as_u64().unwrap()
    };
    assert_eq!(triples.len() as u64, rows, "{tool} {v}");
    assert!(!triples.is_empty(), "{tool} {args}: no rows");
    for (repo, path, q, line) in triples {
        let got = json_in(
            g,
            "get_symbol",
            json!({"repository": repo, "path": path, "qualified_name": q}),
        );
        assert_eq!(
            got["results"]["start_line"], line,
            "{tool}: {repo} {path} {q}"
        );
        assert_eq!(got["results"]["file_path"], path.as_str());
    }
}

#[test]
fn item_052_every_row_carries_repository_path_name_and_lines() {
    let g = graph();
    for tool in VIEW_TOOLS {
        if *tool != "find_cross_repo_consumers" {
            assert_rows_address_themselves(&g, tool, view_question(tool));
        }
    }
    assert_rows_address_themselves(&g, "find_symbol", json!({"name": "main"}));
    assert_rows_address_themselves(
        &pair(),
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    // Rows state their line range: a label's end, a find_symbol row's `end`.
    let v = ok("find_symbol", json!({"name": "NewCircle"}));
    assert_eq!(v["results"]["symbols"][0]["end"], 57);
}

/// The seed's example on this graph: `NewCircle` in `shapes` instead of `MergeAll` in `kivgraph`.
#[test]
fn item_053_find_symbol_compact_example() {
    let v = ok(
        "find_symbol",
        json!({"name": "NewCircle", "repo": "shapes", "limit": 3}),
    );
    assert_eq!(
        v["results"],
        json!({"name": "NewCircle", "kind": "func", "exported": true, "repository": "shapes",
            "symbols": [{"at": "geo/geo.go:55", "end": 57, "sig": "func NewCircle(r float64) *Circle"}]})
    );
}

#[test]
fn item_054_find_symbol_at_names_the_repository_only_when_rows_span_several() {
    let one = ok("find_symbol", json!({"name": "main", "repo": "shapes"}));
    assert_eq!(one["results"]["repository"], "shapes");
    assert_eq!(one["results"]["symbols"][0]["at"], "cmd/shapes/main.go:14");
    let two = ok("find_symbol", json!({"name": "main"}));
    assert!(two["results"].get("repository").is_none());
    let ats: Vec<&str> = two["results"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["at"].as_str().unwrap())
        .collect();
    assert_eq!(
        ats,
        [
            "shapes:cmd/shapes/main.go:14",
            "inventory:cmd/inventory/main.go:12"
        ]
    );
}

/// The seed's example row lists nine fields; `signature` (the original's) and `language` (item 67:
/// the full view carries what compact drops) are on it too.
#[test]
fn item_055_find_symbol_full_row_fields() {
    let v = ok("find_symbol", json!({"name": "NewCircle", "view": "full"}));
    let row = v["results"][0].as_object().unwrap();
    let keys: Vec<&str> = row.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "stable_key",
            "name",
            "qualified_name",
            "kind",
            "signature",
            "exported",
            "repository",
            "file_path",
            "start_line",
            "end_line",
            "language"
        ]
    );
    assert_eq!(row["file_path"], "geo/geo.go");
    assert_eq!(
        (row["start_line"].as_u64(), row["end_line"].as_u64()),
        (Some(55), Some(57))
    );
    assert_eq!(row["language"], "go");
}

#[test]
fn item_056_a_row_feeds_the_next_call() {
    let found = ok(
        "find_symbol",
        json!({"name": "NewCircle", "repo": "shapes", "limit": 3}),
    );
    let r = &found["results"];
    let at = r["symbols"][0]["at"].as_str().unwrap();
    let (path, _) = at.rsplit_once(':').unwrap();
    let refs = ok(
        "find_references",
        json!({"repository": r["repository"], "path": path, "qualified_name": r["name"], "direction": "incoming", "limit": 3}),
    );
    assert_eq!(refs["results"]["subject"], "shapes:geo/geo.go:55");
    assert_eq!(refs["returned"], 3);
    assert_eq!(refs["total"], 5);
}

#[test]
fn item_057_at_file_path_and_path_are_the_same_repository_relative_path() {
    let compact = ok("find_symbol", json!({"name": "Store", "repo": "inventory"}));
    let full = ok(
        "find_symbol",
        json!({"name": "Store", "repo": "inventory", "view": "full"}),
    );
    let at = compact["results"]["symbols"][0]["at"].as_str().unwrap();
    let file_path = full["results"][0]["file_path"].as_str().unwrap();
    assert_eq!(at, format!("{file_path}:57"));
    assert!(!file_path.starts_with('/') && !file_path.contains(".."));
    let got = ok(
        "get_symbol",
        json!({"repository": "inventory", "path": file_path, "qualified_name": "Store"}),
    );
    assert_eq!(got["results"]["file_path"], file_path);
    assert!(
        got["results"]["repository_path"]
            .as_str()
            .unwrap()
            .starts_with('/'),
        "only the repository's own path is absolute"
    );
}

#[test]
fn item_058_find_references_takes_a_bare_name() {
    let by_name = ok("find_references", json!({"name": "NewCircle"}));
    let by_qn = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "NewCircle"}),
    );
    assert_eq!(by_name["results"]["subject"], "shapes:geo/geo.go:55");
    assert_eq!(by_name["total"], by_qn["total"]);
    assert_eq!(by_name["results"]["files"], by_qn["results"]["files"]);
    assert_eq!(by_name["results"]["groups"], by_qn["results"]["groups"]);
}

#[test]
fn item_059_find_references_ambiguous_name_lists_candidates() {
    let e = err("find_references", json!({"name": "Area"}));
    assert_eq!(e.code, "AMBIGUOUS_SYMBOL");
    assert!(
        e.message.starts_with(
            "name \"Area\" declares 3 symbols; repeat with the repository and path of the one you mean: "
        ),
        "{e}"
    );
    for c in [
        "shapes:geo/geo.go:23",
        "shapes:geo/geo.go:60",
        "shapes:geo/geo.go:81",
    ] {
        assert!(e.message.contains(c), "{c} missing: {e}");
    }
    let e = err("find_references", json!({"name": "String"}));
    assert!(e.message.contains("inventory:store/store.go:18"), "{e}");
    assert_eq!(
        e.message.matches(", ").count(),
        3,
        "all four candidates: {e}"
    );
}

#[test]
fn item_060_get_file_outline_labels_with_kind_and_signature_on_request() {
    let v = ok(
        "get_file_outline",
        json!({"repository": "shapes", "path": "geo/measure.go"}),
    );
    let r = &v["results"];
    assert_eq!(r["repository"], "shapes");
    let files = r["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["file"], "geo/measure.go");
    let at = files[0]["at"].as_array().unwrap();
    assert!(at.contains(&json!(["Dist@6-8", "func", "exported"])), "{v}");
    assert!(
        at.contains(&json!(["Circle.Bounds@26-29", "method", "exported"])),
        "{v}"
    );
    assert!(
        !v.to_string().contains("func Dist("),
        "no signature by default"
    );
    let detailed = ok(
        "get_file_outline",
        json!({"repository": "shapes", "path": "geo/measure.go", "response_format": "detailed"}),
    );
    assert!(
        detailed
            .to_string()
            .contains("func Dist(a, b Point) float64"),
        "{detailed}"
    );
}

#[test]
fn item_061_an_ambiguous_qualified_name_is_never_picked() {
    for tool in SELECTOR_TOOLS {
        let e = call_selector(tool, json!({"qualified_name": "main"})).unwrap_err();
        assert_eq!(e.code, "AMBIGUOUS_SYMBOL", "{tool}: {e}");
    }
}

/// Two `init` functions in one file and one in another: names only a key separates.
fn inits() -> Scratch {
    let s = Scratch::new().with("shapes", "shapes");
    s.write(
        "shapes/geo/inits.go",
        "package geo\n\nfunc init() {}\n\nfunc init() {}\n",
    );
    s.write(
        "shapes/render/inits.go",
        "package render\n\nfunc init() {}\n",
    );
    s.compile(&["shapes"]);
    s
}

#[test]
fn item_062_ambiguity_without_narrowing_names_locations() {
    let e = err("get_symbol", json!({"qualified_name": "main"}));
    assert_eq!(
        e.to_string(),
        "AMBIGUOUS_SYMBOL: qualified name \"main\" names 2 symbols; narrow with repository and path: shapes cmd/shapes/main.go:14-35, inventory cmd/inventory/main.go:12-31"
    );
}

#[test]
fn item_063_stable_keys_are_listed_only_when_fully_narrowed() {
    let s = inits();
    let g = s.generation();
    let keys: Vec<String> = g
        .graph()
        .symbols
        .iter()
        .filter(|r| g.graph().strings.get(r.qualified_name.to_native()) == "init")
        .map(|r| g.graph().strings.get(r.key.to_native()).to_string())
        .collect();
    assert_eq!(keys.len(), 3);
    let narrowed = err_in(
        &g,
        "get_symbol",
        json!({"repository": "shapes", "path": "geo/inits.go", "qualified_name": "init"}),
    );
    assert_eq!(narrowed.code, "AMBIGUOUS_SYMBOL");
    assert!(
        narrowed.message.starts_with(
            "qualified name \"init\" names 2 symbols in shapes geo/inits.go, so only a stable_key separates them: "
        ),
        "{narrowed}"
    );
    assert_eq!(
        keys.iter()
            .filter(|k| narrowed.message.contains(k.as_str()))
            .count(),
        2
    );
    for partial in [
        json!({"qualified_name": "init"}),
        json!({"repository": "shapes", "qualified_name": "init"}),
    ] {
        let e = err_in(&g, "get_symbol", partial);
        assert!(
            e.message.contains("narrow with repository and path: ")
                && e.message.contains("shapes geo/inits.go:3-3")
                && e.message.contains("shapes render/inits.go:3-3"),
            "{e}"
        );
        for k in &keys {
            assert!(
                !e.message.contains(k.as_str()),
                "a key before full narrowing: {e}"
            );
        }
    }
    // The key then names one.
    let got = json_in(&g, "get_symbol", json!({"stable_key": keys[0]}));
    assert_eq!(got["results"]["qualified_name"], "init");
}

#[test]
fn item_064_get_symbol_not_found_message() {
    let e = err(
        "get_symbol",
        json!({"repository": "shapes", "qualified_name": "NoSuchThing"}),
    );
    assert_eq!(
        e.to_string(),
        "SYMBOL_NOT_FOUND: qualified name \"NoSuchThing\" was not found under shapes; call it without repository and path to search the whole graph"
    );
    let mut s = Session::start(graph_dir());
    s.initialize();
    let r = s.request(
        "tools/call",
        json!({"name": "get_symbol", "arguments": {"repository": "shapes", "qualified_name": "NoSuchThing"}}),
    );
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["content"][0]["text"], e.to_string());
}

// ---------------------------------------------------------------------------------------------
// 9.D Views
// ---------------------------------------------------------------------------------------------

/// The full view of a question, with `limit` raised so one page holds every row.
fn full_of(g: &Arc<Generation>, tool: &str, args: &Value) -> Value {
    json_in(g, tool, with(args, json!({"view": "full", "limit": 500})))
}

/// The envelope counters with the compact view's omissions filled in.
fn counters(v: &Value) -> (u64, u64, bool, [u64; 4]) {
    let c = |k: &str| v["coverage"].get(k).and_then(Value::as_u64).unwrap_or(0);
    (
        v["total"].as_u64().unwrap(),
        v["returned"].as_u64().unwrap(),
        v.get("truncated").and_then(Value::as_bool).unwrap_or(false),
        [
            c("exact"),
            c("candidate"),
            c("unresolved_related"),
            c("package_level"),
        ],
    )
}

#[test]
fn item_065_view_changes_granularity_never_the_answer() {
    let g = graph();
    for tool in VIEW_TOOLS {
        let args = view_question(tool);
        let compact = json_in(&g, tool, args.clone());
        let full = json_in(&g, tool, with(&args, json!({"view": "full"})));
        assert_eq!(counters(&compact), counters(&full), "{tool}");
        assert_eq!(compact["completeness"], full["completeness"], "{tool}");
        assert_eq!(compact.get("guidance"), full.get("guidance"), "{tool}");
    }
    // Same edges, same confidence and provenance, spelled as labels or as rows.
    let args = json!({"repository": "shapes", "qualified_name": "Rect"});
    let full = full_of(&g, "find_references", &args);
    let compact = json_in(&g, "find_references", with(&args, json!({"limit": 500})));
    assert_compact_spells_full(&compact, &expected_references(&full), REFERENCE_COLUMNS);
    let files = json_in(&g, "find_references", with(&args, json!({"view": "files"})));
    assert_eq!(counters(&files), counters(&full));
}

#[test]
fn item_066_compact_is_the_default_view() {
    let g = graph();
    for tool in VIEW_TOOLS {
        let args = view_question(tool);
        let default = call_in(&g, tool, &args).unwrap();
        let compact = call_in(&g, tool, &with(&args, json!({"view": "compact"}))).unwrap();
        assert_eq!(default, compact, "{tool}");
        assert!(!default.contains("snapshot_age_ms"), "{tool}");
    }
}

#[test]
fn item_067_full_view_carries_every_field_keys_and_language() {
    let g = graph();
    // find_symbol: the key and the language on every row.
    let v = full_of(&g, "find_symbol", &json!({"name": "S", "mode": "prefix"}));
    let rows = v["results"].as_array().unwrap();
    let keys: Vec<Vec<&String>> = rows
        .iter()
        .map(|r| r.as_object().unwrap().keys().collect())
        .collect();
    assert!(
        keys.windows(2).all(|w| w[0] == w[1]),
        "every field on every row"
    );
    for r in rows {
        assert_eq!(r["stable_key"].as_str().unwrap().len(), 26);
        assert_eq!(r["language"], "go");
    }
    // find_references, traversals, outline: the same fields on every row, language included,
    // and the subject's or root's key.
    for (tool, args, rows_at, key_at) in [
        (
            "find_references",
            json!({"name": "NewCircle"}),
            "/results/references",
            "/results/subject/stable_key",
        ),
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Point"}),
            "/results/symbols",
            "/results/root_key",
        ),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "main"}),
            "/results/nodes",
            "/results/root_key",
        ),
    ] {
        let v = full_of(&g, tool, &args);
        let rows = v.pointer(rows_at).unwrap().as_array().unwrap();
        assert!(!rows.is_empty());
        let first: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
        for r in rows {
            assert_eq!(
                r.as_object().unwrap().keys().collect::<Vec<_>>(),
                first,
                "{tool}"
            );
            assert_eq!(r["language"], "go", "{tool}");
        }
        assert_eq!(
            v.pointer(key_at).unwrap().as_str().unwrap().len(),
            26,
            "{tool}"
        );
        // The compact view drops the language.
        let compact = call_in(&g, tool, &args).unwrap();
        assert!(!compact.contains("\"language\""), "{tool}");
    }
    let outline = full_of(
        &g,
        "get_file_outline",
        &json!({"repository": "shapes", "path": "geo"}),
    );
    assert_eq!(outline["results"]["languages"], json!(["go"]));
    for f in outline["results"]["files"].as_array().unwrap() {
        for s in f["symbols"].as_array().unwrap() {
            for k in [
                "name",
                "kind",
                "signature",
                "exported",
                "start_line",
                "end_line",
            ] {
                assert!(s.get(k).is_some(), "{k} missing from {s}");
            }
        }
    }
}

#[test]
fn item_068_files_view_on_find_references_and_get_file_outline() {
    let refs = ok(
        "find_references",
        json!({"name": "NewCircle", "view": "files"}),
    );
    let files = refs["results"]["files"].as_array().unwrap();
    let mut paths: Vec<&str> = files.iter().map(|f| f["file"].as_str().unwrap()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "shapes/cmd/shapes/main.go",
            "shapes/geo/geo_test.go",
            "shapes/render/layout.go"
        ]
    );
    let counted: u64 = files.iter().map(|f| f["count"].as_u64().unwrap()).sum();
    assert_eq!(counted, refs["total"].as_u64().unwrap());
    for f in files {
        assert_eq!(
            f.as_object().unwrap().len(),
            2,
            "only the file and a count: {f}"
        );
    }
    let outline = ok(
        "get_file_outline",
        json!({"repository": "shapes", "path": "geo", "view": "files"}),
    );
    let files = outline["results"]["files"].as_array().unwrap();
    assert!(
        files
            .iter()
            .all(|f| f["declarations"].as_u64().unwrap() > 0)
    );
    let counted: u64 = files
        .iter()
        .map(|f| f["declarations"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, outline["returned"].as_u64().unwrap());
    assert!(
        !outline.to_string().contains("@"),
        "no label rows in the files view"
    );
}

#[test]
fn item_069_unsupported_view_is_invalid() {
    let g = graph();
    for tool in VIEW_TOOLS {
        for bad in ["tree", "FULL", "", "rows"] {
            let e = err_in(&g, tool, with(&view_question(tool), json!({"view": bad})));
            invalid(&e);
            assert_eq!(
                e.message,
                format!("view {bad:?} is unsupported, use \"compact\", \"full\" or \"files\""),
                "{tool}"
            );
        }
    }
    // Tools without a view refuse the argument.
    for (tool, args) in [
        (
            "get_symbol",
            json!({"repository": "shapes", "qualified_name": "Pi", "view": "full"}),
        ),
        ("list_repositories", json!({"view": "full"})),
        ("graph_status", json!({"view": "compact"})),
        (
            "get_source",
            json!({"symbols": [qn("shapes", "Pi")], "view": "full"}),
        ),
    ] {
        invalid(&err_in(&g, tool, args));
    }
}

#[test]
fn item_070_files_view_elsewhere_is_invalid() {
    let g = graph();
    for tool in [
        "get_blast_radius",
        "trace_dependencies",
        "find_cross_repo_consumers",
        "find_symbol",
    ] {
        let e = err_in(
            &g,
            tool,
            with(&view_question(tool), json!({"view": "files"})),
        );
        invalid(&e);
        assert_eq!(
            e.message, "view \"files\" is unsupported for this tool, use \"compact\" or \"full\"",
            "{tool}"
        );
    }
}

#[test]
fn item_071_a_page_continues_in_another_view() {
    let g = graph();
    let args = json!({"repository": "shapes", "qualified_name": "Rect"});
    let whole = full_of(&g, "find_references", &args);
    let first = json_in(&g, "find_references", with(&args, json!({"limit": 4})));
    let cursor = first["next_cursor"].as_str().unwrap();
    let second = json_in(
        &g,
        "find_references",
        with(&args, json!({"limit": 4, "view": "full", "cursor": cursor})),
    );
    assert_eq!(
        second["results"]["references"],
        json!(whole["results"]["references"].as_array().unwrap()[4..8])
    );
    let third = json_in(
        &g,
        "find_references",
        with(
            &args,
            json!({"limit": 4, "view": "files", "cursor": second["next_cursor"]}),
        ),
    );
    assert_eq!(third["returned"], 4);
    for (tool, args) in [
        ("find_symbol", json!({"name": "S", "mode": "prefix"})),
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Point"}),
        ),
        (
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo"}),
        ),
    ] {
        let first = json_in(&g, tool, with(&args, json!({"limit": 2, "view": "full"})));
        let next = json_in(
            &g,
            tool,
            with(&args, json!({"limit": 2, "cursor": first["next_cursor"]})),
        );
        assert_eq!(next["returned"], 2, "{tool}");
    }
}

#[test]
fn item_072_four_tools_group_rows_by_file_as_labels() {
    let g = graph();
    for (tool, columns) in [
        ("find_references", REFERENCE_COLUMNS),
        ("get_blast_radius", WALK_COLUMNS),
        ("trace_dependencies", WALK_COLUMNS),
        ("get_file_outline", OUTLINE_COLUMNS),
    ] {
        let v = json_in(&g, tool, view_question(tool));
        let r = &v["results"];
        let file_lists: Vec<&Value> = match r.get("groups") {
            Some(gs) => gs.as_array().unwrap().iter().map(|g| &g["files"]).collect(),
            None => vec![&r["files"]],
        };
        for files in file_lists {
            let mut seen = Vec::new();
            for f in files.as_array().unwrap() {
                let key = (f.get("repo").cloned(), f["file"].clone());
                assert!(!seen.contains(&key), "{tool}: a file appears once per list");
                seen.push(key);
            }
        }
        let entries = label_entries(r, columns);
        assert_eq!(
            entries.len() as u64,
            v["returned"].as_u64().unwrap(),
            "{tool}"
        );
        for e in entries {
            let (q, start, end) = split_label(&e.label);
            assert!(
                !q.is_empty() && start > 0 && end >= start,
                "{tool}: {}",
                e.label
            );
        }
    }
}

#[test]
fn item_073_header_fields_hold_for_every_row() {
    let g = graph();
    for args in [
        json!({"name": "NewCircle"}),
        json!({"repository": "inventory", "qualified_name": "Store.Len"}),
        json!({"repository": "shapes", "qualified_name": "Rect"}),
        json!({"repository": "shapes", "qualified_name": "Pi"}),
        json!({"repository": "inventory", "qualified_name": "Base"}),
        json!({"repository": "inventory", "qualified_name": "Store.Items", "direction": "outgoing"}),
    ] {
        let compact = json_in(&g, "find_references", with(&args, json!({"limit": 500})));
        let full = full_of(&g, "find_references", &args);
        let rows = full["results"]["references"].as_array().unwrap();
        for c in REFERENCE_COLUMNS {
            let values: std::collections::BTreeSet<String> =
                rows.iter().map(|r| r[*c].to_string()).collect();
            match compact["results"].get(*c) {
                Some(v) => assert_eq!(
                    values.into_iter().collect::<Vec<_>>(),
                    [v.to_string()],
                    "{c}"
                ),
                None => assert!(
                    values.len() > 1,
                    "{c} is missing from the header yet rows agree: {compact}"
                ),
            }
        }
        assert_compact_spells_full(&compact, &expected_references(&full), REFERENCE_COLUMNS);
    }
}

#[test]
fn item_074_label_spelling() {
    let v = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Circle.Area", "direction": "outgoing"}),
    );
    let labels: Vec<String> = label_entries(&v["results"], REFERENCE_COLUMNS)
        .into_iter()
        .map(|e| e.label)
        .collect();
    // Single-line declarations are `qualified_name@start`.
    assert!(labels.contains(&"Pi@10".to_string()), "{labels:?}");
    assert!(
        labels.contains(&"Circle.Radius@51".to_string()),
        "{labels:?}"
    );
    let v = ok("find_references", json!({"name": "NewCircle"}));
    let labels: Vec<String> = label_entries(&v["results"], REFERENCE_COLUMNS)
        .into_iter()
        .map(|e| e.label)
        .collect();
    // Spanning declarations are `qualified_name@start-end`.
    assert!(labels.contains(&"main@14-35".to_string()), "{labels:?}");
    // Every Go symbol has a qualified name; the bare-name spelling is covered by the unit test
    // `labels` in src/tools/labels.rs.
}

#[test]
fn item_075_label_becomes_an_array_with_the_fixed_column_order() {
    let g = graph();
    // find_references: kind varies, the rest is hoisted.
    let v = ok(
        "find_references",
        json!({"repository": "inventory", "qualified_name": "Store.Len"}),
    );
    let entries = label_entries(&v["results"], REFERENCE_COLUMNS);
    assert!(entries.iter().all(|e| e.tail.len() == 1), "{v}");
    assert!(v.to_string().contains("[\"Build@22-31\",\"func\"]"), "{v}");
    // All four columns vary: edge_kind, kind, confidence, provenance, in that order.
    let v = ok(
        "find_references",
        json!({"repository": "inventory", "qualified_name": "Base"}),
    );
    assert!(
        v["results"]["files"][0]["at"]
            .as_array()
            .unwrap()
            .contains(&json!([
                "Store@57-60",
                "EMBEDS",
                "type",
                "STRUCTURAL_CERTAIN",
                "GO_DECLARATION"
            ])),
        "{v}"
    );
    for args in [
        json!({"repository": "shapes", "qualified_name": "Rect"}),
        json!({"repository": "inventory", "qualified_name": "Base"}),
        json!({"repository": "inventory", "qualified_name": "TopItem", "direction": "outgoing"}),
    ] {
        let compact = json_in(&g, "find_references", with(&args, json!({"limit": 500})));
        assert_compact_spells_full(
            &compact,
            &expected_references(&full_of(&g, "find_references", &args)),
            REFERENCE_COLUMNS,
        );
    }
    // Traversals and outlines, with their own orders.
    for (tool, args, rows) in [
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Point"}),
            "symbols",
        ),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "main"}),
            "nodes",
        ),
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Circle.Radius"}),
            "symbols",
        ),
        (
            "get_blast_radius",
            json!({"repository": "inventory", "qualified_name": "Base"}),
            "symbols",
        ),
        (
            "get_blast_radius",
            json!({"repository": "inventory", "qualified_name": "Item.Price"}),
            "symbols",
        ),
    ] {
        let compact = json_in(&g, tool, with(&args, json!({"limit": 500})));
        assert_compact_spells_full(
            &compact,
            &expected_walk(&full_of(&g, tool, &args), rows),
            WALK_COLUMNS,
        );
    }
    for path in ["geo", "geo/measure.go", "store", "."] {
        for repo in ["shapes", "inventory"] {
            let args = json!({"repository": repo, "path": path});
            let Ok(text) = call_in(&g, "get_file_outline", &with(&args, json!({"limit": 500})))
            else {
                continue;
            };
            let compact: Value = serde_json::from_str(&text).unwrap();
            assert_compact_spells_full(
                &compact,
                &expected_outline(&full_of(&g, "get_file_outline", &args)),
                OUTLINE_COLUMNS,
            );
        }
    }
}

#[test]
fn item_076_numbers_in_a_tail_are_strings() {
    let v = ok(
        "get_blast_radius",
        json!({"repository": "shapes", "qualified_name": "Point"}),
    );
    let entries = label_entries(&v["results"], WALK_COLUMNS);
    let mut depths = 0;
    for e in &entries {
        for t in &e.tail {
            assert!(t.is_string(), "{t} in {e:?}");
        }
        depths += e
            .tail
            .iter()
            .filter(|t| ["1", "2", "3"].contains(&t.as_str().unwrap()))
            .count();
    }
    assert!(depths > 0, "hop depths travel in the tails: {v}");
}

#[test]
fn item_077_the_triple_is_assembled_from_header_group_and_label() {
    let g = graph();
    // Grouped, one repository in the header.
    assert_rows_address_themselves(&g, "find_references", json!({"name": "NewCircle"}));
    // Rows from two repositories: each file entry carries its own `repo`.
    let v = ok_pair(
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert!(v["results"].get("repository").is_none());
    let entries = label_entries(&v["results"], REFERENCE_COLUMNS);
    let repos: std::collections::BTreeSet<&str> = entries.iter().map(|e| e.repo.as_str()).collect();
    assert_eq!(repos.into_iter().collect::<Vec<_>>(), ["app", "mathlib"]);
    assert_rows_address_themselves(
        &pair(),
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert_rows_address_themselves(
        &g,
        "get_blast_radius",
        json!({"repository": "shapes", "qualified_name": "Circle.Radius"}),
    );
}

#[test]
fn item_078_find_symbol_and_consumers_spell_rows_as_objects() {
    let v = ok("find_symbol", json!({"name": "main"}));
    for r in v["results"]["symbols"].as_array().unwrap() {
        assert!(r.is_object() && r.get("at").is_some());
    }
    let v = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Vec.Len"}),
    );
    let consumers = v["results"]["consumers"].as_array().unwrap();
    assert!(!consumers.is_empty());
    for c in consumers {
        assert!(c.get("repo").is_some() && c.get("pkg").is_some(), "{c}");
        if c["category"] == "package" {
            assert!(
                c.get("at").is_none(),
                "a package dependency has no file: {c}"
            );
        } else {
            assert!(c["at"].as_str().unwrap().contains(':'), "{c}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 9.E Grouping
// ---------------------------------------------------------------------------------------------

/// find_symbol rows as the full view spells them, one per compact row.
fn find_symbol_rows(results: &Value) -> Vec<Value> {
    match results.get("groups") {
        Some(gs) => gs
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["symbols"].as_array().unwrap().clone())
            .collect(),
        None => results["symbols"].as_array().unwrap().clone(),
    }
}

#[test]
fn item_079_one_dissenting_row_knocks_a_column_off_the_header() {
    let g = graph();
    for (name, mode) in [
        ("NewCircle", "exact"),
        ("Area", "exact"),
        ("main", "exact"),
        ("Restock", "exact"),
        ("S", "prefix"),
        ("e", "substring"),
    ] {
        let args = json!({"name": name, "mode": mode, "limit": 500});
        let compact = json_in(&g, "find_symbol", args.clone());
        let full = full_of(&g, "find_symbol", &args);
        let rows = full["results"].as_array().unwrap();
        for c in ["kind", "exported", "repository"] {
            let agree = rows.iter().all(|r| r[c] == rows[0][c]);
            assert_eq!(
                compact["results"].get(c).is_some(),
                agree,
                "{name}/{c}: {compact}"
            );
            if agree {
                assert_eq!(compact["results"][c], rows[0][c]);
            }
        }
    }
    // One row of another kind is enough: `Restock` is a method and a func.
    let v = ok("find_symbol", json!({"name": "Restock"}));
    assert!(v["results"].get("kind").is_none());
    for r in v["results"]["symbols"].as_array().unwrap() {
        assert!(
            r.get("kind").is_some(),
            "the column went back to every row: {v}"
        );
    }
}

#[test]
fn item_080_the_six_compact_tools_try_grouping() {
    let g = graph();
    for (tool, args) in [
        ("find_symbol", json!({"name": "S", "mode": "prefix"})),
        ("find_references", json!({"name": "NewCircle"})),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "Circle.Bounds"}),
        ),
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Circle.Radius"}),
        ),
        (
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo/geo.go", "include_members": true}),
        ),
    ] {
        let v = json_in(&g, tool, args);
        assert!(v["results"].get("groups").is_some(), "{tool}: {v}");
    }
    let v = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert!(v["results"].get("groups").is_some(), "{v}");
}

/// Pages that group, with the flat field the groups replace.
fn grouped_pages() -> Vec<(Value, &'static str)> {
    let g = graph();
    vec![
        (
            json_in(&g, "find_symbol", json!({"name": "S", "mode": "prefix"})),
            "symbols",
        ),
        (
            json_in(&g, "find_references", json!({"name": "NewCircle"})),
            "files",
        ),
        (
            json_in(
                &g,
                "trace_dependencies",
                json!({"repository": "shapes", "qualified_name": "Circle.Bounds"}),
            ),
            "files",
        ),
        (
            json_in(
                &g,
                "get_blast_radius",
                json!({"repository": "shapes", "qualified_name": "Circle.Radius"}),
            ),
            "files",
        ),
        (
            json_in(
                &g,
                "get_file_outline",
                json!({"repository": "shapes", "path": "geo/geo.go", "include_members": true}),
            ),
            "files",
        ),
        (
            ok_pair(
                "find_cross_repo_consumers",
                json!({"repository": "mathlib", "qualified_name": "Add"}),
            ),
            "consumers",
        ),
    ]
}

#[test]
fn item_081_groups_replace_the_flat_field() {
    for (v, flat) in grouped_pages() {
        let r = &v["results"];
        assert!(r.get("groups").is_some(), "{v}");
        assert!(r.get(flat).is_none(), "{flat} beside groups: {v}");
    }
    // And a flat page has no groups.
    let v = ok("find_symbol", json!({"name": "main"}));
    assert!(v["results"].get("groups").is_none() && v["results"].get("symbols").is_some());
}

#[test]
fn item_082_a_group_is_its_columns_then_the_normal_rows() {
    for (v, flat) in grouped_pages() {
        for group in v["results"]["groups"].as_array().unwrap() {
            let keys: Vec<&String> = group.as_object().unwrap().keys().collect();
            assert_eq!(
                keys.last().unwrap().as_str(),
                flat,
                "rows come last: {group}"
            );
            assert!(
                keys.len() >= 2,
                "a group fixes at least one column: {group}"
            );
            let rows = group[flat].as_array().unwrap();
            assert!(!rows.is_empty());
            for row in rows {
                match flat {
                    // The label list under `files`, each file entry as on a flat page.
                    "files" => assert!(row.get("file").is_some() && row["at"].is_array(), "{row}"),
                    _ => assert!(
                        row.is_object() && row.get("repo").or(row.get("at")).is_some(),
                        "{row}"
                    ),
                }
            }
            for (k, val) in group.as_object().unwrap() {
                if k != flat {
                    assert!(
                        !val.is_array() && !val.is_object(),
                        "{k} is a column: {group}"
                    );
                }
            }
        }
    }
}

#[test]
fn item_083_header_columns_are_never_repeated_on_groups() {
    for (v, flat) in grouped_pages() {
        let r = v["results"].as_object().unwrap();
        for group in r["groups"].as_array().unwrap() {
            for k in group.as_object().unwrap().keys() {
                if k != flat {
                    assert!(
                        !r.contains_key(k),
                        "{k} is on the header and on a group: {v}"
                    );
                }
            }
        }
    }
    // A column that still disagrees inside a group stays on the rows (here: `reached_from`
    // hoists inside a group, `name` and the others stay where they disagree).
    let g = graph();
    let args = json!({"repository": "shapes", "qualified_name": "Circle.Radius"});
    let compact = json_in(&g, "get_blast_radius", args.clone());
    assert_compact_spells_full(
        &compact,
        &expected_walk(&full_of(&g, "get_blast_radius", &args), "symbols"),
        WALK_COLUMNS,
    );
    let args = json!({"repository": "shapes", "path": "geo/geo.go", "include_members": true});
    let compact = json_in(&g, "get_file_outline", args.clone());
    assert_compact_spells_full(
        &compact,
        &expected_outline(&full_of(&g, "get_file_outline", &args)),
        OUTLINE_COLUMNS,
    );
}

fn json_len(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().len()
}

#[test]
fn item_084_groups_only_when_smaller() {
    // A grouped page: the flat spelling of the same rows is longer.
    let v = ok("find_symbol", json!({"name": "S", "mode": "prefix"}));
    let r = v["results"].as_object().unwrap();
    let mut flat = r.clone();
    flat.remove("groups");
    let mut rows = Vec::new();
    for g in r["groups"].as_array().unwrap() {
        for row in g["symbols"].as_array().unwrap() {
            let mut row = row.as_object().unwrap().clone();
            for (k, val) in g.as_object().unwrap() {
                if k != "symbols" {
                    row.insert(k.clone(), val.clone());
                }
            }
            rows.push(Value::Object(row));
        }
    }
    flat.insert("symbols".into(), Value::Array(rows));
    assert!(json_len(&v["results"]) < json_len(&Value::Object(flat)));
    // A page whose column varies but whose grouping would cost more stays flat.
    let v = ok("find_symbol", json!({"name": "Restock"}));
    let r = v["results"].as_object().unwrap();
    assert!(r.get("groups").is_none());
    let mut grouped = r.clone();
    grouped.remove("symbols");
    let groups: Vec<Value> = r["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let mut row = row.as_object().unwrap().clone();
            let kind = row.remove("kind").unwrap();
            json!({"kind": kind, "symbols": [row]})
        })
        .collect();
    grouped.insert("groups".into(), Value::Array(groups));
    assert!(json_len(&v["results"]) <= json_len(&Value::Object(grouped)));
    // The same bet on a label page: NewCircle's callers group by provenance.
    let v = ok("find_references", json!({"name": "NewCircle"}));
    let r = v["results"].as_object().unwrap();
    let mut flat = r.clone();
    flat.remove("groups");
    let mut files: Vec<Value> = Vec::new();
    for g in r["groups"].as_array().unwrap() {
        let provenance = g["provenance"].clone();
        for f in g["files"].as_array().unwrap() {
            let at: Vec<Value> = f["at"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| json!([l, provenance]))
                .collect();
            files.push(json!({"file": f["file"], "at": at}));
        }
    }
    flat.insert("files".into(), Value::Array(files));
    assert!(json_len(&v["results"]) < json_len(&Value::Object(flat)));
}

#[test]
fn item_085_grouping_changes_no_counter() {
    let g = graph();
    for (tool, args, rows) in [
        (
            "find_references",
            json!({"name": "NewCircle"}),
            "/results/references",
        ),
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Circle.Radius"}),
            "/results/symbols",
        ),
        (
            "find_symbol",
            json!({"name": "S", "mode": "prefix"}),
            "/results",
        ),
    ] {
        let compact = json_in(&g, tool, args.clone());
        assert!(compact["results"].get("groups").is_some());
        let full = json_in(&g, tool, with(&args, json!({"view": "full"})));
        assert_eq!(counters(&compact), counters(&full), "{tool}");
        let listed = full.pointer(rows).unwrap().as_array().unwrap().len() as u64;
        assert_eq!(compact["returned"].as_u64().unwrap(), listed, "{tool}");
        let in_groups = match tool {
            "find_symbol" => find_symbol_rows(&compact["results"]).len(),
            "find_references" => label_entries(&compact["results"], REFERENCE_COLUMNS).len(),
            _ => label_entries(&compact["results"], WALK_COLUMNS).len(),
        } as u64;
        assert_eq!(in_groups, listed, "{tool}");
    }
    let compact = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    let full = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add", "view": "full"}),
    );
    assert_eq!(counters(&compact), counters(&full));
}

/// The seed's example (`handle` across two repositories and three kinds, `exported:false` on the
/// header) on this graph: the names starting with `S` span both repositories and five kinds, and
/// all are exported.
#[test]
fn item_086_find_symbol_grouped_example() {
    let v = ok("find_symbol", json!({"name": "S", "mode": "prefix"}));
    let r = &v["results"];
    assert_eq!(r["exported"], true);
    assert!(r.get("kind").is_none() && r.get("repository").is_none());
    let groups = r["groups"].as_array().unwrap();
    let kinds: Vec<&str> = groups.iter().map(|g| g["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["func", "field", "const", "method", "type"]);
    let mut repos = std::collections::BTreeSet::new();
    for g in groups {
        assert_eq!(g.as_object().unwrap().len(), 2, "kind and symbols: {g}");
        for row in g["symbols"].as_array().unwrap() {
            assert!(
                row.get("kind").is_none() && row.get("exported").is_none(),
                "{row}"
            );
            repos.insert(
                row["at"]
                    .as_str()
                    .unwrap()
                    .split(':')
                    .next()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    assert_eq!(
        repos.into_iter().collect::<Vec<_>>(),
        ["inventory", "shapes"]
    );
    let sizes: Vec<usize> = groups
        .iter()
        .map(|g| g["symbols"].as_array().unwrap().len())
        .collect();
    assert_eq!(
        sizes.iter().sum::<usize>() as u64,
        v["returned"].as_u64().unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// 9.F Envelope
// ---------------------------------------------------------------------------------------------

#[test]
fn item_087_every_query_tool_returns_the_envelope() {
    let g = graph();
    let mut questions: Vec<(&str, Value)> =
        VIEW_TOOLS.iter().map(|t| (*t, view_question(t))).collect();
    questions.push((
        "get_symbol",
        json!({"repository": "shapes", "qualified_name": "Pi"}),
    ));
    questions.push(("list_repositories", json!({})));
    questions.push(("graph_status", json!({})));
    for (tool, args) in questions {
        for view in ["compact", "full"] {
            let args = if VIEW_TOOLS.contains(&tool) {
                with(&args, json!({"view": view}))
            } else {
                args.clone()
            };
            let v = json_in(&g, tool, args);
            let m = v.as_object().unwrap();
            for k in ["snapshot_id", "total", "returned", "results"] {
                assert!(m.contains_key(k), "{tool}/{view}: {k} missing");
            }
            assert_eq!(v["snapshot_id"], 1);
            assert_eq!(
                m.keys().next_back().unwrap(),
                "results",
                "{tool}: results come last"
            );
        }
    }
}

#[test]
fn item_088_null_snapshot_id_means_nothing_is_published() {
    let status: Value =
        serde_json::from_str(&tools::call("graph_status", &json!({}), None).unwrap()).unwrap();
    assert_eq!(status["snapshot_id"], Value::Null);
    assert_eq!(status["results"]["status"], "empty");
    assert_eq!(ok("graph_status", json!({}))["snapshot_id"], 1);
    // The query tools, which need a generation, say so instead.
    let e = tools::call("find_symbol", &json!({"name": "Pi"}), None).unwrap_err();
    assert_eq!(e.code, "INDEX_NOT_READY");
    assert!(e.message.contains("index_project") && e.message.contains("kivgraph index --full"));
}

#[test]
fn item_089_truncated_is_returned_below_total_and_compact_only_when_true() {
    let g = graph();
    for tool in VIEW_TOOLS {
        if tool == &"find_cross_repo_consumers" {
            continue; // nothing crosses between shapes and inventory; the pair is asked below
        }
        let args = view_question(tool);
        let page = json_in(&g, tool, with(&args, json!({"limit": 1})));
        let whole = json_in(&g, tool, with(&args, json!({"limit": 500})));
        assert!(page["returned"].as_u64() < page["total"].as_u64(), "{tool}");
        assert_eq!(page["truncated"], true, "{tool}");
        assert!(
            whole.get("truncated").is_none(),
            "{tool}: a false truncated is left out"
        );
        let full = json_in(&g, tool, with(&args, json!({"limit": 500, "view": "full"})));
        assert_eq!(full["truncated"], false, "{tool}");
    }
    let args = json!({"repository": "mathlib", "qualified_name": "Add"});
    let page = ok_pair(
        "find_cross_repo_consumers",
        with(&args, json!({"limit": 2})),
    );
    assert_eq!(
        (
            page["returned"].as_u64(),
            page["total"].as_u64(),
            &page["truncated"]
        ),
        (Some(2), Some(7), &json!(true))
    );
    assert!(
        ok_pair("find_cross_repo_consumers", args)
            .get("truncated")
            .is_none()
    );
}

#[test]
fn item_090_next_cursor_appears_in_compact_only_when_there_is_one() {
    let g = graph();
    for tool in VIEW_TOOLS {
        if tool == &"find_cross_repo_consumers" {
            continue;
        }
        let args = view_question(tool);
        let page = json_in(&g, tool, with(&args, json!({"limit": 1})));
        assert!(page["next_cursor"].is_string(), "{tool}");
        let whole = json_in(&g, tool, with(&args, json!({"limit": 500})));
        assert!(whole.get("next_cursor").is_none(), "{tool}");
        let full = json_in(&g, tool, with(&args, json!({"limit": 500, "view": "full"})));
        assert_eq!(full["next_cursor"], Value::Null, "{tool}");
    }
}

#[test]
fn item_091_coverage_counters_compact_keeps_the_non_zero_ones() {
    let compact = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert_eq!(
        compact["coverage"],
        json!({"exact": 5, "unresolved_related": 1, "package_level": 3})
    );
    let full = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add", "view": "full"}),
    );
    assert_eq!(
        full["coverage"],
        json!({"exact": 5, "candidate": 0, "unresolved_related": 1, "package_level": 3})
    );
    // Disjoint: each consumer is counted under exactly one counter (a repository's package
    // dependencies count once per package).
    let consumers = full["results"]["consumers"].as_array().unwrap();
    let exact = consumers
        .iter()
        .filter(|c| c["category"] == "exact_symbol")
        .count();
    let unresolved = consumers
        .iter()
        .filter(|c| c["category"] == "unresolved")
        .count();
    let packages: usize = consumers
        .iter()
        .filter(|c| c["category"] == "package")
        .map(|c| c["package_name"].as_array().map_or(1, Vec::len))
        .sum();
    assert_eq!((exact, unresolved, packages), (5, 1, 3));
    // All zero: no coverage at all in compact.
    let outline = ok(
        "get_file_outline",
        json!({"repository": "inventory", "path": "store"}),
    );
    assert!(outline.get("coverage").is_none());
    let none = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "app", "qualified_name": "Count"}),
    );
    assert!(none.get("coverage").is_none(), "{none}");
}

#[test]
fn item_092_snapshot_age_never_in_compact() {
    let g = graph();
    for tool in VIEW_TOOLS {
        let v = json_in(&g, tool, view_question(tool));
        assert!(v.get("snapshot_age_ms").is_none(), "{tool}");
        let full = json_in(
            &g,
            tool,
            with(&view_question(tool), json!({"view": "full"})),
        );
        assert!(full["snapshot_age_ms"].as_u64().is_some(), "{tool}");
    }
    let status = ok("graph_status", json!({}));
    assert!(status["results"]["snapshot_age_ms"].as_u64().is_some());
}

#[test]
fn item_093_guidance_and_completeness_are_the_same_in_both_views() {
    let g = graph();
    let mut questions: Vec<(&str, Value)> =
        VIEW_TOOLS.iter().map(|t| (*t, view_question(t))).collect();
    questions.extend([
        (
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Grow"}),
        ),
        (
            "find_references",
            json!({"repository": "inventory", "qualified_name": "SKU.String"}),
        ),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "main", "limit": 2}),
        ),
        (
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Pi", "direction": "outgoing"}),
        ),
        (
            "get_blast_radius",
            json!({"repository": "inventory", "qualified_name": "main"}),
        ),
    ]);
    for (tool, args) in questions {
        let compact = json_in(&g, tool, args.clone());
        let full = json_in(&g, tool, with(&args, json!({"view": "full"})));
        assert_eq!(
            compact.get("guidance"),
            full.get("guidance"),
            "{tool} {args}"
        );
        assert_eq!(
            compact.get("completeness"),
            full.get("completeness"),
            "{tool} {args}"
        );
    }
}

#[test]
fn item_094_full_view_writes_every_field() {
    let v = ok("find_symbol", json!({"name": "NewCircle", "view": "full"}));
    assert_eq!(v["truncated"], false);
    assert_eq!(v["next_cursor"], Value::Null);
    assert_eq!(
        v["coverage"],
        json!({"exact": 0, "candidate": 0, "unresolved_related": 0, "package_level": 0})
    );
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "snapshot_id",
            "snapshot_age_ms",
            "total",
            "returned",
            "truncated",
            "next_cursor",
            "coverage",
            "completeness",
            "results"
        ]
    );
    let blast = ok(
        "get_blast_radius",
        json!({"repository": "shapes", "qualified_name": "Point", "view": "full"}),
    );
    assert_eq!(blast["results"]["traversal_truncated"], false);
    let none = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "app", "qualified_name": "Count", "view": "full"}),
    );
    assert_eq!(none["results"]["consumers"], Value::Null);
    assert_eq!(none["total"], 0);
    // false on a row is written too.
    let unexported = ok("find_symbol", json!({"name": "epsilon", "view": "full"}));
    assert_eq!(unexported["results"][0]["exported"], false);
}

#[test]
fn item_095_package_level_is_never_folded_into_exact() {
    let v = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Vec.Len", "view": "full"}),
    );
    // One exact use (main), one candidate (Guess), three packages of app depending on vec.
    assert_eq!(
        v["coverage"],
        json!({"exact": 1, "candidate": 1, "unresolved_related": 0, "package_level": 3})
    );
    // A repository that only depends on the package, naming no symbol, adds nothing to exact.
    let original = Scratch::new()
        .with("mathlib", "pair/mathlib")
        .with("app", "pair/app");
    original.compile(&["mathlib", "app"]);
    let unused = original.ok(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Unused"}),
    );
    assert_eq!(unused["coverage"], json!({"package_level": 2}), "{unused}");
}

#[test]
fn item_096_counters_cover_the_whole_answer() {
    let v = ok(
        "trace_dependencies",
        json!({"repository": "shapes", "qualified_name": "main", "depth": 1, "limit": 3}),
    );
    let total = v["total"].as_u64().unwrap();
    assert_eq!(v["returned"], 3);
    let c = &v["coverage"];
    assert_eq!(
        c["exact"].as_u64().unwrap() + c["candidate"].as_u64().unwrap(),
        total
    );
    assert!(c["exact"].as_u64().unwrap() > 3);
    let refs = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Rect", "limit": 2}),
    );
    assert_eq!(refs["coverage"]["exact"].as_u64(), refs["total"].as_u64());
    assert_eq!(refs["returned"], 2);
}

#[test]
fn item_097_outline_has_no_counter_and_find_symbol_only_unresolved_related() {
    let g = graph();
    for args in [
        json!({"repository": "shapes", "path": "geo", "view": "full"}),
        json!({"repository": "inventory", "path": ".", "view": "full"}),
    ] {
        let v = json_in(&g, "get_file_outline", args);
        assert_eq!(
            v["coverage"],
            json!({"exact": 0, "candidate": 0, "unresolved_related": 0, "package_level": 0})
        );
    }
    for name in ["NewCircle", "Area", "Println", "Sprintf", "New"] {
        let v = json_in(&g, "find_symbol", json!({"name": name, "view": "full"}));
        let c = &v["coverage"];
        assert_eq!(
            (
                c["exact"].as_u64(),
                c["candidate"].as_u64(),
                c["package_level"].as_u64()
            ),
            (Some(0), Some(0), Some(0)),
            "{name}"
        );
    }
    // unresolved_related counts recorded requests for the searched name.
    let v = ok("find_symbol", json!({"name": "Println"}));
    assert!(
        v["coverage"]["unresolved_related"].as_u64().unwrap() > 0,
        "{v}"
    );
    assert_eq!(v["coverage"].as_object().unwrap().len(), 1);
    let v = ok_pair("find_symbol", json!({"name": "Add"}));
    assert_eq!(v["coverage"], json!({"unresolved_related": 1}));
}

#[test]
fn item_098_get_source_counts_in_its_header_line() {
    let text = source(json!({"symbols": [qn("shapes", "Pi"), qn("inventory", "New")]}));
    assert_eq!(first_line(&text), "snapshot 1  2 bodies  context 0");
    assert!(!text.contains("coverage") && !text.contains("\"total\""));
}

// ---------------------------------------------------------------------------------------------
// 9.G Guidance and completeness
// ---------------------------------------------------------------------------------------------

const NO_CONSUMER: &str = "no repository in the published graph consumes this symbol. Check graph_status if a consumer is registered but was not indexed, and find_references for uses inside its own repository";

#[test]
fn item_099_cross_repo_consumers_empty_guidance() {
    for v in [
        ok(
            "find_cross_repo_consumers",
            json!({"repository": "shapes", "qualified_name": "NewCircle"}),
        ),
        ok_pair(
            "find_cross_repo_consumers",
            json!({"repository": "app", "qualified_name": "Count"}),
        ),
    ] {
        assert_eq!(v["total"], 0, "{v}");
        assert_eq!(v["guidance"], NO_CONSUMER);
    }
}

/// The seed's COMPLETE sentence says the edges are "type-checked"; this implementation's edges
/// are bound by its own scope, import and declared-type rules, and its sentence says so. The two
/// sentences still differ, and the COMPLETE one still calls the empty answer an absence.
#[test]
fn item_100_empty_find_references_guidance_follows_the_verdict() {
    let complete = ok(
        "find_references",
        json!({"repository": "inventory", "qualified_name": "SKU.String"}),
    );
    assert_eq!(complete["total"], 0);
    assert_eq!(complete["completeness"]["verdict"], "COMPLETE");
    assert_eq!(
        complete["guidance"],
        "nothing references this symbol in the published graph; references are bound by scope, import and declared-type rules and every one that could not be followed is recorded, so this is an absence rather than a miss. Widen with find_cross_repo_consumers, or check graph_status if the tree moved since it was indexed"
    );
    // `Point.String` is exported from geo, which the package the build excludes imports.
    let lower = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Point.String"}),
    );
    assert_eq!(lower["total"], 0);
    assert_eq!(lower["completeness"]["verdict"], "LOWER_BOUND");
    let text = lower["guidance"].as_str().unwrap();
    assert!(
        text.contains("could not read") && text.contains("ask for this name"),
        "{text}"
    );
    assert!(
        text.contains("completeness.blind_spots") && text.contains("fallback pattern"),
        "{text}"
    );
    assert!(!text.contains("absence rather than a miss"));
    assert_ne!(complete["guidance"], lower["guidance"]);
}

#[test]
fn item_101_no_guidance_on_complete_pages_with_rows() {
    let g = graph();
    // Nothing crosses between shapes and inventory: consumers are asked of the pair below.
    for tool in VIEW_TOOLS
        .iter()
        .filter(|t| **t != "find_cross_repo_consumers")
    {
        let v = json_in(&g, tool, with(&view_question(tool), json!({"limit": 500})));
        assert!(v["total"].as_u64().unwrap() > 0, "{tool}");
        assert!(v.get("guidance").is_none(), "{tool}: {v}");
    }
    let v = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert!(v.get("guidance").is_none());
}

#[test]
fn item_102_completeness_verdicts_and_lower_bound_fields() {
    let v = ok(
        "trace_dependencies",
        json!({"repository": "shapes", "qualified_name": "main"}),
    );
    let c = v["completeness"].as_object().unwrap();
    assert_eq!(c["verdict"], "LOWER_BOUND");
    assert!(!c["blind_spots"].as_array().unwrap().is_empty());
    // No package the build excludes imports package main: no scope could hold a use of it.
    assert!(c.get("invisible_scopes").is_none(), "{v}");
    assert_eq!(c["fallback"]["pattern"], "\\bmain\\b");
    assert!(c["fallback"]["paths"].is_array());
    let v = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "NewCircle"}),
    );
    let c = v["completeness"].as_object().unwrap();
    assert_eq!(c["verdict"], "LOWER_BOUND");
    assert_eq!(c["invisible_scopes"].as_array().unwrap().len(), 1);
    let complete = ok(
        "find_references",
        json!({"repository": "inventory", "qualified_name": "Store.Len"}),
    );
    assert_eq!(complete["completeness"], json!({"verdict": "COMPLETE"}));
}

#[test]
fn item_103_absent_completeness_means_the_tool_did_not_check() {
    for (tool, args) in [
        (
            "get_symbol",
            json!({"repository": "shapes", "qualified_name": "Pi"}),
        ),
        ("list_repositories", json!({})),
        ("graph_status", json!({})),
    ] {
        let v = ok(tool, args);
        assert!(v.get("completeness").is_none(), "{tool}");
    }
    // The checking tools always carry it, even COMPLETE.
    let v = ok("find_symbol", json!({"name": "Store", "repo": "inventory"}));
    assert_eq!(v["completeness"]["verdict"], "COMPLETE");
}

fn verdict(v: &Value) -> &str {
    v["completeness"]["verdict"].as_str().unwrap()
}

#[test]
fn item_104_which_failures_bound_which_tool() {
    // find_references: unreadable scopes of the subject's repository, either direction...
    for direction in ["incoming", "outgoing"] {
        let inv = ok(
            "find_references",
            json!({"repository": "inventory", "qualified_name": "Store.Add", "direction": direction}),
        );
        assert_eq!(verdict(&inv), "COMPLETE", "{direction}");
        let sh = ok(
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Circle.Area", "direction": direction}),
        );
        assert_eq!(verdict(&sh), "LOWER_BOUND", "{direction}");
        assert!(sh["completeness"].get("invisible_scopes").is_some());
    }
    // ...and failures that asked for its name, whichever the direction.
    let incoming = ok_pair(
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    let outgoing = ok_pair(
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Add", "direction": "outgoing"}),
    );
    assert_eq!(verdict(&incoming), "LOWER_BOUND");
    assert_eq!(incoming["completeness"], outgoing["completeness"]);
    // The blind spot asked for this name: the fallback pattern says so, the entry does not
    // repeat it.
    assert_eq!(incoming["completeness"]["fallback"]["pattern"], "\\bAdd\\b");
    assert!(
        incoming["completeness"]["blind_spots"][0]
            .get("requested_symbol")
            .is_none()
    );
    // get_blast_radius: the same pair, from the start repository.
    let blast = ok_pair(
        "get_blast_radius",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert_eq!(blast["completeness"], incoming["completeness"]);
    assert_eq!(
        verdict(&ok(
            "get_blast_radius",
            json!({"repository": "inventory", "qualified_name": "Store.Add"})
        )),
        "COMPLETE"
    );
    // trace_dependencies: failures the symbol itself made, never who asked for its name.
    let trace_add = ok_pair(
        "trace_dependencies",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert_eq!(verdict(&trace_add), "COMPLETE");
    let trace_lost = ok_pair(
        "trace_dependencies",
        json!({"repository": "app", "qualified_name": "Lost"}),
    );
    assert_eq!(verdict(&trace_lost), "LOWER_BOUND");
    assert_eq!(
        trace_lost["completeness"]["blind_spots"][0]["file_path"],
        "more/more.go"
    );
    assert_eq!(
        verdict(&ok(
            "trace_dependencies",
            json!({"repository": "inventory", "qualified_name": "Store.Len"})
        )),
        "COMPLETE"
    );
    // find_symbol: unreadable scopes of `repo`, else of the whole graph, that declare a name
    // the query matches (the excluded package declares DefaultCircle, DefaultArea, ConfigDir).
    assert_eq!(
        verdict(&ok(
            "find_symbol",
            json!({"name": "DefaultCircle", "repo": "inventory"})
        )),
        "COMPLETE"
    );
    for args in [
        json!({"name": "DefaultCircle"}),
        json!({"name": "DefaultCircle", "repo": "shapes"}),
        json!({"name": "Default", "mode": "prefix"}),
        json!({"name": "aultAr", "mode": "substring"}),
        json!({"name": "winonly.ConfigDir", "mode": "qualified_exact"}),
        json!({"name": "ConfigDir", "path_prefix": "winonly/"}),
    ] {
        assert_eq!(
            verdict(&ok("find_symbol", args.clone())),
            "LOWER_BOUND",
            "{args}"
        );
    }
    for args in [
        json!({"name": "Store"}),
        json!({"name": "Store", "repo": "shapes"}),
        json!({"name": "Defaulted", "mode": "prefix"}),
        json!({"name": "ConfigDir", "path_prefix": "geo/"}),
    ] {
        assert_eq!(
            verdict(&ok("find_symbol", args.clone())),
            "COMPLETE",
            "{args}"
        );
    }
    // get_file_outline: unreadable scopes of the repository asked for.
    assert_eq!(
        verdict(&ok(
            "get_file_outline",
            json!({"repository": "inventory", "path": "store"})
        )),
        "COMPLETE"
    );
    // ... at, under or above the path asked.
    for (path, want) in [
        ("geo", "COMPLETE"),
        (".", "LOWER_BOUND"),
        ("winonly", "LOWER_BOUND"),
        ("winonly/console.go", "LOWER_BOUND"),
    ] {
        let v = ok(
            "get_file_outline",
            json!({"repository": "shapes", "path": path}),
        );
        assert_eq!(verdict(&v), want, "{path}: {v}");
    }
    // find_cross_repo_consumers: unreadable scopes anywhere in the graph that import the
    // subject's package.
    let anywhere = ok(
        "find_cross_repo_consumers",
        json!({"repository": "shapes", "qualified_name": "NewCircle"}),
    );
    assert_eq!(verdict(&anywhere), "LOWER_BOUND");
    assert_eq!(
        anywhere["completeness"]["invisible_scopes"][0]["repository"],
        "shapes"
    );
    let unrelated = ok(
        "find_cross_repo_consumers",
        json!({"repository": "inventory", "qualified_name": "Store.Len"}),
    );
    assert_eq!(verdict(&unrelated), "COMPLETE");
    // A Go declaration that is not exported is used only in its own package.
    assert_eq!(
        verdict(&ok(
            "find_references",
            json!({"repository": "shapes", "qualified_name": "approxEqual"})
        )),
        "COMPLETE"
    );
}

#[test]
fn item_105_five_tools_never_carry_completeness_and_refuse_unknown_symbols() {
    let g = graph();
    for (tool, args) in [
        (
            "get_symbol",
            json!({"repository": "shapes", "qualified_name": "NewCircle"}),
        ),
        ("graph_status", json!({})),
        ("list_repositories", json!({})),
    ] {
        assert!(
            call_in(&g, tool, &args)
                .unwrap()
                .find("completeness")
                .is_none(),
            "{tool}"
        );
    }
    let text = source(json!({"symbols": [qn("shapes", "NewCircle")]}));
    assert!(!text.contains("completeness") && !text.contains("LOWER_BOUND"));
    // index_project's answer is about the index, not a query.
    let _serial = INDEXING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(IndexDir::new(dir.path()));
    let answer = kivgraph::index::index_project(
        &json!({"name": "inventory", "path": fixture("inventory"), "languages": ["go"], "confirmed": true}),
        &store,
        None,
        &mut |_, _, _| {},
    )
    .unwrap();
    assert!(!answer.contains("completeness"), "{answer}");
    // Unknown symbols are refused, not answered with an empty list.
    assert_eq!(
        err("get_symbol", json!({"qualified_name": "NoSuchThing"})).code,
        "SYMBOL_NOT_FOUND"
    );
    assert_eq!(
        err(
            "get_source",
            json!({"symbols": [qn("shapes", "Pi"), qn("shapes", "NoSuchThing")]})
        )
        .code,
        "SYMBOL_NOT_FOUND"
    );
}

#[test]
fn item_106_scope_entries() {
    let v = ok("find_symbol", json!({"name": "DefaultArea"}));
    let scopes = v["completeness"]["invisible_scopes"].as_array().unwrap();
    assert_eq!(scopes.len(), 1);
    let s = scopes[0].as_object().unwrap();
    let keys: Vec<&str> = s.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["reason", "repository", "requested_package", "detail"]
    );
    assert_eq!(s["reason"], "PACKAGE_NOT_BUILDABLE");
    assert_eq!(s["repository"], "shapes");
    assert_eq!(s["requested_package"], "example.com/shapes/winonly");
    assert!(
        s["detail"]
            .as_str()
            .unwrap()
            .starts_with("build constraints exclude all Go files in ")
    );
    // A blind spot adds where it is (what it asked for is the subject's name, which the
    // fallback pattern states once).
    let v = ok_pair(
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    let b = v["completeness"]["blind_spots"][0].as_object().unwrap();
    let keys: Vec<&str> = b.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "reason",
            "repository",
            "file_path",
            "start_line",
            "requested_package",
            "detail"
        ]
    );
}

#[test]
fn item_107_fallback_pattern_and_paths() {
    let v = ok("find_references", json!({"name": "NewCircle"}));
    let f = &v["completeness"]["fallback"];
    assert_eq!(f["pattern"], "\\bNewCircle\\b");
    let winonly = fixture("shapes/winonly").canonicalize().unwrap();
    assert_eq!(f["paths"], json!([winonly]));
    for p in f["paths"].as_array().unwrap() {
        let p = Path::new(p.as_str().unwrap());
        assert!(p.is_absolute() && p.is_dir(), "{}", p.display());
    }
    // A blind spot's file joins the paths, absolute too.
    let v = ok_pair(
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    let paths = v["completeness"]["fallback"]["paths"].as_array().unwrap();
    // ... beside the directory of app's package the build excludes, which imports vec.
    assert_eq!(paths.len(), 2, "{v}");
    let p = Path::new(paths[0].as_str().unwrap());
    assert!(
        p.is_absolute() && p.ends_with("app/more/more.go") && p.is_file(),
        "{}",
        p.display()
    );
    let p = Path::new(paths[1].as_str().unwrap());
    assert!(p.is_absolute() && p.ends_with("app/wasm") && p.is_dir());
}

/// A repository with 25 packages the build excludes, each declaring `Use` and importing the package
/// of the one function that makes 25 references nothing can follow.
fn crowded() -> Scratch {
    let s = Scratch::new();
    s.write("many/go.mod", "module example.com/many\n\ngo 1.22\n");
    for n in 0..25 {
        s.write(
            &format!("many/w{n:02}/w.go"),
            &format!(
                "//go:build windows\n\npackage w{n:02}\n\nimport \"example.com/many/ok\"\n\nfunc Use() {{ ok.Use() }}\n"
            ),
        );
    }
    let mut f = String::from("package ok\n\nimport \"fmt\"\n\nfunc Use() {\n");
    for n in 0..25 {
        f.push_str(&format!("\tfmt.Println({n})\n"));
    }
    f.push_str("}\n");
    s.write("many/ok/ok.go", &f);
    s.compile(&["many"]);
    s
}

#[test]
fn item_108_lists_hold_twenty_entries_and_count_the_rest() {
    let s = crowded();
    let v = s.ok("find_symbol", json!({"name": "Use"}));
    let c = &v["completeness"];
    assert_eq!(c["invisible_scopes"].as_array().unwrap().len(), 20);
    assert_eq!(c["more_invisible_scopes"], 5);
    assert!(c.get("more_blind_spots").is_none());
    let v = s.ok(
        "trace_dependencies",
        json!({"repository": "many", "qualified_name": "Use"}),
    );
    let c = &v["completeness"];
    assert_eq!(c["blind_spots"].as_array().unwrap().len(), 20);
    assert_eq!(c["more_blind_spots"], 5);
    assert_eq!(v["coverage"]["unresolved_related"], 25);
    // What Use reaches is read off visible code: no scope bounds it.
    assert!(c.get("invisible_scopes").is_none(), "{v}");
    assert_eq!(c["fallback"]["paths"].as_array().unwrap().len(), 1);
    // Who uses it: the 25 packages that import its package, 20 listed.
    let v = s.ok(
        "find_references",
        json!({"repository": "many", "qualified_name": "Use"}),
    );
    let c = &v["completeness"];
    assert_eq!(c["invisible_scopes"].as_array().unwrap().len(), 20);
    assert_eq!(c["more_invisible_scopes"], 5);
    // Every excluded directory is still named in the fallback.
    assert_eq!(c["fallback"]["paths"].as_array().unwrap().len(), 25);
}

/// One index_project at a time in this process: the engine refuses a second concurrent one.
static INDEXING: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------------------------
// 9.H Pagination and cursors
// ---------------------------------------------------------------------------------------------

fn follow_pages(g: &Arc<Generation>, tool: &str, args: &Value, limit: u64) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut a = with(args, json!({"limit": limit}));
    loop {
        let v = json_in(g, tool, a.clone());
        pages.push(v.clone());
        match v.get("next_cursor").and_then(Value::as_str) {
            Some(c) => a["cursor"] = json!(c),
            None => return pages,
        }
    }
}

#[test]
fn item_109_truncated_pages_count_everything_and_the_cursor_fetches_the_rest() {
    let g = graph();
    for (tool, args, rows) in [
        (
            "find_references",
            json!({"repository": "shapes", "qualified_name": "Rect", "view": "full"}),
            "/results/references",
        ),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "main", "view": "full"}),
            "/results/nodes",
        ),
        (
            "find_symbol",
            json!({"name": "e", "mode": "substring", "view": "full"}),
            "/results",
        ),
        ("list_repositories", json!({}), "/results"),
    ] {
        let whole = json_in(&g, tool, with(&args, json!({"limit": 500})));
        let pages = follow_pages(&g, tool, &args, 1);
        assert!(pages.len() > 1, "{tool}");
        let mut rows_seen = Vec::new();
        for (i, p) in pages.iter().enumerate() {
            assert_eq!(p["total"], whole["total"], "{tool}");
            // `truncated` says the page is not the whole answer; only the last page has no cursor.
            assert_eq!(p["truncated"], true, "{tool}");
            assert_eq!(p["next_cursor"].is_string(), i + 1 < pages.len(), "{tool}");
            rows_seen.extend(p.pointer(rows).unwrap().as_array().unwrap().clone());
        }
        assert_eq!(
            &rows_seen,
            whole.pointer(rows).unwrap().as_array().unwrap(),
            "{tool}"
        );
    }
}

/// The seed's example (trace_dependencies on MergeAll, depth 1, limit 3, snapshot 30, total 37)
/// on this graph: `main` of `shapes`.
#[test]
fn item_110_truncated_trace_envelope() {
    let g = graph();
    let args = json!({"repository": "shapes", "qualified_name": "main", "depth": 1});
    let whole = full_of(&g, "trace_dependencies", &args);
    let total = whole["results"]["nodes"].as_array().unwrap().len() as u64;
    assert!(total > 3);
    let v = json_in(&g, "trace_dependencies", with(&args, json!({"limit": 3})));
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "snapshot_id",
            "total",
            "returned",
            "truncated",
            "next_cursor",
            "coverage",
            "completeness",
            "guidance",
            "results"
        ]
    );
    assert_eq!(v["snapshot_id"], 1);
    assert_eq!(v["total"], total);
    assert_eq!(v["returned"], 3);
    assert_eq!(v["truncated"], true);
    assert!(v["next_cursor"].is_string());
    let c = &v["coverage"];
    assert_eq!(
        c["exact"].as_u64().unwrap() + c["candidate"].as_u64().unwrap_or(0),
        total
    );
    assert_eq!(
        v["guidance"],
        format!(
            "showing 3 of {total}; narrow with depth, max_nodes, edge_kinds or confidence, or pass the cursor for the next page"
        )
    );
}

/// A cursor of find_references on Point (13 incoming rows), taken after two rows.
fn point_cursor() -> (Value, String) {
    let args = json!({"repository": "shapes", "qualified_name": "Point"});
    let v = ok("find_references", with(&args, json!({"limit": 2})));
    (args, v["next_cursor"].as_str().unwrap().to_string())
}

fn cursor_body(c: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(c).unwrap()
}

/// Re-encodes a cursor body with a correct checksum over its first `len - 8` bytes.
fn reseal(mut body: Vec<u8>) -> String {
    let n = body.len() - 8;
    let check = Sha256::digest(&body[..n]);
    body[n..].copy_from_slice(&check[..8]);
    URL_SAFE_NO_PAD.encode(body)
}

#[test]
fn item_111_cursor_is_unpadded_base64url() {
    let (_, c) = point_cursor();
    assert!(
        c.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{c}"
    );
    assert!(!c.contains('='));
    assert!((25..=40).contains(&c.len()), "about 31 characters: {c}");
    assert_eq!(URL_SAFE_NO_PAD.encode(cursor_body(&c)), c);
}

#[test]
fn item_112_cursor_body_layout() {
    let (args, c) = point_cursor();
    let body = cursor_body(&c);
    // version 2 | snapshot 1 | offset 2 | identity (8) | sorting contract (4) | checksum (8)
    assert_eq!(body.len(), 3 + 8 + 4 + 8);
    assert_eq!(&body[..3], &[2, 1, 2]);
    assert_eq!(&body[11..15], &Sha256::digest(b"references-v1")[..4]);
    assert_eq!(&body[15..], &Sha256::digest(&body[..15])[..8]);
    // The identity digest follows the query: another direction, another digest.
    let out = ok(
        "find_references",
        with(&args, json!({"edge_kinds": ["TYPE_USES"], "limit": 1})),
    );
    let other = cursor_body(out["next_cursor"].as_str().unwrap());
    assert_ne!(&other[3..11], &body[3..11]);
    assert_eq!(
        &other[11..15],
        &body[11..15],
        "same tool, same sorting contract"
    );
    // A later page carries a later offset.
    let next = ok(
        "find_references",
        with(&args, json!({"limit": 3, "cursor": c})),
    );
    assert_eq!(cursor_body(next["next_cursor"].as_str().unwrap())[2], 5);
}

#[test]
fn item_113_identity_excludes_view_limit_and_response_format() {
    let (args, c) = point_cursor();
    for extra in [
        json!({"view": "full"}),
        json!({"limit": 7}),
        json!({"response_format": "detailed"}),
        json!({"view": "files", "limit": 1, "response_format": "detailed"}),
    ] {
        let v = ok(
            "find_references",
            with(&with(&args, extra.clone()), json!({"cursor": c})),
        );
        assert!(v["returned"].as_u64().unwrap() > 0, "{extra}");
    }
    // The tool is part of the identity: the same arguments on another tool do not continue.
    let blast = ok("get_blast_radius", with(&args, json!({"limit": 2})));
    let e = err(
        "trace_dependencies",
        with(&args, json!({"cursor": blast["next_cursor"]})),
    );
    assert_eq!(e.code, "CURSOR_INVALID");
    // find_references through `name` is bound to the subject the name resolved to.
    let by_name = ok("find_references", json!({"name": "NewCircle", "limit": 2}));
    let next = ok(
        "find_references",
        json!({"name": "NewCircle", "limit": 2, "cursor": by_name["next_cursor"]}),
    );
    assert_eq!(next["returned"], 2);
}

#[test]
fn item_114_cursor_from_an_older_generation_expires() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    let args = json!({"repository": "shapes", "qualified_name": "Point", "limit": 2});
    let first = s.ok("find_references", args.clone());
    s.compile(&["shapes"]);
    assert_eq!(s.generation().id, 2);
    let e = s
        .call(
            "find_references",
            with(&args, json!({"cursor": first["next_cursor"]})),
        )
        .unwrap_err();
    assert_eq!(e.code, "CURSOR_SNAPSHOT_EXPIRED");
}

#[test]
fn item_115_changed_membership_argument_invalidates_the_cursor() {
    let (args, c) = point_cursor();
    for change in [
        json!({"direction": "outgoing"}),
        json!({"edge_kinds": ["TYPE_USES"]}),
        json!({"confidence": "EXACT_DECLARATION_MAPPED"}),
        json!({"repo": "shapes"}),
        json!({"language": "go"}),
        json!({"path": "geo"}),
    ] {
        let e = err(
            "find_references",
            with(&with(&args, change.clone()), json!({"cursor": c})),
        );
        assert_eq!(
            e.to_string(),
            "CURSOR_INVALID: cursor does not match the active query",
            "{change}"
        );
    }
    let first = ok(
        "find_symbol",
        json!({"name": "S", "mode": "prefix", "limit": 2}),
    );
    let e = err(
        "find_symbol",
        json!({"name": "S", "mode": "substring", "cursor": first["next_cursor"]}),
    );
    assert_eq!(e.code, "CURSOR_INVALID");
}

#[test]
fn item_116_changed_sorting_contract_invalidates_the_cursor() {
    let (args, c) = point_cursor();
    let body = cursor_body(&c);
    // The same body resealed is still accepted...
    let same = reseal(body.clone());
    assert_eq!(same, c);
    // ...but one minted under another sorting contract is not.
    let mut other = body.clone();
    other[11..15].copy_from_slice(&Sha256::digest(b"references-v2")[..4]);
    let e = err(
        "find_references",
        with(&args, json!({"cursor": reseal(other)})),
    );
    assert_eq!(
        e.to_string(),
        "CURSOR_INVALID: cursor does not match the active query"
    );
}

#[test]
fn item_117_tampered_cursors_are_invalid() {
    let (args, c) = point_cursor();
    let body = cursor_body(&c);
    let mut edited = body.clone();
    edited[5] ^= 1;
    let mut trailing = body.clone();
    trailing.push(0);
    let truncated = &c[..c.len() - 1];
    for bad in [
        URL_SAFE_NO_PAD.encode(&edited),
        truncated.to_string(),
        URL_SAFE_NO_PAD.encode(&body[..body.len() - 1]),
        STANDARD.encode(&body),
        format!("{c}="),
        URL_SAFE_NO_PAD.encode(&trailing),
        reseal(trailing.clone()),
        String::new(),
        "not a cursor".into(),
    ] {
        let e = err("find_references", with(&args, json!({"cursor": bad})));
        assert_eq!(e.code, "CURSOR_INVALID", "{bad:?}: {e}");
    }
}

#[test]
fn item_118_version_one_cursors_fail_closed() {
    let (args, c) = point_cursor();
    let mut body = cursor_body(&c);
    assert_eq!(body[0], 2);
    body[0] = 1;
    let e = err(
        "find_references",
        with(&args, json!({"cursor": reseal(body)})),
    );
    assert_eq!(e.code, "CURSOR_INVALID");
}

#[test]
fn item_119_truncation_guidance_names_narrowing_before_paging() {
    let refs = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Rect", "limit": 2}),
    );
    let blast = ok(
        "get_blast_radius",
        json!({"repository": "shapes", "qualified_name": "Point", "limit": 2}),
    );
    let consumers = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add", "limit": 2}),
    );
    for (v, list) in [
        (refs, "edge_kinds, confidence, repo or language"),
        (blast, "depth, max_nodes, edge_kinds or confidence"),
        (consumers, "repo or language"),
    ] {
        let g = v["guidance"].as_str().unwrap();
        let narrow = g
            .find(&format!("narrow with {list}"))
            .unwrap_or_else(|| panic!("{g}"));
        let page = g.find("pass the cursor for the next page").unwrap();
        assert!(narrow < page, "{g}");
    }
}

// ---------------------------------------------------------------------------------------------
// 9.I Confidence and provenance
// ---------------------------------------------------------------------------------------------

#[test]
fn item_120_every_edge_keeps_its_confidence_and_provenance() {
    let g = graph();
    for args in [
        json!({"name": "NewCircle"}),
        json!({"repository": "shapes", "qualified_name": "Rect"}),
        json!({"repository": "shapes", "qualified_name": "Circle.Scale"}),
        json!({"repository": "inventory", "qualified_name": "Item"}),
    ] {
        let full = full_of(&g, "find_references", &args);
        for r in full["results"]["references"].as_array().unwrap() {
            assert!(
                r["confidence"].is_string() && r["provenance"].is_string(),
                "{r}"
            );
        }
        let compact = json_in(&g, "find_references", with(&args, json!({"limit": 500})));
        // None of the four columns is ever empty on a reference, so each row states all four:
        // on the header, on its group or in its tail.
        for e in label_entries(&compact["results"], REFERENCE_COLUMNS) {
            assert_eq!(e.stated.len() + e.tail.len(), 4, "{e:?}");
            for c in ["confidence", "provenance"] {
                let in_tail = e.tail.iter().any(|t| {
                    CONFIDENCES.contains(&t.as_str().unwrap())
                        || t.as_str().unwrap().starts_with("GO_")
                });
                assert!(e.stated.contains_key(c) || in_tail, "{c} dropped: {e:?}");
            }
        }
        assert_compact_spells_full(&compact, &expected_references(&full), REFERENCE_COLUMNS);
    }
}

#[test]
fn item_121_traversal_rows_name_the_discovering_edge() {
    let g = graph();
    for (tool, args, rows) in [
        (
            "get_blast_radius",
            json!({"repository": "shapes", "qualified_name": "Circle.Radius"}),
            "symbols",
        ),
        (
            "trace_dependencies",
            json!({"repository": "shapes", "qualified_name": "main", "depth": 2}),
            "nodes",
        ),
    ] {
        let full = full_of(&g, tool, &args);
        for r in full["results"][rows].as_array().unwrap() {
            for k in [
                "via_kind",
                "via_confidence",
                "via_provenance",
                "reached_from",
            ] {
                assert!(r[k].is_string(), "{k} on {r}");
            }
        }
        let compact = json_in(&g, tool, with(&args, json!({"limit": 500})));
        assert_compact_spells_full(&compact, &expected_walk(&full, rows), WALK_COLUMNS);
    }
}

/// The seed's row (mergeSets calling MergeAll, EXACT_TYPECHECKED / GO_AST_CALL) on this graph:
/// `Store.Len` of `inventory`, whose three callers share the edge kind, confidence and provenance
/// but not their kind. The confidence and provenance are this implementation's own.
#[test]
fn item_122_full_reference_row_and_its_compact_spelling() {
    let args = json!({"repository": "inventory", "qualified_name": "Store.Len"});
    let full = ok("find_references", with(&args, json!({"view": "full"})));
    let rows = full["results"]["references"].as_array().unwrap();
    let build = rows
        .iter()
        .find(|r| r["qualified_name"] == "Build")
        .unwrap();
    assert_eq!(
        build,
        &json!({"name": "Build", "qualified_name": "Build", "kind": "func", "repository": "inventory",
            "file_path": "report/report.go", "start_line": 22, "end_line": 31, "language": "go",
            "edge_kind": "CALLS_DIRECT", "confidence": "EXACT_DECLARATION_MAPPED", "provenance": "GO_RECEIVER_TYPED"})
    );
    let compact = ok("find_references", args);
    let r = &compact["results"];
    assert_eq!(r["edge_kind"], "CALLS_DIRECT");
    assert_eq!(r["confidence"], "EXACT_DECLARATION_MAPPED");
    assert_eq!(r["provenance"], "GO_RECEIVER_TYPED");
    assert!(r.get("kind").is_none());
    let build_file = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "report/report.go")
        .unwrap();
    assert_eq!(build_file["at"], json!([["Build@22-31", "func"]]));
}

const CONFIDENCES: [&str; 6] = [
    "EXACT_TYPECHECKED",
    "EXACT_DECLARATION_MAPPED",
    "EXACT_PACKAGE_MAPPED",
    "STRUCTURAL_CERTAIN",
    "CANDIDATE",
    "UNRESOLVED",
];

#[test]
fn item_123_confidence_vocabulary() {
    let mut seen = std::collections::BTreeSet::new();
    for g in [graph(), pair()] {
        let keys: Vec<String> = g
            .graph()
            .symbols
            .iter()
            .map(|s| g.graph().strings.get(s.key.to_native()).to_string())
            .collect();
        for k in keys {
            for direction in ["incoming", "outgoing"] {
                let v = json_in(
                    &g,
                    "find_references",
                    json!({"stable_key": k, "direction": direction, "edge_kinds": ["*"], "view": "full", "limit": 500}),
                );
                for r in v["results"]["references"].as_array().unwrap() {
                    seen.insert(r["confidence"].as_str().unwrap().to_string());
                }
            }
        }
    }
    for name in ["Add", "Vec.Len", "Vec"] {
        let c = ok_pair(
            "find_cross_repo_consumers",
            json!({"repository": "mathlib", "qualified_name": name, "view": "full"}),
        );
        for r in c["results"]["consumers"].as_array().into_iter().flatten() {
            seen.insert(r["confidence"].as_str().unwrap().to_string());
        }
    }
    for c in &seen {
        assert!(CONFIDENCES.contains(&c.as_str()), "{c}");
    }
    assert!(seen.len() >= 4, "{seen:?}");
    // Each of the six is accepted as a filter; nothing else is.
    for c in CONFIDENCES {
        ok(
            "find_references",
            json!({"name": "NewCircle", "confidence": c}),
        );
    }
    for bad in ["EXACT", "exact_declaration_mapped", "TYPECHECKED"] {
        invalid(&err(
            "find_references",
            json!({"name": "NewCircle", "confidence": bad}),
        ));
    }
}

#[test]
fn item_125_no_exact_edge_from_a_coincidence_of_names() {
    // `approxEqual` has a parameter named `epsilon`: the package-level const is not its target.
    let v = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "epsilon", "view": "full"}),
    );
    let callers: Vec<&str> = v["results"]["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["qualified_name"].as_str().unwrap())
        .collect();
    assert!(!callers.contains(&"approxEqual"), "{callers:?}");
    // `big.Scale(0.5)`: the receiver's type comes from generic inference; Circle.Scale is the only
    // visible `Scale`, and still the edge is a CANDIDATE, never exact.
    let v = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Circle.Scale", "view": "full"}),
    );
    let from_main: Vec<(&str, &str)> = v["results"]["references"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["qualified_name"] == "main")
        .map(|r| {
            (
                r["confidence"].as_str().unwrap(),
                r["provenance"].as_str().unwrap(),
            )
        })
        .collect();
    // main calls it twice: once on a receiver of written type, once on the inferred one.
    assert_eq!(
        from_main,
        [
            ("EXACT_DECLARATION_MAPPED", "GO_RECEIVER_TYPED"),
            ("CANDIDATE", "GO_NAME_ONLY")
        ]
    );
    let g = graph();
    assert!(
        g.graph()
            .symbols
            .iter()
            .filter(|s| g.graph().strings.get(s.name.to_native()) == "Scale")
            .count()
            == 1
    );
    // The same across repositories: `v.Len()` on an inferred receiver in app.
    let v = ok_pair(
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Vec.Len", "view": "full"}),
    );
    let guess = v["results"]["references"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["qualified_name"] == "Guess")
        .unwrap();
    assert_eq!(guess["confidence"], "CANDIDATE");
    // Homonyms stay apart: Rect.Area's callers are not Circle.Area's.
    let rect = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Rect.Area", "view": "full"}),
    );
    let circle = ok(
        "find_references",
        json!({"repository": "shapes", "qualified_name": "Circle.Area", "view": "full"}),
    );
    assert_ne!(
        rect["results"]["references"],
        circle["results"]["references"]
    );
}

/// The unresolved record also keeps its language in the generation's tables; the MCP surface
/// prints no language for a failure (a failure's entry shape has none), so that part is not
/// observable here.
#[test]
fn item_126_candidate_and_unresolved_are_never_uses() {
    let v = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add", "view": "full", "response_format": "detailed"}),
    );
    let lost = v["results"]["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == "unresolved")
        .unwrap()
        .as_object()
        .unwrap();
    assert_eq!(lost["confidence"], "UNRESOLVED");
    assert_eq!(lost["reason"], "RECEIVER_TYPE_UNKNOWN");
    assert_eq!(lost["repository"], "app");
    assert_eq!(lost["file_path"], "more/more.go");
    assert_eq!(lost["start_line"], 19);
    for target in [
        "qualified_name",
        "name",
        "kind",
        "edge_kind",
        "consumer_key",
        "stable_key",
    ] {
        assert!(
            !lost.contains_key(target),
            "an unresolved record names no target: {target}"
        );
    }
    // Counted apart from uses.
    assert_eq!(v["coverage"]["exact"], 5);
    assert_eq!(v["coverage"]["unresolved_related"], 1);
    // A candidate stays a candidate in every answer.
    let len = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Vec.Len", "view": "full"}),
    );
    let guess = len["results"]["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["qualified_name"] == "Guess")
        .unwrap();
    assert_eq!(guess["category"], "candidate");
    assert_eq!(len["coverage"]["candidate"], 1);
    let blast = ok_pair(
        "get_blast_radius",
        json!({"repository": "mathlib", "qualified_name": "Vec.Len", "view": "full"}),
    );
    let reached = blast["results"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["qualified_name"] == "Guess")
        .unwrap();
    assert_eq!(reached["via_confidence"], "CANDIDATE");
    // The unresolved request never becomes an edge: Lost calls nothing.
    let lost = ok_pair(
        "find_references",
        json!({"repository": "app", "qualified_name": "Lost", "direction": "outgoing", "view": "full"}),
    );
    assert!(
        lost["results"]["references"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["qualified_name"] != "Add")
    );
}

#[test]
fn item_127_unresolved_related_counts_the_records_touching_the_query() {
    let refs = ok_pair(
        "find_references",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert_eq!(refs["coverage"]["unresolved_related"], 1);
    assert_eq!(
        refs["completeness"]["blind_spots"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let consumers = ok_pair(
        "find_cross_repo_consumers",
        json!({"repository": "mathlib", "qualified_name": "Add"}),
    );
    assert_eq!(consumers["coverage"]["unresolved_related"], 1);
    let trace = ok(
        "trace_dependencies",
        json!({"repository": "shapes", "qualified_name": "main"}),
    );
    assert_eq!(
        trace["coverage"]["unresolved_related"].as_u64().unwrap(),
        trace["completeness"]["blind_spots"]
            .as_array()
            .unwrap()
            .len() as u64
    );
    // Nothing recorded touches Store.Len.
    let none = ok(
        "find_references",
        json!({"repository": "inventory", "qualified_name": "Store.Len"}),
    );
    assert!(none["coverage"].get("unresolved_related").is_none());
}

#[test]
fn item_128_instructions_warn_about_python_candidates_and_dart_unresolved() {
    assert!(tools::INSTRUCTIONS.contains(
        "Check confidence and completeness: Python fallback facts can be CANDIDATE and external Dart packages can be UNRESOLVED."
    ));
}

// ---------------------------------------------------------------------------------------------
// 9.J Rust standard library (only the reserved namespace applies)
// ---------------------------------------------------------------------------------------------

#[test]
fn item_130_the_rust_namespace_is_reserved() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(IndexDir::new(dir.path()));
    for name in ["rust:1.80.0", "rust:"] {
        let e = kivgraph::index::index_project(
            &json!({"name": name, "path": fixture("shapes"), "languages": ["go"], "confirmed": true}),
            &store,
            None,
            &mut |_, _, _| {},
        )
        .unwrap_err();
        invalid(&e);
        assert!(e.message.contains("reserved"), "{e}");
    }
    assert!(store.snapshot().is_none(), "nothing was indexed");
}

// ---------------------------------------------------------------------------------------------
// 9.K Freshness and rebuild
// ---------------------------------------------------------------------------------------------

#[test]
fn item_138_answers_come_from_the_published_generation() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    let before = s.ok(
        "find_references",
        json!({"name": "NewCircle", "view": "full"}),
    );
    s.edit("shapes/geo/geo.go", |t| {
        t.replacen(
            "package geo\n",
            "package geo\n\nfunc Fresh() { _ = NewCircle(1) }\n",
            1,
        )
    });
    assert_eq!(s.ok("find_symbol", json!({"name": "Fresh"}))["total"], 0);
    let after = s.ok(
        "find_references",
        json!({"name": "NewCircle", "view": "full"}),
    );
    assert_eq!(before["results"], after["results"]);
    assert_eq!(
        s.ok(
            "get_symbol",
            json!({"repository": "shapes", "qualified_name": "NewCircle"})
        )["results"]["start_line"],
        55
    );
    // The next generation sees it.
    s.compile(&["shapes"]);
    assert_eq!(s.ok("find_symbol", json!({"name": "Fresh"}))["total"], 1);
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=kivgraph",
            "-c",
            "user.email=kivgraph@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A copy of `inventory` as its own git checkout with one commit, compiled.
fn committed() -> Scratch {
    let s = Scratch::new()
        .with("inventory", "inventory")
        .with("shapes", "shapes");
    let repo = s.repo("inventory");
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    s.compile(&["inventory", "shapes"]);
    s
}

#[test]
fn item_139_graph_status_reports_freshness_per_repository() {
    let s = committed();
    let status = s.ok("graph_status", json!({}));
    let rows = status["results"]["repository_freshness"]
        .as_array()
        .unwrap();
    let inv = rows.iter().find(|r| r["name"] == "inventory").unwrap();
    let commit = inv["indexed_commit"].as_str().unwrap().to_string();
    assert_eq!(commit.len(), 40);
    assert_eq!(inv["current_commit"], commit.as_str());
    assert_eq!(inv["moved"], false);
    assert_eq!(status["results"]["repositories_moved"], 0);
    // A new commit moves it.
    s.write("inventory/NOTES.md", "moved\n");
    let repo = s.repo("inventory");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "second"]);
    let status = s.ok("graph_status", json!({}));
    let rows = status["results"]["repository_freshness"]
        .as_array()
        .unwrap();
    let inv = rows.iter().find(|r| r["name"] == "inventory").unwrap();
    assert_eq!(inv["indexed_commit"], commit.as_str());
    assert_ne!(inv["current_commit"], commit.as_str());
    assert_eq!(inv["moved"], true);
    assert!(inv["moved_detail"].as_str().unwrap().starts_with(&format!(
        "indexed at commit {} on main, the tree is now at ",
        &commit[..7]
    )));
    assert_eq!(status["results"]["repositories_moved"], 1);
    assert_eq!(
        status["results"]["repository_freshness"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn item_140_unreadable_head_is_neither_moved_nor_fresh() {
    let s = committed();
    std::fs::write(s.repo("inventory").join(".git/HEAD"), "garbage\n").unwrap();
    let status = s.ok("graph_status", json!({}));
    let rows = status["results"]["repository_freshness"]
        .as_array()
        .unwrap();
    let inv = rows.iter().find(|r| r["name"] == "inventory").unwrap();
    assert_eq!(inv["moved"], false);
    assert!(inv.get("current_commit").is_none(), "{inv}");
    assert!(
        inv["moved_detail"]
            .as_str()
            .unwrap()
            .starts_with("the working tree could not be compared with the graph: "),
        "{inv}"
    );
    assert_eq!(status["results"]["repositories_moved"], 0);
    let listed = s.ok("list_repositories", json!({}));
    let inv2 = listed["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "inventory")
        .unwrap();
    assert_eq!(inv2, inv);
}

#[test]
fn item_141_rebuild_from_the_cli_and_from_the_client() {
    let _ = compiler();
    let s = Scratch::new().with("shapes", "shapes");
    std::fs::create_dir_all(s.index()).unwrap();
    std::fs::write(
        s.index().join("projects.json"),
        serde_json::to_string(
            &json!([{"name": "shapes", "path": s.repo("shapes"), "languages": ["go"]}]),
        )
        .unwrap(),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .args(["index", "--full", "--index"])
        .arg(s.index())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.generation().id, 1);
    assert_eq!(
        s.ok("graph_status", json!({}))["results"]["repositories"],
        1
    );
    // From the client: index_project on the same sources answers with the published generation;
    // after an edit it publishes the next one.
    let _serial = INDEXING.lock().unwrap_or_else(|e| e.into_inner());
    let store = Store::open(IndexDir::new(s.index()));
    let index = || -> Value {
        serde_json::from_str(
            &kivgraph::index::index_project(
                &json!({"name": "shapes", "path": s.repo("shapes"), "languages": ["go"], "confirmed": true}),
                &store,
                None,
                &mut |_, _, _| {},
            )
            .unwrap(),
        )
        .unwrap()
    };
    let same = index();
    assert_eq!(
        (same["generation_id"].clone(), same["up_to_date"].clone()),
        (json!(1), json!(true))
    );
    let file = s.repo("shapes").join("added.go");
    std::fs::write(&file, "package shapes\n\nfunc Added() {}\n").unwrap();
    let answer = index();
    assert_eq!(answer["generation_id"], 2);
    assert_eq!(answer["up_to_date"], false);
    assert_eq!(store.snapshot().unwrap().id, 2);
}

#[test]
fn item_142_index_project_without_consent_is_permission_required() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(IndexDir::new(dir.path()));
    for confirmed in [json!(null), json!(false)] {
        let mut args = json!({"name": "shapes", "path": fixture("shapes"), "languages": ["go"]});
        if !confirmed.is_null() {
            args["confirmed"] = confirmed;
        }
        let e = kivgraph::index::index_project(&args, &store, None, &mut |_, _, _| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "PERMISSION_REQUIRED: user approval is required; confirm the operation before setting confirmed=true"
        );
    }
    assert!(!dir.path().join("CURRENT").exists());
    assert!(!dir.path().join("projects.json").exists());
}

#[test]
fn item_143_index_project_takes_every_project_in_one_call() {
    let _ = compiler();
    let _serial = INDEXING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(IndexDir::new(dir.path()));
    let answer: Value = serde_json::from_str(
        &kivgraph::index::index_project(
            &json!({"projects": [
                {"name": "shapes", "path": fixture("shapes"), "languages": ["go"]},
                {"name": "inventory", "path": fixture("inventory"), "languages": ["go"]}
            ], "confirmed": true}),
            &store,
            None,
            &mut |_, _, _| {},
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(answer["generation_id"], 1, "one rebuild for the batch");
    assert_eq!(answer["projects"], json!(["shapes", "inventory"]));
    let g = store.snapshot().unwrap();
    assert_eq!(g.graph().repositories.len(), 2);
    let e = kivgraph::index::index_project(
        &json!({"projects": [{"name": "a", "path": fixture("shapes"), "languages": ["go"]}], "name": "b", "confirmed": true}),
        &store,
        None,
        &mut |_, _, _| {},
    )
    .unwrap_err();
    invalid(&e);
}

// ---------------------------------------------------------------------------------------------
// 9.L Tool-to-question routing
// ---------------------------------------------------------------------------------------------

#[test]
fn item_145_get_symbol_list_repositories_and_graph_status_answer_their_questions() {
    let v = ok(
        "get_symbol",
        json!({"repository": "inventory", "qualified_name": "Store.Get"}),
    );
    let r = &v["results"];
    assert_eq!(r["package_name"], "example.com/inventory/store");
    assert_eq!(r["signature"], "func (s *Store) Get(sku SKU) (Item, error)");
    assert_eq!(r["exported"], true);
    assert_eq!(
        (r["start_line"].as_u64(), r["end_line"].as_u64()),
        (Some(82), Some(88))
    );
    assert_eq!(
        (v["total"].as_u64(), v["returned"].as_u64()),
        (Some(1), Some(1))
    );
    let repos = ok("list_repositories", json!({}));
    let names: Vec<&str> = repos["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["inventory", "shapes"]);
    for r in repos["results"].as_array().unwrap() {
        assert!(
            r.get("indexed_commit").is_some() && r.get("moved").is_some(),
            "{r}"
        );
        assert!(Path::new(r["path"].as_str().unwrap()).is_absolute());
    }
    let status = ok("graph_status", json!({}));
    let s = &status["results"];
    assert_eq!(s["status"], "ready");
    assert_eq!(s["snapshot_id"], 1);
    assert!(s["snapshot_built_at"].is_string() && s["snapshot_age_ms"].is_u64());
    assert!(s["repository_freshness"].is_array() && s["repositories_moved"].is_u64());
    assert_eq!(s["repositories"], 2);
}

/// Readers find the files under a path by binary search and strings by id, so the full check
/// (what `kivgraph pull` runs before it installs a generation) refuses files out of their
/// (repository, path) order.
#[test]
fn the_full_check_refuses_files_out_of_order() {
    let s = Scratch::new().with("shapes", "shapes");
    s.compile(&["shapes"]);
    forge(&s.index(), |blob| blob.files.swap(0, 1));
    let g = Generation::open_current(&IndexDir::new(s.index()))
        .unwrap()
        .unwrap();
    // The manifest records the forged blob, so only the order is wrong.
    let bytes = std::fs::read(g.dir.join("graph.blob")).unwrap();
    let path = g.dir.join("manifest.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for f in manifest["files"].as_array_mut().unwrap() {
        if f["name"] == "graph.blob" {
            f["size"] = json!(bytes.len());
            f["xxh3_128"] = json!(kivgraph_format::manifest::digest_hex(&bytes));
        }
    }
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    let e = kivgraph_format::verify_generation(&g.dir)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not in (repository, path) order"), "{e}");
}
