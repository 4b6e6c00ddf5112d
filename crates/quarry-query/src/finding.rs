//! What a query reports: answer spans, supporting facts and relevant blocks.

use quarry_syntax::Span;
use serde::Serialize;

/// Whether a finding answers the query (positive) or is a plausible but not
/// actual answer found by the query's negation (negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Polarity {
    /// The query's own results.
    Positive,
    /// Results of the negated query: same shape, key property negated.
    Negative,
}

impl Polarity {
    /// The CodeQueries `example_type`: 1 for positive, 0 for negative.
    pub fn example_type(self) -> u8 {
        match self {
            Polarity::Positive => 1,
            Polarity::Negative => 0,
        }
    }
}

/// One result of one query on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Positive or negative.
    pub polarity: Polarity,
    /// The answer spans (what CodeQL selects).
    pub answers: Vec<Span>,
    /// The supporting-fact spans (the other locations the result names).
    pub facts: Vec<Span>,
    /// Indices of the code blocks needed to arrive at the result, in file order.
    pub relevant_blocks: Vec<usize>,
    /// A one-line explanation, in the style of CodeQL's alert message.
    pub message: String,
}

/// What a query function returns before relevant blocks are attached.
#[derive(Debug, Clone)]
pub struct RawFinding {
    /// The answer spans.
    pub answers: Vec<Span>,
    /// The supporting-fact spans.
    pub facts: Vec<Span>,
    /// A one-line explanation.
    pub message: String,
    /// Further code the query reasons over: every block with a line inside
    /// one of these spans is relevant too (a superclass, an overridden
    /// method). Empty for queries whose answer and fact blocks suffice.
    pub context: Vec<Span>,
}

impl RawFinding {
    /// A finding with one answer span and no facts.
    pub fn answer(span: Span, message: impl Into<String>) -> RawFinding {
        RawFinding::new(vec![span], Vec::new(), message)
    }

    /// A finding with the given answer and fact spans and no extra context.
    pub fn new(answers: Vec<Span>, facts: Vec<Span>, message: impl Into<String>) -> RawFinding {
        RawFinding { answers, facts, message: message.into(), context: Vec::new() }
    }

    /// Adds spans whose blocks are relevant although they hold no answer or fact.
    pub fn with_context(mut self, context: impl IntoIterator<Item = Span>) -> RawFinding {
        self.context.extend(context);
        self
    }

    /// Adds supporting-fact spans.
    pub fn with_facts(mut self, facts: impl IntoIterator<Item = Span>) -> RawFinding {
        self.facts.extend(facts);
        self
    }
}
