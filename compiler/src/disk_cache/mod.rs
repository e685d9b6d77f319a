//! The extraction cache on disk: what phase 1 made of each file, kept between compiles and
//! processes, beside the index (`<index>/cache/`) or in a directory several indexes share.
//!
//! Extraction sees nothing but its file (SPEC's phase 1), so its result is a function of the
//! file's bytes, its repository and path, its language, its build configuration and the build of
//! the compiler that extracted it. An entry is named by the 128-bit digest of all of these
//! ([`Key::digest`], with the digest of the compiler's sources made at build time), so an entry
//! of another build, another configuration or other bytes is never found.
//!
//! Entries live in *packs* (SPEC 1.9): each compile that extracts something writes the entries
//! it made into one new file, `<dir>/packs/<name>.xpack`, written aside and renamed into place,
//! so two compiles sharing the directory see each pack whole or not at all (creating a file costs
//! far more than writing one: one file per entry made the cache a large part of a cold compile).
//! An entry holds a header (magic, format version, the full key digest, the payload's length and
//! XXH3-64) and the payload; a pack ends with an index of its entries and a footer that checks
//! it. An entry that does not check, or does not decode, is a miss, counted as rejected; the
//! compile extracts the file again and its new pack, read after the older ones, holds the good
//! entry. A pack whose index does not check is rejected and removed. A damaged cache costs
//! time, never a wrong fact. Reading from a pack stamps its modification time (at a ten-minute
//! grain); when a compile wrote a pack and the directory exceeds its limit, the packs used least
//! recently are removed until it holds at most 80 % of the limit, and when a compile finds more
//! than [`COMPACT_AT`] packs it merges the small ones (each edit's compile makes one) into one.

use std::fs;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cache::Key;

mod decode;
mod layout;
use decode::decode;
pub(crate) use decode::exact_vec;
use layout::{check_entry, entry_bytes, footer, index_row, read_index};

/// The digest of the sources this compiler was built from (`build.rs`).
const FRONTEND_DIGEST: &str = env!("KIVGRAPH_FRONTEND_DIGEST");

/// The digest of the sources this compiler was built from: what every cache key starts with.
pub(crate) fn frontend_digest() -> &'static str {
    FRONTEND_DIGEST
}

/// Where the packs are, under the cache directory.
const PACKS: &str = "packs";
const PACK_EXT: &str = "xpack";

/// How stale a pack's modification time may be before a read stamps it again.
const STAMP_EVERY: Duration = Duration::from_secs(600);

/// Packs beyond which a compile that finds them merges the small ones (which bounds the packs a
/// compile opens).
pub(crate) const COMPACT_AT: usize = 64;

/// The size up to which a pack is merged with the others when there are too many.
const SMALL_PACK: u64 = 4 << 20;

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
    /// Entries read from the cache: files' extractions, and what whole steps of a compile
    /// kept (the standard library's references, the name and term indexes of a generation).
    pub hits: u64,
    /// Entries looked for and not found usable: files extracted again, steps run again.
    pub misses: u64,
    /// Entries found damaged or undecodable, and packs whose index did not check (removed);
    /// each damaged entry also counts as a miss.
    pub rejected: u64,
    /// Entries written, and their bytes.
    pub written: u64,
    pub written_bytes: u64,
    /// Packs removed to keep the directory under its limit, or merged into one.
    pub evicted: u64,
    /// Bytes in the directory after the compile (when it was measured).
    pub bytes: u64,
    /// Why the cache could not be written, when it could not (the compile goes on without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// One pack, open for reading.
#[derive(Debug)]
struct Pack {
    path: PathBuf,
    file: fs::File,
    /// Its size in bytes.
    size: u64,
    /// Whether this compile has stamped (or found recent) its modification time.
    stamped: AtomicBool,
}

/// The packs a compile reads, and where each digest's entry is: (pack, offset, length). A later
/// pack's entry wins over an earlier one's (it is the one a compile made after finding the
/// other damaged).
#[derive(Debug, Default)]
struct Packs {
    packs: Vec<Arc<Pack>>,
    index: crate::hash::HashMap<u128, (usize, u64, u64)>,
    /// Packs found in the directory when it was first read.
    found: usize,
}

