//! B/I/O/F label sequences, their decoding into answer and fact spans, and exact match.

use std::collections::{BTreeMap, BTreeSet};

use quarry_eval::spans::{span_set_exact_match, Span};
use serde::Serialize;

/// A token label of the span task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// First token of an answer span.
    B,
    /// Continuation of an answer span.
    I,
    /// Outside every span.
    O,
    /// Token of a supporting-fact span.
    F,
}

impl Label {
    /// All labels in logit order.
    pub const ALL: [Label; 4] = [Label::B, Label::I, Label::O, Label::F];

    /// The logit index of this label.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The label of a logit index.
    pub fn from_index(i: usize) -> Option<Label> {
        Label::ALL.get(i).copied()
    }

    /// Parses `B`, `I`, `O` or `F`.
    pub fn parse(s: &str) -> Option<Label> {
        match s {
            "B" => Some(Label::B),
            "I" => Some(Label::I),
            "O" => Some(Label::O),
            "F" => Some(Label::F),
            _ => None,
        }
    }

    /// The one-letter name.
    pub fn name(self) -> &'static str {
        ["B", "I", "O", "F"][self.index()]
    }
}

/// Half-open token ranges of the answer and supporting-fact spans of one sequence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Spans {
    /// Answer spans: a `B` followed by any `I`s (a stray `I` also opens one).
    pub answers: BTreeSet<(usize, usize)>,
    /// Supporting-fact spans: an `F` followed by any `I`s.
    pub facts: BTreeSet<(usize, usize)>,
}

/// Decodes a label sequence into spans, as the paper lays labels out (Section 4.1): an
/// answer span is `B I*`, a supporting-fact span `F I*`. An `I` with no open span opens
/// an answer span.
pub fn decode(labels: &[Label]) -> Spans {
    let mut spans = Spans::default();
    // The open span: its start and whether it is a fact.
    let mut open: Option<(usize, bool)> = None;
    let mut close = |open: &mut Option<(usize, bool)>, end: usize| {
        if let Some((start, fact)) = open.take() {
            if fact { &mut spans.facts } else { &mut spans.answers }.insert((start, end));
        }
    };
    for (i, &l) in labels.iter().enumerate() {
        match l {
            Label::I if open.is_some() => {}
            Label::I | Label::B => {
                close(&mut open, i);
                open = Some((i, false));
            }
            Label::F => {
                close(&mut open, i);
                open = Some((i, true));
            }
            Label::O => close(&mut open, i),
        }
    }
    close(&mut open, labels.len());
    spans
}

/// Maps token spans to byte spans of the text through per-token byte offsets.
pub fn byte_spans(spans: &BTreeSet<(usize, usize)>, offsets: &[(usize, usize)]) -> Vec<(usize, usize)> {
    spans.iter().filter(|(s, e)| *e <= offsets.len() && s < e).map(|&(s, e)| (offsets[s].0, offsets[e - 1].1)).collect()
}

/// Removes the positions without a gold label from a predicted and a gold sequence, so that
/// both decode over the same labeled positions.
pub fn aligned(pred: &[Label], gold: &[Option<Label>]) -> (Vec<Label>, Vec<Label>) {
    pred.iter().zip(gold).filter_map(|(p, g)| g.map(|g| (*p, g))).unzip()
}

/// Exact-match counts over a group of examples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Examples whose predicted answer and fact span sets both equal the gold ones.
    pub exact: usize,
    /// Examples in the group.
    pub total: usize,
}

impl Counts {
    /// Exact matches as a fraction (0 for an empty group).
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.exact as f64 / self.total as f64
        }
    }

    fn add(&mut self, hit: bool) {
        self.total += 1;
        self.exact += usize::from(hit);
    }
}

/// Exact-match counts over all, positive (gold has an answer span) and negative examples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Breakdown {
    /// Every example.
    pub all: Counts,
    /// Examples with at least one gold answer span.
    pub positive: Counts,
    /// Examples without gold answer spans.
    pub negative: Counts,
}

impl Breakdown {
    fn add(&mut self, positive: bool, hit: bool) {
        self.all.add(hit);
        if positive {
            self.positive.add(hit);
        } else {
            self.negative.add(hit);
        }
    }
}

