//! Compile units (SPEC section 16): one repository compiled alone into one file, and the link
//! that publishes a generation from units without reading any source.
//!
//! A unit holds what a compile of its repository gathers before resolution: the repository's
//! record (commit, branch, dirty flag, languages), every discovered file's row and discovery's
//! diagnostics and records, the project files the front ends read, and the extraction of every
//! file the front ends admitted or read (phase 1, which sees nothing but its file), with the few
//! lines of text that admission reads (Go's build constraints). The link registers the units in
//! the order given, as a compile registers its repositories, and runs resolution (phase 2) over
//! their extractions: the generation is the one a compile of the same sources in the same order
//! with `--rust-sysroot off` publishes, byte for byte; the standard library enters as a unit of
//! its own (`unit --derived rust:<release>=PATH`).
//!
//! A unit is named by the build of the compiler that made it (the digest of its sources): the
//! extractions are that build's, and a link by another build refuses the unit
//! (`UNIT_INCOMPATIBLE`) rather than guessing. The file is `KGUNIT\0\x01`, a little-endian `u32`
//! length and a JSON header (format, compiler, build digest, repository, payload length and
//! SHA-256), then the payload: zstd of the postcard encoding of [`Body`]. It is written aside
//! and renamed into place; reading checks magic, header, length and digest before decoding.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use kivgraph_format::Language;
use rustc_hash::FxHashMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::discover::SourceText;
use crate::facts::{Diagnostic, FactSet, FileId, Repo, SourceFile, Unresolved};
use crate::hash::hex;
use crate::pipeline::{self, Failed, FileMeta, SourceInput};
use crate::progress::Progress;
use crate::{CompileError, Gathered, Inputs, RepoSpec, Summary, disk_cache, lang};

/// The first bytes of every unit file.
pub const MAGIC: &[u8; 8] = b"KGUNIT\0\x01";
/// The version of the unit layout this build writes and reads.
pub const UNIT_FORMAT: u32 = 1;
/// The extension `unit` gives the file it writes by default.
pub const EXTENSION: &str = "kgunit";
/// Bounds on what a header may claim, so that a damaged or hostile file cannot make a reader
/// allocate without limit: the header's length, and the decoded payload's (absolute, and
/// relative to the compressed payload; units compress about tenfold).
const MAX_HEADER: u32 = 1 << 16;
const MAX_DECODED: u64 = 16 << 30;
const MAX_RATIO: u64 = 1024;

/// Why a unit cannot be written, read or linked; each has a code (`code`), which the
/// command line prints first.
#[derive(Debug, thiserror::Error)]
pub enum UnitError {
    #[error("UNIT_UNREADABLE: {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("UNIT_CORRUPT: {path}: {what}")]
    Corrupt { path: String, what: String },
    #[error("UNIT_INCOMPATIBLE: {path}: {what}; make the unit again with this kivgraph-compile")]
    Incompatible { path: String, what: String },
    #[error("UNIT_DUPLICATE: repository {name:?} is in {first} and in {second}")]
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
    #[error("UNIT_NONE_GIVEN: link needs at least one unit")]
    NoneGiven,
}

impl UnitError {
    /// The error's code, as documented in SPEC section 16.4.
    pub fn code(&self) -> &'static str {
        match self {
            UnitError::Io { .. } => "UNIT_UNREADABLE",
            UnitError::Corrupt { .. } => "UNIT_CORRUPT",
            UnitError::Incompatible { .. } => "UNIT_INCOMPATIBLE",
            UnitError::Duplicate { .. } => "UNIT_DUPLICATE",
            UnitError::NoneGiven => "UNIT_NONE_GIVEN",
        }
    }
}

/// What a unit's header says; the payload follows it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Header {
    pub unit_format: u32,
    /// `kivgraph-compile <version>`.
    pub compiler: String,
    /// The digest of the compiler's sources the extractions were made by.
    pub build: String,
    pub repository: String,
    pub derived: bool,
    pub payload_bytes: u64,
    /// Lowercase hexadecimal SHA-256 of the payload.
    pub payload_sha256: String,
    /// The length of the payload once decompressed.
    pub decoded_bytes: u64,
}

