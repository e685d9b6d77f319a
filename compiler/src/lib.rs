#![doc = include_str!("../README.md")]

pub mod alloc;
pub mod annotations;
pub mod cache;
mod discover;
pub mod disk_cache;
mod emit;
pub mod facts;
#[cfg(test)]
mod fuzz;
mod hash;
mod lang;
mod pipeline;
mod progress;
mod stat_cache;
pub mod unit;

use progress::Progress;
#[cfg(test)]
mod testing;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use kivgraph_format::layout::WriterLock;
use kivgraph_format::manifest::{Manifest, ManifestRepository, RowCounts};
use kivgraph_format::{FaultPoint, FormatError, IndexDir, Language};

pub use disk_cache::{CacheDir, CacheStats};
pub use facts::{Diagnostic, FactSet, FactsError};
pub use kivgraph_format::verify_generation;

/// One repository to compile.
#[derive(Debug, Clone)]
pub struct RepoSpec {
    pub name: String,
    pub root: PathBuf,
    /// Derived from a toolchain (the `rust:<release>` standard library), not registered by a
    /// user: its name must carry the reserved `rust:` prefix, and it has no commit.
    pub derived: bool,
    /// The only languages compiled in this repository (`--languages`); `None` compiles every
    /// language found. Files of the others are neither read nor recorded.
    pub languages: Option<Vec<Language>>,
}

impl RepoSpec {
    /// Parses `[NAME=]PATH`; the name defaults to the directory's base name.
    pub fn parse(arg: &str) -> Result<RepoSpec, CompileError> {
        let (name, path) = match arg.split_once('=') {
            Some((n, p)) if !n.is_empty() && !n.contains('/') => (Some(n.to_string()), p),
            _ => (None, arg),
        };
        let root = std::fs::canonicalize(path).map_err(|source| RepositoryError::Unreadable {
            path: path.to_string(),
            source,
        })?;
        if !root.is_dir() {
            return Err(RepositoryError::NotADirectory(root).into());
        }
        let name = match name {
            Some(n) => n,
            None => root
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("root")
                .to_string(),
        };
        validate_name(&name, false)?;
        Ok(RepoSpec {
            name,
            root,
            derived: false,
            languages: None,
        })
    }

    /// Parses `rust:<release>=PATH`: a repository derived from a toolchain.
    pub fn parse_derived(arg: &str) -> Result<RepoSpec, CompileError> {
        let (name, path) = arg
            .split_once('=')
            .filter(|(n, _)| n.starts_with("rust:"))
            .ok_or_else(|| RepositoryError::DerivedSpec(arg.to_string()))?;
        validate_name(name, true)?;
        let root = std::fs::canonicalize(path).map_err(|source| RepositoryError::Unreadable {
            path: path.to_string(),
            source,
        })?;
        Ok(RepoSpec {
            name: name.to_string(),
            root,
            derived: true,
            languages: None,
        })
    }
}

fn validate_name(name: &str, derived: bool) -> Result<(), CompileError> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\'])
        || name.trim() != name
        || name.chars().any(char::is_control)
    {
        return Err(RepositoryError::UnusableName(name.to_string()).into());
    }
    if name.starts_with("rust:") != derived {
        return Err(if derived {
            RepositoryError::DerivedNameUnprefixed(name.to_string())
        } else {
            RepositoryError::ReservedName(name.to_string())
        }
        .into());
    }
    Ok(())
}

/// Every name usable, none given twice.
/// Validates every name (`derived` tells which may carry the reserved prefix) and refuses twins.
fn validate_names<'a>(names: impl Iterator<Item = (&'a str, bool)>) -> Result<(), CompileError> {
    let mut seen = std::collections::BTreeSet::new();
    for (name, derived) in names {
        validate_name(name, derived)?;
        if !seen.insert(name) {
            return Err(RepositoryError::GivenTwice(name.to_string()).into());
        }
    }
    Ok(())
}

#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// The index directory that receives the generation.
    pub out: PathBuf,
    pub repos: Vec<RepoSpec>,
    /// Test hook: fail at this step of publishing.
    pub fault: Option<FaultPoint>,
    /// Report phases on stderr.
    pub progress: bool,
    /// Whether the Rust standard library is located in the toolchain (SPEC section 14.1).
    pub rust_sysroot: RustSysroot,
    /// How many generations a publish keeps (SPEC section 1.8).
    pub keep: usize,
    /// Where phase 1's extractions are kept between compiles, and how large that may grow.
    pub cache: CacheOptions,
}

