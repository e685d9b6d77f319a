//! Where each repository's sources are on this machine.
//!
//! A generation records no path of the machine that compiled it (SPEC 1.10). The checkout of a
//! repository is, in this order: the one given with `kivgraph --source NAME=PATH`; the one the
//! compiler recorded in the index's `checkouts.json`; the root an older generation recorded
//! itself. Without any, the repository's sources cannot be read (get_source says so) and its
//! path in answers is empty.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use kivgraph_format::Generation;
use kivgraph_format::checkouts::Checkouts;
use kivgraph_format::layout::CHECKOUTS;

static GIVEN: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();

/// What `checkouts.json` held when last read: its path, modification time and length, and when
/// that was checked.
struct Read {
    /// The directory of the generation it was read for: a call for the same generation within
    /// [`RECHECK`] looks nothing up on disk or in paths (a large answer asks once per
    /// repository it names).
    generation: PathBuf,
    path: PathBuf,
    stamp: (Option<SystemTime>, u64),
    checked: Instant,
    checkouts: Checkouts,
}
static RECORDED: Mutex<Option<Read>> = Mutex::new(None);
/// How long a read of `checkouts.json` is trusted before its stamp is looked at again.
const RECHECK: Duration = Duration::from_millis(200);

/// Sets the checkouts given on the command line (`--source NAME=PATH`), once, at start-up.
/// Paths are made absolute against the working directory.
pub fn give(sources: HashMap<String, PathBuf>) {
    let cwd = std::env::current_dir().unwrap_or_default();
    let _ = GIVEN.set(
        sources
            .into_iter()
            .map(|(n, p)| {
                let p = if p.is_absolute() { p } else { cwd.join(p) };
                (n, std::fs::canonicalize(&p).unwrap_or(p))
            })
            .collect(),
    );
}

/// Parses `NAME=PATH`.
pub fn parse_source(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((n, p)) if !n.is_empty() && !p.is_empty() => Ok((n.to_string(), PathBuf::from(p))),
        _ => Err(format!("{s:?} is not NAME=PATH")),
    }
}

/// The checkout of `name` recorded beside the index that holds `g`; the file is read again
/// when it changed.
fn recorded(g: &Generation, name: &str) -> Option<String> {
    let mut guard = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
    let same = guard.as_ref().is_some_and(|r| {
        r.generation.as_os_str() == g.dir.as_os_str() && r.checked.elapsed() < RECHECK
    });
    if !same {
        let index = g.dir.parent()?.parent()?;
        let path = index.join(CHECKOUTS);
        let meta = std::fs::metadata(&path).ok();
        let stamp = (
            meta.as_ref().and_then(|m| m.modified().ok()),
            meta.as_ref().map_or(0, |m| m.len()),
        );
        match guard.as_mut() {
            Some(r) if r.path == path && r.stamp == stamp => {
                r.checked = Instant::now();
                r.generation.clone_from(&g.dir);
            }
            _ => {
                *guard = Some(Read {
                    checkouts: Checkouts::read_file(&path),
                    generation: g.dir.clone(),
                    path,
                    stamp,
                    checked: Instant::now(),
                });
            }
        }
    }
    guard.as_ref()?.checkouts.repositories.get(name).cloned()
}

/// The checkout of repository `repo` (an index into `g`'s repositories), absolute.
pub fn root_of(g: &Generation, repo: u32) -> Option<String> {
    let b = g.graph();
    let r = b.repositories.get(repo as usize)?;
    let name = b.strings.get(r.name.to_native());
    if let Some(p) = GIVEN.get().and_then(|m| m.get(name)) {
        return Some(p.to_string_lossy().into_owned());
    }
    if let Some(root) = recorded(g, name)
        && Path::new(&root).is_absolute()
    {
        return Some(root);
    }
    let own = b.strings.get(r.root.to_native());
    (!own.is_empty()).then(|| own.to_string())
}
