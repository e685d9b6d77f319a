//! Reading the graph blob where it is read: each block checked on its first read, each id checked
//! where it is followed.
//!
//! Opening a generation reads the blob's header and the block that holds the archive's root, and
//! nothing else ([`crate::Generation::open_dir`]); what it costs does not grow with the graph.
//! Every later read goes through a [`Graph`], whose sections give records only from blocks whose
//! xxh3-64 matched the sum the writer recorded ([`crate::blob`]); a block is hashed once per
//! opened generation and remembered. An id that points past its section, a string that is not
//! UTF-8 or a block that does not match its sum is **damage**: the read gives an empty or zeroed
//! value instead of a record, and the damage is noted for the thread that read it. Whoever answers
//! a question (the engine's tools) clears the note before and takes it after ([`take_damage`]),
//! and answers the damage instead of the rows: a corrupted byte is never a row and never a panic,
//! only the questions that reach it fail, and every other question is answered as before.
//!
//! The checks trust the writer's layout once its sums hold: that is what a generation this build
//! compiled (or `kivgraph pull` installed, after the full check of `verify_generation`) is. A
//! generation from elsewhere is installed through `pull`, which checks every byte.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use rkyv::rend::u32_le;

use crate::blob::{
    ArchivedEdgeRec, ArchivedFileRec, ArchivedGraphBlob, ArchivedPackageEdgeRec,
    ArchivedPackageRec, ArchivedRepositoryRec, ArchivedSymbolRec, ArchivedUnresolvedRec, NONE,
};
use crate::terms::{ArchivedTermIndex, PathClass};

/// What a read found wrong, for the answer that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// The generation's file (`graph.blob`, `names.fst`, …).
    pub file: &'static str,
    /// The part of it (`symbols`, `forward edges`, …).
    pub region: &'static str,
    pub what: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.file, self.region, self.what)
    }
}

thread_local! {
    /// The first damage this thread read since the note was last taken, and how many reads found
    /// damage in all.
    static NOTED: RefCell<(Option<Damage>, u64)> = const { RefCell::new((None, 0)) };
}

/// Notes damage for the thread that read it (the first one is kept).
pub fn note_damage(damage: Damage) {
    NOTED.with(|n| {
        let mut n = n.borrow_mut();
        n.1 += 1;
        if n.0.is_none() {
            n.0 = Some(damage);
        }
    });
}

/// Takes (and clears) the first damage this thread read since the last call.
pub fn take_damage() -> Option<Damage> {
    NOTED.with(|n| n.borrow_mut().0.take())
}

/// How many reads of this thread found damage so far: a builder of a cached value compares it
/// before and after, and keeps nothing built from damaged bytes.
pub fn damage_count() -> u64 {
    NOTED.with(|n| n.borrow().1)
}

/// The block sums of one mapped archive and which blocks were found whole so far.
#[derive(Debug)]
pub struct Blocks {
    shift: u32,
    /// Offset of the archive and of the sums in the mapped file.
    archive_at: usize,
    archive_len: usize,
    sums_at: usize,
    /// One bit a block: checked and whole.
    whole: Box<[AtomicU64]>,
    /// One bit a block: checked and damaged (so it is hashed once, and reported every time).
    damaged: Box<[AtomicU64]>,
}

impl Blocks {
    pub(crate) fn new(shift: u32, archive_at: usize, archive_len: usize, sums_at: usize) -> Self {
        let n = crate::blob::block_count(archive_len, shift).div_ceil(64);
        let bits = || (0..n).map(|_| AtomicU64::new(0)).collect::<Box<[_]>>();
        Blocks {
            shift,
            archive_at,
            archive_len,
            sums_at,
            whole: bits(),
            damaged: bits(),
        }
    }

    /// Whether bytes `start..end` of the archive lie in it and every block they touch matches its
    /// sum; hashes the blocks not checked before. `file` is the whole mapped file.
    #[inline]
    pub(crate) fn holds(&self, file: &[u8], start: usize, end: usize) -> Result<(), String> {
        // The common case, inlined at every read: a record inside one block already found whole.
        if start < end && end <= self.archive_len {
            let (first, last) = (start >> self.shift, (end - 1) >> self.shift);
            if first == last
                && self.whole[first / 64].load(Ordering::Relaxed) & (1u64 << (first % 64)) != 0
            {
                return Ok(());
            }
        }
        self.holds_checking(file, start, end)
    }

