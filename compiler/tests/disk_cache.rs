//! The extraction cache on disk: after random edits, deletions, renames and additions over every
//! fixture repository, a compile that reads the unchanged files' extractions from the cache
//! publishes the tables and blobs of a compile from nothing; a damaged cache is a miss, never a
//! wrong answer; two compiles may share one cache directory.

use std::path::{Path, PathBuf};

use crate::shared::{REPOS, copy_dir, generation_files as tables};
use kivgraph_compile::{
    CacheDir, CacheOptions, CompileOptions, RepoSpec, RustSysroot, Summary, compile,
};

const SOURCE_EXTENSIONS: &[&str] = &["go", "ts", "tsx", "js", "jsx", "mjs", "py", "rs", "dart"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// Copies every fixture repository under `root`; returns `(name, path)` pairs.
fn copy_fixtures(root: &Path) -> Vec<(String, PathBuf)> {
    REPOS
        .iter()
        .map(|r| {
            let to = root.join(r);
            copy_dir(&fixtures().join(r), &to);
            (r.replace('/', "-"), to)
        })
        .collect()
}

fn options(out: &Path, repos: &[(String, PathBuf)], cache: CacheOptions) -> CompileOptions {
    CompileOptions {
        out: out.into(),
        repos: repos
            .iter()
            .map(|(n, p)| RepoSpec::parse(&format!("{n}={}", p.display())).unwrap())
            .collect(),
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache,
    }
}

fn shared_cache(dir: &Path) -> CacheOptions {
    CacheOptions {
        dir: CacheDir::At(dir.into()),
        ..CacheOptions::default()
    }
}

/// Copies of every fixture repository, an index and a cache directory, and the options of a
/// compile of the copies that reads and writes that cache.
struct Warm {
    src: tempfile::TempDir,
    repos: Vec<(String, PathBuf)>,
    cache_dir: tempfile::TempDir,
    _out: tempfile::TempDir,
    opts: CompileOptions,
}

fn warm_fixtures() -> Warm {
    let src = tempfile::tempdir().unwrap();
    let repos = copy_fixtures(src.path());
    let cache_dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let opts = options(out.path(), &repos, shared_cache(cache_dir.path()));
    Warm {
        src,
        repos,
        cache_dir,
        _out: out,
        opts,
    }
}

/// What a compile from nothing, with no cache, publishes for the same sources.
fn cold_tables(repos: &[(String, PathBuf)]) -> Vec<(String, Vec<u8>)> {
    let out = tempfile::tempdir().unwrap();
    let s = compile(&options(out.path(), repos, CacheOptions::off())).unwrap();
    assert!(s.cache.is_none());
    tables(&s.generation_dir)
}

/// A small deterministic generator (xorshift64*), so that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn sources(root: &Path) -> Vec<PathBuf> {
    walk(root)
        .into_iter()
        .filter(|p| {
            p.extension()
                .is_some_and(|x| SOURCE_EXTENSIONS.iter().any(|e| x == *e))
        })
        .collect()
}

