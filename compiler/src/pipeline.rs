//! The pipeline every language runs through: discovery hands over [`SourceInput`]s, the driver
//! ([`run`]) admits them, parses them on the walk pool, marks partial files, orders the results
//! by file id and hands them to the front end's resolution.
//!
//! A language plugs in by implementing [`FrontEnd`] (in `lang/<language>/mod.rs`) and taking a
//! place in [`compile_all`]. The driver owns what every language needs the same way; a front end
//! owns only its project model, its per-file extraction and its resolution.

use std::panic::{self, AssertUnwindSafe};

use kivgraph_format::{FileStatus, Language};
use rayon::prelude::*;

use crate::cache;
use crate::discover::SourceText;
use crate::facts::{Diagnostic, FactSet, FileId, RepoId};
use crate::lang::{self, ConfigFile};
use crate::progress::Progress;

/// Where a source file is, without its text: what resolution keeps of an input.
#[derive(Debug, Clone)]
pub(crate) struct FileMeta {
    pub repo: RepoId,
    pub file: FileId,
    /// Repository-relative, `/`-separated.
    pub path: String,
    pub language: Language,
}

/// One source file handed over by discovery.
pub(crate) struct SourceInput {
    pub meta: FileMeta,
    pub text: SourceText,
    /// The build configuration the file is compiled in, when its front end reads one (Rust:
    /// the features its package enables by default), set at admission.
    pub features: Option<std::sync::Arc<std::collections::BTreeSet<String>>>,
}

/// What every front end may read besides its source files.
pub(crate) struct Project<'a> {
    /// The project files discovery found; each front end reads the ones it knows.
    pub configs: &'a [ConfigFile],
    /// Why the Rust standard library is not in the graph, when no derived repository gives it.
    pub sysroot_missing: &'a str,
    /// The extraction cache on disk, when the compile keeps one.
    pub cache: Option<&'a crate::disk_cache::DiskCache>,
    /// Where the front ends add the time of their phases.
    pub phases: &'a Phases,
    /// The extractions that compile units hold (`link`): every file's comes from them, and
    /// none is made, for the link has no sources.
    pub units: Option<&'a crate::unit::Extractions>,
    /// Where a unit's compile keeps every extraction it makes or reads (`unit`).
    pub record: Option<&'a crate::unit::Recorder>,
    /// Stop after extraction, resolving nothing (a unit's compile).
    pub extract_only: bool,
    /// The scope of this process's in-memory extractions ([`cache::scope_of`]).
    pub cache_scope: u64,
}

/// Wall-clock time of the extraction and resolution phases, summed over the front ends.
#[derive(Debug, Default)]
pub(crate) struct Phases {
    extract_us: std::sync::atomic::AtomicU64,
    link_us: std::sync::atomic::AtomicU64,
}