    /// [`Blocks::holds`] for the rest: empty or out-of-bounds ranges, several blocks, blocks not
    /// checked yet or damaged.
    #[inline(never)]
    fn holds_checking(&self, file: &[u8], start: usize, end: usize) -> Result<(), String> {
        if start > end || end > self.archive_len {
            return Err(format!(
                "bytes {start}..{end} fall outside the {}-byte archive",
                self.archive_len
            ));
        }
        if start == end {
            return Ok(());
        }
        let (first, last) = (start >> self.shift, (end - 1) >> self.shift);
        for b in first..=last {
            let (word, bit) = (b / 64, 1u64 << (b % 64));
            if self.whole[word].load(Ordering::Relaxed) & bit != 0 {
                continue;
            }
            if self.damaged[word].load(Ordering::Relaxed) & bit == 0 {
                let from = self.archive_at + (b << self.shift);
                let to = (from + (1 << self.shift)).min(self.archive_at + self.archive_len);
                let sum_at = self.sums_at + 8 * b;
                let sum = file.get(sum_at..sum_at + 8);
                if sum
                    .is_some_and(|s| s == xxhash_rust::xxh3::xxh3_64(&file[from..to]).to_le_bytes())
                {
                    self.whole[word].fetch_or(bit, Ordering::Relaxed);
                    continue;
                }
                self.damaged[word].fetch_or(bit, Ordering::Relaxed);
            }
            return Err(format!(
                "block {b} (archive bytes {}..{}) does not match its sum",
                b << self.shift,
                ((b + 1) << self.shift).min(self.archive_len)
            ));
        }
        Ok(())
    }

    /// Bytes of the archive.
    pub fn archive_len(&self) -> usize {
        self.archive_len
    }

    /// How many blocks were checked and found whole, and how many damaged.
    pub fn checked(&self) -> (u64, u64) {
        let count = |v: &[AtomicU64]| {
            v.iter()
                .map(|w| w.load(Ordering::Relaxed).count_ones() as u64)
                .sum()
        };
        (count(&self.whole), count(&self.damaged))
    }
}

/// What every section of one [`Graph`] shares: the mapped file and its blocks.
#[derive(Clone, Copy)]
struct Ctx<'g> {
    file: &'g [u8],
    archive: &'g [u8],
    blocks: &'g Blocks,
}

impl<'g> Ctx<'g> {
    /// Checks the bytes of `items` (which point into the archive); notes damage and says `false`
    /// when they do not hold.
    #[inline]
    fn holds<T>(&self, region: &'static str, items: &[T]) -> bool {
        if items.is_empty() {
            return true;
        }
        let base = self.archive.as_ptr() as usize;
        let start = (items.as_ptr() as usize).wrapping_sub(base);
        let end = start.wrapping_add(std::mem::size_of_val(items));
        match self.blocks.holds(self.file, start, end) {
            Ok(()) => true,
            Err(what) => {
                note_damage(Damage {
                    file: crate::GRAPH_BLOB,
                    region,
                    what,
                });
                false
            }
        }
    }

    fn out_of_range(&self, region: &'static str, i: usize, len: usize) {
        note_damage(Damage {
            file: crate::GRAPH_BLOB,
            region,
            what: format!("index {i} is past the end of its {len} entries"),
        });
    }
}

/// An archived type whose all-zero bytes are a valid value: what a damaged read gives instead of
/// a record.
///
/// # Safety
/// Every bit pattern of zeros of `size_of::<Self>()` bytes must be a valid `Self`, and the type
/// must fit [`ZEROS`] (at most 128 bytes, alignment at most 16).
pub unsafe trait ZeroValid: Sized + 'static {
    fn zeroed() -> &'static Self {
        const { assert!(std::mem::size_of::<Self>() <= 128 && std::mem::align_of::<Self>() <= 16) };
        // SAFETY: the trait's contract: zeros are a valid `Self`, and `ZEROS` is large and
        // aligned enough and lives forever.
        unsafe { &*(ZEROS.0.as_ptr() as *const Self) }
    }
}

#[repr(C, align(16))]
struct Zeros([u8; 128]);
static ZEROS: Zeros = Zeros([0; 128]);

