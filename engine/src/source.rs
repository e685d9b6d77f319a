//! Source bytes for `get_source`: reading declaration bodies off the registered repositories.
//!
//! This is the only part of the engine that reads source files, and it reads them only to
//! deliver bytes. Plain Rust results come out; the tool layer renders them as prose.
//!
//! Reading one requested symbol goes in these steps:
//!
//! 1. A symbol whose generation records no line range yields no bytes.
//! 2. The recorded repository-relative path must stay inside its repository: it must not be
//!    empty or absolute and must not contain a `..` segment (a generation may come from an
//!    untrusted artifact).
//! 3. Every component from the repository root down is checked with `symlink_metadata`; a
//!    symbolic link anywhere yields no bytes. The file is then opened and, on Unix, checked to be
//!    the very file that was inspected, so a swap between the check and the open is noticed.
//! 4. The bytes are hashed with SHA-256. When the digest equals the one recorded at index time
//!    (and that one is not all zero) the file is *fresh* and the recorded range is served.
//! 5. Otherwise the file is the authority: the declaration is re-anchored by name (see
//!    [`reanchor`]) and the served range is the recorded span moved by the shift.
//!
//! A file needed by several requested symbols is read and hashed once per call. The assembled
//! bodies are capped at [`CEILING`] bytes; the first body that would pass it stops the answer,
//! and it and every symbol after it count as trimmed.
//!
//! Re-anchoring creates no edge and changes no graph fact: it only decides which lines to serve.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use kivgraph_format::Generation;
use sha2::{Digest, Sha256};

use crate::query::{self, SymbolRow};

/// The byte ceiling on the assembled bodies of one answer.
pub const CEILING: usize = 262_144;
/// The most symbols one call may request.
pub const MAX_SYMBOLS: usize = 20;
/// The widest context window, in lines before and after the declaration.
pub const MAX_CONTEXT_LINES: u32 = 100;
/// Files larger than this are not read. The compiler indexes files of at most 4 MiB, so a
/// file this large has been replaced by something else since it was indexed.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The answer to one `get_source` call.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub snapshot_id: u64,
    pub context_lines: u32,
    /// One row per requested symbol, in request order, up to the ceiling.
    pub rows: Vec<SourceRow>,
    /// Requested symbols not served because of the ceiling: the one that would have passed it
    /// and every one after it.
    pub trimmed: usize,
    /// Source files opened and read by this call (each at most once).
    pub files_read: usize,
}

impl Source {
    /// Rows that carry code.
    pub fn bodies(&self) -> usize {
        self.rows.iter().filter(|r| r.body.is_ok()).count()
    }
}

/// One requested symbol: its code, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceRow {
    pub symbol: SymbolRow,
    pub body: Result<Body, Unavailable>,
}

/// The lines served for one symbol.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// First served line, 1-based, context included.
    pub start_line: u32,
    /// Last served line, context included.
    pub end_line: u32,
    /// `Some(shift)` when the file changed since indexing and the declaration was re-anchored.
    pub reanchored: Option<i64>,
    /// The lines, joined by `\n` and followed by `\n`.
    pub text: String,
}

