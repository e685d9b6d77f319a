//! Names, classes, constructors and structural edges (SPEC 15.2, 15.4).

use super::*;

#[test]
fn a_local_shadows_a_top_level_declaration() {
    shop(
        r#"
//- shop/lib/a.dart
int rate = 1;
int total(int rate) => rate + 1; //want-none: rate
int other() => rate; //want: REFERENCES package:shop/a.dart:rate
"#,
    );
}

#[test]
fn a_top_level_call_is_exact_by_scope() {
    let c = shop(
        r#"
//- shop/lib/a.dart
int rate() => 1;
int total() => rate(); //want: CALLS_DIRECT package:shop/a.dart:rate
"#,
    );
    assert_eq!(
        edges_on(&c, "shop", "lib/a.dart", "total"),
        vec!["CALLS_DIRECT package:shop/a.dart:rate EXACT_DECLARATION_MAPPED DART_SCOPE"]
    );
}

#[test]
fn a_class_member_binds_before_the_library() {
    shop(
        r#"
//- shop/lib/a.dart
int size() => 0;
class Cart {
  int size() => 1;
  int twice() => size() * 2; //want: CALLS_DIRECT package:shop/a.dart:Cart.size
}
"#,
    );
}

#[test]
fn an_inherited_member_binds_through_implicit_this() {
    shop(
        r#"
//- shop/lib/a.dart
class Base {
  int size() => 1;
}
class Cart extends Base {
  int twice() => size() * 2; //want: CALLS_DIRECT package:shop/a.dart:Base.size
}
"#,
    );
}

#[test]
fn supertypes_are_structural_and_members_override() {
    shop(
        r#"
//- shop/lib/a.dart
abstract class Shape {
  double area();
}
mixin Named {}
class Square extends Shape with Named implements Comparable<Square> { //want: EXTENDS package:shop/a.dart:Shape STRUCTURAL_CERTAIN ; //want: EXTENDS package:shop/a.dart:Named STRUCTURAL_CERTAIN ; //want: TYPE_USES package:shop/a.dart:Square
  double area() => 1; //want: OVERRIDES package:shop/a.dart:Shape.area STRUCTURAL_CERTAIN ; //want: METHOD_OF package:shop/a.dart:Square STRUCTURAL_CERTAIN
}
class Circle implements Shape { //want: IMPLEMENTS package:shop/a.dart:Shape STRUCTURAL_CERTAIN
  double area() => 3; //want: OVERRIDES package:shop/a.dart:Shape.area STRUCTURAL_CERTAIN
}
"#,
    );
}

#[test]
fn a_call_of_a_class_calls_its_unnamed_constructor() {
    shop(
        r#"
//- shop/lib/a.dart
class Cart {
  Cart();
  Cart.guest();
}
class Plain {}
void main() {
  Cart(); //want: CALLS_DIRECT package:shop/a.dart:Cart.new
  new Cart.guest(); //want: CALLS_DIRECT package:shop/a.dart:Cart.guest
  Plain(); //want: CALLS_DIRECT package:shop/a.dart:Plain
}
"#,
    );
}

#[test]
fn super_and_redirecting_constructor_calls() {
    shop(
        r#"
//- shop/lib/a.dart
class Base {
  Base.named(int x);
}
class Cart extends Base {
  Cart(int x) : super.named(x); //want: CALLS_DIRECT package:shop/a.dart:Base.named
  Cart.guest() : this(0); //want: CALLS_DIRECT package:shop/a.dart:Cart.new
}
"#,
    );
}

#[test]
fn initializing_formals_and_field_initializers_reference_fields() {
    shop(
        r#"
//- shop/lib/a.dart
class Cart {
  Cart(this.owner) : size = 0; //want: REFERENCES package:shop/a.dart:Cart.owner ; //want: REFERENCES package:shop/a.dart:Cart.size
  final String owner;
  final int size;
}
"#,
    );
}

#[test]
fn statics_enum_values_and_the_enum_as_a_value() {
    let c = shop(
        r#"
//- shop/lib/a.dart
enum Currency { usd, eur }
class Cart {
  static int made = 0;
  static Cart create() => Cart();
}
void main() {
  Cart.create(); //want: CALLS_DIRECT package:shop/a.dart:Cart.create
  Cart.made++; //want: REFERENCES package:shop/a.dart:Cart.made
  final c = Currency.usd; //want: REFERENCES package:shop/a.dart:Currency.usd ; //want: REFERENCES package:shop/a.dart:Currency
}
"#,
    );
    assert!(
        edges_on(&c, "shop", "lib/a.dart", "Cart.create();")
            .contains(&"CALLS_DIRECT package:shop/a.dart:Cart.create EXACT_DECLARATION_MAPPED DART_RECEIVER_TYPED".to_string())
    );
}

#[test]
fn a_function_passed_as_an_argument_is_a_callback() {
    shop(
        r#"
//- shop/lib/a.dart
int twice(int x) => x * 2;
void apply(Function f) {}
void main() {
  apply(twice); //want: PASSES_AS_CALLBACK package:shop/a.dart:twice ; //want: CALLS_DIRECT package:shop/a.dart:apply
}
"#,
    );
}

#[test]
fn metadata_references_the_constant_or_the_constructor() {
    shop(
        r#"
//- shop/lib/a.dart
const tracked = 1;
class Tracked {
  const Tracked(String why);
}
@tracked //want: REFERENCES package:shop/a.dart:tracked
void a() {}
@Tracked('x') //want: REFERENCES package:shop/a.dart:Tracked.new
void b() {}
"#,
    );
}

#[test]
fn a_typedef_of_a_class_constructs_the_class() {
    shop(
        r#"
//- shop/lib/a.dart
class Cart {
  Cart();
  int size() => 0;
}
typedef Basket = Cart;
void main() {
  Basket(); //want: CALLS_DIRECT package:shop/a.dart:Cart.new
  Basket b = Cart(); //want: TYPE_USES package:shop/a.dart:Basket
  b.size(); //want: CALLS_DIRECT package:shop/a.dart:Cart.size
}
"#,
    );
}

#[test]
fn a_name_no_scope_declares_is_not_resolved() {
    let c = shop(
        r#"
//- shop/lib/a.dart
void main() {
  missing(); //want-unresolved: NAME_NOT_RESOLVED package:shop/a.dart
}
"#,
    );
    assert_eq!(first_record(&c), (Some("missing"), None));
}

/// A getter and a setter of one name are one property whose range holds both.
#[test]
fn a_getter_and_its_setter_are_one_range() {
    let c = shop(
        r#"
//- shop/lib/a.dart
int log(int x) => x;
class Box {
  int get size => 1;
  int other() => 2;
  set size(int v) {
    log(v); //want: CALLS_DIRECT package:shop/a.dart:log
  }
}
"#,
    );
    assert_eq!(c.lines_of("Box.size"), (3, 7));
}
