//! Symbols, repositories and packages read off the map: what a symbol row reports, its canonical
//! identity, repositories by name, and the names behind repository and package indexes.

use kivgraph_format::blob::ArchivedSymbolRec;
use kivgraph_format::key::SymbolIdentity;
use kivgraph_format::{Generation, Language, SymbolKind};

use crate::error::ToolError;

/// One symbol as the tools report it.
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolRow {
    pub id: u32,
    pub stable_key: String,
    pub name: String,
    pub qualified_name: String,
    pub kind: &'static str,
    pub signature: Option<String>,
    pub exported: bool,
    pub repository: String,
    pub repository_path: String,
    pub package_name: String,
    pub module_path: Option<String>,
    pub file_path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub language: &'static str,
}

pub fn symbol_row(g: &Generation, id: u32) -> SymbolRow {
    let b = g.graph();
    let s: &ArchivedSymbolRec = &b.symbols[id as usize];
    let st = &b.strings;
    let repo = &b.repositories[s.repository.to_native() as usize];
    let pkg = &b.packages[s.package.to_native() as usize];
    SymbolRow {
        id,
        stable_key: st.get(s.key.to_native()).to_string(),
        name: st.get(s.name.to_native()).to_string(),
        qualified_name: st.get(s.qualified_name.to_native()).to_string(),
        kind: SymbolKind::from_code(s.kind).map_or("unknown", |k| k.as_str()),
        signature: st.opt(s.signature.to_native()).map(str::to_string),
        exported: s.exported,
        repository: st.get(repo.name.to_native()).to_string(),
        repository_path: crate::checkouts::root_of(g, s.repository.to_native()).unwrap_or_default(),
        package_name: st.get(pkg.name.to_native()).to_string(),
        module_path: st.opt(pkg.module.to_native()).map(str::to_string),
        file_path: st
            .get(b.files[s.file.to_native() as usize].path.to_native())
            .to_string(),
        start_line: s.start_line.to_native(),
        end_line: s.end_line.to_native(),
        language: Language::from_code(s.language).map_or("unknown", |l| l.as_str()),
    }
}

/// The canonical identity behind a row's stable key, for `response_format: "detailed"`.
pub fn canonical_identity(row: &SymbolRow) -> Option<String> {
    let disc: Vec<String> = std::iter::once(String::new())
        .chain((2..=256).map(|n| format!("#{n}")))
        .collect();
    disc.iter().find_map(|d| {
        let id = SymbolIdentity {
            language: row.language,
            repository: &row.repository,
            package: &row.package_name,
            qualified_name: &row.qualified_name,
            kind: row.kind,
            discriminator: d,
        };
        (id.stable_key() == row.stable_key)
            .then(|| String::from_utf8_lossy(&id.canonical()).replace('\0', "\u{2400}"))
    })
}

/// How many records ahead a loop over scattered symbols asks for.
const AHEAD: usize = 16;

/// Keeps, in place and in order, the ids of `ids` whose symbol record `keep` accepts. The
/// records of a common name are scattered over the whole symbol table: each is asked for sixteen
/// ahead of its reading, so that their cache misses and page faults overlap instead of following
/// one another.
pub fn retain_symbols(
    g: &Generation,
    ids: &mut Vec<u32>,
    mut keep: impl FnMut(&ArchivedSymbolRec) -> bool,
) {
    let b = g.graph();
    let mut kept = 0;
    for read in 0..ids.len() {
        if let Some(&ahead) = ids.get(read + AHEAD) {
            b.symbols.prefetch(ahead as usize);
        }
        let id = ids[read];
        if keep(&b.symbols[id as usize]) {
            ids[kept] = id;
            kept += 1;
        }
    }
    ids.truncate(kept);
}

/// Whether the repository at index `repo` is derived from a toolchain (`rust:<release>`).
pub fn is_derived(g: &Generation, repo: u32) -> bool {
    g.graph()
        .repositories
        .get(repo as usize)
        .is_some_and(|r| r.derived)
}

/// For each repository (by index), whether it is derived from a toolchain: what the tools that
/// hold derived rows back test per row.
pub fn derived_repositories(g: &Generation) -> Vec<bool> {
    g.graph().repositories.iter().map(|r| r.derived).collect()
}

/// Whether the graph holds any derived repository (no allocation: asked on every reference and
/// symbol query).
pub fn any_derived(g: &Generation) -> bool {
    g.graph().repositories.iter().any(|r| r.derived)
}

/// Index of a repository by name.
pub fn repository_index(g: &Generation, name: &str) -> Option<u32> {
    let b = g.graph();
    b.repositories
        .iter()
        .position(|r| b.strings.get(r.name.to_native()) == name)
        .map(|i| i as u32)
}

/// Index of a repository by name, or the coded error for a repository argument that names none.
pub fn require_repository(g: &Generation, name: &str) -> Result<u32, ToolError> {
    repository_index(g, name).ok_or_else(|| ToolError::repository_not_found(name))
}

/// The name of the repository at index `repo`.
pub fn repository_name(g: &Generation, repo: u32) -> String {
    let b = g.graph();
    b.strings
        .get(b.repositories[repo as usize].name.to_native())
        .to_string()
}

/// The checkout of the repository named `name` on this machine ([`crate::checkouts`]).
pub fn repository_root(g: &Generation, name: &str) -> Option<String> {
    repository_index(g, name).and_then(|r| crate::checkouts::root_of(g, r))
}

/// The name of the package at index `package`.
pub fn package_name(g: &Generation, package: u32) -> String {
    let b = g.graph();
    b.strings
        .get(b.packages[package as usize].name.to_native())
        .to_string()
}
