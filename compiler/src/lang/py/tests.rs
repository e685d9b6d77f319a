//! In-memory resolver tests of Python (SPEC section 12): one small annotated fixture per rule,
//! compiled by [`crate::testing::check`]. A target's package is its dotted module name
//! (`pkg.mod:C.m`); a module symbol's qualified name is that name too (`pkg.mod:pkg.mod`).

use crate::testing::{Compiled, check};

/// Asserts that nothing (edge or unresolved record) occurs at `repo/path:line`.
#[track_caller]
fn quiet(c: &Compiled, repo: &str, path: &str, line: u32) {
    assert_eq!(c.edges_at(repo, path, line), Vec::<String>::new());
    assert_eq!(c.unresolved_at(repo, path, line), Vec::<String>::new());
}

// ------------------------------------------------------------------ scopes

#[test]
fn a_module_level_function_binds_by_scope() {
    let c = check(
        r#"
//- shop/m.py
def total():
    return 1

def twice():
    return total() * 2  #want: CALLS_DIRECT m:total
"#,
    );
    assert_eq!(
        c.edges_at("shop", "m.py", 5),
        ["CALLS_DIRECT m:total EXACT_DECLARATION_MAPPED PY_SCOPE"]
    );
}

#[test]
fn a_function_local_shadows_the_module_variable() {
    check(
        r#"
//- shop/m.py
limit = 10

def f():
    limit = 3
    return limit  #want-none: limit

def g():
    return limit  #want: REFERENCES m:limit
"#,
    );
}

#[test]
fn global_names_the_module_variable() {
    check(
        r#"
//- shop/m.py
count = 0

def bump():
    global count
    count += 1  #want: REFERENCES m:count
"#,
    );
}

#[test]
fn a_class_body_does_not_enclose_its_methods() {
    check(
        r#"
//- shop/m.py
class C:
    limit = 1
    twice = limit * 2  #want: REFERENCES m:C.limit

    def m(self):
        return limit  #want-unresolved: NAME_NOT_RESOLVED m ; #want-none: limit
"#,
    );
}

#[test]
fn builtins_give_neither_edge_nor_record() {
    let c = check(
        r#"
//- shop/m.py
def f(xs):
    return len(xs) + undefined_thing  #want-unresolved: NAME_NOT_RESOLVED m
"#,
    );
    assert_eq!(
        c.unresolved_at("shop", "m.py", 2),
        ["NAME_NOT_RESOLVED m"],
        "len is a builtin"
    );
}

#[test]
fn dead_version_branches_are_left_out() {
    let c = check(
        r#"
//- shop/m.py
import sys  #want-unresolved: STDLIB_NOT_INDEXED sys

if sys.version_info < (3, 8):
    old_only()
else:
    new_only()  #want-unresolved: NAME_NOT_RESOLVED m
"#,
    );
    quiet(&c, "shop", "m.py", 4);
}

#[test]
fn the_first_binding_of_a_module_name_wins() {
    check(
        r#"
//- shop/helpers.py
def dumps(x):
    return x
//- shop/m.py
from helpers import dumps  #want: IMPORTS_SYMBOL helpers:dumps

def dumps(x):
    return x

dumps(1)  #want: CALLS_DIRECT helpers:dumps ; #want-none: m
"#,
    );
}

// ------------------------------------------------------------------ imports

#[test]
fn from_import_binds_the_declaration() {
    check(
        r#"
//- shop/pkg/__init__.py
//- shop/pkg/prices.py
def net(x):
    return x
//- shop/app.py
from pkg.prices import net  #want: IMPORTS_SYMBOL pkg.prices:net

net(3)  #want: CALLS_DIRECT pkg.prices:net
"#,
    );
}

#[test]
fn re_exports_are_followed_to_the_declaration() {
    check(
        r#"
//- shop/models/__init__.py
from .order import Order  #want: IMPORTS_SYMBOL models.order:Order
//- shop/models/order.py
class Order:
    pass
//- shop/app.py
from models import Order  #want: IMPORTS_SYMBOL models.order:Order

o = Order()  #want: CALLS_DIRECT models.order:Order
"#,
    );
}

#[test]
fn star_import_follows_all() {
    check(
        r#"
//- shop/lib.py
__all__ = ["shown"]

def shown():
    pass

def hidden():
    pass
//- shop/app.py
from lib import *

shown()  #want: CALLS_DIRECT lib:shown
hidden()  #want-unresolved: NAME_NOT_RESOLVED app ; #want-none: hidden
"#,
    );
}

#[test]
fn star_import_without_all_skips_private_names() {
    check(
        r#"
//- shop/lib.py
def public():
    pass

def _private():
    pass
//- shop/app.py
from lib import *

public()  #want: CALLS_DIRECT lib:public
_private()  #want-unresolved: NAME_NOT_RESOLVED app
"#,
    );
}

#[test]
fn star_import_of_an_outside_module_may_provide_any_name() {
    let c = check(
        r#"
//- shop/app.py
from requests import *  #want-unresolved: IMPORT_NOT_RESOLVED requests

get("x")
"#,
    );
    quiet(&c, "shop", "app.py", 3);
}

