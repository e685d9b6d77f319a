//! The term index behind `find_by_intent`: which symbols carry which folded identifier word.
//!
//! The compiler builds it into the graph blob (`GraphBlob::terms`, SPEC section 7.7) from the same
//! facts as everything else; the engine reads it straight off the mmap. Both sides, and
//! `verify_generation`, use the tokenizer and folder of this module, so a question is always cut
//! the way the index was.
//!
//! - [`words`] cuts text into identifier words: any character that is not a letter or a digit
//!   separates words, and inside a run of letters and digits a word ends where a lower-case (or
//!   uncased) letter meets an upper-case one (`parseConfig`), where digits meet letters
//!   (`utf8` → `utf`, `8`), and before the last capital of an acronym that a lower-case letter
//!   follows (`HTTPServer` → `HTTP`, `Server`).
//! - [`fold`] keys a word by its first [`FOLD_RUNES`] characters, lower-cased; words shorter than
//!   [`MIN_RUNES`] characters are dropped.
//! - [`symbol_terms`] is what a symbol is indexed under: the folded words of its name, qualified
//!   name, kind and file path, de-duplicated.
//! - [`question_terms`] folds a question and its keywords the same way, keeping the first spelling
//!   of every key.

use std::collections::BTreeSet;

use rkyv::{Archive, Deserialize, Serialize};
use roaring::RoaringBitmap;

use crate::blob::StringTable;
use crate::error::FormatError;

/// A term is a word's first this many characters, lower-cased.
pub const FOLD_RUNES: usize = 5;
/// Words with fewer characters than this are not indexed.
pub const MIN_RUNES: usize = 2;

/// The term index stored in the graph blob.
#[derive(Archive, Serialize, Deserialize, Debug, Default, Clone, PartialEq)]
pub struct TermIndex {
    /// The distinct folded terms, sorted in byte order; term `t` is string `t` of this table.
    pub keys: StringTable,
    /// The postings of every term, each a Roaring bitmap of symbol ids in the portable Roaring
    /// serialization, concatenated in term order.
    pub postings: Vec<u8>,
    /// `posting_ends[t]` is the exclusive end of term `t`'s bitmap in `postings`; it starts at
    /// `posting_ends[t-1]` (or 0).
    pub posting_ends: Vec<u32>,
    /// `doc_freq[t]` is the number of symbols carrying term `t` (the bitmap's cardinality).
    pub doc_freq: Vec<u32>,
    /// One [`PathClass`] code per symbol, indexed by symbol id: how the declaring file's path
    /// weighs in the ranking.
    pub path_class: Vec<u8>,
    /// One [`prior_code`] per symbol, indexed by symbol id: its kind's class, whether it is
    /// exported and its reference callers up to [`CALLERS_CAP`], so that a ranking reads one byte
    /// a candidate instead of its record and its incoming edges.
    pub prior: Vec<u8>,
}

/// The weights of the kind classes of [`kind_class`], by class.
pub const KIND_WEIGHTS: [f64; 7] = [2.0, 1.5, 1.2, 1.0, 0.5, 0.3, 0.2];

/// The class of a symbol kind (wire name) for the ranking: an index into [`KIND_WEIGHTS`].
pub fn kind_class(kind: &str) -> u8 {
    match kind {
        "func" | "function" | "method" | "static_method" | "trait_method" | "constructor" => 0,
        "struct" | "class" | "interface" | "trait" | "enum" | "type" => 1,
        "module" | "package" | "namespace" | "implementation" => 2,
        "field" | "property" | "var" | "variable" | "const" | "constant" | "static" => 4,
        "enum_member" | "variant" => 5,
        "import" | "export" | "use" => 6,
        _ => 3,
    }
}

/// From this many reference callers on, the ranking's caller weight no longer grows.
pub const CALLERS_CAP: usize = 15;

/// A symbol's ranking prior in one byte: kind class in bits 5–7, exported in bit 4, incoming
/// edges of the reference vocabulary (capped at [`CALLERS_CAP`]) in bits 0–3.
pub fn prior_code(kind: &str, exported: bool, callers: usize) -> u8 {
    (kind_class(kind) << 5) | (u8::from(exported) << 4) | callers.min(CALLERS_CAP) as u8
}

