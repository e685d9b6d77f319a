#!/usr/bin/env node
// The TypeScript oracle of kivgraph's accuracy harness: one ts.Program over every
// TypeScript/JavaScript file of every root, type-checked by the TypeScript checker, written as
// JSON lines in the record types of the Go oracle (../oracle) so that the same scorer
// (benches/src/accuracy.rs) reads both. See ../README.md, section "TypeScript", for what is a
// declaration and which uses are counted.
//
//   node oracle.mjs -o OUT.jsonl -repo NAME=DIR [-repo NAME=DIR ...] [-diagnostics=false] [-object-keys]
//
// -object-keys also emits, for each key of an object literal, the property of the literal's
// contextual type it provides (form `object-literal-key`). The graph does not bind them yet;
// the default run leaves them out. [-object-keys]
//
// Records, in this order: one `oracle` header; per file a `package` record (each module is its
// own graph package, SPEC §11.1) carrying the checker's error count, a `file` record and its
// `decl` records; then the `use` records of every file.

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

// ---------------------------------------------------------------------------------------------
// Arguments

function usage(msg) {
  if (msg) process.stderr.write(`oracle: ${msg}\n`);
  process.stderr.write(
    "usage: node oracle.mjs -o OUT.jsonl -repo NAME=DIR [-repo NAME=DIR ...] [-diagnostics=false] [-object-keys]\n",
  );
  process.exit(2);
}

const roots = [];
let outPath = null;
let diagnostics = true;
let objectKeys = false;
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-o" || a === "--o") outPath = argv[++i] ?? usage("-o needs a path");
    else if (a === "-repo" || a === "--repo") {
      const v = argv[++i] ?? usage("-repo needs NAME=DIR");
      const eq = v.indexOf("=");
      if (eq <= 0) usage(`-repo ${v}: not NAME=DIR`);
      const dir = path.resolve(v.slice(eq + 1));
      if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) usage(`${dir}: not a directory`);
      roots.push({ name: v.slice(0, eq), dir: fs.realpathSync(dir) });
    } else if (a === "-diagnostics=false" || a === "--diagnostics=false") diagnostics = false;
    else if (a === "-object-keys" || a === "--object-keys") objectKeys = true;
    else if (a === "-diagnostics" || a === "-diagnostics=true") diagnostics = true;
    else if (a === "-h" || a === "--help") usage();
    else usage(`unknown argument ${a}`);
  }
  if (roots.length === 0) usage("no -repo given");
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const log = (m) => process.stderr.write(`oracle: ${m} (${elapsed()})\n`);

// ---------------------------------------------------------------------------------------------
// Discovery: every source file of every root (no node_modules, no hidden names), and the
// package.json / tsconfig.json / jsconfig.json files.

const SOURCE_EXT = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const isSource = (f) => SOURCE_EXT.some((e) => f.endsWith(e));

/** abs path -> { root, rel } for every measured file. */
const fileInfo = new Map();
/** Files in discovery order (root order, then path order). */
const files = [];
/** package name -> [{ root, dir, json }] */
const packagesByName = new Map();
/** root name -> the root's package.json (if any) */
const rootManifest = new Map();
/** directory (abs) -> parsed config { baseUrl, paths, pathsBase } for each tsconfig/jsconfig */
const configs = new Map();

function walk(root, dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith(".")) continue;
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === "node_modules") continue;
      walk(root, abs);
    } else if (e.isFile()) {
      if (isSource(e.name)) {
        const rel = path.relative(root.dir, abs).split(path.sep).join("/");
        fileInfo.set(abs, { root, rel });
        files.push(abs);
      } else if (e.name === "package.json") {
        let json;
        try {
          json = JSON.parse(fs.readFileSync(abs, "utf8"));
        } catch {
          continue;
        }
        if (dir === root.dir) rootManifest.set(root.name, json);
        if (typeof json.name === "string" && json.name) {
          if (!packagesByName.has(json.name)) packagesByName.set(json.name, []);
          packagesByName.get(json.name).push({ root, dir, json });
        }
      } else if (e.name === "tsconfig.json" || e.name === "jsconfig.json") {
        if (!configs.has(dir) || e.name === "tsconfig.json") {
          const c = readConfig(abs, 0);
          if (c) configs.set(dir, c);
        }
      }
    }
  }
}

/** compilerOptions.baseUrl and .paths of a config, `extends` of a relative path followed. */
function readConfig(file, depth) {
  const r = ts.readConfigFile(file, ts.sys.readFile);
  if (r.error || !r.config) return null;
  const dir = path.dirname(file);
  let base = { baseUrl: null, paths: null, pathsBase: null };
  const ext = r.config.extends;
  if (typeof ext === "string" && (ext.startsWith("./") || ext.startsWith("../")) && depth < 8) {
    let p = path.resolve(dir, ext);
    if (!fs.existsSync(p) && fs.existsSync(p + ".json")) p += ".json";
    base = readConfig(p, depth + 1) ?? base;
  }
  const co = r.config.compilerOptions ?? {};
  const out = { ...base };
  if (typeof co.baseUrl === "string") out.baseUrl = path.resolve(dir, co.baseUrl);
  if (co.paths && typeof co.paths === "object") {
    out.paths = co.paths;
    out.pathsBase = null; // relative to baseUrl when set, else to this file's directory
    out.pathsDir = dir;
  }
  if (out.paths) out.pathsBase = out.baseUrl ?? out.pathsDir;
  return out;
}

for (const root of roots) walk(root, root.dir);
log(`${files.length} files in ${roots.length} roots`);

// ---------------------------------------------------------------------------------------------
// Module resolution (SPEC §11.1): relative specifiers through TypeScript's own resolution;
// `paths`/`baseUrl` of the file's nearest configuration and package names of the roots'
// package.json files here; anything else falls back to TypeScript (which finds nothing: the
// roots have no node_modules).

