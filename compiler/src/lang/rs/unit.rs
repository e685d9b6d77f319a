//! The references of the derived repositories (the standard library, `rust:<release>`), resolved
//! once and reused.
//!
//! A derived repository sees nothing of the registered ones: std depends on no user crate, so
//! what its references bind to is a function of its own files and crates. Its references are
//! therefore always resolved by a resolution of the derived files alone ([`resolve_alone`]),
//! never beside the user crates (whose impls of std traits would otherwise be visible to std's
//! own method lookups), and the result, a [`DerivedRefs`], is kept in the extraction cache
//! under a digest of everything it depends on ([`unit_digest`]). A later compile with the same
//! standard library builds std's module tree and symbols as usual (user crates resolve into
//! them) but skips the resolution of std's references and places the kept facts instead
//! ([`DerivedRefs::place`]), so a cold compile and a compile that reuses the unit publish the
//! same generation.
//!
//! Facts are kept against locators, not ids: a file by repository name and path, a symbol by
//! file, byte span, kind, qualified name and its rank among symbols sharing all of these, a
//! package by repository, path and name and rank. A locator the current compile does not have
//! makes the unit unusable; the references are then resolved in place (and a diagnostic says
//! so), never dropped.

use crate::hash::HashMap;

use kivgraph_format::SymbolKind;
use serde::{Deserialize, Serialize};

use super::extract::RsFile;
use super::project::CrateDef;
use crate::facts::{Edge, FactSet, FileId, PackageEdge, PackageId, RepoId, SymbolId, Unresolved};

/// A symbol, as a compile of the same sources finds it again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct SymLoc {
    file: u32,
    start_byte: u32,
    end_byte: u32,
    kind: SymbolKind,
    qualified_name: String,
    rank: u32,
}

/// A package: repository, path, name, rank among packages sharing these.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct PkgLoc {
    repo: u32,
    path: String,
    name: String,
    rank: u32,
}

/// What resolving the derived repositories' references produced, with every id an index into
/// this unit's own locator lists (`RepoId` into `repos`, `FileId` into `files`, `SymbolId` into
/// `symbols`, `PackageId` into `packages`).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct DerivedRefs {
    repos: Vec<String>,
    /// (repository, path).
    #[serde(deserialize_with = "crate::disk_cache::exact_vec")]
    files: Vec<(u32, String)>,
    #[serde(deserialize_with = "crate::disk_cache::exact_vec")]
    symbols: Vec<SymLoc>,
    /// Each of `symbols`' position among the derived repositories' symbols in id order, and
    /// the digest of those symbols' locators in that order ([`derived_sequence`]): a compile
    /// whose derived symbols have the same digest places the unit's symbols by position, with
    /// no lookup of their locators.
    #[serde(deserialize_with = "crate::disk_cache::exact_vec")]
    ordinals: Vec<u32>,
    sequence: u128,
    #[serde(deserialize_with = "crate::disk_cache::exact_vec")]
    packages: Vec<PkgLoc>,
    #[serde(deserialize_with = "crate::disk_cache::exact_vec")]
    edges: Vec<Edge>,
    #[serde(deserialize_with = "crate::disk_cache::exact_vec")]
    unresolved: Vec<Unresolved>,
    #[serde(deserialize_with = "crate::disk_cache::exact_vec")]
    package_edges: Vec<PackageEdge>,
}

/// Interns the ids of one fact set as unit-local indices.
struct Capture<'a> {
    facts: &'a FactSet,
    refs: DerivedRefs,
    repos: HashMap<RepoId, u32>,
    files: HashMap<FileId, u32>,
    symbols: HashMap<SymbolId, u32>,
    packages: HashMap<PackageId, u32>,
    sym_rank: HashMap<SymbolId, u32>,
    pkg_rank: HashMap<PackageId, u32>,
    /// Each symbol's position among the derived symbols in id order (`u32::MAX`: not derived).
    ordinal: Vec<u32>,
}

