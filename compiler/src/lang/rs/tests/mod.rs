//! In-memory resolver tests: each fixture is one rule of SPEC section 14 (crates and the module
//! tree, `use` paths, scopes, receivers with written types, the name-only fallback, every
//! unresolved reason, cross-repository and standard-library bindings, structural edges).

use crate::testing::{self, Compiled, check};

/// A library crate `geo` (edition 2021); fixtures append `//- geo/src/…` files.
const GEO: &str = "//- geo/Cargo.toml\n[package]\nname = \"geo\"\nedition = \"2021\"\n";

fn geo(files: &str) -> String {
    format!("{GEO}{files}")
}

/// Asserts that line `line` of geo's `src/lib.rs` has no edge and no unresolved record.
#[track_caller]
fn assert_nothing_at(c: &Compiled, line: u32) {
    assert!(c.edges_at("geo", "src/lib.rs", line).is_empty());
    assert!(c.unresolved_at("geo", "src/lib.rs", line).is_empty());
}

/// [`check`] of the crate `geo` whose `src/lib.rs` is `lib`.
#[track_caller]
fn check_lib(lib: &str) -> Compiled {
    check(&geo(&format!("\n//- geo/src/lib.rs{lib}")))
}

// ---- scopes and the module tree -------------------------------------------------------------

#[test]
fn a_name_binds_to_the_item_of_its_module() {
    check_lib(
        r#"
pub fn area() -> u32 { 1 }
pub fn twice() -> u32 { area() * 2 } //want: CALLS_DIRECT geo:area
"#,
    );
}

#[test]
fn mod_loads_the_file_beside_the_root() {
    check_lib(
        r#"
pub mod shapes;
pub fn f() { shapes::area(); } //want: CALLS_DIRECT geo::shapes:area
//- geo/src/shapes.rs
pub fn area() {}
"#,
    );
}

#[test]
fn mod_loads_mod_rs_and_nests_the_directory() {
    check_lib(
        r#"
pub mod shapes;
pub fn f() { shapes::circle::area(); } //want: CALLS_DIRECT geo::shapes::circle:area
//- geo/src/shapes/mod.rs
pub mod circle;
//- geo/src/shapes/circle.rs
pub fn area() {}
"#,
    );
}

#[test]
fn a_mod_without_its_file_is_module_file_not_found() {
    let c = check_lib(
        r#"
mod missing; //want-unresolved: MODULE_FILE_NOT_FOUND geo::missing
pub fn f() {} 
"#,
    );
    let u = &c.facts.unresolved[0];
    assert_eq!(
        u.detail.as_deref(),
        Some("looked for src/missing.rs and src/missing/mod.rs")
    );
}

#[test]
fn an_inline_module_is_a_package_of_its_own() {
    check_lib(
        r#"
pub mod outer {
    pub fn inner() {}
    pub fn call() { inner() } //want: CALLS_DIRECT geo::outer:inner
}
pub fn f() { outer::inner() } //want: CALLS_DIRECT geo::outer:inner
"#,
    );
}

#[test]
fn self_super_and_crate_paths() {
    check_lib(
        r#"
pub fn top() {}
pub mod a {
    pub fn here() {}
    pub mod b {
        pub fn f() {
            super::here(); //want: CALLS_DIRECT geo::a:here
            crate::top(); //want: CALLS_DIRECT geo:top
            self::g(); //want: CALLS_DIRECT geo::a::b:g
        }
        pub fn g() {}
    }
}
"#,
    );
}

#[test]
fn locals_and_parameters_shadow_items() {
    check_lib(
        r#"
pub fn area() -> u32 { 1 }
pub fn f(area: u32) -> u32 { area } //want-none: area
pub fn g() -> u32 { area() } //want: CALLS_DIRECT geo:area
"#,
    );
}

#[test]
fn items_of_a_block_are_locals_without_edges() {
    let c = check_lib(
        r#"
pub fn helper() {}
pub fn f() {
    fn helper() {}
    helper();
    crate::helper(); //want: CALLS_DIRECT geo:helper
}
"#,
    );
    assert_nothing_at(&c, 4);
}

