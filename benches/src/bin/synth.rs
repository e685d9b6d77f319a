//! Synthetic generations: writes a Go-shaped code graph of a chosen size straight into an index
//! directory, through `kivgraph_compile::publish`, without any source file. It exists so that
//! the engine can be measured at sizes no checked-in corpus reaches (a million symbols, ten
//! million edges); `tool_latency` then queries the result.
//!
//! Shape (all of it drawn from one seeded PRNG, so a seed always gives the same generation):
//!
//! - `--repos` repositories (default 8), rooted at the non-existent `/synthetic/<name>`, with a
//!   made-up commit on `main`. Packages go to repositories with a skew, so one is a monorepo.
//! - Packages of 50–200 symbols, in directories built from a word list; files of 10–30
//!   symbols. Every file is `indexed` Go with a zero SHA-256 (there are no bytes to hash).
//! - Declarations as the Go front end records them: struct and interface `type`s with their
//!   `field`s and `method`s (qualified `Type.Member`), `func`s, `var`s and `const`s, named from
//!   small vocabularies so that names repeat across packages the way `String`, `Close` or
//!   `NewClient` do (homonyms), with Go-like signatures and line spans.
//! - Edges: `METHOD_OF` (structural) and a receiver `TYPE_USES` for every concrete method, then
//!   reference edges until `--edges` is reached. Each declaration's out-degree follows its body
//!   length (functions and methods make most references). Targets are skewed: about 58% stay in
//!   the package, the rest go to exported symbols of the packages it imports; the import choice
//!   follows a Zipf law and the symbol choice a power law (`TARGET_SKEW`), so in-degree is
//!   heavy-tailed (a few hubs with thousands of callers, most symbols with a handful, a third
//!   with none). Kinds follow the
//!   target: `CALLS_DIRECT` (sometimes `REFERENCES`, a function value) to functions and methods,
//!   `TYPE_USES` to types, `REFERENCES` to fields, vars and consts. Confidence and provenance
//!   follow SPEC section 10.4: `EXACT_DECLARATION_MAPPED` with `GO_SCOPE`,
//!   `GO_IMPORT_SELECTOR` or `GO_RECEIVER_TYPED`, and `CANDIDATE`/`GO_NAME_ONLY` for a fifth of
//!   member selections.
//! - `PACKAGE_DEPENDS_ON` for every import (2–19 per package, mostly within the repository).
//! - About one unresolved record per four symbols, with the Go reasons in realistic proportions
//!   (standard library, missing module, unknown receiver type, missing declaration), plus one
//!   `PACKAGE_NOT_BUILDABLE` scope per 400 packages.
//!
//! Leaves out: source bytes (so `get_source` has nothing to read), `EMBEDS`, module symbols,
//! `x_test` packages, build-excluded and non-Go files, and candidate fan-out (a name-only
//! selection here yields one `CANDIDATE` edge, not one per same-named member). None of these
//! changes the shape of the arrays the engine reads.
//!
//! Measures: wall time to generate the fact set and to publish it (canonicalize, encode, write),
//! generation size on disk and this process's peak RSS. Memory: every edge is a `Copy` struct in
//! one pre-sized vector, with no heap allocation per edge; strings are allocated per symbol.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin synth -- --out DIR --symbols N
//! --edges M [--repos R] [--seed S]`

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use kivgraph_benches::Rng;
use kivgraph_compile::facts::{
    Edge, FactSet, FileId, Package, PackageEdge, PackageId, Repo, RepoId, SourceFile, Span, Symbol,
    SymbolId, Unresolved,
};
use kivgraph_format::{Confidence, EdgeKind, FileStatus, Language, Provenance, SymbolKind};

const USAGE: &str =
    "usage: synth --out DIR --symbols N --edges M [--repos R (default 8)] [--seed S (default 1)]";

struct Opts {
    out: PathBuf,
    symbols: usize,
    edges: usize,
    repos: usize,
    seed: u64,
}

fn parse_args() -> anyhow::Result<Opts> {
    let mut out = None;
    let (mut symbols, mut edges, mut repos, mut seed) = (None, None, 8usize, 1u64);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--out" => out = Some(PathBuf::from(value()?)),
            "--symbols" => symbols = Some(value()?.replace('_', "").parse()?),
            "--edges" => edges = Some(value()?.replace('_', "").parse()?),
            "--repos" => repos = value()?.parse()?,
            "--seed" => seed = value()?.parse()?,
            _ => bail!("unknown argument {flag:?}\n{USAGE}"),
        }
    }
    let (Some(out), Some(symbols), Some(edges)) = (out, symbols, edges) else {
        bail!("{USAGE}");
    };
    if repos == 0 || symbols < 2 {
        bail!("need at least one repository and two symbols\n{USAGE}");
    }
    if symbols > u32::MAX as usize / 2 || edges > u32::MAX as usize {
        bail!("the blob addresses symbols and edges with 32 bits");
    }
    Ok(Opts {
        out,
        symbols,
        edges,
        repos,
        seed,
    })
}

