//! Structural edges read off declarations: heritage, methods and overrides.

use super::*;

#[test]
fn heritage_names_are_structural_when_they_bind_exactly() {
    let c = check(
        r#"
//- app/src/a.ts
export interface Shape { area(): number } //want: METHOD_OF src/a.ts:Shape STRUCTURAL_CERTAIN
export interface Solid extends Shape {} //want: EXTENDS src/a.ts:Shape STRUCTURAL_CERTAIN
export class Base {}
export class Cube extends Base implements Solid { //want: EXTENDS src/a.ts:Base STRUCTURAL_CERTAIN ; //want: IMPLEMENTS src/a.ts:Solid STRUCTURAL_CERTAIN
  area(): number { return 0; } //want: METHOD_OF src/a.ts:Cube STRUCTURAL_CERTAIN
}
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/a.ts", 4), "TS_DECLARATION").len(),
        2
    );
}

#[test]
fn a_method_overrides_the_same_named_method_of_its_base_class() {
    check(
        r#"
//- app/src/a.ts
export class Animal { speak(): string { return ""; } }
export class Dog extends Animal {
  constructor() { super(); } //want-none: src/a.ts:Animal.constructor
  speak(): string { return "woof"; } //want: OVERRIDES src/a.ts:Animal.speak STRUCTURAL_CERTAIN
}
"#,
    );
}

#[test]
fn a_base_class_in_another_repository_stays_structural() {
    check(
        r#"
//- corelib/package.json
{ "name": "corelib", "main": "src/index.ts" }
//- corelib/src/index.ts
export class Base { run(): void {} }
//- app/package.json
{ "name": "app", "dependencies": { "corelib": "1" } }
//- app/src/a.ts
import { Base } from "corelib";
export class Mine extends Base { //want: EXTENDS src/index.ts:Base STRUCTURAL_CERTAIN
  run(): void {} //want: OVERRIDES src/index.ts:Base.run STRUCTURAL_CERTAIN
}
"#,
    );
}

/// Generic call signatures on consecutive lines without semicolons (which the grammar misreads
/// as one expression, losing the members and declarations after them) are read as TypeScript
/// reads them: the interface keeps every member and the file is not partial.
#[test]
fn consecutive_generic_call_signatures_keep_the_interface_whole() {
    let c = check(
        r#"
//- app/src/wrap.ts
export interface Wrap {
  <T>(v: T): T[]
  <T>(v: T, n: number): T[]
  <T>(v: T, n: number, m: number): T[]
  label: string
}
export class After { run(w: Wrap): string { return w.label; } } //want: REFERENCES src/wrap.ts:Wrap.label
export function later(a: After): After { return a; }
export const use = later(new After()); //want: CALLS_DIRECT src/wrap.ts:later
"#,
    );
    assert!(
        c.facts
            .files
            .iter()
            .all(|f| f.status != kivgraph_format::FileStatus::Partial)
    );
}

/// Overloads and their implementation, and a getter with its setter, are one symbol whose range
/// holds every part, so the row of a use in the implementation or the setter holds the use.
#[test]
fn a_symbol_of_several_parts_spans_them_all() {
    let c = check(
        r#"
//- app/src/conv.ts
export function log(x: unknown): void {}
export function conv(x: string): string;
export function conv(x: number): number;
export function conv(x: any): any {
  log(x); //want: CALLS_DIRECT src/conv.ts:log
  return x;
}
export class Box {
  get size(): number { return 1; }
  other(): void {}
  set size(v: number) {
    log(v); //want: CALLS_DIRECT src/conv.ts:log
  }
  pick(x: string): string;
  pick(x: any): any { return x; }
}
"#,
    );
    assert_eq!(c.lines_of("conv"), (2, 7));
    assert_eq!(c.lines_of("Box.size"), (9, 13));
    assert_eq!(c.lines_of("Box.pick"), (14, 15));
}
