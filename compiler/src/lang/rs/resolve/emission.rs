//! Emission: the structural edges of impls and traits, and every `use` leaf and reference
//! bound to its targets (through [`crate::emit`]) or recorded as unresolved.

use kivgraph_format::{Confidence, EdgeKind, Provenance, SymbolKind};

use super::super::extract::{Leaf, Ns, RefKind, What};
use super::{Def, Missing, PathRes, Place, Resolver, Rt, Structural, is_fn, site};
use crate::emit::reason::{RECEIVER_TYPE_UNKNOWN, SYSROOT_SOURCE_MISSING};
use crate::emit::{self, NameOnly, Request};
use crate::facts::{FileId, PackageId, RepoId, SymbolId};

impl Resolver<'_> {
    /// Records an edge at `p` of `file`; an exact binding into another, non-derived
    /// repository is `EXACT_PACKAGE_MAPPED` ([`Self::package_mapped`]).
    pub(super) fn edge(
        &mut self,
        (source, target): (SymbolId, SymbolId),
        kind: EdgeKind,
        (confidence, provenance): (Confidence, Provenance),
        (file, p): (FileId, (u32, u32)),
    ) {
        let (from, to) = (
            self.facts.symbols[source].repo,
            self.facts.symbols[target].repo,
        );
        let (confidence, provenance) = if self.opaque && confidence.is_exact() {
            (Confidence::Candidate, Provenance::RustMacroArgument)
        } else {
            (confidence, provenance)
        };
        let confidence = if confidence == Confidence::ExactDeclarationMapped {
            emit::exact(!self.package_mapped(from, to))
        } else {
            confidence
        };
        emit::edge(
            self.facts,
            (source, target),
            kind,
            (confidence, provenance),
            site(from, file, p),
        );
    }

    pub(super) fn emit_structural(&mut self) {
        let mut out: Vec<Structural> = Vec::new();
        for inst in 0..self.insts.len() {
            let pf = self.insts[inst].pf;
            let file = self.files[pf].file;
            let f = &self.files[pf].rs;
            for (i, it) in f.items.iter().enumerate() {
                let Some(sym) = self.insts[inst].syms[i] else {
                    continue;
                };
                if !is_fn(it.kind) {
                    continue;
                }
                let Some(p) = it.parent else { continue };
                let Some(ps) = self.insts[inst].syms[p] else {
                    continue;
                };
                let at = (it.span.start_line, it.span.start_column);
                match self.facts.symbols[ps].kind {
                    SymbolKind::Trait => out.push((sym, ps, EdgeKind::MethodOf, file, at)),
                    SymbolKind::Implementation => {
                        let Some(ii) = f
                            .impls
                            .iter()
                            .position(|im| im.item == p)
                            .and_then(|x| self.insts[inst].impls[x])
                        else {
                            continue;
                        };
                        let imp = &self.impls[ii];
                        if let Some(t) = imp.self_target {
                            out.push((sym, t, EdgeKind::MethodOf, file, at));
                        }
                        if let Some(tr) = imp.trait_target {
                            for tm in self.trait_items(tr, &it.name) {
                                let tk = self.item_of(tm);
                                if is_fn(tk.kind) {
                                    let kind = if tk.default_body {
                                        EdgeKind::Overrides
                                    } else {
                                        EdgeKind::Implements
                                    };
                                    out.push((sym, tm, kind, file, at));
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            for (x, im) in f.impls.iter().enumerate() {
                let Some(ii) = self.insts[inst].impls[x] else {
                    continue;
                };
                let imp = &self.impls[ii];
                if let (Some(s), Some(t)) = (imp.self_target, imp.trait_target) {
                    out.push((s, t, EdgeKind::Implements, file, im.trait_pos));
                }
            }
        }
        for (s, t, k, file, at) in out {
            self.edge(
                (s, t),
                k,
                (Confidence::StructuralCertain, Provenance::RustDeclaration),
                (file, at),
            );
        }
    }

    /// Records `miss` at `p` of `file`; a `SYSROOT_SOURCE_MISSING` record says why the standard
    /// library is missing.
    pub(super) fn unresolved(
        &mut self,
        repo: RepoId,
        file: FileId,
        p: (u32, u32),
        miss: Missing,
        source: SymbolId,
    ) {
        let detail = (miss.reason == SYSROOT_SOURCE_MISSING).then(|| self.sysroot_missing.clone());
        let request = Request {
            package: miss.package,
            symbol: Some(miss.symbol),
            detail,
        };
        emit::unresolved(
            self.facts,
            site(repo, file, p),
            miss.reason,
            request,
            Some(source),
        );
    }

    pub(super) fn def_sym(&self, d: Def) -> Option<SymbolId> {
        match d {
            Def::Sym(s) => Some(s),
            Def::Mod(m) => Some(self.mods[m].symbol),
            Def::Local => None,
        }
    }

    /// Whether a binding from repository `from` into `to` went through a Cargo dependency
    /// (`EXACT_PACKAGE_MAPPED`): across repositories, except into the standard library, a
    /// derived repository reached through the toolchain, not a manifest.
    pub(super) fn package_mapped(&self, from: RepoId, to: RepoId) -> bool {
        from != to && !self.facts.repos[to].derived
    }

    pub(super) fn pkg_edge(&mut self, from: PackageId, to_sym: SymbolId) {
        let to = self.facts.symbols[to_sym].package;
        if from == to {
            return;
        }
        let cross =
            self.package_mapped(self.facts.packages[from].repo, self.facts.packages[to].repo);
        emit::package_edge(
            self.facts,
            (from, to),
            !cross,
            Provenance::RustUseDependency,
        );
    }

    /// The type a path's prefix names (`Gadget` of `Gadget::build()`, `Shape` of `Shape::Dot`)
    /// is used too: a `REFERENCES` edge to it when the prefix resolves to exactly one type
    /// (SPEC 14.4). A module prefix and `Self` are not.
    fn emit_type_prefix(
        &mut self,
        ctx: Place,
        segs: &[String],
        source: SymbolId,
        at: (FileId, (u32, u32)),
    ) {
        let Some((_, prefix)) = segs.split_last() else {
            return;
        };
        if prefix.is_empty() || prefix == ["Self"] {
            return;
        }
        let PathRes::Found(v, prov) = self.resolve_path(ctx, prefix, Ns::Type, false) else {
            return;
        };
        let types: Vec<SymbolId> = v
            .iter()
            .filter_map(|d| self.def_sym(*d))
            .filter(|&t| {
                matches!(
                    self.facts.symbols[t].kind,
                    SymbolKind::Struct
                        | SymbolKind::Enum
                        | SymbolKind::Union
                        | SymbolKind::Trait
                        | SymbolKind::TypeAlias
                )
            })
            .collect();
        if let [t] = types[..] {
            let how = (Confidence::ExactDeclarationMapped, prov);
            self.edge((source, t), EdgeKind::References, how, at);
        }
    }

    pub(super) fn emit_refs(&mut self) {
        for inst in 0..self.insts.len() {
            let repo = self.files[self.insts[inst].pf].repo;
            if self.skip_derived && self.facts.repos[repo].derived {
                continue;
            }
            self.emit_inst(inst);
        }
    }

    pub(super) fn emit_inst(&mut self, inst: usize) {
        let pf = self.insts[inst].pf;
        let (repo, file) = (self.files[pf].repo, self.files[pf].file);
        // Uses.
        let nu = self.files[pf].rs.uses.len();
        for ui in 0..nu {
            self.fresh();
            let (module, source_item, public, p, is_glob, segs) = {
                let u = &self.files[pf].rs.uses[ui];
                (
                    u.module,
                    u.source,
                    u.exported,
                    u.pos,
                    matches!(u.leaf, Leaf::Glob),
                    u.segs.clone(),
                )
            };
            let Some(m) = self.insts[inst].mods[module] else {
                continue;
            };
            let source = source_item
                .and_then(|i| self.insts[inst].syms[i])
                .unwrap_or(self.mods[m].symbol);
            let kind = if public {
                EdgeKind::Reexports
            } else {
                EdgeKind::ImportsSymbol
            };
            let pkg = self.mods[m].package;
            let results: Vec<PathRes> = if is_glob {
                vec![self.resolve_segs(m, &segs, Ns::Type, true)]
            } else {
                [Ns::Type, Ns::Value, Ns::Macro]
                    .iter()
                    .map(|&ns| self.resolve_use(m, ui, ns))
                    .collect()
            };
            let mut any = false;
            let mut miss: Option<Missing> = None;
            for r in results {
                match r {
                    PathRes::Found(v, _) => {
                        let targets: Vec<SymbolId> =
                            v.iter().filter_map(|d| self.def_sym(*d)).collect();
                        if v.contains(&Def::Local) {
                            any = true;
                        }
                        let conf = if targets.len() == 1 {
                            Confidence::ExactDeclarationMapped
                        } else {
                            Confidence::Candidate
                        };
                        for t in targets {
                            any = true;
                            self.edge((source, t), kind, (conf, Provenance::RustPath), (file, p));
                            self.pkg_edge(pkg, t);
                        }
                    }
                    PathRes::Missing(mi) => {
                        if miss.is_none() {
                            miss = Some(mi);
                        }
                    }
                    PathRes::Ignore => any = true,
                }
            }
            if !any && let Some(mi) = miss {
                self.unresolved(repo, file, p, mi, source);
            }
        }
        // References.
        let nr = self.files[pf].rs.refs.get().len();
        for ri in 0..nr {
            self.fresh();
            self.opaque = self.files[pf].rs.refs.get()[ri].opaque_macro_arg;
            let (module, source_item, selfc, kind, what, p, prefix_pos, in_macro_def) = {
                let r = &self.files[pf].rs.refs.get()[ri];
                (
                    r.module,
                    r.source,
                    r.selfc,
                    r.kind,
                    r.what.clone(),
                    r.pos,
                    r.prefix_pos,
                    r.in_macro_def,
                )
            };
            let Some(m) = self.insts[inst].mods[module] else {
                continue;
            };
            let source = source_item
                .and_then(|i| self.insts[inst].syms[i])
                .unwrap_or(self.mods[m].symbol);
            let ctx = Place {
                module: m,
                inst,
                selfc,
            };
            let pkg = self.mods[m].package;
            match what {
                What::Path(segs, ns) => {
                    let mut res = self.resolve_path(ctx, &segs, ns, false);
                    if kind == RefKind::Derive && !matches!(res, PathRes::Found(..)) {
                        let as_macro = self.resolve_path(ctx, &segs, Ns::Macro, false);
                        if matches!(as_macro, PathRes::Found(..)) {
                            res = as_macro;
                        }
                    }
                    // A macro's expansion resolves its names where it is invoked; only
                    // `$crate::…` paths are bound here for certain.
                    let hygienic = !in_macro_def || segs[0] == "$crate";
                    if !hygienic && matches!(res, PathRes::Missing(_)) {
                        continue;
                    }
                    match res {
                        PathRes::Found(v, prov) => {
                            let targets: Vec<SymbolId> =
                                v.iter().filter_map(|d| self.def_sym(*d)).collect();
                            let exact = targets.len() == 1 && hygienic;
                            for t in targets {
                                let tk = self.facts.symbols[t].kind;
                                let ek = match kind {
                                    RefKind::Call => EdgeKind::CallsDirect,
                                    RefKind::Type => EdgeKind::TypeUses,
                                    RefKind::Extends => EdgeKind::Extends,
                                    RefKind::Arg if is_fn(tk) => EdgeKind::PassesAsCallback,
                                    _ => EdgeKind::References,
                                };
                                let (conf, prov) = match (exact, kind) {
                                    (true, RefKind::Extends) => {
                                        (Confidence::StructuralCertain, Provenance::RustDeclaration)
                                    }
                                    (true, _) => (Confidence::ExactDeclarationMapped, prov),
                                    (false, _) => (Confidence::Candidate, prov),
                                };
                                self.edge((source, t), ek, (conf, prov), (file, p));
                                if segs.len() > 1 && exact {
                                    self.pkg_edge(pkg, t);
                                }
                            }
                        }
                        // A name among a macro's tokens may be anything the expansion makes
                        // of it (a field name, a binding): binding nothing records nothing.
                        PathRes::Missing(_) if self.opaque => {}
                        PathRes::Missing(mi) => self.unresolved(repo, file, p, mi, source),
                        PathRes::Ignore => {}
                    }
                    // The type the prefix names is used whatever its member turns out to be
                    // (`Builder::default()`, a derived or a library trait's method).
                    if hygienic && let Some(pp) = prefix_pos {
                        self.emit_type_prefix(ctx, &segs, source, (file, pp));
                    }
                }
                What::Qual(ty, tr, name) => {
                    let trt = self.eval_ty(&tr, ctx);
                    let Rt::Traits(ts) = trt else { continue };
                    let st = self.eval_ty(&ty, ctx);
                    let mut targets: Vec<SymbolId> = Vec::new();
                    if let Rt::Sym(s) = st {
                        for &ii in self.trait_impls.get(&s).into_iter().flatten() {
                            if self.impls[ii].trait_target.is_some_and(|t| ts.contains(&t)) {
                                targets.extend(
                                    self.impls[ii]
                                        .members
                                        .get(&name)
                                        .into_iter()
                                        .flatten()
                                        .copied(),
                                );
                            }
                        }
                    }
                    if targets.is_empty() {
                        for t in &ts {
                            targets.extend(self.trait_items(*t, &name));
                        }
                    }
                    let exact = targets.len() == 1 && !in_macro_def;
                    for t in targets {
                        let ek = match kind {
                            RefKind::Call => EdgeKind::CallsDirect,
                            RefKind::Type => EdgeKind::TypeUses,
                            RefKind::Arg if is_fn(self.facts.symbols[t].kind) => {
                                EdgeKind::PassesAsCallback
                            }
                            _ => EdgeKind::References,
                        };
                        let conf = if exact {
                            Confidence::ExactDeclarationMapped
                        } else {
                            Confidence::Candidate
                        };
                        self.edge((source, t), ek, (conf, Provenance::RustPath), (file, p));
                    }
                }
                What::Member(recv, name, call) => {
                    if name.chars().all(|c| c.is_ascii_digit()) && !call {
                        // A tuple field: only through a written type.
                        let rt = self.recv_rt(&recv, ctx);
                        let (v, _) = self.members(&rt, &name, false);
                        if v.len() == 1 {
                            self.edge(
                                (source, v[0]),
                                EdgeKind::References,
                                (
                                    Confidence::ExactDeclarationMapped,
                                    Provenance::RustReceiverTyped,
                                ),
                                (file, p),
                            );
                        }
                        continue;
                    }
                    let ek = if call {
                        EdgeKind::CallsDirect
                    } else {
                        EdgeKind::References
                    };
                    let rt = self.recv_rt(&recv, ctx);
                    let (v, _) = self.members(&rt, &name, call);
                    if !v.is_empty() {
                        let conf = if v.len() == 1 {
                            Confidence::ExactDeclarationMapped
                        } else {
                            Confidence::Candidate
                        };
                        for t in v {
                            self.edge(
                                (source, t),
                                ek,
                                (conf, Provenance::RustReceiverTyped),
                                (file, p),
                            );
                        }
                        continue;
                    }
                    let k = self.mods[m].krate;
                    let cands = self.name_only(k, &name, call);
                    match emit::name_only(cands) {
                        NameOnly::Candidates(cands) => {
                            for t in cands {
                                self.edge(
                                    (source, t),
                                    ek,
                                    (Confidence::Candidate, Provenance::RustNameOnly),
                                    (file, p),
                                );
                            }
                        }
                        // Rust's records carry no detail (only the sysroot's do).
                        NameOnly::Unresolved { .. } => {
                            let miss = Missing {
                                reason: RECEIVER_TYPE_UNKNOWN,
                                package: self.pkg_name(m),
                                symbol: name,
                            };
                            self.unresolved(repo, file, p, miss, source);
                        }
                    }
                }
            }
        }
        self.opaque = false;
    }
}
