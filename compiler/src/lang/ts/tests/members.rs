//! Members: receivers typed by written types, unions, inheritance, namespaces and enums, and the
//! name-only fallback with its bound.

use super::*;

#[test]
fn a_parameter_with_a_written_type_types_its_members() {
    let c = check(
        r#"
//- app/src/order.ts
export class Order { total(): number { return 0; } }
export function pay(o: Order): number {
  return o.total(); //want: CALLS_DIRECT src/order.ts:Order.total
}
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/order.ts", 3), "TS_RECEIVER_TYPED").len(),
        1
    );
}

#[test]
fn this_new_and_declared_return_types_type_receivers() {
    check(
        r#"
//- app/src/cart.ts
export class Cart {
  items: number[] = [];
  size(): number { return this.items.length; } //want: REFERENCES src/cart.ts:Cart.items
  self(): Cart { return this; }
}
export function make(): Cart { return new Cart(); }
export const a = new Cart().size(); //want: CALLS_DIRECT src/cart.ts:Cart.size
export const b = make().self().size(); //want: CALLS_DIRECT src/cart.ts:Cart.self ; //want: CALLS_DIRECT src/cart.ts:Cart.size
"#,
    );
}

#[test]
fn members_are_inherited_through_extends() {
    check(
        r#"
//- app/src/shapes.ts
export class Shape { area(): number { return 0; } }
export class Square extends Shape {}
export function f(s: Square): number { return s.area(); } //want: CALLS_DIRECT src/shapes.ts:Shape.area
"#,
    );
}

#[test]
fn a_member_a_closed_type_lacks_is_declaration_not_found() {
    let c = check(
        r#"
//- app/src/shapes.ts
export class Shape { area(): number { return 0; } }
export function f(s: Shape): number { return s.volume(); } //want-unresolved: DECLARATION_NOT_FOUND src/shapes.ts
export function g(s: Shape): string { return s.toString(); } //want-none: toString
"#,
    );
    assert_eq!(details(&c), ["Shape declares no member volume"]);
}

#[test]
fn a_union_binds_exactly_when_one_member_type_declares_the_name() {
    let c = check(
        r#"
//- app/src/pets.ts
export class Cat { purr(): void {} name = "c"; }
export class Dog { name = "d"; }
export function f(p: Cat | Dog): void {
  p.purr(); //want: CALLS_DIRECT src/pets.ts:Cat.purr
  if (p instanceof Cat) {}
  p.name; //want: REFERENCES src/pets.ts:Cat.name CANDIDATE ; //want: REFERENCES src/pets.ts:Dog.name CANDIDATE
}
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/pets.ts", 6), "TS_UNION_MEMBER").len(),
        2
    );
}

/// A property of a union that cannot have been narrowed (no condition, no assignment reaches
/// the value) is the property of every member type: TypeScript's union property. Each member
/// type's declaration is used, exactly; a narrowable value keeps candidates.
#[test]
fn a_union_that_cannot_be_narrowed_uses_every_member_types_property() {
    let c = check(
        r#"
//- app/src/pets.ts
export interface Animal { legs: number }
export interface Cat extends Animal { kind: "cat"; name: string }
export interface Dog extends Animal { kind: "dog"; name: string }
export function f(p: Cat | Dog): string {
  p.legs; //want: REFERENCES src/pets.ts:Animal.legs
  return p.name; //want: REFERENCES src/pets.ts:Cat.name ; //want: REFERENCES src/pets.ts:Dog.name
}
export function g(x: unknown): void {
  const p = x as Cat | Dog;
  p.kind; //want: REFERENCES src/pets.ts:Cat.kind ; //want: REFERENCES src/pets.ts:Dog.kind
  const q = p;
  q.name; //want: REFERENCES src/pets.ts:Cat.name ; //want: REFERENCES src/pets.ts:Dog.name
}
export function h(p: Cat | Dog): void {
  switch (p.kind) {
    case "cat":
      p.name; //want: REFERENCES src/pets.ts:Cat.name ; //want-none: src/pets.ts:Dog.name
  }
}
export function k(p: Cat | Dog, o: Cat | Dog): void {
  const q = p;
  if (p.kind === "cat") q.name; //want: REFERENCES src/pets.ts:Cat.name CANDIDATE ; //want: REFERENCES src/pets.ts:Dog.name CANDIDATE
  o = p;
  o.name; //want: REFERENCES src/pets.ts:Cat.name CANDIDATE ; //want: REFERENCES src/pets.ts:Dog.name CANDIDATE
  let r: Cat | Dog = p;
  r.name; //want: REFERENCES src/pets.ts:Cat.name CANDIDATE ; //want: REFERENCES src/pets.ts:Dog.name CANDIDATE
  const s = (p.legs > 1 && p) || o;
  s.legs;
}
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/pets.ts", 6), "TS_UNION_MEMBER").len(),
        2
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/pets.ts", 5), "TS_RECEIVER_TYPED").len(),
        1
    );
}

