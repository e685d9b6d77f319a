#!/usr/bin/env python3
"""The Rust oracle of kivgraph's accuracy harness.

Reads the SCIP indexes rust-analyzer writes (`rust-analyzer scip DIR --output FILE`) and turns
them into JSON lines in the record types of the TypeScript and Python oracles, so that the same
scorer (benches/src/accuracy.rs) reads them: the declarations SPEC §14.2 makes symbols, named as
kivgraph names them, and every use rust-analyzer resolves to one of them. See ../README.md,
section "Rust", for what is a declaration and which uses are counted.

    oracle.py -o OUT.jsonl -repo NAME=DIR [-repo NAME=DIR ...]
              -index NAME[:SUBDIR]=FILE.scip [-index ...] [-checker TEXT]

`-index NAME=FILE` is an index rust-analyzer wrote with DIR as its root; `NAME:SUBDIR=FILE` one
written with DIR/SUBDIR as its root (a package outside the repository's Cargo workspace). The
indexes of all repositories are read together: a use in one repository of a declaration of
another (a path dependency) is a use of that declaration, matched by rust-analyzer's symbol
(package name, version and descriptors).

SCIP is protobuf; the few messages read here are decoded by hand (no dependency beyond the
standard library).

Records, in this order: one `oracle` header; per file a `package` record (the module the file
is), a `file` record and its `decl` records; then the `use` records of every file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

STARTED = time.monotonic()


def log(msg: str) -> None:
    print(f"oracle: {msg} ({time.monotonic() - STARTED:.1f} s)", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Protobuf: just enough of the wire format to read scip.proto's Index


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def fields(buf: bytes) -> Iterator[tuple[int, object]]:
    """(field number, value) of a message: an int for varints and fixed-width values, a bytes
    object for length-delimited ones."""
    i = 0
    n = len(buf)
    while i < n:
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
            yield num, v
        elif wt == 2:
            ln, i = _varint(buf, i)
            yield num, buf[i : i + ln]
            i += ln
        elif wt == 1:
            yield num, int.from_bytes(buf[i : i + 8], "little")
            i += 8
        elif wt == 5:
            yield num, int.from_bytes(buf[i : i + 4], "little")
            i += 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wt}")


def packed_ints(v: object) -> list[int]:
    """A packed repeated int32 (or a single unpacked element)."""
    if isinstance(v, int):
        return [v]
    out = []
    i = 0
    buf = v
    while i < len(buf):
        x, i = _varint(buf, i)
        if x >= 1 << 63:
            x -= 1 << 64
        out.append(x)
    return out


@dataclass
class Occurrence:
    range: list[int]
    symbol: str
    roles: int
    enclosing: list[int]


@dataclass
class SymInfo:
    symbol: str
    kind: int
    display_name: str


@dataclass
class Document:
    path: str
    occurrences: list[Occurrence]
    symbols: list[SymInfo]


@dataclass
class Index:
    tool: str
    documents: list[Document]
    external: list[SymInfo]


def read_symbol_info(buf: bytes) -> SymInfo:
    s = SymInfo("", 0, "")
    for num, v in fields(buf):
        if num == 1:
            s.symbol = bytes(v).decode()
        elif num == 5:
            s.kind = v
        elif num == 6:
            s.display_name = bytes(v).decode()
    return s


def read_index(path: Path) -> Index:
    data = path.read_bytes()
    idx = Index("rust-analyzer", [], [])
    for num, v in fields(data):
        if num == 1:  # Metadata
            for mn, mv in fields(v):
                if mn == 2:  # ToolInfo
                    name, version = "", ""
                    for tn, tv in fields(mv):
                        if tn == 1:
                            name = bytes(tv).decode()
                        elif tn == 2:
                            version = bytes(tv).decode()
                    idx.tool = f"{name} {version}".strip()
        elif num == 2:
            doc = Document("", [], [])
            for dn, dv in fields(v):
                if dn == 1:
                    doc.path = bytes(dv).decode()
                elif dn == 2:
                    occ = Occurrence([], "", 0, [])
                    for on, ov in fields(dv):
                        if on == 1:
                            occ.range = packed_ints(ov)
                        elif on == 2:
                            occ.symbol = bytes(ov).decode()
                        elif on == 3:
                            occ.roles = ov
                        elif on == 7:
                            occ.enclosing = packed_ints(ov)
                    doc.occurrences.append(occ)
                elif dn == 3:
                    doc.symbols.append(read_symbol_info(dv))
            idx.documents.append(doc)
        elif num == 3:
            idx.external.append(read_symbol_info(v))
    return idx


# ---------------------------------------------------------------------------------------------
# SCIP symbols: `rust-analyzer cargo NAME VERSION DESCRIPTORS`

NAMESPACE, TYPE, TERM, METHOD, TYPE_PARAMETER, PARAMETER, MACRO, META = "/#.m[(!:"


@dataclass(frozen=True)
class Desc:
    name: str
    suffix: str


def parse_descriptors(s: str) -> Optional[list[Desc]]:
    out: list[Desc] = []
    i = 0
    n = len(s)

    def name_at(i: int) -> tuple[str, int]:
        if i < n and s[i] == "`":
            j = i + 1
            buf = []
            while j < n:
                if s[j] == "`":
                    if j + 1 < n and s[j + 1] == "`":
                        buf.append("`")
                        j += 2
                        continue
                    return "".join(buf), j + 1
                buf.append(s[j])
                j += 1
            raise ValueError(s)
        j = i
        while j < n and (s[j].isalnum() or s[j] in "_+-$"):
            j += 1
        return s[i:j], j

    try:
        while i < n:
            c = s[i]
            if c == "[":
                name, i = name_at(i + 1)
                if s[i] != "]":
                    return None
                out.append(Desc(name, TYPE_PARAMETER))
                i += 1
            elif c == "(":
                name, i = name_at(i + 1)
                if s[i] != ")":
                    return None
                out.append(Desc(name, PARAMETER))
                i += 1
            else:
                name, i = name_at(i)
                c = s[i]
                if c == "(":
                    j = s.index(")", i)
                    if s[j + 1] != ".":
                        return None
                    out.append(Desc(name, METHOD))
                    i = j + 2
                elif c in "/#.!:":
                    out.append(Desc(name, c))
                    i += 1
                else:
                    return None
    except (ValueError, IndexError):
        return None
    return out


def parse_symbol(sym: str) -> Optional[tuple[str, str, list[Desc]]]:
    """(package name, version, descriptors), or None for a local or unreadable symbol."""
    if sym.startswith("local "):
        return None
    parts = sym.split(" ", 4)
    if len(parts) != 5:
        return None
    descs = parse_descriptors(parts[4])
    if descs is None:
        return None
    return parts[2], parts[3], descs


def type_name(display: str) -> str:
    """The last path segment of a type as rust-analyzer displays it, generic arguments, `&`,
    `mut`, lifetimes and `dyn` dropped (kivgraph's impl naming, SPEC §14.2)."""
    s = display.strip()
    while True:
        t = s
        for p in ("&", "mut ", "dyn ", "impl ", "*const ", "*mut "):
            if s.startswith(p):
                s = s[len(p) :].lstrip()
        if s.startswith("'"):
            k = 1
            while k < len(s) and (s[k].isalnum() or s[k] == "_"):
                k += 1
            s = s[k:].lstrip()
        if s == t:
            break
    out = []
    depth = 0
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    s = "".join(out).strip()
    return s.rsplit("::", 1)[-1]


# SCIP SymbolInformation.Kind values rust-analyzer writes.
K_ASSOCIATED_TYPE, K_CONSTANT, K_ENUM, K_ENUM_MEMBER, K_FIELD, K_FUNCTION = 3, 8, 11, 12, 15, 17
K_MACRO, K_METHOD, K_MODULE, K_STRUCT, K_TRAIT, K_TRAIT_METHOD = 25, 26, 29, 49, 53, 70
K_TYPE_ALIAS, K_UNION, K_STATIC_METHOD, K_STATIC = 55, 59, 80, 82

# Items that are enclosing declarations of references (SPEC §14.4).
SOURCE_KINDS = {
    "function", "method", "static_method", "trait_method", "const", "static", "struct", "enum",
    "union", "trait", "type_alias", "implementation",
}
# Items whose body holds locals: items declared there are not symbols.
BODY_KINDS = {"function", "method", "static_method", "trait_method", "const", "static"}
TYPE_KINDS = {"struct", "enum", "union", "trait", "type_alias", "associated_type"}


@dataclass
class Classified:
    kind: str
    qn: str
    modules: list[str]  # the module path inside the crate
    container: Optional[str]  # "trait" or "impl" for associated items
    trait_name: Optional[str]  # the trait of a trait impl, the trait of a trait item
    self_name: Optional[str]  # the impl's type (impl items)


def classify(descs: list[Desc], kind: int) -> Optional[Classified]:
    """The kivgraph declaration a rust-analyzer definition is, or None (locals, modules, items
    inside function bodies, impls themselves)."""
    i = 0
    modules = []
    while i < len(descs) and descs[i].suffix == NAMESPACE:
        if descs[i].name != "crate":
            modules.append(descs[i].name)
        i += 1
    rest = descs[i:]
    if not rest:
        return None
    last = rest[-1]
    # An impl: `impl#[Self][Trait]`.
    container = None
    trait_name = None
    self_name = None
    path: list[str] = []
    j = 0
    if rest[0] == Desc("impl", TYPE) and len(rest) >= 2 and rest[1].suffix == TYPE_PARAMETER:
        container = "impl"
        self_name = type_name(rest[1].name)
        j = 2
        if j < len(rest) and rest[j].suffix == TYPE_PARAMETER:
            trait_name = type_name(rest[j].name)
            j += 1
        if j != len(rest) - 1:
            return None  # the impl itself, or something inside an impl item
        member = rest[j]
        prefix = f"<{self_name} as {trait_name}>" if trait_name else self_name
        qn = f"{prefix}::{member.name}"
        if kind in (K_METHOD, K_TRAIT_METHOD):
            k = "method"
        elif kind == K_STATIC_METHOD:
            k = "static_method"
        elif kind == K_CONSTANT:
            k = "const"
        elif kind == K_ASSOCIATED_TYPE:
            k = "associated_type"
        else:
            return None
        return Classified(k, qn, modules, container, trait_name, self_name)
    # Every descriptor but the last names a type (struct, enum, variant, trait): anything else
    # (a function, a const) makes the item local to a body.
    for d in rest[:-1]:
        if d.suffix != TYPE:
            return None
        path.append(d.name)
    qn = "::".join(path + [last.name])
    if kind == K_FUNCTION and not path and last.suffix == METHOD:
        return Classified("function", qn, modules, None, None, None)
    if kind in (K_METHOD, K_TRAIT_METHOD, K_STATIC_METHOD) and len(path) == 1:
        return Classified("trait_method", qn, modules, "trait", path[0], None)
    if kind == K_CONSTANT:
        if not path:
            return Classified("const", qn, modules, None, None, None)
        if len(path) == 1:
            return Classified("const", qn, modules, "trait", path[0], None)
        return None
    if kind == K_ASSOCIATED_TYPE and len(path) == 1:
        return Classified("associated_type", qn, modules, "trait", path[0], None)
    simple = {
        K_STRUCT: "struct", K_ENUM: "enum", K_UNION: "union", K_TRAIT: "trait",
        K_TYPE_ALIAS: "type_alias", K_STATIC: "static",
    }
    if kind in simple and not path and last.suffix in (TYPE, TERM):
        return Classified(simple[kind], qn, modules, None, None, None)
    if kind == K_MACRO and not path and last.suffix == MACRO:
        return Classified("macro", qn, modules, None, None, None)
    if kind == K_ENUM_MEMBER and len(path) == 1:
        return Classified("enum_member", qn, modules, None, None, None)
    if kind == K_FIELD and 1 <= len(path) <= 2:
        return Classified("field", qn, modules, None, None, None)
    return None


# ---------------------------------------------------------------------------------------------
# Crates (SPEC §14.1): which crate a file belongs to, and the module a file is


@dataclass
class Package:
    dir: str  # repository-relative, "" for the root
    name: str
    lib: Optional[str]  # the library crate's name
    lib_path: str
    bins: dict[str, str]  # root file → crate name


def read_packages(root: Path) -> list[Package]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and not (d == "target" and "Cargo.toml" in filenames)
        )
        if "Cargo.toml" not in filenames:
            continue
        try:
            with open(os.path.join(dirpath, "Cargo.toml"), "rb") as f:
                m = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError):
            continue
        pkg = m.get("package")
        if not isinstance(pkg, dict) or "name" not in pkg:
            continue
        rel = os.path.relpath(dirpath, root)
        rel = "" if rel == "." else rel
        name = pkg["name"]
        under = name.replace("-", "_")
        lib = m.get("lib") or {}
        lib_path = lib.get("path", "src/lib.rs")
        has_lib = os.path.exists(os.path.join(dirpath, lib_path))
        lib_name = lib.get("name", under).replace("-", "_") if has_lib else None
        bins = {}
        for b in m.get("bin", []) or []:
            bname = b.get("name", under).replace("-", "_")
            bins[os.path.normpath(b.get("path", f"src/bin/{b.get('name', under)}.rs"))] = bname
        if os.path.exists(os.path.join(dirpath, "src/main.rs")):
            bins.setdefault("src/main.rs", under)
        out.append(Package(rel, name, lib_name, os.path.normpath(lib_path), bins))
    return out


