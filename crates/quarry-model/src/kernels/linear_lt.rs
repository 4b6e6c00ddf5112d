//! A linear layer's product and bias in one cuBLASLt call on CUDA, the bias added by the
//! product's epilogue, where candle's product and quarry's bias kernel
//! ([`super::bias_add`]) were two launches and the product's output was written, read and
//! written again (37 bias launches, 0.35 ms of an H100's MiniLM forward pass; PyTorch's
//! `addmm` fuses the bias the same way). f32 computes in f32: cudarc's own cuBLASLt binding
//! asks for TF32 in f32, which PyTorch does not use by default and which would round the
//! inputs to 10 bits, so quarry binds the same matmul with `CUBLAS_COMPUTE_32F`; bf16
//! accumulates in f32, as cuBLAS does. The backward pass is candle's products and
//! [`super::ops::column_sums`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use candle_core::backend::BackendStorage;
use candle_core::cuda_backend::cudarc::cublaslt::{sys, CudaBlasLT, Matmul, MatmulConfig, MatmulShared, Workspace};
use candle_core::cuda_backend::cudarc::driver::{CudaStream, DevicePtr};
use candle_core::cuda_backend::{CudaDType, DeviceId};
use candle_core::{bail, CpuStorage, CudaStorage, CustomOp3, DType, Layout, Result, Shape, Storage, Tensor};

use super::cuda_kernels::view;

/// cuBLASLt with every product computed at its inputs' precision (f32 in f32, not TF32).
struct ExactLt(CudaBlasLT);

impl MatmulShared for ExactLt {
    fn handle(&self) -> &sys::cublasLtHandle_t {
        self.0.handle()
    }

    fn workspace(&self) -> &Workspace {
        self.0.workspace()
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.0.stream()
    }
}

impl Matmul<f32> for ExactLt {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_32F
    }

    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

impl Matmul<half::bf16> for ExactLt {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_16BF
    }

    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

/// One cuBLASLt handle (with its 32 MB workspace) per device, made at first use.
fn handle_for(device: &candle_core::CudaDevice) -> Result<Arc<ExactLt>> {
    static HANDLES: OnceLock<Mutex<HashMap<DeviceId, Arc<ExactLt>>>> = OnceLock::new();
    let mut handles = HANDLES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(lt) = handles.get(&device.id()) {
        return Ok(lt.clone());
    }
    let lt = CudaBlasLT::new(device.cuda_stream()).map_err(|e| candle_core::Error::Cuda(Box::new(e)))?;
    let lt = Arc::new(ExactLt(lt));
    handles.insert(device.id(), lt.clone());
    Ok(lt)
}

/// cuBLASLt's default assumption about every operand's address (bytes).
const ALIGNMENT: u64 = 256;

/// Whether `t` is a CUDA tensor whose data starts on a [`ALIGNMENT`] boundary.
fn aligned(t: &Tensor) -> bool {
    let (storage, layout) = t.storage_and_layout();
    let Storage::Cuda(s) = &*storage else { return false };
    let stream = s.device().cuda_stream();
    let start = match s.dtype() {
        DType::F32 => s.as_cuda_slice::<f32>().map(|c| c.device_ptr(&stream).0),
        DType::BF16 => s.as_cuda_slice::<half::bf16>().map(|c| c.device_ptr(&stream).0),
        _ => return false,
    };
    let offset = (layout.start_offset() * t.dtype().size_in_bytes()) as u64;
    start.is_ok_and(|p| (p + offset).is_multiple_of(ALIGNMENT))
}

/// `x W^T + b` for `x` `(rows, in)`, `weight` `(out, in)` and `bias` `(out,)`, one cuBLASLt
/// call on CUDA in f32 or bf16; `None` where it does not apply (another device or dtype,
/// mixed dtypes, no rows or columns, an operand off cuBLASLt's alignment) or where cuBLASLt fails (said once on
/// standard error), so that the caller composes the layer instead.
pub(crate) fn linear(x: &Tensor, weight: &Tensor, bias: &Tensor) -> Result<Option<Tensor>> {
    let dtype = x.dtype();
    let same = [weight.dtype(), bias.dtype()].iter().all(|d| *d == dtype);
    let empty = x.elem_count() == 0 || weight.elem_count() == 0;
    if !x.device().is_cuda() || !matches!(dtype, DType::F32 | DType::BF16) || !same || empty {
        return Ok(None);
    }
    let (x, weight, bias) = (x.contiguous()?, weight.contiguous()?, bias.contiguous()?);
    if ![&x, &weight, &bias].iter().all(|t| aligned(t)) {
        return Ok(None);
    }
    match x.apply_op3(&weight, &bias, LinearLt) {
        Ok(y) => Ok(Some(y)),
        Err(e) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("note: cuBLASLt failed ({e}); linear layers add their bias separately"));
            Ok(None)
        }
    }
}

