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

/// Steps between "files written" and "CURRENT replaced" where a test can inject a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPoint {
    /// After every file and the manifest are written, before the rename.
    AfterFilesWritten,
    /// After the rename, before `CURRENT` is replaced.
    AfterRename,
}

impl FaultPoint {
    pub fn parse(s: &str) -> Option<FaultPoint> {
        match s {
            "after-files-written" => Some(FaultPoint::AfterFilesWritten),
            "after-rename" => Some(FaultPoint::AfterRename),
            _ => None,
        }
    }
}

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
}

impl WriterLock {
    /// One more than the largest id in `CURRENT` or `generations/`.
    pub fn next_id(&self) -> Result<u64, FormatError> {
        let mut max = self.index.current()?.unwrap_or(0);
        let dir = self.index.generations();
        for entry in fs::read_dir(&dir).at(&dir)? {
            let entry = entry.at(&dir)?;
            if let Some(id) = entry.file_name().to_str().and_then(parse_generation_name) {
                max = max.max(id);
            }
        }
        if max >= 999_999 {
            return Err(FormatError::corrupt(
                GENERATIONS,
                "generation ids are exhausted",
            ));
        }
        Ok(max + 1)
    }

    /// Starts writing generation `id` into a fresh temporary directory, removing leftovers of
    /// earlier crashed writers first.
    pub fn stage(&self, id: u64) -> Result<Staging<'_>, FormatError> {
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
        })
    }
}

/// A generation being written.
#[derive(Debug)]
pub struct Staging<'a> {
    lock: &'a WriterLock,
    id: u64,
    dir: PathBuf,
    files: Vec<ManifestFile>,
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
        let path = self.dir.join(name);
        write_synced(&path, bytes)?;
        self.files.push(ManifestFile {
            name: name.to_string(),
            size: bytes.len() as u64,
            xxh3_128: digest_hex(bytes),
        });
        Ok(())
    }

    /// Writes the manifest and publishes the generation (steps 4–6 above).
    pub fn publish(
        mut self,
        mut manifest: Manifest,
        fault: Option<FaultPoint>,
    ) -> Result<PathBuf, FormatError> {
        self.files.sort_by(|a, b| a.name.cmp(&b.name));
        manifest.generation_id = self.id;
        manifest.files = std::mem::take(&mut self.files);
        let json =
            serde_json::to_vec_pretty(&manifest).map_err(|e| FormatError::Encode(e.to_string()))?;
        write_synced(&self.dir.join(MANIFEST), &json)?;
        sync_dir(&self.dir)?;
        if fault == Some(FaultPoint::AfterFilesWritten) {
            return Err(FormatError::Injected("after-files-written"));
        }

        let index = &self.lock.index;
        let final_dir = index.generation_dir(self.id);
        fs::rename(&self.dir, &final_dir).at(&final_dir)?;
        sync_dir(&index.generations())?;
        if fault == Some(FaultPoint::AfterRename) {
            return Err(FormatError::Injected("after-rename"));
        }

        let tmp = index.root().join("CURRENT.tmp");
        write_synced(&tmp, format!("{}\n", generation_name(self.id)).as_bytes())?;
        fs::rename(&tmp, index.current_path()).at(&index.current_path())?;
        sync_dir(index.root())?;
        Ok(final_dir)
    }
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
            let id = lock.next_id().unwrap();
            assert_eq!(id, expected);
            let mut s = lock.stage(id).unwrap();
            s.write("a.bin", b"x").unwrap();
            s.publish(manifest(), None).unwrap();
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

    #[test]
    fn fault_before_current_keeps_previous_generation() {
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        let lock = index.lock().unwrap();
        let mut s = lock.stage(1).unwrap();
        s.write("a.bin", b"one").unwrap();
        s.publish(manifest(), None).unwrap();
        for fault in [FaultPoint::AfterFilesWritten, FaultPoint::AfterRename] {
            let id = lock.next_id().unwrap();
            let mut s = lock.stage(id).unwrap();
            s.write("a.bin", b"two").unwrap();
            assert!(s.publish(manifest(), Some(fault)).is_err());
            assert_eq!(index.current().unwrap(), Some(1), "{fault:?}");
        }
        // The id after a crashed publish is still strictly larger than any directory seen.
        assert_eq!(lock.next_id().unwrap(), 3);
        // Staging again removes the crashed temporary directory.
        let _s = lock.stage(3).unwrap();
        let leftovers: Vec<_> = fs::read_dir(index.generations())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name().to_string_lossy().starts_with(".tmp-00000")
                    && e.file_name() != ".tmp-000003"
            })
            .collect();
        assert!(leftovers.is_empty());
    }
}