/// The parts of a [`prior_code`]: (kind weight, exported, callers).
#[inline]
pub fn prior_parts(code: u8) -> (f64, bool, usize) {
    let class = usize::from(code >> 5).min(KIND_WEIGHTS.len() - 1);
    (
        KIND_WEIGHTS[class],
        code & 0x10 != 0,
        usize::from(code & 0x0f),
    )
}

/// What a symbol's file path says about it, for ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum PathClass {
    /// None of the rules below applies.
    Plain = 0,
    /// A directory segment names a source tree: [`SOURCE_DIRS`].
    Source = 1,
    /// A directory segment names tests, benchmarks or examples ([`TEST_DIRS`]), or the file name
    /// is a test file ([`TEST_FILE_MARKS`]).
    Test = 2,
    /// A directory segment names vendored, generated, built or fixture code: [`VENDORED_DIRS`].
    Vendored = 3,
}

impl PathClass {
    pub const ALL: &'static [PathClass] = &[
        PathClass::Plain,
        PathClass::Source,
        PathClass::Test,
        PathClass::Vendored,
    ];

    #[inline]
    pub fn from_code(code: u8) -> Option<PathClass> {
        PathClass::ALL.get(usize::from(code)).copied()
    }
}

/// Directory names that mark vendored, generated, built or fixture code.
pub const VENDORED_DIRS: &[&str] = &[
    "testdata",
    "fixtures",
    "node_modules",
    "vendor",
    "third_party",
    "dist",
    "build",
    "target",
    "venv",
    ".venv",
    "site-packages",
    "__pycache__",
];
/// Directory names that mark tests, benchmarks and examples.
pub const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "e2e",
    "bench",
    "benches",
    "benchmarks",
    "example",
    "examples",
];
/// File-name marks of a test file: a suffix `_test.go`, or `.test.` / `.spec.` anywhere.
pub const TEST_FILE_MARKS: &[&str] = &["_test.go", ".test.", ".spec."];
/// Directory names that mark a source tree.
pub const SOURCE_DIRS: &[&str] = &["src", "internal", "app", "lib", "pkg", "cmd"];

/// Classifies a repository-relative path (`/` separators). Directory names compare
/// ASCII-case-insensitively; the first class that applies wins, in the order vendored, test,
/// source.
pub fn path_class(path: &str) -> PathClass {
    let (dirs, file) = match path.rsplit_once('/') {
        Some((d, f)) => (d, f),
        None => ("", path),
    };
    let has_dir = |list: &[&str]| {
        dirs.split('/')
            .any(|seg| list.iter().any(|d| seg.eq_ignore_ascii_case(d)))
    };
    let file = file.to_ascii_lowercase();
    if has_dir(VENDORED_DIRS) {
        PathClass::Vendored
    } else if has_dir(TEST_DIRS)
        || file.ends_with(TEST_FILE_MARKS[0])
        || TEST_FILE_MARKS[1..].iter().any(|m| file.contains(m))
    {
        PathClass::Test
    } else if has_dir(SOURCE_DIRS) {
        PathClass::Source
    } else {
        PathClass::Plain
    }
}

/// Cuts `text` into identifier words, in order (see the module documentation).
pub fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    each_word(text, &mut Vec::new(), |w| out.push(w));
    out
}

/// [`words`], handed one by one to `f`; `chars` is scratch space.
fn each_word<'t>(text: &'t str, chars: &mut Vec<(usize, char)>, mut f: impl FnMut(&'t str)) {
    for piece in text.split(|c: char| !c.is_alphanumeric()) {
        if !piece.is_empty() {
            split_identifier(piece, chars, &mut f);
        }
    }
}

