//! Language front ends. Each turns discovered source text into facts.

pub mod dart;
pub mod go;
pub mod py;
pub mod rs;
pub(crate) mod shared;
pub mod ts;

/// A project file discovery found (`go.mod`, `package.json`, `tsconfig*.json`,
/// `jsconfig*.json`, `pyproject.toml`, `setup.cfg`, `Cargo.toml`, `pubspec.yaml`,
/// `.dart_tool/package_config.json`); each front end reads the ones it knows.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub repo: crate::facts::RepoId,
    /// Repository-relative path.
    pub path: String,
    pub text: String,
}

use kivgraph_format::{Language, SymbolKind};

/// What admission reads of a file's text (Go: the build constraints before the package clause),
/// all that a compile unit keeps of it.
pub(crate) fn admission_text(language: Language, text: &str) -> &str {
    match language {
        Language::Go => go::header(text),
        _ => "",
    }
}
use tree_sitter::{Node, Tree};

use crate::facts::{FactSet, FileId, PackageId, RepoId, Symbol, SymbolId};

/// The thread pool every front end runs its per-file phase (and Rust its resolution) on: rayon
/// threads whose 64 MiB stacks hold the walks' recursion up to the depth bounds each front end
/// enforces, whatever the input.
pub(crate) fn walk_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .stack_size(64 << 20)
        .build()
        .expect("thread pool")
}

/// A node's kind (what [`Node::kind`] gives) from a table made once per grammar and process:
/// `Node::kind` measures the grammar's C string and checks that it is UTF-8 on every call, and
/// an extraction asks each node's kind several times.
pub(crate) trait KindExt<'t> {
    /// What [`Node::kind`] gives.
    fn kind_name(&self) -> &'t str;
}

/// The grammars' kind tables, each made once and kept for the process: a few hundred names a
/// grammar, and a compile uses six grammars. The threads' own lists (below) only point at them,
/// so the pools a compile makes and drops leave nothing behind.
type KindTables = Vec<(tree_sitter::Language, &'static [&'static str])>;
static KIND_TABLES: std::sync::Mutex<KindTables> = std::sync::Mutex::new(Vec::new());

/// The kind table of `language`, made the first time any thread asks.
fn kind_table(language: &tree_sitter::Language) -> &'static [&'static str] {
    let mut tables = KIND_TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, table)) = tables.iter().find(|(l, _)| l == language) {
        return table;
    }
    let table: &'static [&'static str] = Box::leak(
        (0..language.node_kind_count())
            .map(|i| {
                let name = u16::try_from(i)
                    .ok()
                    .and_then(|i| language.node_kind_for_id(i))
                    .unwrap_or("");
                &*Box::leak(name.to_string().into_boxed_str())
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    tables.push((language.clone(), table));
    table
}

impl<'t> KindExt<'t> for Node<'t> {
    #[inline]
    fn kind_name(&self) -> &'t str {
        thread_local! {
            static KINDS: std::cell::RefCell<KindTables> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let id = usize::from(self.kind_id());
        let language = self.language();
        let named = KINDS.with(|kinds| {
            let mut kinds = kinds.borrow_mut();
            let table = match kinds.iter().find(|(l, _)| *l == *language) {
                Some((_, table)) => *table,
                None => {
                    let table = kind_table(&language);
                    kinds.push((language.clone(), table));
                    table
                }
            };
            table.get(id).copied()
        });
        // The error node's id (65535) is outside the table.
        match named {
            Some(k) if !k.is_empty() => k,
            _ => self.kind(),
        }
    }
}

/// A node's child by field name, with the field's id found once per grammar and name (the
/// grammar's lookup compares the name with each of its field names in turn, on every call).
pub(crate) trait FieldExt<'t> {
    /// What [`Node::child_by_field_name`] gives.
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> FieldExt<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        // A compile uses a handful of grammars: a short list, compared by grammar identity.
        type Ids = Vec<(
            tree_sitter::Language,
            crate::hash::HashMap<String, Option<u16>>,
        )>;
        thread_local! {
            static IDS: std::cell::RefCell<Ids> = Default::default();
        }
        let language = self.language();
        let id = IDS.with(|ids| {
            let mut ids = ids.borrow_mut();
            let at = match ids.iter().position(|(l, _)| *l == *language) {
                Some(at) => at,
                None => {
                    ids.push((language.clone(), Default::default()));
                    ids.len() - 1
                }
            };
            let of_grammar = &mut ids[at].1;
            match of_grammar.get(name) {
                Some(id) => *id,
                None => {
                    let id = language.field_id_for_name(name).map(|f| f.get());
                    of_grammar.insert(name.to_string(), id);
                    id
                }
            }
        });
        id.and_then(|id| self.child_by_field_id(id))
    }
}

