//! LSTM recurrences as single operations with their backward passes (gates in PyTorch's
//! order i, f, g, o):
//! - [`lstm_cell`], one step: from the gate pre-activations `(n, 4h)` and the previous cell
//!   `(n, h)`, the new hidden state and cell side by side `(n, 2h)` (decoding, one word at
//!   a time);
//! - [`lstm_sequence`], a whole direction over every position, backpropagated through time
//!   in its own backward pass. Composed, each position is a dozen graph nodes, and slicing
//!   position `t` out of the input products costs, in candle's backward pass, a zero-filled
//!   gradient buffer of the whole sequence's size: quadratic in the length.
//!
//! f32 on the CPU; elsewhere the composed operations.

use candle_core::{CpuStorage, CustomOp2, CustomOp3, DType, Device, Layout, Result, Shape, Tensor, D};

use crate::kernels::ops::{contiguous_f32, contiguous_f32_3};

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The activated gates of one row: `(i, f, g, o)` at column `j`.
fn gates(row: &[f32], h: usize, j: usize) -> (f32, f32, f32, f32) {
    (sigmoid(row[j]), sigmoid(row[h + j]), row[2 * h + j].tanh(), sigmoid(row[3 * h + j]))
}

struct LstmCell;

impl CustomOp2 for LstmCell {
    fn name(&self) -> &'static str {
        "lstm-cell"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let (pre, c) = (contiguous_f32(s1, l1, self.name())?, contiguous_f32(s2, l2, self.name())?);
        let (n, h) = l2.shape().dims2()?;
        let mut out = vec![0f32; n * 2 * h];
        for r in 0..n {
            let row = &pre[r * 4 * h..(r + 1) * 4 * h];
            let (hs, cs) = out[r * 2 * h..(r + 1) * 2 * h].split_at_mut(h);
            for j in 0..h {
                let (i, f, g, o) = gates(row, h, j);
                let cell = f * c[r * h + j] + i * g;
                cs[j] = cell;
                hs[j] = o * cell.tanh();
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((n, 2 * h))))
    }

    fn bwd(&self, pre: &Tensor, c: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (n, h) = c.dims2()?;
        let pre_v = pre.flatten_all()?.to_vec1::<f32>()?;
        let c_v = c.flatten_all()?.to_vec1::<f32>()?;
        let g_v = grad.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
        let mut d_pre = vec![0f32; n * 4 * h];
        let mut d_c = vec![0f32; n * h];
        for r in 0..n {
            let g = &g_v[r * 2 * h..(r + 1) * 2 * h];
            cell_backward(
                &pre_v[r * 4 * h..(r + 1) * 4 * h],
                &c_v[r * h..(r + 1) * h],
                &g[..h],
                &g[h..],
                &mut d_pre[r * 4 * h..(r + 1) * 4 * h],
                &mut d_c[r * h..(r + 1) * h],
            );
        }
        let dev = pre.device();
        Ok((Some(Tensor::from_vec(d_pre, (n, 4 * h), dev)?), Some(Tensor::from_vec(d_c, (n, h), dev)?)))
    }
}

/// Derivatives of one position and row: from the gate pre-activations `pre` (4h), the
/// previous cell `prev`, the new cell `cell` and the incoming gradients of the new hidden
/// state `dh` and cell `dc_out`, writes the pre-activations' gradient into `d_pre` and
/// returns nothing; `d_prev[j]` receives the previous cell's gradient.
fn cell_backward(pre: &[f32], prev: &[f32], dh: &[f32], dc_out: &[f32], d_pre: &mut [f32], d_prev: &mut [f32]) {
    let h = prev.len();
    for j in 0..h {
        let (i, f, g, o) = gates(pre, h, j);
        let t = (f * prev[j] + i * g).tanh();
        let dc = dc_out[j] + dh[j] * o * (1.0 - t * t);
        d_pre[j] = dc * g * i * (1.0 - i);
        d_pre[h + j] = dc * prev[j] * f * (1.0 - f);
        d_pre[2 * h + j] = dc * i * (1.0 - g * g);
        d_pre[3 * h + j] = dh[j] * t * o * (1.0 - o);
        d_prev[j] = dc * f;
    }
}

