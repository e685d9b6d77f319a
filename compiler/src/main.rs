//! `kivgraph-compile`: compile repositories into a generation, or verify one.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use kivgraph_compile::{CompileOptions, RepoSpec};
use kivgraph_format::{FaultPoint, IndexDir, Language};

#[global_allocator]
static ALLOCATOR: kivgraph_compile::alloc::Allocator = kivgraph_compile::alloc::Allocator;

/// Compiles Go, TypeScript/JavaScript, Python, Rust and Dart repositories into an immutable,
/// versioned code graph.
#[derive(Parser)]
#[command(
    name = "kivgraph-compile",
    version,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Index directory that receives the generation.
    #[arg(long, default_value = ".kivgraph")]
    out: PathBuf,
    /// Print a machine-readable summary on stdout.
    #[arg(long)]
    json: bool,
    /// Compile from nothing and publish even when nothing changed since the published
    /// generation was compiled (by default such a compile answers with that generation).
    #[arg(long)]
    full: bool,
    /// Compile, then follow the repositories' directories and compile again after each burst
    /// of changes (a summary line, or with --json a JSON line, per compile) until interrupted.
    #[arg(long, conflicts_with = "full")]
    watch: bool,
    /// A repository derived from a toolchain, as `rust:<release>=PATH` (repeatable). Its rows
    /// are withheld from query answers unless asked for.
    #[arg(long = "derived", value_name = "rust:RELEASE=PATH")]
    derived: Vec<String>,
    /// Where the Rust standard library comes from: `auto` indexes the toolchain's rust-src as
    /// the derived repository `rust:<release>` when it is installed and no --derived
    /// repository is given; `off` never looks for it.
    #[arg(long = "rust-sysroot", value_enum, default_value_t = SysrootArg::Auto)]
    rust_sysroot: SysrootArg,
    /// How many generations the index keeps: the new one and the ones published just before
    /// it; older ones are removed unless a server still holds them.
    #[arg(long, value_name = "N", default_value_t = kivgraph_format::layout::DEFAULT_KEEP as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    keep: u64,
    /// Compile only these languages of the repository NAME, as `NAME=LANG[,LANG…]` with the
    /// language names of SPEC section 3.1 (`go`, `typescript`, `javascript`, `rust`, `python`,
    /// `dart`); repeatable, once per repository. A repository without it is compiled in every
    /// language found.
    #[arg(long = "languages", value_name = "NAME=LANG[,LANG]")]
    languages: Vec<String>,
    /// Where each file's extraction is kept between compiles, so that an unchanged file is not
    /// parsed again (default: `cache/` in the index directory). Several indexes, or the runs of
    /// a CI job, may share one directory.
    #[arg(long = "cache-dir", value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,
    /// About how many MiB the extraction cache may hold; the entries used least recently are
    /// removed first.
    #[arg(long = "cache-limit", value_name = "MIB", default_value_t = kivgraph_compile::disk_cache::DEFAULT_LIMIT >> 20,
          value_parser = clap::value_parser!(u64).range(1..))]
    cache_limit: u64,
    /// Keep no extraction cache: every file is parsed.
    #[arg(long = "no-cache")]
    no_cache: bool,
    /// Repositories to compile, as `[NAME=]PATH`. Put them after `--` when a name or a path
    /// could start with `-`.
    #[arg(value_name = "[NAME=]PATH")]
    repos: Vec<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SysrootArg {
    Auto,
    Off,
}

