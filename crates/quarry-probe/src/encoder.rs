//! Per-layer features from a neural encoder loaded by quarry-model: the
//! summary token (position 0) of every hidden state, or for KTX the
//! representation of the probed token itself, on inputs built by an [`InputRule`].

use quarry_model::LoadedModel;

use crate::dataset::Sample;
use crate::error::{ProbeError, Result};
use crate::features::LayerFeatures;
use crate::input::{input_ids, inspect_length, InputModel, InputRule};
use crate::task::Task;

/// Which token of the encoded sample is probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbedToken {
    /// The token at position 0 (the summary token: INSPECT's `[CLS]` string, or the
    /// tokenizer's first special token).
    Summary,
    /// The second token, the first sub-token of the sample's text where a special token
    /// comes first.
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

/// A quarry-model encoder as a source of probing features. Samples become ids by
/// `rule`, are sorted by length and run in padded batches of `batch_size` in
/// evaluation mode; layer 0 is the embedding output.
pub struct EncoderFeatures {
    model: LoadedModel,
    token: ProbedToken,
    rule: InputRule,
    batch_size: usize,
    /// INSPECT's `L` of the whole dataset, once [`LayerFeatures::prepare`] has seen it.
    dataset_length: Option<usize>,
}

impl EncoderFeatures {
    /// Wraps `model`, probing `token` of inputs built by `rule`, running `batch_size` samples
    /// per forward pass.
    pub fn new(model: LoadedModel, token: ProbedToken, rule: InputRule, batch_size: usize) -> EncoderFeatures {
        EncoderFeatures { model, token, rule, batch_size: batch_size.max(1), dataset_length: None }
    }

    fn input_model(&self) -> Result<InputModel<'_>> {
        let family = self.model.config.family().map_err(|e| ProbeError::Model(e.to_string()))?;
        Ok(InputModel { tokenizer: &self.model.tokenizer, family, max_len: self.model.config.max_input_len() })
    }

    /// The input ids of `samples`, as [`LayerFeatures::features`] runs them (INSPECT's `L`
    /// from the prepared dataset, else from `samples` themselves).
    pub fn input_ids(&self, samples: &[Sample]) -> Result<Vec<Vec<u32>>> {
        let model = self.input_model()?;
        let length = match (self.rule, self.dataset_length) {
            (InputRule::Tokenizer, _) => 0,
            (InputRule::Inspect, Some(length)) => length,
            (InputRule::Inspect, None) => inspect_length(model, samples)?,
        };
        input_ids(self.rule, model, samples, length)
    }
}

impl LayerFeatures for EncoderFeatures {
    fn layers(&self) -> usize {
        self.model.config.num_hidden_layers + 1
    }

    fn prepare(&mut self, samples: &[Sample]) -> Result<()> {
        if self.rule == InputRule::Inspect {
            self.dataset_length = Some(inspect_length(self.input_model()?, samples)?);
        }
        Ok(())
    }

    fn features(&mut self, samples: &[Sample]) -> Result<Vec<Vec<Vec<f32>>>> {
        let model_error = |e: quarry_model::ModelError| ProbeError::Model(e.to_string());
        let mut ids = self.input_ids(samples)?;
        for sequence in &mut ids {
            if sequence.len() <= self.token.position() {
                // An empty sample: probe the closing special token instead of failing.
                sequence.push(*sequence.last().unwrap_or(&self.model.tokenizer.pad_id()));
            }
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
        let mut batched = EncoderFeatures::new(scratch_model(), ProbedToken::Summary, InputRule::Inspect, 3);
        batched.prepare(&dataset.samples).unwrap();
        let all = batched.features(&dataset.samples).unwrap();
        assert_eq!(all.len(), 3, "embeddings and two layers");
        assert!(all.iter().all(|layer| layer.len() == 4 && layer.iter().all(|v| v.len() == 16)));
        // Alone, each sample is cut as in its dataset: INSPECT's length is the dataset's.
        let mut single = EncoderFeatures::new(scratch_model(), ProbedToken::Summary, InputRule::Inspect, 1);
        single.prepare(&dataset.samples).unwrap();
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
        // `>>>=` is four sub-tokens, so INSPECT's cut (the longest tokenization less two)
        // leaves the one-token samples whole.
        let dataset = Dataset::parse(b"tr\tKPT\tint\ntr\tSYM\t;\ntr\tOPR\t>>>=\n");
        let mut encoder = EncoderFeatures::new(scratch_model(), ProbedToken::FirstOfSample, InputRule::Inspect, 8);
        let all = encoder.features(&dataset.samples).unwrap();
        // At the embedding layer the two different tokens already differ.
        assert_ne!(all[0][0], all[0][1]);
        // Where every sample is one sub-token, INSPECT's cut (to -1: Python drops the last)
        // empties them all, and the probed position holds `[SEP]` for each.
        let dataset = Dataset::parse(b"tr\tKPT\tint\ntr\tSYM\t;\n");
        let all = encoder.features(&dataset.samples).unwrap();
        assert_eq!(all[0][0], all[0][1]);
    }
}
