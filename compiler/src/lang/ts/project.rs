//! Projects and module resolution: `package.json` files (names, entry points, `exports` maps,
//! dependencies), `tsconfig.json`/`jsconfig.json` (`baseUrl`, `paths`, `extends`), and the
//! resolution of a module specifier to a compiled file (SPEC section 11.1).

use crate::hash::HashMap;
use std::collections::BTreeSet;

use serde_json::Value;

use crate::facts::{FactSet, RepoId};

/// Source extensions in the order a specifier without one tries them.
pub const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".d.mts", ".d.cts", ".js", ".jsx", ".mjs", ".cjs",
];

use crate::lang::ConfigFile;
pub use crate::lang::shared::join;

#[derive(Debug, Default)]
pub struct PackageJson {
    pub repo: RepoId,
    /// Repository-relative directory ("" for the root).
    pub dir: String,
    pub name: Option<String>,
    pub entries: Vec<String>,
    pub exports: Option<Value>,
    pub dependencies: BTreeSet<String>,
}

#[derive(Debug, Default, Clone)]
struct TsConfig {
    /// Repository-relative directory of the configuration.
    dir: String,
    base_url: Option<String>,
    /// (pattern, targets), targets repository-relative.
    paths: Vec<(String, Vec<String>)>,
}

/// What a specifier names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A compiled module (index into the resolver's modules).
    Module(usize),
    /// A package no compiled repository provides.
    PackageNotFound(String),
    AmbiguousPackage(String),
    NotFound,
}

pub struct Project {
    /// (repo, path) → module index.
    files: HashMap<(RepoId, String), usize>,
    /// Directories that hold a compiled file, for directory resolution.
    dirs: BTreeSet<(RepoId, String)>,
    pub packages: Vec<PackageJson>,
    by_name: HashMap<String, Vec<usize>>,
    /// (repo, dir) → package.json index.
    pkg_at: HashMap<(RepoId, String), usize>,
    configs: HashMap<(RepoId, String), TsConfig>,
}

/// Strips `//` and `/* */` comments and trailing commas: tsconfig files are JSON with comments.
pub fn strip_jsonc(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c as char);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            out.push('"');
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if c == b',' {
            let mut j = i + 1;
            while j < b.len() && (b[j] as char).is_whitespace() {
                j += 1;
            }
            if j < b.len() && (b[j] == b'}' || b[j] == b']') {
                i += 1;
            } else {
                out.push(',');
                i += 1;
            }
        } else {
            // Multi-byte characters outside strings are copied byte by byte as text.
            let ch_len = utf8_len(c);
            out.push_str(&s[i..(i + ch_len).min(s.len())]);
            i += ch_len;
        }
    }
    out
}

