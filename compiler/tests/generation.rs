//! End-to-end tests of the `kivgraph-compile` binary on the Go fixtures: reproducible output,
//! `verify` catching any flipped byte, crash-safe publishing, the writer lock, and the Parquet
//! tables read by pyarrow and DuckDB (`tables.py`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use kivgraph_format::layout::{CURRENT, GENERATIONS, MANIFEST, parse_generation_name};
use kivgraph_format::{Generation, IndexDir};

const BIN: &str = env!("CARGO_BIN_EXE_kivgraph-compile");

/// Every file a generation of this format holds.
const GENERATION_FILES: [&str; 13] = [
    "manifest.json",
    "graph.blob",
    "names.fst",
    "file_symbols.bin",
    "name_grams.bin",
    "scope_reach.bin",
    "repositories.parquet",
    "packages.parquet",
    "files.parquet",
    "symbols.parquet",
    "edges.parquet",
    "package_edges.parquet",
    "unresolved.parquet",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the compiler crate lives inside the workspace")
        .to_path_buf()
}

fn fixture(name: &str) -> PathBuf {
    workspace().join("fixtures/go").join(name)
}

/// The binary, with no fault injected whatever the caller's environment holds.
fn compiler() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("KIVGRAPH_FAULT");
    cmd
}

/// `kivgraph-compile --out INDEX shapes=... inventory=...`.
fn compile_cmd(index: &Path) -> Command {
    let mut cmd = compiler();
    cmd.arg("--out")
        .arg(index)
        .arg(format!("shapes={}", fixture("shapes").display()))
        .arg(format!("inventory={}", fixture("inventory").display()));
    cmd
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn describe(out: &Output) -> String {
    format!(
        "{}\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn read_current(index: &Path) -> String {
    fs::read_to_string(index.join(CURRENT))
        .unwrap_or_else(|e| panic!("{}: {e}", index.join(CURRENT).display()))
}

/// Compiles both fixtures into `index` and returns the published generation directory.
fn compile_fixtures(index: &Path) -> PathBuf {
    let out = run(&mut compile_cmd(index));
    assert!(out.status.success(), "compile failed: {}", describe(&out));
    let current = read_current(index);
    let name = current.trim();
    assert!(
        parse_generation_name(name).is_some(),
        "CURRENT holds {current:?}, not a generation id"
    );
    index.join(GENERATIONS).join(name)
}

fn file_names(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn copy_dir(src: &Path, dst: &Path) {
    fs::create_dir_all(dst).unwrap();
    for entry in fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
    }
}

fn verify(dir: &Path) -> Output {
    run(compiler().arg("verify").arg(dir))
}

/// Whether `text` names `file` as a whole file name (so `edges.parquet` does not match inside
/// `package_edges.parquet`).
fn names_file(text: &str, file: &str) -> bool {
    text.match_indices(file).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + file.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn manifest_json(gen_dir: &Path) -> serde_json::Value {
    let path = gen_dir.join(MANIFEST);
    let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn same_inputs_give_byte_identical_tables_and_blobs() {
    let tmp = tempfile::tempdir().unwrap();
    let a = compile_fixtures(&tmp.path().join("a"));
    let b = compile_fixtures(&tmp.path().join("b"));

    let expected: BTreeSet<String> = GENERATION_FILES.iter().map(|s| s.to_string()).collect();
    assert_eq!(file_names(&a), expected, "files of {}", a.display());
    assert_eq!(file_names(&b), expected, "files of {}", b.display());

    for name in GENERATION_FILES.iter().filter(|n| **n != MANIFEST) {
        let x = fs::read(a.join(name)).unwrap();
        let y = fs::read(b.join(name)).unwrap();
        assert!(!x.is_empty(), "{name} is empty");
        if x != y {
            let first = x.iter().zip(&y).position(|(p, q)| p != q);
            panic!(
                "{name} differs between two compiles of the same inputs: sizes {} and {}, first \
                 differing byte at {first:?}",
                x.len(),
                y.len()
            );
        }
    }

    let mut ma = manifest_json(&a);
    let mut mb = manifest_json(&b);
    for m in [&mut ma, &mut mb] {
        let obj = m.as_object_mut().expect("the manifest is a JSON object");
        for volatile in ["created_at", "created_at_ms"] {
            assert!(obj.remove(volatile).is_some(), "manifest lacks {volatile}");
        }
    }
    assert_eq!(
        ma, mb,
        "manifests of two compiles of the same inputs differ beyond created_at"
    );
    assert!(
        ma["row_counts"]["symbols"].as_u64().unwrap_or(0) > 0,
        "the fixtures compiled to no symbols: {ma:#}"
    );
}

#[test]
fn verify_passes_on_fresh_generation() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("index");
    let gen_dir = compile_fixtures(&index);
    // Both forms: the index directory (its CURRENT generation) and the generation directory.
    for dir in [&index, &gen_dir] {
        let out = verify(dir);
        assert!(
            out.status.success(),
            "verify {} failed: {}",
            dir.display(),
            describe(&out)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.starts_with("ok"),
            "verify {} printed no ok: {}",
            dir.display(),
            describe(&out)
        );
        assert!(stdout.contains("generation 000001"), "{}", describe(&out));
    }
}

#[test]
fn verify_names_the_file_when_any_byte_flips() {
    let tmp = tempfile::tempdir().unwrap();
    let gen_dir = compile_fixtures(&tmp.path().join("index"));

    // The copy itself must verify, or every case below would pass for the wrong reason.
    let pristine = tmp.path().join("pristine");
    copy_dir(&gen_dir, &pristine);
    let out = verify(&pristine);
    assert!(
        out.status.success(),
        "an unmodified copy fails: {}",
        describe(&out)
    );

    let mut case = 0;
    for file in GENERATION_FILES {
        let original = fs::read(gen_dir.join(file)).unwrap();
        let len = original.len();
        assert!(len > 2, "{file} is only {len} bytes");
        for pos in [0, len / 2, len - 1] {
            for mask in [0xffu8, 0x01] {
                case += 1;
                let copy = tmp.path().join(format!("case-{case}"));
                copy_dir(&gen_dir, &copy);
                let mut bytes = original.clone();
                bytes[pos] ^= mask;
                fs::write(copy.join(file), &bytes).unwrap();

                let out = verify(&copy);
                let what = format!("{file} byte {pos} of {len} xor {mask:#04x}");
                assert!(
                    !out.status.success(),
                    "verify accepted {what}: {}",
                    describe(&out)
                );
                let stderr = String::from_utf8_lossy(&out.stderr);
                if file == MANIFEST {
                    assert!(
                        GENERATION_FILES.iter().any(|f| names_file(&stderr, f)),
                        "verify rejected {what} without naming a file: {}",
                        describe(&out)
                    );
                } else {
                    assert!(
                        names_file(&stderr, file),
                        "verify rejected {what} without naming {file}: {}",
                        describe(&out)
                    );
                    let others: Vec<_> = GENERATION_FILES
                        .iter()
                        .filter(|f| **f != file && **f != MANIFEST && names_file(&stderr, f))
                        .collect();
                    assert!(
                        others.is_empty(),
                        "verify blamed {others:?} for {what}: {}",
                        describe(&out)
                    );
                }
                fs::remove_dir_all(&copy).unwrap();
            }
        }
    }
    assert_eq!(case, GENERATION_FILES.len() * 6);
}

/// Generation ids of the directories under `generations/`, and the other entries found there.
fn generation_entries(index: &Path) -> (BTreeSet<u64>, BTreeSet<String>) {
    let mut ids = BTreeSet::new();
    let mut others = BTreeSet::new();
    for name in file_names(&index.join(GENERATIONS)) {
        match parse_generation_name(&name) {
            Some(id) => {
                ids.insert(id);
            }
            None => {
                others.insert(name);
            }
        }
    }
    (ids, others)
}

/// Generation 1 is still what `CURRENT` names and what a reader opens.
/// Where the index stands after a publish that was cut at some step.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// `CURRENT` still names the generation served before.
    Previous,
    /// `CURRENT` names the new generation.
    New,
}

/// Checks an index after a faulted publish: `CURRENT` names a complete generation that opens and
/// verifies, no partial generation is visible under a generation id, and what is left over is
/// only what the next publish removes (`.tmp-*` entries, `CURRENT.tmp`, complete but unpublished
/// generations).
fn assert_whole(index: &Path, before: u64, next: u64, outcome: &Outcome, after: &str) {
    let expected = match outcome {
        Outcome::Previous => before,
        Outcome::New => next,
    };
    let current = read_current(index);
    assert_eq!(current, format!("{expected:06}\n"), "CURRENT after {after}");
    let dir = IndexDir::new(index);
    let generation = Generation::open_current(&dir)
        .unwrap_or_else(|e| panic!("open_current after {after}: {e}"))
        .unwrap_or_else(|| panic!("nothing published after {after}"));
    assert_eq!(generation.id, expected, "after {after}");
    assert!(!generation.graph().symbols.is_empty(), "after {after}");
    let out = verify(index);
    assert!(
        out.status.success(),
        "verify after {after}: {}",
        describe(&out)
    );
    let (ids, _) = generation_entries(index);
    for id in ids {
        let out = verify(&dir.generation_dir(id));
        assert!(
            out.status.success(),
            "generation {id:06} is visible but incomplete after {after}: {}",
            describe(&out)
        );
    }
}

/// Every step of publishing where a fault can be injected, with the state it leaves: an error
/// (`STEP`) or a crash (`crash:STEP`, the process aborts).
const STEPS: [(&str, Outcome); 6] = [
    ("during-write", Outcome::Previous),
    ("after-files-written", Outcome::Previous),
    ("after-rename", Outcome::Previous),
    ("before-current-swap", Outcome::Previous),
    ("after-current-swap", Outcome::New),
    ("during-collect", Outcome::New),
];

#[test]
fn a_fault_at_any_step_of_publishing_leaves_a_whole_index() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("index");
    compile_fixtures(&index);
    let mut crashes = 0;
    for crash in [false, true] {
        for (step, outcome) in &STEPS {
            // Enough generations that the publish has one to collect.
            compile_fixtures(&index);
            compile_fixtures(&index);
            let (ids_before, _) = generation_entries(&index);
            let before = parse_generation_name(read_current(&index).trim()).unwrap();
            let next = ids_before.iter().max().unwrap() + 1;
            let fault = if crash {
                format!("crash:{step}")
            } else {
                step.to_string()
            };
            let out = run(compile_cmd(&index).env("KIVGRAPH_FAULT", &fault));
            let after = format!("KIVGRAPH_FAULT={fault}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            match (crash, *step) {
                // Old generations are only left for the next publish: not a failure.
                (false, "during-collect") => {
                    assert!(out.status.success(), "{after}: {}", describe(&out));
                    assert!(
                        String::from_utf8_lossy(&out.stdout)
                            .contains("the next publish tries again"),
                        "{after}: {}",
                        describe(&out)
                    );
                }
                (false, _) => assert!(
                    !out.status.success() && stderr.contains(step),
                    "{after} did not fail at the fault: {}",
                    describe(&out)
                ),
                (true, _) => {
                    use std::os::unix::process::ExitStatusExt;
                    assert_eq!(out.status.signal(), Some(6), "{after}: {}", describe(&out));
                    crashes += 1;
                }
            }
            assert_whole(&index, before, next, outcome, &after);
            if !crash && matches!(*step, "during-write" | "after-files-written") {
                // An error before the rename gives the space back at once.
                let (_, others) = generation_entries(&index);
                assert!(others.is_empty(), "after {after}: {others:?}");
            }
        }
    }
    assert_eq!(crashes, STEPS.len());

    // A stray leftover of some earlier writer, then a normal publish: everything is collected.
    let stray = index.join(GENERATIONS).join(".tmp-000042");
    fs::create_dir_all(&stray).unwrap();
    fs::write(stray.join("graph.blob"), b"half-written").unwrap();
    let (ids_before, _) = generation_entries(&index);
    let new_dir = compile_fixtures(&index);
    let new_id = parse_generation_name(read_current(&index).trim()).unwrap();
    assert_eq!(Some(new_id), ids_before.last().map(|id| id + 1));
    assert_eq!(new_dir, IndexDir::new(&index).generation_dir(new_id));
    let (ids, others) = generation_entries(&index);
    assert!(
        others.is_empty(),
        "leftovers after a normal compile: {others:?}"
    );
    assert!(!index.join("CURRENT.tmp").exists());
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        [new_id - 2, new_id - 1, new_id],
        "a publish keeps the newest three"
    );
}

