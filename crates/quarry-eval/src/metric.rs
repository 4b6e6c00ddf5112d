//! Every metric of the crate by its name, scored on lines: hypotheses against one or more
//! reference streams (text, labels, line sets or span sets, one item per line). This is
//! what `quarry metrics NAME` computes; a library user calls [`score`] the same way.
//!
//! ```
//! use quarry_eval::metric::{score, Input, Metric, Options};
//!
//! let hyps = Input { name: "hyp.txt", lines: vec!["the cat sat", "a dog"] };
//! let refs = [Input { name: "ref.txt", lines: vec!["the cat sat", "a bird"] }];
//! let s = score(Metric::from_name("em").unwrap(), &hyps, &refs, &Options::default()).unwrap();
//! assert_eq!(s.score, 50.0);
//! ```

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::meteor::{Meteor, MeteorParams};
use crate::sentence_bleu::{NltkBleuOptions, Smoothing};
use crate::wordnet::WordNet;
use crate::{
    bleu, classification, codeqa_answer, codeqa_bleu, codeqa_meteor, codeqa_rouge, lines, rouge, sentence_bleu, spans,
    squad, EvalError,
};

/// The metrics [`score`] computes, each with its command-line name ([`Metric::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// sacrebleu corpus BLEU (13a, exponential smoothing), 0-100.
    Bleu,
    /// nltk sentence_bleu per line (whitespace tokens) and its mean, 0-1.
    SentenceBleu,
    /// CodeQA's averaged smoothed sentence BLEU-4 (whitespace tokens), 0-1.
    CodeqaBleu,
    /// rouge-score ROUGE-L F-measure per line and its mean, 0-1.
    RougeL,
    /// CodeQA's coco-caption ROUGE-L (beta 1.2) per line and its numpy mean, 0-1.
    CodeqaRougeL,
    /// nltk meteor_score per line (whitespace tokens) and its mean, 0-1.
    Meteor,
    /// CodeQA's METEOR 1.5 (the authors' jar, needs Java), 0-1.
    CodeqaMeteor,
    /// SQuAD v1.1 exact match, 0-100.
    Em,
    /// SQuAD v1.1 token F1, 0-100.
    F1,
    /// CodeQA's exact match (lower case, collapsed whitespace), 0-100.
    CodeqaEm,
    /// CodeQA's token F1 (lower case, collapsed whitespace), 0-100.
    CodeqaF1,
    /// Classification accuracy of predicted (hyp) against gold (ref) label lines, 0-1.
    Accuracy,
    /// Macro-F1 over all labels (scikit-learn conventions), 0-1.
    MacroF1,
    /// Line-set exact match as HotpotQA's supporting facts; lines like `3,5-7`, 0-1.
    LineEm,
    /// Line-set F1 as HotpotQA's supporting facts; lines like `3,5-7`, 0-1.
    LineF1,
    /// Span-set exact match (CodeQueries); lines like `10-14 20-31`, 0-1.
    SpanEm,
}

