//! Assignments: the names and attributes they write, the values and annotations that type
//! them, and the binding a written name takes.

use super::*;
use crate::lang::FieldExt;
use crate::lang::KindExt;

impl Extractor<'_> {
    pub(super) fn walk_assignment(&mut self, n: Node) {
        let right = n.field("right");
        let ty = n.field("type");
        if let Some(t) = ty {
            self.walk_type(t);
        }
        let left = n.field("left");
        // The value of `x = …` belongs to x's declaration; that of `self.x = …` to the method.
        let stmt_decl = left
            .filter(|l| l.kind_name() != "attribute")
            .and_then(|l| self.decl_of(l))
            .or_else(|| n.parent().and_then(|p| self.decl_of(p)));
        if let Some(r) = right {
            if r.kind_name() == "assignment" {
                self.walk_assignment(r);
            } else {
                self.with_owner(stmt_decl, |x| x.walk(r));
            }
        }
        let value = right.map(|r| {
            let r = if r.kind_name() == "assignment" {
                innermost_value(r)
            } else {
                r
            };
            self.expr_of(r)
        });
        let tyref = ty.map(|t| self.type_ref(t));
        let augmented = n.kind_name() == "augmented_assignment";
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
        match l.kind_name() {
            "identifier" => self.name_ref(l, Use::Value),
            _ => self.walk(l),
        }
    }

    /// Binds assignment targets: locals get their value or annotation, module and class
    /// declarations theirs, `self.x` fields theirs; attribute and subscript targets are
    /// walked as reads of their objects.
    pub(super) fn assign_targets(&mut self, t: Node, value: Option<Expr>, ty: Option<TypeRef>) {
        match t.kind_name() {
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
                        } else {
                            local.later.push(value);
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
                let single = t.kind_name() == "as_pattern_target" && kids(t).len() == 1;
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
                if let (Some(o), Some(a), Some(m)) =
                    (t.field("object"), t.field("attribute"), self.method.clone())
                    && m.receiver.as_deref() == Some(self.t(o))
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
}
