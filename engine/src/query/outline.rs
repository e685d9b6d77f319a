//! get_file_outline's selection: the declarations under a repository path.

use kivgraph_format::{Generation, SymbolKind};

/// Every declaration in the files of repository `repo` at or under `path` (`""`: the whole
/// repository), in stable-key order. A module symbol that spans its whole file (the module a file
/// is) is not a declaration in it; one that spans part of a file is (Rust's `mod x { … }`, a
/// TypeScript `declare module "m" { … }`). `None` when no indexed file is at or under the path.
pub fn declarations_under(g: &Generation, repo: u32, path: &str) -> Option<Vec<u32>> {
    let b = g.graph();
    let under = |file: u32| {
        let f = &b.files[file as usize];
        let p = b.strings.get(f.path.to_native());
        f.repository.to_native() == repo
            && (path.is_empty()
                || p == path
                || p.strip_prefix(path).is_some_and(|r| r.starts_with('/')))
    };
    let whole_file = |s: &kivgraph_format::blob::ArchivedSymbolRec| {
        let f = &b.files[s.file.to_native() as usize];
        s.start_byte.to_native() == 0 && u64::from(s.end_byte.to_native()) >= f.size.to_native()
    };
    let files: Vec<u32> = (0..b.files.len() as u32).filter(|&f| under(f)).collect();
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
