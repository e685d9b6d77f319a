//! The hash maps and sets of the front ends: FxHash, which is several times faster than the
//! standard library's SipHash on the short keys resolution hashes (names, ids), and makes
//! iteration order a function of the keys alone.

pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;