/// Every metric with its name and a line of help, in the order `quarry metrics --help`
/// lists them.
const NAMES: [(Metric, &str, &str); 16] = [
    (Metric::Bleu, "bleu", "sacrebleu corpus BLEU (13a, exponential smoothing), 0-100."),
    (Metric::SentenceBleu, "sentence-bleu", "nltk sentence_bleu per line (whitespace tokens) and its mean, 0-1."),
    (Metric::CodeqaBleu, "codeqa-bleu", "CodeQA's averaged smoothed sentence BLEU-4 (whitespace tokens), 0-1."),
    (Metric::RougeL, "rouge-l", "rouge-score ROUGE-L F-measure per line and its mean, 0-1."),
    (
        Metric::CodeqaRougeL,
        "codeqa-rouge-l",
        "CodeQA's coco-caption ROUGE-L (beta 1.2) per line and its numpy mean, 0-1.",
    ),
    (Metric::Meteor, "meteor", "nltk meteor_score per line (whitespace tokens) and its mean, 0-1."),
    (
        Metric::CodeqaMeteor,
        "codeqa-meteor",
        "CodeQA's METEOR 1.5 (the authors' jar, needs Java; see --meteor-jar), 0-1.",
    ),
    (Metric::Em, "em", "SQuAD v1.1 exact match, 0-100."),
    (Metric::F1, "f1", "SQuAD v1.1 token F1, 0-100."),
    (Metric::CodeqaEm, "codeqa-em", "CodeQA's exact match (lower case, collapsed whitespace), 0-100."),
    (Metric::CodeqaF1, "codeqa-f1", "CodeQA's token F1 (lower case, collapsed whitespace), 0-100."),
    (Metric::Accuracy, "accuracy", "Classification accuracy of predicted (hyp) against gold (ref) label lines, 0-1."),
    (Metric::MacroF1, "macro-f1", "Macro-F1 over all labels (scikit-learn conventions), 0-1."),
    (Metric::LineEm, "line-em", "Line-set exact match as HotpotQA's supporting facts; lines like `3,5-7`, 0-1."),
    (Metric::LineF1, "line-f1", "Line-set F1 as HotpotQA's supporting facts; lines like `3,5-7`, 0-1."),
    (Metric::SpanEm, "span-em", "Span-set exact match (CodeQueries); lines like `10-14 20-31`, 0-1."),
];

impl Metric {
    /// Every metric.
    pub fn all() -> impl Iterator<Item = Metric> {
        NAMES.iter().map(|(m, _, _)| *m)
    }

    /// The metric's name (`bleu`, `codeqa-rouge-l`, `span-em`, ...).
    pub fn name(self) -> &'static str {
        NAMES.iter().find(|(m, _, _)| *m == self).map_or("", |(_, n, _)| n)
    }

    /// What the metric computes and on which scale, in a line.
    pub fn help(self) -> &'static str {
        NAMES.iter().find(|(m, _, _)| *m == self).map_or("", |(_, _, h)| h)
    }

    /// The metric called `name`.
    pub fn from_name(name: &str) -> Option<Metric> {
        NAMES.iter().find(|(_, n, _)| *n == name).map(|(m, _, _)| *m)
    }

    /// Whether the metric compares against exactly one reference stream (gold labels,
    /// line sets, span sets).
    pub fn single_reference(self) -> bool {
        matches!(self, Metric::Accuracy | Metric::MacroF1 | Metric::LineEm | Metric::LineF1 | Metric::SpanEm)
    }
}

/// Settings of the metrics that take any.
#[derive(Debug, Clone)]
pub struct Options<'a> {
    /// sentence-bleu: n-gram weights (CS1QA uses 1,0,0,0).
    pub weights: Vec<f64>,
    /// sentence-bleu: nltk smoothing function.
    pub smoothing: Smoothing,
    /// sentence-bleu: nltk's auto_reweigh.
    pub auto_reweigh: bool,
    /// rouge-l: rouge-score's Porter stemmer.
    pub stem: bool,
    /// meteor: WordNet for synonym matching; exact and stem matching only when `None`.
    pub wordnet: Option<&'a WordNet>,
    /// codeqa-meteor: METEOR 1.5's jar (else `$QUARRY_METEOR_JAR`).
    pub meteor_jar: Option<&'a Path>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            weights: vec![0.25; 4],
            smoothing: Smoothing::Method0,
            auto_reweigh: false,
            stem: false,
            wordnet: None,
            meteor_jar: None,
        }
    }
}

/// One stream of lines and the name errors give it (its file).
#[derive(Debug, Clone)]
pub struct Input<'a> {
    /// Named in errors about a line (`NAME line N: ...`).
    pub name: &'a str,
    /// One item per line.
    pub lines: Vec<&'a str>,
}

/// A metric's result.
#[derive(Debug, Clone)]
pub struct Score {
    /// The metric's name.
    pub metric: &'static str,
    /// The headline score, on the metric's own scale.
    pub score: f64,
    /// One line in words, with the score and its parts.
    pub description: String,
    /// Further numbers by name (`lines` and `references` first), for JSON output.
    pub details: Map<String, Value>,
    /// The score of every line.
    pub per_line: Vec<f64>,
}

