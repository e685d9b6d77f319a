//! find_by_intent: which symbols a plain-language question likely names, and the files to open.

use kivgraph_format::Generation;
use serde_json::{Map, Value, json};

use super::args::{FILE_VIEWS, PAGE_ARGS, object_schema, page_props, props};
use super::shape::{NAMED_AT, all_same, name_readable_off, put_symbol_fields};
use super::{Args, Envelope, View, render, showing};
use crate::query::intent::{self, IntentAnswer, IntentHit, IntentQuery};
use crate::query::{self, SymbolRow, ToolError};

/// The longest question accepted, in bytes, after trimming.
const MAX_INTENT_BYTES: usize = 400;
const MAX_KEYWORDS: usize = 16;
/// Every row is a lexical match: no edge is followed to find candidates.
const MATCH: &str = "lexical";
/// The sorting contract of the ranking; a cursor carries its digest.
const SORT_CONTRACT: &str = "intent-v1";
/// The files view pages over files, not symbols: its offsets mean something else, so its cursors
/// carry their own contract and a cursor never crosses between the two.
const FILES_SORT_CONTRACT: &str = "intent-files-v1";

pub(crate) const NOTHING_MATCHED: &str = "no word of this question appears in any name, qualified name, kind or path of the graph; the index holds no prose, so rephrase with the vocabulary the code would use, or pass keywords";
pub(crate) const NO_TERM: &str =
    "this question folded to no term at all; single characters are not indexed, so ask with words";
pub(crate) const NARROWED_AWAY: &str = "the terms matched symbols, but every one of them was excluded by repo, kind or path_prefix; widen the narrowing";
const KEYWORDS_ADVICE: &str = "keywords with the identifier words you would guess this code uses";

pub(crate) fn schema() -> Value {
    let p = props(json!({
        "intent": {"type": "string", "description": "What the code does, in plain words (a question, not a document)"},
        "keywords": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_KEYWORDS, "description": "Identifier words you would guess the code uses"},
        "repo": {"type": "string", "description": "Only this repository"},
        "path_prefix": {"type": "string", "description": "Only files under this repository-relative prefix"},
        "kind": {"type": "string", "description": "Only this symbol kind, e.g. func, method, type"}
    }));
    object_schema(page_props(p, 50, FILE_VIEWS), &["intent"])
}

fn keywords(a: &Args) -> Result<Vec<String>, ToolError> {
    let not_strings = || ToolError::invalid("keywords must be an array of strings");
    let list = match a.map.get("keywords") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(not_strings()),
    };
    ToolError::at_most(list.len(), MAX_KEYWORDS, |_| {
        format!("keywords holds at most {MAX_KEYWORDS} entries")
    })?;
    list.iter()
        .map(|v| match v {
            Value::String(s) if s.trim().is_empty() => Err(ToolError::invalid(
                "keywords must not contain empty or whitespace-only entries",
            )),
            Value::String(s) => Ok(s.clone()),
            _ => Err(not_strings()),
        })
        .collect()
}

