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
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Speak MCP over stdio.
    Serve {
        /// Also follow the registered projects (`projects.json`) and publish a new generation
        /// after each burst of changes (`kivgraph-compile --watch`); answers swap to it.
        #[arg(long)]
        watch: bool,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let store = Store::open(IndexDir::new(&cli.index));
    match cli.command {
        Command::Serve { watch } => {
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
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            let mut server = mcp::Server::new(store);
            let served = server.run(stdin.lock(), stdout);
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
