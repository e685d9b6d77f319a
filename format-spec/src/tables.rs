//! The Parquet fact tables: schemas, a column-oriented builder that writes them, and a reader
//! that checks them. Enabled by the `tables` feature; the engine never decodes Parquet.
//!
//! Every file is zstd-compressed, one row group per 1 Mi rows, dictionary encoding on the columns
//! marked low-cardinality and off elsewhere, and carries `kivgraph.format_version` and
//! `kivgraph.table` in its key/value metadata. The writer sets a fixed `created_by`, so the same
//! rows give the same bytes.

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BooleanArray, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::error::FormatError;

/// Column types used by the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    Str,
    OptStr,
    U32,
    U64,
    Bool,
    OptBool,
    StrList,
}

/// One column of a table's schema: name, type, dictionary-encoded.
pub type ColumnSpec = (&'static str, ColType, bool);

use ColType::*;

/// The documented schema of every table, in file order. See `format-spec/SPEC.md`.
pub const TABLES: &[(&str, &[ColumnSpec])] = &[
    (
        "repositories",
        &[
            ("name", Str, false),
            ("root", Str, false),
            ("commit", OptStr, false),
            ("branch", OptStr, false),
            ("dirty", OptBool, false),
            ("languages", StrList, true),
            ("derived", Bool, false),
        ],
    ),
    (
        "packages",
        &[
            ("package_key", Str, false),
            ("repository", Str, true),
            ("language", Str, true),
            ("name", Str, false),
            ("path", Str, false),
            ("module", OptStr, true),
        ],
    ),
    (
        "files",
        &[
            ("file_key", Str, false),
            ("repository", Str, true),
            ("package_key", OptStr, true),
            ("path", Str, false),
            ("language", OptStr, true),
            ("status", Str, true),
            ("size", U64, false),
            ("lines", U32, false),
            ("sha256", Str, false),
        ],
    ),
    (
        "symbols",
        &[
            ("symbol_id", U32, false),
            ("stable_key", Str, false),
            ("name", Str, false),
            ("qualified_name", Str, false),
            ("kind", Str, true),
            ("language", Str, true),
            ("exported", Bool, false),
            ("signature", OptStr, false),
            ("repository", Str, true),
            ("package", Str, true),
            ("file_path", Str, true),
            ("start_line", U32, false),
            ("start_column", U32, false),
            ("end_line", U32, false),
            ("end_column", U32, false),
            ("start_byte", U32, false),
            ("end_byte", U32, false),
        ],
    ),
    (
        "edges",
        &[
            ("source_id", U32, false),
            ("source_key", Str, true),
            ("target_id", U32, false),
            ("target_key", Str, true),
            ("kind", Str, true),
            ("confidence", Str, true),
            ("provenance", Str, true),
            ("repository", OptStr, true),
            ("file_path", OptStr, true),
            ("line", U32, false),
            ("column", U32, false),
        ],
    ),
    (
        "package_edges",
        &[
            ("source_package_key", Str, true),
            ("target_package_key", Str, true),
            ("kind", Str, true),
            ("confidence", Str, true),
            ("provenance", Str, true),
        ],
    ),
    (
        "unresolved",
        &[
            ("repository", Str, true),
            ("file_path", OptStr, true),
            ("line", U32, false),
            ("column", U32, false),
            ("language", Str, true),
            ("reason", Str, true),
            ("requested_package", Str, true),
            ("requested_symbol", OptStr, false),
            ("detail", OptStr, false),
            ("source_key", OptStr, false),
        ],
    ),
];

/// The schema of table `name`.
pub fn table_spec(name: &str) -> Option<&'static [ColumnSpec]> {
    TABLES.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// A column's values.
#[derive(Debug, Clone)]
pub enum Column {
    Str(Vec<String>),
    OptStr(Vec<Option<String>>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    Bool(Vec<bool>),
    OptBool(Vec<Option<bool>>),
    StrList(Vec<Vec<String>>),
    /// A string column whose values are picked from a shared pool by index: four bytes a row
    /// instead of a `String`, for the long tables (edges repeat the same keys, names and paths).
    Pooled {
        ids: Vec<u32>,
        pool: Arc<Vec<String>>,
    },
    /// As `Pooled`, with [`crate::NONE`] for null.
    OptPooled {
        ids: Vec<u32>,
        pool: Arc<Vec<String>>,
    },
}

impl Column {
    fn empty(t: ColType) -> Column {
        match t {
            Str => Column::Str(vec![]),
            OptStr => Column::OptStr(vec![]),
            U32 => Column::U32(vec![]),
            U64 => Column::U64(vec![]),
            Bool => Column::Bool(vec![]),
            OptBool => Column::OptBool(vec![]),
            StrList => Column::StrList(vec![]),
        }
    }

    fn len(&self) -> usize {
        match self {
            Column::Str(v) => v.len(),
            Column::OptStr(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::OptBool(v) => v.len(),
            Column::StrList(v) => v.len(),
            Column::Pooled { ids, .. } | Column::OptPooled { ids, .. } => ids.len(),
        }
    }
}

/// Rows per Arrow batch and per row group: the writer holds one chunk of materialized strings
/// at a time, never a whole ten-million-row table.
const CHUNK: usize = 1 << 20;

fn data_type(t: ColType) -> DataType {
    match t {
        Str | OptStr => DataType::Utf8,
        U32 => DataType::UInt32,
        U64 => DataType::UInt64,
        Bool | OptBool => DataType::Boolean,
        StrList => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
    }
}

/// The Arrow schema of a table spec.
pub fn arrow_schema(spec: &[ColumnSpec]) -> Schema {
    Schema::new(
        spec.iter()
            .map(|(n, t, _)| Field::new(*n, data_type(*t), matches!(t, OptStr | OptBool)))
            .collect::<Vec<_>>(),
    )
}

/// Builds one table column by column; rows are appended by pushing to every column.
#[derive(Debug)]
pub struct TableBuilder {
    pub name: &'static str,
    spec: &'static [ColumnSpec],
    pub columns: Vec<Column>,
}

impl TableBuilder {
    pub fn new(name: &'static str) -> TableBuilder {
        let spec = table_spec(name).expect("known table");
        TableBuilder {
            name,
            spec,
            columns: spec.iter().map(|(_, t, _)| Column::empty(*t)).collect(),
        }
    }

    /// Number of rows; every column must agree.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Column::len)
    }

    /// Encodes the table as Parquet bytes.
    pub fn to_parquet(&self) -> Result<Vec<u8>, FormatError> {
        let n = self.rows();
        if let Some((i, _)) = self.columns.iter().enumerate().find(|(_, c)| c.len() != n) {
            return Err(FormatError::Encode(format!(
                "{}: column {} has a different length",
                self.name, self.spec[i].0
            )));
        }
        let schema = Arc::new(arrow_schema(self.spec));
        let props = writer_properties(self.name, self.spec);
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, schema.clone(), Some(props))
            .map_err(|e| FormatError::Encode(format!("{}: {e}", self.name)))?;
        let mut start = 0;
        loop {
            let end = (start + CHUNK).min(n);
            let arrays: Vec<ArrayRef> = self
                .columns
                .iter()
                .map(|c| to_array(c, start..end))
                .collect();
            let batch = RecordBatch::try_new(schema.clone(), arrays)
                .map_err(|e| FormatError::Encode(format!("{}: {e}", self.name)))?;
            writer
                .write(&batch)
                .map_err(|e| FormatError::Encode(format!("{}: {e}", self.name)))?;
            start = end;
            if start >= n {
                break;
            }
        }
        writer
            .close()
            .map_err(|e| FormatError::Encode(format!("{}: {e}", self.name)))?;
        Ok(out)
    }
}

/// How every table file is written: zstd, the chunked row groups, the dictionary columns of the
/// spec, and the metadata naming the format version and the table.
pub fn writer_properties(name: &str, spec: &[ColumnSpec]) -> WriterProperties {
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(1).expect("valid level"),
        ))
        .set_created_by(format!("kivgraph format {}", crate::FORMAT_VERSION))
        .set_max_row_group_row_count(Some(CHUNK))
        .set_key_value_metadata(Some(vec![
            KeyValue::new(
                META_FORMAT_VERSION.to_string(),
                crate::FORMAT_VERSION.to_string(),
            ),
            KeyValue::new(META_TABLE.to_string(), name.to_string()),
        ]));
    for (column, _, dict) in spec {
        props = props.set_column_dictionary_enabled(ColumnPath::from(*column), *dict);
        if *dict {
            props =
                props.set_column_dictionary_page_size_limit(ColumnPath::from(*column), 16 << 20);
        }
    }
    props.build()
}

