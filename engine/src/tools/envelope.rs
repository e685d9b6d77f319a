//! The envelope every JSON answer shares: `snapshot_id`, `total`, `returned`, `truncated`,
//! `next_cursor`, `coverage`, `completeness` with its verdict and grep fallback, `guidance` and
//! `results`, plus paging by cursor.

use std::time::{SystemTime, UNIX_EPOCH};

use kivgraph_format::{Confidence, Generation};
use serde_json::{Map, Value, json};

use crate::cursor;
use crate::query::{self, ToolError};

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

impl Coverage {
    /// `exact` and `candidate` counted over the confidences of the rows.
    pub(crate) fn of(confidences: impl IntoIterator<Item = Confidence>) -> Coverage {
        let mut c = Coverage::default();
        for conf in confidences {
            if conf.is_exact() {
                c.exact += 1;
            } else if conf == Confidence::Candidate {
                c.candidate += 1;
            }
        }
        c
    }
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

impl Envelope {
    /// `returned` rows of `total`, with no coverage, completeness or guidance to report.
    pub(crate) fn rows(
        total: usize,
        returned: usize,
        next_cursor: Option<String>,
        results: Value,
    ) -> Envelope {
        Envelope {
            total: total as u64,
            returned: returned as u64,
            next_cursor,
            coverage: Coverage::default(),
            completeness: None,
            guidance: None,
            results,
            more: None,
        }
    }

