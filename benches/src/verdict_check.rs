//! Whether a `COMPLETE` verdict is true: `find_references` about a symbol says `COMPLETE`, and
//! every use an accuracy oracle knows of that symbol lies in the line range of one of the
//! answer's rows (row level: a row is right only when its range holds the use).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use kivgraph::tools;
use kivgraph_format::Generation;
use serde_json::{Value, json};

use crate::accuracy::Report;

/// The oracle's uses of each graph symbol: symbol → (graph file, line), sorted.
pub fn uses_by_symbol(report: &Report) -> BTreeMap<u32, Vec<(u32, u32)>> {
    let mut map: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    for &(sym, file, line) in &report.uses_by_target {
        map.entry(sym).or_default().push((file, line));
    }
    map
}

/// One answer checked against the oracle.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The first page's verdict was `COMPLETE`.
    pub complete: bool,
    /// Oracle uses no row of the answer holds, as `repository:path:line`.
    pub missed: Vec<String>,
}

impl Checked {
    /// A `COMPLETE` verdict that misses a use the oracle knows.
    pub fn false_complete(&self) -> bool {
        self.complete && !self.missed.is_empty()
    }
}

/// Asks `find_references` (incoming, full view, every page) about `symbol` and checks its rows
/// against `uses` (graph file, line).
pub fn check(g: &Arc<Generation>, symbol: u32, uses: &[(u32, u32)]) -> anyhow::Result<Checked> {
    let b = g.graph();
    let st = &b.strings;
    let key = st.get(b.symbols[symbol as usize].key.to_native());
    // (repository, path) → the rows' line ranges there.
    let mut ranges: HashMap<(String, String), Vec<(u32, u32)>> = HashMap::new();
    let mut complete = None;
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"stable_key": key, "view": "full", "limit": 500});
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
        let hit = ranges
            .get(&(repo.clone(), path.clone()))
            .is_some_and(|rs| rs.iter().any(|&(a, z)| a <= line && line <= z));
        if !hit {
            missed.push(format!("{repo}:{path}:{line}"));
        }
    }
    missed.sort();
    missed.dedup();
    Ok(Checked {
        complete: complete.unwrap_or(false),
        missed,
    })
}
