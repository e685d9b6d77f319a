//! Writes a finished fact set as the files of a generation: seven Parquet tables, the graph
//! blob (with the term index of `find_by_intent`) and the name index. Everything is derived from one [`Finished`], in its canonical order,
//! so the same facts always give the same bytes.

use kivgraph_format::blob::{
    self, Csr, EdgeRec, FileRec, GraphBlob, PackageEdgeRec, PackageRec, RepositoryRec, StringTable,
    SymbolRec, UnresolvedRec,
};
use kivgraph_format::manifest::RowCounts;
use kivgraph_format::tables::{Column, Reused, TableBuilder};
use kivgraph_format::{FormatError, NONE, names, terms};

use std::sync::Arc;

use kivgraph_format::{Confidence, EdgeKind, Provenance};

use crate::facts::{FileId, Finished, PackageId, RepoId, SymbolId};

/// What encoding a generation gave besides its files.
pub struct Encoded {
    /// The bytes of every file handed to the sink.
    pub bytes: u64,
    pub rows: RowCounts,
    pub tallies: kivgraph_format::manifest::Tallies,
    /// The tables' column chunks copied from the earlier generation, and encoded.
    pub chunks: kivgraph_format::tables::Reused,
}

/// Where each file of a generation goes as soon as it is encoded (its name, its bytes).
pub type Sink<'a> = dyn Fn(&str, Vec<u8>) -> Result<(), FormatError> + Sync + 'a;

/// Encodes every file of a generation but the manifest and hands each to `out` as soon as it
/// is ready, so that writing the tables overlaps encoding the blob. Which file comes first
/// depends on the schedule; their bytes do not. A table's column chunks that `earlier` (the
/// generation the index served) holds with the same digest are copied from it, not encoded:
/// the same bytes.
pub fn encode(
    f: &Finished,
    cache: Option<&crate::disk_cache::DiskCache>,
    earlier: Option<&kivgraph_format::tables::EarlierTables>,
    out: &Sink<'_>,
) -> Result<Encoded, FormatError> {
    let emit = |name: &str, bytes: Vec<u8>| -> Result<u64, FormatError> {
        let len = bytes.len() as u64;
        out(name, bytes)?;
        Ok(len)
    };
    // The tables and the blob are independent encodings of the same facts, built side by side.
    let (tables, blob) = rayon::join(
        || -> Result<(u64, Reused), FormatError> {
            use rayon::prelude::*;
            // Each table built, encoded and written by a task of its own.
            let tables = kivgraph_format::tables::TABLES
                .par_iter()
                .with_max_len(1)
                .map(|&(name, _)| {
                    let reuse = earlier.and_then(|e| e.load(name));
                    let (bytes, chunks) = table(f, name).to_parquet_reusing(reuse.as_ref())?;
                    Ok((emit(&format!("{name}.parquet"), bytes)?, chunks))
                })
                .collect::<Result<Vec<_>, FormatError>>()?;
            let chunks: Reused = tables.iter().map(|(_, c)| *c).sum();
            let tables: u64 = tables.iter().map(|(b, _)| b).sum();
            let file_of: Vec<u32> = f.symbols.iter().map(|s| s.file.0 as u32).collect();
            let symbols = emit(
                kivgraph_format::file_symbols::FILE_SYMBOLS,
                kivgraph_format::file_symbols::encode(f.files.len(), &file_of),
            )?;
            let reach: Vec<kivgraph_format::scope_reach::Entry> = f
                .unresolved
                .iter()
                .enumerate()
                .filter(|(_, u)| u.file.is_none())
                .filter_map(|(i, u)| {
                    let r = u.reach.as_ref()?;
                    Some(kivgraph_format::scope_reach::Entry {
                        record: i as u32,
                        imports: r.imports.clone(),
                        declares: r.declares.clone(),
                    })
                })
                .collect();
            let reach = emit(
                kivgraph_format::scope_reach::SCOPE_REACH,
                kivgraph_format::scope_reach::encode(f.unresolved.len(), &reach),
            )?;
            Ok((tables + symbols + reach, chunks))
        },
        || -> Result<u64, FormatError> {
            let (graph, fst) = graph_blob(f, cache)?;
            let (graph, grams) = rayon::join(
                || blob::encode(&graph),
                || -> Result<Vec<u8>, FormatError> {
                    let mut distinct = Vec::new();
                    let names = kivgraph_format::names::open(fst.as_slice())?;
                    kivgraph_format::names::for_each_prefix(
                        &names,
                        kivgraph_format::names::TAG_NAME,
                        "",
                        |s, r| distinct.push((s.to_string(), r)),
                    );
                    Ok(kivgraph_format::name_grams::encode(&distinct))
                },
            );
            Ok(emit(kivgraph_format::GRAPH_BLOB, graph?)?
                + emit(kivgraph_format::name_grams::NAME_GRAMS, grams?)?
                + emit(kivgraph_format::NAMES_FST, fst)?)
        },
    );
    let (tables, chunks) = tables?;
    let bytes = tables + blob?;
    let rows = RowCounts {
        repositories: f.repos.len() as u64,
        packages: f.packages.len() as u64,
        files: f.files.len() as u64,
        symbols: f.symbols.len() as u64,
        edges: f.edges.len() as u64,
        package_edges: f.package_edges.len() as u64,
        unresolved: f.unresolved.len() as u64,
    };
    let mut tallies = kivgraph_format::manifest::Tallies::default();
    for e in &f.edges {
        *tallies
            .edges_by_kind
            .entry(e.kind.as_str().to_string())
            .or_default() += 1;
        tallies.evidence += u64::from(e.file.is_some());
    }
    for u in &f.unresolved {
        *tallies
            .unresolved_by_reason
            .entry(u.reason.clone())
            .or_default() += 1;
    }
    Ok(Encoded {
        bytes,
        rows,
        tallies,
        chunks,
    })
}

