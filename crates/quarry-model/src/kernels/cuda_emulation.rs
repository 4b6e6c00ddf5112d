//! quarry's CUDA kernels (`cuda/quarry.cu`), their own source, run on the CPU by
//! `cuda/emulation/` (a stand-in for CUDA's device functions that runs every CUDA thread of a
//! block as a thread of the host) and checked against the Rust CPU loops of the same
//! operations, so that a kernel's logic is tested on every machine and a GPU session checks
//! only what the GPU adds. The runner is built with the system's C++ compiler (`CXX`, else
//! `c++`); without one the tests say they are skipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use candle_core::{DType, Device, Shape, Tensor, Var};

use crate::kernels::attention::self_attention;
use crate::kernels::dropout::DropoutKey;
use crate::nn::rng::SeededRng;

const EMULATION: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/kernels/cuda/emulation");

/// The runner `cuda/emulation/run_kernel.cpp`, built once per test process into the build
/// directory; `None` when no C++ compiler can be started.
fn runner() -> Option<&'static Path> {
    static RUNNER: OnceLock<Option<PathBuf>> = OnceLock::new();
    RUNNER
        .get_or_init(|| {
            let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
            let dir = Path::new(env!("OUT_DIR")).join("cuda-emulation");
            std::fs::create_dir_all(&dir).expect("the build directory is writable");
            let exe = dir.join("run_kernel");
            let built = Command::new(&compiler)
                .args(["-std=c++20", "-O2", "-pthread", "-Wno-unknown-pragmas", "-I", EMULATION])
                .arg(format!("{EMULATION}/run_kernel.cpp"))
                .arg("-o")
                .arg(&exe)
                .output();
            match built {
                Err(e) => {
                    eprintln!("cannot start the C++ compiler `{compiler}`: {e}");
                    None
                }
                Ok(out) if !out.status.success() => {
                    panic!("`{compiler}` rejected the emulated kernels:\n{}", String::from_utf8_lossy(&out.stderr))
                }
                Ok(_) => Some(exe),
            }
        })
        .as_deref()
}

/// The runner, or a skip report for `test`.
fn runner_or_skip(test: &str) -> Option<&'static Path> {
    let found = runner();
    if found.is_none() {
        quarry_stdx::skip::skip(test, "no C++ compiler (set CXX) to build the emulated CUDA kernels");
    }
    found
}

