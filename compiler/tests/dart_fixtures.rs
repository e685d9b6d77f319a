//! Resolution fixtures: the annotated Dart repositories under `fixtures/dart/` are compiled
//! together through the public API, and every annotation is checked against the published
//! generation.
//!
//! The annotation syntax is the other languages' (`//want:`, `//want-none:`,
//! `//want-unresolved:`, several separated by ` ; `); `fixtures/dart/README.md` gives what the
//! annotations mean for Dart. The package part of a target is the target's graph package name,
//! the URI of its library (SPEC section 15.1): `package:shop/src/cart.dart:Cart.add` for a file
//! under `lib/`, `bin/main.dart:randomCart` for one outside it; the target splits at its last
//! single `:`. Declarations of a part are in their library's package. Library URIs outside `lib/`
//! may repeat across repositories, so a target is looked up only in the annotated file's own
//! repository, or, for the cross-repository pair `corelib` + `app`, in either of the two.
//!
//! Known gaps stay in the tree: each is listed in `KNOWN_GAPS` with the reason, and the test fails
//! if a listed gap starts passing (so the list cannot go stale) or a new failure appears.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::annotations::{Facts, assert_annotations_hold, grouped_repos};
use kivgraph_format::{Confidence, EdgeKind, FileStatus, Language, NONE, Provenance, SymbolKind};

/// Annotations this version is known to get wrong, as `file:line: annotation` with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// The file name ending of Dart sources (SPEC section 3.1).
const SUFFIXES: &[&str] = &[".dart"];

/// `(repository name, directory under fixtures/dart, group)`: a target may be in any repository
/// of the annotated file's group.
const REPOS: &[(&str, &str, &str)] = &[
    ("shop", "shop", "shop"),
    ("corelib", "pair/corelib", "pair"),
    ("app", "pair/app", "pair"),
];

/// `(repository, pubspec name)`: each fixture repository is one Dart package, its `pubspec.yaml`
/// at the repository root.
const PUBSPECS: &[(&str, &str)] = &[
    ("shop", "shop"),
    ("corelib", "acme_core"),
    ("app", "acme_app"),
];

/// `(repository, part file, its library's file, line of the `part of` directive)`.
const PARTS: &[(&str, &str, &str, u32)] = &[
    ("shop", "lib/src/cart_items.dart", "lib/src/cart.dart", 2),
    ("shop", "lib/src/cart_totals.dart", "lib/src/cart.dart", 2),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/dart")
}

/// Compiles every fixture repository into one generation, so that `app` can bind to `corelib`.
fn compile_all(out: &Path) -> Facts {
    let roots: Vec<(&str, PathBuf)> = REPOS
        .iter()
        .map(|(name, dir, _)| (*name, fixtures().join(dir)))
        .collect();
    Facts::compile(out, &roots)
}

/// Whether `rel` is in a directory the front end never walks: `build/` beside a `pubspec.yaml`
/// (build output) and `.dart_tool/`.
fn never_walked(rel: &str) -> bool {
    rel.starts_with("build/") || rel.starts_with(".dart_tool/")
}

/// The library URI SPEC section 15.1 gives the library file `rel` of the package `pubspec`:
/// `package:<pubspec>/<path under lib/>` under `lib/`, else the repository-relative path.
fn library_uri(pubspec: &str, rel: &str) -> String {
    match rel.strip_prefix("lib/") {
        Some(inner) => format!("package:{pubspec}/{inner}"),
        None => rel.to_string(),
    }
}

#[test]
fn dart_fixture_annotations_hold() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_all(out.path());
    let repos = grouped_repos(&facts, &fixtures(), REPOS);
    assert_annotations_hold(&facts, &repos, SUFFIXES, KNOWN_GAPS, 400);
}

