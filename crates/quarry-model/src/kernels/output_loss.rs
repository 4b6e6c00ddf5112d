//! An output layer tied to the word embeddings followed by the mean token cross-entropy,
//! `mean_r(-log softmax(h_r E^T)[label_r])`, as one CPU operation with its backward pass.
//!
//! Composed, the logits `(rows, vocab)` go through a product with the transposed embedding
//! matrix, a log-softmax of five graph nodes and a gather, and the backward pass gives each
//! of them a zero-filled gradient buffer of the logits' size; the embedding's gradient comes
//! back transposed, `(hidden, vocab)`, and is added to the embedding's through a strided
//! view. Fused, the forward pass is one product and one pass over the rows (the softmax is
//! kept for the backward pass), and the backward pass turns the softmax into the logits'
//! gradient in place and writes both input gradients with two products, the embedding's in
//! its own `(vocab, hidden)` layout.

use std::sync::{Arc, Mutex};

use candle_core::{bail, CpuStorage, CustomOp1, CustomOp2, DType, Device, Layout, Result, Shape, Tensor};
use rayon::prelude::*;

use crate::kernels::attention::with_cpu_f32;
use crate::kernels::fast_math::{exp_fast, lanes, widest_simd};
use crate::kernels::matrix_product::{candle_parallelism, product_into, Operand};
use crate::kernels::ops::{contiguous_f32, zeroed};

/// `dst = lhs . rhs` on candle's threads.
///
/// # Safety
/// As [`product_into`].
unsafe fn product(dims: (usize, usize, usize), dst: *mut f32, dst_rs: usize, lhs: Operand, rhs: Operand) {
    product_into(dims, dst, dst_rs, lhs, rhs, 1.0, false, candle_parallelism())
}

/// Softmax of one row of logits in place; returns the row's log-sum-exp.
#[inline(always)]
fn softmax_row_body(row: &mut [f32]) -> f32 {
    let max = lanes(row, f32::NEG_INFINITY, f32::max).into_iter().fold(f32::NEG_INFINITY, f32::max);
    row.iter_mut().for_each(|x| *x = exp_fast(*x - max));
    let sum: f32 = lanes(row, 0.0, |a, b| a + b).iter().sum();
    let inv = 1.0 / sum;
    row.iter_mut().for_each(|x| *x *= inv);
    max + sum.ln()
}

/// The row-softmax of `probs` (rows of `width`) in place, each row's log-sum-exp into `lse`.
fn softmax_rows_body(probs: &mut [f32], width: usize, lse: &mut [f32]) {
    for (row, l) in probs.chunks_mut(width).zip(lse) {
        *l = softmax_row_body(row);
    }
}

widest_simd! {
    /// [`softmax_rows_body`] for the widest vector instructions the CPU has.
    fn softmax_rows(probs: &mut [f32], width: usize, lse: &mut [f32]) => softmax_rows_body
}

/// The fused operation: `hidden` `(rows, h)` and the tied `weight` `(vocab, h)` to the mean
/// loss of `labels` (one per row).
struct TiedOutputLoss {
    labels: Vec<u32>,
    /// Where the weight's gradient goes instead of back through the graph, when given.
    deposit: Option<TiedGradient>,
    /// The softmax `(rows, vocab)` of the last forward pass, taken by the backward pass.
    probs: Mutex<Option<Vec<f32>>>,
}

impl TiedOutputLoss {
    fn shapes(&self, l1: &Layout, l2: &Layout) -> Result<(usize, usize, usize)> {
        let (rows, h) = l1.shape().dims2()?;
        let (vocab, h2) = l2.shape().dims2()?;
        if h != h2 || rows != self.labels.len() || vocab == 0 {
            bail!("tied-output-loss: states {:?}, weight {:?} and {} labels do not fit", l1.shape(), l2.shape(), rows);
        }
        Ok((rows, h, vocab))
    }
}

