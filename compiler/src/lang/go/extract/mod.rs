//! Phase 1 of Go: one file at a time, in parallel. Extracts declarations and every reference,
//! resolving locals on the spot (Go's block scopes never leave a file) so that only references
//! to package-level names, imports and members reach phase 2.
//!
//! - [`declarations`]: package-level declarations, signatures, fields and interface methods;
//! - [`statements`]: statements and the block scopes they open;
//! - [`expressions`]: expressions, types in type position and composite literals;
//! - [`typing`]: the type of an expression as far as the syntax shows it.

mod declarations;
mod expressions;
mod statements;
mod typing;

use crate::hash::HashMap;
use crate::lang::FieldExt;
use crate::lang::KindExt;
use std::cell::Cell;

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use crate::lang::{Bounded, Extraction, kids};

pub use crate::lang::Span;

/// A type as far as the syntax shows it, resolved against package scopes in phase 2.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Ty {
    /// A named type: `T`, `*T`, `pkg.T`, `T[int]`.
    Named { qual: Option<String>, name: String },
    /// Result `index` of calling `qual.name` (a function with declared results, or a conversion).
    Call {
        qual: Option<String>,
        name: String,
        index: usize,
    },
    /// Result `index` of calling method `name` on a value of type `recv`.
    MethodCall {
        recv: Box<Ty>,
        name: String,
        index: usize,
    },
    /// Field `name` of a value of type `base`.
    Field { base: Box<Ty>, name: String },
    /// The declared type of package-level variable `qual.name`.
    Value { qual: Option<String>, name: String },
    /// A slice or array whose elements have type `.0`.
    Container(Box<Ty>),
    /// The element (value) type of a container, map or channel of type `.0`: what indexing and
    /// receiving give, and `range` yields second (a channel's, first).
    Elem(Box<Ty>),
    /// A map, with its key and value types where the syntax shows them (one at least).
    Map {
        key: Option<Box<Ty>>,
        value: Option<Box<Ty>>,
    },
    /// A channel whose elements have type `.0`.
    Chan(Box<Ty>),
    /// What `range` over a value of type `.0` yields first: a map's key, a channel's element
    /// (over a slice, array or string, an `int` index).
    Key(Box<Ty>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Use {
    Call,
    Type,
    Value,
    /// A call argument: a function value here is passed as a callback.
    Arg,
    /// The value side of an assignment, declaration or literal element.
    Assign,
    /// A returned expression.
    Return,
}

/// What a reference names.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// A bare identifier that is not a local: package scope, dot imports or the universe.
    Ident(String),
    /// `operand.name` with a bare, non-local operand: an import, a package-level value or type.
    Selector {
        operand: String,
        name: String,
        /// Where the operand is written (the reference itself sits at `name`).
        operand_at: (u32, u32),
    },
    /// `x.name` where `x` is an expression of type `recv`, when known.
    Member { recv: Option<Ty>, name: String },
    /// A key of a keyed composite literal of type `ty`: a struct field name.
    FieldKey { ty: Ty, name: String },
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Ref {
    /// Index into [`GoFile::decls`], or `None` when no declaration encloses the use.
    pub source: Option<usize>,
    pub target: Target,
    pub usage: Use,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Import {
    /// `Some("x")` for an alias, `Some(".")`, `Some("_")`, or `None`.
    pub name: Option<String>,
    pub path: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Decl {
    pub name: String,
    pub qualified_name: String,
    pub kind: SymbolKind,
    pub signature: Option<String>,
    pub span: Span,
    /// Methods: the receiver's type name. Fields and interface methods: the owning type's name.
    pub owner: Option<String>,
    /// Vars, consts and fields: the declared type. Funcs and methods: declared results.
    pub ty: Option<Ty>,
    pub results: Vec<Option<Ty>>,
    /// Fields: embedded. Types: the type expression names another type (`type A B`, alias).
    pub embedded: bool,
    pub underlying: Option<Ty>,
    pub is_interface: bool,
    pub is_struct: bool,
    /// A type whose method set the syntax alone cannot list: generic, or an interface that
    /// embeds other interfaces or type constraints.
    pub opaque_method_set: bool,
    /// Interfaces: the named interfaces this one embeds (`io.Reader` in `interface { io.Reader;
    /// Close() error }`), whose methods it has.
    pub embeds: Vec<Ty>,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct GoFile {
    pub package_name: String,
    pub imports: Vec<Import>,
    pub decls: Vec<Decl>,
    pub refs: Vec<Ref>,
    pub has_errors: bool,
    /// Nesting went past [`MAX_DEPTH`]; the part below it was not extracted.
    pub too_deep: bool,
}

/// Syntax nesting the extractor follows before giving up on a subtree (recursion is bounded so a
/// pathological file can never overflow the stack).
pub const MAX_DEPTH: usize = 1000;

/// Extracts one parsed file, whose syntax tree is `root`.
pub fn extract(root: Node, src: &[u8]) -> GoFile {
    let mut x = Extractor {
        src,
        file: GoFile {
            has_errors: root.has_error(),
            ..Default::default()
        },
        scopes: Vec::new(),
        source: None,
        depth: 0,
        typing_depth: Cell::new(0),
    };
    for child in kids(root) {
        x.top_level(child);
    }
    x.file
}

impl Extraction for GoFile {
    fn set_has_errors(&mut self) {
        self.has_errors = true;
    }
}

/// The walk over one file: what it found so far, and the local scopes at the current node.
pub(super) struct Extractor<'s> {
    src: &'s [u8],
    file: GoFile,
    /// Local scopes, innermost last: name → known type.
    scopes: Vec<HashMap<String, Option<Ty>>>,
    source: Option<usize>,
    depth: usize,
    /// Nesting of the typing of one expression or written type (`typing.rs`), bounded by
    /// [`MAX_DEPTH`] like the walk: beyond it a type is unknown.
    typing_depth: Cell<usize>,
}

crate::lang::bounded_extractor!(too_deep);

impl<'s> Extractor<'s> {
    pub(super) fn text(&self, n: Node) -> &'s str {
        std::str::from_utf8(&self.src[n.byte_range()]).unwrap_or("")
    }

    /// Source text with whitespace runs collapsed, for signatures.
    fn compact(&self, n: Node) -> String {
        self.text(n)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn push_decl(&mut self, d: Decl) -> usize {
        self.file.decls.push(d);
        self.file.decls.len() - 1
    }

    fn decl(&self, name: &str, qn: String, kind: SymbolKind, span: Span) -> Decl {
        Decl {
            name: name.to_string(),
            qualified_name: qn,
            kind,
            signature: None,
            span,
            owner: None,
            ty: None,
            results: Vec::new(),
            embedded: false,
            underlying: None,
            is_interface: false,
            is_struct: false,
            opaque_method_set: false,
            embeds: Vec::new(),
        }
    }

    fn add_ref(&mut self, target: Target, usage: Use, at: Node) {
        let p = at.start_position();
        self.file.refs.push(Ref {
            source: self.source,
            target,
            usage,
            line: p.row as u32 + 1,
            column: p.column as u32,
        });
    }

    pub(super) fn lookup_local(&self, name: &str) -> Option<&Option<Ty>> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn declare_local(&mut self, name: &str, ty: Option<Ty>) {
        if name == "_" {
            return;
        }
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), ty);
        }
    }

    fn declare_all(&mut self, pending: Vec<(String, Option<Ty>)>) {
        for (name, ty) in pending {
            self.declare_local(&name, ty);
        }
    }

    /// Runs `walk` one level deeper in the syntax, unless [`MAX_DEPTH`] is reached: then the
    /// subtree is skipped and the file marked as read in part.
    fn nested(&mut self, walk: impl FnOnce(&mut Self)) {
        self.bounded((), walk)
    }

    fn with_scope(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(HashMap::default());
        f(self);
        self.scopes.pop();
    }
}

/// Two fields of `n`, when both are there.
pub(super) fn fields<'t>(n: Node<'t>, a: &str, b: &str) -> Option<(Node<'t>, Node<'t>)> {
    Some((n.field(a)?, n.field(b)?))
}

pub(super) fn named(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| k.kind_name() != "comment")
        .collect()
}

fn count_field(n: Node, field: &str) -> usize {
    let mut c = n.walk();
    n.children_by_field_name(field, &mut c).count()
}

fn has_token(n: Node, token: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c)
        .any(|k| !k.is_named() && k.kind_name() == token)
}

fn collect_kind<'t>(n: Node<'t>, kind: &str, out: &mut Vec<Node<'t>>) {
    if n.kind_name() == kind {
        out.push(n);
        return;
    }
    let mut c = n.walk();
    for k in n.named_children(&mut c) {
        collect_kind(k, kind, out);
    }
}

fn nearest_ancestor<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut p = n.parent();
    while let Some(x) = p {
        if x.kind_name() == kind {
            return Some(x);
        }
        p = x.parent();
    }
    None
}

/// Whether a name is exported: its first character is upper case.
pub fn exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}
