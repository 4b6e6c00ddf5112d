//! The Arrow schemas of the CodeQueries records in Parquet: the same field names and
//! nesting as the JSON schema ([`Example`](super::Example), [`RelevanceRow`](super::RelevanceRow)),
//! spans and blocks as structs, so that `datasets` and `pyarrow` see the JSON Lines
//! records field for field. A field the JSON leaves out (no tokenizer: no sub-tokens or
//! labels; no id) is null.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

fn int(name: &str) -> Field {
    Field::new(name, DataType::Int64, false)
}

fn text(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn list_of(name: &str, item: DataType, nullable: bool) -> Field {
    Field::new(name, DataType::List(Arc::new(Field::new("item", item, true))), nullable)
}

fn structure(fields: Vec<Field>) -> DataType {
    DataType::Struct(Fields::from(fields))
}

/// `quarry_syntax::SpanRecord`: the span's text and its file positions.
fn span_record() -> DataType {
    structure(vec![text("span"), int("start_line"), int("start_column"), int("end_line"), int("end_column")])
}

/// [`BlockSpan`](super::BlockSpan): a span relative to a context block.
fn block_span() -> DataType {
    structure(vec![int("block"), int("start_line"), int("start_column"), int("end_line"), int("end_column")])
}

/// [`ContextBlock`](super::ContextBlock), with its runs of lines.
fn context_block() -> DataType {
    let run = structure(vec![int("start"), int("end")]);
    structure(vec![text("content"), text("metadata"), text("header"), int("index"), list_of("lines", run, false)])
}

/// The schema of an ideal or file-level example.
pub fn example_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, true),
        text("query_name"),
        text("code_file_path"),
        list_of("context_blocks", context_block(), false),
        list_of("answer_spans", span_record(), false),
        list_of("supporting_fact_spans", span_record(), false),
        Field::new("example_type", DataType::UInt8, false),
        Field::new("single_hop", DataType::Boolean, false),
        list_of("subtokenized_input_sequence", DataType::Utf8, true),
        list_of("label_sequence", DataType::UInt8, true),
        list_of("answer_spans_in_blocks", block_span(), false),
        list_of("supporting_fact_spans_in_blocks", block_span(), false),
        Field::new("spans_after_pruning", DataType::Int64, true),
        Field::new("pruned", DataType::Boolean, false),
        list_of("relevant_blocks", DataType::Int64, false),
    ]))
}

/// The schema of a relevance row (the two-step setting).
pub fn relevance_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        text("query_name"),
        text("code_file_path"),
        Field::new("context_block", context_block(), false),
        Field::new("relevance_label", DataType::UInt8, false),
        Field::new("single_hop", DataType::Boolean, false),
        list_of("subtokenized_input_sequence", DataType::Utf8, true),
    ]))
}

/// The schema of a setting's records (`twostep`: relevance rows; the others: examples).
pub fn schema_of(setting: &str) -> SchemaRef {
    if setting == "twostep" {
        relevance_schema()
    } else {
        example_schema()
    }
}
