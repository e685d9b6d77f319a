#!/usr/bin/env node
// Turns an unpacked npm package into a corpus repository of its sources (run.sh calls it):
//
//   node prepare.mjs DIR KEEP...
//
// DIR is the unpacked `package/` directory. KEEP are the paths that hold the package's sources:
// a directory (kept recursively) or `*.EXT` (the top-level files with that extension);
// `package.json` and a top-level `tsconfig.json`/`jsconfig.json` are always kept. Then:
//
// - everything else is removed (compiled `dist/`/`build/` outputs, nested stub manifests,
//   READMEs, maps), and inside the kept paths everything that is not a source file: tests
//   (`__tests__`, `tests`, `test`, `__mocks__`, `__testfixtures__`, `benchmarks` directories and
//   `*.test.*`, `*.spec.*`, `*.test-d.*`, `*.bench.*` files), and a `.d.ts`/`.d.mts`/`.d.cts`
//   whose source sibling (`x.js`, `x.ts`, …) is kept (hand-written types of a JavaScript file
//   would otherwise shadow it);
// - package.json's entry points are pointed at the sources, since the compiled files they name
//   are gone: every `exports` subpath becomes the source file one of its targets was built from
//   (`./dist/esm/ssr/server.d.ts` -> `./src/ssr/server.ts`), `types` and `main` become the `.`
//   entry; subpaths with no source, and `*` patterns, are dropped. Name and dependencies stay.
//
// Prints "TS_LINES JS_LINES FILES" of what is left.

import fs from "node:fs";
import path from "node:path";

const [dir, ...keep] = process.argv.slice(2);
if (!dir || keep.length === 0) {
  process.stderr.write("usage: node prepare.mjs DIR KEEP...\n");
  process.exit(2);
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const DECL = /\.d\.(ts|mts|cts)$/;
const TEST_DIRS = new Set(["__tests__", "tests", "test", "__mocks__", "__testfixtures__", "benchmarks", "node_modules"]);
const TEST_FILE = /\.(test|spec|test-d|bench)\.[cm]?[jt]sx?$/;

const rel = (p) => path.relative(dir, p).split(path.sep).join("/");
const keptFiles = new Set();

function keepTree(abs) {
  for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
    const p = path.join(abs, e.name);
    if (e.isDirectory()) {
      if (TEST_DIRS.has(e.name) || e.name.startsWith(".")) continue;
      keepTree(p);
    } else if (e.isFile() && SOURCE.test(e.name) && !TEST_FILE.test(e.name)) {
      keptFiles.add(rel(p));
    }
  }
}

for (const k of keep) {
  if (k.startsWith("*.")) {
    const ext = k.slice(1);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isFile() && e.name.endsWith(ext) && !TEST_FILE.test(e.name)) keptFiles.add(e.name);
    }
  } else {
    const abs = path.join(dir, k);
    if (!fs.existsSync(abs)) {
      process.stderr.write(`prepare: ${k} does not exist in ${dir}\n`);
      process.exit(1);
    }
    keepTree(abs);
  }
}
// A declaration file whose source sibling is kept describes that source: drop it.
for (const f of [...keptFiles]) {
  const m = f.match(DECL);
  if (!m) continue;
  const stem = f.slice(0, -m[0].length);
  if ([".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"].some((e) => keptFiles.has(stem + e))) {
    keptFiles.delete(f);
  }
}
const always = new Set(["package.json", "tsconfig.json", "jsconfig.json"]);

function prune(abs) {
  let empty = true;
  for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
    const p = path.join(abs, e.name);
    const r = rel(p);
    if (e.isDirectory()) {
      if (prune(p)) fs.rmdirSync(p);
      else empty = false;
    } else if (keptFiles.has(r) || (always.has(r) && !r.includes("/"))) {
      empty = false;
    } else {
      fs.rmSync(p);
    }
  }
  return empty;
}
prune(dir);

// ---- package.json ----
const pjPath = path.join(dir, "package.json");
const pj = JSON.parse(fs.readFileSync(pjPath, "utf8"));

function targets(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) targets(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) targets(x, out);
  return out;
}

const EXT = /(\.d)?\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
function toSource(t) {
  const norm = t.replace(/^\.\//, "");
  if (keptFiles.has(norm)) return norm;
  const segs = norm.replace(EXT, "").split("/");
  for (let i = 0; i < segs.length; i++) {
    const rest = segs.slice(i).join("/");
    for (const base of ["src/", ""]) {
      for (const suffix of [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js", "/index.mjs"]) {
        const cand = base + rest + suffix;
        if (keptFiles.has(cand)) return cand;
      }
    }
  }
  return null;
}

const out = { name: pj.name, version: pj.version };
out["kivgraph-corpus"] = "compiled outputs and tests removed; entry points rewritten to the sources";
let entry = null;
if (pj.exports !== undefined) {
  const map =
    typeof pj.exports === "string" || Array.isArray(pj.exports) || !Object.keys(pj.exports).some((k) => k.startsWith("."))
      ? { ".": pj.exports }
      : pj.exports;
  const exp = {};
  for (const [k, v] of Object.entries(map)) {
    if (k.includes("*") || k === "./package.json") continue;
    for (const t of targets(v)) {
      const s = toSource(t);
      if (s) {
        exp[k] = "./" + s;
        break;
      }
    }
  }
  out.exports = exp;
  if (exp["."]) entry = exp["."];
}
if (!entry) {
  for (const k of ["source", "types", "typings", "module", "main"]) {
    if (typeof pj[k] === "string") {
      const s = toSource(pj[k]);
      if (s) {
        entry = "./" + s;
        break;
      }
    }
  }
}
if (!entry) {
  const s = toSource("index");
  if (s) entry = "./" + s;
}
if (entry && out.exports && !out.exports["."]) out.exports = { ".": entry, ...out.exports };
if (entry) {
  out.types = entry;
  out.main = entry;
}
for (const k of ["dependencies", "peerDependencies", "optionalDependencies"]) if (pj[k]) out[k] = pj[k];
fs.writeFileSync(pjPath, JSON.stringify(out, null, 2) + "\n");

let ts = 0;
let js = 0;
for (const f of keptFiles) {
  const text = fs.readFileSync(path.join(dir, f));
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text[i] === 10) n++;
  if (text.length && text[text.length - 1] !== 10) n++;
  if (/\.(ts|tsx|mts|cts)$/.test(f)) ts += n;
  else js += n;
}
process.stdout.write(`${ts} ${js} ${keptFiles.size}\n`);
