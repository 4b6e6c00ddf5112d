// kernels/attention.rs (Attention, AttentionGrad): fused multi-head self-attention
// softmax(scale * q k^T + bias) v, forward and backward, on the projections `qkv`
// ([batch, seq, 3 * hidden]: queries, keys and values side by side, head h the columns
// h * d .. (h + 1) * d of each) as the CPU kernel reads them, so no head is split or merged by a
// copy and no [batch, heads, seq, seq] tensor is written. The forward pass keeps a running
// maximum and sum per query over tiles of 32 keys (the online softmax of FlashAttention) and
// writes each query's log-sum-exp for the backward pass, which recomputes the probabilities
// from it. Dropout multiplies the probabilities by the mask of kernels/dropout.rs, element
// ((b * heads + h) * seq + i) * seq + j drawn where it is used. Values are read as T (f32 or
// bf16) and computed in f32. Head dimensions up to DMAX (32 or 64) are supported.

#define ATTN_WARPS 4
#define ATTN_ROWS_PER_WARP 4
#define ATTN_ROWS (ATTN_WARPS * ATTN_ROWS_PER_WARP)  // queries (or keys) one block owns
#define ATTN_TILE 32                                 // keys (or queries) per tile, one per lane
#define ATTN_THREADS (ATTN_WARPS * 32)

__device__ __forceinline__ float load_float(const float* p) { return *p; }
__device__ __forceinline__ float load_float(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store_float(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_float(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

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

// The geometry of one (sequence, head) pair of a launch: blockIdx.x is b * heads + h (x, whose
// limit is 2^31 - 1, so that any batch fits), blockIdx.y the block of 16 rows.
struct AttnHead {
    size_t qkv_base;  // element offset of the head's queries in row 0 of its sequence
    size_t ctx_base;  // element offset of the head's context in row 0 of its sequence
    size_t stat_base; // offset of the pair's row 0 in the [batch * heads, seq] statistics
    uint32_t row;     // 3 * hidden
    uint32_t hidden;
    uint32_t bh;
    uint32_t b;
};

__device__ __forceinline__ AttnHead attn_head(uint32_t seq, uint32_t heads, uint32_t d) {
    AttnHead g;
    g.bh = blockIdx.x;
    g.b = g.bh / heads;
    const uint32_t h = g.bh % heads;
    g.hidden = heads * d;
    g.row = 3 * g.hidden;
    g.qkv_base = (size_t)g.b * seq * g.row + (size_t)h * d;
    g.ctx_base = (size_t)g.b * seq * g.hidden + (size_t)h * d;
    g.stat_base = (size_t)g.bh * seq;
    return g;
}

// Copies rows first .. first + rows of block `which` (0 q, 1 k, 2 v; or the context when `row`
// is hidden and `which` 0) into `dst` ([rows][stride], columns d .. DMAX zero), as f32.
template <typename T, int DMAX>
__device__ __forceinline__ void load_rows(
    float* dst, uint32_t stride, const T* src, size_t base, uint32_t row, uint32_t offset, uint32_t first,
    uint32_t rows, uint32_t seq, uint32_t d
) {
    for (uint32_t e = threadIdx.x; e < rows * DMAX; e += blockDim.x) {
        const uint32_t r = e / DMAX, c = e % DMAX;
        const bool inside = first + r < seq && c < d;
        dst[r * stride + c] = inside ? load_float(src + base + (size_t)(first + r) * row + offset + c) : 0.0f;
    }
}

template <int DMAX>
__device__ __forceinline__ float dot_rows(const float* a, const float* b) {
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < DMAX; ++c) s += a[c] * b[c];
    return s;
}

// Forward: one block per 16 queries of one (sequence, head), each warp four queries, the keys
// and values in tiles of 32 (lane j scores key j of the tile). Writes ctx and
// lse = max + log(sum) of each query's scores.
template <typename T, int DMAX>
__device__ void attention_forward(
    const T* qkv, const float* bias, T* ctx, float* lse, uint32_t seq, uint32_t heads, uint32_t d, float scale,
    uint32_t dropping, uint64_t key, uint64_t threshold, float keep_scale
) {
    constexpr int PER_LANE = DMAX / 32;
    __shared__ float qs[ATTN_ROWS][DMAX];
    __shared__ float ks[ATTN_TILE][DMAX + 1];
    __shared__ float vs[ATTN_TILE][DMAX + 1];
    __shared__ float ps[ATTN_WARPS][ATTN_TILE];
    const AttnHead g = attn_head(seq, heads, d);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint32_t q0 = blockIdx.y * ATTN_ROWS;
    load_rows<T, DMAX>(&qs[0][0], DMAX, qkv, g.qkv_base, g.row, 0, q0, ATTN_ROWS, seq, d);
    float m[ATTN_ROWS_PER_WARP], l[ATTN_ROWS_PER_WARP], acc[ATTN_ROWS_PER_WARP][PER_LANE];
    #pragma unroll
    for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
        for (int t = 0; t < PER_LANE; ++t) acc[r][t] = 0.0f;
    }
    const float* key_bias = bias + (size_t)g.b * seq;
    for (uint32_t k0 = 0; k0 < seq; k0 += ATTN_TILE) {
        __syncthreads();  // the previous tile is no longer read
        load_rows<T, DMAX>(&ks[0][0], DMAX + 1, qkv, g.qkv_base, g.row, g.hidden, k0, ATTN_TILE, seq, d);
        load_rows<T, DMAX>(&vs[0][0], DMAX + 1, qkv, g.qkv_base, g.row, 2 * g.hidden, k0, ATTN_TILE, seq, d);
        __syncthreads();
        const uint32_t j = k0 + lane;
        const float kb = j < seq ? key_bias[j] : 0.0f;
        #pragma unroll
        for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
            const uint32_t qr = warp * ATTN_ROWS_PER_WARP + r, i = q0 + qr;
            if (i >= seq) continue;  // the same for every lane of the warp
            const float s = j < seq ? dot_rows<DMAX>(qs[qr], ks[lane]) * scale + kb : -INFINITY;
            const float m_new = fmaxf(m[r], warp_max(s));
            const float m_use = m_new == -INFINITY ? 0.0f : m_new;
            const float alpha = expf(m[r] - m_use);
            float p = expf(s - m_use);
            l[r] = l[r] * alpha + p;
            if (dropping && j < seq) p *= dropout_mask(key, threshold, keep_scale, (g.stat_base + i) * seq + j);
            ps[warp][lane] = p;
            __syncwarp();
            #pragma unroll
            for (int t = 0; t < PER_LANE; ++t) {
                float a = acc[r][t] * alpha;
                for (int jj = 0; jj < ATTN_TILE; ++jj) a += ps[warp][jj] * vs[jj][lane + 32 * t];
                acc[r][t] = a;
            }
            __syncwarp();
            m[r] = m_new;
        }
    }
    #pragma unroll
    for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
        const uint32_t i = q0 + warp * ATTN_ROWS_PER_WARP + r;
        if (i >= seq) continue;
        const float total = warp_sum(l[r]);
        const float inv = 1.0f / total;
        #pragma unroll
        for (int t = 0; t < PER_LANE; ++t) {
            const uint32_t c = lane + 32 * t;
            if (c < d) store_float(ctx + g.ctx_base + (size_t)i * g.hidden + c, acc[r][t] * inv);
        }
        if (lane == 0) lse[g.stat_base + i] = m[r] + logf(total);
    }
}

