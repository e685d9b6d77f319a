//! Receivers with written types, and members through base classes (MRO, `super()`, closed
//! and open classes, unions).

use super::quiet;
use crate::testing::check;

#[test]
fn self_binds_members_of_the_class() {
    let c = check(
        r#"
//- shop/m.py
class Cart:
    def helper(self):
        return 1

    def total(self):
        return self.helper()  #want: CALLS_DIRECT m:Cart.helper
"#,
    );
    assert_eq!(
        c.edges_at("shop", "m.py", 6),
        ["CALLS_DIRECT m:Cart.helper EXACT_DECLARATION_MAPPED PY_RECEIVER_TYPED"]
    );
}

#[test]
fn annotated_parameters_type_their_receivers() {
    check(
        r#"
//- shop/m.py
from typing import Optional  #want-unresolved: STDLIB_NOT_INDEXED typing

class Order:
    def total(self):
        return 0

def f(o: Order, p: Optional[Order], q: "Order", r: Order | None):  #want: TYPE_USES m:Order
    o.total()  #want: CALLS_DIRECT m:Order.total
    p.total()  #want: CALLS_DIRECT m:Order.total
    q.total()  #want: CALLS_DIRECT m:Order.total
    r.total()  #want: CALLS_DIRECT m:Order.total
"#,
    );
}

#[test]
fn a_variable_assigned_once_is_typed_by_its_value() {
    check(
        r#"
//- shop/m.py
class Order:
    def total(self):
        return 0

def make() -> Order:  #want: TYPE_USES m:Order
    return Order()

store = Order()

def f():
    store.total()  #want: CALLS_DIRECT m:Order.total
    made = make()
    made.total()  #want: CALLS_DIRECT m:Order.total
    make().total()  #want: CALLS_DIRECT m:Order.total
"#,
    );
}

/// A variable assigned twice, once with `None`, has the other assignment's class; two classes
/// leave it to the name.
#[test]
fn a_variable_assigned_twice_is_typed_when_the_values_agree() {
    check(
        r#"
//- shop/m.py
class Order:
    def total(self):
        return 0

class Quote:
    def total(self):
        return 1

def f(flag):
    o = Order()
    if flag:
        o = None
    o.total()  #want: CALLS_DIRECT m:Order.total
    q = Order()
    if flag:
        q = Quote()
    q.total()  #want: CALLS_DIRECT m:Order.total CANDIDATE ; #want: CALLS_DIRECT m:Quote.total CANDIDATE
"#,
    );
}

#[test]
fn loop_variables_over_written_sequences_are_typed() {
    check(
        r#"
//- shop/m.py
class Line:
    def qty(self):
        return 1

def f(lines: list[Line]):
    for line in lines:
        line.qty()  #want: CALLS_DIRECT m:Line.qty
    return [x.qty() for x in lines]  #want: CALLS_DIRECT m:Line.qty
"#,
    );
}

#[test]
fn properties_type_their_receivers_by_return_annotation() {
    check(
        r#"
//- shop/m.py
class Money:
    def cents(self):
        return 0

class Order:
    @property  #want: METHOD_OF m:Order STRUCTURAL_CERTAIN
    def price(self) -> Money:  #want: TYPE_USES m:Money
        return Money()

def f(o: Order):
    return o.price.cents()  #want: REFERENCES m:Order.price ; #want: CALLS_DIRECT m:Money.cents
"#,
    );
}

#[test]
fn dynamic_builtins_have_results_of_unknown_type() {
    check(
        r#"
//- shop/m.py
class Plugin:
    def run(self):
        pass

def f(obj):
    getattr(obj, "plugin").run()  #want: CALLS_DIRECT m:Plugin.run CANDIDATE
"#,
    );
}

#[test]
fn members_are_inherited_from_bases() {
    check(
        r#"
//- shop/m.py
class Base:
    def run(self):
        pass

class Derived(Base):  #want: EXTENDS m:Base STRUCTURAL_CERTAIN
    pass

Derived().run()  #want: CALLS_DIRECT m:Base.run
"#,
    );
}

#[test]
fn the_method_resolution_order_is_c3() {
    // Depth first would find A.f through B; C3 puts C before A.
    check(
        r#"
//- shop/m.py
class A:
    def f(self):
        pass

class B(A):
    pass

class C(A):
    def f(self):  #want: OVERRIDES m:A.f STRUCTURAL_CERTAIN
        pass

class D(B, C):
    def g(self):
        self.f()  #want: CALLS_DIRECT m:C.f ; #want-none: m:A.f
"#,
    );
}

