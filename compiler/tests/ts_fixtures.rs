//! Resolution fixtures: the annotated TypeScript/JavaScript repositories under `fixtures/ts/` are
//! compiled together through the public API, and every annotation is checked against the
//! published generation.
//!
//! The annotation syntax is the Go fixtures' (`fixtures/go/README.md`); `fixtures/ts/README.md`
//! gives what changes for TypeScript: the package part of a target is the target's
//! repository-relative file path (SPEC section 11.1), e.g. `src/model/order.ts:Order.total`. Such
//! paths repeat across repositories, so a target is looked up only in the annotated file's own
//! repository, or, for the cross-repository pair `corelib` + `webapp`, in either of the two.
//!
//! Known gaps stay in the tree: each is listed in `KNOWN_GAPS` with the reason, and the test fails
//! if a listed gap starts passing (so the list cannot go stale) or a new failure appears.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::annotations::{Facts, assert_annotations_hold, grouped_repos};
use kivgraph_format::{Confidence, EdgeKind, FileStatus, Language, NONE, Provenance};

/// Annotations this version is known to get wrong, as `file:line: annotation` with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[(
    "shop/src/gaps.ts:26: //want: REFERENCES src/gaps.ts:Shape.area",
    "object literal keys are not bound to the contextual type's properties",
)];

/// The file name endings of TypeScript and JavaScript sources (SPEC section 3.1); `.d.ts` files
/// end in `.ts`.
const SUFFIXES: &[&str] = &[".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

/// `(repository name, directory under fixtures/ts, group)`: a target may be in any repository of
/// the annotated file's group.
const REPOS: &[(&str, &str, &str)] = &[
    ("shop", "shop", "shop"),
    ("ui", "ui", "ui"),
    ("legacy", "legacy", "legacy"),
    ("corelib", "pair/corelib", "pair"),
    ("webapp", "pair/webapp", "pair"),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/ts")
}

/// Compiles every fixture repository into one generation, so that `webapp` can bind to `corelib`.
fn compile_all(out: &Path) -> Facts {
    let roots: Vec<(&str, PathBuf)> = REPOS
        .iter()
        .map(|(name, dir, _)| (*name, fixtures().join(dir)))
        .collect();
    Facts::compile(out, &roots)
}

#[test]
fn ts_fixture_annotations_hold() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_all(out.path());
    let repos = grouped_repos(&facts, &fixtures(), REPOS);
    assert_annotations_hold(&facts, &repos, SUFFIXES, KNOWN_GAPS, 250);
}

