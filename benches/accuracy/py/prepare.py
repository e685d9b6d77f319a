#!/usr/bin/env python3
"""Turns an unpacked source distribution into a corpus repository of its package sources.

    prepare.py DIR KEEP [KEEP ...]

KEEP are paths relative to DIR (package directories such as `src/flask`, or single modules such
as `src/typing_extensions.py`). Everything else goes, except the root's `pyproject.toml` and
`setup.cfg` (they name module roots, SPEC §12.1, and the project); inside the kept paths, test
directories (`tests`, `test`, `_tests`, `testing`), `__pycache__` and every file that is not
`.py`/`.pyi` go too. Prints `LINES FILES` of the Python files left.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

TEST_DIRS = {"tests", "test", "_tests", "testing", "__pycache__"}
ROOT_FILES = {"pyproject.toml", "setup.cfg"}


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        sys.exit("usage: prepare.py DIR KEEP [KEEP ...]")
    root = Path(argv[0]).resolve()
    keep = [os.path.normpath(k) for k in argv[1:]]
    for k in keep:
        if not (root / k).exists():
            sys.exit(f"prepare: {root.name}: no {k}")

    def kept(rel: str) -> bool:
        return any(rel == k or rel.startswith(k + "/") for k in keep)

    def leads_to_kept(rel: str) -> bool:
        return any(k.startswith(rel + "/") for k in keep)

    for dirpath, dirnames, filenames in os.walk(root, topdown=True):
        base = os.path.relpath(dirpath, root)
        base = "" if base == "." else base
        for d in list(dirnames):
            rel = f"{base}/{d}" if base else d
            if (kept(rel) and d not in TEST_DIRS) or leads_to_kept(rel):
                continue
            shutil.rmtree(os.path.join(dirpath, d))
            dirnames.remove(d)
        for f in filenames:
            rel = f"{base}/{f}" if base else f
            if base == "" and f in ROOT_FILES:
                continue
            if kept(rel) and (f.endswith(".py") or f.endswith(".pyi")):
                continue
            os.remove(os.path.join(dirpath, f))
    # Directories left empty (a package whose only files were data).
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        if dirpath != str(root) and not os.listdir(dirpath):
            os.rmdir(dirpath)

    lines = files = 0
    for dirpath, _, filenames in os.walk(root):
        for f in filenames:
            if f.endswith(".py") or f.endswith(".pyi"):
                data = Path(dirpath, f).read_bytes()
                files += 1
                lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    print(lines, files)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
