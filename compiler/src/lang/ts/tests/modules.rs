//! Modules: imports, re-export chains, namespace imports, CommonJS, module specifiers, packages
//! and bindings across repositories.

use super::*;

#[test]
fn a_named_import_binds_to_the_declaration() {
    let c = check(
        r#"
//- app/src/money.ts
export function sum(a: number, b: number): number { return a + b; }
//- app/src/cart.ts
import { sum } from "./money"; //want: IMPORTS_SYMBOL src/money.ts:sum
export const total = sum(1, 2); //want: CALLS_DIRECT src/money.ts:sum
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/cart.ts", 2), "TS_MODULE_BINDING"),
        ["CALLS_DIRECT src/money.ts:sum EXACT_DECLARATION_MAPPED"]
    );
}

#[test]
fn an_import_follows_reexport_chains_and_renames() {
    check(
        r#"
//- app/src/model/shelf.ts
export class Shelf {}
//- app/src/model/index.ts
export { Shelf as Rack } from "./shelf"; //want: REEXPORTS src/model/shelf.ts:Shelf
//- app/src/index.ts
export * from "./model/index";
//- app/src/main.ts
import { Rack } from "./index"; //want: IMPORTS_SYMBOL src/model/shelf.ts:Shelf
export const r = new Rack(); //want: CALLS_DIRECT src/model/shelf.ts:Shelf
"#,
    );
}

#[test]
fn a_default_import_binds_to_the_default_export() {
    check(
        r#"
//- app/src/store.ts
const status = "idle";
export default status; //want: EXPORTS src/store.ts:status
//- app/src/main.ts
import current from "./store"; //want: IMPORTS_SYMBOL src/store.ts:status
"#,
    );
}

#[test]
fn a_namespace_import_binds_its_members_and_misses_what_is_not_exported() {
    check(
        r#"
//- app/src/util.ts
export function slug(s: string): string { return s; }
//- app/src/main.ts
import * as util from "./util";
export const a = util.slug("x"); //want: CALLS_DIRECT src/util.ts:slug
export const b = util.nothing; //want-unresolved: EXPORT_NOT_FOUND src/util.ts
"#,
    );
}

#[test]
fn a_name_the_module_does_not_export_is_export_not_found() {
    let c = check(
        r#"
//- app/src/util.ts
export const one = 1;
//- app/src/main.ts
import { two } from "./util"; //want-unresolved: EXPORT_NOT_FOUND src/util.ts
export { three } from "./util"; //want-unresolved: EXPORT_NOT_FOUND src/util.ts
"#,
    );
    assert_eq!(
        details(&c),
        [
            "\"./util\" does not export it",
            "\"./util\" does not export it"
        ]
    );
}

#[test]
fn reexport_cycles_are_cut() {
    check(
        r#"
//- app/src/a.ts
export * from "./b";
export const fromA = 1;
//- app/src/b.ts
export * from "./a";
//- app/src/main.ts
import { fromA } from "./b"; //want: IMPORTS_SYMBOL src/a.ts:fromA
import { nowhere } from "./b"; //want-unresolved: EXPORT_NOT_FOUND src/b.ts
"#,
    );
}

#[test]
fn a_relative_specifier_without_a_file_is_module_not_resolved() {
    let c = check(
        r#"
//- app/src/main.ts
import { x } from "./gone"; //want-unresolved: MODULE_NOT_RESOLVED ./gone
"#,
    );
    assert_eq!(details(&c), ["no compiled file matches the specifier"]);
}

#[test]
fn a_js_extension_names_the_typescript_source() {
    check(
        r#"
//- app/src/clock.mts
export const now = 0;
//- app/src/main.ts
import { now } from "./clock.mjs"; //want: IMPORTS_SYMBOL src/clock.mts:now
"#,
    );
}

#[test]
fn an_unprovided_package_is_recorded_once_and_its_members_are_not_guessed() {
    let c = check(
        r#"
//- app/src/main.ts
import { debounce } from "lodash"; //want-unresolved: PACKAGE_PROVIDER_NOT_FOUND lodash
import { readFileSync } from "node:fs/promises"; //want-unresolved: PACKAGE_PROVIDER_NOT_FOUND node:fs
export const d = debounce.cancel(); //want-none: cancel
"#,
    );
    assert_eq!(
        details(&c),
        ["import \"lodash\"", "import \"node:fs/promises\""]
    );
}

