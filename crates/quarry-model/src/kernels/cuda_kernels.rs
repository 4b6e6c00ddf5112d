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
fn row_blocks(rows: usize) -> LaunchConfig {
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

/// Launches kernel `name` with one block per row (`row_blocks`), passing `buffers` (its f32
/// inputs, then its outputs), then `ints` and `floats`: the shape of the kernels that reduce
/// over rows (layer norm, softmax). Nothing runs for no rows.
///
/// # Safety
/// The kernel's parameters must be exactly these, in this order, and every row it reads or
/// writes must lie within `buffers`.
pub(crate) unsafe fn launch_per_row(
    device: &candle_core::CudaDevice,
    name: &str,
    rows: usize,
    buffers: &[candle_core::cuda_backend::cudarc::driver::CudaView<'_, f32>],
    ints: &[u32],
    floats: &[f32],
) -> candle_core::Result<()> {
    use candle_core::cuda_backend::cudarc::driver::PushKernelArg;
    use candle_core::cuda_backend::WrapErr;

    if rows == 0 {
        return Ok(());
    }
    let func = device.get_or_load_custom_func(name, MODULE, PTX)?;
    let mut builder = func.builder();
    for buffer in buffers {
        builder.arg(buffer);
    }
    for value in ints {
        builder.arg(value);
    }
    for value in floats {
        builder.arg(value);
    }
    // SAFETY: the caller vouches for the parameters and the buffers' extent.
    unsafe { builder.launch(row_blocks(rows)) }.w()?;
    Ok(())
}
