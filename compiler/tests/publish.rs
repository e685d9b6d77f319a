//! `publish`: a fact set built by hand, without source files, becomes a generation that passes
//! full verification; a fact set with a dangling reference or a bad repository name is refused
//! before anything is written.

use std::collections::BTreeSet;

use kivgraph_compile::facts::{
    Edge, FactSet, FileId, Package, PackageEdge, PackageId, Repo, RepoId, SourceFile, Span, Symbol,
    SymbolId,
};
use kivgraph_compile::{CompileError, publish, verify_generation};
use kivgraph_format::{
    Confidence, EdgeKind, FileStatus, Generation, IndexDir, Language, Provenance, SymbolKind,
};

fn symbol(package: PackageId, file: FileId, name: &str, qn: &str, kind: SymbolKind) -> Symbol {
    Symbol {
        repo: RepoId(0),
        package,
        file,
        language: Language::Go,
        name: name.into(),
        qualified_name: qn.into(),
        kind,
        exported: true,
        signature: None,
        span: Span {
            start_line: 3,
            start_column: 0,
            end_line: 5,
            end_column: 1,
            start_byte: 20,
            end_byte: 60,
        },
    }
}

fn facts() -> FactSet {
    let mut f = FactSet::default();
    let repo = f.push_repo(Repo {
        name: "handmade".into(),
        root: "/synthetic/handmade".into(),
        commit: None,
        branch: None,
        dirty: None,
        languages: BTreeSet::from([Language::Go]),
        derived: false,
    });
    let mut homes = Vec::new();
    for dir in ["b", "a"] {
        let package = f.push_package(Package {
            repo,
            language: Language::Go,
            name: format!("example.com/handmade/{dir}"),
            path: dir.into(),
            module: Some("example.com/handmade".into()),
        });
        let file = f.push_file(SourceFile {
            repo,
            package: Some(package),
            path: format!("{dir}/{dir}.go"),
            language: Some(Language::Go),
            status: FileStatus::Indexed,
            size: 100,
            lines: 10,
            sha256: [0; 32],
        });
        homes.push((package, file));
    }
    let (b, a) = (homes[0], homes[1]);
    let run = f.push_symbol(symbol(b.0, b.1, "Run", "Run", SymbolKind::Func));
    let client = f.push_symbol(symbol(a.0, a.1, "Client", "Client", SymbolKind::Type));
    let close = f.push_symbol(symbol(
        a.0,
        a.1,
        "Close",
        "Client.Close",
        SymbolKind::Method,
    ));
    for (source, target, kind, confidence, provenance) in [
        (
            run,
            close,
            EdgeKind::CallsDirect,
            Confidence::ExactDeclarationMapped,
            Provenance::GoReceiverTyped,
        ),
        (
            close,
            client,
            EdgeKind::MethodOf,
            Confidence::StructuralCertain,
            Provenance::GoDeclaration,
        ),
    ] {
        f.edges.push(Edge {
            source,
            target,
            kind,
            confidence,
            provenance,
            file: Some(f.symbols[source].file),
            line: 4,
            column: 2,
        });
    }
    f.package_edges.push(PackageEdge {
        source: b.0,
        target: a.0,
        kind: EdgeKind::PackageDependsOn,
        confidence: Confidence::ExactDeclarationMapped,
        provenance: Provenance::GoImport,
    });
    f
}

#[test]
fn a_handmade_fact_set_publishes_a_verifiable_generation() {
    let out = tempfile::tempdir().unwrap();
    let published = publish(out.path(), facts()).unwrap();
    assert_eq!(published.generation_id, 1);
    assert_eq!(published.rows.symbols, 3);
    assert_eq!(published.rows.edges, 2);
    assert_eq!(published.rows.package_edges, 1);
    verify_generation(&published.generation_dir).unwrap();

    let generation = Generation::open_current(&IndexDir::new(out.path()))
        .unwrap()
        .unwrap();
    let g = generation.graph();
    // The root is not part of the generation (SPEC 1.10): it is recorded beside the index.
    assert_eq!(g.strings.get(g.repositories[0].root.to_native()), "");
    let checkouts = kivgraph_format::checkouts::Checkouts::read(&IndexDir::new(out.path()));
    assert_eq!(
        checkouts.repositories.get("handmade").map(String::as_str),
        Some("/synthetic/handmade")
    );
    // Packages were given out of order; the generation holds them in canonical order.
    let names: Vec<&str> = g
        .packages
        .iter()
        .map(|p| g.strings.get(p.name.to_native()))
        .collect();
    assert_eq!(names, ["example.com/handmade/a", "example.com/handmade/b"]);

    let second = publish(out.path(), facts()).unwrap();
    assert_eq!(second.generation_id, 2);
}

#[test]
fn dangling_references_and_bad_names_are_refused_before_writing() {
    let out = tempfile::tempdir().unwrap();
    let mut f = facts();
    f.edges[0].target = SymbolId(99);
    match publish(out.path(), f) {
        Err(CompileError::Facts(m)) => {
            assert!(m.to_string().contains("edge 0: target"), "{m}")
        }
        other => panic!("expected a facts error, got {other:?}"),
    }
    let mut f = facts();
    f.edges[0].kind = EdgeKind::PackageDependsOn;
    assert!(matches!(
        publish(out.path(), f),
        Err(CompileError::Facts(_))
    ));
    let mut f = facts();
    f.repos[0].name = "a/b".into();
    assert!(matches!(
        publish(out.path(), f),
        Err(CompileError::Repository(_))
    ));
    assert!(IndexDir::new(out.path()).current().unwrap().is_none());
}
