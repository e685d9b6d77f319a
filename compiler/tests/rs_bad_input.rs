//! Broken Rust input yields facts plus diagnostics, never a failed build: binary, non-UTF-8,
//! unparsable and absurdly nested files are recorded with their status, a `mod` without a file
//! is an unresolved record, an invalid `Cargo.toml` is a diagnostic, and Cargo's `target/` is
//! never walked.

use crate::shared;
use kivgraph_compile::{CompileOptions, RepoSpec, RustSysroot, compile};

use std::path::Path;

use kivgraph_format::{FileStatus, Generation, IndexDir};

fn write(root: &std::path::Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

#[test]
fn broken_rust_is_recorded_not_fatal() {
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    let n = 50_000;
    write(
        p,
        "Cargo.toml",
        "[package]\nname = \"bad-crate\"\nedition = \"2021\"\n",
    );
    write(
        p,
        "src/lib.rs",
        "mod binary;\nmod latin1;\nmod broken;\nmod deep;\nmod missing;\nmod target;\n\npub fn root() -> u32 { broken::good() }\n",
    );
    write(p, "src/binary.rs", b"pub fn b() {}\n\x00\x01\x02");
    write(p, "src/latin1.rs", b"// caf\xe9\npub fn l() {}\n");
    write(
        p,
        "src/broken.rs",
        "pub fn good() -> u32 { 1 }\n\npub fn broken( {\n    let x = ;\n}\n\npub fn after() -> u32 { good() }\n",
    );
    write(
        p,
        "src/deep.rs",
        format!(
            "pub fn shallow() {{}}\n\npub fn parens() -> u32 {{ {}1{} }}\n\npub fn blocks() {{ {}{} }}\n\npub fn chain(x: u32) {{ x{}; }}\n\npub type T = {}u8{};\n\npub fn path() {{ {}f(); }}\n",
            "(".repeat(n),
            ")".repeat(n),
            "{".repeat(n),
            "}".repeat(n),
            ".f".repeat(n),
            "Vec<".repeat(n),
            ">".repeat(n),
            "a::".repeat(n),
        ),
    );
    // A directory named `target` that is a module, not beside a Cargo.toml: walked.
    write(p, "src/target/mod.rs", "pub fn in_module() {}\n");
    // Cargo's build output beside the Cargo.toml: never walked.
    write(p, "target/debug/build/out.rs", "pub fn generated() {}\n");
    // A file no `mod` reaches.
    write(p, "src/orphan.rs", "pub fn orphan() {}\n");
    // A package whose manifest is not TOML: a diagnostic, and its files are still recorded.
    write(p, "sub/Cargo.toml", "[package\nname = ");
    write(p, "sub/src/lib.rs", "pub fn sub() {}\n");

    let out = tempfile::tempdir().unwrap();
    let summary = compile(&CompileOptions {
        out: out.path().into(),
        repos: vec![RepoSpec::parse(&format!("bad={}", p.display())).unwrap()],
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    })
    .unwrap();
    let messages: Vec<String> = summary
        .diagnostic_sample
        .iter()
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    for expected in [
        "src/binary.rs: binary",
        "src/latin1.rs: not valid UTF-8",
        "sub/Cargo.toml: Cargo.toml is not valid TOML",
        "src/orphan.rs: no crate root reaches this file",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(expected)),
            "no diagnostic {expected:?} in {messages:?}"
        );
    }

    let generation = Generation::open_current(&IndexDir::new(out.path()))
        .unwrap()
        .unwrap();
    let g = generation.graph();
    let s = |id: u32| g.strings.get(id);
    let status = |path: &str| {
        let f = g
            .files
            .iter()
            .find(|f| s(f.path.to_native()) == path)
            .unwrap_or_else(|| panic!("{path} not recorded"));
        FileStatus::from_code(f.status).unwrap()
    };
    assert_eq!(status("src/lib.rs"), FileStatus::Indexed);
    assert_eq!(status("src/binary.rs"), FileStatus::Binary);
    assert_eq!(status("src/latin1.rs"), FileStatus::NotUtf8);
    assert_eq!(status("src/broken.rs"), FileStatus::Partial);
    assert_eq!(status("src/deep.rs"), FileStatus::Partial);
    assert_eq!(status("src/target/mod.rs"), FileStatus::Indexed);
    assert_eq!(status("src/orphan.rs"), FileStatus::BuildExcluded);
    assert_eq!(status("sub/src/lib.rs"), FileStatus::BuildExcluded);
    assert!(
        !g.files
            .iter()
            .any(|f| s(f.path.to_native()).starts_with("target/")),
        "target/ beside Cargo.toml was walked"
    );

    // The parsable parts of the broken and deep files still produce facts, in their modules.
    let symbols: Vec<(String, &str)> = g
        .symbols
        .iter()
        .map(|x| {
            (
                s(g.packages[x.package.to_native() as usize].name.to_native()).to_string(),
                s(x.qualified_name.to_native()),
            )
        })
        .collect();
    for (pkg, qn) in [
        ("bad_crate::broken", "good"),
        ("bad_crate::broken", "after"),
        ("bad_crate::deep", "shallow"),
        ("bad_crate::deep", "parens"),
        ("bad_crate::deep", "chain"),
        ("bad_crate::target", "in_module"),
        ("bad_crate", "root"),
    ] {
        assert!(
            symbols.iter().any(|(p, q)| p == pkg && *q == qn),
            "no symbol {pkg}:{qn} in {symbols:?}"
        );
    }
    // The call into the broken file still binds.
    let root = g
        .symbols
        .iter()
        .position(|x| s(x.qualified_name.to_native()) == "root")
        .unwrap();
    let calls: Vec<&str> = g
        .forward
        .row(root as u32)
        .iter()
        .map(|e| {
            s(g.symbols[e.other.to_native() as usize]
                .qualified_name
                .to_native())
        })
        .collect();
    assert!(calls.contains(&"good"), "{calls:?}");

    // `mod missing;` names no file.
    let missing: Vec<(&str, &str)> = g
        .unresolved
        .iter()
        .map(|u| (s(u.reason.to_native()), s(u.requested_package.to_native())))
        .collect();
    assert!(
        missing.contains(&("MODULE_FILE_NOT_FOUND", "bad_crate::missing")),
        "{missing:?}"
    );
}

