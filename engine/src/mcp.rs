//! MCP's protocol logic, shared by both transports, and the stdio transport: newline-delimited
//! JSON-RPC 2.0. Handles `initialize`, `ping`, `tools/list` and `tools/call`, and announces
//! `notifications/tools/list_changed` when a published generation changes the tool set. On
//! stdio, stdout carries protocol bytes only; logs go to stderr. The Streamable HTTP transport
//! ([`crate::http`]) serves the very same [`Session`] logic, one session per client.
//!
//! The protocol rules a session keeps:
//! - Before `initialize` only `initialize` and `ping` are served; any other request is answered
//!   with the error -32002 ("server not initialized").
//! - A message that is not a valid Request object (`{}`, a method that is not a string,
//!   `jsonrpc` other than `"2.0"`, an id that is an object, an array or a boolean, params that
//!   are neither an object nor an array) is answered with -32600 and id null, unless its id was
//!   a valid one.
//! - An id is echoed exactly as written: a number beyond 64 bits comes back digit for digit.
//! - A string escape of a lone UTF-16 surrogate (`"\ud800"`) is read as U+FFFD, so the request
//!   is served and its answer carries its id.
//!
//! `index_project` is the one call that talks back while it runs, and it may run beside the
//! transport: the stdio server keeps answering other requests during a rebuild, and writes the
//! call's answer when it is done (HTTP answers each request on its own exchange anyway).
//! 1. if the client declared the `elicitation` capability, the server sends `elicitation/create`
//!    and the call waits for the client's answer, which the transport hands over;
//! 2. if the request carried `_meta.progressToken`, each phase is reported as
//!    `notifications/progress` with a growing `progress`;
//! 3. the answer follows, then `notifications/tools/list_changed` if the tool set changed.
//!
//! When stdin closes the server waits for a running rebuild, writes its answer and stops; a
//! consent question still open is then answered as undeliverable.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::Scope;

use serde_json::{Value, json};

use crate::index::{self, INDEX_PROJECT};
use crate::store::Store;
use crate::tools::{self, INSTRUCTIONS, QUERY_TOOLS, STALE_INSTRUCTIONS, ToolDef};

/// The protocol revisions a client may ask for (and, over HTTP, name in `MCP-Protocol-Version`).
pub(crate) const KNOWN_VERSIONS: &[&str] =
    &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const DEFAULT_VERSION: &str = "2025-06-18";

/// JSON-RPC error codes.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// A request other than `initialize` or `ping` before `initialize`.
const NOT_INITIALIZED: i64 = -32002;

/// The stdio server: one [`Session`] over stdin and stdout.
pub struct Server {
    session: Session,
}

/// One client's conversation: its own `initialize` state and the capabilities it declared,
/// over the store every session shares (so a published generation reaches all of them).
pub struct Session {
    store: Arc<Store>,
    state: Mutex<State>,
    pending: Pending,
}

/// What the transport and a running `index_project` share.
struct State {
    /// `initialize` was answered.
    initialized: bool,
    /// Whether the tool set last shown to the client (at `initialize` or `tools/list`)
    /// included the query tools.
    listed_query_tools: Option<bool>,
    /// The client declared the `elicitation` capability in `initialize`.
    client_elicits: bool,
    /// Ids of the requests this server sends to the client.
    next_request: u64,
    /// An `index_project` call runs beside the loop (set before it starts, so that a second
    /// call is refused whatever the order the threads run in).
    indexing: bool,
}

/// A request id as the client wrote it (a JSON string, number or `null`), echoed verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Id(String);

impl Id {
    pub(crate) fn null() -> Id {
        Id("null".into())
    }
}

/// An answer to a request: a result, or a JSON-RPC error code and message.
pub(crate) type Answer = Result<Value, (i64, String)>;

/// Where the messages of one exchange go; each transport has its own. Every message is one
/// whole JSON text.
pub(crate) trait Outbound: Sync {
    /// The answer to the request being served, or to a message that could not be read.
    fn answer(&self, text: String) -> std::io::Result<()>;
    /// Any other message while the request is served (progress, a question to the client); an
    /// error when this exchange cannot carry one, and the message is then dropped.
    fn message(&self, text: String) -> std::io::Result<()>;
    /// Whether `notifications/tools/list_changed` is sent here after a call that changed the
    /// tool set (stdio), rather than on a stream of its own (HTTP).
    fn announces_tool_changes(&self) -> bool;
}