/// One direction over every position: inputs the input products `xw` `(b, s, 4h)` (bias
/// included), the recurrent weight `(4h, h)` and the initial state `[h0, c0]` `(b, 2h)`;
/// output `[h_t, c_t]` at every position `(b, s, 2h)`.
struct LstmSequence;

/// `a (n, k) @ m` for a CPU matrix `m`, through candle's matrix product.
fn product(a: &[f32], n: usize, k: usize, m: &Tensor) -> Result<Vec<f32>> {
    Tensor::from_slice(a, (n, k), &Device::Cpu)?.matmul(m)?.flatten_all()?.to_vec1::<f32>()
}

impl CustomOp3 for LstmSequence {
    fn name(&self) -> &'static str {
        "lstm-sequence"
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
        let [xw, w, init] = contiguous_f32_3((s1, l1), (s2, l2), (s3, l3), self.name())?;
        let (b, s, g4) = l1.shape().dims3()?;
        let h = g4 / 4;
        // h W^T as a product with the transposed weight (h, 4h).
        let w_t = Tensor::from_slice(w, (g4, h), &Device::Cpu)?.t()?.contiguous()?;
        let mut out = vec![0f32; b * s * 2 * h];
        let mut hs: Vec<f32> = (0..b).flat_map(|r| init[r * 2 * h..r * 2 * h + h].to_vec()).collect();
        let mut cs: Vec<f32> = (0..b).flat_map(|r| init[r * 2 * h + h..(r + 1) * 2 * h].to_vec()).collect();
        for t in 0..s {
            let rec = product(&hs, b, h, &w_t)?;
            for r in 0..b {
                let x = &xw[(r * s + t) * g4..(r * s + t + 1) * g4];
                let pre: Vec<f32> = x.iter().zip(&rec[r * g4..(r + 1) * g4]).map(|(a, b)| a + b).collect();
                let o = &mut out[(r * s + t) * 2 * h..(r * s + t + 1) * 2 * h];
                for j in 0..h {
                    let (i, f, g, og) = gates(&pre, h, j);
                    let cell = f * cs[r * h + j] + i * g;
                    cs[r * h + j] = cell;
                    hs[r * h + j] = og * cell.tanh();
                    o[j] = hs[r * h + j];
                    o[h + j] = cell;
                }
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((b, s, 2 * h))))
    }

    fn bwd(
        &self,
        xw: &Tensor,
        w: &Tensor,
        init: &Tensor,
        res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (b, s, g4) = xw.dims3()?;
        let h = g4 / 4;
        let dev = xw.device();
        let w = w.detach().contiguous()?;
        let res_v = res.flatten_all()?.to_vec1::<f32>()?;
        let grad_v = grad.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
        let init_v = init.flatten_all()?.to_vec1::<f32>()?;
        // Every position's previous state: (b, s, 2h).
        let mut prev = vec![0f32; b * s * 2 * h];
        for r in 0..b {
            for t in 0..s {
                let from = if t == 0 {
                    &init_v[r * 2 * h..(r + 1) * 2 * h]
                } else {
                    &res_v[(r * s + t - 1) * 2 * h..(r * s + t) * 2 * h]
                };
                prev[(r * s + t) * 2 * h..(r * s + t + 1) * 2 * h].copy_from_slice(from);
            }
        }
        let prev_t = Tensor::from_vec(prev, (b * s, 2 * h), dev)?;
        let h_prev = prev_t.narrow(1, 0, h)?.contiguous()?;
        // The pre-activations again, all positions in one product.
        let pre = (xw.detach().reshape((b * s, g4))? + h_prev.matmul(&w.t()?)?)?.flatten_all()?.to_vec1::<f32>()?;
        let prev = prev_t.flatten_all()?.to_vec1::<f32>()?;
        let mut d_pre = vec![0f32; b * s * g4];
        let mut dh_next = vec![0f32; b * h];
        let mut dc_next = vec![0f32; b * h];
        let mut step = vec![0f32; b * g4];
        for t in (0..s).rev() {
            for r in 0..b {
                let at = r * s + t;
                let g = &grad_v[at * 2 * h..(at + 1) * 2 * h];
                let dh: Vec<f32> = g[..h].iter().zip(&dh_next[r * h..(r + 1) * h]).map(|(a, b)| a + b).collect();
                let dc: Vec<f32> = g[h..].iter().zip(&dc_next[r * h..(r + 1) * h]).map(|(a, b)| a + b).collect();
                let c_prev = &prev[at * 2 * h + h..(at + 1) * 2 * h];
                cell_backward(
                    &pre[at * g4..(at + 1) * g4],
                    c_prev,
                    &dh,
                    &dc,
                    &mut step[r * g4..(r + 1) * g4],
                    &mut dc_next[r * h..(r + 1) * h],
                );
                d_pre[at * g4..(at + 1) * g4].copy_from_slice(&step[r * g4..(r + 1) * g4]);
            }
            dh_next = product(&step, b, g4, &w)?;
        }
        let d_pre = Tensor::from_vec(d_pre, (b * s, g4), dev)?;
        let d_w = d_pre.t()?.matmul(&h_prev)?;
        let d_init =
            Tensor::cat(&[Tensor::from_vec(dh_next, (b, h), dev)?, Tensor::from_vec(dc_next, (b, h), dev)?], 1)?;
        Ok((Some(d_pre.reshape((b, s, g4))?), Some(d_w), Some(d_init)))
    }
}

