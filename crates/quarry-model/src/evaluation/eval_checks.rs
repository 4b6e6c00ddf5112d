//! What an exact-match figure needs beside it so that it cannot mislead: the score of a
//! model that predicts no span anywhere (the predict-nothing baseline), and warnings when a
//! split has no positive example, when every prediction is empty, and when gold spans were
//! lost to truncation. `quarry evaluate span` and the experiment report print both.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::evaluation::spans::{aligned, decode, ExactMatch, ExampleGroup, Label, Spans};
use crate::training::data::{EncodedExample, SpanExample};

/// Running counts over evaluated examples, beside their [`ExactMatch`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EvalChecks {
    /// Exact match of the empty prediction on the same examples and groups.
    pub baseline: ExactMatch,
    /// Examples evaluated.
    pub examples: usize,
    /// Examples whose prediction holds no answer and no fact span.
    pub empty_predictions: usize,
    /// Examples the data calls positive (`example_type` 1) whose gold, as evaluated, holds
    /// no answer span: truncation cut them all, so they count as negatives.
    pub positives_without_answers: usize,
    /// Gold answer and fact spans of the data that truncation to the model's input length
    /// removed before evaluation.
    pub spans_cut: usize,
    /// The input length the examples were truncated to, when they were.
    pub max_len: Option<usize>,
    /// Sub-tokens of the evaluated inputs, and how many of them the vocabulary does not hold
    /// (read as its unknown token); zero when not counted.
    pub subtokens: usize,
    /// See `subtokens`.
    pub unknown_subtokens: usize,
}

/// The share of unknown sub-tokens over which the inputs are called suspect: a dataset built
/// with another model's tokenizer. Code through BERT's own WordPiece stays well under 1%.
pub const UNKNOWN_SHARE_WARNING: f64 = 0.05;

fn span_count(spans: &Spans) -> usize {
    spans.answers.len() + spans.facts.len()
}

fn starts(spans: &Spans) -> BTreeSet<usize> {
    spans.answers.iter().chain(&spans.facts).map(|(s, _)| *s).collect()
}

impl EvalChecks {
    /// Records one example: `pred` and `gold` aligned label sequences as evaluated,
    /// `full_gold` the gold before truncation (when it was truncated), `declared_positive`
    /// the data's own `example_type` when it says.
    pub fn add(
        &mut self,
        pred: &[Label],
        gold: &[Label],
        full_gold: Option<&[Label]>,
        declared_positive: Option<bool>,
        group: ExampleGroup<'_>,
    ) {
        self.examples += 1;
        self.baseline.add_grouped(&vec![Label::O; gold.len()], gold, group);
        if span_count(&decode(pred)) == 0 {
            self.empty_predictions += 1;
        }
        let evaluated = decode(gold);
        if declared_positive == Some(true) && evaluated.answers.is_empty() {
            self.positives_without_answers += 1;
        }
        if let Some(full) = full_gold {
            // A span whose start survived is kept (shortened); one whose start was cut is lost.
            let kept = starts(&evaluated);
            self.spans_cut += starts(&decode(full)).difference(&kept).count();
        }
    }

    /// The checks of an ideal-setting evaluation: `encoded` examples (truncated to
    /// `max_len`, unknown sub-tokens read as `unk_id`) with their `predictions`, `full` the
    /// same examples before truncation, and `declared` the data's `example_type == 1` per
    /// example when it says (empty: unknown).
    pub fn of_encoded(
        encoded: &[EncodedExample],
        predictions: &[Vec<Label>],
        full: &[SpanExample],
        declared: &[Option<bool>],
        (max_len, unk_id): (usize, Option<u32>),
    ) -> EvalChecks {
        let mut checks = EvalChecks { max_len: Some(max_len), ..EvalChecks::default() };
        checks.subtokens = encoded.iter().map(|e| e.ids.len()).sum();
        checks.unknown_subtokens =
            unk_id.map_or(0, |unk| encoded.iter().flat_map(|e| &e.ids).filter(|id| **id == unk).count());
        for (i, ((e, whole), pred)) in encoded.iter().zip(full).zip(predictions).enumerate() {
            let (p, g) = aligned(pred, &e.labels);
            let full_gold: Vec<Label> = whole.labels.iter().flatten().copied().collect();
            let truncated = whole.labels.len() > e.labels.len();
            let group = ExampleGroup { query: e.query.as_deref(), single_hop: e.single_hop };
            checks.add(&p, &g, truncated.then_some(&full_gold[..]), declared.get(i).copied().flatten(), group);
        }
        checks
    }

    /// The checks of training or validation inputs before any model runs on them: their gold
    /// labels stand in for predictions (see [`Self::input_warnings`]).
    pub fn of_inputs(
        encoded: &[EncodedExample],
        full: &[SpanExample],
        max_len: usize,
        unk_id: Option<u32>,
    ) -> EvalChecks {
        let gold: Vec<Vec<Label>> =
            encoded.iter().map(|e| e.labels.iter().map(|l| l.unwrap_or(Label::O)).collect()).collect();
        let declared: Vec<Option<bool>> = full.iter().map(|e| Some(e.labels.contains(&Some(Label::B)))).collect();
        EvalChecks::of_encoded(encoded, &gold, full, &declared, (max_len, unk_id))
    }