/// A response: `{"jsonrpc":"2.0","id":<as written>,"result"|"error":…}`.
pub(crate) fn reply_text(id: &Id, answer: &Answer) -> String {
    let error;
    let (key, body) = match answer {
        Ok(result) => ("result", result),
        Err((code, message)) => {
            error = json!({"code": code, "message": message});
            ("error", &error)
        }
    };
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"{key}\":{}}}",
        id.0,
        serde_json::to_string(body).unwrap_or_default()
    )
}

fn reply(out: &dyn Outbound, id: &Id, answer: &Answer) -> std::io::Result<()> {
    out.answer(reply_text(id, answer))
}

fn send(out: &dyn Outbound, message: &Value) -> std::io::Result<()> {
    out.message(serde_json::to_string(message).unwrap_or_default())
}

/// The stdio output: whole lines, one writer at a time.
struct Out<W> {
    w: Mutex<W>,
}

impl<W: Write> Out<W> {
    fn line(&self, text: &str) -> std::io::Result<()> {
        let mut w = self.w.lock().unwrap_or_else(|e| e.into_inner());
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")?;
        w.flush()
    }
}

impl<W: Write + Send> Outbound for Out<W> {
    fn answer(&self, text: String) -> std::io::Result<()> {
        self.line(&text)
    }

    fn message(&self, text: String) -> std::io::Result<()> {
        self.line(&text)
    }

    fn announces_tool_changes(&self) -> bool {
        true
    }
}

/// The consent questions waiting for the client's answer, by the id of the question.
struct Pending {
    waiting: Mutex<Option<HashMap<String, Sender<Value>>>>,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            waiting: Mutex::new(Some(HashMap::new())),
        }
    }

    /// Registers a question; `None` once the session ended.
    fn register(&self, id: &str) -> Option<Receiver<Value>> {
        let (tx, rx) = channel();
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        w.as_mut()?.insert(id.to_string(), tx);
        Some(rx)
    }

    /// Hands the client's response to the question it answers; false when none waits for it.
    fn answer(&self, id: &str, response: Value) -> bool {
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        match w.as_mut().and_then(|m| m.remove(id)) {
            Some(tx) => tx.send(response).is_ok(),
            None => false,
        }
    }

    /// The session ended: every open question and every later one is undeliverable.
    fn close(&self) {
        *self.waiting.lock().unwrap_or_else(|e| e.into_inner()) = None;
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

/// What one line asks of the server once it is read and checked.
/// What one message asks of the server once it is read and checked.
pub(crate) enum Message {
    /// Answer at once.
    Answer(Id, Result<Value, (i64, String)>),
    /// A request to serve.
    Request {
        id: Option<Id>,
        method: String,
        params: Value,
    },
    /// A response from the client.
    Response(Value),
}

/// Reads one line (stdio) or request body (HTTP) as a JSON-RPC message (see the module comment
/// for the rules).
pub(crate) fn classify(line: &str) -> Message {
    let text = replace_lone_surrogates(line);
    let msg: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            return Message::Answer(Id::null(), Err((PARSE_ERROR, format!("parse error: {e}"))));
        }
    };
    let Value::Object(obj) = &msg else {
        return Message::Answer(
            Id::null(),
            Err((
                INVALID_REQUEST,
                "invalid request: a message is a JSON object".into(),
            )),
        );
    };
    if !obj.contains_key("method") && (obj.contains_key("result") || obj.contains_key("error")) {
        return Message::Response(msg);
    }
    // The id as written, when it is one a request may carry.
    let id = match obj.get("id") {
        None => None,
        Some(Value::String(_) | Value::Number(_) | Value::Null) => {
            Some(raw_member(line, "id").map_or_else(Id::null, |raw| Id(raw.to_string())))
        }
        Some(_) => {
            return invalid(
                Id::null(),
                "the id must be a string, a number or null".into(),
            );
        }
    };
    let answer_to = || id.clone().unwrap_or_else(Id::null);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(answer_to(), "jsonrpc must be \"2.0\"".into());
    }
    let method = match obj.get("method") {
        Some(Value::String(m)) => m.clone(),
        Some(_) => return invalid(answer_to(), "the method must be a string".into()),
        None => return invalid(answer_to(), "no method".into()),
    };
    let params = match obj.get("params") {
        None => Value::Null,
        Some(p @ (Value::Object(_) | Value::Array(_))) => p.clone(),
        Some(_) => {
            return invalid(answer_to(), "params must be an object or an array".into());
        }
    };
    Message::Request { id, method, params }
}