/// One round of changes: edits (a line inserted, a line removed, a file cut short), a
/// deletion, a rename and an addition, at places the generator picks. Returns what it did.
fn mutate(root: &Path, rng: &mut Rng, round: usize) -> Vec<String> {
    let mut did = Vec::new();
    for _ in 0..4 {
        let files = sources(root);
        let f = &files[rng.below(files.len())];
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let mut lines: Vec<&str> = text.lines().collect();
        let at = rng.below(lines.len() + 1);
        let new_text = match rng.below(3) {
            0 => {
                let line = lines
                    .get(rng.below(lines.len().max(1)))
                    .copied()
                    .unwrap_or("")
                    .to_string();
                let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                l.insert(at, line);
                l.join("\n")
            }
            1 if !lines.is_empty() => {
                lines.remove(at.min(lines.len() - 1));
                lines.join("\n")
            }
            _ => {
                let mut cut = text.len() / 2;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text[..cut].to_string()
            }
        };
        std::fs::write(f, new_text).unwrap();
        did.push(format!("edit {}", f.display()));
    }
    let files = sources(root);
    let gone = &files[rng.below(files.len())];
    std::fs::remove_file(gone).unwrap();
    did.push(format!("delete {}", gone.display()));
    let files = sources(root);
    let from = &files[rng.below(files.len())];
    let ext = from.extension().unwrap().to_string_lossy().into_owned();
    let to = from.with_file_name(format!("renamed_{round}.{ext}"));
    std::fs::rename(from, &to).unwrap();
    did.push(format!("rename {} -> {}", from.display(), to.display()));
    let files = sources(root);
    let model = &files[rng.below(files.len())];
    let ext = model.extension().unwrap().to_string_lossy().into_owned();
    let added = model.with_file_name(format!("added_{round}.{ext}"));
    std::fs::copy(model, &added).unwrap();
    did.push(format!(
        "add {} (a copy of {})",
        added.display(),
        model.display()
    ));
    did
}

#[test]
fn random_changes_to_every_fixture_publish_what_a_cold_compile_publishes() {
    let w = warm_fixtures();
    let (src, repos, warm) = (&w.src, &w.repos, &w.opts);

    let first = compile(warm).unwrap();
    let stats = first.cache.clone().unwrap();
    assert_eq!(stats.hits, 0);
    assert!(stats.written > 0 && stats.written == stats.misses);
    assert_eq!(tables(&first.generation_dir), cold_tables(repos));

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..4 {
        let did = mutate(src.path(), &mut rng, round);
        let s = compile(warm).unwrap();
        let stats = s.cache.clone().unwrap();
        assert!(
            stats.hits > stats.misses,
            "round {round}: the unchanged files were parsed again ({stats:?})"
        );
        assert_eq!(stats.rejected, 0);
        assert!(
            tables(&s.generation_dir) == cold_tables(repos),
            "round {round}: a compile reading the cache differs from one from nothing after {did:#?}"
        );
    }
}

/// The packs of a cache directory, in the order they were made (SPEC 1.9).
fn packs(dir: &Path) -> Vec<PathBuf> {
    walk(&dir.join("packs"))
}

/// Where each entry of a pack is (offset, length), read off its index and footer: the last 32
/// bytes are the index's offset, its rows, its checksum and `KGXPACK1`; a row is the entry's
/// digest (16 bytes), offset and length.
fn pack_entries(bytes: &[u8]) -> Vec<(usize, usize)> {
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let footer = bytes.len() - 32;
    assert_eq!(&bytes[footer + 24..], b"KGXPACK1");
    let (index, rows) = (word(footer), word(footer + 8));
    (0..rows)
        .map(|r| {
            let row = index + r * 32;
            (word(row + 16), word(row + 24))
        })
        .collect()
}

/// Entries held by the packs of a directory.
fn entry_count(dir: &Path) -> usize {
    packs(dir)
        .iter()
        .map(|p| pack_entries(&std::fs::read(p).unwrap()).len())
        .sum()
}

