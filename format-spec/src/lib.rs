#![doc = include_str!("../README.md")]

pub mod blob;
pub mod checkouts;
pub mod error;
pub mod feed;
pub mod file_symbols;
pub mod git;
pub mod graph;
#[cfg(feature = "tables")]
pub mod hive;
pub mod key;
pub mod layout;
pub mod manifest;
pub mod name_grams;
pub mod names;
pub mod pack;
pub mod scope_reach;
#[cfg(feature = "tables")]
pub mod tables;
pub mod terms;
mod verify;
pub mod vocab;

pub use blob::{ArchivedGraphBlob, GraphBlob, NONE};
pub use error::FormatError;
pub use graph::{Damage, Graph, damage_count, note_damage, take_damage};
pub use layout::{FaultPoint, IndexDir};
pub use manifest::Manifest;
pub use verify::{VerifyReport, verify_generation};
pub use vocab::{Confidence, EdgeKind, FileStatus, Language, Provenance, SymbolKind};

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::manifest::digest_hex;

/// The generation format version this build writes and reads. Bumped on any incompatible change
/// to a table schema, the blob layout, the name index or the directory layout.
pub const FORMAT_VERSION: u32 = 2;

/// File names inside a generation directory.
pub const GRAPH_BLOB: &str = "graph.blob";
pub const NAMES_FST: &str = "names.fst";

/// An opened generation: the manifest, the graph blob and the name index, memory-mapped.
///
/// Opening checks the manifest and its generation id, the blob's header and the block holding
/// the archive's root, and the name index's header (section 1.7 of SPEC.md): its cost does not
/// grow with the graph. Every later read is checked where it happens ([`graph`]): a block of the
/// blob against its sum on its first read, the name index and the optional indexes against their
/// digests on their first use. Nothing is deserialized or rebuilt.
#[derive(Debug)]
pub struct Generation {
    pub id: u64,
    pub dir: PathBuf,
    pub manifest: Manifest,
    blob: Mapped,
    /// Where the archive and its block sums are in the mapped blob, and which blocks were found
    /// whole.
    blocks: graph::Blocks,
    names: fst::Map<NameBytes>,
    /// Whether `names.fst` matched the manifest's digest, checked on its first use.
    names_whole: std::sync::OnceLock<bool>,
    /// What a damaged name index reads as: no names.
    no_names: fst::Map<NameBytes>,
    names_file: MappedFile,
    /// `file_symbols.bin`, read whole on first use (it is small: four bytes a symbol and a file),
    /// when the manifest lists it and its digest, header and length check; generations written
    /// before have none.
    file_symbols: std::sync::OnceLock<Option<Vec<u8>>>,
    /// `name_grams.bin`, read whole on first use, when listed and its digest, header and length
    /// check.
    name_grams: std::sync::OnceLock<Option<Vec<u8>>>,
    /// `scope_reach.bin`, read whole on first use, when listed and its digest, header and length
    /// check.
    scope_reach: std::sync::OnceLock<Option<Vec<u8>>>,
    /// Its entries, read on first use.
    scope_reach_table: std::sync::OnceLock<Option<scope_reach::ReachTable>>,
    /// For each repository, the others with a package edge into it; built on first use (or the
    /// damage its reading met).
    repository_users: std::sync::OnceLock<Result<Vec<Vec<u32>>, Damage>>,
    /// The generation directory, opened and locked shared for as long as the generation is open,
    /// so that a publish's collection of old generations leaves it alone (SPEC.md section 1.8).
    _held: File,
}

/// The bytes of a name index: the mapped file, or the empty index a damaged one reads as.
#[derive(Debug)]
pub enum NameBytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl AsRef<[u8]> for NameBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            NameBytes::Mapped(m) => m,
            NameBytes::Owned(v) => v,
        }
    }
}

/// A memory-mapped file together with the open file it maps and what it looked like when it
/// was checked, so a later change made in place can be noticed.
#[derive(Debug)]
struct Mapped {
    map: Mmap,
    file: MappedFile,
}

#[derive(Debug)]
struct MappedFile {
    name: &'static str,
    file: File,
    seen: std::sync::Mutex<FileStamp>,
}

/// Size and times of an open file: a write made in place through another handle changes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub len: u64,
    pub modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    pub changed: (i64, i64),
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

