//! Discovery: walks each repository (gitignore-aware, never following symlinks), classifies
//! every file with a known source extension, reads and hashes it, and hands readable text to the
//! language front ends. A file that cannot be used is recorded with its status and a diagnostic;
//! it never fails the build.

use std::path::{Path, PathBuf};

use kivgraph_format::{FileStatus, Language};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::facts::{Diagnostic, FactSet, FileId, RepoId, SourceFile};
use crate::stat_cache::{Entry, Stat, StatCache};

/// Files larger than this are skipped as oversized.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The walk of one repository stops after this many entries (files, directories and the
/// rest), with a diagnostic: a directory that holds more is not one project.
pub const MAX_WALK_ENTRIES: usize = 1_000_000;

/// Directories that are never walked: the kernel's virtual filesystems.
const VIRTUAL_ROOTS: &[&str] = &["/proc", "/sys", "/dev"];

/// Source text that is known to be valid UTF-8: read by discovery, or read when first needed
/// from a file that discovery's records ([`crate::stat_cache`]) say did not change.
#[derive(Debug)]
pub struct SourceText(Repr);

#[derive(Debug)]
enum Repr {
    Text(String),
    Later(Box<Later>),
}

/// A file discovery did not read: where it is, what its bytes must digest to, and what
/// admission reads of it (recorded when it was last read).
#[derive(Debug)]
struct Later {
    path: PathBuf,
    sha256: [u8; 32],
    admission: String,
    /// The records that vouched for it, removed if they turn out wrong.
    records: std::sync::Arc<PathBuf>,
    text: std::sync::OnceLock<Result<String, String>>,
}

impl SourceText {
    /// The text, read now if discovery did not; an error when it cannot be read or its bytes
    /// are no longer the ones discovery recorded.
    pub fn get(&self) -> Result<&str, &str> {
        match &self.0 {
            Repr::Text(t) => Ok(t),
            Repr::Later(l) => l
                .text
                .get_or_init(|| {
                    let bytes = std::fs::read(&l.path).map_err(|e| format!("unreadable: {e}"))?;
                    if <[u8; 32]>::from(Sha256::digest(&bytes)) != l.sha256 {
                        // The file changed without its status changing, or while this compile
                        // ran: the records are not to be trusted again.
                        let _ = std::fs::remove_file(&*l.records);
                        return Err("its bytes are not the ones its status was recorded with \
                                    (changed during the compile, or on a filesystem whose file \
                                    status does not follow its content); the next compile reads \
                                    every file of the repository again"
                            .into());
                    }
                    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 any more: {e}"))
                })
                .as_deref()
                .map_err(String::as_str),
        }
    }

    /// The text; empty when it could not be read ([`SourceText::get`] says why). The driver
    /// reads it with `get` before a front end extracts the file.
    pub fn as_str(&self) -> &str {
        self.get().unwrap_or("")
    }

    /// What admission reads of the text ([`crate::lang::admission_text`]), without reading a
    /// file discovery did not.
    pub(crate) fn admission(&self, language: Language) -> &str {
        match &self.0 {
            Repr::Text(t) => crate::lang::admission_text(language, t),
            Repr::Later(l) => &l.admission,
        }
    }

    /// Text handed over without reading a file (a compile unit's, the driver's own tests).
    pub(crate) fn from_string(text: String) -> SourceText {
        SourceText(Repr::Text(text))
    }
}

/// What discovery found in one repository.
#[derive(Debug, Default)]
pub struct Discovered {
    /// (file id, repository-relative path, text) of every readable source file, by language.
    pub sources: Vec<(Language, FileId, String, SourceText)>,
    /// Project files the front ends read (`go.mod`, `package.json`, `tsconfig*.json`,
    /// `jsconfig*.json`, `pyproject.toml`, `setup.cfg`, `Cargo.toml`, `pubspec.yaml`, and the
    /// `.dart_tool/package_config.json` beside a `pubspec.yaml`): (path, text).
    pub configs: Vec<(String, String)>,
    /// Source files not read because discovery's records say they did not change.
    pub recorded: u64,
}

fn is_config(name: &str) -> bool {
    matches!(
        name,
        "go.mod" | "package.json" | "pyproject.toml" | "setup.cfg" | "Cargo.toml" | "pubspec.yaml"
    ) || ((name.starts_with("tsconfig") || name.starts_with("jsconfig")) && name.ends_with(".json"))
}

