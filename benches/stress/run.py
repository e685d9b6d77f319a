#!/usr/bin/env python3
"""Does any construct make a compile grow faster than its input?

Generates, for each pattern below, one repository at a small and at a large size (default 1,000
and 4,000 constructs), compiles each from nothing with `kivgraph-compile --no-cache --rust-sysroot
off`, and prints the time of each compile's phases, the rows it wrote and how much the total
grew. An input four times larger should cost about four times as much; a pattern whose time grows
with the square of its size shows a ratio near sixteen. Nothing is asserted: the figures mean
something only next to the machine and the build they were measured on.

Usage: benches/stress/run.py [--bin PATH] [--small N] [--large N] [--only NAME,...] [--work DIR]
(`--bin` defaults to target/release/kivgraph-compile; build it in release first).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def write(root, path, text):
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


GO_MOD = ("go.mod", "module m\n\ngo 1.19\n")
CARGO = ("Cargo.toml", '[package]\nname = "s"\nversion = "0.1.0"\nedition = "2021"\n')
PUBSPEC = ("pubspec.yaml", "name: s\n")


def go_implements(n):
    """Types that each satisfy every interface (IMPLEMENTS edges grow with the square)."""
    lines = ["package p"]
    for i in range(n):
        lines.append(f"type I{i} interface {{ M{i % 50}() }}")
        lines.append(f"type T{i} struct {{ T{i - 1} }}" if i else "type T0 struct{}")
        lines.append(f"func (T{i}) M{i % 50}() {{}}")
    return {"p/p.go": "\n".join(lines) + "\n", GO_MOD[0]: GO_MOD[1]}


def go_methods(n):
    """One type and one interface of n methods, each method calling the next."""
    lines = ["package p", "type A struct{}"]
    lines += [f"func (a A) M{i}() {{ a.M{(i + 1) % n}() }}" for i in range(n)]
    lines.append("type I interface {" + "; ".join(f"M{i}()" for i in range(n)) + "}")
    lines.append("var _ I = A{}")
    return {"p/p.go": "\n".join(lines) + "\n", GO_MOD[0]: GO_MOD[1]}


def go_chain(n):
    """A chain of packages, each importing and calling the previous."""
    files = {GO_MOD[0]: GO_MOD[1]}
    for i in range(n):
        imp = f'import "m/p{i - 1}"\n' if i else ""
        body = f"return p{i - 1}.F() + 1" if i else "return 0"
        files[f"p{i}/p.go"] = f"package p{i}\n{imp}func F() int {{ {body} }}\n"
    return files


def go_embeds(n):
    """An interface embedding n interfaces and a struct embedding n structs, each member used."""
    lines = ["package p"]
    lines += [f"type I{i} interface{{ M{i}() }}\ntype S{i} struct{{ F{i} int }}" for i in range(n)]
    lines.append("type All interface {" + "; ".join(f"I{i}" for i in range(n)) + "}")
    lines.append("type Big struct {" + "; ".join(f"S{i}" for i in range(n)) + "}")
    lines.append("func Use(a All, b Big) int {")
    lines += [f"\ta.M{i}()\n\t_ = b.F{i}" for i in range(n)]
    lines.append("\treturn 0\n}")
    return {"p/p.go": "\n".join(lines) + "\n", GO_MOD[0]: GO_MOD[1]}


def py_inheritance(n):
    """A chain of classes, each method calling one inherited from the root."""
    lines = ["class C0:\n    def m(self):\n        return 0"]
    lines += [f"class C{i}(C{i - 1}):\n    def m{i}(self):\n        return self.m()" for i in range(1, n)]
    return {"pkg/__init__.py": "", "pkg/big.py": "\n".join(lines) + "\n"}


def py_star_cycle(n):
    """Modules star-importing each other in a cycle, each calling a name of the next."""
    files = {"pkg/__init__.py": ""}
    for i in range(n):
        files[f"pkg/m{i}.py"] = (
            f"from .m{(i + 1) % n} import *\ndef f{i}():\n    return f{(i + 1) % n}()\n"
        )
    return files


def py_isinstance(n):
    """One function of n isinstance narrowings."""
    lines = ["class A:\n    def m(self): pass", "class B:\n    def n(self): pass", "def f(x, y):"]
    for _ in range(n):
        lines.append("    if isinstance(x, A):\n        x.m()\n    else:\n        y = B()\n        y.n()")
    return {"pkg/__init__.py": "", "pkg/big.py": "\n".join(lines) + "\n"}


def ts_narrowing(n):
    """One function of n discriminant and n instanceof narrowings."""
    lines = [
        "type S = {kind: 'a', a: number} | {kind: 'b', b: string};",
        "export function f(s: S, t: S): number {",
        "  let n = 0;",
    ]
    for _ in range(n):
        lines.append("  if (s.kind === 'a') { n += s.a; } else { n += s.b.length; }")
        lines.append("  if (t instanceof Object) { n += 1; }")
    lines.append("  return n;\n}")
    return {"src/big.ts": "\n".join(lines) + "\n"}


def ts_union(n):
    """A union of n members and a switch with a case per member."""
    lines = [f"interface K{i} {{ kind: 'k{i}'; f{i}: number; }}" for i in range(n)]
    lines.append("type U = " + " | ".join(f"K{i}" for i in range(n)) + ";")
    lines.append("export function f(u: U): number {\n  switch (u.kind) {")
    lines += [f"    case 'k{i}': return u.f{i};" for i in range(n)]
    lines.append("  }\n  return 0;\n}")
    return {"src/u.ts": "\n".join(lines) + "\n"}


def ts_namespace(n):
    """One namespace merged from n blocks, each function calling the previous block's."""
    lines = [
        f"export namespace NS {{ export function f{i}() {{ return {'NS.f%d()' % (i - 1) if i else '0'}; }} }}"
        for i in range(n)
    ]
    return {"src/n.ts": "\n".join(lines) + "\n"}


