//! Phase 2 alike in Python, TypeScript and Dart: the symbols of declarations, the modules a
//! module's imports reach, and the name-only candidates for a member of an unknown receiver.

use crate::hash::{HashMap, HashSet};
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::hash::Hash;

use kivgraph_format::Language;

use crate::emit::Site;
use crate::facts::{FactSet, FileId, RepoId};
use crate::lang::{UnionHit, UnionPart, union_hit};

/// Where something written in `language` occurs: `file` of `repo`, at `line` and `column`.
pub(crate) fn site_in(
    (repo, file, language): (RepoId, FileId, Language),
    (line, column): (u32, u32),
) -> Site {
    Site {
        repo,
        file,
        line,
        column,
        language,
    }
}

/// The symbol of declaration `$d` (a phase 1 `Decl` with `name`, `qn`, `kind`, `signature` and
/// `span`) declared at [`crate::lang::Home`] `$home`, exported as `$exported` says.
macro_rules! decl_symbol {
    ($home:expr, $d:expr, $exported:expr) => {
        $home.symbol(
            $d.name.clone(),
            $d.qn.clone(),
            $d.kind,
            $exported,
            $d.signature.clone(),
            $d.span,
        )
    };
}
pub(crate) use decl_symbol;

/// The other modules than `m` among `targets` (what module `m`'s imports resolve to), each
/// once, in order.
pub(crate) fn other_modules(m: usize, targets: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let set: BTreeSet<usize> = targets.into_iter().filter(|&t| t != m).collect();
    set.into_iter().collect()
}

/// What a member `name` of an unknown receiver in module `m` may be, by name only: the members
/// of that name `member_index` lists for module `m`, then for each module it imports
/// (`imported`), as (module, declaration).
pub(crate) fn name_only_candidates(
    member_index: &[HashMap<String, Vec<usize>>],
    imported: &[Vec<usize>],
    m: usize,
    name: &str,
) -> Vec<(usize, usize)> {
    let mut cands: Vec<(usize, usize)> = Vec::new();
    for sm in std::iter::once(m).chain(imported[m].iter().copied()) {
        if let Some(v) = member_index[sm].get(name) {
            cands.extend(v.iter().map(|&d| (sm, d)));
        }
    }
    cands
}

/// A member looked up through a type and its bases.
pub(crate) enum Lookup {
    /// Declaration `.1` of module `.0`.
    Found(usize, usize),
    /// Not declared; `closed` when every type searched is fully known (compiled, every base
    /// followed, nothing that adds members at run time).
    NotFound { closed: bool },
}

/// The members a receiver has of one name; `B` is what a name binds to in the language (the
/// answer of a module receiver).
pub(crate) enum Hit<B> {
    /// The declarations found, and whether the binding is exact: the receiver's type leaves no
    /// other choice (for a written union, only one member type declares the name and every
    /// other one is fully known).
    Decls(Vec<(usize, usize)>, bool),
    /// What the name binds to in a module receiver.
    Bound(B),
    External,
    NotFound {
        closed: bool,
    },
    Unknown,
}

impl<B> From<Lookup> for Hit<B> {
    /// A member found through a type's declarations binds exactly.
    fn from(l: Lookup) -> Hit<B> {
        match l {
            Lookup::Found(m, d) => Hit::Decls(vec![(m, d)], true),
            Lookup::NotFound { closed } => Hit::NotFound { closed },
        }
    }
}

impl<B> Hit<B> {
    /// What a member name denotes on a value of a written union type, from the answer of each
    /// member type: see [`union_hit`]; a name no member type declares is unknown while some
    /// member type's members are unknown, else (some is a library type) external.
    pub(crate) fn of_union(parts: impl IntoIterator<Item = Hit<B>>) -> Hit<B> {
        let mut unknown = false;
        let answers: Vec<UnionPart<(usize, usize)>> = parts
            .into_iter()
            .map(|h| match h {
                Hit::Decls(v, exact) => UnionPart::Declares(v, exact),
                Hit::NotFound { closed: true } => UnionPart::Lacks,
                Hit::External => UnionPart::Unknown,
                _ => {
                    unknown = true;
                    UnionPart::Unknown
                }
            })
            .collect();
        match union_hit(answers) {
            UnionHit::Found(v, exact) => Hit::Decls(v, exact),
            UnionHit::Lacks => Hit::NotFound { closed: true },
            // A member type whose members are unknown may declare it: not a library's member.
            UnionHit::Unknown if unknown => Hit::Unknown,
            UnionHit::Unknown => Hit::External,
        }
    }
}

/// Modules a run of [`bind_in_runs`] takes where TypeScript and Python bind references.
pub(crate) const MODULES_PER_TASK: usize = 64;

/// The modules a run takes; tests set other numbers to check that the facts do not depend on it,
/// one test at a time ([`PER_TASK_TESTS`]).
#[cfg(test)]
pub(crate) static PER_TASK: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(MODULES_PER_TASK);
/// Held by a test while it sets [`PER_TASK`].
#[cfg(test)]
pub(crate) static PER_TASK_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// [`MODULES_PER_TASK`], or what a test set.
pub(crate) fn modules_per_task() -> usize {
    #[cfg(test)]
    return PER_TASK.load(std::sync::atomic::Ordering::Relaxed).max(1);
    #[cfg(not(test))]
    MODULES_PER_TASK
}