#[test]
fn cfg_if_branches_declare_items() {
    check_lib(
        r#"
cfg_if::cfg_if! {
    if #[cfg(unix)] {
        pub fn native() {}
    } else {
        pub fn fallback() {}
    }
}
pub fn f() { native(); fallback(); } //want: CALLS_DIRECT geo:native ; //want: CALLS_DIRECT geo:fallback
"#,
    );
}

// ---- use paths ------------------------------------------------------------------------------

#[test]
fn a_use_imports_and_binds_the_name() {
    check_lib(
        r#"
pub mod shapes {
    pub struct Circle;
}
use crate::shapes::Circle; //want: IMPORTS_SYMBOL geo::shapes:Circle
pub fn f(_c: Circle) {} //want: TYPE_USES geo::shapes:Circle
"#,
    );
}

#[test]
fn a_pub_use_reexports_and_chains_are_followed() {
    check_lib(
        r#"
pub mod deep {
    pub struct Point;
}
pub mod mid {
    pub use crate::deep::Point; //want: REEXPORTS geo::deep:Point
}
use mid::Point as P;
pub fn f(_p: P) {} //want: TYPE_USES geo::deep:Point
"#,
    );
}

#[test]
fn a_glob_brings_every_name_of_the_module() {
    check_lib(
        r#"
pub mod shapes {
    pub struct Circle;
    pub fn area() {}
}
use shapes::*; //want: IMPORTS_SYMBOL geo::shapes:geo::shapes
pub fn f(_c: Circle) { area() } //want: TYPE_USES geo::shapes:Circle ; //want: CALLS_DIRECT geo::shapes:area
"#,
    );
}

#[test]
fn glob_cycles_are_cut() {
    check_lib(
        r#"
pub mod a {
    pub use super::b::*;
    pub fn from_a() {}
}
pub mod b {
    pub use super::a::*;
    pub fn from_b() {}
}
pub fn f() { a::from_b(); b::from_a(); } //want: CALLS_DIRECT geo::b:from_b ; //want: CALLS_DIRECT geo::a:from_a
"#,
    );
}

#[test]
fn types_values_and_macros_are_apart() {
    check_lib(
        r#"
pub struct Unit;
pub mod m {
    pub fn Unit() {}
}
pub fn f(_u: Unit) {} //want: TYPE_USES geo:Unit
pub fn g() { m::Unit() } //want: CALLS_DIRECT geo::m:Unit
"#,
    );
}

#[test]
fn a_name_nothing_declares_is_name_not_resolved() {
    check_lib(
        r#"
pub fn f() { undefined_fn() } //want-unresolved: NAME_NOT_RESOLVED geo
pub mod m {
    pub fn g() { super::nope() } //want-unresolved: NAME_NOT_RESOLVED geo
}
"#,
    );
}

// ---- associated items and receivers ---------------------------------------------------------

#[test]
fn type_paths_reach_variants_and_associated_fns() {
    check_lib(
        r#"
pub enum Kind { Round, Square(u32) }
pub struct Point;
impl Point {
    pub fn origin() -> Point { Point }
}
pub fn f() {
    let _k = Kind::Round; //want: REFERENCES geo:Kind::Round
    let _s = Kind::Square(2); //want: CALLS_DIRECT geo:Kind::Square
    Point::origin(); //want: CALLS_DIRECT geo:Point::origin
}
"#,
    );
}

/// A type with more impl blocks than the resolver looks through one by one (its items are then
/// found by name): each call binds to the item of its block, inherent before trait, and an
/// associated function through the type's path.
#[test]
fn a_type_with_many_impl_blocks_binds_each_item_to_its_block() {
    let mut lib = String::from("\npub struct Point;\n");
    for i in 0..40 {
        lib += &format!(
            "impl Point {{ pub fn m{i}(&self) {{}} pub fn new{i}() -> Point {{ Point }} }}\n"
        );
    }
    for i in 0..40 {
        lib += &format!(
            "pub trait T{i} {{ fn t{i}(&self); }}\nimpl T{i} for Point {{ fn t{i}(&self) {{}} }}\n"
        );
    }
    // `m0` is also a trait item: the inherent one wins.
    lib += "pub trait Shadow { fn m0(&self); }\nimpl Shadow for Point { fn m0(&self) {} }\n";
    lib += "pub fn f(p: &Point) {\n";
    lib += "    p.m0(); //want: CALLS_DIRECT geo:Point::m0\n";
    lib += "    p.m39(); //want: CALLS_DIRECT geo:Point::m39\n";
    lib += "    Point::new17(); //want: CALLS_DIRECT geo:Point::new17\n";
    lib += "    p.t5(); //want: CALLS_DIRECT \"geo:<Point as T5>::t5\"\n";
    lib += "}\n";
    check_lib(&lib);
}

