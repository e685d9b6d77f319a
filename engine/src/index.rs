//! `index_project` and `kivgraph index`: register projects beside the index and rebuild the
//! graph by running `kivgraph-compile` as a child process, so the engine never links a parser.
//!
//! The registry is `<index>/projects.json`. A rebuild writes the new registry only after the
//! compiler published; on failure the previous registry and generation stay as they were.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{ErrorCode, ToolError};
use crate::store::Store;
use crate::tools::{Handler, ToolDef};

pub const REGISTRY: &str = "projects.json";
const LANGUAGES: &[&str] = &[
    "go",
    "typescript",
    "javascript",
    "ts",
    "js",
    "rust",
    "rs",
    "python",
    "py",
    "dart",
];

fn schema() -> Value {
    let project = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "path": {"type": "string"},
        "languages": {"type": "array", "items": {"type": "string"}}
    }, "required": ["name", "path", "languages"], "additionalProperties": false});
    json!({"type": "object", "properties": {
        "projects": {"type": "array", "items": project},
        "name": {"type": "string"}, "path": {"type": "string"},
        "languages": {"type": "array", "items": {"type": "string"}},
        "confirmed": {"type": ["boolean", "null"]}
    }, "additionalProperties": false})
}

pub const INDEX_PROJECT: ToolDef = ToolDef {
    name: "index_project",
    title: "Index project",
    description: "Registers projects and rebuilds the graph once, after explicit user approval. Pass every project in one call: a rebuild costs the whole corpus. It never writes inside the source projects.",
    read_only: false,
    schema,
    always_load: false,
    large_answer: false,
    handler: Handler::Index(index_project),
};

/// What the user answered when asked for consent through the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    Accepted,
    Declined,
    /// The question could not be delivered or answered.
    Undeliverable,
}

/// Reports progress: units done, units in all, "phase repository detail".
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64, String);

/// Asks the user for consent with a message, through the client.
pub type Ask<'a> = &'a mut dyn FnMut(&str) -> Consent;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Project {
    pub name: String,
    pub path: String,
    pub languages: Vec<String>,
}

pub fn read_registry(index: &Path) -> Result<Vec<Project>, String> {
    match std::fs::read(index.join(REGISTRY)) {
        Ok(b) => serde_json::from_slice(&b)
            .map_err(|e| format!("{}: {e}", index.join(REGISTRY).display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("{}: {e}", index.join(REGISTRY).display())),
    }
}

fn write_registry(index: &Path, projects: &[Project]) -> Result<(), String> {
    std::fs::create_dir_all(index).map_err(|e| e.to_string())?;
    let tmp = index.join("projects.json.tmp");
    std::fs::write(
        &tmp,
        serde_json::to_vec_pretty(projects).unwrap_or_default(),
    )
    .map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, index.join(REGISTRY)).map_err(|e| e.to_string())
}

fn parse_project(v: &Value) -> Result<Project, ToolError> {
    let obj = v.as_object().ok_or_else(|| {
        ToolError::invalid("each project is an object with name, path and languages")
    })?;
    if let Some(k) = obj
        .keys()
        .find(|k| !["name", "path", "languages"].contains(&k.as_str()))
    {
        return Err(ToolError::invalid(format!(
            "project field {k:?} is not accepted"
        )));
    }
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::invalid("project name is required"))?;
    let path = obj
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::invalid("project path is required"))?;
    let langs = obj
        .get("languages")
        .and_then(Value::as_array)
        .ok_or_else(|| ToolError::invalid("project languages are required"))?;
    check_name(name)?;
    let mut languages = Vec::new();
    for l in langs {
        let l = l
            .as_str()
            .map(|s| s.trim().to_lowercase())
            .unwrap_or_default();
        if l.is_empty() || !LANGUAGES.contains(&l.as_str()) {
            return Err(ToolError::invalid(format!("language {l:?} is unsupported")));
        }
        if languages.contains(&l) {
            return Err(ToolError::invalid(format!(
                "language {l:?} is listed twice"
            )));
        }
        languages.push(l);
    }
    if languages.is_empty() {
        return Err(ToolError::invalid("a project needs at least one language"));
    }
    ToolError::at_most(path.len(), MAX_PATH_BYTES, |n| {
        format!("path is {n} bytes; paths are at most {MAX_PATH_BYTES} bytes")
    })?;
    let expanded = match path.strip_prefix('~') {
        Some(rest) => PathBuf::from(std::env::var("HOME").unwrap_or_default())
            .join(rest.trim_start_matches('/')),
        None => PathBuf::from(path),
    };
    let abs = std::path::absolute(&expanded)
        .map_err(|e| ToolError::invalid(format!("path {path:?}: {e}")))?;
    let mut prefix = PathBuf::new();
    for c in abs.components() {
        prefix.push(c);
        if std::fs::symlink_metadata(&prefix).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(ToolError::invalid(format!(
                "path {path:?} contains symlink component {:?}",
                prefix.display().to_string()
            )));
        }
    }
    if !abs.is_dir() {
        return Err(ToolError::invalid(format!(
            "path {path:?} is not an existing directory"
        )));
    }
    let real = std::fs::canonicalize(&abs)
        .map_err(|e| ToolError::invalid(format!("path {path:?}: {e}")))?;
    check_walkable(path, &real)?;
    Ok(Project {
        name: name.to_string(),
        path: real.to_string_lossy().into_owned(),
        languages,
    })
}

