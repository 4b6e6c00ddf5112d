//! Where per-layer features come from. An encoder implements
//! [`LayerFeatures`]; [`CachedFeatures`] serves features read from a cache folder.

use crate::cache::FeatureCache;
use crate::dataset::Sample;
use crate::error::{ProbeError, Result};

/// A source of per-layer representations of samples: for every layer, one
/// vector per sample (the summary token, or for token tasks the token itself).
pub trait LayerFeatures {
    /// Number of layers (embeddings included, if the encoder reports them).
    fn layers(&self) -> usize;
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