/// Parses `src` with `language`: `None` when the grammar does not load or the parser gives up
/// (the file is then recorded as having errors, with nothing extracted).
pub(crate) fn parse(src: &str, language: tree_sitter::Language) -> Option<Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language).ok()?;
    let tree = parser.parse(src, None);
    FIRST_PARSE.with(|slot| {
        if let Some(first @ None) = &mut *slot.borrow_mut() {
            *first = Some(FirstParse {
                src: (src.as_ptr(), src.len()),
                // Without an error or missing node there is nothing unread. A walk that panics
                // leaves them to be read off a parse of their own, as before.
                unread: tree.as_ref().and_then(|t| {
                    if !t.root_node().has_error() {
                        return Some(Vec::new());
                    }
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        unread_in(t, src, false)
                    }))
                    .ok()
                }),
                language,
            });
        }
    });
    tree
}

/// The first parse an extraction made, and the names its tree could not read: a partial file's
/// unread names come off the tree its extraction parsed, not off a second parse of the file
/// (which was a tenth of the parsing of a corpus with large partial files).
pub(crate) struct FirstParse {
    /// Where the parsed text lies and how long it is.
    src: (*const u8, usize),
    language: tree_sitter::Language,
    /// [`unread_names`] (not `whole`) of the text; `None` when the parser gave up or the walk
    /// failed.
    unread: Option<Vec<(String, u32, u32)>>,
}

thread_local! {
    /// While [`with_first_parse`] runs on this thread: `Some(None)` until the first [`parse`],
    /// then what it found.
    static FIRST_PARSE: std::cell::RefCell<Option<Option<FirstParse>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `extract` and gives back, with its result, the first parse it made on this thread.
pub(crate) fn with_first_parse<R>(extract: impl FnOnce() -> R) -> (R, Option<FirstParse>) {
    /// Puts back what the slot held before (an extraction may run within another's on this
    /// thread), whether `extract` returns or unwinds.
    struct Restore(Option<Option<FirstParse>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            FIRST_PARSE.with(|slot| *slot.borrow_mut() = before);
        }
    }
    let restore = Restore(FIRST_PARSE.with(|slot| slot.borrow_mut().replace(None)));
    let out = extract();
    let first = FIRST_PARSE.with(|slot| slot.borrow_mut().take()).flatten();
    drop(restore);
    (out, first)
}

impl FirstParse {
    /// [`unread_names`]`(src, language, false)`, when this parse was of `src` itself (the same
    /// bytes in place) with `language`; `None` otherwise, and when the parser gave up.
    pub(crate) fn unread_of(
        self,
        src: &str,
        language: &tree_sitter::Language,
    ) -> Option<Vec<(String, u32, u32)>> {
        (self.src == (src.as_ptr(), src.len()) && self.language == *language)
            .then_some(self.unread)
            .flatten()
    }
}

/// A character an identifier may hold (`$` for JavaScript).
fn identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Whether `t` reads as an identifier: identifier characters, not starting with a digit.
fn is_identifier(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| identifier_char(c) && !c.is_numeric())
        && t.chars().all(identifier_char)
}