fn write(dir: &Path, name: &str, t: &Tensor) {
    let values: Vec<f32> = t.flatten_all().unwrap().to_dtype(DType::F32).unwrap().to_vec1().unwrap();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn read(dir: &Path, name: &str, shape: &Shape) -> Tensor {
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let values: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Tensor::from_vec(values, shape, &Device::Cpu).unwrap()
}

fn run(runner: &Path, args: &[String]) {
    let out = Command::new(runner).args(args).output().unwrap();
    assert!(out.status.success(), "run_kernel {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
    (a - b).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar().unwrap()
}

/// The CPU kernel's context and projections' gradient (against `dctx`) for `qkv`.
fn cpu_attention(
    qkv: &Tensor,
    heads: usize,
    bias: &Tensor,
    dctx: &Tensor,
    key: Option<DropoutKey>,
) -> (Tensor, Tensor) {
    let qkv = Var::from_tensor(qkv).unwrap();
    let ctx = self_attention(qkv.as_tensor(), heads, bias, key).unwrap();
    let grads = (&ctx * dctx).unwrap().sum_all().unwrap().backward().unwrap();
    (ctx, grads.get(qkv.as_tensor()).unwrap().clone())
}

/// The emulated CUDA kernels' context and projections' gradient, with the inputs in `dtype`.
fn emulated_attention(
    runner: &Path,
    (qkv, bias, dctx): (&Tensor, &Tensor, &Tensor),
    heads: usize,
    key: Option<DropoutKey>,
    dtype: &str,
) -> (Tensor, Tensor) {
    let dir = tempfile::tempdir().unwrap();
    let (b, s, w) = qkv.dims3().unwrap();
    write(dir.path(), "qkv", qkv);
    write(dir.path(), "bias", bias);
    write(dir.path(), "dctx", dctx);
    let (k, threshold, scale) = key.map(|k| k.parts()).unwrap_or((0, 0, 1.0));
    let numbers = [b, s, heads, w / (3 * heads), usize::from(key.is_some())].map(|n| n.to_string());
    let mut args = vec!["attention".to_string(), dir.path().display().to_string(), dtype.to_string()];
    args.extend(numbers);
    args.extend([k.to_string(), threshold.to_string(), scale.to_string()]);
    run(runner, &args);
    (read(dir.path(), "ctx", &Shape::from((b, s, w / 3))), read(dir.path(), "dqkv", qkv.shape()))
}

/// Random projections, a mask that pads the last three keys of the first sequence, and a
/// random context gradient.
fn attention_inputs(rng: &SeededRng, (b, s, heads, d): (usize, usize, usize, usize)) -> (Tensor, Tensor, Tensor) {
    let dev = Device::Cpu;
    let qkv = rng.normal(&Shape::from((b, s, 3 * heads * d)), 1.0, &dev).unwrap();
    let mut mask = vec![0f32; b * s];
    mask[s - 3..s].iter_mut().for_each(|m| *m = -1e9);
    let bias = Tensor::from_vec(mask, (b, s), &dev).unwrap();
    let dctx = rng.normal(&Shape::from((b, s, heads * d)), 1.0, &dev).unwrap();
    (qkv, bias, dctx)
}

#[test]
fn emulated_attention_kernels_match_the_cpu_kernel_in_f32() {
    let Some(runner) = runner_or_skip("emulated_attention_kernels_match_the_cpu_kernel_in_f32") else { return };
    let rng = SeededRng::new(11);
    // Sequences that are no multiple of the blocks (32 and 64 rows) and key tiles (32 and
    // 64), heads narrower than the kernels' 32 and 64 columns, heads as wide as 64 over three
    // tiles of keys, and five tiles of keys.
    for shape in [(2, 37, 2, 24), (1, 19, 3, 64), (1, 70, 1, 48), (2, 5, 1, 32), (1, 130, 2, 32)] {
        for key in [None, Some(rng.dropout_key(0.3))] {
            let (qkv, bias, dctx) = attention_inputs(&rng, shape);
            let (ctx, dqkv) = cpu_attention(&qkv, shape.2, &bias, &dctx, key);
            let (gpu_ctx, gpu_dqkv) = emulated_attention(runner, (&qkv, &bias, &dctx), shape.2, key, "f32");
            let (forward, backward) = (max_diff(&ctx, &gpu_ctx), max_diff(&dqkv, &gpu_dqkv));
            assert!(forward < 1e-5, "{shape:?}, dropout {}: context differs by {forward}", key.is_some());
            assert!(backward < 1e-4, "{shape:?}, dropout {}: gradient differs by {backward}", key.is_some());
        }
    }
}

#[test]
fn emulated_attention_kernels_match_the_cpu_kernel_in_bf16() {
    let Some(runner) = runner_or_skip("emulated_attention_kernels_match_the_cpu_kernel_in_bf16") else { return };
    let rng = SeededRng::new(12);
    let round = |t: &Tensor| t.to_dtype(DType::BF16).unwrap().to_dtype(DType::F32).unwrap();
    let shape = (2, 37, 2, 32);
    let (qkv, bias, dctx) = attention_inputs(&rng, shape);
    let (qkv, dctx) = (round(&qkv), round(&dctx));
    let (ctx, dqkv) = cpu_attention(&qkv, shape.2, &bias, &dctx, None);
    let (gpu_ctx, gpu_dqkv) = emulated_attention(runner, (&qkv, &bias, &dctx), shape.2, None, "bf16");
    // bf16 outputs carry 8 significant bits: within one rounding (1/256 relative) of f32's.
    let (forward, backward) = (max_diff(&ctx, &gpu_ctx), max_diff(&dqkv, &gpu_dqkv));
    let scale = |t: &Tensor| -> f32 { t.abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar().unwrap() };
    assert!(forward <= scale(&ctx) / 128.0, "context differs by {forward}");
    assert!(backward <= scale(&dqkv) / 64.0, "gradient differs by {backward}");
    assert!(forward > 0.0, "the bf16 kernels round their outputs");
}

/// The emulator against kernels the GPU itself has checked (`cuda_tests`): masked softmax,
/// whose block reductions use shared memory, barriers and warp shuffles, and its backward pass.
#[test]
fn emulated_masked_softmax_matches_its_cpu_loop() {
    let Some(runner) = runner_or_skip("emulated_masked_softmax_matches_its_cpu_loop") else { return };
    let dev = Device::Cpu;
    let rng = SeededRng::new(13);
    let (b, rows_per_batch, cols) = (2, 6, 300);
    let x = Var::from_tensor(&rng.normal(&Shape::from((b, rows_per_batch, cols)), 2.0, &dev).unwrap()).unwrap();
    let bias = rng.normal(&Shape::from((b, cols)), 1.0, &dev).unwrap();
    let dy = rng.normal(x.shape(), 1.0, &dev).unwrap();
    let expected = crate::kernels::masked_softmax::gpu_masked_softmax(x.as_tensor(), &bias).unwrap();
    let grads = (&expected * &dy).unwrap().sum_all().unwrap().backward().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x", x.as_tensor());
    write(dir.path(), "bias", &bias);
    write(dir.path(), "dy", &dy);
    let numbers = [b * rows_per_batch, cols, rows_per_batch].map(|n| n.to_string());
    let mut args = vec!["masked_softmax".to_string(), dir.path().display().to_string()];
    args.extend(numbers);
    run(runner, &args);
    let y = read(dir.path(), "y", x.shape());
    assert!(max_diff(&expected, &y) < 1e-6, "softmax differs by {}", max_diff(&expected, &y));
    let dx = read(dir.path(), "dx", x.shape());
    let d = max_diff(grads.get(x.as_tensor()).unwrap(), &dx);
    assert!(d < 1e-6, "softmax gradient differs by {d}");
}

/// The emulated multi-tensor AdamW (the CUDA training step's update) against the flat
/// update's CPU loop, whose arithmetic it repeats operation for operation: parameters of
/// several sizes, one without a gradient this step, moments from an earlier step.
#[test]
fn emulated_multi_tensor_adamw_matches_the_flat_update_exactly() {
    use crate::kernels::adamw_cpu::Step;
    use crate::kernels::adamw_flat::FlatMoments;

    let Some(runner) = runner_or_skip("emulated_multi_tensor_adamw_matches_the_flat_update_exactly") else {
        return;
    };
    let dev = Device::Cpu;
    let rng = SeededRng::new(14);
    let lens = [300usize, 7, 1000, 33];
    let (has_grad, decays) = ([true, true, false, true], [true, false, true, false]);
    let vars: Vec<Var> =
        lens.iter().map(|&n| Var::from_tensor(&rng.normal(&Shape::from(n), 1.0, &dev).unwrap()).unwrap()).collect();
    let params: Vec<&Var> = vars.iter().collect();
    let described: Vec<(&Var, bool)> = vars.iter().zip(decays).collect();
    let mut flat = FlatMoments::new(&described, &dev).unwrap();
    let gradients = |present: [bool; 4]| -> Vec<Option<Tensor>> {
        lens.iter().zip(present).map(|(&n, p)| p.then(|| rng.normal(&Shape::from(n), 0.5, &dev).unwrap())).collect()
    };
    let step = Step::for_tests;
    flat.update(&params, &gradients([true; 4]), step(1)).unwrap();
    let grads = gradients(has_grad);
    let flat_params = || Tensor::cat(&params.iter().map(|p| p.as_tensor().clone()).collect::<Vec<_>>(), 0).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "theta", &flat_params());
    write(dir.path(), "m", flat.m.as_tensor());
    write(dir.path(), "v", flat.v.as_tensor());
    let dense: Vec<Tensor> = grads
        .iter()
        .zip(lens)
        .map(|(g, n)| g.clone().unwrap_or_else(|| Tensor::zeros(n, DType::F32, &dev).unwrap()))
        .collect();
    write(dir.path(), "grad", &Tensor::cat(&dense, 0).unwrap());
    let expected_sum = flat.update(&params, &grads, step(2)).unwrap();

    let list = |values: Vec<usize>| values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",");
    let mut args = vec!["adamw_multi".to_string(), dir.path().display().to_string()];
    args.push(list(lens.to_vec()));
    args.push(list(has_grad.map(usize::from).to_vec()));
    args.push(list(decays.map(usize::from).to_vec()));
    args.extend(step(2).kernel_constants().map(|c| c.to_bits().to_string()));
    run(runner, &args);
    let n = Shape::from(lens.iter().sum::<usize>());
    assert_eq!(max_diff(&read(dir.path(), "theta", &n), &flat_params()), 0.0, "parameters");
    assert_eq!(max_diff(&read(dir.path(), "m", &n), flat.m.as_tensor()), 0.0, "first moments");
    assert_eq!(max_diff(&read(dir.path(), "v", &n), flat.v.as_tensor()), 0.0, "second moments");
    let sum = read(dir.path(), "sum", &Shape::from(1)).to_vec1::<f32>().unwrap()[0] as f64;
    assert!((sum - expected_sum).abs() < 1e-5 * expected_sum, "sum of squares {sum} vs {expected_sum}");
}

