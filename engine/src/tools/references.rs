//! find_references: who calls or references a symbol (incoming), or what it references
//! (outgoing), one hop, with the confidence and provenance of every edge.

use kivgraph_format::{Confidence, EdgeKind, Generation};
use serde_json::{Map, Value, json};

use super::args::{FILE_VIEWS, PAGE_ARGS, SELECTOR_ARGS, object_schema, page_props, with_props};
use super::labels::{self, LabelRow};
use super::shape::{self, NAMED_AT, put_symbol_fields};
use super::{Args, Coverage, Envelope, View, completeness, page_guidance, render, selector_props};
use crate::query::{self, Direction, RefFilter, RefRow, ToolError};

pub(crate) fn schema() -> Value {
    let p = with_props(
        selector_props(),
        json!({
            "name": {"type": "string", "description": "Unqualified declared name; answers directly when one declaration carries it"},
            "direction": {"type": "string", "enum": ["incoming", "outgoing"]},
            "repo": {"type": "string", "description": "Only rows from this repository"},
            "language": {"type": "string", "description": "Only rows in this language"},
            "edge_kinds": {"type": "array", "items": {"type": "string"}, "description": "Edge kinds to keep, or [\"*\"] for all"},
            "confidence": {"type": "string", "description": "Keep only edges of this confidence"},
            "include_derived": {"type": "boolean"}
        }),
    );
    object_schema(page_props(p, 500, FILE_VIEWS), &[])
}

/// The reference vocabulary accepted by `edge_kinds`.
fn reference_kinds() -> Vec<EdgeKind> {
    EdgeKind::ALL
        .iter()
        .copied()
        .filter(|k| k.is_reference())
        .collect()
}

/// `edge_kinds`: the kinds kept, and whether the default exclusion applied.
pub(crate) fn parse_edge_kinds(
    a: &Args,
    default_excludes_exports: bool,
) -> Result<(Vec<EdgeKind>, bool, Value), ToolError> {
    let non_empty = |s: &str| {
        if s.trim().is_empty() {
            return Err(ToolError::invalid(
                "edge_kinds must contain non-empty canonical values",
            ));
        }
        Ok(())
    };
    let Some(names) = a.strings("edge_kinds", non_empty)? else {
        let kinds: Vec<EdgeKind> = reference_kinds()
            .into_iter()
            .filter(|k| {
                !default_excludes_exports || !matches!(k, EdgeKind::Exports | EdgeKind::Reexports)
            })
            .collect();
        return Ok((kinds, default_excludes_exports, Value::Null));
    };
    if names.contains(&"*") {
        if names.len() != 1 {
            return Err(ToolError::invalid(
                "edge_kinds must be \"*\" alone or a list of canonical kinds",
            ));
        }
        return Ok((reference_kinds(), false, json!(["*"])));
    }
    let mut kinds = Vec::new();
    for s in names {
        match EdgeKind::parse(s).filter(|k| k.is_reference()) {
            Some(k) => kinds.push(k),
            None => {
                return Err(ToolError::invalid(format!(
                    "edge kind {s:?} is unsupported for symbol references"
                )));
            }
        }
    }
    kinds.sort();
    kinds.dedup();
    if kinds.is_empty() {
        return Err(ToolError::invalid(
            "edge_kinds must contain non-empty canonical values",
        ));
    }
    let echo = json!(kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>());
    Ok((kinds, false, echo))
}

pub(crate) fn parse_confidence(a: &Args) -> Result<Option<Confidence>, ToolError> {
    match a.str("confidence")? {
        None => Ok(None),
        Some(c) => Confidence::parse(&c)
            .map(Some)
            .ok_or_else(|| ToolError::invalid(format!("confidence {c:?} is unsupported"))),
    }
}

pub(crate) fn parse_repo(
    g: &Generation,
    a: &Args,
) -> Result<(Option<String>, Option<u32>), ToolError> {
    let repo = a.str("repo")?;
    let idx = match &repo {
        Some(r) => {
            query::check_padding("repo", r)?;
            Some(query::require_repository(g, r)?)
        }
        None => None,
    };
    Ok((repo, idx))
}