macro_rules! push {
    ($t:expr, $i:expr, $variant:ident, $v:expr) => {
        match &mut $t.columns[$i] {
            Column::$variant(col) => col.push($v),
            _ => unreachable!("column {} of {} has another type", $i, $t.name),
        }
    };
}

/// Builds the table `name` (one of [`kivgraph_format::tables::TABLES`]).
fn table(f: &Finished, name: &str) -> TableBuilder {
    let repo_name = |r: RepoId| f.repos[r].name.clone();
    match name {
        "repositories" => {
            let mut repos = TableBuilder::new("repositories");
            for r in &f.repos {
                push!(repos, 0, Str, r.name.clone());
                // The checkout is the compiling machine's: recorded beside the index (`checkouts.json`),
                // never in a generation (SPEC 1.10).
                push!(repos, 1, Str, String::new());
                push!(repos, 2, OptStr, r.commit.clone());
                push!(repos, 3, OptStr, r.branch.clone());
                push!(repos, 4, OptBool, r.dirty);
                push!(
                    repos,
                    5,
                    StrList,
                    r.languages.iter().map(|l| l.as_str().to_string()).collect()
                );
                push!(repos, 6, Bool, r.derived);
            }
            repos
        }
        "packages" => {
            let mut packages = TableBuilder::new("packages");
            for (i, p) in f.packages.iter().enumerate() {
                push!(packages, 0, Str, f.package_key(PackageId(i)));
                push!(packages, 1, Str, repo_name(p.repo));
                push!(packages, 2, Str, p.language.as_str().to_string());
                push!(packages, 3, Str, p.name.clone());
                push!(packages, 4, Str, p.path.clone());
                push!(packages, 5, OptStr, p.module.clone());
            }
            packages
        }
        "files" => {
            let mut files = TableBuilder::new("files");
            for (i, file) in f.files.iter().enumerate() {
                push!(files, 0, Str, f.file_key(FileId(i)));
                push!(files, 1, Str, repo_name(file.repo));
                push!(files, 2, OptStr, file.package.map(|p| f.package_key(p)));
                push!(files, 3, Str, file.path.clone());
                push!(
                    files,
                    4,
                    OptStr,
                    file.language.map(|l| l.as_str().to_string())
                );
                push!(files, 5, Str, file.status.as_str().to_string());
                push!(files, 6, U64, file.size);
                push!(files, 7, U32, file.lines);
                push!(files, 8, Str, crate::hash::hex(&file.sha256));
            }
            files
        }
        "symbols" => {
            let mut symbols = TableBuilder::new("symbols");
            // The columns that repeat a few values pick them from a pool (no string a row).
            let rows = || f.symbols.iter();
            symbols.columns[4] = distinct_pooled(rows().map(|s| Some(s.kind.as_str())), false);
            symbols.columns[5] = distinct_pooled(rows().map(|s| Some(s.language.as_str())), false);
            symbols.columns[8] =
                distinct_pooled(rows().map(|s| Some(f.repos[s.repo].name.as_str())), false);
            symbols.columns[9] = distinct_pooled(
                rows().map(|s| Some(f.packages[s.package].name.as_str())),
                false,
            );
            symbols.columns[10] =
                distinct_pooled(rows().map(|s| Some(f.files[s.file].path.as_str())), false);
            for (i, s) in f.symbols.iter().enumerate() {
                push!(symbols, 0, U32, i as u32);
                push!(symbols, 1, Str, f.keys[i].clone());
                push!(symbols, 2, Str, s.name.clone());
                push!(symbols, 3, Str, s.qualified_name.clone());
                push!(symbols, 6, Bool, s.exported);
                push!(symbols, 7, OptStr, s.signature.clone());
                push!(symbols, 11, U32, s.span.start_line);
                push!(symbols, 12, U32, s.span.start_column);
                push!(symbols, 13, U32, s.span.end_line);
                push!(symbols, 14, U32, s.span.end_column);
                push!(symbols, 15, U32, s.span.start_byte);
                push!(symbols, 16, U32, s.span.end_byte);
            }
            symbols
        }
        "edges" => {
            // The long tables pick their repeated strings (keys, vocabulary names, repositories, paths)
            // from shared pools: four bytes a row while the table is built.
            let keys = Arc::new(f.keys.clone());
            let repos_pool = Arc::new(f.repos.iter().map(|r| r.name.clone()).collect::<Vec<_>>());
            let paths_pool = Arc::new(f.files.iter().map(|x| x.path.clone()).collect::<Vec<_>>());
            let kind_pool = Arc::new(code_names(
                EdgeKind::ALL
                    .iter()
                    .map(|k| (usize::from(k.code()), k.as_str())),
            ));
            let conf_pool = Arc::new(code_names(
                Confidence::ALL
                    .iter()
                    .map(|c| (usize::from(c.code()), c.as_str())),
            ));
            let prov_pool = Arc::new(code_names(
                Provenance::ALL
                    .iter()
                    .map(|p| (usize::from(p.code()), p.as_str())),
            ));
            let pooled = |ids: Vec<u32>, pool: &Arc<Vec<String>>| Column::Pooled {
                ids,
                pool: pool.clone(),
            };
            let opt_pooled = |ids: Vec<u32>, pool: &Arc<Vec<String>>| Column::OptPooled {
                ids,
                pool: pool.clone(),
            };
            let mut edges = TableBuilder::new("edges");
            edges.columns = vec![
                Column::U32(f.edges.iter().map(|e| e.source.0 as u32).collect()),
                pooled(f.edges.iter().map(|e| e.source.0 as u32).collect(), &keys),
                Column::U32(f.edges.iter().map(|e| e.target.0 as u32).collect()),
                pooled(f.edges.iter().map(|e| e.target.0 as u32).collect(), &keys),
                pooled(
                    f.edges.iter().map(|e| u32::from(e.kind.code())).collect(),
                    &kind_pool,
                ),
                pooled(
                    f.edges
                        .iter()
                        .map(|e| u32::from(e.confidence.code()))
                        .collect(),
                    &conf_pool,
                ),
                pooled(
                    f.edges
                        .iter()
                        .map(|e| u32::from(e.provenance.code()))
                        .collect(),
                    &prov_pool,
                ),
                opt_pooled(
                    f.edges
                        .iter()
                        .map(|e| e.file.map_or(NONE, |x| f.files[x].repo.0 as u32))
                        .collect(),
                    &repos_pool,
                ),
                opt_pooled(
                    f.edges
                        .iter()
                        .map(|e| e.file.map_or(NONE, |x| x.0 as u32))
                        .collect(),
                    &paths_pool,
                ),
                Column::U32(f.edges.iter().map(|e| e.line).collect()),
                Column::U32(f.edges.iter().map(|e| e.column).collect()),
            ];
            edges
        }
        "package_edges" => {
            let mut pedges = TableBuilder::new("package_edges");
            for e in &f.package_edges {
                push!(pedges, 0, Str, f.package_key(e.source));
                push!(pedges, 1, Str, f.package_key(e.target));
                push!(pedges, 2, Str, e.kind.as_str().to_string());
                push!(pedges, 3, Str, e.confidence.as_str().to_string());
                push!(pedges, 4, Str, e.provenance.as_str().to_string());
            }
            pedges
        }
        "unresolved" => {
            let mut unresolved = TableBuilder::new("unresolved");
            let rows = || f.unresolved.iter();
            unresolved.columns[0] =
                distinct_pooled(rows().map(|u| Some(f.repos[u.repo].name.as_str())), false);
            unresolved.columns[1] = distinct_pooled(
                rows().map(|u| u.file.map(|x| f.files[x].path.as_str())),
                true,
            );
            unresolved.columns[4] =
                distinct_pooled(rows().map(|u| Some(u.language.as_str())), false);
            unresolved.columns[5] = distinct_pooled(rows().map(|u| Some(u.reason.as_str())), false);
            unresolved.columns[6] =
                distinct_pooled(rows().map(|u| Some(u.requested_package.as_str())), false);
            for u in &f.unresolved {
                push!(unresolved, 2, U32, u.line);
                push!(unresolved, 3, U32, u.column);
                push!(unresolved, 7, OptStr, u.requested_symbol.clone());
                push!(unresolved, 8, OptStr, u.detail.clone());
                push!(unresolved, 9, OptStr, u.source.map(|s| f.keys[s.0].clone()));
            }
            unresolved
        }
        other => unreachable!("no table {other}"),
    }
}

