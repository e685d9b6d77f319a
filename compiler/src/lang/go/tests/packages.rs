//! Packages and import paths (modules, nested modules, `std`, `x_test`, vendoring) and build
//! constraints.

use kivgraph_format::FileStatus;

use super::{check, check_m};

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
    let c = check_m(
        r#"
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
    check_m(
        r#"
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
    let c = check_m(
        r#"
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
    let c = check_m(
        r#"
//- m/win/win_windows.go
package win

func Only() {}
//- m/main.go
package main

import "example.com/m/win"

func main() { win.Only() } //want-unresolved: MODULE_PROVIDER_NOT_FOUND example.com/m/win
"#,
    );
    let record = c.unresolved_where(|u| u.reason == "PACKAGE_NOT_BUILDABLE");
    assert_eq!(record.requested_package, "example.com/m/win");
    assert_eq!((record.file, record.line, record.source), (None, 0, None));
    assert!(
        // Repository-relative: a generation holds no path of the compiling machine.
        record.detail.as_deref() == Some("build constraints exclude all Go files in win"),
        "{:?}",
        record.detail
    );
}

/// Two `go.mod` files of one repository declaring one module path (a copied tree) once failed
/// the whole compile with a stable-key collision. The first directory keeps the path; the
/// other's packages are named by their directories, and a diagnostic says so.
#[test]
fn a_second_module_with_the_same_path_is_named_by_its_directories() {
    let c = check(
        r#"
//- copies/a/go.mod
module example.com/x
//- copies/a/geo/geo.go
package geo

func Area() int { return 1 }

func Twice() int { return Area() * 2 } //want: CALLS_DIRECT example.com/x/geo:Area
//- copies/b/go.mod
module example.com/x
//- copies/b/geo/geo.go
package geo

func Area() int { return 1 }

func Twice() int { return Area() * 2 } //want: CALLS_DIRECT b/geo:Area
"#,
    );
    let said: Vec<(&str, &str)> = c
        .facts
        .diagnostics
        .iter()
        .map(|d| (d.path.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(
        said,
        [(
            "b/go.mod",
            "declares module example.com/x, as a/go.mod already does; its packages are named by their directories"
        )]
    );
}
