#!/usr/bin/env python3
"""The Python oracle of kivgraph's accuracy harness.

Lists the declarations SPEC §12.2 makes symbols (read off Python's own `ast`), asks a checker
where every name, attribute name and imported name of every file is declared (pyright's
language server by default, jedi with `-checker jedi`), and writes JSON lines in the record
types of the Go and TypeScript oracles so that the same scorer (benches/src/accuracy.rs) reads
them. See ../README.md, section "Python", for what is a declaration and which uses are counted.

    oracle.py -o OUT.jsonl -repo NAME=DIR [-repo NAME=DIR ...] [-checker pyright|jedi]

Records, in this order: one `oracle` header; per file a `package` record (each module is its
own graph package, SPEC §12.1), a `file` record and its `decl` records; then the `use` records
of every file.

pyright runs as `node PYRIGHT_DIR/langserver.index.js --stdio` (PYRIGHT_DIR: the environment
variable, else `node_modules/pyright` beside this file, as `npm ci` installs it).
"""

from __future__ import annotations

import ast
import configparser
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional
from urllib.parse import quote, unquote, urlparse

HERE = Path(__file__).resolve().parent
SKIP_DIRS = {"__pycache__", "node_modules", ".venv", "venv", "site-packages"}
STARTED = time.monotonic()


def log(msg: str) -> None:
    print(f"oracle: {msg} ({time.monotonic() - STARTED:.1f} s)", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Roots, module roots and modules (SPEC §12.1)


@dataclass
class Root:
    name: str
    dir: Path
    module_roots: list[str] = field(default_factory=list)  # repository-relative, "" = root


@dataclass
class Decl:
    repo: str
    pkg: str
    file: str
    line: int
    col: int
    end_line: int
    kind: str
    detail: str
    name: str
    qn: str
    # Filled for methods: the class decl; for classes: the base expressions.
    cls: Optional["Decl"] = None
    bases: list[ast.expr] = field(default_factory=list)
    members: dict[str, "Decl"] = field(default_factory=dict)
    overrides: Optional["Decl"] = None

    def target(self, with_repo: bool = True) -> dict[str, str]:
        t = {"pkg": self.pkg, "qn": self.qn, "kind": self.kind}
        if with_repo:
            t["target_repo"] = self.repo
        return t


@dataclass
class PyFile:
    root: Root
    rel: str
    abs: Path
    module: str  # the dotted module name
    pkg: str  # the graph package name (module, `.pyi` suffixed for a stub beside a source)
    data: bytes
    lines: list[bytes] = field(default_factory=list)
    tree: Optional[ast.Module] = None
    error: Optional[str] = None
    decls: list[Decl] = field(default_factory=list)
    # (line, byte col) of every declaring name occurrence -> its decl (redeclarations too).
    sites: dict[tuple[int, int], Decl] = field(default_factory=dict)
    # Declaring occurrences that are never uses (names in store context, def/class names,
    # the first `self.x =` of a field).
    declaring: set[tuple[int, int]] = field(default_factory=set)
    # statement node id -> the decl it declares (first declarations only): the enclosing decl.
    stmt_decl: dict[int, Decl] = field(default_factory=dict)


def walk_root(root: Root) -> Iterator[Path]:
    """Every .py/.pyi file under the root, in path order, skipping the directories SPEC §12
    never walks (and hidden files, as the compiler's walker does)."""
    for dirpath, dirnames, filenames in os.walk(root.dir):
        dirnames[:] = sorted(
            d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")
        )
        for f in sorted(filenames):
            if f.startswith("."):
                continue
            if f.endswith(".py") or f.endswith(".pyi"):
                yield Path(dirpath) / f


def _norm(base: str, sub: str) -> Optional[str]:
    p = os.path.normpath(os.path.join(base, sub)).replace(os.sep, "/")
    if p == ".":
        return ""
    if p.startswith("../") or p == "..":
        return None
    return p


def module_roots(root: Root) -> list[str]:
    """The repository root, `src/`, and the directories pyproject.toml / setup.cfg files name
    (relative to the file naming them)."""
    roots = {""}
    if (root.dir / "src").is_dir():
        roots.add("src")
    for dirpath, dirnames, filenames in os.walk(root.dir):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        base = os.path.relpath(dirpath, root.dir).replace(os.sep, "/")
        base = "" if base == "." else base
        if "pyproject.toml" in filenames:
            try:
                with open(os.path.join(dirpath, "pyproject.toml"), "rb") as f:
                    doc = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError):
                doc = {}
            tool = doc.get("tool", {}) if isinstance(doc, dict) else {}
            st = tool.get("setuptools", {}) if isinstance(tool, dict) else {}
            pdir = st.get("package-dir", {}) if isinstance(st, dict) else {}
            if isinstance(pdir, dict):
                for k, v in pdir.items():
                    if isinstance(v, str):
                        roots.add(_package_dir_root(base, k, v))
            pk = st.get("packages", {}) if isinstance(st, dict) else {}
            find = pk.get("find", {}) if isinstance(pk, dict) else {}
            where = find.get("where", []) if isinstance(find, dict) else []
            for w in [where] if isinstance(where, str) else where:
                if isinstance(w, str):
                    roots.add(_norm(base, w))
            hatch = (
                tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
                if isinstance(tool, dict)
                else {}
            )
            for p in hatch.get("packages", []) if isinstance(hatch, dict) else []:
                if isinstance(p, str):
                    roots.add(_norm(base, os.path.dirname(p.rstrip("/"))))
            poetry = tool.get("poetry", {}) if isinstance(tool, dict) else {}
            for p in poetry.get("packages", []) if isinstance(poetry, dict) else []:
                if isinstance(p, dict) and isinstance(p.get("from"), str):
                    roots.add(_norm(base, p["from"]))
        if "setup.cfg" in filenames:
            cp = configparser.ConfigParser()
            try:
                cp.read(os.path.join(dirpath, "setup.cfg"), encoding="utf-8")
                pd = cp.get("options", "package_dir", fallback="")
            except (configparser.Error, UnicodeDecodeError):
                pd = ""
            for line in pd.splitlines():
                if "=" in line:
                    k, v = line.split("=", 1)
                    roots.add(_package_dir_root(base, k.strip(), v.strip()))
    roots.discard(None)
    return sorted(r for r in roots if r is not None and (root.dir / r).is_dir())


