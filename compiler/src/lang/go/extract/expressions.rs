//! Expressions: identifiers and selectors recorded as references (with the receiver's type
//! when known), calls, function literals, composite literals and their keys, and every named
//! type inside a type expression.

use crate::lang::FieldExt;
use crate::lang::KindExt;
use tree_sitter::Node;

use super::{Extractor, Target, Ty, Use, collect_kind, fields, named, nearest_ancestor};
use crate::lang::{kids, pos};

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

impl Extractor<'_> {
    /// Records the references of expression `n`, used as `usage`.
    /// Walks the expression in field `name` of `n`, if there is one, as `usage`.
    pub(super) fn expr_field(&mut self, n: Node, name: &str, usage: Use) {
        if let Some(e) = n.field(name) {
            self.expr(e, usage);
        }
    }

    pub(super) fn expr(&mut self, n: Node, usage: Use) {
        self.nested(|x| x.expr_inner(n, usage));
    }

    /// [`Self::expr`] one level down the depth bound.
    fn expr_inner(&mut self, n: Node, usage: Use) {
        match n.kind_name() {
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
                let Some((operand, field)) = fields(n, "operand", "field") else {
                    return;
                };
                let name = self.text(field).to_string();
                if operand.kind_name() == "identifier" {
                    let op = self.text(operand);
                    match self.lookup_local(op) {
                        Some(ty) => {
                            let recv = ty.clone();
                            self.add_ref(Target::Member { recv, name }, usage, field);
                        }
                        None => {
                            let operand_at = pos(operand);
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
                if n.field("type")
                    .is_some_and(|t| t.kind_name() == "generic_type") =>
            {
                if let Some(t) = n.field("type") {
                    self.callee(t);
                }
                self.expr_field(n, "operand", Use::Arg);
            }
            "call_expression" => {
                if let Some(f) = n.field("function") {
                    self.callee(f);
                }
                self.type_refs_field(n, "type_arguments");
                if let Some(a) = n.field("arguments") {
                    for arg in named(a) {
                        self.expr(arg, Use::Arg);
                    }
                }
            }
            "composite_literal" => {
                let ty_node = n.field("type");
                if let Some(t) = ty_node {
                    self.type_refs(t);
                }
                if let Some(body) = n.field("body") {
                    self.literal_value(body, ty_node.map_or(LitTy::Unknown, LitTy::Node));
                }
            }
            "func_literal" => {
                let saved = self.source;
                self.with_scope(|x| {
                    let pending = x.signature_params(n);
                    x.declare_all(pending);
                    if let Some(b) = n.field("body") {
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
    pub(super) fn callee(&mut self, f: Node) {
        match f.kind_name() {
            "generic_type" => {
                if let Some(t) = f.field("type") {
                    self.type_name_as(t, Use::Call);
                }
                self.type_refs_field(f, "type_arguments");
            }
            "index_expression" => {
                self.expr_field(f, "operand", Use::Call);
                self.expr_field(f, "index", Use::Value);
            }
            _ => self.expr(f, Use::Call),
        }
    }

    /// A type name (`T` or `pkg.T`) recorded with the given use.
    pub(super) fn type_name_as(&mut self, t: Node, usage: Use) {
        match t.kind_name() {
            "type_identifier" => {
                let name = self.text(t).to_string();
                if self.lookup_local(&name).is_none() {
                    self.add_ref(Target::Ident(name), usage, t);
                }
            }
            "qualified_type" => {
                let Some((p, n)) = fields(t, "package", "name") else {
                    return;
                };
                let pkg = self.text(p).to_string();
                if self.lookup_local(&pkg).is_some() {
                    return;
                }
                let name = self.text(n).to_string();
                let at = pos(p);
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
                while let Some(inner) = match t.kind_name() {
                    "generic_type" => t.field("type"),
                    "pointer_type" => t.named_child(0),
                    _ => None,
                } {
                    t = inner;
                }
                match t.kind_name() {
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
                        t.field("element").map_or(LitTy::Unknown, LitTy::Node),
                    ),
                    "map_type" => (
                        Keys::Expressions(t.field("key")),
                        t.field("value").map_or(LitTy::Unknown, LitTy::Node),
                    ),
                    _ => (Keys::Unknown, LitTy::Unknown),
                }
            }
            LitTy::Ty(t) => (Keys::Fields(t.clone()), LitTy::Ty(Ty::Elem(Box::new(t)))),
            LitTy::Unknown => (Keys::Unknown, LitTy::Unknown),
        };
        for el in named(body) {
            match el.kind_name() {
                "keyed_element" => {
                    if let Some(k) = el.field("key") {
                        // `iota`, `nil`, `true` and `false` are identifiers too (field names
                        // may shadow them), though the grammar gives them their own kinds.
                        let ident = k.named_child(0).filter(|i| {
                            matches!(
                                i.kind_name(),
                                "identifier" | "iota" | "nil" | "true" | "false"
                            )
                        });
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
                    if let Some(v) = el.field("value") {
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
            Some(inner) if inner.kind_name() == "literal_value" => self.literal_value(inner, ty),
            Some(inner) => self.expr(inner, Use::Assign),
            None => {}
        }
    }

    /// Records every named type inside a type expression as a type use.
    /// The type references of the type in field `name` of `n`, if there is one.
    pub(super) fn type_refs_field(&mut self, n: Node, name: &str) {
        if let Some(t) = n.field(name) {
            self.type_refs(t);
        }
    }

    pub(super) fn type_refs(&mut self, t: Node) {
        self.nested(|x| x.type_refs_inner(t));
    }

    /// [`Self::type_refs`] one level down the depth bound.
    fn type_refs_inner(&mut self, t: Node) {
        match t.kind_name() {
            "type_identifier" | "qualified_type" => self.type_name_as(t, Use::Type),
            "struct_type" => {
                let mut fields = Vec::new();
                collect_kind(t, "field_declaration", &mut fields);
                for f in fields {
                    if nearest_ancestor(f, "struct_type") == Some(t)
                        && let Some(ty) = f.field("type")
                    {
                        self.type_refs(ty);
                    }
                }
            }
            "function_type" | "method_elem" => {
                self.with_scope(|x| {
                    let pending = x.signature_params(t);
                    x.declare_all(pending);
                });
            }
            "array_type" => {
                self.expr_field(t, "length", Use::Value);
                self.type_refs_field(t, "element");
            }
            _ => {
                for k in kids(t) {
                    if k.kind_name() == "field_identifier" {
                        continue;
                    }
                    self.type_refs(k);
                }
            }
        }
    }
}
