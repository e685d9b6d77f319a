//! Written types: read into descriptions, with a reference for every type name.

use super::*;
use crate::lang::KindExt;

impl<'s> Extractor<'s> {
    /// Reads a type and records a reference for every type name in it.
    /// The type child of `n` (a declaration, a parameter, a pattern), its names `TYPE_USES`.
    pub(super) fn written_type(&mut self, n: Node) -> Option<TypeRef> {
        child_of_kind(n, "type").map(|t| self.ty(t, Use::Type))
    }

    pub(super) fn ty(&mut self, n: Node, usage: Use) -> TypeRef {
        if !self.deeper() {
            return TypeRef::Unknown;
        }
        let r = self.ty_inner(n, usage);
        self.depth -= 1;
        r
    }

    pub(super) fn ty_inner(&mut self, n: Node, usage: Use) -> TypeRef {
        match n.kind_name() {
            "type_identifier" => {
                let nm = self.t(n).to_string();
                if self.lookup_type_param(&nm) {
                    return TypeRef::Param;
                }
                self.push_ref(n, usage, Target::TypeName(None, nm.clone()));
                TypeRef::Named {
                    prefix: None,
                    name: nm,
                    args: Vec::new(),
                }
            }
            "type" => {
                let ks = kids(n);
                let ids: Vec<Node> = ks
                    .iter()
                    .copied()
                    .filter(|k| k.kind_name() == "type_identifier")
                    .collect();
                let mut args = Vec::new();
                let mut other = TypeRef::Unknown;
                for k in &ks {
                    match k.kind_name() {
                        "type_arguments" => {
                            for a in kids(*k) {
                                if a.kind_name() == "type" {
                                    args.push(self.ty(a, Use::Type));
                                }
                            }
                        }
                        "function_type" | "record_type" => {
                            self.walk_types(*k);
                            other = TypeRef::Unknown;
                        }
                        "type" => other = self.ty(*k, usage),
                        _ => {}
                    }
                }
                match ids.as_slice() {
                    [one] => {
                        let nm = self.t(*one).to_string();
                        if self.lookup_type_param(&nm) {
                            return TypeRef::Param;
                        }
                        if nm == "dynamic" {
                            return TypeRef::Unknown;
                        }
                        self.push_ref(*one, usage, Target::TypeName(None, nm.clone()));
                        TypeRef::Named {
                            prefix: None,
                            name: nm,
                            args,
                        }
                    }
                    [p, c, ..] => {
                        let (pn, cn) = (self.t(*p).to_string(), self.t(*c).to_string());
                        if usage == Use::Call {
                            // `new C.named()` is handled by the caller.
                        }
                        self.push_ref(*c, usage, Target::TypeName(Some(pn.clone()), cn.clone()));
                        TypeRef::Named {
                            prefix: Some(pn),
                            name: cn,
                            args,
                        }
                    }
                    [] => other,
                }
            }
            _ => {
                self.walk_types(n);
                TypeRef::Unknown
            }
        }
    }

    /// Type names inside function and record types.
    pub(super) fn walk_types(&mut self, n: Node) {
        if !self.deeper() {
            return;
        }
        for k in kids(n) {
            match k.kind_name() {
                "type" | "type_identifier" => {
                    self.ty(k, Use::Type);
                }
                _ => self.walk_types(k),
            }
        }
        self.depth -= 1;
    }

    /// A type read without recording references (descriptions only).
    pub(super) fn quiet_ty(&self, n: Node) -> TypeRef {
        self.quiet_ty_at(n, 0)
    }

    pub(super) fn quiet_ty_at(&self, n: Node, depth: usize) -> TypeRef {
        if depth > MAX_EXPR {
            return TypeRef::Unknown;
        }
        let ids: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| k.kind_name() == "type_identifier")
            .collect();
        let args: Vec<TypeRef> = kids(n)
            .into_iter()
            .filter(|k| k.kind_name() == "type_arguments")
            .flat_map(kids)
            .filter(|a| a.kind_name() == "type")
            .map(|a| self.quiet_ty_at(a, depth + 1))
            .collect();
        let named = |prefix: Option<String>, name: String| {
            if prefix.is_none() && (self.lookup_type_param(&name) || name == "dynamic") {
                TypeRef::Param
            } else {
                TypeRef::Named { prefix, name, args }
            }
        };
        match (n.kind_name(), ids.as_slice()) {
            ("type_identifier", _) => named(None, self.t(n).to_string()),
            (_, [one]) => named(None, self.t(*one).to_string()),
            (_, [p, c, ..]) => named(Some(self.t(*p).to_string()), self.t(*c).to_string()),
            _ => TypeRef::Unknown,
        }
    }
}
