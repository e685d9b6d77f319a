//! A symbol's single-hop relations, filtered by kind, confidence, repository and language.

use kivgraph_format::{Generation, Language};

/// Edge direction relative to the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Incoming,
    Outgoing,
}

/// One relation of the subject: the symbol at the other end, and the edge's attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefRow {
    pub other: u32,
    pub kind: kivgraph_format::EdgeKind,
    pub confidence: kivgraph_format::Confidence,
    pub provenance: kivgraph_format::Provenance,
}

/// Which relations a reference query keeps.
#[derive(Debug, Clone)]
pub struct RefFilter {
    pub kinds: Vec<kivgraph_format::EdgeKind>,
    pub confidence: Option<kivgraph_format::Confidence>,
    pub repo: Option<u32>,
    pub language: Option<String>,
    pub include_derived: bool,
}

/// The subject's single-hop relations, one row per (other end, kind, confidence, provenance),
/// in adjacency order (other end's stable key, then kind, confidence and provenance).
pub fn references(
    g: &Generation,
    subject: u32,
    direction: Direction,
    f: &RefFilter,
) -> Vec<RefRow> {
    use kivgraph_format::{Confidence, EdgeKind, Provenance};
    let b = g.graph();
    let csr = match direction {
        Direction::Incoming => &b.reverse,
        Direction::Outgoing => &b.forward,
    };
    // The other end's record is read only when something narrows by it: a repository, a
    // language, or derived repositories to hold back (a popular symbol has tens of thousands
    // of callers).
    let by_record =
        f.repo.is_some() || f.language.is_some() || (!f.include_derived && super::any_derived(g));
    let mut out: Vec<RefRow> = Vec::new();
    for e in csr.row(subject) {
        let (Some(kind), Some(confidence), Some(provenance)) = (
            EdgeKind::from_code(e.kind),
            Confidence::from_code(e.confidence),
            Provenance::from_code(e.provenance.to_native()),
        ) else {
            continue;
        };
        if !f.kinds.contains(&kind) || f.confidence.is_some_and(|c| c != confidence) {
            continue;
        }
        let row = RefRow {
            other: e.other.to_native(),
            kind,
            confidence,
            provenance,
        };
        if out.last() == Some(&row) {
            continue; // another occurrence of the same relation
        }
        if !by_record {
            out.push(row);
            continue;
        }
        let s = &b.symbols[row.other as usize];
        let repo = &b.repositories[s.repository.to_native() as usize];
        if f.repo.is_some_and(|r| r != s.repository.to_native())
            || (repo.derived && !f.include_derived && f.repo.is_none())
            || f.language
                .as_deref()
                .is_some_and(|l| Language::from_code(s.language).is_none_or(|x| x.as_str() != l))
        {
            continue;
        }
        out.push(row);
    }
    out
}
