//! The parameter store a model is built from: pretrained tensors where present,
//! seeded random initialization where allowed, every parameter a trainable variable.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use candle_core::{DType, Device, Shape, Tensor, Var};
use candle_nn::VarMap;

use crate::error::{ModelError, Result};
use crate::nn::autocast::{Autocast, Precision};
use crate::nn::rng::SeededRng;

/// How a parameter is initialized when no pretrained value exists.
#[derive(Debug, Clone, Copy)]
pub enum Init {
    /// Normal with mean 0 and this standard deviation (BERT uses 0.02).
    Normal(f64),
    /// All zeros.
    Zeros,
    /// All ones.
    Ones,
}

/// Collects the variables of a model while it is being built.
pub struct ParamStore {
    vars: VarMap,
    pretrained: Option<(PathBuf, HashMap<String, Tensor>)>,
    rng: Arc<SeededRng>,
    autocast: Arc<Autocast>,
    device: Device,
    dtype: DType,
}

impl ParamStore {
    /// A store that initializes every parameter randomly.
    pub fn random(rng: Arc<SeededRng>, device: &Device) -> Self {
        ParamStore {
            vars: VarMap::new(),
            pretrained: None,
            rng,
            autocast: Arc::default(),
            device: device.clone(),
            dtype: DType::F32,
        }
    }

    /// A store that takes parameters from `tensors` (read from `source`).
    pub fn pretrained(source: PathBuf, tensors: HashMap<String, Tensor>, rng: Arc<SeededRng>, device: &Device) -> Self {
        ParamStore {
            vars: VarMap::new(),
            pretrained: Some((source, tensors)),
            rng,
            autocast: Arc::default(),
            device: device.clone(),
            dtype: DType::F32,
        }
    }

    /// The store computing in `precision`: its autocast setting, and the dtype every
    /// parameter is taken in from here on (f64 for [`Precision::F64`], else f32).
    pub fn in_precision(mut self, precision: Precision) -> Self {
        self.dtype = if precision == Precision::F64 { DType::F64 } else { DType::F32 };
        self.autocast.set(precision);
        self
    }

    /// The dtype parameters are stored in.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The device parameters live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The shared random generator.
    pub fn rng(&self) -> &Arc<SeededRng> {
        &self.rng
    }

    /// The precision setting every layer built from this store computes in.
    pub fn autocast(&self) -> &Arc<Autocast> {
        &self.autocast
    }

    /// Whether a pretrained tensor of this name exists.
    pub fn has_pretrained(&self, name: &str) -> bool {
        self.pretrained.as_ref().is_some_and(|(_, t)| t.contains_key(name))
    }

    /// Makes the pretrained tensor `from` also the pretrained value of `name`, unless `name`
    /// has one of its own: how a decoder is warm-started from encoder layers. Returns whether
    /// `name` now has a pretrained value.
    pub fn alias_pretrained(&mut self, name: &str, from: &str) -> bool {
        let Some((_, tensors)) = self.pretrained.as_mut() else { return false };
        if !tensors.contains_key(name) {
            let Some(t) = tensors.get(from).cloned() else { return false };
            tensors.insert(name.to_string(), t);
        }
        true
    }

    /// Returns the parameter `name` as a trainable variable.
    ///
    /// A pretrained value must have exactly `shape`. When there is none, a required
    /// parameter of a pretrained store is an error; otherwise it is initialized with `init`.
    pub fn get(&mut self, name: &str, shape: impl Into<Shape>, init: Init, required: bool) -> Result<Tensor> {
        let shape = shape.into();
        let tensor = match self.pretrained.as_ref().and_then(|(p, t)| t.get(name).map(|t| (p, t))) {
            Some((path, t)) => {
                if t.shape() != &shape {
                    return Err(ModelError::Weights {
                        path: path.clone(),
                        message: format!(
                            "tensor '{name}' has shape {:?}, the configuration needs {:?}",
                            t.dims(),
                            shape.dims()
                        ),
                    });
                }
                if !t.dtype().is_float() {
                    // transformers would cast such values into a float parameter; they are no
                    // trained weights, so say so rather than compute with them.
                    return Err(ModelError::Weights {
                        path: path.clone(),
                        message: format!(
                            "tensor '{name}' holds {:?} integers; a parameter needs floating-point values (f16, \
                             bf16, f32 or f64)",
                            t.dtype()
                        ),
                    });
                }
                t.to_dtype(self.dtype)?.to_device(&self.device)?
            }
            None => {
                if let (Some((path, _)), true) = (&self.pretrained, required) {
                    return Err(ModelError::Weights {
                        path: path.clone(),
                        message: format!("missing tensor '{name}'"),
                    });
                }
                match init {
                    Init::Normal(std) => self.rng.normal(&shape, std, &self.device)?.to_dtype(self.dtype)?,
                    Init::Zeros => Tensor::zeros(&shape, self.dtype, &self.device)?,
                    Init::Ones => Tensor::ones(&shape, self.dtype, &self.device)?,
                }
            }
        };
        let var = Var::from_tensor(&tensor)?;
        let t = var.as_tensor().clone();
        self.vars.data().lock().unwrap_or_else(|p| p.into_inner()).insert(name.to_string(), var);
        Ok(t)
    }

    /// The variables collected so far.
    pub fn vars(&self) -> &VarMap {
        &self.vars
    }

    /// Gives up the collected variables.
    pub fn into_vars(self) -> VarMap {
        self.vars
    }
}

/// Named trainable variables of a model, in a stable (sorted) order.
pub fn sorted_vars(vars: &VarMap) -> Vec<(String, Var)> {
    let data = vars.data().lock().unwrap_or_else(|p| p.into_inner());
    let mut v: Vec<(String, Var)> = data.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_of(tensor: Tensor) -> ParamStore {
        let tensors = HashMap::from([("w".to_string(), tensor)]);
        ParamStore::pretrained("model.safetensors".into(), tensors, crate::nn::bert::seeded(0), &Device::Cpu)
    }

    /// An integer tensor (a checkpoint saved with `.long()` weights) loaded as numbers that
    /// were never trained; every float width loads.
    #[test]
    fn integer_weights_are_refused_naming_the_tensor() {
        let ints = Tensor::new(&[1i64, 2], &Device::Cpu).unwrap();
        let error = store_of(ints).get("w", 2, Init::Zeros, true).unwrap_err().to_string();
        assert!(error.contains("model.safetensors") && error.contains("'w'") && error.contains("I64"), "{error}");
        for dtype in [DType::F16, DType::BF16, DType::F32, DType::F64] {
            let floats = Tensor::new(&[1f32, 2.], &Device::Cpu).unwrap().to_dtype(dtype).unwrap();
            let w = store_of(floats).get("w", 2, Init::Zeros, true).unwrap();
            assert_eq!(w.to_vec1::<f32>().unwrap(), [1., 2.]);
        }
    }
}