// SAFETY: integers, booleans (zero is `false`) and archived vectors (a zero relative offset with
// a zero length is an empty vector) are valid as zeros; none is larger than 128 bytes.
unsafe impl ZeroValid for u32_le {}
unsafe impl ZeroValid for ArchivedRepositoryRec {}
unsafe impl ZeroValid for ArchivedPackageRec {}
unsafe impl ZeroValid for ArchivedFileRec {}
unsafe impl ZeroValid for ArchivedSymbolRec {}
unsafe impl ZeroValid for ArchivedEdgeRec {}
unsafe impl ZeroValid for ArchivedUnresolvedRec {}
unsafe impl ZeroValid for ArchivedPackageEdgeRec {}

/// One array of the archive, read record by record: each record from checked blocks.
pub struct Section<'g, T> {
    items: &'g [T],
    region: &'static str,
    ctx: Ctx<'g>,
}

impl<T> Clone for Section<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Section<'_, T> {}

impl<'g, T> Section<'g, T> {
    /// Where the records lie in the archive.
    fn region(&self) -> Region {
        region(self.region, self.items, &self.ctx)
    }
}

/// Where one array of the archive lies: its name, first byte (from the archive's start), length
/// in bytes and the alignment its records need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub name: &'static str,
    pub start: usize,
    pub len: usize,
    pub align: usize,
}

fn region<T>(name: &'static str, items: &[T], ctx: &Ctx<'_>) -> Region {
    Region {
        name,
        start: (items.as_ptr() as usize).wrapping_sub(ctx.archive.as_ptr() as usize),
        len: std::mem::size_of_val(items),
        align: std::mem::align_of::<T>(),
    }
}

impl<'g, T: ZeroValid> Section<'g, T> {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Record `i` **unchecked**, for hints only (what to prefetch): its block's sum is not
    /// checked and no damage is noted, so nothing read through it may reach an answer.
    pub fn hint(&self, i: usize) -> Option<&'g T> {
        self.items.get(i)
    }

    /// Asks the processor to start loading record `i` (a hint: nothing is read or checked, and
    /// an index out of range does nothing).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        if let Some(item) = self.items.get(i) {
            prefetch(item);
        }
    }

    /// Record `i`, or `None` past the end or when its bytes are damaged (noted).
    pub fn get(&self, i: usize) -> Option<&'g T> {
        let item = self.items.get(i)?;
        self.ctx
            .holds(self.region, std::slice::from_ref(item))
            .then_some(item)
    }

    /// Records `range`, checked; empty when the range is out of bounds or damaged (noted).
    pub fn slice(&self, range: std::ops::Range<usize>) -> &'g [T] {
        let len = self.items.len();
        match self.items.get(range.clone()) {
            Some(items) if self.ctx.holds(self.region, items) => items,
            Some(_) => &[],
            None => {
                self.ctx.out_of_range(self.region, range.end, len);
                &[]
            }
        }
    }

    /// Every record, checked once as a whole (a scan reads them all anyway).
    pub fn all(&self) -> &'g [T] {
        if self.ctx.holds(self.region, self.items) {
            self.items
        } else {
            &[]
        }
    }

    pub fn iter(&self) -> std::slice::Iter<'g, T> {
        self.all().iter()
    }

    /// Binary search over the records, each probed record checked (a damaged one compares as
    /// zeros, and the damage is noted).
    pub fn binary_search_by(
        &self,
        mut f: impl FnMut(&'g T) -> std::cmp::Ordering,
    ) -> Result<usize, usize> {
        let items = self.items;
        let ctx = self.ctx;
        let region = self.region;
        items.binary_search_by(|item| {
            if ctx.holds(region, std::slice::from_ref(item)) {
                f(item)
            } else {
                f(T::zeroed())
            }
        })
    }

    pub fn first(&self) -> Option<&'g T> {
        self.get(0)
    }

    pub fn last(&self) -> Option<&'g T> {
        self.get(self.items.len().checked_sub(1)?)
    }
}

impl<'g, T: ZeroValid> std::ops::Index<usize> for Section<'g, T> {
    type Output = T;

    /// Record `i`; zeros (and the damage noted) past the end or when its bytes are damaged.
    fn index(&self, i: usize) -> &T {
        match self.items.get(i) {
            Some(item) if self.ctx.holds(self.region, std::slice::from_ref(item)) => item,
            Some(_) => T::zeroed(),
            None => {
                self.ctx.out_of_range(self.region, i, self.items.len());
                T::zeroed()
            }
        }
    }
}

