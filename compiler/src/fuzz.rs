//! Fuzzing the front ends: the fixture repositories of every language, with a few files
//! mutated the way broken, half-edited and hostile sources look (bytes flipped, brackets and
//! keywords inserted, ranges deleted or repeated, files cut short), compiled in memory. A
//! compile must finish with consistent facts whatever the bytes, and no file's extraction may
//! panic (a caught panic is still a bug: it loses the file's declarations).
//!
//! `KIVGRAPH_FUZZ_ITERATIONS` sets the compiles per repository (default 6, as `scripts/test`
//! runs it) and `KIVGRAPH_FUZZ_SEED` the seed; the test prints what it ran.

use std::path::{Path, PathBuf};

use crate::{RepoSpec, RustSysroot, gather_and_resolve};

/// The fixture repositories mutated, each with the extensions of the files worth mutating.
const REPOSITORIES: &[(&str, &[&str])] = &[
    ("go/shapes", &["go", "mod"]),
    ("go/constructs", &["go"]),
    ("ts/shop", &["ts", "tsx", "json"]),
    ("ts/legacy", &["js", "jsx", "json"]),
    ("ts/ui", &["ts", "tsx"]),
    ("python/shop", &["py", "toml"]),
    ("rust/geo", &["rs", "toml"]),
    ("dart/shop", &["dart", "yaml"]),
];

/// What the mutations insert: the delimiters and keywords parsers and walkers care about.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "\"",
    "'",
    "`",
    "\"\"\"",
    "/*",
    "*/",
    "//",
    "#",
    "\n",
    "\t",
    ":",
    ";",
    ",",
    ".",
    "=>",
    "->",
    "::",
    "@",
    "\\",
    "\0",
    "\u{feff}",
    "é",
    "func ",
    "function ",
    "class ",
    "def ",
    "fn ",
    "impl ",
    "import ",
    "export ",
    "package ",
    "mod ",
    "use ",
    "from ",
    "extends ",
    "async ",
    "await ",
    "yield ",
    "lambda ",
    "macro_rules! ",
    "interface ",
    "type ",
    "enum ",
    "struct ",
    "trait ",
    "part of ",
    "library ",
    "<T>(v: T): T;",
];

/// splitmix64: small, seedable and good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Applies one to four mutations to `bytes`.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = rng.below(len + 1);
        match rng.below(7) {
            0 if len > 0 => bytes[at.min(len - 1)] ^= 1 << rng.below(8),
            1 | 2 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                let times = 1 + rng.below(3) * rng.below(40);
                for _ in 0..times {
                    bytes.splice(at..at, token.iter().copied());
                }
            }
            3 => {
                let end = (at + rng.below(200)).min(len);
                bytes.drain(at..end);
            }
            4 => {
                let end = (at + rng.below(400)).min(len);
                let copy = bytes[at..end].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, copy);
            }
            5 => bytes.truncate(at),
            _ => {
                let start = rng.below(len + 1);
                let end = (start + rng.below(60)).min(len);
                bytes[start..end].reverse();
            }
        }
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutated_sources_never_stop_a_compile() {
    let iterations = env_number("KIVGRAPH_FUZZ_ITERATIONS", 6);
    let seed = env_number("KIVGRAPH_FUZZ_SEED", 0x6b69_7667);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut rng = Rng(seed);
    let (mut compiles, mut mutated_files, mut partial) = (0u64, 0u64, 0u64);
    for (repository, extensions) in REPOSITORIES {
        let source = fixtures.join(repository).canonicalize().unwrap();
        let mut files = Vec::new();
        files_under(&source, &mut files);
        files.sort();
        let candidates: Vec<&PathBuf> = files
            .iter()
            .filter(|f| {
                f.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| extensions.contains(&e))
            })
            .collect();
        assert!(!candidates.is_empty(), "{repository}: nothing to mutate");
        for _ in 0..iterations {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().canonicalize().unwrap().join("repo");
            let chosen: Vec<&PathBuf> = (0..1 + rng.below(3))
                .map(|_| candidates[rng.below(candidates.len())])
                .collect();
            let mut what = Vec::new();
            for file in &files {
                let rel = file.strip_prefix(&source).unwrap();
                let mut bytes = std::fs::read(file).unwrap();
                if chosen.contains(&file) {
                    mutate(&mut rng, &mut bytes);
                    what.push(rel.display().to_string());
                    mutated_files += 1;
                }
                let to = root.join(rel);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::write(to, bytes).unwrap();
            }
            let spec = RepoSpec {
                name: "fuzzed".into(),
                root: root.clone(),
                derived: false,
                languages: None,
            };
            let (facts, _) = gather_and_resolve(
                &[spec],
                RustSysroot::Off,
                &crate::progress::Progress::new(false),
            );
            let panicked: Vec<_> = facts
                .diagnostics
                .iter()
                .filter(|d| d.message.contains("extraction failed"))
                .map(|d| format!("{}: {}", d.path, d.message))
                .collect();
            let finished = facts.finish().unwrap_or_else(|e| {
                panic!("{repository} with {what:?} mutated: inconsistent facts: {e}")
            });
            assert!(
                panicked.is_empty(),
                "{repository} with {what:?} mutated (seed {seed}): {panicked:?}"
            );
            partial += finished
                .files
                .iter()
                .filter(|f| f.status == kivgraph_format::FileStatus::Partial)
                .count() as u64;
            compiles += 1;
        }
    }
    println!(
        "fuzz: seed {seed}, {compiles} compiles, {mutated_files} files mutated, {partial} files marked partial, no panic"
    );
}
