//! The report of a CodeQueries experiment: the paper's tables (Tables 2–5 and Figure 5's
//! numbers) as Markdown, every row saying which model, data and setting produced it, beside
//! the values the paper reports for its own models.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use quarry_model::evaluation::spans::Counts;
use quarry_model::training::train::EpochLog;
use serde::{Deserialize, Serialize};

/// What a training stage records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Trained {
    /// The run's directory (`best/` is evaluated).
    pub dir: PathBuf,
    /// Training examples.
    pub examples: usize,
    /// Every epoch's log.
    pub epochs: Vec<EpochLog>,
    /// Wall-clock seconds of the stage (of its last, resumed part when it was interrupted).
    pub seconds: f64,
}

/// Exact matches out of a number of examples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rate {
    /// Examples matched exactly.
    pub exact: usize,
    /// Examples.
    pub total: usize,
}

impl From<Counts> for Rate {
    fn from(c: Counts) -> Self {
        Rate { exact: c.exact, total: c.total }
    }
}

impl Rate {
    /// The rate in percent (`None` for no examples).
    pub fn percent(&self) -> Option<f64> {
        (self.total > 0).then(|| 100.0 * self.exact as f64 / self.total as f64)
    }

    /// The cell text: a percentage and the counts behind it ("–" for no examples).
    pub fn cell(&self) -> String {
        if self.total == 0 {
            "– (0/0)".into()
        } else {
            format!("{:.2} ({}/{})", 100.0 * self.exact as f64 / self.total as f64, self.exact, self.total)
        }
    }
}

/// One row of exact-match results: all, positive and negative examples.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// The row's name in the paper's table.
    pub name: String,
    /// All examples.
    pub all: Rate,
    /// Positive examples.
    pub positive: Rate,
    /// Negative examples.
    pub negative: Rate,
    /// Model checkpoint, data file and setting that produced the row.
    pub produced_by: String,
    /// What predicting no span scores on the same examples: all, positive, negative.
    #[serde(default)]
    pub predict_nothing: [Rate; 3],
    /// Why the row's figures could mislead (no positives, all predictions empty, spans lost
    /// to truncation).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Training examples per query, for the rows of Figure 5's limited budgets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<usize>,
}

impl Row {
    /// A row from `[all, positive, negative]`, the predict-nothing baseline of the same
    /// examples, and the evaluation's warnings.
    pub fn new(name: &str, rates: &[Rate; 3], baseline: &[Rate; 3], warnings: &[String], produced_by: String) -> Self {
        Row {
            name: name.into(),
            all: rates[0],
            positive: rates[1],
            negative: rates[2],
            produced_by,
            predict_nothing: *baseline,
            warnings: warnings.to_vec(),
            budget: None,
        }
    }
}

/// Relevance classification on the two-step test rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RelevanceRow {
    /// Accuracy.
    pub accuracy: f64,
    /// Precision of the relevant class (`None`: undefined, no row predicted relevant).
    pub precision: Option<f64>,
    /// Recall of the relevant class (`None`: undefined, no relevant row).
    pub recall: Option<f64>,
    /// F1 of the relevant class (`None`: undefined, nothing relevant predicted or labelled).
    pub f1: Option<f64>,
    /// Rows evaluated.
    pub examples: usize,
    /// Model and data that produced the numbers.
    pub produced_by: String,
    /// Accuracy of calling no block relevant on the same rows.
    #[serde(default)]
    pub predict_nothing_accuracy: f64,
    /// The evaluation's warnings (no relevant row, no row predicted relevant).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// Everything the experiment measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// The encoder the runs started from.
    pub model: String,
    /// The corpus.
    pub corpus: String,
    /// The run's settings beside the paper's ([`crate::codequeries::Config::settings`]).
    #[serde(default)]
    pub settings: String,
    /// Dataset examples written per setting and split.
    pub written: BTreeMap<String, usize>,
    /// Table 2: the span model in the ideal setting.
    pub table2: Vec<Row>,
    /// Table 3: file-level settings.
    pub table3: Vec<Row>,
    /// Section 5.2.1: the relevance classifier.
    pub relevance: RelevanceRow,
    /// Table 4: answer-only exact match with and without supporting facts in training.
    pub table4: Vec<Row>,
    /// Table 5: perturbed and original test examples.
    pub table5: Vec<Row>,
    /// Figure 5: limited training budgets.
    pub budgets: Vec<Row>,
    /// Every training run.
    pub training: Vec<Trained>,
}

