//! Phase 1 of TypeScript/JavaScript: one file at a time, in parallel. Declares the module's
//! symbols, then walks every statement with its lexical scopes (hoisting included), so that
//! each name is bound on the spot to a declaration of the file, an import, a local or nothing.
//! What needs other modules (imports, members of imported types) is left to phase 2 as
//! descriptions: [`Expr`] for receivers and [`TypeRef`] for written types.

mod declare;
mod describe;
mod modules;
mod narrow;
mod repair;
mod scope;
mod walk;

use crate::hash::{HashMap, HashSet};
use crate::lang::FieldExt;
use crate::lang::KindExt;

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

pub use crate::lang::shared::extract::NameRes;
use crate::lang::shared::extract::{FileRecord, Owned, extract_tree, owned_extractor};
use crate::lang::{Bounded, Span, collapse, kids, pos, text};

/// A type as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TypeRef {
    /// `T`, `ns.T`, `T<A>`: the head bound in the file, then member names.
    Named {
        head: NameRes,
        path: Vec<String>,
        args: Vec<TypeRef>,
    },
    /// `T[]`.
    Array(Box<TypeRef>),
    /// `[A, B]` (named and optional members too): the types of the leading members, up to a
    /// rest member.
    Tuple(Vec<TypeRef>),
    /// A type that is known and not a declaration of any module (`string`, literal types).
    External,
    /// The polymorphic `this` type of a method's result.
    This,
    /// A function type, with its parameters' written types and its return type.
    Fn(Vec<Option<TypeRef>>, Option<Box<TypeRef>>),
    /// The return type of the function type `.0` (what a function typed by it returns).
    Ret(Box<TypeRef>),
    /// `.1`, written in module `.0` (made by phase 2 when it instantiates a generic type).
    In(usize, Box<TypeRef>),
    /// `check extends any ? then : other` (`extends_any`; `unknown` too), or a conditional type
    /// whose condition is not followed.
    Cond {
        check: Box<TypeRef>,
        extends_any: bool,
        then: Box<TypeRef>,
    },
    /// `{ [k in keyof T]: … }` (no `as` clause): a mapped type over `T`'s properties, whose
    /// members are `T`'s declarations.
    Mapped(Box<TypeRef>),
    /// `A | B` (without `null` and `undefined`), with at least two members.
    Union(Vec<TypeRef>),
    /// `A & B`.
    Intersection(Vec<TypeRef>),
    /// An object type literal: its properties' names and written types.
    Object(Vec<(String, Option<TypeRef>)>),
    /// `T["key"]`: the type of property `key` of `T`.
    Index(Box<TypeRef>, String),
    /// A string literal type (`"circle"`): what a discriminant comparison tests.
    Literal(String),
    /// A type predicate `p is T` as a function's return type: parameter `.0` (its position
    /// once the function is walked; before that, `usize::MAX`) is a `T` where the call is
    /// true. `.2` is the parameter's name.
    Predicate(usize, Box<TypeRef>, String),
    Unknown,
}

