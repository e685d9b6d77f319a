//! Compile units and the link: every fixture repository compiled alone into a unit, the units
//! linked into a generation without their sources, and that generation compared byte for byte
//! with a compile of the same sources in the same order; units are deterministic, and a damaged,
//! hostile, foreign or repeated unit is refused with its code, leaving the index as it was.

use std::path::{Path, PathBuf};

use crate::shared::{REPOS, copy_dir, generation_files, manifest_without_time};
use kivgraph_compile::unit::{self, LinkOptions, UnitOptions};
use kivgraph_compile::{CacheOptions, CompileError, CompileOptions, RepoSpec, RustSysroot};
use kivgraph_format::IndexDir;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// Every fixture repository, then the stand-in standard library, as a compile takes them.
fn specs(root: &Path) -> Vec<RepoSpec> {
    let mut repos: Vec<RepoSpec> = REPOS
        .iter()
        .map(|r| {
            RepoSpec::parse(&format!(
                "{}={}",
                r.replace('/', "-"),
                root.join(r).display()
            ))
            .unwrap()
        })
        .collect();
    repos.push(
        RepoSpec::parse_derived(&format!(
            "rust:1.0.0={}",
            root.join("rust/sysroot/library").display()
        ))
        .unwrap(),
    );
    repos
}

fn build_unit(spec: &RepoSpec, dir: &Path, cache: Option<&Path>) -> PathBuf {
    let output = dir.join(format!("{}.kgunit", spec.name.replace(':', "-")));
    unit::build(&UnitOptions {
        repo: spec.clone(),
        output: output.clone(),
        cache: cache.map(|c| (c.to_path_buf(), 1 << 30)),
        progress: false,
    })
    .unwrap();
    output
}

fn link(out: &Path, units: Vec<PathBuf>) -> Result<kivgraph_compile::Summary, CompileError> {
    unit::link(&LinkOptions {
        out: out.into(),
        units,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        progress: false,
        cache: None,
    })
}

/// A compile of `repos` from nothing, with `--rust-sysroot off`: what a link must publish.
fn compile_whole(out: &Path, repos: Vec<RepoSpec>) -> kivgraph_compile::Summary {
    kivgraph_compile::compile(&CompileOptions {
        out: out.into(),
        repos,
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: CacheOptions::off(),
    })
    .unwrap()
}

/// The fixture repository `path` (under `fixtures/`) as `name`.
fn fixture(name: &str, path: &str) -> RepoSpec {
    RepoSpec::parse(&format!("{name}={}", fixtures().join(path).display())).unwrap()
}

/// A repository whose files cannot all be read: a syntax error, bytes that are not UTF-8, a
/// Go file excluded by its build constraint in a package no file of which is built, and one
/// that is built.
fn awkward(root: &Path) -> RepoSpec {
    let dir = root.join("awkward");
    std::fs::create_dir_all(dir.join("winonly")).unwrap();
    std::fs::write(
        dir.join("go.mod"),
        "module example.com/awkward\n\ngo 1.21\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.go"),
        "package main\n\nimport \"example.com/awkward/winonly\"\n\nfunc main() { winonly.Run(); broken( }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("winonly/run.go"),
        "//go:build windows\n\npackage winonly\n\nfunc Run() {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("latin1.py"),
        b"def caf\xe9():\n    return helper()\n",
    )
    .unwrap();
    std::fs::write(dir.join("ok.py"), "def helper():\n    return 1\n").unwrap();
    RepoSpec::parse(&format!("awkward={}", dir.display())).unwrap()
}

