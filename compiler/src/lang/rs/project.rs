//! Cargo: the crates of each `Cargo.toml` with a `[package]` table, their root files, their
//! dependencies (renames and workspace inheritance honoured) and their edition.

use crate::hash::{HashMap, HashSet};
use std::collections::BTreeMap;

use crate::facts::{Diagnostic, FactSet, RepoId};
use crate::lang::ConfigFile;

/// What kind of target a crate is; its prefix in package names (SPEC 14.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CrateKind {
    Lib,
    Bin,
    Test,
    Example,
    Bench,
    Build,
}

impl CrateKind {
    pub fn prefix(self) -> &'static str {
        match self {
            CrateKind::Lib => "",
            CrateKind::Bin => "bin:",
            CrateKind::Test => "test:",
            CrateKind::Example => "example:",
            CrateKind::Bench => "bench:",
            CrateKind::Build => "build:",
        }
    }
}

/// One crate of a Cargo package.
#[derive(Clone, Debug)]
pub struct CrateDef {
    pub repo: RepoId,
    pub kind: CrateKind,
    /// The crate name, `-` mapped to `_`.
    pub name: String,
    /// The Cargo package name as written.
    pub package: String,
    /// Repository-relative path of the root file.
    pub root: String,
    /// Dependency key → (the Cargo package name it names, renamed with `package = …`). The
    /// extern crate name is the key when renamed, else the library's name.
    pub deps: BTreeMap<String, (String, bool)>,
    /// The edition (`2021`), inherited from the workspace when so written; `2015` by default.
    pub edition: String,
}

