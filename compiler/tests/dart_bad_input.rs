//! Broken Dart input yields facts plus diagnostics, never a failed build: binary, non-UTF-8,
//! unparsable and too deeply nested files are recorded with their status, an invalid
//! `pubspec.yaml` or `package_config.json` is a diagnostic, and everything else still compiles.

use std::path::Path;

use kivgraph_compile::{CompileOptions, RepoSpec, RustSysroot, compile};
use kivgraph_format::{FileStatus, Generation, IndexDir, SymbolKind};

struct Compiled {
    generation: Generation,
    messages: Vec<String>,
}

fn compile_repo(name: &str, root: &Path) -> Compiled {
    let out = tempfile::tempdir().unwrap();
    let summary = compile(&CompileOptions {
        out: out.path().into(),
        repos: vec![RepoSpec::parse(&format!("{name}={}", root.display())).unwrap()],
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    })
    .unwrap();
    let messages = summary
        .diagnostic_sample
        .iter()
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    Compiled {
        generation: Generation::open_current(&IndexDir::new(out.path()))
            .unwrap()
            .unwrap(),
        messages,
    }
}

impl Compiled {
    fn status(&self, path: &str) -> FileStatus {
        let g = self.generation.graph();
        let f = g
            .files
            .iter()
            .find(|f| g.strings.get(f.path.to_native()) == path)
            .unwrap_or_else(|| panic!("{path} not recorded"));
        FileStatus::from_code(f.status).unwrap()
    }

    /// `(package name, qualified name, kind)` of every symbol.
    fn symbols(&self) -> Vec<(String, String, Option<SymbolKind>)> {
        let g = self.generation.graph();
        g.symbols
            .iter()
            .map(|s| {
                let p = &g.packages[s.package.to_native() as usize];
                (
                    g.strings.get(p.name.to_native()).to_string(),
                    g.strings.get(s.qualified_name.to_native()).to_string(),
                    SymbolKind::from_code(s.kind),
                )
            })
            .collect()
    }

    fn has_symbol(&self, package: &str, qn: &str) -> bool {
        self.symbols()
            .iter()
            .any(|(p, q, _)| p == package && q == qn)
    }

    fn has_diagnostic(&self, text: &str) -> bool {
        self.messages.iter().any(|m| m.contains(text))
    }
}

#[test]
fn unusable_dart_files_are_recorded_not_fatal() {
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    std::fs::create_dir_all(p.join("lib")).unwrap();
    std::fs::write(p.join("pubspec.yaml"), "name: shop\n").unwrap();
    std::fs::write(
        p.join("lib/good.dart"),
        "class Good {\n  int total() => 1;\n}\n",
    )
    .unwrap();
    std::fs::write(
        p.join("lib/broken.dart"),
        "import 'good.dart';\n\nclass Before {\n  void m() {}\n}\n\nint broken() => 1 + ;\n\nvoid after() => Good().total();\n",
    )
    .unwrap();
    std::fs::write(p.join("lib/binary.dart"), b"class B {}\n\x00\x01\x02").unwrap();
    std::fs::write(p.join("lib/latin1.dart"), b"// caf\xe9\nclass L {}\n").unwrap();
    let c = compile_repo("shop", p);
    assert_eq!(c.status("lib/good.dart"), FileStatus::Indexed);
    assert_eq!(c.status("lib/broken.dart"), FileStatus::Partial);
    assert_eq!(c.status("lib/binary.dart"), FileStatus::Binary);
    assert_eq!(c.status("lib/latin1.dart"), FileStatus::NotUtf8);
    for expected in ["binary.dart: binary", "latin1.dart: not valid UTF-8"] {
        assert!(
            c.has_diagnostic(expected),
            "no diagnostic {expected:?} in {:?}",
            c.messages
        );
    }
    // The declarations outside the broken region are kept, named by the package's URI.
    assert!(c.has_symbol("package:shop/good.dart", "Good.total"));
    assert!(
        c.has_symbol("package:shop/broken.dart", "Before.m"),
        "{:?}",
        c.symbols()
    );
    assert!(
        c.has_symbol("package:shop/broken.dart", "after"),
        "{:?}",
        c.symbols()
    );
    // And their references still bind: `after` calls `Good.total`.
    let g = c.generation.graph();
    let total = g
        .symbols
        .iter()
        .position(|s| g.strings.get(s.qualified_name.to_native()) == "Good.total")
        .unwrap() as u32;
    assert!(
        !g.reverse.row(total).is_empty(),
        "the call of Good.total in the broken file was lost"
    );
}

