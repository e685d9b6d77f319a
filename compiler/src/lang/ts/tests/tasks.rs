//! The binding of references runs in tasks of a fixed number of modules, each with memos of its
//! own: the facts must not depend on how the modules are split.

use std::sync::atomic::Ordering;

use crate::lang::shared::resolve::{MODULES_PER_TASK, PER_TASK, PER_TASK_TESTS};
use crate::testing::compile;

/// Re-export cycles (which the export memo cuts) and names reached through them from several
/// modules, so that a memo shared by all modules and one memo per module take different paths.
const CYCLES: &str = r#"
//- app/package.json
{"name": "app"}
//- app/a.ts
export * from "./b";
export const A = 1;
export function fa(): number { return A; }
//- app/b.ts
export * from "./a";
export { C as CC } from "./c";
export * from "./d";
//- app/c.ts
export const C = 3;
export * from "./a";
export * from "./b";
//- app/d.ts
export * from "./c";
export class D { m(): number { return 1; } }
//- app/use1.ts
import { A, CC, D, Missing } from "./b";
import { fa } from "./c";
A; CC; new D().m(); fa(); Missing;
//- app/use2.ts
import * as ns from "./d";
import { C } from "./a";
ns.A; ns.C; ns.D; ns.fa(); C; ns.Nope;
//- app/use3.ts
export * from "./use2";
import { D as E } from "./use1";
export const e = new E();
e.m();
"#;

/// A name found past a cut: looking `N` up in `a` goes through `b`, which meets `a` again (cut,
/// nothing found there), before `d`, which declares it; looked up in `b` on its own, `N` is
/// found through `a`. A memo that kept `b`'s answer from the cut would lose `use2`'s binding.
const CUT: &str = r#"
//- cut/package.json
{"name": "cut"}
//- cut/a.ts
export * from "./b";
export * from "./d";
//- cut/b.ts
export * from "./a";
//- cut/d.ts
export const N = 1;
//- cut/use1.ts
import { N } from "./a";
N;
//- cut/use2.ts
import { N } from "./b";
N;
"#;

/// Two declarations of `N` reached through a cycle: a search that starts in `a` finds only
/// `e`'s through `b` (cut at `a`), one that starts in `b` finds both.
const FOUND_PAST_A_CUT: &str = r#"
//- two/package.json
{"name": "two"}
//- two/a.ts
export * from "./b";
export * from "./d";
//- two/b.ts
export * from "./a";
export * from "./e";
//- two/d.ts
export const N = 1;
//- two/e.ts
export const N = 2;
//- two/use1.ts
import { N } from "./a";
N;
//- two/use2.ts
import { N } from "./b";
N;
"#;

/// A chain of 80 `export *` modules, the last declaring `N`: asked through the chain's 31st
/// module, `N` is found 49 levels down; asked through its first, the search passes the depth
/// bound (64) and finds nothing. The first answer, kept, must not be reused in the middle of
/// the second search, whatever module asked first.
fn deep_chain() -> String {
    let mut f = String::from(
        "//- deep/package.json\n{\"name\": \"deep\"}\n\
         //- deep/a_first.ts\nimport { N } from \"./c/m30\";\nN;\n\
         //- deep/b_second.ts\nimport { N } from \"./c/m00\";\nN;\n",
    );
    for i in 0..80 {
        f.push_str(&format!("//- deep/c/m{i:02}.ts\n"));
        if i < 79 {
            f.push_str(&format!("export * from \"./m{:02}\";\n", i + 1));
        } else {
            f.push_str("export const N = 1;\n");
        }
    }
    f
}

#[test]
fn the_facts_do_not_depend_on_how_modules_are_split_into_tasks() {
    let _one_at_a_time = PER_TASK_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let facts = |fixture: &str, per_task: usize| {
        PER_TASK.store(per_task, Ordering::Relaxed);
        let c = compile(fixture);
        (
            c.facts.edges.clone(),
            c.facts.unresolved.clone(),
            c.facts.package_edges.clone(),
        )
    };
    let deep = deep_chain();
    for fixture in [CYCLES, CUT, FOUND_PAST_A_CUT, deep.as_str()] {
        let whole = facts(fixture, usize::MAX);
        let one_each = facts(fixture, 1);
        let pairs = facts(fixture, 2);
        PER_TASK.store(MODULES_PER_TASK, Ordering::Relaxed);
        assert!(
            whole.0.len() + whole.1.len() >= 3,
            "the fixture bound too little to tell: {} edges, {} unresolved",
            whole.0.len(),
            whole.1.len()
        );
        assert_eq!(whole, one_each, "one module a task");
        assert_eq!(whole, pairs, "two modules a task");
    }
}
