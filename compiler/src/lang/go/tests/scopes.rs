//! Scopes and imports: the package scope, locals, the universe, module symbols, import
//! selectors, aliases, dot and blank imports, and every reason of a reference into a package
//! outside the graph.

use super::{check, check_m, unresolved};

#[test]
fn two_declarations_of_one_name_are_candidates() {
    check_m(
        r#"
//- m/p/a.go
package p

func Dup() {}
//- m/p/b.go
package p

func Dup() {}

func Use() { Dup() } //want: CALLS_DIRECT example.com/m/p:Dup CANDIDATE
"#,
    );
}

#[test]
fn locals_and_parameters_shadow_package_names() {
    check_m(
        r#"
//- m/p/p.go
package p

import "example.com/m/geo"

var Count = 1

func Use(geo int) int {
	Count := 2
	return Count + geo.X //want-none: Count ; //want-unresolved: RECEIVER_TYPE_UNKNOWN example.com/m/p
}

func Other() int { return Count } //want: REFERENCES example.com/m/p:Count EXACT_DECLARATION_MAPPED GO_SCOPE
//- m/geo/geo.go
package geo
"#,
    );
}

#[test]
fn predeclared_identifiers_are_neither_edges_nor_unresolved() {
    let c = check_m(
        r#"
//- m/p/p.go
package p

func Known() {}

func Use(xs []int) int {
	Known()                          //want: CALLS_DIRECT example.com/m/p:Known
	return len(append(xs, int(iota))) + cap(make([]byte, 0))
}
"#,
    );
    assert!(c.unresolved_at("m", "p/p.go", 7).is_empty());
    assert!(c.facts.unresolved.is_empty(), "{:?}", unresolved(&c));
}

#[test]
fn an_undeclared_name_is_declaration_not_found() {
    let c = check_m(
        r#"
//- m/p/p.go
package p

func Use() {
	missing()   //want-unresolved: DECLARATION_NOT_FOUND example.com/m/p
	nowhere.F() //want-unresolved: DECLARATION_NOT_FOUND example.com/m/p
}
"#,
    );
    let all = unresolved(&c);
    assert!(
        all.contains(&"DECLARATION_NOT_FOUND example.com/m/p missing no declaration in the package's built files".to_string()),
        "{all:?}"
    );
    assert!(
        all.contains(&"DECLARATION_NOT_FOUND example.com/m/p nowhere nowhere.F: the operand is declared nowhere the file can see".to_string()),
        "{all:?}"
    );
}

#[test]
fn a_reference_outside_declarations_belongs_to_the_files_module_symbol() {
    let c = check_m(
        r#"
//- m/p/p.go
package p

func Area() int { return 0 }

var _ = Area() //want: CALLS_DIRECT example.com/m/p:Area
"#,
    );
    let f = &c.facts;
    let e = f
        .edges
        .iter()
        .find(|e| e.line == 5)
        .expect("the edge at line 5");
    let source = &f.symbols[e.source];
    assert_eq!(
        (source.name.as_str(), source.qualified_name.as_str()),
        ("p.go", "p/p.go")
    );
    assert_eq!(source.kind, kivgraph_format::SymbolKind::Module);
}