const TRY_EXT = [".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const SUBST = [
  [".js", [".ts", ".tsx", ".d.ts"]],
  [".jsx", [".tsx"]],
  [".mjs", [".mts", ".d.mts"]],
  [".cjs", [".cts", ".d.cts"]],
];
const isFile = (p) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
const isDir = (p) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** A path tried as a module: the file, with extensions, substituted extensions, a directory. */
function tryPath(p, depth = 0) {
  if (isFile(p) && (isSource(p) || p.endsWith(".d.ts"))) return p;
  for (const e of TRY_EXT) if (isFile(p + e)) return p + e;
  for (const [from, tos] of SUBST) {
    if (p.endsWith(from)) {
      const stem = p.slice(0, -from.length);
      for (const to of tos) if (isFile(stem + to)) return stem + to;
    }
  }
  if (isDir(p) && depth < 4) {
    const pj = path.join(p, "package.json");
    if (isFile(pj)) {
      try {
        const j = JSON.parse(fs.readFileSync(pj, "utf8"));
        for (const k of ["types", "typings", "main"]) {
          if (typeof j[k] === "string") {
            const r = tryPath(path.resolve(p, j[k]), depth + 1);
            if (r) return r;
          }
        }
      } catch {}
    }
    for (const e of TRY_EXT) if (isFile(path.join(p, "index" + e))) return path.join(p, "index" + e);
  }
  return null;
}

function nearestConfig(file) {
  const { root } = fileInfo.get(file) ?? {};
  let d = path.dirname(file);
  for (;;) {
    const c = configs.get(d);
    if (c) return c;
    if (!root || d === root.dir) return null;
    const up = path.dirname(d);
    if (up === d) return null;
    d = up;
  }
}

function matchPaths(cfg, spec) {
  let best = null;
  for (const [pat, targets] of Object.entries(cfg.paths)) {
    const star = pat.indexOf("*");
    let captured;
    if (star < 0) {
      if (pat !== spec) continue;
      captured = "";
    } else {
      const pre = pat.slice(0, star);
      const suf = pat.slice(star + 1);
      if (!spec.startsWith(pre) || !spec.endsWith(suf) || spec.length < pre.length + suf.length) continue;
      captured = spec.slice(pre.length, spec.length - suf.length);
    }
    const prefixLen = star < 0 ? pat.length + 1 : star;
    if (!best || prefixLen > best.prefixLen) best = { prefixLen, targets, captured };
  }
  if (!best || !Array.isArray(best.targets)) return null;
  for (const t of best.targets) {
    const r = tryPath(path.resolve(cfg.pathsBase, String(t).replace("*", best.captured)));
    if (r) return r;
  }
  return null;
}

const CONDITIONS = ["types", "import", "require", "node", "default"];
/** The targets of an exports value, in order of preference (conditions as SPEC §11.1 lists). */
function exportTargets(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) exportTargets(x, out);
  else if (v && typeof v === "object") for (const c of CONDITIONS) if (c in v) exportTargets(v[c], out);
  return out;
}

function resolveInPackage(pkg, subpath) {
  const { dir, json } = pkg;
  const exp = json.exports;
  if (exp !== undefined && exp !== null) {
    const key = subpath ? "./" + subpath : ".";
    let map = exp;
    if (typeof exp === "string" || Array.isArray(exp) || !Object.keys(exp).some((k) => k.startsWith("."))) {
      map = { ".": exp };
    }
    let targets = [];
    if (key in map) targets = exportTargets(map[key]);
    else {
      let bestLen = -1;
      for (const [k, v] of Object.entries(map)) {
        const star = k.indexOf("*");
        if (star < 0) continue;
        const pre = k.slice(0, star);
        const suf = k.slice(star + 1);
        if (key.startsWith(pre) && key.endsWith(suf) && key.length >= pre.length + suf.length && pre.length > bestLen) {
          bestLen = pre.length;
          const captured = key.slice(pre.length, key.length - suf.length);
          targets = exportTargets(v).map((t) => t.replace("*", captured));
        }
      }
    }
    for (const t of targets) {
      const r = tryPath(path.resolve(dir, t));
      if (r) return r;
    }
  }
  if (!subpath) {
    for (const k of ["types", "typings", "main"]) {
      if (typeof json[k] === "string") {
        const r = tryPath(path.resolve(dir, json[k]));
        if (r) return r;
      }
    }
    return tryPath(path.join(dir, "index"));
  }
  return tryPath(path.resolve(dir, subpath));
}

function splitPackage(spec) {
  const parts = spec.split("/");
  const n = spec.startsWith("@") ? 2 : 1;
  if (parts.length < n || parts.slice(0, n).some((p) => !p)) return null;
  return { name: parts.slice(0, n).join("/"), subpath: parts.slice(n).join("/") };
}

const deps = (json) =>
  new Set(
    ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"].flatMap((k) =>
      Object.keys(json?.[k] ?? {}),
    ),
  );

/** A bare specifier resolved by the roots' own configurations and manifests, or null. */
function resolveBare(spec, containingFile) {
  const cfg = nearestConfig(containingFile);
  if (cfg?.paths) {
    const r = matchPaths(cfg, spec);
    if (r) return r;
  }
  if (cfg?.baseUrl) {
    const r = tryPath(path.resolve(cfg.baseUrl, spec));
    if (r) return r;
  }
  const sp = splitPackage(spec);
  if (!sp) return null;
  const providers = packagesByName.get(sp.name);
  if (!providers) return null;
  const root = fileInfo.get(containingFile)?.root;
  let chosen = providers.filter((p) => p.root === root);
  if (chosen.length === 0) {
    const byRoot = new Set(providers.map((p) => p.root));
    if (byRoot.size === 1) chosen = providers;
    else {
      const d = deps(rootManifest.get(root?.name));
      chosen = d.has(sp.name) ? providers.filter((p) => p.root !== root) : [];
      if (new Set(chosen.map((p) => p.root)).size !== 1) chosen = [];
    }
  }
  // Within one repository, the shallowest package.json of that name.
  chosen.sort((a, b) => a.dir.length - b.dir.length || (a.dir < b.dir ? -1 : 1));
  for (const p of chosen) {
    const r = resolveInPackage(p, sp.subpath);
    if (r) return r;
  }
  return null;
}

