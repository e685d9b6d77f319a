//! File scopes: what each import name of a file refers to, package-level names as a file sees
//! them (its package's scope, then dot imports), and the package edges imports make.

use crate::hash::HashMap;
use std::borrow::Cow;

use kivgraph_format::{Language, Provenance};

use super::Resolver;
use super::emission::external_reason;
use crate::emit::{self, Request, Site};
use crate::facts::SymbolId;

/// What an import name of a file refers to.
#[derive(Clone)]
pub(super) enum Imported {
    /// A compiled package (an index into the resolver's packages).
    Graph(usize),
    /// A package outside the graph, by import path.
    External(String),
}

/// What a file sees beyond its package's scope: its imports by name and its dot imports.
#[derive(Clone)]
pub(super) struct FileScope {
    /// The file and its package (indexes into the resolver's tables).
    pub(super) fi: usize,
    pub(super) pi: usize,
    pub(super) imports: HashMap<String, Imported>,
    pub(super) dot: Vec<Imported>,
}

/// What a possibly qualified package-level name denotes from a file.
pub(super) enum Lookup {
    Found(Vec<SymbolId>),
    External(String),
    None,
}

impl<'a> Resolver<'a> {
    /// The module path of package `pi`, for vendored imports.
    fn module_of_package(&self, pi: usize) -> Option<String> {
        self.facts.packages[self.pkgs[pi].id].module.clone()
    }

    /// The graph package an import path names from a package of `module`: the path itself, or
    /// the copy in the module's `vendor/` directory.
    pub(super) fn import(&self, module: Option<String>, path: &str) -> Option<usize> {
        if let Some(&p) = self.by_import_path.get(path) {
            return Some(p);
        }
        let vendored = match module.as_deref() {
            Some("std") | None => format!("vendor/{path}"),
            Some(m) => format!("{m}/vendor/{path}"),
        };
        self.by_import_path.get(&vendored).copied()
    }

    pub(super) fn file_scope(&self, fi: usize, pi: usize) -> Cow<'a, FileScope> {
        match self.file_scopes.get(fi) {
            Some(Some(c)) => Cow::Borrowed(c),
            _ => Cow::Owned(self.build_file_scope(fi, pi)),
        }
    }

    pub(super) fn build_file_scope(&self, fi: usize, pi: usize) -> FileScope {
        let mut imports = HashMap::default();
        let mut dot = Vec::new();
        for imp in &self.files[fi].go.imports {
            let target = match self.import(self.module_of_package(pi), &imp.path) {
                Some(p) => Imported::Graph(p),
                None => Imported::External(imp.path.clone()),
            };
            let default_name = match &target {
                Imported::Graph(p) => self.pkgs[*p]
                    .files
                    .first()
                    .map(|&f| self.files[f].go.package_name.clone())
                    .unwrap_or_default(),
                Imported::External(path) => default_package_name(path),
            };
            match imp.name.as_deref() {
                Some("_") => {}
                Some(".") => dot.push(target),
                Some(alias) => {
                    imports.insert(alias.to_string(), target);
                }
                None => {
                    imports.insert(default_name, target);
                }
            }
        }
        FileScope {
            fi,
            pi,
            imports,
            dot,
        }
    }

    /// Package dependencies from import declarations, and unresolved records for imports that no
    /// reference will ever name (blank and dot imports of packages outside the graph).
    pub(super) fn package_edges(&mut self, scope: &FileScope) {
        let f = &self.files[scope.fi];
        for imp in &f.go.imports {
            match self.import(self.module_of_package(scope.pi), &imp.path) {
                Some(target) if target != scope.pi => {
                    let (source, target) = (self.pkgs[scope.pi].id, self.pkgs[target].id);
                    let same_repository =
                        self.facts.packages[target].repo == self.facts.packages[source].repo;
                    emit::package_edge(
                        &mut self.out,
                        (source, target),
                        same_repository,
                        Provenance::GoImport,
                    );
                }
                Some(_) => {}
                None if matches!(imp.name.as_deref(), Some("_") | Some(".")) => {
                    let site = Site {
                        repo: f.repo,
                        file: f.file,
                        line: imp.line,
                        column: imp.column,
                        language: Language::Go,
                    };
                    let request = Request {
                        package: imp.path.clone(),
                        symbol: None,
                        detail: Some(format!(
                            "import {:?} {:?}",
                            imp.name.as_deref().unwrap_or(""),
                            imp.path
                        )),
                    };
                    let reason = external_reason(&imp.path);
                    emit::unresolved(&mut self.out, site, reason, request, None);
                }
                None => {}
            }
        }
    }

    /// A possibly qualified package-level name as seen from a file.
    pub(super) fn lookup_name(&self, scope: &FileScope, qual: Option<&str>, name: &str) -> Lookup {
        match qual {
            None => {
                if let Some(s) = self.pkgs[scope.pi].scope.get(name) {
                    return Lookup::Found(s.clone());
                }
                for d in &scope.dot {
                    match d {
                        Imported::Graph(p) => {
                            if let Some(s) = self.pkgs[*p].scope.get(name) {
                                return Lookup::Found(s.clone());
                            }
                        }
                        Imported::External(_) => {}
                    }
                }
                Lookup::None
            }
            Some(q) => match scope.imports.get(q) {
                Some(Imported::Graph(p)) => match self.pkgs[*p].scope.get(name) {
                    Some(s) => Lookup::Found(s.clone()),
                    None => Lookup::None,
                },
                Some(Imported::External(path)) => Lookup::External(path.clone()),
                None => Lookup::None,
            },
        }
    }
}

/// The package name an import path declares by convention: its last element, without a `.vN`
/// or `go-` decoration. Only used for packages outside the graph, whose clause we cannot read.
pub(super) fn default_package_name(path: &str) -> String {
    let mut last = path.rsplit('/').next().unwrap_or(path);
    if last.len() > 1
        && last.starts_with('v')
        && last[1..].chars().all(|c| c.is_ascii_digit())
        && path.matches('/').count() > 0
    {
        last = path.rsplit('/').nth(1).unwrap_or(last);
    }
    let last = last.strip_prefix("go-").unwrap_or(last);
    let last = last.split('.').next().unwrap_or(last);
    last.replace('-', "_")
}
