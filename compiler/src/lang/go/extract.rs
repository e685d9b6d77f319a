//! Phase 1 of Go: one file at a time, in parallel. Extracts declarations and every reference,
//! resolving locals on the spot (Go's block scopes never leave a file) so that only references
//! to package-level names, imports and members reach phase 2.

use std::collections::HashMap;

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

/// What a composite literal's written type says about it.
#[derive(Clone)]
enum LitTy<'t> {
    /// The type as written.
    Node(Node<'t>),
    /// An elided literal whose type phase 2 derives (`T{{...}}` with `type T []E`).
    Ty(Ty),
    Unknown,
}

/// What the keys of a keyed literal are.
enum Keys<'t> {
    /// Field names of this type.
    Fields(Ty),
    /// Expressions (slice indexes, map keys), elided map keys having this type.
    Expressions(Option<Node<'t>>),
    /// Unknown: identifier keys are skipped rather than guessed.
    Unknown,
}

pub use crate::lang::Span;

/// A type as far as the syntax shows it, resolved against package scopes in phase 2.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// A slice, array or map whose elements (values) have type `.0`.
    Container(Box<Ty>),
    /// The element (value) type of a container of type `.0`, as `range` yields it.
    Elem(Box<Ty>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug)]
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

#[derive(Clone, Debug)]
pub struct Ref {
    /// Index into [`GoFile::decls`], or `None` when no declaration encloses the use.
    pub source: Option<usize>,
    pub target: Target,
    pub usage: Use,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug)]
pub struct Import {
    /// `Some("x")` for an alias, `Some(".")`, `Some("_")`, or `None`.
    pub name: Option<String>,
    pub path: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug)]
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
}

#[derive(Clone, Debug, Default)]
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

/// Extracts one parsed file.
pub fn extract(tree: &tree_sitter::Tree, src: &[u8]) -> GoFile {
    let root = tree.root_node();
    let mut x = Extractor {
        src,
        file: GoFile {
            has_errors: root.has_error(),
            ..Default::default()
        },
        scopes: Vec::new(),
        source: None,
        depth: 0,
    };
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        x.top_level(child);
    }
    x.file
}