const options = {
  allowJs: true,
  checkJs: false,
  jsx: ts.JsxEmit.Preserve,
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  target: ts.ScriptTarget.ESNext,
  lib: ["lib.esnext.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: [],
  strict: true,
  noImplicitAny: false,
  skipLibCheck: true,
  noEmit: true,
  esModuleInterop: true,
  allowSyntheticDefaultImports: true,
  allowImportingTsExtensions: true,
  allowArbitraryExtensions: true,
  resolveJsonModule: false,
  maxNodeModuleJsDepth: 0,
  experimentalDecorators: true,
};

const host = ts.createCompilerHost(options, true);
const bom = new Set();
const rawBytes = new Map();
{
  const baseGetSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const info = fileInfo.get(path.resolve(fileName));
    if (!info) return baseGetSourceFile(fileName, languageVersion, onError, shouldCreate);
    const buf = fs.readFileSync(fileName);
    rawBytes.set(path.resolve(fileName), buf);
    let text;
    if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      bom.add(path.resolve(fileName));
      text = buf.toString("utf8", 3);
    } else text = buf.toString("utf8");
    return ts.createSourceFile(fileName, text, languageVersion, true);
  };
}
const moduleCache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (x) => x, options);
let bareResolved = 0;
host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts, containingSourceFile) =>
  literals.map((lit) => {
    const spec = lit.text;
    const relative = spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === ".." || path.isAbsolute(spec);
    if (!relative) {
      const r = resolveBare(spec, path.resolve(containingFile));
      if (r) {
        bareResolved++;
        return {
          resolvedModule: {
            resolvedFileName: r,
            extension: ts.extensionFromPath(r),
            isExternalLibraryImport: false,
            resolvedUsingTsExtension: false,
          },
        };
      }
    }
    const mode = ts.getModeForUsageLocation(containingSourceFile, lit, opts);
    return ts.resolveModuleName(spec, containingFile, opts, host, moduleCache, redirected, mode);
  });

const program = ts.createProgram({ rootNames: files, options, host });
const checker = program.getTypeChecker();
log(`program built (${program.getSourceFiles().length} source files with the libraries; ${bareResolved} bare specifiers resolved to roots)`);

// ---------------------------------------------------------------------------------------------
// Output

const out = outPath ? fs.createWriteStream(outPath) : process.stdout;
let buffer = [];
let buffered = 0;
function emit(rec) {
  const s = JSON.stringify(rec);
  buffer.push(s);
  buffered += s.length;
  if (buffered > 1 << 20) flush();
}
function flush() {
  if (buffer.length) out.write(buffer.join("\n") + "\n");
  buffer = [];
  buffered = 0;
}

emit({ t: "oracle", language: "typescript", checker: `typescript ${ts.version}` });

// ---------------------------------------------------------------------------------------------
// Positions: 1-based lines, 0-based UTF-8 byte columns of the file as stored (a BOM counts).

const asciiFile = new Map();
function position(sf, pos) {
  const { line, character } = sf.getLineAndCharacterOfPosition(pos);
  let col = character;
  const abs = path.resolve(sf.fileName);
  let ascii = asciiFile.get(abs);
  if (ascii === undefined) {
    ascii = !/[^\x00-\x7f]/.test(sf.text);
    asciiFile.set(abs, ascii);
  }
  if (!ascii) col = Buffer.byteLength(sf.text.slice(sf.getLineStarts()[line], pos), "utf8");
  if (line === 0 && bom.has(abs)) col += 3;
  return { line: line + 1, col };
}

function countLines(buf) {
  let n = 0;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) n++;
  if (buf.length > 0 && buf[buf.length - 1] !== 10) n++;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Declarations (SPEC §11.2)

/** declaration node -> decl record, for matching a symbol's declarations. */
const declOf = new Map();
/** node -> decl record, for the enclosing declaration of a use. */
const enclosing = new Map();
/** Records that group several declaration nodes (overloads, get/set): key -> record. */
const grouped = new Map();
const allDecls = [];
let nDecls = 0;
/** `repo\0qn` -> the top-level declaration of a script (a global) in that repository. One
 * program holds every repository, so a global declared by several of them (`declare const
 * __DEV__`) merges into the first; a use is credited to its own repository's declaration. */
const scriptGlobals = new Map();

const K = ts.SyntaxKind;
const hasModifier = (n, kind) => (ts.canHaveModifiers(n) ? ts.getModifiers(n) ?? [] : []).some((m) => m.kind === kind);
const memberName = (n) =>
  n.name && (n.name.kind === K.Identifier || n.name.kind === K.PrivateIdentifier) ? n.name.text : null;
const symbolOf = (n) => n.symbol;