/// A column of `values` picked from a pool of its distinct values (`optional`: `None` is null).
fn distinct_pooled<'a>(values: impl Iterator<Item = Option<&'a str>>, optional: bool) -> Column {
    let mut index: rustc_hash::FxHashMap<&str, u32> = Default::default();
    let mut pool: Vec<String> = Vec::new();
    let ids = values
        .map(|v| match v {
            None => NONE,
            Some(s) => *index.entry(s).or_insert_with(|| {
                pool.push(s.to_string());
                (pool.len() - 1) as u32
            }),
        })
        .collect();
    let pool = Arc::new(pool);
    if optional {
        Column::OptPooled { ids, pool }
    } else {
        Column::Pooled { ids, pool }
    }
}

/// A pool indexed by vocabulary code (unused codes are empty strings, never referenced).
fn code_names<'a>(entries: impl Iterator<Item = (usize, &'a str)>) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for (code, name) in entries {
        if v.len() <= code {
            v.resize(code + 1, String::new());
        }
        v[code] = name.to_string();
    }
    v
}

/// Interns strings: collected first, then sorted, so ids do not depend on visiting order.
#[derive(Default)]
struct Interner<'a> {
    /// Each distinct string once; ids are assigned in byte order when the table is sealed.
    ids: rustc_hash::FxHashMap<&'a str, u32>,
    /// Once sealed, the strings by id.
    sorted: Vec<&'a str>,
}

