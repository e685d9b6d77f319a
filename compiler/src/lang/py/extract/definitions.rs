//! Functions, lambdas, classes and comprehensions: the scopes they open, their parameters,
//! decorators, bases and bodies.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    /// The parameters of a function or lambda into the innermost scope, their annotations and
    /// defaults walked (defaults and annotations belong to the enclosing scope, walked before
    /// the scope is pushed by the callers).
    pub(super) fn bind_params(&mut self, params: Node, method: Option<&MethodContext>) {
        let mut first = true;
        for p in kids(params) {
            let (name, ty) = match p.kind_name() {
                "identifier" => (Some(p), None),
                "typed_parameter" => {
                    // `x: T`, `*args: T`, `**kwargs: T`.
                    let name = kids(p).into_iter().find_map(|k| match k.kind_name() {
                        "identifier" => Some(k),
                        "list_splat_pattern" | "dictionary_splat_pattern" => {
                            kids(k).into_iter().find(|c| c.kind_name() == "identifier")
                        }
                        _ => None,
                    });
                    let splat = kids(p).iter().any(|k| {
                        matches!(
                            k.kind_name(),
                            "list_splat_pattern" | "dictionary_splat_pattern"
                        )
                    });
                    (name, if splat { None } else { p.field("type") })
                }
                "default_parameter" => (p.field("name"), None),
                "typed_default_parameter" => (p.field("name"), p.field("type")),
                "list_splat_pattern" | "dictionary_splat_pattern" => (
                    kids(p).into_iter().find(|k| k.kind_name() == "identifier"),
                    None,
                ),
                _ => (None, None),
            };
            let Some(name) = name.filter(|n| n.kind_name() == "identifier") else {
                continue;
            };
            let l = self.new_local();
            let nm = self.t(name).to_string();
            if first
                && let Some(m) = method
                && m.receiver.as_deref() == Some(nm.as_str())
            {
                self.file.locals[l].value = Some(Expr::SelfOf(m.class));
                self.file.locals[l].assignments = 1;
            } else if let Some(t) = ty {
                self.file.locals[l].ty = Some(self.type_ref(t));
            } else if p.kind_name() == "list_splat_pattern"
                || p.kind_name() == "dictionary_splat_pattern"
            {
                self.file.locals[l].value = Some(Expr::External);
            }
            first = false;
            if let Some(s) = self.scopes.last_mut() {
                s.names.insert(nm, NameRes::Local(l));
            }
        }
    }

    pub(super) fn walk_param_parts(&mut self, params: Node) {
        for p in kids(params) {
            if let Some(t) = p.field("type") {
                self.walk_type(t);
            }
            if let Some(v) = p.field("value") {
                self.walk(v);
            }
        }
    }

    pub(super) fn walk_function(&mut self, n: Node) {
        let decl = self.decl_of(n);
        let class_scope = match self.scopes.last().map(|s| s.kind) {
            Some(ScopeKind::Class(c)) => Some(c),
            _ => None,
        };
        // Annotations and defaults are evaluated in the enclosing scope.
        self.with_owner(decl, |x| {
            if let Some(p) = n.field("parameters") {
                x.walk_param_parts(p);
            }
            if let Some(r) = n.field("return_type") {
                x.walk_type(r);
                let tr = x.type_ref(r);
                if let Some(d) = decl
                    && x.file.decls[d].ty.is_none()
                {
                    x.file.decls[d].ty = Some(tr);
                }
            }
        });
        let method = match (class_scope, decl) {
            (Some(Some(c)), Some(d)) if !self.file.decls[d].static_method => Some(MethodContext {
                class: c,
                receiver: first_param(n, self.src),
            }),
            _ => None,
        };
        let saved_method = self.method.clone();
        if class_scope.is_some() {
            self.method = method.clone();
        }
        self.scopes.push(Scope::new(ScopeKind::Function));
        if let Some(p) = n.field("parameters") {
            self.bind_params(p, method.as_ref());
        }
        if let Some(body) = n.field("body") {
            let mut bound = Vec::new();
            self.collect_bound(body, &mut bound);
            for nm in bound {
                let exists = self
                    .scopes
                    .last()
                    .is_some_and(|s| s.names.contains_key(&nm));
                if !exists {
                    let l = self.new_local();
                    if let Some(s) = self.scopes.last_mut() {
                        s.names.insert(nm, NameRes::Local(l));
                    }
                }
            }
            // `global`/`nonlocal` first: they apply to the whole body.
            self.pre_declare_globals(body);
            self.with_owner(decl, |x| x.walk_block(body));
        }
        self.scopes.pop();
        self.method = saved_method;
    }

    /// Walks the `global` and `nonlocal` statements of a function body first. They are
    /// statements: only blocks, statements and clauses hold them (and, in broken code, the
    /// subtrees that hold an error), so expressions are not searched.
    pub(super) fn pre_declare_globals(&mut self, body: Node) {
        for k in kids(body) {
            match k.kind_name() {
                "global_statement" | "nonlocal_statement" => self.walk(k),
                "function_definition" | "class_definition" | "decorated_definition" => {}
                kind if kind == "block"
                    || kind.ends_with("_statement")
                    || kind.ends_with("_clause")
                    || k.has_error() =>
                {
                    self.pre_declare_globals(k)
                }
                _ => {}
            }
        }
    }

    pub(super) fn walk_lambda(&mut self, n: Node) {
        if let Some(p) = n.field("parameters") {
            self.walk_param_parts(p);
        }
        self.scopes.push(Scope::new(ScopeKind::Function));
        if let Some(p) = n.field("parameters") {
            self.bind_params(p, None);
        }
        if let Some(b) = n.field("body") {
            self.walk(b);
        }
        self.scopes.pop();
    }

    pub(super) fn walk_class(&mut self, n: Node) {
        let decl = self.decl_of(n);
        self.with_owner(decl, |x| {
            if let Some(sup) = n.field("superclasses") {
                for a in kids(sup) {
                    match a.kind_name() {
                        "identifier" => {
                            x.name_ref(a, Use::Extends);
                            let t = x.type_ref(a);
                            if let Some(d) = decl {
                                x.file.decls[d].bases.push(t);
                            }
                        }
                        "attribute" => {
                            x.member_ref(a, Use::Extends);
                            let t = x.type_ref(a);
                            if let Some(d) = decl {
                                x.file.decls[d].bases.push(t);
                            }
                        }
                        "keyword_argument" => {
                            if let Some(v) = a.field("value") {
                                x.walk(v);
                            }
                        }
                        // `Base[int]`: the base is `Base`.
                        "subscript" => {
                            if let Some(v) = a.field("value") {
                                match v.kind_name() {
                                    "identifier" => x.name_ref(v, Use::Extends),
                                    "attribute" => {
                                        x.member_ref(v, Use::Extends);
                                    }
                                    _ => x.walk(v),
                                }
                            }
                            for k in kids(a) {
                                if Some(k) != a.field("value") {
                                    x.walk(k);
                                }
                            }
                            let t = x.type_ref(a);
                            if let Some(d) = decl {
                                x.file.decls[d].bases.push(t);
                            }
                        }
                        _ => x.walk(a),
                    }
                }
            }
        });
        let mut scope = Scope::new(ScopeKind::Class(decl));
        if let Some(d) = decl {
            for (k, v) in &self.file.decls[d].members {
                scope.names.insert(k.clone(), NameRes::Decl(*v));
            }
        } else if let Some(body) = n.field("body") {
            // A class inside a function: its body's names are locals of the class scope.
            let mut bound = Vec::new();
            self.collect_bound(body, &mut bound);
            for nm in bound {
                let l = self.new_local();
                scope.names.insert(nm, NameRes::Local(l));
            }
        }
        self.scopes.push(scope);
        let saved = self.method.take();
        if let Some(body) = n.field("body") {
            self.with_owner(decl, |x| x.walk_block(body));
        }
        self.method = saved;
        self.scopes.pop();
    }

    pub(super) fn walk_comprehension(&mut self, n: Node) {
        // The first iterable is evaluated in the enclosing scope.
        let clauses: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| k.kind_name() == "for_in_clause")
            .collect();
        if let Some(first) = clauses.first()
            && let Some(r) = first.field("right")
        {
            self.walk(r);
        }
        self.scopes.push(Scope::new(ScopeKind::Comprehension));
        for (i, c) in clauses.iter().enumerate() {
            if i > 0
                && let Some(r) = c.field("right")
            {
                self.walk(r);
            }
            if let Some(l) = c.field("left") {
                let value = c
                    .field("right")
                    .map(|r| Expr::Elem(Box::new(self.expr_of(r))));
                let mut names = Vec::new();
                target_names(l, self.src, &mut names);
                for nm in names {
                    let lid = self.new_local();
                    if l.kind_name() == "identifier" {
                        self.file.locals[lid].value = value.clone();
                        self.file.locals[lid].assignments = 1;
                    }
                    if let Some(s) = self.scopes.last_mut() {
                        s.names.insert(nm, NameRes::Local(lid));
                    }
                }
            }
        }
        for k in kids(n) {
            match k.kind_name() {
                "for_in_clause" => {}
                "if_clause" => self.walk_block(k),
                _ => self.walk(k),
            }
        }
        self.scopes.pop();
    }
}