/// Why a row carries no bytes. `Display` gives the reason the answer prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// The generation records no line range for the symbol.
    NoRange,
    /// The file changed and no line declares the name any more.
    Vanished { name: String },
    /// The file changed and the name appears this many times equally far from its old line.
    Tie { name: String, count: usize },
    /// The file changed and the declaration, moved by the shift, would run past the end.
    NoLongerSpans { name: String, lines: u32 },
    /// The file did not change, yet the recorded range runs past its end.
    PastEnd { start: u32, end: u32, lines: u32 },
    /// The recorded path is absolute, empty or contains `..`.
    Escapes { path: String },
    /// A component of the path (or the repository root itself) is a symbolic link.
    Symlink { path: String, component: String },
    /// The file is too large to read.
    TooLarge { path: String, size: u64 },
    /// The file could not be read.
    Read { path: String, error: String },
    /// No checkout of the repository is known on this machine (SPEC 1.10).
    NoCheckout { repository: String },
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::NoRange => {
                write!(f, "the generation records no line range for this symbol")
            }
            Unavailable::Vanished { name } => write!(
                f,
                "the file changed and no declaration of {name:?} remains in it"
            ),
            Unavailable::Tie { name, count } => write!(
                f,
                "the file changed and {name:?} now appears {count} times equally far from its recorded position"
            ),
            Unavailable::NoLongerSpans { name, lines } => {
                write!(
                    f,
                    "the file changed and {name:?} no longer spans {lines} lines"
                )
            }
            Unavailable::PastEnd { start, end, lines } => write!(
                f,
                "the generation records lines {start}-{end}, past the end of the {lines}-line file"
            ),
            Unavailable::Escapes { path } => write!(f, "path {path:?} escapes its repository"),
            Unavailable::Symlink { path, component } => {
                write!(f, "path {path:?} contains symlink component {component:?}")
            }
            Unavailable::TooLarge { path, size } => write!(
                f,
                "file {path:?} is now {size} bytes, over the {MAX_FILE_BYTES}-byte read limit"
            ),
            Unavailable::Read { path, error } => {
                write!(f, "file {path:?} could not be read: {error}")
            }
            Unavailable::NoCheckout { repository } => write!(
                f,
                "no checkout of repository {repository:?} is known on this machine (compile it \
                 here, or serve with --source {repository}=PATH)"
            ),
        }
    }
}

/// A file as read for this call.
struct Loaded {
    bytes: Vec<u8>,
    /// Byte range of each line, without its `\n`.
    lines: Vec<(usize, usize)>,
    fresh: bool,
}

impl Loaded {
    fn new(bytes: Vec<u8>, recorded: &[u8; 32]) -> Loaded {
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        let fresh = *recorded != [0; 32] && digest == *recorded;
        let lines = line_ranges(&bytes);
        Loaded {
            bytes,
            lines,
            fresh,
        }
    }

    fn line(&self, n: u32) -> &[u8] {
        let (a, b) = self.lines[n as usize - 1];
        &self.bytes[a..b]
    }

    /// Lines `first..=last` (1-based, within the file), joined by `\n` and followed by `\n`.
    fn text(&self, first: u32, last: u32) -> String {
        let start = self.lines[first as usize - 1].0;
        let end = self.lines[last as usize - 1].1;
        let mut text = String::from_utf8_lossy(&self.bytes[start..end]).into_owned();
        text.push('\n');
        text
    }
}

/// Byte ranges of the lines of `bytes`: split at `\n`, with no empty line after a final `\n`.
/// The count matches the `lines` column of the generation's files.
fn line_ranges(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push((start, bytes.len()));
    }
    out
}

/// Reads the source of `ids` (symbol ids of `g`, in request order) with `context_lines` lines
/// of context on each side.
pub fn source(g: &Generation, ids: &[u32], context_lines: u32) -> Source {
    let b = g.graph();
    let mut files: HashMap<u32, Result<Rc<Loaded>, Unavailable>> = HashMap::new();
    let mut files_read = 0;
    let mut rows = Vec::with_capacity(ids.len());
    let mut budget = CEILING;
    let mut trimmed = 0;
    for (i, &id) in ids.iter().enumerate() {
        let symbol = query::symbol_row(g, id);
        let rec = &b.symbols[id as usize];
        let file_index = rec.file.to_native();
        let body = if symbol.start_line == 0 || symbol.end_line < symbol.start_line {
            Err(Unavailable::NoRange)
        } else {
            let loaded = files
                .entry(file_index)
                .or_insert_with(|| {
                    let file = &b.files[file_index as usize];
                    let repo = file.repository.to_native();
                    let root = crate::checkouts::root_of(g, repo).ok_or_else(|| {
                        Unavailable::NoCheckout {
                            repository: b
                                .strings
                                .get(b.repositories[repo as usize].name.to_native())
                                .to_string(),
                        }
                    })?;
                    let rel = b.strings.get(file.path.to_native());
                    let bytes = read_in_repository(Path::new(&root), rel)?;
                    files_read += 1;
                    Ok(Rc::new(Loaded::new(bytes, &file.sha256)))
                })
                .clone();
            loaded.and_then(|f| serve(&f, &symbol, context_lines))
        };
        if let Ok(body) = &body {
            if body.text.len() > budget {
                trimmed = ids.len() - i;
                break;
            }
            budget -= body.text.len();
        }
        rows.push(SourceRow { symbol, body });
    }
    Source {
        snapshot_id: g.id,
        context_lines,
        rows,
        trimmed,
        files_read,
    }
}

