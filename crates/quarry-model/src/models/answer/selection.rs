//! Which of the candidate answers a beam found for one input becomes the answer.
//!
//! `run.py` answers with the beam's most probable hypothesis ([`AnswerSelection::Best`]).
//! Minimum Bayes risk decoding (Kumar and Byrne, 2004) answers instead with the candidate
//! whose expected score against the model's own distribution is highest
//! ([`AnswerSelection::ExpectedF1`]): the distribution is the candidates' probabilities
//! renormalized over the candidates, and the score CodeQA's token F1. Where the model is
//! unsure, the candidate the others agree with most wins over a single likelier string.
//! Beam search's probabilities are peaked (the beam holds the likeliest strings only), so
//! they are flattened by a temperature: `p_j ∝ exp(log p_j / T)`, chosen on held-out pairs.

use quarry_eval::codeqa_answer::eval_score;

/// One candidate answer and the model's log probability of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The answer text.
    pub text: String,
    /// Natural log of the model's probability of the text.
    pub log_prob: f64,
}

impl Candidate {
    /// Candidates from `(text, log probability)` pairs given best first: each text once, at
    /// the place of its first copy, with the probabilities of all its copies summed (two
    /// token sequences can decode to the same text).
    pub fn merge(texts: Vec<(String, f32)>) -> Vec<Candidate> {
        let mut out: Vec<Candidate> = Vec::with_capacity(texts.len());
        for (text, log_prob) in texts {
            let log_prob = f64::from(log_prob);
            match out.iter_mut().find(|c| c.text == text) {
                Some(c) => c.log_prob = log_add(c.log_prob, log_prob),
                None => out.push(Candidate { text, log_prob }),
            }
        }
        out
    }
}

/// `ln(e^a + e^b)` without overflow.
fn log_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

/// How the answer is chosen among an input's candidates (given best first).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AnswerSelection {
    /// The most probable candidate, as `run.py` answers.
    #[default]
    Best,
    /// The candidate of highest expected CodeQA F1 against all candidates, their
    /// probabilities flattened by `temperature` ([`expected_f1_choice`]).
    ExpectedF1 {
        /// `T` of `p_j ∝ exp(log p_j / T)`: 1 keeps the model's probabilities, larger
        /// values flatten them, infinity weighs every candidate alike.
        temperature: f64,
    },
}

impl AnswerSelection {
    /// The chosen text (empty when there is no candidate).
    pub fn pick(&self, candidates: &[Candidate]) -> String {
        let index = match self {
            AnswerSelection::Best => 0,
            AnswerSelection::ExpectedF1 { temperature } => expected_f1_choice(candidates, *temperature).unwrap_or(0),
        };
        candidates.get(index).map(|c| c.text.clone()).unwrap_or_default()
    }

    /// The chosen text of every input's candidates, in order.
    pub fn pick_each(&self, candidates: &[Vec<Candidate>]) -> Vec<String> {
        candidates.iter().map(|c| self.pick(c)).collect()
    }
}

/// The index of the candidate `c` that maximizes `sum_j p_j * F1(c, j)`, where
/// `p_j ∝ exp(log p_j / temperature)` over `candidates` and F1 is CodeQA's token F1
/// (lower case, whitespace tokens); ties go to the earlier candidate. `None` when there
/// are no candidates; a temperature that is not positive is read as 1.
pub(crate) fn expected_f1_choice(candidates: &[Candidate], temperature: f64) -> Option<usize> {
    let temperature = if temperature > 0.0 { temperature } else { 1.0 };
    let top = candidates.iter().map(|c| c.log_prob).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = candidates
        .iter()
        .map(|c| ((c.log_prob - top) / temperature).exp())
        .map(|w| if w.is_nan() { 0.0 } else { w })
        .collect();
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in candidates.iter().enumerate() {
        let gain: f64 = candidates.iter().zip(&weights).map(|(other, w)| w * token_f1(&c.text, &other.text)).sum();
        if best.is_none_or(|(_, g)| gain > g) {
            best = Some((i, gain));
        }
    }
    best.map(|(i, _)| i)
}

/// CodeQA's F1 of `hypothesis` against `reference`, 0–1; against an empty reference, 1
/// when the hypothesis is empty too and 0 otherwise.
fn token_f1(hypothesis: &str, reference: &str) -> f64 {
    if reference.trim().is_empty() {
        return if hypothesis.trim().is_empty() { 1.0 } else { 0.0 };
    }
    eval_score(hypothesis, reference).map(|s| s.f1).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(text: &str, p: f64) -> Candidate {
        Candidate { text: text.into(), log_prob: p.ln() }
    }

    #[test]
    fn merging_keeps_the_first_place_and_sums_probabilities() {
        let merged =
            Candidate::merge(vec![("a b".into(), 0.3f32.ln()), ("c".into(), 0.2f32.ln()), ("a b".into(), 0.1f32.ln())]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].text, "a b");
        assert!((merged[0].log_prob.exp() - 0.4).abs() < 1e-6);
        assert_eq!(merged[1].text, "c");
    }

    #[test]
    fn the_consensus_answer_beats_the_single_most_probable_one() {
        // "the list" is likeliest alone, but the three "the file ..." answers together
        // carry more probability and share tokens with one another.
        let candidates =
            [cand("the list", 0.3), cand("the file name", 0.25), cand("the file path", 0.25), cand("the file", 0.2)];
        assert_eq!(AnswerSelection::Best.pick(&candidates), "the list");
        assert_eq!(expected_f1_choice(&candidates, 1.0), Some(3));
        assert_eq!(AnswerSelection::ExpectedF1 { temperature: 1.0 }.pick(&candidates), "the file");
        // A low temperature sharpens the weights back towards the most probable answer.
        assert_eq!(expected_f1_choice(&candidates, 0.05), Some(0));
    }

    #[test]
    fn a_sure_model_keeps_its_answer_and_no_candidates_give_nothing() {
        let candidates = [cand("Yes", 0.9), cand("No", 0.1)];
        let mbr = AnswerSelection::ExpectedF1 { temperature: 4.0 };
        assert_eq!(mbr.pick(&candidates), "Yes");
        assert_eq!(expected_f1_choice(&[], 1.0), None);
        assert_eq!(mbr.pick(&[]), "");
        // Equal gains: the earlier candidate; flat weights at an infinite temperature.
        assert_eq!(expected_f1_choice(&[cand("a", 0.5), cand("b", 0.5)], 1.0), Some(0));
        assert_eq!(expected_f1_choice(&[cand("b", 0.1), cand("a b", 0.8), cand("a", 0.1)], f64::INFINITY), Some(1));
        assert_eq!(token_f1("", " "), 1.0);
        assert_eq!(token_f1("x", ""), 0.0);
    }
}
