//! The one row-major matrix product the fused CPU kernels call (through the `gemm` crate):
//! on the calling thread inside a kernel's own parallel tasks, or on candle's threads for a
//! whole-operation product.

use gemm::{gemm, Parallelism};

/// A matrix operand: pointer, row stride, column stride (in elements).
pub(crate) type Operand = (*const f32, usize, usize);

/// Candle's thread count as `gemm` parallelism (none for one thread).
pub(crate) fn candle_parallelism() -> Parallelism {
    let threads = candle_core::utils::get_num_threads();
    if threads > 1 {
        Parallelism::Rayon(threads)
    } else {
        Parallelism::None
    }
}

/// `dst (m x n, row stride dst_rs) = scale * lhs (m x k) . rhs (k x n)`, or with `accumulate`
/// `dst += scale * lhs . rhs`, run with `parallelism`.
///
/// # Safety
/// The pointers and strides must address valid `m x k`, `k x n` and `m x n` matrices, the
/// destination not overlapping the operands nor any memory another thread uses meanwhile.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn product_into(
    (m, n, k): (usize, usize, usize),
    dst: *mut f32,
    dst_rs: usize,
    lhs: Operand,
    rhs: Operand,
    scale: f32,
    accumulate: bool,
    parallelism: Parallelism,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        // An empty sum: zero, or nothing to add.
        if !accumulate {
            (0..m).for_each(|r| std::ptr::write_bytes(dst.add(r * dst_rs), 0, n));
        }
        return;
    }
    gemm(
        m,
        n,
        k,
        dst,
        1,
        dst_rs as isize,
        accumulate,
        lhs.0,
        lhs.2 as isize,
        lhs.1 as isize,
        rhs.0,
        rhs.2 as isize,
        rhs.1 as isize,
        if accumulate { 1.0 } else { 0.0 },
        scale,
        false,
        false,
        false,
        parallelism,
    )
}

/// [`product_into`] without accumulation on the calling thread: the product of one task of a
/// kernel that parallelises over its own tasks.
///
/// # Safety
/// As [`product_into`].
pub(crate) unsafe fn product(
    dims: (usize, usize, usize),
    dst: *mut f32,
    dst_rs: usize,
    lhs: Operand,
    rhs: Operand,
    scale: f32,
) {
    product_into(dims, dst, dst_rs, lhs, rhs, scale, false, Parallelism::None)
}
