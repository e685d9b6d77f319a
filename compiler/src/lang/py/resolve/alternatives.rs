//! Alternative declarations of one name (SPEC 12.4): a name bound to one of them is a use of
//! each, as a type checker sees it, but the binding picks one. Each use edge to the one picked
//! gets a `CANDIDATE` edge to the others, at the same site, of the same kind and provenance:
//! without it, an answer about a declaration the binding did not pick would miss the use and
//! still say `COMPLETE`.
//!
//! - A module with a stub beside it (`fastmath.py` and `fastmath.pyi`): the program runs the
//!   source and a type checker reads the stub; same-named declarations (qualified name and kind)
//!   are alternatives, and so are a stub's module-level declaration that the module provides by
//!   an import and the declaration the import binds (with their members).
//! - A name a module imports in a `try` statement and also declares at module level
//!   (`try: from ._speedups import total` / `except ImportError: def total(…)`): the
//!   declaration is the import's alternative in that module.

use crate::hash::HashMap;

use kivgraph_format::SymbolKind;

use super::{Bound, Resolver, Target};
use crate::emit;
use crate::facts::SymbolId;
use crate::lang::py::extract::ImportKind;

impl Resolver<'_> {
    /// Adds the stub-twin candidates of the use edges from `first_edge` on (this resolver's).
    pub(super) fn stub_twins(&mut self, first_edge: usize) {
        let twin = self.twins();
        if twin.is_empty() {
            return;
        }
        emit::alternative_candidates(self.facts, first_edge, |e| {
            twin.get(&e.target).map_or(&[][..], Vec::as_slice)
        });
    }

    /// The declarations of each module and its stub that are each other's alternatives: the
    /// same qualified name and kind in both; a module-level declaration of the stub that the
    /// module provides by an import (`attr/__init__.pyi` declares `NOTHING`, `attr/__init__.py`
    /// imports it from `attr._make`) and the declaration the import binds, with their members
    /// of the same qualified name and kind.
    fn twins(&self) -> HashMap<SymbolId, Vec<SymbolId>> {
        let mut twin: HashMap<SymbolId, Vec<SymbolId>> = HashMap::default();
        let mut pairs: Vec<(usize, usize)> = self
            .table
            .stubs
            .iter()
            .filter_map(|(key, &stub)| Some((*self.table.by_name.get(key)?, stub)))
            .collect();
        pairs.sort_unstable();
        // The first declaration of each (qualified name, kind), as binding takes the first.
        let by_qn = |m: usize| -> HashMap<(&str, SymbolKind), usize> {
            let mut out = HashMap::default();
            for (d, x) in self.mods[m].py.decls.iter().enumerate() {
                if !self.inherited.contains(&(m, d)) {
                    out.entry((x.qn.as_str(), x.kind)).or_insert(d);
                }
            }
            out
        };
        let mut pair = |a: SymbolId, b: SymbolId| {
            if a != b {
                twin.entry(a).or_default().push(b);
                twin.entry(b).or_default().push(a);
            }
        };
        for (source, stub) in pairs {
            let src = by_qn(source);
            let stub_decls = &self.mods[stub].py.decls;
            for (d, x) in stub_decls.iter().enumerate() {
                if self.inherited.contains(&(stub, d)) {
                    continue;
                }
                if let Some(&sd) = src.get(&(x.qn.as_str(), x.kind)) {
                    pair(self.mods[source].syms[sd], self.mods[stub].syms[d]);
                    continue;
                }
                if x.parent.is_some() {
                    continue;
                }
                let Bound::Decl(m2, d2) = self.attribute(source, &x.name, 0) else {
                    continue;
                };
                let y = &self.mods[m2].py.decls[d2];
                if m2 == stub || m2 == source || y.kind != x.kind {
                    continue;
                }
                pair(self.mods[stub].syms[d], self.mods[m2].syms[d2]);
                if y.qn != x.qn {
                    continue;
                }
                let prefix = format!("{}.", x.qn);
                let there = by_qn(m2);
                for (e, z) in stub_decls.iter().enumerate() {
                    if !self.inherited.contains(&(stub, e))
                        && z.qn.starts_with(&prefix)
                        && let Some(&e2) = there.get(&(z.qn.as_str(), z.kind))
                    {
                        pair(self.mods[stub].syms[e], self.mods[m2].syms[e2]);
                    }
                }
            }
        }
        for v in twin.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        twin
    }

    /// Adds the candidates of guarded imports: in a module that imports a name in a `try`
    /// statement and declares the same name at module level, every use edge of the module's
    /// file to the declaration the import binds gets a candidate to the module's declaration;
    /// so do those of a module that imports that name from it.
    pub(super) fn guarded_imports(&mut self, first_edge: usize) {
        // Per module: the declaration each guarded import binds → the module-level fallback of
        // the same name (the first, as Python's module attribute table keeps one).
        let mut alternative: HashMap<(crate::facts::FileId, SymbolId), SymbolId> =
            HashMap::default();
        // (module, guarded name) → (what the import binds, the fallback).
        let mut guarded: HashMap<(usize, &str), (SymbolId, SymbolId)> = HashMap::default();
        for (m, md) in self.mods.iter().enumerate() {
            for (i, im) in md.py.imports.iter().enumerate() {
                if !(im.guarded && im.top) || im.local.is_empty() {
                    continue;
                }
                let Some(d) = md
                    .py
                    .decls
                    .iter()
                    .position(|x| x.parent.is_none() && x.name == im.local)
                else {
                    continue;
                };
                if let Bound::Decl(m2, d2) = self.import_binding(m, i, 0) {
                    let bound = self.mods[m2].syms[d2];
                    alternative.entry((md.file, bound)).or_insert(md.syms[d]);
                    guarded.insert((m, im.local.as_str()), (bound, md.syms[d]));
                }
            }
        }
        // A module that imports the name from such a module (`from calc import total`) binds
        // the same declaration through it: its uses of that declaration get the candidate too.
        for md in &self.mods {
            for (i, im) in md.py.imports.iter().enumerate() {
                let (ImportKind::From(name), Some(Target::Module(m))) =
                    (&im.kind, md.targets.get(i))
                else {
                    continue;
                };
                if let Some(&(bound, local)) = guarded.get(&(*m, name.as_str())) {
                    alternative.entry((md.file, bound)).or_insert(local);
                }
            }
        }
        if alternative.is_empty() {
            return;
        }
        emit::alternative_candidates(self.facts, first_edge, |e| {
            e.file
                .and_then(|f| alternative.get(&(f, e.target)))
                .map_or(&[][..], std::slice::from_ref)
        });
    }
}