#[test]
fn second_compiler_fails_fast_with_busy() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("index");
    let held = IndexDir::new(&index).lock().expect("take the writer lock");

    let started = Instant::now();
    let mut child = compile_cmd(&index)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Fail fast means no waiting for the lock: give it generous time, then call it hung.
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(30) {
            child.kill().ok();
            child.wait().ok();
            panic!("the second compiler waited for the lock instead of failing");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        !out.status.success(),
        "a second compiler succeeded while the lock was held: {}",
        describe(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("busy"),
        "stderr does not say busy: {}",
        describe(&out)
    );
    assert!(
        !index.join(CURRENT).exists(),
        "CURRENT was written while the lock was held"
    );
    let (ids, others) = generation_entries(&index);
    assert!(
        ids.is_empty() && others.is_empty(),
        "the busy compiler wrote {ids:?} {others:?}"
    );

    // Released, the same command goes through: the lock was the reason.
    drop(held);
    let gen_dir = compile_fixtures(&index);
    assert_eq!(gen_dir, IndexDir::new(&index).generation_dir(1));
}

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("KIVGRAPH_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = workspace().join(if cfg!(windows) {
        ".venv/Scripts/python.exe"
    } else {
        ".venv/bin/python"
    });
    if venv.exists() {
        return venv;
    }
    PathBuf::from("python3")
}