function collectFile(sf, info) {
  const ctx = { sf, info, abs: path.resolve(sf.fileName) };
  const mk = (node, name, qn, kind, detail, extra) => {
    const start = position(sf, node.getStart(sf, false));
    const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
    const rec = {
      t: "decl",
      repo: info.root.name,
      pkg: info.rel,
      file: info.rel,
      line: start.line,
      col: start.col,
      end_line: end,
      kind,
      detail,
      name,
      qn,
      ...extra,
    };
    rec._pos = node.getStart(sf, false);
    rec._file = ctx.abs;
    if (!ts.isExternalModule(sf) && !ctx.container) {
      rec._script = true;
      scriptGlobals.set(`${rec.repo}\0${rec.qn}`, rec);
    }
    if (ctx.container) rec._container = ctx.container;
    allDecls.push(rec);
    nDecls++;
    return rec;
  };
  const bind = (node, rec) => {
    declOf.set(node, rec);
    enclosing.set(node, rec);
  };
  // One record for all declarations of one symbol within one container (overloads, get/set).
  const groupedRec = (node, container, make) => {
    const sym = symbolOf(node);
    const key = sym ? sym : node;
    let byContainer = grouped.get(key);
    if (!byContainer) grouped.set(key, (byContainer = new Map()));
    let rec = byContainer.get(container);
    if (!rec) byContainer.set(container, (rec = make()));
    bind(node, rec);
    return rec;
  };
  const target = (rec) => ({ pkg: rec.pkg, qn: rec.qn, kind: rec.kind });

  function classMembers(cls, crec) {
    const q = crec.qn;
    ctx.container = crec;
    for (const m of cls.members) {
      const isStatic = hasModifier(m, K.StaticKeyword);
      switch (m.kind) {
        case K.MethodDeclaration: {
          const n = memberName(m);
          if (!n) break;
          groupedRec(m, cls, () =>
            mk(m, n, `${q}.${n}`, "method", isStatic ? "static_method" : "method", { method_of: target(crec) }),
          );
          break;
        }
        case K.Constructor: {
          groupedRec(m, cls, () => mk(m, "constructor", `${q}.constructor`, "method", "constructor", { method_of: target(crec) }));
          for (const p of m.parameters) {
            if (ts.isParameterPropertyDeclaration(p, m) && p.name.kind === K.Identifier) {
              const r = mk(p, p.name.text, `${q}.${p.name.text}`, "field", "parameter_property");
              bind(p, r);
            }
          }
          break;
        }
        case K.GetAccessor:
        case K.SetAccessor: {
          const n = memberName(m);
          if (!n) break;
          groupedRec(m, cls, () =>
            mk(m, n, `${q}.${n}`, "property", isStatic ? "static_accessor" : "accessor", { method_of: target(crec) }),
          );
          break;
        }
        case K.PropertyDeclaration: {
          const n = memberName(m);
          if (!n) break;
          const detail = m.name.kind === K.PrivateIdentifier ? "private_field" : isStatic ? "static_field" : "field";
          bind(m, mk(m, n, `${q}.${n}`, "field", detail));
          break;
        }
        default:
          break;
      }
    }
    ctx.container = null;
  }

  function typeMembers(node, members, crec, isInterface) {
    const q = crec.qn;
    ctx.container = crec;
    for (const m of members) {
      const n = memberName(m);
      if (!n) continue;
      if (m.kind === K.MethodSignature) {
        groupedRec(m, node, () =>
          mk(m, n, `${q}.${n}`, "method", isInterface ? "interface_method" : "type_literal_method",
            isInterface ? { method_of: target(crec) } : {}),
        );
      } else if (m.kind === K.PropertySignature) {
        bind(m, mk(m, n, `${q}.${n}`, "property", isInterface ? "property_signature" : "type_literal_property"));
      } else if (m.kind === K.GetAccessor || m.kind === K.SetAccessor) {
        groupedRec(m, node, () => mk(m, n, `${q}.${n}`, "property", isInterface ? "property_signature" : "type_literal_property"));
      }
    }
    ctx.container = null;
  }

  function bindingNames(nameNode, out) {
    if (nameNode.kind === K.Identifier) out.push(nameNode);
    else if (nameNode.kind === K.ObjectBindingPattern || nameNode.kind === K.ArrayBindingPattern) {
      for (const el of nameNode.elements) if (el.kind === K.BindingElement) bindingNames(el.name, out);
    }
  }

  function container(statements, prefix, topLevel) {
    for (const st of statements) {
      switch (st.kind) {
        case K.FunctionDeclaration: {
          const n = st.name ? st.name.text : hasModifier(st, K.DefaultKeyword) ? "default" : null;
          if (!n) break;
          groupedRec(st, statements, () => mk(st, n, prefix + n, "function", n === "default" && !st.name ? "default_function" : "function"));
          break;
        }
        case K.ClassDeclaration: {
          const n = st.name ? st.name.text : hasModifier(st, K.DefaultKeyword) ? "default" : null;
          if (!n) break;
          const rec = mk(st, n, prefix + n, "class", st.name ? "class" : "default_class");
          bind(st, rec);
          classMembers(st, rec);
          break;
        }
        case K.InterfaceDeclaration: {
          const rec = mk(st, st.name.text, prefix + st.name.text, "interface", "interface");
          bind(st, rec);
          typeMembers(st, st.members, rec, true);
          break;
        }
        case K.TypeAliasDeclaration: {
          const rec = mk(st, st.name.text, prefix + st.name.text, "type_alias", "type_alias");
          bind(st, rec);
          if (st.type.kind === K.TypeLiteral) typeMembers(st.type, st.type.members, rec, false);
          break;
        }
        case K.EnumDeclaration: {
          const rec = mk(st, st.name.text, prefix + st.name.text, "enum", "enum");
          bind(st, rec);
          ctx.container = rec;
          for (const m of st.members) {
            if (m.name.kind !== K.Identifier) continue;
            bind(m, mk(m, m.name.text, `${rec.qn}.${m.name.text}`, "enum_member", "enum_member"));
          }
          ctx.container = null;
          break;
        }
        case K.ModuleDeclaration: {
          if (st.name.kind !== K.Identifier || (st.flags & ts.NodeFlags.GlobalAugmentation) !== 0) break;
          let m = st;
          let q = prefix;
          for (;;) {
            q += m.name.text;
            bind(m, mk(m, m.name.text, q, "namespace", "namespace"));
            if (m.body && m.body.kind === K.ModuleDeclaration) {
              m = m.body;
              q += ".";
              continue;
            }
            if (m.body && m.body.kind === K.ModuleBlock) container(m.body.statements, q + ".", false);
            break;
          }
          break;
        }
        case K.VariableStatement: {
          const list = st.declarationList;
          const isConst = (list.flags & (ts.NodeFlags.Const | ts.NodeFlags.Using | ts.NodeFlags.AwaitUsing)) !== 0;
          for (const d of list.declarations) {
            const names = [];
            bindingNames(d.name, names);
            let first = null;
            for (const id of names) {
              const node = id.parent; // VariableDeclaration or BindingElement
              const rec = mk(node, id.text, prefix + id.text, isConst ? "constant" : "variable", isConst ? "constant" : "variable");
              bind(node, rec);
              first ??= rec;
            }
            if (first && !enclosing.has(d)) enclosing.set(d, first);
          }
          break;
        }
        case K.ExportAssignment: {
          if (st.isExportEquals || !topLevel) break;
          const e = st.expression;
          if (ts.isEntityNameExpression(e)) break; // an alias: `export default x` exports x
          let inner = e;
          while (inner.kind === K.ParenthesizedExpression) inner = inner.expression;
          const kind =
            inner.kind === K.ArrowFunction || inner.kind === K.FunctionExpression
              ? "function"
              : inner.kind === K.ClassExpression
                ? "class"
                : "variable";
          bind(st, mk(st, "default", prefix + "default", kind, "default_" + (kind === "variable" ? "expression" : kind)));
          break;
        }
        case K.ExpressionStatement: {
          if (!topLevel || !ctx.isJs) break;
          const e = st.expression;
          if (e.kind !== K.BinaryExpression || e.operatorToken.kind !== K.EqualsToken) break;
          const l = e.left;
          if (l.kind !== K.PropertyAccessExpression || l.name.kind !== K.Identifier) break;
          const o = l.expression;
          const isExports =
            (o.kind === K.Identifier && o.text === "exports") ||
            (o.kind === K.PropertyAccessExpression &&
              o.expression.kind === K.Identifier &&
              o.expression.text === "module" &&
              o.name.text === "exports");
          // The checker binds these in CommonJS modules only; the declaration is `exports.x`.
          if (!isExports || !symbolOf(l)) break;
          let r = e.right;
          while (r.kind === K.ParenthesizedExpression) r = r.expression;
          const fn = r.kind === K.FunctionExpression || r.kind === K.ArrowFunction;
          const rec = mk(st, l.name.text, prefix + l.name.text, fn ? "function" : "variable", "commonjs_export");
          declOf.set(l, rec);
          enclosing.set(e, rec);
          for (let x = l; x.kind === K.PropertyAccessExpression; x = x.expression) {
            cjsNames.add(x.name);
            if (x.expression.kind === K.Identifier) cjsNames.add(x.expression);
          }
          cjsNames.add(l.name);
          break;
        }
        default:
          break;
      }
    }
  }
  ctx.isJs = /\.(c|m)?jsx?$/.test(sf.fileName);
  container(sf.statements, "", true);
}
const cjsNames = new Set();

