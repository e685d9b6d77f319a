//! The walk over every statement and expression, recording references (functions and classes in
//! [`super::definitions`], assignments in [`super::assign`]).

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

/// Nodes that bind and name nothing but, for strings, the expressions of f-strings.
const LEAVES: &[&str] = &[
    "comment",
    "string",
    "integer",
    "float",
    "true",
    "false",
    "none",
    "ellipsis",
    "pass_statement",
    "break_statement",
    "continue_statement",
    "future_import_statement",
    "concatenated_string",
];

impl Extractor<'_> {
    pub(super) fn walk_block(&mut self, n: Node) {
        let stmts = kids(n);
        let mut pushed = 0;
        for (i, k) in stmts.iter().enumerate() {
            self.walk(*k);
            // `if not isinstance(x, C): return` (or `raise`, `continue`, `break`): `x` is a
            // `C` in the rest of the block, unless the rest assigns it.
            if let Some((name, ty)) = self.exit_unless_isinstance(*k) {
                let mut bound = Vec::new();
                for rest in &stmts[i + 1..] {
                    self.collect_bound(*rest, &mut bound);
                }
                if !bound.contains(&name) {
                    let l = self.new_local();
                    self.file.locals[l].ty = Some(ty);
                    self.narrowings.push((name, l, self.scopes.len()));
                    pushed += 1;
                }
            }
        }
        for _ in 0..pushed {
            self.narrowings.pop();
        }
    }

    pub(super) fn walk(&mut self, n: Node) {
        self.bounded((), |x| x.walk_inner(n))
    }

    pub(super) fn walk_inner(&mut self, n: Node) {
        match n.kind_name() {
            k if LEAVES.contains(&k) => {
                // f-strings hold expressions.
                if matches!(n.kind_name(), "string" | "concatenated_string") {
                    self.walk_interpolations(n);
                }
            }
            "import_statement" | "import_from_statement" => self.walk_import(n),
            "decorated_definition" => {
                let def = n.field("definition");
                let decl = def.and_then(|d| self.decl_of(d));
                let name = def
                    .and_then(|d| d.field("name"))
                    .map(|nm| self.t(nm).to_string());
                for k in kids(n) {
                    if k.kind_name() == "decorator"
                        && let Some(e) = k.named_child(0)
                        && !self.own_accessor(e, name.as_deref())
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
                let global = n.kind_name() == "global_statement";
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
                if let Some(r) = n.field("right") {
                    self.walk(r);
                }
                if let Some(l) = n.field("left") {
                    let value = n
                        .field("right")
                        .map(|r| Expr::Elem(Box::new(self.expr_of(r))));
                    self.assign_targets(l, value, None);
                }
                for k in kids(n) {
                    if Some(k) != n.field("left") && Some(k) != n.field("right") {
                        self.walk(k);
                    }
                }
            }
            "with_item" => {
                if let Some(v) = n.field("value") {
                    if v.kind_name() == "as_pattern" {
                        for k in kids(v) {
                            if k.kind_name() != "as_pattern_target" {
                                self.walk(k);
                            }
                        }
                        // `with C() as v`: `v` is what `C().__enter__()` returns (SPEC 12.4).
                        let entered = kids(v)
                            .into_iter()
                            .find(|k| k.kind_name() != "as_pattern_target")
                            .map(|e| {
                                let member =
                                    Expr::Member(Box::new(self.expr_of(e)), "__enter__".into());
                                Expr::Call(Box::new(member))
                            });
                        if let Some(a) = v.field("alias") {
                            self.assign_targets(a, entered, None);
                        }
                    } else {
                        self.walk(v);
                    }
                }
            }
            "except_clause" => {
                for k in kids(n) {
                    match k.kind_name() {
                        "as_pattern" => {
                            for c in kids(k) {
                                if c.kind_name() != "as_pattern_target" {
                                    self.walk(c);
                                }
                            }
                            if let Some(a) = k.field("alias") {
                                self.assign_targets(a, None, None);
                            }
                        }
                        _ => self.walk(k),
                    }
                }
            }
            "named_expression" => {
                if let Some(v) = n.field("value") {
                    self.walk(v);
                }
                if let Some(nm) = n.field("name") {
                    let value = n.field("value").map(|v| self.expr_of(v));
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
                if let Some(v) = n.field("value") {
                    // `key=f` in a call passes f by name, as a positional argument would.
                    let in_call = n.parent().is_some_and(|p| p.kind_name() == "argument_list");
                    match v.kind_name() {
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
                let op = n.field("operator").map(|o| self.t(o));
                let left = n.field("left");
                let known = left.and_then(|l| self.static_condition(l));
                if let Some(l) = left {
                    self.walk(l);
                }
                let dead = matches!(
                    (op, known),
                    (Some("and"), Some(false)) | (Some("or"), Some(true))
                );
                if !dead && let Some(r) = n.field("right") {
                    self.walk(r);
                }
            }
            "delete_statement" => self.walk_block(n),
            _ => self.walk_block(n),
        }
    }

    pub(super) fn walk_interpolations(&mut self, n: Node) {
        for k in kids(n) {
            match k.kind_name() {
                "interpolation" => {
                    for e in kids(k) {
                        if !matches!(e.kind_name(), "format_specifier" | "type_conversion") {
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

    /// `@p.setter`, `@p.getter` or `@p.deleter` on a `def p`: a part of the property `p` being
    /// declared (SPEC 12.2), not a use of it.
    fn own_accessor(&self, e: Node, name: Option<&str>) -> bool {
        e.kind_name() == "attribute"
            && e.field("object")
                .is_some_and(|o| o.kind_name() == "identifier" && Some(self.t(o)) == name)
            && e.field("attribute")
                .is_some_and(|a| matches!(self.t(a), "setter" | "getter" | "deleter"))
    }

    pub(super) fn walk_decorator(&mut self, e: Node) {
        match e.kind_name() {
            "identifier" => self.name_ref(e, Use::Decorator),
            "attribute" => {
                self.member_ref(e, Use::Decorator);
            }
            "call" => self.walk_call(e),
            _ => self.walk(e),
        }
    }

    pub(super) fn walk_type(&mut self, n: Node) {
        match n.kind_name() {
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

    pub(super) fn walk_call(&mut self, n: Node) {
        let f = n.field("function");
        if let Some(f) = f {
            match f.kind_name() {
                "identifier" => self.name_ref(f, Use::Call),
                "attribute" => {
                    self.member_ref(f, Use::Call);
                }
                _ => self.walk(f),
            }
        }
        if let Some(args) = n.field("arguments") {
            if args.kind_name() == "generator_expression" {
                self.walk(args);
                return;
            }
            for a in kids(args) {
                match a.kind_name() {
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
