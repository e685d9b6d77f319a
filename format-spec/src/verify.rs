//! Full verification of a generation: digests, blob checksum and structure, name index, term
//! index, tables, and the cross-check of table row counts against the blob.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::FormatError;
use crate::manifest::{ManifestRepository, RowCounts, digest_hex};
use crate::{GRAPH_BLOB, NAMES_FST, blob, names, terms};

/// What a successful verification saw.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    pub generation_id: u64,
    pub files: usize,
    pub bytes: u64,
    pub rows: RowCounts,
}

/// Verifies the generation in `dir`. Any corruption is an error naming the file.
pub fn verify_generation(dir: &Path) -> Result<VerifyReport, FormatError> {
    let manifest = crate::read_manifest(dir)?;
    let bad_manifest = |what: String| FormatError::corrupt(crate::layout::MANIFEST, what);
    crate::check_generation_id(dir, &manifest)?;
    let mut names_seen = BTreeSet::new();
    let mut bytes = 0;
    #[cfg(feature = "tables")]
    let mut known = required_files();
    #[cfg(feature = "tables")]
    known.push(crate::file_symbols::FILE_SYMBOLS.to_string());
    #[cfg(feature = "tables")]
    known.push(crate::name_grams::NAME_GRAMS.to_string());
    #[cfg(feature = "tables")]
    known.push(crate::scope_reach::SCOPE_REACH.to_string());
    for f in &manifest.files {
        if f.name.contains('/') || f.name.starts_with('.') {
            return Err(FormatError::corrupt(
                crate::layout::MANIFEST,
                format!("bad file name {:?}", f.name),
            ));
        }
        #[cfg(feature = "tables")]
        if !known.contains(&f.name) {
            return Err(FormatError::corrupt(
                crate::layout::MANIFEST,
                format!("lists {:?}, which is not a file of a generation", f.name),
            ));
        }
        let path = dir.join(&f.name);
        let data = crate::layout::read_regular(&path).map_err(|e| FormatError::io(&path, e))?;
        if data.len() as u64 != f.size {
            return Err(FormatError::corrupt(
                &f.name,
                format!("size {} but the manifest records {}", data.len(), f.size),
            ));
        }
        let digest = digest_hex(&data);
        if digest != f.xxh3_128 {
            return Err(FormatError::corrupt(
                &f.name,
                format!("xxh3-128 {digest} but the manifest records {}", f.xxh3_128),
            ));
        }
        names_seen.insert(f.name.clone());
        bytes += f.size;
    }
    for required in required_files() {
        if !names_seen.contains(&required) {
            return Err(FormatError::corrupt(
                required,
                "missing from the generation",
            ));
        }
    }

    let blob_bytes = crate::layout::read_regular(&dir.join(GRAPH_BLOB))
        .map_err(|e| FormatError::io(dir.join(GRAPH_BLOB), e))?;
    let (header, archive, sums) = blob::parts(&blob_bytes)?;
    if xxhash_rust::xxh3::xxh3_128(archive) != header.checksum {
        return Err(FormatError::corrupt(
            GRAPH_BLOB,
            "archive checksum does not match the header",
        ));
    }
    blob::check_blocks(archive, sums, header.shift)?;
    // Copy into aligned memory: a Vec<u8> read from disk carries no alignment guarantee.
    let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(archive.len());
    aligned.extend_from_slice(archive);
    let graph = blob::validate(&aligned)?;
    if names_seen.contains(crate::file_symbols::FILE_SYMBOLS) {
        verify_file_symbols(dir, graph)?;
    }
    if names_seen.contains(crate::scope_reach::SCOPE_REACH) {
        verify_scope_reach(dir, graph)?;
    }

    let fst_bytes = crate::layout::read_regular(&dir.join(NAMES_FST))
        .map_err(|e| FormatError::io(dir.join(NAMES_FST), e))?;
    let map = names::open(fst_bytes)?;
    map.as_fst()
        .verify()
        .map_err(|e| FormatError::corrupt(NAMES_FST, e.to_string()))?;
    if names_seen.contains(crate::name_grams::NAME_GRAMS) {
        // The index is a function of the name index: it must be the one the names give.
        use crate::name_grams::{NAME_GRAMS, encode};
        let mut distinct = Vec::new();
        names::for_each_prefix(&map, names::TAG_NAME, "", |s, r| {
            distinct.push((s.to_string(), r))
        });
        let path = dir.join(NAME_GRAMS);
        let bytes = crate::layout::read_regular(&path).map_err(|e| FormatError::io(&path, e))?;
        if bytes != encode(&distinct) {
            return Err(FormatError::corrupt(
                NAME_GRAMS,
                "differs from the trigrams of the name index",
            ));
        }
    }
    for (id, s) in graph.symbols.iter().enumerate() {
        for (tag, text) in [
            (names::TAG_NAME, s.name.to_native()),
            (names::TAG_QUALIFIED, s.qualified_name.to_native()),
        ] {
            let text = graph.strings.get(text);
            let found = names::lookup(&map, tag, text)
                .and_then(|r| graph.name_postings.get(r))
                .is_some_and(|p| p.iter().any(|x| x.to_native() == id as u32));
            if !found {
                return Err(FormatError::corrupt(
                    NAMES_FST,
                    format!("symbol {id} ({text:?}) is missing from the name index"),
                ));
            }
        }
    }

    check_terms(graph)?;

    let rows = RowCounts {
        repositories: graph.repositories.len() as u64,
        packages: graph.packages.len() as u64,
        files: graph.files.len() as u64,
        symbols: graph.symbols.len() as u64,
        edges: graph.forward.edges.len() as u64,
        package_edges: graph.package_edges.len() as u64,
        unresolved: graph.unresolved.len() as u64,
    };
    if rows != manifest.row_counts {
        return Err(FormatError::corrupt(
            GRAPH_BLOB,
            format!(
                "row counts {rows:?} differ from the manifest's {:?}",
                manifest.row_counts
            ),
        ));
    }
    let mut tallies = crate::manifest::Tallies::default();
    for e in graph.forward.edges.iter() {
        let kind = crate::EdgeKind::from_code(e.kind).map_or("UNKNOWN", |k| k.as_str());
        *tallies.edges_by_kind.entry(kind.to_string()).or_default() += 1;
        tallies.evidence += u64::from(e.file.to_native() != crate::NONE);
    }
    for u in graph.unresolved.iter() {
        *tallies
            .unresolved_by_reason
            .entry(graph.strings.get(u.reason.to_native()).to_string())
            .or_default() += 1;
    }
    if tallies != manifest.tallies {
        return Err(FormatError::corrupt(
            crate::layout::MANIFEST,
            "the tallies differ from the ones the blob's edges and failures give",
        ));
    }
    // The manifest's repositories must be the blob's, field by field.
    let st = &graph.strings;
    let blob_repos: Vec<ManifestRepository> = graph
        .repositories
        .iter()
        .map(|r| ManifestRepository {
            name: st.get(r.name.to_native()).into(),
            root: st.get(r.root.to_native()).into(),
            commit: st.opt(r.commit.to_native()).map(Into::into),
            branch: st.opt(r.branch.to_native()).map(Into::into),
            dirty: match r.dirty {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            },
            languages: r
                .languages
                .iter()
                .filter_map(|&c| crate::Language::from_code(c))
                .map(|l| l.as_str().to_string())
                .collect(),
        })
        .collect();
    if blob_repos != manifest.repositories {
        return Err(bad_manifest(
            "its repositories differ from the graph blob's".into(),
        ));
    }
    if crate::manifest::parse_rfc3339_secs(&manifest.created_at)
        != Some(manifest.created_at_ms / 1000)
    {
        return Err(bad_manifest("created_at and created_at_ms disagree".into()));
    }
    check_reverse(graph)?;
    #[cfg(feature = "tables")]
    check_tables(dir, &rows)?;
    Ok(VerifyReport {
        generation_id: manifest.generation_id,
        files: manifest.files.len(),
        bytes,
        rows,
    })
}

