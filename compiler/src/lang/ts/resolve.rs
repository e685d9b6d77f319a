//! Phase 2 of TypeScript/JavaScript: symbols and packages, module specifiers, exports through
//! re-export chains, and the binding of every reference phase 1 left open.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::extract::{Decl, Expr, ImportKind, NameRes, RefTarget, TsFile, TypeRef, Use, is_global};
use super::project::{Project, Resolved, split_package};
use super::{
    AMBIGUOUS_PACKAGE_PROVIDER, DECLARATION_NOT_FOUND, EXPORT_NOT_FOUND, MAX_CANDIDATES,
    MODULE_NOT_RESOLVED, PACKAGE_PROVIDER_NOT_FOUND, RECEIVER_TYPE_UNKNOWN,
};
use crate::facts::{
    Edge, FactSet, FileId, Package, PackageEdge, RepoId, Symbol, SymbolId, Unresolved,
};
use crate::lang::{UnionHit, UnionPart, union_hit};

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
            module_sym: 0,
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

/// The declarations a member name denotes on a receiver.
enum Hit {
    /// `exact`: the receiver's type leaves no other choice (a union where only one member
    /// type declares the name, and every other member type is fully known).
    Decls(Vec<(usize, usize)>, bool),
    Module(Bound),
    External,
    NotFound {
        closed: bool,
    },
    Unknown,
}

enum Lookup {
    Found(usize, usize),
    /// Not declared; `closed` when every base type was followed.
    NotFound {
        closed: bool,
    },
}

const MAX_DEPTH: usize = 64;

/// Members every object has from `Object.prototype`, and every function from
/// `Function.prototype`: missing from a declaration, they are not a resolution failure.
const OBJECT_MEMBERS: &[&str] = &[
    "prototype",
    "name",
    "length",
    "call",
    "apply",
    "bind",
    "arguments",
    "caller",
    "constructor",
    "toString",
    "toLocaleString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
];

pub struct Resolver<'f> {
    facts: &'f mut FactSet,
    mods: Vec<Module>,
    project: Project,
    export_memo: RefCell<HashMap<(usize, String, Meaning), Bound>>,
    /// Exports being computed, and whether a computation met one of them (a cycle).
    export_busy: RefCell<HashSet<(usize, String, Meaning)>>,
    export_cut: std::cell::Cell<bool>,
    /// Top-level declarations of script files (no import or export), visible to every file of
    /// their repository, by (repository, name).
    script_globals: HashMap<(RepoId, String), Vec<(usize, usize)>>,
    /// Members of classes, interfaces, enums and type aliases by name, per module.
    member_index: Vec<HashMap<String, Vec<usize>>>,
    /// Modules each module imports.
    imported: Vec<Vec<usize>>,
    /// Merged declarations: (module, qualified name) → decls.
    merged: Vec<HashMap<String, Vec<usize>>>,
}

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

