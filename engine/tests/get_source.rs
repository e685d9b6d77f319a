//! get_source against a copy of the `shapes` fixture compiled by the real `kivgraph-compile`
//! binary. Working on a copy lets the tests edit, delete and replace files after the compile,
//! which is what the freshness, re-anchoring and symlink rules are about.

use crate::common::{compile_into, workspace};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use kivgraph::ToolError;
use kivgraph::query::{self, Selector, SymbolRow};
use kivgraph_format::{Generation, IndexDir};
use serde_json::{Value, json};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A private copy of `fixtures/go/shapes` (repository `shapes`) and an index directory beside it.
struct Shapes {
    dir: tempfile::TempDir,
}

impl Shapes {
    fn new() -> Shapes {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(
            &workspace().join("fixtures/go/shapes"),
            &dir.path().join("shapes"),
        );
        Shapes { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("shapes")
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.root().join(rel), text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }

    /// Rewrites one file of the copy.
    fn edit(&self, rel: &str, f: impl FnOnce(&str) -> String) {
        let text = f(&self.read(rel));
        self.write(rel, &text);
    }

    fn compile(&self) -> &Shapes {
        compile_into(
            &self.dir.path().join("index"),
            [format!("shapes={}", self.root().display())],
        );
        self
    }

    fn generation(&self) -> Arc<Generation> {
        let index = IndexDir::new(self.dir.path().join("index"));
        Arc::new(Generation::open_current(&index).unwrap().unwrap())
    }

    fn call(&self, args: Value) -> Result<String, ToolError> {
        kivgraph::tools::call("get_source", &args, Some(self.generation()))
    }

    fn ok(&self, args: Value) -> String {
        self.call(args.clone())
            .unwrap_or_else(|e| panic!("get_source {args} failed: {e}"))
    }

    /// The symbol as the generation records it.
    fn symbol(&self, qualified_name: &str) -> SymbolRow {
        let g = self.generation();
        let sel = Selector {
            qualified_name: Some(qualified_name.into()),
            repository: Some("shapes".into()),
            ..Default::default()
        };
        query::symbol_row(&g, query::resolve_selector(&g, &sel).unwrap())
    }

    /// Lines `first..=last` of a file as it is on disk now, joined by `\n` and followed by `\n`.
    fn lines(&self, rel: &str, first: u32, last: u32) -> String {
        let text = self.read(rel);
        let lines: Vec<&str> = text.split('\n').collect();
        let mut out = lines[first as usize - 1..last as usize].join("\n");
        out.push('\n');
        out
    }

    /// The `@` header and body a symbol is expected to get, with the lines taken from disk.
    fn body(&self, s: &SymbolRow, first: u32, last: u32, marker: &str) -> String {
        format!(
            "@ shapes {}:{first}-{last} {} {}{marker}\n{}",
            s.file_path,
            s.kind,
            s.qualified_name,
            self.lines(&s.file_path, first, last)
        )
    }
}

fn qn(name: &str) -> Value {
    json!({"repository": "shapes", "qualified_name": name})
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap()
}

/// Rows of the answer: lines that open a body (`@`) or stand for a missing one (`!`).
fn rows(text: &str) -> Vec<&str> {
    text.lines()
        .skip(1)
        .filter(|l| l.starts_with("@ ") || l.starts_with("! "))
        .collect()
}

#[test]
fn fresh_bodies_are_the_recorded_lines_byte_for_byte() {
    let s = Shapes::new();
    s.compile();
    let names = ["Circle.Area", "NewCircle", "Point", "Pi", "Row"];
    let text = s.ok(json!({"symbols": names.map(qn)}));

    let mut want = String::from("snapshot 1  5 bodies  context 0\n");
    for name in names {
        let sym = s.symbol(name);
        want.push_str(&s.body(&sym, sym.start_line, sym.end_line, ""));
    }
    assert_eq!(text, want);
    assert!(
        serde_json::from_str::<Value>(&text).is_err(),
        "the answer is prose"
    );
    // Spot-check one body against the file itself, not through the test's own helper.
    assert!(text.contains(
        "@ shapes geo/geo.go:60-62 method Circle.Area\nfunc (c *Circle) Area() float64 { //want: IMPLEMENTS example.com/shapes/geo:Shape.Area STRUCTURAL_CERTAIN\n\treturn Pi * c.Radius * c.Radius"
    ));

    // Four symbols in one file and one in another: two files are read, each once.
    let g = s.generation();
    let ids: Vec<u32> = names
        .iter()
        .map(|n| {
            let sel = Selector {
                qualified_name: Some((*n).into()),
                ..Default::default()
            };
            query::resolve_selector(&g, &sel).unwrap()
        })
        .collect();
    let answer = kivgraph::source::source(&g, &ids, 0);
    assert_eq!(answer.files_read, 2);
    assert_eq!(answer.bodies(), 5);
    assert_eq!(answer.trimmed, 0);

    // The command line prints the same prose, byte for byte.
    let cli = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(s.dir.path().join("index"))
        .args(["query", "get_source"])
        .arg(json!({"symbols": names.map(qn)}).to_string())
        .output()
        .unwrap();
    assert!(cli.status.success());
    assert_eq!(String::from_utf8(cli.stdout).unwrap(), text);
}

#[test]
fn detailed_appends_the_stable_key() {
    let s = Shapes::new();
    s.compile();
    let sym = s.symbol("NewCircle");
    let concise = s.ok(json!({"symbols": [qn("NewCircle")], "response_format": "concise"}));
    assert!(!concise.contains(&sym.stable_key));
    assert_eq!(
        concise,
        s.ok(json!({"symbols": [{"stable_key": sym.stable_key}]}))
    );
    let detailed = s.ok(json!({"symbols": [qn("NewCircle")], "response_format": "detailed"}));
    assert_eq!(
        detailed,
        format!(
            "snapshot 1  1 bodies  context 0\n{}",
            s.body(
                &sym,
                sym.start_line,
                sym.end_line,
                &format!(" {}", sym.stable_key)
            )
        )
    );
}

#[test]
fn context_is_clamped_to_the_file() {
    let s = Shapes::new();
    s.compile();
    let pi = s.symbol("Pi");
    let last = s.read("geo/geo.go").lines().count() as u32;
    assert_eq!((pi.start_line, pi.end_line), (10, 10));

    let two = s.ok(json!({"symbols": [qn("Pi")], "context_lines": 2}));
    assert_eq!(
        two,
        format!(
            "snapshot 1  1 bodies  context 2\n{}",
            s.body(&pi, 8, 12, "")
        )
    );

    // A hundred lines either side reach past both ends of the 98-line file: the whole file.
    let all = s.ok(json!({"symbols": [qn("Pi")], "context_lines": 100}));
    assert_eq!(
        all,
        format!(
            "snapshot 1  1 bodies  context 100\n{}",
            s.body(&pi, 1, last, "")
        )
    );
    assert!(all.ends_with(&s.read("geo/geo.go")));

    // The last declaration of the file: the window stops at the last line.
    let string = s.symbol("Rect.String");
    assert_eq!(string.end_line, last);
    let tail = s.ok(json!({"symbols": [qn("Rect.String")], "context_lines": 5}));
    assert_eq!(
        tail,
        format!(
            "snapshot 1  1 bodies  context 5\n{}",
            s.body(&string, string.start_line - 5, last, "")
        )
    );

    // Absent means zero.
    assert_eq!(
        s.ok(json!({"symbols": [qn("Pi")]})),
        s.ok(json!({"symbols": [qn("Pi")], "context_lines": 0}))
    );
}

#[test]
fn a_changed_file_is_reanchored_by_name() {
    let s = Shapes::new();
    s.compile();
    let (area, point, dist, total, row) = (
        s.symbol("Circle.Area"),
        s.symbol("Point"),
        s.symbol("Dist"),
        s.symbol("TotalArea"),
        s.symbol("Row"),
    );
    // Three lines above everything in geo.go: every declaration moves down by three.
    s.edit("geo/geo.go", |t| {
        t.replacen(
            "package geo\n",
            "package geo\n\n// Three new lines\n// above every declaration.\n",
            1,
        )
    });
    // Lines appended at the end of measure.go: its declarations did not move.
    s.edit("geo/measure.go", |t| {
        format!("{t}\n// A trailing comment.\n")
    });
    // Two comment lines removed above Row in layout.go: it moved up by two.
    s.edit("render/layout.go", |t| {
        t.replacen(
            "// Row lays shapes out left to right and returns their bounding rectangle,\n// treating each shape as a square of equal area.\n",
            "",
            1,
        )
    });

    let text = s.ok(json!({"symbols": [qn("Circle.Area"), qn("Point"), qn("Dist"), qn("TotalArea"), qn("Row")]}));
    let marker = |n: &str| format!(" [file changed, re-anchored {n}]");
    let want = [
        "snapshot 1  5 bodies  context 0\n".to_string(),
        s.body(&area, area.start_line + 3, area.end_line + 3, &marker("+3")),
        s.body(
            &point,
            point.start_line + 3,
            point.end_line + 3,
            &marker("+3"),
        ),
        s.body(&dist, dist.start_line, dist.end_line, &marker("+0")),
        s.body(&total, total.start_line, total.end_line, &marker("+0")),
        s.body(&row, row.start_line - 2, row.end_line - 2, &marker("-2")),
    ]
    .concat();
    assert_eq!(text, want);
    assert!(text.contains(
        "@ shapes geo/geo.go:63-65 method Circle.Area [file changed, re-anchored +3]\nfunc (c *Circle) Area() float64 { //want: IMPLEMENTS example.com/shapes/geo:Shape.Area STRUCTURAL_CERTAIN\n"
    ));

    // Re-anchoring asserts no graph fact: the graph still records the indexed range.
    let after = s.symbol("Circle.Area");
    assert_eq!(
        (after.start_line, after.end_line),
        (area.start_line, area.end_line)
    );
    let got = kivgraph::tools::call(
        "get_symbol",
        &json!({"repository": "shapes", "qualified_name": "Circle.Area"}),
        Some(s.generation()),
    )
    .unwrap();
    let got: Value = serde_json::from_str(&got).unwrap();
    assert_eq!(got["results"]["start_line"], area.start_line);

    // Context around a re-anchored declaration counts from its new place.
    let ctx = s.ok(json!({"symbols": [qn("Circle.Area")], "context_lines": 1}));
    assert_eq!(
        ctx,
        format!(
            "snapshot 1  1 bodies  context 1\n{}",
            s.body(&area, area.start_line + 2, area.end_line + 4, &marker("+3"))
        )
    );
}

#[test]
fn a_declaration_gone_from_its_file_is_a_row_without_bytes() {
    let s = Shapes::new();
    s.compile();
    let (area, pi, row) = (s.symbol("Circle.Area"), s.symbol("Pi"), s.symbol("Row"));
    s.edit("geo/geo.go", |t| {
        t.replacen(
            "// NewCircle returns a circle of radius r centred on the origin.\nfunc NewCircle(r float64) *Circle { //want: TYPE_USES example.com/shapes/geo:Circle\n\treturn &Circle{Center: Origin, Radius: r} //want: TYPE_USES example.com/shapes/geo:Circle ; //want: REFERENCES example.com/shapes/geo:Origin\n}\n\n",
            "",
            1,
        )
    });
    assert!(!s.read("geo/geo.go").contains("NewCircle"));
    let text = s.ok(json!({"symbols": [qn("Circle.Area"), qn("NewCircle"), qn("Pi"), qn("Row")]}));
    let want = [
        "snapshot 1  3 bodies  context 0\n".to_string(),
        s.body(
            &area,
            area.start_line - 5,
            area.end_line - 5,
            " [file changed, re-anchored -5]",
        ),
        "! shapes geo/geo.go NewCircle \u{2014} the file changed and no declaration of \"NewCircle\" remains in it\n".to_string(),
        s.body(&pi, pi.start_line, pi.end_line, " [file changed, re-anchored +0]"),
        s.body(&row, row.start_line, row.end_line, ""),
    ]
    .concat();
    assert_eq!(text, want);
}

#[test]
fn two_equally_near_declarations_refuse_and_so_does_a_shorter_file() {
    let s = Shapes::new();
    s.write(
        "geo/twins.go",
        "package geo\n\n// Twin is declared once.\nfunc Twin() int { return 1 }\n",
    );
    s.write("geo/tail.go", "package geo\n\nfunc Tail() {\n\t_ = 1\n}\n");
    s.compile();
    assert_eq!(s.symbol("Twin").start_line, 4);
    assert_eq!(
        (s.symbol("Tail").start_line, s.symbol("Tail").end_line),
        (3, 5)
    );
    // Twin's line now declares nothing; lines 3 and 5 both name it, one line away each.
    s.write(
        "geo/twins.go",
        "package geo\n\nfunc Twin() int { return 1 }\n\nfunc Twin() int { return 2 }\n",
    );
    // Tail moved down a line, so its three recorded lines would run past the end.
    s.write("geo/tail.go", "package geo\n\n\nfunc Tail() {}\n");
    let text = s.ok(json!({"symbols": [qn("Twin"), qn("Pi"), qn("Tail")]}));
    let pi = s.symbol("Pi");
    assert_eq!(
        text,
        [
            "snapshot 1  1 bodies  context 0\n".to_string(),
            "! shapes geo/twins.go Twin \u{2014} the file changed and \"Twin\" now appears 2 times equally far from its recorded position\n".to_string(),
            s.body(&pi, pi.start_line, pi.end_line, ""),
            "! shapes geo/tail.go Tail \u{2014} the file changed and \"Tail\" no longer spans 3 lines\n".to_string(),
        ]
        .concat()
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_on_the_path_yields_no_bytes() {
    let s = Shapes::new();
    s.compile();
    let pi = s.symbol("Pi");
    // The directory render/ becomes a link to an identical directory beside it.
    std::fs::rename(s.root().join("render"), s.root().join("render-real")).unwrap();
    std::os::unix::fs::symlink("render-real", s.root().join("render")).unwrap();
    // geo/measure.go becomes a link to a file outside the repository.
    std::fs::copy(
        s.root().join("geo/measure.go"),
        s.dir.path().join("measure.go"),
    )
    .unwrap();
    std::fs::remove_file(s.root().join("geo/measure.go")).unwrap();
    std::os::unix::fs::symlink(
        s.dir.path().join("measure.go"),
        s.root().join("geo/measure.go"),
    )
    .unwrap();

    let text =
        s.ok(json!({"symbols": [qn("Row"), qn("Pi"), qn("Dist")], "response_format": "detailed"}));
    assert_eq!(
        text,
        [
            "snapshot 1  1 bodies  context 0\n".to_string(),
            format!(
                "! shapes render/layout.go Row {} \u{2014} path \"render/layout.go\" contains symlink component \"render\"\n",
                s.symbol("Row").stable_key
            ),
            s.body(&pi, pi.start_line, pi.end_line, &format!(" {}", pi.stable_key)),
            format!(
                "! shapes geo/measure.go Dist {} \u{2014} path \"geo/measure.go\" contains symlink component \"geo/measure.go\"\n",
                s.symbol("Dist").stable_key
            ),
        ]
        .concat()
    );
}

#[test]
fn argument_errors_are_invalid_argument() {
    let s = Shapes::new();
    s.compile();
    let pi = qn("Pi");
    let cases = [
        (json!({}), "symbols is required"),
        (
            json!({"symbols": "Pi"}),
            "symbols must be an array of symbol selectors",
        ),
        (
            json!({"symbols": []}),
            "symbols must name at least one symbol",
        ),
        (
            json!({"symbols": [pi], "context_lines": -1}),
            "context_lines must be an integer between 0 and 100",
        ),
        (
            json!({"symbols": [pi], "context_lines": 101}),
            "context_lines must be an integer between 0 and 100",
        ),
        (
            json!({"symbols": [pi], "context_lines": 1.5}),
            "context_lines must be an integer between 0 and 100",
        ),
        (
            json!({"symbols": [pi], "context_lines": "3"}),
            "context_lines must be an integer between 0 and 100",
        ),
        (
            json!({"symbols": [pi], "response_format": "verbose"}),
            "response_format \"verbose\" is unsupported, use \"concise\" or \"detailed\"",
        ),
        (
            json!({"symbols": [pi], "limit": 5}),
            "argument \"limit\" is not accepted by this tool",
        ),
        (
            json!({"symbols": [pi], "cursor": "x"}),
            "argument \"cursor\" is not accepted by this tool",
        ),
        (
            json!({"symbols": ["Pi"]}),
            "symbols[0]: a symbol selector must be an object",
        ),
        (
            json!({"symbols": [{"name": "Pi"}]}),
            "symbols[0]: argument \"name\" is not accepted by this tool",
        ),
        (
            json!({"symbols": [{}]}),
            "symbols[0]: one of stable_key or qualified_name is required",
        ),
        (
            json!({"symbols": [{"stable_key": "K", "qualified_name": "Pi"}]}),
            "symbols[0]: pass either stable_key or qualified_name, not both",
        ),
        (
            json!({"symbols": [{"stable_key": "K", "repository": "shapes"}]}),
            "symbols[0]: repository and path narrow a qualified_name; a stable_key already names one symbol",
        ),
        (
            json!({"symbols": [{"stable_key": "K", "path": "geo"}]}),
            "symbols[0]: repository and path narrow a qualified_name; a stable_key already names one symbol",
        ),
        (
            json!({"symbols": [pi, {"qualified_name": "Pi", "path": "geo"}]}),
            "symbols[1]: path is repository-relative, so it requires repository",
        ),
        (
            json!({"symbols": [{"qualified_name": "Pi", "repository": "shapes", "path": "/geo"}]}),
            "symbols[0]: path must be repository-relative, not absolute",
        ),
        (
            json!({"symbols": [pi, pi, {"qualified_name": "Pi", "repository": "shapes", "path": "geo/../render"}]}),
            "symbols[2]: path must not contain a .. segment",
        ),
        (
            json!({"symbols": [{"qualified_name": " Pi"}]}),
            "symbols[0]: qualified_name must not carry surrounding whitespace",
        ),
        (
            json!({"symbols": [{"qualified_name": 7}]}),
            "symbols[0]: qualified_name must be a string",
        ),
    ];
    for (args, message) in cases {
        let err = s.call(args.clone()).expect_err(&args.to_string());
        assert_eq!(
            (err.code, err.message.as_str()),
            ("INVALID_ARGUMENT", message),
            "{args}"
        );
    }
}

#[test]
fn selectors_that_do_not_resolve_fail_the_whole_call() {
    let s = Shapes::new();
    s.write(
        "geo/twins.go",
        "package geo\n\nfunc Twin() int { return 1 }\n",
    );
    s.write(
        "render/twins.go",
        "package render\n\nfunc Twin() int { return 2 }\n",
    );
    s.compile();
    let err = |args: Value| s.call(args).unwrap_err().to_string();
    assert_eq!(
        err(json!({"symbols": [qn("Pi"), qn("NoSuchThing")]})),
        "SYMBOL_NOT_FOUND: qualified name \"NoSuchThing\" was not found under shapes; call it without repository and path to search the whole graph"
    );
    assert_eq!(
        err(json!({"symbols": [qn("Pi"), {"stable_key": "AAAAAAAAAAAAAAAAAAAAAAAAAA"}]})),
        "SYMBOL_NOT_FOUND: symbol \"AAAAAAAAAAAAAAAAAAAAAAAAAA\" was not found"
    );
    assert_eq!(
        err(json!({"symbols": [{"repository": "elsewhere", "qualified_name": "Pi"}]})),
        "REPOSITORY_NOT_FOUND: repository \"elsewhere\" is not in the published graph"
    );
    let ambiguous = err(json!({"symbols": [qn("Twin")]}));
    assert!(
        ambiguous.starts_with("AMBIGUOUS_SYMBOL: qualified name \"Twin\" names 2 symbols; narrow with repository and path: ")
            && ambiguous.contains("shapes geo/twins.go:3-3")
            && ambiguous.contains("shapes render/twins.go:3-3"),
        "{ambiguous}"
    );
    // `repository` and a `path` prefix narrow the same name to one symbol.
    let text = s.ok(json!({"symbols": [
        {"repository": "shapes", "path": "render", "qualified_name": "Twin"},
        {"repository": "shapes", "path": "geo/tw", "qualified_name": "Twin"},
    ]}));
    assert_eq!(
        rows(&text),
        [
            "@ shapes render/twins.go:3-3 func Twin",
            "@ shapes geo/twins.go:3-3 func Twin"
        ]
    );
}

#[test]
fn twenty_symbols_are_accepted_and_twenty_one_refused() {
    let s = Shapes::new();
    s.compile();
    let g = s.generation();
    let keys: Vec<Value> = g
        .graph()
        .symbols
        .iter()
        .take(21)
        .map(|rec| json!({"stable_key": g.graph().strings.get(rec.key.to_native())}))
        .collect();
    assert_eq!(keys.len(), 21);
    let text = s.ok(json!({"symbols": keys[..20]}));
    assert_eq!(rows(&text).len(), 20);
    assert_eq!(first_line(&text), "snapshot 1  20 bodies  context 0");
    let err = s.call(json!({"symbols": keys})).unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (
            "INVALID_ARGUMENT",
            "symbols must name at most 20 symbols, got 21"
        )
    );
}

#[test]
fn the_byte_ceiling_trims_the_answer_and_says_so() {
    let s = Shapes::new();
    // Eight functions of about 59 KB each: four fit under 262144 bytes, the fifth does not.
    let mut big = String::from("package geo\n");
    for n in 1..=8 {
        big.push_str(&format!("\nfunc Big{n}() string {{\n\treturn \"\" +\n"));
        for _ in 0..1000 {
            big.push_str(&format!("\t\t\"{}\" +\n", "x".repeat(52)));
        }
        big.push_str("\t\t\"\"\n}\n");
    }
    s.write("geo/big.go", &big);
    s.compile();
    let mut symbols: Vec<Value> = (1..=8).map(|n| qn(&format!("Big{n}"))).collect();
    symbols.push(qn("Pi"));
    let text = s.ok(json!({ "symbols": symbols }));
    assert_eq!(
        first_line(&text),
        "snapshot 1  4 bodies  context 0  trimmed 5 at the 262144 byte ceiling"
    );
    let want: String = (1..=4)
        .map(|n| {
            let sym = s.symbol(&format!("Big{n}"));
            s.body(&sym, sym.start_line, sym.end_line, "")
        })
        .collect();
    assert_eq!(text, format!("{}\n{want}", first_line(&text)));
    let bodies: usize = (1..=4)
        .map(|n| {
            let sym = s.symbol(&format!("Big{n}"));
            s.lines("geo/big.go", sym.start_line, sym.end_line).len()
        })
        .sum();
    let fifth = s.symbol("Big5");
    assert!(bodies <= 262_144);
    assert!(
        bodies
            + s.lines("geo/big.go", fifth.start_line, fifth.end_line)
                .len()
            > 262_144
    );

    // Below the ceiling nothing is trimmed, and a row without bytes costs nothing.
    let text = s.ok(json!({"symbols": [qn("Big1"), qn("Big2"), qn("Big3"), qn("Big4"), qn("Pi")]}));
    assert_eq!(first_line(&text), "snapshot 1  5 bodies  context 0");
}

/// One answer with a re-anchored row, a refused row and a fresh row, as a client reads it.
#[test]
fn snapshot_of_a_reanchored_and_a_refused_row() {
    let s = Shapes::new();
    s.compile();
    s.edit("geo/geo.go", |t| {
        t.replacen(
            "// Pi is the ratio",
            "// The circle constant.\n// Pi is the ratio",
            1,
        )
        .replacen("func NewCircle(", "func MakeCircle(", 1)
        .replace("// NewCircle returns", "// MakeCircle returns")
    });
    let text = s.ok(json!({
        "symbols": [qn("Circle.Area"), qn("NewCircle"), qn("Gap")],
        "context_lines": 1
    }));
    insta::assert_snapshot!("get_source_reanchored_and_refused", text);
}

/// `kivgraph --index INDEX [ARGS] query get_source ARGS`: what the binary answers.
fn query_binary(index: &Path, extra: &[String], args: Value) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(index)
        .args(extra)
        .args(["query", "get_source", &args.to_string()])
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn sources_are_found_through_the_recorded_checkout_or_where_they_are_said_to_be() {
    let s = Shapes::new();
    s.compile();
    let index = s.dir.path().join("index");
    let args = json!({"symbols": [qn("NewCircle")]});
    let here = query_binary(&index, &[], args.clone());
    assert!(rows(&here)[0].starts_with("@ shapes "), "{here}");

    // The checkout moves (or the generation is served on another machine): the recorded
    // checkout no longer holds the file, and --source says where it is now.
    let moved = s.dir.path().join("elsewhere/shapes");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(s.root(), &moved).unwrap();
    let stale = query_binary(&index, &[], args.clone());
    assert!(rows(&stale)[0].starts_with("! "), "{stale}");
    let told = query_binary(
        &index,
        &[format!("--source=shapes={}", moved.display())],
        args.clone(),
    );
    assert_eq!(rows(&told), rows(&here), "{told}");

    // Without the record, and not told: no checkout is known, and the answer says so.
    std::fs::remove_file(index.join("checkouts.json")).unwrap();
    let unknown = query_binary(&index, &[], args);
    assert!(rows(&unknown)[0].starts_with("! "), "{unknown}");
    assert!(
        unknown.contains("no checkout of repository \"shapes\" is known"),
        "{unknown}"
    );
}