/// What an expression is, as far as phase 2 needs it to type a receiver.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Expr {
    Unknown,
    Name(NameRes),
    /// `this` inside the class declared by this decl (`None`: not a recorded class).
    This(Option<usize>),
    Super(Option<usize>),
    Member(Box<Expr>, String),
    Call(Box<Expr>),
    New(Box<Expr>),
    Typed(TypeRef),
    /// An element of the iterable or array `.0` (for-of, `a[i]`).
    Elem(Box<Expr>),
    /// Element `.1` of the tuple or array `.0` (`t[1]`, `const [a, b] = t`).
    Nth(Box<Expr>, usize),
    Await(Box<Expr>),
    /// The props of the JSX component `.0` (its first parameter's written type).
    JsxProps(Box<Expr>),
    /// Parameter `param` of a function written as argument `arg` of a call of `callee`: typed
    /// by the callee's declared parameter type when that is a function type.
    CallbackParam {
        callee: Box<Expr>,
        arg: usize,
        param: usize,
        /// The call's written type arguments and the type its result is assigned to: what
        /// instantiates a type parameter of the callee that the parameter is typed by.
        call: Box<CallTypes>,
    },
    /// Parameter `param` of a function whose context gives it the written function type `ty`.
    ContextParam {
        ty: TypeRef,
        param: usize,
    },
    /// Parameter `param` of a function assigned to the member `target` (`o.m = (p) => …`):
    /// typed by that member's declared parameters (a method) or its written function type.
    AssignedParam {
        target: Box<Expr>,
        param: usize,
    },
    /// A value known not to be any module's declaration (literals, object literals).
    External,
    /// `.0` where a comparison of its property `key` with string literals holds: the member
    /// types of its union whose `key` may equal one of `lits` (`keep`), or may differ from
    /// all of them (`!keep`).
    Narrow {
        base: Box<Expr>,
        key: String,
        lits: Vec<String>,
        keep: bool,
    },
    /// `.0` where `"key" in .0` holds: the member types of its union that declare `key`.
    HasProp(Box<Expr>, String),
    /// `.0` where a call of `callee` with it as argument `arg` is true: the predicate's type
    /// when the callee is a type guard, else `.0` as it is.
    Guarded {
        base: Box<Expr>,
        callee: Box<Expr>,
        arg: usize,
    },
}

/// What a call says about the callee's type parameters: the type arguments written at the call
/// (`f<A>(…)`) and the written type of the variable its result initializes
/// (`const x: R<A> = f(…)`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CallTypes {
    pub args: Vec<TypeRef>,
    pub expected: Option<TypeRef>,
}

/// How a reference is used; phase 2 picks the edge kind from it and the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Use {
    Value,
    Call,
    Type,
    Extends,
    Implements,
    Import,
    Export,
    Reexport,
    /// An argument passed by name: a callback when the target is a function or method.
    Argument,
    /// `typeof x` in a type: the value `x`, used as a type.
    TypeOf,
    Jsx,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum RefTarget {
    Name(NameRes, String),
    /// `.0`, qualifying member `.1`.
    Qualifier(NameRes, String),
    Member(Expr, String),
    /// The imported name of import `.0`.
    Imported(usize),
    /// Item `.1` of re-export `.0`.
    Reexported(usize, usize),
}

