//! Generation open time and lookup latency: opens the published generation of an index
//! repeatedly (mmap, the blob's header and the block of its root, the name index's header;
//! nothing is deserialized, built or read whole), with the resident memory after each, then runs
//! `find_symbol` in exact mode for every distinct name in the graph.
//!
//! Leaves out: the first open's page-cache misses (the first sample is reported separately).
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin open_time -- INDEX_DIR`

use std::time::Instant;

use kivgraph::query::{self, FindSymbol, Mode};
use kivgraph_format::{Generation, IndexDir};

fn main() -> anyhow::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: open_time INDEX_DIR"))?;
    let index = IndexDir::new(&dir);
    let mut samples = Vec::new();
    let mut first = None;
    let rss_before = kivgraph_benches::rss_kib().unwrap_or(0);
    let mut grew = 0;
    for i in 0..21 {
        let t = Instant::now();
        let generation = Generation::open_current(&index)?
            .ok_or_else(|| anyhow::anyhow!("no generation in {dir}"))?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        grew = grew.max(
            kivgraph_benches::rss_kib()
                .unwrap_or(0)
                .saturating_sub(rss_before),
        );
        if i == 0 {
            first = Some((ms, generation.size_on_disk()));
        } else {
            samples.push(ms);
        }
    }
    let (first_ms, bytes) = first.unwrap_or_default();
    let median = kivgraph_benches::median(&mut samples);
    println!("generation: {bytes} bytes on disk");
    println!(
        "open: first {first_ms:.2} ms, median of {} warm opens {median:.2} ms, max {:.2} ms",
        samples.len(),
        samples.last().copied().unwrap_or(0.0)
    );
    println!(
        "RSS before the opens {:.1} MiB, at most {:.2} MiB more with a generation open",
        rss_before as f64 / 1024.0,
        grew as f64 / 1024.0
    );

    let generation =
        Generation::open_current(&index)?.ok_or_else(|| anyhow::anyhow!("no generation"))?;
    let g = generation.graph();
    let mut names: Vec<String> = g
        .symbols
        .iter()
        .map(|s| g.strings.get(s.name.to_native()).to_string())
        .collect();
    names.sort();
    names.dedup();
    let mut lat = Vec::with_capacity(names.len());
    let mut rows = 0;
    for name in &names {
        let q = FindSymbol {
            name: name.clone(),
            mode: Mode::Exact,
            kind: None,
            repo: None,
            path_prefix: None,
            include_derived: false,
        };
        let t = Instant::now();
        rows += query::find_symbol(&generation, &q)
            .map(|v| v.len())
            .unwrap_or(0);
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let p50 = kivgraph_benches::median(&mut lat);
    let p99 = lat
        .get(lat.len().saturating_sub(1).min(lat.len() * 99 / 100))
        .copied()
        .unwrap_or(0.0);
    println!(
        "find_symbol exact over {} names ({rows} rows): p50 {p50:.1} us, p99 {p99:.1} us",
        names.len()
    );
    if let Some(kib) = kivgraph_benches::rss_kib() {
        println!("RSS after queries: {:.1} MiB", kib as f64 / 1024.0);
    }
    Ok(())
}
