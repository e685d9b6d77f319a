//! Resolution fixtures: the annotated Python repositories under `fixtures/python/` are compiled
//! together through the public API, and every annotation is checked against the published
//! generation.
//!
//! The annotation syntax is the other languages' with `#` for `//` (`#want:`, `#want-none:`,
//! `#want-unresolved:`, several separated by ` ; `); `fixtures/python/README.md` gives what the
//! annotations mean for Python. The package part of a target is the target's graph package name,
//! its dotted module name (SPEC section 12.1), e.g. `shop.models.order:Order.total`, and
//! `shop.fastmath.pyi:Stats` for a stub beside its module. Module names may repeat across
//! repositories, so a target is looked up only in the annotated file's own repository, or, for
//! the cross-repository pair `corelib` + `app`, in either of the two.
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

/// The file name endings of Python sources (SPEC section 3.1).
const SUFFIXES: &[&str] = &[".py", ".pyi"];

/// `(repository name, directory under fixtures/python, group)`: a target may be in any repository
/// of the annotated file's group.
const REPOS: &[(&str, &str, &str)] = &[
    ("shop", "shop", "shop"),
    ("corelib", "pair/corelib", "pair"),
    ("app", "pair/app", "pair"),
];

/// The module roots of each repository (SPEC section 12.1), repository-relative, `""` for the
/// root: the root itself, `src/` where it exists, and the `package_dir` of `shop/tools/setup.cfg`.
const MODULE_ROOTS: &[(&str, &[&str])] = &[
    ("shop", &["", "src", "tools/lib"]),
    ("corelib", &["", "src"]),
    ("app", &["", "src"]),
];

/// `(repository, directory, project name)`: the project of the nearest `pyproject.toml` or
/// `setup.cfg` at or above a file.
const PROJECTS: &[(&str, &str, &str)] = &[
    ("shop", "", "shop"),
    ("shop", "tools/", "shop-tools"),
    ("corelib", "", "acme-corelib"),
    ("app", "", "acme-app"),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/python")
}

/// Compiles every fixture repository into one generation, so that `app` can bind to `corelib`.
fn compile_all(out: &Path) -> Facts {
    let roots: Vec<(&str, PathBuf)> = REPOS
        .iter()
        .map(|(name, dir, _)| (*name, fixtures().join(dir)))
        .collect();
    Facts::compile(out, &roots)
}

/// The graph package name SPEC section 12.1 gives the file `rel` of repository `repo`: its path
/// relative to the deepest module root that contains it, `/` as `.`, the extension dropped,
/// `pkg/__init__.py` as `pkg`, and `.pyi` appended for a stub beside a `.py` of the same module.
fn dotted_name(repo: &str, repo_root: &Path, rel: &str) -> String {
    let roots = MODULE_ROOTS.iter().find(|(r, _)| *r == repo).unwrap().1;
    let root = roots
        .iter()
        .filter(|r| r.is_empty() || rel.starts_with(&format!("{r}/")))
        .max_by_key(|r| r.len())
        .unwrap();
    let inner = if root.is_empty() {
        rel
    } else {
        &rel[root.len() + 1..]
    };
    let (stem, ext) = inner.rsplit_once('.').unwrap();
    let mut parts: Vec<&str> = stem.split('/').collect();
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    let mut name = parts.join(".");
    let beside = repo_root.join(format!("{}.py", &rel[..rel.len() - ext.len() - 1]));
    if ext == "pyi" && beside.exists() {
        name.push_str(".pyi");
    }
    name
}

#[test]
fn py_fixture_annotations_hold() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_all(out.path());
    let repos = grouped_repos(&facts, &fixtures(), REPOS);
    assert_annotations_hold(&facts, &repos, SUFFIXES, KNOWN_GAPS, 220);
}