#[test]
fn an_intersection_has_the_members_of_each_part() {
    check(
        r#"
//- app/src/mix.ts
export interface Named { name: string }
export interface Aged { age: number }
export function f(p: Named & Aged): number { return p.age; } //want: REFERENCES src/mix.ts:Aged.age
"#,
    );
}

/// The standard library's generic containers keep their element types: what `find`, `get`,
/// `values()`, `entries()` return, what their callbacks receive, tuples by position, and the
/// left of `x ?? {}`.
#[test]
fn library_containers_tuples_and_defaults_keep_the_element_type() {
    check(
        r#"
//- app/src/a.ts
export interface Item { price: number; name: string }
export type Pair = [Item, number];
export type Named = Item & { label: string };
export function f(items: Item[], byName: Map<string, Item>, seen: Set<Item>, pair: Pair, o?: Item): void {
  items.find((i) => i.price > 1)?.name; //want: REFERENCES src/a.ts:Item.price ; //want: REFERENCES src/a.ts:Item.name
  items.map((i) => i.name); //want: REFERENCES src/a.ts:Item.name
  items.reduce((sum, i) => sum + i.price, 0); //want: REFERENCES src/a.ts:Item.price
  byName.get("a")?.price; //want: REFERENCES src/a.ts:Item.price
  byName.forEach((v, k) => v.name); //want: REFERENCES src/a.ts:Item.name
  for (const v of byName.values()) v.price; //want: REFERENCES src/a.ts:Item.price
  for (const [k, v] of byName) v.name; //want: REFERENCES src/a.ts:Item.name
  for (const e of byName.entries()) e[1].price; //want: REFERENCES src/a.ts:Item.price
  for (const s of seen) s.name; //want: REFERENCES src/a.ts:Item.name
  pair[0].price; //want: REFERENCES src/a.ts:Item.price
  const [first, count] = pair;
  first.name; //want: REFERENCES src/a.ts:Item.name
  const { price } = o ?? {}; //want: REFERENCES src/a.ts:Item.price
}
export function g(n: Named): string {
  return n.name + n.label; //want: REFERENCES src/a.ts:Item.name
}
"#,
    );
}

/// A callback passed to a local function value receives the type that function's parameter
/// writes.
#[test]
fn a_callback_of_a_local_function_value_is_typed_by_its_parameter() {
    check(
        r#"
//- app/src/a.ts
export interface Win { size: number }
export function f(all: Win[]): void {
  const each = (cb: (w: Win) => void) => all.forEach(cb);
  each((w) => w.size); //want: REFERENCES src/a.ts:Win.size
}
"#,
    );
}

/// A computed key of a property signature (`[KEY]: T`) is a use of the constant it names.
#[test]
fn a_computed_property_signature_key_is_a_use() {
    check(
        r#"
//- app/src/a.ts
export const KEY: unique symbol = Symbol("k");
export type Branded = { [KEY]: true }; //want: REFERENCES src/a.ts:KEY
export interface Keyed { [KEY]: number } //want: REFERENCES src/a.ts:KEY
"#,
    );
}