#[test]
fn a_damaged_cache_is_a_miss_never_a_wrong_answer() {
    let w = warm_fixtures();
    let (repos, cache_dir, opts) = (&w.repos, &w.cache_dir, &w.opts);
    compile(opts).unwrap();
    let cold = cold_tables(repos);

    // Damage entries in every way a disk, a crash or a stray tool could: a flipped byte in the
    // payload, in the header, a length that does not agree, zeroed bytes, another entry's name,
    // random bytes, and a payload that checks but does not decode.
    let all = packs(cache_dir.path());
    assert_eq!(all.len(), 1, "one compile, one pack");
    let mut bytes = std::fs::read(&all[0]).unwrap();
    let entries = pack_entries(&bytes);
    assert!(entries.len() >= 16, "{} entries", entries.len());
    let mut damaged = 0;
    for (i, &(at, len)) in entries.iter().enumerate() {
        let entry = at..at + len;
        match i % 8 {
            0 => bytes[at + len - 1] ^= 1,
            1 => bytes[at + 20] ^= 0x80,
            2 => bytes[at + 32] ^= 0x01,
            3 => bytes[entry].fill(0),
            4 => {
                let (other, _) = entries[(i + 1) % entries.len()];
                let name: Vec<u8> = bytes[other + 16..other + 32].to_vec();
                bytes[at + 16..at + 32].copy_from_slice(&name);
            }
            5 => {
                let mut rng = Rng(i as u64 + 1);
                for b in &mut bytes[entry] {
                    *b = rng.next() as u8;
                }
            }
            6 => {
                // A payload of 0xFF bytes (no valid encoding starts so), with its checksum.
                bytes[at + 48..at + len].fill(0xFF);
                let sum = xxhash_rust::xxh3::xxh3_64(&bytes[at + 48..at + len]);
                bytes[at + 40..at + 48].copy_from_slice(&sum.to_le_bytes());
            }
            _ => continue,
        }
        damaged += 1;
    }
    std::fs::write(&all[0], &bytes).unwrap();

    let s = compile(opts).unwrap();
    let stats = s.cache.clone().unwrap();
    assert_eq!(stats.rejected, damaged, "{stats:?}");
    assert_eq!(stats.misses, damaged, "{stats:?}");
    assert_eq!(stats.hits + stats.misses, entries.len() as u64);
    assert_eq!(tables(&s.generation_dir), cold);

    // The damaged entries were written anew, in a later pack: the next compile reads every
    // file from the cache.
    let again = compile(opts).unwrap();
    let stats = again.cache.unwrap();
    assert_eq!((stats.misses, stats.rejected), (0, 0), "{stats:?}");
    assert_eq!(tables(&again.generation_dir), cold);

    // A pack whose index does not check is rejected whole and removed; the compile extracts
    // its files again.
    for pack in packs(cache_dir.path()) {
        let mut bytes = std::fs::read(&pack).unwrap();
        let at = bytes.len() - 20;
        bytes[at] ^= 0x10;
        std::fs::write(&pack, &bytes).unwrap();
    }
    let s = compile(opts).unwrap();
    let stats = s.cache.clone().unwrap();
    assert_eq!(stats.rejected, 2, "{stats:?}");
    assert_eq!((stats.hits, stats.misses), (0, entries.len() as u64));
    assert_eq!(tables(&s.generation_dir), cold);
    assert_eq!(
        packs(cache_dir.path()).len(),
        1,
        "the damaged packs are gone"
    );
    let again = compile(opts).unwrap();
    assert_eq!(again.cache.unwrap().misses, 0);
}

#[test]
fn two_compiles_share_one_cache_directory() {
    let src = tempfile::tempdir().unwrap();
    let repos = copy_fixtures(src.path());
    let cache_dir = tempfile::tempdir().unwrap();
    let outs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let run = |out: &Path| -> Summary {
        compile(&options(out, &repos, shared_cache(cache_dir.path()))).unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| run(outs[0].path()));
        let b = s.spawn(|| run(outs[1].path()));
        (a.join().unwrap(), b.join().unwrap())
    });
    let cold = cold_tables(&repos);
    assert_eq!(tables(&a.generation_dir), cold);
    assert_eq!(tables(&b.generation_dir), cold);
    // A third compile, into a new index, parses nothing.
    let third = tempfile::tempdir().unwrap();
    let c = run(third.path());
    assert_eq!(c.cache.unwrap().misses, 0);
    assert_eq!(tables(&c.generation_dir), cold);
}

