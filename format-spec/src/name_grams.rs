//! `name_grams.bin`: the distinct symbol names and their byte trigrams (SPEC 7.9), so that a
//! substring search reads the names that hold the needle's trigrams instead of every name, and
//! a needle shorter than three bytes is searched in the names' text alone.
//!
//! Layout, little-endian: the magic `KGNGRM02`; `n` distinct names, `g` trigrams, `m` entries and
//! `t` text bytes (`u32` each) and two zero `u32`s; then `n` pairs (`u32`, `u32`): each name's
//! range in the blob's `name_postings`, in the name index's key order; then `n + 1` text offsets
//! (`u32`, non-decreasing, the first 0 and the last `t`): name `i` is
//! `text[offsets[i]..offsets[i+1]]`; then `g` trigrams (`u32`, the three bytes big-endian),
//! increasing; then `g + 1` offsets (`u32`, non-decreasing, the last `m`); then `m` name ordinals
//! (`u32`): trigram `k`'s names are `ids[offsets[k]..offsets[k+1]]`, increasing; then the `t`
//! bytes of the names, concatenated in key order.

use std::ops::Range;

use crate::error::FormatError;

pub const NAME_GRAMS: &str = "name_grams.bin";
const MAGIC: &[u8; 8] = b"KGNGRM02";
const HEADER: usize = 32;

fn gram(b: &[u8]) -> u32 {
    (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2])
}

/// Encodes the index of `names` (each distinct name and its postings range, in key order).
pub fn encode(names: &[(String, Range<usize>)]) -> Vec<u8> {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (i, (name, _)) in names.iter().enumerate() {
        let mut grams: Vec<u32> = name.as_bytes().windows(3).map(gram).collect();
        grams.sort_unstable();
        grams.dedup();
        pairs.extend(grams.into_iter().map(|g| (g, i as u32)));
    }
    pairs.sort_unstable();
    let mut keys: Vec<u32> = Vec::new();
    let mut offsets: Vec<u32> = Vec::new();
    for (i, &(g, _)) in pairs.iter().enumerate() {
        if keys.last() != Some(&g) {
            keys.push(g);
            offsets.push(i as u32);
        }
    }
    offsets.push(pairs.len() as u32);
    let mut text_offsets = vec![0u32];
    let mut text = Vec::new();
    for (name, _) in names {
        text.extend_from_slice(name.as_bytes());
        text_offsets.push(text.len() as u32);
    }
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    for v in [names.len(), keys.len(), pairs.len(), text.len(), 0, 0] {
        out.extend_from_slice(&(v as u32).to_le_bytes());
    }
    for (_, r) in names {
        out.extend_from_slice(&(r.start as u32).to_le_bytes());
        out.extend_from_slice(&(r.end as u32).to_le_bytes());
    }
    for v in text_offsets
        .iter()
        .chain(&keys)
        .chain(&offsets)
        .chain(pairs.iter().map(|(_, i)| i))
    {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&text);
    out
}

fn bad(what: impl Into<String>) -> FormatError {
    FormatError::corrupt(NAME_GRAMS, what)
}

fn word(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A checked view of the index: the header and the length are checked when it is parsed, and
/// every offset where it is read, so a damaged index gives an error or a name that the caller's
/// check refuses, never a read out of bounds.
#[derive(Debug, Clone, Copy)]
pub struct NameGrams<'a> {
    bytes: &'a [u8],
    names: usize,
    grams: usize,
    entries: usize,
    text: usize,
}