/// The extraction cache of a compile: on, beside the index, bounded, unless said otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheOptions {
    pub dir: CacheDir,
    /// About how many bytes the directory may hold; the least recently used entries go first.
    pub limit: u64,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            dir: CacheDir::Beside,
            limit: disk_cache::DEFAULT_LIMIT,
        }
    }
}

impl CacheOptions {
    /// No cache.
    pub fn off() -> Self {
        CacheOptions {
            dir: CacheDir::Off,
            ..CacheOptions::default()
        }
    }
}

/// Where the Rust standard library comes from when Rust files are compiled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RustSysroot {
    /// From the toolchain on `PATH` (`rustc --print sysroot`), as the derived repository
    /// `rust:<release>`, when its `rust-src` component is installed and no derived repository
    /// was given; otherwise every use of `std`, `core`, `alloc`, `proc_macro` or `test` is an
    /// unresolved `SYSROOT_SOURCE_MISSING` record.
    #[default]
    Auto,
    /// Never located: only a derived repository given explicitly provides the standard library.
    Off,
}

/// What discovery hands to the front ends, over all repositories.
#[derive(Default)]
struct Inputs {
    sources: Vec<pipeline::SourceInput>,
    configs: Vec<lang::ConfigFile>,
    /// Why the standard library is not in the graph, when Rust is compiled without it.
    sysroot_missing: Option<String>,
    /// Source files discovery did not read: its records say they did not change.
    not_read: u64,
}

/// Registers one repository in `facts` and discovers its files into `inputs`; with a cache
/// directory, through discovery's records there ([`stat_cache`]), which it then writes again.
fn add_repository(
    facts: &mut FactSet,
    inputs: &mut Inputs,
    spec: &RepoSpec,
    progress: &Progress,
    stat_dir: Option<&Path>,
) {
    // A derived repository has no commit, branch or dirty flag: nothing clones it.
    let head = if spec.derived {
        None
    } else {
        kivgraph_format::git::read_head(&spec.root).ok().flatten()
    };
    let repo = facts.push_repo(facts::Repo {
        derived: spec.derived,
        name: spec.name.clone(),
        root: spec.root.to_string_lossy().into_owned(),
        commit: head.as_ref().map(|h| h.commit.clone()),
        branch: head.as_ref().and_then(|h| h.branch.clone()),
        dirty: if spec.derived {
            None
        } else {
            head.as_ref().and_then(|_| git_dirty(&spec.root))
        },
        languages: Default::default(),
    });
    progress.phase(&format!("discovering {}", spec.name));
    let stat = stat_dir.map(|d| stat_cache::StatCache::open(d, &spec.root));
    let found = discover::discover(
        facts,
        repo,
        &spec.root,
        spec.languages.as_deref(),
        stat.as_ref(),
    );
    inputs.not_read += found.recorded;
    // Records that could not be written cost the next compile its reads, nothing else.
    if let Some(stat) = stat {
        let _ = stat.write();
    }
    for (path, text) in found.configs {
        inputs.configs.push(lang::ConfigFile { repo, path, text });
    }
    for (language, file, path, text) in found.sources {
        inputs.sources.push(pipeline::SourceInput {
            meta: pipeline::FileMeta {
                repo,
                file,
                path,
                language,
            },
            text,
            features: None,
        });
    }
}

