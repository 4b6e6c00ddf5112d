// kernels/attention.rs (Attention, AttentionGrad): fused multi-head self-attention
// softmax(scale * q k^T + bias) v, forward and backward, on the projections `qkv`
// ([batch, seq, 3 * hidden]: queries, keys and values side by side, head h the columns
// h * d .. (h + 1) * d of each) as the CPU kernel reads them, so no head is split or merged by a
// copy and no [batch, heads, seq, seq] tensor is written. The forward pass keeps a running
// maximum and sum per query over tiles of 64 keys (32 for heads wider than 32; the online
// softmax of FlashAttention) and writes each query's log-sum-exp for the backward pass, which
// recomputes the probabilities from it. Dropout multiplies the probabilities by the mask of
// kernels/dropout.rs, element ((b * heads + h) * seq + i) * seq + j drawn where it is used.
// Values are read as T (f32 or bf16) and computed in f32. Head dimensions up to DMAX (32 or
// 64) are supported.

#define ATTN_WARPS 4
#define ATTN_ROWS_PER_WARP 8
#define ATTN_ROWS (ATTN_WARPS * ATTN_ROWS_PER_WARP)  // queries (or keys) one block owns
#define ATTN_TILE 32                                 // keys (or queries) per tile, one per lane
#define ATTN_THREADS (ATTN_WARPS * 32)
#define ATTN_LOG2E 1.4426950408889634f  // exp(x) = exp2(x * log2 e), one instruction on the GPU
#define ATTN_LN2 0.6931471805599453f

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// The geometry of one (sequence, head) pair of a launch: blockIdx.x is b * heads + h (x, whose
// limit is 2^31 - 1, so that any batch fits), blockIdx.y the block of 32 rows.
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

// A tile of ATTN_ROWS rows of DMAX columns in registers, between its loads from global memory
// and its store to shared memory: every load of a tile is issued before any is waited for, and
// a loop fetches its next tile while it computes on the current one. Each thread holds the
// elements threadIdx.x + k * ATTN_THREADS (the kernels run ATTN_THREADS threads a block).
template <int DMAX, int ROWS = ATTN_ROWS>
struct TileRegs {
    static constexpr int N = ROWS * DMAX / ATTN_THREADS;
    float v[N];
};

// Fetches rows first .. first + ROWS of the projections' block at column `offset` (0
// queries, hidden keys, 2 * hidden values; or of the context, whose `row` is hidden) into
// `regs`; columns d .. DMAX and rows past the sequence are zero.
template <typename T, int DMAX, int ROWS>
__device__ __forceinline__ void fetch_rows(
    TileRegs<DMAX, ROWS>& regs, const T* src, size_t base, uint32_t row, uint32_t offset, uint32_t first, uint32_t seq,
    uint32_t d
) {
#pragma unroll
    for (int k = 0; k < TileRegs<DMAX, ROWS>::N; ++k) {
        const uint32_t e = threadIdx.x + k * ATTN_THREADS, r = e / DMAX, c = e % DMAX;
        const bool inside = first + r < seq && c < d;
        regs.v[k] = inside ? load_float(src + base + (size_t)(first + r) * row + offset + c) : 0.0f;
    }
}

// Stores a fetched tile into `dst` ([ROWS][stride] f32).
template <int DMAX, int ROWS>
__device__ __forceinline__ void store_rows(float* dst, uint32_t stride, const TileRegs<DMAX, ROWS>& regs) {
#pragma unroll
    for (int k = 0; k < TileRegs<DMAX, ROWS>::N; ++k) {
        const uint32_t e = threadIdx.x + k * ATTN_THREADS;
        dst[(e / DMAX) * stride + e % DMAX] = regs.v[k];
    }
}

// Stores a fetched tile transposed into `dst` ([DMAX][stride] f32: column c of row r at
// c * stride + r).
template <int DMAX, int ROWS>
__device__ __forceinline__ void store_columns(float* dst, uint32_t stride, const TileRegs<DMAX, ROWS>& regs) {
#pragma unroll
    for (int k = 0; k < TileRegs<DMAX, ROWS>::N; ++k) {
        const uint32_t e = threadIdx.x + k * ATTN_THREADS;
        dst[(e % DMAX) * stride + e / DMAX] = regs.v[k];
    }
}