/// An associated item that is not declared (derived, or a library trait's) is neither an edge
/// nor a record; the type before it is still used.
#[test]
fn a_missing_associated_item_gives_nothing_but_the_type() {
    let c = check_lib(
        r#"
pub struct Point;
pub fn f() {
    Point::from_derive(); //want: REFERENCES geo:Point
    let _p = Point; //want: REFERENCES geo:Point
}
"#,
    );
    assert_eq!(
        c.edges_at("geo", "src/lib.rs", 3),
        ["REFERENCES geo:Point EXACT_DECLARATION_MAPPED RUST_SCOPE"]
    );
    assert!(c.unresolved_at("geo", "src/lib.rs", 3).is_empty());
}

#[test]
fn struct_literals_and_fields() {
    check_lib(
        r#"
pub struct Point { pub x: u32 }
pub fn f() -> u32 {
    let p = Point { x: 1 }; //want: REFERENCES geo:Point ; //want: REFERENCES geo:Point::x
    p.x //want: REFERENCES geo:Point::x
}
"#,
    );
}

#[test]
fn a_written_parameter_type_types_the_receiver() {
    check_lib(
        r#"
pub struct Point;
impl Point {
    pub fn norm(&self) -> u32 { 0 }
    pub fn twice(&self) -> u32 { self.norm() * 2 } //want: CALLS_DIRECT geo:Point::norm
}
pub struct Other;
impl Other {
    pub fn norm(&self) -> u32 { 1 }
}
pub fn f(p: &Point) -> u32 { p.norm() } //want: CALLS_DIRECT geo:Point::norm
"#,
    );
}

#[test]
fn return_types_and_try_type_the_receiver() {
    check_lib(
        r#"
pub struct Point;
pub struct Other;
impl Point {
    pub fn new() -> Point { Point }
    pub fn norm(&self) -> u32 { 0 }
}
impl Other {
    pub fn norm(&self) -> u32 { 1 }
}
pub fn parse() -> Result<Point, ()> { Ok(Point::new()) }
pub fn f() -> Result<u32, ()> {
    let p = Point::new();
    p.norm(); //want: CALLS_DIRECT geo:Point::norm
    let q = parse()?;
    Ok(q.norm()) //want: CALLS_DIRECT geo:Point::norm
}
"#,
    );
}

#[test]
fn a_type_alias_and_box_are_seen_through() {
    check_lib(
        r#"
pub struct Point;
impl Point {
    pub fn norm(&self) -> u32 { 0 }
}
pub struct Other;
impl Other {
    pub fn norm(&self) -> u32 { 1 }
}
pub type P = Point;
pub fn f(p: P, b: Box<Point>) -> u32 { p.norm() + b.norm() } //want: CALLS_DIRECT geo:Point::norm
"#,
    );
}

#[test]
fn generic_bounds_and_trait_defaults() {
    check_lib(
        r#"
pub trait Shape {
    fn area(&self) -> u32;
    fn describe(&self) -> u32 { self.area() } //want: CALLS_DIRECT geo:Shape::area
}
pub struct Circle;
impl Shape for Circle {
    fn area(&self) -> u32 { 3 }
}
pub fn f<T: Shape>(t: T) -> u32 { t.area() } //want: CALLS_DIRECT geo:Shape::area
pub fn g(c: Circle) -> u32 { c.describe() } //want: CALLS_DIRECT geo:Shape::describe
pub fn h(c: Circle) -> u32 { c.area() } //want: CALLS_DIRECT "geo:<Circle as Shape>::area"
"#,
    );
}