/// One file's extraction as a unit holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Extraction {
    /// The postcard encoding of the front end's kept extraction.
    Kept(Vec<u8>),
    /// The extraction failed (a panic in the front end): why, and the names written in the file.
    Failed {
        why: String,
        unread: Vec<(String, u32, u32)>,
    },
}

/// One source file handed to a front end, as a unit keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Source {
    /// Its position among the unit's files.
    file: u32,
    language: Language,
    path: String,
    /// What admission reads of its text ([`lang::admission_text`]).
    header: String,
}

/// The payload of a unit.
#[derive(Debug, Serialize, Deserialize)]
struct Body {
    repo: Repo,
    /// Discovered files, in discovery's order; repository and ids relative to the unit.
    files: Vec<SourceFile>,
    /// What discovery recorded (names in files that are not UTF-8).
    unresolved: Vec<Unresolved>,
    diagnostics: Vec<Diagnostic>,
    /// Project files: (repository-relative path, text).
    configs: Vec<(String, String)>,
    sources: Vec<Source>,
    /// By the extraction's cache digest ([`crate::cache::Key::digest`]), ascending.
    extractions: Vec<([u8; 16], Extraction)>,
}

/// Every extraction a unit's compile made or read, by digest.
#[derive(Default)]
pub(crate) struct Recorder(Mutex<BTreeMap<u128, Extraction>>);

impl Recorder {
    /// Keeps one file's extraction, or why it has none.
    pub(crate) fn put<P: Serialize>(&self, digest: u128, kept: &Result<P, Failed>) {
        let e = match kept {
            Ok(k) => match postcard::to_allocvec(k) {
                Ok(bytes) => Extraction::Kept(bytes),
                Err(e) => Extraction::Failed {
                    why: format!("its extraction could not be encoded: {e}"),
                    unread: Vec::new(),
                },
            },
            Err(f) => Extraction::Failed {
                why: f.why.clone(),
                unread: f.unread.clone().unwrap_or_default(),
            },
        };
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(digest, e);
    }
}

/// The extractions of the units being linked, by digest. Each is taken out when it is read
/// (a link reads each file's once), so that its encoding is freed as it is decoded.
#[derive(Default)]
pub(crate) struct Extractions {
    map: Mutex<FxHashMap<u128, Extraction>>,
    /// The first file whose extraction was missing or did not decode: the link then fails.
    problem: Mutex<Option<String>>,
}

impl Extractions {
    /// The extraction kept under `digest` for the file `path` of `repo`. One that no unit
    /// holds, was already taken, or does not decode is a damaged unit: it is noted
    /// ([`Extractions::problem`]) and the file gets none.
    pub(crate) fn get<P: DeserializeOwned>(
        &self,
        digest: u128,
        repo: &str,
        path: &str,
    ) -> Result<P, Failed> {
        let taken = self
            .map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&digest);
        let why = match taken {
            Some(Extraction::Kept(bytes)) => match postcard::from_bytes(&bytes) {
                Ok(k) => return Ok(k),
                Err(e) => format!("its extraction does not decode ({e})"),
            },
            Some(Extraction::Failed { why, unread }) => {
                return Err(Failed {
                    why,
                    unread: Some(unread),
                });
            }
            None => "the unit holds no extraction of it".to_string(),
        };
        let mut problem = self.problem.lock().unwrap_or_else(|e| e.into_inner());
        problem.get_or_insert_with(|| format!("repository {repo:?}, file {path}: {why}"));
        Err(Failed {
            why,
            unread: Some(Vec::new()),
        })
    }

    /// What made a unit unusable during resolution, if anything did.
    pub(crate) fn problem(&self) -> Option<String> {
        self.problem
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// What `unit` wrote; printed by `--json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitSummary {
    pub path: String,
    pub header: Header,
    /// Discovered files, and those handed to the front ends.
    pub files: u64,
    pub sources: u64,
    pub source_lines: u64,
    /// Extractions the unit holds (failed ones included).
    pub extractions: u64,
    pub failed_extractions: u64,
    pub bytes: u64,
    /// Discovery's diagnostics (the front ends' come with the link).
    pub diagnostics: Vec<Diagnostic>,
    pub cache: Option<disk_cache::CacheStats>,
    pub elapsed_ms: u64,
}

