//! Statements whose branches are decided statically for the target (`sys.version_info`, `TYPE_CHECKING`) and `match` patterns.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    /// A dotted name read as a value (`Color.RED` of a `case`): its first part a name, each
    /// further part an attribute of what precedes it.
    fn dotted_value(&mut self, parts: &[Node]) {
        let Some(first) = parts.first() else { return };
        self.name_ref(*first, Use::Value);
        let mut base = self.expr_of(*first);
        for p in &parts[1..] {
            let name = self.t(*p).to_string();
            self.push_ref(
                *p,
                Use::Value,
                RefTarget::Member(base.clone(), name.clone()),
            );
            base = Expr::Member(Box::new(base), name);
        }
    }

    /// A `case` pattern: bare names capture (bind), dotted names and class patterns' classes
    /// are read, keyword names are attribute names.
    pub(super) fn walk_case_pattern(&mut self, n: Node) {
        match n.kind_name() {
            "dotted_name" => {
                let parts = kids(n);
                if parts.len() == 1 {
                    self.capture(parts[0]);
                } else {
                    self.dotted_value(&parts);
                }
            }
            "class_pattern" => {
                for (i, k) in kids(n).into_iter().enumerate() {
                    if i == 0 && k.kind_name() == "dotted_name" {
                        self.dotted_value(&kids(k));
                    } else {
                        self.walk_case_pattern(k);
                    }
                }
            }
            "keyword_pattern" => {
                for (i, k) in kids(n).into_iter().enumerate() {
                    if i > 0 {
                        self.walk_case_pattern(k);
                    }
                }
            }
            "identifier" => self.capture(n),
            "as_pattern" => {
                for k in kids(n) {
                    if k.kind_name() == "as_pattern_target" {
                        for t in kids(k) {
                            if t.kind_name() == "identifier" {
                                self.capture(t);
                            }
                        }
                    } else {
                        self.walk_case_pattern(k);
                    }
                }
            }
            "string" | "integer" | "float" | "true" | "false" | "none" | "concatenated_string" => {}
            _ => {
                for k in kids(n) {
                    self.walk_case_pattern(k);
                }
            }
        }
    }

    /// A name a `case` pattern binds: a local of the enclosing function (collected before),
    /// or at module level a name that is neither an edge nor unresolved.
    pub(super) fn capture(&mut self, id: Node) {
        let name = self.t(id).to_string();
        if name == "_" {
            return;
        }
        if matches!(self.lookup_assign(&name), NameRes::Unbound(_)) {
            let l = self.new_local();
            if let Some(s) = self.scopes.last_mut() {
                s.names.insert(name, NameRes::Local(l));
            }
        }
    }

    /// The value of a condition the target interpreter decides before running: a comparison of
    /// `sys.version_info` (or `sys.version_info[:2]`) with a tuple of integers, for CPython
    /// 3.11, and `TYPE_CHECKING` (true, as for a type checker).
    pub(super) fn static_condition(&self, c: Node) -> Option<bool> {
        const TARGET: (i64, i64) = (3, 11);
        match c.kind_name() {
            "parenthesized_expression" => c.named_child(0).and_then(|x| self.static_condition(x)),
            "identifier" | "attribute" => {
                let t = self.t(c);
                (t == "TYPE_CHECKING" || t.ends_with(".TYPE_CHECKING")).then_some(true)
            }
            "not_operator" => c
                .field("argument")
                .and_then(|x| self.static_condition(x))
                .map(|b| !b),
            "comparison_operator" => {
                let parts = kids(c);
                if parts.len() != 2 {
                    return None;
                }
                let lhs = self.t(parts[0]).replace(' ', "");
                if lhs != "sys.version_info" && lhs != "sys.version_info[:2]" {
                    return None;
                }
                let rhs = parts[1];
                if rhs.kind_name() != "tuple" {
                    return None;
                }
                let nums: Vec<i64> = kids(rhs)
                    .iter()
                    .map(|k| self.t(*k).parse::<i64>().ok())
                    .collect::<Option<Vec<_>>>()?;
                let want = (nums.first().copied()?, nums.get(1).copied().unwrap_or(0));
                let op: String = {
                    let mut cc = c.walk();
                    c.children(&mut cc)
                        .filter(|k| !k.is_named())
                        .map(|k| self.t(k).to_string())
                        .collect()
                };
                Some(match op.as_str() {
                    ">=" => TARGET >= want,
                    ">" => TARGET > want,
                    "<" => TARGET < want,
                    "<=" => TARGET <= want,
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// An `if`: a branch whose condition is decided statically (`static_condition`) is the only
    /// one walked; the others are not compiled for the target, like excluded Go files.
    /// Walks the branch `body` taken when `cond` holds: a local or parameter `x` that
    /// `isinstance(x, C)` (or `isinstance(x, (C, D))`, alone or in an `and`) tests, and that
    /// the branch does not assign, has the type `C` (`C | D`) in it (SPEC 12.4).
    fn walk_narrowed(&mut self, cond: Option<Node>, body: Node) {
        let narrowed = cond.and_then(|c| self.isinstance_test(c, 0));
        let Some((name, ty)) = narrowed else {
            self.walk(body);
            return;
        };
        let mut bound = Vec::new();
        self.collect_bound(body, &mut bound);
        if bound.contains(&name) {
            self.walk(body);
            return;
        }
        let l = self.new_local();
        self.file.locals[l].ty = Some(ty);
        self.narrowings.push((name, l, self.scopes.len()));
        self.walk(body);
        self.narrowings.pop();
    }

    /// `if not isinstance(x, C):` whose branch always leaves the block (its last statement is
    /// `return`, `raise`, `continue` or `break`) and that has no `elif` or `else`: `x` and `C`.
    pub(super) fn exit_unless_isinstance(&self, stmt: Node) -> Option<(String, TypeRef)> {
        if stmt.kind_name() != "if_statement"
            || kids(stmt)
                .iter()
                .any(|k| matches!(k.kind_name(), "elif_clause" | "else_clause"))
        {
            return None;
        }
        let cond = stmt.field("condition")?;
        if cond.kind_name() != "not_operator" {
            return None;
        }
        let body = stmt.field("consequence")?;
        let last = kids(body)
            .into_iter()
            .rfind(|k| k.kind_name() != "comment")?;
        if !matches!(
            last.kind_name(),
            "return_statement" | "raise_statement" | "continue_statement" | "break_statement"
        ) {
            return None;
        }
        let inner = cond.field("argument")?;
        if inner.kind_name() != "call" {
            return None;
        }
        self.isinstance_test(inner, 0)
    }

    /// `isinstance(x, C)` in `cond`: the local `x` and the written type of `C`.
    pub(super) fn isinstance_test(&self, cond: Node, d: usize) -> Option<(String, TypeRef)> {
        if d > 8 {
            return None;
        }
        match cond.kind_name() {
            "parenthesized_expression" => self.isinstance_test(cond.named_child(0)?, d + 1),
            "boolean_operator" if cond.field("operator")?.kind_name() == "and" => {
                let l = cond.field("left")?;
                let r = cond.field("right")?;
                self.isinstance_test(l, d + 1)
                    .or_else(|| self.isinstance_test(r, d + 1))
            }
            "call" => {
                let f = cond.field("function")?;
                if f.kind_name() != "identifier"
                    || self.t(f) != "isinstance"
                    || !matches!(self.lookup("isinstance"), NameRes::Unbound(_))
                {
                    return None;
                }
                let args: Vec<Node> = kids(cond.field("arguments")?)
                    .into_iter()
                    .filter(|k| k.kind_name() != "comment")
                    .collect();
                let [x, c] = args.as_slice() else {
                    return None;
                };
                if x.kind_name() != "identifier" {
                    return None;
                }
                let name = self.t(*x).to_string();
                if !matches!(self.lookup(&name), NameRes::Local(_)) {
                    return None;
                }
                let class = |n: Node| match n.kind_name() {
                    "identifier" | "attribute" => match self.type_ref(n) {
                        t @ TypeRef::Named { .. } => Some(t),
                        _ => None,
                    },
                    _ => None,
                };
                let ty = if c.kind_name() == "tuple" {
                    let parts: Option<Vec<TypeRef>> = kids(*c)
                        .into_iter()
                        .filter(|k| k.kind_name() != "comment")
                        .map(class)
                        .collect();
                    match parts? {
                        p if p.len() == 1 => p.into_iter().next()?,
                        p if p.len() > 1 => TypeRef::Union(p),
                        _ => return None,
                    }
                } else {
                    class(*c)?
                };
                Some((name, ty))
            }
            _ => None,
        }
    }

    pub(super) fn walk_if(&mut self, n: Node) {
        let mut cond = n.field("condition");
        let mut body = n.field("consequence");
        let alternatives: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| matches!(k.kind_name(), "elif_clause" | "else_clause"))
            .collect();
        let mut i = 0;
        loop {
            let known = cond.and_then(|c| self.static_condition(c));
            if let Some(c) = cond {
                self.walk(c);
            }
            match known {
                Some(true) => {
                    if let Some(b) = body {
                        self.walk_narrowed(cond, b);
                    }
                    return;
                }
                Some(false) => {}
                None => {
                    if let Some(b) = body {
                        self.walk_narrowed(cond, b);
                    }
                }
            }
            let Some(alt) = alternatives.get(i) else {
                return;
            };
            i += 1;
            match alt.kind_name() {
                "elif_clause" => {
                    if known == Some(true) {
                        return;
                    }
                    cond = alt.field("condition");
                    body = alt.field("consequence");
                }
                _ => {
                    // `else`: after a known-false condition it is the live branch; after an
                    // unknown one it is one more possibility.
                    if let Some(b) = alt
                        .field("body")
                        .or_else(|| kids(*alt).into_iter().find(|k| k.kind_name() == "block"))
                    {
                        self.walk(b);
                    }
                    return;
                }
            }
        }
    }
}