def crate_and_module(packages: list[Package], rel: str) -> tuple[str, list[str]]:
    """The crate (kivgraph's package name of its root) a repository-relative file belongs to,
    and the module path of the file inside it."""
    best = None
    for p in packages:
        if p.dir == "" or rel.startswith(p.dir + "/"):
            if best is None or len(p.dir) > len(best.dir):
                best = p
    if best is None:
        return "?", []
    inner = rel[len(best.dir) + 1 :] if best.dir else rel
    under = best.name.replace("-", "_")
    parts = inner.split("/")

    def module_path(base: str, root_file: str) -> list[str]:
        # `base/a/b.rs` or `base/a/b/mod.rs` under the directory of the crate root.
        rd = os.path.dirname(root_file)
        sub = inner[len(rd) + 1 :] if rd else inner
        if inner == root_file:
            return []
        segs = sub[:-3].split("/") if sub.endswith(".rs") else sub.split("/")
        if segs and segs[-1] == "mod":
            segs = segs[:-1]
        return segs

    if inner in best.bins:
        return f"bin:{best.bins[inner]}", []
    for prefix, kind in (("tests", "test"), ("examples", "example"), ("benches", "bench")):
        if parts[0] == prefix and len(parts) >= 2:
            stem = parts[1][:-3] if parts[1].endswith(".rs") else parts[1]
            root_file = f"{prefix}/{parts[1]}" if parts[1].endswith(".rs") else f"{prefix}/{parts[1]}/main.rs"
            mods = [] if len(parts) == 2 or inner == root_file else module_path("", root_file)
            return f"{kind}:{stem}", mods
    if parts[0] == "src" and len(parts) >= 3 and parts[1] == "bin":
        stem = parts[2][:-3] if parts[2].endswith(".rs") else parts[2]
        return f"bin:{stem}", []
    if inner == "build.rs":
        return f"build:{under}", []
    if best.lib is not None:
        return best.lib, module_path("", best.lib_path)
    for root_file, bname in best.bins.items():
        return f"bin:{bname}", module_path("", root_file)
    return under, []