/// Splits one run of letters and digits at case and digit boundaries.
fn split_identifier<'a>(s: &'a str, chars: &mut Vec<(usize, char)>, out: &mut impl FnMut(&'a str)) {
    chars.clear();
    chars.extend(s.char_indices());
    let mut start = 0;
    for i in 1..chars.len() {
        let (prev, cur) = (chars[i - 1].1, chars[i].1);
        let next = chars.get(i + 1).map(|&(_, c)| c);
        let boundary = prev.is_numeric() != cur.is_numeric()
            || (!prev.is_uppercase() && !prev.is_numeric() && cur.is_uppercase())
            || (prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(char::is_lowercase));
        if boundary {
            out(&s[chars[start].0..chars[i].0]);
            start = i;
        }
    }
    if let Some(&(at, _)) = chars.get(start) {
        out(&s[at..]);
    }
}

/// The term of one word: its lower-cased form cut to [`FOLD_RUNES`] characters, or `None` when
/// the word has fewer than [`MIN_RUNES`] characters.
pub fn fold(word: &str) -> Option<String> {
    let mut out = String::new();
    fold_into(word, &mut out).then_some(out)
}

/// [`fold`] into `out` (cleared first); false when the word has no term.
fn fold_into(word: &str, out: &mut String) -> bool {
    out.clear();
    if word.is_ascii() {
        if word.len() < MIN_RUNES {
            return false;
        }
        let cut = &word[..word.len().min(FOLD_RUNES)];
        out.extend(cut.bytes().map(|b| b.to_ascii_lowercase() as char));
        return true;
    }
    if word.chars().count() < MIN_RUNES {
        return false;
    }
    out.extend(word.to_lowercase().chars().take(FOLD_RUNES));
    true
}

/// The terms a symbol is indexed under: the folded words of its name, qualified name, kind (wire
/// name) and file path.
pub fn symbol_terms(name: &str, qualified_name: &str, kind: &str, path: &str) -> BTreeSet<String> {
    [name, qualified_name, kind, path]
        .into_iter()
        .flat_map(words)
        .filter_map(fold)
        .collect()
}

/// One word of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionTerm {
    /// The first spelling of the word in the question.
    pub spelling: String,
    /// Its folded key, as the index stores it.
    pub key: String,
}

/// The terms of a question: the words of `intent`, then those of each keyword, folded, with
/// every key kept once under its first spelling.
pub fn question_terms<'a>(
    intent: &'a str,
    keywords: impl IntoIterator<Item = &'a str>,
) -> Vec<QuestionTerm> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let texts = std::iter::once(intent).chain(keywords);
    for text in texts {
        for w in words(text) {
            if let Some(key) = fold(w)
                && seen.insert(key.clone())
            {
                out.push(QuestionTerm {
                    spelling: w.to_string(),
                    key,
                });
            }
        }
    }
    out
}

/// What the index needs to know of one symbol, in symbol-id order.
#[derive(Debug, Clone, Copy)]
pub struct TermSource<'a> {
    pub name: &'a str,
    pub qualified_name: &'a str,
    /// The symbol kind's wire name.
    pub kind: &'a str,
    /// The declaring file's repository-relative path.
    pub path: &'a str,
    pub exported: bool,
    /// Incoming edges of the reference vocabulary (any count at or above [`CALLERS_CAP`] is the
    /// same).
    pub callers: usize,
}