/// How `unit` compiles.
#[derive(Debug, Clone)]
pub struct UnitOptions {
    pub repo: RepoSpec,
    /// The file to write.
    pub output: PathBuf,
    /// The extraction cache to read and fill, and its bound in bytes.
    pub cache: Option<(PathBuf, u64)>,
    pub progress: bool,
}

/// Compiles one repository into a unit at `opts.output` (written aside, then renamed).
pub fn build(opts: &UnitOptions) -> Result<UnitSummary, CompileError> {
    let t0 = Instant::now();
    crate::validate_names(std::iter::once((
        opts.repo.name.as_str(),
        opts.repo.derived,
    )))?;
    let progress = Progress::new(opts.progress);
    let mut facts = FactSet::default();
    let mut inputs = Inputs::default();
    // Every file is read now (no discovery records): a unit holds what was read, never a
    // failure to read again later.
    crate::add_repository(&mut facts, &mut inputs, &opts.repo, &progress, None);
    // The root stays in the unit (a Dart package_config.json may name directories by absolute
    // path, or relative to its own); the generation never records it.
    let repo = facts.repos[0].clone();
    let sources: Vec<Source> = inputs
        .sources
        .iter()
        .map(|s| Source {
            file: s.meta.file.index() as u32,
            language: s.meta.language,
            path: s.meta.path.clone(),
            header: s.text.admission(s.meta.language).to_string(),
        })
        .collect();
    let mut body = Body {
        repo,
        files: facts.files.clone(),
        unresolved: facts.unresolved.clone(),
        diagnostics: facts.diagnostics.clone(),
        configs: inputs
            .configs
            .iter()
            .map(|c| (c.path.clone(), c.text.clone()))
            .collect(),
        sources,
        extractions: Vec::new(),
    };
    let disk = opts
        .cache
        .as_ref()
        .map(|(dir, limit)| disk_cache::DiskCache::new(dir.clone(), *limit));
    let recorder = Recorder::default();
    let phases = pipeline::Phases::default();
    let project = pipeline::Project {
        configs: &inputs.configs,
        sysroot_missing: "",
        cache: disk.as_ref(),
        phases: &phases,
        units: None,
        record: Some(&recorder),
        extract_only: true,
        cache_scope: crate::cache::scope_of(
            facts
                .repos
                .iter()
                .map(|r| (r.name.as_str(), r.root.as_str())),
        ),
    };
    pipeline::compile_all(&mut facts, inputs.sources, &project, &progress);
    body.extractions = recorder
        .0
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|(d, e)| (d.to_le_bytes(), e))
        .collect();
    progress.phase("writing the unit");
    let header_base = Header {
        unit_format: UNIT_FORMAT,
        compiler: compiler_name(),
        build: disk_cache::frontend_digest().to_string(),
        repository: opts.repo.name.clone(),
        derived: opts.repo.derived,
        payload_bytes: 0,
        payload_sha256: String::new(),
        decoded_bytes: 0,
    };
    let (header, bytes) = write(&opts.output, header_base, &body)?;
    progress.finish();
    Ok(UnitSummary {
        path: opts.output.to_string_lossy().into_owned(),
        header,
        files: body.files.len() as u64,
        sources: body.sources.len() as u64,
        source_lines: body.files.iter().map(|f| f.lines as u64).sum(),
        extractions: body.extractions.len() as u64,
        failed_extractions: body
            .extractions
            .iter()
            .filter(|(_, e)| matches!(e, Extraction::Failed { .. }))
            .count() as u64,
        bytes,
        diagnostics: body.diagnostics,
        cache: disk.map(|d| d.finish()),
        elapsed_ms: t0.elapsed().as_millis() as u64,
    })
}

