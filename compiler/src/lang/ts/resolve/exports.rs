//! The module graph: what each module exports, through re-export chains (a fixed point with
//! cycles cut), and what its imports denote.

use super::*;

impl Resolver<'_> {
    // ------------------------------------------------------------------ binding

    /// What export `name` of module `m` is, in the wanted meaning.
    pub(super) fn export_of(&self, m: usize, name: &str, meaning: Meaning, depth: usize) -> Bound {
        // A module that re-exports itself, directly or not, finds nothing the second time round.
        let key = (m, name.to_string(), meaning);
        self.exports
            .get(key, depth, &self.depth_bound, Bound::Missing, || {
                self.compute_export(m, name, meaning, depth)
            })
    }

    /// The first of `found` that has the wanted meaning, else the first found at all.
    pub(super) fn prefer(&self, found: &mut Option<Bound>, b: Bound, meaning: Meaning) -> bool {
        if b == Bound::Missing {
            return false;
        }
        if self.bound_fits(b, meaning) {
            *found = Some(b);
            return true;
        }
        if found.is_none() {
            *found = Some(b);
        }
        false
    }

    pub(super) fn bound_fits(&self, b: Bound, meaning: Meaning) -> bool {
        match b {
            Bound::Decl(tm, td) => fits(self.mods[tm].ts.decls[td].kind, meaning),
            _ => true,
        }
    }

    pub(super) fn compute_export(
        &self,
        m: usize,
        name: &str,
        meaning: Meaning,
        depth: usize,
    ) -> Bound {
        let f = &self.mods[m].ts;
        let mut found = None;
        for (_, res) in f.exports.iter().filter(|(n, _)| n == name) {
            let b = self.bind_res(m, res, meaning, depth + 1);
            if self.prefer(&mut found, b, meaning) {
                return b;
            }
        }
        for r in &f.reexports {
            for it in r.items.iter().filter(|it| it.alias == name) {
                let b = match &self.mods[m].specs[r.statement] {
                    Resolved::Module(t) => {
                        self.export_of(*t, it.name.as_deref().unwrap_or(name), meaning, depth + 1)
                    }
                    Resolved::NotFound => Bound::Missing,
                    _ => Bound::External,
                };
                if self.prefer(&mut found, b, meaning) {
                    return b;
                }
            }
            if r.star_as.as_deref() == Some(name) {
                let b = match &self.mods[m].specs[r.statement] {
                    Resolved::Module(t) => Bound::Module(*t),
                    Resolved::NotFound => Bound::Missing,
                    _ => Bound::External,
                };
                if self.prefer(&mut found, b, meaning) {
                    return b;
                }
            }
        }
        if let Some(b) = found {
            return b;
        }
        if name != "default" {
            let mut external = false;
            for r in &f.reexports {
                if !r.star {
                    continue;
                }
                match &self.mods[m].specs[r.statement] {
                    Resolved::Module(t) => {
                        let b = self.export_of(*t, name, meaning, depth + 1);
                        if self.prefer(&mut found, b, meaning) {
                            return b;
                        }
                    }
                    Resolved::NotFound => {}
                    _ => external = true,
                }
            }
            if let Some(b) = found {
                return b;
            }
            if external {
                return Bound::External;
            }
            // `export = X`: X's members are the module's names.
            if let Some(eq) = &f.export_equals
                && *eq != Expr::External
            {
                return match self.eval(m, eq, depth + 1) {
                    Recv::Members(tm, td) => match self.lookup_member(tm, td, name, depth + 1) {
                        Lookup::Found(a, b) => Bound::Decl(a, b),
                        Lookup::NotFound { closed: true } => Bound::Missing,
                        Lookup::NotFound { closed: false } => Bound::External,
                    },
                    Recv::Module(t) => self.export_of(t, name, meaning, depth + 1),
                    Recv::External => Bound::External,
                    _ => Bound::Missing,
                };
            }
        }
        Bound::Missing
    }

    /// The module a namespace import or `require` of module `t` denotes: its `export =` value
    /// when it has one.
    pub(super) fn namespace_of(&self, t: usize, meaning: Meaning, depth: usize) -> Bound {
        match &self.mods[t].ts.export_equals {
            Some(eq) if *eq != Expr::External => match eq {
                Expr::Name(res) => self.bind_res(t, res, meaning, depth + 1),
                _ => Bound::Module(t),
            },
            _ => Bound::Module(t),
        }
    }

    pub(super) fn import_target(
        &self,
        m: usize,
        i: usize,
        meaning: Meaning,
        depth: usize,
    ) -> Bound {
        let im = &self.mods[m].ts.imports[i];
        match &self.mods[m].specs[im.statement] {
            Resolved::Module(t) => {
                let t = *t;
                match &im.kind {
                    ImportKind::Named(n) => self.export_of(t, n, meaning, depth + 1),
                    ImportKind::Default => match self.export_of(t, "default", meaning, depth + 1) {
                        Bound::Missing => self.namespace_of(t, meaning, depth),
                        b => b,
                    },
                    ImportKind::Namespace | ImportKind::Require => {
                        self.namespace_of(t, meaning, depth)
                    }
                }
            }
            Resolved::NotFound => Bound::Missing,
            _ => Bound::External,
        }
    }
}
