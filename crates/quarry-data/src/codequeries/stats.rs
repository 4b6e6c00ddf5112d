//! Dataset statistics in the layout of the CodeQueries paper: Table 1
//! (examples per split, single- and multi-hop, positive and negative) and
//! Tables 6 and 7 (per query: count, average subtoken length, average answer
//! and fact spans, average spans after pruning, positives, negatives).

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::schema::Example;
use super::split::Split;

/// Running sums for one query.
#[derive(Debug, Default, Clone, Serialize)]
pub struct QueryStats {
    /// All examples.
    pub count: usize,
    /// Positive examples.
    pub positive: usize,
    /// Negative examples.
    pub negative: usize,
    /// Whether the query is single-hop.
    pub single_hop: bool,
    /// Sum of subtoken lengths (examples with subtokens).
    pub subtoken_total: usize,
    /// Examples with subtokens.
    pub subtokenized: usize,
    /// Sum of answer spans over positives.
    pub answer_spans: usize,
    /// Sum of fact spans over positives.
    pub fact_spans: usize,
    /// Sum of spans surviving pruning over positives with subtokens.
    pub spans_after_pruning: usize,
    /// Positives with subtokens.
    pub positive_subtokenized: usize,
}

/// Statistics of a whole build.
#[derive(Debug, Default, Clone, Serialize)]
pub struct DatasetStats {
    /// Per query name.
    pub queries: BTreeMap<String, QueryStats>,
    /// Per split: `[single-hop positive, single-hop negative, multi-hop positive, multi-hop negative]`.
    pub splits: BTreeMap<String, [usize; 4]>,
}

impl DatasetStats {
    /// Counts one ideal-setting example.
    pub fn add(&mut self, example: &Example, split: Split) {
        let q = self.queries.entry(example.query_name.clone()).or_default();
        q.count += 1;
        q.single_hop = example.single_hop;
        let positive = example.example_type == 1;
        if positive {
            q.positive += 1;
            q.answer_spans += example.answer_spans.len();
            q.fact_spans += example.supporting_fact_spans.len();
        } else {
            q.negative += 1;
        }
        if !example.subtokenized_input_sequence.is_empty() {
            q.subtokenized += 1;
            q.subtoken_total += example.subtokenized_input_sequence.len();
            if positive {
                q.positive_subtokenized += 1;
                q.spans_after_pruning += example.spans_after_pruning.unwrap_or(0);
            }
        }
        let column = match (example.single_hop, positive) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        };
        self.splits.entry(split.name().to_string()).or_default()[column] += 1;
    }

    /// The tables as text, in the paper's layout.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Table 1: examples per split");
        let _ = writeln!(
            out,
            "{:<8} {:>10} {:>10} {:>10} {:>10} {:>8}",
            "split", "1hop pos", "1hop neg", "khop pos", "khop neg", "total"
        );
        for split in Split::ALL {
            let c = self.splits.get(split.name()).copied().unwrap_or_default();
            let _ = writeln!(
                out,
                "{:<8} {:>10} {:>10} {:>10} {:>10} {:>8}",
                split.name(),
                c[0],
                c[1],
                c[2],
                c[3],
                c.iter().sum::<usize>()
            );
        }
        for single in [false, true] {
            let title = if single { "Single-hop queries (Table 7)" } else { "Multi-hop queries (Table 6)" };
            let _ = writeln!(out, "\n{title}");
            let _ = writeln!(
                out,
                "{:<58} {:>7} {:>9} {:>7} {:>6} {:>6} {:>7} {:>7}",
                "query", "count", "avg len", "pos", "ans", "sf", "pruned", "neg"
            );
            let mut rows: Vec<(&String, &QueryStats)> =
                self.queries.iter().filter(|(_, q)| q.single_hop == single).collect();
            rows.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
            for (name, q) in rows {
                let avg = |sum: usize, n: usize| if n == 0 { 0.0 } else { sum as f64 / n as f64 };
                let _ = writeln!(
                    out,
                    "{:<58} {:>7} {:>9.2} {:>7} {:>6.2} {:>6.2} {:>7.2} {:>7}",
                    truncate(name, 58),
                    q.count,
                    avg(q.subtoken_total, q.subtokenized),
                    q.positive,
                    avg(q.answer_spans, q.positive),
                    avg(q.fact_spans, q.positive),
                    avg(q.spans_after_pruning, q.positive_subtokenized),
                    q.negative
                );
            }
        }
        out
    }
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        text.chars().take(width - 1).chain(std::iter::once('…')).collect()
    }
}
