//! Receiver typing: the members a value has, from its written type, its initializer, its
//! callee's declared return type or the function type its parameter is passed to.

use super::*;
use crate::lang::ts::extract::CallTypes;

impl Resolver<'_> {
    // ------------------------------------------------------------------ receivers

    /// The receiver `e` evaluates to in module `m`.
    ///
    /// A narrowed expression (`Expr::Narrow`, `Expr::HasProp`: every reference inside a
    /// narrowing branch repeats its chain) is evaluated once and its receiver reused, where that
    /// cannot change an answer: its evaluation met no export the memo did not already hold (so
    /// it read only values that never change) and checked no depth past the bound, and reusing
    /// it at `depth` would check none either (the same checks, shifted).
    pub(super) fn eval(&self, m: usize, e: &Expr, depth: usize) -> Recv {
        if !matches!(e, Expr::Narrow { .. } | Expr::HasProp(..)) {
            return self.eval_now(m, e, depth);
        }
        let hash = {
            use std::hash::{Hash, Hasher};
            let mut h = rustc_hash::FxHasher::default();
            (m, e).hash(&mut h);
            h.finish()
        };
        let kept = self.evals.borrow().get(&hash).and_then(|bucket| {
            bucket
                .iter()
                .find(|(em, ee, _, _)| *em == m && ee == e)
                .map(|(_, _, r, reach)| (r.clone(), *reach))
        });
        self.kept_within_reach(
            kept,
            depth,
            || self.eval_now(m, e, depth),
            |r, reach| {
                let mut evals = self.evals.borrow_mut();
                let bucket = evals.entry(hash).or_default();
                if !bucket.iter().any(|(em, ee, _, _)| *em == m && ee == e) {
                    bucket.push((m, e.clone(), r.clone(), reach));
                }
            },
        )
    }

    /// What a kept result gives, or what `compute` gives at `depth` and `keep` keeps.
    ///
    /// A result found at one depth is the result at another when the search that found it
    /// checked the depth bound at most `reach` levels deeper than its start, and start plus
    /// `reach` stays within the bound; using it counts as reaching that deep. A result is kept
    /// (with its reach) only when its search never met the bound and no export lookup was cut
    /// short during it.
    pub(super) fn kept_within_reach<T>(
        &self,
        kept: Option<(T, usize)>,
        depth: usize,
        compute: impl FnOnce() -> T,
        keep: impl FnOnce(&T, usize),
    ) -> T {
        if let Some((value, reach)) = kept
            && self.depth_bound.reuse(depth, reach)
        {
            return value;
        }
        let misses = self.exports.misses();
        let (value, deepest) = self.depth_bound.measure(depth, compute);
        if self.depth_bound.within(deepest) && self.exports.misses() == misses {
            keep(&value, deepest - depth);
        }
        value
    }

    fn eval_now(&self, m: usize, e: &Expr, depth: usize) -> Recv {
        if self.too_deep(depth) {
            return Recv::Unknown;
        }
        match e {
            Expr::Unknown => Recv::Unknown,
            Expr::External => Recv::External,
            Expr::Name(NameRes::Local(l)) => {
                let local = &self.mods[m].ts.locals[*l];
                if let Some(t) = &local.ty {
                    // A variable typed by a type parameter in scope (`x: T`, `T extends Base`)
                    // has the constraint's members. Only here: a type parameter reached
                    // through another declaration's signature stands for its instantiation.
                    if let TypeRef::Named {
                        head: NameRes::Local(tp),
                        path,
                        ..
                    } = t
                        && path.is_empty()
                        && let Some(c) = &self.mods[m].ts.locals[*tp].ty
                    {
                        return self.type_recv(m, c, depth + 1);
                    }
                    self.type_recv(m, t, depth + 1)
                } else if let Some(v) = &local.value {
                    self.eval(m, v, depth + 1)
                } else {
                    Recv::Unknown
                }
            }
            Expr::Name(res) => {
                self.value_recv(self.bind_res(m, res, Meaning::Value, depth + 1), depth + 1)
            }
            Expr::This(Some(c)) => Recv::Members(m, *c),
            Expr::This(None) | Expr::Super(None) => Recv::Unknown,
            Expr::Super(Some(c)) => match self.mods[m].ts.decls[*c].extends.first() {
                Some(t) => self.type_recv(m, t, depth + 1),
                None => Recv::Unknown,
            },
            Expr::ContextParam { ty, param } => {
                match self.fn_param(m, ty.clone(), *param, depth + 1) {
                    Some((tm, t)) => self.type_recv(tm, &t, depth + 1),
                    None => Recv::Unknown,
                }
            }
            Expr::Narrow {
                base,
                key,
                lits,
                keep,
            } => self.narrow(m, base, key, lits, *keep, depth + 1).0,
            Expr::HasProp(base, key) => self.narrow_has(m, base, key, depth + 1).0,
            Expr::Guarded { base, callee, arg } => match self.callee(m, callee, depth + 1) {
                Bound::Decl(cm, cd) => match &self.mods[cm].ts.decls[cd].ret {
                    Some(TypeRef::Predicate(i, t, _)) if i == arg => {
                        self.type_recv(cm, t, depth + 1)
                    }
                    _ => self.eval(m, base, depth + 1),
                },
                _ => self.eval(m, base, depth + 1),
            },
            Expr::AssignedParam { target, param } => {
                match self.assigned_param(m, target, *param, depth + 1) {
                    Some((tm, t)) => self.type_recv(tm, &t, depth + 1),
                    None => Recv::Unknown,
                }
            }
            Expr::CallbackParam {
                callee,
                arg,
                param,
                call,
            } => match self.callback_param(m, callee, *arg, *param, call, depth + 1) {
                Some((tm, t)) => self.type_recv(tm, &t, depth + 1),
                None => self
                    .library_callback_param(m, callee, *arg, *param, depth + 1)
                    .unwrap_or(Recv::Unknown),
            },
            Expr::Member(base, name) => match self.eval(m, base, depth + 1) {
                // `C.prototype` has the instance members of C.
                Recv::Members(tm, td)
                    if name == "prototype"
                        && self.mods[tm].ts.decls[td].kind == SymbolKind::Class =>
                {
                    Recv::Members(tm, td)
                }
                Recv::Object(om, props) => match props.iter().find(|(n, _)| n == name) {
                    Some((_, Some(t))) => self.type_recv(om, t, depth + 1),
                    Some((_, None)) => Recv::Unknown,
                    None => Recv::External,
                },
                recv if let Some(r) = self.object_prop(&recv, name, depth + 1) => r,
                recv => match self.members_named(&recv, name, Meaning::Value, depth + 1) {
                    Hit::Decls(v, _) if v.len() == 1 => {
                        self.value_recv(Bound::Decl(v[0].0, v[0].1), depth + 1)
                    }
                    Hit::Decls(v, _) => Recv::Union(
                        v.into_iter()
                            .map(|(a, b)| self.value_recv(Bound::Decl(a, b), depth + 1))
                            .collect(),
                    ),
                    Hit::Bound(b) => self.value_recv(b, depth + 1),
                    Hit::External | Hit::NotFound { closed: false } => Recv::External,
                    Hit::NotFound { closed: true } | Hit::Unknown => Recv::Unknown,
                },
            },
            Expr::Call(callee) if let Some(r) = self.library_result(m, callee, depth + 1) => r,
            Expr::Call(callee) => match self.callee(m, callee, depth + 1) {
                Bound::Decl(cm, cd) if self.mods[cm].ts.decls[cd].overloads > 1 => Recv::Unknown,
                Bound::Decl(cm, cd) => match &self.mods[cm].ts.decls[cd].ret {
                    // `m(): this` returns its receiver.
                    Some(TypeRef::This) => match &**callee {
                        Expr::Member(base, _) => self.eval(m, base, depth + 1),
                        _ => Recv::Unknown,
                    },
                    Some(t) => self.type_recv(cm, t, depth + 1),
                    // The value its one `return` gives, read in its own module; a library
                    // value there (`Object.values(…)`) may hold the graph's types: unknown.
                    None => match &self.mods[cm].ts.decls[cd].returns {
                        Some(v) => match self.eval(cm, v, depth + 1) {
                            Recv::External => Recv::Unknown,
                            r => r,
                        },
                        None => Recv::Unknown,
                    },
                },
                Bound::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::New(callee) => match self.callee(m, callee, depth + 1) {
                Bound::Decl(cm, cd) if self.mods[cm].ts.decls[cd].kind == SymbolKind::Class => {
                    Recv::Members(cm, cd)
                }
                Bound::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::Typed(t) => self.type_recv(m, t, depth + 1),
            Expr::Nth(inner, i) => match self.eval(m, inner, depth + 1) {
                Recv::Tuple(mut v) if *i < v.len() => v.swap_remove(*i),
                Recv::Array(x) | Recv::Iter(x) => *x,
                Recv::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::Elem(inner) => match self.eval(m, inner, depth + 1) {
                Recv::Map(k, v) => Recv::Tuple(vec![*k, *v]),
                Recv::Array(x) | Recv::Iter(x) => *x,
                Recv::External => Recv::External,
                _ => Recv::Unknown,
            },
            Expr::Await(inner) => match self.eval(m, inner, depth + 1) {
                Recv::Promise(x) => *x,
                other => other,
            },
            Expr::JsxProps(comp) => match self.callee(m, comp, depth + 1) {
                Bound::Decl(cm, cd) => match self.mods[cm].ts.decls[cd].params.first() {
                    Some(Some(t)) => self.type_recv(cm, t, depth + 1),
                    _ => Recv::Unknown,
                },
                Bound::External => Recv::External,
                _ => Recv::Unknown,
            },
        }
    }

    /// The value of property `name` of an object type literal that is part of an
    /// intersection (`A & { p: T }`), or of every member of a union of such: `None` when the
    /// receiver has no such part.
    fn object_prop(&self, recv: &Recv, name: &str, depth: usize) -> Option<Recv> {
        if self.too_deep(depth) {
            return None;
        }
        match recv {
            Recv::Object(om, props) => match props.iter().find(|(n, _)| n == name)? {
                (_, Some(t)) => Some(self.type_recv(*om, t, depth + 1)),
                (_, None) => Some(Recv::Unknown),
            },
            Recv::All(parts) => parts
                .iter()
                .find_map(|p| self.object_prop(p, name, depth + 1)),
            Recv::Union(parts) => parts
                .iter()
                .map(|p| self.object_prop(p, name, depth + 1))
                .collect::<Option<Vec<Recv>>>()
                .map(Recv::Union),
            _ => None,
        }
    }

    /// What a call of a method of the standard library's arrays, maps and sets returns, when
    /// its type follows from the receiver's element types (`a.find(…)`: an element of `a`;
    /// `m.get(k)`: a value of `m`; `s.values()`: an iterable of `s`'s elements). `None` when
    /// the callee is not such a method.
    fn library_result(&self, m: usize, callee: &Expr, depth: usize) -> Option<Recv> {
        let Expr::Member(base, name) = callee else {
            return None;
        };
        Some(match (self.eval(m, base, depth + 1), name.as_str()) {
            (Recv::Array(t), "find" | "findLast" | "at" | "pop" | "shift") => *t,
            (
                Recv::Array(t),
                "filter" | "slice" | "concat" | "reverse" | "sort" | "splice" | "toSorted"
                | "toReversed" | "toSpliced" | "fill" | "copyWithin",
            ) => Recv::Array(t),
            (Recv::Array(t), "values") => Recv::Iter(t),
            (Recv::Map(_, v), "get") => *v,
            (Recv::Map(_, v), "values") => Recv::Iter(v),
            (Recv::Map(k, _), "keys") => Recv::Iter(k),
            (Recv::Map(k, v), "set") => Recv::Map(k, v),
            (Recv::Map(k, v), "entries") => Recv::Iter(Box::new(Recv::Tuple(vec![*k, *v]))),
            (Recv::Array(t), "entries") => {
                Recv::Iter(Box::new(Recv::Tuple(vec![Recv::External, *t])))
            }
            (Recv::Iter(t), "values" | "keys") => Recv::Iter(t),
            (Recv::Iter(t), "add") => Recv::Iter(t),
            _ => return None,
        })
    }

    /// The type of parameter `param` of a function passed as argument `arg` to a method of the
    /// standard library's arrays, maps and sets whose callback receives their elements
    /// (`a.map(x => …)`: an element of `a`; `m.forEach((v, k) => …)`).
    fn library_callback_param(
        &self,
        m: usize,
        callee: &Expr,
        arg: usize,
        param: usize,
        depth: usize,
    ) -> Option<Recv> {
        let Expr::Member(base, name) = callee else {
            return None;
        };
        if arg != 0 {
            return None;
        }
        Some(
            match (self.eval(m, base, depth + 1), name.as_str(), param) {
                (
                    Recv::Array(t),
                    "forEach" | "map" | "filter" | "find" | "findIndex" | "findLast"
                    | "findLastIndex" | "some" | "every" | "flatMap",
                    0,
                )
                | (Recv::Array(t), "reduce" | "reduceRight", 1)
                | (Recv::Array(t), "sort" | "toSorted", 0 | 1) => *t,
                (Recv::Map(_, v), "forEach", 0) => *v,
                (Recv::Map(k, _), "forEach", 1) => *k,
                (Recv::Iter(t), "forEach", 0 | 1) => *t,
                _ => return None,
            },
        )
    }

    /// The written type of parameter `param` of the function passed as argument `arg` to
    /// `callee`: the callee's declared parameter type, when it is a function type (directly or
    /// through a type alias). A class callee means its constructor.
    pub(super) fn callback_param(
        &self,
        m: usize,
        callee: &Expr,
        arg: usize,
        param: usize,
        call: &CallTypes,
        depth: usize,
    ) -> Option<(usize, TypeRef)> {
        // A local function value (`const loop = (cb: (r: R) => void) => …`): its written
        // parameter types.
        if let Expr::Name(NameRes::Local(l)) = callee {
            let local = &self.mods[m].ts.locals[*l];
            let t = match (&local.ty, &local.value) {
                (Some(t @ TypeRef::Fn(..)), _) => t.clone(),
                (None, Some(Expr::Typed(t @ TypeRef::Fn(..)))) => t.clone(),
                _ => return None,
            };
            let TypeRef::Fn(ps, _) = t else { return None };
            let t = ps.get(arg)?.clone()?;
            return self.fn_param(m, t, param, depth + 1);
        }
        let Bound::Decl(mut cm, mut cd) = self.callee(m, callee, depth + 1) else {
            return None;
        };
        if self.mods[cm].ts.decls[cd].kind == SymbolKind::Class {
            match self.lookup_member(cm, cd, "constructor", depth + 1) {
                Lookup::Found(a, b) => (cm, cd) = (a, b),
                _ => return None,
            }
        }
        if self.mods[cm].ts.decls[cd].overloads > 1 {
            return None;
        }
        let t = self.mods[cm].ts.decls[cd].params.get(arg)?.clone()?;
        let (tm, t) = self.fn_param(cm, t, param, depth + 1)?;
        if tm == cm && mentions_local(&t) {
            // Typed by the callee's type parameters: instantiated by the call.
            return Some(self.instantiated(m, cm, cd, &t, call, depth + 1));
        }
        Some((tm, t))
    }

    /// `t`, written in the signature of function `cd` of module `cm` in terms of its type
    /// parameters, with each type parameter replaced by what the call (in module `m`)
    /// instantiates it with: the type argument written at the call, else the argument in the
    /// same position of the call's expected type when that names the callee's declared return
    /// type, else the parameter's default. A type parameter with none of them is left as it is
    /// (its uses are then not typed).
    fn instantiated(
        &self,
        m: usize,
        cm: usize,
        cd: usize,
        t: &TypeRef,
        call: &CallTypes,
        depth: usize,
    ) -> (usize, TypeRef) {
        let mut map: Vec<(usize, TypeRef)> = Vec::new();
        for (i, &tp) in self.mods[cm].ts.decls[cd].type_params.iter().enumerate() {
            let v = if let Some(a) = call.args.get(i) {
                TypeRef::In(m, Box::new(a.clone()))
            } else if let Some(a) = self.expected_arg(m, cm, cd, tp, call, depth + 1) {
                TypeRef::In(m, Box::new(a))
            } else if let Some(def) = &self.mods[cm].ts.locals[tp].default {
                TypeRef::In(cm, Box::new(subst(def, &map)))
            } else {
                continue;
            };
            map.push((tp, v));
        }
        (cm, subst(t, &map))
    }

    /// The type argument of the call's expected type that stands where the callee's declared
    /// return type has the type parameter `tp` (`const c: Ctor<A> = make(…)` with
    /// `make<T>(…): Ctor<T>` gives `A` for `T`), when both name the same declaration.
    fn expected_arg(
        &self,
        m: usize,
        cm: usize,
        cd: usize,
        tp: usize,
        call: &CallTypes,
        depth: usize,
    ) -> Option<TypeRef> {
        let TypeRef::Named {
            head: rh,
            path: rp,
            args: rargs,
        } = self.mods[cm].ts.decls[cd].ret.as_ref()?
        else {
            return None;
        };
        let Some(TypeRef::Named {
            head: eh,
            path: ep,
            args: eargs,
        }) = &call.expected
        else {
            return None;
        };
        let j = rargs.iter().position(|a| {
            matches!(a, TypeRef::Named { head: NameRes::Local(x), path, args }
                if *x == tp && path.is_empty() && args.is_empty())
        })?;
        if self.type_decl(cm, rh, rp, depth + 1)? != self.type_decl(m, eh, ep, depth + 1)? {
            return None;
        }
        eargs.get(j).cloned()
    }

    /// The written type of parameter `param` of a function assigned to the member `target`:
    /// the member's declared parameter when it is a method, else its written function type.
    fn assigned_param(
        &self,
        m: usize,
        target: &Expr,
        param: usize,
        depth: usize,
    ) -> Option<(usize, TypeRef)> {
        let Expr::Member(base, name) = target else {
            return None;
        };
        let recv = self.eval(m, base, depth + 1);
        let Hit::Decls(v, true) = self.members_named(&recv, name, Meaning::Value, depth + 1) else {
            return None;
        };
        let [(dm, dd)] = v[..] else { return None };
        let decl = &self.mods[dm].ts.decls[dd];
        match decl.kind {
            SymbolKind::Method | SymbolKind::Function if decl.overloads <= 1 => {
                Some((dm, decl.params.get(param)?.clone()?))
            }
            SymbolKind::Field | SymbolKind::Property | SymbolKind::Variable => {
                self.fn_param(dm, decl.ty.clone()?, param, depth + 1)
            }
            _ => None,
        }
    }

    /// The written type of parameter `param` of the function type `t` (written in module
    /// `m`), followed through type aliases.
    pub(super) fn fn_param(
        &self,
        m: usize,
        t: TypeRef,
        param: usize,
        depth: usize,
    ) -> Option<(usize, TypeRef)> {
        let (tm, ps, _) = self.fn_sig(m, t, depth + 1)?;
        Some((tm, ps.get(param)?.clone()?))
    }

    /// The parameters' written types and the return type of the function type `t` (written in
    /// module `m`): followed through type aliases (instantiated by their type arguments or
    /// defaults), an interface or object type alias with one call signature, and the return
    /// type of another function type.
    #[allow(clippy::type_complexity)]
    fn fn_sig(
        &self,
        m: usize,
        t: TypeRef,
        depth: usize,
    ) -> Option<(usize, Vec<Option<TypeRef>>, Option<TypeRef>)> {
        if self.too_deep(depth) {
            return None;
        }
        let (mut t, mut tm) = (t, m);
        for _ in 0..MAX_DEPTH {
            match t {
                TypeRef::Fn(ps, ret) => return Some((tm, ps, ret.map(|r| *r))),
                TypeRef::In(m2, inner) => {
                    tm = m2;
                    t = *inner;
                }
                TypeRef::Ret(f) => {
                    let (rm, _, ret) = self.fn_sig(tm, *f, depth + 1)?;
                    tm = rm;
                    t = ret?;
                }
                TypeRef::Named {
                    ref head,
                    ref path,
                    ref args,
                } => {
                    let (am, ad) = self.type_decl(tm, head, path, depth + 1)?;
                    let decl = &self.mods[am].ts.decls[ad];
                    let map = self.type_args(tm, am, ad, args);
                    if let [(ps, ret)] = &decl.calls[..] {
                        return Some((
                            am,
                            ps.iter()
                                .map(|p| p.as_ref().map(|p| subst(p, &map)))
                                .collect(),
                            ret.as_ref().map(|r| subst(r, &map)),
                        ));
                    }
                    if decl.kind != SymbolKind::TypeAlias {
                        return None;
                    }
                    t = subst(decl.ty.as_ref()?, &map);
                    tm = am;
                }
                _ => return None,
            }
        }
        None
    }

    /// The type declaration `head.path…` names in module `m`.
    pub(super) fn type_decl(
        &self,
        m: usize,
        head: &NameRes,
        path: &[String],
        depth: usize,
    ) -> Option<(usize, usize)> {
        let any = |last: bool| if last { Meaning::Type } else { Meaning::Any };
        let mut b = self.bind_res(m, head, any(path.is_empty()), depth + 1);
        for (i, seg) in path.iter().enumerate() {
            b = match b {
                Bound::Module(t) => self.export_of(t, seg, any(i + 1 == path.len()), depth + 1),
                Bound::Decl(bm, bd) => match self.lookup_member(bm, bd, seg, depth + 1) {
                    Lookup::Found(a, c) => Bound::Decl(a, c),
                    _ => return None,
                },
                _ => return None,
            };
        }
        match b {
            Bound::Decl(a, c) => Some((a, c)),
            _ => None,
        }
    }

    /// What the type parameters of declaration `d` of module `am` stand for where it is named
    /// with `args` (written in module `m`): each argument, else the parameter's default (in
    /// terms of the parameters before it). A parameter with neither is left out.
    fn type_args(&self, m: usize, am: usize, d: usize, args: &[TypeRef]) -> Vec<(usize, TypeRef)> {
        let mut map: Vec<(usize, TypeRef)> = Vec::new();
        for (i, &tp) in self.mods[am].ts.decls[d].type_params.iter().enumerate() {
            let v = match args.get(i) {
                Some(a) => TypeRef::In(m, Box::new(a.clone())),
                None => match &self.mods[am].ts.locals[tp].default {
                    Some(def) => TypeRef::In(am, Box::new(subst(def, &map))),
                    None => continue,
                },
            };
            map.push((tp, v));
        }
        map
    }

    /// The member types of the union a closed type `t` names (through type aliases without
    /// type parameters), each closed; `t` itself when it is not a union.
    fn union_members(&self, t: &TypeRef, depth: usize) -> Vec<TypeRef> {
        if self.too_deep(depth) {
            return vec![t.clone()];
        }
        let TypeRef::In(m, inner) = t else {
            return vec![t.clone()];
        };
        match &**inner {
            TypeRef::In(..) => self.union_members(inner, depth + 1),
            TypeRef::Union(ts) => ts
                .iter()
                .flat_map(|x| self.union_members(&TypeRef::In(*m, Box::new(x.clone())), depth + 1))
                .collect(),
            TypeRef::Named { head, path, args } if args.is_empty() => {
                match self.type_decl(*m, head, path, depth + 1) {
                    Some((am, ad))
                        if self.mods[am].ts.decls[ad].kind == SymbolKind::TypeAlias
                            && self.mods[am].ts.decls[ad].type_params.is_empty() =>
                    {
                        match &self.mods[am].ts.decls[ad].ty {
                            Some(u @ TypeRef::Union(_)) => {
                                self.union_members(&TypeRef::In(am, Box::new(u.clone())), depth + 1)
                            }
                            _ => vec![t.clone()],
                        }
                    }
                    _ => vec![t.clone()],
                }
            }
            _ => vec![t.clone()],
        }
    }

    /// The declaration an expression in callee position denotes.
    pub(super) fn callee(&self, m: usize, e: &Expr, depth: usize) -> Bound {
        if self.too_deep(depth) {
            return Bound::Missing;
        }
        match e {
            Expr::Name(NameRes::Local(_)) => Bound::Missing,
            Expr::Name(res) => self.bind_res(m, res, Meaning::Value, depth + 1),
            Expr::Member(base, name) => {
                let recv = self.eval(m, base, depth + 1);
                // A property of an object type literal is not a declaration to call.
                if self.object_prop(&recv, name, depth + 1).is_some() {
                    return Bound::Missing;
                }
                match self.members_named(&recv, name, Meaning::Value, depth + 1) {
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

    /// The members a value bound to `b` has.
    pub(super) fn value_recv(&self, b: Bound, depth: usize) -> Recv {
        if self.too_deep(depth) {
            return Recv::Unknown;
        }
        match b {
            Bound::Decl(m, d) => {
                let decl = &self.mods[m].ts.decls[d];
                match decl.kind {
                    SymbolKind::Class | SymbolKind::Enum | SymbolKind::Namespace => {
                        Recv::Members(m, d)
                    }
                    SymbolKind::Variable
                    | SymbolKind::Constant
                    | SymbolKind::Field
                    | SymbolKind::Property => {
                        if let Some(t) = &decl.ty {
                            self.type_recv(m, t, depth + 1)
                        } else if let Some(v) = &decl.value {
                            self.eval(m, v, depth + 1)
                        } else if decl.kind == SymbolKind::Property {
                            // A getter: its declared return type.
                            match &decl.ret {
                                Some(t) => self.type_recv(m, t, depth + 1),
                                None => Recv::Unknown,
                            }
                        } else {
                            Recv::Unknown
                        }
                    }
                    SymbolKind::Function | SymbolKind::Method => {
                        // A function merged with a namespace has the namespace's members;
                        // any other function object has only the library's.
                        match self.merged[m].get(&decl.qn).and_then(|g| {
                            g.iter()
                                .find(|&&x| self.mods[m].ts.decls[x].kind == SymbolKind::Namespace)
                        }) {
                            Some(&ns) => Recv::Members(m, ns),
                            None => Recv::External,
                        }
                    }
                    _ => Recv::Unknown,
                }
            }
            Bound::Module(t) => Recv::Module(t),
            Bound::External => Recv::External,
            Bound::Missing => Recv::Unknown,
        }
    }

    /// The members a value of written type `t` has.
    pub(super) fn type_recv(&self, m: usize, t: &TypeRef, depth: usize) -> Recv {
        if self.too_deep(depth) {
            return Recv::Unknown;
        }
        match t {
            TypeRef::External | TypeRef::Literal(_) | TypeRef::Predicate(..) => Recv::External,
            TypeRef::Unknown | TypeRef::This => Recv::Unknown,
            TypeRef::Fn(..) => Recv::External,
            TypeRef::In(m2, inner) => self.type_recv(*m2, inner, depth + 1),
            TypeRef::Mapped(over) => self.type_recv(m, over, depth + 1),
            TypeRef::Cond {
                extends_any: true,
                then,
                ..
            } => self.type_recv(m, then, depth + 1),
            TypeRef::Cond { .. } => Recv::Unknown,
            TypeRef::Ret(f) => match self.fn_sig(m, (**f).clone(), depth + 1) {
                Some((rm, _, Some(r))) => self.type_recv(rm, &r, depth + 1),
                _ => Recv::Unknown,
            },
            TypeRef::Union(ts) => {
                Recv::Union(ts.iter().map(|t| self.type_recv(m, t, depth + 1)).collect())
            }
            TypeRef::Intersection(ts) => {
                Recv::All(ts.iter().map(|t| self.type_recv(m, t, depth + 1)).collect())
            }
            TypeRef::Object(props) => Recv::Object(m, props.clone()),
            TypeRef::Index(base, key) => {
                let recv = self.type_recv(m, base, depth + 1);
                if let Recv::Object(om, props) = &recv {
                    return match props.iter().find(|(n, _)| n == key) {
                        Some((_, Some(t))) => self.type_recv(*om, t, depth + 1),
                        _ => Recv::Unknown,
                    };
                }
                match self.members_named(&recv, key, Meaning::Value, depth + 1) {
                    Hit::Decls(v, true) if v.len() == 1 => {
                        self.value_recv(Bound::Decl(v[0].0, v[0].1), depth + 1)
                    }
                    Hit::External => Recv::External,
                    _ => Recv::Unknown,
                }
            }
            TypeRef::Array(x) => Recv::Array(Box::new(self.type_recv(m, x, depth + 1))),
            TypeRef::Tuple(ts) => {
                Recv::Tuple(ts.iter().map(|t| self.type_recv(m, t, depth + 1)).collect())
            }
            TypeRef::Named { head, path, args } => {
                if let NameRes::Unbound(n) = head
                    && path.is_empty()
                {
                    return match n.as_str() {
                        "Promise" | "PromiseLike" if args.len() == 1 => {
                            Recv::Promise(Box::new(self.type_recv(m, &args[0], depth + 1)))
                        }
                        "Array" | "ReadonlyArray" | "ArrayLike" if args.len() == 1 => {
                            Recv::Array(Box::new(self.type_recv(m, &args[0], depth + 1)))
                        }
                        "Map" | "ReadonlyMap" | "WeakMap" if args.len() == 2 => Recv::Map(
                            Box::new(self.type_recv(m, &args[0], depth + 1)),
                            Box::new(self.type_recv(m, &args[1], depth + 1)),
                        ),
                        "Set"
                        | "ReadonlySet"
                        | "WeakSet"
                        | "Iterable"
                        | "IterableIterator"
                        | "Iterator"
                        | "AsyncIterable"
                        | "AsyncIterableIterator"
                            if args.len() == 1 =>
                        {
                            Recv::Iter(Box::new(self.type_recv(m, &args[0], depth + 1)))
                        }
                        "Generator" | "AsyncGenerator" if !args.is_empty() => {
                            Recv::Iter(Box::new(self.type_recv(m, &args[0], depth + 1)))
                        }
                        // Mapped types that keep the members of their argument.
                        "Partial" | "Required" | "Readonly" | "NonNullable" | "Pick" | "Omit"
                            if !args.is_empty() =>
                        {
                            self.type_recv(m, &args[0], depth + 1)
                        }
                        "Awaited" if args.len() == 1 => {
                            match self.type_recv(m, &args[0], depth + 1) {
                                Recv::Promise(x) => *x,
                                other => other,
                            }
                        }
                        // Library types computed from another type, whose members may be the
                        // graph's: not followed.
                        "ReturnType"
                        | "InstanceType"
                        | "Parameters"
                        | "ConstructorParameters"
                        | "ThisParameterType"
                        | "OmitThisParameter"
                        | "Exclude"
                        | "Extract"
                        | "NoInfer" => Recv::Unknown,
                        n if is_global(n) => Recv::External,
                        _ => Recv::Unknown,
                    };
                }
                if let NameRes::Local(_) = head {
                    return Recv::Unknown;
                }
                let head_meaning = if path.is_empty() {
                    Meaning::Type
                } else {
                    Meaning::Any
                };
                let mut b = self.bind_res(m, head, head_meaning, depth + 1);
                for (i, seg) in path.iter().enumerate() {
                    let meaning = if i + 1 == path.len() {
                        Meaning::Type
                    } else {
                        Meaning::Any
                    };
                    b = match b {
                        Bound::Module(t) => self.export_of(t, seg, meaning, depth + 1),
                        Bound::Decl(bm, bd) => match self.lookup_member(bm, bd, seg, depth + 1) {
                            Lookup::Found(a, c) => Bound::Decl(a, c),
                            _ => Bound::Missing,
                        },
                        other => other,
                    };
                }
                match b {
                    Bound::Decl(bm, bd) => self.declared_type_recv(bm, bd, m, args, depth),
                    Bound::External => Recv::External,
                    _ => Recv::Unknown,
                }
            }
        }
    }

    /// The members a value of the type declaration `d` of module `m` declares has.
    /// A generic type alias is instantiated with `args` (written in module `am`): a
    /// distributive conditional `T extends any ? X : never` over a union argument is the union
    /// of `X` for each member type.
    fn declared_type_recv(
        &self,
        m: usize,
        d: usize,
        am: usize,
        args: &[TypeRef],
        depth: usize,
    ) -> Recv {
        let decl = &self.mods[m].ts.decls[d];
        match decl.kind {
            SymbolKind::Class | SymbolKind::Interface | SymbolKind::Enum => Recv::Members(m, d),
            SymbolKind::TypeAlias | SymbolKind::Alias => match &decl.ty {
                Some(t) if decl.type_params.is_empty() => self.type_recv(m, t, depth + 1),
                Some(t) => {
                    let map = self.type_args(am, m, d, args);
                    if let TypeRef::Cond {
                        check,
                        extends_any: true,
                        then,
                    } = t
                        && let TypeRef::Named {
                            head: NameRes::Local(tp),
                            path,
                            args,
                        } = &**check
                        && path.is_empty()
                        && args.is_empty()
                        && let Some((_, arg)) = map.iter().find(|(x, _)| x == tp)
                    {
                        let parts = self.union_members(arg, depth + 1);
                        if parts.len() > 1 {
                            return Recv::Union(
                                parts
                                    .into_iter()
                                    .map(|p| {
                                        let mut one = map.clone();
                                        one.retain(|(x, _)| x != tp);
                                        one.push((*tp, p));
                                        self.type_recv(m, &subst(then, &one), depth + 1)
                                    })
                                    .collect(),
                            );
                        }
                    }
                    self.type_recv(m, &subst(t, &map), depth + 1)
                }
                None => Recv::Members(m, d),
            },
            _ => Recv::Unknown,
        }
    }
}

/// Whether a name of `t` is a local (a type parameter).
fn mentions_local(t: &TypeRef) -> bool {
    match t {
        TypeRef::Named { head, args, .. } => {
            matches!(head, NameRes::Local(_)) || args.iter().any(mentions_local)
        }
        TypeRef::Array(x) | TypeRef::Index(x, _) => mentions_local(x),
        TypeRef::Tuple(v) | TypeRef::Union(v) | TypeRef::Intersection(v) => {
            v.iter().any(mentions_local)
        }
        TypeRef::Fn(ps, ret) => {
            ps.iter().flatten().any(mentions_local) || ret.as_deref().is_some_and(mentions_local)
        }
        TypeRef::Ret(x) | TypeRef::Mapped(x) => mentions_local(x),
        TypeRef::Cond { check, then, .. } => mentions_local(check) || mentions_local(then),
        TypeRef::In(..) => false,
        TypeRef::Object(ps) => ps
            .iter()
            .filter_map(|(_, t)| t.as_ref())
            .any(mentions_local),
        TypeRef::External
        | TypeRef::Literal(_)
        | TypeRef::Predicate(..)
        | TypeRef::This
        | TypeRef::Unknown => false,
    }
}

/// `t` with the type parameters of `map` replaced by what they stand for. The parts already
/// closed (`In`) are another module's and are left as they are.
fn subst(t: &TypeRef, map: &[(usize, TypeRef)]) -> TypeRef {
    if map.is_empty() {
        return t.clone();
    }
    let s = |x: &TypeRef| subst(x, map);
    let b = |x: &TypeRef| Box::new(subst(x, map));
    match t {
        TypeRef::Named {
            head: NameRes::Local(tp),
            path,
            args,
        } if path.is_empty() && args.is_empty() => map
            .iter()
            .find(|(x, _)| x == tp)
            .map_or_else(|| t.clone(), |(_, v)| v.clone()),
        TypeRef::Named { head, path, args } => TypeRef::Named {
            head: head.clone(),
            path: path.clone(),
            args: args.iter().map(s).collect(),
        },
        TypeRef::Array(x) => TypeRef::Array(b(x)),
        TypeRef::Tuple(v) => TypeRef::Tuple(v.iter().map(s).collect()),
        TypeRef::Union(v) => TypeRef::Union(v.iter().map(s).collect()),
        TypeRef::Intersection(v) => TypeRef::Intersection(v.iter().map(s).collect()),
        TypeRef::Fn(ps, ret) => TypeRef::Fn(
            ps.iter().map(|p| p.as_ref().map(s)).collect(),
            ret.as_deref().map(b),
        ),
        TypeRef::Object(ps) => TypeRef::Object(
            ps.iter()
                .map(|(n, t)| (n.clone(), t.as_ref().map(s)))
                .collect(),
        ),
        TypeRef::Index(x, k) => TypeRef::Index(b(x), k.clone()),
        TypeRef::Ret(x) => TypeRef::Ret(b(x)),
        TypeRef::Mapped(x) => TypeRef::Mapped(b(x)),
        TypeRef::Cond {
            check,
            extends_any,
            then,
        } => TypeRef::Cond {
            check: b(check),
            extends_any: *extends_any,
            then: b(then),
        },
        TypeRef::In(..)
        | TypeRef::External
        | TypeRef::Predicate(..)
        | TypeRef::Literal(_)
        | TypeRef::This
        | TypeRef::Unknown => t.clone(),
    }
}
