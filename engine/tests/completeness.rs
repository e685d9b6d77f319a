//! Completeness against an oracle: the Go fixtures' packages that the build excludes carry
//! `//invisible-use: PACKAGE:QUALIFIED_NAME` comments naming every declaration of the graph
//! they use (written by hand, read here, never by the compiler). No answer about such a
//! declaration may be COMPLETE, and the scope that uses it must be listed; an answer about a
//! declaration that no invisible scope could use is COMPLETE unless something else bounds it.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::common::{compile_into, workspace};
use kivgraph_format::{Generation, IndexDir};
use serde_json::{Value, json};

/// (repository, repository-relative directory of the using file, package, qualified name).
type Claim = (String, String, String, String);

const REPOS: &[(&str, &str)] = &[
    ("shapes", "shapes"),
    ("inventory", "inventory"),
    ("app", "pair/app"),
    ("mathlib", "pair/mathlib"),
];

fn claims() -> Vec<Claim> {
    let mut out = Vec::new();
    for (name, dir) in REPOS {
        let root = workspace().join("fixtures/go").join(dir);
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "go") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let rel = p.parent().unwrap().strip_prefix(&root).unwrap();
                    for line in text.lines() {
                        let Some(claim) = line.trim().strip_prefix("//invisible-use:") else {
                            continue;
                        };
                        let (package, qn) = claim.trim().rsplit_once(':').unwrap();
                        out.push((
                            name.to_string(),
                            rel.to_string_lossy().into_owned(),
                            package.to_string(),
                            qn.to_string(),
                        ));
                    }
                }
            }
        }
    }
    out.sort();
    out
}

fn call(g: &Arc<Generation>, tool: &str, args: Value) -> Value {
    let text = kivgraph::tools::call(tool, &args, Some(g.clone()))
        .unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// The directories of the scopes an answer lists.
fn scope_dirs(v: &Value) -> BTreeSet<String> {
    v["completeness"]["invisible_scopes"]
        .as_array()
        .map(|l| {
            l.iter()
                .filter_map(|s| s["detail"].as_str()?.rsplit_once(" in "))
                .map(|(_, d)| d.to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn no_answer_about_a_use_the_oracle_knows_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = workspace().join("fixtures/go");
    compile_into(
        dir.path(),
        REPOS
            .iter()
            .map(|(n, d)| format!("{n}={}", fixtures.join(d).display())),
    );
    let g = Arc::new(
        Generation::open_current(&IndexDir::new(dir.path()))
            .unwrap()
            .unwrap(),
    );
    assert!(g.scope_reach().is_some_and(|r| r.len() == 2));
    let b = g.graph();
    let st = &b.strings;
    let key_of = |package: &str, qn: &str| -> String {
        let found: Vec<&str> = b
            .symbols
            .iter()
            .filter(|s| {
                st.get(s.qualified_name.to_native()) == qn
                    && st.get(b.packages[s.package.to_native() as usize].name.to_native())
                        == package
            })
            .map(|s| st.get(s.key.to_native()))
            .collect();
        assert_eq!(found.len(), 1, "{package}:{qn}");
        found[0].to_string()
    };

    let claims = claims();
    assert!(claims.len() >= 6, "{claims:?}");
    // One of them is a use from another repository.
    assert!(
        claims
            .iter()
            .any(|c| c.0 == "app" && c.2.contains("mathlib"))
    );
    let mut used = BTreeSet::new();
    for (repo, dir_of_use, package, qn) in &claims {
        let key = key_of(package, qn);
        used.insert(key.clone());
        for (tool, args) in [
            ("find_references", json!({"stable_key": key})),
            (
                "find_references",
                json!({"stable_key": key, "direction": "outgoing"}),
            ),
            ("get_blast_radius", json!({"stable_key": key})),
            ("find_cross_repo_consumers", json!({"stable_key": key})),
        ] {
            let v = call(&g, tool, args.clone());
            assert_eq!(
                v["completeness"]["verdict"], "LOWER_BOUND",
                "{tool} {args} misses the use in {repo}:{dir_of_use}: {v}"
            );
            assert!(
                scope_dirs(&v).contains(dir_of_use),
                "{tool} {args} does not list {repo}:{dir_of_use}: {v}"
            );
        }
    }

    // Every other declaration: a scope is listed only when it imports the declaration's package
    // (read here off the excluded files' import lines) and the declaration is exported; and the
    // answers about declarations no scope could use are COMPLETE where nothing else bounds them.
    let imports = scope_imports();
    let mut complete = 0;
    for s in b.symbols.iter() {
        let key = st.get(s.key.to_native()).to_string();
        let v = call(&g, "find_references", json!({"stable_key": key}));
        let package = st.get(b.packages[s.package.to_native() as usize].name.to_native());
        let could_use: BTreeSet<String> = imports
            .iter()
            .filter(|(_, imported)| s.exported && imported.contains(package))
            .map(|(d, _)| d.clone())
            .collect();
        assert_eq!(scope_dirs(&v), could_use, "{key} ({package}): {v}");
        let c = &v["completeness"];
        if could_use.is_empty() && c.get("blind_spots").is_none() {
            assert_eq!(c["verdict"], "COMPLETE", "{key}: {v}");
            complete += 1;
        }
    }
    assert!(complete > 20, "{complete}");
}

/// The import paths of every directory whose Go files all carry a build line this target
/// (linux/amd64) excludes, read off their import lines.
fn scope_imports() -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    for (_, dir) in REPOS {
        let root = workspace().join("fixtures/go").join(dir);
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            let mut files = Vec::new();
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "go") {
                    files.push(std::fs::read_to_string(&p).unwrap());
                }
            }
            let excluded = |t: &String| {
                t.lines()
                    .next()
                    .is_some_and(|l| l == "//go:build windows" || l == "//go:build js && wasm")
            };
            if files.is_empty() || !files.iter().all(excluded) {
                continue;
            }
            let mut imported = BTreeSet::new();
            for t in &files {
                let mut in_block = false;
                for line in t.lines().map(str::trim) {
                    let quoted = |l: &str| l.split('"').nth(1).map(str::to_string);
                    if line == "import (" {
                        in_block = true;
                    } else if in_block && line == ")" {
                        in_block = false;
                    } else if in_block || line.starts_with("import ") {
                        imported.extend(quoted(line));
                    }
                }
            }
            let rel = d
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((rel, imported));
        }
    }
    assert_eq!(out.len(), 2, "{out:?}");
    out
}

