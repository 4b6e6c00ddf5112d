//! The dense layers of thinc that the pipeline uses, for inference:
//! linear (affine), maxout with layer normalization, and the matrix
//! product they share.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::msgpack::Node;
use crate::NlpError;

/// `c (m×n) = a (m×k) · bᵀ` where `b` is stored row-major as (n×k), the
/// layout of thinc's weight matrices.
pub fn matmul_bt(a: &[f32], b: &[f32], m: usize, k: usize, n: usize, c: &mut [f32]) {
    debug_assert!(a.len() >= m * k && b.len() >= n * k && c.len() >= m * n);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c[..m * n].fill(0.0);
        return;
    }
    // SAFETY: the slices hold at least m*k, n*k and m*n elements (checked by
    // the callers' shapes), and the strides address exactly those.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            k as isize,
            1,
            b.as_ptr(),
            1,
            k as isize,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// A dot product with eight running sums, so that it vectorizes.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut sum = acc.iter().sum::<f32>();
    for (x, y) in ra.iter().zip(rb) {
        sum += x * y;
    }
    sum
}

/// An affine layer `y = W x + b` (thinc `Linear`, `Softmax` before its
/// normalisation).
#[derive(Debug, Clone)]
pub struct Linear {
    /// Output width.
    pub n_o: usize,
    /// Input width.
    pub n_i: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

impl Linear {
    /// Reads `W` (nO×nI) and `b` (nO) of a layer.
    pub fn from_node(node: &Node, path: &Path) -> Result<Linear, NlpError> {
        let w = node.param("W", path)?;
        if w.shape.len() != 2 {
            return Err(NlpError::corrupt(path, format!("{}.W is not a matrix", node.name)));
        }
        let (n_o, n_i) = (w.shape[0], w.shape[1]);
        let b = node.param("b", path)?;
        b.expect_shape(&[n_o], path, &format!("{}.b", node.name))?;
        Ok(Linear { n_o, n_i, w: w.data.clone(), b: b.data.clone() })
    }

    /// Applies the layer to `rows` input rows.
    pub fn forward(&self, x: &[f32], rows: usize) -> Vec<f32> {
        let mut y = vec![0.0; rows * self.n_o];
        self.forward_into(x, rows, &mut y);
        y
    }

    /// Applies the layer to `rows` input rows, writing rows × nO into `y`.
    pub fn forward_into(&self, x: &[f32], rows: usize, y: &mut [f32]) {
        matmul_bt(x, &self.w, rows, self.n_i, self.n_o, y);
        for r in y[..rows * self.n_o].chunks_exact_mut(self.n_o) {
            for (v, b) in r.iter_mut().zip(&self.b) {
                *v += b;
            }
        }
    }

    /// One input vector: `y = W x + b` by plain dot products (cheaper than a
    /// matrix product call for a single row).
    pub fn forward_one(&self, x: &[f32], y: &mut [f32]) {
        for ((out, row), b) in y.iter_mut().zip(self.w.chunks_exact(self.n_i)).zip(&self.b) {
            *out = dot(row, x) + b;
        }
    }
}

/// Rows a row-wise layer computes between two looks at a cancellation flag:
/// a long text stops within one such piece (milliseconds), not at the end of
/// the component.
pub const ROWS_BETWEEN_CANCEL_CHECKS: usize = 1024;

/// Whether `cancel` is set (by any thread).
pub fn is_set(cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::Relaxed)
}

/// Calls `piece(start, rows)` for consecutive pieces of at most
/// [`ROWS_BETWEEN_CANCEL_CHECKS`] of `total` rows, looking at `cancel`
/// before each: `None` once it is set.
pub fn in_row_pieces(total: usize, cancel: &AtomicBool, mut piece: impl FnMut(usize, usize)) -> Option<()> {
    for start in (0..total).step_by(ROWS_BETWEEN_CANCEL_CHECKS) {
        if is_set(cancel) {
            return None;
        }
        piece(start, ROWS_BETWEEN_CANCEL_CHECKS.min(total - start));
    }
    Some(())
}

