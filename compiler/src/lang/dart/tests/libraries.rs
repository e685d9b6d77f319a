//! Libraries, URIs, imports, exports and parts (SPEC 15.1, 15.3).

use super::*;

#[test]
fn a_relative_import_binds_the_library_declaration() {
    shop(
        r#"
//- shop/lib/tax.dart
int rate() => 20;
//- shop/lib/cart.dart
import 'tax.dart';
int total() => rate(); //want: CALLS_DIRECT package:shop/tax.dart:rate
"#,
    );
}

#[test]
fn a_package_uri_binds_under_the_pubspec_lib_directory() {
    let c = shop(
        r#"
//- shop/lib/src/tax.dart
int rate() => 20;
//- shop/bin/main.dart
import 'package:shop/src/tax.dart';
void main() => rate(); //want: CALLS_DIRECT package:shop/src/tax.dart:rate
"#,
    );
    assert!(
        edges_on(&c, "shop", "bin/main.dart", "rate()")[0].ends_with(" DART_IMPORT"),
        "an imported name has the import provenance"
    );
}

#[test]
fn show_names_import_symbols_and_hide_hides() {
    shop(
        r#"
//- shop/lib/tax.dart
int rate() => 20;
int duty() => 5;
//- shop/lib/cart.dart
import 'tax.dart' show rate hide duty; //want: IMPORTS_SYMBOL package:shop/tax.dart:rate
int total() => rate() + duty(); //want: CALLS_DIRECT package:shop/tax.dart:rate ; //want-none: duty ; //want-unresolved: NAME_NOT_RESOLVED package:shop/cart.dart
"#,
    );
}

#[test]
fn a_show_name_the_library_lacks_is_unresolved() {
    let c = shop(
        r#"
//- shop/lib/tax.dart
int rate() => 20;
//- shop/lib/cart.dart
import 'tax.dart' show rate, levy; //want-unresolved: NAME_NOT_RESOLVED package:shop/cart.dart
"#,
    );
    assert_eq!(
        first_record(&c),
        (Some("levy"), Some("import of \"tax.dart\""))
    );
}

#[test]
fn a_prefix_reaches_the_names_of_its_import() {
    shop(
        r#"
//- shop/lib/tax.dart
int rate() => 20;
//- shop/lib/cart.dart
import 'tax.dart' as tax;
int total() => tax.rate(); //want: CALLS_DIRECT package:shop/tax.dart:rate ; //want-none: tax
int other() => tax.levy(); //want-unresolved: NAME_NOT_RESOLVED package:shop/cart.dart
"#,
    );
}

#[test]
fn exports_chain_to_the_declaring_library() {
    shop(
        r#"
//- shop/lib/src/tax.dart
int rate() => 20;
int duty() => 5;
//- shop/lib/shop.dart
export 'src/tax.dart' show rate; //want: REEXPORTS package:shop/src/tax.dart:rate
//- shop/bin/main.dart
import 'package:shop/shop.dart';
void main() {
  rate(); //want: CALLS_DIRECT package:shop/src/tax.dart:rate
  duty(); //want-unresolved: NAME_NOT_RESOLVED bin/main.dart
}
"#,
    );
}

#[test]
fn export_cycles_end() {
    shop(
        r#"
//- shop/lib/a.dart
export 'b.dart';
int fromA() => 1;
//- shop/lib/b.dart
export 'a.dart';
int fromB() => 2;
//- shop/bin/main.dart
import 'package:shop/a.dart';
void main() => fromB() + fromA(); //want: CALLS_DIRECT package:shop/b.dart:fromB ; //want: CALLS_DIRECT package:shop/a.dart:fromA
"#,
    );
}

#[test]
fn a_part_shares_its_library_scope_and_package() {
    let c = shop(
        r#"
//- shop/lib/cart.dart
import 'tax.dart';
part 'cart_total.dart';
int count() => 1;
//- shop/lib/cart_total.dart
part of 'cart.dart';
int total() => count() + rate(); //want: CALLS_DIRECT package:shop/cart.dart:count ; //want: CALLS_DIRECT package:shop/tax.dart:rate
//- shop/lib/tax.dart
int rate() => 20;
"#,
    );
    let part_of = edges_on(&c, "shop", "lib/cart_total.dart", "part of");
    assert_eq!(
        part_of,
        vec![
            "PART_OF package:shop/cart.dart:package:shop/cart.dart STRUCTURAL_CERTAIN \
             DART_DECLARATION"
        ]
    );
}

