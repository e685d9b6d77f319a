//! graph_status's tallies: the generation's counts, and what derived repositories contribute.

use kivgraph_format::{EdgeKind, Generation};

/// Counts for graph_status.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub repositories: u64,
    pub packages: u64,
    pub files: u64,
    pub symbols: u64,
    pub evidence: u64,
    pub edges: u64,
    pub package_edges: u64,
    pub unresolved: u64,
    pub edges_by_kind: Vec<(&'static str, u64)>,
    pub unresolved_by_reason: Vec<(String, u64)>,
}

/// Counts of the served generation, computed once per generation: they never change for it, and
/// a large graph has millions of edges to tally.
pub fn counts(g: &Generation) -> Counts {
    static CACHE: std::sync::Mutex<Option<(std::path::PathBuf, u64, Counts)>> =
        std::sync::Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((dir, id, c)) = cache.as_ref()
        && *dir == g.dir
        && *id == g.id
    {
        return c.clone();
    }
    let before = kivgraph_format::damage_count();
    let c = count_all(g);
    // Counts made from damaged bytes answer nothing (the call reports the damage) and are not
    // kept for the calls after it.
    if kivgraph_format::damage_count() == before {
        *cache = Some((g.dir.clone(), g.id, c.clone()));
    }
    c
}

fn count_all(g: &Generation) -> Counts {
    let b = g.graph();
    // The tallies the compiler wrote into the manifest: no edge or failure is read.
    let t = &g.manifest.tallies;
    // The manifest has no sum of its own: its tallies must add up to the array lengths of the
    // checked root, or they are damage, not an answer.
    let edges = b.forward.edges.len() as u64;
    if t.edges_by_kind.values().sum::<u64>() != edges
        || t.unresolved_by_reason.values().sum::<u64>() != b.unresolved.len() as u64
        || t.evidence > edges
    {
        kivgraph_format::note_damage(kivgraph_format::Damage {
            file: kivgraph_format::layout::MANIFEST,
            region: "tallies",
            what: "they do not add up to the blob's edges and failures".into(),
        });
    }
    let evidence = t.evidence;
    let mut edges_by_kind: Vec<(&'static str, u64)> = t
        .edges_by_kind
        .iter()
        .map(|(k, &n)| (EdgeKind::parse(k).map_or("UNKNOWN", |k| k.as_str()), n))
        .collect();
    edges_by_kind.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut unresolved_by_reason: Vec<(String, u64)> = t
        .unresolved_by_reason
        .iter()
        .map(|(r, &n)| (r.clone(), n))
        .collect();
    unresolved_by_reason.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Counts {
        repositories: b.repositories.len() as u64,
        packages: b.packages.len() as u64,
        files: b.files.len() as u64,
        symbols: b.symbols.len() as u64,
        evidence,
        edges: b.forward.edges.len() as u64,
        package_edges: b.package_edges.len() as u64,
        unresolved: b.unresolved.len() as u64,
        edges_by_kind,
        unresolved_by_reason,
    }
}

/// What the derived (toolchain) repositories contribute, for graph_status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DerivedCounts {
    pub repositories: Vec<String>,
    pub packages: u64,
    pub files: u64,
    pub symbols: u64,
    /// Edges with both ends in derived repositories.
    pub edges_within: u64,
    /// Edges from a registered repository into a derived one.
    pub edges_inbound: u64,
    pub unresolved: u64,
}

/// How many rows, given the repository index of each, belong to a derived repository.
fn in_derived(derived: &[bool], repositories: impl Iterator<Item = u32>) -> u64 {
    repositories.filter(|&r| derived[r as usize]).count() as u64
}

/// `None` when the graph has no derived repository.
pub fn derived_counts(g: &Generation) -> Option<DerivedCounts> {
    let b = g.graph();
    let derived = super::derived_repositories(g);
    if !derived.iter().any(|&d| d) {
        return None;
    }
    let sym_derived = |s: u32| derived[b.symbols[s as usize].repository.to_native() as usize];
    let mut c = DerivedCounts {
        repositories: b
            .repositories
            .iter()
            .filter(|r| r.derived)
            .map(|r| b.strings.get(r.name.to_native()).to_string())
            .collect(),
        packages: in_derived(
            &derived,
            b.packages.iter().map(|p| p.repository.to_native()),
        ),
        files: in_derived(&derived, b.files.iter().map(|f| f.repository.to_native())),
        symbols: in_derived(&derived, b.symbols.iter().map(|s| s.repository.to_native())),
        unresolved: in_derived(
            &derived,
            b.unresolved.iter().map(|u| u.repository.to_native()),
        ),
        ..Default::default()
    };
    for src in 0..b.symbols.len() as u32 {
        let from = sym_derived(src);
        for e in b.forward.row(src) {
            match (from, sym_derived(e.other.to_native())) {
                (true, true) => c.edges_within += 1,
                (false, true) => c.edges_inbound += 1,
                _ => {}
            }
        }
    }
    Some(c)
}
