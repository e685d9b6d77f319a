//! In-memory resolver tests for Go: each a small annotated fixture for one rule of SPEC section
//! 10 (packages and import paths, scopes, imports, written receiver types, the name-only
//! fallback and its bound, every unresolved reason, cross-repository binding, structural edges).

use kivgraph_format::FileStatus;

use crate::testing::{self, Compiled};

/// [`testing::check`], and the provenance an annotation may name after its confidence (a fourth
/// word, which `check` does not read): the edge must have exactly that kind, target, confidence
/// and provenance.
#[track_caller]
fn check(fixture: &str) -> Compiled {
    let c = testing::check(fixture);
    for (repo, path, text) in &c.files {
        for (i, line) in text.lines().enumerate() {
            let Some(at) = line.find("//want") else {
                continue;
            };
            for piece in line[at..].split(" ; ") {
                let Some(rest) = piece.trim().strip_prefix("//want:") else {
                    continue;
                };
                let words: Vec<&str> = rest.split_whitespace().collect();
                if words.len() == 4 {
                    let want = words.join(" ");
                    let edges = c.edges_at(repo, path, i as u32 + 1);
                    assert!(
                        edges.contains(&want),
                        "{repo}/{path}:{}: no edge {want}; edges on this line: {edges:?}",
                        i + 1
                    );
                }
            }
        }
    }
    c
}

/// The unresolved records of the fixture as `REASON package symbol detail`.
fn unresolved(c: &Compiled) -> Vec<String> {
    c.facts
        .unresolved
        .iter()
        .map(|u| {
            format!(
                "{} {} {} {}",
                u.reason,
                u.requested_package,
                u.requested_symbol.as_deref().unwrap_or("-"),
                u.detail.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

// ---- packages and import paths ----

#[test]
fn a_call_in_the_package_scope_binds_exactly() {
    check(
        r#"
//- shapes/go.mod
module example.com/shapes
//- shapes/geo/geo.go
package geo

func Area() int { return 0 }

func Twice() int { return Area() * 2 } //want: CALLS_DIRECT example.com/shapes/geo:Area EXACT_DECLARATION_MAPPED
"#,
    );
}

#[test]
fn without_a_module_the_import_path_is_the_directory_or_the_repository() {
    let c = check(
        r#"
//- loose/main.go
package main

func helper() {}

func main() { helper() } //want: CALLS_DIRECT loose:helper
//- loose/util/strs/strs.go
package strs

func Up() {}

func Twice() { Up() } //want: CALLS_DIRECT util/strs:Up
"#,
    );
    assert!(c.facts.packages.iter().all(|p| p.module.is_none()));
}

#[test]
fn a_nested_go_mod_starts_another_module() {
    check(
        r#"
//- mono/go.mod
module example.com/mono
//- mono/tools/go.mod
module example.com/tools
//- mono/tools/lint/lint.go
package lint

func Run() {}
//- mono/cmd/main.go
package main

import "example.com/tools/lint"

func main() { lint.Run() } //want: CALLS_DIRECT example.com/tools/lint:Run EXACT_DECLARATION_MAPPED
"#,
    );
}

#[test]
fn the_module_std_gives_unprefixed_import_paths() {
    check(
        r#"
//- go/src/go.mod
module std
//- go/src/strings/strings.go
package strings

type Builder struct{}

func (b *Builder) String() string { return "" }
//- go/src/fmt/print.go
package fmt

import "strings"

func Sprint() string {
	var b strings.Builder //want: TYPE_USES strings:Builder EXACT_DECLARATION_MAPPED GO_IMPORT_SELECTOR
	return b.String()     //want: CALLS_DIRECT strings:Builder.String EXACT_DECLARATION_MAPPED
}
"#,
    );
}

#[test]
fn an_external_test_package_is_a_package_of_its_own() {
    let c = check(
        r#"
//- m/go.mod
module example.com/m
//- m/geo/geo.go
package geo

func Area() int { return 0 }
//- m/geo/geo_test.go
package geo_test

import "example.com/m/geo"

func TestArea() { geo.Area() } //want: CALLS_DIRECT example.com/m/geo:Area EXACT_DECLARATION_MAPPED
"#,
    );
    let names: Vec<&str> = c.facts.packages.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"example.com/m/geo_test"), "{names:?}");
}

#[test]
fn an_import_falls_back_to_the_modules_vendor_directory() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/vendor/github.com/x/y/y.go
package y

func Do() {}
//- m/main.go
package main

import "github.com/x/y"

func main() { y.Do() } //want: CALLS_DIRECT example.com/m/vendor/github.com/x/y:Do
"#,
    );
}

