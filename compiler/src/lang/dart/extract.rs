//! Phase 1 of Dart: one file at a time, in parallel. Reads the directives, declares the file's
//! top-level declarations and members, and walks every body with Dart's lexical scopes (blocks,
//! parameters, initializing formals, `catch`, `for`, closures, pattern variables). A name bound
//! to a local gives nothing; every other name is left to phase 2 with its class context.

use std::collections::HashMap;

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use super::syntax::{
    Ctx, DartFile, Decl, DirKind, Directive, Expr, Local, Ref, SuperKind, Target, TypeRef, Use,
};
use crate::lang::{Span, collapse, kids, pos, text};

/// Deeper syntax than this is not followed, and the file is `partial`.
const MAX_DEPTH: usize = 400;
/// Receiver descriptions keep at most this many levels.
const MAX_EXPR: usize = 24;

enum Binding {
    Local(usize),
    TypeParam,
}

struct Extractor<'s> {
    src: &'s str,
    file: DartFile,
    scopes: Vec<HashMap<String, Binding>>,
    /// The innermost enclosing declaration: the source of references.
    from: Option<usize>,
    ctx: Ctx,
    depth: usize,
}

/// Extracts one file.
pub fn extract(src: &str) -> DartFile {
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_dart::LANGUAGE.into())
        .is_err()
    {
        return DartFile {
            has_error: true,
            ..DartFile::default()
        };
    }
    let Some(tree) = parser.parse(src, None) else {
        return DartFile {
            has_error: true,
            ..DartFile::default()
        };
    };
    let root = tree.root_node();
    let mut x = Extractor {
        src,
        file: DartFile {
            has_error: root.has_error(),
            ..DartFile::default()
        },
        scopes: vec![HashMap::new()],
        from: None,
        ctx: None,
        depth: 0,
    };
    x.top_level(root, 0);
    x.file
}

fn uri_text(n: Node, src: &str) -> String {
    let t = text(n, src).trim();
    let t = t.strip_prefix('r').unwrap_or(t);
    t.trim_matches(|c| c == '\'' || c == '"').to_string()
}

fn child_of_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    kids(n).into_iter().find(|k| k.kind() == kind)
}

fn has_token(n: Node, tok: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c).any(|k| !k.is_named() && k.kind() == tok)
}

fn is_meta(k: &str) -> bool {
    matches!(
        k,
        "annotation" | "comment" | "documentation_comment" | "block_comment"
    )
}

/// The signature: from the first child that is not metadata or a comment up to `end`.
fn signature(decl: Node, end: usize, src: &str) -> Option<String> {
    let mut c = decl.walk();
    let start = decl
        .children(&mut c)
        .find(|k| !is_meta(k.kind()))
        .map_or(decl.start_byte(), |k| k.start_byte());
    if end <= start {
        return None;
    }
    let s = collapse(src[start..end].trim_end().trim_end_matches(';'));
    (!s.is_empty()).then_some(s)
}

const SIGNATURES: &[&str] = &[
    "function_signature",
    "getter_signature",
    "setter_signature",
    "operator_signature",
    "constructor_signature",
    "constant_constructor_signature",
    "factory_constructor_signature",
    "redirecting_factory_constructor_signature",
];

