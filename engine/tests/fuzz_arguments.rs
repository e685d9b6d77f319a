//! Fuzz-style robustness: random and malformed arguments for every registered tool, and
//! malformed JSON-RPC lines for `kivgraph serve`, from a deterministic PRNG (xorshift64*).
//!
//! - In process: at least `TOOL_CALLS` calls of `kivgraph::tools::call` (and
//!   `kivgraph::index::index_project`, never with `confirmed`, so nothing is rebuilt) on a
//!   generation compiled from the Go fixtures. No call may panic; every error carries a code of
//!   the coded vocabulary; every answer is JSON text (prose starting with `snapshot ` for
//!   `get_source`).
//! - Over stdio: at least `PROTOCOL_LINES` malformed lines to one server. Each request line gets
//!   exactly one JSON-RPC response with its id, a notification or a client response gets none,
//!   and the server still answers `ping` at the end.
//!
//! The seed is fixed so a failure reproduces; `KIVGRAPH_FUZZ_SEED` runs another one, and
//! `KIVGRAPH_FUZZ_SCALE` multiplies both counts for a longer soak.

use crate::common::{compiler, workspace};

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use kivgraph::{Store, index, query, tools};
use kivgraph_format::{Confidence, EdgeKind, Generation, IndexDir, Language, SymbolKind};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

const DEFAULT_SEED: u64 = 0x6b69_7667_7261_7068; // "kivgraph"
const TOOL_CALLS: usize = 12_000;
const PROTOCOL_LINES: usize = 1_500;

/// Every code a tool error may carry.
const CODES: &[&str] = &[
    "INVALID_ARGUMENT",
    "SYMBOL_NOT_FOUND",
    "AMBIGUOUS_SYMBOL",
    "REPOSITORY_NOT_FOUND",
    "CURSOR_INVALID",
    "CURSOR_SNAPSHOT_EXPIRED",
    "TRAVERSAL_LIMIT_REACHED",
    "SNAPSHOT_UNAVAILABLE",
    "INDEX_NOT_READY",
    "PERMISSION_REQUIRED",
    "PERMISSION_DENIED",
    "INDEXING_FAILED",
];

/// Tools whose answer is prose, with the prefix it starts with.
const PROSE: &[(&str, &str)] = &[("get_source", "snapshot ")];

/// Argument keys this test knows how to fill with plausible values.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "qualified_name",
    "stable_key",
    "repository",
    "repo",
    "path",
    "path_prefix",
    "file_path",
    "cursor",
    "edge_kinds",
    "kinds",
    "kind",
    "confidence",
    "language",
    "languages",
    "projects",
];