// ---- vocabularies ----
// Kept dense: one word per line would make the lists longer than the generator.

#[rustfmt::skip]
const REPO_NAMES: &[&str] = &[
    "atlas", "beacon", "cobalt", "delta", "ember", "falcon", "garnet", "harbor", "iris",
    "juniper", "kestrel", "lumen", "meridian", "nimbus", "onyx", "pulsar",
];

#[rustfmt::skip]
const DIR_WORDS: &[&str] = &[
    "api", "auth", "billing", "cache", "cli", "cluster", "config", "core", "db", "deploy",
    "events", "fs", "gateway", "grpc", "health", "http", "index", "ingest", "internal", "jobs",
    "kv", "ledger", "log", "mail", "metrics", "middleware", "migrate", "model", "net", "notify",
    "orders", "pkg", "plugin", "policy", "proto", "queue", "quota", "rbac", "render", "replica",
    "report", "router", "rpc", "scheduler", "schema", "search", "secrets", "server", "session",
    "shard", "storage", "stream", "sync", "telemetry", "tenant", "testutil", "trace", "tx", "ui",
    "upload", "users", "util", "wal", "web", "worker",
];

#[rustfmt::skip]
const NOUNS: &[&str] = &[
    "Client", "Server", "Config", "Request", "Response", "Handler", "Router", "Cache", "Store",
    "Session", "Token", "User", "Account", "Order", "Invoice", "Payment", "Event", "Message",
    "Queue", "Worker", "Job", "Task", "Metric", "Counter", "Logger", "Record", "Entry", "Index",
    "Table", "Row", "Schema", "Query", "Result", "Cursor", "Batch", "Stream", "Reader", "Writer",
    "Buffer", "Pool", "Conn", "Listener", "Resolver", "Registry", "Service", "Endpoint", "Route",
    "Filter", "Policy", "Rule", "Role", "Group", "Project", "Commit", "Branch", "Release", "Build",
    "Image", "Node", "Cluster", "Volume", "Secret", "Key", "Cert", "Signer", "Digest", "Blob",
    "Object", "Bucket", "Region", "Host", "Peer", "Shard", "Replica", "Snapshot", "Backup", "Plan",
    "Step", "State", "Status", "Option", "Profile", "Template", "Report", "Page", "View", "Field",
    "Value", "Item", "List", "Map", "Set", "Tree", "Graph", "Path", "File", "Lock", "Lease",
    "Timer", "Clock", "Limiter", "Backoff", "Tracer", "Span", "Channel", "Signal", "Watcher",
    "Provider", "Factory", "Builder", "Parser", "Encoder", "Decoder", "Codec", "Validator",
    "Mapper", "Adapter", "Proxy", "Gateway", "Balancer", "Monitor", "Probe", "Agent", "Manager",
    "Controller", "Scheduler", "Collector", "Exporter", "Loader", "Fetcher", "Sender",
    "Publisher", "Subscriber", "Consumer", "Producer", "Broker", "Topic", "Partition", "Offset",
    "Window", "Tokenizer", "Scanner", "Printer", "Formatter",
];

/// Method names, most common first: the generator picks them with a Zipf skew, so `String`,
/// `Close` and `Get` are declared in thousands of packages, as in real Go.
#[rustfmt::skip]
const METHOD_VERBS: &[&str] = &[
    "String", "Close", "Get", "Set", "Run", "Error", "Len", "Start", "Stop", "Reset", "Next",
    "Read", "Write", "Handle", "Validate", "Update", "Delete", "Add", "Remove", "Load", "Save",
    "Open", "Flush", "Wait", "Apply", "Lookup", "Find", "List", "Create", "Send", "Receive",
    "Encode", "Decode", "Marshal", "Unmarshal", "Register", "Resolve", "Sync", "Watch", "Lock",
    "Unlock", "Acquire", "Release", "Check", "Verify", "Sign", "Compute", "Merge", "Split",
    "Sort", "Emit", "Track", "Dial", "Listen", "Accept", "Connect", "Retry", "Schedule", "Cancel",
    "Equal", "Clone", "Fetch", "Evict", "Refresh", "Expire", "Init", "Serve", "Parse", "Format",
];

#[rustfmt::skip]
const FUNC_VERBS: &[&str] = &[
    "New", "Parse", "Load", "Open", "Make", "Build", "Default", "Must", "With", "Register",
    "Format", "Validate", "Handle", "Decode", "Encode", "Read", "Write", "Run", "Start", "Get",
    "Find", "List", "Create", "Delete", "Update", "Apply", "Compute", "Merge", "Sort", "Check",
];