# ---------------------------------------------------------------------------------------------
# The oracle


@dataclass
class Root:
    name: str
    dir: Path
    packages: list[Package] = field(default_factory=list)


@dataclass
class Decl:
    repo: str
    file: str
    pkg: str
    line: int  # 1-based, the name's
    col: int  # 0-based byte column of the name
    end_line: int
    kind: str
    name: str
    qn: str
    symbol: str
    cargo_package: str
    container: Optional[str]
    trait_name: Optional[str]
    self_name: Optional[str]
    body: Optional[tuple[int, int, int, int]]  # 0-based (sl, sc, el, ec) of the whole item

    def target(self) -> dict:
        return {"pkg": self.pkg, "qn": self.qn, "kind": self.kind, "target_repo": self.repo}


@dataclass
class RsFile:
    root: Root
    rel: str
    data: bytes
    lines: list[bytes]
    crate: str
    module: list[str]
    occurrences: list[Occurrence] = field(default_factory=list)
    decls: list[Decl] = field(default_factory=list)
    # Inline modules: (body range, module path).
    inline_modules: list[tuple[tuple[int, int, int, int], list[str]]] = field(default_factory=list)

    @property
    def pkg(self) -> str:
        return "::".join([self.crate] + self.module)


def span(r: list[int]) -> Optional[tuple[int, int, int, int]]:
    if len(r) == 3:
        return (r[0], r[1], r[0], r[2])
    if len(r) == 4:
        return (r[0], r[1], r[2], r[3])
    return None