pub type Ref = crate::lang::Ref<Use, RefTarget>;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Decl {
    pub name: String,
    pub qn: String,
    pub kind: SymbolKind,
    pub parent: Option<usize>,
    pub exported: bool,
    pub is_static: bool,
    pub span: Span,
    pub signature: Option<String>,
    /// Written type (fields, properties, variables), or for type aliases the aliased type.
    pub ty: Option<TypeRef>,
    /// Initializer of a variable or field without a written type.
    pub value: Option<Expr>,
    /// Declared return type (functions, methods, getters).
    pub ret: Option<TypeRef>,
    /// What a function without a declared return type returns, when its body has one `return`
    /// with a value (or is an expression).
    pub returns: Option<Expr>,
    /// The written type of each parameter (JSX props are the first; callbacks' parameters are
    /// typed from the callee's).
    pub params: Vec<Option<TypeRef>>,
    pub extends: Vec<TypeRef>,
    pub implements: Vec<TypeRef>,
    /// Member declarations by name.
    #[serde(serialize_with = "crate::hash::sorted_map")]
    pub members: HashMap<String, Vec<usize>>,
    /// Where the heritage names were written, for the structural edges.
    pub heritage_at: Vec<(u32, u32)>,
    /// Has members no name lists: index, call or construct signatures, mapped types.
    pub open: bool,
    /// The type parameters of a function, method, interface or type alias, in order (locals of
    /// the file).
    pub type_params: Vec<usize>,
    /// The call signatures of an interface or object type alias: parameters' written types and
    /// the return type.
    pub calls: Vec<(Vec<Option<TypeRef>>, Option<TypeRef>)>,
    /// Signatures without a body (overloads); with more than one, the parameter and return
    /// types of a call depend on which overload applies and are not used.
    pub overloads: u8,
    /// `private` or `#name`: never exported with its container.
    pub private: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ImportKind {
    Named(String),
    Default,
    Namespace,
    /// `import x = require()`, `const x = require()`: the module's `export =` or its namespace.
    Require,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Import {
    /// The local name the import binds.
    pub local: String,
    pub kind: ImportKind,
    pub spec: String,
    /// The import statement's index in [`TsFile::specifiers`].
    pub statement: usize,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ReexportItem {
    /// `None` for `export *`.
    pub name: Option<String>,
    pub alias: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Reexport {
    pub statement: usize,
    /// Empty with `star` for `export * from`.
    pub items: Vec<ReexportItem>,
    pub star: bool,
    /// `export * as ns from`.
    pub star_as: Option<String>,
}

/// One module specifier written in the file (import, re-export, `require`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Specifier {
    pub spec: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Local {
    pub ty: Option<TypeRef>,
    pub value: Option<Expr>,
    /// The name it is bound to.
    pub name: String,
    /// A type parameter's default (`D = T["def"]`).
    pub default: Option<TypeRef>,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TsFile {
    pub decls: Vec<Decl>,
    pub locals: Vec<Local>,
    pub imports: Vec<Import>,
    pub specifiers: Vec<Specifier>,
    pub reexports: Vec<Reexport>,
    /// Exported name → the local binding (`export { a as b }`, `export default a`, declarations
    /// with `export`, CommonJS exports).
    pub exports: Vec<(String, NameRes)>,
    /// `export =` / `module.exports =`.
    pub export_equals: Option<Expr>,
    pub refs: Vec<Ref>,
    /// The names other than locals (and `this`) that a narrowing could apply to: written in a
    /// condition (`if`, `while`, `for`, `do`, `switch`, `?:`, the left of `&&`, `||`) or
    /// assigned. A value reached from none of them has its declared type.
    #[serde(serialize_with = "crate::hash::sorted_set")]
    pub narrowed: HashSet<String>,
    /// The locals written there.
    #[serde(serialize_with = "crate::hash::sorted_set")]
    pub narrowed_locals: HashSet<usize>,
    /// Top-level names.
    #[serde(serialize_with = "crate::hash::sorted_map")]
    pub scope: HashMap<String, Vec<NameRes>>,
    pub has_error: bool,
    /// Has `import`/`export` syntax: a module, not a script whose declarations are global.
    pub has_module_syntax: bool,
}

/// Names every JavaScript environment provides: the globals of TypeScript 5.9's
/// `lib.esnext.full.d.ts`, `lib.dom.iterable.d.ts` and `lib.scripthost.d.ts`, plus Node's and
/// the JSX namespace (`globals.txt`, one per line). A use of one is neither an edge nor an
/// unresolved record.
const GLOBAL_NAMES: &str = include_str!("../globals.txt");

/// Whether `name` is one of [`GLOBAL_NAMES`].
pub(super) fn is_global(name: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| GLOBAL_NAMES.split_whitespace().collect())
        .contains(name)
}

/// The string value of a `string` node, without quotes (escapes are left as written).
pub(super) fn string_value(n: Node, src: &str) -> String {
    let t = text(n, src);
    if t.len() >= 2 {
        t[1..t.len() - 1].to_string()
    } else {
        String::new()
    }
}

fn signature(n: Node, src: &str) -> Option<String> {
    let end = n.field("body").map_or(n.end_byte(), |b| b.start_byte());
    let s = collapse(&src[n.start_byte()..end]);
    (!s.is_empty()).then_some(s)
}

fn has_child(n: Node, kind: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c).any(|c| c.kind_name() == kind)
}

fn is_private(n: Node, src: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c)
        .any(|c| c.kind_name() == "accessibility_modifier" && text(c, src) == "private")
}

/// A scope of locals and declarations: name → bindings, newest last.
#[derive(Default)]
struct Scope {
    names: HashMap<String, Vec<NameRes>>,
}

/// Where a function expression's parameters get their types when they are not written.
#[derive(Clone)]
enum Context {
    /// Argument `.1` of a call of `.0`, with the call's type information.
    Argument(Expr, usize, CallTypes),
    /// The written type of what the function is assigned to (`const f: Handler = (e) => …`).
    Typed(TypeRef),
    /// The member the function is assigned to (`o.m = (e) => …`).
    Assigned(Expr),
}

struct Extractor<'s> {
    src: &'s str,
    file: TsFile,
    scopes: Vec<Scope>,
    /// Decl of each declaring node, by (start byte, kind id).
    decl_at: HashMap<(usize, u16), usize>,
    /// A variable's written type and the node of its initializer, when that is a call: the
    /// call's expected type.
    expected: Option<(usize, TypeRef)>,
    /// A name whose mentions in the condition being walked are a modelled discriminant test:
    /// they do not make it narrowable.
    quiet: Option<String>,
    /// The type a `return` of the function being walked is expected to have: its written
    /// return type, or the return type of the function type its context gives it.
    ret_ctx: Option<TypeRef>,
    /// The innermost enclosing declaration.
    owner: Option<usize>,
    /// The class `this` refers to: `Some(Some(decl))` in a recorded class, `Some(None)` in an
    /// unrecorded one or a plain function, `None` at module level.
    this_class: Option<Option<usize>>,
    /// The written type of `this` in a plain function with a `this:` parameter.
    this_type: Option<TypeRef>,
    /// Set while walking a function written as an argument: (callee, argument index).
    callback: Option<Context>,
    /// Nesting of `walk` (and of member chains): bounded, so that no input overflows a stack.
    depth: usize,
    /// Where a name may be narrowed ([`narrowing_ranges`]).
    narrowing: Vec<(usize, usize)>,
    /// The names each node asked about assigns below it, by node id ([`walk::assigned_names`]).
    assigned: std::cell::RefCell<HashMap<usize, crate::hash::HashSet<String>>>,
}

/// Deeper syntax than this is not walked: the file is marked partial.
const MAX_DEPTH: usize = 400;
/// Descriptions of receivers and types keep at most this many levels; deeper is unknown.
const MAX_EXPR: usize = 24;

impl FileRecord for TsFile {
    fn has_error_mut(&mut self) -> &mut bool {
        &mut self.has_error
    }
}

/// Extracts one file. `tsx` selects the grammar that accepts JSX.
pub fn extract(src: &str, tsx: bool) -> TsFile {
    let lang = if tsx {
        tree_sitter_typescript::LANGUAGE_TSX
    } else {
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT
    };
    extract_tree(repair::parse(src, lang.into()), |root, file| {
        let mut x = Extractor {
            src,
            file,
            scopes: vec![Scope::default()],
            decl_at: HashMap::default(),
            owner: None,
            this_class: None,
            this_type: None,
            callback: None,
            expected: None,
            quiet: None,
            ret_ctx: None,
            depth: 0,
            narrowing: narrowing_ranges(root),
            assigned: Default::default(),
        };
        x.declare_statements(root, None, "", true);
        let top = std::mem::take(&mut x.scopes[0].names);
        x.file.scope = top.clone();
        x.scopes[0].names = top;
        x.walk_children(root);
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

    /// Notes that `res` (named `name`), written at `n`, may be narrowed there.
    fn note_narrowing(&mut self, n: Node, name: &str, res: &NameRes) {
        if self.quiet.as_deref() == Some(name) {
            return;
        }
        let b = n.start_byte();
        let i = self.narrowing.partition_point(|&(s, _)| s <= b);
        if i == 0 || self.narrowing[i - 1].1 <= b {
            return;
        }
        match res {
            NameRes::Local(l) => {
                self.file.narrowed_locals.insert(*l);
            }
            _ => {
                self.file.narrowed.insert(name.to_string());
            }
        }
    }

    fn bind(&mut self, name: &str, res: NameRes) {
        if let NameRes::Local(l) = res
            && self.file.locals[l].name.is_empty()
        {
            self.file.locals[l].name = name.to_string();
        }
        if let Some(s) = self.scopes.last_mut() {
            s.names.entry(name.to_string()).or_default().push(res);
        }
    }

    fn lookup(&self, name: &str, want_type: bool) -> NameRes {
        for s in self.scopes.iter().rev() {
            if let Some(v) = s.names.get(name) {
                // A type name skips scopes that declare the name only as a value.
                let value_only = v.iter().all(|r| {
                    matches!(r, NameRes::Decl(d) if matches!(
                        self.file.decls[*d].kind,
                        SymbolKind::Function | SymbolKind::Variable | SymbolKind::Constant
                    ))
                });
                if want_type && value_only {
                    continue;
                }
                // A value name skips scopes that declare the name only as a type.
                let type_only = v.iter().all(|r| {
                    matches!(r, NameRes::Decl(d) if matches!(
                        self.file.decls[*d].kind,
                        SymbolKind::Interface | SymbolKind::TypeAlias
                    ))
                });
                if !want_type && type_only {
                    continue;
                }
                return self.pick(v, want_type).clone();
            }
        }
        NameRes::Unbound(name.to_string())
    }

    /// A name in an export list or `export default`: any meaning (a value first, else a type).
    fn lookup_any(&self, name: &str) -> NameRes {
        match self.lookup(name, false) {
            NameRes::Unbound(_) => self.lookup(name, true),
            r => r,
        }
    }

    /// Of several bindings of one name in one scope (declaration merging, or a value and a type
    /// of one name), the first that lives in the wanted namespace.
    fn pick<'a>(&self, v: &'a [NameRes], want_type: bool) -> &'a NameRes {
        v.iter()
            .find(|r| match r {
                NameRes::Decl(d) => {
                    let k = self.file.decls[*d].kind;
                    if want_type {
                        !matches!(
                            k,
                            SymbolKind::Function | SymbolKind::Variable | SymbolKind::Constant
                        )
                    } else {
                        !matches!(k, SymbolKind::Interface | SymbolKind::TypeAlias)
                    }
                }
                _ => true,
            })
            .unwrap_or(&v[0])
    }

    fn new_decl(
        &mut self,
        n: Node,
        name: &str,
        kind: SymbolKind,
        parent: Option<usize>,
        prefix: &str,
        exported: bool,
    ) -> usize {
        let id = self.file.decls.len();
        self.file.decls.push(Decl {
            name: name.to_string(),
            qn: format!("{prefix}{name}"),
            kind,
            parent,
            exported,
            is_static: false,
            span: Span::of(n),
            signature: signature(n, self.src),
            ty: None,
            value: None,
            ret: None,
            params: Vec::new(),
            extends: Vec::new(),
            implements: Vec::new(),
            members: HashMap::default(),
            heritage_at: Vec::new(),
            open: false,
            overloads: 0,
            type_params: Vec::new(),
            calls: Vec::new(),
            returns: None,
            private: name.starts_with('#'),
        });
        if let Some(p) = parent {
            self.file.decls[p]
                .members
                .entry(name.to_string())
                .or_default()
                .push(id);
        }
        self.decl_at.insert((n.start_byte(), n.kind_id()), id);
        id
    }

    /// Declarations exported by an export list, `export default x`, `export =` or
    /// `module.exports` are exported too, and so are the members of exported classes,
    /// interfaces, enums and type aliases that are not private.
    fn mark_exported(&mut self) {
        let mut named: Vec<usize> = self
            .file
            .exports
            .iter()
            .filter_map(|(_, r)| match r {
                NameRes::Decl(d) => Some(*d),
                _ => None,
            })
            .collect();
        if let Some(Expr::Name(NameRes::Decl(d))) = &self.file.export_equals {
            named.push(*d);
        }
        for d in named {
            self.file.decls[d].exported = true;
        }
        for i in 0..self.file.decls.len() {
            if let Some(p) = self.file.decls[i].parent {
                let parent = &self.file.decls[p];
                let carries = parent.exported
                    && matches!(
                        parent.kind,
                        SymbolKind::Class
                            | SymbolKind::Interface
                            | SymbolKind::Enum
                            | SymbolKind::TypeAlias
                    );
                if carries && !self.file.decls[i].private {
                    self.file.decls[i].exported = true;
                }
            }
        }
    }
}

fn collect_infers(n: Node, src: &str, out: &mut Vec<String>) {
    if n.kind_name() == "infer_type" {
        if let Some(t) = n.named_child(0) {
            out.push(text(t, src).to_string());
        }
        return;
    }
    for k in kids(n) {
        collect_infers(k, src, out);
    }
}

/// How many levels a receiver description has.
fn expr_depth(e: &Expr) -> usize {
    let mut d = 0;
    let mut cur = e;
    loop {
        match cur {
            Expr::Member(b, _)
            | Expr::Call(b)
            | Expr::New(b)
            | Expr::Elem(b)
            | Expr::Nth(b, _)
            | Expr::Await(b)
            | Expr::JsxProps(b) => {
                d += 1;
                cur = b;
            }
            _ => return d,
        }
    }
}

fn flatten_union<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) {
    if n.kind_name() == "union_type" {
        for k in kids(n) {
            flatten_union(k, out);
        }
    } else {
        out.push(n);
    }
}