impl<'g, T: ZeroValid> IntoIterator for Section<'g, T> {
    type Item = &'g T;
    type IntoIter = std::slice::Iter<'g, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The string table, read string by string.
#[derive(Clone, Copy)]
pub struct Strings<'g> {
    bytes: &'g [u8],
    ends: Section<'g, u32_le>,
    region: &'static str,
    ctx: Ctx<'g>,
}

impl<'g> Strings<'g> {
    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `id`; "" (and the damage noted) when the id is out of range or its bytes are
    /// damaged or not UTF-8.
    pub fn get(&self, id: u32) -> &'g str {
        let i = id as usize;
        if i >= self.ends.len() {
            self.ctx.out_of_range(self.region, i, self.ends.len());
            return "";
        }
        let (start, end) = match self.ends.slice(i.saturating_sub(1)..i + 1) {
            [end] => (0, end.to_native() as usize),
            [start, end] => (start.to_native() as usize, end.to_native() as usize),
            _ => return "",
        };
        let Some(bytes) = self.bytes.get(start..end) else {
            self.ctx.out_of_range(self.region, end, self.bytes.len());
            return "";
        };
        if !self.ctx.holds(self.region, bytes) {
            return "";
        }
        // Nearly every string is ASCII, which a word-at-a-time test proves valid faster than
        // the general validation.
        if bytes.is_ascii() {
            // SAFETY: ASCII bytes are valid UTF-8.
            return unsafe { std::str::from_utf8_unchecked(bytes) };
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => {
                note_damage(Damage {
                    file: crate::GRAPH_BLOB,
                    region: self.region,
                    what: format!("string {id} is not UTF-8"),
                });
                ""
            }
        }
    }

    /// Asks the processor to start loading where string `id` ends (a hint: nothing is read or
    /// checked, and an id out of range does nothing). With [`Strings::prefetch`] a few strings
    /// later, a loop over many scattered strings overlaps their cache misses.
    #[inline]
    pub fn prefetch_end(&self, id: u32) {
        // The entry before `id` says where the string starts (`get` reads it and the next one).
        if let Some(start) = self.ends.items.get((id as usize).saturating_sub(1)) {
            prefetch(start);
        }
    }

    /// Asks the processor to start loading the first bytes of string `id` (a hint; reads where
    /// the string starts, unchecked, and nothing if that lies outside the table).
    #[inline]
    pub fn prefetch(&self, id: u32) {
        let start = match (id as usize).checked_sub(1) {
            None => 0,
            Some(p) => match self.ends.items.get(p) {
                Some(e) => e.to_native() as usize,
                None => return,
            },
        };
        if let Some(b) = self.bytes.get(start) {
            prefetch(b);
        }
    }

    /// Optional string: [`NONE`] is `None`.
    pub fn opt(&self, id: u32) -> Option<&'g str> {
        (id != NONE).then(|| self.get(id))
    }

    /// The id of `text`, by binary search: the table is sorted and holds each string once, so
    /// two records name the same string exactly when their ids are equal.
    pub fn find(&self, text: &str) -> Option<u32> {
        let (mut lo, mut hi) = (0u32, self.len() as u32);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).cmp(text) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

/// A hint to load the cache line holding `at` (no effect where the platform has no such hint;
/// never faults, whatever the address).
#[inline(always)]
fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault; SSE is baseline on
    // x86_64.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (at as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// One direction of the adjacency.
#[derive(Clone, Copy)]
pub struct Adjacency<'g> {
    pub offsets: Section<'g, u32_le>,
    pub edges: Section<'g, ArchivedEdgeRec>,
}

impl<'g> Adjacency<'g> {
    /// How many half-edges node `n` has (0 past the last node), read off the offsets alone.
    pub fn row_len(&self, n: u32) -> usize {
        let n = n as usize;
        if n + 1 >= self.offsets.len() {
            return 0;
        }
        match self.offsets.slice(n..n + 2) {
            [a, b] => (b.to_native() as usize).saturating_sub(a.to_native() as usize),
            _ => 0,
        }
    }

