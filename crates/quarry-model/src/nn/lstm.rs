//! Stacked LSTM layers, uni- or bidirectional, over right-padded batches (CodeQA's recurrent
//! baselines). Gates in PyTorch's order (i, f, g, o); each direction's input products for
//! all positions are one matrix product, then one recurrent product and one fused cell
//! ([`crate::kernels::lstm_cell`]) per position. A backward direction reads each sequence
//! reversed within its own length, so padding never precedes a real token.
//!
//! candle-nn's `rnn::LSTM` steps one position at a time with both products inside the step
//! and takes its weights from a `VarBuilder`; this one takes them from quarry's
//! [`ParamStore`] (seeded initialization, checkpoints, the optimizer) and hoists the input
//! products out of the loop.

use candle_core::{Tensor, D};

use crate::error::Result;
use crate::kernels::lstm_cell::{lstm_cell, lstm_sequence};
use crate::nn::layers::{Dropout, Linear, Param, INIT_STD};
use crate::nn::params::{Init, ParamStore};

/// One direction of one layer: `{prefix}.input` (input products and the bias) and
/// `{prefix}.weight_hh` (the recurrent product).
struct Direction {
    input: Linear,
    recurrent: Param,
    hidden: usize,
}

impl Direction {
    fn new(store: &mut ParamStore, prefix: &str, input: usize, hidden: usize, required: bool) -> Result<Self> {
        let linear = Linear::new(store, &format!("{prefix}.input"), input, 4 * hidden, required)?;
        let recurrent =
            store.get(&format!("{prefix}.weight_hh"), (4 * hidden, hidden), Init::Normal(INIT_STD), required)?;
        Ok(Direction { input: linear, recurrent: Param::new(recurrent), hidden })
    }

    /// One step: the new `(h, c)` from the input products `xw` `(n, 4h)` and the state.
    fn step(&self, xw: &Tensor, h: &Tensor, c: &Tensor, train: bool) -> Result<(Tensor, Tensor)> {
        let pre = (xw + h.matmul(&self.recurrent.get(train).t()?)?)?;
        let both = lstm_cell(&pre, c)?;
        Ok((both.narrow(D::Minus1, 0, self.hidden)?, both.narrow(D::Minus1, self.hidden, self.hidden)?))
    }

    /// Runs over `x` `(b, s, in)` from `init` (zeros when `None`): every position's hidden
    /// state `(b, s, h)`, and the `(h, c)` after each row's last real position `lengths[r]-1`.
    fn run(
        &self,
        x: &Tensor,
        lengths: &[usize],
        init: Option<&(Tensor, Tensor)>,
        train: bool,
    ) -> Result<(Tensor, (Tensor, Tensor))> {
        let (b, s, _) = x.dims3()?;
        let xw = self.input.forward(x, train)?;
        let start = match init {
            Some((h, c)) => Tensor::cat(&[h, c], D::Minus1)?,
            None => Tensor::zeros((b, 2 * self.hidden), x.dtype(), x.device())?,
        };
        let all = lstm_sequence(&xw, self.recurrent.get(train), &start)?;
        let outputs = all.narrow(D::Minus1, 0, self.hidden)?;
        // Each row's state after its last real position.
        let last: Vec<u32> = lengths.iter().enumerate().map(|(r, &l)| (r * s + l.clamp(1, s) - 1) as u32).collect();
        let last = Tensor::from_vec(last, b, x.device())?;
        let finals = all.reshape((b * s, 2 * self.hidden))?.index_select(&last, 0)?;
        let (h, c) = (finals.narrow(1, 0, self.hidden)?, finals.narrow(1, self.hidden, self.hidden)?);
        Ok((outputs, (h, c)))
    }
}

/// What [`Lstm::forward`] returns.
pub(crate) struct LstmOutput {
    /// The last layer's states at every position `(b, s, directions * hidden)`; padding
    /// positions hold values that must be masked.
    pub outputs: Tensor,
    /// Per layer, the final `(h, c)` of each row `(b, directions * hidden)`: the forward
    /// direction's after the last real token, the backward one's after the first.
    pub finals: Vec<(Tensor, Tensor)>,
}

/// A stack of LSTM layers, with dropout between layers in training.
pub(crate) struct Lstm {
    layers: Vec<Vec<Direction>>,
    dropout: Dropout,
}

