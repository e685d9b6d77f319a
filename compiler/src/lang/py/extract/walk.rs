//! Python's scopes and the walk over every statement and expression, recording references.

use super::*;

impl Extractor<'_> {
    pub(super) fn walk_block(&mut self, n: Node) {
        for k in kids(n) {
            self.walk(k);
        }
    }

    pub(super) fn walk(&mut self, n: Node) {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.file.has_error = true;
            self.depth -= 1;
            return;
        }
        self.walk_inner(n);
        self.depth -= 1;
    }

    pub(super) fn walk_inner(&mut self, n: Node) {
        match n.kind() {
            "comment"
            | "string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "ellipsis"
            | "pass_statement"
            | "break_statement"
            | "continue_statement"
            | "future_import_statement"
            | "concatenated_string" => {
                // f-strings hold expressions.
                if matches!(n.kind(), "string" | "concatenated_string") {
                    self.walk_interpolations(n);
                }
            }
            "import_statement" | "import_from_statement" => self.walk_import(n),
            "decorated_definition" => {
                let def = n.child_by_field_name("definition");
                let decl = def.and_then(|d| self.decl_of(d));
                for k in kids(n) {
                    if k.kind() == "decorator"
                        && let Some(e) = k.named_child(0)
                    {
                        self.with_owner(decl, |x| x.walk_decorator(e));
                    }
                }
                if let Some(d) = def {
                    self.walk(d);
                }
            }
            "function_definition" => self.walk_function(n),
            "class_definition" => self.walk_class(n),
            "lambda" => self.walk_lambda(n),
            "global_statement" | "nonlocal_statement" => {
                let global = n.kind() == "global_statement";
                let names: Vec<String> = kids(n).iter().map(|k| self.t(*k).to_string()).collect();
                if let Some(s) = self.scopes.last_mut() {
                    for nm in names {
                        s.names.remove(&nm);
                        if global {
                            s.globals.insert(nm);
                        } else {
                            s.nonlocals.insert(nm);
                        }
                    }
                }
            }
            "expression_statement" => {
                for k in kids(n) {
                    self.walk(k);
                }
            }
            "assignment" | "augmented_assignment" => self.walk_assignment(n),
            "for_statement" => {
                if let Some(r) = n.child_by_field_name("right") {
                    self.walk(r);
                }
                if let Some(l) = n.child_by_field_name("left") {
                    let value = n
                        .child_by_field_name("right")
                        .map(|r| Expr::Elem(Box::new(self.expr_of(r))));
                    self.assign_targets(l, value, None);
                }
                for k in kids(n) {
                    if Some(k) != n.child_by_field_name("left")
                        && Some(k) != n.child_by_field_name("right")
                    {
                        self.walk(k);
                    }
                }
            }
            "with_item" => {
                if let Some(v) = n.child_by_field_name("value") {
                    if v.kind() == "as_pattern" {
                        for k in kids(v) {
                            if k.kind() != "as_pattern_target" {
                                self.walk(k);
                            }
                        }
                        if let Some(a) = v.child_by_field_name("alias") {
                            self.assign_targets(a, None, None);
                        }
                    } else {
                        self.walk(v);
                    }
                }
            }
            "except_clause" => {
                for k in kids(n) {
                    match k.kind() {
                        "as_pattern" => {
                            for c in kids(k) {
                                if c.kind() != "as_pattern_target" {
                                    self.walk(c);
                                }
                            }
                            if let Some(a) = k.child_by_field_name("alias") {
                                self.assign_targets(a, None, None);
                            }
                        }
                        _ => self.walk(k),
                    }
                }
            }
            "named_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.walk(v);
                }
                if let Some(nm) = n.child_by_field_name("name") {
                    let value = n.child_by_field_name("value").map(|v| self.expr_of(v));
                    self.assign_targets(nm, value, None);
                }
            }
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => self.walk_comprehension(n),
            "identifier" => self.name_ref(n, Use::Value),
            "attribute" => {
                self.member_ref(n, Use::Value);
            }
            "call" => self.walk_call(n),
            "keyword_argument" => {
                if let Some(v) = n.child_by_field_name("value") {
                    // `key=f` in a call passes f by name, as a positional argument would.
                    let in_call = n.parent().is_some_and(|p| p.kind() == "argument_list");
                    match v.kind() {
                        "identifier" if in_call => self.name_ref(v, Use::Argument),
                        "attribute" if in_call => {
                            self.member_ref(v, Use::Argument);
                        }
                        _ => self.walk(v),
                    }
                }
            }
            "type" => self.walk_type(n),
            "case_pattern" => self.walk_case_pattern(n),
            "if_statement" => self.walk_if(n),
            "boolean_operator" => {
                // `sys.version_info >= (3, 14) and x`: the right side is not evaluated.
                let op = n.child_by_field_name("operator").map(|o| self.t(o));
                let left = n.child_by_field_name("left");
                let known = left.and_then(|l| self.static_condition(l));
                if let Some(l) = left {
                    self.walk(l);
                }
                let dead = matches!(
                    (op, known),
                    (Some("and"), Some(false)) | (Some("or"), Some(true))
                );
                if !dead && let Some(r) = n.child_by_field_name("right") {
                    self.walk(r);
                }
            }
            "delete_statement" => self.walk_block(n),
            _ => self.walk_block(n),
        }
    }

    pub(super) fn walk_interpolations(&mut self, n: Node) {
        for k in kids(n) {
            match k.kind() {
                "interpolation" => {
                    for e in kids(k) {
                        if !matches!(e.kind(), "format_specifier" | "type_conversion") {
                            self.walk(e);
                        }
                    }
                }
                "string" => self.walk_interpolations(k),
                _ => {}
            }
        }
    }

    pub(super) fn walk_import(&mut self, n: Node) {
        let (sl, el) = (
            n.start_position().row as u32 + 1,
            n.end_position().row as u32 + 1,
        );
        let in_function = self
            .scopes
            .iter()
            .any(|s| matches!(s.kind, ScopeKind::Function | ScopeKind::Class(_)));
        if in_function {
            // A function-level import binds a local: declare it now.
            self.declare_import(n, false);
        }
        let ids: Vec<usize> = self
            .file
            .imports
            .iter()
            .enumerate()
            .filter(|(_, im)| im.line >= sl && im.line <= el && im.top != in_function)
            .map(|(i, _)| i)
            .collect();
        for i in ids {
            let im = self.file.imports[i].clone();
            match im.kind {
                ImportKind::From(_) => self.file.refs.push(Ref {
                    line: im.line,
                    column: im.column,
                    from: self.owner,
                    usage: Use::Import,
                    target: RefTarget::Imported(i),
                }),
                ImportKind::Module { .. } => self.file.refs.push(Ref {
                    line: im.module_line,
                    column: im.module_column,
                    from: self.owner,
                    usage: Use::Import,
                    target: RefTarget::ImportedModule(i),
                }),
                ImportKind::Star => {}
            }
        }
    }

    pub(super) fn walk_decorator(&mut self, e: Node) {
        match e.kind() {
            "identifier" => self.name_ref(e, Use::Decorator),
            "attribute" => {
                self.member_ref(e, Use::Decorator);
            }
            "call" => self.walk_call(e),
            _ => self.walk(e),
        }
    }

    pub(super) fn walk_type(&mut self, n: Node) {
        match n.kind() {
            "identifier" => self.name_ref(n, Use::Type),
            "attribute" => {
                self.member_ref(n, Use::Type);
            }
            "string" => {}
            "none" => {}
            _ => {
                for k in kids(n) {
                    self.walk_type(k);
                }
            }
        }
    }

    /// The parameters of a function or lambda into the innermost scope, their annotations and
    /// defaults walked (defaults and annotations belong to the enclosing scope, walked before
    /// the scope is pushed by the callers).
    pub(super) fn bind_params(&mut self, params: Node, method: Option<&MethodCtx>) {
        let mut first = true;
        for p in kids(params) {
            let (name, ty) = match p.kind() {
                "identifier" => (Some(p), None),
                "typed_parameter" => {
                    // `x: T`, `*args: T`, `**kwargs: T`.
                    let name = kids(p).into_iter().find_map(|k| match k.kind() {
                        "identifier" => Some(k),
                        "list_splat_pattern" | "dictionary_splat_pattern" => {
                            kids(k).into_iter().find(|c| c.kind() == "identifier")
                        }
                        _ => None,
                    });
                    let splat = kids(p).iter().any(|k| {
                        matches!(k.kind(), "list_splat_pattern" | "dictionary_splat_pattern")
                    });
                    (
                        name,
                        if splat {
                            None
                        } else {
                            p.child_by_field_name("type")
                        },
                    )
                }
                "default_parameter" => (p.child_by_field_name("name"), None),
                "typed_default_parameter" => {
                    (p.child_by_field_name("name"), p.child_by_field_name("type"))
                }
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    (kids(p).into_iter().find(|k| k.kind() == "identifier"), None)
                }
                _ => (None, None),
            };
            let Some(name) = name.filter(|n| n.kind() == "identifier") else {
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
            } else if p.kind() == "list_splat_pattern" || p.kind() == "dictionary_splat_pattern" {
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
            if let Some(t) = p.child_by_field_name("type") {
                self.walk_type(t);
            }
            if let Some(v) = p.child_by_field_name("value") {
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
            if let Some(p) = n.child_by_field_name("parameters") {
                x.walk_param_parts(p);
            }
            if let Some(r) = n.child_by_field_name("return_type") {
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
            (Some(Some(c)), Some(d)) if !self.file.decls[d].static_method => Some(MethodCtx {
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
        if let Some(p) = n.child_by_field_name("parameters") {
            self.bind_params(p, method.as_ref());
        }
        if let Some(body) = n.child_by_field_name("body") {
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

    pub(super) fn pre_declare_globals(&mut self, body: Node) {
        for k in kids(body) {
            match k.kind() {
                "global_statement" | "nonlocal_statement" => self.walk(k),
                "function_definition" | "class_definition" | "decorated_definition" => {}
                _ => self.pre_declare_globals(k),
            }
        }
    }

    pub(super) fn walk_lambda(&mut self, n: Node) {
        if let Some(p) = n.child_by_field_name("parameters") {
            self.walk_param_parts(p);
        }
        self.scopes.push(Scope::new(ScopeKind::Function));
        if let Some(p) = n.child_by_field_name("parameters") {
            self.bind_params(p, None);
        }
        if let Some(b) = n.child_by_field_name("body") {
            self.walk(b);
        }
        self.scopes.pop();
    }

    pub(super) fn walk_class(&mut self, n: Node) {
        let decl = self.decl_of(n);
        self.with_owner(decl, |x| {
            if let Some(sup) = n.child_by_field_name("superclasses") {
                for a in kids(sup) {
                    match a.kind() {
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
                            if let Some(v) = a.child_by_field_name("value") {
                                x.walk(v);
                            }
                        }
                        // `Base[int]`: the base is `Base`.
                        "subscript" => {
                            if let Some(v) = a.child_by_field_name("value") {
                                match v.kind() {
                                    "identifier" => x.name_ref(v, Use::Extends),
                                    "attribute" => {
                                        x.member_ref(v, Use::Extends);
                                    }
                                    _ => x.walk(v),
                                }
                            }
                            for k in kids(a) {
                                if Some(k) != a.child_by_field_name("value") {
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
        } else if let Some(body) = n.child_by_field_name("body") {
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
        if let Some(body) = n.child_by_field_name("body") {
            self.with_owner(decl, |x| x.walk_block(body));
        }
        self.method = saved;
        self.scopes.pop();
    }

    pub(super) fn walk_comprehension(&mut self, n: Node) {
        // The first iterable is evaluated in the enclosing scope.
        let clauses: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| k.kind() == "for_in_clause")
            .collect();
        if let Some(first) = clauses.first()
            && let Some(r) = first.child_by_field_name("right")
        {
            self.walk(r);
        }
        self.scopes.push(Scope::new(ScopeKind::Comprehension));
        for (i, c) in clauses.iter().enumerate() {
            if i > 0
                && let Some(r) = c.child_by_field_name("right")
            {
                self.walk(r);
            }
            if let Some(l) = c.child_by_field_name("left") {
                let value = c
                    .child_by_field_name("right")
                    .map(|r| Expr::Elem(Box::new(self.expr_of(r))));
                let mut names = Vec::new();
                target_names(l, self.src, &mut names);
                for nm in names {
                    let lid = self.new_local();
                    if l.kind() == "identifier" {
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
            match k.kind() {
                "for_in_clause" => {}
                "if_clause" => self.walk_block(k),
                _ => self.walk(k),
            }
        }
        self.scopes.pop();
    }

    pub(super) fn walk_assignment(&mut self, n: Node) {
        let right = n.child_by_field_name("right");
        let ty = n.child_by_field_name("type");
        if let Some(t) = ty {
            self.walk_type(t);
        }
        let left = n.child_by_field_name("left");
        // The value of `x = …` belongs to x's declaration; that of `self.x = …` to the method.
        let stmt_decl = left
            .filter(|l| l.kind() != "attribute")
            .and_then(|l| self.decl_of(l))
            .or_else(|| n.parent().and_then(|p| self.decl_of(p)));
        if let Some(r) = right {
            if r.kind() == "assignment" {
                self.walk_assignment(r);
            } else {
                self.with_owner(stmt_decl, |x| x.walk(r));
            }
        }
        let value = right.map(|r| {
            let r = if r.kind() == "assignment" {
                innermost_value(r)
            } else {
                r
            };
            self.expr_of(r)
        });
        let tyref = ty.map(|t| self.type_ref(t));
        let augmented = n.kind() == "augmented_assignment";
        if let Some(l) = left {
            if augmented {
                // `x += 1` reads x and rebinds it.
                self.walk_target_reads(l);
                self.assign_targets(l, Some(Expr::Unknown), None);
            } else {
                self.assign_targets(l, value, tyref);
            }
        }
    }

    pub(super) fn walk_target_reads(&mut self, l: Node) {
        match l.kind() {
            "identifier" => self.name_ref(l, Use::Value),
            _ => self.walk(l),
        }
    }

    /// Binds assignment targets: locals get their value or annotation, module and class
    /// declarations theirs, `self.x` fields theirs; attribute and subscript targets are
    /// walked as reads of their objects.
    pub(super) fn assign_targets(&mut self, t: Node, value: Option<Expr>, ty: Option<TypeRef>) {
        match t.kind() {
            "identifier" => {
                let name = self.t(t).to_string();
                match self.lookup_assign(&name) {
                    NameRes::Local(l) => {
                        let local = &mut self.file.locals[l];
                        local.assignments += 1;
                        if ty.is_some() {
                            local.ty = ty;
                        } else if local.assignments == 1 {
                            local.value = value;
                        }
                    }
                    NameRes::Decl(d) => {
                        let dd = &mut self.file.decls[d];
                        if ty.is_some() && dd.ty.is_none() {
                            dd.ty = ty;
                        }
                        if dd.value.is_none() {
                            dd.value = value;
                        }
                    }
                    NameRes::Unbound(_) => {
                        // A module-level or class-level name that is not a symbol (`for`,
                        // `with … as` and `except … as` targets): a name of that scope.
                        let l = self.new_local();
                        self.file.locals[l].assignments = 1;
                        self.file.locals[l].ty = ty;
                        self.file.locals[l].value = value;
                        if let Some(s) = self.scopes.last_mut() {
                            s.names.insert(name, NameRes::Local(l));
                        }
                    }
                    NameRes::Import(_) => {}
                }
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "as_pattern_target"
            | "parenthesized_expression" => {
                let single = t.kind() == "as_pattern_target" && kids(t).len() == 1;
                for k in kids(t) {
                    if single {
                        self.assign_targets(k, value.clone(), ty.clone());
                    } else {
                        self.assign_targets(k, None, None);
                    }
                }
            }
            "attribute" => {
                // `self.x = …`: the field's type.
                if let (Some(o), Some(a), Some(m)) = (
                    t.child_by_field_name("object"),
                    t.child_by_field_name("attribute"),
                    self.method.clone(),
                ) && m.receiver.as_deref() == Some(self.t(o))
                    && let Some(&f) = self.file.decls[m.class].members.get(self.t(a))
                    && self.file.decls[f].kind == SymbolKind::Field
                {
                    let dd = &mut self.file.decls[f];
                    if ty.is_some() && dd.ty.is_none() {
                        dd.ty = ty;
                    } else if dd.value.is_none() && dd.ty.is_none() {
                        dd.value = value;
                    }
                }
                // The first `self.x = …` declares the field: not a use of it.
                if self.decl_of(t).is_none() {
                    self.member_ref(t, Use::Value);
                }
            }
            "list_splat_pattern" => {
                if let Some(k) = t.named_child(0) {
                    self.assign_targets(k, None, None);
                }
            }
            _ => self.walk(t),
        }
    }

    /// The binding an assignment writes: the innermost function's local, or the class body's
    /// or module's declaration.
    pub(super) fn lookup_assign(&self, name: &str) -> NameRes {
        let s = self.scopes.last().expect("a scope");
        if s.globals.contains(name) {
            return self.module_lookup(name);
        }
        if s.nonlocals.contains(name) {
            return self.lookup(name);
        }
        match s.names.get(name) {
            Some(r) => r.clone(),
            // A new name of a class body or of the module (a `for`, `with` or `except` target
            // that is not a symbol): never an enclosing scope's.
            None if matches!(s.kind, ScopeKind::Class(_) | ScopeKind::Module) => {
                NameRes::Unbound(name.to_string())
            }
            None => self.lookup(name),
        }
    }

    pub(super) fn walk_call(&mut self, n: Node) {
        let f = n.child_by_field_name("function");
        if let Some(f) = f {
            match f.kind() {
                "identifier" => self.name_ref(f, Use::Call),
                "attribute" => {
                    self.member_ref(f, Use::Call);
                }
                _ => self.walk(f),
            }
        }
        if let Some(args) = n.child_by_field_name("arguments") {
            if args.kind() == "generator_expression" {
                self.walk(args);
                return;
            }
            for a in kids(args) {
                match a.kind() {
                    "identifier" => self.name_ref(a, Use::Argument),
                    "attribute" => {
                        self.member_ref(a, Use::Argument);
                    }
                    _ => self.walk(a),
                }
            }
        }
    }
}
