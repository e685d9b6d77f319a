//! The scorer reads the TypeScript oracle's output (`benches/accuracy/ts/oracle.mjs`): its
//! header names the language and checker, its uses carry the prescribed edge kind and the
//! target's repository, its declarations may name the method they override. This checks that a
//! small hand-written oracle output is read as such and scored against a compiled generation
//! without error, whatever the TypeScript front end produces today.

use std::io::Cursor;

use kivgraph_benches::accuracy::{self, ANY_REPO, Oracle, OracleLanguage};
use kivgraph_compile::{CompileOptions, RepoSpec};
use kivgraph_format::{Generation, IndexDir};

const A_TS: &str = "export class Base {\n  greet(): string { return \"hi\"; }\n}\n";
const B_TS: &str = "import { Base } from \"./a\";\nexport class Derived extends Base {\n  greet(): string { return super.greet(); }\n}\nexport const d = new Derived();\n";

/// What the oracle writes for the two files above (sha256 left empty: not compared).
const ORACLE: &str = r#"{"t":"oracle","language":"typescript","checker":"typescript 5.9.3"}
{"t":"package","repo":"demo","dir":"src","pkg":"src/a.ts","files":1,"errors":0,"error_sample":[]}
{"t":"file","repo":"demo","file":"src/a.ts","pkg":"src/a.ts","lines":3,"sha256":""}
{"t":"package","repo":"demo","dir":"src","pkg":"src/b.ts","files":1,"errors":0,"error_sample":[]}
{"t":"file","repo":"demo","file":"src/b.ts","pkg":"src/b.ts","lines":5,"sha256":""}
{"t":"decl","repo":"demo","pkg":"src/a.ts","file":"src/a.ts","line":1,"col":0,"end_line":3,"kind":"class","detail":"class","name":"Base","qn":"Base"}
{"t":"decl","repo":"demo","pkg":"src/a.ts","file":"src/a.ts","line":2,"col":2,"end_line":2,"kind":"method","detail":"method","name":"greet","qn":"Base.greet","method_of":{"pkg":"src/a.ts","qn":"Base","kind":"class"}}
{"t":"decl","repo":"demo","pkg":"src/b.ts","file":"src/b.ts","line":2,"col":0,"end_line":4,"kind":"class","detail":"class","name":"Derived","qn":"Derived"}
{"t":"decl","repo":"demo","pkg":"src/b.ts","file":"src/b.ts","line":3,"col":2,"end_line":3,"kind":"method","detail":"method","name":"greet","qn":"Derived.greet","method_of":{"pkg":"src/b.ts","qn":"Derived","kind":"class"},"overrides":{"pkg":"src/a.ts","qn":"Base.greet","kind":"method","target_repo":"demo"}}
{"t":"decl","repo":"demo","pkg":"src/b.ts","file":"src/b.ts","line":5,"col":13,"end_line":5,"kind":"constant","detail":"constant","name":"d","qn":"d"}
{"t":"use","repo":"demo","file":"src/b.ts","line":1,"col":9,"name":"Base","pkg":"src/a.ts","target_repo":"demo","qn":"Base","kind":"class","detail":"class","use":"value","form":"import-specifier","edge":"IMPORTS_SYMBOL","from_kind":"module","from_qn":"src/b.ts","from_line":1}
{"t":"use","repo":"demo","file":"src/b.ts","line":2,"col":29,"name":"Base","pkg":"src/a.ts","target_repo":"demo","qn":"Base","kind":"class","detail":"class","use":"value","form":"heritage-extends","edge":"EXTENDS","from_kind":"class","from_qn":"Derived","from_line":2}
{"t":"use","repo":"demo","file":"src/b.ts","line":3,"col":33,"name":"greet","pkg":"src/a.ts","target_repo":"demo","qn":"Base.greet","kind":"method","detail":"method","use":"call","form":"property-access on super (call)","edge":"CALLS_DIRECT","from_kind":"method","from_qn":"Derived.greet","from_line":3}
{"t":"use","repo":"demo","file":"src/b.ts","line":5,"col":21,"name":"Derived","pkg":"src/b.ts","target_repo":"demo","qn":"Derived","kind":"class","detail":"class","use":"call","form":"new","edge":"CALLS_DIRECT","from_kind":"constant","from_qn":"d","from_line":5}
"#;

