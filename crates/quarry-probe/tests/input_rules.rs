//! INSPECT's input rule for every model family, against what transformers computes by
//! INSPECT's extractor (`parity/inspect_features.py fixture` writes `tests/fixtures/input_rules`):
//! the ids of six released LEN and IDN samples for BERT (a WordPiece vocabulary: `[CLS]` and
//! `[SEP]` are its own), RoBERTa and CodeT5 (byte-level BPE: both are `<unk>`), and for
//! quarry-model's tiny T5, BART and PLBART checkpoints also every layer's position-0 features,
//! which depend on the padding their encoders attend to. T5 and PLBART directories whose only
//! tokenizer is their SentencePiece model file load and take the same rule.

use std::path::{Path, PathBuf};

use quarry_model::{load_model, Family, ModelSource, Tokenizer};
use quarry_probe::dataset::Dataset;
use quarry_probe::encoder::{EncoderFeatures, ProbedToken};
use quarry_probe::features::LayerFeatures;
use quarry_probe::input::{input_ids, inspect_length, InputModel, InputRule};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/input_rules")
}

fn model_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures")
}

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join("reference.json")).unwrap()).unwrap()
}

fn samples() -> Dataset {
    let dataset = Dataset::read(&fixtures().join("samples.txt")).unwrap();
    assert_eq!(dataset.samples.len(), 6);
    dataset
}

fn ids_of(reference: &Value, family: &str) -> Vec<Vec<u32>> {
    serde_json::from_value(reference[family]["ids"].clone()).unwrap()
}

/// Encoder-only families: quarry's ids are transformers' up to the padding, which the
/// attention mask hides (quarry pads in batches instead).
fn check_masked_family(family: &str, tokenizer: &Tokenizer, kind: Family) {
    let dataset = samples();
    let model = InputModel { tokenizer, family: kind, max_len: 512 };
    let length = inspect_length(model, &dataset.samples).unwrap();
    let got = input_ids(InputRule::Inspect, model, &dataset.samples, length).unwrap();
    for (i, (got, want)) in got.iter().zip(ids_of(&reference(), family)).enumerate() {
        assert_eq!(want.len(), length, "{family}: transformers pads to L");
        assert_eq!(got[..], want[..got.len()], "{family}: sample {i}");
        assert!(want[got.len()..].iter().all(|&id| id == 0), "{family}: sample {i} is longer in transformers");
    }
}

#[test]
fn bert_puts_its_own_cls_and_sep_around_the_cut_sub_tokens() {
    let tokenizer = Tokenizer::from_path(&fixtures().join("bert")).unwrap();
    let cls_sep = tokenizer.cls_sep_ids().unwrap();
    check_masked_family("bert", &tokenizer, Family::Bert);
    let want = ids_of(&reference(), "bert");
    assert_eq!((want[0][0], want[3][3]), cls_sep, "[CLS] first, [SEP] after IDN's one sub-token");
}

#[test]
fn roberta_and_codet5_vocabularies_lack_cls_and_sep_so_both_are_unknown() {
    let tokenizer = Tokenizer::from_path(&model_fixtures().join("tokenizers/codet5_bpe")).unwrap();
    check_masked_family("roberta", &tokenizer, Family::Roberta);
    let unk = tokenizer.unk_id().unwrap();
    let want = ids_of(&reference(), "roberta");
    assert!(want.iter().all(|ids| ids[0] == unk), "`<unk>` where `<s>` would be");
    // The tokenizer's own rule puts `<s>` there instead.
    let dataset = samples();
    let model = InputModel { tokenizer: &tokenizer, family: Family::Roberta, max_len: 512 };
    let own = input_ids(InputRule::Tokenizer, model, &dataset.samples, 0).unwrap();
    assert_eq!((own[0][0], *own[0].last().unwrap()), tokenizer.cls_sep_ids().unwrap());
}

/// T5 and BART: ids padded with 0 to the dataset's longest sample and attended, so the
/// features of short samples depend on it; both within 1e-4 of transformers (float32).
fn check_unmasked_family(family: &str, kind: Family) {
    let dir = model_fixtures().join("seq2seq").join(family);
    let cpu = quarry_model::device::parse_device("cpu").unwrap();
    let model = load_model(&ModelSource::Dir(dir), None, &cpu, 0).unwrap();
    assert_eq!(model.config.family().unwrap(), kind);
    let reference = reference();
    let dataset = samples();
    let mut encoder = EncoderFeatures::new(model, ProbedToken::Summary, InputRule::Inspect, 4);
    encoder.prepare(&dataset.samples).unwrap();
    assert_eq!(encoder.input_ids(&dataset.samples).unwrap(), ids_of(&reference, family), "{family}: ids");
    let got = encoder.features(&dataset.samples).unwrap();
    let want: Vec<Vec<Vec<f32>>> = serde_json::from_value(reference[family]["features"].clone()).unwrap();
    let mut worst = 0f32;
    for (i, sample) in want.iter().enumerate() {
        assert_eq!(sample.len(), got.len(), "{family}: layers");
        for (layer, want) in sample.iter().enumerate() {
            let d = got[layer][i].iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            worst = worst.max(d);
        }
    }
    assert!(worst < 1e-4, "{family}: features differ from transformers' by {worst}");
    // Masking the padding, as the tokenizer rule does, changes the short samples' features.
    let cpu = quarry_model::device::parse_device("cpu").unwrap();
    let model = load_model(&ModelSource::Dir(model_fixtures().join("seq2seq").join(family)), None, &cpu, 0).unwrap();
    let mut masked = EncoderFeatures::new(model, ProbedToken::Summary, InputRule::Tokenizer, 4);
    let other = masked.features(&dataset.samples).unwrap();
    let last = got.len() - 1;
    let d = other[last][3].iter().zip(&got[last][3]).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(d > 1e-3, "{family}: the rules gave the same features");
}

