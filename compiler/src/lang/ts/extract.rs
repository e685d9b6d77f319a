//! Phase 1 of TypeScript/JavaScript: one file at a time, in parallel. Declares the module's
//! symbols, then walks every statement with its lexical scopes (hoisting included), so that
//! each name is bound on the spot to a declaration of the file, an import, a local or nothing.
//! What needs other modules (imports, members of imported types) is left to phase 2 as
//! descriptions: [`Expr`] for receivers and [`TypeRef`] for written types.

use std::collections::HashMap;

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use crate::lang::Span;

/// How a name was bound in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameRes {
    /// A declaration of this file (index into [`TsFile::decls`]).
    Decl(usize),
    /// An import binding (index into [`TsFile::imports`]).
    Import(usize),
    /// A local variable, parameter, type parameter or local type (index into [`TsFile::locals`]).
    Local(usize),
    /// Declared nowhere in the file: a global, or a mistake.
    Unbound(String),
}

/// A type as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// `T`, `ns.T`, `T<A>`: the head bound in the file, then member names.
    Named {
        head: NameRes,
        path: Vec<String>,
        args: Vec<TypeRef>,
    },
    /// `T[]`.
    Array(Box<TypeRef>),
    /// A type that is known and not a declaration of any module (`string`, literal types).
    External,
    /// The polymorphic `this` type of a method's result.
    This,
    /// A function type, with its parameters' written types.
    Fn(Vec<Option<TypeRef>>),
    /// `A | B` (without `null` and `undefined`), with at least two members.
    Union(Vec<TypeRef>),
    /// `A & B`.
    Intersection(Vec<TypeRef>),
    /// An object type literal: its properties' names and written types.
    Object(Vec<(String, Option<TypeRef>)>),
    Unknown,
}

/// What an expression is, as far as phase 2 needs it to type a receiver.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    Await(Box<Expr>),
    /// The props of the JSX component `.0` (its first parameter's written type).
    JsxProps(Box<Expr>),
    /// Parameter `param` of a function written as argument `arg` of a call of `callee`: typed
    /// by the callee's declared parameter type when that is a function type.
    CallbackParam {
        callee: Box<Expr>,
        arg: usize,
        param: usize,
    },
    /// Parameter `param` of a function whose context gives it the written function type `ty`.
    ContextParam {
        ty: TypeRef,
        param: usize,
    },
    /// A value known not to be any module's declaration (literals, object literals).
    External,
}

/// How a reference is used; phase 2 picks the edge kind from it and the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

#[derive(Clone, Debug)]
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

#[derive(Clone, Debug)]
pub struct Ref {
    pub line: u32,
    pub column: u32,
    /// The enclosing declaration, or `None` for the module symbol.
    pub from: Option<usize>,
    pub usage: Use,
    pub target: RefTarget,
}

#[derive(Clone, Debug)]
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
    /// The written type of each parameter (JSX props are the first; callbacks' parameters are
    /// typed from the callee's).
    pub params: Vec<Option<TypeRef>>,
    pub extends: Vec<TypeRef>,
    pub implements: Vec<TypeRef>,
    /// Member declarations by name.
    pub members: HashMap<String, Vec<usize>>,
    /// Where the heritage names were written, for the structural edges.
    pub heritage_at: Vec<(u32, u32)>,
    /// Has members no name lists: index, call or construct signatures, mapped types.
    pub open: bool,
    /// Signatures without a body (overloads); with more than one, the parameter and return
    /// types of a call depend on which overload applies and are not used.
    pub overloads: u8,
    /// `private` or `#name`: never exported with its container.
    pub private: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportKind {
    Named(String),
    Default,
    Namespace,
    /// `import x = require()`, `const x = require()`: the module's `export =` or its namespace.
    Require,
}

#[derive(Clone, Debug)]
pub struct Import {
    /// The local name the import binds.
    #[allow(dead_code)]
    pub local: String,
    pub kind: ImportKind,
    pub spec: String,
    /// The import statement's index in [`TsFile::specifiers`].
    pub statement: usize,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug)]
pub struct ReexportItem {
    /// `None` for `export *`.
    pub name: Option<String>,
    pub alias: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug)]
pub struct Reexport {
    pub statement: usize,
    /// Empty with `star` for `export * from`.
    pub items: Vec<ReexportItem>,
    pub star: bool,
    /// `export * as ns from`.
    pub star_as: Option<String>,
}

/// One module specifier written in the file (import, re-export, `require`).
#[derive(Clone, Debug)]
pub struct Specifier {
    pub spec: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Local {
    pub ty: Option<TypeRef>,
    pub value: Option<Expr>,
}

#[derive(Debug, Default)]
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
    /// Top-level names.
    pub scope: HashMap<String, Vec<NameRes>>,
    pub has_error: bool,
    /// Has `import`/`export` syntax: a module, not a script whose declarations are global.
    pub has_module_syntax: bool,
}

/// Names every JavaScript environment provides: the globals of TypeScript 5.9's
/// `lib.esnext.full.d.ts`, `lib.dom.iterable.d.ts` and `lib.scripthost.d.ts`, plus Node's and
/// the JSX namespace (`globals.txt`, one per line). A use of one is neither an edge nor an
/// unresolved record.
const GLOBAL_NAMES: &str = include_str!("globals.txt");

/// Whether `name` is one of [`GLOBAL_NAMES`].
pub(super) fn is_global(name: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| GLOBAL_NAMES.split_whitespace().collect())
        .contains(name)
}

fn text<'s>(n: Node, src: &'s str) -> &'s str {
    &src[n.byte_range()]
}

fn pos(n: Node) -> (u32, u32) {
    let p = n.start_position();
    (p.row as u32 + 1, p.column as u32)
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

fn collapse(s: &str) -> String {
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

fn signature(n: Node, src: &str) -> Option<String> {
    let end = n
        .child_by_field_name("body")
        .map_or(n.end_byte(), |b| b.start_byte());
    let s = collapse(&src[n.start_byte()..end]);
    (!s.is_empty()).then_some(s)
}

fn has_child(n: Node, kind: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c).any(|c| c.kind() == kind)
}

fn is_private(n: Node, src: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c)
        .any(|c| c.kind() == "accessibility_modifier" && text(c, src) == "private")
}

/// A scope of locals and declarations: name → bindings, newest last.
#[derive(Default)]
struct Scope {
    names: HashMap<String, Vec<NameRes>>,
}

/// Where a function expression's parameters get their types when they are not written.
#[derive(Clone)]
enum Context {
    /// Argument `.1` of a call of `.0`.
    Argument(Expr, usize),
    /// The written type of what the function is assigned to (`const f: Handler = (e) => …`).
    Typed(TypeRef),
}

struct Extractor<'s> {
    src: &'s str,
    file: TsFile,
    scopes: Vec<Scope>,
    /// Decl of each declaring node, by (start byte, kind id).
    decl_at: HashMap<(usize, u16), usize>,
    /// The innermost enclosing declaration.
    owner: Option<usize>,
    /// The class `this` refers to: `Some(Some(decl))` in a recorded class, `Some(None)` in an
    /// unrecorded one or a plain function, `None` at module level.
    this_class: Option<Option<usize>>,
    /// Set while walking a function written as an argument: (callee, argument index).
    callback: Option<Context>,
    /// Nesting of `walk` (and of member chains): bounded, so that no input overflows a stack.
    depth: usize,
}

/// Deeper syntax than this is not walked: the file is marked partial.
const MAX_DEPTH: usize = 400;
/// Descriptions of receivers and types keep at most this many levels; deeper is unknown.
const MAX_EXPR: usize = 24;

/// Extracts one file. `tsx` selects the grammar that accepts JSX.
pub fn extract(src: &str, tsx: bool) -> TsFile {
    let mut parser = tree_sitter::Parser::new();
    let lang: tree_sitter::Language = if tsx {
        tree_sitter_typescript::LANGUAGE_TSX.into()
    } else {
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
    };
    if parser.set_language(&lang).is_err() {
        return TsFile {
            has_error: true,
            ..TsFile::default()
        };
    }
    let Some(tree) = parser.parse(src, None) else {
        return TsFile {
            has_error: true,
            ..TsFile::default()
        };
    };
    let root = tree.root_node();
    let mut x = Extractor {
        src,
        file: TsFile {
            has_error: root.has_error(),
            ..TsFile::default()
        },
        scopes: vec![Scope::default()],
        decl_at: HashMap::new(),
        owner: None,
        this_class: None,
        callback: None,
        depth: 0,
    };
    x.declare_statements(root, None, "", true);
    let top = std::mem::take(&mut x.scopes[0].names);
    x.file.scope = top.clone();
    x.scopes[0].names = top;
    x.walk_children(root);
    x.mark_exported();
    x.file
}

