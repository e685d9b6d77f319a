#!/usr/bin/env python3
"""Turns an unpacked crate into a corpus repository of its library's sources.

    prepare.py SRC DST CORPUS_DIR NAME...

Copies SRC/src (and the library root when `[lib] path` puts it elsewhere) to DST and writes a
minimal DST/Cargo.toml: the package's name, version and edition, its `[lib]` name and path, its
features and its dependencies (also target-specific ones; no dev-dependencies, tests, examples,
benches or build script), and an empty `[workspace]` table so that the crate is a workspace root
of its own. A dependency on a crate of the corpus (one of NAME..., each at CORPUS_DIR/NAME) becomes a
`path` dependency on it, so that rust-analyzer resolves it to the same sources kivgraph compiles.
Prints the number of `.rs` lines and files copied.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tomllib


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def main(argv: list[str]) -> int:
    src, dst, corpus_dir, names = argv[0], argv[1], argv[2], set(argv[3:])
    with open(os.path.join(src, "Cargo.toml"), "rb") as f:
        m = tomllib.load(f)
    pkg = m["package"]
    lib = m.get("lib", {})
    lib_path = lib.get("path", "src/lib.rs")
    shutil.copytree(os.path.join(src, "src"), os.path.join(dst, "src"))
    if not os.path.exists(os.path.join(dst, lib_path)):
        os.makedirs(os.path.dirname(os.path.join(dst, lib_path)), exist_ok=True)
        shutil.copy(os.path.join(src, lib_path), os.path.join(dst, lib_path))

    def deps(table: dict) -> list[str]:
        out = []
        for key, spec in table.items():
            if isinstance(spec, str):
                spec = {"version": spec}
            spec = {k: v for k, v in spec.items() if k in (
                "version", "optional", "features", "default-features", "package")}
            real = spec.get("package", key)
            if real in names:
                spec["path"] = os.path.relpath(os.path.join(corpus_dir, real), dst)
            out.append(f"{json.dumps(key)} = {toml_value(spec)}")
        return out

    lines = ["[package]"]
    for k in ("name", "version", "edition"):
        if k in pkg:
            lines.append(f"{k} = {toml_value(pkg[k])}")
    lines.append("autobins = false")
    lines.append("autotests = false")
    lines.append("autoexamples = false")
    lines.append("autobenches = false")
    lines.append("build = false")
    lines += ["", "[lib]", f"path = {toml_value(lib_path)}"]
    if "name" in lib:
        lines.append(f"name = {toml_value(lib['name'])}")
    if m.get("features"):
        lines += ["", "[features]"]
        lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in m["features"].items()]
    if m.get("dependencies"):
        lines += ["", "[dependencies]"] + deps(m["dependencies"])
    for cfg, t in (m.get("target") or {}).items():
        if t.get("dependencies"):
            lines += ["", f"[target.{json.dumps(cfg)}.dependencies]"] + deps(t["dependencies"])
    lines += ["", "[workspace]", ""]
    with open(os.path.join(dst, "Cargo.toml"), "w") as f:
        f.write("\n".join(lines))

    nlines = nfiles = 0
    for dirpath, _, filenames in os.walk(dst):
        for fn in filenames:
            if fn.endswith(".rs"):
                with open(os.path.join(dirpath, fn), "rb") as f:
                    nlines += f.read().count(b"\n")
                nfiles += 1
    print(nlines, nfiles)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
