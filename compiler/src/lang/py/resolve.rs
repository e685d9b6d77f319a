//! Phase 2 of Python: module names and packages, import resolution within and across
//! repositories, module attributes (re-exports and `*` imports), members through base classes,
//! and the binding of every reference phase 1 left open.

use crate::emit::{self, NameOnly, ReceiverWords, Request, Site};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::extract::{Expr, ImportKind, NameRes, PyFile, RefTarget, TypeRef, Use, is_builtin};
use super::project::{RepoLayout, module_name, normalise};
use super::{IMPORT_NOT_RESOLVED, NAME_NOT_RESOLVED, RECEIVER_TYPE_UNKNOWN, STDLIB_NOT_INDEXED};
use crate::facts::{Edge, FactSet, FileId, Package, PackageEdge, RepoId, Symbol, SymbolId};
use crate::lang::{UnionHit, UnionPart, union_hit};

const STDLIB: &str = include_str!("stdlib.txt");

fn is_stdlib(top: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| STDLIB.split_whitespace().collect())
        .contains(top)
}

/// Members every object or class has: missing from a declaration, they are not a failure.
const OBJECT_MEMBERS: &[&str] = &[
    "__class__",
    "__dict__",
    "__doc__",
    "__module__",
    "__name__",
    "__qualname__",
    "__init__",
    "__new__",
    "__repr__",
    "__str__",
    "__eq__",
    "__ne__",
    "__hash__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__dir__",
    "__init_subclass__",
    "__subclasshook__",
    "mro",
    "__mro__",
    "__bases__",
    "__subclasses__",
    "__annotations__",
    "__slots__",
    "__format__",
    "__reduce__",
    "__reduce_ex__",
    "__sizeof__",
    "__weakref__",
];

const MAX_DEPTH: usize = 64;

/// Builtins whose result's type depends on their arguments at run time.
const DYNAMIC_BUILTINS: &[&str] = &[
    "getattr",
    "vars",
    "globals",
    "locals",
    "eval",
    "__import__",
    "next",
    "iter",
    "max",
    "min",
    "sorted",
    "type",
    "copy",
    "reversed",
    "cast",
    "deepcopy",
];

/// How Python words a `RECEIVER_TYPE_UNKNOWN` record.
const RECEIVER_WORDS: ReceiverWords = ReceiverWords {
    unwritten: "the receiver's type is not written",
    none: "no visible class declares the attribute",
    shared: "visible class members share the name",
};

pub struct Module {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub py: PyFile,
    dotted: Option<String>,
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
            module_sym: 0,
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

#[derive(Clone, Debug, PartialEq, Eq)]
enum Bound {
    Decl(usize, usize),
    Module(usize),
    Namespace(RepoId, String),
    External,
    Missing,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Recv {
    Members(usize, usize),
    /// The bases of this class (`super()`).
    SuperOf(usize, usize),
    Module(usize),
    Namespace(RepoId, String),
    Seq(Box<Recv>),
    Union(Vec<Recv>),
    External,
    Unknown,
}

enum Lookup {
    Found(usize, usize),
    NotFound { closed: bool },
}

enum Hit {
    Decls(Vec<(usize, usize)>, bool),
    Bound(Bound),
    External,
    NotFound { closed: bool },
    Unknown,
}

pub struct Resolver<'f> {
    facts: &'f mut FactSet,
    mods: Vec<Module>,
    /// (repo, dotted) → module.
    by_name: HashMap<(RepoId, String), usize>,
    /// (repo, dotted prefix) of every package directory (namespace packages included).
    prefixes: HashSet<(RepoId, String)>,
    /// Top-level package → repositories providing it.
    providers: HashMap<String, BTreeSet<RepoId>>,
    attr_memo: RefCell<HashMap<(usize, String), Bound>>,
    attr_busy: RefCell<HashSet<(usize, String)>>,
    attr_cut: std::cell::Cell<bool>,
    member_index: Vec<HashMap<String, Vec<usize>>>,
    imported: Vec<Vec<usize>>,
    layouts: HashMap<RepoId, RepoLayout>,
    /// `self.x` fields that a base class already declares: `x` is the base's, and these are
    /// not symbols.
    inherited: HashSet<(usize, usize)>,
}

fn is_method(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Method | SymbolKind::StaticMethod | SymbolKind::Property
    )
}