impl Generation {
    /// Opens the generation `CURRENT` names, or `Ok(None)` when nothing is published.
    pub fn open_current(index: &IndexDir) -> Result<Option<Generation>, FormatError> {
        match index.current()? {
            None => Ok(None),
            Some(id) => Generation::open_dir(&index.generation_dir(id)).map(Some),
        }
    }

    /// Opens one generation directory, with the checks of SPEC.md section 1.7.
    pub fn open_dir(dir: &Path) -> Result<Generation, FormatError> {
        Generation::open_dir_guarded(dir, |_, _| Ok(()))
    }

    /// [`Generation::open_dir`], calling `guard` on each file it maps (`graph.blob`,
    /// `names.fst`) once it is open and before any of its bytes is read: a reader that leases
    /// the files takes the lease there, so that no writer can change them while they are checked.
    pub fn open_dir_guarded(
        dir: &Path,
        guard: impl Fn(&'static str, &File) -> Result<(), FormatError>,
    ) -> Result<Generation, FormatError> {
        let held = hold(dir)?;
        let manifest = read_manifest(dir)?;
        check_generation_id(dir, &manifest)?;
        let blob = Mapped::open(dir, GRAPH_BLOB, &guard)?;
        let (header, archive, sums) = blob::parts(&blob.map)?;
        let sums_at = blob.map.len() - sums.len();
        let blocks =
            graph::Blocks::new(header.shift, blob::BLOB_HEADER_LEN, archive.len(), sums_at);
        let root_len = std::mem::size_of::<ArchivedGraphBlob>();
        if archive.len() < root_len
            || !(archive.len() - root_len).is_multiple_of(std::mem::align_of::<ArchivedGraphBlob>())
        {
            return Err(FormatError::corrupt(
                GRAPH_BLOB,
                format!("an archive of {} bytes cannot hold the root", archive.len()),
            ));
        }
        blocks
            .holds(&blob.map, archive.len() - root_len, archive.len())
            .map_err(|what| FormatError::corrupt(GRAPH_BLOB, format!("the root's {what}")))?;
        // SAFETY: the root's bytes match the writer's sums, so they are the root the writer
        // archived; `sections_in_bounds` then checks that every array it points to lies inside
        // the archive before any is read.
        let root = unsafe { rkyv::access_unchecked::<ArchivedGraphBlob>(archive) };
        graph::sections_in_bounds(root, &blob.map, archive, &blocks)
            .map_err(|what| FormatError::corrupt(GRAPH_BLOB, what))?;
        let names = Mapped::open(dir, NAMES_FST, &guard)?;
        let recorded = manifest.files.iter().find(|f| f.name == NAMES_FST);
        match recorded {
            None => return Err(FormatError::corrupt(NAMES_FST, "missing from the manifest")),
            Some(f) if f.size != names.map.len() as u64 => {
                return Err(FormatError::corrupt(
                    NAMES_FST,
                    "size differs from the manifest",
                ));
            }
            Some(_) => {}
        }
        let Mapped {
            map: names_map,
            file: names_file,
        } = names;
        let no_names = fst::Map::default().into_fst().into_inner();
        Ok(Generation {
            id: manifest.generation_id,
            dir: dir.to_path_buf(),
            manifest,
            blob,
            blocks,
            names: names::open(NameBytes::Mapped(names_map))?,
            names_whole: std::sync::OnceLock::new(),
            no_names: names::open(NameBytes::Owned(no_names))?,
            names_file,
            file_symbols: std::sync::OnceLock::new(),
            name_grams: std::sync::OnceLock::new(),
            scope_reach: std::sync::OnceLock::new(),
            scope_reach_table: std::sync::OnceLock::new(),
            repository_users: std::sync::OnceLock::new(),
            _held: held,
        })
    }

    /// The graph, straight off the mmap, read through the checks of [`graph`].
    pub fn graph(&self) -> Graph<'_> {
        let (_, archive) = self.archive();
        // SAFETY: opening checked the root's block against its sum and every array's bounds, and
        // a published generation is immutable, so the root is still the one that was checked.
        let root = unsafe { rkyv::access_unchecked::<ArchivedGraphBlob>(archive) };
        Graph::new(root, &self.blob.map, archive, &self.blocks)
    }