/// `rel` joined to the repository-relative directory `dir` (`.` and `..` followed).
pub(super) fn join(dir: &str, rel: &str) -> String {
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

/// The directory of a repository-relative path (`""` at the root).
pub(super) fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Reads every `Cargo.toml` of `configs` into crates, against the set of `.rs` files that
/// exist (`files`: (repo, path)).
pub fn crates(
    facts: &mut FactSet,
    configs: &[ConfigFile],
    files: &HashSet<(RepoId, String)>,
) -> Vec<CrateDef> {
    let mut tables: Vec<(RepoId, String, toml::Table)> = Vec::new();
    for c in configs {
        let name = c.path.rsplit('/').next().unwrap_or(&c.path);
        if name != "Cargo.toml" {
            continue;
        }
        match c.text.parse::<toml::Table>() {
            Ok(t) => tables.push((c.repo, parent(&c.path).to_string(), t)),
            Err(e) => facts.diagnostics.push(Diagnostic {
                repository: facts.repos[c.repo].name.clone(),
                path: c.path.clone(),
                message: format!(
                    "Cargo.toml is not valid TOML, its crates are not read: {}",
                    e.message()
                ),
            }),
        }
    }
    // Workspaces: (repo, dir) → the workspace table.
    let workspaces: Vec<(RepoId, String, &toml::Table)> = tables
        .iter()
        .filter_map(|(r, d, t)| {
            t.get("workspace")
                .and_then(|w| w.as_table())
                .map(|w| (*r, d.clone(), w))
        })
        .collect();
    let workspace_of = |repo: RepoId, dir: &str| -> Option<&toml::Table> {
        workspaces
            .iter()
            .filter(|(r, d, _)| {
                *r == repo && (d.is_empty() || dir == d || dir.starts_with(&format!("{d}/")))
            })
            .max_by_key(|(_, d, _)| d.len())
            .map(|(_, _, w)| *w)
    };
    let mut out = Vec::new();
    for (repo, dir, t) in &tables {
        let Some(pkg) = t.get("package").and_then(|p| p.as_table()) else {
            continue;
        };
        let Some(pname) = pkg.get("name").and_then(|n| n.as_str()) else {
            continue;
        };
        let ws = workspace_of(*repo, dir);
        let ws_pkg = ws.and_then(|w| w.get("package")).and_then(|p| p.as_table());
        let edition = match pkg.get("edition") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(toml::Value::Table(_)) => ws_pkg
                .and_then(|p| p.get("edition"))
                .and_then(|e| e.as_str())
                .unwrap_or("2015")
                .to_string(),
            _ => "2015".to_string(),
        };
        let ws_deps = ws
            .and_then(|w| w.get("dependencies"))
            .and_then(|d| d.as_table());
        let mut deps = BTreeMap::new();
        let mut read_deps = |table: Option<&toml::Value>| {
            let Some(table) = table.and_then(|d| d.as_table()) else {
                return;
            };
            for (key, v) in table {
                let mut package = key.clone();
                let mut renamed = false;
                if let Some(vt) = v.as_table() {
                    if let Some(p) = vt.get("package").and_then(|p| p.as_str()) {
                        package = p.to_string();
                        renamed = true;
                    } else if vt.get("workspace").and_then(|w| w.as_bool()) == Some(true)
                        && let Some(p) = ws_deps
                            .and_then(|d| d.get(key))
                            .and_then(|d| d.as_table())
                            .and_then(|d| d.get("package"))
                            .and_then(|p| p.as_str())
                    {
                        package = p.to_string();
                        renamed = true;
                    }
                }
                deps.insert(key.replace('-', "_"), (package, renamed));
            }
        };
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            read_deps(t.get(section));
        }
        if let Some(targets) = t.get("target").and_then(|t| t.as_table()) {
            for (_, tt) in targets {
                for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
                    read_deps(tt.get(section));
                }
            }
        }
        let exists = |p: &str| files.contains(&(*repo, p.to_string()));
        let crate_name = pname.replace('-', "_");
        let add = |kind: CrateKind, name: String, root: String, out: &mut Vec<CrateDef>| {
            if !files.contains(&(*repo, root.clone())) {
                return;
            }
            if out
                .iter()
                .any(|c: &CrateDef| c.repo == *repo && c.root == root && c.kind == kind)
            {
                return;
            }
            out.push(CrateDef {
                repo: *repo,
                kind,
                name: name.replace('-', "_"),
                package: pname.to_string(),
                root,
                deps: deps.clone(),
                edition: edition.clone(),
            });
        };
        // The library.
        let lib = t.get("lib").and_then(|l| l.as_table());
        let lib_root = lib
            .and_then(|l| l.get("path"))
            .and_then(|p| p.as_str())
            .map(|p| join(dir, p))
            .unwrap_or_else(|| join(dir, "src/lib.rs"));
        let lib_name = lib
            .and_then(|l| l.get("name"))
            .and_then(|n| n.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| crate_name.clone());
        add(CrateKind::Lib, lib_name, lib_root, &mut out);
        // Explicit targets.
        for (section, kind, default_dir) in [
            ("bin", CrateKind::Bin, "src/bin"),
            ("test", CrateKind::Test, "tests"),
            ("example", CrateKind::Example, "examples"),
            ("bench", CrateKind::Bench, "benches"),
        ] {
            if let Some(list) = t.get(section).and_then(|b| b.as_array()) {
                for b in list.iter().filter_map(|b| b.as_table()) {
                    let name = b.get("name").and_then(|n| n.as_str());
                    let path = b.get("path").and_then(|p| p.as_str());
                    let root = match (path, name) {
                        (Some(p), _) => join(dir, p),
                        (None, Some(n)) => {
                            let main = join(dir, "src/main.rs");
                            if kind == CrateKind::Bin && n == pname && exists(&main) {
                                main
                            } else {
                                let a = join(dir, &format!("{default_dir}/{n}.rs"));
                                if exists(&a) {
                                    a
                                } else {
                                    join(dir, &format!("{default_dir}/{n}/main.rs"))
                                }
                            }
                        }
                        (None, None) => continue,
                    };
                    let name = name.map(str::to_string).unwrap_or_else(|| {
                        root.rsplit('/')
                            .next()
                            .unwrap_or("")
                            .trim_end_matches(".rs")
                            .to_string()
                    });
                    add(kind, name, root, &mut out);
                }
            }
        }
        // Auto-discovered targets.
        add(
            CrateKind::Bin,
            crate_name.clone(),
            join(dir, "src/main.rs"),
            &mut out,
        );
        let mut auto: Vec<(CrateKind, String, String)> = Vec::new();
        for (repo_f, path) in files {
            if repo_f != repo {
                continue;
            }
            let Some(rel) = (if dir.is_empty() {
                Some(path.as_str())
            } else {
                path.strip_prefix(&format!("{dir}/"))
            }) else {
                continue;
            };
            for (prefix, kind) in [
                ("src/bin/", CrateKind::Bin),
                ("tests/", CrateKind::Test),
                ("examples/", CrateKind::Example),
                ("benches/", CrateKind::Bench),
            ] {
                let Some(rest) = rel.strip_prefix(prefix) else {
                    continue;
                };
                let parts: Vec<&str> = rest.split('/').collect();
                match parts.as_slice() {
                    [f] if f.ends_with(".rs") => {
                        auto.push((kind, f.trim_end_matches(".rs").to_string(), path.clone()))
                    }
                    [d, "main.rs"] => auto.push((kind, d.to_string(), path.clone())),
                    _ => {}
                }
            }
        }
        auto.sort();
        for (kind, name, root) in auto {
            add(kind, name, root, &mut out);
        }
        let build = match pkg.get("build") {
            Some(toml::Value::String(p)) => Some(join(dir, p)),
            Some(toml::Value::Boolean(false)) => None,
            _ => Some(join(dir, "build.rs")),
        };
        if let Some(b) = build {
            add(CrateKind::Build, crate_name.clone(), b, &mut out);
        }
    }
    out
}

/// The features each package enables by default: `[features] default` and, transitively, the
/// features it names (`dep:x` and `x/y` entries enable no feature of the package), keyed by
/// the package's repository and directory.
pub(super) fn default_features(
    configs: &[crate::lang::ConfigFile],
) -> HashMap<(RepoId, String), std::sync::Arc<std::collections::BTreeSet<String>>> {
    let mut out = HashMap::default();
    for c in configs {
        let name = c.path.rsplit('/').next().unwrap_or(&c.path);
        if name != "Cargo.toml" {
            continue;
        }
        let Ok(t) = c.text.parse::<toml::Table>() else {
            continue;
        };
        if t.get("package").and_then(|p| p.as_table()).is_none() {
            continue;
        }
        let table = t.get("features").and_then(|f| f.as_table());
        let mut on = std::collections::BTreeSet::new();
        let mut todo: Vec<String> = vec!["default".to_string()];
        while let Some(f) = todo.pop() {
            if !on.insert(f.clone()) {
                continue;
            }
            let Some(list) = table.and_then(|t| t.get(&f)).and_then(|v| v.as_array()) else {
                continue;
            };
            for e in list.iter().filter_map(|e| e.as_str()) {
                if !e.starts_with("dep:") && !e.contains('/') {
                    todo.push(e.to_string());
                }
            }
        }
        out.insert(
            (c.repo, parent(&c.path).to_string()),
            std::sync::Arc::new(on),
        );
    }
    out
}
