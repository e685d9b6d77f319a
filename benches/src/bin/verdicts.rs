//! Completeness verdicts of a published generation: asks `find_references` (incoming, compact,
//! the first page) about every symbol, or a seeded sample, through `kivgraph::tools::call`, and
//! prints how many answers are `COMPLETE`, how many are `LOWER_BOUND` and why (blind spots, invisible
//! scopes, both), and what the completeness block costs in bytes, per language.
//!
//! Run it on a generation, then on a copy without `scope_reach.bin` (SPEC 7.10): without that
//! file every invisible scope of the subject's repository bounds every answer, as before the
//! file existed, so the two runs give the verdicts before and after.
//!
//! With `--oracle ORACLE.jsonl` (an accuracy oracle of the same sources, `benches/accuracy/`),
//! it then asks `find_references` (full view, every page) about every symbol the oracle sees
//! used and prints how many `COMPLETE` answers are true: every use the oracle knows lies in the
//! line range of one of the answer's rows. A false `COMPLETE` is listed with the use it misses.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin verdicts -- INDEX_DIR [--sample N]
//! [--seed S] [--oracle ORACLE.jsonl [--examples]]` (derived repositories are left out, as answers leave them
//! out).

use std::collections::BTreeMap;
use std::sync::Arc;

use kivgraph::tools;
use kivgraph_benches::Rng;
use kivgraph_benches::accuracy::{Oracle, score};
use kivgraph_benches::verdict_check;
use kivgraph_format::{Generation, IndexDir, Language};
use serde_json::{Value, json};

#[derive(Default)]
struct Tally {
    asked: u64,
    complete: u64,
    blind_only: u64,
    scopes_only: u64,
    both: u64,
    answer_bytes: u64,
    block_bytes: u64,
    /// Bytes of the blocks' `detail` strings, and of those that repeat an earlier entry's.
    detail_bytes: u64,
    repeated_detail_bytes: u64,
    /// The largest block: its bytes, its fallback paths' bytes, and its subject.
    largest: (u64, u64, String),
}

