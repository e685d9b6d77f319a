//! Scopes, hoisting, binding patterns and the recording of name and member references.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    pub(super) fn push_ref(&mut self, at: Node, usage: Use, target: RefTarget) {
        self.file.refs.push(Ref::at(at, self.owner, usage, target));
    }

    pub(super) fn walk_children(&mut self, n: Node) {
        for k in kids(n) {
            self.walk(k);
        }
    }

    /// Declares the hoisted names of a function body or block: function, class, enum,
    /// interface and type declarations and `let`/`const` directly in it, and, for a function
    /// body, every `var` not inside a nested function.
    pub(super) fn hoist(&mut self, body: Node, function_body: bool) {
        for s in kids(body) {
            let s = if s.kind_name() == "export_statement" {
                match s.field("declaration") {
                    Some(d) => d,
                    None => continue,
                }
            } else {
                s
            };
            match s.kind_name() {
                "function_declaration"
                | "generator_function_declaration"
                | "class_declaration"
                | "abstract_class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "type_alias_declaration" => {
                    if let Some(n) = s.field("name") {
                        let name = self.t(n).to_string();
                        if self
                            .scopes
                            .last()
                            .is_some_and(|sc| sc.names.contains_key(&name))
                        {
                            continue;
                        }
                        let l = self.new_local(None, None);
                        self.bind(&name, NameRes::Local(l));
                    }
                }
                "lexical_declaration" => self.declare_locals(s),
                "variable_declaration" => self.declare_locals(s),
                _ => {}
            }
            if function_body {
                self.hoist_vars(s);
            }
        }
    }

    pub(super) fn hoist_vars(&mut self, n: Node) {
        match n.kind_name() {
            "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "class_declaration"
            | "class" => {}
            "variable_declaration" => self.declare_locals(n),
            _ => {
                for k in kids(n) {
                    if matches!(
                        k.kind_name(),
                        "statement_block"
                            | "if_statement"
                            | "else_clause"
                            | "for_statement"
                            | "for_in_statement"
                            | "while_statement"
                            | "do_statement"
                            | "try_statement"
                            | "catch_clause"
                            | "finally_clause"
                            | "switch_statement"
                            | "switch_body"
                            | "switch_case"
                            | "switch_default"
                            | "labeled_statement"
                            | "variable_declaration"
                    ) {
                        self.hoist_vars(k);
                    }
                }
            }
        }
    }

    pub(super) fn declare_locals(&mut self, decl: Node) {
        for vd in kids(decl)
            .into_iter()
            .filter(|d| d.kind_name() == "variable_declarator")
        {
            if let Some(name) = vd.field("name") {
                let mut names = Vec::new();
                pattern_names(name, self.src, &mut names);
                for (nm, _) in names {
                    if self
                        .scopes
                        .last()
                        .and_then(|s| s.names.get(&nm))
                        .is_some_and(|v| v.iter().any(|r| matches!(r, NameRes::Local(_))))
                    {
                        continue;
                    }
                    let l = self.new_local(None, None);
                    self.bind(&nm, NameRes::Local(l));
                }
            }
        }
    }

    pub(super) fn new_local(&mut self, ty: Option<TypeRef>, value: Option<Expr>) -> usize {
        self.file.locals.push(Local {
            ty,
            value,
            name: String::new(),
            default: None,
        });
        self.file.locals.len() - 1
    }

    /// Binds the names of a parameter or binding pattern as fresh locals in the innermost
    /// scope, typed by `ty` or valued by `value`.
    pub(super) fn bind_pattern(&mut self, p: Node, ty: Option<TypeRef>, value: Option<Expr>) {
        let src = match ty {
            Some(t) => Some(Expr::Typed(t)),
            None => value,
        };
        self.pattern(p, src, true);
    }

    /// Binds (`create`) or assigns the names of a binding pattern whose value is `src`. Every
    /// property key read from a known source is a reference to that member; default values and
    /// computed keys are walked.
    pub(super) fn pattern(&mut self, p: Node, src: Option<Expr>, create: bool) {
        let member = |src: &Option<Expr>, name: &str| {
            src.as_ref()
                .map(|s| Expr::Member(Box::new(s.clone()), name.to_string()))
        };
        match p.kind_name() {
            "identifier" => self.set_name(p, src, create),
            "object_pattern" => {
                for k in kids(p) {
                    match k.kind_name() {
                        "shorthand_property_identifier_pattern" => {
                            let name = self.t(k).to_string();
                            let v = member(&src, &name);
                            if let Some(s) = &src {
                                self.push_ref(k, Use::Value, RefTarget::Member(s.clone(), name));
                            }
                            self.set_name(k, v, create);
                        }
                        "pair_pattern" => {
                            let key = k.field("key");
                            let mut v = None;
                            if let Some(key) = key {
                                match key.kind_name() {
                                    "property_identifier" | "string" => {
                                        let name = self.spec_name(key);
                                        v = member(&src, &name);
                                        if let Some(s) = &src
                                            && key.kind_name() == "property_identifier"
                                        {
                                            self.push_ref(
                                                key,
                                                Use::Value,
                                                RefTarget::Member(s.clone(), name),
                                            );
                                        }
                                    }
                                    _ => self.walk(key),
                                }
                            }
                            if let Some(val) = k.field("value") {
                                self.pattern(val, v, create);
                            }
                        }
                        "object_assignment_pattern" => {
                            if let Some(r) = k.field("right") {
                                self.walk(r);
                            }
                            if let Some(l) = k.field("left") {
                                if l.kind_name() == "shorthand_property_identifier_pattern" {
                                    let name = self.t(l).to_string();
                                    let v = member(&src, &name);
                                    if let Some(s) = &src {
                                        self.push_ref(
                                            l,
                                            Use::Value,
                                            RefTarget::Member(s.clone(), name),
                                        );
                                    }
                                    self.set_name(l, v, create);
                                } else {
                                    self.pattern(l, None, create);
                                }
                            }
                        }
                        "rest_pattern" => {
                            if let Some(x) = k.named_child(0) {
                                self.pattern(x, None, create);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "array_pattern" => {
                for (i, k) in kids(p).into_iter().enumerate() {
                    match k.kind_name() {
                        "rest_pattern" => {
                            if let Some(x) = k.named_child(0) {
                                self.pattern(x, None, create);
                            }
                        }
                        _ => {
                            let elem = src.as_ref().map(|s| Expr::Nth(Box::new(s.clone()), i));
                            self.pattern(k, elem, create)
                        }
                    }
                }
            }
            "assignment_pattern" => {
                if let Some(r) = p.field("right") {
                    self.walk(r);
                }
                if let Some(l) = p.field("left") {
                    self.pattern(l, src, create);
                }
            }
            "rest_pattern" => {
                if let Some(x) = p.named_child(0) {
                    self.pattern(x, None, create);
                }
            }
            _ => {}
        }
    }

    pub(super) fn set_name(&mut self, id: Node, value: Option<Expr>, create: bool) {
        let name = self.t(id).to_string();
        if create {
            let l = self.new_local(None, value);
            self.bind(&name, NameRes::Local(l));
            return;
        }
        match self.lookup(&name, false) {
            NameRes::Local(l)
                if self.file.locals[l].ty.is_none() && self.file.locals[l].value.is_none() =>
            {
                self.file.locals[l].value = value;
            }
            NameRes::Decl(d) => {
                let dd = &mut self.file.decls[d];
                if dd.ty.is_none() && dd.value.is_none() {
                    dd.value = value;
                }
            }
            _ => {}
        }
    }

    pub(super) fn bind_type_params(&mut self, n: Node) -> Vec<usize> {
        let mut out = Vec::new();
        if let Some(tp) = n.field("type_parameters") {
            let mut c = tp.walk();
            let ps: Vec<Node> = tp.named_children(&mut c).collect();
            for p in &ps {
                if let Some(name) = p.field("name") {
                    let l = self.new_local(None, None);
                    let nm = self.t(name).to_string();
                    self.bind(&nm, NameRes::Local(l));
                    out.push(l);
                }
            }
            // A type parameter's members are its constraint's (`T extends Base`): the
            // constraints are read once every parameter of the list is in scope.
            for p in &ps {
                if let (Some(name), Some(con)) = (p.field("name"), p.field("constraint"))
                    && let Some(t) = con.named_child(0)
                    && let NameRes::Local(l) = self.lookup(self.t(name), true)
                {
                    self.file.locals[l].ty = Some(self.type_ref(t));
                }
            }
            for p in &ps {
                if let (Some(name), Some(def)) = (p.field("name"), p.field("value"))
                    && let Some(t) = def.named_child(0)
                    && let NameRes::Local(l) = self.lookup(self.t(name), true)
                {
                    self.file.locals[l].default = Some(self.type_ref(t));
                }
            }
            for p in ps {
                for k in kids(p) {
                    if k.kind_name() != "type_identifier" || p.field("name") != Some(k) {
                        self.walk(k);
                    }
                }
            }
        }
        out
    }

    pub(super) fn name_ref(&mut self, n: Node, usage: Use) {
        let name = self.t(n);
        if name == "undefined" {
            return;
        }
        let res = self.lookup(name, false);
        self.note_narrowing(n, name, &res);
        if let NameRes::Local(_) = res {
            return;
        }
        self.push_ref(n, usage, RefTarget::Name(res, name.to_string()));
    }

    pub(super) fn type_name_ref(&mut self, n: Node) {
        let name = self.t(n);
        let res = self.lookup(name, true);
        if let NameRes::Local(_) = res {
            return;
        }
        self.push_ref(n, Use::Type, RefTarget::Name(res, name.to_string()));
    }

    /// `a.b.c`: refs for the operand and the member; returns the member's expression.
    pub(super) fn member_ref(&mut self, n: Node, usage: Use) -> Expr {
        self.bounded(Expr::Unknown, |x| x.member_ref_inner(n, usage))
    }

    pub(super) fn member_ref_inner(&mut self, n: Node, usage: Use) -> Expr {
        let obj = n.field("object");
        let prop = n.field("property");
        let base = match obj {
            Some(o) => {
                let o2 = unwrap_parens(o);
                match o2.kind_name() {
                    "member_expression" => self.member_ref(o2, Use::Value),
                    "identifier" => {
                        // A qualifier: the declaration of that name which holds the member
                        // (a function merged with a namespace names the namespace).
                        let name = self.t(o2);
                        let res = self.lookup(name, false);
                        self.note_narrowing(o2, name, &res);
                        if !matches!(res, NameRes::Local(_)) && name != "undefined" {
                            let member = prop.map(|p| self.t(p).to_string()).unwrap_or_default();
                            self.push_ref(o2, Use::Value, RefTarget::Qualifier(res, member));
                        }
                        self.expr_of(o2)
                    }
                    _ => {
                        if o2.kind_name() == "this" {
                            let this = NameRes::Unbound("this".into());
                            self.note_narrowing(o2, "this", &this);
                        }
                        self.walk(o);
                        self.expr_of(o)
                    }
                }
            }
            None => Expr::Unknown,
        };
        let Some(p) = prop else {
            return Expr::Unknown;
        };
        let name = self.t(p).to_string();
        if matches!(
            p.kind_name(),
            "property_identifier" | "private_property_identifier"
        ) {
            self.push_ref(p, usage, RefTarget::Member(base.clone(), name.clone()));
        }
        // A long chain keeps a bounded description: its deep end is unknown.
        if expr_depth(&base) >= MAX_EXPR {
            return Expr::Unknown;
        }
        Expr::Member(Box::new(base), name)
    }
}