/// Scores `hyps` against `refs` (each as long as `hyps`) with `metric`.
pub fn score(metric: Metric, hyps: &Input, refs: &[Input], options: &Options) -> Result<Score, EvalError> {
    if refs.is_empty() {
        return Err(EvalError::NoReferences);
    }
    for (stream, r) in refs.iter().enumerate() {
        if r.lines.len() != hyps.lines.len() {
            return Err(EvalError::LengthMismatch { hyps: hyps.lines.len(), refs: r.lines.len(), stream });
        }
    }
    if metric.single_reference() && refs.len() != 1 {
        return Err(EvalError::InvalidParameter(format!(
            "{} takes exactly one reference stream, got {}",
            metric.name(),
            refs.len()
        )));
    }
    let h = &hyps.lines[..];
    let r: Vec<Vec<&str>> = refs.iter().map(|i| i.lines.clone()).collect();
    let mut details = Map::new();
    details.insert("lines".into(), json!(h.len()));
    details.insert("references".into(), json!(r.len()));
    let (score, description, per_line) = match metric {
        Metric::Bleu => {
            let s = bleu::corpus_bleu(h, &r)?;
            details.insert("precisions".into(), json!(s.precisions));
            details.insert("bp".into(), json!(s.bp));
            details.insert("sys_len".into(), json!(s.stats.sys_len));
            details.insert("ref_len".into(), json!(s.stats.ref_len));
            details.insert("counts".into(), json!(s.stats.correct));
            details.insert("totals".into(), json!(s.stats.total));
            let lines = bleu::sentence_bleus(h, &r)?.iter().map(|b| b.score).collect();
            let desc = format!(
                "sacrebleu corpus BLEU (13a, exp smoothing) = {:.2} {} (BP = {:.3}, hyp_len = {}, ref_len = {})",
                s.score,
                s.precisions.iter().map(|p| format!("{p:.1}")).collect::<Vec<_>>().join("/"),
                s.bp,
                s.stats.sys_len,
                s.stats.ref_len
            );
            (s.score, desc, lines)
        }
        Metric::SentenceBleu => {
            let opts = NltkBleuOptions {
                weights: options.weights.clone(),
                smoothing: options.smoothing,
                auto_reweigh: options.auto_reweigh,
            };
            let s = sentence_bleu::line_scores(h, &r, &opts)?;
            details.insert("corpus_bleu".into(), json!(s.corpus));
            details.insert("weights".into(), json!(opts.weights));
            details.insert("smoothing".into(), json!(format!("{:?}", opts.smoothing).to_lowercase()));
            let desc = format!(
                "nltk sentence_bleu mean = {:.6} (weights {:?}, {:?}; corpus_bleu = {:.6})",
                s.mean, opts.weights, opts.smoothing, s.corpus
            );
            (s.mean, desc, s.per_line)
        }
        Metric::CodeqaBleu => {
            let (lines, mean) = codeqa_bleu::codeqa_bleu(h, &r)?;
            (mean, format!("CodeQA smoothed BLEU-4 mean = {mean:.6} (papers report x100: {:.2})", mean * 100.0), lines)
        }
        Metric::RougeL => {
            for input in std::iter::once(hyps).chain(refs) {
                rouge::check_lcs_lengths(input.name, &input.lines, |line| rouge::tokenize(line, false).len())?;
            }
            let (lines, mean) = rouge::line_scores(h, &r, options.stem)?;
            details.insert("stemmer".into(), json!(options.stem));
            let stem = if options.stem { "on" } else { "off" };
            (mean, format!("rouge-score ROUGE-L F-measure mean = {mean:.6} (stemmer {stem})"), lines)
        }
        Metric::CodeqaRougeL => {
            for input in std::iter::once(hyps).chain(refs) {
                rouge::check_lcs_lengths(input.name, &input.lines, |line| line.split(' ').count())?;
            }
            let (lines, mean) = codeqa_rouge::codeqa_rouge_l(h, &r)?;
            let desc =
                format!("CodeQA (coco-caption) ROUGE-L mean = {mean:.6} (papers report x100: {:.2})", mean * 100.0);
            (mean, desc, lines)
        }
        Metric::Meteor => {
            let scorer = Meteor::new(MeteorParams::default(), options.wordnet);
            let (lines, mean) = scorer.line_scores(h, &r)?;
            details.insert("wordnet".into(), json!(options.wordnet.map(|w| w.dir().display().to_string())));
            let matching = if options.wordnet.is_some() {
                "exact, stem and WordNet synonym matching"
            } else {
                "exact and stem matching only"
            };
            (mean, format!("nltk METEOR mean = {mean:.6} ({matching})"), lines)
        }
        Metric::CodeqaMeteor => {
            let (score, lines) = codeqa_meteor::codeqa_meteor(h, &r, options.meteor_jar)?;
            (score, format!("CodeQA METEOR 1.5 = {score:.6} (papers report x100: {:.2})", score * 100.0), lines)
        }
        Metric::CodeqaEm | Metric::CodeqaF1 => {
            let (lines, mean) = codeqa_answer::codeqa_answer_scores(h, &r)?;
            put(
                &mut details,
                &[("em", mean.em), ("precision", mean.precision), ("recall", mean.recall), ("f1", mean.f1)],
            );
            let desc = format!(
                "CodeQA EM = {:.4}, F1 = {:.4} (precision {:.4}, recall {:.4})",
                mean.em, mean.f1, mean.precision, mean.recall
            );
            if metric == Metric::CodeqaEm {
                (mean.em, desc, lines.iter().map(|s| s.em).collect())
            } else {
                (mean.f1, desc, lines.iter().map(|s| s.f1).collect())
            }
        }
        Metric::Em | Metric::F1 => {
            let em = metric == Metric::Em;
            let f: fn(&str, &str) -> f64 = if em { squad::exact_match } else { squad::f1 };
            let (lines, score) = squad::corpus(f, h, &r)?;
            (score, format!("SQuAD v1.1 {} = {score:.4}", if em { "exact match" } else { "F1" }), lines)
        }
        Metric::Accuracy | Metric::MacroF1 => {
            let gold = &r[0];
            let report = classification::classification_report(gold, h)?;
            details.insert("accuracy".into(), json!(report.accuracy));
            details.insert("macro_f1".into(), json!(report.macro_f1));
            details.insert("labels".into(), json!(report.labels));
            let per_class: Vec<Value> = report
                .per_class
                .iter()
                .map(|c| json!({"label": c.label, "precision": c.precision, "recall": c.recall, "f1": c.f1, "support": c.support}))
                .collect();
            details.insert("per_class".into(), Value::Array(per_class));
            details.insert("confusion".into(), json!(report.confusion));
            let lines = h.iter().zip(gold).map(|(p, g)| if p == g { 1.0 } else { 0.0 }).collect();
            let desc = format!(
                "accuracy = {:.4}, macro-F1 = {:.4} over {} labels",
                report.accuracy,
                report.macro_f1,
                report.labels.len()
            );
            let score = if metric == Metric::Accuracy { report.accuracy } else { report.macro_f1 };
            (score, desc, lines)
        }
        Metric::LineEm | Metric::LineF1 => {
            let preds = parse_all(hyps, lines::parse_line_set)?;
            let golds = parse_all(&refs[0], lines::parse_line_set)?;
            let em = metric == Metric::LineEm;
            let per_line = preds
                .iter()
                .zip(&golds)
                .map(|(p, g)| {
                    let s = lines::set_score(p, g);
                    if em {
                        s.em
                    } else {
                        s.f1
                    }
                })
                .collect();
            let mean = lines::mean_set_scores(&preds, &golds)?;
            put(
                &mut details,
                &[("em", mean.em), ("f1", mean.f1), ("precision", mean.precision), ("recall", mean.recall)],
            );
            let desc = format!(
                "line sets (HotpotQA supporting facts): EM = {:.4}, F1 = {:.4}, P = {:.4}, R = {:.4}",
                mean.em, mean.f1, mean.precision, mean.recall
            );
            (if em { mean.em } else { mean.f1 }, desc, per_line)
        }
        Metric::SpanEm => {
            let preds = parse_all(hyps, spans::parse_span_set)?;
            let golds = parse_all(&refs[0], spans::parse_span_set)?;
            let per_line = preds
                .iter()
                .zip(&golds)
                .map(|(p, g)| if spans::span_set_exact_match(p, g) { 1.0 } else { 0.0 })
                .collect();
            let score = spans::span_set_accuracy(&preds, &golds)?;
            (score, format!("span-set exact match = {score:.4}"), per_line)
        }
    };
    Ok(Score { metric: metric.name(), score, description, details, per_line })
}

