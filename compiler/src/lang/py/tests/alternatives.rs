//! Alternative declarations of one name (SPEC 12.4): the declaration the binding did not pick
//! gets a `CANDIDATE` edge at every use of the one it picked.

use crate::testing::check;

#[test]
fn a_stub_beside_its_module_answers_for_the_same_declaration() {
    check(
        r#"
//- shop/fastmath.py
class Stats:
    def spread(self):
        return 0
//- shop/fastmath.pyi
class Stats:
    def spread(self) -> float: ...
//- shop/app.py
from fastmath import Stats  #want: IMPORTS_SYMBOL fastmath:Stats ; #want: IMPORTS_SYMBOL fastmath.pyi:Stats CANDIDATE

s: Stats = Stats()  #want: TYPE_USES fastmath:Stats ; #want: TYPE_USES fastmath.pyi:Stats CANDIDATE ; #want: CALLS_DIRECT fastmath:Stats ; #want: CALLS_DIRECT fastmath.pyi:Stats CANDIDATE
s.spread()  #want: CALLS_DIRECT fastmath:Stats.spread ; #want: CALLS_DIRECT fastmath.pyi:Stats.spread CANDIDATE
"#,
    );
}

#[test]
fn a_stub_declaration_the_module_imports_answers_for_what_the_import_binds() {
    check(
        r#"
//- shop/lib/__init__.py
from ._impl import Marker  #want: IMPORTS_SYMBOL lib._impl:Marker ; #want: IMPORTS_SYMBOL lib.pyi:Marker CANDIDATE
//- shop/lib/__init__.pyi
class Marker:
    def name(self) -> str: ...
//- shop/lib/_impl.py
class Marker:
    def name(self):
        return "m"
//- shop/app.py
from lib import Marker  #want: IMPORTS_SYMBOL lib._impl:Marker ; #want: IMPORTS_SYMBOL lib.pyi:Marker CANDIDATE

Marker().name()  #want: CALLS_DIRECT lib._impl:Marker ; #want: CALLS_DIRECT lib.pyi:Marker CANDIDATE ; #want: CALLS_DIRECT lib._impl:Marker.name ; #want: CALLS_DIRECT lib.pyi:Marker.name CANDIDATE
"#,
    );
}

#[test]
fn a_guarded_import_and_its_fallback_are_alternatives() {
    check(
        r#"
//- shop/speedups.py
def total(xs):
    return 0
//- shop/other.py
def total(xs):
    return 1
//- shop/calc.py
from other import total as other_total

try:
    from speedups import total  #want: IMPORTS_SYMBOL speedups:total ; #want: IMPORTS_SYMBOL calc:total CANDIDATE
except ImportError:

    def total(xs):
        return sum(xs)


def report(xs):
    return total(xs)  #want: CALLS_DIRECT speedups:total ; #want: CALLS_DIRECT calc:total CANDIDATE


class Cart:
    def total(self):
        return 0

    def sum(self):
        return self.total()  #want: CALLS_DIRECT calc:Cart.total ; #want-none: calc:total


def both(xs):
    return other_total(xs)  #want: CALLS_DIRECT other:total ; #want-none: calc:total
//- shop/report.py
from calc import total  #want: IMPORTS_SYMBOL speedups:total ; #want: IMPORTS_SYMBOL calc:total CANDIDATE

total([1])  #want: CALLS_DIRECT speedups:total ; #want: CALLS_DIRECT calc:total CANDIDATE
"#,
    );
}

#[test]
fn a_guarded_module_import_and_its_fallback_variable_are_alternatives() {
    check(
        r#"
//- shop/anyio/__init__.py
class Lock:
    pass
//- shop/sync.py
try:
    import anyio
except ImportError:
    anyio = None


def make():
    return anyio.Lock()  #want: CALLS_DIRECT anyio:Lock ; #want: REFERENCES sync:anyio CANDIDATE
"#,
    );
}
