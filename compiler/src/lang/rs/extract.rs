//! Phase 1 of Rust: one file's modules, items, impls, `use` trees and references, with locals
//! and generic parameters bound by the file's own scopes. Paths are left for phase 2.

use std::collections::HashMap;

use kivgraph_format::SymbolKind;
use tree_sitter::{Node, Parser};

use super::Depth;
use crate::lang::{Span, collapse, kids, pos, text};

/// Deeper nesting than this is not followed; the file is `partial`.
const MAX_DEPTH: usize = 300;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ns {
    Type,
    Value,
    Macro,
}

/// A written type.
#[derive(Clone, Debug)]
pub enum Ty {
    /// A path, with the generic arguments of its last segment.
    Path(Vec<String>, Vec<Ty>),
    /// `&T`, `&mut T`, `*const T`.
    Ref(Box<Ty>),
    /// `impl Trait` or `dyn Trait`: its written trait bounds.
    Bounds(Vec<Ty>),
    /// A generic parameter and its written trait bounds.
    Param(String, Vec<Ty>),
    Unknown,
}

/// What a receiver expression's type is made of.
#[derive(Clone, Debug)]
pub enum Recv {
    Ty(Ty),
    /// The result of calling this path.
    CallRet(Vec<String>),
    /// The result of calling method `.1` on `.0`.
    Method(Box<Recv>, String),
    Field(Box<Recv>, String),
    /// A path used as a value: a unit struct, a const or static.
    Value(Vec<String>),
    /// `e?`: the first generic argument of `Result`/`Option`.
    Try(Box<Recv>),
    Unknown,
}

/// The `Self` of a place: an impl or a trait of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfCtx {
    Impl(usize),
    Trait(usize),
}

#[derive(Debug)]
pub struct ModuleDecl {
    pub parent: Option<usize>,
    pub name: String,
    /// `mod x { … }` (or a block), not `mod x;`.
    pub inline: bool,
    /// A block holding items: an anonymous scope, not a module.
    pub block: bool,
    pub path_attr: Option<String>,
    pub exported: bool,
    pub span: Span,
}

#[derive(Debug)]
pub struct Item {
    pub module: usize,
    /// The item this one belongs to (struct of a field, enum of a variant, impl or trait of a
    /// fn, variant of a field).
    pub parent: Option<usize>,
    pub name: String,
    pub qn: String,
    pub kind: SymbolKind,
    pub span: Span,
    pub sig: Option<String>,
    pub exported: bool,
    /// Field type, fn return type, const/static type, alias target.
    pub ty: Option<Ty>,
    pub selfc: Option<SelfCtx>,
    /// A trait fn with a default body.
    pub default_body: bool,
    pub macro_export: bool,
    /// Declared inside a block: a local, not a symbol.
    pub local: bool,
    /// A tuple or unit struct or variant (also a value).
    pub value_too: bool,
    /// The supertraits of a trait.
    pub supers: Vec<Ty>,
    /// A fn with a `self` parameter.
    pub has_self: bool,
    /// The type parameters of a struct, enum or union, in order.
    pub generics: Vec<String>,
}

#[derive(Debug)]
pub struct ImplDecl {
    pub item: usize,
    pub self_ty: Ty,
    pub trait_: Option<Ty>,
    pub trait_pos: (u32, u32),
}

#[derive(Debug, Clone)]
pub enum Leaf {
    Name(Option<String>),
    Glob,
}

#[derive(Debug)]
pub struct Import {
    pub module: usize,
    /// The full path (for a glob, the path of the module globbed).
    pub segs: Vec<String>,
    pub leaf: Leaf,
    /// Unrestricted `pub`.
    pub exported: bool,
    pub pos: (u32, u32),
    pub source: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    Call,
    Type,
    Extends,
    /// An argument: `PASSES_AS_CALLBACK` when it names a function.
    Arg,
    Ref,
    /// `#[derive(X)]`: the trait `X`, else the derive macro `X`.
    Derive,
}

#[derive(Debug, Clone)]
pub enum What {
    Path(Vec<String>, Ns),
    /// `<T as Tr>::name`.
    Qual(Ty, Ty, String),
    Member(Recv, String, bool),
}

#[derive(Debug)]
pub struct Reference {
    pub module: usize,
    pub source: Option<usize>,
    pub selfc: Option<SelfCtx>,
    pub kind: RefKind,
    pub what: What,
    pub pos: (u32, u32),
    /// Inside a `macro_rules!` expansion: names other than `$crate::…` paths resolve where the
    /// macro is invoked, not here.
    pub in_macro_def: bool,
}

#[derive(Debug, Default)]
pub struct RsFile {
    pub has_error: bool,
    pub mods: Vec<ModuleDecl>,
    pub items: Vec<Item>,
    pub impls: Vec<ImplDecl>,
    pub uses: Vec<Import>,
    pub refs: Vec<Reference>,
}

pub const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "str",
];

#[derive(Default)]
struct Scope {
    vals: HashMap<String, Recv>,
    tys: HashMap<String, Vec<Ty>>,
}

struct Walker<'s> {
    src: &'s str,
    f: RsFile,
    scopes: Vec<Scope>,
    module: usize,
    source: Option<usize>,
    selfc: Option<SelfCtx>,
    /// How deep the walk is; past [`MAX_DEPTH`] it stops and the file is `partial`.
    depth: Depth,
    too_deep: bool,
    /// Inside a macro's token tree, re-parsed: (line, column) of its first byte in the file,
    /// and the length of the wrapper put before it.
    shift: Option<(u32, u32, u32)>,
    /// With `shift`: the file offset of the token tree's first byte.
    byte_base: usize,
    in_macro_def: bool,
}

pub fn extract(src: &str) -> RsFile {
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .is_err()
    {
        return RsFile {
            has_error: true,
            ..Default::default()
        };
    }
    let Some(tree) = parser.parse(src, None) else {
        return RsFile {
            has_error: true,
            ..Default::default()
        };
    };
    let root = tree.root_node();
    let mut w = Walker {
        src,
        f: RsFile::default(),
        scopes: vec![Scope::default()],
        module: 0,
        source: None,
        selfc: None,
        depth: Depth::default(),
        too_deep: false,
        shift: None,
        byte_base: 0,
        in_macro_def: false,
    };
    w.f.mods.push(ModuleDecl {
        parent: None,
        name: String::new(),
        inline: false,
        block: false,
        path_attr: None,
        exported: true,
        span: Span::of(root),
    });
    w.f.has_error = root.has_error();
    w.items(root);
    let mut f = w.f;
    f.has_error |= w.too_deep;
    f
}

fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
    n.child_by_field_name(name)
}

struct Attrs {
    path: Option<String>,
    macro_export: bool,
    derives: Vec<(Vec<String>, (u32, u32))>,
}