    /// The whole graph, checked byte for byte (every block against its sum, the archive's
    /// structure and invariants) and deserialized: for tools that rewrite a generation, never
    /// for answering.
    pub fn deserialize(&self) -> Result<GraphBlob, FormatError> {
        rkyv::deserialize::<GraphBlob, rkyv::rancor::Error>(self.archived()?)
            .map_err(|e| FormatError::corrupt(GRAPH_BLOB, e.to_string()))
    }

    /// The archived graph, checked byte for byte first (every block against its sum, the
    /// archive's structure and invariants): for tools that need the archive's own layout, never
    /// for answering (it reads the whole blob).
    pub fn archived(&self) -> Result<&ArchivedGraphBlob, FormatError> {
        let (_, archive) = self.archive();
        let (header, _, sums) = blob::parts(&self.blob.map)?;
        blob::check_blocks(archive, sums, header.shift)?;
        blob::validate(archive)
    }

    /// The mapped file and the archive inside it.
    fn archive(&self) -> (&[u8], &[u8]) {
        let end = blob::BLOB_HEADER_LEN + self.blocks_len();
        (&self.blob.map, &self.blob.map[blob::BLOB_HEADER_LEN..end])
    }

    fn blocks_len(&self) -> usize {
        self.blocks.archive_len()
    }