/// The toolchain's standard library sources as the derived repository `rust:<release>`: the
/// `library` directory of `rustc --print sysroot`'s `lib/rustlib/src/rust`, and the release
/// that `rustc --version` prints. Fails with the reason when either is missing.
fn locate_rust_sysroot() -> Result<RepoSpec, String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let run = |args: &[&str]| -> Result<String, String> {
        let out = std::process::Command::new(&rustc)
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("no Rust toolchain found ({e})"))?;
        if !out.status.success() {
            return Err(format!("`rustc {}` failed", args.join(" ")));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    // Both at once: each start of `rustc` through rustup's proxy costs about 15 ms.
    let (sysroot, version) = std::thread::scope(|s| {
        let version = s.spawn(|| run(&["--version"]));
        let sysroot = run(&["--print", "sysroot"]);
        let version = version
            .join()
            .unwrap_or_else(|_| Err("`rustc --version` failed".into()));
        (sysroot, version)
    });
    let library = PathBuf::from(sysroot?).join("lib/rustlib/src/rust/library");
    if !library.join("std").is_dir() {
        return Err(format!(
            "the toolchain's rust-src component is not installed (no {})",
            library.display()
        ));
    }
    let version = version?;
    let release = version
        .split_whitespace()
        .nth(1)
        .filter(|r| r.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .ok_or_else(|| format!("cannot read the release from {version:?}"))?;
    RepoSpec::parse_derived(&format!("rust:{release}={}", library.display()))
        .map_err(|e| e.to_string())
}

/// Why a compile or a publish stopped before publishing.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// A repository argument or name that cannot be compiled.
    #[error(transparent)]
    Repository(#[from] RepositoryError),
    /// The index directory is busy or cannot be written.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A fact set that cannot be made canonical.
    #[error(transparent)]
    Facts(#[from] FactsError),
    /// The file watcher of `--watch` could not start or stopped.
    #[error("watching the repositories failed: {0}")]
    Watch(String),
    /// A compile unit that cannot be written, read or linked.
    #[error(transparent)]
    Unit(#[from] unit::UnitError),
}

/// Why a repository cannot be compiled (SPEC section 4.4 names the refused names).
#[derive(Debug, thiserror::Error)]
pub enum RepositoryError {
    #[error("no repository given")]
    NoneGiven,
    #[error("{path}: {source}")]
    Unreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("{}: not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error(
        "repository name {0:?} is not usable: no slashes, control characters, dots-only or padding"
    )]
    UnusableName(String),
    #[error(
        "repository name {0:?} is reserved: the rust: prefix names derived toolchain repositories"
    )]
    ReservedName(String),
    #[error(
        "derived repository name {0:?} must start with rust:, the prefix reserved for toolchain repositories"
    )]
    DerivedNameUnprefixed(String),
    #[error("derived repository {0:?} must be given as rust:<release>=PATH")]
    DerivedSpec(String),
    #[error("repository name {0:?} is given twice")]
    GivenTwice(String),
}

/// What a compile produced; printed by `--json`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    pub generation_id: u64,
    /// Nothing changed since the published generation was compiled: it is the answer, and no
    /// generation was published (see [`compile_changed`]).
    #[serde(default)]
    pub up_to_date: bool,
    pub generation_dir: String,
    pub repositories: Vec<RepoSummary>,
    pub rows: kivgraph_format::manifest::RowCounts,
    pub source_files: u64,
    pub source_lines: u64,
    pub source_bytes: u64,
    pub generation_bytes: u64,
    pub elapsed_ms: Timings,
    pub diagnostics: usize,
    /// The first diagnostics, sorted; `diagnostics` is the total.
    pub diagnostic_sample: Vec<Diagnostic>,
    /// What publishing repaired or collected in the index directory (a `CURRENT` that named no
    /// generation, old generations removed).
    pub index_notes: Vec<String>,
    /// What the extraction cache did, when the compile kept one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheStats>,
    /// Source files discovery did not read, because its records (kept with the extraction
    /// cache) say they did not change since a compile read them.
    #[serde(default)]
    pub files_not_read: u64,
    /// The tables' column chunks copied from the generation the index served (unchanged since),
    /// and encoded from the rows.
    #[serde(default)]
    pub table_chunks: kivgraph_format::tables::Reused,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RepoSummary {
    pub name: String,
    pub root: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: Option<bool>,
    /// Files per language and status, e.g. `{"go": {"indexed": 40, "build_excluded": 2}}`.
    pub files: BTreeMap<String, BTreeMap<String, u64>>,
}

/// Wall-clock milliseconds of a compile's phases. `resolve` runs from the end of discovery to
/// the ordered facts, and holds `extract` (parsing and extraction, the files in parallel, or
/// their cached extractions), `link` (each language's resolution over its files) and `order`
/// (ordering the facts for the writer).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Timings {
    pub discover: u64,
    pub resolve: u64,
    #[serde(default)]
    pub extract: u64,
    #[serde(default)]
    pub link: u64,
    #[serde(default)]
    pub order: u64,
    pub write: u64,
    /// Of `write`: encoding the tables, the blob and the indexes, each file stored as soon as it
    /// is encoded (the rest is the manifest, the publish and collecting old generations).
    #[serde(default)]
    pub encode: u64,
    pub total: u64,
}

/// Compiles the repositories and publishes one generation into `opts.out`.
pub fn compile(opts: &CompileOptions) -> Result<Summary, CompileError> {
    compile_inner(opts, false)
}

/// [`compile`], unless nothing changed: when the inputs (every discovered file's path, status
/// and content digest, the configuration files, the repositories' roots, heads and language
/// restrictions, the compiler's version and options) are those the published generation was
/// compiled from, that generation is the answer (`up_to_date`) and nothing is published. What
/// the last compile recorded (`LAST_COMPILE.json` beside `CURRENT`) is only trusted when it is
/// whole and names the published generation; anything else compiles.
pub fn compile_changed(opts: &CompileOptions) -> Result<Summary, CompileError> {
    compile_inner(opts, true)
}

