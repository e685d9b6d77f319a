//! What discovery read of each file, kept beside the extraction cache so that a later compile
//! does not read a file that did not change (as git's index does).
//!
//! For each file of a repository the record holds the `lstat` fields that change when its bytes
//! do (size, modification and status-change times to the nanosecond, inode and device) with what
//! reading it gave: its SHA-256, its line count, whether it is binary, and the part of its text
//! that admission reads (Go's build constraints). Discovery trusts a record only when every one
//! of those fields is the same now and the file's times are more than [`RACY`] older than the
//! moment the compile that wrote the record began discovering, as the filesystem's clock tells
//! it (the modification time of a marker file written then): a file written in the same instant
//! as it was read could change without changing its times, so it is read again. Anything else
//! (no record, a field that differs, records of another build of the compiler, a damaged file of
//! records) reads the file; a record never stands for bytes it did not see. A file whose text is
//! needed later (its extraction is not cached) is read then; if its digest is no longer the
//! recorded one (a filesystem whose status does not follow its content), it is refused and the
//! repository's records are removed, so that the next compile reads every file.
//!
//! One file per repository root: `<cache dir>/stat/<xxh3-64 of the root, hex>.bin`, the magic
//! `KGSTAT\0\x02`, the postcard encoding of [`Records`], and the xxh3-64 of that encoding,
//! little-endian; written aside and renamed into place, so several compiles sharing the
//! directory read a whole file or none (the last one written wins; each is true of the files it
//! saw). The marker beside it is `<same name>.start`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 8] = b"KGSTAT\0\x02";

/// How much older than the recording compile's start a file's times must be to be trusted.
pub(crate) const RACY: i128 = 2_000_000_000;

/// The `lstat` fields that change when a file's bytes do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stat {
    pub size: u64,
    /// Nanoseconds since the epoch.
    pub mtime: i128,
    pub ctime: i128,
    pub ino: u64,
    pub dev: u64,
}

impl Stat {
    pub(crate) fn of(m: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        Stat {
            size: m.size(),
            mtime: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
            ino: m.ino(),
            dev: m.dev(),
        }
    }
}

/// What reading a file gave.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub stat: Stat,
    pub sha256: [u8; 32],
    pub lines: u32,
    pub binary: bool,
    /// What admission reads of the text ([`crate::lang::admission_text`]).
    pub admission: String,
}

/// The file's content.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Records {
    /// The build of the compiler that wrote them (what admission reads, and how lines and
    /// kinds are counted, are its own).
    build: String,
    /// When the compile that wrote them began discovering, in nanoseconds since the epoch.
    started: i128,
    /// By repository-relative path.
    entries: Vec<(String, Entry)>,
}

/// The records of one repository: those a former compile wrote, and those this one makes.
pub(crate) struct StatCache {
    path: std::sync::Arc<PathBuf>,
    started: i128,
    trusted_before: i128,
    old: FxHashMap<String, Entry>,
    new: Mutex<Vec<(String, Entry)>>,
}

fn ns(t: SystemTime) -> i128 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// Now, as the filesystem of `marker` tells it: the modification time of the marker, written
/// now (the files' times come from that clock); this machine's clock when it cannot be written.
fn started(marker: &Path) -> i128 {
    let stamped = marker
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(marker, b""))
        .and_then(|()| std::fs::metadata(marker))
        .and_then(|m| m.modified());
    ns(stamped.unwrap_or_else(|_| SystemTime::now()))
}