fn seed() -> u64 {
    std::env::var("KIVGRAPH_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

fn scale() -> usize {
    std::env::var("KIVGRAPH_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1usize)
        .max(1)
}

/// One index compiled from the fixtures, shared by the tests of this file.
fn index_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let fixtures = workspace().join("fixtures/go");
        let out = Command::new(compiler())
            .arg("--out")
            .arg(&dir)
            .arg(format!("shapes={}", fixtures.join("shapes").display()))
            .arg(format!(
                "inventory={}",
                fixtures.join("inventory").display()
            ))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

// ---- the PRNG ----

/// xorshift64*: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---- what the generation holds, to make plausible values ----

struct Corpus {
    /// Every symbol of the generation, for arguments that agree with each other.
    symbols: Vec<query::SymbolRow>,
    names: Vec<String>,
    qualified: Vec<String>,
    keys: Vec<String>,
    repos: Vec<String>,
    files: Vec<String>,
    dirs: Vec<String>,
    abs_dirs: Vec<String>,
    cursors: Vec<String>,
    snapshot: u64,
    /// Every argument key of every tool, for random objects.
    all_keys: Vec<String>,
}

/// The registered tools with their input schemas: the query tools and index_project.
fn registered() -> Vec<(&'static str, Value)> {
    tools::QUERY_TOOLS
        .iter()
        .map(|t| (t.name, (t.schema)()))
        .chain([(index::INDEX_PROJECT.name, (index::INDEX_PROJECT.schema)())])
        .collect()
}

fn corpus(g: &Arc<Generation>) -> Corpus {
    let mut c = Corpus {
        symbols: Vec::new(),
        names: Vec::new(),
        qualified: Vec::new(),
        keys: Vec::new(),
        repos: Vec::new(),
        files: Vec::new(),
        dirs: vec![".".into(), String::new()],
        abs_dirs: Vec::new(),
        cursors: Vec::new(),
        snapshot: g.id,
        all_keys: Vec::new(),
    };
    for id in 0..g.graph().symbols.len() as u32 {
        let r = query::symbol_row(g, id);
        c.names.push(r.name.clone());
        c.qualified.push(r.qualified_name.clone());
        c.keys.push(r.stable_key.clone());
        c.repos.push(r.repository.clone());
        let mut dir = Path::new(&r.file_path).parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            c.dirs.push(d.to_string_lossy().into_owned());
            dir = d.parent();
        }
        c.files.push(r.file_path.clone());
        c.abs_dirs.push(r.repository_path.clone());
        c.symbols.push(r);
    }
    for v in [
        &mut c.names,
        &mut c.qualified,
        &mut c.repos,
        &mut c.files,
        &mut c.dirs,
        &mut c.abs_dirs,
    ] {
        v.sort();
        v.dedup();
    }
    c.abs_dirs
        .push(workspace().join("fixtures/go").to_string_lossy().into());
    c.abs_dirs.push("/".into());
    c.abs_dirs
        .push(std::env::temp_dir().to_string_lossy().into());
    // Real cursors: the first page of paged answers.
    for (tool, args) in [
        ("find_symbol", json!({"name": "e", "mode": "substring"})),
        (
            "find_references",
            json!({"qualified_name": "Circle", "repository": "shapes", "path": "geo"}),
        ),
        ("get_blast_radius", json!({"qualified_name": "NewCircle"})),
        (
            "trace_dependencies",
            json!({"qualified_name": "main", "repository": "shapes", "path": "cmd/shapes"}),
        ),
        (
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo"}),
        ),
        ("list_repositories", json!({})),
    ] {
        for limit in [1, 2] {
            let mut a = args.clone();
            a["limit"] = json!(limit);
            if let Ok(text) = tools::call(tool, &a, Some(g.clone()))
                && let Ok(v) = serde_json::from_str::<Value>(&text)
                && let Some(cur) = v["next_cursor"].as_str()
            {
                c.cursors.push(cur.to_string());
            }
        }
    }
    assert!(
        c.cursors.len() >= 6,
        "expected real cursors from the paged tools, got {:?}",
        c.cursors
    );
    let mut keys: Vec<String> = registered()
        .iter()
        .flat_map(|(_, s)| {
            s["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .filter(|k| k != "confirmed")
        .collect();
    keys.extend(KNOWN_KEYS.iter().map(|k| k.to_string()));
    keys.sort();
    keys.dedup();
    c.all_keys = keys;
    c
}

// ---- random values ----

fn varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Splits a real cursor into (snapshot, offset, query digests); see engine/src/cursor.rs.
fn cursor_parts(token: &str) -> Option<(u64, u64, Vec<u8>)> {
    let body = URL_SAFE_NO_PAD.decode(token).ok()?;
    let mut pos = 1;
    let mut read = || {
        let mut v = 0u64;
        for i in 0..10 {
            let b = *body.get(pos)?;
            pos += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let snapshot = read()?;
    let offset = read()?;
    Some((snapshot, offset, body.get(pos..pos + 12)?.to_vec()))
}

/// A well-formed cursor (valid checksum) with the given snapshot and offset.
fn craft_cursor(snapshot: u64, offset: u64, digests: &[u8]) -> String {
    let mut body = vec![2u8];
    varint(&mut body, snapshot);
    varint(&mut body, offset);
    body.extend_from_slice(digests);
    let check: [u8; 32] = Sha256::digest(&body).into();
    body.extend_from_slice(&check[..8]);
    URL_SAFE_NO_PAD.encode(body)
}

impl Rng {
    fn number(&mut self) -> Value {
        match self.below(4) {
            0 => json!(*self.pick(&[
                0i64,
                1,
                2,
                3,
                4,
                5,
                6,
                49,
                50,
                200,
                499,
                500,
                501,
                4999,
                5000,
                24_999,
                25_000,
                25_001,
                (1 << 31) - 1,
                1 << 31,
                1 << 32,
                i64::MAX,
            ])),
            1 => json!(*self.pick(&[-1i64, -2, -5, -500, -25_000, i64::MIN])),
            2 => json!(*self.pick(&[
                0.0f64,
                -0.0,
                0.5,
                1.0,
                1.5,
                3.0,
                5.0,
                500.0,
                -1.0,
                1e308,
                -1e308,
                f64::MIN_POSITIVE,
                1e-300,
                4.2e9,
            ])),
            _ => match self.below(3) {
                0 => json!(self.next()),
                1 => json!(self.next() as i64),
                _ => json!(u64::MAX),
            },
        }
    }

    fn unicode_char(&mut self) -> char {
        loop {
            let cp = match self.below(4) {
                0 => self.next() as u32 % 0x80,
                1 => self.next() as u32 % 0x800,
                2 => self.next() as u32 % 0x1_0000,
                _ => self.next() as u32 % 0x11_0000,
            };
            if let Some(c) = char::from_u32(cp) {
                return c;
            }
        }
    }

    fn random_string(&mut self, max: usize) -> String {
        let n = self.below(max + 1);
        (0..n).map(|_| self.unicode_char()).collect()
    }

    fn nasty_string(&mut self, c: &Corpus) -> String {
        const FIXED: &[&str] = &[
            "",
            " ",
            "\t",
            "\n",
            "\r\n",
            "\u{0}",
            "a\u{0}b",
            "NewCircle\u{0}",
            "\u{0}NewCircle",
            " NewCircle",
            "NewCircle ",
            "\u{a0}NewCircle",
            "\u{feff}NewCircle",
            "\u{200b}",
            "\u{202e}elcriCweN",
            "e\u{301}",
            "é",
            "Ünïcödé",
            "日本語",
            "🦀",
            "🦀🦀🦀",
            "\u{ffff}",
            "\u{10ffff}",
            "%s%n%x",
            "{}",
            "[]",
            "null",
            "true",
            "0",
            "-1",
            "*",
            "**",
            "?",
            "\\",
            "\\\\",
            "/",
            "//",
            ".",
            "./",
            "..",
            "../",
            "../..",
            "../../../../../../etc/passwd",
            "geo/..",
            "geo/../..",
            "geo/../../..",
            "./geo",
            "geo//geo.go",
            "geo\\geo.go",
            "geo\\..\\..",
            "/etc/passwd",
            "/etc",
            "/tmp",
            "/dev/null",
            "/proc/self/mem",
            "C:\\Windows",
            "c:",
            "C:/x",
            "\\\\server\\share",
            "~",
            "~/",
            "~root",
            "~/../../etc",
            "file:///etc/passwd",
            "Circle.Area",
            "(*Circle).Area",
            "shapes:geo/geo.go:60",
            "AAAAAAAAAAAAAAAAAAAAAAAAAA",
            "=",
            "+/",
        ];
        match self.below(12) {
            0..=5 => self.pick(FIXED).to_string(),
            6 => self.random_string(24),
            7 => {
                let base = self.pick(&c.names).clone();
                let extra = self.random_string(3);
                match self.below(4) {
                    0 => format!("{extra}{base}"),
                    1 => format!("{base}{extra}"),
                    2 => base.to_uppercase(),
                    _ => base.chars().rev().collect(),
                }
            }
            8 => {
                // Long: past any plausible buffer or cursor length.
                let unit = self.pick(&["a", "é", "🦀", "/", "..", "\u{0}", "NewCircle"]);
                unit.repeat(1 + self.below(20_000))
            }
            9 => {
                // Base32 like a stable key.
                const B32: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567ABCDEFGHIJKLMNOPQRSTUVWXYZ";
                (0..self.below(40))
                    .map(|_| *self.pick(B32) as char)
                    .collect()
            }
            10 => format!(
                "{}/{}",
                self.pick(&c.abs_dirs),
                self.pick(&["", "..", "../..", "geo", "nope", "\u{0}"])
            ),
            _ => (0..self.below(12))
                .map(|_| self.pick(&["..", ".", "geo", "", "x", "~"]).to_string())
                .collect::<Vec<_>>()
                .join(if self.chance(80) { "/" } else { "\\" }),
        }
    }

    fn random_key(&mut self, c: &Corpus) -> String {
        match self.below(5) {
            0..=2 => self.pick(&c.all_keys).clone(),
            3 => self.random_string(10),
            _ => {
                let k = self.pick(&c.all_keys).clone();
                match self.below(4) {
                    0 => k.to_uppercase(),
                    1 => format!(" {k}"),
                    2 => format!("{k}\u{0}"),
                    _ => format!("{k}s"),
                }
            }
        }
    }

    fn random_json(&mut self, c: &Corpus, depth: u32) -> Value {
        match self.below(if depth == 0 { 5 } else { 8 }) {
            0 => Value::Null,
            1 => json!(self.chance(50)),
            2 => self.number(),
            3 => json!(self.nasty_string(c)),
            4 => json!(self.random_string(8)),
            5 | 6 => {
                let n = self.below(5);
                Value::Array((0..n).map(|_| self.random_json(c, depth - 1)).collect())
            }
            _ => {
                let n = self.below(5);
                let mut m = Map::new();
                for _ in 0..n {
                    let k = self.random_key(c);
                    let v = self.random_json(c, depth - 1);
                    m.insert(k, v);
                }
                Value::Object(m)
            }
        }
    }

    /// A value nested `n` levels deep in arrays and objects.
    fn deep(&mut self, c: &Corpus, n: usize) -> Value {
        let mut v = self.random_json(c, 0);
        for _ in 0..n {
            v = if self.chance(50) {
                json!([v])
            } else {
                json!({ self.random_key(c): v })
            };
        }
        v
    }

    fn cursor(&mut self, c: &Corpus) -> String {
        let real = self.pick(&c.cursors).clone();
        match self.below(11) {
            0 | 1 => real,
            2 => {
                let cut = self.below(real.len());
                real[..cut].to_string()
            }
            3 => {
                // One character replaced.
                let mut chars: Vec<char> = real.chars().collect();
                let i = self.below(chars.len());
                chars[i] = *self.pick(&['A', 'z', '0', '-', '_', '=', '+', '/', '.', '\u{0}']);
                chars.into_iter().collect()
            }
            4 => format!("{real}{}", self.pick(&["A", "AA", "=", "==", " ", "\n"])),
            5 => {
                const B64: &[u8] =
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
                (0..self.below(100))
                    .map(|_| *self.pick(B64) as char)
                    .collect()
            }
            6 => {
                let bytes: Vec<u8> = (0..self.below(64)).map(|_| self.next() as u8).collect();
                URL_SAFE_NO_PAD.encode(bytes)
            }
            7..=9 => {
                // Well formed, checksum right, for the real query: any snapshot and offset.
                let (snapshot, offset, digests) = cursor_parts(&real).unwrap();
                let snapshot = *self.pick(&[snapshot, snapshot, 0, snapshot + 1, u64::MAX]);
                let any = self.next();
                let offset = *self.pick(&[
                    offset,
                    0,
                    1,
                    offset + 1,
                    1000,
                    (1 << 31) - 1,
                    1 << 31,
                    u64::MAX,
                    any,
                ]);
                craft_cursor(snapshot, offset, &digests)
            }
            _ => {
                // Another snapshot's cursor for this query, or a canonical-looking body.
                let (_, offset, digests) = cursor_parts(&real).unwrap();
                craft_cursor(c.snapshot.wrapping_sub(1), offset, &digests)
            }
        }
    }

    fn string_list(&mut self, c: &Corpus, vocabulary: &[&str]) -> Value {
        let n = self.below(5);
        Value::Array(
            (0..n)
                .map(|_| match self.below(10) {
                    0..=5 => json!(self.pick(vocabulary)),
                    6 => json!("*"),
                    7 => json!(self.pick(vocabulary).to_lowercase()),
                    8 => json!(self.nasty_string(c)),
                    _ => self.random_json(c, 1),
                })
                .collect(),
        )
    }

    /// A value that could be right for `key`, or nearly so.
    fn plausible(&mut self, c: &Corpus, key: &str, spec: &Value) -> Value {
        let edge_kinds: Vec<&str> = EdgeKind::ALL.iter().map(|k| k.as_str()).collect();
        let symbol_kinds: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        let languages: Vec<&str> = Language::ALL.iter().map(|k| k.as_str()).collect();
        match key {
            "name" | "query" | "intent" | "text" => json!(if self.chance(70) {
                self.pick(&c.names).clone()
            } else {
                self.pick(&c.qualified).clone()
            }),
            "qualified_name" => json!(if self.chance(80) {
                self.pick(&c.qualified).clone()
            } else {
                self.pick(&c.names).clone()
            }),
            "stable_key" => {
                let k = self.pick(&c.keys).clone();
                json!(match self.below(4) {
                    0 => k[..self.below(k.len())].to_string(),
                    1 => k.to_uppercase(),
                    _ => k,
                })
            }
            "repository" | "repo" => json!(match self.below(6) {
                0 => "nope".to_string(),
                1 => self.pick(&c.repos).to_uppercase(),
                _ => self.pick(&c.repos).clone(),
            }),
            "path" | "path_prefix" | "file_path" => json!(match self.below(6) {
                0 | 1 => self.pick(&c.files).clone(),
                2 | 3 => self.pick(&c.dirs).clone(),
                4 => self.pick(&c.abs_dirs).clone(),
                _ => format!("{}/", self.pick(&c.dirs)),
            }),
            "cursor" => json!(self.cursor(c)),
            "edge_kinds" => self.string_list(c, &edge_kinds),
            "kinds" => self.string_list(c, &symbol_kinds),
            "kind" => json!(self.pick(&symbol_kinds)),
            "confidence" => json!(
                self.pick(
                    &Confidence::ALL
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                )
            ),
            "language" => json!(self.pick(&languages)),
            "languages" => self.string_list(c, &["go", "GO", " go", "rust", "ts", "py", "cobol"]),
            "projects" => {
                let n = self.below(4);
                Value::Array(
                    (0..n)
                        .map(|_| {
                            if self.chance(15) {
                                return self.random_json(c, 2);
                            }
                            let mut m = Map::new();
                            for k in ["name", "path", "languages"] {
                                if self.chance(85) {
                                    let v = self.value_for(c, k, &Value::Null);
                                    m.insert(k.into(), v);
                                }
                            }
                            if self.chance(10) {
                                let k = self.random_key(c);
                                let v = self.random_json(c, 1);
                                m.insert(k, v);
                            }
                            Value::Object(m)
                        })
                        .collect(),
                )
            }
            _ => {
                if let Some(options) = spec["enum"].as_array() {
                    return options[self.below(options.len())].clone();
                }
                match spec["type"].as_str() {
                    Some("integer") | Some("number") => self.number(),
                    Some("boolean") => json!(self.chance(50)),
                    Some("array") => {
                        let words = ["NewCircle", "go", "*", "CALLS_DIRECT", "func"];
                        self.string_list(c, &words)
                    }
                    Some("string") => json!(if self.chance(50) {
                        self.pick(&c.names).clone()
                    } else {
                        self.nasty_string(c)
                    }),
                    _ => self.random_json(c, 2),
                }
            }
        }
    }

    /// A value for `key`: mostly plausible, else of the wrong type or hostile.
    fn value_for(&mut self, c: &Corpus, key: &str, spec: &Value) -> Value {
        match self.below(20) {
            0..=10 => self.plausible(c, key, spec),
            11 | 12 => {
                // The right key with a value of another type.
                match self.below(6) {
                    0 => Value::Null,
                    1 => json!(self.chance(50)),
                    2 => self.number(),
                    3 => json!([self.plausible(c, key, spec)]),
                    4 => json!({ key: self.plausible(c, key, spec) }),
                    _ => json!(self.nasty_string(c)),
                }
            }
            13 | 14 => {
                if let Some(options) = spec["enum"].as_array() {
                    let o = options[self.below(options.len())]
                        .as_str()
                        .unwrap_or("")
                        .to_string();
                    json!(match self.below(3) {
                        0 => o.to_uppercase(),
                        1 => format!("{o} "),
                        _ => format!("{o}s"),
                    })
                } else {
                    self.number()
                }
            }
            15..=17 => json!(self.nasty_string(c)),
            18 => {
                let depth = 1 + self.below(64);
                self.deep(c, depth)
            }
            _ => self.random_json(c, 3),
        }
    }

    /// A value that is valid for `key` on its own, about the symbol `sym`.
    fn valid_value(
        &mut self,
        c: &Corpus,
        tool: &str,
        key: &str,
        spec: &Value,
        sym: &query::SymbolRow,
    ) -> Value {
        let indexing = tool == index::INDEX_PROJECT.name;
        let dir = Path::new(&sym.file_path)
            .parent()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        match key {
            "name" if indexing => json!(format!("{}_{}", sym.repository, self.below(3))),
            "path" if indexing => json!(sym.repository_path),
            "languages" => json!(["go"]),
            "projects" => {
                let n = 1 + self.below(2);
                Value::Array(
                    (0..n)
                        .map(|i| json!({"name": format!("{}_{i}", sym.repository), "path": sym.repository_path, "languages": ["go"]}))
                        .collect(),
                )
            }
            "name" => json!(sym.name),
            "qualified_name" => json!(sym.qualified_name),
            "stable_key" => json!(sym.stable_key),
            "repository" | "repo" => json!(sym.repository),
            "path" => json!(if self.chance(50) {
                sym.file_path.clone()
            } else {
                dir
            }),
            "path_prefix" => json!(if self.chance(70) { dir } else { String::new() }),
            "cursor" => json!(self.pick(&c.cursors)),
            "edge_kinds" => {
                if self.chance(50) {
                    json!(["*"])
                } else {
                    let n = 1 + self.below(3);
                    json!(
                        (0..n)
                            .map(|_| self.pick(EdgeKind::ALL).as_str())
                            .collect::<Vec<_>>()
                    )
                }
            }
            "kinds" => {
                if self.chance(50) {
                    json!(["*"])
                } else {
                    let n = 1 + self.below(3);
                    json!(
                        (0..n)
                            .map(|_| self.pick(SymbolKind::ALL).as_str())
                            .collect::<Vec<_>>()
                    )
                }
            }
            "kind" => json!(if self.chance(50) {
                sym.kind
            } else {
                self.pick(SymbolKind::ALL).as_str()
            }),
            "confidence" => json!(self.pick(Confidence::ALL).as_str()),
            "language" => json!(if self.chance(80) {
                sym.language
            } else {
                self.pick(Language::ALL).as_str()
            }),
            _ => {
                if let Some(options) = spec["enum"].as_array() {
                    return options[self.below(options.len())].clone();
                }
                match spec["type"].as_str() {
                    Some("integer") | Some("number") => {
                        let lo = spec["minimum"].as_u64().unwrap_or(0);
                        let hi = spec["maximum"].as_u64().unwrap_or(100).max(lo);
                        json!(lo + self.next() % (hi - lo + 1))
                    }
                    Some("boolean") => json!(self.chance(50)),
                    Some("array") => json!([]),
                    Some("string") => json!(sym.name),
                    _ => Value::Null,
                }
            }
        }
    }

    /// Arguments for one call of `tool`: mostly valid ones with a few mutations.
    fn arguments(&mut self, c: &Corpus, tool: &str, schema: &Value) -> Value {
        let props: Vec<(String, Value)> = schema["properties"]
            .as_object()
            .map(|p| {
                p.iter()
                    .filter(|(k, _)| k.as_str() != "confirmed")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let has = |k: &str| props.iter().any(|(p, _)| p == k);
        let spec = |k: &str| {
            props
                .iter()
                .find(|(p, _)| p == k)
                .map_or(Value::Null, |(_, s)| s.clone())
        };
        let mut args = match self.below(20) {
            // Not an object at all, or no arguments.
            0 => self.random_json(c, 2),
            1 => Value::Null,
            // A random object of any keys.
            2 | 3 => {
                let mut m = Map::new();
                for _ in 0..self.below(6) {
                    let k = self.random_key(c);
                    let v = self.random_json(c, 2);
                    m.insert(k, v);
                }
                Value::Object(m)
            }
            // Valid arguments about one symbol, then a few mutations.
            _ => {
                let sym = self.pick(&c.symbols).clone();
                let mut m = Map::new();
                let required: Vec<String> = schema["required"]
                    .as_array()
                    .map(|r| {
                        r.iter()
                            .filter_map(|k| k.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                for k in &required {
                    let v = self.valid_value(c, tool, k, &spec(k), &sym);
                    m.insert(k.clone(), v);
                }
                if tool == index::INDEX_PROJECT.name {
                    let keys: &[&str] = if self.chance(50) {
                        &["name", "path", "languages"]
                    } else {
                        &["projects"]
                    };
                    for k in keys {
                        let v = self.valid_value(c, tool, k, &Value::Null, &sym);
                        m.insert(k.to_string(), v);
                    }
                } else if required.is_empty() {
                    // The subject, when the tool takes one.
                    match self.below(4) {
                        0 if has("name") => {
                            m.insert("name".into(), json!(sym.name));
                        }
                        1 if has("stable_key") => {
                            m.insert("stable_key".into(), json!(sym.stable_key));
                        }
                        _ if has("qualified_name") => {
                            m.insert("qualified_name".into(), json!(sym.qualified_name));
                            if has("repository") && self.chance(60) {
                                m.insert("repository".into(), json!(sym.repository));
                                if has("path") && self.chance(50) {
                                    let v = self.valid_value(c, tool, "path", &Value::Null, &sym);
                                    m.insert("path".into(), v);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                // Optional arguments, valid on their own.
                let subject = ["name", "stable_key", "qualified_name", "repository", "path"];
                for (k, sp) in &props {
                    if !m.contains_key(k) && !subject.contains(&k.as_str()) && self.chance(20) {
                        let v = self.valid_value(c, tool, k, sp, &sym);
                        m.insert(k.clone(), v);
                    }
                }
                // Mutations: a hostile value, a key removed, a key added.
                let mutations = *self.pick(&[0usize, 0, 1, 1, 1, 2, 3]);
                for _ in 0..mutations {
                    match self.below(6) {
                        0..=2 => {
                            let k = if !m.is_empty() && self.chance(70) {
                                m.keys().nth(self.below(m.len())).unwrap().clone()
                            } else if !props.is_empty() {
                                props[self.below(props.len())].0.clone()
                            } else {
                                self.random_key(c)
                            };
                            let v = self.value_for(c, &k, &spec(&k));
                            m.insert(k, v);
                        }
                        3 if !m.is_empty() => {
                            let k = m.keys().nth(self.below(m.len())).unwrap().clone();
                            m.remove(&k);
                        }
                        4 if !props.is_empty() => {
                            let (k, sp) = props[self.below(props.len())].clone();
                            let v = self.valid_value(c, tool, &k, &sp, &sym);
                            m.insert(k, v);
                        }
                        _ => {
                            let k = self.random_key(c);
                            let v = self.random_json(c, 1);
                            m.insert(k, v);
                        }
                    }
                }
                Value::Object(m)
            }
        };
        if tool == index::INDEX_PROJECT.name {
            strip_confirmed(&mut args);
        }
        args
    }
}

/// Removes every `confirmed` key, so index_project never gets consent and never rebuilds.
fn strip_confirmed(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("confirmed");
            m.values_mut().for_each(strip_confirmed);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_confirmed),
        _ => {}
    }
}

fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 600 {
        let mut cut = 600;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… ({} bytes)", &s[..cut], s.len())
    } else {
        s
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string panic payload)".into())
}

/// Checks one answer; returns what is wrong with it.
fn judge(tool: &str, answer: &Result<String, kivgraph::ToolError>) -> Result<&'static str, String> {
    match answer {
        Err(e) => {
            if !CODES.contains(&e.code) {
                return Err(format!("uncoded error {:?}: {}", e.code, e.message));
            }
            if e.message.trim().is_empty() {
                return Err(format!("error {} without a message", e.code));
            }
            Ok(e.code)
        }
        Ok(text) => {
            if tool == index::INDEX_PROJECT.name {
                return Err(format!("index_project succeeded without consent: {text}"));
            }
            if let Some((_, prefix)) = PROSE.iter().find(|(t, _)| *t == tool) {
                if !text.starts_with(prefix) {
                    return Err(format!(
                        "prose answer does not start with {prefix:?}: {text}"
                    ));
                }
            } else if let Err(e) = serde_json::from_str::<Value>(text) {
                return Err(format!("answer is not JSON ({e}): {text}"));
            }
            Ok("ok")
        }
    }
}

#[test]
fn random_arguments_never_panic_and_errors_are_coded() {
    let seed = seed();
    let store = Store::open(IndexDir::new(index_dir()));
    let g = store
        .snapshot()
        .expect("the fixtures generation is published");
    let c = corpus(&g);
    let tools = registered();
    let mut rng = Rng::new(seed);
    let mut failures: Vec<String> = Vec::new();
    let mut failed = 0usize;
    let mut outcomes: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut calls = 0usize;

    while calls < TOOL_CALLS * scale() {
        let (tool, schema) = &tools[calls % tools.len()];
        let args = rng.arguments(&c, tool, schema);
        // Mostly the served generation; sometimes none, or a tool name that is not registered.
        let (name, generation): (String, _) = match rng.below(100) {
            0 => (rng.nasty_string(&c), Some(g.clone())),
            1 | 2 => (tool.to_string(), None),
            _ => (tool.to_string(), Some(g.clone())),
        };
        calls += 1;
        let answer = catch_unwind(AssertUnwindSafe(|| {
            if name == index::INDEX_PROJECT.name {
                index::index_project(&args, &store, None, &mut |_, _, _| {})
            } else {
                tools::call(&name, &args, generation)
            }
        }));
        let verdict = match &answer {
            Err(p) => Err(format!("panicked: {}", panic_message(p.as_ref()))),
            Ok(a) => judge(&name, a),
        };
        match verdict {
            Ok(code) => {
                *outcomes
                    .entry(tool)
                    .or_default()
                    .entry(if name == *tool {
                        code
                    } else {
                        "(other tool name)"
                    })
                    .or_default() += 1;
            }
            Err(why) => {
                failed += 1;
                if failures.len() < 20 {
                    failures.push(format!("call {calls}: {name:?} {}: {why}", shown(&args)));
                }
            }
        }
    }

    for (tool, codes) in &outcomes {
        eprintln!("fuzz_arguments: {tool}: {codes:?}");
    }
    assert!(
        failures.is_empty(),
        "{failed} of {calls} calls failed (seed {seed}); the first ones:\n{}",
        failures.join("\n")
    );
    // The arguments must get past validation too: every query tool whose required arguments this
    // test knows how to fill answered at least once.
    for (tool, schema) in &tools {
        let required_known = schema["required"].as_array().is_none_or(|r| {
            r.iter()
                .all(|k| k.as_str().is_some_and(|k| KNOWN_KEYS.contains(&k)))
        });
        if *tool != index::INDEX_PROJECT.name && required_known {
            assert!(
                outcomes[tool].get("ok").copied().unwrap_or(0) > 0,
                "{tool} never answered successfully; the generator misses its valid arguments: {:?}",
                outcomes[tool]
            );
        }
    }
    assert!(
        outcomes[index::INDEX_PROJECT.name]
            .get("PERMISSION_REQUIRED")
            .is_some_and(|&n| n > 0),
        "index_project never reached its consent check: {:?}",
        outcomes[index::INDEX_PROJECT.name]
    );
}

// ---- JSON-RPC lines over stdio ----

/// What the server must answer to one line: nothing, or one response with this id.
fn expected_reply(line: &[u8]) -> Option<Value> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(Value::Null); // parse error
    };
    if text.trim().is_empty() {
        return None;
    }
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Some(Value::Null); // parse error
    };
    let Value::Object(m) = v else {
        return Some(Value::Null); // invalid request
    };
    // A client response (nothing to answer).
    if !m.contains_key("method") && (m.contains_key("result") || m.contains_key("error")) {
        return None;
    }
    // An id that is not a string, a number or null makes the request invalid: answered with null.
    let id = match m.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id.clone()),
        Some(_) => return Some(Value::Null),
    };
    let valid = m.get("jsonrpc") == Some(&json!("2.0"))
        && m.get("method").is_some_and(Value::is_string)
        && m.get("params")
            .is_none_or(|p| p.is_object() || p.is_array());
    match (valid, id) {
        (true, id) => id,                               // a notification has no answer
        (false, id) => Some(id.unwrap_or(Value::Null)), // an invalid request always has one
    }
}

fn protocol_line(rng: &mut Rng, c: &Corpus, tools: &[(&'static str, Value)]) -> Vec<u8> {
    let methods = [
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "notifications/initialized",
        "resources/list",
        "prompts/list",
        "tools/List",
        "",
        "rpc.discover",
        "ping ",
    ];
    let id = |rng: &mut Rng| -> Value {
        match rng.below(10) {
            0..=3 => json!(rng.next() % 1000),
            4 => json!(rng.nasty_string(c)),
            5 => Value::Null,
            6 => rng.number(),
            7 => json!(rng.chance(50)),
            8 => json!([1, 2]),
            _ => rng.random_json(c, 2),
        }
    };
    let message = |rng: &mut Rng| -> Value {
        let mut m = Map::new();
        if rng.chance(85) {
            m.insert(
                "jsonrpc".into(),
                if rng.chance(90) {
                    json!("2.0")
                } else {
                    rng.random_json(c, 1)
                },
            );
        }
        if rng.chance(85) {
            let v = id(rng);
            m.insert("id".into(), v);
        }
        if rng.chance(90) {
            let method = if rng.chance(85) {
                json!(rng.pick(&methods))
            } else {
                rng.random_json(c, 1)
            };
            m.insert("method".into(), method);
        }
        let is_call = m.get("method").and_then(Value::as_str) == Some("tools/call");
        if rng.chance(80) {
            let params = if is_call && rng.chance(80) {
                let (tool, schema) = &tools[rng.below(tools.len())];
                let name = if rng.chance(85) {
                    json!(tool)
                } else {
                    rng.random_json(c, 1)
                };
                let mut p = json!({"name": name});
                if rng.chance(90) {
                    p["arguments"] = rng.arguments(c, tool, schema);
                }
                p
            } else if rng.chance(50) {
                json!({"protocolVersion": rng.random_json(c, 1), "capabilities": rng.random_json(c, 2)})
            } else {
                rng.random_json(c, 2)
            };
            m.insert("params".into(), params);
        }
        if rng.chance(5) {
            m.insert(
                if rng.chance(50) { "result" } else { "error" }.into(),
                rng.random_json(c, 1),
            );
        }
        let mut v = Value::Object(m);
        strip_confirmed(&mut v);
        v
    };
    let mut line = match rng.below(20) {
        // Garbage: printable, then arbitrary bytes (not always UTF-8).
        0 => (0..rng.below(200))
            .map(|_| (0x20 + rng.below(0x5f)) as u8)
            .collect(),
        1 => (0..rng.below(200)).map(|_| rng.next() as u8).collect(),
        // A message cut short.
        2 | 3 => {
            let s = message(rng).to_string().into_bytes();
            let cut = rng.below(s.len());
            s[..cut].to_vec()
        }
        // JSON that is not an object.
        4 => rng.random_json(c, 2).to_string().into_bytes(),
        5 => {
            let batch: Vec<Value> = (0..rng.below(3)).map(|_| message(rng)).collect();
            json!(batch).to_string().into_bytes()
        }
        // Blank lines.
        6 => rng.pick(&[&b""[..], b" ", b"\t", b"\r", b"  \t "]).to_vec(),
        // Huge lines.
        7 if rng.chance(10) => match rng.below(4) {
            0 => vec![b'x'; 1 << 20],
            1 => format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}",
                "a".repeat(2 << 20)
            )
            .into_bytes(),
            2 => "[".repeat(100_000).into_bytes(),
            _ => json!({"jsonrpc": "2.0", "id": 8, "method": "x".repeat(1 << 20)})
                .to_string()
                .into_bytes(),
        },
        // Deep but parseable params.
        8 => json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "find_symbol", "arguments": rng.deep(c, 100)}})
        .to_string()
        .into_bytes(),
        // Messages with every part random.
        _ => message(rng).to_string().into_bytes(),
    };
    // One line each: a newline would split it.
    line.retain(|&b| b != b'\n');
    line
}

struct Server {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    fn start(index: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
            .arg("--index")
            .arg(index)
            .arg("serve")
            // Belt and braces: even a confirmed index_project could not run a compile.
            .env("KIVGRAPH_COMPILE", "/nonexistent/kivgraph-compile")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = err.read_to_end(&mut buf);
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf));
        });
        Server {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    fn send(&mut self, line: &[u8]) -> std::io::Result<()> {
        self.stdin.write_all(line)?;
        self.stdin.write_all(b"\n")?;
        self.stdin.flush()
    }

    /// Every message up to and including the response to the ping `sync`.
    fn until(&mut self, sync: &Value) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        loop {
            let line = match self.lines.recv_timeout(Duration::from_secs(20)) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => return Err("no answer within 20 s".into()),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the server closed stdout (exit: {:?}); stderr:\n{}",
                        self.child.try_wait(),
                        self.stderr.lock().unwrap()
                    ));
                }
            };
            let v: Value = serde_json::from_str(&line)
                .map_err(|e| format!("the server wrote a line that is not JSON ({e}): {line}"))?;
            if v.get("id") == Some(sync) && v.get("method").is_none() {
                if v.get("result") != Some(&json!({})) {
                    return Err(format!("ping answered {v}"));
                }
                return Ok(out);
            }
            out.push(v);
        }
    }
}