#[test]
fn invalid_pubspec_is_a_diagnostic_and_loses_nothing() {
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    std::fs::create_dir_all(p.join("lib")).unwrap();
    std::fs::write(p.join("pubspec.yaml"), "name: [unclosed\n  - : :\n").unwrap();
    std::fs::write(
        p.join("lib/a.dart"),
        "import 'b.dart';\n\nint a() => b();\n",
    )
    .unwrap();
    std::fs::write(p.join("lib/b.dart"), "int b() => 2;\n").unwrap();
    let c = compile_repo("bad", p);
    assert!(
        c.has_diagnostic("pubspec.yaml: pubspec.yaml is not valid YAML"),
        "{:?}",
        c.messages
    );
    assert_eq!(c.status("lib/a.dart"), FileStatus::Indexed);
    // Without a package name the libraries are named by their paths, and relative imports
    // still bind.
    assert!(c.has_symbol("lib/a.dart", "a"), "{:?}", c.symbols());
    assert!(c.has_symbol("lib/b.dart", "b"), "{:?}", c.symbols());
    let g = c.generation.graph();
    let b = g
        .symbols
        .iter()
        .position(|s| g.strings.get(s.qualified_name.to_native()) == "b")
        .unwrap() as u32;
    assert!(
        !g.reverse.row(b).is_empty(),
        "the call of b() through the relative import was lost"
    );
}

#[test]
fn invalid_package_config_is_a_diagnostic_and_loses_nothing() {
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    std::fs::create_dir_all(p.join("lib")).unwrap();
    std::fs::create_dir_all(p.join(".dart_tool")).unwrap();
    std::fs::write(p.join("pubspec.yaml"), "name: app\n").unwrap();
    std::fs::write(
        p.join(".dart_tool/package_config.json"),
        "{ \"configVersion\": 2, \"packages\": [",
    )
    .unwrap();
    std::fs::write(
        p.join("lib/app.dart"),
        "import 'package:app/util.dart';\n\nvoid main() => util();\n",
    )
    .unwrap();
    std::fs::write(p.join("lib/util.dart"), "void util() {}\n").unwrap();
    let c = compile_repo("app", p);
    assert!(
        c.has_diagnostic("package_config.json: package_config.json is not valid JSON"),
        "{:?}",
        c.messages
    );
    // The pubspec still names the package, so its own `package:` import binds.
    assert!(c.has_symbol("package:app/util.dart", "util"));
    let g = c.generation.graph();
    let util = g
        .symbols
        .iter()
        .position(|s| g.strings.get(s.qualified_name.to_native()) == "util")
        .unwrap() as u32;
    assert!(
        !g.reverse.row(util).is_empty(),
        "the call of util() through package:app/ was lost"
    );
}

/// Syntax nested deeper than any stack allows is cut, not followed: the file is `partial` and
/// the compile finishes (a stack overflow would abort the whole process).
#[test]
fn deep_dart_nesting_is_cut_not_fatal() {
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    let n = 50_000;
    std::fs::write(
        p.join("parens.dart"),
        format!(
            "int shallow() => 1;\nvar b = {}1{};\n",
            "(".repeat(n),
            ")".repeat(n)
        ),
    )
    .unwrap();
    std::fs::write(
        p.join("blocks.dart"),
        format!("void f() {}{}\n", "{".repeat(n), "}".repeat(n)),
    )
    .unwrap();
    std::fs::write(
        p.join("chain.dart"),
        format!("var c = a{};\nint shallow() => 1;\n", ".b".repeat(n)),
    )
    .unwrap();
    std::fs::write(
        p.join("calls.dart"),
        format!("var d = f{};\n", "()".repeat(n)),
    )
    .unwrap();
    std::fs::write(
        p.join("types.dart"),
        format!("{}int{} e = [];\n", "List<".repeat(n), ">".repeat(n)),
    )
    .unwrap();
    let c = compile_repo("deep", p);
    assert_eq!(c.status("parens.dart"), FileStatus::Partial);
    assert_eq!(c.status("blocks.dart"), FileStatus::Partial);
    for f in ["chain.dart", "calls.dart", "types.dart"] {
        assert!(
            matches!(c.status(f), FileStatus::Partial | FileStatus::Indexed),
            "{f}: {:?}",
            c.status(f)
        );
    }
    assert!(c.has_symbol("parens.dart", "shallow"), "{:?}", c.symbols());
    assert!(c.has_symbol("blocks.dart", "f"), "{:?}", c.symbols());
    assert!(c.has_symbol("chain.dart", "shallow"), "{:?}", c.symbols());
}
