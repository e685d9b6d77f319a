//! Members: receivers typed by written types, promotion, keyed literals, and the name-only
//! fallback with its bound.

use super::{check, check_m, unresolved};
use crate::testing;

#[test]
fn a_parameters_written_type_binds_its_members() {
    check_m(
        r#"
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
    check_m(
        r#"
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
    check_m(
        r#"
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
fn ranging_over_a_map_types_its_key_and_over_a_channel_its_element() {
    check_m(
        r#"
//- m/p/p.go
package p

type Item struct{ Name string }

type Key struct{ ID int }

type Index map[Key]Item

func Walk(ms map[Key]*Item, counts map[Key]int, idx Index, ch chan Item, xs []Item) {
	for k, v := range ms {
		_ = k.ID   //want: REFERENCES example.com/m/p:Key.ID EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
		_ = v.Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
	for k := range counts {
		_ = k.ID //want: REFERENCES example.com/m/p:Key.ID EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
	for k, v := range idx {
		_ = k.ID   //want: REFERENCES example.com/m/p:Key.ID EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
		_ = v.Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
	for it := range ch {
		_ = it.Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
	_ = (<-ch).Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	for i := range xs {
		_ = xs[i].Name //want: REFERENCES example.com/m/p:Item.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	}
}
"#,
    );
}

#[test]
fn an_interface_has_the_methods_of_the_interfaces_it_embeds() {
    check_m(
        r#"
//- m/io/io.go
package io

type Reader interface{ Read(p []byte) (int, error) }

type Closer interface{ Close() error }

type ReadCloser interface {
	Reader
	Closer
}

//- m/p/p.go
package p

import "example.com/m/io"

type Node interface{ Pos() int }

type Expr interface {
	Node
	exprNode()
}

type Source interface {
	io.ReadCloser
	Name() string
}

type Number interface{ ~int | ~float64 }

func Use(e Expr, s Source, es []Expr) {
	_ = e.Pos()     //want: CALLS_DIRECT example.com/m/p:Node.Pos EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	_ = es[0].Pos() //want: CALLS_DIRECT example.com/m/p:Node.Pos EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	_, _ = s.Read(nil) //want: CALLS_DIRECT example.com/m/io:Reader.Read EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	_ = s.Close()   //want: CALLS_DIRECT example.com/m/io:Closer.Close EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
	_ = s.Name()    //want: CALLS_DIRECT example.com/m/p:Source.Name EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED
}
"#,
    );
}

/// A type that embeds more than 32 types has its embedded types indexed by the names they can
/// give; the selector rule finds what it found by asking each of them.
#[test]
fn members_promoted_from_many_embedded_types() {
    let n = 40;
    let mut src = String::from("\n//- m/p/p.go\npackage p\n\n");
    for k in 0..n {
        src.push_str(&format!(
            "type I{k} interface{{ M{k}() }}\n\ntype S{k} struct{{ F{k} int }}\n\n"
        ));
    }
    src.push_str("type Deep interface {\n\tI0\n\tExtra()\n}\n\ntype Twin interface{ M1() }\n\n");
    let embeds: String = (0..n).map(|k| format!("\tI{k}\n")).collect();
    let fields: String = (0..n).map(|k| format!("\tS{k}\n")).collect();
    src.push_str(&format!("type All interface {{\n{embeds}\tDeep\n}}\n\n"));
    src.push_str(&format!("type Tied interface {{\n{embeds}\tTwin\n}}\n\n"));
    src.push_str(&format!("type Big struct {{\n{fields}}}\n\n"));
    src.push_str(
        "func Use(a All, t Tied, b Big) {\n\
         \ta.M5()    //want: CALLS_DIRECT example.com/m/p:I5.M5 EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n\
         \ta.Extra() //want: CALLS_DIRECT example.com/m/p:Deep.Extra EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n\
         \ta.M0()    //want: CALLS_DIRECT example.com/m/p:I0.M0 EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n\
         \tt.M1()    //want: CALLS_DIRECT example.com/m/p:Twin.M1 CANDIDATE ; //want: CALLS_DIRECT example.com/m/p:I1.M1 CANDIDATE\n\
         \tt.M2()    //want: CALLS_DIRECT example.com/m/p:I2.M2 EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n\
         \t_ = b.F7  //want: REFERENCES example.com/m/p:S7.F7 EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n\
         }\n",
    );
    check_m(&src);
}

#[test]
fn a_type_switch_types_its_alias_per_case() {
    check_m(
        r#"
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
    check_m(
        r#"
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
    check_m(
        r#"
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
    check_m(
        r#"
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
    let c = check_m(
        r#"
//- m/p/p.go
package p

type Point struct{ X, Y int }

var Origin = Point{X: 0, Y: 0} //want: TYPE_USES example.com/m/p:Point ; //want: REFERENCES example.com/m/p:Point.X EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED ; //want: REFERENCES example.com/m/p:Point.Y

var Bad = Point{Z: 1} //want-unresolved: DECLARATION_NOT_FOUND example.com/m/p

var Many = []Point{{X: 1}} //want: REFERENCES example.com/m/p:Point.X EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED

type env struct{ iota, nil int }

func Shadow(iota int) env {
	return env{iota: iota, nil: 0} //want: REFERENCES example.com/m/p:env.iota ; //want: REFERENCES example.com/m/p:env.nil
}
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
    testing::repeated(
        "//- m/go.mod\nmodule example.com/m\n//- m/p/p.go\npackage p\n\n",
        n,
        |i| format!("type T{i} struct{{}}\n\nfunc (T{i}) Run() {{}}\n\n"),
        &format!("func Use(x interface{{}}) {{\n\tx.Run() {want}\n}}\n"),
    )
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
    let c = check_m(
        r#"
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

/// A type with more members than are searched one by one (they are then found by name): calls
/// bind to each member, and the type implements an interface listing forty of its methods but
/// not one listing a method it lacks.
#[test]
fn a_type_with_many_members_binds_each_and_implements_by_name() {
    let mut src = String::from("\n//- m/p/p.go\npackage p\n\ntype Big struct{ F0 int }\n\n");
    for i in 0..40 {
        src += &format!("func (b Big) M{i}() int {{ return {i} }}\n");
    }
    src += "\ntype Wide interface {\n";
    for i in 0..40 {
        src += &format!("\tM{i}() int\n");
    }
    src += "}\n\ntype Other interface{ Missing() int }\n\nfunc Use(b Big) int {\n";
    src += "\treturn b.M0() + //want: CALLS_DIRECT example.com/m/p:Big.M0 EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n";
    src += "\t\tb.M39() + //want: CALLS_DIRECT example.com/m/p:Big.M39 EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n";
    src += "\t\tb.F0 //want: REFERENCES example.com/m/p:Big.F0 EXACT_DECLARATION_MAPPED GO_RECEIVER_TYPED\n}\n";
    let c = check_m(&src);
    let implements: Vec<String> = c
        .facts
        .edges
        .iter()
        .filter(|e| e.kind == kivgraph_format::EdgeKind::Implements)
        .map(|e| {
            format!(
                "{} {}",
                c.facts.symbols[e.source].qualified_name, c.facts.symbols[e.target].qualified_name
            )
        })
        .collect();
    assert!(
        implements.contains(&"Big Wide".to_string()),
        "{implements:?}"
    );
    assert!(
        implements.contains(&"Big.M17 Wide.M17".to_string()),
        "{implements:?}"
    );
    assert_eq!(implements.len(), 41, "{implements:?}");
}