/// Every distinct identifier-like word of `src`, at its first place (1-based line, 0-based byte
/// column), at most [`MAX_UNREAD_NAMES`]: the names of a file no parser read.
pub(crate) fn words_of(src: &str) -> Vec<(String, u32, u32)> {
    let mut seen = crate::hash::HashSet::default();
    let mut out = Vec::new();
    for (i, line) in src.lines().enumerate() {
        let mut at = 0;
        for w in line.split(|c: char| !identifier_char(c)) {
            if is_identifier(w) && out.len() < MAX_UNREAD_NAMES && seen.insert(w) {
                out.push((w.to_string(), i as u32 + 1, at as u32));
            }
            at += w.len() + 1;
        }
    }
    out
}

/// Most names recorded for the unread parts of one file.
pub(crate) const MAX_UNREAD_NAMES: usize = 2_000;

/// The names written where the parser could not read `src` (inside its `ERROR` and missing
/// nodes), or everywhere when `whole`: each distinct name once, at its first place (1-based line,
/// 0-based byte column), in order of appearance, at most [`MAX_UNREAD_NAMES`]. A name is a named
/// leaf that reads as an identifier. The walk is iterative, so no tree is too deep for it.
pub(crate) fn unread_names(
    src: &str,
    language: tree_sitter::Language,
    whole: bool,
) -> Vec<(String, u32, u32)> {
    match parse(src, language) {
        Some(tree) => unread_in(&tree, src, whole),
        // The parser gave up: every word of the file is unread.
        None => words_of(src),
    }
}

