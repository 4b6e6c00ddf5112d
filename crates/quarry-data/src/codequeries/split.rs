//! Deterministic train/validation/test split by file: a stable hash of the
//! path decides, so every example of a file lands in the same split and the
//! split does not change when the corpus grows.

use serde::{Deserialize, Serialize};

use quarry_stdx::rng::stable_hash;

/// One of the three splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Training.
    Train,
    /// Validation.
    Valid,
    /// Test.
    Test,
}

impl Split {
    /// All splits in order.
    pub const ALL: [Split; 3] = [Split::Train, Split::Valid, Split::Test];

    /// The name used in file names.
    pub fn name(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Valid => "valid",
            Split::Test => "test",
        }
    }
}

/// Split ratios; they are normalised to sum to one.
#[derive(Debug, Clone, Copy)]
pub struct Ratios {
    /// Share of files for training.
    pub train: f64,
    /// Share for validation.
    pub valid: f64,
    /// Share for test.
    pub test: f64,
}

impl Default for Ratios {
    fn default() -> Self {
        Ratios { train: 0.8, valid: 0.1, test: 0.1 }
    }
}

impl std::str::FromStr for Ratios {
    type Err = String;

    /// Parses `train,valid,test`, e.g. `0.8,0.1,0.1` or `8,1,1`.
    fn from_str(text: &str) -> Result<Ratios, String> {
        let parts: Vec<f64> = text
            .split(',')
            .map(|p| p.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("bad split ratios `{text}`: {e}"))?;
        match parts.as_slice() {
            [train, valid, test] if parts.iter().all(|p| *p >= 0.0) && train + valid + test > 0.0 => {
                Ok(Ratios { train: *train, valid: *valid, test: *test })
            }
            _ => Err(format!("split ratios `{text}` must be three non-negative numbers, not all zero")),
        }
    }
}

/// The split of a file, from its corpus-relative path and a seed.
pub fn split_of(path: &str, ratios: Ratios, seed: u64) -> Split {
    let total = ratios.train + ratios.valid + ratios.test;
    let unit = (stable_hash(&format!("{seed}:{path}")) >> 11) as f64 / (1u64 << 53) as f64;
    if unit < ratios.train / total {
        Split::Train
    } else if unit < (ratios.train + ratios.valid) / total {
        Split::Valid
    } else {
        Split::Test
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_respected_and_stable() {
        let ratios: Ratios = "8,1,1".parse().unwrap();
        let mut counts = [0usize; 3];
        for i in 0..10_000 {
            let split = split_of(&format!("pkg/module_{i}.py"), ratios, 0);
            counts[split as usize] += 1;
            assert_eq!(split, split_of(&format!("pkg/module_{i}.py"), ratios, 0));
        }
        assert!((7_700..8_300).contains(&counts[0]), "{counts:?}");
        assert!((800..1_200).contains(&counts[1]), "{counts:?}");
        assert!("1,2".parse::<Ratios>().is_err());
    }
}
