// Runs quarry.cu's kernels on the CPU (cuda_bf16.h) for kernels/cuda_emulation.rs: inputs and
// outputs are files of little-endian f32 in one directory, the shape is on the command line.
//
//   run_kernel attention DIR f32|bf16 BATCH SEQ HEADS HEAD_DIM DROPPING KEY THRESHOLD KEEP_SCALE
//     reads qkv, bias, dctx; writes ctx, lse (forward) and dqkv (backward)
//   run_kernel masked_softmax DIR ROWS COLS ROWS_PER_BATCH
//     reads x, bias, dy; writes y (forward) and dx (backward)
//   run_kernel layer_norm DIR ROWS COLS EPS_BITS
//     reads x, w, b, dy; writes y (forward), dx and dy_xh (backward)
//   run_kernel residual_norm DIR ROWS COLS EPS_BITS DROPPING KEY THRESHOLD KEEP_SCALE_BITS
//     reads a, r, wb (w then b), dy; writes y (forward), dr, da (with DROPPING 1) and params
//     (each row's dy * xhat then dy) (backward)
//   run_kernel grouped_row_sum DIR TABLE_ROWS COLS
//     reads grad, unique_ids, offsets, order (the ids as f32); writes out
//   run_kernel concat3 DIR
//     reads a, b, c; writes out
//   run_kernel gelu DIR
//     reads x, dy; writes y and dx (16-byte aligned, four at a time) and y_odd, dx_odd (the
//     same kernels from the second element on, one at a time)
//   run_kernel dropout DIR KEY THRESHOLD KEEP_SCALE_BITS
//     reads x; writes y
//   run_kernel adamw_multi DIR LENS HAS_GRAD DECAYS C1 .. C7
//     LENS, HAS_GRAD, DECAYS: comma-separated, one per parameter; C1 .. C7 adamw_multi_f32's
//     constants as the bits of their f32; reads theta, grad, m, v (flat, every parameter in
//     order); writes theta, m, v updated and sum (the gradients' sum of squares)
#include <cuda_bf16.h>

#include "../quarry.cu"