#[test]
fn linked_units_give_the_generation_a_compile_gives() {
    // A checkout of every fixture repository, and of one whose files cannot all be read; a
    // copy, so that it holds no git head (the fixtures' is this repository's, and moves).
    let checkout = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), &checkout.path().join("fixtures"));
    let mut repos = specs(&checkout.path().join("fixtures"));
    repos.insert(0, awkward(checkout.path()));
    let whole = tempfile::tempdir().unwrap();
    let compiled = compile_whole(whole.path(), repos.clone());

    // The checkout is gone when the units are linked: the link reads no source.
    let units_dir = tempfile::tempdir().unwrap();
    let units: Vec<PathBuf> = repos
        .iter()
        .map(|r| build_unit(r, units_dir.path(), None))
        .collect();
    drop(checkout);
    let linked_dir = tempfile::tempdir().unwrap();
    let linked = link(linked_dir.path(), units.clone()).unwrap();

    assert!(compiled.rows.edges > 1000 && compiled.rows.unresolved > 0);
    assert_eq!(compiled.rows, linked.rows);
    let (a, b) = (
        generation_files(&compiled.generation_dir),
        generation_files(&linked.generation_dir),
    );
    assert_eq!(a.len(), b.len());
    for ((name_a, bytes_a), (name_b, bytes_b)) in a.iter().zip(&b) {
        assert_eq!(name_a, name_b);
        assert!(
            bytes_a == bytes_b,
            "{name_a} differs between compile and link"
        );
    }
    assert_eq!(
        manifest_without_time(&compiled.generation_dir),
        manifest_without_time(&linked.generation_dir)
    );
    // The front ends' diagnostics come with the link, as with the compile.
    assert_eq!(compiled.diagnostics, linked.diagnostics);
    assert_eq!(compiled.diagnostic_sample, linked.diagnostic_sample);
    assert!(
        linked
            .diagnostic_sample
            .iter()
            .any(|d| d.repository == "awkward" && d.path == "main.go")
    );

    // With a cache, a second link reuses the standard library's resolution: same generation.
    let cache = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let out = tempfile::tempdir().unwrap();
        let cached = unit::link(&LinkOptions {
            out: out.path().into(),
            units: units.clone(),
            keep: 2,
            progress: false,
            cache: Some((cache.path().into(), 1 << 30)),
        })
        .unwrap();
        assert!(
            generation_files(&cached.generation_dir) == generation_files(&compiled.generation_dir),
            "a link with a cache differs"
        );
    }
    assert!(cache.path().join("packs").is_dir(), "the link kept nothing");

    // The units' checkouts are gone: none is recorded beside the index.
    let recorded =
        kivgraph_format::checkouts::Checkouts::read(&IndexDir::new(linked_dir.path())).repositories;
    assert!(recorded.is_empty(), "{recorded:?}");
    // Where a unit's checkout is on this machine, it is.
    let here = tempfile::tempdir().unwrap();
    let shapes = build_unit(&fixture("go-shapes", "go/shapes"), units_dir.path(), None);
    link(here.path(), vec![shapes]).unwrap();
    let recorded =
        kivgraph_format::checkouts::Checkouts::read(&IndexDir::new(here.path())).repositories;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert!(recorded.contains_key("go-shapes"), "{recorded:?}");
}

#[test]
fn a_unit_is_the_same_bytes_whether_its_extractions_were_made_or_read_from_the_cache() {
    let scratch = tempfile::tempdir().unwrap();
    let cache = scratch.path().join("cache");
    let (one, two, three) = (
        scratch.path().join("one"),
        scratch.path().join("two"),
        scratch.path().join("three"),
    );
    for d in [&one, &two, &three] {
        std::fs::create_dir_all(d).unwrap();
    }
    for r in [
        "go/shapes",
        "ts/shop",
        "python/shop",
        "rust/geo",
        "dart/shop",
    ] {
        let spec = RepoSpec::parse(&format!(
            "{}={}",
            r.replace('/', "-"),
            fixtures().join(r).display()
        ))
        .unwrap();
        let first = std::fs::read(build_unit(&spec, &one, Some(&cache))).unwrap();
        let cached = std::fs::read(build_unit(&spec, &two, Some(&cache))).unwrap();
        let uncached = std::fs::read(build_unit(&spec, &three, None)).unwrap();
        assert!(first == cached, "{r}: the unit made from the cache differs");
        assert!(
            first == uncached,
            "{r}: the unit made without the cache differs"
        );
        let header = unit::read_header(&one.join(format!("{}.kgunit", spec.name))).unwrap();
        assert_eq!(header.repository, spec.name);
    }
}