pub(crate) fn find_by_intent(args: &Value, g: &Generation) -> Result<Value, ToolError> {
    let a = Args::new(
        args,
        &[
            &["intent", "keywords", "repo", "path_prefix", "kind"],
            PAGE_ARGS,
        ],
    )?;
    let intent = a
        .str("intent")?
        .ok_or_else(|| ToolError::invalid("intent is required"))?
        .trim()
        .to_string();
    if intent.is_empty() {
        return Err(ToolError::invalid("intent must not be empty"));
    }
    if intent.len() > MAX_INTENT_BYTES {
        return Err(ToolError::invalid(
            "intent is a question, not a document; shorten it and pass the vocabulary as keywords",
        ));
    }
    let keywords = keywords(&a)?;
    let [repo, path_prefix, kind] = a.unpadded(["repo", "path_prefix", "kind"])?;
    let limit = a.limit(10, 50)?;
    let detailed = a.detailed()?;
    let view = a.view()?;
    let identity = json!({"tool": "find_by_intent", "intent": intent, "keywords": keywords, "repo": repo, "path_prefix": path_prefix, "kind": kind});
    // The cursor is checked before the question is asked.
    a.str("cursor")?;
    let has_keywords = !keywords.is_empty();

    let answer = intent::find_by_intent(
        g,
        &IntentQuery {
            intent,
            keywords,
            repo,
            path_prefix,
            kind,
        },
    )?;
    let mut results = Map::new();
    header_terms(&answer, view == View::Full, &mut results);

    let (total, returned, next) = if view == View::Files {
        let files = intent::files_of(g, &answer.hits);
        let (start, end, next) = a.page(g, files.len(), limit, &identity, FILES_SORT_CONTRACT)?;
        results.insert(
            "files".into(),
            Value::Array(
                files[start..end]
                    .iter()
                    .map(|(_, hits)| file_entry(g, &answer.hits, hits))
                    .collect(),
            ),
        );
        (files.len(), end - start, next)
    } else {
        let (start, end, next) = a.page(g, answer.hits.len(), limit, &identity, SORT_CONTRACT)?;
        let page_hits = &answer.hits[start..end];
        let rows: Vec<SymbolRow> = page_hits
            .iter()
            .map(|h| query::symbol_row(g, h.id))
            .collect();
        if view == View::Full {
            full_rows(&answer, page_hits, &rows, detailed, &mut results);
        } else {
            compact_rows(&answer, page_hits, &rows, detailed, &mut results);
        }
        (answer.hits.len(), end - start, next)
    };

    let guidance = guidance(&answer, total, returned, next.is_some(), has_keywords, view);
    Ok(render(
        Some(g),
        view == View::Full,
        Envelope {
            guidance,
            ..Envelope::rows(total, returned, next, Value::Object(results))
        },
    ))
}

/// `terms` (the question's common terms) and `unmatched_terms`; the full view writes both even
/// when empty.
fn header_terms(answer: &IntentAnswer, full: bool, out: &mut Map<String, Value>) {
    let corpus = u64::from(answer.corpus);
    let common: Vec<Value> = answer
        .terms
        .iter()
        .filter(|t| corpus > 0 && u64::from(t.symbols) * 20 >= corpus)
        .map(|t| {
            let frequency = if u64::from(t.symbols) * 4 >= corpus {
                "most of the graph, so it separated little"
            } else {
                "common"
            };
            json!({"term": t.spelling, "symbols": t.symbols, "frequency": frequency})
        })
        .collect();
    let unmatched: Vec<&str> = answer.unmatched().map(|t| t.spelling.as_str()).collect();
    if full || !common.is_empty() {
        out.insert("terms".into(), Value::Array(common));
    }
    if full || !unmatched.is_empty() {
        out.insert("unmatched_terms".into(), json!(unmatched));
    }
}

fn hit_terms(answer: &IntentAnswer, hit: &IntentHit) -> Value {
    json!(
        hit.terms
            .iter()
            .map(|&i| answer.terms[i].spelling.as_str())
            .collect::<Vec<_>>()
    )
}

fn full_rows(
    answer: &IntentAnswer,
    hits: &[IntentHit],
    rows: &[SymbolRow],
    detailed: bool,
    out: &mut Map<String, Value>,
) {
    let list = hits
        .iter()
        .zip(rows)
        .map(|(h, r)| {
            let mut m = Map::new();
            put_symbol_fields(&mut m, r, NAMED_AT);
            put_symbol_fields(&mut m, r, &["end_line"]);
            m.insert("terms".into(), hit_terms(answer, h));
            m.insert("match".into(), json!(MATCH));
            if detailed {
                m.insert("stable_key".into(), json!(r.stable_key));
            }
            Value::Object(m)
        })
        .collect();
    out.insert("symbols".into(), Value::Array(list));
}