impl Lstm {
    /// Loads or initializes `layers` layers under `{prefix}.l{i}` (`{prefix}.l{i}_reverse`
    /// for the backward direction), each direction `hidden` wide.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        store: &mut ParamStore,
        prefix: &str,
        layers: usize,
        input: usize,
        hidden: usize,
        bidirectional: bool,
        dropout: f64,
        required: bool,
    ) -> Result<Self> {
        let dirs = if bidirectional { 2 } else { 1 };
        let mut stack = Vec::with_capacity(layers);
        for l in 0..layers {
            let width = if l == 0 { input } else { dirs * hidden };
            let mut both = vec![Direction::new(store, &format!("{prefix}.l{l}"), width, hidden, required)?];
            if bidirectional {
                both.push(Direction::new(store, &format!("{prefix}.l{l}_reverse"), width, hidden, required)?);
            }
            stack.push(both);
        }
        Ok(Lstm { layers: stack, dropout: Dropout::new(dropout, store.rng().clone()) })
    }

    /// Runs every layer over `x` `(b, s, input)`, whose row `r` is real up to `lengths[r]`;
    /// `init` gives each layer's starting `(h, c)` (unidirectional stacks only).
    pub(crate) fn forward(
        &self,
        x: &Tensor,
        lengths: &[usize],
        init: Option<&[(Tensor, Tensor)]>,
        train: bool,
    ) -> Result<LstmOutput> {
        let (b, s, _) = x.dims3()?;
        // Row r's positions reversed within its length, as indices into the flattened batch.
        let reverse: Vec<u32> = (0..b)
            .flat_map(|r| {
                let l = lengths[r].min(s);
                (0..s).map(move |t| (r * s + if t < l { l - 1 - t } else { t }) as u32)
            })
            .collect();
        let reverse = Tensor::from_vec(reverse, b * s, x.device())?;
        let flip = |t: &Tensor| -> Result<Tensor> {
            let width = t.dim(2)?;
            Ok(t.reshape((b * s, width))?.index_select(&reverse, 0)?.reshape((b, s, width))?)
        };
        let mut input = x.clone();
        let mut finals = Vec::with_capacity(self.layers.len());
        for (l, dirs) in self.layers.iter().enumerate() {
            if l > 0 {
                input = self.dropout.forward(&input, train)?;
            }
            let start = init.map(|states| &states[l]);
            let (forward, (h, c)) = dirs[0].run(&input, lengths, start, train)?;
            match dirs.get(1) {
                Some(back) => {
                    let (backward, (hb, cb)) = back.run(&flip(&input)?, lengths, None, train)?;
                    input = Tensor::cat(&[forward, flip(&backward)?], D::Minus1)?;
                    finals.push((Tensor::cat(&[h, hb], D::Minus1)?, Tensor::cat(&[c, cb], D::Minus1)?));
                }
                None => {
                    input = forward;
                    finals.push((h, c));
                }
            }
        }
        Ok(LstmOutput { outputs: input, finals })
    }

    /// One step of a unidirectional stack for `x` `(n, input)` from `state` (per layer
    /// `(h, c)`): the last layer's output `(n, hidden)` and the new state.
    pub(crate) fn step(
        &self,
        x: &Tensor,
        state: &[(Tensor, Tensor)],
        train: bool,
    ) -> Result<(Tensor, Vec<(Tensor, Tensor)>)> {
        let mut input = x.clone();
        let mut next = Vec::with_capacity(state.len());
        for (l, (dirs, (h, c))) in self.layers.iter().zip(state).enumerate() {
            if l > 0 {
                input = self.dropout.forward(&input, train)?;
            }
            let xw = dirs[0].input.forward(&input, train)?;
            let (h, c) = dirs[0].step(&xw, h, c, train)?;
            input = h.clone();
            next.push((h, c));
        }
        Ok((input, next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::bert::seeded;
    use candle_core::{Device, IndexOp};

    #[test]
    fn padding_changes_nothing_and_steps_equal_the_whole_run() {
        let dev = Device::Cpu;
        let mut store = ParamStore::random(seeded(1), &dev);
        let bi = Lstm::new(&mut store, "enc", 2, 3, 4, true, 0.0, false).unwrap();
        let x = Tensor::randn(0f32, 1.0, (1, 5, 3), &dev).unwrap();
        let alone = bi.forward(&x.narrow(1, 0, 3).unwrap(), &[3], None, false).unwrap();
        let padded = bi.forward(&x, &[3], None, false).unwrap();
        let v = |t: &Tensor| t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let close = |a: Vec<f32>, b: Vec<f32>| a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(v(&alone.outputs), v(&padded.outputs.narrow(1, 0, 3).unwrap())));
        for (a, p) in alone.finals.iter().zip(&padded.finals) {
            assert!(close(v(&a.0), v(&p.0)) && close(v(&a.1), v(&p.1)));
        }
        let uni = Lstm::new(&mut store, "dec", 2, 3, 4, false, 0.0, false).unwrap();
        let zeros = Tensor::zeros((1, 4), candle_core::DType::F32, &dev).unwrap();
        let init = vec![(zeros.clone(), zeros.clone()), (zeros.clone(), zeros)];
        let whole = uni.forward(&x, &[5], Some(&init), false).unwrap();
        let mut state = init;
        for t in 0..5 {
            let (out, next) = uni.step(&x.i((.., t)).unwrap(), &state, false).unwrap();
            assert!(close(v(&out), v(&whole.outputs.i((.., t)).unwrap())));
            state = next;
        }
    }
}
