//! The extraction cache on disk: what phase 1 made of each file, kept between compiles and
//! processes, beside the index (`<index>/cache/`) or in a directory several indexes share.
//!
//! Extraction sees nothing but its file (SPEC's phase 1), so its result is a function of the
//! file's bytes, its repository and path, its language, its build configuration and the build of
//! the compiler that extracted it. An entry is named by the 128-bit digest of all of these
//! ([`Key::digest`], with the digest of the compiler's sources made at build time), so an entry
//! of another build, another configuration or other bytes is never found.
//!
//! One file per entry, `<dir>/<2 hex>/<30 hex>`, written aside and renamed into place, so two
//! compiles sharing the directory see each entry whole or not at all. An entry holds a header
//! (magic, format version, the full key digest, the payload's length and XXH3-64) and the
//! payload; anything that does not check, or does not decode, is a miss, counted as rejected and
//! removed: a damaged cache costs time, never a wrong fact. Reading an entry stamps its
//! modification time; when a compile wrote entries and the directory exceeds its limit, the
//! entries used least recently are removed until it holds at most 80 % of the limit.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde::de::DeserializeOwned;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::cache::Key;

/// The digest of the sources this compiler was built from (`build.rs`).
const FRONTEND_DIGEST: &str = env!("KIVGRAPH_FRONTEND_DIGEST");

/// The digest of the sources this compiler was built from: what every cache key starts with.
pub(crate) fn frontend_digest() -> &'static str {
    FRONTEND_DIGEST
}

const MAGIC: &[u8; 8] = b"KGXCACHE";
const FORMAT: u32 = 1;
/// Magic, format, reserved, key digest, payload length, payload checksum.
const HEADER: usize = 8 + 4 + 4 + 16 + 8 + 8;

/// How stale an entry's modification time may be before a read stamps it again.
const STAMP_EVERY: Duration = Duration::from_secs(600);

/// The default bound on a cache directory's size.
pub const DEFAULT_LIMIT: u64 = 2 << 30;

/// Where the extraction cache of a compile is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheDir {
    /// No cache: every file is parsed.
    Off,
    /// `<index>/cache`.
    #[default]
    Beside,
    /// A directory of its own, which several indexes may share.
    At(PathBuf),
}

/// What the cache did in one compile (`--json`'s `cache`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheStats {
    /// Files whose extraction was read from the cache.
    pub hits: u64,
    /// Files extracted because the cache held no usable entry.
    pub misses: u64,
    /// Entries found damaged or undecodable (and removed); each also counts as a miss.
    pub rejected: u64,
    /// Entries written, and their bytes.
    pub written: u64,
    pub written_bytes: u64,
    /// Entries removed to keep the directory under its limit.
    pub evicted: u64,
    /// Bytes in the directory after the compile (when it was measured).
    pub bytes: u64,
    /// Why the cache could not be written, when it could not (the compile goes on without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// An open cache directory.
#[derive(Debug)]
pub(crate) struct DiskCache {
    dir: PathBuf,
    limit: u64,
    hits: AtomicU64,
    misses: AtomicU64,
    rejected: AtomicU64,
    written: AtomicU64,
    written_bytes: AtomicU64,
    write_failed: std::sync::Mutex<Option<String>>,
    /// The thread that writes entries, started by the first: extraction hands it an entry and
    /// goes on, so the files' creation overlaps the compile instead of stalling it.
    writer: std::sync::Mutex<Option<Writer>>,
}

/// An entry to write: its path and bytes.
type Entry = (PathBuf, Vec<u8>);

/// The writer thread of a [`DiskCache`] and its queue.
#[derive(Debug)]
struct Writer {
    queue: std::sync::mpsc::SyncSender<Entry>,
    /// Entries written, their bytes, and the first failure (after which nothing is written).
    thread: std::thread::JoinHandle<(u64, u64, Option<String>)>,
}

/// Entries waiting for the writer at most (a bound on the memory they hold).
const QUEUE: usize = 512;

