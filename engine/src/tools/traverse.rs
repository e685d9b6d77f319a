//! get_blast_radius (who is affected, walking incoming edges) and trace_dependencies (what is
//! reached, walking outgoing edges): bounded breadth-first walks over the adjacency.

use kivgraph_format::{Generation, Language, SymbolKind};
use serde_json::{Map, Value, json};

use super::args::{PAGE_ARGS, ROW_VIEWS, SELECTOR_ARGS, object_schema, page_props, with_props};
use super::labels::{self, LabelRow};
use super::references::{parse_confidence, parse_edge_kinds, parse_repo};
use super::shape::{self, put_symbol_fields};
use super::{Args, Coverage, Envelope, completeness, page_guidance, render, selector_props};
use crate::query::{self, Direction, Reached, ToolError, WalkSpec};

/// The arguments both walks take besides the selector and the paging switches.
const WALK_ARGS: &[&str] = &[
    "depth",
    "max_nodes",
    "edge_kinds",
    "confidence",
    "include_derived",
];

fn schema(more: Value) -> Value {
    let p = with_props(
        selector_props(),
        json!({
            "depth": {"type": "integer", "minimum": 1, "maximum": 5},
            "max_nodes": {"type": "integer", "minimum": 1, "maximum": 25000},
            "edge_kinds": {"type": "array", "items": {"type": "string"}},
            "confidence": {"type": "string"},
            "include_derived": {"type": "boolean"}
        }),
    );
    object_schema(with_props(page_props(p, 500, ROW_VIEWS), more), &[])
}

pub(crate) fn schema_blast() -> Value {
    schema(json!({
        "kinds": {"type": "array", "items": {"type": "string"}, "description": "Symbol kinds to list, or [\"*\"]"}
    }))
}

pub(crate) fn schema_trace() -> Value {
    schema(json!({"repo": {"type": "string"}, "language": {"type": "string"}}))
}

fn int_arg(a: &Args, key: &str, default: u64, max: u64) -> Result<u64, ToolError> {
    match a.map.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(ToolError::invalid(format!(
                "{key} must be between 1 and {max}"
            ))),
        },
    }
}

/// Kinds listed by default in a blast radius: variables and fields are left out.
const DEFAULT_EXCLUDED_KINDS: &[&str] = &["field", "var", "variable"];

/// `kinds`: which symbol kinds a blast radius lists (never what it walks).
fn parse_kinds(a: &Args) -> Result<(Option<Vec<String>>, Value), ToolError> {
    let Some(kinds) = a.strings("kinds", |_| Ok(()))? else {
        let kinds = SymbolKind::ALL
            .iter()
            .map(|k| k.as_str().to_string())
            .filter(|k| !DEFAULT_EXCLUDED_KINDS.contains(&k.as_str()))
            .collect();
        let echo = json!({"kinds_default_excluded": DEFAULT_EXCLUDED_KINDS});
        return Ok((Some(kinds), echo));
    };
    let mut kinds: Vec<String> = kinds.into_iter().map(str::to_string).collect();
    if kinds.iter().any(|k| k == "*") {
        if kinds.len() != 1 {
            return Err(ToolError::invalid(
                "kinds must be \"*\" alone or a list of symbol kinds",
            ));
        }
        return Ok((None, json!({"kinds": ["*"]})));
    }
    for k in &kinds {
        if SymbolKind::parse(k).is_none() {
            return Err(ToolError::invalid(format!("kind {k:?} is unsupported")));
        }
    }
    kinds.sort();
    kinds.dedup();
    if kinds.is_empty() {
        return Err(ToolError::invalid(
            "kinds must name at least one symbol kind",
        ));
    }
    let echo = json!({"kinds": kinds});
    Ok((Some(kinds), echo))
}

pub(crate) fn get_blast_radius(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    run(args, g, true)
}

pub(crate) fn trace_dependencies(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    run(args, g, false)
}

