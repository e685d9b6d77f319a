//! The name-only `CANDIDATE` fallback and its bound of 8.

use super::detail_of;
use crate::testing::{Compiled, check};

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
    x.run()  #want: CALLS_DIRECT a:A.run CANDIDATE ; #want: CALLS_DIRECT b:B.run CANDIDATE ; #want-none: c:C.run
"#,
    );
}

/// Compiles `n` classes `K0` … declaring `run`, and a call of `run` on an unknown receiver
/// (line `4 n + 2` of `m.py`) annotated with `want`.
fn classes_sharing_run(n: usize, want: &str) -> Compiled {
    let classes: String = (0..n)
        .map(|i| format!("class K{i}:\n    def run(self):\n        pass\n\n"))
        .collect();
    check(&format!(
        "//- shop/m.py\n{classes}def f(x):\n    x.run()  {want}\n"
    ))
}

#[test]
fn eight_candidates_are_the_bound() {
    let want = "#want: CALLS_DIRECT m:K0.run CANDIDATE ; #want: CALLS_DIRECT m:K7.run CANDIDATE";
    let c = classes_sharing_run(8, want);
    assert_eq!(c.edges_at("shop", "m.py", 34).len(), 8);
}

#[test]
fn nine_candidates_are_an_unknown_receiver() {
    let want = "#want-unresolved: RECEIVER_TYPE_UNKNOWN m ; #want-none: run";
    let c = classes_sharing_run(9, want);
    assert_eq!(
        detail_of(&c, "RECEIVER_TYPE_UNKNOWN"),
        "the receiver's type is not written and 9 visible class members share the name"
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
        detail_of(&c, "RECEIVER_TYPE_UNKNOWN"),
        "the receiver's type is not written and no visible class declares the attribute"
    );
    assert_eq!(
        c.facts.unresolved[0].requested_symbol.as_deref(),
        Some("nothing")
    );
}
