//! Resolution shares of a published generation, per language: of every reference the compiler
//! saw (reference edges plus unresolved records), how many are exact edges, candidate edges and
//! unresolved records, with the breakdown by (confidence, provenance) and by unresolved reason.
//! With `--sample N`, it also prints `N` exact reference edges of one language drawn at random
//! (a fixed seed, so the same generation gives the same sample), each with the line of code that
//! makes the reference and the declaration it binds to, for checking by hand.
//!
//! Structural edges (`METHOD_OF`, `IMPLEMENTS`/`EXTENDS`/`OVERRIDES` read off declarations,
//! `PART_OF`) are not references a reader makes and are counted apart.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin shares -- INDEX_DIR
//! [--language rust] [--sample N] [--seed S] [--include-derived]`

use std::collections::BTreeMap;
use std::path::Path;

use kivgraph_format::{Confidence, EdgeKind, Generation, IndexDir, Language, NONE, Provenance};

#[derive(Default)]
struct Counts {
    exact: u64,
    candidate: u64,
    unresolved: u64,
    structural: u64,
    by_rule: BTreeMap<(String, String), u64>,
    by_reason: BTreeMap<String, u64>,
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// SplitMix64: a small deterministic generator, enough for drawing a sample.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: shares INDEX_DIR [--language L] [--sample N] [--seed S] [--include-derived]";
    let dir = args
        .first()
        .filter(|a| !a.starts_with("--"))
        .ok_or_else(|| anyhow::anyhow!(usage))?;
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let only = match opt("--language") {
        Some(l) => Some(Language::parse(l).ok_or_else(|| anyhow::anyhow!("unknown language {l}"))?),
        None => None,
    };
    let sample: usize = opt("--sample").map_or(Ok(0), |s| s.parse())?;
    let seed: u64 = opt("--seed").map_or(Ok(7), |s| s.parse())?;
    let include_derived = args.iter().any(|a| a == "--include-derived");

    let generation = Generation::open_current(&IndexDir::new(dir))?
        .ok_or_else(|| anyhow::anyhow!("no generation in {dir}"))?;
    let g = generation.graph();
    let checkouts = kivgraph_format::checkouts::Checkouts::read(&IndexDir::new(dir));
    let s = |id: u32| g.strings.get(id);
    let derived = |repo: u32| g.repositories[repo as usize].derived;

    let mut counts: BTreeMap<u8, Counts> = BTreeMap::new();
    let mut exact_edges: Vec<(u32, usize)> = Vec::new();
    for src in 0..g.symbols.len() as u32 {
        let sym = &g.symbols[src as usize];
        if !include_derived && derived(sym.repository.to_native()) {
            continue;
        }
        if only.is_some_and(|l| l.code() != sym.language) {
            continue;
        }
        for (i, e) in g.forward.row(src).iter().enumerate() {
            let kind = EdgeKind::from_code(e.kind);
            let conf = Confidence::from_code(e.confidence);
            let c = counts.entry(sym.language).or_default();
            let structural = conf == Some(Confidence::StructuralCertain)
                || matches!(kind, Some(EdgeKind::MethodOf | EdgeKind::PartOf))
                || !kind.is_some_and(|k| k.is_reference());
            if structural {
                c.structural += 1;
                continue;
            }
            let rule = (
                conf.map_or("?", |c| c.as_str()).to_string(),
                Provenance::from_code(e.provenance.to_native())
                    .map_or("?", |p| p.as_str())
                    .to_string(),
            );
            *c.by_rule.entry(rule).or_default() += 1;
            if conf.is_some_and(|c| c.is_exact()) {
                c.exact += 1;
                exact_edges.push((src, i));
            } else {
                c.candidate += 1;
            }
        }
    }
    for u in g.unresolved.iter() {
        if !include_derived && derived(u.repository.to_native()) {
            continue;
        }
        if only.is_some_and(|l| l.code() != u.language) {
            continue;
        }
        let c = counts.entry(u.language).or_default();
        c.unresolved += 1;
        *c.by_reason
            .entry(s(u.reason.to_native()).to_string())
            .or_default() += 1;
    }

    for (lang, c) in &counts {
        let name = Language::from_code(*lang).map_or("?", |l| l.as_str());
        let total = c.exact + c.candidate + c.unresolved;
        println!("== {name}: {total} references");
        println!(
            "exact {} ({:.2} %), candidate {} ({:.2} %), unresolved {} ({:.2} %); structural edges {}",
            c.exact,
            pct(c.exact, total),
            c.candidate,
            pct(c.candidate, total),
            c.unresolved,
            pct(c.unresolved, total),
            c.structural
        );
        for ((conf, prov), n) in &c.by_rule {
            println!("  edge {conf:<26} {prov:<24} {n}");
        }
        for (reason, n) in &c.by_reason {
            println!("  unresolved {reason:<30} {n}");
        }
    }

    if sample > 0 {
        let mut rng = Rng(seed);
        let mut picked = Vec::new();
        let mut pool = exact_edges;
        while picked.len() < sample && !pool.is_empty() {
            let i = (rng.next() % pool.len() as u64) as usize;
            picked.push(pool.swap_remove(i));
        }
        println!("== {} exact edges drawn with seed {seed}", picked.len());
        for (n, (src, i)) in picked.iter().enumerate() {
            let e = &g.forward.row(*src)[*i];
            let t = &g.symbols[e.other.to_native() as usize];
            let file = e.file.to_native();
            let (repo, path, code) = if file == NONE {
                (String::new(), String::new(), String::new())
            } else {
                let f = &g.files[file as usize];
                let repo = &g.repositories[f.repository.to_native() as usize];
                let root = checkouts
                    .repositories
                    .get(s(repo.name.to_native()))
                    .cloned()
                    .unwrap_or_else(|| s(repo.root.to_native()).to_string());
                let path = s(f.path.to_native()).to_string();
                let code = std::fs::read_to_string(Path::new(&root).join(&path))
                    .ok()
                    .and_then(|t| {
                        t.lines()
                            .nth(e.line.to_native().saturating_sub(1) as usize)
                            .map(|l| l.trim().to_string())
                    })
                    .unwrap_or_default();
                (s(repo.name.to_native()).to_string(), path, code)
            };
            let tf = &g.files[t.file.to_native() as usize];
            println!(
                "{:>3}. {repo}/{path}:{}:{} {} {} {}\n     code:   {code}\n     target: {}/{}:{} {} ({}) in {}",
                n + 1,
                e.line.to_native(),
                e.column.to_native(),
                EdgeKind::from_code(e.kind).map_or("?", |k| k.as_str()),
                Confidence::from_code(e.confidence).map_or("?", |c| c.as_str()),
                Provenance::from_code(e.provenance.to_native()).map_or("?", |p| p.as_str()),
                s(g.repositories[t.repository.to_native() as usize]
                    .name
                    .to_native()),
                s(tf.path.to_native()),
                t.start_line.to_native(),
                s(t.qualified_name.to_native()),
                kivgraph_format::SymbolKind::from_code(t.kind).map_or("?", |k| k.as_str()),
                s(g.packages[t.package.to_native() as usize].name.to_native()),
            );
        }
    }
    Ok(())
}
