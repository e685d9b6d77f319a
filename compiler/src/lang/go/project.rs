//! The Go project model: modules from `go.mod`, the import path of every directory, and the
//! build constraints that decide which files a package is built from.
//!
//! Build constraints are evaluated for the default target linux/amd64 (gc, cgo enabled). A file
//! is built when its name suffix (`_linux.go`, `_windows_arm64.go`, …) and its `//go:build` line
//! (or, without one, its legacy `// +build` lines) both admit the target.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_format::{FileStatus, Language};

use crate::emit::{self, Request, reason};
use crate::facts::{Diagnostic, FactSet, RepoId, ScopeReach};
use crate::lang::ConfigFile;
use crate::pipeline::{Project, SourceInput};

/// The modules of the corpus: (repository, directory of a `go.mod`) → module path.
///
/// Two `go.mod` files of one repository may declare the same module path (a copied tree, a
/// vendored fork). The first directory in path order keeps the path; the packages of every later
/// one are named by their directories, as packages outside any module are, so that no two
/// packages share a name.
pub(super) struct Modules {
    paths: BTreeMap<(RepoId, String), String>,
    /// (repository, directory) of a module whose path an earlier directory declares → that
    /// earlier directory.
    shadowed: BTreeMap<(RepoId, String), String>,
}

impl Modules {
    /// Every `go.mod` among the project files that declares a module path.
    pub(super) fn read(configs: &[ConfigFile]) -> Modules {
        let mut paths = BTreeMap::new();
        for c in configs {
            let (dir, name) = c.path.rsplit_once('/').unwrap_or(("", &c.path));
            if name == "go.mod"
                && let Some(m) = module_path(&c.text)
            {
                paths.insert((c.repo, dir.to_string()), m);
            }
        }
        let mut first: BTreeMap<(RepoId, &str), &str> = BTreeMap::new();
        let mut shadowed = BTreeMap::new();
        for ((repo, dir), m) in &paths {
            match first.get(&(*repo, m.as_str())) {
                Some(earlier) => {
                    shadowed.insert((*repo, dir.clone()), earlier.to_string());
                }
                None => {
                    first.insert((*repo, m.as_str()), dir.as_str());
                }
            }
        }
        Modules { paths, shadowed }
    }

    /// The modules whose path an earlier directory of their repository declares:
    /// (repository, directory, module path, the earlier directory).
    pub(super) fn shadowed(&self) -> impl Iterator<Item = (RepoId, &str, &str, &str)> {
        self.shadowed.iter().map(|((repo, dir), earlier)| {
            let m = self.paths[&(*repo, dir.clone())].as_str();
            (*repo, dir.as_str(), m, earlier.as_str())
        })
    }

    /// The module containing `dir`: its path and its directory.
    pub(super) fn module_of(&self, repo: RepoId, dir: &str) -> Option<(&str, &str)> {
        let mut d = dir;
        loop {
            if let Some((key, m)) = self.paths.get_key_value(&(repo, d.to_string())) {
                return Some((m.as_str(), key.1.as_str()));
            }
            if d.is_empty() {
                return None;
            }
            d = parent_dir(d);
        }
    }

