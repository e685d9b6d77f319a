//! One generation as one file (SPEC 1.11): a tar archive of `manifest.json` followed by the
//! files the manifest lists, in name order, each with mode 0644, owner 0 and time 0, so that
//! packing the same generation twice gives the same bytes. A generation records no path of the
//! machine that compiled it (1.10), so the archive can be installed anywhere.
//!
//! [`install`] takes an archive from anywhere, trusted or not, and publishes it as a new
//! generation of an index only when all of it checks: `manifest.json` first and at most 16 MiB;
//! then exactly the files it lists, each a regular file of the size it records and no other name;
//! then the full verification of the generation (digests, blob, name index, term index, row
//! counts). Anything else is an error naming what was wrong, and the index is left as it was.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::error::FormatError;
use crate::layout::{IndexDir, MANIFEST};
use crate::manifest::Manifest;

/// The largest `manifest.json` an archive may carry.
const MAX_MANIFEST: u64 = 16 << 20;

fn header(name: &str, size: u64) -> Result<tar::Header, FormatError> {
    let mut h = tar::Header::new_ustar();
    h.set_path(name)
        .map_err(|e| FormatError::Encode(format!("pack: {name}: {e}")))?;
    h.set_size(size);
    h.set_mode(0o644);
    h.set_uid(0);
    h.set_gid(0);
    h.set_mtime(0);
    h.set_entry_type(tar::EntryType::Regular);
    h.set_cksum();
    Ok(h)
}

/// Writes the generation in `dir` to `out` as one archive. The generation is read as its
/// manifest lists it; the caller verifies it first.
pub fn write(dir: &Path, out: &Path) -> Result<(), FormatError> {
    let manifest_path = dir.join(MANIFEST);
    let manifest_bytes = crate::layout::read_regular(&manifest_path)
        .map_err(|e| FormatError::io(&manifest_path, e))?;
    let manifest: Manifest = serde_json::from_slice(&manifest_bytes)
        .map_err(|e| FormatError::corrupt(MANIFEST, e.to_string()))?;
    no_checkout_paths(dir, &manifest).map_err(|e| {
        FormatError::Encode(format!(
            "{e}: the generation was compiled before generations were portable; compile it again \
             to pack it"
        ))
    })?;
    let tmp = out.with_extension("tmp");
    let file = File::create(&tmp).map_err(|e| FormatError::io(&tmp, e))?;
    let mut builder = tar::Builder::new(std::io::BufWriter::new(file));
    let mut append = |name: &str, bytes: &[u8]| -> Result<(), FormatError> {
        builder
            .append(&header(name, bytes.len() as u64)?, bytes)
            .map_err(|e| FormatError::io(&tmp, e))
    };
    append(MANIFEST, &manifest_bytes)?;
    let mut names: Vec<&str> = manifest.files.iter().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    for name in names {
        let path = dir.join(name);
        let bytes = crate::layout::read_regular(&path).map_err(|e| FormatError::io(&path, e))?;
        append(name, &bytes)?;
    }
    let mut w = builder.into_inner().map_err(|e| FormatError::io(&tmp, e))?;
    w.flush().map_err(|e| FormatError::io(&tmp, e))?;
    w.get_ref()
        .sync_all()
        .map_err(|e| FormatError::io(&tmp, e))?;
    drop(w);
    std::fs::rename(&tmp, out).map_err(|e| FormatError::io(out, e))
}

/// A packed generation records no checkout (SPEC 1.10): one that does could make a server read
/// outside the checkouts this machine maps, so it is refused.
fn no_checkout_paths(dir: &Path, manifest: &Manifest) -> Result<(), FormatError> {
    if let Some(r) = manifest.repositories.iter().find(|r| !r.root.is_empty()) {
        return Err(FormatError::corrupt(
            MANIFEST,
            format!(
                "records a checkout path for repository {:?}; a packed generation records none",
                r.name
            ),
        ));
    }
    let path = dir.join(crate::GRAPH_BLOB);
    let bytes = crate::layout::read_regular(&path).map_err(|e| FormatError::io(&path, e))?;
    let (_, archive) = crate::blob::archive_bytes(&bytes)?;
    let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(archive.len());
    aligned.extend_from_slice(archive);
    let graph = crate::blob::validate(&aligned)?;
    for r in graph.repositories.iter() {
        if !graph.strings.get(r.root.to_native()).is_empty() {
            return Err(FormatError::corrupt(
                crate::GRAPH_BLOB,
                format!(
                    "records a checkout path for repository {:?}; a packed generation records none",
                    graph.strings.get(r.name.to_native())
                ),
            ));
        }
    }
    Ok(())
}

/// The blob, the name index, or a table (`<name>.parquet`, the name lower-case letters and `_`).
fn is_generation_file(name: &str) -> bool {
    name == crate::GRAPH_BLOB
        || name == crate::NAMES_FST
        || name == crate::file_symbols::FILE_SYMBOLS
        || name == crate::name_grams::NAME_GRAMS
        || name == crate::scope_reach::SCOPE_REACH
        || name.strip_suffix(".parquet").is_some_and(|t| {
            !t.is_empty() && t.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        })
}

