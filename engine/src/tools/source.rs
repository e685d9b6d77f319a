//! get_source: the code of several symbols in one call.
//!
//! This is the only tool that answers in prose rather than JSON. Code inside a JSON string pays
//! for escaping and buys nothing, so the code travels as code and the counters travel in the
//! first line:
//!
//! ```text
//! snapshot <id>  <n> bodies  context <n>[  trimmed <n> at the 262144 byte ceiling]
//! @ <repository> <path>:<start>-<end> <kind> <qualified_name>[ [file changed, re-anchored +N]][ <stable_key>]
//! <the lines, unescaped and unnumbered>
//! ! <repository> <path> <qualified_name>[ <stable_key>] — <reason>
//! ```
//!
//! `<start>-<end>` is the range of the lines served, context included, so that the body's first
//! line is line `<start>` of the file as it is now. `<n> bodies` counts the rows that carry code.

use kivgraph_format::Generation;
use serde_json::{Value, json};

use super::args::SELECTOR_ARGS;
use super::{Args, selector_props};
use crate::query::{self, ErrorCode, ToolError};
use crate::source::{self, CEILING, MAX_CONTEXT_LINES, MAX_SYMBOLS, Source};

pub(crate) fn schema() -> Value {
    json!({"type": "object", "properties": {
        "symbols": {
            "type": "array",
            "description": "The symbols to read: a stable_key, or a qualified_name narrowed by repository and then path",
            "minItems": 1,
            "maxItems": MAX_SYMBOLS,
            "items": {"type": "object", "properties": selector_props(), "additionalProperties": false}
        },
        "context_lines": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_LINES, "default": 0, "description": "Lines kept before and after each declaration"},
        "response_format": {"type": "string", "enum": ["concise", "detailed"]}
    }, "required": ["symbols"], "additionalProperties": false})
}

/// Validates the arguments, resolves every selector (one that does not resolve fails the call),
/// reads the bodies and renders them.
pub(crate) fn get_source(args: &Value, g: &Generation) -> Result<String, ToolError> {
    let a = Args::new(args, &[&["symbols", "context_lines", "response_format"]])?;
    let entries = match a.map.get("symbols") {
        None | Some(Value::Null) => return Err(ToolError::invalid("symbols is required")),
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(ToolError::invalid(
                "symbols must be an array of symbol selectors",
            ));
        }
    };
    if entries.is_empty() {
        return Err(ToolError::invalid("symbols must name at least one symbol"));
    }
    ToolError::at_most(entries.len(), MAX_SYMBOLS, |n| {
        format!("symbols must name at most {MAX_SYMBOLS} symbols, got {n}")
    })?;
    let context_lines = match a.map.get("context_lines") {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_u64()
            .filter(|&n| n <= u64::from(MAX_CONTEXT_LINES))
            .ok_or_else(|| {
                ToolError::invalid(format!(
                    "context_lines must be an integer between 0 and {MAX_CONTEXT_LINES}"
                ))
            })? as u32,
    };
    let detailed = a.detailed()?;
    let mut ids = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        // Argument errors name the entry; resolution errors keep the shared messages, which
        // already name the key or qualified name that failed.
        let in_entry = |e: ToolError| {
            if e.is(ErrorCode::InvalidArgument) {
                ToolError::invalid(format!("symbols[{i}]: {}", e.message))
            } else {
                e
            }
        };
        if !entry.is_object() {
            return Err(in_entry(ToolError::invalid(
                "a symbol selector must be an object",
            )));
        }
        let selector = Args::new(entry, &[SELECTOR_ARGS])
            .and_then(|e| e.selector())
            .map_err(in_entry)?;
        ids.push(query::resolve_selector(g, &selector).map_err(in_entry)?);
    }
    Ok(render(&source::source(g, &ids, context_lines), detailed))
}

/// The prose answer.
pub(crate) fn render(s: &Source, detailed: bool) -> String {
    let mut out = format!(
        "snapshot {}  {} bodies  context {}",
        s.snapshot_id,
        s.bodies(),
        s.context_lines
    );
    if s.trimmed > 0 {
        out.push_str(&format!(
            "  trimmed {} at the {CEILING} byte ceiling",
            s.trimmed
        ));
    }
    out.push('\n');
    for row in &s.rows {
        let sym = &row.symbol;
        let key = if detailed {
            format!(" {}", sym.stable_key)
        } else {
            String::new()
        };
        match &row.body {
            Ok(body) => {
                out.push_str(&format!(
                    "@ {} {}:{}-{} {} {}",
                    sym.repository,
                    sym.file_path,
                    body.start_line,
                    body.end_line,
                    sym.kind,
                    sym.qualified_name
                ));
                if let Some(shift) = body.reanchored {
                    out.push_str(&format!(" [file changed, re-anchored {shift:+}]"));
                }
                out.push_str(&key);
                out.push('\n');
                out.push_str(&body.text);
            }
            Err(reason) => out.push_str(&format!(
                "! {} {} {}{key} \u{2014} {reason}\n",
                sym.repository, sym.file_path, sym.qualified_name
            )),
        }
    }
    out
}
