// quarry's own CUDA kernels, compiled to PTX by build.rs with the `cuda` feature. Each one
// mirrors a CPU loop in the Rust module named beside it, which the tests check.

#include <stdint.h>
#include <cuda_bf16.h>

// kernels/embedding.rs (GroupedRowSum): the gradient of an embedding table. Rows of `grad`
// ([rows, cols]) are grouped by the table row they looked up: group g is table row
// unique_ids[g], and its rows are order[offsets[g] .. offsets[g + 1]], ascending. Each thread
// sums one (group, column) in that order from zero, as candle's index_add does, so results
// are deterministic and equal to it bit for bit. `out` ([table_rows, cols]) is zeroed by the
// caller; rows no id looked up stay zero.
extern "C" __global__ void grouped_row_sum_f32(
    const float* grad,
    const uint32_t* unique_ids,
    const uint32_t* offsets,
    const uint32_t* order,
    float* out,
    const uint32_t groups,
    const uint32_t cols
) {
    const size_t n = (size_t)groups * cols;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const size_t group = i / cols;
        const size_t col = i % cols;
        float sum = 0.0f;
        for (uint32_t k = offsets[group]; k < offsets[group + 1]; ++k) {
            sum += grad[(size_t)order[k] * cols + col];
        }
        out[(size_t)unique_ids[group] * cols + col] = sum;
    }
}

struct Sum {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct Max {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// `op` over `v` of every thread of the block (blockDim.x a multiple of 32, at most 1024),
// returned to every thread.
template <typename Op>
__device__ float block_reduce(float v, Op op, float identity) {
    __shared__ float partial[32];
    __shared__ float total;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
    const unsigned warps = (blockDim.x + 31u) >> 5;
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();  // an earlier call has finished reading partial and total
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? partial[lane] : identity;
        for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
        if (lane == 0) total = v;
    }
    __syncthreads();
    return total;
}

__device__ float block_sum(float v) { return block_reduce(v, Sum(), 0.0f); }
__device__ float block_max(float v) { return block_reduce(v, Max(), -INFINITY); }

#include "dropout.cuh"
#include "attention.cuh"

// The mean and 1 / sqrt(variance + eps) of one row, the variance taken about the mean.
__device__ float2 row_moments(const float* x, const uint32_t cols, const float eps) {
    float s = 0.0f;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) s += x[c];
    const float mean = block_sum(s) / cols;
    float q = 0.0f;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float d = x[c] - mean;
        q += d * d;
    }
    return make_float2(mean, rsqrtf(block_sum(q) / cols + eps));
}

// The means over one row of g = dy * w and of g * xh, xh = (x - mean) * rstd with the row's
// moments `m`: the two reductions of a layer norm's input gradient.
__device__ float2 row_grad_means(const float* x, const float* w, const float* dy, const uint32_t cols, const float2 m) {
    float sum_g = 0.0f, sum_g_xh = 0.0f;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float xh = (x[c] - m.x) * m.y;
        const float g = dy[c] * w[c];
        sum_g += g;
        sum_g_xh += g * xh;
    }
    const float mean_g = block_sum(sum_g) / cols;
    return make_float2(mean_g, block_sum(sum_g_xh) / cols);
}

// kernels/layer_norm.rs (LayerNormOp): y = (x - mean) * rstd * w + b over each row of x
// ([rows, cols]), one block per row.
extern "C" __global__ void layer_norm_f32(
    const float* x, const float* w, const float* b, float* y, const uint32_t cols, const float eps
) {
    const size_t offset = (size_t)blockIdx.x * cols;
    const float2 m = row_moments(x + offset, cols, eps);
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        y[offset + c] = (x[offset + c] - m.x) * m.y * w[c] + b[c];
    }
}