/// Compiles (as [`compile_changed`]), then follows the repositories' directories with a file
/// watcher and compiles again after each burst of changes, once nothing has changed for
/// `quiet` (or after two seconds of continuous changes); each outcome goes to `report`, an error
/// included, and watching goes on. Changes inside the index directory and under `.git` are not
/// followed. Returns only when the watcher fails.
pub fn watch(
    opts: &CompileOptions,
    quiet: std::time::Duration,
    mut report: impl FnMut(Result<Summary, CompileError>),
) -> Result<(), CompileError> {
    use notify::{RecursiveMode, Watcher};
    use std::sync::mpsc::RecvTimeoutError;
    // The process lives on: unchanged files are not parsed again.
    cache::enable();
    let (tx, rx) = std::sync::mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher =
        notify::recommended_watcher(tx).map_err(|e| CompileError::Watch(e.to_string()))?;
    for r in opts.repos.iter().filter(|r| !r.derived) {
        watcher
            .watch(&r.root, RecursiveMode::Recursive)
            .map_err(|e| CompileError::Watch(format!("{}: {e}", r.root.display())))?;
    }
    let out = std::fs::canonicalize(&opts.out).unwrap_or_else(|_| opts.out.clone());
    let relevant = |ev: &notify::Result<notify::Event>| match ev {
        Ok(ev) => {
            !matches!(ev.kind, notify::EventKind::Access(_))
                && ev.paths.iter().any(|p| {
                    !p.starts_with(&out) && !p.components().any(|c| c.as_os_str() == ".git")
                })
        }
        Err(_) => true,
    };
    report(compile_changed(opts));
    loop {
        let first = rx
            .recv()
            .map_err(|_| CompileError::Watch("the file watcher stopped".into()))?;
        if !relevant(&first) {
            continue;
        }
        let start = Instant::now();
        loop {
            match rx.recv_timeout(quiet) {
                Ok(_) if start.elapsed() < std::time::Duration::from_secs(2) => {}
                Ok(_) | Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(CompileError::Watch("the file watcher stopped".into()));
                }
            }
        }
        report(compile_changed(opts));
    }
}

/// The record of the last compile, beside `CURRENT`.
pub const LAST_COMPILE: &str = "LAST_COMPILE.json";

#[derive(serde::Serialize, serde::Deserialize)]
struct LastCompile {
    generation_id: u64,
    input_digest: String,
    summary: Summary,
}

fn compile_inner(opts: &CompileOptions, reuse: bool) -> Result<Summary, CompileError> {
    let t0 = Instant::now();
    if opts.repos.is_empty() {
        return Err(RepositoryError::NoneGiven.into());
    }
    validate_names(opts.repos.iter().map(|r| (r.name.as_str(), r.derived)))?;
    // Take the lock first: a second compiler fails before doing any work.
    let index = IndexDir::new(&opts.out);
    let lock = index.lock()?.keep(opts.keep);

    let progress = Progress::new(opts.progress);
    let cache_dir = match &opts.cache.dir {
        CacheDir::Off => None,
        CacheDir::Beside => Some(index.root().join("cache")),
        CacheDir::At(dir) => Some(dir.clone()),
    };
    let (facts, inputs) = gather(
        &opts.repos,
        opts.rust_sysroot,
        &progress,
        cache_dir.as_deref(),
    );
    let t_discover = t0.elapsed();
    let digest = input_digest(&facts, &inputs, opts);
    if reuse
        && opts.fault.is_none()
        && let Some(mut last) = last_if_unchanged(&index, &digest)
    {
        progress.finish();
        last.up_to_date = true;
        last.files_not_read = inputs.not_read;
        last.index_notes = Vec::new();
        last.cache = None;
        let ms = t0.elapsed().as_millis() as u64;
        last.elapsed_ms = Timings {
            discover: ms,
            total: ms,
            ..Timings::default()
        };
        return Ok(last);
    }
    let disk = cache_dir.map(|dir| disk_cache::DiskCache::new(dir, opts.cache.limit));
    let mut summary = resolve_and_publish(
        &lock,
        Gathered {
            facts,
            inputs,
            disk,
            units: None,
        },
        opts.fault,
        &progress,
        t0,
        t_discover,
    )?;
    if let Err(e) = record_last(&index, summary.generation_id, &digest, &summary) {
        summary.index_notes.push(format!(
            "{LAST_COMPILE} was not written ({e}); the next compile starts from nothing"
        ));
    }
    Ok(summary)
}

