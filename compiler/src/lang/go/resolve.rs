//! Phase 2 of Go: binds what phase 1 left open (package-level names, imports, members) through
//! package scopes, file scopes and written receiver types, and reads structural facts
//! (METHOD_OF, EMBEDS, IMPLEMENTS) off declarations.

use crate::emit::{self, NameOnly, ReceiverWords, Request, Site};
use std::collections::HashMap;
use std::rc::Rc;

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::extract::{self, Target, Ty, Use};
use super::{
    CGO_NOT_INDEXED, DECLARATION_NOT_FOUND, DeclInfo, MODULE_PROVIDER_NOT_FOUND, ParsedFile, Pkg,
    RECEIVER_TYPE_UNKNOWN, STDLIB_NOT_INDEXED, UNIVERSE, is_stdlib,
};
use crate::facts::{Edge, FactSet, FileId, PackageEdge, Symbol, SymbolId, Unresolved};

/// What an import name of a file refers to.
#[derive(Clone)]
pub(super) enum Imported {
    Graph(usize),
    External(String),
}

/// How Go words a `RECEIVER_TYPE_UNKNOWN` record.
const RECEIVER_WORDS: ReceiverWords = ReceiverWords {
    unwritten: "the receiver's type is not written in the code",
    none: "no visible type declares this member",
    shared: "visible members share the name",
};

pub(super) struct FileCtx {
    fi: usize,
    pi: usize,
    imports: HashMap<String, Imported>,
    dot: Vec<Imported>,
}

/// A resolved type: a named type symbol, or a container of one.
#[derive(Clone, Debug)]
pub(super) enum RTy {
    Named(SymbolId),
    Container(Box<RTy>),
}

pub(super) enum Resolution {
    Type(RTy),
    External(String),
    Unknown,
}

pub(super) struct Resolver<'a> {
    pub(super) facts: &'a mut FactSet,
    pub(super) files: &'a [ParsedFile],
    pub(super) pkgs: &'a [Pkg],
    pub(super) by_import_path: &'a HashMap<String, usize>,
    pub(super) sym_of: &'a HashMap<(usize, usize), SymbolId>,
    pub(super) info: &'a HashMap<SymbolId, DeclInfo>,
    pub(super) members: &'a HashMap<(usize, String), Vec<(String, SymbolId)>>,
    pub(super) module_syms: HashMap<usize, SymbolId>,
    pub(super) ctxs: Vec<Option<Rc<FileCtx>>>,
    pub(super) members_by_name: HashMap<(usize, String), Vec<SymbolId>>,
}

/// The module path of package `pi`, for vendored imports.
pub(super) fn ctx_pkg_module(r: &Resolver, pi: usize) -> Option<String> {
    r.facts.packages[r.pkgs[pi].id].module.clone()
}