#[rustfmt::skip]
const FIELD_TYPES: &[&str] = &[
    "string", "int", "int64", "uint32", "bool", "[]byte", "error", "time.Duration", "time.Time",
    "sync.Mutex", "context.Context", "*log.Logger", "[]string", "map[string]string",
    "chan struct{}", "atomic.Int64", "float64", "io.Reader",
];

/// Standard-library packages and names, most referenced first.
#[rustfmt::skip]
const STDLIB: &[(&str, &[&str])] = &[
    ("fmt", &["Sprintf", "Errorf", "Println", "Fprintf", "Sprint", "Stringer"]),
    ("context", &["Context", "Background", "WithTimeout", "WithCancel", "TODO"]),
    ("errors", &["New", "Is", "As", "Join", "Unwrap"]),
    ("strings", &["Split", "Join", "HasPrefix", "TrimSpace", "Contains", "Builder", "ToLower"]),
    ("time", &["Duration", "Now", "Since", "Second", "Millisecond", "Time", "NewTimer"]),
    ("io", &["Reader", "Writer", "EOF", "Copy", "ReadAll", "Closer"]),
    ("os", &["Getenv", "Open", "Exit", "ReadFile", "Stderr"]),
    ("sync", &["Mutex", "WaitGroup", "Once", "RWMutex", "Pool"]),
    ("net/http", &["Handler", "Request", "ResponseWriter", "NewRequest", "StatusOK", "Client"]),
    ("encoding/json", &["Marshal", "Unmarshal", "NewDecoder", "NewEncoder", "RawMessage"]),
    ("bytes", &["Buffer", "Equal", "NewReader"]),
    ("strconv", &["Itoa", "Atoi", "ParseInt", "FormatInt", "Quote"]),
    ("sort", &["Slice", "Strings", "Search"]),
    ("log", &["Printf", "Fatal", "Println"]),
    ("sync/atomic", &["Int64", "AddInt64", "Value"]),
];

/// Third-party modules no synthetic repository provides.
#[rustfmt::skip]
const MODULES: &[&str] = &[
    "github.com/stretchr/testify/require", "go.uber.org/zap",
    "github.com/prometheus/client_golang/prometheus", "google.golang.org/grpc",
    "github.com/spf13/cobra", "gopkg.in/yaml.v3", "github.com/google/uuid",
    "golang.org/x/sync/errgroup",
];

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A fixed bijection of `0..len`, salted per list: spreads a skewed rank over a list whose
/// order is the generation order, so the hubs are not always the first declarations.
fn spread(rank: usize, len: usize, salt: usize) -> usize {
    const P: usize = 7919; // prime, larger than any package
    if len.is_multiple_of(P) {
        return rank;
    }
    (rank * P + salt) % len
}

/// The power-law exponent of target choice. At the Go standard library's size (116k symbols,
/// 1M edges) it gives in-degree quantiles close to the library's own generation: median 1
/// (library: 1), p90 16 (12), p99 142 (94), 30% of symbols unreferenced (26%). The top 1% of
/// symbols receives less of the edges, 32% against 49%: the library has a few giant hubs that
/// a per-package law does not make (its largest has 18,804 incoming edges, ours 5,295).
const TARGET_SKEW: f64 = 1.5;

/// A skewed rank in `0..n` for choosing reference targets.
fn target_rank(rng: &mut Rng, n: usize) -> usize {
    rng.power_law(n, TARGET_SKEW)
}

/// A power-law-skewed element of `list` ([`target_rank`]), spread by [`spread`].
fn skewed(rng: &mut Rng, list: &[u32], salt: usize) -> Option<u32> {
    (!list.is_empty()).then(|| list[spread(target_rank(rng, list.len()), list.len(), salt)])
}

/// Flat per-package lists of symbol ids: `ids[start[p]..start[p+1]]`.
#[derive(Default)]
struct Lists {
    ids: Vec<u32>,
    start: Vec<u32>,
}

impl Lists {
    fn of(&self, p: usize) -> &[u32] {
        &self.ids[self.start[p] as usize..self.start[p + 1] as usize]
    }
}

struct Gen {
    rng: Rng,
    facts: FactSet,
    max_symbols: usize,
    /// Symbol ids of package `p` are `pkg_start[p]..pkg_start[p+1]`.
    pkg_start: Vec<u32>,
    exported: Lists,
    types: Lists,
    imports: Lists,
    repo_dirs: Vec<HashSet<String>>,
    repo_packages: Vec<Vec<u32>>,
}

