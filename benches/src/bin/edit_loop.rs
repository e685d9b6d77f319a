//! The edit loop: what a compile costs when nothing changed and after one file is edited.
//!
//! Copies the given repositories to a temporary directory (the originals are never touched),
//! then, with `kivgraph-compile` run as a child process each time (the way `kivgraph index` and
//! CI run it, reading the extraction cache on disk):
//! 1. a cold compile, with an empty cache;
//! 2. a compile with nothing changed (answered by the published generation);
//! 3. `--rounds` times: a line appended to the file `--edit NAME:PATH` names, then a compile,
//!    which publishes a new generation; the median and the slowest are reported with phases;
//!
//! and in this process, the way `--watch` runs (extractions kept in memory as well):
//! 4. the same edits, each followed by `compile_changed`.
//!
//! Every published generation after an edit is compared with a compile from nothing of the
//! same sources (tables and blobs byte for byte); a difference fails the run.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin edit_loop -- --edit NAME:PATH
//! [--rounds N] [--derived rust:RELEASE=PATH] [NAME=]PATH...`

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use kivgraph_compile::{CacheDir, CacheOptions, CompileOptions, RepoSpec, RustSysroot, Summary};

struct Args {
    edit: (String, String),
    rounds: usize,
    derived: Vec<String>,
    repos: Vec<String>,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut edit = None;
    let mut rounds = 3;
    let mut derived = Vec::new();
    let mut repos = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--edit" => {
                let v = it.next().context("--edit NAME:PATH")?;
                let (n, p) = v.split_once(':').context("--edit NAME:PATH")?;
                edit = Some((n.to_string(), p.to_string()));
            }
            "--rounds" => rounds = it.next().context("--rounds N")?.parse()?,
            "--derived" => derived.push(it.next().context("--derived rust:RELEASE=PATH")?),
            _ => repos.push(a),
        }
    }
    ensure!(!repos.is_empty(), "no repository given");
    Ok(Args {
        edit: edit.context("--edit NAME:PATH is required")?,
        rounds,
        derived,
        repos,
    })
}

