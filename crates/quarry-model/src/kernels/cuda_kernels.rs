//! quarry's own CUDA kernels (`cuda/quarry.cu`, compiled to PTX by `build.rs`) and the launch
//! shape they share. A kernel is loaded with
//! `device.get_or_load_custom_func(name, MODULE, PTX)`, which compiles the module once per
//! device.

use candle_core::cuda_backend::cudarc::driver::LaunchConfig;

/// The PTX of `cuda/quarry.cu`.
pub(crate) const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/quarry.ptx"));

/// The name the module is loaded under.
pub(crate) const MODULE: &str = "quarry";

/// Enough blocks of 256 threads for one thread per element of `n` (the kernels stride over
/// the rest when the grid is capped).
pub(crate) fn elementwise(n: usize) -> LaunchConfig {
    const THREADS: u32 = 256;
    let blocks = n.div_ceil(THREADS as usize).clamp(1, 1 << 20) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }
}

/// One block of 128 threads per row, for the kernels that reduce over a row.
pub(crate) fn row_blocks(rows: usize) -> LaunchConfig {
    LaunchConfig { grid_dim: (rows as u32, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 }
}

/// The elements of contiguous `storage` under `layout`, for operation `what`.
pub(crate) fn view<'a, T: candle_core::cuda_backend::CudaDType>(
    storage: &'a candle_core::CudaStorage,
    layout: &candle_core::Layout,
    what: &str,
) -> candle_core::Result<candle_core::cuda_backend::cudarc::driver::CudaView<'a, T>> {
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("{what}: an input is not contiguous")
    };
    Ok(storage.as_cuda_slice::<T>()?.slice(start..end))
}