impl<'s> Extractor<'s> {
    fn t(&self, n: Node) -> &'s str {
        text(n, self.src)
    }

    fn bind(&mut self, name: &str, res: NameRes) {
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
            members: HashMap::new(),
            heritage_at: Vec::new(),
            open: false,
            overloads: 0,
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

    // ---------------------------------------------------------------- declaration pass

    /// Declares the statements of a module or namespace body. Names go into the innermost
    /// scope; `top` marks the module level (where CommonJS exports are read).
    fn declare_statements(&mut self, body: Node, parent: Option<usize>, prefix: &str, top: bool) {
        let mut c = body.walk();
        let stmts: Vec<Node> = body.named_children(&mut c).collect();
        for s in stmts {
            self.declare_statement(s, parent, prefix, top, false);
        }
    }

    fn declare_statement(
        &mut self,
        s: Node,
        parent: Option<usize>,
        prefix: &str,
        top: bool,
        exported: bool,
    ) {
        let parent_exported = parent.is_none_or(|p| self.file.decls[p].exported);
        match s.kind() {
            // Error recovery keeps whole declarations inside an ERROR node.
            "ERROR" => {
                let mut c = s.walk();
                let kids: Vec<Node> = s.named_children(&mut c).collect();
                for k in kids {
                    self.declare_statement(k, parent, prefix, top, exported);
                }
            }
            "export_statement" => {
                if top {
                    self.file.has_module_syntax = true;
                }
                self.declare_export(s, parent, prefix, top)
            }
            "import_statement" if top => {
                self.file.has_module_syntax = true;
                self.declare_import(s)
            }
            "ambient_declaration" => {
                let mut c = s.walk();
                let inner: Vec<Node> = s.named_children(&mut c).collect();
                for d in inner {
                    // `declare module "x" {}` and `declare global {}` are not this module's.
                    if d.kind() == "module"
                        && d.child_by_field_name("name")
                            .is_some_and(|n| n.kind() == "string")
                    {
                        continue;
                    }
                    if d.kind() == "statement_block" {
                        continue;
                    }
                    self.declare_statement(d, parent, prefix, top, exported);
                }
            }
            "expression_statement" => {
                if let Some(e) = s.named_child(0) {
                    match e.kind() {
                        "internal_module" | "module" => {
                            self.declare_namespace(e, parent, prefix, exported && parent_exported)
                        }
                        "assignment_expression" if top && parent.is_none() => {
                            self.declare_commonjs(e)
                        }
                        _ => {}
                    }
                }
            }
            "internal_module" | "module" => {
                self.declare_namespace(s, parent, prefix, exported && parent_exported)
            }
            // `var` in a block or loop at module level is a module-level name.
            "for_statement" | "for_in_statement" | "if_statement" | "else_clause"
            | "while_statement" | "do_statement" | "try_statement" | "catch_clause"
            | "finally_clause" | "statement_block" | "labeled_statement"
                if top && parent.is_none() =>
            {
                self.declare_block_vars(s, prefix);
            }
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                let Some(name) = s.child_by_field_name("name") else {
                    return;
                };
                let name = self.t(name);
                // Overloads and the implementation are one symbol, at the first signature.
                let existing = self.scope_decl(name, parent, |k| k == SymbolKind::Function);
                let signature_only = s.kind() == "function_signature";
                match existing {
                    Some(d) => {
                        self.decl_at.insert((s.start_byte(), s.kind_id()), d);
                        let o = &mut self.file.decls[d].overloads;
                        *o = o.saturating_add(u8::from(signature_only));
                    }
                    None => {
                        let d = self.new_decl(
                            s,
                            name,
                            SymbolKind::Function,
                            parent,
                            prefix,
                            exported && parent_exported,
                        );
                        self.bind(name, NameRes::Decl(d));
                        self.file.decls[d].overloads = u8::from(signature_only);
                    }
                }
            }
            "class_declaration" | "abstract_class_declaration" => {
                if let Some(name) = s.child_by_field_name("name") {
                    let name = self.t(name);
                    self.declare_class(s, name, parent, prefix, exported && parent_exported);
                }
            }
            "interface_declaration" => {
                let Some(name) = s.child_by_field_name("name") else {
                    return;
                };
                let name = self.t(name);
                let d = self.new_decl(
                    s,
                    name,
                    SymbolKind::Interface,
                    parent,
                    prefix,
                    exported && parent_exported,
                );
                self.bind(name, NameRes::Decl(d));
                if let Some(body) = s.child_by_field_name("body") {
                    self.declare_type_members(body, d);
                }
            }
            "type_alias_declaration" => {
                let Some(name) = s.child_by_field_name("name") else {
                    return;
                };
                let name = self.t(name);
                let d = self.new_decl(
                    s,
                    name,
                    SymbolKind::TypeAlias,
                    parent,
                    prefix,
                    exported && parent_exported,
                );
                self.bind(name, NameRes::Decl(d));
                if let Some(v) = s.child_by_field_name("value")
                    && v.kind() == "object_type"
                {
                    self.declare_type_members(v, d);
                }
            }
            "enum_declaration" => {
                let Some(name) = s.child_by_field_name("name") else {
                    return;
                };
                let name = self.t(name);
                let d = self.new_decl(
                    s,
                    name,
                    SymbolKind::Enum,
                    parent,
                    prefix,
                    exported && parent_exported,
                );
                self.bind(name, NameRes::Decl(d));
                let qp = format!("{}.", self.file.decls[d].qn);
                if let Some(body) = s.child_by_field_name("body") {
                    let mut c = body.walk();
                    let members: Vec<Node> = body.named_children(&mut c).collect();
                    for m in members {
                        let name_node = if m.kind() == "enum_assignment" {
                            m.child_by_field_name("name")
                        } else {
                            Some(m)
                        };
                        let Some(nn) = name_node else { continue };
                        let mname = match nn.kind() {
                            "property_identifier" => self.t(nn).to_string(),
                            "string" => string_value(nn, self.src),
                            _ => continue,
                        };
                        let e = self.file.decls[d].exported;
                        let md = self.new_decl(m, &mname, SymbolKind::EnumMember, Some(d), &qp, e);
                        self.file.decls[md].signature = Some(collapse(self.t(m)));
                    }
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                let kind = if s.kind() == "lexical_declaration"
                    && s.child(0).is_some_and(|k| self.t(k) == "const")
                {
                    SymbolKind::Constant
                } else {
                    SymbolKind::Variable
                };
                let mut c = s.walk();
                let decls: Vec<Node> = s
                    .named_children(&mut c)
                    .filter(|d| d.kind() == "variable_declarator")
                    .collect();
                for vd in decls {
                    if top
                        && parent.is_none()
                        && let Some(spec) = vd
                            .child_by_field_name("value")
                            .and_then(|v| self.require_of(v))
                    {
                        self.declare_require(vd, spec);
                        // Each name is also a declaration of this module, as TypeScript
                        // reads a JavaScript `require` alias; uses bind through the import.
                        if let Some(name) = vd.child_by_field_name("name") {
                            let mut names = Vec::new();
                            pattern_names(name, self.src, &mut names);
                            for (nm, at) in names {
                                let d = self.new_decl(vd, &nm, kind, None, prefix, exported);
                                self.decl_at.remove(&(vd.start_byte(), vd.kind_id()));
                                self.decl_at.insert((at.start_byte(), at.kind_id()), d);
                            }
                        }
                        continue;
                    }
                    let Some(name) = vd.child_by_field_name("name") else {
                        continue;
                    };
                    let mut names = Vec::new();
                    pattern_names(name, self.src, &mut names);
                    for (nm, at) in names {
                        let d = self.new_decl(
                            vd,
                            &nm,
                            kind,
                            parent,
                            prefix,
                            exported && parent_exported,
                        );
                        if nm != self.t(name) {
                            // A name of a destructuring pattern: keyed by its identifier.
                            self.decl_at.remove(&(vd.start_byte(), vd.kind_id()));
                            self.decl_at.insert((at.start_byte(), at.kind_id()), d);
                        }
                        self.bind(&nm, NameRes::Decl(d));
                    }
                }
            }
            _ => {}
        }
    }

    /// The `var` declarations nested in a module-level compound statement (not in functions
    /// or classes).
    fn declare_block_vars(&mut self, n: Node, prefix: &str) {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            match k.kind() {
                "variable_declaration" => self.declare_statement(k, None, prefix, true, false),
                "function_declaration"
                | "generator_function_declaration"
                | "function_expression"
                | "arrow_function"
                | "class_declaration"
                | "class"
                | "method_definition" => {}
                _ => self.declare_block_vars(k, prefix),
            }
        }
    }

    /// A declaration of `name` already in the innermost scope (for overloads).
    fn scope_decl(
        &self,
        name: &str,
        parent: Option<usize>,
        kind: impl Fn(SymbolKind) -> bool,
    ) -> Option<usize> {
        self.scopes
            .last()?
            .names
            .get(name)?
            .iter()
            .find_map(|r| match r {
                NameRes::Decl(d)
                    if self.file.decls[*d].parent == parent && kind(self.file.decls[*d].kind) =>
                {
                    Some(*d)
                }
                _ => None,
            })
    }

    fn declare_export(&mut self, s: Node, parent: Option<usize>, prefix: &str, top: bool) {
        let is_default = has_child(s, "default");
        if let Some(d) = s.child_by_field_name("declaration") {
            let before = self.file.decls.len();
            self.declare_statement(d, parent, prefix, top, true);
            if parent.is_none() {
                for i in before..self.file.decls.len() {
                    if self.file.decls[i].parent.is_none() {
                        let name = self.file.decls[i].name.clone();
                        let alias = if is_default { "default".into() } else { name };
                        self.file.exports.push((alias, NameRes::Decl(i)));
                    }
                }
            }
            return;
        }
        if let Some(src) = s.child_by_field_name("source") {
            if !top {
                return;
            }
            let statement = self.specifier(src);
            let mut items = Vec::new();
            let mut star = false;
            let mut star_as = None;
            let mut c = s.walk();
            for ch in s.children(&mut c) {
                match ch.kind() {
                    "*" => star = true,
                    "namespace_export" => {
                        star = false;
                        star_as = ch.named_child(0).map(|n| self.t(n).to_string());
                    }
                    "export_clause" => {
                        let mut cc = ch.walk();
                        for sp in ch.named_children(&mut cc) {
                            if sp.kind() != "export_specifier" {
                                continue;
                            }
                            let Some(n) = sp.child_by_field_name("name") else {
                                continue;
                            };
                            let name = self.spec_name(n);
                            let alias = sp
                                .child_by_field_name("alias")
                                .map_or(name.clone(), |a| self.spec_name(a));
                            let (line, column) = pos(n);
                            items.push(ReexportItem {
                                name: Some(name),
                                alias,
                                line,
                                column,
                            });
                        }
                    }
                    _ => {}
                }
            }
            if star_as.is_some() {
                star = false;
            }
            self.file.reexports.push(Reexport {
                statement,
                items,
                star,
                star_as,
            });
            return;
        }
        if parent.is_some() {
            return;
        }
        if let Some(v) = s.child_by_field_name("value") {
            // `export default <expression>`.
            match v.kind() {
                "identifier" => {} // bound in the walk, where every top-level name is known
                "function_expression" | "function" | "generator_function" | "arrow_function" => {
                    let d = self.new_decl(v, "default", SymbolKind::Function, None, "", true);
                    self.file.exports.push(("default".into(), NameRes::Decl(d)));
                }
                "class" => {
                    let d = self.declare_class(v, "default", None, "", true);
                    self.file.exports.push(("default".into(), NameRes::Decl(d)));
                }
                _ => {
                    let d = self.new_decl(v, "default", SymbolKind::Variable, None, "", true);
                    self.file.exports.push(("default".into(), NameRes::Decl(d)));
                }
            }
            return;
        }
        // `export = x`: the expression child.
        let mut c = s.walk();
        let expr: Option<Node> = s
            .named_children(&mut c)
            .find(|n| !matches!(n.kind(), "export_clause" | "comment" | "decorator"));
        if let Some(e) = expr
            && has_child(s, "=")
        {
            let _ = e; // typed in the walk
        }
    }

    fn spec_name(&self, n: Node) -> String {
        if n.kind() == "string" {
            string_value(n, self.src)
        } else {
            self.t(n).to_string()
        }
    }

    fn specifier(&mut self, src: Node) -> usize {
        let (line, column) = pos(src);
        self.file.specifiers.push(Specifier {
            spec: string_value(src, self.src),
            line,
            column,
        });
        self.file.specifiers.len() - 1
    }

    fn declare_import(&mut self, s: Node) {
        let Some(src) = s.child_by_field_name("source").or_else(|| {
            let mut c = s.walk();
            s.named_children(&mut c)
                .find(|n| n.kind() == "import_require_clause")
                .and_then(|r| r.child_by_field_name("source"))
        }) else {
            return;
        };
        let statement = self.specifier(src);
        let spec = self.file.specifiers[statement].spec.clone();
        let mut c = s.walk();
        let kids: Vec<Node> = s.named_children(&mut c).collect();
        for k in kids {
            match k.kind() {
                "import_require_clause" => {
                    if let Some(id) = k.named_child(0).filter(|n| n.kind() == "identifier") {
                        self.push_import(id, ImportKind::Require, &spec, statement);
                    }
                }
                "import_clause" => {
                    let mut cc = k.walk();
                    let parts: Vec<Node> = k.named_children(&mut cc).collect();
                    for p in parts {
                        match p.kind() {
                            "identifier" => {
                                self.push_import(p, ImportKind::Default, &spec, statement)
                            }
                            "namespace_import" => {
                                if let Some(id) = p.named_child(0) {
                                    self.push_import(id, ImportKind::Namespace, &spec, statement);
                                }
                            }
                            "named_imports" => {
                                let mut c3 = p.walk();
                                let specs: Vec<Node> = p.named_children(&mut c3).collect();
                                for sp in specs {
                                    if sp.kind() != "import_specifier" {
                                        continue;
                                    }
                                    let Some(n) = sp.child_by_field_name("name") else {
                                        continue;
                                    };
                                    let name = self.spec_name(n);
                                    let local = sp
                                        .child_by_field_name("alias")
                                        .map_or(name.clone(), |a| self.t(a).to_string());
                                    let (line, column) = pos(n);
                                    self.file.imports.push(Import {
                                        local: local.clone(),
                                        kind: ImportKind::Named(name),
                                        spec: spec.clone(),
                                        statement,
                                        line,
                                        column,
                                    });
                                    let i = self.file.imports.len() - 1;
                                    self.bind(&local, NameRes::Import(i));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn push_import(&mut self, id: Node, kind: ImportKind, spec: &str, statement: usize) {
        let (line, column) = pos(id);
        let local = self.t(id).to_string();
        self.file.imports.push(Import {
            local: local.clone(),
            kind,
            spec: spec.to_string(),
            statement,
            line,
            column,
        });
        let i = self.file.imports.len() - 1;
        self.bind(&local, NameRes::Import(i));
    }

    /// `require("x")` with a literal specifier.
    fn require_of<'t>(&self, v: Node<'t>) -> Option<Node<'t>> {
        let v = unwrap_parens(v);
        if v.kind() != "call_expression" {
            return None;
        }
        let f = v.child_by_field_name("function")?;
        if f.kind() != "identifier" || self.t(f) != "require" {
            return None;
        }
        let args = v.child_by_field_name("arguments")?;
        let a = args.named_child(0)?;
        (a.kind() == "string" && args.named_child_count() == 1).then_some(a)
    }

    fn declare_require(&mut self, vd: Node, src: Node) {
        let statement = self.specifier(src);
        let spec = self.file.specifiers[statement].spec.clone();
        let Some(name) = vd.child_by_field_name("name") else {
            return;
        };
        match name.kind() {
            "identifier" => self.push_import(name, ImportKind::Require, &spec, statement),
            "object_pattern" => {
                let mut c = name.walk();
                let props: Vec<Node> = name.named_children(&mut c).collect();
                for p in props {
                    let (key, local) = match p.kind() {
                        "shorthand_property_identifier_pattern" => (p, p),
                        "pair_pattern" => {
                            match (p.child_by_field_name("key"), p.child_by_field_name("value")) {
                                (Some(k), Some(v)) if v.kind() == "identifier" => (k, v),
                                _ => continue,
                            }
                        }
                        _ => continue,
                    };
                    let (line, column) = pos(key);
                    let local_name = self.t(local).to_string();
                    self.file.imports.push(Import {
                        local: local_name.clone(),
                        kind: ImportKind::Named(self.t(key).to_string()),
                        spec: spec.clone(),
                        statement,
                        line,
                        column,
                    });
                    let i = self.file.imports.len() - 1;
                    self.bind(&local_name, NameRes::Import(i));
                }
            }
            _ => {}
        }
    }

    /// `exports.x = …`, `module.exports.x = …`, `module.exports = …`.
    fn declare_commonjs(&mut self, e: Node) {
        let (Some(left), Some(right)) = (
            e.child_by_field_name("left"),
            e.child_by_field_name("right"),
        ) else {
            return;
        };
        if left.kind() != "member_expression" {
            return;
        }
        let lt = self.t(left);
        if lt == "module.exports" {
            // Read in the walk, where every top-level name is bound.
            return;
        }
        let Some(obj) = left.child_by_field_name("object") else {
            return;
        };
        let ot = self.t(obj);
        if ot != "exports" && ot != "module.exports" {
            return;
        }
        let Some(prop) = left.child_by_field_name("property") else {
            return;
        };
        let name = self.t(prop).to_string();
        let kind = match unwrap_parens(right).kind() {
            "function_expression" | "function" | "arrow_function" | "generator_function" => {
                SymbolKind::Function
            }
            _ => SymbolKind::Variable,
        };
        if self.file.exports.iter().any(|(n, _)| *n == name) {
            return;
        }
        let d = self.new_decl(e, &name, kind, None, "", true);
        self.file.exports.push((name, NameRes::Decl(d)));
    }

    fn declare_namespace(&mut self, n: Node, parent: Option<usize>, prefix: &str, exported: bool) {
        let Some(name) = n.child_by_field_name("name") else {
            return;
        };
        if name.kind() == "string" {
            return;
        }
        // `namespace A.B.C`: a chain of namespaces.
        let mut parts = Vec::new();
        let mut cur = name;
        while cur.kind() == "nested_identifier" {
            if let Some(p) = cur.child_by_field_name("property") {
                parts.push(self.t(p).to_string());
            }
            match cur.child_by_field_name("object") {
                Some(o) => cur = o,
                None => break,
            }
        }
        parts.push(self.t(cur).to_string());
        parts.reverse();
        let mut p = parent;
        let mut pre = prefix.to_string();
        let mut first = None;
        for (i, part) in parts.iter().enumerate() {
            let e = if i == 0 { exported } else { true };
            let d = self.new_decl(n, part, SymbolKind::Namespace, p, &pre, e);
            if i > 0 {
                self.decl_at.remove(&(n.start_byte(), n.kind_id()));
            }
            if first.is_none() {
                first = Some(d);
            }
            pre = format!("{}.", self.file.decls[d].qn);
            p = Some(d);
        }
        self.decl_at
            .insert((n.start_byte(), n.kind_id()), p.unwrap_or(0));
        if let Some(f) = first {
            let name = self.file.decls[f].name.clone();
            self.bind(&name, NameRes::Decl(f));
        }
        // The body's names live in their own scope, kept with the namespace for the walk.
        if let Some(body) = n.child_by_field_name("body") {
            self.scopes.push(Scope::default());
            self.declare_statements(body, p, &pre, false);
            let s = self.scopes.pop().unwrap_or_default();
            if let Some(d) = p {
                for (k, v) in s.names {
                    for r in v {
                        if let NameRes::Decl(x) = r
                            && !self.file.decls[d]
                                .members
                                .get(&k)
                                .is_some_and(|m| m.contains(&x))
                        {
                            self.file.decls[d]
                                .members
                                .entry(k.clone())
                                .or_default()
                                .push(x);
                        }
                    }
                }
            }
        }
    }

    fn declare_class(
        &mut self,
        s: Node,
        name: &str,
        parent: Option<usize>,
        prefix: &str,
        exported: bool,
    ) -> usize {
        let d = self.new_decl(s, name, SymbolKind::Class, parent, prefix, exported);
        if name != "default" {
            self.bind(name, NameRes::Decl(d));
        }
        let qp = format!("{}.", self.file.decls[d].qn);
        let Some(body) = s.child_by_field_name("body") else {
            return d;
        };
        let mut c = body.walk();
        let members: Vec<Node> = body.named_children(&mut c).collect();
        for m in members {
            let kind = match m.kind() {
                "method_definition" | "method_signature" | "abstract_method_signature" => {
                    if has_child(m, "get") || has_child(m, "set") {
                        SymbolKind::Property
                    } else {
                        SymbolKind::Method
                    }
                }
                "public_field_definition" => SymbolKind::Field,
                "index_signature" => {
                    self.file.decls[d].open = true;
                    continue;
                }
                _ => continue,
            };
            let Some(nn) = m.child_by_field_name("name") else {
                continue;
            };
            let mname = match nn.kind() {
                "property_identifier" | "private_property_identifier" => self.t(nn).to_string(),
                "string" => string_value(nn, self.src),
                _ => continue,
            };
            let exported_m = exported && !is_private(m, self.src) && !mname.starts_with('#');
            // Overloads and get/set pairs are one symbol.
            let existing = self.file.decls[d]
                .members
                .get(&mname)
                .and_then(|v| v.iter().copied().find(|&x| self.file.decls[x].kind == kind));
            let signature_only = m.child_by_field_name("body").is_none();
            if let Some(first) = existing {
                self.decl_at.insert((m.start_byte(), m.kind_id()), first);
                let f = &mut self.file.decls[first];
                f.overloads = f.overloads.saturating_add(u8::from(signature_only));
            } else {
                let md = self.new_decl(m, &mname, kind, Some(d), &qp, exported_m);
                self.file.decls[md].is_static = has_child(m, "static");
                self.file.decls[md].private |= is_private(m, self.src);
                self.file.decls[md].overloads =
                    u8::from(signature_only && kind == SymbolKind::Method);
            }
            // Parameter properties live on the implementation, after any overloads.
            if mname == "constructor"
                && let Some(params) = m.child_by_field_name("parameters")
            {
                let mut pc = params.walk();
                let ps: Vec<Node> = params.named_children(&mut pc).collect();
                for p in ps {
                    let is_prop = {
                        let mut cc = p.walk();
                        p.children(&mut cc).any(|c| {
                            matches!(c.kind(), "accessibility_modifier" | "override_modifier")
                                || self.t(c) == "readonly"
                        })
                    };
                    if !is_prop {
                        continue;
                    }
                    let Some(pat) = p.child_by_field_name("pattern") else {
                        continue;
                    };
                    if pat.kind() != "identifier" {
                        continue;
                    }
                    let pname = self.t(pat).to_string();
                    let e = exported && !is_private(p, self.src);
                    let fd = self.new_decl(p, &pname, SymbolKind::Field, Some(d), &qp, e);
                    self.file.decls[fd].private |= is_private(p, self.src);
                }
            }
        }
        d
    }

    fn declare_type_members(&mut self, body: Node, d: usize) {
        let qp = format!("{}.", self.file.decls[d].qn);
        let exported = self.file.decls[d].exported;
        let mut c = body.walk();
        let members: Vec<Node> = body.named_children(&mut c).collect();
        for m in members {
            let kind = match m.kind() {
                "property_signature" => SymbolKind::Property,
                "method_signature" => SymbolKind::Method,
                "index_signature" | "call_signature" | "construct_signature" => {
                    self.file.decls[d].open = true;
                    continue;
                }
                _ => continue,
            };
            let Some(nn) = m.child_by_field_name("name") else {
                continue;
            };
            let mname = match nn.kind() {
                "property_identifier" | "private_property_identifier" => self.t(nn).to_string(),
                "string" => string_value(nn, self.src),
                _ => continue,
            };
            if let Some(&first) = self.file.decls[d]
                .members
                .get(&mname)
                .and_then(|v| v.iter().find(|&&x| self.file.decls[x].kind == kind))
            {
                self.decl_at.insert((m.start_byte(), m.kind_id()), first);
                continue;
            }
            self.new_decl(m, &mname, kind, Some(d), &qp, exported);
        }
    }

    // ---------------------------------------------------------------- walk

    fn decl_of(&self, n: Node) -> Option<usize> {
        self.decl_at.get(&(n.start_byte(), n.kind_id())).copied()
    }

    fn push_ref(&mut self, at: Node, usage: Use, target: RefTarget) {
        let (line, column) = pos(at);
        self.file.refs.push(Ref {
            line,
            column,
            from: self.owner,
            usage,
            target,
        });
    }

    fn walk_children(&mut self, n: Node) {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            self.walk(k);
        }
    }

    fn with_owner(&mut self, d: Option<usize>, f: impl FnOnce(&mut Self)) {
        let saved = self.owner;
        if d.is_some() {
            self.owner = d;
        }
        f(self);
        self.owner = saved;
    }

    /// Declares the hoisted names of a function body or block: function, class, enum,
    /// interface and type declarations and `let`/`const` directly in it, and, for a function
    /// body, every `var` not inside a nested function.
    fn hoist(&mut self, body: Node, function_body: bool) {
        let mut c = body.walk();
        let stmts: Vec<Node> = body.named_children(&mut c).collect();
        for s in stmts {
            let s = if s.kind() == "export_statement" {
                match s.child_by_field_name("declaration") {
                    Some(d) => d,
                    None => continue,
                }
            } else {
                s
            };
            match s.kind() {
                "function_declaration"
                | "generator_function_declaration"
                | "class_declaration"
                | "abstract_class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "type_alias_declaration" => {
                    if let Some(n) = s.child_by_field_name("name") {
                        let name = self.t(n).to_string();
                        if self
                            .scopes
                            .last()
                            .is_some_and(|sc| sc.names.contains_key(&name))
                        {
                            continue;
                        }
                        let l = self.new_local(None, None);
                        self.bind(&name, NameRes::Local(l));
                    }
                }
                "lexical_declaration" => self.declare_locals(s),
                "variable_declaration" => self.declare_locals(s),
                _ => {}
            }
            if function_body {
                self.hoist_vars(s);
            }
        }
    }

    fn hoist_vars(&mut self, n: Node) {
        match n.kind() {
            "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "class_declaration"
            | "class" => {}
            "variable_declaration" => self.declare_locals(n),
            _ => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in kids {
                    if matches!(
                        k.kind(),
                        "statement_block"
                            | "if_statement"
                            | "else_clause"
                            | "for_statement"
                            | "for_in_statement"
                            | "while_statement"
                            | "do_statement"
                            | "try_statement"
                            | "catch_clause"
                            | "finally_clause"
                            | "switch_statement"
                            | "switch_body"
                            | "switch_case"
                            | "switch_default"
                            | "labeled_statement"
                            | "variable_declaration"
                    ) {
                        self.hoist_vars(k);
                    }
                }
            }
        }
    }

    fn declare_locals(&mut self, decl: Node) {
        let mut c = decl.walk();
        let vds: Vec<Node> = decl
            .named_children(&mut c)
            .filter(|d| d.kind() == "variable_declarator")
            .collect();
        for vd in vds {
            if let Some(name) = vd.child_by_field_name("name") {
                let mut names = Vec::new();
                pattern_names(name, self.src, &mut names);
                for (nm, _) in names {
                    if self
                        .scopes
                        .last()
                        .and_then(|s| s.names.get(&nm))
                        .is_some_and(|v| v.iter().any(|r| matches!(r, NameRes::Local(_))))
                    {
                        continue;
                    }
                    let l = self.new_local(None, None);
                    self.bind(&nm, NameRes::Local(l));
                }
            }
        }
    }

    fn new_local(&mut self, ty: Option<TypeRef>, value: Option<Expr>) -> usize {
        self.file.locals.push(Local { ty, value });
        self.file.locals.len() - 1
    }

    /// Binds the names of a parameter or binding pattern as fresh locals in the innermost
    /// scope, typed by `ty` or valued by `value`.
    fn bind_pattern(&mut self, p: Node, ty: Option<TypeRef>, value: Option<Expr>) {
        let src = match ty {
            Some(t) => Some(Expr::Typed(t)),
            None => value,
        };
        self.pattern(p, src, true);
    }

    /// Binds (`create`) or assigns the names of a binding pattern whose value is `src`. Every
    /// property key read from a known source is a reference to that member; default values and
    /// computed keys are walked.
    fn pattern(&mut self, p: Node, src: Option<Expr>, create: bool) {
        let member = |src: &Option<Expr>, name: &str| {
            src.as_ref()
                .map(|s| Expr::Member(Box::new(s.clone()), name.to_string()))
        };
        match p.kind() {
            "identifier" => self.set_name(p, src, create),
            "object_pattern" => {
                let mut c = p.walk();
                let kids: Vec<Node> = p.named_children(&mut c).collect();
                for k in kids {
                    match k.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let name = self.t(k).to_string();
                            let v = member(&src, &name);
                            if let Some(s) = &src {
                                self.push_ref(k, Use::Value, RefTarget::Member(s.clone(), name));
                            }
                            self.set_name(k, v, create);
                        }
                        "pair_pattern" => {
                            let key = k.child_by_field_name("key");
                            let mut v = None;
                            if let Some(key) = key {
                                match key.kind() {
                                    "property_identifier" | "string" => {
                                        let name = self.spec_name(key);
                                        v = member(&src, &name);
                                        if let Some(s) = &src
                                            && key.kind() == "property_identifier"
                                        {
                                            self.push_ref(
                                                key,
                                                Use::Value,
                                                RefTarget::Member(s.clone(), name),
                                            );
                                        }
                                    }
                                    _ => self.walk(key),
                                }
                            }
                            if let Some(val) = k.child_by_field_name("value") {
                                self.pattern(val, v, create);
                            }
                        }
                        "object_assignment_pattern" => {
                            if let Some(r) = k.child_by_field_name("right") {
                                self.walk(r);
                            }
                            if let Some(l) = k.child_by_field_name("left") {
                                if l.kind() == "shorthand_property_identifier_pattern" {
                                    let name = self.t(l).to_string();
                                    let v = member(&src, &name);
                                    if let Some(s) = &src {
                                        self.push_ref(
                                            l,
                                            Use::Value,
                                            RefTarget::Member(s.clone(), name),
                                        );
                                    }
                                    self.set_name(l, v, create);
                                } else {
                                    self.pattern(l, None, create);
                                }
                            }
                        }
                        "rest_pattern" => {
                            if let Some(x) = k.named_child(0) {
                                self.pattern(x, None, create);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "array_pattern" => {
                let elem = src.as_ref().map(|s| Expr::Elem(Box::new(s.clone())));
                let mut c = p.walk();
                let kids: Vec<Node> = p.named_children(&mut c).collect();
                for k in kids {
                    match k.kind() {
                        "rest_pattern" => {
                            if let Some(x) = k.named_child(0) {
                                self.pattern(x, None, create);
                            }
                        }
                        _ => self.pattern(k, elem.clone(), create),
                    }
                }
            }
            "assignment_pattern" => {
                if let Some(r) = p.child_by_field_name("right") {
                    self.walk(r);
                }
                if let Some(l) = p.child_by_field_name("left") {
                    self.pattern(l, src, create);
                }
            }
            "rest_pattern" => {
                if let Some(x) = p.named_child(0) {
                    self.pattern(x, None, create);
                }
            }
            _ => {}
        }
    }

    fn set_name(&mut self, id: Node, value: Option<Expr>, create: bool) {
        let name = self.t(id).to_string();
        if create {
            let l = self.new_local(None, value);
            self.bind(&name, NameRes::Local(l));
            return;
        }
        match self.lookup(&name, false) {
            NameRes::Local(l)
                if self.file.locals[l].ty.is_none() && self.file.locals[l].value.is_none() =>
            {
                self.file.locals[l].value = value;
            }
            NameRes::Decl(d) => {
                let dd = &mut self.file.decls[d];
                if dd.ty.is_none() && dd.value.is_none() {
                    dd.value = value;
                }
            }
            _ => {}
        }
    }

    fn bind_type_params(&mut self, n: Node) {
        if let Some(tp) = n.child_by_field_name("type_parameters") {
            let mut c = tp.walk();
            let ps: Vec<Node> = tp.named_children(&mut c).collect();
            for p in &ps {
                if let Some(name) = p.child_by_field_name("name") {
                    let l = self.new_local(None, None);
                    let nm = self.t(name).to_string();
                    self.bind(&nm, NameRes::Local(l));
                }
            }
            // A type parameter's members are its constraint's (`T extends Base`): the
            // constraints are read once every parameter of the list is in scope.
            for p in &ps {
                if let (Some(name), Some(con)) = (
                    p.child_by_field_name("name"),
                    p.child_by_field_name("constraint"),
                ) && let Some(t) = con.named_child(0)
                    && let NameRes::Local(l) = self.lookup(self.t(name), true)
                {
                    self.file.locals[l].ty = Some(self.type_ref(t));
                }
            }
            for p in ps {
                let mut c = p.walk();
                let kids: Vec<Node> = p.named_children(&mut c).collect();
                for k in kids {
                    if k.kind() != "type_identifier" || p.child_by_field_name("name") != Some(k) {
                        self.walk(k);
                    }
                }
            }
        }
    }

    /// Parameters, then the body, in a new function scope.
    fn walk_function(&mut self, n: Node, this_class: Option<Option<usize>>) {
        let decl = self.decl_of(n);
        self.scopes.push(Scope::default());
        // A named function expression's name is visible inside it, and only there.
        if decl.is_none()
            && matches!(
                n.kind(),
                "function_expression" | "function" | "generator_function"
            )
            && let Some(name) = n.child_by_field_name("name")
        {
            let l = self.new_local(None, None);
            let nm = self.t(name).to_string();
            self.bind(&nm, NameRes::Local(l));
        }
        let saved_this = self.this_class;
        if let Some(t) = this_class {
            self.this_class = Some(t);
        }
        let callback = self.callback.take();
        self.with_owner(decl, |x| {
            x.bind_type_params(n);
            let params = x.walk_params(n, callback.as_ref());
            let ret = n.child_by_field_name("return_type").map(|r| {
                x.walk(r);
                x.type_ref(r)
            });
            if let Some(d) = decl {
                let dd = &mut x.file.decls[d];
                if dd.ret.is_none() {
                    dd.ret = ret;
                }
                if dd.params.is_empty() {
                    dd.params = params;
                }
            }
            if let Some(body) = n.child_by_field_name("body") {
                if body.kind() == "statement_block" {
                    x.hoist(body, true);
                    x.walk_children(body);
                } else {
                    x.walk(body);
                }
            }
        });
        self.this_class = saved_this;
        self.scopes.pop();
    }

    /// Binds and walks the parameters of a function-like node; returns their written types.
    fn walk_params(&mut self, n: Node, callback: Option<&Context>) -> Vec<Option<TypeRef>> {
        let mut out = Vec::new();
        let ctx = |param: usize| {
            callback.map(|c| match c {
                Context::Argument(callee, arg) => Expr::CallbackParam {
                    callee: Box::new(callee.clone()),
                    arg: *arg,
                    param,
                },
                Context::Typed(t) => Expr::ContextParam {
                    ty: t.clone(),
                    param,
                },
            })
        };
        if let Some(params) = n.child_by_field_name("parameters") {
            let mut c = params.walk();
            let ps: Vec<Node> = params.named_children(&mut c).collect();
            let mut i = 0;
            for p in ps {
                if matches!(p.kind(), "comment" | "decorator") {
                    continue;
                }
                let is_this = p
                    .child_by_field_name("pattern")
                    .is_some_and(|x| x.kind() == "this");
                let ty = self.walk_parameter(p, ctx(i));
                if !is_this {
                    out.push(ty);
                    i += 1;
                }
            }
        } else if let Some(p) = n.child_by_field_name("parameter") {
            self.bind_pattern(p, None, ctx(0));
            out.push(None);
        }
        out
    }

    fn walk_parameter(&mut self, p: Node, contextual: Option<Expr>) -> Option<TypeRef> {
        match p.kind() {
            "required_parameter" | "optional_parameter" => {
                let ty = p.child_by_field_name("type").map(|t| {
                    self.walk(t);
                    self.type_ref(t)
                });
                if let Some(v) = p.child_by_field_name("value") {
                    self.walk(v);
                }
                let mut c = p.walk();
                let decorators: Vec<Node> = p
                    .named_children(&mut c)
                    .filter(|k| k.kind() == "decorator")
                    .collect();
                for d in decorators {
                    self.walk(d);
                }
                if let Some(pat) = p.child_by_field_name("pattern") {
                    if pat.kind() == "this" {
                        return ty;
                    }
                    // A parameter property: the field's type is the parameter's.
                    if let Some(d) = self.decl_of(p) {
                        self.file.decls[d].ty = ty.clone();
                    }
                    let value = if ty.is_some() { None } else { contextual };
                    self.bind_pattern(pat, ty.clone(), value);
                }
                ty
            }
            _ => {
                self.bind_pattern(p, None, contextual);
                None
            }
        }
    }

    fn walk_class(&mut self, n: Node) {
        let decl = self.decl_of(n);
        self.scopes.push(Scope::default());
        // A class expression's name is visible inside it.
        if decl.is_none()
            && let Some(name) = n.child_by_field_name("name")
        {
            let l = self.new_local(None, None);
            let nm = self.t(name).to_string();
            self.bind(&nm, NameRes::Local(l));
        }
        let saved_this = self.this_class;
        self.with_owner(decl, |x| {
            x.bind_type_params(n);
            let mut c = n.walk();
            let kids: Vec<Node> = n.named_children(&mut c).collect();
            for k in kids {
                match k.kind() {
                    "decorator" => x.walk(k),
                    "class_heritage" => x.walk_heritage(k, decl),
                    _ => {}
                }
            }
            x.this_class = Some(decl);
            if let Some(body) = n.child_by_field_name("body") {
                let mut c = body.walk();
                let members: Vec<Node> = body.named_children(&mut c).collect();
                for m in members {
                    x.walk_member(m, decl);
                }
            }
        });
        self.this_class = saved_this;
        self.scopes.pop();
    }

    fn walk_heritage(&mut self, h: Node, decl: Option<usize>) {
        let mut c = h.walk();
        let clauses: Vec<Node> = h.named_children(&mut c).collect();
        for cl in clauses {
            match cl.kind() {
                "extends_clause" => {
                    if let Some(v) = cl.child_by_field_name("value") {
                        self.heritage(v, Use::Extends, decl);
                    }
                    if let Some(ta) = cl.child_by_field_name("type_arguments") {
                        self.walk(ta);
                    }
                }
                "implements_clause" | "extends_type_clause" => {
                    let u = if cl.kind() == "implements_clause" {
                        Use::Implements
                    } else {
                        Use::Extends
                    };
                    let mut cc = cl.walk();
                    let ts: Vec<Node> = cl.named_children(&mut cc).collect();
                    for t in ts {
                        self.heritage(t, u, decl);
                    }
                }
                _ => {}
            }
        }
    }

    /// One name of an `extends` or `implements` clause: a reference, and a heritage type of
    /// the declaration.
    fn heritage(&mut self, t: Node, usage: Use, decl: Option<usize>) {
        let head = match t.kind() {
            "generic_type" => {
                if let Some(a) = t.child_by_field_name("type_arguments") {
                    self.walk(a);
                }
                t.child_by_field_name("name").unwrap_or(t)
            }
            _ => t,
        };
        let tr = match head.kind() {
            "identifier" | "type_identifier" => {
                let name = self.t(head).to_string();
                let res = self.lookup(&name, true);
                self.push_ref(head, usage, RefTarget::Name(res.clone(), name));
                TypeRef::Named {
                    head: res,
                    path: Vec::new(),
                    args: Vec::new(),
                }
            }
            "member_expression" | "nested_type_identifier" | "nested_identifier" => {
                let e = self.member_chain(head, usage);
                expr_type(e)
            }
            _ => {
                self.walk(t);
                TypeRef::Unknown
            }
        };
        if let Some(d) = decl {
            let (line, column) = pos(head);
            let dd = &mut self.file.decls[d];
            dd.heritage_at.push((line, column));
            if usage == Use::Implements {
                dd.implements.push(tr);
            } else {
                dd.extends.push(tr);
            }
        }
    }

    /// A qualified name `a.b.c` in a heritage clause or type: refs for every part.
    fn member_chain(&mut self, n: Node, last_use: Use) -> Expr {
        match n.kind() {
            "identifier" | "type_identifier" => {
                let name = self.t(n).to_string();
                let res = self.lookup(&name, false);
                self.push_ref(n, Use::Value, RefTarget::Name(res.clone(), name));
                Expr::Name(res)
            }
            "member_expression" | "nested_identifier" | "nested_type_identifier" => {
                let (obj, prop) = match n.kind() {
                    "nested_type_identifier" => (
                        n.child_by_field_name("module"),
                        n.child_by_field_name("name"),
                    ),
                    _ => (
                        n.child_by_field_name("object"),
                        n.child_by_field_name("property"),
                    ),
                };
                let (Some(obj), Some(prop)) = (obj, prop) else {
                    return Expr::Unknown;
                };
                let base = self.member_chain(obj, Use::Value);
                let name = self.t(prop).to_string();
                self.push_ref(
                    prop,
                    last_use,
                    RefTarget::Member(base.clone(), name.clone()),
                );
                Expr::Member(Box::new(base), name)
            }
            _ => {
                self.walk(n);
                Expr::Unknown
            }
        }
    }

    fn walk_member(&mut self, m: Node, class: Option<usize>) {
        let decl = self.decl_of(m);
        match m.kind() {
            "method_definition" => {
                if let Some(n) = m.child_by_field_name("name")
                    && n.kind() == "computed_property_name"
                {
                    self.with_owner(decl, |x| x.walk(n));
                }
                self.walk_function(m, Some(class))
            }
            "method_signature" | "abstract_method_signature" => {
                self.scopes.push(Scope::default());
                self.with_owner(decl, |x| {
                    x.bind_type_params(m);
                    let ps = x.walk_params(m, None);
                    if let Some(d) = decl
                        && x.file.decls[d].params.is_empty()
                    {
                        x.file.decls[d].params = ps;
                    }
                    if let Some(r) = m.child_by_field_name("return_type") {
                        x.walk(r);
                        let tr = x.type_ref(r);
                        if let Some(d) = decl
                            && x.file.decls[d].ret.is_none()
                        {
                            x.file.decls[d].ret = Some(tr);
                        }
                    }
                });
                self.scopes.pop();
            }
            "public_field_definition" => {
                self.with_owner(decl, |x| {
                    let mut c = m.walk();
                    let decorators: Vec<Node> = m
                        .named_children(&mut c)
                        .filter(|k| k.kind() == "decorator")
                        .collect();
                    for d in decorators {
                        x.walk(d);
                    }
                    if let Some(n) = m.child_by_field_name("name")
                        && n.kind() == "computed_property_name"
                    {
                        x.walk(n);
                    }
                    let ty = m.child_by_field_name("type").map(|t| {
                        x.walk(t);
                        x.type_ref(t)
                    });
                    let value = m.child_by_field_name("value").map(|v| {
                        x.walk(v);
                        x.expr_of(v)
                    });
                    if let Some(d) = decl {
                        x.file.decls[d].ty = ty;
                        x.file.decls[d].value = value;
                    }
                });
            }
            "class_static_block" => {
                if let Some(b) = m.child_by_field_name("body").or_else(|| m.named_child(0)) {
                    self.scopes.push(Scope::default());
                    self.hoist(b, true);
                    self.walk_children(b);
                    self.scopes.pop();
                }
            }
            _ => self.walk(m),
        }
    }

    fn walk(&mut self, n: Node) {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.file.has_error = true;
        } else {
            self.walk_inner(n);
        }
        self.depth -= 1;
    }

    fn walk_inner(&mut self, n: Node) {
        match n.kind() {
            "comment"
            | "string"
            | "number"
            | "regex"
            | "true"
            | "false"
            | "null"
            | "undefined"
            | "hash_bang_line"
            | "html_comment"
            | "statement_identifier"
            | "predefined_type"
            | "literal_type"
            | "this_type"
            | "property_identifier"
            | "private_property_identifier"
            | "import" => {}
            "import_statement" => self.walk_import(n),
            "export_statement" => self.walk_export(n),
            "function_declaration" | "generator_function_declaration" => {
                self.walk_function(n, Some(None))
            }
            "function_expression" | "function" | "generator_function" => {
                self.walk_function(n, Some(None))
            }
            "arrow_function" => self.walk_function(n, None),
            "function_type" | "constructor_type" | "call_signature" | "construct_signature" => {
                self.scopes.push(Scope::default());
                self.bind_type_params(n);
                self.walk_params(n, None);
                if let Some(r) = n
                    .child_by_field_name("return_type")
                    .or_else(|| n.child_by_field_name("type"))
                {
                    self.walk(r);
                }
                self.scopes.pop();
            }
            "index_signature" => {
                self.scopes.push(Scope::default());
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in &kids {
                    if k.kind() == "mapped_type_clause"
                        && let Some(name) = k.child_by_field_name("name")
                    {
                        let l = self.new_local(None, None);
                        let nm = self.t(name).to_string();
                        self.bind(&nm, NameRes::Local(l));
                    }
                }
                for k in kids {
                    if k.kind() == "mapped_type_clause" {
                        let mut cc = k.walk();
                        let parts: Vec<Node> = k.named_children(&mut cc).collect();
                        for p in parts {
                            if Some(p) != k.child_by_field_name("name") {
                                self.walk(p);
                            }
                        }
                    } else if k.kind() == "identifier" {
                        // `[key: string]`: the parameter name.
                    } else {
                        self.walk(k);
                    }
                }
                self.scopes.pop();
            }
            "conditional_type" => {
                self.scopes.push(Scope::default());
                let mut infers = Vec::new();
                collect_infers(n, self.src, &mut infers);
                for nm in infers {
                    let l = self.new_local(None, None);
                    self.bind(&nm, NameRes::Local(l));
                }
                self.walk_children(n);
                self.scopes.pop();
            }
            "infer_type" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).skip(1).collect();
                for k in kids {
                    self.walk(k);
                }
            }
            "function_signature" => {
                self.scopes.push(Scope::default());
                let decl = self.decl_of(n);
                self.with_owner(decl, |x| {
                    x.bind_type_params(n);
                    let fp = x.walk_params(n, None);
                    if let Some(r) = n.child_by_field_name("return_type") {
                        x.walk(r);
                        let tr = x.type_ref(r);
                        if let Some(d) = decl
                            && x.file.decls[d].ret.is_none()
                        {
                            x.file.decls[d].ret = Some(tr);
                            x.file.decls[d].params = fp;
                        }
                    }
                });
                self.scopes.pop();
            }
            "class_declaration" | "abstract_class_declaration" | "class" => self.walk_class(n),
            "interface_declaration" => {
                let decl = self.decl_of(n);
                self.scopes.push(Scope::default());
                self.with_owner(decl, |x| {
                    x.bind_type_params(n);
                    let mut c = n.walk();
                    let kids: Vec<Node> = n.named_children(&mut c).collect();
                    for k in kids {
                        if k.kind() == "extends_type_clause" {
                            x.walk_heritage_clause(k, decl);
                        }
                    }
                    if let Some(body) = n.child_by_field_name("body") {
                        x.walk_type_members(body);
                    }
                });
                self.scopes.pop();
            }
            "type_alias_declaration" => {
                let decl = self.decl_of(n);
                self.scopes.push(Scope::default());
                self.with_owner(decl, |x| {
                    x.bind_type_params(n);
                    if let Some(v) = n.child_by_field_name("value") {
                        if v.kind() == "object_type" {
                            x.walk_type_members(v);
                        } else {
                            x.walk(v);
                            let tr = x.type_ref(v);
                            if let Some(d) = decl {
                                x.file.decls[d].ty = Some(tr);
                            }
                        }
                    }
                });
                self.scopes.pop();
            }
            "enum_declaration" => {
                let decl = self.decl_of(n);
                // Inside the body, the enum's members are in scope (`B = A << 1`).
                self.scopes.push(Scope::default());
                if let Some(d) = decl {
                    let members: Vec<(String, usize)> = self.file.decls[d]
                        .members
                        .iter()
                        .flat_map(|(k, v)| v.iter().map(move |x| (k.clone(), *x)))
                        .collect();
                    for (k, x) in members {
                        self.bind(&k, NameRes::Decl(x));
                    }
                }
                if let Some(body) = n.child_by_field_name("body") {
                    let mut c = body.walk();
                    let ms: Vec<Node> = body.named_children(&mut c).collect();
                    for m in ms {
                        if m.kind() == "enum_assignment"
                            && let Some(v) = m.child_by_field_name("value")
                        {
                            let md = self.decl_of(m).or(decl);
                            self.with_owner(md, |x| x.walk(v));
                        }
                    }
                }
                self.scopes.pop();
            }
            "switch_body" => {
                // One scope for every case: `let`/`const` in a case is the switch's.
                self.scopes.push(Scope::default());
                let mut c = n.walk();
                let cases: Vec<Node> = n.named_children(&mut c).collect();
                for case in &cases {
                    self.hoist(*case, false);
                }
                for case in cases {
                    self.walk(case);
                }
                self.scopes.pop();
            }
            "internal_module" | "module" => {
                let decl = self.decl_of(n);
                if let Some(body) = n.child_by_field_name("body") {
                    self.scopes.push(Scope::default());
                    // The namespace's members are in scope inside it.
                    if let Some(d) = decl {
                        let members: Vec<(String, usize)> = self.file.decls[d]
                            .members
                            .iter()
                            .flat_map(|(k, v)| v.iter().map(move |x| (k.clone(), *x)))
                            .collect();
                        for (k, x) in members {
                            self.bind(&k, NameRes::Decl(x));
                        }
                    } else {
                        self.hoist(body, true);
                    }
                    self.with_owner(decl, |x| {
                        let mut c = body.walk();
                        let ss: Vec<Node> = body.named_children(&mut c).collect();
                        for s in ss {
                            if s.kind() == "export_statement" {
                                if let Some(d) = s.child_by_field_name("declaration") {
                                    x.walk(d);
                                } else {
                                    x.walk_children(s);
                                }
                            } else {
                                x.walk(s);
                            }
                        }
                    });
                    self.scopes.pop();
                }
            }
            "ambient_declaration" => self.walk_children(n),
            "lexical_declaration" | "variable_declaration" => {
                let mut c = n.walk();
                let vds: Vec<Node> = n.named_children(&mut c).collect();
                for vd in vds {
                    if vd.kind() == "variable_declarator" {
                        self.walk_declarator(vd);
                    } else {
                        self.walk(vd);
                    }
                }
            }
            "statement_block" => {
                self.scopes.push(Scope::default());
                self.hoist(n, false);
                self.walk_children(n);
                self.scopes.pop();
            }
            "for_statement" => {
                self.scopes.push(Scope::default());
                if let Some(init) = n.child_by_field_name("initializer")
                    && matches!(init.kind(), "lexical_declaration" | "variable_declaration")
                {
                    self.declare_locals(init);
                }
                self.walk_children(n);
                self.scopes.pop();
            }
            "for_in_statement" => {
                self.scopes.push(Scope::default());
                let right = n.child_by_field_name("right");
                if let Some(r) = right {
                    self.walk(r);
                }
                let of = n
                    .child_by_field_name("operator")
                    .is_some_and(|o| self.t(o) == "of");
                if let Some(l) = n.child_by_field_name("left") {
                    if n.child_by_field_name("kind").is_some() {
                        let value = match (of, right) {
                            (true, Some(r)) => Some(Expr::Elem(Box::new(self.expr_of(r)))),
                            _ => None,
                        };
                        self.bind_pattern(l, None, value);
                    } else {
                        self.walk(l);
                    }
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.walk(b);
                }
                self.scopes.pop();
            }
            "catch_clause" => {
                self.scopes.push(Scope::default());
                if let Some(p) = n.child_by_field_name("parameter") {
                    self.bind_pattern(p, None, None);
                }
                if let Some(t) = n.child_by_field_name("type") {
                    self.walk(t);
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.walk(b);
                }
                self.scopes.pop();
            }
            "identifier" => self.name_ref(n, Use::Value),
            "shorthand_property_identifier" => self.name_ref(n, Use::Value),
            "type_identifier" => self.type_name_ref(n),
            "nested_type_identifier" => {
                self.member_chain(n, Use::Type);
            }
            "type_query" => {
                if let Some(e) = n.named_child(0) {
                    match e.kind() {
                        "identifier" => self.name_ref(e, Use::TypeOf),
                        "member_expression" => {
                            self.member_ref(e, Use::TypeOf);
                        }
                        _ => self.walk(e),
                    }
                }
            }
            "member_expression" => {
                self.member_ref(n, Use::Value);
            }
            "call_expression" => {
                let f = n.child_by_field_name("function");
                if let Some(f) = f {
                    let f = unwrap_parens(f);
                    match f.kind() {
                        "identifier" => self.name_ref(f, Use::Call),
                        "member_expression" => {
                            self.member_ref(f, Use::Call);
                        }
                        _ => self.walk(f),
                    }
                }
                if let Some(t) = n.child_by_field_name("type_arguments") {
                    self.walk(t);
                }
                if let Some(args) = n.child_by_field_name("arguments") {
                    let callee = f.map_or(Expr::Unknown, |f| self.expr_of(f));
                    self.walk_arguments(args, callee);
                }
            }
            "new_expression" => {
                if let Some(c) = n.child_by_field_name("constructor") {
                    match c.kind() {
                        "identifier" => self.name_ref(c, Use::Call),
                        "member_expression" => {
                            self.member_ref(c, Use::Call);
                        }
                        _ => self.walk(c),
                    }
                }
                if let Some(t) = n.child_by_field_name("type_arguments") {
                    self.walk(t);
                }
                if let Some(args) = n.child_by_field_name("arguments") {
                    let callee = n
                        .child_by_field_name("constructor")
                        .map_or(Expr::Unknown, |c| self.expr_of(c));
                    self.walk_arguments(args, callee);
                }
            }
            "pair" => {
                // Keys are not references, computed keys are.
                if let Some(k) = n.child_by_field_name("key")
                    && k.kind() == "computed_property_name"
                {
                    self.walk(k);
                }
                if let Some(v) = n.child_by_field_name("value") {
                    self.walk(v);
                }
            }
            "method_definition" => self.walk_function(n, Some(None)),
            "jsx_opening_element" | "jsx_self_closing_element" => self.walk_jsx(n),
            "jsx_closing_element" => {
                if let Some(nm) = n.child_by_field_name("name").or_else(|| n.named_child(0)) {
                    match nm.kind() {
                        "identifier"
                            if self.t(nm).starts_with(|c: char| c.is_ascii_uppercase()) =>
                        {
                            self.name_ref(nm, Use::Jsx)
                        }
                        "member_expression" => {
                            self.member_ref(nm, Use::Jsx);
                        }
                        _ => {}
                    }
                }
            }
            "assignment_expression" if self.owner.is_none() && self.scopes.len() == 1 => {
                self.walk_top_assignment(n);
            }
            "labeled_statement" => {
                if let Some(b) = n.child_by_field_name("body") {
                    self.walk(b);
                } else {
                    self.walk_children(n);
                }
            }
            "break_statement" | "continue_statement" => {}
            _ => self.walk_children(n),
        }
    }

    fn walk_heritage_clause(&mut self, clause: Node, decl: Option<usize>) {
        let mut c = clause.walk();
        let ts: Vec<Node> = clause.named_children(&mut c).collect();
        for t in ts {
            self.heritage(t, Use::Extends, decl);
        }
    }

    fn walk_type_members(&mut self, body: Node) {
        let mut c = body.walk();
        let ms: Vec<Node> = body.named_children(&mut c).collect();
        for m in ms {
            let decl = self.decl_of(m);
            match m.kind() {
                "property_signature" => {
                    self.with_owner(decl, |x| {
                        if let Some(t) = m.child_by_field_name("type") {
                            x.walk(t);
                            let tr = x.type_ref(t);
                            if let Some(d) = decl
                                && x.file.decls[d].ty.is_none()
                            {
                                x.file.decls[d].ty = Some(tr);
                            }
                        }
                    });
                }
                "method_signature" => self.walk_member(m, None),
                _ => self.walk(m),
            }
        }
    }

    /// The arguments of a call of `callee`; a function written as an argument gets its
    /// parameters typed from the callee's declaration.
    fn walk_arguments(&mut self, args: Node, callee: Expr) {
        let mut c = args.walk();
        let xs: Vec<Node> = args.named_children(&mut c).collect();
        let mut i = 0;
        for a in xs {
            match a.kind() {
                "comment" => continue,
                "identifier" => self.name_ref(a, Use::Argument),
                "member_expression" => {
                    self.member_ref(a, Use::Argument);
                }
                "arrow_function" | "function_expression" | "function" => {
                    if callee != Expr::Unknown {
                        self.callback = Some(Context::Argument(callee.clone(), i));
                    }
                    self.walk(a);
                    self.callback = None;
                }
                _ => self.walk(a),
            }
            i += 1;
        }
    }

    fn walk_declarator(&mut self, vd: Node) {
        let decl_here = self.decl_of(vd);
        let name = vd.child_by_field_name("name");
        let is_require = vd
            .child_by_field_name("value")
            .and_then(|v| self.require_of(v))
            .is_some();
        let top_require = is_require && self.scopes.len() == 1 && self.owner.is_none();
        if top_require {
            // Bound as an import; its specifier and names are walked as imports.
            if let Some(n) = name
                && n.kind() == "object_pattern"
            {
                self.import_refs_of_require(n);
            }
            return;
        }
        let ty = vd.child_by_field_name("type").map(|t| {
            self.with_owner(decl_here, |x| x.walk(t));
            self.type_ref(t)
        });
        let value = vd.child_by_field_name("value").map(|v| {
            if let Some(t) = &ty
                && matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
            {
                self.callback = Some(Context::Typed(t.clone()));
            }
            self.with_owner(decl_here, |x| x.walk(v));
            self.callback = None;
            self.expr_of(v)
        });
        let Some(name) = name else { return };
        if name.kind() == "identifier" {
            let nm = self.t(name).to_string();
            match self.lookup(&nm, false) {
                NameRes::Decl(d) if decl_here == Some(d) => {
                    self.file.decls[d].ty = ty;
                    self.file.decls[d].value = value;
                }
                NameRes::Local(l) => {
                    self.file.locals[l].ty = ty;
                    self.file.locals[l].value = value;
                }
                _ => {}
            }
        } else {
            // Destructuring: each name is the member of the value it reads.
            let src = match ty {
                Some(t) => Some(Expr::Typed(t)),
                None => value,
            };
            self.with_owner(decl_here, |x| x.pattern(name, src, false));
        }
    }

    fn import_refs_of_require(&mut self, pattern: Node) {
        let mut c = pattern.walk();
        let props: Vec<Node> = pattern.named_children(&mut c).collect();
        for p in props {
            let key = match p.kind() {
                "shorthand_property_identifier_pattern" => p,
                "pair_pattern" => match p.child_by_field_name("key") {
                    Some(k) => k,
                    None => continue,
                },
                _ => continue,
            };
            let (line, column) = pos(key);
            if let Some(i) = self
                .file
                .imports
                .iter()
                .position(|im| im.line == line && im.column == column)
            {
                self.push_ref(key, Use::Import, RefTarget::Imported(i));
            }
        }
    }

    fn walk_import(&mut self, n: Node) {
        let (sl, el) = (
            n.start_position().row as u32 + 1,
            n.end_position().row as u32 + 1,
        );
        let ids: Vec<usize> = self
            .file
            .imports
            .iter()
            .enumerate()
            .filter(|(_, im)| im.line >= sl && im.line <= el && im.kind != ImportKind::Namespace)
            .map(|(i, _)| i)
            .collect();
        for i in ids {
            let im = &self.file.imports[i];
            let (line, column) = (im.line, im.column);
            self.file.refs.push(Ref {
                line,
                column,
                from: None,
                usage: Use::Import,
                target: RefTarget::Imported(i),
            });
        }
    }

    fn walk_export(&mut self, n: Node) {
        if let Some(d) = n.child_by_field_name("declaration") {
            let mut c = n.walk();
            let decorators: Vec<Node> = n
                .named_children(&mut c)
                .filter(|k| k.kind() == "decorator")
                .collect();
            for dec in decorators {
                self.walk(dec);
            }
            self.walk(d);
            return;
        }
        if n.child_by_field_name("source").is_some() {
            let (sl, _) = pos(n);
            let el = n.end_position().row as u32 + 1;
            let hits: Vec<(usize, usize)> = self
                .file
                .reexports
                .iter()
                .enumerate()
                .flat_map(|(ri, r)| {
                    r.items
                        .iter()
                        .enumerate()
                        .filter(move |(_, it)| it.line >= sl && it.line <= el)
                        .map(move |(ii, _)| (ri, ii))
                })
                .collect();
            for (ri, ii) in hits {
                let it = &self.file.reexports[ri].items[ii];
                let (line, column) = (it.line, it.column);
                self.file.refs.push(Ref {
                    line,
                    column,
                    from: None,
                    usage: Use::Reexport,
                    target: RefTarget::Reexported(ri, ii),
                });
            }
            return;
        }
        let is_default = has_child(n, "default");
        if let Some(v) = n.child_by_field_name("value") {
            if v.kind() == "identifier" && is_default && self.scopes.len() == 1 {
                let name = self.t(v).to_string();
                let res = self.lookup_any(&name);
                self.push_ref(v, Use::Export, RefTarget::Name(res.clone(), name));
                self.file.exports.push(("default".into(), res));
            } else {
                let decl = self.decl_of(v);
                if matches!(v.kind(), "class") {
                    self.walk_class(v);
                } else {
                    self.with_owner(decl, |x| x.walk(v));
                }
                if let Some(d) = decl
                    && self.file.decls[d].value.is_none()
                {
                    self.file.decls[d].value = Some(self.expr_of(v));
                }
            }
            return;
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            match k.kind() {
                "export_clause" => {
                    let mut cc = k.walk();
                    let specs: Vec<Node> = k.named_children(&mut cc).collect();
                    for sp in specs {
                        if sp.kind() != "export_specifier" {
                            continue;
                        }
                        let Some(nn) = sp.child_by_field_name("name") else {
                            continue;
                        };
                        let name = self.spec_name(nn);
                        let alias = sp
                            .child_by_field_name("alias")
                            .map_or(name.clone(), |a| self.spec_name(a));
                        let res = self.lookup_any(&name);
                        self.push_ref(nn, Use::Export, RefTarget::Name(res.clone(), name));
                        if self.scopes.len() == 1 {
                            self.file.exports.push((alias, res));
                        }
                    }
                }
                "decorator" | "comment" => {}
                _ => {
                    // `export = expr`.
                    if has_child(n, "=") {
                        if k.kind() == "identifier" {
                            self.name_ref(k, Use::Export);
                        } else {
                            self.walk(k);
                        }
                        if self.scopes.len() == 1 {
                            self.file.export_equals = Some(self.expr_of(k));
                        }
                    } else {
                        self.walk(k);
                    }
                }
            }
        }
    }

    /// Top-level `module.exports = …` and `exports.x = …`.
    fn walk_top_assignment(&mut self, n: Node) {
        let left = n.child_by_field_name("left");
        let right = n.child_by_field_name("right");
        let decl = self.decl_of(n);
        if let Some(r) = right {
            self.with_owner(decl, |x| x.walk(r));
        }
        let (Some(l), Some(r)) = (left, right) else {
            return;
        };
        let lt = self.t(l);
        if lt == "module.exports" {
            let r = unwrap_parens(r);
            if r.kind() == "object" {
                let mut c = r.walk();
                let props: Vec<Node> = r.named_children(&mut c).collect();
                for p in props {
                    match p.kind() {
                        "shorthand_property_identifier" => {
                            let nm = self.t(p).to_string();
                            let res = self.lookup(&nm, false);
                            self.file.exports.push((nm, res));
                        }
                        "pair" => {
                            if let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                                && v.kind() == "identifier"
                            {
                                let key = self.spec_name(k);
                                let vn = self.t(v).to_string();
                                let res = self.lookup(&vn, false);
                                self.file.exports.push((key, res));
                            }
                        }
                        _ => {}
                    }
                }
                self.file.export_equals = Some(Expr::External);
            } else {
                self.file.export_equals = Some(self.expr_of(r));
            }
        } else if let Some(d) = decl {
            if self.file.decls[d].value.is_none() {
                self.file.decls[d].value = Some(self.expr_of(r));
            }
        } else {
            self.walk(l);
        }
    }

    fn walk_jsx(&mut self, n: Node) {
        let name = n.child_by_field_name("name");
        let mut comp = Expr::Unknown;
        if let Some(nm) = name {
            match nm.kind() {
                "identifier" => {
                    let t = self.t(nm);
                    // Lower-case tags are intrinsic elements.
                    if t.starts_with(|c: char| c.is_ascii_uppercase()) {
                        let res = self.lookup(t, false);
                        self.push_ref(nm, Use::Jsx, RefTarget::Name(res.clone(), t.to_string()));
                        comp = Expr::Name(res);
                    }
                }
                "member_expression" => comp = self.member_ref(nm, Use::Jsx),
                _ => {}
            }
        }
        if let Some(t) = n.child_by_field_name("type_arguments") {
            self.walk(t);
        }
        let mut c = n.walk();
        let attrs: Vec<Node> = n.named_children(&mut c).collect();
        for a in attrs {
            match a.kind() {
                "jsx_attribute" => {
                    let mut cc = a.walk();
                    let parts: Vec<Node> = a.named_children(&mut cc).collect();
                    for (i, p) in parts.into_iter().enumerate() {
                        if i == 0 && p.kind() == "property_identifier" {
                            if comp != Expr::Unknown {
                                let pn = self.t(p).to_string();
                                self.push_ref(
                                    p,
                                    Use::Value,
                                    RefTarget::Member(Expr::JsxProps(Box::new(comp.clone())), pn),
                                );
                            }
                        } else {
                            self.walk(p);
                        }
                    }
                }
                _ if Some(a) == name => {}
                "type_arguments" => {}
                _ => self.walk(a),
            }
        }
    }

    fn name_ref(&mut self, n: Node, usage: Use) {
        let name = self.t(n);
        if name == "undefined" {
            return;
        }
        let res = self.lookup(name, false);
        if let NameRes::Local(_) = res {
            return;
        }
        self.push_ref(n, usage, RefTarget::Name(res, name.to_string()));
    }

    fn type_name_ref(&mut self, n: Node) {
        let name = self.t(n);
        let res = self.lookup(name, true);
        if let NameRes::Local(_) = res {
            return;
        }
        self.push_ref(n, Use::Type, RefTarget::Name(res, name.to_string()));
    }

    /// `a.b.c`: refs for the operand and the member; returns the member's expression.
    fn member_ref(&mut self, n: Node, usage: Use) -> Expr {
        self.depth += 1;
        let e = if self.depth > MAX_DEPTH {
            self.file.has_error = true;
            Expr::Unknown
        } else {
            self.member_ref_inner(n, usage)
        };
        self.depth -= 1;
        e
    }

    fn member_ref_inner(&mut self, n: Node, usage: Use) -> Expr {
        let obj = n.child_by_field_name("object");
        let prop = n.child_by_field_name("property");
        let base = match obj {
            Some(o) => {
                let o2 = unwrap_parens(o);
                match o2.kind() {
                    "member_expression" => self.member_ref(o2, Use::Value),
                    "identifier" => {
                        // A qualifier: the declaration of that name which holds the member
                        // (a function merged with a namespace names the namespace).
                        let name = self.t(o2);
                        let res = self.lookup(name, false);
                        if !matches!(res, NameRes::Local(_)) && name != "undefined" {
                            let member = prop.map(|p| self.t(p).to_string()).unwrap_or_default();
                            self.push_ref(o2, Use::Value, RefTarget::Qualifier(res, member));
                        }
                        self.expr_of(o2)
                    }
                    _ => {
                        self.walk(o);
                        self.expr_of(o)
                    }
                }
            }
            None => Expr::Unknown,
        };
        let Some(p) = prop else {
            return Expr::Unknown;
        };
        let name = self.t(p).to_string();
        if matches!(
            p.kind(),
            "property_identifier" | "private_property_identifier"
        ) {
            self.push_ref(p, usage, RefTarget::Member(base.clone(), name.clone()));
        }
        // A long chain keeps a bounded description: its deep end is unknown.
        if expr_depth(&base) >= MAX_EXPR {
            return Expr::Unknown;
        }
        Expr::Member(Box::new(base), name)
    }

    // ---------------------------------------------------------------- descriptions

    fn expr_of(&self, n: Node) -> Expr {
        self.expr_at(n, 0)
    }

    fn expr_at(&self, n: Node, d: usize) -> Expr {
        if d > MAX_EXPR {
            return Expr::Unknown;
        }
        match n.kind() {
            "identifier" => {
                let name = self.t(n);
                if name == "undefined" {
                    return Expr::External;
                }
                Expr::Name(self.lookup(name, false))
            }
            "this" => Expr::This(self.this_class.flatten()),
            "super" => Expr::Super(self.this_class.flatten()),
            "member_expression" => {
                match (
                    n.child_by_field_name("object"),
                    n.child_by_field_name("property"),
                ) {
                    (Some(o), Some(p)) => {
                        Expr::Member(Box::new(self.expr_at(o, d + 1)), self.t(p).to_string())
                    }
                    _ => Expr::Unknown,
                }
            }
            "call_expression" => match n.child_by_field_name("function") {
                Some(f) => {
                    if self.require_of(n).is_some() {
                        return Expr::Unknown;
                    }
                    Expr::Call(Box::new(self.expr_at(f, d + 1)))
                }
                None => Expr::Unknown,
            },
            "new_expression" => match n.child_by_field_name("constructor") {
                Some(c) => Expr::New(Box::new(self.expr_at(c, d + 1))),
                None => Expr::Unknown,
            },
            "parenthesized_expression" | "non_null_expression" => n
                .named_child(0)
                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
            "await_expression" => n.named_child(0).map_or(Expr::Unknown, |c| {
                Expr::Await(Box::new(self.expr_at(c, d + 1)))
            }),
            "as_expression" | "satisfies_expression" => {
                let ty = n.named_child(1);
                match ty {
                    Some(t) if n.kind() == "as_expression" => {
                        if self.t(t) == "const" {
                            n.named_child(0)
                                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1))
                        } else {
                            Expr::Typed(self.type_at(t, d + 1))
                        }
                    }
                    _ => n
                        .named_child(0)
                        .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
                }
            }
            "type_assertion" => n
                .named_child(0)
                .map_or(Expr::Unknown, |t| Expr::Typed(self.type_at(t, d + 1))),
            "subscript_expression" => {
                let idx_is_number = n
                    .child_by_field_name("index")
                    .is_some_and(|i| i.kind() == "number");
                match n.child_by_field_name("object") {
                    Some(o) if idx_is_number => Expr::Elem(Box::new(self.expr_at(o, d + 1))),
                    _ => Expr::Unknown,
                }
            }
            "string"
            | "template_string"
            | "number"
            | "true"
            | "false"
            | "null"
            | "array"
            | "regex"
            | "arrow_function"
            | "function_expression"
            | "binary_expression"
            | "unary_expression" => Expr::External,
            _ => Expr::Unknown,
        }
    }

    fn type_ref(&self, n: Node) -> TypeRef {
        self.type_at(n, 0)
    }

    fn type_at(&self, n: Node, d: usize) -> TypeRef {
        if d > MAX_EXPR {
            return TypeRef::Unknown;
        }
        match n.kind() {
            "type_annotation" | "parenthesized_type" | "readonly_type" => n
                .named_child(0)
                .map_or(TypeRef::Unknown, |c| self.type_at(c, d + 1)),
            "type_identifier" => TypeRef::Named {
                head: self.lookup(self.t(n), true),
                path: Vec::new(),
                args: Vec::new(),
            },
            "nested_type_identifier" => {
                let mut path = Vec::new();
                let mut cur = Some(n);
                let mut head = None;
                while let Some(c) = cur {
                    match c.kind() {
                        "nested_type_identifier" => {
                            if let Some(nm) = c.child_by_field_name("name") {
                                path.push(self.t(nm).to_string());
                            }
                            cur = c.child_by_field_name("module");
                        }
                        "nested_identifier" | "member_expression" => {
                            if let Some(p) = c.child_by_field_name("property") {
                                path.push(self.t(p).to_string());
                            }
                            cur = c.child_by_field_name("object");
                        }
                        "identifier" => {
                            head = Some(self.lookup(self.t(c), false));
                            cur = None;
                        }
                        _ => return TypeRef::Unknown,
                    }
                }
                path.reverse();
                match head {
                    Some(head) => TypeRef::Named {
                        head,
                        path,
                        args: Vec::new(),
                    },
                    None => TypeRef::Unknown,
                }
            }
            "generic_type" => {
                let base = n
                    .child_by_field_name("name")
                    .map_or(TypeRef::Unknown, |b| self.type_at(b, d + 1));
                let args: Vec<TypeRef> = n
                    .child_by_field_name("type_arguments")
                    .map(|a| {
                        let mut c = a.walk();
                        a.named_children(&mut c)
                            .map(|t| self.type_at(t, d + 1))
                            .collect()
                    })
                    .unwrap_or_default();
                match base {
                    TypeRef::Named { head, path, .. } => TypeRef::Named { head, path, args },
                    other => other,
                }
            }
            "array_type" => n.named_child(0).map_or(TypeRef::Unknown, |c| {
                TypeRef::Array(Box::new(self.type_at(c, d + 1)))
            }),
            "union_type" => {
                // `T | null | undefined` is T; any other union is not one type.
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                let mut flat = Vec::new();
                for p in parts {
                    flatten_union(p, &mut flat);
                }
                let kept: Vec<Node> = flat
                    .into_iter()
                    .filter(|p| {
                        let nullish = matches!(p.kind(), "null" | "undefined")
                            || (matches!(p.kind(), "literal_type" | "predefined_type")
                                && matches!(self.t(*p), "null" | "undefined"));
                        !nullish
                    })
                    .collect();
                if kept.len() == 1 {
                    self.type_at(kept[0], d + 1)
                } else {
                    TypeRef::Union(kept.into_iter().map(|p| self.type_at(p, d + 1)).collect())
                }
            }
            "intersection_type" => {
                let mut c = n.walk();
                let parts: Vec<TypeRef> = n
                    .named_children(&mut c)
                    .map(|p| self.type_at(p, d + 1))
                    .collect();
                TypeRef::Intersection(parts)
            }
            "this_type" => TypeRef::This,
            // `any` and `unknown` say nothing about the value.
            "predefined_type" if matches!(self.t(n), "any" | "unknown") => TypeRef::Unknown,
            "function_type" => {
                let mut ps = Vec::new();
                if let Some(params) = n.child_by_field_name("parameters") {
                    let mut c = params.walk();
                    for p in params.named_children(&mut c) {
                        if matches!(p.kind(), "required_parameter" | "optional_parameter") {
                            if p.child_by_field_name("pattern")
                                .is_some_and(|x| x.kind() == "this")
                            {
                                continue;
                            }
                            ps.push(
                                p.child_by_field_name("type")
                                    .map(|t| self.type_at(t, d + 1)),
                            );
                        }
                    }
                }
                TypeRef::Fn(ps)
            }
            "predefined_type" | "literal_type" | "template_literal_type" | "tuple_type" => {
                TypeRef::External
            }
            "object_type" => {
                let mut props = Vec::new();
                let mut c = n.walk();
                for m in n.named_children(&mut c) {
                    match m.kind() {
                        "property_signature" => {
                            if let Some(name) = m.child_by_field_name("name") {
                                props.push((
                                    self.spec_name(name),
                                    m.child_by_field_name("type")
                                        .map(|t| self.type_at(t, d + 1)),
                                ));
                            }
                        }
                        // Signatures and index signatures: members no name lists.
                        "method_signature" | "comment" => {}
                        _ => return TypeRef::External,
                    }
                }
                TypeRef::Object(props)
            }
            _ => TypeRef::Unknown,
        }
    }
}

fn collect_infers(n: Node, src: &str, out: &mut Vec<String>) {
    if n.kind() == "infer_type" {
        if let Some(t) = n.named_child(0) {
            out.push(text(t, src).to_string());
        }
        return;
    }
    let mut c = n.walk();
    let kids: Vec<Node> = n.named_children(&mut c).collect();
    for k in kids {
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
    if n.kind() == "union_type" {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            flatten_union(k, out);
        }
    } else {
        out.push(n);
    }
}

fn unwrap_parens(n: Node) -> Node {
    let mut n = n;
    while matches!(n.kind(), "parenthesized_expression" | "non_null_expression") {
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
    match p.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            out.push((text(p, src).to_string(), p))
        }
        "object_pattern" | "array_pattern" => {
            let mut c = p.walk();
            let kids: Vec<Node> = p.named_children(&mut c).collect();
            for k in kids {
                match k.kind() {
                    "pair_pattern" => {
                        if let Some(v) = k.child_by_field_name("value") {
                            pattern_names(v, src, out);
                        }
                    }
                    "object_assignment_pattern" | "assignment_pattern" => {
                        if let Some(l) = k.child_by_field_name("left") {
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
            if let Some(l) = p.child_by_field_name("left") {
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
