//! Module roots and dotted module names (SPEC section 12.1): the repository root, `src/`, and
//! the package directories `pyproject.toml` and `setup.cfg` name; project names for the
//! `module` field and for binding imports to other repositories.

use crate::hash::HashMap;
use std::collections::BTreeSet;

use crate::facts::RepoId;
use crate::lang::ConfigFile;

/// What the configuration files of one repository say.
#[derive(Debug, Default, Clone)]
pub struct RepoLayout {
    /// Module roots, repository-relative ("" for the root), deepest first when matched.
    pub roots: BTreeSet<String>,
    /// (directory of the configuration file, project name).
    pub projects: Vec<(String, String)>,
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, rel: &str) -> String {
    let rel = rel.trim().trim_matches('/').trim_start_matches("./");
    match (dir.is_empty(), rel.is_empty() || rel == ".") {
        (_, true) => dir.to_string(),
        (true, false) => rel.to_string(),
        (false, false) => format!("{dir}/{rel}"),
    }
}

/// The string literals of a TOML value (`"x"`, `["a", "b"]`, `{ include = "x", from = "src" }`).
fn strings(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = v.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != q {
                i += 1;
            }
            out.push(v[start..i.min(v.len())].to_string());
        }
        i += 1;
    }
    out
}

/// `key = value` lines per `[section]`, a value continued while brackets are open.
fn toml_entries(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut pending: Option<(String, String)> = None;
    let mut depth = 0i32;
    for line in text.lines() {
        let l = line.split(" #").next().unwrap_or(line).trim();
        if let Some((k, v)) = pending.as_mut() {
            v.push(' ');
            v.push_str(l);
            depth += l.matches(['[', '{']).count() as i32 - l.matches([']', '}']).count() as i32;
            if depth <= 0 {
                out.push((section.clone(), k.clone(), v.clone()));
                pending = None;
            }
            continue;
        }
        if l.starts_with('[') && !l.contains('=') {
            section = l.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            continue;
        }
        if let Some((k, v)) = l.split_once('=') {
            let k = k.trim().trim_matches('"').to_string();
            let v = v.trim().to_string();
            depth = v.matches(['[', '{']).count() as i32 - v.matches([']', '}']).count() as i32;
            if depth > 0 {
                pending = Some((k, v));
            } else {
                out.push((section.clone(), k, v));
            }
        }
    }
    out
}

/// `key = value` per `[section]` of an INI file, indented lines continuing the value.
fn ini_entries(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with(['#', ';']) {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.2.push('\n');
                last.2.push_str(line.trim());
            }
            continue;
        }
        let l = line.trim();
        if l.starts_with('[') {
            section = l.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        if let Some((k, v)) = l.split_once('=').or_else(|| l.split_once(':')) {
            out.push((section.clone(), k.trim().to_string(), v.trim().to_string()));
        }
    }
    out
}

/// Adds the module roots every repository of `files` (repository, path) has besides the
/// configured ones: its root, and `src/` when Python files lie under it.
pub fn add_default_roots<'a>(
    layouts: &mut HashMap<RepoId, RepoLayout>,
    files: impl IntoIterator<Item = (RepoId, &'a str)>,
) {
    for (repo, path) in files {
        let l = layouts.entry(repo).or_default();
        l.roots.insert(String::new());
        if path.starts_with("src/") {
            l.roots.insert("src".into());
        }
    }
}

