//! The CS1QA experiment's report: the dense retriever's recall of the BM25 top-1 beside the
//! untrained encoder's; with the annotated rows, type accuracy and macro F1 per seed beside
//! the majority type and the paper (Table 5's best, 76.65 % accuracy), line F1 and EM
//! beside the middle-60-lines baseline and the paper (Table 8's best F1, 57.57 %), and the
//! type confusion matrix; as `report.md`, `report.html` (inline SVG) and `report.json`.

use std::fmt::Write as _;
use std::path::Path;

use html_escape::encode_text;
use plotters::prelude::*;
use quarry_eval::classification::ClassificationReport;
use quarry_eval::cs1qa::LineReport;
use serde::{Deserialize, Serialize};

use crate::error::{ExperimentError, Result};
use crate::html::{figure, group_labels, prose, STYLE};
use crate::report::Trained;

/// The paper's best type accuracy (section 1 and Table 5), in percent.
const PAPER_TYPE_ACCURACY: f64 = 76.65;
/// The paper's best line-selection F1 (section 1 and Table 8), in percent.
const PAPER_LINE_F1: f64 = 57.57;
/// The paper's answer-retrieval BLEU-1 (section 7.3).
const PAPER_ANSWER_BLEU1: f64 = 13.07;

/// Recall of each test question's BM25 top-1 among a retriever's hits.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recall {
    /// At rank 1.
    pub at1: f64,
    /// In the top 5.
    pub at5: f64,
    /// The hits file, relative to OUT.
    pub hits: String,
}

/// The retrieval task on the released files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RetrievalResult {
    /// Corpus questions.
    pub corpus: usize,
    /// Training questions.
    pub train: usize,
    /// Test questions.
    pub test: usize,
    /// The encoder before training.
    pub untrained: Recall,
    /// The trained dense retriever.
    pub dense: Recall,
    /// Its training run.
    pub training: Trained,
}

/// One seed's type classifier on the test rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TypeResult {
    /// The seed.
    pub seed: u64,
    /// Accuracy (0–1).
    pub accuracy: f64,
    /// Macro F1 (0–1).
    pub macro_f1: f64,
    /// Share of test rows of the most frequent training type (0–1).
    pub majority: f64,
    /// The confusion matrix's labels.
    pub labels: Vec<String>,
    /// `confusion[i][j]`: type i predicted as type j.
    pub confusion: Vec<Vec<usize>>,
    /// The training run.
    pub training: Trained,
}

impl TypeResult {
    /// The result of `report` for `seed`.
    pub fn new(seed: u64, report: &ClassificationReport, majority: f64, training: Trained) -> Self {
        TypeResult {
            seed,
            accuracy: report.accuracy,
            macro_f1: report.macro_f1,
            majority,
            labels: report.labels.clone(),
            confusion: report.confusion.clone(),
            training,
        }
    }
}

/// Line selection scores on the test rows (0–1).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LinesResult {
    /// The seed, for a model.
    pub seed: Option<u64>,
    /// F1 over all rows.
    pub f1: f64,
    /// Exact match over all rows.
    pub em: f64,
    /// F1 over rows with a relevant line.
    pub valid_f1: f64,
    /// Exact match over rows with a relevant line.
    pub valid_em: f64,
    /// Test rows.
    pub rows: usize,
    /// The training run, for a model.
    pub training: Option<Trained>,
}

impl LinesResult {
    /// A trained model's scores.
    pub fn model(seed: u64, report: &LineReport, rows: usize, training: Trained) -> Self {
        LinesResult { seed: Some(seed), training: Some(training), ..LinesResult::baseline(report, rows) }
    }

    /// The middle-60-lines baseline's scores.
    pub fn baseline(report: &LineReport, rows: usize) -> Self {
        LinesResult {
            seed: None,
            f1: report.all.f1,
            em: report.all.em,
            valid_f1: report.valid.f1,
            valid_em: report.valid.em,
            rows,
            training: None,
        }
    }
}

/// Everything the experiment measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cs1qaReport {
    /// The encoder every model started from.
    pub model: String,
    /// The retrieval task.
    pub retrieval: RetrievalResult,
    /// The annotated rows' folder, when given.
    pub annotated: Option<String>,
    /// The type classifier per seed.
    pub types: Vec<TypeResult>,
    /// The line selector per seed.
    pub lines: Vec<LinesResult>,
    /// The middle-60-lines baseline.
    pub middle_baseline: Option<LinesResult>,
}

