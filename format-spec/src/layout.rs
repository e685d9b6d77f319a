//! The on-disk layout of an index directory and crash-safe publishing.
//!
//! ```text
//! <index>/
//!   CURRENT                 "000007\n": the published generation
//!   LOCK                    held (flock) by the one compiler writing
//!   generations/000007/     an immutable generation
//!   generations/.tmp-000008 a generation being written; never read
//! ```
//!
//! Publishing, in order (a crash at any step leaves the previous generation served):
//! 1. take `LOCK` without waiting; a held lock is [`FormatError::Busy`];
//! 2. pick `id` = one more than the largest id seen in `CURRENT` or `generations/`;
//! 3. write every file into `generations/.tmp-<id>/`, fsync each file;
//! 4. write `manifest.json` with the size and digest of every file, fsync it and the directory;
//! 5. rename `.tmp-<id>` to `<id>` and fsync `generations/`;
//! 6. write `CURRENT.tmp`, fsync, rename over `CURRENT`, fsync `<index>/`.
//!
//! Readers only ever follow `CURRENT`, so a directory left by a crash in steps 3–5 is never seen,
//! and the next publish removes `.tmp-*` leftovers while holding the lock.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{FormatError, IoContext};
use crate::manifest::{Manifest, ManifestFile, digest_hex};

pub const CURRENT: &str = "CURRENT";
/// The machine-local map from repository names to their checkouts (SPEC 1.10).
pub const CHECKOUTS: &str = "checkouts.json";

pub const LOCK: &str = "LOCK";
pub const GENERATIONS: &str = "generations";
pub const MANIFEST: &str = "manifest.json";

/// Opens a file of an index for reading, refusing anything that is not a regular file: opening
/// a FIFO put in place of `CURRENT` or of a generation file would wait for a writer forever.
/// Symbolic links are followed to what they name.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    let not_regular = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (an index holds only regular files)",
        )
    };
    if !fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

/// Reads a whole regular file of an index (see [`open_regular`]).
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut open_regular(path)?, &mut bytes)?;
    Ok(bytes)
}

/// Formats a generation id as its 6-digit directory name.
pub fn generation_name(id: u64) -> String {
    format!("{id:06}")
}

/// Parses a 6-digit directory name; `000000` and anything else is `None`.
pub fn parse_generation_name(name: &str) -> Option<u64> {
    if name.len() != 6 || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse().ok().filter(|&id| id != 0)
}

/// A step of publishing (and of collecting old generations) where a test can inject a failure,
/// named by `KIVGRAPH_FAULT` in the compiler: `STEP` makes the step return an error,
/// `crash:STEP` aborts the process there, as a power cut or `kill -9` would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultPoint {
    pub step: FaultStep,
    pub crash: bool,
}

/// The steps of [`FaultPoint`], in the order a publish passes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultStep {
    /// After the first file of the generation is written, before the others.
    DuringWrite,
    /// After every file and the manifest are written, before the rename.
    AfterFilesWritten,
    /// After the rename, before `CURRENT` is replaced.
    AfterRename,
    /// After `CURRENT.tmp` is written, before it is renamed over `CURRENT`.
    BeforeCurrentSwap,
    /// After `CURRENT` is replaced, before old generations are collected.
    AfterCurrentSwap,
    /// While collecting: after the first old generation was moved aside, before it is removed.
    DuringCollect,
}

impl FaultStep {
    pub const ALL: [FaultStep; 6] = [
        FaultStep::DuringWrite,
        FaultStep::AfterFilesWritten,
        FaultStep::AfterRename,
        FaultStep::BeforeCurrentSwap,
        FaultStep::AfterCurrentSwap,
        FaultStep::DuringCollect,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultStep::DuringWrite => "during-write",
            FaultStep::AfterFilesWritten => "after-files-written",
            FaultStep::AfterRename => "after-rename",
            FaultStep::BeforeCurrentSwap => "before-current-swap",
            FaultStep::AfterCurrentSwap => "after-current-swap",
            FaultStep::DuringCollect => "during-collect",
        }
    }
}

impl FaultPoint {
    pub fn error(step: FaultStep) -> FaultPoint {
        FaultPoint { step, crash: false }
    }

