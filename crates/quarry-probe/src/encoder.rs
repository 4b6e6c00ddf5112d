//! Per-layer features from a neural encoder loaded by quarry-model: the
//! summary token ([CLS] or `<s>`) of every hidden state, or for KTX the
//! representation of the probed token itself.

use quarry_model::LoadedModel;

use crate::dataset::Sample;
use crate::error::{ProbeError, Result};
use crate::features::LayerFeatures;
use crate::task::Task;

/// Which token of the encoded sample is probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbedToken {
    /// The summary token at position 0 ([CLS] for BERT, `<s>` for RoBERTa).
    Summary,
    /// The first sub-token of the sample's text, right after the summary token.
    FirstOfSample,
}

impl ProbedToken {
    /// The token INSPECT probes for `task`: the token itself for KTX (Section 3,
    /// "Token Tagging"), the summary token for every other task, IDN included.
    pub fn for_task(task: Task) -> ProbedToken {
        if task == Task::Ktx {
            ProbedToken::FirstOfSample
        } else {
            ProbedToken::Summary
        }
    }

    fn position(self) -> usize {
        match self {
            ProbedToken::Summary => 0,
            ProbedToken::FirstOfSample => 1,
        }
    }
}

/// A quarry-model encoder as a source of probing features. Samples are
/// tokenized from their space-separated code tokens, truncated to the model's
/// maximum length, sorted by length and run in padded batches of `batch_size`
/// in evaluation mode; layer 0 is the embedding output.
pub struct EncoderFeatures {
    model: LoadedModel,
    token: ProbedToken,
    batch_size: usize,
    max_len: usize,
}

impl EncoderFeatures {
    /// Wraps `model`, probing `token`, running `batch_size` samples per forward pass.
    pub fn new(model: LoadedModel, token: ProbedToken, batch_size: usize) -> EncoderFeatures {
        let max_len = model.config.max_input_len().max(3);
        EncoderFeatures { model, token, batch_size: batch_size.max(1), max_len }
    }
}

impl LayerFeatures for EncoderFeatures {
    fn layers(&self) -> usize {
        self.model.config.num_hidden_layers + 1
    }

    fn features(&mut self, samples: &[Sample]) -> Result<Vec<Vec<Vec<f32>>>> {
        let model_error = |e: quarry_model::ModelError| ProbeError::Model(e.to_string());
        let mut ids = Vec::with_capacity(samples.len());
        for sample in samples {
            let encoded = self.model.tokenizer.encode(&sample.code(), Some(self.max_len)).map_err(model_error)?;
            let mut sequence = encoded.ids;
            if sequence.len() <= self.token.position() {
                // An empty sample: probe the closing special token instead of failing.
                sequence.push(*sequence.last().unwrap_or(&self.model.tokenizer.pad_id()));
            }
            ids.push(sequence);
        }
        // Similar lengths share a batch, so little compute goes to padding.
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i].len());
        let sorted: Vec<Vec<u32>> = order.iter().map(|&i| std::mem::take(&mut ids[i])).collect();
        let per_sample =
            self.model.token_features(&sorted, self.token.position(), self.batch_size).map_err(model_error)?;
        let layers = self.layers();
        let mut out: Vec<Vec<Vec<f32>>> = vec![vec![Vec::new(); samples.len()]; layers];
        for (rank, layer_vectors) in per_sample.into_iter().enumerate() {
            for (layer, vector) in layer_vectors.into_iter().enumerate().take(layers) {
                out[layer][order[rank]] = vector;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use quarry_model::{load_model, ModelSource, ScratchSpec};

    fn scratch_model() -> LoadedModel {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        std::fs::write(dir.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nint\nx\n=\n0\n;\nreturn\nif\n").unwrap();
        let source = ModelSource::Scratch(ScratchSpec::parse("2x16x2").unwrap());
        let cpu = quarry_model::device::parse_device("cpu").unwrap();
        load_model(&source, Some(dir), &cpu, 7).unwrap()
    }

    const DATA: &str =
        "tr\t0\tint x = 0 ;\ntr\t1\treturn x ;\nva\t0\tif x return 0 ; int x = 0 ; return x ;\nte\t1\tint\n";

    #[test]
    fn batched_features_follow_sample_order_and_match_single_runs() {
        let dataset = Dataset::parse(DATA.as_bytes());
        let mut batched = EncoderFeatures::new(scratch_model(), ProbedToken::Summary, 3);
        let all = batched.features(&dataset.samples).unwrap();
        assert_eq!(all.len(), 3, "embeddings and two layers");
        assert!(all.iter().all(|layer| layer.len() == 4 && layer.iter().all(|v| v.len() == 16)));
        let mut single = EncoderFeatures::new(scratch_model(), ProbedToken::Summary, 1);
        for (i, sample) in dataset.samples.iter().enumerate() {
            let alone = single.features(std::slice::from_ref(sample)).unwrap();
            for layer in 0..3 {
                let d = alone[layer][0].iter().zip(&all[layer][i]).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
                assert!(d < 1e-4, "sample {i} layer {layer}: {d}");
            }
        }
        // Deeper layers tell the samples apart; the summary token's embedding does not.
        assert_eq!(all[0][0], all[0][1]);
        assert_ne!(all[2][0], all[2][1]);
    }

    #[test]
    fn ktx_probes_the_token_itself() {
        assert_eq!(ProbedToken::for_task(Task::Ktx), ProbedToken::FirstOfSample);
        assert_eq!(ProbedToken::for_task(Task::Idn), ProbedToken::Summary);
        let dataset = Dataset::parse(b"tr\tKPT\tint\ntr\tSYM\t;\n");
        let mut encoder = EncoderFeatures::new(scratch_model(), ProbedToken::FirstOfSample, 8);
        let all = encoder.features(&dataset.samples).unwrap();
        // At the embedding layer the two different tokens already differ.
        assert_ne!(all[0][0], all[0][1]);
    }
}
