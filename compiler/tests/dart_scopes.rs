//! Dart name binding in cases the fixtures cannot hold because they are not valid Dart, or need
//! a layout of their own: a name two imports bind differently, an export cycle with `hide`,
//! mixin order, a top-level name before an inherited member, a typedef called as a class, and a
//! package that only a `package_config.json` maps to another repository. The sources are
//! written to a temporary directory with their annotations and checked like the fixtures.

use std::path::Path;

use crate::common::annotations::{Facts, FixtureRepo, assert_annotations_hold};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn dart_scopes_and_namespaces() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    let app = dir.path().join("app");
    // `one` has no pubspec: only the package config of `app` names its package.
    write(
        &one,
        "lib/src/a.dart",
        "export 'b.dart';\n\nclass Thing {\n  void go() {}\n}\n\nvoid shared() {}\n",
    );
    write(
        &one,
        "lib/src/b.dart",
        "export 'a.dart' hide shared;\n\nclass Other {\n  void go() {}\n}\n\nvoid shared() {}\n",
    );
    write(&one, "lib/one.dart", "export 'src/b.dart';\n");
    write(
        &one,
        "lib/use.dart",
        r#"import 'src/a.dart';
import 'src/b.dart';

class B {
  void m() {}
  void helper() {}
}

mixin M1 {
  void m() {}
}

mixin M2 {
  void m() {}
}

class C extends B with M1, M2 {
  void run() {
    m(); //want: CALLS_DIRECT package:one/use.dart:M2.m
    helper(); //want: CALLS_DIRECT package:one/use.dart:helper
    this.helper(); //want: CALLS_DIRECT package:one/use.dart:B.helper
  }
}

void helper() {}

typedef Alias = C;

void main() {
  shared(); //want: CALLS_DIRECT package:one/src/a.dart:shared CANDIDATE ; //want: CALLS_DIRECT package:one/src/b.dart:shared CANDIDATE
  Thing().go(); //want: CALLS_DIRECT package:one/src/a.dart:Thing.go
  Other().go(); //want: CALLS_DIRECT package:one/src/b.dart:Other.go
  Alias(); //want: CALLS_DIRECT package:one/use.dart:C
  var helper = 1;
  print(helper); //want-none: helper ; //want-none: print
}
"#,
    );
    write(&app, "pubspec.yaml", "name: app\n");
    write(
        &app,
        ".dart_tool/package_config.json",
        r#"{"configVersion": 2, "packages": [
  {"name": "one", "rootUri": "../../one", "packageUri": "lib/"},
  {"name": "app", "rootUri": "../", "packageUri": "lib/"}
]}"#,
    );
    write(
        &app,
        "lib/app.dart",
        r#"import 'package:one/one.dart' as one; //want-none: one
import 'package:one/one.dart' show shared, Thing; //want: IMPORTS_SYMBOL package:one/src/b.dart:shared EXACT_PACKAGE_MAPPED ; //want: IMPORTS_SYMBOL package:one/src/a.dart:Thing EXACT_PACKAGE_MAPPED

void run(one.Other o, Thing t) { //want: TYPE_USES package:one/src/b.dart:Other EXACT_PACKAGE_MAPPED ; //want: TYPE_USES package:one/src/a.dart:Thing EXACT_PACKAGE_MAPPED
  o.go(); //want: CALLS_DIRECT package:one/src/b.dart:Other.go EXACT_PACKAGE_MAPPED
  t.go(); //want: CALLS_DIRECT package:one/src/a.dart:Thing.go EXACT_PACKAGE_MAPPED
  shared(); //want: CALLS_DIRECT package:one/src/b.dart:shared EXACT_PACKAGE_MAPPED
  one.shared(); //want: CALLS_DIRECT package:one/src/b.dart:shared EXACT_PACKAGE_MAPPED
}
"#,
    );
    let out = tempfile::tempdir().unwrap();
    let facts = Facts::compile(out.path(), &[("one", one.clone()), ("app", app.clone())]);
    let repos = [
        FixtureRepo {
            name: "one",
            root: one,
            targets: None,
        },
        FixtureRepo {
            name: "app",
            root: app,
            targets: None,
        },
    ];
    assert_annotations_hold(&facts, &repos, &[".dart"], &[], 15);
}
