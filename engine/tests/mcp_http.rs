//! `kivgraph serve --http`: MCP's Streamable HTTP transport, driven over raw HTTP/1.1 so that
//! every header and status the server writes is the one checked. The server listens on
//! 127.0.0.1 port 0 and says where on stderr; each test starts its own.

use crate::common;
use crate::common::{compile_go_fixtures, compile_into, compiler, workspace};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// A hang guard for every socket read, never an assertion about speed.
const READ_GUARD: Duration = Duration::from_secs(120);

/// A `kivgraph serve --http 127.0.0.1:0` child process.
struct HttpServer {
    child: Child,
    /// host:port
    addr: String,
}

impl HttpServer {
    fn start(index: &Path, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kivgraph"))
            .arg("--index")
            .arg(index)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .env_remove("KIVGRAPH_TOKEN")
            .env("KIVGRAPH_COMPILE", compiler())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut said = String::new();
        let addr = loop {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap() == 0 {
                let status = child.wait();
                panic!("the server stopped before listening ({status:?}):\n{said}");
            }
            said.push_str(&line);
            if let Some(url) = line.trim().strip_prefix("kivgraph: listening on http://") {
                break url
                    .strip_suffix("/mcp")
                    .expect("the endpoint is /mcp")
                    .to_string();
            }
        };
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        HttpServer { child, addr }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP response read off the wire.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
    chunked: bool,
    /// Bytes left of a body with a length (or of the current chunk).
    left: Option<usize>,
    done: bool,
    pending: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The next piece of the body, decoded from chunks; `None` at its end.
    fn piece(&mut self) -> Option<Vec<u8>> {
        if self.done {
            return None;
        }
        if !self.chunked {
            let mut buf = vec![0u8; self.left.unwrap_or(64 * 1024).min(64 * 1024)];
            let n = self.reader.read(&mut buf).unwrap();
            if let Some(left) = &mut self.left {
                *left -= n;
                self.done = *left == 0;
            }
            if n == 0 {
                self.done = true;
                return None;
            }
            buf.truncate(n);
            return Some(buf);
        }
        let mut size = String::new();
        self.reader.read_line(&mut size).unwrap();
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap(), 16)
            .unwrap_or_else(|e| panic!("a chunk size ({e}): {size:?}"));
        let mut data = vec![0u8; size];
        self.reader.read_exact(&mut data).unwrap();
        let mut crlf = [0u8; 2];
        self.reader.read_exact(&mut crlf).unwrap();
        if size == 0 {
            self.done = true;
            return None;
        }
        Some(data)
    }

    /// The whole (rest of the) body as text.
    fn text(mut self) -> String {
        let mut all = std::mem::take(&mut self.pending).into_bytes();
        if self.left == Some(0) {
            return String::from_utf8(all).unwrap();
        }
        while let Some(piece) = self.piece() {
            all.extend(piece);
        }
        String::from_utf8(all).unwrap()
    }

    fn json(self) -> Value {
        let text = self.text();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"))
    }

    /// The next SSE `message` event's data, parsed; `None` once the stream ended.
    fn event(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue; // a comment (keep-alive)
                }
                return Some(serde_json::from_str(&data.join("\n")).unwrap());
            }
            let piece = self.piece()?;
            self.pending.push_str(&String::from_utf8(piece).unwrap());
        }
    }
}

/// Sends one request on a new connection and reads the status line and headers.
fn http(addr: &str, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(READ_GUARD)).unwrap();
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let status: u16 = status
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not a status line: {status:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut reply = Reply {
        status,
        headers,
        reader,
        chunked: false,
        left: None,
        done: false,
        pending: String::new(),
    };
    reply.chunked = reply
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    reply.left = reply.header("content-length").map(|v| v.parse().unwrap());
    reply
}

/// A POST of one JSON-RPC message with the headers an MCP client sends.
fn post(addr: &str, extra: &[(&str, &str)], message: &Value) -> Reply {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    http(addr, "POST", &headers, message.to_string().as_bytes())
}

/// One MCP session over HTTP.
struct Client {
    addr: String,
    session: String,
    /// Extra headers on every request (a token, an origin).
    extra: Vec<(String, String)>,
    next_id: u64,
}

impl Client {
    fn connect(server: &HttpServer) -> Client {
        Client::connect_with(server, &[], json!({}))
    }