impl Gen {
    fn unique(
        &mut self,
        scope: &mut HashSet<String>,
        mut make: impl FnMut(&mut Rng) -> String,
    ) -> String {
        let mut name = make(&mut self.rng);
        for _ in 0..6 {
            if !scope.contains(&name) {
                break;
            }
            name = make(&mut self.rng);
        }
        if scope.contains(&name) {
            let base = name.clone();
            let mut n = 2;
            while scope.contains(&name) {
                name = format!("{base}{n}");
                n += 1;
            }
        }
        scope.insert(name.clone());
        name
    }

    #[allow(clippy::too_many_arguments)]
    fn push_symbol(
        &mut self,
        kind: SymbolKind,
        name: String,
        qualified_name: String,
        signature: Option<String>,
        file: FileId,
        start_line: u32,
        end_line: u32,
        column: u32,
    ) -> u32 {
        let id = self.facts.symbols.len() as u32;
        let f = &self.facts.files[file];
        let exported = name.starts_with(|c: char| c.is_ascii_uppercase());
        if exported {
            self.exported.ids.push(id);
        }
        if kind == SymbolKind::Type {
            self.types.ids.push(id);
        }
        self.facts.symbols.push(Symbol {
            repo: f.repo,
            package: f.package.unwrap_or_default(),
            file,
            language: Language::Go,
            name,
            qualified_name,
            kind,
            exported,
            signature,
            span: Span {
                start_line,
                start_column: column,
                end_line,
                end_column: 1,
                start_byte: (start_line - 1) * 32 + column,
                end_byte: end_line * 32,
            },
        });
        id
    }

    fn full(&self) -> bool {
        self.facts.symbols.len() >= self.max_symbols
    }

    fn package(&mut self, repo: usize, target: usize) {
        let repo_name = self.facts.repos[repo].name.clone();
        let mut dirs = std::mem::take(&mut self.repo_dirs[repo]);
        let dir = self.unique(&mut dirs, |r| {
            let depth = 1 + r.zipf(3);
            (0..depth)
                .map(|_| r.pick(DIR_WORDS))
                .collect::<Vec<_>>()
                .join("/")
        });
        self.repo_dirs[repo] = dirs;
        let p = self.facts.push_package(Package {
            repo: RepoId(repo),
            language: Language::Go,
            name: format!("example.com/{repo_name}/{dir}"),
            path: dir.clone(),
            module: Some(format!("example.com/{repo_name}")),
        });
        self.repo_packages[repo].push(p.index() as u32);
        let first = self.facts.symbols.len();
        let mut scope: HashSet<String> = HashSet::new();
        let mut file_names: HashSet<String> = HashSet::new();
        let leaf = dir.rsplit('/').next().unwrap_or("x").to_string();
        while self.facts.symbols.len() - first < target && !self.full() {
            let stem = self.unique(&mut file_names, |r| {
                if r.chance(0.3) {
                    leaf.clone()
                } else {
                    format!("{}_{}", leaf, r.pick(NOUNS).to_lowercase())
                }
            });
            let file = self.facts.push_file(SourceFile {
                repo: RepoId(repo),
                package: Some(p),
                path: format!("{dir}/{stem}.go"),
                language: Some(Language::Go),
                status: FileStatus::Indexed,
                size: 0,
                lines: 0,
                sha256: [0; 32],
            });
            let want = self
                .rng
                .range(10, 30)
                .min(target - (self.facts.symbols.len() - first));
            let lines = self.file_body(file, want, &mut scope);
            let f = &mut self.facts.files[file];
            f.lines = lines;
            f.size = u64::from(lines) * 32;
        }
        self.exported.start.push(self.exported.ids.len() as u32);
        self.types.start.push(self.types.ids.len() as u32);
        self.pkg_start.push(self.facts.symbols.len() as u32);
    }