    /// Lets go of the mapped pages of the blob and the name index this process has read: they
    /// stay in the page cache, and the next read of one maps it again. For a reader that bounds
    /// its resident memory (and for benchmarks that measure what a workload touches).
    #[cfg(unix)]
    pub fn release_pages(&self) {
        // SAFETY: both are read-only mappings of files that are not changed while the generation
        // is open (leases, or the freshness check of the engine's store); dropping their page
        // table entries loses nothing, the next read faults the same bytes in from the file.
        unsafe {
            let _ = self
                .blob
                .map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed);
            if let NameBytes::Mapped(m) = self.names.as_fst().as_inner() {
                let _ = m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed);
            }
        }
    }

    /// How many blocks of the blob were read and found whole, and how many damaged, so far.
    pub fn blocks_checked(&self) -> (u64, u64) {
        self.blocks.checked()
    }

    /// An optional index: read whole on its first use, kept when its digest is the manifest's
    /// and `parse` accepts it; a damaged one costs a scan, never a row, and never the generation.
    fn optional<'a>(
        &'a self,
        cell: &'a std::sync::OnceLock<Option<Vec<u8>>>,
        name: &str,
        parse: impl Fn(&[u8]) -> bool,
    ) -> Option<&'a [u8]> {
        if let Some(known) = cell.get() {
            return known.as_deref();
        }
        // Kept once known: the file's bytes when they hold, `None` when the manifest does not
        // list it or its bytes do not hold. A read that fails (a descriptor limit, a transient
        // error) is not an answer about the file and is tried again next time.
        let verdict = match self.manifest.files.iter().find(|f| f.name == name) {
            None => None,
            Some(recorded) => {
                let bytes = layout::read_regular(&self.dir.join(name)).ok()?;
                (bytes.len() as u64 == recorded.size
                    && digest_hex(&bytes) == recorded.xxh3_128
                    && parse(&bytes))
                .then_some(bytes)
            }
        };
        let _ = cell.set(verdict);
        cell.get()?.as_deref()
    }

    /// The bytes of `graph.blob` as mapped, header included. Archived fields borrowed from
    /// [`Generation::archived`] point into this slice.
    pub fn blob_bytes(&self) -> &[u8] {
        &self.blob.map
    }

    /// Each file's symbols, when the generation has the index (SPEC 7.8).
    pub fn file_symbols(&self) -> Option<file_symbols::FileSymbols<'_>> {
        let g = self.graph();
        let (files, symbols) = (g.files.len(), g.symbols.len());
        let parse = |b: &[u8]| {
            file_symbols::FileSymbols::parse(b, files, symbols)
                .ok()
                .is_some()
        };
        let bytes = self.optional(&self.file_symbols, file_symbols::FILE_SYMBOLS, parse)?;
        file_symbols::FileSymbols::parse(bytes, files, symbols).ok()
    }

    /// The trigrams of the distinct names, when the generation has them (SPEC 7.9).
    pub fn name_grams(&self) -> Option<name_grams::NameGrams<'_>> {
        let parse = |b: &[u8]| name_grams::NameGrams::parse(b).is_ok();
        name_grams::NameGrams::parse(self.optional(
            &self.name_grams,
            name_grams::NAME_GRAMS,
            parse,
        )?)
        .ok()
    }

    /// What the invisible scopes import and declare, when the generation says (SPEC 7.10).
    pub fn scope_reach(&self) -> Option<scope_reach::ScopeReach<'_>> {
        let records = self.graph().unresolved.len();
        let parse = |b: &[u8]| scope_reach::ScopeReach::parse(b, records).is_ok();
        scope_reach::ScopeReach::parse(
            self.optional(&self.scope_reach, scope_reach::SCOPE_REACH, parse)?,
            records,
        )
        .ok()
    }

    /// Every entry of `scope_reach.bin`, read once; `None` when the generation has none or one
    /// does not read (a reader then takes every scope as one that may hold anything).
    pub fn scope_reach_table(&self) -> Option<&scope_reach::ReachTable> {
        self.scope_reach_table
            .get_or_init(|| scope_reach::ReachTable::read(&self.scope_reach()?).ok())
            .as_ref()
    }

    /// For each repository (by index), the other repositories whose packages have a package
    /// edge into one of its packages, sorted: the repositories that use it directly. Read off the package edges on first use.
    pub fn repository_users(&self) -> &[Vec<u32>] {
        let built = self.repository_users.get_or_init(|| {
            // Damage noted earlier in the call is not this table's: set aside, and noted again.
            let earlier = take_damage();
            let before = damage_count();
            let b = self.graph();
            let mut users: Vec<Vec<u32>> = vec![Vec::new(); b.repositories.len()];
            let repo_of = |p: u32| {
                b.packages
                    .get(p as usize)
                    .map(|p| p.repository.to_native() as usize)
            };
            for e in b.package_edges.iter() {
                if let (Some(from), Some(to)) =
                    (repo_of(e.source.to_native()), repo_of(e.target.to_native()))
                    && from != to
                    && to < users.len()
                    && from < users.len()
                {
                    users[to].push(from as u32);
                }
            }
            for u in &mut users {
                u.sort_unstable();
                u.dedup();
            }
            let mine = (damage_count() != before).then(|| {
                take_damage().unwrap_or_else(|| Damage {
                    file: GRAPH_BLOB,
                    region: "package edges",
                    what: "damaged".into(),
                })
            });
            if let Some(d) = earlier {
                note_damage(d);
            }
            match mine {
                Some(d) => Err(d),
                None => Ok(users),
            }
        });
        match built {
            Ok(users) => users,
            Err(damage) => {
                note_damage(damage.clone());
                &[]
            }
        }
    }

    /// The name index, checked against the manifest's digest on its first use; a damaged one
    /// reads as empty and notes the damage.
    pub fn names(&self) -> &fst::Map<NameBytes> {
        let whole = *self.names_whole.get_or_init(|| self.names_digest_holds());
        if whole {
            return &self.names;
        }
        note_damage(Damage {
            file: NAMES_FST,
            region: "name index",
            what: "its bytes differ from the manifest's digest".into(),
        });
        &self.no_names
    }

    /// Bytes of all files of the generation, as the manifest records them.
    pub fn size_on_disk(&self) -> u64 {
        self.manifest.files.iter().map(|f| f.size).sum()
    }

    /// The open files behind the mappings (`graph.blob`, `names.fst`), for a reader that wants
    /// to be told before another process writes to them (a lease, for example).
    pub fn mapped_files(&self) -> [(&'static str, &File); 2] {
        [
            (self.blob.file.name, &self.blob.file.file),
            (self.names_file.name, &self.names_file.file),
        ]
    }

    /// Checks that the mapped files were not changed in place since they were opened, and says
    /// which one was. A generation is immutable by contract; a mapped file that changes anyway
    /// can no longer be trusted, and one that shrank can no longer be read. When only a file's
    /// times moved (a link count changed, a copy that preserves times), its bytes are checked
    /// against its checksum again and, if they still match, the file is trusted as it is now.
    pub fn check_unchanged(&self) -> Result<(), String> {
        type StillWhole = fn(&Generation) -> bool;
        let checks: [(&MappedFile, StillWhole); 2] = [
            (&self.blob.file, Generation::blob_checksum_holds),
            (&self.names_file, Generation::names_digest_holds),
        ];
        for (mapped, checksum_holds) in checks {
            let now = match mapped.file.metadata() {
                Ok(m) => FileStamp::of(&m),
                Err(e) => return Err(format!("{} can no longer be examined: {e}", mapped.name)),
            };
            let mut seen = mapped.seen.lock().unwrap_or_else(|e| e.into_inner());
            if now == *seen {
                continue;
            }
            if now.len != seen.len {
                return Err(format!(
                    "{} changed size on disk after it was opened ({} bytes, was {})",
                    mapped.name, now.len, seen.len
                ));
            }
            if !checksum_holds(self) {
                return Err(format!(
                    "{} was written to after it was opened",
                    mapped.name
                ));
            }
            *seen = now;
        }
        Ok(())
    }

    fn blob_checksum_holds(&self) -> bool {
        blob::parts(&self.blob.map).is_ok_and(|(header, archive, sums)| {
            xxhash_rust::xxh3::xxh3_128(archive) == header.checksum
                && blob::check_blocks(archive, sums, header.shift).is_ok()
        })
    }

    fn names_digest_holds(&self) -> bool {
        let bytes = self.names.as_fst().as_bytes();
        self.manifest
            .files
            .iter()
            .any(|f| f.name == NAMES_FST && f.xxh3_128 == digest_hex(bytes))
    }
}