fn invalid(id: Id, why: String) -> Message {
    Message::Answer(
        id,
        Err((INVALID_REQUEST, format!("invalid request: {why}"))),
    )
}

/// The line with every `\u` escape of an unpaired UTF-16 surrogate replaced by `\ufffd`. Only
/// escapes are touched: raw text is UTF-8 already, and a backslash outside a string is a parse
/// error either way.
fn replace_lone_surrogates(line: &str) -> Cow<'_, str> {
    if !line.contains("\\u") {
        return Cow::Borrowed(line);
    }
    let b = line.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let h = b.get(at + 2..at + 6)?;
        (b.get(at + 1) == Some(&b'u'))
            .then(|| u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())
            .flatten()
    };
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = hex(i) else {
            i += 2; // another escape: its character is never a backslash that starts one
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && b.get(i + 6) == Some(&b'\\')
            && hex(i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            out.push_str(&line[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
        } else {
            i += 6;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(line);
    }
    out.push_str(&line[copied..]);
    Cow::Owned(out)
}

/// The text of the value of the last member `key` of the JSON object `text`, as written.
/// `text` is a message that parsed (once its lone surrogates were replaced).
fn raw_member<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let b = text.as_bytes();
    let ws = |mut i: usize| {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found = None;
    loop {
        i = ws(i);
        match b.get(i)? {
            b'}' => return found,
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let end = skip_string(b, i)?;
        let name: String = serde_json::from_str(&replace_lone_surrogates(&text[i..end])).ok()?;
        i = ws(end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = ws(i + 1);
        let end = skip_value(b, i)?;
        if name == key {
            found = Some(&text[i..end]);
        }
        i = end;
    }
}

/// The index just past the string that opens at `i`.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match b.get(j)? {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

/// The index just past the value that starts at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
            {
                j += 1;
            }
            Some(j)
        }
    }
}

/// What a request left to do once it was answered or handed on.
pub(crate) enum Turn {
    /// Answered (or a notification, which gets no answer).
    Done,
    /// An `index_project` call that may talk back to the client while it runs: the transport
    /// runs it with [`Session::rebuild`] where it suits it (beside the stdio loop, or on the
    /// HTTP exchange's own thread).
    Rebuild(Rebuild),
}

/// An `index_project` call ready to run.
pub(crate) struct Rebuild {
    id: Id,
    request: index::IndexRequest,
    params: Value,
}

impl Server {
    pub fn new(store: Store) -> Server {
        Server {
            session: Session::new(Arc::new(store)),
        }
    }

    /// Serves until stdin closes, then waits for a running `index_project` to answer. A line
    /// that is not UTF-8 is a parse error, not the end.
    pub fn run(
        &mut self,
        mut input: impl BufRead,
        output: impl Write + Send,
    ) -> std::io::Result<()> {
        let out = Out {
            w: Mutex::new(output),
        };
        let session = &self.session;
        std::thread::scope(|scope| {
            let served = serve_lines(session, &mut input, &out, scope);
            session.end();
            served
        })
    }
}

/// The stdio loop: one message per line, an `index_project` call run beside it.
fn serve_lines<'scope, 'env, W: Write + Send>(
    session: &'env Session,
    input: &mut dyn BufRead,
    out: &'env Out<W>,
    scope: &'scope Scope<'scope, 'env>,
) -> std::io::Result<()> {
    loop {
        let mut buf = Vec::new();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = match std::str::from_utf8(&buf) {
            Ok(text) => text.trim_end_matches(['\n', '\r']),
            Err(e) => {
                reply(
                    out,
                    &Id::null(),
                    &Err((
                        PARSE_ERROR,
                        format!("parse error: the line is not UTF-8: {e}"),
                    )),
                )?;
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match classify(line) {
            Message::Answer(id, answer) => reply(out, &id, &answer)?,
            Message::Response(v) => session.hand_over(v),
            Message::Request { id, method, params } => {
                if let Turn::Rebuild(job) = session.request(id, &method, params, out)? {
                    // A rebuild runs beside the loop, which keeps answering meanwhile.
                    scope.spawn(move || session.rebuild(job, out));
                }
            }
        }
    }
}

impl Session {
    pub(crate) fn new(store: Arc<Store>) -> Session {
        Session {
            store,
            state: Mutex::new(State {
                initialized: false,
                listed_query_tools: None,
                client_elicits: false,
                next_request: 1,
                indexing: false,
            }),
            pending: Pending::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session is over: a consent question still open, and any later one, is undeliverable.
    pub(crate) fn end(&self) {
        self.pending.close();
    }

    /// A response from the client: the answer to a consent question; any other is dropped.
    pub(crate) fn hand_over(&self, response: Value) {
        if let Some(id) = response.get("id").and_then(Value::as_str) {
            self.pending.answer(id, response.clone());
        }
    }

    /// Serves one request; a notification (no id) gets no answer. An `index_project` call
    /// that may talk back is handed back to the transport to run.
    pub(crate) fn request(
        &self,
        id: Option<Id>,
        method: &str,
        params: Value,
        out: &dyn Outbound,
    ) -> std::io::Result<Turn> {
        let Some(id) = id else { return Ok(Turn::Done) };
        if !self.state().initialized && !matches!(method, "initialize" | "ping") {
            reply(
                out,
                &id,
                &Err((
                    NOT_INITIALIZED,
                    format!(
                        "server not initialized: send initialize before {:?}",
                        clip(method)
                    ),
                )),
            )?;
            return Ok(Turn::Done);
        }
        let answer = match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(self.list_tools()),
            "tools/call" => {
                let name = params.get("name").and_then(Value::as_str);
                if name == Some(INDEX_PROJECT.name) {
                    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
                    let request = match guarded(INDEX_PROJECT.name, || index::index_request(&args))
                    {
                        Ok(Ok(request)) => request,
                        Ok(Err(e)) => {
                            reply(out, &id, &Ok(tool_result(Err(e))))?;
                            return Ok(Turn::Done);
                        }
                        Err(e) => {
                            reply(out, &id, &Err(e))?;
                            return Ok(Turn::Done);
                        }
                    };
                    // Without consent to ask for or given, the answer is at hand.
                    if !self.state().client_elicits && !request.confirmed() {
                        let answer =
                            index::index_requested(request, &self.store, None, &mut |_, _, _| {});
                        reply(out, &id, &Ok(tool_result(answer)))?;
                        return Ok(Turn::Done);
                    }
                    // One rebuild at a time: the second call is refused here, before any
                    // thread of the first one has run.
                    if std::mem::replace(&mut self.state().indexing, true) {
                        reply(out, &id, &Ok(tool_result(Err(index::already_running()))))?;
                        return Ok(Turn::Done);
                    }
                    return Ok(Turn::Rebuild(Rebuild {
                        id,
                        request,
                        params,
                    }));
                }
                self.call_tool(&params)
            }
            _ => Err((
                METHOD_NOT_FOUND,
                format!("method {:?} is not supported", clip(method)),
            )),
        };
        reply(out, &id, &answer)?;
        // A call that published the first generation (or lost it) changed the tool set.
        if method == "tools/call"
            && out.announces_tool_changes()
            && let Some(n) = self.tool_set_changed()
        {
            send(out, &n)?;
        }
        Ok(Turn::Done)
    }

    /// Runs an `index_project` call [`Session::request`] handed back, and answers it.
    pub(crate) fn rebuild(&self, job: Rebuild, out: &dyn Outbound) {
        let answer = self.index_project(job.request, &job.params, out);
        self.state().indexing = false;
        // Nobody to tell when the output is gone.
        let _ = reply(out, &job.id, &answer);
        if out.announces_tool_changes()
            && let Some(n) = self.tool_set_changed()
        {
            let _ = send(out, &n);
        }
    }

    fn initialize(&self, params: &Value) -> Value {
        let asked = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_VERSION);
        let version = if KNOWN_VERSIONS.contains(&asked) {
            asked
        } else {
            DEFAULT_VERSION
        };
        let ready = self.store.snapshot().is_some();
        let mut state = self.state();
        state.client_elicits = params
            .pointer("/capabilities/elicitation")
            .is_some_and(|e| !e.is_null());
        state.initialized = true;
        // The tool set the client starts with; a change from it is announced.
        state.listed_query_tools = Some(ready);
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "kivgraph", "version": env!("CARGO_PKG_VERSION")},
            "instructions": if ready { INSTRUCTIONS } else { STALE_INSTRUCTIONS },
        })
    }

    fn list_tools(&self) -> Value {
        let ready = self.store.snapshot().is_some();
        self.state().listed_query_tools = Some(ready);
        let mut list: Vec<Value> = if ready {
            QUERY_TOOLS.iter().map(tool_json).collect()
        } else {
            Vec::new()
        };
        list.push(tool_json(&INDEX_PROJECT));
        json!({"tools": list})
    }

    /// `notifications/tools/list_changed` once the served tool set differs from the last listing.
    pub(crate) fn tool_set_changed(&self) -> Option<Value> {
        let ready = self.store.snapshot().is_some();
        let mut state = self.state();
        match state.listed_query_tools {
            Some(listed) if listed != ready => {
                state.listed_query_tools = Some(ready);
                Some(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
            }
            _ => None,
        }
    }

    /// A query tool's answer as an MCP result.
    fn call_tool(&self, params: &Value) -> Answer {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or((INVALID_PARAMS, "tools/call needs a tool name".to_string()))?;
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        let snapshot = self.store.snapshot();
        // The query tools are offered once a generation is published.
        let query_tool = QUERY_TOOLS.iter().any(|t| t.name == name);
        if snapshot.is_none() || !query_tool {
            // A query tool is offered once a generation can be served; say why none can.
            let why = match self.store.problem() {
                Some(p) if query_tool => format!(": {}", p.explain()),
                _ => String::new(),
            };
            return Err((
                INVALID_PARAMS,
                format!("tool {:?} is not registered{why}", clip(name)),
            ));
        }
        let problem = self.store.problem();
        let answer = guarded(name, || {
            tools::call_with(name, &args, snapshot, problem.as_ref())
        })?;
        Ok(tool_result(answer))
    }

    /// `index_project` with consent asked through the client when it can elicit, and progress
    /// reported when the request carried a token.
    fn index_project(
        &self,
        request: index::IndexRequest,
        params: &Value,
        out: &dyn Outbound,
    ) -> Answer {
        let token = params
            .pointer("/_meta/progressToken")
            .cloned()
            .filter(|t| t.is_string() || t.is_number());
        let elicits = self.state().client_elicits;
        let answer = guarded(INDEX_PROJECT.name, || {
            let mut progress = |done: u64, total: u64, message: String| {
                if let Some(t) = &token {
                    // An undeliverable notification is dropped; the call goes on.
                    let _ = send(
                        out,
                        &json!({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": t, "progress": done, "total": total, "message": message}}),
                    );
                }
            };
            if elicits {
                let mut ask = |message: &str| self.elicit(out, message);
                index::index_requested(request, &self.store, Some(&mut ask), &mut progress)
            } else {
                index::index_requested(request, &self.store, None, &mut progress)
            }
        })?;
        Ok(tool_result(answer))
    }

    /// Asks the client for consent with `elicitation/create` and waits for the answer the
    /// transport hands over.
    fn elicit(&self, out: &dyn Outbound, message: &str) -> index::Consent {
        let id = {
            let mut state = self.state();
            state.next_request += 1;
            format!("kivgraph-elicit-{}", state.next_request - 1)
        };
        let Some(answer) = self.pending.register(&id) else {
            return index::Consent::Undeliverable;
        };
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
            "message": message,
            "requestedSchema": {"type": "object", "properties": {"confirmed": {"type": "boolean",
                "title": "Index the projects", "description": "Rebuild the code graph from these projects"}}, "required": ["confirmed"]}
        }});
        if send(out, &request).is_err() {
            // Nobody will answer a question that did not go out.
            self.pending.answer(&id, Value::Null);
            return index::Consent::Undeliverable;
        }
        let Ok(v) = answer.recv() else {
            return index::Consent::Undeliverable;
        };
        let r = &v["result"];
        match r["action"].as_str() {
            Some("accept") if r.pointer("/content/confirmed") == Some(&json!(true)) => {
                index::Consent::Accepted
            }
            Some("accept" | "decline" | "cancel") => index::Consent::Declined,
            _ => index::Consent::Undeliverable,
        }
    }
}