impl Capture<'_> {
    fn repo(&mut self, r: RepoId) -> RepoId {
        let n = self.repos.len() as u32;
        let refs = &mut self.refs;
        let facts = self.facts;
        RepoId(*self.repos.entry(r).or_insert_with(|| {
            refs.repos.push(facts.repos[r].name.clone());
            n
        }) as usize)
    }

    fn file(&mut self, f: FileId) -> FileId {
        if let Some(&i) = self.files.get(&f) {
            return FileId(i as usize);
        }
        let repo = self.repo(self.facts.files[f].repo).0 as u32;
        let i = self.refs.files.len() as u32;
        self.refs
            .files
            .push((repo, self.facts.files[f].path.clone()));
        self.files.insert(f, i);
        FileId(i as usize)
    }

    fn symbol(&mut self, s: SymbolId) -> SymbolId {
        if let Some(&i) = self.symbols.get(&s) {
            return SymbolId(i as usize);
        }
        let sym = &self.facts.symbols[s];
        let loc = SymLoc {
            file: self.file(sym.file).0 as u32,
            start_byte: sym.span.start_byte,
            end_byte: sym.span.end_byte,
            kind: sym.kind,
            qualified_name: sym.qualified_name.clone(),
            rank: self.sym_rank[&s],
        };
        let i = self.refs.symbols.len() as u32;
        self.refs.symbols.push(loc);
        self.refs.ordinals.push(self.ordinal[s.0]);
        self.symbols.insert(s, i);
        SymbolId(i as usize)
    }

    fn package(&mut self, p: PackageId) -> PackageId {
        if let Some(&i) = self.packages.get(&p) {
            return PackageId(i as usize);
        }
        let pkg = &self.facts.packages[p];
        let loc = PkgLoc {
            repo: self.repo(pkg.repo).0 as u32,
            path: pkg.path.clone(),
            name: pkg.name.clone(),
            rank: self.pkg_rank[&p],
        };
        let i = self.refs.packages.len() as u32;
        self.refs.packages.push(loc);
        self.packages.insert(p, i);
        PackageId(i as usize)
    }
}

/// The rank of each symbol among the symbols of the same repositories that share its file,
/// span, kind and qualified name, in id order (ids are given in creation order, which a compile
/// of the same sources repeats).
fn symbol_ranks(facts: &FactSet, of: impl Fn(RepoId) -> bool) -> HashMap<SymbolId, u32> {
    let mut seen: HashMap<(FileId, u32, u32, SymbolKind, &str), u32> = HashMap::default();
    let mut out = HashMap::default();
    for (i, s) in facts.symbols.iter().enumerate() {
        if !of(s.repo) {
            continue;
        }
        let n = seen
            .entry((
                s.file,
                s.span.start_byte,
                s.span.end_byte,
                s.kind,
                s.qualified_name.as_str(),
            ))
            .or_insert(0);
        out.insert(SymbolId(i), *n);
        *n += 1;
    }
    out
}

/// The derived repositories' Rust symbols in id order, and a digest of their locators
/// (repository, file path, span, kind, qualified name) in that order. Other languages' symbols
/// of the same repositories (the standard library's sources hold some Python) are not the
/// unit's: a resolution of the derived files alone has none.
fn derived_sequence(facts: &FactSet) -> (Vec<SymbolId>, u128) {
    let mut h = kivgraph_format::feed::Feed::new();
    let mut order = Vec::new();
    for (i, s) in facts.symbols.iter().enumerate() {
        if !facts.repos[s.repo].derived || s.language != kivgraph_format::Language::Rust {
            continue;
        }
        order.push(SymbolId(i));
        let file = &facts.files[s.file];
        for text in [
            facts.repos[file.repo].name.as_str(),
            file.path.as_str(),
            s.qualified_name.as_str(),
        ] {
            h.field(text.as_bytes());
        }
        h.put(&s.span.start_byte.to_le_bytes());
        h.put(&s.span.end_byte.to_le_bytes());
        h.put(&[s.kind.code()]);
    }
    (order, h.digest128())
}

fn package_ranks(facts: &FactSet, of: impl Fn(RepoId) -> bool) -> HashMap<PackageId, u32> {
    let mut seen: HashMap<(RepoId, &str, &str), u32> = HashMap::default();
    let mut out = HashMap::default();
    for (i, p) in facts.packages.iter().enumerate() {
        if !of(p.repo) {
            continue;
        }
        let n = seen
            .entry((p.repo, p.path.as_str(), p.name.as_str()))
            .or_insert(0);
        out.insert(PackageId(i), *n);
        *n += 1;
    }
    out
}

