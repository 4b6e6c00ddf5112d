//! AdamW with decoupled weight decay and a linear warm-up and decay learning-rate schedule.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Tensor, Var};

use crate::error::{ModelError, Result};
use crate::kernels::adamw_cpu;
use crate::kernels::adamw_flat::FlatMoments;

/// AdamW hyper-parameters.
#[derive(Debug, Clone, Copy)]
pub struct AdamWConfig {
    /// Peak learning rate.
    pub lr: f64,
    /// First-moment decay.
    pub beta1: f64,
    /// Second-moment decay.
    pub beta2: f64,
    /// Denominator epsilon.
    pub eps: f64,
    /// Decoupled weight decay, applied to weights but not to biases and layer norms.
    pub weight_decay: f64,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        AdamWConfig { lr: 5e-5, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0.01 }
    }
}

struct Slot {
    name: String,
    var: Var,
    m: Tensor,
    v: Tensor,
    decay: bool,
}

/// AdamW over a fixed list of named variables.
pub struct AdamW {
    slots: Vec<Slot>,
    config: AdamWConfig,
    step: usize,
    /// Off the CPU, every moment in one flat tensor ([`adamw_flat`]); the slots' moments are
    /// views of it.
    flat: Option<FlatMoments>,
}

/// Whether weight decay applies to a parameter of this name (not biases, not layer norms).
pub fn decays(name: &str) -> bool {
    !(name.ends_with(".bias") || name.contains("LayerNorm") || name.contains("layer_norm"))
}

/// Training keeps its parameters in f32 (bf16 autocast casts copies): a model built in f64
/// (`--dtype f64`) is for inference, so its parameters are refused here, by name.
fn require_f32_parameters(vars: &[(String, Var)]) -> Result<()> {
    match vars.iter().find(|(_, var)| var.dtype() != candle_core::DType::F32) {
        Some((name, var)) => Err(crate::error::ModelError::Config(format!(
            "parameter `{name}` is {:?}: training runs in f32 or bf16 (`--dtype f64` is for inference)",
            var.dtype()
        ))),
        None => Ok(()),
    }
}

