//! METEOR as nltk's `nltk.translate.meteor_score.meteor_score` computes it:
//! exact, Porter-stem and WordNet-synonym alignment stages, then
//! `(1 - gamma * frag^beta) * Fmean` with alpha 0.9, beta 3, gamma 0.5,
//! the best score over the references. Input is pre-tokenized; tokens are
//! lowercased as nltk's default `preprocess=str.lower` does.
//!
//! Without WordNet the synonym stage is skipped (exact and stem matching
//! only), which gives a lower or equal score; callers should say so.
//!
//! Scores are on nltk's 0–1 scale.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::porter;
use crate::pytext::split_whitespace;
use crate::wordnet::WordNet;
use crate::EvalError;

/// METEOR parameters (nltk's defaults via [`Default`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeteorParams {
    /// Relative weight of precision and recall.
    pub alpha: f64,
    /// Shape of the fragmentation penalty.
    pub beta: f64,
    /// Weight of the fragmentation penalty.
    pub gamma: f64,
}

impl Default for MeteorParams {
    fn default() -> Self {
        MeteorParams { alpha: 0.9, beta: 3.0, gamma: 0.5 }
    }
}

/// A METEOR scorer, optionally with WordNet synonyms; caches stems and
/// synonym sets between calls.
pub struct Meteor<'w> {
    params: MeteorParams,
    wordnet: Option<&'w WordNet>,
    stems: RefCell<HashMap<String, Rc<str>>>,
    synonyms: RefCell<HashMap<String, Rc<HashSet<String>>>>,
}

type Enum = Vec<(usize, Rc<str>)>;

/// nltk's `_match_enums`: from the last hypothesis word backwards, match the
/// latest still unused reference word with the same text.
fn match_enums(hyp: Enum, reference: Enum, matches: &mut Vec<(usize, usize)>) -> (Enum, Enum) {
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, (_, w)) in reference.iter().enumerate() {
        positions.entry(w).or_default().push(j);
    }
    let mut hyp_used = vec![false; hyp.len()];
    let mut ref_used = vec![false; reference.len()];
    for i in (0..hyp.len()).rev() {
        if let Some(j) = positions.get_mut(&*hyp[i].1).and_then(Vec::pop) {
            hyp_used[i] = true;
            ref_used[j] = true;
            matches.push((hyp[i].0, reference[j].0));
        }
    }
    drop(positions);
    (keep_unused(hyp, &hyp_used), keep_unused(reference, &ref_used))
}

fn keep_unused(list: Enum, used: &[bool]) -> Enum {
    list.into_iter().zip(used).filter(|(_, u)| !**u).map(|(p, _)| p).collect()
}

/// nltk's `_count_chunks` over matches sorted by hypothesis position.
fn count_chunks(matches: &[(usize, usize)]) -> usize {
    let mut chunks = 1;
    for w in matches.windows(2) {
        if !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1) {
            chunks += 1;
        }
    }
    chunks
}

impl<'w> Meteor<'w> {
    /// A scorer; `wordnet: None` gives exact+stem matching only.
    pub fn new(params: MeteorParams, wordnet: Option<&'w WordNet>) -> Self {
        Meteor { params, wordnet, stems: RefCell::default(), synonyms: RefCell::default() }
    }

    /// Whether WordNet synonym matching is active.
    pub fn uses_wordnet(&self) -> bool {
        self.wordnet.is_some()
    }

    fn stem(&self, word: &str) -> Rc<str> {
        if let Some(s) = self.stems.borrow().get(word) {
            return s.clone();
        }
        let s: Rc<str> = porter::stem(word).into();
        self.stems.borrow_mut().insert(word.to_string(), s.clone());
        s
    }

    fn synonyms(&self, wn: &WordNet, word: &str) -> Rc<HashSet<String>> {
        if let Some(s) = self.synonyms.borrow().get(word) {
            return s.clone();
        }
        let mut set: HashSet<String> = wn.synonym_names(word).into_iter().filter(|n| !n.contains('_')).collect();
        set.insert(word.to_string());
        let set = Rc::new(set);
        self.synonyms.borrow_mut().insert(word.to_string(), set.clone());
        set
    }