#[test]
fn a_qualified_path_names_the_trait_impl_item() {
    check_lib(
        r#"
pub trait Shape {
    fn sides() -> u32;
}
pub struct Square;
impl Shape for Square {
    fn sides() -> u32 { 4 }
}
pub fn f() -> u32 { <Square as Shape>::sides() } //want: CALLS_DIRECT "geo:<Square as Shape>::sides"
"#,
    );
}

/// A call through a trait's function may run any impl's (SPEC 14.4, dispatch): each of 1 to 8
/// impls gets a candidate at the call, and a path to an impl's associated type names the
/// trait's as well.
#[test]
fn a_call_through_the_trait_names_each_impl_as_a_candidate() {
    check_lib(
        r#"
pub trait Shape {
    type Unit;
    fn area(&self) -> u32;
}
pub struct Circle;
pub struct Square;
impl Shape for Circle {
    type Unit = u32;
    fn area(&self) -> u32 { 3 }
}
impl Shape for Square {
    type Unit = u8;
    fn area(&self) -> u32 { 4 }
}
pub fn f<T: Shape>(t: T) -> u32 { t.area() } //want: CALLS_DIRECT geo:Shape::area ; //want: CALLS_DIRECT "geo:<Circle as Shape>::area" CANDIDATE ; //want: CALLS_DIRECT "geo:<Square as Shape>::area" CANDIDATE
pub fn g(u: <Circle as Shape>::Unit) -> u32 { u } //want: TYPE_USES "geo:<Circle as Shape>::Unit" ; //want: TYPE_USES geo:Shape::Unit CANDIDATE
"#,
    );
}

/// Past 8 impls a call through the trait names none of them.
#[test]
fn a_trait_with_many_impls_gives_no_dispatch_candidates() {
    let impls: String = (0..9)
        .map(|i| format!("pub struct S{i};\nimpl Go for S{i} {{ fn go(&self) {{}} }}\n"))
        .collect();
    let c = check_lib(&format!(
        "\npub trait Go {{ fn go(&self); }}\n{impls}pub fn f<T: Go>(t: T) {{ t.go() }} //want: CALLS_DIRECT geo:Go::go\n"
    ));
    // The trait, two lines per impl, then the call.
    let at = c.edges_at("geo", "src/lib.rs", 1 + 2 * 9 + 1);
    assert!(at.iter().any(|e| e.contains("Go::go")), "{at:?}");
    assert!(at.iter().all(|e| !e.contains("CANDIDATE")), "{at:?}");
}

// ---- the name-only fallback -----------------------------------------------------------------

/// `n` structs, each with a method `go`, and a call of `go` on a receiver of unknown type.
fn many_go(n: usize, want: &str) -> String {
    geo(&testing::repeated(
        "//- geo/src/lib.rs\n",
        n,
        |i| format!("pub struct S{i};\nimpl S{i} {{ pub fn go(&self) {{}} }}\n"),
        &format!("pub fn f(x: u32) {{ x.go() }} {want}\n"),
    ))
}

#[test]
fn an_unknown_receiver_gives_name_only_candidates() {
    let c = check(&many_go(
        2,
        "//want: CALLS_DIRECT geo:S0::go CANDIDATE ; //want: CALLS_DIRECT geo:S1::go CANDIDATE",
    ));
    let line = 2 * 2 + 1;
    let edges = c.edges_at("geo", "src/lib.rs", line);
    assert_eq!(edges.len(), 2);
    assert!(
        edges
            .iter()
            .all(|e| e.ends_with("CANDIDATE RUST_NAME_ONLY"))
    );
}

#[test]
fn eight_candidates_are_the_bound() {
    let c = check(&many_go(8, "//want: CALLS_DIRECT geo:S7::go CANDIDATE"));
    assert_eq!(c.edges_at("geo", "src/lib.rs", 8 * 2 + 1).len(), 8);
}

#[test]
fn nine_candidates_are_receiver_type_unknown() {
    let c = check(&many_go(9, "//want-unresolved: RECEIVER_TYPE_UNKNOWN geo"));
    assert!(c.edges_at("geo", "src/lib.rs", 9 * 2 + 1).is_empty());
    let u = &c.facts.unresolved[0];
    assert_eq!(u.requested_symbol.as_deref(), Some("go"));
    assert_eq!(u.detail, None);
}

