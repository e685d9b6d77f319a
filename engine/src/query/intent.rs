//! find_by_intent: lexical retrieval over the generation's term index, and the ranking. Plain
//! Rust results; the tool module renders them.
//!
//! A question is folded into terms with the same tokenizer the compiler indexed the symbols with
//! (`kivgraph_format::terms`). Every symbol carrying at least one term is a candidate; `repo`,
//! `path_prefix` and `kind` narrow the candidates. Each candidate scores
//!
//! ```text
//! Σ over the terms it carries of max(1 − df/corpus, 1e-9)
//!   × kind weight × (1.5 if exported) × path weight × caller weight
//! ```
//!
//! where `df` is the number of symbols carrying the term, `corpus` the number of symbols of the
//! graph, the kind and path weights come from [`kind_weight`] and [`path_weight`], and the caller
//! weight is `min(2, 1 + 0.25·log2(1 + c))` over the `c` incoming edges of the reference
//! vocabulary (`+0.25` per doubling, 2 from fifteen callers on). Rows are ordered by score,
//! descending, then by symbol id (stable-key order); only the best [`CANDIDATE_CAP`] are kept.
//! No edge is followed to find candidates: there is no neighbour credit, so every row matched
//! lexically.

use kivgraph_format::terms::{self, PathClass};
use kivgraph_format::{Generation, SymbolKind};
use roaring::RoaringBitmap;

use super::{ToolError, require_repository};

/// The ranking keeps at most this many candidates, so `total` never exceeds it.
pub const CANDIDATE_CAP: usize = 4000;

/// A find_by_intent question.
#[derive(Debug, Clone, Default)]
pub struct IntentQuery {
    /// The question, already trimmed.
    pub intent: String,
    pub keywords: Vec<String>,
    pub repo: Option<String>,
    pub path_prefix: Option<String>,
    pub kind: Option<String>,
}

/// One term of the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The first spelling of the word in the question.
    pub spelling: String,
    /// The folded key.
    pub key: String,
    /// How many symbols of the whole graph carry it (before any narrowing).
    pub symbols: u32,
}

/// One ranked candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentHit {
    pub id: u32,
    pub score: f64,
    /// Indexes into [`IntentAnswer::terms`] of the terms this symbol carries, in question order.
    pub terms: Vec<usize>,
}

/// The answer to a question.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentAnswer {
    /// The question's terms, intent words first, then keywords; one per folded key.
    pub terms: Vec<Term>,
    /// The number of symbols in the graph.
    pub corpus: u32,
    /// Symbols of the whole graph carrying at least one term, before narrowing.
    pub matched: u64,
    /// The ranked candidates that survived narrowing, best first, at most [`CANDIDATE_CAP`].
    pub hits: Vec<IntentHit>,
}

impl IntentAnswer {
    /// Terms that no symbol of the graph carries.
    pub fn unmatched(&self) -> impl Iterator<Item = &Term> {
        self.terms.iter().filter(|t| t.symbols == 0)
    }
}

/// The weight of a symbol kind (wire name): the weight of its class
/// ([`terms::kind_class`], shared with the compiler, which stores each symbol's class).
pub fn kind_weight(kind: &str) -> f64 {
    terms::KIND_WEIGHTS[usize::from(terms::kind_class(kind))]
}

/// The weight of a declaring file's path class.
pub fn path_weight(class: PathClass) -> f64 {
    match class {
        PathClass::Plain => 1.0,
        PathClass::Source => 1.25,
        PathClass::Test => 0.4,
        PathClass::Vendored => 0.1,
    }
}

/// From this many callers on, [`caller_weight`] is 2.
pub const CALLERS_CAP: usize = terms::CALLERS_CAP;

/// The weight of `callers` incoming reference edges: `+0.25` per doubling, capped at 2.
pub fn caller_weight(callers: usize) -> f64 {
    (1.0 + 0.25 * ((1 + callers) as f64).log2()).min(2.0)
}

