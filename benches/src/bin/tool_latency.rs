//! Tool latency: opens an index the way `kivgraph serve` does (`Store::open`), then calls every
//! registered query tool through `kivgraph::tools::call`, the function the MCP server and
//! `kivgraph query` call, and prints per-tool latency percentiles and the process's RSS.
//!
//! Measures:
//! - the open: `Store::open` (read `CURRENT` and the manifest, mmap the blob and the name index,
//!   check the blob's header and the block of its root), and RSS right after it;
//! - per tool, at least `--calls` calls (default 1000) with a realistic argument mix drawn from
//!   the generation with a seeded PRNG: symbols picked uniformly or in proportion to their
//!   in-degree (a random edge's target; traversals and reference queries mostly ask about
//!   popular symbols) or out-degree (for `trace_dependencies`), by stable key, qualified name or
//!   bare name; default depths and limits; compact views mostly, some full. p50, p99 and max of
//!   each tool, and of each argument variant, in microseconds, with the error codes returned
//!   (for example `AMBIGUOUS_SYMBOL` for a bare name that many packages declare, an answer an
//!   agent really gets);
//! - the per-request freshness check `Store::snapshot` (one small read of `CURRENT`), apart;
//! - per tool, the arguments of its slowest call, to say what to profile;
//! - with `--rounds R`, the per-tool phase R times over fresh arguments each round: the first
//!   round is a process that just opened the generation (its reads map pages and check blocks
//!   for the first time), later ones a process that has been answering;
//! - 10,000 mixed calls (`--mixed`) in proportions an agent plausibly uses, then RSS again:
//!   before them the process lets go of the mapped pages it read so far
//!   (`Generation::release_pages`), so the figure is what the mixed queries keep resident.
//!
//! Leaves out, and why:
//! - `index_project` (it runs a compile, not a query) and `get_source` if it is registered
//!   (synthetic generations have no source bytes to read; the output says so);
//! - JSON-RPC framing and stdio: the server adds a parse and a write per call, the same for
//!   every tool, and this bench is about the tools;
//! - a cold page cache: the generation was usually just written, so its pages are cached, and
//!   dropping caches needs root. First touches of the map still fault pages in, and they show in
//!   the max, not in p50/p99;
//! - concurrency: calls run one at a time on one thread, as the stdio server answers them.
//!
//! Preparing the query mix reads the symbol array, the adjacency offsets and some strings of the
//! map, so the RSS after preparation is printed too. Nothing here asserts a time.
//!
//! RSS is printed with its anonymous and file-backed parts: the mapped generation becomes
//! resident (as clean, shared page cache) as the calls read it, block by block.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin tool_latency -- INDEX_DIR [--calls N]
//! [--mixed N] [--seed S] [--only TOOL,TOOL...] [--rounds R] [--explain-tail] [--repeat TOOL
//! ARGS_JSON N]` (`--only` limits the per-tool phase and the mixed phase to the named tools, for
//! profiling one of them; `--explain-tail` calls each tool's slowest 1 % again right after its
//! phase, to tell answers slow in themselves from first reads, and so warms what later phases
//! read: compare its figures only with runs that pass it too; `--repeat` times one call `N`
//! times and stops, for a profiler).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use kivgraph::Store;
use kivgraph::tools::{self, QUERY_TOOLS};
use kivgraph_benches::{Rng, quantile};
use kivgraph_format::{Generation, IndexDir, SymbolKind};
use serde_json::{Value, json};

const USAGE: &str = "usage: tool_latency INDEX_DIR [--calls N (default 1000)] [--mixed N (default 10000)] [--seed S (default 1)] [--only TOOL,TOOL...] [--rounds R (default 1)] [--repeat TOOL ARGS_JSON N] [--explain-tail]";

/// Tools left out, with the reason printed.
const SKIPPED: &[(&str, &str)] = &[
    ("index_project", "runs a compile, not a query"),
    (
        "get_source",
        "synthetic generations have no source bytes to read",
    ),
];

