//! Discovery's records: a compile does not read a source file whose status (size, times, inode)
//! is the one a former compile recorded when it read it, unless the file was written too close
//! to that compile to trust; any change of bytes is read, a damaged record file is ignored, and
//! what is published is always what a compile that reads every file publishes.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::shared::generation_files as tables;
use kivgraph_compile::{CacheOptions, CompileOptions, RepoSpec, RustSysroot, Summary, compile};

fn options(out: &Path, repo: &Path, cache: CacheOptions) -> CompileOptions {
    CompileOptions {
        out: out.into(),
        repos: vec![RepoSpec::parse(&format!("m={}", repo.display())).unwrap()],
        fault: None,
        progress: false,
        rust_sysroot: RustSysroot::Off,
        keep: kivgraph_format::layout::DEFAULT_KEEP,
        cache,
    }
}

/// Writes `text` to `path` with a modification time an hour ago.
fn write_old(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

/// A compile that reads every file, into a fresh index: what every compile must publish.
fn reference(repo: &Path) -> Vec<(String, Vec<u8>)> {
    let out = tempfile::tempdir().unwrap();
    tables(
        compile(&options(out.path(), repo, CacheOptions::off()))
            .unwrap()
            .generation_dir,
    )
}

#[test]
fn unchanged_files_are_not_read_and_every_change_is() {
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    std::fs::write(p.join("go.mod"), "module example.com/m\n").unwrap();
    write_old(
        &p.join("a.go"),
        "package m\n\nfunc Abc() int { return Xyz() }\n",
    );
    write_old(
        &p.join("b.go"),
        "package m\n\nfunc Xyz() int { return 1 }\n",
    );
    write_old(
        &p.join("win.go"),
        "//go:build windows\n\npackage m\n\nfunc Win() {}\n",
    );
    write_old(&p.join("m.py"), "def py():\n    pass\n\npy()\n");
    write_old(&p.join("blob.py"), "binary\0content\n");
    // A file's status change time cannot be put back: it is trusted once it is older than the
    // recording compile's start by the margin.
    let settle = || std::thread::sleep(Duration::from_millis(2100));
    settle();
    let out = tempfile::tempdir().unwrap();
    let opts = options(out.path(), p, CacheOptions::default());
    let run = || -> Summary { compile(&opts).unwrap() };

    let first = run();
    assert_eq!(first.files_not_read, 0);
    assert_eq!(tables(&first.generation_dir), reference(p));
    // Every source file, the binary one and the one its build constraint excludes included.
    let second = run();
    assert_eq!(second.files_not_read, 5);
    assert_eq!(tables(&second.generation_dir), reference(p));

    // Same size, and the very same modification time put back: the status change time moves.
    let b = p.join("b.go");
    let mtime = std::fs::metadata(&b).unwrap().modified().unwrap();
    std::fs::write(&b, "package m\n\nfunc Abc() int { return 2 }\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&b)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&b).unwrap().modified().unwrap(), mtime);
    settle();
    let edited = run();
    assert_eq!(edited.files_not_read, 4);
    assert_eq!(tables(&edited.generation_dir), reference(p));
    assert_ne!(
        tables(&edited.generation_dir),
        tables(&second.generation_dir)
    );

    // A file written just now is read by every compile until it is older than the record.
    std::fs::write(p.join("new.py"), "def fresh():\n    pass\n").unwrap();
    assert_eq!(run().files_not_read, 5, "the edited file read again");
    let racy = run();
    assert_eq!(
        racy.files_not_read, 5,
        "a file written in the last seconds was trusted"
    );
    assert_eq!(tables(&racy.generation_dir), reference(p));

    // An extraction no longer cached is read from the file the records vouched for.
    std::fs::remove_dir_all(out.path().join("cache/packs")).unwrap();
    let uncached = run();
    assert!(uncached.files_not_read >= 5);
    assert_eq!(tables(&uncached.generation_dir), reference(p));

    // Damaged records are no records: every file is read, nothing else changes.
    let stat = out.path().join("cache/stat");
    for e in std::fs::read_dir(&stat).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "bin") {
            continue; // the marker of the compile's start
        }
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x40;
        std::fs::write(&path, bytes).unwrap();
    }
    let damaged = run();
    assert_eq!(damaged.files_not_read, 0);
    assert_eq!(tables(&damaged.generation_dir), reference(p));
}

#[test]
fn a_file_whose_status_changed_too_recently_is_read_again() {
    // Modification time an hour ago, status change time now: within the margin of the first
    // compile's start, so the second compile reads it again rather than trusting its record.
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    std::fs::write(p.join("go.mod"), "module example.com/m\n").unwrap();
    write_old(&p.join("a.go"), "package m\n\nfunc Abc() {}\n");
    let out = tempfile::tempdir().unwrap();
    let opts = options(out.path(), p, CacheOptions::default());
    assert_eq!(compile(&opts).unwrap().files_not_read, 0);
    assert_eq!(compile(&opts).unwrap().files_not_read, 0);
}
