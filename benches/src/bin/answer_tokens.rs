//! Answer economy: what an answer costs an agent, in tokens (o200k_base, `tiktoken-rs`) and in
//! calls, with kivgraph and with grep-and-read, for three questions about a stratified sample of
//! the symbols of a published generation:
//!
//! - **who uses X**: kivgraph calls `find_references` (compact, every page). The grep agent runs
//!   `rg -n -w X` over every repository of the generation and reads the enclosing declaration of every hit (but X's
//!   own declaration line) to tell a use of X from a use of another X, a comment or a string;
//! - **what breaks if X changes**: kivgraph calls `get_blast_radius` (depth 2, every page). The
//!   grep agent does the above, then the same for the name of every declaration it read (two
//!   levels, as the blast radius's depth);
//! - **show me X and its callers' code**: kivgraph calls `find_references`, then `get_source` on X
//!   and every distinct caller, 20 per call; a caller whose rows are all imports or re-exports is
//!   passed over, and a module caller (a use at file level) is not read whole: the agent greps X
//!   in that one file and reads the eleven lines around each hit. The grep agent greps X, reads
//!   X's declaration and the enclosing declaration of every hit but import lines (which it sees
//!   in grep's output).
//!
//! The grep agent's `rg` output is computed here, not run: every line holding X as a word, as
//! `path:line:text`, over the files the generation lists (source files only, so
//! fewer hits than a real `rg`: the comparison favours grep). A read is the declaration's lines
//! (the innermost function, method or type holding the hit; eleven lines around it when none
//! does), one call each, each declaration read once per question. The grep agent's reads are
//! capped at 2,000 per question, so its cost is then a lower bound too.
//!
//! The sample: symbols with at least one incoming reference edge, of non-derived repositories,
//! Python stubs (`.pyi`, a type checker's view of a declaration beside them) neither sampled nor
//! counted as declarations of their names, in strata of (name declared once / more than once in
//! the generation) × (callable / type), `--per-stratum` each (default 25), drawn with a fixed
//! seed; the figures are also given by how far a subject's uses reach (its own package only,
//! other packages, other repositories). Printed: per language, question and stratum, the
//! median, p10 and p90 of grep tokens / kivgraph tokens, the median tokens and
//! calls of each side, and the share of "who uses X" answers whose verdict is COMPLETE.
//!
//! With `--oracle ORACLE.jsonl` (an accuracy oracle of the same sources, `benches/accuracy/`),
//! each "who uses X" answer about a symbol the oracle sees used is also checked: the share whose
//! verdict is `COMPLETE` and true (every use the oracle knows lies in a row's line range).
//!
//! Usage: `cargo run --release -p kivgraph-benches --bin answer_tokens -- INDEX_DIR
//! [--per-stratum N] [--seed S] [--rows] [--oracle ORACLE.jsonl]` (`--rows` prints each
//! question's figures too).
//! Sources are read from the checkouts the index records (`checkouts.json`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use kivgraph::tools;
use kivgraph_benches::accuracy::{Oracle, score};
use kivgraph_benches::{Rng, quantile, verdict_check};
use kivgraph_format::checkouts::Checkouts;
use kivgraph_format::{EdgeKind, Generation, IndexDir, Language, NONE, SymbolKind};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

const READ_CAP: usize = 2_000;

fn callable(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Func
            | SymbolKind::Function
            | SymbolKind::Method
            | SymbolKind::StaticMethod
            | SymbolKind::TraitMethod
    )
}

fn type_like(k: SymbolKind) -> bool {
    matches!(
        k,
        SymbolKind::Class
            | SymbolKind::Struct
            | SymbolKind::Interface
            | SymbolKind::Trait
            | SymbolKind::Type
            | SymbolKind::TypeAlias
            | SymbolKind::Enum
            | SymbolKind::Union
    )
}