#[test]
fn no_candidate_is_receiver_type_unknown() {
    check_lib(
        r#"
pub fn f(x: u32) { x.nothing_has_this() } //want-unresolved: RECEIVER_TYPE_UNKNOWN geo
pub fn g() {}
pub fn h() { g() } //want: CALLS_DIRECT geo:g
"#,
    );
}

// ---- crates and repositories ----------------------------------------------------------------

#[test]
fn a_binary_uses_the_library_of_its_package() {
    check_lib(
        r#"
pub fn area() {}
//- geo/src/main.rs
fn main() { geo::area() } //want: CALLS_DIRECT geo:area
"#,
    );
}

const PAIR: &str = r#"
//- corelib/Cargo.toml
[package]
name = "acme-corelib"
edition = "2021"
//- corelib/src/lib.rs
pub struct Money;
pub fn total() -> Money { Money }
//- app/Cargo.toml
[package]
name = "app"
edition = "2021"
[dependencies]
acme-corelib = { path = "../corelib" }
serde = "1"
"#;

#[test]
fn a_dependency_in_another_repository_is_package_mapped() {
    check(&format!(
        "{PAIR}{}",
        r#"
//- app/src/lib.rs
use acme_corelib::Money; //want: IMPORTS_SYMBOL acme_corelib:Money EXACT_PACKAGE_MAPPED
pub fn f() -> Money { acme_corelib::total() } //want: CALLS_DIRECT acme_corelib:total EXACT_PACKAGE_MAPPED
"#
    ));
}

#[test]
fn a_dependency_no_repository_provides_is_crate_provider_not_found() {
    check(&format!(
        "{PAIR}{}",
        r#"
//- app/src/lib.rs
use serde::Serialize; //want-unresolved: CRATE_PROVIDER_NOT_FOUND serde
pub fn f() -> acme_corelib::Money { acme_corelib::total() } //want: CALLS_DIRECT acme_corelib:total EXACT_PACKAGE_MAPPED
"#
    ));
}

#[test]
fn without_the_standard_library_its_names_are_sysroot_source_missing() {
    let c = check_lib(
        r#"
pub fn f() -> Option<u32> { None } //want-unresolved: SYSROOT_SOURCE_MISSING std
pub fn g() { println!("x") } //want-unresolved: SYSROOT_SOURCE_MISSING std
pub fn h() { std::mem::drop(1) } //want-unresolved: SYSROOT_SOURCE_MISSING std
"#,
    );
    assert!(c.facts.unresolved.iter().all(|u| u.detail.is_some()));
}

/// A stand-in standard library: `core` with `Option`, `std` re-exporting it with a prelude.
const SYSROOT: &str = r#"
//- rust:1.95.0/core/Cargo.toml
[package]
name = "core"
//- rust:1.95.0/core/src/lib.rs
pub mod option {
    pub enum Option<T> { None, Some(T) }
}
//- rust:1.95.0/std/Cargo.toml
[package]
name = "std"
//- rust:1.95.0/std/src/lib.rs
pub use core::option;
pub mod prelude {
    pub mod v1 {
        pub use core::option::Option;
    }
}
"#;

