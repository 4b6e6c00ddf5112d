//! The geometry of self-attention's projections, shared by the CPU kernel
//! ([`super::attention`]) and the CUDA launches ([`super::attention_cuda`]): queries, keys and
//! values side by side in a `(batch, seq, 3 * hidden)` tensor, head `h` the columns
//! `h * head_dim ..` of each, and one task per (sequence, head) pair.

/// The geometry of a `(batch, seq, 3 * hidden)` projection tensor.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks {
    /// Sequences.
    pub(crate) batch: usize,
    /// Tokens per sequence.
    pub(crate) seq: usize,
    /// Attention heads.
    pub(crate) heads: usize,
    /// Columns per head.
    pub(crate) head_dim: usize,
}

impl Blocks {
    /// Columns of the context, `heads * head_dim`.
    pub(crate) fn hidden(&self) -> usize {
        self.heads * self.head_dim
    }

    /// Row stride of the projections.
    pub(crate) fn qkv_row(&self) -> usize {
        3 * self.hidden()
    }

    /// Offset of block `which` (0 queries, 1 keys, 2 values) of task `t` in the projections.
    pub(crate) fn qkv_offset(&self, t: usize, which: usize) -> usize {
        let (b, h) = (t / self.heads, t % self.heads);
        b * self.seq * self.qkv_row() + which * self.hidden() + h * self.head_dim
    }

    /// Offset of task `t`'s block in the context `(batch, seq, hidden)`.
    pub(crate) fn ctx_offset(&self, t: usize) -> usize {
        let (b, h) = (t / self.heads, t % self.heads);
        b * self.seq * self.hidden() + h * self.head_dim
    }

    /// (sequence, head) pairs.
    pub(crate) fn tasks(&self) -> usize {
        self.batch * self.heads
    }
}