// ---------------------------------------------------------------------------------------------
// Files and declarations

const sourceFiles = [];
let nErrors = 0;
let nLines = 0;
for (const abs of files) {
  const sf = program.getSourceFile(abs);
  const info = fileInfo.get(abs);
  if (!sf) {
    log(`not in the program: ${abs}`);
    continue;
  }
  sourceFiles.push({ sf, info, abs });
}
const fileOrder = new Map(sourceFiles.map((f, i) => [f.abs, i]));

for (const { sf, info, abs } of sourceFiles) {
  const buf = rawBytes.get(abs) ?? fs.readFileSync(abs);
  const lines = countLines(buf);
  nLines += lines;
  let errors = 0;
  const sample = [];
  if (diagnostics) {
    const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].filter(
      (d) => d.category === ts.DiagnosticCategory.Error,
    );
    errors = diags.length;
    for (const d of diags.slice(0, 3)) {
      const at = d.start !== undefined ? position(sf, d.start) : { line: 0, col: 0 };
      let msg = ts.flattenDiagnosticMessageText(d.messageText, " ");
      for (const r of roots) msg = msg.split(r.dir + "/").join(`${r.name}:`);
      sample.push(`${info.root.name}:${info.rel}:${at.line}: ${msg}`);
    }
  }
  nErrors += errors;
  const dir = path.posix.dirname(info.rel);
  emit({ t: "package", repo: info.root.name, dir: dir === "." ? "" : dir, pkg: info.rel, files: 1, errors, error_sample: sample });
  emit({
    t: "file",
    repo: info.root.name,
    file: info.rel,
    pkg: info.rel,
    lines,
    sha256: crypto.createHash("sha256").update(buf).digest("hex"),
  });
  collectFile(sf, info);
}
log(`${sourceFiles.length} files, ${nLines} lines, ${nDecls} declarations${diagnostics ? `, ${nErrors} checker errors` : ""}`);

// Overrides: a class method -> the same-named method of the nearest base class that has one.
function overridesOf(cls, m, name) {
  const t = checker.getTypeAtLocation(cls);
  const bases = t.isClassOrInterface() ? checker.getBaseTypes(t) : [];
  for (const b of bases) {
    const prop = b.getProperty(name);
    if (!prop) continue;
    for (const r of checker.getRootSymbols(prop)) {
      for (const d of r.declarations ?? []) {
        const rec = declOf.get(d);
        if (rec && rec.kind === "method" && rec.detail === "method" && d.parent?.kind === K.ClassDeclaration) {
          return { pkg: rec.pkg, qn: rec.qn, kind: rec.kind, target_repo: rec.repo };
        }
      }
    }
  }
  return null;
}
for (const { sf } of sourceFiles) {
  const visit = (n) => {
    if (n.kind === K.ClassDeclaration) {
      for (const m of n.members) {
        if (m.kind !== K.MethodDeclaration || hasModifier(m, K.StaticKeyword)) continue;
        const rec = declOf.get(m);
        if (!rec || rec._overridesDone) continue;
        rec._overridesDone = true;
        if (m.name.kind !== K.Identifier) continue;
        const o = overridesOf(n, m, m.name.text);
        if (o) rec.overrides = o;
      }
    }
  };
  for (const st of sf.statements) {
    visit(st);
    if (st.kind === K.ModuleDeclaration) {
      const inner = (m) => {
        if (m.body?.kind === K.ModuleDeclaration) inner(m.body);
        else if (m.body?.kind === K.ModuleBlock) for (const s of m.body.statements) {
          visit(s);
          if (s.kind === K.ModuleDeclaration) inner(s);
        }
      };
      inner(st);
    }
  }
}

for (const rec of allDecls) {
  const { _pos, _file, _overridesDone, _container, _script, ...r } = rec;
  emit(r);
}
log("declarations written");

// ---------------------------------------------------------------------------------------------
// Uses

const SF = ts.SymbolFlags;
function resolveAlias(sym) {
  if (sym && sym.flags & SF.Alias) {
    try {
      const t = checker.getAliasedSymbol(sym);
      if (t && t.escapedName !== "unknown") return t;
      return null;
    } catch {
      return null;
    }
  }
  return sym ?? null;
}

/** What a declaration declares: a value, a type, a namespace (classes and enums are both). */
function meaningsOf(node) {
  switch (node.kind) {
    case K.ClassDeclaration:
    case K.EnumDeclaration:
      return ["value", "type"];
    case K.InterfaceDeclaration:
    case K.TypeAliasDeclaration:
      return ["type"];
    case K.ModuleDeclaration:
      return ["namespace"];
    default:
      return ["value"];
  }
}

const sourceKey = (rec) => [fileOrder.get(rec._file) ?? 1e9, rec._pos];
const before = (a, b) => {
  const ka = sourceKey(a);
  const kb = sourceKey(b);
  return ka[0] < kb[0] || (ka[0] === kb[0] && ka[1] < kb[1]);
};

/**
 * The measured declaration records a symbol names at a site: one, or one per constituent of a
 * union property. Among a symbol's declarations (merged interfaces, class and namespace,
 * interface and const, overloads, get/set), the first in source order with the site's meaning:
 * `value`, `type`, `namespace`, or `all` (an import or export specifier: the first of each
 * meaning, so an interface and a const of one name are both named). A qualifier (`N` of `N.x`,
 * `N.T`) names the declaration that contains the member it qualifies, when there is one.
 */
