//! Module syntax and JSX: imports, `require`, exports, re-exports, CommonJS exports and JSX elements.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    pub(super) fn import_refs_of_require(&mut self, pattern: Node) {
        for p in kids(pattern) {
            let key = match p.kind_name() {
                "shorthand_property_identifier_pattern" => Some(p),
                "pair_pattern" => p.field("key"),
                _ => None,
            };
            let Some(key) = key else {
                continue;
            };
            let (line, column) = pos(key);
            if let Some(i) = self
                .file
                .imports
                .iter()
                .position(|im| im.line == line && im.column == column)
            {
                self.push_ref(key, Use::Import, RefTarget::Imported(i));
            }
        }
    }

    /// Records a reference of the module itself (in no declaration) at `line`, `column`.
    fn push_module_ref(&mut self, (line, column): (u32, u32), usage: Use, target: RefTarget) {
        self.file.refs.push(Ref {
            line,
            column,
            from: None,
            usage,
            target,
        });
    }

    pub(super) fn walk_import(&mut self, n: Node) {
        let (sl, el) = (
            n.start_position().row as u32 + 1,
            n.end_position().row as u32 + 1,
        );
        let ids: Vec<usize> = self
            .file
            .imports
            .iter()
            .enumerate()
            .filter(|(_, im)| im.line >= sl && im.line <= el && im.kind != ImportKind::Namespace)
            .map(|(i, _)| i)
            .collect();
        for i in ids {
            let im = &self.file.imports[i];
            let at = (im.line, im.column);
            self.push_module_ref(at, Use::Import, RefTarget::Imported(i));
        }
    }

    pub(super) fn walk_export(&mut self, n: Node) {
        if let Some(d) = n.field("declaration") {
            for dec in kids(n).into_iter().filter(|k| k.kind_name() == "decorator") {
                self.walk(dec);
            }
            self.walk(d);
            return;
        }
        if n.field("source").is_some() {
            let (sl, _) = pos(n);
            let el = n.end_position().row as u32 + 1;
            let hits: Vec<(usize, usize)> = self
                .file
                .reexports
                .iter()
                .enumerate()
                .flat_map(|(ri, r)| {
                    r.items
                        .iter()
                        .enumerate()
                        .filter(move |(_, it)| it.line >= sl && it.line <= el)
                        .map(move |(ii, _)| (ri, ii))
                })
                .collect();
            for (ri, ii) in hits {
                let it = &self.file.reexports[ri].items[ii];
                let at = (it.line, it.column);
                self.push_module_ref(at, Use::Reexport, RefTarget::Reexported(ri, ii));
            }
            return;
        }
        let is_default = has_child(n, "default");
        if let Some(v) = n.field("value") {
            if v.kind_name() == "identifier" && is_default && self.scopes.len() == 1 {
                let name = self.t(v).to_string();
                let res = self.lookup_any(&name);
                self.push_ref(v, Use::Export, RefTarget::Name(res.clone(), name));
                self.file.exports.push(("default".into(), res));
            } else {
                let decl = self.decl_of(v);
                if matches!(v.kind_name(), "class") {
                    self.walk_class(v);
                } else {
                    self.with_owner(decl, |x| x.walk(v));
                }
                if let Some(d) = decl
                    && self.file.decls[d].value.is_none()
                {
                    self.file.decls[d].value = Some(self.expr_of(v));
                }
            }
            return;
        }
        for k in kids(n) {
            match k.kind_name() {
                "export_clause" => {
                    for (nn, name, alias) in self.specifiers(k, "export_specifier") {
                        let alias = alias.map_or(name.clone(), |a| self.spec_name(a));
                        let res = self.lookup_any(&name);
                        self.push_ref(nn, Use::Export, RefTarget::Name(res.clone(), name));
                        if self.scopes.len() == 1 {
                            self.file.exports.push((alias, res));
                        }
                    }
                }
                "decorator" | "comment" => {}
                _ => {
                    // `export = expr`.
                    if has_child(n, "=") {
                        if k.kind_name() == "identifier" {
                            self.name_ref(k, Use::Export);
                        } else {
                            self.walk(k);
                        }
                        if self.scopes.len() == 1 {
                            self.file.export_equals = Some(self.expr_of(k));
                        }
                    } else {
                        self.walk(k);
                    }
                }
            }
        }
    }

    /// Top-level `module.exports = …` and `exports.x = …`.
    pub(super) fn walk_top_assignment(&mut self, n: Node) {
        let left = n.field("left");
        let right = n.field("right");
        let decl = self.decl_of(n);
        if let Some(r) = right {
            self.with_owner(decl, |x| x.walk(r));
        }
        let (Some(l), Some(r)) = (left, right) else {
            return;
        };
        let lt = self.t(l);
        if lt == "module.exports" {
            let r = unwrap_parens(r);
            if r.kind_name() == "object" {
                for p in kids(r) {
                    match p.kind_name() {
                        "shorthand_property_identifier" => {
                            let nm = self.t(p).to_string();
                            let res = self.lookup(&nm, false);
                            self.file.exports.push((nm, res));
                        }
                        "pair" => {
                            if let (Some(k), Some(v)) = (p.field("key"), p.field("value"))
                                && v.kind_name() == "identifier"
                            {
                                let key = self.spec_name(k);
                                let vn = self.t(v).to_string();
                                let res = self.lookup(&vn, false);
                                self.file.exports.push((key, res));
                            }
                        }
                        _ => {}
                    }
                }
                self.file.export_equals = Some(Expr::External);
            } else {
                self.file.export_equals = Some(self.expr_of(r));
            }
        } else if let Some(d) = decl {
            if self.file.decls[d].value.is_none() {
                self.file.decls[d].value = Some(self.expr_of(r));
            }
        } else {
            self.walk(l);
        }
    }

    pub(super) fn walk_jsx(&mut self, n: Node) {
        let name = n.field("name");
        let mut comp = Expr::Unknown;
        if let Some(nm) = name {
            match nm.kind_name() {
                "identifier" => {
                    let t = self.t(nm);
                    // Lower-case tags are intrinsic elements.
                    if t.starts_with(|c: char| c.is_ascii_uppercase()) {
                        let res = self.lookup(t, false);
                        self.push_ref(nm, Use::Jsx, RefTarget::Name(res.clone(), t.to_string()));
                        comp = Expr::Name(res);
                    }
                }
                "member_expression" => comp = self.member_ref(nm, Use::Jsx),
                _ => {}
            }
        }
        if let Some(t) = n.field("type_arguments") {
            self.walk(t);
        }
        for a in kids(n) {
            match a.kind_name() {
                "jsx_attribute" => {
                    let mut cc = a.walk();
                    let parts: Vec<Node> = a.named_children(&mut cc).collect();
                    for (i, p) in parts.into_iter().enumerate() {
                        if i == 0 && p.kind_name() == "property_identifier" {
                            if comp != Expr::Unknown {
                                let pn = self.t(p).to_string();
                                self.push_ref(
                                    p,
                                    Use::Value,
                                    RefTarget::Member(Expr::JsxProps(Box::new(comp.clone())), pn),
                                );
                            }
                        } else {
                            self.walk(p);
                        }
                    }
                }
                _ if Some(a) == name => {}
                "type_arguments" => {}
                _ => self.walk(a),
            }
        }
    }
}
