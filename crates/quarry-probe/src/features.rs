//! Where per-layer features come from. An encoder implements
//! [`LayerFeatures`]; [`CachedFeatures`] serves features read from a cache folder.

use crate::cache::FeatureCache;
use crate::dataset::Sample;
use crate::error::{ProbeError, Result};

/// A source of per-layer representations of samples: for every layer, one
/// vector per sample. Method tasks use the summary token ([CLS] or the
/// model's equivalent); KTX and IDN samples are single tokens, and their
/// vector is that token's own representation.
pub trait LayerFeatures {
    /// Number of layers (embeddings included, if the encoder reports them).
    fn layers(&self) -> usize;
    /// Sees every sample of the dataset before [`features`](Self::features) is asked for
    /// parts of it (INSPECT's inputs depend on the dataset's longest sample); by default
    /// nothing.
    fn prepare(&mut self, _samples: &[Sample]) -> Result<()> {
        Ok(())
    }
    /// `result[layer][sample]` is the feature vector of `samples[sample]` at `layer`.
    fn features(&mut self, samples: &[Sample]) -> Result<Vec<Vec<Vec<f32>>>>;
}

/// Features already extracted, read from a cache folder. The samples must be
/// those the cache was written for, in the same order.
pub struct CachedFeatures {
    cache: FeatureCache,
}

impl CachedFeatures {
    /// Opens a cache folder holding `layer_NN.bin` files.
    pub fn open(cache: FeatureCache) -> Result<CachedFeatures> {
        if cache.layers()?.is_empty() {
            return Err(ProbeError::BadFeatures {
                path: cache.dir().to_path_buf(),
                reason: "no layer_NN.bin file".into(),
            });
        }
        Ok(CachedFeatures { cache })
    }
}

impl LayerFeatures for CachedFeatures {
    fn layers(&self) -> usize {
        self.cache.layers().map(|l| l.len()).unwrap_or(0)
    }

    fn features(&mut self, samples: &[Sample]) -> Result<Vec<Vec<Vec<f32>>>> {
        let mut all = Vec::new();
        for layer in self.cache.layers()? {
            let matrix = self.cache.read_layer(layer)?;
            if matrix.rows != samples.len() {
                return Err(ProbeError::BadFeatures {
                    path: self.cache.layer_path(layer),
                    reason: format!("{} rows for {} samples", matrix.rows, samples.len()),
                });
            }
            all.push(matrix.into_rows());
        }
        Ok(all)
    }
}

/// A non-neural reference encoder: hashed bags of code tokens. Layer 0 holds
/// token unigram counts, layer 1 unigrams and bigrams, each hashed into
/// `dim` buckets and scaled to unit length. It gives probing a baseline that
/// sees only surface tokens, and lets the pipeline run without a neural model.
#[derive(Debug, Clone, Copy)]
pub struct HashedTokens {
    /// Buckets per layer.
    pub dim: usize,
}

impl HashedTokens {
    /// The name under which the CLI offers this encoder.
    pub const NAME: &'static str = "hashed-tokens";

    fn layer(&self, tokens: &[String], bigrams: bool) -> Vec<f32> {
        let dim = self.dim.max(1) as u64;
        let mut v = vec![0f32; dim as usize];
        for t in tokens {
            v[(quarry_stdx::rng::stable_hash(t) % dim) as usize] += 1.0;
        }
        if bigrams {
            for pair in tokens.windows(2) {
                let key = format!("{}\u{1}{}", pair[0], pair[1]);
                v[(quarry_stdx::rng::stable_hash(&key) % dim) as usize] += 1.0;
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

impl LayerFeatures for HashedTokens {
    fn layers(&self) -> usize {
        2
    }

    fn features(&mut self, samples: &[Sample]) -> Result<Vec<Vec<Vec<f32>>>> {
        let tokens: Vec<Vec<String>> = samples.iter().map(|s| crate::java::code_tokens(&s.code())).collect();
        Ok((0..2).map(|layer| tokens.iter().map(|t| self.layer(t, layer == 1)).collect()).collect())
    }
}