/// Weights of the mixed phase, per 1000 calls.
const MIX: &[(&str, u32)] = &[
    ("find_symbol", 250),
    ("find_references", 250),
    ("get_symbol", 150),
    ("get_file_outline", 100),
    ("get_blast_radius", 100),
    ("trace_dependencies", 100),
    ("find_cross_repo_consumers", 50),
    ("find_by_intent", 50),
    ("list_repositories", 25),
    ("graph_status", 25),
];

fn mib(kib: Option<u64>) -> String {
    kib.map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

/// Current RSS with its anonymous and file-backed parts.
fn rss() -> String {
    match kivgraph_benches::rss_parts_kib() {
        Some((anon, file)) => format!(
            "{} (anonymous {}, file-backed {})",
            mib(kivgraph_benches::rss_kib()),
            mib(Some(anon)),
            mib(Some(file))
        ),
        None => mib(kivgraph_benches::rss_kib()),
    }
}

/// The in-degree skew of the generation, so that a synthetic graph can be compared with a real
/// one. Reads the reverse adjacency's offsets.
fn in_degree_line(g: &Generation) -> String {
    let offsets = &g.graph().reverse.offsets;
    let mut deg: Vec<u32> = offsets
        .all()
        .windows(2)
        .map(|w| w[1].to_native() - w[0].to_native())
        .collect();
    if deg.is_empty() {
        return "in-degree: no symbols".into();
    }
    deg.sort_unstable_by(|a, b| b.cmp(a));
    let n = deg.len();
    let total: u64 = deg.iter().map(|&d| u64::from(d)).sum();
    let top: u64 = deg[..n.div_ceil(100)].iter().map(|&d| u64::from(d)).sum();
    let zero = deg.iter().filter(|&&d| d == 0).count();
    format!(
        "in-degree: max {}, p99 {}, p90 {}, median {}; top 1% of symbols receive {:.1}% of edges; {:.1}% of symbols have none",
        deg[0],
        deg[n / 100],
        deg[n / 10],
        deg[n / 2],
        100.0 * top as f64 / total.max(1) as f64,
        100.0 * zero as f64 / n as f64
    )
}

/// Picks symbols and strings off the generation to build arguments.
struct Picker<'g> {
    g: &'g Generation,
}