// Backward, first pass: delta = sum over the head's columns of dctx * ctx, per query.
template <typename T>
__device__ void attention_delta(
    const T* ctx, const T* dctx, float* delta, uint32_t batch, uint32_t seq, uint32_t heads, uint32_t d
) {
    const size_t n = (size_t)batch * heads * seq;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
        // e = (b * heads + h) * seq + i
        const size_t i = e % seq, bh = e / seq, b = bh / heads, h = bh % heads;
        const size_t at = (b * seq + i) * heads * d + h * d;
        float s = 0.0f;
        for (uint32_t c = 0; c < d; ++c) s += load_float(dctx + at + c) * load_float(ctx + at + c);
        delta[e] = s;
    }
}

// Backward, keys and values: one block per 16 keys of one (sequence, head), each warp four
// keys, the queries in tiles of 32 (lane i takes query i of the tile). With P the
// probabilities, M the dropout mask and dP = dctx v^T: dv = (P * M)^T dctx and
// dk = scale * dS^T q, where dS = P * (dP * M - delta).
template <typename T, int DMAX>
__device__ void attention_backward_kv(
    const T* qkv, const float* bias, const T* dctx, const float* lse, const float* delta, T* dqkv, uint32_t seq,
    uint32_t heads, uint32_t d, float scale, uint32_t dropping, uint64_t key, uint64_t threshold, float keep_scale
) {
    constexpr int PER_LANE = DMAX / 32;
    __shared__ float ks[ATTN_ROWS][DMAX];
    __shared__ float vs[ATTN_ROWS][DMAX];
    __shared__ float qs[ATTN_TILE][DMAX + 1];
    __shared__ float dos[ATTN_TILE][DMAX + 1];
    __shared__ float ps[ATTN_WARPS][ATTN_TILE];
    __shared__ float ds[ATTN_WARPS][ATTN_TILE];
    const AttnHead g = attn_head(seq, heads, d);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint32_t k0 = blockIdx.y * ATTN_ROWS;
    load_rows<T, DMAX>(&ks[0][0], DMAX, qkv, g.qkv_base, g.row, g.hidden, k0, ATTN_ROWS, seq, d);
    load_rows<T, DMAX>(&vs[0][0], DMAX, qkv, g.qkv_base, g.row, 2 * g.hidden, k0, ATTN_ROWS, seq, d);
    float dk[ATTN_ROWS_PER_WARP][PER_LANE], dv[ATTN_ROWS_PER_WARP][PER_LANE];
    #pragma unroll
    for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
        for (int t = 0; t < PER_LANE; ++t) dk[r][t] = dv[r][t] = 0.0f;
    }
    const float* key_bias = bias + (size_t)g.b * seq;
    for (uint32_t i0 = 0; i0 < seq; i0 += ATTN_TILE) {
        __syncthreads();
        load_rows<T, DMAX>(&qs[0][0], DMAX + 1, qkv, g.qkv_base, g.row, 0, i0, ATTN_TILE, seq, d);
        load_rows<T, DMAX>(&dos[0][0], DMAX + 1, dctx, g.ctx_base, g.hidden, 0, i0, ATTN_TILE, seq, d);
        __syncthreads();
        const uint32_t i = i0 + lane;
        const float row_lse = i < seq ? lse[g.stat_base + i] : 0.0f;
        const float row_delta = i < seq ? delta[g.stat_base + i] : 0.0f;
        #pragma unroll
        for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
            const uint32_t kr = warp * ATTN_ROWS_PER_WARP + r, j = k0 + kr;
            if (j >= seq) continue;
            float p = 0.0f, dsv = 0.0f;
            if (i < seq) {
                p = expf(dot_rows<DMAX>(qs[lane], ks[kr]) * scale + key_bias[j] - row_lse);
                const float mask = dropping ? dropout_mask(key, threshold, keep_scale, (g.stat_base + i) * seq + j) : 1.0f;
                dsv = p * (dot_rows<DMAX>(dos[lane], vs[kr]) * mask - row_delta);
                p *= mask;
            }
            ps[warp][lane] = p;
            ds[warp][lane] = dsv;
            __syncwarp();
            #pragma unroll
            for (int t = 0; t < PER_LANE; ++t) {
                const uint32_t c = lane + 32 * t;
                float a = dv[r][t], b = dk[r][t];
                for (int ii = 0; ii < ATTN_TILE; ++ii) {
                    a += ps[warp][ii] * dos[ii][c];
                    b += ds[warp][ii] * qs[ii][c];
                }
                dv[r][t] = a;
                dk[r][t] = b;
            }
            __syncwarp();
        }
    }
    #pragma unroll
    for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
        const uint32_t j = k0 + warp * ATTN_ROWS_PER_WARP + r;
        if (j >= seq) continue;
        #pragma unroll
        for (int t = 0; t < PER_LANE; ++t) {
            const uint32_t c = lane + 32 * t;
            if (c >= d) continue;
            const size_t at = g.qkv_base + (size_t)j * g.row + c;
            store_float(dqkv + at + g.hidden, dk[r][t] * scale);
            store_float(dqkv + at + 2 * g.hidden, dv[r][t]);
        }
    }
}

