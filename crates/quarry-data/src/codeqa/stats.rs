//! The statistics of the paper's Tables 3, 4 and 6 for any CodeQA-format
//! directory.
//!
//! - Table 3: examples per split, unique codes, unique tokens in codes,
//!   questions and answers, average tokens per code, question and answer
//!   (tokens are white-space separated; code tokens are counted on `.code`,
//!   the sub-tokenized form the models read, and on `.code.original`).
//! - Table 4: the share of dev and test answers, Yes/No excluded, that also
//!   occur as answers in train (repetition rate); the share of answers that
//!   are a contiguous token span of their code (span answer) and whose every
//!   token occurs in their code (extraction answer), over the examples that
//!   have code, Yes/No excluded.
//! - Table 6: question types by automatic partitioning: Yes/No answers
//!   first, then the opening words (What, How, Where, When and Till when,
//!   Why, For what purpose), everything else Other.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::Serialize;

use super::files::{read_split_as_written, splits_in, Split};
use crate::error::DataError;

/// Table 3 figures for one split.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SplitStats {
    /// The split's name.
    pub split: String,
    /// Number of examples.
    pub examples: usize,
    /// Distinct `.code` lines (`None` without code).
    pub unique_codes: Option<usize>,
    /// Distinct tokens in `.code`.
    pub unique_code_tokens: Option<usize>,
    /// Distinct tokens in questions.
    pub unique_question_tokens: usize,
    /// Distinct tokens in answers.
    pub unique_answer_tokens: usize,
    /// Mean tokens per `.code` line.
    pub avg_code_tokens: Option<f64>,
    /// Mean tokens per `.code.original` line.
    pub avg_code_original_tokens: Option<f64>,
    /// Mean tokens per question.
    pub avg_question_tokens: f64,
    /// Mean tokens per answer.
    pub avg_answer_tokens: f64,
}

/// Table 4 figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AnswerStats {
    /// Per split other than train: share of its non-Yes/No answers found
    /// among train's answers (`None` without train).
    pub repetition_against_train: BTreeMap<String, f64>,
    /// Share of non-Yes/No answers that are a token span of their `.code.original`.
    pub span_answer: Option<f64>,
    /// Share of non-Yes/No answers whose tokens all occur in their `.code.original`.
    pub extraction_answer: Option<f64>,
    /// Number of answers the span and extraction rates are over.
    pub answers_with_code: usize,
}

/// Table 6: question type shares (in %, summing to 100).
pub type QuestionTypes = BTreeMap<String, f64>;

/// All statistics of a directory.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Table 3, per split.
    pub splits: Vec<SplitStats>,
    /// Table 3 over all splits together (unique counts over the union).
    pub total: SplitStats,
    /// Table 4.
    pub answers: AnswerStats,
    /// Table 6, over all splits.
    pub question_types: QuestionTypes,
}

/// The question-type names of Table 6, in the paper's order.
pub const QUESTION_TYPES: [&str; 8] = ["What", "How", "Where", "When", "Why", "For what purpose", "Yes/No", "Other"];

/// The Table 6 type of a question.
pub fn question_type(question: &str, answer: &str) -> &'static str {
    if answer == "Yes" || answer == "No" {
        return "Yes/No";
    }
    let lower = question.trim().to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or("");
    match first {
        "what" => "What",
        "how" => "How",
        "where" => "Where",
        "when" => "When",
        "why" => "Why",
        "till" if lower.starts_with("till when") => "When",
        "for" if lower.starts_with("for what purpose") => "For what purpose",
        _ => "Other",
    }
}

fn is_yes_no(answer: &str) -> bool {
    answer == "Yes" || answer == "No"
}

fn split_stats(name: &str, splits: &[&Split]) -> SplitStats {
    let mut s = SplitStats { split: name.to_string(), ..SplitStats::default() };
    let mut q_tokens = HashSet::new();
    let mut a_tokens = HashSet::new();
    let mut codes = HashSet::new();
    let mut c_tokens = HashSet::new();
    let (mut q_len, mut a_len, mut c_len, mut o_len, mut c_n, mut o_n) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    for split in splits {
        for e in &split.examples {
            s.examples += 1;
            q_len += e.question.split_whitespace().map(|t| q_tokens.insert(t.to_string())).count();
            a_len += e.answer.split_whitespace().map(|t| a_tokens.insert(t.to_string())).count();
            if let Some(code) = &e.code {
                codes.insert(code.clone());
                c_len += code.split_whitespace().map(|t| c_tokens.insert(t.to_string())).count();
                c_n += 1;
            }
            if let Some(original) = &e.code_original {
                o_len += original.split_whitespace().count();
                o_n += 1;
            }
        }
    }
    let mean = |total: usize, n: usize| if n == 0 { 0.0 } else { total as f64 / n as f64 };
    s.unique_question_tokens = q_tokens.len();
    s.unique_answer_tokens = a_tokens.len();
    s.avg_question_tokens = mean(q_len, s.examples);
    s.avg_answer_tokens = mean(a_len, s.examples);
    if c_n > 0 {
        s.unique_codes = Some(codes.len());
        s.unique_code_tokens = Some(c_tokens.len());
        s.avg_code_tokens = Some(mean(c_len, c_n));
    }
    if o_n > 0 {
        s.avg_code_original_tokens = Some(mean(o_len, o_n));
    }
    s
}