// fetch_rows and store_rows at once, for the tiles a block reads once.
template <typename T, int DMAX>
__device__ __forceinline__ void load_rows(
    float* dst, uint32_t stride, const T* src, size_t base, uint32_t row, uint32_t offset, uint32_t first,
    uint32_t seq, uint32_t d
) {
    TileRegs<DMAX> regs;
    fetch_rows<T, DMAX>(regs, src, base, row, offset, first, seq, d);
    store_rows<DMAX>(dst, stride, regs);
}

// Row strides in shared memory: a row every lane reads at once (the same address, broadcast)
// is DMAX wide; a row per lane is padded by 4 floats, so that the 16-byte reads of 8 lanes
// fall in different banks.
#define ATTN_LANE_ROW(DMAX) ((DMAX) + 4)

// out[r] = dot(mine, rows[r]) for the warp's R rows (`rows`, stride DMAX, the same for every
// lane) against the lane's own row `mine`; both 16-byte aligned, DMAX a multiple of 4.
template <int DMAX, int R>
__device__ __forceinline__ void dot_rows(const float* mine, const float* rows, float out[R]) {
#pragma unroll
    for (int r = 0; r < R; ++r) out[r] = 0.0f;
#pragma unroll
    for (int c = 0; c < DMAX; c += 4) {
        const float4 a = *reinterpret_cast<const float4*>(mine + c);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const float4 b = *reinterpret_cast<const float4*>(rows + r * DMAX + c);
            out[r] = fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, fmaf(a.w, b.w, out[r]))));
        }
    }
}

// acc[r][t] += sum over the tile's rows jj of w[jj][r] * m[jj][lane + 32 t]: `w` is the warp's
// [ATTN_TILE][R] weights (16-byte aligned), `m` rows of `stride` floats.
template <int DMAX, int R>
__device__ __forceinline__ void accumulate(
    float (&acc)[R][DMAX / 32], const float* w, const float* m, uint32_t stride, uint32_t lane
) {
#pragma unroll 4
    for (int jj = 0; jj < ATTN_TILE; ++jj) {
        float wr[R];
#pragma unroll
        for (int r = 0; r < R; r += 4) {
            const float4 w4 = *reinterpret_cast<const float4*>(w + jj * R + r);
            wr[r] = w4.x;
            wr[r + 1] = w4.y;
            wr[r + 2] = w4.z;
            wr[r + 3] = w4.w;
        }
#pragma unroll
        for (int t = 0; t < DMAX / 32; ++t) {
            const float x = m[jj * stride + lane + 32 * t];
#pragma unroll
            for (int r = 0; r < R; ++r) acc[r][t] = fmaf(wr[r], x, acc[r][t]);
        }
    }
}

// The forward pass's geometry: a block owns ATTN_FWD_ROWS queries and reads the keys in tiles
// of ATTN_FWD_TILE(DMAX); thread t scores the eight queries 8 * (t / 16) .. + 8 against the
// tile's keys t % 16 + 16 k, and accumulates those queries' context in the DMAX / 16 columns
// (t % 16) * DMAX / 16 .. of its own, so that every multiply-add of a product is a register
// tile's (8 queries by 4 or 2 keys, or by 2 or 4 columns) and a row's sixteen threads, half a
// warp, reduce its maximum and sum by shuffles.
#define ATTN_FWD_ROWS 64
#define ATTN_FWD_TILE(DMAX) ((DMAX) <= 32 ? 64 : 32)