function recordsOf(sym, meaning = "value", member = null) {
  if (!sym) return [];
  let roots;
  try {
    roots = checker.getRootSymbols(sym);
  } catch {
    roots = [sym];
  }
  const out = [];
  const add = (rec) => {
    if (rec && !out.includes(rec)) out.push(rec);
  };
  for (const r0 of roots) {
    const r = resolveAlias(r0);
    if (!r) continue;
    const cands = [];
    for (const d of r.declarations ?? sym.declarations ?? []) {
      const rec = declOf.get(d);
      if (!rec) continue;
      // A parameter property declares a parameter and a field: only the property is the field.
      if (d.kind === K.Parameter && !(r.flags & SF.Property)) continue;
      cands.push({ d, rec });
    }
    if (cands.length === 0) continue;
    if (member && cands.length > 1) {
      let found = null;
      for (let n = member.parent; n && !found; n = n.parent) found = cands.find((c) => c.d === n)?.rec ?? null;
      if (found) {
        add(found);
        continue;
      }
    }
    const first = (want) => {
      let best = null;
      for (const c of cands) if (meaningsOf(c.d).includes(want) && (!best || before(c.rec, best))) best = c.rec;
      return best;
    };
    if (meaning === "all") {
      const picked = ["value", "type", "namespace"].map(first).filter(Boolean);
      picked.sort((a, b) => (before(a, b) ? -1 : 1));
      for (const p of picked) add(p);
      continue;
    }
    let best = first(meaning);
    if (!best && meaning === "namespace") best = first("value") ?? first("type");
    if (!best) for (const c of cands) if (!best || before(c.rec, best)) best = c.rec;
    add(best);
  }
  // Several targets (a union's members) in source order, whatever order the checker gives.
  if (out.length > 1) out.sort((a, b) => (before(a, b) ? -1 : 1));
  out.tag = roots.length > 1 ? "+union" : "+merged";
  return out;
}

/** The first declaration of the member a qualifier qualifies (`x` of `N.x`), if it has one. */
function qualifiedMember(id) {
  // The name the identifier is (`N` or `a.N`), then what qualifies it.
  let x = id;
  if ((x.parent.kind === K.PropertyAccessExpression && x.parent.name === x) || (x.parent.kind === K.QualifiedName && x.parent.right === x)) {
    x = x.parent;
  }
  const p = x.parent;
  let name = null;
  if (p.kind === K.PropertyAccessExpression && p.expression === x) name = p.name;
  else if (p.kind === K.QualifiedName && p.left === x) name = p.right;
  if (!name) return null;
  let s;
  try {
    s = resolveAlias(checker.getSymbolAtLocation(name));
    s = s ? checker.getRootSymbols(s)[0] ?? s : null;
  } catch {
    return null;
  }
  return s?.declarations?.[0] ?? null;
}

function unwrapUp(e) {
  let c = e;
  let q = e.parent;
  while (q && (q.kind === K.ParenthesizedExpression || q.kind === K.NonNullExpression)) {
    c = q;
    q = q.parent;
  }
  return { c, q };
}

function unwrapDown(e) {
  while (
    e &&
    (e.kind === K.ParenthesizedExpression ||
      e.kind === K.NonNullExpression ||
      e.kind === K.AsExpression ||
      e.kind === K.SatisfiesExpression ||
      e.kind === K.TypeAssertionExpression)
  )
    e = e.expression;
  return e;
}

function initKind(init) {
  init = unwrapDown(init);
  if (!init) return "none";
  switch (init.kind) {
    case K.NewExpression:
      return "new";
    case K.CallExpression:
      return "call";
    case K.AwaitExpression:
      return "await";
    case K.ObjectLiteralExpression:
      return "object literal";
    case K.ArrayLiteralExpression:
      return "array literal";
    case K.Identifier:
      return "identifier";
    case K.PropertyAccessExpression:
    case K.ElementAccessExpression:
      return "member";
    case K.ArrowFunction:
    case K.FunctionExpression:
      return "function";
    default:
      return "other";
  }
}

/** What the operand of a member access is, for grouping misses. */
function operandKind(op) {
  op = unwrapDown(op);
  switch (op.kind) {
    case K.ThisKeyword:
      return "this";
    case K.SuperKeyword:
      return "super";
    case K.PropertyAccessExpression:
      return "member chain";
    case K.CallExpression:
      return "call result";
    case K.NewExpression:
      return "new expression";
    case K.ElementAccessExpression:
      return "element access";
    case K.Identifier: {
      let s;
      try {
        s = checker.getSymbolAtLocation(op);
      } catch {}
      if (!s) return "unresolved identifier";
      if (s.flags & SF.Alias) {
        const t = resolveAlias(s);
        if (!t) return "import (unresolved)";
        if (t.flags & SF.ValueModule && t.valueDeclaration?.kind === K.SourceFile) return "namespace import";
        s = t;
      }
      if (s.flags & SF.Class) return "class name";
      if (s.flags & SF.Enum) return "enum name";
      if (s.flags & (SF.ValueModule | SF.NamespaceModule)) return "namespace name";
      if (s.flags & SF.Function) return "function name";
      const d = s.valueDeclaration;
      if (!d) return "identifier";
      if (d.kind === K.Parameter) return d.type ? "parameter (annotated)" : "parameter (no annotation)";
      if (d.kind === K.VariableDeclaration) {
        if (d.type) return "variable (annotated)";
        const loop = d.parent?.parent;
        if (loop?.kind === K.ForOfStatement) return "variable (for-of)";
        if (loop?.kind === K.ForInStatement) return "variable (for-in)";
        return `variable (= ${initKind(d.initializer)})`;
      }
      if (d.kind === K.BindingElement) return "destructured binding";
      if (d.kind === K.PropertyDeclaration) return "field";
      return "identifier";
    }
    default:
      return "expression";
  }
}

function heritageOf(id) {
  // The expression the identifier names: itself, or the property access it is the name of.
  let x = id;
  if (x.parent.kind === K.PropertyAccessExpression && x.parent.name === x) x = x.parent;
  const named = x;
  // Up the qualifiers: `a.b.C` with `a` or `b` as the identifier.
  while (x.parent && x.parent.kind === K.PropertyAccessExpression && x.parent.expression === x) x = x.parent;
  const q = x.parent;
  if (q && q.kind === K.ExpressionWithTypeArguments && q.expression === x && q.parent?.kind === K.HeritageClause) {
    return { clause: q.parent, final: named === x };
  }
  return null;
}

/** In a type: the entity name (`A.B.C`) the identifier is part of sits in a type node. */
function inTypePosition(id) {
  let n = id;
  while (
    n.parent &&
    ((n.parent.kind === K.QualifiedName) ||
      (n.parent.kind === K.PropertyAccessExpression && n.parent.expression === n) ||
      (n.parent.kind === K.PropertyAccessExpression && n.parent.name === n))
  )
    n = n.parent;
  const a = n.parent;
  if (!a) return false;
  if (a.kind === K.ExpressionWithTypeArguments) {
    // `implements X`, `interface I extends X` (heritage is handled before), or an
    // instantiation expression `f<T>` (a value).
    return a.parent?.kind === K.HeritageClause;
  }
  return ts.isTypeNode(a) || ts.isPartOfTypeNode(n);
}

