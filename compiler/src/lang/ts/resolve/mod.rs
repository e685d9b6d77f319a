//! Phase 2 of TypeScript/JavaScript: symbols and packages, module specifiers, exports through
//! re-export chains, and the binding of every reference phase 1 left open.
//!
//! The resolver is split by concern: [`exports`] (the module graph: exports, re-export chains,
//! imports), [`names`] (names and their meanings), [`receivers`] (receiver typing), [`members`]
//! (member lookup through merging, `extends` and written unions), [`references`] (the binding
//! of each reference) and [`emission`] (symbols, specifier facts, structural edges, and every
//! edge and unresolved record, through [`crate::emit`]).

mod emission;
mod exports;
mod members;
mod names;
mod narrow;
#[cfg(test)]
pub(in crate::lang::ts) use narrow::{COUNTED_KEY, DISCRIMINANT_SEARCHES};
mod receivers;
mod references;

use crate::hash::{HashMap, HashSet};
use std::collections::BTreeSet;
use std::rc::Rc;

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::extract::{
    Decl, Expr, ImportKind, NameRes, Ref, RefTarget, TsFile, TypeRef, Use, is_global,
};
use super::project::{Project, Resolved};
use crate::emit::{self, NameOnly, ReceiverWords, Request, Site, reason};
use crate::facts::{FactSet, FileId, Package, PackageId, RepoId, SymbolId};
use crate::lang::Home;
use crate::lang::shared::resolve::{
    CutMemo, DepthBound, Lookup, bind_in_runs, decl_symbol, modules_per_task, name_only_candidates,
    other_modules, site_in,
};

/// How the detail of a `RECEIVER_TYPE_UNKNOWN` record is worded.
const RECEIVER_WORDS: ReceiverWords = ReceiverWords {
    unwritten: "the receiver's type is not written",
    none: "no visible type declares the member",
    shared: "visible members share the name",
};

/// Where a reference occurs: its module, its enclosing declaration (`None`: the module
/// symbol) and its position.
#[derive(Clone, Copy, Debug)]
struct Place {
    pub module: usize,
    pub from: Option<usize>,
    pub line: u32,
    pub column: u32,
}

impl Place {
    /// Where reference `r` of module `m` occurs.
    fn of(m: usize, r: &Ref) -> Place {
        Place {
            module: m,
            from: r.from,
            line: r.line,
            column: r.column,
        }
    }
}

/// One compiled file.
pub struct Module {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub language: Language,
    pub ts: TsFile,
    syms: Vec<SymbolId>,
    module_sym: SymbolId,
    /// Resolution of each specifier of `ts.specifiers`.
    specs: Vec<Resolved>,
}

impl Module {
    pub fn new(repo: RepoId, file: FileId, path: String, language: Language, ts: TsFile) -> Module {
        Module {
            repo,
            file,
            path,
            language,
            ts,
            syms: Vec::new(),
            module_sym: SymbolId(0),
            specs: Vec::new(),
        }
    }
}

/// What a name or expression denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Decl(usize, usize),
    Module(usize),
    /// Known, and not a declaration of any compiled module.
    External,
    /// Not found (the reason is recorded where it was found missing).
    Missing,
}

/// Which of a name's meanings a use wants: TypeScript keeps values and types apart, so
/// `interface X` and `const X` can share a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Meaning {
    Value,
    Type,
    Any,
}

fn fits(kind: SymbolKind, meaning: Meaning) -> bool {
    match meaning {
        Meaning::Any => true,
        Meaning::Value => !matches!(kind, SymbolKind::Interface | SymbolKind::TypeAlias),
        Meaning::Type => !matches!(
            kind,
            SymbolKind::Function | SymbolKind::Variable | SymbolKind::Constant
        ),
    }
}

/// What members a receiver has.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Recv {
    /// The members of this class, interface, enum, namespace or type alias.
    Members(usize, usize),
    Module(usize),
    Array(Box<Recv>),
    Promise(Box<Recv>),
    /// A tuple: the members of its leading elements.
    Tuple(Vec<Recv>),
    /// A `Map<K, V>` (`ReadonlyMap`, `WeakMap`): its keys and values.
    Map(Box<Recv>, Box<Recv>),
    /// A `Set<T>` (`ReadonlySet`, `WeakSet`) or another iterable of `T` (`Iterable`,
    /// `IterableIterator`, `Generator`, …): what iterating it yields.
    Iter(Box<Recv>),
    /// A value of one of these types (a written union).
    Union(Vec<Recv>),
    /// A value of all of these types (a written intersection).
    All(Vec<Recv>),
    /// A value of an object type literal written in module `.0`: properties that are not
    /// declarations, with their written types.
    Object(usize, Vec<(String, Option<TypeRef>)>),
    External,
    Unknown,
}

/// The declarations a member name denotes on a receiver; a module's export is what it binds
/// to. A type is closed (`Lookup::NotFound`) when every base type was followed.
type Hit = crate::lang::shared::resolve::Hit<Bound>;

const MAX_DEPTH: usize = 64;

/// What every reference's binding reads and none changes: the modules with their symbols, the
/// project, and the indexes made from them once.
pub struct Shared {
    mods: Vec<Module>,
    project: Project,
    /// Top-level declarations of script files (no import or export), visible to every file of
    /// their repository, by (repository, name).
    script_globals: HashMap<(RepoId, String), Vec<(usize, usize)>>,
    /// Members of classes, interfaces, enums and type aliases by name, per module.
    member_index: Vec<HashMap<String, Vec<usize>>>,
    /// Modules each module imports.
    imported: Vec<Vec<usize>>,
    /// Merged declarations: (module, qualified name) → decls.
    merged: Vec<HashMap<String, Vec<usize>>>,
    /// The package of each module's file.
    package_of: Vec<PackageId>,
}