/// The term index must be exactly the one the symbols give: same terms, same bitmap bytes, same
/// frequencies, same path classes.
fn check_terms(g: &blob::ArchivedGraphBlob) -> Result<(), FormatError> {
    let st = &g.strings;
    let rebuilt = terms::build(g.symbols.iter().enumerate().map(|(i, s)| {
        terms::TermSource {
            name: st.get(s.name.to_native()),
            qualified_name: st.get(s.qualified_name.to_native()),
            kind: crate::SymbolKind::from_code(s.kind).map_or("", |k| k.as_str()),
            path: g
                .files
                .get(s.file.to_native() as usize)
                .map_or("", |f| st.get(f.path.to_native())),
            exported: s.exported,
            callers: g
                .reverse
                .row(i as u32)
                .iter()
                .filter(|e| {
                    crate::EdgeKind::from_code(e.kind).is_some_and(crate::EdgeKind::is_reference)
                })
                .take(terms::CALLERS_CAP)
                .count(),
        }
    }))?;
    match g.terms.differs_from(&rebuilt) {
        None => Ok(()),
        Some(part) => Err(FormatError::corrupt(
            GRAPH_BLOB,
            format!("the term index's {part} differ from the ones its symbols give"),
        )),
    }
}

/// The reverse adjacency must be exactly the forward one, reversed.
fn check_reverse(g: &blob::ArchivedGraphBlob) -> Result<(), FormatError> {
    let n = g.symbols.len() as u32;
    let mut fwd = Vec::with_capacity(g.forward.edges.len());
    let mut rev = Vec::with_capacity(g.reverse.edges.len());
    for s in 0..n {
        for e in g.forward.row(s) {
            fwd.push((
                s,
                e.other.to_native(),
                e.kind,
                e.confidence,
                e.provenance.to_native(),
                e.file.to_native(),
                e.line.to_native(),
                e.column.to_native(),
            ));
        }
        for e in g.reverse.row(s) {
            rev.push((
                e.other.to_native(),
                s,
                e.kind,
                e.confidence,
                e.provenance.to_native(),
                e.file.to_native(),
                e.line.to_native(),
                e.column.to_native(),
            ));
        }
    }
    fwd.sort_unstable();
    rev.sort_unstable();
    if fwd != rev {
        return Err(FormatError::corrupt(
            GRAPH_BLOB,
            "reverse adjacency is not the forward adjacency reversed",
        ));
    }
    Ok(())
}

