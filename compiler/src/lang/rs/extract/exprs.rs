//! Expressions: calls, method calls, fields, struct literals, closures, loops and matches, and
//! what a receiver expression's type is made of.

use tree_sitter::Node;

use super::{Ns, Recv, RefKind, Scope, SelfCtx, Ty, Walker, What, field};
use crate::lang::kids;

impl Walker<'_> {
    /// What a receiver expression's type is made of (a walk of its own, at most 32 steps deep).
    pub(super) fn recv_of(&self, e: Node) -> Recv {
        self.depth.fresh(|| self.recv(e))
    }

    pub(super) fn recv(&self, e: Node) -> Recv {
        if self.depth.get() > 32 {
            return Recv::Unknown;
        }
        match e.kind() {
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
                match f.kind() {
                    "field_expression" => {
                        let (Some(v), Some(nm)) = (field(f, "value"), field(f, "field")) else {
                            return Recv::Unknown;
                        };
                        Recv::Method(
                            Box::new(self.depth.nested(|| self.recv(v))),
                            self.t(nm).to_string(),
                        )
                    }
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
            "field_expression" => {
                let (Some(v), Some(nm)) = (field(e, "value"), field(e, "field")) else {
                    return Recv::Unknown;
                };
                Recv::Field(
                    Box::new(self.depth.nested(|| self.recv(v))),
                    self.t(nm).to_string(),
                )
            }
            "reference_expression" | "parenthesized_expression" => kids(e)
                .into_iter()
                .rfind(|k| k.kind() != "mutable_specifier")
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
        match n.kind() {
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
                    if pp.kind() == "bracketed_type" {
                        self.deeper(|w| w.qualified(pp, n, kind));
                        return;
                    }
                    if pp.kind() == "generic_type"
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
                if let Some(a) = field(n, "type_arguments") {
                    self.deeper(|w| w.ty(a));
                }
                if let Some(f) = field(n, "function") {
                    if f.kind() == "field_expression" {
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
        match e.kind() {
            "identifier" | "scoped_identifier" | "generic_function" => {
                self.deeper(|w| w.value_path(e, RefKind::Ref))
            }
            "call_expression" => {
                if let Some(f) = field(e, "function") {
                    match f.kind() {
                        "field_expression" | "generic_function"
                            if f.kind() == "field_expression"
                                || field(f, "function")
                                    .is_some_and(|x| x.kind() == "field_expression") =>
                        {
                            let fe = if f.kind() == "generic_function" {
                                if let Some(a) = field(f, "type_arguments") {
                                    self.deeper(|w| w.ty(a));
                                }
                                field(f, "function").unwrap()
                            } else {
                                f
                            };
                            if let (Some(v), Some(nm)) = (field(fe, "value"), field(fe, "field")) {
                                self.deeper(|w| w.expr(v));
                                let r = self.deeper(|w| w.recv_of(v));
                                self.push_ref(
                                    RefKind::Call,
                                    What::Member(r, self.t(nm).to_string(), true),
                                    self.at(nm),
                                );
                            }
                        }
                        "identifier" | "scoped_identifier" | "generic_function" => {
                            self.deeper(|w| w.value_path(f, RefKind::Call))
                        }
                        _ => self.deeper(|w| w.expr(f)),
                    }
                }
                if let Some(args) = field(e, "arguments") {
                    for a in kids(args) {
                        match a.kind() {
                            "identifier" | "scoped_identifier" => {
                                self.deeper(|w| w.value_path(a, RefKind::Arg))
                            }
                            _ => self.deeper(|w| w.expr(a)),
                        }
                    }
                }
            }
            "field_expression" => {
                if let (Some(v), Some(nm)) = (field(e, "value"), field(e, "field")) {
                    self.deeper(|w| w.expr(v));
                    let r = self.deeper(|w| w.recv_of(v));
                    self.push_ref(
                        RefKind::Ref,
                        What::Member(r, self.t(nm).to_string(), false),
                        self.at(nm),
                    );
                }
            }
            "macro_invocation" => {
                if let Some(m) = field(e, "macro")
                    && let Some(segs) = self.deeper(|w| w.path_segs(m))
                {
                    let at = if m.kind() == "scoped_identifier" {
                        self.name_at(m)
                    } else {
                        self.at(m)
                    };
                    self.push_ref(RefKind::Call, What::Path(segs, Ns::Macro), at);
                }
                if let Some(tt) = kids(e).into_iter().find(|k| k.kind() == "token_tree") {
                    self.deeper(|w| w.macro_tokens(tt, false));
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
                    let at = match n.kind() {
                        "scoped_type_identifier" => self.name_at(n),
                        "generic_type_with_turbofish" => {
                            if let Some(a) = field(n, "type_arguments") {
                                self.deeper(|w| w.ty(a));
                            }
                            self.at(n)
                        }
                        _ => self.at(n),
                    };
                    self.push_ref(RefKind::Ref, What::Path(s.clone(), Ns::Type), at);
                }
                let recv = segs.map_or(Recv::Unknown, |s| Recv::Ty(Ty::Path(s, Vec::new())));
                if let Some(body) = field(e, "body") {
                    for fi in kids(body) {
                        match fi.kind() {
                            "field_initializer" => {
                                if let Some(nm) = field(fi, "field") {
                                    self.push_ref(
                                        RefKind::Ref,
                                        What::Member(recv.clone(), self.t(nm).to_string(), false),
                                        self.at(nm),
                                    );
                                }
                                if let Some(v) = field(fi, "value") {
                                    self.deeper(|w| w.expr(v));
                                }
                            }
                            "shorthand_field_initializer" => {
                                if let Some(nm) =
                                    kids(fi).into_iter().find(|k| k.kind() == "identifier")
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
                    if k.kind() == "block" {
                        self.deeper(|w| w.block(k));
                    } else if e.kind() == "block" {
                        self.deeper(|w| w.block(e));
                        return;
                    }
                }
            }
            "closure_expression" => {
                let mut scope = Scope::default();
                if let Some(ps) = field(e, "parameters") {
                    for p in kids(ps) {
                        if p.kind() == "parameter" {
                            let ty = field(p, "type").map(|t| {
                                self.deeper(|w| w.ty(t));
                                self.deeper(|w| w.ty_of(t))
                            });
                            if let Some(pat) = field(p, "pattern") {
                                if pat.kind() == "identifier" {
                                    scope.vals.insert(
                                        self.t(pat).to_string(),
                                        ty.map_or(Recv::Unknown, Recv::Ty),
                                    );
                                } else {
                                    self.deeper(|w| w.pattern(pat, &mut scope));
                                }
                            }
                        } else {
                            self.deeper(|w| w.pattern(p, &mut scope));
                        }
                    }
                }
                if let Some(r) = field(e, "return_type") {
                    self.deeper(|w| w.ty(r));
                }
                self.scopes.push(scope);
                if let Some(b) = field(e, "body") {
                    self.deeper(|w| w.expr(b));
                }
                self.scopes.pop();
            }
            "for_expression" => {
                if let Some(v) = field(e, "value") {
                    self.deeper(|w| w.expr(v));
                }
                let mut scope = Scope::default();
                if let Some(p) = field(e, "pattern") {
                    self.deeper(|w| w.pattern(p, &mut scope));
                }
                self.scopes.push(scope);
                if let Some(b) = field(e, "body") {
                    self.deeper(|w| w.block(b));
                }
                self.scopes.pop();
            }
            "if_expression" | "while_expression" => {
                // `if let` bindings are visible in the consequence.
                self.scopes.push(Scope::default());
                if let Some(c) = field(e, "condition") {
                    self.deeper(|w| w.condition(c));
                }
                if let Some(b) = field(e, "consequence").or_else(|| field(e, "body")) {
                    self.deeper(|w| w.block(b));
                }
                self.scopes.pop();
                if let Some(a) = field(e, "alternative") {
                    self.deeper(|w| w.expr(a));
                }
            }
            "else_clause" => {
                for k in kids(e) {
                    self.deeper(|w| w.expr(k));
                }
            }
            "match_expression" => {
                if let Some(v) = field(e, "value") {
                    self.deeper(|w| w.expr(v));
                }
                if let Some(b) = field(e, "body") {
                    for arm in kids(b) {
                        if arm.kind() != "match_arm" {
                            continue;
                        }
                        let mut scope = Scope::default();
                        if let Some(p) = field(arm, "pattern") {
                            for k in kids(p) {
                                if k.kind() == "condition"
                                    || p.child_by_field_name("condition") == Some(k)
                                {
                                    continue;
                                }
                                self.deeper(|w| w.pattern(k, &mut scope));
                            }
                            self.scopes.push(scope);
                            if let Some(c) = field(p, "condition") {
                                self.deeper(|w| w.condition(c));
                            }
                        } else {
                            self.scopes.push(scope);
                        }
                        if let Some(v) = field(arm, "value") {
                            self.deeper(|w| w.expr(v));
                        }
                        self.scopes.pop();
                    }
                }
            }
            // `format!("{x}", x = v)`: `x` names an argument, not a value.
            "assignment_expression"
                if self.shift.is_some()
                    && field(e, "left").is_some_and(|l| l.kind() == "identifier") =>
            {
                if let Some(r) = field(e, "right") {
                    self.deeper(|w| w.expr(r));
                }
            }
            "type_cast_expression" => {
                if let Some(v) = field(e, "value") {
                    self.deeper(|w| w.expr(v));
                }
                if let Some(t) = field(e, "type") {
                    self.deeper(|w| w.ty(t));
                }
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