def ts_reexport_cycle(n):
    """Modules re-exporting each other (`export *`) in a cycle."""
    files = {}
    for i in range(n):
        files[f"src/m{i}.ts"] = (
            f"export * from './m{(i + 1) % n}';\n"
            f"import {{ f{(i + 2) % n} }} from './m{(i + 1) % n}';\n"
            f"export function f{i}() {{ return f{(i + 2) % n}(); }}\n"
        )
    return files


def rs_impl_blocks(n):
    """n inherent impl blocks of one type, each method calling the previous."""
    lines = ["pub struct A;"]
    lines += [f"impl A {{ pub fn m{i}(&self) {{ {'self.m%d();' % (i - 1) if i else ''} }} }}" for i in range(n)]
    return {"src/lib.rs": "\n".join(lines) + "\n", CARGO[0]: CARGO[1]}


def rs_glob_cycle(n):
    """Modules glob-importing each other in a cycle."""
    lines = [
        f"pub mod a{i} {{ pub use super::a{(i + 1) % n}::*; pub fn f{i}() {{ f{(i + 1) % n}(); }} }}"
        for i in range(n)
    ]
    return {"src/lib.rs": "\n".join(lines) + "\n", CARGO[0]: CARGO[1]}


def rs_trait_impls(n):
    """A trait with n impls, called through `dyn`."""
    lines = ["pub trait T { fn m(&self); }"]
    lines += [f"pub struct S{i}; impl T for S{i} {{ fn m(&self) {{}} }}" for i in range(n)]
    lines.append("pub fn call(x: &dyn T) { x.m(); }")
    lines += [f"pub fn h{i}() {{ call(&S{i}); }}" for i in range(n)]
    return {"src/lib.rs": "\n".join(lines) + "\n", CARGO[0]: CARGO[1]}


def dart_parts(n):
    """A library of n part files, each function calling the previous part's."""
    files = {"lib/big.dart": "library big;\n" + "".join(f"part 'p{i}.dart';\n" for i in range(n))}
    for i in range(n):
        files[f"lib/p{i}.dart"] = f"part of big;\nint f{i}() => {'f%d() + 1' % (i - 1) if i else '0'};\n"
    files[PUBSPEC[0]] = PUBSPEC[1]
    return files


def dart_extensions(n):
    """n extensions on one class, each method called."""
    lines = ["class A {}"] + [f"extension E{i} on A {{ void m{i}() {{}} }}" for i in range(n)]
    lines += ["void f(A a) {"] + [f"  a.m{i}();" for i in range(n)] + ["}"]
    return {"lib/x.dart": "\n".join(lines) + "\n", PUBSPEC[0]: PUBSPEC[1]}


PATTERNS = [
    go_implements,
    go_methods,
    go_chain,
    go_embeds,
    py_inheritance,
    py_star_cycle,
    py_isinstance,
    ts_narrowing,
    ts_union,
    ts_namespace,
    ts_reexport_cycle,
    rs_impl_blocks,
    rs_glob_cycle,
    rs_trait_impls,
    dart_parts,
    dart_extensions,
]


def compile_once(binary, repo, index):
    shutil.rmtree(index, ignore_errors=True)
    start = time.monotonic()
    out = subprocess.run(
        [binary, "--out", index, "--json", "--no-cache", "--rust-sysroot", "off", f"s={repo}"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    wall = time.monotonic() - start
    if out.returncode != 0:
        return None, wall, out.stderr.strip().splitlines()[-1:]
    return json.loads(out.stdout), wall, []


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ws = os.path.dirname(os.path.dirname(here))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ws, "target"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(target, "release", "kivgraph-compile"))
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--large", type=int, default=4000)
    ap.add_argument("--only", default="")
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"{args.bin} does not exist: cargo build --release -p kivgraph-compile")
    only = {s for s in args.only.split(",") if s}
    work = args.work or tempfile.mkdtemp(prefix="kivgraph-stress-")
    print(f"compiler: {args.bin}\nsizes: {args.small} and {args.large} constructs\n")
    print(f"{'pattern':<20} {'size':>6} {'extract':>8} {'link':>8} {'total ms':>9} {'edges':>8} {'unres.':>7} {'growth':>7}")
    for make in PATTERNS:
        name = make.__name__
        if only and name not in only:
            continue
        totals = []
        for n in (args.small, args.large):
            repo = os.path.join(work, f"{name}-{n}")
            shutil.rmtree(repo, ignore_errors=True)
            for path, text in make(n).items():
                write(repo, path, text)
            summary, wall, err = compile_once(args.bin, repo, os.path.join(work, "index"))
            if summary is None:
                print(f"{name:<20} {n:>6} failed after {wall:.1f} s: {' '.join(err)}")
                totals.append(None)
                continue
            e, rows = summary["elapsed_ms"], summary["rows"]
            totals.append(e["total"])
            growth = ""
            if len(totals) == 2 and totals[0]:
                growth = f"{totals[1] / totals[0]:.1f}x"
            print(
                f"{name:<20} {n:>6} {e['extract']:>8} {e['link']:>8} {e['total']:>9} "
                f"{rows['edges']:>8} {rows['unresolved']:>7} {growth:>7}"
            )
    print(f"\ninput growth {args.large / args.small:.1f}x; sources kept in {work}")


if __name__ == "__main__":
    main()