#[test]
fn super_searches_after_the_class_and_overrides_are_structural() {
    check(
        r#"
//- shop/m.py
class Display:
    def width(self):
        return 10

class Wide(Display):
    def width(self):  #want: METHOD_OF m:Wide STRUCTURAL_CERTAIN ; #want: OVERRIDES m:Display.width STRUCTURAL_CERTAIN
        return super().width() * 2  #want: CALLS_DIRECT m:Display.width
"#,
    );
}

#[test]
fn a_self_field_a_base_declares_is_the_bases() {
    let c = check(
        r#"
//- shop/m.py
class Base:
    def __init__(self):
        self.size = 1

class Derived(Base):
    def __init__(self):
        self.size = 2

    def grow(self):
        return self.size  #want: REFERENCES m:Base.size
"#,
    );
    assert!(
        !c.facts
            .symbols
            .iter()
            .any(|s| s.qualified_name == "Derived.size"),
        "Derived.size is the base's field"
    );
}

#[test]
fn a_written_union_binds_exactly_when_one_member_declares() {
    check(
        r#"
//- shop/m.py
class A:
    def only_a(self):
        pass
    def both(self):
        pass

class B:
    def both(self):
        pass

def f(x: A | B):
    x.only_a()  #want: CALLS_DIRECT m:A.only_a
    x.both()  #want: CALLS_DIRECT m:A.both CANDIDATE ; #want: CALLS_DIRECT m:B.both CANDIDATE
"#,
    );
}

#[test]
fn a_closed_class_lacking_the_member_is_not_resolved() {
    let c = check(
        r#"
//- shop/m.py
class Order:
    def total(self):
        return 0

def f(o: Order):
    o.missing()  #want-unresolved: NAME_NOT_RESOLVED m
    o.__dict__
"#,
    );
    quiet(&c, "shop", "m.py", 7);
}

#[test]
fn a_closed_class_lacking_the_member_falls_back_to_candidates() {
    check(
        r#"
//- shop/m.py
class Order:
    pass

class Special(Order):
    def discount(self):
        return 1

def f(o: Order):
    return o.discount()  #want: CALLS_DIRECT m:Special.discount CANDIDATE
"#,
    );
}

#[test]
fn an_open_class_lacking_the_member_is_quiet() {
    let c = check(
        r#"
//- shop/m.py
class Failure(Exception):
    def code(self):
        return 1

def f(e: Failure):
    e.code()  #want: CALLS_DIRECT m:Failure.code
    e.args
"#,
    );
    quiet(&c, "shop", "m.py", 7);
}

/// `with C() as v` types `v` by what `C.__enter__` is declared to return: another class, or the
/// class itself through `Self` or a written `-> "C"`.
#[test]
fn a_with_target_is_what_enter_returns() {
    check(
        r#"
//- shop/m.py
from typing import Self

class Conn:
    def query(self):
        return 1

class Pool:
    def __enter__(self) -> Conn:
        return Conn()

    def __exit__(self, *a):
        return None

class Lock:
    def __enter__(self) -> Self:
        return self

    def release(self):
        return 2

class Named:
    def __enter__(self) -> "Named":
        return self

    def tell(self):
        return 3

def run():
    with Pool() as c:
        c.query()  #want: CALLS_DIRECT m:Conn.query
    with Lock() as l, Named() as n:
        l.release()  #want: CALLS_DIRECT m:Lock.release
        n.tell()  #want: CALLS_DIRECT m:Named.tell
"#,
    );
}

/// `isinstance(x, C)` types `x` as `C` in the branch it guards (a tuple of classes: their
/// union), unless the branch assigns `x`; outside the branch `x` keeps its own type.
#[test]
fn isinstance_narrows_a_local_in_its_branch() {
    check(
        r#"
//- shop/m.py
class Order:
    def total(self):
        return 0

class Refund:
    def total(self):
        return 1
    def reason(self):
        return ""

def f(x, y, z, make):
    if isinstance(x, Order):
        x.total()  #want: CALLS_DIRECT m:Order.total
    if y is not None and isinstance(y, Refund):
        y.reason()  #want: CALLS_DIRECT m:Refund.reason
    if isinstance(z, (Order, Refund)):
        z.total()  #want: CALLS_DIRECT m:Order.total CANDIDATE ; #want: CALLS_DIRECT m:Refund.total CANDIDATE
    if isinstance(y, Order):
        y = make()
        y.reason()  #want: CALLS_DIRECT m:Refund.reason CANDIDATE
    x.reason()  #want: CALLS_DIRECT m:Refund.reason CANDIDATE
"#,
    );
}

