//! Scoring a generator against the CodeQA authors' own output
//! (`generation-gold/python_dev.jsonl`: docstrings with the pairs the
//! authors generated from them). A gold pair is recalled when the pairs
//! generated from its docstring hold one with the same question and answer
//! after lower-casing and collapsing white space; question and answer recall
//! count each side alone.

use std::collections::HashSet;
use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::pair::Pair;
use crate::error::DataError;

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
    let file = quarry_syntax::read::open_regular_file(path).map_err(|e| DataError::io(path, e))?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| DataError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let entry: GoldEntry = serde_json::from_str(&line).map_err(|e| DataError::BadRecord {
            path: path.to_path_buf(),
            line: n + 1,
            message: format!("not a gold entry ({{\"docstring\", \"pairs\"}}): {e}"),
        })?;
        out.push(entry);
    }
    Ok(out)
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
