//! Per-layer features of one token position, the input of probing classifiers.

use candle_core::Tensor;

use crate::error::{ModelError, Result};
use crate::loading::LoadedModel;

impl LoadedModel {
    /// For each id sequence, the vector of the token at `position` in every hidden state
    /// (embeddings first, then each layer): `[sequence][layer][hidden]`. Sequences are padded
    /// into one batch of `batch_size` at a time and run in evaluation mode. A model built in
    /// f64 gives its features rounded to f32.
    pub fn token_features(
        &self,
        sequences: &[Vec<u32>],
        position: usize,
        batch_size: usize,
    ) -> Result<Vec<Vec<Vec<f32>>>> {
        let dev = self.encoder.device();
        let pad = self.tokenizer.pad_id();
        let mut out = Vec::with_capacity(sequences.len());
        for chunk in sequences.chunks(batch_size.max(1)) {
            let seq = chunk.iter().map(Vec::len).max().unwrap_or(0);
            if let Some(short) = chunk.iter().find(|s| s.len() <= position) {
                return Err(ModelError::Data(format!(
                    "a sequence of {} tokens has no position {position}",
                    short.len()
                )));
            }
            let mut ids = vec![pad; chunk.len() * seq];
            let mut mask = vec![0u32; chunk.len() * seq];
            for (r, s) in chunk.iter().enumerate() {
                ids[r * seq..r * seq + s.len()].copy_from_slice(s);
                mask[r * seq..r * seq + s.len()].iter_mut().for_each(|m| *m = 1);
            }
            let ids = Tensor::from_vec(ids, (chunk.len(), seq), dev)?;
            let mask = Tensor::from_vec(mask, (chunk.len(), seq), dev)?;
            let output = self.encoder.forward(&ids, &mask, false)?;
            let layers: Vec<Vec<Vec<f32>>> = output
                .token_features(position)?
                .iter()
                .map(|t| t.to_dtype(candle_core::DType::F32)?.to_vec2::<f32>())
                .collect::<candle_core::Result<_>>()?;
            for r in 0..chunk.len() {
                out.push(layers.iter().map(|l| l[r].clone()).collect());
            }
        }
        Ok(out)
    }

    /// The summary token's (position 0, [CLS] or `<s>`) vector in every hidden state of one
    /// id sequence: `[layer][hidden]`.
    pub fn encode_summary(&self, ids: &[u32]) -> Result<Vec<Vec<f32>>> {
        let mut all = self.token_features(&[ids.to_vec()], 0, 1)?;
        Ok(all.pop().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use crate::loading::{load_model, ModelSource};
    use crate::ScratchSpec;
    use candle_core::Device;

    #[test]
    fn padding_does_not_change_summary_features() {
        let dir = std::env::temp_dir().join(format!("quarry-model-features-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\nb\n").unwrap();
        let src = ModelSource::Scratch(ScratchSpec::parse("2x16x2").unwrap());
        let m = load_model(&src, Some(&dir), &Device::Cpu, 1).unwrap();
        let short = vec![2, 4, 3];
        let long = vec![2, 4, 5, 5, 4, 3];
        let alone = m.encode_summary(&short).unwrap();
        let batched = m.token_features(&[short, long], 0, 2).unwrap();
        assert_eq!(alone.len(), 3);
        for (a, b) in alone.iter().zip(&batched[0]) {
            let d = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
            assert!(d < 1e-5, "{d}");
        }
        assert!(m.token_features(&[vec![2]], 1, 1).is_err());
    }

    /// A BERT built in f64 from the same seed gives the f32 model's features to rounding.
    #[test]
    fn f64_features_equal_f32_features_to_rounding() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\nb\n").unwrap();
        let src = ModelSource::Scratch(ScratchSpec::parse("2x16x2").unwrap());
        let load = |p| crate::load_model_in(&src, Some(dir.path()), &Device::Cpu, 1, p).unwrap();
        let ids = [vec![2, 4, 5, 4, 3], vec![2, 5, 3]];
        let single = load(crate::Precision::F32).token_features(&ids, 0, 2).unwrap();
        let double = load(crate::Precision::F64).token_features(&ids, 0, 2).unwrap();
        let worst =
            single.iter().flatten().flatten().zip(double.iter().flatten().flatten()).map(|(a, b)| (a - b).abs());
        let worst = worst.fold(0f32, f32::max);
        assert!(worst > 0.0 && worst < 1e-5, "{worst}");
    }
}
