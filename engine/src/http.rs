//! MCP over Streamable HTTP (protocol revisions 2025-03-26 and 2025-06-18): one endpoint,
//! `/mcp`, that many clients share. Each client gets its own [`Session`] (its own `initialize`
//! state, protocol version and capabilities) over the one [`Store`], so a published generation
//! reaches every session without a restart. The protocol logic is the stdio server's; this
//! module only carries messages. tokio and axum live here and nowhere else: every message is
//! served on a blocking thread, and the tool code stays synchronous.
//!
//! A request goes through these checks, in order:
//! 1. `Origin`, when present, must be a loopback origin or one allowed with `--allow-origin`
//!    (403 otherwise): a web page cannot reach a local server through the browser.
//! 2. With a token, `Authorization: Bearer <token>` (401 with `WWW-Authenticate: Bearer`
//!    otherwise), compared in constant time.
//! 3. The method: POST carries one JSON-RPC message, GET opens the session's stream for
//!    server-initiated messages, DELETE ends the session; anything else is 405.
//! 4. `MCP-Protocol-Version`, when present, must name a revision the server knows (400).
//! 5. `Mcp-Session-Id`, assigned in the answer to `initialize`, is required on every later
//!    request (400 without it, 404 once the session is unknown or ended).
//!
//! A POSTed request is answered with `application/json`, except an `index_project` call from
//! a client that accepts `text/event-stream`: that one is answered on an SSE stream, which
//! carries its progress notifications and its consent question (`elicitation/create`, whose
//! answer the client POSTs back) before the answer. A client that accepts only JSON is treated
//! as one that cannot be asked: `index_project` then needs `confirmed: true`. A POSTed
//! notification or response is accepted with 202.
//!
//! `notifications/tools/list_changed` goes on a session's GET stream, when one is open: a
//! watcher thread checks every second whether the tool set changed for each such session (the
//! first generation was published, or the last one lost), and so does every `tools/call`.
//! The same thread drops sessions idle for longer than the configured timeout; a session with
//! a request in flight or a live GET stream is not idle.

use std::collections::HashMap;
use std::io::Read;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use axum::routing::any;
use futures_util::StreamExt;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::index::INDEX_PROJECT;
use crate::mcp::{
    self, INVALID_REQUEST, Id, KNOWN_VERSIONS, Message, Outbound, PARSE_ERROR, Session, Turn,
};
use crate::store::Store;

/// The one endpoint.
pub const ENDPOINT: &str = "/mcp";
const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
/// A session unknown to the server, as the reference SDKs spell it.
const SESSION_NOT_FOUND: i64 = -32001;
/// The server cannot take the request now (too many sessions).
const SERVER_BUSY: i64 = -32000;
/// How often the watcher looks at the tool set and at idle sessions.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// A GET stream with nothing to say sends an SSE comment this often, so that a client that went
/// away is noticed (the write fails) and its session can expire.
const KEEP_ALIVE: Duration = Duration::from_secs(20);
/// How much of an oversized body is read and thrown away before answering 413, so that the
/// client reads the answer rather than a reset connection.
const DRAIN_AT_MOST: usize = 16 << 20;

/// How the server listens and whom it lets in.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where to listen.
    pub addr: SocketAddr,
    /// Origins allowed besides the loopback ones, as `scheme://host[:port]`.
    pub allowed_origins: Vec<String>,
    /// The bearer token every request must carry, when set.
    pub token: Option<String>,
    /// A session without a request for this long is dropped.
    pub session_idle: Duration,
    /// At most this many sessions at once; `initialize` beyond it is refused with 503.
    pub max_sessions: usize,
    /// The largest request body taken, in bytes; larger ones get 413.
    pub max_body: usize,
}

impl Options {
    /// The defaults around a listening address: 30 minutes of idleness, 64 sessions, 4 MiB.
    pub fn new(addr: SocketAddr) -> Options {
        Options {
            addr,
            allowed_origins: Vec::new(),
            token: None,
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 64,
            max_body: 4 << 20,
        }
    }
}