/// A member no type of a union declares, while one of them has unknown members, may be
/// declared there: it is matched by name, not taken for a library member.
#[test]
fn a_union_with_an_unknown_part_is_not_a_library_value() {
    check(
        r#"
//- app/src/a.ts
export interface Foo { a: number }
export interface Bar { zz: number }
export function f<T>(x: Foo | T, y: Foo | string): void {
  x.zz; //want: REFERENCES src/a.ts:Bar.zz CANDIDATE
  y.length; //want-none: length
}
"#,
    );
}

/// `if (x instanceof C)` types `x` as `C` in the branch, unless the branch assigns it.
#[test]
fn instanceof_narrows_a_local_in_its_branch() {
    check(
        r#"
//- app/src/a.ts
export class Cat { purr(): void {} }
export class Dog { bark(): void {} }
export function f(p: unknown, q: unknown): void {
  if (p instanceof Cat) {
    p.purr(); //want: CALLS_DIRECT src/a.ts:Cat.purr
  }
  if (q !== null && q instanceof Dog) q.bark(); //want: CALLS_DIRECT src/a.ts:Dog.bark
  if (q instanceof Cat) {
    q = new Dog();
    q.bark(); //want: CALLS_DIRECT src/a.ts:Dog.bark CANDIDATE
  }
}
"#,
    );
}

#[test]
fn arrays_promises_and_mapped_types_keep_the_element_type() {
    check(
        r#"
//- app/src/a.ts
export class Item { price = 1; }
export async function f(items: Item[], later: Promise<Item>, p: Partial<Item>): Promise<number> {
  for (const it of items) { it.price; } //want: REFERENCES src/a.ts:Item.price
  const first = items[0].price; //want: REFERENCES src/a.ts:Item.price
  const l = (await later).price; //want: REFERENCES src/a.ts:Item.price
  return p.price ?? 0; //want: REFERENCES src/a.ts:Item.price
}
"#,
    );
}

#[test]
fn an_object_type_literal_types_its_properties() {
    check(
        r#"
//- app/src/a.ts
export class Money { cents = 0; }
export function f(o: { total: Money }): number { return o.total.cents; } //want: REFERENCES src/a.ts:Money.cents
"#,
    );
}

#[test]
fn a_callback_parameter_is_typed_by_the_callees_function_type() {
    check(
        r#"
//- app/src/a.ts
export class Order { total(): number { return 0; } }
export function each(cb: (o: Order) => void): void {}
each((o) => o.total()); //want: CALLS_DIRECT src/a.ts:Order.total
"#,
    );
}

#[test]
fn a_variable_typed_by_a_type_parameter_has_its_constraint() {
    check(
        r#"
//- app/src/a.ts
export class Base { id = 1; }
export function f<T extends Base>(x: T): number {
  const y: T = x;
  return y.id; //want: REFERENCES src/a.ts:Base.id
}
"#,
    );
}

#[test]
fn namespace_and_enum_members_bind_through_their_container() {
    let c = check(
        r#"
//- app/src/a.ts
export enum Tone { Neutral, Danger }
export namespace Geo { export function area(): number { return 0; } }
export const t = Tone.Danger; //want: REFERENCES src/a.ts:Tone.Danger
export const a = Geo.area(); //want: CALLS_DIRECT src/a.ts:Geo.area
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/a.ts", 4), "TS_MODULE_BINDING"),
        ["CALLS_DIRECT src/a.ts:Geo.area EXACT_DECLARATION_MAPPED"]
    );
}

#[test]
fn a_qualifier_binds_the_merged_declaration_that_declares_the_member() {
    let c = check(
        r#"
//- app/src/a.ts
export function build(): number { return 0; }
export namespace build { export const version = 1; }
export const v = build.version; //want: REFERENCES src/a.ts:build ; //want: REFERENCES src/a.ts:build.version
"#,
    );
    assert_eq!(
        target_kinds(&c, ("app", "src/a.ts", 3), "build"),
        ["namespace"]
    );
}

#[test]
fn a_member_of_an_unknown_receiver_is_a_name_only_candidate() {
    let c = check(
        r#"
//- app/src/a.ts
export class Report { section(): void {} }
export function f(r: any): void { r.section(); } //want: CALLS_DIRECT src/a.ts:Report.section CANDIDATE
"#,
    );
    assert_eq!(
        with_provenance(&c, ("app", "src/a.ts", 2), "TS_NAME_ONLY").len(),
        1
    );
}