fn run(args: &Value, g: &Generation, blast: bool) -> Result<Value, ToolError> {
    let own: &[&str] = if blast {
        &["kinds"]
    } else {
        &["repo", "language"]
    };
    let a = Args::new(args, &[SELECTOR_ARGS, WALK_ARGS, own, PAGE_ARGS])?;
    let full = a.full_view()?;
    let detailed = a.detailed()?;
    let limit = a.limit(50, 500)?;
    let depth = int_arg(&a, "depth", 3, 5)? as u32;
    let max_nodes = int_arg(&a, "max_nodes", 5000, 25000)? as usize;
    let (kinds, _, kinds_echo) = parse_edge_kinds(&a, false)?;
    let confidence = parse_confidence(&a)?;
    let (list_kinds, kinds_field) = if blast {
        parse_kinds(&a)?
    } else {
        (None, Value::Null)
    };
    let (repo, repo_idx) = if blast {
        (None, None)
    } else {
        parse_repo(g, &a)?
    };
    let [language] = if blast {
        [None]
    } else {
        a.unpadded(["language"])?
    };
    let include_derived = a.bool("include_derived")?;
    let sel = a.selector()?;
    let root = query::resolve_selector(g, &sel)?;
    let walk = query::walk(
        g,
        root,
        &WalkSpec {
            direction: if blast {
                Direction::Incoming
            } else {
                Direction::Outgoing
            },
            depth,
            max_nodes,
            kinds,
            confidence,
            blast,
        },
    );

    // Filters apply to the listing, never to the walk.
    let b = g.graph();
    let derived = query::derived_repositories(g);
    let listed: Vec<(usize, &Reached)> = walk
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            // Read off the record: a row is built only for the page.
            let s = &b.symbols[n.id as usize];
            let ri = s.repository.to_native();
            let kind = SymbolKind::from_code(s.kind).map_or("unknown", |k| k.as_str());
            let lang = Language::from_code(s.language).map_or("unknown", |l| l.as_str());
            // Derived rows are withheld unless asked for, or named by `repo`: a page decision,
            // the walk itself still crossed them.
            let derived_ok = include_derived
                || repo_idx.is_some()
                || !derived.get(ri as usize).copied().unwrap_or(false);
            derived_ok
                && list_kinds
                    .as_ref()
                    .is_none_or(|ks| ks.iter().any(|k| k == kind))
                && repo_idx.is_none_or(|x| ri == x)
                && language.as_deref().is_none_or(|l| lang == l)
        })
        .collect();
    let root_row = query::symbol_row(g, root);
    let sel_path = sel.path.as_deref().map(query::clean_path).transpose()?;
    let mut identity = json!({
        "tool": if blast { "get_blast_radius" } else { "trace_dependencies" },
        "stable_key": sel.stable_key, "qualified_name": sel.qualified_name, "repository": sel.repository, "path": sel_path,
        "depth": depth, "max_nodes": max_nodes, "edge_kinds": kinds_echo, "confidence": confidence.map(|c| c.as_str()),
    });
    if blast {
        identity["kinds"] = kinds_field.clone();
    } else {
        identity["repo"] = json!(repo);
        identity["language"] = json!(language);
    }
    let contract = if blast {
        "blast-radius-v1"
    } else {
        "dependencies-v1"
    };
    let (start, end, next) = a.page(g, listed.len(), limit, &identity, contract)?;
    let page_rows = &listed[start..end];

    let scopes = if blast {
        // A scope could use any symbol the walk reached, not the root alone.
        let ids: rustc_hash::FxHashSet<u32> = std::iter::once(root)
            .chain(walk.nodes.iter().map(|n| n.id))
            .map(|id| b.symbols[id as usize].package.to_native())
            .collect();
        let packages: std::collections::BTreeSet<&str> = ids
            .into_iter()
            .map(|p| b.strings.get(b.packages[p as usize].name.to_native()))
            .collect();
        let packages: Vec<&str> = packages.into_iter().collect();
        let root_repo = query::repository_index(g, &root_row.repository);
        query::scopes_using(g, &packages, root_repo)
    } else {
        // What the root reaches is read off visible code: a scope the graph could not read is
        // reached by nothing in it (a reference into one is a failure the walk's code made).
        Vec::new()
    };
    let failures = if blast {
        query::blind_spots_naming(g, root)
    } else {
        query::failures_made_by(g, root)
    };
    let deepest = listed.iter().map(|(_, n)| n.depth).max().unwrap_or(0);
    let narrow = "depth, max_nodes, edge_kinds or confidence";
    let guidance = page_guidance(
        end - start,
        listed.len(),
        narrow,
        || "the traversal reached nothing within its bounds; raise depth, or call find_references for the direct relations only",
    );

    let mut results = Map::new();
    if full {
        results.insert("root_key".into(), json!(root_row.stable_key));
        results.insert("root_repository".into(), json!(root_row.repository));
    } else {
        // The compact view leaves stable keys out: `root` is the triple's address.
        results.insert("root".into(), json!(shape::address(&root_row)));
        results.insert("root_repository".into(), json!(root_row.repository));
    }
    results.insert("depth".into(), json!(depth));
    results.insert("max_nodes".into(), json!(max_nodes));
    if blast && let Value::Object(k) = &kinds_field {
        for (key, v) in k {
            results.insert(key.clone(), v.clone());
        }
    }
    results.insert(
        if blast { "affected" } else { "reached" }.into(),
        json!(if blast {
            listed.len()
        } else {
            walk.nodes.len()
        }),
    );
    results.insert("deepest_depth".into(), json!(deepest));
    if full || walk.truncated {
        results.insert("traversal_truncated".into(), json!(walk.truncated));
    }
    if blast {
        aggregates(g, &walk, &listed, full, &mut results);
    }
    let rows_key = if blast { "symbols" } else { "nodes" };
    if full {
        let rows: Vec<Value> = page_rows
            .iter()
            .map(|(_, n)| full_row(g, n, detailed))
            .collect();
        results.insert(rows_key.into(), Value::Array(rows));
    } else {
        let label_rows: Vec<LabelRow> = page_rows
            .iter()
            .map(|(_, n)| label_row(g, n, detailed))
            .collect();
        labels::put_compact_files(
            &mut results,
            &label_rows,
            &[
                "kind",
                "hop_depth",
                "via_kind",
                "via_confidence",
                "via_provenance",
            ],
        );
    }
    let name = root_row.name.clone();
    Ok(render(
        Some(g),
        full,
        Envelope {
            coverage: Coverage {
                unresolved_related: failures.len() as u64,
                ..Coverage::of(listed.iter().map(|(_, n)| n.via_confidence))
            },
            completeness: Some(completeness(g, &name, &failures, blast, &scopes)),
            guidance,
            ..Envelope::rows(listed.len(), end - start, next, Value::Object(results))
        },
    ))
}

