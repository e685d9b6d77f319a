//! Phase 1 of Python: one file at a time, in parallel. Declares the module's symbols (module
//! level, class bodies and `self.x` fields), then walks every statement with Python's scopes:
//! a function's locals are the names it assigns anywhere in its body (`global` and `nonlocal`
//! aside), comprehensions have their own scope, and a class body's names are visible only to
//! the code directly in it. Names are bound on the spot; imports and members of imported types
//! are left to phase 2 as descriptions ([`Expr`], [`TypeRef`]).

mod assign;
mod control;
mod declare;
mod definitions;
mod describe;
mod scope;
mod walk;

use crate::hash::{HashMap, HashSet};
use crate::lang::FieldExt;
use crate::lang::KindExt;

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

pub use crate::lang::shared::extract::NameRes;
use crate::lang::shared::extract::{FileRecord, Owned, extract_file, owned_extractor};
use crate::lang::{Bounded, Span, collapse, kids, pos, text};

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TypeRef {
    /// `C`, `m.C`: the head bound in the file, then attribute names.
    Named {
        head: NameRes,
        path: Vec<String>,
    },
    /// `list[C]`, `Sequence[C]`, …: a container of C.
    Seq(Box<TypeRef>),
    /// `dict[K, V]`, `Mapping[K, V]`, …: a mapping of K to V.
    Map(Box<TypeRef>, Box<TypeRef>),
    Union(Vec<TypeRef>),
    /// Known and not a declaration (`int`, `str`, `None`, …).
    External,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Expr {
    Unknown,
    External,
    Name(NameRes),
    /// `self` (or `cls`) in a method of the class declared by this decl.
    SelfOf(usize),
    /// `super()` in a method of this class.
    Super(usize),
    Member(Box<Expr>, String),
    Call(Box<Expr>),
    /// An element of the iterable `.0` (`for x in xs`).
    Elem(Box<Expr>),
    /// `.0[…]`: an element of a sequence, a value of a mapping.
    Index(Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Use {
    Value,
    Call,
    Type,
    Extends,
    Import,
    Argument,
    /// A decorator without arguments: a reference to the decorating callable.
    Decorator,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum RefTarget {
    Name(NameRes, String),
    Member(Expr, String),
    /// The imported name of import `.0` (`x` of `from m import x`).
    Imported(usize),
    /// The module named by the last part of an `import a.b.c` (import `.0`).
    ImportedModule(usize),
}

pub type Ref = crate::lang::Ref<Use, RefTarget>;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Decl {
    pub name: String,
    pub qn: String,
    pub kind: SymbolKind,
    pub parent: Option<usize>,
    pub exported: bool,
    pub span: Span,
    pub signature: Option<String>,
    /// Written annotation (fields, variables) or return annotation (functions, methods,
    /// properties).
    pub ty: Option<TypeRef>,
    /// The single assigned value of a field or variable without annotation.
    pub value: Option<Expr>,
    /// How many assignments declare or rebind it; with more than one, `value` is not used.
    pub assignments: u32,
    /// Base classes, as written.
    pub bases: Vec<TypeRef>,
    /// Members by name (classes).
    #[serde(serialize_with = "crate::hash::sorted_map")]
    pub members: HashMap<String, usize>,
    /// A field declared by `self.x = …` in a method rather than in the class body.
    pub from_self: bool,
    /// That first `self.x` assignment carries an annotation.
    pub annotated: bool,
    /// `@staticmethod` / `@classmethod`.
    pub static_method: bool,
    pub class_method: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ImportKind {
    /// `import a.b.c` binds `a`; `import a.b as c` binds `c` to `a.b` (`alias`).
    Module { alias: bool },
    /// `from m import name`.
    From(String),
    /// `from m import *`.
    Star,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Import {
    /// The name the import binds (empty for `*`).
    pub local: String,
    /// Written in a `try` statement (`try: import ssl` / `except ImportError: ssl = None`).
    pub guarded: bool,
    /// The dotted module as written, with leading dots for a relative import.
    pub module: String,
    pub kind: ImportKind,
    pub line: u32,
    pub column: u32,
    /// Position of the last part of the dotted module (`c` of `import a.b.c`).
    pub module_line: u32,
    pub module_column: u32,
    /// At module level (not inside a function or class).
    pub top: bool,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Local {
    pub ty: Option<TypeRef>,
    pub value: Option<Expr>,
    pub assignments: u32,
    /// The values of the assignments after the first (`None`: not described).
    pub later: Vec<Option<Expr>>,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PyFile {
    pub decls: Vec<Decl>,
    pub locals: Vec<Local>,
    pub imports: Vec<Import>,
    pub refs: Vec<Ref>,
    /// Module-level names.
    #[serde(serialize_with = "crate::hash::sorted_map")]
    pub scope: HashMap<String, NameRes>,
    /// `__all__` when it is a list or tuple of string literals.
    pub all: Option<Vec<String>>,
    pub has_error: bool,
}

const BUILTIN_NAMES: &str = include_str!("../builtins.txt");

pub(crate) fn is_builtin(name: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| BUILTIN_NAMES.split_whitespace().collect())
        .contains(name)
}

fn header(n: Node, src: &str) -> Option<String> {
    let end = n.field("body").map_or(n.end_byte(), |b| b.start_byte());
    let s = collapse(src[n.start_byte()..end].trim_end().trim_end_matches(':'));
    (!s.is_empty()).then_some(s)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    /// A class body; `.0` the class decl when it is recorded.
    Class(Option<usize>),
    Function,
    Comprehension,
}

struct Scope {
    kind: ScopeKind,
    names: HashMap<String, NameRes>,
    globals: HashSet<String>,
    nonlocals: HashSet<String>,
}

impl Scope {
    fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            names: HashMap::default(),
            globals: HashSet::default(),
            nonlocals: HashSet::default(),
        }
    }
}

/// The method context: the class, and the names of `self` and `cls`.
#[derive(Clone)]
struct MethodContext {
    class: usize,
    receiver: Option<String>,
}

struct Extractor<'s> {
    src: &'s str,
    file: PyFile,
    scopes: Vec<Scope>,
    decl_at: HashMap<(usize, u16), usize>,
    owner: Option<usize>,
    method: Option<MethodContext>,
    depth: usize,
    /// Names narrowed by `isinstance` in the branch being walked: (name, the local that
    /// stands for it there, the scope depth it applies at).
    narrowings: Vec<(String, usize, usize)>,
}

const MAX_DEPTH: usize = 400;
/// Descriptions of receivers and types keep at most this many levels; deeper is unknown.
const MAX_EXPR: usize = 24;

/// How many levels a receiver description has.
fn expr_depth(e: &Expr) -> usize {
    let mut d = 0;
    let mut cur = e;
    loop {
        match cur {
            Expr::Member(b, _) | Expr::Call(b) | Expr::Elem(b) | Expr::Index(b) => {
                d += 1;
                cur = b;
            }
            _ => return d,
        }
    }
}

impl FileRecord for PyFile {
    fn has_error_mut(&mut self) -> &mut bool {
        &mut self.has_error
    }
}

/// Extracts one file.
pub fn extract(src: &str) -> PyFile {
    let language = tree_sitter_python::LANGUAGE.into();
    extract_file(src, language, |root, file| {
        let mut x = Extractor {
            src,
            file,
            scopes: vec![Scope::new(ScopeKind::Module)],
            decl_at: HashMap::default(),
            owner: None,
            method: None,
            depth: 0,
            narrowings: Vec::new(),
        };
        x.declare_block(root, None, "");
        x.file.scope = x.scopes[0].names.clone();
        x.walk_block(root);
        x.mark_exported();
        x.file
    })
}

crate::lang::bounded_extractor!(has_error);
owned_extractor!();

impl<'s> Extractor<'s> {
    fn t(&self, n: Node) -> &'s str {
        text(n, self.src)
    }

    fn new_decl(
        &mut self,
        n: Node,
        name: &str,
        kind: SymbolKind,
        parent: Option<usize>,
        prefix: &str,
    ) -> usize {
        let id = self.file.decls.len();
        self.file.decls.push(Decl {
            name: name.to_string(),
            qn: format!("{prefix}{name}"),
            kind,
            parent,
            exported: false,
            span: Span::of(n),
            signature: match kind {
                SymbolKind::Function
                | SymbolKind::Method
                | SymbolKind::StaticMethod
                | SymbolKind::Property
                | SymbolKind::Class => header(n, self.src),
                _ => None,
            },
            ty: None,
            value: None,
            assignments: 0,
            bases: Vec::new(),
            members: HashMap::default(),
            from_self: false,
            annotated: false,
            static_method: false,
            class_method: false,
        });
        if let Some(p) = parent {
            self.file.decls[p].members.insert(name.to_string(), id);
        }
        self.decl_at.insert((n.start_byte(), n.kind_id()), id);
        id
    }
}

fn flatten_bitor<'t>(n: Node<'t>, src: &str, out: &mut Vec<Node<'t>>) {
    if n.kind_name() == "binary_operator"
        && n.field("operator").is_some_and(|o| text(o, src) == "|")
    {
        if let Some(l) = n.field("left") {
            flatten_bitor(l, src, out);
        }
        if let Some(r) = n.field("right") {
            flatten_bitor(r, src, out);
        }
    } else if n.kind_name() == "type" {
        match n.named_child(0) {
            Some(c) => flatten_bitor(c, src, out),
            None => out.push(n),
        }
    } else {
        out.push(n);
    }
}

fn innermost_value(a: Node) -> Node {
    let mut cur = a;
    while cur.kind_name() == "assignment" {
        match cur.field("right") {
            Some(r) => cur = r,
            None => break,
        }
    }
    cur
}

/// The name of a function's first parameter (`self`, `cls`).
fn first_param(def: Node, src: &str) -> Option<String> {
    let params = def.field("parameters")?;
    let p = kids(params)
        .into_iter()
        .find(|k| k.kind_name() != "comment")?;
    let id = match p.kind_name() {
        "identifier" => p,
        "typed_parameter" => kids(p)
            .into_iter()
            .find(|k| k.kind_name() == "identifier")?,
        "default_parameter" | "typed_default_parameter" => p.field("name")?,
        _ => return None,
    };
    Some(text(id, src).to_string())
}

/// Attribute nodes among assignment targets.
fn attribute_targets<'t>(t: Node<'t>, out: &mut Vec<Node<'t>>) {
    match t.kind_name() {
        "attribute" => out.push(t),
        "pattern_list" | "tuple_pattern" | "list_pattern" => {
            for k in kids(t) {
                attribute_targets(k, out);
            }
        }
        _ => {}
    }
}

/// Identifier names among assignment targets.
fn target_names(t: Node, src: &str, out: &mut Vec<String>) {
    match t.kind_name() {
        "identifier" => out.push(text(t, src).to_string()),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "as_pattern_target"
        | "tuple"
        | "list"
        | "list_splat_pattern"
        | "parenthesized_expression" => {
            for k in kids(t) {
                target_names(k, src, out);
            }
        }
        _ => {}
    }
}

/// The names a `case` pattern captures.
fn case_captures(n: Node, src: &str, out: &mut Vec<String>) {
    match n.kind_name() {
        "dotted_name" => {
            let parts = kids(n);
            if parts.len() == 1 {
                out.push(text(parts[0], src).to_string());
            }
        }
        "class_pattern" => {
            for (i, k) in kids(n).into_iter().enumerate() {
                if !(i == 0 && k.kind_name() == "dotted_name") {
                    case_captures(k, src, out);
                }
            }
        }
        "keyword_pattern" => {
            for (i, k) in kids(n).into_iter().enumerate() {
                if i > 0 {
                    case_captures(k, src, out);
                }
            }
        }
        "identifier" => out.push(text(n, src).to_string()),
        "as_pattern_target" | "splat_pattern" => {
            for k in kids(n) {
                if k.kind_name() == "identifier" {
                    out.push(text(k, src).to_string());
                }
            }
        }
        _ => {
            for k in kids(n) {
                case_captures(k, src, out);
            }
        }
    }
}

fn target_names_any(n: Node, src: &str, out: &mut Vec<String>) {
    for k in kids(n) {
        target_names(k, src, out);
    }
}
