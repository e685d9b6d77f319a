//! Resolution fixtures: the annotated Rust repositories under `fixtures/rust/` are compiled through
//! the public API, and every annotation is checked against the published generation.
//!
//! The annotation syntax is the Go fixtures' (`//want:`, `//want-none:`, `//want-unresolved:`,
//! several separated by ` ; `); `fixtures/rust/README.md` gives what the annotations mean for
//! Rust. The package part of a target is the target's graph package name, its module path
//! (SPEC section 14.1), e.g. `geo_core::shapes::circle:Circle::new`, and the target may be
//! double-quoted when its qualified name holds spaces
//! (`"geo_core::shapes::circle:<Circle as Shape>::area"`).
//!
//! Two generations are compiled: `geo` and the cross-repository pair `corelib` + `app` without
//! the standard library (so that its names are `SYSROOT_SOURCE_MISSING`), and `stduse` with the
//! small stand-in standard library `fixtures/rust/sysroot/library` as the derived repository
//! `rust:1.95.0`. A third compile of `stduse` alone, without it, checks that every use of the
//! standard library becomes an unresolved record instead.
//!
//! Known gaps stay in the tree: each is listed in `KNOWN_GAPS` with the reason, and the test fails
//! if a listed gap starts passing (so the list cannot go stale) or a new failure appears.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::annotations::{
    Facts, FixtureRepo, Want, assert_annotations_hold, parse_annotations,
};
use kivgraph_compile::{CompileOptions, RepoSpec, RustSysroot, compile};
use kivgraph_format::{FileStatus, Language, NONE, Provenance, SymbolKind};

/// Annotations this version is known to get wrong, as `file:line: annotation` with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// The file name ending of Rust sources (SPEC section 3.1).
const SUFFIXES: &[&str] = &[".rs"];

/// The name of the derived repository the stand-in standard library is compiled as.
const SYSROOT: &str = "rust:1.95.0";

/// The crates of the standard library (SPEC section 14.1) the stand-in provides.
const STD_CRATES: &[&str] = &["core", "alloc", "std"];

/// `(repository name, directory under fixtures/rust, group)`: a target may be in any repository
/// of the annotated file's group (and, for `stduse`, in the derived repository).
const REPOS: &[(&str, &str, &str)] = &[
    ("geo", "geo", "geo"),
    ("corelib", "pair/corelib", "pair"),
    ("app", "pair/app", "pair"),
    ("stduse", "stduse", "stduse"),
];

/// `(repository, file, package name, Cargo package)`: the graph package of every fixture source
/// file (SPEC section 14.1). Files no crate reaches are listed in [`EXCLUDED`] instead.
const FILES: &[(&str, &str, &str, &str)] = &[
    ("geo", "crates/geo-core/src/lib.rs", "geo_core", "geo-core"),
    (
        "geo",
        "crates/geo-core/src/dispatch.rs",
        "geo_core::dispatch",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/kinds.rs",
        "geo_core::kinds",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/macros.rs",
        "geo_core::macros",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/point.rs",
        "geo_core::point",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/receivers.rs",
        "geo_core::receivers",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/scope.rs",
        "geo_core::scope",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/shapes.rs",
        "geo_core::shapes",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/shapes/circle.rs",
        "geo_core::shapes::circle",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/shapes/rect.rs",
        "geo_core::shapes::rect",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/units/mod.rs",
        "geo_core::units",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/units/convert.rs",
        "geo_core::units::convert",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/src/support/helpers_impl.rs",
        "geo_core::helpers",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-core/tests/shapes_it.rs",
        "test:shapes_it",
        "geo-core",
    ),
    (
        "geo",
        "crates/geo-render/src/render.rs",
        "render",
        "geo-render",
    ),
    (
        "geo",
        "crates/geo-render/src/svg.rs",
        "render::svg",
        "geo-render",
    ),
    (
        "geo",
        "crates/geo-render/src/draw_main.rs",
        "bin:geo_draw",
        "geo-render",
    ),
    (
        "geo",
        "crates/scratch/src/lib.rs",
        "geo_scratch",
        "geo-scratch",
    ),
    ("geo", "tools/cli/src/main.rs", "bin:geo_cli", "geo-cli"),
    ("geo", "tools/cli/src/cli.rs", "bin:geo_cli::cli", "geo-cli"),
    ("geo", "tools/cli/src/bin/stats.rs", "bin:stats", "geo-cli"),
    ("corelib", "src/lib.rs", "acme_corelib", "acme-corelib"),
    (
        "corelib",
        "src/money.rs",
        "acme_corelib::money",
        "acme-corelib",
    ),
    (
        "corelib",
        "src/rates.rs",
        "acme_corelib::rates",
        "acme-corelib",
    ),
    (
        "corelib",
        "src/ledger/mod.rs",
        "acme_corelib::ledger",
        "acme-corelib",
    ),
    ("app", "src/lib.rs", "acme_app", "acme-app"),
    ("app", "src/invoice.rs", "acme_app::invoice", "acme-app"),
    ("app", "src/main.rs", "bin:acme_app", "acme-app"),
    ("app", "extras/src/lib.rs", "acme_extras", "acme-extras"),
    ("stduse", "src/lib.rs", "stduse", "stduse"),
    ("stduse", "src/temps.rs", "stduse::temps", "stduse"),
    ("stduse", "src/tally.rs", "stduse::tally", "stduse"),
    ("stduse", "src/main.rs", "bin:stduse", "stduse"),
];