def _package_dir_root(base: str, key: str, value: str) -> Optional[str]:
    """`package-dir = {"" = "lib"}` names the root `lib`; `{"pkg" = "lib/pkg"}` the root `lib`
    (the directory holding the package)."""
    if not key:
        return _norm(base, value)
    parts = key.split(".")
    v = value.rstrip("/").split("/")
    if v[-len(parts):] == parts:
        return _norm(base, "/".join(v[: -len(parts)]) or ".")
    return None


def dotted_name(rel: str, roots: list[str]) -> str:
    """The path relative to the deepest module root holding it, `/` as `.`, no extension;
    `pkg/__init__.py` is `pkg`."""
    best = max((r for r in roots if r == "" or rel.startswith(r + "/")), key=len, default="")
    inner = rel[len(best) + 1 :] if best else rel
    parts = inner.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


# ---------------------------------------------------------------------------------------------
# Declarations (SPEC §12.2)

def nested_statements(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of one scope in source order: compound statements' bodies included, not
    those of functions and classes."""
    for s in stmts:
        yield s
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(s, ast.Match):
            for c in s.cases:
                yield from nested_statements(c.body)
            continue
        yield from nested_statements(getattr(s, "body", None) or [])
        for h in getattr(s, "handlers", None) or []:
            yield from nested_statements(h.body)
        yield from nested_statements(getattr(s, "orelse", None) or [])
        yield from nested_statements(getattr(s, "finalbody", None) or [])


def target_names(t: ast.expr) -> Iterator[ast.Name]:
    if isinstance(t, ast.Name):
        yield t
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from target_names(e)
    elif isinstance(t, ast.Starred):
        yield from target_names(t.value)


def decorator_name(d: ast.expr) -> str:
    """`staticmethod`, `property`, `x.setter`, … as written (calls' functions)."""
    if isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Name):
        return d.id
    if isinstance(d, ast.Attribute):
        inner = decorator_name(d.value)
        return f"{inner}.{d.attr}" if inner else d.attr
    return ""


class DeclCollector:
    def __init__(self, pf: PyFile):
        self.pf = pf

    def name_pos(self, node: ast.AST, keyword: str, name: str) -> tuple[int, int]:
        """The position of `name` after `def`/`class` in a def/class statement."""
        line = node.lineno
        text = self.pf.lines[line - 1] if line - 1 < len(self.pf.lines) else b""
        m = re.compile(rb"\b" + keyword.encode() + rb"\s+(" + re.escape(name.encode()) + rb")\b")
        hit = m.search(text, node.col_offset)
        if hit:
            return line, hit.start(1)
        # The name on a following line (`def \\\n f`): scan a few lines.
        for ln in range(line, min(line + 3, len(self.pf.lines))):
            hit = re.search(rb"\b(" + re.escape(name.encode()) + rb")\b", self.pf.lines[ln])
            if hit:
                return ln + 1, hit.start(1)
        return line, node.col_offset

    def new(self, node: ast.AST, kind: str, detail: str, name: str, qn: str) -> Decl:
        d = Decl(
            repo=self.pf.root.name,
            pkg=self.pf.pkg,
            file=self.pf.rel,
            line=node.lineno,
            col=node.col_offset,
            end_line=getattr(node, "end_lineno", node.lineno) or node.lineno,
            kind=kind,
            detail=detail,
            name=name,
            qn=qn,
        )
        self.pf.decls.append(d)
        return d

    def site(self, pos: tuple[int, int], d: Decl, declaring: bool = True) -> None:
        self.pf.sites.setdefault(pos, d)
        if declaring:
            self.pf.declaring.add(pos)

    def collect(self) -> None:
        assert self.pf.tree is not None
        self.scope(self.pf.tree.body, None)

    def scope(self, body: list[ast.stmt], cls: Optional[Decl]) -> None:
        """Module (cls None) or class body."""
        names: dict[str, Decl] = {} if cls is None else cls.members
        prefix = "" if cls is None else cls.qn + "."
        for s in nested_statements(body):
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                pos = self.name_pos(s, "def", s.name)
                d = names.get(s.name)
                if d is None:
                    if cls is None:
                        kind = detail = "function"
                    else:
                        decos = [decorator_name(x) for x in s.decorator_list]
                        if "staticmethod" in decos:
                            kind = detail = "static_method"
                        elif "property" in decos or any(
                            x in (f"{s.name}.setter", f"{s.name}.getter", f"{s.name}.deleter")
                            for x in decos
                        ):
                            kind = detail = "property"
                        elif "classmethod" in decos:
                            kind, detail = "method", "class_method"
                        else:
                            kind = detail = "method"
                        if s.name == "__init__":
                            detail = "constructor"
                    d = self.new(s, kind, detail, s.name, prefix + s.name)
                    d.cls = cls
                    names[s.name] = d
                # A redefinition's body belongs to the one symbol too.
                self.pf.stmt_decl[id(s)] = d
                self.site(pos, d)
            elif isinstance(s, ast.ClassDef):
                pos = self.name_pos(s, "class", s.name)
                d = names.get(s.name)
                if d is None:
                    d = self.new(s, "class", "class" if cls is None else "nested_class", s.name,
                                 prefix + s.name)
                    d.bases = list(s.bases)
                    names[s.name] = d
                    self.pf.stmt_decl[id(s)] = d
                    self.scope(s.body, d)
                    self.self_fields(s, d)
                self.site(pos, d)
            elif isinstance(s, (ast.Assign, ast.AnnAssign)):
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                first: Optional[Decl] = None
                for t in targets:
                    for n in target_names(t):
                        d = names.get(n.id)
                        if d is None:
                            kind = "variable" if cls is None else "field"
                            d = self.new(n, kind, kind, n.id, prefix + n.id)
                            d.end_line = s.end_lineno or s.lineno
                            names[n.id] = d
                            if first is None:
                                first = d
                        self.site((n.lineno, n.col_offset), d)
                if first is not None:
                    self.pf.stmt_decl[id(s)] = first

    def self_fields(self, node: ast.ClassDef, cls: Decl) -> None:
        """`self.x = …` in the class's instance methods, when the body does not declare x."""
        for s in nested_statements(node.body):
            if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            decos = [decorator_name(x) for x in s.decorator_list]
            if "staticmethod" in decos or "classmethod" in decos:
                continue
            args = s.args.posonlyargs + s.args.args
            if not args:
                continue
            me = args[0].arg
            for st in nested_statements(s.body):
                if isinstance(st, ast.Assign):
                    targets = st.targets
                elif isinstance(st, ast.AnnAssign):
                    targets = [st.target]
                else:
                    continue
                for t in targets:
                    for a in self_attrs(t, me):
                        pos = attr_pos(a)
                        d = cls.members.get(a.attr)
                        if d is None:
                            d = self.new(a, "field", "self_field", a.attr, cls.qn + "." + a.attr)
                            d.line, d.col = pos
                            cls.members[a.attr] = d
                            self.site(pos, d)
                        else:
                            # A later `self.x =`, or one of a member the body declares: a
                            # declaration for the checker (jedi answers with it), a use here.
                            self.site(pos, d, declaring=False)


def self_attrs(t: ast.expr, me: str) -> Iterator[ast.Attribute]:
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
        yield t
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from self_attrs(e, me)
    elif isinstance(t, ast.Starred):
        yield from self_attrs(t.value, me)


def attr_pos(a: ast.Attribute) -> tuple[int, int]:
    """The position of an attribute's name: its node ends with the name."""
    return a.end_lineno or a.lineno, (a.end_col_offset or 0) - len(a.attr.encode())


# ---------------------------------------------------------------------------------------------
# Occurrences: every name that may name a declaration, with its context


@dataclass
class Occ:
    line: int
    col: int  # UTF-8 bytes
    name: str
    usage: str  # call | type | value
    ctx: str  # import | base | annotation | call | argument | decorator | plain | store
    form: str
    frm: Optional[Decl]
    operand: Optional[ast.expr] = None


class OccCollector(ast.NodeVisitor):
    """Walks a module, yielding the occurrences of names with their syntactic context and the
    declaration enclosing them (SPEC §12.4)."""

    def __init__(self, pf: PyFile):
        self.pf = pf
        self.out: list[Occ] = []
        self.frm: Optional[Decl] = None
        self.ctx: list[str] = []  # innermost last
        self.func: list[ast.AST] = []  # enclosing functions (for operand descriptions)
        self.self_names: list[Optional[tuple[str, str]]] = []

    def run(self) -> list[Occ]:
        assert self.pf.tree is not None
        for s in self.pf.tree.body:
            self.visit(s)
        return self.out

    def with_ctx(self, ctx: str, node: Optional[ast.AST]) -> None:
        if node is None:
            return
        self.ctx.append(ctx)
        self.visit(node)
        self.ctx.pop()

    def cur_ctx(self) -> str:
        return self.ctx[-1] if self.ctx else "plain"

    def emit(self, line: int, col: int, name: str, ctx: str, form: str,
             operand: Optional[ast.expr] = None) -> None:
        usage = {"annotation": "type", "call": "call"}.get(ctx, "value")
        self.out.append(Occ(line, col, name, usage, ctx, form, self.frm, operand))

    # -- statements that change the enclosing declaration

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        d = self.pf.stmt_decl.get(id(node))
        saved = self.frm
        if d is not None and not self.func:
            self.frm = d
        for dec in node.decorator_list:
            if (isinstance(dec, ast.Attribute) and dec.attr in ("setter", "getter", "deleter")
                    and isinstance(dec.value, ast.Name) and dec.value.id == node.name):
                # `@p.setter` on `def p`: the property named by its own accessor's decorator.
                self.with_ctx("accessor", dec.value)
                continue
            self.with_ctx("decorator", dec)
        self.visit_arguments_of(node.args)
        self.with_ctx("annotation", node.returns)
        self.func.append(node)
        # The receiver name: the first parameter of a method (`self`, or `cls` of a class
        # method); a nested function or lambda sees its method's.
        me: Optional[tuple[str, str]] = self.self_names[-1] if self.self_names else None
        if d is not None and d.cls is not None:
            first = (node.args.posonlyargs + node.args.args)[:1]
            me = None
            if first and d.kind != "static_method":
                me = (first[0].arg, "cls" if d.detail == "class_method" else "self")
        self.self_names.append(me)
        for s in node.body:
            self.visit(s)
        self.self_names.pop()
        self.func.pop()
        self.frm = saved

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arguments_of(self, a: ast.arguments) -> None:
        for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.with_ctx("annotation", arg.annotation)
        for dflt in a.defaults + [x for x in a.kw_defaults if x is not None]:
            self.with_ctx("plain", dflt)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit_arguments_of(node.args)
        self.func.append(node)
        self.self_names.append(self.self_names[-1] if self.self_names else None)
        self.with_ctx("plain", node.body)
        self.self_names.pop()
        self.func.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        d = self.pf.stmt_decl.get(id(node))
        saved = self.frm
        if d is not None and not self.func:
            self.frm = d
        for dec in node.decorator_list:
            self.with_ctx("decorator", dec)
        for b in node.bases:
            self.with_ctx("base", b)
        for k in node.keywords:
            self.with_ctx("plain", k.value)
        saved_func = self.func
        saved_self = self.self_names
        # A class body is not a function: names of the enclosing function are not its scope,
        # but a class nested in a function is a local (no symbols inside).
        if d is None:
            for s in node.body:
                self.visit(s)
        else:
            self.func, self.self_names = [], []
            for s in node.body:
                self.visit(s)
            self.func, self.self_names = saved_func, saved_self
        self.frm = saved

    def visit_Assign(self, node: ast.Assign) -> None:
        d = self.pf.stmt_decl.get(id(node))
        saved = self.frm
        if d is not None and not self.func:
            self.frm = d
        for t in node.targets:
            self.with_ctx("store", t)
        self.with_ctx("plain", node.value)
        self.frm = saved

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        d = self.pf.stmt_decl.get(id(node))
        saved = self.frm
        if d is not None and not self.func:
            self.frm = d
        self.with_ctx("store", node.target)
        self.with_ctx("annotation", node.annotation)
        self.with_ctx("plain", node.value)
        self.frm = saved

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.with_ctx("store", node.target)
        self.with_ctx("plain", node.value)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        rel = " (relative)" if node.level else ""
        for a in node.names:
            if a.name == "*":
                continue
            self.emit(a.lineno, a.col_offset, a.name, "import", "import-from" + rel)

    def visit_Import(self, node: ast.Import) -> None:
        pass  # module names only: modules are not measured declarations

    # -- expressions

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            return
        ctx = self.cur_ctx()
        form = {
            "base": "base-class",
            "annotation": "annotation",
            "call": "call",
            "argument": "argument",
            "decorator": "decorator",
            "accessor": "property-accessor decorator",
        }.get(ctx, "identifier")
        self.emit(node.lineno, node.col_offset, node.id, ctx, form)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        ctx = self.cur_ctx()
        if isinstance(node.ctx, ast.Store) and ctx != "store":
            ctx = "store"
        line, col = attr_pos(node)
        # The operand is a plain value (a base class `mod.Base`: `mod` is a qualifier; a type
        # `m.T` in an annotation: `m` stays in the annotation).
        inner = "annotation" if ctx == "annotation" else "plain"
        self.with_ctx(inner, node.value)
        op = self.describe_operand(node.value)
        suffix = {
            "base": " (base-class)",
            "annotation": " (annotation)",
            "call": " (call)",
            "argument": " (argument)",
            "decorator": " (decorator)",
            "store": " (store)",
        }.get(ctx, "")
        self.emit(line, col, node.attr, ctx, f"attribute on {op}{suffix}", node.value)

    def visit_Call(self, node: ast.Call) -> None:
        in_ann = self.cur_ctx() == "annotation"
        self.with_ctx("annotation" if in_ann else "call", node.func)
        arg_ctx = "annotation" if in_ann else "argument"
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.with_ctx("plain", a.value)
            elif isinstance(a, (ast.Name, ast.Attribute)):
                self.with_ctx(arg_ctx, a)
            else:
                self.with_ctx("annotation" if in_ann else "plain", a)
        for k in node.keywords:
            if isinstance(k.value, (ast.Name, ast.Attribute)):
                self.with_ctx(arg_ctx, k.value)
            else:
                self.with_ctx("annotation" if in_ann else "plain", k.value)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        ctx = self.cur_ctx()
        if ctx == "annotation":
            self.generic_visit(node)
            return
        if ctx == "base":
            # `class C(Base[T])`: the base is `Base`, its arguments are types.
            self.with_ctx("base", node.value)
            self.with_ctx("annotation", node.slice)
            return
        if ctx == "store":
            self.with_ctx("plain", node.value)
            self.with_ctx("plain", node.slice)
            return
        self.with_ctx("plain", node.value)
        self.with_ctx("plain", node.slice)

    def visit_Starred(self, node: ast.Starred) -> None:
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self.with_ctx("plain", node.value)

    def generic_visit(self, node: ast.AST) -> None:
        # Statements that declare (module/class-level targets) set the enclosing decl.
        if isinstance(node, ast.stmt) and id(node) in self.pf.stmt_decl:
            d = self.pf.stmt_decl[id(node)]
            saved = self.frm
            if not self.func:
                self.frm = d
            super().generic_visit(node)
            self.frm = saved
            return
        # Inside a store target only the target's own names are stores; subscripts and
        # attribute operands are loads (handled above).
        if isinstance(node, ast.expr) and self.cur_ctx() not in ("plain", "store", "annotation"):
            # A compound expression as callee / base / argument / decorator: its parts are
            # plain values, except a call (handled by visit_Call).
            if not isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                self.ctx.append("plain")
                super().generic_visit(node)
                self.ctx.pop()
                return
        super().generic_visit(node)

    # -- operand descriptions (the `form` of an attribute use)

    def describe_operand(self, e: ast.expr) -> str:
        if isinstance(e, ast.Name):
            me = self.self_names[-1] if self.self_names else None
            if me is not None and e.id == me[0]:
                return me[1]
            if self.func:
                f = self.func[-1]
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    a = f.args
                    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                        if arg is not None and arg.arg == e.id:
                            return "parameter (annotated)" if arg.annotation else \
                                "parameter (no annotation)"
                    how = local_binding(f, e.id)
                    if how:
                        return f"variable ({how})"
            return "name"
        if isinstance(e, ast.Call):
            if isinstance(e.func, ast.Name) and e.func.id == "super":
                return "super()"
            return "call result"
        if isinstance(e, ast.Attribute):
            me = self.self_names[-1] if self.self_names else None
            if isinstance(e.value, ast.Name) and me is not None and e.value.id == me[0]:
                return f"{me[1]} attribute"
            return "attribute chain"
        if isinstance(e, ast.Subscript):
            return "subscript"
        if isinstance(e, ast.Constant):
            return "literal"
        return "expression"


def local_binding(f: ast.AST, name: str) -> Optional[str]:
    """How a local of a function is bound (first binding in source order)."""
    body = f.body if isinstance(f.body, list) else []
    for s in nested_statements(body):
        if isinstance(s, ast.Assign):
            for t in s.targets:
                if any(n.id == name for n in target_names(t)):
                    v = s.value
                    if isinstance(v, ast.Call):
                        return "= call"
                    if isinstance(v, (ast.Name, ast.Attribute)):
                        return "= name"
                    return "= other"
        elif isinstance(s, ast.AnnAssign):
            if isinstance(s.target, ast.Name) and s.target.id == name:
                return "annotated"
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            if any(n.id == name for n in target_names(s.target)):
                return "for"
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for it in s.items:
                if it.optional_vars is not None and any(
                    n.id == name for n in target_names(it.optional_vars)
                ):
                    return "with"
        elif isinstance(s, ast.Try):
            for h in s.handlers:
                if h.name == name:
                    return "except"
    return None


# ---------------------------------------------------------------------------------------------
# Checkers: where is the name at (file, line, byte col) declared?


def char_col(line: bytes, byte_col: int) -> int:
    return len(line[:byte_col].decode("utf-8", "replace"))


def utf16_col(line: bytes, byte_col: int) -> int:
    return len(line[:byte_col].decode("utf-8", "replace").encode("utf-16-le")) // 2


def byte_col_from_utf16(line: bytes, col16: int) -> int:
    s = line.decode("utf-8", "replace")
    units = 0
    for i, ch in enumerate(s):
        if units >= col16:
            return len(s[:i].encode("utf-8"))
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def byte_col_from_chars(line: bytes, chars: int) -> int:
    return len(line.decode("utf-8", "replace")[:chars].encode("utf-8"))


Location = tuple[str, int, int]  # absolute path, 1-based line, 0-based column in checker units


class Pyright:
    """pyright's language server over stdio: `textDocument/definition` at each occurrence."""

    def __init__(self, roots: list[Root], files: list[PyFile]):
        pdir = Path(os.environ.get("PYRIGHT_DIR") or HERE / "node_modules" / "pyright")
        server = pdir / "langserver.index.js"
        if not server.is_file():
            sys.exit(f"oracle: no pyright at {pdir} (run `npm ci` in {HERE} or set PYRIGHT_DIR)")
        self.version = json.loads((pdir / "package.json").read_text())["version"]
        self.name = f"pyright {self.version}"
        self.workspace = Path(tempfile.mkdtemp(prefix="kivgraph-py-oracle-"))
        # Imports resolve from each repository's module roots first, then every other root.
        # (pyright reads relative paths only, relative to the configuration file.)
        def rel(p: Path) -> str:
            return os.path.relpath(p, self.workspace)

        envs = []
        all_roots = [rel(r.dir / m) for r in roots for m in r.module_roots]
        for r in roots:
            own = [rel(r.dir / m) for m in reversed(r.module_roots)]
            envs.append({
                "root": rel(r.dir),
                "extraPaths": own + [p for p in all_roots if p not in own],
                "pythonVersion": "3.11",
            })
        config = {
            "executionEnvironments": envs,
            "typeCheckingMode": "off",
            "useLibraryCodeForTypes": True,
            "pythonVersion": "3.11",
            "pythonPlatform": "All",  # both sides of `sys.platform` tests are reachable
            "reportMissingModuleSource": False,
        }
        (self.workspace / "pyrightconfig.json").write_text(json.dumps(config, indent=1))
        self.proc = subprocess.Popen(
            ["node", "--max-old-space-size=8192", str(server), "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.workspace,
        )
        self.next_id = 0
        self.lock = threading.Lock()
        self.responses: dict[int, Any] = {}
        self.cond = threading.Condition(self.lock)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        uri = self.uri(self.workspace)
        self.request("initialize", {
            "processId": os.getpid(),
            "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": "oracle"}],
            "capabilities": {
                "textDocument": {"definition": {"linkSupport": False}},
                "workspace": {"configuration": True, "workspaceFolders": True},
            },
            "initializationOptions": {},
        })
        self.notify("initialized", {})
        self.opened: set[str] = set()

    @staticmethod
    def uri(p: Path) -> str:
        return "file://" + quote(str(p))

    @staticmethod
    def path(uri: str) -> str:
        return unquote(urlparse(uri).path)

    def _send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    with self.cond:
                        self.responses[-1] = None
                        self.cond.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            msg = json.loads(body)
            if "method" in msg and "id" in msg:
                self._server_request(msg)
            elif "id" in msg:
                with self.cond:
                    self.responses[msg["id"]] = msg
                    self.cond.notify_all()

    def _server_request(self, msg: dict) -> None:
        result: Any = None
        if msg["method"] == "workspace/configuration":
            result = []
            for item in msg["params"].get("items", []):
                sec = item.get("section")
                if sec == "python.analysis":
                    result.append({"diagnosticMode": "openFilesOnly",
                                   "typeCheckingMode": "off",
                                   "autoSearchPaths": False,
                                   "useLibraryCodeForTypes": True})
                elif sec == "python":
                    result.append({"pythonPath": sys.executable})
                else:
                    result.append({})
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def send_request(self, method: str, params: dict) -> int:
        with self.lock:
            self.next_id += 1
            i = self.next_id
        self._send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return i

    def wait(self, i: int) -> Any:
        with self.cond:
            while i not in self.responses and -1 not in self.responses:
                self.cond.wait()
            msg = self.responses.pop(i, None)
        if msg is None:
            sys.exit("oracle: pyright exited")
        if "error" in msg:
            return None
        return msg.get("result")

    def request(self, method: str, params: dict) -> Any:
        return self.wait(self.send_request(method, params))

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def definitions(self, pf: PyFile, occs: list[Occ]) -> list[list[Location]]:
        uri = self.uri(pf.abs)
        text = pf.data.decode("utf-8", "replace")
        # Files stay open: closing one makes pyright drop what it inferred from it, and
        # unopened files get no answers.
        if uri not in self.opened:
            self.opened.add(uri)
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": text}})
        out: list[list[Location]] = []
        window = 256
        ids: list[int] = []
        done = 0

        def drain(upto: int) -> None:
            nonlocal done
            while done < upto:
                res = self.wait(ids[done])
                locs: list[Location] = []
                for loc in res or []:
                    u = loc.get("targetUri") or loc.get("uri")
                    r = loc.get("targetSelectionRange") or loc.get("range")
                    if u and r:
                        locs.append((self.path(u), r["start"]["line"] + 1,
                                     r["start"]["character"]))
                out.append(locs)
                done += 1

        for o in occs:
            line = pf.lines[o.line - 1]
            ids.append(self.send_request("textDocument/definition", {
                "textDocument": {"uri": uri},
                "position": {"line": o.line - 1, "character": utf16_col(line, o.col)},
            }))
            if len(ids) - done >= window:
                drain(len(ids) - window // 2)
        drain(len(ids))
        return out

    def to_byte_col(self, line: bytes, col: int) -> int:
        return byte_col_from_utf16(line, col)

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        shutil.rmtree(self.workspace, ignore_errors=True)


class Jedi:
    """jedi's `Script.goto(follow_imports=True)` at each occurrence."""

    def __init__(self, roots: list[Root], files: list[PyFile]):
        import jedi

        self.jedi = jedi
        self.name = f"jedi {jedi.__version__}"
        paths = []
        for r in roots:
            for m in reversed(r.module_roots):
                paths.append(str(r.dir / m) if m else str(r.dir))
        self.workspace = Path(tempfile.mkdtemp(prefix="kivgraph-py-oracle-"))
        self.project = jedi.Project(self.workspace, added_sys_path=paths, smart_sys_path=False,
                                    load_unsafe_extensions=False)

    def definitions(self, pf: PyFile, occs: list[Occ]) -> list[list[Location]]:
        text = pf.data.decode("utf-8", "replace")
        script = self.jedi.Script(text, path=str(pf.abs), project=self.project)
        out: list[list[Location]] = []
        for o in occs:
            line = pf.lines[o.line - 1]
            try:
                names = script.goto(o.line, char_col(line, o.col), follow_imports=True)
            except Exception:
                names = []
            locs: list[Location] = []
            for n in names:
                if n.module_path is not None and n.line is not None:
                    locs.append((str(n.module_path), n.line, n.column))
            out.append(locs)
        return out

    def to_byte_col(self, line: bytes, col: int) -> int:
        return byte_col_from_chars(line, col)

    def close(self) -> None:
        shutil.rmtree(self.workspace, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The oracle


EDGE_OF_CTX = {
    "import": "IMPORTS_SYMBOL",
    "base": "EXTENDS",
    "annotation": "TYPE_USES",
    "call": "CALLS_DIRECT",
}
CALLABLE_KINDS = {"function", "method", "static_method"}


def edge_kind(o: Occ, target: Decl) -> str:
    if o.ctx in EDGE_OF_CTX:
        return EDGE_OF_CTX[o.ctx]
    if o.ctx == "argument" and target.kind in CALLABLE_KINDS:
        return "PASSES_AS_CALLBACK"
    return "REFERENCES"


def mro(c: Decl, bases_of: dict[int, Optional[list[Decl]]]) -> Optional[list[Decl]]:
    """C3 linearisation over measured classes; None when a base does not resolve."""
    memo: dict[int, Optional[list[Decl]]] = {}

    def lin(k: Decl, depth: int) -> Optional[list[Decl]]:
        if id(k) in memo:
            return memo[id(k)]
        if depth > 50:
            return None
        memo[id(k)] = None  # cycles
        bs = bases_of.get(id(k))
        if bs is None:
            return None
        seqs = []
        for b in bs:
            lb = lin(b, depth + 1)
            if lb is None:
                return None
            seqs.append(list(lb))
        seqs.append(list(bs))
        result = [k]
        while True:
            seqs = [s for s in seqs if s]
            if not seqs:
                break
            for s in seqs:
                head = s[0]
                if not any(head in t[1:] for t in seqs):
                    break
            else:
                return None  # inconsistent hierarchy
            result.append(head)
            for s in seqs:
                if s and s[0] is head:
                    s.pop(0)
        memo[id(k)] = result
        return result

    return lin(c, 0)


def main(argv: list[str]) -> int:
    out_path: Optional[str] = None
    roots: list[Root] = []
    checker = "pyright"
    it = iter(argv)
    for a in it:
        if a in ("-o", "--o"):
            out_path = next(it, None)
        elif a in ("-repo", "--repo"):
            v = next(it, "")
            name, eq, d = v.partition("=")
            if not eq or not name:
                sys.exit(f"oracle: -repo {v}: not NAME=DIR")
            p = Path(d).resolve()
            if not p.is_dir():
                sys.exit(f"oracle: {p}: not a directory")
            roots.append(Root(name, p))
        elif a.startswith("-checker=") or a.startswith("--checker="):
            checker = a.split("=", 1)[1]
        elif a in ("-checker", "--checker"):
            checker = next(it, "")
        else:
            sys.exit(f"oracle: unknown argument {a}\nusage: oracle.py -o OUT.jsonl "
                     "-repo NAME=DIR [-repo NAME=DIR ...] [-checker pyright|jedi]")
    if not out_path or not roots:
        sys.exit("usage: oracle.py -o OUT.jsonl -repo NAME=DIR [-repo NAME=DIR ...] "
                 "[-checker pyright|jedi]")

    # ---- files and declarations
    files: list[PyFile] = []
    by_path: dict[str, PyFile] = {}
    for r in roots:
        r.module_roots = module_roots(r)
        rel_files = [str(p.relative_to(r.dir)).replace(os.sep, "/") for p in walk_root(r)]
        py_beside = {f for f in rel_files if f.endswith(".py")}
        for rel in rel_files:
            abs_ = r.dir / rel
            data = abs_.read_bytes()
            module = dotted_name(rel, r.module_roots)
            pkg = module + ".pyi" if rel.endswith(".pyi") and rel[:-1] in py_beside else module
            pf = PyFile(r, rel, abs_, module, pkg, data)
            pf.lines = data.split(b"\n")
            try:
                pf.tree = ast.parse(data, filename=rel, type_comments=False)
            except (SyntaxError, ValueError) as e:
                pf.error = f"{r.name}:{rel}:{getattr(e, 'lineno', 0)}: {e}"
            if pf.tree is not None:
                DeclCollector(pf).collect()
            files.append(pf)
            by_path[str(abs_)] = pf
            by_path[os.path.realpath(abs_)] = pf
    ndecl = sum(len(f.decls) for f in files)
    log(f"{len(files)} files in {len(roots)} roots, {ndecl} declarations; module roots: "
        + ", ".join(f"{r.name}: {r.module_roots}" for r in roots))

    # ---- uses: only names that can name a declaration are asked (a declaration's name, or an
    # alias `from m import x as y` binds); that is lossless and saves most of the time.
    askable = {d.name for f in files for d in f.decls}
    for f in files:
        if f.tree is not None:
            for n in ast.walk(f.tree):
                if isinstance(n, ast.ImportFrom):
                    askable.update(a.asname for a in n.names if a.asname)
    backend: Any = Pyright(roots, files) if checker == "pyright" else Jedi(roots, files)
    uses: list[tuple[PyFile, Occ, list[Decl]]] = []
    # (repo, file, line, col) of a base class name -> (measured targets, resolved at all)
    base_at: dict[tuple[str, str, int, int], tuple[list[Decl], bool]] = {}
    t0 = time.monotonic()
    nocc = 0
    bad_pos = 0
    for i, pf in enumerate(files):
        if pf.tree is None:
            continue
        occs = []
        for o in OccCollector(pf).run():
            if (o.line, o.col) in pf.declaring or o.name not in askable:
                continue
            ln = pf.lines[o.line - 1] if o.line - 1 < len(pf.lines) else b""
            if ln[o.col:o.col + len(o.name.encode())] != o.name.encode():
                bad_pos += 1  # positions Python 3.11 reports wrongly (nested f-strings)
                continue
            occs.append(o)
        nocc += len(occs)
        results = backend.definitions(pf, occs)
        for o, locs in zip(occs, results):
            targets: list[Decl] = []
            for path, line, col in locs:
                tf = by_path.get(path) or by_path.get(os.path.realpath(path))
                if tf is None or line - 1 >= len(tf.lines):
                    continue
                bcol = backend.to_byte_col(tf.lines[line - 1], col)
                d = tf.sites.get((line, bcol))
                if d is None:
                    # The checker may point at another part of the declaring statement.
                    cands = [x for (ln_, _), x in tf.sites.items() if ln_ == line
                             and x.name == o.name]
                    d = cands[0] if len(cands) == 1 else None
                if d is not None and d not in targets:
                    targets.append(d)
            if targets:
                uses.append((pf, o, targets))
            if o.ctx == "base":
                base_at[(pf.root.name, pf.rel, o.line, o.col)] = (targets, bool(locs))
        if (i + 1) % 25 == 0:
            log(f"{i + 1}/{len(files)} files, {nocc} names asked")
    backend.close()
    log(f"{nocc} names asked in {time.monotonic() - t0:.1f} s ({bad_pos} skipped: "
        "misreported positions); writing")

    # ---- base classes and overrides: the MRO of every class over resolved bases
    class_decls = [d for f in files for d in f.decls if d.kind == "class"]
    bases_of: dict[int, Optional[list[Decl]]] = {}
    for c in class_decls:
        bs: Optional[list[Decl]] = []
        for b in c.bases:
            e = b.value if isinstance(b, ast.Subscript) else b
            if isinstance(e, ast.Name):
                pos = (e.lineno, e.col_offset)
            elif isinstance(e, ast.Attribute):
                pos = attr_pos(e)
            else:
                bs = None
                break
            targets, resolved = base_at.get((c.repo, c.file, *pos), ([], False))
            t = [x for x in targets if x.kind == "class"]
            if len(t) == 1:
                bs.append(t[0])
            elif not targets and resolved:
                continue  # a class outside the corpus (builtins, the standard library): a leaf
            else:
                bs = None
                break
        bases_of[id(c)] = bs
    for c in class_decls:
        lin = mro(c, bases_of)
        if lin is None:
            continue
        for name, m in c.members.items():
            if m.kind not in CALLABLE_KINDS | {"property"}:
                continue
            for k in lin[1:]:
                other = k.members.get(name)
                if other is not None:
                    if other.kind in CALLABLE_KINDS | {"property"}:
                        m.overrides = other
                    break

    # ---- output
    with open(out_path, "w", encoding="utf-8") as out:
        def w(rec: dict) -> None:
            out.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")

        w({"t": "oracle", "language": "python", "checker": backend.name})
        for pf in files:
            w({"t": "package", "repo": pf.root.name, "dir": os.path.dirname(pf.rel),
               "pkg": pf.pkg, "files": 1, "errors": 1 if pf.error else 0,
               "error_sample": [pf.error] if pf.error else []})
            nlines = pf.data.count(b"\n") + (1 if pf.data and not pf.data.endswith(b"\n") else 0)
            w({"t": "file", "repo": pf.root.name, "file": pf.rel, "pkg": pf.pkg,
               "lines": nlines, "sha256": hashlib.sha256(pf.data).hexdigest()})
            for d in pf.decls:
                rec: dict[str, Any] = {
                    "t": "decl", "repo": d.repo, "pkg": d.pkg, "file": d.file, "line": d.line,
                    "col": d.col, "end_line": d.end_line, "kind": d.kind, "detail": d.detail,
                    "name": d.name, "qn": d.qn,
                }
                if d.cls is not None and d.kind in CALLABLE_KINDS | {"property"}:
                    rec["method_of"] = d.cls.target(with_repo=False)
                if d.overrides is not None:
                    rec["overrides"] = d.overrides.target()
                w(rec)
        for pf, o, targets in uses:
            for t in targets:
                frm = o.frm
                w({
                    "t": "use", "repo": pf.root.name, "file": pf.rel, "line": o.line,
                    "col": o.col, "name": o.name, "pkg": t.pkg, "target_repo": t.repo,
                    "qn": t.qn, "kind": t.kind, "detail": t.detail, "use": o.usage,
                    "form": o.form + ("+multiple" if len(targets) > 1 else ""),
                    "edge": edge_kind(o, t),
                    "from_kind": frm.kind if frm else "module",
                    "from_qn": frm.qn if frm else pf.pkg,
                    "from_line": frm.line if frm else 1,
                })
    log(f"wrote {out_path}: {len(files)} files, {ndecl} declarations, "
        f"{sum(len(t) for _, _, t in uses)} uses")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
