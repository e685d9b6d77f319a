//! Phase 2 of Go: packages, symbols, scopes and member tables over every parsed file, then every
//! reference phase 1 left open (package-level names, imports, members) bound through package
//! scopes, file scopes and written receiver types, and structural facts (METHOD_OF, EMBEDS,
//! IMPLEMENTS) read off declarations.
//!
//! - [`scopes`]: file scopes (imports, dot imports), package-level name lookup, package edges;
//! - [`types`]: written types resolved to declared types;
//! - [`members`]: member tables, promotion through embedding, METHOD_OF, EMBEDS, IMPLEMENTS;
//! - [`references`]: the binding of each reference phase 1 recorded;
//! - [`emission`]: edges and unresolved records, through [`crate::emit`].

mod emission;
mod members;
mod references;
mod scopes;
mod types;

use crate::hash::HashMap;

use kivgraph_format::{Language, SymbolKind};

use super::extract::{self, GoFile};
use super::project::{Modules, parent_dir};
use crate::facts::{FactSet, FileId, PackageId, RepoId, SymbolId};
use crate::lang::Home;
use crate::pipeline::FileMeta;
use scopes::FileScope;

/// The predeclared identifiers: neither an edge nor an unresolved record.
const UNIVERSE: &[&str] = &[
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "true",
    "false",
    "iota",
    "nil",
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
];

/// Members (or embedded types) of one type beyond which they are looked up by name rather than
/// in turn.
const MANY_MEMBERS: usize = 32;

/// Of a type with many embedded types: those that can give a member of each name, and those
/// that can give any ([`Resolver::embed_index`]).
#[derive(Default)]
struct EmbedIndex {
    by_name: HashMap<String, Vec<SymbolId>>,
    any: Vec<SymbolId>,
}

/// A parsed file and where it is.
struct ParsedFile {
    repo: RepoId,
    file: FileId,
    dir: String,
    go: GoFile,
}

/// A Go package: one (repository, directory, package clause).
struct Package {
    id: PackageId,
    import_path: String,
    /// Indexes into the parsed files.
    files: Vec<usize>,
    /// Top-level names → symbols.
    scope: HashMap<String, Vec<SymbolId>>,
}

/// Where a symbol's declaration was written: package, parsed file and declaration indexes.
struct DeclInfo {
    pkg: usize,
    file: usize,
    decl: usize,
}

/// A module symbol not made yet: the one of file `fi` is `SymbolId(MODULE_PLACEHOLDER + fi)`
/// until the emissions of a run of files are placed ([`place`]).
const MODULE_PLACEHOLDER: usize = usize::MAX / 2;

/// Files whose references one task binds: each task has its own emissions, placed in file order.
pub(super) const FILES_PER_TASK: usize = 16;

/// The corpus-wide tables resolution reads, and the facts it emits. Packages (`pi`) and files
/// (`fi`) are indexes into `pkgs` and `files`. Several resolvers share the tables and bind the
/// references of different files at once; what each emits is placed in the fact set after.
struct Resolver<'a> {
    facts: &'a FactSet,
    /// The edges, unresolved records and package edges this resolver emitted, with module
    /// symbols as placeholders ([`MODULE_PLACEHOLDER`]).
    out: FactSet,
    files: &'a [ParsedFile],
    pkgs: &'a [Package],
    by_import_path: &'a HashMap<String, usize>,
    /// (file, declaration index) → symbol.
    sym_of: &'a HashMap<(usize, usize), SymbolId>,
    info: &'a HashMap<SymbolId, DeclInfo>,
    /// (package, owning type name) → its members (fields, methods, interface methods).
    members: &'a HashMap<(usize, String), Vec<(String, SymbolId)>>,
    /// What `members` holds under each symbol's package and name, by symbol: found without
    /// making the key's string for each question.
    own_members: &'a HashMap<SymbolId, &'a [(String, SymbolId)]>,
    /// For a type with more than [`MANY_MEMBERS`] members: the first of each name (a type of
    /// 8,000 methods was searched member by member for each selector and each interface).
    member_names: &'a HashMap<SymbolId, HashMap<&'a str, SymbolId>>,
    /// The files that needed their synthetic module symbol, in order of first need.
    module_files: Vec<usize>,
    file_scopes: &'a [Option<FileScope>],
    /// (package, member name) → every member so named, for the name-only fallback.
    members_by_name: &'a HashMap<(usize, String), Vec<SymbolId>>,
    /// Types with many embedded types, indexed by the names those can give.
    embed_index: &'a HashMap<SymbolId, EmbedIndex>,
}