/// What a compile resolves and publishes: the discovered facts and the front ends' inputs, with
/// the extraction cache, or the extractions of the units being linked.
struct Gathered {
    facts: FactSet,
    inputs: Inputs,
    disk: Option<disk_cache::DiskCache>,
    units: Option<unit::Extractions>,
}

/// Runs the front ends over gathered inputs, makes the facts canonical and publishes them under
/// the held lock: the second half of a compile and of a link.
fn resolve_and_publish(
    lock: &WriterLock,
    gathered: Gathered,
    fault: Option<FaultPoint>,
    progress: &Progress,
    t0: Instant,
    t_discover: std::time::Duration,
) -> Result<Summary, CompileError> {
    let Gathered {
        mut facts,
        inputs,
        disk,
        units,
    } = gathered;
    let files_not_read = inputs.not_read;
    let linked = units.is_some();
    let phases = pipeline::Phases::default();
    resolve_all(
        &mut facts,
        inputs,
        disk.as_ref(),
        units.as_ref(),
        progress,
        &phases,
    );
    if let Some(what) = units.as_ref().and_then(unit::Extractions::problem) {
        return Err(unit::UnitError::Corrupt {
            path: "the units linked".into(),
            what,
        }
        .into());
    }
    drop(units);
    progress.phase("ordering the facts");
    let t_order = Instant::now();
    let finished = facts.finish()?;
    let order = t_order.elapsed();
    let t_resolve = t0.elapsed();

    // A linked unit's checkout may be another machine's: only one this machine has is recorded.
    let roots = if linked {
        Roots::Existing
    } else {
        Roots::AsGiven
    };
    let published = write_generation(lock, &finished, disk.as_ref(), fault, progress, roots);
    progress.finish();
    let published = published?;
    let (id, dir) = (published.generation_id, published.generation_dir);
    let t_write = t0.elapsed();

    let mut repositories = Vec::new();
    for (ri, r) in finished.repos.iter().enumerate() {
        let mut files: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        for f in finished.files.iter().filter(|f| f.repo.index() == ri) {
            let lang = f.language.map_or("unknown", |l| l.as_str()).to_string();
            *files
                .entry(lang)
                .or_default()
                .entry(f.status.as_str().to_string())
                .or_default() += 1;
        }
        repositories.push(RepoSummary {
            name: r.name.clone(),
            root: r.root.clone(),
            commit: r.commit.clone(),
            branch: r.branch.clone(),
            dirty: r.dirty,
            files,
        });
    }
    let ms = |d: std::time::Duration| d.as_millis() as u64;
    let summary = Summary {
        up_to_date: false,
        generation_id: id,
        generation_dir: dir.to_string_lossy().into_owned(),
        repositories,
        rows: published.rows,
        source_files: finished.files.len() as u64,
        source_lines: finished.files.iter().map(|f| f.lines as u64).sum(),
        source_bytes: finished.files.iter().map(|f| f.size).sum(),
        generation_bytes: published.generation_bytes,
        elapsed_ms: Timings {
            discover: ms(t_discover),
            resolve: ms(t_resolve - t_discover),
            extract: phases.extract_ms(),
            link: phases.link_ms(),
            order: ms(order),
            write: ms(t_write - t_resolve),
            encode: published.encode_ms,
            total: ms(t_write),
        },
        diagnostics: finished.diagnostics.len(),
        diagnostic_sample: finished.diagnostics.iter().take(50).cloned().collect(),
        index_notes: published.index_notes,
        cache: disk.map(|d| d.finish()),
        files_not_read,
        table_chunks: published.table_chunks,
    };
    drop_aside(finished);
    Ok(summary)
}

/// Frees `value` on a thread of its own: the facts of a compile are hundreds of thousands of
/// allocations, and freeing them took 15–30 ms at the end of every compile of the Rust pair
/// with its standard library, after the generation was published and before the caller heard
/// of it. A program that exits first lets the system take the memory back whole. When no
/// thread can be started, the closure, and `value` with it, is freed here.
fn drop_aside<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("kivgraph-free".into())
        .spawn(move || drop(value));
}

/// The summary of the published generation when the last compile recorded `digest` for it.
fn last_if_unchanged(index: &IndexDir, digest: &str) -> Option<Summary> {
    let current = index.current().ok()??;
    let bytes = kivgraph_format::layout::read_regular(&index.root().join(LAST_COMPILE)).ok()?;
    let last: LastCompile = serde_json::from_slice(&bytes).ok()?;
    (last.generation_id == current
        && last.summary.generation_id == current
        && last.input_digest == digest
        && index.generation_dir(current).is_dir())
    .then_some(last.summary)
}

