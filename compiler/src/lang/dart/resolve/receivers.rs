//! Receiver typing: the value a declaration, a local or an expression denotes, from written
//! types and initializers.

use super::*;

impl Resolver<'_> {
    /// `this` in a class-like declaration; in an extension, a value of its `on` type.
    pub(super) fn this_recv(&self, c: DeclRef, depth: usize) -> Receiver {
        let d = self.decl(c);
        if d.extension {
            return match d.supers.iter().find(|(k, _)| *k == SuperKind::On) {
                Some((_, t)) => self.type_recv(c.0, t, depth + 1),
                None => Receiver::Unknown,
            };
        }
        Receiver::Inst(c)
    }

    /// The value a declaration denotes when named.
    pub(super) fn value_recv(&self, d: DeclRef, depth: usize) -> Receiver {
        if depth > MAX_DEPTH {
            return Receiver::Unknown;
        }
        let decl = self.decl(d);
        match decl.kind {
            SymbolKind::Class
            | SymbolKind::Enum
            | SymbolKind::Type
            | SymbolKind::Implementation => Receiver::Static(d),
            SymbolKind::TypeAlias => match &decl.ty {
                Some(t) => match self.type_decl(d.0, t, depth + 1) {
                    Ok(x) => Receiver::Static(x),
                    Err(_) => Receiver::Nothing,
                },
                None => Receiver::Nothing,
            },
            SymbolKind::Method | SymbolKind::StaticMethod | SymbolKind::Function => {
                if decl.ctor {
                    match decl.parent {
                        Some(p) => Receiver::Returns(Box::new(Receiver::Inst((d.0, p)))),
                        None => Receiver::Unknown,
                    }
                } else {
                    match &decl.ty {
                        Some(t) => Receiver::Returns(Box::new(self.type_recv(d.0, t, depth + 1))),
                        None => Receiver::Returns(Box::new(Receiver::Unknown)),
                    }
                }
            }
            _ => match (&decl.ty, &decl.value) {
                (Some(t), _) => self.type_recv(d.0, t, depth + 1),
                (None, Some(v)) => self.eval(d.0, v, depth + 1),
                _ => Receiver::Unknown,
            },
        }
    }

    pub(super) fn eval(&self, u: usize, e: &Expr, depth: usize) -> Receiver {
        if depth > MAX_DEPTH {
            return Receiver::Unknown;
        }
        match e {
            Expr::Unknown => Receiver::Unknown,
            Expr::Core(n) => Receiver::Core(n.0.to_string(), None),
            Expr::Local(i) => {
                let l = &self.units[u].parsed.locals[*i];
                if l.func {
                    return match &l.ret {
                        Some(t) => Receiver::Returns(Box::new(self.type_recv(u, t, depth + 1))),
                        None => Receiver::Returns(Box::new(Receiver::Unknown)),
                    };
                }
                match (&l.ty, &l.value) {
                    (Some(t), _) => self.type_recv(u, t, depth + 1),
                    (None, Some(v)) => self.eval(u, v, depth + 1),
                    _ => Receiver::Unknown,
                }
            }
            Expr::Name(n, ctx) => match self.lookup_name(u, n, *ctx, depth + 1) {
                NameHit::Decls(v, _) if v.len() == 1 => self.value_recv(v[0], depth + 1),
                NameHit::Prefix(p) => Receiver::Prefix(self.units[u].lib, p),
                NameHit::Nothing if is_core(n) => Receiver::Core(n.clone(), None),
                NameHit::Nothing => Receiver::Nothing,
                _ => Receiver::Unknown,
            },
            Expr::This(c) => self.this_recv((u, *c), depth),
            Expr::Super(c) => Receiver::SuperOf((u, *c)),
            Expr::Member(b, m) => {
                let r = self.eval(u, b, depth + 1);
                // `xs.first` of a `List<C>`: a `C`.
                if let Receiver::Core(n, Some(elem)) = &r
                    && matches!(n.as_str(), "List" | "Iterable" | "Set")
                    && matches!(m.as_str(), "first" | "last" | "single")
                {
                    return (**elem).clone();
                }
                if let Receiver::Core(_, _) = r {
                    // A static of a platform class, or a member of a platform value.
                    if let Hit::Decls(v, true, _) = self.members_named(u, &r, m, depth + 1) {
                        return self.value_recv(v[0], depth + 1);
                    }
                    return Receiver::Nothing;
                }
                match self.members_named(u, &r, m, depth + 1) {
                    Hit::Decls(v, true, _) => self.value_recv(v[0], depth + 1),
                    Hit::Nothing => Receiver::Nothing,
                    _ => Receiver::Unknown,
                }
            }
            Expr::Call(b) => match self.eval(u, b, depth + 1) {
                Receiver::Static(c) => Receiver::Inst(c),
                Receiver::Returns(r) => *r,
                Receiver::Core(n, _) if n.chars().next().is_some_and(char::is_uppercase) => {
                    Receiver::Core(n, None)
                }
                Receiver::Unknown | Receiver::Inst(_) => Receiver::Unknown,
                _ => Receiver::Nothing,
            },
            Expr::Cast(t) => self.type_recv(u, t, depth + 1),
            Expr::Await(b) => match self.eval(u, b, depth + 1) {
                Receiver::Core(n, Some(inner)) if n == "Future" || n == "FutureOr" => *inner,
                Receiver::Core(n, None) if n == "Future" || n == "FutureOr" => Receiver::Unknown,
                r => r,
            },
            Expr::Elem(b) => match self.eval(u, b, depth + 1) {
                Receiver::Core(_, Some(inner)) => *inner,
                Receiver::Core(..) | Receiver::Nothing => Receiver::Nothing,
                _ => Receiver::Unknown,
            },
            Expr::Op(l, op) => match self.eval(u, l, depth + 1) {
                Receiver::Core(n, _)
                    if matches!(n.as_str(), "int" | "double" | "num" | "String") =>
                {
                    Receiver::Core(n, None)
                }
                r @ Receiver::Inst(_) => match self.members_named(u, &r, op, depth + 1) {
                    Hit::Decls(v, true, _) => match self.value_recv(v[0], depth + 1) {
                        Receiver::Returns(r) => *r,
                        _ => Receiver::Unknown,
                    },
                    _ => Receiver::Unknown,
                },
                Receiver::Core(..) | Receiver::Nothing => Receiver::Nothing,
                _ => Receiver::Unknown,
            },
            Expr::New(t) => match self.ctor_class(u, t, None) {
                Some(Ok(c)) => Receiver::Inst(c.0),
                Some(Err(())) => Receiver::Nothing,
                None => Receiver::Unknown,
            },
        }
    }
}
