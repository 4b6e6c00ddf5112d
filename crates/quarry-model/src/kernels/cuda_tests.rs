//! quarry's CUDA kernels against their CPU loops, forward and backward, on random inputs of
//! a MiniLM batch's shapes. They need a GPU, so they are built only with the `cuda` feature
//! and ignored by default; `scripts/gpu-check` runs them on the GPU machine
//! (`--ignored cuda_`).

use candle_core::{DType, Device, Tensor, Var};

use crate::kernels::{attention, bias_add, dropout, embedding, layer_norm, masked_softmax, ops, residual_norm};

fn gpu() -> Device {
    Device::new_cuda(0).expect("a CUDA device")
}

/// Largest absolute difference of two tensors of any devices, in f32.
fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
    let a = a.to_device(&Device::Cpu).unwrap().to_dtype(DType::F32).unwrap();
    let b = b.to_device(&Device::Cpu).unwrap().to_dtype(DType::F32).unwrap();
    (a - b).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar().unwrap()
}

/// `f` of `inputs` on the CPU and on the GPU: the outputs' and every input's gradient's
/// largest difference, against a fixed random weighting of the output.
fn compare(inputs: &[Tensor], f: impl Fn(&[Tensor]) -> Tensor) -> Vec<f32> {
    let run = |device: &Device| {
        let vars: Vec<Var> = inputs.iter().map(|t| Var::from_tensor(&t.to_device(device).unwrap()).unwrap()).collect();
        let tensors: Vec<Tensor> = vars.iter().map(|v| v.as_tensor().clone()).collect();
        let y = f(&tensors);
        let weight = Tensor::randn(0f32, 1., y.shape(), &Device::Cpu).unwrap();
        (y, vars, weight)
    };
    let (y_cpu, vars_cpu, weight) = run(&Device::Cpu);
    let (y_gpu, vars_gpu, _) = run(&gpu());
    let mut diffs = vec![max_diff(&y_cpu, &y_gpu)];
    let grads_cpu = (&y_cpu * &weight).unwrap().sum_all().unwrap().backward().unwrap();
    let weight = weight.to_device(&gpu()).unwrap().to_dtype(y_gpu.dtype()).unwrap();
    let grads_gpu = (&y_gpu * &weight).unwrap().sum_all().unwrap().backward().unwrap();
    for (c, g) in vars_cpu.iter().zip(&vars_gpu) {
        if let (Some(c), Some(g)) = (grads_cpu.get(c.as_tensor()), grads_gpu.get(g.as_tensor())) {
            diffs.push(max_diff(c, g));
        }
    }
    diffs
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_embedding_lookup_and_its_gradient_equal_the_cpu() {
    let table = Tensor::randn(0f32, 1., (1000, 384), &Device::Cpu).unwrap();
    let ids: Vec<u32> = (0..4096u32).map(|i| (i * 7919 + i / 3) % 1000).collect();
    let ids_cpu = Tensor::new(ids.as_slice(), &Device::Cpu).unwrap();
    let ids_gpu = ids_cpu.to_device(&gpu()).unwrap();
    let diffs = compare(&[table], |t| {
        let ids = if t[0].device().is_cuda() { &ids_gpu } else { &ids_cpu };
        embedding::lookup(&t[0], ids).unwrap()
    });
    assert_eq!(diffs, [0.0, 0.0], "the lookup and its gradient are exact");
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_lookup_of_one_row_has_the_cpu_gradient() {
    let table = Tensor::randn(0f32, 1., (2, 384), &Device::Cpu).unwrap();
    let ids_cpu = Tensor::zeros(4096, DType::U32, &Device::Cpu).unwrap();
    let ids_gpu = ids_cpu.to_device(&gpu()).unwrap();
    let diffs = compare(&[table], |t| {
        let ids = if t[0].device().is_cuda() { &ids_gpu } else { &ids_cpu };
        embedding::lookup(&t[0], ids).unwrap()
    });
    // The table gradient sums 4096 rows in another order.
    assert!(diffs[0] == 0.0 && diffs[1] < 1e-3, "{diffs:?}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_layer_norm_matches_the_cpu() {
    let x = (Tensor::randn(0f32, 2., (32, 128, 384), &Device::Cpu).unwrap() + 1.0).unwrap();
    let w = Tensor::randn(1f32, 0.1, 384, &Device::Cpu).unwrap();
    let b = Tensor::randn(0f32, 0.1, 384, &Device::Cpu).unwrap();
    let diffs = compare(&[x, w, b], |t| layer_norm::layer_norm(&t[0], &t[1], &t[2], 1e-12).unwrap());
    assert_eq!(diffs.len(), 4);
    // x's gradient is small; w's and b's sum 4096 rows.
    for (d, bound) in diffs.iter().zip([1e-4, 1e-4, 1e-2, 1e-2]) {
        assert!(*d < bound, "{diffs:?}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_residual_layer_norm_matches_the_cpu_with_and_without_dropout() {
    // A MiniLM batch's rows, and rows of 130 (no multiple of 128 or of 4).
    for shape in [(32, 128, 384), (3, 7, 130)] {
        let cols = shape.2;
        let a = Tensor::randn(0f32, 1., shape, &Device::Cpu).unwrap();
        let r = (Tensor::randn(0f32, 2., shape, &Device::Cpu).unwrap() + 1.0).unwrap();
        let w = Tensor::randn(1f32, 0.1, cols, &Device::Cpu).unwrap();
        let b = Tensor::randn(0f32, 0.1, cols, &Device::Cpu).unwrap();
        let key = crate::nn::rng::SeededRng::new(5).dropout_key(0.1);
        for dropout in [None, Some(key)] {
            let inputs = [a.clone(), r.clone(), w.clone(), b.clone()];
            let diffs = compare(&inputs, |t| {
                residual_norm::residual_layer_norm(&t[0], &t[1], &t[2], &t[3], 1e-12, dropout).unwrap()
            });
            assert_eq!(diffs.len(), 5);
            // The output and the input gradients per element; w's and b's sum up to 4096 rows.
            for (d, bound) in diffs.iter().zip([1e-5, 1e-4, 1e-4, 1e-2, 1e-2]) {
                assert!(*d < bound, "{shape:?}, dropout {}: {diffs:?}", dropout.is_some());
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_masked_softmax_matches_the_cpu() {
    let scores = Tensor::randn(0f32, 3., (4, 12, 128, 128), &Device::Cpu).unwrap();
    let keep = Tensor::arange(0u32, 128, &Device::Cpu).unwrap().ge(100u32).unwrap().to_dtype(DType::F32).unwrap();
    let bias_cpu = (keep * -1e9).unwrap().unsqueeze(0).unwrap().repeat((4, 1)).unwrap();
    let bias_gpu = bias_cpu.to_device(&gpu()).unwrap();
    let diffs = compare(&[scores], |t| {
        let bias = if t[0].device().is_cuda() { &bias_gpu } else { &bias_cpu };
        masked_softmax::gpu_masked_softmax(&t[0], bias).unwrap()
    });
    assert!(diffs.iter().all(|d| *d < 1e-5), "{diffs:?}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_fused_attention_matches_the_cpu_with_and_without_dropout() {
    // A MiniLM batch (12 heads of 32) with padding, and a head as wide as 64.
    for (b, s, heads, d) in [(4, 128, 12, 32), (2, 77, 4, 64)] {
        let qkv = Tensor::randn(0f32, 1., (b, s, 3 * heads * d), &Device::Cpu).unwrap();
        let keep = Tensor::arange(0u32, s as u32, &Device::Cpu).unwrap().lt(s as u32 - 9).unwrap();
        let bias_cpu = ((keep.to_dtype(DType::F32).unwrap() - 1.0).unwrap() * 1e9).unwrap();
        let bias_cpu = bias_cpu.unsqueeze(0).unwrap().repeat((b, 1)).unwrap();
        let bias_gpu = bias_cpu.to_device(&gpu()).unwrap();
        let key = crate::nn::rng::SeededRng::new(3).dropout_key(0.1);
        for dropout in [None, Some(key)] {
            let diffs = compare(std::slice::from_ref(&qkv), |t| {
                let bias = if t[0].device().is_cuda() { &bias_gpu } else { &bias_cpu };
                attention::self_attention(&t[0], heads, bias, dropout).unwrap()
            });
            assert!(diffs[0] < 1e-5 && diffs[1] < 1e-4, "({b}, {s}, {heads}, {d}), dropout {dropout:?}: {diffs:?}");
        }
        // bf16 projections: within bf16's rounding of the f32 kernel on the same rounded values.
        let rounded = qkv.to_dtype(DType::BF16).unwrap();
        let ours = attention::self_attention(&rounded.to_device(&gpu()).unwrap(), heads, &bias_gpu, None).unwrap();
        let theirs = attention::self_attention(&rounded.to_dtype(DType::F32).unwrap(), heads, &bias_cpu, None).unwrap();
        assert!(max_diff(&ours, &theirs) < 2e-2, "bf16: {}", max_diff(&ours, &theirs));
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_linear_layer_through_cublaslt_matches_the_cpu() {
    let x = Tensor::randn(0f32, 1., (4096, 384), &Device::Cpu).unwrap();
    let w = Tensor::randn(0f32, 0.05, (1536, 384), &Device::Cpu).unwrap();
    let b = Tensor::randn(0f32, 1., 1536, &Device::Cpu).unwrap();
    let on_gpu = |t: &Tensor| t.to_device(&gpu()).unwrap();
    let fused = crate::kernels::linear_lt::linear(&on_gpu(&x), &on_gpu(&w), &on_gpu(&b)).unwrap();
    assert!(fused.is_some(), "cuBLASLt takes an aligned f32 layer");
    let diffs =
        compare(&[x.clone(), w.clone(), b.clone()], |t| crate::nn::layers::affine(&t[0], &t[1], &t[2]).unwrap());
    // Sums of 384 products forward, of 4096 for the weight's and bias's gradients.
    for (d, bound) in diffs.iter().zip([1e-4, 1e-4, 1e-2, 1e-2]) {
        assert!(*d < bound, "{diffs:?}");
    }
    let bf16 = |t: &Tensor| on_gpu(t).to_dtype(DType::BF16).unwrap();
    let ours = crate::kernels::linear_lt::linear(&bf16(&x), &bf16(&w), &bf16(&b)).unwrap().expect("bf16 applies");
    let theirs = bf16(&x).matmul(&bf16(&w).t().unwrap()).unwrap().broadcast_add(&bf16(&b)).unwrap();
    assert!(max_diff(&ours, &theirs) < 5e-2, "bf16: {}", max_diff(&ours, &theirs));
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_dropout_draws_the_cpu_mask() {
    let x = Tensor::randn(0f32, 1., (4096, 384), &Device::Cpu).unwrap();
    let key = crate::nn::rng::SeededRng::new(4).dropout_key(0.1);
    let diffs = compare(std::slice::from_ref(&x), |t| dropout::dropout(&t[0], key).unwrap());
    assert_eq!(diffs, [0.0, 0.0], "the same mask forward and backward");
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_bias_add_matches_the_cpu_in_f32_and_bf16() {
    let x = Tensor::randn(0f32, 1., (4096, 1536), &Device::Cpu).unwrap();
    let b = Tensor::randn(0f32, 1., 1536, &Device::Cpu).unwrap();
    let diffs = compare(&[x.clone(), b.clone()], |t| bias_add::bias_add(&t[0], &t[1]).unwrap());
    assert!(diffs[0] == 0.0 && diffs[1] == 0.0 && diffs[2] < 1e-2, "{diffs:?}");
    let (xg, bg) = (x.to_device(&gpu()).unwrap(), b.to_device(&gpu()).unwrap());
    let (xg, bg) = (xg.to_dtype(DType::BF16).unwrap(), bg.to_dtype(DType::BF16).unwrap());
    let ours = bias_add::bias_add(&xg, &bg).unwrap();
    let theirs = xg.broadcast_add(&bg).unwrap();
    assert_eq!(max_diff(&ours, &theirs), 0.0, "bf16");
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_gelu_matches_the_cpu_in_f32_and_candle_in_bf16() {
    let x = Tensor::randn(0f32, 2., (4096, 1536), &Device::Cpu).unwrap();
    let diffs = compare(std::slice::from_ref(&x), |t| ops::gelu(&t[0]).unwrap());
    assert!(diffs[0] < 1e-5 && diffs[1] < 1e-5, "{diffs:?}");
    // An odd count from an odd offset: the one-at-a-time path.
    let odd = x.flatten_all().unwrap().narrow(0, 1, 1001).unwrap();
    assert!(compare(&[odd], |t| ops::gelu(&t[0]).unwrap()).iter().all(|d| *d < 1e-5));
    let xg = x.to_device(&gpu()).unwrap().to_dtype(DType::BF16).unwrap();
    let ours = Var::from_tensor(&xg).unwrap();
    let theirs = Var::from_tensor(&xg).unwrap();
    let (y_ours, y_theirs) = (ops::gelu(ours.as_tensor()).unwrap(), theirs.as_tensor().gelu_erf().unwrap());
    assert!(max_diff(&y_ours, &y_theirs) <= 0.0625, "bf16 forward");
    let g_ours = y_ours.sum_all().unwrap().backward().unwrap();
    let g_theirs = y_theirs.sum_all().unwrap().backward().unwrap();
    let (g_ours, g_theirs) = (g_ours.get(ours.as_tensor()).unwrap(), g_theirs.get(theirs.as_tensor()).unwrap());
    assert!(max_diff(g_ours, g_theirs) <= 0.0625, "bf16 gradient");
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_flat_adamw_matches_the_cpu() {
    use crate::kernels::adamw_cpu::Step;
    use crate::kernels::adamw_flat::FlatMoments;
    let shapes: [&[usize]; 3] = [&[384, 1536], &[1536], &[30, 384]];
    let inits: Vec<Tensor> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| (Tensor::randn(0f32, 1., *s, &Device::Cpu).unwrap() + i as f64).unwrap())
        .collect();
    let run = |device: &Device| {
        let vars: Vec<Var> = inits.iter().map(|t| Var::from_tensor(&t.to_device(device).unwrap()).unwrap()).collect();
        let decays: Vec<(&Var, bool)> = vars.iter().zip([true, false, true]).collect();
        let mut flat = FlatMoments::new(&decays, device).unwrap();
        let params: Vec<&Var> = vars.iter().collect();
        let mut sums = Vec::new();
        for step in 1..=3 {
            let grads: Vec<Option<Tensor>> = vars
                .iter()
                .enumerate()
                .map(|(i, v)| (step != 2 || i != 1).then(|| (v.as_tensor().sqr().unwrap() * 0.1).unwrap()))
                .collect();
            sums.push(flat.update(&params, &grads, Step::for_tests(step)).unwrap());
        }
        (vars, sums)
    };
    let (cpu, cpu_sums) = run(&Device::Cpu);
    let (gpu_vars, gpu_sums) = run(&gpu());
    for (a, b) in cpu_sums.iter().zip(&gpu_sums) {
        assert!((a - b).abs() < 1e-5 * a, "{cpu_sums:?} {gpu_sums:?}");
    }
    for (c, g) in cpu.iter().zip(&gpu_vars) {
        assert!(max_diff(c.as_tensor(), g.as_tensor()) < 1e-5, "{}", max_diff(c.as_tensor(), g.as_tensor()));
    }
}
