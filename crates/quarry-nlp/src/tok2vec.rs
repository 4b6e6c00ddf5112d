//! spaCy's `Tok2Vec.v2` with `MultiHashEmbed.v2` and
//! `MaxoutWindowEncoder.v2`: hash embeddings of lexical attributes, mixed
//! by a maxout layer, then a stack of residual CNN layers.

use std::sync::atomic::AtomicBool;

use crate::hash::{hash_id, string_id};
use crate::layers::{is_set, MaxoutNorm, ROWS_BETWEEN_CANCEL_CHECKS};
use crate::lexeme::{self, Norms};
use crate::msgpack::ThincModel;
use crate::NlpError;

/// A token attribute the embeddings read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attr {
    /// Normalised form.
    Norm,
    /// First character.
    Prefix,
    /// Last three characters.
    Suffix,
    /// Word shape.
    Shape,
    /// Whether a space follows.
    Spacy,
    /// Whether the token is whitespace.
    IsSpace,
    /// Lower-cased text.
    Lower,
    /// The text itself.
    Orth,
}

impl Attr {
    /// The attributes quarry can compute, by spaCy name.
    pub const SUPPORTED: &'static str = "NORM, PREFIX, SUFFIX, SHAPE, SPACY, IS_SPACE, LOWER, ORTH";

    fn parse(name: &str) -> Option<Attr> {
        Some(match name {
            "NORM" => Attr::Norm,
            "PREFIX" => Attr::Prefix,
            "SUFFIX" => Attr::Suffix,
            "SHAPE" => Attr::Shape,
            "SPACY" => Attr::Spacy,
            "IS_SPACE" => Attr::IsSpace,
            "LOWER" => Attr::Lower,
            "ORTH" => Attr::Orth,
            _ => return None,
        })
    }
}

/// What the embeddings need to know about one token.
#[derive(Debug, Clone, Copy)]
pub struct TokenView<'a> {
    /// The token's text.
    pub text: &'a str,
    /// A NORM set by a tokenizer exception.
    pub norm: Option<&'a str>,
    /// Whether a space follows.
    pub space: bool,
}

/// The attribute id spaCy would store for `attr` of a token.
pub fn attr_id(attr: Attr, t: &TokenView, norms: &Norms) -> u64 {
    match attr {
        Attr::Norm => match t.norm {
            Some(n) => string_id(n),
            None => string_id(&norms.norm(t.text)),
        },
        Attr::Prefix => string_id(lexeme::prefix(t.text)),
        Attr::Suffix => string_id(lexeme::suffix(t.text)),
        Attr::Shape => string_id(&lexeme::shape(t.text)),
        Attr::Spacy => t.space as u64,
        Attr::IsSpace => lexeme::is_space(t.text) as u64,
        Attr::Lower => string_id(&t.text.to_lowercase()),
        Attr::Orth => string_id(t.text),
    }
}

#[derive(Debug)]
struct HashEmbed {
    rows: usize,
    width: usize,
    seed: u32,
    table: Vec<f32>,
}

/// The token-to-vector encoder.
#[derive(Debug)]
pub struct Tok2Vec {
    attrs: Vec<Attr>,
    embeds: Vec<HashEmbed>,
    mix: MaxoutNorm,
    encoders: Vec<MaxoutNorm>,
    window: usize,
    /// Output width.
    pub width: usize,
}

impl Tok2Vec {
    /// Builds the encoder from a `tok2vec/model` file.
    pub fn from_model(m: &ThincModel) -> Result<Tok2Vec, NlpError> {
        let path = &m.path;
        let corrupt = |p: String| NlpError::corrupt(path, p);
        let columns = m
            .layers("extract_features")
            .first()
            .and_then(|n| n.attr("columns"))
            .and_then(|v| v.as_array().cloned())
            .ok_or_else(|| corrupt("no extract_features layer with columns".into()))?;
        let mut attrs = Vec::new();
        for c in &columns {
            let name = crate::msgpack::as_text(c).unwrap_or("");
            let a = Attr::parse(name).ok_or_else(|| NlpError::Unsupported {
                path: path.clone(),
                what: "embedding attribute".into(),
                name: name.into(),
                supported: Attr::SUPPORTED.into(),
            })?;
            attrs.push(a);
        }
        let mut embeds = Vec::new();
        for node in m.layers("hashembed") {
            let e = node.param("E", path)?;
            if e.shape.len() != 2 || e.shape[0] == 0 {
                return Err(corrupt("hashembed.E is not a non-empty matrix".into()));
            }
            let seed =
                node.attr("seed").and_then(|v| v.as_u64()).ok_or_else(|| corrupt("hashembed without seed".into()))?;
            let column = node.attr("column").and_then(|v| v.as_u64()).unwrap_or(embeds.len() as u64);
            if column as usize != embeds.len() {
                return Err(corrupt(format!("hashembed column {column} out of order")));
            }
            embeds.push(HashEmbed { rows: e.shape[0], width: e.shape[1], seed: seed as u32, table: e.data.clone() });
        }
        if embeds.len() != attrs.len() {
            return Err(corrupt(format!("{} embeddings for {} attributes", embeds.len(), attrs.len())));
        }
        let maxouts = m.layers("maxout");
        let norms = m.layers("layernorm");
        if maxouts.len() != norms.len() || maxouts.is_empty() {
            return Err(corrupt("maxout and layernorm layers do not pair up".into()));
        }
        let mut layers = Vec::new();
        for (mx, ln) in maxouts.iter().zip(&norms) {
            layers.push(MaxoutNorm::from_nodes(mx, ln, path)?);
        }
        let mix = layers.remove(0);
        let concat: usize = embeds.iter().map(|e| e.width).sum();
        if mix.n_i != concat {
            return Err(corrupt(format!("mixing layer takes {} inputs, embeddings give {concat}", mix.n_i)));
        }
        let width = mix.n_o;
        let window =
            m.layers("expand_window").first().and_then(|n| n.attr("window_size")).and_then(|v| v.as_u64()).unwrap_or(1)
                as usize;
        for enc in &layers {
            if enc.n_i != width * (2 * window + 1) || enc.n_o != width {
                return Err(corrupt("encoder layer shapes do not fit the width and window".into()));
            }
        }
        Ok(Tok2Vec { attrs, embeds, mix, encoders: layers, window, width })
    }