#include <algorithm>
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
    const dim3 forward_grid{batch * heads, (seq + ATTN_FWD_ROWS - 1) / ATTN_FWD_ROWS, 1};
    const auto run = [&](auto forward, auto backward_kv, auto backward_q, auto delta_kernel) {
        emulation::launch(forward, forward_grid, ATTN_THREADS, qkv.data(), bias.data(), ctx.data(), lse.data(), seq, heads, d,
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
    const auto dy = read_floats(dir + "/dy");
    std::vector<float> y(static_cast<size_t>(rows) * cols), dx(y.size());
    emulation::launch(masked_softmax_f32, dim3{rows, 1, 1}, 128, x.data(), bias.data(), y.data(), cols, rows_per_batch);
    emulation::launch(softmax_backward_f32, dim3{rows, 1, 1}, 128, y.data(), dy.data(), dx.data(), cols);
    write_floats(dir + "/y", y);
    write_floats(dir + "/dx", dx);
    return 0;
}

float float_of_bits(const char* text) {
    const uint32_t bits = std::stoul(text);
    float f;
    std::memcpy(&f, &bits, sizeof bits);
    return f;
}

int dropout(char** argv) {
    const std::string dir = argv[2];
    const auto x = read_floats(dir + "/x");
    std::vector<float> y(x.size());
    emulation::launch(dropout_f32, dim3{3, 1, 1}, 64, x.data(), y.data(), x.size(), std::stoull(argv[3]),
                      std::stoull(argv[4]), float_of_bits(argv[5]));
    write_floats(dir + "/y", y);
    return 0;
}

int layer_norm(char** argv) {
    const std::string dir = argv[2];
    const uint32_t rows = std::stoul(argv[3]), cols = std::stoul(argv[4]);
    const float eps = float_of_bits(argv[5]);
    const auto x = read_floats(dir + "/x"), w = read_floats(dir + "/w"), b = read_floats(dir + "/b");
    const auto dy = read_floats(dir + "/dy");
    std::vector<float> y(x.size()), dx(x.size()), dy_xh(x.size());
    emulation::launch(layer_norm_f32, dim3{rows, 1, 1}, 128, x.data(), w.data(), b.data(), y.data(), cols, eps);
    emulation::launch(layer_norm_backward_f32, dim3{rows, 1, 1}, 128, x.data(), w.data(), dy.data(), dx.data(),
                      dy_xh.data(), cols, eps);
    write_floats(dir + "/y", y);
    write_floats(dir + "/dx", dx);
    write_floats(dir + "/dy_xh", dy_xh);
    return 0;
}

int residual_norm(char** argv) {
    const std::string dir = argv[2];
    const uint32_t rows = std::stoul(argv[3]), cols = std::stoul(argv[4]), dropping = std::stoul(argv[6]);
    const float eps = float_of_bits(argv[5]), keep_scale = float_of_bits(argv[9]);
    const uint64_t key = std::stoull(argv[7]);
    const uint32_t key_lo = static_cast<uint32_t>(key), key_hi = static_cast<uint32_t>(key >> 32);
    const uint32_t threshold = std::stoul(argv[8]);
    const auto a = read_floats(dir + "/a"), r = read_floats(dir + "/r"), wb = read_floats(dir + "/wb");
    const auto dy = read_floats(dir + "/dy");
    std::vector<float> y(a.size()), dr(a.size()), da(a.size()), params(2 * a.size());
    emulation::launch(residual_layer_norm_f32, dim3{rows, 1, 1}, 128, a.data(), r.data(), wb.data(), y.data(), cols,
                      dropping, key_lo, key_hi, threshold, eps, keep_scale);
    emulation::launch(residual_layer_norm_backward_f32, dim3{rows, 1, 1}, 128, a.data(), r.data(), wb.data(),
                      dy.data(), dr.data(), da.data(), params.data(), cols, dropping, key_lo, key_hi, threshold, eps,
                      keep_scale);
    write_floats(dir + "/y", y);
    write_floats(dir + "/dr", dr);
    if (dropping) write_floats(dir + "/da", da);
    write_floats(dir + "/params", params);
    return 0;
}

std::vector<uint32_t> read_ids(const std::string& path) {
    std::vector<uint32_t> out;
    for (float v : read_floats(path)) out.push_back(static_cast<uint32_t>(v));
    return out;
}

int grouped_row_sum(char** argv) {
    const std::string dir = argv[2];
    const uint32_t table_rows = std::stoul(argv[3]), cols = std::stoul(argv[4]);
    const auto grad = read_floats(dir + "/grad");
    const auto unique_ids = read_ids(dir + "/unique_ids"), offsets = read_ids(dir + "/offsets");
    const auto order = read_ids(dir + "/order");
    std::vector<float> out(static_cast<size_t>(table_rows) * cols);
    const auto groups = static_cast<uint32_t>(unique_ids.size());
    emulation::launch(grouped_row_sum_f32, dim3{(groups * cols + 255) / 256, 1, 1}, 256, grad.data(),
                      unique_ids.data(), offsets.data(), order.data(), out.data(), groups, cols);
    write_floats(dir + "/out", out);
    return 0;
}

int concat3(char** argv) {
    const std::string dir = argv[2];
    const auto a = read_floats(dir + "/a"), b = read_floats(dir + "/b"), c = read_floats(dir + "/c");
    std::vector<float> out(a.size() + b.size() + c.size());
    emulation::launch(concat3_f32, dim3{2, 1, 1}, 64, a.data(), b.data(), c.data(), out.data(), a.size(), b.size(),
                      c.size());
    write_floats(dir + "/out", out);
    return 0;
}

std::vector<uint64_t> numbers(const std::string& list) {
    std::vector<uint64_t> out;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = list.find(',', start);
        const size_t end = comma == std::string::npos ? list.size() : comma;
        out.push_back(std::stoull(list.substr(start, end - start)));
        start = end + 1;
    }
    return out;
}

