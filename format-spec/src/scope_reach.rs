//! `scope_reach.bin`: what each invisible scope's files import and declare (SPEC 7.10), so that
//! completeness names a scope only where it could hold a use of the subject.
//!
//! Layout, little-endian: the magic `KGSCRE01`; `n`, the number of unresolved records of the
//! generation, and `m`, the number of entries (`u32` each); then `m` record indexes (`u32`,
//! increasing, each a record without a file); then `m + 1` text offsets (`u32`, non-decreasing,
//! the first 0); then the text. Entry `k`'s text is `text[offsets[k]..offsets[k+1]]`: lines
//! `i <package>` (an import) then `d <name>` (a declaration), each group sorted and distinct,
//! every line ended by `\n`. A scope without an entry is one whose files could not be read for
//! it: it may hold anything.

use crate::error::FormatError;

pub const SCOPE_REACH: &str = "scope_reach.bin";
const MAGIC: &[u8; 8] = b"KGSCRE01";
const HEADER: usize = 16;

/// One scope's imports and declarations, to encode.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    pub record: u32,
    pub imports: Vec<String>,
    pub declares: Vec<String>,
}

/// Encodes the entries of a generation of `records` unresolved records. An entry with a string
/// that holds a line break (no language's import or name does) is left out: its scope is then
/// one that may hold anything, which is the truth the file can tell about it.
pub fn encode(records: usize, entries: &[Entry]) -> Vec<u8> {
    let mut kept: Vec<(u32, String)> = Vec::new();
    for e in entries {
        let mut imports = e.imports.clone();
        let mut declares = e.declares.clone();
        imports.sort();
        imports.dedup();
        declares.sort();
        declares.dedup();
        if imports.iter().chain(&declares).any(|s| s.contains('\n')) {
            continue;
        }
        let mut text = String::new();
        for i in &imports {
            text.push_str("i ");
            text.push_str(i);
            text.push('\n');
        }
        for d in &declares {
            text.push_str("d ");
            text.push_str(d);
            text.push('\n');
        }
        kept.push((e.record, text));
    }
    kept.sort();
    kept.dedup_by_key(|(r, _)| *r);
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(records as u32).to_le_bytes());
    out.extend_from_slice(&(kept.len() as u32).to_le_bytes());
    for (r, _) in &kept {
        out.extend_from_slice(&r.to_le_bytes());
    }
    let mut at = 0u32;
    out.extend_from_slice(&at.to_le_bytes());
    for (_, t) in &kept {
        at += t.len() as u32;
        out.extend_from_slice(&at.to_le_bytes());
    }
    for (_, t) in &kept {
        out.extend_from_slice(t.as_bytes());
    }
    out
}

fn bad(what: impl Into<String>) -> FormatError {
    FormatError::corrupt(SCOPE_REACH, what)
}

fn word(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A checked view of the file: the header, the record count and the length are checked when it
/// is parsed, and every offset and line where it is read.
#[derive(Debug, Clone, Copy)]
pub struct ScopeReach<'a> {
    bytes: &'a [u8],
    entries: usize,
}

/// One scope's imports and declarations, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach<'a> {
    pub imports: Vec<&'a str>,
    pub declares: Vec<&'a str>,
}

