//! Names: lexical scopes, hoisting, shadowing, values and types kept apart, globals and the
//! declarations of script files.

use super::*;

#[test]
fn a_module_level_function_binds_by_scope() {
    let c = check(
        r#"
//- app/src/a.ts
export function area(): number { return 1; }
export function twice(): number { return area() * 2; } //want: CALLS_DIRECT src/a.ts:area
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/a.ts", 2), "TS_SCOPE"),
        ["CALLS_DIRECT src/a.ts:area EXACT_DECLARATION_MAPPED"]
    );
}

#[test]
fn functions_are_hoisted() {
    check(
        r#"
//- app/src/a.ts
export function first(): number { return later(); } //want: CALLS_DIRECT src/a.ts:later
function later(): number { return 2; }
"#,
    );
}

#[test]
fn locals_and_parameters_shadow_module_names() {
    check(
        r#"
//- app/src/a.ts
export const LIMIT = 3;
export function count(LIMIT: number): number {
  return LIMIT; //want-none: LIMIT
}
export function block(): number {
  { const LIMIT = 9; return LIMIT; } //want-none: LIMIT
}
export function outer(): number { return LIMIT; } //want: REFERENCES src/a.ts:LIMIT
"#,
    );
}

#[test]
fn a_name_declared_nowhere_is_unresolved_in_its_own_module() {
    let c = check(
        r#"
//- app/src/a.ts
export function f(): number { return missing(); } //want-unresolved: DECLARATION_NOT_FOUND src/a.ts
"#,
    );
    let u = &c.facts.unresolved[0];
    assert_eq!(u.requested_symbol.as_deref(), Some("missing"));
    assert_eq!(
        u.detail.as_deref(),
        Some("declared nowhere in scope and not a standard global")
    );
}

#[test]
fn standard_globals_are_neither_edges_nor_records() {
    let c = check(
        r#"
//- app/src/a.ts
export function log(): void { console.log(JSON.stringify([1])); } //want-none: console
"#,
    );
    assert!(c.facts.unresolved.is_empty(), "{:?}", c.facts.unresolved);
}

#[test]
fn values_and_types_of_one_name_are_kept_apart() {
    let c = check(
        r#"
//- app/src/a.ts
export interface Point { x: number }
export const Point = { origin: 0 };
export function f(p: Point): number { //want: TYPE_USES src/a.ts:Point
  return Point.origin; //want: REFERENCES src/a.ts:Point
}
"#,
    );
    assert_eq!(
        target_kinds(&c, ("app", "src/a.ts", 3), "Point"),
        ["interface"]
    );
    assert_eq!(
        target_kinds(&c, ("app", "src/a.ts", 4), "Point"),
        ["constant"]
    );
}

#[test]
fn typeof_in_a_type_binds_the_value() {
    check(
        r#"
//- app/src/a.ts
export const defaults = { size: 1 };
export type Defaults = typeof defaults; //want: TYPE_USES src/a.ts:defaults
"#,
    );
}

#[test]
fn a_script_files_declarations_are_global_to_its_repository() {
    check(
        r#"
//- app/src/globals.d.ts
declare function helper(): void;
//- app/src/a.ts
export function f(): void { helper(); } //want: CALLS_DIRECT src/globals.d.ts:helper
"#,
    );
}

#[test]
fn a_global_declared_by_two_scripts_is_a_name_only_candidate() {
    let c = check(
        r#"
//- app/src/one.js
function shared() {}
//- app/src/two.js
function shared() {}
//- app/src/a.ts
export function f(): void { shared(); } //want: CALLS_DIRECT src/one.js:shared CANDIDATE ; //want: CALLS_DIRECT src/two.js:shared CANDIDATE
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/a.ts", 1), "TS_NAME_ONLY").len(),
        2
    );
}

#[test]
fn a_function_passed_by_name_is_a_callback() {
    check(
        r#"
//- app/src/a.ts
function double(n: number): number { return n * 2; }
export const out = [1, 2].map(double); //want: PASSES_AS_CALLBACK src/a.ts:double
"#,
    );
}
