//! Emission: the confidence policy of every front end, written once.
//!
//! A front end decides what a reference binds to; this module decides how that decision is
//! recorded (the confidences and provenances of SPEC sections 3.4 and 3.5):
//!
//! - a reference bound to exactly one declaration by the language's own scope, import and
//!   written-type rules is `EXACT_DECLARATION_MAPPED` inside a repository and
//!   `EXACT_PACKAGE_MAPPED` across repositories ([`exact`]);
//! - a member whose receiver's type is unknown becomes name-only `CANDIDATE` edges when 1 to
//!   [`MAX_CANDIDATES`] visible declarations share its name, and an unresolved
//!   `RECEIVER_TYPE_UNKNOWN` record otherwise ([`name_only`]);
//! - a reference that cannot be followed is an unresolved record with one of the [`reason`]
//!   codes, never dropped ([`unresolved`]).

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance};

use crate::facts::{
    Edge, FactSet, FileId, PackageEdge, PackageId, RepoId, ScopeReach, SymbolId, Unresolved,
};

/// At most this many same-named declarations become `CANDIDATE` edges for one reference whose
/// receiver's type is unknown; beyond it the reference is recorded as unresolved instead of
/// fanning out.
pub(crate) const MAX_CANDIDATES: usize = 8;

/// The reasons of unresolved records, every language's (an open vocabulary; SPEC section 6.8
/// and the sections "Unresolved reasons" of each language say when each is emitted).
pub(crate) mod reason {
    /// A member was selected on a value whose type is not written, and 0 or more than
    /// [`super::MAX_CANDIDATES`] visible declarations share its name.
    pub(crate) const RECEIVER_TYPE_UNKNOWN: &str = "RECEIVER_TYPE_UNKNOWN";
    /// A name no scope declares.
    pub(crate) const NAME_NOT_RESOLVED: &str = "NAME_NOT_RESOLVED";
    /// A name an import or path leads to, which the module reached does not declare.
    pub(crate) const DECLARATION_NOT_FOUND: &str = "DECLARATION_NOT_FOUND";
    /// A standard library that is not part of the graph (Go, Python).
    pub(crate) const STDLIB_NOT_INDEXED: &str = "STDLIB_NOT_INDEXED";
    /// Go: a required module that no registered repository provides.
    pub(crate) const MODULE_PROVIDER_NOT_FOUND: &str = "MODULE_PROVIDER_NOT_FOUND";
    /// Every language: a name written in a part of a file the parser could not read (a syntax
    /// error), or anywhere in a file whose extraction failed: it may be a use of any
    /// declaration of that name.
    pub(crate) const NAME_IN_UNREAD_CODE: &str = "NAME_IN_UNREAD_CODE";
    /// Go: a directory whose every file build constraints exclude.
    pub(crate) const PACKAGE_NOT_BUILDABLE: &str = "PACKAGE_NOT_BUILDABLE";
    /// Go: uses of cgo's pseudo-package `C`, whose declarations live in C code.
    pub(crate) const CGO_NOT_INDEXED: &str = "CGO_NOT_INDEXED";
    /// TypeScript, Dart: a package no registered repository provides.
    pub(crate) const PACKAGE_PROVIDER_NOT_FOUND: &str = "PACKAGE_PROVIDER_NOT_FOUND";
    /// TypeScript: a package name that two registered repositories provide.
    pub(crate) const AMBIGUOUS_PACKAGE_PROVIDER: &str = "AMBIGUOUS_PACKAGE_PROVIDER";
    /// TypeScript: a module specifier that resolves to no file.
    pub(crate) const MODULE_NOT_RESOLVED: &str = "MODULE_NOT_RESOLVED";
    /// TypeScript: an imported name the module reached does not export.
    pub(crate) const EXPORT_NOT_FOUND: &str = "EXPORT_NOT_FOUND";
    /// Python: an import that reaches no module.
    pub(crate) const IMPORT_NOT_RESOLVED: &str = "IMPORT_NOT_RESOLVED";
    /// Rust: a crate that no registered repository provides.
    pub(crate) const CRATE_PROVIDER_NOT_FOUND: &str = "CRATE_PROVIDER_NOT_FOUND";
    /// Rust: the standard library's sources are not in the graph.
    pub(crate) const SYSROOT_SOURCE_MISSING: &str = "SYSROOT_SOURCE_MISSING";
    /// Rust: `mod x;` with neither `x.rs` nor `x/mod.rs`.
    pub(crate) const MODULE_FILE_NOT_FOUND: &str = "MODULE_FILE_NOT_FOUND";
    /// Dart: the SDK's libraries (`dart:`) are not in the graph.
    pub(crate) const DART_SDK_NOT_INDEXED: &str = "DART_SDK_NOT_INDEXED";
    /// Dart: a URI that names no library.
    pub(crate) const URI_NOT_RESOLVED: &str = "URI_NOT_RESOLVED";
}

