//! Phase 2 of Python: module names and packages, import resolution within and across
//! repositories, module attributes (re-exports and `*` imports), members through base classes,
//! and the binding of every reference phase 1 left open.
//!
//! - [`modules`]: the module table, every file's dotted name and the packages it provides;
//! - [`imports`]: imports within and across repositories, module
//!   attributes (re-exports, `*` imports and `__all__`, submodules) and names bound by scope;
//! - [`receivers`]: what a receiver expression or a written type denotes;
//! - [`members`]: members through base classes (the MRO, `super()`, closed classes, unions);
//! - [`symbols`]: the module and declaration symbols, and the structural edges;
//! - [`references`]: the edges and unresolved records of imports and references;
//! - [`alternatives`]: the candidates that alternative declarations of one name give each
//!   other (a module and its stub, a guarded import and its fallback).

mod alternatives;
mod imports;
mod members;
mod modules;
mod receivers;
mod references;
mod symbols;

use crate::hash::{HashMap, HashSet};

use kivgraph_format::SymbolKind;

use super::extract::{PyFile, Ref};
use super::project::{RepoLayout, add_default_roots, module_name};
use crate::facts::{FactSet, FileId, PackageId, RepoId, SymbolId};
use crate::lang::shared::resolve::{
    CutMemo, DepthBound, Lookup, bind_in_runs, modules_per_task, other_modules,
};
use modules::ModuleTable;

/// How deep chains of names, attributes and bases are followed before giving up.
const MAX_DEPTH: usize = 64;
/// Receiver evaluations one reference may make ([`Resolver::eval`]): chains of attributes
/// assigned in many places fan out (each assignment's value is evaluated, and each of those
/// reads more attributes), and past this budget the receiver is not known.
const MAX_EVAL_STEPS: usize = 4_000;

/// One file of the compile, with what resolution learns of it.
pub struct Module {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub py: PyFile,
    /// Its dotted module name, when it has one of its own (12.1).
    dotted: Option<String>,
    /// The symbol of each declaration (the module symbol for an inherited `self.x`).
    syms: Vec<SymbolId>,
    module_sym: SymbolId,
    /// Resolution of each import's module.
    targets: Vec<Target>,
}

impl Module {
    pub fn new(repo: RepoId, file: FileId, path: String, py: PyFile) -> Module {
        Module {
            repo,
            file,
            path,
            py,
            dotted: None,
            syms: Vec::new(),
            module_sym: SymbolId(0),
            targets: Vec::new(),
        }
    }
}

/// What an import's module names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Module(usize),
    /// A namespace package: a directory of modules without `__init__.py`.
    Namespace(RepoId, String),
    /// Not compiled: (reason, requested package).
    Missing(&'static str, String),
}

/// What a name or attribute binds to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Bound {
    /// Declaration `.1` of module `.0`.
    Decl(usize, usize),
    Module(usize),
    Namespace(RepoId, String),
    /// Something outside the graph (a builtin, the standard library, a third-party module).
    External,
    /// Nothing: the name or attribute does not exist.
    Missing,
}

/// What a receiver (`x` of `x.m`) denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Receiver {
    /// An instance of, or the class itself, class `.1` of module `.0`.
    Members(usize, usize),
    /// The bases of this class (`super()`).
    SuperOf(usize, usize),
    Module(usize),
    Namespace(RepoId, String),
    /// A sequence of these (`list[C]`): its members are a library's.
    Seq(Box<Receiver>),
    /// A mapping of keys to values (`dict[K, V]`): its members are a library's.
    Map(Box<Receiver>, Box<Receiver>),
    Union(Vec<Receiver>),
    External,
    Unknown,
}

/// The members a receiver has of one name; a module's attribute is what it binds to. A class
/// is closed (`Lookup::NotFound`) when every class searched is compiled and none has
/// `__getattr__`.
type Hit = crate::lang::shared::resolve::Hit<Bound>;

/// What every reference's binding reads and none changes: the modules with their imports'
/// targets and symbols, the module table and the indexes made from them once.
pub struct Shared {
    mods: Vec<Module>,
    table: ModuleTable,
    /// Per module: class members by name (the name-only candidates).
    member_index: Vec<HashMap<String, Vec<usize>>>,
    /// Per module: the other compiled modules its imports reach.
    imported: Vec<Vec<usize>>,
    layouts: HashMap<RepoId, RepoLayout>,
    /// `self.x` fields that a base class already declares: `x` is the base's, and these are
    /// not symbols.
    inherited: HashSet<(usize, usize)>,
    /// The package of each module's file.
    file_package: Vec<PackageId>,
}

/// Binds references over the [`Shared`] tables: the facts it emits, and the memo and state of
/// its searches (each run of modules bound by a task keeps its own).
pub struct Resolver<'f> {
    facts: &'f mut FactSet,
    shared: &'f Shared,
    /// Each module's references, taken out of its extraction.
    refs: &'f [Vec<Ref>],
    /// Module attributes by (module, name).
    attributes: CutMemo<(usize, String), Bound>,
    /// Locals whose assignments are being typed ([`Resolver::eval`]): a value that reads one
    /// of them again (`ptr = ptr.next`) adds nothing to its type.
    typing_locals: std::cell::RefCell<std::collections::HashSet<(usize, usize)>>,
    /// Set when such a value was met.
    read_again: std::cell::Cell<bool>,
    /// Receiver evaluations made for the reference being bound ([`MAX_EVAL_STEPS`]).
    eval_steps: std::cell::Cell<usize>,
    /// The bound of every recursive search, and how deep they checked it (kept attributes'
    /// reach).
    depth_bound: DepthBound,
}