/// Records what generation `id` was compiled from (written aside, then renamed over).
fn record_last(index: &IndexDir, id: u64, digest: &str, summary: &Summary) -> std::io::Result<()> {
    let last = LastCompile {
        generation_id: id,
        input_digest: digest.to_string(),
        summary: summary.clone(),
    };
    let path = index.root().join(LAST_COMPILE);
    let tmp = index.root().join(format!("{LAST_COMPILE}.tmp"));
    std::fs::write(&tmp, serde_json::to_vec(&last)?)?;
    std::fs::rename(&tmp, &path)
}

/// The digest of everything a compile reads: the compiler's version and options, each
/// repository as given and as found (root, head, dirty flag), each discovered file's path,
/// language, status, size and content digest, and each configuration file.
fn input_digest(facts: &FactSet, inputs: &Inputs, opts: &CompileOptions) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "kivgraph-compile {} format {} sysroot {:?}",
        env!("CARGO_PKG_VERSION"),
        kivgraph_format::FORMAT_VERSION,
        opts.rust_sysroot
    );
    for s in &opts.repos {
        let _ = writeln!(
            text,
            "spec {:?} {} {:?} {:?}",
            s.name, s.derived, s.root, s.languages
        );
    }
    for r in &facts.repos {
        let _ = writeln!(
            text,
            "repo {:?} {:?} {:?} {:?} {:?} {}",
            r.name, r.root, r.commit, r.branch, r.dirty, r.derived
        );
    }
    let mut hasher = Sha256::new();
    hasher.update(text.as_bytes());
    for f in &facts.files {
        hasher.update(
            format!(
                "file {} {:?} {:?} {:?} {} ",
                f.repo.index(),
                f.path,
                f.language,
                f.status,
                f.size
            )
            .as_bytes(),
        );
        hasher.update(f.sha256);
    }
    for c in &inputs.configs {
        hasher.update(format!("config {} {:?} ", c.repo.index(), c.path).as_bytes());
        hasher.update(Sha256::digest(c.text.as_bytes()));
    }
    hasher.update(format!("sysroot_missing {:?}", inputs.sysroot_missing).as_bytes());
    hash::hex(&hasher.finalize())
}

/// Discovers every repository and runs every front end over its files: the fact set of a
/// compile before it is made canonical, and the time discovery took.
#[cfg(test)]
fn gather_and_resolve(
    repos: &[RepoSpec],
    rust_sysroot: RustSysroot,
    progress: &Progress,
) -> (FactSet, std::time::Duration) {
    let t0 = Instant::now();
    let (mut facts, inputs) = gather(repos, rust_sysroot, progress, None);
    let t_discover = t0.elapsed();
    resolve_all(
        &mut facts,
        inputs,
        None,
        None,
        progress,
        &pipeline::Phases::default(),
    );
    (facts, t_discover)
}

/// Why the standard library is missing when it was not asked for: the compile said
/// `--rust-sysroot off`, or the link was given no unit of it (a link reads no toolchain).
const SYSROOT_NOT_GIVEN: &str = "the standard library's sources were not given (--rust-sysroot off, or no unit of rust:<release> linked)";

/// Registers and discovers every repository (the standard library's too, when it is located).
fn gather(
    repos: &[RepoSpec],
    rust_sysroot: RustSysroot,
    progress: &Progress,
    stat_dir: Option<&Path>,
) -> (FactSet, Inputs) {
    let mut facts = facts::FactSet::default();
    let mut inputs = Inputs::default();
    for spec in repos {
        add_repository(&mut facts, &mut inputs, spec, progress, stat_dir);
    }
    // The standard library enters as the derived repository `rust:<release>` when Rust is
    // compiled, none was given with --derived, and the toolchain has its sources.
    let compiles_rust = inputs
        .sources
        .iter()
        .any(|s| s.meta.language == Language::Rust);
    if compiles_rust && rust_sysroot == RustSysroot::Auto && !repos.iter().any(|r| r.derived) {
        match locate_rust_sysroot() {
            Ok(spec) => add_repository(&mut facts, &mut inputs, &spec, progress, stat_dir),
            Err(why) => inputs.sysroot_missing = Some(why),
        }
    } else {
        inputs.sysroot_missing = sysroot_missing(&facts, rust_sysroot == RustSysroot::Off);
    }
    (facts, inputs)
}