/// The repository's text, and where each word occurs.
struct Corpus {
    g: Arc<Generation>,
    /// Per file id: its path and lines (empty when it could not be read).
    lines: Vec<(String, Vec<String>)>,
    /// Word → (file, 1-based line), one entry per line.
    words: HashMap<String, Vec<(u32, u32)>>,
    /// Per file: (start_line, end_line, symbol id, callable or type), for enclosing lookups.
    decls: Vec<Vec<(u32, u32, u32, bool)>>,
    /// (repository, path) → file.
    by_path: HashMap<(String, String), u32>,
    bpe: &'static CoreBPE,
    read_tokens: std::cell::RefCell<HashMap<(u32, u32, u32), usize>>,
}

impl Corpus {
    fn load(dir: &str) -> anyhow::Result<Corpus> {
        let index = IndexDir::new(dir);
        let g = Arc::new(
            Generation::open_current(&index)?
                .ok_or_else(|| anyhow::anyhow!("no generation in {dir}"))?,
        );
        let checkouts = Checkouts::read(&index);
        let b = g.graph();
        let st = &b.strings;
        let mut lines = Vec::with_capacity(b.files.len());
        let mut words: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        for (fid, f) in b.files.iter().enumerate() {
            let repo = &b.repositories[f.repository.to_native() as usize];
            let path = st.get(f.path.to_native()).to_string();
            let text = if repo.derived {
                None
            } else {
                checkouts
                    .repositories
                    .get(st.get(repo.name.to_native()))
                    .map(|root| PathBuf::from(root).join(&path))
                    .and_then(|p| std::fs::read_to_string(p).ok())
            };
            let file_lines: Vec<String> = text
                .map(|t| t.lines().map(str::to_string).collect())
                .unwrap_or_default();
            for (i, line) in file_lines.iter().enumerate() {
                let mut seen: HashSet<&str> = HashSet::new();
                for w in line
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .filter(|w| !w.is_empty())
                {
                    if seen.insert(w) {
                        words
                            .entry(w.to_string())
                            .or_default()
                            .push((fid as u32, i as u32 + 1));
                    }
                }
            }
            lines.push((path, file_lines));
        }
        let mut decls: Vec<Vec<(u32, u32, u32, bool)>> = vec![Vec::new(); b.files.len()];
        for (id, s) in b.symbols.iter().enumerate() {
            let k = SymbolKind::from_code(s.kind);
            let code = k.is_some_and(|k| callable(k) || type_like(k));
            decls[s.file.to_native() as usize].push((
                s.start_line.to_native(),
                s.end_line.to_native(),
                id as u32,
                code,
            ));
        }
        let by_path = b
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let repo = &b.repositories[f.repository.to_native() as usize];
                (
                    (
                        st.get(repo.name.to_native()).to_string(),
                        st.get(f.path.to_native()).to_string(),
                    ),
                    i as u32,
                )
            })
            .collect();
        Ok(Corpus {
            g,
            lines,
            words,
            decls,
            by_path,
            bpe: tiktoken_rs::o200k_base_singleton(),
            read_tokens: Default::default(),
        })
    }

    fn tokens(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    /// `rg -n -w name` over every repository of the generation (uses cross repositories, and
    /// so does the search): the hits and the output's tokens. Derived repositories have no text
    /// here, so they are never searched.
    fn grep(&self, name: &str) -> (Vec<(u32, u32)>, usize) {
        let hits: Vec<(u32, u32)> = self.words.get(name).cloned().unwrap_or_default();
        let mut out = String::new();
        for &(f, l) in &hits {
            let (path, lines) = &self.lines[f as usize];
            out.push_str(&format!("{path}:{l}:{}\n", lines[l as usize - 1]));
        }
        (hits, self.tokens(&out))
    }

    /// `rg -n -w name FILE`, then the eleven lines around each hit but import lines: (tokens,
    /// reads).
    fn grep_in_file(&self, name: &str, f: u32) -> (usize, usize) {
        let hits: Vec<u32> = self
            .words
            .get(name)
            .into_iter()
            .flatten()
            .filter(|h| h.0 == f)
            .map(|h| h.1)
            .collect();
        let (path, lines) = &self.lines[f as usize];
        let out: String = hits
            .iter()
            .map(|&l| format!("{path}:{l}:{}\n", lines[l as usize - 1]))
            .collect();
        let mut tokens = self.tokens(&out);
        let mut reads = 0;
        for &l in &hits {
            if !import_line(&lines[l as usize - 1]) {
                let n = lines.len() as u32;
                tokens += self.read(f, l.saturating_sub(5).max(1), (l + 5).min(n));
                reads += 1;
            }
        }
        (tokens, reads)
    }

    /// The declaration an agent reads to check a hit: (file, first line, last line, the
    /// declaration's symbol when there is one).
    fn enclosing(&self, f: u32, l: u32) -> (u32, u32, u32, Option<u32>) {
        let best = self.decls[f as usize]
            .iter()
            .filter(|d| d.3 && d.0 <= l && l <= d.1)
            .min_by_key(|d| d.1 - d.0);
        match best {
            Some(&(a, z, id, _)) => (f, a, z, Some(id)),
            None => {
                let n = self.lines[f as usize].1.len() as u32;
                (f, l.saturating_sub(5).max(1), (l + 5).min(n), None)
            }
        }
    }

    /// The tokens of reading lines `a..=z` of file `f` (as `path`, then the numbered lines).
    fn read(&self, f: u32, a: u32, z: u32) -> usize {
        if let Some(&t) = self.read_tokens.borrow().get(&(f, a, z)) {
            return t;
        }
        let (path, lines) = &self.lines[f as usize];
        let mut text = format!("{path}\n");
        for l in a..=z.min(lines.len() as u32) {
            text.push_str(&format!("{l}\t{}\n", lines[l as usize - 1]));
        }
        let t = self.tokens(&text);
        self.read_tokens.borrow_mut().insert((f, a, z), t);
        t
    }

    /// Calls a tool and follows its cursor: (tokens, calls, the first page).
    fn ask(&self, tool: &str, args: Value) -> anyhow::Result<(usize, usize, Value)> {
        let mut args = args;
        let (mut tokens, mut calls) = (0, 0);
        let mut first = Value::Null;
        loop {
            let text = tools::call(tool, &args, Some(self.g.clone()))
                .map_err(|e| anyhow::anyhow!("{tool} {args}: {e}"))?;
            tokens += self.tokens(&text);
            calls += 1;
            let v: Value = serde_json::from_str(&text)?;
            let next = v
                .get("next_cursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if first.is_null() {
                first = v;
            }
            match next {
                Some(c) => args["cursor"] = json!(c),
                None => return Ok((tokens, calls, first)),
            }
        }
    }
}

