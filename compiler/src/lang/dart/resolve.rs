//! Phase 2 of Dart: libraries and their parts, URIs, export and import namespaces, members
//! through supertypes and extensions, and the binding of every reference phase 1 left open.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::project::{Packages, join};
use super::syntax::{Ctx, DartFile, DirKind, Expr, SuperKind, Target, TypeRef, Use};
use super::{
    DART_SDK_NOT_INDEXED, MAX_CANDIDATES, NAME_NOT_RESOLVED, PACKAGE_PROVIDER_NOT_FOUND,
    RECEIVER_TYPE_UNKNOWN, URI_NOT_RESOLVED,
};
use crate::facts::{
    Edge, FactSet, FileId, Package, PackageEdge, RepoId, Symbol, SymbolId, Unresolved,
};

const CORE: &str = include_str!("core.txt");

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
type DRef = (usize, usize);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bind {
    Decl(DRef),
    /// From a `dart:` library, or from a library outside the graph: nothing to bind.
    Opaque,
}

type Ns = BTreeMap<String, BTreeSet<Bind>>;

pub struct Unit {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub df: DartFile,
    lib: usize,
    syms: Vec<SymbolId>,
    module_sym: SymbolId,
    /// Resolution of each directive's URI.
    targets: Vec<UriRes>,
}

