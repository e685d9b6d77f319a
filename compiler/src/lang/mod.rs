//! Language front ends. Each turns discovered source text into facts.

pub mod go;
pub mod py;
pub mod ts;

/// A project file discovery found (`package.json`, `tsconfig*.json`, `jsconfig*.json`,
/// `pyproject.toml`, `setup.cfg`); each front end reads the ones it knows.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub repo: crate::facts::RepoId,
    /// Repository-relative path.
    pub path: String,
    pub text: String,
}

use tree_sitter::Node;

/// A span: 1-based lines, 0-based byte columns, byte offsets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

impl Span {
    pub fn of(n: Node) -> Span {
        let (s, e) = (n.start_position(), n.end_position());
        Span {
            start_line: s.row as u32 + 1,
            start_column: s.column as u32,
            end_line: e.row as u32 + 1,
            end_column: e.column as u32,
            start_byte: n.start_byte() as u32,
            end_byte: n.end_byte() as u32,
        }
    }
}
