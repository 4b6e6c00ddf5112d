//! AdamW's moments for parameters off the CPU: every parameter's first and second moment in
//! one flat tensor each, so that an update is one kernel however many parameter tensors the
//! model has: on CUDA [`super::adamw_multi`], which updates the parameters where they are;
//! elsewhere [`AdamWStep`] between the copies that gather the gradients and parameters and
//! scatter the parameters back (against about sixteen kernels per tensor when each is
//! updated on its own, which on a GPU costs more than the model's forward and backward passes
//! together).
//!
//! The arithmetic is [`crate::training::optim::AdamW`]'s, element by element; parameters without a
//! gradient in a step are left as they are (their moments too), as the per-tensor path leaves
//! them.

use candle_core::{DType, Device, Tensor, Var};

use crate::error::Result;
use crate::kernels::adamw_cpu::Step;

/// The flat moments, and each parameter's place in them.
pub(crate) struct FlatMoments {
    /// First moments of every parameter, in slot order.
    pub m: Var,
    /// Second moments, in the same layout.
    pub v: Var,
    /// `(offset, length)` of each parameter.
    spans: Vec<(usize, usize)>,
    /// 1 where weight decay applies, in the same layout.
    decays: Tensor,
    /// Whether each parameter decays (what the CUDA update's table says per tensor).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    slot_decays: Vec<bool>,
    /// Which parameters had a gradient in the last step, and the flat 0/1 mask of them.
    active: Option<(Vec<bool>, Tensor)>,
}

impl FlatMoments {
    /// Zeroed moments for `vars` (with whether each decays), all on `device`.
    pub(crate) fn new(vars: &[(&Var, bool)], device: &Device) -> Result<Self> {
        let mut spans = Vec::with_capacity(vars.len());
        let mut decays = Vec::new();
        for (var, decay) in vars {
            let n = var.elem_count();
            spans.push((decays.len(), n));
            decays.extend(std::iter::repeat_n(u8::from(*decay), n));
        }
        let total = decays.len();
        Ok(FlatMoments {
            m: Var::zeros(total, DType::F32, device)?,
            v: Var::zeros(total, DType::F32, device)?,
            decays: Tensor::from_vec(decays, total, device)?,
            slot_decays: vars.iter().map(|(_, decay)| *decay).collect(),
            spans,
            active: None,
        })
    }

    /// Parameter `i`'s part of a flat tensor, in `shape`.
    pub(crate) fn part(&self, flat: &Tensor, i: usize, shape: &candle_core::Shape) -> Result<Tensor> {
        let (offset, len) = self.spans[i];
        Ok(flat.narrow(0, offset, len)?.reshape(shape)?)
    }

    /// The 0/1 mask of parameters that have a gradient, rebuilt only when that set changes.
    fn active_mask(&mut self, present: &[bool], device: &Device) -> Result<Tensor> {
        if let Some((last, mask)) = &self.active {
            if last == present {
                return Ok(mask.clone());
            }
        }
        let mut mask = Vec::with_capacity(self.m.elem_count());
        for (&(_, n), &p) in self.spans.iter().zip(present) {
            mask.extend(std::iter::repeat_n(u8::from(p), n));
        }
        let n = mask.len();
        let mask = Tensor::from_vec(mask, n, device)?;
        self.active = Some((present.to_vec(), mask.clone()));
        Ok(mask)
    }

    /// Updates `params` (in slot order) with `grads` (`None`: no gradient this step) and the
    /// moments in place, with the constants of [`Step`] (its `decay` applies to the
    /// parameters that decay); returns the sum of the squared gradients.
    pub(crate) fn update(&mut self, params: &[&Var], grads: &[Option<Tensor>], s: Step) -> Result<f64> {
        let device = self.m.device().clone();
        #[cfg(feature = "cuda")]
        if device.is_cuda() {
            let grads = grads
                .iter()
                .map(|g| g.as_ref().map(|g| g.detach().contiguous()).transpose())
                .collect::<candle_core::Result<Vec<_>>>()?;
            let op = super::adamw_multi::MultiTensorAdamW {
                params,
                grads: &grads,
                v: self.v.as_tensor(),
                spans: &self.spans,
                decays: &self.slot_decays,
                step: s,
            };
            let sum_sq = super::adamw_multi::update(&self.m, &op)?;
            return Ok(sum_sq.to_dtype(DType::F64)?.to_scalar::<f64>()?);
        }
        let present: Vec<bool> = grads.iter().map(Option::is_some).collect();
        let parts = params
            .iter()
            .zip(grads)
            .map(|(p, g)| match g {
                Some(g) => Ok(g.detach().flatten_all()?),
                None => Ok(Tensor::zeros(p.elem_count(), DType::F32, &device)?),
            })
            .collect::<Result<Vec<_>>>()?;
        let g = Tensor::cat(&parts, 0)?;
        // Read back only once every update is issued: reading waits for the device.
        let sum_sq = sum_of_squares(&g)?.to_dtype(DType::F64)?;
        let active = if present.iter().all(|&p| p) { None } else { Some(self.active_mask(&present, &device)?) };
        let thetas =
            params.iter().map(|p| p.as_tensor().detach().flatten_all()).collect::<candle_core::Result<Vec<_>>>()?;
        let theta = Tensor::cat(&thetas, 0)?;
        let step = AdamWStep { g, decays: self.decays.clone(), active, step: s };
        let out = theta.apply_op3_no_bwd(self.m.as_tensor(), self.v.as_tensor(), &step)?;
        let n = theta.elem_count();
        let (new_theta, m_new, v_new) = (out.narrow(0, 0, n)?, out.narrow(0, n, n)?, out.narrow(0, 2 * n, n)?);
        self.m.set(&m_new)?;
        self.v.set(&v_new)?;
        for (i, p) in params.iter().enumerate() {
            p.set(&self.part(&new_theta, i, p.shape())?)?;
        }
        Ok(sum_sq.to_scalar::<f64>()?)
    }
}