/// Binds every reference of `parsed` (in file-id order) and records the packages, symbols and
/// structural facts of the corpus.
pub(super) fn resolve(facts: &mut FactSet, parsed: Vec<(FileMeta, GoFile)>, modules: &Modules) {
    let files: Vec<ParsedFile> = parsed
        .into_iter()
        .map(|(meta, go)| ParsedFile {
            repo: meta.repo,
            file: meta.file,
            dir: parent_dir(&meta.path).to_string(),
            go,
        })
        .collect();
    let (mut pkgs, by_import_path) = packages(facts, &files, modules);
    let pkg_of_file: HashMap<usize, usize> = pkgs
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| p.files.iter().map(move |&f| (f, pi)))
        .collect();
    let (sym_of, info, members) = symbols(facts, &files, &mut pkgs, &pkg_of_file);

    let own_members: HashMap<SymbolId, &[(String, SymbolId)]> = info
        .iter()
        .filter_map(|(&sid, i)| {
            let own = members.get(&(i.pkg, facts.symbols[sid].name.clone()))?;
            Some((sid, own.as_slice()))
        })
        .collect();
    let member_names = own_members
        .iter()
        .filter(|(_, own)| own.len() > MANY_MEMBERS)
        .map(|(&t, own)| {
            let mut first: HashMap<&str, SymbolId> = HashMap::default();
            for (name, s) in own.iter() {
                first.entry(name.as_str()).or_insert(*s);
            }
            (t, first)
        })
        .collect();
    // File scopes and a (package, member name) index, built once: resolution asks for them per
    // reference.
    let mut members_by_name: HashMap<(usize, String), Vec<SymbolId>> = HashMap::default();
    for ((pi, _), list) in members.iter() {
        for (name, sid) in list {
            members_by_name
                .entry((*pi, name.clone()))
                .or_default()
                .push(*sid);
        }
    }
    let view: &FactSet = facts;
    let resolver = |file_scopes, embed_index| Resolver {
        facts: view,
        out: FactSet::default(),
        files: &files,
        pkgs: &pkgs,
        by_import_path: &by_import_path,
        sym_of: &sym_of,
        info: &info,
        members: &members,
        own_members: &own_members,
        member_names: &member_names,
        module_files: Vec::new(),
        file_scopes,
        members_by_name: &members_by_name,
        embed_index,
    };
    let unindexed = HashMap::default();
    let file_scopes: Vec<Option<FileScope>> = {
        let r = resolver(&[], &unindexed);
        (0..files.len())
            .map(|fi| pkg_of_file.get(&fi).map(|&pi| r.build_file_scope(fi, pi)))
            .collect()
    };
    let embed_index: HashMap<SymbolId, EmbedIndex> = {
        let r = resolver(&file_scopes, &unindexed);
        info.keys()
            .filter(|&&t| r.is_type(t))
            .filter_map(|&t| Some((t, r.embed_index(t)?)))
            .collect()
    };
    let mut r = resolver(&file_scopes, &embed_index);
    r.structural();
    r.implements();
    let mut emitted = vec![(r.out, r.module_files)];
    // The references of each run of files are bound by a task of their own: resolution only
    // reads the tables, and what it emits is placed below in file order, as one resolver going
    // through the files in turn would have emitted it.
    emitted.extend(crate::lang::walk_pool().install(|| {
        use rayon::prelude::*;
        files
            .par_chunks(FILES_PER_TASK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut r = resolver(&file_scopes, &embed_index);
                for (k, f) in chunk.iter().enumerate() {
                    let fi = c * FILES_PER_TASK + k;
                    let Some(&pi) = pkg_of_file.get(&fi) else {
                        continue;
                    };
                    let scope = r.file_scope(fi, pi);
                    r.package_edges(&scope);
                    for reference in &f.go.refs {
                        r.resolve(&scope, reference);
                    }
                }
                (r.out, r.module_files)
            })
            .collect::<Vec<_>>()
    }));
    // Room for everything at once: the vectors do not grow by doubling while every task's
    // emissions are still held.
    facts
        .edges
        .reserve(emitted.iter().map(|(o, _)| o.edges.len()).sum());
    facts
        .unresolved
        .reserve(emitted.iter().map(|(o, _)| o.unresolved.len()).sum());
    for (out, module_files) in emitted {
        place(facts, &files, &pkgs, &pkg_of_file, out, &module_files);
    }
}

/// Places what one resolver emitted into `facts`: first the module symbols of `module_files`
/// (in that order, the order of their first need), then its edges, unresolved records and
/// package edges, each module symbol placeholder replaced by the symbol made for it.
fn place(
    facts: &mut FactSet,
    files: &[ParsedFile],
    pkgs: &[Package],
    pkg_of_file: &HashMap<usize, usize>,
    out: FactSet,
    module_files: &[usize],
) {
    let mut made: HashMap<usize, SymbolId> = HashMap::default();
    for &fi in module_files {
        let f = &files[fi];
        let sf = &facts.files[f.file];
        let path = sf.path.clone();
        let home = Home {
            repo: f.repo,
            package: pkgs[pkg_of_file[&fi]].id,
            file: f.file,
            language: Language::Go,
        };
        let (lines, size) = (sf.lines.max(1), sf.size as u32);
        let sid = facts.push_symbol(home.module(&path, path.clone(), lines, size));
        made.insert(fi, sid);
    }
    let real = |s: SymbolId| match s.0.checked_sub(MODULE_PLACEHOLDER) {
        Some(fi) => made[&fi],
        None => s,
    };
    facts.edges.extend(out.edges.into_iter().map(|mut e| {
        e.source = real(e.source);
        e
    }));
    facts
        .unresolved
        .extend(out.unresolved.into_iter().map(|mut u| {
            u.source = u.source.map(real);
            u
        }));
    facts.package_edges.extend(out.package_edges);
}