/// One question's cost on each side.
#[derive(Clone, Copy)]
struct Cost {
    kg_tokens: usize,
    kg_calls: usize,
    grep_tokens: usize,
    grep_calls: usize,
}

/// The grep agent's walk: grep each name of the frontier, read the enclosing declaration of
/// every hit, and take the names of what it read as the next frontier, `levels` times.
/// Whether a line, as grep prints it, is an import or re-export statement (which an agent after
/// the code that uses a name passes over without reading around it).
fn import_line(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("import ")
        || (t.starts_with("from ") && t.contains(" import "))
        || t.starts_with("use ")
        || t.starts_with("pub use ")
        || (t.starts_with("export ") && t.contains(" from "))
}

fn grep_and_read(c: &Corpus, subject: u32, levels: usize, skip_imports: bool) -> (usize, usize) {
    let b = c.g.graph();
    let s = &b.symbols[subject as usize];
    let own = (s.file.to_native(), s.start_line.to_native());
    let (mut tokens, mut calls) = (0, 0);
    let mut frontier = vec![b.strings.get(s.name.to_native()).to_string()];
    let mut grepped: HashSet<String> = HashSet::new();
    let mut read: HashSet<(u32, u32, u32)> = HashSet::new();
    for _ in 0..levels {
        let mut next = Vec::new();
        for name in frontier {
            if !grepped.insert(name.clone()) {
                continue;
            }
            let (hits, t) = c.grep(&name);
            tokens += t;
            calls += 1;
            for (f, l) in hits {
                if (f, l) == own
                    || read.len() >= READ_CAP
                    || (skip_imports && import_line(&c.lines[f as usize].1[l as usize - 1]))
                {
                    continue;
                }
                let (f, a, z, id) = c.enclosing(f, l);
                if read.insert((f, a, z)) {
                    tokens += c.read(f, a, z);
                    calls += 1;
                    if let Some(id) = id {
                        next.push(
                            b.strings
                                .get(b.symbols[id as usize].name.to_native())
                                .to_string(),
                        );
                    }
                }
            }
        }
        frontier = next;
    }
    (tokens, calls)
}