/// The standard library's files that no crate root reaches, or that do not parse whole, are
/// counted in one diagnostic line, not one per file (a real `rust-src` has hundreds).
#[test]
fn a_derived_library_summarises_its_unreached_and_partial_files() {
    let lib = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/rust/sysroot/library");
    shared::copy_dir(&fixtures, lib.path());
    let p = lib.path();
    write(p, "core/src/unreached_a.rs", "pub fn a() {}\n");
    write(p, "core/src/unreached_b.rs", "pub fn b() {}\n");
    let core_lib = std::fs::read_to_string(p.join("core/src/lib.rs")).unwrap();
    write(
        p,
        "core/src/lib.rs",
        format!("{core_lib}\npub mod broken;\n"),
    );
    write(p, "core/src/broken.rs", "pub fn ok() {}\nfn ( {\n");
    let user = tempfile::tempdir().unwrap();
    write(
        user.path(),
        "Cargo.toml",
        "[package]\nname = \"u\"\nversion = \"0.1.0\"\n",
    );
    write(
        user.path(),
        "src/lib.rs",
        "pub fn u() -> Option<u8> { None }\n",
    );

    let out = tempfile::tempdir().unwrap();
    let summary = compile(&CompileOptions {
        out: out.path().into(),
        repos: vec![
            RepoSpec::parse(&format!("u={}", user.path().display())).unwrap(),
            RepoSpec::parse_derived(&format!("rust:1.95.0={}", p.display())).unwrap(),
        ],
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache: Default::default(),
    })
    .unwrap();
    let derived: Vec<String> = summary
        .diagnostic_sample
        .iter()
        .filter(|d| d.repository == "rust:1.95.0")
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    // One line for the whole library.
    assert_eq!(derived.len(), 1, "{derived:?}");
    assert!(
        derived[0].starts_with(".: 1 files have syntax errors"),
        "{derived:?}"
    );
    assert!(
        derived[0].contains("; 2 files are reached by no crate root"),
        "{derived:?}"
    );
}
