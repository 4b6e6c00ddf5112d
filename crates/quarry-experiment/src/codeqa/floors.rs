//! The two floors of CodeQA answer generation: every test question answered with the most
//! frequent training answer, or with the answer of the training question most similar to
//! it under BM25 (rank-bm25's `BM25Okapi` over lower-cased whitespace tokens of the
//! questions). A model that does not beat them has learnt nothing from the code.

use std::collections::HashMap;

use quarry_data::codeqa::CodeQaExample;
use quarry_eval::bm25::{Bm25, Bm25Params};

use crate::error::{ExperimentError, Result};

fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase().split_whitespace().map(str::to_string).collect()
}

/// The most frequent answer of `train` and how often it occurs; ties go to the answer
/// seen first. `None` for no training pairs.
pub fn most_frequent(train: &[CodeQaExample]) -> Option<(String, usize)> {
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, e) in train.iter().enumerate() {
        counts.entry(e.answer.as_deref().unwrap_or_default()).or_insert((0, i)).0 += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
        .map(|(answer, (n, _))| (answer.to_string(), n))
}

/// For every question of `test`, the answer of the BM25-nearest question of `train`.
pub fn bm25_nearest(train: &[CodeQaExample], test: &[CodeQaExample]) -> Result<Vec<String>> {
    let corpus: Vec<Vec<String>> = train.iter().map(|e| tokens(&e.question)).collect();
    let bm25 = Bm25::new(&corpus, Bm25Params::default()).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
    Ok(test
        .iter()
        .map(|e| {
            let best = bm25.top_n(&tokens(&e.question), 1);
            best.first().and_then(|&i| train[i].answer.clone()).unwrap_or_default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(question: &str, answer: &str) -> CodeQaExample {
        CodeQaExample { code: "x".into(), code_original: None, question: question.into(), answer: Some(answer.into()) }
    }

    #[test]
    fn floors_answer_from_the_training_pairs() {
        let train = [
            pair("what does the function return ?", "a list"),
            pair("does it close the file ?", "Yes"),
            pair("does it open the socket ?", "Yes"),
        ];
        assert_eq!(most_frequent(&train), Some(("Yes".into(), 2)));
        assert_eq!(most_frequent(&[]), None);
        let test = [pair("what does the method return ?", "?")];
        assert_eq!(bm25_nearest(&train, &test).unwrap(), vec!["a list".to_string()]);
    }
}
