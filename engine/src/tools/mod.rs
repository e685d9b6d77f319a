//! The tools: argument validation, the envelope, compact and full views. This is the only layer
//! that knows JSON; it turns query results into the exact text a client receives. Every tool
//! answers JSON except `get_source`, which answers prose (see `source`).
//!
//! A tool is registered once, as a [`ToolDef`] in [`QUERY_TOOLS`] (or [`crate::index`]'s
//! `INDEX_PROJECT`): the entry carries the name, the text of `tools/list` and the handler, and
//! both `tools/list` and [`call`] read the same table.
//!
//! Besides one module a tool, the modules here hold what the tools share: `args` (reading
//! arguments, and the schema pieces several tools declare), `envelope` (the envelope, paging and
//! page guidance), `labels` (the compact shape of a set of files) and `shape` (symbol fields by
//! name, tallies and groups in order of first appearance, the grouping bet's size test).

use std::sync::Arc;

use kivgraph_format::Generation;
use serde_json::Value;

use crate::index::{Ask, Progress};
use crate::query::{ErrorCode, ToolError};
use crate::store::{Problem, Store};

mod args;
mod consumers;
mod envelope;
mod intent;
mod labels;
mod outline;
mod references;
mod repos;
mod shape;
mod source;
mod symbols;
mod traverse;

pub(crate) use args::{Args, View, selector_props};
pub(crate) use envelope::{
    Coverage, Envelope, completeness, now_ms, page_guidance, render, showing,
};

/// The `instructions` text of `initialize`: the seed's four paragraphs, with the sentence on how
/// edges are resolved stating what this implementation does.
pub const INSTRUCTIONS: &str = "Kivgraph answers \"what breaks if I change this\" from a published code graph over Go, TypeScript, Rust, Python and Dart. Before grepping or reading files to find callers, references or impact, call find_references or get_blast_radius; to read the code they name, call get_source. Check confidence and completeness: Python fallback facts can be CANDIDATE and external Dart packages can be UNRESOLVED.

Its edges are resolved by kivgraph's own scope, import and declared-type analysis of each language, not by matching names: an exact edge follows the language's binding rules, a guess is labelled CANDIDATE, and every reference it could not follow is recorded, so a reference list whose completeness is COMPLETE is the whole story and an empty one means nobody calls it. Grep cannot tell you that.

Rows are addressable: every one carries a repository, a repository-relative path, a qualified name and a line range, and every tool accepts that triple instead of a stable key.

Where it loses: a rare name in a single small repository is cheaper to grep, and one small file is cheaper to read than to outline. It wins on common names, on transitive impact, on cross-repository consumers and on proving an absence.";

/// What the server says before any generation is published.
pub const STALE_INSTRUCTIONS: &str = "Kivgraph has no published code graph yet, so its query tools are not available. Run `kivgraph index --full` (or call index_project with the user's approval) to build one, then restart the MCP server. Until then, use the host's own search and file reading.";

/// One tool: what `tools/list` says about it, and the function that answers it.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub read_only: bool,
    /// The JSON Schema of the arguments.
    pub schema: fn() -> Value,
    /// A client hint: an agent reaches for this tool first, so it stays loaded.
    pub always_load: bool,
    /// A client hint: the answer may be larger than a client's default cap.
    pub large_answer: bool,
    pub handler: Handler,
}

/// graph_status: the served generation, if any, and what keeps the published one from being
/// served, if anything.
pub type StatusAnswer =
    fn(&Value, Option<&Generation>, Option<&Problem>) -> Result<Value, ToolError>;

/// How a tool answers, by what it needs.
#[derive(Clone, Copy)]
pub enum Handler {
    /// Answers JSON off the published generation; `INDEX_NOT_READY` before one is published.
    Json(fn(&Value, &Generation) -> Result<Value, ToolError>),
    /// Answers prose off the published generation (get_source).
    Prose(fn(&Value, &Generation) -> Result<String, ToolError>),
    /// Answers JSON whether or not a generation is published (graph_status), and says what
    /// keeps the published one from being served, if anything.
    Status(StatusAnswer),
    /// Registers projects and rebuilds the graph (index_project). It needs the store and may ask
    /// the user for consent and report progress, so the server and the command line call it
    /// themselves rather than through [`call`].
    Index(fn(&Value, &Store, Option<Ask>, Progress) -> Result<String, ToolError>),
}