/// SPEC section 12 facts the annotations do not state: every fixture file is a module named by
/// its dotted module name, in the project of its nearest `pyproject.toml` or `setup.cfg`; the
/// kinds of a selection of symbols; imports between modules are package edges, package-mapped
/// across repositories; every edge comes from a Python rule, and name-only matches, and only
/// they, are candidates.
#[test]
fn py_modules_packages_and_provenances() {
    let out = tempfile::tempdir().unwrap();
    let facts = compile_all(out.path());
    let g = facts.generation.graph();
    let s = |id: u32| g.strings.get(id);

    // Every source file is indexed as Python, as the package its dotted module name gives, in
    // the project of its nearest pyproject.toml or setup.cfg.
    let mut files = 0;
    let mut names: BTreeMap<(&str, String), String> = BTreeMap::new();
    for (name, dir, _) in REPOS {
        let root = fixtures().join(dir);
        for file in common::annotations::source_files(&root, SUFFIXES) {
            files += 1;
            let rel = file.strip_prefix(&root).unwrap().to_str().unwrap();
            let fid = facts
                .file_id(name, rel)
                .unwrap_or_else(|| panic!("{name}/{rel} is not in the graph"));
            let f = &g.files[fid as usize];
            assert_eq!(
                f.language,
                Language::Python.code(),
                "{name}/{rel}: language"
            );
            assert_eq!(
                f.status,
                FileStatus::Indexed as u8,
                "{name}/{rel}: file status"
            );
            assert_ne!(f.package.to_native(), NONE, "{name}/{rel}: no package");
            let p = &g.packages[f.package.to_native() as usize];
            let dotted = dotted_name(name, &root, rel);
            assert_eq!(s(p.name.to_native()), dotted, "{name}/{rel}: package name");
            assert_eq!(s(p.path.to_native()), rel, "{name}/{rel}: package path");
            assert_eq!(
                p.language,
                Language::Python.code(),
                "{name}/{rel}: package language"
            );
            assert_eq!(
                s(p.key.to_native()),
                format!("package:python:{name}:{dotted}"),
                "{name}/{rel}: package key"
            );
            let project = PROJECTS
                .iter()
                .filter(|(r, d, _)| r == name && rel.starts_with(d))
                .max_by_key(|(_, d, _)| d.len())
                .map(|m| m.2)
                .unwrap();
            assert_eq!(
                g.strings.opt(p.module.to_native()),
                Some(project),
                "{name}/{rel}: module"
            );
            names.insert((name, rel.to_string()), dotted);
        }
    }
    assert!(files > 25, "only {files} fixture files");
    // The computation above agrees with SPEC section 12.1 on the layouts that matter.
    for (repo, rel, dotted) in [
        ("shop", "src/shop/__init__.py", "shop"),
        ("shop", "src/shop/models/__init__.py", "shop.models"),
        (
            "shop",
            "src/shop/plugins/discounts.py",
            "shop.plugins.discounts",
        ),
        ("shop", "src/shop/fastmath.py", "shop.fastmath"),
        ("shop", "src/shop/fastmath.pyi", "shop.fastmath.pyi"),
        ("shop", "src/shop/_speedups.pyi", "shop._speedups"),
        ("shop", "tests/test_orders.py", "tests.test_orders"),
        ("shop", "tools/lib/shoptools/report.py", "shoptools.report"),
        ("corelib", "src/acme_corelib/__init__.py", "acme_corelib"),
        ("app", "src/acme_app/invoice.py", "acme_app.invoice"),
    ] {
        assert_eq!(
            names.get(&(repo, rel.to_string())).map(String::as_str),
            Some(dotted),
            "{repo}/{rel}"
        );
    }

    // Symbols: kinds and qualified names (SPEC section 12.2).
    let package = |repo: &str, name: &str| {
        let r = facts.repo_of(repo);
        g.packages
            .iter()
            .position(|p| p.repository.to_native() == r && s(p.name.to_native()) == name)
            .unwrap_or_else(|| panic!("no package {repo}/{name}")) as u32
    };
    let symbols = |repo: &str, pkg: &str, qn: &str| -> Vec<Option<SymbolKind>> {
        let p = package(repo, pkg);
        g.symbols
            .iter()
            .filter(|x| x.package.to_native() == p && s(x.qualified_name.to_native()) == qn)
            .map(|x| SymbolKind::from_code(x.kind))
            .collect()
    };
    use SymbolKind as K;
    for (repo, pkg, qn, kind) in [
        ("shop", "shop", "shop", K::Module),
        ("shop", "shop.models.order", "shop.models.order", K::Module),
        ("shop", "shop.config", "VERSION", K::Variable),
        ("shop", "shop.config", "MIN_QTY", K::Variable),
        ("shop", "shop.config", "MAX_QTY", K::Variable),
        ("shop", "shop.config", "CURRENCY", K::Variable),
        ("shop", "shop.config", "max_lines", K::Function),
        ("shop", "shop.models.base", "Entity", K::Class),
        ("shop", "shop.models.base", "Entity.id_prefix", K::Field),
        ("shop", "shop.models.base", "Entity.ident", K::Field),
        ("shop", "shop.models.base", "Tagged.tags", K::Field),
        ("shop", "shop.models.product", "Product.__init__", K::Method),
        ("shop", "shop.models.product", "Product.price", K::Property),
        ("shop", "shop.models.product", "Product.gross", K::Property),
        (
            "shop",
            "shop.models.product",
            "Product.normalise",
            K::StaticMethod,
        ),
        ("shop", "shop.models.product", "Product.free", K::Method),
        ("shop", "shop.models.product", "Product.kind", K::Field),
        ("shop", "shop.models.product", "Product.name", K::Field),
        ("shop", "shop.models.product", "Product._price", K::Field),
        ("shop", "shop.models.product", "Book.kind", K::Field),
        ("shop", "shop.models.product", "Book.author", K::Field),
        ("shop", "shop.models.order", "Line.qty", K::Field),
        ("shop", "shop.models.order", "Order.lines", K::Field),
        ("shop", "shop.models.order", "Order.status", K::Field),
        ("shop", "shop.models.order", "Order.of", K::Method),
        ("shop", "shop.pricing", "count", K::Variable),
        ("shop", "shop.pricing", "rate", K::Variable),
        ("shop", "shop.pricing", "step", K::Function),
        ("shop", "shop.pricing", "Discount.rate", K::Field),
        ("shop", "shop.pricing", "Discount.tiers", K::Field),
        ("shop", "shop.services.checkout", "house_order", K::Variable),
        ("shop", "shop.services.checkout", "Checkout.repo", K::Field),
        ("shop", "shop.fastmath", "Stats.values", K::Field),
        ("shop", "shop.fastmath.pyi", "Stats.values", K::Field),
        ("shop", "shop.fastmath.pyi", "Stats.spread", K::Method),
        ("shop", "shop.fastmath.pyi", "mean", K::Function),
        ("shop", "shop._speedups", "fast_total", K::Function),
        ("shop", "shoptools.report", "main", K::Function),
        ("corelib", "acme_corelib.money", "Money", K::Class),
        ("corelib", "acme_corelib.money", "Money.cents", K::Field),
        ("corelib", "acme_corelib.money", "ZERO", K::Variable),
        (
            "corelib",
            "acme_corelib.money",
            "CurrencyMismatch",
            K::Class,
        ),
        ("app", "acme_app.invoice", "Invoice.paid", K::Field),
        ("app", "acme_app.invoice", "Invoice.number", K::Field),
    ] {
        assert_eq!(
            symbols(repo, pkg, qn),
            vec![Some(kind)],
            "{repo}/{pkg}:{qn} should be one {}",
            kind.as_str()
        );
    }
    // (Each of those is one symbol: `global count`, the nested `def step`, the second
    // `self._price =` and the `self.status =` of a field the class body declares add none.)
    // Locals, parameters, nested functions, comprehension variables, imports and `for` targets
    // are not symbols.
    for (repo, pkg, qn) in [
        ("shop", "shop.pricing", "inc"),
        ("shop", "shop.pricing", "make_counter.inc"),
        ("shop", "shop.pricing", "make_counter.count"),
        ("shop", "shop.pricing", "squares"),
        ("shop", "shop.pricing", "slugify"),
        ("shop", "shop.pricing", "TAX_RATE"),
        ("shop", "shop.services.checkout", "json"),
        ("shop", "shop.services.checkout", "pricing"),
        ("shop", "shop.util.text", "sep"),
        ("shop", "shop.models.order", "Order.total.line"),
    ] {
        assert_eq!(
            symbols(repo, pkg, qn),
            vec![],
            "{repo}/{pkg}:{qn} is not a symbol"
        );
    }

    // Package edges: relative, absolute and star imports, `import a.b as c`, a stub without a
    // module, module roots of one repository reaching each other, and the other repository.
    let depends = |from: (&str, &str), to: (&str, &str), confidence: Confidence| {
        let (a, b) = (package(from.0, from.1), package(to.0, to.1));
        assert!(
            g.package_edges.iter().any(|e| e.source.to_native() == a
                && e.target.to_native() == b
                && e.kind == EdgeKind::PackageDependsOn.code()
                && e.confidence == confidence.code()
                && e.provenance.to_native() == Provenance::PyImportDependency.code()),
            "no PACKAGE_DEPENDS_ON {from:?} -> {to:?} {}",
            confidence.as_str()
        );
    };
    let exact = Confidence::ExactDeclarationMapped;
    let checkout = ("shop", "shop.services.checkout");
    depends(checkout, ("shop", "shop.models"), exact);
    depends(checkout, ("shop", "shop.models.order"), exact);
    depends(checkout, ("shop", "shop.services.repo"), exact);
    depends(checkout, ("shop", "shop.util.numbers"), exact);
    depends(checkout, ("shop", "shop.util.text"), exact);
    depends(checkout, ("shop", "shop.fastmath"), exact);
    depends(("shop", "shop.models"), ("shop", "shop.models.base"), exact);
    depends(
        ("shop", "shop.models.customer"),
        ("shop", "shop.models.order"),
        exact,
    );
    depends(("shop", "shop.pricing"), ("shop", "shop.util.text"), exact);
    depends(("shop", "shop.pricing"), ("shop", "shop._speedups"), exact);
    depends(
        ("shop", "shop.plugins.discounts"),
        ("shop", "shop.registry"),
        exact,
    );
    depends(
        ("shop", "tests.test_orders"),
        ("shop", "shop.services.checkout"),
        exact,
    );
    depends(
        ("shop", "shoptools.report"),
        ("shop", "shop.services.repo"),
        exact,
    );
    depends(
        ("corelib", "acme_corelib"),
        ("corelib", "acme_corelib.money"),
        exact,
    );
    let mapped = Confidence::ExactPackageMapped;
    let invoice = ("app", "acme_app.invoice");
    depends(invoice, ("corelib", "acme_corelib.ledger"), mapped);
    depends(invoice, ("corelib", "acme_corelib.money"), mapped);
    depends(invoice, ("corelib", "acme_corelib.rates"), mapped);
    depends(("app", "acme_app.cli"), ("corelib", "acme_corelib"), mapped);
    depends(("app", "acme_app.cli"), invoice, exact);

    // Package edges are PACKAGE_DEPENDS_ON from a Python import, package-mapped exactly when
    // they cross repositories. Every edge comes from a Python rule.
    common::rules::assert_package_edges(&facts, Provenance::PyImportDependency);
    common::rules::assert_edge_rules(
        &facts,
        &common::rules::EdgeRules {
            provenances: &[
                Provenance::PyScope,
                Provenance::PyImport,
                Provenance::PyReceiverTyped,
                Provenance::PyDeclaration,
                Provenance::PyNameOnly,
            ],
            name_only: Provenance::PyNameOnly,
            candidate_only: None,
            declaration: Provenance::PyDeclaration,
            ambiguous_candidates: false,
            min_edges: 300,
        },
    );
}
