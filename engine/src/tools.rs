//! The tools: argument validation, the envelope, compact and full views. This is the only layer
//! that knows JSON; it turns query results into the exact text a client receives.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use kivgraph_format::Generation;
use serde_json::{Map, Value, json};

use crate::cursor;
use crate::query::{self, FindSymbol, Mode, Selector, SymbolRow, ToolError};

/// The `instructions` text of `initialize`: the seed's four paragraphs, with the sentence on how
/// edges are resolved stating what this implementation does.
pub const INSTRUCTIONS: &str = "Kivgraph answers \"what breaks if I change this\" from a published code graph over Go, TypeScript, Rust, Python and Dart. Before grepping or reading files to find callers, references or impact, call find_references or get_blast_radius; to read the code they name, call get_source. Check confidence and completeness: Python fallback facts can be CANDIDATE and external Dart packages can be UNRESOLVED.

Its edges are resolved by kivgraph's own scope, import and declared-type analysis of each language, not by matching names: an exact edge follows the language's binding rules, a guess is labelled CANDIDATE, and every reference it could not follow is recorded, so a reference list whose completeness is COMPLETE is the whole story and an empty one means nobody calls it. Grep cannot tell you that.

Rows are addressable: every one carries a repository, a repository-relative path, a qualified name and a line range, and every tool accepts that triple instead of a stable key.

Where it loses: a rare name in a single small repository is cheaper to grep, and one small file is cheaper to read than to outline. It wins on common names, on transitive impact, on cross-repository consumers and on proving an absence.";

/// What the server says before any generation is published.
pub const STALE_INSTRUCTIONS: &str = "Kivgraph has no published code graph yet, so its query tools are not available. Run `kivgraph index --full` (or call index_project with the user's approval) to build one, then restart the MCP server. Until then, use the host's own search and file reading.";

pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub read_only: bool,
    pub schema: fn() -> Value,
}

fn selector_props() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "stable_key".into(),
        json!({"type": "string", "description": "Opaque stable key of the symbol"}),
    );
    m.insert(
        "qualified_name".into(),
        json!({"type": "string", "description": "Qualified name, as rows report it"}),
    );
    m.insert(
        "repository".into(),
        json!({"type": "string", "description": "Repository that declares the symbol"}),
    );
    m.insert("path".into(), json!({"type": "string", "description": "Repository-relative path prefix of the declaring file"}));
    m
}

fn schema_find_symbol() -> Value {
    json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "Name, qualified name, prefix or substring, per mode"},
        "mode": {"type": "string", "enum": ["exact", "qualified_exact", "prefix", "substring"]},
        "kind": {"type": "string", "description": "Symbol kind, e.g. func, method, type"},
        "repo": {"type": "string", "description": "Only this repository"},
        "path_prefix": {"type": "string", "description": "Only files under this repository-relative prefix"},
        "include_derived": {"type": "boolean"},
        "limit": {"type": "integer", "minimum": 0, "maximum": 500},
        "cursor": {"type": "string"},
        "response_format": {"type": "string", "enum": ["concise", "detailed"]},
        "view": {"type": "string", "enum": ["compact", "full"]}
    }, "required": ["name"], "additionalProperties": false})
}

fn schema_get_symbol() -> Value {
    let mut p = selector_props();
    p.insert(
        "response_format".into(),
        json!({"type": "string", "enum": ["concise", "detailed"]}),
    );
    json!({"type": "object", "properties": p, "additionalProperties": false})
}

fn schema_list_repositories() -> Value {
    json!({"type": "object", "properties": {
        "limit": {"type": "integer", "minimum": 0, "maximum": 500},
        "cursor": {"type": "string"}
    }, "additionalProperties": false})
}

fn schema_graph_status() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