#[test]
fn the_standard_library_binds_exactly_and_through_the_prelude() {
    check(&format!(
        "{SYSROOT}{}",
        geo(r#"
//- geo/src/lib.rs
use std::option::Option as Opt; //want: IMPORTS_SYMBOL core::option:Option
pub fn f(_o: Option<u32>) {} //want: TYPE_USES core::option:Option
pub fn g(_o: Opt<u32>) {} //want: TYPE_USES core::option:Option
"#)
    ));
}

// ---- macros ---------------------------------------------------------------------------------

#[test]
fn macro_rules_bind_by_textual_scope() {
    check_lib(
        r#"
macro_rules! square { ($x:expr) => { $x * $x }; }
pub fn f() -> u32 { square!(3) } //want: CALLS_DIRECT geo:square
pub mod inner {
    pub fn g() -> u32 { square!(2) } //want: CALLS_DIRECT geo:square
}
"#,
    );
}

/// The arguments of a macro invocation are read as expressions: exactly for the standard
/// library's expression macros (`assert_eq!`, `format!`, `vec!`, …), whose arguments mean what
/// they mean where they are written; as candidates for any other macro, whose expansion may
/// give a name another meaning (it is not expanded).
#[test]
fn macro_arguments_are_read_as_expressions() {
    check_lib(
        r#"
macro_rules! id { ($x:expr) => { $x }; }
pub fn area() -> u32 { 1 }
pub fn f() -> u32 { id!(area()) } //want: CALLS_DIRECT geo:area CANDIDATE
pub fn g() -> Vec<u32> { vec![area(), 2] } //want: CALLS_DIRECT geo:area
pub fn h() { assert_eq!(area(), 1); } //want: CALLS_DIRECT geo:area
pub fn k() { std::assert!(id!(area()) > 0); } //want: CALLS_DIRECT geo:area CANDIDATE
"#,
    );
}

/// Arguments of a macro that are not expressions (`test!{ min: Bound::Unbounded }`): the paths
/// among their tokens are candidates where they bind; a name that binds nothing (a field name of
/// the macro's own syntax) is not recorded.
#[test]
fn paths_among_macro_tokens_are_candidates() {
    let c = check_lib(
        r#"
macro_rules! range_test { ($($k:ident : $v:expr),*) => {}; }
pub enum Bound { Unbounded }
pub fn f() { range_test!{ min: Bound::Unbounded, max: nothing_here } } //want: REFERENCES geo:Bound::Unbounded CANDIDATE RUST_MACRO_ARGUMENT ; //want: REFERENCES geo:Bound CANDIDATE RUST_MACRO_ARGUMENT
"#,
    );
    assert!(c.unresolved_at("geo", "src/lib.rs", 3).is_empty());
}

#[test]
fn in_an_expansion_only_dollar_crate_paths_bind_exactly() {
    check_lib(
        r#"
pub fn helper() {}
#[macro_export]
macro_rules! both {
    () => {
        $crate::helper(); //want: CALLS_DIRECT geo:helper
        helper(); //want: CALLS_DIRECT geo:helper CANDIDATE
    };
}
"#,
    );
}

// ---- structural edges and derives -----------------------------------------------------------

#[test]
fn impls_give_method_of_implements_and_overrides() {
    check_lib(
        r#"
pub trait Shape {
    fn area(&self) -> u32;
    fn name(&self) -> u32 { 0 }
}
pub struct Circle;
impl Shape for Circle { //want: IMPLEMENTS geo:Shape STRUCTURAL_CERTAIN
    fn area(&self) -> u32 { 3 } //want: METHOD_OF geo:Circle STRUCTURAL_CERTAIN ; //want: IMPLEMENTS geo:Shape::area STRUCTURAL_CERTAIN
    fn name(&self) -> u32 { 1 } //want: OVERRIDES geo:Shape::name STRUCTURAL_CERTAIN
}
"#,
    );
}

#[test]
fn supertraits_extend_and_derives_reference_the_trait() {
    check_lib(
        r#"
pub trait Named {}
pub trait Shape: Named {} //want: EXTENDS geo:Named STRUCTURAL_CERTAIN
#[derive(Named)] //want: REFERENCES geo:Named
pub struct Circle;
"#,
    );
}

#[test]
fn a_function_passed_as_an_argument_is_a_callback() {
    check_lib(
        r#"
pub fn apply(f: fn() -> u32) -> u32 { f() }
pub fn helper() -> u32 { 1 }
pub const LIMIT: u32 = 3;
pub fn take(_n: u32) {}
pub fn g() -> u32 { apply(helper) } //want: PASSES_AS_CALLBACK geo:helper
pub fn h() { take(LIMIT) } //want: REFERENCES geo:LIMIT
"#,
    );
}

/// The type a path's prefix names is used too: `Gadget` in `Gadget::build()` (and in
/// `Gadget::default()`, whose method is derived), `Shape` in `Shape::Dot` in expressions and
/// patterns; a module prefix and `Self` are not.
#[test]
fn a_type_used_as_a_path_prefix_is_referenced() {
    let c = check_lib(
        r#"
pub struct Gadget;
impl Gadget { pub fn build() -> Self { Self::new() } }
impl Gadget { fn new() -> Self { Gadget } }
pub enum Shape { Dot, Line(u32) }
pub mod parts { pub fn count() -> u32 { 1 } }
pub fn make() -> u32 {
    let _g = Gadget::build(); //want: CALLS_DIRECT geo:Gadget::build ; //want: REFERENCES geo:Gadget
    let _d = Gadget::default(); //want: REFERENCES geo:Gadget
    let s = Shape::Dot; //want: REFERENCES geo:Shape::Dot ; //want: REFERENCES geo:Shape
    match s { Shape::Line(n) => n, _ => parts::count() } //want: REFERENCES geo:Shape ; //want: CALLS_DIRECT geo::parts:count
}
"#,
    );
    // `Self::new()` names the type only through `Self`; `parts::` is a module.
    assert!(
        !c.edges_at("geo", "src/lib.rs", 2)
            .iter()
            .any(|e| e.starts_with("REFERENCES geo:Gadget "))
    );
    assert_eq!(
        c.edges_at("geo", "src/lib.rs", 10).len(),
        3,
        "Shape::Line, Shape and count only"
    );
}

/// `#[cfg]` is evaluated for x86_64 Linux, in both the library and the test build, with the
/// package's default features: an item (module, impl member, statement) switched off there is
/// not compiled, so the item that is compiled binds exactly; `test` is undecided and keeps
/// its items.
#[test]
fn cfg_switched_off_items_are_not_compiled() {
    let c = check(
        r#"
//- geo/Cargo.toml
[package]
name = "geo"
edition = "2021"
[features]
default = ["std"]
std = ["alloc", "dep:serde"]
alloc = []
extra = []
//- geo/src/lib.rs
#[cfg(target_arch = "aarch64")]
pub fn width() -> u32 { 128 }
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub fn width() -> u32 { 256 }
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn width() -> u32 { 64 }
#[cfg(windows)]
mod win { pub fn helper() {} }
pub struct S;
impl S {
    #[cfg(miri)]
    pub fn probe() {}
    #[cfg(unix)]
    pub fn probe() {}
}
#[cfg(test)]
mod tests { pub fn t() {} }
#[cfg(not(test))]
pub fn lib_only() {}
#[cfg(feature = "alloc")]
pub fn with_alloc() {}
#[cfg(feature = "extra")]
pub fn with_alloc() {}
pub fn use_them() -> u32 {
    S::probe(); //want: CALLS_DIRECT geo:S::probe ; //want: REFERENCES geo:S
    tests::t(); //want: CALLS_DIRECT geo::tests:t
    lib_only(); //want: CALLS_DIRECT geo:lib_only
    with_alloc(); //want: CALLS_DIRECT geo:with_alloc
    width() //want: CALLS_DIRECT geo:width
}
"#,
    );
    let lines_of = |name: &str| -> Vec<u32> {
        c.facts
            .symbols
            .iter()
            .filter(|s| s.name == name)
            .map(|s| s.span.start_line)
            .collect()
    };
    assert_eq!(
        lines_of("width"),
        [4],
        "only the x86_64 function is compiled"
    );
    assert_eq!(
        lines_of("with_alloc"),
        [21],
        "alloc is on by default, extra is not"
    );
    assert!(
        !c.facts
            .symbols
            .iter()
            .any(|s| s.name == "win" || s.name == "helper")
    );
}

/// A glob import's edge to what it globs is written at that item's name, the last segment
/// before `*` (`Primitive` in `use self::Primitive::*`), not at the path's first segment.
#[test]
fn a_glob_import_is_recorded_at_the_item_it_globs() {
    let c = check_lib(
        r#"
pub enum Primitive { Literal, Dot }
pub fn kind() -> u32 { use self::Primitive::*; let _p = Dot; 1 } //want: IMPORTS_SYMBOL geo:Primitive ; //want: REFERENCES geo:Primitive::Dot
"#,
    );
    let line = "pub fn kind() -> u32 { use self::Primitive::*; let _p = Dot; 1 }";
    let col = line.find("Primitive").unwrap() as u32;
    let glob: Vec<u32> = c
        .facts
        .edges
        .iter()
        .filter(|e| e.line == 2 && e.kind == kivgraph_format::EdgeKind::ImportsSymbol)
        .map(|e| e.column)
        .collect();
    assert_eq!(glob, [col]);
}
