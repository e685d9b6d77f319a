//! Accuracy of a front end against a type-checker oracle: the Go front end against go/types,
//! the TypeScript/JavaScript front end against the TypeScript checker, the Python front end
//! against pyright, the Rust front end against rust-analyzer.
//!
//! An oracle (`benches/accuracy/oracle`, a Go program, `benches/accuracy/ts/oracle.mjs`, a
//! Node program, `benches/accuracy/py/oracle.py`, a Python program asking pyright's language
//! server, or `benches/accuracy/rs/oracle.py`, reading rust-analyzer's SCIP index) type-checks
//! the same sources and writes JSON lines: the files it measured, the
//! declarations kivgraph models (named as kivgraph names them), every use of those declarations
//! with its position and its enclosing declaration, and (Go) "other" uses (of objects kivgraph
//! does not model) at positions where kivgraph could wrongly bind a same-named symbol. The
//! TypeScript, Python and Rust oracles start with an `oracle` header naming the language and the
//! checker, and their uses carry the edge kind SPEC §11.4, §12.4 or §14.4 prescribes (`edge`)
//! and the target's repository (`target_repo`, since module paths repeat across repositories);
//! without a header the output is the Go oracle's. [`score`] compares a generation with it:
//!
//! - **use sites**: an oracle use is found when an edge to the mapped target has its occurrence at
//!   the same file, line and column; an edge is correct when the oracle has a use of its target at
//!   its occurrence. A looser **line** level ignores the column.
//! - **referrers**: the set of (enclosing declaration, target) pairs.
//! - **structural** facts: `METHOD_OF`, `EMBEDS` and `OVERRIDES` against the receiver, embedded
//!   and overridden declarations the oracle names.
//!
//! Only edges whose occurrence lies in a file the oracle measured are scored; edges elsewhere are
//! counted as out of scope. Exact precision counts edges whose confidence is exact; recall counts
//! oracle uses found by any edge ("all") or by an exact edge ("exact").

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::Path;

use kivgraph_format::{Confidence, EdgeKind, FileStatus, Generation, NONE, Provenance, SymbolKind};
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------
// The oracle's records

/// Interned strings of the oracle.
#[derive(Debug, Default)]
pub struct Interner {
    map: HashMap<String, u32>,
    strs: Vec<String>,
}

impl Interner {
    pub fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.map.get(s) {
            return i;
        }
        let i = self.strs.len() as u32;
        self.strs.push(s.to_string());
        self.map.insert(s.to_string(), i);
        i
    }

    pub fn get(&self, id: u32) -> &str {
        self.strs.get(id as usize).map_or("", String::as_str)
    }

    pub fn lookup(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
    }
}

#[derive(Debug, Clone)]
pub struct OPackage {
    pub repo: u32,
    pub dir: u32,
    pub pkg: u32,
    pub files: u32,
    pub errors: u32,
    pub error_sample: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct OFile {
    pub repo: u32,
    pub path: u32,
    pub pkg: u32,
    pub lines: u64,
    pub sha256: String,
    /// A cgo file: the oracle cannot type its C expressions, so it lists its declarations but
    /// none of its uses; its edges are out of scope.
    pub cgo: bool,
}

/// A declaration named by (repository, package, qualified name, kind). The repository is
/// [`ANY_REPO`] when the oracle does not say (the Go oracle: import paths are unique).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OTarget {
    pub repo: u32,
    pub pkg: u32,
    pub qn: u32,
    pub kind: u32,
}

/// [`OTarget::repo`] of a target whose repository the oracle does not name.
pub const ANY_REPO: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct ODecl {
    pub repo: u32,
    pub pkg: u32,
    pub file: u32,
    pub line: u32,
    pub col: u32,
    pub kind: u32,
    pub detail: u32,
    pub name: u32,
    pub qn: u32,
    pub method_of: Option<OTarget>,
    pub embeds: Option<OTarget>,
    /// The method of a base class this method overrides (TypeScript, Python).
    pub overrides: Option<OTarget>,
}

#[derive(Debug, Clone)]
pub struct OUse {
    pub repo: u32,
    pub file: u32,
    pub line: u32,
    pub col: u32,
    pub name: u32,
    pub target: OTarget,
    pub detail: u32,
    /// `call`, `type` or `value`.
    pub usage: u32,
    pub form: u32,
    /// The edge kind the oracle prescribes (TypeScript, Python), else derived from `usage` and the
    /// target's kind by the Go rule.
    pub edge: Option<u32>,
    pub from_kind: u32,
    pub from_qn: u32,
    pub from_line: u32,
}

#[derive(Debug, Clone)]
pub struct OOther {
    pub repo: u32,
    pub file: u32,
    pub line: u32,
    pub col: u32,
    pub name: u32,
    pub obj: u32,
}

/// The language an oracle measures.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OracleLanguage {
    /// No header: the go/types oracle.
    #[default]
    Go,
    TypeScript,
    Python,
    /// rust-analyzer's SCIP index (`benches/accuracy/rs/oracle.py`).
    Rust,
}

impl OracleLanguage {
    /// Whether the oracle writes a header and per-use edge kinds (every language but Go): its
    /// files are modules, its structural facts are `METHOD_OF` and `OVERRIDES`.
    pub fn is_module_oracle(self) -> bool {
        self != OracleLanguage::Go
    }

    /// The SPEC section that prescribes the edges of the language.
    pub fn edge_section(self) -> &'static str {
        match self {
            OracleLanguage::Go => "10.4",
            OracleLanguage::TypeScript => "11.4",
            OracleLanguage::Python => "12.4",
            OracleLanguage::Rust => "14.4",
        }
    }

    /// Whether an `IMPLEMENTS` edge is a use the oracle records: the name in a TypeScript
    /// `implements` clause is; Go's and Rust's `IMPLEMENTS` relate two declarations (Rust's impl
    /// header names the trait with a `TYPE_USES` edge of its own).
    pub fn implements_is_use(self) -> bool {
        matches!(self, OracleLanguage::TypeScript | OracleLanguage::Python)
    }

    /// Whether declarations map to graph symbols by position (the symbol of the same name whose
    /// range holds the declaration's name) rather than by (package, qualified name, kind): Rust,
    /// whose oracle names modules and impls from rust-analyzer's symbols, not from kivgraph's
    /// module tree.
    pub fn maps_declarations_by_position(self) -> bool {
        self == OracleLanguage::Rust
    }
}

/// Everything the oracle wrote.
#[derive(Debug, Default)]
pub struct Oracle {
    pub language: OracleLanguage,
    /// The checker the header names (`typescript 5.9.3`, `pyright 1.1.414`); `go/types` without
    /// a header.
    pub checker: Option<String>,
    pub s: Interner,
    pub packages: Vec<OPackage>,
    pub files: Vec<OFile>,
    /// (repo, path, package) of files go/build excludes.
    pub excluded: Vec<(u32, u32, u32)>,
    pub decls: Vec<ODecl>,
    pub uses: Vec<OUse>,
    pub others: Vec<OOther>,
}

#[derive(Deserialize)]
struct Tag<'a> {
    #[serde(borrow)]
    t: Cow<'a, str>,
}

#[derive(Deserialize)]
struct PackageLine {
    repo: String,
    dir: String,
    pkg: String,
    files: u32,
    errors: u32,
    #[serde(default)]
    error_sample: Vec<String>,
}

#[derive(Deserialize)]
struct FileLine<'a> {
    #[serde(borrow)]
    repo: Cow<'a, str>,
    #[serde(borrow)]
    file: Cow<'a, str>,
    #[serde(borrow)]
    pkg: Cow<'a, str>,
    lines: u64,
    sha256: String,
    #[serde(default)]
    cgo: bool,
}

#[derive(Deserialize)]
struct ExcludedLine<'a> {
    #[serde(borrow)]
    repo: Cow<'a, str>,
    #[serde(borrow)]
    file: Cow<'a, str>,
    #[serde(borrow)]
    pkg: Cow<'a, str>,
}

#[derive(Deserialize)]
struct HeaderLine {
    language: String,
    #[serde(default)]
    checker: Option<String>,
}

#[derive(Deserialize)]
struct TargetLine<'a> {
    #[serde(borrow, default)]
    target_repo: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pkg: Cow<'a, str>,
    #[serde(borrow)]
    qn: Cow<'a, str>,
    #[serde(borrow)]
    kind: Cow<'a, str>,
}

#[derive(Deserialize)]
struct DeclLine<'a> {
    #[serde(borrow)]
    repo: Cow<'a, str>,
    #[serde(borrow)]
    pkg: Cow<'a, str>,
    #[serde(borrow)]
    file: Cow<'a, str>,
    line: u32,
    col: u32,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    detail: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    qn: Cow<'a, str>,
    #[serde(borrow, default)]
    method_of: Option<TargetLine<'a>>,
    #[serde(borrow, default)]
    embeds: Option<TargetLine<'a>>,
    #[serde(borrow, default)]
    overrides: Option<TargetLine<'a>>,
}