impl<'f> Resolver<'f> {
    pub fn new(facts: &'f mut FactSet, mut mods: Vec<Module>, project: Project) -> Resolver<'f> {
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
                let mut idx: HashMap<String, Vec<usize>> = HashMap::new();
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
                let set: BTreeSet<usize> = m
                    .specs
                    .iter()
                    .filter_map(|r| match r {
                        Resolved::Module(t) if *t != i => Some(*t),
                        _ => None,
                    })
                    .collect();
                set.into_iter().collect()
            })
            .collect();
        let merged = mods
            .iter()
            .map(|m| {
                let mut idx: HashMap<String, Vec<usize>> = HashMap::new();
                for (i, d) in m.ts.decls.iter().enumerate() {
                    if is_type_container(d.kind) || d.kind == SymbolKind::Function {
                        idx.entry(d.qn.clone()).or_default().push(i);
                    }
                }
                idx.retain(|_, v| v.len() > 1);
                idx
            })
            .collect();
        let mut script_globals = HashMap::new();
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
        Resolver {
            facts,
            mods,
            project,
            export_memo: RefCell::new(HashMap::new()),
            export_busy: RefCell::new(HashSet::new()),
            export_cut: std::cell::Cell::new(false),
            script_globals,
            member_index,
            imported,
            merged,
        }
    }

    pub fn run(mut self) {
        self.symbols();
        for m in 0..self.mods.len() {
            self.specifier_facts(m);
            self.references(m);
            self.structural(m);
        }
    }

    // ------------------------------------------------------------------ symbols

    fn symbols(&mut self) {
        for m in &mut self.mods {
            let module = self
                .project
                .package_of(m.repo, &m.path)
                .and_then(|p| self.project.packages[p].name.clone());
            let pid = self.facts.packages.len();
            self.facts.packages.push(Package {
                repo: m.repo,
                language: m.language,
                name: m.path.clone(),
                path: m.path.clone(),
                module,
            });
            self.facts.files[m.file].package = Some(pid);
            let lines = self.facts.files[m.file].lines.max(1);
            let size = self.facts.files[m.file].size as u32;
            m.module_sym = self.facts.symbols.len();
            self.facts.symbols.push(Symbol {
                repo: m.repo,
                package: pid,
                file: m.file,
                language: m.language,
                name: m.path.rsplit('/').next().unwrap_or(&m.path).to_string(),
                qualified_name: m.path.clone(),
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
            m.syms = Vec::with_capacity(m.ts.decls.len());
            for d in &m.ts.decls {
                m.syms.push(self.facts.symbols.len());
                self.facts.symbols.push(Symbol {
                    repo: m.repo,
                    package: pid,
                    file: m.file,
                    language: m.language,
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
        }
    }

    // ------------------------------------------------------------------ specifiers

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
        self.facts.unresolved.push(Unresolved {
            repo: md.repo,
            file: Some(md.file),
            line,
            column,
            language: md.language,
            reason: reason.into(),
            requested_package: package,
            requested_symbol: symbol,
            detail,
            source: Some(source.unwrap_or(md.module_sym)),
        });
    }

    fn specifier_facts(&mut self, m: usize) {
        let mut deps = BTreeSet::new();
        for si in 0..self.mods[m].ts.specifiers.len() {
            let s = self.mods[m].ts.specifiers[si].clone();
            match self.mods[m].specs[si].clone() {
                Resolved::Module(t) => {
                    if t != m {
                        deps.insert(t);
                    }
                }
                Resolved::PackageNotFound(p) => self.unresolved(
                    m,
                    s.line,
                    s.column,
                    PACKAGE_PROVIDER_NOT_FOUND,
                    p,
                    None,
                    Some(format!("import \"{}\"", s.spec)),
                    None,
                ),
                Resolved::AmbiguousPackage(p) => self.unresolved(
                    m,
                    s.line,
                    s.column,
                    AMBIGUOUS_PACKAGE_PROVIDER,
                    p,
                    None,
                    Some(format!(
                        "import \"{}\": several repositories provide the package",
                        s.spec
                    )),
                    None,
                ),
                Resolved::NotFound => {
                    let (name, _) = split_package(&s.spec);
                    let _ = name;
                    self.unresolved(
                        m,
                        s.line,
                        s.column,
                        MODULE_NOT_RESOLVED,
                        s.spec.clone(),
                        None,
                        Some("no compiled file matches the specifier".into()),
                        None,
                    )
                }
            }
        }
        let src_pkg = self.facts.files[self.mods[m].file].package.unwrap_or(0);
        for t in deps {
            let tgt_pkg = self.facts.files[self.mods[t].file].package.unwrap_or(0);
            self.facts.package_edges.push(PackageEdge {
                source: src_pkg,
                target: tgt_pkg,
                kind: EdgeKind::PackageDependsOn,
                confidence: self.exact(m, t),
                provenance: Provenance::TsImport,
            });
        }
    }

    fn exact(&self, from: usize, to: usize) -> Confidence {
        if self.mods[from].repo == self.mods[to].repo {
            Confidence::ExactDeclarationMapped
        } else {
            Confidence::ExactPackageMapped
        }
    }

    // ------------------------------------------------------------------ binding

    /// What export `name` of module `m` is, in the wanted meaning.
    fn export_of(&self, m: usize, name: &str, meaning: Meaning, depth: usize) -> Bound {
        let key = (m, name.to_string(), meaning);
        if let Some(b) = self.export_memo.borrow().get(&key) {
            return *b;
        }
        if depth > MAX_DEPTH {
            // Cut: what is computed above this point must not be kept.
            self.export_cut.set(true);
            return Bound::Missing;
        }
        // Cut cycles: a module that re-exports itself, directly or not, finds nothing the
        // second time round. A result that met a cut is not kept, since it depends on where the
        // search started.
        if !self.export_busy.borrow_mut().insert(key.clone()) {
            self.export_cut.set(true);
            return Bound::Missing;
        }
        let outer_cut = self.export_cut.replace(false);
        let b = self.compute_export(m, name, meaning, depth);
        let cut = self.export_cut.get();
        self.export_cut.set(outer_cut || cut);
        self.export_busy.borrow_mut().remove(&key);
        if !cut || b != Bound::Missing {
            self.export_memo.borrow_mut().insert(key, b);
        }
        b
    }

    /// The first of `found` that has the wanted meaning, else the first found at all.
    fn prefer(&self, found: &mut Option<Bound>, b: Bound, meaning: Meaning) -> bool {
        if b == Bound::Missing {
            return false;
        }
        if self.bound_fits(b, meaning) {
            *found = Some(b);
            return true;
        }
        if found.is_none() {
            *found = Some(b);
        }
        false
    }

    fn bound_fits(&self, b: Bound, meaning: Meaning) -> bool {
        match b {
            Bound::Decl(tm, td) => fits(self.mods[tm].ts.decls[td].kind, meaning),
            _ => true,
        }
    }

    fn compute_export(&self, m: usize, name: &str, meaning: Meaning, depth: usize) -> Bound {
        let f = &self.mods[m].ts;
        let mut found = None;
        for (_, res) in f.exports.iter().filter(|(n, _)| n == name) {
            let b = self.bind_res(m, res, meaning, depth + 1);
            if self.prefer(&mut found, b, meaning) {
                return b;
            }
        }
        for r in &f.reexports {
            for it in r.items.iter().filter(|it| it.alias == name) {
                let b = match &self.mods[m].specs[r.statement] {
                    Resolved::Module(t) => {
                        self.export_of(*t, it.name.as_deref().unwrap_or(name), meaning, depth + 1)
                    }
                    Resolved::NotFound => Bound::Missing,
                    _ => Bound::External,
                };
                if self.prefer(&mut found, b, meaning) {
                    return b;
                }
            }
            if r.star_as.as_deref() == Some(name) {
                let b = match &self.mods[m].specs[r.statement] {
                    Resolved::Module(t) => Bound::Module(*t),
                    Resolved::NotFound => Bound::Missing,
                    _ => Bound::External,
                };
                if self.prefer(&mut found, b, meaning) {
                    return b;
                }
            }
        }
        if let Some(b) = found {
            return b;
        }
        if name != "default" {
            let mut external = false;
            for r in &f.reexports {
                if !r.star {
                    continue;
                }
                match &self.mods[m].specs[r.statement] {
                    Resolved::Module(t) => {
                        let b = self.export_of(*t, name, meaning, depth + 1);
                        if self.prefer(&mut found, b, meaning) {
                            return b;
                        }
                    }
                    Resolved::NotFound => {}
                    _ => external = true,
                }
            }
            if let Some(b) = found {
                return b;
            }
            if external {
                return Bound::External;
            }
            // `export = X`: X's members are the module's names.
            if let Some(eq) = &f.export_equals
                && *eq != Expr::External
            {
                return match self.eval(m, eq, depth + 1) {
                    Recv::Members(tm, td) => match self.lookup_member(tm, td, name, depth + 1) {
                        Lookup::Found(a, b) => Bound::Decl(a, b),
                        Lookup::NotFound { closed: true } => Bound::Missing,
                        Lookup::NotFound { closed: false } => Bound::External,
                    },
                    Recv::Module(t) => self.export_of(t, name, meaning, depth + 1),
                    Recv::External => Bound::External,
                    _ => Bound::Missing,
                };
            }
        }
        Bound::Missing
    }

    /// The module a namespace import or `require` of module `t` denotes: its `export =` value
    /// when it has one.
    fn namespace_of(&self, t: usize, meaning: Meaning, depth: usize) -> Bound {
        match &self.mods[t].ts.export_equals {
            Some(eq) if *eq != Expr::External => match eq {
                Expr::Name(res) => self.bind_res(t, res, meaning, depth + 1),
                _ => Bound::Module(t),
            },
            _ => Bound::Module(t),
        }
    }

    fn import_target(&self, m: usize, i: usize, meaning: Meaning, depth: usize) -> Bound {
        let im = &self.mods[m].ts.imports[i];
        match &self.mods[m].specs[im.statement] {
            Resolved::Module(t) => {
                let t = *t;
                match &im.kind {
                    ImportKind::Named(n) => self.export_of(t, n, meaning, depth + 1),
                    ImportKind::Default => match self.export_of(t, "default", meaning, depth + 1) {
                        Bound::Missing => self.namespace_of(t, meaning, depth),
                        b => b,
                    },
                    ImportKind::Namespace | ImportKind::Require => {
                        self.namespace_of(t, meaning, depth)
                    }
                }
            }
            Resolved::NotFound => Bound::Missing,
            _ => Bound::External,
        }
    }

    fn bind_res(&self, m: usize, res: &NameRes, meaning: Meaning, depth: usize) -> Bound {
        if depth > MAX_DEPTH {
            self.export_cut.set(true);
            return Bound::Missing;
        }
        match res {
            NameRes::Decl(d) => {
                let f = &self.mods[m].ts;
                let decl = &f.decls[*d];
                if fits(decl.kind, meaning) {
                    return Bound::Decl(m, *d);
                }
                // Declaration merging: the same name in the same scope with the wanted meaning.
                let sibling = match decl.parent {
                    Some(p) => f.decls[p]
                        .members
                        .get(&decl.name)
                        .and_then(|v| v.iter().copied().find(|&x| fits(f.decls[x].kind, meaning))),
                    None => f.scope.get(&decl.name).and_then(|v| {
                        v.iter().find_map(|r| match r {
                            NameRes::Decl(x) if fits(f.decls[*x].kind, meaning) => Some(*x),
                            _ => None,
                        })
                    }),
                };
                Bound::Decl(m, sibling.unwrap_or(*d))
            }
            NameRes::Import(i) => self.import_target(m, *i, meaning, depth),
            NameRes::Local(_) => Bound::Missing,
            NameRes::Unbound(n) => {
                if let Some(v) = self.script_globals.get(&(self.mods[m].repo, n.clone())) {
                    // Declared by several script files: not one declaration.
                    match v[..] {
                        [(gm, gd)] => Bound::Decl(gm, gd),
                        _ => Bound::External,
                    }
                } else if is_global(n) {
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
                let local = &self.mods[m].ts.locals[*l];
                if let Some(t) = &local.ty {
                    // A variable typed by a type parameter in scope (`x: T`, `T extends Base`)
                    // has the constraint's members. Only here: a type parameter reached
                    // through another declaration's signature stands for its instantiation.
                    if let TypeRef::Named {
                        head: NameRes::Local(tp),
                        path,
                        ..
                    } = t
                        && path.is_empty()
                        && let Some(c) = &self.mods[m].ts.locals[*tp].ty
                    {
                        return self.type_recv(m, c, depth + 1);
                    }
                    self.type_recv(m, t, depth + 1)
                } else if let Some(v) = &local.value {
                    self.eval(m, v, depth + 1)
                } else {
                    Recv::Unknown
                }
            }
            Expr::Name(res) => {
                self.value_recv(self.bind_res(m, res, Meaning::Value, depth + 1), depth + 1)
            }
            Expr::This(Some(c)) => Recv::Members(m, *c),
            Expr::This(None) | Expr::Super(None) => Recv::Unknown,
            Expr::Super(Some(c)) => match self.mods[m].ts.decls[*c].extends.first() {
                Some(t) => self.type_recv(m, t, depth + 1),
                None => Recv::Unknown,
            },
            Expr::ContextParam { ty, param } => {
                match self.fn_param(m, ty.clone(), *param, depth + 1) {
                    Some((tm, t)) => self.type_recv(tm, &t, depth + 1),
                    None => Recv::Unknown,
                }
            }
            Expr::CallbackParam { callee, arg, param } => {
                match self.callback_param(m, callee, *arg, *param, depth + 1) {
                    Some((tm, t)) => self.type_recv(tm, &t, depth + 1),
                    None => Recv::Unknown,
                }
            }
            Expr::Member(base, name) => match self.eval(m, base, depth + 1) {
                // `C.prototype` has the instance members of C.
                Recv::Members(tm, td)
                    if name == "prototype"
                        && self.mods[tm].ts.decls[td].kind == SymbolKind::Class =>
                {
                    Recv::Members(tm, td)
                }
                Recv::Object(om, props) => match props.iter().find(|(n, _)| n == name) {
                    Some((_, Some(t))) => self.type_recv(om, t, depth + 1),
                    Some((_, None)) => Recv::Unknown,
                    None => Recv::External,
                },
                recv => match self.members_named(&recv, name, Meaning::Value, depth + 1) {
                    Hit::Decls(v, _) if v.len() == 1 => {
                        self.value_recv(Bound::Decl(v[0].0, v[0].1), depth + 1)
                    }
                    Hit::Decls(v, _) => Recv::Union(
                        v.into_iter()
                            .map(|(a, b)| self.value_recv(Bound::Decl(a, b), depth + 1))
                            .collect(),
                    ),
                    Hit::Module(b) => self.value_recv(b, depth + 1),
                    Hit::External | Hit::NotFound { closed: false } => Recv::External,
                    Hit::NotFound { closed: true } | Hit::Unknown => Recv::Unknown,
                },
            },
            Expr::Call(callee) => match self.callee(m, callee, depth + 1) {
                Bound::Decl(cm, cd) if self.mods[cm].ts.decls[cd].overloads > 1 => Recv::Unknown,
                Bound::Decl(cm, cd) => match &self.mods[cm].ts.decls[cd].ret {
                    // `m(): this` returns its receiver.
                    Some(TypeRef::This) => match &**callee {
                        Expr::Member(base, _) => self.eval(m, base, depth + 1),
                        _ => Recv::Unknown,
                    },
                    Some(t) => self.type_recv(cm, t, depth + 1),
                    None => Recv::Unknown,
                },
                Bound::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::New(callee) => match self.callee(m, callee, depth + 1) {
                Bound::Decl(cm, cd) if self.mods[cm].ts.decls[cd].kind == SymbolKind::Class => {
                    Recv::Members(cm, cd)
                }
                Bound::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::Typed(t) => self.type_recv(m, t, depth + 1),
            Expr::Elem(inner) => match self.eval(m, inner, depth + 1) {
                Recv::Array(x) => *x,
                Recv::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::Await(inner) => match self.eval(m, inner, depth + 1) {
                Recv::Promise(x) => *x,
                other => other,
            },
            Expr::JsxProps(comp) => match self.callee(m, comp, depth + 1) {
                Bound::Decl(cm, cd) => match self.mods[cm].ts.decls[cd].params.first() {
                    Some(Some(t)) => self.type_recv(cm, t, depth + 1),
                    _ => Recv::Unknown,
                },
                Bound::External => Recv::External,
                _ => Recv::Unknown,
            },
        }
    }

    /// The written type of parameter `param` of the function passed as argument `arg` to
    /// `callee`: the callee's declared parameter type, when it is a function type (directly or
    /// through a type alias). A class callee means its constructor.
    fn callback_param(
        &self,
        m: usize,
        callee: &Expr,
        arg: usize,
        param: usize,
        depth: usize,
    ) -> Option<(usize, TypeRef)> {
        let Bound::Decl(mut cm, mut cd) = self.callee(m, callee, depth + 1) else {
            return None;
        };
        if self.mods[cm].ts.decls[cd].kind == SymbolKind::Class {
            match self.lookup_member(cm, cd, "constructor", depth + 1) {
                Lookup::Found(a, b) => (cm, cd) = (a, b),
                _ => return None,
            }
        }
        if self.mods[cm].ts.decls[cd].overloads > 1 {
            return None;
        }
        let t = self.mods[cm].ts.decls[cd].params.get(arg)?.clone()?;
        self.fn_param(cm, t, param, depth + 1)
    }

    /// The written type of parameter `param` of the function type `t` (written in module
    /// `m`), followed through type aliases.
    fn fn_param(
        &self,
        m: usize,
        t: TypeRef,
        param: usize,
        depth: usize,
    ) -> Option<(usize, TypeRef)> {
        let (mut t, mut tm) = (t, m);
        for _ in 0..MAX_DEPTH {
            match t {
                TypeRef::Fn(ps) => return Some((tm, ps.get(param)?.clone()?)),
                TypeRef::Named {
                    ref head, ref path, ..
                } if path.is_empty() => match self.bind_res(tm, head, Meaning::Type, depth + 1) {
                    Bound::Decl(am, ad)
                        if self.mods[am].ts.decls[ad].kind == SymbolKind::TypeAlias =>
                    {
                        t = self.mods[am].ts.decls[ad].ty.clone()?;
                        tm = am;
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
        None
    }

    /// The declaration an expression in callee position denotes.
    fn callee(&self, m: usize, e: &Expr, depth: usize) -> Bound {
        if depth > MAX_DEPTH {
            return Bound::Missing;
        }
        match e {
            Expr::Name(NameRes::Local(_)) => Bound::Missing,
            Expr::Name(res) => self.bind_res(m, res, Meaning::Value, depth + 1),
            Expr::Member(base, name) => {
                match self.members_named(
                    &self.eval(m, base, depth + 1),
                    name,
                    Meaning::Value,
                    depth + 1,
                ) {
                    Hit::Decls(v, true) => Bound::Decl(v[0].0, v[0].1),
                    Hit::Module(b) => b,
                    Hit::External | Hit::NotFound { closed: false } => Bound::External,
                    _ => Bound::Missing,
                }
            }
            Expr::External => Bound::External,
            _ => Bound::Missing,
        }
    }

    /// The members a value bound to `b` has.
    fn value_recv(&self, b: Bound, depth: usize) -> Recv {
        if depth > MAX_DEPTH {
            return Recv::Unknown;
        }
        match b {
            Bound::Decl(m, d) => {
                let decl = &self.mods[m].ts.decls[d];
                match decl.kind {
                    SymbolKind::Class | SymbolKind::Enum | SymbolKind::Namespace => {
                        Recv::Members(m, d)
                    }
                    SymbolKind::Variable
                    | SymbolKind::Constant
                    | SymbolKind::Field
                    | SymbolKind::Property => {
                        if let Some(t) = &decl.ty {
                            self.type_recv(m, t, depth + 1)
                        } else if let Some(v) = &decl.value {
                            self.eval(m, v, depth + 1)
                        } else if decl.kind == SymbolKind::Property {
                            // A getter: its declared return type.
                            match &decl.ret {
                                Some(t) => self.type_recv(m, t, depth + 1),
                                None => Recv::Unknown,
                            }
                        } else {
                            Recv::Unknown
                        }
                    }
                    SymbolKind::Function | SymbolKind::Method => {
                        // A function merged with a namespace has the namespace's members;
                        // any other function object has only the library's.
                        match self.merged[m].get(&decl.qn).and_then(|g| {
                            g.iter()
                                .find(|&&x| self.mods[m].ts.decls[x].kind == SymbolKind::Namespace)
                        }) {
                            Some(&ns) => Recv::Members(m, ns),
                            None => Recv::External,
                        }
                    }
                    _ => Recv::Unknown,
                }
            }
            Bound::Module(t) => Recv::Module(t),
            Bound::External => Recv::External,
            Bound::Missing => Recv::Unknown,
        }
    }

    /// The members a value of written type `t` has.
    fn type_recv(&self, m: usize, t: &TypeRef, depth: usize) -> Recv {
        if depth > MAX_DEPTH {
            return Recv::Unknown;
        }
        match t {
            TypeRef::External => Recv::External,
            TypeRef::Unknown | TypeRef::This => Recv::Unknown,
            TypeRef::Fn(_) => Recv::External,
            TypeRef::Union(ts) => {
                Recv::Union(ts.iter().map(|t| self.type_recv(m, t, depth + 1)).collect())
            }
            TypeRef::Intersection(ts) => {
                Recv::All(ts.iter().map(|t| self.type_recv(m, t, depth + 1)).collect())
            }
            TypeRef::Object(props) => Recv::Object(m, props.clone()),
            TypeRef::Array(x) => Recv::Array(Box::new(self.type_recv(m, x, depth + 1))),
            TypeRef::Named { head, path, args } => {
                if let NameRes::Unbound(n) = head
                    && path.is_empty()
                {
                    return match n.as_str() {
                        "Promise" | "PromiseLike" if args.len() == 1 => {
                            Recv::Promise(Box::new(self.type_recv(m, &args[0], depth + 1)))
                        }
                        "Array" | "ReadonlyArray" if args.len() == 1 => {
                            Recv::Array(Box::new(self.type_recv(m, &args[0], depth + 1)))
                        }
                        // Mapped types that keep the members of their argument.
                        "Partial" | "Required" | "Readonly" | "NonNullable" | "Pick" | "Omit"
                            if !args.is_empty() =>
                        {
                            self.type_recv(m, &args[0], depth + 1)
                        }
                        n if is_global(n) => Recv::External,
                        _ => Recv::Unknown,
                    };
                }
                if let NameRes::Local(_) = head {
                    return Recv::Unknown;
                }
                let head_meaning = if path.is_empty() {
                    Meaning::Type
                } else {
                    Meaning::Any
                };
                let mut b = self.bind_res(m, head, head_meaning, depth + 1);
                for (i, seg) in path.iter().enumerate() {
                    let meaning = if i + 1 == path.len() {
                        Meaning::Type
                    } else {
                        Meaning::Any
                    };
                    b = match b {
                        Bound::Module(t) => self.export_of(t, seg, meaning, depth + 1),
                        Bound::Decl(bm, bd) => match self.lookup_member(bm, bd, seg, depth + 1) {
                            Lookup::Found(a, c) => Bound::Decl(a, c),
                            _ => Bound::Missing,
                        },
                        other => other,
                    };
                }
                match b {
                    Bound::Decl(bm, bd) => {
                        let d = &self.mods[bm].ts.decls[bd];
                        match d.kind {
                            SymbolKind::Class | SymbolKind::Interface | SymbolKind::Enum => {
                                Recv::Members(bm, bd)
                            }
                            SymbolKind::TypeAlias => match &d.ty {
                                Some(t) => self.type_recv(bm, t, depth + 1),
                                None => Recv::Members(bm, bd),
                            },
                            _ => Recv::Unknown,
                        }
                    }
                    Bound::External => Recv::External,
                    _ => Recv::Unknown,
                }
            }
        }
    }

    /// What member `name` of a receiver denotes.
    fn members_named(&self, recv: &Recv, name: &str, meaning: Meaning, depth: usize) -> Hit {
        if depth > MAX_DEPTH {
            return Hit::Unknown;
        }
        match recv {
            Recv::Members(tm, td)
                if name == "prototype"
                    && self.mods[*tm].ts.decls[*td].kind == SymbolKind::Class =>
            {
                Hit::External
            }
            Recv::Members(tm, td) => match self.lookup_member(*tm, *td, name, depth + 1) {
                Lookup::Found(a, b) => Hit::Decls(vec![(a, b)], true),
                Lookup::NotFound { closed } => Hit::NotFound { closed },
            },
            Recv::Module(t) => Hit::Module(self.export_of(*t, name, meaning, depth + 1)),
            Recv::External | Recv::Array(_) | Recv::Promise(_) | Recv::Object(..) => Hit::External,
            Recv::Unknown => Hit::Unknown,
            Recv::All(parts) => {
                let mut closed = true;
                let mut external = false;
                let mut unknown = false;
                for p in parts {
                    match self.members_named(p, name, meaning, depth + 1) {
                        h @ (Hit::Decls(..) | Hit::Module(_)) => return h,
                        Hit::NotFound { closed: c } => closed &= c,
                        Hit::External => external = true,
                        Hit::Unknown => unknown = true,
                    }
                }
                // A part whose members are unknown may declare the name.
                if unknown {
                    Hit::Unknown
                } else if external {
                    Hit::External
                } else {
                    Hit::NotFound { closed }
                }
            }
            Recv::Union(parts) => {
                let answers =
                    parts
                        .iter()
                        .map(|p| match self.members_named(p, name, meaning, depth + 1) {
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

    /// Member `name` of the container `d` of module `m`, through merged declarations and
    /// `extends`.
    fn lookup_member(&self, m: usize, d: usize, name: &str, depth: usize) -> Lookup {
        let mut visited = HashSet::new();
        self.lookup_in(m, d, name, depth, &mut visited)
    }

    fn lookup_in(
        &self,
        m: usize,
        d: usize,
        name: &str,
        depth: usize,
        visited: &mut HashSet<(usize, usize)>,
    ) -> Lookup {
        if depth > MAX_DEPTH {
            return Lookup::NotFound { closed: false };
        }
        let f = &self.mods[m].ts;
        let group: Vec<usize> = self.merged[m]
            .get(&f.decls[d].qn)
            .cloned()
            .unwrap_or_else(|| vec![d]);
        for &g in &group {
            if !visited.insert((m, g)) {
                continue;
            }
            if let Some(v) = f.decls[g].members.get(name)
                && let Some(&x) = v.first()
            {
                return Lookup::Found(m, x);
            }
        }
        let mut closed = true;
        for &g in &group {
            let decl: &Decl = &f.decls[g];
            if decl.open {
                closed = false;
            }
            let bases: Vec<&TypeRef> = if decl.kind == SymbolKind::TypeAlias {
                decl.ty.iter().collect()
            } else if decl.kind == SymbolKind::Class || decl.kind == SymbolKind::Interface {
                decl.extends.iter().collect()
            } else {
                Vec::new()
            };
            for t in bases {
                match self.type_recv(m, t, depth + 1) {
                    Recv::Members(bm, bd) => {
                        if visited.contains(&(bm, bd)) {
                            continue;
                        }
                        match self.lookup_in(bm, bd, name, depth + 1, visited) {
                            Lookup::Found(a, b) => return Lookup::Found(a, b),
                            Lookup::NotFound { closed: c } => closed &= c,
                        }
                    }
                    _ => closed = false,
                }
            }
        }
        Lookup::NotFound { closed }
    }

    // ------------------------------------------------------------------ references

    fn edge_kind(usage: Use, target: SymbolKind) -> EdgeKind {
        match usage {
            Use::Import => EdgeKind::ImportsSymbol,
            Use::Export => EdgeKind::Exports,
            Use::Reexport => EdgeKind::Reexports,
            Use::Extends => EdgeKind::Extends,
            Use::Implements => EdgeKind::Implements,
            Use::Type | Use::TypeOf => EdgeKind::TypeUses,
            Use::Call => EdgeKind::CallsDirect,
            Use::Argument if matches!(target, SymbolKind::Function | SymbolKind::Method) => {
                EdgeKind::PassesAsCallback
            }
            Use::Argument | Use::Value | Use::Jsx => EdgeKind::References,
        }
    }

    fn sym(&self, m: usize, d: usize) -> SymbolId {
        self.mods[m].syms[d]
    }

    fn source_of(&self, m: usize, from: Option<usize>) -> SymbolId {
        match from {
            Some(d) => self.sym(m, d),
            None => self.mods[m].module_sym,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        m: usize,
        from: Option<usize>,
        target: (usize, usize),
        usage: Use,
        line: u32,
        column: u32,
        provenance: Provenance,
        confidence: Option<Confidence>,
    ) {
        let (tm, td) = target;
        let kind = Self::edge_kind(usage, self.mods[tm].ts.decls[td].kind);
        let structural = matches!(usage, Use::Extends | Use::Implements)
            && from.is_some_and(|d| {
                matches!(
                    self.mods[m].ts.decls[d].kind,
                    SymbolKind::Class | SymbolKind::Interface
                )
            })
            && confidence.is_none();
        let (confidence, provenance) = if structural {
            (Confidence::StructuralCertain, Provenance::TsDeclaration)
        } else {
            (confidence.unwrap_or_else(|| self.exact(m, tm)), provenance)
        };
        let e = Edge {
            source: self.source_of(m, from),
            target: self.sym(tm, td),
            kind,
            confidence,
            provenance,
            file: Some(self.mods[m].file),
            line,
            column,
        };
        self.facts.edges.push(e);
    }

    /// The meanings a use wants: one for most uses, both for the names of import and export
    /// specifiers, which carry every meaning of the name.
    fn meanings(&self, m: usize, usage: Use, from: Option<usize>) -> &'static [Meaning] {
        match usage {
            Use::Type | Use::Implements => &[Meaning::Type],
            Use::TypeOf => &[Meaning::Value],
            Use::Extends => {
                if from.is_some_and(|d| self.mods[m].ts.decls[d].kind == SymbolKind::Interface) {
                    &[Meaning::Type]
                } else {
                    &[Meaning::Value]
                }
            }
            Use::Import | Use::Export | Use::Reexport => &[Meaning::Value, Meaning::Type],
            Use::Value | Use::Call | Use::Argument | Use::Jsx => &[Meaning::Value],
        }
    }

    /// Binds once per wanted meaning; the distinct declarations found, or the first other
    /// outcome when none is a declaration.
    fn bind_all(&self, meanings: &[Meaning], mut f: impl FnMut(Meaning) -> Bound) -> Vec<Bound> {
        let mut decls: Vec<Bound> = Vec::new();
        let mut other = None;
        for &mn in meanings {
            let b = f(mn);
            match b {
                Bound::Decl(..) if self.bound_fits(b, mn) || meanings.len() == 1 => {
                    if !decls.contains(&b) {
                        decls.push(b);
                    }
                }
                Bound::Decl(..) => {
                    if other.is_none() {
                        other = Some(b);
                    }
                }
                _ => {
                    if other.is_none() {
                        other = Some(b);
                    }
                }
            }
        }
        if decls.is_empty() {
            decls.extend(other);
        }
        decls
    }

    /// Of the declarations merged with `d` (same qualified name, same module), the one that
    /// declares `member`; `d` itself when none or several do.
    fn holder_of(&self, m: usize, d: usize, member: &str) -> usize {
        let f = &self.mods[m].ts;
        let Some(group) = self.merged[m].get(&f.decls[d].qn) else {
            return d;
        };
        if f.decls[d].members.contains_key(member) {
            return d;
        }
        let holders: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&g| f.decls[g].members.contains_key(member))
            .collect();
        match holders[..] {
            [h] => h,
            _ => d,
        }
    }

    fn references(&mut self, m: usize) {
        let refs = std::mem::take(&mut self.mods[m].ts.refs);
        for r in &refs {
            let meanings = self.meanings(m, r.usage, r.from);
            match &r.target {
                RefTarget::Name(NameRes::Unbound(name), _)
                    if self
                        .script_globals
                        .get(&(self.mods[m].repo, name.clone()))
                        .is_some_and(|v| v.len() > 1) =>
                {
                    let v = self.script_globals[&(self.mods[m].repo, name.clone())].clone();
                    for x in v {
                        self.edge(
                            m,
                            r.from,
                            x,
                            r.usage,
                            r.line,
                            r.column,
                            Provenance::TsNameOnly,
                            Some(Confidence::Candidate),
                        );
                    }
                }
                RefTarget::Qualifier(res, member) => {
                    let prov = match res {
                        NameRes::Import(_) => Provenance::TsModuleBinding,
                        _ => Provenance::TsScope,
                    };
                    match self.bind_res(m, res, Meaning::Value, 0) {
                        Bound::Decl(tm, td) => {
                            let holder = self.holder_of(tm, td, member);
                            self.edge(
                                m,
                                r.from,
                                (tm, holder),
                                r.usage,
                                r.line,
                                r.column,
                                prov,
                                None,
                            )
                        }
                        Bound::Missing => {
                            if let NameRes::Unbound(name) = res {
                                let path = self.mods[m].path.clone();
                                let src = self.source_of(m, r.from);
                                self.unresolved(
                                    m,
                                    r.line,
                                    r.column,
                                    DECLARATION_NOT_FOUND,
                                    path,
                                    Some(name.clone()),
                                    Some(
                                        "declared nowhere in scope and not a standard global"
                                            .into(),
                                    ),
                                    Some(src),
                                );
                            }
                        }
                        _ => {}
                    }
                }
                RefTarget::Name(res, name) => {
                    let prov = match res {
                        NameRes::Import(_) => Provenance::TsModuleBinding,
                        _ => Provenance::TsScope,
                    };
                    for b in self.bind_all(meanings, |mn| self.bind_res(m, res, mn, 0)) {
                        match b {
                            Bound::Decl(tm, td) => self.edge(
                                m,
                                r.from,
                                (tm, td),
                                r.usage,
                                r.line,
                                r.column,
                                prov,
                                None,
                            ),
                            Bound::Missing => {
                                if let NameRes::Unbound(_) = res {
                                    let path = self.mods[m].path.clone();
                                    let src = self.source_of(m, r.from);
                                    self.unresolved(
                                        m,
                                        r.line,
                                        r.column,
                                        DECLARATION_NOT_FOUND,
                                        path,
                                        Some(name.clone()),
                                        Some(
                                            "declared nowhere in scope and not a standard global"
                                                .into(),
                                        ),
                                        Some(src),
                                    );
                                }
                            }
                            Bound::Module(_) | Bound::External => {}
                        }
                    }
                }
                RefTarget::Imported(i) => {
                    let i = *i;
                    for b in self.bind_all(meanings, |mn| self.import_target(m, i, mn, 0)) {
                        match b {
                            Bound::Decl(tm, td) => self.edge(
                                m,
                                None,
                                (tm, td),
                                Use::Import,
                                r.line,
                                r.column,
                                Provenance::TsModuleBinding,
                                None,
                            ),
                            Bound::Missing => {
                                let im = self.mods[m].ts.imports[i].clone();
                                if let Resolved::Module(t) = self.mods[m].specs[im.statement] {
                                    let name = match &im.kind {
                                        ImportKind::Named(n) => n.clone(),
                                        _ => "default".into(),
                                    };
                                    let tpath = self.mods[t].path.clone();
                                    self.unresolved(
                                        m,
                                        r.line,
                                        r.column,
                                        EXPORT_NOT_FOUND,
                                        tpath,
                                        Some(name),
                                        Some(format!("\"{}\" does not export it", im.spec)),
                                        None,
                                    );
                                }
                            }
                            _ => {}
                        }
                    }
                }
                RefTarget::Reexported(ri, ii) => {
                    let (statement, name) = {
                        let re = &self.mods[m].ts.reexports[*ri];
                        (re.statement, re.items[*ii].name.clone().unwrap_or_default())
                    };
                    if let Resolved::Module(t) = self.mods[m].specs[statement] {
                        for b in self.bind_all(meanings, |mn| self.export_of(t, &name, mn, 0)) {
                            match b {
                                Bound::Decl(tm, td) => self.edge(
                                    m,
                                    None,
                                    (tm, td),
                                    Use::Reexport,
                                    r.line,
                                    r.column,
                                    Provenance::TsModuleBinding,
                                    None,
                                ),
                                Bound::Missing => {
                                    let tpath = self.mods[t].path.clone();
                                    let spec = self.mods[m].ts.specifiers[statement].spec.clone();
                                    self.unresolved(
                                        m,
                                        r.line,
                                        r.column,
                                        EXPORT_NOT_FOUND,
                                        tpath,
                                        Some(name.clone()),
                                        Some(format!("\"{spec}\" does not export it")),
                                        None,
                                    );
                                }
                                _ => {}
                            }
                        }
                    }
                }
                RefTarget::Member(base, name) => {
                    self.member(m, r.from, base, name, r.usage, r.line, r.column)
                }
            }
        }
        self.mods[m].ts.refs = refs;
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
        let meaning = self.meanings(m, usage, from)[0];
        let hit = self.members_named(&recv, name, meaning, 0);
        match hit {
            Hit::Decls(v, exact) => {
                let prov = match &recv {
                    Recv::Members(tm, td)
                        if matches!(
                            self.mods[*tm].ts.decls[*td].kind,
                            SymbolKind::Namespace | SymbolKind::Enum
                        ) =>
                    {
                        Provenance::TsModuleBinding
                    }
                    _ if !exact => Provenance::TsUnionMember,
                    _ => Provenance::TsReceiverTyped,
                };
                let confidence = (!exact).then_some(Confidence::Candidate);
                for x in v {
                    self.edge(m, from, x, usage, line, column, prov, confidence);
                }
            }
            Hit::NotFound { closed: true } if !OBJECT_MEMBERS.contains(&name) => {
                let path = self.mods[m].path.clone();
                let owner = match &recv {
                    Recv::Members(tm, td) => self.mods[*tm].ts.decls[*td].qn.clone(),
                    _ => "the receiver's type".to_string(),
                };
                let src = self.source_of(m, from);
                self.unresolved(
                    m,
                    line,
                    column,
                    DECLARATION_NOT_FOUND,
                    path,
                    Some(name.to_string()),
                    Some(format!("{owner} declares no member {name}")),
                    Some(src),
                );
            }
            Hit::NotFound { .. } | Hit::External => {}
            Hit::Module(b) => {
                let Recv::Module(t) = recv else { return };
                match b {
                    Bound::Decl(a, b) => self.edge(
                        m,
                        from,
                        (a, b),
                        usage,
                        line,
                        column,
                        Provenance::TsModuleBinding,
                        None,
                    ),
                    Bound::Missing => {
                        let tpath = self.mods[t].path.clone();
                        let src = self.source_of(m, from);
                        self.unresolved(
                            m,
                            line,
                            column,
                            EXPORT_NOT_FOUND,
                            tpath,
                            Some(name.to_string()),
                            Some("the namespace's module does not export it".into()),
                            Some(src),
                        );
                    }
                    _ => {}
                }
            }
            Hit::Unknown => {
                if self.receiver_is_external(m, base) {
                    return;
                }
                let mut cands: Vec<(usize, usize)> = Vec::new();
                let mut scan = vec![m];
                scan.extend(self.imported[m].iter().copied());
                for sm in scan {
                    if let Some(v) = self.member_index[sm].get(name) {
                        cands.extend(v.iter().map(|&d| (sm, d)));
                    }
                }
                if !cands.is_empty() && cands.len() <= MAX_CANDIDATES {
                    for c in cands {
                        self.edge(
                            m,
                            from,
                            c,
                            usage,
                            line,
                            column,
                            Provenance::TsNameOnly,
                            Some(Confidence::Candidate),
                        );
                    }
                } else {
                    let path = self.mods[m].path.clone();
                    let src = self.source_of(m, from);
                    let detail = if cands.is_empty() {
                        "the receiver's type is not written and no visible type declares the member"
                            .to_string()
                    } else {
                        format!(
                            "the receiver's type is not written and {} visible members share the name",
                            cands.len()
                        )
                    };
                    self.unresolved(
                        m,
                        line,
                        column,
                        RECEIVER_TYPE_UNKNOWN,
                        path,
                        Some(name.to_string()),
                        Some(detail),
                        Some(src),
                    );
                }
            }
        }
    }

    /// Whether an unknown receiver hangs off something known to be outside the graph (an
    /// import of an unregistered package, a global), whose members are not guessed.
    fn receiver_is_external(&self, m: usize, e: &Expr) -> bool {
        match e {
            Expr::Name(res @ (NameRes::Import(_) | NameRes::Unbound(_))) => {
                self.bind_res(m, res, Meaning::Value, 0) == Bound::External
            }
            Expr::Member(b, _) | Expr::Call(b) | Expr::New(b) | Expr::Elem(b) | Expr::Await(b) => {
                self.receiver_is_external(m, b)
            }
            _ => false,
        }
    }

    // ------------------------------------------------------------------ structural

    fn structural(&mut self, m: usize) {
        let n = self.mods[m].ts.decls.len();
        for d in 0..n {
            let (kind, parent, line, column) = {
                let decl = &self.mods[m].ts.decls[d];
                (
                    decl.kind,
                    decl.parent,
                    decl.span.start_line,
                    decl.span.start_column,
                )
            };
            let Some(p) = parent else { continue };
            let pk = self.mods[m].ts.decls[p].kind;
            let method_like = kind == SymbolKind::Method
                || (kind == SymbolKind::Property && pk == SymbolKind::Class);
            if method_like && matches!(pk, SymbolKind::Class | SymbolKind::Interface) {
                self.facts.edges.push(Edge {
                    source: self.sym(m, d),
                    target: self.sym(m, p),
                    kind: EdgeKind::MethodOf,
                    confidence: Confidence::StructuralCertain,
                    provenance: Provenance::TsDeclaration,
                    file: Some(self.mods[m].file),
                    line,
                    column,
                });
            }
            if kind == SymbolKind::Method && pk == SymbolKind::Class {
                let name = self.mods[m].ts.decls[d].name.clone();
                if name == "constructor" {
                    continue;
                }
                let bases = self.mods[m].ts.decls[p].extends.clone();
                for b in bases {
                    if let Recv::Members(bm, bd) = self.type_recv(m, &b, 0)
                        && let Lookup::Found(tm, td) = self.lookup_member(bm, bd, &name, 0)
                        && self.mods[tm].ts.decls[td].kind == SymbolKind::Method
                    {
                        self.facts.edges.push(Edge {
                            source: self.sym(m, d),
                            target: self.sym(tm, td),
                            kind: EdgeKind::Overrides,
                            confidence: Confidence::StructuralCertain,
                            provenance: Provenance::TsDeclaration,
                            file: Some(self.mods[m].file),
                            line,
                            column,
                        });
                    }
                }
            }
        }
    }
}
