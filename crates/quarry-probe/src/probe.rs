//! The probing classifier: softmax regression on frozen features, or a
//! one-hidden-layer MLP (ReLU), trained with Adam and L2 regularisation.

use quarry_stdx::rng::SplitMix64;

use crate::seeding::seeded;

/// A dense layer `y = W x + b` with its Adam state.
#[derive(Debug, Clone)]
struct Dense {
    inputs: usize,
    outputs: usize,
    /// Row-major `outputs × inputs`.
    weights: Vec<f32>,
    bias: Vec<f32>,
    grad_w: Vec<f32>,
    grad_b: Vec<f32>,
    m_w: Vec<f32>,
    v_w: Vec<f32>,
    m_b: Vec<f32>,
    v_b: Vec<f32>,
}

impl Dense {
    fn new(inputs: usize, outputs: usize, rng: &mut SplitMix64) -> Dense {
        let bound = 1.0 / (inputs.max(1) as f64).sqrt();
        let mut init = |n: usize| (0..n).map(|_| ((rng.unit() * 2.0 - 1.0) * bound) as f32).collect::<Vec<f32>>();
        let weights = init(inputs * outputs);
        let bias = init(outputs);
        Dense {
            inputs,
            outputs,
            weights,
            bias,
            grad_w: vec![0.0; inputs * outputs],
            grad_b: vec![0.0; outputs],
            m_w: vec![0.0; inputs * outputs],
            v_w: vec![0.0; inputs * outputs],
            m_b: vec![0.0; outputs],
            v_b: vec![0.0; outputs],
        }
    }

    fn forward(&self, x: &[f32], out: &mut [f32]) {
        for (o, out) in out.iter_mut().enumerate() {
            let row = &self.weights[o * self.inputs..(o + 1) * self.inputs];
            *out = self.bias[o] + row.iter().zip(x).map(|(w, v)| w * v).sum::<f32>();
        }
    }

    /// Accumulates gradients for one example; writes `dL/dx` into `grad_x` if given.
    fn backward(&mut self, x: &[f32], grad_out: &[f32], grad_x: Option<&mut [f32]>) {
        for (o, &g) in grad_out.iter().enumerate() {
            if g == 0.0 {
                continue;
            }
            self.grad_b[o] += g;
            let row = &mut self.grad_w[o * self.inputs..(o + 1) * self.inputs];
            for (gw, v) in row.iter_mut().zip(x) {
                *gw += g * v;
            }
        }
        if let Some(grad_x) = grad_x {
            grad_x.iter_mut().for_each(|g| *g = 0.0);
            for (o, &g) in grad_out.iter().enumerate() {
                let row = &self.weights[o * self.inputs..(o + 1) * self.inputs];
                for (gx, w) in grad_x.iter_mut().zip(row) {
                    *gx += g * w;
                }
            }
        }
    }

    fn adam_step(&mut self, batch: usize, step: i32, adam: &Adam, l2: f32) {
        let scale = 1.0 / batch as f32;
        let c1 = 1.0 - adam.beta1.powi(step);
        let c2 = 1.0 - adam.beta2.powi(step);
        let update = |p: &mut f32, g: f32, m: &mut f32, v: &mut f32| {
            *m = adam.beta1 * *m + (1.0 - adam.beta1) * g;
            *v = adam.beta2 * *v + (1.0 - adam.beta2) * g * g;
            *p -= adam.learning_rate * (*m / c1) / ((*v / c2).sqrt() + adam.epsilon);
        };
        for i in 0..self.weights.len() {
            let g = self.grad_w[i] * scale + l2 * self.weights[i];
            update(&mut self.weights[i], g, &mut self.m_w[i], &mut self.v_w[i]);
            self.grad_w[i] = 0.0;
        }
        for i in 0..self.bias.len() {
            let g = self.grad_b[i] * scale;
            update(&mut self.bias[i], g, &mut self.m_b[i], &mut self.v_b[i]);
            self.grad_b[i] = 0.0;
        }
    }
}

/// Adam's hyper-parameters.
#[derive(Debug, Clone, Copy)]
pub struct Adam {
    /// Step size.
    pub learning_rate: f32,
    /// First-moment decay.
    pub beta1: f32,
    /// Second-moment decay.
    pub beta2: f32,
    /// Denominator guard.
    pub epsilon: f32,
}

impl Default for Adam {
    fn default() -> Adam {
        Adam { learning_rate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 }
    }
}

/// A linear (softmax regression) or one-hidden-layer probe.
#[derive(Debug, Clone)]
pub struct Probe {
    hidden: Option<Dense>,
    output: Dense,
    step: i32,
}

impl Probe {
    /// A freshly initialised probe; `hidden` is the width of the hidden layer
    /// (`None` for a linear probe).
    pub fn new(inputs: usize, classes: usize, hidden: Option<usize>, seed: u64) -> Probe {
        let mut rng = seeded(seed);
        let hidden_layer = hidden.map(|h| Dense::new(inputs, h, &mut rng));
        let width = hidden.unwrap_or(inputs);
        Probe { hidden: hidden_layer, output: Dense::new(width, classes, &mut rng), step: 0 }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.output.outputs
    }

    /// Class scores (logits) for one feature vector.
    pub fn logits(&self, x: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; self.output.outputs];
        match &self.hidden {
            Some(hidden) => {
                let mut h = vec![0.0; hidden.outputs];
                hidden.forward(x, &mut h);
                h.iter_mut().for_each(|v| *v = v.max(0.0));
                self.output.forward(&h, &mut out);
            }
            None => self.output.forward(x, &mut out),
        }
        out
    }

    /// The predicted class of one feature vector.
    pub fn predict(&self, x: &[f32]) -> usize {
        argmax(&self.logits(x))
    }

    /// One Adam step on a mini-batch; returns the mean cross-entropy.
    pub fn train_batch(&mut self, xs: &[&[f32]], ys: &[usize], adam: &Adam, l2: f32) -> f32 {
        let mut loss = 0.0;
        for (x, &y) in xs.iter().zip(ys) {
            let (h, logits) = match &self.hidden {
                Some(hidden) => {
                    let mut h = vec![0.0; hidden.outputs];
                    hidden.forward(x, &mut h);
                    h.iter_mut().for_each(|v| *v = v.max(0.0));
                    let mut out = vec![0.0; self.output.outputs];
                    self.output.forward(&h, &mut out);
                    (Some(h), out)
                }
                None => {
                    let mut out = vec![0.0; self.output.outputs];
                    self.output.forward(x, &mut out);
                    (None, out)
                }
            };
            let probs = softmax(&logits);
            loss -= probs[y].max(1e-12).ln();
            let mut grad = probs;
            grad[y] -= 1.0;
            match (&mut self.hidden, h) {
                (Some(hidden), Some(h)) => {
                    let mut grad_h = vec![0.0; h.len()];
                    self.output.backward(&h, &grad, Some(&mut grad_h));
                    for (g, v) in grad_h.iter_mut().zip(&h) {
                        if *v <= 0.0 {
                            *g = 0.0;
                        }
                    }
                    hidden.backward(x, &grad_h, None);
                }
                _ => self.output.backward(x, &grad, None),
            }
        }
        self.step += 1;
        if let Some(hidden) = &mut self.hidden {
            hidden.adam_step(xs.len(), self.step, adam, l2);
        }
        self.output.adam_step(xs.len(), self.step, adam, l2);
        loss / xs.len().max(1) as f32
    }
}

/// Index of the largest value (the first on ties).
pub fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if *v > values[best] {
            best = i;
        }
    }
    best
}

/// Numerically stable softmax.
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}