// Backward, queries: one block per 16 queries of one (sequence, head), each warp four queries,
// the keys and values in tiles of 32 (lane j takes key j): dq = scale * dS k.
template <typename T, int DMAX>
__device__ void attention_backward_q(
    const T* qkv, const float* bias, const T* dctx, const float* lse, const float* delta, T* dqkv, uint32_t seq,
    uint32_t heads, uint32_t d, float scale, uint32_t dropping, uint64_t key, uint64_t threshold, float keep_scale
) {
    constexpr int PER_LANE = DMAX / 32;
    __shared__ float qs[ATTN_ROWS][DMAX];
    __shared__ float dos[ATTN_ROWS][DMAX];
    __shared__ float ks[ATTN_TILE][DMAX + 1];
    __shared__ float vs[ATTN_TILE][DMAX + 1];
    __shared__ float ds[ATTN_WARPS][ATTN_TILE];
    const AttnHead g = attn_head(seq, heads, d);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint32_t q0 = blockIdx.y * ATTN_ROWS;
    load_rows<T, DMAX>(&qs[0][0], DMAX, qkv, g.qkv_base, g.row, 0, q0, ATTN_ROWS, seq, d);
    load_rows<T, DMAX>(&dos[0][0], DMAX, dctx, g.ctx_base, g.hidden, 0, q0, ATTN_ROWS, seq, d);
    float dq[ATTN_ROWS_PER_WARP][PER_LANE];
    #pragma unroll
    for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
        for (int t = 0; t < PER_LANE; ++t) dq[r][t] = 0.0f;
    }
    const float* key_bias = bias + (size_t)g.b * seq;
    for (uint32_t k0 = 0; k0 < seq; k0 += ATTN_TILE) {
        __syncthreads();
        load_rows<T, DMAX>(&ks[0][0], DMAX + 1, qkv, g.qkv_base, g.row, g.hidden, k0, ATTN_TILE, seq, d);
        load_rows<T, DMAX>(&vs[0][0], DMAX + 1, qkv, g.qkv_base, g.row, 2 * g.hidden, k0, ATTN_TILE, seq, d);
        __syncthreads();
        const uint32_t j = k0 + lane;
        const float kb = j < seq ? key_bias[j] : 0.0f;
        #pragma unroll
        for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
            const uint32_t qr = warp * ATTN_ROWS_PER_WARP + r, i = q0 + qr;
            if (i >= seq) continue;
            float dsv = 0.0f;
            if (j < seq) {
                const float p = expf(dot_rows<DMAX>(qs[qr], ks[lane]) * scale + kb - lse[g.stat_base + i]);
                const float mask = dropping ? dropout_mask(key, threshold, keep_scale, (g.stat_base + i) * seq + j) : 1.0f;
                dsv = p * (dot_rows<DMAX>(dos[qr], vs[lane]) * mask - delta[g.stat_base + i]);
            }
            ds[warp][lane] = dsv;
            __syncwarp();
            #pragma unroll
            for (int t = 0; t < PER_LANE; ++t) {
                float a = dq[r][t];
                for (int jj = 0; jj < ATTN_TILE; ++jj) a += ds[warp][jj] * ks[jj][lane + 32 * t];
                dq[r][t] = a;
            }
            __syncwarp();
        }
    }
    #pragma unroll
    for (int r = 0; r < ATTN_ROWS_PER_WARP; ++r) {
        const uint32_t i = q0 + warp * ATTN_ROWS_PER_WARP + r;
        if (i >= seq) continue;
        #pragma unroll
        for (int t = 0; t < PER_LANE; ++t) {
            const uint32_t c = lane + 32 * t;
            if (c < d) store_float(dqkv + g.qkv_base + (size_t)i * g.row + c, dq[r][t] * scale);
        }
    }
}