#[test]
fn a_unit_restricted_to_languages_links_as_a_compile_restricted_alike() {
    // A repository of two languages, compiled in one of them.
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("mixed");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("go.mod"), "module example.com/mixed\n").unwrap();
    std::fs::write(repo.join("m.go"), "package m\n\nfunc Go() { Go() }\n").unwrap();
    std::fs::write(repo.join("m.py"), "def py():\n    py()\n").unwrap();
    let mut spec = RepoSpec::parse(&format!("mixed={}", repo.display())).unwrap();
    spec.languages = Some(vec![kivgraph_format::Language::Python]);
    let unit_file = build_unit(&spec, dir.path(), None);
    let linked = link(&dir.path().join("linked"), vec![unit_file]).unwrap();
    let compiled = compile_whole(&dir.path().join("compiled"), vec![spec]);
    assert_eq!(compiled.source_files, 1, "the Go file is left out");
    assert_eq!(linked.source_files, 1);
    assert!(
        generation_files(&linked.generation_dir) == generation_files(&compiled.generation_dir),
        "a restricted unit links to another generation"
    );
}

#[test]
fn units_made_in_checkouts_of_different_layouts_link_as_a_compile() {
    // Each repository in a pipeline of its own: the Dart app's package_config.json names its
    // dependency by a relative directory that is not where that dependency's unit was made;
    // the dependency's pubspec.yaml names the package, so it binds as in a compile.
    // (A compile of these copies, which hold no git head; whole compiles from any two layouts
    // give the same edges.)
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = a.path().join("work/app/app");
    let corelib = b.path().join("elsewhere/corelib");
    copy_dir(&fixtures().join("dart/pair/app"), &app);
    copy_dir(&fixtures().join("dart/pair/corelib"), &corelib);
    let spec = |name: &str, p: &Path| RepoSpec::parse(&format!("{name}={}", p.display())).unwrap();
    let units_dir = tempfile::tempdir().unwrap();
    let units = vec![
        build_unit(&spec("app", &app), units_dir.path(), None),
        build_unit(&spec("corelib", &corelib), units_dir.path(), None),
    ];
    let linked_dir = tempfile::tempdir().unwrap();
    let linked = link(linked_dir.path(), units).unwrap();
    let whole = tempfile::tempdir().unwrap();
    let compiled = compile_whole(
        whole.path(),
        vec![spec("app", &app), spec("corelib", &corelib)],
    );
    assert!(compiled.rows.edges > 50);
    assert!(
        generation_files(&linked.generation_dir) == generation_files(&compiled.generation_dir),
        "the link of units made apart differs from the compile"
    );
}

/// The error a link of `units` gives, and whether the index still has its generation.
fn refused(units: Vec<PathBuf>) -> (String, String) {
    let out = tempfile::tempdir().unwrap();
    let good = build_unit(&fixture("shapes", "go/shapes"), out.path(), None);
    let first = link(out.path(), vec![good]).unwrap();
    // Units are checked before the index is locked: no busy index to wait for.
    let e = link(out.path(), units).unwrap_err();
    let code = match &e {
        CompileError::Unit(u) => u.code().to_string(),
        other => panic!("not a unit error: {other}"),
    };
    assert_eq!(
        IndexDir::new(out.path()).current().unwrap(),
        Some(first.generation_id),
        "a refused link changed the index"
    );
    (code, e.to_string())
}

