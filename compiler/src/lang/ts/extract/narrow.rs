//! Narrowing in TypeScript's flow analysis, as far as the front end follows it: `instanceof`,
//! discriminant comparisons (`if`, `switch`, early exits, `||` chains), `in`, and type guards.
//! Each narrows by binding the name anew, in the scope of the branch or of the rest of the
//! block, to a local whose value says how; what cannot be told binds a narrowable local.

use super::walk::is_function;
use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    /// Whether `n` assigns `name` anywhere below it. A function's assigned names are gathered
    /// once: each narrowing statement asked again, walking its whole enclosing function (the
    /// whole file at module level).
    fn assigns(&self, n: Node, name: &str) -> bool {
        self.assigned
            .borrow_mut()
            .entry(n.id())
            .or_insert_with(|| super::walk::assigned_names(n, self.src))
            .contains(name)
    }

    /// `if (x instanceof C) …`: in the branch, a local or parameter `x` that the branch does not
    /// assign is a `C` (SPEC 11.4); the condition and the `else` are walked as they are.
    ///
    /// `if (x.k === "a") …` (a discriminant test, [`Self::discriminant_test`]) narrows `x` in the
    /// branch to the member types of its union whose `k` may be `"a"`, in the `else` to the
    /// others, and after the statement to the others when the branch always jumps out (a
    /// `return`, `throw`, `break` or `continue` ends it) and there is no `else`. When the flows
    /// after the statement cannot be told, `x` is narrowable there (unions stay candidates).
    pub(super) fn walk_if(&mut self, n: Node) {
        let cond = n.field("condition");
        let disc = cond
            .and_then(|c| self.discriminant_test(c))
            .filter(|(x, ..)| !self.assigns(enclosing_function(n), x));
        // `"k" in x`: only the branch is narrowed (to the member types that declare `k`).
        let has = cond
            .filter(|_| disc.is_none())
            .and_then(|c| self.in_test(c))
            .filter(|(x, _)| !self.assigns(enclosing_function(n), x));
        // `guard(x)`: the branch is narrowed when `guard` is a type guard of that argument.
        let guard = cond
            .filter(|_| disc.is_none() && has.is_none())
            .and_then(|c| self.guard_test(c))
            .filter(|(x, ..)| !self.assigns(enclosing_function(n), x));
        if let Some((x, callee, arg)) = guard {
            if let Some(c) = cond {
                let saved = self.quiet.replace(x.clone());
                self.walk(c);
                self.quiet = saved;
            }
            let cons = n.field("consequence");
            let alt = n.field("alternative");
            if let Some(body) = cons {
                self.scopes.push(Scope::default());
                let base = Expr::Name(self.lookup(&x, false));
                let value = Expr::Guarded {
                    base: Box::new(base),
                    callee: Box::new(callee),
                    arg,
                };
                let l = self.new_local(None, Some(value));
                self.rebind(&x, l);
                self.walk(body);
                self.scopes.pop();
            }
            if let Some(alt) = alt {
                self.scopes.push(Scope::default());
                self.bind_narrowable(&x);
                self.walk(alt);
                self.scopes.pop();
            }
            let jumps = |s: Option<Node>| s.is_some_and(|s| has_jump(s, true));
            if jumps(cons) || jumps(alt) {
                self.bind_narrowable(&x);
            }
            return;
        }
        if let Some(c) = cond {
            let saved = self.quiet.take();
            match (&disc, &has) {
                (Some((x, k, ..)), _) => {
                    self.quiet = Some(x.clone());
                    self.walk_test(c, x, k, &mut Vec::new());
                }
                (None, Some((x, _))) => {
                    self.quiet = Some(x.clone());
                    self.walk(c);
                }
                (None, None) => self.walk(c),
            }
            self.quiet = saved;
        }
        if let Some((x, key)) = &has {
            let cons = n.field("consequence");
            let alt = n.field("alternative");
            if let Some(body) = cons {
                self.scopes.push(Scope::default());
                let base = Expr::Name(self.lookup(x, false));
                let l = self.new_local(None, Some(Expr::HasProp(Box::new(base), key.clone())));
                self.rebind(x, l);
                self.walk(body);
                self.scopes.pop();
            }
            if let Some(alt) = alt {
                self.scopes.push(Scope::default());
                self.bind_narrowable(x);
                self.walk(alt);
                self.scopes.pop();
            }
            let jumps = |s: Option<Node>| s.is_some_and(|s| has_jump(s, true));
            if jumps(cons) || jumps(alt) {
                self.bind_narrowable(x);
            }
            return;
        }
        let narrowed = cond.and_then(|c| self.instanceof_test(c));
        let cons = n.field("consequence");
        let alt = n.field("alternative");
        if let Some(body) = cons {
            match (narrowed, &disc) {
                (Some((name, ty)), _) if !self.assigns(body, &name) => {
                    self.scopes.push(Scope::default());
                    let l = self.new_local(Some(ty), None);
                    self.bind(&name, NameRes::Local(l));
                    self.walk(body);
                    self.scopes.pop();
                }
                (_, Some((x, k, lits, eq))) => {
                    self.scopes.push(Scope::default());
                    self.bind_narrowed(x, k, lits, *eq);
                    self.walk(body);
                    self.scopes.pop();
                }
                _ => self.walk(body),
            }
        }
        if let Some(alt) = alt {
            match &disc {
                Some((x, k, lits, eq)) => {
                    self.scopes.push(Scope::default());
                    self.bind_narrowed(x, k, lits, !eq);
                    self.walk(alt);
                    self.scopes.pop();
                }
                None => self.walk(alt),
            }
        }
        if let Some((x, k, lits, eq)) = &disc {
            let jumps = |s: Option<Node>| s.is_some_and(|s| has_jump(s, true));
            if !jumps(cons) && !jumps(alt) {
                // Both flows meet again: the declared type.
            } else if alt.is_none()
                && cons.is_some_and(ends_in_jump)
                && n.parent()
                    .is_some_and(|p| p.kind_name() == "statement_block")
            {
                self.bind_narrowed(x, k, lits, !eq);
            } else {
                self.bind_narrowable(x);
            }
        }
    }

    /// `switch (x.k) { case "a": … }`: in each clause, `x` is narrowed to the member types whose
    /// `k` may be one of the clause's literals (and those of the empty clauses falling into
    /// it); in `default`, to the others. A clause reached by falling through a non-empty one,
    /// and `x` after a switch that a clause leaves by `return`, `throw` or `continue`, are
    /// narrowable instead.
    pub(super) fn walk_switch(&mut self, n: Node) {
        let value = n.field("value");
        let disc = value
            .and_then(|v| self.discriminant_of(v))
            .filter(|(x, _)| !self.assigns(enclosing_function(n), x));
        if let Some(v) = value {
            let saved = self.quiet.take();
            self.quiet = disc.as_ref().map(|(x, _)| x.clone());
            self.walk(v);
            self.quiet = saved;
        }
        let Some(body) = n.field("body") else {
            return;
        };
        let Some((x, k)) = disc else {
            self.walk(body);
            return;
        };
        let cases: Vec<Node> = kids(body)
            .into_iter()
            .filter(|c| matches!(c.kind_name(), "switch_case" | "switch_default"))
            .collect();
        let literal = |c: Node| {
            c.field("value")
                .filter(|v| v.kind_name() == "string")
                .map(|v| string_value(v, self.src))
        };
        let all: Option<Vec<String>> = cases
            .iter()
            .filter(|c| c.kind_name() == "switch_case")
            .map(|c| literal(*c))
            .collect();
        // One scope for every case: `let`/`const` in a case is the switch's.
        self.scopes.push(Scope::default());
        for case in &cases {
            self.hoist(*case, false);
        }
        // The literals of the empty clauses falling into the next one; `None` after a
        // non-empty clause that does not end in a jump.
        let mut falling: Option<Vec<String>> = Some(Vec::new());
        let mut leaves = false;
        for case in cases {
            let here: Option<(Vec<String>, bool)> = match (case.kind_name(), &falling) {
                ("switch_case", Some(prev)) => literal(case).map(|l| {
                    let mut v = prev.clone();
                    v.push(l);
                    (v, true)
                }),
                ("switch_default", Some(prev)) if prev.is_empty() => {
                    all.clone().map(|v| (v, false))
                }
                _ => None,
            };
            if let Some(v) = case.field("value") {
                self.walk(v);
            }
            let mut c = case.walk();
            let stmts: Vec<Node> = case
                .children_by_field_name("body", &mut c)
                .filter(|s| s.kind_name() != "comment")
                .collect();
            self.scopes.push(Scope::default());
            match &here {
                Some((lits, keep)) => self.bind_narrowed(&x, &k, lits, *keep),
                None => self.bind_narrowable(&x),
            }
            for s in &stmts {
                self.walk(*s);
            }
            self.scopes.pop();
            leaves |= stmts.iter().any(|s| has_jump(*s, false));
            falling = match (stmts.last(), here) {
                (None, Some((lits, true))) => Some(lits),
                (Some(last), _) if ends_in_jump(*last) => Some(Vec::new()),
                _ => None,
            };
        }
        self.scopes.pop();
        if leaves {
            self.bind_narrowable(&x);
        }
    }

    /// Walks a discriminant test of `x.k`: each operand of an `||` sees `x` narrowed by the
    /// operands before it (`x.k === "a" || x.k === "b"`: `x.k` in the second is not `"a"`).
    fn walk_test(&mut self, c: Node, x: &str, k: &str, before: &mut Vec<String>) {
        let c = unwrap_parens(c);
        if c.kind_name() == "binary_expression"
            && c.field("operator").is_some_and(|o| o.kind_name() == "||")
            && let (Some(l), Some(r)) = (c.field("left"), c.field("right"))
        {
            self.walk_test(l, x, k, before);
            self.walk_test(r, x, k, before);
            return;
        }
        if before.is_empty() {
            self.walk(c);
        } else {
            self.scopes.push(Scope::default());
            self.bind_narrowed(x, k, before, false);
            self.walk(c);
            self.scopes.pop();
        }
        if let Some((_, _, lits, _)) = self.discriminant_test(c) {
            before.extend(lits);
        }
    }

    /// Binds `name` anew, in the innermost scope, to its current value narrowed by a
    /// discriminant comparison.
    fn bind_narrowed(&mut self, name: &str, key: &str, lits: &[String], keep: bool) {
        let base = Expr::Name(self.lookup(name, false));
        let value = Expr::Narrow {
            base: Box::new(base),
            key: key.to_string(),
            lits: lits.to_vec(),
            keep,
        };
        let l = self.new_local(None, Some(value));
        self.rebind(name, l);
    }

    /// Binds `name` to local `l` in the innermost scope, ahead of its other bindings there.
    fn rebind(&mut self, name: &str, l: usize) {
        self.file.locals[l].name = name.to_string();
        if let Some(s) = self.scopes.last_mut() {
            s.names
                .entry(name.to_string())
                .or_default()
                .insert(0, NameRes::Local(l));
        }
    }

    /// Binds `name` anew, in the innermost scope, to its current value, as narrowable there.
    fn bind_narrowable(&mut self, name: &str) {
        let base = Expr::Name(self.lookup(name, false));
        let l = self.new_local(None, Some(base));
        self.file.narrowed_locals.insert(l);
        self.rebind(name, l);
    }

    /// A discriminant test of a local: `x.k === "a"` (or `==`, the literal first), `x.k !== "a"`
    /// (or `!=`), or an `||` of equalities of the same `x.k`: the local's name, `k`, the
    /// literals, and whether the test holds when `x.k` equals one of them.
    fn discriminant_test(&self, c: Node) -> Option<(String, String, Vec<String>, bool)> {
        match c.kind_name() {
            "parenthesized_expression" => self.discriminant_test(c.named_child(0)?),
            "binary_expression" => {
                let (op, l, r) = binary(c)?;
                match op.kind_name() {
                    "||" => {
                        let (a, ak, mut al, ae) = self.discriminant_test(l)?;
                        let (b, bk, bl, be) = self.discriminant_test(r)?;
                        (a == b && ak == bk && ae && be).then(|| {
                            al.extend(bl);
                            (a, ak, al, true)
                        })
                    }
                    "===" | "==" | "!==" | "!=" => {
                        let eq = matches!(op.kind_name(), "===" | "==");
                        let (m, s) = if l.kind_name() == "string" {
                            (r, l)
                        } else {
                            (l, r)
                        };
                        if s.kind_name() != "string" {
                            return None;
                        }
                        let (x, k) = self.discriminant_of(m)?;
                        Some((x, k, vec![string_value(s, self.src)], eq))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `f(…, x, …)` (parenthesized too) with `x` a local or parameter: `x`'s name, the
    /// callee, and `x`'s position among the arguments.
    fn guard_test(&self, c: Node) -> Option<(String, Expr, usize)> {
        let c = unwrap_parens(c);
        if c.kind_name() != "call_expression" {
            return None;
        }
        let f = c.field("function")?;
        if !matches!(f.kind_name(), "identifier" | "member_expression") {
            return None;
        }
        let args = c.field("arguments")?;
        let mut cur = args.walk();
        let (i, a) = args
            .named_children(&mut cur)
            .filter(|a| a.kind_name() != "comment")
            .enumerate()
            .find(|(_, a)| a.kind_name() == "identifier")?;
        let name = self.t(a).to_string();
        matches!(self.lookup(&name, false), NameRes::Local(_)).then(|| (name, self.expr_of(f), i))
    }

    /// `"k" in x` (parenthesized too) with `x` a local or parameter: `x`'s name and `k`.
    fn in_test(&self, c: Node) -> Option<(String, String)> {
        let c = unwrap_parens(c);
        if c.kind_name() != "binary_expression" {
            return None;
        }
        let (op, l, r) = binary(c)?;
        if op.kind_name() != "in" || l.kind_name() != "string" || r.kind_name() != "identifier" {
            return None;
        }
        let name = self.t(r).to_string();
        matches!(self.lookup(&name, false), NameRes::Local(_))
            .then(|| (name, string_value(l, self.src)))
    }

    /// `x.k` (also parenthesized, `x?.k`) with `x` a local or parameter: `x`'s name and `k`.
    fn discriminant_of(&self, m: Node) -> Option<(String, String)> {
        let m = unwrap_parens(m);
        if m.kind_name() != "member_expression" {
            return None;
        }
        let o = m.field("object")?;
        let p = m.field("property")?;
        if o.kind_name() != "identifier" || p.kind_name() != "property_identifier" {
            return None;
        }
        let name = self.t(o).to_string();
        matches!(self.lookup(&name, false), NameRes::Local(_))
            .then(|| (name, self.t(p).to_string()))
    }

    /// `x instanceof C` (parenthesized, or the first operand of `&&`): the local `x` and the
    /// type `C`.
    fn instanceof_test(&self, c: Node) -> Option<(String, TypeRef)> {
        match c.kind_name() {
            "parenthesized_expression" => self.instanceof_test(c.named_child(0)?),
            "binary_expression" => {
                let (op, l, r) = binary(c)?;
                match op.kind_name() {
                    "&&" => self.instanceof_test(l).or_else(|| self.instanceof_test(r)),
                    "instanceof" if l.kind_name() == "identifier" => {
                        let name = self.t(l).to_string();
                        if !matches!(self.lookup(&name, false), NameRes::Local(_)) {
                            return None;
                        }
                        let ty = match r.kind_name() {
                            "identifier" => TypeRef::Named {
                                head: self.lookup(self.t(r), false),
                                path: Vec::new(),
                                args: Vec::new(),
                            },
                            _ => return None,
                        };
                        Some((name, ty))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The operator, left and right operands of a binary expression.
fn binary(c: Node) -> Option<(Node, Node, Node)> {
    Some((c.field("operator")?, c.field("left")?, c.field("right")?))
}

/// The function (or the program) `n` is written in.
fn enclosing_function(n: Node) -> Node {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if is_function(p.kind_name()) {
            return p;
        }
        cur = p;
    }
    cur
}

/// Whether statement `s` always ends in a jump: `return`, `throw`, `break`, `continue`, or a
/// block whose last statement does.
fn ends_in_jump(s: Node) -> bool {
    match s.kind_name() {
        "return_statement" | "throw_statement" | "break_statement" | "continue_statement" => true,
        "statement_block" => kids(s)
            .into_iter()
            .rfind(|k| k.kind_name() != "comment")
            .is_some_and(ends_in_jump),
        _ => false,
    }
}

/// Whether `s` holds a jump outside the functions written in it: `return`, `throw`,
/// `continue`, a labelled `break`, and, with `breaks`, any `break`.
fn has_jump(s: Node, breaks: bool) -> bool {
    let mut stack = vec![s];
    while let Some(x) = stack.pop() {
        match x.kind_name() {
            "return_statement" | "throw_statement" | "continue_statement" => return true,
            "break_statement" if breaks || x.named_child(0).is_some() => return true,
            k if is_function(k) || matches!(k, "class_declaration" | "class") => {}
            _ => stack.extend(kids(x)),
        }
    }
    false
}
