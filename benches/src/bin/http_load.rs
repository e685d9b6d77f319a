//! Many agents at once: `kivgraph serve --http` on loopback under `--clients` concurrent MCP
//! sessions (default 64) calling query tools for `--seconds` (default 60), while `--publishes`
//! new generations (default 5) of the same repositories are compiled and published at even
//! intervals (`kivgraph-compile --full`, the checkouts the index records); then `--stdio`
//! stdio servers (default 8) on the same index, each asked a few questions, and their summed RSS
//! and PSS (proportional set size: shared pages counted once across them).
//!
//! Printed: requests, failures (a transport error, a status other than 200, a JSON-RPC error; a
//! tool's own error answer is an answer), p50/p99/max per tool under load, the generations the
//! answers came from, and the server's RSS before and after. Each request is one HTTP/1.1
//! connection (`Connection: close`), as a simple client makes them. Nothing here asserts a time.
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin http_load -- INDEX_DIR [--clients N]
//! [--seconds S] [--publishes P] [--stdio K] [--seed S]`. The binaries are taken from the
//! directory of this one (`kivgraph`, `kivgraph-compile`): build them in release first.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kivgraph_benches::{Rng, quantile};
use kivgraph_format::{Generation, IndexDir};
use serde_json::{Value, json};

fn bin(name: &str) -> PathBuf {
    std::env::current_exe()
        .expect("this binary's path")
        .with_file_name(name)
}

/// (RSS, PSS) of a process in KiB, from `/proc/<pid>/smaps_rollup`.
fn memory_kib(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("Rss:"), field("Pss:"))
}

/// One POST to `/mcp` on a new connection: the status and the JSON body (`application/json`),
/// or an error text.
fn post(
    addr: &str,
    session: Option<&str>,
    message: &Value,
) -> Result<(u16, Option<String>, Value), String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| e.to_string())?;
    let body = message.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(s) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {s}\r\nMcp-Protocol-Version: 2025-06-18\r\n"
        ));
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .and_then(|_| stream.write_all(body.as_bytes()))
        .map_err(|e| format!("write: {e}"))?;
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader
        .read_line(&mut status)
        .map_err(|e| format!("read: {e}"))?;
    let code: u16 = status
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not a status line: {status:?}"))?;
    let mut session_id = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .map_err(|e| format!("read: {e}"))?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((n, v)) = line.split_once(':') {
            if n.eq_ignore_ascii_case("mcp-session-id") {
                session_id = Some(v.trim().to_string());
            }
            if n.eq_ignore_ascii_case("transfer-encoding")
                && v.trim().eq_ignore_ascii_case("chunked")
            {
                chunked = true;
            }
        }
    }
    let mut raw = Vec::new();
    reader
        .read_to_end(&mut raw)
        .map_err(|e| format!("read: {e}"))?;
    let body = if chunked { dechunk(&raw)? } else { raw };
    if body.is_empty() {
        return Ok((code, session_id, Value::Null));
    }
    let v = serde_json::from_slice(&body).map_err(|e| format!("not JSON ({e})"))?;
    Ok((code, session_id, v))
}

fn dechunk(raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let end = raw[at..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk without a size line")?;
        let size_text = std::str::from_utf8(&raw[at..at + end]).map_err(|e| e.to_string())?;
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|e| format!("chunk size {size_text:?}: {e}"))?;
        at += end + 2;
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(raw.get(at..at + size).ok_or("a chunk cut short")?);
        at += size + 2;
    }
}

