//! Go: modules from `go.mod`, packages by directory, build constraints, and resolution of every
//! reference through scopes, imports and written receiver types.
//!
//! Phase 1 ([`extract`]) runs per file in parallel and resolves locals. Phase 2 (here) builds
//! package scopes and member tables for the whole corpus and binds what phase 1 left open.

mod constraints;
mod extract;
mod resolve;
mod typing;

#[allow(unused_imports)]
use crate::emit::reason::*;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use kivgraph_format::{FileStatus, Language};

use crate::facts::{FactSet, FileId, PackageId, RepoId, Symbol, SymbolId, Unresolved};
use crate::pipeline::{FileMeta, FrontEnd, Project, SourceInput};
use extract::GoFile;
use resolve::Resolver;

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

pub(super) struct ParsedFile {
    repo: RepoId,
    file: FileId,
    dir: String,
    go: GoFile,
}

pub(super) struct Pkg {
    id: PackageId,
    import_path: String,
    files: Vec<usize>,
    /// Top-level names → symbols.
    scope: HashMap<String, Vec<SymbolId>>,
}

/// Per-symbol facts phase 2 needs: where its declaration was written, and what it says.
pub(super) struct DeclInfo {
    pkg: usize,
    file: usize,
    decl: usize,
}

/// The Go front end.
pub(crate) struct Go;

impl FrontEnd for Go {
    const NAME: &'static str = "Go";
    const LANGUAGES: &'static [Language] = &[Language::Go];
    type Parsed = GoFile;

    /// Build constraints: an excluded file is recorded but never parsed, and a directory whose
    /// every file is excluded is a `PACKAGE_NOT_BUILDABLE` scope.
    fn admit(facts: &mut FactSet, inputs: Vec<SourceInput>, project: &Project) -> Vec<SourceInput> {
        let modules = project.go_modules;
        let mut dirs_seen: BTreeMap<(RepoId, String), (usize, usize)> = BTreeMap::new();
        let mut kept = Vec::new();
        for input in inputs {
            let dir = parent_dir(&input.meta.path).to_string();
            let name = input
                .meta
                .path
                .rsplit('/')
                .next()
                .unwrap_or(&input.meta.path);
            let admitted = constraints::file_name_admits(name)
                && constraints::header_admits(input.text.as_str());
            let e = dirs_seen.entry((input.meta.repo, dir)).or_default();
            e.0 += 1;
            if admitted {
                e.1 += 1;
                kept.push(input);
            } else {
                facts.files[input.meta.file].status = FileStatus::BuildExcluded;
            }
        }
        for ((repo, dir), (all, admitted)) in &dirs_seen {
            if *all > 0 && *admitted == 0 {
                let import_path = import_path_of(modules, *repo, dir, &facts.repos[*repo].name);
                let abs = if dir.is_empty() {
                    facts.repos[*repo].root.clone()
                } else {
                    format!("{}/{}", facts.repos[*repo].root, dir)
                };
                facts.unresolved.push(Unresolved {
                    repo: *repo,
                    file: None,
                    line: 0,
                    column: 0,
                    language: Language::Go,
                    reason: PACKAGE_NOT_BUILDABLE.into(),
                    requested_package: import_path,
                    requested_symbol: None,
                    detail: Some(format!("build constraints exclude all Go files in {abs}")),
                    source: None,
                });
            }
        }
        kept
    }

    fn extract(input: &SourceInput) -> GoFile {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_go::LANGUAGE.into())
            .expect("Go grammar is compatible");
        let src = input.text.as_str().as_bytes();
        match parser.parse(src, None) {
            Some(tree) => extract::extract(&tree, src),
            None => GoFile {
                has_errors: true,
                ..Default::default()
            },
        }
    }

    fn partial(go: &GoFile) -> bool {
        go.has_errors || go.too_deep
    }

    fn resolve(facts: &mut FactSet, parsed: Vec<(FileMeta, GoFile)>, project: &Project) {
        resolve_all(facts, parsed, project.go_modules);
    }
}

