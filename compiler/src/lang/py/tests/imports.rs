//! Imports: modules and module roots, re-exports, `*` and `__all__`, submodules, namespace
//! packages, relative imports, the standard library and third-party modules, repositories.

use super::quiet;
use crate::testing::check;

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