/// SPEC section 15 facts the annotations do not state: every library file is a package named by
/// its URI, in the pubspec package above it; part files are in their library's package, with a
/// `part:<path>` module symbol that is `PART_OF` the library's; build output is not walked; the
/// kinds of a selection of symbols; imports and exports between libraries are package edges,
/// package-mapped across repositories; every edge comes from a Dart rule, and name-only matches,
/// and only they, are candidates.
#[test]
fn dart_libraries_parts_and_provenances() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_all(out.path());
    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);

    // Every source file is indexed as Dart. A library is the package its URI names; a part is in
    // its library's package; the package's path is the library's file and its module the pubspec
    // name.
    let mut files = 0;
    let mut names: BTreeMap<(&str, String), String> = BTreeMap::new();
    for (name, dir, _) in REPOS {
        let root = fixtures().join(dir);
        let pubspec = PUBSPECS.iter().find(|(r, _)| r == name).unwrap().1;
        for file in common::annotations::source_files(&root, SUFFIXES) {
            let rel = file.strip_prefix(&root).unwrap().to_str().unwrap();
            if never_walked(rel) {
                // Never walked: not in the graph, or at most listed as excluded.
                if let Some(fid) = facts.file_id(name, rel) {
                    assert_eq!(
                        g.files[fid as usize].status,
                        FileStatus::BuildExcluded as u8,
                        "{name}/{rel} is build output"
                    );
                    assert!(
                        g.symbols.iter().all(|x| x.file.to_native() != fid),
                        "{name}/{rel}: build output has symbols"
                    );
                }
                continue;
            }
            files += 1;
            let fid = facts
                .file_id(name, rel)
                .unwrap_or_else(|| panic!("{name}/{rel} is not in the graph"));
            let f = &g.files[fid as usize];
            assert_eq!(f.language, Language::Dart.code(), "{name}/{rel}: language");
            assert_eq!(
                f.status,
                FileStatus::Indexed as u8,
                "{name}/{rel}: file status"
            );
            assert_ne!(f.package.to_native(), NONE, "{name}/{rel}: no package");
            let p = &g.packages[f.package.to_native() as usize];
            let text = std::fs::read_to_string(&file).unwrap();
            let is_part = text.lines().any(|l| l.starts_with("part of "));
            let library = match PARTS
                .iter()
                .find(|(r, part, _, _)| r == name && *part == rel)
            {
                Some((_, _, lib, _)) => *lib,
                None => {
                    assert!(!is_part, "{name}/{rel} is a part missing from PARTS");
                    rel
                }
            };
            let uri = library_uri(pubspec, library);
            assert_eq!(s(p.name.to_native()), uri, "{name}/{rel}: package name");
            assert_eq!(s(p.path.to_native()), library, "{name}/{rel}: package path");
            assert_eq!(
                p.language,
                Language::Dart.code(),
                "{name}/{rel}: package language"
            );
            assert_eq!(
                s(p.key.to_native()),
                format!("package:dart:{name}:{uri}"),
                "{name}/{rel}: package key"
            );
            assert_eq!(
                g.strings.opt(p.module.to_native()),
                Some(pubspec),
                "{name}/{rel}: module"
            );
            names.insert((name, rel.to_string()), uri);
        }
    }
    assert!(files >= 25, "only {files} fixture files");
    // The computation above agrees with SPEC section 15.1 on the layouts that matter.
    for (repo, rel, uri) in [
        ("shop", "lib/shop.dart", "package:shop/shop.dart"),
        ("shop", "lib/src/cart.dart", "package:shop/src/cart.dart"),
        (
            "shop",
            "lib/src/cart_items.dart",
            "package:shop/src/cart.dart",
        ),
        (
            "shop",
            "lib/src/cart_totals.dart",
            "package:shop/src/cart.dart",
        ),
        ("shop", "bin/main.dart", "bin/main.dart"),
        ("shop", "test/cart_test.dart", "test/cart_test.dart"),
        (
            "corelib",
            "lib/acme_core.dart",
            "package:acme_core/acme_core.dart",
        ),
        (
            "corelib",
            "lib/src/money.dart",
            "package:acme_core/src/money.dart",
        ),
        (
            "app",
            "lib/src/invoice.dart",
            "package:acme_app/src/invoice.dart",
        ),
        ("app", "bin/app.dart", "bin/app.dart"),
    ] {
        assert_eq!(
            names.get(&(repo, rel.to_string())).map(String::as_str),
            Some(uri),
            "{repo}/{rel}"
        );
    }

    let package = |repo: &str, name: &str| {
        let r = facts.repo_of(repo);
        g.packages
            .iter()
            .position(|p| p.repository.to_native() == r && s(p.name.to_native()) == name)
            .unwrap_or_else(|| panic!("no package {repo}/{name}")) as u32
    };
    let find = |repo: &str, pkg: &str, qn: &str| -> Vec<u32> {
        let p = package(repo, pkg);
        g.symbols
            .iter()
            .enumerate()
            .filter(|(_, x)| x.package.to_native() == p && s(x.qualified_name.to_native()) == qn)
            .map(|(i, _)| i as u32)
            .collect()
    };
    let kinds = |repo: &str, pkg: &str, qn: &str| -> Vec<Option<SymbolKind>> {
        find(repo, pkg, qn)
            .into_iter()
            .map(|i| SymbolKind::from_code(g.symbols[i as usize].kind))
            .collect()
    };

    // Module symbols: a library's qualified name is its package name, a part's is
    // `part:<path>`, in its library's package; neither is exported. A part's module symbol is
    // PART_OF its library's, on the `part of` line.
    for (repo, pkg, qn) in [
        ("shop", "package:shop/shop.dart", "package:shop/shop.dart"),
        (
            "shop",
            "package:shop/src/cart.dart",
            "package:shop/src/cart.dart",
        ),
        ("shop", "bin/main.dart", "bin/main.dart"),
        ("shop", "test/cart_test.dart", "test/cart_test.dart"),
        (
            "corelib",
            "package:acme_core/acme_core.dart",
            "package:acme_core/acme_core.dart",
        ),
        ("app", "bin/app.dart", "bin/app.dart"),
    ] {
        let ids = find(repo, pkg, qn);
        assert_eq!(ids.len(), 1, "{repo}/{pkg}: one module symbol {qn}");
        let m = &g.symbols[ids[0] as usize];
        assert_eq!(SymbolKind::from_code(m.kind), Some(SymbolKind::Module));
        assert!(!m.exported, "{repo}/{pkg}: a module symbol is not exported");
    }
    for (repo, part, library, line) in PARTS {
        let pkg = library_uri("shop", library);
        let ids = find(repo, &pkg, &format!("part:{part}"));
        assert_eq!(ids.len(), 1, "{repo}/{part}: one part module symbol");
        let m = &g.symbols[ids[0] as usize];
        assert_eq!(SymbolKind::from_code(m.kind), Some(SymbolKind::Module));
        assert!(!m.exported, "{repo}/{part}: a part symbol is not exported");
        let lib = find(repo, &pkg, &pkg);
        let part_file = facts.file_id(repo, part).unwrap();
        assert!(
            g.forward
                .row(ids[0])
                .iter()
                .any(|e| e.other.to_native() == lib[0]
                    && e.kind == EdgeKind::PartOf.code()
                    && e.confidence == Confidence::StructuralCertain.code()
                    && e.provenance.to_native() == Provenance::DartDeclaration.code()
                    && e.file.to_native() == part_file
                    && e.line.to_native() == *line),
            "{repo}/{part}: no PART_OF {pkg} on line {line}"
        );
    }

    // Symbols: kinds and qualified names (SPEC section 15.2).
    use SymbolKind as K;
    let cart = "package:shop/src/cart.dart";
    let catalog = "package:shop/src/catalog.dart";
    let money = "package:shop/src/money.dart";
    let pricing = "package:shop/src/pricing.dart";
    let store = "package:shop/src/store.dart";
    let shipping = "package:shop/src/shipping.dart";
    let text = "package:shop/src/text.dart";
    let audit = "package:shop/src/audit.dart";
    for (repo, pkg, qn, kind) in [
        ("shop", cart, "Cart", K::Class),
        ("shop", cart, "Cart.new", K::Method),
        ("shop", cart, "Cart.guest", K::Method),
        ("shop", cart, "Cart.of", K::Method),
        ("shop", cart, "Cart.create", K::StaticMethod),
        ("shop", cart, "Cart.maxLines", K::Field),
        ("shop", cart, "Cart.made", K::Field),
        ("shop", cart, "Cart.owner", K::Field),
        ("shop", cart, "Cart.label", K::Field),
        ("shop", cart, "Cart._lines", K::Field),
        ("shop", cart, "Cart.discountPercent", K::Property),
        ("shop", cart, "Cart.lines", K::Property),
        ("shop", cart, "Cart.add", K::Method),
        ("shop", cart, "Cart.operator+", K::Method),
        ("shop", cart, "Cart.operator[]", K::Method),
        ("shop", cart, "CartFull.message", K::Property),
        // Declarations of the parts are the library's.
        ("shop", cart, "LineItem", K::Class),
        ("shop", cart, "LineItem.total", K::Property),
        ("shop", cart, "Noted", K::Class),
        ("shop", cart, "Noted.note", K::Method),
        ("shop", cart, "auditTrail", K::Variable),
        ("shop", cart, "CartTotals", K::Implementation),
        ("shop", cart, "CartTotals.due", K::Property),
        ("shop", cart, "CartTotals.costsMoreThan", K::Method),
        ("shop", cart, "summarize", K::Function),
        ("shop", catalog, "Priced", K::Class),
        ("shop", catalog, "Product", K::Class),
        ("shop", catalog, "Product.price", K::Property),
        ("shop", catalog, "Category", K::Enum),
        ("shop", catalog, "Category.books", K::EnumMember),
        ("shop", catalog, "Catalog", K::TypeAlias),
        ("shop", catalog, "ProductTest", K::TypeAlias),
        ("shop", catalog, "GiftCard.euros", K::Method),
        ("shop", catalog, "defaultCatalog", K::Variable),
        ("shop", money, "Money", K::Class),
        ("shop", money, "Money.zero", K::Method),
        ("shop", money, "Money.parse", K::Method),
        ("shop", money, "Money.free", K::Field),
        ("shop", money, "Money.operator*", K::Method),
        ("shop", money, "Money.isFree", K::Property),
        ("shop", money, "sum", K::Function),
        ("shop", pricing, "PriceRule", K::TypeAlias),
        ("shop", pricing, "Discount.rule", K::Property),
        ("shop", pricing, "Tier", K::Enum),
        ("shop", pricing, "Tier.gold", K::EnumMember),
        ("shop", pricing, "Tier.new", K::Method),
        ("shop", pricing, "Tier.percent", K::Field),
        ("shop", pricing, "Tier.forSpending", K::StaticMethod),
        ("shop", pricing, "appliedCount", K::Variable),
        ("shop", pricing, "roundTo", K::Const),
        ("shop", pricing, "_rate", K::Variable),
        ("shop", pricing, "taxRate", K::Property),
        ("shop", pricing, "cheapest", K::Function),
        ("shop", store, "Box", K::Class),
        ("shop", store, "Box.map", K::Method),
        ("shop", store, "Repository", K::Class),
        ("shop", store, "Logged", K::Class),
        ("shop", store, "Logged.log", K::Field),
        ("shop", store, "Closable", K::Class),
        ("shop", store, "CartStore", K::Class),
        ("shop", store, "CartStore._", K::Method),
        ("shop", store, "CartStore.new", K::Method),
        ("shop", store, "CartStore._instance", K::Field),
        ("shop", store, "loadCart", K::Function),
        ("shop", shipping, "Meters", K::Type),
        ("shop", shipping, "Meters.km", K::Method),
        ("shop", shipping, "Meters.isFar", K::Property),
        ("shop", shipping, "Grams", K::Type),
        ("shop", shipping, "Carrier", K::Class),
        ("shop", shipping, "Parcel", K::TypeAlias),
        ("shop", shipping, "defaultCarrier", K::Const),
        ("shop", text, "ShopText", K::Implementation),
        ("shop", text, "ShopText.shout", K::Method),
        ("shop", text, "ShopText.slug", K::Property),
        ("shop", text, "shopName", K::Property),
        ("shop", audit, "tracked", K::Const),
        ("shop", audit, "extension@72", K::Implementation),
        ("shop", audit, "extension@72.resetAll", K::Method),
        ("shop", "bin/main.dart", "main", K::Function),
        ("shop", "package:shop/shop.dart", "apiVersion", K::Const),
        (
            "corelib",
            "package:acme_core/src/ledger.dart",
            "Audited",
            K::Class,
        ),
        (
            "corelib",
            "package:acme_core/src/ledger.dart",
            "Entry",
            K::TypeAlias,
        ),
        (
            "corelib",
            "package:acme_core/src/rates.dart",
            "Currency.usd",
            K::EnumMember,
        ),
        (
            "app",
            "package:acme_app/src/invoice.dart",
            "Invoice.lines",
            K::Property,
        ),
    ] {
        assert_eq!(
            kinds(repo, pkg, qn),
            vec![Some(kind)],
            "{repo}/{pkg}:{qn} should be one {}",
            kind.as_str()
        );
    }
    // A getter and setter pair is one symbol (checked above); locals, parameters, pattern
    // variables, type parameters and import prefixes are not symbols.
    for (repo, pkg, qn) in [
        ("shop", cart, "Cart.of.cart"),
        ("shop", cart, "cart"),
        ("shop", cart, "m"),
        ("shop", money, "Money.parse.parts"),
        ("shop", store, "T"),
        ("shop", store, "Box.T"),
        ("shop", store, "amountDue.typed"),
        ("shop", shipping, "catalog"),
        ("shop", shipping, "weight"),
        ("shop", catalog, "a"),
    ] {
        assert_eq!(
            kinds(repo, pkg, qn),
            vec![],
            "{repo}/{pkg}:{qn} is not a symbol"
        );
    }
    // `exported`: names without a leading `_`, members of exported containers.
    for (pkg, qn, exported) in [
        (cart, "Cart", true),
        (cart, "Cart.add", true),
        (cart, "Cart._lines", false),
        (cart, "Cart._discountPercent", false),
        (pricing, "_rate", false),
        (store, "CartStore._", false),
        (store, "CartStore._instance", false),
    ] {
        let ids = find("shop", pkg, qn);
        assert_eq!(ids.len(), 1, "{pkg}:{qn}");
        assert_eq!(g.symbols[ids[0] as usize].exported, exported, "{pkg}:{qn}");
    }
    // Build output beside a pubspec.yaml is never walked.
    assert!(
        g.symbols
            .iter()
            .all(|x| s(x.name.to_native()) != "GeneratedEntryPoint"),
        "build/ was walked"
    );

    // Package edges: relative, `package:`, prefixed, deferred and conditional imports, exports,
    // and the other repository.
    let depends = |from: (&str, &str), to: (&str, &str), confidence: Confidence| {
        let (a, b) = (package(from.0, from.1), package(to.0, to.1));
        assert!(
            g.package_edges.iter().any(|e| e.source.to_native() == a
                && e.target.to_native() == b
                && e.kind == EdgeKind::PackageDependsOn.code()
                && e.confidence == confidence.code()),
            "no PACKAGE_DEPENDS_ON {from:?} -> {to:?} {}",
            confidence.as_str()
        );
    };
    let exact = Confidence::ExactDeclarationMapped;
    let remote = ("shop", "package:shop/src/remote.dart");
    depends(
        ("shop", "bin/main.dart"),
        ("shop", "package:shop/shop.dart"),
        exact,
    );
    depends(("shop", "bin/main.dart"), ("shop", shipping), exact);
    depends(
        ("shop", "test/cart_test.dart"),
        ("shop", "package:shop/shop.dart"),
        exact,
    );
    depends(("shop", "package:shop/shop.dart"), ("shop", cart), exact);
    depends(("shop", "package:shop/shop.dart"), ("shop", money), exact);
    depends(("shop", cart), ("shop", catalog), exact);
    depends(("shop", cart), ("shop", money), exact);
    depends(
        remote,
        ("shop", "package:shop/src/platform_stub.dart"),
        exact,
    );
    depends(remote, ("shop", "package:shop/src/reports.dart"), exact);
    depends(("shop", shipping), ("shop", catalog), exact);
    let mapped = Confidence::ExactPackageMapped;
    let invoice = ("app", "package:acme_app/src/invoice.dart");
    depends(
        invoice,
        ("corelib", "package:acme_core/acme_core.dart"),
        mapped,
    );
    depends(
        invoice,
        ("corelib", "package:acme_core/src/money.dart"),
        mapped,
    );
    depends(
        ("app", "bin/app.dart"),
        ("app", "package:acme_app/acme_app.dart"),
        exact,
    );
    depends(
        ("corelib", "package:acme_core/src/rates.dart"),
        ("corelib", "package:acme_core/src/money.dart"),
        exact,
    );

    // Package edges are PACKAGE_DEPENDS_ON read from a directive, package-mapped exactly when
    // they cross repositories. Every edge comes from a Dart rule; besides name-only matches, a
    // name that two imports or two extensions bind differently gives one candidate per target.
    common::rules::assert_package_edges(&facts, Provenance::DartImportDependency);
    common::rules::assert_edge_rules(
        &facts,
        &common::rules::EdgeRules {
            provenances: &[
                Provenance::DartScope,
                Provenance::DartImport,
                Provenance::DartReceiverTyped,
                Provenance::DartDeclaration,
                Provenance::DartNameOnly,
            ],
            name_only: Provenance::DartNameOnly,
            candidate_only: None,
            declaration: Provenance::DartDeclaration,
            ambiguous_candidates: true,
            min_edges: 400,
        },
    );
}
