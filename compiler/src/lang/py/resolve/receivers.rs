//! Receivers: what an expression (`x` of `x.m`) or a written type denotes, followed through
//! assignments, calls with written return types, properties and sequences (SPEC 12.4).

use kivgraph_format::SymbolKind;

use super::{Bound, Hit, Lookup, MAX_EVAL_STEPS, Receiver, Resolver, Target};
use crate::lang::py::extract::{Expr, ImportKind, NameRes, TypeRef, is_builtin};

/// Builtins whose result's type depends on their arguments at run time.
const DYNAMIC_BUILTINS: &[&str] = &[
    "getattr",
    "vars",
    "globals",
    "locals",
    "eval",
    "__import__",
    "next",
    "iter",
    "max",
    "min",
    "sorted",
    "type",
    "copy",
    "reversed",
    "cast",
    "deepcopy",
];

impl Resolver<'_> {
    pub(super) fn eval(&self, m: usize, e: &Expr, depth: usize) -> Receiver {
        if self.too_deep(depth) {
            return Receiver::Unknown;
        }
        let steps = self.eval_steps.get() + 1;
        self.eval_steps.set(steps);
        if steps > MAX_EVAL_STEPS {
            // Whatever is being computed now is cut short: not to be remembered.
            self.attributes.cut();
            return Receiver::Unknown;
        }
        match e {
            Expr::Unknown => Receiver::Unknown,
            Expr::External => Receiver::External,
            Expr::Name(NameRes::Local(l)) => {
                let local = &self.mods[m].py.locals[*l];
                if local.ty.is_none()
                    && local.assignments > 1
                    && local.later.len() + 1 == local.assignments as usize
                {
                    if !self.typing_locals.borrow_mut().insert((m, *l)) {
                        self.read_again.set(true);
                        return Receiver::External;
                    }
                    let r = self.reassigned_recv(m, &local.value, &local.later, depth);
                    self.typing_locals.borrow_mut().remove(&(m, *l));
                    return r;
                }
                self.assigned_recv(m, (&local.ty, &local.value, local.assignments), depth)
            }
            Expr::Name(res) => self.value_recv(self.bind_res(m, res, depth + 1), depth + 1),
            Expr::SelfOf(c) => Receiver::Members(m, *c),
            Expr::Super(c) => Receiver::SuperOf(m, *c),
            Expr::Member(base, name) => {
                match self.members_named(&self.eval(m, base, depth + 1), name, depth + 1) {
                    Hit::Decls(v, _) if v.len() == 1 => {
                        self.value_recv(Bound::Decl(v[0].0, v[0].1), depth + 1)
                    }
                    Hit::Decls(v, _) => Receiver::Union(
                        v.into_iter()
                            .map(|(a, b)| self.value_recv(Bound::Decl(a, b), depth + 1))
                            .collect(),
                    ),
                    Hit::Bound(b) => self.value_recv(b, depth + 1),
                    Hit::External | Hit::NotFound { closed: false } => Receiver::External,
                    Hit::NotFound { closed: true } | Hit::Unknown => Receiver::Unknown,
                }
            }
            // Builtins whose result can be anything.
            Expr::Call(callee) if self.is_dynamic_call(m, callee) => Receiver::Unknown,
            Expr::Call(callee) if let Some(r) = self.library_result(m, callee, depth + 1) => r,
            Expr::Call(callee) => match self.callee(m, callee, depth + 1) {
                Bound::Decl(cm, cd) => {
                    let d = &self.mods[cm].py.decls[cd];
                    match d.kind {
                        SymbolKind::Class => Receiver::Members(cm, cd),
                        _ => match &d.ty {
                            // `-> Self`: the receiver the method was called on.
                            Some(t) if self.is_self_type(cm, t) => match &**callee {
                                Expr::Member(base, _) => self.eval(m, base, depth + 1),
                                _ => Receiver::Unknown,
                            },
                            Some(t) => self.type_recv(cm, t, depth + 1),
                            None => Receiver::Unknown,
                        },
                    }
                }
                Bound::External if self.returns_library_value(m, callee, depth + 1) => {
                    Receiver::External
                }
                _ => Receiver::Unknown,
            },
            Expr::Elem(inner) => match self.eval(m, inner, depth + 1) {
                Receiver::Seq(x) | Receiver::Map(x, _) => *x,
                Receiver::External => Receiver::External,
                _ => Receiver::Unknown,
            },
            Expr::Index(inner) => match self.eval(m, inner, depth + 1) {
                Receiver::Seq(x) | Receiver::Map(_, x) => *x,
                Receiver::External => Receiver::External,
                _ => Receiver::Unknown,
            },
        }
    }

    /// Whether a callee outside the graph returns a value whose members are a library's: a
    /// builtin (`str(…)`, `len(…)`) or a method of a value of a library type
    /// (`s.split(…)`). What a function of an uncompiled module returns is not known.
    fn returns_library_value(&self, m: usize, callee: &Expr, depth: usize) -> bool {
        match callee {
            Expr::Name(NameRes::Unbound(n)) => is_builtin(n),
            Expr::Member(base, _) => matches!(
                self.eval(m, base, depth + 1),
                Receiver::External | Receiver::Seq(_) | Receiver::Map(..)
            ),
            _ => false,
        }
    }

    /// What a call of a method of a builtin sequence or mapping returns, when its type follows
    /// from the receiver's element types (`d.get(k)`: a value of `d`; `d.values()`: its
    /// values; `xs.pop()`: an element). `None` when the callee is not such a method.
    fn library_result(&self, m: usize, callee: &Expr, depth: usize) -> Option<Receiver> {
        let Expr::Member(base, name) = callee else {
            return None;
        };
        Some(match (self.eval(m, base, depth + 1), name.as_str()) {
            (Receiver::Map(_, v), "get" | "pop" | "setdefault" | "__getitem__") => *v,
            (Receiver::Map(_, v), "values") => Receiver::Seq(v),
            (Receiver::Map(k, _), "keys") => Receiver::Seq(k),
            (Receiver::Map(k, v), "copy") => Receiver::Map(k, v),
            (Receiver::Seq(x), "pop" | "__getitem__") => *x,
            (Receiver::Seq(x), "copy") => Receiver::Seq(x),
            _ => return None,
        })
    }

    /// Whether the written type `t` of module `m` is `Self` (`from typing import Self`, or
    /// `typing.Self`).
    fn is_self_type(&self, m: usize, t: &TypeRef) -> bool {
        let TypeRef::Named { head, path } = t else {
            return false;
        };
        match (head, path.as_slice()) {
            (NameRes::Import(i), []) => {
                matches!(&self.mods[m].py.imports[*i].kind, ImportKind::From(n) if n == "Self")
            }
            (NameRes::Import(i), [last]) => {
                last == "Self"
                    && matches!(self.mods[m].py.imports[*i].kind, ImportKind::Module { .. })
            }
            _ => false,
        }
    }

    /// A variable, field or local: its annotation wins; without one, the value of its only
    /// assignment (SPEC 12.4, Notes: typing is flow-insensitive).
    fn assigned_recv(
        &self,
        m: usize,
        (ty, value, assignments): (&Option<TypeRef>, &Option<Expr>, u32),
        depth: usize,
    ) -> Receiver {
        match (ty, value) {
            (Some(t), _) => self.type_recv(m, t, depth + 1),
            (None, Some(v)) if assignments <= 1 => self.eval(m, v, depth + 1),
            _ => Receiver::Unknown,
        }
    }

    /// A local assigned several times, all by plain assignments: the class every assignment
    /// whose value has members gives it (values of a library type, `None` included, and values
    /// that read the local again add none), when they agree; else unknown (SPEC 12.4).
    fn reassigned_recv(
        &self,
        m: usize,
        first: &Option<Expr>,
        later: &[Option<Expr>],
        depth: usize,
    ) -> Receiver {
        let mut class: Option<(usize, usize)> = None;
        let outer = self.read_again.replace(false);
        let mut library_only = true;
        for v in std::iter::once(first).chain(later) {
            let Some(v) = v else {
                self.read_again.set(outer);
                return Receiver::Unknown;
            };
            match self.eval(m, v, depth + 1) {
                Receiver::External => library_only &= !self.read_again.replace(false),
                Receiver::Members(a, b) if class.is_none_or(|c| c == (a, b)) => {
                    class = Some((a, b))
                }
                _ => {
                    self.read_again.set(outer);
                    return Receiver::Unknown;
                }
            }
        }
        self.read_again.set(outer);
        match class {
            Some((a, b)) => Receiver::Members(a, b),
            // Every value is of a library type: so is the local.
            None if library_only => Receiver::External,
            None => Receiver::Unknown,
        }
    }

    /// A call of a builtin (or of `typing.cast`, `copy.copy`, …) whose result's type depends on
    /// its arguments at run time.
    fn is_dynamic_call(&self, m: usize, callee: &Expr) -> bool {
        match callee {
            Expr::Name(NameRes::Unbound(n)) => DYNAMIC_BUILTINS.contains(&n.as_str()),
            Expr::Name(NameRes::Import(i)) => match &self.mods[m].py.imports[*i].kind {
                ImportKind::From(n) => {
                    DYNAMIC_BUILTINS.contains(&n.as_str())
                        && matches!(self.mods[m].targets[*i], Target::Missing(..))
                }
                _ => false,
            },
            Expr::Member(base, n) => {
                DYNAMIC_BUILTINS.contains(&n.as_str())
                    && matches!(&**base, Expr::Name(NameRes::Import(i))
                        if matches!(self.mods[m].targets[*i], Target::Missing(..)))
            }
            _ => false,
        }
    }

    fn callee(&self, m: usize, e: &Expr, depth: usize) -> Bound {
        if self.too_deep(depth) {
            return Bound::Missing;
        }
        match e {
            Expr::Name(NameRes::Local(_)) => Bound::Missing,
            Expr::Name(res) => self.bind_res(m, res, depth + 1),
            Expr::Member(base, name) => {
                match self.members_named(&self.eval(m, base, depth + 1), name, depth + 1) {
                    Hit::Decls(v, true) => Bound::Decl(v[0].0, v[0].1),
                    Hit::Bound(b) => b,
                    Hit::External | Hit::NotFound { closed: false } => Bound::External,
                    _ => Bound::Missing,
                }
            }
            Expr::External => Bound::External,
            _ => Bound::Missing,
        }
    }

    fn value_recv(&self, b: Bound, depth: usize) -> Receiver {
        if self.too_deep(depth) {
            return Receiver::Unknown;
        }
        match b {
            Bound::Decl(m, d) => {
                let decl = &self.mods[m].py.decls[d];
                match decl.kind {
                    SymbolKind::Class => Receiver::Members(m, d),
                    SymbolKind::Variable | SymbolKind::Field => {
                        self.assigned_recv(m, (&decl.ty, &decl.value, decl.assignments), depth)
                    }
                    SymbolKind::Property => match &decl.ty {
                        Some(t) => self.type_recv(m, t, depth + 1),
                        None => Receiver::Unknown,
                    },
                    _ => Receiver::External,
                }
            }
            Bound::Module(t) => Receiver::Module(t),
            Bound::Namespace(r, d) => Receiver::Namespace(r, d),
            Bound::External => Receiver::External,
            Bound::Missing => Receiver::Unknown,
        }
    }

    pub(super) fn type_recv(&self, m: usize, t: &TypeRef, depth: usize) -> Receiver {
        if self.too_deep(depth) {
            return Receiver::Unknown;
        }
        match t {
            TypeRef::External => Receiver::External,
            TypeRef::Unknown => Receiver::Unknown,
            TypeRef::Seq(x) => Receiver::Seq(Box::new(self.type_recv(m, x, depth + 1))),
            TypeRef::Map(k, v) => Receiver::Map(
                Box::new(self.type_recv(m, k, depth + 1)),
                Box::new(self.type_recv(m, v, depth + 1)),
            ),
            TypeRef::Union(ts) => {
                Receiver::Union(ts.iter().map(|x| self.type_recv(m, x, depth + 1)).collect())
            }
            TypeRef::Named { head, path } => {
                if let NameRes::Local(_) = head {
                    return Receiver::Unknown;
                }
                let mut b = self.bind_res(m, head, depth + 1);
                for seg in path {
                    b = match b {
                        Bound::Module(_) | Bound::Namespace(..) => match &b {
                            Bound::Module(t) => self.attribute(*t, seg, depth + 1),
                            _ => self.submodule(&b, seg),
                        },
                        Bound::Decl(bm, bd) => match self.lookup_member(bm, bd, seg, depth + 1) {
                            Lookup::Found(a, c) => Bound::Decl(a, c),
                            _ => Bound::Missing,
                        },
                        other => other,
                    };
                }
                match b {
                    Bound::Decl(bm, bd) if self.mods[bm].py.decls[bd].kind == SymbolKind::Class => {
                        Receiver::Members(bm, bd)
                    }
                    Bound::External => Receiver::External,
                    _ => Receiver::Unknown,
                }
            }
        }
    }
}
