//! Impls and associated items: what an impl is for, `Type::item` and `x.m()` through
//! variants, inherent and trait impls and supertraits, and the name-only candidates.

use crate::hash::HashMap;
use std::collections::BTreeSet;

use kivgraph_format::SymbolKind;

use super::super::project::CrateKind;
use super::{ImplInfo, MAX_DEPTH, NameIndex, Place, Resolver, Rt, is_fn};
use crate::emit::MAX_CANDIDATES;
use crate::facts::SymbolId;

/// Impl blocks of one type beyond which its items are looked up by name (a crate that wrote
/// 8,000 impl blocks for one type took 0.3 s to resolve, each method call looking through all).
const MANY_IMPLS: usize = 32;

impl Resolver<'_> {
    /// `Type::name`: variants, then inherent impl items, then trait impl items, then the items
    /// of the traits it implements (default methods), or of the trait itself.
    pub(super) fn assoc(&self, s: SymbolId, name: &str) -> Vec<SymbolId> {
        self.assoc_by(s, name, false)
    }

    /// A fn with a `self` parameter: callable as `x.m()`.
    pub(super) fn is_method(&self, s: SymbolId) -> bool {
        is_fn(self.facts.symbols[s].kind) && self.info.contains_key(&s) && self.item_of(s).has_self
    }

    /// [`Self::assoc`], keeping only methods when `methods` (method-call syntax).
    pub(super) fn assoc_by(&self, s: SymbolId, name: &str, methods: bool) -> Vec<SymbolId> {
        let keep = |v: &mut Vec<SymbolId>| {
            if methods {
                v.retain(|c| self.is_method(*c));
            }
        };
        if self.depth.get() > MAX_DEPTH {
            return Vec::new();
        }
        let kind = self.facts.symbols[s].kind;
        if kind == SymbolKind::TypeAlias {
            let ctx = self.place_of(s);
            let ty = self.item_of(s).ty.clone();
            if let Some(ty) = ty
                && let Rt::Sym(t) = self.deeper(|| self.eval_ty(&ty, ctx))
            {
                return self.deeper(|| self.assoc_by(t, name, methods));
            }
            return Vec::new();
        }
        if kind == SymbolKind::Enum
            && !methods
            && let Some(v) = self.info.get(&s).and_then(|i| i.children.get(name))
        {
            return v.clone();
        }
        if kind == SymbolKind::Trait {
            let mut v = self.depth.fresh(|| self.trait_items(s, name));
            keep(&mut v);
            return v;
        }
        // Inherent impls first, then trait impls: the first that declares the name wins.
        for (impls, many) in [&self.inherent, &self.trait_impls]
            .into_iter()
            .zip(&self.many_impls)
        {
            let mut out: Vec<SymbolId> = match many.get(&s) {
                Some(by_name) => by_name.get(name).cloned().unwrap_or_default(),
                None => impls
                    .get(&s)
                    .into_iter()
                    .flatten()
                    .flat_map(|&ii| {
                        self.impls[ii]
                            .members
                            .get(name)
                            .into_iter()
                            .flatten()
                            .copied()
                    })
                    .collect(),
            };
            keep(&mut out);
            if !out.is_empty() {
                return out;
            }
        }
        let mut out = Vec::new();
        let traits: BTreeSet<SymbolId> = self
            .trait_impls
            .get(&s)
            .into_iter()
            .flatten()
            .filter_map(|&ii| self.impls[ii].trait_target)
            .collect();
        for t in traits {
            out.extend(self.depth.fresh(|| self.trait_items(t, name)));
        }
        keep(&mut out);
        out.sort();
        out.dedup();
        out
    }

    pub(super) fn trait_items(&self, t: SymbolId, name: &str) -> Vec<SymbolId> {
        if self.depth.get() > 16 {
            return Vec::new();
        }
        if let Some(v) = self.info.get(&t).and_then(|i| i.children.get(name)) {
            return v.clone();
        }
        let mut out = Vec::new();
        for &sup in self.supers.get(&t).into_iter().flatten() {
            if sup != t {
                out.extend(self.deeper(|| self.trait_items(sup, name)));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    pub(super) fn place_of(&self, s: SymbolId) -> Place {
        let inf = &self.info[&s];
        let selfc = self.files[self.insts[inf.inst].pf].rs.items[inf.item].selfc;
        Place {
            module: inf.module,
            inst: inf.inst,
            selfc,
        }
    }

    /// Members named `name` of a receiver type: (found, exact when exactly one).
    pub(super) fn members(&self, rt: &Rt, name: &str, call: bool) -> (Vec<SymbolId>, bool) {
        match rt {
            Rt::Sym(s) => {
                if !call {
                    let v: Vec<SymbolId> = self
                        .info
                        .get(s)
                        .and_then(|i| i.children.get(name))
                        .into_iter()
                        .flatten()
                        .copied()
                        .filter(|c| self.facts.symbols[*c].kind == SymbolKind::Field)
                        .collect();
                    return (v, true);
                }
                let v: Vec<SymbolId> = self.depth.fresh(|| self.assoc_by(*s, name, true));
                (v, true)
            }
            Rt::Traits(ts) => {
                if !call {
                    return (Vec::new(), false);
                }
                let mut v = Vec::new();
                for t in ts {
                    v.extend(
                        self.depth
                            .fresh(|| self.trait_items(*t, name))
                            .into_iter()
                            .filter(|c| self.is_method(*c)),
                    );
                }
                v.sort();
                v.dedup();
                (v, true)
            }
            Rt::Unknown => (Vec::new(), false),
        }
    }

    /// The crates whose members are name-only candidates for crate `k`: itself, the library of
    /// its Cargo package, and the crates its dependencies resolve to.
    pub(super) fn crate_set(&self, k: usize) -> Vec<usize> {
        if let Some(v) = self.crate_sets.borrow().get(&k) {
            return v.clone();
        }
        let mut crates: BTreeSet<usize> = BTreeSet::new();
        crates.insert(k);
        let c = &self.crates[k].def;
        for (ci, o) in self.crates.iter().enumerate() {
            if o.def.repo == c.repo && o.def.package == c.package && o.def.kind == CrateKind::Lib {
                crates.insert(ci);
            }
        }
        let deps: Vec<String> = c.deps.keys().cloned().collect();
        for dep in deps {
            if let Some(Ok(r)) = self.extern_crate(k, &dep) {
                crates.insert(self.mods[r].krate);
            }
        }
        let v: Vec<usize> = crates.into_iter().collect();
        self.crate_sets.borrow_mut().insert(k, v.clone());
        v
    }

    pub(super) fn name_only(&self, k: usize, name: &str, call: bool) -> Vec<SymbolId> {
        if self.name_index.borrow().is_none() {
            let mut m: NameIndex = HashMap::default();
            for (s, inf) in &self.info {
                let kind = self.facts.symbols[*s].kind;
                let call = if self.is_method(*s) {
                    true
                } else if kind == SymbolKind::Field {
                    false
                } else {
                    continue;
                };
                let krate = self.mods[inf.module].krate;
                m.entry((krate, call, self.facts.symbols[*s].name.clone()))
                    .or_default()
                    .push(*s);
            }
            *self.name_index.borrow_mut() = Some(m);
        }
        let crates = self.crate_set(k);
        let idx = self.name_index.borrow();
        let idx = idx.as_ref().unwrap();
        let mut out = Vec::new();
        for c in crates {
            if let Some(v) = idx.get(&(c, call, name.to_string())) {
                out.extend(v.iter().copied());
                if out.len() > MAX_CANDIDATES {
                    break;
                }
            }
        }
        out.sort();
        out
    }

    pub(super) fn resolve_impls(&mut self) {
        for inst in 0..self.insts.len() {
            let pf = self.insts[inst].pf;
            for (ii, imp) in self.files[pf].rs.impls.iter().enumerate() {
                self.fresh();
                let Some(sym) = self.insts[inst].syms[imp.item] else {
                    continue;
                };
                let it = &self.files[pf].rs.items[imp.item];
                let Some(module) = self.insts[inst].mods[it.module] else {
                    continue;
                };
                let ctx = Place {
                    module,
                    inst,
                    selfc: None,
                };
                let self_target = match self.eval_ty(&imp.self_ty, ctx) {
                    Rt::Sym(s) => Some(s),
                    Rt::Traits(v) if v.len() == 1 => Some(v[0]),
                    _ => None,
                };
                let trait_target = imp
                    .trait_
                    .as_ref()
                    .and_then(|t| match self.eval_ty(t, ctx) {
                        Rt::Traits(v) if v.len() == 1 => Some(v[0]),
                        _ => None,
                    });
                let members = self
                    .info
                    .get(&sym)
                    .map(|i| i.children.clone())
                    .unwrap_or_default();
                let idx = self.impls.len();
                self.impls.push(ImplInfo {
                    self_target,
                    trait_target,
                    members,
                });
                self.insts[inst].impls[ii] = Some(idx);
                if let Some(t) = self_target {
                    if imp.trait_.is_some() {
                        self.trait_impls.entry(t).or_default().push(idx);
                    } else {
                        self.inherent.entry(t).or_default().push(idx);
                    }
                }
            }
            // Supertraits.
            for (i, it) in self.files[pf].rs.items.iter().enumerate() {
                if it.kind != SymbolKind::Trait || it.supers.is_empty() {
                    continue;
                }
                let (Some(sym), Some(module)) =
                    (self.insts[inst].syms[i], self.insts[inst].mods[it.module])
                else {
                    continue;
                };
                let ctx = Place {
                    module,
                    inst,
                    selfc: None,
                };
                let mut v = Vec::new();
                for t in &it.supers {
                    self.fresh();
                    if let Rt::Traits(ts) = self.eval_ty(t, ctx) {
                        v.extend(ts);
                    }
                }
                self.supers.insert(sym, v);
            }
        }
        // Every impl is known now: the types with many impl blocks get their items by name.
        for (k, impls) in [&self.inherent, &self.trait_impls].into_iter().enumerate() {
            for (&t, list) in impls.iter().filter(|(_, l)| l.len() > MANY_IMPLS) {
                let mut by_name: HashMap<String, Vec<SymbolId>> = HashMap::default();
                for &ii in list {
                    for (name, items) in &self.impls[ii].members {
                        by_name.entry(name.clone()).or_default().extend(items);
                    }
                }
                self.many_impls[k].insert(t, by_name);
            }
        }
        self.memo.borrow_mut().clear();
    }
}