/// Tools served once a generation is published.
pub const QUERY_TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "find_symbol",
        title: "Find symbol",
        description: "Where a symbol is declared, by name, qualified name, prefix or substring. Narrow with kind, repo and path_prefix. A unique name in one repository is cheaper to grep.",
        read_only: true,
        schema: schema_find_symbol,
    },
    ToolDef {
        name: "get_symbol",
        title: "Get symbol",
        description: "One symbol's package, signature, visibility and line range, by stable key or by repository, path and qualified name.",
        read_only: true,
        schema: schema_get_symbol,
    },
    ToolDef {
        name: "list_repositories",
        title: "List repositories",
        description: "The repositories the published graph covers, with the commit each was indexed at.",
        read_only: true,
        schema: schema_list_repositories,
    },
    ToolDef {
        name: "graph_status",
        title: "Graph status",
        description: "The published generation: counts, provenance, and whether a repository moved since it was indexed. Call it when an answer looks stale.",
        read_only: true,
        schema: schema_graph_status,
    },
];

// ---- arguments ----

struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    fn new(v: &'a Value, allowed: &[&str]) -> Result<Args<'a>, ToolError> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        let map = match v {
            Value::Object(m) => m,
            Value::Null => EMPTY.get_or_init(Map::new),
            _ => return Err(ToolError::invalid("arguments must be an object")),
        };
        if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(ToolError::invalid(format!(
                "argument {k:?} is not accepted by this tool"
            )));
        }
        Ok(Args { map })
    }

    fn str(&self, k: &str) -> Result<Option<String>, ToolError> {
        match self.map.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ToolError::invalid(format!("{k} must be a string"))),
        }
    }

    fn bool(&self, k: &str) -> Result<bool, ToolError> {
        match self.map.get(k) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ToolError::invalid(format!("{k} must be a boolean"))),
        }
    }

    /// `limit`: absent or 0 = default; otherwise 1..=max, never clamped.
    fn limit(&self, default: u64, max: u64) -> Result<u64, ToolError> {
        match self.map.get("limit") {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match v.as_u64() {
                Some(0) => Ok(default),
                Some(n) if n <= max => Ok(n),
                _ => Err(ToolError::invalid(format!(
                    "limit must be between 1 and {max}"
                ))),
            },
        }
    }

    fn detailed(&self) -> Result<bool, ToolError> {
        match self.str("response_format")?.as_deref() {
            None | Some("concise") => Ok(false),
            Some("detailed") => Ok(true),
            Some(other) => Err(ToolError::invalid(format!(
                "response_format {other:?} is unsupported, use \"concise\" or \"detailed\""
            ))),
        }
    }

    /// `view`: true for full. `files` is refused on tools whose answer is not a set of files.
    fn full_view(&self) -> Result<bool, ToolError> {
        match self.str("view")?.as_deref() {
            None | Some("compact") => Ok(false),
            Some("full") => Ok(true),
            Some("files") => Err(ToolError::invalid(
                "view \"files\" is unsupported for this tool, use \"compact\" or \"full\"",
            )),
            Some(other) => Err(ToolError::invalid(format!(
                "view {other:?} is unsupported, use \"compact\", \"full\" or \"files\""
            ))),
        }
    }

    fn selector(&self) -> Result<Selector, ToolError> {
        Ok(Selector {
            stable_key: self.str("stable_key")?,
            qualified_name: self.str("qualified_name")?,
            repository: self.str("repository")?,
            path: self.str("path")?,
        })
    }
}

// ---- envelope ----

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[derive(Default)]
struct Coverage {
    exact: u64,
    candidate: u64,
    unresolved_related: u64,
    package_level: u64,
}

struct Envelope {
    total: u64,
    returned: u64,
    next_cursor: Option<String>,
    coverage: Coverage,
    completeness: Option<Value>,
    guidance: Option<String>,
    results: Value,
}