/// The paper's values (CuBERT-1K, or CuBERT for relevance) for a row name, for comparison.
pub(crate) fn paper(table: &str, row: &str) -> Option<[f64; 3]> {
    Some(match (table, row) {
        ("2", _) => [86.70, 72.51, 96.79],
        ("3", "Prefix") => [72.28, 36.60, 93.80],
        ("3", "Sliding window") => [73.03, 51.91, 85.75],
        ("3", "Two-step") => [80.13, 52.61, 96.73],
        ("3", "File-level ideal") => [82.47, 59.60, 96.26],
        ("4", "trained without supporting facts") => [86.96, 73.67, 96.41],
        ("4", "trained with supporting facts") => [87.41, 73.76, 97.11],
        ("5", "Original") => [86.70, 72.51, 96.79],
        ("5", _) => [83.29, 67.16, 94.59],
        _ => return None,
    })
}

/// A row's cells in both reports: all, positive and negative examples, the
/// predict-nothing baseline (all) and the paper's values for table `number`.
pub(crate) fn row_cells(number: &str, row: &Row) -> [String; 5] {
    let paper =
        paper(number, &row.name).map_or("–".to_string(), |p| format!("{:.2} / {:.2} / {:.2}", p[0], p[1], p[2]));
    [row.all.cell(), row.positive.cell(), row.negative.cell(), row.predict_nothing[0].cell(), paper]
}

/// The relevance classifier's figures beside the paper's and the predict-nothing
/// accuracy, as both reports say them.
pub(crate) fn relevance_sentence(rel: &RelevanceRow) -> String {
    format!(
        "accuracy {:.2}, precision {}, recall {}, F1 {} on {} rows (paper: 96.38, 95.73, 90.10, –); \
         calling no block relevant: accuracy {:.2}.",
        100.0 * rel.accuracy,
        percent_or_dash(rel.precision),
        percent_or_dash(rel.recall),
        percent_or_dash(rel.f1),
        rel.examples,
        100.0 * rel.predict_nothing_accuracy
    )
}

/// A rate in percent with two decimals, or `–` where it is undefined.
fn percent_or_dash(rate: Option<f64>) -> String {
    rate.map_or("–".into(), |r| format!("{:.2}", 100.0 * r))
}

fn table(out: &mut String, number: &str, title: &str, first: &str, rows: &[Row]) {
    let label = if number.starts_with('F') { "Figure" } else { "Table" };
    let _ = writeln!(out, "### {label} {}: {title}\n", number.trim_start_matches('F'));
    let _ =
        writeln!(out, "| {first} | All | Positive | Negative | Predict nothing (All) | Paper (All / Pos. / Neg.) |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(out, "| {} [{}] | {} |", r.name, i + 1, row_cells(number, r).join(" | "));
    }
    let _ = writeln!(out);
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(out, "[{}] {}", i + 1, r.produced_by);
        for warning in &r.warnings {
            let _ = writeln!(out, "**Warning** [{}]: {warning}", i + 1);
        }
    }
    let _ = writeln!(out);
}

/// The report as Markdown.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# CodeQueries experiment\n");
    let _ =
        writeln!(out, "Encoder `{}`, corpus `{}`. Exact match in percent (matched/examples); every", r.model, r.corpus);
    let _ = writeln!(out, "row's note names the checkpoint, data and setting that produced it. The paper's values are");
    let _ = writeln!(out, "for its CuBERT-1K model on the full dataset, for reference only.\n");
    if !r.settings.is_empty() {
        let _ = writeln!(out, "{}\n", r.settings);
    }
    let _ = writeln!(
        out,
        "Dataset examples written: {}\n",
        r.written.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    );
    table(&mut out, "2", "exact match in the ideal setting", "Model", &r.table2);
    table(&mut out, "3", "exact match on large-size code (file level)", "Setting", &r.table3);
    let rel = &r.relevance;
    let _ = writeln!(
        out,
        "Relevance classifier (two-step, first step): {} [{}]\n",
        relevance_sentence(rel),
        rel.produced_by
    );
    for warning in &rel.warnings {
        let _ = writeln!(out, "**Warning** (relevance): {warning}\n");
    }
    table(&mut out, "4", "answer-span exact match, trained with and without supporting facts", "Model", &r.table4);
    table(&mut out, "5", "robustness to minor syntax errors", "Test data", &r.table5);
    table(
        &mut out,
        "F5",
        "learning from a limited number of examples, exact match on the ideal test set",
        "Training budget",
        &r.budgets,
    );
    let _ = writeln!(out, "### Training runs\n");
    let _ = writeln!(out, "| Run | Examples | Epochs | Last train loss | Best valid loss | Seconds |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for t in &r.training {
        let last = t.epochs.last().map_or(f64::NAN, |e| e.loss);
        let best = t.epochs.iter().map(|e| e.valid_loss).fold(f64::INFINITY, f64::min);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {last:.4} | {best:.4} | {:.0} |",
            t.dir.display(),
            t.examples,
            t.epochs.len(),
            t.seconds
        );
    }
    out
}