int adamw_multi(char** argv) {
    const std::string dir = argv[2];
    const auto lens = numbers(argv[3]), has_grad = numbers(argv[4]), decays = numbers(argv[5]);
    float c[7];
    for (int i = 0; i < 7; ++i) c[i] = float_of_bits(argv[6 + i]);
    auto theta = read_floats(dir + "/theta");
    const auto grad = read_floats(dir + "/grad");
    auto m = read_floats(dir + "/m");
    auto v = read_floats(dir + "/v");
    // Each parameter and gradient in a buffer of its own, as separate tensors are.
    std::vector<std::vector<float>> params, grads;
    std::vector<uint64_t> table;
    size_t offset = 0, n = 0;
    for (size_t i = 0; i < lens.size(); ++i) {
        params.emplace_back(theta.begin() + offset, theta.begin() + offset + lens[i]);
        grads.emplace_back(grad.begin() + offset, grad.begin() + offset + lens[i]);
        offset += lens[i];
    }
    offset = 0;
    for (size_t i = 0; i < lens.size(); ++i) {
        if (has_grad[i]) {
            table.insert(table.end(), {reinterpret_cast<uint64_t>(params[i].data()),
                                       reinterpret_cast<uint64_t>(grads[i].data()), offset, n, lens[i], decays[i]});
            n += lens[i];
        }
        offset += lens[i];
    }
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>(std::max<size_t>((n + 255) / 256, 1), 1024));
    std::vector<float> partial(blocks);
    if (n > 0) {
        emulation::launch(adamw_multi_f32, dim3{blocks, 1, 1}, 256, table.data(),
                          static_cast<uint32_t>(table.size() / ADAMW_SLOT), n, m.data(), v.data(), partial.data(), c[0],
                          c[1], c[2], c[3], c[4], c[5], c[6]);
    }
    offset = 0;
    for (const auto& p : params) {
        std::copy(p.begin(), p.end(), theta.begin() + offset);
        offset += p.size();
    }
    float sum = 0.0f;
    for (float p : partial) sum += p;
    write_floats(dir + "/theta", theta);
    write_floats(dir + "/m", m);
    write_floats(dir + "/v", v);
    write_floats(dir + "/sum", {sum});
    return 0;
}

int gelu(char** argv) {
    const std::string dir = argv[2];
    const std::vector<float> x = read_floats(dir + "/x"), dy = read_floats(dir + "/dy");
    const size_t n = x.size();
    std::vector<float> y(n), dx(n), y_odd(n - 1), dx_odd(n - 1);
    emulation::launch(gelu_f32, dim3{2, 1, 1}, 64, x.data(), y.data(), n);
    emulation::launch(gelu_grad_f32, dim3{2, 1, 1}, 64, x.data(), dy.data(), dx.data(), n);
    emulation::launch(gelu_f32, dim3{2, 1, 1}, 64, x.data() + 1, y_odd.data(), n - 1);
    emulation::launch(gelu_grad_f32, dim3{2, 1, 1}, 64, x.data() + 1, dy.data() + 1, dx_odd.data(), n - 1);
    write_floats(dir + "/y", y);
    write_floats(dir + "/dx", dx);
    write_floats(dir + "/y_odd", y_odd);
    write_floats(dir + "/dx_odd", dx_odd);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string kernel = argc > 1 ? argv[1] : "";
    if (kernel == "attention" && argc == 12) {
        return std::string(argv[3]) == "bf16" ? attention<__nv_bfloat16>(argv) : attention<float>(argv);
    }
    if (kernel == "masked_softmax" && argc == 6) return masked_softmax(argv);
    if (kernel == "adamw_multi" && argc == 13) return adamw_multi(argv);
    if (kernel == "dropout" && argc == 6) return dropout(argv);
    if (kernel == "layer_norm" && argc == 6) return layer_norm(argv);
    if (kernel == "residual_norm" && argc == 10) return residual_norm(argv);
    if (kernel == "grouped_row_sum" && argc == 5) return grouped_row_sum(argv);
    if (kernel == "concat3" && argc == 3) return concat3(argv);
    if (kernel == "gelu" && argc == 3) return gelu(argv);
    std::fprintf(stderr, "usage: run_kernel KERNEL DIR ... (see the file's header)\n");
    return 2;
}
