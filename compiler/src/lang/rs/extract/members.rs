//! What items hold: struct and variant fields, the functions, types and consts of traits and
//! impls, function parameters and bodies, generic parameters and their bounds.

use crate::lang::KindExt;
use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use super::{Recv, RefKind, Scope, Ty, Walker, field};
use crate::lang::kids;

impl Walker<'_> {
    /// The fields of a struct, union or variant body `b` (tuple fields by index).
    pub(super) fn fields(&mut self, b: Node, owner: &str, owner_id: usize) {
        // Every field of a variant of an exported enum is exported.
        let of_exported_variant = self.f.items[owner_id].kind == SymbolKind::EnumMember
            && self.f.items[owner_id].exported;
        let mut idx = 0;
        for fnode in kids(b) {
            let (nm, public, ty) = match fnode.kind_name() {
                "field_declaration" => {
                    (self.name_of(fnode), self.vis(fnode).1, field(fnode, "type"))
                }
                "visibility_modifier" | "attribute_item" | "line_comment" | "block_comment" => {
                    continue;
                }
                _ if b.kind_name() == "ordered_field_declaration_list" => {
                    // A tuple field: its type node, after an optional visibility.
                    let public = fnode.prev_named_sibling().is_some_and(|p| {
                        p.kind_name() == "visibility_modifier" && self.t(p) == "pub"
                    });
                    idx += 1;
                    ((idx - 1).to_string(), public, Some(fnode))
                }
                _ => continue,
            };
            let id = self.item(
                fnode,
                nm.clone(),
                format!("{owner}::{nm}"),
                SymbolKind::Field,
                public || of_exported_variant,
                None,
                Some(owner_id),
            );
            if let Some(t) = ty {
                self.typed(id, t);
            }
        }
    }

    pub(super) fn assoc_items(
        &mut self,
        b: Node,
        owner: Option<usize>,
        prefix: &str,
        in_trait_or_impl: bool,
    ) {
        let is_trait = owner.is_some_and(|o| self.f.items[o].kind == SymbolKind::Trait);
        for (k, off) in self.kids_cfg(b) {
            if off {
                continue;
            }
            let (_, ex) = self.vis(k);
            let ex = ex || in_trait_or_impl;
            match k.kind_name() {
                "function_item" | "function_signature_item" => {
                    self.deeper(|w| w.function(k, Some((owner, prefix.to_string(), is_trait)), ex));
                }
                "associated_type" | "type_item" => {
                    let name = self.name_of(k);
                    let id = self.item(
                        k,
                        name.clone(),
                        format!("{prefix}::{name}"),
                        SymbolKind::AssociatedType,
                        ex,
                        None,
                        owner,
                    );
                    if let Some(bd) = field(k, "bounds") {
                        self.deeper(|w| w.bounds(bd, RefKind::Type));
                    }
                    if let Some(t) = field(k, "type") {
                        self.typed(id, t);
                    }
                }
                "const_item" => {
                    let name = self.name_of(k);
                    let value = field(k, "value");
                    let sig = self.sig_before(k, value);
                    let id = self.item(
                        k,
                        name.clone(),
                        format!("{prefix}::{name}"),
                        SymbolKind::Const,
                        ex,
                        Some(sig),
                        owner,
                    );
                    if let Some(t) = field(k, "type") {
                        self.typed(id, t);
                    }
                    if let Some(v) = value {
                        let s = self.source;
                        self.source = self.src_of(id);
                        self.deeper(|w| w.expr(v));
                        self.source = s;
                    }
                }
                "macro_invocation" => self.deeper(|w| w.expr(k)),
                _ => {}
            }
        }
    }

    /// A fn: in a module (`owner` None) or in an impl or trait.
    pub(super) fn function(
        &mut self,
        n: Node,
        owner: Option<(Option<usize>, String, bool)>,
        exported: bool,
    ) {
        let name = self.name_of(n);
        let body = field(n, "body");
        let params = field(n, "parameters");
        let has_self =
            params.is_some_and(|p| kids(p).iter().any(|k| k.kind_name() == "self_parameter"));
        let (qn, kind, parent, is_trait) = match &owner {
            None => (name.clone(), SymbolKind::Function, None, false),
            Some((o, prefix, is_trait)) => {
                let kind = if *is_trait {
                    SymbolKind::TraitMethod
                } else if has_self {
                    SymbolKind::Method
                } else {
                    SymbolKind::StaticMethod
                };
                (format!("{prefix}::{name}"), kind, *o, *is_trait)
            }
        };
        let sig = self.sig(n, body);
        let id = self.item(n, name, qn, kind, exported, Some(sig), parent);
        self.f.items[id].default_body = is_trait && body.is_some();
        self.f.items[id].has_self = has_self;
        let s = self.source;
        if !self.f.items[id].local {
            self.source = self.src_of(id);
        }
        self.with_generics(n, |w| {
            let mut scope = Scope::default();
            if let Some(p) = params {
                for prm in kids(p) {
                    match prm.kind_name() {
                        "self_parameter" => {
                            scope.vals.insert(
                                "self".into(),
                                Recv::Ty(Ty::Path(vec!["Self".into()], Vec::new())),
                            );
                        }
                        "parameter" => w.parameter(prm, &mut scope, true),
                        _ => w.deeper(|w| w.ty(prm)),
                    }
                }
            }
            if let Some(r) = field(n, "return_type") {
                w.typed(id, r);
            }
            w.scopes.push(scope);
            if let Some(b) = body {
                w.deeper(|w| w.block(b));
            }
            w.scopes.pop();
        });
        self.source = s;
    }

    pub(super) fn generic_names(&self, n: Node) -> Vec<String> {
        let Some(tp) = field(n, "type_parameters") else {
            return Vec::new();
        };
        kids(tp)
            .into_iter()
            .filter(|p| {
                p.kind_name() == "type_parameter" || p.kind_name() == "constrained_type_parameter"
            })
            .filter_map(|p| {
                field(p, "name")
                    .or_else(|| field(p, "left"))
                    .map(|x| self.t(x).to_string())
            })
            .collect()
    }

    pub(super) fn with_generics<R>(&mut self, n: Node, f: impl FnOnce(&mut Self) -> R) -> R {
        let mut scope = Scope::default();
        let mut bounds: Vec<(String, Node)> = Vec::new();
        if let Some(tp) = field(n, "type_parameters") {
            for p in kids(tp) {
                if p.kind_name() == "type_parameter"
                    || p.kind_name() == "constrained_type_parameter"
                {
                    let nm = field(p, "name")
                        .or_else(|| field(p, "left"))
                        .map(|x| self.t(x).to_string())
                        .unwrap_or_default();
                    scope.tys.insert(nm.clone(), Vec::new());
                    if let Some(b) = field(p, "bounds") {
                        bounds.push((nm, b));
                    }
                } else if p.kind_name() == "const_parameter"
                    && let Some(nm) = field(p, "name")
                {
                    scope.vals.insert(self.t(nm).to_string(), Recv::Unknown);
                }
            }
        }
        if let Some(w) = kids(n)
            .into_iter()
            .find(|k| k.kind_name() == "where_clause")
        {
            for p in kids(w) {
                if p.kind_name() != "where_predicate" {
                    continue;
                }
                if let (Some(l), Some(b)) = (field(p, "left"), field(p, "bounds")) {
                    let nm = self.t(l).to_string();
                    if scope.tys.contains_key(&nm) {
                        bounds.push((nm, b));
                    } else {
                        self.deeper(|w| w.ty(l));
                        self.deeper(|w| w.bounds(b, RefKind::Type));
                    }
                }
            }
        }
        self.scopes.push(scope);
        for (nm, b) in bounds {
            let tys = self.deeper(|w| w.bounds(b, RefKind::Type));
            if let Some(v) = self.scopes.last_mut().unwrap().tys.get_mut(&nm) {
                v.extend(tys);
            }
        }
        let r = f(self);
        self.scopes.pop();
        r
    }

    /// Trait bounds: their type refs, and the written traits.
    pub(super) fn bounds(&mut self, b: Node, kind: RefKind) -> Vec<Ty> {
        let mut out = Vec::new();
        for k in kids(b) {
            let k = if k.kind_name() == "higher_ranked_trait_bound" {
                field(k, "value").unwrap_or(k)
            } else {
                k
            };
            match k.kind_name() {
                "lifetime" => {}
                "type_identifier" | "scoped_type_identifier" | "generic_type" => {
                    let t = self.deeper(|w| w.ty_of(k));
                    self.deeper(|w| w.type_refs(k, kind));
                    out.push(t);
                }
                _ => self.deeper(|w| w.ty(k)),
            }
        }
        out
    }
}
