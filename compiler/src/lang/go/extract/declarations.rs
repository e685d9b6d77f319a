//! Declarations: the package clause, imports, functions and methods with their signatures,
//! type declarations with their fields and interface methods, and `var`/`const` declarations
//! (package-level ones become symbols, local ones locals).

use crate::lang::FieldExt;
use crate::lang::KindExt;
use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use super::{
    Decl, Extractor, Import, Span, Ty, Use, collect_kind, count_field, named, nearest_ancestor,
};
use crate::lang::kids;

/// A method's receiver `(r *T[K, V])`.
struct Receiver {
    /// The type's name: `T`.
    type_name: String,
    /// The parameter's name, when written: `r`.
    param: Option<String>,
    /// The type parameters the receiver declares: `K`, `V`.
    type_params: Vec<String>,
}

impl Extractor<'_> {
    pub(super) fn top_level(&mut self, n: Node) {
        match n.kind_name() {
            "package_clause" => {
                if let Some(id) = n.named_child(0) {
                    self.file.package_name = self.text(id).to_string();
                }
            }
            "import_declaration" => self.imports(n),
            "function_declaration" => self.function(n, None),
            "method_declaration" => {
                let recv = n.field("receiver");
                self.function(n, recv)
            }
            "type_declaration" => {
                let mut c = n.walk();
                for spec in n.named_children(&mut c) {
                    if matches!(spec.kind_name(), "type_spec" | "type_alias") {
                        self.type_spec(spec, true);
                    }
                }
            }
            "const_declaration" | "var_declaration" => self.value_decl(n, true),
            _ => {}
        }
    }

    pub(super) fn imports(&mut self, n: Node) {
        let mut specs = Vec::new();
        collect_kind(n, "import_spec", &mut specs);
        for spec in specs {
            let Some(path) = spec.field("path") else {
                continue;
            };
            let raw = self.text(path);
            let path_text = raw.trim_matches(|c| c == '"' || c == '`').to_string();
            let name = spec.field("name").map(|n| self.text(n).to_string());
            let p = spec.start_position();
            self.file.imports.push(Import {
                name,
                path: path_text,
                line: p.row as u32 + 1,
                column: p.column as u32,
            });
        }
    }

    pub(super) fn function(&mut self, n: Node, receiver: Option<Node>) {
        let Some(name_node) = n.field("name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let recv = match receiver {
            Some(r) => match self.receiver(r) {
                Some(recv) => Some(recv),
                None => return, // a receiver we cannot read: broken code
            },
            None => None,
        };
        let qn = match &recv {
            Some(recv) => format!("{}.{name}", recv.type_name),
            None => name.clone(),
        };
        let kind = if receiver.is_some() {
            SymbolKind::Method
        } else {
            SymbolKind::Func
        };
        let mut d = self.decl(&name, qn, kind, Span::of(n));
        d.owner = recv.as_ref().map(|recv| recv.type_name.clone());
        d.signature = Some(self.func_signature(n));
        d.results = n
            .field("result")
            .map(|r| self.result_types(r))
            .unwrap_or_default();
        let skip = name == "_";
        let idx = if skip { None } else { Some(self.push_decl(d)) };
        self.source = idx;
        self.with_scope(|x| {
            for tp in recv.iter().flat_map(|recv| &recv.type_params) {
                x.declare_local(tp, None);
            }
            if let Some(tps) = n.field("type_parameters") {
                x.type_parameters(tps);
            }
            if let Some(r) = receiver {
                // The receiver's type names the method's own type: a use, as go/types records it.
                x.receiver_type_refs(r);
            }
            let mut pending = x.signature_params(n);
            if let Some(recv) = &recv
                && let Some(param) = &recv.param
            {
                let ty = Ty::Named {
                    qual: None,
                    name: recv.type_name.clone(),
                };
                pending.push((param.clone(), Some(ty)));
            }
            x.declare_all(pending);
            if let Some(body) = n.field("body") {
                x.block(body);
            }
        });
        self.source = None;
    }

    /// Reads a receiver `(r *T[K, V])`; `None` when it is not a (possibly generic, possibly
    /// pointer) type name.
    fn receiver(&self, r: Node) -> Option<Receiver> {
        let param = r.named_child(0)?;
        let mut ty = param.field("type")?;
        while matches!(ty.kind_name(), "pointer_type" | "parenthesized_type") {
            ty = ty.named_child(0)?;
        }
        let mut type_params = Vec::new();
        if ty.kind_name() == "generic_type" {
            if let Some(args) = ty.field("type_arguments") {
                let mut c = args.walk();
                for a in args.named_children(&mut c) {
                    let t = self.text(a).trim();
                    if !t.is_empty() {
                        type_params.push(t.to_string());
                    }
                }
            }
            ty = ty.field("type")?;
        }
        if ty.kind_name() != "type_identifier" {
            return None;
        }
        Some(Receiver {
            type_name: self.text(ty).to_string(),
            param: param.field("name").map(|n| self.text(n).to_string()),
            type_params,
        })
    }

    pub(super) fn receiver_type_refs(&mut self, r: Node) {
        if let Some(param) = r.named_child(0)
            && let Some(ty) = param.field("type")
        {
            self.type_refs(ty);
        }
    }

    pub(super) fn func_signature(&self, n: Node) -> String {
        let mut s = String::from("func");
        if let Some(r) = n.field("receiver") {
            s.push(' ');
            s.push_str(&self.compact(r));
            s.push(' ');
        } else {
            s.push(' ');
        }
        if let Some(name) = n.field("name") {
            s.push_str(self.text(name));
        }
        if let Some(tp) = n.field("type_parameters") {
            s.push_str(&self.compact(tp));
        }
        if let Some(p) = n.field("parameters") {
            s.push_str(&self.compact(p));
        }
        if let Some(r) = n.field("result") {
            s.push(' ');
            s.push_str(&self.compact(r));
        }
        s
    }

    pub(super) fn result_types(&self, r: Node) -> Vec<Option<Ty>> {
        if r.kind_name() != "parameter_list" {
            return vec![self.ty_of_type(r)];
        }
        let mut out = Vec::new();
        let mut c = r.walk();
        for p in r.named_children(&mut c) {
            let t = p.field("type").and_then(|t| self.ty_of_type(t));
            let names = count_field(p, "name").max(1);
            for _ in 0..names {
                out.push(t.clone());
            }
        }
        out
    }

    pub(super) fn type_parameters(&mut self, tps: Node) {
        let mut c = tps.walk();
        let decls: Vec<Node> = tps.named_children(&mut c).collect();
        for d in &decls {
            let mut c2 = d.walk();
            for name in d.children_by_field_name("name", &mut c2) {
                let t = self.text(name).to_string();
                self.declare_local(&t, None);
            }
        }
        for d in decls {
            self.type_refs_field(d, "type");
        }
    }

    /// Records the types of a signature's parameters and results (`n`'s fields `parameters` and
    /// `result`) as uses and returns the names they declare, for the caller to declare once the
    /// whole signature is read.
    pub(super) fn signature_params(&mut self, n: Node) -> Vec<(String, Option<Ty>)> {
        let mut pending = Vec::new();
        if let Some(p) = n.field("parameters") {
            pending.extend(self.parameters(p));
        }
        if let Some(r) = n.field("result") {
            if r.kind_name() == "parameter_list" {
                pending.extend(self.parameters(r));
            } else {
                self.type_refs(r);
            }
        }
        pending
    }

    /// Records a parameter list's types as uses and returns the names it declares. The caller
    /// declares them only after the whole signature: in Go, parameter names are in scope in the
    /// body, never in the signature (`func F(url string, v url.Values)` names the package).
    pub(super) fn parameters(&mut self, list: Node) -> Vec<(String, Option<Ty>)> {
        let mut pending = Vec::new();
        for p in kids(list) {
            if !matches!(
                p.kind_name(),
                "parameter_declaration" | "variadic_parameter_declaration"
            ) {
                continue;
            }
            let ty_node = p.field("type");
            if let Some(t) = ty_node {
                self.type_refs(t);
            }
            let ty = ty_node.and_then(|t| self.ty_of_type(t));
            // `xs ...T` is a `[]T` inside the function.
            let ty = if p.kind_name() == "variadic_parameter_declaration" {
                ty.map(|t| Ty::Container(Box::new(t)))
            } else {
                ty
            };
            let mut c2 = p.walk();
            let names: Vec<String> = p
                .children_by_field_name("name", &mut c2)
                .map(|n| self.text(n).to_string())
                .collect();
            for name in names {
                pending.push((name, ty.clone()));
            }
        }
        pending
    }

    pub(super) fn type_spec(&mut self, spec: Node, top: bool) {
        let Some(name_node) = spec.field("name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let Some(ty) = spec.field("type") else {
            return;
        };
        if !top {
            // A local type: its name is a local; its body's types are uses of the enclosing decl.
            self.declare_local(&name, None);
            self.with_scope(|x| {
                if let Some(tps) = spec.field("type_parameters") {
                    x.type_parameters(tps);
                }
                x.type_refs(ty);
            });
            return;
        }
        let alias = spec.kind_name() == "type_alias";
        let kind = if alias {
            SymbolKind::Alias
        } else {
            SymbolKind::Type
        };
        let mut d = self.decl(&name, name.clone(), kind, Span::of(spec));
        d.is_struct = ty.kind_name() == "struct_type";
        d.is_interface = ty.kind_name() == "interface_type";
        d.opaque_method_set = spec.field("type_parameters").is_some()
            || (d.is_interface && named(ty).iter().any(|e| e.kind_name() != "method_elem"));
        d.underlying = self.ty_of_type(ty);
        d.signature = Some(match ty.kind_name() {
            "struct_type" => format!("type {name} struct"),
            "interface_type" => format!("type {name} interface"),
            _ => {
                let t = self.compact(ty);
                let t: String = t.chars().take(160).collect();
                if alias {
                    format!("type {name} = {t}")
                } else {
                    format!("type {name} {t}")
                }
            }
        });
        if name == "_" {
            return;
        }
        let idx = self.push_decl(d);
        self.source = Some(idx);
        self.with_scope(|x| {
            if let Some(tps) = spec.field("type_parameters") {
                x.type_parameters(tps);
            }
            match ty.kind_name() {
                "struct_type" => x.struct_fields(ty, &name, idx),
                "interface_type" => x.interface_methods(ty, &name, idx),
                _ => x.type_refs(ty),
            }
        });
        self.source = None;
    }

    pub(super) fn struct_fields(&mut self, st: Node, owner: &str, owner_idx: usize) {
        let mut fields = Vec::new();
        collect_kind(st, "field_declaration", &mut fields);
        for f in fields {
            // Only direct fields: nested anonymous struct types are type uses of this field.
            if nearest_ancestor(f, "struct_type") != Some(st) {
                continue;
            }
            let Some(ty) = f.field("type") else {
                continue;
            };
            let mut c = f.walk();
            let names: Vec<Node> = f.children_by_field_name("name", &mut c).collect();
            let declared = self.ty_of_type(ty);
            let type_text = self.compact(ty);
            let mut first = None;
            if names.is_empty() {
                // Embedded: the field's name is the type's name.
                let Some(Ty::Named { name, .. }) = declared.clone() else {
                    continue;
                };
                let mut d = self.field(&name, owner, f, declared.clone(), &type_text);
                d.embedded = true;
                first = Some(self.push_decl(d));
            }
            for n in names {
                let fname = self.text(n).to_string();
                if fname == "_" {
                    continue;
                }
                let d = self.field(&fname, owner, f, declared.clone(), &type_text);
                let i = self.push_decl(d);
                first.get_or_insert(i);
            }
            self.source = first.or(Some(owner_idx));
            self.type_refs(ty);
        }
        self.source = Some(owner_idx);
    }

    /// Field `name` of type `owner`, declared by field declaration `f` with type `ty`, written
    /// `type_text`.
    fn field(&self, name: &str, owner: &str, f: Node, ty: Option<Ty>, type_text: &str) -> Decl {
        let mut d = self.decl(
            name,
            format!("{owner}.{name}"),
            SymbolKind::Field,
            Span::of(f),
        );
        d.owner = Some(owner.to_string());
        d.ty = ty;
        d.signature = Some(type_text.to_string());
        d
    }

    pub(super) fn interface_methods(&mut self, it: Node, owner: &str, owner_idx: usize) {
        for e in kids(it) {
            if e.kind_name() != "method_elem" {
                // One named type, not a union or an approximation (`~T`): an embedded interface.
                if e.kind_name() == "type_elem"
                    && let [t] = named(e)[..]
                    && let Some(ty @ Ty::Named { .. }) = self.ty_of_type(t)
                {
                    self.file.decls[owner_idx].embeds.push(ty);
                }
                self.type_refs(e);
                continue;
            }
            let Some(n) = e.field("name") else {
                continue;
            };
            let mname = self.text(n).to_string();
            let mut d = self.decl(
                &mname,
                format!("{owner}.{mname}"),
                SymbolKind::Method,
                Span::of(e),
            );
            d.owner = Some(owner.to_string());
            d.signature = Some(format!("func {}", self.compact(e)));
            d.results = e
                .field("result")
                .map(|r| self.result_types(r))
                .unwrap_or_default();
            let i = self.push_decl(d);
            self.source = Some(i);
            self.with_scope(|x| {
                let pending = x.signature_params(e);
                x.declare_all(pending);
            });
            self.source = Some(owner_idx);
        }
    }

    /// Top-level or local `const`/`var` declarations.
    pub(super) fn value_decl(&mut self, n: Node, top: bool) {
        let kind = if n.kind_name() == "const_declaration" {
            SymbolKind::Const
        } else {
            SymbolKind::Var
        };
        let mut specs = Vec::new();
        collect_kind(
            n,
            if kind == SymbolKind::Const {
                "const_spec"
            } else {
                "var_spec"
            },
            &mut specs,
        );
        for spec in specs {
            let ty_node = spec.field("type");
            let values = spec.field("value");
            let mut c = spec.walk();
            let names: Vec<Node> = spec
                .children_by_field_name("name", &mut c)
                .filter(|n| n.kind_name() == "identifier")
                .collect();
            let value_nodes: Vec<Node> = values.map(|v| named(v)).unwrap_or_default();
            let declared = ty_node.and_then(|t| self.ty_of_type(t));
            if top {
                let mut first = None;
                for (i, nn) in names.iter().enumerate() {
                    let name = self.text(*nn).to_string();
                    if name == "_" {
                        continue;
                    }
                    let mut d = self.decl(&name, name.clone(), kind, Span::of(spec));
                    d.ty = declared
                        .clone()
                        .or_else(|| self.infer_value_ty(&value_nodes, names.len(), i));
                    d.signature = ty_node.map(|t| self.compact(t));
                    let idx = self.push_decl(d);
                    first.get_or_insert(idx);
                }
                self.source = first;
                self.with_scope(|x| {
                    if let Some(t) = ty_node {
                        x.type_refs(t);
                    }
                    for v in &value_nodes {
                        x.expr(*v, Use::Assign);
                    }
                });
                self.source = None;
            } else {
                if let Some(t) = ty_node {
                    self.type_refs(t);
                }
                for v in &value_nodes {
                    self.expr(*v, Use::Assign);
                }
                for (i, nn) in names.iter().enumerate() {
                    let ty = declared
                        .clone()
                        .or_else(|| self.infer_value_ty(&value_nodes, names.len(), i));
                    let name = self.text(*nn).to_string();
                    self.declare_local(&name, ty);
                }
            }
        }
    }

    pub(super) fn infer_value_ty(&self, values: &[Node], names: usize, i: usize) -> Option<Ty> {
        if values.len() == names {
            self.ty_of_expr(values[i])
        } else if values.len() == 1 {
            let v = values[0];
            let v = if v.kind_name() == "parenthesized_expression" {
                v.named_child(0)?
            } else {
                v
            };
            match v.kind_name() {
                // `x, ok := y.(T)`, `v, ok := m[k]`, `v, ok := <-ch`: the first is the value.
                "type_assertion_expression" | "index_expression" | "unary_expression"
                    if names == 2 =>
                {
                    if i == 0 {
                        self.ty_of_expr(v)
                    } else {
                        None
                    }
                }
                _ => self.ty_of_call(v, i),
            }
        } else {
            None
        }
    }
}