// ---- build constraints ----

#[test]
fn files_excluded_by_build_constraints_declare_nothing() {
    let c = check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

func Use() {
	unix()    //want: CALLS_DIRECT example.com/m/p:unix
	windows() //want-unresolved: DECLARATION_NOT_FOUND example.com/m/p
	ignored() //want-unresolved: DECLARATION_NOT_FOUND example.com/m/p
}
//- m/p/p_linux.go
package p

func unix() {}
//- m/p/p_windows.go
package p

func windows() {}
//- m/p/p_ignored.go
//go:build ignore

package p

func ignored() {}
"#,
    );
    let excluded = c
        .facts
        .files
        .iter()
        .filter(|f| f.status == FileStatus::BuildExcluded)
        .count();
    assert_eq!(excluded, 2);
}

#[test]
fn a_directory_without_buildable_files_is_not_buildable() {
    let c = check(
        r#"
//- m/go.mod
module example.com/m
//- m/win/win_windows.go
package win

func Only() {}
//- m/main.go
package main

import "example.com/m/win"

func main() { win.Only() } //want-unresolved: MODULE_PROVIDER_NOT_FOUND example.com/m/win
"#,
    );
    let record = c
        .facts
        .unresolved
        .iter()
        .find(|u| u.reason == "PACKAGE_NOT_BUILDABLE")
        .expect("a PACKAGE_NOT_BUILDABLE record");
    assert_eq!(record.requested_package, "example.com/m/win");
    assert_eq!((record.file, record.line, record.source), (None, 0, None));
    assert!(
        record.detail.as_deref().is_some_and(|d| d
            .starts_with("build constraints exclude all Go files in /")
            && d.ends_with("/win")),
        "{:?}",
        record.detail
    );
}

// ---- scopes ----

