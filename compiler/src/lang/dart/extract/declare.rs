//! Directives and declarations: top-level declarations, class-like bodies, members,
//! parameters and initializer lists, each walked in its own scope.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl<'s> Extractor<'s> {
    pub(super) fn top_level(&mut self, root: Node, depth: usize) {
        for n in kids(root) {
            match n.kind_name() {
                "library_name" => {
                    self.annotations(n);
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
                    if let Some(u) = n.field("uri") {
                        self.directive(DirectiveKind::Part, u, n);
                    }
                }
                "import_or_export" => {
                    for k in kids(n) {
                        match k.kind_name() {
                            "library_import" => {
                                if let Some(spec) = child_of_kind(k, "import_specification")
                                    && let Some(u) = spec.field("uri")
                                {
                                    self.directive(DirectiveKind::Import, u, spec);
                                }
                            }
                            "library_export" => {
                                if let Some(u) = k.field("uri") {
                                    self.directive(DirectiveKind::Export, u, k);
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

    pub(super) fn directive(&mut self, kind: DirectiveKind, u: Node, spec: Node) {
        // A configurable URI: the default URI is the first `uri`.
        let uri_node = if u.kind_name() == "configurable_uri" {
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
            prefix: spec.field("alias").map(|a| self.t(a).to_string()),
            show: None,
            hide: Vec::new(),
        };
        for c in kids(spec) {
            if c.kind_name() != "combinator" {
                continue;
            }
            let names: Vec<Node> = kids(c)
                .into_iter()
                .filter(|k| k.kind_name() == "identifier")
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
                    usage: if kind == DirectiveKind::Export {
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

    pub(super) fn annotations(&mut self, n: Node) {
        for a in kids(n) {
            if a.kind_name() == "annotation" {
                self.annotation(a);
            }
        }
    }

    pub(super) fn annotation(&mut self, a: Node) {
        let args = kids(a)
            .into_iter()
            .find(|k| k.kind_name() == "annotation_arguments" || k.kind_name() == "arguments");
        if let Some(name) = a.field("name") {
            let e = self.describe(name, 0);
            let at = match name.kind_name() {
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

    pub(super) fn top_decl(&mut self, n: Node) {
        match n.kind_name() {
            "class_declaration" | "mixin_declaration" => self.class_like(n),
            "extension_declaration" => self.class_like(n),
            "extension_type_declaration" => self.class_like(n),
            "enum_declaration" => self.class_like(n),
            "type_alias" => {
                let Some(name) = kids(n)
                    .into_iter()
                    .find(|k| k.kind_name() == "type_identifier")
                else {
                    return;
                };
                let nm = self.t(name).to_string();
                let sig = signature(n, n.end_byte(), self.src);
                let d = self.new_decl(n, &nm, SymbolKind::TypeAlias, None, sig);
                let saved = self.from.replace(d);
                self.scopes.push(HashMap::default());
                self.annotations(n);
                for k in kids(n) {
                    match k.kind_name() {
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
                let sig = n.field("signature");
                self.top_level_function(n, sig, SymbolKind::Function);
            }
            "getter_declaration"
            | "setter_declaration"
            | "external_getter_declaration"
            | "external_setter_declaration" => {
                let sig = n
                    .field("signature")
                    .or_else(|| child_of_kind(n, "getter_signature"))
                    .or_else(|| child_of_kind(n, "setter_signature"));
                self.top_level_function(n, sig, SymbolKind::Property);
            }
            "top_level_variable_declaration" | "external_variable_declaration" => {
                let konst = has_token(n, "const");
                self.fields(n, None, konst, false);
            }
            _ => {}
        }
    }

    /// A top-level function, getter or setter whose signature is `sig`, and its body.
    fn top_level_function(&mut self, n: Node, sig: Option<Node>, kind: SymbolKind) {
        let Some(sig) = sig else {
            return;
        };
        let Some(name) = sig.field("name") else {
            return;
        };
        let nm = self.t(name).to_string();
        let s = signature(n, sig.end_byte(), self.src);
        let d = self.new_decl(n, &nm, kind, None, s);
        self.function(n, sig, n.field("body"), d);
    }

    /// Variables or fields: `T a = 1, b;`, `const x = 1;`.
    pub(super) fn fields(&mut self, n: Node, parent: Option<usize>, konst: bool, is_static: bool) {
        let saved = self.from;
        self.annotations(n);
        let ty = self.written_type(n);
        let kind = match (parent, konst) {
            (Some(_), _) => SymbolKind::Field,
            (None, true) => SymbolKind::Const,
            (None, false) => SymbolKind::Variable,
        };
        for list in kids(n) {
            if !matches!(
                list.kind_name(),
                "initialized_identifier_list" | "static_final_declaration_list"
            ) {
                continue;
            }
            for item in kids(list) {
                let Some(name) = item.field("name") else {
                    continue;
                };
                let nm = self.t(name).to_string();
                let d = self.new_decl(item, &nm, kind, parent, None);
                self.file.decls[d].ty = ty.clone();
                self.file.decls[d].is_static = is_static;
                if let Some(v) = item.field("value") {
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

    pub(super) fn type_params(&mut self, n: Node) {
        for p in kids(n) {
            if p.kind_name() == "type_parameter" {
                if let Some(name) = p.field("name") {
                    let nm = self.t(name).to_string();
                    if let Some(s) = self.scopes.last_mut() {
                        s.insert(nm, Binding::TypeParam);
                    }
                }
                for k in kids(p) {
                    if k.kind_name() == "type" {
                        self.ty(k, Use::Type);
                    }
                }
            }
        }
    }

    pub(super) fn class_like(&mut self, n: Node) {
        let kind = n.kind_name();
        let (name_node, display) = match kind {
            "extension_type_declaration" => {
                let nn = n.field("name").and_then(|e| kids(e).into_iter().next());
                (nn, None)
            }
            "extension_declaration" => {
                let nn = n.field("name");
                let d = if nn.is_none() {
                    Some(format!("extension@{}", n.start_position().row + 1))
                } else {
                    None
                };
                (nn, d)
            }
            "class_declaration" => {
                let nn = n.field("name").or_else(|| {
                    child_of_kind(n, "mixin_application_class")
                        .and_then(|m| child_of_kind(m, "identifier"))
                });
                (nn, None)
            }
            _ => (n.field("name"), None),
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
        let body = n.field("body").or_else(|| {
            kids(n)
                .into_iter()
                .find(|k| matches!(k.kind_name(), "class_body" | "enum_body" | "extension_body"))
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
        self.scopes.push(HashMap::default());
        self.annotations(n);
        for k in kids(n) {
            match k.kind_name() {
                "type_parameters" => self.type_params(k),
                "superclass" => self.supertypes(k, d),
                "mixins" => self.supers(k, d, SuperKind::With, Use::Extends),
                "interfaces" => self.supers(k, d, SuperKind::Implements, Use::Implements),
                "mixin_application_class" => {
                    for m in kids(k) {
                        if m.kind_name() == "mixin_application" {
                            self.supertypes(m, d);
                        }
                    }
                }
                // `on` types of a mixin; the extended type of an extension (`class:`).
                "type"
                    if kind == "extension_declaration"
                        || kind == "mixin_declaration"
                            && k.prev_sibling()
                                .is_some_and(|p| matches!(p.kind_name(), "on" | ",")) =>
                {
                    let t = self.ty(k, Use::Type);
                    self.file.decls[d].supers.push((SuperKind::On, t));
                }
                "extension_type_representation" => {
                    let ty = k.field("type").map(|t| self.ty(t, Use::Type));
                    if let Some(f) = k.field("name") {
                        let fnm = self.t(f).to_string();
                        let fd = self.new_decl(f, &fnm, SymbolKind::Field, Some(d), None);
                        self.file.decls[fd].ty = ty.clone();
                    }
                    // `extension type X.name(…)`: a named constructor of the representation.
                    let names: Vec<Node> = n.field("name").map(kids).unwrap_or_default();
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

    /// The supertypes of declaration `d` a superclass or mixin application clause writes: the
    /// extended type, the mixins and the interfaces.
    fn supertypes(&mut self, clause: Node, d: usize) {
        for s in kids(clause) {
            match s.kind_name() {
                "type" => {
                    let t = self.ty(s, Use::Extends);
                    self.file.decls[d].supers.push((SuperKind::Extends, t));
                }
                "mixins" => self.supers(s, d, SuperKind::With, Use::Extends),
                "interfaces" => self.supers(s, d, SuperKind::Implements, Use::Implements),
                _ => {}
            }
        }
    }

    pub(super) fn supers(&mut self, list: Node, d: usize, kind: SuperKind, usage: Use) {
        for s in kids(list) {
            if s.kind_name() == "type" {
                let t = self.ty(s, usage);
                self.file.decls[d].supers.push((kind, t));
            }
        }
    }

    pub(super) fn class_body(&mut self, body: Node, class: usize, class_name: &str) {
        for m in kids(body) {
            match m.kind_name() {
                "enum_entry" => {
                    let Some(name) = m.field("name") else {
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
                    if let Some(args) = ks.iter().find(|k| k.kind_name() == "arguments") {
                        let ctor = ks
                            .iter()
                            .filter(|k| k.kind_name() == "identifier")
                            .nth(1)
                            .map(|k| self.t(*k).to_string());
                        let at = ks
                            .iter()
                            .filter(|k| k.kind_name() == "identifier")
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
                        .filter(|k| k.kind_name() == "annotation")
                        .collect();
                    for k in kids(m) {
                        match k.kind_name() {
                            "declaration" | "method_declaration" => self.member(m, k, class),
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

    pub(super) fn member(&mut self, span: Node, n: Node, class: usize) {
        let holder = if n.kind_name() == "method_declaration" {
            n.field("signature").unwrap_or(n)
        } else {
            n
        };
        let is_static = has_token(holder, "static") || has_token(n, "static");
        let sig = kids(holder)
            .into_iter()
            .find(|k| SIGNATURES.contains(&k.kind_name()));
        let Some(sig) = sig else {
            // Fields.
            let konst = has_token(n, "const");
            let saved_ctx = self.ctx.replace((class, !is_static));
            self.fields(n, Some(class), konst, is_static);
            self.ctx = saved_ctx;
            return;
        };
        let sig_text = signature(n, sig.end_byte(), self.src);
        let mut at = sig;
        let (name, kind, ctor) = match sig.kind_name() {
            "function_signature" => {
                let Some(nn) = sig.field("name") else {
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
                let Some(nn) = sig.field("name") else {
                    return;
                };
                at = nn;
                (self.t(nn).to_string(), SymbolKind::Property, false)
            }
            "operator_signature" => {
                if let Some(o) = sig.field("operator") {
                    at = o;
                }
                let op = sig
                    .field("operator")
                    .map(|o| self.t(o).split_whitespace().collect::<String>())
                    .unwrap_or_default();
                (format!("operator{op}"), SymbolKind::Method, false)
            }
            _ => {
                // Constructors: `C`, `C.named`, `factory C.named`.
                let mut c = sig.walk();
                if let Some(first) = sig.field("name") {
                    at = first;
                }
                let names: Vec<String> = sig
                    .children_by_field_name("name", &mut c)
                    .filter(|k| k.kind_name() == "identifier")
                    .map(|k| self.t(k).to_string())
                    .collect();
                let nm = match names.get(1) {
                    Some(x) => x.clone(),
                    None => "new".to_string(),
                };
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
            sig.kind_name(),
            "factory_constructor_signature" | "redirecting_factory_constructor_signature"
        );
        let saved_ctx = self.ctx;
        self.ctx = Some((class, !(is_static || factory)));
        let body = n.field("body");
        self.function(n, sig, body, d);
        self.ctx = saved_ctx;
    }

    /// A function, method, getter, setter or constructor: annotations, type parameters,
    /// return type, parameters, initializers and body, in a scope of its own.
    pub(super) fn function(&mut self, n: Node, sig: Node, body: Option<Node>, d: usize) {
        let saved = self.from.replace(d);
        self.scopes.push(HashMap::default());
        self.annotations(n);
        for k in kids(sig) {
            if k.kind_name() == "type_parameters" {
                self.type_params(k);
            }
        }
        if let Some(rt) = sig.field("return_type") {
            let t = self.ty(rt, Use::Type);
            // A setter's `void` types nothing.
            if sig.kind_name() != "setter_signature" {
                self.file.decls[d].ty = Some(t);
            }
        }
        for k in kids(sig) {
            if k.kind_name() == "formal_parameter_list" {
                self.params(k);
            }
        }
        if let Some(p) = sig.field("parameters")
            && p.kind_name() != "formal_parameter_list"
        {
            self.params(p);
        }
        // Redirecting factories: `factory C.x() = D.y;`.
        if sig.kind_name() == "redirecting_factory_constructor_signature" {
            for k in kids(sig) {
                if k.kind_name() == "type" {
                    self.ty(k, Use::Call);
                }
            }
        }
        for k in kids(n) {
            match k.kind_name() {
                "initializers" => {
                    for e in kids(k) {
                        self.initializer(e);
                    }
                }
                "redirection" => self.delegation(k, Target::ThisCtor),
                _ => {}
            }
        }
        if let Some(b) = body {
            self.stmt(b);
        }
        self.scopes.pop();
        self.from = saved;
    }

    /// `: this.named(…)` (`Target::ThisCtor`) or `: super.named(…)` (`Target::SuperCtor`): a
    /// call of that constructor of the enclosing class, then its arguments.
    fn delegation(&mut self, n: Node, target: fn(usize, Option<String>) -> Target) {
        let name = child_of_kind(n, "identifier").map(|x| self.t(x).to_string());
        if let Some((c, _)) = self.ctx {
            self.push_ref(n, Use::Call, target(c, name));
        }
        for a in kids(n) {
            if a.kind_name() == "arguments" {
                self.arguments(a);
            }
        }
    }

    pub(super) fn initializer(&mut self, e: Node) {
        if e.kind_name() != "initializer_list_entry" {
            return;
        }
        if has_token(e, "super") {
            self.delegation(e, Target::SuperCtor);
            return;
        }
        for k in kids(e) {
            match k.kind_name() {
                "field_initializer" => {
                    if let Some(f) = k.field("name")
                        && let Some((c, _)) = self.ctx
                    {
                        let nm = self.t(f).to_string();
                        self.push_ref(f, Use::Write, Target::Member(Expr::This(c), nm));
                    }
                    if let Some(v) = k.field("value") {
                        self.expr(v, Use::Value);
                    }
                }
                _ => self.expr(k, Use::Value),
            }
        }
    }

    pub(super) fn params(&mut self, list: Node) {
        for p in kids(list) {
            match p.kind_name() {
                "formal_parameter" => self.param(p),
                "optional_formal_parameters" => self.params(p),
                // Defaults of optional parameters sit beside the parameter.
                _ if list.kind_name() == "optional_formal_parameters" => self.expr(p, Use::Value),
                _ => {}
            }
        }
    }

    /// An initializing formal `this.x` (`Expr::This`) or a super parameter `super.x`
    /// (`Expr::Super`): a reference to the member `x` of the class or its superclass, and a
    /// local of the written type, or else of that member's value.
    fn forwarding_formal(&mut self, k: Node, usage: Use, of: fn(usize) -> Expr) {
        let ty = self.written_type(k);
        let Some(nn) = k.field("name") else {
            return;
        };
        let nm = self.t(nn).to_string();
        let value = self.ctx.map(|(c, _)| {
            self.push_ref(nn, usage, Target::Member(of(c), nm.clone()));
            Expr::Member(Box::new(of(c)), nm.clone())
        });
        let value = if ty.is_none() { value } else { None };
        self.declare_local(
            &nm,
            Local {
                ty,
                value,
                ..Local::default()
            },
        );
    }

    pub(super) fn param(&mut self, p: Node) {
        self.annotations(p);
        for k in kids(p) {
            match k.kind_name() {
                "field_formal_parameter" => {
                    self.forwarding_formal(k, Use::Write, Expr::This);
                    if let Some(fp) = child_of_kind(k, "formal_parameter_list") {
                        self.scopes.push(HashMap::default());
                        self.params(fp);
                        self.scopes.pop();
                    }
                }
                "super_formal_parameter" => {
                    self.forwarding_formal(k, Use::SuperFormal, Expr::Super)
                }
                _ => {}
            }
        }
        let mut ty = None;
        let mut fn_typed = false;
        for k in kids(p) {
            match k.kind_name() {
                "type" => ty = Some(self.ty(k, Use::Type)),
                "formal_parameter_list" => {
                    fn_typed = true;
                    self.scopes.push(HashMap::default());
                    self.params(k);
                    self.scopes.pop();
                }
                _ => {}
            }
        }
        let name = p
            .field("name")
            .or_else(|| kids(p).into_iter().rfind(|k| k.kind_name() == "identifier"));
        if let Some(nn) = name
            && !kids(p).iter().any(|k| {
                matches!(
                    k.kind_name(),
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
        if let Some(v) = p.field("default_value") {
            self.expr(v, Use::Value);
        }
        // Defaults of optional parameters sit beside the parameter.
    }
}
