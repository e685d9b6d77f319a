//! Emission: every edge and unresolved record of Dart, written through `crate::emit` (the
//! confidence policy and the name-only fallback), the package edges of directives and the
//! structural edges read off declarations.

use super::*;

impl Resolver<'_> {
    /// The symbol a reference of unit `u` comes from: the enclosing declaration, else the
    /// unit's module symbol.
    pub(super) fn source_of(&self, u: usize, from: Option<usize>) -> SymbolId {
        match from {
            Some(d) => self.units[u].syms[d],
            None => self.units[u].module_sym,
        }
    }

    /// Where something of unit `u` occurs.
    fn site(&self, u: usize, at: (u32, u32)) -> Site {
        let unit = &self.units[u];
        site_in((unit.repo, unit.file, Language::Dart), at)
    }

    fn unresolved(
        &mut self,
        u: usize,
        at: (u32, u32),
        reason: &str,
        request: Request,
        from: Option<usize>,
    ) {
        let source = Some(self.source_of(u, from));
        let site = self.site(u, at);
        emit::unresolved(self.facts, site, reason, request, source);
    }

    /// An unresolved name (or member) written in unit `u`, requested from its own library.
    pub(super) fn unresolved_name(
        &mut self,
        u: usize,
        at: (u32, u32),
        reason: &str,
        name: &str,
        detail: Option<String>,
        from: Option<usize>,
    ) {
        let request = Request {
            package: self.own_name(u),
            symbol: Some(name.to_string()),
            detail,
        };
        self.unresolved(u, at, reason, request, from);
    }

    pub(super) fn directive_facts(&mut self, u: usize) {
        let l = self.units[u].lib;
        for d in 0..self.units[u].parsed.directives.len() {
            let dir = self.units[u].parsed.directives[d].clone();
            let at = (dir.line, dir.column);
            match self.units[u].targets[d].clone() {
                UriTarget::Unit(t) => {
                    let tl = self.units[t].lib;
                    if tl != l {
                        emit::package_edge(
                            self.facts,
                            (self.libs[l].package, self.libs[tl].package),
                            self.units[u].repo == self.units[t].repo,
                            Provenance::DartImportDependency,
                        );
                    }
                }
                UriTarget::Sdk(s) => {
                    if dir.kind != DirectiveKind::Part {
                        let request = Request {
                            package: s,
                            ..Request::default()
                        };
                        self.unresolved(u, at, DART_SDK_NOT_INDEXED, request, None);
                    }
                }
                UriTarget::Missing(reason, package) => {
                    let request = Request {
                        package,
                        symbol: None,
                        detail: Some(directive_detail(&dir)),
                    };
                    self.unresolved(u, at, reason, request, None);
                }
            }
        }
    }

    pub(super) fn edge_kind(usage: Use, target: &Decl) -> EdgeKind {
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

    /// An edge from a reference of unit `u` to `target`: exact when the language's rules bind
    /// the reference to it alone (structural for a class-like declaration's supertype), else a
    /// candidate.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn edge(
        &mut self,
        u: usize,
        from: Option<usize>,
        target: DeclRef,
        kind: EdgeKind,
        at: (u32, u32),
        provenance: Provenance,
        exact: bool,
    ) {
        let structural = exact
            && matches!(kind, EdgeKind::Extends | EdgeKind::Implements)
            && from.is_some_and(|d| {
                let k = self.units[u].parsed.decls[d].kind;
                is_classlike(k)
            });
        let (confidence, provenance) = if structural {
            (Confidence::StructuralCertain, Provenance::DartDeclaration)
        } else if exact {
            (
                emit::exact(self.units[u].repo == self.units[target.0].repo),
                provenance,
            )
        } else {
            (Confidence::Candidate, provenance)
        };
        let ends = (self.source_of(u, from), self.units[target.0].syms[target.1]);
        let site = self.site(u, at);
        emit::edge(self.facts, ends, kind, (confidence, provenance), site);
    }

    /// A structural edge between two symbols, at `at` of unit `u`.
    fn structural_edge(
        &mut self,
        u: usize,
        ends: (SymbolId, SymbolId),
        kind: EdgeKind,
        at: (u32, u32),
    ) {
        let policy = (Confidence::StructuralCertain, Provenance::DartDeclaration);
        let site = self.site(u, at);
        emit::edge(self.facts, ends, kind, policy, site);
    }

    /// The name-only fallback for member `m`, whose receiver's type is unknown, or written
    /// and lacking `m` (`typed`): the same-named instance members of the library and of the
    /// libraries its imports bring in.
    pub(super) fn name_only(
        &mut self,
        u: usize,
        from: Option<usize>,
        m: &str,
        usage: Use,
        at: (u32, u32),
        typed: bool,
    ) {
        // Record fields (`$1`) and the members every object has are never compiled.
        if OBJECT_MEMBERS.contains(&m) || m == "call" || m.starts_with('$') {
            return;
        }
        let l = self.units[u].lib;
        let mut cands: Vec<DeclRef> = Vec::new();
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
        match emit::name_only(cands) {
            NameOnly::Candidates(cands) => {
                for d in cands {
                    let kind = Self::edge_kind(usage, self.decl(d));
                    self.edge(u, from, d, kind, at, Provenance::DartNameOnly, false);
                }
            }
            NameOnly::Unresolved { .. } => {
                let reason = if typed {
                    NAME_NOT_RESOLVED
                } else {
                    RECEIVER_TYPE_UNKNOWN
                };
                self.unresolved_name(u, at, reason, m, None, from);
            }
        }
    }

    /// `PART_OF` of a part, `METHOD_OF` of every member, `OVERRIDES` of an instance member.
    pub(super) fn structural(&mut self, u: usize) {
        let l = self.units[u].lib;
        if self.libs[l].units[0] != u {
            let lib_unit = self.libs[l].units[0];
            let ends = (self.units[u].module_sym, self.units[lib_unit].module_sym);
            let at = (self.units[u].parsed.part_of_line.max(1), 0);
            self.structural_edge(u, ends, EdgeKind::PartOf, at);
        }
        for d in 0..self.units[u].parsed.decls.len() {
            let decl = &self.units[u].parsed.decls[d];
            let Some(p) = decl.parent else { continue };
            if decl.kind == SymbolKind::EnumMember {
                continue;
            }
            let at = decl.at;
            let (name, is_static, ctor) = (decl.name.clone(), decl.is_static, decl.ctor);
            let source = self.units[u].syms[d];
            let ends = (source, self.units[u].syms[p]);
            self.structural_edge(u, ends, EdgeKind::MethodOf, at);
            if is_static || ctor || self.units[u].parsed.decls[p].extension {
                continue;
            }
            if let Hit::Decls(v, true, _) = self.lookup_member((u, p), &name, false, false, 0) {
                let target = self.units[v[0].0].syms[v[0].1];
                self.structural_edge(u, (source, target), EdgeKind::Overrides, at);
            }
        }
    }
}

/// The detail of a record at a directive: `import of "uri"`.
pub(super) fn directive_detail(dir: &Directive) -> String {
    format!("{} of \"{}\"", kind_word(dir.kind), dir.uri)
}

fn kind_word(k: DirectiveKind) -> &'static str {
    match k {
        DirectiveKind::Import => "import",
        DirectiveKind::Export => "export",
        DirectiveKind::Part => "part",
    }
}
