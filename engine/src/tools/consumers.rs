//! find_cross_repo_consumers: who uses a symbol from another repository, with exact uses kept
//! apart from package-level dependencies and from requests that could not be followed.

use kivgraph_format::{Confidence, EdgeKind, Generation};
use serde_json::{Map, Value, json};

use super::args::{PAGE_ARGS, ROW_VIEWS, SELECTOR_ARGS, object_schema, page_props, with_props};
use super::references::parse_repo;
use super::shape::{self, group_by, put_symbol_fields, smaller};
use super::{Args, Coverage, Envelope, completeness, page_guidance, render, selector_props};
use crate::query::{self, Consumer, ToolError};

pub(crate) fn schema() -> Value {
    let p = with_props(
        selector_props(),
        json!({
            "repo": {"type": "string", "description": "Only consumers in this repository"},
            "language": {"type": "string"}
        }),
    );
    object_schema(page_props(p, 500, ROW_VIEWS), &[])
}

/// A consumer spelled field by field (the full row); compact rows are derived from it.
struct Row {
    category: &'static str,
    name: Option<String>,
    qualified_name: Option<String>,
    kind: Option<&'static str>,
    edge_kind: Option<&'static str>,
    repository: String,
    packages: Vec<String>,
    file_path: Option<String>,
    start_line: Option<u32>,
    end_line: Option<u32>,
    confidence: &'static str,
    provenance: Option<&'static str>,
    reason: Option<String>,
    requested_package: Option<String>,
    requested_symbol: Option<String>,
    detail: Option<String>,
    stable_key: Option<String>,
}

fn row(g: &Generation, c: &Consumer) -> Row {
    match c {
        Consumer::Symbol(r) => {
            let s = query::symbol_row(g, r.other);
            Row {
                category: if r.confidence.is_exact() {
                    "exact_symbol"
                } else {
                    "candidate"
                },
                name: Some(s.name.clone()),
                qualified_name: Some(s.qualified_name.clone()),
                kind: Some(s.kind),
                edge_kind: Some(r.kind.as_str()),
                repository: s.repository.clone(),
                packages: vec![s.package_name.clone()],
                file_path: Some(s.file_path.clone()),
                start_line: Some(s.start_line),
                end_line: Some(s.end_line),
                confidence: r.confidence.as_str(),
                provenance: Some(r.provenance.as_str()),
                reason: None,
                requested_package: None,
                requested_symbol: None,
                detail: None,
                stable_key: Some(s.stable_key),
            }
        }
        Consumer::Packages {
            repository,
            packages,
            confidence,
            provenance,
        } => Row {
            category: "package",
            name: None,
            qualified_name: None,
            kind: None,
            edge_kind: Some(EdgeKind::PackageDependsOn.as_str()),
            repository: query::repository_name(g, *repository),
            packages: packages
                .iter()
                .map(|&p| query::package_name(g, p))
                .collect(),
            file_path: None,
            start_line: None,
            end_line: None,
            confidence: confidence.as_str(),
            provenance: Some(provenance.as_str()),
            reason: None,
            requested_package: None,
            requested_symbol: None,
            detail: None,
            stable_key: None,
        },
        Consumer::Unresolved(i) => {
            let f = query::failure(g, *i);
            let pkg = query::failure_package(g, *i);
            Row {
                category: "unresolved",
                name: None,
                qualified_name: None,
                kind: None,
                edge_kind: None,
                repository: f.repository,
                packages: pkg.into_iter().collect(),
                file_path: f.file_path,
                start_line: f.start_line,
                end_line: None,
                confidence: Confidence::Unresolved.as_str(),
                provenance: None,
                reason: Some(f.reason),
                requested_package: Some(f.requested_package),
                requested_symbol: f.requested_symbol,
                detail: f.detail,
                stable_key: None,
            }
        }
    }
}