    /// An answer that is one whole result.
    pub(crate) fn single(results: Value) -> Envelope {
        Envelope::rows(1, 1, None, results)
    }
}

/// The guidance of a page of `returned` rows out of `total`: `empty` when there are none, what
/// narrows the question when the page is truncated, nothing otherwise.
pub(crate) fn page_guidance(
    returned: usize,
    total: usize,
    narrow: &str,
    empty: impl FnOnce() -> &'static str,
) -> Option<String> {
    if total == 0 {
        Some(empty().to_string())
    } else if returned < total {
        Some(showing(returned, total, narrow))
    } else {
        None
    }
}

/// The guidance of a truncated page: what narrows the question, and the cursor.
pub(crate) fn showing(returned: usize, total: usize, narrow: &str) -> String {
    format!(
        "showing {returned} of {total}; narrow with {narrow}, or pass the cursor for the next page"
    )
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
///
/// What an entry would only repeat is left out (optional fields of a completeness entry): the
/// `requested_symbol` when the blind spots are failures that named the subject (`naming`) and it
/// is the subject's name (the fallback pattern names it), and a `detail` that an earlier entry of
/// the same list and reason already gave.
pub(crate) fn completeness(
    g: &Generation,
    name: &str,
    blind: &[u32],
    naming: bool,
    scopes: &[u32],
) -> Value {
    if blind.is_empty() && scopes.is_empty() {
        return json!({"verdict": "COMPLETE"});
    }
    let entry = |i: u32, said: &mut std::collections::HashSet<(String, String)>| {
        let f = query::failure(g, i);
        let mut m = Map::new();
        m.insert("reason".into(), json!(f.reason));
        m.insert("repository".into(), json!(f.repository));
        if let Some(p) = &f.file_path {
            m.insert("file_path".into(), json!(p));
            m.insert("start_line".into(), json!(f.start_line));
        }
        if let Some(s) = &f.requested_symbol
            && !(naming && s == name)
        {
            m.insert("requested_symbol".into(), json!(s));
        }
        m.insert("requested_package".into(), json!(f.requested_package));
        if let Some(d) = &f.detail
            && said.insert((f.reason.to_string(), d.to_string()))
        {
            m.insert("detail".into(), json!(d));
        }
        (Value::Object(m), f)
    };
    let mut out = Map::new();
    out.insert("verdict".into(), json!("LOWER_BOUND"));
    let mut paths: Vec<String> = Vec::new();
    // Every record adds its path to the fallback, read straight off the blob with each
    // repository's checkout looked up once; only the first 20 become entries.
    let b = g.graph();
    let mut roots: rustc_hash::FxHashMap<u32, Option<String>> = Default::default();
    // Records come in (repository, file) order, so a file's records are consecutive; a file
    // met again out of order makes a duplicate path that the dedup below removes.
    let mut last_file = kivgraph_format::NONE;
    for (label, more, list) in [
        ("blind_spots", "more_blind_spots", blind),
        ("invisible_scopes", "more_invisible_scopes", scopes),
    ] {
        if list.is_empty() {
            continue;
        }
        let mut entries = Vec::new();
        let mut said = std::collections::HashSet::new();
        // Thousands of records name thousands of files whose paths lie scattered over the
        // string table, each reached through a chain of reads (record, file, where the path
        // ends, its bytes) that miss the cache one after the other. The chain is walked ahead
        // of the loop, one link per eight records: record 32 ahead, its file 24 ahead, where
        // its path starts 16 ahead, its bytes 8 ahead, each from what the link before loaded.
        // Hints only: records are read unchecked here (no damage is noted ahead of the reads
        // below, which check them).
        let file_of = |n: usize| {
            let file = b.unresolved.hint(*list.get(n)? as usize)?.file.to_native();
            (file != kivgraph_format::NONE).then_some(file)
        };
        let path_of = |n: usize| Some(b.files.hint(file_of(n)? as usize)?.path.to_native());
        for (n, &i) in list.iter().enumerate() {
            if let Some(&ahead) = list.get(n + 32) {
                b.unresolved.prefetch(ahead as usize);
            }
            if let Some(file) = file_of(n + 24) {
                b.files.prefetch(file as usize);
            }
            if let Some(p) = path_of(n + 16) {
                b.strings.prefetch_end(p);
            }
            if let Some(p) = path_of(n + 8) {
                b.strings.prefetch(p);
            }
            let u = &b.unresolved[i as usize];
            let repo = u.repository.to_native();
            let root = roots
                .entry(repo)
                .or_insert_with(|| crate::checkouts::root_of(g, repo))
                .as_deref();
            let file = u.file.to_native();
            if file != kivgraph_format::NONE {
                // A file's records are consecutive: its path is made once for them (a file
                // met again later is made again, and the dedup below drops the copy).
                if file == last_file {
                    if entries.len() < 20 {
                        entries.push(entry(i, &mut said).0);
                    }
                    continue;
                }
                last_file = file;
                let p = b.strings.get(b.files[file as usize].path.to_native());
                paths.push(match root {
                    Some(r) => join(r, p),
                    None => p.to_string(),
                });
            } else if let Some(d) = b.strings.opt(u.detail.to_native())
                && let Some((_, dir)) = d.rsplit_once(" in ")
            {
                // A repository-relative directory (an older generation wrote it absolute).
                paths.push(match root {
                    Some(r) if !dir.starts_with('/') && dir == "." => r.to_string(),
                    Some(r) if !dir.starts_with('/') => join(r, dir),
                    _ => dir.to_string(),
                });
            }
            if entries.len() < 20 {
                entries.push(entry(i, &mut said).0);
            }
        }
        out.insert(label.into(), Value::Array(entries));
        if list.len() > 20 {
            out.insert(more.into(), json!(list.len() - 20));
        }
    }
    // Records come in file order, so the paths are mostly in order already: one sort, cheap on
    // sorted runs, instead of a tree insert each.
    paths.sort_unstable();
    paths.dedup();
    // A question with no name (an outline) gets paths alone: there is nothing to grep for.
    // The strings move into the answer (`json!` would copy each one).
    let paths = Value::Array(paths.into_iter().map(Value::String).collect());
    let fallback = if name.is_empty() {
        json!({"paths": paths})
    } else {
        json!({"pattern": fallback_pattern(name), "paths": paths})
    };
    out.insert("fallback".into(), fallback);
    Value::Object(out)
}

/// `root/path`, allocated once at its length (thousands of these make a large fallback).
fn join(root: &str, path: &str) -> String {
    let mut s = String::with_capacity(root.len() + 1 + path.len());
    s.push_str(root);
    s.push('/');
    s.push_str(path);
    s
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