#[test]
fn the_cache_is_beside_the_index_unless_told_otherwise_and_bounded() {
    let src = tempfile::tempdir().unwrap();
    let repos = copy_fixtures(src.path());
    let out = tempfile::tempdir().unwrap();
    let s = compile(&options(out.path(), &repos, CacheOptions::default())).unwrap();
    let written = s.cache.unwrap().written;
    assert_eq!(entry_count(&out.path().join("cache")) as u64, written);

    // A limit below one compile's entries: the directory is brought under 80 % of it.
    let limit = 20_000;
    let small = tempfile::tempdir().unwrap();
    let bounded = CacheOptions {
        dir: CacheDir::At(small.path().into()),
        limit,
    };
    let out2 = tempfile::tempdir().unwrap();
    let s = compile(&options(out2.path(), &repos, bounded)).unwrap();
    let stats = s.cache.unwrap();
    assert!(stats.evicted > 0, "{stats:?}");
    let on_disk: u64 = packs(small.path())
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert_eq!(on_disk, stats.bytes);
    assert!(on_disk <= limit * 4 / 5, "{on_disk} bytes");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut entries: Vec<_> = rd.map(|e| e.unwrap()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

/// An edit that changes no symbol's name, kind, file, export or callers (a comment appended to a
/// Go file) publishes with the name index and the term index the cache kept from the compile
/// before: the edited file's extraction is the only miss, and the generation is the one a compile
/// from nothing publishes.
#[test]
fn an_edit_that_renames_nothing_reuses_the_kept_name_and_term_indexes() {
    let w = warm_fixtures();
    let (src, repos, warm) = (&w.src, &w.repos, &w.opts);
    compile(warm).unwrap();

    let go = sources(src.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "go"))
        .expect("a Go fixture file");
    let mut text = std::fs::read_to_string(&go).unwrap();
    text.push_str("\n// a comment appended by the test\n");
    std::fs::write(&go, text).unwrap();

    let s = compile(warm).unwrap();
    let stats = s.cache.clone().unwrap();
    // One entry missed and written: the edited file's extraction. Indexes built again would be
    // written again (their entry found and not used) or missed (not found).
    assert_eq!(
        (stats.misses, stats.written, stats.rejected),
        (1, 1, 0),
        "only {} was to be extracted again ({stats:?})",
        go.display()
    );
    assert!(
        tables(&s.generation_dir) == cold_tables(repos),
        "a compile reusing the kept indexes differs from one from nothing"
    );
}

#[test]
fn an_edit_copies_the_unchanged_table_chunks_and_never_a_damaged_one() {
    let w = warm_fixtures();
    let (src, repos, warm) = (&w.src, &w.repos, &w.opts);
    let first = compile(warm).unwrap();
    assert_eq!(
        first.table_chunks.copied, 0,
        "nothing to copy from in an empty index: {:?}",
        first.table_chunks
    );

    let go = sources(src.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "go"))
        .expect("a Go fixture file");
    let append = |line: &str| {
        let mut text = std::fs::read_to_string(&go).unwrap();
        text.push_str(line);
        std::fs::write(&go, text).unwrap();
    };
    append("\n// a comment appended by the test\n");
    let s = compile(warm).unwrap();
    let c = s.table_chunks;
    // Nearly every chunk: only the row groups holding the edited file's rows are encoded again.
    assert!(
        c.copied > 0 && c.encoded > 0 && c.copied > 4 * c.encoded,
        "an appended comment should copy nearly every chunk: {c:?}"
    );
    assert!(
        tables(&s.generation_dir) == cold_tables(repos),
        "a compile copying chunks differs from one from nothing"
    );

    // A damaged table of the served generation is not copied from: its bytes no longer match
    // its manifest, so the table is encoded from its rows, and the result is still exact.
    let edges = Path::new(&s.generation_dir).join("edges.parquet");
    let mut bytes = std::fs::read(&edges).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&edges, bytes).unwrap();
    append("// and another\n");
    let after = compile(warm).unwrap();
    let edge_columns = kivgraph_format::tables::table_spec("edges").unwrap().len() as u64;
    assert!(
        after.table_chunks.encoded >= edge_columns,
        "the damaged edges table must be encoded again: {:?}",
        after.table_chunks
    );
    assert!(
        tables(&after.generation_dir) == cold_tables(repos),
        "a compile after a damaged table differs from one from nothing"
    );
}
