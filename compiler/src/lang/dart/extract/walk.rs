//! Statements, expressions and patterns: lexical scopes and every reference they hold.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl<'s> Extractor<'s> {
    pub(super) fn stmt(&mut self, n: Node) {
        if !self.deeper() {
            return;
        }
        self.stmt_inner(n);
        self.depth -= 1;
    }

    pub(super) fn stmt_inner(&mut self, n: Node) {
        match n.kind_name() {
            "block" | "function_body" | "switch_block" => {
                self.scopes.push(HashMap::default());
                for k in kids(n) {
                    self.stmt(k);
                }
                self.scopes.pop();
            }
            "local_variable_declaration" => {
                for k in kids(n) {
                    match k.kind_name() {
                        "initialized_variable_declaration" => self.local_vars(k),
                        "pattern_variable_declaration" => {
                            if let Some(v) = kids(k).into_iter().last() {
                                self.expr(v, Use::Value);
                            }
                            for p in kids(k) {
                                if is_pattern(p.kind_name()) {
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
                let ret = sig.field("return_type").map(|t| self.quiet_ty(t));
                if let Some(nn) = sig.field("name") {
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
                self.scopes.push(HashMap::default());
                self.for_parts(n);
                self.scopes.pop();
            }
            "try_statement" => {
                let mut on_ty: Option<TypeRef> = None;
                let mut in_catch = false;
                for k in kids(n) {
                    match k.kind_name() {
                        "type" => on_ty = Some(self.ty(k, Use::Type)),
                        "catch_clause" => {
                            self.scopes.push(HashMap::default());
                            in_catch = true;
                            if let Some(e) = k.field("exception") {
                                let nm = self.t(e).to_string();
                                self.declare_local(
                                    &nm,
                                    Local {
                                        ty: on_ty.take(),
                                        ..Local::default()
                                    },
                                );
                            }
                            if let Some(s) = k.field("stack_trace") {
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
                let has_case = ks.iter().any(|k| is_pattern(k.kind_name()));
                if has_case {
                    self.scopes.push(HashMap::default());
                    let mut cons_done = false;
                    for k in ks {
                        if is_pattern(k.kind_name()) {
                            self.pattern(k);
                        } else if Some(k) == n.field("consequence") {
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
                self.scopes.push(HashMap::default());
                for k in kids(n) {
                    if is_pattern(k.kind_name()) {
                        self.pattern(k);
                    } else {
                        self.stmt(k);
                    }
                }
                self.scopes.pop();
            }
            "for_element" => {
                self.scopes.push(HashMap::default());
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

    pub(super) fn for_parts(&mut self, n: Node) {
        let ks = kids(n);
        let value = n.field("value");
        let name = n.field("name");
        if let (Some(v), Some(nm)) = (value, name) {
            // `for (T x in xs)`.
            let ty = self.written_type(n);
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
            if let Some(b) = n.field("body") {
                self.stmt(b);
            }
            return;
        }
        for k in ks {
            if Some(k) == value {
                continue;
            }
            if is_pattern(k.kind_name()) {
                if let Some(v) = value {
                    self.expr(v, Use::Value);
                }
                self.pattern(k);
                continue;
            }
            if k.kind_name() == "initialized_variable_declaration" {
                self.local_vars(k);
                continue;
            }
            self.stmt(k);
        }
    }

    pub(super) fn local_vars(&mut self, k: Node) {
        let ty = self.written_type(k);
        let mut items: Vec<(Node, Option<Node>)> = Vec::new();
        if let Some(nn) = k.field("name") {
            items.push((nn, k.field("value")));
        }
        for x in kids(k) {
            if x.kind_name() == "initialized_identifier"
                && let Some(nn) = x.field("name")
            {
                items.push((nn, x.field("value")));
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

    pub(super) fn local_function(&mut self, sig: Node, body: Option<Node>) {
        self.scopes.push(HashMap::default());
        for k in kids(sig) {
            match k.kind_name() {
                "type_parameters" => self.type_params(k),
                "formal_parameter_list" => self.params(k),
                _ => {}
            }
        }
        if let Some(rt) = sig.field("return_type") {
            self.ty(rt, Use::Type);
        }
        if let Some(b) = body {
            self.stmt(b);
        }
        self.scopes.pop();
    }

    /// Declares the variables a pattern binds and records its type and constant references.
    pub(super) fn pattern(&mut self, p: Node) {
        if !self.deeper() {
            return;
        }
        match p.kind_name() {
            "variable_pattern" => {
                let ty = self.written_type(p);
                let value = self.pattern_value.take();
                if let Some(nn) = p.field("name") {
                    let nm = self.t(nn).to_string();
                    if nm != "_" {
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
            }
            "constant_pattern" => {
                let ks = kids(p);
                if ks.len() >= 2
                    && ks
                        .iter()
                        .all(|k| matches!(k.kind_name(), "identifier" | "type_identifier"))
                {
                    self.chain(&ks, Use::Value);
                    self.depth -= 1;
                    return;
                }
                for k in ks {
                    if !(k.kind_name() == "identifier" && self.t(k) == "_") {
                        self.expr(k, Use::Value);
                    }
                }
            }
            "object_pattern" => {
                // `p.C(name: pattern, :var name)`: the type, then a getter per field.
                let ids: Vec<Node> = kids(p)
                    .into_iter()
                    .filter(|k| k.kind_name() == "type_identifier")
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
                    match k.kind_name() {
                        "type_identifier" | "type_arguments" => {}
                        "label" => {
                            field = kids(k).into_iter().find(|x| x.kind_name() == "identifier")
                        }
                        ":" => colon = true,
                        x if is_pattern(x) => {
                            let at = match (field.take(), colon) {
                                (Some(f), _) => Some(f),
                                (None, true) => {
                                    if k.kind_name() == "variable_pattern" {
                                        k.field("name")
                                    } else {
                                        kids(k)
                                            .into_iter()
                                            .find(|v| v.kind_name() == "variable_pattern")
                                            .and_then(|v| v.field("name"))
                                    }
                                }
                                _ => None,
                            };
                            colon = false;
                            if let Some(at) = at {
                                let nm = self.t(at).to_string();
                                self.push_ref(
                                    at,
                                    Use::Value,
                                    Target::Member(recv.clone(), nm.clone()),
                                );
                                // A variable bound to the field has the field's type.
                                if k.kind_name() == "variable_pattern" {
                                    self.pattern_value =
                                        Some(Expr::Member(Box::new(recv.clone()), nm));
                                }
                            }
                            self.pattern(k);
                            self.pattern_value = None;
                        }
                        _ => {}
                    }
                }
            }
            "cast_pattern" => {
                for k in kids(p) {
                    match k.kind_name() {
                        "type" => {
                            self.ty(k, Use::Type);
                        }
                        _ => self.pattern(k),
                    }
                }
            }
            _ => {
                for k in kids(p) {
                    match k.kind_name() {
                        "type" => {
                            self.ty(k, Use::Type);
                        }
                        "label" => {}
                        "identifier" if p.kind_name() == "map_pattern" => self.expr(k, Use::Value),
                        x if is_pattern(x) => self.pattern(k),
                        _ => self.expr(k, Use::Value),
                    }
                }
            }
        }
        self.depth -= 1;
    }

    pub(super) fn arguments(&mut self, a: Node) {
        for k in kids(a) {
            match k.kind_name() {
                "named_argument" => {
                    for v in kids(k) {
                        if v.kind_name() != "label" {
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
    pub(super) fn expr(&mut self, n: Node, usage: Use) {
        if !self.deeper() {
            return;
        }
        self.expr_inner(n, usage);
        self.depth -= 1;
    }

    /// Walks the expression in field `field` of `n`, if there is one.
    fn field_expr(&mut self, n: Node, field: &str, usage: Use) {
        if let Some(e) = n.field(field) {
            self.expr(e, usage);
        }
    }

    /// `o.p`: walks the object `o` and records member `p` of it, used as `usage`.
    fn member_ref(&mut self, o: Node, p: Node, usage: Use) {
        let obj = self.object(o, 0);
        if o.is_named() {
            self.expr(o, Use::Value);
        }
        let nm = self.t(p).to_string();
        self.push_ref(p, usage, Target::Member(obj, nm));
    }

    pub(super) fn expr_inner(&mut self, n: Node, usage: Use) {
        match n.kind_name() {
            "identifier" | "identifier_dollar_escaped" => {
                let nm = self.t(n);
                if let Expr::Name(name, ctx) = self.name_expr(nm) {
                    self.push_ref(n, usage, Target::Name(name, ctx));
                }
            }
            "member_expression" | "null_aware_member_expression" => {
                if let (Some(o), Some(p)) = (n.field("object"), n.field("property")) {
                    self.member_ref(o, p, usage);
                }
            }
            "call_expression" => {
                self.field_expr(n, "function", Use::Call);
                if let Some(a) = n.field("arguments") {
                    self.arguments(a);
                }
            }
            "instantiation_expression" => {
                self.field_expr(n, "function", usage);
                for k in kids(n) {
                    if k.kind_name() == "type_arguments" {
                        self.walk_types(k);
                    }
                }
            }
            "assignable_expression" => {
                let o = n.field("object");
                let p = n.field("property");
                match (o, p) {
                    (Some(o), Some(p)) => self.member_ref(o, p, Use::Write),
                    _ => {
                        for k in kids(n) {
                            self.expr(k, Use::Write);
                        }
                    }
                }
            }
            "assignment_expression" => {
                self.field_expr(n, "left", Use::Write);
                self.field_expr(n, "right", Use::Value);
            }
            "cascade" => {
                let ks = kids(n);
                let Some(first) = ks.first() else { return };
                self.expr(*first, Use::Value);
                let recv = self.describe(*first, 0);
                for s in ks.iter().skip(1) {
                    if s.kind_name() == "cascade_section" {
                        self.cascade_section(*s, &recv);
                    }
                }
            }
            "new_expression" | "const_object_expression" => {
                if let Some(t) = n.field("type") {
                    self.ctor_ref(t, Use::Call);
                }
                for k in kids(n) {
                    if k.kind_name() == "arguments" {
                        self.arguments(k);
                    }
                }
            }
            "constructor_invocation" => {
                if let (Some(t), Some(c)) = (n.field("type"), n.field("constructor")) {
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
                    match k.kind_name() {
                        "type_arguments" => self.walk_types(k),
                        "arguments" => self.arguments(k),
                        _ => {}
                    }
                }
            }
            "constructor_tearoff" => {
                let ids: Vec<Node> = kids(n)
                    .into_iter()
                    .filter(|k| matches!(k.kind_name(), "type_identifier" | "identifier"))
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
                    self.push_ctor_ref(at, usage, (prefix, nm), ctor);
                }
            }
            "type_cast_expression" | "type_test_expression" => {
                for k in kids(n) {
                    match k.kind_name() {
                        "type_cast" | "type_test" => {
                            for t in kids(k) {
                                if t.kind_name() == "type" {
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
                self.scopes.push(HashMap::default());
                for k in kids(n) {
                    match k.kind_name() {
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
            k if OPERATIONS.contains(&k) || k == "relational_expression" => {
                let ks = kids(n);
                if let Some(op) = self.operator(&ks) {
                    let recv = self.describe(ks[0], 0);
                    self.push_ref(ks[1], Use::Operator, Target::Member(recv, op));
                }
                for k in ks {
                    self.expr(k, Use::Value);
                }
            }
            "index_expression" => {
                if let Some(o) = n.field("object") {
                    let recv = self.describe(o, 0);
                    let mut c = n.walk();
                    let bracket = n.children(&mut c).find(|k| k.kind_name() == "[");
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
    pub(super) fn chain(&mut self, ks: &[Node], usage: Use) {
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

    pub(super) fn cascade_section(&mut self, s: Node, recv: &Expr) {
        let mut cur = recv.clone();
        for k in kids(s) {
            match k.kind_name() {
                "cascade_call_expression" => {
                    let mut target = cur.clone();
                    if let Some(f) = k.field("function") {
                        // `..a.b()`: the selector, then the call of its member.
                        target = self.cascade_member(f, &cur);
                    } else if let Some(p) = k.field("property") {
                        let nm = self.t(p).to_string();
                        self.push_ref(p, Use::Call, Target::Member(cur.clone(), nm.clone()));
                        target = Expr::Call(Box::new(Expr::Member(Box::new(cur.clone()), nm)));
                    }
                    for a in kids(k) {
                        if a.kind_name() == "arguments" {
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
                        if id.kind_name() == "identifier" {
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
    pub(super) fn cascade_member(&mut self, k: Node, cur: &Expr) -> Expr {
        let mut base = cur.clone();
        if let Some(o) = k.field("object") {
            for id in kids(o) {
                if id.kind_name() == "identifier" {
                    let nm = self.t(id).to_string();
                    self.push_ref(id, Use::Value, Target::Member(base.clone(), nm.clone()));
                    base = Expr::Member(Box::new(base), nm);
                }
            }
        }
        if let Some(p) = k.field("property") {
            let nm = self.t(p).to_string();
            let parent_call = k
                .parent()
                .is_some_and(|x| x.kind_name() == "cascade_call_expression");
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
    pub(super) fn ctor_ref(&mut self, t: Node, usage: Use) {
        let ids: Vec<Node> = kids(t)
            .into_iter()
            .filter(|k| k.kind_name() == "type_identifier")
            .collect();
        for k in kids(t) {
            if k.kind_name() == "type_arguments" {
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
            self.push_ctor_ref(at, usage, (prefix, class), ctor);
        }
    }

    /// A reference at `at` to constructor `ctor` (`None`: the unnamed one) of the class
    /// `prefix.class` as written.
    fn push_ctor_ref(
        &mut self,
        at: Node,
        usage: Use,
        (prefix, class): (Option<String>, String),
        ctor: Option<String>,
    ) {
        let class = TypeRef::Named {
            prefix,
            name: class,
            args: Vec::new(),
        };
        self.push_ref(at, usage, Target::Ctor(class, ctor));
    }
}
