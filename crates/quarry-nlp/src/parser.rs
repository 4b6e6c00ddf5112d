//! spaCy's `TransitionBasedParser.v2` for dependencies: a projection of the
//! shared token vectors, the precomputed lower layer (one affine block per
//! context slot, maxout over pieces), the upper layer scoring the moves,
//! and greedy arc-eager decoding with spaCy's validity rules.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::arc_eager::{Move, MoveKind, State};
use crate::layers::{in_row_pieces, is_set, matmul_bt, Linear, ROWS_BETWEEN_CANCEL_CHECKS};
use crate::msgpack::{self, as_text, get, ThincModel};
use crate::NlpError;

/// The dependency parser's weights and moves.
#[derive(Debug)]
pub struct Parser {
    proj: Linear,
    n_f: usize,
    n_o: usize,
    n_p: usize,
    lower_w: Vec<f32>,
    lower_b: Vec<f32>,
    pad: Vec<f32>,
    upper: Linear,
    moves: Vec<Move>,
    /// The arc labels, indexed by `Move::label`.
    pub labels: Vec<String>,
}

/// The parse of one doc: each token's head (itself for a root) and label.
#[derive(Debug, Clone)]
pub struct Parse {
    /// Head index per token.
    pub heads: Vec<usize>,
    /// Label per token (`ROOT` for roots), projectivized labels (`x||y`)
    /// not yet resolved.
    pub deps: Vec<String>,
}

impl Parser {
    /// Loads `parser/model` and `parser/moves`.
    pub fn load(dir: &Path) -> Result<Parser, NlpError> {
        let model_path = dir.join("model");
        let m = ThincModel::read(&model_path)?;
        let path = &m.path;
        let corrupt = |p: &str| NlpError::corrupt(path, p.to_string());
        let linears = m.layers("linear");
        if linears.len() != 2 {
            return Err(corrupt("expected two linear layers (projection and upper)"));
        }
        // thinc walks the upper layer before the projection inside the
        // listener chain; tell them apart by shape.
        let a = Linear::from_node(linears[0], path)?;
        let b = Linear::from_node(linears[1], path)?;
        let lower_node = m
            .layers("precomputable_affine")
            .into_iter()
            .next()
            .ok_or_else(|| corrupt("no precomputable_affine layer"))?;
        let w = lower_node.param("W", path)?;
        if w.shape.len() != 4 {
            return Err(corrupt("precomputable_affine.W is not (nF, nO, nP, nI)"));
        }
        let (n_f, n_o, n_p, n_i) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3]);
        if n_f != 8 {
            return Err(NlpError::Unsupported {
                path: path.clone(),
                what: "parser feature count".into(),
                name: n_f.to_string(),
                supported: "8 (state_type parser, extra_state_tokens false)".into(),
            });
        }
        let lb = lower_node.param("b", path)?;
        lb.expect_shape(&[n_o, n_p], path, "precomputable_affine.b")?;
        let pad = lower_node.param("pad", path)?;
        pad.expect_shape(&[1, n_f, n_o, n_p], path, "precomputable_affine.pad")?;
        let (proj, upper) = if a.n_i == n_o && b.n_o == n_i { (b, a) } else { (a, b) };
        if proj.n_o != n_i || upper.n_i != n_o {
            return Err(corrupt("linear layers do not fit the lower layer"));
        }
        let (moves, labels) = read_moves(&dir.join("moves"))?;
        if moves.len() != upper.n_o {
            return Err(NlpError::corrupt(
                dir.join("moves"),
                format!("{} moves but the model scores {}", moves.len(), upper.n_o),
            ));
        }
        Ok(Parser {
            proj,
            n_f,
            n_o,
            n_p,
            lower_w: w.data.clone(),
            lower_b: lb.data.clone(),
            pad: pad.data.clone(),
            upper,
            moves,
            labels,
        })
    }

    /// The width of the token vectors the parser reads.
    pub fn input_width(&self) -> usize {
        self.proj.n_i
    }

    /// Parses one doc from its token vectors (n × input width).
    pub fn parse(&self, tokvecs: &[f32], n: usize) -> Parse {
        self.decode(&self.precompute(tokvecs, n), n)
    }

    /// The lower layer's contribution of every token in every context slot
    /// (n × nF·nO·nP); rows of different docs are independent, so a batch
    /// is computed at once.
    pub fn precompute(&self, tokvecs: &[f32], n: usize) -> Vec<f32> {
        self.precompute_cancellable(tokvecs, n, &AtomicBool::new(false)).unwrap_or_default()
    }

    /// [`Parser::precompute`] in pieces of rows (each row computed alone, so
    /// the same result), looking at `cancel` between them: `None` once it is
    /// set.
    pub fn precompute_cancellable(&self, tokvecs: &[f32], n: usize, cancel: &AtomicBool) -> Option<Vec<f32>> {
        let feat = self.n_f * self.n_o * self.n_p;
        let (n_i, n_o) = (self.proj.n_i, self.proj.n_o);
        let mut cached = vec![0.0f32; n * feat];
        in_row_pieces(n, cancel, |start, rows| {
            let proj = self.proj.forward(&tokvecs[start * n_i..(start + rows) * n_i], rows);
            matmul_bt(&proj, &self.lower_w, rows, n_o, feat, &mut cached[start * feat..(start + rows) * feat]);
        })?;
        Some(cached)
    }

    /// Greedy arc-eager decoding of one doc of `n` tokens from its rows of
    /// [`Self::precompute`].
    pub fn decode(&self, cached: &[f32], n: usize) -> Parse {
        let never = AtomicBool::new(false);
        self.decode_cancellable(cached, n, &never).unwrap_or_else(|| Parse { heads: Vec::new(), deps: Vec::new() })
    }

    /// [`Parser::decode`] that looks at `cancel` every
    /// [`ROWS_BETWEEN_CANCEL_CHECKS`] moves: `None` once it is set.
    pub fn decode_cancellable(&self, cached: &[f32], n: usize, cancel: &AtomicBool) -> Option<Parse> {
        if n == 0 {
            return Some(Parse { heads: Vec::new(), deps: Vec::new() });
        }
        let slot = self.n_o * self.n_p;
        let feat = self.n_f * slot;
        let mut state = State::new(n);
        let mut unmaxed = vec![0.0f32; slot];
        let mut hidden = vec![0.0f32; self.n_o];
        let mut scores = vec![0.0f32; self.upper.n_o];
        let mut valid = [false; 5];
        let kinds = [MoveKind::Shift, MoveKind::Reduce, MoveKind::Left, MoveKind::Right, MoveKind::Break];
        // Each step consumes or places a token; 4n+8 steps bound a parse
        // even if the rules were to loop.
        let mut budget = 4 * n + 8;
        while !state.is_final() {
            if budget == 0 {
                state.force_final();
                break;
            }
            budget -= 1;
            if budget.is_multiple_of(ROWS_BETWEEN_CANCEL_CHECKS) && is_set(cancel) {
                return None;
            }
            unmaxed.fill(0.0);
            for (f, tok) in state.context().iter().enumerate() {
                let src = match tok {
                    Some(t) => &cached[t * feat + f * slot..t * feat + (f + 1) * slot],
                    None => &self.pad[f * slot..(f + 1) * slot],
                };
                for (u, s) in unmaxed.iter_mut().zip(src) {
                    *u += s;
                }
            }
            for (u, b) in unmaxed.iter_mut().zip(&self.lower_b) {
                *u += b;
            }
            for (o, h) in hidden.iter_mut().enumerate() {
                let piece = &unmaxed[o * self.n_p..(o + 1) * self.n_p];
                let mut best = piece[0];
                for &v in &piece[1..] {
                    if v > best {
                        best = v;
                    }
                }
                *h = best;
            }
            self.upper.forward_one(&hidden, &mut scores);
            for (v, k) in valid.iter_mut().zip(kinds) {
                *v = state.is_valid(k);
            }
            let mut guess: Option<usize> = None;
            for (i, m) in self.moves.iter().enumerate() {
                if valid[m.kind as usize] && guess.is_none_or(|g| scores[i] > scores[g]) {
                    guess = Some(i);
                }
            }
            match guess {
                Some(g) => state.apply(&self.moves[g]),
                None => state.force_final(),
            }
        }
        let (heads, labels) = state.arcs();
        let mut out_heads = Vec::with_capacity(n);
        let mut deps = Vec::with_capacity(n);
        for i in 0..n {
            match heads[i] {
                Some(h) if h != i => {
                    out_heads.push(h);
                    deps.push(self.labels[labels[i]].clone());
                }
                _ => {
                    out_heads.push(i);
                    deps.push("ROOT".to_string());
                }
            }
        }
        Some(Parse { heads: out_heads, deps })
    }
}