/// Encodes `body` and writes the unit file; its header and size.
fn write(path: &Path, mut header: Header, body: &Body) -> Result<(Header, u64), UnitError> {
    let io = |error: std::io::Error| UnitError::Io {
        path: path.display().to_string(),
        error,
    };
    let encoded = postcard::to_allocvec(body).map_err(|e| UnitError::Corrupt {
        path: path.display().to_string(),
        what: format!("could not be encoded: {e}"),
    })?;
    let payload = zstd::bulk::compress(&encoded, 3).map_err(io)?;
    header.decoded_bytes = encoded.len() as u64;
    drop(encoded);
    header.payload_bytes = payload.len() as u64;
    header.payload_sha256 = hex(&Sha256::digest(&payload));
    let json = serde_json::to_vec(&header).map_err(|e| io(std::io::Error::other(e)))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map_or("unit".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(json.len() as u32).to_le_bytes())?;
        f.write_all(&json)?;
        f.write_all(&payload)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    let bytes = (MAGIC.len() + 4 + json.len() + payload.len()) as u64;
    Ok((header, bytes))
}

/// What a unit's header names the compiler that made it: this one, when it is to be linked here.
fn compiler_name() -> String {
    format!("kivgraph-compile {}", env!("CARGO_PKG_VERSION"))
}

/// Reads a unit's header and checks the file: magic, layout version, the compiler build
/// (`UNIT_INCOMPATIBLE` when another build made it), and the payload's length and digest. The
/// payload is not decoded.
pub fn read_header(path: &Path) -> Result<Header, UnitError> {
    let bytes = read_file(path)?;
    split(path, &bytes).map(|(h, _)| h)
}

/// The bytes of a unit file: a regular file only (not a FIFO or a device).
fn read_file(path: &Path) -> Result<Vec<u8>, UnitError> {
    let io = |error: std::io::Error| UnitError::Io {
        path: path.display().to_string(),
        error,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    std::fs::read(path).map_err(io)
}

/// The header and payload of a unit file's bytes, checked.
fn split<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Header, &'a [u8]), UnitError> {
    let name = path.display().to_string();
    let corrupt = |what: String| UnitError::Corrupt {
        path: name.clone(),
        what,
    };
    if bytes.len() < MAGIC.len() + 4 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(corrupt(
            "not a kivgraph compile unit (no KGUNIT magic)".into(),
        ));
    }
    let len = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or([0; 4]));
    if len > MAX_HEADER || bytes.len() < 12 + len as usize {
        return Err(corrupt(format!(
            "a header of {len} bytes does not fit (the file is cut short or damaged)"
        )));
    }
    let header: Header = serde_json::from_slice(&bytes[12..12 + len as usize])
        .map_err(|e| corrupt(format!("the header does not read: {e}")))?;
    if header.unit_format != UNIT_FORMAT {
        return Err(UnitError::Incompatible {
            path: name,
            what: format!(
                "unit layout {}, this build reads {UNIT_FORMAT}",
                header.unit_format
            ),
        });
    }
    if header.build != disk_cache::frontend_digest() || header.compiler != compiler_name() {
        return Err(UnitError::Incompatible {
            path: name,
            what: format!(
                "made by another build of the compiler ({}, build {}); this is {}, build {}",
                header.compiler,
                header.build,
                compiler_name(),
                disk_cache::frontend_digest()
            ),
        });
    }
    let payload = &bytes[12 + len as usize..];
    if payload.len() as u64 != header.payload_bytes {
        return Err(corrupt(format!(
            "the payload is {} bytes, the header says {} (cut short or extended)",
            payload.len(),
            header.payload_bytes
        )));
    }
    if hex(&Sha256::digest(payload)) != header.payload_sha256 {
        return Err(corrupt(
            "the payload's SHA-256 is not the header's (damaged)".into(),
        ));
    }
    if header.decoded_bytes > MAX_DECODED
        || header.decoded_bytes > header.payload_bytes.saturating_mul(MAX_RATIO) + (1 << 20)
    {
        return Err(corrupt(format!(
            "a payload of {} bytes that decodes to {} is not a unit",
            header.payload_bytes, header.decoded_bytes
        )));
    }
    Ok((header, payload))
}