#[test]
fn import_of_a_dotted_module_targets_its_module_symbol() {
    check(
        r#"
//- shop/a/__init__.py
//- shop/a/b.py
def f():
    pass
//- shop/app.py
import a.b  #want: IMPORTS_SYMBOL a.b:a.b

a.b.f()  #want: CALLS_DIRECT a.b:f ; #want: REFERENCES a.b:a.b
"#,
    );
}

#[test]
fn from_package_import_submodule_targets_the_submodule() {
    check(
        r#"
//- shop/pkg/__init__.py
//- shop/pkg/sub.py
X = 1
//- shop/app.py
from pkg import sub  #want: IMPORTS_SYMBOL pkg.sub:pkg.sub

print(sub.X)  #want: REFERENCES pkg.sub:X
"#,
    );
}

#[test]
fn a_namespace_package_has_its_submodules() {
    check(
        r#"
//- shop/ns/inner.py
def f():
    pass
//- shop/app.py
from ns import inner  #want: IMPORTS_SYMBOL ns.inner:ns.inner
import ns

ns.inner.f()  #want: CALLS_DIRECT ns.inner:f
ns.other  #want-unresolved: NAME_NOT_RESOLVED ns
"#,
    );
}

#[test]
fn relative_imports_start_from_the_package() {
    check(
        r#"
//- shop/pkg/__init__.py
from . import a  #want: IMPORTS_SYMBOL pkg.a:pkg.a
//- shop/pkg/a.py
def f():
    pass
//- shop/pkg/sub/__init__.py
//- shop/pkg/sub/b.py
from ..a import f  #want: IMPORTS_SYMBOL pkg.a:f
from .. import a  #want: IMPORTS_SYMBOL pkg.a:pkg.a
from ....nowhere import g  #want-unresolved: IMPORT_NOT_RESOLVED ....nowhere
"#,
    );
}

#[test]
fn a_src_directory_is_a_module_root() {
    check(
        r#"
//- shop/src/shop/__init__.py
//- shop/src/shop/core.py
def run():
    pass
//- shop/src/shop/cli.py
from shop.core import run  #want: IMPORTS_SYMBOL shop.core:run
"#,
    );
}

#[test]
fn a_configured_package_dir_is_a_module_root() {
    check(
        r#"
//- shop/setup.cfg
[metadata]
name = shop-tools

[options]
package_dir =
    =lib
//- shop/lib/tools/__init__.py
def tool():
    pass
//- shop/main.py
from tools import tool  #want: IMPORTS_SYMBOL tools:tool
"#,
    );
}

#[test]
fn third_party_imports_are_not_resolved() {
    check(
        r#"
//- shop/app.py
import requests.adapters  #want-unresolved: IMPORT_NOT_RESOLVED requests
from yaml import safe_load  #want-unresolved: IMPORT_NOT_RESOLVED yaml

requests.get("x")
"#,
    );
}

#[test]
fn standard_library_imports_are_not_indexed() {
    let c = check(
        r#"
//- shop/app.py
from __future__ import annotations  #want-unresolved: STDLIB_NOT_INDEXED __future__
import os.path  #want-unresolved: STDLIB_NOT_INDEXED os

os.environ.get("HOME")
"#,
    );
    quiet(&c, "shop", "app.py", 4);
}

#[test]
fn a_module_of_the_repository_shadows_the_standard_library() {
    let c = check(
        r#"
//- shop/json.py
def dumps(x):
    return x
//- shop/app.py
from json import dumps  #want: IMPORTS_SYMBOL json:dumps
"#,
    );
    assert_eq!(c.unresolved_at("shop", "app.py", 1), Vec::<String>::new());
}

#[test]
fn missing_module_attributes_are_not_resolved() {
    check(
        r#"
//- shop/lib.py
def present():
    pass
//- shop/app.py
from lib import absent  #want-unresolved: NAME_NOT_RESOLVED lib
import lib

lib.gone()  #want-unresolved: NAME_NOT_RESOLVED lib
lib.present()  #want: CALLS_DIRECT lib:present
lib.__name__
"#,
    );
}

// ------------------------------------------------------------------ repositories

#[test]
fn imports_across_repositories_are_package_mapped() {
    check(
        r#"
//- corelib/corelib/__init__.py
//- corelib/corelib/money.py
class Money:
    def add(self, other):
        return self
//- app/app.py
from corelib.money import Money  #want: IMPORTS_SYMBOL corelib.money:Money EXACT_PACKAGE_MAPPED

def f(m: Money):
    return m.add(m)  #want: CALLS_DIRECT corelib.money:Money.add EXACT_PACKAGE_MAPPED
"#,
    );
}

#[test]
fn class_across_repositories_keeps_structural_extends() {
    check(
        r#"
//- corelib/corelib/__init__.py
class Base:
    pass
//- app/app.py
from corelib import Base

class Mine(Base):  #want: EXTENDS corelib:Base STRUCTURAL_CERTAIN
    pass
"#,
    );
}