fn main() -> anyhow::Result<()> {
    let cli = kivgraph_benches::Cli::new(
        "usage: verdicts INDEX_DIR [--sample N] [--seed S] [--oracle ORACLE.jsonl [--examples]]",
    );
    let dir = cli.positional()?;
    let sample: usize = cli.value("--sample", 0)?;
    let seed: u64 = cli.value("--seed", 7)?;
    let oracle: String = cli.value("--oracle", String::new())?;

    let generation = Arc::new(
        Generation::open_current(&IndexDir::new(dir))?
            .ok_or_else(|| anyhow::anyhow!("no generation in {dir}"))?,
    );
    let g = generation.graph();
    println!(
        "generation {}: {} symbols; scope_reach.bin {}",
        generation.id,
        g.symbols.len(),
        match generation.scope_reach() {
            Some(r) => format!("present ({} scopes described)", r.len()),
            None => "absent (every scope of the subject's repository counts)".into(),
        }
    );
    let mut ids: Vec<u32> = (0..g.symbols.len() as u32)
        .filter(|&i| {
            let s = &g.symbols[i as usize];
            !g.repositories[s.repository.to_native() as usize].derived
        })
        .collect();
    if sample > 0 && sample < ids.len() {
        let mut rng = Rng::new(seed);
        for i in 0..sample {
            let j = i + rng.below(ids.len() - i);
            ids.swap(i, j);
        }
        ids.truncate(sample);
        ids.sort_unstable();
    }

    let mut by_language: BTreeMap<String, Tally> = BTreeMap::new();
    for &id in &ids {
        let key = g.strings.get(g.symbols[id as usize].key.to_native());
        let language = Language::from_code(g.symbols[id as usize].language)
            .map_or("?", |l| l.as_str())
            .to_string();
        let text = match tools::call(
            "find_references",
            &json!({"stable_key": key}),
            Some(generation.clone()),
        ) {
            Ok(t) => t,
            Err(e) => anyhow::bail!("find_references on {key}: {e}"),
        };
        let v: Value = serde_json::from_str(&text)?;
        let c = &v["completeness"];
        let t = by_language.entry(language).or_default();
        t.asked += 1;
        t.answer_bytes += text.len() as u64;
        let block = c.to_string().len() as u64;
        t.block_bytes += block;
        if block > t.largest.0 {
            let paths = c["fallback"]["paths"].to_string().len() as u64;
            t.largest = (block, paths, key.to_string());
        }
        for list in ["blind_spots", "invisible_scopes"] {
            let mut seen = std::collections::HashSet::new();
            for e in c[list].as_array().into_iter().flatten() {
                if let Some(d) = e["detail"].as_str() {
                    t.detail_bytes += d.len() as u64;
                    if !seen.insert(d) {
                        t.repeated_detail_bytes += d.len() as u64;
                    }
                }
            }
        }
        let blind = c.get("blind_spots").is_some();
        let scopes = c.get("invisible_scopes").is_some();
        match (c["verdict"].as_str(), blind, scopes) {
            (Some("COMPLETE"), _, _) => t.complete += 1,
            (_, true, true) => t.both += 1,
            (_, true, false) => t.blind_only += 1,
            _ => t.scopes_only += 1,
        }
    }
    println!(
        "\n{:<12} {:>8} {:>10} {:>12} {:>12} {:>8} {:>12} {:>12} {:>12} {:>12}",
        "language",
        "asked",
        "COMPLETE",
        "blind only",
        "scopes only",
        "both",
        "avg bytes",
        "avg block",
        "avg details",
        "repeated"
    );
    for (l, t) in &by_language {
        let pct = |n: u64| 100.0 * n as f64 / t.asked.max(1) as f64;
        println!(
            "{:<12} {:>8} {:>9.1}% {:>11.1}% {:>11.1}% {:>7.1}% {:>12.0} {:>12.0} {:>12.0} {:>12.0}",
            l,
            t.asked,
            pct(t.complete),
            pct(t.blind_only),
            pct(t.scopes_only),
            pct(t.both),
            t.answer_bytes as f64 / t.asked.max(1) as f64,
            t.block_bytes as f64 / t.asked.max(1) as f64,
            t.detail_bytes as f64 / t.asked.max(1) as f64,
            t.repeated_detail_bytes as f64 / t.asked.max(1) as f64,
        );
    }
    for (l, t) in &by_language {
        println!(
            "{l}: largest block {} bytes ({} of them fallback paths), find_references {{\"stable_key\": \"{}\"}}",
            t.largest.0, t.largest.1, t.largest.2
        );
    }
    if !oracle.is_empty() {
        against_oracle(&generation, &oracle, cli.flag("--examples"))?;
    }
    Ok(())
}

/// Checks every `COMPLETE` answer about a symbol the oracle sees used.
fn against_oracle(
    generation: &Arc<Generation>,
    path: &str,
    examples_shown: bool,
) -> anyhow::Result<()> {
    let o = Oracle::read(std::path::Path::new(path))?;
    let report = score(&o, generation);
    let a = verdict_check::audit(generation, &report)?;
    let pct = |x: usize, of: usize| 100.0 * x as f64 / of.max(1) as f64;
    let true_complete = a.complete - a.false_complete.len();
    println!(
        "\nagainst the oracle ({}, {} uses): {} symbols used; COMPLETE {} ({:.1} %), \
         of which true {} ({:.2} %), false {}; LOWER_BOUND answers missing a use: {}",
        report.checker,
        report.uses_by_target.len(),
        a.checked,
        a.complete,
        pct(a.complete, a.checked),
        true_complete,
        pct(true_complete, a.complete),
        a.false_complete.len(),
        a.lower_bound_missing
    );
    let mut forms: Vec<_> = a.missed_by_form.iter().collect();
    forms.sort_by(|x, y| y.1.0.cmp(&x.1.0).then(x.0.cmp(y.0)));
    println!("uses the false COMPLETE answers miss, by the oracle's use form:");
    for (form, (n, examples)) in &forms {
        println!("  {n:>6}  {form}");
        if examples_shown {
            for e in examples {
                println!("          e.g. {e}");
            }
        }
    }
    for (key, missed, of, first) in a.false_complete.iter().take(20) {
        println!("  false COMPLETE: {key}: misses {missed} of {of} uses, e.g. {first}");
    }
    Ok(())
}