#[test]
fn name_only_candidates_come_from_the_module_and_its_imports_only() {
    check(
        r#"
//- app/src/far.ts
export class Far { run(): void {} }
//- app/src/near.ts
import { Far } from "./far";
export class Near { run(): void {} }
//- app/src/a.ts
import { Near } from "./near";
export function f(x: any): void { x.run(); } //want: CALLS_DIRECT src/near.ts:Near.run CANDIDATE ; //want-none: Far
"#,
    );
}

/// `n` classes, each with a method `run`, and an untyped call of it on line `n + 2` of
/// `src/a.ts`.
fn classes_with_run(n: usize) -> String {
    let mut s = String::from("//- app/src/a.ts\n");
    for i in 0..n {
        s.push_str(&format!("export class C{i} {{ run(): void {{}} }}\n"));
    }
    s.push_str("export function f(x: any): void {\n  x.run();\n}\n");
    s
}

#[test]
fn eight_same_named_members_are_all_candidates() {
    let mut fixture = classes_with_run(8);
    fixture = fixture.replace(
        "  x.run();",
        "  x.run(); //want: CALLS_DIRECT src/a.ts:C7.run CANDIDATE",
    );
    let c = check(&fixture);
    assert_eq!(c.edges_at("app", "src/a.ts", 10).len(), 8);
}

#[test]
fn nine_same_named_members_are_receiver_type_unknown() {
    let fixture = classes_with_run(9).replace(
        "  x.run();",
        "  x.run(); //want-unresolved: RECEIVER_TYPE_UNKNOWN src/a.ts",
    );
    let c = check(&fixture);
    assert!(c.edges_at("app", "src/a.ts", 11).is_empty());
    assert_eq!(
        details(&c),
        ["the receiver's type is not written and 9 visible members share the name"]
    );
}

#[test]
fn a_member_no_visible_type_declares_is_receiver_type_unknown() {
    let c = check(
        r#"
//- app/src/a.ts
export function f(x: any): void { x.launch(); } //want-unresolved: RECEIVER_TYPE_UNKNOWN src/a.ts
"#,
    );
    assert_eq!(
        details(&c),
        ["the receiver's type is not written and no visible type declares the member"]
    );
}

#[test]
fn a_jsx_attribute_references_the_props_property() {
    check(
        r#"
//- ui/src/Button.tsx
export interface ButtonProps { label: string }
export function Button(props: ButtonProps) { return null; }
export const save = <Button label="Save" />; //want: REFERENCES src/Button.tsx:Button ; //want: REFERENCES src/Button.tsx:ButtonProps.label
"#,
    );
}

/// A `switch` with a case per member of a union: each case binds to its member's property, and
/// each member's discriminant is searched once for the whole switch, not once per case (a union
/// of 4,000 took 2.2 s to resolve that way).
#[test]
fn a_switch_over_a_large_union_searches_each_members_discriminant_once() {
    let n = 30;
    let mut src = String::from("\n//- app/src/u.ts\n");
    for i in 0..n {
        src += &format!("export interface K{i} {{ countedKind: \"k{i}\"; f{i}: number }}\n");
    }
    src += &format!(
        "export type U = {};\nexport function f(u: U): number {{\n  switch (u.countedKind) {{\n",
        (0..n)
            .map(|i| format!("K{i}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    for i in 0..n {
        src +=
            &format!("    case \"k{i}\": return u.f{i}; //want: REFERENCES src/u.ts:K{i}.f{i}\n");
    }
    src += "  }\n  return 0;\n}\n";
    use crate::lang::ts::resolve::{COUNTED_KEY, DISCRIMINANT_SEARCHES};
    use std::sync::atomic::Ordering;
    assert!(src.contains(COUNTED_KEY));
    let before = DISCRIMINANT_SEARCHES.load(Ordering::Relaxed);
    check(&src);
    let searches = DISCRIMINANT_SEARCHES.load(Ordering::Relaxed) - before;
    assert!(searches > 0, "no discriminant was searched");
    assert!(
        searches <= 2 * n,
        "{searches} searches for {n} members and {n} cases"
    );
}