#[derive(Deserialize)]
struct UseLine<'a> {
    #[serde(borrow)]
    repo: Cow<'a, str>,
    #[serde(borrow)]
    file: Cow<'a, str>,
    line: u32,
    col: u32,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    pkg: Cow<'a, str>,
    #[serde(borrow)]
    qn: Cow<'a, str>,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    detail: Cow<'a, str>,
    #[serde(borrow, rename = "use")]
    usage: Cow<'a, str>,
    #[serde(borrow)]
    form: Cow<'a, str>,
    #[serde(borrow, default)]
    edge: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    target_repo: Option<Cow<'a, str>>,
    #[serde(borrow)]
    from_kind: Cow<'a, str>,
    #[serde(borrow)]
    from_qn: Cow<'a, str>,
    from_line: u32,
}

#[derive(Deserialize)]
struct OtherLine<'a> {
    #[serde(borrow)]
    repo: Cow<'a, str>,
    #[serde(borrow)]
    file: Cow<'a, str>,
    line: u32,
    col: u32,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    obj: Cow<'a, str>,
}

impl Oracle {
    /// Reads the oracle's JSON lines from a file.
    pub fn read(path: &Path) -> anyhow::Result<Oracle> {
        let f =
            std::fs::File::open(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Oracle::parse(std::io::BufReader::with_capacity(1 << 20, f))
    }

    /// Reads the oracle's JSON lines.
    pub fn parse(r: impl BufRead) -> anyhow::Result<Oracle> {
        let mut o = Oracle::default();
        for (n, line) in r.lines().enumerate() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            o.push_line(&line)
                .map_err(|e| anyhow::anyhow!("oracle line {}: {e}", n + 1))?;
        }
        Ok(o)
    }

    /// A target line; `repo` when the line names no repository ([`ANY_REPO`] for "any").
    fn target(&mut self, t: &TargetLine, repo: u32) -> OTarget {
        OTarget {
            repo: t.target_repo.as_ref().map_or(repo, |r| self.s.id(r)),
            pkg: self.s.id(&t.pkg),
            qn: self.s.id(&t.qn),
            kind: self.s.id(&t.kind),
        }
    }