/// Mappings and sequences keep their element types: `d.get(k)`, `d[k]`, `d.values()`,
/// iterating a mapping's keys, `xs[i]`, `xs.pop()`; `a or None` is `a`.
#[test]
fn mappings_sequences_and_defaults_keep_the_element_type() {
    check(
        r#"
//- shop/m.py
class Order:
    def total(self):
        return 0

def f(by_id: dict[str, Order], groups: dict[Order, list[Order]], xs: list[Order], o: Order):
    by_id.get("a").total()  #want: CALLS_DIRECT m:Order.total
    by_id["a"].total()  #want: CALLS_DIRECT m:Order.total
    for v in by_id.values():
        v.total()  #want: CALLS_DIRECT m:Order.total
    for k in groups:
        k.total()  #want: CALLS_DIRECT m:Order.total
    for g in groups.get(o, ()):
        g.total()  #want: CALLS_DIRECT m:Order.total
    xs[0].total()  #want: CALLS_DIRECT m:Order.total
    xs.pop().total()  #want: CALLS_DIRECT m:Order.total
    p = o or None
    p.total()  #want: CALLS_DIRECT m:Order.total
"#,
    );
}

/// `try: import ssl` / `except ImportError: ssl = None`: a use of `ssl` is a use of the
/// module's variable, the graph's declaration of the name.
#[test]
fn a_guarded_import_replaced_by_a_variable_binds_the_variable() {
    check(
        r#"
//- shop/m.py
try:
    import ssl  #want-unresolved: STDLIB_NOT_INDEXED ssl
except ImportError:
    ssl = None

def f():
    return ssl  #want: REFERENCES m:ssl
"#,
    );
}

/// `if not isinstance(x, C): return` types `x` as `C` in the rest of the block.
#[test]
fn an_early_exit_unless_isinstance_narrows_the_rest_of_the_block() {
    check(
        r#"
//- shop/m.py
class Order:
    def total(self):
        return 0

class Refund:
    def total(self):
        return 1

def f(x, y):
    if not isinstance(x, Order):
        return None
    x.total()  #want: CALLS_DIRECT m:Order.total
    if not isinstance(y, Order):
        print(y)
    y.total()  #want: CALLS_DIRECT m:Order.total CANDIDATE ; #want: CALLS_DIRECT m:Refund.total CANDIDATE
"#,
    );
}

/// The implementation after `@overload` stubs is a method of its class like any other: its
/// `self` (also after a comment that opens the parameter list) has the class's members.
#[test]
fn self_in_the_implementation_after_overloads_has_the_class_members() {
    check(
        r#"
//- shop/m.py
from typing import overload  #want-unresolved: STDLIB_NOT_INDEXED typing

class Headers:
    def _get_key(self, key):
        return key

    @overload
    def get(self, key: str) -> str: ...
    @overload
    def get(self, key: str, default: str) -> str: ...
    def get(  # type: ignore[misc]
        self, key, default=None
    ):
        return self._get_key(key)  #want: CALLS_DIRECT m:Headers._get_key
"#,
    );
}

/// A local assigned more than once has the class its assignments agree on (`None` and other
/// library values add nothing, nor does a value that reads the local again); when they
/// disagree it is unknown.
#[test]
fn a_local_assigned_several_times_has_the_class_they_agree_on() {
    check(
        r#"
//- shop/m.py
class Node:
    def __init__(self):
        self.next = None

    def label(self):
        return ""

class Edge:
    def label(self):
        return ""

def f(first: Node, flag):
    cur = None
    if flag:
        cur = first
    cur.label()  #want: CALLS_DIRECT m:Node.label
    ptr = first
    while ptr is not None:
        ptr.label()  #want: CALLS_DIRECT m:Node.label
        ptr = ptr.next
    other = Node()
    other = Edge()
    other.label()  #want: CALLS_DIRECT m:Node.label CANDIDATE ; #want: CALLS_DIRECT m:Edge.label CANDIDATE
"#,
    );
}
