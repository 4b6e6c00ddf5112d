//! The paper's filters on generated pairs (Section 4.4): answers that are
//! only pronouns, and answers that name the code itself ("this method",
//! "the code" that preprocessing added), are ambiguous and dropped.

/// Words that make an answer ambiguous when it holds nothing else.
const PRONOUNS: [&str; 30] = [
    "it",
    "its",
    "itself",
    "this",
    "that",
    "these",
    "those",
    "they",
    "them",
    "their",
    "themselves",
    "he",
    "she",
    "him",
    "her",
    "we",
    "us",
    "our",
    "you",
    "your",
    "i",
    "me",
    "my",
    "which",
    "what",
    "who",
    "whom",
    "one",
    "something",
    "anything",
];

/// Answers that name the code the comment belongs to.
const SELF_REFERENCES: [&str; 14] = [
    "the code",
    "this code",
    "code",
    "this method",
    "the method",
    "method",
    "this function",
    "the function",
    "function",
    "this class",
    "the class",
    "this module",
    "this decorator",
    "this routine",
];

/// True when `answer` (in released form: lower-case words) is kept.
pub fn keep_answer(answer: &str) -> bool {
    let words: Vec<&str> = answer.split_whitespace().collect();
    if words.is_empty() {
        return false;
    }
    if words.iter().all(|w| PRONOUNS.contains(w)) {
        return false;
    }
    !SELF_REFERENCES.contains(&answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pronoun_and_self_answers_are_dropped() {
        assert!(!keep_answer("it"));
        assert!(!keep_answer("this"));
        assert!(!keep_answer("the code"));
        assert!(!keep_answer("this method"));
        assert!(!keep_answer(""));
        assert!(keep_answer("the value"));
        assert!(keep_answer("it and the value"));
    }
}
