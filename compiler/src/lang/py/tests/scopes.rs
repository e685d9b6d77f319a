//! Scopes: LEGB in the file, `global`, class bodies, builtins, dead branches, first bindings.

use super::quiet;
use crate::testing::check;

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
