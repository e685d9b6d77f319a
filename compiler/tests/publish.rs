//! `publish`: a fact set built by hand, without source files, becomes a generation that passes
//! full verification; a fact set with a dangling reference or a bad repository name is refused
//! before anything is written.

use std::collections::BTreeSet;

use kivgraph_compile::facts::{Edge, FactSet, Package, PackageEdge, Repo, SourceFile, Symbol};
use kivgraph_compile::{CompileError, publish, verify_generation};
use kivgraph_format::{
    Confidence, EdgeKind, FileStatus, Generation, IndexDir, Language, Provenance, SymbolKind,
};

fn symbol(package: usize, file: usize, name: &str, qn: &str, kind: SymbolKind) -> Symbol {
    Symbol {
        repo: 0,
        package,
        file,
        language: Language::Go,
        name: name.into(),
        qualified_name: qn.into(),
        kind,
        exported: true,
        signature: None,
        start_line: 3,
        start_column: 0,
        end_line: 5,
        end_column: 1,
        start_byte: 20,
        end_byte: 60,
    }
}

fn facts() -> FactSet {
    let mut f = FactSet::default();
    f.repos.push(Repo {
        name: "handmade".into(),
        root: "/synthetic/handmade".into(),
        commit: None,
        branch: None,
        dirty: None,
        languages: BTreeSet::from([Language::Go]),
        derived: false,
    });
    for dir in ["b", "a"] {
        f.packages.push(Package {
            repo: 0,
            language: Language::Go,
            name: format!("example.com/handmade/{dir}"),
            path: dir.into(),
            module: Some("example.com/handmade".into()),
        });
        f.files.push(SourceFile {
            repo: 0,
            package: Some(f.packages.len() - 1),
            path: format!("{dir}/{dir}.go"),
            language: Some(Language::Go),
            status: FileStatus::Indexed,
            size: 100,
            lines: 10,
            sha256: [0; 32],
        });
    }
    f.symbols.push(symbol(0, 0, "Run", "Run", SymbolKind::Func));
    f.symbols
        .push(symbol(1, 1, "Client", "Client", SymbolKind::Type));
    f.symbols
        .push(symbol(1, 1, "Close", "Client.Close", SymbolKind::Method));
    for (source, target, kind, confidence, provenance) in [
        (
            0,
            2,
            EdgeKind::CallsDirect,
            Confidence::ExactDeclarationMapped,
            Provenance::GoReceiverTyped,
        ),
        (
            2,
            1,
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
        source: 0,
        target: 1,
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
    assert_eq!(
        g.strings.get(g.repositories[0].root.to_native()),
        "/synthetic/handmade"
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
    f.edges[0].target = 99;
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