/// Reads `--http`'s value: a bare port binds the loopback address; `host:port` binds that host
/// (`localhost:7411`, `0.0.0.0:7411`, `[::1]:7411`).
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    use std::net::ToSocketAddrs;
    text.to_socket_addrs()
        .map_err(|e| format!("--http {text:?}: not a port or host:port ({e})"))?
        .next()
        .ok_or_else(|| format!("--http {text:?}: the host has no address"))
}

/// Serves MCP over HTTP until SIGINT or SIGTERM. Prints `listening on http://ADDR/mcp` on
/// stderr once bound (with port 0, the port the system chose).
pub fn serve(store: Store, options: Options) -> std::io::Result<()> {
    let listener = TcpListener::bind(options.addr)?;
    let bound = listener.local_addr()?;
    if !bound.ip().is_loopback() && options.token.is_none() {
        eprintln!(
            "kivgraph: warning: listening on {bound}, which other machines can reach, without a \
             token: anyone who reaches it can query the graph and rebuild it. Set --token-file \
             or KIVGRAPH_TOKEN, or bind 127.0.0.1 behind a proxy that authenticates"
        );
    }
    listener.set_nonblocking(true)?;
    let shared = Arc::new(Shared {
        store: Arc::new(store),
        token: options.token.as_deref().map(digest),
        sessions: Mutex::new(HashMap::new()),
        options,
    });
    let watcher = Arc::downgrade(&shared);
    std::thread::Builder::new()
        .name("kivgraph-http-watch".into())
        .spawn(move || watch(watcher))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("kivgraph-http")
        .build()?;
    let app = Router::new()
        .route(ENDPOINT, any(endpoint))
        .with_state(Arc::clone(&shared));
    let result = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        eprintln!("kivgraph: listening on http://{bound}{ENDPOINT}");
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        tokio::select! {
            served = server => served.map_err(std::io::Error::other)?,
            () = stopped() => Ok(()),
        }
    });
    // Streams still open (GET streams, a rebuild's SSE stream) are cut, not waited for.
    runtime.shutdown_timeout(Duration::from_secs(1));
    for entry in lock(&shared.sessions).drain().map(|(_, e)| e) {
        entry.session.end();
    }
    result
}

/// Resolves on SIGINT or SIGTERM.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// What every exchange shares.
struct Shared {
    store: Arc<Store>,
    options: Options,
    /// SHA-256 of the token: comparing digests takes the same time whatever the guess.
    token: Option<[u8; 32]>,
    sessions: Mutex<HashMap<String, Arc<Entry>>>,
}

/// One session and what the transport knows about it.
struct Entry {
    session: Session,
    /// The last time a request of it started or finished.
    seen: Mutex<Instant>,
    /// Requests in flight.
    busy: AtomicUsize,
    /// The session's GET stream, when one is open.
    stream: Mutex<Option<UnboundedSender<String>>>,
}

impl Entry {
    /// Sends `notifications/tools/list_changed` on the GET stream if the tool set changed since
    /// the session last saw it. Without a stream the change is kept for a later look.
    fn announce(&self) {
        let stream = lock(&self.stream);
        let Some(tx) = stream.as_ref().filter(|tx| !tx.is_closed()) else {
            return;
        };
        if let Some(n) = self.session.tool_set_changed() {
            let _ = tx.send(n.to_string());
        }
    }

    fn idle_for(&self, now: Instant) -> Duration {
        if self.busy.load(Ordering::SeqCst) > 0
            || lock(&self.stream)
                .as_ref()
                .is_some_and(|tx| !tx.is_closed())
        {
            return Duration::ZERO;
        }
        now.saturating_duration_since(*lock(&self.seen))
    }
}

/// Counts a request in flight for as long as it lives.
struct Busy(Arc<Entry>);