impl DerivedRefs {
    /// The facts `facts` holds from positions `edges`, `unresolved` and `package_edges` on (what
    /// one resolution of references appended), kept against locators.
    pub(crate) fn capture(
        facts: &FactSet,
        (edges, unresolved, package_edges): (usize, usize, usize),
    ) -> DerivedRefs {
        let derived = |r: RepoId| facts.repos[r].derived;
        let (order, sequence) = derived_sequence(facts);
        let mut ordinal = vec![u32::MAX; facts.symbols.len()];
        for (n, s) in order.iter().enumerate() {
            ordinal[s.0] = n as u32;
        }
        let mut c = Capture {
            facts,
            refs: DerivedRefs::default(),
            repos: HashMap::default(),
            files: HashMap::default(),
            symbols: HashMap::default(),
            packages: HashMap::default(),
            sym_rank: symbol_ranks(facts, derived),
            pkg_rank: package_ranks(facts, derived),
            ordinal,
        };
        c.refs.sequence = sequence;
        for e in &facts.edges[edges..] {
            let e = Edge {
                source: c.symbol(e.source),
                target: c.symbol(e.target),
                file: e.file.map(|f| c.file(f)),
                ..*e
            };
            c.refs.edges.push(e);
        }
        for u in &facts.unresolved[unresolved..] {
            let u = Unresolved {
                repo: c.repo(u.repo),
                file: u.file.map(|f| c.file(f)),
                source: u.source.map(|s| c.symbol(s)),
                ..u.clone()
            };
            c.refs.unresolved.push(u);
        }
        for e in &facts.package_edges[package_edges..] {
            let e = PackageEdge {
                source: c.package(e.source),
                target: c.package(e.target),
                ..*e
            };
            c.refs.package_edges.push(e);
        }
        c.refs
    }

    /// The unit's facts with the ids of `facts`, or why one of its locators is not there.
    /// Consumes the unit: its records are moved, not copied.
    pub(crate) fn place(self, facts: &FactSet) -> Result<Placed, String> {
        let derived = |r: RepoId| facts.repos[r].derived;
        let repos: Vec<RepoId> = self
            .repos
            .iter()
            .map(|name| {
                facts
                    .repos
                    .iter()
                    .position(|r| r.derived && &r.name == name)
                    .map(RepoId)
                    .ok_or_else(|| format!("no derived repository {name}"))
            })
            .collect::<Result<_, _>>()?;
        let mut file_of: HashMap<(RepoId, &str), FileId> = HashMap::default();
        for (i, f) in facts.files.iter().enumerate() {
            if derived(f.repo) {
                file_of.insert((f.repo, f.path.as_str()), FileId(i));
            }
        }
        let files: Vec<FileId> = self
            .files
            .iter()
            .map(|(r, path)| {
                file_of
                    .get(&(repos[*r as usize], path.as_str()))
                    .copied()
                    .ok_or_else(|| format!("no file {path}"))
            })
            .collect::<Result<_, _>>()?;
        let symbols = match self.by_position(facts) {
            Some(symbols) => {
                // Both ways give the same ids; the tests' builds check it on every placing.
                debug_assert_eq!(Ok(&symbols), self.by_locator(facts, &files).as_ref());
                symbols
            }
            None => self.by_locator(facts, &files)?,
        };
        let pranks = package_ranks(facts, derived);
        let mut pkg_of: HashMap<(RepoId, &str, &str, u32), PackageId> = HashMap::default();
        for (&p, &rank) in &pranks {
            let pkg = &facts.packages[p];
            pkg_of.insert((pkg.repo, pkg.path.as_str(), pkg.name.as_str(), rank), p);
        }
        let packages: Vec<PackageId> = self
            .packages
            .iter()
            .map(|l| {
                pkg_of
                    .get(&(
                        repos[l.repo as usize],
                        l.path.as_str(),
                        l.name.as_str(),
                        l.rank,
                    ))
                    .copied()
                    .ok_or_else(|| format!("no package {}", l.path))
            })
            .collect::<Result<_, _>>()?;
        let edges = self
            .edges
            .iter()
            .map(|e| Edge {
                source: symbols[e.source.0],
                target: symbols[e.target.0],
                file: e.file.map(|f| files[f.0]),
                ..*e
            })
            .collect();
        let unresolved = self
            .unresolved
            .into_iter()
            .map(|u| Unresolved {
                repo: repos[u.repo.0],
                file: u.file.map(|f| files[f.0]),
                source: u.source.map(|s| symbols[s.0]),
                ..u
            })
            .collect();
        let package_edges = self
            .package_edges
            .iter()
            .map(|e| PackageEdge {
                source: packages[e.source.0],
                target: packages[e.target.0],
                ..*e
            })
            .collect();
        Ok(Placed {
            edges,
            unresolved,
            package_edges,
        })
    }
}

