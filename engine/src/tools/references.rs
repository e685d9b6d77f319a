//! find_references: who calls or references a symbol (incoming), or what it references
//! (outgoing), one hop, with the confidence and provenance of every edge.

use kivgraph_format::{Confidence, EdgeKind, Generation};
use serde_json::{Map, Value, json};

use super::labels::{self, LabelRow};
use super::{Args, Coverage, Envelope, completeness, page, render, selector_props};
use crate::query::{self, Direction, RefFilter, RefRow, ToolError};

pub(crate) fn schema() -> Value {
    let mut p = selector_props();
    p.insert("name".into(), json!({"type": "string", "description": "Unqualified declared name; answers directly when one declaration carries it"}));
    p.insert(
        "direction".into(),
        json!({"type": "string", "enum": ["incoming", "outgoing"]}),
    );
    p.insert(
        "repo".into(),
        json!({"type": "string", "description": "Only rows from this repository"}),
    );
    p.insert(
        "language".into(),
        json!({"type": "string", "description": "Only rows in this language"}),
    );
    p.insert("edge_kinds".into(), json!({"type": "array", "items": {"type": "string"}, "description": "Edge kinds to keep, or [\"*\"] for all"}));
    p.insert(
        "confidence".into(),
        json!({"type": "string", "description": "Keep only edges of this confidence"}),
    );
    p.insert("include_derived".into(), json!({"type": "boolean"}));
    p.insert(
        "limit".into(),
        json!({"type": "integer", "minimum": 0, "maximum": 500}),
    );
    p.insert("cursor".into(), json!({"type": "string"}));
    p.insert(
        "response_format".into(),
        json!({"type": "string", "enum": ["concise", "detailed"]}),
    );
    p.insert(
        "view".into(),
        json!({"type": "string", "enum": ["compact", "full", "files"]}),
    );
    json!({"type": "object", "properties": p, "additionalProperties": false})
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
    match a.map.get("edge_kinds") {
        None | Some(Value::Null) => {
            let kinds: Vec<EdgeKind> = reference_kinds()
                .into_iter()
                .filter(|k| {
                    !default_excludes_exports
                        || !matches!(k, EdgeKind::Exports | EdgeKind::Reexports)
                })
                .collect();
            Ok((kinds, default_excludes_exports, Value::Null))
        }
        Some(Value::Array(items)) => {
            let mut names = Vec::new();
            for it in items {
                let s = it
                    .as_str()
                    .ok_or_else(|| ToolError::invalid("edge_kinds must be a list of strings"))?;
                if s.trim().is_empty() {
                    return Err(ToolError::invalid(
                        "edge_kinds must contain non-empty canonical values",
                    ));
                }
                names.push(s);
            }
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
        Some(_) => Err(ToolError::invalid("edge_kinds must be a list of strings")),
    }
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
            "stable_key",
            "qualified_name",
            "name",
            "repository",
            "path",
            "direction",
            "repo",
            "language",
            "edge_kinds",
            "confidence",
            "include_derived",
            "limit",
            "cursor",
            "response_format",
            "view",
        ],
    )?;
    let view = match a.str("view")?.as_deref() {
        None | Some("compact") => "compact",
        Some("full") => "full",
        Some("files") => "files",
        Some(other) => {
            return Err(ToolError::invalid(format!(
                "view {other:?} is unsupported, use \"compact\", \"full\" or \"files\""
            )));
        }
    };
    let limit = if view == "files"
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
    let (kinds, default_excluded, kinds_echo) = parse_edge_kinds(&a, true)?;
    let confidence = parse_confidence(&a)?;
    let (repo, repo_idx) = parse_repo(g, &a)?;
    let language = a.str("language")?;
    if let Some(l) = &language {
        query::check_padding("language", l)?;
    }
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

    let identity = json!({
        "tool": "find_references",
        "subject": query::symbol_row(g, subject).stable_key,
        "selector": selector,
        "direction": if direction == Direction::Incoming { "incoming" } else { "outgoing" },
        "repo": repo, "language": language, "edge_kinds": kinds_echo,
        "confidence": confidence.map(|c| c.as_str()),
    });
    let (start, end, next) = page(
        g,
        rows.len(),
        limit,
        a.str("cursor")?.as_deref(),
        &identity,
        "references-v1",
    )?;
    let page_rows = &rows[start..end];

    let exact = rows.iter().filter(|r| r.confidence.is_exact()).count() as u64;
    let candidate = rows
        .iter()
        .filter(|r| r.confidence == Confidence::Candidate)
        .count() as u64;
    let blind = query::blind_spots_naming(g, subject);
    let subj = query::symbol_row(g, subject);
    let repo_of_subject = query::repository_index(g, &subj.repository);
    let scopes = query::invisible_scopes(g, repo_of_subject);
    let related = if direction == Direction::Incoming {
        blind.len()
    } else {
        query::failures_made_by(g, subject).len()
    } as u64;
    let complete = blind.is_empty() && scopes.is_empty();

    let guidance = if rows.is_empty() {
        Some(match direction {
            Direction::Outgoing => "this symbol reaches nothing in the published graph. Ask the other direction with direction=incoming".to_string(),
            Direction::Incoming if complete => "nothing references this symbol in the published graph; references are bound by scope, import and declared-type rules and every one that could not be followed is recorded, so this is an absence rather than a miss. Widen with find_cross_repo_consumers, or check graph_status if the tree moved since it was indexed".to_string(),
            Direction::Incoming => "nothing in the published graph references this symbol, but the index recorded places it could not read that ask for this name: read completeness.blind_spots, and grep the fallback pattern over the fallback paths before concluding it is unused".to_string(),
        })
    } else if end - start < rows.len() {
        Some(format!(
            "showing {} of {}; narrow with edge_kinds, confidence, repo or language, or pass the cursor for the next page",
            end - start,
            rows.len()
        ))
    } else {
        None
    };

    let mut results = Map::new();
    let dir_text = if direction == Direction::Incoming {
        "incoming"
    } else {
        "outgoing"
    };
    match view {
        "full" => {
            let mut s = Map::new();
            s.insert("stable_key".into(), json!(subj.stable_key));
            s.insert("name".into(), json!(subj.name));
            s.insert("qualified_name".into(), json!(subj.qualified_name));
            s.insert("kind".into(), json!(subj.kind));
            s.insert("repository".into(), json!(subj.repository));
            s.insert("file_path".into(), json!(subj.file_path));
            s.insert("start_line".into(), json!(subj.start_line));
            results.insert("subject".into(), Value::Object(s));
            results.insert("direction".into(), json!(dir_text));
            results.insert(
                "references".into(),
                Value::Array(page_rows.iter().map(|r| full_row(g, r, detailed)).collect()),
            );
        }
        _ => {
            results.insert(
                "subject".into(),
                json!(format!(
                    "{}:{}:{}",
                    subj.repository, subj.file_path, subj.start_line
                )),
            );
            results.insert("qn".into(), json!(subj.qualified_name));
            results.insert("direction".into(), json!(dir_text));
        }
    }
    if default_excluded {
        results.insert(
            "edge_kinds_default_excluded".into(),
            json!([EdgeKind::Exports.as_str(), EdgeKind::Reexports.as_str()]),
        );
    }
    match view {
        "compact" => {
            let label_rows: Vec<LabelRow> = page_rows.iter().map(|r| label_row(g, r)).collect();
            let (header, key, body) = labels::compact_files(
                &label_rows,
                &["kind", "edge_kind", "confidence", "provenance"],
            );
            for (k, v) in header {
                results.insert(k, v);
            }
            results.insert(key.into(), body);
        }
        "files" => {
            let mut files: Vec<(String, u64)> = Vec::new();
            for r in page_rows {
                let row = query::symbol_row(g, r.other);
                let f = format!("{}/{}", row.repository, row.file_path);
                match files.iter_mut().find(|(x, _)| *x == f) {
                    Some((_, n)) => *n += 1,
                    None => files.push((f, 1)),
                }
            }
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
        _ => {}
    }
    Ok(render(
        Some(g),
        view == "full",
        Envelope {
            total: rows.len() as u64,
            returned: (end - start) as u64,
            next_cursor: next,
            coverage: Coverage {
                exact,
                candidate,
                unresolved_related: related,
                package_level: 0,
            },
            completeness: Some(completeness(g, &subj.name, &blind, &scopes)),
            guidance,
            results: Value::Object(results),
            more: None,
        },
    ))
}

fn full_row(g: &Generation, r: &RefRow, detailed: bool) -> Value {
    let s = query::symbol_row(g, r.other);
    let mut m = Map::new();
    m.insert("name".into(), json!(s.name));
    m.insert("qualified_name".into(), json!(s.qualified_name));
    m.insert("kind".into(), json!(s.kind));
    m.insert("repository".into(), json!(s.repository));
    m.insert("file_path".into(), json!(s.file_path));
    m.insert("start_line".into(), json!(s.start_line));
    m.insert("end_line".into(), json!(s.end_line));
    m.insert("language".into(), json!(s.language));
    m.insert("edge_kind".into(), json!(r.kind.as_str()));
    m.insert("confidence".into(), json!(r.confidence.as_str()));
    m.insert("provenance".into(), json!(r.provenance.as_str()));
    if detailed {
        m.insert("stable_key".into(), json!(s.stable_key));
        m.insert(
            "file_key".into(),
            json!(kivgraph_format::key::file_key(&s.repository, &s.file_path)),
        );
        m.insert(
            "repository_key".into(),
            json!(kivgraph_format::key::repository_key(&s.repository)),
        );
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