impl CustomOp2 for TiedOutputLoss {
    fn name(&self) -> &'static str {
        "tied-output-loss"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let hidden = contiguous_f32(s1, l1, self.name())?;
        let weight = contiguous_f32(s2, l2, self.name())?;
        let (rows, h, vocab) = self.shapes(l1, l2)?;
        if let Some(&bad) = self.labels.iter().find(|&&l| l as usize >= vocab) {
            bail!("tied-output-loss: label {bad} outside the vocabulary of {vocab}");
        }
        let mut probs = zeroed(rows * vocab);
        // SAFETY: `hidden` is `rows x h`, `weight` is `vocab x h` (read as its transpose
        // through the strides), `probs` is `rows x vocab`.
        unsafe {
            product((rows, vocab, h), probs.as_mut_ptr(), vocab, (hidden.as_ptr(), h, 1), (weight.as_ptr(), 1, h))
        };
        let picked: Vec<f32> = self.labels.iter().enumerate().map(|(r, &l)| probs[r * vocab + l as usize]).collect();
        let mut lse = vec![0f32; rows];
        let per_task = (16_384 / vocab).max(1);
        probs
            .par_chunks_mut(per_task * vocab)
            .zip(lse.par_chunks_mut(per_task))
            .for_each(|(p, l)| softmax_rows(p, vocab, l));
        // -log softmax(logits)[label] = lse - logit[label], summed in row order.
        let total: f64 = lse.iter().zip(&picked).map(|(&l, &x)| (l - x) as f64).sum();
        let loss = if rows == 0 { 0.0 } else { (total / rows as f64) as f32 };
        *self.stash()? = Some(probs);
        Ok((CpuStorage::F32(vec![loss]), Shape::from(())))
    }

    fn bwd(
        &self,
        hidden: &Tensor,
        weight: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (need_hidden, need_weight) = (hidden.track_op(), weight.track_op() || self.deposit.is_some());
        let g = grad.to_dtype(DType::F32)?.to_scalar::<f32>()?;
        let hidden = hidden.detach().contiguous()?;
        let weight = weight.detach().contiguous()?;
        let stored = self.stash()?.take();
        let mut dlogits = match stored {
            Some(p) => p,
            None => {
                // A second backward pass over the same graph: recompute the softmax.
                let again = TiedOutputLoss { labels: self.labels.clone(), deposit: None, probs: Mutex::new(None) };
                hidden.apply_op2_no_bwd(&weight, &again)?;
                let p = again.stash()?.take();
                p.ok_or_else(|| candle_core::Error::Msg("tied-output-loss: no softmax kept".into()))?
            }
        };
        let (rows, h) = hidden.dims2()?;
        let vocab = weight.dim(0)?;
        // d logits = (softmax - one_hot(label)) * g / rows.
        let scale = if rows == 0 { 0.0 } else { g / rows as f32 };
        dlogits.par_chunks_mut(vocab).zip(self.labels.par_iter()).for_each(|(row, &label)| {
            row.iter_mut().for_each(|p| *p *= scale);
            row[label as usize] -= scale;
        });
        let dhidden = if need_hidden {
            let mut out = zeroed(rows * h);
            with_cpu_f32(&weight, "tied-output-loss", |w| {
                // SAFETY: `dlogits` is `rows x vocab`, `w` is `vocab x h`, `out` is `rows x h`.
                unsafe {
                    product((rows, h, vocab), out.as_mut_ptr(), h, (dlogits.as_ptr(), vocab, 1), (w.as_ptr(), h, 1))
                }
                Ok(())
            })?;
            Some(Tensor::from_vec(out, (rows, h), &Device::Cpu)?)
        } else {
            None
        };
        let dweight = if need_weight {
            let mut out = zeroed(vocab * h);
            with_cpu_f32(&hidden, "tied-output-loss", |x| {
                // SAFETY: `dlogits` read as its transpose `vocab x rows`, `x` is `rows x h`,
                // `out` is `vocab x h`.
                unsafe {
                    product((vocab, h, rows), out.as_mut_ptr(), h, (dlogits.as_ptr(), 1, vocab), (x.as_ptr(), h, 1))
                }
                Ok(())
            })?;
            match &self.deposit {
                Some(d) => {
                    d.add(out)?;
                    None
                }
                None => Some(Tensor::from_vec(out, (vocab, h), &Device::Cpu)?),
            }
        } else {
            None
        };
        Ok((dhidden, dweight))
    }
}

impl TiedOutputLoss {
    fn stash(&self) -> Result<std::sync::MutexGuard<'_, Option<Vec<f32>>>> {
        self.probs.lock().map_err(|_| candle_core::Error::Msg("tied-output-loss: softmax store poisoned".into()))
    }
}

/// The gradient of a word-embedding table gathered from its uses in one buffer, so that the
/// table gets one gradient `(vocab, hidden)` instead of one per use added together (each a
/// zero-filled or copied table-sized buffer in candle's backward pass). The output layer
/// ([`tied_output_loss_into`]) deposits its gradient here; every word lookup made with it
/// ([`tied_rows`]) adds its rows, and the last of them to run its backward pass hands the
/// sum to the graph. The loss's backward pass runs before the lookups' (the loss depends on
/// their outputs); every lookup made with one `TiedGradient` must be part of the graph that
/// reaches the loss, or the table's gradient is never handed over.
#[derive(Clone, Default)]
pub(crate) struct TiedGradient(Arc<Mutex<Gathered>>);

