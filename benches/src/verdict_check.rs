//! Whether a `COMPLETE` verdict is true: `find_references` about a symbol says `COMPLETE`, and
//! every use an accuracy oracle knows of that symbol is held by one of the answer's rows (row
//! level): a row whose line range holds the use and, when the use is inside a function or
//! method, is that function or something inside it. A row of the enclosing module or class
//! (an import, a base class) does not stand for a use inside one of its functions that the
//! answer leaves out.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use kivgraph::tools;
use kivgraph_format::{Generation, SymbolKind};
use serde_json::{Value, json};

use crate::accuracy::Report;

/// The oracle's uses of each graph symbol: symbol → (graph file, line), sorted. Uses the graph
/// omits on purpose (`accuracy::DROP_EXEMPTIONS`, part of a declaration) are not among them.
pub fn uses_by_symbol(report: &Report) -> BTreeMap<u32, Vec<(u32, u32)>> {
    let mut map: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    for u in &report.uses_by_target {
        let list = map.entry(u.symbol).or_default();
        if list.last() != Some(&(u.file, u.line)) {
            list.push((u.file, u.line));
        }
    }
    map
}

/// The functions and methods of each file, as line ranges: what holds a use inside them.
pub struct Callables(HashMap<u32, Vec<(u32, u32)>>);

impl Callables {
    pub fn new(g: &Generation) -> Callables {
        let b = g.graph();
        let mut by_file: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
        for s in b.symbols.iter() {
            if matches!(
                SymbolKind::from_code(s.kind),
                Some(
                    SymbolKind::Func
                        | SymbolKind::Function
                        | SymbolKind::Method
                        | SymbolKind::StaticMethod
                        | SymbolKind::TraitMethod
                )
            ) {
                by_file
                    .entry(s.file.to_native())
                    .or_default()
                    .push((s.start_line.to_native(), s.end_line.to_native()));
            }
        }
        Callables(by_file)
    }

    /// The innermost function or method of `file` whose lines hold `line`.
    fn innermost(&self, file: u32, line: u32) -> Option<(u32, u32)> {
        self.0
            .get(&file)?
            .iter()
            .filter(|&&(a, z)| a <= line && line <= z)
            .min_by_key(|&&(a, z)| z - a)
            .copied()
    }
}

/// One answer checked against the oracle.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The first page's verdict was `COMPLETE`.
    pub complete: bool,
    /// Oracle uses (graph file, line) no row of the answer holds.
    pub missed: Vec<(u32, u32)>,
}

impl Checked {
    /// A `COMPLETE` verdict that misses a use the oracle knows.
    pub fn false_complete(&self) -> bool {
        self.complete && !self.missed.is_empty()
    }
}

