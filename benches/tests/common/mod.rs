//! The accuracy guards of the TypeScript, Python and Rust fixtures share everything but their data:
//! compile the fixture repositories, score them against committed oracle output, check the
//! thresholds, and show that the guard is not vacuous.

use std::path::{Path, PathBuf};

use kivgraph_benches::accuracy::{self, Oracle, Report, Thresholds};
use kivgraph_benches::verdict_check;
use kivgraph_compile::{CompileOptions, RepoSpec};
use kivgraph_format::{Generation, IndexDir};

/// One language's fixtures and the oracle output committed for them.
pub struct Guard {
    /// Under `fixtures/`.
    pub fixtures: &'static str,
    /// Repository name (as the oracle names it) and directory under `fixtures`.
    pub repos: &'static [(&'static str, &'static str)],
    /// Under `benches/accuracy/`.
    pub oracle: &'static str,
    /// The command that regenerates `oracle`.
    pub regenerate: &'static str,
    pub thresholds: Thresholds,
    /// Fewer oracle uses than this means the committed output is not what it should be.
    pub min_uses: u64,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

impl Guard {
    pub fn oracle(&self) -> Oracle {
        Oracle::read(&workspace().join("benches/accuracy").join(self.oracle)).unwrap()
    }

    /// Every repository in one generation, so that the pairs' cross-repository imports bind.
    pub fn compile(&self, out: &Path) -> Generation {
        let root = workspace().join("fixtures").join(self.fixtures);
        let repos = self
            .repos
            .iter()
            .map(|(name, dir)| {
                RepoSpec::parse(&format!("{name}={}", root.join(dir).display())).unwrap()
            })
            .collect();
        kivgraph_compile::compile(&CompileOptions {
            out: out.to_path_buf(),
            repos,
            fault: None,
            progress: false,
            rust_sysroot: kivgraph_compile::RustSysroot::Off,
            keep: kivgraph_format::layout::DEFAULT_KEEP,
            cache: Default::default(),
        })
        .unwrap();
        Generation::open_current(&IndexDir::new(out))
            .unwrap()
            .expect("a published generation")
    }

    /// The fixtures meet the thresholds, every declaration maps, and METHOD_OF is exact.
    pub fn assert_met(&self) -> Report {
        let dir = tempfile::tempdir().unwrap();
        let report = accuracy::score(&self.oracle(), &self.compile(dir.path()));
        println!("{}", report.render());
        eprintln!("{} fixtures: {}", self.fixtures, report.headline());
        let f = &report.files;
        assert_eq!(
            (f.stale, f.missing_in_graph, f.not_compiled_by_graph),
            (0, 0, 0),
            "the oracle output is stale or the file selection differs; run {}: {:?}",
            self.regenerate,
            f.examples
        );
        assert!(
            report.corpus.oracle_uses > self.min_uses,
            "{:?}",
            report.corpus
        );
        assert_eq!(
            report.declarations.mapped.hit, report.declarations.mapped.of,
            "{:?}",
            report.declarations.unmapped_examples
        );
        let failures = self.thresholds.check(&report);
        assert!(failures.is_empty(), "{failures:#?}\n{}", report.render());
        assert_no_drops(&report);
        let m = &report.structural.method_of;
        assert!(m.recall_all.of > 0, "METHOD_OF: nothing measured");
        assert_eq!(
            m.exact_precision.hit, m.exact_precision.of,
            "METHOD_OF: {m:?}"
        );
        report
    }

    /// Truth with uses the graph cannot have lowers recall below the threshold, and truth that
    /// lost uses the graph binds exactly makes those edges wrong.
    pub fn assert_fails_on_regression(&self, lost_uses: usize, dropped_uses: usize) {
        let dir = tempfile::tempdir().unwrap();
        let generation = self.compile(dir.path());
        let mut lost = self.oracle();
        let extra: Vec<_> = lost.uses.iter().take(lost_uses).cloned().collect();
        for mut u in extra {
            u.col += 10_000;
            lost.uses.push(u);
        }
        let failures = self.thresholds.check(&accuracy::score(&lost, &generation));
        assert!(
            failures.iter().any(|f| f.contains("recall (all edges)")),
            "{failures:?}"
        );
        assert_drops_counted(|| self.oracle(), &generation);
        let mut wrong = self.oracle();
        wrong.uses.drain(..dropped_uses);
        let failures = self.thresholds.check(&accuracy::score(&wrong, &generation));
        assert!(
            failures.iter().any(|f| f.contains("exact precision")),
            "{failures:?}"
        );
    }
}

/// The drop audit is empty: every use the oracle knows of a declaration the graph has became an
/// edge or an unresolved record at its site.
pub fn assert_no_drops(report: &Report) {
    let d = &report.drops;
    assert!(d.uses > 0, "the drop audit measured nothing");
    assert_eq!(
        d.dropped, 0,
        "uses with neither an edge nor an unresolved record: {:#?}",
        d.by_context
    );
}

/// The audit is not vacuous: uses moved to lines past every file's end, where the graph has
/// nothing, are each counted as dropped.
pub fn assert_drops_counted(oracle: impl Fn() -> Oracle, generation: &Generation) {
    let mut moved = oracle();
    let n = moved.uses.len().min(5);
    let extra: Vec<_> = moved.uses.iter().take(n).cloned().collect();
    for mut u in extra {
        u.line += 1_000_000;
        moved.uses.push(u);
    }
    let before = accuracy::score(&oracle(), generation).drops.dropped;
    let after = accuracy::score(&moved, generation).drops.dropped;
    assert_eq!(after, before + n as u64);
}

/// No `COMPLETE` answer misses a use the oracle knows: `find_references` about every symbol the
/// oracle sees used, and every use lies in a row's line range when the verdict is `COMPLETE`.
/// Then the check is shown not to be vacuous: with every oracle use also copied to a line past
/// its file's end, every `COMPLETE` answer is caught missing one.
pub fn assert_complete_answers_are_true(oracle: impl Fn() -> Oracle, generation: Generation) {
    let generation = std::sync::Arc::new(generation);
    let report = accuracy::score(&oracle(), &generation);
    let audit = verdict_check::audit(&generation, &report).unwrap();
    eprintln!(
        "{} symbols used, {} answers COMPLETE, {} LOWER_BOUND missing a use",
        audit.checked, audit.complete, audit.lower_bound_missing
    );
    assert!(audit.complete > 0, "{audit:?}");
    assert!(
        audit.false_complete.is_empty(),
        "COMPLETE answers missing a use the oracle knows: {:#?}",
        audit.false_complete
    );
    let mut moved = oracle();
    let copies = moved.uses.clone();
    for mut u in copies {
        u.line += 1_000_000;
        moved.uses.push(u);
    }
    let caught = verdict_check::audit(&generation, &accuracy::score(&moved, &generation)).unwrap();
    assert_eq!(caught.false_complete.len(), audit.complete, "{caught:?}");
}
