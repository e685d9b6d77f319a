//! Names and written types: Dart's lookup order for a name lexical scope left open, type
//! names through prefixes, aliases followed, and the class a constructor reference names.

use super::*;

impl Resolver<'_> {
    /// Binds a name that lexical scope left open, in Dart's order: the enclosing class's own
    /// members, the library's declarations, its imports, `dart:core`, then inherited members
    /// through an implicit `this`.
    pub(super) fn lookup_name(
        &self,
        u: usize,
        name: &str,
        ctx: ClassContext,
        depth: usize,
    ) -> NameHit {
        let lib = &self.libs[self.units[u].lib];
        if let Some((c, _)) = ctx
            && let Some(&m) = self.units[u].parsed.decls[c].members.get(name)
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
            && self.units[u].parsed.decls[c].kind == SymbolKind::Enum
            && ENUM_MEMBERS.contains(&name)
        {
            return NameHit::Nothing;
        }
        if let Some((c, true)) = ctx
            && self.units[u].parsed.decls[c].extension
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
    pub(super) fn resolve_type_name(&self, u: usize, prefix: Option<&str>, name: &str) -> NameHit {
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
    pub(super) fn type_decl(
        &self,
        u: usize,
        t: &TypeRef,
        depth: usize,
    ) -> Result<DeclRef, Receiver> {
        if depth > MAX_DEPTH {
            return Err(Receiver::Unknown);
        }
        let TypeRef::Named { prefix, name, args } = t else {
            return Err(Receiver::Unknown);
        };
        match self.resolve_type_name(u, prefix.as_deref(), name) {
            NameHit::Decls(v, _) if v.len() == 1 => {
                let d = v[0];
                let decl = self.decl(d);
                if decl.kind == SymbolKind::TypeAlias {
                    return match &decl.ty {
                        Some(t) => self.type_decl(d.0, t, depth + 1),
                        None => Err(Receiver::Nothing),
                    };
                }
                if is_classlike(decl.kind) {
                    Ok(d)
                } else {
                    Err(Receiver::Unknown)
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
                    Err(Receiver::Core(name.clone(), elem))
                } else {
                    Err(Receiver::Nothing)
                }
            }
            _ => Err(Receiver::Unknown),
        }
    }

    pub(super) fn type_recv(&self, u: usize, t: &TypeRef, depth: usize) -> Receiver {
        match self.type_decl(u, t, depth) {
            Ok(d) => Receiver::Inst(d),
            Err(r) => r,
        }
    }

    /// The class a constructor reference names, and its constructor name: `new p.C()`,
    /// `new C.named()` (two names: a prefix and a class, or a class and a constructor).
    #[allow(clippy::type_complexity)]
    pub(super) fn ctor_class(
        &self,
        u: usize,
        t: &TypeRef,
        ctor: Option<&str>,
    ) -> Option<Result<(DeclRef, Option<String>), ()>> {
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
}
