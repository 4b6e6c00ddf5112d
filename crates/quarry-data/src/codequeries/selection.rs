//! Which examples of a build are written: every positive, a seeded sample of negatives per
//! query and split sized like the paper's distribution, then the optional training budget.
//!
//! The reference preparation code (thepurpleowl/codequeries-benchmark,
//! `CodeQueries_preparation/`) turns every result of a query's *negative* CodeQL query into
//! one negative example per file and distinct set of relevant blocks (its
//! `check_block_level_ambiguity` merges results with the same blocks) and samples nothing;
//! quarry's `examples` module does the same with quarry's negative queries. Those queries
//! are broader than the paper's hand-written negations (on the standard library they find
//! about a hundred negatives per positive, the paper about 1.4), so `Negatives::Paper`
//! keeps, per query and split, `positives × (paper negatives / paper positives)` of them
//! (Tables 6–7), chosen by a seeded shuffle. File-level examples and relevance rows follow
//! their file: a query's file-level example and rows of a file are written when one of its
//! ideal examples is.

use std::collections::{BTreeMap, HashMap, HashSet};

use quarry_query::find_query;
use quarry_stdx::rng::{stable_hash, SplitMix64};

use super::paper::{paper_ratio, PAPER_OVERALL_RATIO};
use super::split::Split;

/// How many negative examples to keep per query and split.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Negatives {
    /// `positives × ratio`, the ratio of the query in the paper's Tables 6–7 (the overall
    /// ratio of Table 1 for a query the paper does not list). The default.
    Paper,
    /// Every negative the negative queries find (the reference code on quarry's queries).
    All,
    /// `positives × ratio` with one ratio for every query.
    Ratio(f64),
}

impl std::str::FromStr for Negatives {
    type Err = String;

    /// Parses `paper`, `all` or a non-negative ratio such as `1.4`.
    fn from_str(text: &str) -> Result<Negatives, String> {
        match text {
            "paper" => Ok(Negatives::Paper),
            "all" => Ok(Negatives::All),
            _ => match text.parse::<f64>() {
                Ok(r) if r.is_finite() && r >= 0.0 => Ok(Negatives::Ratio(r)),
                _ => Err(format!("negatives `{text}`: expected `paper`, `all` or a non-negative ratio")),
            },
        }
    }
}

impl std::fmt::Display for Negatives {
    /// `paper`, `all` or the ratio: what [`Negatives::from_str`](std::str::FromStr) reads back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Negatives::Paper => write!(f, "paper"),
            Negatives::All => write!(f, "all"),
            Negatives::Ratio(r) => write!(f, "{r}"),
        }
    }
}

impl Negatives {
    /// How many of `candidates` negatives to keep beside `positives` for `query`.
    pub fn quota(self, query: &str, positives: usize, candidates: usize) -> usize {
        let ratio = match self {
            Negatives::All => return candidates,
            Negatives::Ratio(r) => r,
            Negatives::Paper => {
                find_query(query).and_then(|q| paper_ratio(q.meta.index)).unwrap_or(PAPER_OVERALL_RATIO)
            }
        };
        ((positives as f64 * ratio).round() as usize).min(candidates)
    }
}

/// One ideal example as the selection sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The query name.
    pub query: String,
    /// The example's split.
    pub split: Split,
    /// Positive or negative.
    pub positive: bool,
    /// The source file, relative to the corpus.
    pub file: String,
}

/// The outcome: a flag per ideal example, the (query, file) pairs whose file-level example
/// and relevance rows are written, and the negatives found before sampling.
#[derive(Debug, Default)]
pub struct Selection {
    /// Per ideal example, in input order: written or not.
    pub keep: Vec<bool>,
    /// `(query, file)` pairs with a written ideal example (before the budget).
    pub files: HashSet<(String, String)>,
    /// Per query and split name: negatives found, before sampling.
    pub candidate_negatives: BTreeMap<(String, String), usize>,
}

impl Selection {
    /// Whether the file-level example or relevance rows of `query` on `file` are written.
    pub fn keeps_file(&self, query: &str, file: &str) -> bool {
        self.files.contains(&(query.to_string(), file.to_string()))
    }
}