/// One AdamW update of flat parameters, `(theta, m, v) -> [theta', m', v']` (stacked), with
/// the flat gradient, which elements decay and which are active (`None`: all) beside it: one
/// pass where composed tensor operations took about twenty over the whole model. CUDA updates
/// the parameters in place instead ([`super::adamw_multi`], the same arithmetic); this loop is
/// the update on other devices and the reference its tests check.
struct AdamWStep {
    g: Tensor,
    decays: Tensor,
    active: Option<Tensor>,
    step: Step,
}

impl candle_core::CustomOp3 for AdamWStep {
    fn name(&self) -> &'static str {
        "adamw-flat"
    }

    fn cpu_fwd(
        &self,
        theta: &candle_core::CpuStorage,
        tl: &candle_core::Layout,
        m: &candle_core::CpuStorage,
        ml: &candle_core::Layout,
        v: &candle_core::CpuStorage,
        vl: &candle_core::Layout,
    ) -> candle_core::Result<(candle_core::CpuStorage, candle_core::Shape)> {
        let [theta, m, v] = super::ops::contiguous_f32_3((theta, tl), (m, ml), (v, vl), self.name())?;
        let g = self.g.to_vec1::<f32>()?;
        let decays = self.decays.to_vec1::<u8>()?;
        let active = self.active.as_ref().map(|a| a.to_vec1::<u8>()).transpose()?;
        let [one_minus_beta1, beta2, one_minus_beta2, decay, step_size, inv_bias2_sqrt, eps] =
            self.step.kernel_constants();
        let n = theta.len();
        let mut out = vec![0f32; 3 * n];
        for i in 0..n {
            if active.as_ref().is_some_and(|a| a[i] == 0) {
                (out[i], out[n + i], out[2 * n + i]) = (theta[i], m[i], v[i]);
                continue;
            }
            let mi = m[i] + (g[i] - m[i]) * one_minus_beta1;
            let vi = v[i] * beta2 + (g[i] * one_minus_beta2) * g[i];
            let denom = vi.sqrt() * inv_bias2_sqrt + eps;
            let t = if decays[i] != 0 { theta[i] * decay } else { theta[i] };
            (out[i], out[n + i], out[2 * n + i]) = (t + (mi * -step_size) / denom, mi, vi);
        }
        Ok((candle_core::CpuStorage::F32(out), candle_core::Shape::from(3 * n)))
    }
}

/// The sum of the squares of flat `x`, in two stages: candle reduces each output element in one
/// thread block, so summing all of a model's gradients at once would run on one multiprocessor.
fn sum_of_squares(x: &Tensor) -> Result<Tensor> {
    const ROWS: usize = 1024;
    let n = x.elem_count();
    if n < ROWS * ROWS {
        return Ok(x.sqr()?.sum_all()?);
    }
    let whole = n / ROWS * ROWS;
    let mut sum = x.narrow(0, 0, whole)?.reshape((ROWS, whole / ROWS))?.sqr()?.sum(1)?.sum_all()?;
    if whole < n {
        sum = (sum + x.narrow(0, whole, n - whole)?.sqr()?.sum_all()?)?;
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_squares_in_two_stages() {
        let n = 1024 * 1024 + 37;
        let x = Tensor::arange(0u32, n as u32, &Device::Cpu).unwrap().to_dtype(DType::F64).unwrap();
        let x = ((x / n as f64).unwrap() - 0.5).unwrap();
        let expected: f64 = x.to_vec1::<f64>().unwrap().iter().map(|v| v * v).sum();
        let got = sum_of_squares(&x).unwrap().to_scalar::<f64>().unwrap();
        assert!((got - expected).abs() < 1e-9 * expected, "{got} vs {expected}");
        let small = Tensor::new(&[3f64, 4.], &Device::Cpu).unwrap();
        assert_eq!(sum_of_squares(&small).unwrap().to_scalar::<f64>().unwrap(), 25.0);
    }
}
