//! The CI recipe of `examples/ci/`: the script its workflow's steps call is run here as the
//! workflow runs it (a unit per repository in its own runner directory with a kept extraction
//! cache, the link elsewhere from the units alone, tables, install elsewhere), against the
//! one-job build, and every step of the workflow names a command the script has.

use crate::common::{compiler, generation_dir_files, workspace};

use std::path::Path;
use std::process::{Command, Output};

fn script(dir: &Path, args: &[&str]) -> Output {
    Command::new(workspace().join("examples/ci/graph.sh"))
        .args(args)
        .current_dir(dir)
        .env("KIVGRAPH_COMPILE", compiler())
        .env("KIVGRAPH", env!("CARGO_BIN_EXE_kivgraph"))
        .env("KIVGRAPH_CACHE", dir.join("cache"))
        .output()
        .unwrap()
}

fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_ci_script_builds_installs_and_exports_a_graph() {
    let runner = tempfile::tempdir().unwrap();
    let pair = workspace().join("fixtures/go/pair");
    let repos = [
        format!("app={}", pair.join("app").display()),
        format!("mathlib={}", pair.join("mathlib").display()),
    ];
    let build = |artifact: &str| {
        let mut args = vec!["build", artifact];
        args.extend(repos.iter().map(String::as_str));
        let o = script(runner.path(), &args);
        assert!(o.status.success(), "{}", said(&o));
        said(&o)
    };
    let first = build("graph.kgpack");
    assert!(
        first.contains("packed generation 000001 into graph.kgpack"),
        "{first}"
    );
    assert!(runner.path().join("cache").is_dir(), "the cache is kept");
    // A second run, with the cache the first one left, packs the same tables and blobs (only
    // the manifest's creation time differs).
    build("again.kgpack");
    let bytes = |f: &str| std::fs::read(runner.path().join(f)).unwrap();
    let unpacked = |artifact: &str| {
        let index = runner.path().join(format!("{artifact}.index"));
        let o = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
            .arg("--index")
            .arg(&index)
            .arg("pull")
            .arg(runner.path().join(artifact))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", said(&o));
        generation_dir_files(&index.join("generations/000001"))
    };
    let first_files = unpacked("graph.kgpack");
    assert!(first_files.len() >= 10);
    assert!(
        first_files == unpacked("again.kgpack"),
        "a second run packed other tables or blobs"
    );

    // The workflow: each repository's unit made in a runner of its own, the link in another
    // runner that has the units and no checkout; the artifact holds the same generation.
    let linker = tempfile::tempdir().unwrap();
    let mut units = Vec::new();
    for repo in &repos {
        let name = repo.split_once('=').unwrap().0;
        let pipeline = tempfile::tempdir().unwrap();
        let unit = format!("{name}.kgunit");
        let o = script(pipeline.path(), &["unit", &unit, repo]);
        assert!(o.status.success(), "{}", said(&o));
        assert!(pipeline.path().join("cache").is_dir(), "the cache is kept");
        std::fs::copy(pipeline.path().join(&unit), linker.path().join(&unit)).unwrap();
        units.push(unit);
    }
    let mut args = vec!["link", "linked.kgpack"];
    args.extend(units.iter().map(String::as_str));
    let o = script(linker.path(), &args);
    assert!(o.status.success(), "{}", said(&o));
    assert!(
        said(&o).contains("packed generation 000001 into linked.kgpack"),
        "{}",
        said(&o)
    );
    std::fs::copy(
        linker.path().join("linked.kgpack"),
        runner.path().join("linked.kgpack"),
    )
    .unwrap();
    assert!(
        first_files == unpacked("linked.kgpack"),
        "the linked artifact holds another generation than the one-job build"
    );

    // The serving machine installs it, and answers from it.
    let server = tempfile::tempdir().unwrap();
    for f in ["graph.kgpack", "graph.kgpack.sha256"] {
        std::fs::copy(runner.path().join(f), server.path().join(f)).unwrap();
    }
    let o = script(server.path(), &["install", "graph.kgpack", ".kivgraph"]);
    assert!(o.status.success(), "{}", said(&o));
    assert!(said(&o).contains("\"status\":\"ready\""), "{}", said(&o));
    let q = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(server.path().join(".kivgraph"))
        .args([
            "query",
            "find_cross_repo_consumers",
            r#"{"repository":"mathlib","qualified_name":"Add"}"#,
        ])
        .output()
        .unwrap();
    assert!(q.status.success(), "{}", said(&q));
    assert!(said(&q).contains("app"), "{}", said(&q));

    // A damaged artifact is refused, and the index keeps its generation.
    let mut damaged = bytes("graph.kgpack");
    let at = damaged.len() / 2;
    damaged[at] ^= 0x01;
    std::fs::write(server.path().join("graph.kgpack"), &damaged).unwrap();
    let o = script(server.path(), &["install", "graph.kgpack", ".kivgraph"]);
    assert!(!o.status.success(), "{}", said(&o));
    let current = std::fs::read_to_string(server.path().join(".kivgraph/CURRENT")).unwrap();
    assert_eq!(current.trim(), "000001");

    // The tables for analysts, partitioned by repository.
    let o = script(runner.path(), &["tables", "graph.kgpack", "graph-tables"]);
    assert!(o.status.success(), "{}", said(&o));
    for repo in ["app", "mathlib"] {
        let part = runner
            .path()
            .join(format!("graph-tables/symbols/repo={repo}/part-0.parquet"));
        assert!(part.is_file(), "{}", part.display());
    }

    // An unknown command is a usage error.
    let o = script(runner.path(), &["deploy"]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
}

#[test]
fn every_step_of_the_workflow_calls_a_command_of_the_script() {
    let workflow = std::fs::read_to_string(workspace().join("examples/ci/kivgraph.yml")).unwrap();
    let script = std::fs::read_to_string(workspace().join("examples/ci/graph.sh")).unwrap();
    let mut steps = 0;
    for line in workflow.lines() {
        let Some((_, call)) = line.split_once("examples/ci/graph.sh ") else {
            continue;
        };
        let command = call.split_whitespace().next().unwrap();
        assert!(
            script.contains(&format!("\n  {command})\n")),
            "the workflow calls `graph.sh {command}`, which the script does not have"
        );
        steps += 1;
    }
    assert_eq!(steps, 4, "{workflow}");
}
