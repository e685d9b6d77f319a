//! Typed errors of the format crate. Corruption is kept apart from I/O so callers can tell a
//! damaged generation from a missing one.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{file}: corrupted: {what}")]
    Corrupt { file: String, what: String },

    #[error(
        "{file}: generation format version {found}, this build reads version {expected}; \
         recompile the repositories with a matching kivgraph-compile",
        expected = crate::FORMAT_VERSION
    )]
    Version { file: String, found: u32 },

    #[error(
        "index {} is busy: another kivgraph-compile holds {}; wait for it to finish",
        index.display(), lock.display()
    )]
    Busy { index: PathBuf, lock: PathBuf },

    #[error("no generation is published under {}; run kivgraph-compile first", .0.display())]
    NoGeneration(PathBuf),

    #[error("could not encode the generation: {0}")]
    Encode(String),

    #[error("injected fault at {0}")]
    Injected(&'static str),
}

impl FormatError {
    pub fn corrupt(file: impl Into<String>, what: impl Into<String>) -> Self {
        FormatError::Corrupt {
            file: file.into(),
            what: what.into(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FormatError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Attaches a path to an I/O result.
pub(crate) trait IoContext<T> {
    fn at(self, path: &std::path::Path) -> Result<T, FormatError>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: &std::path::Path) -> Result<T, FormatError> {
        self.map_err(|e| FormatError::io(path, e))
    }
}