fn main() -> anyhow::Result<()> {
    let cli = kivgraph_benches::Cli::new(
        "usage: answer_tokens INDEX_DIR [--per-stratum N] [--seed S] [--rows] [--oracle ORACLE.jsonl]",
    );
    let dir = cli.positional()?;
    let per: usize = cli.value("--per-stratum", 25)?;
    let seed: u64 = cli.value("--seed", 11)?;
    let rows = cli.flag("--rows");
    let oracle: String = cli.value("--oracle", String::new())?;

    let t = std::time::Instant::now();
    let c = Corpus::load(dir)?;
    let b = c.g.graph();
    let st = &b.strings;
    println!(
        "generation {}: {} symbols, {} files read, {} distinct words ({:.1} s to load)",
        c.g.id,
        b.symbols.len(),
        c.lines.iter().filter(|l| !l.1.is_empty()).count(),
        c.words.len(),
        t.elapsed().as_secs_f64()
    );

    // The oracle's uses of each symbol, when one is given.
    let oracle_uses = if oracle.is_empty() {
        None
    } else {
        let o = Oracle::read(std::path::Path::new(&oracle))?;
        Some(verdict_check::uses_by_symbol(&score(&o, &c.g)))
    };
    let callables = verdict_check::Callables::new(&c.g);

    // Strata.
    // A Python stub's declaration (`.pyi`) is a type checker's view of a declaration of the
    // module beside it, not a homonym: stubs are neither counted nor asked about.
    let stub = |s: &kivgraph_format::blob::ArchivedSymbolRec| {
        st.get(b.files[s.file.to_native() as usize].path.to_native())
            .ends_with(".pyi")
    };
    let mut declared: HashMap<&str, usize> = HashMap::new();
    for s in b.symbols.iter().filter(|s| !stub(s)) {
        *declared.entry(st.get(s.name.to_native())).or_default() += 1;
    }
    let mut strata: BTreeMap<(String, &str, &str), Vec<u32>> = BTreeMap::new();
    for (id, s) in b.symbols.iter().enumerate() {
        if b.repositories[s.repository.to_native() as usize].derived
            || c.lines[s.file.to_native() as usize].1.is_empty()
            || stub(s)
        {
            continue;
        }
        let Some(kind) = SymbolKind::from_code(s.kind) else {
            continue;
        };
        let group = if callable(kind) {
            "callable"
        } else if type_like(kind) {
            "type"
        } else {
            continue;
        };
        let used = b.reverse.row(id as u32).iter().any(|e| {
            EdgeKind::from_code(e.kind).is_some_and(|k| {
                k.is_reference() && !matches!(k, EdgeKind::Exports | EdgeKind::Reexports)
            }) && e.file.to_native() != NONE
        });
        if !used {
            continue;
        }
        let many = if declared[st.get(s.name.to_native())] > 1 {
            "declared more than once"
        } else {
            "declared once"
        };
        let language = Language::from_code(s.language).map_or("?", |l| l.as_str());
        strata
            .entry((language.to_string(), many, group))
            .or_default()
            .push(id as u32);
    }
    let mut rng = Rng::new(seed);
    for ids in strata.values_mut() {
        for i in 0..per.min(ids.len()) {
            let j = i + rng.below(ids.len() - i);
            ids.swap(i, j);
        }
        ids.truncate(per);
    }

    // (language, question, multiplicity) → costs; and the verdicts of "who uses X".
    let mut costs: BTreeMap<(String, &str, &str), Vec<Cost>> = BTreeMap::new();
    let mut verdicts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // Per language: (checked against the oracle, COMPLETE, COMPLETE and true).
    let mut checked: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for ((language, many, group), ids) in &strata {
        for &id in ids {
            let key = st.get(b.symbols[id as usize].key.to_native());
            let name = st.get(b.symbols[id as usize].name.to_native());
            // How far its uses reach: another repository, another package, or its own package.
            let subject = &b.symbols[id as usize];
            let mut reach = "used in its own package only";
            for e in b.reverse.row(id) {
                let from = &b.symbols[e.other.to_native() as usize];
                if from.repository != subject.repository {
                    reach = "used from other repositories";
                    break;
                }
                if from.package != subject.package {
                    reach = "used from other packages";
                }
            }

            let (kt, kc, first) = c.ask("find_references", json!({"stable_key": key}))?;
            let (gt, gc) = grep_and_read(&c, id, 1, false);
            let v = verdicts.entry(language.clone()).or_default();
            v.0 += 1;
            if first["completeness"]["verdict"] == "COMPLETE" {
                v.1 += 1;
            }
            if let Some(list) = oracle_uses.as_ref().and_then(|m| m.get(&id)) {
                let r = verdict_check::check(&c.g, &callables, id, list)?;
                let t = checked.entry(language.clone()).or_default();
                t.0 += 1;
                t.1 += usize::from(r.complete);
                t.2 += usize::from(r.complete && r.missed.is_empty());
                if r.false_complete() {
                    let (f, l) = r.missed[0];
                    println!(
                        "false COMPLETE: {key} misses {}",
                        verdict_check::site(&c.g, f, l)
                    );
                }
            }
            let uses = Cost {
                kg_tokens: kt,
                kg_calls: kc,
                grep_tokens: gt,
                grep_calls: gc,
            };

            let (bt, bc, _) = c.ask("get_blast_radius", json!({"stable_key": key, "depth": 2}))?;
            let (g2t, g2c) = grep_and_read(&c, id, 2, false);
            let breaks = Cost {
                kg_tokens: bt,
                kg_calls: bc,
                grep_tokens: g2t,
                grep_calls: g2c,
            };

            // Callers, from the full view (not counted: the compact pages above are what the
            // agent read, and they carry each row's kind and edge kind), then their code and X's,
            // 20 per get_source call. A caller that only imports or re-exports X is passed over
            // (as the grep agent passes over import lines). A module (a use at file level) is
            // not read whole: the agent greps X in that one file and reads the lines around
            // each hit, as the grep agent does.
            let mut selectors: Vec<Value> = vec![json!({"stable_key": key})];
            let mut callers: Vec<(Value, bool, bool)> = Vec::new();
            let mut seen: HashMap<String, usize> = HashMap::new();
            let mut cursor: Option<String> = None;
            loop {
                let mut a = json!({"stable_key": key, "view": "full", "limit": 500});
                if let Some(cur) = &cursor {
                    a["cursor"] = json!(cur);
                }
                let text = tools::call("find_references", &a, Some(c.g.clone()))
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                let v: Value = serde_json::from_str(&text)?;
                for r in v["results"]["references"].as_array().into_iter().flatten() {
                    let sel = json!({
                        "qualified_name": r["qualified_name"],
                        "repository": r["repository"],
                        "path": r["file_path"],
                    });
                    let import = matches!(
                        r["edge_kind"].as_str(),
                        Some("IMPORTS_SYMBOL" | "EXPORTS" | "REEXPORTS")
                    );
                    let i = *seen.entry(sel.to_string()).or_insert_with(|| {
                        callers.push((sel, true, r["kind"] == "module"));
                        callers.len() - 1
                    });
                    callers[i].1 &= import;
                }
                cursor = v["next_cursor"].as_str().map(str::to_string);
                if cursor.is_none() {
                    break;
                }
            }
            let (mut st_tokens, mut st_calls) = (kt, kc);
            for (sel, only_imports, module) in callers {
                if only_imports {
                    continue;
                }
                if !module {
                    selectors.push(sel);
                    continue;
                }
                let file = c.by_path.get(&(
                    sel["repository"].as_str().unwrap_or_default().to_string(),
                    sel["path"].as_str().unwrap_or_default().to_string(),
                ));
                if let Some(&f) = file {
                    let (t, n) = c.grep_in_file(name, f);
                    st_tokens += t;
                    st_calls += 1 + n;
                }
            }
            for chunk in selectors.chunks(20) {
                match tools::call("get_source", &json!({"symbols": chunk}), Some(c.g.clone())) {
                    Ok(text) => st_tokens += c.tokens(&text),
                    // A selector that names several declarations: the agent asks again.
                    Err(e) => st_tokens += c.tokens(&e.to_string()),
                }
                st_calls += 1;
            }
            let s = &b.symbols[id as usize];
            let own = c.read(
                s.file.to_native(),
                s.start_line.to_native(),
                s.end_line.to_native(),
            );
            let (gi, gic) = grep_and_read(&c, id, 1, true);
            let show = Cost {
                kg_tokens: st_tokens,
                kg_calls: st_calls,
                grep_tokens: gi + own,
                grep_calls: gic + 1,
            };

            for (q, cost) in [
                ("who uses X", uses),
                ("what breaks if X changes", breaks),
                ("show me X and its callers' code", show),
            ] {
                if rows {
                    println!(
                        "{language}\t{many}\t{group}\t{name}\t{q}\tkivgraph {} tokens/{} calls\tgrep {} tokens/{} calls",
                        cost.kg_tokens, cost.kg_calls, cost.grep_tokens, cost.grep_calls
                    );
                }
                costs
                    .entry((language.clone(), q, many))
                    .or_default()
                    .push(cost);
                costs
                    .entry((language.clone(), q, "all"))
                    .or_default()
                    .push(cost);
                costs
                    .entry((language.clone(), q, reach))
                    .or_default()
                    .push(cost);
            }
        }
    }

    println!(
        "\n{:<11} {:<33} {:<24} {:>4} {:>8} {:>8} {:>8} {:>10} {:>10} {:>6} {:>6}",
        "language",
        "question",
        "names",
        "n",
        "ratio p50",
        "p10",
        "p90",
        "kg tok p50",
        "grep p50",
        "kg c",
        "grep c"
    );
    for ((language, q, many), list) in &costs {
        let mut ratio: Vec<f64> = list
            .iter()
            .map(|c| c.grep_tokens as f64 / c.kg_tokens.max(1) as f64)
            .collect();
        ratio.sort_by(f64::total_cmp);
        let med = |f: &dyn Fn(&Cost) -> usize| {
            let mut v: Vec<f64> = list.iter().map(|c| f(c) as f64).collect();
            v.sort_by(f64::total_cmp);
            quantile(&v, 0.5)
        };
        println!(
            "{:<11} {:<33} {:<24} {:>4} {:>7.1}x {:>7.1}x {:>7.1}x {:>10.0} {:>10.0} {:>6.0} {:>6.0}",
            language,
            q,
            many,
            list.len(),
            quantile(&ratio, 0.5),
            quantile(&ratio, 0.1),
            quantile(&ratio, 0.9),
            med(&|c| c.kg_tokens),
            med(&|c| c.grep_tokens),
            med(&|c| c.kg_calls),
            med(&|c| c.grep_calls),
        );
    }
    println!();
    for (language, (asked, complete)) in &verdicts {
        println!(
            "{language}: \"who uses X\" answers COMPLETE: {complete} of {asked} ({:.1} %)",
            100.0 * *complete as f64 / (*asked).max(1) as f64
        );
    }
    for (language, (n, complete, true_)) in &checked {
        println!(
            "{language}: \"who uses X\" answers checked against the oracle: {n}; COMPLETE {complete} \
             ({:.1} %), COMPLETE and true {true_} ({:.1} % of all checked)",
            100.0 * *complete as f64 / (*n).max(1) as f64,
            100.0 * *true_ as f64 / (*n).max(1) as f64
        );
    }
    Ok(())
}
