//! Tool arguments: strict reading of the JSON object a client passes (unknown keys refused,
//! types checked, `limit` never clamped), the shared `view` and `response_format` switches, and
//! the selector properties every symbol-addressed tool's schema shares.

use serde_json::{Map, Value, json};

use crate::query::{Selector, ToolError};

pub(crate) fn selector_props() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "stable_key".into(),
        json!({"type": "string", "description": "Opaque stable key of the symbol"}),
    );
    m.insert(
        "qualified_name".into(),
        json!({"type": "string", "description": "Qualified name, as rows report it"}),
    );
    m.insert(
        "repository".into(),
        json!({"type": "string", "description": "Repository that declares the symbol"}),
    );
    m.insert("path".into(), json!({"type": "string", "description": "Repository-relative path prefix of the declaring file"}));
    m
}

pub(crate) struct Args<'a> {
    pub(crate) map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    pub(crate) fn new(v: &'a Value, allowed: &[&str]) -> Result<Args<'a>, ToolError> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        let map = match v {
            Value::Object(m) => m,
            Value::Null => EMPTY.get_or_init(Map::new),
            _ => return Err(ToolError::invalid("arguments must be an object")),
        };
        if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
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
