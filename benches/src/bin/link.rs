//! Compile units and the link, against a whole compile of the same sources.
//!
//! The repositories are copied to a temporary directory (the originals are never touched).
//! Then, with `kivgraph-compile` run as a child process each time (as CI runs it):
//! 1. `unit` for each repository (no extraction cache): total and slowest wall time, peak RSS;
//! 2. `link` of every unit: wall time and peak RSS;
//! 3. a whole compile of the same repositories in the same order (`--full --no-cache
//!    --rust-sysroot off`): wall time and peak RSS; its tables and blobs must equal the link's;
//! 4. one unit's repository edited (a declaration appended to one of its files), its unit made
//!    again and every unit linked again: the relink; compared with a whole compile again.
//!
//! Repositories: `--split DIR` takes each top-level directory of DIR as one repository (a copy
//! of Go's standard library, whose `go.mod` says `module std`, gets a `go.mod` naming each
//! directory's module by the directory, so that import paths stay those of the whole);
//! `--synthetic N` makes N small Go modules that import each other; or `[NAME=]PATH...`. With
//! `--derived rust:RELEASE=PATH` the standard library is one more unit (`unit --derived`, not
//! copied), and the whole compile gets it with `--derived`. Links keep a cache (`--cache-dir`)
//! from the first link to the relink, as CI does.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin link -- (--split DIR | --synthetic N |
//! NAME=PATH...) [--derived rust:RELEASE=PATH] [--seed S]`

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use kivgraph_benches::Rng;

/// What one child run took: wall seconds, peak RSS in MiB, its stdout.
struct Run {
    secs: f64,
    peak_mib: f64,
    stdout: Vec<u8>,
}