impl Writer {
    fn start(dir: PathBuf) -> std::io::Result<Writer> {
        let (queue, entries) = std::sync::mpsc::sync_channel::<Entry>(QUEUE);
        let thread = std::thread::Builder::new()
            .name("kivgraph-cache-writer".into())
            .spawn(move || {
                let (mut written, mut bytes, mut failure) = (0, 0, None);
                let tmp_dir = dir.join("tmp");
                let mut made: std::collections::HashSet<PathBuf> = Default::default();
                for (path, entry) in entries {
                    if failure.is_some() {
                        continue;
                    }
                    let tmp = tmp_dir.join(format!(
                        "{}-{}",
                        std::process::id(),
                        TMP_SEQ.fetch_add(1, Ordering::Relaxed)
                    ));
                    let mut write = || -> std::io::Result<()> {
                        for d in [Some(tmp_dir.as_path()), path.parent()]
                            .into_iter()
                            .flatten()
                        {
                            if !made.contains(d) {
                                fs::create_dir_all(d)?;
                                made.insert(d.to_path_buf());
                            }
                        }
                        let mut f = fs::File::create(&tmp)?;
                        f.write_all(&entry)?;
                        drop(f);
                        fs::rename(&tmp, &path)
                    };
                    match write() {
                        Ok(()) => {
                            written += 1;
                            bytes += entry.len() as u64;
                        }
                        Err(e) => {
                            let _ = fs::remove_file(&tmp);
                            failure = Some(format!("{}: {e}", dir.display()));
                        }
                    }
                }
                (written, bytes, failure)
            })?;
        Ok(Writer { queue, thread })
    }
}

impl Key {
    /// The digest an entry is named by: the compiler build, the extraction's type, and the key.
    pub(crate) fn digest<P: 'static>(&self) -> u128 {
        let mut h = Xxh3::new();
        let mut field = |b: &[u8]| {
            h.update(&(b.len() as u64).to_le_bytes());
            h.update(b);
        };
        field(FRONTEND_DIGEST.as_bytes());
        field(std::any::type_name::<P>().as_bytes());
        field(self.repo.as_bytes());
        field(self.path.as_bytes());
        field(&[self.language.code()]);
        field(&self.sha256);
        match &self.features {
            None => field(b"-"),
            Some(fs) => {
                for f in fs.iter() {
                    field(f.as_bytes());
                }
                field(b"+");
            }
        }
        h.digest128()
    }
}

impl DiskCache {
    /// The cache in `dir`, holding at most about `limit` bytes. Nothing is created until an
    /// entry is written.
    pub(crate) fn new(dir: PathBuf, limit: u64) -> DiskCache {
        DiskCache {
            dir,
            limit,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            written: AtomicU64::new(0),
            written_bytes: AtomicU64::new(0),
            write_failed: std::sync::Mutex::new(None),
            writer: std::sync::Mutex::new(None),
        }
    }