/// The emulated dropout kernel against the CPU's (grid-strided over several blocks, an odd
/// length, so that both halves of the generator's numbers are drawn): the same mask exactly.
#[test]
fn emulated_dropout_draws_the_cpu_mask() {
    let Some(runner) = runner_or_skip("emulated_dropout_draws_the_cpu_mask") else { return };
    let x = SeededRng::new(15).normal(&Shape::from(1001), 1.0, &Device::Cpu).unwrap();
    let key = DropoutKey::new(0x5eed_0fd2_0f00, 0.3);
    let expected = crate::kernels::dropout::dropout(&x, key).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x", &x);
    let (k, threshold, scale) = key.parts();
    let args = [
        "dropout".to_string(),
        dir.path().display().to_string(),
        k.to_string(),
        threshold.to_string(),
        scale.to_bits().to_string(),
    ];
    run(runner, &args);
    let y = read(dir.path(), "y", x.shape());
    assert_eq!(max_diff(&expected, &y), 0.0);
    let dropped = y.flatten_all().unwrap().to_vec1::<f32>().unwrap().iter().filter(|v| **v == 0.0).count();
    assert!((250..350).contains(&dropped), "{dropped} of 1001 dropped at p = 0.3");
}

/// The emulated training layer norm, forward and backward, against its CPU loops (the
/// `LayerNormOp` node): output, input gradient, and the scale's gradient summed from the
/// kernel's per-element `dy * xhat`.
#[test]
fn emulated_layer_norm_kernels_match_their_cpu_loops() {
    let Some(runner) = runner_or_skip("emulated_layer_norm_kernels_match_their_cpu_loops") else { return };
    let (dev, rng) = (Device::Cpu, SeededRng::new(16));
    let (rows, cols, eps) = (7, 300, 1e-12f32);
    let x = (rng.normal(&Shape::from((rows, cols)), 2.0, &dev).unwrap() + 1.0).unwrap();
    let w = (rng.normal(&Shape::from(cols), 0.1, &dev).unwrap() + 1.0).unwrap();
    let b = rng.normal(&Shape::from(cols), 0.1, &dev).unwrap();
    let dy = rng.normal(&Shape::from((rows, cols)), 1.0, &dev).unwrap();
    let (xv, wv, bv) = (Var::from_tensor(&x).unwrap(), Var::from_tensor(&w).unwrap(), Var::from_tensor(&b).unwrap());
    let y = crate::kernels::layer_norm::layer_norm(xv.as_tensor(), wv.as_tensor(), bv.as_tensor(), eps as f64).unwrap();
    let grads = (&y * &dy).unwrap().sum_all().unwrap().backward().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, t) in [("x", &x), ("w", &w), ("b", &b), ("dy", &dy)] {
        write(dir.path(), name, t);
    }
    let numbers = [rows, cols].map(|n| n.to_string());
    let mut args = vec!["layer_norm".to_string(), dir.path().display().to_string()];
    args.extend(numbers);
    args.push(eps.to_bits().to_string());
    run(runner, &args);
    let shape = x.shape();
    assert!(max_diff(&read(dir.path(), "y", shape), &y) < 1e-5, "forward");
    assert!(max_diff(&read(dir.path(), "dx", shape), grads.get(xv.as_tensor()).unwrap()) < 1e-4, "input gradient");
    let dw = read(dir.path(), "dy_xh", shape).sum(0).unwrap();
    assert!(max_diff(&dw, grads.get(wv.as_tensor()).unwrap()) < 1e-4, "scale gradient");
}