#[derive(Subcommand)]
enum Command {
    /// Recompute every digest and validate every blob and table of the published generation.
    Verify {
        /// An index directory (its CURRENT generation is checked) or a generation directory.
        index: PathBuf,
    },
    /// Write one generation as one file (a tar archive that `kivgraph pull` installs), after
    /// verifying it, and its SHA-256 beside it as FILE.sha256.
    Pack {
        /// An index directory (its CURRENT generation is packed) or a generation directory.
        index: PathBuf,
        /// The file to write (default: `generation-<id>.kgpack` in the working directory).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Compile one repository alone into a compile unit (one file): its discovered files,
    /// project files and every file's extraction, for `link` to resolve with other units
    /// without their sources. The unit is named by this compiler's build: link it with the same
    /// build.
    Unit {
        /// The file to write (default: `<NAME>.kgunit` in the working directory).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// The standard library as the derived repository `rust:<release>=PATH`, instead of a
        /// repository.
        #[arg(
            long = "derived",
            value_name = "rust:RELEASE=PATH",
            conflicts_with = "repo"
        )]
        derived: Option<String>,
        /// Compile only these languages, as `LANG[,LANG…]` (see the compile's --languages).
        #[arg(long = "languages", value_name = "LANG[,LANG]")]
        languages: Option<String>,
        /// An extraction cache to read and fill (none by default).
        #[arg(long = "cache-dir", value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        /// About how many MiB the extraction cache may hold.
        #[arg(long = "cache-limit", value_name = "MIB", default_value_t = kivgraph_compile::disk_cache::DEFAULT_LIMIT >> 20,
              value_parser = clap::value_parser!(u64).range(1..))]
        cache_limit: u64,
        /// Print a machine-readable summary on stdout.
        #[arg(long)]
        json: bool,
        /// The repository, as `[NAME=]PATH`.
        #[arg(value_name = "[NAME=]PATH", required_unless_present = "derived")]
        repo: Option<String>,
    },
    /// Publish a generation from compile units, reading no source: the generation a compile of
    /// the same repositories in the same order with --rust-sysroot off publishes.
    Link {
        /// Index directory that receives the generation.
        #[arg(long, default_value = ".kivgraph")]
        out: PathBuf,
        /// How many generations the index keeps.
        #[arg(long, value_name = "N", default_value_t = kivgraph_format::layout::DEFAULT_KEEP as u64,
              value_parser = clap::value_parser!(u64).range(1..))]
        keep: u64,
        /// Print a machine-readable summary on stdout.
        #[arg(long)]
        json: bool,
        /// A cache directory for what a later link reuses: the standard library's resolution
        /// over its own files (none by default). May be the units' extraction cache.
        #[arg(long = "cache-dir", value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        /// About how many MiB the cache may hold.
        #[arg(long = "cache-limit", value_name = "MIB", default_value_t = kivgraph_compile::disk_cache::DEFAULT_LIMIT >> 20,
              value_parser = clap::value_parser!(u64).range(1..))]
        cache_limit: u64,
        /// The units, in the order their repositories are registered.
        #[arg(value_name = "UNIT", required = true)]
        units: Vec<PathBuf>,
    },
    /// Write the tables of one generation partitioned by repository, Hive-style
    /// (`OUT/<table>/repo=<name>/part-0.parquet`), for Spark, Trino or DuckDB to prune by
    /// repository; after verifying it. OUT must not exist.
    Export {
        /// An index directory (its CURRENT generation is exported) or a generation directory.
        index: PathBuf,
        /// The directory to create.
        #[arg(long = "out", value_name = "OUT")]
        out: PathBuf,
    },
}

/// The generation directory `index` names: itself when it holds a manifest, else the
/// generation its CURRENT names.
fn generation_dir(index: PathBuf) -> anyhow::Result<PathBuf> {
    if index.join(kivgraph_format::layout::MANIFEST).exists() {
        return Ok(index);
    }
    let idx = IndexDir::new(&index);
    let id = idx
        .current()?
        .with_context(|| format!("{}: no generation is published", index.display()))?;
    Ok(idx.generation_dir(id))
}