/// Reads a unit: checked, then decoded.
fn read(path: &Path) -> Result<(Header, Body), UnitError> {
    let bytes = read_file(path)?;
    let (header, payload) = split(path, &bytes)?;
    let corrupt = |what: String| UnitError::Corrupt {
        path: path.display().to_string(),
        what,
    };
    // The digest held: what does not decode was written by a faulty or hostile producer.
    // Never more than the header says, which is bounded (`split`).
    let encoded = zstd::bulk::decompress(payload, header.decoded_bytes as usize)
        .map_err(|e| corrupt(format!("the payload does not decompress: {e}")))?;
    if encoded.len() as u64 != header.decoded_bytes {
        return Err(corrupt(format!(
            "the payload decodes to {} bytes, the header says {}",
            encoded.len(),
            header.decoded_bytes
        )));
    }
    let body: Body = postcard::from_bytes(&encoded)
        .map_err(|e| corrupt(format!("the payload does not decode: {e}")))?;
    check(&header, &body).map_err(corrupt)?;
    Ok((header, body))
}

/// What a decoded unit must hold to be linked without indexing out of range.
fn check(header: &Header, body: &Body) -> Result<(), String> {
    if body.repo.name != header.repository || body.repo.derived != header.derived {
        return Err("the payload's repository is not the header's".into());
    }
    let n = body.files.len();
    if body
        .files
        .iter()
        .any(|f| f.repo.index() != 0 || f.package.is_some())
    {
        return Err("a file names another repository, or a package".into());
    }
    let mut last = None;
    for s in &body.sources {
        let Some(f) = body.files.get(s.file as usize) else {
            return Err(format!("source {} names file {} of {n}", s.path, s.file));
        };
        if last.is_some_and(|l| l >= s.file) || f.path != s.path || f.language != Some(s.language) {
            return Err(format!(
                "source {} is not its file's, or not in file order",
                s.path
            ));
        }
        last = Some(s.file);
    }
    let mut digests = body
        .extractions
        .iter()
        .map(|(d, _)| u128::from_le_bytes(*d));
    if let Some(first) = digests.next() {
        let mut prev = first;
        for d in digests {
            if d <= prev {
                return Err("extractions are not in ascending digest order".into());
            }
            prev = d;
        }
    }
    if body.unresolved.iter().any(|u| {
        u.repo.index() != 0 || u.file.is_some_and(|f| f.index() >= n) || u.source.is_some()
    }) {
        return Err("a record names a file or symbol the unit does not hold".into());
    }
    Ok(())
}

/// How `link` publishes.
#[derive(Debug, Clone)]
pub struct LinkOptions {
    /// The index directory that receives the generation.
    pub out: PathBuf,
    /// The units, in the order their repositories are registered.
    pub units: Vec<PathBuf>,
    /// How many generations a publish keeps (SPEC section 1.8).
    pub keep: usize,
    pub progress: bool,
    /// A cache directory, and its bound in bytes, for what a later link can reuse: the
    /// standard library's resolution over its own files (kept there as by a compile).
    pub cache: Option<(PathBuf, u64)>,
}

