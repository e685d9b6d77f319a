//! Damaged and changing indexes: a flipped bit is refused when a generation is opened or withholds
//! the answers that read it (never a row, never a panic), and a
//! server whose files are truncated, overwritten, deleted or replaced while it runs keeps
//! answering, from the last generation that is still whole or with a coded error that says what
//! is wrong, and never dies.

use crate::common::compile_go_fixtures;
use crate::common::serve::Server;

use std::fs;
use std::path::Path;
use std::time::Duration;

use kivgraph::store::Store;
use kivgraph::tools;
use kivgraph_format::{Generation, IndexDir};
use serde_json::{Value, json};

/// Copies generation directory `from` to `to`.
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for f in fs::read_dir(from).unwrap() {
        let f = f.unwrap();
        fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
}

/// A compiled generation and a copy of it to damage: (the two temporary directories, the
/// original generation directory, the copy).
fn a_copy_of_a_generation() -> (
    tempfile::TempDir,
    tempfile::TempDir,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let template = tempfile::tempdir().unwrap();
    compile_go_fixtures(template.path());
    let good = IndexDir::new(template.path()).generation_dir(1);
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("000001");
    copy_dir(&good, &dir);
    (template, work, good, dir)
}

/// Offsets spread over a file of `len` bytes, the header's first 64 included.
fn offsets(len: usize, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..64.min(len)).step_by(5).collect();
    v.extend((0..n).map(|i| (i * len / n + 7 * i) % len));
    v.sort_unstable();
    v.dedup();
    v
}

/// The questions a sweep asks of a generation: every tool, over a sample of its symbols, files
/// and names, so that together they read most of the blob and the name index.
fn sweep(g: &Generation) -> Vec<(&'static str, Value)> {
    let b = g.graph();
    let mut calls = vec![
        ("list_repositories", json!({})),
        (
            "find_symbol",
            json!({"name": "a", "mode": "substring", "limit": 200}),
        ),
        ("find_symbol", json!({"name": "Ar", "mode": "prefix"})),
        ("find_by_intent", json!({"question": "area of a shape"})),
        (
            "find_by_intent",
            json!({"question": "inventory stock item count"}),
        ),
    ];
    for (i, s) in b.symbols.iter().enumerate() {
        let key = b.strings.get(s.key.to_native()).to_string();
        let name = b.strings.get(s.name.to_native()).to_string();
        calls.push((
            "find_references",
            json!({"stable_key": key, "view": "full", "edge_kinds": ["*"]}),
        ));
        if i % 3 == 0 {
            calls.push(("find_symbol", json!({"name": name})));
            calls.push(("get_blast_radius", json!({"stable_key": key, "depth": 3})));
            calls.push(("trace_dependencies", json!({"stable_key": key, "depth": 3})));
            calls.push(("get_symbol", json!({"stable_key": key})));
            calls.push(("find_cross_repo_consumers", json!({"stable_key": key})));
        }
    }
    for f in b.files.iter() {
        let repo = b.strings.get(
            b.repositories[f.repository.to_native() as usize]
                .name
                .to_native(),
        );
        let path = b.strings.get(f.path.to_native());
        calls.push((
            "get_file_outline",
            json!({"repository": repo, "path": path}),
        ));
    }
    calls
}

