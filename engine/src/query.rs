//! The query layer: plain Rust results straight off the mmapped generation. Nothing here knows
//! JSON; the MCP layer renders these structs.

use std::path::Path;

use kivgraph_format::blob::ArchivedSymbolRec;
use kivgraph_format::key::SymbolIdentity;
use kivgraph_format::{EdgeKind, Generation, Language, NONE, SymbolKind, names};

pub mod intent;

/// A coded tool error: clients branch on `code`, people read `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
        }
    }
    pub fn invalid(message: impl Into<String>) -> ToolError {
        ToolError::new("INVALID_ARGUMENT", message)
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// One symbol as the tools report it.
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolRow {
    pub id: u32,
    pub stable_key: String,
    pub name: String,
    pub qualified_name: String,
    pub kind: &'static str,
    pub signature: Option<String>,
    pub exported: bool,
    pub repository: String,
    pub repository_path: String,
    pub package_name: String,
    pub module_path: Option<String>,
    pub file_path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub language: &'static str,
}

/// Symbol selector: `stable_key` xor `qualified_name` [+ `repository` [+ `path`]].
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub stable_key: Option<String>,
    pub qualified_name: Option<String>,
    pub repository: Option<String>,
    pub path: Option<String>,
}

pub fn symbol_row(g: &Generation, id: u32) -> SymbolRow {
    let b = g.graph();
    let s: &ArchivedSymbolRec = &b.symbols[id as usize];
    let st = &b.strings;
    let repo = &b.repositories[s.repository.to_native() as usize];
    let pkg = &b.packages[s.package.to_native() as usize];
    SymbolRow {
        id,
        stable_key: st.get(s.key.to_native()).to_string(),
        name: st.get(s.name.to_native()).to_string(),
        qualified_name: st.get(s.qualified_name.to_native()).to_string(),
        kind: SymbolKind::from_code(s.kind).map_or("unknown", |k| k.as_str()),
        signature: st.opt(s.signature.to_native()).map(str::to_string),
        exported: s.exported,
        repository: st.get(repo.name.to_native()).to_string(),
        repository_path: st.get(repo.root.to_native()).to_string(),
        package_name: st.get(pkg.name.to_native()).to_string(),
        module_path: st.opt(pkg.module.to_native()).map(str::to_string),
        file_path: st
            .get(b.files[s.file.to_native() as usize].path.to_native())
            .to_string(),
        start_line: s.start_line.to_native(),
        end_line: s.end_line.to_native(),
        language: Language::from_code(s.language).map_or("unknown", |l| l.as_str()),
    }
}

/// The canonical identity behind a row's stable key, for `response_format: "detailed"`.
pub fn canonical_identity(row: &SymbolRow) -> Option<String> {
    let disc: Vec<String> = std::iter::once(String::new())
        .chain((2..=256).map(|n| format!("#{n}")))
        .collect();
    disc.iter().find_map(|d| {
        let id = SymbolIdentity {
            language: row.language,
            repository: &row.repository,
            package: &row.package_name,
            qualified_name: &row.qualified_name,
            kind: row.kind,
            discriminator: d,
        };
        (id.stable_key() == row.stable_key)
            .then(|| String::from_utf8_lossy(&id.canonical()).replace('\0', "\u{2400}"))
    })
}

/// Whether the repository at index `repo` is derived from a toolchain (`rust:<release>`).
pub fn is_derived(g: &Generation, repo: u32) -> bool {
    g.graph()
        .repositories
        .get(repo as usize)
        .is_some_and(|r| r.derived)
}

/// Index of a repository by name.
pub fn repository_index(g: &Generation, name: &str) -> Option<u32> {
    let b = g.graph();
    b.repositories
        .iter()
        .position(|r| b.strings.get(r.name.to_native()) == name)
        .map(|i| i as u32)
}

pub fn check_padding(field: &str, value: &str) -> Result<(), ToolError> {
    if value.trim() != value {
        return Err(ToolError::invalid(format!(
            "{field} must not carry surrounding whitespace"
        )));
    }
    Ok(())
}

