// A CPU stand-in for the parts of CUDA that quarry.cu uses, so that the kernels' own source
// runs, unchanged, on a machine without a GPU (kernels/cuda_emulation.rs compiles it with the
// system's C++ compiler and checks it against the Rust CPU loops). Named after the one CUDA
// header quarry.cu includes, so that this directory on the include path takes its place.
//
// A launch runs its blocks one after another, each block's threads as real threads: every
// CUDA thread of the block gets its own std::thread, `__syncthreads` is a barrier of the
// block, and `__syncwarp` and the warp shuffles a barrier of the thread's warp of 32, with the
// lanes exchanging values through the warp's slots. `__shared__` variables become static (one
// block runs at a time, so its threads share them as on the GPU). Blocks are one-dimensional
// (blockDim.y and .z are 1), which is all quarry's kernels use. Arithmetic is the host's
// IEEE f32; bf16 conversions round to nearest even as CUDA's do.
#pragma once

#include <array>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <math.h>
#include <stdint.h>

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

#define __global__
#define __launch_bounds__(...)
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))

namespace emulation {

/// The running block's barrier, and its warps' barriers and exchange slots.
inline std::barrier<>* block_barrier = nullptr;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
inline std::vector<std::array<uint64_t, 32>> warp_slots;

inline std::barrier<>& warp_barrier() { return *warp_barriers[threadIdx.x / 32]; }

}  // namespace emulation

inline void __syncthreads() { emulation::block_barrier->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emulation::warp_barrier().arrive_and_wait(); }

/// The value of lane `lane ^ mask` of the calling thread's warp (all 32 lanes take part).
template <typename T>
T __shfl_xor_sync(unsigned, T value, int mask) {
    static_assert(sizeof(T) <= sizeof(uint64_t), "a shuffled value fits a slot");
    auto& slots = emulation::warp_slots[threadIdx.x / 32];
    const unsigned lane = threadIdx.x % 32;
    std::memcpy(&slots[lane], &value, sizeof(T));
    emulation::warp_barrier().arrive_and_wait();
    T out;
    std::memcpy(&out, &slots[(lane ^ static_cast<unsigned>(mask)) % 32], sizeof(T));
    emulation::warp_barrier().arrive_and_wait();
    return out;
}

struct float2 {
    float x, y;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline float __expf(float x) { return std::exp(x); }

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }

/// bfloat16: the high 16 bits of an f32.
struct __nv_bfloat16 {
    uint16_t bits;
};

inline float __bfloat162float(__nv_bfloat16 h) {
    const uint32_t u = static_cast<uint32_t>(h.bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

inline __nv_bfloat16 __float2bfloat16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return __nv_bfloat16{static_cast<uint16_t>((u >> 16) | 0x40u)};
    u += 0x7fffu + ((u >> 16) & 1u);
    return __nv_bfloat16{static_cast<uint16_t>(u >> 16)};
}

inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b));
}

namespace emulation {

/// Runs `kernel(args...)` over `grid` blocks of `threads` threads, block after block.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, unsigned threads, Args... args) {
    blockDim = dim3{threads, 1, 1};
    gridDim = grid;
    const unsigned warps = (threads + 31) / 32;
    for (unsigned z = 0; z < grid.z; ++z) {
        for (unsigned y = 0; y < grid.y; ++y) {
            for (unsigned x = 0; x < grid.x; ++x) {
                std::barrier<> block(threads);
                block_barrier = &block;
                warp_barriers.clear();
                for (unsigned w = 0; w < warps; ++w) {
                    const unsigned lanes = threads - 32 * w < 32 ? threads - 32 * w : 32;
                    warp_barriers.push_back(std::make_unique<std::barrier<>>(lanes));
                }
                warp_slots.assign(warps, {});
                std::vector<std::thread> running;
                running.reserve(threads);
                for (unsigned t = 0; t < threads; ++t) {
                    running.emplace_back([=] {
                        threadIdx = dim3{t, 0, 0};
                        blockIdx = dim3{x, y, z};
                        kernel(static_cast<Params>(args)...);
                    });
                }
                for (auto& thread : running) thread.join();
            }
        }
    }
}

}  // namespace emulation
