//! AdamW's update on contiguous f32 CPU tensors, in place: the moments and the parameter are
//! rewritten in three streaming passes instead of a dozen allocated temporaries, which on a
//! 22M-parameter encoder is a large part of a training step.
//!
//! Every element follows `torch.optim.AdamW` (single-tensor implementation) operation by
//! operation in f32, so that parity with PyTorch holds to rounding.

use std::sync::Mutex;

use candle_core::{bail, CpuStorage, InplaceOp2, InplaceOp3, Layout, Result, Tensor};
use rayon::prelude::*;

/// Elements per parallel task.
const CHUNK: usize = 1 << 16;

fn slice<'a>(s: &'a CpuStorage, l: &Layout, what: &str) -> Result<&'a [f32]> {
    match (s, l.contiguous_offsets()) {
        (CpuStorage::F32(v), Some((a, b))) => Ok(&v[a..b]),
        _ => bail!("adamw {what}: expected a contiguous f32 tensor"),
    }
}

fn slice_mut<'a>(s: &'a mut CpuStorage, l: &Layout, what: &str) -> Result<&'a mut [f32]> {
    match (s, l.contiguous_offsets()) {
        (CpuStorage::F32(v), Some((a, b))) => Ok(&mut v[a..b]),
        _ => bail!("adamw {what}: expected a contiguous f32 tensor"),
    }
}

/// `m <- m + (g - m) * (1 - beta1)` (torch's `lerp_`).
struct FirstMoment {
    weight: f32,
}

impl InplaceOp2 for FirstMoment {
    fn name(&self) -> &'static str {
        "adamw-first-moment"
    }

    fn cpu_fwd(&self, s1: &mut CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<()> {
        let (m, g) = (slice_mut(s1, l1, "moment")?, slice(s2, l2, "gradient")?);
        if m.len() != g.len() {
            bail!("adamw: gradient and moment sizes differ");
        }
        let w = self.weight;
        m.par_chunks_mut(CHUNK).zip(g.par_chunks(CHUNK)).for_each(|(m, g)| {
            for (m, &g) in m.iter_mut().zip(g) {
                *m += w * (g - *m);
            }
        });
        Ok(())
    }
}

/// `v <- v * beta2 + ((1 - beta2) * g) * g` (torch's `mul_` then `addcmul_`), also summing
/// `g * g` for the gradient norm.
struct SecondMoment {
    beta2: f32,
    weight: f32,
    sum_sq: Mutex<f64>,
}

impl InplaceOp2 for SecondMoment {
    fn name(&self) -> &'static str {
        "adamw-second-moment"
    }

    fn cpu_fwd(&self, s1: &mut CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<()> {
        let (v, g) = (slice_mut(s1, l1, "moment")?, slice(s2, l2, "gradient")?);
        if v.len() != g.len() {
            bail!("adamw: gradient and moment sizes differ");
        }
        let (b2, w) = (self.beta2, self.weight);
        let sum: f64 = v
            .par_chunks_mut(CHUNK)
            .zip(g.par_chunks(CHUNK))
            .map(|(v, g)| {
                let mut sq = 0f64;
                for (v, &g) in v.iter_mut().zip(g) {
                    *v = *v * b2 + (w * g) * g;
                    sq += (g as f64) * (g as f64);
                }
                sq
            })
            .collect::<Vec<f64>>()
            .into_iter()
            .sum();
        *self.sum_sq.lock().unwrap_or_else(|p| p.into_inner()) += sum;
        Ok(())
    }
}

/// `theta <- theta * decay`, then `theta <- theta + (-step_size * m) / (sqrt(v) / bias2_sqrt + eps)`
/// (torch's `mul_` then `addcdiv_`, which multiplies before it divides).
#[derive(Clone, Copy)]
struct Update {
    decay: f32,
    step_size: f32,
    bias2_sqrt: f32,
    eps: f32,
}

