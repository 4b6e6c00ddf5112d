//! The beam of one input, with the semantics of the `Beam` class in CodeQA's `model.py`
//! (itself from CodeBERT's code-to-text baseline): scores are sums of token log
//! probabilities in f32; the first step expands only the start row; a row that emitted the
//! end token gets no children; every end token chosen is recorded as a finished hypothesis;
//! search stops when the top row ends and at least `size` hypotheses are finished; the answer
//! is the best finished hypothesis, topped up with the best unfinished rows.
//!
//! `model.py` ranks finished hypotheses by raw score. A length penalty `alpha` (0 = the
//! reference behaviour) ranks them by `score / length^alpha` instead, `length` counting the
//! generated tokens and the end token.

/// A hypothesis's tokens (without the start and end tokens) and its score, the sum of its
/// token log probabilities.
pub(crate) type Hypothesis = (Vec<u32>, f32);

/// The state of one beam.
#[derive(Debug, Clone)]
pub(crate) struct Beam {
    size: usize,
    eos: u32,
    scores: Vec<f32>,
    /// For every step, the row each new row came from.
    prev: Vec<Vec<usize>>,
    /// The token of every row at every step; `next[0]` is the start row then padding.
    next: Vec<Vec<u32>>,
    eos_top: bool,
    /// (score, step, row) of every finished hypothesis, in the order they finished.
    finished: Vec<(f32, usize, usize)>,
}

impl Beam {
    /// A beam of `size` rows starting from `sos`, ending at `eos`; padding rows hold `pad`.
    pub(crate) fn new(size: usize, sos: u32, eos: u32, pad: u32) -> Self {
        let mut first = vec![pad; size];
        first[0] = sos;
        Beam {
            size,
            eos,
            scores: vec![0.0; size],
            prev: Vec::new(),
            next: vec![first],
            eos_top: false,
            finished: Vec::new(),
        }
    }

    /// The last token of every row (the next decoder input).
    pub(crate) fn current(&self) -> &[u32] {
        self.next.last().map(Vec::as_slice).unwrap_or(&[])
    }

    /// The row every current row came from, after at least one [`Beam::advance`].
    pub(crate) fn origins(&self) -> &[usize] {
        self.prev.last().map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether the search is over: the top row ended and `size` hypotheses finished.
    pub(crate) fn done(&self) -> bool {
        self.eos_top && self.finished.len() >= self.size
    }

    /// Advances with `log_probs`, `size` rows of `vocab` log probabilities each (row-major).
    pub(crate) fn advance(&mut self, log_probs: &[f32], vocab: usize) {
        let candidates: Vec<(f32, usize)> = if self.prev.is_empty() {
            top_k(log_probs[..vocab].iter().copied().enumerate().map(|(i, s)| (s, i)), self.size)
        } else {
            let last = self.current().to_vec();
            let scores = &self.scores;
            let eos = self.eos;
            let flat = (0..self.size).flat_map(|r| {
                let row = &log_probs[r * vocab..(r + 1) * vocab];
                let ended = last[r] == eos;
                row.iter().enumerate().map(move |(w, &lp)| (if ended { -1e20 } else { lp + scores[r] }, r * vocab + w))
            });
            top_k(flat, self.size)
        };
        self.scores = candidates.iter().map(|c| c.0).collect();
        let prev: Vec<usize> = candidates.iter().map(|c| c.1 / vocab).collect();
        let next: Vec<u32> = candidates.iter().map(|c| (c.1 % vocab) as u32).collect();
        self.prev.push(prev);
        self.next.push(next);
        let step = self.next.len() - 1;
        let ended: Vec<usize> = (0..self.size).filter(|&i| self.next[step][i] == self.eos).collect();
        for i in ended {
            self.finished.push((self.scores[i], step, i));
        }
        if self.current()[0] == self.eos {
            self.eos_top = true;
        }
    }

    /// The tokens of hypothesis `(step, row)`, cut before the first end token.
    fn hypothesis(&self, step: usize, mut row: usize) -> Vec<u32> {
        let mut out = Vec::with_capacity(step);
        for j in (0..step).rev() {
            out.push(self.next[j + 1][row]);
            row = self.prev[j][row];
        }
        out.reverse();
        if let Some(end) = out.iter().position(|&t| t == self.eos) {
            out.truncate(end);
        }
        out
    }

    /// The best hypotheses, best first (`size` at most): finished ones ranked by score (with
    /// the length penalty `alpha`), then unfinished rows by score.
    #[cfg(test)]
    pub fn best(&self, alpha: f64) -> Vec<Vec<u32>> {
        let mut ranked = self.ranked(alpha);
        ranked.truncate(self.size);
        ranked.into_iter().map(|(tokens, _)| tokens).collect()
    }

    /// Every finished hypothesis, ranked as [`Beam::best`] ranks them, topped up with the
    /// best unfinished rows to at least `size`, each with its score (the sum of its token
    /// log probabilities, end token included). The first `size` are [`Beam::best`]'s; the
    /// rest are the hypotheses that finished early and fell out of the beam.
    pub(crate) fn ranked(&self, alpha: f64) -> Vec<Hypothesis> {
        let step = self.next.len() - 1;
        let mut finished = self.finished.clone();
        if finished.is_empty() {
            finished.push((self.scores[0], step, 0));
        }
        let rank = |&(s, t, _): &(f32, usize, usize)| -> f64 {
            if alpha == 0.0 {
                s as f64
            } else {
                s as f64 / (t.max(1) as f64).powf(alpha)
            }
        };
        // A stable sort, as Python's `list.sort`.
        finished.sort_by(|a, b| rank(b).total_cmp(&rank(a)));
        if finished.len() < self.size {
            let mut unfinished: Vec<(f32, usize, usize)> = self
                .current()
                .iter()
                .enumerate()
                .filter(|(_, &t)| t != self.eos)
                .map(|(i, _)| (self.scores[i], step, i))
                .collect();
            unfinished.sort_by(|a, b| b.0.total_cmp(&a.0));
            let missing = self.size - finished.len();
            finished.extend(unfinished.into_iter().take(missing));
        }
        finished.iter().map(|&(s, t, r)| (self.hypothesis(t, r), s)).collect()
    }
}

/// A decoder as beam search drives it ([`search`]): the next token's log probabilities for
/// every row, and rows kept or reordered as the beams move on.
pub(crate) trait BeamStep {
    /// The vocabulary size of input `input`'s rows (a copying decoder's grows with the
    /// input's own words).
    fn vocab(&self, input: usize) -> usize;

