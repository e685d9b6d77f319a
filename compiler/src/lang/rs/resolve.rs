//! Phase 2 of Rust: crates and the module tree, symbols, `use` resolution (globs and re-export
//! chains, cycles cut), impls, and the binding of every reference phase 1 recorded.

use crate::emit::MAX_CANDIDATES;
#[allow(unused_imports)]
use crate::emit::reason::*;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap, HashSet};

use kivgraph_format::{Confidence, EdgeKind, FileStatus, Language, Provenance, SymbolKind};

use super::Depth;
use super::extract::{Import, Leaf, Ns, PRIMITIVES, Recv, RefKind, RsFile, SelfCtx, Ty, What};
use super::project::{CrateDef, CrateKind};
use crate::facts::{
    Diagnostic, Edge, FactSet, FileId, Package, PackageEdge, PackageId, RepoId, Symbol, SymbolId,
    Unresolved,
};

const MAX_DEPTH: usize = 48;
/// Module lookups one reference may make; beyond, the lookup is cut.
const MAX_STEPS: usize = 100_000;
const STD_CRATES: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

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

pub struct Parsed {
    pub repo: RepoId,
    pub file: FileId,
    pub path: String,
    pub rs: RsFile,
}

type ModId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Def {
    Sym(SymbolId),
    Mod(ModId),
    /// Exists, has no symbol (a local item, a module whose file is missing).
    Local,
}

struct Module {
    krate: usize,
    parent: Option<ModId>,
    block: bool,
    inst: usize,
    package: PackageId,
    symbol: SymbolId,
    exported: bool,
    ns: [HashMap<String, Vec<Def>>; 3],
    uses: HashMap<String, Vec<usize>>,
    globs: Vec<usize>,
}

struct FileInstance {
    pf: usize,
    mods: Vec<Option<ModId>>,
    syms: Vec<Option<SymbolId>>,
    /// Impl index of the file → impl info.
    impls: Vec<Option<usize>>,
}

struct Crate {
    def: CrateDef,
    root: Option<ModId>,
}

#[derive(Clone, Copy)]
struct Place {
    module: ModId,
    inst: usize,
    selfc: Option<SelfCtx>,
}

struct SymInfo {
    inst: usize,
    item: usize,
    module: ModId,
    children: HashMap<String, Vec<SymbolId>>,
}

struct ImplInfo {
    self_target: Option<SymbolId>,
    trait_target: Option<SymbolId>,
    members: HashMap<String, Vec<SymbolId>>,
}

#[derive(Clone, Debug)]
struct Missing {
    reason: &'static str,
    package: String,
    symbol: String,
}

enum PathRes {
    Found(Vec<Def>, Provenance),
    Missing(Missing),
    Ignore,
}

/// A resolved receiver type.
#[derive(Clone, Debug, PartialEq)]
enum Rt {
    Sym(SymbolId),
    Traits(Vec<SymbolId>),
    Unknown,
}

type MemoKey = (ModId, String, Ns, bool);
/// An extern crate name: its root module, why it is missing, or no crate at all.
type ExternCrate = Option<Result<ModId, Missing>>;
/// What a module lookup found: the definitions, whether through a `use`, and why not.
type Lookup = (Vec<Def>, bool, Option<Missing>);
/// (crate, methods or fields, name) → the members of that name.
type NameIndex = HashMap<(usize, bool, String), Vec<SymbolId>>;
/// A structural edge before it is written: source, target, kind, file, position.
type Structural = (SymbolId, SymbolId, EdgeKind, FileId, (u32, u32));

pub struct Resolver<'f> {
    facts: &'f mut FactSet,
    files: Vec<Parsed>,
    crates: Vec<Crate>,
    mods: Vec<Module>,
    insts: Vec<FileInstance>,
    info: HashMap<SymbolId, SymInfo>,
    impls: Vec<ImplInfo>,
    inherent: HashMap<SymbolId, Vec<usize>>,
    trait_impls: HashMap<SymbolId, Vec<usize>>,
    supers: HashMap<SymbolId, Vec<SymbolId>>,
    macro_index: HashMap<(usize, String), Vec<SymbolId>>,
    memo: RefCell<HashMap<MemoKey, Lookup>>,
    memo_tmp: RefCell<HashMap<MemoKey, Lookup>>,
    packages: HashMap<(RepoId, String), PackageId>,
    steps: Cell<usize>,
    /// How deep the lookup is; past [`MAX_DEPTH`] it is cut.
    depth: Depth,
    busy: RefCell<HashSet<MemoKey>>,
    cut: Cell<bool>,
    std_roots: HashMap<String, ModId>,
    /// The standard prelude module of each edition (`rust_2021`), `v1` under `""`.
    prelude: HashMap<String, ModId>,
    sysroot_missing: String,
    name_index: RefCell<Option<NameIndex>>,
    crate_sets: RefCell<HashMap<usize, Vec<usize>>>,
    extern_memo: RefCell<HashMap<(usize, String), ExternCrate>>,
}