/// An open cache directory.
#[derive(Debug)]
pub(crate) struct DiskCache {
    dir: PathBuf,
    limit: u64,
    /// Read when the first entry is looked up.
    packs: Mutex<Option<Packs>>,
    /// The packs this cache wrote.
    own: Mutex<Vec<PathBuf>>,
    hits: AtomicU64,
    misses: AtomicU64,
    rejected: AtomicU64,
    written: AtomicU64,
    written_bytes: AtomicU64,
    evicted: AtomicU64,
    write_failed: Mutex<Option<String>>,
    /// The thread that writes this compile's pack, started by the first entry: extraction hands
    /// it an entry and goes on.
    writer: Mutex<Option<Writer>>,
}

/// The writer thread of a [`DiskCache`] and its queue of entries (header and payload).
#[derive(Debug)]
struct Writer {
    queue: std::sync::mpsc::SyncSender<Vec<u8>>,
    /// Entries written, their bytes, the pack written (when one was), and the first failure
    /// (after which nothing is written).
    thread: std::thread::JoinHandle<WriterEnd>,
}

type WriterEnd = (u64, u64, Option<PathBuf>, Option<String>);

/// An entry's pack, offset, length and digest.
type Located = (Arc<Pack>, u64, u64, u128);

/// Entries waiting for the writer at most (a bound on the memory they hold).
const QUEUE: usize = 512;

/// Numbers the packs of this process: two compiles of one process (an engine's `index_project`
/// beside another, or two threads) share a cache directory without sharing a name.
static SEQ: AtomicU64 = AtomicU64::new(0);

impl Writer {
    fn start(dir: PathBuf) -> std::io::Result<Writer> {
        let (queue, entries) = std::sync::mpsc::sync_channel::<Vec<u8>>(QUEUE);
        let thread = std::thread::Builder::new()
            .name("kivgraph-cache-writer".into())
            .spawn(move || write_pack(&dir, entries))?;
        Ok(Writer { queue, thread })
    }
}

