//! list_repositories and graph_status: answers about the index itself.

use kivgraph_format::Generation;
use serde_json::{Map, Value, json};

use super::shape::key_counts;
use super::{Args, Envelope, now_ms, render};
use crate::query::{self, ToolError};
use crate::store::Problem;

pub(crate) fn schema_list_repositories() -> Value {
    json!({"type": "object", "properties": {
        "limit": {"type": "integer", "minimum": 0, "maximum": 500},
        "cursor": {"type": "string"}
    }, "additionalProperties": false})
}

pub(crate) fn schema_graph_status() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
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

pub(crate) fn list_repositories(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(args, &[&["limit", "cursor"]])?;
    let limit = a.limit(50, 500)?;
    let rows = query::repositories(g);
    let identity = json!({"tool": "list_repositories"});
    let (start, end, next) = a.page(g, rows.len(), limit, &identity, "stable-key-v1")?;
    let results = Value::Array(rows[start..end].iter().map(repository_value).collect());
    Ok(render(
        Some(g),
        true,
        Envelope::rows(rows.len(), end - start, next, results),
    ))
}

pub(crate) fn graph_status(
    args: &Value,
    g: Option<&Generation>,
    problem: Option<&Problem>,
) -> Result<Value, ToolError> {
    Args::new(args, &[])?;
    let mut m = Map::new();
    let not_applicable = json!({"state": "not_applicable", "detail": "serve answers from published generations; kivgraph-compile builds them in its own process"});
    match g {
        None => {
            // "unavailable": something is published but cannot be served (see "problem").
            let status = if problem.is_some() {
                "unavailable"
            } else {
                "empty"
            };
            m.insert("status".into(), json!(status));
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
            // graph_status is where a damaged generation is diagnosed: a part whose reading met
            // damage is left out (null) and the damage is reported, instead of the whole answer
            // being withheld as other tools' are.
            let mut damage: Vec<String> = Vec::new();
            let mut checked = |before: u64| match kivgraph_format::take_damage() {
                Some(d) if kivgraph_format::damage_count() != before => {
                    damage.push(d.to_string());
                    false
                }
                _ => true,
            };
            let before = kivgraph_format::damage_count();
            let c = query::counts(g);
            let tallies_whole = checked(before);
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
            if !tallies_whole {
                m.insert("evidence".into(), Value::Null);
            }
            let before = kivgraph_format::damage_count();
            let derived = query::derived_counts(g);
            if let Some(d) = derived.filter(|_| checked(before)) {
                m.insert(
                    "derived".into(),
                    json!({
                        "repositories": d.repositories, "packages": d.packages, "files": d.files,
                        "symbols": d.symbols, "edges_within": d.edges_within,
                        "edges_inbound": d.edges_inbound, "unresolved": d.unresolved,
                    }),
                );
            }
            if tallies_whole {
                m.insert("edges_by_kind".into(), key_counts(&c.edges_by_kind));
                m.insert(
                    "unresolved_by_reason".into(),
                    key_counts(&c.unresolved_by_reason),
                );
            } else {
                m.insert("edges_by_kind".into(), Value::Null);
                m.insert("unresolved_by_reason".into(), Value::Null);
            }
            let before = kivgraph_format::damage_count();
            let repos = query::repositories(g);
            if checked(before) {
                m.insert(
                    "repository_freshness".into(),
                    Value::Array(repos.iter().map(repository_value).collect()),
                );
                m.insert(
                    "repositories_moved".into(),
                    json!(repos.iter().filter(|r| r.moved).count()),
                );
            } else {
                m.insert("repository_freshness".into(), Value::Null);
                m.insert("repositories_moved".into(), Value::Null);
            }
            if !damage.is_empty() {
                let (_, blocks) = g.blocks_checked();
                m.insert(
                    "damage".into(),
                    json!({"found": damage, "damaged_blocks": blocks, "remedy": "run `kivgraph-compile verify` on the index, and recompile (`kivgraph index --full`) to replace the generation"}),
                );
            }
        }
    }
    m.insert("worker".into(), not_applicable.clone());
    m.insert("storage".into(), not_applicable);
    // Only when the generation CURRENT names is not the one served (damaged, being written).
    if let Some(p) = problem {
        m.insert(
            "problem".into(),
            json!({"generation": p.generation, "message": p.explain()}),
        );
    }
    Ok(render(g, true, Envelope::single(Value::Object(m))))
}