    /// The warnings about the inputs themselves, one sentence each: gold spans and positives
    /// lost to truncation, and sub-tokens the vocabulary does not hold.
    pub fn input_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let length = self.max_len.map_or(String::new(), |n| format!(" to {n} sub-tokens"));
        if self.positives_without_answers > 0 {
            out.push(format!(
                "{} positive example(s) lost every answer span to truncation{length}: they are scored as \
                 negatives, and predicting nothing matches them",
                self.positives_without_answers
            ));
        }
        if self.spans_cut > 0 {
            out.push(format!("{} gold span(s) were lost to truncation{length}", self.spans_cut));
        }
        let share = self.unknown_subtokens as f64 / self.subtokens.max(1) as f64;
        if share > UNKNOWN_SHARE_WARNING {
            out.push(format!(
                "{:.1}% of the sub-tokens ({} of {}) are not in the model's vocabulary and read as its \
                 unknown token: was the dataset built with this model's tokenizer (`quarry dataset \
                 codequeries --tokenizer`)?",
                100.0 * share,
                self.unknown_subtokens,
                self.subtokens
            ));
        }
        out
    }

    /// The warnings for `em`, the exact match of the same examples, one sentence each: those
    /// of the predictions, then [`Self::input_warnings`].
    pub fn warnings(&self, em: &ExactMatch) -> Vec<String> {
        let mut out = Vec::new();
        let baseline = percent_text(self.baseline.all.exact, self.baseline.all.total);
        if em.all.total > 0 && em.positive.total == 0 {
            out.push(format!(
                "no positive example among the {} evaluated: exact match measures negatives only \
                 (predicting nothing scores {baseline})",
                em.all.total
            ));
        }
        if self.examples > 0 && self.empty_predictions == self.examples {
            out.push(format!(
                "all {} predictions are empty: the model predicts no span anywhere, and its exact match \
                 is the predict-nothing baseline ({baseline})",
                self.examples
            ));
        } else if em.all.total > 0 && em.all.exact < self.baseline.all.exact {
            out.push(format!(
                "exact match {} is below predicting nothing ({baseline}): the spans the model predicts on \
                 negatives cost more than its matches gain",
                percent_text(em.all.exact, em.all.total)
            ));
        }
        out.extend(self.input_warnings());
        out
    }
}

/// `12.50%`, or `–` for no examples.
pub fn percent_text(exact: usize, total: usize) -> String {
    if total == 0 {
        "–".into()
    } else {
        format!("{:.2}%", 100.0 * exact as f64 / total as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Label::*;

    #[test]
    fn truncated_positives_and_empty_predictions_warn() {
        let mut checks = EvalChecks { max_len: Some(3), ..EvalChecks::default() };
        let mut em = ExactMatch::default();
        let group = ExampleGroup { query: Some("q"), single_hop: Some(true) };
        // A positive whose only answer lies beyond the cut, predicted empty.
        let full = [O, O, O, B, I];
        checks.add(&[O, O, O], &full[..3], Some(&full), Some(true), group);
        em.add_grouped(&[O, O, O], &full[..3], group);
        // A negative, predicted empty.
        checks.add(&[O, O], &[O, O], None, Some(false), group);
        em.add_grouped(&[O, O], &[O, O], group);
        assert_eq!(checks.positives_without_answers, 1);
        assert_eq!(checks.spans_cut, 1);
        assert_eq!(checks.empty_predictions, 2);
        assert_eq!(checks.baseline.all.exact, 2);
        let warnings = checks.warnings(&em);
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert!(warnings[0].starts_with("no positive example among the 2"), "{warnings:?}");
        assert!(warnings[1].contains("(100.00%)"), "{warnings:?}");
        assert!(warnings[2].contains("to 3 sub-tokens"), "{warnings:?}");
    }

    #[test]
    fn spans_on_negatives_that_sink_below_predicting_nothing_warn() {
        let mut checks = EvalChecks::default();
        let mut em = ExactMatch::default();
        let group = ExampleGroup { query: Some("q"), single_hop: Some(true) };
        // A negative given a span, and a negative left empty.
        checks.add(&[B, O], &[O, O], None, Some(false), group);
        em.add_grouped(&[B, O], &[O, O], group);
        checks.add(&[O, O], &[O, O], None, Some(false), group);
        em.add_grouped(&[O, O], &[O, O], group);
        let warnings = checks.warnings(&em);
        assert!(
            warnings.iter().any(|w| w.starts_with("exact match 50.00% is below predicting nothing (100.00%)")),
            "{warnings:?}"
        );
        // Unknown tokens: the inputs' own warning.
        let inputs = EvalChecks { subtokens: 100, unknown_subtokens: 40, ..EvalChecks::default() };
        assert!(
            inputs.input_warnings()[0].starts_with("40.0% of the sub-tokens (40 of 100)"),
            "{:?}",
            inputs.input_warnings()
        );
    }

    #[test]
    fn a_model_that_finds_spans_raises_no_warning() {
        let mut checks = EvalChecks::default();
        let mut em = ExactMatch::default();
        let group = ExampleGroup::default();
        checks.add(&[B, I, O], &[B, I, O], None, Some(true), group);
        em.add_grouped(&[B, I, O], &[B, I, O], group);
        assert!(checks.warnings(&em).is_empty());
        assert_eq!(checks.baseline.positive.exact, 0);
        assert_eq!(checks.baseline.positive.total, 1);
        assert_eq!(percent_text(0, 0), "–");
    }
}