    /// Prefetch hints for reading the rows of `nodes` in order, called at the `k`-th: where
    /// the row of node `k + 16` lies is asked for, and the first half-edges of node `k + 8`
    /// (read unchecked off its offset, which the call sixteen ahead loaded). Nothing is checked
    /// or noted.
    #[inline]
    pub fn prefetch_rows(&self, nodes: &[u32], k: usize) {
        if let Some(&n) = nodes.get(k + 16) {
            self.offsets.prefetch(n as usize);
        }
        if let Some(&n) = nodes.get(k + 8)
            && let Some(start) = self.offsets.hint(n as usize)
        {
            self.edges.prefetch(start.to_native() as usize);
        }
    }

    /// The half-edges of node `n` (none past the last node).
    pub fn row(&self, n: u32) -> &'g [ArchivedEdgeRec] {
        let n = n as usize;
        if n + 1 >= self.offsets.len() {
            return &[];
        }
        let (a, b) = match self.offsets.slice(n..n + 2) {
            [a, b] => (a.to_native() as usize, b.to_native() as usize),
            _ => return &[],
        };
        if a > b {
            note_damage(Damage {
                file: crate::GRAPH_BLOB,
                region: self.offsets.region,
                what: format!("row {n} ends before it starts"),
            });
            return &[];
        }
        self.edges.slice(a..b)
    }
}

/// The term index of find_by_intent, read term by term.
#[derive(Clone, Copy)]
pub struct Terms<'g> {
    pub keys: Strings<'g>,
    postings: Section<'g, Byte>,
    posting_ends: Section<'g, u32_le>,
    doc_freq: Section<'g, u32_le>,
    path_class: Section<'g, Byte>,
    prior: Section<'g, Byte>,
}

/// A byte of the archive (a `u8` under a name [`ZeroValid`] can be implemented for).
#[repr(transparent)]
pub struct Byte(pub u8);
// SAFETY: a byte.
unsafe impl ZeroValid for Byte {}

fn bytes_of(items: &[Byte]) -> &[u8] {
    // SAFETY: `Byte` is a transparent `u8`.
    unsafe { std::slice::from_raw_parts(items.as_ptr() as *const u8, items.len()) }
}

fn as_bytes(items: &[u8]) -> &[Byte] {
    // SAFETY: `Byte` is a transparent `u8`.
    unsafe { std::slice::from_raw_parts(items.as_ptr() as *const Byte, items.len()) }
}

impl<'g> Terms<'g> {
    /// The number of distinct terms.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The folded text of term `t`.
    pub fn key(&self, t: usize) -> &'g str {
        self.keys.get(t as u32)
    }

    /// The term whose key is exactly `key`, by binary search (the keys are sorted).
    pub fn find(&self, key: &str) -> Option<usize> {
        self.keys.find(key).map(|t| t as usize)
    }

    /// How many symbols carry term `t` (0 for a term out of range).
    pub fn doc_freq(&self, t: usize) -> u32 {
        self.doc_freq.get(t).map_or(0, |d| d.to_native())
    }

    /// The serialized bitmap of term `t` (empty for a term out of range).
    pub fn posting_bytes(&self, t: usize) -> &'g [u8] {
        let end = self
            .posting_ends
            .get(t)
            .map_or(0, |e| e.to_native() as usize);
        let start = match t.checked_sub(1) {
            None => 0,
            Some(p) => self
                .posting_ends
                .get(p)
                .map_or(0, |e| e.to_native() as usize),
        };
        if start > end {
            return &[];
        }
        bytes_of(self.postings.slice(start..end))
    }

    /// The symbols carrying term `t`, decoded from the map; `None` (and the damage noted) when
    /// the bytes do not decode.
    pub fn posting(&self, t: usize) -> Option<roaring::RoaringBitmap> {
        let decoded = roaring::RoaringBitmap::deserialize_from(self.posting_bytes(t)).ok();
        if decoded.is_none() {
            note_damage(Damage {
                file: crate::GRAPH_BLOB,
                region: "term postings",
                what: format!("the bitmap of term {t} does not decode"),
            });
        }
        decoded
    }

    /// Every symbol's ranking prior, checked whole (for a ranking that reads many).
    pub fn priors(&self) -> &'g [u8] {
        bytes_of(self.prior.all())
    }

    /// Every symbol's path class code, checked whole (for a ranking that reads many).
    pub fn path_classes(&self) -> &'g [u8] {
        bytes_of(self.path_class.all())
    }

    /// The ranking prior of symbol `id` ([`crate::terms::prior_code`]); 0 past the end.
    pub fn prior(&self, id: u32) -> u8 {
        self.prior.get(id as usize).map_or(0, |c| c.0)
    }

    /// The path class of symbol `id`.
    pub fn path_class(&self, id: u32) -> PathClass {
        self.path_class
            .get(id as usize)
            .and_then(|c| PathClass::from_code(c.0))
            .unwrap_or(PathClass::Plain)
    }
}