#[test]
fn tables_read_with_pyarrow_and_duckdb() {
    let py = python();
    let probe = Command::new(&py)
        .args(["-c", "import pyarrow, duckdb"])
        .output();
    let problem = match &probe {
        Err(e) => Some(format!("cannot run it: {e}")),
        Ok(out) if !out.status.success() => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            Some(stderr.lines().last().unwrap_or("import failed").to_string())
        }
        Ok(_) => None,
    };
    if let Some(problem) = problem {
        panic!(
            "{} cannot import pyarrow and duckdb: {}\nrun `.ci/run`, or create the venv in the \
             workspace root: `python3 -m venv .venv && .venv/bin/pip install pyarrow duckdb` \
             (or point KIVGRAPH_PYTHON at an interpreter that has both)",
            py.display(),
            problem.trim()
        );
    }

    let tmp = tempfile::tempdir().unwrap();
    let gen_dir = compile_fixtures(&tmp.path().join("index"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables.py");
    let out = run(Command::new(&py).arg(&script).arg(&gen_dir));
    print!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "{} {} failed: {}",
        py.display(),
        script.display(),
        describe(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("tables.py: ok"),
        "{}",
        describe(&out)
    );
}

/// A reader that goes away before the summary is written (`kivgraph-compile … | head -c0`) is
/// not an error: the compile exits 0 with its generation published, and so does `verify`.
#[test]
fn a_closed_stdout_is_not_a_failure() {
    let index = tempfile::tempdir().unwrap();
    for json in [false, true] {
        let mut cmd = compile_cmd(index.path());
        // A generation each time, although the inputs are the same.
        cmd.arg("--full");
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", describe(&out));
    }
    assert_eq!(read_current(index.path()).trim(), "000002");
    let mut child = compiler()
        .arg("verify")
        .arg(index.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
}

/// `kivgraph-compile export` writes the tables partitioned by repository; the README's queries
/// and a query of the consumers across repositories give the same rows on both layouts with
/// DuckDB and, where pyspark is installed, with Spark (`tests/hive.py`); an existing directory
/// is refused and left alone.
#[test]
fn the_tables_partitioned_by_repository_read_the_same() {
    let py = python();
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("index");
    let pair = workspace().join("fixtures/go/pair");
    let mut cmd = compile_cmd(&index);
    cmd.arg(format!("app={}", pair.join("app").display()))
        .arg(format!("mathlib={}", pair.join("mathlib").display()));
    let out = run(&mut cmd);
    assert!(out.status.success(), "{}", describe(&out));
    let gen_dir = index.join("generations").join(read_current(&index).trim());

    let hive = tmp.path().join("hive");
    let out = run(compiler().arg("export").arg(&index).arg("--out").arg(&hive));
    assert!(out.status.success(), "{}", describe(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("edges: ") && said.contains("in 4 partitions"),
        "{said}"
    );
    // A repository without rows in a table (mathlib has no unresolved record) has no partition.
    for table in ["repositories", "files", "symbols", "edges"] {
        for repo in ["shapes", "inventory", "app", "mathlib"] {
            let part = hive.join(table).join(format!("repo={repo}/part-0.parquet"));
            assert!(part.is_file(), "{}", part.display());
        }
    }
    let again = run(compiler().arg("export").arg(&index).arg("--out").arg(&hive));
    assert!(!again.status.success());
    assert!(
        describe(&again).contains("already exists"),
        "{}",
        describe(&again)
    );

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hive.py");
    let mut cmd = Command::new(&py);
    cmd.arg(&script).arg(&gen_dir).arg(&hive);
    if std::env::var_os("KIVGRAPH_REQUIRE_SPARK").is_some() {
        cmd.arg("--require-spark");
    }
    let out = run(cmd.env("SPARK_LOCAL_IP", "127.0.0.1"));
    print!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.status.success(), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("OK\n"));
}