    /// Declarations of one file; returns its line count.
    fn file_body(&mut self, file: FileId, want: usize, scope: &mut HashSet<String>) -> u32 {
        let first = self.facts.symbols.len();
        let mut line = 3u32; // package clause, imports
        let mut last_type: Option<String> = None;
        while self.facts.symbols.len() - first < want && !self.full() {
            let roll = self.rng.f64();
            if roll < 0.25 {
                let name = self.unique(scope, |r| {
                    let n = if r.chance(0.5) {
                        r.pick(NOUNS).to_string()
                    } else {
                        format!("{}{}", r.pick(NOUNS), r.pick(NOUNS))
                    };
                    if r.chance(0.8) { n } else { lower_first(&n) }
                });
                self.type_decl(file, name.clone(), &mut line);
                last_type = Some(name);
            } else if roll < 0.80 {
                let name = self.unique(scope, |r| {
                    let n = match &last_type {
                        Some(t) if r.chance(0.25) => format!("New{}", upper_first(t)),
                        _ => format!("{}{}", r.pick(FUNC_VERBS), r.pick(NOUNS)),
                    };
                    if r.chance(0.7) { n } else { lower_first(&n) }
                });
                let span = 3 + self.rng.zipf(80) as u32;
                let sig = format!(
                    "func {name}(ctx context.Context, {} *{}) ({}, error)",
                    lower_first(self.rng.pick(NOUNS)),
                    self.rng.pick(NOUNS),
                    self.rng.pick(FIELD_TYPES)
                );
                self.push_symbol(
                    SymbolKind::Func,
                    name.clone(),
                    name,
                    Some(sig),
                    file,
                    line,
                    line + span - 1,
                    0,
                );
                line += span + 1;
            } else if roll < 0.90 {
                let name = self.unique(scope, |r| match r.below(3) {
                    0 => format!("Err{}NotFound", r.pick(NOUNS)),
                    1 => format!("default{}", r.pick(NOUNS)),
                    _ => format!(
                        "Err{}{}",
                        r.pick(["Invalid", "Closed", "Timeout", "Exists"].as_slice()),
                        r.pick(NOUNS)
                    ),
                });
                let sig = if name.starts_with("Err") {
                    Some("error".to_string())
                } else {
                    None
                };
                self.push_symbol(
                    SymbolKind::Var,
                    name.clone(),
                    name,
                    sig,
                    file,
                    line,
                    line,
                    4,
                );
                line += 1;
            } else {
                let name = self.unique(scope, |r| match r.below(3) {
                    0 => format!("Max{}s", r.pick(NOUNS)),
                    1 => format!("default{}Size", r.pick(NOUNS)),
                    _ => format!("{}Kind", r.pick(NOUNS)),
                });
                let sig = self.rng.chance(0.3).then(|| "int".to_string());
                self.push_symbol(
                    SymbolKind::Const,
                    name.clone(),
                    name,
                    sig,
                    file,
                    line,
                    line,
                    6,
                );
                line += 1;
            }
        }
        line
    }

    fn type_decl(&mut self, file: FileId, name: String, line: &mut u32) {
        let interface = self.rng.chance(0.15);
        let n_fields = if interface { 0 } else { self.rng.below(7) };
        let start = *line;
        let end = start + n_fields as u32 + 1;
        let ty = self.push_symbol(
            SymbolKind::Type,
            name.clone(),
            name.clone(),
            Some(format!(
                "type {name} {}",
                if interface { "interface" } else { "struct" }
            )),
            file,
            start,
            if interface { start + 4 } else { end },
            5,
        );
        let mut members: HashSet<String> = HashSet::new();
        for k in 0..n_fields {
            if self.full() {
                return;
            }
            let field = self.unique(&mut members, |r| {
                let n = r.pick(NOUNS);
                if r.chance(0.7) {
                    lower_first(n)
                } else {
                    n.to_string()
                }
            });
            let sig = if self.rng.chance(0.3) {
                format!("*{}", self.rng.pick(NOUNS))
            } else {
                self.rng.pick(FIELD_TYPES).to_string()
            };
            let l = start + 1 + k as u32;
            self.push_symbol(
                SymbolKind::Field,
                field.clone(),
                format!("{name}.{field}"),
                Some(sig),
                file,
                l,
                l,
                1,
            );
        }
        *line = if interface { start + 6 } else { end + 2 };
        let n_methods = self.rng.range(1, 7);
        for k in 0..n_methods {
            if self.full() {
                return;
            }
            let method = self.unique(&mut members, |r| {
                let v = METHOD_VERBS[r.zipf(METHOD_VERBS.len())];
                let n = if r.chance(0.3) {
                    format!("{v}{}", r.pick(NOUNS))
                } else {
                    v.to_string()
                };
                if r.chance(0.85) { n } else { lower_first(&n) }
            });
            let qn = format!("{name}.{method}");
            if interface {
                let l = start + 1 + (k as u32).min(3);
                let sig = format!("func {method}(ctx context.Context) error");
                self.push_symbol(SymbolKind::Method, method, qn, Some(sig), file, l, l, 1);
                continue;
            }
            let span = 3 + self.rng.zipf(60) as u32;
            let recv = lower_first(&name).chars().next().unwrap_or('x');
            let sig = format!("func ({recv} *{name}) {method}() error");
            let m = self.push_symbol(
                SymbolKind::Method,
                method,
                qn,
                Some(sig),
                file,
                *line,
                *line + span - 1,
                0,
            );
            // METHOD_OF and the receiver's TYPE_USES, as the Go front end records them.
            for (kind, confidence, provenance, column) in [
                (
                    EdgeKind::MethodOf,
                    Confidence::StructuralCertain,
                    Provenance::GoDeclaration,
                    0,
                ),
                (
                    EdgeKind::TypeUses,
                    Confidence::ExactDeclarationMapped,
                    Provenance::GoScope,
                    9,
                ),
            ] {
                self.facts.edges.push(Edge {
                    source: SymbolId(m as usize),
                    target: SymbolId(ty as usize),
                    kind,
                    confidence,
                    provenance,
                    file: Some(file),
                    line: *line,
                    column,
                });
            }
            *line += span + 1;
        }
    }