impl Busy {
    fn new(entry: &Arc<Entry>) -> Busy {
        entry.busy.fetch_add(1, Ordering::SeqCst);
        *lock(&entry.seen) = Instant::now();
        Busy(Arc::clone(entry))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        *lock(&self.0.seen) = Instant::now();
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The watcher thread: tool-set changes to GET streams, and idle sessions dropped. It stops
/// when the server does.
fn watch(shared: Weak<Shared>) {
    loop {
        std::thread::sleep(WATCH_EVERY);
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let now = Instant::now();
        let idle = shared.options.session_idle;
        let entries: Vec<Arc<Entry>> = {
            let mut sessions = lock(&shared.sessions);
            sessions.retain(|_, e| {
                let keep = e.idle_for(now) < idle;
                if !keep {
                    e.session.end();
                }
                keep
            });
            sessions.values().cloned().collect()
        };
        for entry in entries {
            entry.announce();
        }
    }
}

/// How one POSTed request's messages travel.
struct Exchange {
    /// SSE: every message goes out as it is written. Without it (JSON) only the answer goes,
    /// kept here for the response body.
    stream: Option<UnboundedSender<String>>,
    answer: Mutex<Option<String>>,
}

impl Outbound for Exchange {
    fn answer(&self, text: String) -> std::io::Result<()> {
        match &self.stream {
            Some(tx) => tx
                .send(text)
                .map_err(|_| std::io::Error::other("the client closed the stream")),
            None => {
                *lock(&self.answer) = Some(text);
                Ok(())
            }
        }
    }

    fn message(&self, text: String) -> std::io::Result<()> {
        match &self.stream {
            Some(tx) => tx
                .send(text)
                .map_err(|_| std::io::Error::other("the client closed the stream")),
            None => Err(std::io::Error::other(
                "a JSON response carries the answer alone",
            )),
        }
    }

    fn announces_tool_changes(&self) -> bool {
        false
    }
}

/// The one handler: the checks every request passes, then the method's own.
async fn endpoint(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let headers = request.headers();
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !origin_allowed(origin, &shared.options.allowed_origins) {
            return refusal(
                StatusCode::FORBIDDEN,
                INVALID_REQUEST,
                format!(
                    "Forbidden: origin {:?} is not allowed; the server accepts loopback origins \
                     and those given with --allow-origin",
                    clip(origin)
                ),
            );
        }
    }
    if let Some(expected) = &shared.token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(|t| digest(t.trim()));
        if !given.is_some_and(|g| constant_time_eq(&g, expected)) {
            let mut response = refusal(
                StatusCode::UNAUTHORIZED,
                INVALID_REQUEST,
                "Unauthorized: send the server's token as Authorization: Bearer <token>".into(),
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    }
    if let Some(v) = headers.get(VERSION_HEADER) {
        let v = v.to_str().unwrap_or("");
        if !KNOWN_VERSIONS.contains(&v) {
            return refusal(
                StatusCode::BAD_REQUEST,
                INVALID_REQUEST,
                format!(
                    "Bad Request: unsupported MCP-Protocol-Version {:?}; supported: {}",
                    clip(v),
                    KNOWN_VERSIONS.join(", ")
                ),
            );
        }
    }
    match *request.method() {
        Method::POST => post(shared, request).await,
        Method::GET => get(shared, request.headers()),
        Method::DELETE => delete(shared, request.headers()),
        _ => {
            let mut response = refusal(
                StatusCode::METHOD_NOT_ALLOWED,
                INVALID_REQUEST,
                format!(
                    "Method Not Allowed: {} serves POST, GET and DELETE",
                    ENDPOINT
                ),
            );
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            response
        }
    }
}

/// What the client accepts, from `Accept`; a request without the header accepts anything.
#[derive(Clone, Copy)]
struct Accepts {
    json: bool,
    sse: bool,
}

fn accepts(headers: &HeaderMap) -> Accepts {
    let mut found = Accepts {
        json: false,
        sse: false,
    };
    let values: Vec<&HeaderValue> = headers.get_all(header::ACCEPT).iter().collect();
    if values.is_empty() {
        return Accepts {
            json: true,
            sse: true,
        };
    }
    for range in values
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
    {
        let media = range
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match media.as_str() {
            "*/*" => {
                found.json = true;
                found.sse = true;
            }
            "application/json" | "application/*" => found.json = true,
            "text/event-stream" | "text/*" => found.sse = true,
            _ => {}
        }
    }
    found
}

/// The session a request names: `Ok(None)` without the header, a refusal for an unknown one.
fn session_of(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<Option<(String, Arc<Entry>)>, Refused> {
    let Some(id) = headers.get(SESSION_HEADER) else {
        return Ok(None);
    };
    let id = id.to_str().unwrap_or("").to_string();
    match lock(&shared.sessions).get(&id) {
        Some(entry) => Ok(Some((id, Arc::clone(entry)))),
        None => Err(Refused(
            StatusCode::NOT_FOUND,
            SESSION_NOT_FOUND,
            "Not Found: the session is unknown or ended; send initialize to start a new one".into(),
        )),
    }
}

fn no_session() -> Response {
    refusal(
        StatusCode::BAD_REQUEST,
        INVALID_REQUEST,
        "Bad Request: no Mcp-Session-Id header; send initialize first and then the session id \
         its answer carries"
            .into(),
    )
}

async fn post(shared: Arc<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    let accepted = accepts(headers);
    if !accepted.json && !accepted.sse {
        return refusal(
            StatusCode::NOT_ACCEPTABLE,
            INVALID_REQUEST,
            "Not Acceptable: the client must accept application/json and text/event-stream".into(),
        );
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    if content_type.as_deref() != Some("application/json") {
        return refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            INVALID_REQUEST,
            "Unsupported Media Type: a POST carries one JSON-RPC message as application/json"
                .into(),
        );
    }
    let body = match read_body(body, shared.options.max_body).await {
        Ok(body) => body,
        Err(refused) => return refused.response(),
    };
    let text = match std::str::from_utf8(&body) {
        Ok(text) => text,
        Err(e) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                PARSE_ERROR,
                format!("parse error: the body is not UTF-8: {e}"),
            );
        }
    };
    let message = mcp::classify(text.trim());
    let named = match session_of(&shared, headers) {
        Ok(named) => named,
        Err(refused) => return refused.response(),
    };
    let (id, method, params) = match message {
        Message::Answer(id, answer) => {
            return json_response(StatusCode::BAD_REQUEST, mcp::reply_text(&id, &answer));
        }
        Message::Response(v) => {
            let Some((_, entry)) = named else {
                return no_session();
            };
            let _busy = Busy::new(&entry);
            entry.session.hand_over(v);
            return accepted_202();
        }
        Message::Request { id, method, params } => (id, method, params),
    };
    // A new session starts with `initialize`; everything else names one.
    let (session_id, entry, new) = match named {
        Some((sid, entry)) => (sid, entry, false),
        None if method == "initialize" && id.is_some() => match new_session(&shared) {
            Ok((sid, entry)) => (sid, entry, true),
            Err(refused) => return refused.response(),
        },
        None => return no_session(),
    };
    let Some(id) = id else {
        // A notification: served (it has no answer) and accepted.
        let _busy = Busy::new(&entry);
        let _ = entry.session.request(
            None,
            &method,
            params,
            &Exchange {
                stream: None,
                answer: Mutex::new(None),
            },
        );
        return accepted_202();
    };
    let talks_back = method == "tools/call"
        && params.get("name").and_then(Value::as_str) == Some(INDEX_PROJECT.name);
    let sse = !accepted.json || (accepted.sse && talks_back);
    let busy = Busy::new(&entry);
    let is_call = method == "tools/call";
    if sse {
        let (tx, rx) = unbounded_channel();
        tokio::task::spawn_blocking(move || {
            let exchange = Exchange {
                stream: Some(tx),
                answer: Mutex::new(None),
            };
            serve_request(&busy.0, id, &method, params, &exchange);
            if is_call {
                busy.0.announce();
            }
            // The stream ends when the exchange (its sender) is dropped here.
        });
        let mut response = sse_response(rx, None);
        if new {
            set_session(&mut response, &session_id);
        }
        return response;
    }
    let served = tokio::task::spawn_blocking(move || {
        let exchange = Exchange {
            stream: None,
            answer: Mutex::new(None),
        };
        serve_request(&busy.0, id, &method, params, &exchange);
        if is_call {
            busy.0.announce();
        }
        exchange
            .answer
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
    })
    .await;
    let Ok(Some(answer)) = served else {
        if new {
            forget(&shared, &session_id);
        }
        return refusal(
            StatusCode::INTERNAL_SERVER_ERROR,
            mcp::INTERNAL_ERROR,
            "internal error: the request was not answered; the server keeps running".into(),
        );
    };
    let mut response = json_response(StatusCode::OK, answer);
    if new {
        set_session(&mut response, &session_id);
    }
    response
}

/// Serves one request on the calling (blocking) thread, `index_project` included.
fn serve_request(entry: &Entry, id: Id, method: &str, params: Value, out: &Exchange) {
    // An exchange whose client went away has nobody to tell.
    if let Ok(Turn::Rebuild(job)) = entry.session.request(Some(id), method, params, out) {
        entry.session.rebuild(job, out);
    }
}

/// Opens the session's stream for server-initiated messages. A second GET replaces the first
/// stream (a reconnecting client's old one may not be noticed as gone yet).
fn get(shared: Arc<Shared>, headers: &HeaderMap) -> Response {
    if !accepts(headers).sse {
        return refusal(
            StatusCode::NOT_ACCEPTABLE,
            INVALID_REQUEST,
            "Not Acceptable: the stream is text/event-stream".into(),
        );
    }
    let (_, entry) = match session_of(&shared, headers) {
        Ok(Some(named)) => named,
        Ok(None) => return no_session(),
        Err(refused) => return refused.response(),
    };
    let (tx, rx) = unbounded_channel();
    *lock(&entry.stream) = Some(tx);
    *lock(&entry.seen) = Instant::now();
    sse_response(rx, Some(KEEP_ALIVE))
}

/// Ends a session: later requests naming it get 404.
fn delete(shared: Arc<Shared>, headers: &HeaderMap) -> Response {
    match session_of(&shared, headers) {
        Ok(Some((id, _))) => {
            forget(&shared, &id);
            Response::builder()
                .status(StatusCode::OK)
                .body(Body::empty())
                .unwrap_or_default()
        }
        Ok(None) => no_session(),
        Err(refused) => refused.response(),
    }
}

fn forget(shared: &Shared, id: &str) {
    if let Some(entry) = lock(&shared.sessions).remove(id) {
        entry.session.end();
        // Ends the GET stream.
        lock(&entry.stream).take();
    }
}

fn new_session(shared: &Shared) -> Result<(String, Arc<Entry>), Refused> {
    let mut sessions = lock(&shared.sessions);
    if sessions.len() >= shared.options.max_sessions {
        // Make room from the idle ones before refusing.
        let now = Instant::now();
        let idle = shared.options.session_idle;
        sessions.retain(|_, e| {
            let keep = e.idle_for(now) < idle;
            if !keep {
                e.session.end();
            }
            keep
        });
        if sessions.len() >= shared.options.max_sessions {
            return Err(Refused(
                StatusCode::SERVICE_UNAVAILABLE,
                SERVER_BUSY,
                format!(
                    "Service Unavailable: the server holds its maximum of {} sessions; end one \
                     (DELETE) or wait for idle ones to expire",
                    shared.options.max_sessions
                ),
            ));
        }
    }
    let id = session_id();
    let entry = Arc::new(Entry {
        session: Session::new(Arc::clone(&shared.store)),
        seen: Mutex::new(Instant::now()),
        busy: AtomicUsize::new(0),
        stream: Mutex::new(None),
    });
    sessions.insert(id.clone(), Arc::clone(&entry));
    Ok((id, entry))
}

/// 128 random bits in hex, from the system's random source; a hash of the time and a counter
/// where there is none (a session id is a name, not a secret: the token guards access).
fn session_id() -> String {
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut h = Sha256::new();
        h.update(format!(
            "{:?} {} {}",
            std::time::SystemTime::now(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        bytes.copy_from_slice(&h.finalize()[..16]);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads a body of at most `limit` bytes. A larger one is drained (up to a bound) and refused
/// with 413.
async fn read_body(body: Body, limit: usize) -> Result<Vec<u8>, Refused> {
    let mut stream = body.into_data_stream();
    let mut got = Vec::new();
    let mut seen = 0usize;
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            return Err(Refused(
                StatusCode::BAD_REQUEST,
                PARSE_ERROR,
                "parse error: the body could not be read".into(),
            ));
        };
        seen = seen.saturating_add(chunk.len());
        if seen <= limit {
            got.extend_from_slice(&chunk);
        } else if seen > DRAIN_AT_MOST {
            break;
        }
    }
    if seen > limit {
        return Err(Refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            INVALID_REQUEST,
            format!("Payload Too Large: a message is at most {limit} bytes"),
        ));
    }
    Ok(got)
}

/// A refused request, before it becomes a [`Response`] (which is large to carry in a `Result`).
struct Refused(StatusCode, i64, String);

impl Refused {
    fn response(self) -> Response {
        refusal(self.0, self.1, self.2)
    }
}

/// An HTTP error with a JSON-RPC error body (id null).
fn refusal(status: StatusCode, code: i64, message: String) -> Response {
    json_response(status, mcp::reply_text(&Id::null(), &Err((code, message))))
}

fn json_response(status: StatusCode, text: String) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(text))
        .unwrap_or_default()
}