#[test]
fn a_package_two_other_repositories_provide_is_ambiguous() {
    let c = check(
        r#"
//- one/package.json
{ "name": "dup", "main": "index.ts" }
//- one/index.ts
export const x = 1;
//- two/package.json
{ "name": "dup", "main": "index.ts" }
//- two/index.ts
export const x = 2;
//- app/src/main.ts
import { x } from "dup"; //want-unresolved: AMBIGUOUS_PACKAGE_PROVIDER dup
"#,
    );
    assert_eq!(
        c.unresolved_at("app", "src/main.ts", 1),
        ["AMBIGUOUS_PACKAGE_PROVIDER dup"]
    );
}

#[test]
fn a_package_of_another_repository_binds_by_package() {
    let c = check(
        r#"
//- corelib/package.json
{ "name": "@acme/corelib", "exports": { ".": "./dist/index.js", "./money": "./src/money.ts" } }
//- corelib/src/index.ts
export class Ledger { total(): number { return 0; } }
//- corelib/src/money.ts
export function cents(): number { return 1; }
//- webapp/package.json
{ "name": "webapp", "dependencies": { "@acme/corelib": "1" } }
//- webapp/src/main.ts
import { Ledger } from "@acme/corelib"; //want: IMPORTS_SYMBOL src/index.ts:Ledger EXACT_PACKAGE_MAPPED
import { cents } from "@acme/corelib/money"; //want: IMPORTS_SYMBOL src/money.ts:cents EXACT_PACKAGE_MAPPED
export function run(l: Ledger): number { //want: TYPE_USES src/index.ts:Ledger EXACT_PACKAGE_MAPPED
  return l.total() + cents(); //want: CALLS_DIRECT src/index.ts:Ledger.total EXACT_PACKAGE_MAPPED
}
"#,
    );
    let deps: Vec<_> = c
        .facts
        .package_edges
        .iter()
        .map(|e| (e.confidence.as_str(), e.provenance.as_str()))
        .collect();
    assert_eq!(
        deps,
        [
            ("EXACT_PACKAGE_MAPPED", "TS_IMPORT"),
            ("EXACT_PACKAGE_MAPPED", "TS_IMPORT")
        ]
    );
}

#[test]
fn tsconfig_paths_map_an_alias() {
    check(
        r#"
//- app/tsconfig.json
{
  // comments and trailing commas are allowed
  "compilerOptions": { "baseUrl": ".", "paths": { "@/util/*": ["src/util/*"], }, },
}
//- app/src/util/strings.ts
export function slug(s: string): string { return s; }
//- app/src/main.ts
import { slug } from "@/util/strings"; //want: IMPORTS_SYMBOL src/util/strings.ts:slug
import { none } from "@/util/gone"; //want-unresolved: MODULE_NOT_RESOLVED @/util/gone
"#,
    );
}

#[test]
fn commonjs_require_and_exports_bind() {
    check(
        r#"
//- legacy/lib/format.js
exports.pad = function (s) { return s; };
//- legacy/lib/main.js
const format = require("./format");
const { pad } = require("./format"); //want: IMPORTS_SYMBOL lib/format.js:pad
module.exports.run = function () { return format.pad("x") + pad("y"); }; //want: CALLS_DIRECT lib/format.js:pad
"#,
    );
}

#[test]
fn import_require_binds_what_export_equals_names() {
    check(
        r#"
//- app/src/clock.ts
class Clock { now(): number { return 0; } }
export = Clock; //want: EXPORTS src/clock.ts:Clock
//- app/src/main.ts
import Clock = require("./clock"); //want: IMPORTS_SYMBOL src/clock.ts:Clock
export const t = new Clock().now(); //want: CALLS_DIRECT src/clock.ts:Clock.now
"#,
    );
}

/// `import X = NS.Y` declares an alias: its uses bind to it, even where a library global has
/// the same name, its target is a reference, and a value typed by it has the target's members.
#[test]
fn an_import_equals_alias_is_a_declaration_that_names_its_target() {
    check(
        r#"
//- app/src/o.ts
export namespace O {
  export interface Option { x: number }
  export function make(): number { return 1; }
}
//- app/src/use.ts
import { O } from "./o"; //want: IMPORTS_SYMBOL src/o.ts:O
import Option = O.Option; //want: REFERENCES src/o.ts:O ; //want: REFERENCES src/o.ts:O.Option
export import make = O.make; //want: REFERENCES src/o.ts:O ; //want: REFERENCES src/o.ts:O.make
export function f(o: Option): number { //want: TYPE_USES src/use.ts:Option
  return o.x + make(); //want: REFERENCES src/o.ts:O.Option.x ; //want: CALLS_DIRECT src/use.ts:make
}
"#,
    );
}