impl<'a> Interner<'a> {
    fn add(&mut self, s: &'a str) {
        self.ids.entry(s).or_insert(0);
    }
    fn add_opt(&mut self, s: Option<&'a str>) {
        if let Some(s) = s {
            self.add(s);
        }
    }
    fn seal(&mut self) -> StringTable {
        // Each entry's id is written through a reference to it, in sorted order: no string is
        // hashed again. Entries compare by their first eight bytes first, held beside them, and
        // read the strings only to break a tie: sorting by the strings alone read two scattered
        // strings a comparison and took 30 ms of an edit of the Rust pair.
        let mut entries: Vec<(u64, &'a str, &mut u32)> = self
            .ids
            .iter_mut()
            .map(|(s, id)| (prefix(s), *s, id))
            .collect();
        rayon::slice::ParallelSliceMut::par_sort_unstable_by(&mut entries[..], |a, b| {
            a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1))
        });
        let mut t = StringTable::default();
        t.bytes
            .reserve(entries.iter().map(|(_, s, _)| s.len()).sum());
        t.ends.reserve(entries.len());
        let mut sorted = Vec::with_capacity(entries.len());
        for (i, (_, s, id)) in entries.into_iter().enumerate() {
            *id = i as u32;
            t.bytes.extend_from_slice(s.as_bytes());
            t.ends.push(t.bytes.len() as u32);
            sorted.push(s);
        }
        self.sorted = sorted;
        t
    }
    fn id(&self, s: &str) -> u32 {
        self.ids[s]
    }
    fn opt(&self, s: Option<&str>) -> u32 {
        s.map_or(NONE, |s| self.id(s))
    }
}

