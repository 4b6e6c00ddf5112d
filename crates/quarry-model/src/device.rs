//! Parsing `--device cpu|cuda[:N]`.

/// candle's device, re-exported for callers that name one without depending on candle.
pub use candle_core::Device;

use crate::error::{ModelError, Result};

/// Opens the device named by `spec`: `cpu`, `cuda` (GPU 0) or `cuda:N`.
///
/// CUDA needs the crate's `cuda` feature; without it the error says so.
pub fn parse_device(spec: &str) -> Result<Device> {
    let err = |message: String| ModelError::Device { spec: spec.to_string(), message };
    let ordinal = match spec {
        "cpu" => return Ok(Device::Cpu),
        "cuda" => 0,
        s => match s.strip_prefix("cuda:") {
            Some(n) => n.parse::<usize>().map_err(|_| err(format!("'{n}' is not a GPU number")))?,
            None => return Err(err("expected cpu, cuda or cuda:N".into())),
        },
    };
    if !cfg!(feature = "cuda") {
        return Err(err("this build has no CUDA support; rebuild with `--features cuda`".into()));
    }
    Device::new_cuda(ordinal).map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_devices() {
        assert!(parse_device("cpu").unwrap().is_cpu());
        assert!(parse_device("tpu").is_err());
        assert!(parse_device("cuda:x").is_err());
        if !cfg!(feature = "cuda") {
            assert!(parse_device("cuda:0").unwrap_err().to_string().contains("--features cuda"));
        }
    }
}
