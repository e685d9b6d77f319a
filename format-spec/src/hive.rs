//! The tables of a generation written partitioned by repository, Hive-style (SPEC 6.9), so that
//! Spark, Trino or DuckDB read only the repositories a query names:
//! `<out>/<table>/repo=<name>/part-0.parquet`, every file with the columns, schema and metadata of
//! the table it comes from. The partition of a row is its repository; an edge's is its source
//! symbol's, a package edge's its source package's.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, BooleanArray, RecordBatch, StringArray, UInt32Array};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::error::FormatError;
use crate::tables::{arrow_schema, table_spec, writer_properties};

/// The column of a partition directory: `repo=<name>`.
pub const PARTITION_COLUMN: &str = "repo";

/// The tables, in the order they are written.
pub const TABLES: [&str; 7] = [
    "repositories",
    "packages",
    "files",
    "symbols",
    "edges",
    "package_edges",
    "unresolved",
];

/// A repository name as a partition directory's value: bytes outside `[A-Za-z0-9._-]` are
/// written `%XX`, as Hive and Spark escape them (`rust:1.80` → `rust%3A1.80`).
pub fn escape(name: &str) -> String {
    let mut out = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What an export wrote.
#[derive(Debug, Default)]
pub struct Exported {
    /// Per table: (partitions, rows).
    pub tables: Vec<(&'static str, usize, u64)>,
}

fn read(dir: &Path, table: &str) -> Result<Vec<RecordBatch>, FormatError> {
    let file_name = format!("{table}.parquet");
    let path = dir.join(&file_name);
    let file = crate::layout::open_regular(&path).map_err(|e| FormatError::io(&path, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| FormatError::corrupt(file_name.clone(), e.to_string()))?;
    reader
        .map(|b| b.map_err(|e| FormatError::corrupt(file_name.clone(), e.to_string())))
        .collect()
}

fn strings<'a>(
    batch: &'a RecordBatch,
    table: &str,
    column: &str,
) -> Result<&'a StringArray, FormatError> {
    batch
        .column_by_name(column)
        .and_then(|c| c.as_any().downcast_ref::<StringArray>())
        .ok_or_else(|| {
            FormatError::corrupt(
                format!("{table}.parquet"),
                format!("no string column {column}"),
            )
        })
}

/// Writes the tables of generation directory `dir` under `out`, which must not exist yet: they
/// are written into a sibling directory first and renamed into place, so `out` is whole or
/// absent.
pub fn export(dir: &Path, out: &Path) -> Result<Exported, FormatError> {
    if out.exists() {
        return Err(FormatError::io(
            out,
            std::io::Error::new(std::io::ErrorKind::AlreadyExists, "already exists"),
        ));
    }
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    let tmp: PathBuf = out.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let result = write_all(dir, &tmp);
    match result {
        Ok(done) => {
            std::fs::rename(&tmp, out).map_err(|e| FormatError::io(out, e))?;
            Ok(done)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

fn write_all(dir: &Path, out: &Path) -> Result<Exported, FormatError> {
    // The repository of every symbol (by id) and of every package (by key).
    let mut symbol_repo: HashMap<u32, String> = HashMap::new();
    for batch in read(dir, "symbols")? {
        let ids = batch
            .column_by_name("symbol_id")
            .and_then(|c| c.as_any().downcast_ref::<UInt32Array>())
            .ok_or_else(|| FormatError::corrupt("symbols.parquet", "no symbol_id column"))?;
        let repos = strings(&batch, "symbols", "repository")?;
        for i in 0..batch.num_rows() {
            symbol_repo.insert(ids.value(i), repos.value(i).to_string());
        }
    }
    let mut package_repo: HashMap<String, String> = HashMap::new();
    for batch in read(dir, "packages")? {
        let keys = strings(&batch, "packages", "package_key")?;
        let repos = strings(&batch, "packages", "repository")?;
        for i in 0..batch.num_rows() {
            package_repo.insert(keys.value(i).to_string(), repos.value(i).to_string());
        }
    }

    let mut done = Exported::default();
    for table in TABLES {
        let spec = table_spec(table).expect("a known table");
        let schema = Arc::new(arrow_schema(spec));
        let mut writers: BTreeMap<String, ArrowWriter<File>> = BTreeMap::new();
        let mut rows = 0u64;
        for batch in read(dir, table)? {
            let n = batch.num_rows();
            rows += n as u64;
            let part: Vec<String> = match table {
                "repositories" => {
                    let c = strings(&batch, table, "name")?;
                    (0..n).map(|i| c.value(i).to_string()).collect()
                }
                "edges" => {
                    let ids = batch
                        .column_by_name("source_id")
                        .and_then(|c| c.as_any().downcast_ref::<UInt32Array>())
                        .ok_or_else(|| FormatError::corrupt("edges.parquet", "no source_id"))?;
                    (0..n)
                        .map(|i| {
                            symbol_repo.get(&ids.value(i)).cloned().ok_or_else(|| {
                                FormatError::corrupt(
                                    "edges.parquet",
                                    format!("source {} is no symbol", ids.value(i)),
                                )
                            })
                        })
                        .collect::<Result<_, _>>()?
                }
                "package_edges" => {
                    let c = strings(&batch, table, "source_package_key")?;
                    (0..n)
                        .map(|i| {
                            package_repo.get(c.value(i)).cloned().ok_or_else(|| {
                                FormatError::corrupt(
                                    "package_edges.parquet",
                                    format!("source {} is no package", c.value(i)),
                                )
                            })
                        })
                        .collect::<Result<_, _>>()?
                }
                _ => {
                    let c = strings(&batch, table, "repository")?;
                    (0..n).map(|i| c.value(i).to_string()).collect()
                }
            };
            let mut names: Vec<&String> = part.iter().collect();
            names.sort();
            names.dedup();
            for repo in names {
                let mask: BooleanArray = part.iter().map(|p| Some(p == repo)).collect();
                let rows = arrow_select::filter::filter_record_batch(&batch, &mask)
                    .map_err(|e| FormatError::Encode(format!("{table}: {e}")))?;
                let writer = match writers.get_mut(repo) {
                    Some(w) => w,
                    None => {
                        let d = out
                            .join(table)
                            .join(format!("{PARTITION_COLUMN}={}", escape(repo)));
                        std::fs::create_dir_all(&d).map_err(|e| FormatError::io(&d, e))?;
                        let path = d.join("part-0.parquet");
                        let file = File::create(&path).map_err(|e| FormatError::io(&path, e))?;
                        let w = ArrowWriter::try_new(
                            file,
                            schema.clone(),
                            Some(writer_properties(table, spec)),
                        )
                        .map_err(|e| FormatError::Encode(format!("{table}: {e}")))?;
                        writers.entry(repo.clone()).or_insert(w)
                    }
                };
                writer
                    .write(&rows)
                    .map_err(|e| FormatError::Encode(format!("{table}: {e}")))?;
            }
        }
        let partitions = writers.len();
        for (_, w) in writers {
            let file = w
                .into_inner()
                .map_err(|e| FormatError::Encode(format!("{table}: {e}")))?;
            file.sync_all()
                .map_err(|e| FormatError::io(out.join(table), e))?;
        }
        done.tables.push((table, partitions, rows));
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_as_hive_does() {
        assert_eq!(escape("shapes"), "shapes");
        assert_eq!(escape("rust:1.80"), "rust%3A1.80");
        assert_eq!(escape("a/b=c d"), "a%2Fb%3Dc%20d");
    }
}
