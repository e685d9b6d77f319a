//! The published generation, held open and swapped atomically when a newer one appears.
//!
//! Every query takes an `Arc<Generation>` snapshot first and finishes on it, so a swap never
//! changes an answer half-way. The swap check is one small read of `CURRENT` per request: a
//! newer id opens (checks the headers of) the new generation; if that fails, the previous generation
//! keeps serving, or, when none is loaded, the newest older generation that opens (SPEC.md
//! section 1.7). What went wrong is kept as the store's [`Problem`], which `graph_status` and
//! the `INDEX_NOT_READY` message report, and is said once on stderr.
//!
//! A served generation's mapped files are leased where the system allows ([`crate::lease`]): a
//! writer that opens one of them waits while the store lets go of it. Where leases are not
//! available, a change in place is noticed on the next request (the files' size and times) and
//! the generation is dropped before it is read again.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use kivgraph_format::{FormatError, Generation, IndexDir};

use crate::lease::{self, Lease};

/// How many generations older than the one `CURRENT` names are tried when it does not open
/// and nothing is served yet.
const FALLBACK_TRIES: usize = 4;

/// Why the generation `CURRENT` names is not the one served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The generation that could not be served, when `CURRENT` named one.
    pub generation: Option<u64>,
    /// What is wrong, and with which file.
    pub message: String,
}

impl Problem {
    /// The problem in a sentence with the way out.
    pub fn explain(&self) -> String {
        let what = match self.generation {
            Some(id) => format!("generation {id:06} cannot be served: {}", self.message),
            None => format!("the index cannot be read: {}", self.message),
        };
        format!(
            "{what}; `kivgraph-compile verify` names the damage, and publishing a new \
             generation (index_project, or `kivgraph index --full`) replaces it"
        )
    }
}

/// The served generation and its leases.
#[derive(Debug)]
struct Served {
    generation: Arc<Generation>,
    /// Whether the mapped files are leased (then a breaking lease is what says "let go").
    leased: bool,
}

#[derive(Debug, Default)]
struct State {
    served: Option<Served>,
    problem: Option<Problem>,
    /// The generations that failed to open and what their directories looked like then, so a
    /// broken generation is tried again only once something in it changed.
    failed: std::collections::HashMap<u64, DirStamp>,
}

/// Sizes and modification times of a generation's files: enough to notice a repair.
type DirStamp = Vec<(String, u64, Option<std::time::SystemTime>)>;

fn dir_stamp(dir: &Path) -> DirStamp {
    let mut stamp: DirStamp = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((
                e.file_name().to_string_lossy().into_owned(),
                meta.len(),
                meta.modified().ok(),
            ))
        })
        .collect();
    stamp.sort();
    stamp
}