impl<'s> Extractor<'s> {
    fn t(&self, n: Node) -> &'s str {
        text(n, self.src)
    }

    fn deeper(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            self.file.has_error = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn push_ref(&mut self, at: Node, usage: Use, target: Target) {
        let (line, column) = pos(at);
        self.file.refs.push(Ref {
            line,
            column,
            from: self.from,
            usage,
            target,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn new_decl(
        &mut self,
        span_node: Node,
        name: &str,
        kind: SymbolKind,
        parent: Option<usize>,
        signature: Option<String>,
    ) -> usize {
        if let Some(p) = parent {
            if let Some(&d) = self.file.decls[p].members.get(name)
                && kind == SymbolKind::Property
                && self.file.decls[d].kind == SymbolKind::Property
            {
                return d;
            }
        } else if let Some(&d) = self.file.top.get(name)
            && kind == SymbolKind::Property
            && self.file.decls[d].kind == SymbolKind::Property
        {
            return d;
        }
        let id = self.file.decls.len();
        let qn = match parent {
            Some(p) => format!("{}.{}", self.file.decls[p].qn, name),
            None => name.to_string(),
        };
        self.file.decls.push(Decl {
            name: name.to_string(),
            qn,
            kind,
            parent,
            span: Span::of(span_node),
            at: pos(span_node),
            signature,
            ty: None,
            value: None,
            supers: Vec::new(),
            members: HashMap::new(),
            is_static: false,
            ctor: false,
            mixin: false,
            extension: false,
        });
        match parent {
            Some(p) => {
                self.file.decls[p]
                    .members
                    .entry(name.to_string())
                    .or_insert(id);
            }
            None => {
                self.file.top.entry(name.to_string()).or_insert(id);
            }
        }
        id
    }

    // ------------------------------------------------------------------ top level

    fn top_level(&mut self, root: Node, depth: usize) {
        for n in kids(root) {
            match n.kind() {
                "library_name" => {
                    if let Some(d) = child_of_kind(n, "dotted_identifier_list") {
                        self.file.library_name = Some(self.t(d).replace(' ', ""));
                    }
                }
                "part_of_directive" => {
                    self.file.part_of_line = pos(n).0;
                    if let Some(u) = child_of_kind(n, "uri") {
                        self.file.part_of = Some((uri_text(u, self.src), true));
                    } else if let Some(d) = child_of_kind(n, "dotted_identifier_list") {
                        self.file.part_of = Some((self.t(d).replace(' ', ""), false));
                    }
                }
                "part_directive" => {
                    if let Some(u) = n.child_by_field_name("uri") {
                        self.directive(DirKind::Part, u, n);
                    }
                }
                "import_or_export" => {
                    for k in kids(n) {
                        match k.kind() {
                            "library_import" => {
                                if let Some(spec) = child_of_kind(k, "import_specification")
                                    && let Some(u) = spec.child_by_field_name("uri")
                                {
                                    self.directive(DirKind::Import, u, spec);
                                }
                            }
                            "library_export" => {
                                if let Some(u) = k.child_by_field_name("uri") {
                                    self.directive(DirKind::Export, u, k);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "ERROR" => {
                    if depth < 8 {
                        self.top_level(n, depth + 1);
                    }
                }
                _ => {
                    self.top_decl(n);
                }
            }
        }
    }

    fn directive(&mut self, kind: DirKind, u: Node, spec: Node) {
        // A configurable URI: the default URI is the first `uri`.
        let uri_node = if u.kind() == "configurable_uri" {
            child_of_kind(u, "uri").unwrap_or(u)
        } else {
            u
        };
        let (line, column) = pos(uri_node);
        let mut d = Directive {
            kind,
            uri: uri_text(uri_node, self.src),
            line,
            column,
            prefix: spec
                .child_by_field_name("alias")
                .map(|a| self.t(a).to_string()),
            show: None,
            hide: Vec::new(),
        };
        for c in kids(spec) {
            if c.kind() != "combinator" {
                continue;
            }
            let names: Vec<Node> = kids(c)
                .into_iter()
                .filter(|k| k.kind() == "identifier")
                .collect();
            if has_token(c, "show") {
                let list: Vec<(String, u32, u32)> = names
                    .iter()
                    .map(|k| {
                        let (l, col) = pos(*k);
                        (self.t(*k).to_string(), l, col)
                    })
                    .collect();
                // Several `show` combinators intersect; keep the last list.
                d.show = Some(list);
            } else {
                d.hide.extend(names.iter().map(|k| self.t(*k).to_string()));
            }
        }
        let di = self.file.directives.len();
        if let Some(show) = d.show.clone() {
            for (name, line, column) in show {
                self.file.refs.push(Ref {
                    line,
                    column,
                    from: None,
                    usage: if kind == DirKind::Export {
                        Use::Value
                    } else {
                        Use::Type
                    },
                    target: Target::Shown(di, name),
                });
            }
        }
        self.file.directives.push(d);
    }

    fn annotations(&mut self, n: Node) {
        for a in kids(n) {
            if a.kind() == "annotation" {
                self.annotation(a);
            }
        }
    }

    fn annotation(&mut self, a: Node) {
        let args = kids(a)
            .into_iter()
            .find(|k| k.kind() == "annotation_arguments" || k.kind() == "arguments");
        if let Some(name) = a.child_by_field_name("name") {
            let e = self.describe(name, 0);
            let at = match name.kind() {
                "identifier" => name,
                _ => kids(name).last().copied().unwrap_or(name),
            };
            match (e, args.is_some()) {
                (Expr::Name(n, _), true) => self.push_ref(
                    at,
                    Use::Annotation,
                    Target::Ctor(
                        TypeRef::Named {
                            prefix: None,
                            name: n,
                            args: Vec::new(),
                        },
                        None,
                    ),
                ),
                (Expr::Name(n, ctx), false) => {
                    self.push_ref(at, Use::Annotation, Target::Name(n, ctx))
                }
                (Expr::Member(obj, m), true) => {
                    if let Expr::Name(p, _) = obj.as_ref() {
                        self.push_ref(
                            at,
                            Use::Annotation,
                            Target::Ctor(
                                TypeRef::Named {
                                    prefix: None,
                                    name: p.clone(),
                                    args: Vec::new(),
                                },
                                Some(m),
                            ),
                        );
                    }
                }
                (Expr::Member(obj, m), false) => {
                    self.push_ref(at, Use::Annotation, Target::Member(*obj, m));
                }
                _ => {}
            }
        }
        if let Some(k) = args {
            self.arguments(k);
        }
    }

    fn top_decl(&mut self, n: Node) {
        match n.kind() {
            "class_declaration" | "mixin_declaration" => self.class_like(n, None),
            "extension_declaration" => self.class_like(n, None),
            "extension_type_declaration" => self.class_like(n, None),
            "enum_declaration" => self.class_like(n, None),
            "type_alias" => {
                let Some(name) = kids(n).into_iter().find(|k| k.kind() == "type_identifier") else {
                    return;
                };
                let nm = self.t(name).to_string();
                let sig = signature(n, n.end_byte(), self.src);
                let d = self.new_decl(n, &nm, SymbolKind::TypeAlias, None, sig);
                let saved = self.from.replace(d);
                self.scopes.push(HashMap::new());
                self.annotations(n);
                for k in kids(n) {
                    match k.kind() {
                        "type_parameters" => self.type_params(k),
                        "type" => {
                            let t = self.ty(k, Use::Type);
                            if has_token(n, "=") {
                                self.file.decls[d].ty = Some(t);
                            }
                        }
                        "formal_parameter_list" => self.params(k),
                        _ => {}
                    }
                }
                self.scopes.pop();
                self.from = saved;
            }
            "function_declaration" | "external_function_declaration" => {
                let Some(sig) = n.child_by_field_name("signature") else {
                    return;
                };
                let Some(name) = sig.child_by_field_name("name") else {
                    return;
                };
                let nm = self.t(name).to_string();
                let s = signature(n, sig.end_byte(), self.src);
                let d = self.new_decl(n, &nm, SymbolKind::Function, None, s);
                self.function(n, sig, n.child_by_field_name("body"), d);
            }
            "getter_declaration"
            | "setter_declaration"
            | "external_getter_declaration"
            | "external_setter_declaration" => {
                let Some(sig) = n
                    .child_by_field_name("signature")
                    .or_else(|| child_of_kind(n, "getter_signature"))
                    .or_else(|| child_of_kind(n, "setter_signature"))
                else {
                    return;
                };
                let Some(name) = sig.child_by_field_name("name") else {
                    return;
                };
                let nm = self.t(name).to_string();
                let s = signature(n, sig.end_byte(), self.src);
                let d = self.new_decl(n, &nm, SymbolKind::Property, None, s);
                self.function(n, sig, n.child_by_field_name("body"), d);
            }
            "top_level_variable_declaration" | "external_variable_declaration" => {
                let konst = has_token(n, "const");
                self.fields(n, None, konst, false);
            }
            _ => {}
        }
    }

    /// Variables or fields: `T a = 1, b;`, `const x = 1;`.
    fn fields(&mut self, n: Node, parent: Option<usize>, konst: bool, is_static: bool) {
        let saved = self.from;
        self.annotations(n);
        let ty = kids(n)
            .into_iter()
            .find(|k| k.kind() == "type")
            .map(|k| self.ty(k, Use::Type));
        let kind = match (parent, konst) {
            (Some(_), _) => SymbolKind::Field,
            (None, true) => SymbolKind::Const,
            (None, false) => SymbolKind::Variable,
        };
        for list in kids(n) {
            if !matches!(
                list.kind(),
                "initialized_identifier_list" | "static_final_declaration_list"
            ) {
                continue;
            }
            for item in kids(list) {
                let Some(name) = item.child_by_field_name("name") else {
                    continue;
                };
                let nm = self.t(name).to_string();
                let d = self.new_decl(item, &nm, kind, parent, None);
                self.file.decls[d].ty = ty.clone();
                self.file.decls[d].is_static = is_static;
                if let Some(v) = item.child_by_field_name("value") {
                    if ty.is_none() {
                        self.file.decls[d].value = Some(self.describe(v, 0));
                    }
                    self.from = Some(d);
                    self.expr(v, Use::Value);
                    self.from = saved;
                }
            }
        }
        self.from = saved;
    }

    fn type_params(&mut self, n: Node) {
        for p in kids(n) {
            if p.kind() == "type_parameter" {
                if let Some(name) = p.child_by_field_name("name") {
                    let nm = self.t(name).to_string();
                    if let Some(s) = self.scopes.last_mut() {
                        s.insert(nm, Binding::TypeParam);
                    }
                }
                for k in kids(p) {
                    if k.kind() == "type" {
                        self.ty(k, Use::Type);
                    }
                }
            }
        }
    }

    fn class_like(&mut self, n: Node, _parent: Option<usize>) {
        let kind = n.kind();
        let (name_node, display) = match kind {
            "extension_type_declaration" => {
                let nn = n
                    .child_by_field_name("name")
                    .and_then(|e| kids(e).into_iter().next());
                (nn, None)
            }
            "extension_declaration" => {
                let nn = n.child_by_field_name("name");
                let d = if nn.is_none() {
                    Some(format!("extension@{}", n.start_position().row + 1))
                } else {
                    None
                };
                (nn, d)
            }
            "class_declaration" => {
                let nn = n.child_by_field_name("name").or_else(|| {
                    child_of_kind(n, "mixin_application_class")
                        .and_then(|m| child_of_kind(m, "identifier"))
                });
                (nn, None)
            }
            _ => (n.child_by_field_name("name"), None),
        };
        let nm = match (name_node, display) {
            (_, Some(d)) => d,
            (Some(nn), None) => self.t(nn).to_string(),
            (None, None) => return,
        };
        let sk = match kind {
            "extension_declaration" => SymbolKind::Implementation,
            "extension_type_declaration" => SymbolKind::Type,
            "enum_declaration" => SymbolKind::Enum,
            _ => SymbolKind::Class,
        };
        let body = n.child_by_field_name("body").or_else(|| {
            kids(n)
                .into_iter()
                .find(|k| matches!(k.kind(), "class_body" | "enum_body" | "extension_body"))
        });
        let sig_end = body.map_or(n.end_byte(), |b| b.start_byte());
        let sig = signature(n, sig_end, self.src);
        let d = self.new_decl(n, &nm, sk, None, sig);
        if let Some(nn) = name_node {
            self.file.decls[d].at = pos(nn);
        }
        self.file.decls[d].mixin = kind == "mixin_declaration";
        self.file.decls[d].extension = kind == "extension_declaration";
        let saved_from = self.from.replace(d);
        let saved_ctx = self.ctx;
        self.scopes.push(HashMap::new());
        self.annotations(n);
        for k in kids(n) {
            match k.kind() {
                "type_parameters" => self.type_params(k),
                "superclass" => {
                    for s in kids(k) {
                        match s.kind() {
                            "type" => {
                                let t = self.ty(s, Use::Extends);
                                self.file.decls[d].supers.push((SuperKind::Extends, t));
                            }
                            "mixins" => self.supers(s, d, SuperKind::With, Use::Extends),
                            _ => {}
                        }
                    }
                }
                "mixins" => self.supers(k, d, SuperKind::With, Use::Extends),
                "interfaces" => self.supers(k, d, SuperKind::Implements, Use::Implements),
                "mixin_application_class" => {
                    for m in kids(k) {
                        if m.kind() == "mixin_application" {
                            for s in kids(m) {
                                match s.kind() {
                                    "type" => {
                                        let t = self.ty(s, Use::Extends);
                                        self.file.decls[d].supers.push((SuperKind::Extends, t));
                                    }
                                    "mixins" => self.supers(s, d, SuperKind::With, Use::Extends),
                                    "interfaces" => {
                                        self.supers(s, d, SuperKind::Implements, Use::Implements)
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                }
                // `on` types of a mixin; the extended type of an extension (`class:`).
                "type"
                    if kind == "extension_declaration"
                        || kind == "mixin_declaration"
                            && k.prev_sibling()
                                .is_some_and(|p| matches!(p.kind(), "on" | ",")) =>
                {
                    let t = self.ty(k, Use::Type);
                    self.file.decls[d].supers.push((SuperKind::On, t));
                }
                "extension_type_representation" => {
                    let ty = k.child_by_field_name("type").map(|t| self.ty(t, Use::Type));
                    if let Some(f) = k.child_by_field_name("name") {
                        let fnm = self.t(f).to_string();
                        let fd = self.new_decl(f, &fnm, SymbolKind::Field, Some(d), None);
                        self.file.decls[fd].ty = ty.clone();
                    }
                    // `extension type X.name(…)`: a named constructor of the representation.
                    let names: Vec<Node> =
                        n.child_by_field_name("name").map(kids).unwrap_or_default();
                    if let Some(c) = names.get(1) {
                        let cn = self.t(*c).to_string();
                        let sig = signature(n, k.end_byte(), self.src);
                        let cd = self.new_decl(*c, &cn, SymbolKind::Method, Some(d), sig);
                        self.file.decls[cd].ctor = true;
                    }
                }
                _ => {}
            }
        }
        self.ctx = Some((d, true));
        if let Some(b) = body {
            self.class_body(b, d, &nm);
        }
        self.scopes.pop();
        self.ctx = saved_ctx;
        self.from = saved_from;
    }

    fn supers(&mut self, list: Node, d: usize, kind: SuperKind, usage: Use) {
        for s in kids(list) {
            if s.kind() == "type" {
                let t = self.ty(s, usage);
                self.file.decls[d].supers.push((kind, t));
            }
        }
    }

    fn class_body(&mut self, body: Node, class: usize, class_name: &str) {
        for m in kids(body) {
            match m.kind() {
                "enum_entry" => {
                    let Some(name) = m.child_by_field_name("name") else {
                        continue;
                    };
                    let nm = self.t(name).to_string();
                    let e = self.new_decl(m, &nm, SymbolKind::EnumMember, Some(class), None);
                    self.file.decls[e].is_static = true;
                    self.file.decls[e].ty = Some(TypeRef::Named {
                        prefix: None,
                        name: class_name.to_string(),
                        args: Vec::new(),
                    });
                    let saved = self.from.replace(e);
                    self.annotations(m);
                    let ks = kids(m);
                    if let Some(args) = ks.iter().find(|k| k.kind() == "arguments") {
                        let ctor = ks
                            .iter()
                            .filter(|k| k.kind() == "identifier")
                            .nth(1)
                            .map(|k| self.t(*k).to_string());
                        let at = ks
                            .iter()
                            .filter(|k| k.kind() == "identifier")
                            .nth(1)
                            .copied()
                            .unwrap_or(name);
                        self.push_ref(at, Use::Call, Target::ThisCtor(class, ctor));
                        self.arguments(*args);
                    }
                    self.from = saved;
                }
                "member_declaration" => {
                    let fresh = self.file.decls.len();
                    let metadata: Vec<Node> = kids(m)
                        .into_iter()
                        .filter(|k| k.kind() == "annotation")
                        .collect();
                    for k in kids(m) {
                        match k.kind() {
                            "declaration" | "method_declaration" => {
                                self.member(m, k, class, class_name)
                            }
                            _ => {}
                        }
                    }
                    // Metadata before a member belongs to it.
                    let owner = if self.file.decls.len() > fresh {
                        fresh
                    } else {
                        class
                    };
                    let saved = self.from.replace(owner);
                    for a in metadata {
                        self.annotation(a);
                    }
                    self.from = saved;
                }
                _ => {}
            }
        }
    }

    fn member(&mut self, span: Node, n: Node, class: usize, class_name: &str) {
        let holder = if n.kind() == "method_declaration" {
            n.child_by_field_name("signature").unwrap_or(n)
        } else {
            n
        };
        let is_static = has_token(holder, "static") || has_token(n, "static");
        let sig = kids(holder)
            .into_iter()
            .find(|k| SIGNATURES.contains(&k.kind()));
        let Some(sig) = sig else {
            // Fields.
            let konst = has_token(n, "const");
            self.fields(n, Some(class), konst, is_static);
            return;
        };
        let sig_text = signature(n, sig.end_byte(), self.src);
        let mut at = sig;
        let (name, kind, ctor) = match sig.kind() {
            "function_signature" => {
                let Some(nn) = sig.child_by_field_name("name") else {
                    return;
                };
                let k = if is_static {
                    SymbolKind::StaticMethod
                } else {
                    SymbolKind::Method
                };
                at = nn;
                (self.t(nn).to_string(), k, false)
            }
            "getter_signature" | "setter_signature" => {
                let Some(nn) = sig.child_by_field_name("name") else {
                    return;
                };
                at = nn;
                (self.t(nn).to_string(), SymbolKind::Property, false)
            }
            "operator_signature" => {
                if let Some(o) = sig.child_by_field_name("operator") {
                    at = o;
                }
                let op = sig
                    .child_by_field_name("operator")
                    .map(|o| self.t(o).split_whitespace().collect::<String>())
                    .unwrap_or_default();
                (format!("operator{op}"), SymbolKind::Method, false)
            }
            _ => {
                // Constructors: `C`, `C.named`, `factory C.named`.
                let mut c = sig.walk();
                if let Some(first) = sig.child_by_field_name("name") {
                    at = first;
                }
                let names: Vec<String> = sig
                    .children_by_field_name("name", &mut c)
                    .filter(|k| k.kind() == "identifier")
                    .map(|k| self.t(k).to_string())
                    .collect();
                let nm = match names.get(1) {
                    Some(x) => x.clone(),
                    None => "new".to_string(),
                };
                let _ = class_name;
                (nm, SymbolKind::Method, true)
            }
        };
        let fresh = self.file.decls.len();
        let d = self.new_decl(span, &name, kind, Some(class), sig_text);
        if d == fresh {
            self.file.decls[d].at = pos(at);
        }
        self.file.decls[d].is_static = is_static;
        self.file.decls[d].ctor = ctor;
        let factory = matches!(
            sig.kind(),
            "factory_constructor_signature" | "redirecting_factory_constructor_signature"
        );
        let saved_ctx = self.ctx;
        self.ctx = Some((class, !(is_static || factory)));
        let body = n.child_by_field_name("body");
        self.function(n, sig, body, d);
        self.ctx = saved_ctx;
    }

    /// A function, method, getter, setter or constructor: annotations, type parameters,
    /// return type, parameters, initializers and body, in a scope of its own.
    fn function(&mut self, n: Node, sig: Node, body: Option<Node>, d: usize) {
        let saved = self.from.replace(d);
        self.scopes.push(HashMap::new());
        self.annotations(n);
        for k in kids(sig) {
            if k.kind() == "type_parameters" {
                self.type_params(k);
            }
        }
        if let Some(rt) = sig.child_by_field_name("return_type") {
            let t = self.ty(rt, Use::Type);
            // A setter's `void` types nothing.
            if sig.kind() != "setter_signature" {
                self.file.decls[d].ty = Some(t);
            }
        }
        for k in kids(sig) {
            if k.kind() == "formal_parameter_list" {
                self.params(k);
            }
        }
        if let Some(p) = sig.child_by_field_name("parameters")
            && p.kind() != "formal_parameter_list"
        {
            self.params(p);
        }
        // Redirecting factories: `factory C.x() = D.y;`.
        if sig.kind() == "redirecting_factory_constructor_signature" {
            for k in kids(sig) {
                if k.kind() == "type" {
                    self.ty(k, Use::Call);
                }
            }
        }
        for k in kids(n) {
            match k.kind() {
                "initializers" => {
                    for e in kids(k) {
                        self.initializer(e);
                    }
                }
                "redirection" => {
                    let name = kids(k)
                        .into_iter()
                        .find(|x| x.kind() == "identifier")
                        .map(|x| self.t(x).to_string());
                    if let Some((c, _)) = self.ctx {
                        self.push_ref(k, Use::Call, Target::ThisCtor(c, name));
                    }
                    for a in kids(k) {
                        if a.kind() == "arguments" {
                            self.arguments(a);
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(b) = body {
            self.stmt(b);
        }
        self.scopes.pop();
        self.from = saved;
    }

    fn initializer(&mut self, e: Node) {
        if e.kind() != "initializer_list_entry" {
            return;
        }
        if has_token(e, "super") {
            let name = kids(e)
                .into_iter()
                .find(|x| x.kind() == "identifier")
                .map(|x| self.t(x).to_string());
            if let Some((c, _)) = self.ctx {
                self.push_ref(e, Use::Call, Target::SuperCtor(c, name));
            }
            for a in kids(e) {
                if a.kind() == "arguments" {
                    self.arguments(a);
                }
            }
            return;
        }
        for k in kids(e) {
            match k.kind() {
                "field_initializer" => {
                    if let Some(f) = k.child_by_field_name("name")
                        && let Some((c, _)) = self.ctx
                    {
                        let nm = self.t(f).to_string();
                        self.push_ref(f, Use::Write, Target::Member(Expr::This(c), nm));
                    }
                    if let Some(v) = k.child_by_field_name("value") {
                        self.expr(v, Use::Value);
                    }
                }
                _ => self.expr(k, Use::Value),
            }
        }
    }

    fn declare_local(&mut self, name: &str, local: Local) -> usize {
        let id = self.file.locals.len();
        self.file.locals.push(local);
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), Binding::Local(id));
        }
        id
    }

    fn params(&mut self, list: Node) {
        for p in kids(list) {
            match p.kind() {
                "formal_parameter" => self.param(p),
                "optional_formal_parameters" => self.params(p),
                // Defaults of optional parameters sit beside the parameter.
                _ if list.kind() == "optional_formal_parameters" => self.expr(p, Use::Value),
                _ => {}
            }
        }
    }

    fn param(&mut self, p: Node) {
        for k in kids(p) {
            match k.kind() {
                "field_formal_parameter" => {
                    let ty = kids(k)
                        .into_iter()
                        .find(|x| x.kind() == "type")
                        .map(|t| self.ty(t, Use::Type));
                    if let Some(nn) = k.child_by_field_name("name") {
                        let nm = self.t(nn).to_string();
                        let value = match self.ctx {
                            Some((c, _)) => {
                                self.push_ref(
                                    nn,
                                    Use::Write,
                                    Target::Member(Expr::This(c), nm.clone()),
                                );
                                Some(Expr::Member(Box::new(Expr::This(c)), nm.clone()))
                            }
                            None => None,
                        };
                        self.declare_local(
                            &nm,
                            Local {
                                ty,
                                value,
                                ..Local::default()
                            },
                        );
                    }
                    if let Some(fp) = child_of_kind(k, "formal_parameter_list") {
                        self.scopes.push(HashMap::new());
                        self.params(fp);
                        self.scopes.pop();
                    }
                }
                "super_formal_parameter" => {
                    let ty = kids(k)
                        .into_iter()
                        .find(|x| x.kind() == "type")
                        .map(|t| self.ty(t, Use::Type));
                    if let Some(nn) = k.child_by_field_name("name") {
                        let nm = self.t(nn).to_string();
                        let value = match self.ctx {
                            Some((c, _)) => {
                                self.push_ref(
                                    nn,
                                    Use::SuperFormal,
                                    Target::Member(Expr::Super(c), nm.clone()),
                                );
                                Some(Expr::Member(Box::new(Expr::Super(c)), nm.clone()))
                            }
                            None => None,
                        };
                        self.declare_local(
                            &nm,
                            Local {
                                value: if ty.is_none() { value } else { None },
                                ty,
                                ..Local::default()
                            },
                        );
                    }
                }
                _ => {}
            }
        }
        let mut ty = None;
        let mut fn_typed = false;
        for k in kids(p) {
            match k.kind() {
                "type" => ty = Some(self.ty(k, Use::Type)),
                "formal_parameter_list" => {
                    fn_typed = true;
                    self.scopes.push(HashMap::new());
                    self.params(k);
                    self.scopes.pop();
                }
                _ => {}
            }
        }
        let name = p
            .child_by_field_name("name")
            .or_else(|| kids(p).into_iter().rfind(|k| k.kind() == "identifier"));
        if let Some(nn) = name
            && !kids(p).iter().any(|k| {
                matches!(
                    k.kind(),
                    "field_formal_parameter" | "super_formal_parameter"
                )
            })
        {
            let nm = self.t(nn).to_string();
            self.declare_local(
                &nm,
                Local {
                    ty: if fn_typed { None } else { ty },
                    ..Local::default()
                },
            );
        }
        if let Some(v) = p.child_by_field_name("default_value") {
            self.expr(v, Use::Value);
        }
        // Defaults of optional parameters sit beside the parameter.
    }

    // ------------------------------------------------------------------ types

    /// Reads a type and records a reference for every type name in it.
    fn ty(&mut self, n: Node, usage: Use) -> TypeRef {
        if !self.deeper() {
            return TypeRef::Unknown;
        }
        let r = self.ty_inner(n, usage);
        self.depth -= 1;
        r
    }

    fn ty_inner(&mut self, n: Node, usage: Use) -> TypeRef {
        match n.kind() {
            "type_identifier" => {
                let nm = self.t(n).to_string();
                if self.lookup_type_param(&nm) {
                    return TypeRef::Param;
                }
                self.push_ref(n, usage, Target::TypeName(None, nm.clone()));
                TypeRef::Named {
                    prefix: None,
                    name: nm,
                    args: Vec::new(),
                }
            }
            "type" => {
                let ks = kids(n);
                let ids: Vec<Node> = ks
                    .iter()
                    .copied()
                    .filter(|k| k.kind() == "type_identifier")
                    .collect();
                let mut args = Vec::new();
                let mut other = TypeRef::Unknown;
                for k in &ks {
                    match k.kind() {
                        "type_arguments" => {
                            for a in kids(*k) {
                                if a.kind() == "type" {
                                    args.push(self.ty(a, Use::Type));
                                }
                            }
                        }
                        "function_type" | "record_type" => {
                            self.walk_types(*k);
                            other = TypeRef::Unknown;
                        }
                        "type" => other = self.ty(*k, usage),
                        _ => {}
                    }
                }
                match ids.as_slice() {
                    [one] => {
                        let nm = self.t(*one).to_string();
                        if self.lookup_type_param(&nm) {
                            return TypeRef::Param;
                        }
                        if nm == "dynamic" {
                            return TypeRef::Unknown;
                        }
                        self.push_ref(*one, usage, Target::TypeName(None, nm.clone()));
                        TypeRef::Named {
                            prefix: None,
                            name: nm,
                            args,
                        }
                    }
                    [p, c, ..] => {
                        let (pn, cn) = (self.t(*p).to_string(), self.t(*c).to_string());
                        if usage == Use::Call {
                            // `new C.named()` is handled by the caller.
                        }
                        self.push_ref(*c, usage, Target::TypeName(Some(pn.clone()), cn.clone()));
                        TypeRef::Named {
                            prefix: Some(pn),
                            name: cn,
                            args,
                        }
                    }
                    [] => other,
                }
            }
            _ => {
                self.walk_types(n);
                TypeRef::Unknown
            }
        }
    }

    /// Type names inside function and record types.
    fn walk_types(&mut self, n: Node) {
        if !self.deeper() {
            return;
        }
        for k in kids(n) {
            match k.kind() {
                "type" | "type_identifier" => {
                    self.ty(k, Use::Type);
                }
                _ => self.walk_types(k),
            }
        }
        self.depth -= 1;
    }

    fn lookup_type_param(&self, name: &str) -> bool {
        for s in self.scopes.iter().rev() {
            if let Some(b) = s.get(name) {
                return matches!(b, Binding::TypeParam);
            }
        }
        false
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    // ------------------------------------------------------------------ descriptions

    fn name_expr(&self, name: &str) -> Expr {
        match self.lookup(name) {
            Some(Binding::Local(i)) => Expr::Local(*i),
            Some(Binding::TypeParam) => Expr::Unknown,
            None => Expr::Name(name.to_string(), self.ctx),
        }
    }

    /// What a value is, as far as its syntax tells.
    fn describe(&self, n: Node, depth: usize) -> Expr {
        if depth > MAX_EXPR {
            return Expr::Unknown;
        }
        match n.kind() {
            "identifier" | "identifier_dollar_escaped" => self.name_expr(self.t(n)),
            "this" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::This(c)),
            "super" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::Super(c)),
            "member_expression" | "null_aware_member_expression" => {
                let (Some(o), Some(p)) = (
                    n.child_by_field_name("object"),
                    n.child_by_field_name("property"),
                ) else {
                    return Expr::Unknown;
                };
                let obj = self.object(o, depth);
                Expr::Member(Box::new(obj), self.t(p).to_string())
            }
            "qualified_name" => {
                let ks = kids(n);
                let Some(first) = ks.first() else {
                    return Expr::Unknown;
                };
                if ks.len() > MAX_EXPR {
                    return Expr::Unknown;
                }
                let mut e = self.name_expr(self.t(*first));
                for k in &ks[1..] {
                    e = Expr::Member(Box::new(e), self.t(*k).to_string());
                }
                e
            }
            "call_expression" => match n.child_by_field_name("function") {
                Some(f) => Expr::Call(Box::new(self.describe(f, depth + 1))),
                None => Expr::Unknown,
            },
            "instantiation_expression" => match n.child_by_field_name("function") {
                Some(f) => self.describe(f, depth + 1),
                None => Expr::Unknown,
            },
            "parenthesized_expression" | "unary_expression" => match n.named_child(0) {
                Some(c) if n.named_child_count() == 1 => self.describe(c, depth + 1),
                _ => Expr::Unknown,
            },
            "null_assertion_expression" => match n.child_by_field_name("value") {
                Some(c) => self.describe(c, depth + 1),
                None => Expr::Unknown,
            },
            "await_expression" => match n.named_child(0) {
                Some(c) => Expr::Await(Box::new(self.describe(c, depth + 1))),
                None => Expr::Unknown,
            },
            "type_cast_expression" => {
                match child_of_kind(n, "type_cast").and_then(|c| child_of_kind(c, "type")) {
                    Some(t) => Expr::Cast(self.quiet_ty(t)),
                    None => Expr::Unknown,
                }
            }
            "index_expression" => match n.child_by_field_name("object") {
                Some(o) => Expr::Elem(Box::new(self.describe(o, depth + 1))),
                None => Expr::Unknown,
            },
            "cascade" => match n.named_child(0) {
                Some(c) => self.describe(c, depth + 1),
                None => Expr::Unknown,
            },
            "new_expression" | "const_object_expression" => match n.child_by_field_name("type") {
                Some(t) => {
                    let (ty, _) = self.ctor_type(t);
                    Expr::New(ty)
                }
                None => Expr::Unknown,
            },
            "constructor_invocation" => match n.child_by_field_name("type") {
                Some(t) => Expr::New(TypeRef::Named {
                    prefix: None,
                    name: self.t(t).to_string(),
                    args: Vec::new(),
                }),
                None => Expr::Unknown,
            },
            "string_literal" => Expr::Core("String"),
            "decimal_integer_literal" | "hex_integer_literal" => Expr::Core("int"),
            "decimal_floating_point_literal" => Expr::Core("double"),
            "true"
            | "false"
            | "equality_expression"
            | "relational_expression"
            | "logical_and_expression"
            | "logical_or_expression"
            | "type_test_expression" => Expr::Core("bool"),
            "list_literal" => Expr::Core("List"),
            "set_or_map_literal" => Expr::Core("Map"),
            "symbol_literal" => Expr::Core("Symbol"),
            _ => Expr::Unknown,
        }
    }

    fn object(&self, o: Node, depth: usize) -> Expr {
        if !o.is_named() {
            return match o.kind() {
                "this" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::This(c)),
                "super" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::Super(c)),
                _ => Expr::Unknown,
            };
        }
        self.describe(o, depth + 1)
    }

    /// A type read without recording references (descriptions only).
    fn quiet_ty(&self, n: Node) -> TypeRef {
        self.quiet_ty_at(n, 0)
    }

    fn quiet_ty_at(&self, n: Node, depth: usize) -> TypeRef {
        if depth > MAX_EXPR {
            return TypeRef::Unknown;
        }
        let ids: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| k.kind() == "type_identifier")
            .collect();
        let args: Vec<TypeRef> = kids(n)
            .into_iter()
            .filter(|k| k.kind() == "type_arguments")
            .flat_map(kids)
            .filter(|a| a.kind() == "type")
            .map(|a| self.quiet_ty_at(a, depth + 1))
            .collect();
        let named = |prefix: Option<String>, name: String| {
            if prefix.is_none() && (self.lookup_type_param(&name) || name == "dynamic") {
                TypeRef::Param
            } else {
                TypeRef::Named { prefix, name, args }
            }
        };
        match (n.kind(), ids.as_slice()) {
            ("type_identifier", _) => named(None, self.t(n).to_string()),
            (_, [one]) => named(None, self.t(*one).to_string()),
            (_, [p, c, ..]) => named(Some(self.t(*p).to_string()), self.t(*c).to_string()),
            _ => TypeRef::Unknown,
        }
    }

    /// The type of `new`/`const`: `C`, `p.C`, `C.named`, `p.C.named`. Whether the first name
    /// is a prefix is for phase 2 to tell when there are two names; this reads `A.B` as a
    /// class and constructor unless `A` is written lower-case-first (a prefix by convention
    /// is not trusted): both readings are kept in the target.
    fn ctor_type(&self, t: Node) -> (TypeRef, Vec<Node<'_>>) {
        let ids: Vec<Node> = kids(t)
            .into_iter()
            .filter(|k| k.kind() == "type_identifier")
            .collect();
        let base = self.quiet_ty(t);
        let _ = &ids;
        (base, Vec::new())
    }

    // ------------------------------------------------------------------ walking

    fn stmt(&mut self, n: Node) {
        if !self.deeper() {
            return;
        }
        self.stmt_inner(n);
        self.depth -= 1;
    }

    fn stmt_inner(&mut self, n: Node) {
        match n.kind() {
            "block" | "function_body" | "switch_block" => {
                self.scopes.push(HashMap::new());
                for k in kids(n) {
                    self.stmt(k);
                }
                self.scopes.pop();
            }
            "local_variable_declaration" => {
                for k in kids(n) {
                    match k.kind() {
                        "initialized_variable_declaration" => self.local_vars(k),
                        "pattern_variable_declaration" => {
                            if let Some(v) = kids(k).into_iter().last() {
                                self.expr(v, Use::Value);
                            }
                            for p in kids(k) {
                                if is_pattern(p.kind()) {
                                    self.pattern(p);
                                }
                            }
                        }
                        _ => self.stmt(k),
                    }
                }
            }
            "local_function_declaration" => {
                let sig = child_of_kind(n, "function_signature");
                let Some(sig) = sig else { return };
                let ret = sig
                    .child_by_field_name("return_type")
                    .map(|t| self.quiet_ty(t));
                if let Some(nn) = sig.child_by_field_name("name") {
                    let nm = self.t(nn).to_string();
                    self.declare_local(
                        &nm,
                        Local {
                            ret,
                            func: true,
                            ..Local::default()
                        },
                    );
                }
                self.local_function(sig, child_of_kind(n, "function_body"));
            }
            "for_statement" => {
                self.scopes.push(HashMap::new());
                self.for_parts(n);
                self.scopes.pop();
            }
            "try_statement" => {
                let mut on_ty: Option<TypeRef> = None;
                let mut in_catch = false;
                for k in kids(n) {
                    match k.kind() {
                        "type" => on_ty = Some(self.ty(k, Use::Type)),
                        "catch_clause" => {
                            self.scopes.push(HashMap::new());
                            in_catch = true;
                            if let Some(e) = k.child_by_field_name("exception") {
                                let nm = self.t(e).to_string();
                                self.declare_local(
                                    &nm,
                                    Local {
                                        ty: on_ty.take(),
                                        ..Local::default()
                                    },
                                );
                            }
                            if let Some(s) = k.child_by_field_name("stack_trace") {
                                let nm = self.t(s).to_string();
                                self.declare_local(&nm, Local::default());
                            }
                        }
                        "block" => {
                            on_ty = None;
                            self.stmt(k);
                            if in_catch {
                                self.scopes.pop();
                                in_catch = false;
                            }
                        }
                        _ => self.stmt(k),
                    }
                }
                if in_catch {
                    self.scopes.pop();
                }
            }
            "if_statement" | "if_element" => {
                let ks = kids(n);
                let has_case = ks.iter().any(|k| is_pattern(k.kind()));
                if has_case {
                    self.scopes.push(HashMap::new());
                    let mut cons_done = false;
                    for k in ks {
                        if is_pattern(k.kind()) {
                            self.pattern(k);
                        } else if Some(k) == n.child_by_field_name("consequence") {
                            self.stmt(k);
                            self.scopes.pop();
                            cons_done = true;
                        } else {
                            self.stmt(k);
                        }
                    }
                    if !cons_done {
                        self.scopes.pop();
                    }
                } else {
                    for k in ks {
                        self.stmt(k);
                    }
                }
            }
            "switch_statement_case" | "switch_expression_case" | "switch_statement_default" => {
                self.scopes.push(HashMap::new());
                for k in kids(n) {
                    if is_pattern(k.kind()) {
                        self.pattern(k);
                    } else {
                        self.stmt(k);
                    }
                }
                self.scopes.pop();
            }
            "for_element" => {
                self.scopes.push(HashMap::new());
                self.for_parts(n);
                self.scopes.pop();
            }
            "expression_statement"
            | "function_expression_body"
            | "return_statement"
            | "yield_statement"
            | "yield_each_statement"
            | "assert_statement"
            | "assertion"
            | "while_statement"
            | "do_statement"
            | "labeled_statement"
            | "switch_statement" => {
                for k in kids(n) {
                    self.stmt(k);
                }
            }
            "parenthesized_expression" => {
                for k in kids(n) {
                    self.expr(k, Use::Value);
                }
            }
            "break_statement"
            | "continue_statement"
            | "label"
            | "comment"
            | "documentation_comment"
            | "block_comment"
            | "empty_statement"
            | "rethrow_statement" => {}
            _ => self.expr(n, Use::Value),
        }
    }

    fn for_parts(&mut self, n: Node) {
        let ks = kids(n);
        let value = n.child_by_field_name("value");
        let name = n.child_by_field_name("name");
        if let (Some(v), Some(nm)) = (value, name) {
            // `for (T x in xs)`.
            let ty = ks
                .iter()
                .find(|k| k.kind() == "type")
                .map(|t| self.ty(*t, Use::Type));
            self.expr(v, Use::Value);
            let elem = Expr::Elem(Box::new(self.describe(v, 0)));
            let nm = self.t(nm).to_string();
            self.declare_local(
                &nm,
                Local {
                    value: if ty.is_none() { Some(elem) } else { None },
                    ty,
                    ..Local::default()
                },
            );
            if let Some(b) = n.child_by_field_name("body") {
                self.stmt(b);
            }
            return;
        }
        for k in ks {
            if Some(k) == value {
                continue;
            }
            if is_pattern(k.kind()) {
                if let Some(v) = value {
                    self.expr(v, Use::Value);
                }
                self.pattern(k);
                continue;
            }
            if k.kind() == "initialized_variable_declaration" {
                self.local_vars(k);
                continue;
            }
            self.stmt(k);
        }
    }

    fn local_vars(&mut self, k: Node) {
        let ty = kids(k)
            .into_iter()
            .find(|x| x.kind() == "type")
            .map(|t| self.ty(t, Use::Type));
        let mut items: Vec<(Node, Option<Node>)> = Vec::new();
        if let Some(nn) = k.child_by_field_name("name") {
            items.push((nn, k.child_by_field_name("value")));
        }
        for x in kids(k) {
            if x.kind() == "initialized_identifier"
                && let Some(nn) = x.child_by_field_name("name")
            {
                items.push((nn, x.child_by_field_name("value")));
            }
        }
        for (nn, v) in items {
            let value = v.map(|v| {
                self.expr(v, Use::Value);
                self.describe(v, 0)
            });
            let nm = self.t(nn).to_string();
            self.declare_local(
                &nm,
                Local {
                    ty: ty.clone(),
                    value: if ty.is_none() { value } else { None },
                    ..Local::default()
                },
            );
        }
    }

    fn local_function(&mut self, sig: Node, body: Option<Node>) {
        self.scopes.push(HashMap::new());
        for k in kids(sig) {
            match k.kind() {
                "type_parameters" => self.type_params(k),
                "formal_parameter_list" => self.params(k),
                _ => {}
            }
        }
        if let Some(rt) = sig.child_by_field_name("return_type") {
            self.ty(rt, Use::Type);
        }
        if let Some(b) = body {
            self.stmt(b);
        }
        self.scopes.pop();
    }

    /// Declares the variables a pattern binds and records its type and constant references.
    fn pattern(&mut self, p: Node) {
        if !self.deeper() {
            return;
        }
        match p.kind() {
            "variable_pattern" => {
                let ty = kids(p)
                    .into_iter()
                    .find(|k| k.kind() == "type")
                    .map(|t| self.ty(t, Use::Type));
                if let Some(nn) = p.child_by_field_name("name") {
                    let nm = self.t(nn).to_string();
                    if nm != "_" {
                        self.declare_local(
                            &nm,
                            Local {
                                ty,
                                ..Local::default()
                            },
                        );
                    }
                }
            }
            "constant_pattern" => {
                let ks = kids(p);
                if ks.len() >= 2
                    && ks
                        .iter()
                        .all(|k| matches!(k.kind(), "identifier" | "type_identifier"))
                {
                    self.chain(&ks, Use::Value);
                    self.depth -= 1;
                    return;
                }
                for k in ks {
                    if !(k.kind() == "identifier" && self.t(k) == "_") {
                        self.expr(k, Use::Value);
                    }
                }
            }
            "object_pattern" => {
                // `p.C(name: pattern, :var name)`: the type, then a getter per field.
                let ids: Vec<Node> = kids(p)
                    .into_iter()
                    .filter(|k| k.kind() == "type_identifier")
                    .collect();
                let tref = match ids.as_slice() {
                    [c] => Some((None, *c)),
                    [pre, c, ..] => Some((Some(self.t(*pre).to_string()), *c)),
                    [] => None,
                };
                let recv = match tref {
                    Some((prefix, c)) => {
                        let name = self.t(c).to_string();
                        if prefix.is_none() && self.lookup_type_param(&name) {
                            Expr::Unknown
                        } else {
                            self.push_ref(
                                c,
                                Use::Type,
                                Target::TypeName(prefix.clone(), name.clone()),
                            );
                            Expr::Cast(TypeRef::Named {
                                prefix,
                                name,
                                args: Vec::new(),
                            })
                        }
                    }
                    None => Expr::Unknown,
                };
                let mut c = p.walk();
                let all: Vec<Node> = p.children(&mut c).collect();
                let mut field: Option<Node> = None;
                let mut colon = false;
                for k in all {
                    match k.kind() {
                        "type_identifier" | "type_arguments" => {}
                        "label" => field = kids(k).into_iter().find(|x| x.kind() == "identifier"),
                        ":" => colon = true,
                        x if is_pattern(x) => {
                            let at = match (field.take(), colon) {
                                (Some(f), _) => Some(f),
                                (None, true) => {
                                    if k.kind() == "variable_pattern" {
                                        k.child_by_field_name("name")
                                    } else {
                                        kids(k)
                                            .into_iter()
                                            .find(|v| v.kind() == "variable_pattern")
                                            .and_then(|v| v.child_by_field_name("name"))
                                    }
                                }
                                _ => None,
                            };
                            colon = false;
                            if let Some(at) = at {
                                let nm = self.t(at).to_string();
                                self.push_ref(at, Use::Value, Target::Member(recv.clone(), nm));
                            }
                            self.pattern(k);
                        }
                        _ => {}
                    }
                }
            }
            "cast_pattern" => {
                for k in kids(p) {
                    match k.kind() {
                        "type" => {
                            self.ty(k, Use::Type);
                        }
                        _ => self.pattern(k),
                    }
                }
            }
            _ => {
                for k in kids(p) {
                    match k.kind() {
                        "type" => {
                            self.ty(k, Use::Type);
                        }
                        "label" => {}
                        "identifier" if p.kind() == "map_pattern" => self.expr(k, Use::Value),
                        x if is_pattern(x) => self.pattern(k),
                        _ => self.expr(k, Use::Value),
                    }
                }
            }
        }
        self.depth -= 1;
    }

    fn arguments(&mut self, a: Node) {
        for k in kids(a) {
            match k.kind() {
                "named_argument" => {
                    for v in kids(k) {
                        if v.kind() != "label" {
                            self.expr(v, Use::Argument);
                        }
                    }
                }
                "annotation_open_paren" => {}
                _ => self.expr(k, Use::Argument),
            }
        }
    }

    /// Walks an expression; `usage` is how the expression itself is used when it is a name or
    /// a member.
    fn expr(&mut self, n: Node, usage: Use) {
        if !self.deeper() {
            return;
        }
        self.expr_inner(n, usage);
        self.depth -= 1;
    }

    fn expr_inner(&mut self, n: Node, usage: Use) {
        match n.kind() {
            "identifier" | "identifier_dollar_escaped" => {
                let nm = self.t(n);
                if let Expr::Name(name, ctx) = self.name_expr(nm) {
                    self.push_ref(n, usage, Target::Name(name, ctx));
                }
            }
            "member_expression" | "null_aware_member_expression" => {
                let (Some(o), Some(p)) = (
                    n.child_by_field_name("object"),
                    n.child_by_field_name("property"),
                ) else {
                    return;
                };
                let obj = self.object(o, 0);
                if o.is_named() {
                    self.expr(o, Use::Value);
                }
                let nm = self.t(p).to_string();
                self.push_ref(p, usage, Target::Member(obj, nm));
            }
            "call_expression" => {
                if let Some(f) = n.child_by_field_name("function") {
                    self.expr(f, Use::Call);
                }
                if let Some(a) = n.child_by_field_name("arguments") {
                    self.arguments(a);
                }
            }
            "instantiation_expression" => {
                if let Some(f) = n.child_by_field_name("function") {
                    self.expr(f, usage);
                }
                for k in kids(n) {
                    if k.kind() == "type_arguments" {
                        self.walk_types(k);
                    }
                }
            }
            "assignable_expression" => {
                let o = n.child_by_field_name("object");
                let p = n.child_by_field_name("property");
                match (o, p) {
                    (Some(o), Some(p)) => {
                        let obj = self.object(o, 0);
                        if o.is_named() {
                            self.expr(o, Use::Value);
                        }
                        let nm = self.t(p).to_string();
                        self.push_ref(p, Use::Write, Target::Member(obj, nm));
                    }
                    _ => {
                        for k in kids(n) {
                            self.expr(k, Use::Write);
                        }
                    }
                }
            }
            "assignment_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.expr(l, Use::Write);
                }
                if let Some(r) = n.child_by_field_name("right") {
                    self.expr(r, Use::Value);
                }
            }
            "cascade" => {
                let ks = kids(n);
                let Some(first) = ks.first() else { return };
                self.expr(*first, Use::Value);
                let recv = self.describe(*first, 0);
                for s in ks.iter().skip(1) {
                    if s.kind() == "cascade_section" {
                        self.cascade_section(*s, &recv);
                    }
                }
            }
            "new_expression" | "const_object_expression" => {
                if let Some(t) = n.child_by_field_name("type") {
                    self.ctor_ref(t, None, Use::Call);
                }
                for k in kids(n) {
                    if k.kind() == "arguments" {
                        self.arguments(k);
                    }
                }
            }
            "constructor_invocation" => {
                if let (Some(t), Some(c)) = (
                    n.child_by_field_name("type"),
                    n.child_by_field_name("constructor"),
                ) {
                    let nm = self.t(t).to_string();
                    self.push_ref(t, Use::Value, Target::TypeName(None, nm.clone()));
                    let cn = self.t(c).to_string();
                    self.push_ref(
                        c,
                        Use::Call,
                        Target::Ctor(
                            TypeRef::Named {
                                prefix: None,
                                name: nm,
                                args: Vec::new(),
                            },
                            Some(cn),
                        ),
                    );
                }
                for k in kids(n) {
                    match k.kind() {
                        "type_arguments" => self.walk_types(k),
                        "arguments" => self.arguments(k),
                        _ => {}
                    }
                }
            }
            "constructor_tearoff" => {
                let ids: Vec<Node> = kids(n)
                    .into_iter()
                    .filter(|k| matches!(k.kind(), "type_identifier" | "identifier"))
                    .collect();
                let ctor = if has_token(n, "new") {
                    None
                } else {
                    ids.last().map(|k| self.t(*k).to_string())
                };
                let cls_nodes: Vec<Node> = if ctor.is_some() {
                    ids[..ids.len().saturating_sub(1)].to_vec()
                } else {
                    ids.clone()
                };
                let t = match cls_nodes.as_slice() {
                    [c] => Some((None, *c)),
                    [p, c, ..] => Some((Some(self.t(*p).to_string()), *c)),
                    [] => None,
                };
                if let Some((prefix, c)) = t {
                    let nm = self.t(c).to_string();
                    let at = ids.last().copied().unwrap_or(c);
                    self.push_ref(
                        at,
                        usage,
                        Target::Ctor(
                            TypeRef::Named {
                                prefix,
                                name: nm,
                                args: Vec::new(),
                            },
                            ctor,
                        ),
                    );
                }
            }
            "type_cast_expression" | "type_test_expression" => {
                for k in kids(n) {
                    match k.kind() {
                        "type_cast" | "type_test" => {
                            for t in kids(k) {
                                if t.kind() == "type" {
                                    self.ty(t, Use::Type);
                                }
                            }
                        }
                        _ => self.expr(k, Use::Value),
                    }
                }
            }
            "function_expression" => {
                let saved = std::mem::take(&mut self.scopes);
                self.scopes = saved;
                self.scopes.push(HashMap::new());
                for k in kids(n) {
                    match k.kind() {
                        "formal_parameter_list" => self.params(k),
                        "type_parameters" => self.type_params(k),
                        "function_expression_body" | "function_body" | "block" => self.stmt(k),
                        _ => {}
                    }
                }
                self.scopes.pop();
            }
            "parenthesized_expression" | "null_assertion_expression" => {
                for k in kids(n) {
                    self.expr(k, usage);
                }
            }
            "type" | "type_identifier" => {
                self.ty(n, Use::Type);
            }
            "type_arguments" => self.walk_types(n),
            "additive_expression"
            | "multiplicative_expression"
            | "shift_expression"
            | "bitwise_and_expression"
            | "bitwise_or_expression"
            | "bitwise_xor_expression"
            | "relational_expression" => {
                let ks = kids(n);
                if ks.len() == 3 {
                    let op = self.t(ks[1]).split_whitespace().collect::<String>();
                    let recv = self.describe(ks[0], 0);
                    self.push_ref(
                        ks[1],
                        Use::Operator,
                        Target::Member(recv, format!("operator{op}")),
                    );
                }
                for k in ks {
                    self.expr(k, Use::Value);
                }
            }
            "index_expression" => {
                if let Some(o) = n.child_by_field_name("object") {
                    let recv = self.describe(o, 0);
                    let at = kids(n)
                        .into_iter()
                        .find(|k| Some(*k) == n.child_by_field_name("index"))
                        .unwrap_or(n);
                    let _ = at;
                    let mut c = n.walk();
                    let bracket = n.children(&mut c).find(|k| k.kind() == "[");
                    self.push_ref(
                        bracket.unwrap_or(n),
                        Use::Operator,
                        Target::Member(recv, "operator[]".into()),
                    );
                }
                for k in kids(n) {
                    self.expr(k, Use::Value);
                }
            }
            "qualified_name" => {
                let ks = kids(n);
                self.chain(&ks, usage);
            }
            "label" | "static_member_shorthand" => {}
            "switch_expression" => {
                for k in kids(n) {
                    self.stmt(k);
                }
            }
            "function_expression_body"
            | "block"
            | "function_body"
            | "if_element"
            | "for_element"
            | "switch_expression_case" => self.stmt(n),
            "annotation" => self.annotation(n),
            "arguments" => self.arguments(n),
            "ERROR" => {}
            _ => {
                for k in kids(n) {
                    self.expr(k, Use::Value);
                }
            }
        }
    }

    /// `a.b.c` written as a list of names: the first bound by scope, each next a member.
    fn chain(&mut self, ks: &[Node], usage: Use) {
        if let Some(first) = ks.first()
            && let Expr::Name(name, ctx) = self.name_expr(self.t(*first))
        {
            self.push_ref(*first, Use::Value, Target::Name(name, ctx));
        }
        let mut e = ks
            .first()
            .map_or(Expr::Unknown, |f| self.name_expr(self.t(*f)));
        for (i, k) in ks.iter().enumerate().skip(1) {
            let nm = self.t(*k).to_string();
            let u = if i + 1 == ks.len() { usage } else { Use::Value };
            self.push_ref(*k, u, Target::Member(e.clone(), nm.clone()));
            e = if i < MAX_EXPR {
                Expr::Member(Box::new(e), nm)
            } else {
                Expr::Unknown
            };
        }
    }

    fn cascade_section(&mut self, s: Node, recv: &Expr) {
        let mut cur = recv.clone();
        for k in kids(s) {
            match k.kind() {
                "cascade_call_expression" => {
                    let mut target = cur.clone();
                    if let Some(f) = k.child_by_field_name("function") {
                        // `..a.b()`: the selector, then the call of its member.
                        target = self.cascade_member(f, &cur);
                    } else if let Some(p) = k.child_by_field_name("property") {
                        let nm = self.t(p).to_string();
                        self.push_ref(p, Use::Call, Target::Member(cur.clone(), nm.clone()));
                        target = Expr::Call(Box::new(Expr::Member(Box::new(cur.clone()), nm)));
                    }
                    for a in kids(k) {
                        if a.kind() == "arguments" {
                            self.arguments(a);
                        }
                    }
                    cur = target;
                }
                "cascade_member_expression" | "cascade_null_aware_member_expression" => {
                    cur = self.cascade_member(k, &cur);
                }
                "cascade_selector" => {
                    for id in kids(k) {
                        if id.kind() == "identifier" {
                            let nm = self.t(id).to_string();
                            self.push_ref(id, Use::Write, Target::Member(cur.clone(), nm.clone()));
                            cur = Expr::Member(Box::new(cur.clone()), nm);
                        } else {
                            self.expr(id, Use::Value);
                        }
                    }
                }
                _ => self.expr(k, Use::Value),
            }
        }
    }

    /// `..a.b` inside a cascade: `a` on the cascade's receiver, then `b` on that.
    fn cascade_member(&mut self, k: Node, cur: &Expr) -> Expr {
        let mut base = cur.clone();
        if let Some(o) = k.child_by_field_name("object") {
            for id in kids(o) {
                if id.kind() == "identifier" {
                    let nm = self.t(id).to_string();
                    self.push_ref(id, Use::Value, Target::Member(base.clone(), nm.clone()));
                    base = Expr::Member(Box::new(base), nm);
                }
            }
        }
        if let Some(p) = k.child_by_field_name("property") {
            let nm = self.t(p).to_string();
            let parent_call = k
                .parent()
                .is_some_and(|x| x.kind() == "cascade_call_expression");
            let usage = if parent_call { Use::Call } else { Use::Value };
            self.push_ref(p, usage, Target::Member(base.clone(), nm.clone()));
            base = Expr::Member(Box::new(base), nm);
            if parent_call {
                base = Expr::Call(Box::new(base));
            }
        }
        base
    }

    /// `new C()`, `const p.C.named()`: a reference to the constructor, and to the class as a
    /// type.
    fn ctor_ref(&mut self, t: Node, _ctor: Option<String>, usage: Use) {
        let ids: Vec<Node> = kids(t)
            .into_iter()
            .filter(|k| k.kind() == "type_identifier")
            .collect();
        for k in kids(t) {
            if k.kind() == "type_arguments" {
                self.walk_types(k);
            }
        }
        let nodes: Vec<(Option<String>, String, Option<String>, Node)> = match ids.as_slice() {
            [c] => vec![(None, self.t(*c).to_string(), None, *c)],
            [a, b] => vec![
                // `C.named` or `p.C`: phase 2 tells them apart.
                (
                    None,
                    self.t(*a).to_string(),
                    Some(self.t(*b).to_string()),
                    *b,
                ),
            ],
            [p, c, n, ..] => vec![(
                Some(self.t(*p).to_string()),
                self.t(*c).to_string(),
                Some(self.t(*n).to_string()),
                *n,
            )],
            [] => Vec::new(),
        };
        for (prefix, class, ctor, at) in nodes {
            self.push_ref(
                at,
                usage,
                Target::Ctor(
                    TypeRef::Named {
                        prefix,
                        name: class,
                        args: Vec::new(),
                    },
                    ctor,
                ),
            );
        }
    }
}

fn is_pattern(k: &str) -> bool {
    matches!(
        k,
        "variable_pattern"
            | "list_pattern"
            | "map_pattern"
            | "record_pattern"
            | "object_pattern"
            | "constant_pattern"
            | "cast_pattern"
            | "null_check_pattern"
            | "null_assert_pattern"
            | "rest_pattern"
    )
}
