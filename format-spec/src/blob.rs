//! The graph blob: an rkyv archive behind a fixed header, read straight off the mmap.
//!
//! Byte layout of `graph.blob` (all integers little-endian):
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `KVGRAPH\0` |
//! | 8 | 4 | format version ([`crate::FORMAT_VERSION`]) |
//! | 12 | 4 | blob kind (1 = graph) |
//! | 16 | 8 | archive length in bytes |
//! | 24 | 16 | xxh3-128 of the archive bytes (big-endian digest) |
//! | 40 | 4 | block size as a power of two, 12 to 15 ([`block_shift`]) |
//! | 44 | 12 | zero |
//! | 56 | 8 | xxh3-64 of bytes 0 to 56 (the header is checked whole at open) |
//! | 64 | length | rkyv archive of [`GraphBlob`], root at its end |
//! | 64 + length | 8 × blocks | xxh3-64 of each block of the archive |
//!
//! The archive starts at offset 64, so a page-aligned mmap keeps it 16-byte aligned. rkyv locates
//! its root from the end of the slice, so the reader hands it exactly `length` bytes: trailing
//! garbage can never be mistaken for the root.
//!
//! The archive is cut into blocks of `2^shift` bytes (the last one shorter) and each block's
//! xxh3-64 follows the archive, so that a reader can check the bytes it reads when it reads them
//! instead of reading the whole archive when it opens it ([`crate::graph`]).

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::FormatError;
use crate::terms::TermIndex;

pub const BLOB_MAGIC: &[u8; 8] = b"KVGRAPH\0";
pub const BLOB_HEADER_LEN: usize = 64;
pub const BLOB_KIND_GRAPH: u32 = 1;
/// Where the header's own sum is.
const HEADER_SUM_AT: usize = 56;
/// The largest blocks, 32 KiB: a first read of a record checks at most eight pages, and the sums
/// of a 1 GB archive take 256 KB.
pub const MAX_BLOCK_SHIFT: u32 = 15;
/// The smallest blocks, one page.
pub const MIN_BLOCK_SHIFT: u32 = 12;

/// The block size of an archive of `len` bytes: about a thousand blocks, between one page and
/// 32 KiB.
pub fn block_shift(len: usize) -> u32 {
    (len / 1024)
        .max(1)
        .next_power_of_two()
        .trailing_zeros()
        .clamp(MIN_BLOCK_SHIFT, MAX_BLOCK_SHIFT)
}

/// Sentinel for "no value" in `u32` reference columns.
pub const NONE: u32 = u32::MAX;

/// All strings of the blob, interned once, sorted, addressed by `u32` id.
#[derive(Archive, Serialize, Deserialize, Debug, Default, Clone, PartialEq)]
pub struct StringTable {
    pub bytes: Vec<u8>,
    /// `ends[i]` is the exclusive end of string `i`; string `i` starts at `ends[i-1]` (or 0).
    pub ends: Vec<u32>,
}