    fn imports(&mut self) {
        let n = self.facts.packages.len();
        self.imports.start.push(0);
        for p in 0..n {
            let repo = self.facts.packages[p].repo;
            let k = self.rng.range(2, 5) + self.rng.zipf(15);
            let begin = self.imports.ids.len();
            for _ in 0..k * 2 {
                if self.imports.ids.len() - begin >= k {
                    break;
                }
                let same = &self.repo_packages[repo.index()];
                let q = if self.rng.chance(0.7) && same.len() > 1 {
                    same[self.rng.zipf(same.len())]
                } else {
                    self.rng.zipf(n) as u32
                };
                if q as usize != p && !self.imports.ids[begin..].contains(&q) {
                    self.imports.ids.push(q);
                    self.facts.package_edges.push(PackageEdge {
                        source: PackageId(p),
                        target: PackageId(q as usize),
                        kind: EdgeKind::PackageDependsOn,
                        confidence: Confidence::ExactDeclarationMapped,
                        provenance: Provenance::GoImport,
                    });
                }
            }
            self.imports.start.push(self.imports.ids.len() as u32);
        }
    }

    /// Relative number of references a declaration makes: its body length for functions and
    /// methods, a little for the others.
    fn out_weight(s: &Symbol) -> f64 {
        let span = f64::from(s.span.end_line - s.span.start_line + 1);
        match s.kind {
            SymbolKind::Func | SymbolKind::Method => span,
            SymbolKind::Var => 1.0,
            _ => 0.3,
        }
    }

    /// One reference edge from `s`; false when no target was found (a rare retry). Borrows the
    /// generator's fields apart so that nothing is copied or allocated per edge.
    fn reference(&mut self, s: usize) -> bool {
        let Gen {
            rng,
            facts,
            pkg_start,
            exported,
            types,
            imports,
            ..
        } = self;
        let src = &facts.symbols[s];
        let (p, file, kind) = (src.package.index(), src.file, src.kind);
        let (line0, span) = (
            src.span.start_line,
            src.span.end_line - src.span.start_line + 1,
        );
        let types_only = !matches!(
            kind,
            SymbolKind::Func | SymbolKind::Method | SymbolKind::Var
        );
        let imported = imports.of(p);
        let mut target = None;
        if !imported.is_empty() && rng.chance(0.42) {
            let q = imported[rng.zipf(imported.len())] as usize;
            target = if types_only {
                // An exported type of the imported package, if a few tries find one.
                (0..4).find_map(|_| {
                    skewed(rng, types.of(q), q).filter(|&t| facts.symbols[t as usize].exported)
                })
            } else {
                skewed(rng, exported.of(q), q)
            };
        }
        let cross = target.is_some();
        if target.is_none() {
            target = if types_only {
                skewed(rng, types.of(p), p)
            } else {
                let (a, b) = (pkg_start[p] as usize, pkg_start[p + 1] as usize);
                Some((a + spread(target_rank(rng, b - a), b - a, p)) as u32)
            };
        }
        let Some(t) = target.filter(|&t| t as usize != s) else {
            return false;
        };
        let tkind = facts.symbols[t as usize].kind;
        let member = matches!(tkind, SymbolKind::Method | SymbolKind::Field);
        let edge_kind = match tkind {
            SymbolKind::Func | SymbolKind::Method if rng.chance(0.9) => EdgeKind::CallsDirect,
            SymbolKind::Type => EdgeKind::TypeUses,
            _ => EdgeKind::References,
        };
        let (confidence, provenance) = if member {
            if rng.chance(0.2) {
                (Confidence::Candidate, Provenance::GoNameOnly)
            } else {
                (
                    Confidence::ExactDeclarationMapped,
                    Provenance::GoReceiverTyped,
                )
            }
        } else if cross {
            (
                Confidence::ExactDeclarationMapped,
                Provenance::GoImportSelector,
            )
        } else {
            (Confidence::ExactDeclarationMapped, Provenance::GoScope)
        };
        let line = line0 + rng.below(span as usize) as u32;
        let column = 1 + rng.below(60) as u32;
        facts.edges.push(Edge {
            source: SymbolId(s),
            target: SymbolId(t as usize),
            kind: edge_kind,
            confidence,
            provenance,
            file: Some(file),
            line,
            column,
        });
        true
    }