impl Picker<'_> {
    fn str(&self, id: u32) -> &str {
        self.g.graph().strings.get(id)
    }

    fn count(&self) -> usize {
        self.g.graph().symbols.len()
    }

    /// A uniformly chosen symbol that is a declaration (not a file's module symbol).
    fn uniform(&self, rng: &mut Rng) -> u32 {
        let b = self.g.graph();
        for _ in 0..16 {
            let i = rng.below(b.symbols.len());
            if b.symbols[i].kind != SymbolKind::Module.code() {
                return i as u32;
            }
        }
        rng.below(b.symbols.len()) as u32
    }

    /// A symbol chosen in proportion to its in-degree: the target of a random edge.
    fn by_in_degree(&self, rng: &mut Rng) -> u32 {
        let edges = &self.g.graph().forward.edges;
        if edges.is_empty() {
            return self.uniform(rng);
        }
        edges[rng.below(edges.len())].other.to_native()
    }

    /// A symbol chosen in proportion to its out-degree: the source of a random edge.
    fn by_out_degree(&self, rng: &mut Rng) -> u32 {
        let edges = &self.g.graph().reverse.edges;
        if edges.is_empty() {
            return self.uniform(rng);
        }
        edges[rng.below(edges.len())].other.to_native()
    }

    fn key(&self, id: u32) -> String {
        self.str(self.g.graph().symbols[id as usize].key.to_native())
            .to_string()
    }

    fn name(&self, id: u32) -> String {
        self.str(self.g.graph().symbols[id as usize].name.to_native())
            .to_string()
    }

    /// `(qualified_name, repository, file path)` of a symbol.
    fn address(&self, id: u32) -> (String, String, String) {
        let b = self.g.graph();
        let s = &b.symbols[id as usize];
        let repo = &b.repositories[s.repository.to_native() as usize];
        let file = &b.files[s.file.to_native() as usize];
        (
            self.str(s.qualified_name.to_native()).to_string(),
            self.str(repo.name.to_native()).to_string(),
            self.str(file.path.to_native()).to_string(),
        )
    }

    /// A selector: by stable key mostly, else by qualified name, repository and path.
    fn selector(&self, rng: &mut Rng, id: u32) -> (&'static str, Value) {
        if rng.chance(0.8) {
            ("stable_key", json!({"stable_key": self.key(id)}))
        } else {
            let (qn, repo, path) = self.address(id);
            (
                "qualified_name",
                json!({"qualified_name": qn, "repository": repo, "path": path}),
            )
        }
    }

    /// The arguments of one call of `tool`, and the name of their variant.
    fn args(&self, tool: &str, rng: &mut Rng) -> Option<(String, Value)> {
        let (variant, args): (String, Value) = match tool {
            "find_symbol" => {
                let id = self.uniform(rng);
                let name = self.name(id);
                let roll = rng.f64();
                if roll < 0.55 {
                    ("exact".into(), json!({"name": name}))
                } else if roll < 0.65 {
                    let kind = SymbolKind::from_code(self.g.graph().symbols[id as usize].kind)
                        .map_or("func", |k| k.as_str());
                    let (_, repo, _) = self.address(id);
                    (
                        "exact+kind+repo".into(),
                        json!({"name": name, "kind": kind, "repo": repo}),
                    )
                } else if roll < 0.80 {
                    let (qn, _, _) = self.address(id);
                    (
                        "qualified_exact".into(),
                        json!({"name": qn, "mode": "qualified_exact"}),
                    )
                } else if roll < 0.95 {
                    let cut = name
                        .char_indices()
                        .nth(3 + rng.below(3))
                        .map_or(name.len(), |(i, _)| i);
                    (
                        "prefix".into(),
                        json!({"name": &name[..cut], "mode": "prefix"}),
                    )
                } else {
                    let chars: Vec<char> = name.chars().collect();
                    let len = chars.len().min(4);
                    let at = rng.below(chars.len() - len + 1);
                    let part: String = chars[at..at + len].iter().collect();
                    (
                        "substring".into(),
                        json!({"name": part, "mode": "substring"}),
                    )
                }
            }
            "get_symbol" => {
                let id = self.uniform(rng);
                let (v, sel) = self.selector(rng, id);
                (v.into(), sel)
            }
            "find_cross_repo_consumers" => {
                // Subjects weighted toward widely used symbols, as consumers are asked about.
                let id = if rng.chance(0.7) {
                    self.by_in_degree(rng)
                } else {
                    self.uniform(rng)
                };
                let (v, sel) = self.selector(rng, id);
                (v.into(), sel)
            }
            "find_by_intent" => {
                // A question made of two or three words of real names, as an agent would ask.
                let words: Vec<String> = (0..2 + rng.below(2))
                    .map(|_| self.name(self.uniform(rng)))
                    .collect();
                let question = format!("where is the code that handles {}", words.join(" and "));
                if rng.chance(0.3) {
                    (
                        "with keywords".into(),
                        json!({"intent": question, "keywords": [words[0].clone()]}),
                    )
                } else {
                    ("question".into(), json!({"intent": question}))
                }
            }
            "find_references" => {
                let id = if rng.chance(0.6) {
                    self.by_in_degree(rng)
                } else {
                    self.uniform(rng)
                };
                if rng.chance(0.1) {
                    // A bare name: answers directly when one declaration carries it, else
                    // AMBIGUOUS_SYMBOL with the list of declarations.
                    return Some(("bare name".into(), json!({"name": self.name(id)})));
                }
                let (_, mut a) = self.selector(rng, id);
                let direction = if rng.chance(0.2) {
                    a["direction"] = json!("outgoing");
                    "outgoing"
                } else {
                    "incoming"
                };
                let view = match rng.f64() {
                    x if x < 0.15 => "full",
                    x if x < 0.30 => "files",
                    _ => "compact",
                };
                if view != "compact" {
                    a["view"] = json!(view);
                }
                (format!("{direction}, {view}"), a)
            }
            "get_blast_radius" | "trace_dependencies" => {
                let id = if tool == "get_blast_radius" {
                    if rng.chance(0.8) {
                        self.by_in_degree(rng)
                    } else {
                        self.uniform(rng)
                    }
                } else if rng.chance(0.8) {
                    self.by_out_degree(rng)
                } else {
                    self.uniform(rng)
                };
                let (_, mut a) = self.selector(rng, id);
                let depth = if rng.chance(0.2) { 2 } else { 3 };
                if depth != 3 {
                    a["depth"] = json!(depth);
                }
                let view = if rng.chance(0.15) { "full" } else { "compact" };
                if view != "compact" {
                    a["view"] = json!(view);
                }
                (format!("depth {depth}, {view}"), a)
            }
            "get_file_outline" => {
                let (_, repo, path) = self.address(self.uniform(rng));
                if rng.chance(0.5) {
                    ("file".into(), json!({"repository": repo, "path": path}))
                } else {
                    let dir = path.rsplit_once('/').map_or(".", |(d, _)| d).to_string();
                    ("directory".into(), json!({"repository": repo, "path": dir}))
                }
            }
            "list_repositories" | "graph_status" => ("(no arguments)".into(), json!({})),
            _ => return None,
        };
        Some((variant, args))
    }
}

