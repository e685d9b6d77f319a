//! Selectors: from a stable key, a qualified name or a bare name (narrowed by repository and
//! path) to exactly one symbol, or the coded error that says why not.

use kivgraph_format::{Generation, SymbolKind, names};

use super::arguments::{check_padding, clean_path};
use super::symbols::{SymbolRow, require_repository, retain_symbols, symbol_row};
use crate::error::{ErrorCode, ToolError};

/// Symbol selector: `stable_key` xor `qualified_name` [+ `repository` [+ `path`]].
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub stable_key: Option<String>,
    pub qualified_name: Option<String>,
    pub repository: Option<String>,
    pub path: Option<String>,
}

/// Resolves a selector to exactly one symbol, with the reference's errors.
pub fn resolve_selector(g: &Generation, sel: &Selector) -> Result<u32, ToolError> {
    for (field, v) in [
        ("stable_key", &sel.stable_key),
        ("qualified_name", &sel.qualified_name),
        ("repository", &sel.repository),
    ] {
        if let Some(v) = v {
            check_padding(field, v)?;
        }
    }
    let path = sel.path.as_deref().map(clean_path).transpose()?;
    match (&sel.stable_key, &sel.qualified_name) {
        (None, None) => Err(ToolError::invalid(
            "one of stable_key or qualified_name is required",
        )),
        (Some(_), Some(_)) => Err(ToolError::invalid(
            "pass either stable_key or qualified_name, not both",
        )),
        (Some(key), None) => {
            if sel.repository.is_some() || sel.path.is_some() {
                return Err(ToolError::invalid(
                    "repository and path narrow a qualified_name; a stable_key already names one symbol",
                ));
            }
            let b = g.graph();
            let found = b
                .symbols
                .binary_search_by(|s| b.strings.get(s.key.to_native()).cmp(key.as_str()));
            found.map(|i| i as u32).map_err(|_| {
                ToolError::new(
                    ErrorCode::SymbolNotFound,
                    format!("symbol {key:?} was not found"),
                )
            })
        }
        (None, Some(qn)) => {
            if path.is_some() && sel.repository.is_none() {
                return Err(ToolError::invalid(
                    "path is repository-relative, so it requires repository",
                ));
            }
            let repository = sel.repository.as_deref();
            let ids = named(g, names::TAG_QUALIFIED, qn, repository, path.as_deref())?;
            match ids.len() {
                1 => Ok(ids[0]),
                0 => Err(not_found(
                    &format!("qualified name {qn:?}"),
                    repository,
                    path.as_deref(),
                )),
                n => {
                    let rows: Vec<SymbolRow> = ids.iter().map(|&i| symbol_row(g, i)).collect();
                    Err(ToolError::new(
                        ErrorCode::AmbiguousSymbol,
                        match (&sel.repository, &path) {
                            (Some(r), Some(p)) => format!(
                                "qualified name {qn:?} names {n} symbols in {r} {p}, so only a stable_key separates them: {}",
                                rows.iter()
                                    .map(|r| r.stable_key.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            _ => format!(
                                "qualified name {qn:?} names {n} symbols; narrow with repository and path: {}",
                                rows.iter()
                                    .map(|r| format!(
                                        "{} {}:{}-{}",
                                        r.repository, r.file_path, r.start_line, r.end_line
                                    ))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        },
                    ))
                }
            }
        }
    }
}

/// The symbols a name of kind `tag` (qualified or not) carries, declared in `repository` (which
/// must exist) under the path prefix `path`.
fn named(
    g: &Generation,
    tag: u8,
    name: &str,
    repository: Option<&str>,
    path: Option<&str>,
) -> Result<Vec<u32>, ToolError> {
    let repo = match repository {
        Some(r) => Some(require_repository(g, r)?),
        None => None,
    };
    let b = g.graph();
    let mut ids: Vec<u32> = names::lookup(g.names(), tag, name)
        .map(|r| b.name_postings.slice(r))
        .map(|p| p.iter().map(|x| x.to_native()).collect())
        .unwrap_or_default();
    if repo.is_none() && path.is_none() {
        // Nothing narrows: no record needs reading (a common name has tens of thousands).
        return Ok(ids);
    }
    retain_symbols(g, &mut ids, |s| {
        repo.is_none_or(|r| s.repository.to_native() == r)
            && path.is_none_or(|p| {
                b.strings
                    .get(b.files[s.file.to_native() as usize].path.to_native())
                    .starts_with(p)
            })
    });
    Ok(ids)
}

/// `SYMBOL_NOT_FOUND` for `what` (`name "X"`), saying where it was looked for.
fn not_found(what: &str, repository: Option<&str>, path: Option<&str>) -> ToolError {
    let message = match (repository, path) {
        (None, _) => format!("{what} was not found"),
        (Some(r), None) => format!(
            "{what} was not found under {r}; call it without repository and path to search the whole graph"
        ),
        (Some(r), Some(p)) => format!(
            "{what} was not found under {r} {p}; call it without repository and path to search the whole graph"
        ),
    };
    ToolError::new(ErrorCode::SymbolNotFound, message)
}

/// How many bytes of an ambiguous name's message list its candidates; the others are counted.
/// Below the error budget (`tools::MAX_ERROR_BYTES`, 16 KiB), so the count is never cut off.
pub const AMBIGUITY_LISTED_BYTES: usize = 15 << 10;

/// Resolves find_references' `name`: the one declaration carrying it, or the coded errors. An
/// ambiguous name lists its candidates as `repository:path:line` up to
/// [`AMBIGUITY_LISTED_BYTES`], then says how many more there are.
pub fn resolve_name(
    g: &Generation,
    name: &str,
    repository: Option<&str>,
    path: Option<&str>,
) -> Result<u32, ToolError> {
    let b = g.graph();
    let mut declared = named(g, names::TAG_NAME, name, repository, path)?;
    let named_any = !declared.is_empty();
    retain_symbols(g, &mut declared, |s| {
        !matches!(
            SymbolKind::from_code(s.kind),
            Some(SymbolKind::Import | SymbolKind::Export)
        )
    });
    match declared.len() {
        1 => Ok(declared[0]),
        0 if named_any => Err(ToolError::new(
            ErrorCode::SymbolNotFound,
            format!(
                "name {name:?} is only imported or re-exported here, never declared; pass the repository and path that declares it"
            ),
        )),
        0 => Err(not_found(&format!("name {name:?}"), repository, path)),
        n => {
            // Read straight off the blob, and only as many candidates as an error message holds:
            // a common name can have thousands, and the rest are counted, not read.
            let mut message = format!(
                "name {name:?} declares {n} symbols; repeat with the repository and path of the one you mean: "
            );
            for (listed, &i) in declared.iter().enumerate() {
                let s = &b.symbols[i as usize];
                let repo = &b.repositories[s.repository.to_native() as usize];
                let candidate = format!(
                    "{}:{}:{}",
                    b.strings.get(repo.name.to_native()),
                    b.strings
                        .get(b.files[s.file.to_native() as usize].path.to_native()),
                    s.start_line.to_native()
                );
                if message.len() + candidate.len() + 2 > AMBIGUITY_LISTED_BYTES {
                    message += &format!(
                        ", … and {} more; narrow with repository or path",
                        n - listed
                    );
                    break;
                }
                if listed > 0 {
                    message += ", ";
                }
                message += &candidate;
            }
            Err(ToolError::new(ErrorCode::AmbiguousSymbol, message))
        }
    }
}
