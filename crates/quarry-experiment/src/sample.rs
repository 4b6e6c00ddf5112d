//! Training and test subsets of the CodeQueries protocol: the limited-budget samples (paper
//! Section 5.2.2), labels without supporting facts (Table 4's ablation), and the per-query
//! test samples that keep a CPU run small.

use quarry_model::evaluation::spans::Label;
use quarry_model::training::data::SpanExample;
use quarry_stdx::rng::sample_per_key;

/// Whether a span example is positive (has an answer span).
pub fn is_positive(example: &SpanExample) -> bool {
    example.labels.contains(&Some(Label::B))
}

/// The paper's limited budget: at most `budget` training examples per query, half positive
/// and half negative (an odd budget gives the extra one to neither), chosen with `seed`.
pub fn budget_sample(examples: &[SpanExample], budget: usize, seed: u64) -> Vec<SpanExample> {
    sample_per_key(examples.to_vec(), budget / 2, seed, |e| (e.query.clone(), is_positive(e)))
}

/// The example with its supporting-fact spans relabelled as outside: `F` and the `I`s that
/// continue it become `O`, answer spans stay.
pub fn without_facts(example: &SpanExample) -> SpanExample {
    let mut in_fact = false;
    let labels = example
        .labels
        .iter()
        .map(|l| match l {
            Some(Label::F) => {
                in_fact = true;
                Some(Label::O)
            }
            Some(Label::I) if in_fact => Some(Label::O),
            Some(other) => {
                in_fact = false;
                Some(*other)
            }
            // Unlabeled positions neither start nor end a span.
            None => None,
        })
        .collect();
    SpanExample { labels, ..example.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(query: &str, labels: &[Label]) -> SpanExample {
        SpanExample {
            tokens: labels.iter().map(|l| l.name().to_string()).collect(),
            labels: labels.iter().map(|&l| Some(l)).collect(),
            query: Some(query.into()),
            single_hop: None,
        }
    }

    #[test]
    fn budgets_balance_positives_and_negatives_per_query() {
        use Label::*;
        let mut set = Vec::new();
        for q in ["a", "b"] {
            for _ in 0..5 {
                set.push(example(q, &[O, B, I]));
                set.push(example(q, &[O, O, O]));
            }
        }
        set.push(example("c", &[B]));
        let sample = budget_sample(&set, 4, 1);
        let count = |q: &str, pos: bool| {
            sample.iter().filter(|e| e.query.as_deref() == Some(q) && is_positive(e) == pos).count()
        };
        assert_eq!((count("a", true), count("a", false), count("b", true), count("b", false)), (2, 2, 2, 2));
        assert_eq!(count("c", true), 1);
        assert_eq!(budget_sample(&set, 4, 1), sample, "the sample depends on the seed only");
        assert_ne!(budget_sample(&set, 4, 2).len(), 0);
    }

    #[test]
    fn facts_become_outside_and_answers_stay() {
        use Label::*;
        let e = example("q", &[O, F, I, I, O, B, I, F, B, I]);
        let got: Vec<Label> = without_facts(&e).labels.into_iter().map(|l| l.unwrap()).collect();
        assert_eq!(got, vec![O, O, O, O, O, B, I, O, B, I]);
    }
}
