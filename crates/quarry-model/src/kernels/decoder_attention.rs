//! Fused multi-head attention of queries over separate keys and values on the CPU, with its
//! backward pass: the decoder's causal self-attention and its cross-attention over the
//! encoder output (queries and keys of different lengths).
//!
//! The sibling of [`crate::kernels::attention`]'s self-attention kernel: the queries `(batch, t,
//! hidden)` and the keys and values side by side `(batch, s, 2 * hidden)` stay where their
//! projections put them, one task per (sequence, head) multiplies its column blocks in
//! place, adds the causal mask and the key padding bias, applies the softmax and the
//! dropout of the probabilities (drawn from the key inside the task, as [`crate::kernels::dropout`]
//! lays the mask out over `(batch, heads, t, s)`), and writes its block of the context. The
//! backward pass recomputes the probabilities instead of keeping them.
//!
//! The arithmetic is that of the composed decoder attention, `softmax(scale q k^T + causal +
//! bias) v` with `scale = 1 / sqrt(head_dim)` and run.py's causal mask, `-1e4` on the scores
//! of later positions.

use candle_core::{bail, CpuStorage, CustomOp2, CustomOp3, Layout, Result, Shape, Tensor};

use crate::kernels::attention::{for_each_block_task, softmax_rows, with_cpu_f32, SharedMut};
use crate::kernels::dropout::DropoutKey;
use crate::kernels::matrix_product::product;
use crate::kernels::ops::{contiguous_f32, contiguous_f32_3, zeroed};

/// run.py's causal mask value, added to the scores of keys after the query's position.
const CAUSAL: f32 = -1e4;

/// The geometry of one call: queries `(batch, t, hidden)`, keys and values `(batch, s, 2 hidden)`.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    batch: usize,
    t: usize,
    s: usize,
    heads: usize,
    head_dim: usize,
}

impl Geometry {
    fn hidden(&self) -> usize {
        self.heads * self.head_dim
    }

    /// Offset of task `k`'s block in the queries, the context and their gradients.
    fn q_offset(&self, k: usize) -> usize {
        (k / self.heads) * self.t * self.hidden() + (k % self.heads) * self.head_dim
    }

    /// Offset of task `k`'s key block (`which` 0) or value block (1) in the keys and values.
    fn kv_offset(&self, k: usize, which: usize) -> usize {
        (k / self.heads) * self.s * 2 * self.hidden() + which * self.hidden() + (k % self.heads) * self.head_dim
    }

    fn tasks(&self) -> usize {
        self.batch * self.heads
    }
}

/// Constants of one call: heads, key bias, the causal mask and the probabilities' dropout.
#[derive(Clone)]
struct Spec {
    heads: usize,
    /// `(batch, s)`: 0 for keys to use, a large negative for padding.
    bias: Tensor,
    causal: bool,
    dropout: Option<DropoutKey>,
}

impl Spec {
    fn geometry(&self, q: &Layout, kv: &Layout, name: &str) -> Result<Geometry> {
        let (batch, t, hidden) = q.shape().dims3()?;
        let (b2, s, width) = kv.shape().dims3()?;
        if self.heads == 0 || hidden % self.heads != 0 || width != 2 * hidden || b2 != batch {
            bail!("{name}: queries {:?} and keys/values {:?} do not fit {} heads", q.shape(), kv.shape(), self.heads);
        }
        if self.bias.dims() != [batch, s] {
            bail!("{name}: key bias {:?} does not fit ({batch}, {s})", self.bias.dims());
        }
        if self.causal && t != s {
            bail!("{name}: a causal mask needs as many queries as keys, not {t} and {s}");
        }
        Ok(Geometry { batch, t, s, heads: self.heads, head_dim: hidden / self.heads })
    }

    /// Runs `run` for every (sequence, head) task in parallel with `t x s` blocks
    /// ([`for_each_block_task`]).
    fn for_each_task(&self, g: Geometry, buffers: usize, run: impl Fn(usize, Option<&[f32]>, &mut [f32]) + Sync) {
        for_each_block_task(g.tasks(), g.t * g.s, buffers, self.dropout, run)
    }

