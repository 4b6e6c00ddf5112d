//! B/I/O/F label sequences, their decoding into answer and fact spans, and exact match.

use std::collections::{BTreeMap, BTreeSet};

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
    /// Answer spans: a `B` followed by any `I`s (a stray `I` also opens a span).
    pub answers: BTreeSet<(usize, usize)>,
    /// Fact spans: maximal runs of `F`.
    pub facts: BTreeSet<(usize, usize)>,
}

/// Decodes a label sequence into spans.
pub fn decode(labels: &[Label]) -> Spans {
    let mut spans = Spans::default();
    let mut answer: Option<usize> = None;
    let mut fact: Option<usize> = None;
    for (i, &l) in labels.iter().enumerate() {
        let continues_answer = l == Label::I && answer.is_some();
        if !continues_answer {
            if let Some(s) = answer.take() {
                spans.answers.insert((s, i));
            }
            if matches!(l, Label::B | Label::I) {
                answer = Some(i);
            }
        }
        if l != Label::F {
            if let Some(s) = fact.take() {
                spans.facts.insert((s, i));
            }
        } else if fact.is_none() {
            fact = Some(i);
        }
    }
    let n = labels.len();
    if let Some(s) = answer {
        spans.answers.insert((s, n));
    }
    if let Some(s) = fact {
        spans.facts.insert((s, n));
    }
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

/// Exact match on all examples, on positive ones (gold has an answer span), on negative
/// ones, and per query.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExactMatch {
    /// Every example.
    pub all: Counts,
    /// Examples with at least one gold answer span.
    pub positive: Counts,
    /// Examples without gold answer spans.
    pub negative: Counts,
    /// Per query name, for examples that carry one.
    pub per_query: BTreeMap<String, Counts>,
}

impl ExactMatch {
    /// Records one example: `pred` and `gold` aligned label sequences.
    pub fn add(&mut self, pred: &[Label], gold: &[Label], query: Option<&str>) {
        let (p, g) = (decode(pred), decode(gold));
        let hit = p == g;
        self.all.add(hit);
        if g.answers.is_empty() {
            self.negative.add(hit);
        } else {
            self.positive.add(hit);
        }
        if let Some(q) = query {
            self.per_query.entry(q.to_string()).or_default().add(hit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Label::*;

    #[test]
    fn decodes_answers_and_facts() {
        let s = decode(&[O, B, I, I, O, B, B, F, F, O, I, F]);
        assert_eq!(s.answers, BTreeSet::from([(1, 4), (5, 6), (6, 7), (10, 11)]));
        assert_eq!(s.facts, BTreeSet::from([(7, 9), (11, 12)]));
        assert_eq!(decode(&[O, O]), Spans::default());
        assert_eq!(byte_spans(&s.facts, &[(0, 1); 12]), vec![(0, 1), (0, 1)]);
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
        assert_eq!(em.per_query["q1"].rate(), 0.5);
        let (p, g) = aligned(&[B, I, O], &[Some(B), None, Some(O)]);
        assert_eq!((p, g), (vec![B, O], vec![B, O]));
    }
}
