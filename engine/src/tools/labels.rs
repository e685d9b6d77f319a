//! The compact shape shared by the tools whose answer is a set of files: rows spelled as
//! labels (`qualified_name@start[-end]`), grouped by file, columns every row agrees on hoisted to
//! the page header, and the grouping bet (rows grouped by the tuple of columns that still vary,
//! kept only when it serializes strictly smaller).

use serde_json::{Map, Value, json};

use super::shape::{group_by, name_after_dot, smaller};

/// One row before spelling: where it is, its label, and its tail columns in the tool's fixed order.
#[derive(Debug, Clone)]
pub(crate) struct LabelRow {
    pub(crate) repo: String,
    pub(crate) file: String,
    pub(crate) label: String,
    /// `(column, value)`; `Value::Null` or `""` is an empty value, skipped in tails.
    pub(crate) cols: Vec<(&'static str, Value)>,
}

/// A label: `qualified_name@start`, or `@start-end` when the declaration spans lines; the bare
/// name when there is no qualified name.
pub(crate) fn label(qualified_name: &str, name: &str, start: u32, end: u32) -> String {
    let base = if qualified_name.is_empty() {
        name
    } else {
        qualified_name
    };
    if end > start {
        format!("{base}@{start}-{end}")
    } else {
        format!("{base}@{start}")
    }
}

/// The `name` column: empty when the qualified name already ends in it.
pub(crate) fn name_column(qualified_name: &str, name: &str) -> (&'static str, Value) {
    let value = if name_after_dot(qualified_name, name) {
        Value::Null
    } else {
        json!(name)
    };
    ("name", value)
}

fn is_empty(v: &Value) -> bool {
    v.is_null() || v.as_str() == Some("")
}

/// Numbers in a tail travel as strings.
fn tail_value(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::String(n.to_string()),
        other => other.clone(),
    }
}

/// The page shape: header entries (including `repository` when every row shares it), then
/// `files` or `groups` (whichever is strictly smaller), in `(key, value)` form.
pub(crate) fn compact_files(
    rows: &[LabelRow],
    groupable: &[&str],
) -> (Map<String, Value>, &'static str, Value) {
    let mut header = Map::new();
    let repo = rows
        .first()
        .map(|r| r.repo.clone())
        .filter(|r| rows.iter().all(|x| &x.repo == r));
    if let Some(r) = &repo {
        header.insert("repository".into(), json!(r));
    }
    let names: Vec<&'static str> = rows
        .first()
        .map(|r| r.cols.iter().map(|c| c.0).collect())
        .unwrap_or_default();
    let mut hoisted: Vec<&'static str> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let first = &rows[0].cols[i].1;
        if !is_empty(first) && rows.iter().all(|r| &r.cols[i].1 == first) {
            header.insert((*name).into(), first.clone());
            hoisted.push(name);
        }
    }
    let flat = files_of(rows, repo.as_deref(), &hoisted);
    let vary: Vec<usize> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| !hoisted.contains(n) && groupable.contains(n))
        .map(|(i, _)| i)
        .collect();
    if vary.is_empty() || rows.is_empty() {
        return (header, "files", flat);
    }
    let buckets = group_by(rows, |r| {
        vary.iter()
            .map(|&i| r.cols[i].1.clone())
            .collect::<Vec<Value>>()
    });
    if buckets.len() < 2 {
        return (header, "files", flat);
    }
    let groups: Vec<Value> = buckets
        .iter()
        .map(|(_, members)| {
            // Inside a group, every column its rows agree on is stated once on the group.
            let mut g = Map::new();
            let mut group_hoisted = hoisted.clone();
            for (i, name) in names.iter().enumerate() {
                if hoisted.contains(name) {
                    continue;
                }
                let first = &members[0].cols[i].1;
                if !is_empty(first) && members.iter().all(|r| &r.cols[i].1 == first) {
                    g.insert((*name).into(), first.clone());
                    group_hoisted.push(name);
                }
            }
            g.insert(
                "files".into(),
                files_of(members.iter().copied(), repo.as_deref(), &group_hoisted),
            );
            Value::Object(g)
        })
        .collect();
    let grouped = Value::Array(groups);
    if smaller(&grouped, &flat) {
        (header, "groups", grouped)
    } else {
        (header, "files", flat)
    }
}