/// The graph of one opened generation, read through checks (see the module's text). Cheap to
/// make: [`crate::Generation::graph`] makes one per call.
#[derive(Clone, Copy)]
pub struct Graph<'g> {
    pub strings: Strings<'g>,
    pub repositories: Section<'g, ArchivedRepositoryRec>,
    pub packages: Section<'g, ArchivedPackageRec>,
    pub files: Section<'g, ArchivedFileRec>,
    pub symbols: Section<'g, ArchivedSymbolRec>,
    pub forward: Adjacency<'g>,
    pub reverse: Adjacency<'g>,
    pub unresolved: Section<'g, ArchivedUnresolvedRec>,
    pub unresolved_by_name: Section<'g, u32_le>,
    pub package_edges: Section<'g, ArchivedPackageEdgeRec>,
    pub name_postings: Section<'g, u32_le>,
    pub terms: Terms<'g>,
    ctx: Ctx<'g>,
    _root: PhantomData<&'g ArchivedGraphBlob>,
}

impl<'g> Graph<'g> {
    /// The graph of `root`, whose bytes (and nothing else) are known to hold; `file` is the whole
    /// mapped file and `archive` the archive inside it.
    pub(crate) fn new(
        root: &'g ArchivedGraphBlob,
        file: &'g [u8],
        archive: &'g [u8],
        blocks: &'g Blocks,
    ) -> Graph<'g> {
        let ctx = Ctx {
            file,
            archive,
            blocks,
        };
        fn section<'g, T>(items: &'g [T], region: &'static str, ctx: Ctx<'g>) -> Section<'g, T> {
            Section { items, region, ctx }
        }
        let strings = |t: &'g crate::blob::ArchivedStringTable, region: &'static str| Strings {
            bytes: t.bytes.as_slice(),
            ends: section(t.ends.as_slice(), region, ctx),
            region,
            ctx,
        };
        let adjacency =
            |c: &'g crate::blob::ArchivedCsr, o: &'static str, e: &'static str| Adjacency {
                offsets: section(c.offsets.as_slice(), o, ctx),
                edges: section(c.edges.as_slice(), e, ctx),
            };
        let t: &'g ArchivedTermIndex = &root.terms;
        Graph {
            strings: strings(&root.strings, "strings"),
            repositories: section(root.repositories.as_slice(), "repositories", ctx),
            packages: section(root.packages.as_slice(), "packages", ctx),
            files: section(root.files.as_slice(), "files", ctx),
            symbols: section(root.symbols.as_slice(), "symbols", ctx),
            forward: adjacency(&root.forward, "forward offsets", "forward edges"),
            reverse: adjacency(&root.reverse, "reverse offsets", "reverse edges"),
            unresolved: section(root.unresolved.as_slice(), "unresolved", ctx),
            unresolved_by_name: section(
                root.unresolved_by_name.as_slice(),
                "unresolved by name",
                ctx,
            ),
            package_edges: section(root.package_edges.as_slice(), "package edges", ctx),
            name_postings: section(root.name_postings.as_slice(), "name postings", ctx),
            terms: Terms {
                keys: strings(&t.keys, "term keys"),
                postings: section(as_bytes(t.postings.as_slice()), "term postings", ctx),
                posting_ends: section(t.posting_ends.as_slice(), "term posting ends", ctx),
                doc_freq: section(t.doc_freq.as_slice(), "term frequencies", ctx),
                path_class: section(as_bytes(t.path_class.as_slice()), "path classes", ctx),
                prior: section(as_bytes(t.prior.as_slice()), "priors", ctx),
            },
            ctx,
            _root: PhantomData,
        }
    }

    /// Every array of the archive's root, where it lies: what opening checks for bounds, and
    /// what a reader (or a test) can address by name.
    pub fn regions(&self) -> Vec<Region> {
        let t = &self.terms;
        vec![
            region(self.strings.region, self.strings.bytes, &self.ctx),
            Region {
                name: "string ends",
                ..self.strings.ends.region()
            },
            self.repositories.region(),
            self.packages.region(),
            self.files.region(),
            self.symbols.region(),
            self.forward.offsets.region(),
            self.forward.edges.region(),
            self.reverse.offsets.region(),
            self.reverse.edges.region(),
            self.unresolved.region(),
            self.unresolved_by_name.region(),
            self.package_edges.region(),
            self.name_postings.region(),
            region(t.keys.region, t.keys.bytes, &self.ctx),
            Region {
                name: "term key ends",
                ..t.keys.ends.region()
            },
            t.postings.region(),
            t.posting_ends.region(),
            t.doc_freq.region(),
            t.path_class.region(),
            t.prior.region(),
        ]
    }

    /// The language codes of repository record `r` (a record of this graph), checked.
    pub fn languages(&self, r: &'g ArchivedRepositoryRec) -> &'g [u8] {
        let langs = r.languages.as_slice();
        if self.ctx.holds("repository languages", langs) {
            langs
        } else {
            &[]
        }
    }
}