    /// `probs (t x s) = softmax(scale q k^T + causal + bias)` of task `k`.
    ///
    /// # Safety
    /// `q` and `kv` must hold the whole query and key/value tensors of `g`.
    unsafe fn probabilities(&self, g: Geometry, k: usize, q: &[f32], kv: &[f32], bias: &[f32], probs: &mut [f32]) {
        let (t, s, d, h) = (g.t, g.s, g.head_dim, g.hidden());
        let scale = 1.0 / (d as f32).sqrt();
        let qp = q.as_ptr().add(g.q_offset(k));
        let kp = kv.as_ptr().add(g.kv_offset(k, 0));
        // k^T (d x s): element (c, j) is k[j][c].
        product((t, s, d), probs.as_mut_ptr(), s, (qp, h, 1), (kp, 1, 2 * h), scale);
        if self.causal {
            for (i, row) in probs.chunks_mut(s).enumerate() {
                row[i + 1..].iter_mut().for_each(|p| *p += CAUSAL);
            }
        }
        let b = k / g.heads;
        softmax_rows(probs, &bias[b * s..(b + 1) * s]);
    }
}

struct Attention {
    spec: Spec,
}

impl CustomOp2 for Attention {
    fn name(&self) -> &'static str {
        "fused-decoder-attention"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let q = contiguous_f32(s1, l1, self.name())?;
        let kv = contiguous_f32(s2, l2, self.name())?;
        let g = self.spec.geometry(l1, l2, self.name())?;
        let (t, s, d, h) = (g.t, g.s, g.head_dim, g.hidden());
        let mut out = zeroed(g.batch * t * h);
        let dst = SharedMut(out.as_mut_ptr());
        with_cpu_f32(&self.spec.bias, self.name(), |bias| {
            let run = |k: usize, drop: Option<&[f32]>, probs: &mut [f32]| {
                let probs = &mut probs[..t * s];
                // SAFETY: `q` and `kv` are whole tensors of geometry `g`; task `k` writes only
                // its own block of `out` (rows of sequence k / heads, columns of head k % heads).
                unsafe {
                    self.spec.probabilities(g, k, q, kv, bias, probs);
                    if let Some(m) = drop {
                        probs.iter_mut().zip(m).for_each(|(p, m)| *p *= m);
                    }
                    let v = kv.as_ptr().add(g.kv_offset(k, 1));
                    product((t, d, s), dst.ptr().add(g.q_offset(k)), h, (probs.as_ptr(), s, 1), (v, 2 * h, 1), 1.0);
                }
            };
            self.spec.for_each_task(g, 1, run);
            Ok(())
        })?;
        Ok((CpuStorage::F32(out), Shape::from((g.batch, t, h))))
    }

    fn bwd(&self, q: &Tensor, kv: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let grad = grad.contiguous()?;
        let both = q.detach().apply_op3_no_bwd(&kv.detach(), &grad, &AttentionGrad { spec: self.spec.clone() })?;
        let nq = q.elem_count();
        let dq = both.narrow(0, 0, nq)?.reshape(q.shape())?;
        let dkv = both.narrow(0, nq, kv.elem_count())?.reshape(kv.shape())?;
        Ok((Some(dq), Some(dkv)))
    }
}

/// The gradients of the queries and of the keys and values, one flat buffer `[dq, dkv]`,
/// from the gradient of the context `(batch, t, hidden)`.
struct AttentionGrad {
    spec: Spec,
}

