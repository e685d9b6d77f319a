//! Members: what a member name denotes on a receiver, through merged declarations, `extends`
//! and written unions and intersections.

use super::*;

impl Resolver<'_> {
    /// What member `name` of a receiver denotes.
    pub(super) fn members_named(
        &self,
        recv: &Recv,
        name: &str,
        meaning: Meaning,
        depth: usize,
    ) -> Hit {
        if self.too_deep(depth) {
            return Hit::Unknown;
        }
        match recv {
            Recv::Members(tm, td)
                if name == "prototype"
                    && self.mods[*tm].ts.decls[*td].kind == SymbolKind::Class =>
            {
                Hit::External
            }
            Recv::Members(tm, td) => self.lookup_member(*tm, *td, name, depth + 1).into(),
            Recv::Module(t) => Hit::Bound(self.export_of(*t, name, meaning, depth + 1)),
            Recv::External
            | Recv::Array(_)
            | Recv::Promise(_)
            | Recv::Map(..)
            | Recv::Tuple(_)
            | Recv::Iter(_)
            | Recv::Object(..) => Hit::External,
            Recv::Unknown => Hit::Unknown,
            Recv::All(parts) => {
                let mut closed = true;
                let mut external = false;
                let mut unknown = false;
                for p in parts {
                    match self.members_named(p, name, meaning, depth + 1) {
                        h @ (Hit::Decls(..) | Hit::Bound(_)) => return h,
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
            Recv::Union(parts) => Hit::of_union(
                parts
                    .iter()
                    .map(|p| self.members_named(p, name, meaning, depth + 1)),
            ),
        }
    }

    /// Member `name` of the container `d` of module `m`, through merged declarations and
    /// `extends`.
    pub(super) fn lookup_member(&self, m: usize, d: usize, name: &str, depth: usize) -> Lookup {
        let mut visited = HashSet::default();
        self.lookup_in(m, d, name, depth, &mut visited)
    }

    pub(super) fn lookup_in(
        &self,
        m: usize,
        d: usize,
        name: &str,
        depth: usize,
        visited: &mut HashSet<(usize, usize)>,
    ) -> Lookup {
        if self.too_deep(depth) {
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
                    // An intersection, a written union or a mapped alias: its own lookup,
                    // exact only when it leaves one declaration.
                    recv @ (Recv::All(_) | Recv::Union(_)) => {
                        match self.members_named(&recv, name, Meaning::Value, depth + 1) {
                            Hit::Decls(v, true) if v.len() == 1 => {
                                return Lookup::Found(v[0].0, v[0].1);
                            }
                            Hit::NotFound { closed: c } => closed &= c,
                            _ => closed = false,
                        }
                    }
                    _ => closed = false,
                }
            }
        }
        Lookup::NotFound { closed }
    }

    /// Whether an unknown receiver hangs off something known to be outside the graph (an
    /// import of an unregistered package, a global), whose members are not guessed.
    pub(super) fn receiver_is_external(&self, m: usize, e: &Expr) -> bool {
        match e {
            Expr::Name(res @ (NameRes::Import(_) | NameRes::Unbound(_))) => {
                self.bind_res(m, res, Meaning::Value, 0) == Bound::External
            }
            Expr::Member(b, _)
            | Expr::Call(b)
            | Expr::New(b)
            | Expr::Elem(b)
            | Expr::Nth(b, _)
            | Expr::Await(b) => self.receiver_is_external(m, b),
            _ => false,
        }
    }
}