/// thinc's `Maxout(nO, nI, nP, normalize=True)`: an affine layer with nP
/// pieces per output, the maximum piece, then layer normalization.
#[derive(Debug, Clone)]
pub struct MaxoutNorm {
    /// Output width.
    pub n_o: usize,
    /// Pieces per output.
    pub n_p: usize,
    /// Input width.
    pub n_i: usize,
    w: Vec<f32>,
    b: Vec<f32>,
    g: Vec<f32>,
    ln_b: Vec<f32>,
}

impl MaxoutNorm {
    /// Reads a `maxout` layer and the `layernorm` that follows it.
    pub fn from_nodes(maxout: &Node, norm: &Node, path: &Path) -> Result<MaxoutNorm, NlpError> {
        let w = maxout.param("W", path)?;
        if w.shape.len() != 3 {
            return Err(NlpError::corrupt(path, "maxout.W is not (nO, nP, nI)"));
        }
        let (n_o, n_p, n_i) = (w.shape[0], w.shape[1], w.shape[2]);
        let b = maxout.param("b", path)?;
        b.expect_shape(&[n_o, n_p], path, "maxout.b")?;
        let g = norm.param("G", path)?;
        g.expect_shape(&[n_o], path, "layernorm.G")?;
        let ln_b = norm.param("b", path)?;
        ln_b.expect_shape(&[n_o], path, "layernorm.b")?;
        if n_p == 0 {
            return Err(NlpError::corrupt(path, "maxout with no pieces"));
        }
        Ok(MaxoutNorm {
            n_o,
            n_p,
            n_i,
            w: w.data.clone(),
            b: b.data.clone(),
            g: g.data.clone(),
            ln_b: ln_b.data.clone(),
        })
    }

    /// [`MaxoutNorm::forward`] in pieces of [`ROWS_BETWEEN_CANCEL_CHECKS`]
    /// rows (each row is computed alone, so the result is the same); `None`
    /// once `cancel` is set.
    pub fn forward_cancellable(
        &self,
        x: &[f32],
        rows: usize,
        out: &mut Vec<f32>,
        scratch: &mut Vec<f32>,
        cancel: &AtomicBool,
    ) -> Option<()> {
        out.clear();
        out.reserve(rows * self.n_o);
        let mut piece = Vec::new();
        in_row_pieces(rows, cancel, |start, n| {
            self.forward(&x[start * self.n_i..(start + n) * self.n_i], n, &mut piece, scratch);
            out.extend_from_slice(&piece[..n * self.n_o]);
        })
    }

    /// Applies the layer to `rows` rows of `x` (rows × nI), writing rows × nO
    /// into `out`. `scratch` is reused between calls.
    #[allow(clippy::needless_range_loop)]
    pub fn forward(&self, x: &[f32], rows: usize, out: &mut Vec<f32>, scratch: &mut Vec<f32>) {
        let wide = self.n_o * self.n_p;
        scratch.resize(rows * wide, 0.0);
        matmul_bt(x, &self.w, rows, self.n_i, wide, scratch);
        out.resize(rows * self.n_o, 0.0);
        for r in 0..rows {
            let src = &scratch[r * wide..(r + 1) * wide];
            let dst = &mut out[r * self.n_o..(r + 1) * self.n_o];
            for o in 0..self.n_o {
                let mut best = src[o * self.n_p] + self.b[o * self.n_p];
                for p in 1..self.n_p {
                    let v = src[o * self.n_p + p] + self.b[o * self.n_p + p];
                    if v > best {
                        best = v;
                    }
                }
                dst[o] = best;
            }
            // Layer normalization: (x - mean) / sqrt(var + 1e-8) * G + b.
            let n = self.n_o as f32;
            let mean = dst.iter().sum::<f32>() / n;
            let var = dst.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n + 1e-8;
            let inv = 1.0 / var.sqrt();
            for o in 0..self.n_o {
                dst[o] = (dst[o] - mean) * inv * self.g[o] + self.ln_b[o];
            }
        }
    }
}
