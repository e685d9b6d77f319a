//! The binding of references runs in tasks of a fixed number of modules, each with its own memo
//! of module attributes: the facts must not depend on how the modules are split.

use std::sync::atomic::Ordering;

use crate::lang::shared::resolve::{MODULES_PER_TASK, PER_TASK, PER_TASK_TESTS};
use crate::testing::compile;

/// `*` imports in a cycle (the last one that binds a name wins, so they are searched last
/// first): looking `N` up in `a` goes through `b`, which meets `a` again (cut) and then finds
/// `e`'s; looked up in `b` on its own, `N` is `d`'s, through `a`. A memo that kept what the cut search found would answer `use2`
/// by what `use1` asked first, and differently when the two are bound by different tasks.
const CYCLE: &str = r#"
//- cyc/pyproject.toml
[project]
name = "cyc"
//- cyc/pkg/__init__.py
//- cyc/pkg/a.py
from pkg.d import *
from pkg.b import *
//- cyc/pkg/b.py
from pkg.e import *
from pkg.a import *
//- cyc/pkg/d.py
N = 1
def f(): pass
//- cyc/pkg/e.py
N = 2
class C:
    def m(self): pass
//- cyc/pkg/use1.py
from pkg.a import N, f, C
import pkg.b
N
f()
C().m()
pkg.b.N
//- cyc/pkg/use2.py
from pkg.b import N, f
import pkg.a as a
N
f()
a.C().m()
a.Missing
"#;

#[test]
fn the_facts_do_not_depend_on_how_modules_are_split_into_tasks() {
    let _one_at_a_time = PER_TASK_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let facts = |per_task: usize| {
        PER_TASK.store(per_task, Ordering::Relaxed);
        let c = compile(CYCLE);
        (
            c.facts.edges.clone(),
            c.facts.unresolved.clone(),
            c.facts.package_edges.clone(),
        )
    };
    let whole = facts(usize::MAX);
    let one_each = facts(1);
    let pairs = facts(2);
    PER_TASK.store(MODULES_PER_TASK, Ordering::Relaxed);
    assert!(
        whole.0.len() >= 8,
        "the fixture bound too little: {whole:?}"
    );
    assert_eq!(whole, one_each, "one module a task");
    assert_eq!(whole, pairs, "two modules a task");
}