function typeForm(id) {
  const p = id.parent;
  if (p.kind === K.QualifiedName) {
    let top = p;
    while (top.parent.kind === K.QualifiedName) top = top.parent;
    if (top.parent.kind === K.TypeQuery) return "typeof";
    if (top.parent.kind === K.ImportType) return "import-type";
    return p === top && p.right === id ? "qualified-type" : "type-qualifier";
  }
  if (p.kind === K.TypeReference) return "type";
  if (p.kind === K.TypeQuery) return "typeof";
  if (p.kind === K.ImportType) return "import-type";
  if (p.kind === K.PropertyAccessExpression) {
    let x = p;
    while (x.parent.kind === K.PropertyAccessExpression) x = x.parent;
    if (x.parent.kind === K.ExpressionWithTypeArguments) return "expression-with-type-arguments";
    return "type-expression";
  }
  if (p.kind === K.ExpressionWithTypeArguments) return "expression-with-type-arguments";
  return "type-other";
}

const DECL_NAME_KINDS = new Set([
  K.VariableDeclaration,
  K.Parameter,
  K.FunctionDeclaration,
  K.FunctionExpression,
  K.ClassDeclaration,
  K.ClassExpression,
  K.InterfaceDeclaration,
  K.TypeAliasDeclaration,
  K.EnumDeclaration,
  K.EnumMember,
  K.ModuleDeclaration,
  K.MethodDeclaration,
  K.MethodSignature,
  K.PropertyDeclaration,
  K.PropertySignature,
  K.GetAccessor,
  K.SetAccessor,
  K.PropertyAssignment,
  K.TypeParameter,
  K.NamespaceImport,
  K.NamespaceExport,
  K.NamespaceExportDeclaration,
  K.NamedTupleMember,
  K.ImportAttribute,
  K.JsxNamespacedName,
]);

let nUses = 0;
let nGetSymbolFailures = 0;

