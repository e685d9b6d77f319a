//! The Parquet fact tables: schemas, a column-oriented builder that writes them, and a reader
//! that checks them. Enabled by the `tables` feature; the engine never decodes Parquet.
//!
//! Every file is zstd-compressed, dictionary encoding on the columns marked low-cardinality and
//! off elsewhere, and carries `kivgraph.format_version` and `kivgraph.table` in its key/value
//! metadata. The writer sets a fixed `created_by`, so the same rows give the same bytes.
//!
//! Row groups end where the rows say, not at fixed positions: after a row whose text columns
//! hash to a value with [`CUT_MASK`]'s bits clear, once a group holds [`MIN_GROUP`] rows, and
//! at [`CHUNK`] rows at the latest. An edit therefore changes the row groups around the rows it
//! changed, and the groups after them end where they ended before. Each column chunk's digest
//! (its values, and everything that decides its bytes) is kept in the file's metadata
//! (`kivgraph.column_chunks`), and a writer given an earlier file of the same table
//! ([`Earlier`]) copies the encoded chunk of any digest it finds there instead of encoding it
//! again: the same bytes, since a chunk's encoding depends on nothing but what its digest
//! covers.

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BooleanArray, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::arrow_writer::compute_leaves;
use parquet::basic::{Compression, ZstdLevel};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::{KeyValue, PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

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

/// Rows per row group at most: the writer holds one group of materialized strings at a time,
/// never a whole ten-million-row table.
const CHUNK: usize = 1 << 20;

/// Rows per row group at least, but for the last.
const MIN_GROUP: usize = 1 << 12;

/// A row group ends after a row whose text hashes to a value with these bits clear (past
/// [`MIN_GROUP`] rows): one row in 16 Ki, so groups hold about 20 Ki rows.
const CUT_MASK: u64 = (1 << 14) - 1;

/// The key/value metadata entry holding each column chunk's digest: a line per row group, the
/// digests of its columns in hex, separated by spaces.
pub const META_CHUNKS: &str = "kivgraph.column_chunks";

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
        Ok(self.to_parquet_reusing(None)?.0)
    }

    /// Encodes the table as Parquet bytes, copying each column chunk whose digest `earlier`
    /// holds from it; also says how many chunks were copied and how many encoded. The bytes
    /// are those of [`TableBuilder::to_parquet`].
    pub fn to_parquet_reusing(
        &self,
        earlier: Option<&Earlier>,
    ) -> Result<(Vec<u8>, Reused), FormatError> {
        let n = self.rows();
        if let Some((i, _)) = self.columns.iter().enumerate().find(|(_, c)| c.len() != n) {
            return Err(FormatError::Encode(format!(
                "{}: column {} has a different length",
                self.name, self.spec[i].0
            )));
        }
        let err = |e: &dyn std::fmt::Display| FormatError::Encode(format!("{}: {e}", self.name));
        let groups = self.row_groups();
        let seed = writer_fingerprint(self.name, self.spec);
        let digests: Vec<Vec<u128>> = groups
            .iter()
            .map(|r| {
                (0..self.columns.len())
                    .map(|c| chunk_digest(seed, c, &self.columns[c], r.clone()))
                    .collect()
            })
            .collect();
        let earlier = earlier.filter(|e| e.table == self.name);

        let schema = Arc::new(arrow_schema(self.spec));
        let mut kv = table_metadata(self.name);
        kv.push(KeyValue::new(
            META_CHUNKS.to_string(),
            digests
                .iter()
                .map(|g| {
                    g.iter()
                        .map(|d| format!("{d:032x}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ));
        let props = properties_with(self.spec, kv);
        let mut out = Vec::new();
        let writer =
            ArrowWriter::try_new(&mut out, schema.clone(), Some(props)).map_err(|e| err(&e))?;
        let (mut file, factory) = writer.into_serialized_writer().map_err(|e| err(&e))?;
        let mut reused = Reused::default();
        for (g, range) in groups.iter().enumerate() {
            let writers = factory.create_column_writers(g).map_err(|e| err(&e))?;
            if writers.len() != self.columns.len() {
                return Err(err(&"a column is not one leaf"));
            }
            let mut rg = file.next_row_group().map_err(|e| err(&e))?;
            for (c, mut w) in writers.into_iter().enumerate() {
                if let Some((bytes, close)) = earlier.and_then(|e| e.chunk(c, digests[g][c])) {
                    rg.append_column(bytes, close).map_err(|e| err(&e))?;
                    reused.copied += 1;
                    continue;
                }
                let array = to_array(&self.columns[c], range.clone());
                for leaf in compute_leaves(schema.field(c), &array).map_err(|e| err(&e))? {
                    w.write(&leaf).map_err(|e| err(&e))?;
                }
                w.close()
                    .map_err(|e| err(&e))?
                    .append_to_row_group(&mut rg)
                    .map_err(|e| err(&e))?;
                reused.encoded += 1;
            }
            rg.close().map_err(|e| err(&e))?;
        }
        file.close().map_err(|e| err(&e))?;
        Ok((out, reused))
    }

    /// Where each row group begins and ends (see the module's documentation).
    fn row_groups(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.rows();
        let hashes = row_hashes(&self.columns, n);
        let mut groups = Vec::new();
        let mut start = 0;
        for (i, h) in hashes.iter().enumerate() {
            let len = i + 1 - start;
            if len == CHUNK || (len >= MIN_GROUP && h & CUT_MASK == 0) {
                groups.push(start..i + 1);
                start = i + 1;
            }
        }
        if start < n || groups.is_empty() {
            groups.push(start..n);
        }
        groups
    }
}

/// How many column chunks a write copied from an earlier file, and how many it encoded.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reused {
    pub copied: u64,
    pub encoded: u64,
}

impl std::iter::Sum for Reused {
    fn sum<I: Iterator<Item = Reused>>(iter: I) -> Reused {
        iter.fold(Reused::default(), |a, b| Reused {
            copied: a.copied + b.copied,
            encoded: a.encoded + b.encoded,
        })
    }
}

/// An earlier file of a table whose column chunks a write may copy: its bytes, its footer and
/// where each digest's chunk is. Only a file that names the same table, holds a digest for every
/// column chunk and has the same columns is taken.
pub struct Earlier {
    table: String,
    bytes: bytes::Bytes,
    meta: ParquetMetaData,
    /// (column, digest) → row group.
    chunks: std::collections::HashMap<(usize, u128), usize>,
}

impl Earlier {
    /// Reads `bytes` as table `name`; `None` when they are not a file of it this writer can
    /// copy from (another table, other columns, no digests, a footer that does not parse).
    /// The caller vouches for the bytes themselves (a generation's files are checked against
    /// its manifest's digests before they are given here).
    pub fn parse(name: &str, bytes: Vec<u8>) -> Option<Earlier> {
        let spec = table_spec(name)?;
        let bytes = bytes::Bytes::from(bytes);
        // Page encoding statistics are read as the list a writer keeps (a fresh chunk's form),
        // not as the mask a reader prefers: `append_column` carries over only the list.
        let meta = ParquetMetaDataReader::new()
            .with_page_index_policy(PageIndexPolicy::Optional)
            .with_metadata_options(Some(
                parquet::file::metadata::ParquetMetaDataOptions::new()
                    .with_encoding_stats_as_mask(false),
            ))
            .parse_and_finish(&bytes)
            .ok()?;
        let kv = meta.file_metadata().key_value_metadata()?;
        let meta_value = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone());
        if meta_value(META_TABLE).as_deref() != Some(name)
            || meta_value(META_FORMAT_VERSION).as_deref()
                != Some(crate::FORMAT_VERSION.to_string().as_str())
        {
            return None;
        }
        let ours = parquet::arrow::ArrowSchemaConverter::new()
            .convert(&arrow_schema(spec))
            .ok()?;
        if meta.file_metadata().schema_descr().root_schema() != ours.root_schema() {
            return None;
        }
        let listed = meta_value(META_CHUNKS)?;
        let lines: Vec<&str> = listed.split('\n').collect();
        if lines.len() != meta.num_row_groups() {
            return None;
        }
        let mut chunks = std::collections::HashMap::new();
        for (g, line) in lines.iter().enumerate() {
            let digests: Vec<u128> = line
                .split(' ')
                .map(|d| u128::from_str_radix(d, 16).ok())
                .collect::<Option<_>>()?;
            if digests.len() != spec.len() || meta.row_group(g).num_columns() != spec.len() {
                return None;
            }
            for (c, d) in digests.into_iter().enumerate() {
                chunks.entry((c, d)).or_insert(g);
            }
        }
        Some(Earlier {
            table: name.to_string(),
            bytes,
            meta,
            chunks,
        })
    }

    /// The chunk of column `c` with `digest`, as `append_column` takes it.
    fn chunk(&self, c: usize, digest: u128) -> Option<(&bytes::Bytes, ColumnCloseResult)> {
        let g = *self.chunks.get(&(c, digest))?;
        let rg = self.meta.row_group(g);
        let column = rg.column(c);
        let range = column.byte_range();
        if range.0.checked_add(range.1)? > self.bytes.len() as u64 {
            return None;
        }
        let index = self.meta.page_index_for_row_group(g);
        Some((
            &self.bytes,
            ColumnCloseResult {
                bytes_written: u64::try_from(column.compressed_size()).ok()?,
                rows_written: u64::try_from(rg.num_rows()).ok()?,
                metadata: column.clone(),
                bloom_filter: None,
                column_index: index.column_index(c).cloned(),
                offset_index: index.offset_index(c).cloned(),
            },
        ))
    }
}

/// The tables of the generation an index names as current, for a writer to copy chunks from.
pub struct EarlierTables {
    dir: std::path::PathBuf,
    /// Table file name → (size, xxh3-128 hex) as the generation's manifest records them.
    files: std::collections::HashMap<String, (u64, String)>,
}

impl EarlierTables {
    /// The current generation of `index`, when there is one of this format whose manifest reads.
    pub fn of_current(index: &crate::IndexDir) -> Option<EarlierTables> {
        let dir = index.generation_dir(index.current().ok()??);
        let manifest = crate::read_manifest(&dir).ok()?;
        if manifest.format_version != crate::FORMAT_VERSION {
            return None;
        }
        let files = manifest
            .files
            .into_iter()
            .map(|f| (f.name, (f.size, f.xxh3_128)))
            .collect();
        Some(EarlierTables { dir, files })
    }

    /// Table `name` of that generation, when its bytes are the ones its manifest records (a
    /// damaged file gives nothing to copy, and the table is encoded from its rows).
    pub fn load(&self, name: &str) -> Option<Earlier> {
        let file = format!("{name}.parquet");
        let (size, digest) = self.files.get(&file)?;
        let bytes = std::fs::read(self.dir.join(&file)).ok()?;
        if bytes.len() as u64 != *size || crate::manifest::digest_hex(&bytes) != *digest {
            return None;
        }
        Earlier::parse(name, bytes)
    }
}

/// What decides a column chunk's bytes besides its values: the format, the Parquet writer's
/// version, the table's columns and how row groups are cut.
fn writer_fingerprint(name: &str, spec: &[ColumnSpec]) -> u128 {
    let mut h = Xxh3::new();
    h.update(
        format!(
            "{}\0{}\0",
            crate::FORMAT_VERSION,
            parquet::file::properties::DEFAULT_CREATED_BY
        )
        .as_bytes(),
    );
    h.update(format!("zstd1 {CHUNK} {MIN_GROUP} {CUT_MASK}\0{name}\0{spec:?}").as_bytes());
    h.digest128()
}

/// The digest of column `c`'s values in `rows`, under the writer's fingerprint: of the
/// concatenation of each value's bytes (a string's length, then its bytes; a missing one
/// `u64::MAX`).
fn chunk_digest(seed: u128, c: usize, col: &Column, rows: std::ops::Range<usize>) -> u128 {
    let mut feed = crate::feed::Feed::new();
    feed.put(&seed.to_le_bytes());
    feed.put(&(c as u64).to_le_bytes());
    feed.put(&(rows.len() as u64).to_le_bytes());
    let text = |feed: &mut crate::feed::Feed, s: Option<&str>| match s {
        Some(s) => feed.field(s.as_bytes()),
        None => feed.put(&u64::MAX.to_le_bytes()),
    };
    match col {
        Column::Str(v) => v[rows].iter().for_each(|s| text(&mut feed, Some(s))),
        Column::OptStr(v) => v[rows].iter().for_each(|s| text(&mut feed, s.as_deref())),
        Column::Pooled { ids, pool } => ids[rows]
            .iter()
            .for_each(|&i| text(&mut feed, Some(pool[i as usize].as_str()))),
        Column::OptPooled { ids, pool } => ids[rows].iter().for_each(|&i| {
            text(
                &mut feed,
                (i != crate::NONE).then(|| pool[i as usize].as_str()),
            )
        }),
        Column::StrList(v) => v[rows].iter().for_each(|row| {
            text(&mut feed, Some(&row.len().to_string()));
            row.iter().for_each(|s| text(&mut feed, Some(s)));
        }),
        Column::U32(v) => v[rows].iter().for_each(|x| feed.put(&x.to_le_bytes())),
        Column::U64(v) => v[rows].iter().for_each(|x| feed.put(&x.to_le_bytes())),
        Column::Bool(v) => v[rows].iter().for_each(|&x| feed.put(&[u8::from(x)])),
        Column::OptBool(v) => v[rows]
            .iter()
            .for_each(|x| feed.put(&[x.map_or(2, u8::from)])),
    }
    feed.digest128()
}

/// Each row's hash over its text columns (numbers such as ids and lines move when rows before
/// them change; the text that names a row does not), which decides where row groups end.
fn row_hashes(columns: &[Column], n: usize) -> Vec<u64> {
    let mut rows = vec![0u64; n];
    let mix = |acc: &mut u64, v: u64| {
        *acc = (acc.rotate_left(23) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    };
    for col in columns {
        match col {
            Column::Str(v) => rows
                .iter_mut()
                .zip(v)
                .for_each(|(r, s)| mix(r, xxh3_64(s.as_bytes()))),
            Column::OptStr(v) => rows
                .iter_mut()
                .zip(v)
                .for_each(|(r, s)| mix(r, s.as_deref().map_or(1, |s| xxh3_64(s.as_bytes())))),
            Column::Pooled { ids, pool } | Column::OptPooled { ids, pool } => {
                let pooled: Vec<u64> = pool.iter().map(|s| xxh3_64(s.as_bytes())).collect();
                rows.iter_mut().zip(ids).for_each(|(r, &i)| {
                    mix(r, pooled.get(i as usize).copied().unwrap_or(1));
                });
            }
            Column::StrList(v) => rows.iter_mut().zip(v).for_each(|(r, l)| {
                l.iter().for_each(|s| mix(r, xxh3_64(s.as_bytes())));
            }),
            Column::U32(_) | Column::U64(_) | Column::Bool(_) | Column::OptBool(_) => {}
        }
    }
    // A final avalanche, so that the low bits the cut reads depend on every column.
    rows.iter_mut().for_each(|r| *r = xxh3_64(&r.to_le_bytes()));
    rows
}

/// How every table file is written: zstd, the chunked row groups, the dictionary columns of the
/// spec, and the metadata naming the format version and the table.
pub fn writer_properties(name: &str, spec: &[ColumnSpec]) -> WriterProperties {
    properties_with(spec, table_metadata(name))
}

/// The key/value metadata naming the format version and the table.
fn table_metadata(name: &str) -> Vec<KeyValue> {
    vec![
        KeyValue::new(
            META_FORMAT_VERSION.to_string(),
            crate::FORMAT_VERSION.to_string(),
        ),
        KeyValue::new(META_TABLE.to_string(), name.to_string()),
    ]
}

/// [`writer_properties`] with `kv` as the key/value metadata.
fn properties_with(spec: &[ColumnSpec], kv: Vec<KeyValue>) -> WriterProperties {
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(1).expect("valid level"),
        ))
        .set_created_by(format!("kivgraph format {}", crate::FORMAT_VERSION))
        .set_max_row_group_row_count(Some(CHUNK))
        .set_key_value_metadata(Some(kv));
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

    /// (source id, source key, target, line).
    type Row = (u32, u32, u32, u32);

    /// An edges table of `rows` (source id, source key, target, line) with pooled keys and
    /// paths.
    fn edges(rows: &[Row], keys: &Arc<Vec<String>>) -> TableBuilder {
        let mut t = TableBuilder::new("edges");
        let pool = |v: &[&str]| Arc::new(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let kinds = pool(&["CALLS", "REFERENCES"]);
        let conf = pool(&["EXACT", "CANDIDATE"]);
        let prov = pool(&["GO_SCOPE"]);
        let repos = pool(&["app", "lib"]);
        let ids = |f: &dyn Fn(&Row) -> u32| rows.iter().map(f).collect::<Vec<u32>>();
        let pooled = |ids: Vec<u32>, pool: &Arc<Vec<String>>| Column::Pooled {
            ids,
            pool: pool.clone(),
        };
        t.columns = vec![
            Column::U32(ids(&|r| r.0)),
            pooled(ids(&|r| r.1), keys),
            Column::U32(ids(&|r| r.2)),
            pooled(ids(&|r| r.2), keys),
            pooled(ids(&|r| r.3 % 2), &kinds),
            pooled(ids(&|r| u32::from(r.1 % 7 == 0)), &conf),
            pooled(ids(&|_| 0), &prov),
            Column::OptPooled {
                ids: ids(&|r| if r.3 % 5 == 0 { crate::NONE } else { r.1 % 2 }),
                pool: repos,
            },
            Column::OptPooled {
                ids: ids(&|r| if r.3 % 5 == 0 { crate::NONE } else { r.1 / 10 }),
                pool: keys.clone(),
            },
            Column::U32(ids(&|r| r.3)),
            Column::U32(ids(&|r| r.3 % 80)),
        ];
        t
    }

    #[test]
    fn a_write_that_copies_earlier_chunks_gives_the_bytes_of_a_write_from_nothing() {
        let keys: Arc<Vec<String>> = Arc::new(
            (0..40_000)
                .map(|i| format!("example.com/pkg{}:Sym{i}", i % 97))
                .collect(),
        );
        let before: Vec<Row> = (0..120_000u32)
            .map(|i| (i / 3, i / 3, (i * 7919) % 40_000, i % 1000))
            .collect();
        // An edit: rows added in the middle, one removed near the end, and the source id (not
        // the key) of every row after the insertion moved by one, as when a symbol is added.
        let mut after = before.clone();
        after.splice(50_000..50_000, (0..25).map(|i| (16_666, 16_666, i, 3)));
        after.remove(110_000);
        for r in &mut after[50_025..] {
            r.0 += 1;
        }
        let first = edges(&before, &keys).to_parquet().unwrap();
        let fresh = edges(&after, &keys).to_parquet().unwrap();
        let earlier = Earlier::parse("edges", first.clone()).expect("the first file is taken");
        let (copied, reused) = edges(&after, &keys)
            .to_parquet_reusing(Some(&earlier))
            .unwrap();
        assert_eq!(copied, fresh, "copied chunks change the bytes");
        assert!(
            reused.copied > 2 * reused.encoded,
            "most chunks should be copied: {reused:?}"
        );
        assert!(
            reused.encoded > 0,
            "the edited groups are encoded: {reused:?}"
        );
        let groups = edges(&after, &keys).row_groups();
        assert!(groups.len() >= 4, "{} row groups", groups.len());

        // The written file reads back whole.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("edges.parquet");
        std::fs::write(&p, &copied).unwrap();
        assert_eq!(check_table(&p, "edges").unwrap(), after.len() as u64);

        // Nothing is taken from another table, or from bytes that are not a table file.
        assert!(Earlier::parse("symbols", first.clone()).is_none());
        assert!(Earlier::parse("edges", first[..first.len() - 9].to_vec()).is_none());
        assert!(Earlier::parse("edges", b"PAR1".to_vec()).is_none());
    }
}