/// At most the first 200 bytes of a client's string, for a message that names it.
fn clip(s: &str) -> &str {
    let mut cut = s.len().min(200);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

/// Runs `f`. A panic is a bug, but it must never take the server down: it becomes an internal
/// error.
fn guarded<T>(name: &str, f: impl FnOnce() -> T) -> Result<T, (i64, String)> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        (
            INTERNAL_ERROR,
            format!("internal error while answering {name}; the server keeps running"),
        )
    })
}

/// A tool's answer or coded error as an MCP tool result: one text block.
fn tool_result(answer: Result<String, crate::ToolError>) -> Value {
    match tools::within_budget(answer) {
        Ok(text) => json!({"content": [{"type": "text", "text": text}]}),
        Err(e) => json!({"content": [{"type": "text", "text": e.to_string()}], "isError": true}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kivgraph_format::IndexDir;

    /// The lines the server writes for `input`, parsed.
    fn serve(input: &[u8]) -> Vec<Value> {
        raw_lines(input)
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The lines the server writes for `input`, as written.
    fn raw_lines(input: &[u8]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Server::new(Store::open(IndexDir::new(dir.path())));
        let mut output = Vec::new();
        server.run(input, &mut output).unwrap();
        String::from_utf8(output)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_line_that_is_not_utf8_is_a_parse_error_and_serving_goes_on() {
        let input: &[u8] = b"\xff\xfe{\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n";
        let lines = serve(input);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["id"], Value::Null);
        assert_eq!(lines[0]["error"]["code"], -32700);
        assert_eq!(lines[1], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    }

    #[test]
    fn only_initialize_and_ping_are_served_before_initialize() {
        let lines = serve(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"graph_status"}}
{"jsonrpc":"2.0","id":3,"method":"ping"}
{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":5,"method":"tools/list"}
"#,
        );
        assert_eq!(lines.len(), 5, "{lines:?}");
        for (line, id) in lines[..2].iter().zip([1, 2]) {
            assert_eq!(line["id"], id);
            assert_eq!(line["error"]["code"], NOT_INITIALIZED, "{line}");
        }
        assert_eq!(lines[2]["result"], json!({}));
        assert!(lines[3]["result"]["protocolVersion"].is_string());
        assert_eq!(lines[4]["result"]["tools"][0]["name"], "index_project");
    }

    #[test]
    fn invalid_request_objects_are_answered_with_id_null() {
        let lines = serve(
            br#"{}
{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}
{"jsonrpc":"2.0","id":[1],"method":"ping"}
{"jsonrpc":"2.0","id":true,"method":"ping"}
{"jsonrpc":"2.0","method":7}
{"jsonrpc":"1.0","id":9,"method":"ping"}
{"jsonrpc":"2.0","id":10,"method":"ping","params":3}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":"c","result":{}}
"#,
        );
        let got: Vec<(Value, Value)> = lines
            .iter()
            .map(|l| (l["id"].clone(), l["error"]["code"].clone()))
            .collect();
        let invalid = json!(INVALID_REQUEST);
        assert_eq!(
            got,
            vec![
                (Value::Null, invalid.clone()),
                (Value::Null, invalid.clone()),
                (Value::Null, invalid.clone()),
                (Value::Null, invalid.clone()),
                (Value::Null, invalid.clone()),
                (json!(9), invalid.clone()),
                (json!(10), invalid),
            ],
            "{lines:?}"
        );
    }

    #[test]
    fn ids_are_echoed_as_written() {
        let lines = raw_lines(
            br#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}
{"jsonrpc":"2.0","id":-0.50,"method":"ping"}
{"jsonrpc":"2.0","id":"\u0041\ud800","method":"ping"}
{"jsonrpc":"2.0","method":"ping","id" : null}
"#,
        );
        assert_eq!(
            lines,
            [
                r#"{"jsonrpc":"2.0","id":18446744073709551617,"result":{}}"#,
                r#"{"jsonrpc":"2.0","id":-0.50,"result":{}}"#,
                r#"{"jsonrpc":"2.0","id":"\u0041\ud800","result":{}}"#,
                r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            ]
        );
    }

    #[test]
    fn lone_surrogates_are_read_as_replacement_characters() {
        assert_eq!(replace_lone_surrogates(r#""\ud800""#), r#""\ufffd""#);
        assert_eq!(replace_lone_surrogates(r#""\uDC00x""#), r#""\ufffdx""#);
        assert_eq!(
            replace_lone_surrogates(r#""\ud83d\ude00""#),
            r#""\ud83d\ude00""#
        );
        assert_eq!(replace_lone_surrogates(r#""\\ud800""#), r#""\\ud800""#);
        assert_eq!(
            replace_lone_surrogates(r#""\ud800\u0041""#),
            r#""\ufffd\u0041""#
        );
        assert_eq!(
            raw_member(r#"{"id":1, "i\u0064" : "x" }"#, "id"),
            Some(r#""x""#)
        );
        assert_eq!(
            raw_member(r#"{"a":{"id":2},"b":[1,"]"],"id":3}"#, "id"),
            Some("3")
        );
    }
}
