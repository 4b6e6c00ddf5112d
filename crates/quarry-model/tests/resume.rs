//! Determinism and exact resume: the same seed and data give byte-identical weights, and a
//! run stopped at an epoch boundary or in the middle of an epoch (with a checkpoint every N
//! steps) and resumed ends byte-identical to the run that was never stopped: weights,
//! optimizer moments and step, data position and the dropout generator all carry over.

mod common;

use std::path::{Path, PathBuf};

use candle_core::Device;
use quarry_model::training::data::{encode_examples, EncodedExample};
use quarry_model::training::train::{fit, read_state, TrainConfig, TrainEvent};
use quarry_model::{load_model, ModelSource, ScratchSpec, SpanModel};

fn scratch(vocab: &Path) -> SpanModel {
    let source = ModelSource::Scratch(ScratchSpec::parse("1x32x2").unwrap());
    SpanModel::new(load_model(&source, Some(vocab), &Device::Cpu, 11).unwrap()).unwrap()
}

fn resumed(out: &Path) -> SpanModel {
    // The seed given here must not matter: the generator's state comes from the checkpoint.
    SpanModel::new(load_model(&ModelSource::Dir(out.join("last")), None, &Device::Cpu, 999).unwrap()).unwrap()
}

fn config(out: &Path) -> TrainConfig {
    TrainConfig {
        epochs: 3,
        batch_size: 4,
        grad_accum: 2,
        lr: 2e-3,
        warmup_steps: 2,
        seed: 5,
        out_dir: Some(out.to_path_buf()),
        ..TrainConfig::default()
    }
}

fn bytes(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// How a run is cut short.
#[derive(Clone, Copy)]
enum Stop {
    /// `stop_after_steps`: an orderly stop that writes `last/` after this step.
    After(usize),
    /// The process dies right after this step, before any checkpoint of it is written.
    Killed(usize),
}

/// Trains to the end, cut short at each of `stops` and resumed, and returns the weights and
/// optimizer files of `last/` and the loss of every step (a step done again after a kill
/// must repeat its loss exactly).
fn run(
    data: &[EncodedExample],
    vocab: &Path,
    out: &Path,
    stops: &[Stop],
    every: Option<usize>,
) -> (Vec<u8>, Vec<u8>, Vec<f64>) {
    let _ = std::fs::remove_dir_all(out);
    let mut losses: Vec<f64> = Vec::new();
    let plan: Vec<Option<Stop>> = stops.iter().copied().map(Some).chain([None]).collect();
    for (i, stop) in plan.into_iter().enumerate() {
        let model = if i == 0 { scratch(vocab) } else { resumed(out) };
        let stop_after_steps = match stop {
            Some(Stop::After(n)) => Some(n),
            _ => None,
        };
        let cfg = TrainConfig { resume: i > 0, stop_after_steps, checkpoint_every: every, ..config(out) };
        let mut record = |e: &TrainEvent| {
            if let TrainEvent::Step(s) = e {
                if s.step <= losses.len() {
                    assert_eq!(losses[s.step - 1], s.loss, "step {} done again with another loss", s.step);
                } else {
                    assert_eq!(s.step, losses.len() + 1, "a step was skipped");
                    losses.push(s.loss);
                }
                if matches!(stop, Some(Stop::Killed(n)) if n == s.step) {
                    panic!("killed after step {n}", n = s.step);
                }
            }
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fit(&model, data, &data[..8], &cfg, &mut record).unwrap();
        }));
        assert_eq!(result.is_err(), matches!(stop, Some(Stop::Killed(_))));
    }
    let last = out.join("last");
    (bytes(last.join("model.safetensors")), bytes(last.join("optimizer.safetensors")), losses)
}

#[test]
fn interrupted_runs_resume_byte_identical() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let vocab = common::vocab_dir("resume");
    let model = scratch(&vocab);
    // 22 examples in batches of 4: 6 passes and 3 optimizer steps an epoch, the last step
    // of an epoch over one pass only.
    let data = encode_examples(&common::synthetic_set(22, 8), &model.model.tokenizer, 64).unwrap();
    drop(model);

    let (weights, optimizer, losses) = run(&data, &vocab, &vocab.join("straight"), &[], None);
    assert_eq!(losses.len(), 9);
    let again = run(&data, &vocab, &vocab.join("again"), &[], None);
    assert!(again.0 == weights && again.1 == optimizer, "the same seed and data gave different weights");

    // Stopped at the end of epoch 1 (step 3) and in the middle of epoch 2 (step 5), then
    // in the middle of epoch 3 (step 8).
    let out = vocab.join("interrupted");
    let stopped = run(&data, &vocab, &out, &[Stop::After(3), Stop::After(5), Stop::After(8)], None);
    assert_eq!(stopped.2, losses, "the resumed runs saw other batches or dropout masks");
    assert!(stopped.0 == weights, "resumed weights differ from the uninterrupted run's");
    assert!(stopped.1 == optimizer, "resumed optimizer state differs");
    let state = read_state(&out).unwrap().unwrap();
    assert_eq!((state.epochs_done, state.batches_done), (3, 0));
    assert_eq!(state.history.len(), 3);

    // Killed with checkpoints every 2 steps: after step 3 the run resumes from step 2's
    // checkpoint, written before any validation (its best loss still infinite); after step 5
    // from step 4's and does step 5 again; after step 7 from the end of epoch 2 (step 6).
    let out = vocab.join("killed");
    let killed = run(&data, &vocab, &out, &[Stop::Killed(3), Stop::Killed(5), Stop::Killed(7)], Some(2));
    assert_eq!(killed.2, losses);
    assert!(killed.0 == weights && killed.1 == optimizer, "a killed and resumed run ends elsewhere");
    // Nothing is left half-written beside the checkpoints.
    let mut names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, vec!["best", "last"]);
    std::fs::remove_dir_all(&vocab).unwrap();
}
