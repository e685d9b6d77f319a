//! The in-memory fact set of one compile, and its canonical form: keys computed, rows sorted and
//! de-duplicated, ids dense. Everything written to disk comes from `FactSet::finish`, so the
//! tables and the blob can never disagree.
//!
//! The fact set is public so that a generation can be written without source files
//! ([`crate::publish`]), for example by the synthetic-graph generator of the benches. Ids here
//! are typed indexes ([`RepoId`], [`PackageId`], [`FileId`], [`SymbolId`]) into the
//! `FactSet`'s own vectors, in any order: `finish` sorts every
//! collection by its durable key and renumbers every reference, so a producer never needs to
//! know the canonical order. Field meanings are those of the tables in `format-spec/SPEC.md`
//! section 6.

use std::collections::BTreeSet;

use rayon::prelude::*;

use kivgraph_format::key::{SymbolIdentity, file_key, package_key};
use kivgraph_format::{Confidence, EdgeKind, FileStatus, Language, Provenance, SymbolKind};

/// Declares an id newtype for one collection of the fact set, with `Index`/`IndexMut` on that
/// collection's `Vec`, so that `facts.symbols[sid]` reads naturally while a file id passed where
/// a symbol id is expected does not compile, and the `FactSet` method that appends to the
/// collection.
macro_rules! fact_id {
    ($(#[$doc:meta])* $id:ident => $item:ident in $field:ident, $push:ident) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash,
            serde::Serialize, serde::Deserialize,
        )]
        pub struct $id(pub usize);

        impl $id {
            /// The position in the fact set's vector.
            pub fn index(self) -> usize {
                self.0
            }
        }

        impl From<usize> for $id {
            fn from(i: usize) -> Self {
                Self(i)
            }
        }

        impl std::fmt::Display for $id {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::ops::Index<$id> for Vec<$item> {
            type Output = $item;
            fn index(&self, id: $id) -> &$item {
                &self[id.0]
            }
        }

        impl std::ops::IndexMut<$id> for Vec<$item> {
            fn index_mut(&mut self, id: $id) -> &mut $item {
                &mut self[id.0]
            }
        }

        impl FactSet {
            #[doc = concat!(
                "Appends a [`", stringify!($item), "`] to [`FactSet::", stringify!($field),
                "`] and returns its id."
            )]
            pub fn $push(&mut self, item: $item) -> $id {
                self.$field.push(item);
                $id(self.$field.len() - 1)
            }
        }
    };
}

fact_id!(
    /// Index into [`FactSet::repos`].
    RepoId => Repo in repos, push_repo
);
fact_id!(
    /// Index into [`FactSet::packages`].
    PackageId => Package in packages, push_package
);
fact_id!(
    /// Index into [`FactSet::files`].
    FileId => SourceFile in files, push_file
);
fact_id!(
    /// Index into [`FactSet::symbols`].
    SymbolId => Symbol in symbols, push_symbol
);

/// One repository: a row of `repositories.parquet` and an entry of the manifest.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Repo {
    /// Unique within a fact set; see SPEC section 4.4 for the names that are refused.
    pub name: String,
    /// The absolute root path, recorded as given.
    pub root: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: Option<bool>,
    /// Languages of the repository's discovered files.
    pub languages: BTreeSet<Language>,
    /// Derived from a toolchain (`rust:<release>`), not registered by a user.
    pub derived: bool,
}

/// One package: a row of `packages.parquet`.
#[derive(Debug, Clone)]
pub struct Package {
    pub repo: RepoId,
    pub language: Language,
    pub name: String,
    pub path: String,
    pub module: Option<String>,
}

/// One discovered source file: a row of `files.parquet`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SourceFile {
    pub repo: RepoId,
    pub package: Option<PackageId>,
    pub path: String,
    pub language: Option<Language>,
    pub status: FileStatus,
    pub size: u64,
    pub lines: u32,
    pub sha256: [u8; 32],
}

/// One declaration: a row of `symbols.parquet`. Its stable key is computed by `finish`.
#[derive(Debug, Clone)]
pub struct Symbol {
    pub repo: RepoId,
    pub package: PackageId,
    pub file: FileId,
    pub language: Language,
    pub name: String,
    pub qualified_name: String,
    pub kind: SymbolKind,
    pub exported: bool,
    pub signature: Option<String>,
    /// Where the declaration stands in its file.
    pub span: Span,
}

/// A span: 1-based lines, 0-based byte columns, byte offsets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Span {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

impl Span {
    /// Runs this span on to the end of `later` when `later` ends after it (a declaration whose
    /// parts follow each other: overloads, a getter's setter).
    pub fn extend_to(&mut self, later: Span) {
        if later.end_byte > self.end_byte {
            self.end_line = later.end_line;
            self.end_column = later.end_column;
            self.end_byte = later.end_byte;
        }
    }
}

