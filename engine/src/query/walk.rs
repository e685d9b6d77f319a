//! Bounded breadth-first walks over the edges, for blast radius and dependency traces.

use kivgraph_format::Generation;

use super::references::Direction;

/// A symbol reached by a traversal, with the edge that first discovered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    pub id: u32,
    pub depth: u32,
    pub from: u32,
    pub via_kind: kivgraph_format::EdgeKind,
    pub via_confidence: kivgraph_format::Confidence,
    pub via_provenance: kivgraph_format::Provenance,
}

/// The result of a bounded breadth-first walk.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// Every reached symbol but the root (and its depth-0 seeds), in discovery order.
    pub nodes: Vec<Reached>,
    /// The walk stopped because `max_nodes` symbols were visited.
    pub truncated: bool,
    /// Distinct relation kinds each reached symbol has with the traversed subgraph.
    pub kinds_touching: Vec<Vec<kivgraph_format::EdgeKind>>,
}

/// How a walk moves.
#[derive(Debug, Clone)]
pub struct WalkSpec {
    /// `Incoming` walks backwards (who is affected), `Outgoing` forwards (what is reached).
    pub direction: Direction,
    pub depth: u32,
    /// Visited symbols, root included.
    pub max_nodes: usize,
    pub kinds: Vec<kivgraph_format::EdgeKind>,
    pub confidence: Option<kivgraph_format::Confidence>,
    /// Blast radius: seed the root's members at depth 0 and cross IMPLEMENTS both ways.
    pub blast: bool,
}

pub fn walk(g: &Generation, root: u32, spec: &WalkSpec) -> Walk {
    use kivgraph_format::{Confidence, EdgeKind, Provenance};
    let b = g.graph();
    let mut visited: std::collections::HashSet<u32> = std::collections::HashSet::new();
    visited.insert(root);
    let mut frontier = vec![root];
    if spec.blast {
        // A type's reach includes its methods': members are seeded at depth 0.
        for e in b.reverse.row(root) {
            if e.kind == EdgeKind::MethodOf.code() && visited.insert(e.other.to_native()) {
                frontier.push(e.other.to_native());
            }
        }
    }
    let decode = |e: &kivgraph_format::blob::ArchivedEdgeRec| {
        Some((
            EdgeKind::from_code(e.kind)?,
            Confidence::from_code(e.confidence)?,
            Provenance::from_code(e.provenance.to_native())?,
        ))
    };
    let keep = |k: EdgeKind, c: Confidence| {
        spec.kinds.contains(&k) && spec.confidence.is_none_or(|x| x == c)
    };
    let mut out = Walk::default();
    'walk: for depth in 1..=spec.depth {
        let mut next = Vec::new();
        for &u in &frontier {
            let mut rows: Vec<&kivgraph_format::blob::ArchivedEdgeRec> = Vec::new();
            match spec.direction {
                Direction::Incoming => rows.extend(b.reverse.row(u)),
                Direction::Outgoing => rows.extend(b.forward.row(u)),
            }
            if spec.blast {
                // Implementations and the interfaces they implement reach each other.
                rows.extend(
                    b.forward
                        .row(u)
                        .iter()
                        .filter(|e| e.kind == EdgeKind::Implements.code()),
                );
            }
            for e in rows {
                let Some((k, c, p)) = decode(e) else { continue };
                if !keep(k, c) {
                    continue;
                }
                let v = e.other.to_native();
                if visited.contains(&v) {
                    continue;
                }
                if visited.len() >= spec.max_nodes {
                    out.truncated = true;
                    break 'walk;
                }
                visited.insert(v);
                next.push(v);
                out.nodes.push(Reached {
                    id: v,
                    depth,
                    from: u,
                    via_kind: k,
                    via_confidence: c,
                    via_provenance: p,
                });
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    out.kinds_touching = out
        .nodes
        .iter()
        .map(|n| {
            let mut ks: Vec<EdgeKind> = b
                .forward
                .row(n.id)
                .iter()
                .chain(b.reverse.row(n.id))
                .filter(|e| visited.contains(&e.other.to_native()))
                .filter_map(&decode)
                .filter(|(k, c, _)| keep(*k, *c))
                .map(|(k, _, _)| k)
                .collect();
            ks.sort();
            ks.dedup();
            ks
        })
        .collect();
    out
}