pub(crate) fn find_cross_repo_consumers(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(args, &[SELECTOR_ARGS, &["repo", "language"], PAGE_ARGS])?;
    let full = a.full_view()?;
    let detailed = a.detailed()?;
    let limit = a.limit(50, 500)?;
    let (repo, repo_idx) = parse_repo(g, &a)?;
    let [language] = a.unpadded(["language"])?;
    let sel = a.selector()?;
    let subject = query::resolve_selector(g, &sel)?;
    let consumers = query::cross_repo_consumers(g, subject, repo_idx, language.as_deref());
    let identity = json!({
        "tool": "find_cross_repo_consumers", "stable_key": sel.stable_key, "qualified_name": sel.qualified_name,
        "repository": sel.repository, "path": sel.path.as_deref().map(query::clean_path).transpose()?, "repo": repo, "language": language,
    });
    let (start, end, next) = a.page(g, consumers.len(), limit, &identity, "consumers-v1")?;
    let rows: Vec<Row> = consumers[start..end].iter().map(|c| row(g, c)).collect();

    let mut coverage = Coverage::default();
    for c in &consumers {
        match c {
            Consumer::Symbol(r) if r.confidence.is_exact() => coverage.exact += 1,
            Consumer::Symbol(_) => coverage.candidate += 1,
            Consumer::Packages { packages, .. } => coverage.package_level += packages.len() as u64,
            Consumer::Unresolved(_) => coverage.unresolved_related += 1,
        }
    }
    let s = query::symbol_row(g, subject);
    let guidance = page_guidance(
        end - start,
        consumers.len(),
        "repo or language",
        || "no repository in the published graph consumes this symbol. Check graph_status if a consumer is registered but was not indexed, and find_references for uses inside its own repository",
    );
    let mut results = Map::new();
    let mut subj = Map::new();
    subj.insert("qualified_name".into(), json!(s.qualified_name));
    if full {
        put_symbol_fields(&mut subj, &s, &["repository", "package_name"]);
        if let Some(m) = &s.module_path {
            subj.insert("module_path".into(), json!(m));
        }
        put_symbol_fields(&mut subj, &s, &["file_path", "start_line", "end_line"]);
        if detailed {
            put_symbol_fields(
                &mut subj,
                &s,
                &["stable_key", "repository_key", "package_key"],
            );
        }
    } else {
        subj.insert("at".into(), json!(shape::address(&s)));
        subj.insert("pkg".into(), json!(s.package_name));
        if let Some(m) = &s.module_path {
            subj.insert("module_path".into(), json!(m));
        }
        if s.end_line != s.start_line {
            subj.insert("end_line".into(), json!(s.end_line));
        }
    }
    results.insert("subject".into(), Value::Object(subj));
    if full {
        let list: Vec<Value> = rows.iter().map(|r| full_row(r, detailed)).collect();
        results.insert(
            "consumers".into(),
            if list.is_empty() {
                Value::Null
            } else {
                Value::Array(list)
            },
        );
    } else {
        compact(&rows, &mut results);
    }
    let scopes = query::scopes_using_symbol(g, subject);
    Ok(render(
        Some(g),
        full,
        Envelope {
            coverage,
            completeness: Some(completeness(g, &s.name, &[], false, &scopes)),
            guidance,
            ..Envelope::rows(consumers.len(), rows.len(), next, Value::Object(results))
        },
    ))
}

fn full_row(r: &Row, detailed: bool) -> Value {
    let mut m = Map::new();
    m.insert("category".into(), json!(r.category));
    for (k, v) in [("name", &r.name), ("qualified_name", &r.qualified_name)] {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    }
    if let Some(k) = r.kind {
        m.insert("kind".into(), json!(k));
    }
    if let Some(k) = r.edge_kind {
        m.insert("edge_kind".into(), json!(k));
    }
    m.insert("repository".into(), json!(r.repository));
    put_packages(&mut m, "package_name", &r.packages);
    if let Some(f) = &r.file_path {
        m.insert("file_path".into(), json!(f));
    }
    if let Some(l) = r.start_line {
        m.insert("start_line".into(), json!(l));
    }
    if let Some(l) = r.end_line {
        m.insert("end_line".into(), json!(l));
    }
    m.insert("confidence".into(), json!(r.confidence));
    if let Some(p) = r.provenance {
        m.insert("provenance".into(), json!(p));
    }
    for (k, v) in [
        ("requested_package", &r.requested_package),
        ("requested_symbol", &r.requested_symbol),
        ("reason", &r.reason),
        ("detail", &r.detail),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    }
    if detailed && let Some(k) = &r.stable_key {
        m.insert("consumer_key".into(), json!(k));
    }
    Value::Object(m)
}

/// The consumer's packages under `key`: absent, one name, or the list.
fn put_packages(m: &mut Map<String, Value>, key: &str, packages: &[String]) {
    match packages {
        [] => {}
        [one] => {
            m.insert(key.into(), json!(one));
        }
        _ => {
            m.insert(key.into(), json!(packages));
        }
    }
}