/// Compact rows: `match`, `repository` and `kind` stated once in the header when every row of
/// the page agrees; `name` only when the qualified name does not show it; `end_line` only for a
/// declaration spanning several lines.
fn compact_rows(
    answer: &IntentAnswer,
    hits: &[IntentHit],
    rows: &[SymbolRow],
    detailed: bool,
    out: &mut Map<String, Value>,
) {
    let repository = all_same(rows, |r| r.repository.clone());
    let kind = all_same(rows, |r| r.kind);
    if !rows.is_empty() {
        out.insert("match".into(), json!(MATCH));
    }
    if let Some(r) = &repository {
        out.insert("repository".into(), json!(r));
    }
    if let Some(k) = kind {
        out.insert("kind".into(), json!(k));
    }
    let list = hits
        .iter()
        .zip(rows)
        .map(|(h, r)| {
            let mut m = Map::new();
            m.insert("qualified_name".into(), json!(r.qualified_name));
            if !name_readable_off(&r.qualified_name, &r.name) {
                m.insert("name".into(), json!(r.name));
            }
            if kind.is_none() {
                m.insert("kind".into(), json!(r.kind));
            }
            if repository.is_none() {
                m.insert("repository".into(), json!(r.repository));
            }
            m.insert("file_path".into(), json!(r.file_path));
            m.insert("start_line".into(), json!(r.start_line));
            if r.end_line != r.start_line {
                m.insert("end_line".into(), json!(r.end_line));
            }
            m.insert("terms".into(), hit_terms(answer, h));
            if detailed {
                m.insert("stable_key".into(), json!(r.stable_key));
            }
            Value::Object(m)
        })
        .collect();
    out.insert("symbols".into(), Value::Array(list));
}

/// One file of the files view: its path, repository and the labels of its ranked symbols.
fn file_entry(g: &Generation, hits: &[IntentHit], in_file: &[usize]) -> Value {
    let rows: Vec<SymbolRow> = in_file
        .iter()
        .map(|&i| query::symbol_row(g, hits[i].id))
        .collect();
    let labels: Vec<String> = rows
        .iter()
        .map(|r| {
            let qn = if r.qualified_name.is_empty() {
                &r.name
            } else {
                &r.qualified_name
            };
            if r.end_line != r.start_line {
                format!("{qn}@{}-{}", r.start_line, r.end_line)
            } else {
                format!("{qn}@{}", r.start_line)
            }
        })
        .collect();
    let first = &rows[0];
    json!({"file": first.file_path, "repo": first.repository, "symbols": labels})
}

/// The six guidance variants: three for an empty answer, two for a truncated page, one for a
/// complete page some of whose words matched nothing.
fn guidance(
    answer: &IntentAnswer,
    total: usize,
    returned: usize,
    more: bool,
    has_keywords: bool,
    view: View,
) -> Option<String> {
    if total == 0 {
        return Some(
            if answer.terms.is_empty() {
                NO_TERM
            } else if answer.matched == 0 {
                NOTHING_MATCHED
            } else {
                NARROWED_AWAY
            }
            .to_string(),
        );
    }
    if more {
        let narrow = if !has_keywords {
            format!("{KEYWORDS_ADVICE}, or repo, kind or path_prefix")
        } else if view == View::Files {
            "repo, kind or path_prefix".to_string()
        } else {
            "repo, kind or path_prefix, or ask with view=files first".to_string()
        };
        return Some(showing(returned, total, &narrow));
    }
    if returned > 0 && answer.unmatched().next().is_some() {
        let mut s = String::from(
            "some words of this question appear in no name, qualified name, kind or path of the graph (see unmatched_terms), so the ranking rests on the others",
        );
        if !has_keywords {
            s.push_str("; pass ");
            s.push_str(KEYWORDS_ADVICE);
        }
        return Some(s);
    }
    None
}