/// Runs `kivgraph-compile --json` as a child; returns its summary and wall time.
fn run_child(
    out: &Path,
    cache: &Path,
    repos: &[String],
    derived: &[String],
    full: bool,
) -> anyhow::Result<(Summary, f64)> {
    let mut cmd = Command::new(kivgraph_benches::compiler_binary());
    cmd.arg("--json")
        .arg("--out")
        .arg(out)
        .arg("--cache-dir")
        .arg(cache);
    if full {
        cmd.arg("--full");
    }
    for d in derived {
        cmd.arg("--derived").arg(d);
    }
    cmd.arg("--").args(repos);
    let t = Instant::now();
    let output = cmd.output()?;
    let secs = t.elapsed().as_secs_f64();
    if !output.status.success() {
        bail!(
            "kivgraph-compile failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok((serde_json::from_slice(&output.stdout)?, secs))
}

fn tables(dir: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    kivgraph_benches::generation_files(Path::new(dir))
}

fn append_line(path: &Path, round: usize) -> anyhow::Result<()> {
    let comment = match path.extension().and_then(|e| e.to_str()) {
        Some("py") => "#",
        _ => "//",
    };
    let mut text = std::fs::read_to_string(path)?;
    text.push_str(&format!("\n{comment} edit {round}\n"));
    std::fs::write(path, text)?;
    Ok(())
}

fn phases(s: &Summary) -> String {
    format!(
        "discover {} ms, parse+resolve {} ms, write {} ms",
        s.elapsed_ms.discover, s.elapsed_ms.resolve, s.elapsed_ms.write
    )
}

/// The compiler binary's allocator, so that in-process compiles cost what `kivgraph-compile`'s do.
#[global_allocator]
static ALLOCATOR: kivgraph_compile::alloc::Allocator = kivgraph_compile::alloc::Allocator;

fn main() -> anyhow::Result<()> {
    // SAFETY: first thing in main; no tree-sitter object exists yet.
    unsafe { kivgraph_compile::alloc::init() };
    let args = parse_args()?;
    let work = tempfile::tempdir()?;
    let mut repos = Vec::new();
    let mut edited = None;
    for spec in &args.repos {
        let r = RepoSpec::parse(spec)?;
        let to = work.path().join("src").join(&r.name);
        kivgraph_benches::copy_tree(&r.root, &to)?;
        if r.name == args.edit.0 {
            edited = Some(to.join(&args.edit.1));
        }
        repos.push(format!("{}={}", r.name, to.display()));
    }
    let edited = edited.context("--edit names no given repository")?;
    ensure!(edited.is_file(), "{} is not a file", edited.display());
    let out = work.path().join("index");
    let cache = work.path().join("cache");

    let (cold, cold_s) = run_child(&out, &cache, &repos, &args.derived, false)?;
    println!(
        "corpus: {} repositories, {} source files, {} lines",
        cold.repositories.len(),
        cold.source_files,
        cold.source_lines
    );
    println!(
        "cold compile (empty cache), child process: {cold_s:.3} s ({})",
        phases(&cold)
    );
    let (same, same_s) = run_child(&out, &cache, &repos, &args.derived, false)?;
    ensure!(same.up_to_date, "a compile with nothing changed published");
    println!(
        "again, nothing changed: {same_s:.3} s ({:.1} % of cold)",
        100.0 * same_s / cold_s
    );

    let mut child = Vec::new();
    for round in 0..args.rounds {
        append_line(&edited, round)?;
        let (s, secs) = run_child(&out, &cache, &repos, &args.derived, false)?;
        ensure!(!s.up_to_date, "an edit was not seen");
        child.push((secs, s));
    }
    let check_out = work.path().join("check");
    let check_cache = work.path().join("check-cache");
    let (fresh, _) = run_child(&check_out, &check_cache, &repos, &args.derived, true)?;
    ensure!(
        tables(&child.last().unwrap().1.generation_dir)? == tables(&fresh.generation_dir)?,
        "the generation published after an edit differs from a compile from nothing"
    );
    child.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (med, med_s) = &child[child.len() / 2];
    println!(
        "one file edited -> published, child process, {} rounds: median {med:.3} s ({}), slowest {:.3} s",
        args.rounds,
        phases(med_s),
        child.last().unwrap().0
    );

    // In process, the way --watch runs.
    let specs: Vec<RepoSpec> = repos
        .iter()
        .map(|r| RepoSpec::parse(r))
        .chain(args.derived.iter().map(|d| RepoSpec::parse_derived(d)))
        .collect::<Result<_, _>>()?;
    let opts = CompileOptions {
        out: out.clone(),
        repos: specs,
        fault: None,
        progress: false,
        rust_sysroot: if args.derived.is_empty() {
            RustSysroot::Auto
        } else {
            RustSysroot::Off
        },
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: CacheOptions {
            dir: CacheDir::At(cache.clone()),
            ..CacheOptions::default()
        },
    };
    kivgraph_compile::cache::enable();
    kivgraph_compile::compile_changed(&opts)?;
    let mut inproc = Vec::new();
    for round in 0..args.rounds {
        append_line(&edited, args.rounds + round)?;
        let t = Instant::now();
        let s = kivgraph_compile::compile_changed(&opts)?;
        inproc.push((t.elapsed().as_secs_f64(), s));
    }
    inproc.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (med, med_s) = &inproc[inproc.len() / 2];
    println!(
        "one file edited -> published, in process (as --watch), {} rounds: median {med:.3} s ({}), slowest {:.3} s",
        args.rounds,
        phases(med_s),
        inproc.last().unwrap().0
    );
    if let Some(kib) = kivgraph_benches::peak_rss_kib() {
        println!(
            "  peak RSS of the in-process compiles: {:.1} MiB",
            kib as f64 / 1024.0
        );
    }
    Ok(())
}