/// Binds modules `0..count` in runs of `per_task` (a fixed number, so that which modules share a
/// run's memos does not depend on the threads there are), each run on a thread of the pool by
/// `bind` into facts of its own, and appends what every run emitted to `facts` in module order,
/// as one loop over the modules in turn would have. A run adds edges, unresolved records, package
/// edges and diagnostics only.
pub(crate) fn bind_in_runs(
    facts: &mut FactSet,
    count: usize,
    per_task: usize,
    bind: impl Fn(&mut FactSet, &[usize]) + Sync,
) {
    use rayon::prelude::*;
    let modules: Vec<usize> = (0..count).collect();
    let runs: Vec<FactSet> = modules
        .par_chunks(per_task.max(1))
        .map(|run| {
            let mut out = FactSet::default();
            bind(&mut out, run);
            out
        })
        .collect();
    for out in runs {
        debug_assert!(out.symbols.is_empty() && out.packages.is_empty() && out.files.is_empty());
        facts.edges.extend(out.edges);
        facts.unresolved.extend(out.unresolved);
        facts.package_edges.extend(out.package_edges);
        facts.diagnostics.extend(out.diagnostics);
    }
}

/// The memo of a recursive search through modules (attributes, exports) that cuts cycles and
/// runaway chains: a key met again while it is being computed, or too deep, is `missing`, and
/// a result computed past such a cut depends on where the search started, so it is not kept.
/// A value the memo holds is then the one a search from its own key gives, and an answer does
/// not depend on which searches ran before it: not on which module asked first, nor on which
/// modules share a memo (TypeScript and Python bind runs of modules on several threads, each
/// run with a memo of its own). Keeping what a cut search found made a name that `b` re-exports
/// through a cycle bind to one of its two declarations when `a` had been asked first, and to
/// both otherwise. A value kept is reused only where a search begun at that depth would not
/// reach the depth bound either (its reach is kept with it).
pub(crate) struct CutMemo<K, V> {
    /// Each value kept, with its reach: how much deeper than where it began its search checked
    /// the depth bound.
    memo: RefCell<HashMap<K, (V, usize)>>,
    busy: RefCell<HashSet<K>>,
    cut: Cell<bool>,
    /// Lookups not answered by the memo (computed, or cut).
    misses: Cell<u64>,
}

/// The depth bound of a resolver's recursive searches, and the deepest depth any of them
/// checked against it since the innermost search whose value may be kept began: a kept value's
/// reach ([`CutMemo`], TypeScript's receiver memo).
pub(crate) struct DepthBound {
    bound: usize,
    deepest: Cell<usize>,
}

impl DepthBound {
    pub(crate) fn new(bound: usize) -> DepthBound {
        DepthBound {
            bound,
            deepest: Cell::new(0),
        }
    }

    /// Whether a search at `depth` is past the bound; notes the depth checked.
    pub(crate) fn too_deep(&self, depth: usize) -> bool {
        self.note(depth);
        depth > self.bound
    }

    /// Notes that a search checked the bound `at` deep.
    pub(crate) fn note(&self, at: usize) {
        if at > self.deepest.get() {
            self.deepest.set(at);
        }
    }

    /// Whether a value whose search checked the bound `reach` levels deeper than its start is
    /// what a search begun at `depth` gives (it stays within the bound); using it counts as
    /// reaching that deep.
    pub(crate) fn reuse(&self, depth: usize, reach: usize) -> bool {
        let within = depth + reach <= self.bound;
        if within {
            self.note(depth + reach);
        }
        within
    }

    /// Runs `search`, begun at `depth`; gives its value and the deepest depth it checked.
    pub(crate) fn measure<T>(&self, depth: usize, search: impl FnOnce() -> T) -> (T, usize) {
        let outer = self.deepest.replace(depth);
        let value = search();
        let deepest = self.deepest.get();
        self.deepest.set(outer.max(deepest));
        (value, deepest)
    }

    /// Whether a search that checked the bound `deepest` deep never met it.
    pub(crate) fn within(&self, deepest: usize) -> bool {
        deepest <= self.bound
    }
}

impl<K, V> Default for CutMemo<K, V> {
    fn default() -> Self {
        CutMemo {
            memo: RefCell::new(HashMap::default()),
            busy: RefCell::new(HashSet::default()),
            cut: Cell::new(false),
            misses: Cell::new(0),
        }
    }
}

impl<K: Hash + Eq + Clone, V: Clone + PartialEq> CutMemo<K, V> {
    /// How many lookups the memo did not answer so far: a search during which this does not
    /// move read only values the memo had, which it keeps.
    pub(crate) fn misses(&self) -> u64 {
        self.misses.get()
    }

    /// Records a cut met by the search on its way to another memo's key (a chain too deep):
    /// the result being computed is not kept.
    pub(crate) fn cut(&self) {
        self.cut.set(true);
    }

    /// The value of `key`: the memo's, else `compute`'s, unless the search at `depth` is past
    /// the bound or already computing `key` (then `missing`, and a cut). A value is kept only
    /// when its search met no cut, and reused only where a search begun at that depth would not
    /// reach the bound either: a value the memo gives is the one a search from `key` at that
    /// depth gives, whatever searches ran before.
    pub(crate) fn get(
        &self,
        key: K,
        depth: usize,
        bound: &DepthBound,
        missing: V,
        compute: impl FnOnce() -> V,
    ) -> V {
        let too_deep = bound.too_deep(depth);
        if !too_deep
            && let Some((v, reach)) = self.memo.borrow().get(&key)
            && bound.reuse(depth, *reach)
        {
            return v.clone();
        }
        self.misses.set(self.misses.get() + 1);
        if too_deep || !self.busy.borrow_mut().insert(key.clone()) {
            self.cut.set(true);
            return missing;
        }
        let outer = self.cut.replace(false);
        let (v, deepest) = bound.measure(depth, compute);
        let cut = self.cut.get();
        self.cut.set(outer || cut);
        self.busy.borrow_mut().remove(&key);
        if !cut {
            self.memo
                .borrow_mut()
                .insert(key, (v.clone(), deepest - depth));
        }
        v
    }
}