/// The file names every generation of this format holds besides the manifest.
pub fn required_files() -> Vec<String> {
    #[cfg_attr(not(feature = "tables"), allow(unused_mut))]
    let mut v = vec![GRAPH_BLOB.to_string(), NAMES_FST.to_string()];
    #[cfg(feature = "tables")]
    v.extend(
        crate::tables::TABLES
            .iter()
            .map(|(n, _)| format!("{n}.parquet")),
    );
    v
}

#[cfg(feature = "tables")]
fn check_tables(dir: &Path, rows: &RowCounts) -> Result<(), FormatError> {
    for (name, _) in crate::tables::TABLES {
        let n = crate::tables::check_table(&dir.join(format!("{name}.parquet")), name)?;
        let expected = match *name {
            "repositories" => rows.repositories,
            "packages" => rows.packages,
            "files" => rows.files,
            "symbols" => rows.symbols,
            "edges" => rows.edges,
            "package_edges" => rows.package_edges,
            "unresolved" => rows.unresolved,
            _ => continue,
        };
        if n != expected {
            return Err(FormatError::corrupt(
                format!("{name}.parquet"),
                format!("{n} rows but the graph blob holds {expected}"),
            ));
        }
    }
    Ok(())
}

/// Every symbol listed once, under its own file, in increasing id order.
/// Every entry reads, and belongs to a record without a file, in increasing record order.
fn verify_scope_reach(dir: &Path, graph: &blob::ArchivedGraphBlob) -> Result<(), FormatError> {
    use crate::scope_reach::{SCOPE_REACH, ScopeReach};
    let path = dir.join(SCOPE_REACH);
    let bytes = crate::layout::read_regular(&path).map_err(|e| FormatError::io(&path, e))?;
    let idx = ScopeReach::parse(&bytes, graph.unresolved.len())?;
    let mut last = None;
    for k in 0..idx.len() {
        let (record, _) = idx.entry(k)?;
        let file_less = graph
            .unresolved
            .get(record as usize)
            .is_some_and(|u| u.file.to_native() == crate::NONE);
        if !file_less || last.is_some_and(|l| l >= record) {
            return Err(FormatError::corrupt(
                SCOPE_REACH,
                format!("entry {k} names record {record}, which is not a scope in order"),
            ));
        }
        last = Some(record);
    }
    Ok(())
}

fn verify_file_symbols(dir: &Path, graph: &blob::ArchivedGraphBlob) -> Result<(), FormatError> {
    use crate::file_symbols::{FILE_SYMBOLS, FileSymbols};
    let path = dir.join(FILE_SYMBOLS);
    let bytes = crate::layout::read_regular(&path).map_err(|e| FormatError::io(&path, e))?;
    let idx = FileSymbols::parse(&bytes, graph.files.len(), graph.symbols.len())?;
    let mut seen = vec![false; graph.symbols.len()];
    for f in 0..graph.files.len() as u32 {
        let mut last = None;
        for id in idx.of(f)? {
            let ok = (id as usize) < seen.len()
                && !seen[id as usize]
                && graph.symbols[id as usize].file.to_native() == f
                && last.is_none_or(|l| l < id);
            if !ok {
                return Err(FormatError::corrupt(
                    FILE_SYMBOLS,
                    format!("lists symbol {id} under file {f}, where it is not (or twice)"),
                ));
            }
            seen[id as usize] = true;
            last = Some(id);
        }
    }
    Ok(())
}