/// True when `needle`'s tokens occur contiguously in `hay`.
fn is_span(hay: &[&str], needle: &[&str]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Computes the statistics of the splits in memory (`(name, split)`).
pub fn stats_of(splits: &[(String, Split)]) -> Stats {
    let mut out = Stats::default();
    for (name, split) in splits {
        out.splits.push(split_stats(name, &[split]));
    }
    out.total = split_stats("all", &splits.iter().map(|(_, s)| s).collect::<Vec<_>>());
    if let Some((_, train)) = splits.iter().find(|(n, _)| n == "train") {
        let train_answers: HashSet<&str> = train.examples.iter().map(|e| e.answer.as_str()).collect();
        for (name, split) in splits.iter().filter(|(n, _)| n != "train") {
            let answers: Vec<&str> =
                split.examples.iter().map(|e| e.answer.as_str()).filter(|a| !is_yes_no(a)).collect();
            let hits = answers.iter().filter(|a| train_answers.contains(*a)).count();
            let rate = if answers.is_empty() { 0.0 } else { 100.0 * hits as f64 / answers.len() as f64 };
            out.answers.repetition_against_train.insert(name.clone(), rate);
        }
    }
    let (mut n, mut span, mut extract) = (0usize, 0usize, 0usize);
    for (_, split) in splits {
        for e in &split.examples {
            let Some(code) = &e.code_original else { continue };
            if is_yes_no(&e.answer) {
                continue;
            }
            let code: Vec<&str> = code.split_whitespace().collect();
            let answer: Vec<&str> = e.answer.split_whitespace().collect();
            n += 1;
            span += usize::from(is_span(&code, &answer));
            let set: HashSet<&str> = code.iter().copied().collect();
            extract += usize::from(!answer.is_empty() && answer.iter().all(|t| set.contains(t)));
        }
    }
    if n > 0 {
        out.answers.span_answer = Some(100.0 * span as f64 / n as f64);
        out.answers.extraction_answer = Some(100.0 * extract as f64 / n as f64);
    }
    out.answers.answers_with_code = n;
    let mut counts: BTreeMap<String, usize> = QUESTION_TYPES.iter().map(|t| (t.to_string(), 0)).collect();
    let mut total = 0usize;
    for (_, split) in splits {
        for e in &split.examples {
            *counts.entry(question_type(&e.question, &e.answer).to_string()).or_default() += 1;
            total += 1;
        }
    }
    out.question_types =
        counts.into_iter().map(|(k, c)| (k, if total == 0 { 0.0 } else { 100.0 * c as f64 / total as f64 })).collect();
    out
}

/// Reads every split of `dir` and computes the statistics.
pub fn stats(dir: &Path) -> Result<Stats, DataError> {
    let names = splits_in(dir)?;
    if names.is_empty() {
        return Err(DataError::Invalid(format!("{}: no {{split}}.question files", dir.display())));
    }
    let mut splits = Vec::new();
    for name in names {
        let split = read_split_as_written(dir, &name)?;
        splits.push((name, split));
    }
    Ok(stats_of(&splits))
}

/// The statistics as text tables, with the paper's Python and Java figures
/// beside them.
pub fn render(stats: &Stats) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let opt = |v: Option<usize>| v.map_or("-".to_string(), |v| v.to_string());
    let optf = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    let _ = writeln!(s, "Table 3 (paper, Python: train 56,085, dev 7,000, test 7,000; 34,641 unique codes; unique tokens code 108,571 / question 11,401 / answer 12,723; avg tokens code 48.97, question 8.15, answer 4.07)");
    let _ = writeln!(
        s,
        "{:<8} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "split", "examples", "codes", "code-tok", "q-tok", "a-tok", "avg-code", "avg-orig", "avg-q", "avg-a"
    );
    for r in stats.splits.iter().chain(std::iter::once(&stats.total)) {
        let _ = writeln!(
            s,
            "{:<8} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9.2} {:>9.2}",
            r.split,
            r.examples,
            opt(r.unique_codes),
            opt(r.unique_code_tokens),
            r.unique_question_tokens,
            r.unique_answer_tokens,
            optf(r.avg_code_tokens),
            optf(r.avg_code_original_tokens),
            r.avg_question_tokens,
            r.avg_answer_tokens
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Table 4 (paper, Python: dev repetition 1.17%, test repetition 1.56%, span 3.71%, extraction 12.57%)"
    );
    for (split, rate) in &stats.answers.repetition_against_train {
        let _ = writeln!(s, "{split} answer repetition rate against train: {rate:.2}%");
    }
    let _ = writeln!(
        s,
        "span answer: {}%  extraction answer: {}%  (over {} non-Yes/No answers with code)",
        optf(stats.answers.span_answer),
        optf(stats.answers.extraction_answer),
        stats.answers.answers_with_code
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "Table 6 (paper: What 67.24, How 8.93, Where 5.85, When 6.89, Why 1.02, For what purpose 5.08, Yes/No 2.86, Other 2.13)");
    for t in QUESTION_TYPES {
        let _ = writeln!(s, "{t:<17} {:>6.2}%", stats.question_types.get(t).copied().unwrap_or(0.0));
    }
    s
}
