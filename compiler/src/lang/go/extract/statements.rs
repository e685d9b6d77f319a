//! Statements: block scopes, short variable declarations, `for`/`range`, `if`, `switch`,
//! `select` and the rest, declaring locals (with their types when the syntax shows them) as
//! they come into scope.

use crate::lang::FieldExt;
use crate::lang::KindExt;
use tree_sitter::Node;

use super::{Extractor, Ty, Use, has_token, named};
use crate::lang::kids;

impl Extractor<'_> {
    pub(super) fn block(&mut self, b: Node) {
        self.with_scope(|x| x.statements(b));
    }

    pub(super) fn statements(&mut self, parent: Node) {
        for k in kids(parent) {
            self.stmt(k);
        }
    }

    /// Records the references and locals of statement `n`.
    pub(super) fn stmt(&mut self, n: Node) {
        self.nested(|x| x.stmt_inner(n));
    }

    /// [`Self::stmt`] one level down the depth bound.
    fn stmt_inner(&mut self, n: Node) {
        match n.kind_name() {
            "block" => self.block(n),
            "statement_list" => self.statements(n),
            "short_var_declaration" => {
                let right: Vec<Node> = n.field("right").map(named).unwrap_or_default();
                for r in &right {
                    self.expr(*r, Use::Assign);
                }
                let left: Vec<Node> = n.field("left").map(named).unwrap_or_default();
                let types: Vec<Option<Ty>> = (0..left.len())
                    .map(|i| self.infer_value_ty(&right, left.len(), i))
                    .collect();
                for (l, ty) in left.iter().zip(types) {
                    if l.kind_name() == "identifier" {
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
                for s in kids(n) {
                    if matches!(s.kind_name(), "type_spec" | "type_alias") {
                        self.type_spec(s, false);
                    }
                }
            }
            "for_statement" => self.with_scope(|x| {
                for k in kids(n) {
                    match k.kind_name() {
                        "range_clause" => {
                            x.expr_field(k, "right", Use::Value);
                            let defines = has_token(k, ":=");
                            // The first variable is a map's key or a channel's element; the
                            // second, the element.
                            let ranged = k.field("right").and_then(|r| x.ty_of_expr(r));
                            let key = ranged.clone().map(|t| Ty::Key(Box::new(t)));
                            let elem = ranged.map(|t| Ty::Elem(Box::new(t)));
                            if let Some(l) = k.field("left") {
                                for (i, id) in named(l).into_iter().enumerate() {
                                    if defines && id.kind_name() == "identifier" {
                                        let t = x.text(id).to_string();
                                        let ty = match i {
                                            0 => key.clone(),
                                            1 => elem.clone(),
                                            _ => None,
                                        };
                                        x.declare_local(&t, ty);
                                    } else {
                                        x.expr(id, Use::Value);
                                    }
                                }
                            }
                        }
                        "for_clause" => {
                            for f in ["initializer", "condition", "update"] {
                                if let Some(s) = k.field(f) {
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
                if let Some(i) = n.field("initializer") {
                    x.stmt(i);
                }
                x.expr_field(n, "condition", Use::Value);
                if let Some(c) = n.field("consequence") {
                    x.block(c);
                }
                if let Some(a) = n.field("alternative") {
                    x.stmt(a);
                }
            }),
            "expression_switch_statement" | "type_switch_statement" | "select_statement" => self
                .with_scope(|x| {
                    if let Some(i) = n.field("initializer") {
                        x.stmt(i);
                    }
                    x.expr_field(n, "value", Use::Value);
                    let alias = n
                        .field("alias")
                        .and_then(|a| named(a).first().copied())
                        .map(|a| x.text(a).to_string());
                    for case in kids(n) {
                        match case.kind_name() {
                            "expression_case" | "default_case" | "type_case"
                            | "communication_case" => x.with_scope(|x| {
                                if case.kind_name() == "type_case" {
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
                                } else if case.kind_name() == "default_case"
                                    && let Some(a) = &alias
                                {
                                    x.declare_local(a, None);
                                }
                                x.expr_field(case, "value", Use::Value);
                                if let Some(comm) = case.field("communication") {
                                    x.stmt(comm);
                                }
                                for b in kids(case)
                                    .into_iter()
                                    .filter(|k| k.kind_name() == "statement_list")
                                {
                                    x.statements(b);
                                }
                            }),
                            _ => {}
                        }
                    }
                }),
            "receive_statement" => {
                self.expr_field(n, "right", Use::Value);
                if let Some(l) = n.field("left") {
                    let defines = has_token(n, ":=");
                    for id in named(l) {
                        if defines && id.kind_name() == "identifier" {
                            let t = self.text(id).to_string();
                            self.declare_local(&t, None);
                        } else {
                            self.expr(id, Use::Value);
                        }
                    }
                }
            }
            "labeled_statement" => {
                for k in kids(n)
                    .into_iter()
                    .filter(|k| k.kind_name() != "label_name")
                {
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
                self.expr_field(n, "left", Use::Value);
                if let Some(r) = n.field("right") {
                    for e in named(r) {
                        self.expr(e, Use::Assign);
                    }
                }
            }
            _ => self.expr(n, Use::Value),
        }
    }
}