#[test]
fn two_declarations_of_one_name_are_candidates() {
    check(
        r#"
//- m/go.mod
module example.com/m
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
    check(
        r#"
//- m/go.mod
module example.com/m
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
    let c = check(
        r#"
//- m/go.mod
module example.com/m
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
    let c = check(
        r#"
//- m/go.mod
module example.com/m
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
    let c = check(
        r#"
//- m/go.mod
module example.com/m
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

// ---- imports ----

#[test]
fn an_import_selector_binds_through_the_imported_package() {
    let c = check(
        r#"
//- m/go.mod
module example.com/m
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
    check(
        r#"
//- m/go.mod
module example.com/m
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
    check(
        r#"
//- m/go.mod
module example.com/m
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
    check(
        r#"
//- m/go.mod
module example.com/m
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
    let c = check(
        r#"
//- m/go.mod
module example.com/m
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
    let import_record = c
        .facts
        .unresolved
        .iter()
        .find(|u| u.requested_package == "github.com/lib/pq")
        .unwrap();
    assert_eq!(import_record.source, None);
}

#[test]
fn references_into_the_standard_library_are_not_indexed() {
    check(
        r#"
//- m/go.mod
module example.com/m
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
    check(
        r#"
//- m/go.mod
module example.com/m
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
    check(
        r#"
//- m/go.mod
module example.com/m
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

// ---- written receiver types ----

#[test]
fn a_parameters_written_type_binds_its_members() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Circle struct{ Radius int }

func (c *Circle) Area() int { return c.Radius } //want: REFERENCES example.com/m/p:Circle.Radius EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED

func Use(c *Circle) int {
	return c.Area() //want: CALLS_DIRECT example.com/m/p:Circle.Area EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
}
"#,
    );
}

#[test]
fn declared_results_type_what_a_call_returns() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type File struct{}

func (f *File) Read() int { return 0 }

func Open() (*File, error) { return nil, nil }

func NewFile() *File { return nil }

func Use() {
	f, err := Open() //want: CALLS_DIRECT example.com/m/p:Open
	_ = err
	f.Read()         //want: CALLS_DIRECT example.com/m/p:File.Read EXACT_DECLARATION_MAPPED
	NewFile().Read() //want: CALLS_DIRECT example.com/m/p:File.Read EXACT_DECLARATION_MAPPED
	g := &File{}     //want: TYPE_USES example.com/m/p:File
	g.Read()         //want: CALLS_DIRECT example.com/m/p:File.Read EXACT_DECLARATION_MAPPED
}
"#,
    );
}

#[test]
fn ranging_over_a_written_container_types_the_element() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Item struct{ Name string }

type Items []Item

func Names(xs []Item, ys Items, zs map[string]*Item) {
	for _, x := range xs {
		_ = x.Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
	for _, y := range ys {
		_ = y.Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
	_ = zs["a"].Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
}
"#,
    );
}

#[test]
fn a_type_switch_types_its_alias_per_case() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Circle struct{}

func (Circle) Area() int { return 0 }

func Use(x any) {
	switch v := x.(type) {
	case Circle:
		v.Area() //want: CALLS_DIRECT example.com/m/p:Circle.Area EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
}
"#,
    );
}

#[test]
fn a_package_level_operand_is_a_value_use_and_types_its_member() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Config struct{}

func (c Config) Load() {}

var Default Config

func Use() {
	Default.Load() //want: REFERENCES example.com/m/p:Default EXACT_DECLARATION_MAPPED GO_SCOPE ; //want: CALLS_DIRECT example.com/m/p:Config.Load EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
}
"#,
    );
}

#[test]
fn members_promote_through_embedded_fields() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Base struct{ ID int }

func (b *Base) Save() {}

type User struct {
	Base
}

func Use(u User) {
	u.Save()   //want: CALLS_DIRECT example.com/m/p:Base.Save EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	_ = u.ID   //want: REFERENCES example.com/m/p:Base.ID EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	_ = u.Base //want: REFERENCES example.com/m/p:User.Base EXACT_DECLARATION_MAPPED
}
"#,
    );
}

#[test]
fn an_ambiguous_promotion_is_not_exact() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type A struct{}

func (A) Close() {}

type B struct{}

func (B) Close() {}

type Both struct {
	A
	B
}

func Use(x Both) {
	x.Close() //want: CALLS_DIRECT example.com/m/p:A.Close CANDIDATE GO_NAME_ONLY ; //want: CALLS_DIRECT example.com/m/p:B.Close CANDIDATE GO_NAME_ONLY
}
"#,
    );
}

#[test]
fn keyed_literal_fields_bind_through_the_literal_type() {
    let c = check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Point struct{ X, Y int }

var Origin = Point{X: 0, Y: 0} //want: TYPE_USES example.com/m/p:Point ; //want: REFERENCES example.com/m/p:Point.X EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED ; //want: REFERENCES example.com/m/p:Point.Y

var Bad = Point{Z: 1} //want-unresolved: DECLARATION_NOT_FOUND example.com/m/p

var Many = []Point{{X: 1}} //want: REFERENCES example.com/m/p:Point.X EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
"#,
    );
    assert!(unresolved(&c).contains(
        &"DECLARATION_NOT_FOUND example.com/m/p Z no such field on the literal's type".to_string()
    ));
}

// ---- the name-only fallback ----

/// A fixture with `n` types that each declare a method `Run`, and a call of `Run` on a value
/// whose type is not written.
fn runners(n: usize, want: &str) -> String {
    let mut s = String::from("//- m/go.mod\nmodule example.com/m\n//- m/p/p.go\npackage p\n\n");
    for i in 0..n {
        s.push_str(&format!(
            "type T{i} struct{{}}\n\nfunc (T{i}) Run() {{}}\n\n"
        ));
    }
    s.push_str(&format!(
        "func Use(x interface{{}}) {{\n\tx.Run() {want}\n}}\n"
    ));
    s
}

#[test]
fn an_unknown_receiver_binds_same_named_members_as_candidates() {
    check(&runners(
        1,
        "//want: CALLS_DIRECT example.com/m/p:T0.Run CANDIDATE GO_NAME_ONLY",
    ));
}

#[test]
fn eight_same_named_members_are_still_candidates() {
    let c = check(&runners(
        8,
        "//want: CALLS_DIRECT example.com/m/p:T0.Run CANDIDATE ; //want: CALLS_DIRECT example.com/m/p:T7.Run CANDIDATE",
    ));
    // The call is on line 4 n + 4 of p.go.
    assert_eq!(c.edges_at("m", "p/p.go", 36).len(), 8);
}

#[test]
fn nine_same_named_members_are_an_unknown_receiver() {
    let c = check(&runners(
        9,
        "//want-unresolved: RECEIVER_TYPE_UNKNOWN example.com/m/p ; //want-none: Run",
    ));
    assert_eq!(
        unresolved(&c),
        vec![
            "RECEIVER_TYPE_UNKNOWN example.com/m/p Run the receiver's type is not written in the code and 9 visible members share the name"
        ]
    );
}

#[test]
fn a_member_no_visible_type_declares_is_an_unknown_receiver() {
    let c = check(&runners(
        0,
        "//want-unresolved: RECEIVER_TYPE_UNKNOWN example.com/m/p",
    ));
    assert_eq!(
        unresolved(&c),
        vec![
            "RECEIVER_TYPE_UNKNOWN example.com/m/p Run the receiver's type is not written in the code and no visible type declares this member"
        ]
    );
}

#[test]
fn name_only_candidates_come_from_imported_packages_only() {
    let c = check(
        r#"
//- m/go.mod
module example.com/m
//- m/a/a.go
package a

type A struct{}

func (A) Flush() {}
//- m/b/b.go
package b

type B struct{}

func (B) Flush() {}
//- m/main.go
package main

import "example.com/m/a"

func main() {
	var x interface{ Flush() }
	_ = a.A{}
	x.Flush() //want: CALLS_DIRECT example.com/m/a:A.Flush CANDIDATE
}
"#,
    );
    // b is not imported: its `B.Flush` is not visible.
    assert_eq!(c.edges_at("m", "main.go", 8).len(), 1);
}

// ---- edge kinds ----

#[test]
fn a_function_value_is_a_callback_an_assignment_or_a_return() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

func handler() {}

func register(f func()) {}

func Use() func() {
	register(handler) //want: PASSES_AS_CALLBACK example.com/m/p:handler
	h := handler      //want: ASSIGNS_FUNCTION example.com/m/p:handler
	_ = h
	return handler    //want: RETURNS_FUNCTION example.com/m/p:handler
}
"#,
    );
}

#[test]
fn types_in_type_positions_and_conversions_are_type_uses() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Celsius float64

type Reading struct {
	Temp Celsius //want: TYPE_USES example.com/m/p:Celsius
}

func Convert(x float64) Celsius { //want: TYPE_USES example.com/m/p:Celsius
	return Celsius(x) //want: TYPE_USES example.com/m/p:Celsius
}
"#,
    );
}