impl CustomOp3 for AttentionGrad {
    fn name(&self) -> &'static str {
        "fused-decoder-attention-grad"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let [q, kv, dctx] = contiguous_f32_3((s1, l1), (s2, l2), (s3, l3), self.name())?;
        let g = self.spec.geometry(l1, l2, self.name())?;
        if l3.shape() != l1.shape() {
            bail!("{}: gradient {:?} does not fit the queries {:?}", self.name(), l3.shape(), l1.shape());
        }
        let (t, s, d, h) = (g.t, g.s, g.head_dim, g.hidden());
        let scale = 1.0 / (d as f32).sqrt();
        let mut out = zeroed(q.len() + kv.len());
        let dst = SharedMut(out.as_mut_ptr());
        let dkv_start = q.len();
        with_cpu_f32(&self.spec.bias, self.name(), |bias| {
            let run = |k: usize, drop: Option<&[f32]>, scratch: &mut [f32]| {
                let (probs, rest) = scratch.split_at_mut(t * s);
                let (dprobs, dropped) = rest.split_at_mut(t * s);
                let dropped = &mut dropped[..t * s];
                // SAFETY: `q`, `kv` and `dctx` are whole tensors of the checked shapes; task `k`
                // writes only its own blocks of dq, dk and dv in `out`.
                unsafe {
                    self.spec.probabilities(g, k, q, kv, bias, probs);
                    let qp = q.as_ptr().add(g.q_offset(k));
                    let kp = kv.as_ptr().add(g.kv_offset(k, 0));
                    let vp = kv.as_ptr().add(g.kv_offset(k, 1));
                    let dc = dctx.as_ptr().add(g.q_offset(k));
                    let dq = dst.ptr().add(g.q_offset(k));
                    let dk = dst.ptr().add(dkv_start + g.kv_offset(k, 0));
                    let dv = dst.ptr().add(dkv_start + g.kv_offset(k, 1));
                    // d(dropped probs) (t x s) = dctx v^T.
                    product((t, s, d), dprobs.as_mut_ptr(), s, (dc, h, 1), (vp, 1, 2 * h), 1.0);
                    // dv (s x d) = (dropped probs)^T dctx.
                    match drop {
                        Some(m) => {
                            dropped.iter_mut().zip(probs.iter().zip(m)).for_each(|(o, (p, m))| *o = p * m);
                            product((s, d, t), dv, 2 * h, (dropped.as_ptr(), 1, s), (dc, h, 1), 1.0);
                            dprobs.iter_mut().zip(m).for_each(|(dp, m)| *dp *= m);
                        }
                        None => product((s, d, t), dv, 2 * h, (probs.as_ptr(), 1, s), (dc, h, 1), 1.0),
                    }
                    // d(scores) = probs * (dprobs - sum(dprobs * probs)), row by row.
                    for (dprow, prow) in dprobs.chunks_mut(s).zip(probs.chunks(s)) {
                        let dot: f32 = dprow.iter().zip(prow.iter()).map(|(a, b)| a * b).sum();
                        dprow.iter_mut().zip(prow).for_each(|(dp, p)| *dp = p * (*dp - dot));
                    }
                    // dq (t x d) = scale dscores k; dk (s x d) = scale dscores^T q.
                    product((t, d, s), dq, h, (dprobs.as_ptr(), s, 1), (kp, 2 * h, 1), scale);
                    product((s, d, t), dk, 2 * h, (dprobs.as_ptr(), 1, s), (qp, h, 1), scale);
                }
            };
            self.spec.for_each_task(g, 3, run);
            Ok(())
        })?;
        Ok((CpuStorage::F32(out), Shape::from(q.len() + kv.len())))
    }
}