    pub fn parse(s: &str) -> Option<FaultPoint> {
        let (crash, name) = match s.strip_prefix("crash:") {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let step = FaultStep::ALL.into_iter().find(|f| f.name() == name)?;
        Some(FaultPoint { step, crash })
    }
}

/// Fails or aborts when `fault` names `step`.
fn inject(fault: Option<FaultPoint>, step: FaultStep) -> Result<(), FormatError> {
    match fault {
        Some(f) if f.step == step && f.crash => std::process::abort(),
        Some(f) if f.step == step => Err(FormatError::Injected(step.name())),
        _ => Ok(()),
    }
}

/// How many generations a publish keeps by default: the new one and the two before it.
pub const DEFAULT_KEEP: usize = 3;

/// An index directory.
#[derive(Clone, Debug)]
pub struct IndexDir {
    root: PathBuf,
}

impl IndexDir {
    pub fn new(root: impl Into<PathBuf>) -> IndexDir {
        IndexDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn generations(&self) -> PathBuf {
        self.root.join(GENERATIONS)
    }

    pub fn generation_dir(&self, id: u64) -> PathBuf {
        self.generations().join(generation_name(id))
    }

    pub fn current_path(&self) -> PathBuf {
        self.root.join(CURRENT)
    }

    /// The published generation id, or `None` when nothing was ever published.
    pub fn current(&self) -> Result<Option<u64>, FormatError> {
        let path = self.current_path();
        let bytes = match read_regular(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(FormatError::io(path, e)),
        };
        let text = String::from_utf8_lossy(&bytes);
        parse_generation_name(text.trim()).map(Some).ok_or_else(|| {
            FormatError::corrupt(CURRENT, format!("not a generation id: {:?}", text.trim()))
        })
    }

    /// Takes the writer lock without waiting.
    pub fn lock(&self) -> Result<WriterLock, FormatError> {
        fs::create_dir_all(self.generations()).at(&self.generations())?;
        let path = self.root.join(LOCK);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .at(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(WriterLock {
                _file: file,
                index: self.clone(),
                keep: DEFAULT_KEEP,
            }),
            Err(fs::TryLockError::WouldBlock) => Err(FormatError::Busy {
                index: self.root.clone(),
                lock: path,
            }),
            Err(fs::TryLockError::Error(e)) => Err(FormatError::io(path, e)),
        }
    }
}

/// Proof that this process is the index's only writer; released on drop.
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
    index: IndexDir,
    keep: usize,
}

impl WriterLock {
    /// The index directory this lock is held on.
    pub fn index(&self) -> &IndexDir {
        &self.index
    }

    /// How many generations a publish keeps: the new one and the `n - 1` published before it
    /// (at least the new one). A generation a reader holds is kept whatever its age.
    pub fn keep(mut self, n: usize) -> WriterLock {
        self.keep = n.max(1);
        self
    }

    /// One more than the largest id in `CURRENT` or `generations/`. A `CURRENT` that names no
    /// id (garbage, or not a regular file) does not stop a publish, which replaces it: its
    /// problem is returned beside the id so the caller can say what was repaired.
    pub fn next_id(&self) -> Result<(u64, Option<FormatError>), FormatError> {
        let (mut max, problem) = match self.index.current() {
            Ok(id) => (id.unwrap_or(0), None),
            Err(e) => (0, Some(e)),
        };
        max = max.max(self.generation_ids()?.last().copied().unwrap_or(0));
        if max >= 999_999 {
            return Err(FormatError::corrupt(
                GENERATIONS,
                "generation ids are exhausted",
            ));
        }
        Ok((max + 1, problem))
    }

    /// Starts writing generation `id` into a fresh temporary directory, removing leftovers of
    /// earlier crashed writers first. `fault` is a test hook (see [`FaultPoint`]).
    pub fn stage(&self, id: u64, fault: Option<FaultPoint>) -> Result<Staging<'_>, FormatError> {
        let gens = self.index.generations();
        for entry in fs::read_dir(&gens).at(&gens)? {
            let entry = entry.at(&gens)?;
            if entry.file_name().to_string_lossy().starts_with(".tmp-") {
                fs::remove_dir_all(entry.path()).at(&entry.path())?;
            }
        }
        let dir = gens.join(format!(".tmp-{}", generation_name(id)));
        fs::create_dir_all(&dir).at(&dir)?;
        Ok(Staging {
            lock: self,
            id,
            dir,
            files: Vec::new(),
            fault,
            published: false,
        })
    }

