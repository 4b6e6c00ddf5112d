//! Training the answer generator on a few real CodeQA pairs (a fixture copied from the
//! released Python dev split) lowers its loss, and greedy decoding then gives back a trained
//! answer: teacher forcing, label shifting, padding and decoding fit together. A scratch
//! encoder with a vocabulary of the fixture's own words keeps it fast and model-free.

mod common;

use std::path::{Path, PathBuf};

use candle_core::Device;
use quarry_model::training::train::{fit, TrainConfig, Trainable};
use quarry_model::{load_model, AnswerConfig, AnswerModel, DecodeOptions, ModelSource, ScratchSpec};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codeqa/pairs")
}

/// A WordPiece vocabulary of every lower-cased word and punctuation mark of the fixture.
fn vocab_dir(prefix: &Path) -> PathBuf {
    let text: Vec<String> = ["code", "question", "answer"]
        .iter()
        .map(|suffix| std::fs::read_to_string(format!("{}.{suffix}", prefix.display())).unwrap())
        .collect();
    common::word_vocab_dir("answer-training", &text.join("\n"), char::is_alphanumeric)
}

#[test]
fn training_on_real_pairs_lowers_the_loss_and_recalls_answers() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let prefix = fixture();
    let examples = quarry_data::codeqa::read_split(&prefix, true, false).unwrap();
    assert_eq!(examples.len(), 8);
    let dir = vocab_dir(&prefix);
    let source = ModelSource::Scratch(ScratchSpec::parse("1x32x2").unwrap());
    let loaded = load_model(&source, Some(&dir), &Device::Cpu, 3).unwrap();
    let config = AnswerConfig {
        decoder_layers: 1,
        decoder_ffn: 64,
        dropout: 0.0,
        max_source_len: 48,
        max_target_len: 24,
        freeze_encoder: false,
        ..AnswerConfig::default()
    };
    let model = AnswerModel::new(loaded, config).unwrap();
    let encoded: Vec<_> =
        examples.iter().map(|e| model.encode(&e.question, &e.code, e.answer.as_deref()).unwrap()).collect();
    // No word of the fixture is unknown to its own vocabulary.
    let unk = model.model.tokenizer.unk_id().unwrap();
    assert!(encoded.iter().all(|e| !e.source.contains(&unk) && !e.target.contains(&unk)));
    let before = model.validate(&encoded, 8).unwrap().loss;
    let train = TrainConfig { epochs: 150, batch_size: 4, lr: 1e-2, weight_decay: 0.0, ..TrainConfig::default() };
    let logs = fit(&model, &encoded, &encoded, &train, &mut |_| {}).unwrap();
    let after = model.validate(&encoded, 8).unwrap().loss;
    eprintln!("token loss {before:.3} -> {after:.3} over {} epochs", logs.len());
    assert!(before > 3.0, "an untrained model is near uniform over the vocabulary: {before}");
    assert!(after < 0.5 * before, "loss {before} -> {after}");
    assert!(logs.last().unwrap().loss < logs[0].loss);

    // Greedy answers of the trained pairs decode to words of the answers (a one-layer
    // scratch encoder barely tells the questions apart, so they are not all recalled).
    let sources: Vec<Vec<u32>> = encoded.iter().map(|e| e.source.clone()).collect();
    let options =
        DecodeOptions { beam_size: 1, max_len: None, length_penalty: 0.0, batch_size: 8, ..Default::default() };
    let answers = model.generate(&sources, &options).unwrap();
    let exact = answers
        .iter()
        .zip(&examples)
        .filter(|(a, e)| {
            let gold = e.answer.as_deref().unwrap().to_lowercase();
            a.split_whitespace().eq(gold.split_whitespace())
        })
        .count();
    eprintln!("{exact} of 8 recalled exactly: {answers:?}");
    assert!(exact >= 1, "{answers:?}");
    assert!(answers.iter().all(|a| !a.is_empty() && a.split_whitespace().count() <= 22), "{answers:?}");
}