/// Adds numbers to `details` in the given order (the JSON output keeps it).
fn put(details: &mut Map<String, Value>, numbers: &[(&str, f64)]) {
    for (name, value) in numbers {
        details.insert((*name).into(), json!(value));
    }
}

/// Parses every line of `input`; a line that does not parse is an error naming the input
/// and the 1-based line.
fn parse_all<T, E: std::fmt::Display>(
    input: &Input,
    parse: impl Fn(&str) -> Result<T, E>,
) -> Result<Vec<T>, EvalError> {
    input
        .lines
        .iter()
        .enumerate()
        .map(|(i, text)| {
            parse(text).map_err(|e| EvalError::BadLine {
                input: input.name.to_string(),
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_scores_follow_the_metric() {
        for m in Metric::all() {
            assert_eq!(Metric::from_name(m.name()), Some(m));
        }
        assert_eq!(Metric::all().count(), 16);
        let hyps = Input { name: "h", lines: vec!["1-4 7-9", "3-5"] };
        let refs = [Input { name: "r", lines: vec!["7-9,1-4", "3-6"] }];
        let s = score(Metric::SpanEm, &hyps, &refs, &Options::default()).unwrap();
        assert_eq!((s.score, s.per_line.clone()), (0.5, vec![1.0, 0.0]));
        let bad = Input { name: "bad.txt", lines: vec!["1-4 x", "3-5"] };
        let err = score(Metric::SpanEm, &bad, &refs, &Options::default()).unwrap_err();
        assert!(err.to_string().starts_with("bad.txt line 1: "), "{err}");
        let two = [refs[0].clone(), refs[0].clone()];
        assert!(score(Metric::Accuracy, &hyps, &two, &Options::default()).is_err());
    }

    #[test]
    fn rouge_l_refuses_lines_beyond_the_lcs_bound() {
        let long = "w ".repeat(rouge::MAX_LCS_TOKENS + 1);
        let limit = "w ".repeat(rouge::MAX_LCS_TOKENS);
        let count = |line: &str| line.split(' ').count();
        assert!(rouge::check_lcs_lengths("x", &[limit.trim_end()], count).is_ok());
        assert!(rouge::check_lcs_lengths("x", &[long.trim_end()], count).is_err());
        // Scored in full below the limit (short enough for a debug build).
        let fits = "w ".repeat(300);
        for metric in [Metric::RougeL, Metric::CodeqaRougeL] {
            let hyps = Input { name: "hyp.txt", lines: vec!["a b", fits.trim_end()] };
            let refs = [Input { name: "ref.txt", lines: vec!["a b", long.trim_end()] }];
            let started = std::time::Instant::now();
            let err = score(metric, &hyps, &refs, &Options::default()).unwrap_err();
            assert!(err.to_string().starts_with("ref.txt line 2: 10001 tokens"), "{err}");
            assert!(started.elapsed().as_secs() < 2, "refused before any LCS is computed");
            let refs = [Input { name: "ref.txt", lines: vec!["a b", fits.trim_end()] }];
            let s = score(metric, &hyps, &refs, &Options::default()).unwrap();
            assert_eq!(s.per_line, [1.0, 1.0], "{}", metric.name());
        }
    }
}