/// Fixture files that no crate root reaches (SPEC section 14.1: `build_excluded`).
const EXCLUDED: &[(&str, &str)] = &[("geo", "crates/geo-core/src/orphan.rs")];

/// `(repository, package name, file, Cargo package)`: inline modules, which are packages of the
/// file that holds them.
const INLINE: &[(&str, &str, &str, &str)] = &[
    (
        "geo",
        "geo_core::layout",
        "crates/geo-core/src/lib.rs",
        "geo-core",
    ),
    (
        "geo",
        "geo_core::layout::grid",
        "crates/geo-core/src/lib.rs",
        "geo-core",
    ),
    (
        "geo",
        "geo_core::tests",
        "crates/geo-core/src/lib.rs",
        "geo-core",
    ),
    (
        "geo",
        "geo_core::dispatch::outer",
        "crates/geo-core/src/dispatch.rs",
        "geo-core",
    ),
    (
        "geo",
        "geo_core::dispatch::outer::inner",
        "crates/geo-core/src/dispatch.rs",
        "geo-core",
    ),
    (
        "geo",
        "geo_core::dispatch::anonymous",
        "crates/geo-core/src/dispatch.rs",
        "geo-core",
    ),
];

/// The packages of the stand-in standard library, as `(package name, file)`; the Cargo package
/// is the crate, the first segment.
const SYSROOT_FILES: &[(&str, &str)] = &[
    ("core", "core/src/lib.rs"),
    ("core::clone", "core/src/clone.rs"),
    ("core::cmp", "core/src/cmp.rs"),
    ("core::fmt", "core/src/fmt.rs"),
    ("core::option", "core/src/option.rs"),
    ("core::result", "core/src/result.rs"),
    ("alloc", "alloc/src/lib.rs"),
    ("alloc::string", "alloc/src/string.rs"),
    ("alloc::vec", "alloc/src/vec.rs"),
    ("std", "std/src/lib.rs"),
    ("std::io", "std/src/lib.rs"),
    ("std::collections", "std/src/collections/mod.rs"),
    (
        "std::collections::hash_map",
        "std/src/collections/hash_map.rs",
    ),
    ("std::prelude", "std/src/prelude/mod.rs"),
    ("std::prelude::v1", "std/src/prelude/v1.rs"),
    ("std::prelude::rust_2021", "std/src/prelude/mod.rs"),
    ("std::prelude::rust_2024", "std/src/prelude/mod.rs"),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/rust")
}

fn dir_of(repo: &str) -> PathBuf {
    let dir = REPOS.iter().find(|r| r.0 == repo).unwrap().1;
    fixtures().join(dir)
}