fn unwrap_parens(n: Node) -> Node {
    let mut n = n;
    while matches!(
        n.kind_name(),
        "parenthesized_expression" | "non_null_expression"
    ) {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// The type a qualified heritage name denotes.
fn expr_type(e: Expr) -> TypeRef {
    let mut path = Vec::new();
    let mut cur = e;
    loop {
        match cur {
            Expr::Member(b, name) => {
                path.push(name);
                cur = *b;
            }
            Expr::Name(head) => {
                path.reverse();
                return TypeRef::Named {
                    head,
                    path,
                    args: Vec::new(),
                };
            }
            _ => return TypeRef::Unknown,
        }
    }
}

/// The names a binding pattern declares, with their identifier nodes.
fn pattern_names<'t>(p: Node<'t>, src: &str, out: &mut Vec<(String, Node<'t>)>) {
    match p.kind_name() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            out.push((text(p, src).to_string(), p))
        }
        "object_pattern" | "array_pattern" => {
            for k in kids(p) {
                match k.kind_name() {
                    "pair_pattern" => {
                        if let Some(v) = k.field("value") {
                            pattern_names(v, src, out);
                        }
                    }
                    "object_assignment_pattern" | "assignment_pattern" => {
                        if let Some(l) = k.field("left") {
                            pattern_names(l, src, out);
                        }
                    }
                    "rest_pattern" => {
                        if let Some(x) = k.named_child(0) {
                            pattern_names(x, src, out);
                        }
                    }
                    _ => pattern_names(k, src, out),
                }
            }
        }
        "assignment_pattern" => {
            if let Some(l) = p.field("left") {
                pattern_names(l, src, out);
            }
        }
        "rest_pattern" => {
            if let Some(x) = p.named_child(0) {
                pattern_names(x, src, out);
            }
        }
        _ => {}
    }
}

/// The byte ranges, sorted and disjoint, where TypeScript may narrow what a name denotes: the
/// condition of an `if`, loop, `switch` or `?:`, the left of `&&` and `||`, and a name
/// assigned to (assignment narrowing). (`a.p ?? d` narrows `a.p` alone.)
fn narrowing_ranges(root: Node) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    crate::lang::each_named(root, |n| {
        let field = match n.kind_name() {
            "if_statement" | "while_statement" | "do_statement" | "for_statement"
            | "ternary_expression" => Some("condition"),
            "switch_statement" => Some("value"),
            "assignment_expression" | "augmented_assignment_expression" => Some("left"),
            "binary_expression"
                if n.field("operator")
                    .is_some_and(|o| matches!(o.kind_name(), "&&" | "||")) =>
            {
                Some("left")
            }
            _ => None,
        };
        if let Some(c) = field.and_then(|f| n.field(f))
            // `x.p = v` narrows `x.p`, not `x`.
            && (field != Some("left") || n.kind_name() == "binary_expression" || c.kind_name() == "identifier")
        {
            out.push((c.start_byte(), c.end_byte()));
        }
        true
    });
    out.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(out.len());
    for (s, e) in out {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}
