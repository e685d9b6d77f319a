//! Python's scopes (names bound in a function body, LEGB lookup) and the recording of name and member references.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    pub(super) fn new_local(&mut self) -> usize {
        self.file.locals.push(Local::default());
        self.file.locals.len() - 1
    }

    /// The names a function body binds: assignment, `for`, `with`, `except` and walrus
    /// targets, imports, nested `def` and `class` names, `del`; not inside nested functions,
    /// classes, lambdas or comprehensions (walrus targets there bind here).
    pub(super) fn collect_bound(&self, n: Node, out: &mut Vec<String>) {
        // One walk with one cursor; a node's arm says whether its children are walked. Nodes
        // deeper than the bound below `n` are not read.
        crate::lang::walk_named_below(n, |k, depth| {
            if depth > MAX_DEPTH + 1 {
                return false;
            }
            match k.kind_name() {
                "function_definition" | "class_definition" => {
                    if let Some(nm) = k.field("name") {
                        out.push(self.t(nm).to_string());
                    }
                    false
                }
                "decorated_definition" => {
                    if let Some(d) = k.field("definition")
                        && let Some(nm) = d.field("name")
                    {
                        out.push(self.t(nm).to_string());
                    }
                    false
                }
                "lambda" => false,
                "assignment" | "augmented_assignment" => {
                    if let Some(l) = k.field("left") {
                        target_names(l, self.src, out);
                    }
                    // A chained assignment (`a = b = c`) is walked for its inner one.
                    k.field("right").is_some_and(|r| {
                        self.collect_bound_expr(r, out);
                        r.kind_name() == "assignment"
                    })
                }
                "for_statement" | "for_in_clause" => {
                    if k.kind_name() == "for_statement"
                        && let Some(l) = k.field("left")
                    {
                        target_names(l, self.src, out);
                    }
                    true
                }
                "with_item" | "as_pattern" => {
                    if let Some(a) = k.field("alias") {
                        target_names(a, self.src, out);
                    }
                    true
                }
                "except_clause" => {
                    if let Some(a) = k.field("alias") {
                        target_names(a, self.src, out);
                    }
                    for c in kids(k) {
                        if c.kind_name() == "as_pattern"
                            && let Some(a) = c.field("alias")
                        {
                            target_names(a, self.src, out);
                        }
                    }
                    true
                }
                "named_expression" => {
                    if let Some(nm) = k.field("name") {
                        out.push(self.t(nm).to_string());
                    }
                    true
                }
                "import_statement" | "import_from_statement" => {
                    for c in kids(k) {
                        match c.kind_name() {
                            "dotted_name" if Some(c) != k.field("module_name") => {
                                if let Some(f) = c.named_child(0) {
                                    out.push(
                                        self.t(if k.kind_name() == "import_statement" {
                                            f
                                        } else {
                                            c
                                        })
                                        .to_string(),
                                    );
                                }
                            }
                            "aliased_import" => {
                                if let Some(a) = c.field("alias") {
                                    out.push(self.t(a).to_string());
                                }
                            }
                            _ => {}
                        }
                    }
                    false
                }
                "delete_statement" => {
                    target_names_any(k, self.src, out);
                    false
                }
                "case_pattern" => {
                    case_captures(k, self.src, out);
                    false
                }
                "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression" => {
                    self.collect_bound_expr(k, out);
                    false
                }
                _ => true,
            }
        });
    }

    /// Walrus targets inside an expression (comprehensions included) bind in the function.
    pub(super) fn collect_bound_expr(&self, n: Node, out: &mut Vec<String>) {
        let mut visit = |k: Node| {
            if k.kind_name() == "named_expression"
                && let Some(nm) = k.field("name")
            {
                out.push(self.t(nm).to_string());
            }
            k.kind_name() != "lambda"
        };
        if visit(n) {
            crate::lang::walk_named_below(n, |k, depth| depth <= MAX_DEPTH && visit(k));
        }
    }

    pub(super) fn lookup(&self, name: &str) -> NameRes {
        let n = self.scopes.len();
        if let Some(&(_, l, _)) = self
            .narrowings
            .iter()
            .rev()
            .find(|(nm, _, depth)| nm == name && *depth == n)
        {
            return NameRes::Local(l);
        }
        let mut i = n;
        let mut skip_own_for_nonlocal = false;
        while i > 0 {
            i -= 1;
            let s = &self.scopes[i];
            if s.globals.contains(name) {
                return self.module_lookup(name);
            }
            if s.nonlocals.contains(name) && i == n - 1 {
                skip_own_for_nonlocal = true;
                continue;
            }
            if skip_own_for_nonlocal && i == n - 1 {
                continue;
            }
            match s.kind {
                ScopeKind::Module => return self.module_lookup(name),
                // A class body's names are visible only to the code directly in it.
                ScopeKind::Class(_) if i != n - 1 => continue,
                _ => {
                    if let Some(r) = s.names.get(name) {
                        return r.clone();
                    }
                }
            }
        }
        self.module_lookup(name)
    }

    pub(super) fn module_lookup(&self, name: &str) -> NameRes {
        self.scopes[0]
            .names
            .get(name)
            .cloned()
            .unwrap_or_else(|| NameRes::Unbound(name.to_string()))
    }

    pub(super) fn push_ref(&mut self, at: Node, usage: Use, target: RefTarget) {
        self.file.refs.push(Ref::at(at, self.owner, usage, target));
    }

    // ---------------------------------------------------------------- walk

    pub(super) fn name_ref(&mut self, n: Node, usage: Use) {
        let name = self.t(n);
        let res = self.lookup(name);
        if let NameRes::Local(_) = res {
            return;
        }
        self.push_ref(n, usage, RefTarget::Name(res, name.to_string()));
    }

    pub(super) fn member_ref(&mut self, n: Node, usage: Use) -> Expr {
        self.bounded(Expr::Unknown, |x| x.member_ref_inner(n, usage))
    }

    pub(super) fn member_ref_inner(&mut self, n: Node, usage: Use) -> Expr {
        let obj = n.field("object");
        let attr = n.field("attribute");
        let base = match obj {
            Some(o) => match o.kind_name() {
                "attribute" => self.member_ref(o, Use::Value),
                "identifier" => {
                    self.name_ref(o, Use::Value);
                    self.expr_of(o)
                }
                _ => {
                    self.walk(o);
                    self.expr_of(o)
                }
            },
            None => Expr::Unknown,
        };
        let Some(a) = attr else {
            return Expr::Unknown;
        };
        let name = self.t(a).to_string();
        self.push_ref(a, usage, RefTarget::Member(base.clone(), name.clone()));
        // A long chain keeps a bounded description: its deep end is unknown.
        if expr_depth(&base) >= MAX_EXPR {
            return Expr::Unknown;
        }
        Expr::Member(Box::new(base), name)
    }
}