// ---- structural edges ----

#[test]
fn methods_belong_to_their_receivers_type_unless_it_is_an_interface() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Shape interface {
	Area() int //want-none: Shape
}

type Square struct{}

func (s *Square) Area() int { return 0 } //want: METHOD_OF example.com/m/p:Square STRUCTURAL_CERTAIN GO_DECLARATION ; //want: TYPE_USES example.com/m/p:Square
"#,
    );
}

#[test]
fn an_embedded_field_embeds_its_type() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Base struct{}

type Derived struct {
	Base //want: EMBEDS example.com/m/p:Base STRUCTURAL_CERTAIN GO_DECLARATION
	*Other //want: EMBEDS example.com/m/p:Other STRUCTURAL_CERTAIN
}

type Other struct{}
"#,
    );
}

#[test]
fn a_type_implements_an_interface_whose_methods_it_has_with_the_same_signatures() {
    check(
        r#"
//- m/go.mod
module example.com/m
//- m/p/p.go
package p

type Shape interface {
	Area() int
}

type Square struct{} //want: IMPLEMENTS example.com/m/p:Shape STRUCTURAL_CERTAIN GO_DECLARATION

func (Square) Area() int { return 0 } //want: IMPLEMENTS example.com/m/p:Shape.Area STRUCTURAL_CERTAIN

type Wrong struct{} //want-none: Shape

func (Wrong) Area() float64 { return 0 }
"#,
    );
}
