//! Members of class-like declarations: supertypes in lookup order, inherited members,
//! extensions that apply, and what a member of a receiver binds to.

use super::*;

impl Resolver<'_> {
    /// The supertypes of a class-like declaration, in lookup order: its mixins (last first),
    /// its superclass, its interfaces, a mixin's `on` types. `Err` for a supertype that is
    /// not compiled.
    pub(super) fn supertypes(
        &self,
        c: DeclRef,
        with_interfaces: bool,
        depth: usize,
    ) -> Vec<Result<DeclRef, ()>> {
        let d = self.decl(c);
        let mut out = Vec::new();
        let order = [
            SuperKind::With,
            SuperKind::Extends,
            SuperKind::Implements,
            SuperKind::On,
        ];
        for kind in order {
            if !with_interfaces && kind == SuperKind::Implements {
                continue;
            }
            if d.extension && kind == SuperKind::On {
                continue;
            }
            let mut list: Vec<&TypeRef> = d
                .supers
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, t)| t)
                .collect();
            if kind == SuperKind::With {
                list.reverse();
            }
            for t in list {
                match self.type_decl(c.0, t, depth + 1) {
                    Ok(x) if x != c => out.push(Ok(x)),
                    Ok(_) => {}
                    Err(Receiver::Core(n, _)) if n == "Object" => {}
                    Err(_) => out.push(Err(())),
                }
            }
        }
        out
    }

    pub(super) fn class_open(&self, c: DeclRef, depth: usize) -> bool {
        self.class_open_in(c, &mut HashSet::default(), depth)
    }

    pub(super) fn class_open_in(
        &self,
        c: DeclRef,
        seen: &mut HashSet<DeclRef>,
        depth: usize,
    ) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        if !seen.insert(c) {
            return false;
        }
        self.supertypes(c, true, depth).iter().any(|s| match s {
            Ok(x) => self.class_open_in(*x, seen, depth + 1),
            Err(()) => true,
        })
    }

    /// Looks a member up in a class-like declaration (`own`: its own members too) and then
    /// its supertypes, each visited once.
    pub(super) fn lookup_member(
        &self,
        c: DeclRef,
        name: &str,
        statics: bool,
        own: bool,
        depth: usize,
    ) -> Hit {
        self.lookup_member_in(c, name, statics, own, &mut HashSet::default(), depth)
    }

    pub(super) fn lookup_member_in(
        &self,
        c: DeclRef,
        name: &str,
        statics: bool,
        own: bool,
        seen: &mut HashSet<DeclRef>,
        depth: usize,
    ) -> Hit {
        if depth > MAX_DEPTH {
            return Hit::Unknown;
        }
        if own {
            if !seen.insert(c) {
                return Hit::Lacks;
            }
            if let Some(&m) = self.decl(c).members.get(name) {
                let md = self.decl((c.0, m));
                if statics || !(md.is_static || md.ctor) {
                    return Hit::Decls(vec![(c.0, m)], true, Provenance::DartReceiverTyped);
                }
            }
        }
        let mut open = false;
        for s in self.supertypes(c, true, depth) {
            match s {
                Ok(x) => match self.lookup_member_in(x, name, false, true, seen, depth + 1) {
                    h @ Hit::Decls(..) => return h,
                    Hit::Unknown | Hit::Nothing => open = true,
                    Hit::Lacks => {}
                },
                Err(()) => open = true,
            }
        }
        if open { Hit::Unknown } else { Hit::Lacks }
    }

    /// Every supertype of `c`, itself included.
    pub(super) fn supertype_closure(&self, c: DeclRef, out: &mut Vec<DeclRef>, depth: usize) {
        if depth > MAX_DEPTH || out.contains(&c) {
            return;
        }
        out.push(c);
        for s in self.supertypes(c, true, depth).into_iter().flatten() {
            self.supertype_closure(s, out, depth + 1);
        }
    }

    /// Extension members named `name` that apply to a receiver.
    pub(super) fn extension_members(
        &self,
        u: usize,
        recv: &Receiver,
        name: &str,
        depth: usize,
    ) -> Vec<DeclRef> {
        let lib = &self.libs[self.units[u].lib];
        let mut closure = Vec::new();
        if let Receiver::Inst(c) = recv {
            self.supertype_closure(*c, &mut closure, depth + 1);
        }
        let mut out = Vec::new();
        for &e in &lib.extensions {
            let d = self.decl(e);
            let Some(&m) = d.members.get(name) else {
                continue;
            };
            let Some((_, on)) = d.supers.iter().find(|(k, _)| *k == SuperKind::On) else {
                continue;
            };
            let applies = match (self.type_decl(e.0, on, depth + 1), recv) {
                (Ok(x), Receiver::Inst(_)) => closure.contains(&x),
                (Err(Receiver::Core(on, _)), Receiver::Core(r, _)) => on == *r,
                (Err(Receiver::Core(on, _)), Receiver::Inst(_)) => on == "Object",
                _ => false,
            };
            if applies && !out.contains(&(e.0, m)) {
                out.push((e.0, m));
            }
        }
        out
    }

    pub(super) fn members_named(&self, u: usize, recv: &Receiver, name: &str, depth: usize) -> Hit {
        if depth > MAX_DEPTH {
            return Hit::Unknown;
        }
        match recv {
            Receiver::Unknown => Hit::Unknown,
            Receiver::Nothing | Receiver::Returns(_) => Hit::Nothing,
            // The implicit `loadLibrary()` of a deferred prefix.
            Receiver::Prefix(..) if name == "loadLibrary" => Hit::Nothing,
            Receiver::Prefix(l, p) => match self.libs[*l].prefixes.get(p) {
                Some((ns, open)) => match Self::ns_hit(ns, name) {
                    Some((d, _)) if !d.is_empty() => {
                        let exact = d.len() == 1;
                        Hit::Decls(d, exact, Provenance::DartImport)
                    }
                    Some(_) => Hit::Nothing,
                    None if *open => Hit::Nothing,
                    None => Hit::Lacks,
                },
                None => Hit::Unknown,
            },
            Receiver::Static(c) => {
                let d = self.decl(*c);
                match d.members.get(name) {
                    Some(&m) => Hit::Decls(vec![(c.0, m)], true, Provenance::DartReceiverTyped),
                    None if d.kind == SymbolKind::Enum && name == "values" => Hit::Nothing,
                    None if OBJECT_MEMBERS.contains(&name) => Hit::Nothing,
                    None => Hit::Lacks,
                }
            }
            Receiver::SuperOf(c) => {
                let mut open = false;
                for s in self.supertypes(*c, false, depth) {
                    match s {
                        Ok(x) => match self.lookup_member(x, name, false, true, depth + 1) {
                            h @ Hit::Decls(..) => return h,
                            Hit::Lacks => {}
                            _ => open = true,
                        },
                        Err(()) => open = true,
                    }
                }
                if open || OBJECT_MEMBERS.contains(&name) {
                    Hit::Nothing
                } else {
                    Hit::Lacks
                }
            }
            Receiver::Inst(c) => match self.lookup_member(*c, name, false, true, depth) {
                h @ Hit::Decls(..) => h,
                other => {
                    let ext = self.extension_members(u, recv, name, depth);
                    if !ext.is_empty() {
                        let exact = ext.len() == 1;
                        return Hit::Decls(ext, exact, Provenance::DartReceiverTyped);
                    }
                    let enum_member =
                        self.decl(*c).kind == SymbolKind::Enum && ENUM_MEMBERS.contains(&name);
                    if OBJECT_MEMBERS.contains(&name) || enum_member {
                        return Hit::Nothing;
                    }
                    match other {
                        Hit::Lacks => Hit::Lacks,
                        _ => Hit::Nothing,
                    }
                }
            },
            Receiver::Core(..) => {
                let ext = self.extension_members(u, recv, name, depth);
                if ext.is_empty() {
                    Hit::Nothing
                } else {
                    let exact = ext.len() == 1;
                    Hit::Decls(ext, exact, Provenance::DartReceiverTyped)
                }
            }
        }
    }
}