/// `(x, weight, bias) -> x W^T + b`.
struct LinearLt;

impl CustomOp3 for LinearLt {
    fn name(&self) -> &'static str {
        "linear-cublaslt"
    }

    fn cpu_fwd(
        &self,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        bail!("{}: a CUDA operation (the CPU has its own fused linear kernel, kernels::fused_linear)", self.name())
    }

    fn cuda_fwd(
        &self,
        x: &CudaStorage,
        xl: &Layout,
        w: &CudaStorage,
        wl: &Layout,
        b: &CudaStorage,
        bl: &Layout,
    ) -> Result<(CudaStorage, Shape)> {
        fn run<T: CudaDType + candle_core::cuda_backend::cudarc::driver::DeviceRepr>(
            (x, xl): (&CudaStorage, &Layout),
            (w, wl): (&CudaStorage, &Layout),
            (b, bl): (&CudaStorage, &Layout),
            (rows, inputs, outputs): (usize, usize, usize),
        ) -> Result<CudaStorage>
        where
            ExactLt: Matmul<T>,
        {
            let device = x.device().clone();
            let lt = handle_for(&device)?;
            let name = "linear-cublaslt";
            let (x, w, b) = (view::<T>(x, xl, name)?, view::<T>(w, wl, name)?, view::<T>(b, bl, name)?);
            // SAFETY: cuBLASLt writes every element of the output.
            let mut y = unsafe { device.alloc::<T>(rows * outputs)? };
            // Column-major, as cuBLASLt sees row-major buffers: y^T (outputs x rows) =
            // op(W) (outputs x inputs, W's buffer read transposed) times x^T (inputs x rows),
            // plus the bias down each column.
            let cfg = MatmulConfig {
                transa: true,
                transb: false,
                transc: false,
                m: outputs as u64,
                n: rows as u64,
                k: inputs as u64,
                alpha: 1.0,
                lda: inputs as i64,
                ldb: inputs as i64,
                beta: 0.0,
                ldc: outputs as i64,
                stride_a: None,
                stride_b: None,
                stride_c: None,
                stride_bias: None,
                batch_size: None,
            };
            // SAFETY: `w` holds outputs x inputs elements, `x` rows x inputs, `b` outputs and
            // `y` rows x outputs (checked by the caller), all contiguous and 256-byte aligned.
            unsafe { lt.matmul(cfg, &w, &x, &mut y, Some(&b), None) }
                .map_err(|e| candle_core::Error::Cuda(Box::new(e)))?;
            Ok(CudaStorage::wrap_cuda_slice(y, device))
        }

        let (rows, inputs) = xl.shape().dims2()?;
        let (outputs, w_inputs) = wl.shape().dims2()?;
        if w_inputs != inputs || bl.shape().dims1()? != outputs {
            bail!("{}: x {:?}, weight {:?} and bias {:?} do not fit", self.name(), xl.shape(), wl.shape(), bl.shape())
        }
        let dims = (rows, inputs, outputs);
        let y = match x.dtype() {
            DType::F32 => run::<f32>((x, xl), (w, wl), (b, bl), dims)?,
            DType::BF16 => run::<half::bf16>((x, xl), (w, wl), (b, bl), dims)?,
            other => bail!("{}: {other:?} (f32 or bf16 only)", self.name()),
        };
        Ok((y, Shape::from((rows, outputs))))
    }

    fn bwd(
        &self,
        x: &Tensor,
        w: &Tensor,
        _b: &Tensor,
        _y: &Tensor,
        dy: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let dx = dy.matmul(w)?;
        let dw = dy.t()?.matmul(x)?;
        let db = super::ops::column_sums(dy, w.dim(0)?)?;
        Ok((Some(dx), Some(dw), Some(db)))
    }
}