/// The first eight bytes of `s` as a big-endian number, zeros after a shorter string: two
/// strings whose numbers differ are in the byte order of their numbers (a zero pads only where
/// a string has ended, and a string sorts before any longer one it begins).
fn prefix(s: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s.as_bytes()[..n]);
    u64::from_be_bytes(b)
}

fn graph_blob(
    f: &Finished,
    cache: Option<&crate::disk_cache::DiskCache>,
) -> Result<(GraphBlob, Vec<u8>), FormatError> {
    let package_keys: Vec<String> = (0..f.packages.len())
        .map(|i| f.package_key(PackageId(i)))
        .collect();
    let mut it = Interner::default();
    // Room for the strings of every record but the unresolved ones, whose few distinct strings
    // (reasons, requested names) repeat: reserving four per record made a table five times
    // larger than the strings it held, slower to fill and to walk.
    it.ids
        .reserve(4 * f.repos.len() + 4 * f.packages.len() + f.files.len() + 4 * f.symbols.len());
    for r in &f.repos {
        it.add(&r.name);
        it.add("");
        it.add_opt(r.commit.as_deref());
        it.add_opt(r.branch.as_deref());
    }
    for (p, key) in f.packages.iter().zip(&package_keys) {
        it.add(key);
        it.add(&p.name);
        it.add(&p.path);
        it.add_opt(p.module.as_deref());
    }
    for file in &f.files {
        it.add(&file.path);
    }
    for (s, key) in f.symbols.iter().zip(&f.keys) {
        it.add(key);
        it.add(&s.name);
        it.add(&s.qualified_name);
        it.add_opt(s.signature.as_deref());
    }
    for u in &f.unresolved {
        it.add(&u.reason);
        it.add(&u.requested_package);
        it.add_opt(u.requested_symbol.as_deref());
        it.add_opt(u.detail.as_deref());
    }
    let strings = it.seal();

    let repositories = f
        .repos
        .iter()
        .map(|r| RepositoryRec {
            name: it.id(&r.name),
            root: it.id(""),
            commit: it.opt(r.commit.as_deref()),
            branch: it.opt(r.branch.as_deref()),
            dirty: match r.dirty {
                Some(false) => 0,
                Some(true) => 1,
                None => 2,
            },
            languages: r.languages.iter().map(|l| l.code()).collect(),
            derived: r.derived,
        })
        .collect();
    let packages = f
        .packages
        .iter()
        .enumerate()
        .map(|(i, p)| PackageRec {
            key: it.id(&package_keys[i]),
            repository: p.repo.0 as u32,
            language: p.language.code(),
            name: it.id(&p.name),
            path: it.id(&p.path),
            module: it.opt(p.module.as_deref()),
        })
        .collect();
    let files = f
        .files
        .iter()
        .map(|x| FileRec {
            repository: x.repo.0 as u32,
            package: x.package.map_or(NONE, |p| p.0 as u32),
            path: it.id(&x.path),
            language: x.language.map_or(0, |l| l.code()),
            status: x.status as u8,
            size: x.size,
            lines: x.lines,
            sha256: x.sha256,
        })
        .collect();
    // Records are made on every thread (the interner is only read now); `collect` keeps order.
    use rayon::prelude::*;
    let symbols = f
        .symbols
        .par_iter()
        .zip(&f.keys)
        .map(|(s, key)| SymbolRec {
            key: it.id(key),
            name: it.id(&s.name),
            qualified_name: it.id(&s.qualified_name),
            kind: s.kind.code(),
            language: s.language.code(),
            exported: s.exported,
            signature: it.opt(s.signature.as_deref()),
            repository: s.repo.0 as u32,
            package: s.package.0 as u32,
            file: s.file.0 as u32,
            start_line: s.span.start_line,
            start_column: s.span.start_column,
            end_line: s.span.end_line,
            end_column: s.span.end_column,
            start_byte: s.span.start_byte,
            end_byte: s.span.end_byte,
        })
        .collect();

    let n = f.symbols.len();
    let half = |other: SymbolId, e: &crate::facts::Edge| EdgeRec {
        other: other.0 as u32,
        kind: e.kind.code(),
        confidence: e.confidence.code(),
        provenance: e.provenance.code(),
        file: e.file.map_or(NONE, |x| x.0 as u32),
        line: e.line,
        column: e.column,
    };
    let (forward, reverse) = rayon::join(
        || csr(n, f.edges.iter().map(|e| (e.source, half(e.target, e)))),
        || csr(n, f.edges.iter().map(|e| (e.target, half(e.source, e)))),
    );

    let unresolved: Vec<UnresolvedRec> = f
        .unresolved
        .par_iter()
        .map(|u| UnresolvedRec {
            repository: u.repo.0 as u32,
            file: u.file.map_or(NONE, |x| x.0 as u32),
            language: u.language.code(),
            source: u.source.map_or(NONE, |s| s.0 as u32),
            reason: it.id(&u.reason),
            requested_package: it.id(&u.requested_package),
            requested_symbol: it.opt(u.requested_symbol.as_deref()),
            detail: it.opt(u.detail.as_deref()),
            line: u.line,
            column: u.column,
        })
        .collect();
    // By requested name, then record: interned ids are in byte order, so the pairs sort as
    // integers (a key of the name's text cloned it at every comparison).
    let mut by_name: Vec<(u32, u32)> = unresolved
        .iter()
        .enumerate()
        .filter(|(_, u)| u.requested_symbol != NONE)
        .map(|(i, u)| (u.requested_symbol, i as u32))
        .collect();
    by_name.sort_unstable();
    let unresolved_by_name: Vec<u32> = by_name.into_iter().map(|(_, i)| i).collect();

    let package_edges = f
        .package_edges
        .iter()
        .map(|e| PackageEdgeRec {
            source: e.source.0 as u32,
            target: e.target.0 as u32,
            kind: e.kind.code(),
            confidence: e.confidence.code(),
            provenance: e.provenance.code(),
        })
        .collect();

    // The name index and the term index depend on the symbols' names, kinds, files and
    // callers alone, which an edit rarely changes: they are kept in the cache under a digest
    // of exactly that, and taken from it when a compile finds them.
    let callers: Vec<usize> = (0..n).map(|i| reference_callers(&reverse, i)).collect();
    let key = cache.map(|_| names_terms_digest(f, &callers));
    let kept = cache
        .zip(key)
        .and_then(|(c, k)| c.get::<NamesTerms>(k))
        .filter(|m| m.fits(n));
    let (names, terms) = match kept {
        Some(m) => {
            let (fst, postings, terms) = m.into_parts();
            (Ok((fst, postings)), Ok(terms))
        }
        None => {
            let (names, terms) = names_and_terms(f, &it, &callers);
            if let (Some(c), Some(k), Ok(names), Ok(terms)) = (cache, key, &names, &terms) {
                c.put(k, &NamesTermsRef::of(names, terms));
            }
            (names, terms)
        }
    };
    let (fst, name_postings) = names?;
    let terms = terms?;
    let graph = GraphBlob {
        strings,
        repositories,
        packages,
        files,
        symbols,
        forward,
        reverse,
        unresolved,
        unresolved_by_name,
        package_edges,
        name_postings,
        terms,
    };
    Ok((graph, fst))
}