/// Retrieves and ranks the symbols a question likely names.
pub fn find_by_intent(g: &Generation, q: &IntentQuery) -> Result<IntentAnswer, ToolError> {
    let b = g.graph();
    let repo = match &q.repo {
        Some(r) => Some(require_repository(g, r)?),
        None => None,
    };
    let index = &b.terms;
    let corpus = b.symbols.len() as u32;
    let mut terms = Vec::new();
    let mut postings: Vec<Option<RoaringBitmap>> = Vec::new();
    for t in terms::question_terms(&q.intent, q.keywords.iter().map(String::as_str)) {
        let found = index.find(&t.key);
        terms.push(Term {
            spelling: t.spelling,
            key: t.key,
            symbols: found.map_or(0, |i| index.doc_freq(i)),
        });
        postings.push(found.and_then(|i| index.posting(i)));
    }
    let weights: Vec<f64> = terms
        .iter()
        .map(|t| (1.0 - f64::from(t.symbols) / f64::from(corpus.max(1))).max(1e-9))
        .collect();
    // Each candidate's term weights, summed in question order, window by window of the id
    // space: every list adds its weight to a dense window of sums, then the window's candidates
    // are read off in id order (each posting is read once, straight off its bitmap, and no list
    // is probed per candidate; ids past the symbols, only in a damaged index, end a list).
    let mut lists: Vec<(std::iter::Peekable<roaring::bitmap::Iter>, f64)> = postings
        .iter()
        .zip(&weights)
        .filter_map(|(p, w)| Some((p.as_ref()?.iter().peekable(), *w)))
        .collect();
    let next_id = |lists: &mut [(std::iter::Peekable<roaring::bitmap::Iter>, f64)]| {
        lists
            .iter_mut()
            .filter_map(|(l, _)| l.peek().copied().filter(|&id| id < corpus))
            .min()
    };
    // Small enough that the window's arrays stay in cache and come from the heap, not fresh pages.
    const WINDOW: u32 = 1 << 13;
    let mut sums = vec![0.0f64; WINDOW as usize];
    // Which of the first 64 lists each slot is on (the hits name their terms from it).
    let mut on = vec![0u64; WINDOW as usize];
    let mut touched = vec![0u64; WINDOW as usize / 64];
    let mut scored: Vec<(f64, u32, u64)> = Vec::new();
    let (priors, classes) = (index.priors(), index.path_classes());
    let caller_weights: Vec<f64> = (0..=CALLERS_CAP).map(caller_weight).collect();
    let order = |a: &(f64, u32, u64), b: &(f64, u32, u64)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    let mut bar: Option<f64> = None;
    let mut matched = 0u64;
    // Each candidate is scored as its window reads it off (no list of every candidate: a common
    // term matches a hundred thousand symbols).
    let mut consider = |id: u32, base: f64, lists_on: u64| {
        matched += 1;
        // The kind, export and callers come from the compiler's one-byte prior: the symbol's
        // record is read only to narrow by repository, kind or path.
        if repo.is_some() || q.kind.is_some() || q.path_prefix.is_some() {
            let s = &b.symbols[id as usize];
            let kind = SymbolKind::from_code(s.kind).map_or("", |k| k.as_str());
            let keep = repo.is_none_or(|r| s.repository.to_native() == r)
                && q.kind.as_deref().is_none_or(|k| k == kind)
                && q.path_prefix.as_deref().is_none_or(|p| {
                    b.files
                        .get(s.file.to_native() as usize)
                        .is_some_and(|f| b.strings.get(f.path.to_native()).starts_with(p))
                });
            if !keep {
                return;
            }
        }
        let (kind_w, exported, callers) =
            terms::prior_parts(priors.get(id as usize).copied().unwrap_or(0));
        let class = classes
            .get(id as usize)
            .and_then(|&c| PathClass::from_code(c))
            .unwrap_or(PathClass::Plain);
        let score = base
            * kind_w
            * if exported { 1.5 } else { 1.0 }
            * path_weight(class)
            * caller_weights[callers];
        // Candidates come in id order, so one that does not beat the CANDIDATE_CAP-th best
        // score so far (a tie loses on id) can never be kept: past twice the cap, the best
        // CANDIDATE_CAP are selected and the rest dropped, and the bar rises.
        if bar.is_some_and(|b| score <= b) {
            return;
        }
        scored.push((score, id, lists_on));
        if scored.len() >= 2 * CANDIDATE_CAP {
            scored.select_nth_unstable_by(CANDIDATE_CAP - 1, order);
            scored.truncate(CANDIDATE_CAP);
            bar = Some(scored[CANDIDATE_CAP - 1].0);
        }
    };
    let mut window = next_id(&mut lists).map(|first| first - first % WINDOW);
    while let Some(start) = window {
        let end = start.saturating_add(WINDOW).min(corpus);
        for (n, (list, w)) in lists.iter_mut().enumerate() {
            let bit = if n < 64 { 1u64 << n } else { 0 };
            while let Some(id) = list.next_if(|&id| id < end) {
                let slot = (id - start) as usize;
                sums[slot] += *w;
                on[slot] |= bit;
                touched[slot / 64] |= 1u64 << (slot % 64);
            }
        }
        for (word_at, word) in touched.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let slot = word_at * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                consider(
                    start + slot as u32,
                    std::mem::take(&mut sums[slot]),
                    std::mem::take(&mut on[slot]),
                );
            }
        }
        window = next_id(&mut lists).map(|next| next - next % WINDOW);
    }
    // The best CANDIDATE_CAP in a linear selection, then only those sorted: the order is total
    // (ids are distinct), so this is the full sort's prefix.
    if scored.len() > CANDIDATE_CAP {
        scored.select_nth_unstable_by(CANDIDATE_CAP - 1, order);
        scored.truncate(CANDIDATE_CAP);
    }
    scored.sort_by(order);
    let hits = scored
        .into_iter()
        .map(|(score, id, lists_on)| IntentHit {
            id,
            score,
            // The terms with a posting list, in question order, are the lists in order.
            terms: postings
                .iter()
                .enumerate()
                .filter(|(_, p)| p.is_some())
                .enumerate()
                .filter(|&(n, (_, p))| {
                    if n < 64 {
                        lists_on & (1u64 << n) != 0
                    } else {
                        p.as_ref().is_some_and(|p| p.contains(id))
                    }
                })
                .map(|(_, (i, _))| i)
                .collect(),
        })
        .collect();
    Ok(IntentAnswer {
        terms,
        corpus,
        matched,
        hits,
    })
}