pub(super) struct Extractor<'s> {
    src: &'s [u8],
    file: GoFile,
    /// Local scopes, innermost last: name → known type.
    scopes: Vec<HashMap<String, Option<Ty>>>,
    source: Option<usize>,
    depth: usize,
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

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

    // ---- scopes ----

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

    fn with_scope(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(HashMap::new());
        f(self);
        self.scopes.pop();
    }

    // ---- top level ----

    fn top_level(&mut self, n: Node) {
        match n.kind() {
            "package_clause" => {
                if let Some(id) = n.named_child(0) {
                    self.file.package_name = self.text(id).to_string();
                }
            }
            "import_declaration" => self.imports(n),
            "function_declaration" => self.function(n, None),
            "method_declaration" => {
                let recv = n.child_by_field_name("receiver");
                self.function(n, recv)
            }
            "type_declaration" => {
                let mut c = n.walk();
                for spec in n.named_children(&mut c) {
                    if matches!(spec.kind(), "type_spec" | "type_alias") {
                        self.type_spec(spec, true);
                    }
                }
            }
            "const_declaration" | "var_declaration" => self.value_decl(n, true),
            _ => {}
        }
    }

    fn imports(&mut self, n: Node) {
        let mut specs = Vec::new();
        collect_kind(n, "import_spec", &mut specs);
        for spec in specs {
            let Some(path) = spec.child_by_field_name("path") else {
                continue;
            };
            let raw = self.text(path);
            let path_text = raw.trim_matches(|c| c == '"' || c == '`').to_string();
            let name = spec
                .child_by_field_name("name")
                .map(|n| self.text(n).to_string());
            let p = spec.start_position();
            self.file.imports.push(Import {
                name,
                path: path_text,
                line: p.row as u32 + 1,
                column: p.column as u32,
            });
        }
    }

    fn function(&mut self, n: Node, receiver: Option<Node>) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let (recv_name, recv_ty, recv_param, recv_type_params) = match receiver {
            Some(r) => self.receiver(r),
            None => (None, None, None, Vec::new()),
        };
        if receiver.is_some() && recv_name.is_none() {
            return; // a receiver we cannot read: broken code
        }
        let qn = match &recv_name {
            Some(t) => format!("{t}.{name}"),
            None => name.clone(),
        };
        let kind = if receiver.is_some() {
            SymbolKind::Method
        } else {
            SymbolKind::Func
        };
        let mut d = self.decl(&name, qn, kind, Span::of(n));
        d.owner = recv_name.clone();
        d.signature = Some(self.func_signature(n));
        d.results = n
            .child_by_field_name("result")
            .map(|r| self.result_types(r))
            .unwrap_or_default();
        let skip = name == "_";
        let idx = if skip { None } else { Some(self.push_decl(d)) };
        self.source = idx;
        self.with_scope(|x| {
            for tp in recv_type_params {
                x.declare_local(&tp, None);
            }
            if let Some(tps) = n.child_by_field_name("type_parameters") {
                x.type_parameters(tps);
            }
            if let Some(r) = receiver {
                // The receiver's type names the method's own type: a use, as go/types records it.
                x.receiver_type_refs(r);
            }
            let mut pending = Vec::new();
            if let Some(p) = n.child_by_field_name("parameters") {
                pending.extend(x.parameters(p));
            }
            if let Some(r) = n.child_by_field_name("result") {
                if r.kind() == "parameter_list" {
                    pending.extend(x.parameters(r));
                } else {
                    x.type_refs(r);
                }
            }
            if let Some((pname, _)) = &recv_param {
                pending.push((pname.clone(), recv_ty.clone()));
            }
            x.declare_all(pending);
            if let Some(body) = n.child_by_field_name("body") {
                x.block(body);
            }
        });
        self.source = None;
    }

    /// Reads a receiver `(r *T[K, V])`: type name, its type, the parameter name, type params.
    #[allow(clippy::type_complexity)]
    fn receiver(
        &self,
        r: Node,
    ) -> (
        Option<String>,
        Option<Ty>,
        Option<(String, ())>,
        Vec<String>,
    ) {
        let Some(param) = r.named_child(0) else {
            return (None, None, None, vec![]);
        };
        let Some(mut ty) = param.child_by_field_name("type") else {
            return (None, None, None, vec![]);
        };
        while matches!(ty.kind(), "pointer_type" | "parenthesized_type") {
            match ty.named_child(0) {
                Some(inner) => ty = inner,
                None => return (None, None, None, vec![]),
            }
        }
        let mut type_params = Vec::new();
        if ty.kind() == "generic_type" {
            if let Some(args) = ty.child_by_field_name("type_arguments") {
                let mut c = args.walk();
                for a in args.named_children(&mut c) {
                    let t = self.text(a).trim();
                    if !t.is_empty() {
                        type_params.push(t.to_string());
                    }
                }
            }
            match ty.child_by_field_name("type") {
                Some(t) => ty = t,
                None => return (None, None, None, vec![]),
            }
        }
        if ty.kind() != "type_identifier" {
            return (None, None, None, vec![]);
        }
        let tname = self.text(ty).to_string();
        let pname = param
            .child_by_field_name("name")
            .map(|n| (self.text(n).to_string(), ()));
        (
            Some(tname.clone()),
            Some(Ty::Named {
                qual: None,
                name: tname,
            }),
            pname,
            type_params,
        )
    }

    fn receiver_type_refs(&mut self, r: Node) {
        if let Some(param) = r.named_child(0)
            && let Some(ty) = param.child_by_field_name("type")
        {
            self.type_refs(ty);
        }
    }

    fn func_signature(&self, n: Node) -> String {
        let mut s = String::from("func");
        if let Some(r) = n.child_by_field_name("receiver") {
            s.push(' ');
            s.push_str(&self.compact(r));
            s.push(' ');
        } else {
            s.push(' ');
        }
        if let Some(name) = n.child_by_field_name("name") {
            s.push_str(self.text(name));
        }
        if let Some(tp) = n.child_by_field_name("type_parameters") {
            s.push_str(&self.compact(tp));
        }
        if let Some(p) = n.child_by_field_name("parameters") {
            s.push_str(&self.compact(p));
        }
        if let Some(r) = n.child_by_field_name("result") {
            s.push(' ');
            s.push_str(&self.compact(r));
        }
        s
    }

    fn result_types(&self, r: Node) -> Vec<Option<Ty>> {
        if r.kind() != "parameter_list" {
            return vec![self.ty_of_type(r)];
        }
        let mut out = Vec::new();
        let mut c = r.walk();
        for p in r.named_children(&mut c) {
            let t = p
                .child_by_field_name("type")
                .and_then(|t| self.ty_of_type(t));
            let names = count_field(p, "name").max(1);
            for _ in 0..names {
                out.push(t.clone());
            }
        }
        out
    }

    fn type_parameters(&mut self, tps: Node) {
        let mut c = tps.walk();
        let decls: Vec<Node> = tps.named_children(&mut c).collect();
        for d in &decls {
            let mut c2 = d.walk();
            for name in d.children_by_field_name("name", &mut c2) {
                let t = self.text(name).to_string();
                self.declare_local(&t, None);
            }
        }
        for d in decls {
            if let Some(t) = d.child_by_field_name("type") {
                self.type_refs(t);
            }
        }
    }

    /// Records a parameter list's types as uses and returns the names it declares. The caller
    /// declares them only after the whole signature: in Go, parameter names are in scope in the
    /// body, never in the signature (`func F(url string, v url.Values)` names the package).
    fn parameters(&mut self, list: Node) -> Vec<(String, Option<Ty>)> {
        let mut pending = Vec::new();
        let mut c = list.walk();
        let params: Vec<Node> = list.named_children(&mut c).collect();
        for p in params {
            if !matches!(
                p.kind(),
                "parameter_declaration" | "variadic_parameter_declaration"
            ) {
                continue;
            }
            let ty_node = p.child_by_field_name("type");
            if let Some(t) = ty_node {
                self.type_refs(t);
            }
            let ty = ty_node.and_then(|t| self.ty_of_type(t));
            // `xs ...T` is a `[]T` inside the function.
            let ty = if p.kind() == "variadic_parameter_declaration" {
                ty.map(|t| Ty::Container(Box::new(t)))
            } else {
                ty
            };
            let mut c2 = p.walk();
            let names: Vec<String> = p
                .children_by_field_name("name", &mut c2)
                .map(|n| self.text(n).to_string())
                .collect();
            for name in names {
                pending.push((name, ty.clone()));
            }
        }
        pending
    }

    fn declare_all(&mut self, pending: Vec<(String, Option<Ty>)>) {
        for (name, ty) in pending {
            self.declare_local(&name, ty);
        }
    }

    fn type_spec(&mut self, spec: Node, top: bool) {
        let Some(name_node) = spec.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let Some(ty) = spec.child_by_field_name("type") else {
            return;
        };
        if !top {
            // A local type: its name is a local; its body's types are uses of the enclosing decl.
            self.declare_local(&name, None);
            self.with_scope(|x| {
                if let Some(tps) = spec.child_by_field_name("type_parameters") {
                    x.type_parameters(tps);
                }
                x.type_refs(ty);
            });
            return;
        }
        let alias = spec.kind() == "type_alias";
        let kind = if alias {
            SymbolKind::Alias
        } else {
            SymbolKind::Type
        };
        let mut d = self.decl(&name, name.clone(), kind, Span::of(spec));
        d.is_struct = ty.kind() == "struct_type";
        d.is_interface = ty.kind() == "interface_type";
        d.opaque_method_set = spec.child_by_field_name("type_parameters").is_some()
            || (d.is_interface && named(ty).iter().any(|e| e.kind() != "method_elem"));
        d.underlying = self.ty_of_type(ty);
        d.signature = Some(match ty.kind() {
            "struct_type" => format!("type {name} struct"),
            "interface_type" => format!("type {name} interface"),
            _ => {
                let t = self.compact(ty);
                let t: String = t.chars().take(160).collect();
                if alias {
                    format!("type {name} = {t}")
                } else {
                    format!("type {name} {t}")
                }
            }
        });
        if name == "_" {
            return;
        }
        let idx = self.push_decl(d);
        self.source = Some(idx);
        self.with_scope(|x| {
            if let Some(tps) = spec.child_by_field_name("type_parameters") {
                x.type_parameters(tps);
            }
            match ty.kind() {
                "struct_type" => x.struct_fields(ty, &name, idx),
                "interface_type" => x.interface_methods(ty, &name, idx),
                _ => x.type_refs(ty),
            }
        });
        self.source = None;
    }

    fn struct_fields(&mut self, st: Node, owner: &str, owner_idx: usize) {
        let mut fields = Vec::new();
        collect_kind(st, "field_declaration", &mut fields);
        for f in fields {
            // Only direct fields: nested anonymous struct types are type uses of this field.
            if nearest_ancestor(f, "struct_type") != Some(st) {
                continue;
            }
            let Some(ty) = f.child_by_field_name("type") else {
                continue;
            };
            let mut c = f.walk();
            let names: Vec<Node> = f.children_by_field_name("name", &mut c).collect();
            let declared = self.ty_of_type(ty);
            let type_text = self.compact(ty);
            let mut first = None;
            if names.is_empty() {
                // Embedded: the field's name is the type's name.
                let Some(Ty::Named { name, .. }) = declared.clone() else {
                    continue;
                };
                let mut d = self.decl(
                    &name,
                    format!("{owner}.{name}"),
                    SymbolKind::Field,
                    Span::of(f),
                );
                d.owner = Some(owner.to_string());
                d.ty = declared.clone();
                d.embedded = true;
                d.signature = Some(type_text.clone());
                first = Some(self.push_decl(d));
            }
            for n in names {
                let fname = self.text(n).to_string();
                if fname == "_" {
                    continue;
                }
                let mut d = self.decl(
                    &fname,
                    format!("{owner}.{fname}"),
                    SymbolKind::Field,
                    Span::of(f),
                );
                d.owner = Some(owner.to_string());
                d.ty = declared.clone();
                d.signature = Some(type_text.clone());
                let i = self.push_decl(d);
                first.get_or_insert(i);
            }
            self.source = first.or(Some(owner_idx));
            self.type_refs(ty);
        }
        self.source = Some(owner_idx);
    }

    fn interface_methods(&mut self, it: Node, owner: &str, owner_idx: usize) {
        let mut c = it.walk();
        let elems: Vec<Node> = it.named_children(&mut c).collect();
        for e in elems {
            match e.kind() {
                "method_elem" => {
                    let Some(n) = e.child_by_field_name("name") else {
                        continue;
                    };
                    let mname = self.text(n).to_string();
                    let mut d = self.decl(
                        &mname,
                        format!("{owner}.{mname}"),
                        SymbolKind::Method,
                        Span::of(e),
                    );
                    d.owner = Some(owner.to_string());
                    d.signature = Some(format!("func {}", self.compact(e)));
                    d.results = e
                        .child_by_field_name("result")
                        .map(|r| self.result_types(r))
                        .unwrap_or_default();
                    let i = self.push_decl(d);
                    self.source = Some(i);
                    self.with_scope(|x| {
                        let mut pending = Vec::new();
                        if let Some(p) = e.child_by_field_name("parameters") {
                            pending.extend(x.parameters(p));
                        }
                        if let Some(r) = e.child_by_field_name("result") {
                            if r.kind() == "parameter_list" {
                                pending.extend(x.parameters(r));
                            } else {
                                x.type_refs(r);
                            }
                        }
                        x.declare_all(pending);
                    });
                    self.source = Some(owner_idx);
                }
                _ => self.type_refs(e),
            }
        }
    }

    /// Top-level or local `const`/`var` declarations.
    fn value_decl(&mut self, n: Node, top: bool) {
        let kind = if n.kind() == "const_declaration" {
            SymbolKind::Const
        } else {
            SymbolKind::Var
        };
        let mut specs = Vec::new();
        collect_kind(
            n,
            if kind == SymbolKind::Const {
                "const_spec"
            } else {
                "var_spec"
            },
            &mut specs,
        );
        for spec in specs {
            let ty_node = spec.child_by_field_name("type");
            let values = spec.child_by_field_name("value");
            let mut c = spec.walk();
            let names: Vec<Node> = spec
                .children_by_field_name("name", &mut c)
                .filter(|n| n.kind() == "identifier")
                .collect();
            let value_nodes: Vec<Node> = values.map(|v| named(v)).unwrap_or_default();
            let declared = ty_node.and_then(|t| self.ty_of_type(t));
            if top {
                let mut first = None;
                for (i, nn) in names.iter().enumerate() {
                    let name = self.text(*nn).to_string();
                    if name == "_" {
                        continue;
                    }
                    let mut d = self.decl(&name, name.clone(), kind, Span::of(spec));
                    d.ty = declared
                        .clone()
                        .or_else(|| self.infer_value_ty(&value_nodes, names.len(), i));
                    d.signature = ty_node.map(|t| self.compact(t));
                    let idx = self.push_decl(d);
                    first.get_or_insert(idx);
                }
                self.source = first;
                self.with_scope(|x| {
                    if let Some(t) = ty_node {
                        x.type_refs(t);
                    }
                    for v in &value_nodes {
                        x.expr(*v, Use::Assign);
                    }
                });
                self.source = None;
            } else {
                if let Some(t) = ty_node {
                    self.type_refs(t);
                }
                for v in &value_nodes {
                    self.expr(*v, Use::Assign);
                }
                for (i, nn) in names.iter().enumerate() {
                    let ty = declared
                        .clone()
                        .or_else(|| self.infer_value_ty(&value_nodes, names.len(), i));
                    let name = self.text(*nn).to_string();
                    self.declare_local(&name, ty);
                }
            }
        }
    }

    fn infer_value_ty(&self, values: &[Node], names: usize, i: usize) -> Option<Ty> {
        if values.len() == names {
            self.ty_of_expr(values[i])
        } else if values.len() == 1 {
            let v = values[0];
            let v = if v.kind() == "parenthesized_expression" {
                v.named_child(0)?
            } else {
                v
            };
            match v.kind() {
                // `x, ok := y.(T)`, `v, ok := m[k]`, `v, ok := <-ch`: the first is the value.
                "type_assertion_expression" | "index_expression" | "unary_expression"
                    if names == 2 =>
                {
                    if i == 0 {
                        self.ty_of_expr(v)
                    } else {
                        None
                    }
                }
                _ => self.ty_of_call(v, i),
            }
        } else {
            None
        }
    }

    // ---- types in type position ----

    /// Records every named type inside a type expression as a type use.
    fn type_refs(&mut self, t: Node) {
        if self.depth >= MAX_DEPTH {
            self.file.too_deep = true;
            return;
        }
        self.depth += 1;
        self._type_refs(t);
        self.depth -= 1;
    }

    fn _type_refs(&mut self, t: Node) {
        match t.kind() {
            "type_identifier" | "qualified_type" => self.type_name_as(t, Use::Type),
            "struct_type" => {
                let mut fields = Vec::new();
                collect_kind(t, "field_declaration", &mut fields);
                for f in fields {
                    if nearest_ancestor(f, "struct_type") == Some(t)
                        && let Some(ty) = f.child_by_field_name("type")
                    {
                        self.type_refs(ty);
                    }
                }
            }
            "function_type" | "method_elem" => {
                self.with_scope(|x| {
                    let mut pending = Vec::new();
                    if let Some(p) = t.child_by_field_name("parameters") {
                        pending.extend(x.parameters(p));
                    }
                    if let Some(r) = t.child_by_field_name("result") {
                        if r.kind() == "parameter_list" {
                            pending.extend(x.parameters(r));
                        } else {
                            x.type_refs(r);
                        }
                    }
                    x.declare_all(pending);
                });
            }
            "array_type" => {
                if let Some(len) = t.child_by_field_name("length") {
                    self.expr(len, Use::Value);
                }
                if let Some(e) = t.child_by_field_name("element") {
                    self.type_refs(e);
                }
            }
            _ => {
                let mut c = t.walk();
                let kids: Vec<Node> = t.named_children(&mut c).collect();
                for k in kids {
                    if k.kind() == "field_identifier" {
                        continue;
                    }
                    self.type_refs(k);
                }
            }
        }
    }

    // ---- statements ----

    fn block(&mut self, b: Node) {
        self.with_scope(|x| x.statements(b));
    }

    fn statements(&mut self, parent: Node) {
        let mut c = parent.walk();
        let kids: Vec<Node> = parent.named_children(&mut c).collect();
        for k in kids {
            self.stmt(k);
        }
    }

    fn stmt(&mut self, n: Node) {
        if self.depth >= MAX_DEPTH {
            self.file.too_deep = true;
            return;
        }
        self.depth += 1;
        self._stmt(n);
        self.depth -= 1;
    }

    fn _stmt(&mut self, n: Node) {
        match n.kind() {
            "block" => self.block(n),
            "statement_list" => self.statements(n),
            "short_var_declaration" => {
                let right: Vec<Node> = n
                    .child_by_field_name("right")
                    .map(named)
                    .unwrap_or_default();
                for r in &right {
                    self.expr(*r, Use::Assign);
                }
                let left: Vec<Node> = n.child_by_field_name("left").map(named).unwrap_or_default();
                let types: Vec<Option<Ty>> = (0..left.len())
                    .map(|i| self.infer_value_ty(&right, left.len(), i))
                    .collect();
                for (l, ty) in left.iter().zip(types) {
                    if l.kind() == "identifier" {
                        let name = self.text(*l).to_string();
                        // Redeclaration in the same scope keeps the variable; a new one shadows.
                        let same_scope = self.scopes.last().is_some_and(|s| s.contains_key(&name));
                        if !same_scope {
                            self.declare_local(&name, ty);
                        }
                    }
                }
            }
            "var_declaration" | "const_declaration" => self.value_decl(n, false),
            "type_declaration" => {
                let mut c = n.walk();
                let specs: Vec<Node> = n.named_children(&mut c).collect();
                for s in specs {
                    if matches!(s.kind(), "type_spec" | "type_alias") {
                        self.type_spec(s, false);
                    }
                }
            }
            "for_statement" => self.with_scope(|x| {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in kids {
                    match k.kind() {
                        "range_clause" => {
                            if let Some(r) = k.child_by_field_name("right") {
                                x.expr(r, Use::Value);
                            }
                            let defines = has_token(k, ":=");
                            let elem = k
                                .child_by_field_name("right")
                                .and_then(|r| x.ty_of_expr(r))
                                .map(|t| Ty::Elem(Box::new(t)));
                            if let Some(l) = k.child_by_field_name("left") {
                                for (i, id) in named(l).into_iter().enumerate() {
                                    if defines && id.kind() == "identifier" {
                                        let t = x.text(id).to_string();
                                        x.declare_local(
                                            &t,
                                            if i == 1 { elem.clone() } else { None },
                                        );
                                    } else {
                                        x.expr(id, Use::Value);
                                    }
                                }
                            }
                        }
                        "for_clause" => {
                            for f in ["initializer", "condition", "update"] {
                                if let Some(s) = k.child_by_field_name(f) {
                                    x.stmt(s);
                                }
                            }
                        }
                        "block" => x.block(k),
                        _ => x.expr(k, Use::Value),
                    }
                }
            }),
            "if_statement" => self.with_scope(|x| {
                if let Some(i) = n.child_by_field_name("initializer") {
                    x.stmt(i);
                }
                if let Some(c) = n.child_by_field_name("condition") {
                    x.expr(c, Use::Value);
                }
                if let Some(c) = n.child_by_field_name("consequence") {
                    x.block(c);
                }
                if let Some(a) = n.child_by_field_name("alternative") {
                    x.stmt(a);
                }
            }),
            "expression_switch_statement" | "type_switch_statement" | "select_statement" => self
                .with_scope(|x| {
                    if let Some(i) = n.child_by_field_name("initializer") {
                        x.stmt(i);
                    }
                    if let Some(v) = n.child_by_field_name("value") {
                        x.expr(v, Use::Value);
                    }
                    let alias = n
                        .child_by_field_name("alias")
                        .and_then(|a| named(a).first().copied())
                        .map(|a| x.text(a).to_string());
                    let mut c = n.walk();
                    let cases: Vec<Node> = n.named_children(&mut c).collect();
                    for case in cases {
                        match case.kind() {
                            "expression_case" | "default_case" | "type_case"
                            | "communication_case" => x.with_scope(|x| {
                                if case.kind() == "type_case" {
                                    let mut c = case.walk();
                                    let types: Vec<Node> = case
                                        .children_by_field_name("type", &mut c)
                                        .filter(|t| t.is_named())
                                        .collect();
                                    for t in &types {
                                        x.type_refs(*t);
                                    }
                                    if let Some(a) = &alias {
                                        let ty = if types.len() == 1 {
                                            x.ty_of_type(types[0])
                                        } else {
                                            None
                                        };
                                        x.declare_local(a, ty);
                                    }
                                } else if case.kind() == "default_case"
                                    && let Some(a) = &alias
                                {
                                    x.declare_local(a, None);
                                }
                                if let Some(v) = case.child_by_field_name("value") {
                                    x.expr(v, Use::Value);
                                }
                                if let Some(comm) = case.child_by_field_name("communication") {
                                    x.stmt(comm);
                                }
                                let mut c = case.walk();
                                let body: Vec<Node> = case
                                    .named_children(&mut c)
                                    .filter(|k| k.kind() == "statement_list")
                                    .collect();
                                for b in body {
                                    x.statements(b);
                                }
                            }),
                            _ => {}
                        }
                    }
                }),
            "receive_statement" => {
                if let Some(r) = n.child_by_field_name("right") {
                    self.expr(r, Use::Value);
                }
                if let Some(l) = n.child_by_field_name("left") {
                    let defines = has_token(n, ":=");
                    for id in named(l) {
                        if defines && id.kind() == "identifier" {
                            let t = self.text(id).to_string();
                            self.declare_local(&t, None);
                        } else {
                            self.expr(id, Use::Value);
                        }
                    }
                }
            }
            "labeled_statement" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n
                    .named_children(&mut c)
                    .filter(|k| k.kind() != "label_name")
                    .collect();
                for k in kids {
                    self.stmt(k);
                }
            }
            "break_statement"
            | "continue_statement"
            | "goto_statement"
            | "comment"
            | "empty_statement"
            | "fallthrough_statement" => {}
            "return_statement" => {
                for list in named(n) {
                    for e in named(list) {
                        self.expr(e, Use::Return);
                    }
                }
            }
            "assignment_statement" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.expr(l, Use::Value);
                }
                if let Some(r) = n.child_by_field_name("right") {
                    for e in named(r) {
                        self.expr(e, Use::Assign);
                    }
                }
            }
            _ => self.expr(n, Use::Value),
        }
    }

    // ---- expressions ----

    fn expr(&mut self, n: Node, usage: Use) {
        if self.depth >= MAX_DEPTH {
            self.file.too_deep = true;
            return;
        }
        self.depth += 1;
        self._expr(n, usage);
        self.depth -= 1;
    }

    fn _expr(&mut self, n: Node, usage: Use) {
        match n.kind() {
            "identifier" => {
                let name = self.text(n);
                if name != "_" && self.lookup_local(name).is_none() {
                    self.add_ref(Target::Ident(name.to_string()), usage, n);
                }
            }
            "type_identifier"
            | "qualified_type"
            | "pointer_type"
            | "slice_type"
            | "array_type"
            | "map_type"
            | "chan_type"
            | "function_type"
            | "struct_type"
            | "interface_type"
            | "generic_type"
            | "implicit_length_array_type" => self.type_refs(n),
            "selector_expression" => {
                let (Some(operand), Some(field)) = (
                    n.child_by_field_name("operand"),
                    n.child_by_field_name("field"),
                ) else {
                    return;
                };
                let name = self.text(field).to_string();
                if operand.kind() == "identifier" {
                    let op = self.text(operand);
                    match self.lookup_local(op) {
                        Some(ty) => {
                            let recv = ty.clone();
                            self.add_ref(Target::Member { recv, name }, usage, field);
                        }
                        None => {
                            let pos = operand.start_position();
                            let operand_at = (pos.row as u32 + 1, pos.column as u32);
                            let operand = op.to_string();
                            self.add_ref(
                                Target::Selector {
                                    operand,
                                    name,
                                    operand_at,
                                },
                                usage,
                                field,
                            );
                        }
                    }
                } else {
                    self.expr(operand, Use::Value);
                    let recv = self.ty_of_expr(operand);
                    self.add_ref(Target::Member { recv, name }, usage, field);
                }
            }
            // `F[int](x)` of a generic func parses as a conversion to a generic type; the name
            // decides in phase 2 (a func is called, a type converted to).
            "type_conversion_expression"
                if n.child_by_field_name("type")
                    .is_some_and(|t| t.kind() == "generic_type") =>
            {
                if let Some(t) = n.child_by_field_name("type") {
                    self.callee(t);
                }
                if let Some(o) = n.child_by_field_name("operand") {
                    self.expr(o, Use::Arg);
                }
            }
            "call_expression" => {
                if let Some(f) = n.child_by_field_name("function") {
                    self.callee(f);
                }
                if let Some(t) = n.child_by_field_name("type_arguments") {
                    self.type_refs(t);
                }
                if let Some(a) = n.child_by_field_name("arguments") {
                    for arg in named(a) {
                        self.expr(arg, Use::Arg);
                    }
                }
            }
            "composite_literal" => {
                let ty_node = n.child_by_field_name("type");
                if let Some(t) = ty_node {
                    self.type_refs(t);
                }
                if let Some(body) = n.child_by_field_name("body") {
                    self.literal_value(body, ty_node.map_or(LitTy::Unknown, LitTy::Node));
                }
            }
            "func_literal" => {
                let saved = self.source;
                self.with_scope(|x| {
                    let mut pending = Vec::new();
                    if let Some(p) = n.child_by_field_name("parameters") {
                        pending.extend(x.parameters(p));
                    }
                    if let Some(r) = n.child_by_field_name("result") {
                        if r.kind() == "parameter_list" {
                            pending.extend(x.parameters(r));
                        } else {
                            x.type_refs(r);
                        }
                    }
                    x.declare_all(pending);
                    if let Some(b) = n.child_by_field_name("body") {
                        x.block(b);
                    }
                });
                self.source = saved;
            }
            "parenthesized_expression" => {
                for k in named(n) {
                    self.expr(k, usage);
                }
            }
            "field_identifier"
            | "package_identifier"
            | "label_name"
            | "comment"
            | "interpreted_string_literal"
            | "raw_string_literal"
            | "int_literal"
            | "float_literal"
            | "imaginary_literal"
            | "rune_literal"
            | "true"
            | "false"
            | "nil"
            | "iota"
            | "blank_identifier" => {}
            "block"
            | "short_var_declaration"
            | "var_declaration"
            | "const_declaration"
            | "type_declaration"
            | "for_statement"
            | "if_statement"
            | "expression_switch_statement"
            | "type_switch_statement"
            | "select_statement"
            | "labeled_statement"
            | "receive_statement" => self.stmt(n),
            _ => {
                for k in named(n) {
                    self.expr(k, Use::Value);
                }
            }
        }
    }

    /// The function of a call. `F[int](x)` parses like the conversion `T[int](x)` of a generic
    /// type: the name is recorded as called and phase 2 decides by what it names (a func is
    /// called, a type is converted to); the bracketed arguments are types or, for an indexed
    /// value (`handlers[0](x)`), an ordinary expression.
    fn callee(&mut self, f: Node) {
        match f.kind() {
            "generic_type" => {
                if let Some(t) = f.child_by_field_name("type") {
                    self.type_name_as(t, Use::Call);
                }
                if let Some(a) = f.child_by_field_name("type_arguments") {
                    self.type_refs(a);
                }
            }
            "index_expression" => {
                if let Some(o) = f.child_by_field_name("operand") {
                    self.expr(o, Use::Call);
                }
                if let Some(i) = f.child_by_field_name("index") {
                    self.expr(i, Use::Value);
                }
            }
            _ => self.expr(f, Use::Call),
        }
    }

    /// A type name (`T` or `pkg.T`) recorded with the given use.
    fn type_name_as(&mut self, t: Node, usage: Use) {
        match t.kind() {
            "type_identifier" => {
                let name = self.text(t).to_string();
                if self.lookup_local(&name).is_none() {
                    self.add_ref(Target::Ident(name), usage, t);
                }
            }
            "qualified_type" => {
                let (Some(p), Some(n)) = (
                    t.child_by_field_name("package"),
                    t.child_by_field_name("name"),
                ) else {
                    return;
                };
                let pkg = self.text(p).to_string();
                if self.lookup_local(&pkg).is_some() {
                    return;
                }
                let name = self.text(n).to_string();
                let at = (
                    p.start_position().row as u32 + 1,
                    p.start_position().column as u32,
                );
                self.add_ref(
                    Target::Selector {
                        operand: pkg,
                        name,
                        operand_at: at,
                    },
                    usage,
                    n,
                );
            }
            _ => self.type_refs(t),
        }
    }

    /// The elements of a composite literal whose type is `ty`.
    fn literal_value(&mut self, body: Node, ty: LitTy) {
        // What the literal's type says about its keys and its elided elements.
        let (keys, elems): (Keys, LitTy) = match ty {
            LitTy::Node(mut t) => {
                // An elided element of `[]*T{{...}}` is `&T{...}`: look through pointers and
                // instantiation.
                while let Some(inner) = match t.kind() {
                    "generic_type" => t.child_by_field_name("type"),
                    "pointer_type" => t.named_child(0),
                    _ => None,
                } {
                    t = inner;
                }
                match t.kind() {
                    // A named type: a struct (keys are fields) or a slice or map type (elided
                    // elements have its element type); phase 2 knows which.
                    "type_identifier" | "qualified_type" => match self.ty_of_type(t) {
                        Some(named) => (
                            Keys::Fields(named.clone()),
                            LitTy::Ty(Ty::Elem(Box::new(named))),
                        ),
                        None => (Keys::Unknown, LitTy::Unknown),
                    },
                    "struct_type" => (Keys::Unknown, LitTy::Unknown),
                    "slice_type" | "array_type" | "implicit_length_array_type" => (
                        Keys::Expressions(None),
                        t.child_by_field_name("element")
                            .map_or(LitTy::Unknown, LitTy::Node),
                    ),
                    "map_type" => (
                        Keys::Expressions(t.child_by_field_name("key")),
                        t.child_by_field_name("value")
                            .map_or(LitTy::Unknown, LitTy::Node),
                    ),
                    _ => (Keys::Unknown, LitTy::Unknown),
                }
            }
            LitTy::Ty(t) => (Keys::Fields(t.clone()), LitTy::Ty(Ty::Elem(Box::new(t)))),
            LitTy::Unknown => (Keys::Unknown, LitTy::Unknown),
        };
        for el in named(body) {
            match el.kind() {
                "keyed_element" => {
                    if let Some(k) = el.child_by_field_name("key") {
                        let ident = k.named_child(0).filter(|i| i.kind() == "identifier");
                        match (&keys, ident) {
                            (Keys::Fields(t), Some(id)) => {
                                let name = self.text(id).to_string();
                                self.add_ref(
                                    Target::FieldKey {
                                        ty: t.clone(),
                                        name,
                                    },
                                    Use::Value,
                                    id,
                                );
                            }
                            // Perhaps a field name of a type we cannot see: never a variable.
                            (Keys::Unknown, Some(_)) => {}
                            (Keys::Expressions(key_ty), _) => {
                                self.element(k, key_ty.map_or(LitTy::Unknown, LitTy::Node))
                            }
                            _ => self.element(k, LitTy::Unknown),
                        }
                    }
                    if let Some(v) = el.child_by_field_name("value") {
                        self.element(v, elems.clone());
                    }
                }
                "literal_element" => self.element(el, elems.clone()),
                "comment" => {}
                _ => self.expr(el, Use::Value),
            }
        }
    }

    fn element(&mut self, el: Node, ty: LitTy) {
        match el.named_child(0) {
            Some(inner) if inner.kind() == "literal_value" => self.literal_value(inner, ty),
            Some(inner) => self.expr(inner, Use::Assign),
            None => {}
        }
    }
}

pub(super) fn named(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| k.kind() != "comment")
        .collect()
}

fn count_field(n: Node, field: &str) -> usize {
    let mut c = n.walk();
    n.children_by_field_name(field, &mut c).count()
}

fn has_token(n: Node, token: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c)
        .any(|k| !k.is_named() && k.kind() == token)
}

fn collect_kind<'t>(n: Node<'t>, kind: &str, out: &mut Vec<Node<'t>>) {
    if n.kind() == kind {
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
        if x.kind() == kind {
            return Some(x);
        }
        p = x.parent();
    }
    None
}

/// Public so other modules can tell exportedness the Go way.
pub fn exported(name: &str) -> bool {
    is_exported(name)
}
