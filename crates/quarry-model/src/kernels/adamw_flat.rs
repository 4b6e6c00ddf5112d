//! AdamW's moments for parameters off the CPU: every parameter's first and second moment in
//! one flat tensor each, so that an update is a couple of dozen kernel launches however many
//! parameter tensors the model has (against about sixteen per tensor when each is updated on
//! its own, which on a GPU costs more than the model's forward and backward passes together).
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
        let sum_sq = g.sqr()?.sum_all()?.to_dtype(DType::F64)?.to_scalar::<f64>()?;
        let all = present.iter().all(|&p| p);
        let active = self.active_mask(&present, &device)?;
        let m = self.m.as_tensor();
        let v = self.v.as_tensor();
        let m_step = ((&g - m)? * s.one_minus_beta1)?;
        let v_new = ((v * s.beta2)? + ((&g * (1.0 - s.beta2))? * &g)?)?;
        let (m_new, v_new) = if all {
            ((m + m_step)?, v_new)
        } else {
            let keep = active.to_dtype(DType::F32)?;
            ((m + m_step.broadcast_mul(&keep)?)?, active.where_cond(&v_new, v)?)
        };
        let denom = ((v_new.sqrt()? / s.bias2_sqrt)? + s.eps)?;
        let update = ((&m_new * -s.step_size)? / denom)?;
        let thetas =
            params.iter().map(|p| p.as_tensor().detach().flatten_all()).collect::<candle_core::Result<Vec<_>>>()?;
        let theta = Tensor::cat(&thetas, 0)?;
        let decayed = if s.decay == 1.0 {
            theta.clone()
        } else {
            let decays = if all { self.decays.clone() } else { (&self.decays * &active)? };
            decays.where_cond(&(&theta * s.decay)?, &theta)?
        };
        let new_theta = if all { (decayed + update)? } else { active.where_cond(&(decayed + update)?, &theta)? };
        self.m.set(&m_new)?;
        self.v.set(&v_new)?;
        for (i, p) in params.iter().enumerate() {
            p.set(&self.part(&new_theta, i, p.shape())?)?;
        }
        Ok(sum_sq)
    }
}
