//! get_file_outline: the declarations under a repository path, grouped by file.

use kivgraph_format::{Generation, SymbolKind};
use serde_json::{Map, Value, json};

use super::args::{FILE_VIEWS, PAGE_ARGS, object_schema, page_props, props};
use super::labels::{self, LabelRow};
use super::shape::{group_by, put_symbol_fields};
use super::{Args, Envelope, View, completeness, render};
use crate::query::{self, ErrorCode, SymbolRow, ToolError};

pub(crate) fn schema() -> Value {
    let p = props(json!({
        "repository": {"type": "string", "description": "Repository name"},
        "path": {"type": "string", "description": "Repository-relative file or directory"},
        "kind": {"type": "string", "description": "Only declarations of this kind"},
        "include_members": {"type": "boolean", "description": "Also list fields, properties, enum members and variants"}
    }));
    object_schema(page_props(p, 500, FILE_VIEWS), &["repository", "path"])
}

const MEMBER_KINDS: &[SymbolKind] = &[
    SymbolKind::Field,
    SymbolKind::Property,
    SymbolKind::EnumMember,
];

pub(crate) fn get_file_outline(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(
        args,
        &[
            &["repository", "path", "kind", "include_members"],
            PAGE_ARGS,
        ],
    )?;
    let repository = a.required("repository")?;
    let raw_path = a
        .str("path")?
        .ok_or_else(|| ToolError::invalid("path is required"))?;
    let path = query::clean_path(&raw_path)?;
    let path = if path == "." { String::new() } else { path };
    let [kind] = a.unpadded(["kind"])?;
    let include_members = a.bool("include_members")?;
    let limit = a.limit(200, 500)?;
    let detailed = a.detailed()?;
    let view = a.view()?;
    let repo = query::require_repository(g, &repository)?;
    let Some(all) = query::declarations_under(g, repo, &path) else {
        let shown = if path.is_empty() { "." } else { path.as_str() };
        return Err(ToolError::new(
            ErrorCode::SymbolNotFound,
            format!("no indexed file at or under {shown:?} in {repository}"),
        ));
    };
    let identity = json!({"tool": "get_file_outline", "repository": repository, "path": path, "kind": kind, "include_members": include_members});
    let (start, end, next) = a.page(g, all.len(), limit, &identity, "stable-key-v1")?;
    // kind and include_members filter the page, after paging: total counts every declaration.
    let rows: Vec<SymbolRow> = all[start..end]
        .iter()
        .map(|&i| query::symbol_row(g, i))
        .filter(|r| kind.as_deref().is_none_or(|k| r.kind == k))
        .filter(|r| {
            include_members || kind.is_some() || !MEMBER_KINDS.iter().any(|m| m.as_str() == r.kind)
        })
        .collect();

    let mut packages: Vec<String> = rows.iter().map(|r| r.package_name.clone()).collect();
    packages.sort();
    packages.dedup();
    let mut results = Map::new();
    results.insert("repository".into(), json!(repository));
    results.insert(
        "path".into(),
        json!(if path.is_empty() { "." } else { path.as_str() }),
    );
    match view {
        View::Full => {
            let mut languages: Vec<&str> = rows.iter().map(|r| r.language).collect();
            languages.sort();
            languages.dedup();
            results.insert("packages".into(), json!(packages));
            results.insert("languages".into(), json!(languages));
            let files: Vec<Value> = files_of(&rows)
                .into_iter()
                .map(|(f, syms)| {
                    let syms: Vec<Value> =
                        syms.into_iter().map(|r| full_row(r, detailed)).collect();
                    json!({"path": f, "symbols": syms})
                })
                .collect();
            results.insert("files".into(), Value::Array(files));
        }
        View::Files => {
            let files: Vec<Value> = files_of(&rows)
                .into_iter()
                .map(|(f, syms)| json!({"file": f, "declarations": syms.len()}))
                .collect();
            results.insert("files".into(), Value::Array(files));
        }
        View::Compact => {
            if packages.len() == 1 {
                results.insert("package".into(), json!(packages[0]));
            } else {
                results.insert("packages".into(), json!(packages));
            }
            let label_rows: Vec<LabelRow> = rows
                .iter()
                .map(|r| {
                    let mut cols = vec![
                        labels::name_column(&r.qualified_name, &r.name),
                        ("kind", json!(r.kind)),
                        (
                            "exported",
                            json!(if r.exported { "exported" } else { "unexported" }),
                        ),
                    ];
                    if detailed {
                        cols.push(("signature", json!(r.signature)));
                        cols.push(("stable_key", json!(r.stable_key)));
                        cols.push(("canonical_identity", json!(query::canonical_identity(r))));
                    }
                    LabelRow {
                        repo: r.repository.clone(),
                        file: r.file_path.clone(),
                        label: labels::label(&r.qualified_name, &r.name, r.start_line, r.end_line),
                        cols,
                    }
                })
                .collect();
            let (header, key, body) = labels::compact_files(&label_rows, &["kind", "exported"]);
            for (k, v) in header {
                if k == "repository" {
                    continue; // stated above
                }
                // The header states exportedness as a boolean.
                let v = if k == "exported" {
                    json!(v == "exported")
                } else {
                    v
                };
                results.insert(k, v);
            }
            // Group keys spell exportedness the same way.
            let body = if key == "groups" {
                Value::Array(
                    body.as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|mut gr| {
                            if let Some(e) = gr.get_mut("exported") {
                                *e = json!(*e == "exported");
                            }
                            gr
                        })
                        .collect(),
                )
            } else {
                body
            };
            results.insert(key.into(), body);
        }
    }
    // A scope counts when its directory is at or under the path asked, or holds it: only then
    // could it hold a declaration of this outline.
    let scopes: Vec<u32> = query::invisible_scopes(g, Some(repo))
        .into_iter()
        .filter(|&i| {
            query::scope_directory(g, i).is_none_or(|d| {
                path.is_empty()
                    || d == "."
                    || d == path
                    || d.starts_with(&format!("{path}/"))
                    || path.starts_with(&format!("{d}/"))
            })
        })
        .collect();
    Ok(render(
        Some(g),
        view == View::Full,
        Envelope {
            completeness: Some(completeness(g, "", &[], false, &scopes)),
            more: Some(next.is_some()),
            ..Envelope::rows(all.len(), rows.len(), next, Value::Object(results))
        },
    ))
}

/// A declaration of the full view.
fn full_row(r: &SymbolRow, detailed: bool) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(r.name));
    if r.qualified_name != r.name {
        m.insert("qualified_name".into(), json!(r.qualified_name));
    }
    put_symbol_fields(
        &mut m,
        r,
        &["kind", "signature", "exported", "start_line", "end_line"],
    );
    if detailed {
        put_symbol_fields(&mut m, r, &["stable_key", "canonical_identity"]);
    }
    Value::Object(m)
}

/// Rows by file, in order of first appearance.
fn files_of(rows: &[SymbolRow]) -> Vec<(String, Vec<&SymbolRow>)> {
    group_by(rows, |r| r.file_path.clone())
}
