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
    let mut keyed: Vec<(Vec<u8>, u32)> = entries
        .into_iter()
        .map(|(tag, s, id)| {
            let mut k = Vec::with_capacity(s.len() + 1);
            k.push(tag);
            k.extend_from_slice(s.as_bytes());
            (k, id)
        })
        .collect();
    keyed.sort();
    keyed.dedup();
    let mut builder = MapBuilder::memory();
    let mut postings = Vec::with_capacity(keyed.len());
    let mut i = 0;
    while i < keyed.len() {
        let start = postings.len() as u64;
        let mut j = i;
        while j < keyed.len() && keyed[j].0 == keyed[i].0 {
            postings.push(keyed[j].1);
            j += 1;
        }
        let count = (j - i) as u64;
        builder
            .insert(&keyed[i].0, (start << 32) | count)
            .map_err(|e| FormatError::Encode(format!("names.fst: {e}")))?;
        i = j;
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