/// Asks every question of `calls` of `g`. Each answer must be the answer of the whole
/// generation `good` gave, or SNAPSHOT_UNAVAILABLE: a damaged byte is never a row. Returns how
/// many answers were withheld.
fn withheld_answers(
    g: &std::sync::Arc<Generation>,
    calls: &[(&'static str, Value)],
    good: &[Result<String, String>],
    what: &str,
) -> usize {
    let mut withheld = 0;
    for ((tool, args), good) in calls.iter().zip(good) {
        match call(g, tool, args) {
            Err(e) if e.starts_with("SNAPSHOT_UNAVAILABLE: ") => {
                assert!(e.contains("is inconsistent"), "{e}");
                withheld += 1;
            }
            answer => assert_eq!(
                &answer, good,
                "{what}: {tool} {args} answered differently from the whole generation"
            ),
        }
    }
    withheld
}

fn answers(
    g: &std::sync::Arc<Generation>,
    calls: &[(&'static str, Value)],
) -> Vec<Result<String, String>> {
    calls
        .iter()
        .map(|(tool, args)| call(g, tool, args))
        .collect()
}

/// One answer, with the time since the generation was published left out (it is all that
/// differs between two asks of the same generation).
fn call(g: &std::sync::Arc<Generation>, tool: &str, args: &Value) -> Result<String, String> {
    tools::call(tool, args, Some(g.clone()))
        .map(|text| match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(mut m)) => {
                m.remove("snapshot_age_ms");
                Value::Object(m).to_string()
            }
            _ => text,
        })
        .map_err(|e| e.to_string())
}

/// A flipped bit of the blob or the name index is refused when the generation is opened (the
/// header, the archive's root, the name index's header) or withholds every answer that reads it,
/// and no answer of the damaged generation differs from the whole one's.
#[test]
fn every_flipped_bit_is_refused_at_open_or_by_the_answers_that_read_it() {
    let (_template, _work, good, dir) = a_copy_of_a_generation();
    let whole = std::sync::Arc::new(Generation::open_dir(&dir).unwrap());
    let calls = sweep(&whole);
    let expected = answers(&whole, &calls);
    drop(whole);
    assert!(expected.iter().filter(|a| a.is_ok()).count() > calls.len() / 2);
    let (mut at_open, mut by_answers) = (0, 0);
    for file in ["graph.blob", "names.fst"] {
        let original = fs::read(good.join(file)).unwrap();
        for (i, at) in offsets(original.len(), 24).into_iter().enumerate() {
            let mut bytes = original.clone();
            bytes[at] ^= 1 << (i % 8);
            fs::write(dir.join(file), &bytes).unwrap();
            match Generation::open_dir(&dir) {
                Err(_) => at_open += 1,
                Ok(g) => {
                    let g = std::sync::Arc::new(g);
                    let what = format!("{file} flipped at byte {at}");
                    let withheld = withheld_answers(&g, &calls, &expected, &what);
                    assert!(withheld > 0, "{what}: every answer was given");
                    by_answers += 1;
                }
            }
        }
        fs::write(dir.join(file), &original).unwrap();
    }
    assert!(at_open > 10 && by_answers > 20, "{at_open} {by_answers}");
    println!(
        "{} questions; of the single-bit flips of graph.blob and names.fst, {at_open} refused at open, {by_answers} withheld the answers that read them",
        calls.len()
    );
    assert!(Generation::open_dir(&dir).is_ok());
}

/// Where each array of the archive lies in `graph.blob`: (name, first byte, length in bytes).
fn regions(g: &Generation) -> Vec<(&'static str, usize, usize)> {
    g.graph()
        .regions()
        .into_iter()
        .map(|r| {
            (
                r.name,
                kivgraph_format::blob::BLOB_HEADER_LEN + r.start,
                r.len,
            )
        })
        .collect()
}

/// A corrupted byte in each region of the blob: the generation opens (opening reads none of
/// them), the questions that reach it are answered SNAPSHOT_UNAVAILABLE, every other question
/// gets the whole generation's answer, and a server on it keeps serving.
#[test]
fn a_corrupted_byte_in_each_region_withholds_only_the_answers_that_reach_it() {
    let (_template, _work, good, dir) = a_copy_of_a_generation();
    let whole = std::sync::Arc::new(Generation::open_dir(&dir).unwrap());
    let calls = sweep(&whole);
    let expected = answers(&whole, &calls);
    let original = fs::read(good.join("graph.blob")).unwrap();
    let mut report = Vec::new();
    for (name, start, len) in regions(&whole) {
        if len == 0 {
            continue;
        }
        let mut bytes = original.clone();
        bytes[start + len / 2] ^= 0x5a;
        fs::write(dir.join("graph.blob"), &bytes).unwrap();
        let g = match Generation::open_dir(&dir) {
            Ok(g) => std::sync::Arc::new(g),
            Err(e) => {
                // Only the block that holds the archive's root is read at open.
                assert!(e.to_string().contains("the root's block"), "{name}: {e}");
                report.push(format!("{name}: refused at open (the root's block)"));
                continue;
            }
        };
        let withheld = withheld_answers(&g, &calls, &expected, name);
        assert!(withheld > 0, "{name}: no answer reached the damage");
        assert!(withheld < calls.len(), "{name}: every answer was withheld");
        report.push(format!("{name} {withheld}"));
    }
    let opened = report.iter().filter(|r| !r.contains("refused")).count();
    assert!(opened * 4 >= report.len() * 3, "{report:?}");
    println!(
        "answers withheld of {} by region damaged: {}",
        calls.len(),
        report.join(", ")
    );

    // A server on a damaged generation answers the damage as a coded error and goes on serving.
    let index = tempfile::tempdir().unwrap();
    compile_go_fixtures(index.path());
    let blob = IndexDir::new(index.path())
        .generation_dir(1)
        .join("graph.blob");
    let served = Generation::open_dir(blob.parent().unwrap()).unwrap();
    let (_, start, len) = regions(&served)
        .into_iter()
        .find(|r| r.0 == "reverse edges")
        .unwrap();
    drop(served);
    let mut bytes = fs::read(&blob).unwrap();
    bytes[start + len / 2] ^= 0x5a;
    fs::remove_file(&blob).unwrap();
    fs::write(&blob, &bytes).unwrap();
    let mut server = Server::start(index.path(), &[]);
    let mut withheld = 0;
    for (tool, args) in calls.iter().filter(|c| c.0 == "find_references") {
        let (is_error, text) = server.call(tool, args.clone());
        if is_error {
            assert!(text.starts_with("SNAPSHOT_UNAVAILABLE: active snapshot (generation 000001) is inconsistent: graph.blob"), "{text}");
            withheld += 1;
        }
    }
    assert!(withheld > 0);
    let (is_error, text) = server.call("list_repositories", json!({}));
    assert!(!is_error, "{text}");
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    assert!(server.alive());
}

#[test]
fn a_manifest_that_names_another_generation_is_not_served() {
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let manifest = IndexDir::new(dir.path())
        .generation_dir(1)
        .join("manifest.json");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text.replace("\"generation_id\": 1", "\"generation_id\": 7"),
    )
    .unwrap();
    let store = Store::open(IndexDir::new(dir.path()));
    let e = tools::call_store("find_symbol", &json!({"name": "Area"}), &store).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("INDEX_NOT_READY: generation 000001 cannot be served"),
        "{text}"
    );
    assert!(
        text.contains("records generation 7 but lives in directory 000001"),
        "{text}"
    );
    let status: Value =
        serde_json::from_str(&tools::call_store("graph_status", &json!({}), &store).unwrap())
            .unwrap();
    assert_eq!(status["results"]["status"], "unavailable", "{status}");
    assert_eq!(status["results"]["problem"]["generation"], 1, "{status}");
}