/// Publishes a generation from units, reading no source: the generation a compile of the
/// units' sources, in the same order and with `--rust-sysroot off`, publishes.
pub fn link(opts: &LinkOptions) -> Result<Summary, CompileError> {
    let t0 = Instant::now();
    if opts.units.is_empty() {
        return Err(UnitError::NoneGiven.into());
    }
    let progress = Progress::new(opts.progress);
    let mut facts = FactSet::default();
    let mut inputs = Inputs::default();
    let mut extractions = Extractions::default();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for path in &opts.units {
        progress.phase(&format!("reading {}", path.display()));
        let (_, body) = read(path)?;
        if let Some(first) = seen.insert(body.repo.name.clone(), path.display().to_string()) {
            return Err(UnitError::Duplicate {
                name: body.repo.name,
                first,
                second: path.display().to_string(),
            }
            .into());
        }
        add_unit(&mut facts, &mut inputs, &mut extractions, body).map_err(|what| {
            UnitError::Corrupt {
                path: path.display().to_string(),
                what,
            }
        })?;
    }
    crate::validate_names(facts.repos.iter().map(|r| (r.name.as_str(), r.derived)))?;
    // As a compile with --rust-sysroot off: a link reads no toolchain.
    inputs.sysroot_missing = crate::sysroot_missing(&facts, true);
    // The index is locked once the units are read and checked: a unit refused never waits
    // for, or touches, the index.
    let index = kivgraph_format::IndexDir::new(&opts.out);
    let lock = index.lock()?.keep(opts.keep);
    let t_discover = t0.elapsed();
    crate::resolve_and_publish(
        &lock,
        Gathered {
            facts,
            inputs,
            disk: opts
                .cache
                .as_ref()
                .map(|(dir, limit)| disk_cache::DiskCache::new(dir.clone(), *limit)),
            units: Some(extractions),
        },
        None,
        &progress,
        t0,
        t_discover,
    )
}