impl Unit {
    pub fn new(repo: RepoId, file: FileId, path: String, df: DartFile) -> Unit {
        Unit {
            repo,
            file,
            path,
            df,
            lib: 0,
            syms: Vec::new(),
            module_sym: 0,
            targets: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
enum UriRes {
    Unit(usize),
    Sdk(String),
    Missing(&'static str, String),
}

#[derive(Default)]
struct Library {
    /// The defining unit first, then its parts.
    units: Vec<usize>,
    name: String,
    package: usize,
    /// Top-level declarations of all units.
    scope: HashMap<String, Vec<DRef>>,
    exported: Ns,
    export_open: bool,
    unprefixed: Ns,
    unprefixed_open: bool,
    prefixes: HashMap<String, (Ns, bool)>,
    imported: Vec<usize>,
    extensions: Vec<DRef>,
    /// Member name → instance members of the class-like declarations of this library.
    members: HashMap<String, Vec<DRef>>,
}

#[derive(Clone, Debug)]
enum Recv {
    Unknown,
    /// Known, and nothing of it is compiled (a function object, a library type's member).
    Nothing,
    /// A `dart:core` type (`String`, `List<C>` with its element).
    Core(String, Option<Box<Recv>>),
    Inst(DRef),
    Static(DRef),
    SuperOf(DRef),
    /// A function or method: calling it gives this.
    Returns(Box<Recv>),
    Prefix(usize, String),
}

enum NameHit {
    Decls(Vec<DRef>, Provenance),
    /// Nothing to bind, nothing to record.
    Nothing,
    Prefix(String),
    Missing,
}

enum Hit {
    Decls(Vec<DRef>, bool, Provenance),
    Nothing,
    /// A written, compiled type lacks the member.
    Lacks,
    Unknown,
}

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
            let t: Vec<UriRes> = (0..self.units[u].df.directives.len())
                .map(|d| self.resolve_uri(u, &self.units[u].df.directives[d].uri.clone()))
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

    // ------------------------------------------------------------------ libraries

    fn resolve_uri(&self, u: usize, uri: &str) -> UriRes {
        let unit = &self.units[u];
        if let Some(lib) = uri.strip_prefix("dart:") {
            return UriRes::Sdk(format!("dart:{lib}"));
        }
        if let Some(rest) = uri.strip_prefix("package:") {
            let Some((name, path)) = rest.split_once('/') else {
                return UriRes::Missing(URI_NOT_RESOLVED, uri.to_string());
            };
            let Some(list) = self.packages.providers.get(name) else {
                return UriRes::Missing(PACKAGE_PROVIDER_NOT_FOUND, name.to_string());
            };
            let own: Vec<&(RepoId, String)> =
                list.iter().filter(|(r, _)| *r == unit.repo).collect();
            let others: BTreeSet<RepoId> = list
                .iter()
                .filter(|(r, _)| *r != unit.repo)
                .map(|(r, _)| *r)
                .collect();
            let candidates: Vec<&(RepoId, String)> = if !own.is_empty() {
                own
            } else if others.len() == 1 {
                list.iter().collect()
            } else {
                return UriRes::Missing(PACKAGE_PROVIDER_NOT_FOUND, name.to_string());
            };
            for (repo, dir) in candidates {
                if let Some(p) = join(dir, path)
                    && let Some(&t) = self.by_path.get(&(*repo, p))
                {
                    return UriRes::Unit(t);
                }
            }
            return UriRes::Missing(URI_NOT_RESOLVED, uri.to_string());
        }
        if uri.contains(':') || uri.starts_with('/') {
            return UriRes::Missing(URI_NOT_RESOLVED, uri.to_string());
        }
        let dir = unit.path.rsplit_once('/').map_or("", |(d, _)| d);
        match join(dir, uri).and_then(|p| self.by_path.get(&(unit.repo, p))) {
            Some(&t) => UriRes::Unit(t),
            None => UriRes::Missing(URI_NOT_RESOLVED, uri.to_string()),
        }
    }

    /// The URI of a library file: `package:<name>/<path under lib/>`, else its path.
    fn library_name(&self, repo: RepoId, path: &str) -> String {
        let mut best: Option<(usize, String)> = None;
        for (name, list) in &self.packages.providers {
            for (r, dir) in list {
                if *r != repo {
                    continue;
                }
                let rest = if dir.is_empty() {
                    Some(path)
                } else {
                    path.strip_prefix(&format!("{dir}/"))
                };
                if let Some(rest) = rest
                    && best.as_ref().is_none_or(|(l, _)| dir.len() > *l)
                {
                    best = Some((dir.len(), format!("package:{name}/{rest}")));
                }
            }
        }
        best.map_or_else(|| path.to_string(), |(_, n)| n)
    }

    fn pubspec_of(&self, repo: RepoId, path: &str) -> Option<String> {
        self.packages
            .pubspecs
            .iter()
            .filter(|p| {
                p.repo == repo && (p.dir.is_empty() || path.starts_with(&format!("{}/", p.dir)))
            })
            .max_by_key(|p| p.dir.len())
            .map(|p| p.name.clone())
    }

    fn libraries(&mut self) {
        let n = self.units.len();
        let mut owner: Vec<Option<usize>> = vec![None; n];
        for (u, o) in owner.iter_mut().enumerate() {
            if self.units[u].df.part_of.is_none() {
                *o = Some(self.libs.len());
                self.libs.push(Library {
                    units: vec![u],
                    ..Library::default()
                });
            }
        }
        for l in 0..self.libs.len() {
            let u = self.libs[l].units[0];
            for (d, dir) in self.units[u].df.directives.iter().enumerate() {
                if dir.kind != DirKind::Part {
                    continue;
                }
                if let UriRes::Unit(p) = self.units[u].targets[d]
                    && owner[p].is_none()
                    && self.units[p].df.part_of.is_some()
                {
                    owner[p] = Some(l);
                    self.libs[l].units.push(p);
                }
            }
        }
        for (u, o) in owner.iter_mut().enumerate() {
            if o.is_none() {
                // A part no library claims: a library of its own.
                *o = Some(self.libs.len());
                self.libs.push(Library {
                    units: vec![u],
                    ..Library::default()
                });
            }
            self.units[u].lib = o.unwrap_or(0);
        }
        for l in 0..self.libs.len() {
            let u = self.libs[l].units[0];
            self.libs[l].name = self.library_name(self.units[u].repo, &self.units[u].path);
            for &x in &self.libs[l].units.clone() {
                for (name, &d) in &self.units[x].df.top {
                    self.libs[l]
                        .scope
                        .entry(name.clone())
                        .or_default()
                        .push((x, d));
                }
                for (di, d) in self.units[x].df.decls.iter().enumerate() {
                    if d.parent.is_some() && !d.ctor && !d.is_static {
                        self.libs[l]
                            .members
                            .entry(d.name.clone())
                            .or_default()
                            .push((x, di));
                    }
                    if d.extension {
                        self.libs[l].extensions.push((x, di));
                    }
                }
            }
        }
    }

    fn symbols(&mut self) {
        let mut names_used: HashSet<(RepoId, String)> = HashSet::new();
        for l in 0..self.libs.len() {
            let u0 = self.libs[l].units[0];
            let repo = self.units[u0].repo;
            let mut name = self.libs[l].name.clone();
            if !names_used.insert((repo, name.clone())) {
                name = self.units[u0].path.clone();
                names_used.insert((repo, name.clone()));
                self.libs[l].name = name.clone();
            }
            let pid = self.facts.packages.len();
            let module = self.pubspec_of(repo, &self.units[u0].path);
            self.facts.packages.push(Package {
                repo,
                language: Language::Dart,
                name: name.clone(),
                path: self.units[u0].path.clone(),
                module,
            });
            self.libs[l].package = pid;
            for (i, &u) in self.libs[l].units.clone().iter().enumerate() {
                let file = self.units[u].file;
                self.facts.files[file].package = Some(pid);
                let lines = self.facts.files[file].lines.max(1);
                let size = self.facts.files[file].size as u32;
                let path = self.units[u].path.clone();
                let module_sym = self.facts.symbols.len();
                self.facts.symbols.push(Symbol {
                    repo,
                    package: pid,
                    file,
                    language: Language::Dart,
                    name: path.rsplit('/').next().unwrap_or(&path).to_string(),
                    qualified_name: if i == 0 {
                        name.clone()
                    } else {
                        format!("part:{path}")
                    },
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
                let mut syms = Vec::with_capacity(self.units[u].df.decls.len());
                for d in &self.units[u].df.decls {
                    let exported = !d.name.starts_with('_')
                        && !d.name.starts_with("extension@")
                        && d.parent.is_none_or(|p| {
                            let pd = &self.units[u].df.decls[p];
                            !pd.name.starts_with('_') && !pd.name.starts_with("extension@")
                        });
                    syms.push(self.facts.symbols.len());
                    self.facts.symbols.push(Symbol {
                        repo,
                        package: pid,
                        file,
                        language: Language::Dart,
                        name: d.name.clone(),
                        qualified_name: d.qn.clone(),
                        kind: d.kind,
                        exported,
                        signature: d.signature.clone(),
                        start_line: d.span.start_line,
                        start_column: d.span.start_column,
                        end_line: d.span.end_line,
                        end_column: d.span.end_column,
                        start_byte: d.span.start_byte,
                        end_byte: d.span.end_byte,
                    });
                }
                self.units[u].syms = syms;
                self.units[u].module_sym = module_sym;
            }
        }
    }

    fn lib_of_target(&self, t: &UriRes) -> Option<usize> {
        match t {
            UriRes::Unit(x) => Some(self.units[*x].lib),
            _ => None,
        }
    }

    fn filtered(ns: &Ns, show: &Option<Vec<(String, u32, u32)>>, hide: &[String]) -> Ns {
        ns.iter()
            .filter(|(k, _)| {
                show.as_ref()
                    .is_none_or(|s| s.iter().any(|(n, _, _)| n == *k))
                    && !hide.iter().any(|h| h == *k)
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn namespaces(&mut self) {
        let nl = self.libs.len();
        for l in 0..nl {
            let mut own = Ns::new();
            for (name, ds) in &self.libs[l].scope {
                if name.starts_with('_') || name.starts_with("extension@") {
                    continue;
                }
                own.entry(name.clone())
                    .or_default()
                    .extend(ds.iter().map(|d| Bind::Decl(*d)));
            }
            self.libs[l].exported = own;
        }
        // Exports to a fixed point: namespaces only grow, so cycles end.
        for _round in 0..(nl + 2).min(64) {
            let mut changed = false;
            for l in 0..nl {
                for &u in &self.libs[l].units.clone() {
                    for (d, dir) in self.units[u].df.directives.iter().enumerate() {
                        if dir.kind != DirKind::Export {
                            continue;
                        }
                        let (add, open) = match &self.units[u].targets[d] {
                            UriRes::Unit(t) => {
                                let t = self.units[*t].lib;
                                (
                                    Self::filtered(&self.libs[t].exported, &dir.show, &dir.hide),
                                    self.libs[t].export_open && dir.show.is_none(),
                                )
                            }
                            _ => (Self::opaque(&dir.show), dir.show.is_none()),
                        };
                        let lib = &mut self.libs[l];
                        if open && !lib.export_open {
                            lib.export_open = true;
                            changed = true;
                        }
                        for (k, v) in add {
                            if lib.scope.contains_key(&k) {
                                continue;
                            }
                            let e = lib.exported.entry(k).or_default();
                            for b in v {
                                changed |= e.insert(b);
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for l in 0..nl {
            let mut unprefixed = Ns::new();
            let mut unprefixed_open = false;
            let mut prefixes: HashMap<String, (Ns, bool)> = HashMap::new();
            let mut imported = Vec::new();
            let mut extensions = Vec::new();
            for &u in &self.libs[l].units {
                for (d, dir) in self.units[u].df.directives.iter().enumerate() {
                    if dir.kind != DirKind::Import {
                        continue;
                    }
                    let (ns, open) = match &self.units[u].targets[d] {
                        UriRes::Unit(t) => {
                            let t = self.units[*t].lib;
                            if !imported.contains(&t) {
                                imported.push(t);
                            }
                            // The libraries whose declarations the import brings in.
                            for b in self.libs[t].exported.values().flatten() {
                                if let Bind::Decl(x) = b {
                                    let xl = self.units[x.0].lib;
                                    if !imported.contains(&xl) {
                                        imported.push(xl);
                                    }
                                }
                            }
                            (
                                Self::filtered(&self.libs[t].exported, &dir.show, &dir.hide),
                                self.libs[t].export_open && dir.show.is_none(),
                            )
                        }
                        UriRes::Sdk(s) if s == "dart:core" && dir.prefix.is_none() => {
                            (Ns::new(), false)
                        }
                        _ => (Self::opaque(&dir.show), dir.show.is_none()),
                    };
                    for b in ns.values().flatten() {
                        if let Bind::Decl(x) = b
                            && self.units[x.0].df.decls[x.1].extension
                            && !extensions.contains(x)
                        {
                            extensions.push(*x);
                        }
                    }
                    let (target, target_open) = match &dir.prefix {
                        Some(p) => {
                            let e = prefixes.entry(p.clone()).or_default();
                            (&mut e.0, &mut e.1)
                        }
                        None => (&mut unprefixed, &mut unprefixed_open),
                    };
                    *target_open |= open;
                    for (k, v) in ns {
                        target.entry(k).or_default().extend(v);
                    }
                }
            }
            let lib = &mut self.libs[l];
            lib.unprefixed = unprefixed;
            lib.unprefixed_open = unprefixed_open;
            lib.prefixes = prefixes;
            lib.imported = imported;
            lib.extensions.extend(extensions);
        }
    }

    fn opaque(show: &Option<Vec<(String, u32, u32)>>) -> Ns {
        let mut ns = Ns::new();
        if let Some(s) = show {
            for (n, _, _) in s {
                ns.entry(n.clone()).or_default().insert(Bind::Opaque);
            }
        }
        ns
    }

    // ------------------------------------------------------------------ lookups

    fn decl(&self, d: DRef) -> &super::syntax::Decl {
        &self.units[d.0].df.decls[d.1]
    }

    /// What a namespace binds a name to: declarations (one when exact), or opaque.
    fn ns_hit(ns: &Ns, name: &str) -> Option<(Vec<DRef>, bool)> {
        let set = ns.get(name)?;
        let decls: Vec<DRef> = set
            .iter()
            .filter_map(|b| match b {
                Bind::Decl(d) => Some(*d),
                Bind::Opaque => None,
            })
            .collect();
        Some((decls, set.contains(&Bind::Opaque)))
    }

    /// Binds a name that lexical scope left open, in Dart's order: the enclosing class's own
    /// members, the library's declarations, its imports, `dart:core`, then inherited members
    /// through an implicit `this`.
    fn lookup_name(&self, u: usize, name: &str, ctx: Ctx, depth: usize) -> NameHit {
        let lib = &self.libs[self.units[u].lib];
        if let Some((c, _)) = ctx
            && let Some(&m) = self.units[u].df.decls[c].members.get(name)
        {
            return NameHit::Decls(vec![(u, m)], Provenance::DartScope);
        }
        if let Some(v) = lib.scope.get(name) {
            // Prefer the declaration of the unit itself, then the library's first.
            let mut v = v.clone();
            v.sort_by_key(|d| (d.0 != u, d.0, d.1));
            v.truncate(1);
            return NameHit::Decls(v, Provenance::DartScope);
        }
        if lib.prefixes.contains_key(name) {
            return NameHit::Prefix(name.to_string());
        }
        if let Some((decls, _opaque)) = Self::ns_hit(&lib.unprefixed, name) {
            // A declaration outside the platform libraries shadows a platform one.
            if decls.is_empty() {
                return NameHit::Nothing;
            }
            return NameHit::Decls(decls, Provenance::DartImport);
        }
        if is_core(name) {
            return NameHit::Nothing;
        }
        if let Some((c, _)) = ctx
            && self.units[u].df.decls[c].kind == SymbolKind::Enum
            && ENUM_MEMBERS.contains(&name)
        {
            return NameHit::Nothing;
        }
        if let Some((c, true)) = ctx
            && self.units[u].df.decls[c].extension
        {
            let recv = self.this_recv((u, c), depth + 1);
            return match self.members_named(u, &recv, name, depth + 1) {
                Hit::Decls(v, true, _) => NameHit::Decls(v, Provenance::DartReceiverTyped),
                Hit::Lacks => NameHit::Missing,
                _ => NameHit::Nothing,
            };
        }
        if let Some((c, true)) = ctx {
            match self.lookup_member((u, c), name, false, true, depth + 1) {
                Hit::Decls(v, _, _) => return NameHit::Decls(v, Provenance::DartReceiverTyped),
                Hit::Unknown | Hit::Nothing => return NameHit::Nothing,
                Hit::Lacks => {}
            }
        }
        if let Some((c, false)) = ctx
            && self.class_open((u, c), depth + 1)
        {
            return NameHit::Nothing;
        }
        if lib.unprefixed_open {
            return NameHit::Nothing;
        }
        NameHit::Missing
    }

    /// A type name in the scope of unit `u`.
    fn resolve_type_name(&self, u: usize, prefix: Option<&str>, name: &str) -> NameHit {
        match prefix {
            Some(p) => {
                let lib = &self.libs[self.units[u].lib];
                match lib.prefixes.get(p) {
                    Some((ns, open)) => match Self::ns_hit(ns, name) {
                        Some((d, _)) if !d.is_empty() => NameHit::Decls(d, Provenance::DartImport),
                        Some(_) => NameHit::Nothing,
                        None if *open => NameHit::Nothing,
                        None => NameHit::Missing,
                    },
                    None => NameHit::Missing,
                }
            }
            None => self.lookup_name(u, name, None, 0),
        }
    }

    /// The class-like declaration a written type names (aliases followed).
    fn type_decl(&self, u: usize, t: &TypeRef, depth: usize) -> Result<DRef, Recv> {
        if depth > MAX_DEPTH {
            return Err(Recv::Unknown);
        }
        let TypeRef::Named { prefix, name, args } = t else {
            return Err(Recv::Unknown);
        };
        match self.resolve_type_name(u, prefix.as_deref(), name) {
            NameHit::Decls(v, _) if v.len() == 1 => {
                let d = v[0];
                let decl = self.decl(d);
                if decl.kind == SymbolKind::TypeAlias {
                    return match &decl.ty {
                        Some(t) => self.type_decl(d.0, t, depth + 1),
                        None => Err(Recv::Nothing),
                    };
                }
                if is_classlike(decl.kind) {
                    Ok(d)
                } else {
                    Err(Recv::Unknown)
                }
            }
            NameHit::Nothing => {
                let elem = match name.as_str() {
                    "List" | "Iterable" | "Set" | "Future" | "FutureOr" | "Stream" | "Iterator" => {
                        args.first()
                            .map(|a| Box::new(self.type_recv(u, a, depth + 1)))
                    }
                    _ => None,
                };
                if prefix.is_none() && is_core(name) {
                    Err(Recv::Core(name.clone(), elem))
                } else {
                    Err(Recv::Nothing)
                }
            }
            _ => Err(Recv::Unknown),
        }
    }

    fn type_recv(&self, u: usize, t: &TypeRef, depth: usize) -> Recv {
        match self.type_decl(u, t, depth) {
            Ok(d) => Recv::Inst(d),
            Err(r) => r,
        }
    }

    /// The supertypes of a class-like declaration, in lookup order: its mixins (last first),
    /// its superclass, its interfaces, a mixin's `on` types. `Err` for a supertype that is
    /// not compiled.
    fn supertypes(&self, c: DRef, with_interfaces: bool, depth: usize) -> Vec<Result<DRef, ()>> {
        let d = self.decl(c);
        let mut out = Vec::new();
        let order = [
            SuperKind::With,
            SuperKind::Extends,
            SuperKind::Implements,
            SuperKind::On,
        ];
        for kind in order {
            if !with_interfaces && kind == SuperKind::Implements {
                continue;
            }
            if d.extension && kind == SuperKind::On {
                continue;
            }
            let mut list: Vec<&TypeRef> = d
                .supers
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, t)| t)
                .collect();
            if kind == SuperKind::With {
                list.reverse();
            }
            for t in list {
                match self.type_decl(c.0, t, depth + 1) {
                    Ok(x) if x != c => out.push(Ok(x)),
                    Ok(_) => {}
                    Err(Recv::Core(n, _)) if n == "Object" => {}
                    Err(_) => out.push(Err(())),
                }
            }
        }
        out
    }

    fn class_open(&self, c: DRef, depth: usize) -> bool {
        self.class_open_in(c, &mut HashSet::new(), depth)
    }

    fn class_open_in(&self, c: DRef, seen: &mut HashSet<DRef>, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        if !seen.insert(c) {
            return false;
        }
        self.supertypes(c, true, depth).iter().any(|s| match s {
            Ok(x) => self.class_open_in(*x, seen, depth + 1),
            Err(()) => true,
        })
    }

    /// Looks a member up in a class-like declaration (`own`: its own members too) and then
    /// its supertypes, each visited once.
    fn lookup_member(&self, c: DRef, name: &str, statics: bool, own: bool, depth: usize) -> Hit {
        self.lookup_member_in(c, name, statics, own, &mut HashSet::new(), depth)
    }

    fn lookup_member_in(
        &self,
        c: DRef,
        name: &str,
        statics: bool,
        own: bool,
        seen: &mut HashSet<DRef>,
        depth: usize,
    ) -> Hit {
        if depth > MAX_DEPTH {
            return Hit::Unknown;
        }
        if own {
            if !seen.insert(c) {
                return Hit::Lacks;
            }
            if let Some(&m) = self.decl(c).members.get(name) {
                let md = self.decl((c.0, m));
                if statics || !(md.is_static || md.ctor) {
                    return Hit::Decls(vec![(c.0, m)], true, Provenance::DartReceiverTyped);
                }
            }
        }
        let mut open = false;
        for s in self.supertypes(c, true, depth) {
            match s {
                Ok(x) => match self.lookup_member_in(x, name, false, true, seen, depth + 1) {
                    h @ Hit::Decls(..) => return h,
                    Hit::Unknown | Hit::Nothing => open = true,
                    Hit::Lacks => {}
                },
                Err(()) => open = true,
            }
        }
        if open { Hit::Unknown } else { Hit::Lacks }
    }

    /// Every supertype of `c`, itself included.
    fn supertype_closure(&self, c: DRef, out: &mut Vec<DRef>, depth: usize) {
        if depth > MAX_DEPTH || out.contains(&c) {
            return;
        }
        out.push(c);
        for s in self.supertypes(c, true, depth).into_iter().flatten() {
            self.supertype_closure(s, out, depth + 1);
        }
    }

    /// Extension members named `name` that apply to a receiver.
    fn extension_members(&self, u: usize, recv: &Recv, name: &str, depth: usize) -> Vec<DRef> {
        let lib = &self.libs[self.units[u].lib];
        let mut closure = Vec::new();
        if let Recv::Inst(c) = recv {
            self.supertype_closure(*c, &mut closure, depth + 1);
        }
        let mut out = Vec::new();
        for &e in &lib.extensions {
            let d = self.decl(e);
            let Some(&m) = d.members.get(name) else {
                continue;
            };
            let Some((_, on)) = d.supers.iter().find(|(k, _)| *k == SuperKind::On) else {
                continue;
            };
            let applies = match (self.type_decl(e.0, on, depth + 1), recv) {
                (Ok(x), Recv::Inst(_)) => closure.contains(&x),
                (Err(Recv::Core(on, _)), Recv::Core(r, _)) => on == *r,
                (Err(Recv::Core(on, _)), Recv::Inst(_)) => on == "Object",
                _ => false,
            };
            if applies && !out.contains(&(e.0, m)) {
                out.push((e.0, m));
            }
        }
        out
    }

    fn members_named(&self, u: usize, recv: &Recv, name: &str, depth: usize) -> Hit {
        if depth > MAX_DEPTH {
            return Hit::Unknown;
        }
        match recv {
            Recv::Unknown => Hit::Unknown,
            Recv::Nothing | Recv::Returns(_) => Hit::Nothing,
            // The implicit `loadLibrary()` of a deferred prefix.
            Recv::Prefix(..) if name == "loadLibrary" => Hit::Nothing,
            Recv::Prefix(l, p) => match self.libs[*l].prefixes.get(p) {
                Some((ns, open)) => match Self::ns_hit(ns, name) {
                    Some((d, _)) if !d.is_empty() => {
                        let exact = d.len() == 1;
                        Hit::Decls(d, exact, Provenance::DartImport)
                    }
                    Some(_) => Hit::Nothing,
                    None if *open => Hit::Nothing,
                    None => Hit::Lacks,
                },
                None => Hit::Unknown,
            },
            Recv::Static(c) => {
                let d = self.decl(*c);
                match d.members.get(name) {
                    Some(&m) => Hit::Decls(vec![(c.0, m)], true, Provenance::DartReceiverTyped),
                    None if d.kind == SymbolKind::Enum && name == "values" => Hit::Nothing,
                    None if OBJECT_MEMBERS.contains(&name) => Hit::Nothing,
                    None => Hit::Lacks,
                }
            }
            Recv::SuperOf(c) => {
                let mut open = false;
                for s in self.supertypes(*c, false, depth) {
                    match s {
                        Ok(x) => match self.lookup_member(x, name, false, true, depth + 1) {
                            h @ Hit::Decls(..) => return h,
                            Hit::Lacks => {}
                            _ => open = true,
                        },
                        Err(()) => open = true,
                    }
                }
                if open || OBJECT_MEMBERS.contains(&name) {
                    Hit::Nothing
                } else {
                    Hit::Lacks
                }
            }
            Recv::Inst(c) => match self.lookup_member(*c, name, false, true, depth) {
                h @ Hit::Decls(..) => h,
                other => {
                    let ext = self.extension_members(u, recv, name, depth);
                    if !ext.is_empty() {
                        let exact = ext.len() == 1;
                        return Hit::Decls(ext, exact, Provenance::DartReceiverTyped);
                    }
                    let enum_member =
                        self.decl(*c).kind == SymbolKind::Enum && ENUM_MEMBERS.contains(&name);
                    if OBJECT_MEMBERS.contains(&name) || enum_member {
                        return Hit::Nothing;
                    }
                    match other {
                        Hit::Lacks => Hit::Lacks,
                        _ => Hit::Nothing,
                    }
                }
            },
            Recv::Core(..) => {
                let ext = self.extension_members(u, recv, name, depth);
                if ext.is_empty() {
                    Hit::Nothing
                } else {
                    let exact = ext.len() == 1;
                    Hit::Decls(ext, exact, Provenance::DartReceiverTyped)
                }
            }
        }
    }

    /// `this` in a class-like declaration; in an extension, a value of its `on` type.
    fn this_recv(&self, c: DRef, depth: usize) -> Recv {
        let d = self.decl(c);
        if d.extension {
            return match d.supers.iter().find(|(k, _)| *k == SuperKind::On) {
                Some((_, t)) => self.type_recv(c.0, t, depth + 1),
                None => Recv::Unknown,
            };
        }
        Recv::Inst(c)
    }

    /// The value a declaration denotes when named.
    fn value_recv(&self, d: DRef, depth: usize) -> Recv {
        if depth > MAX_DEPTH {
            return Recv::Unknown;
        }
        let decl = self.decl(d);
        match decl.kind {
            SymbolKind::Class
            | SymbolKind::Enum
            | SymbolKind::Type
            | SymbolKind::Implementation => Recv::Static(d),
            SymbolKind::TypeAlias => match &decl.ty {
                Some(t) => match self.type_decl(d.0, t, depth + 1) {
                    Ok(x) => Recv::Static(x),
                    Err(_) => Recv::Nothing,
                },
                None => Recv::Nothing,
            },
            SymbolKind::Method | SymbolKind::StaticMethod | SymbolKind::Function => {
                if decl.ctor {
                    match decl.parent {
                        Some(p) => Recv::Returns(Box::new(Recv::Inst((d.0, p)))),
                        None => Recv::Unknown,
                    }
                } else {
                    match &decl.ty {
                        Some(t) => Recv::Returns(Box::new(self.type_recv(d.0, t, depth + 1))),
                        None => Recv::Returns(Box::new(Recv::Unknown)),
                    }
                }
            }
            _ => match (&decl.ty, &decl.value) {
                (Some(t), _) => self.type_recv(d.0, t, depth + 1),
                (None, Some(v)) => self.eval(d.0, v, depth + 1),
                _ => Recv::Unknown,
            },
        }
    }

    fn eval(&self, u: usize, e: &Expr, depth: usize) -> Recv {
        if depth > MAX_DEPTH {
            return Recv::Unknown;
        }
        match e {
            Expr::Unknown => Recv::Unknown,
            Expr::Core(n) => Recv::Core(n.to_string(), None),
            Expr::Local(i) => {
                let l = &self.units[u].df.locals[*i];
                if l.func {
                    return match &l.ret {
                        Some(t) => Recv::Returns(Box::new(self.type_recv(u, t, depth + 1))),
                        None => Recv::Returns(Box::new(Recv::Unknown)),
                    };
                }
                match (&l.ty, &l.value) {
                    (Some(t), _) => self.type_recv(u, t, depth + 1),
                    (None, Some(v)) => self.eval(u, v, depth + 1),
                    _ => Recv::Unknown,
                }
            }
            Expr::Name(n, ctx) => match self.lookup_name(u, n, *ctx, depth + 1) {
                NameHit::Decls(v, _) if v.len() == 1 => self.value_recv(v[0], depth + 1),
                NameHit::Prefix(p) => Recv::Prefix(self.units[u].lib, p),
                NameHit::Nothing if is_core(n) => Recv::Core(n.clone(), None),
                NameHit::Nothing => Recv::Nothing,
                _ => Recv::Unknown,
            },
            Expr::This(c) => self.this_recv((u, *c), depth),
            Expr::Super(c) => Recv::SuperOf((u, *c)),
            Expr::Member(b, m) => {
                let r = self.eval(u, b, depth + 1);
                // `xs.first` of a `List<C>`: a `C`.
                if let Recv::Core(n, Some(elem)) = &r
                    && matches!(n.as_str(), "List" | "Iterable" | "Set")
                    && matches!(m.as_str(), "first" | "last" | "single")
                {
                    return (**elem).clone();
                }
                if let Recv::Core(_, _) = r {
                    // A static of a platform class, or a member of a platform value.
                    if let Hit::Decls(v, true, _) = self.members_named(u, &r, m, depth + 1) {
                        return self.value_recv(v[0], depth + 1);
                    }
                    return Recv::Nothing;
                }
                match self.members_named(u, &r, m, depth + 1) {
                    Hit::Decls(v, true, _) => self.value_recv(v[0], depth + 1),
                    Hit::Nothing => Recv::Nothing,
                    _ => Recv::Unknown,
                }
            }
            Expr::Call(b) => match self.eval(u, b, depth + 1) {
                Recv::Static(c) => Recv::Inst(c),
                Recv::Returns(r) => *r,
                Recv::Core(n, _) if n.chars().next().is_some_and(char::is_uppercase) => {
                    Recv::Core(n, None)
                }
                Recv::Unknown | Recv::Inst(_) => Recv::Unknown,
                _ => Recv::Nothing,
            },
            Expr::Cast(t) => self.type_recv(u, t, depth + 1),
            Expr::Await(b) => match self.eval(u, b, depth + 1) {
                Recv::Core(n, Some(inner)) if n == "Future" || n == "FutureOr" => *inner,
                Recv::Core(n, None) if n == "Future" || n == "FutureOr" => Recv::Unknown,
                r => r,
            },
            Expr::Elem(b) => match self.eval(u, b, depth + 1) {
                Recv::Core(_, Some(inner)) => *inner,
                Recv::Core(..) | Recv::Nothing => Recv::Nothing,
                _ => Recv::Unknown,
            },
            Expr::Op(l, op) => match self.eval(u, l, depth + 1) {
                Recv::Core(n, _) if matches!(n.as_str(), "int" | "double" | "num" | "String") => {
                    Recv::Core(n, None)
                }
                r @ Recv::Inst(_) => match self.members_named(u, &r, op, depth + 1) {
                    Hit::Decls(v, true, _) => match self.value_recv(v[0], depth + 1) {
                        Recv::Returns(r) => *r,
                        _ => Recv::Unknown,
                    },
                    _ => Recv::Unknown,
                },
                Recv::Core(..) | Recv::Nothing => Recv::Nothing,
                _ => Recv::Unknown,
            },
            Expr::New(t) => match self.ctor_class(u, t, None) {
                Some(Ok(c)) => Recv::Inst(c.0),
                Some(Err(())) => Recv::Nothing,
                None => Recv::Unknown,
            },
        }
    }

    /// The class a constructor reference names, and its constructor name: `new p.C()`,
    /// `new C.named()` (two names: a prefix and a class, or a class and a constructor).
    #[allow(clippy::type_complexity)]
    fn ctor_class(
        &self,
        u: usize,
        t: &TypeRef,
        ctor: Option<&str>,
    ) -> Option<Result<(DRef, Option<String>), ()>> {
        let TypeRef::Named { prefix, name, .. } = t else {
            return None;
        };
        let lib = &self.libs[self.units[u].lib];
        let (prefix, class, ctor): (Option<&str>, &str, Option<&str>) = match (prefix, ctor) {
            (Some(p), c) if lib.prefixes.contains_key(p.as_str()) => (Some(p), name, c),
            (Some(p), None) => (None, p.as_str(), Some(name.as_str())),
            (None, Some(c)) if lib.prefixes.contains_key(name.as_str()) => (Some(name), c, None),
            (p, c) => (p.as_deref(), name.as_str(), c),
        };
        match self.resolve_type_name(u, prefix, class) {
            NameHit::Decls(v, _) if v.len() == 1 => {
                let mut d = v[0];
                if self.decl(d).kind == SymbolKind::TypeAlias {
                    match self.decl(d).ty.clone().map(|t| self.type_decl(d.0, &t, 1)) {
                        Some(Ok(x)) => d = x,
                        _ => return Some(Err(())),
                    }
                }
                if !is_classlike(self.decl(d).kind) {
                    return None;
                }
                Some(Ok((d, ctor.map(str::to_string))))
            }
            NameHit::Nothing => Some(Err(())),
            _ => None,
        }
    }

    // ------------------------------------------------------------------ facts

    fn exact(&self, from: usize, to: usize) -> Confidence {
        if self.units[from].repo == self.units[to].repo {
            Confidence::ExactDeclarationMapped
        } else {
            Confidence::ExactPackageMapped
        }
    }

    fn source_of(&self, u: usize, from: Option<usize>) -> SymbolId {
        match from {
            Some(d) => self.units[u].syms[d],
            None => self.units[u].module_sym,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn unresolved(
        &mut self,
        u: usize,
        line: u32,
        column: u32,
        reason: &str,
        package: String,
        symbol: Option<String>,
        detail: Option<String>,
        from: Option<usize>,
    ) {
        let source = Some(self.source_of(u, from));
        let unit = &self.units[u];
        self.facts.unresolved.push(Unresolved {
            repo: unit.repo,
            file: Some(unit.file),
            line,
            column,
            language: Language::Dart,
            reason: reason.into(),
            requested_package: package,
            requested_symbol: symbol,
            detail,
            source,
        });
    }

    fn directive_facts(&mut self, u: usize) {
        let l = self.units[u].lib;
        for d in 0..self.units[u].df.directives.len() {
            let dir = self.units[u].df.directives[d].clone();
            match self.units[u].targets[d].clone() {
                UriRes::Unit(t) => {
                    let tl = self.units[t].lib;
                    if tl != l {
                        self.facts.package_edges.push(PackageEdge {
                            source: self.libs[l].package,
                            target: self.libs[tl].package,
                            kind: EdgeKind::PackageDependsOn,
                            confidence: self.exact(u, t),
                            provenance: Provenance::DartImportDependency,
                        });
                    }
                }
                UriRes::Sdk(s) => {
                    if dir.kind != DirKind::Part {
                        self.unresolved(
                            u,
                            dir.line,
                            dir.column,
                            DART_SDK_NOT_INDEXED,
                            s,
                            None,
                            None,
                            None,
                        );
                    }
                }
                UriRes::Missing(reason, req) => {
                    self.unresolved(
                        u,
                        dir.line,
                        dir.column,
                        reason,
                        req,
                        None,
                        Some(format!("{} of \"{}\"", kind_word(dir.kind), dir.uri)),
                        None,
                    );
                }
            }
        }
    }

    fn edge_kind(usage: Use, target: &super::syntax::Decl) -> EdgeKind {
        match usage {
            Use::Call | Use::Operator => EdgeKind::CallsDirect,
            Use::Type => EdgeKind::TypeUses,
            Use::Extends => EdgeKind::Extends,
            Use::Implements => EdgeKind::Implements,
            Use::Argument
                if !target.ctor
                    && matches!(
                        target.kind,
                        SymbolKind::Function | SymbolKind::Method | SymbolKind::StaticMethod
                    ) =>
            {
                EdgeKind::PassesAsCallback
            }
            Use::Argument | Use::Value | Use::Annotation | Use::Write | Use::SuperFormal => {
                EdgeKind::References
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        u: usize,
        from: Option<usize>,
        target: DRef,
        kind: EdgeKind,
        line: u32,
        column: u32,
        provenance: Provenance,
        exact: bool,
    ) {
        let structural = exact
            && matches!(kind, EdgeKind::Extends | EdgeKind::Implements)
            && from.is_some_and(|d| {
                let k = self.units[u].df.decls[d].kind;
                is_classlike(k)
            });
        let (confidence, provenance) = if structural {
            (Confidence::StructuralCertain, Provenance::DartDeclaration)
        } else if exact {
            (self.exact(u, target.0), provenance)
        } else {
            (Confidence::Candidate, provenance)
        };
        self.facts.edges.push(Edge {
            source: self.source_of(u, from),
            target: self.units[target.0].syms[target.1],
            kind,
            confidence,
            provenance,
            file: Some(self.units[u].file),
            line,
            column,
        });
    }

    /// A call of a class calls its unnamed constructor when it declares one.
    fn call_target(&self, d: DRef, usage: Use) -> DRef {
        let mut d = d;
        // A typedef of a class constructs the class.
        if usage == Use::Call
            && self.decl(d).kind == SymbolKind::TypeAlias
            && let Some(t) = &self.decl(d).ty
            && let Ok(c) = self.type_decl(d.0, t, 0)
        {
            d = c;
        }
        let decl = self.decl(d);
        if usage == Use::Call
            && is_classlike(decl.kind)
            && let Some(&m) = decl.members.get("new")
            && self.decl((d.0, m)).ctor
        {
            return (d.0, m);
        }
        d
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_decls(
        &mut self,
        u: usize,
        from: Option<usize>,
        v: Vec<DRef>,
        exact: bool,
        usage: Use,
        line: u32,
        column: u32,
        provenance: Provenance,
    ) {
        let exact = exact && v.len() == 1;
        for d in v {
            let t = self.call_target(d, usage);
            let kind = Self::edge_kind(usage, self.decl(t));
            self.edge(u, from, t, kind, line, column, provenance, exact);
        }
    }

    fn own_name(&self, u: usize) -> String {
        self.libs[self.units[u].lib].name.clone()
    }

    fn references(&mut self, u: usize) {
        let refs = std::mem::take(&mut self.units[u].df.refs);
        for r in &refs {
            let (line, column, from) = (r.line, r.column, r.from);
            match &r.target {
                Target::Name(n, _) | Target::TypeName(_, n) => {
                    let hit = match &r.target {
                        Target::TypeName(Some(p), _) => self.resolve_type_name(u, Some(p), n),
                        Target::Name(_, ctx) => self.lookup_name(u, n, *ctx, 0),
                        _ => self.lookup_name(u, n, None, 0),
                    };
                    match hit {
                        NameHit::Decls(v, prov) => {
                            self.bind_decls(u, from, v, true, r.usage, line, column, prov)
                        }
                        NameHit::Nothing | NameHit::Prefix(_) => {}
                        NameHit::Missing => {
                            let pkg = self.own_name(u);
                            self.unresolved(
                                u,
                                line,
                                column,
                                NAME_NOT_RESOLVED,
                                pkg,
                                Some(n.clone()),
                                None,
                                from,
                            );
                        }
                    }
                }
                Target::Member(e, m) => {
                    let recv = self.eval(u, e, 0);
                    self.member(u, from, &recv, m, r.usage, line, column);
                }
                Target::Ctor(t, ctor) => match self.ctor_class(u, t, ctor.as_deref()) {
                    Some(Ok((c, None))) => {
                        let t = self.call_target(c, Use::Call);
                        let kind = if r.usage == Use::Call {
                            EdgeKind::CallsDirect
                        } else {
                            Self::edge_kind(r.usage, self.decl(t))
                        };
                        let prov = self.name_prov(u, c);
                        self.edge(u, from, t, kind, line, column, prov, true);
                    }
                    Some(Ok((c, Some(name)))) => {
                        let recv = Recv::Static(c);
                        let usage = if r.usage == Use::Argument {
                            Use::Value
                        } else {
                            r.usage
                        };
                        self.member(u, from, &recv, &name, usage, line, column);
                    }
                    Some(Err(())) => {}
                    None => {
                        if let TypeRef::Named { name, prefix, .. } = t {
                            let lookup = match prefix {
                                Some(p) => self.resolve_type_name(u, Some(p), name),
                                None => self.lookup_name(u, name, None, 0),
                            };
                            if matches!(lookup, NameHit::Missing) {
                                let pkg = self.own_name(u);
                                self.unresolved(
                                    u,
                                    line,
                                    column,
                                    NAME_NOT_RESOLVED,
                                    pkg,
                                    Some(name.clone()),
                                    None,
                                    from,
                                );
                            }
                        }
                    }
                },
                Target::SuperCtor(c, name) => {
                    let sup = self
                        .decl((u, *c))
                        .supers
                        .iter()
                        .find(|(k, _)| *k == SuperKind::Extends)
                        .map(|(_, t)| t.clone());
                    if let Some(t) = sup
                        && let Ok(s) = self.type_decl(u, &t, 0)
                    {
                        let nm = name.clone().unwrap_or_else(|| "new".into());
                        if let Some(&m) = self.decl(s).members.get(&nm)
                            && self.decl((s.0, m)).ctor
                        {
                            self.edge(
                                u,
                                from,
                                (s.0, m),
                                EdgeKind::CallsDirect,
                                line,
                                column,
                                Provenance::DartReceiverTyped,
                                true,
                            );
                        }
                    }
                }
                Target::ThisCtor(c, name) => {
                    let nm = name.clone().unwrap_or_else(|| "new".into());
                    let target = match self.decl((u, *c)).members.get(&nm) {
                        Some(&m) if self.decl((u, m)).ctor => Some((u, m)),
                        // An extension type's representation: its implicit constructor.
                        None if name.is_none() => Some((u, *c)),
                        _ => None,
                    };
                    if let Some(t) = target {
                        self.edge(
                            u,
                            from,
                            t,
                            EdgeKind::CallsDirect,
                            line,
                            column,
                            Provenance::DartReceiverTyped,
                            true,
                        );
                    }
                }
                Target::Shown(di, name) => self.shown(u, *di, name, line, column),
            }
        }
        self.units[u].df.refs = refs;
    }

    /// The provenance of a class named without a prefix.
    fn name_prov(&self, u: usize, c: DRef) -> Provenance {
        if self.units[c.0].lib == self.units[u].lib {
            Provenance::DartScope
        } else {
            Provenance::DartImport
        }
    }

    fn shown(&mut self, u: usize, di: usize, name: &str, line: u32, column: u32) {
        let dir = self.units[u].df.directives[di].clone();
        let Some(t) = self.lib_of_target(&self.units[u].targets[di].clone()) else {
            return;
        };
        let kind = if dir.kind == DirKind::Export {
            EdgeKind::Reexports
        } else {
            EdgeKind::ImportsSymbol
        };
        match Self::ns_hit(&self.libs[t].exported, name) {
            Some((v, _)) if !v.is_empty() => {
                let exact = v.len() == 1;
                for d in v {
                    self.edge(
                        u,
                        None,
                        d,
                        kind,
                        line,
                        column,
                        Provenance::DartImport,
                        exact,
                    );
                }
            }
            Some(_) => {}
            None if self.libs[t].export_open => {}
            None => {
                let pkg = self.own_name(u);
                self.unresolved(
                    u,
                    line,
                    column,
                    NAME_NOT_RESOLVED,
                    pkg,
                    Some(name.to_string()),
                    Some(format!("{} of \"{}\"", kind_word(dir.kind), dir.uri)),
                    None,
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn member(
        &mut self,
        u: usize,
        from: Option<usize>,
        recv: &Recv,
        m: &str,
        usage: Use,
        line: u32,
        column: u32,
    ) {
        match self.members_named(u, recv, m, 0) {
            Hit::Decls(v, exact, prov) => {
                self.bind_decls(u, from, v, exact, usage, line, column, prov)
            }
            Hit::Nothing => {}
            Hit::Lacks | Hit::Unknown if matches!(usage, Use::Operator | Use::SuperFormal) => {}
            Hit::Lacks => self.name_only(u, from, m, usage, line, column, true),
            Hit::Unknown => self.name_only(u, from, m, usage, line, column, false),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn name_only(
        &mut self,
        u: usize,
        from: Option<usize>,
        m: &str,
        usage: Use,
        line: u32,
        column: u32,
        typed: bool,
    ) {
        // Record fields (`$1`) and the members every object has are never compiled.
        if OBJECT_MEMBERS.contains(&m) || m == "call" || m.starts_with('$') {
            return;
        }
        let l = self.units[u].lib;
        let mut cands: Vec<DRef> = Vec::new();
        let mut libs = vec![l];
        libs.extend(self.libs[l].imported.iter().copied());
        for x in libs {
            if let Some(v) = self.libs[x].members.get(m) {
                for d in v {
                    if !cands.contains(d) {
                        cands.push(*d);
                    }
                }
            }
        }
        if !cands.is_empty() && cands.len() <= MAX_CANDIDATES {
            for d in cands {
                let kind = Self::edge_kind(usage, self.decl(d));
                self.edge(
                    u,
                    from,
                    d,
                    kind,
                    line,
                    column,
                    Provenance::DartNameOnly,
                    false,
                );
            }
            return;
        }
        let reason = if typed {
            NAME_NOT_RESOLVED
        } else {
            RECEIVER_TYPE_UNKNOWN
        };
        let pkg = self.own_name(u);
        self.unresolved(
            u,
            line,
            column,
            reason,
            pkg,
            Some(m.to_string()),
            None,
            from,
        );
    }

    fn structural(&mut self, u: usize) {
        let l = self.units[u].lib;
        if self.libs[l].units[0] != u {
            let lib_unit = self.libs[l].units[0];
            let target = self.units[lib_unit].module_sym;
            self.facts.edges.push(Edge {
                source: self.units[u].module_sym,
                target,
                kind: EdgeKind::PartOf,
                confidence: Confidence::StructuralCertain,
                provenance: Provenance::DartDeclaration,
                file: Some(self.units[u].file),
                line: self.units[u].df.part_of_line.max(1),
                column: 0,
            });
        }
        for d in 0..self.units[u].df.decls.len() {
            let decl = &self.units[u].df.decls[d];
            let Some(p) = decl.parent else { continue };
            if decl.kind == SymbolKind::EnumMember {
                continue;
            }
            let (line, column) = decl.at;
            let (name, is_static, ctor) = (decl.name.clone(), decl.is_static, decl.ctor);
            let file = Some(self.units[u].file);
            self.facts.edges.push(Edge {
                source: self.units[u].syms[d],
                target: self.units[u].syms[p],
                kind: EdgeKind::MethodOf,
                confidence: Confidence::StructuralCertain,
                provenance: Provenance::DartDeclaration,
                file,
                line,
                column,
            });
            if is_static || ctor || self.units[u].df.decls[p].extension {
                continue;
            }
            if let Hit::Decls(v, true, _) = self.lookup_member((u, p), &name, false, false, 0) {
                let target = self.units[v[0].0].syms[v[0].1];
                self.facts.edges.push(Edge {
                    source: self.units[u].syms[d],
                    target,
                    kind: EdgeKind::Overrides,
                    confidence: Confidence::StructuralCertain,
                    provenance: Provenance::DartDeclaration,
                    file,
                    line,
                    column,
                });
            }
        }
    }
}

fn kind_word(k: DirKind) -> &'static str {
    match k {
        DirKind::Import => "import",
        DirKind::Export => "export",
        DirKind::Part => "part",
    }
}
