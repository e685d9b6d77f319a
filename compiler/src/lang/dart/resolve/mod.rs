//! Phase 2 of Dart: libraries and their parts, URIs, export and import namespaces, members
//! through supertypes and extensions, and the binding of every reference phase 1 left open.
//!
//! By concern: [`libraries`] (URIs, libraries and parts, packages and symbols), [`namespaces`]
//! (exports and imports with `show`/`hide`, prefixes), [`scope`] (names and written types),
//! [`members`] (supertypes, inherited and extension members), [`receivers`] (receiver typing),
//! [`references`] (what each reference binds to) and [`emission`] (edges and unresolved records
//! through `crate::emit`, structural edges).

use crate::hash::{HashMap, HashSet};
use std::collections::{BTreeMap, BTreeSet};

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::extract::syntax::{
    ClassContext, DartFile, Decl, Directive, DirectiveKind, Expr, Ref, SuperKind, Target, TypeRef,
    Use,
};
use super::project::{Packages, join};
use crate::emit::reason::{
    DART_SDK_NOT_INDEXED, NAME_NOT_RESOLVED, PACKAGE_PROVIDER_NOT_FOUND, RECEIVER_TYPE_UNKNOWN,
    URI_NOT_RESOLVED,
};
use crate::emit::{self, NameOnly, Request, Site};
use crate::facts::{FactSet, FileId, Package, PackageId, RepoId, SymbolId};
use crate::lang::Home;
use crate::lang::shared::resolve::{decl_symbol, site_in};

mod emission;
mod libraries;
mod members;
mod namespaces;
mod receivers;
mod references;
mod scope;

const CORE: &str = include_str!("../core.txt");

fn is_core(name: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| CORE.split_whitespace().collect())
        .contains(name)
}

/// Members every object has; missing from a declaration, they are not a failure.
const OBJECT_MEMBERS: &[&str] = &[
    "toString",
    "hashCode",
    "runtimeType",
    "noSuchMethod",
    "operator==",
];
/// Members every enum value has, and `values` on the enum.
const ENUM_MEMBERS: &[&str] = &["index", "name", "values"];

const MAX_DEPTH: usize = 48;

/// A declaration: (unit, declaration index).
type DeclRef = (usize, usize);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bind {
    Decl(DeclRef),
    /// From a `dart:` library, or from a library outside the graph: nothing to bind.
    Opaque,
}

type Namespace = BTreeMap<String, BTreeSet<Bind>>;

/// A file of phase 2: where it is, what phase 1 read, and what phase 2 gives it (its library,
/// its symbols, its directives' targets).
pub struct Unit {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub parsed: DartFile,
    lib: usize,
    syms: Vec<SymbolId>,
    module_sym: SymbolId,
    /// Resolution of each directive's URI.
    targets: Vec<UriTarget>,
}

impl Unit {
    pub fn new(repo: RepoId, file: FileId, path: String, parsed: DartFile) -> Unit {
        Unit {
            repo,
            file,
            path,
            parsed,
            lib: 0,
            syms: Vec::new(),
            module_sym: SymbolId(0),
            targets: Vec::new(),
        }
    }
}

/// What a directive's URI names.
#[derive(Clone, Debug)]
enum UriTarget {
    /// A compiled file.
    Unit(usize),
    /// A `dart:` library.
    Sdk(String),
    /// Nothing compiled: the unresolved reason and the requested package.
    Missing(&'static str, String),
}

/// A library: a file and its parts, one graph package.
#[derive(Default)]
struct Library {
    /// The defining unit first, then its parts.
    units: Vec<usize>,
    name: String,
    package: PackageId,
    /// Top-level declarations of all units.
    scope: HashMap<String, Vec<DeclRef>>,
    /// What the library exports, and whether an export may bring names beyond these.
    exported: Namespace,
    export_open: bool,
    /// What its unprefixed imports bind, and whether they may bind more.
    unprefixed: Namespace,
    unprefixed_open: bool,
    /// Each import prefix's namespace, and whether it may bind more.
    prefixes: HashMap<String, (Namespace, bool)>,
    /// The libraries its imports bring declarations from.
    imported: Vec<usize>,
    /// The extensions in scope: its own and the imported ones.
    extensions: Vec<DeclRef>,
    /// Member name → instance members of the class-like declarations of this library.
    members: HashMap<String, Vec<DeclRef>>,
}

/// What a receiver's type is known to be.
#[derive(Clone, Debug)]
enum Receiver {
    Unknown,
    /// Known, and nothing of it is compiled (a function object, a library type's member).
    Nothing,
    /// A `dart:core` type (`String`, `List<C>` with its element).
    Core(String, Option<Box<Receiver>>),
    /// An instance of a class-like declaration.
    Inst(DeclRef),
    /// The class-like declaration itself (`C.m`).
    Static(DeclRef),
    /// `super` in a class-like declaration.
    SuperOf(DeclRef),
    /// A function or method: calling it gives this.
    Returns(Box<Receiver>),
    /// An import prefix of a library.
    Prefix(usize, String),
}

/// What a name binds to.
enum NameHit {
    Decls(Vec<DeclRef>, Provenance),
    /// Nothing to bind, nothing to record.
    Nothing,
    Prefix(String),
    Missing,
}

/// What a member of a receiver binds to: declarations (exact or not).
enum Hit {
    Decls(Vec<DeclRef>, bool, Provenance),
    Nothing,
    /// A written, compiled type lacks the member.
    Lacks,
    Unknown,
}

/// Phase 2 over every Dart file of a compile.
pub struct Resolver<'f> {
    facts: &'f mut FactSet,
    units: Vec<Unit>,
    libs: Vec<Library>,
    packages: Packages,
    by_path: HashMap<(RepoId, String), usize>,
}

fn is_classlike(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Class | SymbolKind::Enum | SymbolKind::Type | SymbolKind::Implementation
    )
}

impl<'f> Resolver<'f> {
    pub fn new(facts: &'f mut FactSet, units: Vec<Unit>, packages: Packages) -> Self {
        let by_path = units
            .iter()
            .enumerate()
            .map(|(i, u)| ((u.repo, u.path.clone()), i))
            .collect();
        Resolver {
            facts,
            units,
            libs: Vec::new(),
            packages,
            by_path,
        }
    }

    pub fn run(mut self) {
        for u in 0..self.units.len() {
            let t: Vec<UriTarget> = (0..self.units[u].parsed.directives.len())
                .map(|d| self.resolve_uri(u, &self.units[u].parsed.directives[d].uri.clone()))
                .collect();
            self.units[u].targets = t;
        }
        self.libraries();
        self.symbols();
        self.namespaces();
        for u in 0..self.units.len() {
            self.directive_facts(u);
            self.references(u);
            self.structural(u);
        }
    }

    pub(super) fn decl(&self, d: DeclRef) -> &Decl {
        &self.units[d.0].parsed.decls[d.1]
    }
}
