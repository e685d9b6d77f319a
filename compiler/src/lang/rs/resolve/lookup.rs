//! Module lookups: a name in a module's items, then its `use`s, then its globs (memoised, with
//! cycles and the step budget cut), and paths segment by segment from a module.

use kivgraph_format::{Provenance, SymbolKind};

use super::super::extract::{Import, Ns};
use super::{
    Def, Lookup, MAX_DEPTH, MAX_STEPS, MemoKey, Missing, ModId, PathRes, Place, Resolver, ns_idx,
};
use crate::emit::reason::NAME_NOT_RESOLVED;

impl Resolver<'_> {
    pub(super) fn def_exported(&self, d: Def) -> bool {
        match d {
            Def::Sym(s) => self.facts.symbols[s].exported,
            Def::Mod(m) => self.mods[m].exported,
            Def::Local => false,
        }
    }

    pub(super) fn use_of(&self, m: ModId, ui: usize) -> &Import {
        &self.files[self.insts[self.mods[m].inst].pf].rs.uses[ui]
    }

    /// The names module `m` declares or imports, in one namespace. `ext`: seen from another
    /// crate (only `pub` items and `pub use`s).
    pub(super) fn lookup_in(&self, m: ModId, name: &str, ns: Ns, ext: bool) -> Lookup {
        if self.depth.get() > MAX_DEPTH {
            self.cut.set(true);
            return (Vec::new(), false, None);
        }
        let key = (m, name.to_string(), ns, ext);
        if let Some(r) = self.memo.borrow().get(&key) {
            return r.clone();
        }
        if let Some(r) = self.memo_tmp.borrow().get(&key) {
            return r.clone();
        }
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps > MAX_STEPS || !self.busy.borrow_mut().insert(key.clone()) {
            self.cut.set(true);
            return (Vec::new(), false, None);
        }
        let saved = self.cut.replace(false);
        let r = self.lookup_uncached(&key);
        self.busy.borrow_mut().remove(&key);
        // A result computed with a cycle of globs cut lacks what the cycle gives back; it is
        // kept all the same (each module of a cycle is searched once per name), which keeps
        // crates whose modules glob-import each other linear. Only a search cut by the step
        // budget is kept for the rest of this reference alone.
        if self.steps.get() <= MAX_STEPS {
            self.memo.borrow_mut().insert(key, r.clone());
        } else {
            self.memo_tmp.borrow_mut().insert(key, r.clone());
        }
        self.cut.set(self.cut.get() || saved);
        r
    }

    /// [`Self::lookup_in`] without the memo, bounds and cycle guard; `key` is the memo's.
    fn lookup_uncached(&self, key: &MemoKey) -> Lookup {
        let (m, name, ns, ext) = (key.0, key.1.as_str(), key.2, key.3);
        let module = &self.mods[m];
        if let Some(v) = module.ns[ns_idx(ns)].get(name) {
            let v: Vec<Def> = v
                .iter()
                .copied()
                .filter(|d| !ext || self.def_exported(*d))
                .collect();
            if !v.is_empty() {
                return (v, false, None);
            }
        }
        let mut out: Vec<Def> = Vec::new();
        let mut missing = None;
        if let Some(us) = module.uses.get(name) {
            for &ui in us {
                if ext && !self.use_of(m, ui).exported {
                    continue;
                }
                match self.deeper(|| self.resolve_use(m, ui, ns)) {
                    PathRes::Found(v, _) => {
                        for d in v {
                            if !out.contains(&d) {
                                out.push(d);
                            }
                        }
                    }
                    PathRes::Missing(mi) => missing = Some(mi),
                    PathRes::Ignore => {}
                }
            }
        }
        if !out.is_empty() {
            return (out, true, None);
        }
        for &gi in &module.globs {
            let u = self.use_of(m, gi);
            if ext && !u.exported {
                continue;
            }
            match self.deeper(|| self.resolve_segs(m, &u.segs, Ns::Type, true)) {
                PathRes::Found(targets, _) => {
                    for t in targets {
                        match t {
                            Def::Mod(tm) => {
                                if tm == m {
                                    continue;
                                }
                                let text = ext || self.mods[tm].krate != module.krate;
                                let (v, _, _) = self.deeper(|| self.lookup_in(tm, name, ns, text));
                                for d in v {
                                    if !out.contains(&d) {
                                        out.push(d);
                                    }
                                }
                            }
                            Def::Sym(s) if ns != Ns::Macro => {
                                if let Some(v) =
                                    self.info.get(&s).and_then(|i| i.children.get(name))
                                    && self.facts.symbols[s].kind == SymbolKind::Enum
                                {
                                    for d in v {
                                        if !out.contains(&Def::Sym(*d)) {
                                            out.push(Def::Sym(*d));
                                        }
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                PathRes::Missing(mi) => missing = Some(mi),
                PathRes::Ignore => {}
            }
        }
        (out, true, missing)
    }

    /// Starts the resolution of one reference.
    pub(super) fn fresh(&self) {
        self.memo_tmp.borrow_mut().clear();
        self.steps.set(0);
    }

    pub(super) fn real_module(&self, mut m: ModId) -> ModId {
        while self.mods[m].block {
            match self.mods[m].parent {
                Some(p) => m = p,
                None => break,
            }
        }
        m
    }

    pub(super) fn krate_root(&self, m: ModId) -> ModId {
        self.crates[self.mods[m].krate].root.unwrap_or(m)
    }

    pub(super) fn pkg_name(&self, m: ModId) -> String {
        self.facts.packages[self.mods[m].package].name.clone()
    }

    pub(super) fn resolve_use(&self, m: ModId, ui: usize, ns: Ns) -> PathRes {
        let u = self.use_of(m, ui);
        let mut segs = u.segs.clone();
        if segs.len() >= 2 && segs.last().is_some_and(|s| s == "self") {
            segs.pop();
            if ns != Ns::Type {
                return PathRes::Ignore;
            }
        }
        self.resolve_segs(m, &segs, ns, true)
    }

    /// A path from module `m`; `in_use` applies the rules of `use` paths to the first segment.
    pub(super) fn resolve_segs(&self, m: ModId, segs: &[String], ns: Ns, in_use: bool) -> PathRes {
        let ctx = Place {
            module: m,
            inst: self.mods[m].inst,
            selfc: None,
        };
        self.resolve_path(ctx, segs, ns, in_use)
    }

    pub(super) fn resolve_path(
        &self,
        ctx: Place,
        segs: &[String],
        ns: Ns,
        in_use: bool,
    ) -> PathRes {
        if segs.is_empty() || self.depth.get() > MAX_DEPTH {
            return PathRes::Ignore;
        }
        let m = ctx.module;
        let k = self.mods[m].krate;
        let last = segs.len() - 1;
        let mut i = 0;
        let mut cur: Vec<Def>;
        let mut prov = Provenance::RustPath;
        match segs[0].as_str() {
            "crate" | "$crate" => {
                cur = vec![Def::Mod(self.krate_root(m))];
                i = 1;
            }
            "self" if segs.len() > 1 || in_use => {
                cur = vec![Def::Mod(self.real_module(m))];
                i = 1;
            }
            "super" => {
                let mut r = self.real_module(m);
                while i < segs.len() && segs[i] == "super" {
                    r = match self.mods[r].parent {
                        Some(p) => self.real_module(p),
                        None => return PathRes::Ignore,
                    };
                    i += 1;
                }
                cur = vec![Def::Mod(r)];
            }
            "Self" => {
                match self.self_target(ctx.inst, ctx.selfc) {
                    Some(s) => cur = vec![Def::Sym(s)],
                    None => return PathRes::Ignore,
                }
                i = 1;
            }
            "::" => {
                if segs.len() < 2 {
                    return PathRes::Ignore;
                }
                // 2015: `::a` is `crate::a`.
                let ns1 = if last == 1 { ns } else { Ns::Type };
                match self.extern_or_root(m, &segs[1], ns1, &segs[last]) {
                    Ok(v) => cur = v,
                    Err(Some(miss)) => return PathRes::Missing(miss),
                    Err(None) => return self.name_not_resolved(m, &segs[1]),
                }
                i = 2;
            }
            first => {
                let fns = if last == 0 { ns } else { Ns::Type };
                if in_use {
                    let (v, _, _) =
                        self.deeper(|| self.lookup_in(self.real_module(m), first, fns, false));
                    let v = if v.is_empty() && self.mods[m].block {
                        self.lookup_blocks(m, first, fns)
                    } else {
                        v
                    };
                    if !v.is_empty() {
                        cur = v;
                    } else {
                        match self.extern_or_root(m, first, fns, &segs[last]) {
                            Ok(v) => cur = v,
                            Err(Some(miss)) => return PathRes::Missing(miss),
                            Err(None) if last == 0 => return PathRes::Ignore,
                            Err(None) => return self.name_not_resolved(m, first),
                        }
                    }
                } else {
                    match self.lookup_scope(ctx, first, fns) {
                        PathRes::Found(v, p) => {
                            cur = v;
                            prov = if last == 0 { p } else { Provenance::RustPath };
                        }
                        PathRes::Missing(mut miss) => {
                            if miss.reason != NAME_NOT_RESOLVED {
                                miss.symbol = segs[last].clone();
                            }
                            return PathRes::Missing(miss);
                        }
                        PathRes::Ignore => return PathRes::Ignore,
                    }
                }
                i = 1;
            }
        }
        while i < segs.len() {
            let seg = &segs[i];
            let sns = if i == last { ns } else { Ns::Type };
            let mut next: Vec<Def> = Vec::new();
            let mut miss: Option<Missing> = None;
            for d in &cur {
                match *d {
                    Def::Mod(tm) => {
                        let ext = self.mods[tm].krate != k;
                        let (v, _, mi) = self.deeper(|| self.lookup_in(tm, seg, sns, ext));
                        if v.is_empty() {
                            miss = Some(
                                mi.map(|x| Missing {
                                    symbol: seg.clone(),
                                    ..x
                                })
                                .unwrap_or(Missing {
                                    reason: NAME_NOT_RESOLVED,
                                    package: self.pkg_name(tm),
                                    symbol: seg.clone(),
                                }),
                            );
                        }
                        next.extend(v);
                    }
                    Def::Sym(s) => {
                        if sns == Ns::Macro {
                            continue;
                        }
                        let v = self.deeper(|| self.assoc(s, seg));
                        if v.is_empty() {
                            // Members from impls this graph cannot see (derives, blanket
                            // impls, traits outside the graph) are not a failure.
                            return PathRes::Ignore;
                        }
                        next.extend(v.into_iter().map(Def::Sym));
                    }
                    Def::Local => return PathRes::Ignore,
                }
            }
            if next.is_empty() {
                return match miss {
                    Some(mi) => PathRes::Missing(mi),
                    None => PathRes::Ignore,
                };
            }
            next.sort();
            next.dedup();
            cur = next;
            i += 1;
        }
        cur.sort();
        cur.dedup();
        PathRes::Found(cur, prov)
    }

    /// The first segment `name` of a `use` path or `::name` path as an extern crate, else (2015
    /// paths) as an item at the crate root: `Err(None)` when neither; `last` is the path's last
    /// segment, the symbol a missing crate is recorded for.
    fn extern_or_root(
        &self,
        m: ModId,
        name: &str,
        ns: Ns,
        last: &str,
    ) -> Result<Vec<Def>, Option<Missing>> {
        match self.extern_crate(self.mods[m].krate, name) {
            Some(Ok(r)) => Ok(vec![Def::Mod(r)]),
            Some(Err(miss)) => Err(Some(Missing {
                symbol: last.into(),
                ..miss
            })),
            None => {
                let (v, _, _) = self.deeper(|| self.lookup_in(self.krate_root(m), name, ns, false));
                if v.is_empty() { Err(None) } else { Ok(v) }
            }
        }
    }

    /// `NAME_NOT_RESOLVED` for `name` in module `m`.
    pub(super) fn name_not_resolved(&self, m: ModId, name: &str) -> PathRes {
        PathRes::Missing(Missing {
            reason: NAME_NOT_RESOLVED,
            package: self.pkg_name(m),
            symbol: name.into(),
        })
    }

    pub(super) fn lookup_blocks(&self, mut m: ModId, name: &str, ns: Ns) -> Vec<Def> {
        while self.mods[m].block {
            let (v, _, _) = self.deeper(|| self.lookup_in(m, name, ns, false));
            if !v.is_empty() {
                return v;
            }
            match self.mods[m].parent {
                Some(p) => m = p,
                None => break,
            }
        }
        Vec::new()
    }
}