/// Binds the references of a run of modules: the shared tables, the facts it emits, and the
/// memos of its searches (each run keeps its own).
pub struct Resolver<'f> {
    facts: &'f mut FactSet,
    shared: &'f Shared,
    /// Each module's references, taken out of its extraction.
    refs: &'f [Vec<Ref>],
    /// Exports by (module, name, meaning).
    exports: CutMemo<(usize, String, Meaning), Bound>,
    /// Receivers of narrowed expressions already evaluated, by the hash of (module,
    /// expression): (module, expression, receiver, how much deeper than its start the
    /// evaluation checked the depth bound). See [`Resolver::eval`].
    evals: std::cell::RefCell<EvalMemo>,
    /// The discriminant values of a declaration's property already found, by (module,
    /// declaration, property): (values, how much deeper than its start the search checked the
    /// depth bound), kept and reused as [`Resolver::eval`] keeps receivers. See
    /// `Resolver::discriminant_values`.
    discriminants: std::cell::RefCell<DiscriminantMemo>,
    /// The bound of every recursive search, and how deep they checked it (kept values' reach).
    depth_bound: DepthBound,
}

impl std::ops::Deref for Resolver<'_> {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        self.shared
    }
}

type EvalMemo = HashMap<u64, Vec<(usize, Expr, Recv, usize)>>;
type DiscriminantMemo = HashMap<(usize, usize), HashMap<String, (Option<Rc<[String]>>, usize)>>;

fn is_type_container(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Class
            | SymbolKind::Interface
            | SymbolKind::Enum
            | SymbolKind::TypeAlias
            | SymbolKind::Namespace
    )
}

/// Resolves every module's references: symbols first, then the modules' references, specifier
/// facts and structural edges, runs of modules on every thread ([`bind_in_runs`]), their facts
/// appended in module order.
pub fn run(facts: &mut FactSet, mods: Vec<Module>, project: Project) {
    let mut shared = Shared::new(mods, project);
    shared.symbols(facts);
    shared.package_of = shared
        .mods
        .iter()
        .map(|m| facts.files[m.file].package.unwrap_or_default())
        .collect();
    let refs: Vec<Vec<Ref>> = shared
        .mods
        .iter_mut()
        .map(|m| std::mem::take(&mut m.ts.refs))
        .collect();
    bind_in_runs(facts, shared.mods.len(), modules_per_task(), |out, run| {
        let mut r = Resolver::new(out, &shared, &refs);
        for &m in run {
            r.specifier_facts(m);
            r.references(m);
            r.structural(m);
        }
    });
}

impl Shared {
    fn new(mut mods: Vec<Module>, project: Project) -> Shared {
        for m in &mut mods {
            let specs: Vec<Resolved> =
                m.ts.specifiers
                    .iter()
                    .map(|s| project.resolve(m.repo, &m.path, &s.spec))
                    .collect();
            m.specs = specs;
        }
        let member_index = mods
            .iter()
            .map(|m| {
                let mut idx: HashMap<String, Vec<usize>> = HashMap::default();
                for (i, d) in m.ts.decls.iter().enumerate() {
                    if let Some(p) = d.parent
                        && matches!(
                            m.ts.decls[p].kind,
                            SymbolKind::Class | SymbolKind::Interface | SymbolKind::TypeAlias
                        )
                    {
                        idx.entry(d.name.clone()).or_default().push(i);
                    }
                }
                idx
            })
            .collect();
        let imported = mods
            .iter()
            .enumerate()
            .map(|(i, m)| {
                other_modules(
                    i,
                    m.specs.iter().filter_map(|r| match r {
                        Resolved::Module(t) => Some(*t),
                        _ => None,
                    }),
                )
            })
            .collect();
        let merged = mods
            .iter()
            .map(|m| {
                let mut idx: HashMap<String, Vec<usize>> = HashMap::default();
                for (i, d) in m.ts.decls.iter().enumerate() {
                    if is_type_container(d.kind) || d.kind == SymbolKind::Function {
                        idx.entry(d.qn.clone()).or_default().push(i);
                    }
                }
                idx.retain(|_, v| v.len() > 1);
                idx
            })
            .collect();
        let mut script_globals = HashMap::default();
        for (mi, m) in mods.iter().enumerate() {
            let f = &m.ts;
            let script = f.imports.is_empty()
                && f.exports.is_empty()
                && f.reexports.is_empty()
                && f.export_equals.is_none()
                && !f.has_module_syntax;
            if !script {
                continue;
            }
            for (di, d) in f.decls.iter().enumerate() {
                if d.parent.is_none() {
                    script_globals
                        .entry((m.repo, d.name.clone()))
                        .or_insert_with(Vec::new)
                        .push((mi, di));
                }
            }
        }
        Shared {
            mods,
            project,
            script_globals,
            member_index,
            imported,
            merged,
            package_of: Vec::new(),
        }
    }
}

impl<'f> Resolver<'f> {
    fn new(facts: &'f mut FactSet, shared: &'f Shared, refs: &'f [Vec<Ref>]) -> Resolver<'f> {
        Resolver {
            facts,
            shared,
            refs,
            exports: CutMemo::default(),
            evals: Default::default(),
            discriminants: Default::default(),
            depth_bound: DepthBound::new(MAX_DEPTH),
        }
    }

    /// Whether `depth` is past the bound of every recursive search; notes the depth checked for
    /// the memos ([`DepthBound`]).
    fn too_deep(&self, depth: usize) -> bool {
        self.depth_bound.too_deep(depth)
    }
}