    /// nltk's `_enum_wordnetsyn_match`: for each hypothesis word from the
    /// last, the highest unused reference position holding one of its
    /// synonyms (or itself).
    fn synonym_match(&self, wn: &WordNet, hyp: Enum, reference: Enum, matches: &mut Vec<(usize, usize)>) {
        let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
        for (j, (_, w)) in reference.iter().enumerate() {
            positions.entry(w).or_default().push(j);
        }
        for i in (0..hyp.len()).rev() {
            let syns = self.synonyms(wn, &hyp[i].1);
            let mut best: Option<(usize, &str)> = None;
            for syn in syns.iter() {
                if let Some(&last) = positions.get(syn.as_str()).and_then(|p| p.last()) {
                    if best.is_none_or(|(b, _)| last > b) {
                        best = Some((last, syn.as_str()));
                    }
                }
            }
            if let Some((j, word)) = best {
                if let Some(p) = positions.get_mut(word) {
                    p.pop();
                }
                matches.push((hyp[i].0, reference[j].0));
            }
        }
    }

    /// nltk's `single_meteor_score(reference, hypothesis)`.
    pub fn single(&self, reference: &[&str], hypothesis: &[&str]) -> f64 {
        let hyp: Enum = hypothesis.iter().map(|w| crate::pytext::lower(w).into()).enumerate().collect();
        let reference_enum: Enum = reference.iter().map(|w| crate::pytext::lower(w).into()).enumerate().collect();
        let translation_length = hyp.len();
        let reference_length = reference_enum.len();
        let mut matches = Vec::new();
        let (hyp, reference_enum) = match_enums(hyp, reference_enum, &mut matches);
        let stem_all = |e: Enum| -> Enum { e.into_iter().map(|(i, w)| (i, self.stem(&w))).collect() };
        let (hyp, reference_enum) = match_enums(stem_all(hyp), stem_all(reference_enum), &mut matches);
        if let Some(wn) = self.wordnet {
            self.synonym_match(wn, hyp, reference_enum, &mut matches);
        }
        matches.sort_by_key(|m| m.0);
        let matches_count = matches.len();
        if translation_length == 0 || reference_length == 0 || matches_count == 0 {
            return 0.0;
        }
        let precision = matches_count as f64 / translation_length as f64;
        let recall = matches_count as f64 / reference_length as f64;
        let MeteorParams { alpha, beta, gamma } = self.params;
        let denom = alpha * precision + (1.0 - alpha) * recall;
        if denom == 0.0 {
            return 0.0;
        }
        let fmean = (precision * recall) / denom;
        let frag_frac = count_chunks(&matches) as f64 / matches_count as f64;
        let penalty = gamma * frag_frac.powf(beta);
        (1.0 - penalty) * fmean
    }

    /// nltk's `meteor_score(references, hypothesis)`: the best over references.
    pub fn score(&self, references: &[&[&str]], hypothesis: &[&str]) -> f64 {
        references
            .iter()
            .map(|r| self.single(r, hypothesis))
            .fold(None, |best: Option<f64>, s| Some(best.map_or(s, |b| if s > b { s } else { b })))
            .unwrap_or(0.0)
    }
}

impl Meteor<'_> {
    /// METEOR of every raw line, tokenized on whitespace like Python's
    /// `str.split()`, and the mean; `refs[k][i]` is the k-th reference of line `i`.
    pub fn line_scores(&self, hyps: &[&str], refs: &[Vec<&str>]) -> Result<(Vec<f64>, f64), EvalError> {
        let (per_line, sum) = crate::bleu::score_lines(hyps, refs, |h, line_refs| {
            let hyp: Vec<&str> = split_whitespace(h).collect();
            let toks: Vec<Vec<&str>> = line_refs.iter().map(|r| split_whitespace(r).collect()).collect();
            let seg: Vec<&[&str]> = toks.iter().map(Vec::as_slice).collect();
            self.score(&seg, &hyp)
        })?;
        Ok((per_line, sum / hyps.len() as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_stem_without_wordnet() {
        let m = Meteor::new(MeteorParams::default(), None);
        let s = m.single(&["the", "cats", "sat"], &["the", "cat", "sat"]);
        // three matches in one chunk: fmean 1, penalty 0.5 * (1/3)^3
        assert!((s - (1.0 - 0.5 / 27.0)).abs() < 1e-15, "{s}");
        assert_eq!(m.single(&[], &["a"]), 0.0);
    }
}