// Forward: writes ctx and lse = max + log(sum) of each query's scores, keeping a running
// maximum and sum per query over the key tiles (the online softmax of FlashAttention).
template <typename T, int DMAX>
__device__ void attention_forward(
    const T* qkv, const float* bias, T* ctx, float* lse, uint32_t seq, uint32_t heads, uint32_t d, float scale,
    uint32_t dropping, uint64_t key, uint64_t threshold, float keep_scale
) {
    constexpr int BQ = ATTN_FWD_ROWS, BK = ATTN_FWD_TILE(DMAX);
    constexpr int R = 8, KPT = BK / 16, CPT = DMAX / 16;
    // Strides: the queries transposed (a thread reads its eight queries' column c as two
    // float4), the keys by row (a thread reads four columns of a key as one float4; rows of
    // DMAX + 4 put the 16-byte reads of eight threads in different banks), and the
    // probabilities by key, sixteen queries (one warp's) to a row, padded to 20 for the same.
    constexpr int QTS = BQ + 4, KS = DMAX + 4, PS = 20;
    __shared__ __align__(16) float qt[DMAX][QTS];
    __shared__ __align__(16) float ks[BK][KS];
    __shared__ __align__(16) float vs[BK][DMAX];
    __shared__ __align__(16) float ps[ATTN_WARPS][BK][PS];
    const AttnHead g = attn_head(seq, heads, d);
    const uint32_t warp = threadIdx.x >> 5, group = threadIdx.x >> 4, slot = threadIdx.x & 15u;
    const uint32_t half = group & 1u, q0 = blockIdx.y * BQ, mine = q0 + group * R;
    {
        TileRegs<DMAX, BQ> qr;
        fetch_rows<T, DMAX>(qr, qkv, g.qkv_base, g.row, 0, q0, seq, d);
        store_columns<DMAX>(&qt[0][0], QTS, qr);
    }
    float m[R], l[R], acc[R][CPT];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
#pragma unroll
        for (int c = 0; c < CPT; ++c) acc[r][c] = 0.0f;
    }
    const float* key_bias = bias + (size_t)g.b * seq;
    const float scale2 = scale * ATTN_LOG2E;
    TileRegs<DMAX, BK> kr, vr;
    fetch_rows<T, DMAX>(kr, qkv, g.qkv_base, g.row, g.hidden, 0, seq, d);
    fetch_rows<T, DMAX>(vr, qkv, g.qkv_base, g.row, 2 * g.hidden, 0, seq, d);
    for (uint32_t k0 = 0; k0 < seq; k0 += BK) {
        __syncthreads();  // the previous tile is no longer read (and the queries are stored)
        store_rows<DMAX>(&ks[0][0], KS, kr);
        store_rows<DMAX>(&vs[0][0], DMAX, vr);
        __syncthreads();
        if (k0 + BK < seq) {  // the next tile's loads, in flight while this one is used
            fetch_rows<T, DMAX>(kr, qkv, g.qkv_base, g.row, g.hidden, k0 + BK, seq, d);
            fetch_rows<T, DMAX>(vr, qkv, g.qkv_base, g.row, 2 * g.hidden, k0 + BK, seq, d);
        }
        float s[R][KPT];
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int t = 0; t < KPT; ++t) s[r][t] = 0.0f;
#pragma unroll
        for (int c = 0; c < DMAX; c += 4) {
            float4 k4[KPT];
#pragma unroll
            for (int t = 0; t < KPT; ++t) k4[t] = *reinterpret_cast<const float4*>(&ks[slot + 16 * t][c]);
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const float4 qa = *reinterpret_cast<const float4*>(&qt[c + u][group * R]);
                const float4 qb = *reinterpret_cast<const float4*>(&qt[c + u][group * R + 4]);
                const float q[R] = {qa.x, qa.y, qa.z, qa.w, qb.x, qb.y, qb.z, qb.w};
#pragma unroll
                for (int t = 0; t < KPT; ++t) {
                    const float k = u == 0 ? k4[t].x : u == 1 ? k4[t].y : u == 2 ? k4[t].z : k4[t].w;
#pragma unroll
                    for (int r = 0; r < R; ++r) s[r][t] = fmaf(q[r], k, s[r][t]);
                }
            }
        }
        // Scores in base 2 (times log2 e), so that each exponential is one exp2f.
        float kb[KPT];