// kernels/layer_norm.rs (LayerNormGrad): with xh = (x - mean) * rstd and g = dy * w,
// dx = rstd * (g - mean(g) - xh * mean(g * xh)) and dy_xh = dy * xh (summed over rows by the
// caller for w's gradient), one block per row; the row's moments are computed again.
extern "C" __global__ void layer_norm_backward_f32(
    const float* x, const float* w, const float* dy, float* dx, float* dy_xh, const uint32_t cols, const float eps
) {
    const size_t offset = (size_t)blockIdx.x * cols;
    const float2 m = row_moments(x + offset, cols, eps);
    const float2 means = row_grad_means(x + offset, w, dy + offset, cols, m);
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float xh = (x[offset + c] - m.x) * m.y;
        const float g = dy[offset + c] * w[c];
        dx[offset + c] = m.y * (g - means.x - xh * means.y);
        dy_xh[offset + c] = dy[offset + c] * xh;
    }
}

// kernels/residual_norm.rs (ResidualNorm, ResidualNormGrad): the layer norm of
// z = a * mask + residual, the dropout mask's element i drawn for z's flat index i (dropout.cuh;
// with dropping == 0, z = a + residual). The product is rounded before the sum (__fmul_rn), as
// the CPU op and the composed dropout and addition compute it. The key and threshold come as
// u32s (the threshold is below 2^32).
__device__ __forceinline__ float residual_sum(
    const float a, const float r, const uint32_t dropping, const uint64_t key, const uint32_t threshold,
    const float keep_scale, const uint64_t i
) {
    return dropping ? __fmul_rn(a, dropout_mask(key, threshold, keep_scale, i)) + r : a + r;
}

// The forward pass, one block per row of a and r ([rows, cols]); wb holds w then b (2 * cols).
// Each thread writes the z of its columns to y, which row_moments reads back (the same thread's
// columns), and then normalizes them in place.
extern "C" __global__ void residual_layer_norm_f32(
    const float* a, const float* r, const float* wb, float* y, const uint32_t cols, const uint32_t dropping,
    const uint32_t key_lo, const uint32_t key_hi, const uint32_t threshold, const float eps, const float keep_scale
) {
    const size_t offset = (size_t)blockIdx.x * cols;
    const uint64_t key = ((uint64_t)key_hi << 32) | key_lo;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        y[offset + c] = residual_sum(a[offset + c], r[offset + c], dropping, key, threshold, keep_scale, offset + c);
    }
    const float2 m = row_moments(y + offset, cols, eps);
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        y[offset + c] = (y[offset + c] - m.x) * m.y * wb[c] + wb[cols + c];
    }
}

// The backward pass, one block per row, as layer_norm_backward_f32 with x = z: dr is the input
// gradient, da = dr * mask (written only when dropping), and params ([rows, 2 * cols]) holds
// dy * xhat then dy for each row, whose column sums are w's and b's gradients. z is recomputed
// into dr (each thread's own columns) before dr is written.
extern "C" __global__ void residual_layer_norm_backward_f32(
    const float* a, const float* r, const float* w, const float* dy, float* dr, float* da, float* params,
    const uint32_t cols, const uint32_t dropping, const uint32_t key_lo, const uint32_t key_hi,
    const uint32_t threshold, const float eps, const float keep_scale
) {
    const size_t offset = (size_t)blockIdx.x * cols;
    const uint64_t key = ((uint64_t)key_hi << 32) | key_lo;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        dr[offset + c] = residual_sum(a[offset + c], r[offset + c], dropping, key, threshold, keep_scale, offset + c);
    }
    const float2 m = row_moments(dr + offset, cols, eps);
    const float2 means = row_grad_means(dr + offset, w, dy + offset, cols, m);
    float* p = params + 2 * offset;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float xh = (dr[offset + c] - m.x) * m.y;
        const float d = dy[offset + c];
        const float dz = m.y * (d * w[c] - means.x - xh * means.y);
        dr[offset + c] = dz;
        if (dropping) da[offset + c] = dz * dropout_mask(key, threshold, keep_scale, offset + c);
        p[c] = d * xh;
        p[cols + c] = d;
    }
}