/// SPEC section 11.1 and 11.4 facts the annotations do not state: every fixture file is a module
/// named by its path, in the `module` of its nearest `package.json`; imports between modules are
/// package edges, package-mapped across repositories; exact edges come from the TypeScript rules
/// and name-only matches are candidates.
#[test]
fn ts_modules_packages_and_provenances() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_all(out.path());
    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);

    // Every source file is indexed, in the language of its extension, as the package named by
    // its path, in the module of its nearest package.json.
    let modules: &[(&str, &str, &str)] = &[
        ("shop", "", "shop"),
        ("ui", "", "ui"),
        ("legacy", "", "legacy-tools"),
        ("legacy", "lib/vendor/tinyqueue/", "tinyqueue"),
        ("corelib", "", "@acme/corelib"),
        ("webapp", "", "webapp"),
        ("webapp", "packages/shared/", "@webapp/shared"),
        ("webapp", "packages/app/", "@webapp/app"),
    ];
    let mut files = 0;
    for (name, dir, _) in REPOS {
        let root = fixtures().join(dir);
        for file in common::annotations::source_files(&root, SUFFIXES) {
            files += 1;
            let rel = file.strip_prefix(&root).unwrap().to_str().unwrap();
            let fid = facts
                .file_id(name, rel)
                .unwrap_or_else(|| panic!("{name}/{rel} is not in the graph"));
            let f = &g.files[fid as usize];
            let ts = [".ts", ".tsx", ".mts", ".cts"]
                .iter()
                .any(|x| rel.ends_with(x));
            let want_lang = if ts {
                Language::TypeScript
            } else {
                Language::JavaScript
            };
            assert_eq!(f.language, want_lang.code(), "{name}/{rel}: language");
            assert_eq!(
                f.status,
                FileStatus::Indexed as u8,
                "{name}/{rel}: file status"
            );
            assert_ne!(f.package.to_native(), NONE, "{name}/{rel}: no package");
            let p = &g.packages[f.package.to_native() as usize];
            assert_eq!(s(p.name.to_native()), rel, "{name}/{rel}: package name");
            assert_eq!(s(p.path.to_native()), rel, "{name}/{rel}: package path");
            let module = modules
                .iter()
                .filter(|(r, d, _)| r == name && rel.starts_with(d))
                .max_by_key(|(_, d, _)| d.len())
                .map(|m| m.2)
                .unwrap();
            assert_eq!(
                g.strings.opt(p.module.to_native()),
                Some(module),
                "{name}/{rel}: module"
            );
        }
    }
    assert!(files > 30, "only {files} fixture files");

    // Package edges: the exports map's "types" condition, a subpath export, a workspace package.
    let package = |repo: &str, path: &str| {
        let r = facts.repo_of(repo);
        g.packages
            .iter()
            .position(|p| p.repository.to_native() == r && s(p.name.to_native()) == path)
            .unwrap_or_else(|| panic!("no package {repo}/{path}")) as u32
    };
    let depends = |from: (&str, &str), to: (&str, &str), confidence: Confidence| {
        let (a, b) = (package(from.0, from.1), package(to.0, to.1));
        assert!(
            g.package_edges.iter().any(|e| e.source.to_native() == a
                && e.target.to_native() == b
                && e.kind == EdgeKind::PackageDependsOn.code()
                && e.confidence == confidence.code()
                && e.provenance.to_native() == Provenance::TsImport.code()),
            "no PACKAGE_DEPENDS_ON {from:?} -> {to:?} {}",
            confidence.as_str()
        );
    };
    let invoice = ("webapp", "packages/app/src/invoice.ts");
    depends(
        invoice,
        ("corelib", "src/index.ts"),
        Confidence::ExactPackageMapped,
    );
    depends(
        invoice,
        ("corelib", "src/money.ts"),
        Confidence::ExactPackageMapped,
    );
    depends(
        invoice,
        ("webapp", "packages/shared/src/index.ts"),
        Confidence::ExactDeclarationMapped,
    );
    depends(
        ("shop", "src/model/index.ts"),
        ("shop", "src/model/catalog/index.ts"),
        Confidence::ExactDeclarationMapped,
    );
    depends(
        ("shop", "src/checkout.ts"),
        ("shop", "src/config.ts"),
        Confidence::ExactDeclarationMapped,
    );
    depends(
        ("legacy", "lib/index.js"),
        ("legacy", "lib/vendor/tinyqueue/queue.js"),
        Confidence::ExactDeclarationMapped,
    );

    // Every edge out of these repositories comes from a TypeScript rule, and the candidates are
    // exactly the name-only matches and the ambiguous members of written unions.
    let ts_rules = [
        Provenance::TsScope,
        Provenance::TsModuleBinding,
        Provenance::TsReceiverTyped,
        Provenance::TsDeclaration,
        Provenance::TsNameOnly,
        Provenance::TsUnionMember,
    ];
    for e in g.forward.edges.iter() {
        let p = e.provenance.to_native();
        assert!(
            ts_rules.iter().any(|r| r.code() == p),
            "edge with provenance {:?}",
            Provenance::from_code(p)
        );
        let candidate = e.confidence == Confidence::Candidate.code();
        if p == Provenance::TsNameOnly.code() {
            assert!(candidate, "a TS_NAME_ONLY edge is CANDIDATE");
        }
        if candidate {
            assert!(
                p == Provenance::TsNameOnly.code() || p == Provenance::TsUnionMember.code(),
                "only TS_NAME_ONLY and TS_UNION_MEMBER edges are CANDIDATE"
            );
        }
    }
}