/// Registers one unit's repository, files, records and inputs, as discovery would have. An
/// extraction under a digest an earlier unit holds is refused (digests name the repository,
/// and repositories are distinct).
fn add_unit(
    facts: &mut FactSet,
    inputs: &mut Inputs,
    extractions: &mut Extractions,
    body: Body,
) -> Result<(), String> {
    let map = extractions.map.get_mut().unwrap_or_else(|e| e.into_inner());
    if let Some((d, _)) = body
        .extractions
        .iter()
        .find(|(d, _)| map.contains_key(&u128::from_le_bytes(*d)))
    {
        return Err(format!(
            "it holds extraction {:032x}, which an earlier unit holds",
            u128::from_le_bytes(*d)
        ));
    }
    // The root as the unit's machine had it: Dart's package_config.json may name directories
    // by absolute path. Only a checkout this machine has is recorded beside the index.
    let repo = facts.push_repo(body.repo);
    let base = facts.files.len();
    for mut f in body.files {
        f.repo = repo;
        facts.files.push(f);
    }
    for mut u in body.unresolved {
        u.repo = repo;
        u.file = u.file.map(|f| FileId(base + f.index()));
        facts.unresolved.push(u);
    }
    facts.diagnostics.extend(body.diagnostics);
    for (path, text) in body.configs {
        inputs.configs.push(lang::ConfigFile { repo, path, text });
    }
    for s in body.sources {
        inputs.sources.push(SourceInput {
            meta: FileMeta {
                repo,
                file: FileId(base + s.file as usize),
                path: s.path,
                language: s.language,
            },
            text: SourceText::from_string(s.header),
            features: None,
        });
    }
    for (d, e) in body.extractions {
        map.insert(u128::from_le_bytes(d), e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Go module of two files, its unit, and a scratch directory.
    fn made() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("go.mod"), "module example.com/m\n").unwrap();
        std::fs::write(
            root.join("a.go"),
            "package m\n\nfunc A() int { return B() }\n",
        )
        .unwrap();
        std::fs::write(
            root.join("b.go"),
            "package m\n\nfunc B() int { return 1 }\n",
        )
        .unwrap();
        let output = dir.path().join("m.kgunit");
        build(&UnitOptions {
            repo: RepoSpec::parse(&format!("m={}", root.display())).unwrap(),
            output: output.clone(),
            cache: None,
            progress: false,
        })
        .unwrap();
        (dir, output)
    }

    /// The unit at `path` with its body changed by `change`, written as a well-formed file.
    fn rewritten(path: &Path, name: &str, change: impl FnOnce(&mut Body)) -> PathBuf {
        let (header, mut body) = read(path).unwrap();
        change(&mut body);
        let out = path.with_file_name(name);
        write(&out, header, &body).unwrap();
        out
    }

    /// The code and message of the link of `units`, which must fail and publish nothing.
    fn refused(units: Vec<PathBuf>) -> (&'static str, String) {
        let out = tempfile::tempdir().unwrap();
        let e = link(&LinkOptions {
            out: out.path().into(),
            units,
            keep: 2,
            progress: false,
            cache: None,
        })
        .unwrap_err();
        assert_eq!(
            kivgraph_format::IndexDir::new(out.path())
                .current()
                .unwrap(),
            None
        );
        match e {
            CompileError::Unit(u) => (u.code(), u.to_string()),
            other => panic!("not a unit error: {other}"),
        }
    }

    #[test]
    fn a_well_formed_unit_that_does_not_hold_together_is_refused() {
        let (_dir, unit) = made();
        let (_, body) = read(&unit).unwrap();
        assert_eq!(body.sources.len(), 2);
        assert_eq!(body.extractions.len(), 2);
        type Change = Box<dyn FnOnce(&mut Body)>;
        let cases: Vec<(&str, Change, &str)> = vec![
            (
                "past.kgunit",
                Box::new(|b| b.sources[0].file = 99),
                "names file 99",
            ),
            (
                "moved.kgunit",
                Box::new(|b| b.sources[0].path = "elsewhere.go".into()),
                "not its file's",
            ),
            (
                "order.kgunit",
                Box::new(|b| b.sources.swap(0, 1)),
                "not in file order",
            ),
            (
                "package.kgunit",
                Box::new(|b| b.files[0].package = Some(crate::facts::PackageId(7))),
                "a package",
            ),
            (
                "record.kgunit",
                Box::new(|b| {
                    b.unresolved.push(Unresolved {
                        repo: crate::facts::RepoId(0),
                        file: Some(FileId(40)),
                        line: 1,
                        column: 0,
                        language: Language::Go,
                        reason: "X".into(),
                        requested_package: String::new(),
                        requested_symbol: None,
                        detail: None,
                        source: None,
                        reach: None,
                    })
                }),
                "does not hold",
            ),
            (
                "digests.kgunit",
                Box::new(|b| b.extractions.reverse()),
                "ascending digest order",
            ),
        ];
        for (name, change, says) in cases {
            let (code, msg) = refused(vec![rewritten(&unit, name, change)]);
            assert_eq!(code, "UNIT_CORRUPT", "{name}: {msg}");
            assert!(msg.contains(says), "{name}: {msg}");
        }
    }

    #[test]
    fn a_unit_missing_an_extraction_or_holding_one_that_does_not_decode_publishes_nothing() {
        let (_dir, unit) = made();
        let (code, msg) = refused(vec![rewritten(&unit, "none.kgunit", |b| {
            b.extractions.pop();
        })]);
        assert_eq!(code, "UNIT_CORRUPT", "{msg}");
        assert!(msg.contains("holds no extraction"), "{msg}");
        let (code, msg) = refused(vec![rewritten(&unit, "bad.kgunit", |b| {
            b.extractions[0].1 = Extraction::Kept(vec![0xff; 3]);
        })]);
        assert_eq!(code, "UNIT_CORRUPT", "{msg}");
        assert!(msg.contains("does not decode"), "{msg}");
    }

    #[test]
    fn a_unit_cannot_replace_the_extractions_of_another() {
        let (_dir, unit) = made();
        // Another repository's unit that carries the first one's extractions.
        let (mut header, mut body) = read(&unit).unwrap();
        header.repository = "other".into();
        body.repo.name = "other".into();
        let other = unit.with_file_name("other.kgunit");
        write(&other, header, &body).unwrap();
        let (code, msg) = refused(vec![unit, other]);
        assert_eq!(code, "UNIT_CORRUPT", "{msg}");
        assert!(msg.contains("which an earlier unit holds"), "{msg}");
    }
}