/// The emulated embedding gradient against the lookup's CPU loop, which sums each table row's
/// looked-up rows in the same order: equal bit for bit.
#[test]
fn emulated_embedding_gradient_equals_the_cpu_loop() {
    let Some(runner) = runner_or_skip("emulated_embedding_gradient_equals_the_cpu_loop") else { return };
    let (dev, rng) = (Device::Cpu, SeededRng::new(17));
    let (table_rows, cols) = (50, 24);
    let ids: Vec<u32> = (0..200u32).map(|i| (i * 37 + i / 7) % 45).collect();
    let table = Var::from_tensor(&rng.normal(&Shape::from((table_rows, cols)), 1.0, &dev).unwrap()).unwrap();
    let looked_up =
        crate::kernels::embedding::lookup(table.as_tensor(), &Tensor::new(ids.as_slice(), &dev).unwrap()).unwrap();
    let grad = rng.normal(looked_up.shape(), 1.0, &dev).unwrap();
    let grads = (&looked_up * &grad).unwrap().sum_all().unwrap().backward().unwrap();
    let (unique_ids, offsets, order) = crate::kernels::embedding::group_rows(&ids);
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "grad", &grad);
    for (name, values) in [("unique_ids", unique_ids), ("offsets", offsets), ("order", order)] {
        let as_f32: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        write(dir.path(), name, &Tensor::new(as_f32.as_slice(), &dev).unwrap());
    }
    let args =
        ["grouped_row_sum".to_string(), dir.path().display().to_string(), table_rows.to_string(), cols.to_string()];
    run(runner, &args);
    let out = read(dir.path(), "out", &Shape::from((table_rows, cols)));
    assert_eq!(max_diff(&out, grads.get(table.as_tensor()).unwrap()), 0.0);
}