    /// The ids of the generation directories, ascending.
    fn generation_ids(&self) -> Result<Vec<u64>, FormatError> {
        let dir = self.index.generations();
        let mut ids = Vec::new();
        for entry in fs::read_dir(&dir).at(&dir)? {
            let entry = entry.at(&dir)?;
            if let Some(id) = entry.file_name().to_str().and_then(parse_generation_name) {
                ids.push(id);
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }

    /// Removes the generations a publish of `current` no longer keeps (section 1.8 of SPEC.md):
    /// those left complete but unpublished by a crash (ids above `previous`, the id `CURRENT`
    /// named before, other than `current`), and all but the newest [`WriterLock::keep`] of the
    /// published ones. A generation a reader holds ([`Generation::open_dir`] takes a shared lock
    /// on its directory) is left for a later publish. Returns the ids removed.
    ///
    /// [`Generation::open_dir`]: crate::Generation::open_dir
    pub fn collect(
        &self,
        current: u64,
        previous: Option<u64>,
        fault: Option<FaultPoint>,
    ) -> Result<Vec<u64>, FormatError> {
        let ids = self.generation_ids()?;
        let published = |id: u64| id == current || previous.is_some_and(|p| id <= p);
        let kept: Vec<u64> = ids
            .iter()
            .rev()
            .copied()
            .filter(|&id| published(id))
            .take(self.keep)
            .collect();
        let mut removed = Vec::new();
        for id in ids.into_iter().filter(|id| !kept.contains(id)) {
            if self.remove_generation(id, removed.is_empty().then_some(fault).flatten())? {
                removed.push(id);
            }
        }
        Ok(removed)
    }

    /// Removes one generation directory unless a reader holds it: takes its lock exclusively
    /// without waiting, moves it aside under a `.tmp-` name (so a crash leaves only what the
    /// next [`WriterLock::stage`] clears), then deletes it. Returns whether it was removed.
    fn remove_generation(&self, id: u64, fault: Option<FaultPoint>) -> Result<bool, FormatError> {
        let dir = self.index.generation_dir(id);
        let handle = File::open(&dir).at(&dir)?;
        match handle.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Ok(false),
            Err(fs::TryLockError::Error(e)) => return Err(FormatError::io(dir, e)),
        }
        let aside = self
            .index
            .generations()
            .join(format!(".tmp-gc-{}", generation_name(id)));
        fs::rename(&dir, &aside).at(&aside)?;
        sync_dir(&self.index.generations())?;
        inject(fault, FaultStep::DuringCollect)?;
        fs::remove_dir_all(&aside).at(&aside)?;
        Ok(true)
    }
}

/// A generation being written. Dropped without publishing (an error on the way), it removes
/// its temporary directory, so a full disk is not left full.
#[derive(Debug)]
pub struct Staging<'a> {
    lock: &'a WriterLock,
    id: u64,
    dir: PathBuf,
    files: Vec<ManifestFile>,
    fault: Option<FaultPoint>,
    published: bool,
}