    fn push_line(&mut self, line: &str) -> anyhow::Result<()> {
        let tag: Tag = serde_json::from_str(line)?;
        match tag.t.as_ref() {
            "oracle" => {
                let h: HeaderLine = serde_json::from_str(line)?;
                self.language = match h.language.as_str() {
                    "go" => OracleLanguage::Go,
                    "typescript" | "javascript" => OracleLanguage::TypeScript,
                    "python" => OracleLanguage::Python,
                    "rust" => OracleLanguage::Rust,
                    other => anyhow::bail!("unknown oracle language {other:?}"),
                };
                self.checker = h.checker;
            }
            "package" => {
                let p: PackageLine = serde_json::from_str(line)?;
                let rec = OPackage {
                    repo: self.s.id(&p.repo),
                    dir: self.s.id(&p.dir),
                    pkg: self.s.id(&p.pkg),
                    files: p.files,
                    errors: p.errors,
                    error_sample: p.error_sample,
                };
                self.packages.push(rec);
            }
            "file" => {
                let f: FileLine = serde_json::from_str(line)?;
                let rec = OFile {
                    repo: self.s.id(&f.repo),
                    path: self.s.id(&f.file),
                    pkg: self.s.id(&f.pkg),
                    lines: f.lines,
                    sha256: f.sha256,
                    cgo: f.cgo,
                };
                self.files.push(rec);
            }
            "excluded" => {
                let f: ExcludedLine = serde_json::from_str(line)?;
                let rec = (self.s.id(&f.repo), self.s.id(&f.file), self.s.id(&f.pkg));
                self.excluded.push(rec);
            }
            "decl" => {
                let d: DeclLine = serde_json::from_str(line)?;
                let repo = self.s.id(&d.repo);
                // A method's type is declared beside it; an embedded type or an overridden
                // method may be in another repository.
                let method_of = d.method_of.as_ref().map(|t| self.target(t, repo));
                let embeds = d.embeds.as_ref().map(|t| self.target(t, ANY_REPO));
                let overrides = d.overrides.as_ref().map(|t| self.target(t, ANY_REPO));
                let rec = ODecl {
                    repo,
                    pkg: self.s.id(&d.pkg),
                    file: self.s.id(&d.file),
                    line: d.line,
                    col: d.col,
                    kind: self.s.id(&d.kind),
                    detail: self.s.id(&d.detail),
                    name: self.s.id(&d.name),
                    qn: self.s.id(&d.qn),
                    method_of,
                    embeds,
                    overrides,
                };
                self.decls.push(rec);
            }
            "use" => {
                let u: UseLine = serde_json::from_str(line)?;
                let rec = OUse {
                    repo: self.s.id(&u.repo),
                    file: self.s.id(&u.file),
                    line: u.line,
                    col: u.col,
                    name: self.s.id(&u.name),
                    target: OTarget {
                        repo: u.target_repo.as_ref().map_or(ANY_REPO, |r| self.s.id(r)),
                        pkg: self.s.id(&u.pkg),
                        qn: self.s.id(&u.qn),
                        kind: self.s.id(&u.kind),
                    },
                    detail: self.s.id(&u.detail),
                    usage: self.s.id(&u.usage),
                    form: self.s.id(&u.form),
                    edge: u.edge.as_ref().map(|e| self.s.id(e)),
                    from_kind: self.s.id(&u.from_kind),
                    from_qn: self.s.id(&u.from_qn),
                    from_line: u.from_line,
                };
                self.uses.push(rec);
            }
            "other" => {
                let x: OtherLine = serde_json::from_str(line)?;
                let rec = OOther {
                    repo: self.s.id(&x.repo),
                    file: self.s.id(&x.file),
                    line: x.line,
                    col: x.col,
                    name: self.s.id(&x.name),
                    obj: self.s.id(&x.obj),
                };
                self.others.push(rec);
            }
            other => anyhow::bail!("unknown record type {other:?}"),
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Figures

/// `hit` out of `of`.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Ratio {
    pub hit: u64,
    pub of: u64,
}

impl Ratio {
    fn add(&mut self, hit: bool) {
        self.of += 1;
        if hit {
            self.hit += 1;
        }
    }

    /// The ratio in percent; 100 when nothing was measured.
    pub fn pct(&self) -> f64 {
        if self.of == 0 {
            100.0
        } else {
            self.hit as f64 * 100.0 / self.of as f64
        }
    }

    fn show(&self) -> String {
        if self.of == 0 {
            "n/a".into()
        } else {
            format!("{:.2} % ({}/{})", self.pct(), self.hit, self.of)
        }
    }

    fn short(&self) -> String {
        if self.of == 0 {
            "n/a".into()
        } else {
            format!("{:.2} %", self.pct())
        }
    }
}

/// Precision and recall at one level of comparison.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Level {
    /// Edges labelled exact whose use the oracle confirms.
    pub exact_precision: Ratio,
    /// Candidate edges the oracle confirms.
    pub candidate_precision: Ratio,
    /// All edges (exact and candidate) the oracle confirms.
    pub all_precision: Ratio,
    /// Oracle uses found by some edge, exact or candidate.
    pub recall_all: Ratio,
    /// Oracle uses found by an exact edge.
    pub recall_exact: Ratio,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct EdgeKindRow {
    pub level: Level,
    /// Found uses for which a matching edge has the kind SPEC §10.4 (§11.4, §12.4) prescribes.
    pub kind_agreement: Ratio,
}

#[derive(Debug, Clone, Serialize)]
pub struct BucketRow {
    pub confidence: String,
    pub provenance: String,
    /// Edges of this bucket the oracle confirms.
    pub precision: Ratio,
    /// Oracle uses whose strongest matching edge is of this bucket.
    pub uses_found: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Pattern {
    pub pattern: String,
    pub count: u64,
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TargetRow {
    pub target: String,
    pub count: u64,
    pub example: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Corpus {
    pub packages: u64,
    /// Files and lines measured (cgo files excepted).
    pub files: u64,
    pub lines: u64,
    /// cgo files: declarations only, no uses measured.
    pub cgo_files: u64,
    pub cgo_lines: u64,
    pub type_errors: u64,
    pub type_error_sample: Vec<String>,
    pub oracle_declarations: u64,
    pub oracle_uses: u64,
    pub oracle_other_uses: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct FileAgreement {
    /// Oracle files the generation does not have at all.
    pub missing_in_graph: u64,
    /// Oracle files the generation records but did not compile (excluded, unreadable, …).
    pub not_compiled_by_graph: u64,
    /// Oracle files whose bytes differ from the bytes the generation indexed (a stale oracle).
    pub stale: u64,
    /// Files go/build excludes that the generation compiled.
    pub compiled_but_excluded_by_go: u64,
    /// Measured files the generation compiled with syntax errors (tree-sitter `ERROR` or
    /// `MISSING` nodes): status `partial`, the facts outside the broken regions kept.
    pub partial: Ratio,
    /// Their paths (the first few).
    pub partial_examples: Vec<String>,
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct DeclAgreement {
    /// Oracle declarations mapped to a graph symbol by (package, qualified name, kind).
    pub mapped: Ratio,
    pub unmapped_examples: Vec<String>,
    /// Graph symbols (not module symbols) in measured files that no oracle declaration maps to.
    pub graph_extra: u64,
    pub graph_extra_examples: Vec<String>,
    /// Rust: of the declarations mapped by position, those the graph names the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity: Option<IdentityAgreement>,
}

/// How many declarations mapped by position have the oracle's (package, qualified name, kind).
#[derive(Debug, Clone, Default, Serialize)]
pub struct IdentityAgreement {
    pub same: Ratio,
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Structural {
    pub method_of: Level,
    pub embeds: Level,
    pub overrides: Level,
    /// Rust: structural facts on one side only, up to 30 per fact and side.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}

/// The full comparison.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The language the oracle measures.
    pub language: OracleLanguage,
    /// The oracle's checker (`go/types`, `typescript 5.9.3`, `pyright 1.1.414`).
    pub checker: String,
    pub corpus: Corpus,
    pub files: FileAgreement,
    pub declarations: DeclAgreement,
    /// Use edges (reference vocabulary minus the structural `EMBEDS` and `OVERRIDES`, and for Go
    /// minus `IMPLEMENTS`) whose occurrence is in a measured file.
    pub edges_in_scope: u64,
    /// Use edges whose occurrence lies outside the measured files.
    pub edges_out_of_scope: u64,
    pub sites: Level,
    pub lines: Level,
    pub referrers: Level,
    pub by_target_kind: BTreeMap<String, Level>,
    pub by_edge_kind: BTreeMap<String, EdgeKindRow>,
    pub by_bucket: Vec<BucketRow>,
    pub by_form: BTreeMap<String, Level>,
    pub structural: Structural,
    /// Oracle uses no edge finds, grouped by what the graph did at the site.
    pub miss_outcomes: Vec<Pattern>,
    /// Oracle uses no edge finds, grouped by form and what the graph did at the site.
    pub miss_patterns: Vec<Pattern>,
    /// Oracle uses found only by candidate edges.
    pub exact_gap_patterns: Vec<Pattern>,
    /// Exact edges the oracle does not confirm, grouped by rule and what the oracle has there.
    pub exact_false_positive_patterns: Vec<Pattern>,
    pub candidate_false_positive_patterns: Vec<Pattern>,
    pub worst_missed_targets: Vec<TargetRow>,
    pub worst_false_positive_targets: Vec<TargetRow>,
    pub drops: DropAudit,
    /// Every oracle use whose target maps to a graph symbol and whose file is in the graph, but
    /// the forms of [`DROP_EXEMPTIONS`], sorted: what a `COMPLETE` answer about that symbol must
    /// hold (`verdict_check`).
    #[serde(skip)]
    pub uses_by_target: Vec<UseAt>,
}

/// An oracle use of a graph symbol, at a line of a graph file, with the oracle's use form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UseAt {
    pub symbol: u32,
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub form: String,
}

/// The drop audit: oracle uses of declarations the graph has that left no trace in the graph,
/// neither an edge at the site (to any target) or to the target on the site's line, nor an
/// unresolved record at the site. Every use the graph cannot bind must be recorded so that
/// find_references says LOWER_BOUND; a dropped use makes a COMPLETE answer false.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DropAudit {
    /// Oracle uses whose target declaration and file are in the graph.
    pub uses: u64,
    /// Those of them dropped.
    pub dropped: u64,
    /// Every dropped use, by syntactic context (use form) and target kind, most frequent first.
    pub by_context: Vec<Pattern>,
    /// Uses the graph omits on purpose ([`DROP_EXEMPTIONS`]), by reason; not counted as dropped.
    pub exempt: Vec<Pattern>,
}

/// Uses without an edge that the graph omits on purpose, each documented in SPEC: the
/// language, the oracle's use form, and why.
pub const DROP_EXEMPTIONS: &[(OracleLanguage, &str, &str)] = &[(
    OracleLanguage::Python,
    "property-accessor decorator",
    "`@p.setter` (`.getter`, `.deleter`) on `def p` is part of declaring the property (SPEC 12.2)",
)];

/// Regression thresholds, in percent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Thresholds {
    pub min_exact_precision: Option<f64>,
    pub min_recall: Option<f64>,
    pub min_exact_recall: Option<f64>,
}

impl Thresholds {
    /// The thresholds missed, one message each (empty when all hold).
    pub fn check(&self, r: &Report) -> Vec<String> {
        let mut out = Vec::new();
        let rows = [
            (
                "use-site exact precision",
                self.min_exact_precision,
                r.sites.exact_precision,
            ),
            (
                "use-site recall (all edges)",
                self.min_recall,
                r.sites.recall_all,
            ),
            (
                "use-site recall (exact edges)",
                self.min_exact_recall,
                r.sites.recall_exact,
            ),
        ];
        for (what, min, got) in rows {
            if let Some(min) = min
                && got.pct() < min
            {
                out.push(format!(
                    "{what} {:.2} % ({}/{}) is below the threshold {min:.2} %",
                    got.pct(),
                    got.hit,
                    got.of
                ));
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Scoring

const TOP: usize = 30;

#[derive(Clone, Copy)]
struct GEdge {
    source: u32,
    target: u32,
    kind: u8,
    confidence: u8,
    provenance: u16,
    file: u32,
    line: u32,
    column: u32,
}

impl GEdge {
    fn exact(&self) -> bool {
        Confidence::from_code(self.confidence).is_some_and(Confidence::is_exact)
    }
}

type Site = (u32, u32, u32);

#[derive(Default)]
struct Patterns {
    map: HashMap<String, (u64, Vec<String>)>,
}

impl Patterns {
    fn add(&mut self, pattern: String, example: impl FnOnce() -> String) {
        let e = self.map.entry(pattern).or_default();
        e.0 += 1;
        if e.1.len() < 2 {
            e.1.push(example());
        }
    }

    fn top(self, n: usize) -> Vec<Pattern> {
        let mut v: Vec<Pattern> = self
            .map
            .into_iter()
            .map(|(pattern, (count, examples))| Pattern {
                pattern,
                count,
                examples,
            })
            .collect();
        v.sort_by(|a, b| b.count.cmp(&a.count).then(a.pattern.cmp(&b.pattern)));
        v.truncate(n);
        v
    }
}

fn top_targets(map: HashMap<String, (u64, String)>, n: usize) -> Vec<TargetRow> {
    let mut v: Vec<TargetRow> = map
        .into_iter()
        .map(|(target, (count, example))| TargetRow {
            target,
            count,
            example,
        })
        .collect();
    v.sort_by(|a, b| b.count.cmp(&a.count).then(a.target.cmp(&b.target)));
    v.truncate(n);
    v
}

fn kind_code(kind: &str) -> Option<u8> {
    SymbolKind::parse(kind).map(SymbolKind::code)
}

/// The edge kind SPEC §10.4 prescribes for a Go use.
fn expected_edge_kind(target_kind: &str, usage: &str) -> EdgeKind {
    match (target_kind, usage) {
        ("type" | "alias", _) | (_, "type") => EdgeKind::TypeUses,
        ("func" | "method", "call") => EdgeKind::CallsDirect,
        _ => EdgeKind::References,
    }
}

fn edge_kind_name(code: u8) -> String {
    EdgeKind::from_code(code).map_or_else(|| format!("kind {code}"), |k| k.as_str().to_string())
}

fn confidence_name(code: u8) -> String {
    Confidence::from_code(code)
        .map_or_else(|| format!("confidence {code}"), |k| k.as_str().to_string())
}

fn provenance_name(code: u16) -> String {
    Provenance::from_code(code)
        .map_or_else(|| format!("provenance {code}"), |k| k.as_str().to_string())
}

/// Shortens an unresolved record's detail to what groups well.
fn unresolved_gist(reason: &str, detail: Option<&str>) -> String {
    let d = detail.unwrap_or("");
    let gist = if d.contains("no visible type declares") {
        " (no visible member of that name)"
    } else if d.contains("visible members share the name") {
        " (more than 8 members share the name)"
    } else if d.contains("operand is declared nowhere") {
        " (operand unknown)"
    } else if d.contains("no such field") {
        " (no such field on the literal's type)"
    } else if d.contains("no declaration in the package") {
        " (no declaration in the package)"
    } else {
        ""
    };
    format!("unresolved {reason}{gist}")
}

/// The graph symbol a declaration of a position-mapped oracle (Rust) is: among the symbols of
/// its file with its name whose range holds the name's position, the one with the declaration's
/// (package, qualified name, kind), else of its kind, else the innermost.
fn symbol_at(
    g: kivgraph_format::Graph<'_>,
    file_symbols: &HashMap<u32, Vec<u32>>,
    gf: Option<u32>,
    o: &Oracle,
    d: &ODecl,
) -> Option<u32> {
    let syms = file_symbols.get(&gf?)?;
    let st = |id: u32| g.strings.get(id);
    let name = o.s.get(d.name);
    let kind = kind_code(o.s.get(d.kind));
    let holds = |s: &&u32| {
        let sy = &g.symbols[**s as usize];
        let start = (sy.start_line.to_native(), sy.start_column.to_native());
        let end = (sy.end_line.to_native(), sy.end_column.to_native());
        st(sy.name.to_native()) == name && start <= (d.line, d.col) && (d.line, d.col) < end
    };
    let span = |s: &u32| {
        let sy = &g.symbols[*s as usize];
        sy.end_byte.to_native() - sy.start_byte.to_native()
    };
    let mut candidates: Vec<u32> = syms.iter().filter(holds).copied().collect();
    if candidates.is_empty() {
        // A declaration the two sides name differently (an impl of a type written with a path
        // or a reference): the symbol of its kind that starts at its position.
        candidates = syms
            .iter()
            .filter(|s| {
                let sy = &g.symbols[**s as usize];
                Some(sy.kind) == kind
                    && sy.start_line.to_native() == d.line
                    && sy.start_column.to_native() == d.col
            })
            .copied()
            .collect();
    }
    let identical = |s: &&u32| {
        let sy = &g.symbols[**s as usize];
        Some(sy.kind) == kind
            && st(sy.qualified_name.to_native()) == o.s.get(d.qn)
            && st(g.packages[sy.package.to_native() as usize].name.to_native()) == o.s.get(d.pkg)
    };
    candidates
        .iter()
        .find(identical)
        .or_else(|| {
            candidates
                .iter()
                .filter(|s| Some(g.symbols[**s as usize].kind) == kind)
                .min_by_key(|s| span(s))
        })
        .or_else(|| candidates.iter().min_by_key(|s| span(s)))
        .copied()
}

/// Scores a generation against the oracle.
pub fn score(o: &Oracle, generation: &Generation) -> Report {
    let g = generation.graph();
    let st = |id: u32| g.strings.get(id);
    let mut report = Report {
        language: o.language,
        checker: o.checker.clone().unwrap_or_else(|| "go/types".to_string()),
        ..Report::default()
    };
    // TypeScript and Python: modules, a checker of their own, IMPLEMENTS as a use.
    let typescript = o.language.is_module_oracle();

    // ---- files ----
    let mut graph_file: HashMap<(&str, &str), u32> = HashMap::new();
    for (i, f) in g.files.iter().enumerate() {
        let repo = st(g.repositories[f.repository.to_native() as usize]
            .name
            .to_native());
        graph_file.insert((repo, st(f.path.to_native())), i as u32);
    }
    let file_of = |repo: u32, path: u32| -> Option<u32> {
        graph_file.get(&(o.s.get(repo), o.s.get(path))).copied()
    };
    let compiled = |gf: u32| {
        let s = g.files[gf as usize].status;
        s == FileStatus::Indexed as u8 || s == FileStatus::Partial as u8
    };
    // Files whose uses are measured (cgo files excepted), and every oracle file (for
    // declarations and structural facts).
    let mut scope: HashSet<u32> = HashSet::new();
    let mut declared_scope: HashSet<u32> = HashSet::new();
    let mut oracle_file: HashMap<(u32, u32), u32> = HashMap::new();
    let fa = &mut report.files;
    for f in &o.files {
        if f.cgo {
            report.corpus.cgo_files += 1;
            report.corpus.cgo_lines += f.lines;
        } else {
            report.corpus.files += 1;
            report.corpus.lines += f.lines;
        }
        match file_of(f.repo, f.path) {
            None => {
                fa.missing_in_graph += 1;
                if fa.examples.len() < TOP {
                    fa.examples.push(format!(
                        "missing in graph: {}:{}",
                        o.s.get(f.repo),
                        o.s.get(f.path)
                    ));
                }
            }
            Some(gf) => {
                oracle_file.insert((f.repo, f.path), gf);
                declared_scope.insert(gf);
                if !f.cgo {
                    scope.insert(gf);
                }
                if !f.cgo {
                    let partial = g.files[gf as usize].status == FileStatus::Partial as u8;
                    fa.partial.add(partial);
                    if partial && fa.partial_examples.len() < 10 {
                        fa.partial_examples.push(format!(
                            "{}:{}",
                            o.s.get(f.repo),
                            o.s.get(f.path)
                        ));
                    }
                }
                if !compiled(gf) {
                    fa.not_compiled_by_graph += 1;
                    if fa.examples.len() < TOP {
                        fa.examples.push(format!(
                            "{} compiles, graph does not ({}): {}:{}",
                            if typescript { "the oracle" } else { "go/build" },
                            FileStatus::from_code(g.files[gf as usize].status)
                                .map_or("?", FileStatus::as_str),
                            o.s.get(f.repo),
                            o.s.get(f.path)
                        ));
                    }
                }
                let sha: String = g.files[gf as usize]
                    .sha256
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                if !f.sha256.is_empty() && sha != f.sha256 {
                    fa.stale += 1;
                    if fa.examples.len() < TOP {
                        fa.examples.push(format!(
                            "stale oracle (bytes differ): {}:{}",
                            o.s.get(f.repo),
                            o.s.get(f.path)
                        ));
                    }
                }
            }
        }
    }
    for &(repo, path, _) in &o.excluded {
        if let Some(gf) = file_of(repo, path)
            && compiled(gf)
        {
            fa.compiled_but_excluded_by_go += 1;
            if fa.examples.len() < TOP {
                fa.examples.push(format!(
                    "graph compiles, go/build excludes: {}:{}",
                    o.s.get(repo),
                    o.s.get(path)
                ));
            }
        }
    }
    for p in &o.packages {
        report.corpus.packages += 1;
        report.corpus.type_errors += p.errors as u64;
        for e in &p.error_sample {
            if report.corpus.type_error_sample.len() < 10 {
                report.corpus.type_error_sample.push(e.clone());
            }
        }
    }
    report.corpus.oracle_declarations = o.decls.len() as u64;
    report.corpus.oracle_uses = o.uses.len() as u64;
    report.corpus.oracle_other_uses = o.others.len() as u64;

    // ---- declarations ----
    let nsym = g.symbols.len();
    let mut by_identity: HashMap<(&str, &str, &str, u8), Vec<u32>> = HashMap::new();
    let mut module_sym: HashMap<(&str, &str), u32> = HashMap::new();
    for (i, s) in g.symbols.iter().enumerate() {
        let repo = st(g.repositories[s.repository.to_native() as usize]
            .name
            .to_native());
        let pkg = st(g.packages[s.package.to_native() as usize].name.to_native());
        let qn = st(s.qualified_name.to_native());
        if s.kind == SymbolKind::Module.code() {
            module_sym.insert((repo, qn), i as u32);
        } else {
            by_identity
                .entry((repo, pkg, qn, s.kind))
                .or_default()
                .push(i as u32);
        }
    }
    let mut decl_sid: Vec<Option<u32>> = Vec::with_capacity(o.decls.len());
    let mut sid_decl: HashMap<u32, usize> = HashMap::new();
    // Rust: the graph symbols of each measured file, to map declarations by position.
    let by_position = o.language.maps_declarations_by_position();
    let mut file_symbols: HashMap<u32, Vec<u32>> = HashMap::new();
    if by_position {
        report.declarations.identity = Some(IdentityAgreement::default());
        for (i, s) in g.symbols.iter().enumerate() {
            let f = s.file.to_native();
            if s.kind != SymbolKind::Module.code() && declared_scope.contains(&f) {
                file_symbols.entry(f).or_default().push(i as u32);
            }
        }
    }
    // How an oracle declaration no graph symbol maps to is shown.
    let unmapped = |d: &ODecl| {
        format!(
            "{} {}:{} ({}:{}:{})",
            o.s.get(d.detail),
            o.s.get(d.pkg),
            o.s.get(d.qn),
            o.s.get(d.repo),
            o.s.get(d.file),
            d.line
        )
    };
    for (di, d) in o.decls.iter().enumerate() {
        if by_position {
            let sid = symbol_at(g, &file_symbols, file_of(d.repo, d.file), o, d).or_else(|| {
                // A declaration the oracle places at its parent (a tuple field): by identity.
                let k = kind_code(o.s.get(d.kind))?;
                let list = by_identity.get(&(o.s.get(d.repo), o.s.get(d.pkg), o.s.get(d.qn), k))?;
                (list.len() == 1).then(|| list[0])
            });
            report.declarations.mapped.add(sid.is_some());
            if let Some(s) = sid {
                sid_decl.entry(s).or_insert(di);
                let sy = &g.symbols[s as usize];
                let same = st(g.packages[sy.package.to_native() as usize].name.to_native())
                    == o.s.get(d.pkg)
                    && st(sy.qualified_name.to_native()) == o.s.get(d.qn)
                    && kind_code(o.s.get(d.kind)) == Some(sy.kind);
                if let Some(ia) = report.declarations.identity.as_mut() {
                    ia.same.add(same);
                    if !same && ia.examples.len() < TOP {
                        ia.examples.push(format!(
                            "oracle {} {}:{} ({}:{}:{}), graph {}",
                            o.s.get(d.kind),
                            o.s.get(d.pkg),
                            o.s.get(d.qn),
                            o.s.get(d.repo),
                            o.s.get(d.file),
                            d.line,
                            sym_label(generation, s)
                        ));
                    }
                }
            } else if report.declarations.unmapped_examples.len() < TOP {
                report.declarations.unmapped_examples.push(unmapped(d));
            }
            decl_sid.push(sid);
            continue;
        }
        let sid = kind_code(o.s.get(d.kind)).and_then(|k| {
            let list = by_identity.get(&(o.s.get(d.repo), o.s.get(d.pkg), o.s.get(d.qn), k))?;
            if list.len() == 1 {
                return Some(list[0]);
            }
            let gf = file_of(d.repo, d.file);
            let same_file = |s: &u32| Some(g.symbols[*s as usize].file.to_native()) == gf;
            list.iter()
                .find(|s| same_file(s) && g.symbols[**s as usize].start_line.to_native() == d.line)
                .or_else(|| list.iter().find(|s| same_file(s)))
                .or(list.first())
                .copied()
        });
        report.declarations.mapped.add(sid.is_some());
        match sid {
            Some(s) => {
                sid_decl.entry(s).or_insert(di);
            }
            None => {
                if report.declarations.unmapped_examples.len() < TOP {
                    report.declarations.unmapped_examples.push(unmapped(d));
                }
            }
        }
        decl_sid.push(sid);
    }
    for (i, s) in g.symbols.iter().enumerate() {
        if s.kind != SymbolKind::Module.code()
            && declared_scope.contains(&s.file.to_native())
            && !sid_decl.contains_key(&(i as u32))
        {
            report.declarations.graph_extra += 1;
            if report.declarations.graph_extra_examples.len() < TOP {
                report
                    .declarations
                    .graph_extra_examples
                    .push(sym_label(generation, i as u32));
            }
        }
    }
    // The first declaration of each identity, with and without its repository.
    let mut target_decl: HashMap<OTarget, usize> = HashMap::new();
    let mut decl_at: HashMap<(u32, u32, u32, u32, u32), usize> = HashMap::new();
    for (di, d) in o.decls.iter().enumerate() {
        for repo in [d.repo, ANY_REPO] {
            target_decl
                .entry(OTarget {
                    repo,
                    pkg: d.pkg,
                    qn: d.qn,
                    kind: d.kind,
                })
                .or_insert(di);
        }
        decl_at
            .entry((d.repo, d.file, d.qn, d.kind, d.line))
            .or_insert(di);
    }
    let target_sid = |t: &OTarget| target_decl.get(t).and_then(|&d| decl_sid[d]);
    // Detail of a graph symbol as the oracle knows it ("interface_method", …), else its kind.
    let detail_of_sid = |s: u32| -> String {
        match sid_decl.get(&s) {
            Some(&d) => o.s.get(o.decls[d].detail).to_string(),
            None => format!(
                "graph-only {}",
                SymbolKind::from_code(g.symbols[s as usize].kind).map_or("?", SymbolKind::as_str)
            ),
        }
    };

    // ---- edges ----
    let mut use_edges: Vec<GEdge> = Vec::new();
    let mut method_of: Vec<GEdge> = Vec::new();
    let mut embeds: Vec<GEdge> = Vec::new();
    let mut overrides: Vec<GEdge> = Vec::new();
    for s in 0..nsym as u32 {
        for e in g.forward.row(s) {
            let ge = GEdge {
                source: s,
                target: e.other.to_native(),
                kind: e.kind,
                confidence: e.confidence,
                provenance: e.provenance.to_native(),
                file: e.file.to_native(),
                line: e.line.to_native(),
                column: e.column.to_native(),
            };
            let in_scope = ge.file != NONE && scope.contains(&ge.file);
            let declared = ge.file != NONE && declared_scope.contains(&ge.file);
            match EdgeKind::from_code(ge.kind) {
                Some(EdgeKind::MethodOf) if declared => method_of.push(ge),
                Some(EdgeKind::Embeds) if declared => embeds.push(ge),
                Some(EdgeKind::Overrides) if declared => overrides.push(ge),
                // For Go and Rust, IMPLEMENTS is a fact about two declarations, not a use the
                // checker records; in TypeScript it is the use of the name in an `implements`
                // clause (Python has none).
                Some(EdgeKind::Embeds) | Some(EdgeKind::MethodOf) | Some(EdgeKind::Overrides) => {}
                Some(EdgeKind::Implements) if !o.language.implements_is_use() => {}
                Some(k) if k.is_reference() => {
                    // A module is not a declaration any oracle lists (Python's `import a.b`
                    // names the module's symbol): such edges cannot be scored.
                    let to_module = g.symbols[ge.target as usize].kind == SymbolKind::Module.code();
                    if in_scope && !to_module {
                        use_edges.push(ge);
                    } else {
                        report.edges_out_of_scope += 1;
                    }
                }
                _ => {}
            }
        }
    }
    report.edges_in_scope = use_edges.len() as u64;
    let mut graph_sites: HashMap<Site, Vec<u32>> = HashMap::new();
    let mut graph_lines: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for (i, e) in use_edges.iter().enumerate() {
        graph_sites
            .entry((e.file, e.line, e.column))
            .or_default()
            .push(i as u32);
        graph_lines
            .entry((e.file, e.line))
            .or_default()
            .push(i as u32);
    }
    let mut unresolved_sites: HashMap<Site, (&str, Option<&str>)> = HashMap::new();
    for u in g.unresolved.iter() {
        let f = u.file.to_native();
        if f != NONE && scope.contains(&f) {
            unresolved_sites
                .entry((f, u.line.to_native(), u.column.to_native()))
                .or_insert((
                    st(u.reason.to_native()),
                    g.strings.opt(u.detail.to_native()),
                ));
        }
    }

    // ---- oracle sites ----
    let use_file: Vec<Option<u32>> = o
        .uses
        .iter()
        .map(|u| oracle_file.get(&(u.repo, u.file)).copied())
        .collect();
    let use_sid: Vec<Option<u32>> = o.uses.iter().map(|u| target_sid(&u.target)).collect();
    report.uses_by_target = (0..o.uses.len())
        .filter_map(|i| {
            let u = &o.uses[i];
            let form = o.s.get(u.form);
            let exempt = DROP_EXEMPTIONS
                .iter()
                .any(|(l, f, _)| *l == o.language && *f == form);
            (!exempt).then_some(UseAt {
                symbol: use_sid[i]?,
                file: use_file[i]?,
                line: u.line,
                column: u.col,
                form: form.to_string(),
            })
        })
        .collect();
    report.uses_by_target.sort_unstable();
    report.uses_by_target.dedup();
    let mut oracle_sites: HashMap<Site, Vec<usize>> = HashMap::new();
    let mut oracle_lines: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (i, u) in o.uses.iter().enumerate() {
        if let Some(f) = use_file[i] {
            oracle_sites.entry((f, u.line, u.col)).or_default().push(i);
            oracle_lines.entry((f, u.line)).or_default().push(i);
        }
    }
    let mut other_sites: HashMap<Site, usize> = HashMap::new();
    for (i, x) in o.others.iter().enumerate() {
        if let Some(&f) = oracle_file.get(&(x.repo, x.file)) {
            other_sites.insert((f, x.line, x.col), i);
        }
    }

    let loc = |u: &OUse| {
        format!(
            "{}:{}:{}:{} `{}` → {}:{} ({}) in {} {}",
            o.s.get(u.repo),
            o.s.get(u.file),
            u.line,
            u.col,
            o.s.get(u.name),
            o.s.get(u.target.pkg),
            o.s.get(u.target.qn),
            o.s.get(u.detail),
            o.s.get(u.from_kind),
            o.s.get(u.from_qn),
        )
    };
    let file_path = |gf: u32| {
        let f = &g.files[gf as usize];
        format!(
            "{}:{}",
            st(g.repositories[f.repository.to_native() as usize]
                .name
                .to_native()),
            st(f.path.to_native())
        )
    };
    let sym_name = |s: u32| {
        let sy = &g.symbols[s as usize];
        format!(
            "{}:{}",
            st(g.packages[sy.package.to_native() as usize].name.to_native()),
            st(sy.qualified_name.to_native())
        )
    };

    // ---- recall: every oracle use ----
    let mut buckets: BTreeMap<(u8, u16), (Ratio, u64)> = BTreeMap::new();
    let mut misses = Patterns::default();
    let mut drops = Patterns::default();
    let mut exempt = Patterns::default();
    let mut miss_outcomes = Patterns::default();
    let mut gaps = Patterns::default();
    let mut worst_missed: HashMap<String, (u64, String)> = HashMap::new();
    let mut oracle_pairs: HashSet<(u64, u64)> = HashSet::new();
    let mut synthetic: HashMap<String, u64> = HashMap::new();
    let mut synth = |key: String| -> u64 {
        let n = synthetic.len() as u64;
        *synthetic.entry(key).or_insert((1u64 << 32) + n)
    };
    for (i, u) in o.uses.iter().enumerate() {
        let detail = o.s.get(u.detail).to_string();
        let form = o.s.get(u.form).to_string();
        let expected = u
            .edge
            .and_then(|e| EdgeKind::parse(o.s.get(e)))
            .unwrap_or_else(|| expected_edge_kind(o.s.get(u.target.kind), o.s.get(u.usage)));
        let t = use_sid[i];
        let f = use_file[i];
        let site_edges: &[u32] = match f {
            Some(f) => graph_sites
                .get(&(f, u.line, u.col))
                .map_or(&[], Vec::as_slice),
            None => &[],
        };
        let line_edges: &[u32] = match f {
            Some(f) => graph_lines.get(&(f, u.line)).map_or(&[], Vec::as_slice),
            None => &[],
        };
        let matching: Vec<&GEdge> = site_edges
            .iter()
            .map(|&e| &use_edges[e as usize])
            .filter(|e| Some(e.target) == t)
            .collect();
        let found_all = !matching.is_empty();
        let found_exact = matching.iter().any(|e| e.exact());
        let line_match: Vec<&GEdge> = line_edges
            .iter()
            .map(|&e| &use_edges[e as usize])
            .filter(|e| Some(e.target) == t)
            .collect();
        let line_all = !line_match.is_empty();
        let line_exact = line_match.iter().any(|e| e.exact());

        report.sites.recall_all.add(found_all);
        report.sites.recall_exact.add(found_exact);
        report.lines.recall_all.add(line_all);
        report.lines.recall_exact.add(line_exact);
        let tk = report.by_target_kind.entry(detail.clone()).or_default();
        tk.recall_all.add(found_all);
        tk.recall_exact.add(found_exact);
        let fm = report.by_form.entry(form.clone()).or_default();
        fm.recall_all.add(found_all);
        fm.recall_exact.add(found_exact);
        let ek = report
            .by_edge_kind
            .entry(expected.as_str().to_string())
            .or_default();
        ek.level.recall_all.add(found_all);
        ek.level.recall_exact.add(found_exact);
        if found_all {
            ek.kind_agreement
                .add(matching.iter().any(|e| e.kind == expected.code()));
            if let Some(best) = matching.iter().min_by_key(|e| (e.confidence, e.provenance)) {
                buckets
                    .entry((best.confidence, best.provenance))
                    .or_default()
                    .1 += 1;
            }
        }

        // Referrer pairs.
        let referrer = if o.s.get(u.from_kind) == "module" {
            module_sym
                .get(&(o.s.get(u.repo), o.s.get(u.from_qn)))
                .map(|&s| s as u64)
        } else {
            decl_at
                .get(&(u.repo, u.file, u.from_qn, u.from_kind, u.from_line))
                .and_then(|&d| decl_sid[d])
                .map(|s| s as u64)
        };
        let referrer = referrer.unwrap_or_else(|| {
            synth(format!(
                "{}|{}|{}|{}|{}",
                o.s.get(u.repo),
                o.s.get(u.file),
                o.s.get(u.from_kind),
                o.s.get(u.from_qn),
                u.from_line
            ))
        });
        let target = t.map(|s| s as u64).unwrap_or_else(|| {
            synth(format!(
                "{}|{}|{}",
                o.s.get(u.target.pkg),
                o.s.get(u.target.qn),
                o.s.get(u.target.kind)
            ))
        });
        oracle_pairs.insert((referrer, target));

        if t.is_some() && f.is_some() {
            report.drops.uses += 1;
        }
        if !found_all {
            let outcome = if t.is_none() {
                "target declaration not in the graph".to_string()
            } else if f.is_none() {
                "file not in the graph".to_string()
            } else if !site_edges.is_empty() {
                let e = &use_edges[site_edges[0] as usize];
                format!(
                    "graph binds the site to another symbol ({} {}, a {})",
                    confidence_name(e.confidence),
                    provenance_name(e.provenance),
                    detail_of_sid(e.target)
                )
            } else if let Some((reason, d)) =
                f.and_then(|f| unresolved_sites.get(&(f, u.line, u.col)))
            {
                unresolved_gist(reason, *d)
            } else if line_all {
                "nothing at the site; the graph binds this target at another column of the line"
                    .to_string()
            } else {
                match DROP_EXEMPTIONS
                    .iter()
                    .find(|(l, f, _)| *l == o.language && *f == form)
                {
                    Some((_, _, why)) => exempt.add(why.to_string(), || loc(u)),
                    None => drops.add(format!("{form} → {detail}"), || loc(u)),
                }
                "no edge and no unresolved record at the site".to_string()
            };
            misses.add(format!("{form} → {detail} | {outcome}"), || loc(u));
            miss_outcomes.add(outcome, || loc(u));
            let e = worst_missed
                .entry(format!(
                    "{}:{} ({detail})",
                    o.s.get(u.target.pkg),
                    o.s.get(u.target.qn)
                ))
                .or_insert((0, loc(u)));
            e.0 += 1;
        } else if !found_exact {
            gaps.add(format!("{form} → {detail} | candidates only"), || loc(u));
        }
    }

    // ---- precision: every in-scope use edge ----
    let mut exact_fps = Patterns::default();
    let mut cand_fps = Patterns::default();
    let mut worst_fp: HashMap<String, (u64, String)> = HashMap::new();
    let mut graph_pairs_all: HashSet<(u64, u64)> = HashSet::new();
    let mut graph_pairs_exact: HashSet<(u64, u64)> = HashSet::new();
    for e in &use_edges {
        let site = (e.file, e.line, e.column);
        let at_site: &[usize] = oracle_sites.get(&site).map_or(&[], Vec::as_slice);
        let tp = at_site.iter().any(|&u| use_sid[u] == Some(e.target));
        let line_tp = oracle_lines
            .get(&(e.file, e.line))
            .is_some_and(|v| v.iter().any(|&u| use_sid[u] == Some(e.target)));
        let exact = e.exact();
        let tdetail = detail_of_sid(e.target);
        let kind = edge_kind_name(e.kind);
        if exact {
            report.sites.exact_precision.add(tp);
            report.lines.exact_precision.add(line_tp);
        } else {
            report.sites.candidate_precision.add(tp);
            report.lines.candidate_precision.add(line_tp);
        }
        report.sites.all_precision.add(tp);
        report.lines.all_precision.add(line_tp);
        let tk = report.by_target_kind.entry(tdetail.clone()).or_default();
        if exact {
            tk.exact_precision.add(tp);
        } else {
            tk.candidate_precision.add(tp);
        }
        tk.all_precision.add(tp);
        let ek = report.by_edge_kind.entry(kind.clone()).or_default();
        if exact {
            ek.level.exact_precision.add(tp);
        } else {
            ek.level.candidate_precision.add(tp);
        }
        ek.level.all_precision.add(tp);
        buckets
            .entry((e.confidence, e.provenance))
            .or_default()
            .0
            .add(tp);
        graph_pairs_all.insert((e.source as u64, e.target as u64));
        if exact {
            graph_pairs_exact.insert((e.source as u64, e.target as u64));
        }
        if tp {
            continue;
        }
        let target_line_cols: Vec<u32> = oracle_lines
            .get(&(e.file, e.line))
            .map(|v| {
                v.iter()
                    .filter(|&&u| use_sid[u] == Some(e.target))
                    .map(|&u| o.uses[u].col)
                    .collect()
            })
            .unwrap_or_default();
        let at_site_says = if let Some(&u) = at_site.first() {
            let ou = &o.uses[u];
            let same_pkg = g.symbols[e.target as usize].package.to_native()
                == use_sid[u].map_or(NONE, |s| g.symbols[s as usize].package.to_native());
            format!(
                "oracle: the site is a use of a {} of {}",
                o.s.get(ou.detail),
                if use_sid[u].is_none() {
                    "a symbol missing from the graph"
                } else if same_pkg {
                    "the same package"
                } else {
                    "another package"
                }
            )
        } else if let Some(&x) = other_sites.get(&site) {
            format!("oracle: the site is a {}", o.s.get(o.others[x].obj))
        } else {
            "oracle: no use at this position".to_string()
        };
        let oracle_says = if target_line_cols.is_empty() {
            at_site_says
        } else {
            format!("{at_site_says}; the edge's target is used at another column of the line")
        };
        let example = || {
            let oracle_detail = if let Some(&u) = at_site.first() {
                format!(
                    "; oracle: {}:{}",
                    o.s.get(o.uses[u].target.pkg),
                    o.s.get(o.uses[u].target.qn)
                )
            } else if let Some(&x) = other_sites.get(&site) {
                format!("; oracle: {}", o.s.get(o.others[x].obj))
            } else if !target_line_cols.is_empty() {
                format!("; oracle has it at column {}", target_line_cols[0])
            } else {
                String::new()
            };
            format!(
                "{}:{}:{} {} → {} from {}{}",
                file_path(e.file),
                e.line,
                e.column,
                kind,
                sym_name(e.target),
                sym_name(e.source),
                oracle_detail
            )
        };
        let pattern = format!(
            "{} {} → {} | {}",
            provenance_name(e.provenance),
            kind,
            tdetail,
            oracle_says
        );
        if exact {
            let ex = example();
            let w = worst_fp
                .entry(format!("{} ({tdetail})", sym_name(e.target)))
                .or_insert((0, ex.clone()));
            w.0 += 1;
            exact_fps.add(pattern, || ex);
        } else {
            cand_fps.add(pattern, example);
        }
    }

    // ---- referrers ----
    for p in &graph_pairs_exact {
        report
            .referrers
            .exact_precision
            .add(oracle_pairs.contains(p));
    }
    for p in graph_pairs_all.difference(&graph_pairs_exact) {
        report
            .referrers
            .candidate_precision
            .add(oracle_pairs.contains(p));
    }
    for p in &graph_pairs_all {
        report.referrers.all_precision.add(oracle_pairs.contains(p));
    }
    for p in &oracle_pairs {
        report.referrers.recall_all.add(graph_pairs_all.contains(p));
        report
            .referrers
            .recall_exact
            .add(graph_pairs_exact.contains(p));
    }

    // ---- structural ----
    let mut expected_method_of: HashSet<(u32, u32)> = HashSet::new();
    let mut expected_embeds: HashSet<(u32, u32)> = HashSet::new();
    let mut expected_overrides: HashSet<(u32, u32)> = HashSet::new();
    for (di, d) in o.decls.iter().enumerate() {
        if let (Some(t), Some(m)) = (&d.overrides, decl_sid[di])
            && let Some(ts) = target_sid(t)
        {
            expected_overrides.insert((m, ts));
        }
        if let (Some(t), Some(m)) = (&d.method_of, decl_sid[di])
            && let Some(ts) = target_sid(t)
        {
            expected_method_of.insert((m, ts));
        }
        if let Some(t) = &d.embeds
            && let Some(ts) = target_sid(t)
        {
            let owner = o.s.get(d.qn).split('.').next().unwrap_or("");
            let owner_sid = ["type", "alias"].iter().find_map(|k| {
                let k = o.s.lookup(k)?;
                let q = o.s.lookup(owner)?;
                target_sid(&OTarget {
                    repo: d.repo,
                    pkg: d.pkg,
                    qn: q,
                    kind: k,
                })
            });
            if let Some(os) = owner_sid {
                expected_embeds.insert((os, ts));
            }
        }
    }
    let structural = |edges: &[GEdge], expected: &HashSet<(u32, u32)>| {
        let mut level = Level::default();
        let got: HashSet<(u32, u32)> = edges.iter().map(|e| (e.source, e.target)).collect();
        for p in &got {
            level.exact_precision.add(expected.contains(p));
            level.all_precision.add(expected.contains(p));
        }
        for p in expected {
            level.recall_all.add(got.contains(p));
            level.recall_exact.add(got.contains(p));
        }
        level
    };
    report.structural.method_of = structural(&method_of, &expected_method_of);
    report.structural.embeds = structural(&embeds, &expected_embeds);
    report.structural.overrides = structural(&overrides, &expected_overrides);
    if by_position {
        for (name, edges, expected) in [
            ("METHOD_OF", &method_of, &expected_method_of),
            ("OVERRIDES", &overrides, &expected_overrides),
        ] {
            let got: HashSet<(u32, u32)> = edges.iter().map(|e| (e.source, e.target)).collect();
            let mut only_graph: Vec<&(u32, u32)> = got.difference(expected).collect();
            let mut only_oracle: Vec<&(u32, u32)> = expected.difference(&got).collect();
            only_graph.sort();
            only_oracle.sort();
            for (side, list) in [("graph only", only_graph), ("oracle only", only_oracle)] {
                for &(a, b) in list.iter().take(TOP) {
                    report.structural.examples.push(format!(
                        "{name} {side}: {} → {}",
                        sym_label(generation, *a),
                        sym_label(generation, *b)
                    ));
                }
            }
        }
    }

    report.by_bucket = buckets
        .into_iter()
        .map(|((c, p), (precision, uses_found))| BucketRow {
            confidence: confidence_name(c),
            provenance: provenance_name(p),
            precision,
            uses_found,
        })
        .collect();
    report.drops.dropped = drops.map.values().map(|(n, _)| n).sum();
    report.drops.by_context = drops.top(usize::MAX);
    report.drops.exempt = exempt.top(usize::MAX);
    report.miss_outcomes = miss_outcomes.top(TOP);
    report.miss_patterns = misses.top(TOP);
    report.exact_gap_patterns = gaps.top(TOP);
    report.exact_false_positive_patterns = exact_fps.top(TOP);
    report.candidate_false_positive_patterns = cand_fps.top(TOP);
    report.worst_missed_targets = top_targets(worst_missed, TOP);
    report.worst_false_positive_targets = top_targets(worst_fp, TOP);
    report
}

fn sym_label(generation: &Generation, s: u32) -> String {
    let g = generation.graph();
    let sy = &g.symbols[s as usize];
    let f = &g.files[sy.file.to_native() as usize];
    format!(
        "{} {}:{} ({}:{})",
        SymbolKind::from_code(sy.kind).map_or("?", SymbolKind::as_str),
        g.strings
            .get(g.packages[sy.package.to_native() as usize].name.to_native()),
        g.strings.get(sy.qualified_name.to_native()),
        g.strings.get(f.path.to_native()),
        sy.start_line.to_native()
    )
}

// ---------------------------------------------------------------------------------------------
// Rendering

impl Report {
    /// The human-readable report.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let c = &self.corpus;
        let ts = self.language.is_module_oracle();
        let _ = writeln!(s, "{}", self.title());
        if ts {
            let _ = writeln!(
                s,
                "corpus: {} modules, {} lines measured; checker errors: {}",
                c.files, c.lines, c.type_errors
            );
        } else {
            let _ = writeln!(
                s,
                "corpus: {} packages, {} files, {} lines measured (+ {} cgo files, {} lines, declarations only); oracle type errors: {}",
                c.packages, c.files, c.lines, c.cgo_files, c.cgo_lines, c.type_errors
            );
        }
        for e in &c.type_error_sample {
            let _ = writeln!(
                s,
                "  {}: {e}",
                if ts { "checker error" } else { "type error" }
            );
        }
        if ts {
            let _ = writeln!(
                s,
                "oracle: {} declarations, {} uses of them",
                c.oracle_declarations, c.oracle_uses
            );
        } else {
            let _ = writeln!(
                s,
                "oracle: {} declarations, {} uses of them, {} uses of unmodeled same-named objects",
                c.oracle_declarations, c.oracle_uses, c.oracle_other_uses
            );
        }
        let _ = writeln!(
            s,
            "graph: {} use edges in measured files ({} exact, {} candidate), {} outside them",
            self.edges_in_scope,
            self.sites.exact_precision.of,
            self.sites.candidate_precision.of,
            self.edges_out_of_scope
        );
        let f = &self.files;
        if ts {
            let _ = writeln!(
                s,
                "files: {} missing in graph, {} not compiled by graph, {} stale",
                f.missing_in_graph, f.not_compiled_by_graph, f.stale
            );
        } else {
            let _ = writeln!(
                s,
                "files: {} missing in graph, {} not compiled by graph, {} compiled by graph but excluded by go/build, {} stale",
                f.missing_in_graph, f.not_compiled_by_graph, f.compiled_but_excluded_by_go, f.stale
            );
        }
        for e in f.examples.iter().take(10) {
            let _ = writeln!(s, "  {e}");
        }
        let _ = writeln!(
            s,
            "syntax errors: {} of the measured files parsed with ERROR or MISSING nodes (kept as partial: the facts outside the broken regions)",
            f.partial.show()
        );
        for e in f.partial_examples.iter().take(5) {
            let _ = writeln!(s, "  partial: {e}");
        }
        let d = &self.declarations;
        let _ = writeln!(
            s,
            "declarations: {} mapped to graph symbols; {} graph symbols without an oracle declaration",
            d.mapped.show(),
            d.graph_extra
        );
        if let Some(ia) = &d.identity {
            let _ = writeln!(
                s,
                "  named as the oracle names them (package, qualified name, kind): {}",
                ia.same.show()
            );
            for e in ia.examples.iter().take(10) {
                let _ = writeln!(s, "  named otherwise: {e}");
            }
        }
        for e in d.unmapped_examples.iter().take(10) {
            let _ = writeln!(s, "  not in graph: {e}");
        }
        for e in d.graph_extra_examples.iter().take(10) {
            let _ = writeln!(s, "  graph only: {e}");
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "{:<22} {:>26} {:>26} {:>26} {:>26}",
            "level",
            "exact precision",
            "recall (all edges)",
            "recall (exact edges)",
            "candidate precision"
        );
        let structural_rows = if ts {
            [
                ("METHOD_OF", &self.structural.method_of),
                ("OVERRIDES", &self.structural.overrides),
            ]
        } else {
            [
                ("METHOD_OF", &self.structural.method_of),
                ("EMBEDS", &self.structural.embeds),
            ]
        };
        for (name, l) in [
            ("use sites (column)", &self.sites),
            ("use lines", &self.lines),
            ("referrers", &self.referrers),
        ]
        .into_iter()
        .chain(structural_rows)
        {
            let _ = writeln!(
                s,
                "{:<22} {:>26} {:>26} {:>26} {:>26}",
                name,
                l.exact_precision.show(),
                l.recall_all.show(),
                l.recall_exact.show(),
                l.candidate_precision.show()
            );
        }
        for e in self.structural.examples.iter() {
            let _ = writeln!(s, "  {e}");
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "by target kind (use sites)");
        let _ = writeln!(
            s,
            "  {:<26} {:>8} {:>10} {:>10} {:>9} {:>10} {:>9} {:>10}",
            "kind", "uses", "recall", "recall ex", "exact", "ex prec", "cand", "cand prec"
        );
        for (k, l) in &self.by_target_kind {
            let _ = writeln!(
                s,
                "  {:<26} {:>8} {:>10} {:>10} {:>9} {:>10} {:>9} {:>10}",
                k,
                l.recall_all.of,
                l.recall_all.short(),
                l.recall_exact.short(),
                l.exact_precision.of,
                l.exact_precision.short(),
                l.candidate_precision.of,
                l.candidate_precision.short()
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "by edge kind (precision by the edge's kind, recall by the kind SPEC §{} prescribes)",
            self.language.edge_section()
        );
        let _ = writeln!(
            s,
            "  {:<18} {:>8} {:>10} {:>10} {:>9} {:>10} {:>9} {:>10} {:>10}",
            "kind",
            "uses",
            "recall",
            "recall ex",
            "exact",
            "ex prec",
            "cand",
            "cand prec",
            "kind ok"
        );
        for (k, r) in &self.by_edge_kind {
            let l = &r.level;
            let _ = writeln!(
                s,
                "  {:<18} {:>8} {:>10} {:>10} {:>9} {:>10} {:>9} {:>10} {:>10}",
                k,
                l.recall_all.of,
                l.recall_all.short(),
                l.recall_exact.short(),
                l.exact_precision.of,
                l.exact_precision.short(),
                l.candidate_precision.of,
                l.candidate_precision.short(),
                r.kind_agreement.short()
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "by confidence and provenance (use sites)");
        let _ = writeln!(
            s,
            "  {:<26} {:<20} {:>9} {:>10} {:>12} {:>12}",
            "confidence", "provenance", "edges", "correct", "precision", "uses found"
        );
        for b in &self.by_bucket {
            let _ = writeln!(
                s,
                "  {:<26} {:<20} {:>9} {:>10} {:>12} {:>12}",
                b.confidence,
                b.provenance,
                b.precision.of,
                b.precision.hit,
                b.precision.short(),
                b.uses_found
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "recall by use form");
        let _ = writeln!(
            s,
            "  {:<58} {:>8} {:>10} {:>10}",
            "form", "uses", "recall", "recall ex"
        );
        let mut forms: Vec<_> = self.by_form.iter().collect();
        forms.sort_by(|a, b| b.1.recall_all.of.cmp(&a.1.recall_all.of).then(a.0.cmp(b.0)));
        let shown = forms.len().min(40);
        let hidden = forms.len() - shown;
        for (k, l) in forms.into_iter().take(shown) {
            let _ = writeln!(
                s,
                "  {:<58} {:>8} {:>10} {:>10}",
                k,
                l.recall_all.of,
                l.recall_all.short(),
                l.recall_exact.short()
            );
        }
        if hidden > 0 {
            let _ = writeln!(s, "  … {hidden} rarer forms (all of them in --json)");
        }
        for (title, list) in [
            (
                "exact false positives by pattern",
                &self.exact_false_positive_patterns,
            ),
            (
                "misses (no edge finds the use) by what the graph did",
                &self.miss_outcomes,
            ),
            (
                "misses (no edge finds the use) by pattern",
                &self.miss_patterns,
            ),
            (
                "found by candidates only, by pattern",
                &self.exact_gap_patterns,
            ),
            (
                "candidate edges the oracle does not confirm, by pattern",
                &self.candidate_false_positive_patterns,
            ),
        ] {
            let _ = writeln!(s);
            let _ = writeln!(s, "{title} (top {TOP})");
            for p in list {
                let _ = writeln!(s, "  {:>7}  {}", p.count, p.pattern);
                for e in &p.examples {
                    let _ = writeln!(s, "           e.g. {e}");
                }
            }
        }
        let _ = writeln!(s);
        let d = &self.drops;
        let _ = writeln!(
            s,
            "drop audit: {} of {} uses ({}) have neither an edge nor an unresolved record at the site",
            d.dropped,
            d.uses,
            Ratio {
                hit: d.dropped,
                of: d.uses
            }
            .short()
        );
        for p in d.by_context.iter().take(TOP) {
            let _ = writeln!(s, "  {:>7}  {}", p.count, p.pattern);
            for e in &p.examples {
                let _ = writeln!(s, "           e.g. {e}");
            }
        }
        for p in &d.exempt {
            let _ = writeln!(s, "  exempt {:>7}  {}", p.count, p.pattern);
        }
        if d.by_context.len() > TOP {
            let _ = writeln!(
                s,
                "  … {} rarer contexts (all of them in --json)",
                d.by_context.len() - TOP
            );
        }
        for (title, list) in [
            (
                "targets with the most exact false positives",
                &self.worst_false_positive_targets,
            ),
            (
                "targets with the most missed uses",
                &self.worst_missed_targets,
            ),
        ] {
            let _ = writeln!(s);
            let _ = writeln!(s, "{title} (top {TOP})");
            for t in list {
                let _ = writeln!(s, "  {:>7}  {}", t.count, t.target);
                let _ = writeln!(s, "           e.g. {}", t.example);
            }
        }
        s
    }

    /// The heading: the language measured and the oracle.
    pub fn title(&self) -> String {
        match self.language {
            OracleLanguage::Go => "kivgraph Go accuracy against go/types".to_string(),
            OracleLanguage::TypeScript => {
                let checker = match self.checker.strip_prefix("typescript ") {
                    Some(version) => format!("the TypeScript checker {version}"),
                    None => self.checker.clone(),
                };
                format!("kivgraph TypeScript accuracy against {checker}")
            }
            OracleLanguage::Python => format!("kivgraph Python accuracy against {}", self.checker),
            OracleLanguage::Rust => format!("kivgraph Rust accuracy against {}", self.checker),
        }
    }

    /// The headline figures, one line.
    pub fn headline(&self) -> String {
        format!(
            "{} lines: exact precision {}, recall (all) {}, recall (exact) {}",
            self.corpus.lines,
            self.sites.exact_precision.show(),
            self.sites.recall_all.show(),
            self.sites.recall_exact.show()
        )
    }
}
