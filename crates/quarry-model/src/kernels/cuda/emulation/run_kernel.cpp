// Runs quarry.cu's kernels on the CPU (cuda_bf16.h) for kernels/cuda_emulation.rs: inputs and
// outputs are files of little-endian f32 in one directory, the shape is on the command line.
//
//   run_kernel attention DIR f32|bf16 BATCH SEQ HEADS HEAD_DIM DROPPING KEY THRESHOLD KEEP_SCALE
//     reads qkv, bias, dctx; writes ctx, lse (forward) and dqkv (backward)
//   run_kernel masked_softmax DIR ROWS COLS ROWS_PER_BATCH
//     reads x, bias; writes y
#include <cuda_bf16.h>

#include "../quarry.cu"

#include <fstream>
#include <string>
#include <type_traits>

namespace {

std::vector<float> read_floats(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        std::exit(2);
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<float> out(bytes.size() / sizeof(float));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
    return out;
}

void write_floats(const std::string& path, const std::vector<float>& values) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
    if (!out) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        std::exit(2);
    }
}

template <typename T>
std::vector<T> convert(const std::vector<float>& values);

template <>
std::vector<float> convert<float>(const std::vector<float>& values) {
    return values;
}

template <>
std::vector<__nv_bfloat16> convert<__nv_bfloat16>(const std::vector<float>& values) {
    std::vector<__nv_bfloat16> out;
    for (float v : values) out.push_back(__float2bfloat16(v));
    return out;
}

float widen(float v) { return v; }
float widen(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
std::vector<float> widen_all(const std::vector<T>& values) {
    std::vector<float> out;
    for (T v : values) out.push_back(widen(v));
    return out;
}

template <typename T>
int attention(char** argv) {
    const std::string dir = argv[2];
    const uint32_t batch = std::stoul(argv[4]), seq = std::stoul(argv[5]), heads = std::stoul(argv[6]);
    const uint32_t d = std::stoul(argv[7]), dropping = std::stoul(argv[8]);
    const uint64_t key = std::stoull(argv[9]), threshold = std::stoull(argv[10]);
    const float keep_scale = std::stof(argv[11]), scale = 1.0f / std::sqrt(static_cast<float>(d));
    const auto qkv = convert<T>(read_floats(dir + "/qkv"));
    const auto bias = read_floats(dir + "/bias");
    const auto dctx = convert<T>(read_floats(dir + "/dctx"));
    const uint32_t hidden = heads * d;
    std::vector<T> ctx(static_cast<size_t>(batch) * seq * hidden);
    std::vector<float> lse(static_cast<size_t>(batch) * heads * seq), delta(lse.size());
    std::vector<T> dqkv(qkv.size());
    const dim3 grid{batch * heads, (seq + ATTN_ROWS - 1) / ATTN_ROWS, 1};
    const auto run = [&](auto forward, auto backward_kv, auto backward_q, auto delta_kernel) {
        emulation::launch(forward, grid, ATTN_THREADS, qkv.data(), bias.data(), ctx.data(), lse.data(), seq, heads, d,
                          scale, dropping, key, threshold, keep_scale);
        emulation::launch(delta_kernel, dim3{4, 1, 1}, 64, ctx.data(), dctx.data(), delta.data(), batch, seq, heads, d);
        emulation::launch(backward_kv, grid, ATTN_THREADS, qkv.data(), bias.data(), dctx.data(), lse.data(),
                          delta.data(), dqkv.data(), seq, heads, d, scale, dropping, key, threshold, keep_scale);
        emulation::launch(backward_q, grid, ATTN_THREADS, qkv.data(), bias.data(), dctx.data(), lse.data(),
                          delta.data(), dqkv.data(), seq, heads, d, scale, dropping, key, threshold, keep_scale);
    };
    if constexpr (std::is_same<T, __nv_bfloat16>::value) {
        if (d <= 32) {
            run(attention_forward_bf16_d32, attention_backward_kv_bf16_d32, attention_backward_q_bf16_d32,
                attention_delta_bf16);
        } else {
            run(attention_forward_bf16_d64, attention_backward_kv_bf16_d64, attention_backward_q_bf16_d64,
                attention_delta_bf16);
        }
    } else if (d <= 32) {
        run(attention_forward_f32_d32, attention_backward_kv_f32_d32, attention_backward_q_f32_d32, attention_delta_f32);
    } else {
        run(attention_forward_f32_d64, attention_backward_kv_f32_d64, attention_backward_q_f32_d64, attention_delta_f32);
    }
    write_floats(dir + "/ctx", widen_all(ctx));
    write_floats(dir + "/lse", lse);
    write_floats(dir + "/dqkv", widen_all(dqkv));
    return 0;
}

int masked_softmax(char** argv) {
    const std::string dir = argv[2];
    const uint32_t rows = std::stoul(argv[3]), cols = std::stoul(argv[4]), rows_per_batch = std::stoul(argv[5]);
    const auto x = read_floats(dir + "/x");
    const auto bias = read_floats(dir + "/bias");
    std::vector<float> y(static_cast<size_t>(rows) * cols);
    emulation::launch(masked_softmax_f32, dim3{rows, 1, 1}, 128, x.data(), bias.data(), y.data(), cols, rows_per_batch);
    write_floats(dir + "/y", y);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string kernel = argc > 1 ? argv[1] : "";
    if (kernel == "attention" && argc == 12) {
        return std::string(argv[3]) == "bf16" ? attention<__nv_bfloat16>(argv) : attention<float>(argv);
    }
    if (kernel == "masked_softmax" && argc == 6) return masked_softmax(argv);
    std::fprintf(stderr, "usage: run_kernel attention|masked_softmax DIR ... (see the file's header)\n");
    return 2;
}