    fn path_of(&self, digest: u128) -> PathBuf {
        let hex = format!("{digest:032x}");
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// The extraction kept under `digest`, when an entry is there and checks.
    pub(crate) fn get<P: DeserializeOwned>(&self, digest: u128) -> Option<P> {
        let path = self.path_of(digest);
        let value = match read_entry(&path, digest) {
            Read::Absent => None,
            Read::Damaged => {
                self.rejected.fetch_add(1, Ordering::Relaxed);
                let _ = fs::remove_file(&path);
                None
            }
            Read::Payload(bytes) => match postcard::from_bytes::<P>(&bytes) {
                Ok(v) => Some(v),
                Err(_) => {
                    self.rejected.fetch_add(1, Ordering::Relaxed);
                    let _ = fs::remove_file(&path);
                    None
                }
            },
        };
        match value {
            Some(_) => self.hits.fetch_add(1, Ordering::Relaxed),
            None => self.misses.fetch_add(1, Ordering::Relaxed),
        };
        value
    }

    /// Keeps `value` under `digest`. A failure to write leaves the compile as it is and is
    /// reported once in the statistics.
    pub(crate) fn put<P: Serialize>(&self, digest: u128, value: &P) {
        if self.write_failed.lock().is_ok_and(|f| f.is_some()) {
            return;
        }
        let payload = match postcard::to_allocvec(value) {
            Ok(p) => p,
            Err(e) => {
                self.failed(format!("an extraction could not be encoded: {e}"));
                return;
            }
        };
        let mut bytes = Vec::with_capacity(HEADER + payload.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&digest.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&xxh3_64(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        let path = self.path_of(digest);
        let Ok(mut writer) = self.writer.lock() else {
            return;
        };
        if writer.is_none() {
            match Writer::start(self.dir.clone()) {
                Ok(w) => *writer = Some(w),
                Err(e) => {
                    drop(writer);
                    self.failed(format!("{}: no writer thread: {e}", self.dir.display()));
                    return;
                }
            }
        }
        let queue = writer.as_ref().map(|w| w.queue.clone());
        // Not held while the queue is full: the other threads go on handing entries in.
        drop(writer);
        if let Some(q) = queue
            && q.send((path, bytes)).is_err()
        {
            self.failed(format!("{}: the writer thread stopped", self.dir.display()));
        }
    }

    /// Waits until every entry handed in so far is written; the next one starts a new writer.
    pub(crate) fn flush(&self) {
        let Some(Writer { queue, thread }) = self.writer.lock().ok().and_then(|mut w| w.take())
        else {
            return;
        };
        drop(queue);
        match thread.join() {
            Ok((n, bytes, failure)) => {
                self.written.fetch_add(n, Ordering::Relaxed);
                self.written_bytes.fetch_add(bytes, Ordering::Relaxed);
                if let Some(why) = failure {
                    self.failed(why);
                }
            }
            Err(_) => self.failed(format!("{}: the writer thread failed", self.dir.display())),
        }
    }

    fn failed(&self, why: String) {
        if let Ok(mut f) = self.write_failed.lock() {
            f.get_or_insert(why);
        }
    }

    /// Ends a compile: keeps the directory under its limit when this compile wrote to it, and
    /// says what the cache did.
    pub(crate) fn finish(&self) -> CacheStats {
        // Every entry handed in is written (or the failure known) before the statistics.
        self.flush();
        let mut stats = CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            written_bytes: self.written_bytes.load(Ordering::Relaxed),
            unavailable: self.write_failed.lock().ok().and_then(|f| f.clone()),
            ..CacheStats::default()
        };
        if stats.written > 0 {
            let (evicted, bytes) = evict(&self.dir, self.limit);
            stats.evicted = evicted;
            stats.bytes = bytes;
        }
        stats
    }
}

impl Drop for DiskCache {
    /// A compile that ends without [`DiskCache::finish`] (an error) still lets the entries it
    /// handed in be written, so that nothing is cut off half-way when the process exits.
    fn drop(&mut self) {
        self.flush();
    }
}

enum Read {
    Absent,
    Damaged,
    Payload(Vec<u8>),
}

/// Numbers the writes of this process: two compiles of one process (an engine's `index_project`
/// beside another, or two threads) share a cache directory without sharing a temporary name.
static TMP_SEQ: AtomicU64 = AtomicU64::new(0);

fn read_entry(path: &Path, digest: u128) -> Read {
    let Ok(file) = fs::File::open(path) else {
        return Read::Absent;
    };
    let mut bytes = Vec::new();
    if std::io::Read::read_to_end(&mut &file, &mut bytes).is_err() {
        return Read::Damaged;
    }
    // The least recently used entries are evicted first. An entry stamped within the last
    // [`STAMP_EVERY`] keeps its stamp: rewriting an inode on every read costs more than the
    // read itself, and eviction needs recency only at that grain.
    let now = SystemTime::now();
    let recent = file
        .metadata()
        .and_then(|m| m.modified())
        .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < STAMP_EVERY));
    if !recent {
        let _ = file.set_modified(now);
    }
    if bytes.len() < HEADER
        || &bytes[..8] != MAGIC
        || bytes[8..12] != FORMAT.to_le_bytes()
        || bytes[12..16] != [0; 4]
        || bytes[16..32] != digest.to_le_bytes()
    {
        return Read::Damaged;
    }
    let len = u64::from_le_bytes(bytes[32..40].try_into().expect("8 bytes"));
    let sum = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
    if len != (bytes.len() - HEADER) as u64 || xxh3_64(&bytes[HEADER..]) != sum {
        return Read::Damaged;
    }
    bytes.drain(..HEADER);
    Read::Payload(bytes)
}