/// Opens a generation directory and takes a shared lock on it without waiting. The lock is only
/// refused while a publish is removing the directory.
fn hold(dir: &Path) -> Result<File, FormatError> {
    let handle = File::open(dir).map_err(|e| FormatError::io(dir, e))?;
    match handle.try_lock_shared() {
        Ok(()) => Ok(handle),
        Err(std::fs::TryLockError::WouldBlock) => Err(FormatError::io(
            dir,
            std::io::Error::other("the generation is being removed by a newer publish"),
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(FormatError::io(dir, e)),
    }
}

impl Mapped {
    fn open(
        dir: &Path,
        name: &'static str,
        guard: &impl Fn(&'static str, &File) -> Result<(), FormatError>,
    ) -> Result<Mapped, FormatError> {
        let path = dir.join(name);
        let file = layout::open_regular(&path).map_err(|e| FormatError::io(&path, e))?;
        guard(name, &file)?;
        let seen = file
            .metadata()
            .map(|m| FileStamp::of(&m))
            .map_err(|e| FormatError::io(&path, e))?;
        // SAFETY: generation files are written once and never modified after publishing; the
        // mapping is read-only, and a reader that cannot rule out a change in place checks
        // `changed_on_disk` (see the engine's store).
        let map = unsafe { Mmap::map(&file) }.map_err(|e| FormatError::io(&path, e))?;
        Ok(Mapped {
            map,
            file: MappedFile {
                name,
                file,
                seen: std::sync::Mutex::new(seen),
            },
        })
    }
}

/// A manifest's generation id must be the one its directory is named for: a reader reports
/// (and a cursor records) the id, so a disagreement would pin clients to a wrong snapshot.
fn check_generation_id(dir: &Path, manifest: &Manifest) -> Result<(), FormatError> {
    let bad = |what: String| Err(FormatError::corrupt(layout::MANIFEST, what));
    if manifest.generation_id == 0 {
        return bad("generation id 0 is never published".into());
    }
    match dir
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(layout::parse_generation_name)
    {
        Some(id) if id != manifest.generation_id => bad(format!(
            "records generation {} but lives in directory {}",
            manifest.generation_id,
            layout::generation_name(id)
        )),
        _ => Ok(()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A generation of another format version is refused with both versions named.
    #[test]
    fn incompatible_manifest_names_both_versions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(layout::MANIFEST),
            r#"{"format_version": 9}"#,
        )
        .unwrap();
        let err = Generation::open_dir(dir.path()).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, FormatError::Version { found: 9, .. }),
            "{text}"
        );
        assert!(
            text.contains("version 9") && text.contains(&format!("version {FORMAT_VERSION}")),
            "{text}"
        );
    }
}
