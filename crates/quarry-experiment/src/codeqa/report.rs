//! The CodeQA experiment's report: CodeQA's five scores of quarry's model and of the two
//! floors beside the paper's Table 7 (Java) or 8 (Python), as `report.md`, `report.html`
//! (the scores as grouped bars and the validation loss by epoch, inline SVG) and
//! `report.json`. Every row names the answers file and model it scores, relative to OUT.

use std::fmt::Write as _;
use std::path::Path;

use html_escape::encode_text;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{ExperimentError, Result};
use crate::html::{figure, prose, STYLE};
use crate::report::Trained;

/// CodeQA's scores of one answers file, in percent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Scores {
    /// Averaged smoothed sentence BLEU-4.
    pub bleu: f64,
    /// ROUGE-L.
    pub rouge_l: f64,
    /// METEOR 1.5, when its jar was at hand.
    pub meteor: Option<f64>,
    /// Exact match.
    pub em: f64,
    /// Token F1.
    pub f1: f64,
    /// Token precision.
    pub precision: f64,
    /// Token recall.
    pub recall: f64,
}

impl Scores {
    /// Scores `hyps` against `refs` (one reference per line) with CodeQA's scorers.
    pub fn of(hyps: &[String], refs: &[String], meteor_jar: Option<&Path>) -> Result<Scores> {
        if hyps.len() != refs.len() {
            return Err(ExperimentError::Invalid(format!("{} answers for {} references", hyps.len(), refs.len())));
        }
        let hyps: Vec<&str> = hyps.iter().map(String::as_str).collect();
        let refs = vec![refs.iter().map(String::as_str).collect::<Vec<_>>()];
        let s = quarry_eval::codeqa_scores::codeqa_scores(&hyps, &refs, meteor_jar)
            .map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        Ok(Scores {
            bleu: s.bleu,
            rouge_l: s.rouge_l,
            meteor: s.meteor.ok(),
            em: s.em,
            f1: s.f1,
            precision: s.precision,
            recall: s.recall,
        })
    }

    /// BLEU, ROUGE-L, METEOR, EM and F1 in the paper's column order.
    fn five(&self) -> [Option<f64>; 5] {
        [Some(self.bleu), Some(self.rouge_l), self.meteor, Some(self.em), Some(self.f1)]
    }
}

/// One scored answers file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct System {
    /// Its name in the tables.
    pub name: String,
    /// The answers file, relative to OUT.
    pub answers: String,
    /// What produced the answers.
    pub produced_by: String,
    /// Its scores.
    pub scores: Scores,
    /// Distinct answers among them.
    pub distinct: usize,
}

/// Everything the experiment measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeQaReport {
    /// The encoder the model started from.
    pub model: String,
    /// The released folder read.
    pub data: String,
    /// `python` or `java`.
    pub lang: String,
    /// Training pairs (from the dev split).
    pub train: usize,
    /// Validation pairs (the dev split's last).
    pub valid: usize,
    /// Test questions answered.
    pub test: usize,
    /// The training pairs and test questions there were, of which `train` and `test` were
    /// drawn at random when fewer (0: not recorded).
    #[serde(default)]
    pub drawn_from: (usize, usize),
    /// The seed of those draws (and of training).
    #[serde(default)]
    pub seed: u64,
    /// The training stages, in order.
    pub training: Vec<Trained>,
    /// Seconds taken to answer the test questions.
    pub answer_seconds: f64,
    /// quarry's model, then the floors.
    pub systems: Vec<System>,
}

/// The paper's test-split scores (BLEU, ROUGE-L, METEOR, EM, F1) of its four models: Table 8
/// for Python, Table 7 for Java.
pub fn paper(lang: &str) -> &'static [(&'static str, [f64; 5])] {
    match lang {
        "java" => &[
            ("Seq2seq", [28.29, 18.88, 4.79, 3.23, 19.75]),
            ("Dual Encoder", [29.51, 20.39, 6.27, 4.06, 21.16]),
            ("Transformer", [30.22, 21.26, 6.77, 4.41, 22.04]),
            ("CodeBERT", [32.40, 28.22, 10.10, 6.20, 29.20]),
        ],
        _ => &[
            ("Seq2seq", [30.09, 21.69, 6.38, 2.84, 23.27]),
            ("Dual Encoder", [28.90, 17.79, 4.53, 2.22, 18.97]),
            ("Transformer", [30.69, 23.26, 7.80, 3.35, 24.59]),
            ("CodeBERT", [34.86, 30.28, 12.51, 4.93, 31.56]),
        ],
    }
}

/// The paper's training pairs for `lang` (section 4).
fn paper_training_pairs(lang: &str) -> &'static str {
    if lang == "java" {
        "95,778"
    } else {
        "56,085"
    }
}