/// A name written where a file could not be parsed may be a use of any declaration of that
/// name: the answers about such declarations are LOWER_BOUND and point at the file; a name the
/// broken part does not hold stays COMPLETE.
#[test]
fn a_name_in_a_part_the_parser_could_not_read_bounds_its_answers() {
    let src = tempfile::tempdir().unwrap();
    let w = |rel: &str, text: &str| {
        let p = src.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w("go/go.mod", "module example.com/m\n\ngo 1.22\n");
    w(
        "go/lib/lib.go",
        "package lib\n\nfunc Helper() int { return 1 }\n\nfunc Other() int { return 2 }\n",
    );
    w(
        "go/app/ok.go",
        "package app\n\nimport \"example.com/m/lib\"\n\nfunc Use() int { return lib.Other() }\n",
    );
    w(
        "go/app/broken.go",
        "package app\n\nimport \"example.com/m/lib\"\n\nvar = = ]] lib.Helper ]] (\n",
    );
    w(
        "py/lib.py",
        "def helper():\n    return 1\n\ndef other():\n    return 2\n",
    );
    w(
        "py/app.py",
        "from lib import other\n\nother()\n\ndef broken(:\n    helper( ]]\n",
    );
    // Latin-1, not UTF-8: never parsed, and its words are all unread.
    std::fs::write(
        src.path().join("py/legacy.py"),
        b"# caf\xe9\nfrom lib import helper\nhelper()\n",
    )
    .unwrap();
    let index = tempfile::tempdir().unwrap();
    compile_into(
        index.path(),
        [
            format!("m={}", src.path().join("go").display()),
            format!("p={}", src.path().join("py").display()),
        ],
    );
    let g = Arc::new(
        Generation::open_current(&IndexDir::new(index.path()))
            .unwrap()
            .unwrap(),
    );
    for (repo, qn, path) in [("m", "Helper", "app/broken.go"), ("p", "helper", "app.py")] {
        let v = call(
            &g,
            "find_references",
            json!({"repository": repo, "qualified_name": qn}),
        );
        let c = &v["completeness"];
        assert_eq!(c["verdict"], "LOWER_BOUND", "{v}");
        assert_eq!(c["fallback"]["pattern"], format!("\\b{qn}\\b"), "{v}");
        let spots = c["blind_spots"].as_array().unwrap();
        assert!(
            spots.iter().any(|s| s["reason"] == "NAME_IN_UNREAD_CODE"
                && s["file_path"] == path
                && s.get("requested_symbol").is_none()),
            "{v}"
        );
        if repo == "p" {
            assert!(spots.iter().any(|s| s["file_path"] == "legacy.py"), "{v}");
        }
    }
    // Other: one call in Go; an import and a call in Python.
    for (repo, qn, uses) in [("m", "Other", 1), ("p", "other", 2)] {
        let v = call(
            &g,
            "find_references",
            json!({"repository": repo, "qualified_name": qn}),
        );
        assert_eq!(v["completeness"]["verdict"], "COMPLETE", "{v}");
        assert_eq!(v["total"], uses, "{v}");
    }
}

/// A damaged `scope_reach.bin` is not read: every scope of the subject's repository counts again,
/// as before the file existed (a longer answer, never a COMPLETE one that misses a use).
#[test]
fn a_damaged_scope_record_falls_back_to_every_scope_of_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = workspace().join("fixtures/go");
    compile_into(
        dir.path(),
        [format!("shapes={}", fixtures.join("shapes").display())],
    );
    let index = IndexDir::new(dir.path());
    let open = || Arc::new(Generation::open_current(&index).unwrap().unwrap());
    // Grow is in render, which the excluded package does not import.
    let grow = json!({"repository": "shapes", "qualified_name": "Grow"});
    assert_eq!(
        call(&open(), "find_references", grow.clone())["completeness"]["verdict"],
        "COMPLETE"
    );
    let file = index.generation_dir(1).join("scope_reach.bin");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let g = open();
    assert!(g.scope_reach().is_none());
    let v = call(&g, "find_references", grow);
    assert_eq!(v["completeness"]["verdict"], "LOWER_BOUND", "{v}");
    assert_eq!(scope_dirs(&v), BTreeSet::from(["winonly".to_string()]));
}