def contains(outer: tuple[int, int, int, int], line: int, col: int) -> bool:
    return (outer[0], outer[1]) <= (line, col) < (outer[2], outer[3])


def size(r: tuple[int, int, int, int]) -> tuple[int, int]:
    return (r[2] - r[0], r[3] - r[1])


def main(argv: list[str]) -> int:
    out_path = None
    roots: dict[str, Root] = {}
    indexes: list[tuple[str, str, Path]] = []
    checker = None
    it = iter(argv)
    for a in it:
        if a == "-o":
            out_path = next(it)
        elif a == "-repo":
            name, _, d = next(it).partition("=")
            roots[name] = Root(name, Path(d).resolve())
        elif a == "-index":
            spec, _, f = next(it).partition("=")
            name, _, sub = spec.partition(":")
            indexes.append((name, sub.strip("/"), Path(f)))
        elif a == "-checker":
            checker = next(it)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if out_path is None or not roots or not indexes:
        print(__doc__, file=sys.stderr)
        return 2
    for r in roots.values():
        r.packages = read_packages(r.dir)

    # ---- read the indexes: documents per repository file
    files: dict[tuple[str, str], RsFile] = {}
    kinds: dict[str, int] = {}
    tool = None
    for name, sub, path in indexes:
        root = roots.get(name)
        if root is None:
            print(f"-index {name}: no -repo {name}", file=sys.stderr)
            return 2
        idx = read_index(path)
        tool = tool or idx.tool
        ndoc = 0
        for doc in idx.documents:
            rel = os.path.normpath(os.path.join(sub, doc.path)) if sub else os.path.normpath(doc.path)
            if rel.startswith("..") or not rel.endswith(".rs"):
                continue
            for s in doc.symbols:
                kinds.setdefault(s.symbol, s.kind)
            key = (name, rel)
            if key in files:
                files[key].occurrences.extend(doc.occurrences)
                continue
            try:
                data = (root.dir / rel).read_bytes()
            except OSError:
                continue
            crate, module = crate_and_module(root.packages, rel)
            f = RsFile(root, rel, data, data.split(b"\n"), crate, module)
            f.occurrences = list(doc.occurrences)
            files[key] = f
            ndoc += 1
        for s in idx.external:
            kinds.setdefault(s.symbol, s.kind)
        log(f"{path}: {ndoc} documents of {name}")

    def text_at(f: RsFile, r: tuple[int, int, int, int]) -> str:
        if r[0] != r[2] or r[0] >= len(f.lines):
            return ""
        return f.lines[r[0]][r[1] : r[3]].decode("utf-8", "replace")

    # ---- declarations: the definitions of every file
    by_symbol: dict[str, list[Decl]] = {}
    impl_bodies: dict[str, list[tuple[RsFile, tuple[int, int, int, int]]]] = {}
    skipped_defs = 0
    for (repo, rel), f in sorted(files.items()):
        seen: set[tuple[str, int, int]] = set()
        for o in f.occurrences:
            if not (o.roles & 1):
                continue
            r = span(o.range)
            p = parse_symbol(o.symbol)
            if r is None or p is None:
                continue
            cargo_pkg, version, descs = p
            if (o.symbol, r[0], r[1]) in seen:
                continue
            seen.add((o.symbol, r[0], r[1]))
            kind = kinds.get(o.symbol, 0)
            body = span(o.enclosing) if o.enclosing else None
            if kind == K_MODULE and descs and descs[-1].suffix == NAMESPACE and body:
                mods = [d.name for d in descs if d.suffix == NAMESPACE and d.name != "crate"]
                if len(mods) == len(descs) and body[0] != body[2]:
                    f.inline_modules.append((body, mods))
                continue
            c = classify(descs, kind)
            if c is None:
                continue
            name = text_at(f, r)
            if name.startswith("r#"):
                name = name[2:]
            last = descs[-1].name
            if name != last:
                skipped_defs += 1
                continue
            d = Decl(
                repo=repo, file=rel, pkg="::".join([f.crate] + c.modules), line=r[0] + 1,
                col=r[1], end_line=(body[2] + 1) if body else r[0] + 1, kind=c.kind, name=last,
                qn=c.qn, symbol=o.symbol, cargo_package=cargo_pkg, container=c.container,
                trait_name=c.trait_name, self_name=c.self_name, body=body,
            )
            f.decls.append(d)
            by_symbol.setdefault(o.symbol, []).append(d)
    # Tuple fields: rust-analyzer writes no definition for them, only uses (`Type#0.`); each
    # one used is declared at its struct or variant (mapped to the graph by identity).
    ntuple = 0
    for f in list(files.values()):
        for o in f.occurrences:
            if o.symbol in by_symbol or not o.symbol.endswith(".") or o.roles & 1:
                continue
            head, _, tail = o.symbol[:-1].rpartition("#")
            parents = by_symbol.get(head + "#")
            if not tail.isdigit() or not parents or len(parents) != 1:
                continue
            pd = parents[0]
            if pd.kind not in ("struct", "enum_member", "union"):
                continue
            d = Decl(
                repo=pd.repo, file=pd.file, pkg=pd.pkg, line=pd.line, col=pd.col,
                end_line=pd.end_line, kind="field", name=tail, qn=f"{pd.qn}::{tail}",
                symbol=o.symbol, cargo_package=pd.cargo_package, container=None,
                trait_name=None, self_name=None, body=None,
            )
            files[(pd.repo, pd.file)].decls.append(d)
            by_symbol[o.symbol] = [d]
            ntuple += 1
    # Impl blocks: rust-analyzer has no definition for them, but `Self` inside one names it with
    # the block as its range, and its items' symbols start with it (`impl#[Type][Trait]`).
    nimpl = 0
    for (repo, rel), f in sorted(files.items()):
        blocks: dict[str, set[tuple[int, int, int, int]]] = {}
        for o in f.occurrences:
            if "impl#[" in o.symbol and o.symbol.endswith("]") and o.enclosing:
                b = span(o.enclosing)
                if b is not None:
                    blocks.setdefault(o.symbol, set()).add(b)
        headers: dict[tuple[str, int], list] = {}
        for b_sym, bs in blocks.items():
            for b in bs:
                h = impl_header(f, b[0], forward=True, limit=b[2])
                if h is not None:
                    headers.setdefault((b_sym, h[0]), [h, b])
        for d in f.decls:
            if d.container != "impl" or d.body is None:
                continue
            b_sym = d.symbol[: d.symbol.rindex("]") + 1]
            if any(contains(b, d.line - 1, d.col) for b in blocks.get(b_sym, ())):
                continue
            h = impl_header(f, d.body[0], forward=False)
            if h is None:
                continue
            e = headers.setdefault((b_sym, h[0]), [h, (h[0], h[1], d.body[2] + 1, 1)])
            if e[1][2] < d.body[2] + 1:
                e[1] = (e[1][0], e[1][1], d.body[2] + 1, 1)
        for (b_sym, _), (h, b) in sorted(headers.items(), key=lambda kv: kv[1][0]):
            p = parse_symbol(b_sym)
            if p is None:
                continue
            descs = p[2]
            k = max(i for i, x in enumerate(descs) if x == Desc("impl", TYPE))
            params = [type_name(x.name) for x in descs[k + 1 :]]
            qn = f"impl {params[1]} for {params[0]}" if len(params) == 2 else f"impl {params[0]}"
            mods = [x.name for x in descs[:k] if x.suffix == NAMESPACE and x.name != "crate"]
            f.decls.append(Decl(
                repo=repo, file=rel, pkg="::".join([f.crate] + mods), line=h[0] + 1, col=h[1],
                end_line=b[2] + 1, kind="implementation", name=qn, qn=qn,
                symbol=f"{b_sym}@{h[0] + 1}", cargo_package=p[0], container=None,
                trait_name=None, self_name=None, body=(h[0], h[1], b[2], b[3]),
            ))
            nimpl += 1
    # Items inside function bodies (and const or static initialisers) are locals (SPEC §14.1):
    # rust-analyzer names some of them as if they were module items (its symbols leave the
    # function out), so they are dropped by position, and the uses of their symbol inside that
    # body are theirs.
    local_bodies: dict[str, list[tuple[RsFile, tuple[int, int, int, int]]]] = {}
    nlocal = 0
    for f in files.values():
        bodies = [d.body for d in f.decls if d.kind in BODY_KINDS and d.body is not None]
        kept = []
        for d in f.decls:
            outer = [b for b in bodies if b is not d.body and contains(b, d.line - 1, d.col)]
            if outer:
                nlocal += 1
                inner = min(outer, key=size)
                local_bodies.setdefault(d.symbol, []).append((f, inner))
                ds = by_symbol.get(d.symbol, [])
                if d in ds:
                    ds.remove(d)
                    if not ds:
                        del by_symbol[d.symbol]
            else:
                kept.append(d)
        f.decls = kept
    # The module a file is: its items' namespaces (a `#[path]` module is named by its `mod`, not
    # its path), else the module path its place under the crate root gives.
    for f in files.values():
        for d in f.decls:
            # (rust-analyzer gives a file module loaded through `#[path]` its whole file as range)
            inline = [b for b, _ in f.inline_modules if b[:2] != (0, 0)]
            if d.kind == "implementation" or any(contains(b, d.line - 1, d.col) for b in inline):
                continue
            if d.pkg == f.crate:
                f.module = []
            elif d.pkg.startswith(f.crate + "::"):
                f.module = d.pkg[len(f.crate) + 2 :].split("::")
            break
    # Two declarations of one identity (rust-analyzer's symbols repeat, e.g. for items of two
    # crates of one Cargo package, or `#[cfg]` alternatives): later ones are told apart.
    ident: dict[tuple[str, str, str, str], int] = {}
    # Impls are never targets (referrers are matched by position), so keep kivgraph's names.
    for f in files.values():
        for d in f.decls:
            if d.kind == "implementation":
                continue
            k = (d.repo, d.pkg, d.qn, d.kind)
            n = ident.get(k, 0) + 1
            ident[k] = n
            if n > 1:
                d.qn = f"{d.qn} #{n}"
    ndecl = sum(len(f.decls) for f in files.values())
    log(f"{ndecl} declarations ({skipped_defs} definitions whose text is not their name and "
        f"{nlocal} items inside bodies skipped; {nimpl} impl blocks, {ntuple} tuple fields)")

    # Types by (cargo package, simple name), for an impl's type and trait.
    types: dict[tuple[str, str, str], list[Decl]] = {}
    for ds in by_symbol.values():
        for d in ds:
            if d.kind in TYPE_KINDS and "::" not in d.qn:
                types.setdefault((d.cargo_package, d.name, "trait" if d.kind == "trait" else "type"), []).append(d)

    def lookup_type(cargo_pkg: str, name: Optional[str], trait: bool) -> Optional[Decl]:
        if not name:
            return None
        ds = types.get((cargo_pkg, name, "trait" if trait else "type"), [])
        return ds[0] if len(ds) == 1 else None

    def has_body(d: Decl) -> bool:
        f = files[(d.repo, d.file)]
        b = d.body
        if b is None:
            return False
        # From the name on: the range starts with the doc comment, whose examples have braces.
        first = f.lines[d.line - 1][d.col :]
        text = b"\n".join([first] + f.lines[d.line : b[2] + 1])
        return b"{" in text

    # ---- structural facts: METHOD_OF, OVERRIDES
    # An impl's type and trait are what rust-analyzer resolves the names of its header to.
    impl_types: dict[int, tuple[Optional[Decl], Optional[Decl]]] = {}
    impl_self: dict[int, Optional[Decl]] = {}
    for f in files.values():
        impls = [d for d in f.decls if d.kind == "implementation" and d.body is not None]
        if not impls:
            continue
        header_refs: dict[int, list[tuple[int, int, str, Decl]]] = {}
        for im in impls:
            h0, hc = im.body[0], im.body[1]
            h1 = h0
            while h1 < min(im.body[2], h0 + 8) and b"{" not in f.lines[h1]:
                h1 += 1
            header_refs[id(im)] = []
            for o in f.occurrences:
                r = span(o.range)
                if r is None or not (h0 <= r[0] <= h1) or (r[0] == h0 and r[1] < hc):
                    continue
                if r[0] == h1 and b"{" in f.lines[h1] and r[1] > f.lines[h1].index(b"{"):
                    continue
                ds = by_symbol.get(o.symbol)
                if ds and len(ds) == 1:
                    header_refs[id(im)].append((r[0], r[1], text_at(f, r), ds[0]))
        for im in impls:
            refs = sorted(header_refs[id(im)], key=lambda x: (x[0], x[1]))
            qn = im.qn
            self_name = qn.rsplit(" for ", 1)[-1].removeprefix("impl ")
            trait_name = qn.removeprefix("impl ").split(" for ")[0] if " for " in qn else None
            st = [d for _, _, t, d in refs if t == self_name and d.kind in ("struct", "enum", "union", "trait", "type_alias")]
            tt = [d for _, _, t, d in refs if trait_name and t == trait_name and d.kind == "trait"]
            self_decl = st[-1] if st else None
            if self_decl is not None and self_decl.kind == "type_alias":
                self_decl = None
            impl_self[id(im)] = self_decl
            for m in f.decls:
                if m.container == "impl" and contains(im.body, m.line - 1, m.col):
                    impl_types[id(m)] = (self_decl, tt[0] if tt else None)

    method_of: dict[int, Decl] = {}
    overrides: dict[int, Decl] = {}
    for ds in by_symbol.values():
        for d in ds:
            if d.kind not in ("method", "static_method", "trait_method"):
                continue
            if d.container == "trait":
                # The trait's symbol is the item's without its last descriptor.
                ts = by_symbol.get(d.symbol[: d.symbol.rfind("#", 0, len(d.symbol) - 1) + 1], [])
                t = ts[0] if len(ts) == 1 else lookup_type(d.cargo_package, d.trait_name, True)
                if t is not None:
                    method_of[id(d)] = t
            elif d.container == "impl":
                if id(d) in impl_types:
                    t, tr = impl_types[id(d)]
                else:
                    t = lookup_type(d.cargo_package, d.self_name, False)
                    tr = lookup_type(d.cargo_package, d.trait_name, True)
                if t is not None:
                    method_of[id(d)] = t
                if tr is not None:
                    for m in by_symbol.get(tr.symbol.rsplit("#", 1)[0] + "#" + d.symbol.rsplit("]", 1)[-1], []):
                        if m.kind == "trait_method" and has_body(m):
                            overrides[id(d)] = m

    # ---- uses
    def enclosing(f: RsFile, line: int, col: int) -> Optional[Decl]:
        best = None
        for d in f.decls:
            if d.kind in SOURCE_KINDS and d.body is not None and contains(d.body, line, col):
                if best is None or size(d.body) < size(best.body):
                    best = d
        return best

    def module_at(f: RsFile, line: int, col: int) -> str:
        best = None
        for body, mods in f.inline_modules:
            if contains(body, line, col) and (best is None or size(body) < size(best[0])):
                best = (body, mods)
        if best is None:
            return f.pkg
        return "::".join([f.crate] + best[1])

    def after(f: RsFile, r: tuple[int, int, int, int]) -> bytes:
        return f.lines[r[0]][r[3] :].lstrip()

    def before(f: RsFile, r: tuple[int, int, int, int]) -> bytes:
        return f.lines[r[0]][: r[1]].rstrip()

    # Names a `use … as NAME` gives a declaration (followed through chains of renames): a use
    # of NAME that rust-analyzer resolves to the declaration is a use of it. Any other text at
    # an occurrence is a token of a macro expansion mapped back to the invocation.
    aliases: set[tuple[str, str]] = set()
    for _ in range(4):
        n = len(aliases)
        for f in files.values():
            for o in f.occurrences:
                ds = by_symbol.get(o.symbol)
                r = span(o.range)
                if not ds or r is None or r[0] != r[2]:
                    continue
                text = text_at(f, r).removeprefix("r#")
                if text != ds[0].name and (text, o.symbol) not in aliases:
                    continue
                rest = after(f, r)
                if rest.startswith(b"as ") or rest.startswith(b"as\t"):
                    alias = rest[3:].lstrip().split(b";")[0].split(b",")[0].split(b"}")[0].strip()
                    name = alias.decode("utf-8", "replace").removeprefix("r#")
                    if name.isidentifier() and name != "_":
                        aliases.add((name, o.symbol))
        if len(aliases) == n:
            break

    uses: list[dict] = []
    ambiguous = 0
    not_name = 0
    self_prefix = 0
    shadowed = 0
    for (repo, rel), f in sorted(files.items()):
        seen_use: set[tuple[int, int, str]] = set()
        for o in f.occurrences:
            if o.roles & 1:
                continue
            r = span(o.range)
            if r is None or r[0] != r[2]:
                continue
            text = text_at(f, r)
            if text.startswith("r#"):
                text = text[2:]
            if (before(f, r).endswith(b" as") or before(f, r) == b"as") and _in_use_item(f, r[0], r[1]) is not None:
                continue  # the NAME of `use … as NAME`: the leaf before it is the use
            if any(bf is f and contains(b, r[0], r[1]) for bf, b in local_bodies.get(o.symbol, [])):
                shadowed += 1
                continue  # a use of an item local to the body, which shares the symbol
            if text == "Self" and after(f, r).startswith(b"::"):
                self_prefix += 1
                continue  # `Self::item`: SPEC §14.4 gives `Self` as a prefix no edge
            targets = by_symbol.get(o.symbol)
            form_self = False
            if targets is None and text == "Self":
                p = parse_symbol(o.symbol)
                c = None
                # The type the header of the innermost impl block resolves to, else the type of
                # that name in the package.
                blocks = [d for d in f.decls if d.kind == "implementation" and contains(d.body, r[0], r[1])]
                if blocks:
                    im = min(blocks, key=lambda d: size(d.body))
                    if impl_self.get(id(im)) is not None:
                        c = [impl_self[id(im)]]
                        p = None
                if p is not None:
                    descs = p[2]
                    if len(descs) >= 2 and descs[-2] == Desc("impl", TYPE) and descs[-1].suffix == TYPE_PARAMETER:
                        t = lookup_type(p[0], type_name(descs[-1].name), False)
                        c = [t] if t is not None else None
                    elif (
                        len(descs) >= 3 and descs[-3] == Desc("impl", TYPE)
                        and descs[-2].suffix == TYPE_PARAMETER and descs[-1].suffix == TYPE_PARAMETER
                    ):
                        t = lookup_type(p[0], type_name(descs[-2].name), False)
                        c = [t] if t is not None else None
                targets = c
                form_self = True
            if not targets:
                continue
            if len({id(t) for t in targets}) > 1:
                ambiguous += 1
                continue
            t = targets[0]
            in_use_self = text == "self" and _in_use_item(f, r[0], r[1]) is not None
            if not form_self and text != t.name and (text, t.symbol) not in aliases and not in_use_self:
                not_name += 1
                continue
            key = (r[0], r[1], t.symbol)
            if key in seen_use:
                continue
            seen_use.add(key)
            line = f.lines[r[0]]
            form, edge, usage = use_context(f, r, t, form_self)
            frm = enclosing(f, r[0], r[1])
            uses.append({
                "t": "use", "repo": repo, "file": rel, "line": r[0] + 1, "col": r[1],
                "name": t.name if not form_self else "Self", "pkg": t.pkg, "target_repo": t.repo,
                "qn": t.qn, "kind": t.kind, "detail": t.kind, "use": usage, "form": form,
                "edge": edge,
                "from_kind": frm.kind if frm else "module",
                "from_qn": frm.qn if frm else module_at(f, r[0], r[1]),
                "from_line": frm.line if frm else 1,
            })
            del line
    log(f"{len(uses)} uses; skipped: {ambiguous} occurrences of ambiguous symbols, {not_name} "
        f"whose text is neither the name nor an alias (macro expansions), {self_prefix} `Self::` "
        f"prefixes, {shadowed} uses of items local to a body")

    # ---- output
    with open(out_path, "w", encoding="utf-8") as out:
        def w(rec: dict) -> None:
            out.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")

        w({"t": "oracle", "language": "rust", "checker": checker or tool or "rust-analyzer"})
        for (repo, rel), f in sorted(files.items()):
            w({"t": "package", "repo": repo, "dir": os.path.dirname(rel), "pkg": f.pkg,
               "files": 1, "errors": 0, "error_sample": []})
            nlines = f.data.count(b"\n") + (1 if f.data and not f.data.endswith(b"\n") else 0)
            w({"t": "file", "repo": repo, "file": rel, "pkg": f.pkg, "lines": nlines,
               "sha256": hashlib.sha256(f.data).hexdigest()})
            for d in sorted(f.decls, key=lambda d: (d.line, d.col)):
                rec = {
                    "t": "decl", "repo": d.repo, "pkg": d.pkg, "file": d.file, "line": d.line,
                    "col": d.col, "end_line": d.end_line, "kind": d.kind, "detail": d.kind,
                    "name": d.name, "qn": d.qn,
                }
                m = method_of.get(id(d))
                if m is not None:
                    rec["method_of"] = m.target()
                ov = overrides.get(id(d))
                if ov is not None:
                    rec["overrides"] = ov.target()
                w(rec)
        for u in uses:
            w(u)
    log(f"wrote {out_path}: {len(files)} files, {ndecl} declarations, {len(uses)} uses")
    return 0


