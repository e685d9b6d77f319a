//! Descriptions of values for receiver typing, read off the syntax alone.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl<'s> Extractor<'s> {
    /// What a value is, as far as its syntax tells.
    pub(super) fn describe(&self, n: Node, depth: usize) -> Expr {
        if depth > MAX_EXPR {
            return Expr::Unknown;
        }
        match n.kind_name() {
            "identifier" | "identifier_dollar_escaped" => self.name_expr(self.t(n)),
            "this" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::This(c)),
            "super" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::Super(c)),
            "member_expression" | "null_aware_member_expression" => {
                let (Some(o), Some(p)) = (n.field("object"), n.field("property")) else {
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
            "call_expression" => match n.field("function") {
                Some(f) => Expr::Call(Box::new(self.describe(f, depth + 1))),
                None => Expr::Unknown,
            },
            "instantiation_expression" => match n.field("function") {
                Some(f) => self.describe(f, depth + 1),
                None => Expr::Unknown,
            },
            "parenthesized_expression" | "unary_expression" => match n.named_child(0) {
                Some(c) if n.named_child_count() == 1 => self.describe(c, depth + 1),
                _ => Expr::Unknown,
            },
            "null_assertion_expression" => match n.field("value") {
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
            "index_expression" => match n.field("object") {
                Some(o) => Expr::Elem(Box::new(self.describe(o, depth + 1))),
                None => Expr::Unknown,
            },
            "cascade" => match n.named_child(0) {
                Some(c) => self.describe(c, depth + 1),
                None => Expr::Unknown,
            },
            "new_expression" | "const_object_expression" => match n.field("type") {
                Some(t) => Expr::New(self.quiet_ty(t)),
                None => Expr::Unknown,
            },
            "constructor_invocation" => match n.field("type") {
                Some(t) => Expr::New(TypeRef::Named {
                    prefix: None,
                    name: self.t(t).to_string(),
                    args: Vec::new(),
                }),
                None => Expr::Unknown,
            },
            "string_literal" => Expr::Core(CoreName("String")),
            "decimal_integer_literal" | "hex_integer_literal" => Expr::Core(CoreName("int")),
            "decimal_floating_point_literal" => Expr::Core(CoreName("double")),
            "true"
            | "false"
            | "equality_expression"
            | "relational_expression"
            | "logical_and_expression"
            | "logical_or_expression"
            | "type_test_expression" => Expr::Core(CoreName("bool")),
            "list_literal" => Expr::Core(CoreName("List")),
            "set_or_map_literal" => Expr::Core(CoreName("Map")),
            "symbol_literal" => Expr::Core(CoreName("Symbol")),
            k if OPERATIONS.contains(&k) => {
                let ks = kids(n);
                match self.operator(&ks) {
                    Some(op) => Expr::Op(Box::new(self.describe(ks[0], depth + 1)), op),
                    None => Expr::Unknown,
                }
            }
            _ => Expr::Unknown,
        }
    }

    /// The operator of a binary expression's parts (`a + b`), as the member that implements it
    /// (`operator+`).
    pub(super) fn operator(&self, parts: &[Node]) -> Option<String> {
        let [_, op, _] = parts else {
            return None;
        };
        let op = self.t(*op).split_whitespace().collect::<String>();
        Some(format!("operator{op}"))
    }

    pub(super) fn object(&self, o: Node, depth: usize) -> Expr {
        if !o.is_named() {
            return match o.kind_name() {
                "this" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::This(c)),
                "super" => self.ctx.map_or(Expr::Unknown, |(c, _)| Expr::Super(c)),
                _ => Expr::Unknown,
            };
        }
        self.describe(o, depth + 1)
    }
}
