//! Go: modules from `go.mod`, packages by directory, build constraints, and resolution of every
//! reference through scopes, imports and written receiver types.
//!
//! Phase 1 ([`extract`]) runs per file in parallel and resolves locals. Phase 2 (here) builds
//! package scopes and member tables for the whole corpus and binds what phase 1 left open.

mod constraints;
mod extract;

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use kivgraph_format::{Confidence, EdgeKind, FileStatus, Language, Provenance, SymbolKind};
use rayon::prelude::*;

use crate::discover::SourceText;
use crate::facts::{
    Edge, FactSet, FileId, PackageEdge, PackageId, RepoId, Symbol, SymbolId, Unresolved,
};
use extract::{GoFile, Target, Ty, Use};

/// Unresolved reasons Go emits (an open vocabulary, documented in the specification).
pub const STDLIB_NOT_INDEXED: &str = "STDLIB_NOT_INDEXED";
pub const MODULE_PROVIDER_NOT_FOUND: &str = "MODULE_PROVIDER_NOT_FOUND";
pub const PACKAGE_NOT_BUILDABLE: &str = "PACKAGE_NOT_BUILDABLE";
pub const DECLARATION_NOT_FOUND: &str = "DECLARATION_NOT_FOUND";
pub const RECEIVER_TYPE_UNKNOWN: &str = "RECEIVER_TYPE_UNKNOWN";
/// Uses of cgo's pseudo-package `C`, whose declarations live in C code.
pub const CGO_NOT_INDEXED: &str = "CGO_NOT_INDEXED";

/// At most this many same-named members become `CANDIDATE` edges for one unknown receiver;
/// beyond it the reference is recorded as unresolved instead of fanning out.
const MAX_CANDIDATES: usize = 8;

const UNIVERSE: &[&str] = &[
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "true",
    "false",
    "iota",
    "nil",
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
];

/// One Go file handed over by discovery.
pub struct GoInput {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub text: SourceText,
}

struct ParsedFile {
    repo: RepoId,
    file: FileId,
    dir: String,
    go: GoFile,
}

struct Pkg {
    id: PackageId,
    import_path: String,
    files: Vec<usize>,
    /// Top-level names → symbols.
    scope: HashMap<String, Vec<SymbolId>>,
}

/// Per-symbol facts phase 2 needs: where its declaration was written, and what it says.
struct DeclInfo {
    pkg: usize,
    file: usize,
    decl: usize,
}

