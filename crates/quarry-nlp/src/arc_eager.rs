//! The arc-eager transition system of spaCy's dependency parser: the parse
//! state, the context tokens the model sees, the moves with their validity
//! rules, and the final heads and labels.

/// The kind of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveKind {
    /// Push the first buffer word onto the stack.
    Shift,
    /// Pop the stack (or put a headless word back on the buffer).
    Reduce,
    /// Arc from the first buffer word to the top of the stack; pop.
    Left,
    /// Arc from the top of the stack to the first buffer word; push.
    Right,
    /// Mark the second buffer word as a sentence start.
    Break,
}

impl MoveKind {
    /// The action number spaCy's `moves` file uses.
    pub fn from_code(code: u64) -> Option<MoveKind> {
        Some(match code {
            0 => MoveKind::Shift,
            1 => MoveKind::Reduce,
            2 => MoveKind::Left,
            3 => MoveKind::Right,
            4 => MoveKind::Break,
            _ => return None,
        })
    }
}

/// One class of the parser's output layer.
#[derive(Debug, Clone)]
pub struct Move {
    /// What it does.
    pub kind: MoveKind,
    /// The label index (into the parser's label list) an arc gets.
    pub label: usize,
}

#[derive(Debug, Clone, Copy)]
struct Arc {
    child: usize,
}

/// The state of one parse.
#[derive(Debug)]
pub struct State {
    n: usize,
    stack: Vec<usize>,
    rebuffer: Vec<usize>,
    b_i: usize,
    heads: Vec<Option<usize>>,
    labels: Vec<usize>,
    left_arcs: Vec<Vec<Arc>>,
    right_arcs: Vec<Vec<Arc>>,
    unshiftable: Vec<bool>,
    sent_start: Vec<bool>,
}

impl State {
    /// The start state for a doc of `n` tokens (the first token starts a
    /// sentence, as the tokenizer marks it).
    pub fn new(n: usize) -> State {
        let mut sent_start = vec![false; n];
        if n > 0 {
            sent_start[0] = true;
        }
        State {
            n,
            stack: Vec::new(),
            rebuffer: Vec::new(),
            b_i: 0,
            heads: vec![None; n],
            labels: vec![0; n],
            left_arcs: vec![Vec::new(); n],
            right_arcs: vec![Vec::new(); n],
            unshiftable: vec![false; n],
            sent_start,
        }
    }

    fn s(&self, i: usize) -> Option<usize> {
        if i >= self.stack.len() {
            None
        } else {
            Some(self.stack[self.stack.len() - 1 - i])
        }
    }

    fn b(&self, i: usize) -> Option<usize> {
        if i < self.rebuffer.len() {
            Some(self.rebuffer[self.rebuffer.len() - 1 - i])
        } else {
            let b = self.b_i + (i - self.rebuffer.len());
            (b < self.n).then_some(b)
        }
    }

    fn stack_depth(&self) -> usize {
        self.stack.len()
    }

    fn buffer_length(&self) -> usize {
        (self.n - self.b_i) + self.rebuffer.len()
    }

    /// True when the parse is complete.
    pub fn is_final(&self) -> bool {
        self.stack.is_empty() && self.buffer_length() == 0
    }

    fn is_sent_start(&self, w: Option<usize>) -> bool {
        w.is_some_and(|w| self.sent_start[w])
    }

    /// The most recent arc of `head` in `arcs` (spaCy's nth_child with
    /// index 1: the last one added, not the outermost).
    fn last_child(arcs: &[Vec<Arc>], head: Option<usize>) -> Option<usize> {
        head.and_then(|h| arcs[h].last()).map(|a| a.child)
    }

    /// The eight context tokens of spaCy's parser features: B0, B1, S0, S1,
    /// S2, the last left child of B0, the last left and right children of
    /// S0 (`None` where there is no such token).
    pub fn context(&self) -> [Option<usize>; 8] {
        let b0 = self.b(0);
        let s0 = self.s(0);
        [
            b0,
            self.b(1),
            s0,
            self.s(1),
            self.s(2),
            Self::last_child(&self.left_arcs, b0),
            Self::last_child(&self.left_arcs, s0),
            Self::last_child(&self.right_arcs, s0),
        ]
    }

    /// Whether a move of `kind` is allowed now.
    pub fn is_valid(&self, kind: MoveKind) -> bool {
        match kind {
            MoveKind::Shift => {
                self.stack_depth() == 0
                    || !(self.buffer_length() < 2
                        || self.is_sent_start(self.b(0))
                        || self.b(0).is_some_and(|b| self.unshiftable[b]))
            }
            MoveKind::Reduce => self.stack_depth() != 0,
            MoveKind::Left | MoveKind::Right => {
                self.stack_depth() != 0 && self.buffer_length() != 0 && !self.is_sent_start(self.b(0))
            }
            MoveKind::Break => {
                if self.buffer_length() < 2 {
                    return false;
                }
                match (self.b(0), self.b(1)) {
                    (Some(b0), Some(b1)) => b1 == b0 + 1 && !self.sent_start[b1],
                    _ => false,
                }
            }
        }
    }

    fn push(&mut self) {
        let b0 = match self.rebuffer.pop() {
            Some(b) => b,
            None => {
                self.b_i += 1;
                self.b_i - 1
            }
        };
        self.stack.push(b0);
    }

