//! AdamW over every parameter tensor of a model in one CUDA launch (`cuda/quarry.cu`'s
//! `adamw_multi_f32`), updating the parameters and the flat moments in place. The flat update
//! ([`super::adamw_flat::AdamWStep`]) needs every parameter and gradient gathered into one
//! buffer and the parameters scattered back: about two hundred copies for MiniLM's 101
//! tensors (0.75 ms of an H100's step, and a launch each for the host). Here the kernel gets a
//! table of their addresses instead, as PyTorch's multi-tensor (`foreach`) optimizers do.
//! The arithmetic is the flat update's CPU loop's, element by element, so the two agree exactly.

use candle_core::backend::BackendStorage;
use candle_core::cuda_backend::cudarc::driver::{DevicePtr, PushKernelArg};
use candle_core::cuda_backend::WrapErr;
use candle_core::{bail, CpuStorage, CudaStorage, CustomOp1, Layout, Result, Shape, Storage, Tensor, Var};

use super::adamw_cpu::Step;
use super::cuda_kernels::{view, MODULE, PTX};

/// u64s per parameter in the kernel's table (`ADAMW_SLOT` in `quarry.cu`).
const SLOT: usize = 6;

/// Threads per block, and the most blocks (each writes one partial sum of squares).
const THREADS: u32 = 256;
const MAX_BLOCKS: usize = 1024;

/// One update of `params` (with `grads`, `None` for none this step) whose moments are the
/// parts `spans` of the flat `m` and `v`; returns each block's sum of the squared gradients
/// (to be summed and read back once everything is issued).
pub(crate) struct MultiTensorAdamW<'a> {
    /// The parameters, in slot order.
    pub(crate) params: &'a [&'a Var],
    /// Their gradients, contiguous f32 (`None`: the parameter is left as it is).
    pub(crate) grads: &'a [Option<Tensor>],
    /// The flat second moments (the op is applied to the first).
    pub(crate) v: &'a Tensor,
    /// `(offset, length)` of each parameter in the flat moments.
    pub(crate) spans: &'a [(usize, usize)],
    /// Whether each parameter decays.
    pub(crate) decays: &'a [bool],
    /// The step's constants.
    pub(crate) step: Step,
}

impl CustomOp1 for MultiTensorAdamW<'_> {
    fn name(&self) -> &'static str {
        "adamw-multi-tensor"
    }

    fn cpu_fwd(&self, _: &CpuStorage, _: &Layout) -> Result<(CpuStorage, Shape)> {
        bail!("{}: a CUDA operation (the CPU updates each parameter in place, kernels::adamw_cpu)", self.name())
    }

    fn cuda_fwd(&self, m: &CudaStorage, ml: &Layout) -> Result<(CudaStorage, Shape)> {
        let name = self.name();
        let device = m.device().clone();
        let stream = device.cuda_stream();
        let m = view::<f32>(m, ml, name)?;
        let (v_storage, vl) = self.v.storage_and_layout();
        let Storage::Cuda(v) = &*v_storage else { bail!("{name}: the moments must be on one GPU") };
        let v = view::<f32>(v, vl, name)?;
        // Held until the launch is issued: the table points into these tensors' storage.
        let thetas: Vec<_> = self.params.iter().map(|p| p.as_tensor().storage_and_layout()).collect();
        let grads: Vec<_> = self.grads.iter().map(|g| g.as_ref().map(|g| g.storage_and_layout())).collect();
        let mut table = Vec::with_capacity(SLOT * self.params.len());
        let mut n = 0usize;
        for (i, ((theta, tl), grad)) in thetas.iter().zip(&grads).enumerate() {
            let Some((grad, gl)) = grad else { continue };
            let (Storage::Cuda(theta), Storage::Cuda(grad)) = (&**theta, &**grad) else {
                bail!("{name}: parameter {i} or its gradient is not on the moments' GPU")
            };
            let (offset, len) = self.spans[i];
            let (theta, grad) = (view::<f32>(theta, tl, name)?, view::<f32>(grad, gl, name)?);
            if theta.len() != len || grad.len() != len {
                bail!("{name}: parameter {i} has {} elements and a gradient of {}, not {len}", theta.len(), grad.len())
            }
            let (theta_ptr, _) = theta.device_ptr(&stream);
            let (grad_ptr, _) = grad.device_ptr(&stream);
            table.extend([theta_ptr, grad_ptr, offset as u64, n as u64, len as u64, u64::from(self.decays[i])]);
            n += len;
        }
        let blocks = n.div_ceil(THREADS as usize).clamp(1, MAX_BLOCKS);
        let partial = device.alloc_zeros::<f32>(blocks)?;
        if n > 0 {
            let slots = device.clone_htod(&table)?;
            let func = device.get_or_load_custom_func("adamw_multi_f32", MODULE, PTX)?;
            let mut builder = func.builder();
            builder.arg(&slots);
            let n_slots = (table.len() / SLOT) as u32;
            builder.arg(&n_slots);
            builder.arg(&n);
            builder.arg(&m);
            builder.arg(&v);
            builder.arg(&partial);
            let constants = self.step.kernel_constants();
            for c in &constants {
                builder.arg(c);
            }
            let config = candle_core::cuda_backend::cudarc::driver::LaunchConfig {
                grid_dim: (blocks as u32, 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: every address in the table is a live f32 buffer of its slot's length
            // (checked above; the storage guards are held past the launch, and the stream
            // orders the kernel before any later use or release of them); `m` and `v` hold
            // every span. The kernel writes the parameters, `m` and `v` in place, as
            // `Var::set` would, each element once.
            unsafe { builder.launch(config) }.w()?;
        }
        Ok((CudaStorage::wrap_cuda_slice(partial, device), Shape::from(blocks)))
    }
}

/// [`MultiTensorAdamW`] applied: updates the parameters and the moments `m`, `v` in place and
/// returns the sum of the squared gradients, a scalar on the GPU.
pub(crate) fn update(m: &Var, op: &MultiTensorAdamW<'_>) -> Result<Tensor> {
    m.as_tensor().apply_op1_no_bwd(op)?.sum_all()
}
