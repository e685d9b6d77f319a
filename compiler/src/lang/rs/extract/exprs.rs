//! Expressions: calls, method calls, fields, struct literals, closures, loops and matches, and
//! what a receiver expression's type is made of.

use crate::lang::FieldExt;
use crate::lang::KindExt;
use tree_sitter::Node;

use super::{EXPRESSION_MACROS, Ns, Recv, RefKind, Scope, SelfCtx, Ty, Walker, What, field};
use crate::lang::kids;

impl Walker<'_> {
    /// What a receiver expression's type is made of (a walk of its own, at most 32 steps deep).
    pub(super) fn recv_of(&self, e: Node) -> Recv {
        self.depth.fresh(|| self.recv(e))
    }

    /// What `member` makes of the receiver and the field name of field expression `f`: a method
    /// call's result or a field.
    fn recv_member(&self, f: Node, member: fn(Box<Recv>, String) -> Recv) -> Recv {
        let (Some(v), Some(nm)) = (field(f, "value"), field(f, "field")) else {
            return Recv::Unknown;
        };
        member(
            Box::new(self.depth.nested(|| self.recv(v))),
            self.t(nm).to_string(),
        )
    }

    /// Field expression `fe`: its value is walked, and its field is a member reference of `kind`
    /// on the value's type (a method's when `kind` is a call).
    fn member_ref(&mut self, fe: Node, kind: RefKind) {
        if let (Some(v), Some(nm)) = (field(fe, "value"), field(fe, "field")) {
            self.deeper(|w| w.expr(v));
            let r = self.deeper(|w| w.recv_of(v));
            let method = kind == RefKind::Call;
            self.push_ref(
                kind,
                What::Member(r, self.t(nm).to_string(), method),
                self.at(nm),
            );
        }
    }

    pub(super) fn recv(&self, e: Node) -> Recv {
        if self.depth.get() > 32 {
            return Recv::Unknown;
        }
        match e.kind_name() {
            "identifier" => match self.is_local(self.t(e)) {
                Some(r) => r.clone(),
                None => Recv::Value(vec![self.t(e).to_string()]),
            },
            "scoped_identifier" => self
                .depth
                .nested(|| self.path_segs(e))
                .map_or(Recv::Unknown, Recv::Value),
            "self" => self.is_local("self").cloned().unwrap_or(Recv::Unknown),
            "call_expression" => {
                let Some(f) = field(e, "function") else {
                    return Recv::Unknown;
                };
                match f.kind_name() {
                    "field_expression" => self.recv_member(f, Recv::Method),
                    "identifier" if self.is_local(self.t(f)).is_some() => Recv::Unknown,
                    _ => self
                        .depth
                        .nested(|| self.path_segs(f))
                        .map_or(Recv::Unknown, Recv::CallRet),
                }
            }
            "struct_expression" => field(e, "name")
                .and_then(|n| self.depth.nested(|| self.path_segs(n)))
                .map_or(Recv::Unknown, |s| Recv::Ty(Ty::Path(s, Vec::new()))),
            "field_expression" => self.recv_member(e, Recv::Field),
            "reference_expression" | "parenthesized_expression" => kids(e)
                .into_iter()
                .rfind(|k| k.kind_name() != "mutable_specifier")
                .map_or(Recv::Unknown, |k| self.depth.nested(|| self.recv(k))),
            "unary_expression" if self.t(e).starts_with('*') => kids(e)
                .into_iter()
                .next()
                .map_or(Recv::Unknown, |k| self.depth.nested(|| self.recv(k))),
            "try_expression" => kids(e).into_iter().next().map_or(Recv::Unknown, |k| {
                Recv::Try(Box::new(self.depth.nested(|| self.recv(k))))
            }),
            _ => Recv::Unknown,
        }
    }

    pub(super) fn value_path(&mut self, n: Node, kind: RefKind) {
        match n.kind_name() {
            "identifier" => {
                let nm = self.t(n);
                if self.is_local(nm).is_some() {
                    return;
                }
                self.push_ref(
                    kind,
                    What::Path(vec![nm.to_string()], Ns::Value),
                    self.at(n),
                );
            }
            "self" => {}
            "scoped_identifier" => {
                let p = field(n, "path");
                if let Some(pp) = p {
                    if pp.kind_name() == "bracketed_type" {
                        self.deeper(|w| w.qualified(pp, n, kind));
                        return;
                    }
                    if pp.kind_name() == "generic_type"
                        && let Some(a) = field(pp, "type_arguments")
                    {
                        self.deeper(|w| w.ty(a));
                    }
                }
                if let Some(segs) = self.deeper(|w| w.path_segs(n)) {
                    self.scoped_ref(n, segs, kind, Ns::Value);
                }
            }
            "generic_function" => {
                self.walk_field(n, "type_arguments", Self::ty);
                if let Some(f) = field(n, "function") {
                    if f.kind_name() == "field_expression" {
                        self.deeper(|w| w.expr(f));
                    } else {
                        self.deeper(|w| w.value_path(f, kind));
                    }
                }
            }
            _ => self.deeper(|w| w.expr(n)),
        }
    }

    pub(super) fn expr(&mut self, e: Node) {
        if self.deep() {
            return;
        }
        match e.kind_name() {
            "identifier" | "scoped_identifier" | "generic_function" => {
                self.deeper(|w| w.value_path(e, RefKind::Ref))
            }
            "call_expression" => {
                if let Some(f) = field(e, "function") {
                    match f.kind_name() {
                        "field_expression" | "generic_function"
                            if f.kind_name() == "field_expression"
                                || field(f, "function")
                                    .is_some_and(|x| x.kind_name() == "field_expression") =>
                        {
                            let fe = if f.kind_name() == "generic_function" {
                                self.walk_field(f, "type_arguments", Self::ty);
                                field(f, "function").unwrap()
                            } else {
                                f
                            };
                            self.member_ref(fe, RefKind::Call);
                        }
                        "identifier" | "scoped_identifier" | "generic_function" => {
                            self.deeper(|w| w.value_path(f, RefKind::Call))
                        }
                        _ => self.deeper(|w| w.expr(f)),
                    }
                }
                if let Some(args) = field(e, "arguments") {
                    for a in kids(args) {
                        match a.kind_name() {
                            "identifier" | "scoped_identifier" => {
                                self.deeper(|w| w.value_path(a, RefKind::Arg))
                            }
                            _ => self.deeper(|w| w.expr(a)),
                        }
                    }
                }
            }
            "field_expression" => self.member_ref(e, RefKind::Ref),
            "macro_invocation" => {
                if let Some(m) = field(e, "macro")
                    && let Some(segs) = self.deeper(|w| w.path_segs(m))
                {
                    let at = self.name_at(m);
                    self.push_ref(RefKind::Call, What::Path(segs, Ns::Macro), at);
                }
                if let Some(tt) = kids(e).into_iter().find(|k| k.kind_name() == "token_tree") {
                    let name = field(e, "macro").map_or("", |m| {
                        let t = self.t(m);
                        t.rsplit("::").next().unwrap_or(t)
                    });
                    let saved = self.in_opaque_macro_args;
                    self.in_opaque_macro_args |= !EXPRESSION_MACROS.contains(&name);
                    self.deeper(|w| w.macro_tokens(tt, false));
                    self.in_opaque_macro_args = saved;
                }
            }
            "struct_expression" => {
                let name = field(e, "name");
                let segs = name.and_then(|n| self.deeper(|w| w.path_segs(n)));
                if let (Some(n), Some(s)) = (name, &segs)
                    && (s[0] != "Self"
                        || s.len() > 1
                        || matches!(self.selfc, Some(SelfCtx::Impl(_))))
                {
                    let at = match n.kind_name() {
                        "scoped_type_identifier" => self.name_at(n),
                        "generic_type_with_turbofish" => {
                            self.walk_field(n, "type_arguments", Self::ty);
                            self.at(n)
                        }
                        _ => self.at(n),
                    };
                    self.push_ref(RefKind::Ref, What::Path(s.clone(), Ns::Type), at);
                    if n.kind_name() == "scoped_type_identifier" {
                        let prefix = self.prefix_at(n);
                        if let Some(r) = self.f.refs.last_mut() {
                            r.prefix_pos = prefix;
                        }
                    }
                }
                let recv = segs.map_or(Recv::Unknown, |s| Recv::Ty(Ty::Path(s, Vec::new())));
                if let Some(body) = field(e, "body") {
                    for fi in kids(body) {
                        match fi.kind_name() {
                            "field_initializer" => {
                                if let Some(nm) = field(fi, "field") {
                                    self.push_ref(
                                        RefKind::Ref,
                                        What::Member(recv.clone(), self.t(nm).to_string(), false),
                                        self.at(nm),
                                    );
                                }
                                self.walk_field(fi, "value", Self::expr);
                            }
                            "shorthand_field_initializer" => {
                                if let Some(nm) =
                                    kids(fi).into_iter().find(|k| k.kind_name() == "identifier")
                                {
                                    self.push_ref(
                                        RefKind::Ref,
                                        What::Member(recv.clone(), self.t(nm).to_string(), false),
                                        self.at(nm),
                                    );
                                    self.deeper(|w| w.value_path(nm, RefKind::Ref));
                                }
                            }
                            _ => self.deeper(|w| w.expr(fi)),
                        }
                    }
                }
            }
            "block" | "unsafe_block" | "async_block" | "const_block" | "loop_expression" => {
                for k in kids(e) {
                    if k.kind_name() == "block" {
                        self.deeper(|w| w.block(k));
                    } else if e.kind_name() == "block" {
                        self.deeper(|w| w.block(e));
                        return;
                    }
                }
            }
            "closure_expression" => {
                let mut scope = Scope::default();
                if let Some(ps) = field(e, "parameters") {
                    for p in kids(ps) {
                        if p.kind_name() == "parameter" {
                            self.parameter(p, &mut scope, false);
                        } else {
                            self.deeper(|w| w.pattern(p, &mut scope));
                        }
                    }
                }
                self.walk_field(e, "return_type", Self::ty);
                self.scopes.push(scope);
                self.walk_field(e, "body", Self::expr);
                self.scopes.pop();
            }
            "for_expression" => {
                self.walk_field(e, "value", Self::expr);
                let mut scope = Scope::default();
                if let Some(p) = field(e, "pattern") {
                    self.deeper(|w| w.pattern(p, &mut scope));
                }
                self.scopes.push(scope);
                self.walk_field(e, "body", Self::block);
                self.scopes.pop();
            }
            "if_expression" | "while_expression" => {
                // `if let` bindings are visible in the consequence.
                self.scopes.push(Scope::default());
                self.walk_field(e, "condition", Self::condition);
                if let Some(b) = field(e, "consequence").or_else(|| field(e, "body")) {
                    self.deeper(|w| w.block(b));
                }
                self.scopes.pop();
                self.walk_field(e, "alternative", Self::expr);
            }
            "else_clause" => {
                for k in kids(e) {
                    self.deeper(|w| w.expr(k));
                }
            }
            "match_expression" => {
                self.walk_field(e, "value", Self::expr);
                if let Some(b) = field(e, "body") {
                    for arm in kids(b) {
                        if arm.kind_name() != "match_arm" {
                            continue;
                        }
                        let mut scope = Scope::default();
                        if let Some(p) = field(arm, "pattern") {
                            for k in kids(p) {
                                if k.kind_name() == "condition" || p.field("condition") == Some(k) {
                                    continue;
                                }
                                self.deeper(|w| w.pattern(k, &mut scope));
                            }
                            self.scopes.push(scope);
                            self.walk_field(p, "condition", Self::condition);
                        } else {
                            self.scopes.push(scope);
                        }
                        self.walk_field(arm, "value", Self::expr);
                        self.scopes.pop();
                    }
                }
            }
            // `format!("{x}", x = v)`: `x` names an argument, not a value.
            "assignment_expression"
                if self.shift.is_some()
                    && field(e, "left").is_some_and(|l| l.kind_name() == "identifier") =>
            {
                self.walk_field(e, "right", Self::expr);
            }
            "type_cast_expression" => {
                self.walk_field(e, "value", Self::expr);
                self.walk_field(e, "type", Self::ty);
            }
            "let_condition" | "let_chain" => self.deeper(|w| w.condition(e)),
            "string_literal" | "raw_string_literal" | "integer_literal" | "float_literal"
            | "char_literal" | "boolean_literal" | "line_comment" | "block_comment" | "self"
            | "label" | "lifetime" | "field_identifier" | "type_identifier" | "primitive_type"
            | "token_tree" => {}
            "type_arguments" => self.deeper(|w| w.ty(e)),
            "let_declaration" => self.deeper(|w| w.stmt(e)),
            _ => {
                for k in kids(e) {
                    self.deeper(|w| w.expr(k));
                }
            }
        }
    }
}