impl Resolver<'_> {
    /// The graph package an import path names from a package of `module`: the path itself, or
    /// the copy in the module's `vendor/` directory.
    pub(super) fn import(&self, module: Option<String>, path: &str) -> Option<usize> {
        if let Some(&p) = self.by_import_path.get(path) {
            return Some(p);
        }
        let vendored = match module.as_deref() {
            Some("std") | None => format!("vendor/{path}"),
            Some(m) => format!("{m}/vendor/{path}"),
        };
        self.by_import_path.get(&vendored).copied()
    }

    pub(super) fn file_ctx(&self, fi: usize, pi: usize) -> Rc<FileCtx> {
        match self.ctxs.get(fi) {
            Some(Some(c)) => c.clone(),
            _ => Rc::new(self.build_file_ctx(fi, pi)),
        }
    }

    pub(super) fn build_file_ctx(&self, fi: usize, pi: usize) -> FileCtx {
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
    pub(super) fn package_edges(&mut self, ctx: &FileCtx) {
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
    pub(super) fn implements(&mut self) {
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
    pub(super) fn structural(&mut self) {
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

    pub(super) fn decl(&self, sid: SymbolId) -> &extract::Decl {
        let i = &self.info[&sid];
        &self.files[i.file].go.decls[i.decl]
    }

    pub(super) fn is_type(&self, sid: SymbolId) -> bool {
        matches!(
            self.facts.symbols[sid].kind,
            SymbolKind::Type | SymbolKind::Alias
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn edge(
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

    pub(super) fn source_of(&mut self, ctx: &FileCtx, r: &extract::Ref) -> SymbolId {
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

    pub(super) fn edge_kind(&self, usage: Use, target: SymbolId) -> EdgeKind {
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

    pub(super) fn unresolved(
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
        let site = Site {
            repo: f.repo,
            file: f.file,
            line: r.line,
            column: r.column,
            language: Language::Go,
        };
        let request = Request {
            package,
            symbol: Some(symbol),
            detail,
        };
        emit::unresolved(self.facts, site, reason, request, Some(source));
    }

    pub(super) fn bind(
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
    pub(super) fn bind_scope(
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

    pub(super) fn resolve(&mut self, ctx: &FileCtx, r: &extract::Ref) {
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
    pub(super) fn member(
        &mut self,
        ctx: &FileCtx,
        r: &extract::Ref,
        recv: Option<&Ty>,
        name: &str,
    ) {
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
        match emit::name_only(cands, &RECEIVER_WORDS) {
            NameOnly::Candidates(cands) => {
                for c in cands {
                    self.bind(ctx, r, c, Confidence::Candidate, Provenance::GoNameOnly);
                }
            }
            NameOnly::Unresolved(detail) => {
                let pkg = self.pkgs[ctx.pi].import_path.clone();
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
    }

    /// Methods and fields declared directly on type `t` (not promoted).
    pub(super) fn direct_members(&self, t: SymbolId) -> Vec<(String, SymbolId)> {
        let pi = self.info[&t].pkg;
        self.members
            .get(&(pi, self.facts.symbols[t].name.clone()))
            .cloned()
            .unwrap_or_default()
    }

    /// Follows aliases and `type A B` definitions to the type whose fields `t` has.
    pub(super) fn underlying_named(&self, mut t: SymbolId) -> SymbolId {
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
    pub(super) fn lookup_member(&self, t: SymbolId, name: &str, depth: usize) -> Option<SymbolId> {
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

    pub(super) fn resolve_ty(&mut self, ctx: &FileCtx, ty: &Ty, depth: usize) -> Resolution {
        self.resolve_ty_ro(ctx, ty, depth)
    }

    /// Resolves a written type, in the context of the file that wrote it.
    pub(super) fn resolve_ty_ro(&self, ctx: &FileCtx, ty: &Ty, depth: usize) -> Resolution {
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

    pub(super) fn declared_ty(&self, s: SymbolId, depth: usize) -> Resolution {
        let d = self.decl(s);
        let Some(ty) = d.ty.clone() else {
            return Resolution::Unknown;
        };
        let i = &self.info[&s];
        let ctx = self.file_ctx(i.file, i.pkg);
        self.resolve_ty_ro(&ctx, &ty, depth + 1)
    }

    pub(super) fn result_ty(&self, s: SymbolId, index: usize, depth: usize) -> Resolution {
        let d = self.decl(s);
        let Some(Some(ty)) = d.results.get(index).cloned() else {
            return Resolution::Unknown;
        };
        let i = &self.info[&s];
        let ctx = self.file_ctx(i.file, i.pkg);
        self.resolve_ty_ro(&ctx, &ty, depth + 1)
    }

    pub(super) fn field_of(&self, base: Resolution, name: &str, depth: usize) -> Resolution {
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

    pub(super) fn method_result(
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
    pub(super) fn lookup_name(&self, ctx: &FileCtx, qual: Option<&str>, name: &str) -> Lookup {
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

pub(super) enum Lookup {
    Found(Vec<SymbolId>),
    External(String),
    None,
}

pub(super) fn external_reason(path: &str) -> &'static str {
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
pub(super) fn default_package_name(path: &str) -> String {
    let mut last = path.rsplit('/').next().unwrap_or(path);
    if last.len() > 1
        && last.starts_with('v')
        && last[1..].chars().all(|c| c.is_ascii_digit())
        && path.matches('/').count() > 0
    {
        last = path.rsplit('/').nth(1).unwrap_or(last);
    }
    let last = last.strip_prefix("go-").unwrap_or(last);
    let last = last.split('.').next().unwrap_or(last);
    last.replace('-', "_")
}