/// Chooses the examples to write: every positive; per query and split, the quota of
/// negatives by a shuffle seeded with `seed`, the query and the split; then, with
/// `budget`, at most `budget / 2` positives and as many negatives per query of the
/// training split (fewer when one side has fewer).
pub fn select(candidates: &[Candidate], negatives: Negatives, budget: Option<usize>, seed: u64) -> Selection {
    let mut groups: BTreeMap<(&str, Split, bool), Vec<usize>> = BTreeMap::new();
    for i in by_file(candidates) {
        let c = &candidates[i];
        groups.entry((c.query.as_str(), c.split, c.positive)).or_default().push(i);
    }
    let mut keep = vec![false; candidates.len()];
    let mut selection = Selection::default();
    for (&(query, split, positive), members) in &groups {
        if positive {
            members.iter().for_each(|&i| keep[i] = true);
            continue;
        }
        selection.candidate_negatives.insert((query.to_string(), split.name().to_string()), members.len());
        let positives = groups.get(&(query, split, true)).map_or(0, Vec::len);
        let quota = negatives.quota(query, positives, members.len());
        let mut order = members.clone();
        if quota < order.len() {
            SplitMix64::new(seed ^ stable_hash(&format!("negatives:{query}:{}", split.name()))).shuffle(&mut order);
        }
        order[..quota].iter().for_each(|&i| keep[i] = true);
    }
    for (i, c) in candidates.iter().enumerate() {
        if keep[i] {
            selection.files.insert((c.query.clone(), c.file.clone()));
        }
    }
    if let Some(budget) = budget {
        apply_budget(candidates, &mut keep, budget, seed);
    }
    selection.keep = keep;
    selection
}

/// The candidates' indices ordered by file, each file's in their input order: the order
/// the samples draw from, so that they do not depend on the order files came in (nor on how
/// a build was sharded).
fn by_file(candidates: &[Candidate]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| candidates[a].file.cmp(&candidates[b].file));
    order
}

/// Per query, `budget / 2` kept training positives and as many kept training negatives.
fn apply_budget(candidates: &[Candidate], keep: &mut [bool], budget: usize, seed: u64) {
    let mut members: HashMap<(&str, bool), Vec<usize>> = HashMap::new();
    for i in by_file(candidates) {
        let c = &candidates[i];
        if keep[i] && c.split == Split::Train {
            members.entry((c.query.as_str(), c.positive)).or_default().push(i);
        }
        if c.split == Split::Train {
            keep[i] = false;
        }
    }
    let queries: std::collections::BTreeSet<&str> = members.keys().map(|(q, _)| *q).collect();
    for query in queries {
        let positives = members.get(&(query, true)).cloned().unwrap_or_default();
        let negatives = members.get(&(query, false)).cloned().unwrap_or_default();
        let per_side = (budget / 2).min(positives.len()).min(negatives.len());
        let mut rng = SplitMix64::new(seed ^ stable_hash(query));
        for mut side in [positives, negatives] {
            // Partial Fisher-Yates: the first `per_side` entries are the sample.
            for i in 0..per_side {
                let j = i + rng.below_modulo(side.len() - i);
                side.swap(i, j);
                keep[side[i]] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(query: &str, split: Split, positives: usize, negatives: usize) -> Vec<Candidate> {
        (0..positives + negatives)
            .map(|i| Candidate { query: query.into(), split, positive: i < positives, file: format!("f{}.py", i % 7) })
            .collect()
    }

    #[test]
    fn paper_quota_follows_the_query_ratio_and_is_seeded() {
        // Q5, wrong number of arguments in a call: 355 positives, 439 negatives in the paper.
        let name = find_query("Q5").unwrap().meta.name;
        let mut all = candidates(name, Split::Train, 10, 500);
        all.extend(candidates(name, Split::Test, 0, 40));
        let s = select(&all, Negatives::Paper, None, 3);
        let kept_negatives = all.iter().zip(&s.keep).filter(|(c, k)| **k && !c.positive).count();
        assert_eq!(kept_negatives, (10.0f64 * 439.0 / 355.0).round() as usize);
        // No positive in the test split: no negative either.
        assert!(all.iter().zip(&s.keep).all(|(c, k)| c.split != Split::Test || !k));
        assert_eq!(s.candidate_negatives[&(name.to_string(), "train".to_string())], 500);
        assert_eq!(select(&all, Negatives::Paper, None, 3).keep, s.keep);
        assert_ne!(select(&all, Negatives::Paper, None, 4).keep, s.keep);
        let every = select(&all, Negatives::All, None, 3);
        assert!(every.keep.iter().all(|k| *k));
        let none = select(&all, Negatives::Ratio(0.0), None, 3);
        assert_eq!(none.keep.iter().filter(|k| **k).count(), 10);
        assert!("x".parse::<Negatives>().is_err());
        assert_eq!("1.5".parse::<Negatives>(), Ok(Negatives::Ratio(1.5)));
    }

    #[test]
    fn budget_applies_after_the_negative_sample() {
        let all = candidates("Unused import", Split::Train, 6, 100);
        let s = select(&all, Negatives::Paper, Some(4), 0);
        let kept: Vec<&Candidate> = all.iter().zip(&s.keep).filter(|(_, k)| **k).map(|(c, _)| c).collect();
        assert_eq!(kept.iter().filter(|c| c.positive).count(), 2);
        assert_eq!(kept.iter().filter(|c| !c.positive).count(), 2);
    }
}