pub struct Store {
    index: IndexDir,
    state: Arc<Mutex<State>>,
    /// Kept alive for as long as the store: the lease watcher calls it when a lease breaks.
    _on_break: Arc<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("index", &self.index)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Store {
    /// Opens the index; a missing or unreadable generation is not an error here, the server
    /// starts empty and keeps checking.
    pub fn open(index: IndexDir) -> Store {
        let state = Arc::new(Mutex::new(State::default()));
        let weak = Arc::downgrade(&state);
        let on_break: Arc<dyn Fn() + Send + Sync> = Arc::new(move || {
            if let Some(state) = weak.upgrade() {
                let mut s = lock(&state);
                let breaking = s.served.as_ref().and_then(|served| {
                    let files = served.generation.mapped_files();
                    let (name, _) = files
                        .into_iter()
                        .find(|(_, f)| served.leased && lease::breaking(f))?;
                    Some((served.generation.id, name))
                });
                if let Some((id, name)) = breaking {
                    // Dropping our handle lets the writer go on once requests in flight finish.
                    s.served = None;
                    s.problem = Some(Problem {
                        generation: Some(id),
                        message: format!("{name} was opened for writing by another process"),
                    });
                }
            }
        });
        lease::listen(&on_break);
        let store = Store {
            index,
            state,
            _on_break: on_break,
        };
        store.refresh();
        store
    }

    pub fn index(&self) -> &IndexDir {
        &self.index
    }

    /// What keeps the generation `CURRENT` names from being served, if anything.
    pub fn problem(&self) -> Option<Problem> {
        lock(&self.state).problem.clone()
    }

    /// Re-reads `CURRENT` and swaps to a newer generation if there is one; drops the served one
    /// if its files changed in place. Returns whether the served generation changed.
    pub fn refresh(&self) -> bool {
        let mut s = lock(&self.state);
        let before = s.served.as_ref().map(|g| g.generation.id);
        if let Some(served) = &s.served
            && let Err(change) = served.generation.check_unchanged()
        {
            let id = served.generation.id;
            s.served = None;
            // A fallback's damage does not hide why the newer generation is not served.
            if s.problem.as_ref().is_none_or(|p| p.generation <= Some(id)) {
                self.report(&mut s, Some(id), change);
            }
        }
        match self.index.current() {
            Ok(None) => {}
            Ok(Some(id)) => self.follow(&mut s, id),
            Err(e) => {
                self.report(&mut s, None, e.to_string());
                if s.served.is_none() {
                    self.fall_back(&mut s, u64::MAX);
                }
            }
        }
        s.served.as_ref().map(|g| g.generation.id) != before
    }

    /// Serves generation `id` if it is newer than the served one and opens.
    fn follow(&self, s: &mut State, id: u64) {
        let loaded = s.served.as_ref().map(|g| g.generation.id);
        if loaded.is_some_and(|l| l >= id) {
            if loaded == Some(id) {
                s.problem = None;
            }
            return;
        }
        if self.try_open(s, id) {
            s.problem = None;
        } else if s.served.is_none() {
            self.fall_back(s, id);
        }
    }

    /// Opens and serves generation `id`; false when it does not open (the problem is kept,
    /// unless the generation failed before and nothing in its directory changed since).
    fn try_open(&self, s: &mut State, id: u64) -> bool {
        let dir = self.index.generation_dir(id);
        let stamp = dir_stamp(&dir);
        if s.failed.get(&id) == Some(&stamp) {
            return false;
        }
        match open(&dir) {
            Ok(served) => {
                s.served = Some(served);
                s.failed.remove(&id);
                true
            }
            Err(e) => {
                s.failed.insert(id, stamp);
                if s.problem.as_ref().is_none_or(|p| p.generation <= Some(id)) {
                    self.report(s, Some(id), e.to_string());
                }
                false
            }
        }
    }

    /// Serves the newest generation older than `below` that opens, if any; the problem that
    /// made it necessary stays on record.
    fn fall_back(&self, s: &mut State, below: u64) {
        let dir = self.index.generations();
        let mut ids: Vec<u64> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_str()
                    .and_then(kivgraph_format::layout::parse_generation_name)
            })
            .filter(|&id| id < below)
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        for id in ids.into_iter().take(FALLBACK_TRIES) {
            if self.try_open(s, id) {
                eprintln!(
                    "{{\"level\":\"warn\",\"msg\":\"serving an older generation\",\"generation\":{id}}}"
                );
                return;
            }
        }
    }

    /// Records a problem, saying it on stderr the first time.
    fn report(&self, s: &mut State, generation: Option<u64>, message: String) {
        let problem = Problem {
            generation,
            message,
        };
        if s.problem.as_ref() != Some(&problem) {
            eprintln!(
                "{{\"level\":\"warn\",\"msg\":\"generation not served\",\"error\":{:?}}}",
                problem.explain()
            );
        }
        s.problem = Some(problem);
    }

    /// The generation to answer from, after a freshness check; `None` when nothing can be
    /// served ([`Store::problem`] then says why, when something is wrong).
    pub fn snapshot(&self) -> Option<Arc<Generation>> {
        self.refresh();
        lock(&self.state)
            .served
            .as_ref()
            .map(|g| Arc::clone(&g.generation))
    }
}

/// Opens a generation and leases its mapped files. Each lease is taken as soon as its file is
/// open, before any byte of it is read, so a writer cannot change what is being checked; a
/// file someone has open for writing is not served (its bytes may be changing), and neither is
/// one whose lease a writer started to break while it was being checked (the writer is let go).
fn open(dir: &Path) -> Result<Served, FormatError> {
    let leased = std::cell::Cell::new(true);
    let generation = Generation::open_dir_guarded(dir, |name, file| match lease::take(file) {
        Lease::Held => Ok(()),
        Lease::Unsupported => {
            leased.set(false);
            Ok(())
        }
        Lease::Writing => Err(FormatError::corrupt(
            name,
            "is open for writing by another process",
        )),
    })?;
    let leased = leased.get();
    if leased
        && let Some((name, _)) = generation
            .mapped_files()
            .into_iter()
            .find(|(_, f)| lease::breaking(f))
    {
        return Err(FormatError::corrupt(
            name,
            "is being opened for writing by another process",
        ));
    }
    Ok(Served {
        generation: Arc::new(generation),
        leased,
    })
}