impl<'f> Resolver<'f> {
    pub fn new(
        facts: &'f mut FactSet,
        mut mods: Vec<Module>,
        mut layouts: HashMap<RepoId, RepoLayout>,
    ) -> Resolver<'f> {
        // Module roots: the repository root, `src/` when files live there, and configured ones.
        for m in &mods {
            let l = layouts.entry(m.repo).or_default();
            l.roots.insert(String::new());
            if m.path.starts_with("src/") {
                l.roots.insert("src".into());
            }
        }
        let mut by_name = HashMap::new();
        let mut prefixes = HashSet::new();
        let mut providers: HashMap<String, BTreeSet<RepoId>> = HashMap::new();
        // `.py` before `.pyi`, so that a module's declarations come from its source.
        let mut order: Vec<usize> = (0..mods.len()).collect();
        // A package (`pkg/__init__.py`) before a module of the same name (`pkg.py`), as Python
        // finds them.
        order.sort_by_key(|&i| {
            let p = &mods[i].path;
            (
                p.ends_with(".pyi"),
                !(p.ends_with("/__init__.py") || p == "__init__.py"),
                p.clone(),
            )
        });
        for i in order {
            let m = &mods[i];
            let Some(d) = module_name(&layouts[&m.repo].roots, &m.path) else {
                continue;
            };
            let parts: Vec<&str> = d.split('.').collect();
            for k in 1..parts.len() {
                prefixes.insert((m.repo, parts[..k].join(".")));
            }
            if m.path.ends_with("__init__.py") || m.path.ends_with("__init__.pyi") {
                prefixes.insert((m.repo, d.clone()));
            }
            providers
                .entry(parts[0].to_string())
                .or_default()
                .insert(m.repo);
            by_name.entry((m.repo, d.clone())).or_insert(i);
        }
        for (repo, l) in &layouts {
            for (_, p) in &l.projects {
                providers.entry(normalise(p)).or_default().insert(*repo);
            }
        }
        for (i, m) in mods.iter_mut().enumerate() {
            m.dotted = module_name(&layouts[&m.repo].roots, &m.path)
                .filter(|d| by_name.get(&(m.repo, d.clone())) == Some(&i));
        }
        let member_index = mods
            .iter()
            .map(|m| {
                let mut idx: HashMap<String, Vec<usize>> = HashMap::new();
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
        let mut r = Resolver {
            facts,
            mods,
            by_name,
            prefixes,
            providers,
            attr_memo: RefCell::new(HashMap::new()),
            attr_busy: RefCell::new(HashSet::new()),
            attr_cut: std::cell::Cell::new(false),
            member_index,
            imported: Vec::new(),
            layouts,
            inherited: HashSet::new(),
        };
        for m in 0..r.mods.len() {
            let targets: Vec<Target> = r.mods[m]
                .py
                .imports
                .iter()
                .map(|im| {
                    let dotted = match im.kind {
                        ImportKind::Module { alias: false } => im.module.clone(),
                        _ => im.module.clone(),
                    };
                    r.resolve_module(m, &dotted)
                })
                .collect();
            r.mods[m].targets = targets;
        }
        // A `self.x = …` for an `x` a base class declares assigns the base's attribute.
        let mut inherited = HashSet::new();
        for m in 0..r.mods.len() {
            for (d, decl) in r.mods[m].py.decls.iter().enumerate() {
                if !decl.from_self || decl.annotated {
                    continue;
                }
                let Some(c) = decl.parent else { continue };
                if let Hit::Decls(..) = r.members_named(&Recv::SuperOf(m, c), &decl.name, 0) {
                    inherited.insert((m, d));
                }
            }
        }
        r.inherited = inherited;
        for (m, d) in r.inherited.clone() {
            let name = r.mods[m].py.decls[d].name.clone();
            if let Some(v) = r.member_index[m].get_mut(&name) {
                v.retain(|&x| x != d);
            }
        }
        r.imported = (0..r.mods.len())
            .map(|m| {
                let set: BTreeSet<usize> = r.mods[m]
                    .targets
                    .iter()
                    .filter_map(|t| match t {
                        Target::Module(x) if *x != m => Some(*x),
                        _ => None,
                    })
                    .collect();
                set.into_iter().collect()
            })
            .collect();
        r
    }

    pub fn run(mut self) {
        self.symbols();
        for m in 0..self.mods.len() {
            self.import_facts(m);
            self.references(m);
            self.structural(m);
        }
    }

    // ------------------------------------------------------------------ modules

    /// The package a relative import of module `m` starts from.
    fn package_of(&self, m: usize) -> Option<String> {
        let d = self.mods[m]
            .dotted
            .clone()
            .or_else(|| module_name(&self.layouts[&self.mods[m].repo].roots, &self.mods[m].path))?;
        let p = &self.mods[m].path;
        if p.ends_with("__init__.py") || p.ends_with("__init__.pyi") {
            Some(d)
        } else {
            Some(
                d.rsplit_once('.')
                    .map_or(String::new(), |(a, _)| a.to_string()),
            )
        }
    }

    fn resolve_module(&self, m: usize, spec: &str) -> Target {
        let repo = self.mods[m].repo;
        if spec.starts_with('.') {
            let dots = spec.chars().take_while(|c| *c == '.').count();
            let rest = &spec[dots..];
            let Some(mut base) = self.package_of(m) else {
                return Target::Missing(IMPORT_NOT_RESOLVED, spec.to_string());
            };
            for _ in 1..dots {
                match base.rsplit_once('.') {
                    Some((a, _)) => base = a.to_string(),
                    None if !base.is_empty() => base = String::new(),
                    None => return Target::Missing(IMPORT_NOT_RESOLVED, spec.to_string()),
                }
            }
            let full = match (base.is_empty(), rest.is_empty()) {
                (true, _) => rest.to_string(),
                (false, true) => base,
                (false, false) => format!("{base}.{rest}"),
            };
            return self
                .lookup_in_repo(repo, &full)
                .unwrap_or_else(|| Target::Missing(IMPORT_NOT_RESOLVED, spec.to_string()));
        }
        if let Some(t) = self.lookup_in_repo(repo, spec) {
            return t;
        }
        let top = spec.split('.').next().unwrap_or(spec);
        if let Some(repos) = self.providers.get(top) {
            let others: Vec<RepoId> = repos.iter().copied().filter(|r| *r != repo).collect();
            if others.len() == 1
                && let Some(t) = self.lookup_in_repo(others[0], spec)
            {
                return t;
            }
        }
        if is_stdlib(top) {
            Target::Missing(STDLIB_NOT_INDEXED, top.to_string())
        } else {
            Target::Missing(IMPORT_NOT_RESOLVED, top.to_string())
        }
    }

    fn lookup_in_repo(&self, repo: RepoId, dotted: &str) -> Option<Target> {
        if dotted.is_empty() {
            return None;
        }
        if let Some(&i) = self.by_name.get(&(repo, dotted.to_string())) {
            return Some(Target::Module(i));
        }
        self.prefixes
            .contains(&(repo, dotted.to_string()))
            .then(|| Target::Namespace(repo, dotted.to_string()))
    }

    fn target_bound(t: &Target) -> Bound {
        match t {
            Target::Module(x) => Bound::Module(*x),
            Target::Namespace(r, d) => Bound::Namespace(*r, d.clone()),
            Target::Missing(..) => Bound::External,
        }
    }

    /// Attribute `name` of module `t`: its module-level declaration, an imported name it
    /// re-exports, a name of one of its `*` imports, or its submodule.
    fn attribute(&self, t: usize, name: &str, depth: usize) -> Bound {
        let key = (t, name.to_string());
        if let Some(b) = self.attr_memo.borrow().get(&key) {
            return b.clone();
        }
        // Cut cycles and runaway chains; a result computed past a cut depends on where the
        // search started and is not kept.
        if depth > MAX_DEPTH || !self.attr_busy.borrow_mut().insert(key.clone()) {
            self.attr_cut.set(true);
            return Bound::Missing;
        }
        let outer = self.attr_cut.replace(false);
        let b = self.compute_attribute(t, name, depth);
        let cut = self.attr_cut.get();
        self.attr_cut.set(outer || cut);
        self.attr_busy.borrow_mut().remove(&key);
        if !cut || b != Bound::Missing {
            self.attr_memo.borrow_mut().insert(key, b.clone());
        }
        b
    }

    fn compute_attribute(&self, t: usize, name: &str, depth: usize) -> Bound {
        let f = &self.mods[t].py;
        // `__all__`, `__name__`, `__file__`, …: attributes every module has.
        if name.starts_with("__") && name.ends_with("__") && !f.scope.contains_key(name) {
            return Bound::External;
        }
        match f.scope.get(name) {
            Some(NameRes::Decl(d)) => return Bound::Decl(t, *d),
            Some(NameRes::Import(i)) => {
                let b = self.import_binding(t, *i, depth + 1);
                if b != Bound::Missing {
                    return b;
                }
            }
            _ => {}
        }
        if let Some(b) = self.star_lookup(t, name, depth + 1) {
            return b;
        }
        self.submodule(&Bound::Module(t), name)
    }

    fn submodule(&self, b: &Bound, name: &str) -> Bound {
        let (repo, base) = match b {
            Bound::Module(t) => match &self.mods[*t].dotted {
                Some(d) => (self.mods[*t].repo, d.clone()),
                None => return Bound::Missing,
            },
            Bound::Namespace(r, d) => (*r, d.clone()),
            _ => return Bound::Missing,
        };
        match self.lookup_in_repo(repo, &format!("{base}.{name}")) {
            Some(t) => Self::target_bound(&t),
            None => Bound::Missing,
        }
    }

    /// A name that module `m` gets from one of its `from x import *`.
    fn star_lookup(&self, m: usize, name: &str, depth: usize) -> Option<Bound> {
        let f = &self.mods[m].py;
        let mut external = false;
        for (i, im) in f.imports.iter().enumerate().rev() {
            if im.kind != ImportKind::Star {
                continue;
            }
            match &self.mods[m].targets[i] {
                Target::Module(t) => {
                    let exported = match &self.mods[*t].py.all {
                        Some(all) => all.iter().any(|a| a == name),
                        None => !name.starts_with('_'),
                    };
                    if exported {
                        let b = self.attribute(*t, name, depth + 1);
                        if b != Bound::Missing {
                            return Some(b);
                        }
                    }
                }
                Target::Namespace(..) => {}
                Target::Missing(..) => external = true,
            }
        }
        // A name may come from a `*` import of a module outside the graph.
        external.then_some(Bound::External)
    }

    fn import_binding(&self, m: usize, i: usize, depth: usize) -> Bound {
        let im = &self.mods[m].py.imports[i];
        match &im.kind {
            ImportKind::Module { alias: false } => {
                // `import a.b.c` binds `a`.
                let top = im.module.split('.').next().unwrap_or("");
                Self::target_bound(&self.resolve_module(m, top))
            }
            ImportKind::Module { alias: true } => Self::target_bound(&self.mods[m].targets[i]),
            ImportKind::From(name) => match &self.mods[m].targets[i] {
                Target::Module(t) => self.attribute(*t, name, depth + 1),
                ns @ Target::Namespace(..) => self.submodule(&Self::target_bound(ns), name),
                Target::Missing(..) => Bound::External,
            },
            ImportKind::Star => Bound::Missing,
        }
    }

    fn bind_res(&self, m: usize, res: &NameRes, depth: usize) -> Bound {
        if depth > MAX_DEPTH {
            return Bound::Missing;
        }
        match res {
            NameRes::Decl(d) => Bound::Decl(m, *d),
            NameRes::Import(i) => self.import_binding(m, *i, depth + 1),
            NameRes::Local(_) => Bound::Missing,
            NameRes::Unbound(n) => {
                if let Some(b) = self.star_lookup(m, n, depth + 1) {
                    b
                } else if is_builtin(n) || n == "__all__" {
                    Bound::External
                } else {
                    Bound::Missing
                }
            }
        }
    }

    // ------------------------------------------------------------------ receivers

    fn eval(&self, m: usize, e: &Expr, depth: usize) -> Recv {
        if depth > MAX_DEPTH {
            return Recv::Unknown;
        }
        match e {
            Expr::Unknown => Recv::Unknown,
            Expr::External => Recv::External,
            Expr::Name(NameRes::Local(l)) => {
                let local = &self.mods[m].py.locals[*l];
                match (&local.ty, &local.value) {
                    (Some(t), _) => self.type_recv(m, t, depth + 1),
                    (None, Some(v)) if local.assignments <= 1 => self.eval(m, v, depth + 1),
                    _ => Recv::Unknown,
                }
            }
            Expr::Name(res) => self.value_recv(self.bind_res(m, res, depth + 1), depth + 1),
            Expr::SelfOf(c) => Recv::Members(m, *c),
            Expr::Super(c) => Recv::SuperOf(m, *c),
            Expr::Member(base, name) => {
                match self.members_named(&self.eval(m, base, depth + 1), name, depth + 1) {
                    Hit::Decls(v, _) if v.len() == 1 => {
                        self.value_recv(Bound::Decl(v[0].0, v[0].1), depth + 1)
                    }
                    Hit::Decls(v, _) => Recv::Union(
                        v.into_iter()
                            .map(|(a, b)| self.value_recv(Bound::Decl(a, b), depth + 1))
                            .collect(),
                    ),
                    Hit::Bound(b) => self.value_recv(b, depth + 1),
                    Hit::External | Hit::NotFound { closed: false } => Recv::External,
                    Hit::NotFound { closed: true } | Hit::Unknown => Recv::Unknown,
                }
            }
            // Builtins whose result can be anything.
            Expr::Call(callee) if self.is_dynamic_call(m, callee) => Recv::Unknown,
            Expr::Call(callee) => match self.callee(m, callee, depth + 1) {
                Bound::Decl(cm, cd) => {
                    let d = &self.mods[cm].py.decls[cd];
                    match d.kind {
                        SymbolKind::Class => Recv::Members(cm, cd),
                        _ => match &d.ty {
                            Some(t) => self.type_recv(cm, t, depth + 1),
                            None => Recv::Unknown,
                        },
                    }
                }
                Bound::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::Elem(inner) => match self.eval(m, inner, depth + 1) {
                Recv::Seq(x) => *x,
                Recv::External => Recv::External,
                _ => Recv::Unknown,
            },
        }
    }

    /// A call of a builtin (or of `typing.cast`, `copy.copy`, …) whose result's type depends on
    /// its arguments at run time.
    fn is_dynamic_call(&self, m: usize, callee: &Expr) -> bool {
        match callee {
            Expr::Name(NameRes::Unbound(n)) => DYNAMIC_BUILTINS.contains(&n.as_str()),
            Expr::Name(NameRes::Import(i)) => match &self.mods[m].py.imports[*i].kind {
                ImportKind::From(n) => {
                    DYNAMIC_BUILTINS.contains(&n.as_str())
                        && matches!(self.mods[m].targets[*i], Target::Missing(..))
                }
                _ => false,
            },
            Expr::Member(base, n) => {
                DYNAMIC_BUILTINS.contains(&n.as_str())
                    && matches!(&**base, Expr::Name(NameRes::Import(i))
                        if matches!(self.mods[m].targets[*i], Target::Missing(..)))
            }
            _ => false,
        }
    }

    fn callee(&self, m: usize, e: &Expr, depth: usize) -> Bound {
        if depth > MAX_DEPTH {
            return Bound::Missing;
        }
        match e {
            Expr::Name(NameRes::Local(_)) => Bound::Missing,
            Expr::Name(res) => self.bind_res(m, res, depth + 1),
            Expr::Member(base, name) => {
                match self.members_named(&self.eval(m, base, depth + 1), name, depth + 1) {
                    Hit::Decls(v, true) => Bound::Decl(v[0].0, v[0].1),
                    Hit::Bound(b) => b,
                    Hit::External | Hit::NotFound { closed: false } => Bound::External,
                    _ => Bound::Missing,
                }
            }
            Expr::External => Bound::External,
            _ => Bound::Missing,
        }
    }

    fn value_recv(&self, b: Bound, depth: usize) -> Recv {
        if depth > MAX_DEPTH {
            return Recv::Unknown;
        }
        match b {
            Bound::Decl(m, d) => {
                let decl = &self.mods[m].py.decls[d];
                match decl.kind {
                    SymbolKind::Class => Recv::Members(m, d),
                    SymbolKind::Variable | SymbolKind::Field => match (&decl.ty, &decl.value) {
                        (Some(t), _) => self.type_recv(m, t, depth + 1),
                        (None, Some(v)) if decl.assignments <= 1 => self.eval(m, v, depth + 1),
                        _ => Recv::Unknown,
                    },
                    SymbolKind::Property => match &decl.ty {
                        Some(t) => self.type_recv(m, t, depth + 1),
                        None => Recv::Unknown,
                    },
                    _ => Recv::External,
                }
            }
            Bound::Module(t) => Recv::Module(t),
            Bound::Namespace(r, d) => Recv::Namespace(r, d),
            Bound::External => Recv::External,
            Bound::Missing => Recv::Unknown,
        }
    }

    fn type_recv(&self, m: usize, t: &TypeRef, depth: usize) -> Recv {
        if depth > MAX_DEPTH {
            return Recv::Unknown;
        }
        match t {
            TypeRef::External => Recv::External,
            TypeRef::Unknown => Recv::Unknown,
            TypeRef::Seq(x) => Recv::Seq(Box::new(self.type_recv(m, x, depth + 1))),
            TypeRef::Union(ts) => {
                Recv::Union(ts.iter().map(|x| self.type_recv(m, x, depth + 1)).collect())
            }
            TypeRef::Named { head, path } => {
                if let NameRes::Local(_) = head {
                    return Recv::Unknown;
                }
                let mut b = self.bind_res(m, head, depth + 1);
                for seg in path {
                    b = match b {
                        Bound::Module(_) | Bound::Namespace(..) => match &b {
                            Bound::Module(t) => self.attribute(*t, seg, depth + 1),
                            _ => self.submodule(&b, seg),
                        },
                        Bound::Decl(bm, bd) => match self.lookup_member(bm, bd, seg, depth + 1) {
                            Lookup::Found(a, c) => Bound::Decl(a, c),
                            _ => Bound::Missing,
                        },
                        other => other,
                    };
                }
                match b {
                    Bound::Decl(bm, bd) if self.mods[bm].py.decls[bd].kind == SymbolKind::Class => {
                        Recv::Members(bm, bd)
                    }
                    Bound::External => Recv::External,
                    _ => Recv::Unknown,
                }
            }
        }
    }

    /// Member `name` declared by class `c` itself (inherited `self.x` fields aside).
    fn own_member(&self, m: usize, c: usize, name: &str) -> Option<usize> {
        self.mods[m].py.decls[c]
            .members
            .get(name)
            .copied()
            .filter(|&x| !self.inherited.contains(&(m, x)))
    }

    fn lookup_member(&self, m: usize, c: usize, name: &str, depth: usize) -> Lookup {
        let mut visited = HashSet::new();
        self.lookup_in(m, c, name, depth, &mut visited)
    }

    /// Own members, then the bases left to right, depth first (the MRO of every hierarchy
    /// without diamonds).
    fn lookup_in(
        &self,
        m: usize,
        c: usize,
        name: &str,
        depth: usize,
        visited: &mut HashSet<(usize, usize)>,
    ) -> Lookup {
        if depth > MAX_DEPTH || !visited.insert((m, c)) {
            return Lookup::NotFound { closed: false };
        }
        // With every base compiled, Python's own order: the C3 linearisation.
        if let Some(mro) = self.mro(m, c, depth + 1) {
            let mut closed = true;
            for (cm, cc) in mro {
                let d = &self.mods[cm].py.decls[cc];
                if let Some(x) = self.own_member(cm, cc, name) {
                    return Lookup::Found(cm, x);
                }
                closed &= !d.members.contains_key("__getattr__")
                    && !d.members.contains_key("__getattribute__");
            }
            return Lookup::NotFound { closed };
        }
        let decl = &self.mods[m].py.decls[c];
        if let Some(x) = self.own_member(m, c, name) {
            return Lookup::Found(m, x);
        }
        let mut closed = !decl.members.contains_key("__getattr__")
            && !decl.members.contains_key("__getattribute__");
        for b in &decl.bases {
            match self.base_recv(m, b, depth + 1) {
                Some(Recv::Members(bm, bd)) => {
                    match self.lookup_in(bm, bd, name, depth + 1, visited) {
                        Lookup::Found(a, x) => return Lookup::Found(a, x),
                        Lookup::NotFound { closed: cl } => closed &= cl,
                    }
                }
                Some(_) => closed = false,
                None => {}
            }
        }
        Lookup::NotFound { closed }
    }

    /// The C3 linearisation of class `c`, when every base class resolves to a compiled class
    /// (`object` aside) and the hierarchy is consistent.
    fn mro(&self, m: usize, c: usize, depth: usize) -> Option<Vec<(usize, usize)>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut seqs: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut direct = Vec::new();
        for b in &self.mods[m].py.decls[c].bases {
            match self.base_recv(m, b, depth + 1) {
                None => {}
                Some(Recv::Members(bm, bd)) => {
                    seqs.push(self.mro(bm, bd, depth + 1)?);
                    direct.push((bm, bd));
                }
                Some(_) => return None,
            }
        }
        seqs.push(direct);
        let mut out = vec![(m, c)];
        loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                return Some(out);
            }
            let head = seqs
                .iter()
                .map(|s| s[0])
                .find(|h| !seqs.iter().any(|s| s[1..].contains(h)))?;
            out.push(head);
            for s in &mut seqs {
                if s[0] == head {
                    s.remove(0);
                }
            }
        }
    }

    /// A base class: `None` for `object` and `Generic[...]`/`Protocol`, which add no members.
    fn base_recv(&self, m: usize, b: &TypeRef, depth: usize) -> Option<Recv> {
        if let TypeRef::Named {
            head: NameRes::Unbound(n),
            path,
        } = b
            && path.is_empty()
            && n == "object"
        {
            return None;
        }
        Some(self.type_recv(m, b, depth))
    }

    fn members_named(&self, recv: &Recv, name: &str, depth: usize) -> Hit {
        if depth > MAX_DEPTH {
            return Hit::Unknown;
        }
        match recv {
            Recv::Members(m, c) => match self.lookup_member(*m, *c, name, depth + 1) {
                Lookup::Found(a, b) => Hit::Decls(vec![(a, b)], true),
                Lookup::NotFound { closed } => Hit::NotFound { closed },
            },
            Recv::SuperOf(m, c) if self.mro(*m, *c, depth + 1).is_some() => {
                let mro = self.mro(*m, *c, depth + 1).unwrap_or_default();
                for &(cm, cc) in mro.iter().skip(1) {
                    if let Some(x) = self.own_member(cm, cc, name) {
                        return Hit::Decls(vec![(cm, x)], true);
                    }
                }
                Hit::NotFound { closed: true }
            }
            Recv::SuperOf(m, c) => {
                let mut closed = true;
                let bases = self.mods[*m].py.decls[*c].bases.clone();
                let mut visited = HashSet::new();
                visited.insert((*m, *c));
                for b in &bases {
                    match self.base_recv(*m, b, depth + 1) {
                        Some(Recv::Members(bm, bd)) => {
                            match self.lookup_in(bm, bd, name, depth + 1, &mut visited) {
                                Lookup::Found(a, x) => return Hit::Decls(vec![(a, x)], true),
                                Lookup::NotFound { closed: cl } => closed &= cl,
                            }
                        }
                        Some(_) => closed = false,
                        None => {}
                    }
                }
                Hit::NotFound { closed }
            }
            Recv::Module(t) => Hit::Bound(self.attribute(*t, name, depth + 1)),
            b @ Recv::Namespace(..) => {
                let Recv::Namespace(r, d) = b else {
                    unreachable!()
                };
                Hit::Bound(self.submodule(&Bound::Namespace(*r, d.clone()), name))
            }
            Recv::Seq(_) | Recv::External => Hit::External,
            Recv::Unknown => Hit::Unknown,
            Recv::Union(parts) => {
                let answers = parts
                    .iter()
                    .map(|p| match self.members_named(p, name, depth + 1) {
                        Hit::Decls(v, exact) => UnionPart::Declares(v, exact),
                        Hit::NotFound { closed: true } => UnionPart::Lacks,
                        _ => UnionPart::Unknown,
                    });
                match union_hit(answers) {
                    UnionHit::Found(v, exact) => Hit::Decls(v, exact),
                    UnionHit::Lacks => Hit::NotFound { closed: true },
                    UnionHit::Unknown => Hit::External,
                }
            }
        }
    }

    // ------------------------------------------------------------------ facts

    fn symbols(&mut self) {
        let mut names_used: HashSet<(RepoId, String)> = HashSet::new();
        for mi in 0..self.mods.len() {
            let m = &self.mods[mi];
            let dotted = m.dotted.clone();
            let mut name = match &dotted {
                Some(d) => d.clone(),
                None => {
                    // A stub beside its module, or a file no root makes importable.
                    match module_name(&self.layouts[&m.repo].roots, &m.path) {
                        Some(d) if m.path.ends_with(".pyi") => format!("{d}.pyi"),
                        _ => m.path.clone(),
                    }
                }
            };
            if !names_used.insert((m.repo, name.clone())) {
                name = m.path.clone();
                names_used.insert((m.repo, name.clone()));
            }
            let project = self.project_of(m.repo, &m.path);
            let pid = self.facts.packages.len();
            self.facts.packages.push(Package {
                repo: m.repo,
                language: Language::Python,
                name: name.clone(),
                path: m.path.clone(),
                module: project,
            });
            self.facts.files[m.file].package = Some(pid);
            let lines = self.facts.files[m.file].lines.max(1);
            let size = self.facts.files[m.file].size as u32;
            let module_sym = self.facts.symbols.len();
            self.facts.symbols.push(Symbol {
                repo: m.repo,
                package: pid,
                file: m.file,
                language: Language::Python,
                name: m.path.rsplit('/').next().unwrap_or(&m.path).to_string(),
                qualified_name: name,
                kind: SymbolKind::Module,
                exported: false,
                signature: None,
                start_line: 1,
                start_column: 0,
                end_line: lines,
                end_column: 0,
                start_byte: 0,
                end_byte: size,
            });
            let mut syms = Vec::with_capacity(m.py.decls.len());
            for (di, d) in m.py.decls.iter().enumerate() {
                if self.inherited.contains(&(mi, di)) {
                    // Not a symbol: the base declares it. Nothing binds to it.
                    syms.push(module_sym);
                    continue;
                }
                syms.push(self.facts.symbols.len());
                self.facts.symbols.push(Symbol {
                    repo: m.repo,
                    package: pid,
                    file: m.file,
                    language: Language::Python,
                    name: d.name.clone(),
                    qualified_name: d.qn.clone(),
                    kind: d.kind,
                    exported: d.exported,
                    signature: d.signature.clone(),
                    start_line: d.span.start_line,
                    start_column: d.span.start_column,
                    end_line: d.span.end_line,
                    end_column: d.span.end_column,
                    start_byte: d.span.start_byte,
                    end_byte: d.span.end_byte,
                });
            }
            let m = &mut self.mods[mi];
            m.module_sym = module_sym;
            m.syms = syms;
        }
    }

    fn project_of(&self, repo: RepoId, path: &str) -> Option<String> {
        self.layouts
            .get(&repo)?
            .projects
            .iter()
            .filter(|(dir, _)| dir.is_empty() || path.starts_with(&format!("{dir}/")))
            .max_by_key(|(dir, _)| dir.len())
            .map(|(_, n)| n.clone())
    }

    #[allow(clippy::too_many_arguments)]
    fn unresolved(
        &mut self,
        m: usize,
        line: u32,
        column: u32,
        reason: &str,
        package: String,
        symbol: Option<String>,
        detail: Option<String>,
        source: Option<SymbolId>,
    ) {
        let md = &self.mods[m];
        let site = Site {
            repo: md.repo,
            file: md.file,
            line,
            column,
            language: Language::Python,
        };
        let request = Request {
            package,
            symbol,
            detail,
        };
        let source = source.unwrap_or(md.module_sym);
        emit::unresolved(self.facts, site, reason, request, Some(source));
    }

    fn own_name(&self, m: usize) -> String {
        self.mods[m]
            .dotted
            .clone()
            .unwrap_or_else(|| self.mods[m].path.clone())
    }

    fn import_facts(&mut self, m: usize) {
        for i in 0..self.mods[m].py.imports.len() {
            let im = self.mods[m].py.imports[i].clone();
            match self.mods[m].targets[i].clone() {
                Target::Missing(reason, package) => {
                    let symbol = match &im.kind {
                        ImportKind::From(n) => Some(n.clone()),
                        _ => None,
                    };
                    self.unresolved(
                        m,
                        im.module_line,
                        im.module_column,
                        reason,
                        package,
                        symbol,
                        Some(format!("import of \"{}\"", im.module)),
                        None,
                    );
                }
                Target::Module(_) | Target::Namespace(..) => {}
            }
        }
        let src_pkg = self.facts.files[self.mods[m].file].package.unwrap_or(0);
        let deps = self.imported[m].clone();
        for t in deps {
            let tgt = self.facts.files[self.mods[t].file].package.unwrap_or(0);
            self.facts.package_edges.push(PackageEdge {
                source: src_pkg,
                target: tgt,
                kind: EdgeKind::PackageDependsOn,
                confidence: self.exact(m, t),
                provenance: Provenance::PyImportDependency,
            });
        }
    }

    fn exact(&self, from: usize, to: usize) -> Confidence {
        emit::exact(self.mods[from].repo == self.mods[to].repo)
    }

    fn source_of(&self, m: usize, from: Option<usize>) -> SymbolId {
        match from {
            Some(d) => self.mods[m].syms[d],
            None => self.mods[m].module_sym,
        }
    }

    fn edge_kind(usage: Use, target: SymbolKind) -> EdgeKind {
        match usage {
            Use::Import => EdgeKind::ImportsSymbol,
            Use::Extends => EdgeKind::Extends,
            Use::Type => EdgeKind::TypeUses,
            Use::Call => EdgeKind::CallsDirect,
            Use::Argument
                if matches!(
                    target,
                    SymbolKind::Function | SymbolKind::Method | SymbolKind::StaticMethod
                ) =>
            {
                EdgeKind::PassesAsCallback
            }
            Use::Argument | Use::Value | Use::Decorator => EdgeKind::References,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        m: usize,
        from: Option<usize>,
        (tm, td): (usize, usize),
        usage: Use,
        line: u32,
        column: u32,
        provenance: Provenance,
        confidence: Option<Confidence>,
    ) {
        let target_sym = self.mods[tm].syms[td];
        self.push_edge(
            m,
            from,
            target_sym,
            self.mods[tm].py.decls[td].kind,
            tm,
            usage,
            line,
            column,
            provenance,
            confidence,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn push_edge(
        &mut self,
        m: usize,
        from: Option<usize>,
        target: SymbolId,
        target_kind: SymbolKind,
        tm: usize,
        usage: Use,
        line: u32,
        column: u32,
        provenance: Provenance,
        confidence: Option<Confidence>,
    ) {
        let structural = usage == Use::Extends
            && confidence.is_none()
            && from.is_some_and(|d| self.mods[m].py.decls[d].kind == SymbolKind::Class);
        let (confidence, provenance) = if structural {
            (Confidence::StructuralCertain, Provenance::PyDeclaration)
        } else {
            (confidence.unwrap_or_else(|| self.exact(m, tm)), provenance)
        };
        let source = self.source_of(m, from);
        let md = &self.mods[m];
        let site = Site {
            repo: md.repo,
            file: md.file,
            line,
            column,
            language: Language::Python,
        };
        let kind = Self::edge_kind(usage, target_kind);
        emit::edge(
            self.facts,
            (source, target),
            kind,
            (confidence, provenance),
            site,
        );
    }

    fn references(&mut self, m: usize) {
        let refs = std::mem::take(&mut self.mods[m].py.refs);
        for r in &refs {
            match &r.target {
                RefTarget::Name(res, name) => {
                    let prov = match res {
                        NameRes::Import(_) => Provenance::PyImport,
                        NameRes::Unbound(_) => Provenance::PyImport,
                        _ => Provenance::PyScope,
                    };
                    match self.bind_res(m, res, 0) {
                        Bound::Decl(tm, td) => {
                            self.edge(m, r.from, (tm, td), r.usage, r.line, r.column, prov, None)
                        }
                        Bound::Missing => {
                            if let NameRes::Unbound(_) = res {
                                let own = self.own_name(m);
                                let src = self.source_of(m, r.from);
                                self.unresolved(
                                    m,
                                    r.line,
                                    r.column,
                                    NAME_NOT_RESOLVED,
                                    own,
                                    Some(name.clone()),
                                    Some("no scope, import or builtin declares the name".into()),
                                    Some(src),
                                );
                            }
                        }
                        _ => {}
                    }
                }
                RefTarget::Imported(i) => {
                    let i = *i;
                    match self.import_binding(m, i, 0) {
                        Bound::Decl(tm, td) => self.edge(
                            m,
                            r.from,
                            (tm, td),
                            Use::Import,
                            r.line,
                            r.column,
                            Provenance::PyImport,
                            None,
                        ),
                        Bound::Module(t) => {
                            let sym = self.mods[t].module_sym;
                            self.push_edge(
                                m,
                                r.from,
                                sym,
                                SymbolKind::Module,
                                t,
                                Use::Import,
                                r.line,
                                r.column,
                                Provenance::PyImport,
                                None,
                            );
                        }
                        Bound::Missing => {
                            let im = self.mods[m].py.imports[i].clone();
                            if let ImportKind::From(n) = &im.kind
                                && matches!(self.mods[m].targets[i], Target::Module(_))
                            {
                                let Target::Module(t) = self.mods[m].targets[i] else {
                                    continue;
                                };
                                let tn = self.own_name(t);
                                self.unresolved(
                                    m,
                                    r.line,
                                    r.column,
                                    NAME_NOT_RESOLVED,
                                    tn,
                                    Some(n.clone()),
                                    Some(format!(
                                        "module \"{}\" has no attribute or submodule of that name",
                                        im.module
                                    )),
                                    None,
                                );
                            }
                        }
                        _ => {}
                    }
                }
                RefTarget::ImportedModule(i) => {
                    if let Target::Module(t) = self.mods[m].targets[*i] {
                        let sym = self.mods[t].module_sym;
                        self.push_edge(
                            m,
                            r.from,
                            sym,
                            SymbolKind::Module,
                            t,
                            Use::Import,
                            r.line,
                            r.column,
                            Provenance::PyImport,
                            None,
                        );
                    }
                }
                RefTarget::Member(base, name) => {
                    self.member(m, r.from, base, name, r.usage, r.line, r.column)
                }
            }
        }
        self.mods[m].py.refs = refs;
    }

    #[allow(clippy::too_many_arguments)]
    fn member(
        &mut self,
        m: usize,
        from: Option<usize>,
        base: &Expr,
        name: &str,
        usage: Use,
        line: u32,
        column: u32,
    ) {
        let recv = self.eval(m, base, 0);
        match self.members_named(&recv, name, 0) {
            Hit::Decls(v, exact) => {
                let (prov, confidence) = if exact {
                    (Provenance::PyReceiverTyped, None)
                } else {
                    (Provenance::PyNameOnly, Some(Confidence::Candidate))
                };
                for x in v {
                    self.edge(m, from, x, usage, line, column, prov, confidence);
                }
            }
            Hit::Bound(Bound::Decl(a, b)) => self.edge(
                m,
                from,
                (a, b),
                usage,
                line,
                column,
                Provenance::PyImport,
                None,
            ),
            Hit::Bound(Bound::Module(t)) => {
                let sym = self.mods[t].module_sym;
                self.push_edge(
                    m,
                    from,
                    sym,
                    SymbolKind::Module,
                    t,
                    usage,
                    line,
                    column,
                    Provenance::PyImport,
                    None,
                );
            }
            Hit::Bound(Bound::Missing) => {
                let (Recv::Module(_) | Recv::Namespace(..)) = recv else {
                    return;
                };
                let owner = match &recv {
                    Recv::Module(t) => self.own_name(*t),
                    Recv::Namespace(_, d) => d.clone(),
                    _ => String::new(),
                };
                let src = self.source_of(m, from);
                self.unresolved(
                    m,
                    line,
                    column,
                    NAME_NOT_RESOLVED,
                    owner,
                    Some(name.to_string()),
                    Some("the module has no attribute or submodule of that name".into()),
                    Some(src),
                );
            }
            Hit::Bound(_) | Hit::External | Hit::NotFound { closed: false } => {}
            Hit::NotFound { closed: true } => {
                if OBJECT_MEMBERS.contains(&name) {
                    return;
                }
                // Narrowing (`isinstance`) may have made the receiver a subclass that declares
                // the attribute: its candidates, by name.
                if self.name_only(m, from, name, usage, line, column, false) {
                    return;
                }
                let owner = match &recv {
                    Recv::Members(tm, td) | Recv::SuperOf(tm, td) => {
                        self.mods[*tm].py.decls[*td].qn.clone()
                    }
                    _ => "the receiver's type".into(),
                };
                let own = self.own_name(m);
                let src = self.source_of(m, from);
                self.unresolved(
                    m,
                    line,
                    column,
                    NAME_NOT_RESOLVED,
                    own,
                    Some(name.to_string()),
                    Some(format!("{owner} and its bases declare no {name}")),
                    Some(src),
                );
            }
            Hit::Unknown => {
                self.name_only(m, from, name, usage, line, column, true);
            }
        }
    }

    /// Candidates for attribute `name` by name only: every class member of that name in the
    /// module and the modules it imports, when there are 1 to 8. Returns whether there were;
    /// with `record`, none (or too many) is recorded as `RECEIVER_TYPE_UNKNOWN`.
    #[allow(clippy::too_many_arguments)]
    fn name_only(
        &mut self,
        m: usize,
        from: Option<usize>,
        name: &str,
        usage: Use,
        line: u32,
        column: u32,
        record: bool,
    ) -> bool {
        let mut cands: Vec<(usize, usize)> = Vec::new();
        let mut scan = vec![m];
        scan.extend(self.imported[m].iter().copied());
        for sm in scan {
            if let Some(v) = self.member_index[sm].get(name) {
                cands.extend(v.iter().map(|&d| (sm, d)));
            }
        }
        let detail = match emit::name_only(cands, &RECEIVER_WORDS) {
            NameOnly::Candidates(cands) => {
                for c in cands {
                    self.edge(
                        m,
                        from,
                        c,
                        usage,
                        line,
                        column,
                        Provenance::PyNameOnly,
                        Some(Confidence::Candidate),
                    );
                }
                return true;
            }
            NameOnly::Unresolved(detail) => detail,
        };
        if record {
            let own = self.own_name(m);
            let src = self.source_of(m, from);
            self.unresolved(
                m,
                line,
                column,
                RECEIVER_TYPE_UNKNOWN,
                own,
                Some(name.to_string()),
                Some(detail),
                Some(src),
            );
        }
        false
    }

    fn structural(&mut self, m: usize) {
        for d in 0..self.mods[m].py.decls.len() {
            let (kind, parent, name, line, column) = {
                let x = &self.mods[m].py.decls[d];
                (
                    x.kind,
                    x.parent,
                    x.name.clone(),
                    x.span.start_line,
                    x.span.start_column,
                )
            };
            let Some(p) = parent else { continue };
            if self.mods[m].py.decls[p].kind != SymbolKind::Class || !is_method(kind) {
                continue;
            }
            let file = Some(self.mods[m].file);
            self.facts.edges.push(Edge {
                source: self.mods[m].syms[d],
                target: self.mods[m].syms[p],
                kind: EdgeKind::MethodOf,
                confidence: Confidence::StructuralCertain,
                provenance: Provenance::PyDeclaration,
                file,
                line,
                column,
            });
            if name == "__init__" && kind != SymbolKind::Method {
                continue;
            }
            if let Hit::Decls(v, true) = self.members_named(&Recv::SuperOf(m, p), &name, 0)
                && is_method(self.mods[v[0].0].py.decls[v[0].1].kind)
            {
                let target = self.mods[v[0].0].syms[v[0].1];
                self.facts.edges.push(Edge {
                    source: self.mods[m].syms[d],
                    target,
                    kind: EdgeKind::Overrides,
                    confidence: Confidence::StructuralCertain,
                    provenance: Provenance::PyDeclaration,
                    file,
                    line,
                    column,
                });
            }
        }
    }
}
