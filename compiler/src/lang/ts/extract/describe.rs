//! Descriptions of receivers and written types for phase 2 (bounded in depth).

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    pub(super) fn expr_of(&self, n: Node) -> Expr {
        self.expr_at(n, 0)
    }

    pub(super) fn expr_at(&self, n: Node, d: usize) -> Expr {
        if d > MAX_EXPR {
            return Expr::Unknown;
        }
        match n.kind_name() {
            "identifier" => {
                let name = self.t(n);
                if name == "undefined" {
                    return Expr::External;
                }
                Expr::Name(self.lookup(name, false))
            }
            "this" => match &self.this_type {
                Some(t) => Expr::Typed(t.clone()),
                None => Expr::This(self.this_class.flatten()),
            },
            "super" => Expr::Super(self.this_class.flatten()),
            "member_expression" => match (n.field("object"), n.field("property")) {
                (Some(o), Some(p)) => {
                    Expr::Member(Box::new(self.expr_at(o, d + 1)), self.t(p).to_string())
                }
                _ => Expr::Unknown,
            },
            "call_expression" => match n.field("function") {
                Some(f) => {
                    if self.require_of(n).is_some() {
                        return Expr::Unknown;
                    }
                    Expr::Call(Box::new(self.expr_at(f, d + 1)))
                }
                None => Expr::Unknown,
            },
            "new_expression" => match n.field("constructor") {
                Some(c) => Expr::New(Box::new(self.expr_at(c, d + 1))),
                None => Expr::Unknown,
            },
            "parenthesized_expression" | "non_null_expression" => n
                .named_child(0)
                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
            "await_expression" => n.named_child(0).map_or(Expr::Unknown, |c| {
                Expr::Await(Box::new(self.expr_at(c, d + 1)))
            }),
            "as_expression" | "satisfies_expression" => {
                let ty = n.named_child(1);
                match ty {
                    Some(t) if n.kind_name() == "as_expression" => {
                        if self.t(t) == "const" {
                            n.named_child(0)
                                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1))
                        } else {
                            Expr::Typed(self.type_at(t, d + 1))
                        }
                    }
                    _ => n
                        .named_child(0)
                        .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
                }
            }
            "type_assertion" => n
                .named_child(0)
                .map_or(Expr::Unknown, |t| Expr::Typed(self.type_at(t, d + 1))),
            "subscript_expression" => {
                let idx_is_number = n.field("index").is_some_and(|i| i.kind_name() == "number");
                match n.field("object") {
                    Some(o) if idx_is_number => {
                        let i = n
                            .field("index")
                            .and_then(|i| self.t(i).parse::<usize>().ok());
                        let o = Box::new(self.expr_at(o, d + 1));
                        match i {
                            Some(i) => Expr::Nth(o, i),
                            None => Expr::Elem(o),
                        }
                    }
                    _ => Expr::Unknown,
                }
            }
            // `a ?? {}`, `a || []`: the members of `a` (an empty literal adds none); another
            // `??`, `||` or `&&` may be either operand.
            "binary_expression" => {
                let empty = |x: Node| {
                    matches!(x.kind_name(), "object" | "array") && x.named_child_count() == 0
                };
                let (l, r) = (n.field("left"), n.field("right"));
                match n.field("operator").map(|o| o.kind_name()) {
                    Some("??" | "||") if r.is_some_and(empty) => {
                        l.map_or(Expr::Unknown, |l| self.expr_at(l, d + 1))
                    }
                    Some("??" | "||" | "&&") => Expr::Unknown,
                    _ => Expr::External,
                }
            }
            "string" | "template_string" | "number" | "true" | "false" | "null" | "array"
            | "regex" | "unary_expression" => Expr::External,
            // A function value: its parameters' written types (what a callback passed to it
            // receives).
            "arrow_function" | "function_expression" | "function" => Expr::Typed(TypeRef::Fn(
                self.written_params(n, d),
                n.field("return_type")
                    .map(|r| Box::new(self.type_at(r, d + 1))),
            )),
            _ => Expr::Unknown,
        }
    }

    /// The written types of the parameters of a function-like node (`this:` left out).
    pub(super) fn written_params(&self, n: Node, d: usize) -> Vec<Option<TypeRef>> {
        let mut ps = Vec::new();
        if let Some(params) = n.field("parameters") {
            let mut c = params.walk();
            for p in params.named_children(&mut c) {
                if matches!(p.kind_name(), "required_parameter" | "optional_parameter") {
                    if p.field("pattern").is_some_and(|x| x.kind_name() == "this") {
                        continue;
                    }
                    ps.push(p.field("type").map(|t| self.type_at(t, d + 1)));
                }
            }
        }
        ps
    }

    pub(super) fn type_ref(&self, n: Node) -> TypeRef {
        self.type_at(n, 0)
    }

    pub(super) fn type_at(&self, n: Node, d: usize) -> TypeRef {
        if d > MAX_EXPR {
            return TypeRef::Unknown;
        }
        match n.kind_name() {
            "type_annotation" | "parenthesized_type" | "readonly_type" => n
                .named_child(0)
                .map_or(TypeRef::Unknown, |c| self.type_at(c, d + 1)),
            "type_identifier" => TypeRef::Named {
                head: self.lookup(self.t(n), true),
                path: Vec::new(),
                args: Vec::new(),
            },
            "nested_type_identifier" => {
                let mut path = Vec::new();
                let mut cur = Some(n);
                let mut head = None;
                while let Some(c) = cur {
                    match c.kind_name() {
                        "nested_type_identifier" => {
                            if let Some(nm) = c.field("name") {
                                path.push(self.t(nm).to_string());
                            }
                            cur = c.field("module");
                        }
                        "nested_identifier" | "member_expression" => {
                            if let Some(p) = c.field("property") {
                                path.push(self.t(p).to_string());
                            }
                            cur = c.field("object");
                        }
                        "identifier" => {
                            head = Some(self.lookup(self.t(c), false));
                            cur = None;
                        }
                        _ => return TypeRef::Unknown,
                    }
                }
                path.reverse();
                match head {
                    Some(head) => TypeRef::Named {
                        head,
                        path,
                        args: Vec::new(),
                    },
                    None => TypeRef::Unknown,
                }
            }
            "generic_type" => {
                let base = n
                    .field("name")
                    .map_or(TypeRef::Unknown, |b| self.type_at(b, d + 1));
                let args: Vec<TypeRef> = n
                    .field("type_arguments")
                    .map(|a| {
                        let mut c = a.walk();
                        a.named_children(&mut c)
                            .map(|t| self.type_at(t, d + 1))
                            .collect()
                    })
                    .unwrap_or_default();
                match base {
                    TypeRef::Named { head, path, .. } => TypeRef::Named { head, path, args },
                    other => other,
                }
            }
            "array_type" => n.named_child(0).map_or(TypeRef::Unknown, |c| {
                TypeRef::Array(Box::new(self.type_at(c, d + 1)))
            }),
            "union_type" => {
                // `T | null | undefined` is T; any other union is not one type.
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                let mut flat = Vec::new();
                for p in parts {
                    flatten_union(p, &mut flat);
                }
                let kept: Vec<Node> = flat
                    .into_iter()
                    .filter(|p| {
                        let nullish = matches!(p.kind_name(), "null" | "undefined")
                            || (matches!(p.kind_name(), "literal_type" | "predefined_type")
                                && matches!(self.t(*p), "null" | "undefined"));
                        !nullish
                    })
                    .collect();
                if kept.len() == 1 {
                    self.type_at(kept[0], d + 1)
                } else {
                    TypeRef::Union(kept.into_iter().map(|p| self.type_at(p, d + 1)).collect())
                }
            }
            "intersection_type" => {
                let mut c = n.walk();
                let parts: Vec<TypeRef> = n
                    .named_children(&mut c)
                    .map(|p| self.type_at(p, d + 1))
                    .collect();
                TypeRef::Intersection(parts)
            }
            "this_type" => TypeRef::This,
            "type_predicate_annotation" => n
                .named_child(0)
                .map_or(TypeRef::Unknown, |c| self.type_at(c, d + 1)),
            "type_predicate" => match (n.field("name"), n.field("type")) {
                (Some(p), Some(t)) if p.kind_name() == "identifier" => TypeRef::Predicate(
                    usize::MAX,
                    Box::new(self.type_at(t, d + 1)),
                    self.t(p).to_string(),
                ),
                _ => TypeRef::External,
            },
            // `T["key"]`.
            "lookup_type" => {
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                match parts[..] {
                    [base, key]
                        if key.kind_name() == "literal_type"
                            && key
                                .named_child(0)
                                .is_some_and(|s| s.kind_name() == "string") =>
                    {
                        let key = key
                            .named_child(0)
                            .map_or(String::new(), |s| super::string_value(s, self.src));
                        TypeRef::Index(Box::new(self.type_at(base, d + 1)), key)
                    }
                    _ => TypeRef::Unknown,
                }
            }
            // `any` and `unknown` say nothing about the value.
            "predefined_type" if matches!(self.t(n), "any" | "unknown") => TypeRef::Unknown,
            "function_type" => TypeRef::Fn(
                self.written_params(n, d),
                n.field("return_type")
                    .map(|r| Box::new(self.type_at(r, d + 1))),
            ),
            "conditional_type" => {
                let extends_any = n.field("right").is_some_and(|r| {
                    r.kind_name() == "predefined_type" && matches!(self.t(r), "any" | "unknown")
                });
                match (n.field("left"), n.field("consequence")) {
                    (Some(l), Some(c)) => TypeRef::Cond {
                        check: Box::new(self.type_at(l, d + 1)),
                        extends_any,
                        then: Box::new(self.type_at(c, d + 1)),
                    },
                    _ => TypeRef::Unknown,
                }
            }
            "tuple_type" => {
                let mut ts = Vec::new();
                for m in kids(n) {
                    match m.kind_name() {
                        "rest_type" | "comment" => break,
                        "required_parameter" | "optional_parameter" => {
                            if m.field("name")
                                .is_some_and(|x| x.kind_name() == "rest_pattern")
                            {
                                break;
                            }
                            ts.push(
                                m.field("type")
                                    .map_or(TypeRef::Unknown, |t| self.type_at(t, d + 1)),
                            );
                        }
                        "optional_type" => ts.push(
                            m.named_child(0)
                                .map_or(TypeRef::Unknown, |t| self.type_at(t, d + 1)),
                        ),
                        _ => ts.push(self.type_at(m, d + 1)),
                    }
                }
                TypeRef::Tuple(ts)
            }
            "literal_type" if n.named_child(0).is_some_and(|s| s.kind_name() == "string") => {
                TypeRef::Literal(
                    n.named_child(0)
                        .map_or(String::new(), |s| super::string_value(s, self.src)),
                )
            }
            "predefined_type" | "literal_type" | "template_literal_type" => TypeRef::External,
            "object_type" if let Some(t) = mapped_over(n) => {
                TypeRef::Mapped(Box::new(self.type_at(t, d + 1)))
            }
            "object_type" => {
                let mut props = Vec::new();
                let mut c = n.walk();
                for m in n.named_children(&mut c) {
                    match m.kind_name() {
                        "property_signature" => {
                            if let Some(name) = m.field("name") {
                                props.push((
                                    self.spec_name(name),
                                    m.field("type").map(|t| self.type_at(t, d + 1)),
                                ));
                            }
                        }
                        "method_signature" | "comment" => {}
                        // Call, construct and index signatures: what a call or an index
                        // gives is not followed.
                        "call_signature" | "construct_signature" | "index_signature" => {
                            return TypeRef::Unknown;
                        }
                        _ => return TypeRef::External,
                    }
                }
                TypeRef::Object(props)
            }
            _ => TypeRef::Unknown,
        }
    }
}

/// `T` of an object type that is one homomorphic mapped type `{ [k in keyof T]: … }` (without
/// an `as` clause).
pub(super) fn mapped_over(n: Node) -> Option<Node> {
    let members: Vec<Node> = kids(n)
        .into_iter()
        .filter(|k| k.is_named() && k.kind_name() != "comment")
        .collect();
    let [sig] = members[..] else { return None };
    if sig.kind_name() != "index_signature" {
        return None;
    }
    let clause = kids(sig)
        .into_iter()
        .find(|k| k.kind_name() == "mapped_type_clause")?;
    if clause.field("alias").is_some() {
        return None;
    }
    let keys = clause.field("type")?;
    if keys.kind_name() != "index_type_query" {
        return None;
    }
    keys.named_child(0)
}