pub(crate) fn not_ready(problem: Option<&Problem>) -> ToolError {
    let message = match problem {
        Some(p) => p.explain(),
        None => "no generation is published yet; index with index_project, or run `kivgraph index --full`".into(),
    };
    ToolError::new(ErrorCode::IndexNotReady, message)
}

/// Longest answer a tool gives, in bytes; a longer one is refused with `INVALID_ARGUMENT`,
/// naming the remedies (get_source trims its bodies well below it).
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Longest error message, in bytes; a longer one is cut at a character boundary and says so.
pub const MAX_ERROR_BYTES: usize = 16 << 10;

/// Runs one of [`QUERY_TOOLS`] on the served generation and returns the text the client
/// receives.
pub fn call(name: &str, args: &Value, g: Option<Arc<Generation>>) -> Result<String, ToolError> {
    call_with(name, args, g, None)
}

/// Runs one of [`QUERY_TOOLS`] on what `store` serves: when the published generation cannot be
/// served, `INDEX_NOT_READY` and graph_status say why.
pub fn call_store(name: &str, args: &Value, store: &Store) -> Result<String, ToolError> {
    let g = store.snapshot();
    call_with(name, args, g, store.problem().as_ref())
}

/// [`call`], with what keeps the published generation from being served, if anything.
pub fn call_with(
    name: &str,
    args: &Value,
    g: Option<Arc<Generation>>,
    problem: Option<&Problem>,
) -> Result<String, ToolError> {
    within_budget(answer(name, args, g, problem))
}

/// Holds an answer to [`MAX_ANSWER_BYTES`] and an error message to [`MAX_ERROR_BYTES`].
pub fn within_budget(answer: Result<String, ToolError>) -> Result<String, ToolError> {
    match answer {
        Ok(text) if text.len() > MAX_ANSWER_BYTES => Err(ToolError::invalid(format!(
            "the answer is {} bytes, over the {MAX_ANSWER_BYTES}-byte budget; lower limit, use the compact view or narrow the query",
            text.len()
        ))),
        Err(mut e) if e.message.len() > MAX_ERROR_BYTES => {
            let mut cut = MAX_ERROR_BYTES;
            while !e.message.is_char_boundary(cut) {
                cut -= 1;
            }
            let more = e.message.len() - cut;
            e.message.truncate(cut);
            e.message += &format!(" … ({more} bytes more not shown)");
            Err(e)
        }
        other => other,
    }
}

/// Answers one call, and answers the damage instead when the call read damaged bytes of the
/// generation (see [`kivgraph_format::graph`]): a corrupted byte is never a row.
fn answer(
    name: &str,
    args: &Value,
    g: Option<Arc<Generation>>,
    problem: Option<&Problem>,
) -> Result<String, ToolError> {
    kivgraph_format::take_damage();
    let id = g.as_deref().map(|g| g.id);
    let answered = answer_undamaged(name, args, g, problem);
    match kivgraph_format::take_damage() {
        None => answered,
        Some(damage) => Err(damaged(id, &damage)),
    }
}

/// The error of a call that read damaged bytes of generation `id`.
pub(crate) fn damaged(id: Option<u64>, damage: &kivgraph_format::Damage) -> ToolError {
    let generation = id.map_or_else(String::new, |id| {
        format!(
            " (generation {})",
            kivgraph_format::layout::generation_name(id)
        )
    });
    ToolError::new(
        ErrorCode::SnapshotUnavailable,
        format!(
            "active snapshot{generation} is inconsistent: {damage}; this answer is withheld, other questions are still answered. Run `kivgraph-compile verify` on the index, and recompile (`kivgraph index --full`) to replace the generation"
        ),
    )
}

fn answer_undamaged(
    name: &str,
    args: &Value,
    g: Option<Arc<Generation>>,
    problem: Option<&Problem>,
) -> Result<String, ToolError> {
    let unknown = || ToolError::invalid(format!("unknown tool {name:?}"));
    let tool = QUERY_TOOLS
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(unknown)?;
    let ready = || g.as_deref().ok_or_else(|| not_ready(problem));
    let value = match tool.handler {
        Handler::Prose(answer) => return answer(args, ready()?),
        Handler::Json(answer) => answer(args, ready()?)?,
        Handler::Status(answer) => answer(args, g.as_deref(), problem)?,
        Handler::Index(_) => return Err(unknown()),
    };
    Ok(serde_json::to_string(&value).unwrap_or_default())
}

