//! Edge kinds, stubs and package edges.

use crate::testing::check;

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

/// `@overload` stubs and their implementation, and a property with its setter and deleter, are
/// one symbol whose range holds every part.
#[test]
fn a_symbol_of_several_parts_spans_them_all() {
    let c = check(
        r#"
//- shop/m.py
from typing import overload

def log(x):
    return x

@overload
def conv(x: int) -> int: ...
@overload
def conv(x: str) -> str: ...
def conv(x):
    return log(x)  #want: CALLS_DIRECT m:log

class Box:
    @property
    def size(self):
        return 1

    def other(self):
        return 2

    @size.setter
    def size(self, v):
        log(v)  #want: CALLS_DIRECT m:log
"#,
    );
    assert_eq!(c.lines_of("conv"), (6, 11));
    assert_eq!(c.lines_of("Box.size"), (14, 23));
    // `@size.setter` declares a part of `size`: not a reference of the property to itself.
    assert_eq!(c.edges_at("shop", "m.py", 21), Vec::<String>::new());
}
