//! MCP over stdio: newline-delimited JSON-RPC 2.0. Handles `initialize`, `ping`, `tools/list`
//! and `tools/call`, and announces `notifications/tools/list_changed` when a published
//! generation changes the tool set. stdout carries protocol bytes only; logs go to stderr.
//!
//! `index_project` is the one call that talks back while it runs:
//! 1. if the client declared the `elicitation` capability, the server sends `elicitation/create`
//!    and reads lines until the client's answer arrives, queueing any other message it reads
//!    meanwhile (they are answered after the call, in order);
//! 2. if the request carried `_meta.progressToken`, each phase is reported as
//!    `notifications/progress` with a growing `progress`;
//! 3. the answer follows, then `notifications/tools/list_changed` if the tool set changed.

use std::collections::VecDeque;
use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::index::{self, INDEX_PROJECT};
use crate::store::Store;
use crate::tools::{self, Handler, INSTRUCTIONS, QUERY_TOOLS, STALE_INSTRUCTIONS, ToolDef};

const KNOWN_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const DEFAULT_VERSION: &str = "2025-06-18";

pub struct Server {
    store: Store,
    /// Whether the tool set last shown to the client (at `initialize` or `tools/list`)
    /// included the query tools.
    listed_query_tools: Option<bool>,
    /// The client declared the `elicitation` capability in `initialize`.
    client_elicits: bool,
    /// Ids of the requests this server sends to the client.
    next_request: u64,
}

/// The transport while serving: lines in, lines out, and lines read early.
struct Io<'a> {
    input: &'a mut dyn BufRead,
    output: &'a mut dyn Write,
    /// Lines read while waiting for the client's answer, as read (text or the UTF-8 error).
    queued: VecDeque<Result<String, std::str::Utf8Error>>,
}

impl Io<'_> {
    fn send(&mut self, message: &Value) -> std::io::Result<()> {
        writeln!(
            self.output,
            "{}",
            serde_json::to_string(message).unwrap_or_default()
        )?;
        self.output.flush()
    }

    /// The next line without its line ending: text, or the UTF-8 error of a line that is not.
    fn next_line(&mut self) -> std::io::Result<Option<Result<String, std::str::Utf8Error>>> {
        if let Some(l) = self.queued.pop_front() {
            return Ok(Some(l));
        }
        let mut buf = Vec::new();
        if self.input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(None);
        }
        Ok(Some(match std::str::from_utf8(&buf) {
            Ok(text) => Ok(text.trim_end_matches(['\n', '\r']).to_string()),
            Err(e) => Err(e),
        }))
    }
}

fn tool_json(t: &ToolDef) -> Value {
    let annotations = if t.read_only {
        json!({"title": t.title, "readOnlyHint": true})
    } else {
        json!({"title": t.title, "readOnlyHint": false, "destructiveHint": true, "openWorldHint": true})
    };
    let mut tool = json!({"name": t.name, "title": t.title, "description": t.description, "inputSchema": (t.schema)(), "annotations": annotations});
    if let Some(meta) = tool_meta(t) {
        tool["_meta"] = meta;
    }
    tool
}

/// Client hints: the tools an agent reaches for first stay loaded, and the two traversals may
/// answer larger than a client's default cap.
fn tool_meta(t: &ToolDef) -> Option<Value> {
    if !t.always_load && !t.large_answer {
        return None;
    }
    let mut m = serde_json::Map::new();
    if t.always_load {
        m.insert("anthropic/alwaysLoad".into(), json!(true));
    }
    if t.large_answer {
        m.insert("anthropic/maxResultSizeChars".into(), json!(120000));
    }
    Some(Value::Object(m))
}

impl Server {
    pub fn new(store: Store) -> Server {
        Server {
            store,
            listed_query_tools: None,
            client_elicits: false,
            next_request: 1,
        }
    }

    /// Serves until stdin closes. A line that is not UTF-8 is a parse error, not the end.
    pub fn run(&mut self, mut input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        let mut io = Io {
            input: &mut input,
            output: &mut output,
            queued: VecDeque::new(),
        };
        while let Some(line) = io.next_line()? {
            let messages = match line {
                Ok(line) => {
                    if line.trim().is_empty() {
                        continue;
                    }
                    self.handle_line(&line, &mut io)
                }
                Err(e) => vec![error(
                    Value::Null,
                    -32700,
                    &format!("parse error: the line is not UTF-8: {e}"),
                )],
            };
            for message in messages {
                io.send(&message)?;
            }
        }
        Ok(())
    }

