//! A real MCP client against `kivgraph serve`: runs `mcp_client.py`, which drives the server
//! with the official MCP Python SDK (`mcp` on PyPI, installed into `.venv` by `scripts/test`).
//!
//! The Python interpreter is `$KIVGRAPH_PYTHON`, else `<workspace>/.venv/bin/python`, else
//! `python3`. A missing SDK fails the stdio test: run `scripts/test` (or `.ci/run`) to install it.

use crate::common::{compile_go_fixtures, compiler, workspace};

use std::path::PathBuf;
use std::process::Command;

/// `$KIVGRAPH_PYTHON`, else the workspace's `.venv`, else `python3` from `PATH`.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("KIVGRAPH_PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let venv = workspace().join(".venv/bin/python");
    if venv.is_file() {
        return venv;
    }
    PathBuf::from("python3")
}

/// The names `tools/list` must answer with once a generation is published.
fn expected_tools() -> Vec<&'static str> {
    kivgraph::tools::QUERY_TOOLS
        .iter()
        .map(|t| t.name)
        .chain([kivgraph::index::INDEX_PROJECT.name])
        .collect()
}

#[test]
fn official_python_sdk_drives_the_server() {
    let python = python();
    let probe = Command::new(&python)
        .args(["-c", "import mcp"])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run the Python interpreter {}: {e}. Set KIVGRAPH_PYTHON, or run scripts/test \
                 (or .ci/run), which creates .venv with the MCP Python SDK",
                python.display()
            )
        });
    assert!(
        probe.status.success(),
        "the MCP Python SDK is not importable with {} ({}). Run scripts/test (or .ci/run), which \
         installs the pinned `mcp` package into .venv, or point KIVGRAPH_PYTHON at an interpreter \
         that has it",
        python.display(),
        String::from_utf8_lossy(&probe.stderr).trim()
    );

    let index = tempfile::tempdir().unwrap();
    compile_go_fixtures(index.path());
    let out = Command::new(&python)
        .arg(workspace().join("engine/tests/mcp_client.py"))
        .arg("--kivgraph")
        .arg(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(index.path())
        .arg("--fixtures")
        .arg(workspace().join("fixtures/go"))
        .arg("--expected-tools")
        .arg(expected_tools().join(","))
        .env("KIVGRAPH_COMPILE", compiler())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "mcp_client.py failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    assert!(
        stdout.lines().any(|l| l == "mcp_client: ok"),
        "mcp_client.py did not finish:\n{stdout}\n{stderr}"
    );
}

/// The same SDK over Streamable HTTP (`kivgraph serve --http`, with a token): two sessions list
/// the tools and call query tools side by side. Unlike the stdio test above, this one is skipped
/// (with a note on stderr) where the SDK is not installed; the stdio test is the one that insists.
#[test]
fn official_python_sdk_drives_the_http_server() {
    let python = python();
    let has_sdk = Command::new(&python)
        .args(["-c", "import mcp.client.streamable_http"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_sdk {
        eprintln!(
            "skipped: the MCP Python SDK is not importable with {}; run scripts/test to install it",
            python.display()
        );
        return;
    }
    let index = tempfile::tempdir().unwrap();
    compile_go_fixtures(index.path());
    let out = Command::new(&python)
        .arg(workspace().join("engine/tests/mcp_client.py"))
        .args(["--transport", "http"])
        .arg("--kivgraph")
        .arg(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(index.path())
        .arg("--fixtures")
        .arg(workspace().join("fixtures/go"))
        .arg("--expected-tools")
        .arg(expected_tools().join(","))
        .env("KIVGRAPH_COMPILE", compiler())
        .env_remove("KIVGRAPH_TOKEN")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "mcp_client.py --transport http failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    assert!(
        stdout.lines().any(|l| l == "mcp_client: ok")
            && stdout
                .lines()
                .any(|l| l.starts_with("mcp_client: http session b:")),
        "mcp_client.py --transport http did not finish:\n{stdout}\n{stderr}"
    );
}