/// The subject of find_references: `stable_key`, `qualified_name` or `name`.
fn subject(g: &Generation, a: &Args) -> Result<(u32, Value), ToolError> {
    let sel = a.selector()?;
    let name = a.str("name")?;
    // A stable key with a path is refused by the selector rules with their own message.
    if let Some(p) = &sel.path
        && sel.repository.is_none()
        && sel.stable_key.is_none()
    {
        let _ = query::clean_path(p)?;
        let extra = if a.str("repo")?.is_some() {
            "; repo only filters which repositories the answer may come from"
        } else {
            ""
        };
        return Err(ToolError::invalid(format!(
            "path is repository-relative, so it requires repository{extra}"
        )));
    }
    match name {
        Some(n) => {
            if sel.stable_key.is_some() || sel.qualified_name.is_some() {
                return Err(ToolError::invalid(
                    "name identifies a declaration on its own; pass stable_key or qualified_name instead, not both",
                ));
            }
            query::check_padding("name", &n)?;
            if n.is_empty() {
                return Err(ToolError::invalid("name must not be empty"));
            }
            if let Some(r) = &sel.repository {
                query::check_padding("repository", r)?;
            }
            let path = sel.path.as_deref().map(query::clean_path).transpose()?;
            let id = query::resolve_name(g, &n, sel.repository.as_deref(), path.as_deref())?;
            Ok((
                id,
                json!({"name": n, "repository": sel.repository, "path": path}),
            ))
        }
        None => {
            let id = query::resolve_selector(g, &sel)?;
            let path = sel.path.as_deref().map(query::clean_path).transpose()?;
            Ok((
                id,
                json!({"stable_key": sel.stable_key, "qualified_name": sel.qualified_name, "repository": sel.repository, "path": path}),
            ))
        }
    }
}

