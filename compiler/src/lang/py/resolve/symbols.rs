//! Symbols: one package and one module symbol per file, a symbol per declaration (SPEC 12.2),
//! and the structural edges read off declarations (`METHOD_OF`, `OVERRIDES`).

use crate::hash::HashSet;

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::{Hit, Receiver, Resolver, Shared, is_method};
use crate::emit;
use crate::facts::{FactSet, Package, RepoId};
use crate::lang::Home;
use crate::lang::py::project::module_name;
use crate::lang::shared::resolve::decl_symbol;

impl Shared {
    /// The package, module symbol and declaration symbols of every module.
    pub(super) fn symbols(&mut self, facts: &mut FactSet) {
        let mut names_used: HashSet<(RepoId, String)> = HashSet::default();
        for mi in 0..self.mods.len() {
            let m = &self.mods[mi];
            let dotted = m.dotted.clone();
            let mut name = match &dotted {
                Some(d) => d.clone(),
                None => {
                    // A stub beside its module, or a file no root makes importable.
                    match module_name(&self.layouts[&m.repo].roots, &m.path) {
                        Some(d) if m.path.ends_with(".pyi") => format!("{d}.pyi"),
                        _ => m.path.clone(),
                    }
                }
            };
            if !names_used.insert((m.repo, name.clone())) {
                name = m.path.clone();
                names_used.insert((m.repo, name.clone()));
            }
            let project = self.project_of(m.repo, &m.path);
            let pid = facts.push_package(Package {
                repo: m.repo,
                language: Language::Python,
                name: name.clone(),
                path: m.path.clone(),
                module: project,
            });
            let home = Home {
                repo: m.repo,
                package: pid,
                file: m.file,
                language: Language::Python,
            };
            let module_sym = home.push_module(facts, &m.path, name);
            let mut syms = Vec::with_capacity(m.py.decls.len());
            for (di, d) in m.py.decls.iter().enumerate() {
                if self.inherited.contains(&(mi, di)) {
                    // Not a symbol: the base declares it. Nothing binds to it.
                    syms.push(module_sym);
                    continue;
                }
                syms.push(facts.push_symbol(decl_symbol!(home, d, d.exported)));
            }
            let m = &mut self.mods[mi];
            m.module_sym = module_sym;
            m.syms = syms;
        }
    }

    fn project_of(&self, repo: RepoId, path: &str) -> Option<String> {
        self.layouts
            .get(&repo)?
            .projects
            .iter()
            .filter(|(dir, _)| dir.is_empty() || path.starts_with(&format!("{dir}/")))
            .max_by_key(|(dir, _)| dir.len())
            .map(|(_, n)| n.clone())
    }
}

impl Resolver<'_> {
    /// `METHOD_OF` from each method, static method and property to its class, and `OVERRIDES`
    /// to the member it overrides, at the start of its symbol.
    pub(super) fn structural(&mut self, m: usize) {
        self.eval_steps.set(0);
        const STRUCTURAL: (Confidence, Provenance) =
            (Confidence::StructuralCertain, Provenance::PyDeclaration);
        for d in 0..self.mods[m].py.decls.len() {
            let (kind, parent, name, line, column) = {
                let x = &self.mods[m].py.decls[d];
                (
                    x.kind,
                    x.parent,
                    x.name.clone(),
                    x.span.start_line,
                    x.span.start_column,
                )
            };
            let Some(p) = parent else { continue };
            if self.mods[m].py.decls[p].kind != SymbolKind::Class || !is_method(kind) {
                continue;
            }
            let site = self.site(m, line, column);
            let source = self.mods[m].syms[d];
            let class = self.mods[m].syms[p];
            emit::edge(
                self.facts,
                (source, class),
                EdgeKind::MethodOf,
                STRUCTURAL,
                site,
            );
            if name == "__init__" && kind != SymbolKind::Method {
                continue;
            }
            if let Hit::Decls(v, true) = self.members_named(&Receiver::SuperOf(m, p), &name, 0)
                && is_method(self.mods[v[0].0].py.decls[v[0].1].kind)
            {
                let target = self.mods[v[0].0].syms[v[0].1];
                emit::edge(
                    self.facts,
                    (source, target),
                    EdgeKind::Overrides,
                    STRUCTURAL,
                    site,
                );
            }
        }
    }
}