/// Why a crate of the standard library is missing when the toolchain is not looked for: the
/// derived repositories given do not hold it, or none was given (`--rust-sysroot off`, or a
/// link without a unit of it). `None` when the toolchain is looked for (`off` false, none given).
fn sysroot_missing(facts: &FactSet, off: bool) -> Option<String> {
    let derived: Vec<&str> = facts
        .repos
        .iter()
        .filter(|r| r.derived)
        .map(|r| r.name.as_str())
        .collect();
    if !derived.is_empty() {
        Some(format!(
            "the standard library given ({}) does not hold this crate",
            derived.join(", ")
        ))
    } else {
        off.then(|| SYSROOT_NOT_GIVEN.into())
    }
}

/// Runs every front end over the discovered inputs.
fn resolve_all(
    facts: &mut FactSet,
    inputs: Inputs,
    cache: Option<&disk_cache::DiskCache>,
    units: Option<&unit::Extractions>,
    progress: &Progress,
    phases: &pipeline::Phases,
) {
    // Begun here, once the compile is known not to be up to date: a check that finds nothing
    // changed uses no extraction and drops none.
    let cache_scope = cache::scope_of(
        facts
            .repos
            .iter()
            .map(|r| (r.name.as_str(), r.root.as_str())),
    );
    cache::begin(cache_scope);
    let project = pipeline::Project {
        configs: &inputs.configs,
        sysroot_missing: inputs
            .sysroot_missing
            .as_deref()
            .unwrap_or("the toolchain's rust-src is not installed"),
        cache,
        phases,
        units,
        record: None,
        extract_only: false,
        cache_scope,
    };
    pipeline::compile_all(facts, inputs.sources, &project, progress);
}

/// Where [`publish`] put a generation, and what it holds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Published {
    pub generation_id: u64,
    pub generation_dir: PathBuf,
    /// The row counts recorded in the manifest.
    pub rows: RowCounts,
    /// Bytes of every file of the generation but `manifest.json`.
    pub generation_bytes: u64,
    /// What publishing repaired or collected in the index directory.
    pub index_notes: Vec<String>,
    /// The tables' column chunks copied from the generation the index served, and encoded.
    pub table_chunks: kivgraph_format::tables::Reused,
    /// How long encoding took (each file stored as soon as it was encoded), in milliseconds.
    #[serde(skip)]
    pub encode_ms: u64,
}

/// Publishes a fact set built without source files, for example by a generator of synthetic
/// graphs, as one generation of the index directory `out`.
///
/// It runs the second half of [`compile`]: it takes the writer lock, makes the facts canonical
/// ([`FactSet`]'s stable keys, order and dense ids), encodes the tables, the blob and the name
/// index, and publishes them crash-safely. The manifest's repositories come from
/// `facts.repos`: their roots, commits and branches are recorded as given, and nothing is read
/// from disk. `facts.diagnostics` are not part of a generation and are dropped.
///
/// Fails with [`CompileError::Repository`] for an unusable or repeated repository name, with
/// [`CompileError::Facts`] for a reference out of range (a symbol's package, an edge's target,
/// …) or a stable-key collision, and with [`CompileError::Format`] when the index is busy or
/// cannot be written.
pub fn publish(out: &Path, facts: FactSet) -> Result<Published, CompileError> {
    validate_names(facts.repos.iter().map(|r| (r.name.as_str(), r.derived)))?;
    facts.check()?;
    let lock = IndexDir::new(out).lock()?;
    let finished = facts.finish()?;
    write_generation(
        &lock,
        &finished,
        None,
        None,
        &Progress::new(false),
        Roots::AsGiven,
    )
}

/// Which repository roots `checkouts.json` records.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Roots {
    AsGiven,
    /// Only directories that exist here.
    Existing,
}