/// Reads the `moves` file: action number → label frequencies, ordered as
/// spaCy's `initialize_actions` orders them (by action, then frequency
/// descending, then label descending).
fn read_moves(path: &Path) -> Result<(Vec<Move>, Vec<String>), NlpError> {
    let v = msgpack::read_file(path)?;
    let json = get(&v, "moves").and_then(as_text).ok_or_else(|| NlpError::corrupt(path, "no `moves` entry"))?;
    let parsed: serde_json::Value =
        serde_json::from_str(json).map_err(|e| NlpError::corrupt(path, format!("moves are not JSON: {e}")))?;
    let obj = parsed.as_object().ok_or_else(|| NlpError::corrupt(path, "moves are not a JSON object"))?;
    let mut actions: Vec<(&String, &serde_json::Value)> = obj.iter().collect();
    actions.sort_by(|a, b| a.0.cmp(b.0));
    let mut moves = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (code, freqs) in actions {
        let kind = code
            .parse::<u64>()
            .ok()
            .and_then(MoveKind::from_code)
            .ok_or_else(|| NlpError::corrupt(path, format!("unknown action {code}")))?;
        let freqs = freqs.as_object().ok_or_else(|| NlpError::corrupt(path, "label frequencies are not an object"))?;
        let mut pairs: Vec<(i64, &String)> = freqs.iter().map(|(l, f)| (f.as_i64().unwrap_or(0), l)).collect();
        pairs.sort();
        pairs.reverse();
        // spaCy adds negative-frequency labels after the others.
        let (pos, neg): (Vec<_>, Vec<_>) = pairs.into_iter().partition(|(f, _)| *f >= 0);
        for (_, label) in pos.into_iter().chain(neg) {
            if !seen.insert((kind as usize, label.clone())) {
                continue;
            }
            let idx = match labels.iter().position(|l| l == label) {
                Some(i) => i,
                None => {
                    labels.push(label.clone());
                    labels.len() - 1
                }
            };
            moves.push(Move { kind, label: idx });
        }
    }
    if moves.is_empty() {
        return Err(NlpError::corrupt(path, "no moves"));
    }
    Ok((moves, labels))
}