#[test]
fn damaged_hostile_foreign_and_repeated_units_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("inventory", "go/inventory");
    let good = build_unit(&spec, dir.path(), None);
    let bytes = std::fs::read(&good).unwrap();
    let header_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[12..12 + header_len]).unwrap();
    let write = |name: &str, b: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, b).unwrap();
        p
    };
    // A unit file with `header` and `payload`, the payload's length and digest set to match.
    let forge = |name: &str, mut header: serde_json::Value, payload: &[u8], decoded: usize| {
        use sha2::Digest;
        header["payload_bytes"] = payload.len().into();
        header["decoded_bytes"] = decoded.into();
        header["payload_sha256"] = sha2::Sha256::digest(payload)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .into();
        let json = serde_json::to_vec(&header).unwrap();
        let mut b = unit::MAGIC.to_vec();
        b.extend((json.len() as u32).to_le_bytes());
        b.extend(json);
        b.extend(payload);
        write(name, &b)
    };

    let truncated = write("truncated.kgunit", &bytes[..bytes.len() - 100]);
    let (code, msg) = refused(vec![truncated]);
    assert_eq!(code, "UNIT_CORRUPT", "{msg}");
    assert!(msg.contains("cut short"), "{msg}");

    let mut flipped = bytes.clone();
    let at = flipped.len() - 50;
    flipped[at] ^= 0x20;
    let (code, msg) = refused(vec![write("flipped.kgunit", &flipped)]);
    assert_eq!(code, "UNIT_CORRUPT", "{msg}");
    assert!(msg.contains("SHA-256"), "{msg}");

    let (code, _) = refused(vec![write("text.kgunit", b"not a unit at all\n")]);
    assert_eq!(code, "UNIT_CORRUPT");

    let (code, _) = refused(vec![write("huge-header.kgunit", &{
        let mut b = unit::MAGIC.to_vec();
        b.extend(u32::MAX.to_le_bytes());
        b
    })]);
    assert_eq!(code, "UNIT_CORRUPT");

    // Digest right, payload garbage: a faulty or hostile producer.
    let garbage = zstd::bulk::compress(&[0xff; 64], 1).unwrap();
    let (code, msg) = refused(vec![forge("garbage.kgunit", header.clone(), &garbage, 64)]);
    assert_eq!(code, "UNIT_CORRUPT", "{msg}");
    assert!(msg.contains("does not decode"), "{msg}");
    let (code, msg) = refused(vec![forge("not-zstd.kgunit", header.clone(), b"plain", 5)]);
    assert_eq!(code, "UNIT_CORRUPT", "{msg}");

    // A bomb: a few KiB that decompress to 256 MiB, whatever the header claims.
    let bomb = zstd::bulk::compress(&vec![0u8; 256 << 20], 19).unwrap();
    assert!(bomb.len() < 64 << 10);
    let (code, msg) = refused(vec![forge("bomb.kgunit", header.clone(), &bomb, 4096)]);
    assert_eq!(code, "UNIT_CORRUPT", "{msg}");
    let (code, msg) = refused(vec![forge("claims.kgunit", header.clone(), &bomb, 1 << 40)]);
    assert_eq!(code, "UNIT_CORRUPT", "{msg}");
    assert!(msg.contains("is not a unit"), "{msg}");

    // Another build of the compiler made it.
    let mut foreign = header.clone();
    foreign["build"] = "0123456789abcdef".into();
    let payload = &bytes[12 + header_len..];
    let decoded = header["decoded_bytes"].as_u64().unwrap() as usize;
    let (code, msg) = refused(vec![forge("foreign.kgunit", foreign, payload, decoded)]);
    assert_eq!(code, "UNIT_INCOMPATIBLE", "{msg}");
    let mut newer = header.clone();
    newer["unit_format"] = 99.into();
    let (code, _) = refused(vec![forge("newer.kgunit", newer, payload, decoded)]);
    assert_eq!(code, "UNIT_INCOMPATIBLE");

    // A header that names another repository than its payload.
    let mut renamed = header.clone();
    renamed["repository"] = "elsewhere".into();
    let (code, msg) = refused(vec![forge("renamed.kgunit", renamed, payload, decoded)]);
    assert_eq!(code, "UNIT_CORRUPT", "{msg}");

    let copy = write("again.kgunit", &bytes);
    let (code, msg) = refused(vec![good.clone(), copy]);
    assert_eq!(code, "UNIT_DUPLICATE", "{msg}");

    let (code, _) = refused(vec![dir.path().join("missing.kgunit")]);
    assert_eq!(code, "UNIT_UNREADABLE");
    let (code, _) = refused(Vec::new());
    assert_eq!(code, "UNIT_NONE_GIVEN");
}