#pragma unroll
        for (int t = 0; t < KPT; ++t) {
            const uint32_t j = k0 + slot + 16 * t;
            kb[t] = j < seq ? key_bias[j] * ATTN_LOG2E : -INFINITY;
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            float top = -INFINITY;
#pragma unroll
            for (int t = 0; t < KPT; ++t) {
                s[r][t] = kb[t] == -INFINITY ? -INFINITY : s[r][t] * scale2 + kb[t];
                top = fmaxf(top, s[r][t]);
            }
            for (int o = 8; o > 0; o >>= 1) top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, o));
            const float m_new = fmaxf(m[r], top);
            const float m_use = m_new == -INFINITY ? 0.0f : m_new;
            const float alpha = exp2f(m[r] - m_use);
            float sum = 0.0f;
#pragma unroll
            for (int t = 0; t < KPT; ++t) {
                float p = exp2f(s[r][t] - m_use);
                sum += p;
                const uint32_t j = k0 + slot + 16 * t;
                if (dropping && j < seq) p *= dropout_mask(key, threshold, keep_scale, (g.stat_base + mine + r) * seq + j);
                s[r][t] = p;
            }
            l[r] = l[r] * alpha + sum;  // this thread's share; the row's sixteen are summed at the end
#pragma unroll
            for (int c = 0; c < CPT; ++c) acc[r][c] *= alpha;
            m[r] = m_new;
        }
#pragma unroll
        for (int t = 0; t < KPT; ++t) {
            float* row = &ps[warp][slot + 16 * t][half * R];
            *reinterpret_cast<float4*>(row) = make_float4(s[0][t], s[1][t], s[2][t], s[3][t]);
            *reinterpret_cast<float4*>(row + 4) = make_float4(s[4][t], s[5][t], s[6][t], s[7][t]);
        }
        __syncwarp();  // a warp reads only the probabilities its own threads wrote
#pragma unroll 4
        for (int j = 0; j < BK; ++j) {
            const float4 pa = *reinterpret_cast<const float4*>(&ps[warp][j][half * R]);
            const float4 pb = *reinterpret_cast<const float4*>(&ps[warp][j][half * R + 4]);
            const float p[R] = {pa.x, pa.y, pa.z, pa.w, pb.x, pb.y, pb.z, pb.w};
            float v[CPT];
#pragma unroll
            for (int c = 0; c < CPT; ++c) v[c] = vs[j][slot * CPT + c];
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int c = 0; c < CPT; ++c) acc[r][c] = fmaf(p[r], v[c], acc[r][c]);
        }
        __syncwarp();  // ps is rewritten by the next tile
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        float total = l[r];
        for (int o = 8; o > 0; o >>= 1) total += __shfl_xor_sync(0xffffffffu, total, o);
        const uint32_t i = mine + r;
        if (i >= seq) continue;  // the same for the row's sixteen threads
        const float inv = 1.0f / total;
#pragma unroll
        for (int c = 0; c < CPT; ++c) {
            const uint32_t col = slot * CPT + c;
            if (col < d) store_float(ctx + g.ctx_base + (size_t)i * g.hidden + col, acc[r][c] * inv);
        }
        if (slot == 0) lse[g.stat_base + i] = (m[r] + log2f(total)) * ATTN_LN2;
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