/// The hits grouped by declaring file, files in the order of their best hit, hits in rank order
/// within each file: `(file index, indexes into hits)`.
pub fn files_of(g: &Generation, hits: &[IntentHit]) -> Vec<(u32, Vec<usize>)> {
    let b = g.graph();
    let mut files: Vec<(u32, Vec<usize>)> = Vec::new();
    let mut slot = std::collections::HashMap::new();
    for (i, h) in hits.iter().enumerate() {
        let file = b.symbols[h.id as usize].file.to_native();
        let at = *slot.entry(file).or_insert_with(|| {
            files.push((file, Vec::new()));
            files.len() - 1
        });
        files[at].1.push(i);
    }
    files
}

#[cfg(test)]
mod cap_tests {
    use super::*;

    #[test]
    fn the_caller_weight_is_two_from_the_cap_on() {
        assert!(caller_weight(CALLERS_CAP - 1) < 2.0);
        assert_eq!(caller_weight(CALLERS_CAP), 2.0);
        assert_eq!(caller_weight(10_000), 2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caller_weight_gains_a_quarter_per_doubling_up_to_two() {
        assert_eq!(caller_weight(0), 1.0);
        assert_eq!(caller_weight(1), 1.25);
        assert_eq!(caller_weight(3), 1.5);
        assert_eq!(caller_weight(7), 1.75);
        assert_eq!(caller_weight(15), 2.0);
        assert_eq!(caller_weight(1000), 2.0);
    }

    #[test]
    fn kinds_and_paths_weigh_as_documented() {
        assert_eq!(kind_weight("method"), 2.0);
        assert_eq!(kind_weight("type"), 1.5);
        assert_eq!(kind_weight("module"), 1.2);
        assert_eq!(kind_weight("var"), 0.5);
        assert_eq!(kind_weight("enum_member"), 0.3);
        assert_eq!(kind_weight("import"), 0.2);
        assert_eq!(kind_weight("alias"), 1.0);
        assert_eq!(path_weight(PathClass::Vendored), 0.1);
        assert_eq!(path_weight(PathClass::Source), 1.25);
    }
}
