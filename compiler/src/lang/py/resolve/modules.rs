//! The module table (SPEC 12.1): every file's dotted module name under its repository's
//! module roots, the package directories (namespace packages included), and which
//! repositories provide each top-level package.

use crate::hash::{HashMap, HashSet};
use std::collections::BTreeSet;

use super::{Module, Target};
use crate::facts::RepoId;
use crate::lang::py::project::{RepoLayout, module_name, normalise};

pub(super) struct ModuleTable {
    /// (repo, dotted) → module.
    pub by_name: HashMap<(RepoId, String), usize>,
    /// (repo, dotted) → the stub (`.pyi`) of a module whose source (`.py`) is `by_name`'s.
    pub stubs: HashMap<(RepoId, String), usize>,
    /// (repo, dotted prefix) of every package directory (namespace packages included).
    prefixes: HashSet<(RepoId, String)>,
    /// Top-level package → repositories providing it.
    pub providers: HashMap<String, BTreeSet<RepoId>>,
}

impl ModuleTable {
    /// Names every module; when two files give one name, the first in Python's order takes it.
    pub fn new(mods: &[Module], layouts: &HashMap<RepoId, RepoLayout>) -> ModuleTable {
        let mut by_name = HashMap::default();
        let mut stubs = HashMap::default();
        let mut prefixes = HashSet::default();
        let mut providers: HashMap<String, BTreeSet<RepoId>> = HashMap::default();
        // `.py` before `.pyi`, so that a module's declarations come from its source.
        let mut order: Vec<usize> = (0..mods.len()).collect();
        // A package (`pkg/__init__.py`) before a module of the same name (`pkg.py`), as Python
        // finds them.
        order.sort_by_key(|&i| {
            let p = &mods[i].path;
            (
                p.ends_with(".pyi"),
                !(p.ends_with("/__init__.py") || p == "__init__.py"),
                p.clone(),
            )
        });
        for i in order {
            let m = &mods[i];
            let Some(d) = module_name(&layouts[&m.repo].roots, &m.path) else {
                continue;
            };
            let parts: Vec<&str> = d.split('.').collect();
            for k in 1..parts.len() {
                prefixes.insert((m.repo, parts[..k].join(".")));
            }
            if m.path.ends_with("__init__.py") || m.path.ends_with("__init__.pyi") {
                prefixes.insert((m.repo, d.clone()));
            }
            providers
                .entry(parts[0].to_string())
                .or_default()
                .insert(m.repo);
            let first = *by_name.entry((m.repo, d.clone())).or_insert(i);
            if first != i && m.path.ends_with(".pyi") && !mods[first].path.ends_with(".pyi") {
                stubs.entry((m.repo, d.clone())).or_insert(i);
            }
        }
        for (repo, l) in layouts {
            for (_, p) in &l.projects {
                providers.entry(normalise(p)).or_default().insert(*repo);
            }
        }
        ModuleTable {
            by_name,
            stubs,
            prefixes,
            providers,
        }
    }

    /// The module, or namespace package, named `dotted` in repository `repo`.
    pub fn lookup_in_repo(&self, repo: RepoId, dotted: &str) -> Option<Target> {
        if dotted.is_empty() {
            return None;
        }
        if let Some(&i) = self.by_name.get(&(repo, dotted.to_string())) {
            return Some(Target::Module(i));
        }
        self.prefixes
            .contains(&(repo, dotted.to_string()))
            .then(|| Target::Namespace(repo, dotted.to_string()))
    }
}
