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
        let message = concat!(
            "this build has no CUDA support; build one with `scripts/build-cuda` ",
            "(`--features cuda` and the CUDA toolchain; see the README's \"On a GPU\")"
        );
        return Err(err(message.into()));
    }
    let device = Device::new_cuda(ordinal).map_err(|e| err(e.to_string()))?;
    #[cfg(feature = "cuda")]
    if let Device::Cuda(cuda) = &device {
        tune_cuda(cuda).map_err(|e| err(e.to_string()))?;
    }
    Ok(device)
}

/// Sets up a fresh CUDA device for quarry's one-stream use. candle leaves two costs on:
/// - cudarc's event tracking: two CUDA events made and destroyed with every allocation, to order
///   work across streams; quarry runs everything on the device's one stream, where stream order
///   already does that.
/// - the stream-ordered allocator's release threshold of 0: every synchronisation (each training
///   step reads its loss back) hands the freed memory back to the driver, so the next step maps
///   its activations afresh. Keeping it pooled is what PyTorch's caching allocator does.
#[cfg(feature = "cuda")]
fn tune_cuda(cuda: &candle_core::CudaDevice) -> std::result::Result<(), String> {
    use candle_core::cuda_backend::cudarc::driver::sys;
    // SAFETY: nothing has been allocated on this device handle yet, and quarry launches all of its
    // work on the device's one stream, so no cross-stream ordering is needed.
    unsafe { cuda.disable_event_tracking() };
    let stream = cuda.cuda_stream();
    let context = stream.context();
    context.bind_to_thread().map_err(|e| e.to_string())?;
    let mut pool = std::ptr::null_mut();
    let mut keep = u64::MAX;
    // SAFETY: plain driver calls on a valid device ordinal with pointers to live locals.
    let status = unsafe {
        match sys::cuDeviceGetDefaultMemPool(&mut pool, context.cu_device()) {
            sys::CUresult::CUDA_SUCCESS => sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut keep as *mut u64).cast(),
            ),
            failed => failed,
        }
    };
    match status {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        failed => Err(format!("keeping freed GPU memory pooled: {failed:?}")),
    }
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
            assert!(parse_device("cuda:0").unwrap_err().to_string().contains("scripts/build-cuda"));
        }
    }
}
