//! Resolution fixtures: the annotated Go modules under `fixtures/go/` are compiled through the
//! public API, and every annotation is checked against the published generation.
//!
//! Annotation syntax (see `fixtures/go/README.md`), at the end of the line holding the reference:
//! `//want: EDGE_KIND package:qualified_name [CONFIDENCE]`, `//want-none: NAME`,
//! `//want-unresolved: REASON PACKAGE`; several on one line are separated by ` ; `. The parsing and
//! checking are shared with the other languages' fixture tests (`common/annotations.rs`).
//!
//! Known gaps stay in the tree: each is listed in `KNOWN_GAPS` with the reason, and the test fails
//! if a listed gap starts passing (so the list cannot go stale) or a new failure appears.

use std::path::{Path, PathBuf};

use crate::common::annotations::{Facts, FixtureRepo, assert_annotations_hold};
use kivgraph_compile::{CompileOptions, RepoSpec, RustSysroot, compile};
use kivgraph_format::{Generation, NONE};

/// Annotations this version is known to get wrong, as `file:line: annotation` with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[
    (
        "constructs/cmd/constructs/main.go:55: //want: REFERENCES example.com/constructs/model:Task.Owner",
        "a generic method's result []T is not instantiated with the written type argument \
         (tasks is *coll.List[*model.Task]); the range element is typed by name only (CANDIDATE)",
    ),
    (
        "constructs/cmd/constructs/main.go:56: //want: REFERENCES example.com/constructs/model:Task.Title",
        "same as line 55: t ranges over coll.List[*model.Task].Items(), whose []T is not instantiated",
    ),
    (
        "constructs/cmd/constructs/main.go:56: //want: REFERENCES example.com/constructs/model:Worker.Name",
        "same as line 55: t.Owner.Name hangs off the untyped range element t",
    ),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/go")
}

#[test]
fn go_fixture_annotations_hold() {
    let out = tempfile::tempdir().unwrap();
    let repos = [
        ("shapes", "shapes"),
        ("inventory", "inventory"),
        ("mathlib", "pair/mathlib"),
        ("app", "pair/app"),
        ("constructs", "constructs"),
        ("orphan", "orphan"),
    ];
    let roots: Vec<(&str, PathBuf)> = repos
        .iter()
        .map(|(name, dir)| (*name, fixtures().join(dir)))
        .collect();
    let facts = Facts::compile(out.path(), &roots);
    let fixture_repos: Vec<FixtureRepo<'_>> = roots
        .iter()
        .map(|(name, root)| FixtureRepo {
            name,
            root: root.clone(),
            // Go package names are import paths, unique across the generation.
            targets: None,
        })
        .collect();
    assert_annotations_hold(&facts, &fixture_repos, &[".go"], KNOWN_GAPS, 100);
}

/// Every exact edge must come from a rule allowed to claim exactness, and no edge may leave the
/// excluded package or file.
#[test]
fn excluded_files_contribute_nothing() {
    let out = tempfile::tempdir().unwrap();
    let spec = RepoSpec::parse(fixtures().join("shapes").to_str().unwrap()).unwrap();
    compile(&CompileOptions {
        out: out.path().into(),
        repos: vec![spec],
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    })
    .unwrap();
    let generation = Generation::open_current(&kivgraph_format::IndexDir::new(out.path()))
        .unwrap()
        .unwrap();
    let g = generation.graph();
    for s in g.symbols.iter() {
        let path = g
            .strings
            .get(g.files[s.file.to_native() as usize].path.to_native());
        assert!(
            !path.starts_with("winonly/") && path != "geo/area_windows.go",
            "symbol from excluded file {path}"
        );
    }
    assert!(g.unresolved.iter().any(|u| u.file.to_native() == NONE
        && g.strings.get(u.reason.to_native()) == "PACKAGE_NOT_BUILDABLE"));
}
