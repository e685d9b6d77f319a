//! What every edge of a front end must satisfy, whatever its fixtures say: the provenances,
//! confidences and package edges of its SPEC section (used by `py_fixtures.rs`,
//! `rs_fixtures.rs` and `dart_fixtures.rs`).

use kivgraph_format::{Confidence, EdgeKind, Provenance};

use super::annotations::Facts;

/// The edge rules of one front end, as its SPEC section's edges table states them.
pub struct EdgeRules<'a> {
    /// The provenances of the language; every edge has one of them.
    pub provenances: &'a [Provenance],
    /// The name-only rule: its edges, and only they (but see `ambiguous_candidates`), are
    /// `CANDIDATE`.
    pub name_only: Provenance,
    /// Another provenance whose edges are all `CANDIDATE` (Rust's macro arguments).
    pub candidate_only: Option<Provenance>,
    /// The declaration rule: its edges, and only they, are `STRUCTURAL_CERTAIN`.
    pub declaration: Provenance,
    /// Whether a binding that finds several declarations gives a `CANDIDATE` edge under its own
    /// provenance, one per declaration: such an edge must then have a sibling of the same
    /// provenance at the same occurrence.
    pub ambiguous_candidates: bool,
    /// Fewer edges than this means the fixtures produced next to nothing.
    pub min_edges: usize,
}

/// Checks every edge whose source is in a registered (not derived) repository against `rules`,
/// and that its other exact edges are `EXACT_PACKAGE_MAPPED` exactly when they reach another
/// registered repository (edges into a derived repository stay `EXACT_DECLARATION_MAPPED`).
pub fn assert_edge_rules(facts: &Facts, rules: &EdgeRules<'_>) {
    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);
    let mapped = Confidence::ExactPackageMapped.code();
    let candidate = Confidence::Candidate.code();
    let mut edges = 0;
    for (src, sym) in g.symbols.iter().enumerate() {
        let from = sym.repository.to_native();
        if g.repositories[from as usize].derived {
            continue;
        }
        let row = g.forward.row(src as u32);
        for e in row {
            edges += 1;
            let p = e.provenance.to_native();
            let target = &g.symbols[e.other.to_native() as usize];
            let to = target.repository.to_native();
            let what = || {
                format!(
                    "{} edge {} -> {} ({:?}, {:?})",
                    EdgeKind::from_code(e.kind).map_or("?", |k| k.as_str()),
                    s(sym.qualified_name.to_native()),
                    s(target.qualified_name.to_native()),
                    Provenance::from_code(p),
                    Confidence::from_code(e.confidence),
                )
            };
            assert!(
                rules.provenances.iter().any(|r| r.code() == p),
                "{}",
                what()
            );
            if p == rules.name_only.code() || rules.candidate_only.is_some_and(|c| c.code() == p) {
                assert_eq!(
                    e.confidence,
                    candidate,
                    "name-only, not CANDIDATE: {}",
                    what()
                );
            } else if e.confidence == candidate {
                let siblings = row
                    .iter()
                    .filter(|o| {
                        o.confidence == candidate
                            && o.provenance.to_native() == p
                            && o.file.to_native() == e.file.to_native()
                            && o.line.to_native() == e.line.to_native()
                            && o.column.to_native() == e.column.to_native()
                    })
                    .count();
                // Or the alternative of an edge the binding picked (Python's stubs and guarded
                // imports, Rust's trait dispatch): an edge of the same kind and provenance at the
                // same site, to another target.
                let alternative_of = row.iter().any(|o| {
                    o.confidence != candidate
                        && o.kind == e.kind
                        && o.other.to_native() != e.other.to_native()
                        && o.provenance.to_native() == p
                        && o.file.to_native() == e.file.to_native()
                        && o.line.to_native() == e.line.to_native()
                        && o.column.to_native() == e.column.to_native()
                });
                assert!(
                    (rules.ambiguous_candidates && siblings > 1) || alternative_of,
                    "a CANDIDATE edge that is neither name-only, one of several, nor the \
                     alternative of an exact edge: {}",
                    what()
                );
            }
            assert_eq!(
                p == rules.declaration.code(),
                e.confidence == Confidence::StructuralCertain.code(),
                "declaration edges, and only they, are STRUCTURAL_CERTAIN: {}",
                what()
            );
            if e.confidence == Confidence::ExactDeclarationMapped.code() || e.confidence == mapped {
                let across = from != to && !g.repositories[to as usize].derived;
                assert_eq!(
                    e.confidence == mapped,
                    across,
                    "EXACT_PACKAGE_MAPPED exactly into another registered repository: {}",
                    what()
                );
            }
        }
    }
    assert!(edges > rules.min_edges, "only {edges} edges");
}

/// Checks that every package edge is `PACKAGE_DEPENDS_ON` with `provenance`, package-mapped
/// exactly when it reaches another registered (not derived) repository.
pub fn assert_package_edges(facts: &Facts, provenance: Provenance) {
    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);
    for e in g.package_edges.iter() {
        let (a, b) = (
            &g.packages[e.source.to_native() as usize],
            &g.packages[e.target.to_native() as usize],
        );
        assert_eq!(e.kind, EdgeKind::PackageDependsOn.code());
        assert_eq!(e.provenance.to_native(), provenance.code());
        let to = b.repository.to_native();
        let across = a.repository.to_native() != to && !g.repositories[to as usize].derived;
        let want = if across {
            Confidence::ExactPackageMapped
        } else {
            Confidence::ExactDeclarationMapped
        };
        assert_eq!(
            e.confidence,
            want.code(),
            "package edge {} -> {}",
            s(a.name.to_native()),
            s(b.name.to_native())
        );
    }
}
