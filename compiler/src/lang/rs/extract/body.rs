//! Function bodies: blocks (a scope each, an anonymous module when they hold items), `let`
//! statements, patterns and their bindings, `if let` and `while let` conditions.

use crate::hash::HashMap;
use crate::lang::KindExt;

use tree_sitter::Node;

use super::{ModuleDecl, Ns, Recv, RefKind, Scope, Ty, Walker, What, field, is_item};
use crate::lang::kids;

impl Walker<'_> {
    /// A block: a new scope, and an anonymous module when it declares items.
    pub(super) fn block(&mut self, b: Node) {
        if self.deep() {
            return;
        }
        let has_items = kids(b).iter().any(|k| is_item(k.kind_name()));
        let m = self.module;
        if has_items {
            self.f.mods.push(ModuleDecl {
                parent: Some(m),
                name: String::new(),
                inline: true,
                block: true,
                path_attr: None,
                exported: false,
                span: self.span(b),
            });
            self.module = self.f.mods.len() - 1;
        }
        self.scopes.push(Scope::default());
        // Items first (they are visible in the whole block), then statements in order.
        let mut attrs: Vec<Node> = Vec::new();
        let children = self.kids_cfg(b);
        for &(k, off) in &children {
            match k.kind_name() {
                "attribute_item" => attrs.push(k),
                kind if is_item(kind) && off => attrs.clear(),
                kind if is_item(kind) => {
                    let a = self.attrs(&attrs);
                    attrs.clear();
                    // Local items see no locals of the enclosing fn.
                    let saved = std::mem::take(&mut self.scopes);
                    self.scopes = saved
                        .iter()
                        .map(|s| Scope {
                            vals: HashMap::default(),
                            tys: s.tys.clone(),
                        })
                        .collect();
                    self.deeper(|w| w.decl(k, &a));
                    self.scopes = saved;
                }
                _ => attrs.clear(),
            }
        }
        for &(k, off) in &children {
            if !is_item(k.kind_name()) && k.kind_name() != "attribute_item" && !off {
                self.deeper(|w| w.stmt(k));
            }
        }
        self.scopes.pop();
        self.module = m;
    }

    pub(super) fn stmt(&mut self, n: Node) {
        if self.deep() {
            return;
        }
        match n.kind_name() {
            "let_declaration" => self.let_declaration(n),
            "expression_statement" => {
                for k in kids(n) {
                    self.deeper(|w| w.expr(k));
                }
            }
            "line_comment" | "block_comment" | "empty_statement" => {}
            _ => self.deeper(|w| w.expr(n)),
        }
    }

    /// A `let`: its value, `else` block and type are walked, and its pattern binds for the rest
    /// of the block (a lone name to the written type, else to what the value's type is made of).
    fn let_declaration(&mut self, n: Node) {
        self.walk_field(n, "value", Self::expr);
        self.walk_field(n, "alternative", Self::block);
        let ty = field(n, "type").map(|t| {
            self.deeper(|w| w.ty(t));
            self.deeper(|w| w.ty_of(t))
        });
        if let Some(p) = field(n, "pattern") {
            let recv = match (ty, field(n, "value")) {
                (Some(t), _) => Recv::Ty(t),
                (None, Some(v)) => self.deeper(|w| w.recv_of(v)),
                _ => Recv::Unknown,
            };
            let mut scope = Scope::default();
            if p.kind_name() == "identifier" {
                scope.vals.insert(self.t(p).to_string(), recv);
            } else {
                self.deeper(|w| w.pattern(p, &mut scope));
            }
            // A `let` opens a scope for the rest of the block.
            let last = self.scopes.last_mut().unwrap();
            last.vals.extend(scope.vals);
        }
    }

    /// A `parameter` node: its type is walked, and its pattern binds in `scope`, a lone name (or
    /// with `typed_self`, a method's `self: T`) to the written type.
    pub(super) fn parameter(&mut self, p: Node, scope: &mut Scope, typed_self: bool) {
        let ty = field(p, "type").map(|t| {
            self.deeper(|w| w.ty(t));
            self.deeper(|w| w.ty_of(t))
        });
        let Some(pat) = field(p, "pattern") else {
            return;
        };
        let recv = ty.map_or(Recv::Unknown, Recv::Ty);
        match pat.kind_name() {
            "identifier" => {
                scope.vals.insert(self.t(pat).to_string(), recv);
            }
            "self" if typed_self => {
                scope.vals.insert("self".into(), recv);
            }
            _ => self.deeper(|w| w.pattern(pat, scope)),
        }
    }

    /// Bindings of a pattern go to `scope`; paths in it are references.
    pub(super) fn pattern(&mut self, p: Node, scope: &mut Scope) {
        if self.deep() {
            return;
        }
        match p.kind_name() {
            "identifier" => {
                let nm = self.t(p);
                if nm.starts_with(|c: char| c.is_uppercase()) && self.is_local(nm).is_none() {
                    self.push_ref(
                        RefKind::Ref,
                        What::Path(vec![nm.to_string()], Ns::Value),
                        self.at(p),
                    );
                } else {
                    scope.vals.insert(nm.to_string(), Recv::Unknown);
                }
            }
            "scoped_identifier" => {
                if let Some(segs) = self.deeper(|w| w.path_segs(p)) {
                    self.push_path_ref(RefKind::Ref, segs, Ns::Value, p);
                }
            }
            "tuple_struct_pattern" => {
                if let Some(t) = field(p, "type")
                    && let Some(segs) = self.deeper(|w| w.path_segs(t))
                {
                    self.push_path_ref(RefKind::Ref, segs, Ns::Value, t);
                }
                for k in kids(p).into_iter().skip(1) {
                    self.deeper(|w| w.pattern(k, scope));
                }
            }
            "struct_pattern" => {
                let ty = field(p, "type");
                let segs = ty.and_then(|t| self.deeper(|w| w.path_segs(t)));
                if let (Some(t), Some(segs)) = (ty, &segs) {
                    self.push_path_ref(RefKind::Ref, segs.clone(), Ns::Type, t);
                }
                for k in kids(p).into_iter().skip(1) {
                    if k.kind_name() == "field_pattern" {
                        if let Some(nm) = field(k, "name") {
                            if let Some(segs) = &segs {
                                self.push_ref(
                                    RefKind::Ref,
                                    What::Member(
                                        Recv::Ty(Ty::Path(segs.clone(), Vec::new())),
                                        self.t(nm).to_string(),
                                        false,
                                    ),
                                    self.at(nm),
                                );
                            }
                            match field(k, "pattern") {
                                Some(pp) => self.deeper(|w| w.pattern(pp, scope)),
                                None => {
                                    scope.vals.insert(self.t(nm).to_string(), Recv::Unknown);
                                }
                            }
                        } else {
                            for kk in kids(k) {
                                self.deeper(|w| w.pattern(kk, scope));
                            }
                        }
                    } else {
                        self.deeper(|w| w.pattern(k, scope));
                    }
                }
            }
            "shorthand_field_identifier" | "field_identifier" => {
                scope.vals.insert(self.t(p).to_string(), Recv::Unknown);
            }
            "_" | "integer_literal" | "string_literal" | "char_literal" | "boolean_literal"
            | "float_literal" => {}
            "range_pattern" | "negative_literal" => {
                for k in kids(p) {
                    if k.kind_name() == "scoped_identifier" || k.kind_name() == "identifier" {
                        self.deeper(|w| w.expr(k));
                    }
                }
            }
            _ => {
                for k in kids(p) {
                    self.deeper(|w| w.pattern(k, scope));
                }
            }
        }
    }

    /// An `if`/`while` condition; `let` patterns bind in the innermost scope.
    pub(super) fn condition(&mut self, c: Node) {
        if self.deep() {
            return;
        }
        match c.kind_name() {
            "let_condition" => {
                self.walk_field(c, "value", Self::expr);
                if let Some(p) = field(c, "pattern") {
                    let mut scope = Scope::default();
                    self.deeper(|w| w.pattern(p, &mut scope));
                    self.scopes.last_mut().unwrap().vals.extend(scope.vals);
                }
            }
            "let_chain" => {
                for k in kids(c) {
                    self.deeper(|w| w.condition(k));
                }
            }
            _ => self.deeper(|w| w.expr(c)),
        }
    }
}
