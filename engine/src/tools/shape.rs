//! Pieces of answer rows several tools share: a symbol's fields spelled by name, whether a name
//! can be read off its qualified name, tallies and groups in order of first appearance, and the
//! size test of the grouping bet.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::query::{self, SymbolRow};

/// The value of one of a symbol row's fields, by the key it is reported under.
pub(crate) fn symbol_field(r: &SymbolRow, field: &str) -> Value {
    use kivgraph_format::key;
    match field {
        "stable_key" => json!(r.stable_key),
        "name" => json!(r.name),
        "qualified_name" => json!(r.qualified_name),
        "kind" => json!(r.kind),
        "signature" => json!(r.signature),
        "exported" => json!(r.exported),
        "repository" => json!(r.repository),
        "repository_path" => json!(r.repository_path),
        "package_name" => json!(r.package_name),
        "module_path" => json!(r.module_path),
        "file_path" => json!(r.file_path),
        "start_line" => json!(r.start_line),
        "end_line" => json!(r.end_line),
        "language" => json!(r.language),
        "canonical_identity" => json!(query::canonical_identity(r)),
        "file_key" => json!(key::file_key(&r.repository, &r.file_path)),
        "repository_key" => json!(key::repository_key(&r.repository)),
        "package_key" => json!(key::package_key(r.language, &r.repository, &r.package_name)),
        other => unreachable!("a symbol row has no field {other:?}"),
    }
}

/// What names a symbol and where it starts: the leading columns of several full rows.
pub(crate) const NAMED_AT: &[&str] = &[
    "name",
    "qualified_name",
    "kind",
    "repository",
    "file_path",
    "start_line",
];

/// Appends the named fields of a symbol row to `m`, in the order given.
pub(crate) fn put_symbol_fields(m: &mut Map<String, Value>, r: &SymbolRow, fields: &[&str]) {
    for &f in fields {
        m.insert(f.into(), symbol_field(r, f));
    }
}

/// A symbol's address in compact answers: `repository:path:line`.
pub(crate) fn address(r: &SymbolRow) -> String {
    format!("{}:{}:{}", r.repository, r.file_path, r.start_line)
}

/// Whether `name` can be read off the end of `qn` (after a separator) or equals it.
pub(crate) fn name_readable_off(qn: &str, name: &str) -> bool {
    qn == name
        || (qn.ends_with(name) && qn[..qn.len() - name.len()].ends_with(['.', ':', '#', '/']))
}

/// Whether `qn` is `name` or ends in `.name`, so that stating the name again says nothing.
pub(crate) fn name_after_dot(qn: &str, name: &str) -> bool {
    qn == name || qn.ends_with(&format!(".{name}"))
}

/// `f` of every row when all rows agree on it; `None` for no rows or a dissent.
pub(crate) fn all_same<T: PartialEq>(rows: &[SymbolRow], f: impl Fn(&SymbolRow) -> T) -> Option<T> {
    let first = f(rows.first()?);
    rows.iter().all(|r| f(r) == first).then_some(first)
}

/// How many times each key occurs, in order of first appearance.
pub(crate) fn tally<K: Eq + std::hash::Hash + Clone>(
    keys: impl IntoIterator<Item = K>,
) -> Vec<(K, u64)> {
    let mut out: Vec<(K, u64)> = Vec::new();
    let mut at: rustc_hash::FxHashMap<K, usize> = Default::default();
    for k in keys {
        match at.get(&k) {
            Some(&i) => out[i].1 += 1,
            None => {
                at.insert(k.clone(), out.len());
                out.push((k, 1));
            }
        }
    }
    out
}

/// The items grouped by `key`, groups and their members in order of first appearance.
pub(crate) fn group_by<K: Eq + std::hash::Hash + Clone, T>(
    items: impl IntoIterator<Item = T>,
    key: impl Fn(&T) -> K,
) -> Vec<(K, Vec<T>)> {
    let mut out: Vec<(K, Vec<T>)> = Vec::new();
    let mut at: rustc_hash::FxHashMap<K, usize> = Default::default();
    for it in items {
        let k = key(&it);
        match at.get(&k) {
            Some(&i) => out[i].1.push(it),
            None => {
                at.insert(k.clone(), out.len());
                out.push((k, vec![it]));
            }
        }
    }
    out
}

/// A tally as `[{"key": k, "count": n}, ...]`.
pub(crate) fn key_counts<K: Serialize>(pairs: &[(K, u64)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .map(|(k, n)| json!({"key": k, "count": n}))
            .collect(),
    )
}

/// Whether `a` serializes strictly shorter than `b`: the grouping bet is taken only then.
pub(crate) fn smaller(a: &Value, b: &Value) -> bool {
    let size = |v: &Value| {
        serde_json::to_string(v)
            .map(|s| s.len())
            .unwrap_or(usize::MAX)
    };
    size(a) < size(b)
}