/// What a [`TiedGradient`] holds.
#[derive(Default)]
struct Gathered {
    sum: Option<Vec<f32>>,
    /// Lookups made with it.
    lookups: usize,
    /// Lookups whose backward pass has not run yet (in this backward pass).
    waiting: usize,
}

impl TiedGradient {
    fn state(&self) -> Result<std::sync::MutexGuard<'_, Gathered>> {
        self.0.lock().map_err(|_| candle_core::Error::Msg("tied gradient store poisoned".into()))
    }

    /// Adds `g` to the gathered gradient.
    fn add(&self, g: Vec<f32>) -> Result<()> {
        let mut state = self.state()?;
        match state.sum.as_mut() {
            Some(acc) if acc.len() == g.len() => acc.iter_mut().zip(&g).for_each(|(a, b)| *a += b),
            Some(_) => bail!("tied gradient: buffers of different sizes"),
            None => state.sum = Some(g),
        }
        Ok(())
    }

    /// Counts one more lookup.
    fn register(&self) -> Result<()> {
        let mut state = self.state()?;
        state.lookups += 1;
        state.waiting += 1;
        Ok(())
    }
}

/// Rows of the table `weight` `(vocab, h)` at `ids` (u32, any shape), shape `ids.dims() + (h,)`,
/// whose backward pass returns the table's gradient gathered in `gathered` plus its own rows.
struct TiedRows {
    ids: Vec<u32>,
    gathered: TiedGradient,
}

impl CustomOp1 for TiedRows {
    fn name(&self) -> &'static str {
        "tied-rows"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let w = contiguous_f32(storage, layout, self.name())?;
        let (vocab, h) = layout.shape().dims2()?;
        let mut out = Vec::with_capacity(self.ids.len() * h);
        for &id in &self.ids {
            if id as usize >= vocab {
                bail!("tied-rows: id {id} outside the vocabulary of {vocab}");
            }
            out.extend_from_slice(&w[id as usize * h..(id as usize + 1) * h]);
        }
        Ok((CpuStorage::F32(out), Shape::from((self.ids.len(), h))))
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let (vocab, h) = arg.dims2()?;
        let grad = grad.contiguous()?;
        let mut state = self.gathered.state()?;
        let mut table = match state.sum.take() {
            Some(t) if t.len() == vocab * h => t,
            Some(_) => bail!("tied-rows: the gathered gradient does not fit the table"),
            None => zeroed(vocab * h),
        };
        with_cpu_f32(&grad, "tied-rows", |g| {
            // In row order: the sums do not depend on the thread count.
            for (r, &id) in self.ids.iter().enumerate() {
                let dst = &mut table[id as usize * h..(id as usize + 1) * h];
                dst.iter_mut().zip(&g[r * h..(r + 1) * h]).for_each(|(d, &x)| *d += x);
            }
            Ok(())
        })?;
        state.waiting = state.waiting.saturating_sub(1);
        if state.waiting > 0 {
            state.sum = Some(table);
            return Ok(None);
        }
        // The last lookup: the sum goes to the table, and a further backward pass over the
        // same graph starts counting again.
        state.waiting = state.lookups;
        Ok(Some(Tensor::from_vec(table, (vocab, h), &Device::Cpu)?))
    }
}

/// The word vectors of `ids` `(batch, seq)` from the table `weight` `(vocab, h)`, shape
/// `(batch, seq, h)`. On the CPU in f32 with a tracked table, the lookup's gradient goes into
/// `gathered`, and the last lookup made with it to run its backward pass returns the sum
/// ([`TiedGradient`]); elsewhere it is an ordinary lookup and `gathered` stays unused.
pub(crate) fn tied_rows(weight: &Tensor, ids: &Tensor, gathered: &TiedGradient) -> crate::error::Result<Tensor> {
    let (b, s) = ids.dims2()?;
    let (vocab, h) = weight.dims2()?;
    let flat = ids.to_dtype(DType::U32)?.flatten_all()?;
    let list = flat.to_vec1::<u32>()?;
    if let Some(&bad) = list.iter().find(|&&l| l as usize >= vocab) {
        return Err(crate::error::ModelError::Data(format!("token id {bad} outside the vocabulary of {vocab}")));
    }
    if weight.device().is_cpu() && weight.dtype() == DType::F32 && weight.track_op() {
        gathered.register()?;
        let op = TiedRows { ids: list, gathered: gathered.clone() };
        return Ok(weight.contiguous()?.apply_op1(op)?.reshape((b, s, h))?);
    }
    Ok(weight.index_select(&flat, 0)?.reshape((b, s, h))?)
}

