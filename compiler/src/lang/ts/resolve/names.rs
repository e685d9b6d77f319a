//! Names: what a name bound in its file denotes, in the meaning a use wants.

use super::*;

impl Resolver<'_> {
    pub(super) fn bind_res(
        &self,
        m: usize,
        res: &NameRes,
        meaning: Meaning,
        depth: usize,
    ) -> Bound {
        if self.too_deep(depth) {
            self.exports.cut();
            return Bound::Missing;
        }
        match res {
            NameRes::Decl(d) => {
                let f = &self.mods[m].ts;
                let decl = &f.decls[*d];
                if fits(decl.kind, meaning) {
                    return Bound::Decl(m, *d);
                }
                // Declaration merging: the same name in the same scope with the wanted meaning.
                let sibling = match decl.parent {
                    Some(p) => f.decls[p]
                        .members
                        .get(&decl.name)
                        .and_then(|v| v.iter().copied().find(|&x| fits(f.decls[x].kind, meaning))),
                    None => f.scope.get(&decl.name).and_then(|v| {
                        v.iter().find_map(|r| match r {
                            NameRes::Decl(x) if fits(f.decls[*x].kind, meaning) => Some(*x),
                            _ => None,
                        })
                    }),
                };
                Bound::Decl(m, sibling.unwrap_or(*d))
            }
            NameRes::Import(i) => self.import_target(m, *i, meaning, depth),
            NameRes::Local(_) => Bound::Missing,
            NameRes::Unbound(n) => {
                if let Some(v) = self.script_globals.get(&(self.mods[m].repo, n.clone())) {
                    // Declared by several script files: not one declaration.
                    match v[..] {
                        [(gm, gd)] => Bound::Decl(gm, gd),
                        _ => Bound::External,
                    }
                } else if is_global(n) {
                    Bound::External
                } else {
                    Bound::Missing
                }
            }
        }
    }

    /// The meanings a use wants: one for most uses, both for the names of import and export
    /// specifiers, which carry every meaning of the name.
    pub(super) fn meanings(&self, m: usize, usage: Use, from: Option<usize>) -> &'static [Meaning] {
        match usage {
            Use::Type | Use::Implements => &[Meaning::Type],
            Use::TypeOf => &[Meaning::Value],
            Use::Extends => {
                if from.is_some_and(|d| self.mods[m].ts.decls[d].kind == SymbolKind::Interface) {
                    &[Meaning::Type]
                } else {
                    &[Meaning::Value]
                }
            }
            Use::Import | Use::Export | Use::Reexport => &[Meaning::Value, Meaning::Type],
            Use::Value | Use::Call | Use::Argument | Use::Jsx => &[Meaning::Value],
        }
    }

    /// Binds once per wanted meaning; the distinct declarations found, or the first other
    /// outcome when none is a declaration.
    pub(super) fn bind_all(
        &self,
        meanings: &[Meaning],
        mut f: impl FnMut(Meaning) -> Bound,
    ) -> Vec<Bound> {
        let mut decls: Vec<Bound> = Vec::new();
        let mut other = None;
        for &mn in meanings {
            let b = f(mn);
            match b {
                Bound::Decl(..) if self.bound_fits(b, mn) || meanings.len() == 1 => {
                    if !decls.contains(&b) {
                        decls.push(b);
                    }
                }
                Bound::Decl(..) => {
                    if other.is_none() {
                        other = Some(b);
                    }
                }
                _ => {
                    if other.is_none() {
                        other = Some(b);
                    }
                }
            }
        }
        if decls.is_empty() {
            decls.extend(other);
        }
        decls
    }

    /// Of the declarations merged with `d` (same qualified name, same module), the one that
    /// declares `member`; `d` itself when none or several do.
    pub(super) fn holder_of(&self, m: usize, d: usize, member: &str) -> usize {
        let f = &self.mods[m].ts;
        let Some(group) = self.merged[m].get(&f.decls[d].qn) else {
            return d;
        };
        if f.decls[d].members.contains_key(member) {
            return d;
        }
        let holders: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&g| f.decls[g].members.contains_key(member))
            .collect();
        match holders[..] {
            [h] => h,
            _ => d,
        }
    }
}