# ---------------------------------------------------------------------------------------------
# The syntax around a use: its form (for grouping) and the edge kind SPEC §14.4 prescribes


IMPL_RE = re.compile(rb"^(\s*)((?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?impl)\b")


def impl_header(f: RsFile, line: int, forward: bool, limit: int = 0) -> Optional[tuple[int, int]]:
    """(line, column) of the `impl` (or `unsafe impl`) that starts an impl block: the first line
    at or after `line` (up to `limit`) or the nearest at or before it that starts with it."""
    rng = range(line, min(limit, len(f.lines) - 1) + 1) if forward else range(line, -1, -1)
    for i in rng:
        m = IMPL_RE.match(f.lines[i])
        if m:
            return i, len(m.group(1))
    return None


def _prev_token(f: RsFile, line: int, col: int) -> str:
    """The non-blank text just before (line, col) on the same line, up to 2 characters."""
    s = f.lines[line][:col].rstrip()
    return s[-2:].decode("utf-8", "replace")


def _next_text(f: RsFile, line: int, col: int) -> str:
    s = f.lines[line][col:].lstrip()
    if not s.strip() and line + 1 < len(f.lines):
        s = f.lines[line + 1].lstrip()
    return s[:3].decode("utf-8", "replace")


def _in_use_item(f: RsFile, line: int, col: int) -> Optional[bool]:
    """Whether the position is inside a `use` declaration: None if not, else whether it is
    `pub use` (a re-export). Looks back through the statement to its start."""
    text = b"".join(ln + b"\n" for ln in f.lines[max(0, line - 30) : line]) + f.lines[line][:col]
    # The statement's start: after the last `;`, `}` or `{` that does not belong to a use tree.
    depth = 0
    i = len(text) - 1
    while i >= 0:
        c = text[i : i + 1]
        if c == b"}":
            depth += 1
        elif c == b"{":
            if depth == 0:
                # A use tree's brace follows `::`.
                j = i - 1
                while j >= 0 and text[j : j + 1] in b" \t\n":
                    j -= 1
                if text[j - 1 : j + 1] != b"::":
                    break
            else:
                depth -= 1
        elif c == b";" and depth == 0:
            break
        i -= 1
    stmt = text[i + 1 :].lstrip()
    # Attributes and doc comments before the item.
    while stmt.startswith(b"#[") or stmt.startswith(b"//"):
        nl = stmt.find(b"\n")
        if nl < 0:
            return None
        stmt = stmt[nl + 1 :].lstrip()
    if stmt.startswith(b"use ") or stmt.startswith(b"use\n"):
        return False
    if stmt.startswith(b"pub use ") or stmt.startswith(b"pub(crate) use ") or stmt.startswith(b"pub(super) use ") or stmt.startswith(b"pub(in "):
        return stmt.startswith(b"pub use ")
    return None