/// The exact confidence of a binding: by declaration inside a repository, by package manifest
/// across repositories.
pub(crate) fn exact(same_repository: bool) -> Confidence {
    if same_repository {
        Confidence::ExactDeclarationMapped
    } else {
        Confidence::ExactPackageMapped
    }
}

/// Where a reference occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    pub repo: RepoId,
    pub file: FileId,
    pub line: u32,
    pub column: u32,
    pub language: Language,
}

/// Records a symbol edge at `site`.
pub(crate) fn edge(
    facts: &mut FactSet,
    (source, target): (SymbolId, SymbolId),
    kind: EdgeKind,
    (confidence, provenance): (Confidence, Provenance),
    site: Site,
) {
    facts.edges.push(Edge {
        source,
        target,
        kind,
        confidence,
        provenance,
        file: Some(site.file),
        line: site.line,
        column: site.column,
    });
}

/// Alternatives of the bindings a front end made (SPEC 12.4, 14.4): for every use edge from
/// `first` on (a reference kind, not structural), each symbol `others` names for it gets a
/// `CANDIDATE` edge at the same site, of the same kind and provenance; never one to the edge's
/// own source, nor one already there.
pub(crate) fn alternative_candidates<'m>(
    facts: &mut FactSet,
    first: usize,
    others: impl Fn(&Edge) -> &'m [SymbolId],
) {
    let key = |e: &Edge| (e.source, e.target, e.kind, e.file, e.line, e.column);
    // The candidates in the order they are made, then the edges already there that equal one:
    // few edges have alternatives, so only the candidates' keys are kept in a set, not every
    // edge's (the standard library's placed references alone are hundreds of thousands).
    let mut made: Vec<Edge> = Vec::new();
    for e in &facts.edges[first..] {
        if !e.kind.is_reference() || e.confidence == Confidence::StructuralCertain {
            continue;
        }
        for &other in others(e) {
            if other != e.source {
                made.push(Edge {
                    target: other,
                    confidence: Confidence::Candidate,
                    ..*e
                });
            }
        }
    }
    if made.is_empty() {
        return;
    }
    let mut have: crate::hash::HashSet<_> = made.iter().map(key).collect();
    let there: crate::hash::HashSet<_> = facts.edges[first..]
        .iter()
        .map(key)
        .filter(|k| have.contains(k))
        .collect();
    have.clear();
    let added: Vec<Edge> = made
        .into_iter()
        .filter(|t| !there.contains(&key(t)) && have.insert(key(t)))
        .collect();
    facts.edges.extend(added);
}

/// Records that package `source` depends on package `target` (an import, a `use` of another
/// crate, a library directive): `PACKAGE_DEPENDS_ON`, exact by declaration when
/// `same_repository` (or, for Rust, into the derived standard library) and package-mapped
/// otherwise.
pub(crate) fn package_edge(
    facts: &mut FactSet,
    (source, target): (PackageId, PackageId),
    same_repository: bool,
    provenance: Provenance,
) {
    facts.package_edges.push(PackageEdge {
        source,
        target,
        kind: EdgeKind::PackageDependsOn,
        confidence: exact(same_repository),
        provenance,
    });
}

/// What a reference asked for and could not get: the package (module, crate, library) it
/// names, the symbol within it, and a sentence saying why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Request {
    pub package: String,
    pub symbol: Option<String>,
    pub detail: Option<String>,
}

/// Records an unresolved reference at `site`, owned by `source` (the enclosing declaration).
pub(crate) fn unresolved(
    facts: &mut FactSet,
    site: Site,
    reason: &str,
    request: Request,
    source: Option<SymbolId>,
) {
    facts.unresolved.push(Unresolved {
        repo: site.repo,
        file: Some(site.file),
        line: site.line,
        column: site.column,
        language: site.language,
        reason: reason.into(),
        requested_package: request.package,
        requested_symbol: request.symbol,
        detail: request.detail,
        source,
        reach: None,
    });
}

/// Records a scope that could not be read as a whole (a package that build constraints
/// exclude): an unresolved record of repository `repo` with no file, line or source, with what
/// its files import and declare when they could be read for that.
pub(crate) fn unresolved_scope(
    facts: &mut FactSet,
    (repo, language): (RepoId, Language),
    reason: &str,
    request: Request,
    reach: Option<ScopeReach>,
) {
    facts.unresolved.push(Unresolved {
        repo,
        file: None,
        line: 0,
        column: 0,
        language,
        reason: reason.into(),
        requested_package: request.package,
        requested_symbol: request.symbol,
        detail: request.detail,
        source: None,
        reach,
    });
}

