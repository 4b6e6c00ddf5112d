//! The feature cache appears whole or not at all: an extraction that stops while its layers
//! are being written leaves no layer behind, so a rerun extracts again instead of probing
//! the few layers written before the stop.

use quarry_probe::cache::FeatureCache;
use quarry_probe::experiment::cached_or_extract;
use quarry_probe::features::LayerFeatures;
use quarry_probe::{Dataset, Result};

/// Three layers whose last one has vectors of two sizes, so writing it fails after the
/// first two were written.
struct RaggedLastLayer;

impl LayerFeatures for RaggedLastLayer {
    fn layers(&self) -> usize {
        3
    }

    fn features(&mut self, samples: &[quarry_probe::Sample]) -> Result<Vec<Vec<Vec<f32>>>> {
        let even = vec![vec![1.0, 2.0]; samples.len()];
        let ragged = samples.iter().enumerate().map(|(i, _)| vec![0.5; 1 + i % 2]).collect();
        Ok(vec![even.clone(), even, ragged])
    }
}

fn dataset() -> Dataset {
    // INSPECT's format: `tr`/`va`/`te`, a label, the code.
    let dataset = Dataset::parse(b"tr\tA\tint x = 0 ;\ntr\tB\treturn x ;\nva\tA\tx = 1 ;\nte\tB\treturn 0 ;\n");
    assert_eq!(dataset.samples.len(), 4);
    dataset
}

#[test]
fn a_failed_extraction_leaves_no_partial_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = FeatureCache::new(dir.path().join("features").join("entry"));
    let outcome = cached_or_extract(&cache, Some(&mut RaggedLastLayer), &dataset(), "m", "d#0", &mut |_, _| {});
    assert!(outcome.is_err(), "the ragged layer is refused");
    assert_eq!(cache.layers().unwrap(), Vec::<usize>::new(), "no layer of the failed extraction is kept");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("features")).unwrap().flatten().collect();
    assert!(leftovers.is_empty(), "no temporary folder is left: {leftovers:?}");
}

#[test]
fn a_complete_extraction_is_cached_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cache = FeatureCache::new(dir.path().join("entry"));
    struct Even;
    impl LayerFeatures for Even {
        fn layers(&self) -> usize {
            2
        }
        fn features(&mut self, samples: &[quarry_probe::Sample]) -> Result<Vec<Vec<Vec<f32>>>> {
            Ok(vec![vec![vec![1.0]; samples.len()]; 2])
        }
    }
    let features = cached_or_extract(&cache, Some(&mut Even), &dataset(), "m", "d#0", &mut |_, _| {}).unwrap();
    assert_eq!(features.len(), 2);
    assert_eq!(cache.layers().unwrap(), vec![0, 1]);
}
