//! The tools: argument validation, the envelope, compact and full views. This is the only layer
//! that knows JSON; it turns query results into the exact text a client receives. Every tool
//! answers JSON except `get_source`, which answers prose (see `source`).

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use kivgraph_format::Generation;
use serde_json::{Map, Value, json};

use crate::cursor;
use crate::query::{self, Selector, ToolError};

mod consumers;
mod intent;
mod labels;
mod outline;
mod references;
mod repos;
mod source;
mod symbols;
mod traverse;

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

pub(crate) fn selector_props() -> Map<String, Value> {
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

// ---- arguments ----

pub(crate) struct Args<'a> {
    pub(crate) map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    pub(crate) fn new(v: &'a Value, allowed: &[&str]) -> Result<Args<'a>, ToolError> {
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

    pub(crate) fn str(&self, k: &str) -> Result<Option<String>, ToolError> {
        match self.map.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ToolError::invalid(format!("{k} must be a string"))),
        }
    }

    pub(crate) fn bool(&self, k: &str) -> Result<bool, ToolError> {
        match self.map.get(k) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ToolError::invalid(format!("{k} must be a boolean"))),
        }
    }

    /// `limit`: absent or 0 = default; otherwise 1..=max, never clamped.
    pub(crate) fn limit(&self, default: u64, max: u64) -> Result<u64, ToolError> {
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

    pub(crate) fn detailed(&self) -> Result<bool, ToolError> {
        match self.str("response_format")?.as_deref() {
            None | Some("concise") => Ok(false),
            Some("detailed") => Ok(true),
            Some(other) => Err(ToolError::invalid(format!(
                "response_format {other:?} is unsupported, use \"concise\" or \"detailed\""
            ))),
        }
    }

    /// `view`: true for full. `files` is refused on tools whose answer is not a set of files.
    pub(crate) fn full_view(&self) -> Result<bool, ToolError> {
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

    /// `view` on a tool that also answers with the set of files.
    pub(crate) fn view(&self) -> Result<View, ToolError> {
        match self.str("view")?.as_deref() {
            None | Some("compact") => Ok(View::Compact),
            Some("full") => Ok(View::Full),
            Some("files") => Ok(View::Files),
            Some(other) => Err(ToolError::invalid(format!(
                "view {other:?} is unsupported, use \"compact\", \"full\" or \"files\""
            ))),
        }
    }

    pub(crate) fn selector(&self) -> Result<Selector, ToolError> {
        Ok(Selector {
            stable_key: self.str("stable_key")?,
            qualified_name: self.str("qualified_name")?,
            repository: self.str("repository")?,
            path: self.str("path")?,
        })
    }
}

/// The three views of a tool whose answer is also a set of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    Compact,
    Full,
    Files,
}

// ---- envelope ----

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[derive(Default)]
pub(crate) struct Coverage {
    pub(crate) exact: u64,
    pub(crate) candidate: u64,
    pub(crate) unresolved_related: u64,
    pub(crate) package_level: u64,
}

pub(crate) struct Envelope {
    pub(crate) total: u64,
    pub(crate) returned: u64,
    pub(crate) next_cursor: Option<String>,
    pub(crate) coverage: Coverage,
    pub(crate) completeness: Option<Value>,
    pub(crate) guidance: Option<String>,
    pub(crate) results: Value,
    /// Overrides `returned < total` for tools that filter a page after paging
    /// (get_file_outline), where only a next page means more.
    pub(crate) more: Option<bool>,
}

