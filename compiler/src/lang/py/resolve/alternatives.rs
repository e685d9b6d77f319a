//! Alternative declarations of one name (SPEC 12.4): a name bound to one of them is a use of
//! each, as a type checker sees it, but the binding picks one. Each use edge to the one picked
//! gets a `CANDIDATE` edge to the others, at the same site, of the same kind and provenance:
//! without it, an answer about a declaration the binding did not pick would miss the use and
//! still say `COMPLETE`.
//!
//! - A module with a stub beside it (`fastmath.py` and `fastmath.pyi`): the program runs the
//!   source and a type checker reads the stub; same-named declarations (qualified name and kind)
//!   are alternatives.
//! - A name a module imports in a `try` statement and also declares at module level
//!   (`try: from ._speedups import total` / `except ImportError: def total(…)`): the
//!   declaration is the import's alternative in that module.

use std::collections::{HashMap, HashSet};

use kivgraph_format::{Confidence, SymbolKind};

use super::Resolver;
use crate::facts::{Edge, SymbolId};

impl Resolver<'_> {
    /// Adds the stub-twin candidates of the use edges from `first_edge` on (this resolver's).
    pub(super) fn stub_twins(&mut self, first_edge: usize) {
        let mut twin: HashMap<SymbolId, SymbolId> = HashMap::new();
        let mut pairs: Vec<(usize, usize)> = self
            .table
            .stubs
            .iter()
            .filter_map(|(key, &stub)| Some((*self.table.by_name.get(key)?, stub)))
            .collect();
        pairs.sort_unstable();
        for (source, stub) in pairs {
            let by_qn = |m: usize| -> HashMap<(&str, SymbolKind), SymbolId> {
                let md = &self.mods[m];
                md.py
                    .decls
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| !self.inherited.contains(&(m, *d)))
                    .map(|(d, x)| ((x.qn.as_str(), x.kind), md.syms[d]))
                    .collect()
            };
            let (a, b) = (by_qn(source), by_qn(stub));
            for (k, &sa) in &a {
                if let Some(&sb) = b.get(k) {
                    twin.insert(sa, sb);
                    twin.insert(sb, sa);
                }
            }
        }
        if twin.is_empty() {
            return;
        }
        let key = |e: &Edge| (e.source, e.target, e.kind, e.file, e.line, e.column);
        let mut have: HashSet<_> = self.facts.edges[first_edge..]
            .iter()
            .filter(|e| twin.contains_key(&e.target))
            .map(key)
            .collect();
        let mut added: Vec<Edge> = Vec::new();
        for e in &self.facts.edges[first_edge..] {
            let Some(&other) = twin.get(&e.target) else {
                continue;
            };
            if !e.kind.is_reference() || e.confidence == Confidence::StructuralCertain {
                continue;
            }
            let t = Edge {
                target: other,
                confidence: Confidence::Candidate,
                ..*e
            };
            if have.insert(key(&t)) {
                added.push(t);
            }
        }
        self.facts.edges.extend(added);
    }

    /// Adds the candidates of guarded imports: in a module that imports a name in a `try`
    /// statement and declares the same name at module level, every use edge of the module's
    /// file to another symbol of that name gets a candidate to the module's declaration.
    pub(super) fn guarded_imports(&mut self, first_edge: usize) {
        let mut added: Vec<Edge> = Vec::new();
        for md in &self.mods {
            let guarded: HashSet<&str> = md
                .py
                .imports
                .iter()
                .filter(|i| i.guarded && i.top && !i.local.is_empty())
                .map(|i| i.local.as_str())
                .collect();
            if guarded.is_empty() {
                continue;
            }
            // The module-level declaration of each guarded name (the first, as Python's
            // module attribute table keeps one).
            let mut fallback: HashMap<&str, SymbolId> = HashMap::new();
            for (d, x) in md.py.decls.iter().enumerate() {
                if x.parent.is_none() && guarded.contains(x.name.as_str()) {
                    fallback.entry(x.name.as_str()).or_insert(md.syms[d]);
                }
            }
            if fallback.is_empty() {
                continue;
            }
            let mut have: HashSet<_> = HashSet::new();
            for e in &self.facts.edges[first_edge..] {
                if e.file != Some(md.file)
                    || !e.kind.is_reference()
                    || e.confidence == Confidence::StructuralCertain
                {
                    continue;
                }
                let name = self.facts.symbols[e.target].name.as_str();
                let Some(&local) = fallback.get(name) else {
                    continue;
                };
                if e.target == local || e.source == local {
                    continue;
                }
                let t = Edge {
                    target: local,
                    confidence: Confidence::Candidate,
                    ..*e
                };
                if have.insert((t.source, t.kind, t.line, t.column)) {
                    added.push(t);
                }
            }
        }
        self.facts.edges.extend(added);
    }
}