impl InplaceOp3 for Update {
    fn name(&self) -> &'static str {
        "adamw-update"
    }

    fn cpu_fwd(
        &self,
        s1: &mut CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<()> {
        let theta = slice_mut(s1, l1, "parameter")?;
        let (m, v) = (slice(s2, l2, "moment")?, slice(s3, l3, "moment")?);
        if theta.len() != m.len() || theta.len() != v.len() {
            bail!("adamw: parameter and moment sizes differ");
        }
        let Update { decay, step_size, bias2_sqrt, eps } = *self;
        let neg_step = -step_size;
        theta.par_chunks_mut(CHUNK).zip(m.par_chunks(CHUNK).zip(v.par_chunks(CHUNK))).for_each(|(t, (m, v))| {
            for ((t, &m), &v) in t.iter_mut().zip(m).zip(v) {
                let denom = v.sqrt() / bias2_sqrt + eps;
                *t = *t * decay + (neg_step * m) / denom;
            }
        });
        Ok(())
    }
}

/// Whether the fused update applies: every tensor contiguous f32 on the CPU.
pub(crate) fn applies(tensors: &[&Tensor]) -> bool {
    tensors.iter().all(|t| t.device().is_cpu() && t.dtype() == candle_core::DType::F32 && t.is_contiguous())
}

/// Hyper-parameters of one update of one tensor.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    /// `1 - beta1`.
    pub one_minus_beta1: f64,
    /// `beta2`.
    pub beta2: f64,
    /// `1 - lr * weight_decay` (1 without decay).
    pub decay: f64,
    /// `lr / (1 - beta1^t)`.
    pub step_size: f64,
    /// `sqrt(1 - beta2^t)`.
    pub bias2_sqrt: f64,
    /// Denominator epsilon.
    pub eps: f64,
}

impl Step {
    /// The constants in f32, as the flat update and quarry's CUDA kernel (`adamw_multi_f32`) take
    /// them: `(1 - beta1, beta2, 1 - beta2, decay, step size, 1 / sqrt(1 - beta2^t), eps)`.
    pub(crate) fn kernel_constants(&self) -> [f32; 7] {
        [
            self.one_minus_beta1 as f32,
            self.beta2 as f32,
            (1.0 - self.beta2) as f32,
            self.decay as f32,
            self.step_size as f32,
            (1.0 / self.bias2_sqrt) as f32,
            self.eps as f32,
        ]
    }
}

#[cfg(test)]
impl Step {
    /// The constants of step `t` of AdamW at learning rate 1e-3, weight decay 0.01 and
    /// PyTorch's betas and epsilon: the update the kernels' tests run.
    pub(crate) fn for_tests(t: i32) -> Self {
        Step {
            one_minus_beta1: 0.1,
            beta2: 0.999,
            decay: 1.0 - 1e-3 * 0.01,
            step_size: 1e-3 / (1.0 - 0.9f64.powi(t)),
            bias2_sqrt: (1.0 - 0.999f64.powi(t)).sqrt(),
            eps: 1e-8,
        }
    }
}

/// Updates `theta`, `m` and `v` in place from gradient `g`; returns the sum of `g * g`.
pub(crate) fn update(theta: &Tensor, m: &Tensor, v: &Tensor, g: &Tensor, s: Step) -> Result<f64> {
    m.inplace_op2(g, &FirstMoment { weight: s.one_minus_beta1 as f32 })?;
    let second = SecondMoment { beta2: s.beta2 as f32, weight: (1.0 - s.beta2) as f32, sum_sq: Mutex::new(0.0) };
    v.inplace_op2(g, &second)?;
    theta.inplace_op3(
        m,
        v,
        &Update {
            decay: s.decay as f32,
            step_size: s.step_size as f32,
            bias2_sqrt: s.bias2_sqrt as f32,
            eps: s.eps as f32,
        },
    )?;
    let sum = *second.sum_sq.lock().unwrap_or_else(|p| p.into_inner());
    Ok(sum)
}