#[test]
fn a_sdk_import_is_recorded_once_and_its_names_are_silent() {
    let c = shop(
        r#"
//- shop/lib/geo.dart
import 'dart:math'; //want-unresolved: DART_SDK_NOT_INDEXED dart:math
double side(double a) => sqrt(a) + max(a, 1); //want-none: sqrt
"#,
    );
    assert!(unresolved_on(&c, "shop", "lib/geo.dart", "sqrt").is_empty());
    assert_eq!(c.facts.unresolved.len(), 1);
}

#[test]
fn core_names_give_nothing() {
    let c = shop(
        r#"
//- shop/lib/log.dart
void log(String s) => print(s.length); //want-none: print
void other() => missing(); //want-unresolved: NAME_NOT_RESOLVED package:shop/log.dart
"#,
    );
    assert!(unresolved_on(&c, "shop", "lib/log.dart", "print").is_empty());
}

#[test]
fn a_uri_that_names_no_file_is_not_resolved() {
    let c = shop(
        r#"
//- shop/lib/cart.dart
import 'gone.dart'; //want-unresolved: URI_NOT_RESOLVED gone.dart
import 'https://example.com/x.dart'; //want-unresolved: URI_NOT_RESOLVED https://example.com/x.dart
int total() => anything(); //want-none: anything
"#,
    );
    // An unprefixed import that did not resolve may provide every unbound name.
    assert!(unresolved_on(&c, "shop", "lib/cart.dart", "anything").is_empty());
    assert_eq!(first_record(&c), (None, Some("import of \"gone.dart\"")));
}

#[test]
fn a_package_nobody_provides_is_reported() {
    shop(
        r#"
//- shop/lib/net.dart
import 'package:http/http.dart' as http; //want-unresolved: PACKAGE_PROVIDER_NOT_FOUND http
void send() => http.post(); //want-none: post
"#,
    );
}

#[test]
fn a_package_of_another_repository_binds_exactly_across_repositories() {
    let c = check(
        r#"
//- core/pubspec.yaml
name: acme_core
//- core/lib/money.dart
class Money {
  int cents() => 0;
}
//- app/pubspec.yaml
name: acme_app
//- app/lib/bill.dart
import 'package:acme_core/money.dart';
int due(Money m) => m.cents(); //want: TYPE_USES package:acme_core/money.dart:Money EXACT_PACKAGE_MAPPED ; //want: CALLS_DIRECT package:acme_core/money.dart:Money.cents EXACT_PACKAGE_MAPPED
"#,
    );
    let deps: Vec<_> = c
        .facts
        .package_edges
        .iter()
        .map(|e| {
            let p = &c.facts.packages;
            (
                p[e.source].name.as_str(),
                p[e.target].name.as_str(),
                e.confidence.as_str(),
            )
        })
        .collect();
    assert_eq!(
        deps,
        vec![(
            "package:acme_app/bill.dart",
            "package:acme_core/money.dart",
            "EXACT_PACKAGE_MAPPED"
        )]
    );
}

#[test]
fn two_imports_of_one_name_give_a_candidate_each() {
    shop(
        r#"
//- shop/lib/a.dart
int rate() => 1;
//- shop/lib/b.dart
int rate() => 2;
//- shop/lib/cart.dart
import 'a.dart';
import 'b.dart';
int total() => rate(); //want: CALLS_DIRECT package:shop/a.dart:rate CANDIDATE ; //want: CALLS_DIRECT package:shop/b.dart:rate CANDIDATE
"#,
    );
}

#[test]
fn library_declarations_shadow_imports() {
    shop(
        r#"
//- shop/lib/a.dart
int rate() => 1;
//- shop/lib/cart.dart
import 'a.dart';
int rate() => 2;
int total() => rate(); //want: CALLS_DIRECT package:shop/cart.dart:rate
"#,
    );
}
