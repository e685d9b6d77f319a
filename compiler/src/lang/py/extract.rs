//! Phase 1 of Python: one file at a time, in parallel. Declares the module's symbols (module
//! level, class bodies and `self.x` fields), then walks every statement with Python's scopes:
//! a function's locals are the names it assigns anywhere in its body (`global` and `nonlocal`
//! aside), comprehensions have their own scope, and a class body's names are visible only to
//! the code directly in it. Names are bound on the spot; imports and members of imported types
//! are left to phase 2 as descriptions ([`Expr`], [`TypeRef`]).

use std::collections::{HashMap, HashSet};

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use crate::lang::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameRes {
    Decl(usize),
    Import(usize),
    Local(usize),
    /// Not bound by any scope of the file: a builtin, a star import's name, or a mistake.
    Unbound(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// `C`, `m.C`: the head bound in the file, then attribute names.
    Named {
        head: NameRes,
        path: Vec<String>,
    },
    /// `list[C]`, `Sequence[C]`, …: a container of C.
    Seq(Box<TypeRef>),
    Union(Vec<TypeRef>),
    /// Known and not a declaration (`int`, `str`, `None`, …).
    External,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

#[derive(Clone, Debug)]
pub enum RefTarget {
    Name(NameRes, String),
    Member(Expr, String),
    /// The imported name of import `.0` (`x` of `from m import x`).
    Imported(usize),
    /// The module named by the last part of an `import a.b.c` (import `.0`).
    ImportedModule(usize),
}

#[derive(Clone, Debug)]
pub struct Ref {
    pub line: u32,
    pub column: u32,
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
    pub members: HashMap<String, usize>,
    /// A field declared by `self.x = …` in a method rather than in the class body.
    pub from_self: bool,
    /// That first `self.x` assignment carries an annotation.
    pub annotated: bool,
    /// `@staticmethod` / `@classmethod`.
    pub static_method: bool,
    pub class_method: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportKind {
    /// `import a.b.c` binds `a`; `import a.b as c` binds `c` to `a.b` (`alias`).
    Module { alias: bool },
    /// `from m import name`.
    From(String),
    /// `from m import *`.
    Star,
}

#[derive(Clone, Debug)]
pub struct Import {
    /// The name the import binds (empty for `*`).
    #[allow(dead_code)]
    pub local: String,
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

#[derive(Clone, Debug, Default)]
pub struct Local {
    pub ty: Option<TypeRef>,
    pub value: Option<Expr>,
    pub assignments: u32,
}

#[derive(Debug, Default)]
pub struct PyFile {
    pub decls: Vec<Decl>,
    pub locals: Vec<Local>,
    pub imports: Vec<Import>,
    pub refs: Vec<Ref>,
    /// Module-level names.
    pub scope: HashMap<String, NameRes>,
    /// `__all__` when it is a list or tuple of string literals.
    pub all: Option<Vec<String>>,
    pub has_error: bool,
}

const BUILTIN_NAMES: &str = include_str!("builtins.txt");

pub(super) fn is_builtin(name: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| BUILTIN_NAMES.split_whitespace().collect())
        .contains(name)
}

fn text<'s>(n: Node, src: &'s str) -> &'s str {
    &src[n.byte_range()]
}

fn pos(n: Node) -> (u32, u32) {
    let p = n.start_position();
    (p.row as u32 + 1, p.column as u32)
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

fn header(n: Node, src: &str) -> Option<String> {
    let end = n
        .child_by_field_name("body")
        .map_or(n.end_byte(), |b| b.start_byte());
    let s = collapse(src[n.start_byte()..end].trim_end().trim_end_matches(':'));
    (!s.is_empty()).then_some(s)
}

fn kids<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
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
            names: HashMap::new(),
            globals: HashSet::new(),
            nonlocals: HashSet::new(),
        }
    }
}

/// The method context: the class, and the names of `self` and `cls`.
#[derive(Clone)]
struct MethodCtx {
    class: usize,
    receiver: Option<String>,
}

struct Extractor<'s> {
    src: &'s str,
    file: PyFile,
    scopes: Vec<Scope>,
    decl_at: HashMap<(usize, u16), usize>,
    owner: Option<usize>,
    method: Option<MethodCtx>,
    depth: usize,
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
            Expr::Member(b, _) | Expr::Call(b) | Expr::Elem(b) => {
                d += 1;
                cur = b;
            }
            _ => return d,
        }
    }
}