/// Asks `find_references` (incoming, full view, every page) about `symbol` and checks its rows
/// against `uses` (graph file, line).
pub fn check(
    g: &Arc<Generation>,
    callables: &Callables,
    symbol: u32,
    uses: &[(u32, u32)],
) -> anyhow::Result<Checked> {
    let b = g.graph();
    let st = &b.strings;
    let key = st.get(b.symbols[symbol as usize].key.to_native());
    // (repository, path) → the rows' line ranges there.
    let mut ranges: HashMap<(String, String), Vec<(u32, u32)>> = HashMap::new();
    let mut complete = None;
    let mut cursor: Option<String> = None;
    loop {
        let mut args =
            json!({"stable_key": key, "view": "full", "limit": 500, "edge_kinds": ["*"]});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let text = tools::call("find_references", &args, Some(g.clone()))
            .map_err(|e| anyhow::anyhow!("find_references {args}: {e}"))?;
        let v: Value = serde_json::from_str(&text)?;
        if complete.is_none() {
            complete = Some(v["completeness"]["verdict"] == "COMPLETE");
        }
        for r in v["results"]["references"].as_array().into_iter().flatten() {
            let text = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            let line = |k: &str| r[k].as_u64().unwrap_or(0) as u32;
            ranges
                .entry((text("repository"), text("file_path")))
                .or_default()
                .push((line("start_line"), line("end_line")));
        }
        cursor = v["next_cursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    let mut missed = Vec::new();
    for &(file, line) in uses {
        let f = &b.files[file as usize];
        let repo = st
            .get(
                b.repositories[f.repository.to_native() as usize]
                    .name
                    .to_native(),
            )
            .to_string();
        let path = st.get(f.path.to_native()).to_string();
        let inside = callables.innermost(file, line);
        let hit = ranges.get(&(repo, path)).is_some_and(|rs| {
            rs.iter().any(|&(a, z)| {
                a <= line && line <= z && inside.is_none_or(|(ca, cz)| ca <= a && z <= cz)
            })
        });
        if !hit {
            missed.push((file, line));
        }
    }
    missed.sort();
    missed.dedup();
    Ok(Checked {
        complete: complete.unwrap_or(false),
        missed,
    })
}

/// Every symbol the oracle sees used, asked about once.
#[derive(Debug, Default)]
pub struct Audit {
    /// Symbols the oracle sees used.
    pub checked: usize,
    /// Answers whose verdict is `COMPLETE`.
    pub complete: usize,
    /// Answers that are not `COMPLETE` and miss a use (honest: the verdict says so).
    pub lower_bound_missing: usize,
    /// `COMPLETE` answers that miss a use: the subject, how many uses it misses of how many,
    /// and the first missed use with what the graph binds on its line.
    pub false_complete: Vec<(String, usize, usize, String)>,
    /// The `COMPLETE` answers' missed uses, by the oracle's use form and what the graph has at
    /// the use (an edge to another symbol, an unresolved record, nothing): how many, and the
    /// first two (the use, the subject, what the graph has on the use's line).
    pub missed_by_form: BTreeMap<String, (usize, Vec<String>)>,
}

/// Checks the answer about every symbol the oracle sees used (see [`check`]).
pub fn audit(g: &Arc<Generation>, report: &Report) -> anyhow::Result<Audit> {
    let mut a = Audit::default();
    let callables = Callables::new(g);
    let mut lines: Option<Lines> = None;
    let mut forms: HashMap<(u32, u32, u32), (&str, u32)> = HashMap::new();
    for u in &report.uses_by_target {
        forms
            .entry((u.symbol, u.file, u.line))
            .or_insert((&u.form, u.column));
    }
    for (sym, uses) in uses_by_symbol(report) {
        let c = check(g, &callables, sym, &uses)?;
        a.checked += 1;
        if c.complete {
            a.complete += 1;
        } else if !c.missed.is_empty() {
            a.lower_bound_missing += 1;
        }
        if c.false_complete() {
            let lines = lines.get_or_insert_with(|| Lines::new(g));
            for &(f, l) in &c.missed {
                let (form, column) = forms.get(&(sym, f, l)).copied().unwrap_or(("?", 0));
                let outcome = lines.at_site(f, l, column);
                let entry = a
                    .missed_by_form
                    .entry(format!("{form}; at the use the graph has {outcome}"))
                    .or_default();
                entry.0 += 1;
                if entry.1.len() < 2 {
                    entry.1.push(format!(
                        "{}:{column} of {} (on the line: {})",
                        site(g, f, l),
                        label(g, sym),
                        lines.on_line(f, l)
                    ));
                }
            }
            let (f, l) = c.missed[0];
            a.false_complete.push((
                label(g, sym),
                c.missed.len(),
                uses.len(),
                format!(
                    "{} (the graph has there: {})",
                    site(g, f, l),
                    lines.on_line(f, l)
                ),
            ));
        }
    }
    Ok(a)
}

/// `repository:path:line kind qualified_name` of a symbol.
fn label(g: &Generation, sym: u32) -> String {
    let b = g.graph();
    let st = &b.strings;
    let s = &b.symbols[sym as usize];
    let f = &b.files[s.file.to_native() as usize];
    format!(
        "{}:{}:{} {} {}",
        st.get(
            b.repositories[f.repository.to_native() as usize]
                .name
                .to_native()
        ),
        st.get(f.path.to_native()),
        s.start_line.to_native(),
        kivgraph_format::SymbolKind::from_code(s.kind).map_or("?", |k| k.as_str()),
        st.get(s.qualified_name.to_native()),
    )
}

/// `repository:path:line`.
pub fn site(g: &Generation, file: u32, line: u32) -> String {
    let b = g.graph();
    let f = &b.files[file as usize];
    format!(
        "{}:{}:{line}",
        b.strings.get(
            b.repositories[f.repository.to_native() as usize]
                .name
                .to_native()
        ),
        b.strings.get(f.path.to_native())
    )
}

/// What the graph has on each (file, line): its edges (column and how they read) and its
/// unresolved records (column and reason); built once, on the first miss that needs it.
struct Lines(HashMap<(u32, u32), Vec<(u32, String)>>);

impl Lines {
    fn new(g: &Generation) -> Lines {
        let b = g.graph();
        let mut at: HashMap<(u32, u32), Vec<(u32, String)>> = HashMap::new();
        for s in 0..b.symbols.len() as u32 {
            for e in b.forward.row(s) {
                at.entry((e.file.to_native(), e.line.to_native()))
                    .or_default()
                    .push((
                        e.column.to_native(),
                        format!(
                            "{} -> {} ({})",
                            kivgraph_format::EdgeKind::from_code(e.kind)
                                .map_or("?", |k| k.as_str()),
                            label(g, e.other.to_native()),
                            kivgraph_format::Confidence::from_code(e.confidence)
                                .map_or("?", |c| c.as_str()),
                        ),
                    ));
            }
        }
        for u in b.unresolved.iter() {
            at.entry((u.file.to_native(), u.line.to_native()))
                .or_default()
                .push((
                    u.column.to_native(),
                    format!("unresolved {}", b.strings.get(u.reason.to_native())),
                ));
        }
        Lines(at)
    }

    /// What the graph has at a use's site: an edge to another symbol, an unresolved record, or
    /// nothing (and then whether it has something elsewhere on the line).
    fn at_site(&self, file: u32, line: u32, column: u32) -> &'static str {
        let here = self.0.get(&(file, line)).map_or(&[][..], Vec::as_slice);
        let at = |unresolved: bool| {
            here.iter()
                .any(|(c, t)| *c == column && t.starts_with("unresolved") == unresolved)
        };
        if at(false) {
            "an edge to another symbol"
        } else if at(true) {
            "an unresolved record"
        } else if here.is_empty() {
            "nothing on the line"
        } else {
            "nothing (edges elsewhere on the line)"
        }
    }

    /// Everything on `line` of `file`, joined.
    fn on_line(&self, file: u32, line: u32) -> String {
        match self.0.get(&(file, line)) {
            Some(v) if !v.is_empty() => v
                .iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            _ => "nothing".into(),
        }
    }
}
