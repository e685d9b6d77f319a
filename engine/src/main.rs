//! `kivgraph`: serve a generation over MCP, query it from the command line, show its status,
//! or rebuild it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use kivgraph::{ErrorCode, Store, index, mcp, tools};
use kivgraph_format::IndexDir;

#[derive(Parser)]
#[command(
    name = "kivgraph",
    version,
    about = "Serves a kivgraph code graph to agents over MCP"
)]
struct Cli {
    /// Index directory (holds CURRENT and generations/).
    #[arg(long, global = true, default_value = ".kivgraph")]
    index: PathBuf,
    /// Where the sources of repository NAME are on this machine, for get_source and the paths
    /// in answers (repeatable). By default, the checkouts the compiler recorded in the index's
    /// checkouts.json: a generation compiled elsewhere needs this.
    #[arg(long = "source", global = true, value_name = "NAME=PATH",
          value_parser = kivgraph::checkouts::parse_source)]
    sources: Vec<(String, PathBuf)>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Speak MCP over stdio, or over Streamable HTTP with --http.
    Serve {
        /// Also follow the registered projects (`projects.json`) and publish a new generation
        /// after each burst of changes (`kivgraph-compile --watch`); answers swap to it.
        #[arg(long)]
        watch: bool,
        /// Serve MCP's Streamable HTTP transport at http://ADDR/mcp instead of stdio, for many
        /// clients at once. ADDR is a port (bound on 127.0.0.1) or host:port; a non-loopback
        /// host is reachable from other machines.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// With --http: also accept requests whose Origin is this (scheme://host[:port]);
        /// loopback origins are always accepted. Repeatable.
        #[arg(long, value_name = "URL", requires = "http")]
        allow_origin: Vec<String>,
        /// With --http: require `Authorization: Bearer <token>`, the token being this file's
        /// content (surrounding whitespace trimmed). Else $KIVGRAPH_TOKEN, when set.
        #[arg(long, value_name = "PATH", requires = "http")]
        token_file: Option<PathBuf>,
        /// With --http: drop a session after this many seconds without a request.
        #[arg(
            long,
            value_name = "SECONDS",
            default_value_t = 1800,
            requires = "http"
        )]
        session_timeout: u64,
        /// With --http: the most sessions held at once.
        #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
        max_sessions: usize,
        /// With --http: the largest request body accepted, in bytes.
        #[arg(long, value_name = "BYTES", default_value_t = 4 << 20, requires = "http")]
        max_body_bytes: usize,
    },
    /// Run one tool and print exactly the text an MCP client would receive.
    Query {
        tool: String,
        /// Tool arguments as a JSON object.
        #[arg(default_value = "{}")]
        args: String,
    },
    /// Print graph_status.
    Status,
    /// Rebuild the graph from the registered projects (`projects.json` beside the index).
    Index {
        /// Compile from nothing and publish even when nothing changed since the published
        /// generation was compiled (by default that generation is the answer).
        #[arg(long)]
        full: bool,
    },
    /// Install a packed generation (`kivgraph-compile pack`) from a file or an http:// URL as a
    /// new generation of the index, after checking all of it.
    Pull {
        /// The archive: a path or an http:// URL.
        source: String,
        /// The SHA-256 the archive must have (default: SOURCE.sha256, when there is one).
        #[arg(long, value_name = "HEX")]
        sha256: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    kivgraph::checkouts::give(cli.sources.iter().cloned().collect());
    let store = Store::open(IndexDir::new(&cli.index));
    match cli.command {
        Command::Serve {
            watch,
            http,
            allow_origin,
            token_file,
            session_timeout,
            max_sessions,
            max_body_bytes,
        } => {
            // Everything about --http is checked before a watcher starts.
            let http = match http {
                Some(addr) => {
                    match http_options(
                        &addr,
                        allow_origin,
                        token_file,
                        session_timeout,
                        max_sessions,
                        max_body_bytes,
                    ) {
                        Ok(options) => Some(options),
                        Err(e) => {
                            eprintln!("kivgraph: serve --http: {e}");
                            return ExitCode::from(2);
                        }
                    }
                }
                None => None,
            };
            let mut watcher = None;
            if watch {
                let started = index::read_registry(&cli.index)
                    .and_then(|registry| index::spawn_watch(&cli.index, &registry));
                match started {
                    Ok(child) => watcher = Some(child),
                    Err(e) => {
                        eprintln!("kivgraph: serve --watch: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            let served = match http {
                Some(options) => kivgraph::http::serve(store, options),
                None => {
                    let stdin = std::io::stdin();
                    let stdout = std::io::stdout();
                    mcp::Server::new(store).run(stdin.lock(), stdout)
                }
            };
            if let Some(mut child) = watcher {
                let _ = child.kill();
                let _ = child.wait();
            }
            match served {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("kivgraph: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Query { tool, args } => {
            let args: serde_json::Value = match serde_json::from_str(&args) {
                Ok(v) => v,
                Err(e) => {
                    eprintln!(
                        "kivgraph: {}: arguments are not JSON: {e}",
                        ErrorCode::InvalidArgument
                    );
                    return ExitCode::from(2);
                }
            };
            let answer = if tool == index::INDEX_PROJECT.name {
                tools::within_budget(index::index_project(&args, &store, None, &mut |_, _, _| {}))
            } else {
                tools::call_store(&tool, &args, &store)
            };
            match answer {
                // get_source's prose already ends with a newline; JSON answers get one.
                Ok(text) if text.ends_with('\n') => {
                    out(&text, false);
                    ExitCode::SUCCESS
                }
                Ok(text) => {
                    out(&text, true);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    out(&e.to_string(), true);
                    ExitCode::from(1)
                }
            }
        }
        Command::Status => {
            match tools::call_store("graph_status", &serde_json::json!({}), &store) {
                Ok(text) => {
                    out(&text, true);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    out(&e.to_string(), true);
                    ExitCode::FAILURE
                }
            }
        }
        Command::Pull { source, sha256 } => {
            match kivgraph::pull::pull(&source, sha256.as_deref(), &cli.index) {
                Ok(line) => {
                    out(&line, false);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("kivgraph: {}: {}", e.code, e.message);
                    ExitCode::FAILURE
                }
            }
        }
        Command::Index { full } => {
            let registry = match index::read_registry(&cli.index) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("kivgraph: {e}");
                    return ExitCode::FAILURE;
                }
            };
            match index::rebuild(&cli.index, &registry, full) {
                Ok(summary) => {
                    out(
                        &serde_json::to_string_pretty(&summary).unwrap_or_default(),
                        true,
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("kivgraph: INDEXING_FAILED: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// The HTTP transport's options from the command line; the token from `--token-file`, else
/// `$KIVGRAPH_TOKEN`.
fn http_options(
    addr: &str,
    allowed_origins: Vec<String>,
    token_file: Option<PathBuf>,
    session_timeout: u64,
    max_sessions: usize,
    max_body: usize,
) -> Result<kivgraph::http::Options, String> {
    let mut options = kivgraph::http::Options::new(kivgraph::http::parse_addr(addr)?);
    let token = match token_file {
        Some(path) => Some(
            std::fs::read_to_string(&path)
                .map_err(|e| format!("{}: cannot read the token file: {e}", path.display()))?
                .trim()
                .to_string(),
        ),
        None => std::env::var("KIVGRAPH_TOKEN").ok(),
    };
    if token.as_deref().is_some_and(str::is_empty) {
        return Err(
            "the token is empty; put a long random string in the token file (or KIVGRAPH_TOKEN)"
                .into(),
        );
    }
    if max_sessions == 0 || max_body == 0 || session_timeout == 0 {
        return Err(
            "--max-sessions, --max-body-bytes and --session-timeout must be above 0".into(),
        );
    }
    options.allowed_origins = allowed_origins;
    options.token = token;
    options.session_idle = std::time::Duration::from_secs(session_timeout);
    options.max_sessions = max_sessions;
    options.max_body = max_body;
    Ok(options)
}

/// Writes an answer to stdout; a reader that went away (`kivgraph query … | head`) is not an
/// error of the command.
fn out(text: &str, newline: bool) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    let _ = o
        .write_all(text.as_bytes())
        .and_then(|()| if newline { o.write_all(b"\n") } else { Ok(()) })
        .and_then(|()| o.flush());
}
