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
    /// Distinct relation kinds each reached symbol has with the traversed subgraph (blast radius
    /// walks only; empty otherwise).
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
    let mut visited = Visited::new(b.symbols.len());
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
    // The kinds a walk follows, as a mask of codes, and its confidence: one test an edge (an
    // edge whose codes do not decode is never followed).
    let mask = spec
        .kinds
        .iter()
        .fold(0u64, |m, k| m | 1u64 << (k.code() % 64));
    let confidence = spec.confidence.map(|c| c.code());
    let keep = |e: &kivgraph_format::blob::ArchivedEdgeRec| {
        mask & (1u64 << (e.kind % 64)) != 0 && confidence.is_none_or(|c| c == e.confidence)
    };
    let mut out = Walk::default();
    'walk: for depth in 1..=spec.depth {
        let mut next = Vec::new();
        let rows = match spec.direction {
            Direction::Incoming => b.reverse,
            Direction::Outgoing => b.forward,
        };
        for (k, &u) in frontier.iter().enumerate() {
            // The frontier's rows lie scattered over the adjacency: ask for them ahead.
            rows.prefetch_rows(&frontier, k);
            if spec.blast {
                b.forward.prefetch_rows(&frontier, k);
            }
            let primary = rows.row(u);
            // Implementations and the interfaces they implement reach each other.
            let implementing: &[kivgraph_format::blob::ArchivedEdgeRec] =
                if spec.blast { b.forward.row(u) } else { &[] };
            let implements = EdgeKind::Implements.code();
            for e in primary
                .iter()
                .chain(implementing.iter().filter(|e| e.kind == implements))
            {
                if !keep(e) {
                    continue;
                }
                let v = e.other.to_native();
                if visited.contains(&v) {
                    continue;
                }
                let Some((k, c, p)) = decode(e) else { continue };
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
    if !spec.blast {
        // Only the blast radius tallies the kinds each symbol has with the walked subgraph.
        return out;
    }
    // Where each visited symbol is in `out.nodes` (the root and its seeds are not), by its rank
    // among the visited bits: no hashing per edge.
    let ranks = visited.ranks();
    let mut position = vec![u32::MAX; visited.len()];
    for (i, n) in out.nodes.iter().enumerate() {
        if let Some(r) = visited.rank(&ranks, n.id) {
            position[r] = i as u32;
        }
    }
    // Every edge between two visited symbols is in the forward row of its source and in the
    // reverse row of its target, both visited: reading either side's rows finds them all, and
    // the side with fewer half-edges is read.
    let total = |rows: &kivgraph_format::graph::Adjacency| -> usize {
        let list = &visited.list;
        (0..list.len())
            .map(|k| {
                if let Some(&ahead) = list.get(k + 16) {
                    rows.offsets.prefetch(ahead as usize);
                }
                rows.row_len(list[k])
            })
            .sum()
    };
    let side = if total(&b.reverse) < total(&b.forward) {
        b.reverse
    } else {
        b.forward
    };
    let mut masks = vec![0u64; out.nodes.len()];
    for (k, &u) in visited.list.iter().enumerate() {
        side.prefetch_rows(&visited.list, k);
        let at_u = visited.rank(&ranks, u).map_or(u32::MAX, |r| position[r]);
        for e in side.row(u) {
            let v = e.other.to_native();
            if !keep(e) || !visited.contains(&v) {
                continue;
            }
            let Some((k, _, _)) = decode(e) else {
                continue;
            };
            let bit = 1u64 << (k.code() % 64);
            let at_v = visited.rank(&ranks, v).map_or(u32::MAX, |r| position[r]);
            for at in [at_u, at_v] {
                if let Some(m) = masks.get_mut(at as usize) {
                    *m |= bit;
                }
            }
        }
    }
    out.kinds_touching = masks
        .into_iter()
        .map(|m| {
            let mut ks: Vec<EdgeKind> = EdgeKind::ALL
                .iter()
                .copied()
                .filter(|k| m & (1u64 << (k.code() % 64)) != 0)
                .collect();
            ks.sort();
            ks.dedup();
            ks
        })
        .collect();
    out
}

/// The symbols a walk visited: a bit a symbol of the graph (an eighth of a byte a symbol, made
/// per walk), and the list of them.
struct Visited {
    bits: Vec<u64>,
    list: Vec<u32>,
}

impl Visited {
    fn new(symbols: usize) -> Visited {
        Visited {
            bits: vec![0; symbols.div_ceil(64) + 1],
            list: Vec::new(),
        }
    }

    fn contains(&self, id: &u32) -> bool {
        let i = *id as usize;
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Adds `id`; whether it was new.
    fn insert(&mut self, id: u32) -> bool {
        let i = id as usize;
        let Some(w) = self.bits.get_mut(i / 64) else {
            return false;
        };
        let bit = 1u64 << (i % 64);
        if *w & bit != 0 {
            return false;
        }
        *w |= bit;
        self.list.push(id);
        true
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    /// How many visited symbols precede each word of bits.
    fn ranks(&self) -> Vec<u32> {
        let mut seen = 0u32;
        self.bits
            .iter()
            .map(|w| {
                let before = seen;
                seen += w.count_ones();
                before
            })
            .collect()
    }

    /// The rank of visited symbol `id` among the visited symbols in id order, or `None` when it
    /// was not visited.
    fn rank(&self, ranks: &[u32], id: u32) -> Option<usize> {
        let i = id as usize;
        let w = *self.bits.get(i / 64)?;
        let bit = 1u64 << (i % 64);
        (w & bit != 0).then(|| (ranks[i / 64] + (w & (bit - 1)).count_ones()) as usize)
    }
}