/// Multi-head attention `softmax(q k^T / sqrt(head_dim) + causal + bias) v` with the heads
/// merged back, `(batch, t, hidden)`, from the queries `q` `(batch, t, hidden)` and the keys
/// and values side by side `kv` `(batch, s, 2 * hidden)`, on the CPU in f32. `key_bias`
/// `(batch, s)` is 0 for keys to use and a large negative for padding; `causal` (needs
/// `t == s`) adds run.py's `-1e4` to the scores of later positions; `dropout`, when given,
/// is the mask of the `(batch, heads, t, s)` probabilities. Gradients reach `q` and `kv`.
pub(crate) fn attention(
    q: &Tensor,
    kv: &Tensor,
    heads: usize,
    key_bias: &Tensor,
    causal: bool,
    dropout: Option<DropoutKey>,
) -> Result<Tensor> {
    let spec = Spec { heads, bias: key_bias.detach().contiguous()?, causal, dropout };
    q.contiguous()?.apply_op2(&kv.contiguous()?, Attention { spec })
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var, D};

    /// The same attention composed of candle operations, as the decoder composes it.
    fn composed(q: &Tensor, kv: &Tensor, heads: usize, bias: &Tensor, causal: bool, drop: Option<&Tensor>) -> Tensor {
        let (b, t, h) = q.dims3().unwrap();
        let s = kv.dim(1).unwrap();
        let d = h / heads;
        let split =
            |x: &Tensor, n: usize| x.reshape((b, n, heads, d)).unwrap().transpose(1, 2).unwrap().contiguous().unwrap();
        let qh = split(&(q * (1.0 / (d as f64).sqrt())).unwrap(), t);
        let k = split(&kv.narrow(2, 0, h).unwrap(), s);
        let v = split(&kv.narrow(2, h, h).unwrap(), s);
        let mut scores = qh.matmul(&k.t().unwrap()).unwrap();
        if causal {
            let c: Vec<f32> = (0..t).flat_map(|i| (0..s).map(move |j| if j <= i { 0.0 } else { -1e4 })).collect();
            scores = scores.broadcast_add(&Tensor::from_vec(c, (t, s), q.device()).unwrap()).unwrap();
        }
        let scores = scores.broadcast_add(&bias.reshape((b, 1, 1, s)).unwrap()).unwrap();
        let mut probs = candle_nn::ops::softmax(&scores, D::Minus1).unwrap();
        if let Some(m) = drop {
            probs = (probs * m).unwrap();
        }
        probs.matmul(&v).unwrap().transpose(1, 2).unwrap().reshape((b, t, h)).unwrap()
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    #[test]
    fn matches_composed_attention_with_gradients() {
        let dev = Device::Cpu;
        let rng = crate::nn::rng::SeededRng::new(9);
        let (b, heads, d) = (2, 3, 4);
        let h = heads * d;
        // Cross-attention (5 queries over 7 keys, padding) and causal self-attention.
        for (t, s, causal) in [(5, 7, false), (6, 6, true)] {
            let q = Var::from_tensor(&rng.normal(&Shape::from((b, t, h)), 1.0, &dev).unwrap()).unwrap();
            let kv = Var::from_tensor(&rng.normal(&Shape::from((b, s, 2 * h)), 1.0, &dev).unwrap()).unwrap();
            let mut bias = vec![0f32; b * s];
            bias[s - 2..s].iter_mut().for_each(|x| *x = -1e9);
            let bias = Tensor::from_vec(bias, (b, s), &dev).unwrap();
            let target = rng.normal(&Shape::from((b, t, h)), 1.0, &dev).unwrap();
            let key = rng.dropout_key(0.3);
            let keep = key.tensor(&Shape::from((b, heads, t, s)), &dev).unwrap();
            for (key, mask) in [(None, None), (Some(key), Some(&keep))] {
                let fused = attention(q.as_tensor(), kv.as_tensor(), heads, &bias, causal, key).unwrap();
                let reference = composed(q.as_tensor(), kv.as_tensor(), heads, &bias, causal, mask);
                assert!(max_diff(&fused, &reference) < 1e-5, "forward ({t}, {s}, {causal})");
                let g1 = (fused * &target).unwrap().sum_all().unwrap().backward().unwrap();
                let g2 = (reference * &target).unwrap().sum_all().unwrap().backward().unwrap();
                for v in [&q, &kv] {
                    let diff = max_diff(g1.get(v.as_tensor()).unwrap(), g2.get(v.as_tensor()).unwrap());
                    assert!(diff < 1e-5, "gradient difference {diff} ({t}, {s}, {causal})");
                }
            }
        }
    }

    #[test]
    fn rejects_shapes_that_do_not_fit() {
        let dev = Device::Cpu;
        let z = |shape: &[usize]| Tensor::zeros(shape, candle_core::DType::F32, &dev).unwrap();
        assert!(attention(&z(&[1, 2, 6]), &z(&[1, 3, 12]), 4, &z(&[1, 3]), false, None).is_err());
        assert!(attention(&z(&[1, 2, 6]), &z(&[1, 3, 10]), 3, &z(&[1, 3]), false, None).is_err());
        assert!(attention(&z(&[1, 2, 6]), &z(&[1, 3, 12]), 3, &z(&[1, 2]), false, None).is_err());
        assert!(attention(&z(&[1, 2, 6]), &z(&[1, 3, 12]), 3, &z(&[1, 3]), true, None).is_err());
        assert!(attention(&z(&[1, 2, 6]), &z(&[1, 3, 12]), 3, &z(&[1, 3]), false, None).is_ok());
    }
}