#[test]
fn the_command_line_says_what_is_wrong_with_the_only_generation() {
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let blob = IndexDir::new(dir.path())
        .generation_dir(1)
        .join("graph.blob");
    let mut bytes = fs::read(&blob).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    fs::write(&blob, bytes).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .args(["query", "--index"])
        .arg(dir.path())
        .args(["find_symbol", r#"{"name":"Area"}"#])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.starts_with(
            "INDEX_NOT_READY: generation 000001 cannot be served: graph.blob: corrupted"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("kivgraph-compile verify"), "{stdout}");
    assert!(stderr.contains("generation not served"), "{stderr}");
}

/// Runs `f` on another thread; fails if it has not finished within a minute (a writer the
/// server never lets go of would wait for the kernel's lease-break time and more).
fn within_a_minute(f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the write waited too long");
}

/// Either an answer from a whole generation or, when none can be served, the query tools
/// withdrawn with the reason; returns the snapshot id.
fn answer(server: &mut Server) -> Option<u64> {
    let r = server.request(
        "tools/call",
        json!({"name": "find_symbol", "arguments": {"name": "Area"}}),
    );
    if let Some(e) = r.get("error") {
        let message = e["message"].as_str().unwrap();
        assert!(message.contains("cannot be served"), "{r}");
        return None;
    }
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert_ne!(r["result"]["isError"], true, "{text}");
    let v: Value = serde_json::from_str(text).unwrap();
    assert!(v["total"].as_u64().unwrap() > 0, "{v}");
    v["snapshot_id"].as_u64()
}

fn status(server: &mut Server) -> Value {
    let (error, text) = server.call("graph_status", json!({}));
    assert!(!error, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// Whether this file system grants read leases (Linux, files this user owns, and a file system
/// that has them).
#[cfg(target_os = "linux")]
fn leases_granted(dir: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let probe = dir.join("lease-probe");
    fs::write(&probe, b"x").unwrap();
    let file = fs::File::open(&probe).unwrap();
    // SAFETY: fcntl on a descriptor this test owns.
    let granted = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) } == 0;
    drop(file);
    fs::remove_file(probe).unwrap();
    granted
}

fn live_corruption(env: &[(&str, &str)], leases: bool) {
    let dir = tempfile::tempdir().unwrap();
    let index = IndexDir::new(dir.path());
    compile_go_fixtures(dir.path());
    compile_go_fixtures(dir.path());
    let mut server = Server::start(dir.path(), env);
    assert_eq!(answer(&mut server), Some(2));

    let blob = index.generation_dir(2).join("graph.blob");
    #[cfg(target_os = "linux")]
    if leases && leases_granted(dir.path()) {
        // The server holds a lease: a writer that will not wait is turned away (and the server
        // is told to let go), so no byte it reads can change under it.
        use std::os::unix::fs::OpenOptionsExt;
        let e = fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&blob)
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "{e}");
        assert_eq!(answer(&mut server), Some(2));
    }

    // Truncated in place while served: the server lets go and falls back to generation 1.
    within_a_minute(move || {
        fs::OpenOptions::new()
            .write(true)
            .open(&blob)
            .unwrap()
            .set_len(0)
            .unwrap()
    });
    assert_eq!(answer(&mut server), Some(1));
    let s = status(&mut server);
    assert_eq!(s["results"]["problem"]["generation"], 2, "{s}");

    // Overwritten in place with bytes of the same size: nothing whole is left to serve.
    let names = index.generation_dir(1).join("names.fst");
    let len = fs::metadata(&names).unwrap().len() as usize;
    within_a_minute(move || fs::write(&names, vec![0x5a; len]).unwrap());
    assert_eq!(answer(&mut server), None);

    // A new publish is served again.
    compile_go_fixtures(dir.path());
    assert_eq!(answer(&mut server), Some(3));
    assert!(status(&mut server)["results"].get("problem").is_none());

    // Replaced by a rename (what sync tools do): the served file is the old one, still whole.
    let names = index.generation_dir(3).join("names.fst");
    fs::write(dir.path().join("garbage"), b"not an fst").unwrap();
    fs::rename(dir.path().join("garbage"), &names).unwrap();
    assert_eq!(answer(&mut server), Some(3));

    // Deleted: the mapping stays whole, so answers go on.
    fs::remove_file(index.generation_dir(3).join("graph.blob")).unwrap();
    assert_eq!(answer(&mut server), Some(3));

    // CURRENT replaced by a FIFO, a symbolic link and garbage: the served generation stays.
    let current = index.current_path();
    fs::remove_file(&current).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&current).status();
    assert!(made.is_ok_and(|s| s.success()));
    assert_eq!(answer(&mut server), Some(3));
    fs::remove_file(&current).unwrap();
    fs::write(dir.path().join("elsewhere"), "000001\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), &current).unwrap();
    assert_eq!(answer(&mut server), Some(3));
    fs::remove_file(&current).unwrap();
    fs::write(&current, "garbage\n").unwrap();
    assert_eq!(answer(&mut server), Some(3));
    let s = status(&mut server);
    assert!(
        s["results"]["problem"]["message"]
            .as_str()
            .unwrap()
            .contains("not a generation id"),
        "{s}"
    );
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    assert!(server.alive());
}