/// The emulated three-part concatenation (grid-strided over two blocks) against candle's.
#[test]
fn emulated_concatenation_equals_cat() {
    let Some(runner) = runner_or_skip("emulated_concatenation_equals_cat") else { return };
    let rng = SeededRng::new(18);
    let parts = [37usize, 1, 300].map(|n| rng.normal(&Shape::from(n), 1.0, &Device::Cpu).unwrap());
    let dir = tempfile::tempdir().unwrap();
    for (name, t) in ["a", "b", "c"].iter().zip(&parts) {
        write(dir.path(), name, t);
    }
    run(runner, &["concat3".to_string(), dir.path().display().to_string()]);
    let expected = Tensor::cat(&parts, 0).unwrap();
    assert_eq!(max_diff(&read(dir.path(), "out", expected.shape()), &expected), 0.0);
}

/// The emulated GELU kernels, four elements a thread and one at a time, against the CPU op
/// and its gradient.
#[test]
fn emulated_gelu_and_its_gradient_match_the_cpu_loops() {
    let Some(runner) = runner_or_skip("emulated_gelu_and_its_gradient_match_the_cpu_loops") else { return };
    let rng = SeededRng::new(19);
    let x = Var::from_tensor(&rng.normal(&Shape::from(515), 2.0, &Device::Cpu).unwrap()).unwrap();
    let dy = rng.normal(&Shape::from(515), 1.0, &Device::Cpu).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x", x.as_tensor());
    write(dir.path(), "dy", &dy);
    run(runner, &["gelu".to_string(), dir.path().display().to_string()]);
    let y = crate::kernels::ops::gelu(x.as_tensor()).unwrap();
    let grads = (&y * &dy).unwrap().sum_all().unwrap().backward().unwrap();
    let dx = grads.get(x.as_tensor()).unwrap();
    assert!(max_diff(&read(dir.path(), "y", y.shape()), &y) < 1e-5);
    assert!(max_diff(&read(dir.path(), "dx", dx.shape()), dx) < 1e-5);
    let odd = Shape::from(514);
    assert!(max_diff(&read(dir.path(), "y_odd", &odd), &y.narrow(0, 1, 514).unwrap()) < 1e-5);
    assert!(max_diff(&read(dir.path(), "dx_odd", &odd), &dx.narrow(0, 1, 514).unwrap()) < 1e-5);
}

