//! Consumers of a symbol outside its own repository.

use kivgraph_format::{Generation, Language};

use super::references::{Direction, RefFilter, RefRow, references};
use super::unresolved::blind_spots_naming;

/// One consumer of a symbol outside its own repository.
#[derive(Debug, Clone, PartialEq)]
pub enum Consumer {
    /// A symbol of another repository with an edge to the subject.
    Symbol(RefRow),
    /// Packages of one repository that depend on the subject's declaring package.
    Packages {
        repository: u32,
        packages: Vec<u32>,
        confidence: kivgraph_format::Confidence,
        provenance: kivgraph_format::Provenance,
    },
    /// A failed request from another repository that asked for the subject's name.
    Unresolved(u32),
}

/// Consumers of `subject` outside its repository: symbol uses (adjacency order), package
/// dependencies on its package (one entry per repository), and unresolved requests for its name.
pub fn cross_repo_consumers(
    g: &Generation,
    subject: u32,
    repo: Option<u32>,
    language: Option<&str>,
) -> Vec<Consumer> {
    use kivgraph_format::{Confidence, EdgeKind, Provenance};
    let b = g.graph();
    let s = &b.symbols[subject as usize];
    let home = s.repository.to_native();
    let lang_ok = |code: u8| {
        language.is_none_or(|l| Language::from_code(code).is_some_and(|x| x.as_str() == l))
    };
    let repo_ok = |r: u32| r != home && repo.is_none_or(|x| x == r);
    let filter = RefFilter {
        kinds: EdgeKind::ALL
            .iter()
            .copied()
            .filter(|k| k.is_reference())
            .collect(),
        confidence: None,
        repo: None,
        language: language.map(str::to_string),
        include_derived: true,
    };
    let mut out: Vec<Consumer> = references(g, subject, Direction::Incoming, &filter)
        .into_iter()
        .filter(|r| repo_ok(b.symbols[r.other as usize].repository.to_native()))
        .map(Consumer::Symbol)
        .collect();
    let pkg = s.package.to_native();
    let mut by_repo: Vec<(u32, Vec<u32>, u8, u16)> = Vec::new();
    for e in b.package_edges.iter() {
        if e.target.to_native() != pkg || e.kind != EdgeKind::PackageDependsOn.code() {
            continue;
        }
        let src = e.source.to_native();
        let p = &b.packages[src as usize];
        let r = p.repository.to_native();
        if !repo_ok(r) || !lang_ok(p.language) {
            continue;
        }
        match by_repo.iter_mut().find(|x| x.0 == r) {
            Some(x) => x.1.push(src),
            None => by_repo.push((r, vec![src], e.confidence, e.provenance.to_native())),
        }
    }
    by_repo.sort_by_key(|x| x.0);
    for (r, mut packages, c, p) in by_repo {
        packages.sort_unstable();
        packages.dedup();
        if let (Some(confidence), Some(provenance)) =
            (Confidence::from_code(c), Provenance::from_code(p))
        {
            out.push(Consumer::Packages {
                repository: r,
                packages,
                confidence,
                provenance,
            });
        }
    }
    for i in blind_spots_naming(g, subject) {
        let u = &b.unresolved[i as usize];
        if repo_ok(u.repository.to_native()) && lang_ok(u.language) {
            out.push(Consumer::Unresolved(i));
        }
    }
    out
}