impl AdamW {
    /// An optimizer over `vars` with zeroed moments.
    ///
    /// On the CPU each parameter's moments are tensors of their own, updated in place
    /// (`kernels::adamw_cpu`); elsewhere they are parts of two flat tensors (`kernels::adamw_flat`).
    pub fn new(vars: Vec<(String, Var)>, config: AdamWConfig) -> Result<Self> {
        let device = vars.first().map(|(_, v)| v.device().clone()).unwrap_or(candle_core::Device::Cpu);
        if device.is_cpu() {
            require_f32_parameters(&vars)?;
            let slots = vars
                .into_iter()
                .map(|(name, var)| {
                    let m = var.zeros_like()?;
                    let v = var.zeros_like()?;
                    let decay = decays(&name);
                    Ok(Slot { name, var, m, v, decay })
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(AdamW { slots, config, step: 0, flat: None });
        }
        Self::new_flat(vars, config, &device)
    }

    /// [`AdamW::new`] with the moments in two flat tensors on `device`.
    pub fn new_flat(vars: Vec<(String, Var)>, config: AdamWConfig, device: &candle_core::Device) -> Result<Self> {
        require_f32_parameters(&vars)?;
        let described: Vec<(&Var, bool)> = vars.iter().map(|(name, var)| (var, decays(name))).collect();
        let flat = FlatMoments::new(&described, device)?;
        let slots = vars
            .into_iter()
            .enumerate()
            .map(|(i, (name, var))| {
                let m = flat.part(flat.m.as_tensor(), i, var.shape())?;
                let v = flat.part(flat.v.as_tensor(), i, var.shape())?;
                let decay = decays(&name);
                Ok(Slot { name, var, m, v, decay })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(AdamW { slots, config, step: 0, flat: Some(flat) })
    }

    /// Number of updates applied so far.
    pub fn steps_done(&self) -> usize {
        self.step
    }

    /// Applies one update at learning rate `lr` with gradients keyed by parameter name;
    /// parameters without a gradient are left unchanged.
    pub fn step(&mut self, grads: &HashMap<String, Tensor>, lr: f64) -> Result<()> {
        self.step_with_norm(grads, lr).map(|_| ())
    }

    /// [`AdamW::step`], returning the L2 norm of all the gradients it applied together.
    ///
    /// The arithmetic follows `torch.optim.AdamW` operation by operation (decay first, the
    /// first moment as a lerp towards the gradient, the bias corrections folded into the step
    /// size and the denominator), so that the two agree to float rounding. On the CPU the
    /// moments and parameters are updated in place (`kernels::adamw_cpu`).
    pub fn step_with_norm(&mut self, grads: &HashMap<String, Tensor>, lr: f64) -> Result<f64> {
        self.step += 1;
        let c = self.config;
        let bias1 = 1.0 - c.beta1.powi(self.step as i32);
        let bias2_sqrt = (1.0 - c.beta2.powi(self.step as i32)).sqrt();
        let step_size = lr / bias1;
        if let Some(flat) = &mut self.flat {
            let params: Vec<&Var> = self.slots.iter().map(|s| &s.var).collect();
            let grads: Vec<Option<Tensor>> = self.slots.iter().map(|s| grads.get(&s.name).cloned()).collect();
            let step = adamw_cpu::Step {
                one_minus_beta1: 1.0 - c.beta1,
                beta2: c.beta2,
                decay: if c.weight_decay > 0.0 { 1.0 - lr * c.weight_decay } else { 1.0 },
                step_size,
                bias2_sqrt,
                eps: c.eps,
            };
            return Ok(flat.update(&params, &grads, step)?.sqrt());
        }
        let mut sum_sq = 0.0f64;
        let mut device_sums = Vec::new();
        for slot in &mut self.slots {
            let Some(g) = grads.get(&slot.name) else {
                continue;
            };
            // Gradients and parameters carry the autograd graph of the step that made them;
            // moments built from them would keep every step's activations alive.
            let g = g.detach().contiguous()?;
            let decay = if slot.decay && c.weight_decay > 0.0 { 1.0 - lr * c.weight_decay } else { 1.0 };
            let theta = slot.var.as_tensor();
            if adamw_cpu::applies(&[theta, &slot.m, &slot.v, &g]) {
                let s = adamw_cpu::Step {
                    one_minus_beta1: 1.0 - c.beta1,
                    beta2: c.beta2,
                    decay,
                    step_size,
                    bias2_sqrt,
                    eps: c.eps,
                };
                sum_sq += adamw_cpu::update(theta, &slot.m, &slot.v, &g, s)?;
                continue;
            }
            // Summed on the device: one transfer per step, not one per parameter.
            device_sums.push(g.sqr()?.sum_all()?);
            slot.m = (&slot.m + ((&g - &slot.m)? * (1.0 - c.beta1))?)?.detach();
            slot.v = ((&slot.v * c.beta2)? + ((&g * (1.0 - c.beta2))? * &g)?)?.detach();
            let denom = ((slot.v.sqrt()? / bias2_sqrt)? + c.eps)?;
            let theta = (theta.detach() * decay)?;
            slot.var.set(&(theta + ((&slot.m * -step_size)? / denom)?)?)?;
        }
        if !device_sums.is_empty() {
            let sums = Tensor::stack(&device_sums, 0)?.to_dtype(candle_core::DType::F64)?;
            sum_sq += sums.to_device(&candle_core::Device::Cpu)?.to_vec1::<f64>()?.iter().sum::<f64>();
        }
        Ok(sum_sq.sqrt())
    }

    /// Saves moments and step count to a safetensors file.
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut map = HashMap::new();
        for s in &self.slots {
            map.insert(format!("m.{}", s.name), s.m.clone());
            map.insert(format!("v.{}", s.name), s.v.clone());
        }
        map.insert("step".to_string(), Tensor::new(&[self.step as u32], &candle_core::Device::Cpu)?);
        candle_core::safetensors::save(&map, path)
            .map_err(|e| ModelError::Weights { path: path.to_path_buf(), message: e.to_string() })
    }

    /// Restores moments and step count saved by [`AdamW::save`].
    pub fn load(&mut self, path: &Path) -> Result<()> {
        let err = |message: String| ModelError::Weights { path: path.to_path_buf(), message };
        let dev = self.slots.first().map(|s| s.var.device().clone());
        let dev = dev.unwrap_or(candle_core::Device::Cpu);
        let map = candle_core::safetensors::load(path, &dev).map_err(|e| err(e.to_string()))?;
        let mut flat_parts: [Vec<Tensor>; 2] = [Vec::new(), Vec::new()];
        for s in &mut self.slots {
            for (k, (key, target)) in [("m", &mut s.m), ("v", &mut s.v)].into_iter().enumerate() {
                let name = format!("{key}.{}", s.name);
                let t = map.get(&name).ok_or_else(|| err(format!("missing optimizer state '{name}'")))?;
                if t.shape() != s.var.shape() {
                    return Err(err(format!("optimizer state '{name}' has the wrong shape")));
                }
                if self.flat.is_some() {
                    flat_parts[k].push(t.flatten_all()?);
                } else {
                    // A copy of its own: the update rewrites moments in place.
                    *target = t.copy()?;
                }
            }
        }
        if let Some(flat) = &self.flat {
            // Written into the flat tensors in place, so the slots' views see them.
            if !self.slots.is_empty() {
                flat.m.set(&Tensor::cat(&flat_parts[0], 0)?)?;
                flat.v.set(&Tensor::cat(&flat_parts[1], 0)?)?;
            }
        }
        let step = map.get("step").ok_or_else(|| err("missing step count".into()))?;
        self.step = step.to_vec1::<u32>()?[0] as usize;
        Ok(())
    }
}

/// Linear warm-up from zero to the peak rate over `warmup_steps`, then linear decay to zero
/// at `total_steps`: the schedule of Hugging Face's `get_linear_schedule_with_warmup`,
/// computed the same way (the factor in double precision, then times the peak).
#[derive(Debug, Clone, Copy)]
pub struct LinearDecay {
    /// Peak learning rate.
    pub peak: f64,
    /// Number of optimizer steps of the whole run.
    pub total_steps: usize,
    /// Steps of linear warm-up (0: start at the peak).
    pub warmup_steps: usize,
}

impl LinearDecay {
    /// The learning rate for the update after `done` updates.
    pub fn lr(&self, done: usize) -> f64 {
        if done < self.warmup_steps {
            return self.peak * (done as f64 / self.warmup_steps.max(1) as f64);
        }
        let left = self.total_steps.saturating_sub(done) as f64;
        self.peak * (left / self.total_steps.saturating_sub(self.warmup_steps).max(1) as f64).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar().unwrap()
    }

    #[test]
    fn flat_moments_update_as_the_per_tensor_path_and_resume() {
        let dev = Device::Cpu;
        let make = || {
            vec![
                ("a.weight".to_string(), Var::new(&[[0.5f32, -1.0], [2.0, 0.25]], &dev).unwrap()),
                ("a.bias".to_string(), Var::new(&[0.1f32, -0.2], &dev).unwrap()),
                ("b.weight".to_string(), Var::new(&[3f32, -2.0, 1.0], &dev).unwrap()),
            ]
        };
        let config = AdamWConfig { lr: 0.05, weight_decay: 0.1, ..Default::default() };
        let (slot_vars, flat_vars) = (make(), make());
        let mut per_tensor = AdamW::new(slot_vars.clone(), config).unwrap();
        let mut flat = AdamW::new_flat(flat_vars.clone(), config, &dev).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for step in 0..4 {
            let mut norms = Vec::new();
            for (opt, vars) in [(&mut per_tensor, &slot_vars), (&mut flat, &flat_vars)] {
                let mut grads = HashMap::new();
                for (i, (name, var)) in vars.iter().enumerate() {
                    // b.weight has no gradient in the second step: it must not move.
                    if !(step == 1 && i == 2) {
                        grads.insert(name.clone(), (var.as_tensor().sqr().unwrap() * (i + 1) as f64).unwrap());
                    }
                }
                norms.push(opt.step_with_norm(&grads, 0.05).unwrap());
            }
            assert!((norms[0] - norms[1]).abs() < 1e-6 * norms[0], "{norms:?}");
            for ((_, a), (name, b)) in slot_vars.iter().zip(&flat_vars) {
                assert!(max_diff(a.as_tensor(), b.as_tensor()) < 1e-6, "{name} after step {step}");
            }
            if step == 1 {
                // Saved and restored into a fresh flat optimizer, the run goes on the same.
                flat.save(&dir.path().join("opt.safetensors")).unwrap();
                let mut resumed = AdamW::new_flat(flat_vars.clone(), config, &dev).unwrap();
                resumed.load(&dir.path().join("opt.safetensors")).unwrap();
                for (a, b) in flat.slots.iter().zip(&resumed.slots) {
                    assert_eq!(max_diff(&a.m, &b.m), 0.0);
                    assert_eq!(max_diff(&a.v, &b.v), 0.0);
                }
                flat = resumed;
            }
        }
        for (a, b) in per_tensor.slots.iter().zip(&flat.slots) {
            assert!(max_diff(&a.m, &b.m) < 1e-6 && max_diff(&a.v, &b.v) < 1e-6, "{}", a.name);
        }
    }

    #[test]
    fn adamw_minimizes_a_quadratic_and_skips_decay_for_biases() {
        let dev = Device::Cpu;
        let w = Var::new(&[3f32, -2.0], &dev).unwrap();
        let b = Var::new(&[1f32], &dev).unwrap();
        let mut opt = AdamW::new(
            vec![("w.weight".into(), w.clone()), ("w.bias".into(), b.clone())],
            AdamWConfig { lr: 0.1, weight_decay: 0.0, ..Default::default() },
        )
        .unwrap();
        for _ in 0..200 {
            let loss = (w.as_tensor().sqr().unwrap().sum_all().unwrap()
                + b.as_tensor().sqr().unwrap().sum_all().unwrap())
            .unwrap();
            let g = loss.backward().unwrap();
            let grads = HashMap::from([
                ("w.weight".to_string(), g.get(w.as_tensor()).unwrap().clone()),
                ("w.bias".to_string(), g.get(b.as_tensor()).unwrap().clone()),
            ]);
            opt.step(&grads, 0.1).unwrap();
        }
        let left: f32 = w.as_tensor().abs().unwrap().sum_all().unwrap().to_scalar().unwrap();
        assert!(left < 0.05, "{left}");
        assert!(decays("encoder.layer.0.attention.self.query.weight"));
        assert!(!decays("embeddings.LayerNorm.weight"));
        assert!(!decays("classifier.bias"));
        let path = std::env::temp_dir().join(format!("quarry-opt-{}.safetensors", std::process::id()));
        opt.save(&path).unwrap();
        let mut again = AdamW::new(vec![("w.weight".into(), w), ("w.bias".into(), b)], AdamWConfig::default()).unwrap();
        again.load(&path).unwrap();
        assert_eq!(again.steps_done(), 200);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn linear_decay_reaches_zero() {
        let s = LinearDecay { peak: 1e-3, total_steps: 10, warmup_steps: 0 };
        assert_eq!(s.lr(0), 1e-3);
        assert!((s.lr(5) - 5e-4).abs() < 1e-12);
        assert_eq!(s.lr(10), 0.0);
        assert_eq!(s.lr(12), 0.0);
        // Hugging Face's warm-up: 0 at the first step, the peak after `warmup_steps`.
        let w = LinearDecay { peak: 1e-3, total_steps: 10, warmup_steps: 4 };
        assert_eq!(w.lr(0), 0.0);
        assert!((w.lr(2) - 5e-4).abs() < 1e-12);
        assert_eq!(w.lr(4), 1e-3);
        assert!((w.lr(7) - 5e-4).abs() < 1e-12);
        assert_eq!(w.lr(10), 0.0);
    }
}