/// Extracts one file.
pub fn extract(src: &str) -> PyFile {
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return PyFile {
            has_error: true,
            ..PyFile::default()
        };
    }
    let Some(tree) = parser.parse(src, None) else {
        return PyFile {
            has_error: true,
            ..PyFile::default()
        };
    };
    let root = tree.root_node();
    let mut x = Extractor {
        src,
        file: PyFile {
            has_error: root.has_error(),
            ..PyFile::default()
        },
        scopes: vec![Scope::new(ScopeKind::Module)],
        decl_at: HashMap::new(),
        owner: None,
        method: None,
        depth: 0,
    };
    x.declare_block(root, None, "");
    x.file.scope = x.scopes[0].names.clone();
    x.walk_block(root);
    x.mark_exported();
    x.file
}

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
            members: HashMap::new(),
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

    // ---------------------------------------------------------------- declarations

    /// Declares the names a module or class body binds, looking into compound statements but
    /// not into functions or classes. The first declaration of a name wins.
    fn declare_block(&mut self, body: Node, class: Option<usize>, prefix: &str) {
        for s in kids(body) {
            self.declare_stmt(s, class, prefix);
        }
    }

    fn declare_stmt(&mut self, s: Node, class: Option<usize>, prefix: &str) {
        match s.kind() {
            "decorated_definition" => {
                if let Some(d) = s.child_by_field_name("definition") {
                    let decorators: Vec<String> = kids(s)
                        .into_iter()
                        .filter(|k| k.kind() == "decorator")
                        .filter_map(|k| k.named_child(0))
                        .map(|e| self.t(e).to_string())
                        .collect();
                    self.declare_def(d, class, prefix, &decorators, Some(s));
                }
            }
            "function_definition" | "class_definition" => {
                self.declare_def(s, class, prefix, &[], None)
            }
            "expression_statement" => {
                for e in kids(s) {
                    if e.kind() == "assignment" {
                        self.declare_assignment(e, s, class, prefix);
                    }
                }
            }
            "import_statement" | "import_from_statement" if class.is_none() => {
                self.declare_import(s, true);
            }
            "future_import_statement" if class.is_none() => {
                // `from __future__ import x`: an import of the standard library, recorded at
                // the statement.
                for n in kids(s) {
                    let name = match n.kind() {
                        "dotted_name" => n,
                        "aliased_import" => match n.child_by_field_name("name") {
                            Some(x) => x,
                            None => continue,
                        },
                        _ => continue,
                    };
                    let nm = self.t(name).to_string();
                    self.push_import(
                        nm.clone(),
                        "__future__".into(),
                        ImportKind::From(nm),
                        name,
                        s,
                        true,
                    );
                }
            }
            "if_statement"
            | "elif_clause"
            | "else_clause"
            | "try_statement"
            | "except_clause"
            | "finally_clause"
            | "with_statement"
            | "for_statement"
            | "while_statement"
            | "block"
            | "except_group_clause"
            | "match_statement"
            | "case_clause" => {
                for k in kids(s) {
                    match k.kind() {
                        "block"
                        | "elif_clause"
                        | "else_clause"
                        | "except_clause"
                        | "finally_clause"
                        | "except_group_clause"
                        | "case_clause" => self.declare_stmt(k, class, prefix),
                        _ => self.declare_stmt_like(k, class, prefix),
                    }
                }
                if s.kind() == "for_statement"
                    && let Some(l) = s.child_by_field_name("left")
                {
                    self.declare_targets(l, s, class, prefix, false);
                }
            }
            "ERROR" => {
                for k in kids(s) {
                    self.declare_stmt(k, class, prefix);
                }
            }
            _ => {}
        }
    }

    fn declare_stmt_like(&mut self, k: Node, class: Option<usize>, prefix: &str) {
        if matches!(
            k.kind(),
            "decorated_definition"
                | "function_definition"
                | "class_definition"
                | "expression_statement"
                | "import_statement"
                | "import_from_statement"
                | "if_statement"
                | "try_statement"
                | "with_statement"
                | "for_statement"
                | "while_statement"
                | "block"
        ) {
            self.declare_stmt(k, class, prefix);
        }
    }

    fn bind_decl(&mut self, name: &str, d: usize) {
        if let Some(s) = self.scopes.last_mut() {
            s.names.entry(name.to_string()).or_insert(NameRes::Decl(d));
        }
    }

    fn existing(&self, name: &str, class: Option<usize>) -> Option<usize> {
        match class {
            Some(c) => self.file.decls[c].members.get(name).copied(),
            None => match self.scopes[0].names.get(name) {
                Some(NameRes::Decl(d)) => Some(*d),
                _ => None,
            },
        }
    }

    fn declare_def(
        &mut self,
        d: Node,
        class: Option<usize>,
        prefix: &str,
        decorators: &[String],
        outer: Option<Node>,
    ) {
        let Some(name) = d.child_by_field_name("name") else {
            return;
        };
        let name = self.t(name).to_string();
        let span_node = outer.unwrap_or(d);
        if let Some(e) = self.existing(&name, class) {
            // A redefinition (a property's setter, a conditional def): the first one stands.
            self.decl_at.insert((d.start_byte(), d.kind_id()), e);
            return;
        }
        if d.kind() == "class_definition" {
            let c = self.new_decl(span_node, &name, SymbolKind::Class, class, prefix);
            self.file.decls[c].signature = header(d, self.src);
            self.decl_at.insert((d.start_byte(), d.kind_id()), c);
            if class.is_none() {
                self.bind_decl(&name, c);
            }
            let qp = format!("{}.", self.file.decls[c].qn);
            if let Some(body) = d.child_by_field_name("body") {
                self.declare_block(body, Some(c), &qp);
                self.declare_self_fields(body, c, &qp);
            }
            return;
        }
        let is = |n: &str| decorators.iter().any(|x| x == n);
        let kind = match class {
            None => SymbolKind::Function,
            Some(_) if is("staticmethod") => SymbolKind::StaticMethod,
            Some(_)
                if is("property")
                    || decorators.iter().any(|x| {
                        x.ends_with(".setter") || x.ends_with(".getter") || x.ends_with(".deleter")
                    }) =>
            {
                SymbolKind::Property
            }
            Some(_) => SymbolKind::Method,
        };
        let f = self.new_decl(span_node, &name, kind, class, prefix);
        self.file.decls[f].signature = header(d, self.src);
        self.decl_at.insert((d.start_byte(), d.kind_id()), f);
        self.file.decls[f].static_method = is("staticmethod");
        self.file.decls[f].class_method = is("classmethod");
        if class.is_none() {
            self.bind_decl(&name, f);
        }
    }

    /// `self.x = …` (and `self.x: T = …`) in the methods of class `c`: a field when the class
    /// body does not declare `x`, at its first assignment.
    fn declare_self_fields(&mut self, body: Node, c: usize, qp: &str) {
        for s in kids(body) {
            let def = match s.kind() {
                "decorated_definition" => s.child_by_field_name("definition"),
                "function_definition" => Some(s),
                _ => None,
            };
            let Some(def) = def.filter(|d| d.kind() == "function_definition") else {
                continue;
            };
            let decorated_static = s.kind() == "decorated_definition"
                && kids(s).iter().any(|k| {
                    k.kind() == "decorator"
                        && k.named_child(0)
                            .is_some_and(|e| matches!(self.t(e), "staticmethod" | "classmethod"))
                });
            if decorated_static {
                continue;
            }
            let Some(me) = first_param(def, self.src) else {
                continue;
            };
            if let Some(b) = def.child_by_field_name("body") {
                self.scan_self_assignments(b, &me, c, qp);
            }
        }
    }

    fn scan_self_assignments(&mut self, n: Node, me: &str, c: usize, qp: &str) {
        self.scan_self_at(n, me, c, qp, 0);
    }

    fn scan_self_at(&mut self, n: Node, me: &str, c: usize, qp: &str, d: usize) {
        if d > MAX_DEPTH {
            return;
        }
        for k in kids(n) {
            match k.kind() {
                "function_definition" | "class_definition" | "decorated_definition" | "lambda" => {}
                "assignment" | "augmented_assignment" => {
                    if let Some(l) = k.child_by_field_name("left") {
                        let mut targets = Vec::new();
                        attribute_targets(l, &mut targets);
                        for t in targets {
                            let (Some(o), Some(a)) = (
                                t.child_by_field_name("object"),
                                t.child_by_field_name("attribute"),
                            ) else {
                                continue;
                            };
                            if self.t(o) != me {
                                continue;
                            }
                            let name = self.t(a).to_string();
                            match self.file.decls[c].members.get(&name) {
                                Some(&f) => {
                                    if self.file.decls[f].kind == SymbolKind::Field {
                                        self.file.decls[f].assignments += 1;
                                    }
                                }
                                None => {
                                    let stmt = k.parent().unwrap_or(k);
                                    let f =
                                        self.new_decl(stmt, &name, SymbolKind::Field, Some(c), qp);
                                    self.file.decls[f].assignments = 1;
                                    self.file.decls[f].from_self = true;
                                    // `self.x: T = …` declares x here even when a base does.
                                    self.file.decls[f].annotated =
                                        k.child_by_field_name("type").is_some();
                                    self.decl_at.insert((t.start_byte(), t.kind_id()), f);
                                }
                            }
                        }
                    }
                    if let Some(r) = k.child_by_field_name("right") {
                        self.scan_self_at(r, me, c, qp, d + 1);
                    }
                }
                _ => self.scan_self_at(k, me, c, qp, d + 1),
            }
        }
    }

    fn declare_assignment(&mut self, a: Node, stmt: Node, class: Option<usize>, prefix: &str) {
        let Some(left) = a.child_by_field_name("left") else {
            return;
        };
        self.declare_targets(left, stmt, class, prefix, true);
        // `x = y = 1`: the right side may itself be an assignment.
        if let Some(r) = a.child_by_field_name("right")
            && r.kind() == "assignment"
        {
            self.declare_assignment(r, stmt, class, prefix);
        }
        if class.is_none()
            && left.kind() == "identifier"
            && self.t(left) == "__all__"
            && let Some(r) = a.child_by_field_name("right")
            && matches!(r.kind(), "list" | "tuple")
        {
            let mut names = Vec::new();
            for e in kids(r) {
                if e.kind() == "string" && e.named_child_count() <= 3 {
                    let t = self.t(e);
                    names.push(t.trim_matches(|c| c == '"' || c == '\'').to_string());
                } else if e.kind() != "comment" {
                    return;
                }
            }
            self.file.all = Some(names);
        }
    }

    fn declare_targets(
        &mut self,
        t: Node,
        stmt: Node,
        class: Option<usize>,
        prefix: &str,
        assignment: bool,
    ) {
        match t.kind() {
            "identifier" => {
                let name = self.t(t).to_string();
                if let Some(e) = self.existing(&name, class) {
                    self.file.decls[e].assignments += 1;
                    return;
                }
                if !assignment {
                    // `for` targets at module level are names, not declarations.
                    return;
                }
                let kind = if class.is_some() {
                    SymbolKind::Field
                } else {
                    SymbolKind::Variable
                };
                let d = self.new_decl(stmt, &name, kind, class, prefix);
                self.file.decls[d].assignments = 1;
                self.decl_at.insert((t.start_byte(), t.kind_id()), d);
                if class.is_none() {
                    self.bind_decl(&name, d);
                }
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                for k in kids(t) {
                    self.declare_targets(k, stmt, class, prefix, assignment);
                }
            }
            _ => {}
        }
    }

    fn declare_import(&mut self, s: Node, top: bool) {
        if s.kind() == "import_statement" {
            for n in kids(s) {
                match n.kind() {
                    "dotted_name" => {
                        let module = self.t(n).to_string();
                        let first = n.named_child(0).unwrap_or(n);
                        let last = n
                            .named_child((n.named_child_count().saturating_sub(1)) as u32)
                            .unwrap_or(n);
                        let local = self.t(first).to_string();
                        self.push_import(
                            local,
                            module,
                            ImportKind::Module { alias: false },
                            first,
                            last,
                            top,
                        );
                    }
                    "aliased_import" => {
                        let (Some(name), Some(alias)) = (
                            n.child_by_field_name("name"),
                            n.child_by_field_name("alias"),
                        ) else {
                            continue;
                        };
                        let module = self.t(name).to_string();
                        let last = name
                            .named_child((name.named_child_count().saturating_sub(1)) as u32)
                            .unwrap_or(name);
                        let local = self.t(alias).to_string();
                        self.push_import(
                            local,
                            module,
                            ImportKind::Module { alias: true },
                            last,
                            last,
                            top,
                        );
                    }
                    _ => {}
                }
            }
            return;
        }
        // from … import …
        let Some(m) = s.child_by_field_name("module_name") else {
            return;
        };
        let module = self.t(m).split_whitespace().collect::<String>();
        let module_last = match m.kind() {
            "dotted_name" => m
                .named_child((m.named_child_count().saturating_sub(1)) as u32)
                .unwrap_or(m),
            _ => m,
        };
        let _ = module_last;
        for n in kids(s) {
            if Some(n) == s.child_by_field_name("module_name") {
                continue;
            }
            match n.kind() {
                "dotted_name" => {
                    let name = self.t(n).to_string();
                    self.push_import(
                        name.clone(),
                        module.clone(),
                        ImportKind::From(name),
                        n,
                        n,
                        top,
                    );
                }
                "aliased_import" => {
                    let (Some(name), Some(alias)) = (
                        n.child_by_field_name("name"),
                        n.child_by_field_name("alias"),
                    ) else {
                        continue;
                    };
                    let nm = self.t(name).to_string();
                    let local = self.t(alias).to_string();
                    self.push_import(local, module.clone(), ImportKind::From(nm), name, name, top);
                }
                "wildcard_import" => {
                    self.push_import(String::new(), module.clone(), ImportKind::Star, n, n, top);
                }
                _ => {}
            }
        }
    }

    fn push_import(
        &mut self,
        local: String,
        module: String,
        kind: ImportKind,
        at: Node,
        module_at: Node,
        top: bool,
    ) {
        let (line, column) = pos(at);
        let (module_line, module_column) = pos(module_at);
        let i = self.file.imports.len();
        self.file.imports.push(Import {
            local: local.clone(),
            module,
            kind: kind.clone(),
            line,
            column,
            module_line,
            module_column,
            top,
        });
        if kind != ImportKind::Star
            && let Some(s) = self.scopes.last_mut()
        {
            // The first binding stands at module level (a decl or an earlier import).
            if top {
                s.names.entry(local).or_insert(NameRes::Import(i));
            } else {
                s.names.insert(local, NameRes::Import(i));
            }
        }
    }

    /// Exported: listed in `__all__`, or without `__all__` not starting with `_`; members of
    /// exported classes unless `_private` (dunders are public).
    fn mark_exported(&mut self) {
        let all = self.file.all.clone();
        for i in 0..self.file.decls.len() {
            let d = &self.file.decls[i];
            let public =
                !d.name.starts_with('_') || (d.name.starts_with("__") && d.name.ends_with("__"));
            let e = match d.parent {
                None => match &all {
                    Some(a) => a.contains(&d.name),
                    None => !d.name.starts_with('_'),
                },
                Some(p) => self.file.decls[p].exported && public,
            };
            self.file.decls[i].exported = e;
        }
    }

    // ---------------------------------------------------------------- scopes

    fn new_local(&mut self) -> usize {
        self.file.locals.push(Local::default());
        self.file.locals.len() - 1
    }

    /// The names a function body binds: assignment, `for`, `with`, `except` and walrus
    /// targets, imports, nested `def` and `class` names, `del`; not inside nested functions,
    /// classes, lambdas or comprehensions (walrus targets there bind here).
    fn collect_bound(&self, n: Node, out: &mut Vec<String>) {
        self.collect_bound_at(n, out, 0);
    }

    fn collect_bound_at(&self, n: Node, out: &mut Vec<String>, d: usize) {
        if d > MAX_DEPTH {
            return;
        }
        for k in kids(n) {
            match k.kind() {
                "function_definition" | "class_definition" => {
                    if let Some(nm) = k.child_by_field_name("name") {
                        out.push(self.t(nm).to_string());
                    }
                }
                "decorated_definition" => {
                    if let Some(d) = k.child_by_field_name("definition")
                        && let Some(nm) = d.child_by_field_name("name")
                    {
                        out.push(self.t(nm).to_string());
                    }
                }
                "lambda" => {}
                "assignment" | "augmented_assignment" => {
                    if let Some(l) = k.child_by_field_name("left") {
                        target_names(l, self.src, out);
                    }
                    if let Some(r) = k.child_by_field_name("right") {
                        self.collect_bound_expr(r, out);
                        if r.kind() == "assignment" {
                            self.collect_bound_at(k, out, d + 1);
                        }
                    }
                }
                "for_statement" | "for_in_clause" => {
                    if k.kind() == "for_statement"
                        && let Some(l) = k.child_by_field_name("left")
                    {
                        target_names(l, self.src, out);
                    }
                    self.collect_bound_at(k, out, d + 1);
                }
                "with_item" | "as_pattern" => {
                    if let Some(a) = k.child_by_field_name("alias") {
                        target_names(a, self.src, out);
                    }
                    self.collect_bound_at(k, out, d + 1);
                }
                "except_clause" => {
                    if let Some(a) = k.child_by_field_name("alias") {
                        target_names(a, self.src, out);
                    }
                    for c in kids(k) {
                        if c.kind() == "as_pattern"
                            && let Some(a) = c.child_by_field_name("alias")
                        {
                            target_names(a, self.src, out);
                        }
                    }
                    self.collect_bound_at(k, out, d + 1);
                }
                "named_expression" => {
                    if let Some(nm) = k.child_by_field_name("name") {
                        out.push(self.t(nm).to_string());
                    }
                    self.collect_bound_at(k, out, d + 1);
                }
                "import_statement" | "import_from_statement" => {
                    for c in kids(k) {
                        match c.kind() {
                            "dotted_name" if Some(c) != k.child_by_field_name("module_name") => {
                                if let Some(f) = c.named_child(0) {
                                    out.push(
                                        self.t(if k.kind() == "import_statement" { f } else { c })
                                            .to_string(),
                                    );
                                }
                            }
                            "aliased_import" => {
                                if let Some(a) = c.child_by_field_name("alias") {
                                    out.push(self.t(a).to_string());
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "delete_statement" => target_names_any(k, self.src, out),
                "case_pattern" => case_captures(k, self.src, out),
                "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression" => self.collect_bound_expr(k, out),
                _ => self.collect_bound_at(k, out, d + 1),
            }
        }
    }

    /// Walrus targets inside an expression (comprehensions included) bind in the function.
    fn collect_bound_expr(&self, n: Node, out: &mut Vec<String>) {
        self.collect_bound_expr_at(n, out, 0);
    }

    fn collect_bound_expr_at(&self, n: Node, out: &mut Vec<String>, d: usize) {
        if d > MAX_DEPTH {
            return;
        }
        if n.kind() == "named_expression"
            && let Some(nm) = n.child_by_field_name("name")
        {
            out.push(self.t(nm).to_string());
        }
        if n.kind() == "lambda" {
            return;
        }
        for k in kids(n) {
            self.collect_bound_expr_at(k, out, d + 1);
        }
    }

    fn lookup(&self, name: &str) -> NameRes {
        let n = self.scopes.len();
        let mut i = n;
        let mut skip_own_for_nonlocal = false;
        while i > 0 {
            i -= 1;
            let s = &self.scopes[i];
            if s.globals.contains(name) {
                return self.module_lookup(name);
            }
            if s.nonlocals.contains(name) && i == n - 1 {
                skip_own_for_nonlocal = true;
                continue;
            }
            if skip_own_for_nonlocal && i == n - 1 {
                continue;
            }
            match s.kind {
                ScopeKind::Module => return self.module_lookup(name),
                // A class body's names are visible only to the code directly in it.
                ScopeKind::Class(_) if i != n - 1 => continue,
                _ => {
                    if let Some(r) = s.names.get(name) {
                        return r.clone();
                    }
                }
            }
        }
        self.module_lookup(name)
    }

    fn module_lookup(&self, name: &str) -> NameRes {
        self.scopes[0]
            .names
            .get(name)
            .cloned()
            .unwrap_or_else(|| NameRes::Unbound(name.to_string()))
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

    fn decl_of(&self, n: Node) -> Option<usize> {
        self.decl_at.get(&(n.start_byte(), n.kind_id())).copied()
    }

    fn with_owner(&mut self, d: Option<usize>, f: impl FnOnce(&mut Self)) {
        let saved = self.owner;
        if d.is_some() {
            self.owner = d;
        }
        f(self);
        self.owner = saved;
    }

    // ---------------------------------------------------------------- walk

    fn walk_block(&mut self, n: Node) {
        for k in kids(n) {
            self.walk(k);
        }
    }

    fn walk(&mut self, n: Node) {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.file.has_error = true;
            self.depth -= 1;
            return;
        }
        self.walk_inner(n);
        self.depth -= 1;
    }

    fn walk_inner(&mut self, n: Node) {
        match n.kind() {
            "comment"
            | "string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "ellipsis"
            | "pass_statement"
            | "break_statement"
            | "continue_statement"
            | "future_import_statement"
            | "concatenated_string" => {
                // f-strings hold expressions.
                if matches!(n.kind(), "string" | "concatenated_string") {
                    self.walk_interpolations(n);
                }
            }
            "import_statement" | "import_from_statement" => self.walk_import(n),
            "decorated_definition" => {
                let def = n.child_by_field_name("definition");
                let decl = def.and_then(|d| self.decl_of(d));
                for k in kids(n) {
                    if k.kind() == "decorator"
                        && let Some(e) = k.named_child(0)
                    {
                        self.with_owner(decl, |x| x.walk_decorator(e));
                    }
                }
                if let Some(d) = def {
                    self.walk(d);
                }
            }
            "function_definition" => self.walk_function(n),
            "class_definition" => self.walk_class(n),
            "lambda" => self.walk_lambda(n),
            "global_statement" | "nonlocal_statement" => {
                let global = n.kind() == "global_statement";
                let names: Vec<String> = kids(n).iter().map(|k| self.t(*k).to_string()).collect();
                if let Some(s) = self.scopes.last_mut() {
                    for nm in names {
                        s.names.remove(&nm);
                        if global {
                            s.globals.insert(nm);
                        } else {
                            s.nonlocals.insert(nm);
                        }
                    }
                }
            }
            "expression_statement" => {
                for k in kids(n) {
                    self.walk(k);
                }
            }
            "assignment" | "augmented_assignment" => self.walk_assignment(n),
            "for_statement" => {
                if let Some(r) = n.child_by_field_name("right") {
                    self.walk(r);
                }
                if let Some(l) = n.child_by_field_name("left") {
                    let value = n
                        .child_by_field_name("right")
                        .map(|r| Expr::Elem(Box::new(self.expr_of(r))));
                    self.assign_targets(l, value, None);
                }
                for k in kids(n) {
                    if Some(k) != n.child_by_field_name("left")
                        && Some(k) != n.child_by_field_name("right")
                    {
                        self.walk(k);
                    }
                }
            }
            "with_item" => {
                if let Some(v) = n.child_by_field_name("value") {
                    if v.kind() == "as_pattern" {
                        for k in kids(v) {
                            if k.kind() != "as_pattern_target" {
                                self.walk(k);
                            }
                        }
                        if let Some(a) = v.child_by_field_name("alias") {
                            self.assign_targets(a, None, None);
                        }
                    } else {
                        self.walk(v);
                    }
                }
            }
            "except_clause" => {
                for k in kids(n) {
                    match k.kind() {
                        "as_pattern" => {
                            for c in kids(k) {
                                if c.kind() != "as_pattern_target" {
                                    self.walk(c);
                                }
                            }
                            if let Some(a) = k.child_by_field_name("alias") {
                                self.assign_targets(a, None, None);
                            }
                        }
                        _ => self.walk(k),
                    }
                }
            }
            "named_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.walk(v);
                }
                if let Some(nm) = n.child_by_field_name("name") {
                    let value = n.child_by_field_name("value").map(|v| self.expr_of(v));
                    self.assign_targets(nm, value, None);
                }
            }
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => self.walk_comprehension(n),
            "identifier" => self.name_ref(n, Use::Value),
            "attribute" => {
                self.member_ref(n, Use::Value);
            }
            "call" => self.walk_call(n),
            "keyword_argument" => {
                if let Some(v) = n.child_by_field_name("value") {
                    // `key=f` in a call passes f by name, as a positional argument would.
                    let in_call = n.parent().is_some_and(|p| p.kind() == "argument_list");
                    match v.kind() {
                        "identifier" if in_call => self.name_ref(v, Use::Argument),
                        "attribute" if in_call => {
                            self.member_ref(v, Use::Argument);
                        }
                        _ => self.walk(v),
                    }
                }
            }
            "type" => self.walk_type(n),
            "case_pattern" => self.walk_case_pattern(n),
            "if_statement" => self.walk_if(n),
            "boolean_operator" => {
                // `sys.version_info >= (3, 14) and x`: the right side is not evaluated.
                let op = n.child_by_field_name("operator").map(|o| self.t(o));
                let left = n.child_by_field_name("left");
                let known = left.and_then(|l| self.static_condition(l));
                if let Some(l) = left {
                    self.walk(l);
                }
                let dead = matches!(
                    (op, known),
                    (Some("and"), Some(false)) | (Some("or"), Some(true))
                );
                if !dead && let Some(r) = n.child_by_field_name("right") {
                    self.walk(r);
                }
            }
            "delete_statement" => self.walk_block(n),
            _ => self.walk_block(n),
        }
    }

    /// A `case` pattern: bare names capture (bind), dotted names and class patterns' classes
    /// are read, keyword names are attribute names.
    fn walk_case_pattern(&mut self, n: Node) {
        match n.kind() {
            "dotted_name" => {
                let parts = kids(n);
                if parts.len() == 1 {
                    self.capture(parts[0]);
                } else if let Some(first) = parts.first() {
                    self.name_ref(*first, Use::Value);
                    let mut base = self.expr_of(*first);
                    for p in &parts[1..] {
                        let name = self.t(*p).to_string();
                        self.push_ref(
                            *p,
                            Use::Value,
                            RefTarget::Member(base.clone(), name.clone()),
                        );
                        base = Expr::Member(Box::new(base), name);
                    }
                }
            }
            "class_pattern" => {
                for (i, k) in kids(n).into_iter().enumerate() {
                    if i == 0 && k.kind() == "dotted_name" {
                        let parts = kids(k);
                        if let Some(first) = parts.first() {
                            self.name_ref(*first, Use::Value);
                            let mut base = self.expr_of(*first);
                            for p in &parts[1..] {
                                let name = self.t(*p).to_string();
                                self.push_ref(
                                    *p,
                                    Use::Value,
                                    RefTarget::Member(base.clone(), name.clone()),
                                );
                                base = Expr::Member(Box::new(base), name);
                            }
                        }
                    } else {
                        self.walk_case_pattern(k);
                    }
                }
            }
            "keyword_pattern" => {
                for (i, k) in kids(n).into_iter().enumerate() {
                    if i > 0 {
                        self.walk_case_pattern(k);
                    }
                }
            }
            "identifier" => self.capture(n),
            "as_pattern" => {
                for k in kids(n) {
                    if k.kind() == "as_pattern_target" {
                        for t in kids(k) {
                            if t.kind() == "identifier" {
                                self.capture(t);
                            }
                        }
                    } else {
                        self.walk_case_pattern(k);
                    }
                }
            }
            "string" | "integer" | "float" | "true" | "false" | "none" | "concatenated_string" => {}
            _ => {
                for k in kids(n) {
                    self.walk_case_pattern(k);
                }
            }
        }
    }

    /// A name a `case` pattern binds: a local of the enclosing function (collected before),
    /// or at module level a name that is neither an edge nor unresolved.
    fn capture(&mut self, id: Node) {
        let name = self.t(id).to_string();
        if name == "_" {
            return;
        }
        if matches!(self.lookup_assign(&name), NameRes::Unbound(_)) {
            let l = self.new_local();
            if let Some(s) = self.scopes.last_mut() {
                s.names.insert(name, NameRes::Local(l));
            }
        }
    }

    /// The value of a condition the target interpreter decides before running: a comparison of
    /// `sys.version_info` (or `sys.version_info[:2]`) with a tuple of integers, for CPython
    /// 3.11, and `TYPE_CHECKING` (true, as for a type checker).
    fn static_condition(&self, c: Node) -> Option<bool> {
        const TARGET: (i64, i64) = (3, 11);
        match c.kind() {
            "parenthesized_expression" => c.named_child(0).and_then(|x| self.static_condition(x)),
            "identifier" | "attribute" => {
                let t = self.t(c);
                (t == "TYPE_CHECKING" || t.ends_with(".TYPE_CHECKING")).then_some(true)
            }
            "not_operator" => c
                .child_by_field_name("argument")
                .and_then(|x| self.static_condition(x))
                .map(|b| !b),
            "comparison_operator" => {
                let parts = kids(c);
                if parts.len() != 2 {
                    return None;
                }
                let lhs = self.t(parts[0]).replace(' ', "");
                if lhs != "sys.version_info" && lhs != "sys.version_info[:2]" {
                    return None;
                }
                let rhs = parts[1];
                if rhs.kind() != "tuple" {
                    return None;
                }
                let nums: Vec<i64> = kids(rhs)
                    .iter()
                    .map(|k| self.t(*k).parse::<i64>().ok())
                    .collect::<Option<Vec<_>>>()?;
                let want = (nums.first().copied()?, nums.get(1).copied().unwrap_or(0));
                let op: String = {
                    let mut cc = c.walk();
                    c.children(&mut cc)
                        .filter(|k| !k.is_named())
                        .map(|k| self.t(k).to_string())
                        .collect()
                };
                Some(match op.as_str() {
                    ">=" => TARGET >= want,
                    ">" => TARGET > want,
                    "<" => TARGET < want,
                    "<=" => TARGET <= want,
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// An `if`: a branch whose condition is decided statically (`static_condition`) is the only
    /// one walked; the others are not compiled for the target, like excluded Go files.
    fn walk_if(&mut self, n: Node) {
        let mut cond = n.child_by_field_name("condition");
        let mut body = n.child_by_field_name("consequence");
        let alternatives: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| matches!(k.kind(), "elif_clause" | "else_clause"))
            .collect();
        let mut i = 0;
        loop {
            let known = cond.and_then(|c| self.static_condition(c));
            if let Some(c) = cond {
                self.walk(c);
            }
            match known {
                Some(true) => {
                    if let Some(b) = body {
                        self.walk(b);
                    }
                    return;
                }
                Some(false) => {}
                None => {
                    if let Some(b) = body {
                        self.walk(b);
                    }
                }
            }
            let Some(alt) = alternatives.get(i) else {
                return;
            };
            i += 1;
            match alt.kind() {
                "elif_clause" => {
                    if known == Some(true) {
                        return;
                    }
                    cond = alt.child_by_field_name("condition");
                    body = alt.child_by_field_name("consequence");
                }
                _ => {
                    // `else`: after a known-false condition it is the live branch; after an
                    // unknown one it is one more possibility.
                    if let Some(b) = alt
                        .child_by_field_name("body")
                        .or_else(|| kids(*alt).into_iter().find(|k| k.kind() == "block"))
                    {
                        self.walk(b);
                    }
                    return;
                }
            }
        }
    }

    fn walk_interpolations(&mut self, n: Node) {
        for k in kids(n) {
            match k.kind() {
                "interpolation" => {
                    for e in kids(k) {
                        if !matches!(e.kind(), "format_specifier" | "type_conversion") {
                            self.walk(e);
                        }
                    }
                }
                "string" => self.walk_interpolations(k),
                _ => {}
            }
        }
    }

    fn walk_import(&mut self, n: Node) {
        let (sl, el) = (
            n.start_position().row as u32 + 1,
            n.end_position().row as u32 + 1,
        );
        let in_function = self
            .scopes
            .iter()
            .any(|s| matches!(s.kind, ScopeKind::Function | ScopeKind::Class(_)));
        if in_function {
            // A function-level import binds a local: declare it now.
            self.declare_import(n, false);
        }
        let ids: Vec<usize> = self
            .file
            .imports
            .iter()
            .enumerate()
            .filter(|(_, im)| im.line >= sl && im.line <= el && im.top != in_function)
            .map(|(i, _)| i)
            .collect();
        for i in ids {
            let im = self.file.imports[i].clone();
            match im.kind {
                ImportKind::From(_) => self.file.refs.push(Ref {
                    line: im.line,
                    column: im.column,
                    from: self.owner,
                    usage: Use::Import,
                    target: RefTarget::Imported(i),
                }),
                ImportKind::Module { .. } => self.file.refs.push(Ref {
                    line: im.module_line,
                    column: im.module_column,
                    from: self.owner,
                    usage: Use::Import,
                    target: RefTarget::ImportedModule(i),
                }),
                ImportKind::Star => {}
            }
        }
    }

    fn walk_decorator(&mut self, e: Node) {
        match e.kind() {
            "identifier" => self.name_ref(e, Use::Decorator),
            "attribute" => {
                self.member_ref(e, Use::Decorator);
            }
            "call" => self.walk_call(e),
            _ => self.walk(e),
        }
    }

    fn walk_type(&mut self, n: Node) {
        match n.kind() {
            "identifier" => self.name_ref(n, Use::Type),
            "attribute" => {
                self.member_ref(n, Use::Type);
            }
            "string" => {}
            "none" => {}
            _ => {
                for k in kids(n) {
                    self.walk_type(k);
                }
            }
        }
    }

    /// The parameters of a function or lambda into the innermost scope, their annotations and
    /// defaults walked (defaults and annotations belong to the enclosing scope, walked before
    /// the scope is pushed by the callers).
    fn bind_params(&mut self, params: Node, method: Option<&MethodCtx>) {
        let mut first = true;
        for p in kids(params) {
            let (name, ty) = match p.kind() {
                "identifier" => (Some(p), None),
                "typed_parameter" => {
                    // `x: T`, `*args: T`, `**kwargs: T`.
                    let name = kids(p).into_iter().find_map(|k| match k.kind() {
                        "identifier" => Some(k),
                        "list_splat_pattern" | "dictionary_splat_pattern" => {
                            kids(k).into_iter().find(|c| c.kind() == "identifier")
                        }
                        _ => None,
                    });
                    let splat = kids(p).iter().any(|k| {
                        matches!(k.kind(), "list_splat_pattern" | "dictionary_splat_pattern")
                    });
                    (
                        name,
                        if splat {
                            None
                        } else {
                            p.child_by_field_name("type")
                        },
                    )
                }
                "default_parameter" => (p.child_by_field_name("name"), None),
                "typed_default_parameter" => {
                    (p.child_by_field_name("name"), p.child_by_field_name("type"))
                }
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    (kids(p).into_iter().find(|k| k.kind() == "identifier"), None)
                }
                _ => (None, None),
            };
            let Some(name) = name.filter(|n| n.kind() == "identifier") else {
                continue;
            };
            let l = self.new_local();
            let nm = self.t(name).to_string();
            if first
                && let Some(m) = method
                && m.receiver.as_deref() == Some(nm.as_str())
            {
                self.file.locals[l].value = Some(Expr::SelfOf(m.class));
                self.file.locals[l].assignments = 1;
            } else if let Some(t) = ty {
                self.file.locals[l].ty = Some(self.type_ref(t));
            } else if p.kind() == "list_splat_pattern" || p.kind() == "dictionary_splat_pattern" {
                self.file.locals[l].value = Some(Expr::External);
            }
            first = false;
            if let Some(s) = self.scopes.last_mut() {
                s.names.insert(nm, NameRes::Local(l));
            }
        }
    }

    fn walk_param_parts(&mut self, params: Node) {
        for p in kids(params) {
            if let Some(t) = p.child_by_field_name("type") {
                self.walk_type(t);
            }
            if let Some(v) = p.child_by_field_name("value") {
                self.walk(v);
            }
        }
    }

    fn walk_function(&mut self, n: Node) {
        let decl = self.decl_of(n);
        let class_scope = match self.scopes.last().map(|s| s.kind) {
            Some(ScopeKind::Class(c)) => Some(c),
            _ => None,
        };
        // Annotations and defaults are evaluated in the enclosing scope.
        self.with_owner(decl, |x| {
            if let Some(p) = n.child_by_field_name("parameters") {
                x.walk_param_parts(p);
            }
            if let Some(r) = n.child_by_field_name("return_type") {
                x.walk_type(r);
                let tr = x.type_ref(r);
                if let Some(d) = decl
                    && x.file.decls[d].ty.is_none()
                {
                    x.file.decls[d].ty = Some(tr);
                }
            }
        });
        let method = match (class_scope, decl) {
            (Some(Some(c)), Some(d)) if !self.file.decls[d].static_method => Some(MethodCtx {
                class: c,
                receiver: first_param(n, self.src),
            }),
            _ => None,
        };
        let saved_method = self.method.clone();
        if class_scope.is_some() {
            self.method = method.clone();
        }
        self.scopes.push(Scope::new(ScopeKind::Function));
        if let Some(p) = n.child_by_field_name("parameters") {
            self.bind_params(p, method.as_ref());
        }
        if let Some(body) = n.child_by_field_name("body") {
            let mut bound = Vec::new();
            self.collect_bound(body, &mut bound);
            for nm in bound {
                let exists = self
                    .scopes
                    .last()
                    .is_some_and(|s| s.names.contains_key(&nm));
                if !exists {
                    let l = self.new_local();
                    if let Some(s) = self.scopes.last_mut() {
                        s.names.insert(nm, NameRes::Local(l));
                    }
                }
            }
            // `global`/`nonlocal` first: they apply to the whole body.
            self.pre_declare_globals(body);
            self.with_owner(decl, |x| x.walk_block(body));
        }
        self.scopes.pop();
        self.method = saved_method;
    }

    fn pre_declare_globals(&mut self, body: Node) {
        for k in kids(body) {
            match k.kind() {
                "global_statement" | "nonlocal_statement" => self.walk(k),
                "function_definition" | "class_definition" | "decorated_definition" => {}
                _ => self.pre_declare_globals(k),
            }
        }
    }

    fn walk_lambda(&mut self, n: Node) {
        if let Some(p) = n.child_by_field_name("parameters") {
            self.walk_param_parts(p);
        }
        self.scopes.push(Scope::new(ScopeKind::Function));
        if let Some(p) = n.child_by_field_name("parameters") {
            self.bind_params(p, None);
        }
        if let Some(b) = n.child_by_field_name("body") {
            self.walk(b);
        }
        self.scopes.pop();
    }

    fn walk_class(&mut self, n: Node) {
        let decl = self.decl_of(n);
        self.with_owner(decl, |x| {
            if let Some(sup) = n.child_by_field_name("superclasses") {
                for a in kids(sup) {
                    match a.kind() {
                        "identifier" => {
                            x.name_ref(a, Use::Extends);
                            let t = x.type_ref(a);
                            if let Some(d) = decl {
                                x.file.decls[d].bases.push(t);
                            }
                        }
                        "attribute" => {
                            x.member_ref(a, Use::Extends);
                            let t = x.type_ref(a);
                            if let Some(d) = decl {
                                x.file.decls[d].bases.push(t);
                            }
                        }
                        "keyword_argument" => {
                            if let Some(v) = a.child_by_field_name("value") {
                                x.walk(v);
                            }
                        }
                        // `Base[int]`: the base is `Base`.
                        "subscript" => {
                            if let Some(v) = a.child_by_field_name("value") {
                                match v.kind() {
                                    "identifier" => x.name_ref(v, Use::Extends),
                                    "attribute" => {
                                        x.member_ref(v, Use::Extends);
                                    }
                                    _ => x.walk(v),
                                }
                            }
                            for k in kids(a) {
                                if Some(k) != a.child_by_field_name("value") {
                                    x.walk(k);
                                }
                            }
                            let t = x.type_ref(a);
                            if let Some(d) = decl {
                                x.file.decls[d].bases.push(t);
                            }
                        }
                        _ => x.walk(a),
                    }
                }
            }
        });
        let mut scope = Scope::new(ScopeKind::Class(decl));
        if let Some(d) = decl {
            for (k, v) in &self.file.decls[d].members {
                scope.names.insert(k.clone(), NameRes::Decl(*v));
            }
        } else if let Some(body) = n.child_by_field_name("body") {
            // A class inside a function: its body's names are locals of the class scope.
            let mut bound = Vec::new();
            self.collect_bound(body, &mut bound);
            for nm in bound {
                let l = self.new_local();
                scope.names.insert(nm, NameRes::Local(l));
            }
        }
        self.scopes.push(scope);
        let saved = self.method.take();
        if let Some(body) = n.child_by_field_name("body") {
            self.with_owner(decl, |x| x.walk_block(body));
        }
        self.method = saved;
        self.scopes.pop();
    }

    fn walk_comprehension(&mut self, n: Node) {
        // The first iterable is evaluated in the enclosing scope.
        let clauses: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| k.kind() == "for_in_clause")
            .collect();
        if let Some(first) = clauses.first()
            && let Some(r) = first.child_by_field_name("right")
        {
            self.walk(r);
        }
        self.scopes.push(Scope::new(ScopeKind::Comprehension));
        for (i, c) in clauses.iter().enumerate() {
            if i > 0
                && let Some(r) = c.child_by_field_name("right")
            {
                self.walk(r);
            }
            if let Some(l) = c.child_by_field_name("left") {
                let value = c
                    .child_by_field_name("right")
                    .map(|r| Expr::Elem(Box::new(self.expr_of(r))));
                let mut names = Vec::new();
                target_names(l, self.src, &mut names);
                for nm in names {
                    let lid = self.new_local();
                    if l.kind() == "identifier" {
                        self.file.locals[lid].value = value.clone();
                        self.file.locals[lid].assignments = 1;
                    }
                    if let Some(s) = self.scopes.last_mut() {
                        s.names.insert(nm, NameRes::Local(lid));
                    }
                }
            }
        }
        for k in kids(n) {
            match k.kind() {
                "for_in_clause" => {}
                "if_clause" => self.walk_block(k),
                _ => self.walk(k),
            }
        }
        self.scopes.pop();
    }

    fn walk_assignment(&mut self, n: Node) {
        let right = n.child_by_field_name("right");
        let ty = n.child_by_field_name("type");
        if let Some(t) = ty {
            self.walk_type(t);
        }
        let left = n.child_by_field_name("left");
        // The value of `x = …` belongs to x's declaration; that of `self.x = …` to the method.
        let stmt_decl = left
            .filter(|l| l.kind() != "attribute")
            .and_then(|l| self.decl_of(l))
            .or_else(|| n.parent().and_then(|p| self.decl_of(p)));
        if let Some(r) = right {
            if r.kind() == "assignment" {
                self.walk_assignment(r);
            } else {
                self.with_owner(stmt_decl, |x| x.walk(r));
            }
        }
        let value = right.map(|r| {
            let r = if r.kind() == "assignment" {
                innermost_value(r)
            } else {
                r
            };
            self.expr_of(r)
        });
        let tyref = ty.map(|t| self.type_ref(t));
        let augmented = n.kind() == "augmented_assignment";
        if let Some(l) = left {
            if augmented {
                // `x += 1` reads x and rebinds it.
                self.walk_target_reads(l);
                self.assign_targets(l, Some(Expr::Unknown), None);
            } else {
                self.assign_targets(l, value, tyref);
            }
        }
    }

    fn walk_target_reads(&mut self, l: Node) {
        match l.kind() {
            "identifier" => self.name_ref(l, Use::Value),
            _ => self.walk(l),
        }
    }

    /// Binds assignment targets: locals get their value or annotation, module and class
    /// declarations theirs, `self.x` fields theirs; attribute and subscript targets are
    /// walked as reads of their objects.
    fn assign_targets(&mut self, t: Node, value: Option<Expr>, ty: Option<TypeRef>) {
        match t.kind() {
            "identifier" => {
                let name = self.t(t).to_string();
                match self.lookup_assign(&name) {
                    NameRes::Local(l) => {
                        let local = &mut self.file.locals[l];
                        local.assignments += 1;
                        if ty.is_some() {
                            local.ty = ty;
                        } else if local.assignments == 1 {
                            local.value = value;
                        }
                    }
                    NameRes::Decl(d) => {
                        let dd = &mut self.file.decls[d];
                        if ty.is_some() && dd.ty.is_none() {
                            dd.ty = ty;
                        }
                        if dd.value.is_none() {
                            dd.value = value;
                        }
                    }
                    NameRes::Unbound(_) => {
                        // A module-level or class-level name that is not a symbol (`for`,
                        // `with … as` and `except … as` targets): a name of that scope.
                        let l = self.new_local();
                        self.file.locals[l].assignments = 1;
                        self.file.locals[l].ty = ty;
                        self.file.locals[l].value = value;
                        if let Some(s) = self.scopes.last_mut() {
                            s.names.insert(name, NameRes::Local(l));
                        }
                    }
                    NameRes::Import(_) => {}
                }
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "as_pattern_target"
            | "parenthesized_expression" => {
                let single = t.kind() == "as_pattern_target" && kids(t).len() == 1;
                for k in kids(t) {
                    if single {
                        self.assign_targets(k, value.clone(), ty.clone());
                    } else {
                        self.assign_targets(k, None, None);
                    }
                }
            }
            "attribute" => {
                // `self.x = …`: the field's type.
                if let (Some(o), Some(a), Some(m)) = (
                    t.child_by_field_name("object"),
                    t.child_by_field_name("attribute"),
                    self.method.clone(),
                ) && m.receiver.as_deref() == Some(self.t(o))
                    && let Some(&f) = self.file.decls[m.class].members.get(self.t(a))
                    && self.file.decls[f].kind == SymbolKind::Field
                {
                    let dd = &mut self.file.decls[f];
                    if ty.is_some() && dd.ty.is_none() {
                        dd.ty = ty;
                    } else if dd.value.is_none() && dd.ty.is_none() {
                        dd.value = value;
                    }
                }
                // The first `self.x = …` declares the field: not a use of it.
                if self.decl_of(t).is_none() {
                    self.member_ref(t, Use::Value);
                }
            }
            "list_splat_pattern" => {
                if let Some(k) = t.named_child(0) {
                    self.assign_targets(k, None, None);
                }
            }
            _ => self.walk(t),
        }
    }

    /// The binding an assignment writes: the innermost function's local, or the class body's
    /// or module's declaration.
    fn lookup_assign(&self, name: &str) -> NameRes {
        let s = self.scopes.last().expect("a scope");
        if s.globals.contains(name) {
            return self.module_lookup(name);
        }
        if s.nonlocals.contains(name) {
            return self.lookup(name);
        }
        match s.names.get(name) {
            Some(r) => r.clone(),
            // A new name of a class body or of the module (a `for`, `with` or `except` target
            // that is not a symbol): never an enclosing scope's.
            None if matches!(s.kind, ScopeKind::Class(_) | ScopeKind::Module) => {
                NameRes::Unbound(name.to_string())
            }
            None => self.lookup(name),
        }
    }

    fn walk_call(&mut self, n: Node) {
        let f = n.child_by_field_name("function");
        if let Some(f) = f {
            match f.kind() {
                "identifier" => self.name_ref(f, Use::Call),
                "attribute" => {
                    self.member_ref(f, Use::Call);
                }
                _ => self.walk(f),
            }
        }
        if let Some(args) = n.child_by_field_name("arguments") {
            if args.kind() == "generator_expression" {
                self.walk(args);
                return;
            }
            for a in kids(args) {
                match a.kind() {
                    "identifier" => self.name_ref(a, Use::Argument),
                    "attribute" => {
                        self.member_ref(a, Use::Argument);
                    }
                    _ => self.walk(a),
                }
            }
        }
    }

    fn name_ref(&mut self, n: Node, usage: Use) {
        let name = self.t(n);
        let res = self.lookup(name);
        if let NameRes::Local(_) = res {
            return;
        }
        self.push_ref(n, usage, RefTarget::Name(res, name.to_string()));
    }

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
        let attr = n.child_by_field_name("attribute");
        let base = match obj {
            Some(o) => match o.kind() {
                "attribute" => self.member_ref(o, Use::Value),
                "identifier" => {
                    self.name_ref(o, Use::Value);
                    self.expr_of(o)
                }
                _ => {
                    self.walk(o);
                    self.expr_of(o)
                }
            },
            None => Expr::Unknown,
        };
        let Some(a) = attr else {
            return Expr::Unknown;
        };
        let name = self.t(a).to_string();
        self.push_ref(a, usage, RefTarget::Member(base.clone(), name.clone()));
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
            "identifier" => Expr::Name(self.lookup(self.t(n))),
            "attribute" => match (
                n.child_by_field_name("object"),
                n.child_by_field_name("attribute"),
            ) {
                (Some(o), Some(a)) => {
                    Expr::Member(Box::new(self.expr_at(o, d + 1)), self.t(a).to_string())
                }
                _ => Expr::Unknown,
            },
            "call" => match n.child_by_field_name("function") {
                Some(f) if f.kind() == "identifier" && self.t(f) == "super" => match &self.method {
                    Some(m) => Expr::Super(m.class),
                    None => Expr::Unknown,
                },
                Some(f) => Expr::Call(Box::new(self.expr_at(f, d + 1))),
                None => Expr::Unknown,
            },
            "parenthesized_expression" => n
                .named_child(0)
                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
            "await" => n
                .named_child(0)
                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
            "string"
            | "concatenated_string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "list"
            | "dictionary"
            | "set"
            | "tuple"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "binary_operator"
            | "comparison_operator"
            | "boolean_operator"
            | "not_operator"
            | "unary_operator" => Expr::External,
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
            "type" => n
                .named_child(0)
                .map_or(TypeRef::Unknown, |c| self.type_at(c, d + 1)),
            "identifier" => {
                let name = self.t(n);
                match name {
                    "int" | "str" | "float" | "bool" | "bytes" | "complex" | "object" | "type"
                    | "dict" | "set" | "frozenset" | "tuple" | "bytearray" => {
                        if matches!(self.lookup(name), NameRes::Unbound(_)) {
                            return TypeRef::External;
                        }
                        TypeRef::Named {
                            head: self.lookup(name),
                            path: Vec::new(),
                        }
                    }
                    _ => TypeRef::Named {
                        head: self.lookup(name),
                        path: Vec::new(),
                    },
                }
            }
            "attribute" => {
                let mut path = Vec::new();
                let mut cur = n;
                while cur.kind() == "attribute" {
                    match (
                        cur.child_by_field_name("object"),
                        cur.child_by_field_name("attribute"),
                    ) {
                        (Some(o), Some(a)) => {
                            path.push(self.t(a).to_string());
                            cur = o;
                        }
                        _ => return TypeRef::Unknown,
                    }
                }
                if cur.kind() != "identifier" {
                    return TypeRef::Unknown;
                }
                path.reverse();
                TypeRef::Named {
                    head: self.lookup(self.t(cur)),
                    path,
                }
            }
            "none" => TypeRef::External,
            // A forward reference: a string holding a dotted name.
            "string" => {
                let inner = self.t(n).trim_matches(|c| c == '"' || c == '\'');
                let parts: Vec<&str> = inner.split('.').collect();
                let ident = |p: &str| {
                    p.chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_')
                        && p.chars().all(|c| c.is_alphanumeric() || c == '_')
                };
                if !parts.iter().all(|p| ident(p)) {
                    return TypeRef::Unknown;
                }
                TypeRef::Named {
                    head: self.module_lookup_or_scope(parts[0]),
                    path: parts[1..].iter().map(|p| p.to_string()).collect(),
                }
            }
            "binary_operator" => {
                // `A | B | None`.
                let mut parts = Vec::new();
                flatten_bitor(n, self.src, &mut parts);
                self.union_at(parts, d + 1)
            }
            "union_type" => self.union_at(kids(n), d + 1),
            "subscript" | "generic_type" => {
                let (head, args): (Option<Node>, Vec<Node>) = if n.kind() == "subscript" {
                    let args = kids(n)
                        .into_iter()
                        .filter(|k| Some(*k) != n.child_by_field_name("value"))
                        .collect();
                    (n.child_by_field_name("value"), args)
                } else {
                    let ks = kids(n);
                    let head = ks.first().copied();
                    let args = ks
                        .iter()
                        .filter(|k| k.kind() == "type_parameter")
                        .flat_map(|k| kids(*k))
                        .collect();
                    (head, args)
                };
                let Some(head) = head else {
                    return TypeRef::Unknown;
                };
                let hname = self.t(head).rsplit('.').next().unwrap_or("").to_string();
                match hname.as_str() {
                    "Optional" if args.len() == 1 => self.type_at(args[0], d + 1),
                    "Union" => self.union_at(args, d + 1),
                    "ClassVar" | "Final" | "Annotated" | "Required" | "NotRequired"
                    | "ReadOnly"
                        if !args.is_empty() =>
                    {
                        self.type_at(args[0], d + 1)
                    }
                    "list" | "List" | "Sequence" | "Iterable" | "Iterator" | "set" | "Set"
                    | "frozenset" | "FrozenSet" | "Collection" | "MutableSequence"
                    | "AbstractSet" | "Generator" | "AsyncIterator" | "AsyncIterable" | "deque"
                    | "Deque"
                        if !args.is_empty() =>
                    {
                        TypeRef::Seq(Box::new(self.type_at(args[0], d + 1)))
                    }
                    // The class object: a class's members.
                    "type" | "Type" if args.len() == 1 => self.type_at(args[0], d + 1),
                    "dict" | "Dict" | "Mapping" | "MutableMapping" | "tuple" | "Tuple"
                    | "Callable" | "DefaultDict" | "defaultdict" | "OrderedDict" | "Counter" => {
                        TypeRef::External
                    }
                    _ => match self.type_at(head, d + 1) {
                        // A generic class `Box[T]` has Box's members.
                        t @ TypeRef::Named { .. } => t,
                        _ => TypeRef::Unknown,
                    },
                }
            }
            _ => TypeRef::Unknown,
        }
    }

    /// A forward reference is resolved when the annotation is evaluated: in the enclosing
    /// scopes, like any name.
    fn module_lookup_or_scope(&self, name: &str) -> NameRes {
        self.lookup(name)
    }

    fn union_at(&self, parts: Vec<Node>, d: usize) -> TypeRef {
        let kept: Vec<Node> = parts
            .into_iter()
            .filter(|p| !(p.kind() == "none" || self.t(*p) == "None"))
            .collect();
        match kept.len() {
            0 => TypeRef::External,
            1 => self.type_at(kept[0], d + 1),
            _ => TypeRef::Union(kept.into_iter().map(|p| self.type_at(p, d + 1)).collect()),
        }
    }
}

fn flatten_bitor<'t>(n: Node<'t>, src: &str, out: &mut Vec<Node<'t>>) {
    if n.kind() == "binary_operator"
        && n.child_by_field_name("operator")
            .is_some_and(|o| text(o, src) == "|")
    {
        if let Some(l) = n.child_by_field_name("left") {
            flatten_bitor(l, src, out);
        }
        if let Some(r) = n.child_by_field_name("right") {
            flatten_bitor(r, src, out);
        }
    } else if n.kind() == "type" {
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
    while cur.kind() == "assignment" {
        match cur.child_by_field_name("right") {
            Some(r) => cur = r,
            None => break,
        }
    }
    cur
}

/// The name of a function's first parameter (`self`, `cls`).
fn first_param(def: Node, src: &str) -> Option<String> {
    let params = def.child_by_field_name("parameters")?;
    let p = kids(params).into_iter().next()?;
    let id = match p.kind() {
        "identifier" => p,
        "typed_parameter" => kids(p).into_iter().find(|k| k.kind() == "identifier")?,
        "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name")?,
        _ => return None,
    };
    Some(text(id, src).to_string())
}

/// Attribute nodes among assignment targets.
fn attribute_targets<'t>(t: Node<'t>, out: &mut Vec<Node<'t>>) {
    match t.kind() {
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
    match t.kind() {
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
    match n.kind() {
        "dotted_name" => {
            let parts = kids(n);
            if parts.len() == 1 {
                out.push(text(parts[0], src).to_string());
            }
        }
        "class_pattern" => {
            for (i, k) in kids(n).into_iter().enumerate() {
                if !(i == 0 && k.kind() == "dotted_name") {
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
                if k.kind() == "identifier" {
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
