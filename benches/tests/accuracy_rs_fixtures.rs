//! The CI guard of Rust accuracy, with no rust-analyzer: compiles the Rust fixtures (without the
//! standard library; uses of it are not measured) and scores the generation against the
//! committed output of the rust-analyzer SCIP oracle (`benches/accuracy/rs/fixtures.oracle.jsonl`;
//! regenerate it with `benches/accuracy/rs/run.sh fixtures` after changing a Rust fixture).
//!
//! Run with `--nocapture` to see the full report.

use crate::common;
use crate::common::Guard;

use kivgraph_benches::accuracy::{OracleLanguage, Thresholds};

/// A little below today's figures (exact precision 98.75 % = 789/799, recall 99.25 % = 797/803,
/// exact recall 98.26 % = 789/803): two more wrong exact edges, two lost uses or two uses
/// demoted to candidates fail the build.
const GUARD: Guard = Guard {
    fixtures: "rust",
    repos: &[
        ("geo", "geo"),
        ("stduse", "stduse"),
        ("corelib", "pair/corelib"),
        ("app", "pair/app"),
    ],
    oracle: "rs/fixtures.oracle.jsonl",
    regenerate: "benches/accuracy/rs/run.sh fixtures",
    min_uses: 300,
    thresholds: Thresholds {
        min_exact_precision: Some(98.6),
        min_recall: Some(98.9),
        min_exact_recall: Some(97.9),
    },
};

#[test]
fn rust_fixtures_meet_the_accuracy_thresholds() {
    assert_eq!(GUARD.oracle().language, OracleLanguage::Rust);
    let report = GUARD.assert_met();
    assert!(
        report
            .title()
            .starts_with("kivgraph Rust accuracy against rust-analyzer")
    );
    // Declarations map by position, and the graph names each one as SPEC 14.2 says, which is
    // how the oracle names it.
    let ia = report
        .declarations
        .identity
        .as_ref()
        .expect("declarations mapped by position");
    assert_eq!(ia.same.hit, ia.same.of, "{:?}", ia.examples);
    // The structural facts agree with what rust-analyzer resolves impl headers to.
    for (name, l) in [
        ("METHOD_OF", &report.structural.method_of),
        ("OVERRIDES", &report.structural.overrides),
    ] {
        assert!(l.recall_all.of > 0, "{name}: nothing measured");
        assert_eq!(l.exact_precision.hit, l.exact_precision.of, "{name}: {l:?}");
        assert_eq!(l.recall_all.hit, l.recall_all.of, "{name}: {l:?}");
    }
}

/// The guard is not vacuous: 12 uses the graph cannot have, or 8 fewer uses of what it binds
/// exactly, miss the thresholds; injected drops are counted.
#[test]
fn the_rust_guard_fails_on_a_regression() {
    GUARD.assert_fails_on_regression(12, 8);
}

/// No COMPLETE answer about a fixture symbol misses a use the checker knows.
#[test]
fn rust_complete_answers_hold_every_use_the_checker_knows() {
    let dir = tempfile::tempdir().unwrap();
    common::assert_complete_answers_are_true(|| GUARD.oracle(), GUARD.compile(dir.path()));
}