/// [`unread_names`] over `tree`, the parse of `src`.
fn unread_in(tree: &Tree, src: &str, whole: bool) -> Vec<(String, u32, u32)> {
    let mut seen = crate::hash::HashSet::default();
    let mut out = Vec::new();
    let unread = |n: &Node| n.is_error() || n.is_missing();
    let mut cursor = tree.walk();
    // How many of the current node's ancestors (itself included) are unread.
    let mut inside = usize::from(unread(&cursor.node()));
    loop {
        let node = cursor.node();
        if node.child_count() == 0
            && node.is_named()
            && (whole || inside > 0)
            && let Ok(text) = node.utf8_text(src.as_bytes())
            && is_identifier(text)
            && out.len() < MAX_UNREAD_NAMES
            && seen.insert(text.to_string())
        {
            let p = node.start_position();
            out.push((text.to_string(), p.row as u32 + 1, p.column as u32));
        }
        if cursor.goto_first_child() {
            inside += usize::from(unread(&cursor.node()));
            continue;
        }
        // Leave this node, then every ancestor whose siblings are done.
        loop {
            inside -= usize::from(unread(&cursor.node()));
            if cursor.goto_next_sibling() {
                inside += usize::from(unread(&cursor.node()));
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// What phase 1 makes of one file; its default is a file with nothing extracted.
pub(crate) trait Extraction: Default {
    /// Records that the file has syntax errors.
    fn set_has_errors(&mut self);
}

/// Parses `src` with `language` and extracts from the tree's root with `walk`; a file the
/// parser gives up on has nothing extracted, and errors.
pub(crate) fn extract_with<F: Extraction>(
    src: &str,
    language: tree_sitter::Language,
    walk: impl FnOnce(Node) -> F,
) -> F {
    let Some(tree) = parse(src, language) else {
        let mut f = F::default();
        f.set_has_errors();
        return f;
    };
    walk(tree.root_node())
}

/// An extractor whose recursive walks are bounded in depth, so that no input overflows a stack.
pub(crate) trait Bounded: Sized {
    /// How deep the walks may nest.
    const MAX_DEPTH: usize;
    /// The current nesting.
    fn depth_mut(&mut self) -> &mut usize;
    /// Records that part of the file was not walked (the file is partial).
    fn mark_too_deep(&mut self);

    /// Runs `walk` one level deeper, unless [`Bounded::MAX_DEPTH`] is reached: then the
    /// subtree is skipped, the file marked, and `deep` is the result.
    fn bounded<R>(&mut self, deep: R, walk: impl FnOnce(&mut Self) -> R) -> R {
        if *self.depth_mut() >= Self::MAX_DEPTH {
            self.mark_too_deep();
            return deep;
        }
        *self.depth_mut() += 1;
        let r = walk(self);
        *self.depth_mut() -= 1;
        r
    }
}

/// Implements [`Bounded`] for the module's `Extractor`, which counts its nesting in `depth`
/// against the module's `MAX_DEPTH` and marks its file partial with the flag `$flag`.
macro_rules! bounded_extractor {
    ($flag:ident) => {
        impl crate::lang::Bounded for Extractor<'_> {
            const MAX_DEPTH: usize = MAX_DEPTH;

            fn depth_mut(&mut self) -> &mut usize {
                &mut self.depth
            }

            fn mark_too_deep(&mut self) {
                self.file.$flag = true;
            }
        }
    };
}
pub(crate) use bounded_extractor;

/// The source text of a node.
pub(crate) fn text<'s>(n: Node, src: &'s str) -> &'s str {
    &src[n.byte_range()]
}

/// A node's start: 1-based line, 0-based byte column.
pub(crate) fn pos(n: Node) -> (u32, u32) {
    let p = n.start_position();
    (p.row as u32 + 1, p.column as u32)
}

/// Visits `root` and then its named descendants depth first, each before its children: the
/// nodes a recursion over [`kids`] reaches, with one cursor and no allocation per node. Stops
/// when `f` returns false; returns whether the walk ran to its end.
pub(crate) fn each_named<'t>(root: Node<'t>, mut f: impl FnMut(Node<'t>) -> bool) -> bool {
    if !f(root) {
        return false;
    }
    let mut c = root.walk();
    let mut descend = true;
    loop {
        let moved = (descend && c.goto_first_child())
            || loop {
                if c.goto_next_sibling() {
                    break true;
                }
                if !c.goto_parent() {
                    break false;
                }
            };
        if !moved {
            return true;
        }
        let n = c.node();
        // An anonymous node (a token) is passed over, as `kids` passes over it.
        descend = n.is_named();
        if descend && !f(n) {
            return false;
        }
    }
}

/// A pre-order walk of the named nodes below `root` (not `root` itself) with one cursor: `f`
/// gets each node and its depth below `root` (1 for a child) and says whether to walk under it.
/// It visits what a recursion over [`kids`] visits, in the same order.
pub(crate) fn walk_named_below<'t>(root: Node<'t>, mut f: impl FnMut(Node<'t>, usize) -> bool) {
    let mut c = root.walk();
    if !c.goto_first_child() {
        return;
    }
    let mut depth = 1;
    loop {
        let n = c.node();
        // An anonymous node (a token) is passed over, as `kids` passes over it.
        if n.is_named() && f(n, depth) && c.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if depth == 1 || !c.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}

/// A node's named children.
pub(crate) fn kids<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    // The count is kept in the node: a leaf (about half the nodes a walk visits) needs no
    // cursor, and the others one allocation.
    let count = n.named_child_count();
    if count == 0 {
        return Vec::new();
    }
    let mut c = n.walk();
    let mut out = Vec::with_capacity(count);
    out.extend(n.named_children(&mut c));
    out
}

/// Source text as a signature: whitespace runs collapsed to one space, cut to 160 bytes on a
/// character boundary.
pub(crate) fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    if out.len() > 160 {
        let mut cut = 160;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    out
}

/// A reference phase 1 leaves to phase 2 (Python, TypeScript, Dart): where it is written, the
/// declaration it is written in, how it uses what it names (`U`) and what it names (`T`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Ref<U, T> {
    pub line: u32,
    pub column: u32,
    /// The enclosing declaration, or `None` for the module symbol.
    pub from: Option<usize>,
    pub usage: U,
    pub target: T,
}

impl<U, T> Ref<U, T> {
    /// A reference written at node `at`.
    pub(crate) fn at(at: Node, from: Option<usize>, usage: U, target: T) -> Self {
        let (line, column) = pos(at);
        Ref {
            line,
            column,
            from,
            usage,
            target,
        }
    }
}

/// What one member type of a written union says about a member name.
pub(crate) enum UnionPart<T> {
    /// It declares the name: these declarations, `exact` when nothing else is possible.
    Declares(Vec<T>, bool),
    /// It is fully known and lacks the name.
    Lacks,
    /// Its members are not known.
    Unknown,
}