fn utf8_len(b: u8) -> usize {
    match b {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

pub fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// `@scope/name/sub` → (`@scope/name`, `sub`).
pub fn split_package(spec: &str) -> (String, String) {
    let mut it = spec.splitn(if spec.starts_with('@') { 3 } else { 2 }, '/');
    let name = if spec.starts_with('@') {
        let a = it.next().unwrap_or("");
        let b = it.next().unwrap_or("");
        format!("{a}/{b}")
    } else {
        it.next().unwrap_or("").to_string()
    };
    (name, it.next().unwrap_or("").to_string())
}

impl Project {
    /// The project of the compiled files, given as (repository, path) in module order (the
    /// index of a file is its module's), and the configuration files discovery found.
    pub fn new<'a>(
        facts: &mut FactSet,
        modules: impl IntoIterator<Item = (RepoId, &'a str)>,
        configs: &[ConfigFile],
    ) -> Project {
        let mut files = HashMap::default();
        let mut dirs = BTreeSet::new();
        for (i, (repo, path)) in modules.into_iter().enumerate() {
            files.insert((repo, path.to_string()), i);
            let mut d = parent(path);
            loop {
                if !dirs.insert((repo, d.to_string())) {
                    break;
                }
                if d.is_empty() {
                    break;
                }
                d = parent(d);
            }
        }
        let mut p = Project {
            files,
            dirs,
            packages: Vec::new(),
            by_name: HashMap::default(),
            pkg_at: HashMap::default(),
            configs: HashMap::default(),
        };
        let texts: HashMap<(RepoId, String), String> = configs
            .iter()
            .map(|c| ((c.repo, c.path.clone()), c.text.clone()))
            .collect();
        for c in configs {
            let base = c.path.rsplit('/').next().unwrap_or(&c.path);
            let dir = parent(&c.path).to_string();
            if base == "package.json" {
                match serde_json::from_str::<Value>(&c.text) {
                    Ok(v) => {
                        let pj = package_json(c.repo, dir.clone(), &v);
                        let idx = p.packages.len();
                        if let Some(n) = &pj.name {
                            p.by_name.entry(n.clone()).or_default().push(idx);
                        }
                        p.pkg_at.insert((c.repo, dir), idx);
                        p.packages.push(pj);
                    }
                    Err(e) => facts.diagnostics.push(crate::facts::Diagnostic {
                        repository: facts.repos[c.repo].name.clone(),
                        path: c.path.clone(),
                        message: format!("package.json is not valid JSON ({e}); ignored"),
                    }),
                }
            } else if base == "tsconfig.json" || base == "jsconfig.json" {
                match load_config(c.repo, &c.path, &texts, 0) {
                    Some(cfg) => {
                        // tsconfig.json wins over jsconfig.json in one directory.
                        if base == "tsconfig.json"
                            || !p.configs.contains_key(&(c.repo, dir.clone()))
                        {
                            p.configs.insert((c.repo, dir), cfg);
                        }
                    }
                    None => facts.diagnostics.push(crate::facts::Diagnostic {
                        repository: facts.repos[c.repo].name.clone(),
                        path: c.path.clone(),
                        message: "configuration is not valid JSON; ignored".into(),
                    }),
                }
            }
        }
        p
    }

    /// The nearest `package.json` at or above `path`'s directory.
    pub fn package_of(&self, repo: RepoId, path: &str) -> Option<usize> {
        let mut d = parent(path);
        loop {
            if let Some(&i) = self.pkg_at.get(&(repo, d.to_string())) {
                return Some(i);
            }
            if d.is_empty() {
                return None;
            }
            d = parent(d);
        }
    }

    fn config_of(&self, repo: RepoId, path: &str) -> Option<&TsConfig> {
        let mut d = parent(path);
        loop {
            if let Some(c) = self.configs.get(&(repo, d.to_string())) {
                return Some(c);
            }
            if d.is_empty() {
                return None;
            }
            d = parent(d);
        }
    }

    /// Resolves `spec` written in module `from` (repository `repo`, path `path`).
    pub fn resolve(&self, repo: RepoId, path: &str, spec: &str) -> Resolved {
        if spec.is_empty() {
            return Resolved::NotFound;
        }
        if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
            return match join(parent(path), spec).and_then(|p| self.try_path(repo, &p)) {
                Some(m) => Resolved::Module(m),
                None => Resolved::NotFound,
            };
        }
        if spec.starts_with('/') {
            return Resolved::NotFound;
        }
        if let Some(cfg) = self.config_of(repo, path) {
            match self.try_paths(repo, cfg, spec) {
                Some(Some(m)) => return Resolved::Module(m),
                // A `paths` pattern matched and none of its targets exists.
                Some(None) => return Resolved::NotFound,
                None => {}
            }
            if let Some(base) = &cfg.base_url
                && let Some(m) = join(base, spec).and_then(|p| self.try_path(repo, &p))
            {
                return Resolved::Module(m);
            }
        }
        if let Some(builtin) = spec.strip_prefix("node:") {
            return Resolved::PackageNotFound(format!("node:{}", split_package(builtin).0));
        }
        let (name, sub) = split_package(spec);
        let Some(cands) = self.by_name.get(&name) else {
            return Resolved::PackageNotFound(name);
        };
        let pick = self.pick_provider(repo, path, &name, cands);
        match pick {
            Ok(pi) => match self.resolve_in_package(pi, &sub) {
                Some(m) => Resolved::Module(m),
                None => Resolved::NotFound,
            },
            Err(()) => Resolved::AmbiguousPackage(name),
        }
    }

    fn pick_provider(
        &self,
        repo: RepoId,
        path: &str,
        name: &str,
        cands: &[usize],
    ) -> Result<usize, ()> {
        if cands.len() == 1 {
            return Ok(cands[0]);
        }
        let same: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&c| self.packages[c].repo == repo)
            .collect();
        if same.len() == 1 {
            return Ok(same[0]);
        }
        if same.len() > 1 {
            return Err(());
        }
        let depends = self
            .package_of(repo, path)
            .is_some_and(|p| self.packages[p].dependencies.contains(name));
        if depends {
            // One provider per repository: the first package.json of that name in it.
            let repos: BTreeSet<RepoId> = cands.iter().map(|&c| self.packages[c].repo).collect();
            if repos.len() == 1 {
                return Ok(cands[0]);
            }
        }
        Err(())
    }

    fn resolve_in_package(&self, pi: usize, sub: &str) -> Option<usize> {
        let pkg = &self.packages[pi];
        let key = if sub.is_empty() {
            ".".to_string()
        } else {
            format!("./{sub}")
        };
        if let Some(ex) = &pkg.exports
            && let Some(target) = exports_target(ex, &key)
        {
            let p = join(&pkg.dir, &target)?;
            if let Some(m) = self
                .try_path(pkg.repo, &p)
                .or_else(|| self.source_of_build(pkg, &target))
            {
                return Some(m);
            }
        }
        if sub.is_empty() {
            for e in &pkg.entries {
                if let Some(p) = join(&pkg.dir, e)
                    && let Some(m) = self
                        .try_path(pkg.repo, &p)
                        .or_else(|| self.source_of_build(pkg, e))
                {
                    return Some(m);
                }
            }
            for guess in ["index", "src/index", "lib/index"] {
                if let Some(p) = join(&pkg.dir, guess)
                    && let Some(m) = self.try_path(pkg.repo, &p)
                {
                    return Some(m);
                }
            }
            None
        } else {
            let p = join(&pkg.dir, sub)?;
            self.try_path(pkg.repo, &p).or_else(|| {
                let p = join(&pkg.dir, &format!("src/{sub}"))?;
                self.try_path(pkg.repo, &p)
            })
        }
    }

    /// A package's entry names a build output (`dist/index.js`) that is not in the repository:
    /// the same path under `src/` is its source, when it exists.
    fn source_of_build(&self, pkg: &PackageJson, target: &str) -> Option<usize> {
        let t = target.trim_start_matches("./");
        let (_, rest) = t.split_once('/')?;
        let rest = strip_ext(rest);
        let p = join(&pkg.dir, &format!("src/{rest}"))?;
        self.try_path(pkg.repo, &p)
    }

    /// `None` when no pattern matches; `Some(None)` when one matches and no target exists.
    fn try_paths(&self, repo: RepoId, cfg: &TsConfig, spec: &str) -> Option<Option<usize>> {
        let mut best: Option<(&str, &Vec<String>, String)> = None;
        for (pat, targets) in &cfg.paths {
            let star = match pat.split_once('*') {
                Some((pre, post)) => {
                    if spec.starts_with(pre)
                        && spec.ends_with(post)
                        && spec.len() >= pre.len() + post.len()
                    {
                        spec[pre.len()..spec.len() - post.len()].to_string()
                    } else {
                        continue;
                    }
                }
                None if pat == spec => String::new(),
                None => continue,
            };
            let plen = pat.split('*').next().unwrap_or("").len();
            if best
                .as_ref()
                .is_none_or(|(b, _, _)| b.split('*').next().unwrap_or("").len() < plen)
            {
                best = Some((pat, targets, star));
            }
        }
        let (_, targets, star) = best?;
        Some(
            targets
                .iter()
                .find_map(|t| self.try_path(repo, &t.replace('*', &star))),
        )
    }

    /// A path as TypeScript tries it: the file, with extensions, with extension substitution,
    /// then as a directory.
    pub fn try_path(&self, repo: RepoId, p: &str) -> Option<usize> {
        let hit = |q: &str| self.files.get(&(repo, q.to_string())).copied();
        if is_source_path(p) {
            if let Some(m) = hit(p) {
                return Some(m);
            }
            // `./a.js` names `a.ts`: TypeScript's extension substitution.
            for (js, tss) in [
                (".js", &[".ts", ".tsx", ".d.ts"][..]),
                (".jsx", &[".tsx"][..]),
                (".mjs", &[".mts", ".d.mts"][..]),
                (".cjs", &[".cts", ".d.cts"][..]),
            ] {
                if let Some(stem) = p.strip_suffix(js) {
                    for t in tss {
                        if let Some(m) = hit(&format!("{stem}{t}")) {
                            return Some(m);
                        }
                    }
                }
            }
        }
        for e in EXTENSIONS {
            if let Some(m) = hit(&format!("{p}{e}")) {
                return Some(m);
            }
        }
        if self.dirs.contains(&(repo, p.to_string())) {
            if let Some(&pi) = self.pkg_at.get(&(repo, p.to_string())) {
                let pkg = &self.packages[pi];
                if pkg.dir == p {
                    for e in &pkg.entries {
                        if let Some(q) = join(p, e)
                            && q != p
                            && let Some(m) = self.try_file(repo, &q)
                        {
                            return Some(m);
                        }
                    }
                }
            }
            for e in EXTENSIONS {
                let q = if p.is_empty() {
                    format!("index{e}")
                } else {
                    format!("{p}/index{e}")
                };
                if let Some(m) = hit(&q) {
                    return Some(m);
                }
            }
        }
        None
    }

    fn try_file(&self, repo: RepoId, p: &str) -> Option<usize> {
        let hit = |q: &str| self.files.get(&(repo, q.to_string())).copied();
        hit(p).or_else(|| EXTENSIONS.iter().find_map(|e| hit(&format!("{p}{e}"))))
    }
}