/// The name index: `names.fst` and its postings.
type NameIndex = (Vec<u8>, Vec<u32>);

/// The name index and the term index of `f`'s symbols.
fn names_and_terms(
    f: &Finished,
    it: &Interner,
    callers: &[usize],
) -> (
    Result<NameIndex, FormatError>,
    Result<terms::TermIndex, FormatError>,
) {
    rayon::join(
        || {
            // Interned ids are in byte order: the entries sort as integers.
            let mut entries: Vec<(u8, u32, u32)> = f
                .symbols
                .iter()
                .enumerate()
                .flat_map(|(i, s)| {
                    [
                        (names::TAG_NAME, it.id(&s.name), i as u32),
                        (names::TAG_QUALIFIED, it.id(&s.qualified_name), i as u32),
                    ]
                })
                .collect();
            entries.sort_unstable();
            entries.dedup();
            names::build_sorted(
                entries
                    .into_iter()
                    .map(|(tag, s, i)| (tag, it.sorted[s as usize], i)),
            )
        },
        || {
            terms::build(
                f.symbols
                    .iter()
                    .enumerate()
                    .map(|(i, s)| terms::TermSource {
                        name: &s.name,
                        qualified_name: &s.qualified_name,
                        kind: s.kind.as_str(),
                        path: &f.files[s.file].path,
                        exported: s.exported,
                        callers: callers[i],
                    }),
            )
        },
    )
}

