//! Emission: the symbols and packages of every module, the facts of its module specifiers,
//! the structural edges read off declarations, and the one place where a reference becomes an
//! edge or an unresolved record (through [`crate::emit`]).

use super::*;

impl Shared {
    /// The package, module symbol and declaration symbols of every module.
    pub(super) fn symbols(&mut self, facts: &mut FactSet) {
        for m in &mut self.mods {
            let module = self
                .project
                .package_of(m.repo, &m.path)
                .and_then(|p| self.project.packages[p].name.clone());
            let pid = facts.push_package(Package {
                repo: m.repo,
                language: m.language,
                name: m.path.clone(),
                path: m.path.clone(),
                module,
            });
            let home = Home {
                repo: m.repo,
                package: pid,
                file: m.file,
                language: m.language,
            };
            m.module_sym = home.push_module(facts, &m.path, m.path.clone());
            m.syms = Vec::with_capacity(m.ts.decls.len());
            for d in &m.ts.decls {
                m.syms
                    .push(facts.push_symbol(decl_symbol!(home, d, d.exported)));
            }
        }
    }
}

impl Resolver<'_> {
    // ------------------------------------------------------------------ specifiers

    pub(super) fn specifier_facts(&mut self, m: usize) {
        let mut deps = BTreeSet::new();
        for si in 0..self.mods[m].ts.specifiers.len() {
            let s = self.mods[m].ts.specifiers[si].clone();
            let at = Place {
                module: m,
                from: None,
                line: s.line,
                column: s.column,
            };
            let (reason, package, detail) = match self.mods[m].specs[si].clone() {
                Resolved::Module(t) => {
                    if t != m {
                        deps.insert(t);
                    }
                    continue;
                }
                Resolved::PackageNotFound(p) => (
                    reason::PACKAGE_PROVIDER_NOT_FOUND,
                    p,
                    format!("import \"{}\"", s.spec),
                ),
                Resolved::AmbiguousPackage(p) => (
                    reason::AMBIGUOUS_PACKAGE_PROVIDER,
                    p,
                    format!(
                        "import \"{}\": several repositories provide the package",
                        s.spec
                    ),
                ),
                Resolved::NotFound => (
                    reason::MODULE_NOT_RESOLVED,
                    s.spec.clone(),
                    "no compiled file matches the specifier".into(),
                ),
            };
            self.unresolved(at, reason, package, None, detail);
        }
        let src_pkg = self.package_of[m];
        for t in deps {
            let tgt_pkg = self.package_of[t];
            let same = self.mods[m].repo == self.mods[t].repo;
            emit::package_edge(self.facts, (src_pkg, tgt_pkg), same, Provenance::TsImport);
        }
    }

    // ------------------------------------------------------------------ records

    /// The exact confidence of a binding from module `from` to module `to`.
    pub(super) fn exact(&self, from: usize, to: usize) -> Confidence {
        emit::exact(self.mods[from].repo == self.mods[to].repo)
    }

    fn site(&self, m: usize, line: u32, column: u32) -> Site {
        let md = &self.mods[m];
        site_in((md.repo, md.file, md.language), (line, column))
    }

    pub(super) fn sym(&self, m: usize, d: usize) -> SymbolId {
        self.mods[m].syms[d]
    }

    /// The symbol a reference made in declaration `from` of module `m` starts from: that
    /// declaration's, or the module's outside any declaration.
    pub(super) fn source_of(&self, m: usize, from: Option<usize>) -> SymbolId {
        match from {
            Some(d) => self.sym(m, d),
            None => self.mods[m].module_sym,
        }
    }

    /// Records an unresolved reference at `at`, owned by its enclosing declaration (the module
    /// symbol outside any).
    pub(super) fn unresolved(
        &mut self,
        at: Place,
        reason: &str,
        package: String,
        symbol: Option<String>,
        detail: String,
    ) {
        let site = self.site(at.module, at.line, at.column);
        let source = self.source_of(at.module, at.from);
        let request = Request {
            package,
            symbol,
            detail: Some(detail),
        };
        emit::unresolved(self.facts, site, reason, request, Some(source));
    }

    /// Records an unresolved name or member of module `at.module` itself (`DECLARATION_NOT_FOUND`,
    /// `RECEIVER_TYPE_UNKNOWN`): the requested package is the file's own module path.
    pub(super) fn unresolved_here(&mut self, at: Place, reason: &str, name: &str, detail: String) {
        let path = self.mods[at.module].path.clone();
        self.unresolved(at, reason, path, Some(name.to_string()), detail);
    }

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

    /// Records the edge of a reference at `at` used as `usage` to declaration `target`: exact
    /// (by declaration or by package, as the repositories say) unless `candidate`, and
    /// structural for the heritage names of a class or interface bound exactly.
    pub(super) fn edge(
        &mut self,
        at: Place,
        target: (usize, usize),
        usage: Use,
        (provenance, candidate): (Provenance, bool),
    ) {
        let (m, (tm, td)) = (at.module, target);
        let kind = Self::edge_kind(usage, self.mods[tm].ts.decls[td].kind);
        let structural = matches!(usage, Use::Extends | Use::Implements)
            && at.from.is_some_and(|d| {
                matches!(
                    self.mods[m].ts.decls[d].kind,
                    SymbolKind::Class | SymbolKind::Interface
                )
            })
            && !candidate;
        let binding = if structural {
            (Confidence::StructuralCertain, Provenance::TsDeclaration)
        } else if candidate {
            (Confidence::Candidate, provenance)
        } else {
            (self.exact(m, tm), provenance)
        };
        let ends = (self.source_of(m, at.from), self.sym(tm, td));
        let site = self.site(m, at.line, at.column);
        emit::edge(self.facts, ends, kind, binding, site);
    }

    /// A structural edge from declaration `d` of module `m` to `target`, where `d` starts.
    fn structural_edge(&mut self, (m, d): (usize, usize), target: (usize, usize), kind: EdgeKind) {
        let span = self.mods[m].ts.decls[d].span;
        let site = self.site(m, span.start_line, span.start_column);
        let ends = (self.sym(m, d), self.sym(target.0, target.1));
        let binding = (Confidence::StructuralCertain, Provenance::TsDeclaration);
        emit::edge(self.facts, ends, kind, binding, site);
    }

    // ------------------------------------------------------------------ structural

    pub(super) fn structural(&mut self, m: usize) {
        let n = self.mods[m].ts.decls.len();
        for d in 0..n {
            let (kind, parent) = {
                let decl = &self.mods[m].ts.decls[d];
                (decl.kind, decl.parent)
            };
            let Some(p) = parent else { continue };
            let pk = self.mods[m].ts.decls[p].kind;
            let method_like = kind == SymbolKind::Method
                || (kind == SymbolKind::Property && pk == SymbolKind::Class);
            if method_like && matches!(pk, SymbolKind::Class | SymbolKind::Interface) {
                self.structural_edge((m, d), (m, p), EdgeKind::MethodOf);
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
                        self.structural_edge((m, d), (tm, td), EdgeKind::Overrides);
                    }
                }
            }
        }
    }
}