/// Phase 2: packages, symbols, scopes and member tables over every parsed file, then every
/// reference bound.
fn resolve_all(
    facts: &mut FactSet,
    parsed: Vec<(FileMeta, GoFile)>,
    modules: &BTreeMap<(RepoId, String), String>,
) {
    let files: Vec<ParsedFile> = parsed
        .into_iter()
        .map(|(meta, go)| ParsedFile {
            repo: meta.repo,
            file: meta.file,
            dir: parent_dir(&meta.path).to_string(),
            go,
        })
        .collect();

    // Packages: one per (repository, directory, package clause); `x_test` is its own package.
    let mut pkgs: Vec<Pkg> = Vec::new();
    let mut pkg_of_key: HashMap<(RepoId, String, String), usize> = HashMap::new();
    let mut by_import_path: HashMap<String, usize> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        if f.go.package_name.is_empty() {
            continue;
        }
        let key = (f.repo, f.dir.clone(), f.go.package_name.clone());
        let idx = *pkg_of_key.entry(key).or_insert_with(|| {
            let base = import_path_of(modules, f.repo, &f.dir, &facts.repos[f.repo].name);
            let import_path = if f.go.package_name.ends_with("_test") {
                format!("{base}_test")
            } else {
                base
            };
            let id = facts.packages.len();
            facts.packages.push(crate::facts::Package {
                repo: f.repo,
                language: Language::Go,
                name: import_path.clone(),
                path: f.dir.clone(),
                module: module_of(modules, f.repo, &f.dir).map(|(m, _)| m.to_string()),
            });
            pkgs.push(Pkg {
                id,
                import_path,
                files: Vec::new(),
                scope: HashMap::new(),
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
    let pkg_of_file: HashMap<usize, usize> = pkgs
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| p.files.iter().map(move |&f| (f, pi)))
        .collect();

    // Symbols.
    let mut sym_of: HashMap<(usize, usize), SymbolId> = HashMap::new();
    let mut info: HashMap<SymbolId, DeclInfo> = HashMap::new();
    let mut members: HashMap<(usize, String), Vec<(String, SymbolId)>> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        let Some(&pi) = pkg_of_file.get(&fi) else {
            continue;
        };
        for (di, d) in f.go.decls.iter().enumerate() {
            let exported = extract::exported(&d.name);
            let sid = facts.symbols.len();
            facts.symbols.push(Symbol {
                repo: f.repo,
                package: pkgs[pi].id,
                file: f.file,
                language: Language::Go,
                name: d.name.clone(),
                qualified_name: d.qualified_name.clone(),
                kind: d.kind,
                exported,
                signature: d.signature.clone(),
                start_line: d.span.start_line,
                start_column: d.span.start_column,
                end_line: d.span.end_line,
                end_column: d.span.end_column,
                start_byte: d.span.start_byte,
                end_byte: d.span.end_byte,
            });
            sym_of.insert((fi, di), sid);
            info.insert(
                sid,
                DeclInfo {
                    pkg: pi,
                    file: fi,
                    decl: di,
                },
            );
            match (&d.owner, d.kind) {
                (Some(owner), _) => members
                    .entry((pi, owner.clone()))
                    .or_default()
                    .push((d.name.clone(), sid)),
                (None, _) => pkgs[pi].scope.entry(d.name.clone()).or_default().push(sid),
            }
        }
    }

    let mut r = Resolver {
        facts,
        files: &files,
        pkgs: &pkgs,
        by_import_path: &by_import_path,
        sym_of: &sym_of,
        info: &info,
        members: &members,
        module_syms: HashMap::new(),
        ctxs: Vec::new(),
        members_by_name: HashMap::new(),
    };
    // File scopes and a (package, member name) index, built once: resolution asks for them per
    // reference.
    r.ctxs = (0..files.len())
        .map(|fi| {
            pkg_of_file
                .get(&fi)
                .map(|&pi| Rc::new(r.build_file_ctx(fi, pi)))
        })
        .collect();
    for ((pi, _), list) in members.iter() {
        for (name, sid) in list {
            r.members_by_name
                .entry((*pi, name.clone()))
                .or_default()
                .push(*sid);
        }
    }
    r.structural();
    r.implements();
    for (fi, f) in files.iter().enumerate() {
        let Some(&pi) = pkg_of_file.get(&fi) else {
            continue;
        };
        let ctx = r.file_ctx(fi, pi);
        r.package_edges(&ctx);
        for reference in &f.go.refs {
            r.resolve(&ctx, reference);
        }
    }
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The module containing `dir`: its path and its directory.
fn module_of<'m>(
    modules: &'m BTreeMap<(RepoId, String), String>,
    repo: RepoId,
    dir: &str,
) -> Option<(&'m str, &'m str)> {
    let mut d = dir;
    loop {
        if let Some((key, m)) = modules.get_key_value(&(repo, d.to_string())) {
            return Some((m.as_str(), key.1.as_str()));
        }
        if d.is_empty() {
            return None;
        }
        d = parent_dir(d);
    }
}

fn import_path_of(
    modules: &BTreeMap<(RepoId, String), String>,
    repo: RepoId,
    dir: &str,
    repo_name: &str,
) -> String {
    match module_of(modules, repo, dir) {
        Some((m, mdir)) => {
            let rest = dir
                .strip_prefix(mdir)
                .unwrap_or(dir)
                .trim_start_matches('/');
            // The standard library's module `std` gives its packages unprefixed paths.
            if m == "std" {
                return if rest.is_empty() {
                    "std".to_string()
                } else {
                    rest.to_string()
                };
            }
            if rest.is_empty() {
                m.to_string()
            } else {
                format!("{m}/{rest}")
            }
        }
        None if dir.is_empty() => repo_name.to_string(),
        None => dir.to_string(),
    }
}

/// Whether an import path names the standard library: no dot in its first element.
fn is_stdlib(path: &str) -> bool {
    !path.split('/').next().unwrap_or("").contains('.')
}

/// Reads the `module` directive of a go.mod file.
pub fn module_path(go_mod: &str) -> Option<String> {
    go_mod.lines().find_map(|l| {
        let l = l.trim();
        let rest = l.strip_prefix("module")?;
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            return None;
        }
        let m = rest.split("//").next()?.trim().trim_matches('"');
        (!m.is_empty()).then(|| m.to_string())
    })
}