pub(crate) fn find_references(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(
        args,
        &[
            SELECTOR_ARGS,
            &[
                "name",
                "direction",
                "repo",
                "language",
                "edge_kinds",
                "confidence",
                "include_derived",
            ],
            PAGE_ARGS,
        ],
    )?;
    let view = a.view()?;
    let limit = if view == View::Files
        && a.map
            .get("limit")
            .is_none_or(|v| v.is_null() || v.as_u64() == Some(0))
    {
        500
    } else {
        a.limit(50, 500)?
    };
    let detailed = a.detailed()?;
    let direction = match a.str("direction")?.as_deref() {
        None | Some("incoming") => Direction::Incoming,
        Some("outgoing") => Direction::Outgoing,
        Some(d) => {
            return Err(ToolError::invalid(format!(
                "direction {d:?} is unsupported"
            )));
        }
    };
    let dir_text = match direction {
        Direction::Incoming => "incoming",
        Direction::Outgoing => "outgoing",
    };
    let (kinds, default_excluded, kinds_echo) = parse_edge_kinds(&a, true)?;
    let confidence = parse_confidence(&a)?;
    let (repo, repo_idx) = parse_repo(g, &a)?;
    let [language] = a.unpadded(["language"])?;
    let include_derived = a.bool("include_derived")?;
    let (subject, selector) = subject(g, &a)?;
    let filter = RefFilter {
        kinds,
        confidence,
        repo: repo_idx,
        language: language.clone(),
        include_derived,
    };
    let rows = query::references(g, subject, direction, &filter);
    let subj = query::symbol_row(g, subject);

    let identity = json!({
        "tool": "find_references",
        "subject": subj.stable_key,
        "selector": selector,
        "direction": dir_text,
        "repo": repo, "language": language, "edge_kinds": kinds_echo,
        "confidence": confidence.map(|c| c.as_str()),
    });
    let (start, end, next) = a.page(g, rows.len(), limit, &identity, "references-v1")?;
    let page_rows = &rows[start..end];

    let blind = query::blind_spots_naming(g, subject);
    let scopes = query::scopes_using_symbol(g, subject);
    let related = if direction == Direction::Incoming {
        blind.len()
    } else {
        query::failures_made_by(g, subject).len()
    } as u64;
    let complete = blind.is_empty() && scopes.is_empty();

    let narrow = "edge_kinds, confidence, repo or language";
    let guidance = page_guidance(end - start, rows.len(), narrow, || match direction {
        Direction::Outgoing => {
            "this symbol reaches nothing in the published graph. Ask the other direction with direction=incoming"
        }
        Direction::Incoming if complete => {
            "nothing references this symbol in the published graph; references are bound by scope, import and declared-type rules and every one that could not be followed is recorded, so this is an absence rather than a miss. Widen with find_cross_repo_consumers, or check graph_status if the tree moved since it was indexed"
        }
        Direction::Incoming => {
            "nothing in the published graph references this symbol, but the index recorded places it could not read that ask for this name: read completeness.blind_spots, and grep the fallback pattern over the fallback paths before concluding it is unused"
        }
    });

    let mut results = Map::new();
    if view == View::Full {
        let mut s = Map::new();
        put_symbol_fields(&mut s, &subj, &["stable_key"]);
        put_symbol_fields(&mut s, &subj, NAMED_AT);
        results.insert("subject".into(), Value::Object(s));
        results.insert("direction".into(), json!(dir_text));
        results.insert(
            "references".into(),
            Value::Array(page_rows.iter().map(|r| full_row(g, r, detailed)).collect()),
        );
    } else {
        results.insert("subject".into(), json!(shape::address(&subj)));
        results.insert("qn".into(), json!(subj.qualified_name));
        results.insert("direction".into(), json!(dir_text));
    }
    if default_excluded {
        results.insert(
            "edge_kinds_default_excluded".into(),
            json!([EdgeKind::Exports.as_str(), EdgeKind::Reexports.as_str()]),
        );
    }
    match view {
        View::Compact => {
            let label_rows: Vec<LabelRow> = page_rows.iter().map(|r| label_row(g, r)).collect();
            labels::put_compact_files(
                &mut results,
                &label_rows,
                &["kind", "edge_kind", "confidence", "provenance"],
            );
        }
        View::Files => {
            let files = shape::tally(page_rows.iter().map(|r| {
                let row = query::symbol_row(g, r.other);
                format!("{}/{}", row.repository, row.file_path)
            }));
            results.insert(
                "files".into(),
                Value::Array(
                    files
                        .into_iter()
                        .map(|(f, n)| json!({"file": f, "count": n}))
                        .collect(),
                ),
            );
        }
        View::Full => {}
    }
    Ok(render(
        Some(g),
        view == View::Full,
        Envelope {
            coverage: Coverage {
                unresolved_related: related,
                ..Coverage::of(rows.iter().map(|r| r.confidence))
            },
            completeness: Some(completeness(g, &subj.name, &blind, true, &scopes)),
            guidance,
            ..Envelope::rows(rows.len(), end - start, next, Value::Object(results))
        },
    ))
}

fn full_row(g: &Generation, r: &RefRow, detailed: bool) -> Value {
    let s = query::symbol_row(g, r.other);
    let mut m = Map::new();
    put_symbol_fields(&mut m, &s, NAMED_AT);
    put_symbol_fields(&mut m, &s, &["end_line", "language"]);
    m.insert("edge_kind".into(), json!(r.kind.as_str()));
    m.insert("confidence".into(), json!(r.confidence.as_str()));
    m.insert("provenance".into(), json!(r.provenance.as_str()));
    if detailed {
        put_symbol_fields(&mut m, &s, &["stable_key", "file_key", "repository_key"]);
    }
    Value::Object(m)
}

fn label_row(g: &Generation, r: &RefRow) -> LabelRow {
    let s = query::symbol_row(g, r.other);
    LabelRow {
        label: labels::label(&s.qualified_name, &s.name, s.start_line, s.end_line),
        repo: s.repository,
        file: s.file_path,
        cols: vec![
            ("edge_kind", json!(r.kind.as_str())),
            ("kind", json!(s.kind)),
            ("confidence", json!(r.confidence.as_str())),
            ("provenance", json!(r.provenance.as_str())),
        ],
    }
}
