// kernels/dropout.rs (DropoutKey, Dropout): the counter-based dropout masks, element i of a mask
// a pure function of the key and i, so that any kernel draws the elements it needs, and dropout
// itself as one kernel.

// Values of type T (f32 or bf16) read and written as f32.
__device__ __forceinline__ float load_float(const float* p) { return *p; }
__device__ __forceinline__ float load_float(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store_float(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_float(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

// kernels/dropout.rs: SplitMix64's output at counter `pair` of stream `key`.
__device__ __forceinline__ uint64_t splitmix_bits(uint64_t key, uint64_t pair) {
    uint64_t z = key + (pair + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The dropout mask's element `i`: 0 when its 32 bits (the low half of pair i / 2 for even i,
// the high half for odd) are below `threshold`, else `keep_scale`.
__device__ __forceinline__ float dropout_mask(uint64_t key, uint64_t threshold, float keep_scale, uint64_t i) {
    const uint64_t bits = splitmix_bits(key, i >> 1);
    const uint64_t half = (i & 1) ? (bits >> 32) : (bits & 0xFFFFFFFFull);
    return half < threshold ? 0.0f : keep_scale;
}

// kernels/dropout.rs (Dropout): y = x * mask over the n elements of contiguous x, element i
// taking mask element i.
template <typename T>
__device__ void dropout(const T* x, T* y, size_t n, uint64_t key, uint64_t threshold, float keep_scale) {
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        store_float(y + i, load_float(x + i) * dropout_mask(key, threshold, keep_scale, i));
    }
}

extern "C" __global__ void dropout_f32(
    const float* x, float* y, const size_t n, const uint64_t key, const uint64_t threshold, const float keep_scale
) {
    dropout<float>(x, y, n, key, threshold, keep_scale);
}

extern "C" __global__ void dropout_bf16(
    const __nv_bfloat16* x, __nv_bfloat16* y, const size_t n, const uint64_t key, const uint64_t threshold,
    const float keep_scale
) {
    dropout<__nv_bfloat16>(x, y, n, key, threshold, keep_scale);
}