/// Runs `cmd` to the end and reads its own peak RSS (`wait4`'s resource usage).
fn run(mut cmd: Command) -> anyhow::Result<Run> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let t = Instant::now();
    let mut child = cmd.spawn()?;
    let mut out = child.stdout.take().context("stdout")?;
    let mut err = child.stderr.take().context("stderr")?;
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for the child we spawned.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` outlive the call.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let secs = t.elapsed().as_secs_f64();
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    if pid < 0 {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    let status = std::process::ExitStatus::from_raw(status);
    if !status.success() {
        bail!(
            "{cmd:?} failed ({status}): {}",
            String::from_utf8_lossy(&stderr)
        );
    }
    Ok(Run {
        secs,
        peak_mib: usage.ru_maxrss as f64 / 1024.0,
        stdout,
    })
}

/// Each top-level directory of `dir`, copied under `into`, as (name, path).
fn split(dir: &Path, into: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    kivgraph_benches::copy_tree(dir, into)?;
    let std_module = std::fs::read_to_string(into.join("go.mod"))
        .is_ok_and(|m| m.lines().any(|l| l.trim() == "module std"));
    let mut repos = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(into)?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n != "testdata")
        .collect();
    names.sort();
    for name in names {
        let path = into.join(&name);
        if std_module && !path.join("go.mod").exists() {
            std::fs::write(path.join("go.mod"), format!("module {name}\n"))?;
        }
        repos.push((name, path));
    }
    Ok(repos)
}

/// `n` Go modules `example.com/mNNNN`, each two packages of a few functions that call into
/// packages of up to three modules made before it.
fn synthetic(n: usize, into: &Path, rng: &mut Rng) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let mut repos = Vec::new();
    for i in 0..n {
        let name = format!("m{i:04}");
        let root = into.join(&name);
        std::fs::create_dir_all(root.join("core"))?;
        std::fs::create_dir_all(root.join("api"))?;
        std::fs::write(root.join("go.mod"), format!("module example.com/{name}\n"))?;
        let deps: Vec<usize> = if i == 0 {
            Vec::new()
        } else {
            (0..rng.range(1, 4)).map(|_| rng.below(i)).collect()
        };
        let mut core = String::from("package core\n\n");
        core += "type Store struct{ items map[string]int }\n\n";
        core += "func NewStore() *Store { return &Store{items: map[string]int{}} }\n\n";
        for f in 0..12 {
            core += &format!(
                "func (s *Store) Put{f}(k string, v int) {{ s.items[k] = v + {f} }}\n\n\
                 func (s *Store) Get{f}(k string) int {{ return s.items[k] - {f} }}\n\n\
                 func Helper{f}(x int) int {{\n\tif x > {f} {{\n\t\treturn x * 2\n\t}}\n\treturn x + {f}\n}}\n\n"
            );
        }
        std::fs::write(root.join("core/core.go"), core)?;
        let mut api = String::from("package api\n\nimport (\n");
        api += &format!("\t\"example.com/{name}/core\"\n");
        for d in &deps {
            api += &format!("\tdep{d} \"example.com/m{d:04}/core\"\n");
        }
        api += ")\n\n";
        for f in 0..12 {
            api += &format!(
                "func Serve{f}(k string) int {{\n\ts := core.NewStore()\n\ts.Put{f}(k, {f})\n\tv := s.Get{f}(k)\n"
            );
            for d in &deps {
                api += &format!(
                    "\tv += dep{d}.Helper{}(v)\n\tv += dep{d}.NewStore().Get{}(k)\n",
                    f % 12,
                    (f + 1) % 12
                );
            }
            api += "\treturn core.Helper0(v)\n}\n\n";
        }
        std::fs::write(root.join("api/api.go"), api)?;
        repos.push((name, root));
    }
    Ok(repos)
}

/// The first source file (by path) under `root`.
fn first_source(root: &Path) -> Option<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    let mut found: Vec<PathBuf> = Vec::new();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| matches!(x, "go" | "py" | "ts" | "rs" | "dart"))
            {
                found.push(p);
            }
        }
    }
    found.sort();
    found.into_iter().next()
}

fn tables(index: &Path) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let idx = kivgraph_format::IndexDir::new(index);
    kivgraph_benches::generation_files(
        &idx.generation_dir(idx.current()?.context("no generation")?),
    )
}

fn make_unit(name: &str, path: &Path, units: &Path) -> anyhow::Result<(PathBuf, Run)> {
    let file = units.join(format!("{}.kgunit", name.replace(':', "-")));
    let mut cmd = Command::new(kivgraph_benches::compiler_binary());
    cmd.arg("unit").arg("--json").arg("-o").arg(&file);
    if name.starts_with("rust:") {
        cmd.arg("--derived");
    }
    cmd.arg(format!("{name}={}", path.display()));
    Ok((file, run(cmd)?))
}

fn link(out: &Path, cache: &Path, units: &[PathBuf]) -> anyhow::Result<Run> {
    let mut cmd = Command::new(kivgraph_benches::compiler_binary());
    cmd.arg("link")
        .arg("--json")
        .arg("--out")
        .arg(out)
        .arg("--cache-dir")
        .arg(cache)
        .arg("--")
        .args(units);
    run(cmd)
}

fn whole(
    out: &Path,
    repos: &[(String, PathBuf)],
    derived: Option<&(String, PathBuf)>,
) -> anyhow::Result<Run> {
    let mut cmd = Command::new(kivgraph_benches::compiler_binary());
    cmd.args([
        "--json",
        "--full",
        "--no-cache",
        "--rust-sysroot",
        "off",
        "--out",
    ])
    .arg(out);
    if let Some((n, p)) = derived {
        cmd.arg("--derived").arg(format!("{n}={}", p.display()));
    }
    cmd.arg("--");
    for (n, p) in repos {
        cmd.arg(format!("{n}={}", p.display()));
    }
    run(cmd)
}

fn summary_line(what: &str, r: &Run) -> anyhow::Result<String> {
    let s: serde_json::Value = serde_json::from_slice(&r.stdout)?;
    Ok(format!(
        "{what}: {:.3} s, peak RSS {:.1} MiB ({} symbols, {} edges, {} unresolved)",
        r.secs, r.peak_mib, s["rows"]["symbols"], s["rows"]["edges"], s["rows"]["unresolved"]
    ))
}

fn main() -> anyhow::Result<()> {
    let cli = kivgraph_benches::Cli::new(
        "usage: link (--split DIR | --synthetic N | [NAME=]PATH...) [--derived rust:RELEASE=PATH] [--seed S]",
    );
    let tmp = tempfile::tempdir()?;
    let src = tmp.path().join("src");
    let mut rng = Rng::new(cli.value("--seed", 7u64)?);
    let split_dir: String = cli.value("--split", String::new())?;
    let n_synth: usize = cli.value("--synthetic", 0)?;
    let derived: Option<(String, PathBuf)> = match cli.value("--derived", String::new())? {
        d if d.is_empty() => None,
        d => {
            let (n, p) = d.split_once('=').context("--derived rust:RELEASE=PATH")?;
            Some((n.to_string(), PathBuf::from(p)))
        }
    };
    let repos = if !split_dir.is_empty() {
        split(Path::new(&split_dir), &src)?
    } else if n_synth > 0 {
        synthetic(n_synth, &src, &mut rng)?
    } else {
        let mut repos = Vec::new();
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            if a == "--seed" || a == "--derived" {
                args.next();
                continue;
            }
            let (name, path) = match a.split_once('=') {
                Some((n, p)) => (n.to_string(), PathBuf::from(p)),
                None => {
                    let p = PathBuf::from(&a);
                    let n = p
                        .file_name()
                        .map_or("repo".into(), |n| n.to_string_lossy().into_owned());
                    (n, p)
                }
            };
            let to = src.join(&name);
            kivgraph_benches::copy_tree(&path, &to)?;
            repos.push((name, to));
        }
        repos
    };
    if repos.is_empty() {
        bail!("no repository given");
    }
    let units_dir = tmp.path().join("units");
    std::fs::create_dir_all(&units_dir)?;

    let t = Instant::now();
    let mut units = Vec::new();
    let mut slowest = (0.0f64, String::new());
    let mut peak = 0.0f64;
    let mut bytes = 0u64;
    let mut lines = 0u64;
    for (name, path) in repos.iter().chain(derived.iter()) {
        let (file, r) = make_unit(name, path, &units_dir)?;
        let s: serde_json::Value = serde_json::from_slice(&r.stdout)?;
        bytes += s["bytes"].as_u64().unwrap_or(0);
        lines += s["source_lines"].as_u64().unwrap_or(0);
        if r.secs > slowest.0 {
            slowest = (r.secs, name.clone());
        }
        peak = peak.max(r.peak_mib);
        units.push(file);
    }
    println!(
        "{} units, {lines} lines: made in {:.2} s in all (one at a time), slowest {:.3} s ({}), largest peak RSS {:.1} MiB; {:.1} MiB of units",
        units.len(),
        t.elapsed().as_secs_f64(),
        slowest.0,
        slowest.1,
        peak,
        bytes as f64 / (1 << 20) as f64
    );

    let linked = tmp.path().join("linked");
    let cache = tmp.path().join("link-cache");
    let l = link(&linked, &cache, &units)?;
    println!("{}", summary_line("link", &l)?);
    let compiled = tmp.path().join("compiled");
    let w = whole(&compiled, &repos, derived.as_ref())?;
    println!("{}", summary_line("whole compile", &w)?);
    if tables(&linked)? != tables(&compiled)? {
        bail!("the link's generation differs from the whole compile's");
    }
    println!("link and whole compile: tables and blobs byte-identical");

    // One unit changed: the middle one.
    let (name, path) = &repos[repos.len() / 2];
    let file = first_source(path).context("the edited repository has no source file")?;
    let mut text = std::fs::read_to_string(&file)?;
    text += if file.extension().is_some_and(|x| x == "go") {
        "\nfunc KivgraphBenchEdit() int { return 1 }\n"
    } else {
        "\n// kivgraph bench edit\n"
    };
    std::fs::write(&file, text)?;
    let (_, u) = make_unit(name, path, &units_dir)?;
    let relinked = tmp.path().join("relinked");
    let l2 = link(&relinked, &cache, &units)?;
    println!(
        "relink after {name} changed ({}): unit {:.3} s, link {:.3} s, peak RSS {:.1} MiB",
        file.strip_prefix(&src).unwrap_or(&file).display(),
        u.secs,
        l2.secs,
        l2.peak_mib
    );
    let compiled2 = tmp.path().join("compiled2");
    whole(&compiled2, &repos, derived.as_ref())?;
    if tables(&relinked)? != tables(&compiled2)? {
        bail!("the relinked generation differs from the whole compile's");
    }
    println!("relink and whole compile after the change: byte-identical");
    Ok(())
}
