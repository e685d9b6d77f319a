//! The hash maps and sets of the front ends: FxHash, which is several times faster than the
//! standard library's SipHash on the short keys resolution hashes (names, ids), and makes
//! iteration order a function of the keys alone.

pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;

/// Serializes a map in the order of its keys, so that an extraction encodes to the same bytes
/// however its map was built (made by the parser, or decoded from the cache): a compile unit is
/// a deterministic file. `#[serde(serialize_with = "crate::hash::sorted_map")]`.
pub(crate) fn sorted_map<K, V, S>(map: &HashMap<K, V>, s: S) -> Result<S::Ok, S::Error>
where
    K: serde::Serialize + Ord,
    V: serde::Serialize,
    S: serde::Serializer,
{
    use serde::ser::SerializeMap;
    let mut entries: Vec<(&K, &V)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut m = s.serialize_map(Some(entries.len()))?;
    for (k, v) in entries {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// [`sorted_map`] for a set.
pub(crate) fn sorted_set<K, S>(set: &HashSet<K>, s: S) -> Result<S::Ok, S::Error>
where
    K: serde::Serialize + Ord,
    S: serde::Serializer,
{
    use serde::ser::SerializeSeq;
    let mut keys: Vec<&K> = set.iter().collect();
    keys.sort_unstable();
    let mut q = s.serialize_seq(Some(keys.len()))?;
    for k in keys {
        q.serialize_element(k)?;
    }
    q.end()
}

/// Lowercase hexadecimal of `bytes` (digests in file rows, headers and records).
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