/// `[h_t, c_t]` `(b, s, 2h)` at every position of one LSTM direction, from the input
/// products `xw` `(b, s, 4h)` (bias included), the recurrent weight `w_hh` `(4h, h)` and the
/// initial state `init` `[h0, c0]` `(b, 2h)`.
pub(crate) fn lstm_sequence(xw: &Tensor, w_hh: &Tensor, init: &Tensor) -> Result<Tensor> {
    let f32s = [xw, w_hh, init].iter().all(|t| t.dtype() == DType::F32);
    if xw.device().is_cpu() && f32s {
        return xw.contiguous()?.apply_op3(&w_hh.contiguous()?, &init.contiguous()?, LstmSequence);
    }
    let (_, s, g4) = xw.dims3()?;
    let h = g4 / 4;
    let (mut hid, mut cell) = (init.narrow(1, 0, h)?, init.narrow(1, h, h)?);
    let mut steps = Vec::with_capacity(s);
    for t in 0..s {
        let pre = (xw.narrow(1, t, 1)?.squeeze(1)? + hid.matmul(&w_hh.t()?)?)?;
        let both = lstm_cell(&pre, &cell)?;
        (hid, cell) = (both.narrow(1, 0, h)?, both.narrow(1, h, h)?);
        steps.push(both);
    }
    Tensor::stack(&steps, 1)
}