/// The compiler's rules for a repository name (SPEC section 4.4), and `=`, which would end the
/// name early in the compiler's `NAME=PATH` argument.
fn check_name(name: &str) -> Result<(), ToolError> {
    ToolError::at_most(name.len(), MAX_NAME_BYTES, |n| {
        format!("name is {n} bytes; project names are at most {MAX_NAME_BYTES} bytes")
    })?;
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\', '='])
        || name.trim() != name
        || name.chars().any(char::is_control)
    {
        return Err(ToolError::invalid(format!(
            "name {name:?} is not a usable project name: no slash, backslash, =, control character, surrounding whitespace, nor . or .. alone"
        )));
    }
    if name.starts_with("rust:") {
        return Err(ToolError::invalid(format!(
            "name {name:?} is reserved for derived toolchain repositories"
        )));
    }
    Ok(())
}

/// Longest project name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// Longest project path accepted, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// Directories that are never a project: the filesystem root (the whole machine) and the
/// kernel's virtual filesystems, whose walk never ends usefully.
const VIRTUAL_ROOTS: &[&str] = &["/proc", "/sys", "/dev"];

/// Refuses the filesystem root and anything under a virtual filesystem; `real` is canonical.
fn check_walkable(path: &str, real: &Path) -> Result<(), ToolError> {
    if real.parent().is_none() {
        return Err(ToolError::invalid(format!(
            "path {path:?} is the filesystem root; register the project's own directory"
        )));
    }
    if let Some(v) = VIRTUAL_ROOTS.iter().find(|v| real.starts_with(v)) {
        return Err(ToolError::invalid(format!(
            "path {path:?} is under {v}, a virtual filesystem, not a project"
        )));
    }
    Ok(())
}

/// The compiler's name of a registered language (`ts` is `typescript`, …).
fn compiler_language(l: &str) -> &str {
    match l {
        "ts" => "typescript",
        "js" => "javascript",
        "rs" => "rust",
        "py" => "python",
        other => other,
    }
}