fn render(g: Option<&Generation>, full: bool, e: Envelope) -> Value {
    let mut m = Map::new();
    let snapshot = g.map(|g| g.id);
    if full || snapshot.is_some() {
        m.insert("snapshot_id".into(), json!(snapshot));
    }
    if full {
        let age = g.map(|g| now_ms().saturating_sub(g.manifest.created_at_ms));
        m.insert("snapshot_age_ms".into(), json!(age));
    }
    m.insert("total".into(), json!(e.total));
    m.insert("returned".into(), json!(e.returned));
    let truncated = e.returned < e.total;
    if full || truncated {
        m.insert("truncated".into(), json!(truncated));
    }
    if full || e.next_cursor.is_some() {
        m.insert("next_cursor".into(), json!(e.next_cursor));
    }
    let c = &e.coverage;
    let mut cov = Map::new();
    for (k, v) in [
        ("exact", c.exact),
        ("candidate", c.candidate),
        ("unresolved_related", c.unresolved_related),
        ("package_level", c.package_level),
    ] {
        if full || v > 0 {
            cov.insert(k.into(), json!(v));
        }
    }
    if full || !cov.is_empty() {
        m.insert("coverage".into(), Value::Object(cov));
    }
    if let Some(c) = e.completeness {
        m.insert("completeness".into(), c);
    }
    if let Some(gd) = e.guidance {
        m.insert("guidance".into(), json!(gd));
    }
    m.insert("results".into(), e.results);
    Value::Object(m)
}

fn not_ready() -> ToolError {
    ToolError::new(
        "INDEX_NOT_READY",
        "no generation is published yet; index with index_project, or run `kivgraph index --full`",
    )
}

/// Runs one tool on the served generation and returns the text the client receives.
pub fn call(name: &str, args: &Value, g: Option<Arc<Generation>>) -> Result<String, ToolError> {
    let ready = || g.as_deref().ok_or_else(not_ready);
    let value = match name {
        "graph_status" => graph_status(args, g.as_deref())?,
        "find_symbol" => find_symbol(args, ready()?)?,
        "get_symbol" => get_symbol(args, ready()?)?,
        "list_repositories" => list_repositories(args, ready()?)?,
        other => return Err(ToolError::invalid(format!("unknown tool {other:?}"))),
    };
    Ok(serde_json::to_string(&value).unwrap_or_default())
}

/// `\bname\b` with regex metacharacters escaped.
fn fallback_pattern(name: &str) -> String {
    let mut out = String::from("\\b");
    for c in name.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out.push_str("\\b");
    out
}

/// The completeness block over a set of recorded failures (blind spots and invisible scopes).
fn completeness(g: &Generation, name: &str, blind: &[u32], scopes: &[u32]) -> Value {
    if blind.is_empty() && scopes.is_empty() {
        return json!({"verdict": "COMPLETE"});
    }
    let entry = |i: u32| {
        let f = query::failure(g, i);
        let mut m = Map::new();
        m.insert("reason".into(), json!(f.reason));
        m.insert("repository".into(), json!(f.repository));
        if let Some(p) = &f.file_path {
            m.insert("file_path".into(), json!(p));
            m.insert("start_line".into(), json!(f.start_line));
        }
        if let Some(s) = &f.requested_symbol {
            m.insert("requested_symbol".into(), json!(s));
        }
        m.insert("requested_package".into(), json!(f.requested_package));
        if let Some(d) = &f.detail {
            m.insert("detail".into(), json!(d));
        }
        (Value::Object(m), f)
    };
    let mut out = Map::new();
    out.insert("verdict".into(), json!("LOWER_BOUND"));
    let mut paths = std::collections::BTreeSet::new();
    for (label, more, list) in [
        ("blind_spots", "more_blind_spots", blind),
        ("invisible_scopes", "more_invisible_scopes", scopes),
    ] {
        if list.is_empty() {
            continue;
        }
        let mut entries = Vec::new();
        for &i in list {
            let (v, f) = entry(i);
            if let Some(p) = &f.file_path {
                let root = g
                    .graph()
                    .repositories
                    .iter()
                    .find(|r| g.graph().strings.get(r.name.to_native()) == f.repository)
                    .map(|r| g.graph().strings.get(r.root.to_native()).to_string());
                paths.insert(match root {
                    Some(r) => format!("{r}/{p}"),
                    None => p.clone(),
                });
            } else if let Some(d) = &f.detail
                && let Some((_, dir)) = d.rsplit_once(" in ")
            {
                paths.insert(dir.to_string());
            }
            if entries.len() < 20 {
                entries.push(v);
            }
        }
        out.insert(label.into(), Value::Array(entries));
        if list.len() > 20 {
            out.insert(more.into(), json!(list.len() - 20));
        }
    }
    out.insert(
        "fallback".into(),
        json!({"pattern": fallback_pattern(name), "paths": paths.into_iter().collect::<Vec<_>>()}),
    );
    Value::Object(out)
}