// kernels/masked_softmax.rs (MaskedSoftmaxOp): softmax over each row of x + bias, where x is
// [rows, cols] and row r adds bias row r / rows_per_batch ([rows / rows_per_batch, cols]):
// attention scores and their padding mask in one pass. One block per row.
extern "C" __global__ void masked_softmax_f32(
    const float* x, const float* bias, float* y, const uint32_t cols, const uint32_t rows_per_batch
) {
    const size_t offset = (size_t)blockIdx.x * cols;
    const float* b = bias + (size_t)(blockIdx.x / rows_per_batch) * cols;
    float m = -INFINITY;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[offset + c] + b[c]);
    m = block_max(m);
    float s = 0.0f;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float e = expf(x[offset + c] + b[c] - m);
        y[offset + c] = e;
        s += e;
    }
    const float inv = 1.0f / block_sum(s);
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) y[offset + c] *= inv;
}

// kernels/masked_softmax.rs (SoftmaxGrad): dx = y * (dy - sum(dy * y)) over each row.
extern "C" __global__ void softmax_backward_f32(const float* y, const float* dy, float* dx, const uint32_t cols) {
    const size_t offset = (size_t)blockIdx.x * cols;
    float d = 0.0f;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) d += dy[offset + c] * y[offset + c];
    d = block_sum(d);
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) dx[offset + c] = y[offset + c] * (dy[offset + c] - d);
}

// kernels/bias_add.rs (BiasAdd): y = x + b over the rows of x ([n / cols, cols]).
extern "C" __global__ void bias_add_f32(const float* x, const float* b, float* y, const size_t n, const uint32_t cols) {
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = x[i] + b[i % cols];
}

extern "C" __global__ void bias_add_bf16(
    const __nv_bfloat16* x, const __nv_bfloat16* b, __nv_bfloat16* y, const size_t n, const uint32_t cols
) {
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = __hadd(x[i], b[i % cols]);
}

// kernels/gelu_cuda.rs (ops.rs's Gelu and GeluGrad): exact GELU y = x Phi(x) and its input
// gradient dx = dy (Phi(x) + x phi(x)), computed in f32 as the CPU loops compute them; f32
// buffers on 16-byte boundaries are read and written four elements at a time.
#define GELU_SQRT_2_INV 0.70710678118654752f
#define GELU_INV_SQRT_2PI 0.39894228040143268f

__device__ __forceinline__ float gelu_value(float x) { return 0.5f * x * (1.0f + erff(x * GELU_SQRT_2_INV)); }

__device__ __forceinline__ float gelu_slope(float x) {
    return 0.5f * (1.0f + erff(x * GELU_SQRT_2_INV)) + x * GELU_INV_SQRT_2PI * __expf(-0.5f * x * x);
}

__device__ __forceinline__ bool aligned16(const void* p) { return ((uintptr_t)p & 15u) == 0; }

template <typename T>
__device__ void gelu_elements(const T* x, T* y, size_t first, size_t n) {
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = first + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        store_float(y + i, gelu_value(load_float(x + i)));
}

template <typename T>
__device__ void gelu_grad_elements(const T* x, const T* dy, T* dx, size_t first, size_t n) {
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = first + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        store_float(dx + i, load_float(dy + i) * gelu_slope(load_float(x + i)));
}

extern "C" __global__ void gelu_f32(const float* x, float* y, const size_t n) {
    size_t done = 0;
    if (aligned16(x) && aligned16(y)) {
        const size_t n4 = n / 4, stride = (size_t)blockDim.x * gridDim.x;
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            const float4 v = reinterpret_cast<const float4*>(x)[i];
            reinterpret_cast<float4*>(y)[i] = make_float4(gelu_value(v.x), gelu_value(v.y), gelu_value(v.z), gelu_value(v.w));
        }
        done = n4 * 4;
    }
    gelu_elements<float>(x, y, done, n);
}

extern "C" __global__ void gelu_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, const size_t n) {
    gelu_elements<__nv_bfloat16>(x, y, 0, n);
}