/// Builds the term index of symbols given in symbol-id order. The output depends only on the
/// input, so the same symbols always give the same bytes.
pub fn build<'a>(
    symbols: impl IntoIterator<Item = TermSource<'a>>,
) -> Result<TermIndex, FormatError> {
    // The same terms as [`symbol_terms`], gathered without a set or a string per symbol: each
    // term is numbered on its first appearance, a path's terms are folded once per distinct
    // path, and each term's ids arrive in increasing order.
    let mut numbers: rustc_hash::FxHashMap<String, u32> = Default::default();
    let mut keys: Vec<String> = Vec::new();
    let mut postings: Vec<Vec<u32>> = Vec::new();
    let mut paths: rustc_hash::FxHashMap<&str, (Vec<u32>, u8)> = Default::default();
    let mut index = TermIndex::default();
    let (mut chars, mut folded, mut terms) = (Vec::new(), String::new(), Vec::<u32>::new());
    let mut number = |term: &str| -> u32 {
        if let Some(&n) = numbers.get(term) {
            return n;
        }
        let n = keys.len() as u32;
        numbers.insert(term.to_string(), n);
        keys.push(term.to_string());
        n
    };
    for (id, s) in symbols.into_iter().enumerate() {
        let id = u32::try_from(id)
            .map_err(|_| FormatError::Encode("term index: too many symbols".into()))?;
        terms.clear();
        for text in [s.name, s.qualified_name, s.kind] {
            each_word(text, &mut chars, |w| {
                if fold_into(w, &mut folded) {
                    terms.push(number(&folded));
                }
            });
        }
        let (path_terms, class) = paths.entry(s.path).or_insert_with(|| {
            let mut of_path = Vec::new();
            each_word(s.path, &mut chars, |w| {
                if fold_into(w, &mut folded) {
                    of_path.push(number(&folded));
                }
            });
            (of_path, path_class(s.path) as u8)
        });
        terms.extend_from_slice(path_terms);
        terms.sort_unstable();
        terms.dedup();
        if let Some(&last) = terms.last()
            && postings.len() <= last as usize
        {
            postings.resize_with(last as usize + 1, Vec::new);
        }
        for &t in &terms {
            postings[t as usize].push(id);
        }
        index.path_class.push(*class);
        index.prior.push(prior_code(s.kind, s.exported, s.callers));
    }
    postings.resize_with(keys.len(), Vec::new);
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
    let too_big = || FormatError::Encode("term index: over 4 GiB".into());
    for t in order {
        let (key, ids) = (&keys[t as usize], std::mem::take(&mut postings[t as usize]));
        let mut bitmap = RoaringBitmap::from_sorted_iter(ids)
            .map_err(|e| FormatError::Encode(format!("term index: {e}")))?;
        bitmap.optimize();
        index.keys.bytes.extend_from_slice(key.as_bytes());
        index
            .keys
            .ends
            .push(u32::try_from(index.keys.bytes.len()).map_err(|_| too_big())?);
        bitmap
            .serialize_into(&mut index.postings)
            .map_err(|e| FormatError::Encode(format!("term index: {e}")))?;
        index
            .posting_ends
            .push(u32::try_from(index.postings.len()).map_err(|_| too_big())?);
        index.doc_freq.push(bitmap.len() as u32);
    }
    Ok(index)
}

impl ArchivedTermIndex {
    /// The number of distinct terms.
    pub fn len(&self) -> usize {
        self.keys.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.ends.is_empty()
    }