    /// The import path of directory `dir` of repository `repo` (named `repo_name`).
    pub(super) fn import_path(&self, repo: RepoId, dir: &str, repo_name: &str) -> String {
        match self.module_of(repo, dir) {
            Some((_, mdir)) if self.shadowed.contains_key(&(repo, mdir.to_string())) => {
                dir.to_string()
            }
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
}

/// Reads the `module` directive of a go.mod file.
pub(super) fn module_path(go_mod: &str) -> Option<String> {
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

/// The directory of a repository-relative path (`""` at the root).
pub(super) fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Whether an import path names the standard library: no dot in its first element.
pub(super) fn is_stdlib(path: &str) -> bool {
    !path.split('/').next().unwrap_or("").contains('.')
}

/// Build constraints: an excluded file is recorded but never parsed, and a directory whose every
/// file is excluded is a `PACKAGE_NOT_BUILDABLE` record.
pub(super) fn admit(
    facts: &mut FactSet,
    inputs: Vec<SourceInput>,
    modules: &Modules,
    project: &Project,
) -> Vec<SourceInput> {
    for (repo, dir, m, earlier) in modules.shadowed() {
        let go_mod = |d: &str| {
            if d.is_empty() {
                "go.mod".to_string()
            } else {
                format!("{d}/go.mod")
            }
        };
        facts.diagnostics.push(Diagnostic {
            repository: facts.repos[repo].name.clone(),
            path: go_mod(dir),
            message: format!(
                "declares module {m}, as {} already does; its packages are named by their directories",
                go_mod(earlier)
            ),
        });
    }
    let mut dirs_seen: BTreeMap<(RepoId, String), (usize, usize)> = BTreeMap::new();
    let mut excluded: BTreeMap<(RepoId, String), Vec<SourceInput>> = BTreeMap::new();
    let mut kept = Vec::new();
    for input in inputs {
        let dir = parent_dir(&input.meta.path).to_string();
        let name = input
            .meta
            .path
            .rsplit('/')
            .next()
            .unwrap_or(&input.meta.path);
        let admitted = file_name_admits(name) && header_admits(input.text.admission(Language::Go));
        let e = dirs_seen.entry((input.meta.repo, dir.clone())).or_default();
        e.0 += 1;
        if admitted {
            e.1 += 1;
            kept.push(input);
        } else {
            facts.files[input.meta.file].status = FileStatus::BuildExcluded;
            excluded
                .entry((input.meta.repo, dir))
                .or_default()
                .push(input);
        }
    }
    // Packages none of whose files is built, with what their files import and declare (read
    // in parallel, through the extraction cache like any parse).
    let unbuilt: Vec<(RepoId, String)> = dirs_seen
        .iter()
        .filter(|(_, (all, admitted))| *all > 0 && *admitted == 0)
        .map(|(key, _)| key.clone())
        .collect();
    let facts_view: &FactSet = facts;
    let reaches: Vec<Option<ScopeReach>> = crate::lang::walk_pool().install(|| {
        use rayon::prelude::*;
        unbuilt
            .par_iter()
            .map(|key| {
                let files = excluded.get(key).map_or(&[][..], Vec::as_slice);
                reach(facts_view, files, project)
            })
            .collect()
    });
    for ((repo, dir), reach) in unbuilt.into_iter().zip(reaches) {
        let repository = &facts.repos[repo];
        let import_path = modules.import_path(repo, &dir, &repository.name);
        // Repository-relative, so that a generation holds no path of the compiling machine.
        let rel = if dir.is_empty() { "." } else { dir.as_str() };
        let request = Request {
            package: import_path,
            symbol: None,
            detail: Some(format!("build constraints exclude all Go files in {rel}")),
        };
        let scope = (repo, Language::Go);
        emit::unresolved_scope(facts, scope, reason::PACKAGE_NOT_BUILDABLE, request, reach);
    }
    kept
}

/// What the files of a package that is not built import and declare, read off their syntax so
/// that completeness names the package only where it could hold a use (SPEC 7.10); `None` when
/// a file has syntax errors or could not be read (what it holds is then not known).
fn reach(facts: &FactSet, files: &[SourceInput], project: &Project) -> Option<ScopeReach> {
    let mut imports = BTreeSet::new();
    let mut declares = BTreeSet::new();
    for input in files {
        let go = crate::pipeline::extract_cached::<super::Go>(facts, input, project)
            .ok()?
            .parsed;
        if go.has_errors || go.too_deep {
            return None;
        }
        imports.extend(go.imports.into_iter().map(|i| i.path));
        declares.extend(go.decls.into_iter().map(|d| d.name));
    }
    Some(ScopeReach {
        imports: imports.into_iter().collect(),
        declares: declares.into_iter().collect(),
    })
}

// ---- build constraints ----

const GOOS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];
const GOARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

/// Whether `tag` holds for the default target.
fn tag_holds(tag: &str) -> bool {
    match tag {
        "linux" | "amd64" | "unix" | "gc" | "cgo" => true,
        // The experiments the gc toolchain enables by default on amd64.
        "goexperiment.regabiargs" | "goexperiment.regabiwrappers" => true,
        t if t.starts_with("go1.") => t[4..].parse::<u32>().is_ok_and(|minor| minor <= 24),
        _ => false,
    }
}

/// The lines before the package clause, where build constraints are written: what
/// [`header_admits`] reads (a compile unit keeps only these of a file's text).
pub(crate) fn header(source: &str) -> &str {
    let mut end = 0;
    for line in source.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with("/*") || t.starts_with('*') || t.starts_with("//")) {
            break;
        }
        end += line.len();
    }
    &source[..end]
}

/// Whether the file name admits the default target (`_test` is ignored here).
pub(super) fn file_name_admits(name: &str) -> bool {
    if name.starts_with('_') || name.starts_with('.') {
        return false;
    }
    let stem = name.strip_suffix(".go").unwrap_or(name);
    let stem = stem.strip_suffix("_test").unwrap_or(stem);
    let parts: Vec<&str> = stem.split('_').collect();
    if parts.len() < 2 {
        return true;
    }
    let last = parts[parts.len() - 1];
    let prev = if parts.len() >= 3 {
        Some(parts[parts.len() - 2])
    } else {
        None
    };
    if GOARCH.contains(&last) {
        if let Some(os) = prev.filter(|p| GOOS.contains(p)) {
            return tag_holds(os) && tag_holds(last);
        }
        return tag_holds(last);
    }
    if GOOS.contains(&last) {
        return tag_holds(last);
    }
    true
}