struct Found {
    rel: String,
    abs: PathBuf,
    language: Language,
}

/// Walks `root` and records its files under `repo`, of the languages `only` when given; with
/// discovery's records (`stat`), a file they say did not change is not read.
pub fn discover(
    facts: &mut FactSet,
    repo: RepoId,
    root: &Path,
    only: Option<&[Language]>,
    stat: Option<&StatCache>,
) -> Discovered {
    discover_bounded(facts, repo, root, only, MAX_WALK_ENTRIES, stat)
}

/// [`discover`] with the languages to compile (`None`: all) and the walk's bound given.
fn discover_bounded(
    facts: &mut FactSet,
    repo: RepoId,
    root: &Path,
    only: Option<&[Language]>,
    max_entries: usize,
    stat: Option<&StatCache>,
) -> Discovered {
    let repo_name = facts.repos[repo].name.clone();
    let mut found = Vec::new();
    let mut config_paths = Vec::new();
    let diag = |path: String, message: String| Diagnostic {
        repository: repo_name.clone(),
        path,
        message,
    };
    // The whole filesystem, or a virtual one, is not a project: nothing of it is walked.
    if root.parent().is_none() || VIRTUAL_ROOTS.iter().any(|v| root.starts_with(v)) {
        facts.diagnostics.push(diag(
            String::new(),
            format!(
                "{} is the filesystem root or a virtual filesystem; not walked",
                root.display()
            ),
        ));
        return Discovered::default();
    }
    // Files of languages the repository is not compiled in, by language.
    let mut left_out: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut entries = 0usize;
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(false)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        // Installed dependencies and caches are not part of a repository.
        // So is Cargo's build output: a `target` directory beside a `Cargo.toml`.
        .filter_entry(|e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && (matches!(
                    e.file_name().to_str(),
                    Some("node_modules" | "__pycache__" | "site-packages" | "venv")
                ) || (e.file_name() == "target"
                    && e.path()
                        .parent()
                        .is_some_and(|p| p.join("Cargo.toml").is_file()))
                    || is_dart_build_output(e.path())))
        })
        .build();
    for entry in walker {
        entries += 1;
        if entries > max_entries {
            facts.diagnostics.push(diag(
                String::new(),
                format!(
                    "walk stopped after {max_entries} entries; the files past them are not compiled"
                ),
            ));
            break;
        }
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                facts.diagnostics.push(Diagnostic {
                    repository: repo_name.clone(),
                    path: String::new(),
                    message: format!("walk: {err}"),
                });
                continue;
            }
        };
        let Some(file_type) = entry.file_type() else {
            continue; // stdin, which a walk of a directory never yields
        };
        if file_type.is_dir() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        // A symbolic link is never followed and a FIFO, socket or device is never opened: each
        // is named, so nothing is left out without a word.
        if !file_type.is_file() {
            facts.diagnostics.push(diag(
                rel.to_string_lossy().escape_debug().to_string(),
                format!("not a regular file ({}); skipped", kind_of(file_type)),
            ));
            continue;
        }
        let Some(rel) = rel.to_str().map(|s| s.replace('\\', "/")) else {
            facts.diagnostics.push(Diagnostic {
                repository: repo_name.clone(),
                path: rel.to_string_lossy().into_owned(),
                message: "path is not valid UTF-8; skipped".into(),
            });
            continue;
        };
        // A name holding a line break or another control character cannot be shown as it is
        // in an answer's prose (it could forge a header of another file there): skipped.
        if rel.chars().any(char::is_control) {
            facts.diagnostics.push(Diagnostic {
                repository: repo_name.clone(),
                path: rel.escape_debug().to_string(),
                message: "path holds a control character (a line break, a tab, …); skipped".into(),
            });
            continue;
        }
        let file_name = rel.rsplit('/').next().unwrap_or(&rel);
        if is_config(file_name) {
            config_paths.push(rel.clone());
            continue;
        }
        let Some(language) = file_name
            .rsplit_once('.')
            .and_then(|(_, ext)| Language::from_extension(ext))
        else {
            continue;
        };
        if only.is_some_and(|only| !only.contains(&language)) {
            *left_out.entry(language.as_str()).or_default() += 1;
            continue;
        }
        found.push(Found {
            rel,
            abs: entry.path().to_path_buf(),
            language,
        });
    }

    if !left_out.is_empty() {
        let counts: Vec<String> = left_out.iter().map(|(l, n)| format!("{n} {l}")).collect();
        facts.diagnostics.push(diag(
            String::new(),
            format!(
                "files of languages this repository is not compiled in were left out: {}",
                counts.join(", ")
            ),
        ));
    }

    let mut out = Discovered::default();

    // `.dart_tool` is hidden, so the walk never enters it: the package configuration that
    // `dart pub get` writes beside a `pubspec.yaml` is read explicitly.
    let pubspec_dirs: Vec<String> = config_paths
        .iter()
        .filter(|p| p.rsplit('/').next() == Some("pubspec.yaml"))
        .map(|p| p.rsplit_once('/').map_or("", |(d, _)| d).to_string())
        .collect();
    for dir in pubspec_dirs {
        let rel = if dir.is_empty() {
            ".dart_tool/package_config.json".to_string()
        } else {
            format!("{dir}/.dart_tool/package_config.json")
        };
        if std::fs::symlink_metadata(root.join(&rel)).is_ok_and(|m| m.is_file()) {
            config_paths.push(rel);
        }
    }
    for rel in config_paths {
        // A `go.mod` is read whatever its size.
        let unbounded = rel.rsplit('/').next() == Some("go.mod");
        match std::fs::symlink_metadata(root.join(&rel)) {
            Ok(m) if unbounded || m.len() <= MAX_FILE_BYTES => {
                if let Ok(text) = std::fs::read_to_string(root.join(&rel)) {
                    out.configs.push((rel, text));
                }
            }
            _ => {}
        }
    }

    // Read, digested, counted and decoded on every thread; recorded below in the walk's order.
    // A file the records say did not change is not read (`Got::Recorded`).
    let read: Vec<(Found, Result<Got, String>)> = found
        .into_par_iter()
        .map(|f| {
            let data = match std::fs::symlink_metadata(&f.abs) {
                Ok(m) if m.len() > MAX_FILE_BYTES => Err(format!(
                    "oversized: {} bytes, limit {MAX_FILE_BYTES}",
                    m.len()
                )),
                Ok(m) => {
                    let st = Stat::of(&m);
                    match stat.and_then(|c| c.lookup(&f.rel, &st)) {
                        Some(e) => Ok(Got::Recorded(e.clone())),
                        None => std::fs::read(&f.abs)
                            .map(|b| Got::Read(Read::of(b), st))
                            .map_err(|e| format!("unreadable: {e}")),
                    }
                }
                Err(e) => Err(format!("unreadable: {e}")),
            };
            (f, data)
        })
        .collect();

    for (f, data) in read {
        facts.repos[repo].languages.insert(f.language);
        let id = FileId(facts.files.len());
        let mut file = SourceFile {
            repo,
            package: None,
            path: f.rel.clone(),
            language: Some(f.language),
            status: FileStatus::Indexed,
            size: 0,
            lines: 0,
            sha256: [0; 32],
        };
        let diag = |message: String| Diagnostic {
            repository: repo_name.clone(),
            path: f.rel.clone(),
            message,
        };
        match data {
            Err(msg) => {
                file.status = if msg.starts_with("oversized") {
                    FileStatus::Oversized
                } else {
                    FileStatus::Unreadable
                };
                if let Ok(m) = std::fs::symlink_metadata(&f.abs) {
                    file.size = m.len();
                }
                facts.diagnostics.push(diag(format!("{msg}; skipped")));
            }
            Ok(Got::Recorded(e)) => {
                out.recorded += 1;
                file.size = e.stat.size;
                file.sha256 = e.sha256;
                file.lines = e.lines;
                let text = stat.filter(|_| !e.binary).map(|c| {
                    SourceText(Repr::Later(Box::new(Later {
                        path: f.abs.clone(),
                        sha256: e.sha256,
                        admission: e.admission.clone(),
                        records: c.records_path(),
                        text: std::sync::OnceLock::new(),
                    })))
                });
                if let Some(c) = stat {
                    c.record(f.rel.clone(), e);
                }
                match text {
                    None => {
                        file.status = FileStatus::Binary;
                        facts
                            .diagnostics
                            .push(diag("binary content (NUL bytes); skipped".into()));
                    }
                    Some(_) if f.language == Language::Go && go_tool_ignores(&f.rel) => {
                        file.status = FileStatus::BuildExcluded;
                    }
                    Some(text) => out.sources.push((f.language, id, f.rel.clone(), text)),
                }
            }
            Ok(Got::Read(read, st)) => {
                file.size = read.size;
                file.sha256 = read.sha256;
                file.lines = read.lines;
                // Kept for the next compile: the text's status and what admission reads of it
                // (not for text that is not UTF-8, whose words are read off its bytes).
                // (Only what one read saw: a file whose size moved between its status and its
                // read is read again next time.)
                if let Some(c) = stat.filter(|_| st.size == read.size) {
                    let admission = match &read.text {
                        Some(Ok(t)) => Some(crate::lang::admission_text(f.language, t)),
                        Some(Err(_)) => None,
                        None => Some(""),
                    };
                    if let Some(admission) = admission {
                        c.record(
                            f.rel.clone(),
                            Entry {
                                stat: st,
                                sha256: read.sha256,
                                lines: read.lines,
                                binary: read.text.is_none(),
                                admission: admission.to_string(),
                            },
                        );
                    }
                }
                match read.text {
                    None => {
                        file.status = FileStatus::Binary;
                        facts
                            .diagnostics
                            .push(diag("binary content (NUL bytes); skipped".into()));
                    }
                    Some(text) => match text {
                        Err(e) => {
                            file.status = FileStatus::NotUtf8;
                            facts.diagnostics.push(diag(format!(
                                "not valid UTF-8 at byte {}; skipped",
                                e.utf8_error().valid_up_to()
                            )));
                            // Unread, yet its words may be uses: each one bounds the answers
                            // about its name (derived repositories aside).
                            if !facts.repos[repo].derived {
                                let text = String::from_utf8_lossy(e.as_bytes());
                                for (name, line, column) in crate::lang::words_of(&text) {
                                    let site = crate::emit::Site {
                                        repo,
                                        file: id,
                                        line,
                                        column,
                                        language: f.language,
                                    };
                                    let request = crate::emit::Request {
                                        package: f.rel.clone(),
                                        symbol: Some(name),
                                        detail: Some(
                                            "written in a file that is not valid UTF-8".into(),
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
                            }
                        }
                        Ok(text) if f.language == Language::Go => {
                            if go_tool_ignores(&f.rel) {
                                file.status = FileStatus::BuildExcluded;
                            } else {
                                out.sources.push((
                                    f.language,
                                    id,
                                    f.rel.clone(),
                                    SourceText::from_string(text),
                                ));
                            }
                        }
                        Ok(text) => {
                            out.sources.push((
                                f.language,
                                id,
                                f.rel.clone(),
                                SourceText::from_string(text),
                            ));
                        }
                    },
                }
            }
        }
        facts.files.push(file);
    }
    out
}

/// What discovery learned of a file: its bytes, read now, with its status; or the record of a
/// former read that its status says still holds.
enum Got {
    Read(Read, Stat),
    Recorded(Entry),
}

/// A file's bytes as discovery records them.
struct Read {
    size: u64,
    sha256: [u8; 32],
    lines: u32,
    /// The text; `None` for binary content (a NUL byte in the first 8,000 bytes).
    text: Option<Result<String, std::string::FromUtf8Error>>,
}

impl Read {
    fn of(bytes: Vec<u8>) -> Read {
        let size = bytes.len() as u64;
        let sha256 = Sha256::digest(&bytes).into();
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u32
            + u32::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
        let text = (!bytes[..bytes.len().min(8000)].contains(&0)).then(|| String::from_utf8(bytes));
        Read {
            size,
            sha256,
            lines,
            text,
        }
    }
}

/// The kind of an entry that is neither a file nor a directory, as a diagnostic names it.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_char_device() {
            return "character device";
        }
    }
    if t.is_symlink() {
        "symbolic link, not followed"
    } else {
        "special file"
    }
}

