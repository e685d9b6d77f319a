//! Compile throughput: compiles the given repositories into a temporary index with
//! `kivgraph-compile`'s library, then runs a parse-and-walk pass (every node visited once with a
//! tree cursor) over the same source files (Go,
//! TypeScript/JavaScript, Python, Rust and Dart, each with the grammar the compiler uses for it:
//! TSX for `.tsx`/`.jsx`) with the same parallelism (the floor no compiler can beat), and prints both.
//!
//! Measures: wall time of discovery + parsing + resolution + writing + publishing, lines and
//! files per second, generation size on disk, peak RSS of the compile. Leaves out: process start,
//! the page cache (run it twice and quote the warm figures), and everything the engine does.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin compile_throughput -- [NAME=]PATH...`

use std::time::Instant;

use kivgraph_compile::{CompileOptions, RepoSpec};
use rayon::prelude::*;

/// The compiler binary's allocator, so that in-process compiles cost what `kivgraph-compile`'s do.
#[global_allocator]
static ALLOCATOR: kivgraph_compile::alloc::Allocator = kivgraph_compile::alloc::Allocator;

fn main() -> anyhow::Result<()> {
    // SAFETY: first thing in main; no tree-sitter object exists yet.
    unsafe { kivgraph_compile::alloc::init() };
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(!args.is_empty(), "usage: compile_throughput [NAME=]PATH...");
    let repos = args
        .iter()
        .map(|a| RepoSpec::parse(a))
        .collect::<Result<Vec<_>, _>>()?;
    let out = tempfile::tempdir()?;

    let t = Instant::now();
    let summary = kivgraph_compile::compile(&CompileOptions {
        out: out.path().into(),
        repos: repos.clone(),
        fault: None,
        progress: false,
        rust_sysroot: kivgraph_compile::RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    })?;
    let compile_s = t.elapsed().as_secs_f64();
    let peak = kivgraph_benches::peak_rss_kib();

    // The floor: read and parse exactly the files the compile parsed (the generation records
    // each file's status and language), nothing else.
    let generation =
        kivgraph_format::Generation::open_current(&kivgraph_format::IndexDir::new(out.path()))?
            .ok_or_else(|| anyhow::anyhow!("the compile published nothing"))?;
    let g = generation.graph();
    let parsed_status = [
        kivgraph_format::FileStatus::Indexed as u8,
        kivgraph_format::FileStatus::Partial as u8,
    ];
    let compiled = |f: &&kivgraph_format::blob::ArchivedFileRec| {
        parsed_status.contains(&f.status)
            && [
                kivgraph_format::Language::Go.code(),
                kivgraph_format::Language::TypeScript.code(),
                kivgraph_format::Language::JavaScript.code(),
                kivgraph_format::Language::Python.code(),
                kivgraph_format::Language::Rust.code(),
                kivgraph_format::Language::Dart.code(),
            ]
            .contains(&f.language)
    };
    let files: Vec<(u8, std::path::PathBuf)> = g
        .files
        .iter()
        .filter(compiled)
        .map(|f| {
            // A generation records no checkout: the compile's summary has them.
            let name = g.strings.get(
                g.repositories[f.repository.to_native() as usize]
                    .name
                    .to_native(),
            );
            let root = summary
                .repositories
                .iter()
                .find(|r| r.name == name)
                .map_or("", |r| r.root.as_str());
            (
                f.language,
                std::path::Path::new(root).join(g.strings.get(f.path.to_native())),
            )
        })
        .collect();
    let parsed_lines: u64 = g
        .files
        .iter()
        .filter(compiled)
        .map(|f| u64::from(f.lines.to_native()))
        .sum();
    let t = Instant::now();
    // One file per task, as the compile schedules its extraction: otherwise rayon folds long
    // runs of files on one thread, and the floor would measure its own imbalance.
    let parsed: usize = files
        .par_iter()
        .with_max_len(1)
        .map(|(language, p)| {
            let mut parser = tree_sitter::Parser::new();
            let jsx = p.extension().is_some_and(|e| e == "tsx" || e == "jsx");
            let grammar: tree_sitter::Language =
                if *language == kivgraph_format::Language::Go.code() {
                    tree_sitter_go::LANGUAGE.into()
                } else if *language == kivgraph_format::Language::Python.code() {
                    tree_sitter_python::LANGUAGE.into()
                } else if *language == kivgraph_format::Language::Rust.code() {
                    tree_sitter_rust::LANGUAGE.into()
                } else if *language == kivgraph_format::Language::Dart.code() {
                    tree_sitter_dart::LANGUAGE.into()
                } else if jsx {
                    tree_sitter_typescript::LANGUAGE_TSX.into()
                } else {
                    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
                };
            parser.set_language(&grammar).expect("grammar");
            let src = std::fs::read(p).unwrap_or_default();
            // Parse, then visit every node once, as any extraction must.
            parser.parse(&src, None).map_or(0usize, |t| {
                let mut c = t.walk();
                let mut nodes = 1usize;
                'walk: loop {
                    if c.goto_first_child() || c.goto_next_sibling() {
                        nodes += 1;
                        continue;
                    }
                    loop {
                        if !c.goto_parent() {
                            break 'walk;
                        }
                        if c.goto_next_sibling() {
                            nodes += 1;
                            break;
                        }
                    }
                }
                usize::from(nodes > 1)
            })
        })
        .sum();
    let parse_s = t.elapsed().as_secs_f64();

    let per_language = |lang: &str| -> u64 {
        summary
            .repositories
            .iter()
            .filter_map(|r| r.files.get(lang))
            .flat_map(|m| m.values())
            .sum()
    };
    println!(
        "corpus: {} repositories, {} source files ({} Go, {} TypeScript, {} JavaScript, {} Python, {} Rust, {} Dart), {} lines, {} bytes",
        summary.repositories.len(),
        summary.source_files,
        per_language("go"),
        per_language("typescript"),
        per_language("javascript"),
        per_language("python"),
        per_language("rust"),
        per_language("dart"),
        summary.source_lines,
        summary.source_bytes
    );
    println!(
        "compile: {compile_s:.3} s  ({:.0} lines/s, {:.0} files/s)",
        summary.source_lines as f64 / compile_s,
        summary.source_files as f64 / compile_s
    );
    println!(
        "  phases (ms): discover {}, parse+resolve {}, write+publish {}",
        summary.elapsed_ms.discover, summary.elapsed_ms.resolve, summary.elapsed_ms.write
    );
    println!(
        "  rows: {} symbols, {} edges, {} package edges, {} unresolved",
        summary.rows.symbols,
        summary.rows.edges,
        summary.rows.package_edges,
        summary.rows.unresolved
    );
    println!(
        "  generation on disk: {} bytes ({:.1} bytes/symbol)",
        summary.generation_bytes,
        summary.generation_bytes as f64 / summary.rows.symbols.max(1) as f64
    );
    if let Some(kib) = peak {
        println!("  peak RSS: {:.1} MiB", kib as f64 / 1024.0);
    }
    println!(
        "parse-and-walk floor: {parse_s:.3} s over the {} files ({parsed_lines} lines) the compile parsed ({parsed} non-empty trees), {:.0} lines/s",
        files.len(),
        parsed_lines as f64 / parse_s
    );
    println!("compile / parse-and-walk: {:.2}x", compile_s / parse_s);
    Ok(())
}