/// `[h', c']` `(n, 2h)` of an LSTM step from gate pre-activations `pre` `(n, 4h)` (i, f, g, o)
/// and the previous cell `c` `(n, h)`: `c' = σ(f) c + σ(i) tanh(g)`, `h' = σ(o) tanh(c')`.
pub(crate) fn lstm_cell(pre: &Tensor, c: &Tensor) -> Result<Tensor> {
    if pre.device().is_cpu() && pre.dtype() == DType::F32 && c.dtype() == DType::F32 {
        return pre.contiguous()?.apply_op2(&c.contiguous()?, LstmCell);
    }
    let chunks = pre.chunk(4, D::Minus1)?;
    let sig = candle_nn::ops::sigmoid;
    let (i, f, g, o) = (sig(&chunks[0])?, sig(&chunks[1])?, chunks[2].tanh()?, sig(&chunks[3])?);
    let cell = ((f * c)? + (i * g)?)?;
    let hidden = (o * cell.tanh()?)?;
    Tensor::cat(&[hidden, cell], D::Minus1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    /// The composed step, as [`lstm_cell`] runs it off the CPU.
    fn composed(pre: &Tensor, c: &Tensor) -> Tensor {
        let chunks = pre.chunk(4, D::Minus1).unwrap();
        let sig = |x: &Tensor| candle_nn::ops::sigmoid(x).unwrap();
        let (i, f, g, o) = (sig(&chunks[0]), sig(&chunks[1]), chunks[2].tanh().unwrap(), sig(&chunks[3]));
        let cell = ((f * c).unwrap() + (i * g).unwrap()).unwrap();
        let hidden = (o * cell.tanh().unwrap()).unwrap();
        Tensor::cat(&[hidden, cell], D::Minus1).unwrap()
    }

    #[test]
    fn the_sequence_and_its_gradients_equal_the_steps_composed() {
        let dev = Device::Cpu;
        let (b, s, h) = (2, 4, 3);
        let xw = Var::from_tensor(&Tensor::randn(0f32, 1.0, (b, s, 4 * h), &dev).unwrap()).unwrap();
        let w = Var::from_tensor(&Tensor::randn(0f32, 0.5, (4 * h, h), &dev).unwrap()).unwrap();
        let init = Var::from_tensor(&Tensor::randn(0f32, 1.0, (b, 2 * h), &dev).unwrap()).unwrap();
        let weights = Tensor::randn(0f32, 1.0, (b, s, 2 * h), &dev).unwrap();
        let run = |out: Tensor| {
            let loss = (out.clone() * &weights).unwrap().sum_all().unwrap();
            let grads = loss.backward().unwrap();
            let g = |v: &Var| grads.get(v.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
            vec![out.flatten_all().unwrap().to_vec1::<f32>().unwrap(), g(&xw), g(&w), g(&init)]
        };
        let fused = run(lstm_sequence(xw.as_tensor(), w.as_tensor(), init.as_tensor()).unwrap());
        // The composed recurrence, with the composed cell.
        let mut hid = init.as_tensor().narrow(1, 0, h).unwrap();
        let mut cell = init.as_tensor().narrow(1, h, h).unwrap();
        let mut steps = Vec::new();
        for t in 0..s {
            let x = xw.as_tensor().narrow(1, t, 1).unwrap().squeeze(1).unwrap();
            let pre = (x + hid.matmul(&w.as_tensor().t().unwrap()).unwrap()).unwrap();
            let both = composed(&pre, &cell);
            (hid, cell) = (both.narrow(1, 0, h).unwrap(), both.narrow(1, h, h).unwrap());
            steps.push(both);
        }
        let reference = run(Tensor::stack(&steps, 1).unwrap());
        for (a, b) in fused.iter().zip(&reference) {
            let worst = a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
            assert!(worst < 1e-4, "max difference {worst}");
        }
    }

    #[test]
    fn the_fused_step_and_its_gradients_equal_the_composed_ones() {
        let dev = Device::Cpu;
        let pre = Var::from_tensor(&(Tensor::randn(0f32, 1.5, (3, 20), &dev).unwrap())).unwrap();
        let c = Var::from_tensor(&Tensor::randn(0f32, 1.0, (3, 5), &dev).unwrap()).unwrap();
        let weights = Tensor::randn(0f32, 1.0, (3, 10), &dev).unwrap();
        let run = |out: Tensor| {
            let loss = (out.clone() * &weights).unwrap().sum_all().unwrap();
            let grads = loss.backward().unwrap();
            let g = |v: &Var| grads.get(v.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
            (out.flatten_all().unwrap().to_vec1::<f32>().unwrap(), g(&pre), g(&c))
        };
        let fused = run(lstm_cell(pre.as_tensor(), c.as_tensor()).unwrap());
        let reference = run(composed(pre.as_tensor(), c.as_tensor()));
        for (a, b) in [(&fused.0, &reference.0), (&fused.1, &reference.1), (&fused.2, &reference.2)] {
            let worst = a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
            assert!(worst < 1e-5, "max difference {worst}");
        }
    }
}