/// What a member name denotes on a value of a written union type.
pub(crate) enum UnionHit<T> {
    /// The declarations found, exact when exactly one member type declares the name and every
    /// other one is known to lack it (narrowing cannot pick anything else).
    Found(Vec<T>, bool),
    /// Every member type is known and none declares it.
    Lacks,
    /// None declares it, and some member type is not known.
    Unknown,
}

/// Folds the answers of a union's member types (TypeScript and Python alike).
pub(crate) fn union_hit<T: PartialEq>(
    parts: impl IntoIterator<Item = UnionPart<T>>,
) -> UnionHit<T> {
    let mut found: Vec<T> = Vec::new();
    let mut all_known = true;
    let mut declaring = 0;
    for p in parts {
        match p {
            UnionPart::Declares(v, exact) => {
                declaring += 1;
                all_known &= exact;
                for x in v {
                    if !found.contains(&x) {
                        found.push(x);
                    }
                }
            }
            UnionPart::Lacks => {}
            UnionPart::Unknown => all_known = false,
        }
    }
    match (found.is_empty(), all_known) {
        (true, true) => UnionHit::Lacks,
        (true, false) => UnionHit::Unknown,
        (false, _) => UnionHit::Found(found, all_known && declaring == 1),
    }
}

pub use crate::facts::Span;

impl Span {
    pub fn of(n: Node) -> Span {
        let (s, e) = (n.start_position(), n.end_position());
        Span {
            start_line: s.row as u32 + 1,
            start_column: s.column as u32,
            end_line: e.row as u32 + 1,
            end_column: e.column as u32,
            start_byte: n.start_byte() as u32,
            end_byte: n.end_byte() as u32,
        }
    }
}

impl Span {
    /// The span of a whole file of `lines` lines and `size` bytes: a module symbol's.
    pub fn whole_file(lines: u32, size: u32) -> Span {
        Span {
            start_line: 1,
            start_column: 0,
            end_line: lines,
            end_column: 0,
            start_byte: 0,
            end_byte: size,
        }
    }
}

/// Where a symbol is declared: its repository, package, file and language.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Home {
    pub repo: RepoId,
    pub package: PackageId,
    pub file: FileId,
    pub language: Language,
}

impl Home {
    /// The symbol of a declaration at `span`.
    pub(crate) fn symbol(
        self,
        name: String,
        qualified_name: String,
        kind: SymbolKind,
        exported: bool,
        signature: Option<String>,
        span: Span,
    ) -> Symbol {
        Symbol {
            repo: self.repo,
            package: self.package,
            file: self.file,
            language: self.language,
            name,
            qualified_name,
            kind,
            exported,
            signature,
            span,
        }
    }

    /// Makes the home's package the file's, and pushes the file's module symbol (see
    /// [`Home::module`]); returns that symbol.
    pub(crate) fn push_module(self, facts: &mut FactSet, path: &str, qn: String) -> SymbolId {
        let f = &mut facts.files[self.file];
        f.package = Some(self.package);
        let (lines, size) = (f.lines.max(1), f.size as u32);
        facts.push_symbol(self.module(path, qn, lines, size))
    }

    /// The module symbol of the file at `path` (`lines` lines, `size` bytes): named by the
    /// path's last part, never exported, spanning the whole file.
    pub(crate) fn module(
        self,
        path: &str,
        qualified_name: String,
        lines: u32,
        size: u32,
    ) -> Symbol {
        let name = path.rsplit('/').next().unwrap_or(path).to_string();
        self.symbol(
            name,
            qualified_name,
            SymbolKind::Module,
            false,
            None,
            Span::whole_file(lines, size),
        )
    }
}

#[cfg(test)]
mod unread_tests {
    use super::*;