/// Writes the entries received into one pack (aside, then renamed into `packs/`).
fn write_pack(dir: &Path, entries: std::sync::mpsc::Receiver<Vec<u8>>) -> WriterEnd {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    // Names sort in the order packs were made: a later pack's entries win.
    let name = format!(
        "{now:016x}-{:08x}-{:08x}.{PACK_EXT}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let tmp = dir.join("tmp").join(&name);
    let open = || -> std::io::Result<std::io::BufWriter<fs::File>> {
        fs::create_dir_all(dir.join("tmp"))?;
        fs::create_dir_all(dir.join(PACKS))?;
        Ok(std::io::BufWriter::with_capacity(
            1 << 20,
            fs::File::create(&tmp)?,
        ))
    };
    let (mut written, mut bytes) = (0u64, 0u64);
    let mut index: Vec<u8> = Vec::new();
    let mut out: Option<std::io::BufWriter<fs::File>> = None;
    let mut failure: Option<String> = None;
    for entry in entries {
        if failure.is_some() {
            continue;
        }
        let step = (|| -> std::io::Result<()> {
            if out.is_none() {
                out = Some(open()?);
            }
            let w = out.as_mut().expect("opened");
            w.write_all(&entry)?;
            index_row(&mut index, &entry, bytes);
            Ok(())
        })();
        match step {
            Ok(()) => {
                written += 1;
                bytes += entry.len() as u64;
            }
            Err(e) => failure = Some(format!("{}: {e}", dir.display())),
        }
    }
    let Some(mut w) = out else {
        return (0, 0, None, failure);
    };
    if failure.is_none() {
        let finish = (|| -> std::io::Result<PathBuf> {
            w.write_all(&index)?;
            w.write_all(&footer(&index, bytes, written))?;
            w.flush()?;
            drop(w);
            let path = dir.join(PACKS).join(&name);
            fs::rename(&tmp, &path)?;
            Ok(path)
        })();
        match finish {
            Ok(path) => return (written, bytes, Some(path), None),
            Err(e) => failure = Some(format!("{}: {e}", dir.display())),
        }
    }
    let _ = fs::remove_file(&tmp);
    (0, 0, None, failure)
}

impl Key {
    /// The digest an entry is named by: the compiler build, the extraction's type, and the key.
    pub(crate) fn digest<P: 'static>(&self) -> u128 {
        let mut h = kivgraph_format::feed::Feed::new();
        h.field(FRONTEND_DIGEST.as_bytes());
        h.field(std::any::type_name::<P>().as_bytes());
        h.field(self.repo.as_bytes());
        h.field(self.path.as_bytes());
        h.field(&[self.language.code()]);
        h.field(&self.sha256);
        match &self.features {
            None => h.field(b"-"),
            Some(fs) => {
                for f in fs.iter() {
                    h.field(f.as_bytes());
                }
                h.field(b"+");
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
            packs: Mutex::new(None),
            own: Mutex::new(Vec::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            written: AtomicU64::new(0),
            written_bytes: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            write_failed: Mutex::new(None),
            writer: Mutex::new(None),
        }
    }

    /// Where `digest`'s entry is: its pack, offset and length.
    fn find(&self, digest: u128) -> Option<(Arc<Pack>, u64, u64)> {
        let mut guard = self.packs.lock().unwrap_or_else(|e| e.into_inner());
        let packs = guard.get_or_insert_with(|| self.load());
        let &(p, offset, len) = packs.index.get(&digest)?;
        Some((packs.packs[p].clone(), offset, len))
    }

    /// Reads every pack's index; a pack whose index does not check is rejected and removed.
    fn load(&self) -> Packs {
        let mut packs = Packs::default();
        let Ok(listing) = fs::read_dir(self.dir.join(PACKS)) else {
            return packs;
        };
        let mut paths: Vec<PathBuf> = listing
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == PACK_EXT))
            .collect();
        paths.sort();
        for path in paths {
            self.add_pack(&mut packs, path);
        }
        packs.found = packs.packs.len();
        packs
    }

    /// Adds the pack at `path` to `packs`, unless it cannot be opened (gone) or its index does
    /// not check (then it is rejected and removed).
    fn add_pack(&self, packs: &mut Packs, path: PathBuf) {
        let Ok(file) = fs::File::open(&path) else {
            return;
        };
        match read_index(&file) {
            Some((size, rows)) => {
                let p = packs.packs.len();
                for (digest, offset, len) in rows {
                    packs.index.insert(digest, (p, offset, len));
                }
                packs.packs.push(Arc::new(Pack {
                    path,
                    file,
                    size,
                    stamped: AtomicBool::new(false),
                }));
            }
            None => {
                self.rejected.fetch_add(1, Ordering::Relaxed);
                let _ = fs::remove_file(&path);
            }
        }
    }

    /// The extraction kept under `digest`, when an entry is there and checks.
    pub(crate) fn get<P: DeserializeOwned>(&self, digest: u128) -> Option<P> {
        let value = self.find(digest).and_then(|(pack, offset, len)| {
            let mut bytes = vec![0u8; len as usize];
            let payload = pack
                .file
                .read_exact_at(&mut bytes, offset)
                .ok()
                .and_then(|()| check_entry(&bytes, digest));
            let value = payload.and_then(decode::<P>);
            match value {
                Some(v) => {
                    stamp(&pack);
                    Some(v)
                }
                None => {
                    self.rejected.fetch_add(1, Ordering::Relaxed);
                    None
                }
            }
        });
        match value {
            Some(_) => self.hits.fetch_add(1, Ordering::Relaxed),
            None => self.misses.fetch_add(1, Ordering::Relaxed),
        };
        value
    }

    /// Keeps `value` under `digest`. A failure to write leaves the compile as it is and is
    /// reported once in the statistics.
    pub(crate) fn put<P: Serialize>(&self, digest: u128, value: &P) {
        let payload = match postcard::to_allocvec(value) {
            Ok(p) => p,
            Err(e) => {
                self.failed(format!("an entry could not be encoded: {e}"));
                return;
            }
        };
        self.send(entry_bytes(digest, &payload));
    }

    /// Hands one entry (header and payload) to the writer thread, starting it if needed.
    fn send(&self, entry: Vec<u8>) {
        if self.write_failed.lock().is_ok_and(|f| f.is_some()) {
            return;
        }
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
            && q.send(entry).is_err()
        {
            self.failed(format!("{}: the writer thread stopped", self.dir.display()));
        }
    }

    /// Waits until every entry handed in so far is written into a pack, which this cache reads
    /// from then on; the next entry starts a new pack.
    pub(crate) fn flush(&self) {
        let Some(Writer { queue, thread }) = self.writer.lock().ok().and_then(|mut w| w.take())
        else {
            return;
        };
        drop(queue);
        match thread.join() {
            Ok((n, bytes, pack, failure)) => {
                self.written.fetch_add(n, Ordering::Relaxed);
                self.written_bytes.fetch_add(bytes, Ordering::Relaxed);
                if let Some(path) = pack {
                    if let Ok(mut own) = self.own.lock() {
                        own.push(path.clone());
                    }
                    let mut guard = self.packs.lock().unwrap_or_else(|e| e.into_inner());
                    let packs = guard.get_or_insert_with(|| self.load());
                    if !packs.packs.iter().any(|p| p.path == path) {
                        self.add_pack(packs, path);
                    }
                }
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

    /// When the directory held more than [`COMPACT_AT`] packs: merges the small ones (at most
    /// [`SMALL_PACK`] bytes; each edit's compile makes one) into one new pack, keeping each
    /// digest's newest entry, and removes them.
    fn compact(&self) {
        let (merged, sources): (Vec<Arc<Pack>>, Vec<Located>) = {
            let guard = self.packs.lock().unwrap_or_else(|e| e.into_inner());
            let Some(packs) = guard.as_ref() else {
                return;
            };
            if packs.found <= COMPACT_AT {
                return;
            }
            let own = self.own.lock().map(|o| o.clone()).unwrap_or_default();
            let small: Vec<bool> = packs
                .packs
                .iter()
                .enumerate()
                .map(|(p, pack)| {
                    p < packs.found && pack.size <= SMALL_PACK && !own.contains(&pack.path)
                })
                .collect();
            if small.iter().filter(|&&s| s).count() < 2 {
                return;
            }
            let mut sources: Vec<(usize, u64, u64, u128)> = packs
                .index
                .iter()
                .filter(|(_, (p, _, _))| small[*p])
                .map(|(&digest, &(p, o, l))| (p, o, l, digest))
                .collect();
            // In the order the entries were written: one pass over each pack.
            sources.sort_unstable();
            (
                (0..packs.packs.len())
                    .filter(|&p| small[p])
                    .map(|p| packs.packs[p].clone())
                    .collect(),
                sources
                    .into_iter()
                    .map(|(p, o, l, digest)| (packs.packs[p].clone(), o, l, digest))
                    .collect(),
            )
        };
        for (pack, offset, len, digest) in sources {
            let mut bytes = vec![0u8; len as usize];
            // Only an entry that checks under its own digest is carried over: the new pack's
            // index is made from the entries' headers, so a header naming another digest must
            // not become that digest's entry.
            if pack.file.read_exact_at(&mut bytes, offset).is_ok()
                && check_entry(&bytes, digest).is_some()
            {
                self.send(bytes);
            }
        }
        // The entries merged are not counted as written by this compile.
        let written = self.written.load(Ordering::Relaxed);
        let written_bytes = self.written_bytes.load(Ordering::Relaxed);
        self.flush();
        self.written.store(written, Ordering::Relaxed);
        self.written_bytes.store(written_bytes, Ordering::Relaxed);
        if self.write_failed.lock().is_ok_and(|f| f.is_none()) {
            for pack in merged {
                if fs::remove_file(&pack.path).is_ok() {
                    self.evicted.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    /// Ends a compile: merges the small packs when there are too many, keeps the directory under its
    /// limit when this compile wrote to it, and says what the cache did.
    pub(crate) fn finish(&self) -> CacheStats {
        // Every entry handed in is written (or the failure known) before the statistics.
        self.flush();
        if self.written.load(Ordering::Relaxed) > 0 {
            self.compact();
        }
        let mut stats = CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            written_bytes: self.written_bytes.load(Ordering::Relaxed),
            evicted: self.evicted.load(Ordering::Relaxed),
            unavailable: self.write_failed.lock().ok().and_then(|f| f.clone()),
            ..CacheStats::default()
        };
        if stats.written > 0 {
            let (evicted, bytes) = evict(&self.dir, self.limit);
            stats.evicted += evicted;
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

/// Stamps a pack's modification time once per compile, when it is older than [`STAMP_EVERY`]:
/// the least recently used packs are removed first.
fn stamp(pack: &Pack) {
    if pack.stamped.swap(true, Ordering::Relaxed) {
        return;
    }
    let now = SystemTime::now();
    let recent = pack
        .file
        .metadata()
        .and_then(|m| m.modified())
        .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < STAMP_EVERY));
    if !recent {
        let _ = pack.file.set_modified(now);
    }
}

/// Removes the least recently used packs until the directory holds at most 80 % of `limit`
/// (when it holds more than `limit`), and leftovers of interrupted writes older than an hour.
/// Returns the packs removed and the bytes that remain.
fn evict(dir: &Path, limit: u64) -> (u64, u64) {
    let stale = SystemTime::now() - Duration::from_secs(3600);
    if let Ok(tmp) = fs::read_dir(dir.join("tmp")) {
        for f in tmp.flatten() {
            let old = f
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < stale);
            if old {
                let _ = fs::remove_file(f.path());
            }
        }
    }
    let mut packs: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    if let Ok(listing) = fs::read_dir(dir.join(PACKS)) {
        for f in listing.flatten() {
            let Ok(meta) = f.metadata() else { continue };
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            packs.push((mtime, meta.len(), f.path()));
        }
    }
    let mut total: u64 = packs.iter().map(|e| e.1).sum();
    if total <= limit {
        return (0, total);
    }
    packs.sort();
    let target = (u128::from(limit) * 4 / 5) as u64;
    let mut evicted = 0;
    for (_, len, path) in packs {
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
    use super::layout::{FOOTER, HEADER, ROW};
    use super::*;
    use kivgraph_format::Language;

    fn key(sha: u8) -> Key {
        Key::new::<Vec<String>>("r", "a.go", Language::Go, [sha; 32], None)
    }

    /// A compile that writes `value` under key `i` and nothing else: the pack it made.
    fn pack_of(dir: &Path, i: u8, value: &str) -> PathBuf {
        let before = packs(dir);
        let cache = DiskCache::new(dir.to_path_buf(), 1 << 30);
        cache.put(key(i).digest::<Vec<String>>(), &vec![value.to_string()]);
        cache.flush();
        packs(dir)
            .into_iter()
            .find(|p| !before.contains(p))
            .expect("a new pack")
    }

    fn packs(dir: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(dir.join(PACKS))
            .map(|l| l.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort();
        v
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
        let stats = cache.finish();
        assert_eq!((stats.hits, stats.misses, stats.written), (1, 1, 1));
        // Every byte of the pack flipped in turn, read by a new compile: never a value other
        // than the one written; a flip in the index or footer rejects (and removes) the pack.
        let path = packs(&dir.path().join("c")).pop().unwrap();
        let good = fs::read(&path).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            fs::write(&path, &bad).unwrap();
            let cache = DiskCache::new(dir.path().join("c"), DEFAULT_LIMIT);
            assert_eq!(cache.get::<Vec<String>>(d), None, "byte {i} flipped");
            let stats = cache.finish();
            assert_eq!(stats.rejected, 1, "byte {i} flipped");
            let in_entry = i < good.len() - FOOTER - ROW;
            assert_eq!(
                path.exists(),
                in_entry,
                "byte {i}: only a bad index removes"
            );
        }
        // Cut short.
        fs::write(&path, &good[..good.len() - 1]).unwrap();
        let cache = DiskCache::new(dir.path().join("c"), DEFAULT_LIMIT);
        assert_eq!(cache.get::<Vec<String>>(d), None);
        assert!(!path.exists());
    }

    #[test]
    fn a_later_pack_holds_the_good_entry_of_a_damaged_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = key(1).digest::<Vec<String>>();
        let value = vec!["v".to_string()];
        let cache = DiskCache::new(dir.path().to_path_buf(), DEFAULT_LIMIT);
        cache.put(d, &value);
        cache.finish();
        let first = packs(dir.path()).pop().unwrap();
        let mut bytes = fs::read(&first).unwrap();
        bytes[HEADER] ^= 1;
        fs::write(&first, &bytes).unwrap();
        // The compile that finds it damaged extracts again and writes it anew.
        let cache = DiskCache::new(dir.path().to_path_buf(), DEFAULT_LIMIT);
        assert_eq!(cache.get::<Vec<String>>(d), None);
        cache.put(d, &value);
        let stats = cache.finish();
        assert_eq!((stats.rejected, stats.written), (1, 1));
        let cache = DiskCache::new(dir.path().to_path_buf(), DEFAULT_LIMIT);
        assert_eq!(cache.get::<Vec<String>>(d), Some(value));
        assert_eq!(cache.finish().rejected, 0);
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
    fn a_read_stamps_a_pack_last_used_long_ago() {
        let dir = tempfile::tempdir().unwrap();
        let (old, fresh) = (
            key(1).digest::<Vec<String>>(),
            key(2).digest::<Vec<String>>(),
        );
        let long_ago = SystemTime::now() - Duration::from_secs(86_400);
        let just_now = SystemTime::now() - Duration::from_secs(5);
        let mut made = Vec::new();
        for (i, t) in [(1, long_ago), (2, just_now)] {
            let path = pack_of(dir.path(), i, "p");
            fs::File::open(&path).unwrap().set_modified(t).unwrap();
            made.push(path);
        }
        let mtime = |p: &Path| fs::metadata(p).unwrap().modified().unwrap();
        let cache = DiskCache::new(dir.path().to_path_buf(), 1 << 30);
        assert!(cache.get::<Vec<String>>(old).is_some());
        assert!(cache.get::<Vec<String>>(fresh).is_some());
        assert!(
            mtime(&made[0]) > just_now,
            "a pack unused for a day is stamped when read"
        );
        assert_eq!(mtime(&made[1]), just_now, "a recent stamp is kept");
    }

    #[test]
    fn the_least_recently_used_packs_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut made = Vec::new();
        for i in 0..10u8 {
            let path = pack_of(dir.path(), i, &"p".repeat(1000));
            let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + u64::from(i));
            fs::File::open(&path).unwrap().set_modified(t).unwrap();
            made.push(path);
        }
        let one = fs::metadata(&made[0]).unwrap().len();
        // Room for five packs: 80 % of it keeps four, the newest.
        let (evicted, bytes) = evict(dir.path(), one * 5);
        assert_eq!(evicted, 6);
        assert_eq!(bytes, one * 4);
        for (i, p) in made.iter().enumerate() {
            assert_eq!(p.exists(), i >= 6, "pack {i}");
        }
    }

    #[test]
    fn merging_never_carries_an_entry_over_under_another_name() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (
            key(1).digest::<Vec<String>>(),
            key(2).digest::<Vec<String>>(),
        );
        // Pack 0 holds `a`'s value under a header that names `b` (a stray tool, or damage).
        let first = pack_of(dir.path(), 1, "a");
        let mut bytes = fs::read(&first).unwrap();
        bytes[16..32].copy_from_slice(&b.to_le_bytes());
        fs::write(&first, &bytes).unwrap();
        for i in 10..10 + COMPACT_AT as u8 {
            pack_of(dir.path(), i, &format!("v{i}"));
        }
        // A compile that writes something else finds too many packs and merges them.
        let cache = DiskCache::new(dir.path().to_path_buf(), 1 << 30);
        assert_eq!(
            cache.get::<Vec<String>>(key(200).digest::<Vec<String>>()),
            None
        );
        cache.put(key(200).digest::<Vec<String>>(), &vec!["new".to_string()]);
        let stats = cache.finish();
        assert!(stats.evicted > COMPACT_AT as u64, "{stats:?}");
        let cache = DiskCache::new(dir.path().to_path_buf(), 1 << 30);
        assert_eq!(cache.get::<Vec<String>>(b), None, "never `a`'s value");
        assert_eq!(
            cache.get::<Vec<String>>(a),
            None,
            "the damaged entry is not carried over"
        );
        assert_eq!(
            cache.get::<Vec<String>>(key(10).digest::<Vec<String>>()),
            Some(vec!["v10".to_string()])
        );
    }

    #[test]
    fn too_many_small_packs_are_merged_keeping_every_entry() {
        let dir = tempfile::tempdir().unwrap();
        let n = COMPACT_AT as u8 + 2;
        for i in 0..n {
            pack_of(dir.path(), i, &format!("v{i}"));
        }
        // A newer value of one entry, in a later pack: the merge keeps the newer.
        pack_of(dir.path(), 5, "v5 again");
        assert_eq!(packs(dir.path()).len(), n as usize + 1);
        // A compile that reads two entries and writes one: the packs it found are merged into
        // one, its own stays.
        let cache = DiskCache::new(dir.path().to_path_buf(), 1 << 30);
        for i in [3u8, 7] {
            assert_eq!(
                cache.get::<Vec<String>>(key(i).digest::<Vec<String>>()),
                Some(vec![format!("v{i}")])
            );
        }
        cache.put(key(200).digest::<Vec<String>>(), &vec!["new".to_string()]);
        let stats = cache.finish();
        assert_eq!((stats.hits, stats.written), (2, 1));
        assert_eq!(stats.evicted, u64::from(n) + 1);
        assert_eq!(packs(dir.path()).len(), 2);
        let cache = DiskCache::new(dir.path().to_path_buf(), 1 << 30);
        for i in 0..n {
            let want = if i == 5 {
                "v5 again".to_string()
            } else {
                format!("v{i}")
            };
            assert_eq!(
                cache.get::<Vec<String>>(key(i).digest::<Vec<String>>()),
                Some(vec![want]),
                "entry {i}"
            );
        }
        assert_eq!(
            cache.get::<Vec<String>>(key(200).digest::<Vec<String>>()),
            Some(vec!["new".to_string()])
        );
        assert_eq!(cache.finish().misses, 0);
    }
}