impl Phases {
    fn add(counter: &std::sync::atomic::AtomicU64, since: std::time::Instant) {
        counter.fetch_add(
            since.elapsed().as_micros() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Milliseconds of parsing and extraction (or reading cached extractions).
    pub(crate) fn extract_ms(&self) -> u64 {
        self.extract_us.load(std::sync::atomic::Ordering::Relaxed) / 1000
    }

    /// Milliseconds of the languages' resolution.
    pub(crate) fn link_ms(&self) -> u64 {
        self.link_us.load(std::sync::atomic::Ordering::Relaxed) / 1000
    }
}

/// A language front end.
pub(crate) trait FrontEnd {
    /// How progress names the language's files ("Go", "TypeScript/JavaScript", …).
    const NAME: &'static str;
    /// The languages whose files this front end compiles.
    const LANGUAGES: &'static [Language];
    /// What extraction makes of one file; its default stands for a file whose extraction
    /// failed.
    type Parsed: Send
        + Sync
        + Default
        + Clone
        + serde::Serialize
        + serde::de::DeserializeOwned
        + 'static;

    /// The files admitted to parsing; the others get their status here (Go's build
    /// constraints). Runs before any file is parsed.
    fn admit(facts: &mut FactSet, inputs: Vec<SourceInput>, project: &Project) -> Vec<SourceInput> {
        let _ = (facts, project);
        inputs
    }

    /// Phase 1: parses and walks one file. Runs in parallel on the walk pool, sees nothing but
    /// the file.
    fn extract(input: &SourceInput) -> Self::Parsed;

    /// Whether the file could be read only in part (syntax errors, depth bounds).
    fn partial(parsed: &Self::Parsed) -> bool;

    /// The grammar the file is parsed with, to find the names written in the parts a partial
    /// file could not read ([`lang::unread_names`]); `None` records none.
    fn grammar(input: &SourceInput) -> Option<tree_sitter::Language> {
        let _ = input;
        None
    }

    /// Phase 2: the project model and the binding of every reference, over all files at once,
    /// given in file-id order.
    fn resolve(facts: &mut FactSet, files: Vec<(FileMeta, Self::Parsed)>, project: &Project);
}

/// Runs one front end over its inputs: admission, parallel extraction, partial marks, and
/// resolution, in a deterministic order. Does nothing without inputs.
pub(crate) fn run<F: FrontEnd>(
    facts: &mut FactSet,
    inputs: Vec<SourceInput>,
    project: &Project,
    progress: &Progress,
) {
    if inputs.is_empty() {
        return;
    }
    let t_extract = std::time::Instant::now();
    let admitted = F::admit(facts, inputs, project);
    progress.files(admitted.len(), &format!("parsing {} files", F::NAME));
    // Extraction recurses over syntax trees and resolution through chains of names; the pool's
    // roomy stacks plus each front end's depth bounds keep any input from overflowing one.
    let pool = lang::walk_pool();
    let facts_view: &FactSet = facts;
    // One file never stops a compile: a panic in its extraction leaves it recorded, partial,
    // with a diagnostic, and its facts empty.
    // A partial file, or one whose extraction failed, also gives the names written where it
    // could not be read (derived repositories aside: their rows are withheld anyway).
    #[allow(clippy::type_complexity)]
    let mut extracted: Vec<(FileMeta, Result<F::Parsed, String>, Vec<(String, u32, u32)>)> = pool
        .install(|| {
            // One file per task: a file's cost varies by three orders of magnitude, and rayon
            // otherwise folds runs of hundreds of files on one thread that no idle thread can
            // take over (a second of one core working alone at the end of a Go std compile).
            admitted
                .into_par_iter()
                .with_max_len(1)
                .map(|input| {
                    let kept = extract_cached::<F>(facts_view, &input, project);
                    let derived = facts_view.repos[input.meta.repo].derived;
                    let names = match &kept {
                        Ok(k) if derived || !F::partial(&k.parsed) => Vec::new(),
                        Ok(k) => k
                            .unread
                            .clone()
                            .unwrap_or_else(|| unread_of::<F>(&input, false)),
                        Err(_) if derived => Vec::new(),
                        Err(f) => f
                            .unread
                            .clone()
                            .unwrap_or_else(|| unread_of::<F>(&input, true)),
                    };
                    progress.file_done();
                    (input.meta, kept.map(|k| k.parsed).map_err(|f| f.why), names)
                })
                .collect()
        });
    if project.extract_only {
        Phases::add(&project.phases.extract_us, t_extract);
        return;
    }
    extracted.sort_by_key(|(m, _, _)| m.file);
    let mut parsed = Vec::with_capacity(extracted.len());
    // Partial files of a derived repository (the standard library) are counted in one line.
    let mut derived_partial: std::collections::BTreeMap<crate::facts::RepoId, usize> =
        Default::default();
    for (meta, p, names) in extracted {
        for (name, line, column) in names {
            let site = crate::emit::Site {
                repo: meta.repo,
                file: meta.file,
                line,
                column,
                language: meta.language,
            };
            let request = crate::emit::Request {
                package: meta.path.clone(),
                symbol: Some(name),
                detail: Some(
                    if p.is_ok() {
                        "written where the file has a syntax error: the parser could not read this part"
                    } else {
                        "written in a file whose extraction failed"
                    }
                    .into(),
                ),
            };
            crate::emit::unresolved(
                facts,
                site,
                crate::emit::reason::NAME_IN_UNREAD_CODE,
                request,
                None,
            );
        }
        let p = match p {
            Ok(p) => {
                if F::partial(&p) && facts.repos[meta.repo].derived {
                    facts.files[meta.file].status = FileStatus::Partial;
                    *derived_partial.entry(meta.repo).or_default() += 1;
                } else if F::partial(&p) {
                    facts.files[meta.file].status = FileStatus::Partial;
                    facts.diagnostics.push(Diagnostic {
                        repository: facts.repos[meta.repo].name.clone(),
                        path: meta.path.clone(),
                        message: "has syntax errors (or nesting deeper than is followed); \
                                  declarations in the parts that could not be read are missing, \
                                  and the file is recorded as partial"
                            .into(),
                    });
                }
                p
            }
            Err(why) => {
                facts.files[meta.file].status = FileStatus::Partial;
                facts.diagnostics.push(Diagnostic {
                    repository: facts.repos[meta.repo].name.clone(),
                    path: meta.path.clone(),
                    message: format!(
                        "extraction failed ({why}); the file is recorded without its declarations"
                    ),
                });
                F::Parsed::default()
            }
        };
        parsed.push((meta, p));
    }
    for (repo, n) in derived_partial {
        facts.diagnostics.push(Diagnostic {
            repository: facts.repos[repo].name.clone(),
            path: ".".into(),
            message: format!(
                "{n} files have syntax errors or nesting deeper than is followed (the grammar \
                 does not read every construct of the toolchain's sources); recorded as partial"
            ),
        });
    }
    Phases::add(&project.phases.extract_us, t_extract);
    progress.phase(&format!("resolving {} files", F::NAME));
    let t_link = std::time::Instant::now();
    pool.install(|| F::resolve(facts, parsed, project));
    Phases::add(&project.phases.link_us, t_link);
    summarize_derived(facts);
}

/// What is kept of one file's extraction.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Kept<P> {
    pub parsed: P,
    /// For a partial file of a repository that is not derived: the names written where it could
    /// not be read ([`lang::unread_names`]), read off once with the extraction. `None` when they
    /// were not read off.
    pub unread: Option<Vec<(String, u32, u32)>>,
}

/// The names written where `input` could not be read (`whole`: nowhere could), or none when
/// its front end has no grammar for it or reading them fails.
fn unread_of<F: FrontEnd>(input: &SourceInput, whole: bool) -> Vec<(String, u32, u32)> {
    F::grammar(input)
        .map(|g| {
            panic::catch_unwind(AssertUnwindSafe(|| {
                // A text that could not be read has no names to give.
                lang::unread_names(input.text.get().unwrap_or_default(), g, whole)
            }))
            .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// Why a file has no extraction, and the names written in it when they were read off.
pub(crate) struct Failed {
    pub why: String,
    /// `None` when they were not read off (the driver reads them from the text).
    pub unread: Option<Vec<(String, u32, u32)>>,
}

/// The extraction of one file: given by a compile unit (`link`), kept by this process
/// ([`cache`]), kept on disk ([`crate::disk_cache`]), or made now and then kept in both. A panic
/// in the extraction is its message. A unit's compile records every answer.
pub(crate) fn extract_cached<F: FrontEnd>(
    facts: &FactSet,
    input: &SourceInput,
    project: &Project,
) -> Result<Kept<F::Parsed>, Failed> {
    let key = cache::Key::new::<Kept<F::Parsed>>(
        &facts.repos[input.meta.repo].name,
        &input.meta.path,
        input.meta.language,
        facts.files[input.meta.file].sha256,
        input.features.clone(),
    );
    let named = project.cache.is_some() || project.units.is_some() || project.record.is_some();
    let digest = named.then(|| key.digest::<Kept<F::Parsed>>());
    if let (Some(units), Some(d)) = (project.units, digest) {
        return units.get::<Kept<F::Parsed>>(d, &key.repo, &key.path);
    }
    let kept = extract_kept::<F>(facts, input, project, key, digest);
    if let (Some(record), Some(d)) = (project.record, digest) {
        let kept = kept.map_err(|why| Failed {
            // Read off here: the link has no text to read them from.
            unread: Some(if facts.repos[input.meta.repo].derived {
                Vec::new()
            } else {
                unread_of::<F>(input, true)
            }),
            why,
        });
        record.put(d, &kept);
        return kept;
    }
    kept.map_err(|why| Failed { why, unread: None })
}

/// [`extract_cached`] from the caches or the parser.
fn extract_kept<F: FrontEnd>(
    facts: &FactSet,
    input: &SourceInput,
    project: &Project,
    key: cache::Key,
    digest: Option<u128>,
) -> Result<Kept<F::Parsed>, String> {
    if let Some(k) = cache::get::<Kept<F::Parsed>>(project.cache_scope, &key) {
        return Ok(k);
    }
    if let (Some(disk), Some(d)) = (project.cache, digest)
        && let Some(k) = disk.get::<Kept<F::Parsed>>(d)
    {
        cache::put(project.cache_scope, key, &k);
        return Ok(k);
    }
    // A file discovery did not read is read now, and refused if it changed since.
    input
        .text
        .get()
        .map_err(|why| format!("its text could not be read: {why}"))?;
    let (parsed, first) =
        lang::with_first_parse(|| panic::catch_unwind(AssertUnwindSafe(|| F::extract(input))));
    let parsed = parsed.map_err(|payload| panic_message(payload.as_ref()))?;
    let unread = (F::partial(&parsed) && !facts.repos[input.meta.repo].derived).then(|| {
        // Off the tree the extraction parsed when it parsed this text with this grammar.
        first
            .zip(F::grammar(input))
            .and_then(|(first, g)| first.unread_of(input.text.as_str(), &g))
            .unwrap_or_else(|| unread_of::<F>(input, false))
    });
    let k = Kept { parsed, unread };
    if let (Some(disk), Some(d)) = (project.cache, digest) {
        disk.put(d, &k);
    }
    cache::put(project.cache_scope, key, &k);
    Ok(k)
}

/// One diagnostic per derived repository (the standard library): what the front end said of
/// its files, in one line.
fn summarize_derived(facts: &mut FactSet) {
    let derived: Vec<String> = facts
        .repos
        .iter()
        .filter(|r| r.derived)
        .map(|r| r.name.clone())
        .collect();
    for name in derived {
        let (mine, rest): (Vec<Diagnostic>, Vec<Diagnostic>) =
            std::mem::take(&mut facts.diagnostics)
                .into_iter()
                .partition(|d| d.repository == name);
        facts.diagnostics = rest;
        if mine.is_empty() {
            continue;
        }
        let message = mine
            .iter()
            .map(|d| {
                if d.path == "." {
                    d.message.clone()
                } else {
                    format!("{}: {}", d.path, d.message)
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        facts.diagnostics.push(Diagnostic {
            repository: name,
            path: ".".into(),
            message,
        });
    }
}

/// Every front end, in a fixed order, each over the inputs of its languages.
pub(crate) fn compile_all(
    facts: &mut FactSet,
    inputs: Vec<SourceInput>,
    project: &Project,
    progress: &Progress,
) {
    let mut inputs = inputs;
    let mut stage = |facts: &mut FactSet,
                     run_one: fn(&mut FactSet, Vec<SourceInput>, &Project, &Progress),
                     langs: &[Language]| {
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut inputs)
            .into_iter()
            .partition(|i| langs.contains(&i.meta.language));
        inputs = rest;
        run_one(facts, mine, project, progress);
    };
    macro_rules! front_end {
        ($f:ty) => {
            stage(facts, run::<$f>, <$f as FrontEnd>::LANGUAGES)
        };
    }
    front_end!(lang::go::Go);
    front_end!(lang::ts::TypeScript);
    front_end!(lang::py::Python);
    front_end!(lang::rs::Rust);
    front_end!(lang::dart::Dart);
}

/// The message a panic carried, when it is a string.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{Repo, SourceFile};

    /// A front end whose extraction panics on a file holding `boom`, and whose resolution
    /// records what it was given.
    struct Fragile;

    impl FrontEnd for Fragile {
        const NAME: &'static str = "fragile";
        const LANGUAGES: &'static [Language] = &[Language::Go];
        type Parsed = Vec<String>;

        fn extract(input: &SourceInput) -> Vec<String> {
            assert!(
                !input.text.as_str().contains("boom"),
                "boom at {}",
                input.meta.path
            );
            vec![input.text.as_str().to_string()]
        }

        fn partial(parsed: &Vec<String>) -> bool {
            parsed.iter().any(|t| t.contains("broken"))
        }

        fn resolve(facts: &mut FactSet, files: Vec<(FileMeta, Vec<String>)>, _: &Project) {
            for (meta, parsed) in files {
                facts.diagnostics.push(Diagnostic {
                    repository: "resolved".into(),
                    path: meta.path,
                    message: parsed.join(""),
                });
            }
        }
    }

    #[test]
    fn a_panic_in_one_file_leaves_the_others() {
        let mut facts = FactSet::default();
        let repo = facts.push_repo(Repo {
            name: "r".into(),
            root: "/r".into(),
            commit: None,
            branch: None,
            dirty: None,
            languages: Default::default(),
            derived: false,
        });
        let mut inputs = Vec::new();
        for (path, text) in [("a.go", "fine"), ("b.go", "boom"), ("c.go", "broken")] {
            let file = facts.push_file(SourceFile {
                repo,
                package: None,
                path: path.into(),
                language: Some(Language::Go),
                status: FileStatus::Indexed,
                size: 4,
                lines: 1,
                sha256: [0; 32],
            });
            inputs.push(SourceInput {
                meta: FileMeta {
                    repo,
                    file,
                    path: path.into(),
                    language: Language::Go,
                },
                text: SourceText::from_string(text.into()),
                features: None,
            });
        }
        let configs = Vec::new();
        let phases = Phases::default();
        let project = Project {
            configs: &configs,
            sysroot_missing: "",
            cache: None,
            phases: &phases,
            units: None,
            record: None,
            extract_only: false,
            cache_scope: 0,
        };
        run::<Fragile>(&mut facts, inputs, &project, &Progress::new(false));
        let status: Vec<FileStatus> = facts.files.iter().map(|f| f.status).collect();
        assert_eq!(
            status,
            [
                FileStatus::Indexed,
                FileStatus::Partial,
                FileStatus::Partial
            ]
        );
        let said: Vec<(&str, &str, &str)> = facts
            .diagnostics
            .iter()
            .map(|d| (d.repository.as_str(), d.path.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "r",
                    "b.go",
                    "extraction failed (boom at b.go); the file is recorded without its declarations"
                ),
                (
                    "r",
                    "c.go",
                    "has syntax errors (or nesting deeper than is followed); declarations in the \
                     parts that could not be read are missing, and the file is recorded as partial"
                ),
                ("resolved", "a.go", "fine"),
                ("resolved", "b.go", ""),
                ("resolved", "c.go", "broken"),
            ]
        );
    }
}
