#!/usr/bin/env python3
"""Drives `kivgraph serve` with the official MCP Python SDK, as a real client would.

Run by engine/tests/mcp_client.rs, which compiles the Go fixtures into an index and passes:

    mcp_client.py --kivgraph BIN --index DIR --fixtures fixtures/go \
                  --expected-tools find_symbol,get_symbol,...,index_project

with KIVGRAPH_COMPILE naming the compiler binary that index_project runs. The script starts the
server through `mcp.client.stdio.stdio_client`, initializes an `mcp.ClientSession`, checks the
tool list against the expected names, calls every registered tool with valid arguments, follows
a page cursor to the end, and asks index_project for a rebuild without and with consent. Any
failure exits non-zero with a message that says what went wrong.

With `--transport http` it starts `kivgraph serve --http 127.0.0.1:0` with a token instead,
connects through the SDK's Streamable HTTP client with the token in an Authorization header,
lists the tools and calls query tools from two sessions at once.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import traceback
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# Seconds the whole conversation may take before it counts as hung.
TIMEOUT = 300

# Valid arguments per tool, tried in order until one answers without an error. A tool not listed
# here gets arguments synthesized from its input schema (see `synthesize`); when a new tool
# needs something else, add it here.
VALID_ARGUMENTS: dict[str, list[dict[str, Any]]] = {
    "find_references": [{"name": "NewCircle"}],
    "get_blast_radius": [{"qualified_name": "NewCircle"}],
    "trace_dependencies": [{"qualified_name": "main", "repository": "shapes", "path": "cmd/shapes"}],
    "find_symbol": [{"name": "Area"}],
    "get_symbol": [{"qualified_name": "NewCircle"}],
    "get_file_outline": [{"repository": "shapes", "path": "geo"}],
    "list_repositories": [{}],
    "graph_status": [{}],
    "find_cross_repo_consumers": [{"qualified_name": "NewCircle"}],
    "find_by_intent": [{"intent": "area of a circle"}],
    "get_source": [{"symbols": [{"qualified_name": "NewCircle"}, {"repository": "inventory", "qualified_name": "Store.Add"}]}],
}

# Tools whose answer is prose rather than JSON, with the prefix the prose starts with.
PROSE_PREFIX = {"get_source": "snapshot "}


class Failure(Exception):
    """A check that did not hold; the message says which and why."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


