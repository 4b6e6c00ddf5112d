//! Dataset statistics in the layout of the CodeQueries paper: Table 1
//! (examples per split, single- and multi-hop, positive and negative) and
//! Tables 6 and 7 (per query: count, average subtoken length, average answer
//! and fact spans, average spans after pruning, positives, negatives), with the paper's
//! positive and negative counts beside each query's, the negatives found before sampling
//! and the answer spans cut by the maximum length.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::paper::paper_counts;
use super::schema::Example;
use super::split::Split;

/// Running sums for one query.
#[derive(Debug, Default, Clone, Serialize, serde::Deserialize)]
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
    /// Negatives the negative queries found, before sampling.
    pub candidate_negatives: usize,
    /// Answer and fact spans of written positives that the maximum length cut.
    pub spans_cut: usize,
    /// Positives whose answer spans were all cut (dropped, or kept with `--cut-positives keep`).
    pub positives_all_cut: usize,
    /// Of those, the ones left out of the dataset.
    pub positives_dropped: usize,
    /// The paper's positive and negative counts (Tables 6–7), when it lists the query.
    pub paper: Option<(usize, usize)>,
}

impl QueryStats {
    /// Negatives per positive; `None` without positives.
    pub fn ratio(&self) -> Option<f64> {
        (self.positive > 0).then(|| self.negative as f64 / self.positive as f64)
    }

    /// The paper's negatives per positive.
    pub fn paper_ratio(&self) -> Option<f64> {
        self.paper.map(|(p, n)| n as f64 / p as f64)
    }
}

/// Cut positives of one split.
#[derive(Debug, Default, Clone, Serialize, serde::Deserialize)]
pub struct CutCounts {
    /// Positives whose answer spans were all cut.
    pub positives_all_cut: usize,
    /// Of those, the ones dropped.
    pub positives_dropped: usize,
}

/// Statistics of a whole build.
#[derive(Debug, Default, Clone, Serialize, serde::Deserialize)]
pub struct DatasetStats {
    /// Per query name.
    pub queries: BTreeMap<String, QueryStats>,
    /// Per split: `[single-hop positive, single-hop negative, multi-hop positive, multi-hop negative]`.
    pub splits: BTreeMap<String, [usize; 4]>,
    /// Per split: positives whose answer spans the maximum length cut.
    pub cut: BTreeMap<String, CutCounts>,
}

impl DatasetStats {
    fn query(&mut self, name: &str) -> &mut QueryStats {
        self.queries.entry(name.to_string()).or_insert_with(|| QueryStats {
            paper: quarry_query::find_query(name).and_then(|q| paper_counts(q.meta.index)),
            single_hop: quarry_query::find_query(name).is_some_and(|q| q.meta.hops == quarry_query::Hops::Single),
            ..QueryStats::default()
        })
    }

    /// Counts negatives found for a query in a split before sampling.
    pub fn add_candidates(&mut self, query: &str, _split: &str, count: usize) {
        self.query(query).candidate_negatives += count;
    }

    /// Counts a positive whose answer spans were all cut; `record` holds `answer_spans`,
    /// `fact_spans` and whether it was `dropped`.
    pub fn add_cut(&mut self, query: &str, split: Split, record: &serde_json::Value) {
        let number = |key: &str| record.get(key).and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
        let dropped = record.get("dropped").and_then(serde_json::Value::as_bool).unwrap_or(true);
        let q = self.query(query);
        q.positives_all_cut += 1;
        if dropped {
            q.positives_dropped += 1;
            // A kept one counts its cut spans when it is added.
            q.spans_cut += number("answer_spans") + number("fact_spans");
        }
        let c = self.cut.entry(split.name().to_string()).or_default();
        c.positives_all_cut += 1;
        c.positives_dropped += usize::from(dropped);
    }

    /// Positives per split name (single- and multi-hop together).
    pub fn positives(&self, split: Split) -> usize {
        self.splits.get(split.name()).map_or(0, |c| c[0] + c[2])
    }

    /// Answer and fact spans cut, over every query.
    pub fn spans_cut(&self) -> usize {
        self.queries.values().map(|q| q.spans_cut).sum()
    }

    /// Counts one ideal-setting example.
    pub fn add(&mut self, example: &Example, split: Split) {
        let q = self.query(&example.query_name);
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
                let after = example.spans_after_pruning.unwrap_or(0);
                q.spans_after_pruning += after;
                q.spans_cut += (example.answer_spans.len() + example.supporting_fact_spans.len()).saturating_sub(after);
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
        self.render_distribution(&mut out);
        out
    }

    /// Per query: positives and negatives written, negatives found before sampling, spans
    /// cut, and the paper's counts and ratio beside ours (`–` where there is none).
    fn render_distribution(&self, out: &mut String) {
        let _ = writeln!(out, "\nDistribution beside the paper (Tables 6-7; ratio = negatives per positive)");
        let _ = writeln!(
            out,
            "{:<4} {:<50} {:>7} {:>7} {:>8} {:>9} {:>8} {:>8} {:>9} {:>7} {:>7}",
            "Q", "query", "pos", "neg", "ratio", "found neg", "pap pos", "pap neg", "pap ratio", "cut sp", "dropped"
        );
        let mut rows: Vec<(u8, &String, &QueryStats)> = self
            .queries
            .iter()
            .map(|(name, q)| (quarry_query::find_query(name).map_or(0, |m| m.meta.index), name, q))
            .collect();
        rows.sort_by_key(|(index, name, _)| (*index, (*name).clone()));
        let ratio = |r: Option<f64>| r.map_or("–".to_string(), |r| format!("{r:.2}"));
        let mut totals = (0, 0, 0, 0, 0, 0, 0);
        for (index, name, q) in &rows {
            let (pp, pn) = q.paper.unwrap_or_default();
            let paper = |v: usize| if q.paper.is_some() { v.to_string() } else { "–".to_string() };
            let _ = writeln!(
                out,
                "{:<4} {:<50} {:>7} {:>7} {:>8} {:>9} {:>8} {:>8} {:>9} {:>7} {:>7}",
                format!("Q{index}"),
                truncate(name, 50),
                q.positive,
                q.negative,
                ratio(q.ratio()),
                q.candidate_negatives,
                paper(pp),
                paper(pn),
                ratio(q.paper_ratio()),
                q.spans_cut,
                q.positives_dropped
            );
            totals.0 += q.positive;
            totals.1 += q.negative;
            totals.2 += q.candidate_negatives;
            totals.3 += pp;
            totals.4 += pn;
            totals.5 += q.spans_cut;
            totals.6 += q.positives_dropped;
        }
        let overall = (totals.0 > 0).then(|| totals.1 as f64 / totals.0 as f64);
        let paper_overall = (totals.3 > 0).then(|| totals.4 as f64 / totals.3 as f64);
        let _ = writeln!(
            out,
            "{:<4} {:<50} {:>7} {:>7} {:>8} {:>9} {:>8} {:>8} {:>9} {:>7} {:>7}",
            "",
            "all queries above",
            totals.0,
            totals.1,
            ratio(overall),
            totals.2,
            totals.3,
            totals.4,
            ratio(paper_overall),
            totals.5,
            totals.6
        );
    }
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        text.chars().take(width - 1).chain(std::iter::once('…')).collect()
    }
}