/// Columns a compact page may hoist to its header, and the ones it may group by.
const HOISTABLE: &[&str] = &[
    "category",
    "edge_kind",
    "confidence",
    "provenance",
    "reason",
    "requested_package",
    "requested_symbol",
];
const GROUPABLE: &[&str] = &[
    "category",
    "edge_kind",
    "confidence",
    "provenance",
    "reason",
];

fn columns(r: &Row) -> Vec<(&'static str, Value)> {
    vec![
        ("category", json!(r.category)),
        ("edge_kind", json!(r.edge_kind)),
        ("confidence", json!(r.confidence)),
        ("provenance", json!(r.provenance)),
        ("reason", json!(r.reason)),
        ("requested_package", json!(r.requested_package)),
        ("requested_symbol", json!(r.requested_symbol)),
        ("detail", json!(r.detail)),
    ]
}

fn compact_row(r: &Row, stated: &[&str]) -> Value {
    let mut m = Map::new();
    for (k, v) in columns(r).into_iter().take(1) {
        if !stated.contains(&k) && !v.is_null() {
            m.insert(k.into(), v);
        }
    }
    m.insert("repo".into(), json!(r.repository));
    put_packages(&mut m, "pkg", &r.packages);
    if let (Some(f), Some(l)) = (&r.file_path, r.start_line) {
        m.insert("at".into(), json!(format!("{f}:{l}")));
    }
    if let (Some(s), Some(e)) = (r.start_line, r.end_line)
        && e != s
    {
        m.insert("end_line".into(), json!(e));
    }
    if let Some(q) = &r.qualified_name {
        m.insert("qualified_name".into(), json!(q));
        if let Some(n) = &r.name
            && !shape::name_after_dot(q, n)
        {
            m.insert("name".into(), json!(n));
        }
    }
    for (k, v) in columns(r).into_iter().skip(1) {
        if !stated.contains(&k) && !v.is_null() {
            m.insert(k.into(), v);
        }
    }
    Value::Object(m)
}

fn compact(rows: &[Row], results: &mut Map<String, Value>) {
    let cols: Vec<Vec<(&'static str, Value)>> = rows.iter().map(columns).collect();
    let mut hoisted: Vec<&str> = Vec::new();
    if let Some(first) = cols.first() {
        for (i, (k, v)) in first.iter().enumerate() {
            if HOISTABLE.contains(k) && !v.is_null() && cols.iter().all(|c| &c[i].1 == v) {
                results.insert((*k).into(), v.clone());
                hoisted.push(k);
            }
        }
    }
    let flat = Value::Array(rows.iter().map(|r| compact_row(r, &hoisted)).collect());
    let vary: Vec<usize> = cols.first().map_or(vec![], |c| {
        c.iter()
            .enumerate()
            .filter(|(_, (k, _))| GROUPABLE.contains(k) && !hoisted.contains(k))
            .map(|(i, _)| i)
            .collect()
    });
    let buckets = group_by(0..cols.len(), |&ri| {
        vary.iter()
            .map(|&i| cols[ri][i].1.clone())
            .collect::<Vec<Value>>()
    });
    if vary.is_empty() || buckets.len() < 2 {
        results.insert("consumers".into(), flat);
        return;
    }
    let groups: Vec<Value> = buckets
        .iter()
        .map(|(key, members)| {
            let mut g = Map::new();
            let mut stated = hoisted.clone();
            for (j, &i) in vary.iter().enumerate() {
                if !key[j].is_null() {
                    g.insert(cols[0][i].0.into(), key[j].clone());
                }
                stated.push(cols[0][i].0);
            }
            // detail is stated once per group when the group agrees.
            let d = &cols[members[0]][7].1;
            if !d.is_null() && members.iter().all(|&m| &cols[m][7].1 == d) {
                g.insert("detail".into(), d.clone());
                stated.push("detail");
            }
            g.insert(
                "consumers".into(),
                Value::Array(
                    members
                        .iter()
                        .map(|&m| compact_row(&rows[m], &stated))
                        .collect(),
                ),
            );
            Value::Object(g)
        })
        .collect();
    let grouped = Value::Array(groups);
    if smaller(&grouped, &flat) {
        results.insert("groups".into(), grouped);
    } else {
        results.insert("consumers".into(), flat);
    }
}