/// Compiles `repos` (names from [`REPOS`]) into `out`, with the stand-in standard library as the
/// derived repository when `sysroot` is set, and never the toolchain's own.
fn compile_repos(out: &Path, repos: &[&str], sysroot: bool) -> Facts {
    let mut specs: Vec<RepoSpec> = repos
        .iter()
        .map(|name| RepoSpec::parse(&format!("{name}={}", dir_of(name).display())).unwrap())
        .collect();
    if sysroot {
        let library = fixtures().join("sysroot/library");
        specs.push(RepoSpec::parse_derived(&format!("{SYSROOT}={}", library.display())).unwrap());
    }
    compile(&CompileOptions {
        out: out.into(),
        repos: specs,
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    })
    .unwrap();
    Facts {
        generation: kivgraph_format::Generation::open_current(&kivgraph_format::IndexDir::new(out))
            .unwrap()
            .unwrap(),
    }
}

/// `geo` and the pair, without the standard library.
fn compile_main(out: &Path) -> Facts {
    let roots: Vec<(&str, PathBuf)> = ["geo", "corelib", "app"]
        .into_iter()
        .map(|name| (name, dir_of(name)))
        .collect();
    Facts::compile(out, &roots)
}

/// `stduse` with the stand-in standard library.
fn compile_stduse(out: &Path) -> Facts {
    compile_repos(out, &["stduse"], true)
}

/// Checks the annotations of `repos` against `facts`, with the known gaps of those repositories.
fn check_group(facts: &Facts, repos: &[&str], extra_targets: &[&str], min_total: usize) {
    let fixture_repos: Vec<FixtureRepo<'_>> = REPOS
        .iter()
        .filter(|r| repos.contains(&r.0))
        .map(|(name, dir, group)| FixtureRepo {
            name,
            root: fixtures().join(dir),
            targets: Some(
                REPOS
                    .iter()
                    .filter(|(_, _, g)| g == group)
                    .map(|(n, _, _)| *n)
                    .chain(extra_targets.iter().copied())
                    .map(|n| facts.repo_of(n))
                    .collect(),
            ),
        })
        .collect();
    let gaps: Vec<(&str, &str)> = KNOWN_GAPS
        .iter()
        .filter(|(k, _)| repos.iter().any(|r| k.starts_with(&format!("{r}/"))))
        .copied()
        .collect();
    assert_annotations_hold(facts, &fixture_repos, SUFFIXES, &gaps, min_total);
}

#[test]
fn rs_fixture_annotations_hold() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_main(out.path());
    check_group(&facts, &["geo", "corelib", "app"], &[], 450);
}

#[test]
fn rs_stduse_annotations_hold_with_the_sysroot() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_stduse(out.path());
    check_group(&facts, &["stduse"], &[SYSROOT], 60);
}

/// Whether a target package (`alloc::vec`, `std`) is in the standard library.
fn in_std(package: &str) -> bool {
    let krate = package.split("::").next().unwrap_or(package);
    STD_CRATES.contains(&krate)
}

/// Edge kinds read off declarations: a trait item's `IMPLEMENTS` or `OVERRIDES` sits on the
/// `fn` line, while the path that fails without the standard library is in the impl header.
const STRUCTURAL: &[&str] = &["IMPLEMENTS", "OVERRIDES", "METHOD_OF"];