#[test]
fn the_server_outlives_its_files_changing_under_it() {
    live_corruption(&[], true);
}

#[test]
fn without_leases_a_change_is_noticed_before_the_next_read() {
    live_corruption(&[("KIVGRAPH_LEASES", "off")], false);
}

/// Arbitrary damage to each file the engine reads (cut short, overwritten with noise, many bits
/// flipped, a block repeated): opening refuses it or every answer is the whole generation's or
/// withheld, without a panic.
#[test]
fn arbitrary_damage_to_any_file_is_refused_or_harmless() {
    let (_template, _work, good, dir) = a_copy_of_a_generation();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let whole = std::sync::Arc::new(Generation::open_dir(&dir).unwrap());
    let calls: Vec<_> = sweep(&whole).into_iter().step_by(7).collect();
    let expected = answers(&whole, &calls);
    drop(whole);
    let (mut refused, mut opened, mut withheld) = (0, 0, 0);
    for file in ["graph.blob", "names.fst", "manifest.json"] {
        let original = fs::read(good.join(file)).unwrap();
        for round in 0..40 {
            let mut bytes = original.clone();
            let len = bytes.len();
            match round % 4 {
                0 => bytes.truncate(next(len)),
                1 => {
                    let at = next(len);
                    let end = (at + 1 + next(4096)).min(len);
                    bytes[at..end].iter_mut().for_each(|b| *b = next(256) as u8);
                }
                2 => {
                    for _ in 0..1 + next(32) {
                        let at = next(len);
                        bytes[at] ^= 1 << next(8);
                    }
                }
                _ => {
                    let at = next(len);
                    let end = (at + next(512)).min(len);
                    let block = bytes[at..end].to_vec();
                    let to = next(len);
                    bytes.splice(to..to, block);
                }
            }
            fs::write(dir.join(file), &bytes).unwrap();
            match Generation::open_dir(&dir) {
                Err(_) => refused += 1,
                Ok(g) => {
                    opened += 1;
                    let g = std::sync::Arc::new(g);
                    let what = format!("{file}, damage of round {round}");
                    if file == "manifest.json" {
                        // What a manifest says beyond its checks (its prose, a checkout) may
                        // change answers; it must not stop them.
                        for (tool, args) in &calls {
                            let _ = tools::call(tool, args, Some(g.clone()));
                        }
                    } else {
                        withheld += withheld_answers(&g, &calls, &expected, &what);
                    }
                    let _ = tools::call("graph_status", &json!({}), Some(g.clone()));
                }
            }
        }
        fs::write(dir.join(file), &original).unwrap();
    }
    assert!(
        refused >= 40 && withheld > 0,
        "refused {refused}, opened {opened}"
    );
    println!(
        "{refused} damaged files refused at open, {opened} opened: every answer the whole generation's or withheld ({withheld} withheld)"
    );
}

