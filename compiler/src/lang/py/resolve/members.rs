//! Members through base classes: the method resolution order (C3, or depth first without it),
//! `super()`, closed classes and written unions (SPEC 12.4, Notes).

use crate::hash::HashSet;

use super::{Bound, Hit, Lookup, Receiver, Resolver};
use crate::lang::py::extract::{Decl, NameRes, TypeRef};

/// A class declaring `__getattr__` or `__getattribute__` may have any attribute: it is open.
fn has_dynamic_attributes(class: &Decl) -> bool {
    class.members.contains_key("__getattr__") || class.members.contains_key("__getattribute__")
}

impl Resolver<'_> {
    /// Member `name` declared by class `c` itself (inherited `self.x` fields aside).
    fn own_member(&self, m: usize, c: usize, name: &str) -> Option<usize> {
        self.mods[m].py.decls[c]
            .members
            .get(name)
            .copied()
            .filter(|&x| !self.inherited.contains(&(m, x)))
    }

    pub(super) fn lookup_member(&self, m: usize, c: usize, name: &str, depth: usize) -> Lookup {
        let mut visited = HashSet::default();
        self.lookup_in(m, c, name, depth, &mut visited)
    }

    /// Own members, then the bases left to right, depth first (the MRO of every hierarchy
    /// without diamonds).
    fn lookup_in(
        &self,
        m: usize,
        c: usize,
        name: &str,
        depth: usize,
        visited: &mut HashSet<(usize, usize)>,
    ) -> Lookup {
        if self.too_deep(depth) || !visited.insert((m, c)) {
            return Lookup::NotFound { closed: false };
        }
        // With every base compiled, Python's own order: the C3 linearisation.
        if let Some(mro) = self.mro(m, c, depth + 1) {
            let mut closed = true;
            for (cm, cc) in mro {
                if let Some(x) = self.own_member(cm, cc, name) {
                    return Lookup::Found(cm, x);
                }
                closed &= !has_dynamic_attributes(&self.mods[cm].py.decls[cc]);
            }
            return Lookup::NotFound { closed };
        }
        if let Some(x) = self.own_member(m, c, name) {
            return Lookup::Found(m, x);
        }
        let closed = !has_dynamic_attributes(&self.mods[m].py.decls[c]);
        self.lookup_in_bases(m, c, name, depth, visited, closed)
    }

    /// The bases of class `c` left to right, depth first; `closed` says whether the classes
    /// searched before them are.
    fn lookup_in_bases(
        &self,
        m: usize,
        c: usize,
        name: &str,
        depth: usize,
        visited: &mut HashSet<(usize, usize)>,
        mut closed: bool,
    ) -> Lookup {
        for b in &self.mods[m].py.decls[c].bases {
            match self.base_recv(m, b, depth + 1) {
                Some(Receiver::Members(bm, bd)) => {
                    match self.lookup_in(bm, bd, name, depth + 1, visited) {
                        Lookup::Found(a, x) => return Lookup::Found(a, x),
                        Lookup::NotFound { closed: cl } => closed &= cl,
                    }
                }
                Some(_) => closed = false,
                None => {}
            }
        }
        Lookup::NotFound { closed }
    }

    /// The C3 linearisation of class `c`, when every base class resolves to a compiled class
    /// (`object` aside) and the hierarchy is consistent.
    fn mro(&self, m: usize, c: usize, depth: usize) -> Option<Vec<(usize, usize)>> {
        if self.too_deep(depth) {
            return None;
        }
        let mut seqs: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut direct = Vec::new();
        for b in &self.mods[m].py.decls[c].bases {
            match self.base_recv(m, b, depth + 1) {
                None => {}
                Some(Receiver::Members(bm, bd)) => {
                    seqs.push(self.mro(bm, bd, depth + 1)?);
                    direct.push((bm, bd));
                }
                Some(_) => return None,
            }
        }
        seqs.push(direct);
        let mut out = vec![(m, c)];
        loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                return Some(out);
            }
            let head = seqs
                .iter()
                .map(|s| s[0])
                .find(|h| !seqs.iter().any(|s| s[1..].contains(h)))?;
            out.push(head);
            for s in &mut seqs {
                if s[0] == head {
                    s.remove(0);
                }
            }
        }
    }

    /// A base class: `None` for `object` and `Generic[...]`/`Protocol`, which add no members.
    fn base_recv(&self, m: usize, b: &TypeRef, depth: usize) -> Option<Receiver> {
        if let TypeRef::Named {
            head: NameRes::Unbound(n),
            path,
        } = b
            && path.is_empty()
            && n == "object"
        {
            return None;
        }
        Some(self.type_recv(m, b, depth))
    }

    pub(super) fn members_named(&self, recv: &Receiver, name: &str, depth: usize) -> Hit {
        if self.too_deep(depth) {
            return Hit::Unknown;
        }
        match recv {
            Receiver::Members(m, c) => self.lookup_member(*m, *c, name, depth + 1).into(),
            Receiver::SuperOf(m, c) if self.mro(*m, *c, depth + 1).is_some() => {
                let mro = self.mro(*m, *c, depth + 1).unwrap_or_default();
                for &(cm, cc) in mro.iter().skip(1) {
                    if let Some(x) = self.own_member(cm, cc, name) {
                        return Hit::Decls(vec![(cm, x)], true);
                    }
                }
                Hit::NotFound { closed: true }
            }
            Receiver::SuperOf(m, c) => {
                let mut visited = HashSet::default();
                visited.insert((*m, *c));
                self.lookup_in_bases(*m, *c, name, depth, &mut visited, true)
                    .into()
            }
            Receiver::Module(t) => Hit::Bound(self.attribute(*t, name, depth + 1)),
            b @ Receiver::Namespace(..) => {
                let Receiver::Namespace(r, d) = b else {
                    unreachable!()
                };
                Hit::Bound(self.submodule(&Bound::Namespace(*r, d.clone()), name))
            }
            Receiver::Seq(_) | Receiver::Map(..) | Receiver::External => Hit::External,
            Receiver::Unknown => Hit::Unknown,
            Receiver::Union(parts) => {
                Hit::of_union(parts.iter().map(|p| self.members_named(p, name, depth + 1)))
            }
        }
    }
}