fn accepted_202() -> Response {
    Response::builder()
        .status(StatusCode::ACCEPTED)
        .body(Body::empty())
        .unwrap_or_default()
}

fn set_session(response: &mut Response, id: &str) {
    if let Ok(v) = HeaderValue::from_str(id) {
        response.headers_mut().insert(SESSION_HEADER, v);
    }
}

/// An SSE response carrying each message of `rx` as one `message` event, until the sender is
/// dropped; with `keep_alive`, a comment whenever nothing was sent for that long.
fn sse_response(rx: UnboundedReceiver<String>, keep_alive: Option<Duration>) -> Response {
    let events = futures_util::stream::unfold(rx, move |mut rx| async move {
        let next = match keep_alive {
            Some(every) => match tokio::time::timeout(every, rx.recv()).await {
                Ok(message) => message.map(|m| format!("event: message\ndata: {m}\n\n")),
                Err(_) => Some(": keep-alive\n\n".to_string()),
            },
            None => rx
                .recv()
                .await
                .map(|m| format!("event: message\ndata: {m}\n\n")),
        };
        next.map(|event| (Ok::<Bytes, std::io::Error>(Bytes::from(event)), rx))
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(events))
        .unwrap_or_default()
}

/// Whether a browser origin may talk to the server: loopback hosts on any port, over http or
/// https, and the origins allowed by name.
fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    let normal = |o: &str| o.trim().trim_end_matches('/').to_ascii_lowercase();
    let origin = normal(origin);
    if allowed.iter().any(|a| normal(a) == origin) {
        return true;
    }
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = if rest.starts_with('[') {
        match rest.find(']') {
            Some(end) => &rest[..=end],
            None => return false,
        }
    } else {
        rest.split(':').next().unwrap_or("")
    };
    let port = &rest[host.len()..];
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    port_ok && matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Equal in time independent of where the first difference is.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// At most the first 200 bytes of a client's string, for a message that names it.
fn clip(s: &str) -> &str {
    let mut cut = s.len().min(200);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_and_named_ones_are_allowed() {
        let named = vec!["https://app.example.com/".to_string()];
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:7411",
            "HTTP://LOCALHOST",
            "https://app.example.com",
        ] {
            assert!(origin_allowed(ok, &named), "{ok}");
        }
        for refused in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "http://localhost:80@evil.example",
            "null",
            "file://",
            "http://[::1].evil",
            "https://app.example.com:444",
        ] {
            assert!(!origin_allowed(refused, &named), "{refused}");
        }
    }

    #[test]
    fn addresses_default_to_loopback() {
        assert_eq!(parse_addr("7411").unwrap().to_string(), "127.0.0.1:7411");
        assert_eq!(
            parse_addr("0.0.0.0:7411").unwrap().to_string(),
            "0.0.0.0:7411"
        );
        assert_eq!(parse_addr("[::1]:0").unwrap().to_string(), "[::1]:0");
        assert!(parse_addr("no port").is_err());
    }

    #[test]
    fn tokens_compare_by_digest() {
        assert!(constant_time_eq(&digest("s3cret"), &digest("s3cret")));
        assert!(!constant_time_eq(&digest("s3cret"), &digest("s3cres")));
        assert!(!constant_time_eq(&digest("s3cret"), &digest("")));
    }
}