impl ArchivedStringTable {
    /// The string with id `id`, for an archive that passed [`validate`] (the full check: the
    /// engine reads through [`crate::graph::Strings`] instead); an id out of range yields "".
    pub fn get(&self, id: u32) -> &str {
        let i = id as usize;
        if i >= self.ends.len() {
            return "";
        }
        let end = self.ends[i].to_native() as usize;
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1].to_native() as usize
        };
        match self.bytes.get(start..end) {
            // SAFETY: this archive passed `validate`, which checked that the table is UTF-8 and
            // that every end offset falls on a character boundary, so every string of it is.
            Some(bytes) => unsafe { std::str::from_utf8_unchecked(bytes) },
            None => "",
        }
    }

    /// Optional string: [`NONE`] is `None`.
    pub fn opt(&self, id: u32) -> Option<&str> {
        (id != NONE).then(|| self.get(id))
    }
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RepositoryRec {
    pub name: u32,
    pub root: u32,
    /// [`NONE`] when the repository is not a git checkout.
    pub commit: u32,
    /// [`NONE`] on a detached HEAD or without git.
    pub branch: u32,
    /// 0 = clean, 1 = dirty, 2 = unknown.
    pub dirty: u8,
    /// Language codes, sorted.
    pub languages: Vec<u8>,
    pub derived: bool,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PackageRec {
    pub key: u32,
    pub repository: u32,
    pub language: u8,
    /// Import path (Go), package name, crate name, …
    pub name: u32,
    /// Repository-relative directory.
    pub path: u32,
    /// The module that contains the package (Go module path), or [`NONE`].
    pub module: u32,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct FileRec {
    pub repository: u32,
    /// Package index, or [`NONE`].
    pub package: u32,
    /// Repository-relative path with `/` separators.
    pub path: u32,
    pub language: u8,
    /// [`FileStatus`](crate::FileStatus) code.
    pub status: u8,
    pub size: u64,
    pub lines: u32,
    /// SHA-256 of the file bytes as indexed.
    pub sha256: [u8; 32],
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SymbolRec {
    pub key: u32,
    pub name: u32,
    pub qualified_name: u32,
    pub kind: u8,
    pub language: u8,
    pub exported: bool,
    /// [`NONE`] when the symbol has no signature.
    pub signature: u32,
    pub repository: u32,
    pub package: u32,
    pub file: u32,
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

/// One half-edge of the adjacency: the other end plus the edge's attributes and occurrence.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct EdgeRec {
    pub other: u32,
    pub kind: u8,
    pub confidence: u8,
    pub provenance: u16,
    /// File of the occurrence, or [`NONE`] for facts with no single occurrence.
    pub file: u32,
    pub line: u32,
    pub column: u32,
}

/// Compressed sparse rows: the edges of node `n` are `edges[offsets[n]..offsets[n+1]]`.
#[derive(Archive, Serialize, Deserialize, Debug, Default, Clone, PartialEq)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub edges: Vec<EdgeRec>,
}

impl ArchivedCsr {
    /// The half-edges of node `n`.
    pub fn row(&self, n: u32) -> &[ArchivedEdgeRec] {
        let n = n as usize;
        if n + 1 >= self.offsets.len() {
            return &[];
        }
        let (a, b) = (
            self.offsets[n].to_native() as usize,
            self.offsets[n + 1].to_native() as usize,
        );
        self.edges.get(a..b).unwrap_or_default()
    }
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct UnresolvedRec {
    pub repository: u32,
    /// File index, or [`NONE`] for a whole unreadable scope.
    pub file: u32,
    pub language: u8,
    /// Symbol that made the reference, or [`NONE`].
    pub source: u32,
    pub reason: u32,
    pub requested_package: u32,
    /// [`NONE`] when the failure names no symbol.
    pub requested_symbol: u32,
    pub detail: u32,
    pub line: u32,
    pub column: u32,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PackageEdgeRec {
    pub source: u32,
    pub target: u32,
    pub kind: u8,
    pub confidence: u8,
    pub provenance: u16,
}

/// The root of the graph blob.
#[derive(Archive, Serialize, Deserialize, Debug, Default, Clone, PartialEq)]
pub struct GraphBlob {
    pub strings: StringTable,
    pub repositories: Vec<RepositoryRec>,
    pub packages: Vec<PackageRec>,
    pub files: Vec<FileRec>,
    /// Sorted by stable key; a symbol's dense id is its index here.
    pub symbols: Vec<SymbolRec>,
    /// Outgoing edges per symbol, `other` = target.
    pub forward: Csr,
    /// Incoming edges per symbol, `other` = source; the exact multiset of `forward`, reversed.
    pub reverse: Csr,
    /// Sorted by (repository, file, line, column, language, reason, requested package, requested
    /// symbol, detail, source).
    pub unresolved: Vec<UnresolvedRec>,
    /// Indexes into `unresolved`, ordered by requested symbol string then index; records with no
    /// requested symbol are left out.
    pub unresolved_by_name: Vec<u32>,
    pub package_edges: Vec<PackageEdgeRec>,
    /// Symbol ids for the name index: `names.fst` maps a key to `(start << 32) | count` over this.
    pub name_postings: Vec<u32>,
    /// The term index of `find_by_intent` (SPEC section 7.7).
    pub terms: TermIndex,
}

/// Frames an archive with the header described at the top of this module.
///
/// The archive is serialized in place after room for the header (whose 64 bytes keep every
/// alignment the archive's positions have), into a buffer reserved from the records' sizes:
/// the 30 MB archive of the Rust standard library was written into a buffer that doubled as it
/// grew, then copied behind its header, which touched about three times its size in fresh
/// pages on every compile. The bytes are those of an archive serialized on its own.
pub fn encode(blob: &GraphBlob) -> Result<Vec<u8>, FormatError> {
    let hint = size_hint(blob);
    let mut out = Vec::with_capacity(BLOB_HEADER_LEN + hint + 8 * (hint >> MIN_BLOCK_SHIFT) + 64);
    out.resize(BLOB_HEADER_LEN, 0);
    let mut out = rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(blob, out)
        .map_err(|e| FormatError::Encode(e.to_string()))?;
    let len = out.len() - BLOB_HEADER_LEN;
    let shift = block_shift(len);
    // The archive's sum and its blocks' sums, side by side (one after the other when no thread
    // can be started).
    let (checksum, sums) = {
        let archive = &out[BLOB_HEADER_LEN..];
        let block_sums = || {
            archive
                .chunks(1 << shift)
                .map(xxhash_rust::xxh3::xxh3_64)
                .collect::<Vec<u64>>()
        };
        std::thread::scope(|scope| {
            let sums = std::thread::Builder::new().spawn_scoped(scope, block_sums);
            let checksum = xxhash_rust::xxh3::xxh3_128(archive);
            let sums = match sums {
                Ok(sums) => sums.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(_) => block_sums(),
            };
            (checksum, sums)
        })
    };
    let mut header = Vec::with_capacity(BLOB_HEADER_LEN);
    header.extend_from_slice(BLOB_MAGIC);
    header.extend_from_slice(&crate::FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&BLOB_KIND_GRAPH.to_le_bytes());
    header.extend_from_slice(&(len as u64).to_le_bytes());
    header.extend_from_slice(&checksum.to_be_bytes());
    header.extend_from_slice(&shift.to_le_bytes());
    header.resize(HEADER_SUM_AT, 0);
    header.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&header[..HEADER_SUM_AT]).to_le_bytes());
    out[..BLOB_HEADER_LEN].copy_from_slice(&header);
    out.reserve_exact(8 * sums.len());
    for sum in sums {
        out.extend_from_slice(&sum.to_le_bytes());
    }
    Ok(out)
}

/// About the size of `blob`'s archive: its records' sizes in memory, a quarter more for the
/// padding an archived record may have that the record in memory does not. Only a buffer's
/// reservation: a short one grows, a long one leaves pages untouched.
fn size_hint(blob: &GraphBlob) -> usize {
    fn v<T>(x: &[T]) -> usize {
        std::mem::size_of_val(x) + 16
    }
    let strings = |t: &StringTable| v(&t.bytes) + v(&t.ends);
    let csr = |c: &Csr| v(&c.offsets) + v(&c.edges);
    let t = &blob.terms;
    let records = strings(&blob.strings)
        + v(&blob.repositories)
        + blob
            .repositories
            .iter()
            .map(|r| v(&r.languages))
            .sum::<usize>()
        + v(&blob.packages)
        + v(&blob.files)
        + v(&blob.symbols)
        + csr(&blob.forward)
        + csr(&blob.reverse)
        + v(&blob.unresolved)
        + v(&blob.unresolved_by_name)
        + v(&blob.package_edges)
        + v(&blob.name_postings)
        + strings(&t.keys)
        + v(&t.postings)
        + v(&t.posting_ends)
        + v(&t.doc_freq)
        + v(&t.path_class)
        + v(&t.prior);
    records + records / 4 + 4096
}

/// How many blocks of `2^shift` bytes cover `len` bytes.
pub fn block_count(len: usize, shift: u32) -> usize {
    len.div_ceil(1 << shift)
}

/// Recomputes the checksum and the block sums of a framed blob whose archive bytes were changed
/// in place, so that only what was changed is wrong (for tests and tools that build damaged or
/// hand-made generations).
pub fn reseal(bytes: &mut [u8]) -> Result<(), FormatError> {
    let (header, _, _) = parts(bytes)?;
    let len = header.length as usize;
    let archive_end = BLOB_HEADER_LEN + len;
    let checksum = xxhash_rust::xxh3::xxh3_128(&bytes[BLOB_HEADER_LEN..archive_end]);
    bytes[24..40].copy_from_slice(&checksum.to_be_bytes());
    let header_sum = xxhash_rust::xxh3::xxh3_64(&bytes[..HEADER_SUM_AT]);
    bytes[HEADER_SUM_AT..BLOB_HEADER_LEN].copy_from_slice(&header_sum.to_le_bytes());
    let sums: Vec<u64> = bytes[BLOB_HEADER_LEN..archive_end]
        .chunks(1 << header.shift)
        .map(xxhash_rust::xxh3::xxh3_64)
        .collect();
    for (i, sum) in sums.into_iter().enumerate() {
        let at = archive_end + 8 * i;
        bytes[at..at + 8].copy_from_slice(&sum.to_le_bytes());
    }
    Ok(())
}

/// The parsed header of a graph blob.
#[derive(Debug, Clone, Copy)]
pub struct BlobHeader {
    pub version: u32,
    pub kind: u32,
    pub length: u64,
    pub checksum: u128,
    /// Blocks are `2^shift` bytes.
    pub shift: u32,
}

/// Checks magic, version, kind and length, and returns the exact archive bytes.
pub fn archive_bytes(bytes: &[u8]) -> Result<(BlobHeader, &[u8]), FormatError> {
    parts(bytes).map(|(header, archive, _)| (header, archive))
}

/// Checks magic, version, kind, block size and lengths, and returns the header, the exact
/// archive bytes and the block sums (eight bytes a block). Reads the header only.
pub fn parts(bytes: &[u8]) -> Result<(BlobHeader, &[u8], &[u8]), FormatError> {
    if bytes.len() < BLOB_HEADER_LEN || &bytes[..8] != BLOB_MAGIC {
        return Err(FormatError::corrupt(
            "graph.blob",
            "bad magic or short header",
        ));
    }
    let header_sum = xxhash_rust::xxh3::xxh3_64(&bytes[..HEADER_SUM_AT]).to_le_bytes();
    let version_at_least_2 = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) >= 2;
    if version_at_least_2 && bytes[HEADER_SUM_AT..BLOB_HEADER_LEN] != header_sum {
        return Err(FormatError::corrupt(
            "graph.blob",
            "the header does not match its sum",
        ));
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let header = BlobHeader {
        version: u32_at(8),
        kind: u32_at(12),
        length: u64::from_le_bytes(bytes[16..24].try_into().unwrap()),
        checksum: u128::from_be_bytes(bytes[24..40].try_into().unwrap()),
        shift: u32_at(40),
    };
    if header.version != crate::FORMAT_VERSION {
        return Err(FormatError::Version {
            file: "graph.blob".into(),
            found: header.version,
        });
    }
    if header.kind != BLOB_KIND_GRAPH {
        return Err(FormatError::corrupt(
            "graph.blob",
            format!("unknown blob kind {}", header.kind),
        ));
    }
    if !(MIN_BLOCK_SHIFT..=MAX_BLOCK_SHIFT).contains(&header.shift) {
        return Err(FormatError::corrupt(
            "graph.blob",
            format!("block size 2^{} is out of range", header.shift),
        ));
    }
    if bytes[44..HEADER_SUM_AT].iter().any(|&b| b != 0) {
        return Err(FormatError::corrupt(
            "graph.blob",
            "reserved header bytes are not zero",
        ));
    }
    let len = usize::try_from(header.length).unwrap_or(usize::MAX);
    let sums = block_count(len.min(bytes.len()), header.shift).saturating_mul(8);
    if (bytes.len() - BLOB_HEADER_LEN).checked_sub(sums) != Some(len) {
        return Err(FormatError::corrupt(
            "graph.blob",
            format!(
                "header says {} archive bytes and {} bytes of block sums, file holds {}",
                len,
                sums,
                bytes.len() - BLOB_HEADER_LEN
            ),
        ));
    }
    let archive_end = BLOB_HEADER_LEN + len;
    Ok((
        header,
        &bytes[BLOB_HEADER_LEN..archive_end],
        &bytes[archive_end..],
    ))
}

/// Checks every block of `archive` against its sum; the first block that differs, if any.
pub fn check_blocks(archive: &[u8], sums: &[u8], shift: u32) -> Result<(), FormatError> {
    for (i, (block, sum)) in archive.chunks(1 << shift).zip(sums.chunks(8)).enumerate() {
        if xxhash_rust::xxh3::xxh3_64(block).to_le_bytes() != sum {
            return Err(FormatError::corrupt(
                "graph.blob",
                format!("block {i} does not match its sum"),
            ));
        }
    }
    Ok(())
}

/// Structural validation (rkyv bytecheck) of an archive; cheap enough to run on every open.
pub fn validate(archive: &[u8]) -> Result<&ArchivedGraphBlob, FormatError> {
    let blob = rkyv::access::<ArchivedGraphBlob, rkyv::rancor::Error>(archive).map_err(|e| {
        FormatError::corrupt("graph.blob", format!("archive does not validate: {e}"))
    })?;
    check_invariants(blob)?;
    Ok(blob)
}

/// Cross-field invariants bytecheck cannot see: every id in range, CSR offsets monotone, the term
/// index's offsets and lengths consistent.
fn check_invariants(b: &ArchivedGraphBlob) -> Result<(), FormatError> {
    let bad = |what: String| Err(FormatError::corrupt("graph.blob", what));
    let n_str = b.strings.ends.len() as u32;
    let mut prev = 0u32;
    for e in b.strings.ends.iter() {
        let e = e.to_native();
        if e < prev || e as usize > b.strings.bytes.len() {
            return bad("string table offsets are not monotone".into());
        }
        prev = e;
    }
    match std::str::from_utf8(&b.strings.bytes) {
        Err(_) => return bad("string table is not UTF-8".into()),
        // `ArchivedStringTable::get` reads strings without re-checking: each must start and end
        // on a boundary.
        Ok(text) => {
            if b.strings
                .ends
                .iter()
                .any(|e| !text.is_char_boundary(e.to_native() as usize))
            {
                return bad("a string of the string table ends inside a character".into());
            }
        }
    }
    // The table is sorted and holds each string once: readers find a string's id by binary
    // search, and compare strings by id.
    for i in 1..b.strings.ends.len() {
        if b.strings.get(i as u32 - 1) >= b.strings.get(i as u32) {
            return bad("the string table is not strictly ascending".into());
        }
    }
    let n_sym = b.symbols.len() as u32;
    for csr in [&b.forward, &b.reverse] {
        if csr.offsets.len() != b.symbols.len() + 1 {
            return bad("adjacency offsets do not match the symbol count".into());
        }
        let mut prev = 0u32;
        for o in csr.offsets.iter() {
            let o = o.to_native();
            if o < prev || o as usize > csr.edges.len() {
                return bad("adjacency offsets are not monotone".into());
            }
            prev = o;
        }
        if prev as usize != csr.edges.len() {
            return bad("adjacency offsets do not cover the edges".into());
        }
        if csr.edges.iter().any(|e| e.other.to_native() >= n_sym) {
            return bad("an edge names a symbol out of range".into());
        }
    }
    if b.forward.edges.len() != b.reverse.edges.len() {
        return bad("reverse adjacency is not the same size as forward".into());
    }
    let (n_repo, n_pkg, n_file) = (
        b.repositories.len() as u32,
        b.packages.len() as u32,
        b.files.len() as u32,
    );
    for s in b.symbols.iter() {
        if s.key.to_native() >= n_str
            || s.name.to_native() >= n_str
            || s.qualified_name.to_native() >= n_str
            || s.repository.to_native() >= n_repo
            || s.package.to_native() >= n_pkg
            || s.file.to_native() >= n_file
        {
            return bad("a symbol record points out of range".into());
        }
    }
    for f in b.files.iter() {
        if f.repository.to_native() >= n_repo
            || f.path.to_native() >= n_str
            || !(f.package.to_native() == NONE || f.package.to_native() < n_pkg)
        {
            return bad("a file record points out of range".into());
        }
    }
    // Files are in (repository, path) order: readers find the files under a path by binary
    // search.
    for w in b.files.windows(2) {
        let key =
            |f: &ArchivedFileRec| (f.repository.to_native(), b.strings.get(f.path.to_native()));
        if key(&w[0]) >= key(&w[1]) {
            return bad("the files are not in (repository, path) order".into());
        }
    }
    for p in b.packages.iter() {
        if p.repository.to_native() >= n_repo || p.name.to_native() >= n_str {
            return bad("a package record points out of range".into());
        }
    }
    let opt_in = |v: u32, n: u32| v == NONE || v < n;
    for u in b.unresolved.iter() {
        if u.repository.to_native() >= n_repo
            || u.reason.to_native() >= n_str
            || u.requested_package.to_native() >= n_str
            || !opt_in(u.file.to_native(), n_file)
            || !opt_in(u.source.to_native(), n_sym)
            || !opt_in(u.requested_symbol.to_native(), n_str)
            || !opt_in(u.detail.to_native(), n_str)
        {
            return bad("an unresolved record points out of range".into());
        }
    }
    for e in b.package_edges.iter() {
        if e.source.to_native() >= n_pkg || e.target.to_native() >= n_pkg {
            return bad("a package edge points out of range".into());
        }
    }
    for csr in [&b.forward, &b.reverse] {
        if csr
            .edges
            .iter()
            .any(|e| !opt_in(e.file.to_native(), n_file))
        {
            return bad("an edge occurrence names a file out of range".into());
        }
    }
    if b.unresolved_by_name
        .iter()
        .any(|i| i.to_native() as usize >= b.unresolved.len())
    {
        return bad("the unresolved name index points out of range".into());
    }
    if b.name_postings.iter().any(|i| i.to_native() >= n_sym) {
        return bad("a name posting points out of range".into());
    }
    b.terms.check(b.symbols.len()).or_else(bad)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob whose vectors have odd lengths and mixed alignments (bytes, `u32`s, `u64`s), so
    /// that an archive's padding depends on where each vector starts.
    fn odd_blob() -> GraphBlob {
        let strings = |words: &[&str]| {
            let mut t = StringTable::default();
            for w in words {
                t.bytes.extend_from_slice(w.as_bytes());
                t.ends.push(t.bytes.len() as u32);
            }
            t
        };
        let edge = |other: u32| EdgeRec {
            other,
            kind: 3,
            confidence: 1,
            provenance: 7,
            file: 0,
            line: 11 + other,
            column: 5,
        };
        GraphBlob {
            strings: strings(&["", "a", "abc", "de", "mod::name"]),
            repositories: vec![RepositoryRec {
                name: 1,
                root: 0,
                commit: NONE,
                branch: NONE,
                dirty: 2,
                languages: vec![1, 3, 5],
                derived: false,
            }],
            packages: vec![PackageRec {
                key: 4,
                repository: 0,
                language: 1,
                name: 2,
                path: 3,
                module: NONE,
            }],
            files: vec![FileRec {
                repository: 0,
                package: 0,
                path: 3,
                language: 1,
                status: 0,
                size: 12_345,
                lines: 321,
                sha256: [9; 32],
            }],
            symbols: (0..3)
                .map(|i| SymbolRec {
                    key: i,
                    name: i + 1,
                    qualified_name: 4,
                    kind: 1,
                    language: 1,
                    exported: i % 2 == 0,
                    signature: NONE,
                    repository: 0,
                    package: 0,
                    file: 0,
                    start_line: i,
                    start_column: 1,
                    end_line: i + 2,
                    end_column: 1,
                    start_byte: 10 * i,
                    end_byte: 10 * i + 7,
                })
                .collect(),
            forward: Csr {
                offsets: vec![0, 2, 2, 3],
                edges: vec![edge(1), edge(2), edge(0)],
            },
            reverse: Csr {
                offsets: vec![0, 1, 2, 3],
                edges: vec![edge(2), edge(0), edge(0)],
            },
            unresolved: vec![UnresolvedRec {
                repository: 0,
                file: 0,
                language: 1,
                source: 2,
                reason: 2,
                requested_package: 3,
                requested_symbol: 1,
                detail: NONE,
                line: 4,
                column: 9,
            }],
            unresolved_by_name: vec![0],
            package_edges: Vec::new(),
            name_postings: vec![0, 1, 2],
            terms: TermIndex {
                keys: strings(&["abc", "name", "x"]),
                postings: vec![1, 2, 3, 4, 5],
                posting_ends: vec![2, 3, 5],
                doc_freq: vec![1, 1, 2],
                path_class: vec![0, 1, 2],
                prior: vec![7, 7, 7],
            },
        }
    }

    /// The archive serialized in place behind the header has the bytes of the same archive
    /// serialized on its own, and the framing reads back.
    #[test]
    fn the_archive_framed_in_place_is_the_archive_on_its_own() {
        let blob = odd_blob();
        let framed = encode(&blob).unwrap();
        let alone = rkyv::to_bytes::<rkyv::rancor::Error>(&blob).unwrap();
        let (header, archive, sums) = parts(&framed).unwrap();
        assert_eq!(archive, alone.as_slice());
        assert_eq!(header.length as usize, alone.len());
        assert_eq!(header.checksum, xxhash_rust::xxh3::xxh3_128(&alone));
        let blocks = block_count(alone.len(), header.shift);
        assert_eq!(sums.len(), 8 * blocks);
        assert_eq!(framed.len(), BLOB_HEADER_LEN + alone.len() + 8 * blocks);
        let back = rkyv::from_bytes::<GraphBlob, rkyv::rancor::Error>(&alone).unwrap();
        assert_eq!(back, blob);
    }
}
