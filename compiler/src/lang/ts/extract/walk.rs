//! The walk: every statement and expression with its lexical scopes, recording references.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

/// Nodes that bind and name nothing.
const LEAVES: &[&str] = &[
    "comment",
    "string",
    "number",
    "regex",
    "true",
    "false",
    "null",
    "undefined",
    "hash_bang_line",
    "html_comment",
    "statement_identifier",
    "predefined_type",
    "literal_type",
    "this_type",
    "property_identifier",
    "private_property_identifier",
    "import",
];

impl Extractor<'_> {
    /// Parameters, then the body, in a new function scope.
    pub(super) fn walk_function(&mut self, n: Node, this_class: Option<Option<usize>>) {
        let decl = self.decl_of(n);
        self.scopes.push(Scope::default());
        // A named function expression's name is visible inside it, and only there.
        if decl.is_none()
            && matches!(
                n.kind_name(),
                "function_expression" | "function" | "generator_function"
            )
            && let Some(name) = n.field("name")
        {
            let l = self.new_local(None, None);
            let nm = self.t(name).to_string();
            self.bind(&nm, NameRes::Local(l));
        }
        let saved_this = self.this_class;
        let saved_this_type = self.this_type.take();
        if let Some(t) = this_class {
            self.this_class = Some(t);
            // A plain function's `this:` parameter types `this` in it.
            self.this_type = self.this_param_type(n);
        } else {
            // An arrow function's `this` is its enclosing function's.
            self.this_type = saved_this_type.clone();
        }
        let callback = self.callback.take();
        self.with_owner(decl, |x| {
            let tps = x.bind_type_params(n);
            let params = x.walk_params(n, callback.as_ref());
            let mut ret = x.walk_written(n, "return_type");
            // A type predicate names a parameter: its position.
            if let Some(TypeRef::Predicate(i, _, name)) = &mut ret {
                *i = param_names(n, x.src)
                    .iter()
                    .position(|p| p == name)
                    .unwrap_or(usize::MAX);
            }
            let ret_ctx = ret.clone().or_else(|| match &callback {
                Some(Context::Typed(t)) => Some(TypeRef::Ret(Box::new(t.clone()))),
                _ => None,
            });
            let saved_ret = std::mem::replace(&mut x.ret_ctx, ret_ctx);
            if let Some(d) = decl {
                let dd = &mut x.file.decls[d];
                if dd.ret.is_none() {
                    dd.ret = ret;
                }
                if dd.params.is_empty() {
                    dd.params = params;
                }
                if dd.type_params.is_empty() {
                    dd.type_params = tps;
                }
            }
            if let Some(body) = n.field("body") {
                if body.kind_name() == "statement_block" {
                    x.hoist(body, true);
                    x.walk_children(body);
                } else {
                    x.walk_returned(body);
                }
                // Without a declared return type, the one value it returns.
                if let Some(d) = decl
                    && x.file.decls[d].ret.is_none()
                {
                    let returned = if body.kind_name() == "statement_block" {
                        single_return(body)
                    } else {
                        Some(body)
                    };
                    // An object or array literal's members are not followed: not a type.
                    x.file.decls[d].returns = returned
                        .filter(|v| !object_or_array(*v))
                        .map(|v| x.expr_of(v));
                }
            }
            x.ret_ctx = saved_ret;
        });
        self.this_class = saved_this;
        self.this_type = saved_this_type;
        self.scopes.pop();
    }

    /// The written type of the `this:` parameter of function `n`.
    fn this_param_type(&self, n: Node) -> Option<TypeRef> {
        let params = n.field("parameters")?;
        let mut c = params.walk();
        let p = params
            .named_children(&mut c)
            .find(|p| p.field("pattern").is_some_and(|x| x.kind_name() == "this"))?;
        Some(self.type_ref(p.field("type")?))
    }

    /// Walks the type written in `field` of `n` (a return type, an annotation); returns its
    /// description.
    fn walk_written(&mut self, n: Node, field: &str) -> Option<TypeRef> {
        let t = n.field(field)?;
        self.walk(t);
        Some(self.type_ref(t))
    }

    /// Binds and walks the parameters of a function-like node; returns their written types.
    pub(super) fn walk_params(
        &mut self,
        n: Node,
        callback: Option<&Context>,
    ) -> Vec<Option<TypeRef>> {
        let mut out = Vec::new();
        let ctx = |param: usize| {
            callback.map(|c| match c {
                Context::Argument(callee, arg, call) => Expr::CallbackParam {
                    callee: Box::new(callee.clone()),
                    arg: *arg,
                    param,
                    call: Box::new(call.clone()),
                },
                Context::Typed(t) => Expr::ContextParam {
                    ty: t.clone(),
                    param,
                },
                Context::Assigned(target) => Expr::AssignedParam {
                    target: Box::new(target.clone()),
                    param,
                },
            })
        };
        if let Some(params) = n.field("parameters") {
            let mut c = params.walk();
            let ps: Vec<Node> = params.named_children(&mut c).collect();
            let mut i = 0;
            for p in ps {
                if matches!(p.kind_name(), "comment" | "decorator") {
                    continue;
                }
                let is_this = p.field("pattern").is_some_and(|x| x.kind_name() == "this");
                let ty = self.walk_parameter(p, ctx(i));
                if !is_this {
                    out.push(ty);
                    i += 1;
                }
            }
        } else if let Some(p) = n.field("parameter") {
            self.bind_pattern(p, None, ctx(0));
            out.push(None);
        }
        out
    }

    pub(super) fn walk_parameter(&mut self, p: Node, contextual: Option<Expr>) -> Option<TypeRef> {
        match p.kind_name() {
            "required_parameter" | "optional_parameter" => {
                let ty = p.field("type").map(|t| {
                    self.walk(t);
                    self.type_ref(t)
                });
                if let Some(v) = p.field("value") {
                    self.walk(v);
                }
                for d in kids(p).into_iter().filter(|k| k.kind_name() == "decorator") {
                    self.walk(d);
                }
                if let Some(pat) = p.field("pattern") {
                    if pat.kind_name() == "this" {
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

    pub(super) fn walk_class(&mut self, n: Node) {
        let decl = self.decl_of(n);
        self.scopes.push(Scope::default());
        // A class expression's name is visible inside it.
        if decl.is_none()
            && let Some(name) = n.field("name")
        {
            let l = self.new_local(None, None);
            let nm = self.t(name).to_string();
            self.bind(&nm, NameRes::Local(l));
        }
        let saved_this = self.this_class;
        self.with_owner(decl, |x| {
            x.bind_type_params(n);
            for k in kids(n) {
                match k.kind_name() {
                    "decorator" => x.walk(k),
                    "class_heritage" => x.walk_heritage(k, decl),
                    _ => {}
                }
            }
            x.this_class = Some(decl);
            if let Some(body) = n.field("body") {
                for m in kids(body) {
                    x.walk_member(m, decl);
                }
            }
        });
        self.this_class = saved_this;
        self.scopes.pop();
    }

    pub(super) fn walk_heritage(&mut self, h: Node, decl: Option<usize>) {
        for cl in kids(h) {
            match cl.kind_name() {
                "extends_clause" => {
                    if let Some(v) = cl.field("value") {
                        self.heritage(v, Use::Extends, decl);
                    }
                    if let Some(ta) = cl.field("type_arguments") {
                        self.walk(ta);
                    }
                }
                "implements_clause" | "extends_type_clause" => {
                    let u = if cl.kind_name() == "implements_clause" {
                        Use::Implements
                    } else {
                        Use::Extends
                    };
                    for t in kids(cl) {
                        self.heritage(t, u, decl);
                    }
                }
                _ => {}
            }
        }
    }

    /// One name of an `extends` or `implements` clause: a reference, and a heritage type of
    /// the declaration.
    pub(super) fn heritage(&mut self, t: Node, usage: Use, decl: Option<usize>) {
        let mut targs = Vec::new();
        let head = match t.kind_name() {
            "generic_type" => {
                if let Some(a) = t.field("type_arguments") {
                    self.walk(a);
                    let mut c = a.walk();
                    targs = a
                        .named_children(&mut c)
                        .filter(|x| x.kind_name() != "comment")
                        .map(|x| self.type_ref(x))
                        .collect();
                }
                t.field("name").unwrap_or(t)
            }
            _ => t,
        };
        let mut tr = match head.kind_name() {
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
        if let TypeRef::Named { args, .. } = &mut tr {
            *args = targs;
        }
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
    pub(super) fn member_chain(&mut self, n: Node, last_use: Use) -> Expr {
        match n.kind_name() {
            "identifier" | "type_identifier" => {
                let name = self.t(n).to_string();
                let res = self.lookup(&name, false);
                self.push_ref(n, Use::Value, RefTarget::Name(res.clone(), name));
                Expr::Name(res)
            }
            "member_expression" | "nested_identifier" | "nested_type_identifier" => {
                let (obj, prop) = match n.kind_name() {
                    "nested_type_identifier" => (n.field("module"), n.field("name")),
                    _ => (n.field("object"), n.field("property")),
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

    pub(super) fn walk_member(&mut self, m: Node, class: Option<usize>) {
        let decl = self.decl_of(m);
        match m.kind_name() {
            "method_definition" => {
                if let Some(n) = m.field("name")
                    && n.kind_name() == "computed_property_name"
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
                    if let Some(tr) = x.walk_written(m, "return_type")
                        && let Some(d) = decl
                        && x.file.decls[d].ret.is_none()
                    {
                        x.file.decls[d].ret = Some(tr);
                    }
                });
                self.scopes.pop();
            }
            "public_field_definition" => {
                self.with_owner(decl, |x| {
                    for d in kids(m).into_iter().filter(|k| k.kind_name() == "decorator") {
                        x.walk(d);
                    }
                    if let Some(n) = m.field("name")
                        && n.kind_name() == "computed_property_name"
                    {
                        x.walk(n);
                    }
                    let ty = m.field("type").map(|t| {
                        x.walk(t);
                        x.type_ref(t)
                    });
                    let value = m.field("value").map(|v| {
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
                if let Some(b) = m.field("body").or_else(|| m.named_child(0)) {
                    self.scopes.push(Scope::default());
                    self.hoist(b, true);
                    self.walk_children(b);
                    self.scopes.pop();
                }
            }
            _ => self.walk(m),
        }
    }

    pub(super) fn walk(&mut self, n: Node) {
        self.bounded((), |x| x.walk_inner(n))
    }

    pub(super) fn walk_inner(&mut self, n: Node) {
        match n.kind_name() {
            k if LEAVES.contains(&k) => {}
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
                if let Some(r) = n.field("return_type").or_else(|| n.field("type")) {
                    self.walk(r);
                }
                self.scopes.pop();
            }
            "index_signature" => {
                self.scopes.push(Scope::default());
                let parts = kids(n);
                for k in &parts {
                    if k.kind_name() == "mapped_type_clause"
                        && let Some(name) = k.field("name")
                    {
                        let l = self.new_local(None, None);
                        let nm = self.t(name).to_string();
                        self.bind(&nm, NameRes::Local(l));
                    }
                }
                for k in parts {
                    if k.kind_name() == "mapped_type_clause" {
                        for p in kids(k) {
                            if Some(p) != k.field("name") {
                                self.walk(p);
                            }
                        }
                    } else if k.kind_name() == "identifier" {
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
                    if let Some(tr) = x.walk_written(n, "return_type")
                        && let Some(d) = decl
                        && x.file.decls[d].ret.is_none()
                    {
                        x.file.decls[d].ret = Some(tr);
                        x.file.decls[d].params = fp;
                    }
                });
                self.scopes.pop();
            }
            "class_declaration" | "abstract_class_declaration" | "class" => self.walk_class(n),
            "interface_declaration" => {
                let decl = self.decl_of(n);
                self.scopes.push(Scope::default());
                self.with_owner(decl, |x| {
                    let tps = x.bind_type_params(n);
                    if let Some(d) = decl {
                        x.file.decls[d].type_params = tps;
                    }
                    for k in kids(n) {
                        if k.kind_name() == "extends_type_clause" {
                            x.walk_heritage_clause(k, decl);
                        }
                    }
                    if let Some(body) = n.field("body") {
                        x.walk_type_members(body);
                    }
                });
                self.scopes.pop();
            }
            "import_alias" => {
                let decl = self.decl_of(n);
                if let Some(target) = n.named_child(1) {
                    self.with_owner(decl, |x| {
                        let e = x.member_chain(target, Use::Value);
                        if let Some(d) = decl {
                            x.file.decls[d].ty = Some(expr_type(e));
                        }
                    });
                }
            }
            "type_alias_declaration" => {
                let decl = self.decl_of(n);
                self.scopes.push(Scope::default());
                self.with_owner(decl, |x| {
                    let tps = x.bind_type_params(n);
                    if let Some(d) = decl {
                        x.file.decls[d].type_params = tps;
                    }
                    if let Some(v) = n.field("value") {
                        if v.kind_name() == "object_type" {
                            x.walk_type_members(v);
                            // A mapped type over `keyof T` has `T`'s members.
                            if describe::mapped_over(v).is_some()
                                && let Some(d) = decl
                            {
                                x.file.decls[d].ty = Some(x.type_ref(v));
                            }
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
                    self.bind_members(d);
                }
                if let Some(body) = n.field("body") {
                    for m in kids(body) {
                        if m.kind_name() == "enum_assignment"
                            && let Some(v) = m.field("value")
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
                if let Some(body) = n.field("body") {
                    self.scopes.push(Scope::default());
                    // The namespace's members are in scope inside it.
                    if let Some(d) = decl {
                        self.bind_members(d);
                    } else {
                        self.hoist(body, true);
                    }
                    self.with_owner(decl, |x| {
                        for s in kids(body) {
                            if s.kind_name() == "export_statement" {
                                if let Some(d) = s.field("declaration") {
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
                for vd in kids(n) {
                    if vd.kind_name() == "variable_declarator" {
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
            "if_statement" => self.walk_if(n),
            "return_statement" => match n.named_child(0) {
                Some(v) if v.kind_name() != "comment" => self.walk_returned(v),
                _ => self.walk_children(n),
            },
            "switch_statement" => self.walk_switch(n),
            "for_statement" => {
                self.scopes.push(Scope::default());
                if let Some(init) = n.field("initializer")
                    && matches!(
                        init.kind_name(),
                        "lexical_declaration" | "variable_declaration"
                    )
                {
                    self.declare_locals(init);
                }
                self.walk_children(n);
                self.scopes.pop();
            }
            "for_in_statement" => {
                self.scopes.push(Scope::default());
                let right = n.field("right");
                if let Some(r) = right {
                    self.walk(r);
                }
                let of = n.field("operator").is_some_and(|o| self.t(o) == "of");
                if let Some(l) = n.field("left") {
                    if n.field("kind").is_some() {
                        let value = match (of, right) {
                            (true, Some(r)) => Some(Expr::Elem(Box::new(self.expr_of(r)))),
                            _ => None,
                        };
                        self.bind_pattern(l, None, value);
                    } else {
                        self.walk(l);
                    }
                }
                if let Some(b) = n.field("body") {
                    self.walk(b);
                }
                self.scopes.pop();
            }
            "catch_clause" => {
                self.scopes.push(Scope::default());
                if let Some(p) = n.field("parameter") {
                    self.bind_pattern(p, None, None);
                }
                if let Some(t) = n.field("type") {
                    self.walk(t);
                }
                if let Some(b) = n.field("body") {
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
                    self.name_or_member_ref(e, Use::TypeOf);
                }
            }
            "member_expression" => {
                self.member_ref(n, Use::Value);
            }
            "call_expression" => {
                let f = n.field("function");
                if let Some(f) = f {
                    self.name_or_member_ref(unwrap_parens(f), Use::Call);
                }
                self.call_arguments(n, f);
            }
            "new_expression" => {
                let c = n.field("constructor");
                if let Some(c) = c {
                    self.name_or_member_ref(c, Use::Call);
                }
                self.call_arguments(n, c);
            }
            "pair" => {
                // Keys are not references, computed keys are.
                if let Some(k) = n.field("key")
                    && k.kind_name() == "computed_property_name"
                {
                    self.walk(k);
                }
                if let Some(v) = n.field("value") {
                    self.walk(v);
                }
            }
            "method_definition" => self.walk_function(n, Some(None)),
            "jsx_opening_element" | "jsx_self_closing_element" => self.walk_jsx(n),
            "jsx_closing_element" => {
                if let Some(nm) = n.field("name").or_else(|| n.named_child(0)) {
                    match nm.kind_name() {
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
            // `o.m = (p) => …`: the function's parameters are typed by the member's declaration.
            "assignment_expression"
                if n.field("left")
                    .is_some_and(|l| l.kind_name() == "member_expression")
                    && n.field("right").is_some_and(|r| {
                        matches!(
                            r.kind_name(),
                            "arrow_function" | "function_expression" | "function"
                        )
                    }) =>
            {
                let (Some(left), Some(right)) = (n.field("left"), n.field("right")) else {
                    return;
                };
                self.walk(left);
                let target = self.expr_of(left);
                self.callback = Some(Context::Assigned(target));
                self.walk(right);
                self.callback = None;
            }
            "labeled_statement" => {
                if let Some(b) = n.field("body") {
                    self.walk(b);
                } else {
                    self.walk_children(n);
                }
            }
            "break_statement" | "continue_statement" => {}
            _ => self.walk_children(n),
        }
    }

    pub(super) fn walk_heritage_clause(&mut self, clause: Node, decl: Option<usize>) {
        for t in kids(clause) {
            self.heritage(t, Use::Extends, decl);
        }
    }

    pub(super) fn walk_type_members(&mut self, body: Node) {
        for m in kids(body) {
            let decl = self.decl_of(m);
            match m.kind_name() {
                "property_signature" => {
                    self.with_owner(decl, |x| {
                        // `[KEY]: T`: the key is an expression (a `unique symbol` constant).
                        if let Some(n) = m.field("name")
                            && n.kind_name() == "computed_property_name"
                        {
                            x.walk(n);
                        }
                        if let Some(tr) = x.walk_written(m, "type")
                            && let Some(d) = decl
                            && x.file.decls[d].ty.is_none()
                        {
                            x.file.decls[d].ty = Some(tr);
                        }
                    });
                }
                "method_signature" => self.walk_member(m, None),
                "call_signature" => {
                    self.walk(m);
                    if let Some(o) = self.owner {
                        let params = self.written_params(m, 0);
                        let ret = m.field("return_type").map(|r| self.type_ref(r));
                        self.file.decls[o].calls.push((params, ret));
                    }
                }
                _ => self.walk(m),
            }
        }
    }

    /// Binds every member of declaration `d` in the current scope (an enum's or a namespace's
    /// members are in scope inside its body).
    fn bind_members(&mut self, d: usize) {
        let members: Vec<(String, usize)> = self.file.decls[d]
            .members
            .iter()
            .flat_map(|(k, v)| v.iter().map(move |x| (k.clone(), *x)))
            .collect();
        for (k, x) in members {
            self.bind(&k, NameRes::Decl(x));
        }
    }

    /// A name or member expression used as `usage` (`f`, `a.b.f`); anything else is walked.
    fn name_or_member_ref(&mut self, e: Node, usage: Use) {
        match e.kind_name() {
            "identifier" => self.name_ref(e, usage),
            "member_expression" => {
                self.member_ref(e, usage);
            }
            _ => self.walk(e),
        }
    }

    /// The type arguments and arguments of the call or `new` expression `n` of `callee`.
    fn call_arguments(&mut self, n: Node, callee: Option<Node>) {
        let mut call = CallTypes::default();
        if let Some(t) = n.field("type_arguments") {
            self.walk(t);
            let mut c = t.walk();
            call.args = t
                .named_children(&mut c)
                .filter(|a| a.kind_name() != "comment")
                .map(|a| self.type_ref(a))
                .collect();
        }
        if let Some((at, _)) = &self.expected
            && *at == n.id()
        {
            call.expected = self.expected.take().map(|(_, t)| t);
        }
        if let Some(args) = n.field("arguments") {
            let callee = callee.map_or(Expr::Unknown, |c| self.expr_of(c));
            self.walk_arguments(args, callee, call);
        }
    }

    /// The arguments of a call of `callee`; a function written as an argument gets its
    /// parameters typed from the callee's declaration.
    pub(super) fn walk_arguments(&mut self, args: Node, callee: Expr, call: CallTypes) {
        let mut c = args.walk();
        let xs: Vec<Node> = args.named_children(&mut c).collect();
        let mut i = 0;
        for a in xs {
            match a.kind_name() {
                "comment" => continue,
                "identifier" => self.name_ref(a, Use::Argument),
                "member_expression" => {
                    self.member_ref(a, Use::Argument);
                }
                "arrow_function" | "function_expression" | "function" => {
                    if callee != Expr::Unknown {
                        self.callback = Some(Context::Argument(callee.clone(), i, call.clone()));
                    }
                    self.walk(a);
                    self.callback = None;
                }
                _ => self.walk(a),
            }
            i += 1;
        }
    }

    pub(super) fn walk_declarator(&mut self, vd: Node) {
        let decl_here = self.decl_of(vd);
        let name = vd.field("name");
        let is_require = vd.field("value").and_then(|v| self.require_of(v)).is_some();
        let top_require = is_require && self.scopes.len() == 1 && self.owner.is_none();
        if top_require {
            // Bound as an import; its specifier and names are walked as imports.
            if let Some(n) = name
                && n.kind_name() == "object_pattern"
            {
                self.import_refs_of_require(n);
            }
            return;
        }
        let ty = vd.field("type").map(|t| {
            self.with_owner(decl_here, |x| x.walk(t));
            self.type_ref(t)
        });
        let value = vd.field("value").map(|v| {
            if let Some(t) = &ty
                && matches!(
                    v.kind_name(),
                    "arrow_function" | "function_expression" | "function"
                )
            {
                self.callback = Some(Context::Typed(t.clone()));
            }
            if let Some(t) = &ty
                && v.kind_name() == "call_expression"
            {
                self.expected = Some((v.id(), t.clone()));
            }
            self.with_owner(decl_here, |x| x.walk(v));
            self.callback = None;
            self.expected = None;
            self.expr_of(v)
        });
        let Some(name) = name else { return };
        if name.kind_name() == "identifier" {
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

    /// Walks a returned value: a function returned where the return type is known gets its
    /// parameters typed by it.
    fn walk_returned(&mut self, v: Node) {
        if let Some(t) = &self.ret_ctx
            && matches!(
                v.kind_name(),
                "arrow_function" | "function_expression" | "function"
            )
        {
            self.callback = Some(Context::Typed(t.clone()));
        }
        self.walk(v);
        self.callback = None;
    }
}

/// The names of a function's parameters, in order (`this:` left out; a destructured one is
/// named by its text).
fn param_names(n: Node, src: &str) -> Vec<String> {
    let Some(params) = n.field("parameters") else {
        return Vec::new();
    };
    let mut c = params.walk();
    params
        .named_children(&mut c)
        .filter_map(|p| p.field("pattern"))
        .filter(|p| p.kind_name() != "this")
        .map(|p| text(p, src).to_string())
        .collect()
}

/// An object or array literal, possibly parenthesized or under `as const`/`satisfies`.
fn object_or_array(v: Node) -> bool {
    match v.kind_name() {
        "object" | "array" => true,
        "parenthesized_expression" | "as_expression" | "satisfies_expression" => {
            v.named_child(0).is_some_and(object_or_array)
        }
        _ => false,
    }
}

/// The value of the one `return` of a function body (not counting nested functions), when
/// there is exactly one and it has a value.
fn single_return(body: Node) -> Option<Node> {
    let mut found = None;
    let mut count = 0;
    let mut stack = vec![body];
    while let Some(x) = stack.pop() {
        match x.kind_name() {
            "return_statement" => {
                count += 1;
                found = x.named_child(0).filter(|v| v.kind_name() != "comment");
            }
            k if is_function(k) || matches!(k, "class_declaration" | "class") => {}
            _ => stack.extend(kids(x)),
        }
    }
    if count == 1 { found } else { None }
}

/// Whether a node of kind `k` is a function (its body is another flow).
pub(super) fn is_function(k: &str) -> bool {
    matches!(
        k,
        "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "function"
            | "generator_function"
            | "arrow_function"
            | "method_definition"
    )
}

/// The names `n` assigns anywhere below it (`name = …`, `name += …`, `name++`).
pub(super) fn assigned_names(n: Node, src: &str) -> crate::hash::HashSet<String> {
    let mut names = crate::hash::HashSet::default();
    crate::lang::each_named(n, |x| {
        #[cfg(test)]
        tests::VISITS.with(|w| w.set(w.get() + 1));
        let target = match x.kind_name() {
            "assignment_expression" | "augmented_assignment_expression" => x.field("left"),
            "update_expression" => x.field("argument"),
            _ => None,
        };
        if let Some(t) = target.filter(|t| t.kind_name() == "identifier") {
            names.insert(text(t, src).to_string());
        }
        true
    });
    names
}

#[cfg(test)]
mod tests {
    thread_local! {
        /// How many nodes [`super::assigned_names`] visited on this thread.
        pub(super) static VISITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Every narrowing statement asks whether the name it narrows is assigned in its enclosing
    /// function (or, for `instanceof`, in its branch). Each function is read once for the
    /// question, however many statements ask: asked per statement, a function of 8,000 of them
    /// took 113 s to extract. The nodes read stay within a small multiple of the file's.
    #[test]
    fn a_function_is_read_for_its_assignments_once_however_many_narrowings_ask() {
        let mut src = String::from(
            "type S = {kind: 'a', a: number} | {kind: 'b', b: string};\n\
             export function f(s: S, t: S): number {\n  let n = 0;\n",
        );
        for _ in 0..40 {
            src.push_str("  if (s.kind === 'a') { n += s.a; } else { n += s.b.length; }\n");
            src.push_str("  if (t instanceof Object) { n += 1; }\n");
        }
        src.push_str(
            "  const g = (u: S) => { if (u.kind === 'b') { return u.b; } t = u; return ''; };\n",
        );
        src.push_str("  return n + g(s).length;\n}\n");
        let tree = crate::lang::parse(&src, tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
            .expect("parses");
        let mut nodes = 0;
        crate::lang::each_named(tree.root_node(), |_| {
            nodes += 1;
            true
        });
        VISITS.with(|w| w.set(0));
        let file = super::super::extract(&src, false);
        assert!(!file.has_error);
        let visits = VISITS.with(|w| w.get());
        assert!(visits > 0, "the question was never asked");
        assert!(
            visits <= 3 * nodes,
            "{visits} nodes read for a file of {nodes}"
        );
    }
}