/// How a language words the detail of a `RECEIVER_TYPE_UNKNOWN` record: "`unwritten` and
/// `none`" when no visible declaration has the name, "`unwritten` and N `shared`" when too
/// many do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReceiverWords {
    pub unwritten: &'static str,
    pub none: &'static str,
    pub shared: &'static str,
}

impl ReceiverWords {
    /// The detail for `n` same-named declarations (0, or more than [`MAX_CANDIDATES`]).
    pub(crate) fn detail(&self, n: usize) -> String {
        if n == 0 {
            format!("{} and {}", self.unwritten, self.none)
        } else {
            format!("{} and {n} {}", self.unwritten, self.shared)
        }
    }
}

/// The name-only fallback for a member whose receiver's type is unknown.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NameOnly<T> {
    /// Emit one `CANDIDATE` edge, with the language's `*_NAME_ONLY` provenance, to each.
    Candidates(Vec<T>),
    /// Record `RECEIVER_TYPE_UNKNOWN`: `shared` declarations have the name (0, or more than
    /// [`MAX_CANDIDATES`]); a language that words a detail does so with [`ReceiverWords`].
    Unresolved { shared: usize },
}

/// Applies the bound: 1 to [`MAX_CANDIDATES`] same-named declarations are candidates, none or
/// more are an unresolved record. `cands` is taken as given (a language that de-duplicates does
/// so before).
pub(crate) fn name_only<T>(cands: Vec<T>) -> NameOnly<T> {
    if !cands.is_empty() && cands.len() <= MAX_CANDIDATES {
        NameOnly::Candidates(cands)
    } else {
        NameOnly::Unresolved {
            shared: cands.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS: ReceiverWords = ReceiverWords {
        unwritten: "the receiver's type is not written",
        none: "nothing declares it",
        shared: "members share the name",
    };

    #[test]
    fn candidates_are_bounded() {
        assert_eq!(
            name_only(Vec::<u32>::new()),
            NameOnly::Unresolved { shared: 0 }
        );
        assert_eq!(name_only(vec![7]), NameOnly::Candidates(vec![7]));
        let eight: Vec<u32> = (0..MAX_CANDIDATES as u32).collect();
        assert_eq!(name_only(eight.clone()), NameOnly::Candidates(eight));
        let nine: Vec<u32> = (0..=MAX_CANDIDATES as u32).collect();
        assert_eq!(name_only(nine), NameOnly::Unresolved { shared: 9 });
    }

    #[test]
    fn a_detail_counts_what_shares_the_name() {
        assert_eq!(
            WORDS.detail(0),
            "the receiver's type is not written and nothing declares it"
        );
        assert_eq!(
            WORDS.detail(9),
            "the receiver's type is not written and 9 members share the name"
        );
    }

    #[test]
    fn exact_depends_on_the_repository_only() {
        assert_eq!(exact(true), Confidence::ExactDeclarationMapped);
        assert_eq!(exact(false), Confidence::ExactPackageMapped);
    }

    #[test]
    fn records_carry_the_site() {
        let mut facts = FactSet::default();
        let site = Site {
            repo: RepoId(1),
            file: FileId(2),
            line: 3,
            column: 4,
            language: Language::Go,
        };
        edge(
            &mut facts,
            (SymbolId(5), SymbolId(6)),
            EdgeKind::CallsDirect,
            (Confidence::Candidate, Provenance::GoNameOnly),
            site,
        );
        unresolved(
            &mut facts,
            site,
            reason::NAME_NOT_RESOLVED,
            Request {
                package: "p".into(),
                symbol: Some("x".into()),
                detail: None,
            },
            Some(SymbolId(5)),
        );
        package_edge(
            &mut facts,
            (PackageId(7), PackageId(8)),
            false,
            Provenance::GoImport,
        );
        let p = facts.package_edges[0];
        assert_eq!(
            (p.source, p.target, p.kind),
            (PackageId(7), PackageId(8), EdgeKind::PackageDependsOn)
        );
        assert_eq!(p.confidence, Confidence::ExactPackageMapped);
        let e = facts.edges[0];
        assert_eq!(
            (e.source, e.target, e.file, e.line, e.column),
            (SymbolId(5), SymbolId(6), Some(FileId(2)), 3, 4)
        );
        let u = &facts.unresolved[0];
        assert_eq!(
            (u.repo, u.file, u.line, u.column),
            (RepoId(1), Some(FileId(2)), 3, 4)
        );
        assert_eq!(
            (u.reason.as_str(), u.source),
            ("NAME_NOT_RESOLVED", Some(SymbolId(5)))
        );
    }
}