    fn connect_with(server: &HttpServer, extra: &[(&str, &str)], capabilities: Value) -> Client {
        let reply = post(
            &server.addr,
            extra,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": capabilities,
                "clientInfo": {"name": "mcp_http", "version": "0"}}}),
        );
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let session = reply
            .header("mcp-session-id")
            .expect("initialize assigns a session")
            .to_string();
        assert!(session.len() >= 32, "{session}");
        let answer = reply.json();
        assert_eq!(
            answer["result"]["protocolVersion"], "2025-06-18",
            "{answer}"
        );
        let client = Client {
            addr: server.addr.clone(),
            session,
            extra: extra
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            next_id: 1,
        };
        let note = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(note.status, 202);
        assert_eq!(note.text(), "");
        client
    }

    fn headers(&self) -> Vec<(&str, &str)> {
        let mut h: Vec<(&str, &str)> = vec![
            ("Mcp-Session-Id", &self.session),
            ("MCP-Protocol-Version", "2025-06-18"),
        ];
        h.extend(self.extra.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        h
    }

    fn post(&self, message: &Value) -> Reply {
        post(&self.addr, &self.headers(), message)
    }

    /// Sends a request and returns its JSON-RPC response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let reply =
            self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        assert_eq!(reply.status, 200, "{method}");
        let answer = reply.json();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Calls a tool; returns (is_error, text).
    fn call(&mut self, tool: &str, args: Value) -> (bool, String) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: not a tool answer: {r}"))
            .to_string();
        (r["result"]["isError"].as_bool().unwrap_or(false), text)
    }

    fn snapshot_id(&mut self) -> u64 {
        let (error, text) = self.call("graph_status", json!({}));
        assert!(!error, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()["snapshot_id"]
            .as_u64()
            .unwrap()
    }

    fn tool_names(&mut self) -> Vec<String> {
        let listed = self.request("tools/list", json!({}));
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }
}

/// A tool's answer with the one field that depends on when it was asked (the generation's age)
/// taken out.
fn timeless(text: &str) -> Value {
    let mut v: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    if let Some(m) = v.as_object_mut() {
        m.remove("snapshot_age_ms");
    }
    v
}

fn go_index() -> tempfile::TempDir {
    let index = tempfile::tempdir().unwrap();
    compile_go_fixtures(index.path());
    index
}

/// The queries both transports answer in these tests.
fn queries() -> Vec<(&'static str, Value)> {
    vec![
        ("find_symbol", json!({"name": "Area"})),
        ("find_references", json!({"name": "NewCircle"})),
        (
            "get_file_outline",
            json!({"repository": "shapes", "path": "geo"}),
        ),
        ("list_repositories", json!({})),
        ("get_symbol", json!({"qualified_name": "NewCircle"})),
    ]
}

