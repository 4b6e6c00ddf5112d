//! A generated question–answer pair.

use serde::{Deserialize, Serialize};

/// The kind of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A wh-question (What, When, Where, How, Why, For what purpose, ...).
    Wh,
    /// A general question answered Yes or No.
    Yesno,
}

/// One question–answer pair in the released files' form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pair {
    /// The question: space-separated tokens ending in " ?".
    pub question: String,
    /// The answer: a lower-case phrase, or "Yes"/"No".
    pub answer: String,
    /// Wh or Yes/No.
    pub kind: Kind,
    /// The rule that made it (e.g. `what-dobj`, `am-loc`, `yesno`).
    pub rule: String,
}