impl RetrievalResult {
    /// How the retriever was trained, and where its checkpoint and BM25's hits are.
    fn training_sentence(&self) -> String {
        let t = &self.training;
        let best = t.epochs.iter().map(|e| e.valid_loss).fold(f64::INFINITY, f64::min);
        format!(
            "The retriever `train/dense/best`: {} epoch(s) on {} training pairs in {:.0} s, best validation loss \
             {best:.4}; BM25's own hits: `retrieval/bm25_test.jsonl`.",
            t.epochs.len(),
            t.examples,
            t.seconds
        )
    }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

fn pct(v: f64) -> String {
    if v.is_nan() {
        "–".into()
    } else {
        format!("{:.2}", 100.0 * v)
    }
}

impl Cs1qaReport {
    /// The confusion matrices of every seed summed.
    fn confusion(&self) -> Option<(Vec<String>, Vec<Vec<usize>>)> {
        let first = self.types.first()?;
        let mut sum = vec![vec![0usize; first.labels.len()]; first.labels.len()];
        for t in self.types.iter().filter(|t| t.labels == first.labels) {
            for (row, counts) in sum.iter_mut().zip(&t.confusion) {
                for (cell, n) in row.iter_mut().zip(counts) {
                    *cell += n;
                }
            }
        }
        Some((first.labels.clone(), sum))
    }

    /// What a reader must know before trusting the rows.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let r = &self.retrieval;
        if r.dense.at1 <= r.untrained.at1 {
            out.push(format!(
                "the trained retriever's recall@1 ({}) is not above the untrained encoder's ({})",
                pct(r.dense.at1),
                pct(r.untrained.at1)
            ));
        }
        let (accuracy, majority) =
            (mean(self.types.iter().map(|t| t.accuracy)), mean(self.types.iter().map(|t| t.majority)));
        if !self.types.is_empty() && accuracy <= majority {
            out.push(format!("type accuracy {} is not above the majority type's {}", pct(accuracy), pct(majority)));
        }
        if let Some(b) = &self.middle_baseline {
            let f1 = mean(self.lines.iter().map(|l| l.f1));
            if !self.lines.is_empty() && f1 <= b.f1 {
                out.push(format!("line F1 {} is not above the middle-60-lines baseline's {}", pct(f1), pct(b.f1)));
            }
        }
        out
    }

    fn intro(&self) -> String {
        let r = &self.retrieval;
        let mut text = format!(
            "Encoder `{}`. Answer retrieval on the released files ({} corpus, {} training and {} test questions): \
             the released files have no answers, so the answers' BLEU-1 of the paper (section 7.3: {PAPER_ANSWER_BLEU1}) \
             cannot be measured; what is measured is how often the dense retriever (DPR, trained as the paper trains \
             it on each training question's BM25 top-1) ranks a test question's BM25 top-1 first, beside the \
             untrained encoder.",
            self.model, r.corpus, r.train, r.test
        );
        match &self.annotated {
            Some(dir) => {
                let _ = write!(
                    text,
                    " Type and line tasks on the annotated rows in `{dir}`, {} seed(s), the test rows scored with \
                     the best development epoch.",
                    self.types.len()
                );
            }
            None => text.push_str(
                " The annotated rows (the authors' `train/dev/test_cleaned.jsonl`) were not given (`--annotated`), \
                 so the type and line tasks (Tables 5 and 8) did not run.",
            ),
        }
        text
    }

    /// Rows of the type table: (name, accuracy, macro F1) in percent text.
    fn type_rows(&self) -> Vec<[String; 3]> {
        let mut rows: Vec<[String; 3]> =
            self.types.iter().map(|t| [format!("seed {}", t.seed), pct(t.accuracy), pct(t.macro_f1)]).collect();
        if !self.types.is_empty() {
            rows.push([
                "mean".into(),
                pct(mean(self.types.iter().map(|t| t.accuracy))),
                pct(mean(self.types.iter().map(|t| t.macro_f1))),
            ]);
            rows.push(["majority type".into(), pct(mean(self.types.iter().map(|t| t.majority))), "–".into()]);
            rows.push(["paper, best model (Table 5)".into(), format!("{PAPER_TYPE_ACCURACY:.2}"), "–".into()]);
        }
        rows
    }