/// Every array of the archive's root lies inside `archive` and is aligned for its records:
/// checked when a generation is opened, so that a section never reads outside the mapped
/// archive. The arrays are the ones [`Graph::regions`] lists.
pub(crate) fn sections_in_bounds(
    root: &ArchivedGraphBlob,
    file: &[u8],
    archive: &[u8],
    blocks: &Blocks,
) -> Result<(), String> {
    for r in Graph::new(root, file, archive, blocks).regions() {
        if r.start > archive.len() || r.len > archive.len() - r.start {
            return Err(format!("the {} array lies outside the archive", r.name));
        }
        if !(archive.as_ptr() as usize + r.start).is_multiple_of(r.align) {
            return Err(format!("the {} array is not aligned", r.name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Blocks;

    /// A mapped file of 64 header bytes, an archive of three whole 4 KiB blocks and a short
    /// fourth, and the blocks' sums; `damage` flips a byte of the archive after summing.
    fn file(damage: Option<usize>) -> (Vec<u8>, usize, usize) {
        let len = 3 * 4096 + 1000;
        let mut f = vec![7u8; 64];
        f.extend((0..len).map(|i| (i * 31 % 251) as u8));
        let sums_at = f.len();
        for block in f[64..64 + len].to_vec().chunks(4096) {
            f.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(block).to_le_bytes());
        }
        if let Some(at) = damage {
            f[64 + at] ^= 1;
        }
        (f, len, sums_at)
    }

    /// The inlined fast path of `holds` answers as the checking path does for every range,
    /// whatever was checked before: never `Ok` where the checking path says `Err` (empty,
    /// reversed and out-of-bounds ranges, ranges across blocks, damaged blocks, blocks not yet
    /// checked and blocks already found whole).
    #[test]
    fn the_fast_path_of_holds_agrees_with_the_checking_path() {
        for damage in [None, Some(2 * 4096 + 5), Some(3 * 4096 + 10)] {
            let (f, len, sums_at) = file(damage);
            let fast = Blocks::new(12, 64, len, sums_at);
            let slow = Blocks::new(12, 64, len, sums_at);
            let points = [
                0,
                1,
                4095,
                4096,
                4097,
                8191,
                8192,
                8200,
                12287,
                12288,
                len - 1,
                len,
                len + 1,
            ];
            // Twice: the second round finds the blocks the first one checked.
            for _ in 0..2 {
                for &start in &points {
                    for &end in &points {
                        assert_eq!(
                            fast.holds(&f, start, end).is_ok(),
                            slow.holds_checking(&f, start, end).is_ok(),
                            "{start}..{end} with damage at {damage:?}"
                        );
                    }
                }
            }
            // And what they say is right: the damaged block never holds, an undamaged one does.
            assert!(fast.holds(&f, 10, 20).is_ok());
            assert!(fast.holds(&f, 20, 10).is_err());
            assert!(fast.holds(&f, len - 1, len + 1).is_err());
            assert!(fast.holds(&f, 5, 5).is_ok());
            if let Some(at) = damage {
                assert!(fast.holds(&f, at, at + 1).is_err());
                let block = at / 4096 * 4096;
                assert!(fast.holds(&f, block, block + 1).is_err());
                assert!(fast.holds(&f, block - 2, block).is_ok());
                assert!(fast.holds(&f, 0, len).is_err());
            } else {
                assert!(fast.holds(&f, 0, len).is_ok());
            }
        }
    }
}