/// Each writer's temporary file has a name of its own.
static TMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl StatCache {
    /// The records of the repository at `root` kept under the cache directory `dir`; none when
    /// there are none or they do not check.
    pub(crate) fn open(dir: &Path, root: &Path) -> StatCache {
        let name = format!(
            "{:016x}.bin",
            xxhash_rust::xxh3::xxh3_64(root.as_os_str().as_encoded_bytes())
        );
        let path = dir.join("stat").join(name);
        let records = std::fs::read(&path)
            .ok()
            .and_then(|b| decode(&b))
            .filter(|r| r.build == crate::disk_cache::frontend_digest())
            .unwrap_or_default();
        StatCache {
            started: started(&path.with_extension("start")),
            path: std::sync::Arc::new(path),
            trusted_before: records.started - RACY,
            old: records.entries.into_iter().collect(),
            new: Mutex::new(Vec::new()),
        }
    }

    /// The record of `rel` when the file's status is the recorded one and old enough to trust.
    pub(crate) fn lookup(&self, rel: &str, stat: &Stat) -> Option<&Entry> {
        let e = self.old.get(rel)?;
        (e.stat == *stat && stat.mtime < self.trusted_before && stat.ctime < self.trusted_before)
            .then_some(e)
    }

    /// Keeps what reading or trusting `rel` gave, for the next compile.
    pub(crate) fn record(&self, rel: String, entry: Entry) {
        self.new
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((rel, entry));
    }

    /// Writes this compile's records (aside, then renamed over the former ones).
    pub(crate) fn write(self) -> std::io::Result<()> {
        let mut entries = self.new.into_inner().unwrap_or_else(|e| e.into_inner());
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let payload = postcard::to_allocvec(&Records {
            build: crate::disk_cache::frontend_digest().to_string(),
            started: self.started,
            entries,
        })
        .map_err(std::io::Error::other)?;
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&payload);
        bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
        let parent = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent)?;
        let tmp = self.path.with_extension(format!(
            "{}-{}.tmp",
            std::process::id(),
            TMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&tmp, &bytes)?;
        std::fs::rename(&tmp, &*self.path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Where the records are, so that a file found to differ from its record can remove them.
    pub(crate) fn records_path(&self) -> std::sync::Arc<PathBuf> {
        self.path.clone()
    }
}

/// The records in `bytes`, when the magic and the checksum hold and they decode.
fn decode(bytes: &[u8]) -> Option<Records> {
    let body = bytes.strip_prefix(MAGIC)?;
    let (payload, sum) = body.split_at_checked(body.len().checked_sub(8)?)?;
    (xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes() == sum).then_some(())?;
    postcard::from_bytes(payload).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(mtime: i128) -> Entry {
        Entry {
            stat: Stat {
                size: 3,
                mtime,
                ctime: mtime,
                ino: 7,
                dev: 1,
            },
            sha256: [9; 32],
            lines: 1,
            binary: false,
            admission: String::new(),
        }
    }

    /// Records `a.go` at `old` and `b.go` at `racy` again, by a compile started now.
    fn first_again(dir: &Path, root: &Path, old: i128, racy: i128) {
        let c = StatCache::open(dir, root);
        c.record("a.go".into(), entry(old));
        c.record("b.go".into(), entry(racy));
        c.write().unwrap();
    }

    #[test]
    fn records_are_trusted_only_when_the_status_matches_and_is_older_than_the_recording() {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new("/some/repo");
        let first = StatCache::open(dir.path(), root);
        let old = first.started - 10 * RACY;
        let racy = first.started - RACY / 2;
        first.record("a.go".into(), entry(old));
        first.record("b.go".into(), entry(racy));
        first.write().unwrap();

        let second = StatCache::open(dir.path(), root);
        assert!(second.lookup("a.go", &entry(old).stat).is_some());
        // Trusted against the start of the compile that recorded, not of the one that reads.
        let mut late = StatCache::open(dir.path(), root);
        late.started = old - 10 * RACY;
        late.record("a.go".into(), entry(old));
        late.write().unwrap();
        assert!(
            StatCache::open(dir.path(), root)
                .lookup("a.go", &entry(old).stat)
                .is_none(),
            "a record older than its file was trusted"
        );
        first_again(dir.path(), root, old, racy);
        let second = StatCache::open(dir.path(), root);
        // Written just before it was read: its bytes could have changed since within its times.
        assert!(second.lookup("b.go", &entry(racy).stat).is_none());
        let mut moved = entry(old).stat;
        moved.ino = 8;
        assert!(second.lookup("a.go", &moved).is_none());
        let mut touched = entry(old).stat;
        touched.ctime += 1;
        assert!(second.lookup("a.go", &touched).is_none());
        assert!(second.lookup("c.go", &entry(old).stat).is_none());
        // Another root's records are another file.
        assert!(
            StatCache::open(dir.path(), Path::new("/other"))
                .lookup("a.go", &entry(old).stat)
                .is_none()
        );

        // Another build's records are none.
        let file = (*second.records_path()).clone();
        let mut bytes = std::fs::read(&file).unwrap();
        let tampered = decode(&bytes).map(|mut r| {
            r.build = "another build".into();
            r
        });
        let payload = postcard::to_allocvec(&tampered.unwrap()).unwrap();
        let mut other = MAGIC.to_vec();
        other.extend_from_slice(&payload);
        other.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
        std::fs::write(&file, &other).unwrap();
        assert!(StatCache::open(dir.path(), root).old.is_empty());
        std::fs::write(&file, &bytes).unwrap();
        assert!(!StatCache::open(dir.path(), root).old.is_empty());

        // A damaged file is no records at all.
        let at = bytes.len() / 2;
        bytes[at] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        assert!(
            StatCache::open(dir.path(), root)
                .lookup("a.go", &entry(old).stat)
                .is_none()
        );
        std::fs::write(&file, b"KGSTAT").unwrap();
        assert!(StatCache::open(dir.path(), root).old.is_empty());
    }
}