/// References are bound by several tasks, a run of files each, and their module symbols made
/// after: with files enough for several runs, each package-level use still belongs to the module
/// symbol of its own file, and only files with such a use have one.
#[test]
fn module_symbols_belong_to_their_own_files_across_runs_of_files() {
    let n = 3 * super::super::resolve::FILES_PER_TASK + 5;
    let mut fixture = String::new();
    for k in 0..n {
        fixture.push_str(&format!(
            "\n//- m/p/f{k:02}.go\npackage p\n\nfunc F{k}() int {{ return 0 }}\n"
        ));
        if k % 3 == 0 {
            let next = (k + 1) % n;
            fixture.push_str(&format!(
                "\nvar _ = F{next}() //want: CALLS_DIRECT example.com/m/p:F{next}\nvar _ = nowhere.G{k}()\n"
            ));
        } else {
            fixture.push_str(&format!(
                "\nfunc use{k}() int {{ return F{k}() }} //want: CALLS_DIRECT example.com/m/p:F{k}\n"
            ));
        }
    }
    let c = check_m(&fixture);
    let f = &c.facts;
    let file_of = |s: crate::facts::SymbolId| f.files[f.symbols[s].file].path.clone();
    let mut modules: Vec<String> = f
        .symbols
        .iter()
        .filter(|s| s.kind == kivgraph_format::SymbolKind::Module)
        .map(|s| s.qualified_name.clone())
        .collect();
    modules.sort();
    let want: Vec<String> = (0..n)
        .filter(|k| k % 3 == 0)
        .map(|k| format!("p/f{k:02}.go"))
        .collect();
    assert_eq!(modules, want);
    let mut seen = 0;
    let at_package_level = |file: Option<crate::facts::FileId>, line: u32| {
        line >= 5 && file.is_some_and(|x| want.contains(&f.files[x].path))
    };
    for e in f.edges.iter().filter(|e| at_package_level(e.file, e.line)) {
        let source = &f.symbols[e.source];
        assert_eq!(source.kind, kivgraph_format::SymbolKind::Module);
        assert_eq!(file_of(e.source), f.files[e.file.unwrap()].path);
        seen += 1;
    }
    for u in f
        .unresolved
        .iter()
        .filter(|u| at_package_level(u.file, u.line))
    {
        let source = u.source.expect("a source");
        assert_eq!(f.symbols[source].kind, kivgraph_format::SymbolKind::Module);
        assert_eq!(file_of(source), f.files[u.file.unwrap()].path);
        seen += 1;
    }
    assert_eq!(seen, 2 * want.len());
}

/// Symbols sharing an identity (a package's `init` functions) are told apart by their place:
/// by file path, then by offset in the file, `#2`, `#3` and on after the first.
#[test]
fn init_functions_are_numbered_by_file_then_place() {
    let c = check_m(
        r#"
//- m/p/b.go
package p

func init() { helper() } //want: CALLS_DIRECT example.com/m/p:helper

//- m/p/a.go
package p

func helper() {}

func init() { helper() } //want: CALLS_DIRECT example.com/m/p:helper

func init() {}
"#,
    );
    let f = &c.facts;
    let key = |disc: &str| {
        kivgraph_format::key::stable_key_of(
            &kivgraph_format::key::SymbolIdentity {
                language: "go",
                repository: "m",
                package: "example.com/m/p",
                qualified_name: "init",
                kind: "func",
                discriminator: disc,
            }
            .canonical(),
        )
    };
    let mut found: Vec<(String, u32, String)> = f
        .symbols
        .iter()
        .zip(&f.keys)
        .filter(|(s, _)| s.name == "init")
        .map(|(s, k)| (f.files[s.file].path.clone(), s.span.start_line, k.clone()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("p/a.go".to_string(), 5, key("")),
            ("p/a.go".to_string(), 7, key("#2")),
            ("p/b.go".to_string(), 3, key("#3")),
        ]
    );
}

// ---- imports ----

#[test]
fn an_import_selector_binds_through_the_imported_package() {
    let c = check_m(
        r#"
//- m/geo/geo.go
package geo

type Point struct{}

func Area() int { return 0 }
//- m/main.go
package main

import "example.com/m/geo"

func main() {
	geo.Area()          //want: CALLS_DIRECT example.com/m/geo:Area EXACT_DECLARATION_MAPPED GO_IMPORT_SELECTOR
	var p geo.Point     //want: TYPE_USES example.com/m/geo:Point EXACT_DECLARATION_MAPPED GO_IMPORT_SELECTOR
	_ = p
	geo.Perimeter()     //want-unresolved: DECLARATION_NOT_FOUND example.com/m/geo
}
"#,
    );
    let f = &c.facts;
    assert_eq!(f.package_edges.len(), 1);
    let e = &f.package_edges[0];
    assert_eq!(
        (
            f.packages[e.source].name.as_str(),
            f.packages[e.target].name.as_str(),
            e.confidence.as_str()
        ),
        (
            "example.com/m",
            "example.com/m/geo",
            "EXACT_DECLARATION_MAPPED"
        )
    );
}

#[test]
fn an_aliased_import_binds_by_its_alias() {
    check_m(
        r#"
//- m/geo/geo.go
package geo

func Area() int { return 0 }
//- m/main.go
package main

import g "example.com/m/geo"

func main() { g.Area() } //want: CALLS_DIRECT example.com/m/geo:Area
"#,
    );
}