/// Span-set exact match of two token-span sets, through quarry-eval's one definition.
fn same_spans(predicted: &BTreeSet<(usize, usize)>, gold: &BTreeSet<(usize, usize)>) -> bool {
    let as_spans = |set: &BTreeSet<(usize, usize)>| -> Vec<Span> {
        set.iter().map(|&(start, end)| Span { start: start as u64, end: end as u64 }).collect()
    };
    span_set_exact_match(&as_spans(predicted), &as_spans(gold))
}

/// What an example belongs to, for the per-group breakdowns.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExampleGroup<'a> {
    /// The query name.
    pub query: Option<&'a str>,
    /// Whether the query is single-hop (`None` when unknown).
    pub single_hop: Option<bool>,
}

/// Exact match of the paper's Section 4.3: an example matches when its predicted answer-span
/// set and fact-span set both equal the gold ones. Counted on all, positive and negative
/// examples, per query and per hop class, and in the answer-only variant (answer spans alone).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExactMatch {
    /// Every example.
    pub all: Counts,
    /// Examples with at least one gold answer span.
    pub positive: Counts,
    /// Examples without gold answer spans.
    pub negative: Counts,
    /// Matching the answer spans only.
    pub answer_only: Breakdown,
    /// Per query name, for examples that carry one.
    pub per_query: BTreeMap<String, Breakdown>,
    /// Per hop class (`single-hop`, `multi-hop`), for examples that say.
    pub per_hops: BTreeMap<String, Breakdown>,
}

impl ExactMatch {
    /// Records one example: `pred` and `gold` aligned label sequences.
    pub fn add(&mut self, pred: &[Label], gold: &[Label], query: Option<&str>) {
        self.add_grouped(pred, gold, ExampleGroup { query, single_hop: None });
    }

    /// Records one example with its groups.
    pub fn add_grouped(&mut self, pred: &[Label], gold: &[Label], group: ExampleGroup<'_>) {
        let (p, g) = (decode(pred), decode(gold));
        let positive = !g.answers.is_empty();
        let answers_match = same_spans(&p.answers, &g.answers);
        let hit = answers_match && same_spans(&p.facts, &g.facts);
        self.all.add(hit);
        if positive {
            self.positive.add(hit);
        } else {
            self.negative.add(hit);
        }
        self.answer_only.add(positive, answers_match);
        if let Some(q) = group.query {
            self.per_query.entry(q.to_string()).or_default().add(positive, hit);
        }
        if let Some(single) = group.single_hop {
            let class = if single { "single-hop" } else { "multi-hop" };
            self.per_hops.entry(class.to_string()).or_default().add(positive, hit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Label::*;

    #[test]
    fn decodes_answers_and_facts() {
        let s = decode(&[O, B, I, I, O, B, B, F, F, I, O, I, F, I]);
        assert_eq!(s.answers, BTreeSet::from([(1, 4), (5, 6), (6, 7), (11, 12)]));
        assert_eq!(s.facts, BTreeSet::from([(7, 8), (8, 10), (12, 14)]));
        assert_eq!(decode(&[O, O]), Spans::default());
        assert_eq!(byte_spans(&s.facts, &[(0, 1); 14]), vec![(0, 1), (0, 1), (0, 1)]);
    }

    #[test]
    fn exact_match_counts_groups() {
        let mut em = ExactMatch::default();
        em.add(&[B, I, O], &[B, I, O], Some("q1"));
        em.add(&[B, O, O], &[B, I, O], Some("q1"));
        em.add(&[O, O, O], &[O, O, O], Some("q2"));
        assert_eq!(em.all, Counts { exact: 2, total: 3 });
        assert_eq!(em.positive, Counts { exact: 1, total: 2 });
        assert_eq!(em.negative, Counts { exact: 1, total: 1 });
        assert_eq!(em.per_query["q1"].all.rate(), 0.5);
        assert_eq!(em.per_query["q1"].positive, Counts { exact: 1, total: 2 });
        em.add_grouped(&[O, O, F], &[O, O, O], ExampleGroup { query: None, single_hop: Some(false) });
        // The answer-only variant ignores the spurious fact.
        assert_eq!(em.answer_only.negative, Counts { exact: 2, total: 2 });
        assert_eq!(em.negative, Counts { exact: 1, total: 2 });
        assert_eq!(em.per_hops["multi-hop"].all, Counts { exact: 0, total: 1 });
        let (p, g) = aligned(&[B, I, O], &[Some(B), None, Some(O)]);
        assert_eq!((p, g), (vec![B, O], vec![B, O]));
    }
}
