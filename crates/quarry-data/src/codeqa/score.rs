//! Scoring a generator against the CodeQA authors' own output
//! (`generation-gold/python_dev.jsonl`: docstrings with the pairs the
//! authors generated from them). A gold pair is recalled when the pairs
//! generated from its docstring hold one with the same question and answer
//! after lower-casing and collapsing white space; question and answer recall
//! count each side alone.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::generate::{generate, CommentParser, Outcome};
use super::pair::Pair;
use crate::error::DataError;
use crate::jsonl::read_numbered;

/// One gold pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldPair {
    /// The question.
    pub question: String,
    /// The answer.
    pub answer: String,
}

/// A docstring with its gold pairs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldEntry {
    /// The docstring.
    pub docstring: String,
    /// The pairs the authors generated from it.
    pub pairs: Vec<GoldPair>,
}

/// Reads a gold file (one JSON object per line).
pub fn read_gold(path: &Path) -> Result<Vec<GoldEntry>, DataError> {
    let entries = read_numbered(path, "not a gold entry ({\"docstring\", \"pairs\"})")?;
    Ok(entries.into_iter().map(|(_, entry)| entry).collect())
}

/// Recall figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Recall {
    /// Docstrings scored.
    pub docstrings: usize,
    /// Gold pairs.
    pub gold_pairs: usize,
    /// Pairs generated.
    pub generated_pairs: usize,
    /// Gold pairs generated exactly (question and answer).
    pub pair_hits: usize,
    /// Gold questions generated.
    pub question_hits: usize,
    /// Gold answers generated.
    pub answer_hits: usize,
    /// Gold Yes/No pairs, and those recalled.
    pub yes_no_gold: usize,
    /// Gold Yes/No pairs recalled.
    pub yes_no_hits: usize,
}

impl Recall {
    /// Exact pair recall.
    pub fn pair_recall(&self) -> f64 {
        ratio(self.pair_hits, self.gold_pairs)
    }
    /// Question recall.
    pub fn question_recall(&self) -> f64 {
        ratio(self.question_hits, self.gold_pairs)
    }
    /// Answer recall.
    pub fn answer_recall(&self) -> f64 {
        ratio(self.answer_hits, self.gold_pairs)
    }
    /// Pairs generated per docstring.
    pub fn pairs_per_docstring(&self) -> f64 {
        ratio(self.generated_pairs, self.docstrings)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Lower-cases and collapses white space.
pub fn normalise(s: &str) -> String {
    s.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Scores generated pairs (`generated[i]` from `gold[i].docstring`).
pub fn score(gold: &[GoldEntry], generated: &[Vec<Pair>]) -> Recall {
    let mut r = Recall { docstrings: gold.len(), ..Recall::default() };
    for (entry, pairs) in gold.iter().zip(generated.iter().chain(std::iter::repeat(&Vec::new()))) {
        r.generated_pairs += pairs.len();
        let qa: HashSet<(String, String)> =
            pairs.iter().map(|p| (normalise(&p.question), normalise(&p.answer))).collect();
        let qs: HashSet<String> = pairs.iter().map(|p| normalise(&p.question)).collect();
        let answers: HashSet<String> = pairs.iter().map(|p| normalise(&p.answer)).collect();
        for g in &entry.pairs {
            let (q, a) = (normalise(&g.question), normalise(&g.answer));
            r.gold_pairs += 1;
            let yes_no = a == "yes" || a == "no";
            r.yes_no_gold += usize::from(yes_no);
            if qa.contains(&(q.clone(), a.clone())) {
                r.pair_hits += 1;
                r.yes_no_hits += usize::from(yes_no);
            }
            r.question_hits += usize::from(qs.contains(&q));
            r.answer_hits += usize::from(answers.contains(&a));
        }
    }
    r
}
/// What `quarry codeqa score` reports: recall of the authors' pairs, and speed.
#[derive(Debug, Clone, Serialize)]
pub struct ScoreReport {
    /// Docstrings scored.
    pub docstrings: usize,
    /// Gold pairs.
    pub gold_pairs: usize,
    /// Pairs generated.
    pub generated_pairs: usize,
    /// Share of gold pairs generated exactly.
    pub pair_recall: f64,
    /// Share of gold questions generated.
    pub question_recall: f64,
    /// Share of gold answers generated.
    pub answer_recall: f64,
    /// Yes/no gold pairs recalled, as `hits/gold`.
    pub yes_no_recalled: String,
    /// Generated pairs per docstring.
    pub pairs_per_docstring: f64,
    /// Seconds of generation, parsing included.
    pub seconds: f64,
    /// Generated pairs per second.
    pub pairs_per_second: f64,
    /// Docstrings the parser failed on.
    pub parse_errors: usize,
    /// Exactly generated gold pairs.
    #[serde(skip)]
    pub pair_hits: usize,
}

/// Generates pairs for every gold docstring with `parser` (at most `max_pairs` each) and
/// scores them against the authors' pairs; `on_parse_error` hears each parse failure.
pub fn score_generator(
    gold: &[GoldEntry],
    parser: &mut dyn CommentParser,
    max_pairs: usize,
    on_parse_error: &mut dyn FnMut(&str),
) -> ScoreReport {
    let comments: Vec<&str> = gold.iter().map(|e| e.docstring.as_str()).collect();
    let start = std::time::Instant::now();
    let outcomes = generate(&comments, parser, max_pairs);
    let seconds = start.elapsed().as_secs_f64();
    let mut errors = 0usize;
    let generated: Vec<Vec<Pair>> = outcomes
        .into_iter()
        .map(|o| match o {
            Outcome::Pairs(p) => p,
            Outcome::ParseError(e) => {
                errors += 1;
                on_parse_error(&e);
                Vec::new()
            }
        })
        .collect();
    let r = score(gold, &generated);
    ScoreReport {
        docstrings: r.docstrings,
        gold_pairs: r.gold_pairs,
        generated_pairs: r.generated_pairs,
        pair_recall: r.pair_recall(),
        question_recall: r.question_recall(),
        answer_recall: r.answer_recall(),
        yes_no_recalled: format!("{}/{}", r.yes_no_hits, r.yes_no_gold),
        pairs_per_docstring: r.pairs_per_docstring(),
        seconds,
        pairs_per_second: r.generated_pairs as f64 / seconds.max(1e-9),
        parse_errors: errors,
        pair_hits: r.pair_hits,
    }
}

impl ScoreReport {
    /// The report as aligned lines of text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "docstrings           {}", self.docstrings);
        let _ = writeln!(out, "gold pairs           {}", self.gold_pairs);
        let _ = writeln!(
            out,
            "exact pair recall    {:.2}% ({}/{})",
            100.0 * self.pair_recall,
            self.pair_hits,
            self.gold_pairs
        );
        let _ = writeln!(out, "question recall      {:.2}%", 100.0 * self.question_recall);
        let _ = writeln!(out, "answer recall        {:.2}%", 100.0 * self.answer_recall);
        let _ = writeln!(out, "yes/no recalled      {}", self.yes_no_recalled);
        let _ = writeln!(out, "pairs per docstring  {:.2} ({} pairs)", self.pairs_per_docstring, self.generated_pairs);
        let _ = writeln!(
            out,
            "time                 {:.3} s ({:.0} pairs/s, parsing included)",
            self.seconds, self.pairs_per_second
        );
        out
    }
}
