//! `names.fst`: an FST map from names and qualified names to symbol ids.
//!
//! Keys are a one-byte tag followed by the UTF-8 string: [`TAG_NAME`] for a symbol's name,
//! [`TAG_QUALIFIED`] for its qualified name. Several symbols may share a key, so the value is a
//! slice of the blob's `name_postings`: `(start << 32) | count`. Postings of one key are sorted by
//! symbol id, which is stable-key order.

use fst::{IntoStreamer, Map, MapBuilder, Streamer};

use crate::error::FormatError;

pub const TAG_NAME: u8 = 1;
pub const TAG_QUALIFIED: u8 = 2;

/// Builds the FST bytes and the postings from `(tag, string, symbol id)` entries.
pub fn build<'a>(
    entries: impl IntoIterator<Item = (u8, &'a str, u32)>,
) -> Result<(Vec<u8>, Vec<u32>), FormatError> {
    // Sorted by (tag, name bytes, id), which orders the keys `tag ++ name` as the FST needs
    // them.
    let mut keyed: Vec<(u8, &str, u32)> = entries.into_iter().collect();
    keyed.sort_unstable_by(|a, b| (a.0, a.1.as_bytes(), a.2).cmp(&(b.0, b.1.as_bytes(), b.2)));
    keyed.dedup();
    build_sorted(keyed)
}

/// [`build`] over entries already in ascending (tag, name bytes, id) order without repeats (a
/// writer that numbered its strings in byte order sorts them as integers); fails on entries out
/// of that order.
pub fn build_sorted<'a>(
    entries: impl IntoIterator<Item = (u8, &'a str, u32)>,
) -> Result<(Vec<u8>, Vec<u32>), FormatError> {
    let mut builder = MapBuilder::memory();
    let mut postings = Vec::new();
    let mut key: Vec<u8> = Vec::new();
    let mut last: Option<(u8, &str, u32)> = None;
    let mut start = 0u64;
    for (tag, name, id) in entries {
        if let Some(prev) = last {
            if (prev.0, prev.1.as_bytes(), prev.2) >= (tag, name.as_bytes(), id) {
                return Err(FormatError::Encode(
                    "names.fst: entries out of order or repeated".into(),
                ));
            }
            if (prev.0, prev.1) != (tag, name) {
                builder
                    .insert(&key, (start << 32) | (postings.len() as u64 - start))
                    .map_err(|e| FormatError::Encode(format!("names.fst: {e}")))?;
            }
        }
        if last.is_none_or(|prev| (prev.0, prev.1) != (tag, name)) {
            start = postings.len() as u64;
            key.clear();
            key.push(tag);
            key.extend_from_slice(name.as_bytes());
        }
        postings.push(id);
        last = Some((tag, name, id));
    }
    if last.is_some() {
        builder
            .insert(&key, (start << 32) | (postings.len() as u64 - start))
            .map_err(|e| FormatError::Encode(format!("names.fst: {e}")))?;
    }
    let bytes = builder
        .into_inner()
        .map_err(|e| FormatError::Encode(format!("names.fst: {e}")))?;
    Ok((bytes, postings))
}

/// Splits an FST value into a postings range.
pub fn postings_range(value: u64) -> std::ops::Range<usize> {
    let start = (value >> 32) as usize;
    start..start + (value & 0xffff_ffff) as usize
}

/// The key of `s` under `tag`.
pub fn key(tag: u8, s: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(s.len() + 1);
    k.push(tag);
    k.extend_from_slice(s.as_bytes());
    k
}

/// Looks one exact key up.
pub fn lookup<D: AsRef<[u8]>>(map: &Map<D>, tag: u8, s: &str) -> Option<std::ops::Range<usize>> {
    map.get(key(tag, s)).map(postings_range)
}

/// Calls `f(string, postings range)` for every key under `tag` starting with `prefix`, in key order.
pub fn for_each_prefix<D: AsRef<[u8]>>(
    map: &Map<D>,
    tag: u8,
    prefix: &str,
    mut f: impl FnMut(&str, std::ops::Range<usize>),
) {
    let lo = key(tag, prefix);
    let mut stream = map.range().ge(&lo).into_stream();
    while let Some((k, v)) = stream.next() {
        if !k.starts_with(&lo) {
            break;
        }
        f(
            std::str::from_utf8(&k[1..]).unwrap_or(""),
            postings_range(v),
        );
    }
}

/// Opens FST bytes, checking the header.
pub fn open<D: AsRef<[u8]>>(data: D) -> Result<Map<D>, FormatError> {
    Map::new(data).map_err(|e| FormatError::corrupt("names.fst", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_entries_build_what_unsorted_ones_do_and_disorder_is_refused() {
        let entries = [
            (TAG_QUALIFIED, "b.Area", 4),
            (TAG_NAME, "Area", 3),
            (TAG_NAME, "Area", 1),
            (TAG_NAME, "Area", 1),
            (TAG_NAME, "A", 7),
            (TAG_QUALIFIED, "Circle.Area", 1),
            (TAG_NAME, "Arc", 2),
            (TAG_NAME, "ärger", 5),
        ];
        let mut sorted = entries.to_vec();
        sorted.sort_by(|a, b| key(a.0, a.1).cmp(&key(b.0, b.1)).then(a.2.cmp(&b.2)));
        sorted.dedup();
        assert_eq!(
            build(entries).unwrap(),
            build_sorted(sorted.clone()).unwrap()
        );
        assert_eq!(build_sorted([]).unwrap(), build([]).unwrap());
        let mut swapped = sorted.clone();
        swapped.swap(1, 2);
        assert!(build_sorted(swapped).is_err());
        let mut repeated = sorted.clone();
        repeated.insert(1, sorted[1]);
        assert!(build_sorted(repeated).is_err());
    }

    #[test]
    fn shared_names_have_all_postings() {
        let (bytes, postings) = build([
            (TAG_NAME, "Area", 3),
            (TAG_NAME, "Area", 1),
            (TAG_QUALIFIED, "Circle.Area", 1),
            (TAG_NAME, "Arc", 2),
        ])
        .unwrap();
        let map = open(bytes).unwrap();
        let r = lookup(&map, TAG_NAME, "Area").unwrap();
        assert_eq!(&postings[r], &[1, 3]);
        assert_eq!(
            &postings[lookup(&map, TAG_QUALIFIED, "Circle.Area").unwrap()],
            &[1]
        );
        assert!(lookup(&map, TAG_QUALIFIED, "Area").is_none());
        let mut seen = vec![];
        for_each_prefix(&map, TAG_NAME, "Ar", |s, r| {
            seen.push((s.to_string(), r.len()))
        });
        assert_eq!(seen, vec![("Arc".to_string(), 1), ("Area".to_string(), 2)]);
    }
}