/// by_repository, by_package, by_depth partition the listed symbols; by_kind counts each once per
/// distinct relation kind it has with the walked subgraph.
fn aggregates(
    g: &Generation,
    walk: &query::Walk,
    listed: &[(usize, &Reached)],
    full: bool,
    results: &mut Map<String, Value>,
) {
    // Tallied by record fields; names are read once per group.
    let b = g.graph();
    // Thousands of records scattered over the symbols: each asked for eight ahead.
    let records: Vec<&kivgraph_format::blob::ArchivedSymbolRec> = (0..listed.len())
        .map(|k| {
            if let Some((_, ahead)) = listed.get(k + 8) {
                b.symbols.prefetch(ahead.id as usize);
            }
            &b.symbols[listed[k].1.id as usize]
        })
        .collect();
    // Ids read from records: indexing notes one past its array as damage.
    let repo_name = |r: u32| b.strings.get(b.repositories[r as usize].name.to_native());
    let mut by_repo: Vec<(String, u64)> =
        shape::tally(records.iter().map(|s| s.repository.to_native()))
            .into_iter()
            .map(|(r, n)| (repo_name(r).to_string(), n))
            .collect();
    let mut by_depth = shape::tally(listed.iter().map(|(_, n)| n.depth));
    let mut by_kind = shape::tally(
        listed
            .iter()
            .flat_map(|(i, _)| walk.kinds_touching[*i].iter().map(|k| k.as_str())),
    );
    // One key a (language, repository, package name): records of the same package share it.
    let package_of = |s: &kivgraph_format::blob::ArchivedSymbolRec| {
        let language = Language::from_code(s.language).map_or("unknown", |l| l.as_str());
        let package = b
            .strings
            .get(b.packages[s.package.to_native() as usize].name.to_native());
        (language, repo_name(s.repository.to_native()), package)
    };
    // Packages of the same name in one repository and language share a key: their counts merge.
    let mut merged: rustc_hash::FxHashMap<(&str, &str, &str), u64> = Default::default();
    for (_, members) in shape::group_by(records.iter().copied(), |s| {
        (s.language, s.repository.to_native(), s.package.to_native())
    }) {
        *merged.entry(package_of(members[0])).or_default() += members.len() as u64;
    }
    let by_package = merged;
    let mut by_package: Vec<(String, String, String, u64)> = by_package
        .into_iter()
        .map(|((language, repo, package), n)| {
            (
                kivgraph_format::key::package_key(language, repo, package),
                package.to_string(),
                repo.to_string(),
                n,
            )
        })
        .collect();
    by_repo.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    by_depth.sort();
    by_kind.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    by_package.sort_by(|a, b| b.3.cmp(&a.3).then(a.0.cmp(&b.0)));
    if full {
        results.insert("by_repository".into(), shape::key_counts(&by_repo));
        results.insert(
            "by_depth".into(),
            Value::Array(
                by_depth
                    .iter()
                    .map(|(d, n)| json!({"depth": d, "count": n}))
                    .collect(),
            ),
        );
        results.insert("by_kind".into(), shape::key_counts(&by_kind));
        results.insert(
            "by_package".into(),
            Value::Array(by_package.iter().map(|(k, name, repo, n)| json!({"package_key": k, "package_name": name, "repository": repo, "count": n})).collect()),
        );
        return;
    }
    // Compact: objects keyed by value; an empty axis is absent.
    put_counts(results, "by_depth", &by_depth);
    put_counts(results, "by_kind", &by_kind);
    put_counts(results, "by_repository", &by_repo);
    if !by_package.is_empty() {
        let one_repo = by_repo.len() == 1;
        results.insert(
            "by_package".into(),
            Value::Array(
                by_package
                    .iter()
                    .map(|(_, name, repo, n)| {
                        if one_repo {
                            json!({"package": name, "count": n})
                        } else {
                            json!({"package": name, "count": n, "repository": repo})
                        }
                    })
                    .collect(),
            ),
        );
    }
}

