//! Candidates between a trait's items and the items of its impls (SPEC 14.4): a reference
//! bound to one of them may be a use of the other, as rust-analyzer sees it, and an answer
//! about the one the binding did not pick would otherwise miss it and still say `COMPLETE`.
//!
//! - A reference bound to a trait's function `T::m` (`Shape::area(&c)`, `x.area()` on a value
//!   typed only by the trait): a `CANDIDATE` to each impl's `<S as T>::m` when there are 1 to
//!   8 of them, since the call dispatches to one.
//! - A reference bound to an impl's associated type or constant `<S as T>::X`: a `CANDIDATE`
//!   to the trait's `T::X`, which the path names through the trait.
//!
//! Each candidate is at the same site, of the same kind and provenance as the edge it follows.

use crate::hash::HashMap;

use kivgraph_format::{Confidence, EdgeKind, Language, SymbolKind};

use super::Resolver;
use crate::emit;
use crate::facts::{PackageId, SymbolId};

/// Impls of one trait function beyond which a call through the trait gives no candidates.
const MAX_IMPLS: usize = 8;

/// The part of a qualified name before its last `::` (`<Circle as Shape>` of
/// `<Circle as Shape>::area`), and the last part.
fn split_last(qn: &str) -> Option<(&str, &str)> {
    qn.rsplit_once("::")
}

impl Resolver<'_> {
    /// Adds the dispatch candidates of the reference edges from `first_edge` on.
    pub(super) fn dispatch_candidates(&mut self, first_edge: usize) {
        let (impls, trait_item) = self.dispatch_targets();
        // Only Rust symbols are keys: an edge into one has a Rust source.
        let none: &[SymbolId] = &[];
        emit::alternative_candidates(self.facts, first_edge, |e| {
            match (impls.get(&e.target), trait_item.get(&e.target)) {
                (Some(v), _) if v.len() <= MAX_IMPLS => v,
                (_, Some(t)) => std::slice::from_ref(t),
                _ => none,
            }
        });
    }

    /// Each trait function's impl functions, and each impl associated item's trait item.
    #[allow(clippy::type_complexity)]
    fn dispatch_targets(
        &self,
    ) -> (
        HashMap<SymbolId, Vec<SymbolId>>,
        HashMap<SymbolId, SymbolId>,
    ) {
        let syms = &self.facts.symbols;
        let rust = |s: SymbolId| syms[s].language == Language::Rust;
        // Trait function → the impl functions providing it; impl prefix → trait prefix.
        let mut impls: HashMap<SymbolId, Vec<SymbolId>> = HashMap::default();
        let mut impl_trait: HashMap<(PackageId, &str), (PackageId, &str)> = HashMap::default();
        for e in &self.facts.edges {
            if !matches!(e.kind, EdgeKind::Implements | EdgeKind::Overrides)
                || e.confidence != Confidence::StructuralCertain
                || !rust(e.source)
                || syms[e.target].kind != SymbolKind::TraitMethod
            {
                continue;
            }
            impls.entry(e.target).or_default().push(e.source);
            let (s, t) = (&syms[e.source], &syms[e.target]);
            if let (Some((ip, _)), Some((tp, _))) =
                (split_last(&s.qualified_name), split_last(&t.qualified_name))
            {
                impl_trait.insert((s.package, ip), (t.package, tp));
            }
        }
        for v in impls.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        // Associated types and constants of impls → the trait's.
        let mut items: HashMap<(PackageId, &str), SymbolId> = HashMap::default();
        for (i, s) in syms.iter().enumerate() {
            if s.language == Language::Rust
                && matches!(s.kind, SymbolKind::AssociatedType | SymbolKind::Const)
            {
                items.insert((s.package, s.qualified_name.as_str()), SymbolId(i));
            }
        }
        let mut trait_item: HashMap<SymbolId, SymbolId> = HashMap::default();
        for (&(pkg, qn), &x) in &items {
            let Some((prefix, name)) = split_last(qn) else {
                continue;
            };
            let Some(&(tpkg, tprefix)) = impl_trait.get(&(pkg, prefix)) else {
                continue;
            };
            if let Some(&t) = items.get(&(tpkg, format!("{tprefix}::{name}").as_str())) {
                trait_item.insert(x, t);
            }
        }
        (impls, trait_item)
    }
}