/// A symbol-to-symbol edge: a row of `edges.parquet`. `PACKAGE_DEPENDS_ON` and
/// `MODULE_DEPENDS_ON` are package edges, never symbol edges.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Edge {
    pub source: SymbolId,
    pub target: SymbolId,
    pub kind: EdgeKind,
    pub confidence: Confidence,
    pub provenance: Provenance,
    /// The occurrence: file, 1-based line, 0-based column.
    pub file: Option<FileId>,
    pub line: u32,
    pub column: u32,
}

/// A reference that could not be bound: a row of `unresolved.parquet`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Unresolved {
    pub repo: RepoId,
    pub file: Option<FileId>,
    pub line: u32,
    pub column: u32,
    pub language: Language,
    pub reason: String,
    pub requested_package: String,
    pub requested_symbol: Option<String>,
    pub detail: Option<String>,
    pub source: Option<SymbolId>,
    /// A scope that could not be read (a record without a file): what its files import and
    /// declare, read off them for completeness (SPEC 7.10); `None` on other records, and on a
    /// scope whose files could not all be read.
    #[serde(default)]
    pub reach: Option<ScopeReach>,
}

/// What an invisible scope's files import (package names as the language writes them: Go import
/// paths) and declare (names), each sorted and distinct.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ScopeReach {
    pub imports: Vec<String>,
    pub declares: Vec<String>,
}

/// A package-to-package edge: a row of `package_edges.parquet`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct PackageEdge {
    pub source: PackageId,
    pub target: PackageId,
    pub kind: EdgeKind,
    pub confidence: Confidence,
    pub provenance: Provenance,
}

/// A diagnostic for the compile summary: something was skipped or could not be read.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub repository: String,
    pub path: String,
    pub message: String,
}

/// Why a fact set cannot be made canonical: it refers out of range or disagrees with itself
/// (possible only for a fact set built outside the compiler, see [`crate::publish`]), or two
/// different identities share a stable key.
#[derive(Debug, thiserror::Error)]
pub enum FactsError {
    #[error("{what} {index}: {field} is out of range")]
    OutOfRange {
        what: &'static str,
        index: usize,
        field: &'static str,
    },
    #[error("{what} {index}: {problem}")]
    Inconsistent {
        what: &'static str,
        index: usize,
        problem: String,
    },
    #[error(
        "stable key collision: {key} is the key of two different identities ({first:?} and {second:?}); refusing to merge them"
    )]
    KeyCollision {
        key: String,
        first: String,
        second: String,
    },
}

/// Everything one compile found, before canonicalization.
#[derive(Debug, Default)]
pub struct FactSet {
    pub repos: Vec<Repo>,
    /// Ids need not be in canonical order; `finish` sorts and renumbers.
    pub packages: Vec<Package>,
    pub files: Vec<SourceFile>,
    pub symbols: Vec<Symbol>,
    pub edges: Vec<Edge>,
    pub unresolved: Vec<Unresolved>,
    pub package_edges: Vec<PackageEdge>,
    /// Reported in the compile summary; not part of a generation.
    pub diagnostics: Vec<Diagnostic>,
}

/// The canonical fact set: every collection sorted (symbols by stable key), ids dense and final,
/// with the symbols' stable keys. It reads as the [`FactSet`] it holds.
#[derive(Debug)]
pub(crate) struct Finished {
    facts: FactSet,
    /// Parallel to `symbols`.
    pub keys: Vec<String>,
}

impl std::ops::Deref for Finished {
    type Target = FactSet;

    fn deref(&self) -> &FactSet {
        &self.facts
    }
}

impl Finished {
    pub fn package_key(&self, p: PackageId) -> String {
        let p = &self.packages[p];
        package_key(p.language.as_str(), &self.repos[p.repo].name, &p.name)
    }

    pub fn file_key(&self, f: FileId) -> String {
        let f = &self.files[f];
        file_key(&self.repos[f.repo].name, &f.path)
    }
}

fn permutation<T>(
    items: &[T],
    mut cmp: impl FnMut(&T, &T) -> std::cmp::Ordering,
) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| cmp(&items[a], &items[b]));
    let mut new_of_old = vec![0; items.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of_old[old] = new;
    }
    (order, new_of_old)
}