function emitUsesOfFile(sf, info) {
  const stack = [];
  const fromOf = () => {
    const r = stack[stack.length - 1];
    return r ? { from_kind: r.kind, from_qn: r.qn, from_line: r.line } : { from_kind: "module", from_qn: info.rel, from_line: 1 };
  };
  const sym = (n) => {
    try {
      return checker.getSymbolAtLocation(n);
    } catch {
      nGetSymbolFailures++;
      return undefined;
    }
  };
  const objectKey = (id, p) => {
    if (!objectKeys) return;
    let s;
    try {
      const t = checker.getContextualType(p.parent);
      s = t?.getProperty(id.text);
    } catch {}
    // The literal's own property is not a declaration of the contextual type.
    if (s && s.declarations?.some((d) => d === p)) return;
    put(id, recordsOf(s), "value", "object-literal-key", "REFERENCES");
  };
  const put = (id, recs, usage, form, edgeOf) => {
    if (recs.length === 0) return;
    if (recs.some((r) => r._script && r.repo !== info.root.name)) {
      const tag = recs.tag;
      recs = recs.map((r) => (r._script && r.repo !== info.root.name ? scriptGlobals.get(`${info.root.name}\0${r.qn}`) ?? r : r));
      recs.tag = tag;
    }
    const at = position(sf, id.getStart(sf));
    const from = fromOf();
    const name = id.text;
    const multi = recs.length > 1 ? recs.tag ?? "+union" : "";
    for (const r of recs) {
      emit({
        t: "use",
        repo: info.root.name,
        file: info.rel,
        line: at.line,
        col: at.col,
        name,
        pkg: r.pkg,
        target_repo: r.repo,
        qn: r.qn,
        kind: r.kind,
        detail: r.detail,
        use: usage,
        form: form + multi,
        edge: typeof edgeOf === "function" ? edgeOf(r) : edgeOf,
        ...from,
      });
      nUses++;
    }
  };

  function onIdentifier(id) {
    const p = id.parent;
    if (!p) return;
    switch (p.kind) {
      case K.ImportSpecifier: {
        if (p.propertyName && p.name === id) return; // count only `a` of `a as b`
        put(id, recordsOf(resolveAlias(sym(p.name)), "all"), "value", "import-specifier", "IMPORTS_SYMBOL");
        return;
      }
      case K.ImportClause:
        if (p.name === id) put(id, recordsOf(resolveAlias(sym(id)), "all"), "value", "default-import", "IMPORTS_SYMBOL");
        return;
      case K.ImportEqualsDeclaration:
        if (p.name === id) {
          if (p.moduleReference.kind === K.ExternalModuleReference) {
            put(id, recordsOf(resolveAlias(sym(id)), "all"), "value", "import-require", "IMPORTS_SYMBOL");
          }
          return;
        }
        break;
      case K.ExportSpecifier: {
        if (p.propertyName && p.name === id) return; // count only `a` of `a as b`
        const reexport = !!p.parent.parent.moduleSpecifier;
        let s;
        try {
          s = checker.getExportSpecifierLocalTargetSymbol(p);
        } catch {}
        put(
          id,
          recordsOf(resolveAlias(s), "all"),
          "value",
          reexport ? "reexport-specifier" : "export-specifier",
          reexport ? "REEXPORTS" : "EXPORTS",
        );
        return;
      }
      case K.ExportAssignment:
        if (p.expression === id) {
          put(id, recordsOf(resolveAlias(sym(id)), "all"), "value", p.isExportEquals ? "export-equals" : "export-default", "EXPORTS");
          return;
        }
        break;
      case K.ShorthandPropertyAssignment:
        if (p.name === id) {
          let s;
          try {
            s = checker.getShorthandAssignmentValueSymbol(p);
          } catch {}
          put(id, recordsOf(resolveAlias(s)), "value", "shorthand", "REFERENCES");
          objectKey(id, p);
          return;
        }
        break;
      case K.PropertyAssignment:
      case K.MethodDeclaration:
      case K.GetAccessor:
      case K.SetAccessor:
        // A key of an object literal: a use of the property of the literal's contextual type
        // that it provides (`const s: Shape = { area: 1 }` uses `Shape.area`).
        if (p.name === id) {
          if (p.parent.kind === K.ObjectLiteralExpression) objectKey(id, p);
          return;
        }
        break;
      case K.BindingElement:
        if (p.propertyName === id) {
          put(id, recordsOf(resolveAlias(sym(id))), "value", "binding-property", "REFERENCES");
          return;
        }
        if (p.name === id) {
          // `const { a } = x` reads property `a` of x's type, as `{ a: a }` would.
          if (!p.propertyName && p.parent.kind === K.ObjectBindingPattern) {
            let s;
            try {
              s = checker.getTypeAtLocation(p.parent)?.getProperty(id.text);
            } catch {}
            put(id, recordsOf(resolveAlias(s)), "value", "binding-shorthand", "REFERENCES");
          }
          return;
        }
        break; // a default value: an ordinary expression
      case K.JsxAttribute:
        if (p.name === id) {
          // The attribute's own symbol is a property of the attributes literal; the property it
          // sets is the one of the element's props type (the attributes' contextual type).
          let s;
          try {
            const t = checker.getContextualType(p.parent);
            s = t?.getProperty(id.text);
          } catch {}
          put(id, recordsOf(s), "value", "jsx-attribute", "REFERENCES");
          return;
        }
        break;
      case K.LabeledStatement:
      case K.BreakStatement:
      case K.ContinueStatement:
        return;
      case K.MetaProperty:
        return;
      default:
        if (DECL_NAME_KINDS.has(p.kind) && p.name === id) return;
    }
    if (cjsNames.has(id)) return;

    // JSX tag names (`<Foo>`, `</Foo>`, `<ns.Foo>`).
    {
      let x = id;
      while (x.parent.kind === K.PropertyAccessExpression) x = x.parent;
      const q = x.parent;
      if (
        (q.kind === K.JsxOpeningElement || q.kind === K.JsxSelfClosingElement || q.kind === K.JsxClosingElement) &&
        q.tagName === x
      ) {
        put(
          id,
          recordsOf(resolveAlias(sym(id)), "value", qualifiedMember(id)),
          "value",
          q.kind === K.JsxClosingElement ? "jsx-closing-tag" : "jsx-tag",
          "REFERENCES",
        );
        return;
      }
    }

    const s = resolveAlias(sym(id));
    if (!s) return;
    if (!s.declarations?.some((d) => declOf.has(d)) && !(s.flags & SF.Transient)) return;
    const qualified = qualifiedMember(id);

    // Heritage clauses.
    const h = heritageOf(id);
    if (h) {
      const isExtends = h.clause.token === K.ExtendsKeyword;
      const classClause = h.clause.parent.kind === K.ClassDeclaration || h.clause.parent.kind === K.ClassExpression;
      if (h.final) {
        const meaning = isExtends && classClause ? "value" : "type";
        put(id, recordsOf(s, meaning), meaning, isExtends ? "heritage-extends" : "heritage-implements",
          isExtends ? "EXTENDS" : "IMPLEMENTS");
      } else if (isExtends && classClause) {
        put(id, recordsOf(s, "namespace", qualified), "value", "heritage-qualifier", "REFERENCES");
      } else {
        put(id, recordsOf(s, "namespace", qualified), "type", "heritage-qualifier", "TYPE_USES");
      }
      return;
    }

    // Type positions.
    if (inTypePosition(id)) {
      const form = typeForm(id);
      const meaning = form === "typeof" ? (qualified ? "namespace" : "value") : qualified ? "namespace" : "type";
      put(id, recordsOf(s, meaning, qualified), "type", form, "TYPE_USES");
      return;
    }
    const recs = recordsOf(s, qualified ? "namespace" : "value", qualified);
    if (recs.length === 0) return;

    // Expressions.
    let base = "identifier";
    let e = id;
    let member = null;
    if (p.kind === K.PropertyAccessExpression && p.name === id) {
      e = p;
      member = p.expression;
      base = `property-access on ${operandKind(p.expression)}`;
    } else if (p.kind === K.QualifiedName && p.right === id) {
      base = "qualified-name";
    } else if (p.kind === K.Decorator) {
      base = "decorator";
    }
    const { c, q } = unwrapUp(e);
    let role = null;
    if (q && (q.kind === K.CallExpression || q.kind === K.NewExpression) && q.expression === c) {
      role = q.kind === K.NewExpression ? "new" : "call";
    } else if (q && q.kind === K.TaggedTemplateExpression && q.tag === c) {
      role = "tagged-template";
    } else if (q && (q.kind === K.CallExpression || q.kind === K.NewExpression) && q.arguments?.includes(c)) {
      role = "argument";
    } else if (q && q.kind === K.Decorator) {
      role = "decorator";
    }
    let form;
    if (base === "decorator") form = role === "decorator" ? "decorator" : `decorator (${role})`;
    else if (base === "identifier" && role) form = role;
    else form = role ? `${base} (${role})` : base;
    if (member) {
      const flags = ts.getCheckFlags(s);
      if (flags & ts.CheckFlags.Mapped) form += "+mapped";
      else if (recs.length === 1 && recs[0]._container) {
        // A member inherited from a base: the receiver's type is a measured declaration other
        // than the member's container.
        try {
          const container = recs[0]._container;
          const t = checker.getTypeAtLocation(member);
          const owners = [t?.aliasSymbol, t?.getSymbol()].filter(Boolean);
          let measured = false;
          let own = false;
          for (const o of owners) {
            for (const d of o.declarations ?? []) {
              const r = declOf.get(d) ?? declOf.get(d.parent);
              if (!r) continue;
              measured = true;
              if (r === container) own = true;
            }
          }
          if (measured && !own) form += "+inherited";
        } catch {}
      }
    }
    const usage = role === "call" || role === "new" || role === "tagged-template" ? "call" : "value";
    const edge =
      usage === "call"
        ? "CALLS_DIRECT"
        : (r) => (role === "argument" && (r.kind === "function" || r.kind === "method") ? "PASSES_AS_CALLBACK" : "REFERENCES");
    put(id, recs, usage, form, edge);
  }

  function visit(node) {
    const enc = enclosing.get(node);
    if (enc) stack.push(enc);
    if (node.kind === K.Identifier || node.kind === K.PrivateIdentifier) onIdentifier(node);
    else ts.forEachChild(node, visit);
    if (enc) stack.pop();
  }
  visit(sf);
}

for (const { sf, info } of sourceFiles) emitUsesOfFile(sf, info);
flush();
log(`${nUses} uses written${nGetSymbolFailures ? ` (${nGetSymbolFailures} checker failures)` : ""}`);
if (out !== process.stdout) out.end();
process.stderr.write(
  `oracle: ${sourceFiles.length} modules, ${nLines} lines, ${nDecls} declarations, ${nUses} uses, ${nErrors} checker errors in ${elapsed()}\n`,
);