/// Encodes a canonical fact set, stages its files and publishes them under the held lock.
fn write_generation(
    lock: &WriterLock,
    finished: &facts::Finished,
    cache: Option<&disk_cache::DiskCache>,
    fault: Option<FaultPoint>,
    progress: &Progress,
    roots: Roots,
) -> Result<Published, CompileError> {
    progress.phase(&format!(
        "writing {} symbols, {} edges",
        finished.symbols.len(),
        finished.edges.len()
    ));
    let (id, current_problem) = lock.next_id()?;
    let mut index_notes = Vec::new();
    if let Some(problem) = current_problem {
        index_notes.push(format!(
            "the index's CURRENT named no generation ({problem}); this publish replaced it"
        ));
    }
    let mut staging = lock.stage(id, fault)?;
    let dir = staging.dir().to_path_buf();
    // Each file is written (and synced) into the staging directory, and its manifest entry
    // recorded, by a thread of its own as soon as it is encoded, so that encoding goes on while
    // the disk catches up: storing the blob of the Rust standard library, about 70 MB synced,
    // took a tenth of a second of an encoding thread.
    let t_encode = Instant::now();
    // A compile that keeps a cache copies the table chunks that did not change from the
    // generation the index serves (checked against its manifest first); one without a cache
    // encodes everything.
    let earlier =
        cache.and_then(|_| kivgraph_format::tables::EarlierTables::of_current(lock.index()));
    // Each file is stored by a thread of its own, so that the largest (the blob, tens of MB
    // written and synced) does not hold back the tables encoded after it: on the Go standard
    // library the files were written one after another for 125 ms after the last encoding.
    // One thread records what they stored, as they finish.
    let (tx, rx) =
        std::sync::mpsc::channel::<Result<kivgraph_format::manifest::ManifestFile, FormatError>>();
    let (encoded, stored) = std::thread::scope(|scope| {
        let recorder = scope.spawn(|| -> Result<(), FormatError> {
            let mut failed = None;
            for file in rx {
                // After a failure the rest is received and dropped: the encoders finish, and
                // the first error is the compile's.
                if failed.is_none()
                    && let Err(e) = file.and_then(|file| staging.record(file))
                {
                    failed = Some(e);
                }
            }
            failed.map_or(Ok(()), Err)
        });
        let dir = &dir;
        let encoded = {
            let sink = |name: &str, bytes: Vec<u8>| -> Result<(), FormatError> {
                let (file, done) = (name.to_string(), tx.clone());
                std::thread::Builder::new()
                    .name("kivgraph-store".into())
                    .spawn_scoped(scope, move || {
                        let _ =
                            done.send(kivgraph_format::layout::Staging::store(dir, &file, &bytes));
                    })
                    .map(drop)
                    .map_err(|e| FormatError::Encode(format!("no thread to store {name}: {e}")))
            };
            write::encode(finished, cache, earlier.as_ref(), &sink)
        };
        drop(tx);
        let stored = recorder.join().unwrap_or_else(|_| {
            Err(FormatError::Encode(
                "the thread recording the files panicked".into(),
            ))
        });
        (encoded, stored)
    });
    stored?;
    let encoded = encoded?;
    let encode_ms = t_encode.elapsed().as_millis() as u64;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let manifest = Manifest {
        format_version: kivgraph_format::FORMAT_VERSION,
        generation_id: id,
        created_at: kivgraph_format::manifest::rfc3339(now.as_secs()),
        created_at_ms: now.as_millis() as u64,
        compiler_version: format!("kivgraph-compile {}", env!("CARGO_PKG_VERSION")),
        repositories: finished
            .repos
            .iter()
            .map(|r| ManifestRepository {
                name: r.name.clone(),
                // The checkout is this machine's: `checkouts.json` (SPEC 1.10).
                root: String::new(),
                commit: r.commit.clone(),
                branch: r.branch.clone(),
                dirty: r.dirty,
                languages: r.languages.iter().map(|l| l.as_str().to_string()).collect(),
            })
            .collect(),
        row_counts: encoded.rows.clone(),
        tallies: encoded.tallies.clone(),
        files: Vec::new(),
    };
    let generation_bytes = encoded.bytes;
    // Before CURRENT names the generation, so that a server finds its sources at once.
    if let Err(e) = kivgraph_format::checkouts::Checkouts::record(
        lock.index(),
        finished
            .repos
            .iter()
            .filter(|r| roots == Roots::AsGiven || Path::new(&r.root).is_dir())
            .map(|r| (r.name.as_str(), r.root.as_str())),
    ) {
        index_notes.push(format!(
            "{} was not written ({e}); a server finds the sources only when told with --source",
            kivgraph_format::layout::CHECKOUTS
        ));
    }
    let publication = staging.publish(manifest)?;
    let dir = publication.dir;
    if !publication.removed.is_empty() {
        let ids: Vec<String> = publication
            .removed
            .iter()
            .map(|id| format!("{id:06}"))
            .collect();
        index_notes.push(format!("removed old generations {}", ids.join(", ")));
    }
    if let Some(e) = publication.collect_error {
        index_notes.push(format!(
            "old generations were not all removed ({e}); the next publish tries again"
        ));
    }
    Ok(Published {
        generation_id: id,
        generation_dir: dir,
        rows: encoded.rows,
        generation_bytes,
        index_notes,
        table_chunks: encoded.chunks,
        encode_ms,
    })
}

/// `git status` is the only reliable dirty check; without git the answer is unknown.
fn git_dirty(root: &Path) -> Option<bool> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "status",
            "--porcelain",
            "--untracked-files=normal",
            "--",
            ".",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(!out.stdout.is_empty())
}