/// What the name index and the term index are made from, digested: each symbol's name,
/// qualified name, kind, file path, export and callers (capped as the index counts them), in
/// symbol order, under the digest of the compiler's sources (which covers how both are built).
fn names_terms_digest(f: &Finished, callers: &[usize]) -> u128 {
    let mut h = kivgraph_format::feed::Feed::new();
    h.field(crate::disk_cache::frontend_digest().as_bytes());
    h.field(b"names and terms of a generation");
    for (s, &c) in f.symbols.iter().zip(callers) {
        h.field(s.name.as_bytes());
        h.field(s.qualified_name.as_bytes());
        h.field(s.kind.as_str().as_bytes());
        h.field(f.files[s.file].path.as_bytes());
        h.field(&[u8::from(s.exported), c as u8]);
    }
    h.digest128()
}

/// [`NamesTerms`] as it is written: borrowed from the indexes just built (postcard encodes a
/// slice as it encodes a vector, so the two read and write the same bytes).
#[derive(serde::Serialize)]
struct NamesTermsRef<'a> {
    fst: &'a [u8],
    name_postings: &'a [u32],
    keys_bytes: &'a [u8],
    keys_ends: &'a [u32],
    postings: &'a [u8],
    posting_ends: &'a [u32],
    doc_freq: &'a [u32],
    path_class: &'a [u8],
    prior: &'a [u8],
}

impl<'a> NamesTermsRef<'a> {
    fn of((fst, name_postings): &'a NameIndex, t: &'a terms::TermIndex) -> Self {
        NamesTermsRef {
            fst,
            name_postings,
            keys_bytes: &t.keys.bytes,
            keys_ends: &t.keys.ends,
            postings: &t.postings,
            posting_ends: &t.posting_ends,
            doc_freq: &t.doc_freq,
            path_class: &t.path_class,
            prior: &t.prior,
        }
    }
}

/// The name index and the term index of a generation, as the cache keeps them.
#[derive(serde::Deserialize)]
struct NamesTerms {
    fst: Vec<u8>,
    name_postings: Vec<u32>,
    keys_bytes: Vec<u8>,
    keys_ends: Vec<u32>,
    postings: Vec<u8>,
    posting_ends: Vec<u32>,
    doc_freq: Vec<u32>,
    path_class: Vec<u8>,
    prior: Vec<u8>,
}