    #[test]
    fn names_in_error_regions_are_found_once_and_whole_files_give_every_name() {
        let src = "package p\n\nfunc ok() { Used() }\n\nvar = = Lost(x) Lost ]] Lost\n";
        let go: tree_sitter::Language = tree_sitter_go::LANGUAGE.into();
        let names = unread_names(src, go.clone(), false);
        let found: Vec<&str> = names.iter().map(|n| n.0.as_str()).collect();
        assert!(found.contains(&"Lost"), "{names:?}");
        assert!(
            !found.contains(&"Used") && !found.contains(&"ok"),
            "{names:?}"
        );
        assert_eq!(found.iter().filter(|n| **n == "Lost").count(), 1);
        let lost = names.iter().find(|n| n.0 == "Lost").unwrap();
        assert_eq!(
            (lost.1, &src.lines().nth(4).unwrap()[lost.2 as usize..][..4]),
            (5, "Lost")
        );
        // A clean file has no unread part, unless it is read as a whole.
        assert!(unread_names("package p\nfunc f() { g() }\n", go.clone(), false).is_empty());
        let all = unread_names("package p\nfunc f() { g() }\n", go, true);
        let all: Vec<&str> = all.iter().map(|n| n.0.as_str()).collect();
        assert_eq!(all, ["p", "f", "g"]);
    }

    /// An extraction's first parse gives the same unread names a parse of their own gives, for
    /// the same text and grammar only; a second parse, or a nested extraction, does not take
    /// its place.
    #[test]
    fn the_first_parse_of_an_extraction_gives_its_unread_names() {
        let go: tree_sitter::Language = tree_sitter_go::LANGUAGE.into();
        let py: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        for src in [
            "package p\n\nfunc ok() { Used() }\n\nvar = = Lost(x) Lost ]] Lost\n",
            "package p\nfunc f() { a := b(; c.d }\n",
            "package p\nfunc clean() { x() }\n",
        ] {
            let other = format!("{src}\nfunc ( {{ Other\n");
            let ((), first) = with_first_parse(|| {
                parse(src, go.clone());
                parse(&other, go.clone());
            });
            let want = unread_names(src, go.clone(), false);
            assert_eq!(first.unwrap().unread_of(src, &go), Some(want), "{src}");

            // Not for another text (even the same bytes elsewhere) or another grammar.
            let copy = String::from(src);
            let ((), first) = with_first_parse(|| drop(parse(src, go.clone())));
            assert_eq!(first.unwrap().unread_of(copy.as_str(), &go), None);
            let ((), first) = with_first_parse(|| drop(parse(src, go.clone())));
            assert_eq!(first.unwrap().unread_of(src, &py), None);
        }
        // A nested extraction sees its own first parse; the outer one keeps its own.
        let (outer, inner) = ("package a\nfunc ( A\n", "package b\nfunc ( B\n");
        let (nested, first) = with_first_parse(|| {
            let nested = with_first_parse(|| drop(parse(inner, go.clone()))).1;
            parse(outer, go.clone());
            nested
        });
        let inner_names = nested.unwrap().unread_of(inner, &go).unwrap();
        assert_eq!(inner_names, unread_names(inner, go.clone(), false));
        assert!(inner_names.iter().any(|n| n.0 == "B"), "{inner_names:?}");
        let outer_names = first.unwrap().unread_of(outer, &go).unwrap();
        assert!(outer_names.iter().any(|n| n.0 == "A"), "{outer_names:?}");
        // Outside an extraction nothing is kept.
        parse(outer, go.clone());
        assert!(FIRST_PARSE.with(|slot| slot.borrow().is_none()));
    }
}

#[cfg(test)]
mod walk_tests {
    use super::*;