#[test]
fn t5_attends_to_padding_up_to_the_longest_sample() {
    check_unmasked_family("t5", Family::T5);
}

#[test]
fn bart_attends_to_padding_up_to_the_longest_sample() {
    check_unmasked_family("bart", Family::Bart);
}

#[test]
fn plbart_attends_to_padding_up_to_the_longest_sample() {
    check_unmasked_family("plbart", Family::Bart);
}

/// INSPECT's layout of `ids`: `unk` for `[CLS]`, the tokens of the sample's text (its line's
/// last tab-separated field, end stripped) cut to `L - 2`, `unk` for `[SEP]`, then 0 up to `L`,
/// the longest sample's token count.
fn assert_inspect_layout(tokenizer: &Tokenizer, dataset: &Dataset, ids: &[Vec<u32>], unk: u32) {
    let text = |s: &quarry_probe::dataset::Sample| {
        s.text.split('\n').next().unwrap().rsplit('\t').next().unwrap().trim_end().to_string()
    };
    let tokens: Vec<Vec<u32>> = dataset.samples.iter().map(|s| tokenizer.tokenize_ids(&text(s)).unwrap()).collect();
    let length = tokens.iter().map(Vec::len).max().unwrap();
    for (mut tokens, ids) in tokens.into_iter().zip(ids) {
        tokens.truncate(length - 2);
        assert_eq!(ids.len(), length, "padded to the longest sample");
        assert_eq!((ids[0], ids[tokens.len() + 1]), (unk, unk), "<unk> for [CLS] and [SEP]");
        assert_eq!(ids[1..=tokens.len()], tokens[..]);
        assert!(ids[tokens.len() + 2..].iter().all(|&id| id == 0));
    }
}

/// One of the tiny T5/BART checkpoints with its shared embedding grown (zero rows) to `vocab`
/// ids, in `dir`, with `config.json`'s `vocab_size` to match.
fn checkpoint_with_vocabulary(family: &str, dir: &Path, vocab: usize) {
    let source = model_fixtures().join("seq2seq").join(family);
    let bytes = std::fs::read(source.join("model.safetensors")).unwrap();
    let tensors = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut grown = Vec::new();
    for (name, view) in tensors.tensors() {
        let (mut shape, mut data) = (view.shape().to_vec(), view.data().to_vec());
        if name.ends_with("shared.weight") {
            let row = data.len() / shape[0];
            data.resize(row * vocab, 0);
            shape[0] = vocab;
        }
        grown.push((name, view.dtype(), shape, data));
    }
    let views: Vec<(String, safetensors::tensor::TensorView)> = grown
        .iter()
        .map(|(name, dtype, shape, data)| {
            (name.clone(), safetensors::tensor::TensorView::new(*dtype, shape.clone(), data).unwrap())
        })
        .collect();
    std::fs::write(dir.join("model.safetensors"), safetensors::serialize(views, None).unwrap()).unwrap();
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(source.join("config.json")).unwrap()).unwrap();
    config["vocab_size"] = vocab.into();
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
}

/// A tiny `family` checkpoint whose only tokenizer is the tokenizer fixture's SentencePiece
/// model `model` (`DIR/FILE`): it loads as `kind`, INSPECT's `[CLS]`/`[SEP]` become `unk`
/// around `tokenize`'s ids, padded with 0 to the longest sample, and the encoder runs.
fn check_sentencepiece_only(family: &str, model: &str, kind: Family, unk: u32) {
    let dir = tempfile::tempdir().unwrap();
    let file = Path::new(model).file_name().unwrap();
    std::fs::copy(model_fixtures().join("tokenizers").join(model), dir.path().join(file)).unwrap();
    let tokenizer = Tokenizer::from_path(dir.path()).unwrap();
    checkpoint_with_vocabulary(family, dir.path(), tokenizer.vocab_size());
    let cpu = quarry_model::device::parse_device("cpu").unwrap();
    let model = load_model(&ModelSource::Dir(dir.path().to_path_buf()), None, &cpu, 0).unwrap();
    assert!(model.tokenizer.source().ends_with(file));
    assert_eq!(model.config.family().unwrap(), kind);
    let dataset = samples();
    let mut encoder = EncoderFeatures::new(model, ProbedToken::Summary, InputRule::Inspect, 4);
    encoder.prepare(&dataset.samples).unwrap();
    assert_inspect_layout(&tokenizer, &dataset, &encoder.input_ids(&dataset.samples).unwrap(), unk);
    let features = encoder.features(&dataset.samples).unwrap();
    assert_eq!((features.len(), features[0].len(), features[0][0].len()), (3, 6, 32));
    assert!(features.iter().flatten().flatten().all(|x| x.is_finite()));
}

/// PLBART's released directories hold only `sentencepiece.bpe.model` (transformers has no fast
/// PLBART tokenizer); its `<unk>` is 3.
#[test]
fn plbart_with_only_its_sentencepiece_model_takes_inspects_input() {
    check_sentencepiece_only("plbart", "plbart/sentencepiece.bpe.model", Family::Bart, 3);
}

/// A T5 directory with only `spiece.model` loads the same way; its `<unk>` is 2.
#[test]
fn t5_with_only_its_sentencepiece_model_takes_inspects_input() {
    check_sentencepiece_only("t5", "t5_spm/spiece.model", Family::T5, 2);
}