/// Checks the messages the server sent for one line.
fn judge_messages(messages: &[Value], expected: &Option<Value>) -> Result<(), String> {
    let mut responses = Vec::new();
    for m in messages {
        if m.get("id").is_none() {
            if m.get("method") != Some(&json!("notifications/tools/list_changed")) {
                return Err(format!("unexpected notification {m}"));
            }
            continue;
        }
        if m.get("jsonrpc") != Some(&json!("2.0")) {
            return Err(format!("a response without jsonrpc 2.0: {}", shown(m)));
        }
        match (m.get("result"), m.get("error")) {
            (Some(r), None) => {
                if let Some(content) = r.get("content") {
                    let text = content[0]["text"].as_str().unwrap_or_default();
                    if content.as_array().map(Vec::len) != Some(1) {
                        return Err(format!("a tool answer is one text block: {}", shown(m)));
                    }
                    if r.get("isError") == Some(&json!(true)) {
                        if !CODES.iter().any(|c| text.starts_with(&format!("{c}: "))) {
                            return Err(format!("uncoded tool error: {}", shown(m)));
                        }
                    } else if !text.starts_with("snapshot ")
                        && serde_json::from_str::<Value>(text).is_err()
                    {
                        return Err(format!("a tool answer is JSON text: {}", shown(m)));
                    }
                }
            }
            (None, Some(e)) => {
                let code = e["code"].as_i64().unwrap_or(0);
                if !(-32768..=-32000).contains(&code) || !e["message"].is_string() {
                    return Err(format!("malformed JSON-RPC error: {}", shown(m)));
                }
            }
            _ => {
                return Err(format!(
                    "a response carries exactly one of result and error: {}",
                    shown(m)
                ));
            }
        }
        responses.push(m);
    }
    match (expected, responses.as_slice()) {
        (None, []) => Ok(()),
        (Some(id), [r]) if r.get("id") == Some(id) => Ok(()),
        (None, _) => Err(format!(
            "expected no response, got {}",
            responses
                .iter()
                .map(|r| shown(r))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        (Some(id), _) => Err(format!(
            "expected one response with id {}, got [{}]",
            shown(id),
            responses
                .iter()
                .map(|r| shown(r))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[test]
fn malformed_json_rpc_lines_get_answers_and_the_server_survives() {
    let seed = seed();
    let store = Store::open(IndexDir::new(index_dir()));
    let g = store
        .snapshot()
        .expect("the fixtures generation is published");
    let c = corpus(&g);
    let tools = registered();
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut server = Server::start(index_dir());
    let show = |line: &[u8]| {
        let s = String::from_utf8_lossy(line);
        let mut cut = s.len().min(400);
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{:?} ({} bytes)", &s[..cut], line.len())
    };

    let (mut requests, mut silent, mut not_utf8, mut huge) = (0, 0, 0, 0);
    for n in 0..PROTOCOL_LINES * scale() {
        let line = protocol_line(&mut rng, &c, &tools);
        let expected = expected_reply(&line);
        match expected {
            Some(_) => requests += 1,
            None => silent += 1,
        }
        not_utf8 += usize::from(std::str::from_utf8(&line).is_err());
        huge += usize::from(line.len() >= 1 << 20);
        let sync = json!(format!("\u{1}sync-{n}"));
        let sent = server
            .send(&line)
            .and_then(|()| {
                server.send(
                    json!({"jsonrpc": "2.0", "id": sync, "method": "ping"})
                        .to_string()
                        .as_bytes(),
                )
            })
            .map_err(|e| format!("writing to the server failed: {e}"));
        let verdict = sent
            .and_then(|()| server.until(&sync))
            .and_then(|messages| judge_messages(&messages, &expected));
        if let Err(why) = verdict {
            panic!("line {n} (seed {seed}): {}: {why}", show(&line));
        }
    }

    eprintln!(
        "fuzz_arguments: {requests} lines answered, {silent} not, {not_utf8} not UTF-8, {huge} of 1 MiB or more"
    );
    assert!(requests > 0 && silent > 0 && not_utf8 > 0 && huge > 0);

    // Still alive and well.
    let sync = json!("final");
    server
        .send(
            json!({"jsonrpc": "2.0", "id": sync, "method": "ping"})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    let notes = server.until(&sync).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let Server {
        mut child, stdin, ..
    } = server;
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "the server exits cleanly when stdin closes: {status}"
    );
}