/// Applies the cursor and limit to `total` rows; returns (offset, end, next cursor).
fn page(
    g: &Generation,
    total: usize,
    limit: u64,
    cursor: Option<&str>,
    identity: &Value,
    contract: &str,
) -> Result<(usize, usize, Option<String>), ToolError> {
    let offset = match cursor {
        Some(c) => cursor::decode(c, g.id, identity, contract)? as usize,
        None => 0,
    };
    let start = offset.min(total);
    let end = (start + limit as usize).min(total);
    let next = (end < total).then(|| cursor::encode(g.id, end as u64, identity, contract));
    Ok((start, end, next))
}

// ---- find_symbol ----

fn find_symbol(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(
        args,
        &[
            "name",
            "mode",
            "kind",
            "repo",
            "path_prefix",
            "include_derived",
            "limit",
            "cursor",
            "response_format",
            "view",
        ],
    )?;
    let name = a
        .str("name")?
        .ok_or_else(|| ToolError::invalid("name is required"))?;
    if name.is_empty() {
        return Err(ToolError::invalid("name must not be empty"));
    }
    query::check_padding("name", &name)?;
    let mode = match a.str("mode")?.as_deref() {
        None | Some("exact") => Mode::Exact,
        Some("qualified_exact") => Mode::QualifiedExact,
        Some("prefix") => Mode::Prefix,
        Some("substring") => Mode::Substring,
        Some(m) => return Err(ToolError::invalid(format!("mode {m:?} is unsupported"))),
    };
    let kind = a.str("kind")?;
    let repo = a.str("repo")?;
    let path_prefix = a.str("path_prefix")?;
    for (f, v) in [
        ("kind", &kind),
        ("repo", &repo),
        ("path_prefix", &path_prefix),
    ] {
        if let Some(v) = v {
            query::check_padding(f, v)?;
        }
    }
    let limit = a.limit(50, 500)?;
    let detailed = a.detailed()?;
    let full = a.full_view()?;
    let q = FindSymbol {
        name: name.clone(),
        mode,
        kind: kind.clone(),
        repo: repo.clone(),
        path_prefix: path_prefix.clone(),
        include_derived: a.bool("include_derived")?,
    };
    let ids = query::find_symbol(g, &q)?;
    let identity = json!({"tool": "find_symbol", "name": name, "mode": a.str("mode")?.unwrap_or_else(|| "exact".into()), "kind": kind, "repo": repo, "path_prefix": path_prefix});
    let (start, end, next) = page(
        g,
        ids.len(),
        limit,
        a.str("cursor")?.as_deref(),
        &identity,
        "stable-key-v1",
    )?;
    let rows: Vec<SymbolRow> = ids[start..end]
        .iter()
        .map(|&i| query::symbol_row(g, i))
        .collect();
    let repo_idx = repo.as_deref().and_then(|r| query::repository_index(g, r));
    let scopes = query::invisible_scopes(g, repo_idx);
    let results = if full {
        full_symbols(&rows, detailed)
    } else {
        compact_symbols(&rows, detailed)
    };
    Ok(render(
        Some(g),
        full,
        Envelope {
            total: ids.len() as u64,
            returned: rows.len() as u64,
            next_cursor: next,
            coverage: Coverage {
                unresolved_related: query::unresolved_named(g, &name).len() as u64,
                ..Default::default()
            },
            completeness: Some(completeness(g, &name, &[], &scopes)),
            guidance: None,
            results,
        },
    ))
}