impl NamesTerms {
    /// Whether a kept entry has the shape of `symbols` symbols' indexes (the cache checks its
    /// bytes; this catches an entry that decodes into something else).
    fn fits(&self, symbols: usize) -> bool {
        let terms = self.keys_ends.len();
        self.path_class.len() == symbols
            && self.prior.len() == symbols
            && self.posting_ends.len() == terms
            && self.doc_freq.len() == terms
            && self.name_postings.iter().all(|&i| (i as usize) < symbols)
            && self
                .keys_ends
                .last()
                .is_none_or(|&e| e as usize == self.keys_bytes.len())
            && self
                .posting_ends
                .last()
                .is_none_or(|&e| e as usize == self.postings.len())
    }

    fn into_parts(self) -> (Vec<u8>, Vec<u32>, terms::TermIndex) {
        let terms = terms::TermIndex {
            keys: StringTable {
                bytes: self.keys_bytes,
                ends: self.keys_ends,
            },
            postings: self.postings,
            posting_ends: self.posting_ends,
            doc_freq: self.doc_freq,
            path_class: self.path_class,
            prior: self.prior,
        };
        (self.fst, self.name_postings, terms)
    }
}

/// How many incoming edges of the reference vocabulary node `n` has, counted up to the ranking's
/// cap (what find_by_intent's caller weight reads).
fn reference_callers(reverse: &Csr, n: usize) -> usize {
    let (a, b) = (reverse.offsets[n] as usize, reverse.offsets[n + 1] as usize);
    reverse.edges[a..b]
        .iter()
        .filter(|e| EdgeKind::from_code(e.kind).is_some_and(EdgeKind::is_reference))
        .take(terms::CALLERS_CAP)
        .count()
}

/// Builds CSR rows from `(node, half-edge)` pairs; rows are sorted so output is canonical.
/// The pairs are placed by counting (one pass), then each row is sorted on its own.
fn csr(n: usize, items: impl Iterator<Item = (SymbolId, EdgeRec)>) -> Csr {
    let pairs: Vec<(SymbolId, EdgeRec)> = items.collect();
    let mut offsets = vec![0u32; n + 1];
    for (node, _) in &pairs {
        offsets[node.0 + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let Some(&(_, first)) = pairs.first() else {
        return Csr {
            offsets,
            edges: Vec::new(),
        };
    };
    let mut next = offsets.clone();
    let mut edges = vec![first; pairs.len()];
    for (node, e) in pairs {
        edges[next[node.0] as usize] = e;
        next[node.0] += 1;
    }
    for row in offsets.windows(2) {
        edges[row[0] as usize..row[1] as usize].sort_unstable();
    }
    Csr { offsets, edges }
}

#[cfg(test)]
mod tests {
    use super::prefix;

    /// Ordering by the eight-byte prefix, then by the string, is byte order, with strings that
    /// end inside the prefix, hold zero bytes, or differ only after it.
    #[test]
    fn the_prefix_order_is_byte_order() {
        let words = [
            "",
            "\0",
            "\0\0",
            "a",
            "a\0",
            "a\0b",
            "ab",
            "abcdefgh",
            "abcdefgh\0",
            "abcdefghi",
            "abcdefgg~",
            "abcdefgz",
            "b",
            "é",
            "e\u{301}",
            "zzzzzzzzzzzz",
            "~",
            "\u{7f}",
        ];
        let mut by_bytes: Vec<&str> = words.to_vec();
        by_bytes.sort_unstable();
        // Every rotation of the input, so that the order does not come from the input's.
        for r in 0..words.len() {
            let mut v: Vec<&str> = words.to_vec();
            v.rotate_left(r);
            v.sort_unstable_by(|a, b| prefix(a).cmp(&prefix(b)).then_with(|| a.cmp(b)));
            assert_eq!(v, by_bytes);
            // The prefixes alone never contradict byte order.
            for w in v.windows(2) {
                assert!(prefix(w[0]) <= prefix(w[1]), "{:?} {:?}", w[0], w[1]);
            }
        }
    }
}