/// Latencies (µs), answer sizes and error codes of one tool or one variant.
#[derive(Default)]
struct Sample {
    micros: Vec<f64>,
    bytes: u64,
    errors: BTreeMap<&'static str, u64>,
    /// The longest `CODE: message` text an error returned: it reaches the agent too.
    longest_error: usize,
}

impl Sample {
    fn record(&mut self, us: f64, result: &Result<String, kivgraph::ToolError>) {
        self.micros.push(us);
        match result {
            Ok(text) => self.bytes += text.len() as u64,
            Err(e) => {
                *self.errors.entry(e.code).or_default() += 1;
                self.longest_error = self.longest_error.max(e.to_string().len());
            }
        }
    }

    fn line(&mut self, label: &str) -> String {
        self.micros.sort_by(|a, b| a.total_cmp(b));
        let n = self.micros.len();
        let ok = n as u64 - self.errors.values().sum::<u64>();
        let errors = if self.errors.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = self
                .errors
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            format!(
                "  errors: {} (longest error text {} bytes)",
                list.join(", "),
                self.longest_error
            )
        };
        format!(
            "{label:<44} {n:>6} {:>10.0} {:>10.0} {:>10.0} {:>10}{errors}",
            quantile(&self.micros, 0.5),
            quantile(&self.micros, 0.99),
            self.micros.last().copied().unwrap_or(0.0),
            self.bytes.checked_div(ok).unwrap_or(0),
        )
    }
}