/// Tools served once a generation is published, in the order `tools/list` gives them.
pub static QUERY_TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "find_references",
        title: "Find references",
        description: "Who calls or references a symbol. Resolved by scope, import and declared-type rules, not name-matched: grep cannot separate homonyms, and an empty answer with a COMPLETE verdict means nobody calls it. A rare name in one repository is cheaper to grep. A bare name suffices: an ambiguous one returns its candidates, so no lookup call first. `view: \"files\"` answers which files without a line each.",
        read_only: true,
        schema: references::schema,
        always_load: true,
        large_answer: false,
        handler: Handler::Json(references::find_references),
    },
    ToolDef {
        name: "get_blast_radius",
        title: "Get blast radius",
        description: "What a change to this symbol reaches, by repository, package, depth and relation kind. Grep does not follow a chain.",
        read_only: true,
        schema: traverse::schema_blast,
        always_load: true,
        large_answer: true,
        handler: Handler::Json(traverse::get_blast_radius),
    },
    ToolDef {
        name: "trace_dependencies",
        title: "Trace dependencies",
        description: "What this symbol reaches outward, bounded by depth. Grep does not follow a chain.",
        read_only: true,
        schema: traverse::schema_trace,
        always_load: false,
        large_answer: true,
        handler: Handler::Json(traverse::trace_dependencies),
    },
    ToolDef {
        name: "find_cross_repo_consumers",
        title: "Find cross-repository consumers",
        description: "Consumers of a symbol in other repositories, exact uses kept apart from package-level dependencies. A language server stops at its workspace.",
        read_only: true,
        schema: consumers::schema,
        always_load: false,
        large_answer: false,
        handler: Handler::Json(consumers::find_cross_repo_consumers),
    },
    ToolDef {
        name: "find_symbol",
        title: "Find symbol",
        description: "Where a symbol is declared, by name, qualified name, prefix or substring. Narrow with kind, repo and path_prefix. A unique name in one repository is cheaper to grep.",
        read_only: true,
        schema: symbols::schema_find_symbol,
        always_load: true,
        large_answer: false,
        handler: Handler::Json(symbols::find_symbol),
    },
    ToolDef {
        name: "find_by_intent",
        title: "Find by intent",
        description: "Which symbols a plain-language description likely names, and the files to open. Start here when you have no name.",
        read_only: true,
        schema: intent::schema,
        always_load: true,
        large_answer: false,
        handler: Handler::Json(intent::find_by_intent),
    },
    ToolDef {
        name: "get_symbol",
        title: "Get symbol",
        description: "One symbol's package, signature, visibility and line range, by stable key or by repository, path and qualified name.",
        read_only: true,
        schema: symbols::schema_get_symbol,
        always_load: false,
        large_answer: false,
        handler: Handler::Json(symbols::get_symbol),
    },
    ToolDef {
        name: "get_file_outline",
        title: "Get file outline",
        description: "Declarations under a path, grouped by file, with kind, signature and range. Use it for a package; one small file is cheaper to read.",
        read_only: true,
        schema: outline::schema,
        always_load: false,
        large_answer: false,
        handler: Handler::Json(outline::get_file_outline),
    },
    ToolDef {
        name: "get_source",
        title: "Get source",
        description: "The code of several symbols in one call. Prefer it to reading each range: no line numbers, one call across files and repositories.",
        read_only: true,
        schema: source::schema,
        always_load: true,
        large_answer: false,
        handler: Handler::Prose(source::get_source),
    },
    ToolDef {
        name: "list_repositories",
        title: "List repositories",
        description: "The repositories the published graph covers, with the commit each was indexed at.",
        read_only: true,
        schema: repos::schema_list_repositories,
        always_load: false,
        large_answer: false,
        handler: Handler::Json(repos::list_repositories),
    },
    ToolDef {
        name: "graph_status",
        title: "Graph status",
        description: "The published generation: counts, provenance, and whether a repository moved since it was indexed. Call it when an answer looks stale.",
        read_only: true,
        schema: repos::schema_graph_status,
        always_load: false,
        large_answer: false,
        handler: Handler::Status(repos::graph_status),
    },
];