/// The served lines of one symbol in a read file.
fn serve(f: &Loaded, s: &SymbolRow, context_lines: u32) -> Result<Body, Unavailable> {
    let total = f.lines.len() as u32;
    let (start, end, reanchored) = if f.fresh {
        if s.end_line > total {
            return Err(Unavailable::PastEnd {
                start: s.start_line,
                end: s.end_line,
                lines: total,
            });
        }
        (s.start_line, s.end_line, None)
    } else {
        let lines: Vec<&[u8]> = (1..=total).map(|n| f.line(n)).collect();
        let shift = reanchor(&lines, &s.name, s.start_line, s.end_line)?;
        let moved = |l: u32| (i64::from(l) + shift) as u32;
        (moved(s.start_line), moved(s.end_line), Some(shift))
    };
    let first = start.saturating_sub(context_lines).max(1);
    let last = end.saturating_add(context_lines).min(total);
    Ok(Body {
        start_line: first,
        end_line: last,
        reanchored,
        text: f.text(first, last),
    })
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `line` holds a declaring occurrence of `name`: the name delimited by bytes that are
/// not identifier bytes (`[A-Za-z0-9_]`), on a line that is not blank and, once trimmed, starts
/// with neither `//` nor `*`.
pub fn declares(line: &[u8], name: &str) -> bool {
    let name = name.as_bytes();
    let trimmed = line.trim_ascii();
    if name.is_empty()
        || trimmed.is_empty()
        || trimmed.starts_with(b"//")
        || trimmed.starts_with(b"*")
    {
        return false;
    }
    let mut from = 0;
    while from + name.len() <= line.len() {
        let Some(at) = line[from..]
            .windows(name.len())
            .position(|w| w == name)
            .map(|p| p + from)
        else {
            return false;
        };
        let before = at.checked_sub(1).map(|i| line[i]);
        let after = line.get(at + name.len()).copied();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// Finds the declaration of `name` in a changed file and returns the line shift from the
/// recorded `start` (1-based). `lines` are the file's lines. The nearest declaring line wins;
/// two equally near refuse, and so does a shift that would move `end` past the last line.
pub fn reanchor(lines: &[&[u8]], name: &str, start: u32, end: u32) -> Result<i64, Unavailable> {
    let mut best: Option<(u64, i64)> = None;
    let mut ties = 0;
    for (i, line) in lines.iter().enumerate() {
        if !declares(line, name) {
            continue;
        }
        let shift = (i as i64 + 1) - i64::from(start);
        let distance = shift.unsigned_abs();
        match best {
            Some((d, _)) if d < distance => {}
            Some((d, _)) if d == distance => ties += 1,
            _ => {
                best = Some((distance, shift));
                ties = 1;
            }
        }
    }
    let Some((_, shift)) = best else {
        return Err(Unavailable::Vanished { name: name.into() });
    };
    if ties > 1 {
        return Err(Unavailable::Tie {
            name: name.into(),
            count: ties,
        });
    }
    if i64::from(end) + shift > lines.len() as i64 {
        return Err(Unavailable::NoLongerSpans {
            name: name.into(),
            lines: end - start + 1,
        });
    }
    Ok(shift)
}

/// Reads `rel` under `root` without following a symbolic link and without leaving the root.
pub fn read_in_repository(root: &Path, rel: &str) -> Result<Vec<u8>, Unavailable> {
    let escapes = || Unavailable::Escapes { path: rel.into() };
    let read_error = |e: std::io::Error| Unavailable::Read {
        path: rel.into(),
        error: e.to_string(),
    };
    let relative = Path::new(rel);
    if rel.is_empty() || rel.contains('\0') || relative.is_absolute() || rel.starts_with('/') {
        return Err(escapes());
    }
    // The compiler records the root resolved (SPEC 4.4), so a root that resolves elsewhere now
    // has a symbolic link on it or above it: reading there would leave the indexed tree.
    if std::fs::canonicalize(root).map_err(read_error)? != root {
        let link = root
            .ancestors()
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .find(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink()))
            .unwrap_or(root);
        return Err(Unavailable::Symlink {
            path: rel.into(),
            component: link.display().to_string(),
        });
    }
    let mut path = PathBuf::from(root);
    let mut shown = PathBuf::new();
    let mut last = None;
    for component in relative.components() {
        match component {
            Component::Normal(c) => {
                path.push(c);
                shown.push(c);
            }
            Component::CurDir => continue,
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(escapes());
            }
        }
        let meta = std::fs::symlink_metadata(&path).map_err(read_error)?;
        if meta.file_type().is_symlink() {
            return Err(Unavailable::Symlink {
                path: rel.into(),
                component: shown.to_string_lossy().into_owned(),
            });
        }
        last = Some(meta);
    }
    let Some(meta) = last else {
        return Err(escapes());
    };
    if !meta.is_file() {
        return Err(Unavailable::Read {
            path: rel.into(),
            error: "not a regular file".into(),
        });
    }
    let file = std::fs::File::open(&path).map_err(read_error)?;
    let opened = file.metadata().map_err(read_error)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (opened.dev(), opened.ino()) != (meta.dev(), meta.ino()) {
            return Err(Unavailable::Read {
                path: rel.into(),
                error: "the file was replaced while it was being opened".into(),
            });
        }
    }
    if opened.len() > MAX_FILE_BYTES {
        return Err(Unavailable::TooLarge {
            path: rel.into(),
            size: opened.len(),
        });
    }
    let mut bytes = Vec::with_capacity(opened.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Unavailable::TooLarge {
            path: rel.into(),
            size: bytes.len() as u64,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&[u8]> {
        text.split('\n').map(str::as_bytes).collect()
    }

    #[test]
    fn declaring_occurrences_are_delimited_and_skip_comments() {
        assert!(declares(b"func Area() float64 {", "Area"));
        assert!(declares(b"\treturn c.Area()", "Area"));
        assert!(declares(b"const Pi = math.Pi", "Pi"));
        assert!(!declares(b"func AreaOf() {", "Area"));
        assert!(!declares(b"func fastArea() {", "Area"));
        assert!(!declares(b"func Area_() {", "Area"));
        assert!(!declares(b"// Area returns the area", "Area"));
        assert!(!declares(b"   * Area in a block comment", "Area"));
        assert!(!declares(b"    ", "Area"));
        assert!(!declares(b"", "Area"));
        assert!(!declares(b"func X() {}", ""));
        // The second occurrence is delimited even though the first is not.
        assert!(declares(b"AreaX Area", "Area"));
    }

    #[test]
    fn reanchoring_picks_the_nearest_line_and_refuses_ties() {
        let file = lines("package p\n\nfunc F() {\n}\n\nfunc G() {\n\tF()\n}");
        assert_eq!(reanchor(&file, "F", 3, 4), Ok(0));
        assert_eq!(reanchor(&file, "F", 1, 2), Ok(2));
        assert_eq!(reanchor(&file, "G", 4, 6), Ok(2));
        // Lines 3 and 7 are both two lines from line 5.
        assert_eq!(
            reanchor(&file, "F", 5, 5),
            Err(Unavailable::Tie {
                name: "F".into(),
                count: 2
            })
        );
        assert_eq!(
            reanchor(&file, "H", 3, 4),
            Err(Unavailable::Vanished { name: "H".into() })
        );
        // G at line 6, recorded as lines 2-8: shifted by 4 it would end at line 12 of 8.
        assert_eq!(
            reanchor(&file, "G", 2, 8),
            Err(Unavailable::NoLongerSpans {
                name: "G".into(),
                lines: 7
            })
        );
    }

    #[test]
    fn reasons_read_as_the_surface_spells_them() {
        assert_eq!(
            Unavailable::NoRange.to_string(),
            "the generation records no line range for this symbol"
        );
        assert_eq!(
            Unavailable::Tie {
                name: "F".into(),
                count: 2
            }
            .to_string(),
            "the file changed and \"F\" now appears 2 times equally far from its recorded position"
        );
        assert_eq!(
            Unavailable::NoLongerSpans {
                name: "F".into(),
                lines: 3
            }
            .to_string(),
            "the file changed and \"F\" no longer spans 3 lines"
        );
        assert_eq!(
            Unavailable::Vanished { name: "F".into() }.to_string(),
            "the file changed and no declaration of \"F\" remains in it"
        );
    }

    /// A temporary directory holding the repository `repo` with one file, `a/f.go`.
    fn repository_with_a_file() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/f.go"), "package a\n").unwrap();
        (dir, root)
    }

    #[test]
    fn paths_never_leave_the_repository() {
        let (dir, root) = repository_with_a_file();
        std::fs::write(dir.path().join("secret.go"), "secret\n").unwrap();
        assert_eq!(read_in_repository(&root, "a/f.go").unwrap(), b"package a\n");
        for bad in ["../secret.go", "a/../../secret.go", "/etc/passwd", ""] {
            assert_eq!(
                read_in_repository(&root, bad),
                Err(Unavailable::Escapes { path: bad.into() }),
                "{bad}"
            );
        }
        assert!(matches!(
            read_in_repository(&root, "a"),
            Err(Unavailable::Read { .. })
        ));
        assert!(matches!(
            read_in_repository(&root, "a/missing.go"),
            Err(Unavailable::Read { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_are_never_followed() {
        let (dir, root) = repository_with_a_file();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("a/f.go"), root.join("a/g.go")).unwrap();
        assert_eq!(
            read_in_repository(&root, "link/f.go"),
            Err(Unavailable::Symlink {
                path: "link/f.go".into(),
                component: "link".into()
            })
        );
        assert_eq!(
            read_in_repository(&root, "a/g.go"),
            Err(Unavailable::Symlink {
                path: "a/g.go".into(),
                component: "a/g.go".into()
            })
        );
        let alias = dir.path().join("alias");
        std::os::unix::fs::symlink(&root, &alias).unwrap();
        assert!(matches!(
            read_in_repository(&alias, "a/f.go"),
            Err(Unavailable::Symlink { .. })
        ));
    }

    /// A directory above the root that became a symbolic link after indexing would send reads
    /// to another tree: refused, naming the link.
    #[test]
    fn a_symbolic_link_above_the_root_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap().join("base");
        let root = base.join("repo");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/f.go"), "package a\n").unwrap();
        assert!(read_in_repository(&root, "a/f.go").is_ok());
        // The same layout elsewhere, with other bytes, and `base` turned into a link to it.
        let elsewhere = base.with_file_name("elsewhere");
        std::fs::create_dir_all(elsewhere.join("repo/a")).unwrap();
        std::fs::write(elsewhere.join("repo/a/f.go"), "package evil\n").unwrap();
        std::fs::rename(&base, base.with_file_name("old")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &base).unwrap();
        assert_eq!(
            read_in_repository(&root, "a/f.go"),
            Err(Unavailable::Symlink {
                path: "a/f.go".into(),
                component: base.display().to_string(),
            })
        );
    }

    #[test]
    fn lines_split_like_the_generation_counts_them() {
        assert_eq!(line_ranges(b""), vec![]);
        assert_eq!(line_ranges(b"a\n"), vec![(0, 1)]);
        assert_eq!(line_ranges(b"a\nb"), vec![(0, 1), (2, 3)]);
        assert_eq!(line_ranges(b"a\n\n"), vec![(0, 1), (2, 2)]);
    }
}