/// What [`install`] published.
#[derive(Debug)]
pub struct Installed {
    pub generation_id: u64,
    pub dir: PathBuf,
    /// The id the generation had where it was packed.
    pub packed_id: u64,
}

/// Publishes the archive `archive` as a new generation of `index`, after checking all of it.
pub fn install(archive: &Path, index: &IndexDir) -> Result<Installed, FormatError> {
    const WHAT: &str = "the archive";
    let bad = |what: String| FormatError::corrupt(WHAT, what);
    let file = File::open(archive).map_err(|e| FormatError::io(archive, e))?;
    std::fs::create_dir_all(index.generations()).map_err(|e| FormatError::io(index.root(), e))?;
    let lock = index.lock()?;
    let (id, _) = lock.next_id()?;
    let mut staging = lock.stage(id, None)?;
    let mut tar = tar::Archive::new(std::io::BufReader::new(file));
    let mut entries = tar
        .entries()
        .map_err(|e| bad(format!("not a tar archive: {e}")))?;
    let read_entry = |e: &mut tar::Entry<_>,
                      limit: u64|
     -> Result<(String, Vec<u8>), FormatError> {
        if e.header().entry_type() != tar::EntryType::Regular {
            return Err(bad(format!(
                "holds an entry that is not a regular file ({:?})",
                e.header().entry_type()
            )));
        }
        let name = e
            .path()
            .map_err(|err| bad(format!("an entry name does not read: {err}")))?
            .to_string_lossy()
            .into_owned();
        if name.is_empty() || name.contains('/') || name.contains('\\') || name.starts_with('.') {
            return Err(bad(format!(
                "holds the entry {name:?}, which no generation has"
            )));
        }
        let size = e.header().size().map_err(|err| bad(err.to_string()))?;
        if size > limit {
            return Err(bad(format!("entry {name:?} is {size} bytes, over {limit}")));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        e.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|err| bad(format!("entry {name:?} does not read: {err}")))?;
        if bytes.len() as u64 != size {
            return Err(bad(format!("entry {name:?} is cut short")));
        }
        Ok((name, bytes))
    };

    let mut first = entries
        .next()
        .ok_or_else(|| bad("is empty".into()))?
        .map_err(|e| bad(format!("does not read: {e}")))?;
    let (name, manifest_bytes) = read_entry(&mut first, MAX_MANIFEST)?;
    if name != MANIFEST {
        return Err(bad(format!("starts with {name:?}, not {MANIFEST}")));
    }
    drop(first);
    let mut manifest: Manifest = serde_json::from_slice(&manifest_bytes)
        .map_err(|e| FormatError::corrupt(MANIFEST, e.to_string()))?;
    let packed_id = manifest.generation_id;
    let mut wanted: std::collections::BTreeMap<String, u64> = manifest
        .files
        .iter()
        .map(|f| (f.name.clone(), f.size))
        .collect();
    if wanted.len() != manifest.files.len() {
        return Err(FormatError::corrupt(MANIFEST, "lists a file twice"));
    }
    if let Some(name) = wanted.keys().find(|n| !is_generation_file(n)) {
        return Err(FormatError::corrupt(
            MANIFEST,
            format!("lists {name:?}, which is not a file of a generation"),
        ));
    }
    for entry in entries {
        let mut entry = entry.map_err(|e| bad(format!("does not read: {e}")))?;
        let name = entry
            .path()
            .map_err(|e| bad(format!("an entry name does not read: {e}")))?
            .to_string_lossy()
            .into_owned();
        let Some(size) = wanted.remove(&name) else {
            return Err(bad(format!(
                "holds {name:?}, which its manifest does not list (or lists once)"
            )));
        };
        let (name, bytes) = read_entry(&mut entry, size)?;
        if bytes.len() as u64 != size {
            return Err(bad(format!(
                "entry {name:?} is {} bytes; the manifest records {size}",
                bytes.len()
            )));
        }
        staging.write(&name, &bytes)?;
    }
    if let Some(missing) = wanted.keys().next() {
        return Err(bad(format!("lacks {missing:?}, which its manifest lists")));
    }
    // The whole check, on the files as staged, with the manifest as packed.
    manifest.generation_id = id;
    let json =
        serde_json::to_vec_pretty(&manifest).map_err(|e| FormatError::Encode(e.to_string()))?;
    let staged_manifest = staging.dir().join(MANIFEST);
    std::fs::write(&staged_manifest, json).map_err(|e| FormatError::io(&staged_manifest, e))?;
    crate::verify_generation(staging.dir())?;
    no_checkout_paths(staging.dir(), &manifest)?;
    let publication = staging.publish(manifest)?;
    Ok(Installed {
        generation_id: id,
        dir: publication.dir,
        packed_id,
    })
}