impl Staging<'_> {
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes one file of the generation and records its size and digest.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), FormatError> {
        let file = Self::store(&self.dir, name, bytes)?;
        self.record(file)
    }

    /// Writes one file into the staging directory `dir` (synced) and returns its manifest
    /// entry, without recording it: several threads may store files at once, each then
    /// [`Staging::record`]ing its entry.
    pub fn store(dir: &Path, name: &str, bytes: &[u8]) -> Result<ManifestFile, FormatError> {
        write_synced(&dir.join(name), bytes)?;
        Ok(ManifestFile {
            name: name.to_string(),
            size: bytes.len() as u64,
            xxh3_128: digest_hex(bytes),
        })
    }

    /// Records a file [`Staging::store`]d in this staging directory.
    pub fn record(&mut self, file: ManifestFile) -> Result<(), FormatError> {
        self.files.push(file);
        if self.files.len() == 1 {
            inject(self.fault, FaultStep::DuringWrite)?;
        }
        Ok(())
    }

    /// Writes the manifest, publishes the generation (steps 4–6 of SPEC.md section 1.4) and
    /// collects the generations no longer kept (section 1.8). The generation is published when
    /// this returns; a failure to collect is reported in [`Publication::collect_error`], not as
    /// an error, since the old generations are only left for the next publish.
    pub fn publish(mut self, mut manifest: Manifest) -> Result<Publication, FormatError> {
        self.files.sort_by(|a, b| a.name.cmp(&b.name));
        manifest.generation_id = self.id;
        manifest.files = std::mem::take(&mut self.files);
        let json =
            serde_json::to_vec_pretty(&manifest).map_err(|e| FormatError::Encode(e.to_string()))?;
        write_synced(&self.dir.join(MANIFEST), &json)?;
        sync_dir(&self.dir)?;
        inject(self.fault, FaultStep::AfterFilesWritten)?;

        let index = &self.lock.index;
        // A garbage CURRENT must not refuse every later publish: it names nothing to keep.
        let previous = index.current().ok().flatten();
        let final_dir = index.generation_dir(self.id);
        fs::rename(&self.dir, &final_dir).at(&final_dir)?;
        self.published = true;
        sync_dir(&index.generations())?;
        inject(self.fault, FaultStep::AfterRename)?;

        let tmp = index.root().join("CURRENT.tmp");
        write_synced(&tmp, format!("{}\n", generation_name(self.id)).as_bytes())?;
        inject(self.fault, FaultStep::BeforeCurrentSwap)?;
        fs::rename(&tmp, index.current_path()).at(&index.current_path())?;
        sync_dir(index.root())?;
        inject(self.fault, FaultStep::AfterCurrentSwap)?;

        let (removed, collect_error) = match self.lock.collect(self.id, previous, self.fault) {
            Ok(removed) => (removed, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        Ok(Publication {
            dir: final_dir,
            removed,
            collect_error,
        })
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        if !self.published {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// What a publish did.
#[derive(Debug)]
pub struct Publication {
    /// The new generation's directory.
    pub dir: PathBuf,
    /// Ids of the generations collected.
    pub removed: Vec<u64>,
    /// Why collecting stopped, when it did (the generation is published all the same).
    pub collect_error: Option<FormatError>,
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    let mut f = File::create(path).at(path)?;
    f.write_all(bytes).at(path)?;
    f.sync_all().at(path)
}

fn sync_dir(path: &Path) -> Result<(), FormatError> {
    File::open(path).and_then(|d| d.sync_all()).at(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on another thread and fails if it has not returned within ten seconds (a read
    /// that waits for a FIFO's writer never would).
    fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(f()));
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("the call hung")
    }

    /// `CURRENT` (or any file of an index) that is a FIFO is an error, not a wait forever.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        let fifo = index.current_path();
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
        let err = within_seconds(move || index.current()).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let path = fifo.clone();
        let err = within_seconds(move || read_regular(&path)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        // A symbolic link to a regular file is followed; a directory is refused.
        std::fs::remove_file(&fifo).unwrap();
        std::fs::write(dir.path().join("target"), "000003\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("target"), &fifo).unwrap();
        assert_eq!(IndexDir::new(dir.path()).current().unwrap(), Some(3));
        assert!(open_regular(dir.path()).is_err());
    }

    fn manifest() -> Manifest {
        Manifest {
            format_version: crate::FORMAT_VERSION,
            generation_id: 0,
            created_at: String::new(),
            created_at_ms: 0,
            compiler_version: "test".into(),
            repositories: vec![],
            row_counts: Default::default(),
            tallies: Default::default(),
            files: vec![],
        }
    }

    #[test]
    fn ids_increase_and_never_zero() {
        assert_eq!(parse_generation_name("000000"), None);
        assert_eq!(parse_generation_name("000012"), Some(12));
        assert_eq!(parse_generation_name("12"), None);
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        assert_eq!(index.current().unwrap(), None);
        let lock = index.lock().unwrap();
        for expected in 1..=3 {
            let (id, _) = lock.next_id().unwrap();
            assert_eq!(id, expected);
            let mut s = lock.stage(id, None).unwrap();
            s.write("a.bin", b"x").unwrap();
            s.publish(manifest()).unwrap();
            assert_eq!(index.current().unwrap(), Some(id));
        }
    }

    #[test]
    fn second_writer_is_busy() {
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        let _held = index.lock().unwrap();
        let err = IndexDir::new(dir.path()).lock().unwrap_err();
        assert!(matches!(err, FormatError::Busy { .. }), "{err}");
        assert!(err.to_string().contains("busy"));
    }

    /// Publishes one generation holding `a.bin` = `bytes`.
    fn publish(
        lock: &WriterLock,
        bytes: &[u8],
        fault: Option<FaultPoint>,
    ) -> Result<u64, FormatError> {
        let (id, _) = lock.next_id()?;
        let mut s = lock.stage(id, fault)?;
        s.write("a.bin", bytes)?;
        s.write("b.bin", bytes)?;
        s.publish(manifest())?;
        Ok(id)
    }

    fn entries(index: &IndexDir) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(index.generations())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn fault_before_current_keeps_previous_generation() {
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        let lock = index.lock().unwrap();
        publish(&lock, b"one", None).unwrap();
        for step in [
            FaultStep::DuringWrite,
            FaultStep::AfterFilesWritten,
            FaultStep::AfterRename,
            FaultStep::BeforeCurrentSwap,
        ] {
            assert!(publish(&lock, b"two", Some(FaultPoint::error(step))).is_err());
            assert_eq!(index.current().unwrap(), Some(1), "{step:?}");
        }
        // An error before the rename removes the staging directory at once; after it, the
        // complete but unpublished directories stay until the next publish collects them.
        // (whose id the first two errors therefore reused).
        assert_eq!(entries(&index), ["000001", "000002", "000003"]);
        // The id after a crashed publish is still strictly larger than any directory seen.
        assert_eq!(publish(&lock, b"three", None).unwrap(), 4);
        assert_eq!(entries(&index), ["000001", "000004"]);
    }

    #[test]
    fn publishing_keeps_the_newest_and_what_readers_hold() {
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        let lock = index.lock().unwrap().keep(2);
        for _ in 0..3 {
            publish(&lock, b"x", None).unwrap();
        }
        assert_eq!(entries(&index), ["000002", "000003"]);
        // A reader's shared lock on generation 2 keeps it past its turn; once released, the
        // next publish collects it.
        let reader = File::open(index.generation_dir(2)).unwrap();
        reader.try_lock_shared().unwrap();
        publish(&lock, b"x", None).unwrap();
        assert_eq!(entries(&index), ["000002", "000003", "000004"]);
        drop(reader);
        publish(&lock, b"x", None).unwrap();
        assert_eq!(entries(&index), ["000004", "000005"]);
        // A collection cut short leaves only a `.tmp-` entry, which the next stage clears.
        assert!(
            publish(
                &lock,
                b"x",
                Some(FaultPoint::error(FaultStep::DuringCollect))
            )
            .is_ok()
        );
        assert_eq!(entries(&index), [".tmp-gc-000004", "000005", "000006"]);
        publish(&lock, b"x", None).unwrap();
        assert_eq!(entries(&index), ["000006", "000007"]);
    }

    #[test]
    fn a_garbage_current_is_replaced_not_a_dead_end() {
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        let lock = index.lock().unwrap();
        publish(&lock, b"x", None).unwrap();
        fs::write(index.current_path(), "garbage\n").unwrap();
        let (id, problem) = lock.next_id().unwrap();
        assert_eq!(id, 2);
        assert!(problem.unwrap().to_string().contains("not a generation id"));
        publish(&lock, b"x", None).unwrap();
        assert_eq!(index.current().unwrap(), Some(2));
    }

    #[test]
    fn fault_points_parse_with_and_without_crash() {
        for step in FaultStep::ALL {
            assert_eq!(
                FaultPoint::parse(step.name()),
                Some(FaultPoint::error(step))
            );
            let crash = FaultPoint::parse(&format!("crash:{}", step.name())).unwrap();
            assert!(crash.crash && crash.step == step);
        }
        assert_eq!(FaultPoint::parse("after-lunch"), None);
    }
}
