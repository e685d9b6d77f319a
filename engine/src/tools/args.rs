//! Tool arguments: strict reading of the JSON object a client passes (unknown keys refused,
//! types checked, `limit` never clamped), the shared `view` and `response_format` switches, and
//! the pieces of schema several tools share (the selector properties, the paging switches).

use kivgraph_format::Generation;
use serde_json::{Map, Value, json};

use super::envelope;
use crate::query::{self, Selector, ToolError};

/// The arguments of a symbol selector.
pub(crate) const SELECTOR_ARGS: &[&str] = &["stable_key", "qualified_name", "repository", "path"];
/// The paging switches of a tool whose answer is a page of rows.
pub(crate) const PAGE_ARGS: &[&str] = &["limit", "cursor", "response_format", "view"];

/// The `view` values of a tool that answers rows only.
pub(crate) const ROW_VIEWS: &[&str] = &["compact", "full"];
/// The `view` values of a tool that also answers with the set of files.
pub(crate) const FILE_VIEWS: &[&str] = &["compact", "full", "files"];

pub(crate) fn selector_props() -> Map<String, Value> {
    props(json!({
        "stable_key": {"type": "string", "description": "Opaque stable key of the symbol"},
        "qualified_name": {"type": "string", "description": "Qualified name, as rows report it"},
        "repository": {"type": "string", "description": "Repository that declares the symbol"},
        "path": {"type": "string", "description": "Repository-relative path prefix of the declaring file"}
    }))
}

/// The properties of a JSON object literal, in the order written.
pub(crate) fn props(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// `p` followed by the properties of the object literal `more`, in the order written.
pub(crate) fn with_props(mut p: Map<String, Value>, more: Value) -> Map<String, Value> {
    p.extend(props(more));
    p
}

/// The paging switches' properties: `limit` (0 = the tool's default, at most `max_limit`),
/// `cursor`, `response_format` and `view` (one of `views`).
pub(crate) fn page_props(
    mut p: Map<String, Value>,
    max_limit: u64,
    views: &[&str],
) -> Map<String, Value> {
    p.insert(
        "limit".into(),
        json!({"type": "integer", "minimum": 0, "maximum": max_limit}),
    );
    p.insert("cursor".into(), json!({"type": "string"}));
    p.insert(
        "response_format".into(),
        json!({"type": "string", "enum": ["concise", "detailed"]}),
    );
    p.insert("view".into(), json!({"type": "string", "enum": views}));
    p
}

/// The schema of an arguments object: these properties, those required, no others.
pub(crate) fn object_schema(p: Map<String, Value>, required: &[&str]) -> Value {
    if required.is_empty() {
        json!({"type": "object", "properties": p, "additionalProperties": false})
    } else {
        json!({"type": "object", "properties": p, "required": required, "additionalProperties": false})
    }
}

/// Longest string a tool argument may hold, in bytes, at any depth (a path is at most 4096
/// bytes on Linux; names, keys and cursors are far shorter). A longer one is refused before it
/// costs a query anything.
pub const MAX_STRING_BYTES: usize = 4096;

/// The longest string in `v`, in bytes, at any depth.
fn longest_string(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(a) => a.iter().map(longest_string).max().unwrap_or(0),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| k.len().max(longest_string(v)))
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}

