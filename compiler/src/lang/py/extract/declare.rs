//! The declaration pass: module-level names, class members and `self.x` fields, imports and `__all__`.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    /// Declares the names a module or class body binds, looking into compound statements but
    /// not into functions or classes. The first declaration of a name wins.
    pub(super) fn declare_block(&mut self, body: Node, class: Option<usize>, prefix: &str) {
        for s in kids(body) {
            self.declare_stmt(s, class, prefix);
        }
    }

    pub(super) fn declare_stmt(&mut self, s: Node, class: Option<usize>, prefix: &str) {
        match s.kind_name() {
            "decorated_definition" => {
                if let Some(d) = s.field("definition") {
                    let decorators: Vec<String> = kids(s)
                        .into_iter()
                        .filter(|k| k.kind_name() == "decorator")
                        .filter_map(|k| k.named_child(0))
                        .map(|e| self.t(e).to_string())
                        .collect();
                    self.declare_def(d, class, prefix, &decorators, Some(s));
                }
            }
            "function_definition" | "class_definition" => {
                self.declare_def(s, class, prefix, &[], None)
            }
            "expression_statement" => {
                for e in kids(s) {
                    if e.kind_name() == "assignment" {
                        self.declare_assignment(e, s, class, prefix);
                    }
                }
            }
            "import_statement" | "import_from_statement" if class.is_none() => {
                self.declare_import(s, true);
            }
            "future_import_statement" if class.is_none() => {
                // `from __future__ import x`: an import of the standard library, recorded at
                // the statement.
                for n in kids(s) {
                    let name = match n.kind_name() {
                        "dotted_name" => n,
                        "aliased_import" => match n.field("name") {
                            Some(x) => x,
                            None => continue,
                        },
                        _ => continue,
                    };
                    let nm = self.t(name).to_string();
                    self.push_import(
                        nm.clone(),
                        "__future__".into(),
                        ImportKind::From(nm),
                        name,
                        s,
                        true,
                    );
                }
            }
            "if_statement"
            | "elif_clause"
            | "else_clause"
            | "try_statement"
            | "except_clause"
            | "finally_clause"
            | "with_statement"
            | "for_statement"
            | "while_statement"
            | "block"
            | "except_group_clause"
            | "match_statement"
            | "case_clause" => {
                for k in kids(s) {
                    match k.kind_name() {
                        "block"
                        | "elif_clause"
                        | "else_clause"
                        | "except_clause"
                        | "finally_clause"
                        | "except_group_clause"
                        | "case_clause" => self.declare_stmt(k, class, prefix),
                        _ => self.declare_stmt_like(k, class, prefix),
                    }
                }
                if s.kind_name() == "for_statement"
                    && let Some(l) = s.field("left")
                {
                    self.declare_targets(l, s, class, prefix, false);
                }
            }
            "ERROR" => {
                for k in kids(s) {
                    self.declare_stmt(k, class, prefix);
                }
            }
            _ => {}
        }
    }

    pub(super) fn declare_stmt_like(&mut self, k: Node, class: Option<usize>, prefix: &str) {
        if matches!(
            k.kind_name(),
            "decorated_definition"
                | "function_definition"
                | "class_definition"
                | "expression_statement"
                | "import_statement"
                | "import_from_statement"
                | "if_statement"
                | "try_statement"
                | "with_statement"
                | "for_statement"
                | "while_statement"
                | "block"
        ) {
            self.declare_stmt(k, class, prefix);
        }
    }

    pub(super) fn bind_decl(&mut self, name: &str, d: usize) {
        if let Some(s) = self.scopes.last_mut() {
            s.names.entry(name.to_string()).or_insert(NameRes::Decl(d));
        }
    }

    pub(super) fn existing(&self, name: &str, class: Option<usize>) -> Option<usize> {
        match class {
            Some(c) => self.file.decls[c].members.get(name).copied(),
            None => match self.scopes[0].names.get(name) {
                Some(NameRes::Decl(d)) => Some(*d),
                _ => None,
            },
        }
    }

    pub(super) fn declare_def(
        &mut self,
        d: Node,
        class: Option<usize>,
        prefix: &str,
        decorators: &[String],
        outer: Option<Node>,
    ) {
        let Some(name) = d.field("name") else {
            return;
        };
        let name = self.t(name).to_string();
        let span_node = outer.unwrap_or(d);
        if let Some(e) = self.existing(&name, class) {
            // A redefinition (a property's setter, an `@overload` stub's implementation, a
            // conditional def) is a part of the first one, whose range runs to the end of its
            // last part (SPEC section 12.2).
            self.decl_at.insert((d.start_byte(), d.kind_id()), e);
            self.file.decls[e].span.extend_to(Span::of(span_node));
            return;
        }
        if d.kind_name() == "class_definition" {
            let c = self.new_decl(span_node, &name, SymbolKind::Class, class, prefix);
            self.file.decls[c].signature = header(d, self.src);
            self.decl_at.insert((d.start_byte(), d.kind_id()), c);
            if class.is_none() {
                self.bind_decl(&name, c);
            }
            let qp = format!("{}.", self.file.decls[c].qn);
            if let Some(body) = d.field("body") {
                self.declare_block(body, Some(c), &qp);
                self.declare_self_fields(body, c, &qp);
            }
            return;
        }
        let is = |n: &str| decorators.iter().any(|x| x == n);
        let kind = match class {
            None => SymbolKind::Function,
            Some(_) if is("staticmethod") => SymbolKind::StaticMethod,
            Some(_)
                if is("property")
                    || decorators.iter().any(|x| {
                        x.ends_with(".setter") || x.ends_with(".getter") || x.ends_with(".deleter")
                    }) =>
            {
                SymbolKind::Property
            }
            Some(_) => SymbolKind::Method,
        };
        let f = self.new_decl(span_node, &name, kind, class, prefix);
        self.file.decls[f].signature = header(d, self.src);
        self.decl_at.insert((d.start_byte(), d.kind_id()), f);
        self.file.decls[f].static_method = is("staticmethod");
        self.file.decls[f].class_method = is("classmethod");
        if class.is_none() {
            self.bind_decl(&name, f);
        }
    }

    /// `self.x = …` (and `self.x: T = …`) in the methods of class `c`: a field when the class
    /// body does not declare `x`, at its first assignment.
    pub(super) fn declare_self_fields(&mut self, body: Node, c: usize, qp: &str) {
        for s in kids(body) {
            let def = match s.kind_name() {
                "decorated_definition" => s.field("definition"),
                "function_definition" => Some(s),
                _ => None,
            };
            let Some(def) = def.filter(|d| d.kind_name() == "function_definition") else {
                continue;
            };
            let decorated_static = s.kind_name() == "decorated_definition"
                && kids(s).iter().any(|k| {
                    k.kind_name() == "decorator"
                        && k.named_child(0)
                            .is_some_and(|e| matches!(self.t(e), "staticmethod" | "classmethod"))
                });
            if decorated_static {
                continue;
            }
            let Some(me) = first_param(def, self.src) else {
                continue;
            };
            if let Some(b) = def.field("body") {
                self.scan_self_assignments(b, &me, c, qp);
            }
        }
    }

    pub(super) fn scan_self_assignments(&mut self, n: Node, me: &str, c: usize, qp: &str) {
        self.scan_self_at(n, me, c, qp, 0);
    }

    pub(super) fn scan_self_at(&mut self, n: Node, me: &str, c: usize, qp: &str, d: usize) {
        if d > MAX_DEPTH {
            return;
        }
        for k in kids(n) {
            match k.kind_name() {
                "function_definition" | "class_definition" | "decorated_definition" | "lambda" => {}
                "assignment" | "augmented_assignment" => {
                    if let Some(l) = k.field("left") {
                        let mut targets = Vec::new();
                        attribute_targets(l, &mut targets);
                        for t in targets {
                            let (Some(o), Some(a)) = (t.field("object"), t.field("attribute"))
                            else {
                                continue;
                            };
                            if self.t(o) != me {
                                continue;
                            }
                            let name = self.t(a).to_string();
                            match self.file.decls[c].members.get(&name) {
                                Some(&f) => {
                                    if self.file.decls[f].kind == SymbolKind::Field {
                                        self.file.decls[f].assignments += 1;
                                    }
                                }
                                None => {
                                    let stmt = k.parent().unwrap_or(k);
                                    let f =
                                        self.new_decl(stmt, &name, SymbolKind::Field, Some(c), qp);
                                    self.file.decls[f].assignments = 1;
                                    self.file.decls[f].from_self = true;
                                    // `self.x: T = …` declares x here even when a base does.
                                    self.file.decls[f].annotated = k.field("type").is_some();
                                    self.decl_at.insert((t.start_byte(), t.kind_id()), f);
                                }
                            }
                        }
                    }
                    if let Some(r) = k.field("right") {
                        self.scan_self_at(r, me, c, qp, d + 1);
                    }
                }
                // Assignments are statements (or the right side of one): only blocks,
                // statements and clauses hold them, and in broken code the subtrees that hold
                // an error; expressions are not searched.
                kind if kind == "block"
                    || kind.ends_with("_statement")
                    || kind.ends_with("_clause")
                    || k.has_error() =>
                {
                    self.scan_self_at(k, me, c, qp, d + 1)
                }
                _ => {}
            }
        }
    }

    pub(super) fn declare_assignment(
        &mut self,
        a: Node,
        stmt: Node,
        class: Option<usize>,
        prefix: &str,
    ) {
        let Some(left) = a.field("left") else {
            return;
        };
        self.declare_targets(left, stmt, class, prefix, true);
        // `x = y = 1`: the right side may itself be an assignment.
        if let Some(r) = a.field("right")
            && r.kind_name() == "assignment"
        {
            self.declare_assignment(r, stmt, class, prefix);
        }
        if class.is_none()
            && left.kind_name() == "identifier"
            && self.t(left) == "__all__"
            && let Some(r) = a.field("right")
            && matches!(r.kind_name(), "list" | "tuple")
        {
            let mut names = Vec::new();
            for e in kids(r) {
                if e.kind_name() == "string" && e.named_child_count() <= 3 {
                    let t = self.t(e);
                    names.push(t.trim_matches(|c| c == '"' || c == '\'').to_string());
                } else if e.kind_name() != "comment" {
                    return;
                }
            }
            self.file.all = Some(names);
        }
    }

    pub(super) fn declare_targets(
        &mut self,
        t: Node,
        stmt: Node,
        class: Option<usize>,
        prefix: &str,
        assignment: bool,
    ) {
        match t.kind_name() {
            "identifier" => {
                let name = self.t(t).to_string();
                if let Some(e) = self.existing(&name, class) {
                    self.file.decls[e].assignments += 1;
                    return;
                }
                if !assignment {
                    // `for` targets at module level are names, not declarations.
                    return;
                }
                let kind = if class.is_some() {
                    SymbolKind::Field
                } else {
                    SymbolKind::Variable
                };
                let d = self.new_decl(stmt, &name, kind, class, prefix);
                self.file.decls[d].assignments = 1;
                self.decl_at.insert((t.start_byte(), t.kind_id()), d);
                if class.is_none() {
                    self.bind_decl(&name, d);
                }
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                for k in kids(t) {
                    self.declare_targets(k, stmt, class, prefix, assignment);
                }
            }
            _ => {}
        }
    }

    pub(super) fn declare_import(&mut self, s: Node, top: bool) {
        if s.kind_name() == "import_statement" {
            for n in kids(s) {
                let (name, alias) = match n.kind_name() {
                    "dotted_name" => (n, None),
                    "aliased_import" => match aliased(n) {
                        Some((name, alias)) => (name, Some(alias)),
                        None => continue,
                    },
                    _ => continue,
                };
                let module = self.t(name).to_string();
                let last = last_part(name);
                // `import a.b.c` binds `a`, written at `a`; `import a.b as c` binds `c`, written
                // at the module's last part.
                let (local, at) = match alias {
                    Some(a) => (self.t(a), last),
                    None => {
                        let first = name.named_child(0).unwrap_or(name);
                        (self.t(first), first)
                    }
                };
                let kind = ImportKind::Module {
                    alias: alias.is_some(),
                };
                self.push_import(local.to_string(), module, kind, at, last, top);
            }
            return;
        }
        // from … import …
        let Some(m) = s.field("module_name") else {
            return;
        };
        let module = self.t(m).split_whitespace().collect::<String>();
        for n in kids(s) {
            if Some(n) == s.field("module_name") {
                continue;
            }
            match n.kind_name() {
                "dotted_name" => {
                    let name = self.t(n).to_string();
                    self.push_import(
                        name.clone(),
                        module.clone(),
                        ImportKind::From(name),
                        n,
                        n,
                        top,
                    );
                }
                "aliased_import" => {
                    let Some((name, alias)) = aliased(n) else {
                        continue;
                    };
                    let nm = self.t(name).to_string();
                    let local = self.t(alias).to_string();
                    self.push_import(local, module.clone(), ImportKind::From(nm), name, name, top);
                }
                "wildcard_import" => {
                    self.push_import(String::new(), module.clone(), ImportKind::Star, n, n, top);
                }
                _ => {}
            }
        }
    }

    pub(super) fn push_import(
        &mut self,
        local: String,
        module: String,
        kind: ImportKind,
        at: Node,
        module_at: Node,
        top: bool,
    ) {
        let (line, column) = pos(at);
        let (module_line, module_column) = pos(module_at);
        let i = self.file.imports.len();
        let mut guarded = false;
        let mut p = at.parent();
        while let Some(n) = p {
            match n.kind_name() {
                "try_statement" => {
                    guarded = true;
                    break;
                }
                "function_definition" | "class_definition" | "module" => break,
                _ => p = n.parent(),
            }
        }
        self.file.imports.push(Import {
            guarded,
            local: local.clone(),
            module,
            kind: kind.clone(),
            line,
            column,
            module_line,
            module_column,
            top,
        });
        if kind != ImportKind::Star
            && let Some(s) = self.scopes.last_mut()
        {
            // The first binding stands at module level (a decl or an earlier import).
            if top {
                s.names.entry(local).or_insert(NameRes::Import(i));
            } else {
                s.names.insert(local, NameRes::Import(i));
            }
        }
    }

    /// Exported: listed in `__all__`, or without `__all__` not starting with `_`; members of
    /// exported classes unless `_private` (dunders are public).
    pub(super) fn mark_exported(&mut self) {
        let all = self.file.all.clone();
        for i in 0..self.file.decls.len() {
            let d = &self.file.decls[i];
            let public =
                !d.name.starts_with('_') || (d.name.starts_with("__") && d.name.ends_with("__"));
            let e = match d.parent {
                None => match &all {
                    Some(a) => a.contains(&d.name),
                    None => !d.name.starts_with('_'),
                },
                Some(p) => self.file.decls[p].exported && public,
            };
            self.file.decls[i].exported = e;
        }
    }
}

/// The last part of a dotted name (`c` of `a.b.c`), where an import's module is recorded.
fn last_part(n: Node) -> Node {
    n.named_child((n.named_child_count().saturating_sub(1)) as u32)
        .unwrap_or(n)
}

/// The name and the alias of `name as alias`.
fn aliased(n: Node) -> Option<(Node, Node)> {
    Some((n.field("name")?, n.field("alias")?))
}
