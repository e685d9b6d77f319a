//! Coded tool errors. Clients branch on the code, people read the message; the code's wire
//! spelling is [`ErrorCode::as_str`], and [`ToolError`] displays as `CODE: message`.

/// Every code a tool error may carry. The wire spellings are part of the MCP surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// An argument is missing, malformed, out of range, or not accepted by the tool.
    InvalidArgument,
    /// No symbol (or no indexed file) matches the selector.
    SymbolNotFound,
    /// The selector names several symbols and must be narrowed.
    AmbiguousSymbol,
    /// The named repository is not in the published graph.
    RepositoryNotFound,
    /// No generation is published yet.
    IndexNotReady,
    /// The cursor does not decode, or belongs to another query.
    CursorInvalid,
    /// The cursor was taken on a generation that is no longer served.
    CursorSnapshotExpired,
    /// index_project was called without the user's approval.
    PermissionRequired,
    /// The user declined index_project.
    PermissionDenied,
    /// Registering or rebuilding the projects failed.
    IndexingFailed,
    /// The answer reached bytes of the served generation that are damaged (a block that does not
    /// match its sum, an id past its table): nothing read from them is answered.
    SnapshotUnavailable,
}

impl ErrorCode {
    /// The code as clients receive it.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::SymbolNotFound => "SYMBOL_NOT_FOUND",
            ErrorCode::AmbiguousSymbol => "AMBIGUOUS_SYMBOL",
            ErrorCode::RepositoryNotFound => "REPOSITORY_NOT_FOUND",
            ErrorCode::IndexNotReady => "INDEX_NOT_READY",
            ErrorCode::CursorInvalid => "CURSOR_INVALID",
            ErrorCode::CursorSnapshotExpired => "CURSOR_SNAPSHOT_EXPIRED",
            ErrorCode::PermissionRequired => "PERMISSION_REQUIRED",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::IndexingFailed => "INDEXING_FAILED",
            ErrorCode::SnapshotUnavailable => "SNAPSHOT_UNAVAILABLE",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A coded tool error: clients branch on `code`, people read `message`.
///
/// `code` holds the wire spelling of an [`ErrorCode`]; errors are only built through
/// [`ToolError::new`] and its shorthands, so it never holds anything else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code: code.as_str(),
            message: message.into(),
        }
    }

    /// An [`ErrorCode::InvalidArgument`] error.
    pub fn invalid(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::InvalidArgument, message)
    }

    /// `INVALID_ARGUMENT` with the message `says(n)` when a count or size `n` is over `max`.
    pub fn at_most(
        n: usize,
        max: usize,
        says: impl FnOnce(usize) -> String,
    ) -> Result<(), ToolError> {
        match n > max {
            true => Err(ToolError::invalid(says(n))),
            false => Ok(()),
        }
    }

    /// The [`ErrorCode::RepositoryNotFound`] error for the repository argument `name`.
    pub fn repository_not_found(name: &str) -> ToolError {
        ToolError::new(
            ErrorCode::RepositoryNotFound,
            format!("repository {name:?} is not in the published graph"),
        )
    }

    /// Whether this error carries `code`.
    pub fn is(&self, code: ErrorCode) -> bool {
        self.code == code.as_str()
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_code_then_message() {
        let e = ToolError::new(ErrorCode::CursorInvalid, "cursor is not valid: bad");
        assert_eq!(e.to_string(), "CURSOR_INVALID: cursor is not valid: bad");
        assert_eq!(ErrorCode::IndexNotReady.to_string(), "INDEX_NOT_READY");
        assert!(ToolError::invalid("x").is(ErrorCode::InvalidArgument));
    }
}