/// Reads the layouts of every repository from its configuration files.
pub fn layouts(configs: &[ConfigFile]) -> HashMap<RepoId, RepoLayout> {
    let mut out: HashMap<RepoId, RepoLayout> = HashMap::default();
    for c in configs {
        let base = c.path.rsplit('/').next().unwrap_or(&c.path);
        let dir = parent(&c.path).to_string();
        let layout = out.entry(c.repo).or_default();
        match base {
            "pyproject.toml" => {
                for (section, key, value) in toml_entries(&c.text) {
                    match (section.as_str(), key.as_str()) {
                        ("project", "name") | ("tool.poetry", "name") => {
                            if let Some(n) = strings(&value).into_iter().next() {
                                layout.projects.push((dir.clone(), n));
                            }
                        }
                        ("tool.setuptools", "package-dir") | ("tool.setuptools.package-dir", _) => {
                            // `{"" = "src"}`, or a line `"" = "src"` in the table.
                            let s = strings(&value);
                            if let Some(root) = s.last() {
                                layout.roots.insert(join(&dir, root));
                            }
                        }
                        ("tool.setuptools.packages.find", "where") => {
                            for w in strings(&value) {
                                layout.roots.insert(join(&dir, &w));
                            }
                        }
                        ("tool.hatch.build.targets.wheel", "packages") => {
                            // `["src/foo"]`: foo's parent is a root.
                            for p in strings(&value) {
                                layout.roots.insert(join(&dir, parent(&p)));
                            }
                        }
                        ("tool.poetry", "packages") => {
                            // `[{ include = "foo", from = "src" }]`.
                            let mut from_next = false;
                            for part in value.split(',') {
                                if part.contains("from") {
                                    from_next = true;
                                }
                                if from_next && let Some(f) = strings(part).into_iter().next() {
                                    layout.roots.insert(join(&dir, &f));
                                    from_next = false;
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            "setup.cfg" => {
                for (section, key, value) in ini_entries(&c.text) {
                    match (section.as_str(), key.as_str()) {
                        ("metadata", "name") => layout.projects.push((dir.clone(), value)),
                        ("options", "package_dir") => {
                            for line in value.lines() {
                                if let Some((k, v)) = line.split_once('=')
                                    && k.trim().is_empty()
                                {
                                    layout.roots.insert(join(&dir, v));
                                }
                            }
                        }
                        ("options.packages.find", "where") => {
                            layout.roots.insert(join(&dir, &value));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The dotted module name of `path` under the deepest root that contains it, or `None` when
/// a part is not an identifier (such a file is compiled, but nothing can import it).
pub fn module_name(roots: &BTreeSet<String>, path: &str) -> Option<String> {
    let root = roots
        .iter()
        .filter(|r| r.is_empty() || path.starts_with(&format!("{r}/")))
        .max_by_key(|r| r.len())?;
    let rel = if root.is_empty() {
        path
    } else {
        &path[root.len() + 1..]
    };
    let stem = rel
        .strip_suffix(".py")
        .or_else(|| rel.strip_suffix(".pyi"))?;
    let mut parts: Vec<&str> = stem.split('/').collect();
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    if parts.is_empty() {
        return None;
    }
    let ok = parts.iter().all(|p| {
        !p.is_empty()
            && p.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
    });
    ok.then(|| parts.join("."))
}

/// PEP 503 normalisation with `_`: `Acme-CoreLib` → `acme_corelib`.
pub fn normalise(name: &str) -> String {
    name.to_lowercase().replace(['-', '.'], "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_under_roots() {
        let roots: BTreeSet<String> = ["".to_string(), "src".to_string()].into();
        for (path, want) in [
            ("src/shop/models/order.py", Some("shop.models.order")),
            ("src/shop/__init__.py", Some("shop")),
            ("tools/run.py", Some("tools.run")),
            ("my-scripts/run.py", None),
        ] {
            assert_eq!(module_name(&roots, path).as_deref(), want, "{path}");
        }
    }

    #[test]
    fn pyproject_and_setup_cfg() {
        let configs = vec![
            ConfigFile {
                repo: RepoId(0),
                path: "pyproject.toml".into(),
                text: "[project]\nname = \"acme-corelib\"\n[tool.setuptools.packages.find]\nwhere = [\"lib\"]\n".into(),
            },
            ConfigFile {
                repo: RepoId(1),
                path: "setup.cfg".into(),
                text: "[metadata]\nname = app\n[options]\npackage_dir =\n    =source\n".into(),
            },
        ];
        let l = layouts(&configs);
        assert!(l[&RepoId(0)].roots.contains("lib"));
        assert_eq!(
            l[&RepoId(0)].projects,
            vec![(String::new(), "acme-corelib".to_string())]
        );
        assert!(l[&RepoId(1)].roots.contains("source"));
        assert_eq!(normalise("Acme-CoreLib"), "acme_corelib");
    }
}