/// A question mix drawn from the generation: (tool, arguments).
fn mix(index: &Path, n: usize, seed: u64) -> anyhow::Result<Vec<(&'static str, Value)>> {
    let g = Generation::open_current(&IndexDir::new(index))?
        .ok_or_else(|| anyhow::anyhow!("no generation in {}", index.display()))?;
    let b = g.graph();
    let st = &b.strings;
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    let symbols = b.symbols.len();
    for _ in 0..n {
        let s = &b.symbols[rng.below(symbols)];
        let key = st.get(s.key.to_native()).to_string();
        let name = st.get(s.name.to_native()).to_string();
        let repo = st
            .get(
                b.repositories[s.repository.to_native() as usize]
                    .name
                    .to_native(),
            )
            .to_string();
        let path = st
            .get(b.files[s.file.to_native() as usize].path.to_native())
            .to_string();
        let roll = rng.f64();
        out.push(if roll < 0.30 {
            ("find_references", json!({"stable_key": key}))
        } else if roll < 0.45 {
            ("find_symbol", json!({"name": name}))
        } else if roll < 0.55 {
            ("get_symbol", json!({"stable_key": key}))
        } else if roll < 0.65 {
            (
                "get_file_outline",
                json!({"repository": repo, "path": path}),
            )
        } else if roll < 0.75 {
            ("get_blast_radius", json!({"stable_key": key}))
        } else if roll < 0.85 {
            ("trace_dependencies", json!({"stable_key": key}))
        } else if roll < 0.93 {
            (
                "find_by_intent",
                json!({"intent": format!("where is {name} handled")}),
            )
        } else {
            ("find_cross_repo_consumers", json!({"stable_key": key}))
        });
    }
    Ok(out)
}

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_http(index: &Path) -> anyhow::Result<Server> {
    let mut child = Command::new(bin("kivgraph"))
        .arg("--index")
        .arg(index)
        .args(["serve", "--http", "127.0.0.1:0"])
        .env_remove("KIVGRAPH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stderr = BufReader::new(child.stderr.take().expect("piped"));
    let addr = loop {
        let mut line = String::new();
        if stderr.read_line(&mut line)? == 0 {
            anyhow::bail!("the server stopped before listening");
        }
        if let Some(url) = line.trim().strip_prefix("kivgraph: listening on http://") {
            break url.trim_end_matches("/mcp").to_string();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    Ok(Server { child, addr })
}

fn session(addr: &str, client: usize) -> Result<String, String> {
    let (code, id, _) = post(
        addr,
        None,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": format!("http_load-{client}"), "version": "0"}}}),
    )?;
    let id = id.ok_or("no session id")?;
    if code != 200 {
        return Err(format!("initialize: status {code}"));
    }
    post(
        addr,
        Some(&id),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )?;
    Ok(id)
}

fn main() -> anyhow::Result<()> {
    let cli = kivgraph_benches::Cli::new(
        "usage: http_load INDEX_DIR [--clients N] [--seconds S] [--publishes P] [--stdio K] [--seed S]",
    );
    let index = PathBuf::from(cli.positional()?);
    let clients: usize = cli.value("--clients", 64)?;
    let seconds: u64 = cli.value("--seconds", 60)?;
    let publishes: u64 = cli.value("--publishes", 5)?;
    let stdio: usize = cli.value("--stdio", 8)?;
    let seed: u64 = cli.value("--seed", 1)?;

    // The repositories to publish again, from the checkouts the index records.
    let checkouts = kivgraph_format::checkouts::Checkouts::read(&IndexDir::new(&index));
    let repos: Vec<String> = checkouts
        .repositories
        .iter()
        .map(|(n, p)| format!("{n}={p}"))
        .collect();
    let questions = Arc::new(mix(&index, 20_000, seed)?);

    let server = start_http(&index)?;
    let pid = server.child.id();
    println!(
        "server pid {pid} on {}; {clients} clients for {seconds} s; {publishes} publishes of {} repositories",
        server.addr,
        repos.len()
    );
    println!("server RSS/PSS before load: {:?} KiB", memory_kib(pid));

    let stop = Arc::new(AtomicBool::new(false));
    let failures = Arc::new(Mutex::new(BTreeMap::<String, u64>::new()));
    let times = Arc::new(Mutex::new(BTreeMap::<&'static str, Vec<f64>>::new()));
    let generations = Arc::new(Mutex::new(BTreeMap::<u64, u64>::new()));
    let requests = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut threads = Vec::new();
    for c in 0..clients {
        let (addr, stop, failures, times, generations, requests, questions) = (
            server.addr.clone(),
            stop.clone(),
            failures.clone(),
            times.clone(),
            generations.clone(),
            requests.clone(),
            questions.clone(),
        );
        threads.push(std::thread::spawn(move || {
            let fail = |why: String| *failures.lock().unwrap().entry(why).or_default() += 1;
            let id = match session(&addr, c) {
                Ok(id) => id,
                Err(e) => return fail(format!("session: {e}")),
            };
            let mut k = c * 997;
            let mut local: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
            while !stop.load(Ordering::Relaxed) {
                let (tool, arguments) = &questions[k % questions.len()];
                k += 1;
                let t = Instant::now();
                let reply = post(
                    &addr,
                    Some(&id),
                    &json!({"jsonrpc": "2.0", "id": k, "method": "tools/call",
                            "params": {"name": tool, "arguments": arguments}}),
                );
                let us = t.elapsed().as_secs_f64() * 1e6;
                requests.fetch_add(1, Ordering::Relaxed);
                match reply {
                    Ok((200, _, v)) if v.get("result").is_some() => {
                        local.entry(tool).or_default().push(us);
                        let text = v["result"]["content"][0]["text"].as_str().unwrap_or("");
                        if let Ok(answer) = serde_json::from_str::<Value>(text)
                            && let Some(g) = answer["snapshot_id"].as_u64()
                        {
                            *generations.lock().unwrap().entry(g).or_default() += 1;
                        }
                    }
                    Ok((code, _, v)) => fail(format!("{tool}: status {code} {}", v["error"])),
                    Err(e) => fail(format!("{tool}: {e}")),
                }
            }
            let mut all = times.lock().unwrap();
            for (tool, mut v) in local {
                all.entry(tool).or_default().append(&mut v);
            }
        }));
    }

    // The publishes, evenly spaced.
    let mut published = Vec::new();
    for p in 0..publishes {
        let at = Duration::from_secs_f64(seconds as f64 * (p + 1) as f64 / (publishes + 1) as f64);
        if let Some(wait) = at.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        let t = Instant::now();
        let out = Command::new(bin("kivgraph-compile"))
            .arg("--out")
            .arg(&index)
            .arg("--full")
            .arg("--rust-sysroot")
            .arg("off")
            .args(&repos)
            .output()?;
        published.push((t.elapsed().as_secs_f64(), out.status.success()));
        if !out.status.success() {
            eprintln!(
                "publish {p} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    if let Some(wait) = Duration::from_secs(seconds).checked_sub(started.elapsed()) {
        std::thread::sleep(wait);
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let wall = started.elapsed().as_secs_f64();
    let n = requests.load(Ordering::Relaxed);
    let failed: u64 = failures.lock().unwrap().values().sum();
    println!(
        "{n} requests in {wall:.1} s ({:.0}/s), {failed} failed; publishes (s, ok): {published:?}",
        n as f64 / wall
    );
    for (why, k) in failures.lock().unwrap().iter() {
        println!("  failure x{k}: {why}");
    }
    println!("answers per generation: {:?}", generations.lock().unwrap());
    println!(
        "\n{:<28} {:>8} {:>10} {:>10} {:>10}",
        "tool", "calls", "p50 us", "p99 us", "max us"
    );
    for (tool, v) in times.lock().unwrap().iter_mut() {
        v.sort_by(f64::total_cmp);
        println!(
            "{:<28} {:>8} {:>10.0} {:>10.0} {:>10.0}",
            tool,
            v.len(),
            quantile(v, 0.5),
            quantile(v, 0.99),
            v.last().copied().unwrap_or(0.0)
        );
    }
    println!("server RSS/PSS after load: {:?} KiB", memory_kib(pid));
    drop(server);

    // Stdio servers on one index: the mapped generation is shared page cache.
    if stdio > 0 {
        let mut children = Vec::new();
        for i in 0..stdio {
            let mut child = Command::new(bin("kivgraph"))
                .arg("--index")
                .arg(&index)
                .arg("serve")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()?;
            let mut input = child.stdin.take().expect("piped");
            let mut output = BufReader::new(child.stdout.take().expect("piped"));
            let mut say = |m: Value| -> anyhow::Result<()> {
                writeln!(input, "{m}")?;
                input.flush()?;
                Ok(())
            };
            say(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": format!("stdio-{i}"), "version": "0"}}}),
            )?;
            let mut line = String::new();
            output.read_line(&mut line)?;
            say(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
            for (k, (tool, arguments)) in questions.iter().skip(i * 50).take(50).enumerate() {
                say(
                    json!({"jsonrpc": "2.0", "id": k + 1, "method": "tools/call",
                           "params": {"name": tool, "arguments": arguments}}),
                )?;
                line.clear();
                output.read_line(&mut line)?;
            }
            children.push((child, input, output));
        }
        let (mut rss, mut pss) = (0, 0);
        for (child, _, _) in &children {
            let (r, p) = memory_kib(child.id());
            rss += r;
            pss += p;
        }
        println!(
            "{stdio} stdio servers after 50 calls each: summed RSS {:.1} MiB, summed PSS {:.1} MiB",
            rss as f64 / 1024.0,
            pss as f64 / 1024.0
        );
        for (mut child, input, _) in children {
            drop(input);
            let _ = child.wait();
        }
    }
    Ok(())
}
