//! Phase 2 of Rust: crates and the module tree, symbols, `use` resolution (globs and re-export
//! chains, cycles cut), impls, and the binding of every reference phase 1 recorded.
//!
//! [`tree`] builds the module tree, [`lookup`] and [`scope`] resolve paths (modules, `use`s and
//! globs; first segments, extern crates, the prelude), [`receivers`] types receivers from what
//! is written, [`members`] finds associated items and methods through impls, and [`emission`]
//! writes the edges and unresolved records.

mod dispatch;
mod emission;
mod lookup;
mod members;
mod receivers;
mod scope;
mod tree;

use crate::hash::{HashMap, HashSet};
use std::cell::{Cell, RefCell};

use kivgraph_format::{EdgeKind, Language, Provenance, SymbolKind};

use super::Depth;
use super::extract::{Item, Ns, RsFile, SelfCtx, Ty};
use super::project::CrateDef;
use crate::emit::Site;
use crate::facts::{FactSet, FileId, PackageId, RepoId, SymbolId};

/// Lookups and type evaluations nested deeper than this are cut.
const MAX_DEPTH: usize = 48;
/// Module lookups one reference may make; beyond, the lookup is cut.
const MAX_STEPS: usize = 100_000;
const STD_CRATES: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

pub struct Parsed {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub rs: RsFile,
}

type ModId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Def {
    Sym(SymbolId),
    Mod(ModId),
    /// Exists, has no symbol (a local item, a module whose file is missing).
    Local,
}

#[derive(Default)]
struct Module {
    krate: usize,
    parent: Option<ModId>,
    block: bool,
    inst: usize,
    package: PackageId,
    symbol: SymbolId,
    exported: bool,
    ns: [HashMap<String, Vec<Def>>; 3],
    uses: HashMap<String, Vec<usize>>,
    globs: Vec<usize>,
}

struct FileInstance {
    pf: usize,
    mods: Vec<Option<ModId>>,
    syms: Vec<Option<SymbolId>>,
    /// Impl index of the file → impl info.
    impls: Vec<Option<usize>>,
}

struct Crate {
    def: CrateDef,
    root: Option<ModId>,
}

#[derive(Clone, Copy)]
struct Place {
    module: ModId,
    inst: usize,
    selfc: Option<SelfCtx>,
}

struct SymInfo {
    inst: usize,
    item: usize,
    module: ModId,
    children: HashMap<String, Vec<SymbolId>>,
}

struct ImplInfo {
    self_target: Option<SymbolId>,
    trait_target: Option<SymbolId>,
    members: HashMap<String, Vec<SymbolId>>,
}

#[derive(Clone, Debug)]
struct Missing {
    reason: &'static str,
    package: String,
    symbol: String,
}

enum PathRes {
    Found(Vec<Def>, Provenance),
    Missing(Missing),
    Ignore,
}

/// A resolved receiver type.
#[derive(Clone, Debug, PartialEq)]
enum Rt {
    Sym(SymbolId),
    Traits(Vec<SymbolId>),
    Unknown,
}

type MemoKey = (ModId, String, Ns, bool);
/// An extern crate name: its root module, why it is missing, or no crate at all.
type ExternCrate = Option<Result<ModId, Missing>>;
/// What a module lookup found: the definitions, whether through a `use`, and why not.
type Lookup = (Vec<Def>, bool, Option<Missing>);
/// (crate, methods or fields, name) → the members of that name.
type NameIndex = HashMap<(usize, bool, String), Vec<SymbolId>>;
/// A structural edge before it is written: source, target, kind, file, position.
type Structural = (SymbolId, SymbolId, EdgeKind, FileId, (u32, u32));

pub struct Resolver<'f> {
    facts: &'f mut FactSet,
    files: Vec<Parsed>,
    crates: Vec<Crate>,
    mods: Vec<Module>,
    insts: Vec<FileInstance>,
    info: HashMap<SymbolId, SymInfo>,
    impls: Vec<ImplInfo>,
    inherent: HashMap<SymbolId, Vec<usize>>,
    trait_impls: HashMap<SymbolId, Vec<usize>>,
    /// For a type with more than [`MANY_IMPLS`] inherent (`[0]`) or trait (`[1]`) impls, once
    /// they are all known: the items of those impls by name, in impl order ([`Self::assoc_by`]
    /// would otherwise look through every impl block of the type for each name asked).
    many_impls: [HashMap<SymbolId, HashMap<String, Vec<SymbolId>>>; 2],
    supers: HashMap<SymbolId, Vec<SymbolId>>,
    macro_index: HashMap<(usize, String), Vec<SymbolId>>,
    memo: RefCell<HashMap<MemoKey, Lookup>>,
    memo_tmp: RefCell<HashMap<MemoKey, Lookup>>,
    /// The reference being bound is an argument of a macro whose expansion is not known: its
    /// edges are candidates (SPEC 14.4).
    opaque: bool,
    packages: HashMap<(RepoId, String), PackageId>,
    steps: Cell<usize>,
    /// How deep the lookup is; past [`MAX_DEPTH`] it is cut.
    depth: Depth,
    busy: RefCell<HashSet<MemoKey>>,
    cut: Cell<bool>,
    std_roots: HashMap<String, ModId>,
    /// The standard prelude module of each edition (`rust_2021`), `v1` under `""`.
    prelude: HashMap<String, ModId>,
    sysroot_missing: String,
    name_index: RefCell<Option<NameIndex>>,
    crate_sets: RefCell<HashMap<usize, Vec<usize>>>,
    extern_memo: RefCell<HashMap<(usize, String), ExternCrate>>,
    /// The references of derived repositories' files are placed from a unit, not resolved.
    skip_derived: bool,
}

