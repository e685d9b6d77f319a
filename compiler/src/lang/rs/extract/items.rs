//! Items: the declarations of a module body or block (modules, functions, types, traits,
//! impls, consts, macros, `use`s, `extern crate`), their attributes and signatures.

use crate::lang::KindExt;
use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use super::{
    Attrs, ImplDecl, Import, Item, Leaf, ModuleDecl, Ns, RefKind, Scope, SelfCtx, Ty, Walker, What,
    field,
};
use crate::lang::{collapse, kids};

impl Walker<'_> {
    pub(super) fn attrs(&self, attrs: &[Node]) -> Attrs {
        let mut a = Attrs {
            path: None,
            macro_export: false,
            derives: Vec::new(),
        };
        for at in attrs {
            let Some(attr) = kids(*at).into_iter().find(|k| k.kind_name() == "attribute") else {
                continue;
            };
            let Some(p) = kids(attr).into_iter().next() else {
                continue;
            };
            match self.t(p) {
                "path" => {
                    if let Some(v) = field(attr, "value") {
                        let s = self.t(v);
                        a.path = Some(s.trim_matches('"').to_string());
                    }
                }
                "macro_export" => a.macro_export = true,
                "derive" => {
                    if let Some(tt) = field(attr, "arguments") {
                        let mut cur: Vec<String> = Vec::new();
                        let mut at_pos = (0, 0);
                        let mut c = tt.walk();
                        for k in tt.children(&mut c) {
                            match k.kind_name() {
                                "identifier" => {
                                    at_pos = self.at(k);
                                    cur.push(self.t(k).to_string());
                                }
                                "::" | "(" => {}
                                "crate" | "self" | "super" => cur.push(self.t(k).to_string()),
                                _ => {
                                    if !cur.is_empty() {
                                        a.derives.push((std::mem::take(&mut cur), at_pos));
                                    }
                                }
                            }
                        }
                        if !cur.is_empty() {
                            a.derives.push((cur, at_pos));
                        }
                    }
                }
                _ => {}
            }
        }
        a
    }

    pub(super) fn vis(&self, n: Node) -> (bool, bool) {
        // (has visibility, unrestricted pub)
        for k in kids(n) {
            if k.kind_name() == "visibility_modifier" {
                return (true, self.t(k).trim() == "pub");
            }
        }
        (false, false)
    }

    pub(super) fn sig(&self, n: Node, body: Option<Node>) -> String {
        let end = body.map_or(n.end_byte(), |b| b.start_byte());
        collapse(&self.src[n.start_byte()..end.max(n.start_byte())])
    }

    /// The signature of `n` up to the `=` before `value` (a const's value, an alias's type), or
    /// all of `n` without one.
    pub(super) fn sig_before(&self, n: Node, value: Option<Node>) -> String {
        match value {
            Some(v) => {
                let s = &self.src[n.start_byte()..v.start_byte()];
                collapse(s.trim_end().trim_end_matches('=').trim_end())
            }
            None => self.sig(n, None),
        }
    }

    pub(super) fn add_item(&mut self, it: Item) -> usize {
        self.f.items.push(it);
        self.f.items.len() - 1
    }

    /// The source of the references inside item `id`: itself, unless it is a local.
    pub(super) fn src_of(&self, id: usize) -> Option<usize> {
        if self.f.items[id].local {
            self.source
        } else {
            Some(id)
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn item(
        &mut self,
        n: Node,
        name: String,
        qn: String,
        kind: SymbolKind,
        exported: bool,
        sig: Option<String>,
        parent: Option<usize>,
    ) -> usize {
        let local = self.f.mods[self.module].block;
        self.add_item(Item {
            module: self.module,
            parent,
            name,
            qn,
            kind,
            span: self.span(n),
            sig,
            exported,
            ty: None,
            selfc: self.selfc,
            default_body: false,
            macro_export: false,
            local,
            value_too: false,
            supers: Vec::new(),
            has_self: false,
            generics: Vec::new(),
        })
    }

    /// An item of a module (or block) named `name`, with signature `sig`.
    fn module_item(
        &mut self,
        n: Node,
        name: &str,
        kind: SymbolKind,
        exported: bool,
        sig: String,
    ) -> usize {
        self.item(n, name.into(), name.into(), kind, exported, Some(sig), None)
    }

    /// A module item with a body (an enum, a trait): its name, its body and its id, with the
    /// signature up to the body.
    fn item_with_body<'t>(
        &mut self,
        n: Node<'t>,
        kind: SymbolKind,
        exported: bool,
    ) -> (String, Option<Node<'t>>, usize) {
        let name = self.name_of(n);
        let body = field(n, "body");
        let sig = self.sig(n, body);
        let id = self.module_item(n, &name, kind, exported, sig);
        (name, body, id)
    }

    /// The items of a module body (source file, declaration list, block).
    pub(super) fn items(&mut self, body: Node) {
        if self.deep() {
            return;
        }
        if self.inner_cfg_off(body) {
            return;
        }
        let mut attrs: Vec<Node> = Vec::new();
        for (k, off) in self.kids_cfg(body) {
            match k.kind_name() {
                "attribute_item" => {
                    attrs.push(k);
                    continue;
                }
                "line_comment" | "block_comment" | "inner_attribute_item" => continue,
                _ => {}
            }
            let a = self.attrs(&attrs);
            attrs.clear();
            if off {
                continue;
            }
            self.deeper(|w| w.decl(k, &a));
        }
    }

    pub(super) fn name_of(&self, n: Node) -> String {
        field(n, "name").map_or(String::new(), |x| self.t(x).to_string())
    }

    pub(super) fn derives(&mut self, a: &Attrs) {
        for (segs, p) in &a.derives {
            self.push_ref(RefKind::Derive, What::Path(segs.clone(), Ns::Type), *p);
        }
    }

    pub(super) fn decl(&mut self, n: Node, a: &Attrs) {
        if self.deep() {
            return;
        }
        let (_, exported) = self.vis(n);
        match n.kind_name() {
            "mod_item" => {
                let name = self.name_of(n);
                let body = field(n, "body");
                self.f.mods.push(ModuleDecl {
                    parent: Some(self.module),
                    name: name.clone(),
                    inline: body.is_some(),
                    block: false,
                    path_attr: a.path.clone(),
                    exported,
                    span: self.span(n),
                });
                let id = self.f.mods.len() - 1;
                if let Some(b) = body {
                    let (m, s, sc) = (self.module, self.source, self.selfc);
                    self.module = id;
                    self.source = None;
                    self.selfc = None;
                    self.scopes.push(Scope::default());
                    self.deeper(|w| w.items(b));
                    self.scopes.pop();
                    (self.module, self.source, self.selfc) = (m, s, sc);
                }
            }
            "function_item" | "function_signature_item" => {
                self.function(n, None, exported);
            }
            "struct_item" | "union_item" => {
                let name = self.name_of(n);
                let body = field(n, "body");
                let kind = if n.kind_name() == "union_item" {
                    SymbolKind::Union
                } else {
                    SymbolKind::Struct
                };
                let sig = self.sig(
                    n,
                    body.filter(|b| b.kind_name() == "field_declaration_list"),
                );
                let id = self.module_item(n, &name, kind, exported, sig);
                self.f.items[id].value_too =
                    body.is_none_or(|b| b.kind_name() == "ordered_field_declaration_list");
                self.f.items[id].generics = self.generic_names(n);
                let s = self.source;
                self.source = self.src_of(id);
                self.derives(a);
                self.with_generics(n, |w| {
                    if let Some(b) = body {
                        w.deeper(|w| w.fields(b, &name, id));
                    }
                });
                self.source = s;
            }
            "enum_item" => {
                let (name, body, id) = self.item_with_body(n, SymbolKind::Enum, exported);
                let s = self.source;
                self.source = self.src_of(id);
                self.derives(a);
                self.with_generics(n, |w| {
                    let Some(b) = body else { return };
                    for v in kids(b) {
                        if v.kind_name() != "enum_variant" {
                            continue;
                        }
                        let vn = w.name_of(v);
                        let qn = format!("{name}::{vn}");
                        let vb = field(v, "body");
                        let vid = w.item(
                            v,
                            vn,
                            qn.clone(),
                            SymbolKind::EnumMember,
                            exported,
                            None,
                            Some(id),
                        );
                        w.f.items[vid].value_too =
                            vb.is_none_or(|b| b.kind_name() == "ordered_field_declaration_list");
                        if let Some(vb) = vb {
                            w.deeper(|w| w.fields(vb, &qn, vid));
                        }
                        w.walk_field(v, "value", Self::expr);
                    }
                });
                self.source = s;
            }
            "trait_item" => {
                let (name, body, id) = self.item_with_body(n, SymbolKind::Trait, exported);
                let (s, sc) = (self.source, self.selfc);
                self.source = self.src_of(id);
                self.selfc = Some(SelfCtx::Trait(id));
                self.with_generics(n, |w| {
                    if let Some(b) = field(n, "bounds") {
                        let sup = w.deeper(|w| w.bounds(b, RefKind::Extends));
                        w.f.items[id].supers = sup;
                    }
                    if let Some(b) = body {
                        w.deeper(|w| w.assoc_items(b, Some(id), &name, true));
                    }
                });
                (self.source, self.selfc) = (s, sc);
            }
            "impl_item" => {
                let Some(self_node) = field(n, "type") else {
                    return;
                };
                let trait_node = field(n, "trait");
                let body = field(n, "body");
                let sig = self.sig(n, body);
                let sname = self.type_name(self_node);
                let (qn, prefix) = match trait_node {
                    Some(t) => {
                        let tn = self.type_name(t);
                        (
                            format!("impl {tn} for {sname}"),
                            format!("<{sname} as {tn}>"),
                        )
                    }
                    None => (format!("impl {sname}"), sname.clone()),
                };
                let id = self.module_item(n, &qn, SymbolKind::Implementation, false, sig);
                let impl_idx = self.f.impls.len();
                self.f.impls.push(ImplDecl {
                    item: id,
                    self_ty: Ty::Unknown,
                    trait_: None,
                    trait_pos: trait_node.map_or((0, 0), |t| self.at(t)),
                });
                let (s, sc) = (self.source, self.selfc);
                self.source = self.src_of(id);
                self.with_generics(n, |w| {
                    let st = w.deeper(|w| w.ty_of(self_node));
                    w.deeper(|w| w.ty(self_node));
                    let tt = trait_node.map(|t| {
                        let tt = w.deeper(|w| w.ty_of(t));
                        w.deeper(|w| w.ty(t));
                        tt
                    });
                    w.f.impls[impl_idx].self_ty = st;
                    w.f.impls[impl_idx].trait_ = tt;
                    w.selfc = Some(SelfCtx::Impl(impl_idx));
                    if let Some(b) = body {
                        w.deeper(|w| w.assoc_items(b, Some(id), &prefix, trait_node.is_some()));
                    }
                });
                (self.source, self.selfc) = (s, sc);
            }
            "type_item" => {
                let name = self.name_of(n);
                let sig = self.sig_before(n, field(n, "type"));
                let id = self.module_item(n, &name, SymbolKind::TypeAlias, exported, sig);
                let s = self.source;
                self.source = self.src_of(id);
                self.with_generics(n, |w| {
                    if let Some(t) = field(n, "type") {
                        w.typed(id, t);
                    }
                });
                self.source = s;
            }
            "const_item" | "static_item" => {
                let name = self.name_of(n);
                let kind = if n.kind_name() == "const_item" {
                    SymbolKind::Const
                } else {
                    SymbolKind::Static
                };
                let value = field(n, "value");
                let sig = self.sig_before(n, value);
                let id = self.module_item(n, &name, kind, exported, sig);
                let s = self.source;
                self.source = self.src_of(id);
                if let Some(t) = field(n, "type") {
                    self.typed(id, t);
                }
                if let Some(v) = value {
                    self.deeper(|w| w.expr(v));
                }
                self.source = s;
            }
            "macro_definition" => {
                let name = self.name_of(n);
                let id = self.item(
                    n,
                    name.clone(),
                    name,
                    SymbolKind::Macro,
                    a.macro_export,
                    None,
                    None,
                );
                self.f.items[id].macro_export = a.macro_export;
                for rule in kids(n) {
                    if rule.kind_name() == "macro_rule"
                        && let Some(tt) = field(rule, "right")
                    {
                        self.deeper(|w| w.macro_tokens(tt, true));
                    }
                }
            }
            "use_declaration" => {
                let (_, exported) = self.vis(n);
                if let Some(arg) = field(n, "argument") {
                    self.deeper(|w| w.use_tree(arg, Vec::new(), exported));
                }
            }
            "extern_crate_declaration" => {
                let Some(nm) = field(n, "name") else { return };
                let alias = field(n, "alias").map(|a| self.t(a).to_string());
                let (_, exported) = self.vis(n);
                let name = self.t(nm).to_string();
                if name == "self" {
                    return;
                }
                self.f.uses.push(Import {
                    module: self.module,
                    segs: vec!["::".into(), name],
                    leaf: Leaf::Name(alias),
                    exported,
                    pos: self.at(nm),
                    source: self.source,
                });
            }
            "macro_invocation" => {
                let name = field(n, "macro").map(|m| self.t(m)).unwrap_or("");
                if name == "cfg_if" || name.ends_with("::cfg_if") {
                    self.deeper(|w| w.cfg_if_items(n));
                }
                self.deeper(|w| w.expr(n))
            }
            "expression_statement" => self.deeper(|w| w.expr(n)),
            "foreign_mod_item" => {
                if let Some(b) = field(n, "body") {
                    self.deeper(|w| w.items(b));
                }
            }
            "let_declaration" => self.deeper(|w| w.stmt(n)),
            "empty_statement" | "line_comment" | "block_comment" => {}
            _ => {
                if n.kind_name().ends_with("_expression") || n.kind_name() == "block" {
                    self.deeper(|w| w.expr(n))
                }
            }
        }
    }
}