impl<'s> Walker<'s> {
    fn t(&self, n: Node) -> &'s str {
        text(n, self.src)
    }

    /// A node's position in the file (through the shift of a re-parsed token tree).
    fn at(&self, n: Node) -> (u32, u32) {
        let (l, c) = pos(n);
        match self.shift {
            None => (l, c),
            Some((l0, c0, plen)) if l == 1 => (l0, c0 + c.saturating_sub(plen)),
            Some((l0, _, _)) => (l0 + l - 1, c),
        }
    }

    /// A byte offset of the text being walked as an offset of the file.
    fn file_byte(&self, b: usize) -> usize {
        match self.shift {
            None => b,
            Some((_, _, plen)) => self.byte_base + b.saturating_sub(plen as usize),
        }
    }

    /// A node's span in the file.
    fn span(&self, n: Node) -> Span {
        let mut sp = Span::of(n);
        if self.shift.is_some() {
            let (sl, sc) = self.at(n);
            let e = n.end_position();
            let (el, ec) = match self.shift {
                Some((l0, c0, plen)) if e.row == 0 => {
                    (l0, c0 + (e.column as u32).saturating_sub(plen))
                }
                Some((l0, _, _)) => (l0 + e.row as u32, e.column as u32),
                None => (sp.end_line, sp.end_column),
            };
            sp = Span {
                start_line: sl,
                start_column: sc,
                end_line: el,
                end_column: ec,
                start_byte: self.file_byte(n.start_byte()) as u32,
                end_byte: self.file_byte(n.end_byte()) as u32,
            };
        }
        sp
    }

    /// `cfg_if! { if #[cfg(…)] { items } else { items } }`: the items of every branch, each
    /// brace group re-parsed as a module body (`#[cfg]` is not evaluated).
    fn cfg_if_items(&mut self, n: Node) {
        let Some(tt) = kids(n).into_iter().find(|k| k.kind() == "token_tree") else {
            return;
        };
        for g in kids(tt) {
            if g.kind() != "token_tree"
                || !self.t(g).starts_with('{')
                || g.end_byte() < g.start_byte() + 2
            {
                continue;
            }
            let inner = &self.src[g.start_byte() + 1..g.end_byte() - 1];
            let (l0, c0) = self.at(g);
            let mut parser = Parser::new();
            if parser
                .set_language(&tree_sitter_rust::LANGUAGE.into())
                .is_err()
            {
                return;
            }
            let snippet = inner.to_string();
            let Some(tree) = parser.parse(&snippet, None) else {
                continue;
            };
            let root = tree.root_node();
            if root.has_error() {
                continue;
            }
            let mut sub = Walker {
                src: &snippet,
                f: std::mem::take(&mut self.f),
                scopes: std::mem::take(&mut self.scopes),
                module: self.module,
                source: self.source,
                selfc: self.selfc,
                depth: Depth::at(self.depth.get()),
                too_deep: false,
                shift: Some((l0, c0 + 1, 0)),
                byte_base: self.file_byte(g.start_byte() + 1),
                in_macro_def: self.in_macro_def,
            };
            sub.deeper(|w| w.items(root));
            let too_deep = sub.too_deep;
            self.f = sub.f;
            self.scopes = sub.scopes;
            self.too_deep |= too_deep;
        }
    }

    /// The token tree of a macro invocation or of a `macro_rules!` rule's expansion, re-parsed
    /// as expressions (`[a, b]`) or as a block's statements; only a parse without syntax errors
    /// is read.
    fn macro_tokens(&mut self, tt: Node, body: bool) {
        if self.deep() || tt.end_byte() < tt.start_byte() + 2 {
            return;
        }
        let inner = &self.src[tt.start_byte() + 1..tt.end_byte() - 1];
        if inner.trim().is_empty() {
            return;
        }
        let (l0, c0) = self.at(tt);
        let wrappers: [(&str, &str); 2] = if body {
            [("fn f(){", "\n}"), ("fn f(){[", "\n];}")]
        } else {
            [("fn f(){[", "\n];}"), ("fn f(){", "\n}")]
        };
        let mut parser = Parser::new();
        if parser
            .set_language(&tree_sitter_rust::LANGUAGE.into())
            .is_err()
        {
            return;
        }
        for (pre, post) in wrappers {
            let snippet = format!("{pre}{inner}{post}");
            let Some(tree) = parser.parse(&snippet, None) else {
                continue;
            };
            let root = tree.root_node();
            if root.has_error() {
                continue;
            }
            let Some(body_node) = kids(root).into_iter().next().and_then(|f| field(f, "body"))
            else {
                continue;
            };
            let mut sub = Walker {
                src: &snippet,
                f: std::mem::take(&mut self.f),
                scopes: std::mem::take(&mut self.scopes),
                module: self.module,
                source: self.source,
                selfc: self.selfc,
                depth: Depth::at(self.depth.get()),
                too_deep: false,
                shift: Some((l0, c0 + 1, pre.len() as u32)),
                byte_base: self.file_byte(tt.start_byte() + 1),
                in_macro_def: self.in_macro_def || body,
            };
            sub.scopes.push(Scope::default());
            for k in kids(body_node) {
                if k.kind().ends_with("_item")
                    || k.kind() == "use_declaration"
                    || k.kind() == "macro_definition"
                {
                    continue;
                }
                sub.deeper(|w| w.stmt(k));
            }
            sub.scopes.pop();
            let too_deep = sub.too_deep;
            self.f = sub.f;
            self.scopes = sub.scopes;
            self.too_deep |= too_deep;
            return;
        }
    }

    /// Runs `f` one level deeper.
    fn deeper<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.depth.enter();
        let r = f(self);
        self.depth.leave();
        r
    }

    fn deep(&mut self) -> bool {
        if self.depth.get() > MAX_DEPTH {
            self.too_deep = true;
            true
        } else {
            false
        }
    }

    fn is_local(&self, name: &str) -> Option<&Recv> {
        self.scopes.iter().rev().find_map(|s| s.vals.get(name))
    }

    fn generic(&self, name: &str) -> Option<&Vec<Ty>> {
        self.scopes.iter().rev().find_map(|s| s.tys.get(name))
    }

    fn push_ref(&mut self, kind: RefKind, what: What, pos: (u32, u32)) {
        self.f.refs.push(Reference {
            module: self.module,
            source: self.source,
            selfc: self.selfc,
            kind,
            what,
            pos,
            in_macro_def: self.in_macro_def,
        });
    }

    fn attrs(&self, attrs: &[Node]) -> Attrs {
        let mut a = Attrs {
            path: None,
            macro_export: false,
            derives: Vec::new(),
        };
        for at in attrs {
            let Some(attr) = kids(*at).into_iter().find(|k| k.kind() == "attribute") else {
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
                            match k.kind() {
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

    fn vis(&self, n: Node) -> (bool, bool) {
        // (has visibility, unrestricted pub)
        for k in kids(n) {
            if k.kind() == "visibility_modifier" {
                return (true, self.t(k).trim() == "pub");
            }
        }
        (false, false)
    }

    fn sig(&self, n: Node, body: Option<Node>) -> String {
        let end = body.map_or(n.end_byte(), |b| b.start_byte());
        collapse(&self.src[n.start_byte()..end.max(n.start_byte())])
    }

    fn add_item(&mut self, it: Item) -> usize {
        self.f.items.push(it);
        self.f.items.len() - 1
    }

    /// The source of the references inside item `id`: itself, unless it is a local.
    fn src_of(&self, id: usize) -> Option<usize> {
        if self.f.items[id].local {
            self.source
        } else {
            Some(id)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn item(
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

    /// The items of a module body (source file, declaration list, block).
    fn items(&mut self, body: Node) {
        if self.deep() {
            return;
        }
        let mut attrs: Vec<Node> = Vec::new();
        for k in kids(body) {
            match k.kind() {
                "attribute_item" => {
                    attrs.push(k);
                    continue;
                }
                "line_comment" | "block_comment" | "inner_attribute_item" => continue,
                _ => {}
            }
            let a = self.attrs(&attrs);
            attrs.clear();
            self.deeper(|w| w.decl(k, &a));
        }
    }

    fn name_of(&self, n: Node) -> String {
        field(n, "name").map_or(String::new(), |x| self.t(x).to_string())
    }

    fn derives(&mut self, a: &Attrs) {
        for (segs, p) in &a.derives {
            self.push_ref(RefKind::Derive, What::Path(segs.clone(), Ns::Type), *p);
        }
    }

    fn generic_names(&self, n: Node) -> Vec<String> {
        let Some(tp) = field(n, "type_parameters") else {
            return Vec::new();
        };
        kids(tp)
            .into_iter()
            .filter(|p| p.kind() == "type_parameter" || p.kind() == "constrained_type_parameter")
            .filter_map(|p| {
                field(p, "name")
                    .or_else(|| field(p, "left"))
                    .map(|x| self.t(x).to_string())
            })
            .collect()
    }

    fn with_generics<R>(&mut self, n: Node, f: impl FnOnce(&mut Self) -> R) -> R {
        let mut scope = Scope::default();
        let mut bounds: Vec<(String, Node)> = Vec::new();
        if let Some(tp) = field(n, "type_parameters") {
            for p in kids(tp) {
                if p.kind() == "type_parameter" || p.kind() == "constrained_type_parameter" {
                    let nm = field(p, "name")
                        .or_else(|| field(p, "left"))
                        .map(|x| self.t(x).to_string())
                        .unwrap_or_default();
                    scope.tys.insert(nm.clone(), Vec::new());
                    if let Some(b) = field(p, "bounds") {
                        bounds.push((nm, b));
                    }
                } else if p.kind() == "const_parameter"
                    && let Some(nm) = field(p, "name")
                {
                    scope.vals.insert(self.t(nm).to_string(), Recv::Unknown);
                }
            }
        }
        if let Some(w) = kids(n).into_iter().find(|k| k.kind() == "where_clause") {
            for p in kids(w) {
                if p.kind() != "where_predicate" {
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
    fn bounds(&mut self, b: Node, kind: RefKind) -> Vec<Ty> {
        let mut out = Vec::new();
        for k in kids(b) {
            let k = if k.kind() == "higher_ranked_trait_bound" {
                field(k, "value").unwrap_or(k)
            } else {
                k
            };
            match k.kind() {
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

    fn decl(&mut self, n: Node, a: &Attrs) {
        if self.deep() {
            return;
        }
        let (_, exported) = self.vis(n);
        match n.kind() {
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
                let kind = if n.kind() == "union_item" {
                    SymbolKind::Union
                } else {
                    SymbolKind::Struct
                };
                let sig = self.sig(n, body.filter(|b| b.kind() == "field_declaration_list"));
                let id = self.item(
                    n,
                    name.clone(),
                    name.clone(),
                    kind,
                    exported,
                    Some(sig),
                    None,
                );
                self.f.items[id].value_too =
                    body.is_none_or(|b| b.kind() == "ordered_field_declaration_list");
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
                let name = self.name_of(n);
                let body = field(n, "body");
                let sig = self.sig(n, body);
                let id = self.item(
                    n,
                    name.clone(),
                    name.clone(),
                    SymbolKind::Enum,
                    exported,
                    Some(sig),
                    None,
                );
                let s = self.source;
                self.source = self.src_of(id);
                self.derives(a);
                self.with_generics(n, |w| {
                    let Some(b) = body else { return };
                    for v in kids(b) {
                        if v.kind() != "enum_variant" {
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
                            vb.is_none_or(|b| b.kind() == "ordered_field_declaration_list");
                        if let Some(vb) = vb {
                            w.deeper(|w| w.fields(vb, &qn, vid));
                        }
                        if let Some(e) = field(v, "value") {
                            w.deeper(|w| w.expr(e));
                        }
                    }
                });
                self.source = s;
            }
            "trait_item" => {
                let name = self.name_of(n);
                let body = field(n, "body");
                let sig = self.sig(n, body);
                let id = self.item(
                    n,
                    name.clone(),
                    name.clone(),
                    SymbolKind::Trait,
                    exported,
                    Some(sig),
                    None,
                );
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
                let id = self.item(
                    n,
                    qn.clone(),
                    qn,
                    SymbolKind::Implementation,
                    false,
                    Some(sig),
                    None,
                );
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
                let sig = match field(n, "type") {
                    Some(t) => collapse(
                        self.src[n.start_byte()..t.start_byte()]
                            .trim_end()
                            .trim_end_matches('=')
                            .trim_end(),
                    ),
                    None => self.sig(n, None),
                };
                let id = self.item(
                    n,
                    name.clone(),
                    name,
                    SymbolKind::TypeAlias,
                    exported,
                    Some(sig),
                    None,
                );
                let s = self.source;
                self.source = self.src_of(id);
                self.with_generics(n, |w| {
                    if let Some(t) = field(n, "type") {
                        let ty = w.deeper(|w| w.ty_of(t));
                        w.f.items[id].ty = Some(ty);
                        w.deeper(|w| w.ty(t));
                    }
                });
                self.source = s;
            }
            "const_item" | "static_item" => {
                let name = self.name_of(n);
                let kind = if n.kind() == "const_item" {
                    SymbolKind::Const
                } else {
                    SymbolKind::Static
                };
                let value = field(n, "value");
                let sig = value.map_or_else(
                    || self.sig(n, None),
                    |v| {
                        let s = &self.src[n.start_byte()..v.start_byte()];
                        collapse(s.trim_end().trim_end_matches('=').trim_end())
                    },
                );
                let id = self.item(n, name.clone(), name, kind, exported, Some(sig), None);
                let s = self.source;
                self.source = self.src_of(id);
                if let Some(t) = field(n, "type") {
                    let ty = self.deeper(|w| w.ty_of(t));
                    self.f.items[id].ty = Some(ty);
                    self.deeper(|w| w.ty(t));
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
                    if rule.kind() == "macro_rule"
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
                if n.kind().ends_with("_expression") || n.kind() == "block" {
                    self.deeper(|w| w.expr(n))
                }
            }
        }
    }

    fn fields(&mut self, b: Node, owner: &str, owner_id: usize) {
        let exported_owner = self.f.items[owner_id].exported;
        let mut idx = 0;
        for fnode in kids(b) {
            match fnode.kind() {
                "field_declaration" => {
                    let nm = self.name_of(fnode);
                    let (_, ex) = self.vis(fnode);
                    let ex = ex
                        || self.f.items[owner_id].kind == SymbolKind::EnumMember && exported_owner;
                    let id = self.item(
                        fnode,
                        nm.clone(),
                        format!("{owner}::{nm}"),
                        SymbolKind::Field,
                        ex,
                        None,
                        Some(owner_id),
                    );
                    if let Some(t) = field(fnode, "type") {
                        let ty = self.deeper(|w| w.ty_of(t));
                        self.f.items[id].ty = Some(ty);
                        self.deeper(|w| w.ty(t));
                    }
                }
                "visibility_modifier" | "attribute_item" | "line_comment" | "block_comment" => {}
                _ if b.kind() == "ordered_field_declaration_list" => {
                    // A tuple field: its type node, after an optional visibility.
                    let ex = fnode
                        .prev_named_sibling()
                        .is_some_and(|p| p.kind() == "visibility_modifier" && self.t(p) == "pub")
                        || self.f.items[owner_id].kind == SymbolKind::EnumMember && exported_owner;
                    let nm = idx.to_string();
                    idx += 1;
                    let id = self.item(
                        fnode,
                        nm.clone(),
                        format!("{owner}::{nm}"),
                        SymbolKind::Field,
                        ex,
                        None,
                        Some(owner_id),
                    );
                    let ty = self.deeper(|w| w.ty_of(fnode));
                    self.f.items[id].ty = Some(ty);
                    self.deeper(|w| w.ty(fnode));
                }
                _ => {}
            }
        }
    }

    fn assoc_items(&mut self, b: Node, owner: Option<usize>, prefix: &str, in_trait_or_impl: bool) {
        let is_trait = owner.is_some_and(|o| self.f.items[o].kind == SymbolKind::Trait);
        for k in kids(b) {
            let (_, ex) = self.vis(k);
            let ex = ex || in_trait_or_impl;
            match k.kind() {
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
                        let ty = self.deeper(|w| w.ty_of(t));
                        self.f.items[id].ty = Some(ty);
                        self.deeper(|w| w.ty(t));
                    }
                }
                "const_item" => {
                    let name = self.name_of(k);
                    let value = field(k, "value");
                    let sig = match value {
                        Some(v) => collapse(
                            self.src[k.start_byte()..v.start_byte()]
                                .trim_end()
                                .trim_end_matches('=')
                                .trim_end(),
                        ),
                        None => self.sig(k, None),
                    };
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
                        let ty = self.deeper(|w| w.ty_of(t));
                        self.f.items[id].ty = Some(ty);
                        self.deeper(|w| w.ty(t));
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
    fn function(&mut self, n: Node, owner: Option<(Option<usize>, String, bool)>, exported: bool) {
        let name = self.name_of(n);
        let body = field(n, "body");
        let params = field(n, "parameters");
        let has_self = params.is_some_and(|p| kids(p).iter().any(|k| k.kind() == "self_parameter"));
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
                    match prm.kind() {
                        "self_parameter" => {
                            scope.vals.insert(
                                "self".into(),
                                Recv::Ty(Ty::Path(vec!["Self".into()], Vec::new())),
                            );
                        }
                        "parameter" => {
                            let ty = field(prm, "type").map(|t| {
                                w.deeper(|w| w.ty(t));
                                w.deeper(|w| w.ty_of(t))
                            });
                            if let Some(pat) = field(prm, "pattern") {
                                if pat.kind() == "identifier" {
                                    scope.vals.insert(
                                        w.t(pat).to_string(),
                                        ty.map_or(Recv::Unknown, Recv::Ty),
                                    );
                                } else if pat.kind() == "self" {
                                    scope
                                        .vals
                                        .insert("self".into(), ty.map_or(Recv::Unknown, Recv::Ty));
                                } else {
                                    w.deeper(|w| w.pattern(pat, &mut scope));
                                }
                            }
                        }
                        _ => w.deeper(|w| w.ty(prm)),
                    }
                }
            }
            if let Some(r) = field(n, "return_type") {
                let ty = w.deeper(|w| w.ty_of(r));
                w.f.items[id].ty = Some(ty);
                w.deeper(|w| w.ty(r));
            }
            w.scopes.push(scope);
            if let Some(b) = body {
                w.deeper(|w| w.block(b));
            }
            w.scopes.pop();
        });
        self.source = s;
    }

    /// The name an impl header uses for a type: its last path segment, generic arguments and
    /// `&` dropped.
    fn type_name(&self, mut n: Node) -> String {
        // `&`, `*const` and generic arguments are looked through, iteratively.
        for _ in 0..MAX_DEPTH {
            match n.kind() {
                "generic_type" | "reference_type" | "pointer_type" => match field(n, "type") {
                    Some(t) => n = t,
                    None => return String::new(),
                },
                _ => break,
            }
        }
        match n.kind() {
            "type_identifier" | "primitive_type" => self.t(n).to_string(),
            "scoped_type_identifier" | "scoped_identifier" => {
                field(n, "name").map_or_else(String::new, |x| self.t(x).to_string())
            }
            _ => collapse(self.t(n)),
        }
    }

    fn path_segs(&self, n: Node) -> Option<Vec<String>> {
        if self.depth.get() > MAX_DEPTH {
            return None;
        }
        match n.kind() {
            "identifier" | "type_identifier" | "self" | "super" | "crate" | "field_identifier" => {
                Some(vec![self.t(n).to_string()])
            }
            "metavariable" => (self.t(n) == "$crate").then(|| vec!["$crate".to_string()]),
            "scoped_identifier" | "scoped_type_identifier" => {
                let name = field(n, "name")?;
                let mut segs = match field(n, "path") {
                    Some(p) if p.kind() == "bracketed_type" || p.kind() == "generic_type" => {
                        if p.kind() == "generic_type" {
                            self.depth.nested(|| self.path_segs(field(p, "type")?))?
                        } else {
                            return None;
                        }
                    }
                    Some(p) => self.depth.nested(|| self.path_segs(p))?,
                    None => vec!["::".to_string()],
                };
                segs.push(self.t(name).to_string());
                Some(segs)
            }
            "generic_type" | "generic_type_with_turbofish" => {
                self.depth.nested(|| self.path_segs(field(n, "type")?))
            }
            "generic_function" => self.depth.nested(|| self.path_segs(field(n, "function")?)),
            _ => None,
        }
    }

    /// The written type of a type node.
    fn ty_of(&self, n: Node) -> Ty {
        if self.depth.get() > MAX_DEPTH {
            return Ty::Unknown;
        }
        match n.kind() {
            "reference_type" | "pointer_type" => field(n, "type").map_or(Ty::Unknown, |t| {
                Ty::Ref(Box::new(self.depth.nested(|| self.ty_of(t))))
            }),
            "type_identifier" => {
                let nm = self.t(n);
                if let Some(b) = self.generic(nm) {
                    return Ty::Param(nm.to_string(), b.clone());
                }
                Ty::Path(vec![nm.to_string()], Vec::new())
            }
            "scoped_type_identifier" | "scoped_identifier" => self
                .depth
                .nested(|| self.path_segs(n))
                .map_or(Ty::Unknown, |s| Ty::Path(s, Vec::new())),
            "generic_type" => {
                let Some(t) = field(n, "type") else {
                    return Ty::Unknown;
                };
                let Some(segs) = self.depth.nested(|| self.path_segs(t)) else {
                    return Ty::Unknown;
                };
                let args = field(n, "type_arguments").map_or_else(Vec::new, |a| {
                    kids(a)
                        .into_iter()
                        .filter(|k| k.kind() != "lifetime")
                        .map(|k| self.depth.nested(|| self.ty_of(k)))
                        .collect()
                });
                Ty::Path(segs, args)
            }
            "abstract_type" | "dynamic_type" => {
                let Some(t) = field(n, "trait") else {
                    return Ty::Unknown;
                };
                let ts: Vec<Ty> = if t.kind() == "trait_bounds" {
                    kids(t)
                        .into_iter()
                        .map(|k| self.depth.nested(|| self.ty_of(k)))
                        .collect()
                } else {
                    vec![self.depth.nested(|| self.ty_of(t))]
                };
                Ty::Bounds(ts)
            }
            "bounded_type" => Ty::Bounds(
                kids(n)
                    .into_iter()
                    .map(|k| self.depth.nested(|| self.ty_of(k)))
                    .collect(),
            ),
            _ => Ty::Unknown,
        }
    }

    /// Type refs of every path inside a type node.
    fn ty(&mut self, n: Node) {
        self.type_refs(n, RefKind::Type);
    }

    fn type_refs(&mut self, n: Node, kind: RefKind) {
        if self.deep() {
            return;
        }
        match n.kind() {
            "type_identifier" => {
                let nm = self.t(n);
                if nm == "Self" {
                    if matches!(self.selfc, Some(SelfCtx::Impl(_))) {
                        self.push_ref(kind, What::Path(vec![nm.to_string()], Ns::Type), self.at(n));
                    }
                    return;
                }
                if self.generic(nm).is_some() || PRIMITIVES.contains(&nm) {
                    return;
                }
                self.push_ref(kind, What::Path(vec![nm.to_string()], Ns::Type), self.at(n));
            }
            "scoped_type_identifier" => {
                if let Some(segs) = self.deeper(|w| w.path_segs(n)) {
                    if let Some(b) = self.generic(&segs[0]) {
                        if segs.len() == 2 && !b.is_empty() {
                            let what =
                                What::Qual(Ty::Unknown, Ty::Bounds(b.clone()), segs[1].clone());
                            let p = field(n, "name").map_or(self.at(n), |x| self.at(x));
                            self.push_ref(kind, what, p);
                        }
                        return;
                    }
                    let p = field(n, "name").map_or(self.at(n), |x| self.at(x));
                    self.push_ref(kind, What::Path(segs, Ns::Type), p);
                } else if let Some(p) = field(n, "path") {
                    self.deeper(|w| w.qualified(p, n, kind));
                }
                if let Some(p) = field(n, "path")
                    && p.kind() == "generic_type"
                    && let Some(a) = field(p, "type_arguments")
                {
                    self.deeper(|w| w.type_refs(a, RefKind::Type));
                }
            }
            "generic_type" => {
                if let Some(t) = field(n, "type") {
                    self.deeper(|w| w.type_refs(t, kind));
                }
                if let Some(a) = field(n, "type_arguments") {
                    self.deeper(|w| w.type_refs(a, RefKind::Type));
                }
            }
            "type_binding" => {
                if let Some(t) = field(n, "type") {
                    self.deeper(|w| w.type_refs(t, RefKind::Type));
                }
            }
            "trait_bounds" => {
                self.deeper(|w| w.bounds(n, kind));
            }
            "primitive_type" | "lifetime" => {}
            "block" => self.deeper(|w| w.block(n)),
            _ if n.kind().ends_with("_expression") || n.kind().ends_with("_literal") => {
                self.deeper(|w| w.expr(n))
            }
            "identifier" | "scoped_identifier" => self.deeper(|w| w.expr(n)),
            _ => {
                for k in kids(n) {
                    self.deeper(|w| w.type_refs(k, kind));
                }
            }
        }
    }

    /// `<T as Tr>::name` (in a path position `p` of scoped node `n`).
    fn qualified(&mut self, p: Node, n: Node, kind: RefKind) {
        let Some(q) = kids(p).into_iter().next() else {
            return;
        };
        let Some(name) = field(n, "name") else { return };
        if q.kind() == "qualified_type" {
            let (Some(t), Some(a)) = (field(q, "type"), field(q, "alias")) else {
                return;
            };
            self.deeper(|w| w.ty(t));
            self.deeper(|w| w.ty(a));
            let (tt, at) = (self.deeper(|w| w.ty_of(t)), self.deeper(|w| w.ty_of(a)));
            let nm = self.t(name).to_string();
            self.push_ref(kind, What::Qual(tt, at, nm), self.at(name));
        } else {
            self.deeper(|w| w.ty(q));
        }
    }

    fn use_tree(&mut self, n: Node, prefix: Vec<String>, exported: bool) {
        if self.deep() {
            return;
        }
        let push = |w: &mut Self, segs: Vec<String>, leaf: Leaf, p: (u32, u32)| {
            w.f.uses.push(Import {
                module: w.module,
                segs,
                leaf,
                exported,
                pos: p,
                source: w.source,
            });
        };
        match n.kind() {
            "identifier" | "self" | "super" | "crate" | "scoped_identifier" | "metavariable" => {
                let Some(mut segs) = self.deeper(|w| w.path_segs(n)) else {
                    return;
                };
                let mut full = prefix;
                if segs.first().is_some_and(|s| s == "::") && !full.is_empty() {
                    segs.remove(0);
                }
                full.extend(segs);
                let p = match n.kind() {
                    "scoped_identifier" => field(n, "name").map_or(self.at(n), |x| self.at(x)),
                    _ => self.at(n),
                };
                push(self, full, Leaf::Name(None), p);
            }
            "use_as_clause" => {
                let (Some(path), Some(alias)) = (field(n, "path"), field(n, "alias")) else {
                    return;
                };
                let Some(segs) = self.deeper(|w| w.path_segs(path)) else {
                    return;
                };
                let mut full = prefix;
                full.extend(segs);
                let p = match path.kind() {
                    "scoped_identifier" => {
                        field(path, "name").map_or(self.at(path), |x| self.at(x))
                    }
                    _ => self.at(path),
                };
                let a = self.t(alias).to_string();
                push(self, full, Leaf::Name(Some(a)), p);
            }
            "use_wildcard" => {
                let mut full = prefix;
                if let Some(p) = kids(n).into_iter().next()
                    && let Some(segs) = self.deeper(|w| w.path_segs(p))
                {
                    full.extend(segs);
                }
                push(self, full, Leaf::Glob, self.at(n));
            }
            "use_list" => {
                for k in kids(n) {
                    self.deeper(|w| w.use_tree(k, prefix.clone(), exported));
                }
            }
            "scoped_use_list" => {
                let mut full = prefix;
                if let Some(p) = field(n, "path") {
                    if let Some(segs) = self.deeper(|w| w.path_segs(p)) {
                        full.extend(segs);
                    }
                } else {
                    full.push("::".into());
                }
                if let Some(l) = field(n, "list") {
                    self.deeper(|w| w.use_tree(l, full, exported));
                }
            }
            _ => {}
        }
    }

    /// A block: a new scope, and an anonymous module when it declares items.
    fn block(&mut self, b: Node) {
        if self.deep() {
            return;
        }
        let has_items = kids(b).iter().any(|k| is_item(k.kind()));
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
        for k in kids(b) {
            match k.kind() {
                "attribute_item" => attrs.push(k),
                kind if is_item(kind) => {
                    let a = self.attrs(&attrs);
                    attrs.clear();
                    // Local items see no locals of the enclosing fn.
                    let saved = std::mem::take(&mut self.scopes);
                    self.scopes = saved
                        .iter()
                        .map(|s| Scope {
                            vals: HashMap::new(),
                            tys: s.tys.clone(),
                        })
                        .collect();
                    self.deeper(|w| w.decl(k, &a));
                    self.scopes = saved;
                }
                _ => attrs.clear(),
            }
        }
        for k in kids(b) {
            if !is_item(k.kind()) && k.kind() != "attribute_item" {
                self.deeper(|w| w.stmt(k));
            }
        }
        self.scopes.pop();
        self.module = m;
    }

    fn stmt(&mut self, n: Node) {
        if self.deep() {
            return;
        }
        match n.kind() {
            "let_declaration" => {
                if let Some(v) = field(n, "value") {
                    self.deeper(|w| w.expr(v));
                }
                if let Some(alt) = field(n, "alternative") {
                    self.deeper(|w| w.block(alt));
                }
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
                    if p.kind() == "identifier" {
                        scope.vals.insert(self.t(p).to_string(), recv);
                    } else {
                        self.deeper(|w| w.pattern(p, &mut scope));
                    }
                    // A `let` opens a scope for the rest of the block.
                    let last = self.scopes.last_mut().unwrap();
                    last.vals.extend(scope.vals);
                }
            }
            "expression_statement" => {
                for k in kids(n) {
                    self.deeper(|w| w.expr(k));
                }
            }
            "line_comment" | "block_comment" | "empty_statement" => {}
            _ => self.deeper(|w| w.expr(n)),
        }
    }

    /// Bindings of a pattern go to `scope`; paths in it are references.
    fn pattern(&mut self, p: Node, scope: &mut Scope) {
        if self.deep() {
            return;
        }
        match p.kind() {
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
                    let at = field(p, "name").map_or(self.at(p), |x| self.at(x));
                    self.push_ref(RefKind::Ref, What::Path(segs, Ns::Value), at);
                }
            }
            "tuple_struct_pattern" => {
                if let Some(t) = field(p, "type")
                    && let Some(segs) = self.deeper(|w| w.path_segs(t))
                {
                    let at = if t.kind() == "scoped_identifier" {
                        field(t, "name").map_or(self.at(t), |x| self.at(x))
                    } else {
                        self.at(t)
                    };
                    self.push_ref(RefKind::Ref, What::Path(segs, Ns::Value), at);
                }
                for k in kids(p).into_iter().skip(1) {
                    self.deeper(|w| w.pattern(k, scope));
                }
            }
            "struct_pattern" => {
                let ty = field(p, "type");
                let segs = ty.and_then(|t| self.deeper(|w| w.path_segs(t)));
                if let (Some(t), Some(segs)) = (ty, &segs) {
                    let at = if t.kind() == "scoped_type_identifier" {
                        field(t, "name").map_or(self.at(t), |x| self.at(x))
                    } else {
                        self.at(t)
                    };
                    self.push_ref(RefKind::Ref, What::Path(segs.clone(), Ns::Type), at);
                }
                for k in kids(p).into_iter().skip(1) {
                    if k.kind() == "field_pattern" {
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
                    if k.kind() == "scoped_identifier" || k.kind() == "identifier" {
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

    /// What a receiver expression's type is made of (a walk of its own, at most 32 steps deep).
    fn recv_of(&self, e: Node) -> Recv {
        self.depth.fresh(|| self.recv(e))
    }

    fn recv(&self, e: Node) -> Recv {
        if self.depth.get() > 32 {
            return Recv::Unknown;
        }
        match e.kind() {
            "identifier" => match self.is_local(self.t(e)) {
                Some(r) => r.clone(),
                None => Recv::Value(vec![self.t(e).to_string()]),
            },
            "scoped_identifier" => self
                .depth
                .nested(|| self.path_segs(e))
                .map_or(Recv::Unknown, Recv::Value),
            "self" => self.is_local("self").cloned().unwrap_or(Recv::Unknown),
            "call_expression" => {
                let Some(f) = field(e, "function") else {
                    return Recv::Unknown;
                };
                match f.kind() {
                    "field_expression" => {
                        let (Some(v), Some(nm)) = (field(f, "value"), field(f, "field")) else {
                            return Recv::Unknown;
                        };
                        Recv::Method(
                            Box::new(self.depth.nested(|| self.recv(v))),
                            self.t(nm).to_string(),
                        )
                    }
                    "identifier" if self.is_local(self.t(f)).is_some() => Recv::Unknown,
                    _ => self
                        .depth
                        .nested(|| self.path_segs(f))
                        .map_or(Recv::Unknown, Recv::CallRet),
                }
            }
            "struct_expression" => field(e, "name")
                .and_then(|n| self.depth.nested(|| self.path_segs(n)))
                .map_or(Recv::Unknown, |s| Recv::Ty(Ty::Path(s, Vec::new()))),
            "field_expression" => {
                let (Some(v), Some(nm)) = (field(e, "value"), field(e, "field")) else {
                    return Recv::Unknown;
                };
                Recv::Field(
                    Box::new(self.depth.nested(|| self.recv(v))),
                    self.t(nm).to_string(),
                )
            }
            "reference_expression" | "parenthesized_expression" => kids(e)
                .into_iter()
                .rfind(|k| k.kind() != "mutable_specifier")
                .map_or(Recv::Unknown, |k| self.depth.nested(|| self.recv(k))),
            "unary_expression" if self.t(e).starts_with('*') => kids(e)
                .into_iter()
                .next()
                .map_or(Recv::Unknown, |k| self.depth.nested(|| self.recv(k))),
            "try_expression" => kids(e).into_iter().next().map_or(Recv::Unknown, |k| {
                Recv::Try(Box::new(self.depth.nested(|| self.recv(k))))
            }),
            _ => Recv::Unknown,
        }
    }

    fn value_path(&mut self, n: Node, kind: RefKind) {
        match n.kind() {
            "identifier" => {
                let nm = self.t(n);
                if self.is_local(nm).is_some() {
                    return;
                }
                self.push_ref(
                    kind,
                    What::Path(vec![nm.to_string()], Ns::Value),
                    self.at(n),
                );
            }
            "self" => {}
            "scoped_identifier" => {
                let p = field(n, "path");
                if let Some(pp) = p {
                    if pp.kind() == "bracketed_type" {
                        self.deeper(|w| w.qualified(pp, n, kind));
                        return;
                    }
                    if pp.kind() == "generic_type"
                        && let Some(a) = field(pp, "type_arguments")
                    {
                        self.deeper(|w| w.ty(a));
                    }
                }
                if let Some(segs) = self.deeper(|w| w.path_segs(n)) {
                    if let Some(b) = self.generic(&segs[0]) {
                        if segs.len() == 2 && !b.is_empty() {
                            let what =
                                What::Qual(Ty::Unknown, Ty::Bounds(b.clone()), segs[1].clone());
                            let at = field(n, "name").map_or(self.at(n), |x| self.at(x));
                            self.push_ref(kind, what, at);
                        }
                        return;
                    }
                    let at = field(n, "name").map_or(self.at(n), |x| self.at(x));
                    self.push_ref(kind, What::Path(segs, Ns::Value), at);
                }
            }
            "generic_function" => {
                if let Some(a) = field(n, "type_arguments") {
                    self.deeper(|w| w.ty(a));
                }
                if let Some(f) = field(n, "function") {
                    if f.kind() == "field_expression" {
                        self.deeper(|w| w.expr(f));
                    } else {
                        self.deeper(|w| w.value_path(f, kind));
                    }
                }
            }
            _ => self.deeper(|w| w.expr(n)),
        }
    }

    fn expr(&mut self, e: Node) {
        if self.deep() {
            return;
        }
        match e.kind() {
            "identifier" | "scoped_identifier" | "generic_function" => {
                self.deeper(|w| w.value_path(e, RefKind::Ref))
            }
            "call_expression" => {
                if let Some(f) = field(e, "function") {
                    match f.kind() {
                        "field_expression" | "generic_function"
                            if f.kind() == "field_expression"
                                || field(f, "function")
                                    .is_some_and(|x| x.kind() == "field_expression") =>
                        {
                            let fe = if f.kind() == "generic_function" {
                                if let Some(a) = field(f, "type_arguments") {
                                    self.deeper(|w| w.ty(a));
                                }
                                field(f, "function").unwrap()
                            } else {
                                f
                            };
                            if let (Some(v), Some(nm)) = (field(fe, "value"), field(fe, "field")) {
                                self.deeper(|w| w.expr(v));
                                let r = self.deeper(|w| w.recv_of(v));
                                self.push_ref(
                                    RefKind::Call,
                                    What::Member(r, self.t(nm).to_string(), true),
                                    self.at(nm),
                                );
                            }
                        }
                        "identifier" | "scoped_identifier" | "generic_function" => {
                            self.deeper(|w| w.value_path(f, RefKind::Call))
                        }
                        _ => self.deeper(|w| w.expr(f)),
                    }
                }
                if let Some(args) = field(e, "arguments") {
                    for a in kids(args) {
                        match a.kind() {
                            "identifier" | "scoped_identifier" => {
                                self.deeper(|w| w.value_path(a, RefKind::Arg))
                            }
                            _ => self.deeper(|w| w.expr(a)),
                        }
                    }
                }
            }
            "field_expression" => {
                if let (Some(v), Some(nm)) = (field(e, "value"), field(e, "field")) {
                    self.deeper(|w| w.expr(v));
                    let r = self.deeper(|w| w.recv_of(v));
                    self.push_ref(
                        RefKind::Ref,
                        What::Member(r, self.t(nm).to_string(), false),
                        self.at(nm),
                    );
                }
            }
            "macro_invocation" => {
                if let Some(m) = field(e, "macro")
                    && let Some(segs) = self.deeper(|w| w.path_segs(m))
                {
                    let at = if m.kind() == "scoped_identifier" {
                        field(m, "name").map_or(self.at(m), |x| self.at(x))
                    } else {
                        self.at(m)
                    };
                    self.push_ref(RefKind::Call, What::Path(segs, Ns::Macro), at);
                }
                if let Some(tt) = kids(e).into_iter().find(|k| k.kind() == "token_tree") {
                    self.deeper(|w| w.macro_tokens(tt, false));
                }
            }
            "struct_expression" => {
                let name = field(e, "name");
                let segs = name.and_then(|n| self.deeper(|w| w.path_segs(n)));
                if let (Some(n), Some(s)) = (name, &segs)
                    && (s[0] != "Self"
                        || s.len() > 1
                        || matches!(self.selfc, Some(SelfCtx::Impl(_))))
                {
                    let at = match n.kind() {
                        "scoped_type_identifier" => {
                            field(n, "name").map_or(self.at(n), |x| self.at(x))
                        }
                        "generic_type_with_turbofish" => {
                            if let Some(a) = field(n, "type_arguments") {
                                self.deeper(|w| w.ty(a));
                            }
                            self.at(n)
                        }
                        _ => self.at(n),
                    };
                    self.push_ref(RefKind::Ref, What::Path(s.clone(), Ns::Type), at);
                }
                let recv = segs.map_or(Recv::Unknown, |s| Recv::Ty(Ty::Path(s, Vec::new())));
                if let Some(body) = field(e, "body") {
                    for fi in kids(body) {
                        match fi.kind() {
                            "field_initializer" => {
                                if let Some(nm) = field(fi, "field") {
                                    self.push_ref(
                                        RefKind::Ref,
                                        What::Member(recv.clone(), self.t(nm).to_string(), false),
                                        self.at(nm),
                                    );
                                }
                                if let Some(v) = field(fi, "value") {
                                    self.deeper(|w| w.expr(v));
                                }
                            }
                            "shorthand_field_initializer" => {
                                if let Some(nm) =
                                    kids(fi).into_iter().find(|k| k.kind() == "identifier")
                                {
                                    self.push_ref(
                                        RefKind::Ref,
                                        What::Member(recv.clone(), self.t(nm).to_string(), false),
                                        self.at(nm),
                                    );
                                    self.deeper(|w| w.value_path(nm, RefKind::Ref));
                                }
                            }
                            _ => self.deeper(|w| w.expr(fi)),
                        }
                    }
                }
            }
            "block" | "unsafe_block" | "async_block" | "const_block" | "loop_expression" => {
                for k in kids(e) {
                    if k.kind() == "block" {
                        self.deeper(|w| w.block(k));
                    } else if e.kind() == "block" {
                        self.deeper(|w| w.block(e));
                        return;
                    }
                }
            }
            "closure_expression" => {
                let mut scope = Scope::default();
                if let Some(ps) = field(e, "parameters") {
                    for p in kids(ps) {
                        if p.kind() == "parameter" {
                            let ty = field(p, "type").map(|t| {
                                self.deeper(|w| w.ty(t));
                                self.deeper(|w| w.ty_of(t))
                            });
                            if let Some(pat) = field(p, "pattern") {
                                if pat.kind() == "identifier" {
                                    scope.vals.insert(
                                        self.t(pat).to_string(),
                                        ty.map_or(Recv::Unknown, Recv::Ty),
                                    );
                                } else {
                                    self.deeper(|w| w.pattern(pat, &mut scope));
                                }
                            }
                        } else {
                            self.deeper(|w| w.pattern(p, &mut scope));
                        }
                    }
                }
                if let Some(r) = field(e, "return_type") {
                    self.deeper(|w| w.ty(r));
                }
                self.scopes.push(scope);
                if let Some(b) = field(e, "body") {
                    self.deeper(|w| w.expr(b));
                }
                self.scopes.pop();
            }
            "for_expression" => {
                if let Some(v) = field(e, "value") {
                    self.deeper(|w| w.expr(v));
                }
                let mut scope = Scope::default();
                if let Some(p) = field(e, "pattern") {
                    self.deeper(|w| w.pattern(p, &mut scope));
                }
                self.scopes.push(scope);
                if let Some(b) = field(e, "body") {
                    self.deeper(|w| w.block(b));
                }
                self.scopes.pop();
            }
            "if_expression" | "while_expression" => {
                // `if let` bindings are visible in the consequence.
                self.scopes.push(Scope::default());
                if let Some(c) = field(e, "condition") {
                    self.deeper(|w| w.condition(c));
                }
                if let Some(b) = field(e, "consequence").or_else(|| field(e, "body")) {
                    self.deeper(|w| w.block(b));
                }
                self.scopes.pop();
                if let Some(a) = field(e, "alternative") {
                    self.deeper(|w| w.expr(a));
                }
            }
            "else_clause" => {
                for k in kids(e) {
                    self.deeper(|w| w.expr(k));
                }
            }
            "match_expression" => {
                if let Some(v) = field(e, "value") {
                    self.deeper(|w| w.expr(v));
                }
                if let Some(b) = field(e, "body") {
                    for arm in kids(b) {
                        if arm.kind() != "match_arm" {
                            continue;
                        }
                        let mut scope = Scope::default();
                        if let Some(p) = field(arm, "pattern") {
                            for k in kids(p) {
                                if k.kind() == "condition"
                                    || p.child_by_field_name("condition") == Some(k)
                                {
                                    continue;
                                }
                                self.deeper(|w| w.pattern(k, &mut scope));
                            }
                            self.scopes.push(scope);
                            if let Some(c) = field(p, "condition") {
                                self.deeper(|w| w.condition(c));
                            }
                        } else {
                            self.scopes.push(scope);
                        }
                        if let Some(v) = field(arm, "value") {
                            self.deeper(|w| w.expr(v));
                        }
                        self.scopes.pop();
                    }
                }
            }
            // `format!("{x}", x = v)`: `x` names an argument, not a value.
            "assignment_expression"
                if self.shift.is_some()
                    && field(e, "left").is_some_and(|l| l.kind() == "identifier") =>
            {
                if let Some(r) = field(e, "right") {
                    self.deeper(|w| w.expr(r));
                }
            }
            "type_cast_expression" => {
                if let Some(v) = field(e, "value") {
                    self.deeper(|w| w.expr(v));
                }
                if let Some(t) = field(e, "type") {
                    self.deeper(|w| w.ty(t));
                }
            }
            "let_condition" | "let_chain" => self.deeper(|w| w.condition(e)),
            "string_literal" | "raw_string_literal" | "integer_literal" | "float_literal"
            | "char_literal" | "boolean_literal" | "line_comment" | "block_comment" | "self"
            | "label" | "lifetime" | "field_identifier" | "type_identifier" | "primitive_type"
            | "token_tree" => {}
            "type_arguments" => self.deeper(|w| w.ty(e)),
            "let_declaration" => self.deeper(|w| w.stmt(e)),
            _ => {
                for k in kids(e) {
                    self.deeper(|w| w.expr(k));
                }
            }
        }
    }

    /// An `if`/`while` condition; `let` patterns bind in the innermost scope.
    fn condition(&mut self, c: Node) {
        if self.deep() {
            return;
        }
        match c.kind() {
            "let_condition" => {
                if let Some(v) = field(c, "value") {
                    self.deeper(|w| w.expr(v));
                }
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

/// Whether a syntax node kind is an item (a declaration a block or module may hold).
fn is_item(kind: &str) -> bool {
    matches!(
        kind,
        "function_item"
            | "struct_item"
            | "enum_item"
            | "union_item"
            | "trait_item"
            | "impl_item"
            | "type_item"
            | "const_item"
            | "static_item"
            | "macro_definition"
            | "use_declaration"
            | "mod_item"
            | "extern_crate_declaration"
    )
}