#[test]
fn a_package_that_two_other_repositories_provide_is_not_chosen() {
    check(
        r#"
//- one/util/__init__.py
X = 1
//- two/util/__init__.py
X = 2
//- app/app.py
from util import X  #want-unresolved: IMPORT_NOT_RESOLVED util
"#,
    );
}

// ------------------------------------------------------------------ receivers

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

#[test]
fn a_variable_assigned_twice_is_matched_by_name_only() {
    check(
        r#"
//- shop/m.py
class Order:
    def total(self):
        return 0

def f(flag):
    o = Order()
    if flag:
        o = None
    o.total()  #want: CALLS_DIRECT m:Order.total CANDIDATE
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

// ------------------------------------------------------------------ members and classes

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
        self.f()  #want: CALLS_DIRECT m:C.f ; #want-none: A.f
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

// ------------------------------------------------------------------ name-only fallback

#[test]
fn unknown_receivers_get_name_only_candidates_from_imported_modules() {
    check(
        r#"
//- shop/a.py
class A:
    def run(self):
        pass
//- shop/b.py
class B:
    def run(self):
        pass
//- shop/c.py
class C:
    def run(self):
        pass
//- shop/app.py
import a
from b import B

def f(x):
    x.run()  #want: CALLS_DIRECT a:A.run CANDIDATE ; #want: CALLS_DIRECT b:B.run CANDIDATE ; #want-none: C.run
"#,
    );
}

/// `n` classes `K0` … declaring `run`, and a call of `run` on an unknown receiver.
fn classes_sharing_run(n: usize, want: &str) -> String {
    let mut s = String::from("//- shop/m.py\n");
    for i in 0..n {
        s.push_str(&format!(
            "class K{i}:\n    def run(self):\n        pass\n\n"
        ));
    }
    s.push_str(&format!("def f(x):\n    x.run()  {want}\n"));
    s
}

#[test]
fn eight_candidates_are_the_bound() {
    let c = check(&classes_sharing_run(
        8,
        "#want: CALLS_DIRECT m:K0.run CANDIDATE ; #want: CALLS_DIRECT m:K7.run CANDIDATE",
    ));
    assert_eq!(c.edges_at("shop", "m.py", 34).len(), 8);
}

#[test]
fn nine_candidates_are_an_unknown_receiver() {
    let c = check(&classes_sharing_run(
        9,
        "#want-unresolved: RECEIVER_TYPE_UNKNOWN m ; #want-none: run",
    ));
    let u = c
        .facts
        .unresolved
        .iter()
        .find(|u| u.reason == "RECEIVER_TYPE_UNKNOWN")
        .unwrap();
    assert_eq!(
        u.detail.as_deref(),
        Some("the receiver's type is not written and 9 visible class members share the name")
    );
}

#[test]
fn no_candidate_is_an_unknown_receiver() {
    let c = check(
        r#"
//- shop/m.py
def f(x):
    x.nothing()  #want-unresolved: RECEIVER_TYPE_UNKNOWN m
"#,
    );
    assert_eq!(
        c.facts.unresolved[0].detail.as_deref(),
        Some("the receiver's type is not written and no visible class declares the attribute")
    );
    assert_eq!(
        c.facts.unresolved[0].requested_symbol.as_deref(),
        Some("nothing")
    );
}

// ------------------------------------------------------------------ edge kinds

#[test]
fn callbacks_decorators_and_types_have_their_kinds() {
    check(
        r#"
//- shop/m.py
def key(x):
    return x

def plain(f):
    return f

def factory(n):
    return plain

class Money:
    pass

@plain  #want: REFERENCES m:plain
def a(xs):
    return sorted(xs, key=key)  #want: PASSES_AS_CALLBACK m:key

@factory(1)  #want: CALLS_DIRECT m:factory
def b(m: Money) -> Money:  #want: TYPE_USES m:Money
    return Money  #want: REFERENCES m:Money
"#,
    );
}

#[test]
fn a_stub_beside_its_module_binds_in_its_own_scopes() {
    check(
        r#"
//- shop/fast.py
class Stats:
    pass
//- shop/fast.pyi
class Stats: ...

def make() -> Stats: ...  #want: TYPE_USES fast.pyi:Stats
//- shop/app.py
from fast import Stats  #want: IMPORTS_SYMBOL fast:Stats
"#,
    );
}

#[test]
fn imports_of_compiled_modules_are_package_edges() {
    let c = check(
        r#"
//- shop/pkg/__init__.py
//- shop/pkg/sub.py
X = 1
//- shop/app.py
from pkg import sub  #want: IMPORTS_SYMBOL pkg.sub:pkg.sub
import os  #want-unresolved: STDLIB_NOT_INDEXED os
"#,
    );
    let f = &c.facts;
    let edges: Vec<(&str, &str)> = f
        .package_edges
        .iter()
        .map(|e| {
            (
                f.packages[e.source].name.as_str(),
                f.packages[e.target].name.as_str(),
            )
        })
        .collect();
    // `from pkg import sub` depends on `pkg`, not on `pkg.sub`.
    assert_eq!(edges, [("app", "pkg")]);
}