fn is_source_path(p: &str) -> bool {
    EXTENSIONS.iter().any(|e| p.ends_with(e))
}

fn strip_ext(p: &str) -> &str {
    for e in [".d.ts", ".d.mts", ".d.cts"] {
        if let Some(s) = p.strip_suffix(e) {
            return s;
        }
    }
    match p.rsplit_once('.') {
        Some((s, ext)) if !ext.contains('/') => s,
        _ => p,
    }
}

fn package_json(repo: RepoId, dir: String, v: &Value) -> PackageJson {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut entries = Vec::new();
    for k in ["types", "typings", "module", "main"] {
        if let Some(e) = s(k) {
            entries.push(e);
        }
    }
    let mut dependencies = BTreeSet::new();
    for k in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        if let Some(o) = v.get(k).and_then(Value::as_object) {
            dependencies.extend(o.keys().cloned());
        }
    }
    PackageJson {
        repo,
        dir,
        name: s("name"),
        entries,
        exports: v.get("exports").cloned(),
        dependencies,
    }
}

/// The target of `key` (`.` or `./sub`) in an `exports` value, conditions resolved in the
/// order `types`, `import`, `require`, `node`, `default`.
fn exports_target(ex: &Value, key: &str) -> Option<String> {
    match ex {
        Value::String(s) => (key == ".").then(|| s.clone()),
        Value::Array(a) => a.iter().find_map(|x| exports_target(x, key)),
        Value::Object(o) => {
            let is_map = o.keys().any(|k| k.starts_with('.'));
            if !is_map {
                return (key == ".").then(|| condition(ex)).flatten();
            }
            if let Some(v) = o.get(key) {
                return condition(v);
            }
            // Subpath patterns: the longest prefix wins.
            let mut best: Option<(usize, String)> = None;
            for (k, v) in o {
                if let Some((pre, post)) = k.split_once('*')
                    && key.starts_with(pre)
                    && key.ends_with(post)
                    && key.len() >= pre.len() + post.len()
                    && best.as_ref().is_none_or(|(l, _)| *l < pre.len())
                {
                    let star = &key[pre.len()..key.len() - post.len()];
                    if let Some(t) = condition(v) {
                        best = Some((pre.len(), t.replace('*', star)));
                    }
                }
            }
            best.map(|(_, t)| t)
        }
        _ => None,
    }
}