impl DerivedRefs {
    /// The unit's symbols as this compile's ids, by their position among the derived symbols,
    /// when those are the ones the unit was captured from (same locators, same order).
    fn by_position(&self, facts: &FactSet) -> Option<Vec<SymbolId>> {
        let (order, sequence) = derived_sequence(facts);
        if sequence != self.sequence || self.ordinals.len() != self.symbols.len() {
            return None;
        }
        self.ordinals
            .iter()
            .map(|&o| order.get(o as usize).copied())
            .collect()
    }

    /// The unit's symbols as this compile's ids, each found by its locator.
    fn by_locator(&self, facts: &FactSet, files: &[FileId]) -> Result<Vec<SymbolId>, String> {
        let ranks = symbol_ranks(facts, |r| facts.repos[r].derived);
        let mut sym_of: HashMap<(FileId, u32, u32, SymbolKind, &str, u32), SymbolId> =
            HashMap::default();
        for (&s, &rank) in &ranks {
            let sym = &facts.symbols[s];
            sym_of.insert(
                (
                    sym.file,
                    sym.span.start_byte,
                    sym.span.end_byte,
                    sym.kind,
                    sym.qualified_name.as_str(),
                    rank,
                ),
                s,
            );
        }
        self.symbols
            .iter()
            .map(|l| {
                sym_of
                    .get(&(
                        files[l.file as usize],
                        l.start_byte,
                        l.end_byte,
                        l.kind,
                        l.qualified_name.as_str(),
                        l.rank,
                    ))
                    .copied()
                    .ok_or_else(|| format!("no symbol {}", l.qualified_name))
            })
            .collect()
    }
}

/// A unit's facts with the ids of the current compile.
pub(crate) struct Placed {
    edges: Vec<Edge>,
    unresolved: Vec<Unresolved>,
    package_edges: Vec<PackageEdge>,
}

impl Placed {
    pub(crate) fn apply(self, facts: &mut FactSet) {
        facts.edges.extend(self.edges);
        facts.unresolved.extend(self.unresolved);
        facts.package_edges.extend(self.package_edges);
    }
}

/// The digest a unit is kept under: the compiler build, each derived file's repository, path,
/// status and extraction, the derived crates, and why the standard library might be missing.
pub(crate) fn unit_digest(
    facts: &FactSet,
    files: &[(RepoId, FileId, &str, &RsFile)],
    crates: &[CrateDef],
    sysroot_missing: &str,
) -> u128 {
    let mut h = kivgraph_format::feed::Feed::new();
    h.field(crate::disk_cache::frontend_digest().as_bytes());
    h.field(b"rust derived references");
    for (repo, file, path, rs) in files {
        h.field(facts.repos[*repo].name.as_bytes());
        h.field(path.as_bytes());
        h.field(facts.files[*file].status.as_str().as_bytes());
        h.field(&postcard::to_allocvec(rs).unwrap_or_default());
    }
    for c in crates {
        h.field(facts.repos[c.repo].name.as_bytes());
        let def = CrateDef {
            repo: RepoId(0),
            ..c.clone()
        };
        h.field(format!("{def:?}").as_bytes());
    }
    h.field(sysroot_missing.as_bytes());
    h.digest128()
}
