//! The declaration pass: the symbols a module, class, interface, enum or namespace body declares, its imports, exports and re-exports.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    /// Declares the statements of a module or namespace body. Names go into the innermost
    /// scope; `top` marks the module level (where CommonJS exports are read).
    pub(super) fn declare_statements(
        &mut self,
        body: Node,
        parent: Option<usize>,
        prefix: &str,
        top: bool,
    ) {
        for s in kids(body) {
            self.declare_statement(s, parent, prefix, top, false);
        }
    }

    pub(super) fn declare_statement(
        &mut self,
        s: Node,
        parent: Option<usize>,
        prefix: &str,
        top: bool,
        exported: bool,
    ) {
        let parent_exported = parent.is_none_or(|p| self.file.decls[p].exported);
        match s.kind_name() {
            // Error recovery keeps whole declarations inside an ERROR node.
            "ERROR" => {
                for k in kids(s) {
                    self.declare_statement(k, parent, prefix, top, exported);
                }
            }
            "export_statement" => {
                if top {
                    self.file.has_module_syntax = true;
                }
                self.declare_export(s, parent, prefix, top)
            }
            "import_statement" if top => {
                self.file.has_module_syntax = true;
                self.declare_import(s)
            }
            "ambient_declaration" => {
                for d in kids(s) {
                    // `declare module "x" {}` and `declare global {}` are not this module's.
                    if d.kind_name() == "module"
                        && d.field("name").is_some_and(|n| n.kind_name() == "string")
                    {
                        continue;
                    }
                    if d.kind_name() == "statement_block" {
                        continue;
                    }
                    self.declare_statement(d, parent, prefix, top, exported);
                }
            }
            "expression_statement" => {
                if let Some(e) = s.named_child(0) {
                    match e.kind_name() {
                        "internal_module" | "module" => {
                            self.declare_namespace(e, parent, prefix, exported && parent_exported)
                        }
                        "assignment_expression" if top && parent.is_none() => {
                            self.declare_commonjs(e)
                        }
                        _ => {}
                    }
                }
            }
            "internal_module" | "module" => {
                self.declare_namespace(s, parent, prefix, exported && parent_exported)
            }
            // `var` in a block or loop at module level is a module-level name.
            "for_statement" | "for_in_statement" | "if_statement" | "else_clause"
            | "while_statement" | "do_statement" | "try_statement" | "catch_clause"
            | "finally_clause" | "statement_block" | "labeled_statement"
                if top && parent.is_none() =>
            {
                self.declare_block_vars(s, prefix);
            }
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                let Some(name) = s.field("name") else {
                    return;
                };
                let name = self.t(name);
                // Overloads and the implementation are one symbol, at the first signature.
                let existing = self.scope_decl(name, parent, |k| k == SymbolKind::Function);
                let signature_only = s.kind_name() == "function_signature";
                match existing {
                    Some(d) => {
                        self.join_part(d, s);
                        let o = &mut self.file.decls[d].overloads;
                        *o = o.saturating_add(u8::from(signature_only));
                    }
                    None => {
                        let d = self.new_decl(
                            s,
                            name,
                            SymbolKind::Function,
                            parent,
                            prefix,
                            exported && parent_exported,
                        );
                        self.bind(name, NameRes::Decl(d));
                        self.file.decls[d].overloads = u8::from(signature_only);
                    }
                }
            }
            "class_declaration" | "abstract_class_declaration" => {
                if let Some(name) = s.field("name") {
                    let name = self.t(name);
                    self.declare_class(s, name, parent, prefix, exported && parent_exported);
                }
            }
            // `import X = NS.Y` (and `export import`): a declaration of its own, an alias whose
            // uses bind to it and whose target is walked as a reference (SPEC 11.2).
            "import_alias" => {
                if let Some(name) = s.named_child(0).filter(|n| n.kind_name() == "identifier") {
                    let name = self.t(name);
                    let e = exported && parent_exported;
                    let d = self.new_decl(s, name, SymbolKind::Alias, parent, prefix, e);
                    self.bind(name, NameRes::Decl(d));
                }
            }
            "interface_declaration" | "type_alias_declaration" => {
                let exported = exported && parent_exported;
                let interface = s.kind_name() == "interface_declaration";
                let kind = if interface {
                    SymbolKind::Interface
                } else {
                    SymbolKind::TypeAlias
                };
                let Some(d) = self.declare_named(s, kind, parent, prefix, exported) else {
                    return;
                };
                // The members: an interface's body, a type alias's object type.
                let members = if interface {
                    s.field("body")
                } else {
                    s.field("value").filter(|v| v.kind_name() == "object_type")
                };
                if let Some(m) = members {
                    self.declare_type_members(m, d);
                }
            }
            "enum_declaration" => {
                let exported = exported && parent_exported;
                let Some(d) = self.declare_named(s, SymbolKind::Enum, parent, prefix, exported)
                else {
                    return;
                };
                let qp = format!("{}.", self.file.decls[d].qn);
                if let Some(body) = s.field("body") {
                    for m in kids(body) {
                        let name_node = if m.kind_name() == "enum_assignment" {
                            m.field("name")
                        } else {
                            Some(m)
                        };
                        let Some(nn) = name_node else { continue };
                        let mname = match nn.kind_name() {
                            "property_identifier" => self.t(nn).to_string(),
                            "string" => string_value(nn, self.src),
                            _ => continue,
                        };
                        let e = self.file.decls[d].exported;
                        let md = self.new_decl(m, &mname, SymbolKind::EnumMember, Some(d), &qp, e);
                        self.file.decls[md].signature = Some(collapse(self.t(m)));
                    }
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                let kind = if s.kind_name() == "lexical_declaration"
                    && s.child(0).is_some_and(|k| self.t(k) == "const")
                {
                    SymbolKind::Constant
                } else {
                    SymbolKind::Variable
                };
                for vd in kids(s)
                    .into_iter()
                    .filter(|d| d.kind_name() == "variable_declarator")
                {
                    if top
                        && parent.is_none()
                        && let Some(spec) = vd.field("value").and_then(|v| self.require_of(v))
                    {
                        self.declare_require(vd, spec);
                        // Each name is also a declaration of this module, as TypeScript
                        // reads a JavaScript `require` alias; uses bind through the import.
                        if let Some(name) = vd.field("name") {
                            let mut names = Vec::new();
                            pattern_names(name, self.src, &mut names);
                            for (nm, at) in names {
                                let d = self.new_decl(vd, &nm, kind, None, prefix, exported);
                                self.decl_at.remove(&(vd.start_byte(), vd.kind_id()));
                                self.decl_at.insert((at.start_byte(), at.kind_id()), d);
                            }
                        }
                        continue;
                    }
                    let Some(name) = vd.field("name") else {
                        continue;
                    };
                    let mut names = Vec::new();
                    pattern_names(name, self.src, &mut names);
                    for (nm, at) in names {
                        let d = self.new_decl(
                            vd,
                            &nm,
                            kind,
                            parent,
                            prefix,
                            exported && parent_exported,
                        );
                        if nm != self.t(name) {
                            // A name of a destructuring pattern: keyed by its identifier.
                            self.decl_at.remove(&(vd.start_byte(), vd.kind_id()));
                            self.decl_at.insert((at.start_byte(), at.kind_id()), d);
                        }
                        self.bind(&nm, NameRes::Decl(d));
                    }
                }
            }
            _ => {}
        }
    }

    /// Declares the statement `s` named by its `name` field as a `kind`, bound in the current
    /// scope; `None` when it has no name.
    fn declare_named(
        &mut self,
        s: Node,
        kind: SymbolKind,
        parent: Option<usize>,
        prefix: &str,
        exported: bool,
    ) -> Option<usize> {
        let name = self.t(s.field("name")?);
        let d = self.new_decl(s, name, kind, parent, prefix, exported);
        self.bind(name, NameRes::Decl(d));
        Some(d)
    }

    /// The `var` declarations nested in a module-level compound statement (not in functions
    /// or classes).
    pub(super) fn declare_block_vars(&mut self, n: Node, prefix: &str) {
        for k in kids(n) {
            match k.kind_name() {
                "variable_declaration" => self.declare_statement(k, None, prefix, true, false),
                "function_declaration"
                | "generator_function_declaration"
                | "function_expression"
                | "arrow_function"
                | "class_declaration"
                | "class"
                | "method_definition" => {}
                _ => self.declare_block_vars(k, prefix),
            }
        }
    }

    /// A declaration of `name` already in the innermost scope (for overloads).
    pub(super) fn scope_decl(
        &self,
        name: &str,
        parent: Option<usize>,
        kind: impl Fn(SymbolKind) -> bool,
    ) -> Option<usize> {
        self.scopes
            .last()?
            .names
            .get(name)?
            .iter()
            .find_map(|r| match r {
                NameRes::Decl(d)
                    if self.file.decls[*d].parent == parent && kind(self.file.decls[*d].kind) =>
                {
                    Some(*d)
                }
                _ => None,
            })
    }

    pub(super) fn declare_export(
        &mut self,
        s: Node,
        parent: Option<usize>,
        prefix: &str,
        top: bool,
    ) {
        let is_default = has_child(s, "default");
        if let Some(d) = s.field("declaration") {
            let before = self.file.decls.len();
            self.declare_statement(d, parent, prefix, top, true);
            if parent.is_none() {
                for i in before..self.file.decls.len() {
                    if self.file.decls[i].parent.is_none() {
                        let name = self.file.decls[i].name.clone();
                        let alias = if is_default { "default".into() } else { name };
                        self.file.exports.push((alias, NameRes::Decl(i)));
                    }
                }
            }
            return;
        }
        if let Some(src) = s.field("source") {
            if !top {
                return;
            }
            let statement = self.specifier(src);
            let mut items = Vec::new();
            let mut star = false;
            let mut star_as = None;
            let mut c = s.walk();
            for ch in s.children(&mut c) {
                match ch.kind_name() {
                    "*" => star = true,
                    "namespace_export" => {
                        star = false;
                        star_as = ch.named_child(0).map(|n| self.t(n).to_string());
                    }
                    "export_clause" => {
                        for (n, name, alias) in self.specifiers(ch, "export_specifier") {
                            let alias = alias.map_or(name.clone(), |a| self.spec_name(a));
                            let (line, column) = pos(n);
                            items.push(ReexportItem {
                                name: Some(name),
                                alias,
                                line,
                                column,
                            });
                        }
                    }
                    _ => {}
                }
            }
            if star_as.is_some() {
                star = false;
            }
            self.file.reexports.push(Reexport {
                statement,
                items,
                star,
                star_as,
            });
            return;
        }
        if parent.is_some() {
            return;
        }
        if let Some(v) = s.field("value") {
            // `export default <expression>`.
            match v.kind_name() {
                "identifier" => {} // bound in the walk, where every top-level name is known
                "function_expression" | "function" | "generator_function" | "arrow_function" => {
                    let d = self.new_decl(v, "default", SymbolKind::Function, None, "", true);
                    self.file.exports.push(("default".into(), NameRes::Decl(d)));
                }
                "class" => {
                    let d = self.declare_class(v, "default", None, "", true);
                    self.file.exports.push(("default".into(), NameRes::Decl(d)));
                }
                _ => {
                    let d = self.new_decl(v, "default", SymbolKind::Variable, None, "", true);
                    self.file.exports.push(("default".into(), NameRes::Decl(d)));
                }
            }
            return;
        }
        // `export = x`: the expression child.
        let mut c = s.walk();
        let expr: Option<Node> = s
            .named_children(&mut c)
            .find(|n| !matches!(n.kind_name(), "export_clause" | "comment" | "decorator"));
        if let Some(e) = expr
            && has_child(s, "=")
        {
            let _ = e; // typed in the walk
        }
    }

    pub(super) fn spec_name(&self, n: Node) -> String {
        if n.kind_name() == "string" {
            string_value(n, self.src)
        } else {
            self.t(n).to_string()
        }
    }

    /// The specifiers of kind `kind` of an import or export list (`{ a, b as c }`): each one's
    /// name node, name and alias node.
    pub(super) fn specifiers<'t>(
        &self,
        list: Node<'t>,
        kind: &str,
    ) -> Vec<(Node<'t>, String, Option<Node<'t>>)> {
        kids(list)
            .into_iter()
            .filter(|sp| sp.kind_name() == kind)
            .filter_map(|sp| {
                let n = sp.field("name")?;
                Some((n, self.spec_name(n), sp.field("alias")))
            })
            .collect()
    }

    pub(super) fn specifier(&mut self, src: Node) -> usize {
        let (line, column) = pos(src);
        self.file.specifiers.push(Specifier {
            spec: string_value(src, self.src),
            line,
            column,
        });
        self.file.specifiers.len() - 1
    }

    pub(super) fn declare_import(&mut self, s: Node) {
        let Some(src) = s.field("source").or_else(|| {
            let mut c = s.walk();
            s.named_children(&mut c)
                .find(|n| n.kind_name() == "import_require_clause")
                .and_then(|r| r.field("source"))
        }) else {
            return;
        };
        let statement = self.specifier(src);
        let spec = self.file.specifiers[statement].spec.clone();
        for k in kids(s) {
            match k.kind_name() {
                "import_require_clause" => {
                    if let Some(id) = k.named_child(0).filter(|n| n.kind_name() == "identifier") {
                        self.push_import(id, ImportKind::Require, &spec, statement);
                    }
                }
                "import_clause" => {
                    for p in kids(k) {
                        match p.kind_name() {
                            "identifier" => {
                                self.push_import(p, ImportKind::Default, &spec, statement)
                            }
                            "namespace_import" => {
                                if let Some(id) = p.named_child(0) {
                                    self.push_import(id, ImportKind::Namespace, &spec, statement);
                                }
                            }
                            "named_imports" => {
                                for (n, name, alias) in self.specifiers(p, "import_specifier") {
                                    let local =
                                        alias.map_or(name.clone(), |a| self.t(a).to_string());
                                    let kind = ImportKind::Named(name);
                                    self.push_import_as(n, local, kind, &spec, statement);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Records the import of identifier `id`, which binds its own name.
    pub(super) fn push_import(&mut self, id: Node, kind: ImportKind, spec: &str, statement: usize) {
        let local = self.t(id).to_string();
        self.push_import_as(id, local, kind, spec, statement);
    }

    /// Records an import written at `at` that binds `local`, and binds it.
    fn push_import_as(
        &mut self,
        at: Node,
        local: String,
        kind: ImportKind,
        spec: &str,
        statement: usize,
    ) {
        let (line, column) = pos(at);
        self.file.imports.push(Import {
            local: local.clone(),
            kind,
            spec: spec.to_string(),
            statement,
            line,
            column,
        });
        let i = self.file.imports.len() - 1;
        self.bind(&local, NameRes::Import(i));
    }

    /// `require("x")` with a literal specifier.
    pub(super) fn require_of<'t>(&self, v: Node<'t>) -> Option<Node<'t>> {
        let v = unwrap_parens(v);
        if v.kind_name() != "call_expression" {
            return None;
        }
        let f = v.field("function")?;
        if f.kind_name() != "identifier" || self.t(f) != "require" {
            return None;
        }
        let args = v.field("arguments")?;
        let a = args.named_child(0)?;
        (a.kind_name() == "string" && args.named_child_count() == 1).then_some(a)
    }

    pub(super) fn declare_require(&mut self, vd: Node, src: Node) {
        let statement = self.specifier(src);
        let spec = self.file.specifiers[statement].spec.clone();
        let Some(name) = vd.field("name") else {
            return;
        };
        match name.kind_name() {
            "identifier" => self.push_import(name, ImportKind::Require, &spec, statement),
            "object_pattern" => {
                for p in kids(name) {
                    let (key, local) = match p.kind_name() {
                        "shorthand_property_identifier_pattern" => (p, p),
                        "pair_pattern" => match (p.field("key"), p.field("value")) {
                            (Some(k), Some(v)) if v.kind_name() == "identifier" => (k, v),
                            _ => continue,
                        },
                        _ => continue,
                    };
                    let kind = ImportKind::Named(self.t(key).to_string());
                    let local = self.t(local).to_string();
                    self.push_import_as(key, local, kind, &spec, statement);
                }
            }
            _ => {}
        }
    }

    /// `exports.x = …`, `module.exports.x = …`, `module.exports = …`.
    pub(super) fn declare_commonjs(&mut self, e: Node) {
        let (Some(left), Some(right)) = (e.field("left"), e.field("right")) else {
            return;
        };
        if left.kind_name() != "member_expression" {
            return;
        }
        let lt = self.t(left);
        if lt == "module.exports" {
            // Read in the walk, where every top-level name is bound.
            return;
        }
        let Some(obj) = left.field("object") else {
            return;
        };
        let ot = self.t(obj);
        if ot != "exports" && ot != "module.exports" {
            return;
        }
        let Some(prop) = left.field("property") else {
            return;
        };
        let name = self.t(prop).to_string();
        let kind = match unwrap_parens(right).kind_name() {
            "function_expression" | "function" | "arrow_function" | "generator_function" => {
                SymbolKind::Function
            }
            _ => SymbolKind::Variable,
        };
        if self.file.exports.iter().any(|(n, _)| *n == name) {
            return;
        }
        let d = self.new_decl(e, &name, kind, None, "", true);
        self.file.exports.push((name, NameRes::Decl(d)));
    }

    pub(super) fn declare_namespace(
        &mut self,
        n: Node,
        parent: Option<usize>,
        prefix: &str,
        exported: bool,
    ) {
        let Some(name) = n.field("name") else {
            return;
        };
        if name.kind_name() == "string" {
            return;
        }
        // `namespace A.B.C`: a chain of namespaces.
        let mut parts = Vec::new();
        let mut cur = name;
        while cur.kind_name() == "nested_identifier" {
            if let Some(p) = cur.field("property") {
                parts.push(self.t(p).to_string());
            }
            match cur.field("object") {
                Some(o) => cur = o,
                None => break,
            }
        }
        parts.push(self.t(cur).to_string());
        parts.reverse();
        let mut p = parent;
        let mut pre = prefix.to_string();
        let mut first = None;
        for (i, part) in parts.iter().enumerate() {
            let e = if i == 0 { exported } else { true };
            let d = self.new_decl(n, part, SymbolKind::Namespace, p, &pre, e);
            if i > 0 {
                self.decl_at.remove(&(n.start_byte(), n.kind_id()));
            }
            if first.is_none() {
                first = Some(d);
            }
            pre = format!("{}.", self.file.decls[d].qn);
            p = Some(d);
        }
        self.decl_at
            .insert((n.start_byte(), n.kind_id()), p.unwrap_or(0));
        if let Some(f) = first {
            let name = self.file.decls[f].name.clone();
            self.bind(&name, NameRes::Decl(f));
        }
        // The body's names live in their own scope, kept with the namespace for the walk.
        if let Some(body) = n.field("body") {
            self.scopes.push(Scope::default());
            self.declare_statements(body, p, &pre, false);
            let s = self.scopes.pop().unwrap_or_default();
            if let Some(d) = p {
                for (k, v) in s.names {
                    for r in v {
                        if let NameRes::Decl(x) = r
                            && !self.file.decls[d]
                                .members
                                .get(&k)
                                .is_some_and(|m| m.contains(&x))
                        {
                            self.file.decls[d]
                                .members
                                .entry(k.clone())
                                .or_default()
                                .push(x);
                        }
                    }
                }
            }
        }
    }

    pub(super) fn declare_class(
        &mut self,
        s: Node,
        name: &str,
        parent: Option<usize>,
        prefix: &str,
        exported: bool,
    ) -> usize {
        let d = self.new_decl(s, name, SymbolKind::Class, parent, prefix, exported);
        if name != "default" {
            self.bind(name, NameRes::Decl(d));
        }
        let qp = format!("{}.", self.file.decls[d].qn);
        let Some(body) = s.field("body") else {
            return d;
        };
        for m in kids(body) {
            let kind = match m.kind_name() {
                "method_definition" | "method_signature" | "abstract_method_signature" => {
                    if has_child(m, "get") || has_child(m, "set") {
                        SymbolKind::Property
                    } else {
                        SymbolKind::Method
                    }
                }
                "public_field_definition" => SymbolKind::Field,
                "index_signature" => {
                    self.file.decls[d].open = true;
                    continue;
                }
                _ => continue,
            };
            let Some(mname) = self.member_name(m) else {
                continue;
            };
            let exported_m = exported && !is_private(m, self.src) && !mname.starts_with('#');
            // Overloads and get/set pairs are one symbol.
            let existing = self.member_of_kind(d, &mname, kind);
            let signature_only = m.field("body").is_none();
            if let Some(first) = existing {
                self.join_part(first, m);
                let f = &mut self.file.decls[first];
                f.overloads = f.overloads.saturating_add(u8::from(signature_only));
            } else {
                let md = self.new_decl(m, &mname, kind, Some(d), &qp, exported_m);
                self.file.decls[md].is_static = has_child(m, "static");
                self.file.decls[md].private |= is_private(m, self.src);
                self.file.decls[md].overloads =
                    u8::from(signature_only && kind == SymbolKind::Method);
            }
            // Parameter properties live on the implementation, after any overloads.
            if mname == "constructor"
                && let Some(params) = m.field("parameters")
            {
                for p in kids(params) {
                    let is_prop = {
                        let mut cc = p.walk();
                        p.children(&mut cc).any(|c| {
                            matches!(
                                c.kind_name(),
                                "accessibility_modifier" | "override_modifier"
                            ) || self.t(c) == "readonly"
                        })
                    };
                    if !is_prop {
                        continue;
                    }
                    let Some(pat) = p.field("pattern") else {
                        continue;
                    };
                    if pat.kind_name() != "identifier" {
                        continue;
                    }
                    let pname = self.t(pat).to_string();
                    let e = exported && !is_private(p, self.src);
                    let fd = self.new_decl(p, &pname, SymbolKind::Field, Some(d), &qp, e);
                    self.file.decls[fd].private |= is_private(p, self.src);
                }
            }
        }
        d
    }

    /// The name of the class or type member `m`: an identifier, a `#private` name or a string.
    fn member_name(&self, m: Node) -> Option<String> {
        let nn = m.field("name")?;
        match nn.kind_name() {
            "property_identifier" | "private_property_identifier" => Some(self.t(nn).to_string()),
            "string" => Some(string_value(nn, self.src)),
            _ => None,
        }
    }

    /// The first member `name` of container `d` of `kind` (overloads and get/set pairs are one
    /// symbol).
    fn member_of_kind(&self, d: usize, name: &str, kind: SymbolKind) -> Option<usize> {
        self.file.decls[d]
            .members
            .get(name)
            .and_then(|v| v.iter().copied().find(|&x| self.file.decls[x].kind == kind))
    }

    /// Makes `part` (another overload signature, the implementation after them, the setter of
    /// a getter) a part of declaration `d`: what it declares is `d`, and `d`'s range runs to
    /// the end of its last part (SPEC section 11.2).
    fn join_part(&mut self, d: usize, part: Node) {
        self.decl_at.insert((part.start_byte(), part.kind_id()), d);
        self.file.decls[d].span.extend_to(Span::of(part));
    }

    pub(super) fn declare_type_members(&mut self, body: Node, d: usize) {
        let qp = format!("{}.", self.file.decls[d].qn);
        let exported = self.file.decls[d].exported;
        for m in kids(body) {
            let kind = match m.kind_name() {
                "property_signature" => SymbolKind::Property,
                "method_signature" => SymbolKind::Method,
                "index_signature" | "call_signature" | "construct_signature" => {
                    self.file.decls[d].open = true;
                    continue;
                }
                _ => continue,
            };
            let Some(mname) = self.member_name(m) else {
                continue;
            };
            if let Some(first) = self.member_of_kind(d, &mname, kind) {
                self.join_part(first, m);
                continue;
            }
            self.new_decl(m, &mname, kind, Some(d), &qp, exported);
        }
    }
}