/// Compiles the Go files of all repositories into `facts`.
pub fn compile(
    facts: &mut FactSet,
    inputs: Vec<GoInput>,
    modules: &BTreeMap<(RepoId, String), String>,
) {
    // Build constraints first: an excluded file is recorded but never parsed.
    let mut dirs_seen: BTreeMap<(RepoId, String), (usize, usize)> = BTreeMap::new();
    let mut kept = Vec::new();
    for input in inputs {
        let dir = parent_dir(&input.path).to_string();
        let name = input.path.rsplit('/').next().unwrap_or(&input.path);
        let admitted =
            constraints::file_name_admits(name) && constraints::header_admits(input.text.as_str());
        let e = dirs_seen.entry((input.repo, dir)).or_default();
        e.0 += 1;
        if admitted {
            e.1 += 1;
            kept.push(input);
        } else {
            facts.files[input.file].status = FileStatus::BuildExcluded;
        }
    }
    for ((repo, dir), (all, admitted)) in &dirs_seen {
        if *all > 0 && *admitted == 0 {
            let import_path = import_path_of(modules, *repo, dir, &facts.repos[*repo].name);
            let abs = if dir.is_empty() {
                facts.repos[*repo].root.clone()
            } else {
                format!("{}/{}", facts.repos[*repo].root, dir)
            };
            facts.unresolved.push(Unresolved {
                repo: *repo,
                file: None,
                line: 0,
                column: 0,
                language: Language::Go,
                reason: PACKAGE_NOT_BUILDABLE.into(),
                requested_package: import_path,
                requested_symbol: None,
                detail: Some(format!("build constraints exclude all Go files in {abs}")),
                source: None,
            });
        }
    }

    // Extraction recurses over the syntax tree; a pool with roomy stacks plus the extractor's own
    // depth bound keep any input from overflowing a stack.
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(64 << 20)
        .build()
        .expect("thread pool");
    let parsed: Vec<(ParsedFile, bool)> = pool.install(|| {
        kept.into_par_iter()
            .map(|input| {
                let mut parser = tree_sitter::Parser::new();
                parser
                    .set_language(&tree_sitter_go::LANGUAGE.into())
                    .expect("Go grammar is compatible");
                let src = input.text.as_str().as_bytes();
                let go = match parser.parse(src, None) {
                    Some(tree) => extract::extract(&tree, src),
                    None => GoFile {
                        has_errors: true,
                        ..Default::default()
                    },
                };
                let errors = go.has_errors || go.too_deep;
                (
                    ParsedFile {
                        repo: input.repo,
                        file: input.file,
                        dir: parent_dir(&input.path).to_string(),
                        go,
                    },
                    errors,
                )
            })
            .collect()
    });
    let mut files: Vec<ParsedFile> = Vec::with_capacity(parsed.len());
    for (p, errors) in parsed {
        if errors {
            facts.files[p.file].status = FileStatus::Partial;
        }
        files.push(p);
    }
    files.sort_by_key(|f| f.file);

    // Packages: one per (repository, directory, package clause); `x_test` is its own package.
    let mut pkgs: Vec<Pkg> = Vec::new();
    let mut pkg_of_key: HashMap<(RepoId, String, String), usize> = HashMap::new();
    let mut by_import_path: HashMap<String, usize> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        if f.go.package_name.is_empty() {
            continue;
        }
        let key = (f.repo, f.dir.clone(), f.go.package_name.clone());
        let idx = *pkg_of_key.entry(key).or_insert_with(|| {
            let base = import_path_of(modules, f.repo, &f.dir, &facts.repos[f.repo].name);
            let import_path = if f.go.package_name.ends_with("_test") {
                format!("{base}_test")
            } else {
                base
            };
            let id = facts.packages.len();
            facts.packages.push(crate::facts::Package {
                repo: f.repo,
                language: Language::Go,
                name: import_path.clone(),
                path: f.dir.clone(),
                module: module_of(modules, f.repo, &f.dir).map(|(m, _)| m.to_string()),
            });
            pkgs.push(Pkg {
                id,
                import_path,
                files: Vec::new(),
                scope: HashMap::new(),
            });
            pkgs.len() - 1
        });
        pkgs[idx].files.push(fi);
        facts.files[f.file].package = Some(pkgs[idx].id);
    }
    for (i, p) in pkgs.iter().enumerate() {
        // The first registration of an import path wins; a `_test` package never shadows its base.
        by_import_path.entry(p.import_path.clone()).or_insert(i);
    }
    let pkg_of_file: HashMap<usize, usize> = pkgs
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| p.files.iter().map(move |&f| (f, pi)))
        .collect();

    // Symbols.
    let mut sym_of: HashMap<(usize, usize), SymbolId> = HashMap::new();
    let mut info: HashMap<SymbolId, DeclInfo> = HashMap::new();
    let mut members: HashMap<(usize, String), Vec<(String, SymbolId)>> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        let Some(&pi) = pkg_of_file.get(&fi) else {
            continue;
        };
        for (di, d) in f.go.decls.iter().enumerate() {
            let exported = extract::exported(&d.name);
            let sid = facts.symbols.len();
            facts.symbols.push(Symbol {
                repo: f.repo,
                package: pkgs[pi].id,
                file: f.file,
                language: Language::Go,
                name: d.name.clone(),
                qualified_name: d.qualified_name.clone(),
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
            sym_of.insert((fi, di), sid);
            info.insert(
                sid,
                DeclInfo {
                    pkg: pi,
                    file: fi,
                    decl: di,
                },
            );
            match (&d.owner, d.kind) {
                (Some(owner), _) => members
                    .entry((pi, owner.clone()))
                    .or_default()
                    .push((d.name.clone(), sid)),
                (None, _) => pkgs[pi].scope.entry(d.name.clone()).or_default().push(sid),
            }
        }
    }

    let mut r = Resolver {
        facts,
        files: &files,
        pkgs: &pkgs,
        by_import_path: &by_import_path,
        sym_of: &sym_of,
        info: &info,
        members: &members,
        module_syms: HashMap::new(),
        ctxs: Vec::new(),
        members_by_name: HashMap::new(),
    };
    // File scopes and a (package, member name) index, built once: resolution asks for them per
    // reference.
    r.ctxs = (0..files.len())
        .map(|fi| {
            pkg_of_file
                .get(&fi)
                .map(|&pi| Rc::new(r.build_file_ctx(fi, pi)))
        })
        .collect();
    for ((pi, _), list) in members.iter() {
        for (name, sid) in list {
            r.members_by_name
                .entry((*pi, name.clone()))
                .or_default()
                .push(*sid);
        }
    }
    r.structural();
    r.implements();
    for (fi, f) in files.iter().enumerate() {
        let Some(&pi) = pkg_of_file.get(&fi) else {
            continue;
        };
        let ctx = r.file_ctx(fi, pi);
        r.package_edges(&ctx);
        for reference in &f.go.refs {
            r.resolve(&ctx, reference);
        }
    }
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The module containing `dir`: its path and its directory.
fn module_of<'m>(
    modules: &'m BTreeMap<(RepoId, String), String>,
    repo: RepoId,
    dir: &str,
) -> Option<(&'m str, &'m str)> {
    let mut d = dir;
    loop {
        if let Some((key, m)) = modules.get_key_value(&(repo, d.to_string())) {
            return Some((m.as_str(), key.1.as_str()));
        }
        if d.is_empty() {
            return None;
        }
        d = parent_dir(d);
    }
}

fn import_path_of(
    modules: &BTreeMap<(RepoId, String), String>,
    repo: RepoId,
    dir: &str,
    repo_name: &str,
) -> String {
    match module_of(modules, repo, dir) {
        Some((m, mdir)) => {
            let rest = dir
                .strip_prefix(mdir)
                .unwrap_or(dir)
                .trim_start_matches('/');
            // The standard library's module `std` gives its packages unprefixed paths.
            if m == "std" {
                return if rest.is_empty() {
                    "std".to_string()
                } else {
                    rest.to_string()
                };
            }
            if rest.is_empty() {
                m.to_string()
            } else {
                format!("{m}/{rest}")
            }
        }
        None if dir.is_empty() => repo_name.to_string(),
        None => dir.to_string(),
    }
}

/// Whether an import path names the standard library: no dot in its first element.
fn is_stdlib(path: &str) -> bool {
    !path.split('/').next().unwrap_or("").contains('.')
}

/// What an import name of a file refers to.
#[derive(Clone)]
enum Imported {
    Graph(usize),
    External(String),
}

struct FileCtx {
    fi: usize,
    pi: usize,
    imports: HashMap<String, Imported>,
    dot: Vec<Imported>,
}