    /// The nodes a recursion over `kids` reaches, each before its children.
    fn by_kids<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) {
        out.push(n);
        for k in kids(n) {
            by_kids(k, out);
        }
    }

    #[test]
    fn each_named_visits_what_a_recursion_over_kids_visits_in_the_same_order() {
        let sources: [(&str, tree_sitter::Language); 4] = [
            (
                "const a = (x && y) || z; if (a) { b = c++; } else { f(`t${g}`); }\nlet = = ;",
                tree_sitter_typescript::LANGUAGE_TSX.into(),
            ),
            (
                "def f(x):\n    global g\n    if x:\n        self.y = [i for i in x]\n    ) broken\n",
                tree_sitter_python::LANGUAGE.into(),
            ),
            (
                "package p\nfunc f() { for i := range x { g(i) } }\n",
                tree_sitter_go::LANGUAGE.into(),
            ),
            (
                "#[cfg(test)] mod t { fn f() { m!(a, b); } }",
                tree_sitter_rust::LANGUAGE.into(),
            ),
        ];
        for (src, language) in sources {
            let tree = parse(src, language).unwrap();
            let root = tree.root_node();
            let mut want = Vec::new();
            by_kids(root, &mut want);
            let mut got = Vec::new();
            assert!(each_named(root, |n| {
                got.push(n);
                true
            }));
            assert_eq!(got, want, "{src}");
            // From an inner node the walk stays inside it.
            let inner = kids(root)[0];
            let (mut want, mut got) = (Vec::new(), Vec::new());
            by_kids(inner, &mut want);
            each_named(inner, |n| {
                got.push(n);
                true
            });
            assert_eq!(got, want, "{src}");
            // It stops when asked, after exactly the nodes it was given.
            let mut seen = 0;
            assert!(!each_named(root, |_| {
                seen += 1;
                seen < 3
            }));
            assert_eq!(seen, 3);

            // Below a node, pruned where the callback says, with depths.
            for (i, top) in [root, kids(root)[0]].into_iter().enumerate() {
                let prune = |n: Node| n.kind_name().len() % 3 == i;
                let mut want = Vec::new();
                below_by_kids(top, 1, &prune, &mut want);
                let mut got = Vec::new();
                walk_named_below(top, |n, depth| {
                    got.push((n, depth));
                    !prune(n)
                });
                assert_eq!(got, want, "{src}");
                assert!(!want.is_empty() || kids(top).is_empty());
            }
        }
    }

    /// Every node's kind from the table is the grammar's own, tokens, aliased nodes, error
    /// and missing nodes included, in each of the grammars a compile uses.
    #[test]
    fn the_kind_table_gives_each_grammars_own_kinds() {
        let sources: [(&str, tree_sitter::Language); 7] = [
            (
                "const a = (x && y) || z; <div>{a}</div>; type T = { k?: string }; let = = ;",
                tree_sitter_typescript::LANGUAGE_TSX.into(),
            ),
            (
                "enum E { A } abstract class C<T> implements I { #p = 1; } f(",
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            ),
            (
                "def f(x):\n    if x:\n        return [i for i in x]\n    ) broken\n",
                tree_sitter_python::LANGUAGE.into(),
            ),
            (
                "package p\nfunc f[T any]() { for i := range x { g(i) } ; var }\n",
                tree_sitter_go::LANGUAGE.into(),
            ),
            (
                "#[cfg(test)] mod t { fn f<'a>() -> impl Fn() { m!(a, b); } } struct",
                tree_sitter_rust::LANGUAGE.into(),
            ),
            (
                "class A extends B { void f() => g(); } int x = ;",
                tree_sitter_dart::LANGUAGE.into(),
            ),
            ("x = 1", tree_sitter_go::LANGUAGE.into()),
        ];
        for (src, language) in sources {
            let tree = parse(src, language).unwrap();
            let mut seen = 0;
            let mut c = tree.root_node().walk();
            // Every node, named or not, in one pre-order walk.
            'walk: loop {
                let n = c.node();
                assert_eq!(n.kind_name(), n.kind(), "{src} at {}", n.start_byte());
                seen += 1;
                if c.goto_first_child() || c.goto_next_sibling() {
                    continue;
                }
                loop {
                    if !c.goto_parent() {
                        break 'walk;
                    }
                    if c.goto_next_sibling() {
                        break;
                    }
                }
            }
            assert!(seen > 5, "{src}");
        }
    }

    /// The nodes below `n` a recursion over `kids` reaches, with their depth, not going under a
    /// node `prune` names.
    fn below_by_kids<'t>(
        n: Node<'t>,
        depth: usize,
        prune: &dyn Fn(Node) -> bool,
        out: &mut Vec<(Node<'t>, usize)>,
    ) {
        for k in kids(n) {
            out.push((k, depth));
            if !prune(k) {
                below_by_kids(k, depth + 1, prune, out);
            }
        }
    }
}
