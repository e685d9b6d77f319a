//! Written types: a type written in the source evaluated to its declaration, and the type of
//! a receiver expression (parameters, `let`s, returns, fields, `?`) inferred from them.

use kivgraph_format::SymbolKind;

use super::super::extract::{Ns, Recv, SelfCtx, Ty};
use super::{Def, MAX_DEPTH, PathRes, Place, Resolver, Rt, is_fn};
use crate::facts::SymbolId;

impl Resolver<'_> {
    pub(super) fn eval_ty(&self, ty: &Ty, ctx: Place) -> Rt {
        if self.depth.get() > MAX_DEPTH {
            return Rt::Unknown;
        }
        match ty {
            Ty::Ref(t) => self.deeper(|| self.eval_ty(t, ctx)),
            Ty::Bounds(bs) | Ty::Param(_, bs) => {
                let mut ts = Vec::new();
                for b in bs {
                    if let Rt::Traits(v) = self.deeper(|| self.eval_ty(b, ctx)) {
                        ts.extend(v);
                    }
                }
                if ts.is_empty() {
                    Rt::Unknown
                } else {
                    Rt::Traits(ts)
                }
            }
            Ty::Path(segs, args) => {
                let lastseg = segs.last().map(String::as_str).unwrap_or("");
                if matches!(lastseg, "Box" | "Rc" | "Arc") && args.len() == 1 {
                    return self.deeper(|| self.eval_ty(&args[0], ctx));
                }
                if segs.len() == 1 && segs[0] == "Self" {
                    return match self.self_target(ctx.inst, ctx.selfc) {
                        Some(s) if self.facts.symbols[s].kind == SymbolKind::Trait => {
                            Rt::Traits(vec![s])
                        }
                        Some(s) => Rt::Sym(s),
                        None => Rt::Unknown,
                    };
                }
                match self.deeper(|| self.resolve_path(ctx, segs, Ns::Type, false)) {
                    PathRes::Found(v, _) if v.len() == 1 => match v[0] {
                        Def::Sym(s) => match self.facts.symbols[s].kind {
                            SymbolKind::Struct
                            | SymbolKind::Enum
                            | SymbolKind::Union
                            | SymbolKind::EnumMember => Rt::Sym(s),
                            SymbolKind::Trait => Rt::Traits(vec![s]),
                            SymbolKind::TypeAlias => {
                                let t = self.item_of(s).ty.clone();
                                match t {
                                    Some(t) => self.deeper(|| self.eval_ty(&t, self.place_of(s))),
                                    None => Rt::Unknown,
                                }
                            }
                            _ => Rt::Unknown,
                        },
                        _ => Rt::Unknown,
                    },
                    _ => Rt::Unknown,
                }
            }
            Ty::Unknown => Rt::Unknown,
        }
    }

    /// The written type of a receiver expression: (type, the place it is written).
    pub(super) fn recv_ty(&self, r: &Recv, ctx: Place) -> Option<(Ty, Place)> {
        if self.depth.get() > MAX_DEPTH {
            return None;
        }
        match r {
            Recv::Ty(t) => Some((t.clone(), ctx)),
            Recv::CallRet(segs) => {
                match self.deeper(|| self.resolve_path(ctx, segs, Ns::Value, false)) {
                    PathRes::Found(v, _) if v.len() == 1 => {
                        let Def::Sym(s) = v[0] else { return None };
                        let kind = self.facts.symbols[s].kind;
                        if is_fn(kind) {
                            self.written_type(s)
                        } else {
                            None
                        }
                    }
                    _ => None,
                }
            }
            Recv::Method(base, name) => {
                let rt = self.deeper(|| self.recv_rt(base, ctx));
                let (v, _) = self.members(&rt, name, true);
                if v.len() != 1 {
                    return None;
                }
                let s = v[0];
                self.written_type(s)
            }
            Recv::Field(base, name) => {
                // The base's written type is computed once (chains would otherwise be
                // exponential).
                let bval = if matches!(**base, Recv::CallRet(_) | Recv::Value(_)) {
                    None
                } else {
                    Some(self.deeper(|| self.recv_ty(base, ctx))?)
                };
                if let Some(r) = bval
                    .as_ref()
                    .and_then(|b| self.deeper(|| self.generic_field(b.clone(), name)))
                {
                    return Some(r);
                }
                let rt = match bval {
                    Some((t, c)) => self.deeper(|| self.eval_ty(&t, c)),
                    None => self.deeper(|| self.recv_rt(base, ctx)),
                };
                let (v, _) = self.members(&rt, name, false);
                if v.len() != 1 {
                    return None;
                }
                let s = v[0];
                self.written_type(s)
            }
            Recv::Try(inner) => {
                let (t, c) = self.deeper(|| self.recv_ty(inner, ctx))?;
                match t {
                    Ty::Path(segs, args)
                        if matches!(segs.last().map(String::as_str), Some("Result" | "Option"))
                            && !args.is_empty() =>
                    {
                        Some((args[0].clone(), c))
                    }
                    _ => None,
                }
            }
            Recv::Value(segs) => {
                match self.deeper(|| self.resolve_path(ctx, segs, Ns::Value, false)) {
                    PathRes::Found(v, _) if v.len() == 1 => {
                        let Def::Sym(s) = v[0] else { return None };
                        if matches!(
                            self.facts.symbols[s].kind,
                            SymbolKind::Const | SymbolKind::Static
                        ) {
                            self.written_type(s)
                        } else {
                            None
                        }
                    }
                    _ => None,
                }
            }
            Recv::Unknown => None,
        }
    }

    /// `x.f` where `f`'s written type is a type parameter of its struct, and `x`'s written type
    /// gives that parameter (`Labelled<T>` with `T: Shape`): the argument's type.
    pub(super) fn generic_field(&self, base: (Ty, Place), name: &str) -> Option<(Ty, Place)> {
        let (mut bt, mut bctx) = base;
        for _ in 0..8 {
            bt = match bt {
                Ty::Ref(t) => *t,
                Ty::Path(segs, mut args)
                    if matches!(segs.last().map(String::as_str), Some("Box" | "Rc" | "Arc"))
                        && args.len() == 1 =>
                {
                    args.remove(0)
                }
                Ty::Path(segs, args) if segs.len() == 1 && segs[0] == "Self" && args.is_empty() => {
                    let Some(SelfCtx::Impl(i)) = bctx.selfc else {
                        return None;
                    };
                    let f = &self.files[self.insts[bctx.inst].pf].rs;
                    let imp = f.impls.get(i)?;
                    let m = self.insts[bctx.inst].mods[f.items[imp.item].module]?;
                    bctx = Place {
                        module: m,
                        inst: bctx.inst,
                        selfc: None,
                    };
                    imp.self_ty.clone()
                }
                other => {
                    bt = other;
                    break;
                }
            };
        }
        let Ty::Path(_, args) = &bt else { return None };
        if args.is_empty() {
            return None;
        }
        let Rt::Sym(s) = self.deeper(|| self.eval_ty(&bt, bctx)) else {
            return None;
        };
        let inf = self.info.get(&s)?;
        let generics = &self.files[self.insts[inf.inst].pf].rs.items[inf.item].generics;
        let fields: Vec<SymbolId> = inf.children.get(name)?.clone();
        let [f] = fields.as_slice() else { return None };
        let Some(Ty::Param(p, _)) = &self.item_of(*f).ty else {
            return None;
        };
        let idx = generics.iter().position(|g| g == p)?;
        args.get(idx).map(|a| (a.clone(), bctx))
    }

    pub(super) fn recv_rt(&self, r: &Recv, ctx: Place) -> Rt {
        if let Recv::CallRet(segs) | Recv::Value(segs) = r {
            // A tuple struct or variant constructor: an instance of its type.
            if let PathRes::Found(v, _) =
                self.deeper(|| self.resolve_path(ctx, segs, Ns::Value, false))
                && let [Def::Sym(s)] = v.as_slice()
            {
                match self.facts.symbols[*s].kind {
                    SymbolKind::Struct => return Rt::Sym(*s),
                    SymbolKind::EnumMember => {
                        let inf = &self.info[s];
                        let p = self.files[self.insts[inf.inst].pf].rs.items[inf.item].parent;
                        if let Some(ps) = p.and_then(|p| self.insts[inf.inst].syms[p]) {
                            return Rt::Sym(ps);
                        }
                    }
                    _ => {}
                }
            }
        }
        match self.deeper(|| self.recv_ty(r, ctx)) {
            Some((t, c)) => self.deeper(|| self.eval_ty(&t, c)),
            None => Rt::Unknown,
        }
    }
}