const COLUMNS: [&str; 5] = ["BLEU", "ROUGE-L", "METEOR", "EM", "F1"];

impl CodeQaReport {
    /// The table's number for `lang` (Table 7 for Java, 8 for Python).
    fn table(&self) -> u8 {
        if self.lang == "java" {
            7
        } else {
            8
        }
    }

    /// What a reader must know before trusting the model's row.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let Some((model, floors)) = self.systems.split_first() else { return out };
        if model.distinct <= 1 && self.test > 1 {
            out.push(format!("{} gives the same answer to every test question", model.name));
        }
        for floor in floors {
            if model.scores.f1 <= floor.scores.f1 {
                out.push(format!(
                    "{}'s F1 {:.2} is not above that of the {} ({:.2})",
                    model.name, model.scores.f1, floor.name, floor.scores.f1
                ));
            }
        }
        if model.scores.meteor.is_none() {
            out.push("METEOR was not computed (no METEOR 1.5 jar: --meteor-jar or QUARRY_METEOR_JAR)".into());
        }
        out
    }

    /// Where this run differs from the paper's.
    fn differences(&self) -> String {
        let drawn = |n: usize, of: usize, what: &str| {
            if n < of {
                format!(" ({n} of {of} drawn at random, seed {}{what})", self.seed)
            } else {
                String::new()
            }
        };
        let weight = format!("; one answer moves a rate by {:.1} points", 100.0 / self.test.max(1) as f64);
        format!(
            "The paper trains on the {} training pairs of its {} split and scores the whole test split; the \
             released training split has no code, so this run trains on {} pairs of the dev split{} (its last {} \
             validate) and answers {} test questions{}, starting from `{}`.",
            paper_training_pairs(&self.lang),
            self.lang,
            self.train,
            drawn(self.train, self.drawn_from.0, ""),
            self.valid,
            self.test,
            drawn(self.test, self.drawn_from.1, &weight),
            self.model
        )
    }
}

fn cell(value: Option<f64>) -> String {
    value.map_or("–".into(), |v| format!("{v:.2}"))
}

/// The report as Markdown.
pub fn render_markdown(r: &CodeQaReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# CodeQA answer generation experiment\n\n{}\n", r.differences());
    let _ = writeln!(out, "## Test scores beside the paper's Table {}\n", r.table());
    let _ = writeln!(out, "| System | {} | Answers |\n|---|---:|---:|---:|---:|---:|---|", COLUMNS.join(" | "));
    for (i, s) in r.systems.iter().enumerate() {
        let cells: Vec<String> = s.scores.five().into_iter().map(cell).collect();
        let _ = writeln!(out, "| {} [{}] | {} | `{}` |", s.name, i + 1, cells.join(" | "), s.answers);
    }
    for (name, scores) in paper(&r.lang) {
        let cells: Vec<String> = scores.iter().map(|v| format!("{v:.2}")).collect();
        let _ = writeln!(out, "| paper, {name} (Table {}) | {} | |", r.table(), cells.join(" | "));
    }
    out.push('\n');
    for (i, s) in r.systems.iter().enumerate() {
        let _ = writeln!(out, "[{}] {}; {} distinct answers.  ", i + 1, s.produced_by, s.distinct);
    }
    for w in r.warnings() {
        let _ = writeln!(out, "\n**Warning**: {w}");
    }
    let _ = writeln!(out, "\n## Training\n\n| Run | Pairs | Epochs | Last train loss | Best valid loss | Seconds |\n|---|---:|---:|---:|---:|---:|");
    for t in &r.training {
        let (last, best) = losses(t);
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {last:.4} | {best:.4} | {:.0} |",
            run_name(t),
            t.examples,
            t.epochs.len(),
            t.seconds
        );
    }
    let _ = writeln!(out, "\nAnswering {} test questions took {:.0} s.", r.test, r.answer_seconds);
    out
}

/// A training run's folder name under `train/`.
fn run_name(t: &Trained) -> String {
    let name = t.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!("train/{name}")
}

/// The last training loss and the best validation loss of a run.
fn losses(t: &Trained) -> (f64, f64) {
    let last = t.epochs.last().map_or(f64::NAN, |e| e.loss);
    (last, t.epochs.iter().map(|e| e.valid_loss).fold(f64::INFINITY, f64::min))
}

