//! Modules by dotted name, imports within and across repositories (SPEC 12.1), module
//! attributes (re-exports, `*` imports with `__all__`, submodules) and the binding of names
//! phase 1 left to imports.

use crate::hash::HashSet;

use super::{Bound, Resolver, Target};
use crate::emit::reason::{IMPORT_NOT_RESOLVED, STDLIB_NOT_INDEXED};
use crate::facts::RepoId;
use crate::lang::py::extract::{ImportKind, NameRes, is_builtin};
use crate::lang::py::project::module_name;

const STDLIB: &str = include_str!("../stdlib.txt");

fn is_stdlib(top: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| STDLIB.split_whitespace().collect())
        .contains(top)
}

impl Resolver<'_> {
    /// The package a relative import of module `m` starts from.
    fn package_of(&self, m: usize) -> Option<String> {
        let d = self.mods[m]
            .dotted
            .clone()
            .or_else(|| module_name(&self.layouts[&self.mods[m].repo].roots, &self.mods[m].path))?;
        let p = &self.mods[m].path;
        if p.ends_with("__init__.py") || p.ends_with("__init__.pyi") {
            Some(d)
        } else {
            Some(
                d.rsplit_once('.')
                    .map_or(String::new(), |(a, _)| a.to_string()),
            )
        }
    }

    pub(super) fn resolve_module(&self, m: usize, spec: &str) -> Target {
        let repo = self.mods[m].repo;
        if spec.starts_with('.') {
            let dots = spec.chars().take_while(|c| *c == '.').count();
            let rest = &spec[dots..];
            let Some(mut base) = self.package_of(m) else {
                return Target::Missing(IMPORT_NOT_RESOLVED, spec.to_string());
            };
            for _ in 1..dots {
                match base.rsplit_once('.') {
                    Some((a, _)) => base = a.to_string(),
                    None if !base.is_empty() => base = String::new(),
                    None => return Target::Missing(IMPORT_NOT_RESOLVED, spec.to_string()),
                }
            }
            let full = match (base.is_empty(), rest.is_empty()) {
                (true, _) => rest.to_string(),
                (false, true) => base,
                (false, false) => format!("{base}.{rest}"),
            };
            return self
                .table
                .lookup_in_repo(repo, &full)
                .unwrap_or_else(|| Target::Missing(IMPORT_NOT_RESOLVED, spec.to_string()));
        }
        if let Some(t) = self.table.lookup_in_repo(repo, spec) {
            return t;
        }
        let top = spec.split('.').next().unwrap_or(spec);
        if let Some(repos) = self.table.providers.get(top) {
            let others: Vec<RepoId> = repos.iter().copied().filter(|r| *r != repo).collect();
            if others.len() == 1
                && let Some(t) = self.table.lookup_in_repo(others[0], spec)
            {
                return t;
            }
        }
        if is_stdlib(top) {
            Target::Missing(STDLIB_NOT_INDEXED, top.to_string())
        } else {
            Target::Missing(IMPORT_NOT_RESOLVED, top.to_string())
        }
    }

    fn target_bound(t: &Target) -> Bound {
        match t {
            Target::Module(x) => Bound::Module(*x),
            Target::Namespace(r, d) => Bound::Namespace(*r, d.clone()),
            Target::Missing(..) => Bound::External,
        }
    }

    /// Attribute `name` of module `t`: its module-level declaration, an imported name it
    /// re-exports, a name of one of its `*` imports, or its submodule.
    pub(super) fn attribute(&self, t: usize, name: &str, depth: usize) -> Bound {
        let key = (t, name.to_string());
        self.attributes
            .get(key, depth, &self.depth_bound, Bound::Missing, || {
                self.compute_attribute(t, name, depth)
            })
    }

    fn compute_attribute(&self, t: usize, name: &str, depth: usize) -> Bound {
        let f = &self.mods[t].py;
        // `__all__`, `__name__`, `__file__`, …: attributes every module has.
        if name.starts_with("__") && name.ends_with("__") && !f.scope.contains_key(name) {
            return Bound::External;
        }
        match f.scope.get(name) {
            Some(NameRes::Decl(d)) => return Bound::Decl(t, *d),
            Some(NameRes::Import(i)) => {
                let b = self.import_binding(t, *i, depth + 1);
                if b != Bound::Missing {
                    return b;
                }
            }
            _ => {}
        }
        if let Some(b) = self.star_lookup(t, name, depth + 1) {
            return b;
        }
        match self.submodule(&Bound::Module(t), name) {
            // A name the source lacks and its stub declares (`.pyi` beside `.py`): the stub's,
            // as a type checker reads it.
            Bound::Missing => match self.mods[t]
                .dotted
                .as_ref()
                .and_then(|d| self.table.stubs.get(&(self.mods[t].repo, d.clone())))
            {
                Some(&s) => self.attribute(s, name, depth + 1),
                None => Bound::Missing,
            },
            b => b,
        }
    }

    pub(super) fn submodule(&self, b: &Bound, name: &str) -> Bound {
        let (repo, base) = match b {
            Bound::Module(t) => match &self.mods[*t].dotted {
                Some(d) => (self.mods[*t].repo, d.clone()),
                None => return Bound::Missing,
            },
            Bound::Namespace(r, d) => (*r, d.clone()),
            _ => return Bound::Missing,
        };
        match self.table.lookup_in_repo(repo, &format!("{base}.{name}")) {
            Some(t) => Self::target_bound(&t),
            None => Bound::Missing,
        }
    }

    /// A name that module `m` gets from one of its `from x import *`.
    fn star_lookup(&self, m: usize, name: &str, depth: usize) -> Option<Bound> {
        let f = &self.mods[m].py;
        let mut external = false;
        for (i, im) in f.imports.iter().enumerate().rev() {
            if im.kind != ImportKind::Star {
                continue;
            }
            match &self.mods[m].targets[i] {
                Target::Module(t) => {
                    let exported = match &self.mods[*t].py.all {
                        Some(all) => all.iter().any(|a| a == name),
                        None => !name.starts_with('_'),
                    };
                    if exported {
                        let b = self.attribute(*t, name, depth + 1);
                        if b != Bound::Missing {
                            return Some(b);
                        }
                    }
                }
                Target::Namespace(..) => {}
                Target::Missing(..) => external = true,
            }
        }
        // A name may come from a `*` import of a module outside the graph.
        external.then_some(Bound::External)
    }

    pub(super) fn import_binding(&self, m: usize, i: usize, depth: usize) -> Bound {
        let im = &self.mods[m].py.imports[i];
        match &im.kind {
            ImportKind::Module { alias: false } => {
                // `import a.b.c` binds `a`.
                let top = im.module.split('.').next().unwrap_or("");
                Self::target_bound(&self.resolve_module(m, top))
            }
            ImportKind::Module { alias: true } => Self::target_bound(&self.mods[m].targets[i]),
            ImportKind::From(name) => match &self.mods[m].targets[i] {
                Target::Module(t) => self.attribute(*t, name, depth + 1),
                ns @ Target::Namespace(..) => self.submodule(&Self::target_bound(ns), name),
                Target::Missing(..) => Bound::External,
            },
            ImportKind::Star => Bound::Missing,
        }
    }

    pub(super) fn bind_res(&self, m: usize, res: &NameRes, depth: usize) -> Bound {
        if self.too_deep(depth) {
            return Bound::Missing;
        }
        match res {
            NameRes::Decl(d) => Bound::Decl(m, *d),
            NameRes::Import(i) => self.import_binding(m, *i, depth + 1),
            NameRes::Local(_) => Bound::Missing,
            NameRes::Unbound(n) => {
                if let Some(b) = self.star_lookup(m, n, depth + 1) {
                    b
                } else if is_builtin(n) || n == "__all__" {
                    Bound::External
                } else {
                    Bound::Missing
                }
            }
        }
    }
}