fn ns_idx(ns: Ns) -> usize {
    match ns {
        Ns::Type => 0,
        Ns::Value => 1,
        Ns::Macro => 2,
    }
}

fn is_fn(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Function
            | SymbolKind::Method
            | SymbolKind::StaticMethod
            | SymbolKind::TraitMethod
    )
}

fn parent_dir(p: &str) -> &str {
    p.rfind('/').map_or("", |i| &p[..i])
}

fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

impl<'f> Resolver<'f> {
    pub fn new(
        facts: &'f mut FactSet,
        files: Vec<Parsed>,
        crates: Vec<CrateDef>,
        sysroot_missing: &str,
    ) -> Self {
        Resolver {
            facts,
            files,
            crates: crates
                .into_iter()
                .map(|def| Crate { def, root: None })
                .collect(),
            mods: Vec::new(),
            insts: Vec::new(),
            info: HashMap::new(),
            impls: Vec::new(),
            inherent: HashMap::new(),
            trait_impls: HashMap::new(),
            supers: HashMap::new(),
            macro_index: HashMap::new(),
            memo: RefCell::new(HashMap::new()),
            memo_tmp: RefCell::new(HashMap::new()),
            packages: HashMap::new(),
            steps: Cell::new(0),
            depth: Depth::default(),
            busy: RefCell::new(HashSet::new()),
            cut: Cell::new(false),
            std_roots: HashMap::new(),
            prelude: HashMap::new(),
            sysroot_missing: sysroot_missing.to_string(),
            name_index: RefCell::new(None),
            crate_sets: RefCell::new(HashMap::new()),
            extern_memo: RefCell::new(HashMap::new()),
        }
    }

    /// Runs `f` one level deeper.
    fn deeper<R>(&self, f: impl FnOnce() -> R) -> R {
        self.depth.nested(f)
    }

    pub fn run(mut self) {
        self.build_tree();
        self.find_std();
        self.resolve_impls();
        self.emit_structural();
        self.emit_refs();
    }

    // ---- module tree -------------------------------------------------------------------