/// The report as one self-contained page.
pub fn render_html(r: &CodeQaReport) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>CodeQA answer generation \
         experiment</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>CodeQA answer generation experiment</h1>\n\
         <p>{}</p>\n<h2>Test scores beside the paper's Table {}</h2>\n<figure>{}<figcaption>CodeQA's five scores of \
         quarry's model, the two floors and the paper's CodeBERT.</figcaption></figure>\n<table>\n<tr><th>System</th>",
        prose(&r.differences()),
        r.table(),
        scores_chart(r)
    );
    for c in COLUMNS {
        let _ = write!(out, "<th>{c}</th>");
    }
    out.push_str("<th>Answers</th></tr>\n");
    for (i, s) in r.systems.iter().enumerate() {
        let cells: String = s.scores.five().into_iter().map(|v| format!("<td class=\"n\">{}</td>", cell(v))).collect();
        let _ = writeln!(
            out,
            "<tr><td>{} [{}]</td>{cells}<td><code>{}</code></td></tr>",
            encode_text(&s.name),
            i + 1,
            encode_text(&s.answers)
        );
    }
    for (name, scores) in paper(&r.lang) {
        let cells: String = scores.iter().map(|v| format!("<td class=\"n\">{v:.2}</td>")).collect();
        let _ = writeln!(out, "<tr><td>paper, {name} (Table {})</td>{cells}<td></td></tr>", r.table());
    }
    out.push_str("</table>\n");
    for (i, s) in r.systems.iter().enumerate() {
        let _ = writeln!(
            out,
            "<p class=\"note\">[{}] {}; {} distinct answers.</p>",
            i + 1,
            encode_text(&s.produced_by),
            s.distinct
        );
    }
    for w in r.warnings() {
        let _ = writeln!(out, "<p class=\"warn\">Warning: {}</p>", encode_text(&w));
    }
    let _ = write!(
        out,
        "<h2>Training</h2>\n<figure>{}<figcaption>Validation loss after each epoch, the training stages one after \
         the other.</figcaption></figure>\n<table>\n<tr><th>Run</th><th>Pairs</th><th>Epochs</th><th>Last train \
         loss</th><th>Best valid loss</th><th>Seconds</th></tr>\n",
        loss_chart(r)
    );
    for t in &r.training {
        let (last, best) = losses(t);
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{last:.4}</td>\
             <td class=\"n\">{best:.4}</td><td class=\"n\">{:.0}</td></tr>",
            encode_text(&run_name(t)),
            t.examples,
            t.epochs.len(),
            t.seconds
        );
    }
    let _ = write!(
        out,
        "</table>\n<p>Answering {} test questions took {:.0} s.</p>\n</body>\n</html>\n",
        r.test, r.answer_seconds
    );
    out
}

/// Grouped bars per score: quarry, the floors, the paper's CodeBERT.
fn scores_chart(r: &CodeQaReport) -> String {
    let codebert = paper(&r.lang).last().map(|(_, s)| *s);
    let mut series: Vec<(String, [Option<f64>; 5])> =
        r.systems.iter().map(|s| (s.name.clone(), s.scores.five())).collect();
    if let Some(scores) = codebert {
        series.push(("paper, CodeBERT".into(), scores.map(Some)));
    }
    let width = 0.8 / series.len().max(1) as f64;
    figure((720, 340), 0f64..COLUMNS.len() as f64, 0f64..crate::html::LEGEND_ROOM, |chart, root| {
        chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("score").draw().map_err(|e| e.to_string())?;
        crate::html::group_labels(chart, root, &COLUMNS)?;
        for (k, (name, values)) in series.iter().enumerate() {
            let colour = Palette99::pick(k).to_rgba();
            let bars = values.iter().enumerate().filter_map(|(i, v)| {
                let left = i as f64 + 0.1 + width * k as f64;
                v.map(|v| Rectangle::new([(left, 0.0), (left + width * 0.9, v)], colour.filled()))
            });
            chart
                .draw_series(bars)
                .map_err(|e| e.to_string())?
                .label(name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        }
        Ok(())
    })
}

/// Validation loss by epoch, the stages one after the other.
fn loss_chart(r: &CodeQaReport) -> String {
    let mut points = Vec::new();
    for t in &r.training {
        for e in &t.epochs {
            points.push(((points.len() + 1) as f64, e.valid_loss));
        }
    }
    let top = points.iter().map(|p| p.1).filter(|v| v.is_finite()).fold(1.0f64, f64::max) * 1.25;
    figure((720, 300), 0f64..(points.len() + 1) as f64, 0f64..top, |chart, _| {
        chart.configure_mesh().x_desc("epoch").y_desc("validation loss").draw().map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(points.clone(), BLUE.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label("validation loss")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 10, y)], BLUE));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, BLUE.filled()))).map_err(|e| e.to_string())?;
        Ok(())
    })
}

/// Writes `report.md`, `report.html` and `report.json` under `out`.
pub fn write(out: &Path, r: &CodeQaReport) -> Result<()> {
    let json = serde_json::to_string_pretty(r).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
    for (name, text) in [("report.json", json), ("report.md", render_markdown(r)), ("report.html", render_html(r))] {
        quarry_stdx::atomic::write_atomically(&out.join(name), text.as_bytes())?;
    }
    Ok(())
}
