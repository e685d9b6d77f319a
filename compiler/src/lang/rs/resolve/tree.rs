//! The module tree: each crate's files from its root through `mod` declarations, their
//! packages and module symbols, the items and `use`s of every module, and the standard
//! library's crates and prelude.

use crate::hash::{HashMap, HashSet};

use kivgraph_format::{FileStatus, Language, SymbolKind};

use super::super::extract::Ns;
use super::super::extract::{Leaf, What};
use super::super::project::CrateKind;
use super::super::project::{join, parent as parent_dir};
use super::{
    Def, FileInstance, ModId, Module, Resolver, STD_CRATES, SymInfo, item_ns, ns_idx, site,
};
use crate::emit::reason::{MODULE_FILE_NOT_FOUND, NAME_IN_UNREAD_CODE};
use crate::emit::{self, Request};
use crate::facts::{Diagnostic, FileId, Package, PackageId, RepoId, SymbolId};
use crate::lang::Home;

impl Resolver<'_> {
    pub(super) fn build_tree(&mut self) {
        let by_path: HashMap<(RepoId, String), usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.repo, f.path.clone()), i))
            .collect();
        let mut reached: HashSet<usize> = HashSet::default();
        for ci in 0..self.crates.len() {
            let def = self.crates[ci].def.clone();
            let Some(&pf) = by_path.get(&(def.repo, def.root.clone())) else {
                continue;
            };
            // (file, parent module, name, mod-rs?, exported, decl span file) queue.
            let mut seen: HashMap<usize, ModId> = HashMap::default();
            let root_name = format!("{}{}", def.kind.prefix(), def.name);
            let root = self.instantiate(
                ci,
                pf,
                None,
                root_name,
                true,
                true,
                &by_path,
                &mut seen,
                &mut reached,
            );
            self.crates[ci].root = Some(root);
        }
        // A derived repository (the standard library) has hundreds of files no crate root of
        // the compiled configuration reaches: one line says how many.
        let mut derived_unreached: std::collections::BTreeMap<usize, usize> = Default::default();
        let mut unreached: Vec<usize> = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            if !reached.contains(&i) {
                self.facts.files[f.file].status = FileStatus::BuildExcluded;
                if self.facts.repos[f.repo].derived {
                    *derived_unreached.entry(f.repo.index()).or_default() += 1;
                    continue;
                }
                self.facts.diagnostics.push(Diagnostic {
                    repository: self.facts.repos[f.repo].name.clone(),
                    path: f.path.clone(),
                    message: "no crate root reaches this file (no `mod` declaration loads it)"
                        .into(),
                });
                unreached.push(i);
            }
        }
        // What such a file names could be a use of any same-named declaration in another
        // configuration (a feature or platform that loads it): each name, once per file, is a
        // `NAME_IN_UNREAD_CODE` blind spot, as in code the parser could not read.
        for i in unreached {
            let f = &self.files[i];
            let mut names: Vec<(&str, (u32, u32))> = Vec::new();
            for r in f.rs.refs.get() {
                match &r.what {
                    What::Path(segs, _) => {
                        names.extend(segs.iter().map(|s| (s.as_str(), r.pos)));
                    }
                    What::Qual(_, _, name) | What::Member(_, name, _) => {
                        names.push((name.as_str(), r.pos));
                    }
                }
            }
            for u in &f.rs.uses {
                names.extend(u.segs.iter().map(|s| (s.as_str(), u.pos)));
            }
            let mut seen: HashSet<&str> = HashSet::default();
            let unread: Vec<(String, (u32, u32))> = names
                .into_iter()
                .filter(|(n, _)| {
                    !matches!(*n, "crate" | "self" | "super" | "Self" | "std" | "core")
                        && seen.insert(n)
                })
                .map(|(n, p)| (n.to_string(), p))
                .take(crate::lang::MAX_UNREAD_NAMES)
                .collect();
            let (repo, file, path) = (f.repo, f.file, f.path.clone());
            for (name, pos) in unread {
                emit::unresolved(
                    self.facts,
                    site(repo, file, pos),
                    NAME_IN_UNREAD_CODE,
                    Request {
                        package: path.clone(),
                        symbol: Some(name),
                        detail: Some(
                            "written in a file no crate root reaches (no `mod` declaration \
                             loads it in the compiled configuration)"
                                .into(),
                        ),
                    },
                    None,
                );
            }
        }
        for (repo, n) in derived_unreached {
            self.facts.diagnostics.push(Diagnostic {
                repository: self.facts.repos[repo].name.clone(),
                path: ".".into(),
                message: format!(
                    "{n} files are reached by no crate root of the compiled configuration \
                     (tests, benches, other targets and platforms); recorded as build_excluded"
                ),
            });
        }
        // Macro index per crate, `#[macro_export]` macros at the crate root.
        for mi in 0..self.mods.len() {
            let m = &self.mods[mi];
            let krate = m.krate;
            let defs: Vec<SymbolId> = m.ns[2]
                .values()
                .flatten()
                .filter_map(|d| if let Def::Sym(s) = d { Some(*s) } else { None })
                .collect();
            for s in defs {
                let name = self.facts.symbols[s].name.clone();
                self.macro_index
                    .entry((krate, name.clone()))
                    .or_default()
                    .push(s);
                let exp = self.item_of(s).macro_export;
                if exp
                    && let Some(root) = self.crates[krate].root
                    && root != mi
                {
                    let e = self.mods[root].ns[2].entry(name).or_default();
                    if !e.contains(&Def::Sym(s)) {
                        e.push(Def::Sym(s));
                    }
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn instantiate(
        &mut self,
        ci: usize,
        pf: usize,
        parent: Option<ModId>,
        name: String,
        mod_rs: bool,
        exported: bool,
        by_path: &HashMap<(RepoId, String), usize>,
        seen: &mut HashMap<usize, ModId>,
        reached: &mut HashSet<usize>,
    ) -> ModId {
        reached.insert(pf);
        let inst = self.insts.len();
        let nmods = self.files[pf].rs.mods.len();
        let nitems = self.files[pf].rs.items.len();
        self.insts.push(FileInstance {
            pf,
            mods: vec![None; nmods],
            syms: vec![None; nitems],
            impls: vec![None; self.files[pf].rs.impls.len()],
        });
        let repo = self.files[pf].repo;
        let file = self.files[pf].file;
        let path = self.files[pf].path.clone();
        let cargo_pkg = self.crates[ci].def.package.clone();
        // Module names and directories.
        let mut pkg_names: Vec<String> = vec![String::new(); nmods];
        let mut dirs: Vec<String> = vec![String::new(); nmods];
        let base = parent.map_or(String::new(), |p| {
            self.facts.packages[self.mods[p].package].name.clone()
        });
        let file_pkg = if parent.is_some() {
            format!("{base}::{name}")
        } else {
            name.clone()
        };
        let stem = path
            .rsplit('/')
            .next()
            .unwrap_or("")
            .trim_end_matches(".rs")
            .to_string();
        let mut root_mod = 0;
        let mut pending: Vec<(usize, String, bool)> = Vec::new();
        for fm in 0..nmods {
            let (fparent, fname, inline, block, path_attr, fexp, span) = {
                let m = &self.files[pf].rs.mods[fm];
                (
                    m.parent,
                    m.name.clone(),
                    m.inline,
                    m.block,
                    m.path_attr.clone(),
                    m.exported,
                    m.span,
                )
            };
            let Some(fp) = fparent else {
                // The file root.
                pkg_names[0] = file_pkg.clone();
                dirs[0] = if mod_rs {
                    parent_dir(&path).to_string()
                } else {
                    join(parent_dir(&path), &stem)
                };
                let pid = self.package(repo, &file_pkg, &path, &cargo_pkg);
                if self.facts.files[file].package.is_none() {
                    self.facts.files[file].package = Some(pid);
                }
                let sym = self.push_symbol(
                    repo,
                    pid,
                    file,
                    name.rsplit("::").next().unwrap_or(&name).to_string(),
                    file_pkg.clone(),
                    SymbolKind::Module,
                    exported,
                    None,
                    span,
                );
                let mid = self.new_module(Module {
                    krate: ci,
                    parent,
                    inst,
                    package: pid,
                    symbol: sym,
                    exported,
                    ..Module::default()
                });
                self.insts[inst].mods[0] = Some(mid);
                root_mod = mid;
                seen.insert(pf, mid);
                continue;
            };
            let Some(pm) = self.insts[inst].mods[fp] else {
                continue;
            };
            if block {
                let (pkg, sym) = (self.mods[pm].package, self.mods[pm].symbol);
                let mid = self.new_module(Module {
                    krate: ci,
                    parent: Some(pm),
                    block: true,
                    inst,
                    package: pkg,
                    symbol: sym,
                    ..Module::default()
                });
                self.insts[inst].mods[fm] = Some(mid);
                pkg_names[fm] = pkg_names[fp].clone();
                dirs[fm] = dirs[fp].clone();
                continue;
            }
            let pname = format!("{}::{fname}", pkg_names[fp]);
            pkg_names[fm] = pname.clone();
            if inline {
                dirs[fm] = join(&dirs[fp], path_attr.as_deref().unwrap_or(&fname));
                let pid = self.package(repo, &pname, &path, &cargo_pkg);
                let sym = self.push_symbol(
                    repo,
                    pid,
                    file,
                    fname.clone(),
                    pname,
                    SymbolKind::Module,
                    fexp,
                    None,
                    span,
                );
                let mid = self.new_module(Module {
                    krate: ci,
                    parent: Some(pm),
                    inst,
                    package: pid,
                    symbol: sym,
                    exported: fexp,
                    ..Module::default()
                });
                self.insts[inst].mods[fm] = Some(mid);
                self.mods[pm].ns[0]
                    .entry(fname)
                    .or_default()
                    .push(Def::Mod(mid));
            } else {
                let real_parent = fp;
                let cands: Vec<(String, bool)> = match &path_attr {
                    Some(p) => {
                        let b = if real_parent == 0 {
                            parent_dir(&path).to_string()
                        } else {
                            dirs[real_parent].clone()
                        };
                        vec![(join(&b, p), true)]
                    }
                    None => vec![
                        (join(&dirs[real_parent], &format!("{fname}.rs")), false),
                        (join(&dirs[real_parent], &format!("{fname}/mod.rs")), true),
                    ],
                };
                let found = cands
                    .iter()
                    .find_map(|(c, mrs)| by_path.get(&(repo, c.clone())).map(|&i| (i, *mrs)));
                match found {
                    Some((child, _)) if seen.contains_key(&child) => {
                        let m = seen[&child];
                        self.mods[pm].ns[0]
                            .entry(fname)
                            .or_default()
                            .push(Def::Mod(m));
                    }
                    Some((child, mrs)) if self.depth.get() < 64 => pending.push((
                        fm,
                        fname.clone(),
                        mrs || child_is_mod_rs(&self.files[child].path),
                    )),
                    _ => {
                        self.mods[pm].ns[0]
                            .entry(fname.clone())
                            .or_default()
                            .push(Def::Local);
                        let source = self.mods[pm].symbol;
                        let detail = format!(
                            "looked for {}",
                            cands
                                .iter()
                                .map(|c| c.0.as_str())
                                .collect::<Vec<_>>()
                                .join(" and ")
                        );
                        emit::unresolved(
                            self.facts,
                            site(repo, file, (span.start_line, span.start_column)),
                            MODULE_FILE_NOT_FOUND,
                            Request {
                                package: pname,
                                symbol: Some(fname),
                                detail: Some(detail),
                            },
                            Some(source),
                        );
                    }
                }
            }
        }
        // Items of this file.
        self.add_items(inst, ci);
        // Child files.
        for (fm, fname, mrs) in pending {
            let (fp, path_attr, fexp) = {
                let m = &self.files[pf].rs.mods[fm];
                (m.parent.unwrap_or(0), m.path_attr.clone(), m.exported)
            };
            let Some(pm) = self.insts[inst].mods[fp] else {
                continue;
            };
            let cands: Vec<String> = match &path_attr {
                Some(p) => {
                    let b = if fp == 0 {
                        parent_dir(&path).to_string()
                    } else {
                        dirs[fp].clone()
                    };
                    vec![join(&b, p)]
                }
                None => vec![
                    join(&dirs[fp], &format!("{fname}.rs")),
                    join(&dirs[fp], &format!("{fname}/mod.rs")),
                ],
            };
            let Some(&child) = cands.iter().find_map(|c| by_path.get(&(repo, c.clone()))) else {
                continue;
            };
            if let Some(&m) = seen.get(&child) {
                self.mods[pm].ns[0]
                    .entry(fname)
                    .or_default()
                    .push(Def::Mod(m));
                continue;
            }
            self.depth.enter();
            let mid = self.instantiate(
                ci,
                child,
                Some(pm),
                fname.clone(),
                mrs,
                fexp,
                by_path,
                seen,
                reached,
            );
            self.depth.leave();
            self.mods[pm].ns[0]
                .entry(fname)
                .or_default()
                .push(Def::Mod(mid));
        }
        root_mod
    }

    /// The package of a module path; two modules of one path in a repository (`#[cfg]`
    /// alternatives, like-named crates of two workspace members) share it.
    pub(super) fn package(
        &mut self,
        repo: RepoId,
        name: &str,
        path: &str,
        cargo: &str,
    ) -> PackageId {
        if let Some(&p) = self.packages.get(&(repo, name.to_string())) {
            return p;
        }
        let pid = self.facts.push_package(Package {
            repo,
            language: Language::Rust,
            name: name.to_string(),
            path: path.to_string(),
            module: Some(cargo.to_string()),
        });
        self.packages.insert((repo, name.to_string()), pid);
        pid
    }

    /// Adds module `m` (its namespaces are still empty) and returns its id.
    pub(super) fn new_module(&mut self, m: Module) -> ModId {
        self.mods.push(m);
        self.mods.len() - 1
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_symbol(
        &mut self,
        repo: RepoId,
        package: PackageId,
        file: FileId,
        name: String,
        qn: String,
        kind: SymbolKind,
        exported: bool,
        sig: Option<String>,
        span: crate::lang::Span,
    ) -> SymbolId {
        let home = Home {
            repo,
            package,
            file,
            language: Language::Rust,
        };
        self.facts
            .push_symbol(home.symbol(name, qn, kind, exported, sig, span))
    }

    pub(super) fn add_items(&mut self, inst: usize, _ci: usize) {
        let pf = self.insts[inst].pf;
        let (repo, file) = (self.files[pf].repo, self.files[pf].file);
        let n = self.files[pf].rs.items.len();
        for i in 0..n {
            let it = &self.files[pf].rs.items[i];
            let Some(mid) = self.insts[inst].mods[it.module] else {
                continue;
            };
            let (name, local, kind, parent, value_too) =
                (it.name.clone(), it.local, it.kind, it.parent, it.value_too);
            if local || self.mods[mid].block {
                if parent.is_none() && kind != SymbolKind::Implementation {
                    for ns in item_ns(kind, value_too) {
                        self.mods[mid].ns[ns_idx(ns)]
                            .entry(name.clone())
                            .or_default()
                            .push(Def::Local);
                    }
                }
                continue;
            }
            let it = &self.files[pf].rs.items[i];
            let sym = {
                let (qn, exported, sig, span) =
                    (it.qn.clone(), it.exported, it.sig.clone(), it.span);
                let pkg = self.mods[mid].package;
                self.push_symbol(repo, pkg, file, name.clone(), qn, kind, exported, sig, span)
            };
            self.insts[inst].syms[i] = Some(sym);
            self.info.insert(
                sym,
                SymInfo {
                    inst,
                    item: i,
                    module: mid,
                    children: HashMap::default(),
                },
            );
            match parent {
                None => {
                    if kind != SymbolKind::Implementation {
                        for ns in item_ns(kind, value_too) {
                            self.mods[mid].ns[ns_idx(ns)]
                                .entry(name.clone())
                                .or_default()
                                .push(Def::Sym(sym));
                        }
                    }
                }
                Some(p) => {
                    if let Some(ps) = self.insts[inst].syms[p]
                        && let Some(inf) = self.info.get_mut(&ps)
                    {
                        inf.children.entry(name.clone()).or_default().push(sym);
                    }
                }
            }
        }
        // Uses.
        let nu = self.files[pf].rs.uses.len();
        for ui in 0..nu {
            let u = &self.files[pf].rs.uses[ui];
            let Some(mid) = self.insts[inst].mods[u.module] else {
                continue;
            };
            match &u.leaf {
                Leaf::Glob => self.mods[mid].globs.push(ui),
                Leaf::Name(alias) => {
                    let mut bind = alias
                        .clone()
                        .or_else(|| u.segs.last().cloned())
                        .unwrap_or_default();
                    if bind == "self" && u.segs.len() >= 2 {
                        bind = u.segs[u.segs.len() - 2].clone();
                    }
                    if bind != "_" && !bind.is_empty() {
                        self.mods[mid].uses.entry(bind).or_default().push(ui);
                    }
                }
            }
        }
    }

    pub(super) fn find_std(&mut self) {
        for c in &self.crates {
            if c.def.kind == CrateKind::Lib
                && self.facts.repos[c.def.repo].derived
                && STD_CRATES.contains(&c.def.name.as_str())
                && let Some(r) = c.root
            {
                self.std_roots.entry(c.def.name.clone()).or_insert(r);
            }
        }
        if let Some(&std) = self.std_roots.get("std") {
            let found = self.lookup_in(std, "prelude", Ns::Type, false).0;
            if let [Def::Mod(p)] = found.as_slice() {
                for ed in ["rust_2015", "rust_2018", "rust_2021", "rust_2024", "v1"] {
                    self.fresh();
                    let f2 = self.lookup_in(*p, ed, Ns::Type, false).0;
                    if let [Def::Mod(pm)] = f2.as_slice() {
                        let key = if ed == "v1" { "" } else { &ed[5..] };
                        self.prelude.insert(key.to_string(), *pm);
                    }
                }
            }
        }
    }
}

fn child_is_mod_rs(path: &str) -> bool {
    path.ends_with("/mod.rs") || path == "mod.rs"
}