/// The compact page of `rows` written into `results`: the header entries, then `files` or
/// `groups`.
pub(crate) fn put_compact_files(
    results: &mut Map<String, Value>,
    rows: &[LabelRow],
    groupable: &[&str],
) {
    let (header, key, body) = compact_files(rows, groupable);
    results.extend(header);
    results.insert(key.into(), body);
}

/// Rows grouped by file in order of first appearance, each row a label or `[label, tail...]`.
fn files_of<'r>(
    rows: impl IntoIterator<Item = &'r LabelRow>,
    header_repo: Option<&str>,
    hoisted: &[&str],
) -> Value {
    let files = group_by(rows, |r| (r.repo.clone(), r.file.clone()));
    Value::Array(
        files
            .into_iter()
            .map(|((repo, file), members)| {
                let at: Vec<Value> = members
                    .into_iter()
                    .map(|r| label_entry(r, hoisted))
                    .collect();
                let mut m = Map::new();
                if header_repo != Some(repo.as_str()) {
                    m.insert("repo".into(), json!(repo));
                }
                m.insert("file".into(), json!(file));
                m.insert("at".into(), Value::Array(at));
                Value::Object(m)
            })
            .collect(),
    )
}

/// One row of a file: its label, or `[label, tail...]` when a column not hoisted has a value.
fn label_entry(r: &LabelRow, hoisted: &[&str]) -> Value {
    let tail: Vec<Value> = r
        .cols
        .iter()
        .filter(|(n, v)| !hoisted.contains(n) && !is_empty(v))
        .map(|(_, v)| tail_value(v))
        .collect();
    if tail.is_empty() {
        json!(r.label)
    } else {
        let mut a = vec![json!(r.label)];
        a.extend(tail);
        Value::Array(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(repo: &str, file: &str, qn: &str, kind: &str, edge: &str) -> LabelRow {
        LabelRow {
            repo: repo.into(),
            file: file.into(),
            label: label(qn, qn, 10, 12),
            cols: vec![
                ("edge_kind", json!(edge)),
                ("kind", json!(kind)),
                ("confidence", json!("EXACT_DECLARATION_MAPPED")),
            ],
        }
    }

    #[test]
    fn hoists_shared_columns_and_keeps_dissent_on_rows() {
        let rows = vec![
            row("a", "x.go", "F", "func", "CALLS_DIRECT"),
            row("a", "y.go", "G", "method", "CALLS_DIRECT"),
        ];
        let (h, key, v) = compact_files(&rows, &["kind", "edge_kind", "confidence"]);
        assert_eq!(h["repository"], "a");
        assert_eq!(h["edge_kind"], "CALLS_DIRECT");
        assert_eq!(h["confidence"], "EXACT_DECLARATION_MAPPED");
        assert!(h.get("kind").is_none());
        // Two singleton buckets cost more than two rows with a tail: the page stays flat.
        assert_eq!(key, "files");
        assert_eq!(
            v,
            json!([{"file": "x.go", "at": [["F@10-12", "func"]]}, {"file": "y.go", "at": [["G@10-12", "method"]]}])
        );
    }

    #[test]
    fn groups_only_when_strictly_smaller() {
        let mut rows = Vec::new();
        for i in 0..6 {
            rows.push(row("a", "x.go", &format!("F{i}"), "method", "REFERENCES"));
        }
        rows.push(row("b", "y.go", "G", "func", "CALLS_DIRECT"));
        let (h, key, v) = compact_files(&rows, &["kind", "edge_kind", "confidence"]);
        assert!(h.get("repository").is_none());
        assert_eq!(key, "groups");
        let groups = v.as_array().unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0]["kind"], "method");
        assert_eq!(groups[0]["edge_kind"], "REFERENCES");
        assert_eq!(groups[0]["files"][0]["at"][0], "F0@10-12");
        assert_eq!(groups[1]["files"][0]["repo"], "b");
    }

    #[test]
    fn labels() {
        assert_eq!(label("T.M", "M", 5, 5), "T.M@5");
        assert_eq!(label("", "M", 5, 9), "M@5-9");
    }
}
