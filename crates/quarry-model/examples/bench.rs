//! Encoder forward throughput and one full fine-tuning step on CPU.
//!
//! Usage: cargo run --release -p quarry-model --example bench -- MODEL_DIR [ITERS [forward|train]]
//! Threads follow RAYON_NUM_THREADS. Reports the fastest of ITERS runs (default 3) of the
//! phase asked for (default both), the least CPU time (all threads) of a training step, and
//! the process's peak resident memory, as one JSON object;
//! scripts/bench_vs_torch.sh runs each phase in a process of its own so that each peak is
//! that phase's.

use std::collections::HashMap;

use std::time::Instant;

use candle_core::{Device, Tensor};
use quarry_model::nn::heads::IGNORE_INDEX;
use quarry_model::nn::params::sorted_vars;
use quarry_model::nn::rng::SeededRng;
use quarry_model::training::optim::{AdamW, AdamWConfig};
use quarry_model::{load_model, ModelSource, SpanModel};

/// Reusing freed pages avoids a page fault per fresh activation tensor.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (same index in its v2 and v3 option enums).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps freed memory instead of returning it to the OS: activations of the same sizes are
/// allocated again every step, and each return costs page faults and page zeroing.
fn keep_freed_memory() {
    // SAFETY: setting an allocator option is allowed at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

/// The process's peak resident memory (`VmHWM`) in MiB, NaN where /proc is missing.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// CPU seconds (user and system, all threads) the process has used so far, from
/// `/proc/self/stat` (in units of 1/100 s, Linux's fixed `USER_HZ`); NaN where it is missing.
/// Other load on the machine stretches wall time but not CPU time, so comparing the CPU time
/// of a step tells changes apart on a busy machine (spin-waiting still counts as CPU time).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
    // After the command name: state is field 0, utime field 11, stime field 12.
    match (ticks(11), ticks(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => f64::NAN,
    }
}

fn random_batch(rng: &SeededRng, b: usize, s: usize, vocab: usize) -> (Tensor, Tensor, Tensor) {
    let ids: Vec<u32> = (0..b * s)
        .map(|i| if i % s == 0 { 101 } else { 1000 + (rng.uniform() * (vocab - 1000) as f32) as u32 })
        .collect();
    let labels: Vec<i64> =
        (0..b * s).map(|i| if i % s == 0 { IGNORE_INDEX } else { (rng.uniform() * 4.0) as i64 % 4 }).collect();
    let ids = Tensor::from_vec(ids, (b, s), &Device::Cpu).unwrap();
    let mask = Tensor::ones((b, s), candle_core::DType::U32, &Device::Cpu).unwrap();
    let labels = Tensor::from_vec(labels, b * s, &Device::Cpu).unwrap();
    (ids, mask, labels)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    keep_freed_memory();
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).ok_or("usage: bench MODEL_DIR [ITERS]")?;
    let iters: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(3);
    let phase = args.get(3).map(String::as_str).unwrap_or("both");
    if !["forward", "train", "both"].contains(&phase) {
        return Err("the phase is forward, train or both".into());
    }
    let loaded = load_model(&ModelSource::Dir(dir.into()), None, &Device::Cpu, 0)?;
    let vocab = loaded.config.vocab_size;
    let model = SpanModel::new(loaded)?;
    let rng = SeededRng::new(1);

    let (b, s) = (32, 256);
    let (ids, mask, _) = random_batch(&rng, b, s, vocab);
    let mut fwd = f64::NAN;
    if phase != "train" {
        model.model.encoder.forward(&ids, &mask, false)?; // warm-up
                                                          // The fastest of `iters` runs: the least disturbed by other load on the machine.
        fwd = f64::INFINITY;
        for _ in 0..iters {
            let start = Instant::now();
            let out = model.model.encoder.forward(&ids, &mask, false)?;
            out.last.sum_all()?.to_scalar::<f32>()?;
            fwd = fwd.min(start.elapsed().as_secs_f64());
        }
    }
    let (mut train, mut train_cpu) = (f64::NAN, f64::NAN);
    if phase != "forward" {
        let (b, s) = (8, 256);
        let (ids, mask, labels) = random_batch(&rng, b, s, vocab);
        let vars = sorted_vars(model.model.store.vars());
        let mut opt = AdamW::new(vars.clone(), AdamWConfig::default())?;
        let mut step = || -> Result<(f64, f64), Box<dyn std::error::Error>> {
            let (start, cpu_start) = (Instant::now(), cpu_seconds());
            let loss = model.loss(&ids, &mask, &labels, true)?;
            let grads = loss.backward()?;
            let mut map = HashMap::new();
            for (name, var) in &vars {
                if let Some(g) = grads.get(var.as_tensor()) {
                    map.insert(name.clone(), g.clone());
                }
            }
            opt.step(&map, 5e-5)?;
            Ok((start.elapsed().as_secs_f64(), cpu_seconds() - cpu_start))
        };
        step()?; // warm-up
        train = f64::INFINITY;
        train_cpu = f64::INFINITY;
        for _ in 0..iters {
            let (wall, cpu) = step()?;
            train = train.min(wall);
            train_cpu = train_cpu.min(cpu);
        }
    }
    let json = |x: f64| if x.is_finite() { format!("{x:.4}") } else { "null".into() };
    println!(
        "{{\"impl\":\"quarry/candle\",\"phase\":\"{phase}\",\"threads\":{},\"forward_s\":{},\"forward_tokens_per_s\":{},\"train_step_s\":{},\"train_step_cpu_s\":{},\"peak_rss_mib\":{}}}",
        candle_core::utils::get_num_threads(),
        json(fwd),
        json((32 * 256) as f64 / fwd),
        json(train),
        json(train_cpu),
        json(peak_rss_mib())
    );
    Ok(())
}