    fn build_tree(&mut self) {
        let by_path: HashMap<(RepoId, String), usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.repo, f.path.clone()), i))
            .collect();
        let mut reached: HashSet<usize> = HashSet::new();
        for ci in 0..self.crates.len() {
            let def = self.crates[ci].def.clone();
            let Some(&pf) = by_path.get(&(def.repo, def.root.clone())) else {
                continue;
            };
            // (file, parent module, name, mod-rs?, exported, decl span file) queue.
            let mut seen: HashMap<usize, ModId> = HashMap::new();
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
        for (i, f) in self.files.iter().enumerate() {
            if !reached.contains(&i) {
                self.facts.files[f.file].status = FileStatus::BuildExcluded;
                self.facts.diagnostics.push(Diagnostic {
                    repository: self.facts.repos[f.repo].name.clone(),
                    path: f.path.clone(),
                    message: "no crate root reaches this file (no `mod` declaration loads it)"
                        .into(),
                });
            }
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
                let inf = &self.info[&s];
                let exp = self.files[self.insts[inf.inst].pf].rs.items[inf.item].macro_export;
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
    fn instantiate(
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
                let mid = self.new_module(ci, parent, false, inst, pid, sym, exported);
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
                let mid = self.new_module(ci, Some(pm), true, inst, pkg, sym, false);
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
                let mid = self.new_module(ci, Some(pm), false, inst, pid, sym, fexp);
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
                        self.facts.unresolved.push(Unresolved {
                            repo,
                            file: Some(file),
                            line: span.start_line,
                            column: span.start_column,
                            language: Language::Rust,
                            reason: MODULE_FILE_NOT_FOUND.into(),
                            requested_package: pname,
                            requested_symbol: Some(fname),
                            detail: Some(format!(
                                "looked for {}",
                                cands
                                    .iter()
                                    .map(|c| c.0.as_str())
                                    .collect::<Vec<_>>()
                                    .join(" and ")
                            )),
                            source: Some(source),
                        });
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
    fn package(&mut self, repo: RepoId, name: &str, path: &str, cargo: &str) -> PackageId {
        if let Some(&p) = self.packages.get(&(repo, name.to_string())) {
            return p;
        }
        let pid = self.facts.packages.len();
        self.facts.packages.push(Package {
            repo,
            language: Language::Rust,
            name: name.to_string(),
            path: path.to_string(),
            module: Some(cargo.to_string()),
        });
        self.packages.insert((repo, name.to_string()), pid);
        pid
    }

    #[allow(clippy::too_many_arguments)]
    fn new_module(
        &mut self,
        krate: usize,
        parent: Option<ModId>,
        block: bool,
        inst: usize,
        package: PackageId,
        symbol: SymbolId,
        exported: bool,
    ) -> ModId {
        self.mods.push(Module {
            krate,
            parent,
            block,
            inst,
            package,
            symbol,
            exported,
            ns: [HashMap::new(), HashMap::new(), HashMap::new()],
            uses: HashMap::new(),
            globs: Vec::new(),
        });
        self.mods.len() - 1
    }

    #[allow(clippy::too_many_arguments)]
    fn push_symbol(
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
        self.facts.symbols.push(Symbol {
            repo,
            package,
            file,
            language: Language::Rust,
            name,
            qualified_name: qn,
            kind,
            exported,
            signature: sig,
            start_line: span.start_line,
            start_column: span.start_column,
            end_line: span.end_line,
            end_column: span.end_column,
            start_byte: span.start_byte,
            end_byte: span.end_byte,
        });
        self.facts.symbols.len() - 1
    }

    fn add_items(&mut self, inst: usize, _ci: usize) {
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
                    children: HashMap::new(),
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

    fn find_std(&mut self) {
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

    // ---- lookups -----------------------------------------------------------------------

    fn def_exported(&self, d: Def) -> bool {
        match d {
            Def::Sym(s) => self.facts.symbols[s].exported,
            Def::Mod(m) => self.mods[m].exported,
            Def::Local => false,
        }
    }

    fn use_of(&self, m: ModId, ui: usize) -> &Import {
        &self.files[self.insts[self.mods[m].inst].pf].rs.uses[ui]
    }

    /// The names module `m` declares or imports, in one namespace. `ext`: seen from another
    /// crate (only `pub` items and `pub use`s).
    fn lookup_in(
        &self,
        m: ModId,
        name: &str,
        ns: Ns,
        ext: bool,
    ) -> (Vec<Def>, bool, Option<Missing>) {
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
        let r = self.lookup_in_uncached(m, name, ns, ext);
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

    fn lookup_in_uncached(
        &self,
        m: ModId,
        name: &str,
        ns: Ns,
        ext: bool,
    ) -> (Vec<Def>, bool, Option<Missing>) {
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
    fn fresh(&self) {
        self.memo_tmp.borrow_mut().clear();
        self.steps.set(0);
    }

    fn real_module(&self, mut m: ModId) -> ModId {
        while self.mods[m].block {
            match self.mods[m].parent {
                Some(p) => m = p,
                None => break,
            }
        }
        m
    }

    fn krate_root(&self, m: ModId) -> ModId {
        self.crates[self.mods[m].krate].root.unwrap_or(m)
    }

    /// An extern crate name seen from crate `k`: `Ok(root)`, `Err(missing)`, or `None` when
    /// the name is no crate.
    fn extern_crate(&self, k: usize, name: &str) -> Option<Result<ModId, Missing>> {
        let key = (k, name.to_string());
        if let Some(r) = self.extern_memo.borrow().get(&key) {
            return r.clone();
        }
        let r = self.extern_crate_uncached(k, name);
        self.extern_memo.borrow_mut().insert(key, r.clone());
        r
    }

    fn extern_crate_uncached(&self, k: usize, name: &str) -> Option<Result<ModId, Missing>> {
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

    fn self_target(&self, ctx_inst: usize, selfc: Option<SelfCtx>) -> Option<SymbolId> {
        match selfc? {
            SelfCtx::Impl(i) => {
                let ii = self.insts.get(ctx_inst)?.impls.get(i).copied().flatten()?;
                self.impls[ii].self_target
            }
            SelfCtx::Trait(item) => self.insts.get(ctx_inst)?.syms.get(item).copied().flatten(),
        }
    }

    /// The lexical lookup of a first path segment.
    fn lookup_scope(&self, ctx: Place, name: &str, ns: Ns) -> PathRes {
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
        PathRes::Missing(Missing {
            reason: NAME_NOT_RESOLVED,
            package: self.pkg_name(ctx.module),
            symbol: name.into(),
        })
    }

    fn pkg_name(&self, m: ModId) -> String {
        self.facts.packages[self.mods[m].package].name.clone()
    }

    fn resolve_use(&self, m: ModId, ui: usize, ns: Ns) -> PathRes {
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
    fn resolve_segs(&self, m: ModId, segs: &[String], ns: Ns, in_use: bool) -> PathRes {
        let ctx = Place {
            module: m,
            inst: self.mods[m].inst,
            selfc: None,
        };
        self.resolve_path(ctx, segs, ns, in_use)
    }

    fn resolve_path(&self, ctx: Place, segs: &[String], ns: Ns, in_use: bool) -> PathRes {
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
                match self.extern_crate(k, &segs[1]) {
                    Some(Ok(r)) => cur = vec![Def::Mod(r)],
                    Some(Err(mut miss)) => {
                        miss.symbol = segs[last].clone();
                        return PathRes::Missing(miss);
                    }
                    None => {
                        // 2015: `::a` is `crate::a`.
                        let (v, _, _) = self.deeper(|| {
                            self.lookup_in(
                                self.krate_root(m),
                                &segs[1],
                                if last == 1 { ns } else { Ns::Type },
                                false,
                            )
                        });
                        if v.is_empty() {
                            return PathRes::Missing(Missing {
                                reason: NAME_NOT_RESOLVED,
                                package: self.pkg_name(m),
                                symbol: segs[1].clone(),
                            });
                        }
                        cur = v;
                    }
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
                        match self.extern_crate(k, first) {
                            Some(Ok(r)) => cur = vec![Def::Mod(r)],
                            Some(Err(mut miss)) => {
                                miss.symbol = segs[last].clone();
                                return PathRes::Missing(miss);
                            }
                            None => {
                                let (v, _, _) = self.deeper(|| {
                                    self.lookup_in(self.krate_root(m), first, fns, false)
                                });
                                if v.is_empty() {
                                    if last == 0 {
                                        return PathRes::Ignore;
                                    }
                                    return PathRes::Missing(Missing {
                                        reason: NAME_NOT_RESOLVED,
                                        package: self.pkg_name(m),
                                        symbol: first.into(),
                                    });
                                }
                                cur = v;
                            }
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
                            if !self.type_closed(s) {
                                return PathRes::Ignore;
                            }
                            let p = self.facts.packages[self.facts.symbols[s].package]
                                .name
                                .clone();
                            miss = Some(Missing {
                                reason: NAME_NOT_RESOLVED,
                                package: p,
                                symbol: seg.clone(),
                            });
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

    fn lookup_blocks(&self, mut m: ModId, name: &str, ns: Ns) -> Vec<Def> {
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

    /// A type is closed when every impl of it is visible: no derive, no trait impl whose trait
    /// is outside the graph. Only then is a missing associated item a failure.
    fn type_closed(&self, _s: SymbolId) -> bool {
        false
    }

    /// `Type::name`: variants, then inherent impl items, then trait impl items, then the items
    /// of the traits it implements (default methods), or of the trait itself.
    fn assoc(&self, s: SymbolId, name: &str) -> Vec<SymbolId> {
        self.assoc_by(s, name, false)
    }

    /// A fn with a `self` parameter: callable as `x.m()`.
    fn is_method(&self, s: SymbolId) -> bool {
        is_fn(self.facts.symbols[s].kind)
            && self
                .info
                .get(&s)
                .is_some_and(|i| self.files[self.insts[i.inst].pf].rs.items[i.item].has_self)
    }

    /// [`Self::assoc`], keeping only methods when `methods` (method-call syntax).
    fn assoc_by(&self, s: SymbolId, name: &str, methods: bool) -> Vec<SymbolId> {
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
            let inf = &self.info[&s];
            let ctx = self.ctx_of(s);
            let ty = self.files[self.insts[inf.inst].pf].rs.items[inf.item]
                .ty
                .clone();
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
        for impls in [&self.inherent, &self.trait_impls] {
            let mut out: Vec<SymbolId> = impls
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
                .collect();
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

    fn trait_items(&self, t: SymbolId, name: &str) -> Vec<SymbolId> {
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

    fn ctx_of(&self, s: SymbolId) -> Place {
        let inf = &self.info[&s];
        let selfc = self.files[self.insts[inf.inst].pf].rs.items[inf.item].selfc;
        Place {
            module: inf.module,
            inst: inf.inst,
            selfc,
        }
    }

    // ---- types -------------------------------------------------------------------------

    fn eval_ty(&self, ty: &Ty, ctx: Place) -> Rt {
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
                                let inf = &self.info[&s];
                                let t = self.files[self.insts[inf.inst].pf].rs.items[inf.item]
                                    .ty
                                    .clone();
                                match t {
                                    Some(t) => self.deeper(|| self.eval_ty(&t, self.ctx_of(s))),
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
    fn recv_ty(&self, r: &Recv, ctx: Place) -> Option<(Ty, Place)> {
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
                            let inf = &self.info[&s];
                            let t = self.files[self.insts[inf.inst].pf].rs.items[inf.item]
                                .ty
                                .clone()?;
                            Some((t, self.ctx_of(s)))
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
                let inf = &self.info[&s];
                let t = self.files[self.insts[inf.inst].pf].rs.items[inf.item]
                    .ty
                    .clone()?;
                Some((t, self.ctx_of(s)))
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
                let inf = &self.info[&s];
                let t = self.files[self.insts[inf.inst].pf].rs.items[inf.item]
                    .ty
                    .clone()?;
                Some((t, self.ctx_of(s)))
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
                            let inf = &self.info[&s];
                            let t = self.files[self.insts[inf.inst].pf].rs.items[inf.item]
                                .ty
                                .clone()?;
                            Some((t, self.ctx_of(s)))
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
    fn generic_field(&self, base: (Ty, Place), name: &str) -> Option<(Ty, Place)> {
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
        let fi = &self.info[f];
        let Some(Ty::Param(p, _)) = &self.files[self.insts[fi.inst].pf].rs.items[fi.item].ty else {
            return None;
        };
        let idx = generics.iter().position(|g| g == p)?;
        args.get(idx).map(|a| (a.clone(), bctx))
    }

    fn recv_rt(&self, r: &Recv, ctx: Place) -> Rt {
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

    /// Members named `name` of a receiver type: (found, exact when exactly one).
    fn members(&self, rt: &Rt, name: &str, call: bool) -> (Vec<SymbolId>, bool) {
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
    fn crate_set(&self, k: usize) -> Vec<usize> {
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

    fn name_only(&self, k: usize, name: &str, call: bool) -> Vec<SymbolId> {
        if self.name_index.borrow().is_none() {
            let mut m: NameIndex = HashMap::new();
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

    // ---- impls -------------------------------------------------------------------------

    fn resolve_impls(&mut self) {
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
        self.memo.borrow_mut().clear();
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        source: SymbolId,
        target: SymbolId,
        kind: EdgeKind,
        confidence: Confidence,
        provenance: Provenance,
        file: FileId,
        p: (u32, u32),
    ) {
        let cross = self.package_mapped(
            self.facts.symbols[source].repo,
            self.facts.symbols[target].repo,
        );
        let confidence = if cross && confidence == Confidence::ExactDeclarationMapped {
            Confidence::ExactPackageMapped
        } else {
            confidence
        };
        self.facts.edges.push(Edge {
            source,
            target,
            kind,
            confidence,
            provenance,
            file: Some(file),
            line: p.0,
            column: p.1,
        });
    }

    fn emit_structural(&mut self) {
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
                                let tk = &self.files[self.insts[self.info[&tm].inst].pf].rs.items
                                    [self.info[&tm].item];
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
                s,
                t,
                k,
                Confidence::StructuralCertain,
                Provenance::RustDeclaration,
                file,
                at,
            );
        }
    }

    // ---- references --------------------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    fn unresolved(
        &mut self,
        repo: RepoId,
        file: FileId,
        p: (u32, u32),
        miss: Missing,
        source: SymbolId,
    ) {
        let detail = (miss.reason == SYSROOT_SOURCE_MISSING).then(|| self.sysroot_missing.clone());
        self.facts.unresolved.push(Unresolved {
            repo,
            file: Some(file),
            line: p.0,
            column: p.1,
            language: Language::Rust,
            reason: miss.reason.into(),
            requested_package: miss.package,
            requested_symbol: Some(miss.symbol),
            detail,
            source: Some(source),
        });
    }

    fn def_sym(&self, d: Def) -> Option<SymbolId> {
        match d {
            Def::Sym(s) => Some(s),
            Def::Mod(m) => Some(self.mods[m].symbol),
            Def::Local => None,
        }
    }

    /// Whether a binding from repository `from` into `to` went through a Cargo dependency
    /// (`EXACT_PACKAGE_MAPPED`): across repositories, except into the standard library, a
    /// derived repository reached through the toolchain, not a manifest.
    fn package_mapped(&self, from: RepoId, to: RepoId) -> bool {
        from != to && !self.facts.repos[to].derived
    }

    fn pkg_edge(&mut self, from: PackageId, to_sym: SymbolId) {
        let to = self.facts.symbols[to_sym].package;
        if from == to {
            return;
        }
        let cross =
            self.package_mapped(self.facts.packages[from].repo, self.facts.packages[to].repo);
        self.facts.package_edges.push(PackageEdge {
            source: from,
            target: to,
            kind: EdgeKind::PackageDependsOn,
            confidence: if cross {
                Confidence::ExactPackageMapped
            } else {
                Confidence::ExactDeclarationMapped
            },
            provenance: Provenance::RustUseDependency,
        });
    }

    fn emit_refs(&mut self) {
        for inst in 0..self.insts.len() {
            self.emit_inst(inst);
        }
    }

    fn emit_inst(&mut self, inst: usize) {
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
                            self.edge(source, t, kind, conf, Provenance::RustPath, file, p);
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
        let nr = self.files[pf].rs.refs.len();
        for ri in 0..nr {
            self.fresh();
            let (module, source_item, selfc, kind, what, p, in_macro_def) = {
                let r = &self.files[pf].rs.refs[ri];
                (
                    r.module,
                    r.source,
                    r.selfc,
                    r.kind,
                    r.what.clone(),
                    r.pos,
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
                                self.edge(source, t, ek, conf, prov, file, p);
                                if segs.len() > 1 && exact {
                                    self.pkg_edge(pkg, t);
                                }
                            }
                        }
                        PathRes::Missing(mi) => self.unresolved(repo, file, p, mi, source),
                        PathRes::Ignore => {}
                    }
                }
                What::Qual(ty, tr, name) => {
                    let trt = self.eval_ty(&tr, ctx);
                    let Rt::Traits(ts) = trt else { continue };
                    let st = self.eval_ty(&ty, ctx);
                    let mut targets: Vec<SymbolId> = Vec::new();
                    if let Rt::Sym(s) = st {
                        for &ii in self.trait_impls.get(&s).into_iter().flatten() {
                            if ts.contains(&self.impls[ii].trait_target.unwrap_or(usize::MAX)) {
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
                        self.edge(source, t, ek, conf, Provenance::RustPath, file, p);
                    }
                }
                What::Member(recv, name, call) => {
                    if name.chars().all(|c| c.is_ascii_digit()) && !call {
                        // A tuple field: only through a written type.
                        let rt = self.recv_rt(&recv, ctx);
                        let (v, _) = self.members(&rt, &name, false);
                        if v.len() == 1 {
                            self.edge(
                                source,
                                v[0],
                                EdgeKind::References,
                                Confidence::ExactDeclarationMapped,
                                Provenance::RustReceiverTyped,
                                file,
                                p,
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
                            self.edge(source, t, ek, conf, Provenance::RustReceiverTyped, file, p);
                        }
                        continue;
                    }
                    let k = self.mods[m].krate;
                    let cands = self.name_only(k, &name, call);
                    if (1..=MAX_CANDIDATES).contains(&cands.len()) {
                        for t in cands {
                            self.edge(
                                source,
                                t,
                                ek,
                                Confidence::Candidate,
                                Provenance::RustNameOnly,
                                file,
                                p,
                            );
                        }
                    } else {
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
}

fn child_is_mod_rs(path: &str) -> bool {
    path.ends_with("/mod.rs") || path == "mod.rs"
}

fn item_ns(kind: SymbolKind, value_too: bool) -> Vec<Ns> {
    match kind {
        SymbolKind::Function | SymbolKind::Const | SymbolKind::Static => vec![Ns::Value],
        SymbolKind::Struct if value_too => vec![Ns::Type, Ns::Value],
        SymbolKind::Struct
        | SymbolKind::Union
        | SymbolKind::Enum
        | SymbolKind::Trait
        | SymbolKind::TypeAlias => vec![Ns::Type],
        SymbolKind::Macro => vec![Ns::Macro],
        _ => Vec::new(),
    }
}