/// Checks item `index` of collection `what`: each of its references `refs` (the field, the index
/// it holds if any, the length of the collection it points into) must be in range, the first
/// that is not fails the check; then `problem`, called only when they all are, says what
/// disagrees, if anything.
fn check_item(
    what: &'static str,
    index: usize,
    refs: &[(&'static str, Option<usize>, usize)],
    problem: impl FnOnce() -> Option<String>,
) -> Result<(), FactsError> {
    if let Some(&(field, _, _)) = refs
        .iter()
        .find(|(_, to, len)| to.is_some_and(|to| to >= *len))
    {
        return Err(FactsError::OutOfRange { what, index, field });
    }
    match problem() {
        Some(problem) => Err(FactsError::Inconsistent {
            what,
            index,
            problem,
        }),
        None => Ok(()),
    }
}

/// `items` sorted, without duplicates.
fn sorted_set<T: Ord + Send>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.into_iter().collect();
    // Equal elements are identical (every order here compares every field), so an unstable
    // sort gives the same vector as a stable one.
    v.par_sort_unstable();
    v.dedup();
    v
}

/// `items` in the order `order` gives (a permutation of their indices).
fn reorder<T>(items: Vec<T>, order: &[usize]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order
        .iter()
        .map(|&i| slots[i].take().expect("a permutation"))
        .collect()
}

impl FactSet {
    /// Checks that every reference is in range and agrees with what it points at, so that a
    /// fact set from outside the compiler fails with a message instead of a panic in `finish`.
    pub(crate) fn check(&self) -> Result<(), FactsError> {
        let (nr, np, nf, ns) = (
            self.repos.len(),
            self.packages.len(),
            self.files.len(),
            self.symbols.len(),
        );
        let between_packages =
            |kind| matches!(kind, EdgeKind::PackageDependsOn | EdgeKind::ModuleDependsOn);
        for (i, p) in self.packages.iter().enumerate() {
            check_item("package", i, &[("repo", Some(p.repo.0), nr)], || None)?;
        }
        for (i, f) in self.files.iter().enumerate() {
            let refs = [
                ("repo", Some(f.repo.0), nr),
                ("package", f.package.map(|p| p.0), np),
            ];
            check_item("file", i, &refs, || {
                f.package
                    .filter(|&p| self.packages[p].repo != f.repo)
                    .map(|_| "its package belongs to another repository".into())
            })?;
        }
        for (i, s) in self.symbols.iter().enumerate() {
            let refs = [
                ("repo", Some(s.repo.0), nr),
                ("package", Some(s.package.0), np),
                ("file", Some(s.file.0), nf),
            ];
            check_item("symbol", i, &refs, || {
                let foreign =
                    self.packages[s.package].repo != s.repo || self.files[s.file].repo != s.repo;
                foreign.then(|| "its package or file belongs to another repository".into())
            })?;
        }
        for (i, e) in self.edges.iter().enumerate() {
            let refs = [
                ("source", Some(e.source.0), ns),
                ("target", Some(e.target.0), ns),
                ("file", e.file.map(|f| f.0), nf),
            ];
            check_item("edge", i, &refs, || {
                between_packages(e.kind).then(|| {
                    format!(
                        "{} connects packages, so it belongs in package_edges",
                        e.kind
                    )
                })
            })?;
        }
        for (i, e) in self.package_edges.iter().enumerate() {
            let ends = Some(e.source.0.max(e.target.0));
            check_item("package edge", i, &[("source or target", ends, np)], || {
                (!between_packages(e.kind))
                    .then(|| format!("{} is not a package edge kind", e.kind))
            })?;
        }
        for (i, u) in self.unresolved.iter().enumerate() {
            let refs = [
                ("repo", Some(u.repo.0), nr),
                ("file", u.file.map(|f| f.0), nf),
                ("source", u.source.map(|s| s.0), ns),
            ];
            check_item("unresolved record", i, &refs, || None)?;
        }
        Ok(())
    }

    /// Canonicalizes: sorts repositories, packages, files and symbols by their durable keys,
    /// renumbers every reference, then sorts and de-duplicates edges and unresolved records.
    ///
    /// Fails when two different symbol identities hash to the same stable key.
    pub(crate) fn finish(self) -> Result<Finished, FactsError> {
        let FactSet {
            repos,
            packages,
            files,
            symbols,
            edges,
            unresolved,
            package_edges,
            diagnostics,
        } = self;
        let (repo_order, repo_new) = permutation(&repos, |a, b| a.name.cmp(&b.name));
        let repos = reorder(repos, &repo_order);
        let mut packages = packages;
        for p in &mut packages {
            p.repo = RepoId(repo_new[p.repo.0]);
        }
        let (pkg_order, pkg_new) = permutation(&packages, |a, b| {
            (a.language.as_str(), &repos[a.repo].name, &a.name).cmp(&(
                b.language.as_str(),
                &repos[b.repo].name,
                &b.name,
            ))
        });
        let packages = reorder(packages, &pkg_order);
        let mut files = files;
        for f in &mut files {
            f.repo = RepoId(repo_new[f.repo.0]);
            f.package = f.package.map(|p| PackageId(pkg_new[p.0]));
        }
        let (file_order, file_new) = permutation(&files, |a, b| {
            (&repos[a.repo].name, &a.path).cmp(&(&repos[b.repo].name, &b.path))
        });
        let files = reorder(files, &file_order);

        // Stable keys. Symbols sharing an identity (Go `init`, redeclarations in broken code)
        // are told apart by a discriminator: their order of appearance within the identity.
        let mut symbols = symbols;
        for s in &mut symbols {
            s.repo = RepoId(repo_new[s.repo.0]);
            s.package = PackageId(pkg_new[s.package.0]);
            s.file = FileId(file_new[s.file.0]);
        }
        // The first symbol of each identity; the others as (first, own) pairs. Nearly every
        // identity has one symbol: no list is made for it.
        let mut first_of: rustc_hash::FxHashMap<(PackageId, &str, SymbolKind), usize> =
            Default::default();
        first_of.reserve(symbols.len());
        let mut shared: Vec<(usize, usize)> = Vec::new();
        for (i, s) in symbols.iter().enumerate() {
            match first_of.entry((s.package, s.qualified_name.as_str(), s.kind)) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(i);
                }
                std::collections::hash_map::Entry::Occupied(o) => shared.push((*o.get(), i)),
            }
        }
        drop(first_of);
        let mut discriminator = vec![String::new(); symbols.len()];
        // Each identity's symbols in order of appearance, then by file and place (a stable sort).
        shared.sort_unstable();
        for group in shared.chunk_by(|a, b| a.0 == b.0) {
            let mut members: Vec<usize> = std::iter::once(group[0].0)
                .chain(group.iter().map(|&(_, i)| i))
                .collect();
            members.sort_by(|&a, &b| {
                let key = |i: usize| (&files[symbols[i].file].path, symbols[i].span.start_byte);
                key(a).cmp(&key(b))
            });
            for (n, &i) in members.iter().enumerate().skip(1) {
                discriminator[i] = format!("#{}", n + 1);
            }
        }
        let mut keyed: Vec<(String, Vec<u8>, usize)> = symbols
            .par_iter()
            .enumerate()
            .map(|(i, s)| {
                let id = SymbolIdentity {
                    language: s.language.as_str(),
                    repository: &repos[s.repo].name,
                    package: &packages[s.package].name,
                    qualified_name: &s.qualified_name,
                    kind: s.kind.as_str(),
                    discriminator: &discriminator[i],
                };
                let canonical = id.canonical();
                (
                    kivgraph_format::key::stable_key_of(&canonical),
                    canonical,
                    i,
                )
            })
            .collect();
        // The position makes every element distinct: unstable is stable here.
        keyed.par_sort_unstable();
        for w in keyed.windows(2) {
            if w[0].0 == w[1].0 {
                return Err(FactsError::KeyCollision {
                    key: w[0].0.clone(),
                    first: String::from_utf8_lossy(&w[0].1).into_owned(),
                    second: String::from_utf8_lossy(&w[1].1).into_owned(),
                });
            }
        }
        let sym_order: Vec<usize> = keyed.iter().map(|k| k.2).collect();
        let mut sym_new = vec![0; symbols.len()];
        for (new, &old) in sym_order.iter().enumerate() {
            sym_new[old] = new;
        }
        let keys = keyed.into_iter().map(|k| k.0).collect();
        let symbols = reorder(symbols, &sym_order);

        let edges = sorted_set(edges.into_iter().map(|e| Edge {
            source: SymbolId(sym_new[e.source.0]),
            target: SymbolId(sym_new[e.target.0]),
            file: e.file.map(|f| FileId(file_new[f.0])),
            ..e
        }));
        let unresolved = sorted_set(unresolved.into_iter().map(|u| Unresolved {
            repo: RepoId(repo_new[u.repo.0]),
            file: u.file.map(|f| FileId(file_new[f.0])),
            source: u.source.map(|s| SymbolId(sym_new[s.0])),
            ..u
        }));
        let package_edges = sorted_set(package_edges.into_iter().map(|e| PackageEdge {
            source: PackageId(pkg_new[e.source.0]),
            target: PackageId(pkg_new[e.target.0]),
            ..e
        }));
        let diagnostics = sorted_set(diagnostics);
        Ok(Finished {
            facts: FactSet {
                repos,
                packages,
                files,
                symbols,
                edges,
                unresolved,
                package_edges,
                diagnostics,
            },
            keys,
        })
    }
}
