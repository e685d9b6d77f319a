#![doc = include_str!("../README.md")]

pub mod blob;
pub mod error;
pub mod git;
pub mod key;
pub mod layout;
pub mod manifest;
pub mod names;
#[cfg(feature = "tables")]
pub mod tables;
pub mod terms;
mod verify;
pub mod vocab;

pub use blob::{ArchivedGraphBlob, GraphBlob, NONE};
pub use error::FormatError;
pub use layout::{FaultPoint, IndexDir};
pub use manifest::Manifest;
pub use verify::{VerifyReport, verify_generation};
pub use vocab::{Confidence, EdgeKind, FileStatus, Language, Provenance, SymbolKind};

use std::path::{Path, PathBuf};

use memmap2::Mmap;

/// The generation format version this build writes and reads. Bumped on any incompatible change
/// to a table schema, the blob layout, the name index or the directory layout.
pub const FORMAT_VERSION: u32 = 1;

/// File names inside a generation directory.
pub const GRAPH_BLOB: &str = "graph.blob";
pub const NAMES_FST: &str = "names.fst";

/// An opened generation: the manifest, the graph blob and the name index, memory-mapped.
///
/// Opening checks headers and runs rkyv validation once; nothing is deserialized or rebuilt.
#[derive(Debug)]
pub struct Generation {
    pub id: u64,
    pub dir: PathBuf,
    pub manifest: Manifest,
    blob: Mmap,
    names: fst::Map<Mmap>,
}

impl Generation {
    /// Opens the generation `CURRENT` names, or `Ok(None)` when nothing is published.
    pub fn open_current(index: &IndexDir) -> Result<Option<Generation>, FormatError> {
        match index.current()? {
            None => Ok(None),
            Some(id) => Generation::open_dir(&index.generation_dir(id)).map(Some),
        }
    }

    /// Opens one generation directory.
    pub fn open_dir(dir: &Path) -> Result<Generation, FormatError> {
        let manifest = read_manifest(dir)?;
        let blob = map_file(&dir.join(GRAPH_BLOB))?;
        let (_, archive) = blob::archive_bytes(&blob)?;
        blob::validate(archive)?;
        let names = names::open(map_file(&dir.join(NAMES_FST))?)?;
        Ok(Generation {
            id: manifest.generation_id,
            dir: dir.to_path_buf(),
            manifest,
            blob,
            names,
        })
    }

    /// The graph, straight off the mmap.
    pub fn graph(&self) -> &ArchivedGraphBlob {
        // SAFETY: `open_dir` validated exactly these bytes with `rkyv::access`, and a published
        // generation is immutable, so the archive is still the one that was checked.
        unsafe { rkyv::access_unchecked::<ArchivedGraphBlob>(&self.blob[blob::BLOB_HEADER_LEN..]) }
    }

    /// The bytes of `graph.blob` as mapped, header included. Archived fields borrowed from
    /// [`Generation::graph`] point into this slice.
    pub fn blob_bytes(&self) -> &[u8] {
        &self.blob
    }

    /// The name index.
    pub fn names(&self) -> &fst::Map<Mmap> {
        &self.names
    }

    /// Bytes of all files of the generation, as the manifest records them.
    pub fn size_on_disk(&self) -> u64 {
        self.manifest.files.iter().map(|f| f.size).sum()
    }
}

pub(crate) fn read_manifest(dir: &Path) -> Result<Manifest, FormatError> {
    let path = dir.join(layout::MANIFEST);
    let bytes = layout::read_regular(&path).map_err(|e| FormatError::io(&path, e))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| FormatError::corrupt(layout::MANIFEST, e.to_string()))?;
    let found = value
        .get("format_version")
        .and_then(|v| v.as_u64())
        .unwrap_or(0) as u32;
    if found != FORMAT_VERSION {
        return Err(FormatError::Version {
            file: layout::MANIFEST.into(),
            found,
        });
    }
    serde_json::from_value(value).map_err(|e| FormatError::corrupt(layout::MANIFEST, e.to_string()))
}

fn map_file(path: &Path) -> Result<Mmap, FormatError> {
    let file = layout::open_regular(path).map_err(|e| FormatError::io(path, e))?;
    // SAFETY: generation files are written once and never modified after publishing; the mapping
    // is read-only.
    unsafe { Mmap::map(&file) }.map_err(|e| FormatError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generation of another format version is refused with both versions named.
    #[test]
    fn incompatible_manifest_names_both_versions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(layout::MANIFEST),
            r#"{"format_version": 2}"#,
        )
        .unwrap();
        let err = Generation::open_dir(dir.path()).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, FormatError::Version { found: 2, .. }),
            "{text}"
        );
        assert!(
            text.contains("version 2") && text.contains("version 1"),
            "{text}"
        );
    }
}