pub const META_FORMAT_VERSION: &str = "kivgraph.format_version";
pub const META_TABLE: &str = "kivgraph.table";

fn to_array(c: &Column, r: std::ops::Range<usize>) -> ArrayRef {
    match c {
        Column::Str(v) => Arc::new(StringArray::from_iter_values(&v[r])),
        Column::OptStr(v) => Arc::new(v[r].iter().map(|s| s.as_deref()).collect::<StringArray>()),
        Column::U32(v) => Arc::new(UInt32Array::from(v[r].to_vec())),
        Column::U64(v) => Arc::new(UInt64Array::from(v[r].to_vec())),
        Column::Bool(v) => Arc::new(BooleanArray::from(v[r].to_vec())),
        Column::OptBool(v) => Arc::new(BooleanArray::from(v[r].to_vec())),
        Column::StrList(v) => {
            let mut b = ListBuilder::new(StringBuilder::new());
            for row in &v[r] {
                for s in row {
                    b.values().append_value(s);
                }
                b.append(true);
            }
            Arc::new(b.finish())
        }
        Column::Pooled { ids, pool } => Arc::new(StringArray::from_iter_values(
            ids[r].iter().map(|&i| pool[i as usize].as_str()),
        )),
        Column::OptPooled { ids, pool } => Arc::new(
            ids[r]
                .iter()
                .map(|&i| (i != crate::NONE).then(|| pool[i as usize].as_str()))
                .collect::<StringArray>(),
        ),
    }
}

