//! Receiver typing, members through supertypes and extensions, and the name-only fallback
//! (SPEC 15.4, Notes).

use super::*;

/// A class `Cart` with `add`, for receivers to reach.
const CART: &str = r#"
//- shop/lib/cart.dart
class Cart {
  Cart();
  void add() {}
  Cart operator +(Cart other) => this;
}
"#;

#[track_caller]
fn with_cart(files: &str) -> Compiled {
    shop(&format!("{CART}{files}"))
}

#[test]
fn a_typed_parameter_types_its_members() {
    let c = with_cart(
        r#"
//- shop/lib/use.dart
import 'cart.dart';
void f(Cart c) => c.add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
"#,
    );
    assert!(
        edges_on(&c, "shop", "lib/use.dart", "c.add")
            .iter()
            .any(|e| e.ends_with("Cart.add EXACT_DECLARATION_MAPPED DART_RECEIVER_TYPED"))
    );
}

#[test]
fn a_local_takes_the_type_of_its_initializer() {
    with_cart(
        r#"
//- shop/lib/use.dart
import 'cart.dart';
Cart make() => Cart();
void f() {
  final a = Cart();
  a.add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
  var b = make();
  b.add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
  make().add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
}
"#,
    );
}

#[test]
fn elements_of_lists_and_awaited_futures() {
    with_cart(
        r#"
//- shop/lib/use.dart
import 'cart.dart';
Future<void> f(List<Cart> carts, Future<Cart> next) async {
  for (final c in carts) {
    c.add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
  }
  carts.first.add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
  carts[0].add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
  (await next).add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
}
"#,
    );
}

#[test]
fn a_cast_types_its_value() {
    with_cart(
        r#"
//- shop/lib/use.dart
import 'cart.dart';
void f(Object o) {
  (o as Cart).add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add ; //want: TYPE_USES package:shop/cart.dart:Cart
}
"#,
    );
}

#[test]
fn an_operator_on_a_typed_receiver_calls_the_operator() {
    with_cart(
        r#"
//- shop/lib/use.dart
import 'cart.dart';
Cart f(Cart a, Cart b) => a + b; //want: CALLS_DIRECT package:shop/cart.dart:Cart.operator+
int g(int a, int b) => a + b; //want-none: operator+
"#,
    );
}

#[test]
fn members_of_mixins_and_superclasses_bind_to_the_declaring_class() {
    shop(
        r#"
//- shop/lib/a.dart
mixin Logged {
  void log() {}
}
class Base {
  void save() {}
}
class Cart extends Base with Logged {
  void save() {
    super.save(); //want: CALLS_DIRECT package:shop/a.dart:Base.save
  }
}
void f(Cart c) {
  c.log(); //want: CALLS_DIRECT package:shop/a.dart:Logged.log
  c.save(); //want: CALLS_DIRECT package:shop/a.dart:Cart.save
}
"#,
    );
}

#[test]
fn an_extension_applies_to_its_on_type() {
    with_cart(
        r#"
//- shop/lib/ext.dart
import 'cart.dart';
extension Shout on String {
  String shout() => toUpperCase();
}
extension Fill on Cart {
  void fill() => add(); //want: CALLS_DIRECT package:shop/cart.dart:Cart.add
}
void f(Cart c) {
  'x'.shout(); //want: CALLS_DIRECT package:shop/ext.dart:Shout.shout
  c.fill(); //want: CALLS_DIRECT package:shop/ext.dart:Fill.fill
}
"#,
    );
}

#[test]
fn an_unknown_receiver_falls_back_to_same_named_members() {
    let c = shop(
        r#"
//- shop/lib/a.dart
class A {
  void zap() {}
}
class B {
  void zap() {}
  static void zip() {}
}
void f(dynamic x) {
  x.zap(); //want: CALLS_DIRECT package:shop/a.dart:A.zap CANDIDATE ; //want: CALLS_DIRECT package:shop/a.dart:B.zap CANDIDATE
  x.zip(); //want-unresolved: RECEIVER_TYPE_UNKNOWN package:shop/a.dart
}
"#,
    );
    assert!(
        edges_on(&c, "shop", "lib/a.dart", "x.zap")
            .iter()
            .all(|e| e.ends_with("CANDIDATE DART_NAME_ONLY"))
    );
    assert_eq!(first_record(&c), (Some("zip"), None));
}

/// `n` classes that each declare `zap`, and a call of `zap` on an unknown receiver.
fn zaps(n: usize, annotation: &str) -> String {
    let mut s = String::from("//- shop/lib/a.dart\n");
    for i in 0..n {
        s.push_str(&format!("class C{i} {{\n  void zap() {{}}\n}}\n"));
    }
    s.push_str(&format!("void f(dynamic x) => x.zap(); {annotation}\n"));
    s
}

#[test]
fn eight_same_named_members_are_candidates() {
    let c = shop(&zaps(
        8,
        "//want: CALLS_DIRECT package:shop/a.dart:C7.zap CANDIDATE",
    ));
    assert_eq!(edges_on(&c, "shop", "lib/a.dart", "x.zap").len(), 8);
}

#[test]
fn nine_same_named_members_are_unresolved() {
    let c = shop(&zaps(
        9,
        "//want-unresolved: RECEIVER_TYPE_UNKNOWN package:shop/a.dart ; //want-none: zap",
    ));
    assert_eq!(first_record(&c), (Some("zap"), None));
}

#[test]
fn a_written_type_that_lacks_the_member() {
    shop(
        r#"
//- shop/lib/a.dart
class Cart {}
class Box {
  void open() {}
}
void f(Cart c) {
  c.open(); //want: CALLS_DIRECT package:shop/a.dart:Box.open CANDIDATE
  c.close(); //want-unresolved: NAME_NOT_RESOLVED package:shop/a.dart
}
"#,
    );
}

#[test]
fn a_class_outside_the_graph_leaves_its_members_open() {
    let c = shop(
        r#"
//- shop/lib/a.dart
import 'package:flutter/widgets.dart'; //want-unresolved: PACKAGE_PROVIDER_NOT_FOUND flutter
class Home extends StatelessWidget {
  void f() => build(); //want-none: build
}
"#,
    );
    assert!(unresolved_on(&c, "shop", "lib/a.dart", "build()").is_empty());
}

#[test]
fn a_field_of_an_object_pattern_is_read() {
    shop(
        r#"
//- shop/lib/a.dart
class Book {
  final String author = '';
}
String f(Object o) => switch (o) {
  Book(:final author) => author, //want: REFERENCES package:shop/a.dart:Book.author ; //want: TYPE_USES package:shop/a.dart:Book
  _ => '',
};
"#,
    );
}