    /// Next-token log probabilities for the current rows (`beam` rows of each input of
    /// `active`, in that order) whose last tokens are `tokens`, at position `step`: for each
    /// active input its rows' `beam * vocab(input)` values, row-major, one after another.
    fn step(&mut self, tokens: &[u32], active: &[usize], step: usize) -> crate::error::Result<Vec<f32>>;

    /// Makes the rows `rows` (indices into the current rows) the current rows. When inputs
    /// left the search, `inputs_left` gives, for every new row, a current row of the same
    /// input (what per-input state such as the encoder output follows).
    fn keep(&mut self, rows: &[u32], inputs_left: Option<&[u32]>) -> crate::error::Result<()>;
}

/// Beam search over `inputs` inputs decoded together, `beam` rows each, for at most
/// `max_len` tokens from `sos` to `eos` ([`Beam`]); inputs whose beam is done leave the
/// batch. Every input's hypotheses, ranked with the length penalty `alpha`.
pub(crate) fn search(
    inputs: usize,
    beam: usize,
    max_len: usize,
    [sos, eos, pad]: [u32; 3],
    alpha: f64,
    decoder: &mut dyn BeamStep,
) -> crate::error::Result<Vec<Vec<Hypothesis>>> {
    let mut beams: Vec<Beam> = (0..inputs).map(|_| Beam::new(beam, sos, eos, pad)).collect();
    let mut active: Vec<usize> = (0..inputs).collect();
    for step in 0..max_len {
        if active.is_empty() {
            break;
        }
        let tokens: Vec<u32> = active.iter().flat_map(|&r| beams[r].current().to_vec()).collect();
        let log_probs = decoder.step(&tokens, &active, step)?;
        let mut keep: Vec<u32> = Vec::with_capacity(tokens.len());
        let mut input_rows: Vec<u32> = Vec::with_capacity(tokens.len());
        let mut still = Vec::with_capacity(active.len());
        let mut offset = 0;
        for (slot, &r) in active.iter().enumerate() {
            let vocab = decoder.vocab(r);
            let b = &mut beams[r];
            b.advance(&log_probs[offset..offset + beam * vocab], vocab);
            offset += beam * vocab;
            if !b.done() {
                keep.extend(b.origins().iter().map(|&o| (slot * beam + o) as u32));
                input_rows.extend((0..beam).map(|k| (slot * beam + k) as u32));
                still.push(r);
            }
        }
        // Per-input state moves only when an input left the batch.
        let dropped = still.len() < active.len();
        active = still;
        if !active.is_empty() {
            decoder.keep(&keep, dropped.then_some(input_rows.as_slice()))?;
        }
    }
    Ok(beams.iter().map(|b| b.ranked(alpha)).collect())
}

/// The `k` largest `(score, index)` pairs, largest first; among equal scores the lower index
/// comes first.
fn top_k(items: impl Iterator<Item = (f32, usize)>, k: usize) -> Vec<(f32, usize)> {
    let mut best: Vec<(f32, usize)> = Vec::with_capacity(k + 1);
    for (s, i) in items {
        if best.len() == k
            && best.last().is_some_and(|&(ls, _)| s.partial_cmp(&ls) != Some(std::cmp::Ordering::Greater))
        {
            continue;
        }
        let pos = best.iter().position(|&(bs, _)| s > bs).unwrap_or(best.len());
        best.insert(pos, (s, i));
        if best.len() > k {
            best.pop();
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(ps: &[f32]) -> Vec<f32> {
        ps.iter().map(|p| p.ln()).collect()
    }

    #[test]
    fn top_k_keeps_the_largest_in_order() {
        let v = [0.1f32, 0.5, 0.3, 0.5, -1.0];
        assert_eq!(top_k(v.iter().copied().enumerate().map(|(i, s)| (s, i)), 3), vec![(0.5, 1), (0.5, 3), (0.3, 2)]);
    }

    #[test]
    fn beam_finds_the_sequence_greedy_misses() {
        // Vocabulary: 0 pad, 1 start, 2 end, 3 "a", 4 "b". Greedy takes "a" (0.6) then is
        // stuck with an unlikely end (0.3); "b" (0.4) then end (1.0) is better overall.
        let vocab = 5;
        let step1 = log(&[1e-9, 1e-9, 1e-9, 0.6, 0.4]);
        let after_a = log(&[1e-9, 1e-9, 0.3, 0.35, 0.35]);
        let after_b = log(&[1e-9, 1e-9, 0.99, 0.005, 0.005]);
        let mut beam = Beam::new(2, 1, 2, 0);
        beam.advance(&[step1.clone(), step1].concat(), vocab);
        assert_eq!(beam.current(), &[3, 4]);
        beam.advance(&[after_a, after_b].concat(), vocab);
        // Rows: "b end" (0.4*0.99) first, then "a a"/"a b" (0.6*0.35).
        assert_eq!(beam.current()[0], 2);
        assert!(!beam.done());
        assert_eq!(beam.best(0.0)[0], vec![4]);
        let mut greedy = Beam::new(1, 1, 2, 0);
        greedy.advance(&log(&[1e-9, 1e-9, 1e-9, 0.6, 0.4]), vocab);
        greedy.advance(&log(&[1e-9, 1e-9, 0.3, 0.35, 0.35]), vocab);
        assert_eq!(greedy.current(), &[3]);
    }

    #[test]
    fn ranked_keeps_the_hypotheses_that_fell_out_of_the_beam() {
        // Vocabulary: 0 pad, 1 start, 2 end, 3 "a", 4 "b". "a end" finishes at step 2 but
        // is not the top row; "b a end" finishes at step 3, "b a a end" at step 4 on top.
        let vocab = 5;
        let row = |end: f32, a: f32, b: f32| log(&[1e-9, 1e-9, end, a, b]);
        let mut beam = Beam::new(2, 1, 2, 0);
        beam.advance(&[row(1e-9, 0.6, 0.4), row(1e-9, 0.6, 0.4)].concat(), vocab);
        beam.advance(&[row(0.5, 0.5, 1e-9), row(0.1, 0.9, 1e-9)].concat(), vocab);
        assert_eq!(beam.current(), &[3, 2], "rows \"b a\" and \"a end\"");
        beam.advance(&[row(0.3, 0.7, 1e-9), row(0.5, 0.5, 1e-9)].concat(), vocab);
        assert!(!beam.done());
        beam.advance(&[row(0.9, 0.1, 1e-9), row(0.5, 0.5, 1e-9)].concat(), vocab);
        assert!(beam.done());
        let ranked = beam.ranked(0.0);
        let tokens: Vec<&Vec<u32>> = ranked.iter().map(|(t, _)| t).collect();
        assert_eq!(tokens, [&vec![3], &vec![4, 3, 3], &vec![4, 3]]);
        let probs: Vec<f32> = ranked.iter().map(|(_, s)| s.exp()).collect();
        for (p, want) in probs.iter().zip([0.3, 0.4 * 0.9 * 0.7 * 0.9, 0.4 * 0.9 * 0.3]) {
            assert!((p - want).abs() < 1e-5, "{probs:?}");
        }
        assert_eq!(beam.best(0.0), vec![vec![3], vec![4, 3, 3]], "best keeps the beam's size");
    }
}