// The entry points, one per value type and largest head dimension, named
// attention_{forward,backward_kv,backward_q}_{f32,bf16}_d{32,64} and attention_delta_{f32,bf16}.
#define ATTN_PARAMS uint32_t seq, uint32_t heads, uint32_t d, float scale, uint32_t dropping, uint64_t key, \
                    uint64_t threshold, float keep_scale
#define ATTN_ARGS seq, heads, d, scale, dropping, key, threshold, keep_scale
#define ATTN_ENTRY_POINTS(T, NAME, DMAX)                                                                      \
    extern "C" __global__ void attention_forward_##NAME##_d##DMAX(                                            \
        const T* qkv, const float* bias, T* ctx, float* lse, ATTN_PARAMS                                     \
    ) {                                                                                                       \
        attention_forward<T, DMAX>(qkv, bias, ctx, lse, ATTN_ARGS);                                           \
    }                                                                                                         \
    extern "C" __global__ void attention_backward_kv_##NAME##_d##DMAX(                                        \
        const T* qkv, const float* bias, const T* dctx, const float* lse, const float* delta, T* dqkv,        \
        ATTN_PARAMS                                                                                           \
    ) {                                                                                                       \
        attention_backward_kv<T, DMAX>(qkv, bias, dctx, lse, delta, dqkv, ATTN_ARGS);                         \
    }                                                                                                         \
    extern "C" __global__ void attention_backward_q_##NAME##_d##DMAX(                                         \
        const T* qkv, const float* bias, const T* dctx, const float* lse, const float* delta, T* dqkv,        \
        ATTN_PARAMS                                                                                           \
    ) {                                                                                                       \
        attention_backward_q<T, DMAX>(qkv, bias, dctx, lse, delta, dqkv, ATTN_ARGS);                          \
    }

ATTN_ENTRY_POINTS(float, f32, 32)
ATTN_ENTRY_POINTS(float, f32, 64)
ATTN_ENTRY_POINTS(__nv_bfloat16, bf16, 32)
ATTN_ENTRY_POINTS(__nv_bfloat16, bf16, 64)

extern "C" __global__ void attention_delta_f32(
    const float* ctx, const float* dctx, float* delta, uint32_t batch, uint32_t seq, uint32_t heads, uint32_t d
) {
    attention_delta<float>(ctx, dctx, delta, batch, seq, heads, d);
}

extern "C" __global__ void attention_delta_bf16(
    const __nv_bfloat16* ctx, const __nv_bfloat16* dctx, float* delta, uint32_t batch, uint32_t seq, uint32_t heads,
    uint32_t d
) {
    attention_delta<__nv_bfloat16>(ctx, dctx, delta, batch, seq, heads, d);
}
