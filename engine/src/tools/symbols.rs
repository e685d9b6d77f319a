//! find_symbol and get_symbol.

use kivgraph_format::Generation;
use serde_json::{Map, Value, json};

use super::args::{PAGE_ARGS, ROW_VIEWS, SELECTOR_ARGS, object_schema, page_props, props};
use super::shape::{all_same, group_by, name_readable_off, put_symbol_fields, smaller};
use super::{Args, Coverage, Envelope, completeness, render, selector_props};
use crate::query::{self, FindSymbol, Mode, SymbolRow, ToolError};

pub(crate) fn schema_find_symbol() -> Value {
    let p = props(json!({
        "name": {"type": "string", "description": "Name, qualified name, prefix or substring, per mode"},
        "mode": {"type": "string", "enum": ["exact", "qualified_exact", "prefix", "substring"]},
        "kind": {"type": "string", "description": "Symbol kind, e.g. func, method, type"},
        "repo": {"type": "string", "description": "Only this repository"},
        "path_prefix": {"type": "string", "description": "Only files under this repository-relative prefix"},
        "include_derived": {"type": "boolean"}
    }));
    object_schema(page_props(p, 500, ROW_VIEWS), &["name"])
}

pub(crate) fn schema_get_symbol() -> Value {
    let mut p = selector_props();
    p.insert(
        "response_format".into(),
        json!({"type": "string", "enum": ["concise", "detailed"]}),
    );
    object_schema(p, &[])
}

// ---- find_symbol ----

pub(crate) fn find_symbol(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(
        args,
        &[
            &[
                "name",
                "mode",
                "kind",
                "repo",
                "path_prefix",
                "include_derived",
            ],
            PAGE_ARGS,
        ],
    )?;
    let name = a.required("name")?;
    let mode = match a.str("mode")?.as_deref() {
        None | Some("exact") => Mode::Exact,
        Some("qualified_exact") => Mode::QualifiedExact,
        Some("prefix") => Mode::Prefix,
        Some("substring") => Mode::Substring,
        Some(m) => return Err(ToolError::invalid(format!("mode {m:?} is unsupported"))),
    };
    let [kind, repo, path_prefix] = a.unpadded(["kind", "repo", "path_prefix"])?;
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
    let (start, end, next) = a.page(g, ids.len(), limit, &identity, "stable-key-v1")?;
    let rows: Vec<SymbolRow> = ids[start..end]
        .iter()
        .map(|&i| query::symbol_row(g, i))
        .collect();
    let repo_idx = repo.as_deref().and_then(|r| query::repository_index(g, r));
    // A scope counts when it declares a name the query would match (and is under
    // `path_prefix`): only then could it hold a symbol this answer misses.
    let last = name.rsplit('.').next().unwrap_or(&name);
    // The names are sorted: exact and prefix matches are binary searches.
    let scopes: Vec<u32> = query::scopes_declaring(g, repo_idx, |declares| match mode {
        Mode::Exact => declares.binary_search_by(|d| d.as_str().cmp(&name)).is_ok(),
        Mode::QualifiedExact => declares.binary_search_by(|d| d.as_str().cmp(last)).is_ok(),
        Mode::Prefix => {
            let at = declares.partition_point(|d| d.as_str() < name.as_str());
            declares
                .get(at)
                .is_some_and(|d| d.starts_with(name.as_str()))
        }
        Mode::Substring => declares.iter().any(|d| d.contains(name.as_str())),
    })
    .into_iter()
    .filter(|&i| {
        path_prefix.as_deref().is_none_or(|p| {
            query::scope_directory(g, i).is_none_or(|d| {
                let d = if d == "." {
                    String::new()
                } else {
                    format!("{d}/")
                };
                d.starts_with(p) || p.starts_with(&d)
            })
        })
    })
    .collect();
    let results = if full {
        full_symbols(&rows, detailed)
    } else {
        compact_symbols(&rows, detailed)
    };
    Ok(render(
        Some(g),
        full,
        Envelope {
            coverage: Coverage {
                unresolved_related: query::unresolved_named(g, &name).len() as u64,
                ..Default::default()
            },
            completeness: Some(completeness(g, &name, &[], false, &scopes)),
            ..Envelope::rows(ids.len(), rows.len(), next, results)
        },
    ))
}

/// The columns of a full find_symbol row.
const FULL_FIELDS: &[&str] = &[
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
    "language",
];

fn full_symbols(rows: &[SymbolRow], detailed: bool) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let mut m = Map::new();
                put_symbol_fields(&mut m, r, FULL_FIELDS);
                if detailed {
                    put_symbol_fields(&mut m, r, &["canonical_identity"]);
                }
                Value::Object(m)
            })
            .collect(),
    )
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
    let groups = group_by(rows, |r| {
        (
            vary_kind.then_some(r.kind),
            vary_exported.then_some(r.exported),
        )
    });
    if groups.len() < 2 {
        return Value::Object(flat);
    }
    let mut grouped = header;
    grouped.insert(
        "groups".into(),
        Value::Array(
            groups
                .into_iter()
                .map(|((k, e), members)| {
                    let list = members.iter().map(|r| row(r, false, false)).collect();
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
    if smaller(&grouped, &flat) {
        grouped
    } else {
        flat
    }
}

// ---- get_symbol ----

/// The columns of get_symbol's answer.
const GET_FIELDS: &[&str] = &[
    "stable_key",
    "repository",
    "repository_path",
    "package_name",
    "module_path",
    "file_path",
    "name",
    "qualified_name",
    "kind",
    "signature",
    "exported",
    "start_line",
    "end_line",
];

pub(crate) fn get_symbol(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(args, &[SELECTOR_ARGS, &["response_format"]])?;
    let detailed = a.detailed()?;
    let id = query::resolve_selector(g, &a.selector()?)?;
    let r = query::symbol_row(g, id);
    let mut m = Map::new();
    put_symbol_fields(&mut m, &r, GET_FIELDS);
    if detailed {
        put_symbol_fields(&mut m, &r, &["canonical_identity", "repository_key"]);
    }
    Ok(render(Some(g), true, Envelope::single(Value::Object(m))))
}
