//! Statements whose branches are decided statically for the target (`sys.version_info`, `TYPE_CHECKING`) and `match` patterns.

use super::*;

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
        match n.kind() {
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
                    if i == 0 && k.kind() == "dotted_name" {
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
                    if k.kind() == "as_pattern_target" {
                        for t in kids(k) {
                            if t.kind() == "identifier" {
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
        match c.kind() {
            "parenthesized_expression" => c.named_child(0).and_then(|x| self.static_condition(x)),
            "identifier" | "attribute" => {
                let t = self.t(c);
                (t == "TYPE_CHECKING" || t.ends_with(".TYPE_CHECKING")).then_some(true)
            }
            "not_operator" => c
                .child_by_field_name("argument")
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
                if rhs.kind() != "tuple" {
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
    pub(super) fn walk_if(&mut self, n: Node) {
        let mut cond = n.child_by_field_name("condition");
        let mut body = n.child_by_field_name("consequence");
        let alternatives: Vec<Node> = kids(n)
            .into_iter()
            .filter(|k| matches!(k.kind(), "elif_clause" | "else_clause"))
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
                        self.walk(b);
                    }
                    return;
                }
                Some(false) => {}
                None => {
                    if let Some(b) = body {
                        self.walk(b);
                    }
                }
            }
            let Some(alt) = alternatives.get(i) else {
                return;
            };
            i += 1;
            match alt.kind() {
                "elif_clause" => {
                    if known == Some(true) {
                        return;
                    }
                    cond = alt.child_by_field_name("condition");
                    body = alt.child_by_field_name("consequence");
                }
                _ => {
                    // `else`: after a known-false condition it is the live branch; after an
                    // unknown one it is one more possibility.
                    if let Some(b) = alt
                        .child_by_field_name("body")
                        .or_else(|| kids(*alt).into_iter().find(|k| k.kind() == "block"))
                    {
                        self.walk(b);
                    }
                    return;
                }
            }
        }
    }
}