/// Removes the least recently used entries until the directory holds at most 80 % of `limit`
/// (when it holds more than `limit`), and leftovers of interrupted writes older than an hour.
/// Returns the entries removed and the bytes that remain.
fn evict(dir: &Path, limit: u64) -> (u64, u64) {
    let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    let stale = SystemTime::now() - Duration::from_secs(3600);
    let Ok(shards) = fs::read_dir(dir) else {
        return (0, 0);
    };
    for shard in shards.flatten() {
        let is_tmp = shard.file_name() == "tmp";
        let Ok(files) = fs::read_dir(shard.path()) else {
            continue;
        };
        for f in files.flatten() {
            let Ok(meta) = f.metadata() else { continue };
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if is_tmp {
                if mtime < stale {
                    let _ = fs::remove_file(f.path());
                }
                continue;
            }
            entries.push((mtime, meta.len(), f.path()));
        }
    }
    let mut total: u64 = entries.iter().map(|e| e.1).sum();
    if total <= limit {
        return (0, total);
    }
    entries.sort();
    let target = (u128::from(limit) * 4 / 5) as u64;
    let mut evicted = 0;
    for (_, len, path) in entries {
        if total <= target {
            break;
        }
        if fs::remove_file(&path).is_ok() {
            total -= len;
            evicted += 1;
        }
    }
    (evicted, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kivgraph_format::Language;

    fn key(sha: u8) -> Key {
        Key::new::<Vec<String>>("r", "a.go", Language::Go, [sha; 32], None)
    }

    #[test]
    fn an_entry_written_is_read_back_and_a_damaged_one_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path().join("c"), DEFAULT_LIMIT);
        let d = key(1).digest::<Vec<String>>();
        assert_eq!(cache.get::<Vec<String>>(d), None);
        cache.put(d, &vec!["x".to_string(), "y".to_string()]);
        cache.flush();
        assert_eq!(
            cache.get::<Vec<String>>(d),
            Some(vec!["x".to_string(), "y".to_string()])
        );
        // Every byte flipped in turn: never a value other than the one written.
        let path = cache.path_of(d);
        let good = fs::read(&path).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            fs::write(&path, &bad).unwrap();
            assert_eq!(cache.get::<Vec<String>>(d), None, "byte {i} flipped");
            assert!(!path.exists(), "a damaged entry is removed");
        }
        // Cut short.
        fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert_eq!(cache.get::<Vec<String>>(d), None);
        let stats = cache.finish();
        assert_eq!(stats.hits, 1);
        assert_eq!(stats.rejected, good.len() as u64 + 1);
        assert_eq!(stats.written, 1);
    }

    #[test]
    fn keys_differ_in_every_part() {
        let base = key(1).digest::<Vec<String>>();
        let others = [
            key(2).digest::<Vec<String>>(),
            key(1).digest::<Vec<u8>>(),
            Key::new::<Vec<String>>("s", "a.go", Language::Go, [1; 32], None)
                .digest::<Vec<String>>(),
            Key::new::<Vec<String>>("r", "b.go", Language::Go, [1; 32], None)
                .digest::<Vec<String>>(),
            Key::new::<Vec<String>>("r", "a.go", Language::Rust, [1; 32], None)
                .digest::<Vec<String>>(),
            Key::new::<Vec<String>>(
                "r",
                "a.go",
                Language::Go,
                [1; 32],
                Some(std::sync::Arc::new(Default::default())),
            )
            .digest::<Vec<String>>(),
        ];
        for o in others {
            assert_ne!(base, o);
        }
    }

    #[test]
    fn a_read_stamps_an_entry_last_used_long_ago() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path().to_path_buf(), 1 << 30);
        let (old, fresh) = (
            key(1).digest::<Vec<String>>(),
            key(2).digest::<Vec<String>>(),
        );
        let long_ago = SystemTime::now() - Duration::from_secs(86_400);
        let just_now = SystemTime::now() - Duration::from_secs(5);
        for (d, t) in [(old, long_ago), (fresh, just_now)] {
            cache.put(d, &vec!["p".to_string()]);
            cache.flush();
            fs::File::open(cache.path_of(d))
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        let mtime = |d| fs::metadata(cache.path_of(d)).unwrap().modified().unwrap();
        assert!(cache.get::<Vec<String>>(old).is_some());
        assert!(cache.get::<Vec<String>>(fresh).is_some());
        assert!(
            mtime(old) > just_now,
            "an entry unused for a day is stamped when read"
        );
        assert_eq!(mtime(fresh), just_now, "a recent stamp is kept");
    }

    #[test]
    fn the_least_recently_used_entries_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path().to_path_buf(), 1);
        let payload = vec!["p".repeat(1000)];
        let digests: Vec<u128> = (0..10).map(|i| key(i).digest::<Vec<String>>()).collect();
        for (i, d) in digests.iter().enumerate() {
            cache.put(*d, &payload);
            cache.flush();
            let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + i as u64);
            fs::File::open(cache.path_of(*d))
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        let one = fs::metadata(cache.path_of(digests[0])).unwrap().len();
        // Room for five entries: 80 % of it keeps four, the newest.
        let (evicted, bytes) = evict(dir.path(), one * 5);
        assert_eq!(evicted, 6);
        assert_eq!(bytes, one * 4);
        for (i, d) in digests.iter().enumerate() {
            assert_eq!(cache.path_of(*d).exists(), i >= 6, "entry {i}");
        }
    }
}
