//! Accuracy of a front end: compares a generation with an oracle's JSON lines (the go/types
//! oracle `benches/accuracy/oracle`, the TypeScript checker oracle
//! `benches/accuracy/ts/oracle.mjs`, the pyright oracle `benches/accuracy/py/oracle.py` or the
//! rust-analyzer oracle `benches/accuracy/rs/oracle.py`, told apart by the latter three's header
//! record) at use-site, line
//! and referrer level, and prints precision and recall overall, per target kind, per edge kind,
//! per (confidence, provenance) and per use form, with the worst miss and false-positive
//! patterns. See `benches/accuracy/README.md`.
//!
//! Usage:
//!
//! ```sh
//! accuracy ORACLE.jsonl INDEX_OR_GENERATION_DIR [--json]
//!          [--min-exact-precision PCT] [--min-recall PCT] [--min-exact-recall PCT]
//! ```
//!
//! Thresholds are percentages of the use-site figures. Exit code 0, or 1 when a threshold is
//! missed (each missed threshold is printed with the figure), 2 on a usage or input error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kivgraph_benches::accuracy::{self, Oracle, Thresholds};
use kivgraph_format::{Generation, IndexDir};

const USAGE: &str = "usage: accuracy ORACLE.jsonl INDEX_OR_GENERATION_DIR [--json] \
[--min-exact-precision PCT] [--min-recall PCT] [--min-exact-recall PCT]";

struct Args {
    oracle: PathBuf,
    index: PathBuf,
    json: bool,
    thresholds: Thresholds,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut positional = Vec::new();
    let mut json = false;
    let mut t = Thresholds::default();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> anyhow::Result<f64> {
            let v = it
                .next()
                .ok_or_else(|| anyhow::anyhow!("{name} needs a percentage"))?;
            let x: f64 = v
                .parse()
                .map_err(|_| anyhow::anyhow!("{name}: not a number: {v}"))?;
            anyhow::ensure!((0.0..=100.0).contains(&x), "{name}: {x} is not in 0..=100");
            Ok(x)
        };
        match a.as_str() {
            "--json" => json = true,
            "--min-exact-precision" => t.min_exact_precision = Some(value(&a)?),
            "--min-recall" => t.min_recall = Some(value(&a)?),
            "--min-exact-recall" => t.min_exact_recall = Some(value(&a)?),
            "-h" | "--help" => anyhow::bail!("{USAGE}"),
            s if s.starts_with("--") => anyhow::bail!("unknown option {s}\n{USAGE}"),
            _ => positional.push(PathBuf::from(a)),
        }
    }
    anyhow::ensure!(positional.len() == 2, "{USAGE}");
    let index = positional.pop().unwrap_or_default();
    let oracle = positional.pop().unwrap_or_default();
    Ok(Args {
        oracle,
        index,
        json,
        thresholds: t,
    })
}

/// An index directory (follow `CURRENT`) or a generation directory.
fn open(dir: &Path) -> anyhow::Result<Generation> {
    if dir.join("manifest.json").is_file() {
        return Ok(Generation::open_dir(dir)?);
    }
    Generation::open_current(&IndexDir::new(dir))?
        .ok_or_else(|| anyhow::anyhow!("no published generation in {}", dir.display()))
}

fn run() -> anyhow::Result<bool> {
    let args = parse_args()?;
    let oracle = Oracle::read(&args.oracle)?;
    let generation = open(&args.index)?;
    let report = accuracy::score(&oracle, &generation);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.render());
    }
    let failures = args.thresholds.check(&report);
    for f in &failures {
        eprintln!("accuracy: {f}");
    }
    Ok(failures.is_empty())
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("accuracy: {e}");
            ExitCode::from(2)
        }
    }
}