    fn add_arc(&mut self, head: usize, child: usize, label: usize) {
        if let Some(old) = self.heads[child] {
            // spaCy removes the old arc only when it is its head's last one.
            let arcs = if old > child { &mut self.left_arcs[old] } else { &mut self.right_arcs[old] };
            if arcs.last().is_some_and(|a| a.child == child) {
                arcs.pop();
            }
        }
        let arc = Arc { child };
        if head > child {
            self.left_arcs[head].push(arc);
        } else {
            self.right_arcs[head].push(arc);
        }
        self.heads[child] = Some(head);
        self.labels[child] = label;
    }

    /// Applies a move (which must be valid).
    pub fn apply(&mut self, m: &Move) {
        match m.kind {
            MoveKind::Shift => self.push(),
            MoveKind::Reduce => {
                let Some(s0) = self.s(0) else { return };
                if self.heads[s0].is_some() || self.stack_depth() == 1 {
                    self.stack.pop();
                } else {
                    self.unshiftable[s0] = true;
                    self.rebuffer.push(s0);
                    self.stack.pop();
                }
            }
            MoveKind::Left => {
                let (Some(b0), Some(s0)) = (self.b(0), self.s(0)) else { return };
                self.add_arc(b0, s0, m.label);
                self.unshiftable[b0] = false;
                self.stack.pop();
            }
            MoveKind::Right => {
                let (Some(b0), Some(s0)) = (self.b(0), self.s(0)) else { return };
                self.add_arc(s0, b0, m.label);
                self.push();
            }
            MoveKind::Break => {
                if let Some(b1) = self.b(1) {
                    self.sent_start[b1] = true;
                }
            }
        }
    }

    /// Ends the parse at once (spaCy's `force_final`, used when no move is
    /// valid).
    pub fn force_final(&mut self) {
        self.stack.clear();
        self.rebuffer.clear();
        self.b_i = self.n;
    }

    /// Heads (`None` for a root) and label indices of the finished parse.
    pub fn arcs(&self) -> (&[Option<usize>], &[usize]) {
        (&self.heads, &self.labels)
    }
}

/// Left and right edges of every token (spaCy's `set_children_from_heads`,
/// iterated as spaCy does for non-projective trees) and the sentence
/// starts that follow: the left edge of each root.
#[allow(clippy::needless_range_loop)] // index loops mirror spaCy's
pub fn edges_and_sentences(heads: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<bool>) {
    let n = heads.len();
    let mut l_edge: Vec<usize> = (0..n).collect();
    let mut r_edge: Vec<usize> = (0..n).collect();
    let mut loop_count = 0;
    loop {
        for i in 0..n {
            let h = heads[i];
            if l_edge[i] < l_edge[h] {
                l_edge[h] = l_edge[i];
            }
            if r_edge[i] > r_edge[h] {
                r_edge[h] = r_edge[i];
            }
        }
        for i in (0..n).rev() {
            let h = heads[i];
            if r_edge[i] > r_edge[h] {
                r_edge[h] = r_edge[i];
            }
            if l_edge[i] < l_edge[h] {
                l_edge[h] = l_edge[i];
            }
        }
        let mut starts = vec![false; n];
        for i in 0..n {
            if heads[i] == i {
                starts[l_edge[i]] = true;
            }
        }
        let mut ok = true;
        let mut cur_start = 0;
        'check: for i in 0..n {
            if (i > 0 && starts[i]) || i + 1 == n {
                let cur_end = i;
                for j in cur_start..cur_end {
                    if heads[j] < cur_start || heads[j] > cur_end {
                        ok = false;
                        break 'check;
                    }
                }
                cur_start = i;
            }
        }
        if ok || loop_count > 10 {
            break;
        }
        loop_count += 1;
    }
    let mut sent_start = vec![false; n];
    for i in 0..n {
        if heads[i] == i {
            sent_start[l_edge[i]] = true;
        }
    }
    if n > 0 {
        sent_start[0] = true;
    }
    (l_edge, r_edge, sent_start)
}

/// The children of `i` as spaCy's `Token.children` finds them: tokens in
/// `[l_edge, i)` and `(i, r_edge]` whose head is `i`.
fn children(i: usize, heads: &[usize], l_edge: &[usize], r_edge: &[usize]) -> Vec<usize> {
    let mut out: Vec<usize> = (l_edge[i]..i).filter(|&c| heads[c] == i).collect();
    out.extend((i + 1..=r_edge[i].min(heads.len() - 1)).filter(|&c| heads[c] == i));
    out
}

/// spaCy's label deprojectivization: a label `x||y` reattaches its token to
/// the first token labelled `y` found breadth-first below its head (left
/// to right), then becomes `x`. Edges are those of the parse before any
/// reattachment, as in spaCy.
pub fn deprojectivize(heads: &mut [usize], deps: &mut [String], is_space: &[bool]) {
    if !deps.iter().any(|d| d.contains("||")) {
        return;
    }
    let (l_edge, r_edge, _) = edges_and_sentences(heads);
    for i in 0..heads.len() {
        let Some((new_label, head_label)) = deps[i].split_once("||") else { continue };
        let (new_label, head_label) = (new_label.to_string(), head_label.to_string());
        let mut new_head = heads[i];
        let mut queue = vec![heads[i]];
        let mut steps = 0;
        'search: while !queue.is_empty() && steps <= heads.len() {
            steps += 1;
            let mut next = Vec::new();
            for q in queue {
                for c in children(q, heads, &l_edge, &r_edge) {
                    if is_space[c] || c == i {
                        continue;
                    }
                    if deps[c] == head_label {
                        new_head = c;
                        break 'search;
                    }
                    next.push(c);
                }
            }
            queue = next;
        }
        heads[i] = new_head;
        deps[i] = new_label;
    }
}
