//! Reading spaCy's and thinc's msgpack files: generic values, numpy arrays
//! as srsly writes them, and thinc's serialized model layout.

use std::path::{Path, PathBuf};

use rmpv::Value;

use crate::NlpError;

/// Reads a whole file, naming it in the error.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, NlpError> {
    match quarry_stdx::read::read_bytes(path, quarry_stdx::read::MAX_DATA_FILE_BYTES) {
        Ok(b) => Ok(b),
        Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => {
            Err(NlpError::Missing { path: path.to_path_buf() })
        }
        Err(e) => Err(NlpError::Io(e)),
    }
}

/// Decodes one msgpack value that must fill `bytes` exactly.
pub fn decode(bytes: &[u8], path: &Path) -> Result<Value, NlpError> {
    let mut cur = bytes;
    let v = rmpv::decode::read_value(&mut cur)
        .map_err(|e| NlpError::corrupt(path, format!("not valid msgpack (truncated or corrupt): {e}")))?;
    if !cur.is_empty() {
        return Err(NlpError::corrupt(path, format!("{} trailing bytes after the msgpack value", cur.len())));
    }
    Ok(v)
}

/// Reads and decodes a msgpack file.
pub fn read_file(path: &Path) -> Result<Value, NlpError> {
    decode(&read_bytes(path)?, path)
}

/// The text of a msgpack string or binary key/value.
pub fn as_text(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => s.as_str(),
        Value::Binary(b) => std::str::from_utf8(b).ok(),
        _ => None,
    }
}

/// The entry `key` of a msgpack map (string or binary keys).
pub fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Map(m) => m.iter().find(|(k, _)| as_text(k) == Some(key)).map(|(_, v)| v),
        _ => None,
    }
}

/// A float32 array read from a model file, row-major.
#[derive(Debug, Clone)]
pub struct Array {
    /// The dimensions.
    pub shape: Vec<usize>,
    /// The values, row-major.
    pub data: Vec<f32>,
}

impl Array {
    /// Reads an array in srsly's numpy layout (`nd`, `type`, `shape`, `data`).
    pub fn from_value(v: &Value, path: &Path, what: &str) -> Result<Array, NlpError> {
        let bad = |p: &str| NlpError::corrupt(path, format!("array {what}: {p}"));
        let ty = get(v, "type").and_then(as_text).ok_or_else(|| bad("no dtype"))?;
        if ty != "<f4" {
            return Err(bad(&format!("dtype {ty}, expected float32 (<f4)")));
        }
        let shape: Vec<usize> = match get(v, "shape") {
            Some(Value::Array(dims)) => dims
                .iter()
                .map(|d| d.as_u64().map(|d| d as usize).ok_or_else(|| bad("bad shape")))
                .collect::<Result<_, _>>()?,
            _ => return Err(bad("no shape")),
        };
        let data = match get(v, "data") {
            Some(Value::Binary(b)) => b,
            _ => return Err(bad("no data")),
        };
        let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).ok_or_else(|| bad("shape overflows"))?;
        if data.len() != n * 4 {
            return Err(bad(&format!("{} bytes of data for shape {:?} (truncated?)", data.len(), shape)));
        }
        let data = data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        Ok(Array { shape, data })
    }

    /// Fails unless the shape is `want`.
    pub fn expect_shape(&self, want: &[usize], path: &Path, what: &str) -> Result<(), NlpError> {
        if self.shape != want {
            return Err(NlpError::corrupt(path, format!("{what} has shape {:?}, expected {:?}", self.shape, want)));
        }
        Ok(())
    }
}

/// One layer (node) of a thinc model as serialized by `Model.to_bytes`.
#[derive(Debug)]
pub struct Node {
    /// The layer's name (e.g. `hashembed`, `maxout`).
    pub name: String,
    /// Its attributes, each decoded from its own msgpack blob.
    pub attrs: Vec<(String, Value)>,
    /// Its parameters.
    pub params: Vec<(String, Array)>,
}

impl Node {
    /// The parameter `name`.
    pub fn param(&self, name: &str, path: &Path) -> Result<&Array, NlpError> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
            .ok_or_else(|| NlpError::corrupt(path, format!("layer {} has no parameter {name}", self.name)))
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// A thinc model file: its layers in the order thinc walks them.
#[derive(Debug)]
pub struct ThincModel {
    /// The file it came from.
    pub path: PathBuf,
    /// The layers.
    pub nodes: Vec<Node>,
}

impl ThincModel {
    /// Reads a thinc model (`nodes`, `attrs`, `params` lists).
    pub fn read(path: &Path) -> Result<ThincModel, NlpError> {
        let v = read_file(path)?;
        let list = |key: &str| match get(&v, key) {
            Some(Value::Array(a)) => Ok(a),
            _ => Err(NlpError::corrupt(path, format!("not a thinc model: no `{key}` list"))),
        };
        let nodes = list("nodes")?;
        let attrs = list("attrs")?;
        let params = list("params")?;
        if attrs.len() != nodes.len() || params.len() != nodes.len() {
            return Err(NlpError::corrupt(path, "thinc model lists of different lengths"));
        }
        let mut out = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            let name = get(node, "name").and_then(as_text).unwrap_or("").to_string();
            let mut node_attrs = Vec::new();
            if let Value::Map(m) = &attrs[i] {
                for (k, blob) in m {
                    let key = as_text(k).unwrap_or("").to_string();
                    let val = match blob {
                        Value::Binary(b) => decode(b, path)?,
                        other => other.clone(),
                    };
                    node_attrs.push((key, val));
                }
            }
            let mut node_params = Vec::new();
            if let Value::Map(m) = &params[i] {
                for (k, arr) in m {
                    let key = as_text(k).unwrap_or("").to_string();
                    if matches!(arr, Value::Nil) {
                        continue;
                    }
                    let a = Array::from_value(arr, path, &format!("{name}.{key}"))?;
                    node_params.push((key, a));
                }
            }
            out.push(Node { name, attrs: node_attrs, params: node_params });
        }
        Ok(ThincModel { path: path.to_path_buf(), nodes: out })
    }

    /// The layers named exactly `name`, in order.
    pub fn layers(&self, name: &str) -> Vec<&Node> {
        self.nodes.iter().filter(|n| n.name == name).collect()
    }
}