def synthesize(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Plausible argument sets for a tool this script has no table entry for."""
    props: dict[str, Any] = schema.get("properties") or {}
    required: list[str] = list(schema.get("required") or [])

    def value_for(key: str, spec: dict[str, Any]) -> Any:
        if spec.get("enum"):
            return spec["enum"][0]
        kind = spec.get("type")
        if kind == "boolean":
            return False
        if kind == "integer" or kind == "number":
            return max(1, spec.get("minimum", 1))
        if kind == "array":
            return []
        if key in ("repository", "repo"):
            return "shapes"
        if key in ("path", "file_path"):
            return "geo/geo.go"
        if key in ("query", "intent", "text", "description", "question"):
            return "area of a circle"
        return "NewCircle"

    def fill(base: dict[str, Any]) -> dict[str, Any]:
        out = dict(base)
        for key in required:
            if key not in out:
                out[key] = value_for(key, props.get(key) or {})
        return out

    candidates = []
    for base in (
        {"name": "NewCircle"},
        {"qualified_name": "NewCircle"},
        {"repository": "shapes", "path": "geo/geo.go"},
        {"repository": "shapes", "path": "geo"},
    ):
        if all(k in props for k in base):
            candidates.append(fill(base))
    candidates.append(fill({}))
    return candidates


def text_of(tool: str, result: Any) -> str:
    """The single text block of a tool result."""
    content = result.content
    check(
        len(content) == 1,
        f"{tool}: expected exactly one content block, got {len(content)}: {content!r}",
    )
    block = content[0]
    check(
        getattr(block, "type", None) == "text",
        f"{tool}: expected a text content block, got {block!r}",
    )
    return block.text


def check_answer(tool: str, text: str) -> Any:
    """Checks the shape of a successful answer; returns the parsed JSON (None for prose)."""
    prefix = PROSE_PREFIX.get(tool)
    if prefix is not None:
        check(text.startswith(prefix), f"{tool}: prose answer should start with {prefix!r}: {text[:200]!r}")
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise Failure(f"{tool}: answer is not JSON ({e}): {text[:300]!r}") from e


async def call_ok(session: ClientSession, tool: str, arguments: dict[str, Any]) -> Any:
    """Calls a tool that must succeed; returns the parsed answer."""
    result = await session.call_tool(tool, arguments)
    text = text_of(tool, result)
    check(not result.is_error, f"{tool} {json.dumps(arguments)} failed: {text}")
    return check_answer(tool, text)


async def call_every_tool(session: ClientSession, tools: dict[str, Any]) -> None:
    for name, tool in sorted(tools.items()):
        if name == "index_project":
            continue  # exercised by check_index_project, with and without consent
        attempts = VALID_ARGUMENTS.get(name, []) + synthesize(tool.input_schema or {})
        errors = []
        for arguments in attempts:
            result = await session.call_tool(name, arguments)
            text = text_of(name, result)
            if result.is_error:
                code = text.split(":", 1)[0]
                check(
                    code.isupper() and text.startswith(code + ": "),
                    f"{name}: an error result must read 'CODE: message', got {text[:200]!r}",
                )
                errors.append(f"  {json.dumps(arguments)} -> {text[:200]}")
                continue
            check_answer(name, text)
            print(f"mcp_client: {name} {json.dumps(arguments)}: ok ({len(text)} bytes)")
            break
        else:
            raise Failure(
                f"{name}: no valid arguments found; add an entry to VALID_ARGUMENTS in "
                f"engine/tests/mcp_client.py. Attempts:\n" + "\n".join(errors)
            )


async def follow_cursor(session: ClientSession, tool: str, arguments: dict[str, Any], rows_key: str, page: int) -> None:
    """Follows next_cursor to the end and compares the rows with one unlimited call."""
    whole = await call_ok(session, tool, {**arguments, "limit": 500})
    check(whole.get("next_cursor") is None, f"{tool}: an unlimited call has no next page: {whole}")

    def rows(answer: Any) -> list[Any]:
        results = answer["results"]
        return results if rows_key == "" else results[rows_key]

    expected = rows(whole)
    check(
        whole["total"] == whole["returned"] == len(expected),
        f"{tool}: an unlimited call returns every row: total {whole['total']}, returned "
        f"{whole['returned']}, {len(expected)} rows",
    )
    check(len(expected) > page, f"{tool}: pick arguments with more than {page} rows, got {len(expected)}")
    got: list[Any] = []
    cursor = None
    pages = 0
    while True:
        args = {**arguments, "limit": page}
        if cursor is not None:
            args["cursor"] = cursor
        answer = await call_ok(session, tool, args)
        check(answer["total"] == whole["total"], f"{tool}: page {pages} reports total {answer['total']}")
        got.extend(rows(answer))
        pages += 1
        check(pages <= len(expected), f"{tool}: cursors do not terminate")
        cursor = answer.get("next_cursor")
        if cursor is None:
            break
    check(got == expected, f"{tool}: {pages} pages of {page} differ from one unlimited call")
    print(f"mcp_client: {tool}: {pages} pages of {page} equal one call of {len(expected)} rows")


async def check_index_project(session: ClientSession, fixtures: str, scratch: str) -> None:
    before = await call_ok(session, "graph_status", {})
    before_id = before["snapshot_id"]
    check(isinstance(before_id, int) and before_id >= 1, f"graph_status: snapshot_id {before_id!r}")

    copy = os.path.join(scratch, "shapes-copy")
    shutil.copytree(os.path.join(fixtures, "shapes"), copy)
    project = {"name": "shapes_copy", "path": copy, "languages": ["go"]}

    result = await session.call_tool("index_project", project)
    text = text_of("index_project", result)
    check(result.is_error, f"index_project without consent must be refused, got {text[:300]!r}")
    check(
        text.startswith("PERMISSION_REQUIRED:"),
        f"index_project without consent: expected PERMISSION_REQUIRED, got {text[:300]!r}",
    )
    unchanged = await call_ok(session, "graph_status", {})
    check(unchanged["snapshot_id"] == before_id, "a refused index_project must not publish")

    built = await call_ok(session, "index_project", {**project, "confirmed": True})
    check(
        isinstance(built.get("snapshot_id"), int) and built["snapshot_id"] > before_id,
        f"index_project with consent: expected a new snapshot above {before_id}, got {built}",
    )
    check("shapes_copy" in built.get("projects", []), f"index_project: registry lacks the copy: {built}")

    after = await call_ok(session, "graph_status", {})
    check(
        after["snapshot_id"] > before_id,
        f"graph_status: snapshot_id should increase after index_project, {before_id} -> {after['snapshot_id']}",
    )
    check(after["snapshot_id"] == built["snapshot_id"], "graph_status answers from the generation just built")
    repos = await call_ok(session, "list_repositories", {})
    names = [r["name"] for r in repos["results"]]
    check("shapes_copy" in names, f"the new generation serves the registered copy: {names}")
    found = await call_ok(session, "find_symbol", {"name": "NewCircle", "repo": "shapes_copy"})
    check(found["total"] >= 1, f"the new generation answers queries on the copy: {found}")
    print(f"mcp_client: index_project: refused without consent, published {after['snapshot_id']} with it")


async def run(opts: argparse.Namespace) -> None:
    env = {"KIVGRAPH_COMPILE": os.environ.get("KIVGRAPH_COMPILE", "")}
    if not env["KIVGRAPH_COMPILE"]:
        del env["KIVGRAPH_COMPILE"]
    params = StdioServerParameters(
        command=opts.kivgraph,
        args=["--index", opts.index, "serve"],
        env=env,
    )
    expected = sorted(t for t in opts.expected_tools.split(",") if t)
    with anyio.fail_after(TIMEOUT), tempfile.TemporaryDirectory(prefix="kivgraph-mcp-client-") as scratch:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check(init.server_info.name == "kivgraph", f"server name: {init.server_info.name!r}")
                instructions = init.instructions or ""
                paragraphs = instructions.split("\n\n")
                check(
                    len(paragraphs) == 4 and all(p.strip() for p in paragraphs),
                    f"instructions should be four paragraphs, got {len(paragraphs)}: {instructions[:200]!r}",
                )
                check(init.capabilities.tools is not None, "the server announces its tools capability")
                print(f"mcp_client: initialized, protocol {init.protocol_version}")

                listed = await session.list_tools()
                tools = {t.name: t for t in listed.tools}
                check(
                    sorted(tools) == expected,
                    f"tools/list: expected {expected}, got {sorted(tools)}",
                )
                for t in listed.tools:
                    check(t.description, f"{t.name}: a tool needs a description")
                    check((t.input_schema or {}).get("type") == "object", f"{t.name}: input schema is an object")

                await call_every_tool(session, tools)

                await follow_cursor(
                    session,
                    "find_symbol",
                    {"name": "e", "mode": "substring", "view": "full"},
                    "",
                    3,
                )
                if "find_references" in tools:
                    await follow_cursor(
                        session,
                        "find_references",
                        {"qualified_name": "Circle", "repository": "shapes", "path": "geo", "view": "full"},
                        "references",
                        4,
                    )

                await check_index_project(session, opts.fixtures, scratch)
                await session.send_ping()


async def run_http(opts: argparse.Namespace) -> None:
    """The Streamable HTTP transport: a token, two SDK sessions side by side."""
    import secrets
    import subprocess
    import threading

    try:
        from mcp.client.streamable_http import streamable_http_client as connect
    except ImportError:  # the SDK's earlier name
        from mcp.client.streamable_http import streamablehttp_client as connect  # type: ignore
    from mcp.shared._httpx_utils import create_mcp_http_client

    expected = sorted(t for t in opts.expected_tools.split(",") if t)
    token = secrets.token_urlsafe(24)
    with anyio.fail_after(TIMEOUT), tempfile.TemporaryDirectory(prefix="kivgraph-mcp-http-") as scratch:
        token_file = os.path.join(scratch, "token")
        with open(token_file, "w") as f:
            f.write(token + "\n")
        server = subprocess.Popen(
            [opts.kivgraph, "--index", opts.index, "serve", "--http", "127.0.0.1:0", "--token-file", token_file],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            url = None
            assert server.stderr is not None
            for line in server.stderr:
                if line.startswith("kivgraph: listening on "):
                    url = line.split("listening on ", 1)[1].strip()
                    break
            check(url is not None, "the HTTP server did not say where it listens")
            # The rest of stderr is drained so that the server never blocks on it.
            threading.Thread(target=server.stderr.read, daemon=True).start()
            print(f"mcp_client: http server at {url}")

            async def one_session(name: str) -> None:
                headers = {"Authorization": f"Bearer {token}"}
                async with create_mcp_http_client(headers=headers) as http:
                    async with connect(url, http_client=http) as streams:
                        read, write = streams[0], streams[1]
                        async with ClientSession(read, write) as session:
                            init = await session.initialize()
                            check(init.server_info.name == "kivgraph", f"{name}: server name {init.server_info.name!r}")
                            listed = await session.list_tools()
                            names = sorted(t.name for t in listed.tools)
                            check(names == expected, f"{name}: tools/list over HTTP: expected {expected}, got {names}")
                            found = await call_ok(session, "find_symbol", {"name": "Area"})
                            check(found["total"] >= 1, f"{name}: find_symbol over HTTP: {found}")
                            outline = await call_ok(session, "get_file_outline", {"repository": "shapes", "path": "geo"})
                            check(outline["total"] >= 1, f"{name}: get_file_outline over HTTP: {outline}")
                            await session.send_ping()
                            print(f"mcp_client: http session {name}: {len(names)} tools, find_symbol ok")

            async with anyio.create_task_group() as tg:
                tg.start_soon(one_session, "a")
                tg.start_soon(one_session, "b")
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


def find_failure(e: BaseException) -> Failure | None:
    """The check that failed, also when anyio's task groups wrapped it in exception groups."""
    if isinstance(e, Failure):
        return e
    for inner in getattr(e, "exceptions", ()):
        found = find_failure(inner)
        if found is not None:
            return found
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kivgraph", required=True, help="the kivgraph binary")
    parser.add_argument("--index", required=True, help="an index directory with a published generation")
    parser.add_argument("--fixtures", required=True, help="fixtures/go, whose shapes module is copied and indexed")
    parser.add_argument(
        "--expected-tools",
        default=os.environ.get("KIVGRAPH_EXPECTED_TOOLS", ""),
        help="comma-separated tool names the server must list (default: $KIVGRAPH_EXPECTED_TOOLS)",
    )
    parser.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (the whole conversation) or http (Streamable HTTP with a token, two sessions)",
    )
    opts = parser.parse_args()
    if not opts.expected_tools:
        print("mcp_client: FAILED: no expected tool names (--expected-tools or $KIVGRAPH_EXPECTED_TOOLS)", file=sys.stderr)
        return 2
    try:
        anyio.run(run_http if opts.transport == "http" else run, opts)
    except BaseException as e:  # noqa: BLE001 - every failure is reported, then exits non-zero
        failure = find_failure(e)
        if failure is None:
            traceback.print_exception(e)
            print(f"mcp_client: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        else:
            print(f"mcp_client: FAILED: {failure}", file=sys.stderr)
        return 1
    print("mcp_client: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