impl std::ops::Deref for Resolver<'_> {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        self.shared
    }
}

/// Resolves every Python module: symbols, then each module's import facts, references and
/// structural edges (runs of modules on every thread ([`bind_in_runs`]), their facts
/// appended in module order), then the candidates alternative declarations give each other.
pub fn run(facts: &mut FactSet, mods: Vec<Module>, layouts: HashMap<RepoId, RepoLayout>) {
    let mut shared = Shared::new(mods, layouts);
    shared.symbols(facts);
    shared.file_package = shared
        .mods
        .iter()
        .map(|m| facts.files[m.file].package.unwrap_or_default())
        .collect();
    let refs: Vec<Vec<Ref>> = shared
        .mods
        .iter_mut()
        .map(|m| std::mem::take(&mut m.py.refs))
        .collect();
    let first_edge = facts.edges.len();
    bind_in_runs(facts, shared.mods.len(), modules_per_task(), |out, run| {
        let mut r = Resolver::new(out, &shared, &refs);
        for &m in run {
            r.import_facts(m);
            r.references(m);
            r.structural(m);
        }
    });
    let mut r = Resolver::new(facts, &shared, &refs);
    r.stub_twins(first_edge);
    r.guarded_imports(first_edge);
}

/// Methods, static methods and properties: what `METHOD_OF` and `OVERRIDES` link.
fn is_method(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Method | SymbolKind::StaticMethod | SymbolKind::Property
    )
}

impl Shared {
    fn new(mut mods: Vec<Module>, mut layouts: HashMap<RepoId, RepoLayout>) -> Shared {
        add_default_roots(&mut layouts, mods.iter().map(|m| (m.repo, m.path.as_str())));
        let table = ModuleTable::new(&mods, &layouts);
        for (i, m) in mods.iter_mut().enumerate() {
            m.dotted = module_name(&layouts[&m.repo].roots, &m.path)
                .filter(|d| table.by_name.get(&(m.repo, d.clone())) == Some(&i));
        }
        let member_index = mods
            .iter()
            .map(|m| {
                let mut idx: HashMap<String, Vec<usize>> = HashMap::default();
                for (i, d) in m.py.decls.iter().enumerate() {
                    if d.parent
                        .is_some_and(|p| m.py.decls[p].kind == SymbolKind::Class)
                    {
                        idx.entry(d.name.clone()).or_default().push(i);
                    }
                }
                idx
            })
            .collect();
        let mut shared = Shared {
            mods,
            table,
            member_index,
            imported: Vec::new(),
            layouts,
            inherited: HashSet::default(),
            file_package: Vec::new(),
        };
        // Searches made while the tables are built emit nothing.
        let mut none = FactSet::default();
        let targets: Vec<Vec<Target>> = {
            let r = Resolver::new(&mut none, &shared, &[]);
            (0..r.mods.len())
                .map(|m| {
                    r.mods[m]
                        .py
                        .imports
                        .iter()
                        .map(|im| r.resolve_module(m, &im.module))
                        .collect()
                })
                .collect()
        };
        for (m, targets) in targets.into_iter().enumerate() {
            shared.mods[m].targets = targets;
        }
        // A `self.x = …` for an `x` a base class declares assigns the base's attribute.
        let inherited = {
            let r = Resolver::new(&mut none, &shared, &[]);
            let mut inherited = HashSet::default();
            for m in 0..r.mods.len() {
                for (d, decl) in r.mods[m].py.decls.iter().enumerate() {
                    if !decl.from_self || decl.annotated {
                        continue;
                    }
                    let Some(c) = decl.parent else { continue };
                    if let Hit::Decls(..) = r.members_named(&Receiver::SuperOf(m, c), &decl.name, 0)
                    {
                        inherited.insert((m, d));
                    }
                }
            }
            inherited
        };
        for &(m, d) in &inherited {
            let name = shared.mods[m].py.decls[d].name.clone();
            if let Some(v) = shared.member_index[m].get_mut(&name) {
                v.retain(|&x| x != d);
            }
        }
        shared.inherited = inherited;
        shared.imported = (0..shared.mods.len())
            .map(|m| {
                other_modules(
                    m,
                    shared.mods[m].targets.iter().filter_map(|t| match t {
                        Target::Module(x) => Some(*x),
                        _ => None,
                    }),
                )
            })
            .collect();
        shared
    }
}

impl<'f> Resolver<'f> {
    fn new(facts: &'f mut FactSet, shared: &'f Shared, refs: &'f [Vec<Ref>]) -> Resolver<'f> {
        Resolver {
            facts,
            shared,
            refs,
            attributes: CutMemo::default(),
            typing_locals: Default::default(),
            read_again: Default::default(),
            eval_steps: Default::default(),
            depth_bound: DepthBound::new(MAX_DEPTH),
        }
    }

    /// Whether `depth` is past the bound of every recursive search; notes the depth checked, so
    /// that an attribute whose search checked past the bound is never reused ([`DepthBound`]).
    fn too_deep(&self, depth: usize) -> bool {
        self.depth_bound.too_deep(depth)
    }
}