/// Without the derived repository, every line annotated with a non-structural edge into the
/// standard library holds an unresolved `SYSROOT_SOURCE_MISSING` record for `std`, `core` or
/// `alloc` instead (SPEC section 14.1).
#[test]
fn rs_stduse_without_the_sysroot_is_sysroot_source_missing() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_repos(out.path(), &["stduse"], false);
    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);
    assert_eq!(g.repositories.len(), 1, "only stduse is compiled");
    let root = dir_of("stduse");
    let mut lines = 0;
    let mut failures = Vec::new();
    for file in common::annotations::source_files(&root, SUFFIXES) {
        let rel = file.strip_prefix(&root).unwrap().to_str().unwrap();
        let fid = facts.file_id("stduse", rel).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let wanted: BTreeSet<u32> = parse_annotations(&text, "//")
            .into_iter()
            .filter(|(_, _, w)| {
                matches!(w, Want::Edge { kind, package, .. }
                    if in_std(package) && !STRUCTURAL.contains(&kind.as_str()))
            })
            .map(|(line, _, _)| line)
            .collect();
        for line in wanted {
            lines += 1;
            let here: Vec<(&str, &str)> = g
                .unresolved
                .iter()
                .filter(|u| u.file.to_native() == fid && u.line.to_native() == line)
                .map(|u| (s(u.reason.to_native()), s(u.requested_package.to_native())))
                .collect();
            if !here
                .iter()
                .any(|(r, p)| *r == "SYSROOT_SOURCE_MISSING" && STD_CRATES.contains(p))
            {
                failures.push(format!("stduse/{rel}:{line}: unresolved here: {here:?}"));
            }
        }
    }
    assert!(lines > 30, "only {lines} lines use the standard library");
    assert!(
        failures.is_empty(),
        "{} of {lines} lines have no SYSROOT_SOURCE_MISSING record:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // SYSROOT_SOURCE_MISSING records name a crate of the standard library and say why.
    for u in g.unresolved.iter() {
        if s(u.reason.to_native()) == "SYSROOT_SOURCE_MISSING" {
            let p = s(u.requested_package.to_native());
            assert!(
                ["std", "core", "alloc", "proc_macro", "test"].contains(&p),
                "SYSROOT_SOURCE_MISSING for {p}"
            );
            assert!(
                g.strings.opt(u.detail.to_native()).is_some(),
                "SYSROOT_SOURCE_MISSING without a detail"
            );
        }
    }
}

/// The stand-in standard library enters as the derived repository `rust:1.95.0`: derived, with
/// no commit or branch, its own files compiled as Rust packages of the crates `core`, `alloc` and
/// `std`, and edges from `stduse` into it.
#[test]
fn rs_sysroot_is_a_derived_repository() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_stduse(out.path());
    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);
    let derived = facts.repo_of(SYSROOT);
    let r = &g.repositories[derived as usize];
    assert!(r.derived, "{SYSROOT} is derived");
    assert_eq!(r.commit.to_native(), NONE, "{SYSROOT} has no commit");
    assert_eq!(r.branch.to_native(), NONE, "{SYSROOT} has no branch");
    assert!(
        r.languages.iter().any(|l| *l == Language::Rust.code()),
        "{SYSROOT} holds Rust"
    );
    assert!(!g.repositories[facts.repo_of("stduse") as usize].derived);

    // Every file of the stand-in is compiled, as the package its module path gives.
    let library = fixtures().join("sysroot/library");
    let files = common::annotations::source_files(&library, SUFFIXES);
    assert!(files.len() >= 12, "only {} sysroot files", files.len());
    for file in &files {
        let rel = file.strip_prefix(&library).unwrap().to_str().unwrap();
        let fid = facts
            .file_id(SYSROOT, rel)
            .unwrap_or_else(|| panic!("{SYSROOT}/{rel} is not in the graph"));
        let f = &g.files[fid as usize];
        assert_eq!(f.language, Language::Rust.code(), "{rel}: language");
        assert_eq!(f.status, FileStatus::Indexed as u8, "{rel}: status");
        assert!(
            SYSROOT_FILES.iter().any(|(_, p)| p == &rel),
            "{rel} is not listed in SYSROOT_FILES"
        );
    }
    for (name, path) in SYSROOT_FILES {
        let krate = name.split("::").next().unwrap();
        let p = g
            .packages
            .iter()
            .find(|p| p.repository.to_native() == derived && s(p.name.to_native()) == *name)
            .unwrap_or_else(|| panic!("no package {name} in {SYSROOT}"));
        assert_eq!(s(p.path.to_native()), *path, "{name}: path");
        assert_eq!(p.language, Language::Rust.code(), "{name}: language");
        assert_eq!(g.strings.opt(p.module.to_native()), Some(krate), "{name}");
        assert_eq!(
            s(p.key.to_native()),
            format!("package:rust:{SYSROOT}:{name}"),
            "{name}: key"
        );
    }

    // Symbols of the stand-in.
    use SymbolKind as K;
    for (pkg, qn, kind) in [
        ("core::option", "Option", K::Enum),
        ("core::option", "Option::Some", K::EnumMember),
        ("core::option", "Option::None", K::EnumMember),
        ("core::option", "Option::unwrap", K::Method),
        ("core::fmt", "Display", K::Trait),
        ("core::fmt", "Display::fmt", K::TraitMethod),
        ("core::fmt", "Result", K::TypeAlias),
        ("core::cmp", "PartialEq::ne", K::TraitMethod),
        ("alloc::vec", "Vec", K::Struct),
        ("alloc::vec", "Vec::new", K::StaticMethod),
        ("alloc::vec", "Vec::push", K::Method),
        ("alloc", "vec", K::Macro),
        ("std", "println", K::Macro),
        ("std::collections::hash_map", "HashMap::insert", K::Method),
        ("std::prelude::v1", "std::prelude::v1", K::Module),
    ] {
        let found: Vec<Option<SymbolKind>> = g
            .symbols
            .iter()
            .filter(|x| {
                x.repository.to_native() == derived
                    && s(x.qualified_name.to_native()) == qn
                    && s(g.packages[x.package.to_native() as usize].name.to_native()) == pkg
            })
            .map(|x| SymbolKind::from_code(x.kind))
            .collect();
        assert_eq!(found, vec![Some(kind)], "{SYSROOT}/{pkg}:{qn}");
    }

    // stduse reaches into it.
    let into = (0..g.symbols.len() as u32)
        .filter(|&src| g.symbols[src as usize].repository.to_native() != derived)
        .flat_map(|src| g.forward.row(src).iter())
        .filter(|e| {
            g.symbols[e.other.to_native() as usize]
                .repository
                .to_native()
                == derived
        })
        .count();
    assert!(into > 30, "only {into} edges from stduse into {SYSROOT}");
}