#[test]
fn any_flipped_byte_of_a_unit_is_refused() {
    // Every byte of a small unit, one at a time, flipped: each damaged file is refused with a
    // code (its header, its length or its digest gives it away), never linked, never a panic.
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture("shapes", "go/shapes");
    let good = build_unit(&spec, dir.path(), None);
    let bytes = std::fs::read(&good).unwrap();
    let out = tempfile::tempdir().unwrap();
    let damaged = dir.path().join("damaged.kgunit");
    // A stride keeps the test short while touching the magic, the header and the payload.
    let step = (bytes.len() / 400).max(1);
    let mut tried = 0;
    for at in (0..bytes.len()).step_by(step) {
        for bit in [0x01u8, 0x80] {
            let mut b = bytes.clone();
            b[at] ^= bit;
            std::fs::write(&damaged, &b).unwrap();
            match link(out.path(), vec![damaged.clone()]) {
                Err(CompileError::Unit(u)) => {
                    assert!(u.code().starts_with("UNIT_"), "{u}");
                }
                Err(other) => panic!("byte {at}: not a unit error: {other}"),
                Ok(_) => panic!("byte {at} flipped ({bit:#x}) was linked"),
            }
            tried += 1;
        }
    }
    assert!(tried >= 400, "{tried}");
    assert_eq!(IndexDir::new(out.path()).current().unwrap(), None);
}

#[test]
fn units_are_made_and_linked_by_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_kivgraph-compile");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(bin)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let app = format!("app={}", fixtures().join("go/pair/app").display());
    let lib = format!("mathlib={}", fixtures().join("go/pair/mathlib").display());
    let (ok, stdout, stderr) = run(&["unit", "--json", &app]);
    assert!(ok, "{stderr}");
    let s: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(s["header"]["repository"], "app");
    assert!(dir.path().join("app.kgunit").is_file());
    let (ok, stdout, stderr) = run(&["unit", "-o", "lib.kgunit", &lib]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("unit of mathlib written to lib.kgunit"),
        "{stdout}"
    );
    let (ok, stdout, stderr) = run(&["link", "--out", "idx", "app.kgunit", "lib.kgunit"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("generation 000001 published"), "{stdout}");

    let whole = tempfile::tempdir().unwrap();
    let (ok, _, stderr) = run(&[
        "--out",
        whole.path().to_str().unwrap(),
        "--rust-sysroot",
        "off",
        "--no-cache",
        &app,
        &lib,
    ]);
    assert!(ok, "{stderr}");
    let current = |d: &Path| {
        let idx = IndexDir::new(d);
        idx.generation_dir(idx.current().unwrap().unwrap())
    };
    assert_eq!(
        generation_files(current(&dir.path().join("idx"))),
        generation_files(current(whole.path()))
    );

    std::fs::write(dir.path().join("bad.kgunit"), b"KGUNIT").unwrap();
    let (ok, _, stderr) = run(&["link", "--out", "idx", "bad.kgunit"]);
    assert!(!ok);
    assert!(
        stderr.contains("error: UNIT_CORRUPT: bad.kgunit"),
        "{stderr}"
    );
}
