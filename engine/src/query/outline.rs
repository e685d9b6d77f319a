//! get_file_outline's selection: the declarations under a repository path.

use kivgraph_format::{Generation, SymbolKind};

/// Every declaration in the files of repository `repo` at or under `path` (`""`: the whole
/// repository), in stable-key order. A module symbol that spans its whole file (the module a file
/// is) is not a declaration in it; one that spans part of a file is (Rust's `mod x { … }`, a
/// TypeScript `declare module "m" { … }`). `None` when no indexed file is at or under the path.
pub fn declarations_under(g: &Generation, repo: u32, path: &str) -> Option<Vec<u32>> {
    let b = g.graph();
    let files = files_under(g, repo, path);
    let under = |file: u32| files.binary_search(&file).is_ok();
    let whole_file = |s: &kivgraph_format::blob::ArchivedSymbolRec| {
        let f = &b.files[s.file.to_native() as usize];
        s.start_byte.to_native() == 0 && u64::from(s.end_byte.to_native()) >= f.size.to_native()
    };
    if files.is_empty() {
        return None;
    }
    // Through the compiler's index of each file's symbols; a generation without it, or an index
    // that does not hold (a damaged byte), is read by a scan of every symbol.
    if let Some(idx) = g.file_symbols() {
        let mut out = Vec::new();
        let mut holds = true;
        'files: for &f in &files {
            let Ok(ids) = idx.of(f) else {
                holds = false;
                break;
            };
            for id in ids {
                let Some(s) = b.symbols.get(id as usize) else {
                    holds = false;
                    break 'files;
                };
                if s.file.to_native() != f {
                    holds = false;
                    break 'files;
                }
                if s.kind != SymbolKind::Module.code() || !whole_file(s) {
                    out.push(id);
                }
            }
        }
        if holds {
            out.sort_unstable();
            return Some(out);
        }
    }
    Some(
        (0..b.symbols.len() as u32)
            .filter(|&i| {
                let s = &b.symbols[i as usize];
                under(s.file.to_native()) && (s.kind != SymbolKind::Module.code() || !whole_file(s))
            })
            .collect(),
    )
}

/// The files of repository `repo` at or under `path` (`""`: all of them), ascending. Files are
/// in (repository, path) order (SPEC section 5), so they are found by binary search: the file at
/// `path` itself, then the range of paths that start with `path/`.
pub fn files_under(g: &Generation, repo: u32, path: &str) -> Vec<u32> {
    let b = g.graph();
    // The first file whose (repository, path) is not below (repo, key).
    let first_at_or_after = |repo: u32, key: &[u8]| -> u32 {
        let (mut lo, mut hi) = (0u32, b.files.len() as u32);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let f = &b.files[mid as usize];
            let below = (
                f.repository.to_native(),
                b.strings.get(f.path.to_native()).as_bytes(),
            ) < (repo, key);
            if below {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    if path.is_empty() {
        return (first_at_or_after(repo, b"")..first_at_or_after(repo.saturating_add(1), b""))
            .collect();
    }
    let mut out = Vec::new();
    let exact = first_at_or_after(repo, path.as_bytes());
    if let Some(f) = b.files.get(exact as usize)
        && f.repository.to_native() == repo
        && b.strings.get(f.path.to_native()) == path
    {
        out.push(exact);
    }
    // Paths that start with `path/` are those from `path/` up to (not including) `path0`, `0`
    // being the byte after `/`.
    let (mut from, mut to) = (path.as_bytes().to_vec(), path.as_bytes().to_vec());
    from.push(b'/');
    to.push(b'/' + 1);
    out.extend(first_at_or_after(repo, &from)..first_at_or_after(repo, &to));
    out
}