/// SPEC section 14 facts the annotations do not state: every fixture file is the package its
/// module path names, in its Cargo package; files no crate reaches are `build_excluded`; the kinds
/// of a selection of symbols; locals are not symbols; every edge comes from a Rust rule, and
/// name-only matches, and only they, are candidates.
#[test]
fn rs_crates_packages_and_provenances() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_main(out.path());
    let out2 = tempfile::tempdir().unwrap();
    let with_std = compile_stduse(out2.path());

    // Every source file is listed, indexed as Rust, as the package its module path gives.
    for (name, _, _) in REPOS {
        let f = if *name == "stduse" { &with_std } else { &facts };
        let g = f.generation.graph();
        let s = |id: u32| g.strings.get(id);
        let root = dir_of(name);
        for file in common::annotations::source_files(&root, SUFFIXES) {
            let rel = file.strip_prefix(&root).unwrap().to_str().unwrap();
            let fid = f
                .file_id(name, rel)
                .unwrap_or_else(|| panic!("{name}/{rel} is not in the graph"));
            let rec = &g.files[fid as usize];
            assert_eq!(
                rec.language,
                Language::Rust.code(),
                "{name}/{rel}: language"
            );
            if EXCLUDED.contains(&(*name, rel)) {
                assert_eq!(
                    rec.status,
                    FileStatus::BuildExcluded as u8,
                    "{name}/{rel}: no crate reaches it"
                );
                assert!(
                    !g.symbols.iter().any(|x| x.file.to_native() == fid),
                    "{name}/{rel}: symbols from an unreached file"
                );
                continue;
            }
            let &(_, _, package, cargo) = FILES
                .iter()
                .find(|(r, p, _, _)| r == name && *p == rel)
                .unwrap_or_else(|| panic!("{name}/{rel} is not listed in FILES"));
            assert_eq!(
                rec.status,
                FileStatus::Indexed as u8,
                "{name}/{rel}: status"
            );
            assert_ne!(rec.package.to_native(), NONE, "{name}/{rel}: no package");
            let p = &g.packages[rec.package.to_native() as usize];
            assert_eq!(s(p.name.to_native()), package, "{name}/{rel}: package name");
            assert_eq!(s(p.path.to_native()), rel, "{name}/{rel}: package path");
            assert_eq!(p.language, Language::Rust.code(), "{name}/{rel}");
            assert_eq!(
                s(p.key.to_native()),
                format!("package:rust:{name}:{package}"),
                "{name}/{rel}: package key"
            );
            assert_eq!(
                g.strings.opt(p.module.to_native()),
                Some(cargo),
                "{name}/{rel}: module is the Cargo package name"
            );
        }
    }

    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);
    let package = |repo: &str, name: &str| {
        let r = facts.repo_of(repo);
        g.packages
            .iter()
            .position(|p| p.repository.to_native() == r && s(p.name.to_native()) == name)
            .unwrap_or_else(|| panic!("no package {repo}/{name}")) as u32
    };
    // Inline modules are packages of the file that holds them.
    for (repo, name, path, cargo) in INLINE {
        let p = &g.packages[package(repo, name) as usize];
        assert_eq!(s(p.path.to_native()), *path, "{repo}/{name}: path");
        assert_eq!(g.strings.opt(p.module.to_native()), Some(*cargo));
    }

    // Symbols: kinds and qualified names (SPEC section 14.2).
    let symbols = |repo: &str, pkg: &str, qn: &str| -> Vec<Option<SymbolKind>> {
        let p = package(repo, pkg);
        g.symbols
            .iter()
            .filter(|x| x.package.to_native() == p && s(x.qualified_name.to_native()) == qn)
            .map(|x| SymbolKind::from_code(x.kind))
            .collect()
    };
    let exported = |repo: &str, pkg: &str, qn: &str| -> bool {
        let p = package(repo, pkg);
        g.symbols
            .iter()
            .find(|x| x.package.to_native() == p && s(x.qualified_name.to_native()) == qn)
            .unwrap_or_else(|| panic!("no symbol {repo}/{pkg}:{qn}"))
            .exported
    };
    use SymbolKind as K;
    for (repo, pkg, qn, kind) in [
        ("geo", "geo_core", "geo_core", K::Module),
        (
            "geo",
            "geo_core::layout::grid",
            "geo_core::layout::grid",
            K::Module,
        ),
        ("geo", "geo_core::helpers", "geo_core::helpers", K::Module),
        ("geo", "bin:geo_cli::cli", "bin:geo_cli::cli", K::Module),
        ("geo", "geo_core", "circle", K::Macro),
        ("geo", "geo_core::macros", "square", K::Macro),
        ("geo", "geo_core::macros", "near", K::Macro),
        ("geo", "geo_core::macros", "hypot2", K::Function),
        ("geo", "geo_core::point", "Point", K::Struct),
        ("geo", "geo_core::point", "Point::x", K::Field),
        ("geo", "geo_core::point", "Vec2", K::Struct),
        ("geo", "geo_core::point", "Vec2::0", K::Field),
        ("geo", "geo_core::point", "Vec2::1", K::Field),
        ("geo", "geo_core::point", "Origin", K::Struct),
        ("geo", "geo_core::point", "ORIGIN", K::Const),
        ("geo", "geo_core::point", "impl Point", K::Implementation),
        (
            "geo",
            "geo_core::point",
            "impl Add for Point",
            K::Implementation,
        ),
        ("geo", "geo_core::point", "<Point as Add>::add", K::Method),
        (
            "geo",
            "geo_core::point",
            "<Point as Add>::Output",
            K::AssociatedType,
        ),
        ("geo", "geo_core::point", "Point::new", K::StaticMethod),
        ("geo", "geo_core::point", "Point::norm", K::Method),
        ("geo", "geo_core::point", "Point::translate", K::Method),
        ("geo", "geo_core::shapes", "Shape", K::Trait),
        ("geo", "geo_core::shapes", "Shape::area", K::TraitMethod),
        ("geo", "geo_core::shapes", "Shape::describe", K::TraitMethod),
        ("geo", "geo_core::shapes", "Sided::SIDES", K::Const),
        ("geo", "geo_core::shapes", "Labelled", K::Struct),
        ("geo", "geo_core::shapes", "Labelled::inner", K::Field),
        (
            "geo",
            "geo_core::shapes",
            "impl Shape for Labelled",
            K::Implementation,
        ),
        (
            "geo",
            "geo_core::shapes",
            "<Labelled as Shape>::area",
            K::Method,
        ),
        ("geo", "geo_core::shapes", "larger", K::Function),
        ("geo", "geo_core::shapes::circle", "Circle::UNIT", K::Const),
        (
            "geo",
            "geo_core::shapes::circle",
            "Circle::unit",
            K::StaticMethod,
        ),
        ("geo", "geo_core::shapes::circle", "Circle::grow", K::Method),
        (
            "geo",
            "geo_core::shapes::circle",
            "<Circle as Shape>::area",
            K::Method,
        ),
        (
            "geo",
            "geo_core::shapes::circle",
            "impl Sided for Circle",
            K::Implementation,
        ),
        ("geo", "geo_core::shapes::rect", "Square::0", K::Field),
        (
            "geo",
            "geo_core::shapes::rect",
            "<Rect as Sided>::SIDES",
            K::Const,
        ),
        ("geo", "geo_core::kinds", "Figure", K::Enum),
        ("geo", "geo_core::kinds", "Figure::Empty", K::EnumMember),
        ("geo", "geo_core::kinds", "Figure::Round", K::EnumMember),
        ("geo", "geo_core::kinds", "Figure::Boxed", K::EnumMember),
        ("geo", "geo_core::kinds", "Figure::Boxed::rect", K::Field),
        ("geo", "geo_core::kinds", "Figure::Boxed::filled", K::Field),
        ("geo", "geo_core::kinds", "Colour", K::Union),
        ("geo", "geo_core::kinds", "Colour::rgba", K::Field),
        ("geo", "geo_core::kinds", "Area", K::TypeAlias),
        ("geo", "geo_core::kinds", "MAX_FIGURES", K::Const),
        ("geo", "geo_core::kinds", "DEFAULT_NAME", K::Static),
        ("geo", "geo_core::helpers", "PRECISION", K::Static),
        ("geo", "geo_core::units", "Measured", K::Trait),
        (
            "geo",
            "geo_core::units",
            "Measured::Unit",
            K::AssociatedType,
        ),
        ("geo", "geo_core::units", "Measured::SCALE", K::Const),
        (
            "geo",
            "geo_core::units",
            "<Circle as Measured>::Unit",
            K::AssociatedType,
        ),
        (
            "geo",
            "geo_core::units",
            "impl Measured for Circle",
            K::Implementation,
        ),
        ("geo", "geo_core::units::convert", "Inch", K::Struct),
        ("geo", "geo_core::dispatch", "Square::describe", K::Method),
        (
            "geo",
            "geo_core::dispatch",
            "impl Square",
            K::Implementation,
        ),
        ("geo", "geo_core::dispatch", "Make::make", K::TraitMethod),
        (
            "geo",
            "geo_core::dispatch",
            "<Point as Make>::make",
            K::StaticMethod,
        ),
        ("geo", "geo_core::dispatch::outer::inner", "up", K::Function),
        ("geo", "geo_core::dispatch", "Fig", K::TypeAlias),
        ("geo", "geo_core::layout::grid", "Grid::origin", K::Field),
        ("geo", "render", "Render::render", K::TraitMethod),
        ("geo", "render", "impl Render for Circle", K::Implementation),
        ("geo", "render", "<Rect as Render>::render", K::Method),
        ("geo", "bin:geo_cli::cli", "Cli::radii", K::Field),
        ("corelib", "acme_corelib", "eur", K::Macro),
        (
            "corelib",
            "acme_corelib::money",
            "Currency::Eur",
            K::EnumMember,
        ),
        ("corelib", "acme_corelib::rates", "USD_PER_EUR", K::Static),
        (
            "app",
            "acme_app::invoice",
            "<Invoice as Priced>::price",
            K::Method,
        ),
    ] {
        assert_eq!(
            symbols(repo, pkg, qn),
            vec![Some(kind)],
            "{repo}/{pkg}:{qn} should be one {}",
            kind.as_str()
        );
    }
    // A method and a field may share a name; two inherent blocks are two implementations.
    let mut main = symbols("geo", "geo_core::receivers", "Scene::main");
    main.sort_by_key(|k| k.map(|k| k.code()));
    assert_eq!(
        main,
        vec![Some(K::Field), Some(K::Method)],
        "Scene::main: a field and a method"
    );
    let mut blocks = symbols("geo", "geo_core::shapes::circle", "impl Circle");
    blocks.dedup();
    assert_eq!(blocks, vec![Some(K::Implementation)]);
    assert_eq!(
        symbols("geo", "geo_core::shapes::circle", "impl Circle").len(),
        2,
        "two inherent impl blocks of Circle"
    );
    // Locals, closures, fn-local items and imports are not symbols.
    for (repo, pkg, qn) in [
        ("geo", "geo_core::scope", "Rect"),
        ("geo", "geo_core::scope", "Rect::w"),
        ("geo", "geo_core::scope", "local_struct::Rect"),
        ("geo", "geo_core::scope", "scale"),
        ("geo", "geo_core::scope", "clamp"),
        ("geo", "geo_core::scope", "nested_fn::offset"),
        ("geo", "geo_core::scope", "early::double"),
        ("geo", "geo_core::dispatch", "counted::point"),
        ("geo", "geo_core::dispatch", "point"),
        ("geo", "geo_core::units::convert", "Ft"),
        ("geo", "geo_core::shapes", "Circle"),
        ("geo", "geo_core", "Round"),
    ] {
        assert_eq!(
            symbols(repo, pkg, qn),
            vec![],
            "{repo}/{pkg}:{qn} is not a symbol"
        );
    }
    assert_eq!(
        symbols("geo", "geo_core::scope", "offset"),
        vec![Some(K::Function)],
        "the nested fn offset adds no symbol"
    );
    // Exported: pub items, variants of exported enums, trait and trait-impl items,
    // #[macro_export] macros, modules declared pub; not restricted or private ones.
    for (repo, pkg, qn, want) in [
        ("geo", "geo_core::point", "Point", true),
        ("geo", "geo_core::kinds", "Figure::Empty", true),
        ("geo", "geo_core::shapes", "Shape::area", true),
        (
            "geo",
            "geo_core::shapes::circle",
            "<Circle as Shape>::area",
            true,
        ),
        ("geo", "geo_core::macros", "near", true),
        ("geo", "geo_core::macros", "square", false),
        ("geo", "geo_core", "circle", true),
        ("geo", "geo_core::helpers", "geo_core::helpers", true),
        ("geo", "geo_core::tests", "geo_core::tests", false),
        ("geo", "bin:geo_cli::cli", "bin:geo_cli::cli", false),
    ] {
        assert_eq!(exported(repo, pkg, qn), want, "{repo}/{pkg}:{qn} exported");
    }
    // `mod missing;` has no file: no package.
    assert!(
        !g.packages
            .iter()
            .any(|p| s(p.name.to_native()) == "geo_core::missing"),
        "geo_core::missing has no file"
    );

    // Every edge comes from a Rust rule, in both generations.
    for f in [&facts, &with_std] {
        check_provenances(f);
    }
}

/// Every edge from a fixture repository has a `RUST_*` provenance; name-only matches are
/// `CANDIDATE`, and so is each target of a binding that finds several declarations (`#[cfg]`
/// alternatives, two globs); declaration facts, and only they, are `STRUCTURAL_CERTAIN`; other
/// exact edges are `EXACT_PACKAGE_MAPPED` exactly when they reach another registered (not
/// derived) repository; so are package edges.
fn check_provenances(f: &Facts) {
    common::rules::assert_package_edges(f, Provenance::RustUseDependency);
    common::rules::assert_edge_rules(
        f,
        &common::rules::EdgeRules {
            provenances: &[
                Provenance::RustScope,
                Provenance::RustPath,
                Provenance::RustReceiverTyped,
                Provenance::RustDeclaration,
                Provenance::RustNameOnly,
                Provenance::RustMacroArgument,
            ],
            name_only: Provenance::RustNameOnly,
            candidate_only: Some(Provenance::RustMacroArgument),
            declaration: Provenance::RustDeclaration,
            ambiguous_candidates: true,
            min_edges: 50,
        },
    );
}