/// Writes `files` (path under `root`, text) and compiles `repos` (name, directory under
/// `root`) into a new index; the generation and the two temporary directories.
fn compile_sources(
    files: &[(&str, &str)],
    repos: &[(&str, &str)],
    extra: &[&str],
) -> (Arc<Generation>, [tempfile::TempDir; 2]) {
    let src = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let p = src.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let index = tempfile::tempdir().unwrap();
    compile_into(
        index.path(),
        extra.iter().map(|e| e.to_string()).chain(
            repos
                .iter()
                .map(|(n, d)| format!("{n}={}", src.path().join(d).display())),
        ),
    );
    let g = Arc::new(
        Generation::open_current(&IndexDir::new(index.path()))
            .unwrap()
            .unwrap(),
    );
    (g, [src, index])
}

/// A Rust file that no crate root reaches (a module another feature or platform loads) is code
/// the graph does not read: the names it writes bound the answers about declarations of those
/// names, and point at it; a name it does not write stays COMPLETE.
#[test]
fn a_rust_file_no_crate_root_reaches_bounds_the_answers_about_its_names() {
    let (g, _dirs) = compile_sources(
        &[
            (
                "k/Cargo.toml",
                "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            (
                "k/src/lib.rs",
                "#[cfg(feature = \"extra\")]\nmod extra;\n\npub fn helper() -> u32 { 1 }\n\n\
                 pub fn other() -> u32 { helper() }\n",
            ),
            (
                "k/src/extra.rs",
                "pub fn more() -> u32 { crate::helper() + 1 }\n",
            ),
        ],
        &[("k", "k")],
        &["--rust-sysroot", "off"],
    );
    let v = call(
        &g,
        "find_references",
        json!({"repository": "k", "qualified_name": "helper"}),
    );
    let c = &v["completeness"];
    assert_eq!(c["verdict"], "LOWER_BOUND", "{v}");
    assert!(
        c["blind_spots"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["reason"] == "NAME_IN_UNREAD_CODE" && s["file_path"] == "src/extra.rs"),
        "{v}"
    );
    let v = call(
        &g,
        "find_references",
        json!({"repository": "k", "qualified_name": "other"}),
    );
    assert_eq!(v["completeness"]["verdict"], "COMPLETE", "{v}");
}

/// A reference the compiler could not follow bounds the answers about declarations of its name
/// only where its code can use them: in their own repository, or in one that depends on it (a
/// package edge, directly or through another repository). An unrelated repository's failures
/// leave the answer COMPLETE.
#[test]
fn a_blind_spot_bounds_only_the_repositories_its_code_can_use() {
    let (g, _dirs) = compile_sources(
        &[
            ("lib/core.py", "def helper():\n    return 1\n"),
            (
                "mid/wrap.py",
                "from core import helper\n\ndef wrapped():\n    return helper()\n",
            ),
            (
                "user/app.py",
                "import wrap\n\ndef run(x):\n    wrap.wrapped()\n    return x.helper()\n",
            ),
            ("other/app.py", "def run(x):\n    return x.helper()\n"),
        ],
        &[
            ("lib", "lib"),
            ("mid", "mid"),
            ("user", "user"),
            ("other", "other"),
        ],
        &[],
    );
    let v = call(
        &g,
        "find_references",
        json!({"repository": "lib", "qualified_name": "helper"}),
    );
    let c = &v["completeness"];
    assert_eq!(c["verdict"], "LOWER_BOUND", "{v}");
    let repos: BTreeSet<&str> = c["blind_spots"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["repository"].as_str())
        .collect();
    // `user` reaches `lib` through `mid`; `other` reaches nothing.
    assert_eq!(repos, BTreeSet::from(["user"]), "{v}");
}