fn full_symbols(rows: &[SymbolRow], detailed: bool) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("stable_key".into(), json!(r.stable_key));
                m.insert("name".into(), json!(r.name));
                m.insert("qualified_name".into(), json!(r.qualified_name));
                m.insert("kind".into(), json!(r.kind));
                m.insert("signature".into(), json!(r.signature));
                m.insert("exported".into(), json!(r.exported));
                m.insert("repository".into(), json!(r.repository));
                m.insert("file_path".into(), json!(r.file_path));
                m.insert("start_line".into(), json!(r.start_line));
                m.insert("end_line".into(), json!(r.end_line));
                m.insert("language".into(), json!(r.language));
                if detailed {
                    m.insert(
                        "canonical_identity".into(),
                        json!(query::canonical_identity(r)),
                    );
                }
                Value::Object(m)
            })
            .collect(),
    )
}

/// Whether `name` can be read off the end of `qn` (after a separator) or equals it.
fn name_readable_off(qn: &str, name: &str) -> bool {
    qn == name
        || (qn.ends_with(name) && qn[..qn.len() - name.len()].ends_with(['.', ':', '#', '/']))
}

fn all_same<T: PartialEq>(rows: &[SymbolRow], f: impl Fn(&SymbolRow) -> T) -> Option<T> {
    let first = f(rows.first()?);
    rows.iter().all(|r| f(r) == first).then_some(first)
}

/// Compact find_symbol: header hoisting, object rows, and the grouping bet.
fn compact_symbols(rows: &[SymbolRow], detailed: bool) -> Value {
    let mut header = Map::new();
    let name = all_same(rows, |r| r.name.clone()).filter(|n| !n.is_empty());
    let kind = all_same(rows, |r| r.kind);
    let exported = all_same(rows, |r| r.exported);
    let repository = all_same(rows, |r| r.repository.clone());
    if let Some(n) = &name {
        header.insert("name".into(), json!(n));
    }
    if let Some(k) = kind {
        header.insert("kind".into(), json!(k));
    }
    if let Some(e) = exported {
        header.insert("exported".into(), json!(e));
    }
    if let Some(r) = &repository {
        header.insert("repository".into(), json!(r));
    }
    let row = |r: &SymbolRow, show_kind: bool, show_exported: bool| {
        let mut m = Map::new();
        let at = if repository.is_some() {
            format!("{}:{}", r.file_path, r.start_line)
        } else {
            format!("{}:{}:{}", r.repository, r.file_path, r.start_line)
        };
        m.insert("at".into(), json!(at));
        if r.end_line != r.start_line {
            m.insert("end".into(), json!(r.end_line));
        }
        let qn_shown = r.qualified_name != r.name;
        if name.is_none() && !(qn_shown && name_readable_off(&r.qualified_name, &r.name)) {
            m.insert("name".into(), json!(r.name));
        }
        if qn_shown {
            m.insert("qn".into(), json!(r.qualified_name));
        }
        if show_kind {
            m.insert("kind".into(), json!(r.kind));
        }
        if show_exported {
            m.insert("exported".into(), json!(r.exported));
        }
        if matches!(r.kind, "function" | "func" | "method" | "class")
            && let Some(s) = &r.signature
        {
            m.insert("sig".into(), json!(s));
        }
        if detailed {
            m.insert("stable_key".into(), json!(r.stable_key));
            m.insert(
                "canonical_identity".into(),
                json!(query::canonical_identity(r)),
            );
        }
        Value::Object(m)
    };
    let (vary_kind, vary_exported) = (kind.is_none(), exported.is_none());
    let mut flat = header.clone();
    flat.insert(
        "symbols".into(),
        Value::Array(
            rows.iter()
                .map(|r| row(r, vary_kind, vary_exported))
                .collect(),
        ),
    );
    if !(vary_kind || vary_exported) {
        return Value::Object(flat);
    }
    // Group by the tuple of columns that still vary, in order of first appearance.
    type GroupKey<'k> = (Option<&'k str>, Option<bool>);
    let mut groups: Vec<(GroupKey, Vec<Value>)> = Vec::new();
    for r in rows {
        let key = (
            vary_kind.then_some(r.kind),
            vary_exported.then_some(r.exported),
        );
        let v = row(r, false, false);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(v),
            None => groups.push((key, vec![v])),
        }
    }
    if groups.len() < 2 {
        return Value::Object(flat);
    }
    let mut grouped = header;
    grouped.insert(
        "groups".into(),
        Value::Array(
            groups
                .into_iter()
                .map(|((k, e), list)| {
                    let mut g = Map::new();
                    if let Some(k) = k {
                        g.insert("kind".into(), json!(k));
                    }
                    if let Some(e) = e {
                        g.insert("exported".into(), json!(e));
                    }
                    g.insert("symbols".into(), Value::Array(list));
                    Value::Object(g)
                })
                .collect(),
        ),
    );
    let (flat, grouped) = (Value::Object(flat), Value::Object(grouped));
    if serde_json::to_string(&grouped)
        .map(|s| s.len())
        .unwrap_or(usize::MAX)
        < serde_json::to_string(&flat).map(|s| s.len()).unwrap_or(0)
    {
        grouped
    } else {
        flat
    }
}