impl<'a> ScopeReach<'a> {
    /// Checks the header, the record count against the generation's and the length.
    pub fn parse(bytes: &'a [u8], records: usize) -> Result<Self, FormatError> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(bad("bad magic or short header"));
        }
        let n = word(bytes, 8).unwrap_or(0) as usize;
        let m = word(bytes, 12).unwrap_or(0) as usize;
        if n != records {
            return Err(bad(format!(
                "is for {n} unresolved records, the generation has {records}"
            )));
        }
        let text_at = HEADER as u64 + 4 * m as u64 + 4 * (m as u64 + 1);
        let text_len = word(bytes, HEADER + 8 * m).map(u64::from);
        if text_len.is_none_or(|t| bytes.len() as u64 != text_at + t) {
            return Err(bad(format!(
                "is {} bytes, not as its header says",
                bytes.len()
            )));
        }
        Ok(ScopeReach { bytes, entries: m })
    }

    /// How many scopes have an entry.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether no scope has one.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    fn record_at(&self, k: usize) -> Option<u32> {
        word(self.bytes, HEADER + 4 * k)
    }

    /// The record of entry `k` and its reach; an error when its offsets or lines do not hold.
    pub fn entry(&self, k: usize) -> Result<(u32, Reach<'a>), FormatError> {
        let record = self
            .record_at(k)
            .ok_or_else(|| bad(format!("entry {k} is past the end")))?;
        let offsets = HEADER + 4 * self.entries;
        let text_at = offsets + 4 * (self.entries + 1);
        let (a, b) = match (
            word(self.bytes, offsets + 4 * k),
            word(self.bytes, offsets + 4 * k + 4),
        ) {
            (Some(a), Some(b)) if a <= b => (a as usize, b as usize),
            _ => return Err(bad(format!("the offsets of entry {k} are out of order"))),
        };
        let text = self
            .bytes
            .get(text_at + a..text_at + b)
            .ok_or_else(|| bad(format!("the text of entry {k} is past the end")))?;
        let text = std::str::from_utf8(text)
            .map_err(|_| bad(format!("the text of entry {k} is not UTF-8")))?;
        let mut reach = Reach::default();
        if !text.is_empty() && !text.ends_with('\n') {
            return Err(bad(format!("the text of entry {k} does not end a line")));
        }
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("i", p)) if reach.declares.is_empty() => reach.imports.push(p),
                Some(("d", d)) => reach.declares.push(d),
                _ => return Err(bad(format!("entry {k} has the line {line:?}"))),
            }
        }
        for list in [&reach.imports, &reach.declares] {
            if !list.windows(2).all(|w| w[0] < w[1]) {
                return Err(bad(format!("the lines of entry {k} are not sorted")));
            }
        }
        Ok((record, reach))
    }

    /// The reach of unresolved record `record`: `Ok(None)` when it has no entry (a scope that may
    /// hold anything, or a record with a file).
    pub fn of(&self, record: u32) -> Result<Option<Reach<'a>>, FormatError> {
        let (mut lo, mut hi) = (0, self.entries);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.record_at(mid) {
                Some(r) if r < record => lo = mid + 1,
                Some(_) => hi = mid,
                None => return Err(bad("record indexes cut short")),
            }
        }
        if lo < self.entries && self.record_at(lo) == Some(record) {
            return self.entry(lo).map(|(_, r)| Some(r));
        }
        Ok(None)
    }
}

/// Every entry of the file read once, for a reader that asks many questions: each scope's
/// imports and declarations, sorted, by record.
#[derive(Debug, Default)]
pub struct ReachTable {
    entries: Vec<(u32, Vec<String>, Vec<String>)>,
}

impl ReachTable {
    /// Reads every entry; an error when one does not read or the records are not increasing.
    pub fn read(idx: &ScopeReach) -> Result<ReachTable, FormatError> {
        let mut entries: Vec<(u32, Vec<String>, Vec<String>)> = Vec::with_capacity(idx.len());
        for k in 0..idx.len() {
            let (record, r) = idx.entry(k)?;
            if entries.last().is_some_and(|e| e.0 >= record) {
                return Err(bad(format!("entry {k} is out of order")));
            }
            let owned = |v: Vec<&str>| v.into_iter().map(str::to_string).collect();
            entries.push((record, owned(r.imports), owned(r.declares)));
        }
        Ok(ReachTable { entries })
    }

    /// The imports and declarations of record `record`, when it has an entry.
    pub fn of(&self, record: u32) -> Option<(&[String], &[String])> {
        let i = self.entries.binary_search_by_key(&record, |e| e.0).ok()?;
        let e = &self.entries[i];
        Some((&e.1, &e.2))
    }

    /// How many scopes have an entry.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none has.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_and_damage_is_an_error() {
        let entries = [
            Entry {
                record: 7,
                imports: vec!["os".into(), "fmt".into(), "os".into()],
                declares: vec!["Open".into()],
            },
            Entry {
                record: 2,
                imports: vec![],
                declares: vec![],
            },
            Entry {
                record: 4,
                imports: vec!["a\nb".into()],
                declares: vec![],
            },
        ];
        let bytes = encode(9, &entries);
        let idx = ScopeReach::parse(&bytes, 9).unwrap();
        assert_eq!(idx.len(), 2);
        assert_eq!(
            idx.of(7).unwrap(),
            Some(Reach {
                imports: vec!["fmt", "os"],
                declares: vec!["Open"]
            })
        );
        assert_eq!(idx.of(2).unwrap(), Some(Reach::default()));
        // Left out: a line break in an import.
        assert_eq!(idx.of(4).unwrap(), None);
        assert_eq!(idx.of(3).unwrap(), None);
        assert!(ScopeReach::parse(&bytes, 8).is_err());
        assert!(ScopeReach::parse(&bytes[..bytes.len() - 1], 9).is_err());
        // A line turned into another kind: read, refused.
        let mut bad = bytes.clone();
        let at = bad.len() - "d Open\n".len();
        bad[at] = b'x';
        let idx = ScopeReach::parse(&bad, 9).unwrap();
        assert!(idx.of(7).is_err());
    }
}
