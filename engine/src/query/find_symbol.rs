//! find_symbol's lookup: names matched exactly, by qualified name, by prefix or by substring in
//! the generation's name index, then narrowed.

use kivgraph_format::{Generation, SymbolKind, names};

use super::symbols::{require_repository, retain_symbols};
use crate::error::ToolError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Exact,
    QualifiedExact,
    Prefix,
    Substring,
}

#[derive(Debug, Clone)]
pub struct FindSymbol {
    pub name: String,
    pub mode: Mode,
    pub kind: Option<String>,
    pub repo: Option<String>,
    pub path_prefix: Option<String>,
    pub include_derived: bool,
}

/// Every match of a find_symbol query, in stable-key order.
pub fn find_symbol(g: &Generation, q: &FindSymbol) -> Result<Vec<u32>, ToolError> {
    let b = g.graph();
    let repo = match &q.repo {
        Some(r) => Some(require_repository(g, r)?),
        None => None,
    };
    let mut ranges = Vec::new();
    match q.mode {
        Mode::Exact => ranges.extend(names::lookup(g.names(), names::TAG_NAME, &q.name)),
        Mode::QualifiedExact => {
            ranges.extend(names::lookup(g.names(), names::TAG_QUALIFIED, &q.name))
        }
        Mode::Prefix => {
            names::for_each_prefix(g.names(), names::TAG_NAME, &q.name, |_, r| ranges.push(r))
        }
        Mode::Substring => match substring_through_grams(g, &q.name) {
            Some(found) => ranges = found,
            None => names::for_each_prefix(g.names(), names::TAG_NAME, "", |s, r| {
                if s.contains(q.name.as_str()) {
                    ranges.push(r)
                }
            }),
        },
    }
    let mut ids: Vec<u32> = ranges
        .into_iter()
        .flat_map(|r| b.name_postings.slice(r))
        .map(|x| x.to_native())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    // With nothing to narrow by and no derived repository to hold back, every match stays: no
    // record is read (a common name has thousands).
    let narrowing = q.kind.is_some()
        || repo.is_some()
        || q.path_prefix.is_some()
        || (!q.include_derived && super::any_derived(g));
    if !narrowing {
        return Ok(ids);
    }
    retain_symbols(g, &mut ids, |s| {
        let r = &b.repositories[s.repository.to_native() as usize];
        q.kind
            .as_deref()
            .is_none_or(|k| SymbolKind::from_code(s.kind).is_some_and(|sk| sk.as_str() == k))
            && repo.is_none_or(|x| s.repository.to_native() == x)
            && (q.include_derived || !r.derived || repo.is_some())
            && q.path_prefix.as_deref().is_none_or(|p| {
                b.strings
                    .get(b.files[s.file.to_native() as usize].path.to_native())
                    .starts_with(p)
            })
    });
    Ok(ids)
}

/// The postings ranges of the names that contain `needle`, through the compiler's index of the
/// distinct names (SPEC 7.9); `None` when the generation has none or it does not hold (then every
/// name is scanned).
fn substring_through_grams(g: &Generation, needle: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let idx = g.name_grams()?;
    let found = idx.containing(needle).ok()?;
    found.into_iter().map(|i| idx.range(i)).collect()
}
