//! `manifest.json`: what a generation holds and the digest of every file in it.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Manifest {
    pub format_version: u32,
    pub generation_id: u64,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// Milliseconds since the Unix epoch, the same instant as `created_at`.
    pub created_at_ms: u64,
    pub compiler_version: String,
    pub repositories: Vec<ManifestRepository>,
    pub row_counts: RowCounts,
    /// Every file of the generation but the manifest itself, sorted by name.
    pub files: Vec<ManifestFile>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ManifestRepository {
    pub name: String,
    pub root: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: Option<bool>,
    pub languages: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
pub struct RowCounts {
    pub repositories: u64,
    pub packages: u64,
    pub files: u64,
    pub symbols: u64,
    pub edges: u64,
    pub package_edges: u64,
    pub unresolved: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ManifestFile {
    pub name: String,
    pub size: u64,
    /// xxh3-128 of the file bytes, 32 lowercase hex digits.
    pub xxh3_128: String,
}

/// The digest string the manifest records for `bytes`.
pub fn digest_hex(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}
