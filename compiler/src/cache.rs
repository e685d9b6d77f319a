//! Extractions kept between the compiles of one process (`--watch`): a file whose repository,
//! path, language, content digest and build configuration did not change is not parsed again.
//! Extraction sees nothing but its file (SPEC's phase 1), so its result is a function of that
//! key. Entries the last compile did not use are dropped when the next one begins, so the cache
//! holds at most one compile's files. Off unless [`enable`] was called.

use std::any::{Any, TypeId};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use kivgraph_format::Language;

/// What an extraction depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) parsed: TypeId,
    pub(crate) repo: String,
    pub(crate) path: String,
    pub(crate) language: Language,
    pub(crate) sha256: [u8; 32],
    pub(crate) features: Option<Arc<BTreeSet<String>>>,
}

impl Key {
    pub(crate) fn new<P: 'static>(
        repo: &str,
        path: &str,
        language: Language,
        sha256: [u8; 32],
        features: Option<Arc<BTreeSet<String>>>,
    ) -> Key {
        Key {
            parsed: TypeId::of::<P>(),
            repo: repo.to_string(),
            path: path.to_string(),
            language,
            sha256,
            features,
        }
    }
}

struct Entry {
    used: u64,
    value: Arc<dyn Any + Send + Sync>,
}

#[derive(Default)]
struct Store {
    /// The compile being run; entries not used by the one before are dropped when it begins.
    epoch: u64,
    map: HashMap<Key, Entry>,
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static HITS: AtomicU64 = AtomicU64::new(0);
static STORE: Mutex<Option<Store>> = Mutex::new(None);

/// Keeps extractions from now on, in this process.
pub fn enable() {
    ENABLED.store(true, Ordering::SeqCst);
}

/// Stops keeping extractions and drops the ones kept.
pub fn disable() {
    ENABLED.store(false, Ordering::SeqCst);
    *STORE.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// How many extractions were answered from the cache in this process.
pub fn hits() -> u64 {
    HITS.load(Ordering::SeqCst)
}

fn on() -> bool {
    ENABLED.load(Ordering::SeqCst)
}

/// Starts a compile: drops what the previous compile did not use.
pub(crate) fn begin() {
    if !on() {
        return;
    }
    let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
    let store = guard.get_or_insert_with(Store::default);
    let last = store.epoch;
    store.map.retain(|_, e| e.used >= last);
    store.epoch += 1;
}

/// A copy of the extraction kept for `key`.
pub(crate) fn get<P: Clone + Send + Sync + 'static>(key: &Key) -> Option<P> {
    if !on() {
        return None;
    }
    // The copy is made outside the lock: the walk pool's threads read the store side by side.
    let kept = {
        let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
        let store = guard.as_mut()?;
        let epoch = store.epoch;
        let e = store.map.get_mut(key)?;
        e.used = epoch;
        e.value.clone()
    };
    let v = kept.downcast_ref::<P>().cloned();
    if v.is_some() {
        HITS.fetch_add(1, Ordering::SeqCst);
    }
    v
}

/// Keeps a copy of the extraction of `key`.
pub(crate) fn put<P: Clone + Send + Sync + 'static>(key: Key, value: &P) {
    if !on() {
        return;
    }
    let value: Arc<dyn Any + Send + Sync> = Arc::new(value.clone());
    let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
    let store = guard.get_or_insert_with(Store::default);
    let used = store.epoch;
    store.map.insert(key, Entry { used, value });
}