impl<'a> NameGrams<'a> {
    /// Checks the header and the length.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FormatError> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(bad("bad magic or short header"));
        }
        let [n, g, m, t] = [8, 12, 16, 20].map(|at| word(bytes, at).unwrap_or(0) as u64);
        let want = HEADER as u64 + 8 * n + 4 * (n + 1) + 4 * g + 4 * (g + 1) + 4 * m + t;
        if bytes.len() as u64 != want || word(bytes, 24) != Some(0) || word(bytes, 28) != Some(0) {
            return Err(bad(format!("is {} bytes, not {want}", bytes.len())));
        }
        Ok(NameGrams {
            bytes,
            names: n as usize,
            grams: g as usize,
            entries: m as usize,
            text: t as usize,
        })
    }

    /// How many distinct names the index holds.
    pub fn len(&self) -> usize {
        self.names
    }

    /// Whether the index holds no name.
    pub fn is_empty(&self) -> bool {
        self.names == 0
    }

    /// The postings range of name `ordinal`.
    pub fn range(&self, ordinal: u32) -> Option<Range<usize>> {
        if ordinal as usize >= self.names {
            return None;
        }
        let at = HEADER + 8 * ordinal as usize;
        let (a, b) = (word(self.bytes, at)?, word(self.bytes, at + 4)?);
        (a <= b).then_some(a as usize..b as usize)
    }

    fn text_offsets_at(&self) -> usize {
        HEADER + 8 * self.names
    }

    fn text_offset(&self, i: usize) -> Option<usize> {
        word(self.bytes, self.text_offsets_at() + 4 * i).map(|v| v as usize)
    }

    fn text_bytes(&self) -> &'a [u8] {
        &self.bytes[self.bytes.len() - self.text..]
    }

    /// The bytes of name `ordinal`.
    pub fn name(&self, ordinal: u32) -> Option<&'a [u8]> {
        let i = ordinal as usize;
        if i >= self.names {
            return None;
        }
        let (a, b) = (self.text_offset(i)?, self.text_offset(i + 1)?);
        self.text_bytes().get(a..b)
    }

    /// The names of trigram `k`, its offsets checked.
    fn of(&self, k: usize) -> Result<Vec<u32>, FormatError> {
        let offsets = self.text_offsets_at() + 4 * (self.names + 1) + 4 * self.grams;
        let (a, b) = (
            word(self.bytes, offsets + 4 * k),
            word(self.bytes, offsets + 4 * k + 4),
        );
        let (Some(a), Some(b)) = (a, b) else {
            return Err(bad("offsets cut short"));
        };
        if a > b || b as usize > self.entries {
            return Err(bad(format!(
                "offsets {a}..{b} of trigram {k} are out of order"
            )));
        }
        let ids = offsets + 4 * (self.grams + 1);
        Ok((a..b)
            .map(|i| word(self.bytes, ids + 4 * i as usize).unwrap_or(u32::MAX))
            .collect())
    }

    /// The ordinals of the names that hold every trigram of `needle`, increasing; `Ok(None)`
    /// when the needle is shorter than three bytes (every name is then a candidate). A name
    /// listed holds the trigrams, not necessarily the needle.
    pub fn candidates(&self, needle: &str) -> Result<Option<Vec<u32>>, FormatError> {
        let mut grams: Vec<u32> = needle.as_bytes().windows(3).map(gram).collect();
        if grams.is_empty() {
            return Ok(None);
        }
        grams.sort_unstable();
        grams.dedup();
        let keys = self.text_offsets_at() + 4 * (self.names + 1);
        let key = |k: usize| word(self.bytes, keys + 4 * k).unwrap_or(u32::MAX);
        let mut lists = Vec::new();
        for g in grams {
            let (mut lo, mut hi) = (0, self.grams);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if key(mid) < g {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if lo == self.grams || key(lo) != g {
                return Ok(Some(Vec::new()));
            }
            lists.push(self.of(lo)?);
        }
        lists.sort_by_key(Vec::len);
        let mut out = lists[0].clone();
        for l in &lists[1..] {
            out.retain(|x| l.binary_search(x).is_ok());
        }
        Ok(Some(out))
    }

    /// The ordinals of the names that contain `needle`, increasing: through the trigrams when
    /// the needle has one, else by a search of the names' text. Every name returned was read and
    /// holds the needle.
    pub fn containing(&self, needle: &str) -> Result<Vec<u32>, FormatError> {
        let needle_bytes = needle.as_bytes();
        let holds = |i: u32| {
            self.name(i)
                .is_some_and(|n| memchr::memmem::find(n, needle_bytes).is_some())
        };
        if let Some(candidates) = self.candidates(needle)? {
            return Ok(candidates.into_iter().filter(|&i| holds(i)).collect());
        }
        if needle_bytes.is_empty() {
            return Ok((0..self.names as u32).collect());
        }
        // A short needle: every place it occurs in the text, mapped to the name that holds it
        // whole (an occurrence across two names' boundary is none).
        let mut out: Vec<u32> = Vec::new();
        let mut next_name = 0usize;
        for at in memchr::memmem::find_iter(self.text_bytes(), needle_bytes) {
            // The name whose text starts at or before `at`: offsets are non-decreasing.
            let (mut lo, mut hi) = (next_name, self.names);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if self.text_offset(mid + 1).unwrap_or(usize::MAX) <= at {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if lo >= self.names {
                break;
            }
            let end = self.text_offset(lo + 1).unwrap_or(0);
            if at + needle_bytes.len() <= end && out.last() != Some(&(lo as u32)) {
                out.push(lo as u32);
                next_name = lo;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_holding_the_needles_trigrams_are_found() {
        let names: Vec<(String, Range<usize>)> = ["Fprintf", "Printf", "Sprint", "printer"]
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), i * 2..i * 2 + 2))
            .collect();
        let bytes = encode(&names);
        let idx = NameGrams::parse(&bytes).unwrap();
        assert_eq!(idx.candidates("rintf").unwrap(), Some(vec![0, 1]));
        assert_eq!(idx.candidates("rint").unwrap(), Some(vec![0, 1, 2, 3]));
        assert_eq!(idx.candidates("xyz").unwrap(), Some(vec![]));
        assert_eq!(idx.candidates("ri").unwrap(), None);
        assert_eq!(idx.range(2), Some(4..6));
        assert_eq!(idx.range(4), None);
        assert!(NameGrams::parse(&bytes[..bytes.len() - 4]).is_err());
        assert_eq!(idx.name(1), Some(&b"Printf"[..]));
        // Every search, short needles too, is the scan's answer.
        for needle in [
            "", "p", "f", "ri", "nt", "tf", "rintf", "Sprint", "fS", "rp", "q", "printer",
        ] {
            let scan: Vec<u32> = names
                .iter()
                .enumerate()
                .filter(|(_, (n, _))| n.contains(needle))
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(idx.containing(needle).unwrap(), scan, "needle {needle:?}");
        }
    }
}