    fn references(&mut self, total: usize) {
        let budget = total.saturating_sub(self.facts.edges.len());
        let weight: f64 = self.facts.symbols.iter().map(Self::out_weight).sum();
        let per_weight = budget as f64 / weight;
        for s in 0..self.facts.symbols.len() {
            let want = Self::out_weight(&self.facts.symbols[s]) * per_weight;
            let mut n = want as usize + usize::from(self.rng.f64() < want.fract());
            let mut tries = 0;
            while n > 0 && self.facts.edges.len() < total && tries < 4 * n + 4 {
                if self.reference(s) {
                    n -= 1;
                }
                tries += 1;
            }
        }
        // Rounding leaves a remainder: spread it over random functions and methods.
        let n = self.facts.symbols.len();
        let (mut tries, max_tries) = (0usize, 100 * (total - self.facts.edges.len()) + 1000);
        while self.facts.edges.len() < total && tries < max_tries {
            let s = self.rng.below(n);
            if matches!(
                self.facts.symbols[s].kind,
                SymbolKind::Func | SymbolKind::Method
            ) {
                self.reference(s);
            }
            tries += 1;
        }
    }

    fn unresolved(&mut self) {
        let n = self.facts.symbols.len();
        for _ in 0..n / 4 {
            let s = self.rng.below(n);
            let src = &self.facts.symbols[s];
            let (repo, p, file) = (src.repo, src.package, src.file);
            let line = src.span.start_line
                + self
                    .rng
                    .below((src.span.end_line - src.span.start_line + 1) as usize)
                    as u32;
            let own = self.facts.packages[p].name.clone();
            let roll = self.rng.f64();
            let (reason, package, symbol, detail) = if roll < 0.70 {
                let (pkg, names) = STDLIB[self.rng.zipf(STDLIB.len())];
                (
                    "STDLIB_NOT_INDEXED",
                    pkg.to_string(),
                    self.rng.pick(names).to_string(),
                    None,
                )
            } else if roll < 0.82 {
                let m = MODULES[self.rng.zipf(MODULES.len())];
                (
                    "MODULE_PROVIDER_NOT_FOUND",
                    m.to_string(),
                    self.rng.pick(NOUNS).to_string(),
                    None,
                )
            } else if roll < 0.95 {
                let m = METHOD_VERBS[self.rng.zipf(METHOD_VERBS.len())].to_string();
                let detail = if self.rng.chance(0.6) {
                    format!(
                        "the receiver type of .{m} is not written in the code, and no visible type declares a member {m}"
                    )
                } else {
                    format!(
                        "the receiver type of .{m} is not written in the code, and {} visible members are named {m}",
                        9 + self.rng.zipf(200)
                    )
                };
                ("RECEIVER_TYPE_UNKNOWN", own, m, Some(detail))
            } else {
                let name = format!("{}{}", self.rng.pick(FUNC_VERBS), self.rng.pick(NOUNS));
                (
                    "DECLARATION_NOT_FOUND",
                    own,
                    name,
                    Some("no declaration in the package's built files".to_string()),
                )
            };
            self.facts.unresolved.push(Unresolved {
                repo,
                file: Some(file),
                line,
                column: 1 + self.rng.below(60) as u32,
                language: Language::Go,
                reason: reason.to_string(),
                requested_package: package,
                requested_symbol: Some(symbol),
                detail,
                source: Some(SymbolId(s)),
                reach: None,
            });
        }
        // Directories whose every file is excluded by build constraints: invisible scopes.
        let packages = self.facts.packages.len();
        for _ in 0..packages.div_ceil(400) {
            let p = self.rng.below(packages);
            let os = self
                .rng
                .pick(["windows", "darwin", "plan9", "js"].as_slice());
            // What its files import: the package it sits in and three others.
            let mut imports: Vec<String> = std::iter::once(p)
                .chain((0..3).map(|_| self.rng.below(packages)))
                .map(|q| self.facts.packages[q].name.clone())
                .collect();
            imports.sort();
            imports.dedup();
            let pkg = &self.facts.packages[p];
            let record = Unresolved {
                repo: pkg.repo,
                file: None,
                line: 0,
                column: 0,
                language: Language::Go,
                reason: "PACKAGE_NOT_BUILDABLE".to_string(),
                requested_package: format!("{}/{os}", pkg.name),
                requested_symbol: None,
                detail: Some(format!(
                    "build constraints exclude all Go files in {}/{}/{os}",
                    self.facts.repos[pkg.repo].root, pkg.path
                )),
                source: None,
                reach: Some(kivgraph_compile::facts::ScopeReach {
                    imports,
                    declares: Vec::new(),
                }),
            };
            self.facts.unresolved.push(record);
        }
    }
}