/// A tally as an object keyed by value, left out when empty.
fn put_counts<K: std::fmt::Display>(
    results: &mut Map<String, Value>,
    key: &str,
    counts: &[(K, u64)],
) {
    if !counts.is_empty() {
        let object = counts.iter().map(|(k, n)| (k.to_string(), json!(n)));
        results.insert(key.into(), Value::Object(object.collect()));
    }
}

fn full_row(g: &Generation, n: &Reached, detailed: bool) -> Value {
    let r = query::symbol_row(g, n.id);
    let from = query::symbol_row(g, n.from);
    let mut m = Map::new();
    put_symbol_fields(&mut m, &r, &["name", "qualified_name", "kind"]);
    m.insert("depth".into(), json!(n.depth));
    put_symbol_fields(
        &mut m,
        &r,
        &[
            "repository",
            "language",
            "file_path",
            "start_line",
            "end_line",
        ],
    );
    m.insert("reached_from".into(), json!(from.qualified_name));
    m.insert("via_kind".into(), json!(n.via_kind.as_str()));
    m.insert("via_confidence".into(), json!(n.via_confidence.as_str()));
    m.insert("via_provenance".into(), json!(n.via_provenance.as_str()));
    if detailed {
        put_symbol_fields(&mut m, &r, &["stable_key", "file_key"]);
        m.insert("reached_from_key".into(), json!(from.stable_key));
    }
    Value::Object(m)
}

fn label_row(g: &Generation, n: &Reached, detailed: bool) -> LabelRow {
    let r = query::symbol_row(g, n.id);
    let from = query::symbol_row(g, n.from);
    LabelRow {
        label: labels::label(&r.qualified_name, &r.name, r.start_line, r.end_line),
        cols: vec![
            labels::name_column(&r.qualified_name, &r.name),
            ("kind", json!(r.kind)),
            ("hop_depth", json!(n.depth)),
            ("reached_from", json!(from.qualified_name)),
            ("via_kind", json!(n.via_kind.as_str())),
            ("via_confidence", json!(n.via_confidence.as_str())),
            ("via_provenance", json!(n.via_provenance.as_str())),
            (
                "stable_key",
                if detailed {
                    json!(r.stable_key)
                } else {
                    Value::Null
                },
            ),
        ],
        repo: r.repository,
        file: r.file_path,
    }
}