    /// The first field in which this index differs from `other`, if any.
    pub fn differs_from(&self, other: &TermIndex) -> Option<&'static str> {
        if self.keys.bytes.as_slice() != other.keys.bytes.as_slice()
            || !self
                .keys
                .ends
                .iter()
                .map(|e| e.to_native())
                .eq(other.keys.ends.iter().copied())
        {
            return Some("keys");
        }
        if self.postings.as_slice() != other.postings.as_slice()
            || !self
                .posting_ends
                .iter()
                .map(|e| e.to_native())
                .eq(other.posting_ends.iter().copied())
        {
            return Some("postings");
        }
        if !self
            .doc_freq
            .iter()
            .map(|e| e.to_native())
            .eq(other.doc_freq.iter().copied())
        {
            return Some("doc_freq");
        }
        if self.path_class.as_slice() != other.path_class.as_slice() {
            return Some("path_class");
        }
        if self.prior.as_slice() != other.prior.as_slice() {
            return Some("prior");
        }
        None
    }

    /// Cross-field checks run on open: offsets monotone and in bounds, lengths consistent, keys
    /// UTF-8 and strictly ascending, path classes known. The bitmaps themselves are decoded only
    /// when a query reads them, and checked in full by `verify_generation`.
    pub(crate) fn check(&self, symbols: usize) -> Result<(), String> {
        let n = self.len();
        let mut prev = 0u32;
        for e in self.keys.ends.iter() {
            let e = e.to_native();
            if e < prev || e as usize > self.keys.bytes.len() {
                return Err("term keys offsets are not monotone".into());
            }
            prev = e;
        }
        if std::str::from_utf8(&self.keys.bytes).is_err() {
            return Err("term keys are not UTF-8".into());
        }
        for t in 1..n as u32 {
            if self.keys.get(t - 1) >= self.keys.get(t) {
                return Err("term keys are not strictly ascending".into());
            }
        }
        if self.posting_ends.len() != n || self.doc_freq.len() != n {
            return Err("term postings or frequencies do not match the term count".into());
        }
        let mut prev = 0u32;
        for e in self.posting_ends.iter() {
            let e = e.to_native();
            if e < prev || e as usize > self.postings.len() {
                return Err("term posting offsets are not monotone".into());
            }
            prev = e;
        }
        if prev as usize != self.postings.len() {
            return Err("term posting offsets do not cover the postings".into());
        }
        if self
            .doc_freq
            .iter()
            .any(|d| d.to_native() as usize > symbols)
        {
            return Err("a term frequency exceeds the symbol count".into());
        }
        if self.path_class.len() != symbols {
            return Err("path classes do not match the symbol count".into());
        }
        if self.prior.len() != symbols {
            return Err("term priors do not match the symbol count".into());
        }
        if self
            .path_class
            .iter()
            .any(|&c| PathClass::from_code(c).is_none())
        {
            return Err("an unknown path class".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> Vec<String> {
        words(text).into_iter().filter_map(fold).collect()
    }

    #[test]
    fn identifiers_split_at_case_digit_and_separator_boundaries() {
        assert_eq!(words("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(words("parseHTTPResponse"), ["parse", "HTTP", "Response"]);
        assert_eq!(words("CamelCase"), ["Camel", "Case"]);
        assert_eq!(words("lowerCamelCase"), ["lower", "Camel", "Case"]);
        assert_eq!(words("snake_case_name"), ["snake", "case", "name"]);
        assert_eq!(words("kebab-case-name"), ["kebab", "case", "name"]);
        assert_eq!(words("utf8Decode"), ["utf", "8", "Decode"]);
        assert_eq!(words("HTTP2Server"), ["HTTP", "2", "Server"]);
        assert_eq!(words("int64"), ["int", "64"]);
        assert_eq!(words("IOError"), ["IO", "Error"]);
        assert_eq!(words("ABC"), ["ABC"]);
        assert_eq!(words("Circle.Area"), ["Circle", "Area"]);
        assert_eq!(words("geo/geo_test.go"), ["geo", "geo", "test", "go"]);
        assert_eq!(words("  compute, the area!"), ["compute", "the", "area"]);
        assert_eq!(words("größeÄnderung"), ["größe", "Änderung"]);
        assert!(words("").is_empty() && words("--/..").is_empty());
    }

    #[test]
    fn folding_keeps_five_lowercase_runes_and_drops_single_characters() {
        assert_eq!(fold("Server").as_deref(), Some("serve"));
        assert_eq!(fold("HTTP").as_deref(), Some("http"));
        assert_eq!(fold("Go").as_deref(), Some("go"));
        assert_eq!(fold("Änderung").as_deref(), Some("änder"));
        assert_eq!(fold("x"), None);
        assert_eq!(fold("8"), None);
        assert_eq!(fold("64").as_deref(), Some("64"));
        assert_eq!(folded("getX"), ["get"]);
        assert_eq!(folded("HTTPServer"), ["http", "serve"]);
        assert_eq!(folded("ServeHTTP"), ["serve", "http"]);
        assert_eq!(folded("a b c"), Vec::<String>::new());
    }

    #[test]
    fn symbols_are_indexed_under_name_qualified_name_kind_and_path() {
        let t = symbol_terms("Area", "Circle.Area", "method", "geo/geo.go");
        let t: Vec<&str> = t.iter().map(String::as_str).collect();
        assert_eq!(t, ["area", "circl", "geo", "go", "metho"]);
        let t = symbol_terms(
            "parse_config",
            "parse_config",
            "function",
            "src/config-loader.ts",
        );
        assert!(t.contains("parse") && t.contains("confi") && t.contains("funct"));
        assert!(t.contains("src") && t.contains("loade") && t.contains("ts"));
    }

    #[test]
    fn question_terms_keep_the_first_spelling_of_each_key() {
        let q = question_terms("Compute the area of a Circle", ["circles", "AREA", "x"]);
        let got: Vec<(&str, &str)> = q
            .iter()
            .map(|t| (t.spelling.as_str(), t.key.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("Compute", "compu"),
                ("the", "the"),
                ("area", "area"),
                ("of", "of"),
                ("Circle", "circl"),
            ]
        );
        assert!(question_terms("a ? b", []).is_empty());
    }

    #[test]
    fn paths_are_classified_vendored_then_test_then_source() {
        assert_eq!(path_class("geo/geo.go"), PathClass::Plain);
        assert_eq!(path_class("main.go"), PathClass::Plain);
        assert_eq!(path_class("cmd/shapes/main.go"), PathClass::Source);
        assert_eq!(path_class("internal/x/y.go"), PathClass::Source);
        assert_eq!(path_class("geo/geo_test.go"), PathClass::Test);
        assert_eq!(path_class("src/app.test.ts"), PathClass::Test);
        assert_eq!(path_class("lib/a.spec.js"), PathClass::Test);
        assert_eq!(path_class("tests/util.py"), PathClass::Test);
        assert_eq!(path_class("examples/demo/main.go"), PathClass::Test);
        assert_eq!(path_class("src/vendor/x/tests/a.go"), PathClass::Vendored);
        assert_eq!(path_class("node_modules/x/index.js"), PathClass::Vendored);
        assert_eq!(path_class("Vendor/x.go"), PathClass::Vendored);
        // Only directories count as segments: a file named like a directory is plain.
        assert_eq!(path_class("build"), PathClass::Plain);
        assert_eq!(path_class("src.go"), PathClass::Plain);
    }

    /// The archived sizes SPEC section 7 documents.
    #[test]
    fn archived_sizes_match_the_spec() {
        assert_eq!(std::mem::size_of::<ArchivedTermIndex>(), 56);
        assert_eq!(std::mem::align_of::<ArchivedTermIndex>(), 4);
        assert_eq!(std::mem::size_of::<crate::blob::ArchivedGraphBlob>(), 168);
    }

    #[test]
    fn build_round_trips_through_an_archive() {
        let src = [
            ("Area", "Circle.Area", "method", "geo/geo.go"),
            ("Circle", "Circle", "type", "geo/geo.go"),
            ("Render", "Render", "func", "cmd/render/main.go"),
        ];
        let built = build(
            src.iter()
                .map(|&(name, qualified_name, kind, path)| TermSource {
                    name,
                    qualified_name,
                    kind,
                    path,
                    exported: true,
                    callers: 3,
                }),
        )
        .unwrap();
        assert_eq!(
            built,
            build(src.iter().map(|&(a, b, c, d)| TermSource {
                name: a,
                qualified_name: b,
                kind: c,
                path: d,
                exported: true,
                callers: 3,
            }))
            .unwrap()
        );
        let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&built).unwrap();
        let archived = rkyv::access::<ArchivedTermIndex, rkyv::rancor::Error>(&bytes).unwrap();
        archived.check(3).unwrap();
        assert_eq!(archived.differs_from(&built), None);
        // The prior packs kind class, export and callers, and unpacks to the ranking's weights.
        assert_eq!(archived.prior.as_slice(), &[0x13, 0x33, 0x13]);
        assert_eq!(prior_parts(archived.prior.as_slice()[1]), (1.5, true, 3));
        assert_eq!(
            prior_parts(prior_code("variant", false, 40)),
            (0.3, false, 15)
        );
        // The keys are the folded words, sorted (the reader, `graph::Terms`, is tested through a
        // compiled generation in the compiler's tests).
        let keys: Vec<&str> = (0..archived.len() as u32)
            .map(|t| archived.keys.get(t))
            .collect();
        assert!(
            keys.contains(&"circl") && keys.contains(&"rende"),
            "{keys:?}"
        );
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert_eq!(
            archived.path_class.as_slice(),
            &[
                PathClass::Plain as u8,
                PathClass::Plain as u8,
                PathClass::Source as u8
            ]
        );
        assert_eq!(
            archived.check(4).unwrap_err(),
            "path classes do not match the symbol count"
        );
    }
}