fn condition(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => a.iter().find_map(condition),
        Value::Object(o) => {
            for k in ["types", "import", "require", "node", "default"] {
                if let Some(t) = o.get(k).and_then(condition) {
                    return Some(t);
                }
            }
            o.values().find_map(condition)
        }
        _ => None,
    }
}

fn load_config(
    repo: RepoId,
    path: &str,
    texts: &HashMap<(RepoId, String), String>,
    depth: usize,
) -> Option<TsConfig> {
    let text = texts.get(&(repo, path.to_string()))?;
    let v: Value = serde_json::from_str(&strip_jsonc(text)).ok()?;
    let dir = parent(path).to_string();
    let mut cfg = TsConfig {
        dir: dir.clone(),
        ..TsConfig::default()
    };
    if depth < 8
        && let Some(ext) = v.get("extends").and_then(Value::as_str)
        && (ext.starts_with("./") || ext.starts_with("../"))
    {
        let mut p = join(&dir, ext)?;
        if !p.ends_with(".json") {
            p.push_str(".json");
        }
        if let Some(base) = load_config(repo, &p, texts, depth + 1) {
            cfg.base_url = base.base_url;
            cfg.paths = base.paths;
        }
    }
    let opts = v.get("compilerOptions");
    if let Some(b) = opts.and_then(|o| o.get("baseUrl")).and_then(Value::as_str) {
        cfg.base_url = join(&dir, b);
    }
    if let Some(paths) = opts.and_then(|o| o.get("paths")).and_then(Value::as_object) {
        // Targets are relative to baseUrl, or to the configuration's directory without one.
        let root = cfg.base_url.clone().unwrap_or_else(|| dir.clone());
        cfg.paths = paths
            .iter()
            .map(|(k, ts)| {
                let targets = ts
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .filter_map(|t| join(&root, t))
                            .collect()
                    })
                    .unwrap_or_default();
                (k.clone(), targets)
            })
            .collect();
    }
    let _ = &cfg.dir;
    Some(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let v: Value = serde_json::from_str(&strip_jsonc(
            "{\n // c\n \"a\": \"x//y\", /* b */ \"b\": [1, 2,],\n}",
        ))
        .unwrap();
        assert_eq!(v["a"], "x//y");
        assert_eq!(v["b"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn package_names_split() {
        assert_eq!(split_package("@a/b/c/d"), ("@a/b".into(), "c/d".into()));
        assert_eq!(split_package("lodash/fp"), ("lodash".into(), "fp".into()));
        assert_eq!(split_package("react"), ("react".into(), String::new()));
    }

    #[test]
    fn exports_maps() {
        let ex: Value = serde_json::from_str(
            r#"{".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"},
                "./feature/*": "./src/feature/*.ts", "./package.json": "./package.json"}"#,
        )
        .unwrap();
        for (sub, want) in [
            (".", Some("./dist/index.d.ts")),
            ("./feature/x", Some("./src/feature/x.ts")),
            ("./missing", None),
        ] {
            assert_eq!(exports_target(&ex, sub).as_deref(), want, "{sub}");
        }
        assert_eq!(
            exports_target(&Value::String("./i.js".into()), ".").as_deref(),
            Some("./i.js")
        );
    }

    #[test]
    fn joins_stay_inside() {
        assert_eq!(join("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(join("a", "../../c"), None);
        assert_eq!(join("", "./x").as_deref(), Some("x"));
    }
}
