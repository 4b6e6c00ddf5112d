//! Records in the public CodeQueries dataset schema, plus a few fields quarry
//! adds (spans relative to their blocks, pruning counts, the split).

use quarry_syntax::SpanRecord;

use serde::{Deserialize, Serialize};

/// One code block given as context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextBlock {
    /// The block's source lines, terminators included.
    pub content: String,
    /// Its name path, `root`, `root.Cls`, `root.Cls.method`, `root.func`.
    pub metadata: String,
    /// The class header for class-level and method blocks, else `module`.
    pub header: String,
    /// Index of the block in its file.
    pub index: usize,
    /// The block's lines in the file (0-based, inclusive runs), so block
    /// positions map back to file positions.
    #[serde(default)]
    pub lines: Vec<quarry_syntax::LineRun>,
}

/// A span relative to a block of `context_blocks`: lines count from the
/// block's first line, columns are the file's (blocks hold whole lines).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockSpan {
    /// Position of the block in the example's `context_blocks`.
    pub block: usize,
    /// 0-based line within the block.
    pub start_line: usize,
    /// 0-based character column.
    pub start_column: usize,
    /// 0-based line within the block.
    pub end_line: usize,
    /// Exclusive character column.
    pub end_column: usize,
}

/// One labelled example (ideal or file-level setting).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Example {
    /// A stable identifier: `FILE#Q<index>#<relevant block indices>` (`#file` for a
    /// file-level example); predictions carry it. Empty in the public dataset.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// The exact CodeQueries query name.
    pub query_name: String,
    /// The source file, relative to the corpus root.
    pub code_file_path: String,
    /// The context blocks, in file order.
    pub context_blocks: Vec<ContextBlock>,
    /// Answer spans in file coordinates (empty for negative examples).
    pub answer_spans: Vec<SpanRecord>,
    /// Supporting-fact spans in file coordinates (empty for negative examples).
    pub supporting_fact_spans: Vec<SpanRecord>,
    /// 1 positive, 0 negative.
    pub example_type: u8,
    /// Whether the query is single-hop.
    pub single_hop: bool,
    /// Subtokens: `[CLS] query [SEP] block [SEP] block ... [SEP]` (with `--tokenizer`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subtokenized_input_sequence: Vec<String>,
    /// One label per subtoken: B=0, I=1, O=2, F=3, and 4 for special and query tokens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub label_sequence: Vec<u8>,
    /// Answer spans relative to their blocks.
    #[serde(default)]
    pub answer_spans_in_blocks: Vec<BlockSpan>,
    /// Supporting-fact spans relative to their blocks.
    #[serde(default)]
    pub supporting_fact_spans_in_blocks: Vec<BlockSpan>,
    /// How many answer and fact spans survive pruning to the maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spans_after_pruning: Option<usize>,
    /// Whether the subtoken sequence was cut to the maximum length.
    #[serde(default)]
    pub pruned: bool,
    /// File indices (`index`) of the blocks relevant to the query: those
    /// the findings need. In ideal examples these are the context blocks;
    /// in file-level examples, the file-level ideal setting's input.
    #[serde(default)]
    pub relevant_blocks: Vec<usize>,
}

/// One row for the relevance classifier: a block, and whether it is relevant
/// to the query in its file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RelevanceRow {
    /// The exact CodeQueries query name.
    pub query_name: String,
    /// The source file, relative to the corpus root.
    pub code_file_path: String,
    /// The block.
    pub context_block: ContextBlock,
    /// 1 relevant, 0 not.
    pub relevance_label: u8,
    /// Whether the query is single-hop.
    pub single_hop: bool,
    /// Subtokens `[CLS] query [SEP] block [SEP]` (with `--tokenizer`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subtokenized_input_sequence: Vec<String>,
}

/// B/I/O/F label values of `label_sequence`, as in the public dataset.
pub mod label {
    /// Begins an answer span.
    pub const B: u8 = 0;
    /// Continues an answer or fact span.
    pub const I: u8 = 1;
    /// Outside every span.
    pub const O: u8 = 2;
    /// Begins a supporting-fact span.
    pub const F: u8 = 3;
    /// Special and query tokens, ignored by the loss.
    pub const IGNORE: u8 = 4;
}