#[test]
fn an_import_is_named_by_the_package_clause_not_the_directory() {
    check_m(
        r#"
//- m/geo-utils/geo.go
package geometry

func Area() int { return 0 }
//- m/main.go
package main

import "example.com/m/geo-utils"

func main() { geometry.Area() } //want: CALLS_DIRECT example.com/m/geo-utils:Area
"#,
    );
}

#[test]
fn a_dot_import_puts_names_in_the_file_scope() {
    check_m(
        r#"
//- m/geo/geo.go
package geo

type Circle struct{}

func (c Circle) Area() int { return 0 }

func Unit() int { return 1 }
//- m/main.go
package main

import . "example.com/m/geo"

func main() {
	Unit()        //want: CALLS_DIRECT example.com/m/geo:Unit EXACT_DECLARATION_MAPPED GO_IMPORT_SELECTOR
	var c Circle  //want: TYPE_USES example.com/m/geo:Circle EXACT_DECLARATION_MAPPED GO_IMPORT_SELECTOR
	_ = c.Area()  //want: CALLS_DIRECT example.com/m/geo:Circle.Area EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
}
"#,
    );
}

#[test]
fn blank_and_dot_imports_outside_the_graph_are_recorded_at_the_import() {
    let c = check_m(
        r#"
//- m/main.go
package main

import (
	_ "github.com/lib/pq" //want-unresolved: MODULE_PROVIDER_NOT_FOUND github.com/lib/pq
	. "strings"           //want-unresolved: STDLIB_NOT_INDEXED strings
)

func main() {
	Contains() //want-unresolved: STDLIB_NOT_INDEXED strings
}
"#,
    );
    let all = unresolved(&c);
    assert!(
        all.contains(
            &r#"MODULE_PROVIDER_NOT_FOUND github.com/lib/pq - import "_" "github.com/lib/pq""#
                .to_string()
        ),
        "{all:?}"
    );
    let import_record = c.unresolved_where(|u| u.requested_package == "github.com/lib/pq");
    assert_eq!(import_record.source, None);
}

#[test]
fn references_into_the_standard_library_are_not_indexed() {
    check_m(
        r#"
//- m/main.go
package main

import "fmt"

func main() {
	fmt.Println() //want-unresolved: STDLIB_NOT_INDEXED fmt
}
"#,
    );
}

#[test]
fn a_module_no_repository_provides_is_not_found_under_its_conventional_name() {
    check_m(
        r#"
//- m/main.go
package main

import (
	"github.com/go-redis/redis/v8"
	"gopkg.in/yaml.v3"
)

func main() {
	redis.NewClient() //want-unresolved: MODULE_PROVIDER_NOT_FOUND github.com/go-redis/redis/v8
	yaml.Marshal()    //want-unresolved: MODULE_PROVIDER_NOT_FOUND gopkg.in/yaml.v3
}
"#,
    );
}

#[test]
fn uses_of_cgo_are_not_indexed() {
    check_m(
        r#"
//- m/main.go
package main

import "C"

func main() {
	C.free(nil) //want-unresolved: CGO_NOT_INDEXED C
}
"#,
    );
}

#[test]
fn a_binding_into_another_repository_is_package_mapped() {
    let c = check(
        r#"
//- mathlib/go.mod
module example.com/mathlib
//- mathlib/vec/vec.go
package vec

type Vec struct{ X int }

func (v Vec) Len() int { return v.X }

func New() Vec { return Vec{} }
//- app/go.mod
module example.com/app
//- app/main.go
package main

import "example.com/mathlib/vec"

func main() {
	v := vec.New() //want: CALLS_DIRECT example.com/mathlib/vec:New EXACT_PACKAGE_MAPPED GO_IMPORT_SELECTOR
	_ = v.Len()    //want: CALLS_DIRECT example.com/mathlib/vec:Vec.Len EXACT_PACKAGE_MAPPED GO_RECEIVER_TYPED
}
"#,
    );
    let e = &c.facts.package_edges[0];
    assert_eq!(e.confidence.as_str(), "EXACT_PACKAGE_MAPPED");
}