/// Whether the leading comments of `source` admit the default target.
pub(super) fn header_admits(source: &str) -> bool {
    let mut legacy: Vec<&str> = Vec::new();
    for line in header(source).lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("/*") || t.starts_with('*') {
            continue;
        }
        if !t.starts_with("//") {
            break; // the package clause or code: constraints end here
        }
        if let Some(expr) = t.strip_prefix("//go:build") {
            return eval(expr.trim()).unwrap_or(true);
        }
        if let Some(expr) = t.strip_prefix("// +build") {
            legacy.push(expr.trim());
        }
    }
    // Legacy lines: space = OR, comma = AND, `!` negates, several lines AND together.
    legacy.iter().all(|line| {
        line.split_whitespace().any(|alt| {
            alt.split(',').all(|term| match term.strip_prefix('!') {
                Some(t) => !tag_holds(t),
                None => tag_holds(term),
            })
        })
    })
}

/// Evaluates a `//go:build` expression; `None` when it does not parse.
fn eval(expr: &str) -> Option<bool> {
    let tokens = tokenize(expr)?;
    let mut p = Parser { tokens, pos: 0 };
    let v = p.or()?;
    (p.pos == p.tokens.len()).then_some(v)
}

fn tokenize(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' => i += 1,
            b'(' | b')' | b'!' => {
                out.push((b[i] as char).to_string());
                i += 1;
            }
            b'&' | b'|' if i + 1 < b.len() && b[i + 1] == b[i] => {
                out.push(s[i..i + 2].to_string());
                i += 2;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                out.push(s[start..i].to_string());
            }
            _ => return None,
        }
    }
    Some(out)
}

struct Parser {
    tokens: Vec<String>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }
    fn or(&mut self) -> Option<bool> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.pos += 1;
            let r = self.and()?;
            v = v || r;
        }
        Some(v)
    }
    fn and(&mut self) -> Option<bool> {
        let mut v = self.not()?;
        while self.peek() == Some("&&") {
            self.pos += 1;
            let r = self.not()?;
            v = v && r;
        }
        Some(v)
    }
    fn not(&mut self) -> Option<bool> {
        match self.peek()? {
            "!" => {
                self.pos += 1;
                Some(!self.not()?)
            }
            "(" => {
                self.pos += 1;
                let v = self.or()?;
                (self.peek() == Some(")")).then(|| self.pos += 1)?;
                Some(v)
            }
            "&&" | "||" | ")" => None,
            tag => {
                let v = tag_holds(tag);
                self.pos += 1;
                Some(v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_directives() {
        assert_eq!(
            module_path("// c\nmodule example.com/m // trailing\n"),
            Some("example.com/m".into())
        );
        assert_eq!(
            module_path("module \"quoted/m\"\n"),
            Some("quoted/m".into())
        );
        assert_eq!(module_path("modulex y\nmodule\n"), None);
    }

    #[test]
    fn import_paths_follow_the_nearest_module() {
        let config = |repo, path: &str, text: &str| ConfigFile {
            repo,
            path: path.into(),
            text: text.into(),
        };
        let modules = Modules::read(&[
            config(RepoId(0), "go.mod", "module example.com/a\n"),
            config(RepoId(0), "sub/go.mod", "module example.com/b\n"),
            config(RepoId(0), "package.json", "module not.go\n"),
            config(RepoId(1), "src/go.mod", "module std\n"),
        ]);
        assert_eq!(modules.import_path(RepoId(0), "", "r"), "example.com/a");
        assert_eq!(
            modules.import_path(RepoId(0), "x/y", "r"),
            "example.com/a/x/y"
        );
        assert_eq!(
            modules.import_path(RepoId(0), "sub/z", "r"),
            "example.com/b/z"
        );
        assert_eq!(
            modules.import_path(RepoId(1), "src/net/http", "go"),
            "net/http"
        );
        assert_eq!(modules.import_path(RepoId(1), "src", "go"), "std");
        assert_eq!(modules.import_path(RepoId(1), "", "go"), "go");
        assert_eq!(modules.import_path(RepoId(1), "cmd", "go"), "cmd");
        assert_eq!(
            modules.module_of(RepoId(0), "sub/z"),
            Some(("example.com/b", "sub"))
        );
    }

    #[test]
    fn file_suffixes() {
        assert!(file_name_admits("a.go"));
        assert!(file_name_admits("a_linux.go"));
        assert!(file_name_admits("a_linux_amd64_test.go"));
        assert!(!file_name_admits("a_windows.go"));
        assert!(!file_name_admits("a_arm64.go"));
        assert!(!file_name_admits("a_linux_arm64.go"));
        assert!(!file_name_admits("_a.go"));
        assert!(file_name_admits("read_me.go"));
    }

    #[test]
    fn build_lines() {
        assert!(!header_admits("//go:build windows\n\npackage a\n"));
        assert!(header_admits(
            "//go:build linux && (amd64 || arm64)\npackage a\n"
        ));
        assert!(header_admits("//go:build !windows\npackage a\n"));
        assert!(!header_admits("//go:build ignore\npackage a\n"));
        assert!(header_admits("// +build linux darwin\n\npackage a\n"));
        assert!(!header_admits("// +build darwin\n\npackage a\n"));
        assert!(header_admits(
            "// Copyright\n\n// Package a.\npackage a\n//go:build windows\n"
        ));
        assert!(header_admits("//go:build go1.18\npackage a\n"));
    }
}