/// A resolved type: a named type symbol, or a container of one.
#[derive(Clone, Debug)]
enum RTy {
    Named(SymbolId),
    Container(Box<RTy>),
}

enum Resolution {
    Type(RTy),
    External(String),
    Unknown,
}

struct Resolver<'a> {
    facts: &'a mut FactSet,
    files: &'a [ParsedFile],
    pkgs: &'a [Pkg],
    by_import_path: &'a HashMap<String, usize>,
    sym_of: &'a HashMap<(usize, usize), SymbolId>,
    info: &'a HashMap<SymbolId, DeclInfo>,
    members: &'a HashMap<(usize, String), Vec<(String, SymbolId)>>,
    module_syms: HashMap<usize, SymbolId>,
    ctxs: Vec<Option<Rc<FileCtx>>>,
    members_by_name: HashMap<(usize, String), Vec<SymbolId>>,
}

/// The module path of package `pi`, for vendored imports.
fn ctx_pkg_module(r: &Resolver, pi: usize) -> Option<String> {
    r.facts.packages[r.pkgs[pi].id].module.clone()
}

impl Resolver<'_> {
    /// The graph package an import path names from a package of `module`: the path itself, or
    /// the copy in the module's `vendor/` directory.
    fn import(&self, module: Option<String>, path: &str) -> Option<usize> {
        if let Some(&p) = self.by_import_path.get(path) {
            return Some(p);
        }
        let vendored = match module.as_deref() {
            Some("std") | None => format!("vendor/{path}"),
            Some(m) => format!("{m}/vendor/{path}"),
        };
        self.by_import_path.get(&vendored).copied()
    }

    fn file_ctx(&self, fi: usize, pi: usize) -> Rc<FileCtx> {
        match self.ctxs.get(fi) {
            Some(Some(c)) => c.clone(),
            _ => Rc::new(self.build_file_ctx(fi, pi)),
        }
    }

    fn build_file_ctx(&self, fi: usize, pi: usize) -> FileCtx {
        let mut imports = HashMap::new();
        let mut dot = Vec::new();
        for imp in &self.files[fi].go.imports {
            let target = match self.import(ctx_pkg_module(self, pi), &imp.path) {
                Some(p) => Imported::Graph(p),
                None => Imported::External(imp.path.clone()),
            };
            let default_name = match &target {
                Imported::Graph(p) => self.pkgs[*p]
                    .files
                    .first()
                    .map(|&f| self.files[f].go.package_name.clone())
                    .unwrap_or_default(),
                Imported::External(path) => default_package_name(path),
            };
            match imp.name.as_deref() {
                Some("_") => {}
                Some(".") => dot.push(target),
                Some(alias) => {
                    imports.insert(alias.to_string(), target);
                }
                None => {
                    imports.insert(default_name, target);
                }
            }
        }
        FileCtx {
            fi,
            pi,
            imports,
            dot,
        }
    }

    /// Package dependencies from import declarations, and unresolved records for imports that no
    /// reference will ever name (blank and dot imports of packages outside the graph).
    fn package_edges(&mut self, ctx: &FileCtx) {
        let f = &self.files[ctx.fi];
        for imp in &f.go.imports {
            match self.import(ctx_pkg_module(self, ctx.pi), &imp.path) {
                Some(target) if target != ctx.pi => {
                    self.facts.package_edges.push(PackageEdge {
                        source: self.pkgs[ctx.pi].id,
                        target: self.pkgs[target].id,
                        kind: EdgeKind::PackageDependsOn,
                        confidence: if self.facts.packages[self.pkgs[target].id].repo
                            == self.facts.packages[self.pkgs[ctx.pi].id].repo
                        {
                            Confidence::ExactDeclarationMapped
                        } else {
                            Confidence::ExactPackageMapped
                        },
                        provenance: Provenance::GoImport,
                    });
                }
                Some(_) => {}
                None if matches!(imp.name.as_deref(), Some("_") | Some(".")) => {
                    let reason = external_reason(&imp.path);
                    self.facts.unresolved.push(Unresolved {
                        repo: f.repo,
                        file: Some(f.file),
                        line: imp.line,
                        column: imp.column,
                        language: Language::Go,
                        reason: reason.into(),
                        requested_package: imp.path.clone(),
                        requested_symbol: None,
                        detail: Some(format!(
                            "import {:?} {:?}",
                            imp.name.as_deref().unwrap_or(""),
                            imp.path
                        )),
                        source: None,
                    });
                }
                None => {}
            }
        }
    }

    /// IMPLEMENTS, at type and method level, for interfaces and types of one package whose
    /// method sets the syntax lists completely: every interface method has a same-named method on
    /// the type (declared or promoted) whose parameters and results are written identically. In
    /// one package identical text names identical types, so the fact is certain; across packages
    /// the same text can name different types, so no edge is claimed there.
    fn implements(&mut self) {
        let sig_tail =
            |sig: &str, name: &str| sig.find(&format!("{name}(")).map(|i| sig[i..].to_string());
        for (pi, pkg) in self.pkgs.iter().enumerate() {
            let types: Vec<SymbolId> = pkg
                .scope
                .values()
                .flatten()
                .copied()
                .filter(|&s| self.facts.symbols[s].kind == SymbolKind::Type)
                .collect();
            let mut interfaces: Vec<SymbolId> = types
                .iter()
                .copied()
                .filter(|&s| self.decl(s).is_interface && !self.decl(s).opaque_method_set)
                .collect();
            interfaces.sort_unstable();
            let mut concrete: Vec<SymbolId> = types
                .iter()
                .copied()
                .filter(|&s| !self.decl(s).is_interface && !self.decl(s).opaque_method_set)
                .collect();
            concrete.sort_unstable();
            for &i in &interfaces {
                let wanted = self.direct_members(i);
                if wanted.is_empty() {
                    continue; // every type satisfies an empty interface: no information
                }
                for &t in &concrete {
                    // Cheap rejection first: a type without embedded fields has only its own
                    // methods, so a missing name settles it without any lookup.
                    if let Some(own) = self.members.get(&(pi, self.facts.symbols[t].name.clone())) {
                        let embeds = own.iter().any(|(_, s)| self.decl(*s).embedded);
                        if !embeds && !wanted.iter().all(|(n, _)| own.iter().any(|(m, _)| m == n)) {
                            continue;
                        }
                    } else {
                        continue; // no methods at all
                    }
                    let mut pairs = Vec::new();
                    for (name, im) in &wanted {
                        let Some(m) = self.lookup_member(t, name, 0) else {
                            break;
                        };
                        let (ms, is) = (
                            self.decl(m).signature.clone(),
                            self.decl(*im).signature.clone(),
                        );
                        let same = self.facts.symbols[m].kind == SymbolKind::Method
                            && self.facts.symbols[m].package == self.facts.symbols[t].package
                            && matches!((ms.as_deref().and_then(|x| sig_tail(x, name)), is.as_deref().and_then(|x| sig_tail(x, name))), (Some(a), Some(b)) if a == b);
                        if !same {
                            break;
                        }
                        pairs.push((m, *im));
                    }
                    if pairs.len() != wanted.len() {
                        continue;
                    }
                    let f = self.facts.symbols[t].file;
                    let (line, col) = (
                        self.facts.symbols[t].start_line,
                        self.facts.symbols[t].start_column,
                    );
                    self.edge(
                        t,
                        i,
                        EdgeKind::Implements,
                        Confidence::StructuralCertain,
                        Provenance::GoDeclaration,
                        Some(f),
                        line,
                        col,
                    );
                    for (m, im) in pairs {
                        let (mf, ml, mc) = (
                            self.facts.symbols[m].file,
                            self.facts.symbols[m].start_line,
                            self.facts.symbols[m].start_column,
                        );
                        self.edge(
                            m,
                            im,
                            EdgeKind::Implements,
                            Confidence::StructuralCertain,
                            Provenance::GoDeclaration,
                            Some(mf),
                            ml,
                            mc,
                        );
                    }
                }
            }
        }
    }

    /// METHOD_OF and EMBEDS, read off declarations.
    fn structural(&mut self) {
        for (fi, f) in self.files.iter().enumerate() {
            for (di, d) in f.go.decls.iter().enumerate() {
                let Some(&sid) = self.sym_of.get(&(fi, di)) else {
                    continue;
                };
                let pi = self.info[&sid].pkg;
                if d.kind == SymbolKind::Method && d.owner.is_some() {
                    // Methods on a type declared in this package (interface methods are members, not methods-of).
                    let owner = d.owner.as_deref().unwrap_or("");
                    let owner_sym = self.pkgs[pi]
                        .scope
                        .get(owner)
                        .and_then(|v| v.iter().copied().find(|&s| self.is_type(s)));
                    if let Some(t) = owner_sym
                        && !self.decl(t).is_interface
                    {
                        self.edge(
                            sid,
                            t,
                            EdgeKind::MethodOf,
                            Confidence::StructuralCertain,
                            Provenance::GoDeclaration,
                            Some(f.file),
                            d.span.start_line,
                            d.span.start_column,
                        );
                    }
                }
                if d.kind == SymbolKind::Field
                    && d.embedded
                    && let Some(ty) = &d.ty
                {
                    let ctx = self.file_ctx(fi, pi);
                    if let Resolution::Type(RTy::Named(t)) = self.resolve_ty(&ctx, ty, 0)
                        && let Some(owner) = d.owner.as_deref()
                        && let Some(&owner_sym) =
                            self.pkgs[pi].scope.get(owner).and_then(|v| v.first())
                    {
                        self.edge(
                            owner_sym,
                            t,
                            EdgeKind::Embeds,
                            Confidence::StructuralCertain,
                            Provenance::GoDeclaration,
                            Some(f.file),
                            d.span.start_line,
                            d.span.start_column,
                        );
                    }
                }
            }
        }
    }

    fn decl(&self, sid: SymbolId) -> &extract::Decl {
        let i = &self.info[&sid];
        &self.files[i.file].go.decls[i.decl]
    }

    fn is_type(&self, sid: SymbolId) -> bool {
        matches!(
            self.facts.symbols[sid].kind,
            SymbolKind::Type | SymbolKind::Alias
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        source: SymbolId,
        target: SymbolId,
        kind: EdgeKind,
        confidence: Confidence,
        provenance: Provenance,
        file: Option<FileId>,
        line: u32,
        column: u32,
    ) {
        self.facts.edges.push(Edge {
            source,
            target,
            kind,
            confidence,
            provenance,
            file,
            line,
            column,
        });
    }

    fn source_of(&mut self, ctx: &FileCtx, r: &extract::Ref) -> SymbolId {
        if let Some(d) = r.source
            && let Some(&s) = self.sym_of.get(&(ctx.fi, d))
        {
            return s;
        }
        // No declaration encloses the use: a synthetic module symbol for the file owns it.
        if let Some(&s) = self.module_syms.get(&ctx.fi) {
            return s;
        }
        let f = &self.files[ctx.fi];
        let sf = &self.facts.files[f.file];
        let path = sf.path.clone();
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        let sid = self.facts.symbols.len();
        self.facts.symbols.push(Symbol {
            repo: f.repo,
            package: self.pkgs[ctx.pi].id,
            file: f.file,
            language: Language::Go,
            name,
            qualified_name: path,
            kind: SymbolKind::Module,
            exported: false,
            signature: None,
            start_line: 1,
            start_column: 0,
            end_line: sf.lines.max(1),
            end_column: 0,
            start_byte: 0,
            end_byte: sf.size as u32,
        });
        self.module_syms.insert(ctx.fi, sid);
        sid
    }

    fn edge_kind(&self, usage: Use, target: SymbolId) -> EdgeKind {
        let kind = self.facts.symbols[target].kind;
        let is_type = matches!(kind, SymbolKind::Type | SymbolKind::Alias);
        let is_func = matches!(kind, SymbolKind::Func | SymbolKind::Method);
        match usage {
            Use::Type => EdgeKind::TypeUses,
            _ if is_type => EdgeKind::TypeUses,
            Use::Call if is_func => EdgeKind::CallsDirect,
            // A function named without being called is a value: where it goes says what it is.
            Use::Arg if is_func => EdgeKind::PassesAsCallback,
            Use::Assign if is_func => EdgeKind::AssignsFunction,
            Use::Return if is_func => EdgeKind::ReturnsFunction,
            _ => EdgeKind::References,
        }
    }

    fn unresolved(
        &mut self,
        ctx: &FileCtx,
        r: &extract::Ref,
        reason: &str,
        package: String,
        symbol: String,
        detail: Option<String>,
    ) {
        let source = self.source_of(ctx, r);
        let f = &self.files[ctx.fi];
        self.facts.unresolved.push(Unresolved {
            repo: f.repo,
            file: Some(f.file),
            line: r.line,
            column: r.column,
            language: Language::Go,
            reason: reason.into(),
            requested_package: package,
            requested_symbol: Some(symbol),
            detail,
            source: Some(source),
        });
    }

    fn bind(
        &mut self,
        ctx: &FileCtx,
        r: &extract::Ref,
        target: SymbolId,
        confidence: Confidence,
        provenance: Provenance,
    ) {
        let source = self.source_of(ctx, r);
        let kind = self.edge_kind(r.usage, target);
        let file = self.files[ctx.fi].file;
        // An exact binding into another repository goes through that repository's module path:
        // it is package-mapped.
        let confidence = if confidence == Confidence::ExactDeclarationMapped
            && self.facts.symbols[target].repo != self.files[ctx.fi].repo
        {
            Confidence::ExactPackageMapped
        } else {
            confidence
        };
        self.edge(
            source,
            target,
            kind,
            confidence,
            provenance,
            Some(file),
            r.line,
            r.column,
        );
    }

    /// A name in a package's scope: exactly one symbol binds exactly; several (broken code) are candidates.
    fn bind_scope(
        &mut self,
        ctx: &FileCtx,
        r: &extract::Ref,
        syms: &[SymbolId],
        provenance: Provenance,
    ) {
        let confidence = if syms.len() == 1 {
            Confidence::ExactDeclarationMapped
        } else {
            Confidence::Candidate
        };
        for &s in syms {
            self.bind(ctx, r, s, confidence, provenance);
        }
    }

    fn resolve(&mut self, ctx: &FileCtx, r: &extract::Ref) {
        let pkg_path = self.pkgs[ctx.pi].import_path.clone();
        match &r.target {
            Target::Ident(name) => {
                if let Some(syms) = self.pkgs[ctx.pi].scope.get(name).cloned() {
                    return self.bind_scope(ctx, r, &syms, Provenance::GoScope);
                }
                for d in ctx.dot.clone() {
                    if let Imported::Graph(p) = d
                        && let Some(syms) = self.pkgs[p].scope.get(name).cloned()
                    {
                        return self.bind_scope(ctx, r, &syms, Provenance::GoImportSelector);
                    }
                }
                if UNIVERSE.contains(&name.as_str()) {
                    return;
                }
                if let Some(Imported::External(path)) =
                    ctx.dot.iter().find(|d| matches!(d, Imported::External(_)))
                {
                    let path = path.clone();
                    return self.unresolved(
                        ctx,
                        r,
                        external_reason(&path),
                        path,
                        name.clone(),
                        None,
                    );
                }
                self.unresolved(
                    ctx,
                    r,
                    DECLARATION_NOT_FOUND,
                    pkg_path,
                    name.clone(),
                    Some("no declaration in the package's built files".into()),
                );
            }
            Target::Selector {
                operand,
                name,
                operand_at,
            } => {
                // A package-level value or type of this package: `v.M`, `T.M`.
                if let Some(syms) = self.pkgs[ctx.pi].scope.get(operand).cloned() {
                    let op_ref = extract::Ref {
                        target: Target::Ident(operand.clone()),
                        usage: Use::Value,
                        line: operand_at.0,
                        column: operand_at.1,
                        ..r.clone()
                    };
                    self.bind_scope(ctx, &op_ref, &syms, Provenance::GoScope);
                    let recv = if syms.len() == 1 && self.is_type(syms[0]) {
                        Some(Ty::Named {
                            qual: None,
                            name: operand.clone(),
                        })
                    } else {
                        Some(Ty::Value {
                            qual: None,
                            name: operand.clone(),
                        })
                    };
                    return self.member(ctx, r, recv.as_ref(), name);
                }
                match ctx.imports.get(operand).cloned() {
                    Some(Imported::Graph(p)) => {
                        let syms = self.pkgs[p].scope.get(name).cloned().unwrap_or_default();
                        if syms.is_empty() {
                            let path = self.pkgs[p].import_path.clone();
                            self.unresolved(
                                ctx,
                                r,
                                DECLARATION_NOT_FOUND,
                                path,
                                name.clone(),
                                Some("no declaration in the package's built files".into()),
                            );
                        } else {
                            self.bind_scope(ctx, r, &syms, Provenance::GoImportSelector);
                        }
                    }
                    Some(Imported::External(path)) => {
                        self.unresolved(ctx, r, external_reason(&path), path, name.clone(), None);
                    }
                    None => {
                        // A dot-imported value or type.
                        for d in ctx.dot.clone() {
                            if let Imported::Graph(p) = d
                                && let Some(syms) = self.pkgs[p].scope.get(operand).cloned()
                            {
                                let op_ref = extract::Ref {
                                    target: Target::Ident(operand.clone()),
                                    usage: Use::Value,
                                    line: operand_at.0,
                                    column: operand_at.1,
                                    ..r.clone()
                                };
                                self.bind_scope(ctx, &op_ref, &syms, Provenance::GoImportSelector);
                                let recv = if syms.len() == 1 && self.is_type(syms[0]) {
                                    Some(Ty::Named {
                                        qual: None,
                                        name: operand.clone(),
                                    })
                                } else {
                                    Some(Ty::Value {
                                        qual: None,
                                        name: operand.clone(),
                                    })
                                };
                                return self.member(ctx, r, recv.as_ref(), name);
                            }
                        }
                        if UNIVERSE.contains(&operand.as_str()) {
                            return;
                        }
                        self.unresolved(
                            ctx,
                            r,
                            DECLARATION_NOT_FOUND,
                            pkg_path,
                            operand.clone(),
                            Some(format!(
                                "{operand}.{name}: the operand is declared nowhere the file can see"
                            )),
                        );
                    }
                }
            }
            Target::Member { recv, name } => self.member(ctx, r, recv.as_ref(), name),
            Target::FieldKey { ty, name } => match self.resolve_ty(ctx, ty, 0) {
                Resolution::Type(RTy::Named(t)) => {
                    let t = self.underlying_named(t);
                    if !self.decl(t).is_struct {
                        // A map or slice type: the key is an expression, not a field name.
                        let ident = extract::Ref {
                            target: Target::Ident(name.clone()),
                            ..r.clone()
                        };
                        return self.resolve(ctx, &ident);
                    }
                    match self.direct_members(t).into_iter().find(|(n, s)| {
                        n == name && self.facts.symbols[*s].kind == SymbolKind::Field
                    }) {
                        Some((_, f)) => self.bind(
                            ctx,
                            r,
                            f,
                            Confidence::ExactDeclarationMapped,
                            Provenance::GoReceiverTyped,
                        ),
                        None => self.unresolved(
                            ctx,
                            r,
                            DECLARATION_NOT_FOUND,
                            pkg_path,
                            name.clone(),
                            Some("no such field on the literal's type".into()),
                        ),
                    }
                }
                Resolution::External(path) => {
                    self.unresolved(ctx, r, external_reason(&path), path, name.clone(), None)
                }
                // Not a named type we can see (a container of a builtin, an unresolved name):
                // the key is a field name of an unknown struct or an expression; no guess.
                _ => {}
            },
        }
    }

    /// `x.name` where `x` has type `recv`.
    fn member(&mut self, ctx: &FileCtx, r: &extract::Ref, recv: Option<&Ty>, name: &str) {
        let resolution = match recv {
            Some(t) => self.resolve_ty(ctx, t, 0),
            None => Resolution::Unknown,
        };
        match resolution {
            Resolution::Type(RTy::Named(t)) => {
                if let Some(m) = self.lookup_member(t, name, 0) {
                    return self.bind(
                        ctx,
                        r,
                        m,
                        Confidence::ExactDeclarationMapped,
                        Provenance::GoReceiverTyped,
                    );
                }
            }
            Resolution::External(path) => {
                return self.unresolved(
                    ctx,
                    r,
                    external_reason(&path),
                    path,
                    name.to_string(),
                    None,
                );
            }
            _ => {}
        }
        // The receiver's type is not known from written types: same-named members of the packages
        // this file can see are candidates, never exact.
        let mut visible: Vec<usize> = vec![ctx.pi];
        visible.extend(
            ctx.imports
                .values()
                .chain(ctx.dot.iter())
                .filter_map(|i| match i {
                    Imported::Graph(p) => Some(*p),
                    Imported::External(_) => None,
                }),
        );
        visible.sort_unstable();
        visible.dedup();
        let mut cands: Vec<SymbolId> = Vec::new();
        for p in visible {
            if let Some(list) = self.members_by_name.get(&(p, name.to_string())) {
                cands.extend(list);
            }
        }
        cands.sort_unstable();
        cands.dedup();
        if !cands.is_empty() && cands.len() <= MAX_CANDIDATES {
            for c in cands {
                self.bind(ctx, r, c, Confidence::Candidate, Provenance::GoNameOnly);
            }
        } else {
            let pkg = self.pkgs[ctx.pi].import_path.clone();
            let detail = if cands.is_empty() {
                "the receiver's type is not written in the code and no visible type declares this member".to_string()
            } else {
                format!(
                    "the receiver's type is not written in the code and {} visible members share the name",
                    cands.len()
                )
            };
            self.unresolved(
                ctx,
                r,
                RECEIVER_TYPE_UNKNOWN,
                pkg,
                name.to_string(),
                Some(detail),
            );
        }
    }

    /// Methods and fields declared directly on type `t` (not promoted).
    fn direct_members(&self, t: SymbolId) -> Vec<(String, SymbolId)> {
        let pi = self.info[&t].pkg;
        self.members
            .get(&(pi, self.facts.symbols[t].name.clone()))
            .cloned()
            .unwrap_or_default()
    }

    /// Follows aliases and `type A B` definitions to the type whose fields `t` has.
    fn underlying_named(&self, mut t: SymbolId) -> SymbolId {
        for _ in 0..8 {
            let d = self.decl(t);
            if d.is_struct || d.is_interface {
                return t;
            }
            let Some(u) = d.underlying.clone() else {
                return t;
            };
            let i = &self.info[&t];
            let ctx = self.file_ctx(i.file, i.pkg);
            match self.resolve_ty_ro(&ctx, &u, 0) {
                Resolution::Type(RTy::Named(n)) if n != t => t = n,
                _ => return t,
            }
        }
        t
    }

    /// Go's selector rule: the shallowest member named `name`; a tie at one depth finds nothing.
    fn lookup_member(&self, t: SymbolId, name: &str, depth: usize) -> Option<SymbolId> {
        if depth > 5 {
            return None;
        }
        let own = self.direct_members(t);
        if let Some((_, s)) = own.iter().find(|(n, _)| n == name) {
            return Some(*s);
        }
        let d = self.decl(t);
        if self.facts.symbols[t].kind == SymbolKind::Alias || (!d.is_struct && !d.is_interface) {
            // Alias: every member of the target. Defined type: the underlying type's fields
            // (methods are not inherited, but fields and embedded interfaces' methods are).
            let u = self.underlying_named(t);
            if u != t {
                let found = self.lookup_member(u, name, depth + 1)?;
                let is_method_of_u = self.facts.symbols[found].kind == SymbolKind::Method
                    && !self.decl(u).is_interface;
                if self.facts.symbols[t].kind == SymbolKind::Alias || !is_method_of_u {
                    return Some(found);
                }
            }
            return None;
        }
        // Promoted through embedded fields (struct) or embedded interfaces.
        let mut found: Vec<SymbolId> = Vec::new();
        for (_, f) in own.iter().filter(|(_, s)| self.decl(*s).embedded) {
            let Some(ty) = self.decl(*f).ty.clone() else {
                continue;
            };
            let i = &self.info[f];
            let ctx = self.file_ctx(i.file, i.pkg);
            if let Resolution::Type(RTy::Named(e)) = self.resolve_ty_ro(&ctx, &ty, 0)
                && let Some(m) = self.lookup_member(e, name, depth + 1)
            {
                found.push(m);
            }
        }
        found.sort_unstable();
        found.dedup();
        if found.len() == 1 { found.pop() } else { None }
    }

    fn resolve_ty(&mut self, ctx: &FileCtx, ty: &Ty, depth: usize) -> Resolution {
        self.resolve_ty_ro(ctx, ty, depth)
    }

    /// Resolves a written type, in the context of the file that wrote it.
    fn resolve_ty_ro(&self, ctx: &FileCtx, ty: &Ty, depth: usize) -> Resolution {
        if depth > 8 {
            return Resolution::Unknown;
        }
        match ty {
            Ty::Named { qual, name } => match self.lookup_name(ctx, qual.as_deref(), name) {
                Lookup::Found(syms) => match syms.as_slice() {
                    [s] if self.is_type(*s) => Resolution::Type(RTy::Named(*s)),
                    _ => Resolution::Unknown,
                },
                Lookup::External(p) => Resolution::External(p),
                Lookup::None => Resolution::Unknown,
            },
            Ty::Container(inner) => match self.resolve_ty_ro(ctx, inner, depth + 1) {
                Resolution::Type(t) => Resolution::Type(RTy::Container(Box::new(t))),
                other => other,
            },
            Ty::Elem(inner) => match self.resolve_ty_ro(ctx, inner, depth + 1) {
                Resolution::Type(RTy::Container(e)) => Resolution::Type(*e),
                Resolution::Type(RTy::Named(t)) => {
                    // A defined type over a container: `type Items []Item`.
                    let d = self.decl(t);
                    match d.underlying.clone() {
                        Some(u @ Ty::Container(_)) => {
                            let i = &self.info[&t];
                            let dctx = self.file_ctx(i.file, i.pkg);
                            self.resolve_ty_ro(&dctx, &Ty::Elem(Box::new(u)), depth + 1)
                        }
                        _ => Resolution::Unknown,
                    }
                }
                _ => Resolution::Unknown,
            },
            Ty::Value { qual, name } => match self.lookup_name(ctx, qual.as_deref(), name) {
                Lookup::Found(syms) => match syms.as_slice() {
                    [s] if matches!(
                        self.facts.symbols[*s].kind,
                        SymbolKind::Var | SymbolKind::Const
                    ) =>
                    {
                        self.declared_ty(*s, depth)
                    }
                    _ => Resolution::Unknown,
                },
                Lookup::External(p) => Resolution::External(p),
                Lookup::None => match qual {
                    // `v.f` where `v` is a package-level value of this package.
                    Some(q) => match self.lookup_name(ctx, None, q) {
                        Lookup::Found(syms) if syms.len() == 1 => {
                            let base = self.declared_ty(syms[0], depth);
                            self.field_of(base, name, depth)
                        }
                        _ => Resolution::Unknown,
                    },
                    None => Resolution::Unknown,
                },
            },
            Ty::Field { base, name } => {
                let b = self.resolve_ty_ro(ctx, base, depth + 1);
                self.field_of(b, name, depth)
            }
            Ty::Call { qual, name, index } => match self.lookup_name(ctx, qual.as_deref(), name) {
                Lookup::Found(syms) => match syms.as_slice() {
                    [s] if self.is_type(*s) => Resolution::Type(RTy::Named(*s)),
                    [s] if self.facts.symbols[*s].kind == SymbolKind::Func => {
                        self.result_ty(*s, *index, depth)
                    }
                    _ => Resolution::Unknown,
                },
                Lookup::External(p) => Resolution::External(p),
                Lookup::None => match qual {
                    Some(q) => match self.lookup_name(ctx, None, q) {
                        // `v.M()` on a package-level value.
                        Lookup::Found(syms) if syms.len() == 1 => {
                            let recv = self.declared_ty(syms[0], depth);
                            self.method_result(recv, name, *index, depth)
                        }
                        _ => Resolution::Unknown,
                    },
                    None => Resolution::Unknown,
                },
            },
            Ty::MethodCall { recv, name, index } => {
                let r = self.resolve_ty_ro(ctx, recv, depth + 1);
                self.method_result(r, name, *index, depth)
            }
        }
    }

    fn declared_ty(&self, s: SymbolId, depth: usize) -> Resolution {
        let d = self.decl(s);
        let Some(ty) = d.ty.clone() else {
            return Resolution::Unknown;
        };
        let i = &self.info[&s];
        let ctx = self.file_ctx(i.file, i.pkg);
        self.resolve_ty_ro(&ctx, &ty, depth + 1)
    }

    fn result_ty(&self, s: SymbolId, index: usize, depth: usize) -> Resolution {
        let d = self.decl(s);
        let Some(Some(ty)) = d.results.get(index).cloned() else {
            return Resolution::Unknown;
        };
        let i = &self.info[&s];
        let ctx = self.file_ctx(i.file, i.pkg);
        self.resolve_ty_ro(&ctx, &ty, depth + 1)
    }

    fn field_of(&self, base: Resolution, name: &str, depth: usize) -> Resolution {
        match base {
            Resolution::Type(RTy::Named(t)) => match self.lookup_member(t, name, 0) {
                Some(f) if self.facts.symbols[f].kind == SymbolKind::Field => {
                    self.declared_ty(f, depth)
                }
                _ => Resolution::Unknown,
            },
            Resolution::External(p) => Resolution::External(p),
            _ => Resolution::Unknown,
        }
    }

    fn method_result(
        &self,
        recv: Resolution,
        name: &str,
        index: usize,
        depth: usize,
    ) -> Resolution {
        match recv {
            Resolution::Type(RTy::Named(t)) => match self.lookup_member(t, name, 0) {
                Some(m) if self.facts.symbols[m].kind == SymbolKind::Method => {
                    self.result_ty(m, index, depth)
                }
                _ => Resolution::Unknown,
            },
            Resolution::External(p) => Resolution::External(p),
            _ => Resolution::Unknown,
        }
    }

    /// A possibly qualified package-level name as seen from a file.
    fn lookup_name(&self, ctx: &FileCtx, qual: Option<&str>, name: &str) -> Lookup {
        match qual {
            None => {
                if let Some(s) = self.pkgs[ctx.pi].scope.get(name) {
                    return Lookup::Found(s.clone());
                }
                for d in &ctx.dot {
                    match d {
                        Imported::Graph(p) => {
                            if let Some(s) = self.pkgs[*p].scope.get(name) {
                                return Lookup::Found(s.clone());
                            }
                        }
                        Imported::External(_) => {}
                    }
                }
                Lookup::None
            }
            Some(q) => match ctx.imports.get(q) {
                Some(Imported::Graph(p)) => match self.pkgs[*p].scope.get(name) {
                    Some(s) => Lookup::Found(s.clone()),
                    None => Lookup::None,
                },
                Some(Imported::External(path)) => Lookup::External(path.clone()),
                None => Lookup::None,
            },
        }
    }
}