/// Packages: one per (repository, directory, package clause); `x_test` is its own package.
/// Returns them with the package each import path names.
fn packages(
    facts: &mut FactSet,
    files: &[ParsedFile],
    modules: &Modules,
) -> (Vec<Package>, HashMap<String, usize>) {
    let mut pkgs: Vec<Package> = Vec::new();
    let mut pkg_of_key: HashMap<(RepoId, String, String), usize> = HashMap::default();
    let mut by_import_path: HashMap<String, usize> = HashMap::default();
    for (fi, f) in files.iter().enumerate() {
        if f.go.package_name.is_empty() {
            continue;
        }
        let key = (f.repo, f.dir.clone(), f.go.package_name.clone());
        let idx = *pkg_of_key.entry(key).or_insert_with(|| {
            let base = modules.import_path(f.repo, &f.dir, &facts.repos[f.repo].name);
            let import_path = if f.go.package_name.ends_with("_test") {
                format!("{base}_test")
            } else {
                base
            };
            let id = facts.push_package(crate::facts::Package {
                repo: f.repo,
                language: Language::Go,
                name: import_path.clone(),
                path: f.dir.clone(),
                module: modules
                    .module_of(f.repo, &f.dir)
                    .map(|(m, _)| m.to_string()),
            });
            pkgs.push(Package {
                id,
                import_path,
                files: Vec::new(),
                scope: HashMap::default(),
            });
            pkgs.len() - 1
        });
        pkgs[idx].files.push(fi);
        facts.files[f.file].package = Some(pkgs[idx].id);
    }
    for (i, p) in pkgs.iter().enumerate() {
        // The first registration of an import path wins; a `_test` package never shadows its base.
        by_import_path.entry(p.import_path.clone()).or_insert(i);
    }
    (pkgs, by_import_path)
}

/// What [`symbols`] builds: (file, declaration) → symbol, each symbol's declaration, and the
/// members of each (package, owning type name).
type SymbolTables = (
    HashMap<(usize, usize), SymbolId>,
    HashMap<SymbolId, DeclInfo>,
    HashMap<(usize, String), Vec<(String, SymbolId)>>,
);

/// One symbol per declaration of a file in a package; package scopes and member tables filled.
fn symbols(
    facts: &mut FactSet,
    files: &[ParsedFile],
    pkgs: &mut [Package],
    pkg_of_file: &HashMap<usize, usize>,
) -> SymbolTables {
    let mut sym_of: HashMap<(usize, usize), SymbolId> = HashMap::default();
    let mut info: HashMap<SymbolId, DeclInfo> = HashMap::default();
    let mut members: HashMap<(usize, String), Vec<(String, SymbolId)>> = HashMap::default();
    for (fi, f) in files.iter().enumerate() {
        let Some(&pi) = pkg_of_file.get(&fi) else {
            continue;
        };
        for (di, d) in f.go.decls.iter().enumerate() {
            let exported = extract::exported(&d.name);
            let home = Home {
                repo: f.repo,
                package: pkgs[pi].id,
                file: f.file,
                language: Language::Go,
            };
            let sid = facts.push_symbol(home.symbol(
                d.name.clone(),
                d.qualified_name.clone(),
                d.kind,
                exported,
                d.signature.clone(),
                d.span,
            ));
            sym_of.insert((fi, di), sid);
            info.insert(
                sid,
                DeclInfo {
                    pkg: pi,
                    file: fi,
                    decl: di,
                },
            );
            match &d.owner {
                Some(owner) => members
                    .entry((pi, owner.clone()))
                    .or_default()
                    .push((d.name.clone(), sid)),
                None => pkgs[pi].scope.entry(d.name.clone()).or_default().push(sid),
            }
        }
    }
    (sym_of, info, members)
}

impl Resolver<'_> {
    /// The declaration symbol `sid` was made from.
    fn decl(&self, sid: SymbolId) -> &extract::Decl {
        let i = &self.info[&sid];
        &self.files[i.file].go.decls[i.decl]
    }

    fn is_type(&self, sid: SymbolId) -> bool {
        matches!(
            self.facts.symbols[sid].kind,
            SymbolKind::Type | SymbolKind::Alias
        )
    }
}
