//! First path segments: the enclosing blocks and module, textual macro scope, extern crates
//! (the standard library, the package's library, dependencies) and the prelude.

use std::collections::BTreeSet;

use kivgraph_format::Provenance;

use super::super::extract::{Ns, PRIMITIVES, SelfCtx};
use super::super::project::CrateKind;
use super::{Crate, Def, Missing, ModId, PathRes, Place, Resolver, STD_CRATES};
use crate::emit::reason::{CRATE_PROVIDER_NOT_FOUND, SYSROOT_SOURCE_MISSING};
use crate::facts::{RepoId, SymbolId};

/// The standard prelude's names, used when no derived repository provides the standard library.
const PRELUDE_TYPES: &[&str] = &[
    "Option",
    "Result",
    "Vec",
    "String",
    "Box",
    "ToString",
    "ToOwned",
    "Clone",
    "Copy",
    "Default",
    "Iterator",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Extend",
    "FromIterator",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "AsRef",
    "AsMut",
    "Debug",
    "Hash",
];
const PRELUDE_VALUES: &[&str] = &["Some", "None", "Ok", "Err", "drop"];
const PRELUDE_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "vec",
    "format",
    "format_args",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "write",
    "writeln",
    "unreachable",
    "unimplemented",
    "todo",
    "matches",
    "dbg",
    "concat",
    "stringify",
    "include",
    "include_str",
    "include_bytes",
    "env",
    "option_env",
    "line",
    "column",
    "file",
    "module_path",
    "cfg",
    "compile_error",
    "thread_local",
    "try",
    "global_asm",
    "asm",
    "concat_idents",
    "trace_macros",
    "log_syntax",
    "is_x86_feature_detected",
];