/// Validates a repository-relative path argument and trims a trailing `/`.
pub fn clean_path(path: &str) -> Result<String, ToolError> {
    check_padding("path", path)?;
    if path.starts_with('/')
        || Path::new(path).is_absolute()
        || path.as_bytes().get(1) == Some(&b':')
    {
        return Err(ToolError::invalid(
            "path must be repository-relative, not absolute",
        ));
    }
    if path.split(['/', '\\']).any(|seg| seg == "..") {
        return Err(ToolError::invalid("path must not contain a .. segment"));
    }
    Ok(path.trim_end_matches('/').to_string())
}

/// Resolves a selector to exactly one symbol, with the reference's errors.
pub fn resolve_selector(g: &Generation, sel: &Selector) -> Result<u32, ToolError> {
    for (field, v) in [
        ("stable_key", &sel.stable_key),
        ("qualified_name", &sel.qualified_name),
        ("repository", &sel.repository),
    ] {
        if let Some(v) = v {
            check_padding(field, v)?;
        }
    }
    let path = sel.path.as_deref().map(clean_path).transpose()?;
    match (&sel.stable_key, &sel.qualified_name) {
        (None, None) => Err(ToolError::invalid(
            "one of stable_key or qualified_name is required",
        )),
        (Some(_), Some(_)) => Err(ToolError::invalid(
            "pass either stable_key or qualified_name, not both",
        )),
        (Some(key), None) => {
            if sel.repository.is_some() || sel.path.is_some() {
                return Err(ToolError::invalid(
                    "repository and path narrow a qualified_name; a stable_key already names one symbol",
                ));
            }
            let b = g.graph();
            let found = b
                .symbols
                .binary_search_by(|s| b.strings.get(s.key.to_native()).cmp(key.as_str()));
            found.map(|i| i as u32).map_err(|_| {
                ToolError::new("SYMBOL_NOT_FOUND", format!("symbol {key:?} was not found"))
            })
        }
        (None, Some(qn)) => {
            if path.is_some() && sel.repository.is_none() {
                return Err(ToolError::invalid(
                    "path is repository-relative, so it requires repository",
                ));
            }
            let repo = match &sel.repository {
                Some(r) => Some(repository_index(g, r).ok_or_else(|| {
                    ToolError::new(
                        "REPOSITORY_NOT_FOUND",
                        format!("repository {r:?} is not in the published graph"),
                    )
                })?),
                None => None,
            };
            let b = g.graph();
            let mut ids: Vec<u32> = names::lookup(g.names(), names::TAG_QUALIFIED, qn)
                .and_then(|r| b.name_postings.get(r))
                .map(|p| p.iter().map(|x| x.to_native()).collect())
                .unwrap_or_default();
            ids.retain(|&id| {
                let s = &b.symbols[id as usize];
                repo.is_none_or(|r| s.repository.to_native() == r)
                    && path.as_deref().is_none_or(|p| {
                        b.strings
                            .get(b.files[s.file.to_native() as usize].path.to_native())
                            .starts_with(p)
                    })
            });
            match ids.len() {
                1 => Ok(ids[0]),
                0 => Err(ToolError::new(
                    "SYMBOL_NOT_FOUND",
                    match (&sel.repository, &path) {
                        (None, _) => format!("qualified name {qn:?} was not found"),
                        (Some(r), None) => format!(
                            "qualified name {qn:?} was not found under {r}; call it without repository and path to search the whole graph"
                        ),
                        (Some(r), Some(p)) => format!(
                            "qualified name {qn:?} was not found under {r} {p}; call it without repository and path to search the whole graph"
                        ),
                    },
                )),
                n => {
                    let rows: Vec<SymbolRow> = ids.iter().map(|&i| symbol_row(g, i)).collect();
                    Err(ToolError::new(
                        "AMBIGUOUS_SYMBOL",
                        match (&sel.repository, &path) {
                            (Some(r), Some(p)) => format!(
                                "qualified name {qn:?} names {n} symbols in {r} {p}, so only a stable_key separates them: {}",
                                rows.iter()
                                    .map(|r| r.stable_key.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            _ => format!(
                                "qualified name {qn:?} names {n} symbols; narrow with repository and path: {}",
                                rows.iter()
                                    .map(|r| format!(
                                        "{} {}:{}-{}",
                                        r.repository, r.file_path, r.start_line, r.end_line
                                    ))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        },
                    ))
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Exact,
    QualifiedExact,
    Prefix,
    Substring,
}

#[derive(Debug, Clone)]
pub struct FindSymbol {
    pub name: String,
    pub mode: Mode,
    pub kind: Option<String>,
    pub repo: Option<String>,
    pub path_prefix: Option<String>,
    pub include_derived: bool,
}

/// Every match of a find_symbol query, in stable-key order.
pub fn find_symbol(g: &Generation, q: &FindSymbol) -> Result<Vec<u32>, ToolError> {
    let b = g.graph();
    let repo = match &q.repo {
        Some(r) => Some(repository_index(g, r).ok_or_else(|| {
            ToolError::new(
                "REPOSITORY_NOT_FOUND",
                format!("repository {r:?} is not in the published graph"),
            )
        })?),
        None => None,
    };
    let mut ranges = Vec::new();
    match q.mode {
        Mode::Exact => ranges.extend(names::lookup(g.names(), names::TAG_NAME, &q.name)),
        Mode::QualifiedExact => {
            ranges.extend(names::lookup(g.names(), names::TAG_QUALIFIED, &q.name))
        }
        Mode::Prefix => {
            names::for_each_prefix(g.names(), names::TAG_NAME, &q.name, |_, r| ranges.push(r))
        }
        Mode::Substring => names::for_each_prefix(g.names(), names::TAG_NAME, "", |s, r| {
            if s.contains(q.name.as_str()) {
                ranges.push(r)
            }
        }),
    }
    let mut ids: Vec<u32> = ranges
        .into_iter()
        .filter_map(|r| b.name_postings.get(r))
        .flatten()
        .map(|x| x.to_native())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.retain(|&id| {
        let s = &b.symbols[id as usize];
        let r = &b.repositories[s.repository.to_native() as usize];
        q.kind
            .as_deref()
            .is_none_or(|k| SymbolKind::from_code(s.kind).is_some_and(|sk| sk.as_str() == k))
            && repo.is_none_or(|x| s.repository.to_native() == x)
            && (q.include_derived || !r.derived || repo.is_some())
            && q.path_prefix.as_deref().is_none_or(|p| {
                b.strings
                    .get(b.files[s.file.to_native() as usize].path.to_native())
                    .starts_with(p)
            })
    });
    Ok(ids)
}

/// Recorded failures whose requested symbol is exactly `name`.
pub fn unresolved_named(g: &Generation, name: &str) -> Vec<u32> {
    let b = g.graph();
    let idx = &b.unresolved_by_name;
    let key = |i: usize| {
        b.strings.get(
            b.unresolved[idx[i].to_native() as usize]
                .requested_symbol
                .to_native(),
        )
    };
    let start = partition(idx.len(), |i| key(i) < name);
    let end = partition(idx.len(), |i| key(i) <= name);
    (start..end).map(|i| idx[i].to_native()).collect()
}

fn partition(len: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pred(mid) { lo = mid + 1 } else { hi = mid }
    }
    lo
}

/// An unreadable scope or blind spot, as completeness reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub reason: String,
    pub repository: String,
    pub file_path: Option<String>,
    pub start_line: Option<u32>,
    pub requested_package: String,
    pub requested_symbol: Option<String>,
    pub detail: Option<String>,
}

pub fn failure(g: &Generation, i: u32) -> Failure {
    let b = g.graph();
    let u = &b.unresolved[i as usize];
    let st = &b.strings;
    let file = u.file.to_native();
    Failure {
        reason: st.get(u.reason.to_native()).to_string(),
        repository: st
            .get(
                b.repositories[u.repository.to_native() as usize]
                    .name
                    .to_native(),
            )
            .to_string(),
        file_path: (file != NONE)
            .then(|| st.get(b.files[file as usize].path.to_native()).to_string()),
        start_line: (file != NONE).then(|| u.line.to_native()),
        requested_package: st.get(u.requested_package.to_native()).to_string(),
        requested_symbol: st.opt(u.requested_symbol.to_native()).map(str::to_string),
        detail: st.opt(u.detail.to_native()).map(str::to_string),
    }
}

/// Unreadable scopes (records without a file), of one repository or of all.
pub fn invisible_scopes(g: &Generation, repo: Option<u32>) -> Vec<u32> {
    let b = g.graph();
    let repos: Vec<u32> = match repo {
        Some(r) => vec![r],
        None => (0..b.repositories.len() as u32).collect(),
    };
    // Records without a file come first in their repository's block (see unresolved_range).
    repos
        .into_iter()
        .flat_map(|r| unresolved_range(g, r, None))
        .collect()
}

/// The unresolved records of one repository and file (`None`: the file-less ones), found by
/// binary search: records are sorted by repository, then file with file-less records first.
pub fn unresolved_range(g: &Generation, repo: u32, file: Option<u32>) -> std::ops::Range<u32> {
    let b = g.graph();
    let key = |i: usize| {
        let u = &b.unresolved[i];
        let f = u.file.to_native();
        (
            u.repository.to_native(),
            if f == NONE { 0u64 } else { u64::from(f) + 1 },
        )
    };
    let want = (repo, file.map_or(0, |f| u64::from(f) + 1));
    let start = partition(b.unresolved.len(), |i| key(i) < want);
    let end = partition(b.unresolved.len(), |i| key(i) <= want);
    start as u32..end as u32
}

/// One repository with its indexed and current position.
#[derive(Debug, Clone, PartialEq)]
pub struct RepositoryRow {
    pub name: String,
    pub path: String,
    pub languages: Vec<&'static str>,
    pub indexed_commit: Option<String>,
    pub indexed_branch: Option<String>,
    pub indexed_dirty: bool,
    pub current_commit: Option<String>,
    pub current_branch: Option<String>,
    pub moved: bool,
    /// `None` when HEAD could be read and nothing needs saying.
    pub moved_detail: Option<String>,
    /// HEAD could not be read: neither moved nor fresh.
    pub head_unreadable: bool,
    pub derived: bool,
}

fn short(c: &str) -> &str {
    &c[..c.len().min(7)]
}

/// Every repository, in repository-key order, with HEAD read now.
pub fn repositories(g: &Generation) -> Vec<RepositoryRow> {
    let b = g.graph();
    let st = &b.strings;
    b.repositories
        .iter()
        .map(|r| {
            let path = st.get(r.root.to_native()).to_string();
            let indexed_commit = st.opt(r.commit.to_native()).map(str::to_string);
            let indexed_branch = st.opt(r.branch.to_native()).map(str::to_string);
            let mut row = RepositoryRow {
                name: st.get(r.name.to_native()).to_string(),
                languages: r.languages.iter().filter_map(|&c| Language::from_code(c)).map(|l| l.as_str()).collect(),
                indexed_dirty: r.dirty == 1,
                indexed_commit,
                indexed_branch,
                current_commit: None,
                current_branch: None,
                moved: false,
                moved_detail: None,
                head_unreadable: false,
                derived: r.derived,
                path,
            };
            row.languages.sort_unstable();
            if row.derived {
                row.moved_detail = Some("derived from the toolchain, not a registered repository: it has no commit to compare".into());
                return row;
            }
            match kivgraph_format::git::read_head(Path::new(&row.path)) {
                Ok(Some(head)) => {
                    row.current_commit = Some(head.commit);
                    row.current_branch = head.branch;
                }
                Ok(None) => {
                    row.head_unreadable = true;
                    row.moved_detail = Some("the working tree could not be compared with the graph: it is not a git checkout".into());
                }
                Err(e) => {
                    row.head_unreadable = true;
                    row.moved_detail = Some(format!("the working tree could not be compared with the graph: {e}"));
                }
            }
            match (&row.indexed_commit, &row.current_commit) {
                (None, _) if !row.head_unreadable => {
                    row.moved_detail = Some("the graph does not record the commit this repository was indexed at, so it cannot be compared with the working tree".into());
                }
                (Some(i), Some(c)) if i != c => {
                    row.moved = true;
                    let on = |b: &Option<String>| b.clone().unwrap_or_else(|| "a detached HEAD".into());
                    row.moved_detail = Some(format!(
                        "indexed at commit {} on {}, the tree is now at {} on {}",
                        short(i),
                        on(&row.indexed_branch),
                        short(c),
                        on(&row.current_branch)
                    ));
                }
                _ => {}
            }
            row
        })
        .collect()
}

/// Counts for graph_status.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub repositories: u64,
    pub packages: u64,
    pub files: u64,
    pub symbols: u64,
    pub evidence: u64,
    pub edges: u64,
    pub package_edges: u64,
    pub unresolved: u64,
    pub edges_by_kind: Vec<(&'static str, u64)>,
    pub unresolved_by_reason: Vec<(String, u64)>,
}

/// Counts of the served generation, computed once per generation: they never change for it, and
/// a large graph has millions of edges to tally.
pub fn counts(g: &Generation) -> Counts {
    static CACHE: std::sync::Mutex<Option<(std::path::PathBuf, u64, Counts)>> =
        std::sync::Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((dir, id, c)) = cache.as_ref()
        && *dir == g.dir
        && *id == g.id
    {
        return c.clone();
    }
    let c = count_all(g);
    *cache = Some((g.dir.clone(), g.id, c.clone()));
    c
}

fn count_all(g: &Generation) -> Counts {
    let b = g.graph();
    let mut by_kind = std::collections::BTreeMap::new();
    let mut evidence = 0;
    for e in b.forward.edges.iter() {
        *by_kind.entry(e.kind).or_insert(0u64) += 1;
        if e.file.to_native() != NONE {
            evidence += 1;
        }
    }
    let mut by_reason = std::collections::BTreeMap::new();
    for u in b.unresolved.iter() {
        *by_reason
            .entry(b.strings.get(u.reason.to_native()).to_string())
            .or_insert(0u64) += 1;
    }
    let mut edges_by_kind: Vec<(&'static str, u64)> = by_kind
        .into_iter()
        .map(|(k, n)| (EdgeKind::from_code(k).map_or("UNKNOWN", |k| k.as_str()), n))
        .collect();
    edges_by_kind.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut unresolved_by_reason: Vec<(String, u64)> = by_reason.into_iter().collect();
    unresolved_by_reason.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Counts {
        repositories: b.repositories.len() as u64,
        packages: b.packages.len() as u64,
        files: b.files.len() as u64,
        symbols: b.symbols.len() as u64,
        evidence,
        edges: b.forward.edges.len() as u64,
        package_edges: b.package_edges.len() as u64,
        unresolved: b.unresolved.len() as u64,
        edges_by_kind,
        unresolved_by_reason,
    }
}

/// Edge direction relative to the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Incoming,
    Outgoing,
}

/// One relation of the subject: the symbol at the other end, and the edge's attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefRow {
    pub other: u32,
    pub kind: kivgraph_format::EdgeKind,
    pub confidence: kivgraph_format::Confidence,
    pub provenance: kivgraph_format::Provenance,
}

/// Which relations a reference query keeps.
#[derive(Debug, Clone)]
pub struct RefFilter {
    pub kinds: Vec<kivgraph_format::EdgeKind>,
    pub confidence: Option<kivgraph_format::Confidence>,
    pub repo: Option<u32>,
    pub language: Option<String>,
    pub include_derived: bool,
}

/// The subject's single-hop relations, one row per (other end, kind, confidence, provenance),
/// in adjacency order (other end's stable key, then kind, confidence and provenance).
pub fn references(
    g: &Generation,
    subject: u32,
    direction: Direction,
    f: &RefFilter,
) -> Vec<RefRow> {
    use kivgraph_format::{Confidence, EdgeKind, Provenance};
    let b = g.graph();
    let csr = match direction {
        Direction::Incoming => &b.reverse,
        Direction::Outgoing => &b.forward,
    };
    let mut out: Vec<RefRow> = Vec::new();
    for e in csr.row(subject) {
        let (Some(kind), Some(confidence), Some(provenance)) = (
            EdgeKind::from_code(e.kind),
            Confidence::from_code(e.confidence),
            Provenance::from_code(e.provenance.to_native()),
        ) else {
            continue;
        };
        if !f.kinds.contains(&kind) || f.confidence.is_some_and(|c| c != confidence) {
            continue;
        }
        let row = RefRow {
            other: e.other.to_native(),
            kind,
            confidence,
            provenance,
        };
        if out.last() == Some(&row) {
            continue; // another occurrence of the same relation
        }
        let s = &b.symbols[row.other as usize];
        let repo = &b.repositories[s.repository.to_native() as usize];
        if f.repo.is_some_and(|r| r != s.repository.to_native())
            || (repo.derived && !f.include_derived && f.repo.is_none())
            || f.language
                .as_deref()
                .is_some_and(|l| Language::from_code(s.language).is_none_or(|x| x.as_str() != l))
        {
            continue;
        }
        out.push(row);
    }
    out
}

/// Resolves find_references' `name`: the one declaration carrying it, or the coded errors.
pub fn resolve_name(
    g: &Generation,
    name: &str,
    repository: Option<&str>,
    path: Option<&str>,
) -> Result<u32, ToolError> {
    let b = g.graph();
    let repo = match repository {
        Some(r) => Some(repository_index(g, r).ok_or_else(|| {
            ToolError::new(
                "REPOSITORY_NOT_FOUND",
                format!("repository {r:?} is not in the published graph"),
            )
        })?),
        None => None,
    };
    let mut ids: Vec<u32> = names::lookup(g.names(), names::TAG_NAME, name)
        .and_then(|r| b.name_postings.get(r))
        .map(|p| p.iter().map(|x| x.to_native()).collect())
        .unwrap_or_default();
    ids.retain(|&id| {
        let s = &b.symbols[id as usize];
        repo.is_none_or(|r| s.repository.to_native() == r)
            && path.is_none_or(|p| {
                b.strings
                    .get(b.files[s.file.to_native() as usize].path.to_native())
                    .starts_with(p)
            })
    });
    let declared: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&id| {
            !matches!(
                SymbolKind::from_code(b.symbols[id as usize].kind),
                Some(SymbolKind::Import | SymbolKind::Export)
            )
        })
        .collect();
    match declared.len() {
        1 => Ok(declared[0]),
        0 if !ids.is_empty() => Err(ToolError::new(
            "SYMBOL_NOT_FOUND",
            format!(
                "name {name:?} is only imported or re-exported here, never declared; pass the repository and path that declares it"
            ),
        )),
        0 => Err(ToolError::new(
            "SYMBOL_NOT_FOUND",
            match (repository, path) {
                (None, _) => format!("name {name:?} was not found"),
                (Some(r), None) => format!(
                    "name {name:?} was not found under {r}; call it without repository and path to search the whole graph"
                ),
                (Some(r), Some(p)) => format!(
                    "name {name:?} was not found under {r} {p}; call it without repository and path to search the whole graph"
                ),
            },
        )),
        n => {
            let list: Vec<String> = declared
                .iter()
                .map(|&i| {
                    let r = symbol_row(g, i);
                    format!("{}:{}:{}", r.repository, r.file_path, r.start_line)
                })
                .collect();
            Err(ToolError::new(
                "AMBIGUOUS_SYMBOL",
                format!(
                    "name {name:?} declares {n} symbols; repeat with the repository and path of the one you mean: {}",
                    list.join(", ")
                ),
            ))
        }
    }
}

/// Reasons whose record pins the package it asked: such a failure cannot be a use of a symbol
/// of another package.
const PINNED_REASONS: &[&str] = &[
    "STDLIB_NOT_INDEXED",
    "MODULE_PROVIDER_NOT_FOUND",
    "CGO_NOT_INDEXED",
    "DECLARATION_NOT_FOUND",
];

/// Recorded failures that asked for the subject's name and could have been a use of it.
pub fn blind_spots_naming(g: &Generation, subject: u32) -> Vec<u32> {
    let b = g.graph();
    let s = &b.symbols[subject as usize];
    let name = b.strings.get(s.name.to_native());
    let package = b
        .strings
        .get(b.packages[s.package.to_native() as usize].name.to_native());
    unresolved_named(g, name)
        .into_iter()
        .filter(|&i| {
            let u = &b.unresolved[i as usize];
            let reason = b.strings.get(u.reason.to_native());
            !(PINNED_REASONS.contains(&reason)
                && b.strings.get(u.requested_package.to_native()) != package)
        })
        .collect()
}

/// Recorded failures the subject itself made (its own unfollowed references).
pub fn failures_made_by(g: &Generation, subject: u32) -> Vec<u32> {
    let b = g.graph();
    let s = &b.symbols[subject as usize];
    // A failure is recorded in the file of the reference, which is the file of the symbol that
    // made it.
    unresolved_range(g, s.repository.to_native(), Some(s.file.to_native()))
        .filter(|&i| b.unresolved[i as usize].source.to_native() == subject)
        .collect()
}

/// A symbol reached by a traversal, with the edge that first discovered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    pub id: u32,
    pub depth: u32,
    pub from: u32,
    pub via_kind: kivgraph_format::EdgeKind,
    pub via_confidence: kivgraph_format::Confidence,
    pub via_provenance: kivgraph_format::Provenance,
}

/// The result of a bounded breadth-first walk.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// Every reached symbol but the root (and its depth-0 seeds), in discovery order.
    pub nodes: Vec<Reached>,
    /// The walk stopped because `max_nodes` symbols were visited.
    pub truncated: bool,
    /// Distinct relation kinds each reached symbol has with the traversed subgraph.
    pub kinds_touching: Vec<Vec<kivgraph_format::EdgeKind>>,
}

/// How a walk moves.
#[derive(Debug, Clone)]
pub struct WalkSpec {
    /// `Incoming` walks backwards (who is affected), `Outgoing` forwards (what is reached).
    pub direction: Direction,
    pub depth: u32,
    /// Visited symbols, root included.
    pub max_nodes: usize,
    pub kinds: Vec<kivgraph_format::EdgeKind>,
    pub confidence: Option<kivgraph_format::Confidence>,
    /// Blast radius: seed the root's members at depth 0 and cross IMPLEMENTS both ways.
    pub blast: bool,
}

pub fn walk(g: &Generation, root: u32, spec: &WalkSpec) -> Walk {
    use kivgraph_format::{Confidence, EdgeKind, Provenance};
    let b = g.graph();
    let mut visited: std::collections::HashSet<u32> = std::collections::HashSet::new();
    visited.insert(root);
    let mut frontier = vec![root];
    if spec.blast {
        // A type's reach includes its methods': members are seeded at depth 0.
        for e in b.reverse.row(root) {
            if e.kind == EdgeKind::MethodOf.code() && visited.insert(e.other.to_native()) {
                frontier.push(e.other.to_native());
            }
        }
    }
    let decode = |e: &kivgraph_format::blob::ArchivedEdgeRec| {
        Some((
            EdgeKind::from_code(e.kind)?,
            Confidence::from_code(e.confidence)?,
            Provenance::from_code(e.provenance.to_native())?,
        ))
    };
    let keep = |k: EdgeKind, c: Confidence| {
        spec.kinds.contains(&k) && spec.confidence.is_none_or(|x| x == c)
    };
    let mut out = Walk::default();
    'walk: for depth in 1..=spec.depth {
        let mut next = Vec::new();
        for &u in &frontier {
            let mut rows: Vec<&kivgraph_format::blob::ArchivedEdgeRec> = Vec::new();
            match spec.direction {
                Direction::Incoming => rows.extend(b.reverse.row(u)),
                Direction::Outgoing => rows.extend(b.forward.row(u)),
            }
            if spec.blast {
                // Implementations and the interfaces they implement reach each other.
                rows.extend(
                    b.forward
                        .row(u)
                        .iter()
                        .filter(|e| e.kind == EdgeKind::Implements.code()),
                );
            }
            for e in rows {
                let Some((k, c, p)) = decode(e) else { continue };
                if !keep(k, c) {
                    continue;
                }
                let v = e.other.to_native();
                if visited.contains(&v) {
                    continue;
                }
                if visited.len() >= spec.max_nodes {
                    out.truncated = true;
                    break 'walk;
                }
                visited.insert(v);
                next.push(v);
                out.nodes.push(Reached {
                    id: v,
                    depth,
                    from: u,
                    via_kind: k,
                    via_confidence: c,
                    via_provenance: p,
                });
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    out.kinds_touching = out
        .nodes
        .iter()
        .map(|n| {
            let mut ks: Vec<EdgeKind> = b
                .forward
                .row(n.id)
                .iter()
                .chain(b.reverse.row(n.id))
                .filter(|e| visited.contains(&e.other.to_native()))
                .filter_map(&decode)
                .filter(|(k, c, _)| keep(*k, *c))
                .map(|(k, _, _)| k)
                .collect();
            ks.sort();
            ks.dedup();
            ks
        })
        .collect();
    out
}

/// One consumer of a symbol outside its own repository.
#[derive(Debug, Clone, PartialEq)]
pub enum Consumer {
    /// A symbol of another repository with an edge to the subject.
    Symbol(RefRow),
    /// Packages of one repository that depend on the subject's declaring package.
    Packages {
        repository: u32,
        packages: Vec<u32>,
        confidence: kivgraph_format::Confidence,
        provenance: kivgraph_format::Provenance,
    },
    /// A failed request from another repository that asked for the subject's name.
    Unresolved(u32),
}

/// Consumers of `subject` outside its repository: symbol uses (adjacency order), package
/// dependencies on its package (one entry per repository), and unresolved requests for its name.
pub fn cross_repo_consumers(
    g: &Generation,
    subject: u32,
    repo: Option<u32>,
    language: Option<&str>,
) -> Vec<Consumer> {
    use kivgraph_format::{Confidence, EdgeKind, Provenance};
    let b = g.graph();
    let s = &b.symbols[subject as usize];
    let home = s.repository.to_native();
    let lang_ok = |code: u8| {
        language.is_none_or(|l| Language::from_code(code).is_some_and(|x| x.as_str() == l))
    };
    let repo_ok = |r: u32| r != home && repo.is_none_or(|x| x == r);
    let filter = RefFilter {
        kinds: EdgeKind::ALL
            .iter()
            .copied()
            .filter(|k| k.is_reference())
            .collect(),
        confidence: None,
        repo: None,
        language: language.map(str::to_string),
        include_derived: true,
    };
    let mut out: Vec<Consumer> = references(g, subject, Direction::Incoming, &filter)
        .into_iter()
        .filter(|r| repo_ok(b.symbols[r.other as usize].repository.to_native()))
        .map(Consumer::Symbol)
        .collect();
    let pkg = s.package.to_native();
    let mut by_repo: Vec<(u32, Vec<u32>, u8, u16)> = Vec::new();
    for e in b.package_edges.iter() {
        if e.target.to_native() != pkg || e.kind != EdgeKind::PackageDependsOn.code() {
            continue;
        }
        let src = e.source.to_native();
        let p = &b.packages[src as usize];
        let r = p.repository.to_native();
        if !repo_ok(r) || !lang_ok(p.language) {
            continue;
        }
        match by_repo.iter_mut().find(|x| x.0 == r) {
            Some(x) => x.1.push(src),
            None => by_repo.push((r, vec![src], e.confidence, e.provenance.to_native())),
        }
    }
    by_repo.sort_by_key(|x| x.0);
    for (r, mut packages, c, p) in by_repo {
        packages.sort_unstable();
        packages.dedup();
        if let (Some(confidence), Some(provenance)) =
            (Confidence::from_code(c), Provenance::from_code(p))
        {
            out.push(Consumer::Packages {
                repository: r,
                packages,
                confidence,
                provenance,
            });
        }
    }
    for i in blind_spots_naming(g, subject) {
        let u = &b.unresolved[i as usize];
        if repo_ok(u.repository.to_native()) && lang_ok(u.language) {
            out.push(Consumer::Unresolved(i));
        }
    }
    out
}

/// What the derived (toolchain) repositories contribute, for graph_status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DerivedCounts {
    pub repositories: Vec<String>,
    pub packages: u64,
    pub files: u64,
    pub symbols: u64,
    /// Edges with both ends in derived repositories.
    pub edges_within: u64,
    /// Edges from a registered repository into a derived one.
    pub edges_inbound: u64,
    pub unresolved: u64,
}

/// `None` when the graph has no derived repository.
pub fn derived_counts(g: &Generation) -> Option<DerivedCounts> {
    let b = g.graph();
    let derived: Vec<bool> = b.repositories.iter().map(|r| r.derived).collect();
    if !derived.iter().any(|&d| d) {
        return None;
    }
    let sym_derived = |s: u32| derived[b.symbols[s as usize].repository.to_native() as usize];
    let mut c = DerivedCounts {
        repositories: b
            .repositories
            .iter()
            .filter(|r| r.derived)
            .map(|r| b.strings.get(r.name.to_native()).to_string())
            .collect(),
        packages: b
            .packages
            .iter()
            .filter(|p| derived[p.repository.to_native() as usize])
            .count() as u64,
        files: b
            .files
            .iter()
            .filter(|f| derived[f.repository.to_native() as usize])
            .count() as u64,
        symbols: b
            .symbols
            .iter()
            .filter(|s| derived[s.repository.to_native() as usize])
            .count() as u64,
        unresolved: b
            .unresolved
            .iter()
            .filter(|u| derived[u.repository.to_native() as usize])
            .count() as u64,
        ..Default::default()
    };
    for src in 0..b.symbols.len() as u32 {
        let from = sym_derived(src);
        for e in b.forward.row(src) {
            match (from, sym_derived(e.other.to_native())) {
                (true, true) => c.edges_within += 1,
                (false, true) => c.edges_inbound += 1,
                _ => {}
            }
        }
    }
    Some(c)
}