/// Reads a table file completely and checks its metadata and schema; returns its row count.
pub fn check_table(path: &Path, name: &str) -> Result<u64, FormatError> {
    let file_name = format!("{name}.parquet");
    let corrupt = |what: String| FormatError::corrupt(file_name.clone(), what);
    let spec = table_spec(name).ok_or_else(|| corrupt("unknown table".into()))?;
    let file = crate::layout::open_regular(path).map_err(|e| FormatError::io(path, e))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| corrupt(e.to_string()))?;
    let kv = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .cloned()
        .unwrap_or_default();
    let meta = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone());
    let version = meta(META_FORMAT_VERSION)
        .ok_or_else(|| corrupt("no kivgraph.format_version metadata".into()))?;
    let found: u32 = version
        .parse()
        .map_err(|_| corrupt(format!("format version {version:?}")))?;
    if found != crate::FORMAT_VERSION {
        return Err(FormatError::Version {
            file: file_name,
            found,
        });
    }
    if meta(META_TABLE).as_deref() != Some(name) {
        return Err(corrupt(
            "kivgraph.table metadata names another table".into(),
        ));
    }
    let expected = arrow_schema(spec);
    let actual = builder.schema();
    if actual.fields().len() != expected.fields().len()
        || actual
            .fields()
            .iter()
            .zip(expected.fields())
            .any(|(a, e)| a.name() != e.name() || a.data_type() != e.data_type())
    {
        return Err(corrupt("schema differs from the specification".into()));
    }
    let declared = builder.metadata().file_metadata().num_rows();
    let reader = builder.build().map_err(|e| corrupt(e.to_string()))?;
    let mut rows = 0u64;
    for batch in reader {
        rows += batch.map_err(|e| corrupt(e.to_string()))?.num_rows() as u64;
    }
    if declared < 0 || rows != declared as u64 {
        return Err(corrupt(format!(
            "footer declares {declared} rows, pages hold {rows}"
        )));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_determinism() {
        let mut t = TableBuilder::new("package_edges");
        for c in &mut t.columns {
            if let Column::Str(v) = c {
                v.push("a".into());
                v.push("b".into());
            }
        }
        let a = t.to_parquet().unwrap();
        assert_eq!(a, t.to_parquet().unwrap());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("package_edges.parquet");
        std::fs::write(&p, &a).unwrap();
        assert_eq!(check_table(&p, "package_edges").unwrap(), 2);
        assert!(check_table(&p, "edges").is_err());
    }
}