impl Resolver<'_> {
    /// An extern crate name seen from crate `k`: `Ok(root)`, `Err(missing)`, or `None` when
    /// the name is no crate.
    pub(super) fn extern_crate(&self, k: usize, name: &str) -> Option<Result<ModId, Missing>> {
        let key = (k, name.to_string());
        if let Some(r) = self.extern_memo.borrow().get(&key) {
            return r.clone();
        }
        let r = self.extern_crate_uncached(k, name);
        self.extern_memo.borrow_mut().insert(key, r.clone());
        r
    }

    pub(super) fn extern_crate_uncached(
        &self,
        k: usize,
        name: &str,
    ) -> Option<Result<ModId, Missing>> {
        let c = &self.crates[k].def;
        if STD_CRATES.contains(&name) {
            return Some(match self.std_roots.get(name) {
                Some(&r) => Ok(r),
                None => Err(Missing {
                    reason: SYSROOT_SOURCE_MISSING,
                    package: name.into(),
                    symbol: name.into(),
                }),
            });
        }
        if (c.kind != CrateKind::Lib || name == c.name)
            && let Some(l) = self.crates.iter().find(|o| {
                o.def.repo == c.repo
                    && o.def.package == c.package
                    && o.def.kind == CrateKind::Lib
                    && o.def.name == name
            })
            && let Some(r) = l.root
        {
            return Some(Ok(r));
        }
        // Dependencies: a workspace sibling of the same repository first, else the one other
        // repository whose library has that package name.
        let mut named_dep = false;
        for (key, (pkg, renamed)) in &c.deps {
            let provider = self
                .crates
                .iter()
                .find(|o| {
                    o.def.kind == CrateKind::Lib
                        && &o.def.package == pkg
                        && o.def.repo == c.repo
                        && o.root.is_some()
                })
                .or_else(|| {
                    let others: Vec<&Crate> = self
                        .crates
                        .iter()
                        .filter(|o| {
                            o.def.kind == CrateKind::Lib
                                && &o.def.package == pkg
                                && o.root.is_some()
                        })
                        .collect();
                    let repos: BTreeSet<RepoId> = others.iter().map(|o| o.def.repo).collect();
                    if repos.len() == 1 {
                        others.first().copied()
                    } else {
                        None
                    }
                });
            match provider {
                Some(o) => {
                    let ext = if *renamed {
                        key.as_str()
                    } else {
                        o.def.name.as_str()
                    };
                    if ext == name {
                        return Some(Ok(o.root.unwrap()));
                    }
                }
                None => named_dep |= key == name,
            }
        }
        if named_dep {
            return Some(Err(Missing {
                reason: CRATE_PROVIDER_NOT_FOUND,
                package: name.into(),
                symbol: name.into(),
            }));
        }
        None
    }

    pub(super) fn self_target(&self, ctx_inst: usize, selfc: Option<SelfCtx>) -> Option<SymbolId> {
        match selfc? {
            SelfCtx::Impl(i) => {
                let ii = self.insts.get(ctx_inst)?.impls.get(i).copied().flatten()?;
                self.impls[ii].self_target
            }
            SelfCtx::Trait(item) => self.insts.get(ctx_inst)?.syms.get(item).copied().flatten(),
        }
    }

    /// The lexical lookup of a first path segment.
    pub(super) fn lookup_scope(&self, ctx: Place, name: &str, ns: Ns) -> PathRes {
        let mut m = ctx.module;
        let mut open: Option<Missing> = None;
        loop {
            let (v, via_use, miss) = self.depth.fresh(|| self.lookup_in(m, name, ns, false));
            if !v.is_empty() {
                let prov = if via_use {
                    Provenance::RustPath
                } else {
                    Provenance::RustScope
                };
                return PathRes::Found(v, prov);
            }
            if miss.is_some() && open.is_none() {
                open = miss;
            }
            if !self.mods[m].block {
                break;
            }
            match self.mods[m].parent {
                Some(p) => m = p,
                None => break,
            }
        }
        let k = self.mods[m].krate;
        if ns == Ns::Macro {
            // Textual scope: macros of the enclosing modules, then the crate's.
            let mut a = self.mods[m].parent;
            while let Some(p) = a {
                if let Some(v) = self.mods[p].ns[2].get(name) {
                    return PathRes::Found(v.clone(), Provenance::RustScope);
                }
                a = self.mods[p].parent;
            }
            // The crate's other macros of that name (`#[macro_use]` reach), unless the name is
            // a standard macro, which a macro outside the textual scope does not shadow.
            let standard = PRELUDE_MACROS.contains(&name)
                || ["std", "core", "alloc"].iter().any(|c| {
                    self.std_roots
                        .get(*c)
                        .is_some_and(|&r| self.mods[r].ns[2].contains_key(name))
                });
            if let Some(v) = self
                .macro_index
                .get(&(k, name.to_string()))
                .filter(|_| !standard)
            {
                return PathRes::Found(
                    v.iter().map(|s| Def::Sym(*s)).collect(),
                    Provenance::RustScope,
                );
            }
            // `#[macro_use] extern crate` and exported macros of the crate's dependencies.
            let mut found = Vec::new();
            for dep in self.crates[k].def.deps.keys() {
                if let Some(Ok(r)) = self.extern_crate(k, dep)
                    && let Some(v) = self.mods[r].ns[2].get(name)
                {
                    found.extend(v.iter().copied().filter(|d| self.def_exported(*d)));
                }
            }
            if !found.is_empty() {
                return PathRes::Found(found, Provenance::RustPath);
            }
            for s in ["std", "core", "alloc"] {
                if let Some(&r) = self.std_roots.get(s)
                    && let Some(v) = self.mods[r].ns[2].get(name)
                {
                    return PathRes::Found(v.clone(), Provenance::RustPath);
                }
            }
            if self.std_roots.is_empty() && PRELUDE_MACROS.contains(&name) {
                return PathRes::Missing(Missing {
                    reason: SYSROOT_SOURCE_MISSING,
                    package: "std".into(),
                    symbol: name.into(),
                });
            }
        }
        if ns == Ns::Type {
            if PRIMITIVES.contains(&name) {
                return PathRes::Ignore;
            }
            match self.extern_crate(k, name) {
                Some(Ok(r)) => return PathRes::Found(vec![Def::Mod(r)], Provenance::RustPath),
                Some(Err(miss)) => return PathRes::Missing(miss),
                None => {}
            }
        }
        let edition = &self.crates[k].def.edition;
        let prelude = self
            .prelude
            .get(edition)
            .or_else(|| self.prelude.get(""))
            .copied();
        if let Some(p) = prelude {
            let (v, _, _) = self.depth.fresh(|| self.lookup_in(p, name, ns, true));
            if !v.is_empty() {
                return PathRes::Found(v, Provenance::RustPath);
            }
        } else {
            let list = match ns {
                Ns::Type => PRELUDE_TYPES,
                Ns::Value => PRELUDE_VALUES,
                Ns::Macro => &[][..],
            };
            if list.contains(&name) {
                return PathRes::Missing(Missing {
                    reason: SYSROOT_SOURCE_MISSING,
                    package: "std".into(),
                    symbol: name.into(),
                });
            }
        }
        if let Some(o) = open {
            return PathRes::Missing(Missing {
                symbol: name.into(),
                ..o
            });
        }
        self.name_not_resolved(ctx.module, name)
    }
}