/// Requests and in-place writes at the same time: a writer truncates and restores a served file
/// over and over while requests flow. With leases every write waits until the server has let
/// go, including while it re-opens and checks the generation after an answer; the server never
/// dies and every answer comes from a whole generation or says why none can be served.
#[cfg(target_os = "linux")]
#[test]
fn requests_and_writes_in_place_at_once_never_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    if !leases_granted(dir.path()) {
        println!("leases are not granted here: nothing to check");
        return;
    }
    let index = IndexDir::new(dir.path());
    compile_go_fixtures(dir.path());
    compile_go_fixtures(dir.path());
    let mut server = Server::start(dir.path(), &[]);
    assert_eq!(answer(&mut server), Some(2));
    let blob = index.generation_dir(2).join("graph.blob");
    let original = fs::read(&blob).unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let done = done.clone();
        std::thread::spawn(move || {
            for i in 0..40 {
                let f = fs::OpenOptions::new().write(true).open(&blob).unwrap();
                if i % 2 == 0 {
                    f.set_len(0).unwrap();
                } else {
                    std::io::Write::write_all(&mut &f, &original).unwrap();
                }
                drop(f);
                std::thread::sleep(Duration::from_millis(3));
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        })
    };
    let mut answers = 0;
    while !done.load(std::sync::atomic::Ordering::SeqCst) {
        let _ = answer(&mut server);
        answers += 1;
    }
    writer.join().unwrap();
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    assert!(server.alive());
    println!("{answers} answers while the served file was written 40 times in place");
}

/// The manifest's tallies have no sum of their own: ones that do not add up to the blob's edges
/// and failures are damage, not counts — graph_status, where damage is diagnosed, leaves them out
/// and reports it, and the other tools still answer.
#[test]
fn manifest_tallies_that_do_not_add_up_are_damage_not_counts() {
    let (_template, _work, _good, dir) = a_copy_of_a_generation();
    let path = dir.join("manifest.json");
    let mut manifest: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let kinds = manifest["tallies"]["edges_by_kind"]
        .as_object_mut()
        .unwrap();
    let (_, n) = kinds.iter_mut().next().unwrap();
    *n = json!(n.as_u64().unwrap() + 1);
    fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    let g = std::sync::Arc::new(Generation::open_dir(&dir).unwrap());
    let status: Value =
        serde_json::from_str(&tools::call("graph_status", &json!({}), Some(g.clone())).unwrap())
            .unwrap();
    let r = &status["results"];
    assert_eq!(r["edges_by_kind"], Value::Null, "{status}");
    assert_eq!(r["evidence"], Value::Null, "{status}");
    assert!(
        r["damage"]["found"][0]
            .as_str()
            .unwrap()
            .starts_with("manifest.json (tallies)"),
        "{status}"
    );
    assert!(r["symbols"].as_u64().unwrap() > 0, "{status}");
    assert!(tools::call("find_symbol", &json!({"name": "Area"}), Some(g)).is_ok());
}

/// Letting go of the mapped pages (`Generation::release_pages`) loses nothing: every answer of
/// the sweep after it is the one before it, and the blocks stay checked.
#[cfg(unix)]
#[test]
fn answers_after_letting_go_of_the_mapped_pages_are_the_same() {
    let (_template, _work, _good, dir) = a_copy_of_a_generation();
    let g = std::sync::Arc::new(Generation::open_dir(&dir).unwrap());
    let calls = sweep(&g);
    let before = answers(&g, &calls);
    let checked = g.blocks_checked();
    assert!(checked.0 > 0 && checked.1 == 0, "{checked:?}");
    g.release_pages();
    assert_eq!(answers(&g, &calls), before);
    assert_eq!(g.blocks_checked(), checked);
}