#[test]
fn a_session_lists_and_calls_tools_as_stdio_does() {
    let index = go_index();
    let server = HttpServer::start(index.path(), &[], &[]);
    let mut http = Client::connect(&server);
    let mut stdio = common::serve::Server::start(index.path(), &[]);

    let over_http = http.request("tools/list", json!({}));
    let over_stdio = stdio.request("tools/list", json!({}));
    assert_eq!(over_http["result"], over_stdio["result"]);
    assert!(http.tool_names().contains(&"find_symbol".to_string()));

    for (tool, args) in queries() {
        let (error, text) = http.call(tool, args.clone());
        assert!(!error, "{tool}: {text}");
        let (stdio_error, stdio_text) = stdio.call(tool, args);
        assert!(!stdio_error, "{tool}: {stdio_text}");
        assert_eq!(timeless(&text), timeless(&stdio_text), "{tool}");
    }
    // A ping, and an answer that is an error, travel the same way.
    assert_eq!(http.request("ping", json!({}))["result"], json!({}));
    let unknown = http.request("tools/call", json!({"name": "no_such_tool"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[test]
fn origins_other_than_loopback_are_refused() {
    let index = go_index();
    let server = HttpServer::start(
        index.path(),
        &["--allow-origin", "https://tools.example.com"],
        &[],
    );
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    for evil in [
        "http://evil.example",
        "http://localhost.evil.example",
        "null",
    ] {
        let reply = post(&server.addr, &[("Origin", evil)], &initialize);
        assert_eq!(reply.status, 403, "{evil}");
        assert!(reply.header("mcp-session-id").is_none());
        let body = reply.json();
        assert_eq!(body["id"], Value::Null);
        assert_eq!(body["error"]["code"], -32600, "{body}");
    }
    for good in [
        "http://localhost:5173",
        "http://127.0.0.1",
        "http://[::1]:8080",
        "https://tools.example.com",
    ] {
        let mut client = Client::connect_with(&server, &[("Origin", good)], json!({}));
        assert_eq!(
            client.request("ping", json!({}))["result"],
            json!({}),
            "{good}"
        );
    }
}

#[test]
fn a_token_is_required_once_set() {
    let index = go_index();
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "correct horse battery staple\n").unwrap();
    let server = HttpServer::start(
        index.path(),
        &["--token-file", token_file.to_str().unwrap()],
        &[],
    );
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    for headers in [
        vec![],
        vec![("Authorization", "Bearer correct horse battery stapler")],
        vec![("Authorization", "Basic Y29ycmVjdA==")],
        vec![("Authorization", "Bearer ")],
    ] {
        let reply = post(&server.addr, &headers, &initialize);
        assert_eq!(reply.status, 401, "{headers:?}");
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
        assert_eq!(reply.json()["error"]["code"], -32600);
    }
    let good = [("Authorization", "Bearer correct horse battery staple")];
    let mut client = Client::connect_with(&server, &good, json!({}));
    let (error, text) = client.call("find_symbol", json!({"name": "Area"}));
    assert!(!error, "{text}");
    // A session id alone does not stand in for the token.
    let without = post(
        &server.addr,
        &[("Mcp-Session-Id", &client.session)],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
    );
    assert_eq!(without.status, 401);

    // The token may come from the environment instead.
    let server = HttpServer::start(index.path(), &[], &[("KIVGRAPH_TOKEN", "from-env")]);
    assert_eq!(post(&server.addr, &[], &initialize).status, 401);
    Client::connect_with(&server, &[("Authorization", "Bearer from-env")], json!({}));
}

#[test]
fn sessions_run_in_parallel_and_end_alone() {
    let index = go_index();
    let server = HttpServer::start(index.path(), &[], &[]);
    // What each query answers, from the command line.
    let expected: Vec<(&str, Value, Value)> = {
        let mut stdio = common::serve::Server::start(index.path(), &[]);
        queries()
            .into_iter()
            .map(|(tool, args)| {
                let (_, text) = stdio.call(tool, args.clone());
                (tool, args, timeless(&text))
            })
            .collect()
    };
    let mut a = Client::connect(&server);
    let mut b = Client::connect(&server);
    assert_ne!(a.session, b.session);
    std::thread::scope(|scope| {
        for client in [&mut a, &mut b] {
            let expected = &expected;
            scope.spawn(move || {
                for round in 0..4 {
                    for (tool, args, text) in expected {
                        let (error, got) = client.call(tool, args.clone());
                        assert!(!error, "{tool}: {got}");
                        assert_eq!(&timeless(&got), text, "{tool}, round {round}");
                    }
                }
            });
        }
    });

    let ended = http(&server.addr, "DELETE", &a.headers(), b"");
    assert_eq!(ended.status, 200);
    let (error, text) = b.call("find_symbol", json!({"name": "Area"}));
    assert!(!error, "{text}");
    assert_eq!(timeless(&text), expected[0].2);
    let gone = a.post(&json!({"jsonrpc": "2.0", "id": 99, "method": "ping"}));
    assert_eq!(gone.status, 404);
    assert_eq!(gone.json()["error"]["code"], -32001);
    assert_eq!(http(&server.addr, "DELETE", &a.headers(), b"").status, 404);
    assert_eq!(http(&server.addr, "GET", &a.headers(), b"").status, 404);
}

#[test]
fn a_published_generation_reaches_every_session() {
    let index = go_index();
    let server = HttpServer::start(index.path(), &[], &[]);
    let mut a = Client::connect(&server);
    let mut b = Client::connect(&server);
    let before = a.snapshot_id();
    assert_eq!(b.snapshot_id(), before);
    let (_, repos) = a.call("list_repositories", json!({}));
    assert!(!repos.contains("\"extra\""), "{repos}");

    // A new generation with one more repository, published beside the running server.
    let go = workspace().join("fixtures/go");
    compile_into(
        index.path(),
        [
            format!("shapes={}", go.join("shapes").display()),
            format!("inventory={}", go.join("inventory").display()),
            format!("extra={}", go.join("shapes").display()),
        ],
    );
    for client in [&mut a, &mut b] {
        let now = client.snapshot_id();
        assert!(now > before, "{now} after {before}");
        let (error, repos) = client.call("list_repositories", json!({}));
        assert!(!error, "{repos}");
        assert!(repos.contains("\"extra\""), "{repos}");
        let (error, found) =
            client.call("find_symbol", json!({"name": "NewCircle", "repo": "extra"}));
        assert!(!error, "{found}");
    }
}

#[test]
fn transport_errors_have_their_status() {
    let index = go_index();
    let server = HttpServer::start(index.path(), &["--max-body-bytes", "4096"], &[]);
    let client = Client::connect(&server);
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});

    // No session header, an unknown session.
    let reply = post(&server.addr, &[], &ping);
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], -32600);
    let reply = post(
        &server.addr,
        &[("Mcp-Session-Id", "0123456789abcdef")],
        &ping,
    );
    assert_eq!(reply.status, 404);

    // A body over the limit.
    let big = json!({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"pad": "x".repeat(64 * 1024)}});
    let reply = client.post(&big);
    assert_eq!(reply.status, 413);
    assert_eq!(reply.json()["error"]["code"], -32600);

    // Malformed JSON, and a message that is not a request object.
    let mut headers = client.headers();
    headers.push(("Content-Type", "application/json"));
    let reply = http(
        &server.addr,
        "POST",
        &headers,
        b"{\"jsonrpc\":\"2.0\",\"id\":",
    );
    assert_eq!(reply.status, 400);
    let body = reply.json();
    assert_eq!(body["error"]["code"], -32700, "{body}");
    assert_eq!(body["id"], Value::Null);
    let reply = client.post(&json!({"jsonrpc": "1.0", "id": 7, "method": "ping"}));
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], -32600);

    // Methods, media types, protocol versions.
    let reply = http(&server.addr, "PUT", &client.headers(), b"");
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, POST, DELETE"));
    let mut headers = client.headers();
    headers.push(("Content-Type", "text/plain"));
    let reply = http(&server.addr, "POST", &headers, ping.to_string().as_bytes());
    assert_eq!(reply.status, 415);
    let mut headers = client.headers();
    headers.extend([
        ("Content-Type", "application/json"),
        ("Accept", "text/html"),
    ]);
    let reply = http(&server.addr, "POST", &headers, ping.to_string().as_bytes());
    assert_eq!(reply.status, 406);
    let reply = post(
        &server.addr,
        &[
            ("Mcp-Session-Id", &client.session),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        &ping,
    );
    assert_eq!(reply.status, 400);

    // The session survived all of it.
    let reply = client.post(&ping);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"], json!({}));
}

