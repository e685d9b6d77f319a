//! References: the binding of every reference phase 1 left open, and the name-only fallback
//! for members whose receiver's type is unknown.

use super::*;

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

/// The provenance of a name bound in its file: through an import, or by the file's scopes.
fn name_provenance(res: &NameRes) -> Provenance {
    match res {
        NameRes::Import(_) => Provenance::TsModuleBinding,
        _ => Provenance::TsScope,
    }
}

impl Resolver<'_> {
    pub(super) fn references(&mut self, m: usize) {
        let refs = self.refs;
        for r in &refs[m] {
            let at = Place::of(m, r);
            // Imports and re-exports belong to the module, whatever encloses them.
            let at_module = Place { from: None, ..at };
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
                        self.edge(at, x, r.usage, (Provenance::TsNameOnly, true));
                    }
                }
                RefTarget::Qualifier(res, member) => {
                    match self.bind_res(m, res, Meaning::Value, 0) {
                        Bound::Decl(tm, td) => {
                            let holder = self.holder_of(tm, td, member);
                            self.edge(at, (tm, holder), r.usage, (name_provenance(res), false))
                        }
                        Bound::Missing => {
                            if let NameRes::Unbound(name) = res {
                                self.undeclared(at, name);
                            }
                        }
                        _ => {}
                    }
                }
                RefTarget::Name(res, name) => {
                    for b in self.bind_all(meanings, |mn| self.bind_res(m, res, mn, 0)) {
                        match b {
                            Bound::Decl(tm, td) => {
                                self.edge(at, (tm, td), r.usage, (name_provenance(res), false))
                            }
                            Bound::Missing => {
                                if let NameRes::Unbound(_) = res {
                                    self.undeclared(at, name);
                                }
                            }
                            Bound::Module(_) | Bound::External => {}
                        }
                    }
                }
                RefTarget::Imported(i) => {
                    let i = *i;
                    let bounds = self.bind_all(meanings, |mn| self.import_target(m, i, mn, 0));
                    let im = &self.mods[m].ts.imports[i];
                    let asked = match self.mods[m].specs[im.statement] {
                        Resolved::Module(t) => {
                            let name = match &im.kind {
                                ImportKind::Named(n) => n.clone(),
                                _ => "default".into(),
                            };
                            Some((t, name, im.spec.clone()))
                        }
                        _ => None,
                    };
                    self.bind_imported(at_module, bounds, Use::Import, asked);
                }
                RefTarget::Reexported(ri, ii) => {
                    let (statement, name) = {
                        let re = &self.mods[m].ts.reexports[*ri];
                        (re.statement, re.items[*ii].name.clone().unwrap_or_default())
                    };
                    if let Resolved::Module(t) = self.mods[m].specs[statement] {
                        let bounds = self.bind_all(meanings, |mn| self.export_of(t, &name, mn, 0));
                        let spec = self.mods[m].ts.specifiers[statement].spec.clone();
                        self.bind_imported(at_module, bounds, Use::Reexport, Some((t, name, spec)));
                    }
                }
                RefTarget::Member(base, name) => self.member(at, base, name, r.usage),
            }
        }
    }

    /// The edges of the name of an import or re-export to the declarations it binds, or
    /// `EXPORT_NOT_FOUND` when it binds none and `asked` says which module (by which specifier)
    /// was asked for which name.
    fn bind_imported(
        &mut self,
        at: Place,
        bounds: Vec<Bound>,
        usage: Use,
        asked: Option<(usize, String, String)>,
    ) {
        for b in bounds {
            match b {
                Bound::Decl(tm, td) => {
                    self.edge(at, (tm, td), usage, (Provenance::TsModuleBinding, false))
                }
                Bound::Missing => {
                    if let Some((t, name, spec)) = &asked {
                        let detail = format!("\"{spec}\" does not export it");
                        self.export_missing(at, *t, name.clone(), detail);
                    }
                }
                _ => {}
            }
        }
    }

    /// `DECLARATION_NOT_FOUND` for a name no scope declares and that is not a standard global.
    fn undeclared(&mut self, at: Place, name: &str) {
        let detail = "declared nowhere in scope and not a standard global".to_string();
        self.unresolved_here(at, reason::DECLARATION_NOT_FOUND, name, detail);
    }

    /// `EXPORT_NOT_FOUND` for `name`, which module `t` does not export.
    fn export_missing(&mut self, at: Place, t: usize, name: String, detail: String) {
        let path = self.mods[t].path.clone();
        self.unresolved(at, reason::EXPORT_NOT_FOUND, path, Some(name), detail);
    }

    /// Binds member `name` of the receiver `base`, used as `usage` at `at`.
    fn member(&mut self, at: Place, base: &Expr, name: &str, usage: Use) {
        let m = at.module;
        let recv = self.eval(m, base, 0);
        let meaning = self.meanings(m, usage, at.from)[0];
        if let Recv::Union(parts) = &recv
            && let Some(v) = self.whole_union(m, base, parts, name, meaning)
        {
            let prov = if v.len() == 1 {
                Provenance::TsReceiverTyped
            } else {
                Provenance::TsUnionMember
            };
            for x in v {
                self.edge(at, x, usage, (prov, false));
            }
            return;
        }
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
                for x in v {
                    self.edge(at, x, usage, (prov, !exact));
                }
            }
            Hit::NotFound { closed: true } if !OBJECT_MEMBERS.contains(&name) => {
                let owner = match &recv {
                    Recv::Members(tm, td) => self.mods[*tm].ts.decls[*td].qn.clone(),
                    _ => "the receiver's type".to_string(),
                };
                let detail = format!("{owner} declares no member {name}");
                self.unresolved_here(at, reason::DECLARATION_NOT_FOUND, name, detail);
            }
            Hit::NotFound { closed: true } | Hit::External => {}
            Hit::Bound(b) => {
                let Recv::Module(t) = recv else { return };
                match b {
                    Bound::Decl(a, b) => {
                        self.edge(at, (a, b), usage, (Provenance::TsModuleBinding, false))
                    }
                    Bound::Missing => {
                        let detail = "the namespace's module does not export it".to_string();
                        self.export_missing(at, t, name.to_string(), detail);
                    }
                    _ => {}
                }
            }
            // A type with parts whose members are unknown may declare it there.
            Hit::Unknown | Hit::NotFound { closed: false } => {
                if OBJECT_MEMBERS.contains(&name) || self.receiver_is_external(m, base) {
                    return;
                }
                match emit::name_only(self.name_only_candidates(m, name)) {
                    NameOnly::Candidates(cands) => {
                        for c in cands {
                            self.edge(at, c, usage, (Provenance::TsNameOnly, true));
                        }
                    }
                    NameOnly::Unresolved { shared } => {
                        let detail = RECEIVER_WORDS.detail(shared);
                        self.unresolved_here(at, reason::RECEIVER_TYPE_UNKNOWN, name, detail)
                    }
                }
            }
        }
    }

    /// The declarations of member `name` in every member type of a written union, when each
    /// declares it exactly and the receiver cannot have been narrowed (see
    /// [`Resolver::narrowable`]): a use of the union's property is a use of all of them.
    fn whole_union(
        &self,
        m: usize,
        base: &Expr,
        parts: &[Recv],
        name: &str,
        meaning: Meaning,
    ) -> Option<Vec<(usize, usize)>> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for p in parts {
            match self.members_named(p, name, meaning, 0) {
                Hit::Decls(v, true) if v.len() == 1 => {
                    if !out.contains(&v[0]) {
                        out.push(v[0]);
                    }
                }
                _ => return None,
            }
        }
        (!out.is_empty() && !self.narrowable(m, base, 0)).then_some(out)
    }

    /// Whether the value of `e` may have been narrowed where it is used: its root name (or a
    /// local whose initializer it comes from) is written in a condition or assigned in its
    /// file, or it is a local with both a declared type and an initializer (assignment
    /// narrowing). Unknown roots may have been.
    fn narrowable(&self, m: usize, e: &Expr, depth: usize) -> bool {
        if self.too_deep(depth) {
            return true;
        }
        let f = &self.mods[m].ts;
        match e {
            Expr::Member(b, _)
            | Expr::Call(b)
            | Expr::Elem(b)
            | Expr::Nth(b, _)
            | Expr::Await(b)
            | Expr::New(b) => self.narrowable(m, b, depth + 1),
            Expr::This(_) | Expr::Super(_) => f.narrowed.contains("this"),
            Expr::Typed(_) | Expr::External => false,
            Expr::Name(NameRes::Local(l)) => {
                let local = &f.locals[*l];
                f.narrowed_locals.contains(l)
                    || match (&local.ty, &local.value) {
                        (Some(_), Some(_)) => true,
                        (None, Some(v)) => self.narrowable(m, v, depth + 1),
                        _ => false,
                    }
            }
            Expr::Name(NameRes::Unbound(n)) => f.narrowed.contains(n),
            Expr::Name(NameRes::Decl(d)) => f.narrowed.contains(&f.decls[*d].name),
            Expr::Name(NameRes::Import(i)) => f.narrowed.contains(&f.imports[*i].local),
            // A parameter's context types it; conditions on its name were checked above.
            Expr::Narrow {
                base,
                key,
                lits,
                keep,
            } => {
                self.narrowable(m, base, depth + 1)
                    || !self.narrow(m, base, key, lits, *keep, depth + 1).1
            }
            // A type guard's type, or the value as it is (a call that is not a guard does not
            // narrow); either way decided here.
            Expr::Guarded { base, callee, .. } => {
                let guard = matches!(self.callee(m, callee, depth + 1),
                    Bound::Decl(cm, cd) if matches!(self.mods[cm].ts.decls[cd].ret, Some(TypeRef::Predicate(..))));
                !guard && self.narrowable(m, base, depth + 1)
            }
            Expr::HasProp(base, key) => {
                self.narrowable(m, base, depth + 1) || !self.narrow_has(m, base, key, depth + 1).1
            }
            Expr::CallbackParam { .. }
            | Expr::ContextParam { .. }
            | Expr::AssignedParam { .. }
            | Expr::JsxProps(_) => false,
            Expr::Unknown => true,
        }
    }

    /// The members named `name` of the classes, interfaces and type aliases of module `m` and
    /// of the modules it imports: what a member of an unknown receiver may be.
    fn name_only_candidates(&self, m: usize, name: &str) -> Vec<(usize, usize)> {
        name_only_candidates(&self.member_index, &self.imported, m, name)
    }
}