def use_context(f: RsFile, r: tuple[int, int, int, int], t: Decl, is_self: bool) -> tuple[str, str, str]:
    """(form, edge kind, use) of the use at range r of target t."""
    line, col, end = r[0], r[1], r[3]
    prev = _prev_token(f, line, col)
    nxt = _next_text(f, line, end)
    in_use = _in_use_item(f, line, col)
    if in_use is not None:
        form = "use" if not in_use else "pub use"
        if nxt.startswith("::"):
            form += " (path prefix)"
        elif f.lines[line][col:end] == b"self":
            form += " (self)"
        return (form, "REEXPORTS" if in_use else "IMPORTS_SYMBOL", "value")
    if is_self:
        return ("Self", "TYPE_USES" if not (nxt.startswith("::") or nxt.startswith("{") or nxt.startswith("(")) else "REFERENCES", "type")
    member = prev.endswith(".") and not prev.endswith("..")
    path = prev.endswith("::")
    call = nxt.startswith("(") or nxt.startswith("::<")
    if t.kind == "macro":
        return ("macro", "CALLS_DIRECT", "call")
    if member:
        if call:
            return ("method call", "CALLS_DIRECT", "call")
        return ("field access" if t.kind == "field" else "member", "REFERENCES", "value")
    where = "path segment" if path else "identifier"
    if t.kind in ("function", "method", "static_method", "trait_method"):
        if call:
            return (f"{where} (call)", "CALLS_DIRECT", "call")
        if prev.endswith("(") or prev.endswith(","):
            return (f"{where} (argument)", "PASSES_AS_CALLBACK", "value")
        return (where, "REFERENCES", "value")
    if t.kind == "enum_member" or t.kind == "struct":
        if call:
            return (f"{where} (constructor)", "CALLS_DIRECT", "call")
    if t.kind in TYPE_KINDS:
        if nxt.startswith("::") or nxt.startswith("{") or (nxt.startswith("(") and t.kind == "struct"):
            return (f"{where} (value)", "REFERENCES", "value")
        if t.kind == "trait" and prev.endswith(":") and not path and _trait_header(f, line, col):
            return (f"{where} (supertrait)", "EXTENDS", "type")
        return (f"{where} (type)", "TYPE_USES", "type")
    if t.kind == "field":
        return (f"{where} (field)", "REFERENCES", "value")
    return (where, "REFERENCES", "value")


def _trait_header(f: RsFile, line: int, col: int) -> bool:
    s = f.lines[line][:col].decode("utf-8", "replace")
    return "trait " in s and "{" not in s


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