/// Whether two registered paths name one directory (a registry written before paths were
/// stored canonical may hold another spelling).
fn same_directory(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// The `kivgraph-compile` binary: `$KIVGRAPH_COMPILE`, else beside this executable, else `PATH`.
pub fn compiler_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("KIVGRAPH_COMPILE") {
        return PathBuf::from(p);
    }
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        for candidate in [
            dir.join("kivgraph-compile"),
            dir.join("../kivgraph-compile"),
        ] {
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    PathBuf::from("kivgraph-compile")
}

/// Compiles every registered project; returns the compiler's JSON summary. Unless `full`, a
/// compile when nothing changed answers with the published generation (`up_to_date`).
pub fn rebuild(index: &Path, projects: &[Project], full: bool) -> Result<Value, String> {
    let mut cmd = compiler_command(index, projects, if full { "--full" } else { "--json" })?;
    let out = cmd
        .output()
        .map_err(|e| format!("could not run {}: {e}", compiler_binary().display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("compiler summary: {e}"))
}

/// Starts `kivgraph-compile --watch` over the registered projects (`serve --watch`): it
/// publishes after each burst of changes, and the server swaps to each new generation. Its
/// stdout is discarded (the server's is the MCP stream), its stderr is the server's.
pub fn spawn_watch(index: &Path, projects: &[Project]) -> Result<std::process::Child, String> {
    let mut cmd = compiler_command(index, projects, "--watch")?;
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit());
    // The watcher ends with the server, however the server ends (a client may kill it).
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd.spawn()
        .map_err(|e| format!("could not run {}: {e}", compiler_binary().display()))
}

/// The compiler's command line for the registered projects, with `mode` (`--json`, `--full`
/// or `--watch`; `--json` is always given).
fn compiler_command(index: &Path, projects: &[Project], mode: &str) -> Result<Command, String> {
    if projects.is_empty() {
        return Err("no project is registered; register one with index_project".into());
    }
    // The registry is a file anyone can edit: its names are checked as the tool checks them.
    for p in projects {
        check_name(&p.name).map_err(|e| format!("{}: {}", REGISTRY, e.message))?;
    }
    // Options first, each with its value in one argument, then `--`: no name or path can be
    // read as an option.
    let mut cmd = Command::new(compiler_binary());
    let mut out_arg = std::ffi::OsString::from("--out=");
    out_arg.push(index);
    cmd.arg(out_arg).arg("--json");
    if mode != "--json" {
        cmd.arg(mode);
    }
    for p in projects {
        let languages: Vec<&str> = p.languages.iter().map(|l| compiler_language(l)).collect();
        cmd.arg(format!("--languages={}={}", p.name, languages.join(",")));
    }
    cmd.arg("--")
        .args(projects.iter().map(|p| format!("{}={}", p.name, p.path)));
    Ok(cmd)
}

/// One index at a time per process; another process is kept out by the compiler's lock.
static RUNNING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The answer to a rebuild asked for while another one runs.
pub(crate) fn already_running() -> ToolError {
    ToolError::new(
        ErrorCode::IndexingFailed,
        "an index is already running in this server; call again when it finished",
    )
}

/// Registers the projects and rebuilds. `ask` is the client's consent channel when it declared
/// elicitation; without it, `confirmed: true` is the consent.
pub fn index_project(
    args: &Value,
    store: &Store,
    ask: Option<Ask>,
    progress: Progress,
) -> Result<String, ToolError> {
    index_requested(index_request(args)?, store, ask, progress)
}

/// The projects of an `index_project` call whose arguments are valid, read before anything is
/// asked or written.
#[derive(Debug, Clone)]
pub struct IndexRequest {
    projects: Vec<Project>,
    confirmed: bool,
}

impl IndexRequest {
    /// The call carries `confirmed: true`.
    pub fn confirmed(&self) -> bool {
        self.confirmed
    }
}

/// Reads and checks the arguments of `index_project`: the projects, their names, paths and
/// languages. Nothing is asked or written.
pub fn index_request(args: &Value) -> Result<IndexRequest, ToolError> {
    let obj = args.as_object().cloned().unwrap_or_default();
    if let Some(k) = obj
        .keys()
        .find(|k| !["projects", "name", "path", "languages", "confirmed"].contains(&k.as_str()))
    {
        return Err(ToolError::invalid(format!(
            "argument {k:?} is not accepted by this tool"
        )));
    }
    let single = ["name", "path", "languages"]
        .iter()
        .any(|k| obj.get(*k).is_some_and(|v| !v.is_null()));
    let batch = obj.get("projects").is_some_and(|v| !v.is_null());
    let new: Vec<Project> = match (batch, single) {
        (true, true) => {
            return Err(ToolError::invalid(
                "use projects for a batch or name/path/languages for one project, not both",
            ));
        }
        (false, false) => {
            return Err(ToolError::invalid(
                "index_project needs projects, or name, path and languages for a single project",
            ));
        }
        (true, false) => {
            let list = obj["projects"]
                .as_array()
                .ok_or_else(|| ToolError::invalid("projects must be an array"))?;
            if list.is_empty() {
                return Err(ToolError::invalid("projects must not be empty"));
            }
            list.iter().map(parse_project).collect::<Result<_, _>>()?
        }
        (false, true) => vec![parse_project(
            &json!({"name": obj.get("name"), "path": obj.get("path"), "languages": obj.get("languages")}),
        )?],
    };
    Ok(IndexRequest {
        projects: new,
        confirmed: obj.get("confirmed").and_then(Value::as_bool) == Some(true),
    })
}

/// Asks for consent (through `ask`, else `confirmed: true` is the consent), registers the
/// projects and rebuilds.
pub fn index_requested(
    request: IndexRequest,
    store: &Store,
    ask: Option<Ask>,
    progress: Progress,
) -> Result<String, ToolError> {
    let new = request.projects;
    match ask {
        Some(ask) => {
            let message = match new.as_slice() {
                [p] => format!(
                    "Index project {:?} at {:?}? kivgraph reads it and rebuilds its code graph; it never writes inside the project.",
                    p.name, p.path
                ),
                many => format!(
                    "Index {} projects ({})? kivgraph reads them and rebuilds its code graph; it never writes inside the projects.",
                    many.len(),
                    many.iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            match ask(&message) {
                Consent::Accepted => {}
                Consent::Declined => {
                    return Err(ToolError::new(
                        ErrorCode::PermissionDenied,
                        "project indexing was not approved",
                    ));
                }
                Consent::Undeliverable => {
                    return Err(ToolError::new(
                        ErrorCode::PermissionRequired,
                        "user approval is required and could not be asked for; confirm the operation before setting confirmed=true",
                    ));
                }
            }
        }
        None if request.confirmed => {}
        None => {
            return Err(ToolError::new(
                ErrorCode::PermissionRequired,
                "user approval is required; confirm the operation before setting confirmed=true",
            ));
        }
    }
    let Ok(_running) = RUNNING.try_lock() else {
        return Err(already_running());
    };
    let index = store.index().root().to_path_buf();
    let before = read_registry(&index).map_err(|e| ToolError::new(ErrorCode::IndexingFailed, e))?;
    let mut registry = before.clone();
    for (i, p) in new.iter().enumerate() {
        let twin = new[..i]
            .iter()
            .chain(registry.iter())
            .find(|q| q.name != p.name && same_directory(&q.path, &p.path));
        if let Some(twin) = twin {
            return Err(ToolError::invalid(format!(
                "path {} is already registered as {:?}; one directory is one project",
                p.path, twin.name
            )));
        }
    }
    for p in &new {
        if let Some(existing) = registry.iter_mut().find(|r| r.name == p.name) {
            if !same_directory(&existing.path, &p.path) {
                return Err(ToolError::invalid(format!(
                    "name {:?} is already registered for {}",
                    p.name, existing.path
                )));
            }
            existing.languages = p.languages.clone();
        } else {
            registry.push(p.clone());
        }
    }
    let names: Vec<&str> = registry.iter().map(|p| p.name.as_str()).collect();
    progress(
        1,
        3,
        format!("register {} {} project(s)", names.join(","), new.len()),
    );
    progress(2, 3, format!("compile {}", names.join(",")));
    let summary = rebuild(&index, &registry, false)
        .map_err(|e| ToolError::new(ErrorCode::IndexingFailed, e))?;
    // The registry changes only once the rebuild published: a failure leaves it as it was.
    write_registry(&index, &registry).map_err(|e| ToolError::new(ErrorCode::IndexingFailed, e))?;
    let _ = store.refresh();
    progress(
        3,
        3,
        format!(
            "publish {} generation {}",
            names.join(","),
            summary.get("generation_id").cloned().unwrap_or(Value::Null)
        ),
    );
    let id = summary.get("generation_id").cloned().unwrap_or(Value::Null);
    let result = json!({
        "project": new.first().map(|p| p.name.clone()),
        "projects": registry.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "generation_id": id,
        "snapshot_id": id,
        "up_to_date": summary.get("up_to_date").and_then(Value::as_bool).unwrap_or(false),
        "counts": summary.get("rows"),
        "index": summary.get("repositories"),
    });
    Ok(serde_json::to_string(&result).unwrap_or_default())
}
