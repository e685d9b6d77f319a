//! `checkouts.json`: where each repository's sources are on this machine (SPEC 1.10).
//!
//! A generation records no path of the machine that compiled it, so that the same commit
//! compiled in two checkouts gives the same bytes and a generation can be served elsewhere. The
//! compiler records the checkouts it read beside the index instead; a server maps each
//! repository to its checkout from here, unless told otherwise (`kivgraph --source NAME=PATH`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::layout::{CHECKOUTS, IndexDir};

/// Repository name → absolute path of its checkout on this machine.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checkouts {
    pub repositories: BTreeMap<String, String>,
}

impl Checkouts {
    /// The checkouts recorded in `index`; none when the file is missing or unreadable (a
    /// damaged record only costs the sources, never an answer).
    pub fn read(index: &IndexDir) -> Checkouts {
        Self::read_file(&index.root().join(CHECKOUTS))
    }

    pub fn read_file(path: &Path) -> Checkouts {
        std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Records `repos` (name, checkout) in `index`, keeping the other names already recorded
    /// (older generations may still be served); written aside, then renamed over.
    pub fn record<'a>(
        index: &IndexDir,
        repos: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> std::io::Result<()> {
        let mut all = Self::read(index);
        for (name, root) in repos {
            all.repositories.insert(name.to_string(), root.to_string());
        }
        let path = index.root().join(CHECKOUTS);
        let tmp = index.root().join(format!("{CHECKOUTS}.tmp"));
        std::fs::write(&tmp, serde_json::to_vec_pretty(&all)?)?;
        std::fs::rename(&tmp, &path)
    }
}