    /// The vectors of one doc's tokens (tokens × width, row-major).
    pub fn forward(&self, tokens: &[TokenView], norms: &Norms) -> Vec<f32> {
        self.forward_batch(&[tokens.to_vec()], norms)
    }

    /// The vectors of the tokens of several docs, concatenated in order
    /// (total tokens × width). Docs are laid out as thinc lays them out
    /// (`depth * window` pad rows before, between and after them), which
    /// keeps each doc's vectors exactly what they are alone.
    pub fn forward_batch(&self, docs: &[Vec<TokenView>], norms: &Norms) -> Vec<f32> {
        let never = AtomicBool::new(false);
        self.forward_batch_cancellable(docs, norms, &never).unwrap_or_default()
    }

    /// [`Tok2Vec::forward_batch`] that looks at `cancel` between pieces of
    /// rows of each layer: `None` once it is set.
    pub fn forward_batch_cancellable(
        &self,
        docs: &[Vec<TokenView>],
        norms: &Norms,
        cancel: &AtomicBool,
    ) -> Option<Vec<f32>> {
        let total: usize = docs.iter().map(Vec::len).sum();
        if total == 0 {
            return Some(Vec::new());
        }
        let concat: usize = self.embeds.iter().map(|e| e.width).sum();
        let mut x = vec![0.0f32; total * concat];
        for (t, tok) in docs.iter().flatten().enumerate() {
            if t.is_multiple_of(ROWS_BETWEEN_CANCEL_CHECKS) && is_set(cancel) {
                return None;
            }
            let mut off = 0;
            for (attr, e) in self.attrs.iter().zip(&self.embeds) {
                let id = attr_id(*attr, tok, norms);
                let keys = hash_id(id, e.seed);
                let dst = &mut x[t * concat + off..t * concat + off + e.width];
                for k in keys {
                    let row = (k as usize) % e.rows;
                    for (d, s) in dst.iter_mut().zip(&e.table[row * e.width..(row + 1) * e.width]) {
                        *d += s;
                    }
                }
                off += e.width;
            }
        }
        let mut scratch = Vec::new();
        let mut mixed = Vec::new();
        self.mix.forward_cancellable(&x, total, &mut mixed, &mut scratch, cancel)?;
        // Pad rows are computed like tokens and the docs' edges see them.
        // Layer l only needs rows within `(depth - 1 - l) * window` of a
        // token, so only those are computed; rows further out never reach
        // a token.
        let w = self.width;
        let depth = self.encoders.len();
        let pad = depth * self.window;
        let mut starts = Vec::with_capacity(docs.len());
        let mut row = pad;
        for d in docs {
            starts.push(row);
            if !d.is_empty() {
                row += d.len() + pad;
            }
        }
        let rows = row;
        let mut h = vec![0.0f32; rows * w];
        let mut t = 0;
        for (d, &r) in docs.iter().zip(&starts) {
            h[r * w..(r + d.len()) * w].copy_from_slice(&mixed[t * w..(t + d.len()) * w]);
            t += d.len();
        }
        let span = 2 * self.window + 1;
        let mut win = Vec::new();
        let mut y = Vec::new();
        let mut needed: Vec<usize> = Vec::new();
        for (l, enc) in self.encoders.iter().enumerate() {
            let reach = (depth - 1 - l) * self.window;
            needed.clear();
            for (d, &r) in docs.iter().zip(&starts) {
                if d.is_empty() {
                    continue;
                }
                let from = (r - reach).max(needed.last().map_or(0, |&x| x + 1));
                needed.extend(from..r + d.len() + reach);
            }
            // expand_window: each row sees its `window` neighbours on each
            // side (zeros beyond the ends).
            win.clear();
            win.resize(needed.len() * w * span, 0.0);
            for (i, &r) in needed.iter().enumerate() {
                for k in 0..span {
                    let src = r as isize + k as isize - self.window as isize;
                    if src >= 0 && (src as usize) < rows {
                        let s = src as usize;
                        let at = (i * span + k) * w;
                        win[at..at + w].copy_from_slice(&h[s * w..(s + 1) * w]);
                    }
                }
            }
            enc.forward_cancellable(&win, needed.len(), &mut y, &mut scratch, cancel)?;
            for (i, &r) in needed.iter().enumerate() {
                for (a, b) in h[r * w..(r + 1) * w].iter_mut().zip(&y[i * w..(i + 1) * w]) {
                    *a += b;
                }
            }
        }
        let mut out = Vec::with_capacity(total * w);
        for (d, &r) in docs.iter().zip(&starts) {
            out.extend_from_slice(&h[r * w..(r + d.len()) * w]);
        }
        Some(out)
    }
}
