//! Extractions kept between the compiles of one process (`--watch`): a file whose repository,
//! path, language, content digest and build configuration did not change is not parsed again.
//! Extraction sees nothing but its file (SPEC's phase 1), so its result is a function of that
//! key. Entries are kept per scope (the repositories of a compile, by name and root): entries
//! the last compile of a scope did not use are dropped when the next compile of that scope
//! begins, so the cache holds at most one compile's files per scope, and compiles of other
//! repositories in the same process (a server indexing several projects) do not drop them.
//! Off unless [`enable`] was called.

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

/// The entries of one scope.
#[derive(Default)]
struct Scope {
    /// The compile being run; entries not used by the one before are dropped when it begins.
    epoch: u64,
    map: HashMap<Key, Entry>,
}

#[derive(Default)]
struct Store {
    scopes: HashMap<u64, Scope>,
}

/// The scope of a compile of `repos`: their names and roots.
pub(crate) fn scope_of<'a>(repos: impl IntoIterator<Item = (&'a str, &'a str)>) -> u64 {
    let mut h = kivgraph_format::feed::Feed::new();
    for (name, root) in repos {
        h.field(name.as_bytes());
        h.field(root.as_bytes());
    }
    h.digest128() as u64
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

/// Starts a compile of `scope`: drops what the scope's previous compile did not use.
pub(crate) fn begin(scope: u64) {
    if !on() {
        return;
    }
    let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
    let store = guard.get_or_insert_with(Store::default);
    let scope = store.scopes.entry(scope).or_default();
    let last = scope.epoch;
    scope.map.retain(|_, e| e.used >= last);
    scope.epoch += 1;
}

/// A copy of the extraction kept for `key` in `scope`.
pub(crate) fn get<P: Clone + Send + Sync + 'static>(scope: u64, key: &Key) -> Option<P> {
    if !on() {
        return None;
    }
    // The copy is made outside the lock: the walk pool's threads read the store side by side.
    let kept = {
        let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
        let scope = guard.as_mut()?.scopes.get_mut(&scope)?;
        let epoch = scope.epoch;
        let e = scope.map.get_mut(key)?;
        e.used = epoch;
        e.value.clone()
    };
    let v = kept.downcast_ref::<P>().cloned();
    if v.is_some() {
        HITS.fetch_add(1, Ordering::SeqCst);
    }
    v
}

/// Keeps a copy of the extraction of `key` in `scope`.
pub(crate) fn put<P: Clone + Send + Sync + 'static>(scope: u64, key: Key, value: &P) {
    if !on() {
        return;
    }
    let value: Arc<dyn Any + Send + Sync> = Arc::new(value.clone());
    let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
    let scope = guard
        .get_or_insert_with(Store::default)
        .scopes
        .entry(scope)
        .or_default();
    let used = scope.epoch;
    scope.map.insert(key, Entry { used, value });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compile of other repositories in the same process drops nothing of a scope; the
    /// scope's own next compile drops what its last one did not use.
    #[test]
    fn compiles_of_other_repositories_drop_nothing_of_a_scope() {
        enable();
        // Scopes of their own: other tests of this process compile in theirs meanwhile.
        let mine = scope_of([("mine", "/nowhere/mine")]);
        let other = scope_of([("other", "/nowhere/other")]);
        assert_ne!(mine, other);
        let key = |path: &str| Key::new::<u32>("mine", path, Language::Go, [7; 32], None);
        begin(mine);
        put(mine, key("kept.go"), &1u32);
        put(mine, key("unused.go"), &2u32);
        // Other compiles, of other repositories, one after another.
        for _ in 0..3 {
            begin(other);
            put(other, key("kept.go"), &9u32);
        }
        // The next compile of the scope finds both, and uses one.
        begin(mine);
        assert_eq!(get::<u32>(mine, &key("kept.go")), Some(1));
        // Another scope's entries are not this scope's.
        assert_eq!(get::<u32>(mine, &key("nowhere.go")), None);
        // The compile after drops the one the last did not use.
        begin(mine);
        assert_eq!(get::<u32>(mine, &key("kept.go")), Some(1));
        assert_eq!(get::<u32>(mine, &key("unused.go")), None);
        assert_eq!(get::<u32>(other, &key("kept.go")), Some(9));
        disable();
    }
}