/// A `build/` directory beside a `pubspec.yaml` is Dart build output, not source.
fn is_dart_build_output(dir: &Path) -> bool {
    dir.file_name().is_some_and(|n| n == "build")
        && dir
            .parent()
            .is_some_and(|p| p.join("pubspec.yaml").is_file())
}

/// The go tool ignores `testdata` directories and names starting with `_` or `.`.
fn go_tool_ignores(rel: &str) -> bool {
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    parts
        .iter()
        .any(|p| *p == "testdata" || p.starts_with('_') || p.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Repo;

    #[test]
    fn text_read_later_must_be_the_bytes_discovery_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.go");
        std::fs::write(&path, "package a\n").unwrap();
        let records = dir.path().join("records.bin");
        std::fs::write(&records, b"records").unwrap();
        let later = |sha256: [u8; 32]| {
            SourceText(Repr::Later(Box::new(Later {
                path: path.clone(),
                sha256,
                admission: "// recorded\n".into(),
                records: std::sync::Arc::new(records.clone()),
                text: std::sync::OnceLock::new(),
            })))
        };
        let right = later(Sha256::digest(b"package a\n").into());
        assert_eq!(right.get(), Ok("package a\n"));
        // Admission reads the record, not the file.
        assert_eq!(right.admission(Language::Go), "// recorded\n");
        assert!(records.exists());
        let changed = later([0; 32]);
        let why = changed.get().unwrap_err();
        assert!(why.contains("not the ones its status"), "{why}");
        assert_eq!(changed.as_str(), "");
        // The records that vouched for it are gone.
        assert!(!records.exists());
        std::fs::remove_file(&path).unwrap();
        assert!(later([0; 32]).get().unwrap_err().contains("unreadable"));
    }

    /// Discovers `root` as repository `r` with the given bounds; returns what was found and
    /// the diagnostics' messages as `path: message`.
    fn run(root: &Path, only: Option<&[Language]>, max: usize) -> (Discovered, Vec<String>) {
        let mut facts = FactSet::default();
        let repo = facts.push_repo(Repo {
            name: "r".into(),
            root: root.to_string_lossy().into_owned(),
            commit: None,
            branch: None,
            dirty: None,
            languages: Default::default(),
            derived: false,
        });
        let found = discover_bounded(&mut facts, repo, root, only, max, None);
        let diags = facts
            .diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.path, d.message))
            .collect();
        (found, diags)
    }

    fn paths(d: &Discovered) -> Vec<&str> {
        d.sources.iter().map(|(_, _, p, _)| p.as_str()).collect()
    }

    #[test]
    fn only_the_languages_asked_for_are_compiled() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.go", "b.py", "c.py", "d.ts"] {
            std::fs::write(dir.path().join(f), "x\n").unwrap();
        }
        let (found, diags) = run(dir.path(), Some(&[Language::Python]), MAX_WALK_ENTRIES);
        assert_eq!(paths(&found), ["b.py", "c.py"]);
        assert_eq!(
            diags,
            [
                ": files of languages this repository is not compiled in were left out: 1 go, 1 typescript"
            ]
        );
        let (found, diags) = run(dir.path(), None, MAX_WALK_ENTRIES);
        assert_eq!(paths(&found), ["a.go", "b.py", "c.py", "d.ts"]);
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn the_walk_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.py", "b.py", "c.py", "d.py"] {
            std::fs::write(dir.path().join(f), "x\n").unwrap();
        }
        // The root directory is the first entry.
        let (found, diags) = run(dir.path(), None, 3);
        assert_eq!(paths(&found), ["a.py", "b.py"]);
        assert_eq!(
            diags,
            [": walk stopped after 3 entries; the files past them are not compiled"]
        );
    }

    #[test]
    fn the_filesystem_root_and_virtual_filesystems_are_not_walked() {
        for root in ["/", "/proc", "/sys/kernel", "/dev"] {
            let (found, diags) = run(Path::new(root), None, MAX_WALK_ENTRIES);
            assert!(found.sources.is_empty() && found.configs.is_empty());
            assert_eq!(
                diags,
                [format!(
                    ": {root} is the filesystem root or a virtual filesystem; not walked"
                )]
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn files_that_are_not_regular_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("real.py"), "x = 1\n").unwrap();
        std::fs::create_dir(p.join("sub")).unwrap();
        std::os::unix::fs::symlink(p.join("real.py"), p.join("link.py")).unwrap();
        std::os::unix::fs::symlink(p.join("sub"), p.join("dirlink")).unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(p.join("sub/pipe.py"))
            .status();
        let has_fifo = fifo.is_ok_and(|s| s.success());
        let listener = std::os::unix::net::UnixListener::bind(p.join("sock.py")).unwrap();
        let (found, diags) = run(p, None, MAX_WALK_ENTRIES);
        drop(listener);
        assert_eq!(paths(&found), ["real.py"]);
        let mut expected = vec![
            "dirlink: not a regular file (symbolic link, not followed); skipped",
            "link.py: not a regular file (symbolic link, not followed); skipped",
            "sock.py: not a regular file (socket); skipped",
        ];
        if has_fifo {
            expected.push("sub/pipe.py: not a regular file (FIFO); skipped");
        }
        assert_eq!(diags, expected);
    }
}