pub(crate) fn render(g: Option<&Generation>, full: bool, e: Envelope) -> Value {
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
    let truncated = e.more.unwrap_or(e.returned < e.total);
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

pub(crate) fn not_ready() -> ToolError {
    ToolError::new(
        "INDEX_NOT_READY",
        "no generation is published yet; index with index_project, or run `kivgraph index --full`",
    )
}

/// Runs one tool on the served generation and returns the text the client receives.
pub fn call(name: &str, args: &Value, g: Option<Arc<Generation>>) -> Result<String, ToolError> {
    let ready = || g.as_deref().ok_or_else(not_ready);
    let value = match name {
        // The one tool that answers in prose.
        "get_source" => return source::get_source(args, ready()?),
        "graph_status" => repos::graph_status(args, g.as_deref())?,
        "find_references" => references::find_references(args, ready()?)?,
        "get_blast_radius" => traverse::get_blast_radius(args, ready()?)?,
        "trace_dependencies" => traverse::trace_dependencies(args, ready()?)?,
        "find_cross_repo_consumers" => consumers::find_cross_repo_consumers(args, ready()?)?,
        "find_symbol" => symbols::find_symbol(args, ready()?)?,
        "find_by_intent" => intent::find_by_intent(args, ready()?)?,
        "get_symbol" => symbols::get_symbol(args, ready()?)?,
        "get_file_outline" => outline::get_file_outline(args, ready()?)?,
        "list_repositories" => repos::list_repositories(args, ready()?)?,
        other => return Err(ToolError::invalid(format!("unknown tool {other:?}"))),
    };
    Ok(serde_json::to_string(&value).unwrap_or_default())
}

/// `\bname\b` with regex metacharacters escaped.
pub(crate) fn fallback_pattern(name: &str) -> String {
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
pub(crate) fn completeness(g: &Generation, name: &str, blind: &[u32], scopes: &[u32]) -> Value {
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
    let paths: Vec<String> = paths.into_iter().collect();
    // A question with no name (an outline) gets paths alone: there is nothing to grep for.
    let fallback = if name.is_empty() {
        json!({"paths": paths})
    } else {
        json!({"pattern": fallback_pattern(name), "paths": paths})
    };
    out.insert("fallback".into(), fallback);
    Value::Object(out)
}

/// Applies the cursor and limit to `total` rows; returns (offset, end, next cursor).
pub(crate) fn page(
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

/// Tools served once a generation is published.
pub const QUERY_TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "find_references",
        title: "Find references",
        description: "Who calls or references a symbol. Resolved by scope, import and declared-type rules, not name-matched: grep cannot separate homonyms, and an empty answer with a COMPLETE verdict means nobody calls it. A rare name in one repository is cheaper to grep. A bare name suffices: an ambiguous one returns its candidates, so no lookup call first. `view: \"files\"` answers which files without a line each.",
        read_only: true,
        schema: references::schema,
    },
    ToolDef {
        name: "get_blast_radius",
        title: "Get blast radius",
        description: "What a change to this symbol reaches, by repository, package, depth and relation kind. Grep does not follow a chain.",
        read_only: true,
        schema: traverse::schema_blast,
    },
    ToolDef {
        name: "trace_dependencies",
        title: "Trace dependencies",
        description: "What this symbol reaches outward, bounded by depth. Grep does not follow a chain.",
        read_only: true,
        schema: traverse::schema_trace,
    },
    ToolDef {
        name: "find_cross_repo_consumers",
        title: "Find cross-repository consumers",
        description: "Consumers of a symbol in other repositories, exact uses kept apart from package-level dependencies. A language server stops at its workspace.",
        read_only: true,
        schema: consumers::schema,
    },
    ToolDef {
        name: "find_symbol",
        title: "Find symbol",
        description: "Where a symbol is declared, by name, qualified name, prefix or substring. Narrow with kind, repo and path_prefix. A unique name in one repository is cheaper to grep.",
        read_only: true,
        schema: symbols::schema_find_symbol,
    },
    ToolDef {
        name: "find_by_intent",
        title: "Find by intent",
        description: "Which symbols a plain-language description likely names, and the files to open. Start here when you have no name.",
        read_only: true,
        schema: intent::schema,
    },
    ToolDef {
        name: "get_symbol",
        title: "Get symbol",
        description: "One symbol's package, signature, visibility and line range, by stable key or by repository, path and qualified name.",
        read_only: true,
        schema: symbols::schema_get_symbol,
    },
    ToolDef {
        name: "get_file_outline",
        title: "Get file outline",
        description: "Declarations under a path, grouped by file, with kind, signature and range. Use it for a package; one small file is cheaper to read.",
        read_only: true,
        schema: outline::schema,
    },
    ToolDef {
        name: "get_source",
        title: "Get source",
        description: "The code of several symbols in one call. Prefer it to reading each range: no line numbers, one call across files and repositories.",
        read_only: true,
        schema: source::schema,
    },
    ToolDef {
        name: "list_repositories",
        title: "List repositories",
        description: "The repositories the published graph covers, with the commit each was indexed at.",
        read_only: true,
        schema: repos::schema_list_repositories,
    },
    ToolDef {
        name: "graph_status",
        title: "Graph status",
        description: "The published generation: counts, provenance, and whether a repository moved since it was indexed. Call it when an answer looks stale.",
        read_only: true,
        schema: repos::schema_graph_status,
    },
];