// ---- get_symbol ----

fn get_symbol(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(
        args,
        &[
            "stable_key",
            "qualified_name",
            "repository",
            "path",
            "response_format",
        ],
    )?;
    let detailed = a.detailed()?;
    let id = query::resolve_selector(g, &a.selector()?)?;
    let r = query::symbol_row(g, id);
    let mut m = Map::new();
    m.insert("stable_key".into(), json!(r.stable_key));
    m.insert("repository".into(), json!(r.repository));
    m.insert("repository_path".into(), json!(r.repository_path));
    m.insert("package_name".into(), json!(r.package_name));
    m.insert("module_path".into(), json!(r.module_path));
    m.insert("file_path".into(), json!(r.file_path));
    m.insert("name".into(), json!(r.name));
    m.insert("qualified_name".into(), json!(r.qualified_name));
    m.insert("kind".into(), json!(r.kind));
    m.insert("signature".into(), json!(r.signature));
    m.insert("exported".into(), json!(r.exported));
    m.insert("start_line".into(), json!(r.start_line));
    m.insert("end_line".into(), json!(r.end_line));
    if detailed {
        m.insert(
            "canonical_identity".into(),
            json!(query::canonical_identity(&r)),
        );
        m.insert(
            "repository_key".into(),
            json!(kivgraph_format::key::repository_key(&r.repository)),
        );
    }
    Ok(render(
        Some(g),
        true,
        Envelope {
            total: 1,
            returned: 1,
            next_cursor: None,
            coverage: Coverage::default(),
            completeness: None,
            guidance: None,
            results: Value::Object(m),
        },
    ))
}

// ---- list_repositories and graph_status ----

fn repository_value(r: &query::RepositoryRow) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(r.name));
    m.insert("path".into(), json!(r.path));
    m.insert("languages".into(), json!(r.languages));
    if let Some(c) = &r.indexed_commit {
        m.insert("indexed_commit".into(), json!(c));
    }
    if let Some(b) = &r.indexed_branch {
        m.insert("indexed_branch".into(), json!(b));
    }
    if r.indexed_dirty {
        m.insert("indexed_dirty".into(), json!(true));
    }
    if let Some(c) = &r.current_commit {
        m.insert("current_commit".into(), json!(c));
    }
    if let Some(b) = &r.current_branch {
        m.insert("current_branch".into(), json!(b));
    }
    m.insert("moved".into(), json!(r.moved));
    if let Some(d) = &r.moved_detail {
        m.insert("moved_detail".into(), json!(d));
    }
    if r.derived {
        m.insert("derived".into(), json!(true));
    }
    Value::Object(m)
}

