//! References: every target phase 1 left open bound to declarations (names, members,
//! constructors, super and redirecting constructor calls, `show` names).

use super::emission::directive_detail;
use super::*;

impl Resolver<'_> {
    /// A call of a class calls its unnamed constructor when it declares one.
    pub(super) fn call_target(&self, d: DeclRef, usage: Use) -> DeclRef {
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

    /// Edges to the declarations `v` a reference binds to: exact when it is one of them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_decls(
        &mut self,
        u: usize,
        from: Option<usize>,
        v: Vec<DeclRef>,
        exact: bool,
        usage: Use,
        at: (u32, u32),
        provenance: Provenance,
    ) {
        let exact = exact && v.len() == 1;
        for d in v {
            let t = self.call_target(d, usage);
            let kind = Self::edge_kind(usage, self.decl(t));
            self.edge(u, from, t, kind, at, provenance, exact);
        }
    }

    /// The package name of the library of unit `u`.
    pub(super) fn own_name(&self, u: usize) -> String {
        self.libs[self.units[u].lib].name.clone()
    }

    pub(super) fn references(&mut self, u: usize) {
        let refs = std::mem::take(&mut self.units[u].parsed.refs);
        for r in &refs {
            self.reference(u, r);
        }
        self.units[u].parsed.refs = refs;
    }

    fn reference(&mut self, u: usize, r: &Ref) {
        let (at, from) = ((r.line, r.column), r.from);
        match &r.target {
            Target::Name(n, _) | Target::TypeName(_, n) => {
                let hit = match &r.target {
                    Target::TypeName(Some(p), _) => self.resolve_type_name(u, Some(p), n),
                    Target::Name(_, ctx) => self.lookup_name(u, n, *ctx, 0),
                    _ => self.lookup_name(u, n, None, 0),
                };
                match hit {
                    NameHit::Decls(v, prov) => self.bind_decls(u, from, v, true, r.usage, at, prov),
                    NameHit::Nothing | NameHit::Prefix(_) => {}
                    NameHit::Missing => {
                        self.unresolved_name(u, at, NAME_NOT_RESOLVED, n, None, from)
                    }
                }
            }
            Target::Member(e, m) => {
                let recv = self.eval(u, e, 0);
                self.member(u, from, &recv, m, r.usage, at);
            }
            Target::Ctor(t, ctor) => self.constructor(u, r, t, ctor.as_deref()),
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
                        self.constructor_call(u, from, (s.0, m), at);
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
                    self.constructor_call(u, from, t, at);
                }
            }
            Target::Shown(di, name) => self.shown(u, *di, name, at),
        }
    }

    /// A constructor named in `new`/`const`/`C.new`/`C<T>.named()`.
    fn constructor(&mut self, u: usize, r: &Ref, t: &TypeRef, ctor: Option<&str>) {
        let (at, from) = ((r.line, r.column), r.from);
        match self.ctor_class(u, t, ctor) {
            Some(Ok((c, None))) => {
                let t = self.call_target(c, Use::Call);
                let kind = if r.usage == Use::Call {
                    EdgeKind::CallsDirect
                } else {
                    Self::edge_kind(r.usage, self.decl(t))
                };
                let prov = self.name_prov(u, c);
                self.edge(u, from, t, kind, at, prov, true);
            }
            Some(Ok((c, Some(name)))) => {
                let recv = Receiver::Static(c);
                let usage = if r.usage == Use::Argument {
                    Use::Value
                } else {
                    r.usage
                };
                self.member(u, from, &recv, &name, usage, at);
            }
            Some(Err(())) => {}
            None => {
                if let TypeRef::Named { name, prefix, .. } = t {
                    let lookup = match prefix {
                        Some(p) => self.resolve_type_name(u, Some(p), name),
                        None => self.lookup_name(u, name, None, 0),
                    };
                    if matches!(lookup, NameHit::Missing) {
                        self.unresolved_name(u, at, NAME_NOT_RESOLVED, name, None, from);
                    }
                }
            }
        }
    }

    /// `: super(…)` or `: this(…)` of an initializer list, bound to constructor `target`.
    fn constructor_call(&mut self, u: usize, from: Option<usize>, target: DeclRef, at: (u32, u32)) {
        let kind = EdgeKind::CallsDirect;
        self.edge(
            u,
            from,
            target,
            kind,
            at,
            Provenance::DartReceiverTyped,
            true,
        );
    }

    /// The provenance of a class named without a prefix.
    pub(super) fn name_prov(&self, u: usize, c: DeclRef) -> Provenance {
        if self.units[c.0].lib == self.units[u].lib {
            Provenance::DartScope
        } else {
            Provenance::DartImport
        }
    }

    /// A `show` name of directive `di`.
    pub(super) fn shown(&mut self, u: usize, di: usize, name: &str, at: (u32, u32)) {
        let dir = self.units[u].parsed.directives[di].clone();
        let Some(t) = self.lib_of_target(&self.units[u].targets[di].clone()) else {
            return;
        };
        let kind = if dir.kind == DirectiveKind::Export {
            EdgeKind::Reexports
        } else {
            EdgeKind::ImportsSymbol
        };
        match Self::ns_hit(&self.libs[t].exported, name) {
            Some((v, _)) if !v.is_empty() => {
                let exact = v.len() == 1;
                for d in v {
                    self.edge(u, None, d, kind, at, Provenance::DartImport, exact);
                }
            }
            Some(_) => {}
            None if self.libs[t].export_open => {}
            None => {
                let detail = Some(directive_detail(&dir));
                self.unresolved_name(u, at, NAME_NOT_RESOLVED, name, detail, None);
            }
        }
    }

    /// Member `m` of a receiver: its declarations, else the name-only fallback.
    pub(super) fn member(
        &mut self,
        u: usize,
        from: Option<usize>,
        recv: &Receiver,
        m: &str,
        usage: Use,
        at: (u32, u32),
    ) {
        match self.members_named(u, recv, m, 0) {
            Hit::Decls(v, exact, prov) => self.bind_decls(u, from, v, exact, usage, at, prov),
            Hit::Nothing => {}
            Hit::Lacks | Hit::Unknown if matches!(usage, Use::Operator | Use::SuperFormal) => {}
            Hit::Lacks => self.name_only(u, from, m, usage, at, true),
            Hit::Unknown => self.name_only(u, from, m, usage, at, false),
        }
    }
}
