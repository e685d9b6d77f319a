//! Written types resolved to declared types: the named type (or container of one) a `Ty` of
//! phase 1 denotes, through declared types of values, results of functions and methods, fields,
//! and `type A B` definitions.

use kivgraph_format::SymbolKind;

use super::Resolver;
use super::scopes::{FileScope, Lookup};
use crate::facts::SymbolId;
use crate::lang::go::extract::Ty;

/// A resolved type: a named type symbol, or a container, map or channel of them.
#[derive(Clone, Debug)]
pub(super) enum KnownType {
    Named(SymbolId),
    /// A slice or array, or a channel (`chan`), of elements of this type.
    Container(Box<KnownType>, Kind),
    /// A map, with its key and value types where they are known (one at least).
    Map {
        key: Option<Box<KnownType>>,
        value: Option<Box<KnownType>>,
    },
}

/// What a [`KnownType::Container`] is: `range` over a channel yields its elements first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Sequence,
    Chan,
}

/// What a written type denotes.
pub(super) enum Resolution {
    Type(KnownType),
    /// A type of a package outside the graph (its import path).
    External(String),
    Unknown,
}

impl Resolver<'_> {
    /// Resolves a written type, in the context of the file that wrote it.
    pub(super) fn resolve_ty(&self, scope: &FileScope, ty: &Ty, depth: usize) -> Resolution {
        if depth > 8 {
            return Resolution::Unknown;
        }
        match ty {
            Ty::Named { qual, name } => match self.lookup_name(scope, qual.as_deref(), name) {
                Lookup::Found(syms) => match syms.as_slice() {
                    [s] if self.is_type(*s) => Resolution::Type(KnownType::Named(*s)),
                    _ => Resolution::Unknown,
                },
                Lookup::External(p) => Resolution::External(p),
                Lookup::None => Resolution::Unknown,
            },
            Ty::Container(inner) | Ty::Chan(inner) => {
                let kind = match ty {
                    Ty::Chan(_) => Kind::Chan,
                    _ => Kind::Sequence,
                };
                match self.resolve_ty(scope, inner, depth + 1) {
                    Resolution::Type(t) => {
                        Resolution::Type(KnownType::Container(Box::new(t), kind))
                    }
                    other => other,
                }
            }
            Ty::Map { key, value } => {
                let known = |t: &Option<Box<Ty>>| match t {
                    Some(t) => self.resolve_ty(scope, t, depth + 1),
                    None => Resolution::Unknown,
                };
                let (key, value) = (known(key), known(value));
                // As a container of its values, with its key beside them when it is known.
                let key = match key {
                    Resolution::Type(k) => Some(Box::new(k)),
                    _ => None,
                };
                match value {
                    Resolution::Type(v) => Resolution::Type(KnownType::Map {
                        key,
                        value: Some(Box::new(v)),
                    }),
                    Resolution::External(p) => Resolution::External(p),
                    Resolution::Unknown if key.is_some() => {
                        Resolution::Type(KnownType::Map { key, value: None })
                    }
                    Resolution::Unknown => Resolution::Unknown,
                }
            }
            Ty::Elem(inner) | Ty::Key(inner) => {
                let first = matches!(ty, Ty::Key(_));
                match self.resolve_ty(scope, inner, depth + 1) {
                    Resolution::Type(KnownType::Container(e, kind)) => {
                        if first && kind == Kind::Sequence {
                            // An index: an `int`.
                            Resolution::Unknown
                        } else {
                            Resolution::Type(*e)
                        }
                    }
                    Resolution::Type(KnownType::Map { key, value }) => {
                        match if first { key } else { value } {
                            Some(t) => Resolution::Type(*t),
                            None => Resolution::Unknown,
                        }
                    }
                    Resolution::Type(KnownType::Named(t)) => {
                        // A defined type over a container: `type Items []Item`.
                        let d = self.decl(t);
                        match d.underlying.clone() {
                            Some(u @ (Ty::Container(_) | Ty::Map { .. } | Ty::Chan(_))) => {
                                let i = &self.info[&t];
                                let decl_scope = self.file_scope(i.file, i.pkg);
                                let u = Box::new(u);
                                let again = if first { Ty::Key(u) } else { Ty::Elem(u) };
                                self.resolve_ty(&decl_scope, &again, depth + 1)
                            }
                            _ => Resolution::Unknown,
                        }
                    }
                    _ => Resolution::Unknown,
                }
            }
            Ty::Value { qual, name } => match self.lookup_name(scope, qual.as_deref(), name) {
                Lookup::Found(syms) => match syms.as_slice() {
                    [s] if matches!(
                        self.facts.symbols[*s].kind,
                        SymbolKind::Var | SymbolKind::Const
                    ) =>
                    {
                        self.declared_ty(*s, depth)
                    }
                    _ => Resolution::Unknown,
                },
                Lookup::External(p) => Resolution::External(p),
                // `v.f` where `v` is a package-level value of this package.
                Lookup::None => {
                    let base = self.package_value_ty(scope, qual.as_deref(), depth);
                    self.field_of(base, name, depth)
                }
            },
            Ty::Field { base, name } => {
                let b = self.resolve_ty(scope, base, depth + 1);
                self.field_of(b, name, depth)
            }
            Ty::Call { qual, name, index } => {
                match self.lookup_name(scope, qual.as_deref(), name) {
                    Lookup::Found(syms) => match syms.as_slice() {
                        [s] if self.is_type(*s) => Resolution::Type(KnownType::Named(*s)),
                        [s] if self.facts.symbols[*s].kind == SymbolKind::Func => {
                            self.result_ty(*s, *index, depth)
                        }
                        _ => Resolution::Unknown,
                    },
                    Lookup::External(p) => Resolution::External(p),
                    // `v.M()` on a package-level value.
                    Lookup::None => {
                        let recv = self.package_value_ty(scope, qual.as_deref(), depth);
                        self.method_result(recv, name, *index, depth)
                    }
                }
            }
            Ty::MethodCall { recv, name, index } => {
                let r = self.resolve_ty(scope, recv, depth + 1);
                self.method_result(r, name, *index, depth)
            }
        }
    }

    /// The declared type of `qual` when it names exactly one package-level declaration the file
    /// sees: the operand of `v.f` or `v.M()`.
    fn package_value_ty(&self, scope: &FileScope, qual: Option<&str>, depth: usize) -> Resolution {
        match qual.map(|q| self.lookup_name(scope, None, q)) {
            Some(Lookup::Found(syms)) if syms.len() == 1 => self.declared_ty(syms[0], depth),
            _ => Resolution::Unknown,
        }
    }

    pub(super) fn declared_ty(&self, s: SymbolId, depth: usize) -> Resolution {
        let d = self.decl(s);
        let Some(ty) = d.ty.clone() else {
            return Resolution::Unknown;
        };
        let i = &self.info[&s];
        let scope = self.file_scope(i.file, i.pkg);
        self.resolve_ty(&scope, &ty, depth + 1)
    }

    pub(super) fn result_ty(&self, s: SymbolId, index: usize, depth: usize) -> Resolution {
        let d = self.decl(s);
        let Some(Some(ty)) = d.results.get(index).cloned() else {
            return Resolution::Unknown;
        };
        let i = &self.info[&s];
        let scope = self.file_scope(i.file, i.pkg);
        self.resolve_ty(&scope, &ty, depth + 1)
    }

    pub(super) fn field_of(&self, base: Resolution, name: &str, depth: usize) -> Resolution {
        match base {
            Resolution::Type(KnownType::Named(t)) => match self.lookup_member(t, name, 0) {
                Some(f) if self.facts.symbols[f].kind == SymbolKind::Field => {
                    self.declared_ty(f, depth)
                }
                _ => Resolution::Unknown,
            },
            Resolution::External(p) => Resolution::External(p),
            _ => Resolution::Unknown,
        }
    }

    pub(super) fn method_result(
        &self,
        recv: Resolution,
        name: &str,
        index: usize,
        depth: usize,
    ) -> Resolution {
        match recv {
            Resolution::Type(KnownType::Named(t)) => match self.lookup_member(t, name, 0) {
                Some(m) if self.facts.symbols[m].kind == SymbolKind::Method => {
                    self.result_ty(m, index, depth)
                }
                _ => Resolution::Unknown,
            },
            Resolution::External(p) => Resolution::External(p),
            _ => Resolution::Unknown,
        }
    }

    /// Follows aliases and `type A B` definitions to the type whose fields `t` has.
    pub(super) fn underlying_named(&self, mut t: SymbolId) -> SymbolId {
        for _ in 0..8 {
            let d = self.decl(t);
            if d.is_struct || d.is_interface {
                return t;
            }
            let Some(u) = d.underlying.clone() else {
                return t;
            };
            let i = &self.info[&t];
            let scope = self.file_scope(i.file, i.pkg);
            match self.resolve_ty(&scope, &u, 0) {
                Resolution::Type(KnownType::Named(n)) if n != t => t = n,
                _ => return t,
            }
        }
        t
    }
}