fn list_repositories(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(args, &["limit", "cursor"])?;
    let limit = a.limit(50, 500)?;
    let rows = query::repositories(g);
    let identity = json!({"tool": "list_repositories"});
    let (start, end, next) = page(
        g,
        rows.len(),
        limit,
        a.str("cursor")?.as_deref(),
        &identity,
        "stable-key-v1",
    )?;
    let results = Value::Array(rows[start..end].iter().map(repository_value).collect());
    Ok(render(
        Some(g),
        true,
        Envelope {
            total: rows.len() as u64,
            returned: (end - start) as u64,
            next_cursor: next,
            coverage: Coverage::default(),
            completeness: None,
            guidance: None,
            results,
        },
    ))
}

fn graph_status(args: &Value, g: Option<&Generation>) -> Result<Value, ToolError> {
    Args::new(args, &[])?;
    let mut m = Map::new();
    let not_applicable = json!({"state": "not_applicable", "detail": "serve answers from published generations; kivgraph-compile builds them in its own process"});
    match g {
        None => {
            m.insert("status".into(), json!("empty"));
            for k in ["snapshot_id", "snapshot_built_at", "snapshot_age_ms"] {
                m.insert(k.into(), Value::Null);
            }
            m.insert(
                "snapshot_row_format_version".into(),
                json!(kivgraph_format::FORMAT_VERSION),
            );
            m.insert(
                "schema_version".into(),
                json!(kivgraph_format::FORMAT_VERSION),
            );
            m.insert("resolver_version".into(), Value::Null);
            for k in [
                "repositories",
                "packages",
                "files",
                "symbols",
                "evidence",
                "edges",
                "package_edges",
                "unresolved",
            ] {
                m.insert(k.into(), json!(0));
            }
            m.insert("edges_by_kind".into(), json!([]));
            m.insert("unresolved_by_reason".into(), json!([]));
            m.insert("repository_freshness".into(), json!([]));
            m.insert("repositories_moved".into(), json!(0));
        }
        Some(g) => {
            let c = query::counts(g);
            m.insert("status".into(), json!("ready"));
            m.insert("snapshot_id".into(), json!(g.id));
            m.insert("snapshot_built_at".into(), json!(g.manifest.created_at));
            m.insert(
                "snapshot_age_ms".into(),
                json!(now_ms().saturating_sub(g.manifest.created_at_ms)),
            );
            m.insert(
                "snapshot_row_format_version".into(),
                json!(g.manifest.format_version),
            );
            m.insert(
                "schema_version".into(),
                json!(kivgraph_format::FORMAT_VERSION),
            );
            m.insert(
                "resolver_version".into(),
                json!(g.manifest.compiler_version),
            );
            for (k, v) in [
                ("repositories", c.repositories),
                ("packages", c.packages),
                ("files", c.files),
                ("symbols", c.symbols),
                ("evidence", c.evidence),
                ("edges", c.edges),
                ("package_edges", c.package_edges),
                ("unresolved", c.unresolved),
            ] {
                m.insert(k.into(), json!(v));
            }
            m.insert(
                "edges_by_kind".into(),
                Value::Array(
                    c.edges_by_kind
                        .iter()
                        .map(|(k, n)| json!({"key": k, "count": n}))
                        .collect(),
                ),
            );
            m.insert(
                "unresolved_by_reason".into(),
                Value::Array(
                    c.unresolved_by_reason
                        .iter()
                        .map(|(k, n)| json!({"key": k, "count": n}))
                        .collect(),
                ),
            );
            let repos = query::repositories(g);
            m.insert(
                "repository_freshness".into(),
                Value::Array(repos.iter().map(repository_value).collect()),
            );
            m.insert(
                "repositories_moved".into(),
                json!(repos.iter().filter(|r| r.moved).count()),
            );
        }
    }
    m.insert("worker".into(), not_applicable.clone());
    m.insert("storage".into(), not_applicable);
    Ok(render(
        g,
        true,
        Envelope {
            total: 1,
            returned: 1,
            next_cursor: None,
            coverage: Coverage::default(),
            completeness: None,
            guidance: None,
            results: Value::Object(m),
        },
    ))
}