/// Where a reference of `file` in `repo` occurs.
fn site(repo: RepoId, file: FileId, (line, column): (u32, u32)) -> Site {
    Site {
        repo,
        file,
        line,
        column,
        language: Language::Rust,
    }
}

fn ns_idx(ns: Ns) -> usize {
    match ns {
        Ns::Type => 0,
        Ns::Value => 1,
        Ns::Macro => 2,
    }
}

fn is_fn(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Function
            | SymbolKind::Method
            | SymbolKind::StaticMethod
            | SymbolKind::TraitMethod
    )
}

impl<'f> Resolver<'f> {
    pub fn new(
        facts: &'f mut FactSet,
        files: Vec<Parsed>,
        crates: Vec<CrateDef>,
        sysroot_missing: &str,
    ) -> Self {
        Resolver {
            facts,
            files,
            crates: crates
                .into_iter()
                .map(|def| Crate { def, root: None })
                .collect(),
            mods: Vec::new(),
            insts: Vec::new(),
            info: HashMap::default(),
            impls: Vec::new(),
            inherent: HashMap::default(),
            trait_impls: HashMap::default(),
            many_impls: Default::default(),
            supers: HashMap::default(),
            macro_index: HashMap::default(),
            memo: RefCell::new(HashMap::default()),
            memo_tmp: RefCell::new(HashMap::default()),
            opaque: false,
            packages: HashMap::default(),
            steps: Cell::new(0),
            depth: Depth::default(),
            busy: RefCell::new(HashSet::default()),
            cut: Cell::new(false),
            std_roots: HashMap::default(),
            prelude: HashMap::default(),
            sysroot_missing: sysroot_missing.to_string(),
            name_index: RefCell::new(None),
            crate_sets: RefCell::new(HashMap::default()),
            extern_memo: RefCell::new(HashMap::default()),
            skip_derived: false,
        }
    }

    /// The extracted item symbol `s` was made from.
    fn item_of(&self, s: SymbolId) -> &Item {
        let inf = &self.info[&s];
        &self.files[self.insts[inf.inst].pf].rs.items[inf.item]
    }

    /// The type written on the declaration of `s` (a fn's return type, a field's, a const's or
    /// a static's, an alias's target), and the place it is written in.
    fn written_type(&self, s: SymbolId) -> Option<(Ty, Place)> {
        Some((self.item_of(s).ty.clone()?, self.place_of(s)))
    }

    /// Runs `f` one level deeper.
    fn deeper<R>(&self, f: impl FnOnce() -> R) -> R {
        self.depth.nested(f)
    }

    /// Resolves everything. With `reuse`, the references of the derived repositories are not
    /// resolved here: the unit's facts are placed instead, or, when it does not fit this
    /// compile's symbols, they are resolved here after all and the reason is returned.
    pub fn run<F>(mut self, reuse: Option<F>) -> Option<String>
    where
        F: FnOnce(&Resolver<'_>) -> super::unit::DerivedRefs,
    {
        self.build_tree();
        self.find_std();
        self.resolve_impls();
        self.emit_structural();
        let first_edge = self.facts.edges.len();
        let why = self.references(reuse);
        self.dispatch_candidates(first_edge);
        why
    }

    /// Every reference: emitted, or (the standard library's) placed from what `reuse` gives;
    /// what kept it from being used.
    fn references<F>(&mut self, reuse: Option<F>) -> Option<String>
    where
        F: FnOnce(&Resolver<'_>) -> super::unit::DerivedRefs,
    {
        match reuse.map(|get| get(self).place(self.facts)) {
            Some(Ok(placed)) => {
                self.skip_derived = true;
                self.emit_refs();
                placed.apply(self.facts);
                None
            }
            Some(Err(why)) => {
                self.emit_refs();
                Some(why)
            }
            None => {
                self.emit_refs();
                None
            }
        }
    }

    /// Copies of the derived repositories' files, as they were given.
    pub fn derived_files(&self) -> Vec<Parsed> {
        self.files
            .iter()
            .filter(|p| self.facts.repos[p.repo].derived)
            .map(|p| Parsed {
                repo: p.repo,
                file: p.file,
                path: p.path.clone(),
                rs: p.rs.clone(),
            })
            .collect()
    }

    /// Resolves everything and returns where the references' facts begin: the lengths of the
    /// edges, unresolved records and package edges before the references were resolved.
    pub fn run_counting(mut self) -> (usize, usize, usize) {
        self.build_tree();
        self.find_std();
        self.resolve_impls();
        self.emit_structural();
        let at = (
            self.facts.edges.len(),
            self.facts.unresolved.len(),
            self.facts.package_edges.len(),
        );
        self.emit_refs();
        at
    }
}

fn item_ns(kind: SymbolKind, value_too: bool) -> Vec<Ns> {
    match kind {
        SymbolKind::Function | SymbolKind::Const | SymbolKind::Static => vec![Ns::Value],
        SymbolKind::Struct if value_too => vec![Ns::Type, Ns::Value],
        SymbolKind::Struct
        | SymbolKind::Union
        | SymbolKind::Enum
        | SymbolKind::Trait
        | SymbolKind::TypeAlias => vec![Ns::Type],
        SymbolKind::Macro => vec![Ns::Macro],
        _ => Vec::new(),
    }
}