enum Lookup {
    Found(Vec<SymbolId>),
    External(String),
    None,
}

fn external_reason(path: &str) -> &'static str {
    if path == "C" {
        CGO_NOT_INDEXED
    } else if is_stdlib(path) {
        STDLIB_NOT_INDEXED
    } else {
        MODULE_PROVIDER_NOT_FOUND
    }
}

/// The package name an import path declares by convention: its last element, without a `.vN`
/// or `go-` decoration. Only used for packages outside the graph, whose clause we cannot read.
fn default_package_name(path: &str) -> String {
    let mut last = path.rsplit('/').next().unwrap_or(path);
    if last.starts_with('v')
        && last[1..].chars().all(|c| c.is_ascii_digit())
        && path.matches('/').count() > 0
    {
        last = path.rsplit('/').nth(1).unwrap_or(last);
    }
    let last = last.strip_prefix("go-").unwrap_or(last);
    let last = last.split('.').next().unwrap_or(last);
    last.replace('-', "_")
}

/// Reads the `module` directive of a go.mod file.
pub fn module_path(go_mod: &str) -> Option<String> {
    go_mod.lines().find_map(|l| {
        let l = l.trim();
        let rest = l.strip_prefix("module")?;
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            return None;
        }
        let m = rest.split("//").next()?.trim().trim_matches('"');
        (!m.is_empty()).then(|| m.to_string())
    })
}
