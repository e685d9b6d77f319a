//! Checks shared by every argument that names a place in the graph: no surrounding whitespace,
//! and repository-relative paths without `..`.

use std::path::Path;

use crate::error::ToolError;

pub fn check_padding(field: &str, value: &str) -> Result<(), ToolError> {
    if value.trim() != value {
        return Err(ToolError::invalid(format!(
            "{field} must not carry surrounding whitespace"
        )));
    }
    Ok(())
}

/// Validates a repository-relative path argument and trims a trailing `/`.
pub fn clean_path(path: &str) -> Result<String, ToolError> {
    check_padding("path", path)?;
    if path.starts_with('/')
        || Path::new(path).is_absolute()
        || path.as_bytes().get(1) == Some(&b':')
    {
        return Err(ToolError::invalid(
            "path must be repository-relative, not absolute",
        ));
    }
    if path.split(['/', '\\']).any(|seg| seg == "..") {
        return Err(ToolError::invalid("path must not contain a .. segment"));
    }
    Ok(path.trim_end_matches('/').to_string())
}
