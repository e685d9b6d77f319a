//! Typing of expressions as far as the syntax shows it: the `Ty` a local gets from its
//! initializer, resolved against package scopes in phase 2.

use crate::lang::FieldExt;
use crate::lang::KindExt;
use tree_sitter::Node;

use super::{Extractor, MAX_DEPTH, Ty, fields};

impl Extractor<'_> {
    /// The named type a type expression denotes, looking through pointers and instantiation,
    /// within the typing depth bound.
    pub(super) fn ty_of_type(&self, t: Node) -> Option<Ty> {
        self.typing_bounded(|x| x.ty_of_type_unbounded(t))
    }

    fn ty_of_type_unbounded(&self, mut t: Node) -> Option<Ty> {
        loop {
            match t.kind_name() {
                "pointer_type" | "parenthesized_type" => t = t.named_child(0)?,
                "generic_type" => t = t.field("type")?,
                "type_identifier" => {
                    let name = self.text(t).to_string();
                    // A type parameter or local type is not a package-level type.
                    if self.lookup_local(&name).is_some() {
                        return None;
                    }
                    return Some(Ty::Named { qual: None, name });
                }
                "qualified_type" => {
                    let pkg = self.text(t.field("package")?).to_string();
                    if self.lookup_local(&pkg).is_some() {
                        return None;
                    }
                    let name = self.text(t.field("name")?).to_string();
                    return Some(Ty::Named {
                        qual: Some(pkg),
                        name,
                    });
                }
                "slice_type" | "array_type" | "implicit_length_array_type" => {
                    return Some(Ty::Container(Box::new(
                        self.ty_of_type(t.field("element")?)?,
                    )));
                }
                "map_type" => {
                    let key = t.field("key").and_then(|k| self.ty_of_type(k));
                    let value = t.field("value").and_then(|v| self.ty_of_type(v));
                    if key.is_none() && value.is_none() {
                        return None;
                    }
                    return Some(Ty::Map {
                        key: key.map(Box::new),
                        value: value.map(Box::new),
                    });
                }
                "channel_type" => {
                    return Some(Ty::Chan(Box::new(self.ty_of_type(t.field("value")?)?)));
                }
                _ => return None,
            }
        }
    }

    /// The type of an expression as far as the syntax shows it, within the typing depth bound.
    pub(super) fn ty_of_expr(&self, n: Node) -> Option<Ty> {
        self.typing_bounded(|x| x.ty_of_expr_unbounded(n))
    }

    /// Runs one level of typing deeper, or gives up (an unknown type) at [`MAX_DEPTH`]: an
    /// expression nested that deep cannot overflow the stack.
    fn typing_bounded(&self, typing: impl FnOnce(&Self) -> Option<Ty>) -> Option<Ty> {
        let depth = self.typing_depth.get();
        if depth >= MAX_DEPTH {
            return None;
        }
        self.typing_depth.set(depth + 1);
        let ty = typing(self);
        self.typing_depth.set(depth);
        ty
    }

    fn ty_of_expr_unbounded(&self, n: Node) -> Option<Ty> {
        match n.kind_name() {
            "parenthesized_expression" => self.ty_of_expr(n.named_child(0)?),
            "unary_expression" => {
                let op = n.field("operator").map(|o| self.text(o));
                let operand = n.field("operand")?;
                match op {
                    // Types are tracked without pointers, so taking an address or dereferencing
                    // keeps the named type.
                    Some("&" | "*") => self.ty_of_expr(operand),
                    // A receive yields the channel's element.
                    Some("<-") => Some(Ty::Elem(Box::new(self.ty_of_expr(operand)?))),
                    _ => None,
                }
            }
            "index_expression" => Some(Ty::Elem(Box::new(self.ty_of_expr(n.field("operand")?)?))),
            "slice_expression" => self.ty_of_expr(n.field("operand")?),
            "type_assertion_expression" => self.ty_of_type(n.field("type")?),
            "composite_literal" => self.ty_of_type(n.field("type")?),
            "identifier" => {
                let name = self.text(n);
                match self.lookup_local(name) {
                    Some(t) => t.clone(),
                    None => Some(Ty::Value {
                        qual: None,
                        name: name.to_string(),
                    }),
                }
            }
            "selector_expression" => match self.selector(n)? {
                // pkg.Var, or a package-level value's field: decided in phase 2.
                (Ok(qual), name) => Some(Ty::Value {
                    qual: Some(qual),
                    name,
                }),
                (Err(operand), name) => Some(Ty::Field {
                    base: Box::new(self.ty_of_expr(operand)?),
                    name,
                }),
            },
            "call_expression" => self.ty_of_call(n, 0),
            "type_conversion_expression" => {
                let t = n.field("type")?;
                if t.kind_name() == "generic_type" {
                    // `F[int](x)`: a generic func's result, or a conversion; phase 2 tells.
                    let base = t.field("type")?;
                    return match base.kind_name() {
                        "type_identifier" => Some(Ty::Call {
                            qual: None,
                            name: self.text(base).to_string(),
                            index: 0,
                        }),
                        "qualified_type" => Some(Ty::Call {
                            qual: Some(self.text(base.field("package")?).to_string()),
                            name: self.text(base.field("name")?).to_string(),
                            index: 0,
                        }),
                        _ => None,
                    };
                }
                self.ty_of_type(t)
            }
            _ => None,
        }
    }

    /// The type of result `index` of a call expression.
    pub(super) fn ty_of_call(&self, n: Node, index: usize) -> Option<Ty> {
        if n.kind_name() == "parenthesized_expression" {
            return self.ty_of_call(n.named_child(0)?, index);
        }
        if n.kind_name() != "call_expression" {
            return None;
        }
        let mut f = n.field("function")?;
        // `(*T)(p)` converts to a pointer type: look through the parentheses and the star.
        if f.kind_name() == "parenthesized_expression"
            && let Some(inner) = f.named_child(0)
        {
            f = match inner.kind_name() {
                "unary_expression"
                    if inner.field("operator").is_some_and(|o| self.text(o) == "*") =>
                {
                    inner.field("operand")?
                }
                "pointer_type" => return self.ty_of_type(inner),
                _ => inner,
            };
        }
        while matches!(
            f.kind_name(),
            "index_expression" | "type_instantiation_expression" | "generic_type"
        ) {
            f = f
                .field("operand")
                .or_else(|| f.field("type"))
                .or_else(|| f.named_child(0))?;
        }
        match f.kind_name() {
            "identifier" => {
                let name = self.text(f);
                if self.lookup_local(name).is_some() {
                    return None;
                }
                if name == "new" {
                    let arg = n.field("arguments").and_then(|a| a.named_child(0))?;
                    return self.ty_of_type(arg);
                }
                Some(Ty::Call {
                    qual: None,
                    name: name.to_string(),
                    index,
                })
            }
            "selector_expression" => match self.selector(f)? {
                // pkg.F(), or a method on a package-level value: decided in phase 2.
                (Ok(qual), name) => Some(Ty::Call {
                    qual: Some(qual),
                    name,
                    index,
                }),
                (Err(operand), name) => Some(Ty::MethodCall {
                    recv: Box::new(self.ty_of_expr(operand)?),
                    name,
                    index,
                }),
            },
            "parenthesized_type" | "pointer_type" | "qualified_type" | "type_identifier" => {
                self.ty_of_type(f)
            }
            _ => None,
        }
    }

    /// A selector `x.name`: the qualifier `x` when it is a bare identifier that is not a local (a
    /// package name or a package-level value, which phase 2 tells apart), else the operand node;
    /// and the name.
    fn selector<'t>(&self, n: Node<'t>) -> Option<(Result<String, Node<'t>>, String)> {
        let (operand, field) = fields(n, "operand", "field")?;
        let name = self.text(field).to_string();
        let text = self.text(operand);
        let qual = (operand.kind_name() == "identifier" && self.lookup_local(text).is_none())
            .then(|| text.to_string());
        Some((qual.ok_or(operand), name))
    }
}
