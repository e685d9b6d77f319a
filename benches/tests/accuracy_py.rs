//! The scorer reads the Python oracle's output (`benches/accuracy/py/oracle.py`, asking pyright):
//! its header names the language and checker, its packages are dotted module names, its uses
//! carry the prescribed edge kind (SPEC §12.4) and the target's repository, its methods name the
//! method they override. This checks that a small oracle output (what the oracle writes for the
//! two modules below) is read as such and scored against a compiled generation without error,
//! whatever the Python front end produces today (before it exists the files are counted and
//! not compiled, and every figure is 0).

use std::io::Cursor;

use kivgraph_benches::accuracy::{self, Oracle, OracleLanguage};
use kivgraph_compile::{CompileOptions, RepoSpec};
use kivgraph_format::{Generation, IndexDir};

const A_PY: &str = "class Base:\n    def greet(self) -> str:\n        return \"hi\"\n";
const B_PY: &str = "from .a import Base\n\n\nclass Derived(Base):\n    def greet(self) -> str:\n        return super().greet()\n\n\nd = Derived()\n";

/// What the oracle writes for the two files above (sha256 left empty: not compared).
const ORACLE: &str = r#"{"t":"oracle","language":"python","checker":"pyright 1.1.414"}
{"t":"package","repo":"demo","dir":"pkg","pkg":"pkg.a","files":1,"errors":0,"error_sample":[]}
{"t":"file","repo":"demo","file":"pkg/a.py","pkg":"pkg.a","lines":3,"sha256":""}
{"t":"decl","repo":"demo","pkg":"pkg.a","file":"pkg/a.py","line":1,"col":0,"end_line":3,"kind":"class","detail":"class","name":"Base","qn":"Base"}
{"t":"decl","repo":"demo","pkg":"pkg.a","file":"pkg/a.py","line":2,"col":4,"end_line":3,"kind":"method","detail":"method","name":"greet","qn":"Base.greet","method_of":{"pkg":"pkg.a","qn":"Base","kind":"class"}}
{"t":"package","repo":"demo","dir":"pkg","pkg":"pkg.b","files":1,"errors":0,"error_sample":[]}
{"t":"file","repo":"demo","file":"pkg/b.py","pkg":"pkg.b","lines":9,"sha256":""}
{"t":"decl","repo":"demo","pkg":"pkg.b","file":"pkg/b.py","line":4,"col":0,"end_line":6,"kind":"class","detail":"class","name":"Derived","qn":"Derived"}
{"t":"decl","repo":"demo","pkg":"pkg.b","file":"pkg/b.py","line":5,"col":4,"end_line":6,"kind":"method","detail":"method","name":"greet","qn":"Derived.greet","method_of":{"pkg":"pkg.b","qn":"Derived","kind":"class"},"overrides":{"pkg":"pkg.a","qn":"Base.greet","kind":"method","target_repo":"demo"}}
{"t":"decl","repo":"demo","pkg":"pkg.b","file":"pkg/b.py","line":9,"col":0,"end_line":9,"kind":"variable","detail":"variable","name":"d","qn":"d"}
{"t":"use","repo":"demo","file":"pkg/b.py","line":1,"col":15,"name":"Base","pkg":"pkg.a","target_repo":"demo","qn":"Base","kind":"class","detail":"class","use":"value","form":"import-from (relative)","edge":"IMPORTS_SYMBOL","from_kind":"module","from_qn":"pkg.b","from_line":1}
{"t":"use","repo":"demo","file":"pkg/b.py","line":4,"col":14,"name":"Base","pkg":"pkg.a","target_repo":"demo","qn":"Base","kind":"class","detail":"class","use":"value","form":"base-class","edge":"EXTENDS","from_kind":"class","from_qn":"Derived","from_line":4}
{"t":"use","repo":"demo","file":"pkg/b.py","line":6,"col":23,"name":"greet","pkg":"pkg.a","target_repo":"demo","qn":"Base.greet","kind":"method","detail":"method","use":"call","form":"attribute on super() (call)","edge":"CALLS_DIRECT","from_kind":"method","from_qn":"Derived.greet","from_line":5}
{"t":"use","repo":"demo","file":"pkg/b.py","line":9,"col":4,"name":"Derived","pkg":"pkg.b","target_repo":"demo","qn":"Derived","kind":"class","detail":"class","use":"call","form":"call","edge":"CALLS_DIRECT","from_kind":"variable","from_qn":"d","from_line":9}
"#;

#[test]
fn the_python_oracle_output_is_read_as_such() {
    let o = Oracle::parse(Cursor::new(ORACLE)).unwrap();
    assert_eq!(o.language, OracleLanguage::Python);
    assert!(o.language.is_module_oracle());
    assert_eq!(o.language.edge_section(), "12.4");
    assert_eq!(o.checker.as_deref(), Some("pyright 1.1.414"));
    assert_eq!((o.files.len(), o.decls.len(), o.uses.len()), (2, 5, 4));
    let demo = o.s.lookup("demo").unwrap();
    assert!(o.uses.iter().all(|u| u.target.repo == demo));
    let pkgs: Vec<&str> = o.uses.iter().map(|u| o.s.get(u.target.pkg)).collect();
    assert_eq!(pkgs, ["pkg.a", "pkg.a", "pkg.a", "pkg.b"]);
    let edges: Vec<&str> = o.uses.iter().map(|u| o.s.get(u.edge.unwrap())).collect();
    assert_eq!(
        edges,
        ["IMPORTS_SYMBOL", "EXTENDS", "CALLS_DIRECT", "CALLS_DIRECT"]
    );
    let greet = &o.decls[3];
    assert_eq!(greet.method_of.unwrap().repo, demo);
    assert_eq!(o.s.get(greet.overrides.unwrap().qn), "Base.greet");
}

#[test]
fn a_python_generation_is_scored_against_it() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("demo");
    std::fs::create_dir_all(repo.join("pkg")).unwrap();
    std::fs::write(repo.join("pkg/a.py"), A_PY).unwrap();
    std::fs::write(repo.join("pkg/b.py"), B_PY).unwrap();
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
        text.starts_with("kivgraph Python accuracy against pyright 1.1.414\n"),
        "{text}"
    );
    assert!(text.contains("SPEC §12.4"), "{text}");
    assert!(text.contains("OVERRIDES"), "{text}");
    assert_eq!(report.corpus.files, 2);
    assert_eq!(report.files.missing_in_graph, 0, "{:?}", report.files);
    assert_eq!(report.sites.recall_all.of, 4);
    if report.declarations.mapped.hit == report.declarations.mapped.of {
        assert_eq!(report.structural.method_of.recall_all.of, 2);
        assert_eq!(report.structural.overrides.recall_all.of, 1);
    }
    for kind in ["IMPORTS_SYMBOL", "EXTENDS", "CALLS_DIRECT"] {
        assert!(report.by_edge_kind.contains_key(kind), "{kind}");
    }
    assert_eq!(report.by_edge_kind["CALLS_DIRECT"].level.recall_all.of, 2);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["language"], "python");
}