#[test]
fn the_typescript_oracle_output_is_read_as_such() {
    let o = Oracle::parse(Cursor::new(ORACLE)).unwrap();
    assert_eq!(o.language, OracleLanguage::TypeScript);
    assert_eq!(o.checker.as_deref(), Some("typescript 5.9.3"));
    assert_eq!((o.files.len(), o.decls.len(), o.uses.len()), (2, 5, 4));
    let demo = o.s.lookup("demo").unwrap();
    assert!(o.uses.iter().all(|u| u.target.repo == demo));
    let edges: Vec<&str> = o.uses.iter().map(|u| o.s.get(u.edge.unwrap())).collect();
    assert_eq!(
        edges,
        ["IMPORTS_SYMBOL", "EXTENDS", "CALLS_DIRECT", "CALLS_DIRECT"]
    );
    // A method's class is in its own repository; the overridden method is where the line says.
    let greet = &o.decls[3];
    assert_eq!(greet.method_of.unwrap().repo, demo);
    assert_eq!(o.s.get(greet.overrides.unwrap().qn), "Base.greet");

    // The Go oracle has no header and no repository on its targets.
    let go = Oracle::parse(Cursor::new(
        r#"{"t":"use","repo":"go","file":"a.go","line":1,"col":0,"name":"F","pkg":"p","qn":"F","kind":"func","detail":"func","use":"call","form":"identifier","from_kind":"module","from_qn":"a.go","from_line":1}"#,
    ))
    .unwrap();
    assert_eq!(go.language, OracleLanguage::Go);
    assert_eq!(go.uses[0].target.repo, ANY_REPO);
    assert_eq!(go.uses[0].edge, None);
}

#[test]
fn a_typescript_generation_is_scored_against_it() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("demo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/a.ts"), A_TS).unwrap();
    std::fs::write(repo.join("src/b.ts"), B_TS).unwrap();
    let out = dir.path().join("index");
    kivgraph_compile::compile(&CompileOptions {
        out: out.clone(),
        repos: vec![RepoSpec::parse(&format!("demo={}", repo.display())).unwrap()],
        fault: None,
        progress: false,
        rust_sysroot: kivgraph_compile::RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    })
    .unwrap();
    let generation = Generation::open_current(&IndexDir::new(&out))
        .unwrap()
        .expect("a published generation");

    let o = Oracle::parse(Cursor::new(ORACLE)).unwrap();
    let report = accuracy::score(&o, &generation);
    let text = report.render();
    println!("{text}");
    assert!(
        text.starts_with("kivgraph TypeScript accuracy against the TypeScript checker 5.9.3\n"),
        "{text}"
    );
    assert!(text.contains("SPEC §11.4"), "{text}");
    assert!(text.contains("OVERRIDES"), "{text}");
    assert_eq!(report.corpus.files, 2);
    assert_eq!(report.files.missing_in_graph, 0, "{:?}", report.files);
    assert_eq!(report.sites.recall_all.of, 4);
    // Structural facts are expected between mapped declarations only (none before the
    // TypeScript front end exists).
    if report.declarations.mapped.hit == report.declarations.mapped.of {
        assert_eq!(report.structural.method_of.recall_all.of, 2);
        assert_eq!(report.structural.overrides.recall_all.of, 1);
    }
    // Recall by the edge kind the oracle prescribes, not by the Go rule.
    for kind in ["IMPORTS_SYMBOL", "EXTENDS", "CALLS_DIRECT"] {
        assert!(report.by_edge_kind.contains_key(kind), "{kind}");
    }
    assert_eq!(report.by_edge_kind["CALLS_DIRECT"].level.recall_all.of, 2);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["language"], "typescript");
}