/// `--repeat`: one call, `n` times, for profiling a slow answer found by the mix.
fn repeat_one(g: &Arc<Generation>, tool: &str, args: &Value, n: usize) -> anyhow::Result<()> {
    let mut times = Vec::with_capacity(n);
    let mut bytes = 0;
    for _ in 0..n.max(1) {
        let t = Instant::now();
        let result = tools::call(tool, args, Some(g.clone()));
        times.push(t.elapsed().as_secs_f64() * 1e6);
        bytes = match &result {
            Ok(text) => text.len(),
            Err(e) => e.to_string().len(),
        };
    }
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{tool} {args}: {} calls, p50 {:.0} us, p99 {:.0} us, max {:.0} us, {bytes} bytes",
        times.len(),
        quantile(&times, 0.5),
        quantile(&times, 0.99),
        times[times.len() - 1]
    );
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let mut dir = None;
    let (mut calls, mut mixed, mut seed) = (1000usize, 10_000usize, 1u64);
    let mut rounds = 1usize;
    let mut only: Option<Vec<String>> = None;
    let mut repeat: Option<(String, Value, usize)> = None;
    let mut explain = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--calls" => calls = value()?.parse()?,
            "--mixed" => mixed = value()?.parse()?,
            "--seed" => seed = value()?.parse()?,
            "--rounds" => rounds = value()?.parse::<usize>()?.max(1),
            "--only" => only = Some(value()?.split(',').map(str::to_string).collect()),
            "--explain-tail" => explain = true,
            "--repeat" => {
                let tool = value()?;
                let json: Value = serde_json::from_str(&value()?).context("--repeat ARGS_JSON")?;
                repeat = Some((tool, json, value()?.parse()?));
            }
            _ if dir.is_none() && !a.starts_with("--") => dir = Some(a),
            _ => bail!("unknown argument {a:?}\n{USAGE}"),
        }
    }
    let dir = dir.context(USAGE)?;

    let rss_before = kivgraph_benches::rss_kib();
    let t = Instant::now();
    let store = Store::open(IndexDir::new(&dir));
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    let g: Arc<Generation> = store
        .snapshot()
        .with_context(|| format!("no generation could be opened in {dir}"))?;
    let rss_open = rss();
    let b = g.graph();
    println!(
        "generation {:06}: {} bytes on disk; {} symbols, {} edges, {} files, {} packages, {} repositories, {} unresolved",
        g.id,
        g.size_on_disk(),
        b.symbols.len(),
        b.forward.edges.len(),
        b.files.len(),
        b.packages.len(),
        b.repositories.len(),
        b.unresolved.len()
    );
    println!("open (Store::open: manifest, mmap, validation): {open_ms:.1} ms");
    println!("RSS before open {}, after open {rss_open}", mib(rss_before));

    let mut snap = Vec::with_capacity(1000);
    for _ in 0..1000 {
        let t = Instant::now();
        let s = store.snapshot();
        snap.push(t.elapsed().as_secs_f64() * 1e6);
        drop(s);
    }
    snap.sort_by(|a, b| a.total_cmp(b));
    println!(
        "per-request freshness check (Store::snapshot, 1000 calls): p50 {:.1} us, p99 {:.1} us",
        quantile(&snap, 0.5),
        quantile(&snap, 0.99)
    );

    if let Some((tool, args, n)) = repeat {
        return repeat_one(&g, &tool, &args, n);
    }

    // The query plan: arguments for every call, built before any call is timed.
    let picker = Picker { g: &g };
    anyhow::ensure!(picker.count() > 0, "the generation has no symbols");
    let mut rng = Rng::new(seed);
    let mut plan: Vec<(&'static str, Vec<(String, Value)>)> = Vec::new();
    if !QUERY_TOOLS.iter().any(|d| d.name == "get_source") {
        println!(
            "get_source is not registered; once it is, this bench skips it: synthetic generations have no source bytes to read"
        );
    }
    for def in QUERY_TOOLS {
        if let Some((_, why)) = SKIPPED.iter().find(|(n, _)| *n == def.name) {
            println!("skipped {}: {why}", def.name);
            continue;
        }
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == def.name))
        {
            continue;
        }
        let list: Option<Vec<(String, Value)>> = (0..calls * rounds)
            .map(|_| picker.args(def.name, &mut rng))
            .collect();
        match list {
            Some(list) => plan.push((def.name, list)),
            None => println!(
                "skipped {}: this bench has no query mix for it yet",
                def.name
            ),
        }
    }
    let weights: Vec<(&'static str, u32)> = MIX
        .iter()
        .copied()
        .filter(|(n, _)| plan.iter().any(|(p, _)| p == n))
        .collect();
    let total_weight: u32 = weights.iter().map(|w| w.1).sum();
    let mut mixed_plan = Vec::with_capacity(mixed);
    for _ in 0..if total_weight == 0 { 0 } else { mixed } {
        let mut x = rng.below(total_weight as usize) as u32;
        let tool = weights
            .iter()
            .find(|(_, w)| {
                if x < *w {
                    true
                } else {
                    x -= w;
                    false
                }
            })
            .map_or(weights[0].0, |w| w.0);
        if let Some(a) = picker.args(tool, &mut rng) {
            mixed_plan.push((tool, a.1));
        }
    }
    println!("{}", in_degree_line(&g));
    println!("RSS after preparing the query mix: {}", rss());

    println!(
        "\n{:<44} {:>6} {:>10} {:>10} {:>10} {:>10}",
        "tool / argument variant", "calls", "p50 us", "p99 us", "max us", "avg bytes"
    );
    for round in 0..rounds {
        if rounds > 1 {
            println!(
                "round {} of {rounds}{}",
                round + 1,
                if round == 0 {
                    ""
                } else {
                    " (other arguments; what earlier rounds mapped stays mapped, as in a server that has been answering)"
                }
            );
        }
        for (tool, list) in &plan {
            let list = &list[round * calls..(round + 1) * calls];
            let mut all = Sample::default();
            let mut by_variant: BTreeMap<&str, Sample> = BTreeMap::new();
            let mut slowest: Option<(f64, &Value)> = None;
            let mut tail: Vec<(f64, &Value)> = Vec::new();
            for (variant, args) in list {
                let t = Instant::now();
                let result = tools::call(tool, args, Some(g.clone()));
                let us = t.elapsed().as_secs_f64() * 1e6;
                if explain {
                    tail.push((us, args));
                }
                all.record(us, &result);
                by_variant.entry(variant).or_default().record(us, &result);
                if slowest.is_none_or(|(worst, _)| us > worst) {
                    slowest = Some((us, args));
                }
            }
            println!("{}", all.line(tool));
            if by_variant.len() > 1 {
                for (v, s) in &mut by_variant {
                    println!("{}", s.line(&format!("  {v}")));
                }
            }
            if let Some((us, args)) = slowest {
                println!("  slowest: {us:.0} us for {args}");
            }
            if explain {
                // The slowest 1 %, each called again: slow in itself, or slow the first time
                // (pages mapped and blocks checked for the first time)?
                tail.sort_by(|a, b| b.0.total_cmp(&a.0));
                for (us, args) in tail.iter().take(list.len().div_ceil(100)) {
                    let t = Instant::now();
                    let again = tools::call(tool, args, Some(g.clone()));
                    let us2 = t.elapsed().as_secs_f64() * 1e6;
                    let bytes = match &again {
                        Ok(text) => text.len(),
                        Err(e) => e.to_string().len(),
                    };
                    println!("  tail: {us:.0} us, again {us2:.0} us, {bytes} bytes: {args}");
                }
            }
        }
    }

    if mixed_plan.is_empty() {
        return Ok(());
    }
    // What the mixed queries alone keep resident: the pages the preparation and the per-tool
    // phase read are let go of first (they stay in the page cache; blocks stay checked).
    g.release_pages();
    println!(
        "\nRSS after letting go of the mapped pages read so far: {}",
        rss()
    );
    let mut all = Sample::default();
    let t = Instant::now();
    for (tool, args) in &mixed_plan {
        let t = Instant::now();
        let result = tools::call(tool, args, Some(g.clone()));
        all.record(t.elapsed().as_secs_f64() * 1e6, &result);
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "\n{}",
        all.line(&format!(
            "mixed ({:.1} s, {:.0} calls/s)",
            secs,
            mixed_plan.len() as f64 / secs
        ))
    );
    println!(
        "RSS after {} mixed queries: {}; peak RSS {}",
        mixed_plan.len(),
        rss(),
        mib(kivgraph_benches::peak_rss_kib())
    );
    Ok(())
}