fn generate(o: &Opts) -> FactSet {
    let mut rng = Rng::new(o.seed);
    let mut facts = FactSet::default();
    for r in 0..o.repos {
        let base = REPO_NAMES[r % REPO_NAMES.len()];
        let name = if r < REPO_NAMES.len() {
            base.to_string()
        } else {
            format!("{base}-{}", r / REPO_NAMES.len())
        };
        let commit: String = (0..5)
            .map(|_| format!("{:08x}", rng.next_u64() as u32))
            .collect();
        facts.repos.push(Repo {
            root: format!("/synthetic/{name}"),
            name,
            commit: Some(commit),
            branch: Some("main".into()),
            dirty: Some(false),
            languages: BTreeSet::from([Language::Go]),
            derived: false,
        });
    }
    facts.symbols.reserve_exact(o.symbols);
    facts.edges.reserve_exact(o.edges);
    let mut g = Gen {
        rng,
        facts,
        max_symbols: o.symbols,
        pkg_start: vec![0],
        exported: Lists {
            ids: Vec::new(),
            start: vec![0],
        },
        types: Lists {
            ids: Vec::new(),
            start: vec![0],
        },
        imports: Lists::default(),
        repo_dirs: vec![HashSet::new(); o.repos],
        repo_packages: vec![Vec::new(); o.repos],
    };
    while !g.full() {
        let repo = g.rng.zipf(o.repos);
        let size = g.rng.range(50, 200);
        g.package(repo, size);
    }
    g.imports();
    g.references(o.edges);
    g.facts.edges.truncate(o.edges);
    g.unresolved();
    g.facts
}

/// In-degree figures of the generated edges: the skew the benchmark relies on.
fn in_degree_report(facts: &FactSet) {
    let mut deg = vec![0u32; facts.symbols.len()];
    for e in &facts.edges {
        deg[e.target.index()] += 1;
    }
    deg.sort_unstable_by(|a, b| b.cmp(a));
    let n = deg.len();
    let top1: u64 = deg[..n.div_ceil(100)].iter().map(|&d| u64::from(d)).sum();
    let zero = deg.iter().filter(|&&d| d == 0).count();
    println!(
        "in-degree: max {}, p99 {}, p90 {}, median {}; top 1% of symbols receive {:.1}% of edges; {} symbols ({:.1}%) have none",
        deg[0],
        deg[n / 100],
        deg[n / 10],
        deg[n / 2],
        100.0 * top1 as f64 / facts.edges.len().max(1) as f64,
        zero,
        100.0 * zero as f64 / n as f64
    );
}

fn main() -> anyhow::Result<()> {
    let o = parse_args()?;
    let t = Instant::now();
    let facts = generate(&o);
    let gen_s = t.elapsed().as_secs_f64();
    let mut kinds = std::collections::BTreeMap::new();
    for s in &facts.symbols {
        *kinds.entry(s.kind.as_str()).or_insert(0u64) += 1;
    }
    println!(
        "generated in {gen_s:.1} s: {} repositories, {} packages, {} files, {} symbols {:?}, {} edges, {} package edges, {} unresolved",
        facts.repos.len(),
        facts.packages.len(),
        facts.files.len(),
        facts.symbols.len(),
        kinds,
        facts.edges.len(),
        facts.package_edges.len(),
        facts.unresolved.len()
    );
    in_degree_report(&facts);
    if let Some(kib) = kivgraph_benches::rss_kib() {
        println!(
            "RSS with the fact set built: {:.0} MiB",
            kib as f64 / 1024.0
        );
    }

    let t = Instant::now();
    let published = kivgraph_compile::publish(&o.out, facts)?;
    let pub_s = t.elapsed().as_secs_f64();
    println!(
        "published generation {:06} in {} in {pub_s:.1} s (canonicalize, encode, write, publish)",
        published.generation_id,
        published.generation_dir.display()
    );
    let r = &published.rows;
    println!(
        "rows: {} repositories, {} packages, {} files, {} symbols, {} edges, {} package edges, {} unresolved",
        r.repositories, r.packages, r.files, r.symbols, r.edges, r.package_edges, r.unresolved
    );
    let mut sizes: Vec<(String, u64)> = std::fs::read_dir(&published.generation_dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            Some((
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().ok()?.len(),
            ))
        })
        .collect();
    sizes.sort();
    let total: u64 = sizes.iter().map(|(_, n)| n).sum();
    println!(
        "generation size: {total} bytes ({:.1} MiB)",
        total as f64 / (1 << 20) as f64
    );
    for (name, n) in sizes {
        println!("  {name:<24} {:>10.1} MiB", n as f64 / (1 << 20) as f64);
    }
    println!("total {:.1} s", gen_s + pub_s);
    if let Some(kib) = kivgraph_benches::peak_rss_kib() {
        println!("peak RSS: {:.0} MiB", kib as f64 / 1024.0);
    }
    Ok(())
}
