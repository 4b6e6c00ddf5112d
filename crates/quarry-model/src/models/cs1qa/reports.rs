//! The printed forms of CS1QA's evaluations and retrieval results, as `quarry cs1qa
//! eval|retrieve` shows them: JSON documents and aligned text.

use std::collections::HashMap;
use std::fmt::Write as _;

use quarry_data::cs1qa::{RetrievalQuestion, Retrieved};
use quarry_eval::cs1qa::LineReport;
use serde_json::{json, Map, Value};

use super::retrieval::AnswerBleu;
use super::type_model::TypeEvaluation;

impl TypeEvaluation {
    /// Rows, accuracy, macro-F1 and per-class precision, recall, F1 and support.
    pub fn to_json(&self) -> Value {
        let r = &self.report;
        let per_class: Map<String, Value> = r
            .per_class
            .iter()
            .map(|c| {
                (
                    c.label.clone(),
                    json!({"precision": c.precision, "recall": c.recall, "f1": c.f1, "support": c.support}),
                )
            })
            .collect();
        json!({"rows": self.predictions.len(), "accuracy": r.accuracy, "macro_f1": r.macro_f1, "per_class": per_class})
    }

    /// The same as lines of text.
    pub fn to_text(&self) -> String {
        let r = &self.report;
        let mut out =
            format!("rows {}  accuracy {:.4}  macro-F1 {:.4}\n", self.predictions.len(), r.accuracy, r.macro_f1);
        for c in &r.per_class {
            let _ = writeln!(
                out,
                "  {:<20} F1 {:.4}  P {:.4}  R {:.4}  n {}",
                c.label, c.f1, c.precision, c.recall, c.support
            );
        }
        out
    }
}

/// Line F1 and EM over all rows and over valid-line rows, as JSON.
pub fn line_report_json(report: &LineReport) -> Value {
    let (a, v) = (&report.all, &report.valid);
    json!({"all": {"rows": a.count, "f1": a.f1, "em": a.em}, "valid_line": {"rows": v.count, "f1": v.f1, "em": v.em}})
}

/// The same as two lines of text.
pub fn line_report_text(report: &LineReport) -> String {
    let (a, v) = (&report.all, &report.valid);
    format!(
        "all rows   ({:>5})  F1 {:.4}  EM {:.4}\nvalid line ({:>5})  F1 {:.4}  EM {:.4}\n",
        a.count, a.f1, a.em, v.count, v.f1, v.em
    )
}

impl AnswerBleu {
    /// BLEU-1 (×100) overall, by retrieved type and by asker.
    pub fn to_text(&self) -> String {
        let opt = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.2}", 100.0 * v));
        format!(
            "questions {}  BLEU-1 {:.2}\n  by retrieved type: student {}  TA {}\n  by asker:          student {}  TA {}\n",
            self.count,
            100.0 * self.mean,
            opt(self.student),
            opt(self.ta),
            opt(self.query_student),
            opt(self.query_ta)
        )
    }
}

/// Each question (id and text) followed by its ranked hits with score and text.
pub fn hits_text(questions: &[RetrievalQuestion], corpus: &[RetrievalQuestion], results: &[Retrieved]) -> String {
    let texts: HashMap<u64, &str> = corpus.iter().map(|q| (q.id, q.text.as_str())).collect();
    let mut text = String::new();
    for (q, r) in questions.iter().zip(results) {
        let _ = writeln!(text, "{} {}", q.id, q.text.replace('\n', " "));
        for (rank, h) in r.hits.iter().enumerate() {
            let t = texts.get(&h.id).copied().unwrap_or("").replace('\n', " ");
            let _ = writeln!(text, "  {}. {} ({:.4}) {t}", rank + 1, h.id, h.score);
        }
    }
    text
}
