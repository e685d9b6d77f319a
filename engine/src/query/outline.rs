//! get_file_outline's selection: the declarations under a repository path.

use kivgraph_format::{Generation, SymbolKind};

/// Every declaration in the files of repository `repo` at or under `path` (`""`: the whole
/// repository), in stable-key order; synthetic module symbols are not declarations. `None` when
/// no indexed file is at or under the path.
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
    if !(0..b.files.len() as u32).any(under) {
        return None;
    }
    Some(
        (0..b.symbols.len() as u32)
            .filter(|&i| {
                let s = &b.symbols[i as usize];
                s.kind != SymbolKind::Module.code() && under(s.file.to_native())
            })
            .collect(),
    )
}