fn main() -> ExitCode {
    // SAFETY: first thing in main; no tree-sitter object exists yet.
    unsafe { kivgraph_compile::alloc::init() };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kivgraph-compile: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(Command::Export { index, out }) = &cli.command {
        let dir = generation_dir(index.clone())?;
        let report = kivgraph_compile::verify_generation(&dir)?;
        let done = kivgraph_format::hive::export(&dir, out)?;
        println!(
            "exported generation {:06} into {}, partitioned by repository:",
            report.generation_id,
            out.display()
        );
        for (table, partitions, rows) in done.tables {
            println!("  {table}: {rows} rows in {partitions} partitions");
        }
        return Ok(());
    }
    let terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    if let Some(Command::Unit {
        output,
        derived,
        languages,
        cache_dir,
        cache_limit,
        json,
        repo,
    }) = cli.command
    {
        let mut spec = match (&derived, &repo) {
            (Some(d), _) => RepoSpec::parse_derived(d)?,
            (None, Some(r)) => RepoSpec::parse(r)?,
            (None, None) => anyhow::bail!("no repository given"),
        };
        if let Some(list) = languages {
            let arg = format!("{}={list}", spec.name);
            restrict_languages(&[arg], std::slice::from_mut(&mut spec))?;
        }
        let output = output.unwrap_or_else(|| {
            PathBuf::from(format!(
                "{}.{}",
                spec.name.replace(':', "-"),
                kivgraph_compile::unit::EXTENSION
            ))
        });
        let s = kivgraph_compile::unit::build(&kivgraph_compile::unit::UnitOptions {
            repo: spec,
            output,
            cache: cache_dir.map(|d| (d, cache_limit.saturating_mul(1 << 20))),
            progress: !json && terminal,
        })?;
        if json {
            return say(serde_json::to_string_pretty(&s)? + "\n");
        }
        return say(format!(
            "unit of {} written to {} ({} bytes, sha256 {})\n  {} files, {} lines; {} extractions ({} failed) in {:.2}s\n  {} diagnostics\n",
            s.header.repository,
            s.path,
            s.bytes,
            s.header.payload_sha256,
            s.files,
            s.source_lines,
            s.extractions,
            s.failed_extractions,
            s.elapsed_ms as f64 / 1000.0,
            s.diagnostics.len()
        ));
    }
    if let Some(Command::Link {
        out,
        keep,
        json,
        cache_dir,
        cache_limit,
        units,
    }) = cli.command
    {
        let summary = kivgraph_compile::unit::link(&kivgraph_compile::unit::LinkOptions {
            out,
            units,
            keep: usize::try_from(keep).unwrap_or(usize::MAX),
            progress: !json && terminal,
            cache: cache_dir.map(|d| (d, cache_limit.saturating_mul(1 << 20))),
        })?;
        return say(summary_text(&summary, json)?);
    }
    if let Some(Command::Pack { index, output }) = cli.command {
        let dir = generation_dir(index)?;
        let report = kivgraph_compile::verify_generation(&dir)?;
        let output = output.unwrap_or_else(|| {
            PathBuf::from(format!("generation-{:06}.kgpack", report.generation_id))
        });
        kivgraph_format::pack::write(&dir, &output)?;
        let digest = {
            use sha2::Digest;
            let mut h = sha2::Sha256::new();
            let mut f = std::fs::File::open(&output)?;
            std::io::copy(&mut f, &mut h)?;
            h.finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        let name = output
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut sum = output.clone().into_os_string();
        sum.push(".sha256");
        std::fs::write(&sum, format!("{digest}  {name}\n"))?;
        return say(format!(
            "packed generation {:06} into {} ({} bytes), sha256 {digest}\n",
            report.generation_id,
            output.display(),
            std::fs::metadata(&output)?.len()
        ));
    }
    if let Some(Command::Verify { index }) = cli.command {
        let dir = generation_dir(index)?;
        let report = kivgraph_compile::verify_generation(&dir)?;
        return say(format!(
            "ok: generation {:06} in {}: {} files, {} bytes; {} symbols, {} edges, {} unresolved\n",
            report.generation_id,
            dir.display(),
            report.files,
            report.bytes,
            report.rows.symbols,
            report.rows.edges,
            report.rows.unresolved
        ));
    }
    if cli.repos.is_empty() {
        anyhow::bail!("no repository given; usage: kivgraph-compile [--out DIR] [NAME=]PATH...");
    }
    let mut repos = cli
        .repos
        .iter()
        .map(|r| RepoSpec::parse(r))
        .collect::<Result<Vec<_>, _>>()?;
    for d in &cli.derived {
        repos.push(RepoSpec::parse_derived(d)?);
    }
    restrict_languages(&cli.languages, &mut repos)?;
    let fault = match std::env::var("KIVGRAPH_FAULT") {
        Ok(v) => Some(
            FaultPoint::parse(&v)
                .with_context(|| format!("KIVGRAPH_FAULT={v:?} names no fault point"))?,
        ),
        Err(_) => None,
    };
    let opts = CompileOptions {
        out: cli.out,
        repos,
        fault,
        // On a terminal only: a compile whose output is piped or read by a script is silent.
        progress: !cli.json && terminal,
        rust_sysroot: match cli.rust_sysroot {
            SysrootArg::Auto => kivgraph_compile::RustSysroot::Auto,
            SysrootArg::Off => kivgraph_compile::RustSysroot::Off,
        },
        keep: usize::try_from(cli.keep).unwrap_or(usize::MAX),
        cache: kivgraph_compile::CacheOptions {
            dir: match cli.cache_dir {
                _ if cli.no_cache => kivgraph_compile::CacheDir::Off,
                Some(dir) => kivgraph_compile::CacheDir::At(dir),
                None => kivgraph_compile::CacheDir::Beside,
            },
            limit: cli.cache_limit.saturating_mul(1 << 20),
        },
    };
    if cli.watch {
        let json = cli.json;
        kivgraph_compile::watch(&opts, std::time::Duration::from_millis(250), |r| {
            let line = match r {
                Ok(s) if json => serde_json::to_string(&s).unwrap_or_default(),
                Ok(s) if s.up_to_date => {
                    format!("generation {:06} is up to date", s.generation_id)
                }
                Ok(s) => format!(
                    "generation {:06} published in {} ({} files, {:.2}s)",
                    s.generation_id,
                    s.generation_dir,
                    s.source_files,
                    s.elapsed_ms.total as f64 / 1000.0
                ),
                Err(e) => {
                    eprintln!("kivgraph-compile: error: {e}");
                    return;
                }
            };
            let _ = say(line + "\n");
        })?;
        return Ok(());
    }
    let summary = if cli.full {
        kivgraph_compile::compile(&opts)?
    } else {
        kivgraph_compile::compile_changed(&opts)?
    };
    say(summary_text(&summary, cli.json)?)
}

/// What a compile or a link says of the generation it published.
fn summary_text(summary: &kivgraph_compile::Summary, json: bool) -> anyhow::Result<String> {
    let mut out = String::new();
    if json {
        out = serde_json::to_string_pretty(&summary)? + "\n";
    } else if summary.up_to_date {
        out = format!(
            "generation {:06} in {} is up to date: nothing changed since it was compiled (checked in {:.2}s; --full compiles anyway)\n",
            summary.generation_id,
            summary.generation_dir,
            summary.elapsed_ms.total as f64 / 1000.0
        );
    } else {
        let secs = summary.elapsed_ms.total as f64 / 1000.0;
        out += &format!(
            "generation {:06} published in {}\n  {} files, {} lines in {:.2}s ({:.0} lines/s)\n  {} symbols, {} edges, {} package edges, {} unresolved\n  {} diagnostics\n",
            summary.generation_id,
            summary.generation_dir,
            summary.source_files,
            summary.source_lines,
            secs,
            summary.source_lines as f64 / secs.max(1e-9),
            summary.rows.symbols,
            summary.rows.edges,
            summary.rows.package_edges,
            summary.rows.unresolved,
            summary.diagnostics
        );
        // Files compiled in part or not at all, by status, over every repository.
        let mut statuses: std::collections::BTreeMap<&str, u64> = Default::default();
        for r in &summary.repositories {
            for (status, n) in r.files.values().flatten() {
                if status != "indexed" {
                    *statuses.entry(status).or_default() += n;
                }
            }
        }
        for (status, n) in statuses {
            out += &format!("  {n} files {status}{}\n", status_note(status));
        }
        for d in summary.diagnostic_sample.iter().take(10) {
            out += &format!("  {}:{}: {}\n", d.repository, d.path, d.message);
        }
        for note in &summary.index_notes {
            out += &format!("  index: {note}\n");
        }
    }
    Ok(out)
}

/// Writes the summary on stdout. A reader that went away (`| head`) is not an error: the
/// generation is published whether or not anyone reads what was said about it.
fn say(text: String) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// What a file status other than `indexed` means, for the human summary.
fn status_note(status: &str) -> &'static str {
    match status {
        "partial" => " (syntax errors or depth bounds: declarations read in part)",
        "oversized" => " (skipped: larger than the size limit)",
        "binary" => " (skipped: binary content)",
        "not_utf8" => " (skipped: not UTF-8)",
        "unreadable" => " (skipped: unreadable)",
        "build_excluded" => {
            " (excluded by the build configuration: Go build constraints, files no Rust crate root reaches)"
        }
        _ => "",
    }
}

/// Checks `--languages` against the repositories given and restricts each one named.
fn restrict_languages(args: &[String], repos: &mut [RepoSpec]) -> anyhow::Result<()> {
    for arg in args {
        let (name, list) = arg
            .split_once('=')
            .with_context(|| format!("--languages {arg:?}: expected NAME=LANG[,LANG]"))?;
        let Some(repo) = repos.iter_mut().find(|r| r.name == name && !r.derived) else {
            anyhow::bail!("--languages {arg:?}: no repository {name:?} is given");
        };
        if repo.languages.is_some() {
            anyhow::bail!("--languages {arg:?}: repository {name:?} is restricted twice");
        }
        let mut languages = Vec::new();
        for l in list.split(',') {
            let language = Language::parse(l.trim()).with_context(|| {
                format!(
                    "--languages {arg:?}: {l:?} is not a language (go, typescript, javascript, rust, python, dart)"
                )
            })?;
            languages.push(language);
        }
        repo.languages = Some(languages);
    }
    Ok(())
}