pub(crate) struct Args<'a> {
    pub(crate) map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// The arguments `v`, refused when a key belongs to none of the `allowed` groups.
    pub(crate) fn new(v: &'a Value, allowed: &[&[&str]]) -> Result<Args<'a>, ToolError> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        let map = match v {
            Value::Object(m) => m,
            Value::Null => EMPTY.get_or_init(Map::new),
            _ => return Err(ToolError::invalid("arguments must be an object")),
        };
        // Sizes first: no answer echoes a string past the bound.
        if let Some((k, n)) = map
            .iter()
            .map(|(k, v)| (k, k.len().max(longest_string(v))))
            .find(|&(_, n)| n > MAX_STRING_BYTES)
        {
            let k = if k.len() > MAX_STRING_BYTES {
                "an argument name"
            } else {
                k.as_str()
            };
            return Err(ToolError::invalid(format!(
                "{k} holds a string of {n} bytes; strings are at most {MAX_STRING_BYTES} bytes"
            )));
        }
        if let Some(k) = map
            .keys()
            .find(|k| !allowed.iter().any(|group| group.contains(&k.as_str())))
        {
            return Err(ToolError::invalid(format!(
                "argument {k:?} is not accepted by this tool"
            )));
        }
        Ok(Args { map })
    }

    pub(crate) fn str(&self, k: &str) -> Result<Option<String>, ToolError> {
        match self.map.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ToolError::invalid(format!("{k} must be a string"))),
        }
    }

    /// The list of strings under `k`, `None` when it is absent or null. Each string is checked
    /// with `check` as it is read, so the first fault in the list's order is the one reported.
    pub(crate) fn strings(
        &self,
        k: &str,
        check: impl Fn(&str) -> Result<(), ToolError>,
    ) -> Result<Option<Vec<&'a str>>, ToolError> {
        let not_strings = || ToolError::invalid(format!("{k} must be a list of strings"));
        let items = match self.map.get(k) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Array(items)) => items,
            Some(_) => return Err(not_strings()),
        };
        let mut out = Vec::new();
        for it in items {
            let s = it.as_str().ok_or_else(not_strings)?;
            check(s)?;
            out.push(s);
        }
        Ok(Some(out))
    }

    /// The string under `k`, which must be present, not empty and not padded.
    pub(crate) fn required(&self, k: &str) -> Result<String, ToolError> {
        let v = self
            .str(k)?
            .ok_or_else(|| ToolError::invalid(format!("{k} is required")))?;
        if v.is_empty() {
            return Err(ToolError::invalid(format!("{k} must not be empty")));
        }
        query::check_padding(k, &v)?;
        Ok(v)
    }

    /// The strings under `keys`, all read first, then each checked for surrounding whitespace
    /// in the order given.
    pub(crate) fn unpadded<const N: usize>(
        &self,
        keys: [&str; N],
    ) -> Result<[Option<String>; N], ToolError> {
        let mut out: [Option<String>; N] = std::array::from_fn(|_| None);
        for (slot, k) in out.iter_mut().zip(keys) {
            *slot = self.str(k)?;
        }
        for (v, k) in out.iter().zip(keys) {
            if let Some(v) = v {
                query::check_padding(k, v)?;
            }
        }
        Ok(out)
    }

    /// `cursor` applied to `total` rows with `limit` a page; returns (offset, end, next cursor).
    pub(crate) fn page(
        &self,
        g: &Generation,
        total: usize,
        limit: u64,
        identity: &Value,
        contract: &str,
    ) -> Result<(usize, usize, Option<String>), ToolError> {
        let cursor = self.str("cursor")?;
        envelope::page(g, total, limit, cursor.as_deref(), identity, contract)
    }

    pub(crate) fn bool(&self, k: &str) -> Result<bool, ToolError> {
        match self.map.get(k) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ToolError::invalid(format!("{k} must be a boolean"))),
        }
    }

    /// `limit`: absent or 0 = default; otherwise 1..=max, never clamped.
    pub(crate) fn limit(&self, default: u64, max: u64) -> Result<u64, ToolError> {
        match self.map.get("limit") {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match v.as_u64() {
                Some(0) => Ok(default),
                Some(n) if n <= max => Ok(n),
                _ => Err(ToolError::invalid(format!(
                    "limit must be between 1 and {max}"
                ))),
            },
        }
    }

    pub(crate) fn detailed(&self) -> Result<bool, ToolError> {
        match self.str("response_format")?.as_deref() {
            None | Some("concise") => Ok(false),
            Some("detailed") => Ok(true),
            Some(other) => Err(ToolError::invalid(format!(
                "response_format {other:?} is unsupported, use \"concise\" or \"detailed\""
            ))),
        }
    }

    /// `view`: true for full. `files` is refused on tools whose answer is not a set of files.
    pub(crate) fn full_view(&self) -> Result<bool, ToolError> {
        match self.str("view")?.as_deref() {
            None | Some("compact") => Ok(false),
            Some("full") => Ok(true),
            Some("files") => Err(ToolError::invalid(
                "view \"files\" is unsupported for this tool, use \"compact\" or \"full\"",
            )),
            Some(other) => Err(ToolError::invalid(format!(
                "view {other:?} is unsupported, use \"compact\", \"full\" or \"files\""
            ))),
        }
    }

    /// `view` on a tool that also answers with the set of files.
    pub(crate) fn view(&self) -> Result<View, ToolError> {
        match self.str("view")?.as_deref() {
            None | Some("compact") => Ok(View::Compact),
            Some("full") => Ok(View::Full),
            Some("files") => Ok(View::Files),
            Some(other) => Err(ToolError::invalid(format!(
                "view {other:?} is unsupported, use \"compact\", \"full\" or \"files\""
            ))),
        }
    }

    pub(crate) fn selector(&self) -> Result<Selector, ToolError> {
        Ok(Selector {
            stable_key: self.str("stable_key")?,
            qualified_name: self.str("qualified_name")?,
            repository: self.str("repository")?,
            path: self.str("path")?,
        })
    }
}

/// The three views of a tool whose answer is also a set of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    Compact,
    Full,
    Files,
}