/// Whether [`tied_output_loss_into`] and [`tied_rows`] gather the table's gradient for this
/// table: f32 on the CPU, tracked.
pub(crate) fn gathers(weight: &Tensor) -> bool {
    weight.device().is_cpu() && weight.dtype() == DType::F32 && weight.track_op()
}

/// [`tied_output_loss`] whose gradient for `weight`, when `gather` is given and the fused
/// operation applies ([`gathers`]), goes into `gather` instead of back through the graph:
/// the word lookup that reads the same table ([`tied_rows`] with the same `gather`) must
/// then be part of the graph that reaches the loss, and hands the sum to the table.
pub(crate) fn tied_output_loss_into(
    hidden: &Tensor,
    weight: &Tensor,
    labels: &[u32],
    gather: Option<&TiedGradient>,
) -> crate::error::Result<Tensor> {
    match gather {
        Some(g) if gathers(weight) && hidden.device().is_cpu() && hidden.dtype() == DType::F32 => {
            check_labels(hidden, weight, labels)?;
            let op = TiedOutputLoss { labels: labels.to_vec(), deposit: Some(g.clone()), probs: Mutex::new(None) };
            Ok(hidden.contiguous()?.apply_op2(&weight.detach(), op)?)
        }
        _ => tied_output_loss(hidden, weight, labels),
    }
}

fn check_labels(hidden: &Tensor, weight: &Tensor, labels: &[u32]) -> crate::error::Result<()> {
    let (rows, _) = hidden.dims2()?;
    let vocab = weight.dim(0)?;
    if labels.len() != rows {
        return Err(crate::error::ModelError::Data(format!("{} labels for {rows} output rows", labels.len())));
    }
    if let Some(&bad) = labels.iter().find(|&&l| l as usize >= vocab) {
        return Err(crate::error::ModelError::Data(format!("label {bad} outside the vocabulary of {vocab}")));
    }
    Ok(())
}