// Backward, keys and values: one block per 32 keys of one (sequence, head), each warp eight
// keys, the queries in tiles of 32 (lane i takes query i of the tile). With P the
// probabilities, M the dropout mask and dP = dctx v^T: dv = (P * M)^T dctx and
// dk = scale * dS^T q, where dS = P * (dP * M - delta).
template <typename T, int DMAX>
__device__ void attention_backward_kv(
    const T* qkv, const float* bias, const T* dctx, const float* lse, const float* delta, T* dqkv, uint32_t seq,
    uint32_t heads, uint32_t d, float scale, uint32_t dropping, uint64_t key, uint64_t threshold, float keep_scale
) {
    constexpr int R = ATTN_ROWS_PER_WARP, PER_LANE = DMAX / 32, QS = ATTN_LANE_ROW(DMAX);
    __shared__ __align__(16) float ks[ATTN_ROWS][DMAX];
    __shared__ __align__(16) float vs[ATTN_ROWS][DMAX];
    __shared__ __align__(16) float qs[ATTN_TILE][QS];
    __shared__ __align__(16) float dos[ATTN_TILE][QS];
    __shared__ __align__(16) float ps[ATTN_WARPS][ATTN_TILE][R];
    __shared__ __align__(16) float ds[ATTN_WARPS][ATTN_TILE][R];
    const AttnHead g = attn_head(seq, heads, d);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint32_t k0 = blockIdx.y * ATTN_ROWS, mine = k0 + warp * R;
    load_rows<T, DMAX>(&ks[0][0], DMAX, qkv, g.qkv_base, g.row, g.hidden, k0, seq, d);
    load_rows<T, DMAX>(&vs[0][0], DMAX, qkv, g.qkv_base, g.row, 2 * g.hidden, k0, seq, d);
    const float* key_bias = bias + (size_t)g.b * seq;
    float kb[R], dk[R][PER_LANE], dv[R][PER_LANE];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        kb[r] = mine + r < seq ? key_bias[mine + r] : 0.0f;
#pragma unroll
        for (int t = 0; t < PER_LANE; ++t) dk[r][t] = dv[r][t] = 0.0f;
    }
    TileRegs<DMAX> qr, dor;
    fetch_rows<T, DMAX>(qr, qkv, g.qkv_base, g.row, 0, 0, seq, d);
    fetch_rows<T, DMAX>(dor, dctx, g.ctx_base, g.hidden, 0, 0, seq, d);
    for (uint32_t i0 = 0; i0 < seq; i0 += ATTN_TILE) {
        __syncthreads();
        store_rows<DMAX>(&qs[0][0], QS, qr);
        store_rows<DMAX>(&dos[0][0], QS, dor);
        __syncthreads();
        if (i0 + ATTN_TILE < seq) {
            fetch_rows<T, DMAX>(qr, qkv, g.qkv_base, g.row, 0, i0 + ATTN_TILE, seq, d);
            fetch_rows<T, DMAX>(dor, dctx, g.ctx_base, g.hidden, 0, i0 + ATTN_TILE, seq, d);
        }
        const uint32_t i = i0 + lane;
        const bool inside = i < seq;
        const float row_lse = inside ? lse[g.stat_base + i] : 0.0f;
        const float row_delta = inside ? delta[g.stat_base + i] : 0.0f;
        float s[R], dp[R];
        dot_rows<DMAX, R>(qs[lane], ks[warp * R], s);
        dot_rows<DMAX, R>(dos[lane], vs[warp * R], dp);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            float p = inside ? exp2f((s[r] * scale + kb[r] - row_lse) * ATTN_LOG2E) : 0.0f;
            const float mask =
                dropping && inside ? dropout_mask(key, threshold, keep_scale, (g.stat_base + i) * seq + mine + r) : 1.0f;
            ds[warp][lane][r] = p * (dp[r] * mask - row_delta);
            ps[warp][lane][r] = p * mask;
        }
        __syncwarp();
        accumulate<DMAX, R>(dv, &ps[warp][0][0], &dos[0][0], QS, lane);
        accumulate<DMAX, R>(dk, &ds[warp][0][0], &qs[0][0], QS, lane);
        __syncwarp();
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const uint32_t j = mine + r;
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