    /// Rows of the line table: (name, F1, EM, valid-line F1, valid-line EM).
    fn line_rows(&self) -> Vec<[String; 5]> {
        let row = |name: String, l: &LinesResult| [name, pct(l.f1), pct(l.em), pct(l.valid_f1), pct(l.valid_em)];
        let mut rows: Vec<[String; 5]> =
            self.lines.iter().map(|l| row(format!("seed {}", l.seed.unwrap_or_default()), l)).collect();
        if let Some(b) = &self.middle_baseline {
            rows.push(row("middle 60 lines".into(), b));
            let dash = || "–".to_string();
            rows.push(["paper, best model (Table 8)".into(), format!("{PAPER_LINE_F1:.2}"), dash(), dash(), dash()]);
        }
        rows
    }
}

/// The report as Markdown.
pub fn render_markdown(r: &Cs1qaReport) -> String {
    let mut out = format!("# CS1QA experiment\n\n{}\n\n## Answer retrieval\n\n", r.intro());
    let _ = writeln!(out, "| Retriever | Recall@1 of the BM25 top-1 | Recall@5 | Hits |\n|---|---:|---:|---|");
    let rt = &r.retrieval;
    for (name, recall) in [("DPR, trained", &rt.dense), ("encoder, untrained", &rt.untrained)] {
        let _ = writeln!(out, "| {name} | {} | {} | `{}` |", pct(recall.at1), pct(recall.at5), recall.hits);
    }
    let _ = writeln!(out, "\n{}", rt.training_sentence());
    if !r.types.is_empty() {
        let _ = writeln!(out, "\n## Question type (Table 5)\n\n| Run | Accuracy | Macro F1 |\n|---|---:|---:|");
        for [a, b, c] in r.type_rows() {
            let _ = writeln!(out, "| {a} | {b} | {c} |");
        }
    }
    if !r.lines.is_empty() {
        let _ = writeln!(
            out,
            "\n## Code-line selection (Table 8)\n\n| Run | F1 | EM | Valid-line F1 | Valid-line EM |\n|---|---:|---:|---:|---:|"
        );
        for [a, b, c, d, e] in r.line_rows() {
            let _ = writeln!(out, "| {a} | {b} | {c} | {d} | {e} |");
        }
    }
    for w in r.warnings() {
        let _ = writeln!(out, "\n**Warning**: {w}");
    }
    out
}