#[test]
fn a_changed_tool_set_is_announced_on_the_get_stream() {
    let index = tempfile::tempdir().unwrap();
    let server = HttpServer::start(index.path(), &[], &[]);
    let mut client = Client::connect(&server);
    assert_eq!(client.tool_names(), ["index_project"]);
    let mut headers = client.headers();
    headers.push(("Accept", "text/event-stream"));
    let mut stream = http(&server.addr, "GET", &headers, b"");
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));

    compile_go_fixtures(index.path());
    let note = stream.event().expect("the stream stays open");
    assert_eq!(
        note,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    assert!(client.tool_names().contains(&"find_symbol".to_string()));

    // Ending the session ends its stream.
    assert_eq!(
        http(&server.addr, "DELETE", &client.headers(), b"").status,
        200
    );
    assert_eq!(stream.event(), None);
}

#[test]
fn index_project_talks_back_on_the_post_stream() {
    let index = go_index();
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("shapes");
    copy_dir(&workspace().join("fixtures/go/shapes"), &copy);
    let server = HttpServer::start(index.path(), &[], &[]);
    let mut client = Client::connect_with(&server, &[], json!({"elicitation": {}}));
    let before = client.snapshot_id();

    let call = json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {
        "name": "index_project",
        "arguments": {"name": "shapes_copy", "path": copy, "languages": ["go"]},
        "_meta": {"progressToken": "p1"}}});
    let mut reply = client.post(&call);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    // The consent question comes first, on this stream; its answer is POSTed back.
    let question = reply.event().expect("a consent question");
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let accepted = client.post(&json!({"jsonrpc": "2.0", "id": question["id"],
        "result": {"action": "accept", "content": {"confirmed": true}}}));
    assert_eq!(accepted.status, 202);
    let mut progress = 0;
    let answer = loop {
        let m = reply.event().expect("the stream ends with the answer");
        if m["method"] == "notifications/progress" {
            assert_eq!(m["params"]["progressToken"], "p1");
            progress += 1;
            continue;
        }
        break m;
    };
    assert!(progress > 0, "no progress reported");
    assert_eq!(answer["id"], 41, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(answer["result"]["isError"].is_null(), "{text}");
    assert_eq!(reply.event(), None);
    assert!(client.snapshot_id() > before);

    // A client that takes JSON alone cannot be asked: consent must come with the call.
    let mut headers = client.headers();
    headers.extend([
        ("Content-Type", "application/json"),
        ("Accept", "application/json"),
    ]);
    let mut call = call;
    call["id"] = json!(42);
    let reply = http(&server.addr, "POST", &headers, call.to_string().as_bytes());
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let answer = reply.json();
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("PERMISSION_REQUIRED:"), "{text}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