// Backward, queries: one block per 32 queries of one (sequence, head), each warp eight queries,
// the keys and values in tiles of 32 (lane j takes key j): dq = scale * dS k.
template <typename T, int DMAX>
__device__ void attention_backward_q(
    const T* qkv, const float* bias, const T* dctx, const float* lse, const float* delta, T* dqkv, uint32_t seq,
    uint32_t heads, uint32_t d, float scale, uint32_t dropping, uint64_t key, uint64_t threshold, float keep_scale
) {
    constexpr int R = ATTN_ROWS_PER_WARP, PER_LANE = DMAX / 32, KS = ATTN_LANE_ROW(DMAX);
    __shared__ __align__(16) float qs[ATTN_ROWS][DMAX];
    __shared__ __align__(16) float dos[ATTN_ROWS][DMAX];
    __shared__ __align__(16) float ks[ATTN_TILE][KS];
    __shared__ __align__(16) float vs[ATTN_TILE][KS];
    __shared__ __align__(16) float ds[ATTN_WARPS][ATTN_TILE][R];
    const AttnHead g = attn_head(seq, heads, d);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint32_t q0 = blockIdx.y * ATTN_ROWS, mine = q0 + warp * R;
    load_rows<T, DMAX>(&qs[0][0], DMAX, qkv, g.qkv_base, g.row, 0, q0, seq, d);
    load_rows<T, DMAX>(&dos[0][0], DMAX, dctx, g.ctx_base, g.hidden, 0, q0, seq, d);
    float row_lse[R], row_delta[R], dq[R][PER_LANE];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const bool inside = mine + r < seq;
        row_lse[r] = inside ? lse[g.stat_base + mine + r] : 0.0f;
        row_delta[r] = inside ? delta[g.stat_base + mine + r] : 0.0f;
#pragma unroll
        for (int t = 0; t < PER_LANE; ++t) dq[r][t] = 0.0f;
    }
    const float* key_bias = bias + (size_t)g.b * seq;
    TileRegs<DMAX> kr, vr;
    fetch_rows<T, DMAX>(kr, qkv, g.qkv_base, g.row, g.hidden, 0, seq, d);
    fetch_rows<T, DMAX>(vr, qkv, g.qkv_base, g.row, 2 * g.hidden, 0, seq, d);
    for (uint32_t k0 = 0; k0 < seq; k0 += ATTN_TILE) {
        __syncthreads();
        store_rows<DMAX>(&ks[0][0], KS, kr);
        store_rows<DMAX>(&vs[0][0], KS, vr);
        __syncthreads();
        if (k0 + ATTN_TILE < seq) {
            fetch_rows<T, DMAX>(kr, qkv, g.qkv_base, g.row, g.hidden, k0 + ATTN_TILE, seq, d);
            fetch_rows<T, DMAX>(vr, qkv, g.qkv_base, g.row, 2 * g.hidden, k0 + ATTN_TILE, seq, d);
        }
        const uint32_t j = k0 + lane;
        const bool inside = j < seq;
        const float kb = inside ? key_bias[j] : 0.0f;
        float s[R], dp[R];
        dot_rows<DMAX, R>(ks[lane], qs[warp * R], s);
        dot_rows<DMAX, R>(vs[lane], dos[warp * R], dp);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            float dsv = 0.0f;
            if (inside) {
                const float p = exp2f((s[r] * scale + kb - row_lse[r]) * ATTN_LOG2E);
                const float mask =
                    dropping ? dropout_mask(key, threshold, keep_scale, (g.stat_base + mine + r) * seq + j) : 1.0f;
                dsv = p * (dp[r] * mask - row_delta[r]);
            }
            ds[warp][lane][r] = dsv;
        }
        __syncwarp();
        accumulate<DMAX, R>(dq, &ds[warp][0][0], &ks[0][0], KS, lane);
        __syncwarp();
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const uint32_t i = mine + r;
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
// The forward pass is bounded to 168 registers a thread, three blocks to a multiprocessor, which
// it uses without spilling (bounded to four blocks, 128 registers, it spills up to 112 bytes).
#define ATTN_PARAMS uint32_t seq, uint32_t heads, uint32_t d, float scale, uint32_t dropping, uint64_t key, \
                    uint64_t threshold, float keep_scale
#define ATTN_ARGS seq, heads, d, scale, dropping, key, threshold, keep_scale
#define ATTN_ENTRY_POINTS(T, NAME, DMAX)                                                                      \
    extern "C" __global__ void __launch_bounds__(ATTN_THREADS, 3) attention_forward_##NAME##_d##DMAX(       \
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