    /// Answers one line; may also emit notifications before the answer.
    fn handle_line(&mut self, line: &str, io: &mut Io) -> Vec<Value> {
        let msg: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return vec![error(Value::Null, -32700, &format!("parse error: {e}"))],
        };
        if !msg.is_object() {
            return vec![error(
                Value::Null,
                -32600,
                "invalid request: a message is a JSON object",
            )];
        }
        let id = msg.get("id").cloned();
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // A response from the client (we send no requests), or garbage.
            return match id {
                Some(id) if msg.get("result").is_none() && msg.get("error").is_none() => {
                    vec![error(id, -32600, "invalid request: no method")]
                }
                _ => vec![],
            };
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else { return vec![] }; // notifications need no answer
        let mut out = Vec::new();
        let result = match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(self.list_tools()),
            "tools/call" => self.call_tool(&params, io),
            _ => Err((-32601, format!("method {method:?} is not supported"))),
        };
        out.push(match result {
            Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
            Err((code, m)) => error(id, code, &m),
        });
        // A call that published the first generation (or lost it) changed the tool set.
        if method == "tools/call"
            && let Some(n) = self.tool_set_changed()
        {
            out.push(n);
        }
        out
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let asked = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_VERSION);
        self.client_elicits = params
            .pointer("/capabilities/elicitation")
            .is_some_and(|e| !e.is_null());
        let version = if KNOWN_VERSIONS.contains(&asked) {
            asked
        } else {
            DEFAULT_VERSION
        };
        let ready = self.store.snapshot().is_some();
        // The tool set the client starts with; a change from it is announced.
        self.listed_query_tools = Some(ready);
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "kivgraph", "version": env!("CARGO_PKG_VERSION")},
            "instructions": if ready { INSTRUCTIONS } else { STALE_INSTRUCTIONS },
        })
    }

    fn list_tools(&mut self) -> Value {
        let ready = self.store.snapshot().is_some();
        self.listed_query_tools = Some(ready);
        let mut list: Vec<Value> = if ready {
            QUERY_TOOLS.iter().map(tool_json).collect()
        } else {
            Vec::new()
        };
        list.push(tool_json(&INDEX_PROJECT));
        json!({"tools": list})
    }

    /// `notifications/tools/list_changed` once the served tool set differs from the last listing.
    fn tool_set_changed(&mut self) -> Option<Value> {
        let ready = self.store.snapshot().is_some();
        match self.listed_query_tools {
            Some(listed) if listed != ready => {
                self.listed_query_tools = Some(ready);
                Some(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
            }
            _ => None,
        }
    }

    fn call_tool(&mut self, params: &Value, io: &mut Io) -> Result<Value, (i64, String)> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or((-32602, "tools/call needs a tool name".to_string()))?;
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        let snapshot = self.store.snapshot();
        // index_project is always offered; the query tools once a generation is published.
        let offered: &[ToolDef] = if snapshot.is_some() { QUERY_TOOLS } else { &[] };
        let Some(tool) = std::iter::once(&INDEX_PROJECT)
            .chain(offered)
            .find(|t| t.name == name)
        else {
            // A query tool is offered once a generation can be served; say why none can.
            let why = match self.store.problem() {
                Some(p) if QUERY_TOOLS.iter().any(|t| t.name == name) => {
                    format!(": {}", p.explain())
                }
                _ => String::new(),
            };
            return Err((-32602, format!("tool {name:?} is not registered{why}")));
        };
        let token = params
            .pointer("/_meta/progressToken")
            .cloned()
            .filter(|t| t.is_string() || t.is_number());
        let elicits = self.client_elicits;
        let request_id = &mut self.next_request;
        // A panic is a bug, but it must never take the server down: it becomes an internal error.
        let store = &self.store;
        // Progress and consent both talk to the client during the call, one at a time.
        let io = std::cell::RefCell::new(io);
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Handler::Index(index_project) = tool.handler {
                let mut progress = |done: u64, total: u64, message: String| {
                    if let Some(t) = &token {
                        // An undeliverable notification is dropped; the call goes on.
                        let _ = io.borrow_mut().send(&json!({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": t, "progress": done, "total": total, "message": message}}));
                    }
                };
                if elicits {
                    let mut ask = |message: &str| elicit(&mut io.borrow_mut(), request_id, message);
                    index_project(&args, store, Some(&mut ask), &mut progress)
                } else {
                    index_project(&args, store, None, &mut progress)
                }
            } else {
                tools::call_with(name, &args, snapshot, store.problem().as_ref())
            }
        }))
        .map_err(|_| {
            (
                -32603,
                format!("internal error while answering {name}; the server keeps running"),
            )
        })?;
        Ok(match answer {
            Ok(text) => json!({"content": [{"type": "text", "text": text}]}),
            Err(e) => {
                json!({"content": [{"type": "text", "text": e.to_string()}], "isError": true})
            }
        })
    }
}

/// Asks the client for consent with `elicitation/create` and waits for its answer; other
/// messages read meanwhile are queued.
fn elicit(io: &mut Io, next_request: &mut u64, message: &str) -> index::Consent {
    let id = format!("kivgraph-elicit-{next_request}");
    *next_request += 1;
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {"confirmed": {"type": "boolean",
            "title": "Index the projects", "description": "Rebuild the code graph from these projects"}}, "required": ["confirmed"]}
    }});
    if io.send(&request).is_err() {
        return index::Consent::Undeliverable;
    }
    loop {
        let mut buf = Vec::new();
        match io.input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return index::Consent::Undeliverable,
            Ok(_) => {}
        }
        // A line that is not UTF-8 is queued as such, to be answered as a parse error later.
        let line = match std::str::from_utf8(&buf) {
            Ok(text) => text.trim_end_matches(['\n', '\r']).to_string(),
            Err(e) => {
                io.queued.push_back(Err(e));
                continue;
            }
        };
        let answer = serde_json::from_str::<Value>(&line).ok().filter(|v| {
            v.get("id").and_then(Value::as_str) == Some(id.as_str()) && v.get("method").is_none()
        });
        let Some(v) = answer else {
            io.queued.push_back(Ok(line));
            continue;
        };
        let r = &v["result"];
        return match r["action"].as_str() {
            Some("accept") if r.pointer("/content/confirmed") == Some(&json!(true)) => {
                index::Consent::Accepted
            }
            Some("accept" | "decline" | "cancel") => index::Consent::Declined,
            _ => index::Consent::Undeliverable,
        };
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use kivgraph_format::IndexDir;

    #[test]
    fn a_line_that_is_not_utf8_is_a_parse_error_and_serving_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Server::new(Store::open(IndexDir::new(dir.path())));
        let input: &[u8] = b"\xff\xfe{\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n";
        let mut output = Vec::new();
        server.run(input, &mut output).unwrap();
        let lines: Vec<Value> = output
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["id"], Value::Null);
        assert_eq!(lines[0]["error"]["code"], -32700);
        assert_eq!(lines[1], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    }
}