fn html_table<const N: usize>(out: &mut String, header: [&str; N], rows: &[[String; N]]) {
    out.push_str("<table>\n<tr>");
    for h in header {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("</tr>\n");
    for row in rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if i == 0 { "" } else { " class=\"n\"" };
            let _ = write!(out, "<td{class}>{}</td>", encode_text(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// The report as one self-contained page.
pub fn render_html(r: &Cs1qaReport) -> String {
    let mut out = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>CS1QA experiment</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<h1>CS1QA experiment</h1>\n<p>{}</p>\n<h2>Answer retrieval</h2>\n\
         <figure>{}<figcaption>How often each retriever ranks a test question's BM25 top-1 first and in its top \
         5.</figcaption></figure>\n",
        prose(&r.intro()),
        recall_chart(&r.retrieval)
    );
    let rt = &r.retrieval;
    let rows: Vec<[String; 4]> = [("DPR, trained", &rt.dense), ("encoder, untrained", &rt.untrained)]
        .into_iter()
        .map(|(name, x)| [name.to_string(), pct(x.at1), pct(x.at5), x.hits.clone()])
        .collect();
    html_table(&mut out, ["Retriever", "Recall@1 of the BM25 top-1", "Recall@5", "Hits"], &rows);
    let _ = writeln!(out, "<p class=\"note\">{}</p>", prose(&rt.training_sentence()));
    if !r.types.is_empty() {
        out.push_str("<h2>Question type (Table 5)</h2>\n");
        html_table(&mut out, ["Run", "Accuracy", "Macro F1"], &r.type_rows());
        if let Some((labels, matrix)) = r.confusion() {
            let _ = writeln!(
                out,
                "<figure>{}<figcaption>Confusion of the test rows' types, every seed summed: rows the true type, \
                 columns the predicted one.</figcaption></figure>",
                confusion_chart(&labels, &matrix)
            );
        }
    }
    if !r.lines.is_empty() {
        out.push_str("<h2>Code-line selection (Table 8)</h2>\n");
        html_table(&mut out, ["Run", "F1", "EM", "Valid-line F1", "Valid-line EM"], &r.line_rows());
    }
    for w in r.warnings() {
        let _ = writeln!(out, "<p class=\"warn\">Warning: {}</p>", encode_text(&w));
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// Bars of recall@1 and @5, trained and untrained.
fn recall_chart(r: &RetrievalResult) -> String {
    let series =
        [("DPR, trained", [r.dense.at1, r.dense.at5]), ("encoder, untrained", [r.untrained.at1, r.untrained.at5])];
    figure((640, 300), 0f64..2.0, 0f64..crate::html::LEGEND_ROOM, |chart, root| {
        chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("recall (%)").draw().map_err(|e| e.to_string())?;
        group_labels(chart, root, &["recall@1", "recall@5"])?;
        for (k, (name, values)) in series.iter().enumerate() {
            let colour = Palette99::pick(k).to_rgba();
            let bars = values.iter().enumerate().map(|(i, v)| {
                let left = i as f64 + 0.15 + 0.35 * k as f64;
                Rectangle::new([(left, 0.0), (left + 0.3, 100.0 * v)], colour.filled())
            });
            chart
                .draw_series(bars)
                .map_err(|e| e.to_string())?
                .label(*name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        }
        Ok(())
    })
}

/// The confusion matrix as shaded cells with their counts.
fn confusion_chart(labels: &[String], matrix: &[Vec<usize>]) -> String {
    let n = labels.len();
    let most = matrix.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let mut text = String::new();
    let drawn = (|| -> std::result::Result<(), String> {
        let size = (160 + 64 * n as u32, 80 + 40 * n as u32);
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(50)
            .y_label_area_size(130)
            .build_cartesian_2d(0f64..n as f64, 0f64..n as f64)
            .map_err(|e| e.to_string())?;
        // Column names shortened to fit their cell; the rows carry the full names.
        let name = |v: &f64| labels.get(*v as usize).map(|l| l.chars().take(9).collect()).unwrap_or_default();
        let row_name = |v: &f64| labels.get(n.saturating_sub(1 + *v as usize)).cloned().unwrap_or_default();
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(n * 2 + 1)
            .y_labels(n * 2 + 1)
            .x_label_formatter(&|v| if v.fract() == 0.5 { name(v) } else { String::new() })
            .y_label_formatter(&|v| if v.fract() == 0.5 { row_name(v) } else { String::new() })
            .x_label_style(("sans-serif", 10).into_font())
            .x_desc("predicted")
            .y_desc("true")
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, row) in matrix.iter().enumerate() {
            for (j, &count) in row.iter().enumerate() {
                let (x, y) = (j as f64, (n - 1 - i) as f64);
                let shade = 1.0 - 0.7 * count as f64 / most;
                let colour = RGBColor((255.0 * shade) as u8, (255.0 * shade) as u8, 255);
                chart
                    .draw_series(std::iter::once(Rectangle::new([(x, y), (x + 1.0, y + 1.0)], colour.filled())))
                    .map_err(|e| e.to_string())?;
                chart
                    .draw_series(std::iter::once(Text::new(
                        count.to_string(),
                        (x + 0.4, y + 0.6),
                        ("sans-serif", 12).into_font(),
                    )))
                    .map_err(|e| e.to_string())?;
            }
        }
        root.present().map_err(|e| e.to_string())
    })();
    match drawn {
        Ok(()) => text,
        Err(e) => format!("<p class=\"warn\">figure not drawn: {}</p>", encode_text(&e)),
    }
}

/// Writes `report.md`, `report.html` and `report.json` under `out`.
pub fn write(out: &Path, r: &Cs1qaReport) -> Result<()> {
    let json = serde_json::to_string_pretty(r).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
    for (name, text) in [("report.json", json), ("report.md", render_markdown(r)), ("report.html", render_html(r))] {
        quarry_stdx::atomic::write_atomically(&out.join(name), text.as_bytes())?;
    }
    Ok(())
}