/// The emulated residual layer norm, forward and backward, against the CPU op
/// (`residual_norm`), with and without dropout: the output and the gradients of `a`, the
/// residual, the scale and the shift (the last two summed from the kernel's per-row `dy * xhat`
/// and `dy`). Rows of 384 (MiniLM's), of 300 (no multiple of 128), and of 37 and 130 (no
/// multiple of 4, so rows start at odd elements and draw both halves of the mask's numbers).
#[test]
fn emulated_residual_layer_norm_matches_the_cpu_op() {
    let Some(runner) = runner_or_skip("emulated_residual_layer_norm_matches_the_cpu_op") else { return };
    let (dev, rng) = (Device::Cpu, SeededRng::new(20));
    let eps = 1e-12f32;
    for (rows, cols) in [(5, 384), (7, 300), (9, 37), (3, 130)] {
        for key in [None, Some(DropoutKey::new(0x5eed_0fd2_0f00_1234, 0.3))] {
            let shape = Shape::from((rows, cols));
            let var = |t: Tensor| Var::from_tensor(&t).unwrap();
            let a = var(rng.normal(&shape, 1.0, &dev).unwrap());
            let r = var((rng.normal(&shape, 2.0, &dev).unwrap() + 1.0).unwrap());
            let w = var((rng.normal(&Shape::from(cols), 0.1, &dev).unwrap() + 1.0).unwrap());
            let b = var(rng.normal(&Shape::from(cols), 0.1, &dev).unwrap());
            let dy = rng.normal(&shape, 1.0, &dev).unwrap();
            let (at, rt, wt, bt) = (a.as_tensor(), r.as_tensor(), w.as_tensor(), b.as_tensor());
            let y = crate::kernels::residual_norm::residual_layer_norm(at, rt, wt, bt, eps as f64, key).unwrap();
            let grads = (&y * &dy).unwrap().sum_all().unwrap().backward().unwrap();
            let dir = tempfile::tempdir().unwrap();
            let wb = Tensor::cat(&[wt, bt], 0).unwrap();
            for (name, t) in [("a", at), ("r", rt), ("wb", &wb), ("dy", &dy)] {
                write(dir.path(), name, t);
            }
            let (k, threshold, scale) = key.map(|k| k.parts()).unwrap_or((0, 0, 1.0));
            let mut args = vec!["residual_norm".to_string(), dir.path().display().to_string()];
            args.extend([rows.to_string(), cols.to_string(), eps.to_bits().to_string()]);
            args.extend([usize::from(key.is_some()).to_string(), k.to_string(), threshold.to_string()]);
            args.push(scale.to_bits().to_string());
            run(runner, &args);
            let case = format!("{rows} x {cols}, dropout {}", key.is_some());
            let check = |what: &str, got: &Tensor, want: &Tensor| {
                let d = max_diff(got, want);
                assert!(d < 1e-5, "{case}: {what} differs by {d}");
            };
            check("output", &read(dir.path(), "y", &shape), &y);
            let dr = read(dir.path(), "dr", &shape);
            check("residual gradient", &dr, grads.get(rt).unwrap());
            let da = if key.is_some() { read(dir.path(), "da", &shape) } else { dr };
            check("a gradient", &da, grads.get(at).unwrap());
            let params = read(dir.path(), "params", &Shape::from((rows, 2 * cols))).sum(0).unwrap();
            check("scale gradient", &params.narrow(0, 0, cols).unwrap(), grads.get(wt).unwrap());
            check("shift gradient", &params.narrow(0, cols, cols).unwrap(), grads.get(bt).unwrap());
        }
    }
}
