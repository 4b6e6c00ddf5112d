//! spaCy's `Tagger.v2`: a softmax layer over the shared token vectors; the
//! tag is the highest-scoring label.

use std::path::Path;

use crate::layers::Linear;
use crate::msgpack::ThincModel;
use crate::NlpError;

/// The part-of-speech tagger.
#[derive(Debug)]
pub struct Tagger {
    out: Linear,
    /// The tag names, in the model's output order.
    pub labels: Vec<String>,
}

impl Tagger {
    /// Loads `tagger/model` and the labels of `tagger/cfg`.
    pub fn load(dir: &Path) -> Result<Tagger, NlpError> {
        let m = ThincModel::read(&dir.join("model"))?;
        let node =
            m.layers("softmax").into_iter().next().ok_or_else(|| NlpError::corrupt(&m.path, "no softmax layer"))?;
        let out = Linear::from_node(node, &m.path)?;
        let cfg_path = dir.join("cfg");
        let cfg = crate::msgpack::read_bytes(&cfg_path)?;
        let cfg: serde_json::Value =
            serde_json::from_slice(&cfg).map_err(|e| NlpError::corrupt(&cfg_path, format!("not JSON: {e}")))?;
        let labels: Vec<String> = cfg
            .get("labels")
            .and_then(|l| l.as_array())
            .ok_or_else(|| NlpError::corrupt(&cfg_path, "no `labels` list"))?
            .iter()
            .map(|l| l.as_str().unwrap_or("").to_string())
            .collect();
        if labels.len() != out.n_o {
            return Err(NlpError::corrupt(
                &cfg_path,
                format!("{} labels but the model scores {}", labels.len(), out.n_o),
            ));
        }
        Ok(Tagger { out, labels })
    }

    /// The width of the token vectors it reads.
    pub fn input_width(&self) -> usize {
        self.out.n_i
    }

    /// The tag index of each of `n` tokens.
    pub fn predict(&self, tokvecs: &[f32], n: usize) -> Vec<usize> {
        let scores = self.out.forward(tokvecs, n);
        scores
            .chunks_exact(self.out.n_o.max(1))
            .map(|row| {
                let mut best = 0;
                for (i, &v) in row.iter().enumerate() {
                    if v > row[best] {
                        best = i;
                    }
                }
                best
            })
            .collect()
    }
}
