//! `--format parquet`: one Apache Parquet file, written through the `parquet` crate's
//! own column writers. Each column of the bank gets its real type: `id` INT64 (delta
//! encoded), the other integers (`clues`) INT32, `rating` DOUBLE, boards and text
//! UTF-8 strings (`puzzle`, `solution`, `canonical` plain; `difficulty`, `technique`,
//! `clues` and `rating` dictionary-encoded: a handful of values each), required where
//! the bank always has a value. Rows are buffered a row group at a time
//! ([`ROW_GROUP_ROWS`], so memory stays flat), each row group zstd-compressed, and the
//! bank's manifest and the export's options go in the footer's key-value metadata.

use std::sync::{mpsc, Arc};

use anyhow::Context;
use bytes::Bytes;
use parquet::basic::{Compression, Encoding, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::column::writer::{get_column_writer, get_typed_column_writer, ColumnCloseResult};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::{ColumnDescPtr, ColumnPath, SchemaDescriptor, Type};
use rayon::prelude::*;

use super::rows::{Request, RowFailure, Rows};
use super::{Field, Kind, Schema};
use crate::bank::format::Manifest;
use crate::bank::reader::Fields;
use crate::util::output::{TempOutput, WriteBack};

/// Rows per row group: DuckDB's and Spark's unit of parallel reading (DuckDB writes
/// 122,880), and what the writer holds in memory at once (some 40 MB of 9×9 rows).
const ROW_GROUP_ROWS: usize = 1 << 17;

/// The zstd level of the row groups: the shards' (fastest, and on these rows about
/// as small as the levels up to 9).
const ZSTD_LEVEL: i32 = crate::bank::format::DEFAULT_ZSTD_LEVEL;

/// The key of the bank's manifest (JSON) in the file's key-value metadata.
const MANIFEST_KEY: &str = "sudoku-factory.manifest";
/// The key of the export's options (JSON) in the file's key-value metadata.
const EXPORT_KEY: &str = "sudoku-factory.export";

/// One column's values of the row group being gathered.
enum Values {
    Int64(Vec<i64>),
    Int32(Vec<i32>),
    Double(Vec<f64>),
    /// Strings, end to end in one buffer: no allocation per value.
    Text {
        bytes: Vec<u8>,
        ends: Vec<usize>,
    },
}

struct ColumnBuf {
    values: Values,
    /// Definition levels of an optional column (1: a value, 0: null).
    defs: Option<Vec<i16>>,
}

/// The Parquet type of each bank column: physical type, logical type, repetition.
fn column_type(name: &str, kind: Kind, required: bool) -> anyhow::Result<Type> {
    let (physical, logical) = match kind {
        Kind::Integer if name == "id" => (Physical::INT64, None),
        Kind::Integer => (Physical::INT32, None),
        Kind::Real => (Physical::DOUBLE, None),
        Kind::Cells | Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
    };
    let repetition = if required {
        Repetition::REQUIRED
    } else {
        Repetition::OPTIONAL
    };
    Type::primitive_type_builder(name, physical)
        .with_repetition(repetition)
        .with_logical_type(logical)
        .build()
        .with_context(|| format!("the Parquet type of column {name:?}"))
}

/// The file's schema and writer properties for `schema`'s columns.
fn layout(
    schema: &Schema,
    manifest: &Manifest,
    request: &Request<'_>,
) -> anyhow::Result<(Type, WriterProperties)> {
    let fields = schema
        .columns
        .iter()
        .map(|c| column_type(&c.name, c.kind, c.required).map(Arc::new))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let message = Type::group_type_builder("puzzles")
        .with_fields(fields)
        .build()
        .context("the Parquet schema")?;
    let options = serde_json::json!({
        "format": "parquet",
        "difficulty": request.difficulty,
        "one_per_class": request.one_per_class,
        "limit": request.limit,
    });
    let mut props = WriterProperties::builder()
        .set_created_by(format!(
            "{} {}",
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION")
        ))
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_key_value_metadata(Some(vec![
            KeyValue::new(
                MANIFEST_KEY.to_string(),
                serde_json::to_string(manifest).context("the manifest as JSON")?,
            ),
            KeyValue::new(EXPORT_KEY.to_string(), options.to_string()),
        ]));
    for c in &schema.columns {
        let path = ColumnPath::from(c.name.as_str());
        // Boards are nearly all distinct and ids all are: a dictionary only costs.
        let dictionary = match c.kind {
            Kind::Cells => false,
            Kind::Integer => c.name != "id",
            Kind::Real | Kind::Text => true,
        };
        props = props.set_column_dictionary_enabled(path.clone(), dictionary);
        if c.kind == Kind::Cells {
            // Min and max of boards in random order prune nothing.
            props = props.set_column_statistics_enabled(path.clone(), EnabledStatistics::None);
            // The boards end to end, their lengths apart: zstd sees only cells.
            props = props.set_column_encoding(path.clone(), Encoding::DELTA_LENGTH_BYTE_ARRAY);
        }
        if c.name == "id" {
            props = props.set_column_encoding(path, Encoding::DELTA_BINARY_PACKED);
        }
    }
    Ok((message, props.build()))
}

/// A row group's buffers, one per column, reused from group to group.
type Group = Vec<ColumnBuf>;

fn empty_group(schema: &Schema) -> Group {
    schema
        .columns
        .iter()
        .map(|c| ColumnBuf {
            values: match c.kind {
                Kind::Integer if c.name == "id" => Values::Int64(Vec::new()),
                Kind::Integer => Values::Int32(Vec::new()),
                Kind::Real => Values::Double(Vec::new()),
                Kind::Cells | Kind::Text => Values::Text {
                    bytes: Vec::new(),
                    ends: Vec::new(),
                },
            },
            defs: (!c.required).then(Vec::new),
        })
        .collect()
}

/// Appends one record's fields to the group's buffers (checked as every format
/// checks them).
fn gather(schema: &Schema, record: &impl Fields, group: &mut Group) -> Result<(), RowFailure> {
    schema.check_len(record)?;
    for (i, column) in group.iter_mut().enumerate() {
        let field = schema.field(record, i)?;
        if let Some(defs) = &mut column.defs {
            defs.push(i16::from(field != Field::Null));
        }
        match (&mut column.values, field) {
            (_, Field::Null) => {}
            (Values::Int64(v), Field::Integer(n)) => v.push(n),
            // `clues` is at most the board's cell count (checked by the schema).
            (Values::Int32(v), Field::Integer(n)) => v.push(n as i32),
            (Values::Double(v), Field::Real(x, _)) => v.push(x),
            (Values::Text { bytes, ends }, Field::Text(raw)) => {
                bytes.extend_from_slice(raw);
                ends.push(bytes.len());
            }
            _ => unreachable!("a field has its column's kind"),
        }
    }
    Ok(())
}

/// Gathers the rows into row groups on this thread while an encoder thread encodes,
/// compresses and writes the previous group (its columns in parallel), so reading,
/// gathering and compressing overlap; at most three groups' buffers exist at once.
pub(super) fn write_parquet(
    output: &TempOutput,
    rows: &mut Rows<'_>,
    manifest: &Manifest,
    request: &Request<'_>,
) -> anyhow::Result<()> {
    let path = output.tmp().to_path_buf();
    let context = || format!("writing the Parquet file {}", path.display());
    let schema = rows.schema;
    let (message, props) = layout(schema, manifest, request)?;
    let message = Arc::new(message);
    let props = Arc::new(props);
    let descriptors: Vec<ColumnDescPtr> = SchemaDescriptor::new(message.clone()).columns().to_vec();
    let file = WriteBack::new(output.create()?);
    let mut writer =
        SerializedFileWriter::new(file, message, props.clone()).with_context(context)?;
    let (to_encoder, groups) = mpsc::sync_channel::<Group>(0);
    let (recycle, recycled) = mpsc::channel::<Group>();
    std::thread::scope(|scope| {
        let encoder = scope.spawn(move || -> anyhow::Result<()> {
            for mut group in groups {
                write_row_group(&mut writer, &mut group, &descriptors, &props)?;
                let _ = recycle.send(group);
            }
            writer.finish()?;
            Ok(())
        });
        let mut group = empty_group(schema);
        let mut buffered = 0usize;
        let gathered = rows.each(|record| {
            gather(schema, record, &mut group)?;
            buffered += 1;
            if buffered == ROW_GROUP_ROWS {
                let next = recycled.try_recv().unwrap_or_else(|_| empty_group(schema));
                if to_encoder
                    .send(std::mem::replace(&mut group, next))
                    .is_err()
                {
                    // The encoder stopped: its error is the one reported.
                    return Err(RowFailure::Write(anyhow::anyhow!("the encoder stopped")));
                }
                buffered = 0;
            }
            Ok(())
        });
        if gathered.is_ok() && buffered > 0 {
            // A send that fails means the encoder stopped, with its own error.
            let _ = to_encoder.send(group);
        }
        drop(to_encoder);
        let encoded = encoder.join().expect("the encoder thread does not panic");
        // The encoder's error explains why gathering stopped.
        encoded.with_context(context)?;
        gathered
    })
}

/// Writes the gathered values as one row group and empties the buffers. The
/// columns are encoded and compressed in parallel, each into its own buffer (zstd is
/// most of the work), then appended to the file in schema order.
fn write_row_group<W: std::io::Write + Send>(
    writer: &mut SerializedFileWriter<W>,
    columns: &mut [ColumnBuf],
    descriptors: &[ColumnDescPtr],
    props: &WriterPropertiesPtr,
) -> anyhow::Result<()> {
    let chunks = columns
        .par_iter_mut()
        .zip(descriptors)
        .map(|(column, descriptor)| encode_column(column, descriptor, props))
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    let mut group = writer.next_row_group()?;
    for (bytes, close) in chunks {
        group.append_column(&Bytes::from(bytes), close)?;
    }
    group.close()?;
    Ok(())
}

/// One column chunk of the row group, encoded and compressed into memory, and what
/// the file's writer needs to append it (offsets, statistics).
fn encode_column(
    column: &mut ColumnBuf,
    descriptor: &ColumnDescPtr,
    props: &WriterPropertiesPtr,
) -> parquet::errors::Result<(Vec<u8>, ColumnCloseResult)> {
    let mut sink = TrackedWrite::new(Vec::new());
    let pages = Box::new(SerializedPageWriter::new(&mut sink));
    let writer = get_column_writer(descriptor.clone(), props.clone(), pages);
    let defs = column.defs.as_deref();
    let close = match &mut column.values {
        Values::Int64(v) => {
            let mut w = get_typed_column_writer::<Int64Type>(writer);
            w.write_batch(v, defs, None)?;
            v.clear();
            w.close()?
        }
        Values::Int32(v) => {
            let mut w = get_typed_column_writer::<Int32Type>(writer);
            w.write_batch(v, defs, None)?;
            v.clear();
            w.close()?
        }
        Values::Double(v) => {
            let mut w = get_typed_column_writer::<DoubleType>(writer);
            w.write_batch(v, defs, None)?;
            v.clear();
            w.close()?
        }
        Values::Text { bytes, ends } => {
            // One shared buffer; each value is a slice of it (a reference count, not
            // a copy). Taken back afterwards when nothing holds a slice any more.
            let shared = Bytes::from(std::mem::take(bytes));
            let mut start = 0;
            let strings: Vec<ByteArray> = ends
                .iter()
                .map(|&end| {
                    let value = ByteArray::from(shared.slice(start..end));
                    start = end;
                    value
                })
                .collect();
            let mut w = get_typed_column_writer::<ByteArrayType>(writer);
            w.write_batch(&strings, defs, None)?;
            let close = w.close()?;
            drop(strings);
            if let Ok(back) = shared.try_into_mut() {
                *bytes = Vec::from(back);
                bytes.clear();
            }
            ends.clear();
            close
        }
    };
    if let Some(defs) = &mut column.defs {
        defs.clear();
    }
    Ok((sink.into_inner()?, close))
}
