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
            "identifier" => Expr::Name(self.lookup(self.t(n))),
            "attribute" => match (n.field("object"), n.field("attribute")) {
                (Some(o), Some(a)) => {
                    Expr::Member(Box::new(self.expr_at(o, d + 1)), self.t(a).to_string())
                }
                _ => Expr::Unknown,
            },
            "call" => match n.field("function") {
                Some(f) if f.kind_name() == "identifier" && self.t(f) == "super" => {
                    match &self.method {
                        Some(m) => Expr::Super(m.class),
                        None => Expr::Unknown,
                    }
                }
                Some(f) => Expr::Call(Box::new(self.expr_at(f, d + 1))),
                None => Expr::Unknown,
            },
            "parenthesized_expression" => n
                .named_child(0)
                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
            "await" => n
                .named_child(0)
                .map_or(Expr::Unknown, |c| self.expr_at(c, d + 1)),
            // `xs[i]`, `d[k]` (a slice `xs[a:b]` is not an element).
            "subscript" => match n.field("value") {
                Some(v)
                    if !kids(n)
                        .iter()
                        .any(|k| matches!(k.kind_name(), "slice" | "ERROR")) =>
                {
                    Expr::Index(Box::new(self.expr_at(v, d + 1)))
                }
                _ => Expr::Unknown,
            },
            // `a or None`, `a or {}`: the value of `a` (the right adds no member); any other
            // `and`/`or` may be either operand.
            "boolean_operator" => {
                let empty = |x: Node| {
                    matches!(x.kind_name(), "none" | "false")
                        || (matches!(x.kind_name(), "list" | "dictionary" | "tuple" | "set")
                            && x.named_child_count() == 0)
                };
                match (
                    n.field("operator").map(|o| o.kind_name()),
                    n.field("left"),
                    n.field("right"),
                ) {
                    (Some("or"), Some(l), Some(r)) if empty(r) => self.expr_at(l, d + 1),
                    _ => Expr::Unknown,
                }
            }
            "string"
            | "concatenated_string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "list"
            | "dictionary"
            | "set"
            | "tuple"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "binary_operator"
            | "comparison_operator"
            | "not_operator"
            | "unary_operator" => Expr::External,
            _ => Expr::Unknown,
        }
    }

    pub(super) fn type_ref(&self, n: Node) -> TypeRef {
        self.type_at(n, 0)
    }

    pub(super) fn type_at(&self, n: Node, d: usize) -> TypeRef {
        if d > MAX_EXPR {
            return TypeRef::Unknown;
        }
        match n.kind_name() {
            "type" => n
                .named_child(0)
                .map_or(TypeRef::Unknown, |c| self.type_at(c, d + 1)),
            "identifier" => {
                let name = self.t(n);
                match name {
                    "int" | "str" | "float" | "bool" | "bytes" | "complex" | "object" | "type"
                    | "dict" | "set" | "frozenset" | "tuple" | "bytearray" => {
                        if matches!(self.lookup(name), NameRes::Unbound(_)) {
                            return TypeRef::External;
                        }
                        TypeRef::Named {
                            head: self.lookup(name),
                            path: Vec::new(),
                        }
                    }
                    _ => TypeRef::Named {
                        head: self.lookup(name),
                        path: Vec::new(),
                    },
                }
            }
            "attribute" => {
                let mut path = Vec::new();
                let mut cur = n;
                while cur.kind_name() == "attribute" {
                    match (cur.field("object"), cur.field("attribute")) {
                        (Some(o), Some(a)) => {
                            path.push(self.t(a).to_string());
                            cur = o;
                        }
                        _ => return TypeRef::Unknown,
                    }
                }
                if cur.kind_name() != "identifier" {
                    return TypeRef::Unknown;
                }
                path.reverse();
                TypeRef::Named {
                    head: self.lookup(self.t(cur)),
                    path,
                }
            }
            "none" => TypeRef::External,
            // A forward reference: a string holding a dotted name.
            "string" => {
                let inner = self.t(n).trim_matches(|c| c == '"' || c == '\'');
                let parts: Vec<&str> = inner.split('.').collect();
                let ident = |p: &str| {
                    p.chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_')
                        && p.chars().all(|c| c.is_alphanumeric() || c == '_')
                };
                if !parts.iter().all(|p| ident(p)) {
                    return TypeRef::Unknown;
                }
                TypeRef::Named {
                    head: self.module_lookup_or_scope(parts[0]),
                    path: parts[1..].iter().map(|p| p.to_string()).collect(),
                }
            }
            "binary_operator" => {
                // `A | B | None`.
                let mut parts = Vec::new();
                flatten_bitor(n, self.src, &mut parts);
                self.union_at(parts, d + 1)
            }
            "union_type" => self.union_at(kids(n), d + 1),
            "subscript" | "generic_type" => {
                let (head, args): (Option<Node>, Vec<Node>) = if n.kind_name() == "subscript" {
                    let args = kids(n)
                        .into_iter()
                        .filter(|k| Some(*k) != n.field("value"))
                        .collect();
                    (n.field("value"), args)
                } else {
                    let ks = kids(n);
                    let head = ks.first().copied();
                    let args = ks
                        .iter()
                        .filter(|k| k.kind_name() == "type_parameter")
                        .flat_map(|k| kids(*k))
                        .collect();
                    (head, args)
                };
                let Some(head) = head else {
                    return TypeRef::Unknown;
                };
                let hname = self.t(head).rsplit('.').next().unwrap_or("").to_string();
                match hname.as_str() {
                    "Optional" if args.len() == 1 => self.type_at(args[0], d + 1),
                    "Union" => self.union_at(args, d + 1),
                    "ClassVar" | "Final" | "Annotated" | "Required" | "NotRequired"
                    | "ReadOnly"
                        if !args.is_empty() =>
                    {
                        self.type_at(args[0], d + 1)
                    }
                    "list" | "List" | "Sequence" | "Iterable" | "Iterator" | "set" | "Set"
                    | "frozenset" | "FrozenSet" | "Collection" | "MutableSequence"
                    | "AbstractSet" | "Generator" | "AsyncIterator" | "AsyncIterable" | "deque"
                    | "Deque"
                        if !args.is_empty() =>
                    {
                        TypeRef::Seq(Box::new(self.type_at(args[0], d + 1)))
                    }
                    // The class object: a class's members.
                    "type" | "Type" if args.len() == 1 => self.type_at(args[0], d + 1),
                    "dict" | "Dict" | "Mapping" | "MutableMapping" | "DefaultDict"
                    | "defaultdict" | "OrderedDict" | "ChainMap"
                        if args.len() == 2 =>
                    {
                        TypeRef::Map(
                            Box::new(self.type_at(args[0], d + 1)),
                            Box::new(self.type_at(args[1], d + 1)),
                        )
                    }
                    "dict" | "Dict" | "Mapping" | "MutableMapping" | "tuple" | "Tuple"
                    | "Callable" | "DefaultDict" | "defaultdict" | "OrderedDict" | "Counter"
                    | "ChainMap" => TypeRef::External,
                    _ => match self.type_at(head, d + 1) {
                        // A generic class `Box[T]` has Box's members.
                        t @ TypeRef::Named { .. } => t,
                        _ => TypeRef::Unknown,
                    },
                }
            }
            _ => TypeRef::Unknown,
        }
    }

    /// A forward reference is resolved when the annotation is evaluated: in the enclosing
    /// scopes, like any name.
    pub(super) fn module_lookup_or_scope(&self, name: &str) -> NameRes {
        self.lookup(name)
    }

    pub(super) fn union_at(&self, parts: Vec<Node>, d: usize) -> TypeRef {
        let kept: Vec<Node> = parts
            .into_iter()
            .filter(|p| !(p.kind_name() == "none" || self.t(*p) == "None"))
            .collect();
        match kept.len() {
            0 => TypeRef::External,
            1 => self.type_at(kept[0], d + 1),
            _ => TypeRef::Union(kept.into_iter().map(|p| self.type_at(p, d + 1)).collect()),
        }
    }
}