/// The mean token cross-entropy of the output layer tied to `weight` `(vocab, h)` (the word
/// embeddings) over the decoder states `hidden` `(rows, h)`, with one label per row:
/// `mean_r(-log softmax(hidden_r weight^T)[label_r])`, a scalar. One fused operation for f32
/// on the CPU (gradients reach `hidden` and, when it is tracked, `weight`); the product and
/// [`crate::nn::heads::cross_entropy`] elsewhere.
pub(crate) fn tied_output_loss(hidden: &Tensor, weight: &Tensor, labels: &[u32]) -> crate::error::Result<Tensor> {
    check_labels(hidden, weight, labels)?;
    let rows = labels.len();
    let f32s = hidden.dtype() == DType::F32 && weight.dtype() == DType::F32;
    if hidden.device().is_cpu() && f32s {
        let op = TiedOutputLoss { labels: labels.to_vec(), deposit: None, probs: Mutex::new(None) };
        return Ok(hidden.contiguous()?.apply_op2(&weight.contiguous()?, op)?);
    }
    let logits = hidden.matmul(&weight.t()?)?;
    let labels = Tensor::from_vec(labels.iter().map(|&l| l as i64).collect::<Vec<_>>(), rows, hidden.device())?;
    crate::nn::heads::cross_entropy(&logits, &labels, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Shape, Var};

    fn sample(shape: &[usize], seed: u64, std: f64) -> Var {
        let rng = crate::nn::rng::SeededRng::new(seed);
        Var::from_tensor(&rng.normal(&Shape::from(shape), std, &Device::Cpu).unwrap()).unwrap()
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    #[test]
    fn matches_the_composed_loss_with_gradients() {
        let hidden = sample(&[7, 24], 1, 1.0);
        let weight = sample(&[1000, 24], 2, 0.5);
        let labels: Vec<u32> = vec![0, 999, 17, 17, 500, 3, 250];
        let fused = tied_output_loss(hidden.as_tensor(), weight.as_tensor(), &labels).unwrap();
        let logits = hidden.as_tensor().matmul(&weight.as_tensor().t().unwrap()).unwrap();
        let ids = Tensor::from_vec(labels.iter().map(|&l| l as i64).collect::<Vec<_>>(), 7, &Device::Cpu).unwrap();
        let composed = crate::nn::heads::cross_entropy(&logits, &ids, None).unwrap();
        assert_eq!(fused.dims(), composed.dims());
        assert!(max_diff(&fused, &composed) < 1e-5, "{fused} vs {composed}");
        // A scale on the loss reaches the gradients, as the training loss's mean would.
        let g1 = (fused * 3.0).unwrap().backward().unwrap();
        let g2 = (composed * 3.0).unwrap().backward().unwrap();
        for v in [&hidden, &weight] {
            let (a, b) = (g1.get(v.as_tensor()).unwrap(), g2.get(v.as_tensor()).unwrap());
            assert_eq!(a.dims(), b.dims());
            let d = max_diff(a, b);
            assert!(d < 1e-5, "gradient difference {d}");
        }
    }

    #[test]
    fn a_gathered_table_gradient_equals_the_sum_of_its_uses() {
        let weight = sample(&[40, 6], 7, 1.0);
        let other = sample(&[6, 6], 8, 1.0);
        let ids = Tensor::new(&[[3u32, 5, 3], [39, 0, 5]], &Device::Cpu).unwrap();
        let ids2 = Tensor::new(&[[5u32, 1, 2], [3, 3, 38]], &Device::Cpu).unwrap();
        let labels = [1u32, 2, 3, 5, 39, 0];
        let run = |gathered: bool| {
            let g = TiedGradient::default();
            // Two lookups (a source and a target) and the output layer share the table.
            let lookup = |ids: &Tensor| {
                if gathered {
                    tied_rows(weight.as_tensor(), ids, &g).unwrap()
                } else {
                    weight.as_tensor().index_select(&ids.flatten_all().unwrap(), 0).unwrap().reshape((2, 3, 6)).unwrap()
                }
            };
            let rows = (lookup(&ids) + lookup(&ids2).sqr().unwrap()).unwrap();
            let hidden = rows.reshape((6, 6)).unwrap().matmul(other.as_tensor()).unwrap().tanh().unwrap();
            let loss = if gathered {
                tied_output_loss_into(&hidden, weight.as_tensor(), &labels, Some(&g)).unwrap()
            } else {
                tied_output_loss(&hidden, weight.as_tensor(), &labels).unwrap()
            };
            let grads = loss.backward().unwrap();
            (loss, grads.get(weight.as_tensor()).unwrap().clone(), grads.get(other.as_tensor()).unwrap().clone())
        };
        let (l1, w1, o1) = run(true);
        let (l2, w2, o2) = run(false);
        // A second backward pass over a gathered graph hands over the same gradient.
        let g = TiedGradient::default();
        let rows = (tied_rows(weight.as_tensor(), &ids, &g).unwrap() * 2.0).unwrap();
        let loss =
            tied_output_loss_into(&rows.reshape((6, 6)).unwrap(), weight.as_tensor(), &labels, Some(&g)).unwrap();
        let (a, b) = (loss.backward().unwrap(), loss.backward().unwrap());
        assert!(max_diff(a.get(weight.as_tensor()).unwrap(), b.get(weight.as_tensor()).unwrap()) == 0.0);
        assert!(max_diff(&l1, &l2) == 0.0);
        assert!(max_diff(&w1, &w2) < 1e-6, "{}", max_diff(&w1, &w2));
        assert!(max_diff(&o1, &o2) < 1e-6);
        assert!(tied_rows(
            weight.as_tensor(),
            &Tensor::new(&[[40u32]], &Device::Cpu).unwrap(),
            &TiedGradient::default()
        )
        .is_err());
    }

    #[test]
    fn a_fixed_weight_gets_no_gradient_and_bad_labels_are_errors() {
        let hidden = sample(&[3, 8], 3, 1.0);
        let weight = sample(&[50, 8], 4, 1.0).as_tensor().detach();
        let loss = tied_output_loss(hidden.as_tensor(), &weight, &[1, 2, 3]).unwrap();
        let grads = loss.backward().unwrap();
        assert!(grads.get(&weight).is_none());
        assert!(grads.get(hidden.as_tensor()).is_some());
        assert!(tied_output_loss(hidden.as_tensor(), &weight, &[1, 2, 50]).is_err());
        assert!(tied_output_loss(hidden.as_tensor(), &weight, &[1, 2]).is_err());
    }

    #[test]
    fn a_second_backward_pass_recomputes_the_softmax() {
        let hidden = sample(&[4, 8], 5, 1.0);
        let weight = sample(&[60, 8], 6, 1.0);
        let loss = tied_output_loss(hidden.as_tensor(), weight.as_tensor(), &[0, 1, 2, 59]).unwrap();
        let first = loss.backward().unwrap();
        let second = loss.backward().unwrap();
        for v in [&hidden, &weight] {
            assert!(max_diff(first.get(v.as_tensor()).unwrap(), second.get(v.as_tensor()).unwrap()) == 0.0);
        }
    }
}