extern "C" __global__ void gelu_grad_f32(const float* x, const float* dy, float* dx, const size_t n) {
    size_t done = 0;
    if (aligned16(x) && aligned16(dy) && aligned16(dx)) {
        const size_t n4 = n / 4, stride = (size_t)blockDim.x * gridDim.x;
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            const float4 v = reinterpret_cast<const float4*>(x)[i], g = reinterpret_cast<const float4*>(dy)[i];
            reinterpret_cast<float4*>(dx)[i] =
                make_float4(g.x * gelu_slope(v.x), g.y * gelu_slope(v.y), g.z * gelu_slope(v.z), g.w * gelu_slope(v.w));
        }
        done = n4 * 4;
    }
    gelu_grad_elements<float>(x, dy, dx, done, n);
}

extern "C" __global__ void gelu_grad_bf16(
    const __nv_bfloat16* x, const __nv_bfloat16* dy, __nv_bfloat16* dx, const size_t n
) {
    gelu_grad_elements<__nv_bfloat16>(x, dy, dx, 0, n);
}

// kernels/adamw_multi.rs (MultiTensorAdamW): AdamW over every parameter tensor in one launch,
// in place, with the arithmetic of kernels/adamw_flat.rs's AdamWStep operation for operation,
// rounded the same way (the __f*_rn intrinsics keep the compiler from fusing them).
// `slots` holds ADAMW_SLOT u64s per parameter with a gradient: its data's address, its
// gradient's address, its offset in the flat moments `m` and `v`, its first element in this
// launch's index space 0 .. n (slots in that order, found by binary search), its length, and
// whether it decays. Each block writes the sum of its gradients' squares to partial[blockIdx.x].
#define ADAMW_SLOT 6
extern "C" __global__ void adamw_multi_f32(
    const uint64_t* slots, const uint32_t n_slots, const size_t n, float* m, float* v, float* partial,
    const float one_minus_beta1, const float beta2, const float one_minus_beta2, const float decay,
    const float step_size, const float inv_bias2_sqrt, const float eps
) {
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    float squares = 0.0f;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
        uint32_t lo = 0, hi = n_slots - 1;
        while (lo < hi) {
            const uint32_t mid = (lo + hi + 1) / 2;
            if (slots[(size_t)mid * ADAMW_SLOT + 3] <= e) lo = mid; else hi = mid - 1;
        }
        const uint64_t* s = slots + (size_t)lo * ADAMW_SLOT;
        float* theta = reinterpret_cast<float*>(s[0]);
        const float* g = reinterpret_cast<const float*>(s[1]);
        const size_t k = e - s[3], f = s[2] + k;
        const float gi = g[k];
        squares += gi * gi;
        const float mi = __fadd_rn(m[f], __fmul_rn(__fsub_rn(gi, m[f]), one_minus_beta1));
        const float vi = __fadd_rn(__fmul_rn(v[f], beta2), __fmul_rn(__fmul_rn(gi, one_minus_beta2), gi));
        const float denom = __fadd_rn(__fmul_rn(sqrtf(vi), inv_bias2_sqrt), eps);
        const float t = s[5] ? __fmul_rn(theta[k], decay) : theta[k];
        theta[k] = __fadd_rn(t, __fdiv_rn(__fmul_rn(mi, -step_size), denom));
        m[f] = mi;
        v[f] = vi;
    }
    squares = block_sum(squares);
    if (threadIdx.x == 0) partial[blockIdx.x] = squares;
}

// kernels/concat.rs (Concat3): three contiguous f32 buffers of na, nb and nc elements one after
// another in `out`, one launch where candle's concatenation copies each part in a launch of its
// own (the attention's query, key and value weights and biases, every pass).
extern "C" __global__ void concat3_f32(
    const float* a, const float* b, const float* c, float* out, const size_t na, const size_t nb, const size_t nc
) {
    const size_t n = na + nb + nc;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        out[i] = i < na ? a[i] : i < na + nb ? b[i - na] : c[i - na - nb];
    }
}
